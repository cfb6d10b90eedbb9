//! Assembly: the parsed chunks joined per thread in file order, sorted by time and encoded
//! into the store's columns.

use rayon::prelude::*;

use prvscope_format::error::LoadReport;
use prvscope_store::columns::{Buf, SlabWriter, slab_bytes};
use prvscope_store::{Comm, EventColumn, StateColumns, ThreadData, TimeColumn, ValueColumn};

use super::chunk::{ChunkOut, EventPiece, RawState, StatePiece};

/// Everything [`assemble`] produces.
pub struct Assembled {
    pub threads: Vec<ThreadData>,
    pub comms: Buf<Comm>,
    pub null_values: u64,
    pub communicator_lines: u64,
    pub report: LoadReport,
    /// The pairs of event types whose order at one timestamp the store does not keep
    /// (`TraceStore::inversions`).
    pub inversions: Vec<(u32, u32)>,
    /// Per row, the types of its first and last timestamps: a batch's, for the join of the
    /// batches of a conversion.
    pub order_edges: Vec<super::OrderEdge>,
    /// The rows whose events go back in time, by row. Of a whole load ([`assemble`]), every
    /// pair of their event types is in `inversions`.
    pub backward: Vec<super::Backward>,
}

/// Joins parsed chunks (in file order) into sorted, encoded per-thread columns.
/// `first_line` is the file line number of the first chunk's first line.
pub fn assemble(chunks: Vec<ChunkOut>, rows: usize, sentinel: u64, first_line: u64) -> Assembled {
    let mut out = assemble_batch(chunks, rows, sentinel, first_line);
    for t in &mut out.threads {
        cpus_from_zero(&mut t.cpus);
    }
    let threads = &out.threads;
    super::add_backward_pairs(&mut out.inversions, &out.backward, |row| {
        threads
            .get(row as usize)
            .into_iter()
            .flat_map(|t| t.events.iter().map(|c| c.ty))
    });
    out
}

/// [`assemble`] for one batch of a trace parsed in several ([`join_parts`] joins them):
/// threads' CPU changes keep their times (the first is not moved to time 0).
pub fn assemble_batch(
    chunks: Vec<ChunkOut>,
    rows: usize,
    sentinel: u64,
    first_line: u64,
) -> Assembled {
    let mut report = LoadReport::default();
    let mut null_values = 0;
    let mut communicator_lines = 0;
    let mut comm_pieces = Vec::with_capacity(chunks.len());
    // Transpose: per row, the pieces of every chunk in file order.
    let mut states: Vec<Vec<StatePiece>> = (0..rows).map(|_| Vec::new()).collect();
    let mut events: Vec<Vec<EventPiece>> = (0..rows).map(|_| Vec::new()).collect();
    let mut cpus: Vec<Vec<(u64, u32)>> = (0..rows).map(|_| Vec::new()).collect();
    let mut line_base = first_line.saturating_sub(1);
    // Of the events before a partial load's range, the last per (row, type) holds when the
    // range starts: it goes first, as a piece of its own.
    let mut befores = std::collections::BTreeMap::<(u32, u32), (u64, u64)>::new();
    for b in chunks.iter().flat_map(|c| &c.befores) {
        let slot = befores
            .entry((b.row, b.e.ty))
            .or_insert((b.e.time, b.e.value));
        if b.e.time >= slot.0 {
            *slot = (b.e.time, b.e.value);
        }
    }
    for ((row, ty), pair) in befores {
        null_values += u64::from(pair.1 == sentinel);
        if let Some(r) = events.get_mut(row as usize) {
            r.push(EventPiece {
                row,
                ty,
                sorted: true,
                time: TimeColumn::from_sorted_slice_by(&[pair], |p| p.0),
                value: ValueColumn::from_slice_with_max(
                    &[pair],
                    sentinel,
                    if pair.1 == sentinel { 0 } else { pair.1 },
                    |p| p.1,
                ),
            });
        }
    }
    let mut order = super::OrderJoin::new(rows);
    for mut chunk in chunks {
        order.add_inversions(std::mem::take(&mut chunk.inversions));
        order.push(std::mem::take(&mut chunk.order_edges));
        order.add_backward(std::mem::take(&mut chunk.backward));
        for issue in chunk.report.examples_mut().iter_mut() {
            if issue.line > 0 {
                issue.line += line_base;
            }
        }
        line_base += chunk.lines;
        report.merge(chunk.report);
        null_values += chunk.null_values;
        communicator_lines += chunk.communicator_lines;
        comm_pieces.push(std::mem::take(&mut chunk.comms));
        for piece in chunk.state_pieces {
            if let Some(r) = states.get_mut(piece.row as usize) {
                r.push(piece);
            }
        }
        for buf in chunk.pieces {
            if let Some(r) = events.get_mut(buf.row as usize) {
                r.push(buf);
            }
        }
        for (row, changes) in chunk.cpu_pieces {
            if let Some(r) = cpus.get_mut(row as usize) {
                // A chunk's first record always counts as a change; it is one only when
                // its CPU differs from the last record's of the chunks before.
                let skip = usize::from(r.last().map(|l| l.1) == changes.first().map(|f| f.1));
                r.extend_from_slice(changes.get(skip..).unwrap_or_default());
            }
        }
    }
    // The pieces become the store's segments (moved, not copied) when they are in order;
    // meanwhile the communications are joined and sorted.
    crate::stages::mark("assembly: transposed");
    let comms = join_comms(comm_pieces);
    crate::stages::mark("assembly: messages");
    let mut states_backward = Vec::new();
    let threads: Vec<ThreadData> = states
        .into_par_iter()
        .zip(events.into_par_iter())
        .zip(cpus.into_par_iter())
        .map(|((s, e), c)| {
            let back = states_back(&s);
            let mut t = build_thread(s, e, sentinel);
            t.cpus = cpu_runs(c);
            (t, back)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .enumerate()
        .map(|(row, (t, back))| {
            if let Some((time, after)) = back {
                states_backward.push(super::Backward {
                    row: row as u32,
                    time,
                    after,
                    state: true,
                });
            }
            t
        })
        .collect();
    let (order_edges, inversions, mut backward) = order.finish();
    backward.extend(states_backward);
    backward.sort_by_key(|b| (b.row, b.state));
    Assembled {
        threads,
        comms,
        null_values,
        communicator_lines,
        report,
        inversions,
        order_edges,
        backward,
    }
}

/// The messages of all chunks as one list sorted by logical send time, stably (equal times
/// keep file order). Each chunk's are sorted by its worker; the list is cut into ranges of
/// send time (at quarters of each chunk's messages), and each range is merged from the
/// chunks' runs in it on all workers, straight into the list: a range holds mostly one
/// chunk's messages and a few of its neighbours', copied a run at a time. Measured on 16
/// cores, 4 M messages: the sequential join and sort took as long as the parse.
///
/// The list is written into a slab ([`SlabWriter`]) when it takes at least `SLAB_MIN`
/// bytes: its memory comes in huge pages where the system allows them (the 1 GB generated
/// trace's messages took 15 k page faults on the heap). Every element is written, so the
/// list holds no byte the slab had before.
fn join_comms(mut pieces: Vec<Vec<Comm>>) -> Buf<Comm> {
    pieces.retain(|p| !p.is_empty());
    pieces.par_iter_mut().for_each(sort_by_send);
    let total: usize = pieces.iter().map(Vec::len).sum();
    let mut bounds: Vec<u64> = pieces
        .iter()
        .flat_map(|p| (0..4).filter_map(|q| Some(p.get(q * p.len() / 4)?.lsend)))
        .chain([0])
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    // Range j: send times from bounds[j] to before bounds[j + 1] (the last: to the end); its
    // runs as (chunk, positions in the chunk).
    let runs: Vec<Vec<(usize, std::ops::Range<usize>)>> = (0..bounds.len())
        .into_par_iter()
        .map(|j| {
            let lo = bounds.get(j).copied().unwrap_or(0);
            let hi = bounds.get(j + 1).copied();
            pieces
                .iter()
                .enumerate()
                .filter_map(|(i, p)| {
                    // Most chunks lie wholly before or after the range: no search.
                    let (first, last) = (p.first()?.lsend, p.last()?.lsend);
                    if last < lo || hi.is_some_and(|h| first >= h) {
                        return None;
                    }
                    let a = p.partition_point(|c| c.lsend < lo);
                    let b = hi.map_or(p.len(), |h| p.partition_point(|c| c.lsend < h));
                    (a < b).then_some((i, a..b))
                })
                .collect()
        })
        .collect();
    // The list in a slab of fresh memory (huge pages: 4 M messages are 256 MB, 64 k page
    // faults in 4 kB pages), else on the heap.
    let mut slab = (slab_bytes::<Comm>(total) >= super::runs::SLAB_MIN)
        .then(|| SlabWriter::new(slab_bytes::<Comm>(total)))
        .flatten();
    let mut owned = Vec::new();
    let (placed, list) =
        if let Some((placed, list)) = slab.as_mut().and_then(|s| s.array_mut::<Comm>(total)) {
            (Some(placed), list)
        } else {
            owned = vec![<Comm as bytemuck::Zeroable>::zeroed(); total];
            (None, owned.as_mut_slice())
        };
    let mut slots = Vec::with_capacity(runs.len());
    let mut spare = list;
    for range in &runs {
        let len = range.iter().map(|(_, r)| r.len()).sum();
        let Some((slot, rest)) = spare.split_at_mut_checked(len) else {
            unreachable!("the ranges hold the messages the list has room for");
        };
        slots.push(slot);
        spare = rest;
    }
    // A wave of ranges at a time, in time order: then the chunks whose messages were all
    // copied are freed, so that the list and the chunks are not all held at once.
    let wave = 4 * rayon::current_num_threads().max(1);
    let mut filled = true;
    let mut slots = slots.into_iter();
    for (w, ranges) in runs.chunks(wave).enumerate() {
        let wave_slots: Vec<_> = slots.by_ref().take(ranges.len()).collect();
        filled &= wave_slots.into_par_iter().zip(ranges).all(|(slot, range)| {
            let range = range
                .iter()
                .filter_map(|(i, r)| Some((*i, pieces.get(*i)?.get(r.clone())?)))
                .collect();
            merge_runs(slot, range)
        });
        let next = bounds.get((w + 1) * wave).copied().unwrap_or(u64::MAX);
        for p in &mut pieces {
            if p.last().is_some_and(|c| c.lsend < next) {
                *p = Vec::new();
            }
        }
    }
    assert!(filled, "each range's slot is filled with its messages");
    match (slab, placed) {
        (Some(slab), Some(placed)) => match placed.buf(&slab.finish()) {
            Some(list) => list,
            None => unreachable!("the list lies in its slab"),
        },
        _ => Buf::from(owned),
    }
}

/// Sorts a chunk's messages by send time, stably. A trace writes most messages in order and
/// some late: those after a later one are taken out, sorted and merged back (at equal times
/// after the ones left, which came first in the file), instead of sorting all of them.
fn sort_by_send(p: &mut Vec<Comm>) {
    if p.is_sorted_by_key(|c| c.lsend) {
        return;
    }
    let mut late = Vec::new();
    let mut max = 0;
    p.retain(|c| {
        if c.lsend >= max {
            max = c.lsend;
            true
        } else {
            late.push(*c);
            false
        }
    });
    late.sort_by_key(|c| c.lsend);
    // Merged from the back, in place: the kept ones are moved up as the late ones go in.
    let mut kept = p.len();
    p.extend_from_slice(&late);
    let mut at = p.len();
    for l in late.iter().rev() {
        loop {
            at -= 1;
            match kept.checked_sub(1).and_then(|k| p.get(k)).copied() {
                Some(c) if c.lsend > l.lsend => {
                    if let Some(slot) = p.get_mut(at) {
                        *slot = c;
                    }
                    kept -= 1;
                }
                _ => {
                    if let Some(slot) = p.get_mut(at) {
                        *slot = *l;
                    }
                    break;
                }
            }
        }
    }
}

/// Writes the messages of `runs` (each sorted by send time; the chunk's index first) into
/// `slot` in order of (send time, chunk), a run's stretch at a time: the stretch of the run
/// with the first message that comes before any other run's first. Returns whether the
/// messages filled the slot.
fn merge_runs(slot: &mut [Comm], mut runs: Vec<(usize, &[Comm])>) -> bool {
    let key = |i: usize, r: &[Comm]| r.first().map(|c| (c.lsend, i));
    let mut out = slot.iter_mut();
    while let Some(k) = (0..runs.len()).min_by_key(|&k| runs.get(k).and_then(|&(i, r)| key(i, r))) {
        let Some(&(i, run)) = runs.get(k) else { break };
        let next = runs
            .iter()
            .filter(|(m, _)| *m != i)
            .filter_map(|&(m, r)| key(m, r))
            .min();
        let take = next.map_or(run.len(), |t| run.partition_point(|c| (c.lsend, i) < t));
        // The run first: a zip takes from its first iterator before it finds the second
        // one ended.
        for (from, to) in run.get(..take).unwrap_or_default().iter().zip(out.by_ref()) {
            *to = *from;
        }
        match run.get(take..).filter(|r| !r.is_empty()) {
            Some(rest) => {
                if let Some(r) = runs.get_mut(k) {
                    r.1 = rest;
                }
            }
            None => {
                runs.swap_remove(k);
            }
        }
    }
    out.len() == 0
}

/// A thread's CPU over time from its CPU changes in file order: sorted by time (stably),
/// without repeats, the first from time 0.
fn cpu_runs(mut changes: Vec<(u64, u32)>) -> Vec<(u64, u32)> {
    if !changes.is_sorted_by_key(|c| c.0) {
        changes.sort_by_key(|c| c.0);
    }
    changes.dedup_by_key(|c| c.1);
    changes.shrink_to_fit();
    changes
}

/// Before its first record a thread is on its first CPU.
fn cpus_from_zero(runs: &mut [(u64, u32)]) {
    if let Some(first) = runs.first_mut() {
        first.0 = 0;
    }
}

/// The first and last times of a thread's part (a batch's), taken while its columns are in
/// memory: joining parts read back from a file then finds whether they are in order without
/// reading the file (a page read per column and part is slow when memory is short).
#[derive(Debug, Clone, Default)]
pub struct PartBounds {
    /// First and last begin, first and last end.
    states: Option<[u64; 4]>,
    ends_sorted: bool,
    /// Per event type: first and last time.
    events: Vec<(u32, u64, u64)>,
}

impl PartBounds {
    /// The bounds of `t`.
    pub fn of(thread: &ThreadData) -> Self {
        let s = &thread.states;
        let states = (|| {
            Some([
                s.begin.first()?,
                s.begin.last()?,
                s.end.first()?,
                s.end.last()?,
            ])
        })();
        PartBounds {
            states,
            ends_sorted: s.ends_sorted,
            events: thread
                .events
                .iter()
                .filter_map(|e| Some((e.ty, e.time.first()?, e.time.last()?)))
                .collect(),
        }
    }
}

/// Are the parts in order, each after the one before, by what `bounds` gives of them?
fn parts_in_order<'a>(bounds: impl Iterator<Item = Option<(u64, u64)>> + 'a) -> bool {
    let mut last = None;
    for (first, end) in bounds.flatten() {
        if last.is_some_and(|l| l > first) {
            return false;
        }
        last = Some(end);
    }
    true
}

/// One thread's parts, from the batches of a trace parsed in several (in file order), joined
/// as [`assemble`] joins the pieces of chunks: moved when in order (found from their
/// [`PartBounds`], without reading them), sorted otherwise (which takes that thread's records
/// in memory).
pub fn join_parts(parts: Vec<(ThreadData, PartBounds)>, sentinel: u64) -> ThreadData {
    let begins = parts_in_order(parts.iter().map(|(_, b)| b.states.map(|s| (s[0], s[1]))));
    let ends = parts.iter().all(|(_, b)| b.ends_sorted)
        && parts_in_order(parts.iter().map(|(_, b)| b.states.map(|s| (s[2], s[3]))));
    let mut types: Vec<u32> = parts
        .iter()
        .flat_map(|(_, b)| b.events.iter().map(|e| e.0))
        .collect();
    types.sort_unstable();
    types.dedup();
    let events = types.iter().all(|&ty| {
        parts_in_order(
            parts
                .iter()
                .map(|(_, b)| b.events.iter().find(|e| e.0 == ty).map(|e| (e.1, e.2))),
        )
    });
    let mut cpus: Vec<(u64, u32)> = Vec::new();
    let mut t = if begins && ends && events {
        let (mut begin, mut end, mut value) = (Vec::new(), Vec::new(), Vec::new());
        let mut by_type =
            std::collections::BTreeMap::<u32, (Vec<TimeColumn>, Vec<ValueColumn>)>::new();
        for (part, _) in parts {
            let s = part.states;
            if !s.is_empty() {
                begin.push(s.begin);
                end.push(s.end);
                value.push(s.value);
            }
            for e in part.events {
                let slot = by_type.entry(e.ty).or_default();
                slot.0.push(e.time);
                slot.1.push(e.value);
            }
            cpus.extend_from_slice(&part.cpus);
        }
        ThreadData {
            states: StateColumns {
                begin: TimeColumn::join_sorted(begin),
                end: TimeColumn::join_sorted(end),
                value: ValueColumn::join(value, sentinel),
                ends_sorted: true,
            },
            events: by_type
                .into_iter()
                .map(|(ty, (time, value))| EventColumn {
                    ty,
                    time: TimeColumn::join_sorted(time),
                    value: ValueColumn::join(value, sentinel),
                })
                .collect(),
            cpus: Vec::new(),
        }
    } else {
        let mut states = Vec::with_capacity(parts.len());
        let mut events = Vec::new();
        for (part, _) in parts {
            let s = part.states;
            if !s.is_empty() {
                states.push(StatePiece {
                    row: 0,
                    begins_sorted: true,
                    ends_sorted: s.ends_sorted,
                    begin: s.begin,
                    end: s.end,
                    value: s.value,
                });
            }
            events.extend(part.events.into_iter().map(|e| EventPiece {
                row: 0,
                ty: e.ty,
                sorted: true,
                time: e.time,
                value: e.value,
            }));
            cpus.extend_from_slice(&part.cpus);
        }
        build_thread(states, events, sentinel)
    };
    t.cpus = cpu_runs(cpus);
    cpus_from_zero(&mut t.cpus);
    t
}

/// Are pieces in order when put one after the other? `first`/`last` give a piece's first and
/// last time; every piece must be sorted itself.
fn in_order<P>(
    pieces: &[P],
    sorted: impl Fn(&P) -> bool,
    first: impl Fn(&P) -> Option<u64>,
    last: impl Fn(&P) -> Option<u64>,
) -> bool {
    pieces.iter().all(&sorted)
        && pieces.windows(2).all(|w| match w {
            [x, y] => match (last(x), first(y)) {
                (Some(a), Some(b)) => a <= b,
                _ => true,
            },
            _ => true,
        })
}

/// Where a row's states first go back in time, as (begin, the begin before it), in file
/// order; `None` when their begins are in order (most rows: no begin is read then).
fn states_back(states: &[StatePiece]) -> Option<(u64, u64)> {
    if in_order(
        states,
        |p| p.begins_sorted,
        |p| p.begin.first(),
        |p| p.begin.last(),
    ) {
        return None;
    }
    let mut begins = states.iter().flat_map(|p| p.begin.iter());
    let mut last = begins.next()?;
    for b in begins {
        if b < last {
            return Some((b, last));
        }
        last = b;
    }
    None
}

fn build_thread(states: Vec<StatePiece>, mut events: Vec<EventPiece>, sentinel: u64) -> ThreadData {
    let begins_in_order = in_order(
        &states,
        |p| p.begins_sorted,
        |p| p.begin.first(),
        |p| p.begin.last(),
    );
    let state_cols = if begins_in_order {
        let ends_sorted = in_order(
            &states,
            |p| p.ends_sorted,
            |p| p.end.first(),
            |p| p.end.last(),
        );
        let mut begins = Vec::with_capacity(states.len());
        let mut ends = Vec::with_capacity(states.len());
        let mut values = Vec::with_capacity(states.len());
        for p in states {
            begins.push(p.begin);
            ends.push(p.end);
            values.push(p.value);
        }
        StateColumns {
            begin: TimeColumn::join_sorted(begins),
            end: if ends_sorted {
                TimeColumn::join_sorted(ends)
            } else {
                let refs: Vec<&TimeColumn> = ends.iter().collect();
                let all: Vec<u64> = refs.iter().flat_map(|c| c.iter()).collect();
                TimeColumn::from_times(&all)
            },
            value: ValueColumn::join(values, sentinel),
            ends_sorted,
        }
    } else {
        let mut all: Vec<RawState> = states
            .iter()
            .flat_map(|p| {
                p.begin
                    .iter()
                    .zip(p.end.iter())
                    .zip(p.value.iter())
                    .map(|((begin, end), value)| RawState { begin, end, value })
            })
            .collect();
        all.sort_by_key(|s| s.begin); // stable: equal begins keep file order
        StateColumns {
            ends_sorted: all.is_sorted_by_key(|s| s.end),
            begin: TimeColumn::from_slice_by(&all, |s| s.begin),
            end: TimeColumn::from_slice_by(&all, |s| s.end),
            value: ValueColumn::from_slice_by(&all, sentinel, |s| s.value),
        }
    };

    // Pieces of one type, in file order (the sort is stable).
    events.sort_by_key(|b| b.ty);
    let mut columns = Vec::new();
    let mut group: Vec<EventPiece> = Vec::new();
    let mut pieces = events.into_iter().peekable();
    while let Some(piece) = pieces.next() {
        let ty = piece.ty;
        group.push(piece);
        if pieces.peek().is_some_and(|p| p.ty == ty) {
            continue;
        }
        let sorted = in_order(&group, |p| p.sorted, |p| p.time.first(), |p| p.time.last());
        let column = if sorted {
            let mut times = Vec::with_capacity(group.len());
            let mut values = Vec::with_capacity(group.len());
            for p in group.drain(..) {
                times.push(p.time);
                values.push(p.value);
            }
            EventColumn {
                ty,
                time: TimeColumn::join_sorted(times),
                value: ValueColumn::join(values, sentinel),
            }
        } else {
            let mut pairs: Vec<(u64, u64)> = group
                .iter()
                .flat_map(|b| b.time.iter().zip(b.value.iter()))
                .collect();
            group.clear();
            pairs.sort_by_key(|p| p.0); // stable: equal times keep file order
            EventColumn {
                ty,
                time: TimeColumn::from_slice_by(&pairs, |p| p.0),
                value: ValueColumn::from_slice_by(&pairs, sentinel, |p| p.1),
            }
        };
        columns.push(column);
    }
    // A column is 128 bytes: the list's spare room cost more than a small thread's records.
    columns.shrink_to_fit();
    ThreadData {
        states: state_cols,
        events: columns,
        cpus: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::join_comms;
    use proptest::prelude::*;
    use prvscope_store::Comm;

    proptest! {
        /// Messages mostly in order, some late, equal times among them: sorted as a stable
        /// sort sorts them.
        #[test]
        fn messages_are_sorted_stably(times in proptest::collection::vec(0u64..40, 0..300)) {
            let comms: Vec<Comm> = times
                .iter()
                .enumerate()
                .map(|(i, &t)| Comm {
                    send_row: 0,
                    recv_row: 0,
                    send_cpu: 0,
                    recv_cpu: 0,
                    lsend: t,
                    psend: t,
                    lrecv: t,
                    precv: t,
                    size: 0,
                    tag: i as u64,
                })
                .collect();
            let mut want = comms.clone();
            want.sort_by_key(|c| c.lsend);
            let mut got = comms;
            super::sort_by_send(&mut got);
            prop_assert_eq!(got, want);
        }

        /// Joined chunk by chunk as a stable sort of all the messages in file order would
        /// order them: chunks overlapping in time, equal times within and across chunks,
        /// chunks unsorted, empty chunks.
        #[test]
        fn comms_join_as_a_stable_sort(
            pieces in prop::collection::vec(prop::collection::vec((0u64..40, any::<bool>()), 0..60), 0..12),
            spread in 0u64..200,
        ) {
            let mut tag = 0u64;
            let mut all = Vec::new();
            let pieces: Vec<Vec<Comm>> = pieces
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let mut piece: Vec<Comm> = p
                        .iter()
                        .map(|&(t, far)| {
                            tag += 1;
                            // Mostly time-ordered chunks, some messages far behind or ahead.
                            let lsend = if far { t * 7 } else { i as u64 * spread + t };
                            Comm {
                                send_row: 0,
                                recv_row: 0,
                                send_cpu: 0,
                                recv_cpu: 0,
                                lsend,
                                psend: 0,
                                lrecv: 0,
                                precv: 0,
                                size: 0,
                                tag,
                            }
                        })
                        .collect();
                    all.extend_from_slice(&piece);
                    if i % 3 != 0 {
                        piece.sort_by_key(|c| c.lsend);
                    }
                    piece
                })
                .collect();
            // The reference sorts each chunk first too (as the parse does), then all stably.
            let mut expected = Vec::new();
            let mut at = 0;
            for p in &pieces {
                let mut own = all[at..at + p.len()].to_vec();
                own.sort_by_key(|c| c.lsend);
                expected.extend(own);
                at += p.len();
            }
            expected.sort_by_key(|c| c.lsend);
            let joined = join_comms(pieces);
            let tags = |v: &[Comm]| v.iter().map(|c| (c.lsend, c.tag)).collect::<Vec<_>>();
            prop_assert_eq!(tags(&joined), tags(&expected));
        }
    }

    /// A list of at least `SLAB_MIN` bytes is joined into a slab, also into one taken again
    /// from the pool holding the bytes an earlier slab wrote: every message is where a
    /// stable sort puts it.
    #[test]
    fn a_long_list_of_messages_is_joined_into_a_slab() {
        use prvscope_store::columns::{SlabWriter, slab_bytes};
        let message = |lsend: u64, tag: u64| Comm {
            send_row: 1,
            recv_row: 2,
            send_cpu: 3,
            recv_cpu: 4,
            lsend,
            psend: lsend + 1,
            lrecv: lsend + 2,
            precv: lsend + 3,
            size: 64,
            tag,
        };
        // Three chunks overlapping in time, with equal times across them.
        let pieces: Vec<Vec<Comm>> = (0..3u64)
            .map(|c| {
                (0..2000u64)
                    .map(|i| message(c * 1000 + i / 2, c * 10_000 + i))
                    .collect()
            })
            .collect();
        let mut want: Vec<Comm> = pieces.concat();
        want.sort_by_key(|c| c.lsend);
        let bytes = slab_bytes::<Comm>(want.len());
        assert!(bytes >= super::super::runs::SLAB_MIN);
        // A dropped slab of that size, all its bytes 0xFF, for the join to take again.
        let mut earlier = SlabWriter::new(bytes).unwrap();
        earlier.put(&vec![0xFFu8; bytes]).unwrap();
        drop(earlier.finish());
        let joined = join_comms(pieces);
        assert_eq!(joined.shared_bytes(), bytes);
        assert_eq!(&joined[..], &want[..]);
    }
}

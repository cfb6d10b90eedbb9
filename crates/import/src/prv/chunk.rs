//! What parsing a chunk produces: the raw records, the per-(row, type) buffers they are
//! gathered in, and the compact pieces a chunk hands to assembly.

// The per-field and per-record helpers are forced inline: left to itself the compiler
// outlined them once the parse grew, and the calls cost a quarter of the parse time.
#![allow(clippy::inline_always)]

use prvscope_format::error::LoadReport;
use prvscope_format::subset::Filter;
use prvscope_store::{Comm, TextPiece, TimeColumn, ValueColumn};

use super::fast::LastLine;
use super::index::KeyIndex;
use super::line_order::LineOrder;
use super::runs::{EventRun, Run, StateRun, slab_pieces};

/// A state record before encoding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawState {
    pub begin: u64,
    pub end: u64,
    pub value: u64,
}

/// One type:value pair of an event record before encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEvent {
    pub time: u64,
    pub value: u64,
    pub ty: u32,
}

/// An event pair and its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEventOf {
    pub row: u32,
    pub e: RawEvent,
}

/// The events of one type on one row of one chunk, already compact: chunks wait for
/// assembly in this form, which holds a fraction of the memory of raw pairs.
#[derive(Debug, Clone, Default)]
pub struct EventPiece {
    pub row: u32,
    pub ty: u32,
    /// Are the times in order?
    pub sorted: bool,
    pub time: TimeColumn,
    pub value: ValueColumn,
}

/// The states of one row of one chunk, already compact.
#[derive(Debug, Clone, Default)]
pub struct StatePiece {
    pub row: u32,
    /// Are the begin times in order? The end times?
    pub begins_sorted: bool,
    pub ends_sorted: bool,
    pub begin: TimeColumn,
    pub end: TimeColumn,
    pub value: ValueColumn,
}

/// One (row, event type) pair seen by a parse: the key its pairs are tagged with.
#[derive(Debug, Clone, Default)]
pub struct EventBuf {
    pub row: u32,
    pub ty: u32,
    /// When part of the trace is loaded: the last pair before its range (it holds when the
    /// range starts).
    pub before: Option<(u64, u64)>,
}

/// The keys of a row's first `N` event types, so that most pairs find their key in the row's
/// own cache lines instead of the hash table: a type's first slot is given by its hash, then
/// linear probing. Free slots have key `u32::MAX`.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct RowTypes<const N: usize> {
    ty: [u32; N],
    key: [u32; N],
}

impl<const N: usize> Default for RowTypes<N> {
    fn default() -> Self {
        RowTypes {
            ty: [0; N],
            key: [u32::MAX; N],
        }
    }
}

impl<const N: usize> RowTypes<N> {
    #[inline(always)]
    fn home(ty: u32) -> usize {
        ((u64::from(ty.wrapping_mul(0x9E37_79B9)) * N as u64) >> 32) as usize
    }

    #[inline(always)]
    fn find(&self, ty: u32) -> Option<u32> {
        let home = Self::home(ty);
        for i in 0..N {
            let slot = (home + i) % N;
            let (Some(&k), Some(&t)) = (self.key.get(slot), self.ty.get(slot)) else {
                return None;
            };
            if k == u32::MAX {
                return None;
            }
            if t == ty {
                return Some(k);
            }
        }
        None
    }

    fn insert(&mut self, ty: u32, key: u32) {
        let home = Self::home(ty);
        for i in 0..N {
            let slot = (home + i) % N;
            if let (Some(k), Some(t)) = (self.key.get_mut(slot), self.ty.get_mut(slot))
                && *k == u32::MAX
            {
                *k = key;
                *t = ty;
                return;
            }
        }
    }
}

/// The per-row type tables: 16 types per row (two cache lines) for traces of few threads,
/// whose tables stay in cache whatever their size (ovni threads have 12 event types: with 8
/// slots, a third of their pairs went to the hash table, 8% of the instructions); 8 (one
/// line) for many threads, where the table must stay small enough for the cache (with 16
/// slots, a 4096-thread trace took 15% more CPU time).
#[derive(Debug)]
enum TypeTable {
    Wide(Vec<RowTypes<16>>),
    Narrow(Vec<RowTypes<8>>),
}

impl Default for TypeTable {
    fn default() -> Self {
        TypeTable::Narrow(Vec::new())
    }
}

impl TypeTable {
    fn new(rows: usize, wide: bool) -> Self {
        if wide {
            TypeTable::Wide(vec![RowTypes::default(); rows])
        } else {
            TypeTable::Narrow(vec![RowTypes::default(); rows])
        }
    }

    #[inline(always)]
    fn find(&self, row: u32, ty: u32) -> Option<u32> {
        match self {
            TypeTable::Wide(t) => t.get(row as usize)?.find(ty),
            TypeTable::Narrow(t) => t.get(row as usize)?.find(ty),
        }
    }

    fn insert(&mut self, row: u32, ty: u32, key: u32) {
        match self {
            TypeTable::Wide(t) => {
                if let Some(t) = t.get_mut(row as usize) {
                    t.insert(ty, key);
                }
            }
            TypeTable::Narrow(t) => {
                if let Some(t) = t.get_mut(row as usize) {
                    t.insert(ty, key);
                }
            }
        }
    }
}

/// The output of parsing one chunk.
///
/// Records end up in a buffer per row (states) and per (row, type) key (event pairs), which
/// [`take_output`](Self::take_output) encodes. With few threads each record is written
/// straight to its buffer. With many, that cost a cache miss per record once the buffers'
/// ends outgrew the cache, so records are first written in line order, tagged with their row
/// or key (one sequential stream, however many threads the lines interleave); at the end of
/// each window of lines ([`end_window`](Self::end_window)) a counting sort groups them in
/// cache and each group is copied to its buffer at once.
#[derive(Debug, Default)]
pub struct ChunkOut {
    /// How records are kept while parsing: straight into the per-row and per-key buffers
    /// (few rows: their buffers' ends stay in cache), or first in line order, grouped and
    /// copied to those buffers at the end of each window.
    direct: bool,
    /// While parsing, direct: the states of each row in the window.
    states: Vec<Vec<RawState>>,
    /// While parsing, direct: the pairs of each key (index in `events`) in the window.
    pairs: Vec<Vec<(u64, u64)>>,
    /// The states of each row in the chunk so far, encoded.
    state_runs: Vec<StateRun>,
    /// The pairs of each key in the chunk so far, encoded.
    event_runs: Vec<EventRun>,
    /// While parsing, line order: the states of the window, tagged with their rows.
    state_window: LineOrder<RawState>,
    /// Once parsed: the non-empty rows' states, encoded.
    pub state_pieces: Vec<StatePiece>,
    /// While parsing: per row, the CPU of its last state or event record in the chunk
    /// (`u64::MAX`: none yet).
    last_cpu: Vec<u64>,
    /// While parsing: (row, time, CPU) of each state or event record whose CPU differs
    /// from the row's previous one in the chunk (file order; a row's first record always).
    cpu_changes: Vec<(u32, u64, u32)>,
    /// Once parsed: the rows' CPU changes.
    pub cpu_pieces: Vec<(u32, Vec<(u64, u32)>)>,
    /// While parsing, line order: the event pairs of the window, tagged with their keys.
    event_window: LineOrder<(u64, u64)>,
    /// Every (row, type) seen, in first-seen order; kept from chunk to chunk.
    events: Vec<EventBuf>,
    /// Per row, the keys of its first types.
    row_types: TypeTable,
    /// Grouping scratch of a window: write cursors per key or row.
    cursors: Vec<u32>,
    /// The (type, value) pairs of the line being parsed.
    pub(super) line_pairs: Vec<(u32, u64)>,
    /// Once parsed: the non-empty buffers, encoded.
    pub pieces: Vec<EventPiece>,
    /// When part of the trace is loaded: per (row, type), the last event of the chunk before
    /// the range ([`assemble`](super::assemble) keeps the last of all chunks).
    pub befores: Vec<RawEventOf>,
    event_index: KeyIndex,
    /// The last (application, task, thread) looked up, and its row.
    pub(super) last_object: (u64, u64, u64, u32),
    pub(super) last_line: LastLine,
    pub comms: Vec<Comm>,
    /// While parsing, line order: the chunk's text in bytes (0: not known), and the text
    /// parsed so far, from which each run's size at the chunk's end is forecast.
    pub(super) chunk_text: u64,
    pub(super) parsed_text: u64,
    /// Direct: the null sentinel when buffers are encoded as they fill ([`SPILL`]); `None`:
    /// at the end of the window only (the naive parser).
    pub(super) spill: Option<u64>,
    /// Lines in the chunk (newlines, plus one for a last line without newline).
    pub lines: u64,
    /// `c:`/`i:` communicator lines seen.
    pub communicator_lines: u64,
    /// Values stored as the sentinel.
    pub null_values: u64,
    /// Issues, with line numbers local to the chunk (1-based).
    pub report: LoadReport,
    /// While parsing: the order of each row's events at its current timestamp.
    order: super::order::OrderTracker,
    /// Once parsed: per row, the types of its first and last timestamps in the chunk.
    pub order_edges: Vec<super::order::OrderEdge>,
    /// Once parsed: the inverted pairs of types found (`TraceStore::inversions`).
    pub inversions: Vec<(u32, u32)>,
    /// Once parsed: the rows whose events went back in time in the chunk.
    pub backward: Vec<super::order::Backward>,
    /// While parsing: what the lines of the window hold so far (its length set at its end).
    pub(super) text: TextPiece,
    /// Once parsed: what each window's lines hold, in order ([`prvscope_store::TextIndex`]).
    pub text_pieces: Vec<TextPiece>,
}

/// Direct: a buffer is encoded onto its run once it holds this many records, not only at the
/// end of the window. Buffers keep their room from window to window: unbounded, those of a
/// trace whose lines come in long runs of one thread (ovni) each grew to a window's records,
/// 17-32 MB a worker for the ovni trace's 768 (thread, type) keys, faulted in and copied.
const SPILL: usize = 256;

/// Direct: encodes the records a buffer holds onto its run and empties it (see [`SPILL`]).
#[cold]
#[inline(never)]
fn spill<T, R: Run<T>>(buffer: &mut Vec<T>, run: &mut R, sentinel: u64) {
    run.extend(buffer, sentinel);
    buffer.clear();
}

/// Encodes buffer `i` of `buffers` into run `i` of `runs`, when the parse spills
/// (`sentinel`). Out of line: the parse tests only the buffer's length (measured: 2% fewer
/// instructions than testing the run and the sentinel there as well). A parse that does not
/// spill (the naive parser's) comes here for every record past `SPILL` and leaves its
/// buffers growing.
#[cold]
#[inline(never)]
fn spill_at<T, R: Run<T>>(buffers: &mut [Vec<T>], runs: &mut [R], i: usize, sentinel: Option<u64>) {
    if let (Some(v), Some(run), Some(sentinel)) = (buffers.get_mut(i), runs.get_mut(i), sentinel) {
        spill(v, run, sentinel);
    }
}

/// The next of the pieces a chunk's slab holds ([`slab_pieces`]), for a run that went into
/// it (`in_slab`).
fn next_in_slab<P>(slab: &mut Option<std::vec::IntoIter<P>>, in_slab: bool) -> Option<P> {
    slab.as_mut().filter(|_| in_slab).and_then(Iterator::next)
}

/// Traces of up to this many threads are parsed into per-row and per-key buffers directly;
/// more go through line order. Measured on 2 cores (CPU time of a load, three alternating
/// rounds): the ovni trace of 64 threads (12 event types each) takes 0.45-0.49 s directly
/// against 0.50-0.51 s in line order, a generated 1 GB trace of 4096 threads 5.7 s in line
/// order against 6.4-7.0 s directly; a generated one of 64 threads is the same either way.
pub(crate) const DIRECT_MAX_ROWS: usize = 256;

impl ChunkOut {
    /// A chunk output with room for `rows` rows.
    pub fn new(rows: usize) -> Self {
        ChunkOut {
            direct: rows <= DIRECT_MAX_ROWS,
            states: vec![Vec::new(); rows],
            state_runs: (0..rows).map(|_| StateRun::default()).collect(),
            last_cpu: vec![u64::MAX; rows],
            row_types: TypeTable::new(rows, rows <= DIRECT_MAX_ROWS),
            last_object: (0, 0, 0, 0),
            order: super::order::OrderTracker::new(rows),
            ..ChunkOut::default()
        }
    }

    /// A chunk output with room for `rows` rows whose records go straight to their
    /// per-row and per-(row, type) buffers however many rows there are: the naive parser's,
    /// so that it never shares the line-order grouping it checks.
    pub fn new_direct(rows: usize) -> Self {
        ChunkOut {
            direct: true,
            ..ChunkOut::new(rows)
        }
    }

    /// Moves what was parsed into an output of exactly the needed size, and empties `self`
    /// for the next chunk while keeping its buffers' capacity and its (row, type) index.
    /// Parsing into warm, reused buffers and copying out once avoids the reallocations and
    /// first-touch page faults that growing fresh vectors per chunk costs.
    ///
    /// With few threads (chunks of at most 32 MB) and `more` chunks to come, the runs'
    /// arrays are kept for the next chunk and each piece is copied out at its exact size:
    /// the arrays are not grown again (reallocations, copies, first-touch page faults) for
    /// every chunk (generated 1 GB trace, 64 threads, 2 workers: 0.73-0.74 s against
    /// 0.78-0.85 s, peak 393 MB against 411 MB). Runs not used by a chunk give their room
    /// back, so that what is kept stays within about one chunk's records, and nothing is
    /// kept after a worker's last chunk. With many threads, a worker parses one large
    /// chunk: its runs are the pieces.
    pub(crate) fn take_output(&mut self, sentinel: u64, more: bool) -> ChunkOut {
        self.end_window(sentinel);
        let keep = self.direct && more;
        // Kept runs: the long ones' pieces copied into one slab when they can be
        // ([`slab_pieces`]), the others one by one.
        let (mut slab_states, mut slab_events) = if keep {
            slab_pieces(&self.state_runs, &self.events, &self.event_runs, sentinel)
                .map_or((None, None), |(s, e)| {
                    (Some(s.into_iter()), Some(e.into_iter()))
                })
        } else {
            (None, None)
        };
        let mut state_pieces = Vec::new();
        for (row, run) in self.state_runs.iter_mut().enumerate() {
            if run.begin.is_empty() {
                *run = StateRun::default();
            } else if let Some(piece) = next_in_slab(&mut slab_states, run.in_slab()) {
                run.clear_keeping_room();
                state_pieces.push(piece);
            } else if keep {
                state_pieces.push(run.take_keeping_room(row as u32, sentinel));
            } else {
                state_pieces.push(run.take(row as u32, sentinel));
            }
        }

        let mut cpu_pieces: Vec<(u32, Vec<(u64, u32)>)> = Vec::new();
        if !self.cpu_changes.is_empty() {
            // Few: a stable sort by row keeps each row's file order.
            self.cpu_changes.sort_by_key(|c| c.0);
            for &(row, time, cpu) in &self.cpu_changes {
                match cpu_pieces.last_mut() {
                    Some((r, v)) if *r == row => v.push((time, cpu)),
                    _ => cpu_pieces.push((row, vec![(time, cpu)])),
                }
                if let Some(last) = self.last_cpu.get_mut(row as usize) {
                    *last = u64::MAX;
                }
            }
            self.cpu_changes.clear();
        }

        for b in &mut self.events {
            if let Some((time, value)) = b.before.take() {
                self.befores.push(RawEventOf {
                    row: b.row,
                    e: RawEvent {
                        time,
                        value,
                        ty: b.ty,
                    },
                });
            }
        }
        let mut pieces = Vec::new();
        for ((b, run), pairs) in self
            .events
            .iter()
            .zip(&mut self.event_runs)
            .zip(&mut self.pairs)
        {
            if run.time.is_empty() {
                // Not used by this chunk: give most of its window buffer back, so the scratch
                // stays small however many (row, type) pairs the trace has, but keep some, as
                // the pair may come back in the next chunk (ovni writes each thread's events
                // in runs).
                pairs.shrink_to(pairs.capacity() / 4);
                *run = EventRun::default();
                continue;
            }
            if let Some(piece) = next_in_slab(&mut slab_events, run.in_slab()) {
                run.clear_keeping_room();
                pieces.push(piece);
            } else if keep {
                pieces.push(run.take_keeping_room(b, sentinel));
            } else {
                pieces.push(run.take(b, sentinel));
            }
        }
        let (order_edges, inversions, backward) = self.order.take();
        let out = ChunkOut {
            state_pieces,
            cpu_pieces,
            order_edges,
            inversions,
            backward,
            pieces,
            befores: std::mem::take(&mut self.befores),
            comms: std::mem::take(&mut self.comms),
            lines: self.lines,
            communicator_lines: self.communicator_lines,
            null_values: self.null_values,
            report: std::mem::take(&mut self.report),
            text_pieces: std::mem::take(&mut self.text_pieces),
            ..ChunkOut::default()
        };
        self.lines = 0;
        (self.chunk_text, self.parsed_text) = (0, 0);
        self.communicator_lines = 0;
        self.null_values = 0;
        self.last_line = LastLine::default();
        self.last_object = (0, 0, 0, 0);
        out
    }

    /// At the end of a window of lines: its records encoded onto their row's and key's
    /// runs while they are still in cache. Records kept in line order are first grouped by
    /// row and by key with a counting sort.
    pub(crate) fn end_window(&mut self, sentinel: u64) {
        if self.direct {
            for (v, run) in self.states.iter_mut().zip(&mut self.state_runs) {
                if !v.is_empty() {
                    run.extend(v, sentinel);
                    v.clear();
                }
            }
            for (v, run) in self.pairs.iter_mut().zip(&mut self.event_runs) {
                if !v.is_empty() {
                    run.extend(v, sentinel);
                    v.clear();
                }
            }
            return;
        }
        // The share of the chunk parsed so far, when its size is known.
        let scale = if self.parsed_text > 0 && self.chunk_text > self.parsed_text {
            self.chunk_text as f64 / self.parsed_text as f64
        } else {
            1.0
        };
        let rows = self.states.len();
        self.state_window.flush(
            &mut self.state_runs,
            rows,
            &mut self.cursors,
            sentinel,
            scale,
        );
        let keys = self.events.len();
        self.event_window.flush(
            &mut self.event_runs,
            keys,
            &mut self.cursors,
            sentinel,
            scale,
        );
    }

    /// Was `cpu` the CPU of `row`'s last state or event record in the chunk (a record kept,
    /// so a CPU that fits the thread's task)?
    #[inline(always)]
    pub(crate) fn was_last_cpu(&self, row: u32, cpu: u64) -> bool {
        self.last_cpu.get(row as usize) == Some(&cpu)
    }

    /// Notes the CPU of a state or event record of `row` at `time` (kept when it changes).
    #[inline(always)]
    pub(crate) fn note_cpu(&mut self, row: u32, time: u64, cpu: u64) {
        let cpu = u32::try_from(cpu).unwrap_or(u32::MAX);
        if let Some(last) = self.last_cpu.get_mut(row as usize)
            && *last != u64::from(cpu)
        {
            *last = u64::from(cpu);
            self.cpu_changes.push((row, time, cpu));
        }
    }

    /// Stores a state of `row`, unless the part of the trace loaded leaves it out.
    #[inline(always)]
    pub(super) fn keep_state(&mut self, filter: &Filter, sentinel: u64, row: u32, s: RawState) {
        if filter.active && !filter.keeps_span(row, s.begin, s.end) {
            return;
        }
        self.null_values += u64::from(s.value == sentinel);
        self.push_state(row, s);
    }

    /// Appends a state of `row`.
    #[inline(always)]
    pub fn push_state(&mut self, row: u32, s: RawState) {
        if self.direct {
            if let Some(v) = self.states.get_mut(row as usize) {
                v.push(s);
                if v.len() >= SPILL {
                    spill_at(
                        &mut self.states,
                        &mut self.state_runs,
                        row as usize,
                        self.spill,
                    );
                }
            }
        } else if (row as usize) < self.states.len() {
            self.state_window.push(row, s);
        }
    }

    /// Stores an event pair of `row`, unless the part of the trace loaded leaves it out
    /// (of the pairs before its range, the last of each type is kept).
    #[inline(always)]
    pub(super) fn keep_event(&mut self, filter: &Filter, sentinel: u64, row: u32, e: RawEvent) {
        if filter.active {
            if e.time > filter.to || !filter.keeps_row(row) {
                return;
            }
            if e.time < filter.from {
                let i = self.buffer_of(row, e.ty);
                if let Some(b) = self.events.get_mut(i)
                    && b.before.is_none_or(|(t, _)| t <= e.time)
                {
                    b.before = Some((e.time, e.value));
                }
                return;
            }
        }
        self.null_values += u64::from(e.value == sentinel);
        self.order.note(row, e.time, e.ty);
        self.push_event(row, e);
    }

    /// Stores the pairs of an event line of `row` at `time` (`line_pairs`), unless the part
    /// of the trace loaded leaves them out; their order is noted once for the line.
    #[inline(always)]
    pub(super) fn keep_line_events(&mut self, filter: &Filter, sentinel: u64, row: u32, time: u64) {
        if filter.active {
            for j in 0..self.line_pairs.len() {
                let Some(&(ty, value)) = self.line_pairs.get(j) else {
                    break;
                };
                self.keep_event(filter, sentinel, row, RawEvent { time, value, ty });
            }
            return;
        }
        self.order.note_line(row, time, &self.line_pairs);
        for j in 0..self.line_pairs.len() {
            let Some(&(ty, value)) = self.line_pairs.get(j) else {
                break;
            };
            self.null_values += u64::from(value == sentinel);
            self.push_event(row, RawEvent { time, value, ty });
        }
    }

    /// Stores a communication, unless the part of the trace loaded leaves it out: it stays
    /// when both threads are loaded and it is sent or received in the range.
    #[inline]
    pub(super) fn keep_comm(&mut self, filter: &Filter, c: Comm) {
        if filter.active {
            let times = [c.lsend, c.psend, c.lrecv, c.precv];
            let first = times.iter().copied().min().unwrap_or(0);
            let last = times.iter().copied().max().unwrap_or(0);
            if !filter.keeps_span(c.send_row, first, last) || !filter.keeps_row(c.recv_row) {
                return;
            }
        }
        self.comms.push(c);
    }

    /// Appends an event pair of `row`.
    #[inline(always)]
    pub fn push_event(&mut self, row: u32, e: RawEvent) {
        let key = self.buffer_of(row, e.ty);
        if self.direct {
            if let Some(v) = self.pairs.get_mut(key) {
                v.push((e.time, e.value));
                if v.len() >= SPILL {
                    spill_at(&mut self.pairs, &mut self.event_runs, key, self.spill);
                }
            }
        } else {
            self.event_window.push(key as u32, (e.time, e.value));
        }
    }

    /// The key of (`row`, `ty`): from the row's type table when it is among the row's first
    /// types, else from the hash table.
    #[inline(always)]
    fn buffer_of(&mut self, row: u32, ty: u32) -> usize {
        if let Some(k) = self.row_types.find(row, ty) {
            return k as usize;
        }
        self.buffer_of_slow(row, ty)
    }

    #[cold]
    fn buffer_of_slow(&mut self, row: u32, ty: u32) -> usize {
        let key = (u64::from(row) << 32) | u64::from(ty);
        let (events, pairs, runs) = (&mut self.events, &mut self.pairs, &mut self.event_runs);
        let i = self.event_index.get_or_insert(key, || {
            events.push(EventBuf {
                row,
                ty,
                before: None,
            });
            pairs.push(Vec::new());
            runs.push(EventRun::default());
            events.len() - 1
        });
        self.row_types.insert(row, ty, i as u32);
        i
    }
}

#[cfg(test)]
#[path = "chunk_tests.rs"]
mod tests;

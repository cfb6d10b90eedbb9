//! The order of a thread's events of different types at one timestamp, as the file gives
//! it. The store keeps each type's events apart (each in file order), so at one time it gives
//! a thread's events by type; this module finds where the file says otherwise: the pairs of
//! types `(a, b)`, `a > b`, of which an event of `a` came before one of `b` at one timestamp
//! of one thread ([`prvscope_store::TraceStore::inversions`]). An analysis that reads both
//! types of such a pair at once cannot rely on the store's order, and says so.
//!
//! A parse follows, per row, the types of the events at its current timestamp (other rows'
//! lines may come between). A timestamp can be split between chunks (and between the batches
//! of a conversion): each chunk hands over, per row, the types of its first and last
//! timestamps ([`OrderEdge`]), which [`OrderJoin`] joins in file order.
//!
//! All this holds for a row whose events come in time order, as Paraver's traces give them.
//! A row whose events go back in time ([`Backward`]) may give the events of one timestamp
//! apart, with others between; their order there is not followed: every pair of the row's
//! event types counts as inverted ([`pairs_of`]), so that an analysis reading the order of
//! two of them refuses it instead of trusting the store's. The load reports such rows.

// The per-event tracking is forced inline, as the parse's other per-record helpers.
#![allow(clippy::inline_always)]

use std::collections::HashSet;

/// A row's first or last timestamp in a chunk (or batch), with the types of its events there
/// in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderEdge {
    pub row: u32,
    pub time: u64,
    pub types: Vec<u32>,
    /// The row's first timestamp in the chunk (it may continue the previous chunk's last).
    pub first: bool,
    /// The row's last timestamp in the chunk (it may go on in the next chunk).
    pub last: bool,
}

/// A row whose events (or, with `state`, whose states' begins) go back in time: in file
/// order, its record at `time` comes after one at `after` (the first place where it does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backward {
    pub row: u32,
    pub time: u64,
    pub after: u64,
    pub state: bool,
}

/// The pairs `(a, b)`, `a > b`, of the distinct types in `types`: those of a row that goes
/// back in time, whose order at one timestamp is not known.
pub fn pairs_of(types: impl IntoIterator<Item = u32>) -> Vec<(u32, u32)> {
    let mut types: Vec<u32> = types.into_iter().collect();
    types.sort_unstable();
    types.dedup();
    let mut pairs = Vec::new();
    for (i, &a) in types.iter().enumerate() {
        for &b in types.get(..i).unwrap_or_default() {
            pairs.push((a, b));
        }
    }
    pairs
}

/// Adds to `inversions` every pair of the types of each row of `backward` whose events go back
/// (`types_of` gives a row's event types), keeping them sorted and without repeats.
pub fn add_backward_pairs<I: IntoIterator<Item = u32>>(
    inversions: &mut Vec<(u32, u32)>,
    backward: &[Backward],
    types_of: impl Fn(u32) -> I,
) {
    if backward.is_empty() {
        return;
    }
    for b in backward.iter().filter(|b| !b.state) {
        inversions.extend(pairs_of(types_of(b.row)));
    }
    inversions.sort_unstable();
    inversions.dedup();
}

/// Pairs already recorded, in a small direct-mapped table: a trace repeats the same few
/// inversions on every line (Extrae writes the MPI call before the counters).
const SEEN_SLOTS: usize = 256;

/// What the tracker reads for every event of a row: its current timestamp, how many events it
/// had there (0: none yet), their largest type and the first; whether a timestamp of the row
/// ended in this chunk (the current one is not its first) and whether it has more types.
#[derive(Debug, Clone, Copy, Default)]
struct Hot {
    time: u64,
    /// A hash of the types so far, in order: a timestamp whose types repeat an inverted
    /// pattern seen before (an Extrae event line, its MPI call before its counters) is not
    /// looked at again.
    hash: u64,
    len: u32,
    max: u32,
    first: u32,
    closed: bool,
    /// The row went back in time in this chunk (already in [`OrderTracker::backward`]).
    back: bool,
}

/// Mixes type `ty` into a hash of the types before it.
#[inline(always)]
fn mix(hash: u64, ty: u32) -> u64 {
    (hash ^ u64::from(ty)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The parse of one chunk: per row, its current timestamp and the types of its events there;
/// the inversions found; the edges of the rows' first timestamps (their last ones at
/// [`OrderTracker::take`]). The state read for every event is kept apart from the types,
/// which most timestamps (one event each) never need.
#[derive(Debug, Clone)]
pub struct OrderTracker {
    hot: Vec<Hot>,
    /// Per row: the types after the first at its current timestamp.
    rest: Vec<Vec<u32>>,
    edges: Vec<OrderEdge>,
    inversions: HashSet<(u32, u32)>,
    seen: Box<[(u32, u32); SEEN_SLOTS]>,
    /// (hash of a timestamp's types before `ty`, `ty`) whose inversions were recorded.
    patterns: Box<[(u64, u32); SEEN_SLOTS]>,
    /// The rows that went back in time in this chunk, each at its first such place.
    backward: Vec<Backward>,
}

impl Default for OrderTracker {
    fn default() -> Self {
        OrderTracker::new(0)
    }
}

impl OrderTracker {
    pub fn new(rows: usize) -> Self {
        OrderTracker {
            hot: vec![Hot::default(); rows],
            rest: vec![Vec::new(); rows],
            edges: Vec::new(),
            inversions: HashSet::new(),
            seen: Box::new([(0, 0); SEEN_SLOTS]),
            patterns: Box::new([(0, 0); SEEN_SLOTS]),
            backward: Vec::new(),
        }
    }

    /// An event of type `ty` of `row` at `time`, in file order.
    #[inline(always)]
    pub fn note(&mut self, row: u32, time: u64, ty: u32) {
        let r = row as usize;
        let Some(h) = self.hot.get_mut(r) else {
            return;
        };
        if h.len > 0 && h.time == time {
            h.len += 1;
            let hash = h.hash;
            h.hash = mix(hash, ty);
            if ty < h.max {
                let slot = (hash ^ u64::from(ty)) as usize % SEEN_SLOTS;
                if self.patterns.get(slot) != Some(&(hash, ty)) {
                    if let Some(p) = self.patterns.get_mut(slot) {
                        *p = (hash, ty);
                    }
                    self.inverted(r, ty);
                }
            } else {
                h.max = ty;
            }
            if let Some(rest) = self.rest.get_mut(r) {
                rest.push(ty);
            }
            return;
        }
        if h.closed && time >= h.time {
            // The common case: a later timestamp of a row whose first one in the chunk has
            // ended (`closed` stays; `back` too, as nothing goes back here). Only its types
            // after the first are let go of (most timestamps hold one event: nothing to do).
            let len = h.len;
            (h.time, h.hash, h.len, h.max, h.first) = (time, mix(0, ty), 1, ty, ty);
            if len > 1
                && let Some(rest) = self.rest.get_mut(r)
            {
                rest.clear();
            }
            return;
        }
        self.begin_time(row, time, ty);
    }

    /// [`Self::note`] for an event that begins a timestamp of `row`: the row's first in the
    /// chunk, the one after it, or one that goes back in time.
    #[cold]
    #[inline(never)]
    fn begin_time(&mut self, row: u32, time: u64, ty: u32) {
        let r = row as usize;
        let Some(h) = self.hot.get_mut(r) else {
            return;
        };
        let before = *h;
        let back = before.len > 0 && time < before.time;
        *h = Hot {
            time,
            hash: mix(0, ty),
            len: 1,
            max: ty,
            first: ty,
            closed: before.closed || before.len > 0,
            back: before.back || back,
        };
        if back && !before.back {
            self.went_back(row, time, before.time);
        }
        // A row's first timestamp in the chunk is an edge; for the others only their types
        // after the first are let go of.
        if before.len > 0 && !before.closed {
            self.close(r, before);
        } else if before.len > 1
            && let Some(rest) = self.rest.get_mut(r)
        {
            rest.clear();
        }
    }

    /// The pairs of one event line of `row` at `time`, in file order: what [`Self::note`]
    /// does for each, at once for a line that starts a timestamp. Inlined into the parse's
    /// loop (once the line parser was itself inlined into its loop over lines; before, inlining
    /// this made the compiler outline the line parser).
    #[inline(always)]
    pub fn note_line(&mut self, row: u32, time: u64, pairs: &[(u32, u64)]) {
        let r = row as usize;
        let (Some(&before), Some((&(first, _), rest))) = (self.hot.get(r), pairs.split_first())
        else {
            return;
        };
        if before.len > 0 && before.time == time {
            // The timestamp goes on from an earlier line: pair by pair.
            for &(ty, _) in pairs {
                self.note(row, time, ty);
            }
            return;
        }
        // The line begins a timestamp of the row (as `note` begins one): the row's first
        // timestamp in the chunk is an edge.
        if before.len > 0 && !before.closed {
            self.close(r, before);
        }
        let back = before.len > 0 && time < before.time;
        if back && !before.back {
            self.went_back(row, time, before.time);
        }
        // The hash of the types is kept whether or not they are in order: a later line at
        // this timestamp looks its pattern up by it (a hash that only told "in order" made
        // the inversions of one such timestamp stand for every other's).
        let (mut max, mut ordered, mut hash) = (first, true, mix(0, first));
        if let Some(v) = self.rest.get_mut(r) {
            v.clear();
            for &(ty, _) in rest {
                ordered &= ty >= max;
                max = max.max(ty);
                hash = mix(hash, ty);
                v.push(ty);
            }
        }
        if !ordered {
            // A line of types out of order: its pairs, unless its pattern was seen.
            let slot = (hash ^ 0xA5A5) as usize % SEEN_SLOTS;
            if self.patterns.get(slot) != Some(&(hash, u32::MAX)) {
                if let Some(p) = self.patterns.get_mut(slot) {
                    *p = (hash, u32::MAX);
                }
                for (i, &(a, _)) in pairs.iter().enumerate() {
                    for &(b, _) in pairs.iter().skip(i + 1) {
                        if b < a {
                            record(&mut self.seen, &mut self.inversions, a, b);
                        }
                    }
                }
            }
        }
        if let Some(h) = self.hot.get_mut(r) {
            *h = Hot {
                time,
                hash,
                len: pairs.len() as u32,
                max,
                first,
                closed: before.closed || before.len > 0,
                back: before.back || back,
            };
        }
    }

    /// Row `row` went back in time for the first time in the chunk: to `time` after `after`.
    #[cold]
    fn went_back(&mut self, row: u32, time: u64, after: u64) {
        self.backward.push(Backward {
            row,
            time,
            after,
            state: false,
        });
    }

    /// Row `r`'s timestamp `before` ended (its types after the first in `rest`): its first
    /// one in the chunk is an edge.
    #[cold]
    fn close(&mut self, r: usize, before: Hot) {
        let rest = self.rest.get_mut(r).map(std::mem::take).unwrap_or_default();
        if !before.closed {
            let mut types = Vec::with_capacity(1 + rest.len());
            types.push(before.first);
            types.extend_from_slice(&rest);
            self.edges.push(OrderEdge {
                row: r as u32,
                time: before.time,
                types,
                first: true,
                last: false,
            });
        }
        if let Some(slot) = self.rest.get_mut(r) {
            let mut rest = rest;
            rest.clear();
            *slot = rest;
        }
    }

    /// `ty` comes after larger types at row `r`'s timestamp: each such pair is recorded.
    #[cold]
    fn inverted(&mut self, r: usize, ty: u32) {
        let first = self.hot.get(r).map(|h| h.first);
        let rest = self.rest.get(r).map(Vec::as_slice).unwrap_or_default();
        for a in first.into_iter().chain(rest.iter().copied()) {
            if a > ty {
                record(&mut self.seen, &mut self.inversions, a, ty);
            }
        }
    }

    /// At the chunk's end: the edges (every row's last timestamp added), the inversions and
    /// the rows that went back in time; the tracker is emptied for the next chunk.
    pub fn take(&mut self) -> (Vec<OrderEdge>, Vec<(u32, u32)>, Vec<Backward>) {
        let mut edges = std::mem::take(&mut self.edges);
        for (r, (h, rest)) in self.hot.iter_mut().zip(&mut self.rest).enumerate() {
            if h.len > 0 {
                let mut types = Vec::with_capacity(1 + rest.len());
                types.push(h.first);
                types.extend_from_slice(rest);
                edges.push(OrderEdge {
                    row: r as u32,
                    time: h.time,
                    types,
                    first: !h.closed,
                    last: true,
                });
            }
            *h = Hot::default();
            rest.clear();
        }
        // Per row, its first timestamp before its last (a stable sort keeps that order).
        edges.sort_by_key(|e| e.row);
        let inversions = self.inversions.drain().collect();
        *self.seen = [(0, 0); SEEN_SLOTS];
        *self.patterns = [(0, 0); SEEN_SLOTS];
        (edges, inversions, std::mem::take(&mut self.backward))
    }
}

/// Records the pair `(a, b)` unless it was just seen.
#[inline]
fn record(
    seen: &mut [(u32, u32); SEEN_SLOTS],
    inversions: &mut HashSet<(u32, u32)>,
    a: u32,
    b: u32,
) {
    let slot = (a.wrapping_mul(0x9E37_79B9) ^ b.wrapping_mul(0x85EB_CA6B)) as usize % SEEN_SLOTS;
    if seen.get(slot) == Some(&(a, b)) {
        return;
    }
    if let Some(s) = seen.get_mut(slot) {
        *s = (a, b);
    }
    inversions.insert((a, b));
}

/// One row's timestamps at the edges of the parts joined so far.
#[derive(Debug, Clone, Default)]
struct RowJoin {
    /// The row's first timestamp, and whether it is still the one going on.
    first: Option<(u64, Vec<u32>)>,
    first_open: bool,
    /// The timestamp going on at the end of the parts joined so far.
    current: Option<(u64, Vec<u32>)>,
    /// The row's last timestamp so far (its next part must not begin before it).
    last_time: Option<u64>,
    /// The row's events went back in time (it is in [`OrderJoin::backward`]).
    back: bool,
    /// Its states did (they are followed by the assembly, not here).
    states_back: bool,
}

/// Joins the edges of consecutive parts (chunks, then batches) in file order: a timestamp of
/// a row split between parts gives the inversions between its two sides.
#[derive(Debug, Clone, Default)]
pub struct OrderJoin {
    rows: Vec<RowJoin>,
    inversions: HashSet<(u32, u32)>,
    /// The rows that went back in time, each at its first such place in file order.
    backward: Vec<Backward>,
}

impl OrderJoin {
    pub fn new(rows: usize) -> Self {
        OrderJoin {
            rows: vec![RowJoin::default(); rows],
            inversions: HashSet::new(),
            backward: Vec::new(),
        }
    }

    /// The rows a part found going back in time (after its edges are pushed).
    pub fn add_backward(&mut self, rows: impl IntoIterator<Item = Backward>) {
        for b in rows {
            self.went_back(b);
        }
    }

    fn went_back(&mut self, b: Backward) {
        if let Some(r) = self.rows.get_mut(b.row as usize) {
            let seen = if b.state {
                &mut r.states_back
            } else {
                &mut r.back
            };
            if !*seen {
                *seen = true;
                self.backward.push(b);
            }
        }
    }

    /// The inversions a part found itself.
    pub fn add_inversions(&mut self, pairs: impl IntoIterator<Item = (u32, u32)>) {
        self.inversions.extend(pairs);
    }

    /// The edges of the next part, per row its first before its last.
    pub fn push(&mut self, edges: impl IntoIterator<Item = OrderEdge>) {
        for e in edges {
            let Some(r) = self.rows.get_mut(e.row as usize) else {
                continue;
            };
            // A part beginning before the parts joined so far ended: the row goes back.
            if e.first
                && !r.back
                && let Some(after) = r.last_time
                && e.time < after
            {
                r.back = true;
                self.backward.push(Backward {
                    row: e.row,
                    time: e.time,
                    after,
                    state: false,
                });
            }
            if e.last {
                r.last_time = Some(e.time);
            }
            let continues = e.first && r.current.as_ref().is_some_and(|c| c.0 == e.time);
            if continues {
                if let Some((_, before)) = r.current.as_mut() {
                    for &a in before.iter() {
                        for &b in e.types.iter().filter(|&&b| b < a) {
                            self.inversions.insert((a, b));
                        }
                    }
                    before.extend_from_slice(&e.types);
                }
                if r.first_open
                    && let Some((_, f)) = r.first.as_mut()
                {
                    f.extend_from_slice(&e.types);
                }
                if !e.last {
                    // The timestamp ended in this part: its last one comes as another edge.
                    r.current = None;
                    r.first_open = false;
                }
                continue;
            }
            if e.first {
                if r.first.is_none() {
                    r.first = Some((e.time, e.types.clone()));
                    r.first_open = e.last;
                } else {
                    r.first_open = false;
                }
            } else {
                r.first_open = false;
            }
            r.current = e.last.then_some((e.time, e.types));
        }
    }

    /// The inversions, the edges of everything joined (as one part's: for a join one level
    /// up) and the rows that went back in time.
    pub fn finish(self) -> (Vec<OrderEdge>, Vec<(u32, u32)>, Vec<Backward>) {
        let mut edges = Vec::new();
        for (row, r) in self.rows.into_iter().enumerate() {
            let row = row as u32;
            match (r.first, r.current) {
                (Some(_), Some((time, types))) if r.first_open => edges.push(OrderEdge {
                    row,
                    time,
                    types,
                    first: true,
                    last: true,
                }),
                (first, current) => {
                    if let Some((time, types)) = first {
                        edges.push(OrderEdge {
                            row,
                            time,
                            types,
                            first: true,
                            last: false,
                        });
                    }
                    if let Some((time, types)) = current {
                        edges.push(OrderEdge {
                            row,
                            time,
                            types,
                            first: false,
                            last: true,
                        });
                    }
                }
            }
        }
        let mut inversions: Vec<(u32, u32)> = self.inversions.into_iter().collect();
        inversions.sort_unstable();
        let mut backward = self.backward;
        backward.sort_by_key(|b| (b.row, b.state));
        (edges, inversions, backward)
    }
}

#[cfg(test)]
#[path = "order_tests.rs"]
mod tests;

//! The runs a chunk's records are encoded onto, one per thread (states) and one per
//! (thread, type) (events), and the pieces they become at the chunk's end: copied out at
//! their exact sizes, one by one or the long ones into one slab, or moved.

use prvscope_store::columns::{
    MOVE_MIN, PlacedTime, PlacedValue, Slab, SlabWriter, TimeSeg, ValueSeg,
};
use std::sync::Arc;

use prvscope_store::{TimeColumn, ValueColumn};

use super::chunk::{EventBuf, EventPiece, RawState, StatePiece};

/// The states of one row in a chunk so far, encoded a window at a time.
#[derive(Debug, Default)]
pub(super) struct StateRun {
    pub(super) begin: TimeSeg,
    pub(super) end: TimeSeg,
    value: ValueSeg,
    /// Are the begin (end) times in order so far? The last of them.
    begins_sorted: bool,
    ends_sorted: bool,
    last_begin: u64,
    last_end: u64,
    /// The largest value so far that is not the null sentinel.
    max: u64,
}

impl StateRun {
    /// Appends the states of a window (file order).
    fn extend(&mut self, v: &[RawState], sentinel: u64) {
        if self.begin.is_empty() {
            (self.begins_sorted, self.ends_sorted) = (true, true);
            (self.last_begin, self.last_end, self.max) = (0, 0, 0);
        }
        // One pass for order and the largest value, then one per column.
        let (mut begins_sorted, mut ends_sorted, mut max) =
            (self.begins_sorted, self.ends_sorted, 0);
        let (mut last_begin, mut last_end) = (self.last_begin, self.last_end);
        for s in v {
            begins_sorted &= s.begin >= last_begin;
            ends_sorted &= s.end >= last_end;
            last_begin = s.begin;
            last_end = s.end;
            if s.value != sentinel {
                max = max.max(s.value);
            }
        }
        (self.begins_sorted, self.ends_sorted) = (begins_sorted, ends_sorted);
        (self.last_begin, self.last_end) = (last_begin, last_end);
        self.max = self.max.max(max);
        self.begin.extend_by(v, |s| s.begin);
        self.end.extend_by(v, |s| s.end);
        self.value.extend_with_max(v, sentinel, max, |s| s.value);
    }

    /// The run as a piece, leaving it empty.
    pub(super) fn take(&mut self, row: u32, sentinel: u64) -> StatePiece {
        let mut run = std::mem::take(self);
        run.begin.shrink_to_fit();
        run.end.shrink_to_fit();
        run.value.shrink_to_fit();
        StatePiece {
            row,
            begins_sorted: run.begins_sorted,
            ends_sorted: run.ends_sorted,
            begin: TimeColumn::from_seg(run.begin),
            end: TimeColumn::from_seg(run.end),
            value: ValueColumn::from_seg(run.value, sentinel),
        }
    }

    /// The run as a piece in arrays of its exact size, leaving it empty with its room kept
    /// for the worker's next chunk.
    pub(super) fn take_keeping_room(&mut self, row: u32, sentinel: u64) -> StatePiece {
        StatePiece {
            row,
            begins_sorted: self.begins_sorted,
            ends_sorted: self.ends_sorted,
            begin: TimeColumn::from_seg(self.begin.take_keeping_room()),
            end: TimeColumn::from_seg(self.end.take_keeping_room()),
            value: ValueColumn::from_seg(
                self.value.take_keeping_room(self.max, sentinel),
                sentinel,
            ),
        }
    }
}

/// The pairs of one (row, type) in a chunk so far, encoded a window at a time.
#[derive(Debug, Default)]
pub(super) struct EventRun {
    pub(super) time: TimeSeg,
    value: ValueSeg,
    /// Are the times in order so far? The last of them.
    sorted: bool,
    last: u64,
    /// The largest value so far that is not the null sentinel.
    max: u64,
}

impl EventRun {
    /// Appends the pairs of a window (file order).
    fn extend(&mut self, pairs: &[(u64, u64)], sentinel: u64) {
        if self.time.is_empty() {
            (self.sorted, self.last, self.max) = (true, 0, 0);
        }
        // One pass for order and the largest value, then one per column.
        let (mut sorted, mut last, mut max) = (self.sorted, self.last, 0);
        for &(t, v) in pairs {
            sorted &= t >= last;
            last = t;
            if v != sentinel {
                max = max.max(v);
            }
        }
        (self.sorted, self.last) = (sorted, last);
        self.max = self.max.max(max);
        self.time.extend_by(pairs, |p| p.0);
        self.value.extend_with_max(pairs, sentinel, max, |p| p.1);
    }

    /// The run as a piece, leaving it empty.
    pub(super) fn take(&mut self, b: &EventBuf, sentinel: u64) -> EventPiece {
        let mut run = std::mem::take(self);
        run.time.shrink_to_fit();
        run.value.shrink_to_fit();
        EventPiece {
            row: b.row,
            ty: b.ty,
            sorted: run.sorted,
            time: TimeColumn::from_seg(run.time),
            value: ValueColumn::from_seg(run.value, sentinel),
        }
    }

    /// The run as a piece in arrays of its exact size, leaving it empty with its room kept
    /// for the worker's next chunk.
    pub(super) fn take_keeping_room(&mut self, b: &EventBuf, sentinel: u64) -> EventPiece {
        EventPiece {
            row: b.row,
            ty: b.ty,
            sorted: self.sorted,
            time: TimeColumn::from_seg(self.time.take_keeping_room()),
            value: ValueColumn::from_seg(
                self.value.take_keeping_room(self.max, sentinel),
                sentinel,
            ),
        }
    }
}

/// A run that records of type `T` are encoded onto.
pub(super) trait Run<T> {
    fn extend(&mut self, items: &[T], sentinel: u64);
    /// Makes room for `more` records; when the run must grow, it grows to `more` and what it
    /// holds times `scale` (the chunk's text over the text parsed so far), with a margin.
    fn make_room(&mut self, more: usize, scale: f64);
}

/// The records a run of `need` records after a share `1 / scale` of its chunk will hold
/// at the chunk's end, with a margin of 1/16, at least `need` and at most four times it (a
/// thread busier at the start of its chunk than later is not given room for the whole
/// chunk at that rate: its run grows again when needed, to a forecast from more of it).
pub(super) fn forecast(need: usize, scale: f64) -> usize {
    // The cast saturates (NaN gives 0).
    ((need as f64 * scale * (17.0 / 16.0)) as usize).clamp(need, need.saturating_mul(4))
}

/// The size a run that needs room for `need` records and has room for `capacity` grows to:
/// none when it has room.
fn grown(need: usize, capacity: usize, scale: f64) -> Option<usize> {
    (need > capacity).then(|| forecast(need, scale))
}

impl Run<RawState> for StateRun {
    fn extend(&mut self, items: &[RawState], sentinel: u64) {
        StateRun::extend(self, items, sentinel);
    }

    fn make_room(&mut self, more: usize, scale: f64) {
        if let Some(total) = grown(self.begin.len() + more, self.begin.capacity(), scale) {
            self.begin.reserve_total(total);
            self.end.reserve_total(total);
            self.value.reserve_total(total);
        }
    }
}

impl Run<(u64, u64)> for EventRun {
    fn extend(&mut self, items: &[(u64, u64)], sentinel: u64) {
        EventRun::extend(self, items, sentinel);
    }

    fn make_room(&mut self, more: usize, scale: f64) {
        if let Some(total) = grown(self.time.len() + more, self.time.capacity(), scale) {
            self.time.reserve_total(total);
            self.value.reserve_total(total);
        }
    }
}

/// The pieces of a chunk's runs are copied into one slab when they take at least this many
/// bytes together: a mapping of its own is not worth it for less (nor are huge pages).
pub(super) const SLAB_MIN: usize = 64 << 10;

/// Every run of a chunk that goes into its slab ([`StateRun::in_slab`],
/// [`EventRun::in_slab`]: `state_runs` and `event_runs`, `events` being the latter's
/// (thread, type)) as pieces of their exact sizes in one slab of fresh memory
/// ([`SlabWriter`]), in the runs' order, the runs left as they are. `None` when they take
/// less than [`SLAB_MIN`] bytes or the slab could not be made: they are then copied piece
/// by piece, as the other runs are.
///
/// Copied piece by piece, every 4 kB page of the store a load builds costs a page fault; in
/// a slab advised for huge pages, most of them come 2 MB at a time. Only pieces that the
/// assembly moves into the store as they are go into the slab: a shorter one is copied
/// there, and its bytes in a slab would stay as long as any other piece of the slab.
/// Measured on 2 cores, `info --no-cache` in alternating runs: see `README.md`
/// (Performance, Loading).
pub(super) fn slab_pieces(
    state_runs: &[StateRun],
    events: &[EventBuf],
    event_runs: &[EventRun],
    sentinel: u64,
) -> Option<(Vec<StatePiece>, Vec<EventPiece>)> {
    let used_states = || {
        state_runs
            .iter()
            .enumerate()
            .filter(|(_, run)| run.in_slab())
    };
    let used_events = || {
        events
            .iter()
            .zip(event_runs)
            .filter(|(_, run)| run.in_slab())
    };
    let bytes = used_states()
        .map(|(_, run)| run.slab_bytes())
        .chain(used_events().map(|(_, run)| run.slab_bytes()))
        .fold(0usize, usize::saturating_add);
    if bytes < SLAB_MIN {
        return None;
    }
    let mut slab = SlabWriter::new(bytes)?;
    let states: Vec<PlacedState> = used_states()
        .map(|(row, run)| run.place(row as u32, sentinel, &mut slab))
        .collect::<Option<_>>()?;
    let pairs: Vec<PlacedEvent> = used_events()
        .map(|(b, run)| run.place(b, sentinel, &mut slab))
        .collect::<Option<_>>()?;
    let map = slab.finish();
    Some((
        states
            .iter()
            .map(|p| p.piece(&map, sentinel))
            .collect::<Option<_>>()?,
        pairs
            .iter()
            .map(|p| p.piece(&map, sentinel))
            .collect::<Option<_>>()?,
    ))
}

/// A state run copied into a slab that is still being filled.
struct PlacedState {
    row: u32,
    begins_sorted: bool,
    ends_sorted: bool,
    begin: PlacedTime,
    end: PlacedTime,
    value: PlacedValue,
}

impl PlacedState {
    fn piece(&self, map: &Arc<Slab>, sentinel: u64) -> Option<StatePiece> {
        Some(StatePiece {
            row: self.row,
            begins_sorted: self.begins_sorted,
            ends_sorted: self.ends_sorted,
            begin: TimeColumn::from_seg(self.begin.seg(map)?),
            end: TimeColumn::from_seg(self.end.seg(map)?),
            value: ValueColumn::from_seg(self.value.seg(map)?, sentinel),
        })
    }
}

/// An event run copied into a slab that is still being filled.
struct PlacedEvent {
    row: u32,
    ty: u32,
    sorted: bool,
    time: PlacedTime,
    value: PlacedValue,
}

impl PlacedEvent {
    fn piece(&self, map: &Arc<Slab>, sentinel: u64) -> Option<EventPiece> {
        Some(EventPiece {
            row: self.row,
            ty: self.ty,
            sorted: self.sorted,
            time: TimeColumn::from_seg(self.time.seg(map)?),
            value: ValueColumn::from_seg(self.value.seg(map)?, sentinel),
        })
    }
}

impl StateRun {
    /// Does the run go into its chunk's slab: is it as long as a piece the assembly moves
    /// into the store ([`MOVE_MIN`])?
    pub(super) fn in_slab(&self) -> bool {
        self.begin.len() >= MOVE_MIN
    }

    /// The bytes [`Self::place`] takes in a slab.
    fn slab_bytes(&self) -> usize {
        self.begin.slab_bytes() + self.end.slab_bytes() + self.value.slab_bytes(self.max)
    }

    /// The run copied into `slab` (what [`Self::take_keeping_room`] gives, once the slab is
    /// filled), the run left as it is.
    fn place(&self, row: u32, sentinel: u64, slab: &mut SlabWriter) -> Option<PlacedState> {
        Some(PlacedState {
            row,
            begins_sorted: self.begins_sorted,
            ends_sorted: self.ends_sorted,
            begin: self.begin.place(slab)?,
            end: self.end.place(slab)?,
            value: self.value.place(self.max, sentinel, slab)?,
        })
    }

    /// Empties the run, keeping its room.
    pub(super) fn clear_keeping_room(&mut self) {
        self.begin.clear_keeping_room();
        self.end.clear_keeping_room();
        self.value.clear_keeping_room();
    }
}

impl EventRun {
    /// Does the run go into its chunk's slab (see [`StateRun::in_slab`])?
    pub(super) fn in_slab(&self) -> bool {
        self.time.len() >= MOVE_MIN
    }

    /// The bytes [`Self::place`] takes in a slab.
    fn slab_bytes(&self) -> usize {
        self.time.slab_bytes() + self.value.slab_bytes(self.max)
    }

    /// The run copied into `slab` (what [`Self::take_keeping_room`] gives, once the slab is
    /// filled), the run left as it is.
    fn place(&self, b: &EventBuf, sentinel: u64, slab: &mut SlabWriter) -> Option<PlacedEvent> {
        Some(PlacedEvent {
            row: b.row,
            ty: b.ty,
            sorted: self.sorted,
            time: self.time.place(slab)?,
            value: self.value.place(self.max, sentinel, slab)?,
        })
    }

    /// Empties the run, keeping its room.
    pub(super) fn clear_keeping_room(&mut self) {
        self.time.clear_keeping_room();
        self.value.clear_keeping_room();
    }
}

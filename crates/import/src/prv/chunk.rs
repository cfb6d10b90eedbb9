//! What parsing a chunk produces: the raw records, the per-(row, type) buffers they are
//! gathered in, and the compact pieces a chunk hands to assembly.

use prvscope_format::error::LoadReport;
use prvscope_format::subset::Filter;
use prvscope_store::{Comm, TimeColumn, ValueColumn};

use super::fast::LastLine;
use super::index::{KeyIndex, PrefixIndex};

/// A state record before encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// The events of one type on one row, as found in one chunk (file order).
#[derive(Debug, Clone, Default)]
pub struct EventBuf {
    pub row: u32,
    pub ty: u32,
    /// (time, value) pairs: one vector, so that adding a pair is one capacity check and
    /// one write.
    pub pairs: Vec<(u64, u64)>,
    /// When part of the trace is loaded: the last pair before its range (it holds when the
    /// range starts).
    pub before: Option<(u64, u64)>,
}

/// The output of parsing one chunk.
#[derive(Debug, Default)]
pub struct ChunkOut {
    /// While parsing: the states of each row.
    pub(crate) states: Vec<Vec<RawState>>,
    /// Once parsed: the non-empty rows' states, encoded.
    pub state_pieces: Vec<StatePiece>,
    /// While parsing: per row, (time, CPU) of each state or event record whose CPU differs
    /// from the row's previous one in the chunk (file order; the first record always).
    pub(crate) cpu_changes: Vec<Vec<(u64, u32)>>,
    /// Once parsed: the rows' CPU changes.
    pub cpu_pieces: Vec<(u32, Vec<(u64, u32)>)>,
    /// While parsing: one buffer per (row, event type) seen, in first-seen order.
    events: Vec<EventBuf>,
    /// Rows of line prefixes seen.
    pub(super) prefixes: PrefixIndex,
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
    /// Lines in the chunk (newlines, plus one for a last line without newline).
    pub lines: u64,
    /// `c:`/`i:` communicator lines seen.
    pub communicator_lines: u64,
    /// Values stored as the sentinel.
    pub null_values: u64,
    /// Issues, with line numbers local to the chunk (1-based).
    pub report: LoadReport,
}

impl ChunkOut {
    /// A chunk output with room for `rows` rows.
    pub fn new(rows: usize) -> Self {
        ChunkOut {
            states: vec![Vec::new(); rows],
            cpu_changes: vec![Vec::new(); rows],
            last_object: (0, 0, 0, 0),
            ..ChunkOut::default()
        }
    }

    /// Moves what was parsed into an output of exactly the needed size, and empties `self`
    /// for the next chunk while keeping its buffers' capacity and its (row, type) index.
    /// Parsing into warm, reused buffers and copying out once avoids the reallocations and
    /// first-touch page faults that growing fresh vectors per chunk costs.
    pub(crate) fn take_output(&mut self, sentinel: u64) -> ChunkOut {
        let mut state_pieces = Vec::new();
        for (row, v) in self.states.iter_mut().enumerate() {
            if v.is_empty() {
                continue;
            }
            // One pass for order and the largest value, then one per column.
            let (mut begins_sorted, mut ends_sorted, mut max) = (true, true, 0);
            for w in v.windows(2) {
                if let [a, b] = w {
                    begins_sorted &= a.begin <= b.begin;
                    ends_sorted &= a.end <= b.end;
                }
            }
            for s in v.iter() {
                if s.value != sentinel {
                    max = max.max(s.value);
                }
            }
            let time = |sorted: bool, t: fn(&RawState) -> u64| {
                if sorted {
                    TimeColumn::from_sorted_slice_by(v, t)
                } else {
                    TimeColumn::from_slice_by(v, t)
                }
            };
            state_pieces.push(StatePiece {
                row: row as u32,
                begins_sorted,
                ends_sorted,
                begin: time(begins_sorted, |s| s.begin),
                end: time(ends_sorted, |s| s.end),
                value: ValueColumn::from_slice_with_max(v, sentinel, max, |s| s.value),
            });
            v.clear();
        }
        let cpu_pieces = self
            .cpu_changes
            .iter_mut()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(row, v)| (row as u32, std::mem::take(v)))
            .collect();
        let mut pieces = Vec::new();
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
            if b.pairs.is_empty() {
                // Not used by this chunk: give most of its memory back, so the scratch holds
                // about a chunk's worth however many (row, type) pairs the trace has, but
                // keep some, as the pair may come back in the next chunk (ovni writes each
                // thread's events in runs).
                b.pairs.shrink_to(b.pairs.capacity() / 4);
                continue;
            }
            // One pass for order and the largest value, then one per column.
            let (mut sorted, mut last, mut max) = (true, 0, 0);
            for &(t, v) in &b.pairs {
                sorted &= t >= last;
                last = t;
                if v != sentinel {
                    max = max.max(v);
                }
            }
            pieces.push(EventPiece {
                row: b.row,
                ty: b.ty,
                sorted,
                time: if sorted {
                    TimeColumn::from_sorted_slice_by(&b.pairs, |p| p.0)
                } else {
                    TimeColumn::from_slice_by(&b.pairs, |p| p.0)
                },
                value: ValueColumn::from_slice_with_max(&b.pairs, sentinel, max, |p| p.1),
            });
            b.pairs.clear();
        }
        let out = ChunkOut {
            state_pieces,
            cpu_pieces,
            pieces,
            befores: std::mem::take(&mut self.befores),
            comms: std::mem::take(&mut self.comms),
            lines: self.lines,
            communicator_lines: self.communicator_lines,
            null_values: self.null_values,
            report: std::mem::take(&mut self.report),
            ..ChunkOut::default()
        };
        self.lines = 0;
        self.communicator_lines = 0;
        self.null_values = 0;
        self.last_line = LastLine::default();
        self.last_object = (0, 0, 0, 0);
        out
    }

    /// Notes the CPU of a state or event record of `row` at `time` (kept when it changes).
    #[inline]
    pub(crate) fn note_cpu(&mut self, row: u32, time: u64, cpu: u64) {
        let cpu = u32::try_from(cpu).unwrap_or(u32::MAX);
        if let Some(v) = self.cpu_changes.get_mut(row as usize)
            && v.last().is_none_or(|&(_, c)| c != cpu)
        {
            v.push((time, cpu));
        }
    }

    /// Stores a state of `row`, unless the part of the trace loaded leaves it out.
    #[inline]
    pub(super) fn keep_state(&mut self, filter: &Filter, sentinel: u64, row: u32, s: RawState) {
        if filter.active && !filter.keeps_span(row, s.begin, s.end) {
            return;
        }
        self.null_values += u64::from(s.value == sentinel);
        if let Some(states) = self.states.get_mut(row as usize) {
            states.push(s);
        }
    }

    /// Stores an event pair of `row`, unless the part of the trace loaded leaves it out
    /// (of the pairs before its range, the last of each type is kept).
    #[inline]
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
        self.push_event(row, e);
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
    #[inline]
    pub fn push_event(&mut self, row: u32, e: RawEvent) {
        let i = self.buffer_of(row, e.ty);
        if let Some(b) = self.events.get_mut(i) {
            b.pairs.push((e.time, e.value));
        }
    }

    fn buffer_of(&mut self, row: u32, ty: u32) -> usize {
        let key = (u64::from(row) << 32) | u64::from(ty);
        let events = &mut self.events;
        self.event_index.get_or_insert(key, || {
            events.push(EventBuf {
                row,
                ty,
                pairs: Vec::new(),
                before: None,
            });
            events.len() - 1
        })
    }
}

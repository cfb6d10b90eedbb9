//! The columnar trace store.
//!
//! A [`TraceStore`] is built once by the loader and never changes; the UI and the analyses
//! share it through an `Arc`. Records are kept per thread (row), sorted by time:
//! - states as three columns (begin, end, value),
//! - events grouped by event type, each type with its own (time, value) columns, so that the
//!   values of one type on one thread over a window cost O(log n + output) and never walk the
//!   other types,
//! - communications in one global table sorted by logical send time.
//!
//! Times and values are compressed by [`columns`]; [`TraceStore::heap_bytes`] counts every
//! byte the store holds so that memory per record is a measured number.
//!
//! Values are kept exactly as written. Null is the [`NullPolicy`]'s sentinel (and 0 when the
//! policy says zero is null); nothing is rewritten.

pub mod cache;
mod checked;
pub mod columns;
pub mod comm_index;
pub mod null;
pub mod placement;
pub mod signal;
pub mod summary;
pub mod text_index;
pub mod trace;

use std::ops::Range;

pub use checked::Integrity;
pub use columns::{TimeColumn, ValueColumn};
pub use null::{DEFAULT_SENTINEL, NullOverride, NullPolicy};
pub use text_index::{TextIndex, TextPiece};
pub use trace::{LoadStats, LoadedPart, Trace};

/// State records of one thread, sorted by begin time (equal begins keep file order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateColumns {
    /// Begin time of each state; sorted.
    pub begin: TimeColumn,
    /// End time of each state; same length as `begin`, each `>= begin`.
    pub end: TimeColumn,
    /// State value; same length as `begin`.
    pub value: ValueColumn,
    /// Is `end` sorted too? True for well-formed traces, where states do not overlap.
    pub ends_sorted: bool,
}

impl StateColumns {
    /// Number of state records.
    pub fn len(&self) -> usize {
        self.begin.len()
    }

    /// True when the thread has no state record.
    pub fn is_empty(&self) -> bool {
        self.begin.is_empty()
    }

    /// Indices of the states that overlap `[t0, t1)`, in time order.
    pub fn overlapping(&self, t0: u64, t1: u64) -> Range<usize> {
        let stop = self.begin.lower_bound(t1);
        let start = if self.ends_sorted {
            self.end.upper_bound(t0)
        } else {
            // Overlapping states (malformed traces): the first state ending after t0 may be
            // anywhere before `stop`.
            (0..stop).find(|&i| self.end.get(i) > t0).unwrap_or(stop)
        };
        start..stop.max(start)
    }
}

/// All events of one type on one thread, sorted by time (equal times keep file order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventColumn {
    /// The event type.
    pub ty: u32,
    /// Event times; sorted.
    pub time: TimeColumn,
    /// Event values; same length as `time`.
    pub value: ValueColumn,
}

impl EventColumn {
    /// Number of events.
    pub fn len(&self) -> usize {
        self.time.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    /// Indices of the events with time in `[t0, t1)`.
    pub fn in_window(&self, t0: u64, t1: u64) -> Range<usize> {
        let start = self.time.lower_bound(t0);
        let stop = self.time.lower_bound(t1).max(start);
        start..stop
    }

    /// Index of the last event at or before `t` (the one whose value holds at `t`).
    pub fn last_at_or_before(&self, t: u64) -> Option<usize> {
        self.time.upper_bound(t).checked_sub(1)
    }
}

/// The records of one thread (one timeline row).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadData {
    pub states: StateColumns,
    /// One column per event type present on this thread, sorted by type.
    pub events: Vec<EventColumn>,
    /// The CPU the thread's state and event records name, over time: (time, CPU) where it
    /// changes, in time order, the first at time 0 (CPU 0: none). Usually one entry: threads
    /// rarely migrate. Empty for a thread without records.
    pub cpus: Vec<(u64, u32)>,
}

impl ThreadData {
    /// The column of event type `ty`, if the thread has any such event.
    pub fn event_type(&self, ty: u32) -> Option<&EventColumn> {
        self.events
            .binary_search_by_key(&ty, |c| c.ty)
            .ok()
            .and_then(|i| self.events.get(i))
    }

    /// The CPU of the thread's records at `t`: that of the last change at or before `t`
    /// (0 for a thread without records).
    pub fn cpu_at(&self, t: u64) -> u32 {
        let i = self.cpus.partition_point(|c| c.0 <= t);
        i.checked_sub(1)
            .and_then(|i| self.cpus.get(i))
            .map_or(0, |c| c.1)
    }

    /// Number of events (type:value pairs) on this thread.
    pub fn event_count(&self) -> usize {
        self.events.iter().map(EventColumn::len).sum()
    }

    fn heap_bytes(&self) -> usize {
        self.states.begin.heap_bytes()
            + self.states.end.heap_bytes()
            + self.states.value.heap_bytes()
            + self.events.capacity() * std::mem::size_of::<EventColumn>()
            + self.cpus.capacity() * std::mem::size_of::<(u64, u32)>()
            + self
                .events
                .iter()
                .map(|c| c.time.heap_bytes() + c.value.heap_bytes())
                .sum::<usize>()
    }
}

/// One communication (`3:` record). Rows are 0-based thread indices of the store. Laid out
/// without padding, so that the store cache holds the table as it is in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Comm {
    pub send_row: u32,
    pub recv_row: u32,
    /// CPUs as written (0: no CPU).
    pub send_cpu: u32,
    pub recv_cpu: u32,
    /// Logical and physical send times.
    pub lsend: u64,
    pub psend: u64,
    /// Logical and physical receive times.
    pub lrecv: u64,
    pub precv: u64,
    pub size: u64,
    pub tag: u64,
}

/// Record counts as loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecordCounts {
    /// `1:` records kept.
    pub states: u64,
    /// type:value pairs of `2:` records kept.
    pub events: u64,
    /// `3:` records kept.
    pub comms: u64,
    /// Values stored as the null sentinel (states and events).
    pub null_values: u64,
}

impl RecordCounts {
    /// All records: states + event pairs + communications.
    pub fn total(&self) -> u64 {
        self.states + self.events + self.comms
    }
}

/// How many of the last messages sent [`TraceStore::last_record_time`] reads.
pub const LAST_COMMS: usize = 4096;

/// The share of the header's duration after the last record beyond which a trace is
/// taken as cut short ([`TraceStore::records_cut_short`]).
pub const CUT_SHORT_GAP: f64 = 0.01;

/// The immutable, columnar store of one trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceStore {
    threads: Vec<ThreadData>,
    /// Sorted by `lsend` (equal times keep file order).
    comms: columns::Buf<Comm>,
    policy: NullPolicy,
    counts: RecordCounts,
    end_time: u64,
    /// Per row: are its records loaded? Empty when every row is (a partial load of some
    /// threads keeps the others' rows, empty, so that rows keep the header's numbering).
    loaded: Vec<bool>,
    /// Pairs of event types `(a, b)`, `a > b`, of which an event of `a` came before one of
    /// `b` at one timestamp of one thread in the file: the order the store does not keep
    /// (at one time it gives each thread's events by type). Sorted, without repeats.
    inversions: Vec<(u32, u32)>,
    /// The cache file the columns read in place, when the store was opened from one.
    mapped: Backing,
}

/// The file a store's columns read in place, and what else its cache file held (the first
/// view, the messages' index); stores compare by content, whatever their arrays are read from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Backing {
    pub(crate) map: Option<columns::Mapped>,
    pub(crate) views: Vec<signal::PrebuiltView>,
    pub(crate) comm_index: Option<std::sync::Arc<comm_index::CommIndex>>,
    /// The check of the records' sections, when it runs after the open.
    pub(crate) deferred: Option<std::sync::Arc<checked::Deferred>>,
}

impl PartialEq for Backing {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Backing {}

impl TraceStore {
    /// Assembles a store. `threads` are in row order; `comms` must be sorted by `lsend`.
    pub fn new(
        threads: Vec<ThreadData>,
        comms: impl Into<columns::Buf<Comm>>,
        policy: NullPolicy,
        null_values: u64,
        end_time: u64,
    ) -> Self {
        let comms: columns::Buf<Comm> = comms.into();
        let counts = RecordCounts {
            states: threads.iter().map(|t| t.states.len() as u64).sum(),
            events: threads.iter().map(|t| t.event_count() as u64).sum(),
            comms: comms.len() as u64,
            null_values,
        };
        debug_assert!(comms.windows(2).all(|w| w[0].lsend <= w[1].lsend));
        TraceStore {
            threads,
            comms,
            policy,
            counts,
            end_time,
            loaded: Vec::new(),
            inversions: Vec::new(),
            mapped: Backing::default(),
        }
    }

    /// The same store, saying that only the rows `loaded` marks hold the records of their
    /// threads (the others were left out of a partial load, not idle).
    #[must_use]
    pub fn with_loaded_rows(mut self, loaded: Vec<bool>) -> Self {
        self.loaded = if loaded.iter().all(|&l| l) {
            Vec::new()
        } else {
            loaded
        };
        self
    }

    /// Are row `row`'s records loaded (all rows are, unless only some threads were)?
    pub fn is_row_loaded(&self, row: usize) -> bool {
        self.loaded.is_empty() || self.loaded.get(row).copied().unwrap_or(false)
    }

    /// The rows whose records are loaded (every row, unless only some threads were).
    pub fn loaded_rows(&self) -> Vec<usize> {
        (0..self.threads.len())
            .filter(|&r| self.is_row_loaded(r))
            .collect()
    }

    /// The records, once they may be used: those of a cache file whose sections are checked
    /// after the open wait for the check, and are empty when it failed (see [`Integrity`]).
    fn records(&self) -> (&[ThreadData], &[Comm]) {
        match &self.mapped.deferred {
            Some(d) if !d.wait_ok() => (&d.empty, &[]),
            _ => (&self.threads, &self.comms),
        }
    }

    /// The threads (rows), in header order.
    pub fn threads(&self) -> &[ThreadData] {
        self.records().0
    }

    /// How many threads (rows): never waits for a check (see [`TraceStore::integrity`]).
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    /// One thread's records.
    pub fn thread(&self, row: usize) -> Option<&ThreadData> {
        self.threads().get(row)
    }

    /// All communications, sorted by logical send time.
    pub fn comms(&self) -> &[Comm] {
        self.records().1
    }

    /// Communications whose logical send time is in `[t0, t1)`.
    pub fn comms_sent_in(&self, t0: u64, t1: u64) -> &[Comm] {
        let comms = self.comms();
        let a = comms.partition_point(|c| c.lsend < t0);
        let b = comms.partition_point(|c| c.lsend < t1).max(a);
        comms.get(a..b).unwrap_or(&[])
    }

    /// Whether the records may be trusted: [`Integrity::Checking`] while the sections of
    /// a large cache file are being checked after its open, [`Integrity::Corrupt`] when one
    /// was found corrupt (the records are then empty; the trace must be read again).
    /// Never waits.
    pub fn integrity(&self) -> Integrity {
        self.mapped
            .deferred
            .as_ref()
            .map_or(Integrity::Checked, |d| d.integrity())
    }

    /// [`TraceStore::integrity`], once the check is over (waits for it).
    pub fn wait_checked(&self) -> Integrity {
        if let Some(d) = &self.mapped.deferred {
            d.wait_ok();
        }
        self.integrity()
    }

    /// How nulls are told apart from values.
    pub fn null_policy(&self) -> NullPolicy {
        self.policy
    }

    /// Changes how values are read (not what is stored). Only before the store is shared;
    /// a view that reads zeros differently keeps its own `NullPolicy` instead.
    pub fn set_null_policy(&mut self, policy: NullPolicy) {
        self.policy = policy;
    }

    /// Record counts.
    pub fn counts(&self) -> RecordCounts {
        self.counts
    }

    /// The trace duration from the header, in ticks.
    pub fn end_time(&self) -> u64 {
        self.end_time
    }

    /// The time of the last record: the latest state end, event, or send or receive of
    /// the last messages sent (the last [`LAST_COMMS`], so that a store read in place is not
    /// scanned). A complete trace's is its header's duration; a trace whose records stop
    /// before (a file cut short) holds no value after it.
    pub fn last_record_time(&self) -> u64 {
        let (threads, comms) = self.records();
        let mut last = 0;
        for t in threads {
            let n = t.states.len();
            if n > 0 {
                let end = if t.states.ends_sorted {
                    t.states.end.get(n - 1)
                } else {
                    t.states.end.iter().max().unwrap_or(0)
                };
                last = last.max(end);
            }
            for c in &t.events {
                if let Some(i) = c.len().checked_sub(1) {
                    last = last.max(c.time.get(i));
                }
            }
        }
        let from = comms.len().saturating_sub(LAST_COMMS);
        for c in comms.get(from..).unwrap_or_default() {
            last = last.max(c.lsend).max(c.psend).max(c.lrecv).max(c.precv);
        }
        last
    }

    /// The time of the last record when the records stop well before the header's duration
    /// (a file cut short): a trace with state records, more than [`CUT_SHORT_GAP`] of its
    /// duration after the last record. Writers of state records (Extrae, `gen`) cover each
    /// thread's time to the duration, or to a tick short of it; a percent of the run with no
    /// record on any thread is a file that ends early. A trace of events alone (ovni) is
    /// never taken as cut short: its last values hold to the end, as Paraver reads them (a
    /// file cut in a line is reported by the load as such).
    pub fn records_cut_short(&self) -> Option<u64> {
        if self.counts().states == 0 {
            return None;
        }
        let last = self.last_record_time();
        let gap = self.end_time.saturating_sub(last);
        (gap as f64 > self.end_time as f64 * CUT_SHORT_GAP).then_some(last)
    }

    /// Pairs of event types `(a, b)`, `a > b`, of which an event of `a` came before one of
    /// `b` at one timestamp of one thread in the file. At one time the store gives a thread's
    /// events by type (each type's in file order): for these pairs that is not the file's
    /// order, which an analysis reading both types at once would need.
    pub fn inversions(&self) -> &[(u32, u32)] {
        &self.inversions
    }

    /// Does the store keep the file's order of the events of `types` at every timestamp
    /// (no inverted pair has both its types among them)?
    pub fn keeps_order_of(&self, types: impl Fn(u32) -> bool) -> Option<(u32, u32)> {
        self.inversions
            .iter()
            .copied()
            .find(|&(a, b)| types(a) && types(b))
    }

    /// The same store, with the inverted pairs found when parsing it.
    #[must_use]
    pub fn with_inversions(mut self, mut pairs: Vec<(u32, u32)>) -> Self {
        pairs.sort_unstable();
        pairs.dedup();
        self.inversions = pairs;
        self
    }

    /// The event types present anywhere in the trace, sorted.
    pub fn event_types(&self) -> Vec<u32> {
        // The types are in the description, checked at open: never waits for a check.
        let mut types: Vec<u32> = self
            .threads
            .iter()
            .flat_map(|t| t.events.iter().map(|c| c.ty))
            .collect();
        types.sort_unstable();
        types.dedup();
        types
    }

    /// The events of type `ty` on thread `row` with time in `[t0, t1)`, as (time, value).
    /// Costs O(log n + output).
    pub fn events_in(
        &self,
        row: usize,
        ty: u32,
        t0: u64,
        t1: u64,
    ) -> impl Iterator<Item = (u64, u64)> + '_ {
        let col = self.thread(row).and_then(|t| t.event_type(ty));
        let range = col.map_or(0..0, |c| c.in_window(t0, t1));
        range.filter_map(move |i| col.map(|c| (c.time.get(i), c.value.get(i))))
    }

    /// The states of thread `row` overlapping `[t0, t1)`, as (begin, end, value).
    pub fn states_in(
        &self,
        row: usize,
        t0: u64,
        t1: u64,
    ) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        let states = self.thread(row).map(|t| &t.states);
        let range = states.map_or(0..0, |s| s.overlapping(t0, t1));
        range.filter_map(move |i| states.map(|s| (s.begin.get(i), s.end.get(i), s.value.get(i))))
    }

    /// Bytes held by the store's columns and indexes (heap), plus its own structures.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.threads.capacity() * std::mem::size_of::<ThreadData>()
            + self
                .threads
                .iter()
                .map(ThreadData::heap_bytes)
                .sum::<usize>()
            + self.comms.heap_bytes()
    }

    /// Bytes of the store cache file the columns read in place (0 when the store was built
    /// by a load): these pages belong to the page cache, not to the heap.
    pub fn mapped_bytes(&self) -> u64 {
        self.mapped.map.as_ref().map_or(0, |m| m.len() as u64)
    }

    /// Lets go of the pages of the cache file this store has read so far (they stay in the
    /// page cache, and are read from it again when touched): for a pass over the whole store,
    /// such as an export, whose resident size would otherwise grow to the file's. Nothing for
    /// a store that was loaded.
    pub fn release_mapped_pages(&self) {
        #[cfg(unix)]
        if let Some(map) = &self.mapped.map {
            #[allow(unsafe_code)]
            // SAFETY: the map is a read-only, shared map of a file that is never changed (see
            // `cache::map_file`): after MADV_DONTNEED its pages read the file's contents
            // again, the same bytes, so no slice borrowed from it sees anything change.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    /// Was this store opened from a cache file?
    pub fn is_mapped(&self) -> bool {
        self.mapped.map.is_some()
    }

    /// The views its cache file held.
    pub(crate) fn prebuilt_views(&self) -> &[signal::PrebuiltView] {
        &self.mapped.views
    }

    /// The messages' index its cache file held.
    pub(crate) fn prebuilt_comm_index(&self) -> Option<&std::sync::Arc<comm_index::CommIndex>> {
        self.mapped.comm_index.as_ref()
    }

    /// Store bytes per record (states + event pairs + communications).
    pub fn bytes_per_record(&self) -> f64 {
        let n = self.counts.total().max(1);
        self.heap_bytes() as f64 / n as f64
    }
}

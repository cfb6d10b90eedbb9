//! Paraver's cutter (`KTraceCutter::execute`, `src/ktracecutter.cpp`) on one thread of the
//! store: the thread's records in time order (at one time its states first, then its
//! events as one line), each kept, cut or dropped as the cutter decides when it reads that
//! line, with the cutter's record of the thread (`ThreadInfo`: opened event types, counters
//! seen and not yet zeroed, its last CPU, whether it has finished).
//!
//! The cutter reads the whole file in order; what one thread's decisions take from the
//! others (the first record written, the point where it stops reading) is computed before
//! (`Global`), so that threads are cut in parallel.

use std::collections::BTreeSet;

use prvscope_store::{EventColumn, ThreadData};

use super::options::CutterOptions;

/// What every thread's cut shares.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    pub opts: &'a CutterOptions,
    pub t0: u64,
    pub t1: u64,
    /// Hardware counter types of the `.pcf` (`42000000..50000000`), sorted.
    pub counters: &'a [u32],
    /// `.pcf` types without values, which the cutter does not track.
    pub untracked: &'a [u32],
    /// The value read as null (written back as `N`, read as 0 by the cutter's rules).
    pub sentinel: u64,
    /// `break_states` as the cutter applies it (off under `original_time`).
    pub break_states: bool,
    /// `keep_events` as applied (off when states are broken).
    pub keep_events: bool,
}

impl<'a> Context<'a> {
    pub fn new(
        opts: &'a CutterOptions,
        (t0, t1): (u64, u64),
        counters: &'a [u32],
        untracked: &'a [u32],
        sentinel: u64,
    ) -> Self {
        let break_states = opts.break_states && !opts.original_time;
        Self {
            opts,
            t0,
            t1,
            counters,
            untracked,
            sentinel,
            break_states,
            keep_events: opts.keep_events && !break_states,
        }
    }
}

/// Where the cutter stops reading, found before (see `super::global`): nothing after
/// `time` is read; at `time`, only the stopping state of row `row`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    pub time: u64,
    pub row: usize,
}

/// What the cutter writes for one thread, in its order.
pub trait Sink {
    fn state(&mut self, cpu: u32, begin: u64, end: u64, value: u64);
    /// One event line: its time, CPU and (type, value) pairs as written.
    fn events(&mut self, time: u64, cpu: u32, pairs: &[(u32, u64)]);
}

/// A sink that keeps nothing (the pass that finds where threads start and finish).
pub struct Discard;

impl Sink for Discard {
    fn state(&mut self, _: u32, _: u64, _: u64, _: u64) {}
    fn events(&mut self, _: u64, _: u32, _: &[(u32, u64)]) {}
}

/// How many of a column's events are decoded at a time.
const BUF: usize = 32;

/// The next events of one event column, decoded a few at a time (`TimeColumn::read`,
/// `ValueColumn::read`): the column's segments are located once per few events.
#[derive(Debug, Clone)]
struct ColBuf {
    /// The index of `times[0]` in the column.
    base: usize,
    pos: usize,
    len: usize,
    times: [u64; BUF],
    values: [u64; BUF],
}

impl ColBuf {
    fn new(c: &EventColumn, start: usize) -> Self {
        let mut b = ColBuf {
            base: start,
            pos: 0,
            len: 0,
            times: [0; BUF],
            values: [0; BUF],
        };
        b.fill(c);
        b
    }

    /// Decodes the events after those held.
    fn fill(&mut self, c: &EventColumn) {
        self.base += self.len;
        self.pos = 0;
        let n = c.time.read(self.base, &mut self.times);
        let m = c.value.read(self.base, &mut self.values[..n]);
        self.len = n.min(m);
    }

    /// The time of the next event (`u64::MAX` past the last).
    fn next_time(&self) -> u64 {
        if self.pos < self.len {
            self.times[self.pos]
        } else {
            u64::MAX
        }
    }

    fn step(&mut self, c: &EventColumn) {
        self.pos += 1;
        if self.pos >= self.len {
            self.fill(c);
        }
    }
}

/// One thread being cut: the cutter's `ThreadInfo` and the place reached in its records.
#[derive(Debug, Clone)]
pub struct ThreadCut {
    row: usize,
    // Where the thread's records are read next.
    state_next: usize,
    /// Each event column's next events, decoded a few at a time.
    cols: Vec<ColBuf>,
    /// Has the cutter met this thread (`threadsInfo` holds it)?
    pub init: bool,
    /// The time it was met, and the time it finished (`useful_tasks` down by one).
    pub init_at: Option<u64>,
    pub fin_at: Option<u64>,
    last_time: u64,
    last_state_end: u64,
    pub last_cpu: u32,
    finished: bool,
    without_states: bool,
    /// Opened event types, in order (`openedEventTypes`).
    pub opened: Vec<u32>,
    /// Counter types seen with a value > 0 (`HWCTypesInPRV`).
    pub counters_seen: BTreeSet<u32>,
    counters_zeroed: BTreeSet<u32>,
    /// The first and last times written (before any shift).
    pub first: Option<u64>,
    pub last: Option<u64>,
    /// All its records up to the cut's end have been read.
    pub done: bool,
    /// The first state after the cut has been read (the last state that can matter).
    past_end: bool,
    pairs: Vec<(u32, u64)>,
    /// The begin time of the state `state_next`, once read (`None` past the last).
    state_begin: Option<(usize, Option<u64>)>,
}

impl ThreadCut {
    /// A thread about to be cut, its records read from those that may matter: states that
    /// end after `t0`, events from `min(t0, first such state's begin, from)`.
    pub fn new(ctx: &Context<'_>, row: usize, t: &ThreadData, from: u64) -> Self {
        let state_next = t.states.overlapping(ctx.t0, u64::MAX).start;
        let mut start = ctx.t0.min(from);
        if state_next < t.states.len() {
            start = start.min(t.states.begin.get(state_next));
        }
        let cols = t
            .events
            .iter()
            .map(|c| ColBuf::new(c, c.time.lower_bound(start)))
            .collect();
        Self {
            row,
            state_next,
            cols,
            init: false,
            init_at: None,
            fin_at: None,
            last_time: 0,
            last_state_end: 0,
            last_cpu: 0,
            finished: false,
            without_states: false,
            opened: Vec::new(),
            counters_seen: BTreeSet::new(),
            counters_zeroed: BTreeSet::new(),
            first: None,
            last: None,
            done: false,
            past_end: false,
            pairs: Vec::new(),
            state_begin: None,
        }
    }

    /// The begin time of the next state (read once per state, not once per event line).
    fn next_state_begin(&mut self, t: &ThreadData) -> Option<u64> {
        match self.state_begin {
            Some((i, b)) if i == self.state_next => b,
            _ => {
                let i = self.state_next;
                let b = (i < t.states.len()).then(|| t.states.begin.get(i));
                self.state_begin = Some((i, b));
                b
            }
        }
    }

    fn note(&mut self, a: u64, b: u64) {
        self.first = Some(self.first.map_or(a, |f| f.min(a)));
        self.last = Some(self.last.map_or(b, |l| l.max(b)));
    }

    fn meet(&mut self, at: u64) {
        if !self.init {
            self.init = true;
            self.init_at = Some(at);
        }
    }

    /// Reads the thread's records with time below `until` (all of them with `None`),
    /// writing what the cutter writes to `sink`. `first_written` is the first time the
    /// cutter writes over all threads (known once the first pass is done); `stop` where it
    /// stops reading.
    pub fn advance(
        &mut self,
        ctx: &Context<'_>,
        t: &ThreadData,
        until: Option<u64>,
        first_written: Option<u64>,
        stop: Option<Stop>,
        sink: &mut impl Sink,
    ) {
        let horizon = |s: &Self| ctx.t1.max(s.last_state_end);
        loop {
            if self.done {
                return;
            }
            // The next state and the next event time.
            let st = self.next_state_begin(t);
            let ev = self
                .cols
                .iter()
                .map(ColBuf::next_time)
                .min()
                .filter(|&e| e != u64::MAX);
            let states_over = st.is_none_or(|b| b > ctx.t1 && self.past_end);
            let events_over = ev.is_none_or(|e| e > horizon(self));
            if states_over && events_over {
                self.done = true;
                return;
            }
            let time = match (st.filter(|_| !states_over), ev.filter(|_| !events_over)) {
                (Some(s), Some(e)) => s.min(e),
                (Some(s), None) => s,
                (None, Some(e)) => e,
                (None, None) => unreachable!("checked above"),
            };
            if until.is_some_and(|u| time >= u) {
                return;
            }
            if let Some(s) = stop
                && (time > s.time || (time == s.time && self.row != s.row))
            {
                self.done = true;
                return;
            }
            if !states_over && st == Some(time) {
                let i = self.state_next;
                self.state_next += 1;
                let stopping = self.state(ctx, t, i, sink);
                if stopping && stop.is_some_and(|s| s.time == time && s.row == self.row) {
                    self.done = true;
                    return;
                }
                if t.states.begin.get(i) > ctx.t1 {
                    self.past_end = true;
                }
                continue;
            }
            if stop.is_some_and(|s| s.time == time) {
                self.done = true;
                return;
            }
            self.event_line(ctx, t, time, first_written, sink);
        }
    }

    /// A state line (`case '1'`). True when it finishes the thread (the record after which
    /// the cutter may stop reading).
    fn state(&mut self, ctx: &Context<'_>, t: &ThreadData, i: usize, sink: &mut impl Sink) -> bool {
        let o = ctx.opts;
        let (b, e) = (t.states.begin.get(i), t.states.end.get(i));
        let cpu = t.cpu_at(b);
        if e <= ctx.t0 {
            return false;
        }
        if b < ctx.t0 && e > ctx.t1 && (o.remove_first_states || o.remove_last_states) {
            if !self.init {
                self.meet(b);
                self.last_cpu = cpu;
            }
            self.without_states = true;
            return false;
        }
        if b < ctx.t0 && e >= ctx.t0 && o.remove_first_states {
            return false;
        }
        if (b < ctx.t1 && e > ctx.t1 && o.remove_last_states) || (o.original_time && b > ctx.t1) {
            if self.init && !self.finished {
                self.finished = true;
                self.fin_at = Some(b);
                return true;
            }
            return false;
        }
        if !o.original_time && b > ctx.t1 {
            // The cutter stops reading here (found before: `Stop`).
            return false;
        }
        if !self.init {
            self.meet(b);
            self.last_cpu = cpu;
        }
        self.without_states = false;
        self.last_state_end = e;
        if b < ctx.t1 && e > ctx.t1 && !o.remove_last_states && !ctx.break_states && ctx.keep_events
        {
            self.finished = true;
        }
        let (b, e) = if ctx.break_states {
            (b.max(ctx.t0), e.min(ctx.t1))
        } else {
            (b, e)
        };
        self.last_time = e;
        self.note(b, e);
        sink.state(cpu, b, e, t.states.value.get(i));
        false
    }

    /// The events of the thread at `time`, as one line (`case '2'`).
    fn event_line(
        &mut self,
        ctx: &Context<'_>,
        t: &ThreadData,
        time: u64,
        first_written: Option<u64>,
        sink: &mut impl Sink,
    ) {
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.clear();
        for (b, c) in self.cols.iter_mut().zip(&t.events) {
            while b.next_time() == time {
                pairs.push((c.ty, b.values[b.pos]));
                b.step(c);
            }
        }
        self.event_pairs(ctx, t.cpu_at(time), time, first_written, &mut pairs, sink);
        self.pairs = pairs;
    }

    fn event_pairs(
        &mut self,
        ctx: &Context<'_>,
        cpu: u32,
        time: u64,
        first_written: Option<u64>,
        pairs: &mut [(u32, u64)],
        sink: &mut impl Sink,
    ) {
        let o = ctx.opts;
        if self.init && self.finished && time != self.last_state_end {
            // Kept only at the edge of the last state, with `keep_events`.
            if o.remove_last_states
                || ctx.break_states
                || !ctx.keep_events
                || time > self.last_state_end
            {
                return;
            }
        } else if time > ctx.t1 {
            return;
        }
        if self.init && time > self.last_time && time > ctx.t1 && !ctx.keep_events {
            return;
        }
        if !self.init && o.remove_first_states {
            return;
        }
        let keep = time >= ctx.t0
            || (self.init && self.last_time >= ctx.t0 && ctx.keep_events)
            || (first_written.is_some_and(|f| time >= f) && self.init && self.without_states);
        if !keep {
            return;
        }
        self.note(time, time);
        for (ty, value) in pairs.iter_mut() {
            let logic = if *value == ctx.sentinel { 0 } else { *value };
            // `update_queue`: a thread met by its events has no states yet.
            if !self.init {
                self.meet(time);
                self.without_states = true;
            }
            if ctx.untracked.binary_search(ty).is_err() {
                let counter = ctx.counters.binary_search(ty).is_ok();
                if logic > 0 {
                    if counter {
                        self.counters_seen.insert(*ty);
                    } else {
                        self.opened.push(*ty);
                    }
                } else if !counter && let Some(p) = self.opened.iter().rposition(|o| o == ty) {
                    self.opened.remove(p);
                }
            }
            // A counter's first value in the cut counts from before it: written as 0.
            if ctx.counters.binary_search(ty).is_ok() && self.counters_zeroed.insert(*ty) {
                *value = 0;
            }
        }
        sink.events(time, cpu, pairs);
        self.last_time = time;
        self.last_cpu = cpu;
    }

    /// The types the cutter closes with a 0 at the end (`appendLastZerosToUnclosedEvents`):
    /// the opened types, each once, last opened first; then the counters seen.
    pub fn closing(&self) -> (Vec<u32>, Vec<u32>) {
        let mut unique: Vec<u32> = Vec::new();
        for &ty in &self.opened {
            if !unique.contains(&ty) {
                unique.push(ty);
            }
        }
        unique.reverse();
        (unique, self.counters_seen.iter().copied().collect())
    }
}

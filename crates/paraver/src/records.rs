//! Each thread's records in Paraver's order, read from the store's columns: what Paraver's
//! thread iterators walk. A state is two records (begin, end); a communication is eight,
//! four on each side (`LOG`/`PHY` `SEND`/`RECV` on the thread that does it, and the
//! `RSEND`/`RRECV` "remote" records that tell the partner); events are one record per
//! type:value pair.
//!
//! Within one timestamp Paraver orders records by kind (state ends first, state begins last;
//! [`rank`]) and then as they came in the file. The store keeps each event type in its own
//! column, so events of different types at one timestamp are ordered by type here: where a
//! line held them in another order, a function that looks at several types at once may see
//! them in another order than Paraver does (the store says where: `TraceStore::inversions`).
//!
//! Records are never built for the whole trace. A [`Cursor`] reads one thread's records of
//! the kinds asked for ([`Select`]: a state function reads no events) a block of time at a
//! time: each block holds the records of `[t0, t1)` of every column, put in the order the
//! whole thread would have (the column order, then a stable sort by time and kind rank, so
//! that blocks laid end to end are the thread's records sorted at once). Records behind the
//! walk are dropped as it goes: a walk holds one block or two, whatever the thread's length.

use std::cell::RefCell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use prvscope_format::Header;
use prvscope_store::{Comm, ThreadData, TraceStore};

/// Record kinds: Paraver's bits (`utils/traceparser/tracetypes.h`).
pub mod kind {
    pub const BEGIN: u16 = 0x0001;
    pub const END: u16 = 0x0002;
    pub const STATE: u16 = 0x0004;
    pub const EVENT: u16 = 0x0008;
    pub const LOG: u16 = 0x0010;
    pub const PHY: u16 = 0x0020;
    pub const SEND: u16 = 0x0040;
    pub const RECV: u16 = 0x0080;
    pub const COMM: u16 = 0x0100;
    pub const GLOBCOMM: u16 = 0x0200;
    pub const RRECV: u16 = 0x0400;
    pub const RSEND: u16 = 0x0800;
    /// The virtual records before the first and after the last record of a thread.
    pub const EMPTYREC: u16 = STATE + EVENT + COMM;
}

/// One record of a thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rec {
    pub time: u64,
    pub kind: u16,
    /// State value, event type, or (communications) the index of the communication.
    pub a: u64,
    /// Event value (as Paraver reads it: a signed 64-bit integer).
    pub b: i64,
    /// The record's CPU (1-based; 0: none).
    pub cpu: u32,
}

impl Rec {
    pub fn is(&self, bits: u16) -> bool {
        self.kind & bits == bits
    }
}

/// Paraver's order of record kinds at one timestamp (`getTypeOrdered`,
/// `include/plaintypes.h`): state ends, physical receives, logical sends, physical sends,
/// events and logical receives, state begins.
pub fn rank(k: u16) -> u8 {
    use kind::{END, EVENT, GLOBCOMM, LOG, PHY, RECV, SEND, STATE};
    if k & EVENT != 0 {
        6
    } else if k & STATE != 0 {
        if k & END != 0 { 0 } else { 8 }
    } else if k & PHY != 0 {
        if k & RECV != 0 { 1 } else { 5 }
    } else if k & LOG != 0 {
        if k & SEND != 0 { 4 } else { 6 }
    } else if k & GLOBCOMM != 0 {
        7
    } else {
        9
    }
}

/// Records read from the store so far, by every walk of the process (for profiles).
static RECORDS_READ: AtomicU64 = AtomicU64::new(0);

/// How many records walks have read from the store so far, in this process.
pub fn records_read() -> u64 {
    RECORDS_READ.load(Ordering::Relaxed)
}

/// Which records of a thread a walk reads.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Select {
    pub states: bool,
    /// Event types read (`None`: no event).
    pub events: Option<Events>,
    pub comms: bool,
}

/// The event types a walk reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Events {
    All,
    /// These types, sorted.
    Types(Vec<u32>),
}

impl Select {
    /// Every record.
    pub fn all() -> Select {
        Select {
            states: true,
            events: Some(Events::All),
            comms: true,
        }
    }

    fn reads_type(&self, ty: u32) -> bool {
        match &self.events {
            None => false,
            Some(Events::All) => true,
            Some(Events::Types(t)) => t.binary_search(&ty).is_ok(),
        }
    }
}

/// What the records of every thread are read from: the store, each row's communications,
/// and the trace's end as Paraver takes it.
pub struct Source<'s> {
    pub store: &'s TraceStore,
    /// Per row, the communications it takes part in, in table order, each as
    /// `index * 2 + side` (0: the sender's records, 1: the receiver's).
    comm_rows: Vec<Vec<u32>>,
    /// Per row, its communication records in time order (stable: the table's order, then
    /// each side's four records in order), each as `index * 8 + slot` ([`comm_rec`]); made
    /// when a walk first reads the row's communications, shared by every walk after.
    comm_order: Vec<OnceLock<Vec<u64>>>,
    /// Paraver's end: the header's, or the last state or event when later.
    pub end_time: u64,
}

impl<'s> Source<'s> {
    pub fn new(header: &Header, store: &'s TraceStore) -> Source<'s> {
        let n = store.thread_count();
        let mut comm_rows: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, c) in store.comms().iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX / 2);
            if let Some(v) = comm_rows.get_mut(c.send_row as usize) {
                v.push(i * 2);
            }
            if let Some(v) = comm_rows.get_mut(c.recv_row as usize) {
                v.push(i * 2 + 1);
            }
        }
        let end_time = store
            .threads()
            .iter()
            .map(last_state_or_event)
            .fold(header.end_time, u64::max);
        Source {
            store,
            comm_order: (0..n).map(|_| OnceLock::new()).collect(),
            comm_rows,
            end_time,
        }
    }

    pub fn comms(&self) -> &'s [Comm] {
        self.store.comms()
    }

    pub fn thread_count(&self) -> usize {
        self.store.thread_count()
    }

    /// Thread `row`'s communication records in time order (see `comm_order`).
    fn comm_order(&self, row: usize) -> &[u64] {
        let Some(cell) = self.comm_order.get(row) else {
            return &[];
        };
        cell.get_or_init(|| {
            let comms = self.comms();
            let mut v: Vec<(u64, u64)> = Vec::new();
            for &e in self.comm_rows.get(row).map_or(&[][..], Vec::as_slice) {
                let first = if e % 2 == 0 { 0 } else { 4 };
                v.extend((first..first + 4).map(|slot| {
                    let x = u64::from(e / 2) * 8 + slot;
                    (comm_rec(comms, x).time, x)
                }));
            }
            // Stable.
            v.sort_by_key(|p| p.0);
            v.into_iter().map(|p| p.1).collect()
        })
    }

    /// A cursor over the records `select` names of thread `row`, reading about `block`
    /// records of each column at a time.
    pub fn cursor<'c>(&'c self, row: usize, select: &Select, block: usize) -> Cursor<'c> {
        Cursor {
            buf: RefCell::new(Buffer {
                loader: Loader::new(self, row, select, block),
                recs: Vec::new(),
                start: 0,
                base: 0,
                done: false,
            }),
        }
    }
}

/// The time of a thread's last state or event record (0 without any).
fn last_state_or_event(t: &ThreadData) -> u64 {
    let ends = if t.states.ends_sorted {
        t.states.end.last()
    } else {
        t.states.end.iter().max()
    };
    let begins = t.states.begin.last();
    let events = t.events.iter().filter_map(|c| c.time.last()).max();
    [ends, begins, events]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0)
}

/// One thread's records, read a block at a time, addressed by their index in the whole
/// thread. Reads load blocks as needed; [`Cursor::release`] drops the records before an
/// index.
pub struct Cursor<'s> {
    buf: RefCell<Buffer<'s>>,
}

struct Buffer<'s> {
    loader: Loader<'s>,
    recs: Vec<Rec>,
    /// `recs[start..]` are held; `recs[start]` is record number `base`.
    start: usize,
    base: usize,
    done: bool,
}

impl Cursor<'_> {
    /// Record `i`, or `None` past the thread's last (or before what was released).
    #[inline]
    pub fn get(&self, i: usize) -> Option<Rec> {
        let mut b = self.buf.borrow_mut();
        loop {
            let k = i.checked_sub(b.base)?;
            if let Some(r) = b.recs.get(b.start + k) {
                return Some(*r);
            }
            if b.done {
                return None;
            }
            b.load();
        }
    }

    /// Record `i`, which was read before (the virtual empty record if it was not).
    #[inline]
    pub fn rec(&self, i: usize) -> Rec {
        self.get(i).unwrap_or(Rec {
            time: 0,
            kind: kind::EMPTYREC,
            a: 0,
            b: 0,
            cpu: 0,
        })
    }

    /// Drops the records before record `i`.
    pub fn release(&self, i: usize) {
        let mut b = self.buf.borrow_mut();
        let drop = i.saturating_sub(b.base).min(b.recs.len() - b.start);
        b.start += drop;
        b.base += drop;
        // Compact once the dropped part is the larger.
        if b.start > 4096 && b.start * 2 > b.recs.len() {
            let start = b.start;
            b.recs.drain(..start);
            b.start = 0;
        }
    }

    /// How many records are held now.
    pub fn held(&self) -> usize {
        let b = self.buf.borrow();
        b.recs.len() - b.start
    }
}

impl Buffer<'_> {
    fn load(&mut self) {
        if self.start > 0 && self.start * 2 > self.recs.len() {
            self.recs.drain(..self.start);
            self.start = 0;
        }
        if !self.loader.next_block(&mut self.recs) {
            self.done = true;
        }
    }
}

/// Reads one thread's columns block by block.
struct Loader<'s> {
    thread: Option<&'s ThreadData>,
    sentinel: u64,
    block: usize,
    /// Where the next block begins.
    t0: u64,
    states: bool,
    /// The next state whose begin, and whose end, is not read yet.
    begin_at: usize,
    end_at: usize,
    /// Ends of states by (end, state), when the column of ends is not sorted.
    ends_by_time: Option<Vec<(u64, u32)>>,
    /// Event columns read, and the next event of each.
    events: Vec<(usize, usize)>,
    /// The thread's communication records in time order, and the next one.
    comm_order: &'s [u64],
    comms: &'s [Comm],
    comm_at: usize,
    /// Scratch for bulk reads.
    times: Vec<u64>,
    values: Vec<u64>,
    end_times: Vec<u64>,
    end_values: Vec<u64>,
}

impl<'s> Loader<'s> {
    fn new(source: &'s Source<'_>, row: usize, select: &Select, block: usize) -> Loader<'s> {
        let thread = source.store.thread(row);
        let comms = source.comms();
        let states = select.states && thread.is_some_and(|t| !t.states.is_empty());
        let ends_by_time = match thread {
            Some(t) if states && !t.states.ends_sorted => {
                let mut v: Vec<(u64, u32)> = t
                    .states
                    .end
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e, i as u32))
                    .collect();
                v.sort_unstable();
                Some(v)
            }
            _ => None,
        };
        let events = thread
            .map(|t| {
                t.events
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| select.reads_type(c.ty) && !c.is_empty())
                    .map(|(k, _)| (k, 0))
                    .collect()
            })
            .unwrap_or_default();
        let comm_order = if select.comms {
            source.comm_order(row)
        } else {
            &[]
        };
        Loader {
            thread,
            sentinel: source.store.null_policy().sentinel,
            block: block.max(64),
            t0: 0,
            states,
            begin_at: 0,
            end_at: 0,
            ends_by_time,
            events,
            comm_order,
            comms,
            comm_at: 0,
            times: Vec::new(),
            values: Vec::new(),
            end_times: Vec::new(),
            end_values: Vec::new(),
        }
    }

    /// The end of the next block: the earliest time at which some column has `block`
    /// records ahead, after `t0` (`u64::MAX`: the rest of the thread).
    fn block_end(&self) -> u64 {
        let n = self.block;
        let mut t1 = u64::MAX;
        let mut consider = |t: Option<u64>| {
            if let Some(t) = t {
                t1 = t1.min(t);
            }
        };
        if let Some(t) = self.thread {
            if self.states {
                let s = &t.states;
                if self.begin_at + n < s.len() {
                    consider(Some(s.begin.get(self.begin_at + n)));
                }
                match &self.ends_by_time {
                    Some(v) => consider(v.get(self.end_at + n).map(|e| e.0)),
                    None if self.end_at + n < s.len() => {
                        consider(Some(s.end.get(self.end_at + n)));
                    }
                    None => {}
                }
            }
            for &(k, at) in &self.events {
                if let Some(c) = t.events.get(k)
                    && at + n < c.len()
                {
                    consider(Some(c.time.get(at + n)));
                }
            }
        }
        consider(
            self.comm_order
                .get(self.comm_at + n)
                .map(|&x| comm_rec(self.comms, x).time),
        );
        t1.max(self.t0.saturating_add(1))
    }

    /// Appends the records of the next block, in the thread's order; false when the thread
    /// has none left.
    fn next_block(&mut self, out: &mut Vec<Rec>) -> bool {
        if self.t0 == u64::MAX {
            return false;
        }
        let t1 = self.block_end();
        let first = out.len();
        if let Some(t) = self.thread {
            let cpus = Cpus(t);
            if self.states {
                self.push_states(t, t1, out, &cpus);
            }
            self.push_events(t, t1, out, &cpus);
        }
        let comms = self.comms;
        let ahead = &self.comm_order[self.comm_at..];
        let stop = ahead.partition_point(|&x| comm_rec(comms, x).time < t1);
        out.extend(ahead[..stop].iter().map(|&x| comm_rec(comms, x)));
        self.comm_at += stop;
        // Stable: the columns' order stays among records of one time and rank.
        if let Some(block) = out.get_mut(first..)
            && !block.is_sorted_by_key(|r| (r.time, rank(r.kind)))
        {
            block.sort_by_key(|r| (r.time, rank(r.kind)));
        }
        self.t0 = t1;
        RECORDS_READ.fetch_add((out.len() - first) as u64, Ordering::Relaxed);
        out.len() > first || t1 != u64::MAX
    }

    /// The state records of `[t0, t1)`: begins and ends in the order of the states, a
    /// state's begin before its end (the order of a state's two records in the thread).
    fn push_states(&mut self, t: &ThreadData, t1: u64, out: &mut Vec<Rec>, cpus: &Cpus<'_>) {
        use kind::{BEGIN, END, STATE};
        let s = &t.states;
        let begins = self.begin_at..s.begin.lower_bound(t1).max(self.begin_at);
        self.begin_at = begins.end;
        // The states whose end falls in the block, in state order: a range of states when
        // the ends are sorted, else a list.
        let (end_range, end_list) = if let Some(v) = &self.ends_by_time {
            let stop = self.end_at + v[self.end_at..].partition_point(|e| e.0 < t1);
            let mut idx: Vec<u32> = v[self.end_at..stop].iter().map(|e| e.1).collect();
            idx.sort_unstable();
            self.end_at = stop;
            (0..0, idx)
        } else {
            let stop = s.end.lower_bound(t1).max(self.end_at);
            let r = self.end_at..stop;
            self.end_at = stop;
            (r, Vec::new())
        };
        read_all(|i, o| s.begin.read(i, o), begins.clone(), &mut self.times);
        read_all(|i, o| s.value.read(i, o), begins.clone(), &mut self.values);
        read_all(
            |i, o| s.end.read(i, o),
            end_range.clone(),
            &mut self.end_times,
        );
        read_all(
            |i, o| s.value.read(i, o),
            end_range.clone(),
            &mut self.end_values,
        );
        let end_of = |j: usize, times: &[u64], values: &[u64]| -> (u64, u64) {
            match j.checked_sub(end_range.start) {
                Some(k) if j < end_range.end => (times[k], values[k]),
                _ => (s.end.get(j), s.value.get(j)),
            }
        };
        let rec = |time, value, kind, cpu| Rec {
            time,
            kind,
            a: value,
            b: 0,
            cpu,
        };
        // A state's two records carry the CPU of its begin.
        let begin_cpu = |j: usize| cpus.at(|| s.begin.get(j));
        let mut ends = end_range
            .clone()
            .map(|j| j as u32)
            .chain(end_list.iter().copied())
            .peekable();
        for (k, i) in begins.clone().enumerate() {
            while let Some(j) = ends.next_if(|&j| (j as usize) < i) {
                let j = j as usize;
                let (time, value) = end_of(j, &self.end_times, &self.end_values);
                out.push(rec(time, value, STATE + END, begin_cpu(j)));
            }
            let (time, value) = (self.times[k], self.values[k]);
            let cpu = cpus.at(|| time);
            out.push(rec(time, value, STATE + BEGIN, cpu));
            if ends.next_if(|&j| j as usize == i).is_some() {
                let (time, _) = end_of(i, &self.end_times, &self.end_values);
                out.push(rec(time, value, STATE + END, cpu));
            }
        }
        for j in ends {
            let j = j as usize;
            let (time, value) = end_of(j, &self.end_times, &self.end_values);
            out.push(rec(time, value, STATE + END, begin_cpu(j)));
        }
    }

    /// The event records of `[t0, t1)`: each read type's in turn, in the order of its column.
    fn push_events(&mut self, t: &ThreadData, t1: u64, out: &mut Vec<Rec>, cpus: &Cpus<'_>) {
        let sentinel = self.sentinel;
        for (k, at) in &mut self.events {
            let Some(c) = t.events.get(*k) else {
                continue;
            };
            let stop = c.time.lower_bound(t1).max(*at);
            if stop == *at {
                continue;
            }
            read_all(|i, o| c.time.read(i, o), *at..stop, &mut self.times);
            read_all(|i, o| c.value.read(i, o), *at..stop, &mut self.values);
            let ty = u64::from(c.ty);
            for (&time, &value) in self.times.iter().zip(&self.values) {
                out.push(Rec {
                    time,
                    kind: kind::EVENT,
                    a: ty,
                    // Paraver has no null: its parser reads `N` as 0.
                    b: if value == sentinel { 0 } else { value as i64 },
                    cpu: cpus.at(|| time),
                });
            }
            *at = stop;
        }
    }
}

/// The CPU a thread's records name at a time.
struct Cpus<'t>(&'t ThreadData);

impl Cpus<'_> {
    /// The CPU at the time `time` gives (read only when the thread changes CPU).
    #[inline]
    fn at(&self, time: impl FnOnce() -> u64) -> u32 {
        match self.0.cpus.as_slice() {
            [] => 0,
            [one] => one.1,
            _ => self.0.cpu_at(time()),
        }
    }
}

/// Reads `range` of a column with `read` (a column's bulk decoder) into `buf`.
fn read_all(
    read: impl Fn(usize, &mut [u64]) -> usize,
    range: std::ops::Range<usize>,
    buf: &mut Vec<u64>,
) {
    buf.clear();
    buf.resize(range.len(), 0);
    let mut got = 0;
    while got < buf.len() {
        let n = read(range.start + got, &mut buf[got..]);
        if n == 0 {
            break;
        }
        got += n;
    }
}

/// Communication record `x` (`index * 8 + slot`): slots 0-3 are the sender's records
/// (logical and physical send, then the remote logical and physical receive), 4-7 the
/// receiver's (logical and physical receive, remote logical and physical send); each side's
/// records carry that side's CPU.
fn comm_rec(comms: &[Comm], x: u64) -> Rec {
    use kind::{COMM, LOG, PHY, RECV, RRECV, RSEND, SEND};
    let i = x / 8;
    let Some(c) = comms.get(i as usize) else {
        return Rec {
            time: 0,
            kind: kind::EMPTYREC,
            a: i,
            b: 0,
            cpu: 0,
        };
    };
    let (time, kind, cpu) = match x % 8 {
        0 => (c.lsend, COMM + LOG + SEND, c.send_cpu),
        1 => (c.psend, COMM + PHY + SEND, c.send_cpu),
        2 => (c.lrecv, RRECV + LOG, c.send_cpu),
        3 => (c.precv, RRECV + PHY, c.send_cpu),
        4 => (c.lrecv, COMM + LOG + RECV, c.recv_cpu),
        5 => (c.precv, COMM + PHY + RECV, c.recv_cpu),
        6 => (c.lsend, RSEND + LOG, c.recv_cpu),
        _ => (c.psend, RSEND + PHY, c.recv_cpu),
    };
    Rec {
        time,
        kind,
        a: i,
        b: 0,
        cpu,
    }
}

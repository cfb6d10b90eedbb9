//! Thread-level semantic functions (Paraver's `src/semanticthreadfunctions.cpp` and the
//! interval walk of `src/intervalthread.cpp`).
//!
//! A thread window's intervals run from one *valid* record to the next: a record that passes
//! the window's filter and is of the kinds the function looks at (states, events or some
//! communications). The value of an interval is the function evaluated at its first record
//! (which may look ahead, as `Next Evt Val` does, or carry on from the previous value, as the
//! "in transit" functions do). Before the first valid record the thread sits on a virtual
//! record (value 0 for almost every function), and the last interval runs to the end of the
//! thread. Several valid records at one time give zero-length intervals, as in Paraver.

use std::collections::BTreeSet;

use prvscope_store::Comm;

use crate::cfg::Level;
use crate::compose::Scale;
use crate::filter::{Filter, passes};
use crate::objects::Objects;
use crate::records::{
    Cursor, Events, Rec, Select,
    kind::{BEGIN, COMM, END, EVENT, LOG, PHY, RECV, RRECV, RSEND, SEND, STATE},
};
use crate::window::Interval;

mod comm;
use comm::{bandwidth, comm_bytes, transit};

/// Paraver's "idle" state value, given to the gaps between states.
const IDLE: f64 = 0.0;

/// A thread function with its parameters.
#[derive(Debug, Clone)]
pub enum ThreadFn {
    StateAsIs,
    Useful,
    StateSign,
    GivenState(Vec<f64>),
    InState(Vec<f64>),
    NotInState(Vec<f64>),
    StateRecordDuration(Vec<f64>),
    LastEventType,
    LastEventValue,
    NextEventType,
    NextEventValue,
    AverageNextEventValue(f64),
    AverageLastEventValue(f64),
    GivenEventValue(Vec<f64>),
    InEventValue(Vec<f64>),
    NotInEventValue(Vec<f64>),
    InEventRange(f64, f64),
    IntervalBetweenEvents,
    EventBytes,
    EventSentBytes,
    LastTag,
    CommSize,
    CommRecvPartner,
    CommPartner,
    LastSendDuration,
    NextRecvDuration,
    LastSendSize,
    SendBytesInTransit,
    SendMessagesInTransit,
    SendBandWidth(f64),
    RecvBytesInTransit,
    RecvMessagesInTransit,
    RecvBandWidth(f64),
    RecvNegativeMessages,
    RecvNegativeBytes,
    NumberSends,
    NumberSendBytes,
    NumberReceives,
    NumberReceiveBytes,
    ApplicationId,
    TaskId,
    ThreadId,
    /// The node of the record's CPU (1-based; 0 without a CPU).
    NodeId,
    /// The record's CPU (1-based global; 0 without one).
    CpuId,
    /// The 0-based node of the record's CPU when it is one of the listed values, else 0.
    InNodeId(Vec<f64>),
    /// The record's CPU when it is one of the listed values, else 0.
    InCpuId(Vec<f64>),
}

impl ThreadFn {
    /// Does the function's value depend on which of the events at one timestamp comes
    /// last (or first)? Those that read an event's type or value do.
    pub fn reads_event_order(&self) -> bool {
        matches!(
            self,
            ThreadFn::LastEventType
                | ThreadFn::LastEventValue
                | ThreadFn::NextEventType
                | ThreadFn::NextEventValue
                | ThreadFn::AverageNextEventValue(_)
                | ThreadFn::AverageLastEventValue(_)
                | ThreadFn::GivenEventValue(_)
                | ThreadFn::InEventValue(_)
                | ThreadFn::NotInEventValue(_)
                | ThreadFn::InEventRange(..)
        )
    }

    /// The function `name` with the parameters of the cfg (`params[k]` = parameter k's
    /// values); `None` when prvscope does not compute it.
    pub fn new(name: &str, params: &[Vec<f64>]) -> Option<ThreadFn> {
        // Paraver's defaults where the cfg gives no value.
        let list = |k: usize| params.get(k).cloned().unwrap_or_else(|| vec![1.0]);
        let one = |k: usize, default: f64| {
            params
                .get(k)
                .and_then(|v| v.first().copied())
                .unwrap_or(default)
        };
        Some(match name {
            "State As Is" => ThreadFn::StateAsIs,
            "Useful" => ThreadFn::Useful,
            "State Sign" => ThreadFn::StateSign,
            "Given State" => ThreadFn::GivenState(list(0)),
            "In State" => ThreadFn::InState(list(0)),
            "Not In State" => ThreadFn::NotInState(list(0)),
            "State Record Dur." => ThreadFn::StateRecordDuration(list(0)),
            "Last Evt Type" => ThreadFn::LastEventType,
            "Last Evt Val" => ThreadFn::LastEventValue,
            "Next Evt Type" => ThreadFn::NextEventType,
            "Next Evt Val" => ThreadFn::NextEventValue,
            "Avg Next Evt Val" => ThreadFn::AverageNextEventValue(one(0, 1.0)),
            "Avg Last Evt Val" => ThreadFn::AverageLastEventValue(one(0, 1.0)),
            "Given Evt Val" => ThreadFn::GivenEventValue(list(0)),
            "In Evt Val" => ThreadFn::InEventValue(list(0)),
            "Not In Evt Val" => ThreadFn::NotInEventValue(list(0)),
            "In Evt Range" => ThreadFn::InEventRange(one(0, 0.0), one(1, 1.0)),
            "Int. Between Evt" => ThreadFn::IntervalBetweenEvents,
            "Event Bytes" => ThreadFn::EventBytes,
            "Event Sent Bytes" => ThreadFn::EventSentBytes,
            "Last Tag" => ThreadFn::LastTag,
            "Comm Size" => ThreadFn::CommSize,
            "Comm Recv. Partner" => ThreadFn::CommRecvPartner,
            "Comm Partner" => ThreadFn::CommPartner,
            "Last Send Dur." => ThreadFn::LastSendDuration,
            "Next Recv Dur." => ThreadFn::NextRecvDuration,
            "Last Send Size" => ThreadFn::LastSendSize,
            "Send Bytes in Transit" => ThreadFn::SendBytesInTransit,
            "Send Messages in Transit" => ThreadFn::SendMessagesInTransit,
            "Send BandWidth" => ThreadFn::SendBandWidth(one(0, 1.0)),
            "Recv Bytes in Transit" => ThreadFn::RecvBytesInTransit,
            "Recv Messages in Transit" => ThreadFn::RecvMessagesInTransit,
            "Recv BandWidth" => ThreadFn::RecvBandWidth(one(0, 1.0)),
            "Recv Negative Messages" => ThreadFn::RecvNegativeMessages,
            "Recv Negative Bytes" => ThreadFn::RecvNegativeBytes,
            "Number Of Sends" => ThreadFn::NumberSends,
            "Number Of Send Bytes" => ThreadFn::NumberSendBytes,
            "Number Of Receives" => ThreadFn::NumberReceives,
            "Number Of Receive Bytes" => ThreadFn::NumberReceiveBytes,
            "Application ID" => ThreadFn::ApplicationId,
            "TaskID" => ThreadFn::TaskId,
            "Thread ID" => ThreadFn::ThreadId,
            "Node ID" => ThreadFn::NodeId,
            "Cpu ID" => ThreadFn::CpuId,
            "In Node ID" => ThreadFn::InNodeId(params.first().cloned().unwrap_or_default()),
            "In Cpu ID" => ThreadFn::InCpuId(params.first().cloned().unwrap_or_default()),
            _ => return None,
        })
    }

    /// The record kinds the function's intervals start at (`validateMask`; states with
    /// Paraver's default "fill state gaps").
    fn mask(&self) -> u16 {
        use ThreadFn::{
            ApplicationId, CommPartner, CommRecvPartner, CommSize, CpuId, GivenState, InCpuId,
            InNodeId, InState, LastSendDuration, LastSendSize, LastTag, NextRecvDuration, NodeId,
            NotInState, NumberReceiveBytes, NumberReceives, NumberSendBytes, NumberSends,
            RecvBandWidth, RecvBytesInTransit, RecvMessagesInTransit, RecvNegativeBytes,
            RecvNegativeMessages, SendBandWidth, SendBytesInTransit, SendMessagesInTransit,
            StateAsIs, StateRecordDuration, StateSign, TaskId, ThreadId, Useful,
        };
        match self {
            StateAsIs
            | Useful
            | StateSign
            | GivenState(_)
            | InState(_)
            | NotInState(_)
            | StateRecordDuration(_) => STATE,
            LastTag => COMM + PHY + RECV,
            CommSize => COMM,
            CommRecvPartner | NumberReceives | NumberReceiveBytes => COMM + RECV,
            CommPartner | NumberSends | NumberSendBytes => COMM + SEND,
            LastSendDuration | LastSendSize => COMM + LOG + SEND,
            NextRecvDuration => COMM + LOG + RECV,
            SendBytesInTransit | SendMessagesInTransit | SendBandWidth(_) => COMM + SEND + RRECV,
            RecvBytesInTransit
            | RecvMessagesInTransit
            | RecvBandWidth(_)
            | RecvNegativeMessages
            | RecvNegativeBytes => COMM + RECV + RSEND,
            ApplicationId | TaskId | ThreadId | NodeId | CpuId | InNodeId(_) | InCpuId(_) => {
                STATE + EVENT
            }
            _ => EVENT,
        }
    }

    fn is_state(&self) -> bool {
        self.mask() == STATE
    }

    /// The records the function reads on a thread under `filter`: those its intervals
    /// start at and those it looks ahead or back to (an event function reads the events
    /// the filter may let through and, counting bytes, communications; a state function
    /// only states). `present`: the trace's event types.
    pub fn select(&self, filter: &Filter, present: &BTreeSet<u32>) -> Select {
        let mask = self.mask();
        let events = (mask & EVENT != 0).then(|| {
            Events::Types(
                present
                    .iter()
                    .copied()
                    .filter(|&t| filter.type_may_pass(t))
                    .collect(),
            )
        });
        Select {
            states: mask & STATE != 0,
            events,
            comms: mask & (COMM | RSEND | RRECV) != 0
                || matches!(self, ThreadFn::EventBytes | ThreadFn::EventSentBytes),
        }
    }

    /// Does the function count communications (its value depends on them)?
    pub fn uses_comms(&self) -> bool {
        self.mask() & COMM != 0
    }
}

/// `SemanticThread::validRecord` for a record that is not the virtual one.
fn valid_mask(mask: u16, k: u16) -> bool {
    if mask == STATE + EVENT && k & (STATE | EVENT) != 0 {
        return true;
    }
    let mut mask = mask;
    if mask & RSEND != 0 {
        if k & RSEND != 0 {
            return true;
        }
        mask -= RSEND;
    } else if mask & RRECV != 0 {
        if k & RRECV != 0 {
            return true;
        }
        mask -= RRECV;
    }
    mask & k == mask
}

/// What a thread function needs besides its records.
pub struct ThreadCtx<'a> {
    pub recs: Cursor<'a>,
    pub comms: &'a [Comm],
    pub filter: &'a Filter,
    /// Ticks to window units.
    pub scale: Scale,
    /// The objects, and the level communication filters name objects at.
    pub objects: &'a Objects,
    pub object_level: Level,
    /// This thread's row, and its (application, task) as 0-based global indices.
    pub row: usize,
    pub appl: usize,
    pub task: usize,
    pub end: u64,
    /// The node (1-based) of each CPU (global order).
    pub cpu_node: &'a [u32],
}

impl ThreadCtx<'_> {
    pub(crate) fn pass(&self, i: usize) -> bool {
        self.passes(&self.recs.rec(i))
    }

    /// Does record `r` pass the window's filter?
    pub(crate) fn passes(&self, r: &Rec) -> bool {
        passes(
            self.filter,
            r,
            self.comms,
            &|t| self.objects.object_of_thread(self.object_level, t),
            &|t| self.scale.of(t),
        )
    }

    /// Ticks to window units.
    fn units(&self, ticks: f64) -> f64 {
        self.scale.of(ticks)
    }

    fn rec(&self, i: usize) -> Rec {
        self.recs.rec(i)
    }

    /// The next record after `i` that is an event passing the filter (`getNextEvent`).
    fn next_event(&self, i: Option<usize>) -> Option<usize> {
        let mut j = i.map_or(0, |i| i + 1);
        while let Some(r) = self.recs.get(j) {
            if r.kind == EVENT && self.pass(j) {
                return Some(j);
            }
            j += 1;
        }
        None
    }

    /// The first record after `i` for which `f` holds.
    fn find_after(&self, i: usize, f: impl Fn(&Rec) -> bool) -> Option<Rec> {
        let mut j = i + 1;
        while let Some(r) = self.recs.get(j) {
            if f(&r) {
                return Some(r);
            }
            j += 1;
        }
        None
    }

    /// `stateOnSameTime`: a state begins after `i` at `i`'s time.
    fn state_begins_at_same_time(&self, i: usize) -> bool {
        let t = self.rec(i).time;
        let mut j = i + 1;
        while let Some(r) = self.recs.get(j) {
            if r.time != t {
                return false;
            }
            if r.kind == STATE + BEGIN {
                return true;
            }
            j += 1;
        }
        false
    }

    /// `timeToNextState`: time from `i` to the next state begin (0 when none).
    fn time_to_next_state(&self, i: usize) -> f64 {
        let t = self.rec(i).time;
        self.find_after(i, |r| r.kind == STATE + BEGIN)
            .map_or(t as f64, |r| (r.time - t) as f64)
    }

    fn state_end(&self, i: usize) -> u64 {
        // The end record of the state begun at `i`: the next state end of the same value.
        let a = self.rec(i).a;
        self.find_after(i, |e| e.kind == STATE + END && e.a == a)
            .map_or(self.end, |e| e.time)
    }

    /// The node (1-based) of CPU `cpu` (1-based); `None` for CPU 0 or one not in the header.
    fn node_of(&self, cpu: u32) -> Option<u32> {
        self.cpu_node
            .get(usize::try_from(cpu).ok()?.checked_sub(1)?)
            .copied()
    }

    fn comm(&self, i: usize) -> &Comm {
        &self.comms[self.rec(i).a as usize]
    }

    pub(crate) fn valid(&self, f: &ThreadFn, i: usize) -> bool {
        let k = self.rec(i).kind;
        if !valid_mask(f.mask(), k) {
            return false;
        }
        if f.is_state() && k == STATE + END {
            return !self.state_begins_at_same_time(i);
        }
        true
    }
}

/// The intervals of one thread for function `f`, from 0 to the thread's end, plus a last
/// zero-length interval at the end (the value Paraver reaches there), each with the record
/// it begins at (`None`: the virtual record before the first, and the last zero-length
/// interval). Records behind the walk are released as it goes.
pub struct ThreadIntervals<'a> {
    f: &'a ThreadFn,
    ctx: ThreadCtx<'a>,
    /// The next record to look at.
    i: usize,
    /// The record the current interval began at.
    cur: Option<usize>,
    begin: u64,
    prev: f64,
    acc: i64,
    stage: Stage,
    /// Records before this one were released.
    released: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Walk,
    Last,
    Terminal,
    Done,
}

impl<'a> ThreadIntervals<'a> {
    pub fn new(f: &'a ThreadFn, ctx: ThreadCtx<'a>) -> Self {
        ThreadIntervals {
            f,
            ctx,
            i: 0,
            cur: None,
            begin: 0,
            prev: 0.0,
            acc: 0,
            stage: Stage::Walk,
            released: 0,
        }
    }

    /// The next interval, with the CPU of the record it begins at (`None` where it begins at
    /// no record).
    pub fn next_with_cpu(&mut self) -> Option<(Interval, Option<u32>)> {
        let ctx = &self.ctx;
        loop {
            match self.stage {
                Stage::Walk => {
                    let i = self.i;
                    let Some(r) = ctx.recs.get(i) else {
                        self.stage = Stage::Last;
                        continue;
                    };
                    self.i += 1;
                    if !ctx.pass(i) || !ctx.valid(self.f, i) {
                        continue;
                    }
                    let value = execute(self.f, ctx, self.cur, self.prev, &mut self.acc);
                    let began = self.cur.map(|c| ctx.rec(c).cpu);
                    // Paraver's init at time 0 skips the intervals that end there.
                    let out = (r.time > 0).then_some(Interval {
                        begin: self.begin,
                        end: r.time,
                        value,
                    });
                    self.prev = value;
                    self.cur = Some(i);
                    self.begin = r.time;
                    // Keep the records of the current one's time (a walk looks back there).
                    if i >= self.released + 8192 {
                        let mut keep = i;
                        while keep > self.released
                            && ctx.recs.get(keep - 1).is_some_and(|p| p.time == r.time)
                        {
                            keep -= 1;
                        }
                        ctx.recs.release(keep);
                        self.released = keep;
                    }
                    if let Some(out) = out {
                        return Some((out, began));
                    }
                }
                Stage::Last => {
                    let value = execute(self.f, ctx, self.cur, self.prev, &mut self.acc);
                    let began = self.cur.map(|c| ctx.rec(c).cpu);
                    self.stage = Stage::Terminal;
                    return Some((
                        Interval {
                            begin: self.begin,
                            end: ctx.end.max(self.begin),
                            value,
                        },
                        began,
                    ));
                }
                Stage::Terminal => {
                    self.stage = Stage::Done;
                    let at = ctx.end.max(self.begin);
                    return Some((
                        Interval {
                            begin: at,
                            end: at,
                            value: 0.0,
                        },
                        None,
                    ));
                }
                Stage::Done => return None,
            }
        }
    }
}

impl Iterator for ThreadIntervals<'_> {
    type Item = Interval;

    fn next(&mut self) -> Option<Interval> {
        self.next_with_cpu().map(|x| x.0)
    }
}

fn execute(f: &ThreadFn, ctx: &ThreadCtx, at: Option<usize>, prev: f64, acc: &mut i64) -> f64 {
    use ThreadFn::{
        ApplicationId, AverageLastEventValue, AverageNextEventValue, CommPartner, CommRecvPartner,
        CommSize, CpuId, EventBytes, EventSentBytes, GivenEventValue, GivenState, InCpuId,
        InEventRange, InEventValue, InNodeId, InState, IntervalBetweenEvents, LastEventType,
        LastEventValue, LastSendDuration, LastSendSize, LastTag, NextEventType, NextEventValue,
        NextRecvDuration, NodeId, NotInEventValue, NotInState, NumberReceiveBytes, NumberReceives,
        NumberSendBytes, NumberSends, RecvBandWidth, RecvBytesInTransit, RecvMessagesInTransit,
        RecvNegativeBytes, RecvNegativeMessages, SendBandWidth, SendBytesInTransit,
        SendMessagesInTransit, StateAsIs, StateRecordDuration, StateSign, TaskId, ThreadId, Useful,
    };
    let Some(i) = at else {
        return match f {
            ApplicationId => ctx.appl as f64 + 1.0,
            TaskId => ctx.task as f64 + 1.0,
            ThreadId => ctx.row as f64 + 1.0,
            NextEventValue => ctx.next_event(None).map_or(0.0, |j| ctx.rec(j).b as f64),
            NextEventType => ctx.next_event(None).map_or(0.0, |j| ctx.rec(j).a as f64),
            AverageNextEventValue(factor) => match ctx.next_event(None) {
                Some(j) if ctx.rec(j).time > 0 => {
                    ctx.rec(j).b as f64 * factor / ctx.units(ctx.rec(j).time as f64)
                }
                _ => 0.0,
            },
            _ => 0.0,
        };
    };
    let r = &ctx.rec(i);
    let end_rec = r.kind & END != 0;
    let state = r.a as f64;
    match f {
        StateAsIs => {
            if end_rec {
                IDLE
            } else {
                state
            }
        }
        Useful => {
            if end_rec {
                IDLE
            } else if r.a == 1 {
                1.0
            } else {
                0.0
            }
        }
        StateSign => {
            if end_rec {
                IDLE
            } else if r.a != 0 {
                1.0
            } else {
                0.0
            }
        }
        GivenState(v) => {
            if end_rec {
                IDLE
            } else if v.contains(&state) {
                state
            } else {
                0.0
            }
        }
        InState(v) => {
            let hit = v
                .iter()
                .any(|&p| if end_rec { p == 0.0 } else { p == state });
            if hit { 1.0 } else { 0.0 }
        }
        NotInState(v) => {
            let hit = v
                .iter()
                .any(|&p| if end_rec { p == 0.0 } else { p == state });
            if hit { 0.0 } else { 1.0 }
        }
        StateRecordDuration(v) => {
            let mut t = 0.0;
            for &p in v {
                if end_rec && p == 0.0 {
                    t = ctx.time_to_next_state(i);
                    break;
                }
                if !end_rec && p == state {
                    t = (ctx.state_end(i) - r.time) as f64;
                    break;
                }
            }
            ctx.units(t)
        }
        LastEventType => r.a as f64,
        LastEventValue => r.b as f64,
        NextEventType => ctx.next_event(Some(i)).map_or(0.0, |j| ctx.rec(j).a as f64),
        NextEventValue => ctx.next_event(Some(i)).map_or(0.0, |j| ctx.rec(j).b as f64),
        AverageNextEventValue(factor) | AverageLastEventValue(factor) => {
            let Some(j) = ctx.next_event(Some(i)) else {
                return 0.0;
            };
            let dt = ctx.rec(j).time - r.time;
            if dt == 0 {
                return 0.0;
            }
            let v = if matches!(f, AverageNextEventValue(_)) {
                ctx.rec(j).b
            } else {
                r.b
            };
            v as f64 * factor / ctx.units(dt as f64)
        }
        GivenEventValue(v) => {
            if v.contains(&(r.b as f64)) {
                r.b as f64
            } else {
                0.0
            }
        }
        InEventValue(v) => f64::from(u8::from(v.contains(&(r.b as f64)))),
        NotInEventValue(v) => f64::from(u8::from(!v.contains(&(r.b as f64)))),
        InEventRange(lo, hi) => f64::from(u8::from(r.b as f64 >= *lo && r.b as f64 <= *hi)),
        IntervalBetweenEvents => ctx
            .next_event(Some(i))
            .map_or(0.0, |j| ctx.units((ctx.rec(j).time - r.time) as f64)),
        EventBytes | EventSentBytes => match ctx.next_event(Some(i)) {
            None => 0.0,
            Some(j) => comm_bytes(ctx, i, j, matches!(f, EventSentBytes)),
        },
        LastTag => ctx.comm(i).tag as f64,
        CommSize | LastSendSize => {
            if r.kind & COMM == 0 {
                0.0
            } else {
                ctx.comm(i).size as i64 as f64
            }
        }
        CommPartner => f64::from(ctx.comm(i).recv_row) + 1.0,
        CommRecvPartner => {
            let next = ctx.find_after(i, |n| {
                if n.kind & COMM == 0 || n.kind & RECV == 0 {
                    return false;
                }
                let c = &ctx.comms[n.a as usize];
                (n.kind & LOG != 0 && c.lrecv >= c.precv)
                    || (n.kind & PHY != 0 && c.precv > c.lrecv)
            });
            next.map_or(0.0, |n| f64::from(ctx.comms[n.a as usize].send_row) + 1.0)
        }
        LastSendDuration => {
            let c = ctx.comm(i);
            ctx.units(c.lrecv.max(c.precv) as f64 - r.time as f64)
        }
        NextRecvDuration => {
            let next = ctx.find_after(i, |n| n.kind & COMM != 0 && n.kind & RECV != 0);
            next.map_or(0.0, |n| {
                ctx.units(ctx.comms[n.a as usize].lsend as f64 - r.time as f64)
            })
        }
        SendBytesInTransit
        | SendMessagesInTransit
        | RecvBytesInTransit
        | RecvMessagesInTransit
        | RecvNegativeMessages
        | RecvNegativeBytes => transit(f, ctx, r, prev),
        SendBandWidth(factor) | RecvBandWidth(factor) => bandwidth(f, ctx, r, acc, *factor),
        NumberSends | NumberSendBytes | NumberReceives | NumberReceiveBytes => {
            let c = ctx.comm(i);
            let (k, fl) = (r.kind, ctx.filter);
            let counts = if matches!(f, NumberSends | NumberSendBytes) {
                (fl.physical && k & PHY != 0 && k & SEND != 0)
                    || (fl.logical && k & LOG != 0 && k & SEND != 0)
            } else {
                (fl.physical && k & PHY != 0 && k & RECV != 0)
                    || (fl.logical
                        && ((k & LOG != 0 && k & RECV != 0 && c.lrecv > c.precv)
                            || (k & PHY != 0 && k & RECV != 0 && c.precv >= c.lrecv)))
            };
            let amount = if matches!(f, NumberSends | NumberReceives) {
                1.0
            } else {
                c.size as i64 as f64
            };
            if counts { prev + amount } else { prev }
        }
        ApplicationId => ctx.appl as f64 + 1.0,
        TaskId => ctx.task as f64 + 1.0,
        ThreadId => ctx.row as f64 + 1.0,
        // Paraver's `NodeID`, `CPUID`, `InNodeID`, `InCPUID` on the record's CPU.
        NodeId => ctx.node_of(r.cpu).map_or(0.0, f64::from),
        CpuId => f64::from(r.cpu),
        InNodeId(list) => {
            // `getCPULocation` of CPU 0 is node 0.
            let node = ctx.node_of(r.cpu).map_or(0.0, |n| f64::from(n - 1));
            if list.contains(&node) { node } else { 0.0 }
        }
        InCpuId(list) => {
            let cpu = f64::from(r.cpu);
            if list.contains(&cpu) { cpu } else { 0.0 }
        }
    }
}

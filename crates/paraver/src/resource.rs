//! Windows at the levels of the resource model: CPUs, nodes and the system (Paraver's
//! `src/intervalcpu.cpp` and `src/semanticcpufunctions.cpp`).
//!
//! A CPU's records are those of every thread whose records name that CPU, in time order
//! (equal times in thread order, then in each thread's order: Paraver's stable sort of the
//! CPU lists in `VectorBlocks::setFileLoaded`). A CPU interval runs from one of them to the
//! next one that is valid for the thread function or belongs to another thread (passing over
//! communication records); its value is the CPU function of the value the record's thread
//! has there, counted only when the thread's own interval began on this CPU. Nodes add up
//! their CPUs, and the system its nodes, with the window's node and system functions.
//!
//! A CPU is walked by merging, by time, the records that name it of the threads that ever
//! run there (each thread's records read a block at a time), beside each such thread's own
//! intervals.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::cfg::WindowCfg;
use crate::compose::{ComposeFn, ComposeStep};
use crate::records::Select;
use crate::records::kind::{COMM, RRECV, RSEND};
use crate::thread::{ThreadCtx, ThreadIntervals};
use crate::window::{Engine, Interval, ThreadPart, WindowError};

/// A CPU function: what a CPU shows of the value of the thread running on it.
#[derive(Debug, Clone)]
pub(crate) enum CpuFn {
    /// `Active Thd`: the value.
    Value,
    /// `Active Thd Sign`: 1 where not 0.
    Sign,
    /// `Active Thd Val`: the value when listed, else 0.
    Values(Vec<f64>),
    /// `Active Thd Val Sign`: 1 when the value is listed.
    ValuesSign(Vec<f64>),
}

impl CpuFn {
    pub(crate) fn new(name: &str, params: &[Vec<f64>]) -> Option<CpuFn> {
        let list = || params.first().cloned().unwrap_or_default();
        Some(match name {
            "Active Thd" => CpuFn::Value,
            "Active Thd Sign" => CpuFn::Sign,
            "Active Thd Val" => CpuFn::Values(list()),
            "Active Thd Val Sign" => CpuFn::ValuesSign(list()),
            _ => return None,
        })
    }

    fn execute(&self, v: f64) -> f64 {
        match self {
            CpuFn::Value => v,
            CpuFn::Sign => f64::from(u8::from(v != 0.0)),
            CpuFn::Values(list) => {
                if list.contains(&v) {
                    v
                } else {
                    0.0
                }
            }
            CpuFn::ValuesSign(list) => f64::from(u8::from(list.contains(&v))),
        }
    }
}

/// The CPU part of a window: its CPU function and the compose function after it, and the
/// threads whose records name each CPU.
pub(crate) struct CpuPart {
    f: CpuFn,
    pub(crate) compose: ComposeFn,
    /// Per CPU (0-based), the thread rows with a record on it, in row order.
    visitors: Vec<Vec<usize>>,
}

impl CpuPart {
    pub(crate) fn new(
        engine: &Engine<'_>,
        w: &WindowCfg,
        thread: &ThreadPart,
    ) -> Result<CpuPart, WindowError> {
        let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
        if matches!(thread.compose, ComposeFn::JoinBursts) {
            return Err(unsupported(format!(
                "compose_thread function `{}` at the {} level",
                w.function("compose_thread").unwrap_or("As Is"),
                w.level
            )));
        }
        let name = w.function("cpu").unwrap_or("Active Thd");
        let params = w.params_of("cpu", name).unwrap_or(&[]);
        let f = CpuFn::new(name, params)
            .ok_or_else(|| unsupported(format!("cpu function `{name}`")))?;
        let n_cpus = engine.objects.cpu_node.len();
        let mut visitors: Vec<Vec<usize>> = vec![Vec::new(); n_cpus];
        let mut mark = |cpu: u32, row: usize| {
            if let Some(v) = (cpu as usize)
                .checked_sub(1)
                .and_then(|c| visitors.get_mut(c))
                && v.last() != Some(&row)
            {
                v.push(row);
            }
        };
        let store = engine.source.store;
        for (row, t) in store.threads().iter().enumerate() {
            for &(_, cpu) in &t.cpus {
                mark(cpu, row);
            }
        }
        for c in engine.comms() {
            mark(c.send_cpu, c.send_row as usize);
            mark(c.recv_cpu, c.recv_row as usize);
        }
        for v in &mut visitors {
            v.sort_unstable();
            v.dedup();
        }
        Ok(CpuPart {
            f,
            compose: engine.compose(w, "compose_cpu")?,
            visitors,
        })
    }

    /// The intervals of CPU `k` (0-based).
    pub(crate) fn walk<'w>(
        &'w self,
        engine: &'w Engine<'w>,
        thread: &'w ThreadPart,
        k: usize,
        block: usize,
    ) -> CpuWalk<'w> {
        let rows = self.visitors.get(k).map_or(&[][..], Vec::as_slice);
        let share = (block / (2 * rows.len().max(1))).max(256);
        // A CPU interval ends at a record valid for the thread function or at another
        // thread's record: with one thread on the CPU, only the records the function reads
        // can end one.
        let all = Select::all();
        let select = if rows.len() == 1 {
            &thread.select
        } else {
            &all
        };
        let threads = rows
            .iter()
            .map(|&row| Visitor {
                records: engine.thread_ctx(thread, row, select, share),
                at: 0,
                walk: ThreadIntervals::new(
                    &thread.f,
                    engine.thread_ctx(thread, row, &thread.select, share),
                ),
                compose: ComposeStep::new(thread.compose.clone()),
                iv: None,
                next_iv: None,
            })
            .collect();
        let mut w = CpuWalk {
            cpu: k as u32 + 1,
            f: &self.f,
            part: thread,
            end: engine.end_time(),
            threads,
            heap: BinaryHeap::new(),
            state: WalkState::Start,
            b_time: 0,
            b_thread: 0,
        };
        for v in 0..w.threads.len() {
            w.push_next(v);
        }
        w
    }
}

/// A thread that runs on the CPU walked: its records (all of them, to find those on the
/// CPU and to judge each as the thread function does) and its own intervals.
struct Visitor<'w> {
    records: ThreadCtx<'w>,
    /// The next record of the thread to look at.
    at: usize,
    walk: ThreadIntervals<'w>,
    compose: ComposeStep,
    /// The thread's interval reached, with the CPU of the record it began at, and the one
    /// after it.
    iv: Option<(Interval, Option<u32>)>,
    next_iv: Option<(Interval, Option<u32>)>,
}

impl Visitor<'_> {
    fn pull(&mut self) -> Option<(Interval, Option<u32>)> {
        let (mut iv, cpu) = self.walk.next_with_cpu()?;
        iv.value = self.compose.value(&iv);
        Some((iv, cpu))
    }

    /// The thread's value at `time` on CPU `cpu`: its interval reached at `time` (passing
    /// those that end there), when it began on this CPU.
    fn value_at(&mut self, time: u64, end: u64, cpu: u32) -> f64 {
        if self.iv.is_none() {
            self.iv = self.pull();
            self.next_iv = self.pull();
        }
        while let (Some((cur, _)), Some(_)) = (&self.iv, &self.next_iv) {
            if !(cur.end <= time && cur.begin < end) {
                break;
            }
            self.iv = self.next_iv.take();
            self.next_iv = self.pull();
        }
        match self.iv {
            Some((iv, Some(c))) if c == cpu => iv.value,
            _ => 0.0,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WalkState {
    Start,
    Walk,
    Terminal,
    Done,
}

/// The intervals of one CPU.
pub(crate) struct CpuWalk<'w> {
    cpu: u32,
    f: &'w CpuFn,
    part: &'w ThreadPart,
    end: u64,
    threads: Vec<Visitor<'w>>,
    /// The next record on the CPU of each thread: (time, thread, record index).
    heap: BinaryHeap<Reverse<(u64, usize, usize)>>,
    state: WalkState,
    /// Where the current interval begins, and the thread of its record.
    b_time: u64,
    b_thread: usize,
}

impl CpuWalk<'_> {
    /// Queues thread `v`'s next record on the CPU.
    fn push_next(&mut self, v: usize) {
        let t = &mut self.threads[v];
        while let Some(r) = t.records.recs.get(t.at) {
            let i = t.at;
            t.at += 1;
            if t.at.is_multiple_of(4096) {
                t.records.recs.release(i.saturating_sub(64));
            }
            if r.cpu == self.cpu {
                self.heap.push(Reverse((r.time, v, i)));
                return;
            }
        }
    }

    /// The next record on the CPU that is valid for the thread function, or another
    /// thread's (communication records do not end the interval): (time, thread).
    fn next_record(&mut self) -> Option<(u64, usize)> {
        while let Some(Reverse((time, v, i))) = self.heap.pop() {
            self.push_next(v);
            let ctx = &self.threads[v].records;
            let r = ctx.recs.rec(i);
            if (ctx.pass(i) && ctx.valid(&self.part.f, i))
                || (r.kind & (RSEND | RRECV | COMM) == 0 && v != self.b_thread)
            {
                return Some((time, v));
            }
        }
        None
    }
}

impl Iterator for CpuWalk<'_> {
    type Item = Interval;

    fn next(&mut self) -> Option<Interval> {
        let terminal = |at: u64| Interval {
            begin: at,
            end: at,
            value: 0.0,
        };
        loop {
            match self.state {
                WalkState::Start => {
                    // The virtual first record: time 0, the thread of the first real one.
                    match self.heap.peek() {
                        None => {
                            self.state = WalkState::Terminal;
                            self.b_time = self.end;
                            return Some(Interval {
                                begin: 0,
                                end: self.end,
                                value: self.f.execute(0.0),
                            });
                        }
                        Some(Reverse((_, v, _))) => {
                            self.b_thread = *v;
                            self.b_time = 0;
                            self.state = WalkState::Walk;
                        }
                    }
                }
                WalkState::Walk => {
                    let (b_time, cpu, end) = (self.b_time, self.cpu, self.end);
                    let value = self.threads[self.b_thread].value_at(b_time, end, cpu);
                    let value = self.f.execute(value);
                    let next = self.next_record();
                    let e_time = next.map_or(end, |n| n.0);
                    match next {
                        Some((t, v)) => (self.b_time, self.b_thread) = (t, v),
                        None => self.state = WalkState::Terminal,
                    }
                    // Paraver's init at time 0 skips the intervals that end there.
                    if e_time > 0 {
                        return Some(Interval {
                            begin: b_time,
                            end: e_time.max(b_time),
                            value,
                        });
                    }
                }
                WalkState::Terminal => {
                    self.state = WalkState::Done;
                    return Some(terminal(self.end.max(self.b_time)));
                }
                WalkState::Done => return None,
            }
        }
    }
}

impl std::fmt::Debug for CpuPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuPart({:?})", self.f)
    }
}

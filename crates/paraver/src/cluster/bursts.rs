//! CPU bursts, as BSC's Clustering Suite and pypop's "useful" computation define them: a
//! thread's time in the Running state (Paraver's state 1, the `Useful` thread function),
//! outside MPI calls and outside the OpenMP and task runtimes' states, each burst a maximal
//! run of Running time (records that follow each other with no gap are one burst).
//!
//! A burst's counter is the counter's increase over the burst, read as pypop reads useful
//! instructions: Paraver's `Next Evt Val` of the counter's type times `Useful`, summed over
//! the burst's intervals. Extrae writes each counter's increase since its last reading at
//! the points it reads them (a burst's end: the entry to the next MPI call or runtime
//! state), so the event that closes a burst gives that burst's count; for a trace whose tool
//! writes counters at other points (ovni's and nOS-V's at task and thread state changes),
//! the same definition gives the increases written within the burst and at its end.
//!
//! Everything is computed by this crate's window engine over the store, the windows of
//! pypop's cfgs (`total_useful_computation.cfg`, `useful_instructions.cfg`): the bursts of a
//! thread add up to the useful time paramedir computes.

use prvscope_store::Trace;

use crate::cfg::Cfg;
use crate::filter::TypesFound;
use crate::paramedir::Context;
use crate::pop;

/// One computation burst of a thread.
#[derive(Debug, Clone, PartialEq)]
pub struct Burst {
    /// The thread's row (0-based, the trace's thread order).
    pub thread: u32,
    /// Ticks, `[begin, end)`.
    pub begin: u64,
    pub end: u64,
    /// Each asked counter's increase over the burst (as [`Bursts::counters`] lists them).
    pub counters: Vec<f64>,
}

impl Burst {
    pub fn duration(&self) -> u64 {
        self.end - self.begin
    }
}

/// The bursts of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Bursts {
    /// In thread order, then time order.
    pub list: Vec<Burst>,
    /// The counters each burst carries (event types), those asked that the trace has.
    pub counters: Vec<u32>,
    /// Counters asked that the trace does not have.
    pub missing: Vec<u32>,
    /// Bursts shorter than the minimum duration, left out, and their time (ticks).
    pub filtered: (u64, u64),
    /// Of a part of a trace loaded (`--from`, `--to`): the bursts that cross its edges, left
    /// out, and their time as loaded (ticks). Their records are only partly loaded: the
    /// counters written before the part's start or after its end are missing, and a burst
    /// met at the start may have begun earlier.
    pub cut: (u64, u64),
    /// Nanoseconds per tick.
    pub ns_per_tick: f64,
    /// The threads whose sequences of clusters are compared (the SPMD score): each
    /// process's first thread (the one that makes its MPI calls) when there are several
    /// processes, else the threads of the one process.
    pub sequence_rows: Vec<u32>,
    /// The trace's instructions and cycles types ([`super::ipc_types`]), for IPC.
    pub ipc_types: (u32, u32),
    /// Where the bursts come from: `Running state` (Paraver's state records) or the ovni
    /// thread-state and subsystem events ([`super::ovni`]).
    pub source: &'static str,
}

impl Bursts {
    /// What was left out at the edges of a part of the trace, if anything: said wherever
    /// the bursts are.
    pub fn cut_note(&self) -> Option<String> {
        (self.cut.0 > 0).then(|| {
            format!(
                "{} bursts crossing the loaded part's edges left out ({:.3} s as loaded: their \
                 records are only partly loaded)",
                self.cut.0,
                self.cut.1 as f64 * self.ns_per_tick / 1e9
            )
        })
    }
}

/// The bursts of `trace` of at least `min_duration` ticks, with the increase of each of
/// `counters` (event types) over each.
pub fn bursts(trace: &Trace, counters: &[u32], min_duration: u64) -> Result<Bursts, String> {
    if trace.store.counts().states == 0
        && let Some(signals) = trace.pcf.as_ref().and_then(super::ovni::signals)
    {
        return Ok(ovni_bursts(trace, &signals, counters, min_duration));
    }
    let ctx = Context::new(trace);
    let engine = ctx.engine();
    let present = trace.store.event_types();
    let (have, missing): (Vec<u32>, Vec<u32>) =
        counters.iter().partition(|ty| present.contains(ty));
    let window = |text: &str, index: usize| -> Result<crate::window::Window<'_>, String> {
        let cfg = Cfg::parse("bursts", text).map_err(|e| e.to_string())?;
        let mut found = TypesFound::default();
        engine
            .window(&cfg, &cfg.windows[index], &mut found)
            .map_err(|e| format!("{e:?}"))
    };
    let useful = window(&pop::useful_cfg(), 0)?;
    let counter_windows = have
        .iter()
        .map(|&ty| window(&pop::counter_cfg(ty), 2))
        .collect::<Result<Vec<_>, _>>()?;
    use rayon::prelude::*;
    let per_thread: Vec<(Vec<Burst>, (u64, u64))> = (0..useful.rows())
        .into_par_iter()
        .map(|row| {
            // Maximal runs of Running time.
            let mut runs: Vec<(u64, u64)> = Vec::new();
            for i in useful.row(row) {
                if i.end <= i.begin || i.value == 0.0 {
                    continue;
                }
                match runs.last_mut() {
                    Some(last) if last.1 == i.begin => last.1 = i.end,
                    _ => runs.push((i.begin, i.end)),
                }
            }
            let mut list: Vec<Burst> = runs
                .iter()
                .map(|&(begin, end)| Burst {
                    thread: row as u32,
                    begin,
                    end,
                    counters: vec![0.0; counter_windows.len()],
                })
                .collect();
            for (k, w) in counter_windows.iter().enumerate() {
                let mut at = 0;
                for i in w.row(row) {
                    if i.end <= i.begin || i.value == 0.0 {
                        continue;
                    }
                    while at < list.len() && list[at].end <= i.begin {
                        at += 1;
                    }
                    if let Some(b) = list.get_mut(at)
                        && b.begin <= i.begin
                    {
                        b.counters[k] += i.value;
                    }
                }
            }
            let before = list.len();
            let short: u64 = list
                .iter()
                .filter(|b| b.duration() < min_duration)
                .map(Burst::duration)
                .sum();
            list.retain(|b| b.duration() >= min_duration);
            let left_out = (before - list.len()) as u64;
            (list, (left_out, short))
        })
        .collect();
    Ok(assemble(
        trace,
        per_thread,
        (have, missing),
        "Running state",
    ))
}

/// The bursts of a trace whose thread states are events ([`super::ovni`]).
fn ovni_bursts(
    trace: &Trace,
    signals: &super::ovni::Signals,
    counters: &[u32],
    min_duration: u64,
) -> Bursts {
    use rayon::prelude::*;
    let present = trace.store.event_types();
    let (have, missing): (Vec<u32>, Vec<u32>) =
        counters.iter().partition(|ty| present.contains(ty));
    let rows = trace.store.thread_count();
    let per_thread: Vec<(Vec<Burst>, (u64, u64))> = (0..rows)
        .into_par_iter()
        .map(|row| {
            let runs = super::ovni::computing(trace, row, signals);
            let sums: Vec<Vec<f64>> = have
                .iter()
                .map(|&ty| super::ovni::counter_sums(trace, row, ty, &runs))
                .collect();
            let mut list = Vec::new();
            let (mut n, mut short) = (0, 0);
            for (k, &(begin, end)) in runs.iter().enumerate() {
                if end - begin < min_duration {
                    n += 1;
                    short += end - begin;
                    continue;
                }
                list.push(Burst {
                    thread: row as u32,
                    begin,
                    end,
                    counters: sums.iter().map(|s| s[k]).collect(),
                });
            }
            (list, (n, short))
        })
        .collect();
    assemble(
        trace,
        per_thread,
        (have, missing),
        "ovni thread state and runtime subsystem events",
    )
}

/// The bursts of every thread (and those left out, their time), in one list.
fn assemble(
    trace: &Trace,
    per_thread: Vec<(Vec<Burst>, (u64, u64))>,
    (counters, missing): (Vec<u32>, Vec<u32>),
    source: &'static str,
) -> Bursts {
    let objects = prvscope_format::model::Objects::new(&trace.header, trace.row.as_ref());
    let rows = trace.store.thread_count() as u32;
    let mut out = Bursts {
        list: Vec::new(),
        counters,
        missing,
        filtered: (0, 0),
        cut: (0, 0),
        ns_per_tick: trace.header.time_unit.ns_per_tick() as f64,
        sequence_rows: if objects.tasks.len() > 1 {
            objects
                .tasks
                .iter()
                .map(|(_, _, rows)| rows.start as u32)
                .collect()
        } else {
            (0..rows).collect()
        },
        ipc_types: super::ipc_types(trace),
        source,
    };
    let part = trace.part.as_ref().map(|p| &p.subset);
    let from = part.and_then(|s| s.from).filter(|&f| f > 0);
    let to = part.and_then(|s| s.to);
    let crosses = |b: &Burst| from.is_some_and(|f| b.begin <= f) || to.is_some_and(|t| b.end >= t);
    for (list, (n, t)) in per_thread {
        for b in list {
            if crosses(&b) {
                out.cut.0 += 1;
                out.cut.1 += b.duration();
            } else {
                out.list.push(b);
            }
        }
        out.filtered.0 += n;
        out.filtered.1 += t;
    }
    out
}

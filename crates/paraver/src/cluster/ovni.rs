//! Bursts of traces whose thread states are events (ovni's emulator, for Nanos6, nOS-V,
//! TAMPI...), which have no Paraver state records: a thread computes while its `Thread:
//! thread state` event is at `Running` and every runtime's `... subsystem of the ACTIVE
//! thread` event is at 0 (outside the runtime) or at a task body (a value labelled `Task:`
//! ... `body`: Nanos6's `Task: Running body`, nOS-V's `Task: In body`). A burst is a maximal
//! run of such time, closed at the thread's last event.
//!
//! A burst's counter (ovni writes hardware counters, e.g. `PAPI_TOT_INS`, as increases at
//! the points it reads them) is the sum of the counter's values written after the burst's
//! start and up to its end, as Paraver's `Next Evt Val` attributes them.

use prvscope_format::Pcf;
use prvscope_store::Trace;

/// The event types that say when an ovni thread computes.
#[derive(Debug, Clone, PartialEq)]
pub struct Signals {
    /// `Thread: thread state`, and its `Running` value.
    pub state: (u32, u64),
    /// Each runtime's subsystem type, and its values that are task bodies.
    pub subsystems: Vec<(u32, Vec<u64>)>,
}

/// The signals of `pcf`, when it describes ovni's thread states.
pub fn signals(pcf: &Pcf) -> Option<Signals> {
    let label = |ty: &prvscope_format::pcf::EventTypeInfo| ty.label.trim().to_owned();
    let (&state_ty, info) = pcf
        .event_types
        .iter()
        .find(|(_, t)| label(t).eq_ignore_ascii_case("Thread: thread state"))?;
    let running = info
        .values
        .iter()
        .find(|(_, l)| l.trim().eq_ignore_ascii_case("Running"))
        .map(|(&v, _)| v)?;
    let subsystems = pcf
        .event_types
        .iter()
        .filter(|(_, t)| label(t).ends_with("subsystem of the ACTIVE thread"))
        .map(|(&ty, t)| {
            let bodies = t
                .values
                .iter()
                .filter(|(_, l)| {
                    let l = l.trim();
                    l.starts_with("Task:") && l.to_ascii_lowercase().contains("body")
                })
                .map(|(&v, _)| v)
                .collect();
            (ty, bodies)
        })
        .collect();
    Some(Signals {
        state: (state_ty, running),
        subsystems,
    })
}

/// The computing intervals of thread `row` (time order, maximal).
pub fn computing(trace: &Trace, row: usize, s: &Signals) -> Vec<(u64, u64)> {
    let Some(t) = trace.store.threads().get(row) else {
        return Vec::new();
    };
    // Every change of the signals, in time order (a type's changes keep their order).
    let mut changes: Vec<(u64, usize, u64)> = Vec::new();
    let watched: Vec<u32> = std::iter::once(s.state.0)
        .chain(s.subsystems.iter().map(|x| x.0))
        .collect();
    let mut last_time = 0;
    for col in &t.events {
        for (time, _) in col.time.iter().zip(col.value.iter()) {
            last_time = last_time.max(time);
        }
        let Some(k) = watched.iter().position(|&w| w == col.ty) else {
            continue;
        };
        changes.extend(
            col.time
                .iter()
                .zip(col.value.iter())
                .map(|(tm, v)| (tm, k, v)),
        );
    }
    changes.sort_by_key(|&(tm, k, _)| (tm, k));
    let mut current = vec![0u64; watched.len()];
    let ok = |cur: &[u64]| {
        cur[0] == s.state.1
            && s.subsystems
                .iter()
                .zip(&cur[1..])
                .all(|((_, bodies), &v)| v == 0 || bodies.contains(&v))
    };
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut open: Option<u64> = None;
    let mut i = 0;
    while i < changes.len() {
        let tm = changes[i].0;
        // Every change at one time, then the state after them.
        while i < changes.len() && changes[i].0 == tm {
            current[changes[i].1] = changes[i].2;
            i += 1;
        }
        match (open, ok(&current)) {
            (None, true) => open = Some(tm),
            (Some(b), false) => {
                if tm > b {
                    out.push((b, tm));
                }
                open = None;
            }
            _ => {}
        }
    }
    if let Some(b) = open
        && last_time > b
    {
        out.push((b, last_time));
    }
    out
}

/// The sum of `ty`'s values written in `(begin, end]` on thread `row`, per interval of
/// `intervals` (time order, not overlapping).
pub fn counter_sums(trace: &Trace, row: usize, ty: u32, intervals: &[(u64, u64)]) -> Vec<f64> {
    let mut out = vec![0.0; intervals.len()];
    let Some(col) = trace
        .store
        .threads()
        .get(row)
        .and_then(|t| t.events.iter().find(|c| c.ty == ty))
    else {
        return out;
    };
    let sentinel = trace.store.null_policy().sentinel;
    let mut at = 0;
    for (tm, v) in col.time.iter().zip(col.value.iter()) {
        while at < intervals.len() && intervals[at].1 < tm {
            at += 1;
        }
        if let Some(&(b, _)) = intervals.get(at)
            && tm > b
            && v != sentinel
        {
            out[at] += v as f64;
        }
    }
    out
}

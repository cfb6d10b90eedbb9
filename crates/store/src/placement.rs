//! Where each thread ran: its stays on the trace's CPUs over time, for views of CPU and node
//! rows (Paraver's system levels).
//!
//! Two sources, tried in order:
//! - **the records' CPU field** (Extrae and every Paraver trace whose header declares CPUs):
//!   a thread is on the CPU of its records from its first record on, and moves when a record
//!   names another CPU. Records on CPU 0 (not assigned) place the thread nowhere: that time is
//!   counted in [`Placement::unplaced`], not drawn on a CPU.
//! - **ovni's affinity channel** (its traces declare no CPU and write 0 in the field): the
//!   event type labelled `Thread: CPU affinity` names the CPU (its value labels are the CPUs,
//!   as in ovni's `cpu.row`), and a thread is on it while its `Thread: thread state` is
//!   `Running`, as ovni's own CPU view (`cpu.prv`) counts its running thread.
//!
//! A CPU row shows, at each time, the view's value of the thread on that CPU; when several
//! threads are on it at once, that of the thread that arrived last (a thread that leaves
//! hands the CPU back to the one it displaced, if that one is still there). A node row shows
//! its CPUs together, as a collapsed task shows its threads.

use std::collections::BTreeSet;
use std::ops::Range;

use prvscope_format::model::{Level, Objects};

use crate::summary::Steps;
use crate::trace::Trace;

/// One stay of a thread on a CPU: `[begin, end)` in ticks, the CPU's index (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stay {
    pub begin: u64,
    pub end: u64,
    pub cpu: usize,
}

/// Where the placement comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementSource {
    /// The records' CPU field.
    Records,
    /// ovni's `Thread: CPU affinity` events while the thread is running.
    OvniAffinity,
}

/// The trace's CPUs and nodes, and each thread's stays on them.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub source: PlacementSource,
    /// CPU labels (the `.row` file's, else `CPU node.cpu`; ovni: its affinity labels).
    pub cpus: Vec<String>,
    /// Node labels and the CPUs of each.
    pub nodes: Vec<(String, Range<usize>)>,
    /// Per thread row, its stays in time order.
    pub stays: Vec<Vec<Stay>>,
    /// Thread rows with time on CPU 0 (not assigned), and that time in ticks.
    pub unplaced: Vec<(usize, u64)>,
}

impl Placement {
    /// The placement of `trace`'s threads, or why there is none.
    pub fn of(trace: &Trace) -> Result<Placement, String> {
        if trace.header.cpu_count() > 0 {
            return Ok(from_records(trace));
        }
        from_ovni_affinity(trace).ok_or_else(|| {
            "the trace declares no CPU and has no `Thread: CPU affinity` events: where its \
             threads ran is not known"
                .to_string()
        })
    }

    /// What was not drawn on a CPU, in a sentence (`None` when every record was placed).
    pub fn unplaced_note(&self) -> Option<String> {
        let n = self.unplaced.len();
        (n > 0).then(|| {
            format!(
                "{n} thread{} ran on CPU 0 (not assigned): {} not drawn on a CPU",
                if n == 1 { "" } else { "s" },
                if n == 1 {
                    "its records are"
                } else {
                    "their records are"
                }
            )
        })
    }

    /// The CPU rows of a thread view: per CPU, the step points (times, values; `sentinel`
    /// where no thread is on it) of the thread on it. `steps(row)` is the view's step
    /// function of thread row `row`.
    pub fn cpu_points<'a>(
        &self,
        steps: impl Fn(usize) -> Steps<'a>,
        sentinel: u64,
    ) -> Vec<(Vec<u64>, Vec<u64>)> {
        let mut per_cpu: Vec<Vec<(Stay, usize)>> = vec![Vec::new(); self.cpus.len()];
        for (row, stays) in self.stays.iter().enumerate() {
            for s in stays {
                if let Some(v) = per_cpu.get_mut(s.cpu) {
                    v.push((*s, row));
                }
            }
        }
        per_cpu
            .into_iter()
            .map(|mut stays| {
                stays.sort_by_key(|(s, row)| (s.begin, *row));
                overlay(&stays, &steps, sentinel)
            })
            .collect()
    }
}

impl crate::signal::ViewSignals {
    /// The view on the CPUs of `placement` instead of its threads: one resource row per CPU
    /// (see [`crate::placement`] for what it shows), replacing the rows of a custom view's
    /// resources.
    #[must_use]
    pub fn on_cpus(mut self, placement: &crate::placement::Placement) -> Self {
        let sentinel = self.sentinel();
        let points = placement.cpu_points(|row| self.steps(row), sentinel);
        self.resources = points
            .iter()
            .map(|(times, vals)| crate::signal::owned_row(times, vals, sentinel).0)
            .collect();
        self
    }

    /// The step function of resource row `k` (empty out of range).
    pub fn resource_steps(&self, k: usize) -> Steps<'_> {
        let sentinel = self.sentinel();
        match self.resources.get(k) {
            Some(r) => match &r.source {
                crate::signal::Source::Owned { time, value } => Steps {
                    time,
                    value,
                    sentinel,
                },
                _ => Steps {
                    time: &crate::signal::EMPTY.0,
                    value: &crate::signal::EMPTY.1,
                    sentinel,
                },
            },
            None => Steps {
                time: &crate::signal::EMPTY.0,
                value: &crate::signal::EMPTY.1,
                sentinel,
            },
        }
    }
}

/// One CPU's points from its stays (sorted by begin): at each time the latest arrival that
/// is still there.
fn overlay<'a>(
    stays: &[(Stay, usize)],
    steps: &impl Fn(usize) -> Steps<'a>,
    sentinel: u64,
) -> (Vec<u64>, Vec<u64>) {
    let mut times: Vec<u64> = Vec::new();
    let mut values: Vec<u64> = Vec::new();
    let mut push = |t: u64, v: u64| {
        if let Some(last) = times.last()
            && *last == t
        {
            values.pop();
            times.pop();
        }
        if values.last() != Some(&v) {
            times.push(t);
            values.push(v);
        }
    };
    // Every boundary; between two, the stays present are those begun and not ended.
    let mut bounds: Vec<u64> = stays.iter().flat_map(|(s, _)| [s.begin, s.end]).collect();
    bounds.sort_unstable();
    bounds.dedup();
    // Present stays keyed by (begin, order of arrival): the last key is on the CPU.
    let mut present: BTreeSet<(u64, usize)> = BTreeSet::new();
    let mut next = 0;
    for pair in bounds.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        present.retain(|&(_, stay)| stays[stay].0.end > from);
        while next < stays.len() && stays[next].0.begin <= from {
            if stays[next].0.end > from {
                present.insert((stays[next].0.begin, next));
            }
            next += 1;
        }
        let Some(&(_, stay)) = present.last() else {
            push(from, sentinel);
            continue;
        };
        let thread = steps(stays[stay].1);
        let at = thread.point_at(from);
        push(from, at.map_or(sentinel, |i| thread.value.get(i)));
        let mut point = at.map_or(0, |i| i + 1);
        while point < thread.len() && thread.time.get(point) < to {
            push(thread.time.get(point), thread.value.get(point));
            point += 1;
        }
    }
    if let Some(&end) = bounds.last() {
        push(end, sentinel);
    }
    (times, values)
}

/// CPU labels of the header's CPUs: the `.row` file's, else `CPU node.cpu` (1-based).
fn from_records(trace: &Trace) -> Placement {
    let objects = Objects::new(&trace.header, trace.row.as_ref());
    let cpus: Vec<String> = (0..objects.count(Level::Cpu))
        .map(|k| objects.label(Level::Cpu, k))
        .collect();
    let nodes: Vec<(String, Range<usize>)> = (0..objects.count(Level::Node))
        .map(|n| (objects.label(Level::Node, n), objects.node_cpu_range(n)))
        .collect();
    let end = trace.store.end_time();
    let mut unplaced = Vec::new();
    let stays = trace
        .store
        .threads()
        .iter()
        .enumerate()
        .map(|(row, thread)| {
            let mut out = Vec::new();
            let mut lost = 0;
            // The change list starts at time 0; the thread arrives with its first record.
            let first = (!thread.states.begin.is_empty())
                .then(|| thread.states.begin.get(0))
                .into_iter()
                .chain(
                    thread
                        .events
                        .iter()
                        .filter(|c| !c.is_empty())
                        .map(|c| c.time.get(0)),
                )
                .min()
                .unwrap_or(0);
            for (k, &(t, cpu)) in thread.cpus.iter().enumerate() {
                let t = if k == 0 { t.max(first) } else { t };
                let until = thread.cpus.get(k + 1).map_or(end, |c| c.0).max(t);
                if cpu == 0 {
                    lost += until - t;
                } else if (cpu as usize) <= cpus.len() && until > t {
                    out.push(Stay {
                        begin: t,
                        end: until,
                        cpu: cpu as usize - 1,
                    });
                }
            }
            if lost > 0 || thread.cpus.first().is_some_and(|c| c.1 == 0) {
                unplaced.push((row, lost));
            }
            out
        })
        .collect();
    Placement {
        source: PlacementSource::Records,
        cpus,
        nodes,
        stays,
        unplaced,
    }
}

/// ovni: the affinity events' CPU while the thread state is `Running`.
fn from_ovni_affinity(trace: &Trace) -> Option<Placement> {
    let pcf = trace.pcf.as_ref()?;
    let by_label = |label: &str| {
        pcf.event_types
            .iter()
            .find(|(_, info)| info.label.trim() == label)
    };
    let (&affinity, info) = by_label("Thread: CPU affinity")?;
    let (&state, state_info) = by_label("Thread: thread state")?;
    let running = state_info
        .values
        .iter()
        .find(|(_, l)| l.trim() == "Running")
        .map_or(1, |(&v, _)| v);
    // CPU k is affinity value k + 1, labelled as ovni's cpu.row names it.
    let last = info.values.keys().copied().max().unwrap_or(0);
    let cpus: Vec<String> = (1..=last)
        .map(|v| {
            info.values
                .get(&v)
                .map_or_else(|| format!("CPU {v}"), Clone::clone)
        })
        .collect();
    let end = trace.store.end_time();
    let stays = trace
        .store
        .threads()
        .iter()
        .map(|thread| {
            let column = |ty: u32| {
                thread.event_type(ty).map(|c| {
                    (0..c.len())
                        .map(|i| (c.time.get(i), c.value.get(i)))
                        .collect::<Vec<_>>()
                })
            };
            let aff = column(affinity).unwrap_or_default();
            let st = column(state).unwrap_or_default();
            // Walk both channels in time order; a stay is open while both hold.
            let mut out = Vec::new();
            let (mut a, mut s) = (0, 0);
            let (mut cpu, mut run) = (0u64, false);
            let mut open: Option<(u64, usize)> = None;
            while a < aff.len() || s < st.len() {
                let t = match (aff.get(a), st.get(s)) {
                    (Some(x), Some(y)) => x.0.min(y.0),
                    (Some(x), None) => x.0,
                    (None, Some(y)) => y.0,
                    (None, None) => break,
                };
                while a < aff.len() && aff[a].0 == t {
                    cpu = aff[a].1;
                    a += 1;
                }
                while s < st.len() && st[s].0 == t {
                    run = st[s].1 == running;
                    s += 1;
                }
                let now = (run && cpu >= 1 && cpu <= last).then(|| (cpu - 1) as usize);
                if open.map(|o| o.1) != now {
                    if let Some((begin, c)) = open.take()
                        && t > begin
                    {
                        out.push(Stay {
                            begin,
                            end: t,
                            cpu: c,
                        });
                    }
                    open = now.map(|c| (t, c));
                }
            }
            if let Some((begin, c)) = open
                && end > begin
            {
                out.push(Stay { begin, end, cpu: c });
            }
            out
        })
        .collect();
    let node = (
        trace
            .row
            .as_ref()
            .and_then(|r| r.level("NODE"))
            .and_then(|n| n.first().cloned())
            .unwrap_or_else(|| "NODE 1".to_string()),
        0..cpus.len(),
    );
    Some(Placement {
        source: PlacementSource::OvniAffinity,
        cpus,
        nodes: vec![node],
        stays,
        unplaced: Vec::new(),
    })
}

//! What a timeline view draws on each row, as a step function with its summary pyramid.
//!
//! The "State" view turns each thread's state records into points (a state's begin with its
//! value; a null point where a state ends before the next one begins). An "Event value" view
//! of one type uses the store's own event column; a view of several types (Paraver's "MPI call"
//! view reads 50000001-50000003 together) merges them by time, so the last event of any of
//! them gives the value ("last event value"). Values stay raw: whether 0 is null is decided
//! when drawing, so a view can switch "zero is null" without rebuilding.

use std::collections::BTreeSet;
use std::sync::Arc;

use rayon::prelude::*;

use super::columns::{TimeColumn, ValueColumn};
use super::summary::{Pixel, Pyramid, Steps, summarize};
use super::{ThreadData, TraceStore};
use prvscope_format::catalog::MPI_CALL_TYPES;

/// Which records a view reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SignalSpec {
    /// State records.
    States,
    /// The last value of any of these event types (sorted, not empty).
    Events(Vec<u32>),
}

impl std::str::FromStr for SignalSpec {
    type Err = String;

    /// Parses a view given on the command line: `state`, `mpi` (MPI call) or event types
    /// separated by commas.
    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "state" | "states" => Ok(SignalSpec::States),
            "mpi" | "mpi-call" => Ok(SignalSpec::Events(MPI_CALL_TYPES.to_vec())),
            other => {
                let mut types = other
                    .split(',')
                    .map(|t| {
                        t.trim().parse::<u32>().map_err(|_| {
                            format!("expected `state`, `mpi` or event types like 50000001,50000002; got `{t}`")
                        })
                    })
                    .collect::<Result<Vec<u32>, String>>()?;
                types.sort_unstable();
                types.dedup();
                Ok(SignalSpec::Events(types))
            }
        }
    }
}

enum Source {
    /// The store's column `events[i]` of the thread.
    Event(usize),
    /// Points built for this view.
    Owned {
        time: TimeColumn,
        value: ValueColumn,
    },
    /// No point at all.
    Empty,
}

struct RowSignal {
    source: Source,
    pyramid: Pyramid,
}

/// The interval of a row that holds a given tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub begin: u64,
    /// The next point's time, or the trace's end.
    pub end: u64,
    /// Raw value (the sentinel when null).
    pub value: u64,
}

/// The rows of one view, ready to summarise.
pub struct ViewSignals {
    store: Arc<TraceStore>,
    spec: SignalSpec,
    rows: Vec<RowSignal>,
    /// Every distinct non-null value of the view, sorted (for legends and gradients).
    values: BTreeSet<u64>,
}

impl ViewSignals {
    /// Builds the rows of a view (in parallel over threads).
    pub fn build(store: Arc<TraceStore>, spec: SignalSpec) -> Self {
        let sentinel = store.null_policy().sentinel;
        let built: Vec<(RowSignal, BTreeSet<u64>)> = store
            .threads()
            .par_iter()
            .map(|thread| {
                let source = match &spec {
                    SignalSpec::States => state_points(thread, sentinel),
                    SignalSpec::Events(types) => event_points(thread, types, sentinel),
                };
                let row = RowSignal {
                    source,
                    pyramid: Pyramid::default(),
                };
                let (pyramid, values) = {
                    let steps = steps_of(&row, thread, sentinel);
                    let values: BTreeSet<u64> =
                        steps.value.iter().filter(|&v| v != sentinel).collect();
                    (Pyramid::build(&steps), values)
                };
                (RowSignal { pyramid, ..row }, values)
            })
            .collect();
        let mut values = BTreeSet::new();
        let mut rows = Vec::with_capacity(built.len());
        for (row, v) in built {
            rows.push(row);
            values.extend(v);
        }
        ViewSignals {
            store,
            spec,
            rows,
            values,
        }
    }

    /// What this view reads.
    pub fn spec(&self) -> &SignalSpec {
        &self.spec
    }

    /// The store it reads.
    pub fn store(&self) -> &Arc<TraceStore> {
        &self.store
    }

    /// The null sentinel of the values.
    pub fn sentinel(&self) -> u64 {
        self.store.null_policy().sentinel
    }

    /// Every distinct non-null value the view holds, sorted.
    pub fn values(&self) -> &BTreeSet<u64> {
        &self.values
    }

    /// Number of rows.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// The step function of `row` (empty for a row out of range).
    pub fn steps(&self, row: usize) -> Steps<'_> {
        let sentinel = self.sentinel();
        match (self.rows.get(row), self.store.thread(row)) {
            (Some(r), Some(thread)) => steps_of(r, thread, sentinel),
            _ => Steps {
                time: &EMPTY.0,
                value: &EMPTY.1,
                sentinel,
            },
        }
    }

    /// Summarises `row` over the columns of `edges` into `out`.
    pub fn summarize_row(&self, row: usize, edges: &[u64], out: &mut Vec<Pixel>) {
        let steps = self.steps(row);
        match self.rows.get(row) {
            Some(r) => summarize(&steps, &r.pyramid, edges, out),
            None => out.clear(),
        }
    }

    /// Summarises many rows in parallel: one pixel vector per row of `rows`.
    pub fn summarize_rows(&self, rows: &[usize], edges: &[u64]) -> Vec<Vec<Pixel>> {
        rows.par_iter()
            .map(|&row| {
                let mut out = Vec::with_capacity(edges.len());
                self.summarize_row(row, edges, &mut out);
                out
            })
            .collect()
    }

    /// The interval of `row` holding tick `t`, if some point is at or before it.
    pub fn interval_at(&self, row: usize, t: u64) -> Option<Interval> {
        let steps = self.steps(row);
        let i = steps.point_at(t)?;
        let end = if i + 1 < steps.len() {
            steps.time.get(i + 1)
        } else {
            self.store.end_time().max(t)
        };
        Some(Interval {
            begin: steps.time.get(i),
            end,
            value: steps.value.get(i),
        })
    }

    /// Heap bytes held by the view's own points and pyramids.
    pub fn heap_bytes(&self) -> usize {
        self.rows
            .iter()
            .map(|r| {
                r.pyramid.heap_bytes()
                    + match &r.source {
                        Source::Owned { time, value } => time.heap_bytes() + value.heap_bytes(),
                        _ => 0,
                    }
            })
            .sum()
    }
}

/// The columns of a row without points.
static EMPTY: std::sync::LazyLock<(TimeColumn, ValueColumn)> =
    std::sync::LazyLock::new(|| (TimeColumn::default(), ValueColumn::default()));

fn steps_of<'a>(row: &'a RowSignal, thread: &'a ThreadData, sentinel: u64) -> Steps<'a> {
    let (empty_time, empty_value) = (&EMPTY.0, &EMPTY.1);
    let (time, value) = match &row.source {
        Source::Event(i) => match thread.events.get(*i) {
            Some(c) => (&c.time, &c.value),
            None => (empty_time, empty_value),
        },
        Source::Owned { time, value } => (time, value),
        Source::Empty => (empty_time, empty_value),
    };
    Steps {
        time,
        value,
        sentinel,
    }
}

fn state_points(thread: &ThreadData, sentinel: u64) -> Source {
    let s = &thread.states;
    if s.is_empty() {
        return Source::Empty;
    }
    let mut times = Vec::with_capacity(s.len() + 1);
    let mut values = Vec::with_capacity(s.len() + 1);
    let begins: Vec<u64> = s.begin.iter().collect();
    let ends: Vec<u64> = s.end.iter().collect();
    for (i, (&b, &e)) in begins.iter().zip(&ends).enumerate() {
        times.push(b);
        values.push(s.value.get(i));
        let next = begins.get(i + 1).copied();
        if next.is_none_or(|n| e < n) {
            times.push(e);
            values.push(sentinel);
        }
    }
    Source::Owned {
        time: TimeColumn::from_times(&times),
        value: ValueColumn::from_values(&values, sentinel),
    }
}

fn event_points(thread: &ThreadData, types: &[u32], sentinel: u64) -> Source {
    let columns: Vec<usize> = types
        .iter()
        .filter_map(|&ty| thread.events.binary_search_by_key(&ty, |c| c.ty).ok())
        .collect();
    match columns.as_slice() {
        [] => Source::Empty,
        // The store's column is used as it is unless it is split into many segments (one per
        // parsed chunk), which makes each point read look its segment up: then a one-segment
        // copy is faster to summarise.
        [one] => match thread.events.get(*one) {
            Some(c) if c.time.segment_count() > 1 => Source::Owned {
                time: TimeColumn::from_times(&c.time.iter().collect::<Vec<u64>>()),
                value: ValueColumn::from_values(&c.value.iter().collect::<Vec<u64>>(), sentinel),
            },
            _ => Source::Event(*one),
        },
        many => {
            let mut points: Vec<(u64, u64)> = Vec::new();
            for &i in many {
                if let Some(c) = thread.events.get(i) {
                    points.extend(c.time.iter().zip(c.value.iter()));
                }
            }
            // Stable: at equal times the types keep their order.
            points.sort_by_key(|p| p.0);
            Source::Owned {
                time: TimeColumn::from_slice_by(&points, |p| p.0),
                value: ValueColumn::from_slice_by(&points, sentinel, |p| p.1),
            }
        }
    }
}

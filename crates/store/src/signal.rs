//! What a timeline view draws on each row, as a step function with its summary pyramid.
//!
//! The "State" view turns each thread's state records into points (a state's begin with its
//! value; a null point where a state ends before the next one begins). An "Event value" view
//! of one type uses the store's own event column; a view of several types (Paraver's "MPI call"
//! view reads 50000001-50000003 together) merges them by time, so the last event of any of
//! them gives the value ("last event value"). Values stay raw, except that a view built with
//! "zero is null" turns 0 into the null sentinel while it builds its points (an owned copy
//! where it would otherwise borrow the store's column), so the summaries only ever know the
//! sentinel; switching "zero is null" rebuilds the view.
//!
//! Every row's [`Pyramid`] is built with the view, for all draw modes at once, so a frame in
//! any mode only reads.

use std::collections::BTreeSet;
use std::sync::Arc;

use rayon::prelude::*;

use super::columns::{TimeColumn, ValueColumn};
use super::summary::{self, DrawMode, Pixel, Pyramid, Steps, summarize};
use super::{ThreadData, TraceStore};
use prvscope_format::catalog::MPI_CALL_TYPES;
use prvscope_format::model::Level;

mod points;
mod prebuilt;

use points::{event_points, state_points};
pub(crate) use prebuilt::{
    PrebuiltView, build_states_view, persist_states_view, restore as restore_view,
};

/// Which records a view reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SignalSpec {
    /// State records.
    States,
    /// The last value of any of these event types (sorted, not empty).
    Events(Vec<u32>),
    /// Points computed elsewhere (a window of a Paraver configuration).
    Custom(CustomRef),
}

/// A view whose points were computed outside the store (a Paraver cfg's timeline window):
/// each row's step points, its name and how its raw values read.
#[derive(Debug)]
pub struct CustomSignal {
    /// Tells views apart (equal ids are the same view).
    pub id: u64,
    pub name: String,
    /// Per store row: (times, raw values) of the step points, times increasing; the null
    /// sentinel where nothing holds.
    pub rows: Vec<(Vec<u64>, Vec<u64>)>,
    pub labels: CustomLabels,
    /// Drawn on a gradient (values are quantities) rather than a colour per value.
    pub gradient: bool,
    /// Drawn as a function line (the value plotted in its row), as the cfg asks.
    pub function_line: bool,
    /// Values of objects above threads (a task or an application of several threads): the
    /// object's thread rows and its (times, raw values), drawn on the collapsed row of
    /// exactly those threads (its threads' own rows show nothing).
    pub groups: Vec<(std::ops::Range<usize>, Vec<u64>, Vec<u64>)>,
    /// What the groups are (tasks or applications): the rows a viewer collapses to to
    /// show them.
    pub group_level: Option<Level>,
    /// A view of CPUs, nodes or the system: one row per object, with its label and
    /// (times, raw values), shown instead of the threads' rows.
    pub resource_rows: Vec<(String, Vec<u64>, Vec<u64>)>,
}

/// How a custom view's raw values read.
#[derive(Debug)]
pub enum CustomLabels {
    /// Each raw value is a category with a name.
    Names(std::collections::BTreeMap<u64, String>),
    /// Raw value `r` (from 1) stands for `offset + (r - 1) / scale`, shown with `decimals`
    /// decimals.
    Linear {
        offset: f64,
        scale: f64,
        decimals: usize,
    },
}

impl CustomSignal {
    /// The label of raw value `raw`.
    pub fn label(&self, raw: u64) -> String {
        match &self.labels {
            CustomLabels::Names(names) => {
                names.get(&raw).cloned().unwrap_or_else(|| raw.to_string())
            }
            CustomLabels::Linear {
                offset,
                scale,
                decimals,
            } => format!(
                "{:.*}",
                *decimals,
                offset + raw.saturating_sub(1) as f64 / scale
            ),
        }
    }
}

/// A shared [`CustomSignal`], compared by its id.
#[derive(Debug, Clone)]
pub struct CustomRef(pub Arc<CustomSignal>);

impl PartialEq for CustomRef {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for CustomRef {}

impl std::hash::Hash for CustomRef {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.id.hash(h);
    }
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

#[derive(Clone)]
pub(crate) enum Source {
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

#[derive(Clone)]
pub(crate) struct RowSignal {
    pub(crate) source: Source,
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
    /// A custom view's rows of objects above threads, by their thread rows.
    groups: Vec<(std::ops::Range<usize>, RowSignal)>,
    /// A custom view's rows of CPUs, nodes or the system (or a view's CPUs, see
    /// [`crate::placement`]).
    pub(crate) resources: Vec<RowSignal>,
    /// Every distinct non-null value of the view, sorted (for legends and gradients).
    values: BTreeSet<u64>,
    /// Was 0 turned into null?
    zero_is_null: bool,
}

impl ViewSignals {
    /// Builds the rows of a view (in parallel over threads), with their pyramids. With
    /// `zero_is_null`, value 0 becomes the null sentinel.
    pub fn build(store: Arc<TraceStore>, spec: SignalSpec, zero_is_null: bool) -> Self {
        if let Some(view) = Self::prebuilt(&store, &spec, zero_is_null) {
            return view;
        }
        let sentinel = store.null_policy().sentinel;
        let built: Vec<(RowSignal, BTreeSet<u64>)> = store
            .threads()
            .par_iter()
            .enumerate()
            .map(|(r, thread)| build_row(r, thread, &spec, sentinel, zero_is_null))
            .collect();
        let mut values = BTreeSet::new();
        let mut rows = Vec::with_capacity(built.len());
        for (row, v) in built {
            rows.push(row);
            values.extend(v);
        }
        let mut groups = Vec::new();
        let mut resources = Vec::new();
        if let SignalSpec::Custom(c) = &spec {
            for (threads, times, vals) in &c.0.groups {
                let (row, v) = owned_row(times, vals, sentinel);
                values.extend(v);
                groups.push((threads.clone(), row));
            }
            for (_, times, vals) in &c.0.resource_rows {
                let (row, v) = owned_row(times, vals, sentinel);
                values.extend(v);
                resources.push(row);
            }
        }
        ViewSignals {
            store,
            spec,
            rows,
            groups,
            resources,
            values,
            zero_is_null,
        }
    }

    /// True when the view reads 0 as null (its points hold the sentinel instead).
    pub fn zero_is_null(&self) -> bool {
        self.zero_is_null
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

    /// Every distinct non-null value the view holds, sorted (without 0 when 0 is null).
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
        // Only a row of an event column reads the store's records (which may wait for the
        // check of a cache file: see `TraceStore::integrity`); a row of its own points, such
        // as the State view a cache file holds, draws without them.
        let thread = |r: &RowSignal| match r.source {
            Source::Event(_) => self.store.thread(row),
            _ => Some(&*NO_THREAD),
        };
        match self.rows.get(row).and_then(|r| Some((r, thread(r)?))) {
            Some((r, t)) => steps_of(r, t, sentinel),
            None => Steps {
                time: &EMPTY.0,
                value: &EMPTY.1,
                sentinel,
            },
        }
    }

    /// Summarises `row` over the columns of `edges` into `out`, in `mode`.
    pub fn summarize_row(&self, row: usize, edges: &[u64], mode: DrawMode, out: &mut Vec<Pixel>) {
        let steps = self.steps(row);
        match self.rows.get(row) {
            Some(r) => summarize(&steps, &r.pyramid, edges, mode, out),
            None => out.clear(),
        }
    }

    /// Summarises many rows in parallel: one pixel vector per row of `rows`.
    pub fn summarize_rows(&self, rows: &[usize], edges: &[u64], mode: DrawMode) -> Vec<Vec<Pixel>> {
        rows.par_iter()
            .map(|&row| {
                let mut out = Vec::with_capacity(edges.len());
                self.summarize_row(row, edges, mode, &mut out);
                out
            })
            .collect()
    }

    /// Summarises the rows `threads` as one (a collapsed task or application) into `out`, in
    /// `mode` (see [`crate::summary`] for what a group's pixel shows). Rows out of range are
    /// left out; no row at all gives no pixel.
    pub fn summarize_group(
        &self,
        threads: std::ops::Range<usize>,
        edges: &[u64],
        mode: DrawMode,
        out: &mut Vec<Pixel>,
    ) {
        if let Some((_, g)) = self.groups.iter().find(|(r, _)| *r == threads) {
            let empty = ThreadData::default();
            let steps = steps_of(g, &empty, self.sentinel());
            summarize(&steps, &g.pyramid, edges, mode, out);
            return;
        }
        let rows: Vec<(Steps<'_>, &Pyramid)> = threads
            .filter_map(|t| Some((self.steps(t), &self.rows.get(t)?.pyramid)))
            .collect();
        summary::summarize_group(&rows, edges, mode, out);
    }

    /// Number of resource rows (CPUs, nodes or the system).
    pub fn resource_count(&self) -> usize {
        self.resources.len()
    }

    /// Summarises the resource rows `ks` (a CPU, node or the system of a custom view, or the
    /// CPUs of a node together, as a collapsed task's threads) into `out`.
    pub fn summarize_resources(
        &self,
        ks: std::ops::Range<usize>,
        edges: &[u64],
        mode: DrawMode,
        out: &mut Vec<Pixel>,
    ) {
        let empty = ThreadData::default();
        let rows: Vec<(Steps<'_>, &Pyramid)> = ks
            .filter_map(|k| {
                let r = self.resources.get(k)?;
                Some((steps_of(r, &empty, self.sentinel()), &r.pyramid))
            })
            .collect();
        match rows.as_slice() {
            [] => out.clear(),
            [(steps, pyramid)] => summarize(steps, pyramid, edges, mode, out),
            _ => summary::summarize_group(&rows, edges, mode, out),
        }
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
            .chain(
                self.resources
                    .iter()
                    .chain(self.groups.iter().map(|(_, r)| r))
                    .map(|r| {
                        r.pyramid.heap_bytes()
                            + match &r.source {
                                Source::Owned { time, value } => {
                                    time.heap_bytes() + value.heap_bytes()
                                }
                                _ => 0,
                            }
                    }),
            )
            .sum()
    }
}

/// The columns of a row without points.
pub(crate) static EMPTY: std::sync::LazyLock<(TimeColumn, ValueColumn)> =
    std::sync::LazyLock::new(|| (TimeColumn::default(), ValueColumn::default()));

/// Row `r` of view `spec` (thread `thread`'s), with its pyramid and its distinct values.
pub(crate) fn build_row(
    r: usize,
    thread: &ThreadData,
    spec: &SignalSpec,
    sentinel: u64,
    zero_is_null: bool,
) -> (RowSignal, BTreeSet<u64>) {
    let source = match spec {
        SignalSpec::States => state_points(thread, sentinel, zero_is_null),
        SignalSpec::Events(types) => event_points(thread, types, sentinel, zero_is_null),
        SignalSpec::Custom(c) => match c.0.rows.get(r) {
            Some((times, values)) if !times.is_empty() => Source::Owned {
                time: TimeColumn::from_times(times),
                value: ValueColumn::from_values(values, sentinel),
            },
            _ => Source::Empty,
        },
    };
    let row = RowSignal {
        source,
        pyramid: Pyramid::default(),
    };
    let (pyramid, values) = {
        let steps = steps_of(&row, thread, sentinel);
        let values = distinct_values(steps.value, sentinel);
        (Pyramid::build(&steps), values)
    };
    (RowSignal { pyramid, ..row }, values)
}

/// The thread of a row that reads none.
static NO_THREAD: std::sync::LazyLock<ThreadData> = std::sync::LazyLock::new(ThreadData::default);

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

/// The distinct values of `column` other than `sentinel`. Read in blocks; a value equal to
/// the one before it, or among the first few distinct ones, costs no set lookup (rows
/// usually alternate between a handful of values).
fn distinct_values(column: &ValueColumn, sentinel: u64) -> BTreeSet<u64> {
    const FEW: usize = 16;
    let mut few: Vec<u64> = Vec::with_capacity(FEW);
    let mut many = BTreeSet::new();
    let mut last = sentinel;
    let mut buf = vec![0u64; 4096];
    let mut pos = 0;
    while pos < column.len() {
        let n = column.read(pos, &mut buf);
        if n == 0 {
            break;
        }
        for &v in &buf[..n] {
            if v == last || v == sentinel {
                continue;
            }
            last = v;
            if few.contains(&v) {
                continue;
            }
            if few.len() < FEW {
                few.push(v);
            } else {
                many.insert(v);
            }
        }
        pos += n;
    }
    many.extend(few);
    many
}

/// A row of points computed elsewhere, with its pyramid, and its distinct values.
pub(crate) fn owned_row(times: &[u64], vals: &[u64], sentinel: u64) -> (RowSignal, BTreeSet<u64>) {
    let empty = ThreadData::default();
    let row = RowSignal {
        source: Source::Owned {
            time: TimeColumn::from_times(times),
            value: ValueColumn::from_values(vals, sentinel),
        },
        pyramid: Pyramid::default(),
    };
    let steps = steps_of(&row, &empty, sentinel);
    let values = distinct_values(steps.value, sentinel);
    let pyramid = Pyramid::build(&steps);
    (RowSignal { pyramid, ..row }, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_values_are_the_naive_set() {
        let sentinel = u64::MAX;
        let mut x = 3_u64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for distinct in [1_u64, 3, 16, 17, 40, 100_000] {
            let values: Vec<u64> = (0..20_000)
                .map(|_| match next(10) {
                    0 => sentinel,
                    _ => next(distinct),
                })
                .collect();
            let column = ValueColumn::from_values(&values, sentinel);
            let naive: BTreeSet<u64> = values.iter().copied().filter(|&v| v != sentinel).collect();
            assert_eq!(distinct_values(&column, sentinel), naive, "{distinct}");
        }
    }
    use crate::summary::{summarize_group_naive, summarize_naive};
    use crate::{EventColumn, NullPolicy, StateColumns};

    const NULL: u64 = u64::MAX;

    fn states(records: &[(u64, u64, u64)]) -> StateColumns {
        let col = |f: fn(&(u64, u64, u64)) -> u64| records.iter().map(f).collect::<Vec<u64>>();
        StateColumns {
            begin: TimeColumn::from_times(&col(|r| r.0)),
            end: TimeColumn::from_times(&col(|r| r.1)),
            value: ValueColumn::from_values(&col(|r| r.2), NULL),
            ends_sorted: true,
        }
    }

    fn events(ty: u32, points: &[(u64, u64)]) -> EventColumn {
        EventColumn {
            ty,
            time: TimeColumn::from_times(&points.iter().map(|p| p.0).collect::<Vec<u64>>()),
            value: ValueColumn::from_values(
                &points.iter().map(|p| p.1).collect::<Vec<u64>>(),
                NULL,
            ),
        }
    }

    /// Two threads: states with 0 (idle) between 1 and 2, and a counter of type 7 with zeros.
    fn store() -> Arc<TraceStore> {
        let threads = vec![
            ThreadData {
                states: states(&[(0, 60, 0), (60, 70, 1), (70, 100, 0), (100, 130, 2)]),
                events: vec![events(7, &[(0, 0), (10, 5), (20, 0), (90, 3)])],
                ..ThreadData::default()
            },
            ThreadData {
                states: states(&[(0, 30, 2), (30, 40, 0), (50, 100, 1)]),
                events: vec![
                    events(7, &[(5, 0), (50, 8)]),
                    events(8, &[(40, 0), (45, 9)]),
                ],
                ..ThreadData::default()
            },
        ];
        Arc::new(TraceStore::new(
            threads,
            Vec::new(),
            NullPolicy::sentinel(NULL),
            0,
            130,
        ))
    }

    fn shown(view: &ViewSignals, row: usize, edges: &[u64], mode: DrawMode) -> Vec<u64> {
        let mut px = Vec::new();
        view.summarize_row(row, edges, mode, &mut px);
        px.iter().map(|p| p.value).collect()
    }

    #[test]
    fn zero_is_null_turns_zero_into_the_sentinel_before_summaries() {
        let store = store();
        let edges = [0, 100, 130];
        let raw = ViewSignals::build(Arc::clone(&store), SignalSpec::States, false);
        let zero = ViewSignals::build(Arc::clone(&store), SignalSpec::States, true);
        assert!(!raw.zero_is_null() && zero.zero_is_null());
        assert_eq!(raw.values().iter().copied().collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(zero.values().iter().copied().collect::<Vec<_>>(), [1, 2]);
        // Thread 0 over [0, 100): 0 for 90 ticks, 1 for 10.
        assert_eq!(shown(&raw, 0, &edges, DrawMode::Dominant), [0, 2]);
        assert_eq!(shown(&zero, 0, &edges, DrawMode::Dominant), [NULL, 2]);
        assert_eq!(shown(&zero, 0, &edges, DrawMode::Average), [1, 2]);
        assert_eq!(shown(&raw, 0, &edges, DrawMode::Minimum), [0, 2]);
        assert_eq!(shown(&zero, 0, &edges, DrawMode::Minimum), [1, 2]);
        // The state gap [40, 50) of thread 1 is null either way.
        assert_eq!(shown(&zero, 1, &[40, 50], DrawMode::Last), [NULL]);
        assert_eq!(zero.interval_at(0, 5).map(|i| i.value), Some(NULL));

        // One event type: the store's column is borrowed unless it holds a 0 to hide.
        let spec = SignalSpec::Events(vec![8]);
        let raw = ViewSignals::build(Arc::clone(&store), spec.clone(), false);
        let zero = ViewSignals::build(Arc::clone(&store), spec, true);
        assert_eq!(
            raw.heap_bytes()
                - raw
                    .rows
                    .iter()
                    .map(|r| r.pyramid.heap_bytes())
                    .sum::<usize>(),
            0
        );
        assert_eq!(shown(&raw, 1, &[40, 44, 50], DrawMode::Maximum), [0, 9]);
        assert_eq!(shown(&zero, 1, &[40, 44, 50], DrawMode::Maximum), [NULL, 9]);
        // Several types merge, with zeros hidden too.
        let both = ViewSignals::build(store, SignalSpec::Events(vec![7, 8]), true);
        assert_eq!(
            shown(&both, 1, &[0, 42, 48, 60], DrawMode::Last),
            [NULL, 9, 8]
        );
        assert_eq!(
            both.values().iter().copied().collect::<Vec<_>>(),
            [3, 5, 8, 9]
        );
    }

    #[test]
    fn at_one_time_a_call_left_goes_before_a_call_entered() {
        // At 20 a call of type 2 ends and one of type 1 begins (a type order would leave
        // the view empty after 20); at 30 a call of type 1 begins and ends (nothing open
        // after it); at 40 type 2 enters 6 and type 1 leaves.
        let threads = vec![ThreadData {
            events: vec![
                events(1, &[(20, 3), (30, NULL), (30, 4), (30, NULL)]),
                events(2, &[(10, 7), (20, NULL), (40, 6)]),
            ],
            ..ThreadData::default()
        }];
        let store = Arc::new(TraceStore::new(
            threads,
            Vec::new(),
            NullPolicy::sentinel(NULL),
            0,
            100,
        ));
        let view = ViewSignals::build(store, SignalSpec::Events(vec![1, 2]), false);
        let at = |t| view.interval_at(0, t).map(|i| i.value);
        assert_eq!(at(15), Some(7));
        assert_eq!(at(25), Some(3));
        assert_eq!(at(35), Some(NULL));
        assert_eq!(at(45), Some(6));
    }

    #[test]
    fn rows_and_groups_equal_the_naive_summaries() {
        let store = store();
        let edges: Vec<u64> = (0..=27).map(|k| k * 5).collect();
        for (spec, zero) in [
            (SignalSpec::States, false),
            (SignalSpec::States, true),
            (SignalSpec::Events(vec![7, 8]), true),
        ] {
            let view = ViewSignals::build(Arc::clone(&store), spec, zero);
            for mode in DrawMode::ALL {
                let rows = view.summarize_rows(&[0, 1, 5], &edges, mode);
                assert_eq!(rows[0], summarize_naive(&view.steps(0), &edges, mode));
                assert_eq!(rows[1], summarize_naive(&view.steps(1), &edges, mode));
                assert!(rows[2].is_empty());
                let mut group = Vec::new();
                view.summarize_group(0..2, &edges, mode, &mut group);
                let steps = [view.steps(0), view.steps(1)];
                assert_eq!(group, summarize_group_naive(&steps, &edges, mode), "{mode}");
                // Rows past the end are left out.
                let mut one = Vec::new();
                view.summarize_group(1..9, &edges, mode, &mut one);
                assert_eq!(one, rows[1], "{mode}");
            }
        }
    }

    /// Heap bytes per point of a view's own points and index, on a state-like row (1 M
    /// contiguous states of 5 values) and a counter-like one (1 M events, all values
    /// distinct). Run with `--ignored --nocapture`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn memory_per_point() {
        let n = 1_000_000u64;
        let mut seed = 1u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            seed >> 33
        };
        let mut t = 0;
        let records: Vec<(u64, u64, u64)> = (0..n)
            .map(|_| {
                let begin = t;
                t += 1 + next() % 5000;
                (begin, t, next() % 5)
            })
            .collect();
        let points: Vec<(u64, u64)> = records.iter().map(|r| (r.0, next() >> 4)).collect();
        let store = Arc::new(TraceStore::new(
            vec![ThreadData {
                states: states(&records),
                events: vec![events(42_000_000, &points)],
                ..ThreadData::default()
            }],
            Vec::new(),
            NullPolicy::sentinel(NULL),
            0,
            t,
        ));
        for (name, spec) in [
            ("state-like", SignalSpec::States),
            ("counter-like", SignalSpec::Events(vec![42_000_000])),
        ] {
            let view = ViewSignals::build(Arc::clone(&store), spec, false);
            let points = view.steps(0).len() as f64;
            let index: usize = view.rows.iter().map(|r| r.pyramid.heap_bytes()).sum();
            println!(
                "{name}: {points} points, view {:.2} B/point, of which index {:.2} B/point",
                view.heap_bytes() as f64 / points,
                index as f64 / points
            );
        }
    }
}

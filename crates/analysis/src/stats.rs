//! Time per value per thread over a time window: Paraver's 2D analyzer with the statistic
//! "Time", for the semantic "State As Is" (state records) or "Last Evt Val" (one event type).
//!
//! As in Paraver, time not covered by any state record counts as state 0 (Idle), and time
//! before the first event of a type, or where its value is null, counts as value 0 in the
//! legacy mode. In the NULL mode null time is its own column ([`Column::Null`]) and a real 0
//! stays 0. Sums are exact integers in the trace's ticks.

use std::collections::BTreeMap;

use prvscope_store::TraceStore;
use prvscope_store::signal::ViewSignals;

/// What to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Semantic {
    /// State records, as they are.
    StateAsIs,
    /// The last value of one event type.
    LastEventValue(u32),
}

/// A column of the table: a value, or null (NULL mode only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Column {
    Value(u64),
    Null,
}

/// Time per column for each row, over `[t0, t1)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeTable {
    pub t0: u64,
    pub t1: u64,
    /// Per row: ticks per column (columns with no time are absent).
    pub rows: Vec<BTreeMap<Column, u64>>,
}

impl TimeTable {
    /// Every column that has time on some row, sorted (values first, null last).
    pub fn columns(&self) -> Vec<Column> {
        let mut cols: Vec<Column> = self.rows.iter().flat_map(|r| r.keys().copied()).collect();
        cols.sort_unstable();
        cols.dedup();
        cols
    }

    /// Ticks of `column` on `row`.
    pub fn get(&self, row: usize, column: Column) -> u64 {
        self.rows
            .get(row)
            .and_then(|r| r.get(&column))
            .copied()
            .unwrap_or(0)
    }
}

/// Computes the table for every thread over `[t0, t1)` (clamped to the trace).
pub fn time_per_value(store: &TraceStore, semantic: Semantic, t0: u64, t1: u64) -> TimeTable {
    let t1 = t1.max(t0);
    let rows = (0..store.thread_count())
        .map(|row| match semantic {
            Semantic::StateAsIs => state_row(store, row, t0, t1),
            Semantic::LastEventValue(ty) => event_row(store, row, ty, t0, t1),
        })
        .collect();
    TimeTable { t0, t1, rows }
}

/// The same table for any timeline view (for instance several event types read together):
/// each row's step function, a null value (or 0 when `zero_is_null`) counting as null time.
pub fn time_per_value_of_view(
    view: &ViewSignals,
    zero_is_null: bool,
    t0: u64,
    t1: u64,
) -> TimeTable {
    let t1 = t1.max(t0);
    let policy = prvscope_store::NullPolicy {
        sentinel: view.sentinel(),
        zero_is_null,
    };
    let column_of = |v: Option<u64>| match v {
        Some(v) if !policy.is_null(v) => Column::Value(v),
        _ if zero_is_null => Column::Value(0),
        _ => Column::Null,
    };
    let rows = (0..view.row_count())
        .map(|row| steps_row(&view.steps(row), &column_of, t0, t1))
        .collect();
    TimeTable { t0, t1, rows }
}

/// The table of a view on the CPUs of `placement` (see [`prvscope_store::placement`]): per
/// CPU, time per value of the thread on it, null time where none is; with `nodes`, per
/// node, its CPUs' times added (as Paraver adds a node's CPUs).
pub fn time_per_value_on_cpus(
    view: &ViewSignals,
    placement: &prvscope_store::placement::Placement,
    nodes: bool,
    t0: u64,
    t1: u64,
) -> TimeTable {
    let t1 = t1.max(t0);
    let sentinel = view.sentinel();
    let column_of = |v: Option<u64>| match v {
        Some(v) if v != sentinel => Column::Value(v),
        _ => Column::Null,
    };
    let cpus: Vec<BTreeMap<Column, u64>> = (0..view.resource_count())
        .map(|k| steps_row(&view.resource_steps(k), &column_of, t0, t1))
        .collect();
    let rows = if nodes {
        placement
            .nodes
            .iter()
            .map(|(_, ks)| {
                let mut map = BTreeMap::new();
                for m in &cpus[ks.clone()] {
                    for (&c, &ticks) in m {
                        add(&mut map, c, ticks);
                    }
                }
                map
            })
            .collect()
    } else {
        cpus
    };
    TimeTable { t0, t1, rows }
}

/// Time per column of one step function over `[t0, t1)`.
fn steps_row(
    steps: &prvscope_store::summary::Steps<'_>,
    column_of: &dyn Fn(Option<u64>) -> Column,
    t0: u64,
    t1: u64,
) -> BTreeMap<Column, u64> {
    let mut map = BTreeMap::new();
    let mut current = steps.point_at(t0).map(|i| steps.value.get(i));
    let mut since = t0;
    let first = steps.time.upper_bound(t0);
    let stop = steps.time.lower_bound(t1);
    for i in first..stop.max(first) {
        let time = steps.time.get(i);
        add(&mut map, column_of(current), time - since);
        current = Some(steps.value.get(i));
        since = time;
    }
    add(&mut map, column_of(current), t1.saturating_sub(since));
    map
}

fn add(map: &mut BTreeMap<Column, u64>, column: Column, ticks: u64) {
    if ticks > 0 {
        *map.entry(column).or_insert(0) += ticks;
    }
}

fn state_row(store: &TraceStore, row: usize, t0: u64, t1: u64) -> BTreeMap<Column, u64> {
    let policy = store.null_policy();
    let mut map = BTreeMap::new();
    // Covered time is counted per state; what no state covers is Idle (0). Overlapping
    // states (malformed traces) are counted where they begin, up to the next state.
    let mut covered_until = t0;
    for (begin, end, value) in store.states_in(row, t0, t1) {
        let b = begin.max(covered_until).max(t0);
        let e = end.min(t1);
        if e <= b {
            continue;
        }
        add(&mut map, Column::Value(0), b - covered_until);
        let column = if value == policy.sentinel && !policy.zero_is_null {
            Column::Null
        } else if value == policy.sentinel {
            Column::Value(0)
        } else {
            Column::Value(value)
        };
        add(&mut map, column, e - b);
        covered_until = e;
    }
    add(&mut map, Column::Value(0), t1.saturating_sub(covered_until));
    map
}

fn event_row(store: &TraceStore, row: usize, ty: u32, t0: u64, t1: u64) -> BTreeMap<Column, u64> {
    let policy = store.null_policy();
    let column_of = |v: Option<u64>| match v {
        Some(v) if !policy.is_null(v) => Column::Value(v),
        _ if policy.zero_is_null => Column::Value(0),
        _ => Column::Null,
    };
    let mut map = BTreeMap::new();
    let col = store.thread(row).and_then(|t| t.event_type(ty));
    // The value in effect at t0: the last event at or before it.
    let mut current = col.and_then(|c| c.last_at_or_before(t0).map(|i| c.value.get(i)));
    let mut since = t0;
    for (time, value) in store.events_in(row, ty, t0.saturating_add(1), t1) {
        add(&mut map, column_of(current), time - since);
        current = Some(value);
        since = time;
    }
    add(&mut map, column_of(current), t1.saturating_sub(since));
    map
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use prvscope_import::{LoadOptions, load_bytes};

    fn store(text: &str, null_mode: bool) -> std::sync::Arc<TraceStore> {
        let pcf = null_mode.then(|| prvscope_format::Pcf {
            null_value: Some(prvscope_format::NullValue::N),
            ..Default::default()
        });
        load_bytes(
            Path::new("t.prv"),
            text.as_bytes(),
            pcf,
            &LoadOptions::default(),
        )
        .unwrap()
        .store
    }

    #[test]
    fn states_with_gaps_count_as_idle_and_windows_clip() {
        let s = store(
            "#Paraver (x):100_ns:0:1:1(1:1)\n1:0:1:1:1:10:30:1\n1:0:1:1:1:30:50:5\n1:0:1:1:1:60:90:0\n",
            false,
        );
        let t = time_per_value(&s, Semantic::StateAsIs, 0, 100);
        assert_eq!(t.get(0, Column::Value(1)), 20);
        assert_eq!(t.get(0, Column::Value(5)), 20);
        // 0..10, 50..60 and 90..100 uncovered, plus 60..90 explicit Idle.
        assert_eq!(t.get(0, Column::Value(0)), 60);
        let t = time_per_value(&s, Semantic::StateAsIs, 20, 65);
        assert_eq!(t.get(0, Column::Value(1)), 10);
        assert_eq!(t.get(0, Column::Value(5)), 20);
        assert_eq!(t.get(0, Column::Value(0)), 15);
    }

    #[test]
    fn last_event_value_with_nulls_in_both_modes() {
        let text = "#Paraver (x):100_ns:0:1:1(1:1)\n2:0:1:1:1:10:7:3\n2:0:1:1:1:40:7:0\n2:0:1:1:1:60:7:N\n2:0:1:1:1:70:7:2\n";
        let t = time_per_value(&store(text, true), Semantic::LastEventValue(7), 0, 100);
        assert_eq!(t.get(0, Column::Value(3)), 30);
        assert_eq!(t.get(0, Column::Value(0)), 20);
        assert_eq!(t.get(0, Column::Null), 20);
        assert_eq!(t.get(0, Column::Value(2)), 30);
        let t = time_per_value(&store(text, false), Semantic::LastEventValue(7), 0, 100);
        assert_eq!(t.get(0, Column::Value(0)), 40);
        assert_eq!(t.get(0, Column::Null), 0);
        // A window starting after an event takes the value in effect.
        let t = time_per_value(&store(text, true), Semantic::LastEventValue(7), 20, 45);
        assert_eq!(t.get(0, Column::Value(3)), 20);
        assert_eq!(t.get(0, Column::Value(0)), 5);
    }
}

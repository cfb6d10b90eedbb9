//! `prvscope stats` is the store's fast path for Paraver's two simplest windows: its time per
//! state and per event value equal, tick for tick, the time of each value in the Paraver
//! engine's "State As Is" window and in its "Last Evt Val" window of each event type, on
//! every shared trace (null values and the time before a type's first event are Paraver's
//! value 0 in the engine; `stats` keeps them apart as null in the null mode).

use std::collections::BTreeMap;

use prvscope_analysis::stats::{Column, Semantic, time_per_value};
use prvscope_import::Trace;
use prvscope_paraver::filter::TypesFound;
use prvscope_paraver::paramedir::Context;

use crate::common::{load, shared_trace_files, shared_traces, thread_window_cfg};

/// Ticks per (row, value) of a thread window with `function` (and an event type filter).
fn engine_time(t: &Trace, function: &str, ty: Option<u32>) -> (BTreeMap<(usize, u64), u64>, u64) {
    let cfg = thread_window_cfg(function, &ty.into_iter().collect::<Vec<_>>());
    let ctx = Context::new(t);
    let engine = ctx.engine();
    let c = engine
        .compute(&cfg, &cfg.windows[0], &mut TypesFound::default())
        .unwrap();
    let mut out = BTreeMap::new();
    for (row, ivs) in c.rows.iter().enumerate() {
        for i in ivs.iter().filter(|i| i.end > i.begin) {
            *out.entry((row, i.value.to_bits())).or_insert(0) += i.end - i.begin;
        }
    }
    (out, engine.end_time())
}

/// The same from `stats`, null counted as Paraver's 0.
fn stats_time(t: &Trace, semantic: Semantic, end: u64) -> BTreeMap<(usize, u64), u64> {
    let table = time_per_value(&t.store, semantic, 0, end);
    let mut out = BTreeMap::new();
    for (row, cols) in table.rows.iter().enumerate() {
        for (&col, &ticks) in cols {
            let v = match col {
                Column::Value(v) => v as f64,
                Column::Null => 0.0,
            };
            *out.entry((row, v.to_bits())).or_insert(0) += ticks;
        }
    }
    out
}

#[test]
fn stats_equals_the_engines_state_and_last_event_value_windows_on_every_shared_trace() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else {
        return;
    };
    let mut compared = 0;
    for path in shared_trace_files(&root)
        .into_iter()
        .filter(|f| !f.to_string_lossy().ends_with(".xz"))
    {
        let t = load(&path);
        let (engine, end) = engine_time(&t, "State As Is", None);
        let stats = stats_time(&t, Semantic::StateAsIs, end);
        assert_eq!(engine, stats, "{}: State As Is", path.display());
        compared += 1;
        // Every event type of the trace (up to 12, spread over its sorted list).
        let types = t.store.event_types();
        let step = types.len().div_ceil(12).max(1);
        for &ty in types.iter().step_by(step) {
            let (engine, end) = engine_time(&t, "Last Evt Val", Some(ty));
            let stats = stats_time(&t, Semantic::LastEventValue(ty), end);
            assert_eq!(engine, stats, "{}: Last Evt Val of {ty}", path.display());
            compared += 1;
        }
    }
    assert!(compared > 50, "{compared} windows compared");
}

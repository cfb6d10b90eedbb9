//! A Paraver cfg's timeline window as a view of the timeline: the window's values per object
//! (computed by `prvscope-paraver`) become step points on the threads' rows.
//!
//! A window whose values are non-negative integers drawn with colours per value (states,
//! event values, objects) keeps its values, each named as Paraver names it (state and event
//! value labels from the `.pcf`); any other window is drawn on a gradient, its values
//! mapped linearly onto raw integers (the labels show the real values, to 2 decimals). A
//! value of 0 is drawn as background, as Paraver draws it. A task or application window is
//! drawn on its thread's row when each task (application) has one thread; with several
//! threads per object it is refused rather than drawn on rows it does not describe.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use prvscope_paraver::cfg::Level;
use prvscope_paraver::labels;
use prvscope_paraver::objects::Objects;
use prvscope_paraver::window::{Computed, Engine};
use prvscope_store::signal::{CustomLabels, CustomRef, CustomSignal};

/// The raw values a gradient window's range is spread over.
const LINEAR_STEPS: f64 = 1e12;

/// The view of computed window `c`, for a store of `threads` rows with null `sentinel`.
pub fn custom_view(
    id: u64,
    engine: &Engine,
    c: &Computed,
    objects: &Objects,
    threads: usize,
    sentinel: u64,
) -> Result<CustomRef, String> {
    let mut rows_of = Vec::with_capacity(c.rows.len());
    for o in 0..c.rows.len() {
        let r = match c.level {
            Level::Thread => o..o + 1,
            Level::Task | Level::Appl | Level::Workload => objects.thread_rows(c.level, o),
            other => {
                return Err(format!(
                    "window `{}`: the {other} level is not drawn",
                    c.name
                ));
            }
        };
        if r.len() != 1 {
            return Err(format!(
                "window `{}` ({} level) is not drawn: its objects have {} threads, and one row per thread would show the {} value on each",
                c.name,
                c.level,
                r.len(),
                c.level
            ));
        }
        rows_of.push(r.start);
    }
    let finite = |v: f64| v.is_finite() && v != 0.0;
    let values: BTreeSet<u64> = c
        .rows
        .iter()
        .flatten()
        .filter(|i| i.end > i.begin && finite(i.value))
        .map(|i| i.value.to_bits())
        .collect();
    let (lo, hi) = values
        .iter()
        .map(|&b| f64::from_bits(b))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let code = c.code_colour
        && values
            .iter()
            .map(|&b| f64::from_bits(b))
            .all(|v| v >= 0.0 && v.fract() == 0.0 && v < 1e15);
    let scale = if hi > lo {
        LINEAR_STEPS / (hi - lo)
    } else {
        1.0
    };
    let raw = |v: f64| -> u64 {
        if !finite(v) {
            sentinel
        } else if code {
            v as u64
        } else {
            1 + ((v - lo) * scale).round() as u64
        }
    };
    let mut rows = vec![(Vec::new(), Vec::new()); threads];
    for (o, ivs) in c.rows.iter().enumerate() {
        let Some((times, vals)) = rows.get_mut(rows_of[o]) else {
            continue;
        };
        for i in ivs.iter().filter(|i| i.end > i.begin) {
            let v = raw(i.value);
            if vals.last() == Some(&v) {
                continue;
            }
            times.push(i.begin);
            vals.push(v);
        }
    }
    let labels = if code {
        CustomLabels::Names(
            values
                .iter()
                .map(|&b| {
                    let v = f64::from_bits(b);
                    (v as u64, labels::semantic(engine, c, v))
                })
                .collect::<BTreeMap<_, _>>(),
        )
    } else {
        CustomLabels::Linear {
            offset: if lo.is_finite() { lo } else { 0.0 },
            scale,
            decimals: 2,
        }
    };
    Ok(CustomRef(Arc::new(CustomSignal {
        id,
        name: c.name.clone(),
        rows,
        labels,
        gradient: !code,
    })))
}

//! A Paraver cfg's timeline window as a view of the timeline: the window's values per object
//! (computed by `prvscope-paraver`) become step points on the threads' rows.
//!
//! A window whose values are non-negative integers drawn with colours per value (states,
//! event values, objects) keeps its values, each named as Paraver names it (state and event
//! value labels from the `.pcf`); any other window is drawn on a gradient, its values
//! mapped linearly onto raw integers (the labels show the real values, to 2 decimals). A
//! value of 0 is drawn as background, as Paraver draws it. A task or application window is
//! drawn on its thread's row when the object has one thread, and otherwise on the object's
//! collapsed row (the view collapses the rows to that level; the threads' own rows show
//! nothing rather than the object's value). The workload is drawn as the application when
//! there is one. CPU, node and system windows get rows of their own (`CPU 1.1`, `NODE 1`,
//! or the `.row` file's names), shown instead of the threads' rows.

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
    let resource = matches!(c.info.level, Level::Cpu | Level::Node | Level::System);
    // Per object: its thread row, or (several threads) the range of its collapsed row.
    let mut rows_of: Vec<std::ops::Range<usize>> = Vec::with_capacity(c.rows.len());
    for o in 0..c.rows.len() {
        let r = match c.info.level {
            // Rows of their own.
            Level::Cpu | Level::Node | Level::System => 0..0,
            Level::Thread => o..o + 1,
            Level::Workload if objects.appls.len() > 1 && objects.threads.len() > 1 => {
                return Err(format!(
                    "window `{}` (workload level) is not drawn: the timeline has no row for \
                     the {} applications together",
                    c.info.name,
                    objects.appls.len()
                ));
            }
            Level::Task | Level::Appl | Level::Workload => objects.thread_rows(c.info.level, o),
        };
        rows_of.push(r);
    }
    let group_level = rows_of
        .iter()
        .any(|r| r.len() > 1)
        .then_some(match c.info.level {
            Level::Task => Level::Task,
            _ => Level::Appl,
        });
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
    let code = c.info.code_colour
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
    let mut groups = Vec::new();
    let mut resource_rows = Vec::new();
    for (o, ivs) in c.rows.iter().enumerate() {
        let (mut times, mut vals) = (Vec::new(), Vec::new());
        for i in ivs.iter().filter(|i| i.end > i.begin) {
            let v = raw(i.value);
            if vals.last() == Some(&v) {
                continue;
            }
            times.push(i.begin);
            vals.push(v);
        }
        let r = rows_of[o].clone();
        if resource {
            resource_rows.push((objects.label(c.info.level, o), times, vals));
        } else if r.len() == 1 {
            if let Some(row) = rows.get_mut(r.start) {
                *row = (times, vals);
            }
        } else if r.end <= threads && !r.is_empty() {
            groups.push((r, times, vals));
        }
    }
    let labels = if code {
        CustomLabels::Names(
            values
                .iter()
                .map(|&b| {
                    let v = f64::from_bits(b);
                    (v as u64, labels::semantic(engine, &c.info, v))
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
        name: c.info.name.clone(),
        rows,
        labels,
        gradient: !code,
        function_line: c.info.function_line,
        groups,
        group_level,
        resource_rows,
    })))
}

//! A cfg written back as Paraver's text (`ConfigFile.Version: 3.4`): what the viewer's window
//! properties save, and what a derived window built in the viewer is computed from.
//!
//! Every part of a window that [`Cfg::parse`] reads is written in Paraver's new format
//! (old-format cfgs come out in it too): the name, id, type and a derived window's parents,
//! factors, operation and shifts; the level and units; the filter switches; the time range;
//! the functions (levels and filter in `window_selected_functions`, compose functions in
//! `window_compose_functions`); each function's parameters; the filter's values and labels;
//! and every other line as it was read (position, draw modes, objects...). Analyzers are
//! written key by key. Reading the text back gives the same [`Cfg`] (but its lines' numbers
//! and format), which the tests check on every shared cfg, and BSC's paramedir computes it to
//! the same output as the cfg it came from (checked where `PARAMEDIR` is set).

use std::fmt::Write as _;

use crate::cfg::{Cfg, TimeUnit, WindowCfg};

/// The cfg word of a unit.
pub fn unit_word(u: TimeUnit) -> &'static str {
    match u {
        TimeUnit::Nanoseconds => "Nanoseconds",
        TimeUnit::Microseconds => "Microseconds",
        TimeUnit::Milliseconds => "Milliseconds",
        TimeUnit::Seconds => "Seconds",
        TimeUnit::Minutes => "Minutes",
        TimeUnit::Hours => "Hours",
        TimeUnit::Days => "Days",
    }
}

/// A number as the cfg reads it back to the same `f64` (Rust's shortest exact form).
fn num(x: f64) -> String {
    format!("{x}")
}

/// Is `slot` a compose function's slot?
fn is_compose(slot: &str) -> bool {
    slot.starts_with("compose") || slot.starts_with("topcompose")
}

/// The text of `cfg`.
pub fn write(cfg: &Cfg) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "#ParaverCFG");
    let _ = writeln!(s, "ConfigFile.Version: 3.4");
    let _ = writeln!(s, "ConfigFile.NumWindows: {}", cfg.windows.len());
    let _ = writeln!(s);
    // Windows and analyzers in the order they were read (Paraver stops reading a cfg at an
    // analyzer it cannot read: what follows it stays after it); made ones (line 0): windows
    // first.
    let mut sections: Vec<(usize, bool, usize)> = cfg
        .windows
        .iter()
        .enumerate()
        .map(|(i, w)| (w.line, false, i))
        .chain(
            cfg.analyzers
                .iter()
                .enumerate()
                .map(|(i, a)| (a.line, true, i)),
        )
        .collect();
    sections.sort_by_key(|&(line, analyzer, _)| (line, analyzer));
    for (_, analyzer, i) in sections {
        if analyzer {
            let _ = writeln!(s, "< NEW ANALYZER2D >");
            for (k, v) in &cfg.analyzers[i].keys {
                let _ = writeln!(s, "{k}: {v}");
            }
        } else {
            window(&mut s, &cfg.windows[i]);
        }
        let _ = writeln!(s);
    }
    s
}

fn bool_word(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

/// One window's section.
fn window(s: &mut String, w: &WindowCfg) {
    let _ = writeln!(s, "{}", "#".repeat(80));
    let _ = writeln!(s, "< NEW DISPLAYING WINDOW {} >", w.name);
    let _ = writeln!(s, "{}", "#".repeat(80));
    let _ = writeln!(s, "window_name {}", w.name);
    let _ = writeln!(
        s,
        "window_type {}",
        if w.derived.is_some() {
            "composed"
        } else {
            "single"
        }
    );
    let _ = writeln!(s, "window_id {}", w.id);
    if let Some(d) = &w.derived {
        let _ = writeln!(s, "window_identifiers {} {}", d.parents[0], d.parents[1]);
        let _ = writeln!(
            s,
            "window_factors {} {}",
            num(d.factors[0]),
            num(d.factors[1])
        );
        if d.shifts != [0, 0] {
            let _ = writeln!(s, "window_shift {} {}", d.shifts[0], d.shifts[1]);
        }
        let _ = writeln!(s, "window_operation {}", d.operation);
    }
    let _ = writeln!(s, "window_level {}", w.level.word());
    let _ = writeln!(s, "window_units {}", unit_word(w.units));
    let _ = writeln!(
        s,
        "window_logical_filtered {}",
        bool_word(w.logical_filtered)
    );
    let _ = writeln!(
        s,
        "window_physical_filtered {}",
        bool_word(w.physical_filtered)
    );
    let _ = writeln!(s, "window_comm_fromto {}", bool_word(w.comm_fromto));
    let _ = writeln!(s, "window_comm_tagsize {}", bool_word(w.comm_tagsize));
    let _ = writeln!(s, "window_comm_typeval {}", bool_word(w.comm_typeval));
    let _ = writeln!(
        s,
        "window_begin_time_relative {}",
        num(w.begin_time_relative)
    );
    let _ = writeln!(s, "window_end_time_relative {}", num(w.end_time_relative));
    if let Some(t) = w.begin_time {
        let _ = writeln!(s, "window_begin_time {}", num(t));
    }
    if let Some(t) = w.stop_time {
        let _ = writeln!(s, "window_stop_time {}", num(t));
    }
    for (k, v) in &w.lines {
        if v.is_empty() {
            let _ = writeln!(s, "{k}");
        } else {
            let _ = writeln!(s, "{k} {v}");
        }
    }
    let pairs = |compose: bool| -> Vec<String> {
        w.functions
            .iter()
            .filter(|(slot, _)| is_compose(slot) == compose)
            .map(|(slot, f)| format!("{{{slot}, {f}}}"))
            .collect()
    };
    for (key, compose) in [
        ("window_selected_functions", false),
        ("window_compose_functions", true),
    ] {
        let p = pairs(compose);
        if !p.is_empty() {
            let _ = writeln!(s, "{key} {{ {}, {{ {} }} }}", p.len(), p.join(", "));
        }
    }
    for p in &w.params {
        let lists: Vec<String> = p
            .params
            .iter()
            .map(|v| {
                std::iter::once(v.len().to_string())
                    .chain(v.iter().map(|&x| num(x)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let _ = writeln!(
            s,
            "window_semantic_module {} {} {{ {}, {{ {} }} }}",
            p.slot,
            p.function,
            p.params.len(),
            lists.join(", ")
        );
    }
    for f in &w.filters {
        let values: Vec<String> = f.values.iter().map(|&x| num(x)).collect();
        let _ = writeln!(
            s,
            "window_filter_module {} {} {}",
            f.kind,
            values.len(),
            values.join(" ")
        );
        if !f.labels.is_empty() {
            let labels: Vec<String> = f.labels.iter().map(|l| format!("\"{l}\"")).collect();
            let _ = writeln!(
                s,
                "window_filter_module {}_label {} {}",
                f.kind,
                labels.len(),
                labels.join(" ")
            );
        }
    }
}

/// Window `id` of `cfg` and the windows it is derived from (their parents, theirs...), in
/// the cfg's order, without analyzers: a timeline window saved on its own.
pub fn window_alone(cfg: &Cfg, id: u32) -> Result<Cfg, String> {
    let mut wanted = std::collections::BTreeSet::new();
    let mut todo = vec![id];
    while let Some(i) = todo.pop() {
        if !wanted.insert(i) {
            continue;
        }
        let w = cfg
            .window(i)
            .ok_or_else(|| format!("the cfg has no window {i}"))?;
        if let Some(d) = &w.derived {
            todo.extend(d.parents);
        }
    }
    Ok(Cfg {
        file: cfg.file.clone(),
        windows: cfg
            .windows
            .iter()
            .filter(|w| wanted.contains(&w.id))
            .cloned()
            .collect(),
        analyzers: Vec::new(),
        old_format: false,
    })
}

/// A derived window of `a` and `b` (each a window of a cfg, with its own parents), combined
/// by Paraver's `operation` (`add`, `substract`, `product`, `divide`, `maximum`, `minimum`,
/// `different`) with `factors`: a cfg of the two windows (and their parents; `b`'s ids moved
/// past `a`'s) and the derived window, the last one. Both must be of one level, as Paraver
/// requires.
pub fn derived(
    a: (&Cfg, u32),
    b: (&Cfg, u32),
    operation: &str,
    factors: [f64; 2],
    name: &str,
) -> Result<Cfg, String> {
    if crate::derived::DerivedFn::parse(operation).is_none() {
        return Err(format!("no derived function `{operation}`"));
    }
    let first = window_alone(a.0, a.1)?;
    let mut second = window_alone(b.0, b.1)?;
    let (wa, wb) = (
        first.window(a.1).ok_or("no first window")?,
        second.window(b.1).ok_or("no second window")?,
    );
    if wa.level != wb.level {
        return Err(format!(
            "`{}` is a {} window and `{}` a {} window: Paraver derives windows of one level",
            wa.name,
            wa.level.word(),
            wb.name,
            wb.level.word()
        ));
    }
    let (level, units) = (wa.level, wa.units);
    let template = wa.clone();
    let shift = first.windows.iter().map(|w| w.id).max().unwrap_or(0);
    for w in &mut second.windows {
        w.id += shift;
        if let Some(d) = &mut w.derived {
            d.parents = d.parents.map(|p| p + shift);
        }
    }
    let b_id = b.1 + shift;
    let mut windows = first.windows;
    windows.extend(second.windows);
    for w in &mut windows {
        w.line = 0;
    }
    let id = windows.iter().map(|w| w.id).max().unwrap_or(0) + 1;
    // As Paraver writes a derived window (`IPC.cfg`): the functions of the levels above
    // threads, the first parent's.
    let mut functions = template.functions.clone();
    functions.retain(|slot, _| {
        matches!(
            slot.as_str(),
            "appl" | "task" | "node" | "system" | "workload"
        )
    });
    let mut w = crate::cfg::new_window(name.to_owned(), 0);
    w.id = id;
    w.derived = Some(crate::cfg::Derived {
        parents: [a.1, b_id],
        factors,
        operation: operation.to_owned(),
        shifts: [0, 0],
    });
    w.level = level;
    w.units = units;
    w.functions = functions;
    w.begin_time_relative = template.begin_time_relative;
    w.end_time_relative = template.end_time_relative;
    w.begin_time = template.begin_time;
    w.stop_time = template.stop_time;
    w.lines = template
        .lines
        .iter()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "window_object" | "window_drawmode" | "window_drawmode_rows"
            )
        })
        .cloned()
        .chain([(
            "window_color_mode".to_owned(),
            "window_in_gradient_mode".to_owned(),
        )])
        .collect();
    windows.push(w);
    Ok(Cfg {
        file: name.to_owned(),
        windows,
        analyzers: Vec::new(),
        old_format: false,
    })
}

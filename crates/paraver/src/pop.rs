//! POP efficiency metrics (BSC's modelfactors, as pypop computes them through paramedir) from
//! the figures of each run of a scaling series: runtime, useful computation per process,
//! useful instructions and cycles.
//!
//! The figures are Paraver's: each comes from windows evaluated by this crate's engine with
//! the definitions of pypop's cfgs: useful computation is the `Useful` thread function
//! (time in the Running state), useful instructions and cycles the `Next Evt Val` of
//! `PAPI_TOT_INS` (42000050) and `PAPI_TOT_CYC` (42000059) times `Useful`, summed over bursts.
//! The runtime is the trace's duration.
//!
//! Serialization and transfer efficiency need the run replayed on an ideal network (BSC
//! uses Dimemas): [`crate::replay`] gives the ideal runtime and each process's computation
//! there (its time outside MPI calls, as Dimemas counts CPU bursts). As modelfactors:
//! serialization = maximum ideal computation / ideal runtime, transfer = communication
//! efficiency / serialization.

use std::fmt::Write as _;

use prvscope_store::Trace;

use crate::cfg::Cfg;
use crate::filter::TypesFound;
use crate::paramedir::Context;

/// `PAPI_TOT_INS` and `PAPI_TOT_CYC`, as Extrae writes them.
pub const INSTRUCTIONS: u32 = 42_000_050;
pub const CYCLES: u32 = 42_000_059;

/// The raw figures of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// Number of processes (tasks).
    pub processes: usize,
    /// The trace's duration, in microseconds.
    pub runtime_us: f64,
    /// Useful computation per thread (a process's threads each count, as in the POP metrics
    /// of hybrid codes), in microseconds.
    pub useful_us: Vec<f64>,
    /// Useful instructions and cycles over all threads (`None` without the counter).
    pub instructions: Option<f64>,
    pub cycles: Option<f64>,
    /// The runtime on an ideal network and the largest computation of a process there, in
    /// microseconds, or why they are not known.
    pub ideal_us: Result<(f64, f64), String>,
}

impl Figures {
    pub fn useful_average(&self) -> f64 {
        self.useful_total() / self.useful_us.len().max(1) as f64
    }
    pub fn useful_max(&self) -> f64 {
        self.useful_us.iter().copied().fold(0.0, f64::max)
    }
    pub fn useful_total(&self) -> f64 {
        self.useful_us.iter().sum()
    }
}

/// A window of one thread function over every thread (`filter`: an event type), in cfg text.
fn single(id: u32, name: &str, function: &str, filter: Option<u32>) -> String {
    let mut s = format!(
        "window_name {name}\nwindow_type single\nwindow_id {id}\nwindow_units Nanoseconds\n\
         window_level thread\nwindow_scale_relative 1.0\nwindow_end_time_relative 1.0\n\
         window_begin_time_relative 0.0\n\
         window_selected_functions {{ 14, {{ {{cpu, Active Thd}}, {{appl, Adding}}, \
         {{task, Adding}}, {{thread, {function}}}, {{node, Adding}}, {{system, Adding}}, \
         {{workload, Adding}}, {{from_obj, All}}, {{to_obj, All}}, {{tag_msg, All}}, \
         {{size_msg, All}}, {{bw_msg, All}}, {{evt_type, {}}}, {{evt_value, All}} }} }}\n",
        if filter.is_some() { "=" } else { "All" }
    );
    if let Some(ty) = filter {
        let _ = writeln!(s, "window_filter_module evt_type 1 {ty}");
    }
    s
}

/// The cfg of a counter's useful amount: window 3 is `Next Evt Val` of `counter` times
/// `Useful`.
fn counter_cfg(counter: u32) -> String {
    format!(
        "#ParaverCFG\nConfigFile.Version: 3.4\nConfigFile.NumWindows: 3\n\n\
         < NEW DISPLAYING WINDOW Counter >\n{}\n< NEW DISPLAYING WINDOW Useful >\n{}\n\
         < NEW DISPLAYING WINDOW Useful counter >\nwindow_name Useful counter\n\
         window_type composed\nwindow_id 3\nwindow_factors 1.0 1.0\n\
         window_operation product\nwindow_identifiers 1 2\nwindow_units Nanoseconds\n\
         window_level thread\nwindow_scale_relative 1.0\nwindow_end_time_relative 1.0\n\
         window_begin_time_relative 0.0\n",
        single(1, "Counter", "Next Evt Val", Some(counter)),
        single(2, "Useful", "Useful", None)
    )
}

/// The figures of `trace`.
pub fn figures(trace: &Trace) -> Result<Figures, String> {
    figures_in(trace, None)
}

/// The figures of `trace`, or of the part of the run in `window` (ticks, a region of
/// interest): there the runtime is the window's length, useful time is counted inside it,
/// the counters of the bursts that overlap it, and the ideal run is not computed (a replay
/// needs the whole run).
pub fn figures_in(trace: &Trace, window: Option<(u64, u64)>) -> Result<Figures, String> {
    let ctx = Context::new(trace);
    let engine = ctx.engine();
    let objects = &ctx.objects;
    let ns = trace.header.time_unit.ns_per_tick() as f64;
    let (t0, t1) = window.unwrap_or((0, u64::MAX));
    let runtime_us = match window {
        Some((a, b)) => b.saturating_sub(a) as f64 * ns / 1000.0,
        None => trace.header.end_time as f64 * ns / 1000.0,
    };
    let useful_text = format!(
        "#ParaverCFG\nConfigFile.Version: 3.4\nConfigFile.NumWindows: 1\n\n\
         < NEW DISPLAYING WINDOW Useful >\n{}",
        single(1, "Useful", "Useful", None)
    );
    let compute = |text: &str, window: usize| {
        let cfg = Cfg::parse("pop", text).map_err(|e| e.to_string())?;
        let mut found = TypesFound::default();
        engine
            .compute(&cfg, &cfg.windows[window], &mut found)
            .map_err(|e| format!("{e:?}"))
    };
    let useful = compute(&useful_text, 0)?;
    let useful_us = useful
        .rows
        .iter()
        .map(|ivs| {
            let busy: u64 = ivs
                .iter()
                .filter(|i| i.end > i.begin && i.value != 0.0)
                .map(|i| i.end.min(t1).saturating_sub(i.begin.max(t0)))
                .sum();
            busy as f64 * ns / 1000.0
        })
        .collect();
    let present = trace.store.event_types();
    let counter = |ty: u32| -> Result<Option<f64>, String> {
        if !present.contains(&ty) {
            return Ok(None);
        }
        let c = compute(&counter_cfg(ty), 2)?;
        // Paraver's "Sum bursts": every interval's value once.
        Ok(Some(
            c.rows
                .iter()
                .flatten()
                .filter(|i| i.end > i.begin && i.end > t0 && i.begin < t1)
                .map(|i| i.value)
                .sum(),
        ))
    };
    // Each process's first thread makes its MPI calls.
    let firsts: Vec<&[crate::records::Rec]> = objects
        .tasks
        .iter()
        .map(|(_, _, rows)| {
            ctx.records
                .threads
                .get(rows.start)
                .map_or(&[][..], Vec::as_slice)
        })
        .collect();
    let us = |t: u64| t as f64 * ns / 1000.0;
    let ideal_us = if window.is_some() {
        Err("the ideal run is computed for whole runs only".to_owned())
    } else {
        crate::replay::ideal_run(&firsts, trace.store.comms(), trace.pcf.as_ref()).map(|i| {
            (
                us(i.runtime),
                us(i.computation.iter().copied().max().unwrap_or(0)),
            )
        })
    };
    Ok(Figures {
        ideal_us,
        processes: objects.tasks.len(),
        runtime_us,
        useful_us,
        instructions: counter(INSTRUCTIONS)?,
        cycles: counter(CYCLES)?,
    })
}

/// The metrics of a series (as percentages, except speedup, IPC and frequency), in
/// modelfactors' order; `None` where a figure is missing. Run 0 is the reference.
pub fn metrics(runs: &[Figures]) -> Vec<(&'static str, Vec<Option<f64>>)> {
    let Some(r0) = runs.first() else {
        return Vec::new();
    };
    let per = |f: &dyn Fn(&Figures) -> Option<f64>| runs.iter().map(f).collect::<Vec<_>>();
    let ipc = |r: &Figures| Some(r.instructions? / r.cycles?);
    let freq = |r: &Figures| Some(r.cycles? / r.useful_total() / 1000.0);
    let pe = |r: &Figures| r.useful_average() / r.runtime_us * 100.0;
    // Computation scalability for strong scaling: the reference's total useful time over
    // this run's (modelfactors' default).
    let cs = |r: &Figures| r0.useful_total() / r.useful_total() * 100.0;
    let ser = |r: &Figures| {
        let (runtime, computation) = *r.ideal_us.as_ref().ok()?;
        Some(computation / runtime * 100.0)
    };
    vec![
        ("Parallel efficiency", per(&|r| Some(pe(r)))),
        (
            "Load balance",
            per(&|r| Some(r.useful_average() / r.useful_max() * 100.0)),
        ),
        (
            "Communication efficiency",
            per(&|r| Some(r.useful_max() / r.runtime_us * 100.0)),
        ),
        ("Serialization efficiency", per(&|r| ser(r))),
        (
            "Transfer efficiency",
            per(&|r| Some(r.useful_max() / r.runtime_us * 100.0 / ser(r)? * 100.0)),
        ),
        ("Computation scalability", per(&|r| Some(cs(r)))),
        ("Global efficiency", per(&|r| Some(pe(r) * cs(r) / 100.0))),
        (
            "IPC scalability",
            per(&|r| Some(ipc(r)? / ipc(r0)? * 100.0)),
        ),
        (
            "Instruction scalability",
            per(&|r| Some(r0.instructions? / r.instructions? * 100.0)),
        ),
        (
            "Frequency scalability",
            per(&|r| Some(freq(r)? / freq(r0)? * 100.0)),
        ),
        ("Speedup", per(&|r| Some(r0.runtime_us / r.runtime_us))),
        ("Average IPC", per(&|r| ipc(r))),
        ("Average frequency (GHz)", per(&|r| freq(r))),
    ]
}

/// A raw figure of a run, if known.
type Figure = dyn Fn(&Figures) -> Option<f64>;

/// modelfactors' CSV (semicolon-separated, 6 decimals for metrics, 2 for raw figures; an
/// empty field where a figure is not computed).
pub fn csv(runs: &[Figures]) -> String {
    let mut out = String::from("Number of processes");
    for r in runs {
        let _ = write!(out, ";{}", r.processes);
    }
    out.push('\n');
    let field =
        |v: Option<f64>, decimals: usize| v.map_or(String::new(), |v| format!("{v:.decimals$}"));
    for (name, values) in metrics(runs) {
        out.push_str(name);
        for v in values {
            out.push(';');
            out.push_str(&field(v, 6));
        }
        out.push('\n');
    }
    out.push_str("#\n");
    let raw: [(&str, &Figure); 8] = [
        ("#Runtime (us)", &|r| Some(r.runtime_us)),
        ("#Runtime (ideal)", &|r| {
            r.ideal_us.as_ref().ok().map(|i| i.0)
        }),
        ("#Useful duration (average)", &|r| Some(r.useful_average())),
        ("#Useful duration (maximum)", &|r| Some(r.useful_max())),
        ("#Useful duration (total)", &|r| Some(r.useful_total())),
        ("#Useful duration (ideal, max)", &|r| {
            r.ideal_us.as_ref().ok().map(|i| i.1)
        }),
        ("#Useful instructions (total)", &|r| r.instructions),
        ("#Useful cycles (total)", &|r| r.cycles),
    ];
    for (name, f) in raw {
        out.push_str(name);
        for r in runs {
            out.push(';');
            out.push_str(&field(f(r), 2));
        }
        out.push('\n');
    }
    out
}

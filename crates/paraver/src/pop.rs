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
//!
//! Traces with OpenMP regions (Extrae's `Parallel (OMP)` 60000001, or its loop, barrier and
//! task events 60000005, 60000018 and 60000023) also get pypop's hybrid MPI+OpenMP metrics
//! (`MPI_OpenMP_Metrics`, the additive version), from the figures of pypop's cfgs per
//! thread: serial useful computation (useful outside an executed OpenMP parallel or task
//! function), OpenMP useful computation (useful inside any OpenMP construct) and the OpenMP
//! region time (`Parallel (OMP)` open), computed by this crate's engine as paramedir does.

use std::fmt::Write as _;

use prvscope_store::Trace;

use crate::cfg::Cfg;
use crate::filter::TypesFound;
use crate::paramedir::Context;
use crate::window::Interval;

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
    /// The threads of each process (indices into `useful_us`).
    pub tasks: Vec<std::ops::Range<usize>>,
    /// The OpenMP figures, when the trace has OpenMP regions.
    pub openmp: Option<OpenMp>,
    /// The number of applications of the trace (their processes are taken together).
    pub applications: usize,
}

/// pypop's OpenMP figures of one run, per thread (in the order of `Figures::useful_us`), in
/// microseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenMp {
    /// Useful computation outside executed OpenMP parallel and task functions.
    pub serial_useful_us: Vec<f64>,
    /// Useful computation inside OpenMP constructs.
    pub useful_us: Vec<f64>,
    /// Time inside OpenMP parallel regions.
    pub region_us: Vec<f64>,
}

/// Extrae's OpenMP event types: parallel region, barrier, executed parallel function,
/// executed task function.
pub const OMP_PARALLEL: u32 = 60_000_001;
pub const OMP_BARRIER: u32 = 60_000_005;
pub const OMP_FUNCTION: u32 = 60_000_018;
pub const OMP_TASK_FUNCTION: u32 = 60_000_023;

impl Figures {
    /// What a reader of this run's metrics should know: figures not computed and why, and
    /// several applications taken together.
    pub fn caveats(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.applications > 1 {
            out.push(format!(
                "{} applications: their {} processes are taken together (POP's metrics are \
                 defined for one application; pypop refuses such traces)",
                self.applications, self.processes
            ));
        }
        if let Err(why) = &self.ideal_us {
            out.push(format!("no ideal-network figures: {why}"));
        }
        out
    }
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

/// A window of one thread function over every thread (`types`: the event types it reads, all
/// when empty; `compose`: its thread compose function), in cfg text.
fn single(id: u32, name: &str, function: &str, types: &[u32], compose: &str) -> String {
    let mut s = format!(
        "< NEW DISPLAYING WINDOW {name} >\nwindow_name {name}\nwindow_type single\n\
         window_id {id}\nwindow_units Nanoseconds\n\
         window_level thread\nwindow_scale_relative 1.0\nwindow_end_time_relative 1.0\n\
         window_begin_time_relative 0.0\n\
         window_selected_functions {{ 14, {{ {{cpu, Active Thd}}, {{appl, Adding}}, \
         {{task, Adding}}, {{thread, {function}}}, {{node, Adding}}, {{system, Adding}}, \
         {{workload, Adding}}, {{from_obj, All}}, {{to_obj, All}}, {{tag_msg, All}}, \
         {{size_msg, All}}, {{bw_msg, All}}, {{evt_type, {}}}, {{evt_value, All}} }} }}\n{}",
        if types.is_empty() { "All" } else { "=" },
        compose_line(compose, "As Is"),
    );
    if !types.is_empty() {
        let list: Vec<String> = types.iter().map(u32::to_string).collect();
        let _ = writeln!(
            s,
            "window_filter_module evt_type {} {}",
            types.len(),
            list.join(" ")
        );
    }
    s
}

/// A window combining windows `a` and `b` with `operation`, in cfg text (`compose`: its
/// thread and top compose functions).
fn composed(
    id: u32,
    name: &str,
    operation: &str,
    (a, b): (u32, u32),
    (thread, top): (&str, &str),
) -> String {
    format!(
        "< NEW DISPLAYING WINDOW {name} >\nwindow_name {name}\nwindow_type composed\n\
         window_id {id}\nwindow_factors 1.0 1.0\nwindow_operation {operation}\n\
         window_identifiers {a} {b}\nwindow_units Nanoseconds\nwindow_level thread\n\
         window_scale_relative 1.0\nwindow_end_time_relative 1.0\n\
         window_begin_time_relative 0.0\n{}",
        compose_line(thread, top)
    )
}

/// The compose functions of a window: `thread` at thread level, `top` on top.
fn compose_line(thread: &str, top: &str) -> String {
    format!(
        "window_compose_functions {{ 9, {{ {{compose_cpu, As Is}}, {{compose_appl, As Is}}, \
         {{compose_task, As Is}}, {{compose_thread, {thread}}}, {{compose_node, As Is}}, \
         {{compose_system, As Is}}, {{compose_workload, As Is}}, {{topcompose1, {top}}}, \
         {{topcompose2, {top}}} }} }}\n"
    )
}

/// A cfg of `windows`.
fn cfg_text(windows: &[String]) -> String {
    format!(
        "#ParaverCFG\nConfigFile.Version: 3.4\nConfigFile.NumWindows: {}\n\n{}",
        windows.len(),
        windows.join("\n")
    )
}

/// The cfg of useful computation: window 1 is `Useful` (pypop's
/// `total_useful_computation.cfg`).
pub(crate) fn useful_cfg() -> String {
    cfg_text(&[single(1, "Useful", "Useful", &[], "As Is")])
}

/// The cfg of a counter's useful amount: window 3 is `Next Evt Val` of `counter` times
/// `Useful`.
pub(crate) fn counter_cfg(counter: u32) -> String {
    cfg_text(&[
        single(1, "Counter", "Next Evt Val", &[counter], "As Is"),
        single(2, "Useful", "Useful", &[], "As Is"),
        composed(3, "Useful counter", "product", (1, 2), ("As Is", "As Is")),
    ])
}

/// Extrae's OpenMP constructs: parallel region, barrier, executed parallel function, executed
/// task function.
const OMP_CONSTRUCTS: [u32; 4] = [OMP_PARALLEL, OMP_BARRIER, OMP_FUNCTION, OMP_TASK_FUNCTION];

/// The innermost OpenMP construct a thread is in (pypop's `OMP Functions`), in cfg text.
fn omp_constructs(id: u32) -> String {
    single(
        id,
        "OpenMP constructs",
        "Last Evt Val",
        &OMP_CONSTRUCTS,
        "Stacked Val",
    )
}

/// pypop's serial useful computation: window 5 is useful time outside every OpenMP
/// construct.
fn serial_useful_cfg() -> String {
    cfg_text(&[
        single(1, "Useful", "Useful", &[], "As Is"),
        single(2, "Useful", "Useful", &[], "As Is"),
        omp_constructs(3),
        composed(4, "OpenMP useful", "product", (2, 3), ("As Is", "Sign")),
        composed(5, "Serial useful", "substract", (1, 4), ("As Is", "Sign")),
    ])
}

/// pypop's OpenMP useful computation: window 3 is useful time inside an OpenMP construct.
fn omp_useful_cfg() -> String {
    cfg_text(&[
        single(1, "Useful", "Useful", &[], "As Is"),
        omp_constructs(2),
        composed(3, "OpenMP useful", "product", (1, 2), ("As Is", "Sign")),
    ])
}

/// The figures of `trace`.
pub fn figures(trace: &Trace) -> Result<Figures, String> {
    whole(trace)
}

/// The figures of `trace`, or of the part of the run in `window` (ticks, a region of
/// interest): as pypop computes them on the trace cut to the region by Paraver's cutter
/// ([`crate::cut::in_memory`]: states cut at the edges, the first value of each counter zeroed, what
/// is open closed at the end, the runtime the cut's), the ideal run included. A region is a
/// run of its own: its metrics are computed with it as its own reference.
pub fn figures_in(trace: &Trace, window: Option<(u64, u64)>) -> Result<Figures, String> {
    match window {
        Some((t0, t1)) => {
            if t1 <= t0 {
                return Err(format!("an empty region [{t0}, {t1})"));
            }
            whole(&crate::cut::in_memory(trace, t0, t1))
        }
        None => whole(trace),
    }
}

/// The figures of a whole run.
fn whole(trace: &Trace) -> Result<Figures, String> {
    let ctx = Context::new(trace);
    let engine = ctx.engine();
    let objects = &ctx.objects;
    let ns = trace.header.time_unit.ns_per_tick() as f64;
    let runtime_us = trace.header.end_time as f64 * ns / 1000.0;
    // A window of a cfg of POP's, walked object by object (in parallel), each object's
    // intervals folded by `fold` as they come.
    let per_object = |text: &str,
                      window: usize,
                      fold: &(dyn Fn(&mut dyn Iterator<Item = Interval>) -> f64 + Sync)|
     -> Result<Vec<f64>, String> {
        use rayon::prelude::*;
        let cfg = Cfg::parse("pop", text).map_err(|e| e.to_string())?;
        let mut found = TypesFound::default();
        let w = engine
            .window(&cfg, &cfg.windows[window], &mut found)
            .map_err(|e| format!("{e:?}"))?;
        Ok((0..w.rows())
            .into_par_iter()
            .map(|o| fold(&mut w.row(o)))
            .collect())
    };
    // Time with a non-zero value per thread (a histogram's `Time` of every column but 0's).
    let busy_us = |text: &str, window: usize| -> Result<Vec<f64>, String> {
        per_object(text, window, &|ivs| {
            let busy: u64 = ivs
                .filter(|i| i.end > i.begin && i.value != 0.0)
                .map(|i| i.end - i.begin)
                .sum();
            busy as f64 * ns / 1000.0
        })
    };
    let useful_us = busy_us(&useful_cfg(), 0)?;
    if useful_us.iter().all(|&u| u == 0.0) {
        return Err(
            "no useful computation: no thread is in the Running state (Paraver's state 1), \
             which POP's metrics are built on"
                .to_owned(),
        );
    }
    let present = trace.store.event_types();
    let counter = |ty: u32| -> Result<Option<f64>, String> {
        if !present.contains(&ty) {
            return Ok(None);
        }
        // Paraver's "Sum bursts": every interval's value once, object after object (one
        // sum, in that order).
        let cfg = Cfg::parse("pop", &counter_cfg(ty)).map_err(|e| e.to_string())?;
        let mut found = TypesFound::default();
        let w = engine
            .window(&cfg, &cfg.windows[2], &mut found)
            .map_err(|e| format!("{e:?}"))?;
        let mut sum = 0.0;
        for o in 0..w.rows() {
            for i in w.row(o).filter(|i| i.end > i.begin) {
                sum += i.value;
            }
        }
        Ok(Some(sum))
    };
    // Each process's first thread makes its MPI calls.
    let firsts: Vec<usize> = objects
        .tasks
        .iter()
        .map(|(_, _, rows)| rows.start)
        .collect();
    let us = |t: u64| t as f64 * ns / 1000.0;
    let ideal_us = crate::replay::ideal_run(&firsts, &ctx.source, trace.pcf.as_ref()).map(|i| {
        (
            us(i.runtime),
            us(i.computation.iter().copied().max().unwrap_or(0)),
        )
    });
    // pypop counts no OpenMP time when the trace has none of the constructs' events (its
    // cfgs' windows would read nothing: paramedir refuses them).
    let openmp = if OMP_CONSTRUCTS.iter().any(|t| present.contains(t)) {
        Some(OpenMp {
            serial_useful_us: busy_us(&serial_useful_cfg(), 4)?,
            useful_us: busy_us(&omp_useful_cfg(), 2)?,
            region_us: busy_us(&cfg_text(&[omp_constructs(1)]), 0)?,
        })
    } else {
        None
    };
    Ok(Figures {
        ideal_us,
        tasks: objects
            .tasks
            .iter()
            .map(|(_, _, rows)| rows.clone())
            .collect(),
        openmp,
        applications: {
            let mut appls: Vec<u32> = objects.tasks.iter().map(|(a, _, _)| *a).collect();
            appls.dedup();
            appls.len()
        },
        processes: objects.tasks.len(),
        runtime_us,
        useful_us,
        instructions: counter(INSTRUCTIONS)?,
        cycles: counter(CYCLES)?,
    })
}

/// One row of the metrics table.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub name: &'static str,
    /// A percentage (an efficiency or scalability), else a plain figure (speedup, IPC,
    /// frequency).
    pub percent: bool,
    /// Its depth in POP's tree (global efficiency 0, parallel efficiency 1, load balance
    /// 2...); plain figures 0.
    pub depth: u8,
    /// Its value for each run; `None` where a figure is missing.
    pub values: Vec<Option<f64>>,
}

/// The figures pypop's hybrid metrics read, per process (its first thread, the one that
/// makes the MPI calls), of one run; a run without OpenMP regions counts all its useful time
/// as serial, as pypop does.
struct Hybrid {
    /// Serial useful computation plus OpenMP region time: the time outside MPI.
    non_mpi: Vec<f64>,
    serial: Vec<f64>,
    region: Vec<f64>,
    /// OpenMP useful computation averaged over each process's threads.
    omp_useful: Vec<f64>,
    /// OpenMP useful computation averaged over all threads.
    omp_useful_average: f64,
    /// The number of threads of the first process.
    threads: f64,
}

impl Hybrid {
    fn of(r: &Figures) -> Option<Hybrid> {
        if r.tasks.is_empty() || r.tasks.iter().any(std::ops::Range::is_empty) {
            return None;
        }
        let omp = r.openmp.as_ref();
        let serial_of = |i: usize| omp.map_or(r.useful_us.get(i), |o| o.serial_useful_us.get(i));
        let get = |v: Option<&Vec<f64>>, i: usize| v.and_then(|v| v.get(i)).copied();
        let mut h = Hybrid {
            non_mpi: Vec::new(),
            serial: Vec::new(),
            region: Vec::new(),
            omp_useful: Vec::new(),
            omp_useful_average: 0.0,
            threads: r.tasks[0].len() as f64,
        };
        let mut omp_total = 0.0;
        for t in &r.tasks {
            let serial = *serial_of(t.start)?;
            let region = get(omp.map(|o| &o.region_us), t.start).unwrap_or(0.0);
            let mut useful = 0.0;
            for i in t.clone() {
                useful += get(omp.map(|o| &o.useful_us), i).unwrap_or(0.0);
            }
            omp_total += useful;
            h.serial.push(serial);
            h.region.push(region);
            h.non_mpi.push(serial + region);
            h.omp_useful.push(useful / t.len() as f64);
        }
        let threads: usize = r.tasks.iter().map(ExactSizeIterator::len).sum();
        h.omp_useful_average = omp_total / threads as f64;
        Some(h)
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::MIN, f64::max)
}

/// The metrics of a series, in modelfactors' order; when a run has OpenMP regions, pypop's
/// hybrid MPI+OpenMP metrics follow transfer efficiency. Run 0 is the reference.
pub fn metrics(runs: &[Figures]) -> Vec<Metric> {
    let Some(r0) = runs.first() else {
        return Vec::new();
    };
    // A figure that is not a number (0/0, a division by a zero figure) is not computed.
    let row = |name: &'static str, depth: u8, f: &dyn Fn(&Figures) -> Option<f64>| Metric {
        name,
        percent: true,
        depth,
        values: runs
            .iter()
            .map(|r| f(r).filter(|v| v.is_finite()))
            .collect(),
    };
    let plain = |name: &'static str, f: &dyn Fn(&Figures) -> Option<f64>| Metric {
        percent: false,
        ..row(name, 0, f)
    };
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
    let mut rows = vec![
        row("Parallel efficiency", 1, &|r| Some(pe(r))),
        row("Load balance", 2, &|r| {
            Some(r.useful_average() / r.useful_max() * 100.0)
        }),
        row("Communication efficiency", 2, &|r| {
            Some(r.useful_max() / r.runtime_us * 100.0)
        }),
        row("Serialization efficiency", 3, &ser),
        row("Transfer efficiency", 3, &|r| {
            Some(r.useful_max() / r.runtime_us * 100.0 / ser(r)? * 100.0)
        }),
    ];
    if runs.iter().any(|r| r.openmp.is_some()) {
        rows.extend(hybrid_metrics(runs));
    }
    rows.extend([
        row("Computation scalability", 1, &|r| Some(cs(r))),
        row("Global efficiency", 0, &|r| Some(pe(r) * cs(r) / 100.0)),
        row("IPC scalability", 2, &|r| Some(ipc(r)? / ipc(r0)? * 100.0)),
        row("Instruction scalability", 2, &|r| {
            Some(r0.instructions? / r.instructions? * 100.0)
        }),
        row("Frequency scalability", 2, &|r| {
            Some(freq(r)? / freq(r0)? * 100.0)
        }),
        plain("Speedup", &|r| Some(r0.runtime_us / r.runtime_us)),
        plain("Average IPC", &ipc),
        plain("Average frequency (GHz)", &freq),
    ]);
    rows
}

/// pypop's hybrid metrics (`MPI_OpenMP_Metrics`, additive: each inefficiency is a share of
/// the runtime, and parallel efficiency's loss is the process level's plus the thread
/// level's), in percent.
fn hybrid_metrics(runs: &[Figures]) -> Vec<Metric> {
    let hybrid: Vec<Option<Hybrid>> = runs.iter().map(Hybrid::of).collect();
    let row =
        |name: &'static str, depth: u8, f: &dyn Fn(&Figures, &Hybrid) -> Option<f64>| Metric {
            name,
            percent: true,
            depth,
            values: runs
                .iter()
                .zip(&hybrid)
                .map(|(r, h)| Some(f(r, h.as_ref()?)? * 100.0).filter(|v| v.is_finite()))
                .collect(),
        };
    let ideal = |r: &Figures| r.ideal_us.as_ref().ok().map(|i| i.0);
    vec![
        row("Process level efficiency", 2, &|r, h| {
            Some(mean(&h.non_mpi) / r.runtime_us)
        }),
        row("MPI load balance", 3, &|r, h| {
            Some(1.0 - (max(&h.non_mpi) - mean(&h.non_mpi)) / r.runtime_us)
        }),
        row("MPI communication efficiency", 3, &|r, h| {
            Some(max(&h.non_mpi) / r.runtime_us)
        }),
        row("MPI serialisation efficiency", 4, &|r, h| {
            Some(1.0 - (ideal(r)? - max(&h.non_mpi)) / r.runtime_us)
        }),
        row("MPI transfer efficiency", 4, &|r, _| {
            Some(ideal(r)? / r.runtime_us)
        }),
        row("Thread level efficiency", 2, &|r, h| {
            let serial_loss = mean(&h.serial) * (1.0 - 1.0 / h.threads);
            Some(1.0 - (mean(&h.region) - h.omp_useful_average + serial_loss) / r.runtime_us)
        }),
        row("OpenMP region efficiency", 3, &|r, h| {
            let lost: Vec<f64> = h
                .region
                .iter()
                .zip(&h.omp_useful)
                .map(|(a, b)| a - b)
                .collect();
            Some(1.0 - mean(&lost) / r.runtime_us)
        }),
        row("Serial region efficiency", 3, &|r, h| {
            Some(1.0 - mean(&h.serial) / r.runtime_us * (1.0 - 1.0 / h.threads))
        }),
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
    for m in metrics(runs) {
        out.push_str(m.name);
        for v in m.values {
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
    // pypop's OpenMP figures, averaged over processes (their first threads) or threads.
    let openmp: [(&str, &Figure); 3] = [
        ("#Serial useful duration (average of processes)", &|r| {
            Some(mean(&Hybrid::of(r)?.serial))
        }),
        ("#OpenMP region duration (average of processes)", &|r| {
            Some(mean(&Hybrid::of(r)?.region))
        }),
        ("#OpenMP useful duration (average)", &|r| {
            Some(Hybrid::of(r)?.omp_useful_average)
        }),
    ];
    let with_openmp = runs.iter().any(|r| r.openmp.is_some());
    for (name, f) in raw
        .into_iter()
        .chain(openmp.into_iter().filter(|_| with_openmp))
    {
        out.push_str(name);
        for r in runs {
            out.push(';');
            out.push_str(&field(f(r), 2));
        }
        out.push('\n');
    }
    out
}

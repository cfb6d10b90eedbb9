//! `prvscope cluster`: CPU-burst clustering (BSC's Clustering Suite's DBSCAN): the bursts
//! with their cluster, the per-cluster table, and optionally the trace with one cluster
//! event per burst.

use std::fmt::Write as _;
use std::path::PathBuf;

use prvscope_paraver::cluster::{self, Class, Clustering, Feature, Measure};
use prvscope_store::Trace;

/// Clusters the trace's CPU bursts (time in the Running state, outside MPI and runtime
/// calls) with DBSCAN, as BSC's Clustering Suite does.
#[derive(clap::Args)]
pub struct Args {
    /// The trace: x.prv, x.prv.xz or x.prv.gz.
    pub trace: PathBuf,
    /// The first feature: `duration`, `IPC`, a counter's event type or its `.pcf` name
    /// (e.g. `PAPI_TOT_INS`). Default: `PAPI_TOT_INS` when the trace has instructions and
    /// cycles, else the duration.
    #[arg(long)]
    pub x: Option<String>,
    /// The second feature (default: IPC with instructions and cycles, else none).
    #[arg(long)]
    pub y: Option<String>,
    /// Scale of the first feature: log or linear (default: log for a duration or counter,
    /// linear for IPC).
    #[arg(long, value_parser = ["log", "linear"])]
    pub x_scale: Option<String>,
    /// Scale of the second feature (as --x-scale).
    #[arg(long, value_parser = ["log", "linear"])]
    pub y_scale: Option<String>,
    /// DBSCAN's radius, in the features' space normalised to [0, 1], or `auto`: chosen from
    /// the bursts (the knee of their sorted core distances, at least 0.03).
    #[arg(long, default_value = "auto")]
    pub eps: String,
    /// Refinement steps: the bursts left as noise are offered to the clusters found at
    /// twice the radius, then four times..., never merging two clusters (0: DBSCAN alone,
    /// as the Clustering Suite runs it).
    #[arg(long, default_value_t = cluster::DEFAULT_REFINE)]
    pub refine: u32,
    /// DBSCAN's minimum points of a dense neighbourhood (the point itself counted).
    #[arg(long, default_value_t = cluster::DEFAULT_MIN_POINTS)]
    pub min_points: usize,
    /// Bursts shorter than this are left out: ticks, or a time like 1ms, 500us.
    #[arg(long, default_value = "1ms")]
    pub min_duration: String,
    /// Print the bursts as CSV (thread, begin, end, duration, features, cluster) instead of
    /// the per-cluster table.
    #[arg(long)]
    pub csv: bool,
    /// Write the trace with one cluster event per burst (type 90000001) to this file
    /// (.prv, .prv.xz or .prv.gz), with its .pcf and .row.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub part: super::PartArgs,
}

/// A feature from its name on the command line.
fn feature(trace: &Trace, name: &str, scale: Option<&str>) -> anyhow::Result<Feature> {
    let lower = name.to_ascii_lowercase();
    let measure = if lower == "duration" {
        Measure::Duration
    } else if lower == "ipc" {
        Measure::Ipc
    } else if let Ok(ty) = name.parse::<u32>() {
        Measure::Counter(ty)
    } else {
        let pcf = trace.pcf.as_ref();
        let found = pcf.and_then(|p| {
            p.event_types.iter().find_map(|(&ty, t)| {
                let label = t.label.trim();
                let first = label.split_whitespace().next().unwrap_or("");
                (label.eq_ignore_ascii_case(name) || first.eq_ignore_ascii_case(name)).then_some(ty)
            })
        });
        match found {
            Some(ty) => Measure::Counter(ty),
            None => anyhow::bail!(
                "no feature `{name}`: expected duration, IPC, an event type or an event \
                 type's .pcf name"
            ),
        }
    };
    let log = match scale {
        Some(s) => s == "log",
        None => measure != Measure::Ipc,
    };
    Ok(Feature { measure, log })
}

/// Runs `cluster`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let part = &args.part;
    let t = part.load(
        &args.trace,
        prvscope_store::NullOverride::Auto,
        &part.subset(),
    )?;
    super::print_warnings(&t);
    let (mut options, note) = cluster::Options::for_trace(&t);
    let ns = t.header.time_unit.ns_per_tick();
    options.min_duration =
        prvscope_format::units::parse_time(&args.min_duration, ns).map_err(anyhow::Error::msg)?;
    options.eps = if args.eps == "auto" {
        None
    } else {
        Some(
            args.eps
                .parse::<f64>()
                .map_err(|_| anyhow::anyhow!("--eps {}: expected `auto` or a number", args.eps))?,
        )
    };
    options.min_points = args.min_points;
    options.refine = args.refine;
    let mut note = note;
    if let Some(x) = &args.x {
        options.features = vec![feature(&t, x, args.x_scale.as_deref())?];
        if let Some(y) = &args.y {
            options
                .features
                .push(feature(&t, y, args.y_scale.as_deref())?);
        }
        note = None;
    } else {
        anyhow::ensure!(args.y.is_none(), "--y needs --x");
        for (f, scale) in options
            .features
            .iter_mut()
            .zip([&args.x_scale, &args.y_scale])
        {
            if let Some(s) = scale {
                f.log = s == "log";
            }
        }
    }
    let c = cluster::cluster(&t, &options)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.trace.display()))?;
    if let Some(n) = &note {
        eprintln!("note: {n}");
    }
    if args.csv {
        print!("{}", csv(&t, &c));
    } else {
        print!("{}", table(&t, &c));
    }
    if let Some(out) = &args.output {
        let w = cluster::write::write_clustered(&args.trace, &t, &c, out)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", out.display()))?;
        eprintln!(
            "wrote {} ({} lines of the trace, {} cluster events)",
            out.display(),
            w.lines,
            w.events
        );
    }
    Ok(())
}

/// The thread's name, `appl.task.thread`.
fn thread_name(t: &Trace, row: u32) -> String {
    let [a, k, h] = prvscope_paraver::cut::row_ids(&t.header)[row as usize];
    format!("{a}.{k}.{h}")
}

/// The bursts as CSV.
pub fn csv(t: &Trace, c: &Clustering) -> String {
    let pcf = t.pcf.as_ref();
    let mut s = String::from("thread,begin,end,duration");
    for f in &c.options.features {
        let mut plain = *f;
        plain.log = false;
        let _ = write!(s, ",{}", plain.name(pcf).replace(',', ";"));
    }
    s.push_str(",cluster\n");
    for ((b, v), class) in c.bursts.list.iter().zip(&c.values).zip(&c.class) {
        let _ = write!(
            s,
            "{},{},{},{}",
            thread_name(t, b.thread),
            b.begin,
            b.end,
            b.duration()
        );
        for x in v {
            if x.is_finite() {
                let _ = write!(s, ",{x}");
            } else {
                s.push(',');
            }
        }
        let _ = writeln!(
            s,
            ",{}",
            match class {
                Class::Cluster(n) => n.to_string(),
                Class::Noise => "noise".into(),
                Class::Missing => "missing".into(),
            }
        );
    }
    s
}

/// The per-cluster table.
pub fn table(t: &Trace, c: &Clustering) -> String {
    let pcf = t.pcf.as_ref();
    let ns = c.bursts.ns_per_tick;
    let names: Vec<String> = c.options.features.iter().map(|f| f.name(pcf)).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} bursts (from the {}) of {} ms or more ({} shorter left out, {:.3} s); features: \
         {}; {}, min points {}",
        c.bursts.list.len(),
        c.bursts.source,
        c.options.min_duration as f64 * ns / 1e6,
        c.bursts.filtered.0,
        c.bursts.filtered.1 as f64 * ns / 1e9,
        names.join(", "),
        radius_text(c),
        c.options.min_points
    );
    if let Some(note) = c.bursts.cut_note() {
        s.insert_str(s.len() - 1, &format!("; {note}"));
    }
    let _ = writeln!(
        s,
        "{:<14} {:>9} {:>12} {:>7} {:>14} {:>16} {:>6} {:>6} {:>6} {:>6}",
        "cluster",
        "bursts",
        "time (s)",
        "share",
        "mean dur (ms)",
        "mean instr",
        "IPC",
        "SPMD",
        "found",
        "joined"
    );
    let opt = |v: Option<f64>, digits: usize| {
        v.map_or_else(|| "-".to_owned(), |x| format!("{x:.digits$}"))
    };
    for f in &c.figures {
        let _ = writeln!(
            s,
            "{:<14} {:>9} {:>12.6} {:>6.2}% {:>14.3} {:>16} {:>6} {:>6} {:>6} {:>6}",
            f.class.label(),
            f.bursts,
            f.total as f64 * ns / 1e9,
            f.share * 100.0,
            f.mean_ns / 1e6,
            opt(f.mean_instructions, 0),
            opt(f.ipc, 3),
            opt(f.spmd, 3),
            opt(f.found_at, 3),
            if f.found_at.is_some() {
                f.joined.to_string()
            } else {
                "-".to_owned()
            },
        );
    }
    if let Some(n) = &c.spmd_note {
        let _ = writeln!(s, "SPMD scores not given: {n}");
    }
    if c.options.refine > 0 {
        let _ = writeln!(
            s,
            "found: the radius at which a cluster was found; joined: its bursts that were \
             noise at that radius and joined it at a larger one"
        );
    }
    s
}

/// The radius as the clustering used it: given or chosen from the bursts, and the
/// refinement's steps.
pub fn radius_text(c: &Clustering) -> String {
    let mut s = match (c.options.eps, c.knee) {
        (Some(e), _) => format!("eps {e}"),
        (None, Some(k)) => format!(
            "eps {:.4} (from the bursts: their core distances' knee {k:.4}, at least {})",
            c.eps,
            cluster::DEFAULT_EPS
        ),
        (None, None) => format!(
            "eps {} (from the bursts: their core distances have no knee)",
            c.eps
        ),
    };
    match c.options.refine {
        0 => {}
        1 => {
            let _ = write!(s, ", refined once (to {:.4})", c.eps * 2.0);
        }
        n => {
            let _ = write!(
                s,
                ", refined in {n} steps (to {:.4})",
                c.eps * f64::from(1u32 << n.min(30))
            );
        }
    }
    s
}

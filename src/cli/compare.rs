//! `prvscope compare`: two runs side by side, per scope, per state and per POP metric (see
//! `prvscope_compare` for what each figure is).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use prvscope_compare::{self as compare, Comparison, Kind, Order, Region};
use prvscope_format::Subset;
use prvscope_store::NullOverride;

/// Compare two runs: per scope (function, OpenMP region, MPI call) and per state, each run's
/// time (ns over all threads, as `scopes` and `stats` give it), B less A, and per thread;
/// then the POP metrics of both, run A the reference.
#[derive(clap::Args)]
pub struct Args {
    /// Run A (the reference): x.prv, x.prv.xz or x.prv.gz.
    pub a: PathBuf,
    /// Run B.
    pub b: PathBuf,
    /// Scope event types, as `scopes --types` takes them (default: chosen from each trace).
    #[arg(long, value_delimiter = ',')]
    pub types: Vec<String>,
    /// Compare from this time of A (its ticks; default 0).
    #[arg(long)]
    pub from_a: Option<u64>,
    /// ... to this time of A (default: its end).
    #[arg(long)]
    pub to_a: Option<u64>,
    /// Compare from this time of B (its ticks; default 0).
    #[arg(long)]
    pub from_b: Option<u64>,
    /// ... to this time of B (default: its end).
    #[arg(long)]
    pub to_b: Option<u64>,
    /// Align the runs on a region found by an event in each: `TYPE` (its values other than
    /// 0: iterations, phases) or `TYPE=VALUE`; the `--occurrence`-th on each thread, from the
    /// earliest start to the latest end (the thread's next event of the type).
    #[arg(long, conflicts_with_all = ["from_a", "to_a", "from_b", "to_b"])]
    pub region: Option<String>,
    /// Which occurrence of the region's event (1-based).
    #[arg(long, default_value_t = 1, requires = "region")]
    pub occurrence: usize,
    /// Row order: abs-delta (the largest change first), delta, name, a, b.
    #[arg(long, default_value = "abs-delta", value_parser = parse_order)]
    pub sort: Order,
    /// Leave out the POP metrics (they replay each run on an ideal network).
    #[arg(long)]
    pub no_pop: bool,
    /// CSV: `kind,scope,type,a,b,delta,delta_pct,a_per_thread,b_per_thread,a_entries,b_entries`
    /// (ns), one row per scope, as `scopes --csv` names them (`--rows` adds the states and the
    /// POP metrics).
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// The rows written: any of `scopes`, `states`, `pop` (default: all of them, and only
    /// the scopes with `--csv`).
    #[arg(long, value_delimiter = ',', value_parser = ["scopes", "states", "pop"])]
    pub rows: Vec<String>,
    /// JSON: both runs' regions, every row and the metrics.
    #[arg(long)]
    pub json: bool,
    /// How to read nulls (see `info`).
    #[arg(long, default_value = "auto")]
    pub null: NullOverride,
    #[command(flatten)]
    pub cache: super::CacheArgs,
}

fn parse_order(s: &str) -> Result<Order, String> {
    Ok(match s {
        "abs-delta" => Order::AbsDelta,
        "delta" => Order::Delta,
        "name" => Order::Name,
        "a" => Order::A,
        "b" => Order::B,
        _ => return Err(format!("{s}: one of abs-delta, delta, name, a, b")),
    })
}

/// `TYPE` or `TYPE=VALUE`.
fn parse_region(text: &str, n: usize) -> anyhow::Result<Region> {
    let (ty, value) = match text.split_once('=') {
        Some((t, v)) => (t, Some(v)),
        None => (text, None),
    };
    let ty: u32 = ty
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("--region {text}: TYPE or TYPE=VALUE, numbers"))?;
    let value = value
        .map(|v| v.trim().parse::<u64>())
        .transpose()
        .map_err(|_| anyhow::anyhow!("--region {text}: VALUE is a number"))?;
    Ok(Region::Event { ty, value, n })
}

/// Runs `compare`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let region_of = |from: Option<u64>, to: Option<u64>| -> anyhow::Result<Region> {
        if let Some(text) = &args.region {
            return parse_region(text, args.occurrence);
        }
        Ok(if from.is_none() && to.is_none() {
            Region::Whole
        } else {
            Region::Range(from.unwrap_or(0), to.unwrap_or(u64::MAX))
        })
    };
    let pop = !args.no_pop && wanted(args, "pop");
    let options = compare::Options {
        types: args.types.clone(),
        pop,
    };
    let side = |path: &Path, region: Region| -> anyhow::Result<compare::Run> {
        let t = super::load_checked(
            path,
            args.null,
            &Subset::default(),
            &args.cache,
            Some(None),
            prvscope_import::cache::CacheCheck::AtOpen,
        )?;
        super::print_warnings_of(&t, Some(path));
        let found =
            compare::find(&t, &region).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let run = compare::run(&t, found, &options)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        for note in &run.notes {
            eprintln!("note: {}: {note}", path.display());
        }
        super::let_go_at_exit(t);
        Ok(run)
    };
    let a = side(&args.a, region_of(args.from_a, args.to_a)?)?;
    let b = side(&args.b, region_of(args.from_b, args.to_b)?)?;
    let mut c = compare::compare(a, b);
    for note in &c.notes {
        eprintln!("note: {note}");
    }
    compare::sort(&mut c.rows, args.sort);
    if let Err(why) = &c.metrics
        && pop
    {
        eprintln!("note: no POP metrics: {why}");
    }
    c.rows.retain(|r| match r.kind {
        Kind::Scope => wanted(args, "scopes"),
        Kind::State => wanted(args, "states"),
    });
    let out = if args.csv {
        csv(&c)
    } else if args.json {
        json(&c, args).to_string() + "\n"
    } else {
        text(&c, args, pop)
    };
    print!("{out}");
    Ok(())
}

/// Are the rows `what` (`scopes`, `states`, `pop`) written? (The CSV's default is a table of
/// one kind of figure: the scopes.)
fn wanted(args: &Args, what: &str) -> bool {
    if args.rows.is_empty() {
        what == "scopes" || !args.csv
    } else {
        args.rows.iter().any(|r| r == what)
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Scope => "scope",
        Kind::State => "state",
    }
}

fn csv_field(x: &str) -> String {
    if x.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", x.replace('"', "\"\""))
    } else {
        x.to_owned()
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(String::new, |v| format!("{v:.digits$}"))
}

/// The CSV: one row per scope and state kept, then one per POP metric.
fn csv(c: &Comparison) -> String {
    let mut s = String::from(
        "kind,scope,type,a,b,delta,delta_pct,a_per_thread,b_per_thread,a_entries,b_entries\n",
    );
    for r in &c.rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{}",
            kind_name(r.kind),
            csv_field(&r.name),
            csv_field(&r.ty),
            r.a,
            r.b,
            r.delta(),
            opt(r.delta_percent(), 2),
            opt(c.per_thread(r.a, true), 1),
            opt(c.per_thread(r.b, false), 1),
            r.entries.0,
            r.entries.1
        );
    }
    if let Ok(metrics) = &c.metrics {
        for m in metrics {
            let _ = writeln!(
                s,
                "pop,{},{},{},{},{},,,,,",
                csv_field(m.name),
                if m.percent { "POP %" } else { "POP" },
                opt(m.a, 6),
                opt(m.b, 6),
                opt(m.delta(), 6)
            );
        }
    }
    s
}

fn side_json(r: &compare::Run, path: &Path) -> serde_json::Value {
    serde_json::json!({
        "trace": path.display().to_string(),
        "region": r.region.how,
        "t0": r.region.t0,
        "t1": r.region.t1,
        "threads": r.threads,
        "notes": r.notes,
    })
}

fn json(c: &Comparison, args: &Args) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = c
        .rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "kind": kind_name(r.kind),
                "scope": r.name,
                "type": r.ty,
                "a": r.a,
                "b": r.b,
                "delta": i64::try_from(r.delta()).ok(),
                "delta_pct": r.delta_percent(),
                "a_per_thread": c.per_thread(r.a, true),
                "b_per_thread": c.per_thread(r.b, false),
                "a_entries": r.entries.0,
                "b_entries": r.entries.1,
            })
        })
        .collect();
    let pop = match &c.metrics {
        Ok(m) => serde_json::Value::Array(
            m.iter()
                .map(|m| {
                    serde_json::json!({
                        "metric": m.name, "percent": m.percent,
                        "a": m.a, "b": m.b, "delta": m.delta(),
                    })
                })
                .collect(),
        ),
        Err(why) => serde_json::json!({ "refused": why }),
    };
    serde_json::json!({
        "a": side_json(&c.a, &args.a),
        "b": side_json(&c.b, &args.b),
        "unit": "ns",
        "rows": rows,
        "pop": pop,
        "notes": c.notes,
    })
}

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

/// The text table: times in ms.
fn text(c: &Comparison, args: &Args, pop: bool) -> String {
    let mut s = String::new();
    for (name, run, path) in [("A", &c.a, &args.a), ("B", &c.b, &args.b)] {
        let _ = writeln!(
            s,
            "{name}: {} ({} threads counted), {}",
            path.display(),
            run.threads,
            run.region.how
        );
    }
    let head = [
        "kind", "scope", "type", "A ms", "B ms", "delta ms", "delta %", "A/thread", "B/thread",
    ];
    let body: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r| {
            vec![
                kind_name(r.kind).to_owned(),
                r.name.clone(),
                r.ty.clone(),
                ms(r.a as f64),
                ms(r.b as f64),
                format!("{:+.3}", r.delta() as f64 / 1e6),
                match r.delta_percent() {
                    Some(p) => format!("{p:+.1}"),
                    // Time in B only.
                    None if r.b > 0 => "new".to_owned(),
                    None => String::new(),
                },
                c.per_thread(r.a, true).map_or_else(String::new, ms),
                c.per_thread(r.b, false).map_or_else(String::new, ms),
            ]
        })
        .collect();
    let head: Vec<String> = head.iter().map(|h| (*h).to_owned()).collect();
    aligned(&mut s, &head, &body, 3);
    match &c.metrics {
        Ok(m) => {
            let _ = writeln!(s, "\nPOP metrics (A the reference)");
            let head: Vec<String> = ["metric", "A", "B", "delta"]
                .iter()
                .map(|h| (*h).to_owned())
                .collect();
            let body: Vec<Vec<String>> = m
                .iter()
                .map(|m| vec![m.name.to_owned(), m.text(m.a), m.text(m.b), m.delta_text()])
                .collect();
            aligned(&mut s, &head, &body, 1);
        }
        Err(why) if pop => {
            let _ = writeln!(s, "\nPOP metrics not computed: {why}");
        }
        Err(_) => {}
    }
    s
}

/// `head` and `body` as columns, the first `text` of them to the left.
fn aligned(s: &mut String, head: &[String], body: &[Vec<String>], text: usize) {
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            std::iter::once(head)
                .chain(body.iter().map(Vec::as_slice))
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(head).chain(body.iter().map(Vec::as_slice)) {
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i < text {
                let _ = write!(s, "{cell:w$}  ");
            } else {
                let _ = write!(s, "{cell:>w$}  ");
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
    }
}

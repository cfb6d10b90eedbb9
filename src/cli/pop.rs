//! `prvscope pop`: POP efficiency metrics of a scaling series, in the layout of BSC's
//! modelfactors (see `prvscope_paraver::pop` for the definitions).

use std::fmt::Write as _;
use std::path::PathBuf;

use prvscope_format::Subset;
use prvscope_paraver::pop;
use prvscope_store::NullOverride;

/// POP efficiency metrics of one trace or of the runs of a scaling series (one column per
/// trace, ordered by number of processes; the first is the reference).
#[derive(clap::Args)]
pub struct Args {
    /// The traces: x.prv, x.prv.xz or x.prv.gz.
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// modelfactors' semicolon-separated CSV instead of a table.
    #[arg(long)]
    pub csv: bool,
    /// The metrics of a region of interest: each trace cut from this time (trace ticks) as
    /// Paraver's cutter cuts it, as pypop computes them on cut traces (default: 0).
    #[arg(long)]
    pub from: Option<u64>,
    /// The region's end (trace ticks; default: the trace's duration).
    #[arg(long)]
    pub to: Option<u64>,
    #[command(flatten)]
    pub cache: super::CacheArgs,
}

/// Runs `pop`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let mut runs = Vec::with_capacity(args.traces.len());
    for path in &args.traces {
        // The Paraver semantics read `N` as 0, as paramedir does.
        let t = super::load_checked(
            path,
            NullOverride::Auto,
            &Subset::default(),
            &args.cache,
            None,
            prvscope_import::cache::CacheCheck::AtOpen,
        )?;
        super::print_warnings(&t);
        let region = (args.from.is_some() || args.to.is_some())
            .then(|| (args.from.unwrap_or(0), args.to.unwrap_or(t.header.end_time)));
        if let Some((t0, t1)) = region {
            anyhow::ensure!(
                t0 < t1,
                "{}: the region [{t0}, {t1}) is empty (--from must be before --to)",
                path.display()
            );
            anyhow::ensure!(
                t0 < t.header.end_time,
                "{}: the region starts at {t0}, after the trace's end ({})",
                path.display(),
                t.header.end_time
            );
        }
        let f =
            pop::figures_in(&t, region).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        runs.push((path, f));
    }
    if args.from.is_some() || args.to.is_some() {
        eprintln!(
            "prvscope: the region of each trace is cut as Paraver's cutter cuts it (states cut \
             at the edges, each counter's first value zeroed, open calls closed at the end) \
             and measured as pypop measures the cut trace"
        );
    }
    runs.sort_by_key(|(_, r)| r.processes);
    let (paths, runs): (Vec<_>, Vec<_>) = runs.into_iter().unzip();
    // Why a run has no ideal figures (the CSV leaves them empty), several applications.
    for (path, r) in paths.iter().zip(&runs) {
        for caveat in r.caveats() {
            eprintln!("prvscope: {}: {caveat}", path.display());
        }
    }
    let csv = pop::csv(&runs);
    if args.csv {
        print!("{csv}");
        return Ok(());
    }
    // A readable table: the CSV's fields aligned, blanks named.
    let rows: Vec<Vec<String>> = csv
        .lines()
        .filter(|l| *l != "#")
        .map(|l| {
            l.split(';')
                .enumerate()
                .map(|(i, f)| {
                    if i > 0 && f.is_empty() {
                        "n/a".to_string()
                    } else {
                        f.trim_start_matches('#').to_string()
                    }
                })
                .collect()
        })
        .collect();
    let width = |c: usize| {
        rows.iter()
            .filter_map(|r| r.get(c))
            .map(String::len)
            .max()
            .unwrap_or(0)
    };
    let columns = rows.first().map_or(0, Vec::len);
    for r in &rows {
        let mut line = format!("{:<w$}", r[0], w = width(0));
        for c in 1..columns {
            let _ = write!(
                line,
                "  {:>w$}",
                r.get(c).map_or("", String::as_str),
                w = width(c)
            );
        }
        println!("{}", line.trim_end());
    }
    Ok(())
}

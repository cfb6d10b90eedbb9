//! `prvscope cut`: a part of a trace written as a trace (Paraver's cutter, then its filter
//! when given), plain, `.xz` or `.gz` by the output's name.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use prvscope_format::ThreadSpec;
use prvscope_format::rows::RowMap;
use prvscope_format::units::parse_time;
use prvscope_paraver::cut::{self, Control, CutterOptions, Job, ToolOptions};
use prvscope_store::{NullOverride, Trace};

/// Write a part of a trace as a trace: a time range, threads, a Paraver filter.
#[derive(clap::Args)]
#[allow(clippy::struct_excessive_bools)] // the cutter's switches, as Paraver's dialog has them
pub struct Args {
    /// The trace (.prv, .prv.gz or .prv.xz).
    pub trace: PathBuf,
    /// The cut's start: ticks, or a time with its unit (2.5s, 300ms, 1200us, 40ns).
    #[arg(long)]
    pub from: Option<String>,
    /// The cut's end (default: the trace's end).
    #[arg(long)]
    pub to: Option<String>,
    /// Keep only these threads: rows `1-8,12`, threads `1.2.1`, tasks `1.2`.
    #[arg(long)]
    pub threads: Option<ThreadSpec>,
    /// Paraver's cutter options file (XML): its range and settings instead of --from/--to.
    #[arg(long)]
    pub cutter: Option<PathBuf>,
    /// Paraver's filter options file (XML), applied to the cut.
    #[arg(long)]
    pub filter: Option<PathBuf>,
    /// Keep the trace's times (no shift to 0; states not cut at the edges).
    #[arg(long)]
    pub original_time: bool,
    /// Keep the states crossing the edges whole instead of cutting them there.
    #[arg(long)]
    pub keep_states: bool,
    /// Drop the states that begin before the cut.
    #[arg(long)]
    pub remove_first_states: bool,
    /// Drop the states that end after the cut.
    #[arg(long)]
    pub remove_last_states: bool,
    /// The output: .prv, .prv.xz or .prv.gz (its .pcf and .row are written beside it).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Memory to count on instead of what the machine has available, e.g. 8GB: a trace that
    /// does not fit is converted into the store cache and cut from there.
    #[arg(long, value_parser = prvscope_format::units::parse_size)]
    pub memory_budget: Option<u64>,
    #[command(flatten)]
    pub cache: super::CacheArgs,
}

/// Reads a Paraver options file, saying what Paraver reads otherwise than it looks.
pub fn read_options(path: &Path) -> anyhow::Result<ToolOptions> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let o = ToolOptions::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    for w in &o.warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(o)
}

/// Writes `job` on `trace` to `output`, saying what was written.
pub fn write(trace: &Trace, job: &Job, output: &Path) -> anyhow::Result<()> {
    let cancel = AtomicBool::new(false);
    let control = Control {
        progress: &|_| {},
        cancel: &cancel,
    };
    let started = std::time::Instant::now();
    let saved = cut::save(trace, job, output, &control)
        .map_err(|e| anyhow::anyhow!("{}: {e}", output.display()))?;
    eprintln!(
        "{}: {} of text in {:.2} s{}",
        output.display(),
        prvscope_format::units::human_bytes(saved.written.bytes),
        started.elapsed().as_secs_f64(),
        if saved.files.len() > 1 {
            format!(
                " (with {})",
                saved.files[1..]
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            String::new()
        }
    );
    if saved.written.left_out > 0 {
        eprintln!(
            "warning: {} records inside the cut come after the point where Paraver's cutter \
             stops reading (the first record past the cut's end, in the file's order: the file \
             is not sorted by time) and were left out, as Paraver's cutter leaves them out; \
             `prvscope cut` keeps them",
            saved.written.left_out
        );
    }
    Ok(())
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let file_opts = args.cutter.as_deref().map(read_options).transpose()?;
    let filter = args
        .filter
        .as_deref()
        .map(read_options)
        .transpose()?
        .map(|o| {
            o.filter.ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: holds no <filter> section",
                    args.filter
                        .as_ref()
                        .map_or(String::new(), |p| p.display().to_string())
                )
            })
        })
        .transpose()?;
    let trace = super::load_checked(
        &args.trace,
        NullOverride::Auto,
        &prvscope_format::Subset::default(),
        &args.cache,
        Some(args.memory_budget),
        prvscope_import::cache::CacheCheck::AtOpen,
    )?;
    super::print_warnings(&trace);
    let npt = trace.header.time_unit.ns_per_tick();
    let time = |s: &str| parse_time(s, npt).map_err(|e| anyhow::anyhow!(e));
    let mut cutter = if let Some(c) = file_opts.and_then(|o| o.cutter) {
        c
    } else {
        {
            let t0 = args.from.as_deref().map(time).transpose()?.unwrap_or(0);
            let t1 = args
                .to
                .as_deref()
                .map(time)
                .transpose()?
                .unwrap_or(trace.header.end_time);
            let mut c = CutterOptions::by_time(t0, t1);
            c.original_time = args.original_time;
            c.break_states = !args.keep_states;
            c.remove_first_states = args.remove_first_states;
            c.remove_last_states = args.remove_last_states;
            c
        }
    };
    if let Some(spec) = &args.threads {
        let rows = spec
            .resolve(&RowMap::new(&trace.header))
            .map_err(|e| anyhow::anyhow!("--threads {spec}: {e}"))?;
        cutter.rows = Some(rows);
    }
    write(
        &trace,
        &Job {
            cutter: Some(cutter),
            filter,
            stop_as_paraver: false,
            source_name: None,
        },
        &args.output,
    )
}

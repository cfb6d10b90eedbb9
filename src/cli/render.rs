//! `prvscope render`: the timeline drawn headless as PNG (no window or GPU), and what each
//! pixel shows as CSV, for scripts, papers and CI.

use std::path::PathBuf;

use prvscope_draw::render::{self, RenderOptions};
use prvscope_draw::rows::Level;
use prvscope_store::signal::SignalSpec;
use prvscope_store::summary::DrawMode;

/// The rows drawn.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LevelArg {
    Thread,
    Task,
    Appl,
    /// One row per CPU: the thread on it.
    Cpu,
    /// One row per node: its CPUs together.
    Node,
}

/// Draws the timeline as PNG: the rows only, one pixel column per `--width` step of the
/// window (see `--values-csv` for what each pixel shows).
#[derive(clap::Args)]
pub struct Args {
    /// The trace: x.prv, x.prv.xz or x.prv.gz.
    pub trace: PathBuf,
    /// The view: `state`, `mpi` (MPI call) or event types, e.g. 60000019 (default: the view
    /// the viewer opens on).
    #[arg(long)]
    pub view: Option<SignalSpec>,
    /// What a pixel shows when several values share it: dominant, average, maximum,
    /// minimum, last or random (default: dominant for states and categories, average for
    /// counters).
    #[arg(long)]
    pub draw_mode: Option<DrawMode>,
    /// Rows: one per thread, one per task or application (collapsed), or one per CPU or
    /// node (the threads that ran there; communications are not drawn).
    #[arg(long, value_enum, default_value = "thread")]
    pub level: LevelArg,
    /// Window start in trace ticks (default: the trace's start).
    #[arg(long)]
    pub from: Option<u64>,
    /// Window end in trace ticks (default: the trace's end).
    #[arg(long)]
    pub to: Option<u64>,
    /// Pixel columns.
    #[arg(long, default_value_t = 1400)]
    pub width: u32,
    /// Pixels for all the rows.
    #[arg(long, default_value_t = 600)]
    pub height: u32,
    /// Draw communications.
    #[arg(long, default_value = "on", value_parser = on_off, action = clap::ArgAction::Set)]
    pub comms: bool,
    /// A gradient's (counter's) scale: `fit` (the values drawn in the window), `clip` (fit
    /// without the drawn pixels' lowest and highest percent), `whole` (the whole trace's
    /// values) or `LOW:HIGH` (raw values).
    #[arg(long, default_value = "fit", value_parser = parse_scale)]
    pub scale: prvscope_draw::view::Scale,
    /// Paraver's logarithmic gradient function (colours by the logarithm of the distance
    /// from the scale's low end).
    #[arg(long)]
    pub log: bool,
    /// The PNG to write.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// Also write every (row, pixel column) as CSV:
    /// `row,label,column,begin,end,value,value_label`.
    #[arg(long)]
    pub values_csv: Option<PathBuf>,
    /// Draw even when the estimate says the machine lacks the memory to load the trace.
    #[arg(long)]
    pub skip_memory_check: bool,
    /// Memory to count on instead of what the machine has available, e.g. 8GB.
    #[arg(long, value_parser = prvscope_format::units::parse_size)]
    pub memory_budget: Option<u64>,
    #[command(flatten)]
    pub cache: super::CacheArgs,
}

fn parse_scale(s: &str) -> Result<prvscope_draw::view::Scale, String> {
    use prvscope_draw::view::Scale;
    match s {
        "fit" => Ok(Scale::Fit),
        "clip" => Ok(Scale::Clip),
        "whole" => Ok(Scale::Whole),
        other => {
            let bad = || format!("expected fit, clip, whole or LOW:HIGH, got `{other}`");
            let (a, b) = other.split_once(':').ok_or_else(bad)?;
            let a: u64 = a.trim().parse().map_err(|_| bad())?;
            let b: u64 = b.trim().parse().map_err(|_| bad())?;
            if a >= b {
                return Err(format!(
                    "the scale's LOW ({a}) must be below its HIGH ({b})"
                ));
            }
            Ok(Scale::Manual(a, b))
        }
    }
}

fn on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" | "yes" | "true" => Ok(true),
        "off" | "no" | "false" => Ok(false),
        other => Err(format!("expected on or off, got `{other}`")),
    }
}

/// Runs `render`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let subset = prvscope_format::Subset::default();
    let budget = (!args.skip_memory_check).then_some(args.memory_budget);
    let t = super::load_checked(
        &args.trace,
        prvscope_store::NullOverride::Auto,
        &subset,
        &args.cache,
        budget,
        prvscope_import::cache::CacheCheck::AtOpen,
    )?;
    let opts = RenderOptions {
        view: args
            .view
            .clone()
            .unwrap_or_else(|| prvscope_draw::view::first_view(&t)),
        mode: args.draw_mode,
        level: match args.level {
            LevelArg::Thread => Level::Thread,
            LevelArg::Task => Level::Task,
            LevelArg::Appl => Level::Appl,
            LevelArg::Cpu => Level::Cpu,
            LevelArg::Node => Level::Node,
        },
        from: args.from,
        to: args.to,
        width: args.width,
        height: args.height,
        comms: args.comms,
        scale: args.scale,
        log: args.log,
    };
    let r = render::render(&t, &opts)?;
    r.save_png(&args.output)?;
    if let Some(path) = &args.values_csv {
        let file = std::fs::File::create(path)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        let mut out = std::io::BufWriter::new(file);
        r.write_values_csv(&t, &mut out)
            .and_then(|()| std::io::Write::flush(&mut out))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    let comms = match (&r.density, &r.comms) {
        (Some(d), _) => {
            let row_height = args.height as f32 / r.rows.len().max(1) as f32;
            format!("; {}", prvscope_draw::frame::density_legend(d, row_height))
        }
        (None, Some(c)) => format!("; {}", prvscope_draw::frame::comms_legend(c)),
        (None, None) => String::new(),
    };
    eprintln!(
        "{}: {} rows x {} columns, {} ({}){comms}",
        args.output.display(),
        r.rows.len(),
        args.width,
        r.config.name(&t),
        r.config.mode
    );
    if let Some(note) = r
        .placement
        .as_ref()
        .and_then(prvscope_store::placement::Placement::unplaced_note)
    {
        eprintln!("prvscope: {note}");
    }
    super::print_warnings(&t);
    super::let_go_at_exit(t);
    Ok(())
}

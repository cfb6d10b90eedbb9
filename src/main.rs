//! The `prvscope` binary: command-line parsing, then the subcommand or the viewer.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use prvscope::cli::{self, PartArgs};
use prvscope_store::NullOverride;
use prvscope_store::signal::SignalSpec;
#[cfg(feature = "gui")]
use prvscope_viewer::loader::{LoadRequest, LoadSource};

#[derive(Parser)]
#[command(
    name = "prvscope",
    version,
    about = "A fast viewer for Paraver traces",
    args_conflicts_with_subcommands = true
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// Traces to open in the viewer (x.prv, x.prv.xz or x.prv.gz); the embedded demo trace
    /// when none is given. Those after the first are shown as timeline windows under it,
    /// in one synchronize group.
    traces: Vec<PathBuf>,
    /// How to read nulls in the viewer (see `info`).
    #[arg(long, default_value = "auto")]
    null: NullOverride,
    /// The view to open: `state`, `mpi` (MPI call) or event types, e.g. 60000019.
    #[arg(long)]
    view: Option<SignalSpec>,
    /// What a pixel shows when several values share it: dominant, average, maximum,
    /// minimum, last or random (default: dominant for states and categories, average for
    /// counters).
    #[arg(long)]
    draw_mode: Option<prvscope_store::summary::DrawMode>,
    /// Repaint continuously and show the time from frame to frame in the status bar (View >
    /// Measure frame rate).
    #[arg(long)]
    measure_frame_rate: bool,
    /// Open the trace, replay a fixed interaction (20 wheel steps in and out, 10 drags,
    /// Home, the View menu) with continuous repaint, print its frame times as one JSON line
    /// and exit.
    #[arg(long)]
    bench_ui: bool,
    /// How the window is painted: glow (OpenGL; several times faster without a GPU) or wgpu
    /// (Vulkan).
    #[cfg(feature = "gui")]
    #[arg(long, value_enum, default_value = "glow")]
    renderer: prvscope_viewer::Renderer,
    #[command(flatten)]
    part: PartArgs,
}

#[derive(Subcommand)]
enum Command {
    Info(cli::info::Args),
    Stats(cli::stats::Args),
    Scopes(cli::scopes::Args),
    Render(cli::render::Args),
    /// Run Paraver configuration files (.cfg) over a trace, with BSC paramedir's arguments and
    /// output.
    Paramedir(cli::paramedir::Args),
    /// POP efficiency metrics of a trace or a scaling series (BSC modelfactors' layout).
    Pop(cli::pop::Args),
    /// Write part of a trace as a trace (Paraver's cutter and filter): .prv, .prv.xz, .prv.gz.
    ///
    /// Each line kept is written as it was read (its pairs in order, its CPU), only its times
    /// shifted and a state's cut at the edges. The whole file is read and every record inside
    /// the cut kept: where Paraver's cutter stops reading (the first state or message after
    /// the cut in the file's order, every thread finished), the records inside the cut that
    /// come later in the file (an unsorted file's) are left out by it, not here.
    /// `prvscope paramedir --cutter` stops where it does and writes its output line for line.
    Cut(cli::cut::Args),
    /// Cluster the CPU bursts with DBSCAN (BSC's Clustering Suite): the bursts, the clusters'
    /// table, the trace with a cluster event per burst.
    Cluster(cli::cluster::Args),
    /// Compare two runs: per scope, per state and per POP metric, A, B and B less A.
    Compare(cli::compare::Args),
    Export(cli::export::Args),
    Gen(cli::generate::Args),
}

fn main() -> ExitCode {
    let result = run(Args::parse());
    cli::end_command();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("prvscope: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Some(Command::Info(a)) => cli::info::run(&a),
        Some(Command::Stats(a)) => cli::stats::run(&a),
        Some(Command::Scopes(a)) => cli::scopes::run(&a),
        Some(Command::Render(a)) => cli::render::run(&a),
        Some(Command::Paramedir(a)) => cli::paramedir::run(&a),
        Some(Command::Pop(a)) => cli::pop::run(&a),
        Some(Command::Cluster(a)) => cli::cluster::run(&a),
        Some(Command::Compare(a)) => cli::compare::run(&a),
        Some(Command::Cut(a)) => cli::cut::run(&a),
        Some(Command::Export(a)) => cli::export::run(&a),
        Some(Command::Gen(a)) => cli::generate::run(&a),
        #[cfg(not(feature = "gui"))]
        None => {
            let _ = (args.traces, args.null, args.view, args.draw_mode, args.part);
            let _ = (args.measure_frame_rate, args.bench_ui);
            anyhow::bail!(
                "this prvscope was built without the viewer (the `gui` feature): run one of its \
                 commands (prvscope --help)"
            )
        }
        #[cfg(feature = "gui")]
        None => {
            let mut traces = args.traces.into_iter();
            let source = traces.next().map_or(LoadSource::Demo, LoadSource::File);
            // A trace too large for the memory available opens the "part" dialog instead.
            let request = LoadRequest {
                subset: args.part.subset(),
                skip_memory_check: args.part.skip_memory_check,
                available_override: args.part.memory_budget,
                cache: args.part.cache.options(),
                convert: args.part.cache.convert,
                ..LoadRequest::default()
            };
            let start = prvscope_viewer::Start {
                view: args.view,
                mode: args.draw_mode,
                measure_frame_rate: args.measure_frame_rate,
                bench_ui: args.bench_ui,
                renderer: args.renderer,
                also: traces.collect(),
            };
            prvscope_viewer::run(source, args.null, start, request)
        }
    }
}

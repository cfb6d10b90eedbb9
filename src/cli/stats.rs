//! `prvscope stats`: time per value per thread over a window (Paraver's 2D analyzer,
//! statistic Time).

use std::path::PathBuf;

use prvscope_analysis::stats::{self, Semantic};
use prvscope_analysis::table::stats_text;

use super::WindowArgs;

/// Time per value per thread (Paraver's 2D analyzer, statistic Time): "State As Is", or
/// "Last Evt Val" of one event type with --type.
#[derive(clap::Args)]
pub struct Args {
    /// The trace: x.prv, x.prv.xz or x.prv.gz.
    pub trace: PathBuf,
    /// Event type for "Last Evt Val" (default: states).
    #[arg(long = "type")]
    pub ty: Option<u32>,
    #[command(flatten)]
    pub window: WindowArgs,
}

/// Runs `stats`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    // Statistics of a window only need the window's records and the values holding when it
    // starts, which is what a partial load keeps.
    let (t, t0, t1) = args.window.load(&args.trace, true)?;
    let semantic = args
        .ty
        .map_or(Semantic::StateAsIs, Semantic::LastEventValue);
    let table = stats::time_per_value(&t.store, semantic, t0, t1);
    print!("{}", stats_text(&t, semantic, &table, args.window.csv));
    super::print_warnings(&t);
    Ok(())
}

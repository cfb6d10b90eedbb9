//! `prvscope stats`: time per value per thread over a window (Paraver's 2D analyzer,
//! statistic Time).

use std::path::PathBuf;

use prvscope_analysis::stats::{self, Semantic};
use prvscope_analysis::table::{column_label, named_table_text, stats_text};
use prvscope_store::placement::Placement;
use prvscope_store::signal::{SignalSpec, ViewSignals};

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
    /// Rows: threads, or the CPUs or nodes they ran on (the time of the thread on each CPU;
    /// `null` is time with no thread there; a node adds its CPUs).
    #[arg(long, value_enum, default_value = "thread")]
    pub level: StatsLevel,
    #[command(flatten)]
    pub window: WindowArgs,
}

/// The rows of `stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StatsLevel {
    Thread,
    Cpu,
    Node,
}

/// Runs `stats`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    // Statistics of a window only need the window's records and the values holding when it
    // starts, which is what a partial load keeps.
    let (t, t0, t1) = args.window.load(&args.trace, true)?;
    if let Some(ty) = args.ty {
        let types = t.store.event_types();
        anyhow::ensure!(
            types.contains(&ty),
            "{}: no event of type {ty} in the trace{} (its types: {})",
            args.trace.display(),
            if t.part.is_some() {
                "'s part loaded"
            } else {
                ""
            },
            if types.is_empty() {
                "none".to_owned()
            } else {
                types
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
    }
    let semantic = args
        .ty
        .map_or(Semantic::StateAsIs, Semantic::LastEventValue);
    if args.level != StatsLevel::Thread {
        let placement = Placement::of(&t).map_err(anyhow::Error::msg)?;
        let spec = args
            .ty
            .map_or(SignalSpec::States, |ty| SignalSpec::Events(vec![ty]));
        let zero_is_null = t.store.null_policy().zero_is_null;
        let view = ViewSignals::build(std::sync::Arc::clone(&t.store), spec, zero_is_null)
            .on_cpus(&placement);
        let nodes = args.level == StatsLevel::Node;
        let table = stats::time_per_value_on_cpus(&view, &placement, nodes, t0, t1);
        let names: Vec<(usize, String)> = if nodes {
            placement
                .nodes
                .iter()
                .map(|(l, _)| l.clone())
                .enumerate()
                .collect()
        } else {
            placement.cpus.iter().cloned().enumerate().collect()
        };
        let label = |c| column_label(&t, semantic, c);
        let what = if nodes { "node" } else { "cpu" };
        print!(
            "{}",
            named_table_text(&t, &table, args.window.csv, &label, what, &names)
        );
        if let Some(note) = placement.unplaced_note() {
            eprintln!("prvscope: {note}");
        }
        super::print_warnings(&t);
        super::let_go_at_exit(t);
        return Ok(());
    }
    let table = stats::time_per_value(&t.store, semantic, t0, t1);
    print!("{}", stats_text(&t, semantic, &table, args.window.csv));
    super::print_warnings(&t);
    super::let_go_at_exit(t);
    Ok(())
}

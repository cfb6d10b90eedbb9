//! The `prvscope` binary: command-line parsing, then the subcommand.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use prvscope::analysis::scopes;
use prvscope::analysis::stats::{self, Semantic};
use prvscope::cli;
use prvscope::synth::{self, GenOptions};
use prvscope::trace::{NullOverride, Subset, ThreadSpec};
use prvscope::ui::loader::LoadSource;

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
    /// Trace to open in the viewer (x.prv, x.prv.xz or x.prv.gz); the embedded demo trace
    /// when none is given.
    trace: Option<PathBuf>,
    /// How to read nulls in the viewer (see `info`).
    #[arg(long, default_value = "auto")]
    null: NullOverride,
    /// The view to open: `state`, `mpi` (MPI call) or event types, e.g. 60000019.
    #[arg(long, value_parser = prvscope::ui::view::parse_view)]
    view: Option<prvscope::store::signal::SignalSpec>,
    #[command(flatten)]
    part: PartArgs,
}

/// Loading part of a trace, for traces too large for the machine's memory.
#[derive(clap::Args)]
struct PartArgs {
    /// Load only the records from this time on (trace ticks), plus the value each event
    /// type has at that time; for `stats` and `scopes`, the window's start (default 0).
    #[arg(long)]
    from: Option<u64>,
    /// Load only the records up to this time (trace ticks); for `stats` and `scopes`, the
    /// window's end (default: the trace's duration).
    #[arg(long)]
    to: Option<u64>,
    /// Load only these threads: rows `1-8,12` (1-based, in timeline order), threads `1.2.1`
    /// (application.task.thread), tasks `1.2`.
    #[arg(long)]
    threads: Option<ThreadSpec>,
    /// Load even when the estimate says the machine lacks the memory.
    #[arg(long)]
    skip_memory_check: bool,
    /// Memory to count on instead of what the machine has available, e.g. 8GB (on a shared
    /// node).
    #[arg(long, value_parser = cli::parse_size)]
    memory_budget: Option<u64>,
}

impl PartArgs {
    fn subset(&self) -> Subset {
        Subset {
            from: self.from,
            to: self.to,
            threads: self.threads.clone(),
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Load a trace and print what it holds.
    Info {
        /// The trace: x.prv, x.prv.xz or x.prv.gz (x.pcf and x.row are read beside it).
        trace: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// How to read nulls: auto (from the .pcf), zero (0 is null), N (NULL mode) or a
        /// number (NULL mode with that sentinel).
        #[arg(long, default_value = "auto")]
        null: NullOverride,
        #[command(flatten)]
        part: PartArgs,
    },
    /// Time per value per thread (Paraver's 2D analyzer, statistic Time): "State As Is", or
    /// "Last Evt Val" of one event type with --type.
    Stats {
        /// The trace: x.prv, x.prv.xz or x.prv.gz.
        trace: PathBuf,
        /// Event type for "Last Evt Val" (default: states).
        #[arg(long = "type")]
        ty: Option<u32>,
        #[command(flatten)]
        window: WindowArgs,
    },
    /// The scope table (Carnival-like): inclusive and exclusive time, share and entries of
    /// each function, OpenMP region or MPI call, with its source location.
    Scopes {
        /// The trace: x.prv, x.prv.xz or x.prv.gz.
        trace: PathBuf,
        /// Scope event types, e.g. 60000019,50000002 (default: chosen from the trace).
        #[arg(long, value_delimiter = ',')]
        types: Vec<u32>,
        #[command(flatten)]
        window: WindowArgs,
        /// Add each scope's inclusive time on every thread.
        #[arg(long)]
        per_thread: bool,
    },
    /// Write a deterministic synthetic trace (.prv, .pcf, .row; .prv.xz with --xz).
    Gen {
        /// Output .prv path.
        out: PathBuf,
        #[arg(long, default_value_t = 16)]
        threads: u32,
        #[arg(long, default_value_t = 4)]
        threads_per_task: u32,
        /// Approximate size of the .prv, e.g. 100MB or 1GB.
        #[arg(long, default_value = "10MB", value_parser = cli::parse_size)]
        size: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Legacy values: functions end with 0 and the .pcf has no `NULL_VALUE`.
        #[arg(long)]
        legacy: bool,
        /// Also write OUT.xz.
        #[arg(long)]
        xz: bool,
    },
}

/// The loading, window and output options that `stats` and `scopes` share.
#[derive(clap::Args)]
struct WindowArgs {
    #[command(flatten)]
    part: PartArgs,
    /// Print CSV.
    #[arg(long)]
    csv: bool,
    /// How to read nulls (see `info`).
    #[arg(long, default_value = "auto")]
    null: NullOverride,
}

impl WindowArgs {
    /// Loads the trace (only the window when `window_only`) and checks the window against
    /// it: (trace, t0, t1).
    fn load(
        &self,
        trace: &std::path::Path,
        window_only: bool,
    ) -> anyhow::Result<(prvscope::trace::Trace, u64, u64)> {
        let part = &self.part;
        let mut subset = part.subset();
        if !window_only {
            (subset.from, subset.to) = (None, None);
        }
        if !part.skip_memory_check {
            cli::check_memory(trace, &subset, part.memory_budget)?;
        }
        let t = cli::load_for_info(trace, self.null, &subset)?;
        let t0 = part.from.unwrap_or(0);
        let t1 = part.to.unwrap_or(t.header.end_time);
        anyhow::ensure!(t1 >= t0, "--to ({t1}) is before --from ({t0})");
        Ok((t, t0, t1))
    }
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("prvscope: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Some(Command::Info {
            trace,
            json,
            null,
            part,
        }) => {
            let subset = part.subset();
            if !part.skip_memory_check {
                cli::check_memory(&trace, &subset, part.memory_budget)?;
            }
            let t = cli::load_for_info(&trace, null, &subset)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&cli::info_json(&t))?);
            } else {
                print!("{}", cli::info_text(&t));
            }
            Ok(())
        }
        Some(Command::Stats { trace, ty, window }) => {
            // Statistics of a window only need the window's records and the values holding
            // when it starts, which is what a partial load keeps.
            let (t, t0, t1) = window.load(&trace, true)?;
            let csv = window.csv;
            let semantic = ty.map_or(Semantic::StateAsIs, Semantic::LastEventValue);
            let table = stats::time_per_value(&t.store, semantic, t0, t1);
            print!("{}", cli::stats_text(&t, semantic, &table, csv));
            for w in t.report.warnings() {
                eprintln!("warning: {w}");
            }
            Ok(())
        }
        Some(Command::Scopes {
            trace,
            types,
            window,
            per_thread,
        }) => {
            // Scopes open when the window starts come from earlier events: load all times.
            let (t, t0, t1) = window.load(&trace, false)?;
            let csv = window.csv;
            let types = if types.is_empty() {
                scopes::auto_types(t.pcf.as_ref(), &t.store.event_types())
            } else {
                types.into_iter().map(scopes::ScopeType::new).collect()
            };
            anyhow::ensure!(
                !types.is_empty(),
                "{}: no scope event types found (functions, OpenMP, MPI); name some with --types",
                trace.display()
            );
            let ctx = scopes::ScopeContext::new(t.pcf.as_ref(), &t.store);
            let query = scopes::ScopeQuery { types, t0, t1 };
            let a = scopes::analyze(&t.store, &ctx, &query, None)
                .map_err(|_| anyhow::anyhow!("scope analysis cancelled"))?;
            print!("{}", cli::scopes_text(&t, &ctx, &a, csv, per_thread));
            for w in t.report.warnings() {
                eprintln!("warning: {w}");
            }
            Ok(())
        }
        Some(Command::Gen {
            out,
            threads,
            threads_per_task,
            size,
            seed,
            legacy,
            xz,
        }) => {
            let s = synth::generate(
                &out,
                &GenOptions {
                    threads,
                    threads_per_task,
                    target_bytes: size,
                    seed,
                    legacy,
                    xz,
                },
            )
            .with_context(|| format!("writing {}", out.display()))?;
            println!(
                "{}: {} bytes, {} states, {} events, {} communications",
                s.prv.display(),
                s.bytes,
                s.state_records,
                s.event_records,
                s.comm_records
            );
            Ok(())
        }
        None => {
            let source = args.trace.map_or(LoadSource::Demo, LoadSource::File);
            // A trace too large for the memory available opens the "part" dialog instead.
            let request = prvscope::ui::loader::LoadRequest {
                subset: args.part.subset(),
                skip_memory_check: args.part.skip_memory_check,
                available_override: args.part.memory_budget,
            };
            prvscope::ui::run(source, args.null, args.view, request)
        }
    }
}

//! `prvscope scopes`: the scope table (Carnival-like) of a window.

use std::path::PathBuf;

use prvscope_analysis::scopes;
use prvscope_analysis::table::scopes_text;

use super::WindowArgs;

/// The scope table (Carnival-like): inclusive and exclusive time, share and entries of each
/// function, OpenMP region or MPI call, with its source location.
#[derive(clap::Args)]
pub struct Args {
    /// The trace: x.prv, x.prv.xz or x.prv.gz.
    pub trace: PathBuf,
    /// Scope event types, e.g. 60000019,50000002 (default: chosen from the trace). A type
    /// may name its nesting: `T:stack` (a value enters, the end value leaves: functions),
    /// `T:hold` (the last value holds until the next, above the functions: MPI calls, the
    /// default of types not known to nest) or `T:replace` (the last value holds, below the
    /// functions: sampled functions, state-like types).
    #[arg(long, value_delimiter = ',')]
    pub types: Vec<String>,
    #[command(flatten)]
    pub window: WindowArgs,
    /// Add each scope's inclusive time on every thread.
    #[arg(long)]
    pub per_thread: bool,
}

/// Runs `scopes`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    // Scopes open when the window starts come from earlier events: load all times.
    let (t, t0, t1) = args.window.load(&args.trace, false)?;
    let present = t.store.event_types();
    let named = args
        .types
        .iter()
        .filter(|text| !text.trim().is_empty())
        .map(|text| scopes::ScopeType::parse(text, t.pcf.as_ref()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("--types: {e}"))?;
    let (types, missing): (Vec<_>, Vec<_>) = named
        .iter()
        .copied()
        .partition(|st| present.contains(&st.ty));
    let missing: Vec<String> = missing.iter().map(|st| st.ty.to_string()).collect();
    anyhow::ensure!(
        named.is_empty() || !types.is_empty(),
        "{}: no event of type {} in the trace",
        args.trace.display(),
        missing.join(", ")
    );
    if !missing.is_empty() {
        eprintln!(
            "note: {}: no event of type {} in the trace; the table holds the other types",
            args.trace.display(),
            missing.join(", ")
        );
    }
    let types = if named.is_empty() {
        scopes::auto_types(t.pcf.as_ref(), &present)
    } else {
        types
    };
    anyhow::ensure!(
        !types.is_empty(),
        "{}: no scope event types found (functions, OpenMP, MPI); name some with --types",
        args.trace.display()
    );
    let ctx = scopes::ScopeContext::new(t.pcf.as_ref(), &t.store);
    let query = scopes::ScopeQuery { types, t0, t1 };
    let a = scopes::analyze(&t.store, &ctx, &query, None)
        .map_err(|_| anyhow::anyhow!("scope analysis cancelled"))?;
    print!(
        "{}",
        scopes_text(&t, &ctx, &a, args.window.csv, args.per_thread)
    );
    super::print_warnings(&t);
    super::let_go_at_exit(t);
    Ok(())
}

//! Analyses of small traces written out in full.

use std::fmt::Write as _;

use super::*;
use prvscope_import::{self as trace, LoadOptions, Trace};

/// A one-application trace of `threads` threads from body lines, in the NULL mode
/// (`N` leaves a scope) with labels for the user functions and their lines.
pub(crate) fn trace_of(threads: u32, end: u64, body: &str) -> Trace {
    let header = format!("#Paraver (01/01/2026 at 00:00):{end}_ns:1({threads}):1:1({threads}:1)\n");
    let text = format!("{header}{body}");
    let pcf = "DEFAULT_OPTIONS\n\nNULL_VALUE N\n\nSTATES\n0 Idle\n1 Running\n5 Synchronization\n\n\
EVENT_TYPE\n0 60000019 User function\nVALUES\n1 main [app.c:3]\n2 solve\n3 fib\n\n\
EVENT_TYPE\n0 60000119 User function line\nVALUES\n2 20 (app.c, app)\n3 40 (app.c, app)\n\n\
EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n10 MPI_Allreduce\n\n";
    let dir = std::env::temp_dir().join(format!(
        "prvscope-scopes-{}-{}",
        std::process::id(),
        std::thread::current()
            .name()
            .unwrap_or("t")
            .replace("::", "_")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let prv = dir.join("t.prv");
    std::fs::write(&prv, text).unwrap();
    std::fs::write(dir.join("t.pcf"), pcf).unwrap();
    trace::load(&prv, &LoadOptions::default(), None).unwrap()
}

pub(crate) fn run(trace: &Trace, t0: u64, t1: u64) -> ScopeAnalysis {
    let ctx = ScopeContext::new(trace.pcf.as_ref(), &trace.store);
    let types = auto_types(trace.pcf.as_ref(), &trace.store.event_types());
    analyze(&trace.store, &ctx, &ScopeQuery { types, t0, t1 }, None).unwrap()
}

fn scope<'a>(a: &'a ScopeAnalysis, name: &str) -> &'a ScopeStats {
    a.scopes
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no scope {name} in {:?}", a.scopes))
}

#[test]
fn nesting_gives_inclusive_and_exclusive_time_and_categories() {
    // main [0,100) > solve [10,60) > MPI_Allreduce [30,50); Running except a
    // Synchronization state over the collective.
    let t = trace_of(
        1,
        100,
        "1:1:1:1:1:0:30:1\n1:1:1:1:1:30:50:5\n1:1:1:1:1:50:100:1\n\
2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:60000019:2\n2:1:1:1:1:30:50000002:10\n\
2:1:1:1:1:50:50000002:N\n2:1:1:1:1:60:60000019:N\n",
    );
    let a = run(&t, 0, 100);
    let main = scope(&a, "main");
    assert_eq!((main.inclusive, main.exclusive, main.entries), (100, 50, 1));
    assert_eq!(
        main.location.as_ref().map(ToString::to_string).as_deref(),
        Some("app.c:3")
    );
    let solve = scope(&a, "solve");
    assert_eq!((solve.inclusive, solve.exclusive), (50, 30));
    assert_eq!(solve.location.as_ref().map(|l| l.line), Some(20));
    let mpi = scope(&a, "MPI_Allreduce");
    assert_eq!((mpi.inclusive, mpi.exclusive, mpi.entries), (20, 20, 1));
    assert_eq!(
        mpi.exclusive_per_category,
        BTreeMap::from([(Category::State(5), 20)])
    );
    assert_eq!(
        solve.inclusive_per_category,
        BTreeMap::from([(Category::State(1), 30), (Category::State(5), 20)])
    );
    // The scopes are sorted by inclusive time; blocks: [], [main], [main solve], [.. mpi].
    assert_eq!(a.scopes[0].name, "main");
    assert_eq!(a.blocks.len(), 4);
    assert_eq!(
        a.report,
        ScopeReport {
            open_at_end: 1,
            ..ScopeReport::default()
        },
        "main is still open at the end"
    );
    // Heat without line events: exclusive time on first lines.
    let (heat, source) = a.heat("app.c");
    assert_eq!(source, HeatSource::ScopeFirstLines);
    assert_eq!(heat, BTreeMap::from([(3, 50), (20, 30)]));
}

#[test]
fn recursion_is_counted_once_in_inclusive_time() {
    // fib [0,100) > fib [20,80) > fib [40,60).
    let t = trace_of(
        1,
        100,
        "2:1:1:1:1:0:60000019:3\n2:1:1:1:1:20:60000019:3\n2:1:1:1:1:40:60000019:3\n\
2:1:1:1:1:60:60000019:N\n2:1:1:1:1:80:60000019:N\n2:1:1:1:1:100:60000019:N\n",
    );
    let a = run(&t, 0, 100);
    let fib = scope(&a, "fib");
    assert_eq!((fib.inclusive, fib.exclusive, fib.entries), (100, 100, 3));
    assert_eq!(a.blocks.len(), 4, "three distinct stacks of fib");
    assert_eq!(
        fib.inclusive_per_category,
        BTreeMap::from([(Category::NoState, 100)])
    );
}

#[test]
fn scopes_never_left_and_exits_without_entries_are_reported() {
    // Thread 1 enters main and never leaves it; thread 2 leaves a function and an MPI
    // call it never entered, then nests solve in main properly.
    let t = trace_of(
        2,
        100,
        "2:1:1:1:1:10:60000019:1\n\
2:2:1:1:2:5:60000019:N\n2:2:1:1:2:20:60000019:1\n2:2:1:1:2:30:60000019:2\n\
2:2:1:1:2:40:50000002:N\n2:2:1:1:2:50:60000019:N\n2:2:1:1:2:60:60000019:N\n",
    );
    let a = run(&t, 0, 100);
    let main = scope(&a, "main");
    assert_eq!(main.inclusive_per_thread, vec![90, 40]);
    assert_eq!(main.exclusive_per_thread, vec![90, 20]);
    let solve = scope(&a, "solve");
    assert_eq!(solve.inclusive_per_thread, vec![0, 20]);
    assert_eq!(
        a.report,
        ScopeReport {
            exits_without_entry: 2,
            unclosed_inner: 0,
            open_at_end: 1,
            too_deep: 0,
        }
    );
    // Leaving main while an MPI call is open inside it closes the call too.
    let t = trace_of(
        1,
        100,
        "2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:50000002:10\n2:1:1:1:1:20:60000019:N\n",
    );
    let a = run(&t, 0, 100);
    assert_eq!(a.report.unclosed_inner, 1, "MPI closed with main");
    assert_eq!(scope(&a, "MPI_Allreduce").inclusive, 10);
}

#[test]
fn a_type_that_never_leaves_is_capped_at_the_maximum_depth() {
    // 5000 values and no null: a counter read as scopes.
    let mut body = String::new();
    for i in 0..5000 {
        let _ = writeln!(body, "2:1:1:1:1:{i}:60000019:{}", i % 7 + 1);
    }
    let t = trace_of(1, 5000, &body);
    let a = run(&t, 0, 5000);
    assert_eq!(a.report.too_deep, 5000 - MAX_DEPTH as u64);
    assert_eq!(a.report.open_at_end, MAX_DEPTH as u64);
    assert_eq!(a.blocks.len(), MAX_DEPTH + 1);
    let total: u64 = a.cells.iter().map(|c| c.ticks).sum();
    assert_eq!(total, 5000);
}

#[test]
fn a_window_cuts_scopes_and_counts_entries_inside_it() {
    let t = trace_of(
        1,
        100,
        "1:1:1:1:1:0:100:1\n2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:60000019:2\n\
2:1:1:1:1:30:60000019:N\n2:1:1:1:1:40:60000019:2\n2:1:1:1:1:70:60000019:N\n\
2:1:1:1:1:90:60000019:N\n",
    );
    let a = run(&t, 20, 50);
    assert_eq!((a.t0, a.t1, a.span()), (20, 50, 30));
    let main = scope(&a, "main");
    assert_eq!((main.inclusive, main.exclusive, main.entries), (30, 10, 0));
    let solve = scope(&a, "solve");
    assert_eq!((solve.inclusive, solve.entries), (20, 1));
    // Every thread's time adds up to the window.
    let total: u64 = a.cells.iter().map(|c| c.ticks).sum();
    assert_eq!(total, 30);
    let iv = scope_intervals(
        &t.store,
        &ScopeContext::new(t.pcf.as_ref(), &t.store),
        &a.types,
        solve.key,
        0,
        100,
        None,
    )
    .unwrap();
    assert_eq!(iv, vec![vec![(10, 30), (40, 70)]]);
}

#[test]
fn caller_lines_heat_the_lines_that_made_the_call() {
    let pcf = "EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n10 MPI_Allreduce\n\n\
EVENT_TYPE\n0 80000001 Caller line at level 1\n0 80000002 Caller line at level 2\nVALUES\n\
5 101 (comm.cc, app)\n6 310 (main.cc, app)\n\n";
    let dir = std::env::temp_dir().join(format!("prvscope-callers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("c.pcf"), pcf).unwrap();
    std::fs::write(
        dir.join("c.prv"),
        "#Paraver (01/01/2026 at 00:00):100_ns:1(1):1:1(1:1)\n\
2:1:1:1:1:10:50000002:10:80000001:5:80000002:6\n2:1:1:1:1:25:50000002:0\n\
2:1:1:1:1:60:50000002:10:80000001:5:80000002:6\n2:1:1:1:1:65:50000002:0\n",
    )
    .unwrap();
    let t = trace::load(&dir.join("c.prv"), &LoadOptions::default(), None).unwrap();
    let a = run(&t, 0, 100);
    assert_eq!(scope(&a, "MPI_Allreduce").inclusive, 20);
    let (heat, source) = a.heat("comm.cc");
    assert_eq!(source, HeatSource::LineEvents);
    assert_eq!(heat, BTreeMap::from([(101, 20)]));
    assert_eq!(a.heat("main.cc").0, BTreeMap::from([(310, 20)]));
    assert_eq!(a.files(), vec!["comm.cc".to_owned(), "main.cc".to_owned()]);
}

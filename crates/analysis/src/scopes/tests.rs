//! Analyses of small traces written out in full.

use std::fmt::Write as _;

use super::*;
use prvscope_import::{self as trace, LoadOptions, Trace};

/// A one-application trace of `threads` threads from body lines, in the NULL mode
/// (`N` leaves a scope) with labels for the user functions and their lines.
pub(crate) fn trace_of(threads: u32, end: u64, body: &str) -> Trace {
    let pcf = "DEFAULT_OPTIONS\n\nNULL_VALUE N\n\nSTATES\n0 Idle\n1 Running\n5 Synchronization\n\n\
EVENT_TYPE\n0 60000019 User function\nVALUES\n1 main [app.c:3]\n2 solve\n3 fib\n\n\
EVENT_TYPE\n0 60000119 User function line\nVALUES\n2 20 (app.c, app)\n3 40 (app.c, app)\n\n\
EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n10 MPI_Allreduce\n\n";
    trace_with_pcf(threads, end, body, pcf)
}

/// A one-application trace of `threads` threads from body lines, with this `.pcf`.
pub(crate) fn trace_with_pcf(threads: u32, end: u64, body: &str, pcf: &str) -> Trace {
    let header = format!("#Paraver (01/01/2026 at 00:00):{end}_ns:1({threads}):1:1({threads}:1)\n");
    let text = format!("{header}{body}");
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
    // Leaving main while an MPI call is open inside it leaves the call open: an MPI type
    // holds its value until its next event (Paraver's "Last Evt Val"), re-linked at the top
    // of the stack; a value held at the end is not a scope left open.
    let t = trace_of(
        1,
        100,
        "2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:50000002:10\n2:1:1:1:1:20:60000019:N\n",
    );
    let a = run(&t, 0, 100);
    assert_eq!(a.report, ScopeReport::default(), "the call holds");
    let call = scope(&a, "MPI_Allreduce");
    assert_eq!((call.inclusive, call.exclusive), (90, 90));
    assert_eq!(scope(&a, "main").inclusive, 20);
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

/// ovni-like labels: a task type and a subsystem, legacy nulls (0 ends a value).
const OVNI_PCF: &str = "EVENT_TYPE\n0 36 Nanos6 task type of the RUNNING thread\nVALUES\n\
1 kernel_a\n2 kernel_b\n\nEVENT_TYPE\n0 37 Nanos6 subsystem of the ACTIVE thread\nVALUES\n\
1 body\n2 submit\n\n";

/// The paths, by scope name, of the blocks that have time.
fn paths_with_time(a: &ScopeAnalysis) -> Vec<Vec<String>> {
    let mut paths: Vec<Vec<String>> = a
        .blocks
        .iter()
        .enumerate()
        .filter(|(i, _)| a.cells.iter().any(|c| c.block == *i && c.ticks > 0))
        .map(|(_, b)| b.path.iter().map(|&i| a.scopes[i].name.clone()).collect())
        .collect();
    paths.sort();
    paths
}

#[test]
fn replace_types_keep_their_own_frames_ordered_by_the_query() {
    // The subsystem is entered first, then the task type: each type's value changes and
    // ends without closing the other's; at 50 both change at once; at 70 the task type is
    // set and ended at the same time, which its view shows as ended.
    let t = trace_with_pcf(
        1,
        100,
        "2:1:1:1:1:0:37:1\n2:1:1:1:1:10:36:1\n2:1:1:1:1:20:37:2\n2:1:1:1:1:30:37:1\n\
2:1:1:1:1:40:36:0\n2:1:1:1:1:50:36:2:37:2\n2:1:1:1:1:60:37:0\n2:1:1:1:1:70:36:2\n\
2:1:1:1:1:70:36:0\n",
        OVNI_PCF,
    );
    let a = run(&t, 0, 100);
    assert_eq!(
        a.types
            .iter()
            .map(|s| (s.ty, s.nesting))
            .collect::<Vec<_>>(),
        [(36, Nesting::Replace), (37, Nesting::Replace)]
    );
    let stats = |name| {
        let s = scope(&a, name);
        (s.inclusive, s.exclusive, s.entries)
    };
    assert_eq!(stats("kernel_a"), (30, 0, 1));
    assert_eq!(stats("kernel_b"), (20, 10, 1));
    assert_eq!(stats("body"), (40, 40, 2));
    assert_eq!(stats("submit"), (20, 20, 2));
    assert_eq!(a.report.unclosed_inner, 0);
    assert_eq!(a.report.open_at_end, 0);
    // The task type is the outer frame although the subsystem was entered first.
    let want: Vec<Vec<&str>> = vec![
        vec![],
        vec!["body"],
        vec!["kernel_a", "body"],
        vec!["kernel_a", "submit"],
        vec!["kernel_b"],
        vec!["kernel_b", "submit"],
    ];
    assert_eq!(paths_with_time(&a), want);
    // The stacks at single ticks, with the events at that tick applied.
    let ctx = ScopeContext::new(t.pcf.as_ref(), &t.store);
    let at = |tick| -> Vec<String> {
        stack_at(&t.store, &ctx, &a.types, 0, tick)
            .into_iter()
            .map(|k| ctx.scope_name(k))
            .collect()
    };
    assert_eq!(at(5), ["body"]);
    assert_eq!(at(10), ["kernel_a", "body"]);
    assert_eq!(at(25), ["kernel_a", "submit"]);
    assert_eq!(at(40), ["body"]);
    assert_eq!(at(65), ["kernel_b"]);
    assert_eq!(at(70), Vec::<String>::new());
    assert!(
        stack_at(&t.store, &ctx, &a.types, 5, 10).is_empty(),
        "no such row"
    );
    // A window that starts inside both values reads them from their last events.
    let w = run(&t, 25, 55);
    assert_eq!(scope(&w, "kernel_a").inclusive, 15);
    assert_eq!(scope(&w, "kernel_b").inclusive, 5);
    assert_eq!(scope(&w, "submit").inclusive, 5 + 5);
    assert_eq!(scope(&w, "body").inclusive, 20);
}

#[test]
fn a_stack_type_stays_open_while_a_replace_type_below_it_changes() {
    // Sampled functions (replacing) under a user function (stacking): a new sample re-links
    // main under it instead of closing it.
    let pcf = "DEFAULT_OPTIONS\n\nNULL_VALUE N\n\n\
EVENT_TYPE\n0 30000000 Sampled functions\nVALUES\n1 f1\n2 f2\n\n\
EVENT_TYPE\n0 60000019 User function\nVALUES\n1 main\n\n";
    let t = trace_with_pcf(
        1,
        40,
        "2:1:1:1:1:0:30000000:1\n2:1:1:1:1:10:60000019:1\n2:1:1:1:1:20:30000000:2\n\
2:1:1:1:1:30:60000019:N\n",
        pcf,
    );
    let a = run(&t, 0, 40);
    assert_eq!(
        a.types,
        [ScopeType::new(30_000_000), ScopeType::new(60_000_019)]
    );
    let main = scope(&a, "main");
    assert_eq!((main.inclusive, main.exclusive, main.entries), (20, 20, 1));
    assert_eq!(scope(&a, "f1").inclusive, 20);
    assert_eq!(scope(&a, "f2").inclusive, 20);
    // The sample held at the end is no scope left open.
    assert_eq!(a.report, ScopeReport::default());
    let want: Vec<Vec<&str>> = vec![
        vec!["f1"],
        vec!["f1", "main"],
        vec!["f2"],
        vec!["f2", "main"],
    ];
    assert_eq!(paths_with_time(&a), want);
    let ctx = ScopeContext::new(t.pcf.as_ref(), &t.store);
    let keys = stack_at(&t.store, &ctx, &a.types, 0, 25);
    assert_eq!(
        keys,
        [
            ScopeKey {
                ty: 30_000_000,
                value: 2
            },
            ScopeKey {
                ty: 60_000_019,
                value: 1
            }
        ]
    );
}

#[test]
fn pthread_functions_and_calls_are_scopes() {
    // Extrae's pthread types: the routine a thread runs (60000020, its line 60000120) and
    // the pthread calls inside it (61000000), which end with 0 as the other Extrae types.
    let pcf = "STATES\n1 Running\n\nEVENT_TYPE\n0 60000020 pthread function\nVALUES\n0 End\n\
2 worker [app.c:10]\n\nEVENT_TYPE\n0 60000120 pthread function line\nVALUES\n2 10 (app.c, app)\n\n\
EVENT_TYPE\n0 61000000 pthread call\nVALUES\n0 Outside pthread call\n5 pthread_mutex_lock\n\n";
    let t = trace_with_pcf(
        1,
        100,
        "1:1:1:1:1:0:100:1\n2:1:1:1:1:10:60000020:2:60000120:2\n2:1:1:1:1:30:61000000:5\n\
2:1:1:1:1:40:61000000:0\n2:1:1:1:1:90:60000020:0\n",
        pcf,
    );
    let types = auto_types(t.pcf.as_ref(), &t.store.event_types());
    assert_eq!(
        types,
        vec![ScopeType::new(60_000_020), ScopeType::new(61_000_000)]
    );
    let a = run(&t, 0, 100);
    let worker = scope(&a, "worker");
    assert_eq!((worker.inclusive, worker.exclusive), (80, 70));
    let lock = scope(&a, "pthread_mutex_lock");
    assert_eq!((lock.inclusive, lock.entries), (10, 1));
}

#[test]
fn each_application_has_its_own_shares() {
    // Two applications of one thread each: the first in a collective for 40 of 100 ticks,
    // the second for 10; a third row holds only a counter (no state): not counted.
    let pcf = "STATES\n1 Running\n\nEVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n0 End\n\
10 MPI_Allreduce\n\nEVENT_TYPE\n7 42000050 PAPI_TOT_INS\n\n";
    let text = "#Paraver (01/01/2026 at 00:00):100_ns:1(3):3:1(1:1):1(1:1):1(1:1)\n\
1:1:1:1:1:0:100:1\n1:1:2:1:1:0:100:1\n\
2:1:1:1:1:10:50000002:10\n2:1:1:1:1:50:50000002:0\n\
2:1:2:1:1:20:50000002:10\n2:1:2:1:1:30:50000002:0\n\
2:1:3:1:1:0:42000050:5\n2:1:3:1:1:90:42000050:7\n";
    let dir = std::env::temp_dir().join(format!("prvscope-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.prv"), text).unwrap();
    std::fs::write(dir.join("t.pcf"), pcf).unwrap();
    let t = trace::load(&dir.join("t.prv"), &LoadOptions::default(), None).unwrap();
    let a = run(&t, 0, 100);
    assert_eq!(a.counted, vec![true, true, false]);
    assert_eq!(a.counted_rows(), vec![0, 1]);
    assert_eq!(
        a.counted_text(),
        "2 of 3 threads (1 rows without states, only counters or samples, left out)"
    );
    let all = scope(&a, "MPI_Allreduce");
    assert_eq!((all.inclusive, all.entries), (50, 2));
    // Over both applications' time: 50 of 200 ticks.
    assert!((100.0 * all.inclusive as f64 / a.threads_ticks() - 25.0).abs() < 1e-9);
    let second = a.restricted_to(&[1]);
    let s = scope(&second, "MPI_Allreduce");
    assert_eq!(
        (s.inclusive, s.entries, s.inclusive_per_thread.clone()),
        (10, 1, vec![0, 10, 0])
    );
    assert_eq!(second.counted_rows(), vec![1]);
    assert!((100.0 * s.inclusive as f64 / second.threads_ticks() - 10.0).abs() < 1e-9);
    // The table of the command line: one section per application, its own shares.
    let ctx = ScopeContext::new(t.pcf.as_ref(), &t.store);
    let text = crate::table::scopes_text(&t, &ctx, &a, false, false);
    assert!(
        text.contains("application 1 (1 threads; shares of their time)"),
        "{text}"
    );
    assert!(
        text.contains("application 2 (1 threads; shares of their time)"),
        "{text}"
    );
    let shares: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("MPI_Allreduce"))
        .map(|l| {
            l.split_whitespace()
                .nth(l.split_whitespace().count() - 2)
                .unwrap()
        })
        .collect();
    assert_eq!(shares, ["40.00", "10.00"], "{text}");
}

#[test]
fn an_mpi_call_holds_until_its_next_value_and_zero_is_a_value_in_null_mode() {
    // NULL mode: an MPI call ends with 0 ("Outside MPI"), a value, never a null. main
    // [0,100) > MPI_Allreduce [10,20) and [30,40).
    let body = "2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:50000002:10\n2:1:1:1:1:20:50000002:0\n\
2:1:1:1:1:30:50000002:10\n2:1:1:1:1:40:50000002:0\n";
    let null_mode = trace_of(1, 100, body);
    let all = run(&null_mode, 0, 100);
    let call = scope(&all, "MPI_Allreduce");
    assert_eq!((call.inclusive, call.exclusive, call.entries), (20, 20, 2));
    let zero = all.find(ScopeKey {
        ty: 50_000_002,
        value: 0,
    });
    let outside = &all.scopes[zero.expect("a row for the value 0")];
    // Outside a call, the time is main's own: the value 0 holds below the functions.
    assert_eq!((outside.inclusive, outside.exclusive), (70, 0));
    let main = scope(&all, "main");
    assert_eq!((main.inclusive, main.exclusive), (100, 80));
    assert_eq!(all.report.open_at_end, 1, "main only");
    assert_eq!(all.report.too_deep + all.report.exits_without_entry, 0);
    // The same workload in the legacy convention (0 is the null): the same numbers, no
    // row for 0. And a window that starts inside a call reads it from its last event.
    let legacy = trace_with_pcf(
        1,
        100,
        body,
        "DEFAULT_OPTIONS\n\nEVENT_TYPE\n0 60000019 User function\nVALUES\n1 main\n\n\
EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n10 MPI_Allreduce\n\n",
    );
    let old = run(&legacy, 0, 100);
    assert_eq!(scope(&old, "MPI_Allreduce").inclusive, 20);
    assert_eq!(scope(&old, "main").exclusive, 80);
    assert!(old.find(outside.key).is_none());
    let late = run(&null_mode, 35, 100);
    assert_eq!(scope(&late, "MPI_Allreduce").inclusive, 5);
    assert_eq!(scope(&late, "main").exclusive, 60);
}

#[test]
fn calls_of_two_mpi_types_hold_on_top_the_latest_innermost() {
    // NULL mode, a point-to-point call [10,20) then a collective [30,40) under main: the
    // latest call is the innermost, whatever the types' order in the query.
    let pcf = "DEFAULT_OPTIONS\n\nNULL_VALUE N\n\n\
EVENT_TYPE\n0 60000019 User function\nVALUES\n1 main\n\n\
EVENT_TYPE\n9 50000001 MPI Point-to-point\nVALUES\n0 Outside MPI\n3 MPI_Send\n\n\
EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n0 Outside MPI\n10 MPI_Allreduce\n\n";
    let t = trace_with_pcf(
        1,
        50,
        "2:1:1:1:1:0:60000019:1:50000001:0:50000002:0\n2:1:1:1:1:10:50000001:3\n\
2:1:1:1:1:20:50000001:0\n2:1:1:1:1:30:50000002:10\n2:1:1:1:1:40:50000002:0\n",
        pcf,
    );
    let a = run(&t, 0, 50);
    let send = scope(&a, "MPI_Send");
    assert_eq!((send.inclusive, send.exclusive), (10, 10));
    let coll = scope(&a, "MPI_Allreduce");
    assert_eq!((coll.inclusive, coll.exclusive), (10, 10));
    assert_eq!(scope(&a, "main").exclusive, 30);
    for (ty, inclusive) in [(50_000_001, 40), (50_000_002, 40)] {
        let i = a.find(ScopeKey { ty, value: 0 }).unwrap();
        assert_eq!(a.scopes[i].inclusive, inclusive, "type {ty} holds 0");
    }
    assert_eq!(a.report.open_at_end, 1);
}

#[test]
fn after_the_last_record_of_a_file_cut_short_no_scope_holds() {
    // The header says 1000 ns, the records stop at 400 with main and a call still open: the
    // time after 400 is in no scope (as if the file went on with neither).
    let t = trace_of(
        1,
        1000,
        "1:1:1:1:1:0:400:1\n2:1:1:1:1:0:60000019:1\n2:1:1:1:1:300:50000002:10\n",
    );
    let a = run(&t, 0, 1000);
    assert_eq!(scope(&a, "main").inclusive, 400);
    assert_eq!(scope(&a, "MPI_Allreduce").inclusive, 100);
    let outside: u64 = a
        .cells
        .iter()
        .filter(|c| c.block == 0)
        .map(|c| c.ticks)
        .sum();
    assert_eq!(outside, 600, "the empty stack after the last record");
    let ctx = ScopeContext::new(t.pcf.as_ref(), &t.store);
    assert_eq!(ctx.records_end(), Some(400));
    // A window after the last record holds nothing.
    let w = run(&t, 500, 900);
    assert!(w.scopes.iter().all(|s| s.inclusive == 0), "{:?}", w.scopes);
    // A complete trace has no such end.
    let full = trace_of(1, 400, "1:1:1:1:1:0:400:1\n2:1:1:1:1:0:60000019:1\n");
    assert_eq!(
        ScopeContext::new(full.pcf.as_ref(), &full.store).records_end(),
        None
    );
}

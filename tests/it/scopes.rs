//! Scope analysis on real traces and on the demo: the scope table, per-thread times, source
//! locations and line heat.

use prvscope_analysis::scopes::{
    self, HeatSource, ScopeAnalysis, ScopeContext, ScopeQuery, TYPE_OMP_FUNCTION,
};
use prvscope_analysis::source::{Found, SourceFinder, scope_end_line};
use prvscope_import::{LoadOptions, Trace};
use prvscope_viewer::loader;

use crate::common::{load, shared_traces};

fn analyze(t: &Trace, t0: u64, t1: u64) -> (ScopeContext, ScopeAnalysis) {
    let ctx = ScopeContext::new(t.pcf.as_ref(), &t.store);
    let types = scopes::auto_types(t.pcf.as_ref(), &t.store.event_types());
    let a = scopes::analyze(&t.store, &ctx, &ScopeQuery { types, t0, t1 }, None).unwrap();
    (ctx, a)
}

#[test]
fn jacobi_lists_its_openmp_function_at_line_70_with_time_per_thread() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else { return };
    let t = load(&dir.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv"));
    let (_, a) = analyze(&t, 0, t.header.end_time);
    assert_eq!(a.types.len(), 1);
    let omp = a
        .scopes
        .iter()
        .find(|s| s.key.ty == TYPE_OMP_FUNCTION && s.key.value == 3)
        .expect("the OpenMP function in the table");
    assert_eq!(omp.name, "kernel_jacobi_2d_imper.omp_fn.0");
    let loc = omp.location.as_ref().expect("a location");
    assert_eq!((loc.file.as_str(), loc.line), ("jacobi-2d-imper_v0.c", 70));
    // Every one of the 24 threads runs the parallel function, for about the same time.
    assert_eq!(omp.inclusive_per_thread.len(), 24);
    assert!(omp.inclusive_per_thread.iter().all(|&t| t > 1_500_000_000));
    assert_eq!(omp.inclusive_per_thread.iter().sum::<u64>(), omp.inclusive);
    assert_eq!(omp.inclusive, omp.exclusive, "nothing nests inside it");
    // Thread 1.1.1 enters it once; each worker too.
    assert_eq!(omp.entries, 24);
    // Per-thread times equal the "last event value" intervals of the type.
    let row0: u64 = crate::common::value_intervals(&t.store, 0, TYPE_OMP_FUNCTION)
        .iter()
        .filter(|iv| iv.2 == 3)
        .map(|iv| iv.1 - iv.0)
        .sum();
    assert_eq!(omp.inclusive_per_thread[0], row0);
    // Its categories are the thread states: Running, and Synchronization at the barriers.
    let cats = &omp.inclusive_per_category;
    assert_eq!(cats.values().sum::<u64>(), omp.inclusive);
    let running = cats[&scopes::Category::State(1)];
    let sync = cats[&scopes::Category::State(5)];
    assert!(running > sync && sync > 0, "{cats:?}");
}

#[test]
fn lulesh_caller_lines_heat_lines_of_lulesh_comm_cc() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else { return };
    let t = load(
        &dir.join("profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv"),
    );
    let (_, a) = analyze(&t, 0, t.header.end_time);
    let (heat, source) = a.heat("lulesh-comm.cc");
    assert_eq!(source, HeatSource::LineEvents);
    assert!(heat.len() >= 5, "{heat:?}");
    assert!(heat.values().all(|&t| t > 0));
    assert!(
        a.files().iter().any(|f| f == "lulesh-comm.cc"),
        "{:?}",
        a.files()
    );
    // The heated lines' time is MPI time: it cannot exceed the MPI calls' own.
    let mpi: u64 = a
        .scopes
        .iter()
        .filter(|s| (50_000_001..=50_000_003).contains(&s.key.ty))
        .map(|s| s.inclusive)
        .sum();
    assert!(heat.values().sum::<u64>() <= mpi);
}

#[test]
fn ovni_traces_use_their_state_like_types_and_windows_stay_consistent() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else { return };
    let t = load(&dir.join("ovni_nanos6-task-types/thread.prv"));
    let end = t.header.end_time;
    let (_, whole) = analyze(&t, 0, end);
    assert!(!whole.types.is_empty(), "subsystem/task type chosen");
    assert!(
        whole
            .types
            .iter()
            .all(|s| s.nesting == scopes::Nesting::Replace)
    );
    // Two halves add up to the whole, scope by scope.
    let (_, a) = analyze(&t, 0, end / 2);
    let (_, b) = analyze(&t, end / 2, end);
    for s in &whole.scopes {
        let part = |x: &ScopeAnalysis| x.find(s.key).map_or(0, |i| x.scopes[i].inclusive);
        assert_eq!(part(&a) + part(&b), s.inclusive, "{}", s.name);
    }
}

#[test]
fn the_demo_heats_its_source_file() {
    let _shared = crate::common::shared();
    let t = loader::load_demo(&LoadOptions::default()).unwrap();
    let (_, a) = analyze(&t, 0, t.header.end_time);
    assert_eq!(a.files().first().map(String::as_str), Some("demo.c"));
    let (heat, source) = a.heat("demo.c");
    assert_eq!(source, HeatSource::ScopeFirstLines);
    let lines: Vec<u32> = heat.keys().copied().collect();
    assert_eq!(lines, [10, 24, 41, 58, 77, 93]);
    let finder = loader::source_finder(&t, &[]);
    let Found::Embedded { text } = finder.find("demo.c") else {
        panic!("demo.c is embedded");
    };
    // compute_flux spans lines 58-74 of demo.c.
    assert_eq!(scope_end_line(text, 58), Some(74));
    assert!(matches!(
        SourceFinder::default().find("demo.c"),
        Found::Missing { .. }
    ));
}

#[test]
fn the_scopes_command_prints_the_table_and_time_per_thread() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else { return };
    let t = load(&dir.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv"));
    let (ctx, a) = analyze(&t, 0, t.header.end_time);
    let text = prvscope_analysis::table::scopes_text(&t, &ctx, &a, false, false);
    let row = text
        .lines()
        .find(|l| l.starts_with("kernel_jacobi_2d_imper.omp_fn.0"))
        .expect("the OpenMP function's row");
    let omp = &a.scopes[0];
    assert!(row.contains("Executed OpenMP parallel function"));
    assert!(row.contains("jacobi-2d-imper_v0.c:70"));
    assert!(row.contains(&omp.inclusive.to_string()));
    let csv = prvscope_analysis::table::scopes_text(&t, &ctx, &a, true, true);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.len(), 7 + 24);
    assert_eq!(header[7], "THREAD 1.1.1");
    let cells: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(cells[0], "kernel_jacobi_2d_imper.omp_fn.0");
    let per_thread: u64 = cells[7..].iter().map(|c| c.parse::<u64>().unwrap()).sum();
    assert_eq!(per_thread, omp.inclusive);
}

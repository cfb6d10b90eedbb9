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

/// The trace files (`.prv`, `.prv.gz`, `.prv.xz`) of every `ovni_*` folder of the shared
/// traces, by folder.
fn ovni_traces(dir: &std::path::Path) -> Vec<(String, Vec<std::path::PathBuf>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("ovni_") || !path.is_dir() {
            continue;
        }
        let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let n = p.to_string_lossy();
                n.ends_with(".prv") || n.ends_with(".prv.gz") || n.ends_with(".prv.xz")
            })
            .collect();
        files.sort();
        out.push((name, files));
    }
    out.sort();
    out
}

/// The time the "last event value" view of `ty` shows a value over `[0, end)`, summed over
/// the rows: each event's value holds until the next event of the type (or `end`); nulls
/// (and zeros in legacy traces) show nothing. Computed from the store's columns directly.
fn non_null_time(store: &prvscope_store::TraceStore, ty: u32, end: u64) -> u64 {
    let policy = store.null_policy();
    let mut total = 0;
    for row in 0..store.threads().len() {
        let events: Vec<(u64, u64)> = store.events_in(row, ty, 0, end).collect();
        for (i, &(t, v)) in events.iter().enumerate() {
            let next = events.get(i + 1).map_or(end, |e| e.0);
            if !policy.is_null(v) {
                total += next - t;
            }
        }
    }
    total
}

#[test]
fn ovni_task_types_and_subsystems_take_the_time_their_event_views_show() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else { return };
    let folders = ovni_traces(&dir);
    assert!(folders.len() >= 5, "{folders:?}");
    let mut failures = Vec::new();
    for (folder, files) in &folders {
        let mut checked = 0;
        for path in files {
            let t = load(path);
            let end = t.header.end_time.max(t.store.end_time());
            let (ctx, a) = analyze(&t, 0, end);
            let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            for st in &a.types {
                let label = ctx.type_label(st.ty).to_ascii_lowercase();
                if !(label.contains("task type") || label.contains("subsystem")) {
                    continue;
                }
                checked += 1;
                let inclusive: u64 = a
                    .scopes
                    .iter()
                    .filter(|s| s.key.ty == st.ty)
                    .map(|s| s.inclusive)
                    .sum();
                let view = non_null_time(&t.store, st.ty, end);
                eprintln!(
                    "{name}: type {} ({}): inclusive {inclusive}, view {view}, closed by an outer exit {}",
                    st.ty,
                    ctx.type_label(st.ty).trim(),
                    a.report.unclosed_inner
                );
                if inclusive != view {
                    failures.push(format!("{name} type {}: {inclusive} != {view}", st.ty));
                }
            }
            if a.report.unclosed_inner != 0 {
                failures.push(format!(
                    "{name}: {} closed by an outer exit",
                    a.report.unclosed_inner
                ));
            }
        }
        assert!(
            checked > 0,
            "{folder}: no task type or subsystem type in {files:?}"
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_stack_at_a_point_is_what_the_views_and_the_scope_intervals_show() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else { return };
    // ovni: the stack is the task type's then the subsystem's current value, as their event
    // views show them, at every time either changes and between.
    let t = load(&dir.join("ovni_nanos6-task-types/thread.prv"));
    let (ctx, a) = analyze(&t, 0, t.header.end_time);
    let types: Vec<u32> = a.types.iter().map(|s| s.ty).collect();
    assert_eq!(types, [36, 37], "task type, then subsystem");
    let policy = t.store.null_policy();
    let mut checked = 0;
    for row in 0..t.store.threads().len() {
        let mut times: Vec<u64> = types
            .iter()
            .flat_map(|&ty| t.store.events_in(row, ty, 0, u64::MAX).map(|e| e.0))
            .flat_map(|e| [e, e + 1, e.saturating_sub(1)])
            .collect();
        times.sort_unstable();
        times.dedup();
        for &at in times.iter().take(400) {
            let want: Vec<scopes::ScopeKey> = types
                .iter()
                .filter_map(|&ty| {
                    let value = t.store.events_in(row, ty, 0, at + 1).last()?.1;
                    (!policy.is_null(value)).then_some(scopes::ScopeKey { ty, value })
                })
                .collect();
            assert_eq!(
                scopes::stack_at(&t.store, &ctx, &a.types, row, at),
                want,
                "row {row} at {at}"
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
    // Extrae MPI calls (stacking): a scope is on the stack exactly inside its intervals.
    let t = load(&dir.join("extrae_mpi_prime16/prime_v0.prv"));
    let end = t.header.end_time;
    let (ctx, a) = analyze(&t, 0, end);
    for s in a.scopes.iter().take(4) {
        let iv = scopes::scope_intervals(&t.store, &ctx, &a.types, s.key, 0, end, None).unwrap();
        for (row, list) in iv.iter().enumerate() {
            for &(from, to) in list.iter().take(20) {
                let holds =
                    |at| scopes::stack_at(&t.store, &ctx, &a.types, row, at).contains(&s.key);
                assert!(
                    holds(from) && holds(to - 1),
                    "{} row {row} [{from}, {to})",
                    s.name
                );
                assert!(!holds(to) || to == end, "{} row {row} after {to}", s.name);
                if from > 0 {
                    assert!(!holds(from - 1), "{} row {row} before {from}", s.name);
                }
            }
        }
    }
}

/// Each instance of a scope (`scope_instances`: entry to exit) against the table: on every
/// shared trace, for the scopes with the most time, a thread's instances add up to the
/// scope's inclusive time on it, never overlap, and an MPI call (which nests nothing) has as
/// many as the table's entries; two calls back to back are two instances, which the
/// timeline's highlight (`scope_intervals`) merges.
#[test]
fn scope_instances_add_up_to_the_tables_time_per_thread_on_every_shared_trace() {
    let _shared = crate::common::shared();
    let Some(dir) = shared_traces() else { return };
    let mut checked = 0;
    for path in crate::common::shared_trace_files(&dir) {
        if std::fs::metadata(&path).unwrap().len() > 8_000_000 {
            continue;
        }
        let t = load(&path);
        let (ctx, a) = analyze(&t, 0, t.header.end_time);
        let mut by_time: Vec<&scopes::ScopeStats> = a.scopes.iter().collect();
        by_time.sort_by_key(|s| std::cmp::Reverse(s.inclusive));
        for sc in by_time.iter().take(6) {
            let per = scopes::scope_instances(
                &t.store,
                &ctx,
                &a.types,
                sc.key,
                0,
                t.header.end_time,
                None,
            )
            .unwrap();
            let mut count = 0u64;
            for (row, inst) in per.iter().enumerate() {
                let sum: u64 = inst.iter().map(|&(b, e)| e - b).sum();
                let want = sc.inclusive_per_thread.get(row).copied().unwrap_or(0);
                if a.counted.get(row).copied().unwrap_or(false) {
                    assert_eq!(sum, want, "{}: {} on row {row}", path.display(), sc.name);
                }
                assert!(
                    inst.windows(2).all(|w| w[0].1 <= w[1].0),
                    "{}: {} overlaps",
                    path.display(),
                    sc.name
                );
                count += inst.len() as u64;
            }
            if (50_000_001..=50_000_003).contains(&sc.key.ty) {
                assert!(
                    count <= sc.entries,
                    "{}: {} has {count} instances, {} entries",
                    path.display(),
                    sc.name,
                    sc.entries
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} scopes checked");
}

#[test]
fn two_calls_back_to_back_are_two_instances() {
    let text = "#Paraver (01/01/2026 at 00:00):100_ns:1(1):1:1(1:1)\n\
        2:1:1:1:1:10:60000019:1\n\
        2:1:1:1:1:20:60000019:0\n\
        2:1:1:1:1:20:60000019:1\n\
        2:1:1:1:1:30:60000019:0\n\
        2:1:1:1:1:40:60000019:2\n\
        2:1:1:1:1:50:60000019:1\n\
        2:1:1:1:1:60:60000019:0\n\
        2:1:1:1:1:70:60000019:0\n";
    let t = prvscope_import::load_bytes(
        std::path::Path::new("t.prv"),
        text.as_bytes(),
        None,
        &LoadOptions::default(),
    )
    .unwrap();
    let (ctx, a) = analyze(&t, 0, 100);
    let f1 = a.scopes.iter().find(|s| s.key.value == 1).unwrap();
    let inst = scopes::scope_instances(&t.store, &ctx, &a.types, f1.key, 0, 100, None).unwrap();
    // 1 at 10-20 and 20-30 (back to back), and at 50-60 inside 2.
    assert_eq!(inst[0], [(10, 20), (20, 30), (50, 60)]);
    let merged = scopes::scope_intervals(&t.store, &ctx, &a.types, f1.key, 0, 100, None).unwrap();
    assert_eq!(merged[0], [(10, 30), (50, 60)]);
    assert_eq!(f1.entries, 3);
    assert_eq!(f1.inclusive, 30);
}

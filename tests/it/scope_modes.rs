//! One semantics of scopes in every null mode. A type that holds its value (MPI calls,
//! sampled functions, ovni's subsystems) has, on each thread and for each value, the time
//! `stats --type` gives it (Paraver's "Last Evt Val"), in NULL mode (where 0, "Outside MPI",
//! is a value) as in the legacy one, over the whole trace and over a zoomed window; a
//! nesting type's inclusive time is that of a naive stack walk of its events; and the same
//! workload written in either mode gives the same table.

use std::collections::BTreeMap;
use std::path::Path;

use prvscope_analysis::scopes::{
    self, MAX_DEPTH, Nesting, ScopeAnalysis, ScopeContext, ScopeKey, ScopeQuery,
};
use prvscope_analysis::stats::{Column, Semantic, time_per_value};
use prvscope_import::Trace;
use prvscope_import::synth::{self, GenOptions};

use crate::common::{load, shared_trace_files, shared_traces, temp_dir};

fn analysed(t: &Trace, t0: u64, t1: u64) -> ScopeAnalysis {
    let ctx = ScopeContext::new(t.pcf.as_ref(), &t.store);
    let types = scopes::auto_types(t.pcf.as_ref(), &t.store.event_types());
    scopes::analyze(&t.store, &ctx, &ScopeQuery { types, t0, t1 }, None).unwrap()
}

/// Per counted row and value, the inclusive time of the scopes of type `ty`.
fn inclusive_of(a: &ScopeAnalysis, ty: u32) -> BTreeMap<(usize, u64), u64> {
    let mut out = BTreeMap::new();
    for s in a.scopes.iter().filter(|s| s.key.ty == ty) {
        for (row, &ticks) in s.inclusive_per_thread.iter().enumerate() {
            if ticks > 0 && a.counted.get(row).copied().unwrap_or(false) {
                *out.entry((row, s.key.value)).or_insert(0) += ticks;
            }
        }
    }
    out
}

/// Per counted row and value (not null), the time of `stats --type ty` over `[t0, t1)`.
fn stats_of(
    t: &Trace,
    a: &ScopeAnalysis,
    ty: u32,
    t0: u64,
    t1: u64,
) -> BTreeMap<(usize, u64), u64> {
    let policy = t.store.null_policy();
    let table = time_per_value(&t.store, Semantic::LastEventValue(ty), t0, t1);
    let mut out = BTreeMap::new();
    for (row, cols) in table.rows.iter().enumerate() {
        if !a.counted.get(row).copied().unwrap_or(false) {
            continue;
        }
        for (col, &ticks) in cols {
            if let Column::Value(v) = *col
                && !policy.is_null(v)
                && ticks > 0
            {
                out.insert((row, v), ticks);
            }
        }
    }
    out
}

/// Per counted row and value, the entries of the scopes of type `ty`.
fn entries_of(a: &ScopeAnalysis, ty: u32) -> BTreeMap<(usize, u64), u64> {
    let mut out = BTreeMap::new();
    for s in a.scopes.iter().filter(|s| s.key.ty == ty) {
        for (row, &n) in s.entries_per_thread.iter().enumerate() {
            if n > 0 && a.counted.get(row).copied().unwrap_or(false) {
                out.insert((row, s.key.value), n);
            }
        }
    }
    out
}

/// Per counted row and value (not null), the events of type `ty` in `[t0, t1)`.
fn events_of(
    t: &Trace,
    a: &ScopeAnalysis,
    ty: u32,
    t0: u64,
    t1: u64,
) -> BTreeMap<(usize, u64), u64> {
    let policy = t.store.null_policy();
    let mut out = BTreeMap::new();
    for (row, thread) in t.store.threads().iter().enumerate() {
        let Some(col) = thread.event_type(ty) else {
            continue;
        };
        if !a.counted.get(row).copied().unwrap_or(false) {
            continue;
        }
        for (time, value) in col.time.iter().zip(col.value.iter()) {
            if (t0..t1).contains(&time) && !policy.is_null(value) {
                *out.entry((row, value)).or_insert(0) += 1;
            }
        }
    }
    out
}

/// Per row and value, the inclusive time of a naive walk of type `ty`'s events alone over
/// `[0, end)`: a value pushes, a null pops the top, each value on the stack counted once.
fn naive_stack_walk(
    t: &Trace,
    a: &ScopeAnalysis,
    ty: u32,
    end: u64,
) -> BTreeMap<(usize, u64), u64> {
    let policy = t.store.null_policy();
    let mut out = BTreeMap::new();
    for (row, thread) in t.store.threads().iter().enumerate() {
        if !a.counted.get(row).copied().unwrap_or(false) {
            continue;
        }
        let Some(col) = thread.event_type(ty) else {
            continue;
        };
        let mut stack: Vec<u64> = Vec::new();
        let mut now = 0;
        let mut add = |from: u64, to: u64, stack: &[u64]| {
            let mut seen: Vec<u64> = stack.to_vec();
            seen.sort_unstable();
            seen.dedup();
            for v in seen {
                *out.entry((row, v)).or_insert(0) += to.min(end) - from.min(end);
            }
        };
        for (time, value) in col.time.iter().zip(col.value.iter()) {
            add(now, time, &stack);
            now = time;
            if policy.is_null(value) {
                stack.pop();
            } else if stack.len() < MAX_DEPTH {
                stack.push(value);
            }
        }
        add(now, end, &stack);
    }
    out.retain(|_, t| *t > 0);
    out
}

/// Checks every scope type of `t` against its independent computation, over the whole
/// trace and over a window inside it; gives how many types were compared.
fn check(t: &Trace, name: &str) -> usize {
    let end = t.header.end_time;
    let a = analysed(t, 0, end);
    let (w0, w1) = (end / 3, end / 3 * 2);
    let w = analysed(t, w0, w1);
    let mut compared = 0;
    for st in &a.types {
        match st.nesting {
            Nesting::Leaf | Nesting::Replace => {
                assert_eq!(
                    inclusive_of(&a, st.ty),
                    stats_of(t, &a, st.ty, 0, end),
                    "{name}: type {} against stats --type",
                    st.ty
                );
                assert_eq!(
                    inclusive_of(&w, st.ty),
                    stats_of(t, &w, st.ty, w0, w1),
                    "{name}: type {} over [{w0}, {w1})",
                    st.ty
                );
                if st.nesting == Nesting::Leaf {
                    assert_eq!(
                        entries_of(&w, st.ty),
                        events_of(t, &w, st.ty, w0, w1),
                        "{name}: entries of type {} over [{w0}, {w1})",
                        st.ty
                    );
                }
                compared += 1;
            }
            // Several nesting types close each other's frames: each is walked alone only
            // when they never did.
            Nesting::Stack if a.report.unclosed_inner == 0 && a.report.too_deep == 0 => {
                assert_eq!(
                    inclusive_of(&a, st.ty),
                    naive_stack_walk(t, &a, st.ty, end),
                    "{name}: type {} against a naive stack walk",
                    st.ty
                );
                compared += 1;
            }
            Nesting::Stack => {}
        }
    }
    compared
}

fn generated(dir: &Path, legacy: bool) -> Trace {
    let opts = GenOptions {
        threads: 8,
        threads_per_task: 4,
        target_bytes: 600_000,
        seed: 5,
        mpi: true,
        legacy,
        ..GenOptions::default()
    };
    let name = if legacy { "legacy.prv" } else { "null.prv" };
    let s = synth::generate(&dir.join(name), &opts).unwrap();
    load(&s.prv)
}

#[test]
fn generated_mpi_traces_give_the_stats_times_and_one_table_in_both_modes() {
    let dir = temp_dir("scope-modes-gen");
    let null = generated(&dir, false);
    let legacy = generated(&dir, true);
    assert!(!null.store.null_policy().zero_is_null);
    assert!(legacy.store.null_policy().zero_is_null);
    for (t, name) in [(&null, "gen --mpi"), (&legacy, "gen --mpi --legacy")] {
        assert_eq!(check(t, name), 3, "{name}: two MPI types and the functions");
    }
    // The same workload: every scope but NULL mode's "Outside MPI" rows has the same
    // times and entries on every thread, and nothing is irregular.
    let end = null.header.end_time;
    assert_eq!(end, legacy.header.end_time);
    let (a, b) = (analysed(&null, 0, end), analysed(&legacy, 0, end));
    let rows = |a: &ScopeAnalysis| -> BTreeMap<ScopeKey, (Vec<u64>, Vec<u64>, Vec<u64>)> {
        a.scopes
            .iter()
            .filter(|s| !(scopes_is_mpi(s.key.ty) && s.key.value == 0))
            .map(|s| {
                (
                    s.key,
                    (
                        s.inclusive_per_thread.clone(),
                        s.exclusive_per_thread.clone(),
                        s.entries_per_thread.clone(),
                    ),
                )
            })
            .collect()
    };
    let (ra, rb) = (rows(&a), rows(&b));
    assert!(ra.len() > 4, "{ra:?}");
    assert_eq!(ra, rb);
    for r in [a.report, b.report] {
        assert_eq!(
            r.exits_without_entry + r.unclosed_inner + r.too_deep,
            0,
            "{r:?}"
        );
    }
    // The figure: MPI_Allreduce is ~11% of the threads' time, not 99%.
    let allreduce = a
        .scopes
        .iter()
        .find(|s| {
            s.key
                == ScopeKey {
                    ty: synth::TYPE_MPI_COLLECTIVE,
                    value: 10,
                }
        })
        .unwrap();
    let share = allreduce.inclusive as f64 / a.threads_ticks();
    assert!(share > 0.02 && share < 0.3, "{share}");
    // "Outside MPI" is a row of its own in NULL mode, and nests no call of its type.
    let outside = ScopeKey {
        ty: synth::TYPE_MPI_COLLECTIVE,
        value: 0,
    };
    let i = a.find(outside).expect("an Outside MPI row");
    assert!(a.scopes[i].inclusive + allreduce.inclusive <= end * 8);
    assert!(
        a.blocks.iter().all(|b| {
            let p = &b.path;
            let at = p.iter().position(|&s| a.scopes[s].key == outside);
            at.is_none_or(|at| {
                p[at + 1..]
                    .iter()
                    .all(|&s| a.scopes[s].key.ty != outside.ty)
            })
        }),
        "a call of the type under its Outside MPI"
    );
}

fn scopes_is_mpi(ty: u32) -> bool {
    prvscope_format::catalog::is_mpi_call(ty)
}

#[test]
fn every_shared_trace_gives_the_stats_times_and_the_naive_stack_walk() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let mut compared = 0;
    for path in shared_trace_files(&root)
        .into_iter()
        .filter(|f| !f.to_string_lossy().ends_with(".xz"))
    {
        let t = load(&path);
        compared += check(&t, &path.display().to_string());
    }
    assert!(compared >= 15, "only {compared} comparisons");
}

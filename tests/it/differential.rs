//! The scope analysis against independent computations, on every shared trace: the time of
//! calls that do not nest (MPI calls) and of the types that hold one value at a time (ovni's
//! subsystems, sampled functions) is the time Paraver's engine gives their "Last Evt Val"
//! window; the MPI calls' shares of each thread are those of BSC paramedir's `mpi_stats`;
//! each scope's breakdown adds up to its row of the scope table.

use std::collections::BTreeMap;
use std::path::Path;

use prvscope_analysis::breakdown::Breakdown;
use prvscope_analysis::scopes::{Nesting, ScopeAnalysis};
use prvscope_import::Trace;
use prvscope_paraver::filter::TypesFound;
use prvscope_paraver::paramedir::Context;

use crate::common::{load, shared_trace_files, shared_traces, thread_window_cfg};

/// Every shared trace but the large ovni `.xz` (its plain siblings are the same kind).
fn traces(root: &Path) -> Vec<std::path::PathBuf> {
    shared_trace_files(root)
        .into_iter()
        .filter(|f| !f.to_string_lossy().ends_with(".xz"))
        .collect()
}

/// Per thread row and value, the time of Paraver's "Last Evt Val" window of `types` (its
/// values other than 0), up to `end`.
fn last_event_value_time(t: &Trace, types: &[u32], end: u64) -> BTreeMap<(usize, u64), u64> {
    let cfg = thread_window_cfg("Last Evt Val", types);
    let ctx = Context::new(t);
    let c = ctx
        .engine()
        .compute(&cfg, &cfg.windows[0], &mut TypesFound::default())
        .unwrap();
    let mut out = BTreeMap::new();
    for (row, ivs) in c.rows.iter().enumerate() {
        for i in ivs {
            let (b, e) = (i.begin.min(end), i.end.min(end));
            if e > b && i.value != 0.0 {
                *out.entry((row, i.value as u64)).or_insert(0) += e - b;
            }
        }
    }
    out
}

/// Per counted row and value, the inclusive time of the scopes of `types`.
fn scope_time(a: &ScopeAnalysis, types: &[u32]) -> BTreeMap<(usize, u64), u64> {
    let mut out = BTreeMap::new();
    for s in a.scopes.iter().filter(|s| types.contains(&s.key.ty)) {
        for (row, &ticks) in s.inclusive_per_thread.iter().enumerate() {
            if ticks > 0 {
                *out.entry((row, s.key.value)).or_insert(0) += ticks;
            }
        }
    }
    out
}

#[test]
fn scope_times_of_calls_and_held_values_are_paravers_last_event_value_times() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let mut compared = 0;
    for path in traces(&root) {
        let name = path.display().to_string();
        let t = load(&path);
        let (_, a) = crate::common::whole_trace_scopes(&t);
        let end = t.header.end_time;
        let counted = |m: BTreeMap<(usize, u64), u64>| -> BTreeMap<(usize, u64), u64> {
            m.into_iter()
                .filter(|((row, _), _)| a.counted.get(*row).copied().unwrap_or(false))
                .collect()
        };
        // MPI calls: one window of every MPI call type the trace has (they do not nest).
        let mpi: Vec<u32> = a
            .types
            .iter()
            .map(|st| st.ty)
            .filter(|&ty| prvscope_format::catalog::is_mpi_call(ty))
            .collect();
        if !mpi.is_empty() {
            assert_eq!(
                scope_time(&a, &mpi),
                counted(last_event_value_time(&t, &mpi, end)),
                "{name}: MPI calls"
            );
            compared += 1;
        }
        // Types that hold one value at a time: each on its own.
        for st in a.types.iter().filter(|st| st.nesting == Nesting::Replace) {
            assert_eq!(
                scope_time(&a, &[st.ty]),
                counted(last_event_value_time(&t, &[st.ty], end)),
                "{name}: type {}",
                st.ty
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "only {compared} comparisons");
}

/// The MPI calls' shares of each thread's time against BSC paramedir's `mpi_stats`
/// (statistic % Time, 2 decimals) for the shared traces it was run on.
#[test]
fn mpi_call_shares_are_bsc_paramedirs_mpi_stats() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let refs = root.join("../reference/paramedir");
    let cases = [
        ("extrae_mpi_prime16", "extrae_mpi_prime16/prime_v0.prv"),
        (
            "profet_lulesh_2appl_comms",
            "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
        ),
        ("epoch_1proc", "pypop_epoch_scaling/epoch_1proc.prv.gz"),
        ("epoch_2proc", "pypop_epoch_scaling/epoch_2proc.prv.gz"),
    ];
    for (name, file) in cases {
        let t = load(&root.join(file));
        let (ctx, a) = crate::common::whole_trace_scopes(&t);
        let text = gunzip(
            &refs
                .join(name)
                .join("paraver__mpi__analysis__mpi_stats.txt.gz"),
        );
        let mut lines = text.lines();
        let columns: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let mut checked = 0;
        for line in lines.take_while(|l| l.starts_with("THREAD")) {
            let cells: Vec<&str> = line.split('\t').collect();
            let row = (0..t.store.thread_count())
                .find(|&r| t.thread_name(r) == cells[0])
                .unwrap_or_else(|| panic!("{name}: no row {}", cells[0]));
            for (col, cell) in columns.iter().zip(&cells).skip(1) {
                if col.is_empty() || *col == "Outside MPI" {
                    continue;
                }
                let theirs: f64 = cell.parse().unwrap();
                let ours: u64 = a
                    .scopes
                    .iter()
                    .filter(|s| prvscope_format::catalog::is_mpi_call(s.key.ty))
                    .filter(|s| ctx.scope_name(s.key) == *col)
                    .map(|s| s.inclusive_per_thread[row])
                    .sum();
                let ours = 100.0 * ours as f64 / t.header.end_time as f64;
                assert!(
                    (ours - theirs).abs() <= 0.005 + 1e-9,
                    "{name} {} {col}: ours {ours:.4}%, paramedir {theirs}%",
                    cells[0]
                );
                checked += 1;
            }
        }
        assert!(checked > 0, "{name}");
    }
}

#[test]
fn each_scopes_breakdown_adds_up_to_its_row_of_the_table() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    for path in traces(&root) {
        let name = path.display().to_string();
        let t = load(&path);
        let (_, a) = crate::common::whole_trace_scopes(&t);
        for s in &a.scopes {
            let b = Breakdown::of(&a, s.key).unwrap();
            let per_thread: Vec<u64> = (0..a.threads).map(|r| b.thread_total(r)).collect();
            assert_eq!(per_thread, s.inclusive_per_thread, "{name}: {}", s.name);
            assert_eq!(
                b.per_category, s.inclusive_per_category,
                "{name}: {}",
                s.name
            );
            assert_eq!(b.total, s.inclusive, "{name}: {}", s.name);
        }
        // The rows a table counts take the rows' whole time: the time outside every scope
        // and the scopes' exclusive times add up to it.
        let outside: u64 = a
            .cells
            .iter()
            .filter(|c| c.block == 0)
            .map(|c| c.ticks)
            .sum();
        let exclusive: u64 = a.scopes.iter().map(|s| s.exclusive).sum();
        assert_eq!(
            outside + exclusive,
            a.span() * a.counted_rows().len() as u64,
            "{name}"
        );
    }
}

fn gunzip(path: &Path) -> String {
    use std::io::Read as _;
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    s
}

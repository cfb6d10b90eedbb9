//! What the crate's integration tests share.

#![allow(dead_code, clippy::unwrap_used)] // each test file uses part of it

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// `../shared` beside the repository; without it the test is skipped, except under
/// `CI=true`, where it fails (CI always has it).
pub fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if p.join("traces").is_dir() {
        Some(p)
    } else if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} not found: CI must run the tests on the real traces",
            p.display()
        );
    } else {
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

/// The six shared traces of paramedir's reference outputs (`../shared/reference/paramedir`),
/// under `../shared/traces`.
pub const REFERENCE_TRACES: [&str; 6] = [
    "extrae_mpi_prime16/prime_v0.prv",
    "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
    "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
    "pypop_imagemagick_omp4/omp4.prv.gz",
    "pypop_epoch_scaling/epoch_1proc.prv.gz",
    "pypop_epoch_scaling/epoch_2proc.prv.gz",
];

/// The shared traces of every kind whose text the trace writers read: the reference ones,
/// the ovni thread and CPU traces, both NULL-mode traces, a fourth epoch run.
#[allow(dead_code)]
pub fn text_traces(shared: &Path) -> Vec<PathBuf> {
    REFERENCE_TRACES
        .iter()
        .chain(&[
            "pypop_epoch_scaling/epoch_4proc.prv.gz",
            "ovni_nosv-hwc/thread.prv",
            "ovni_nosv-hwc/cpu.prv",
            "ovni_tampi-ss-comm/thread.prv",
            "ovni_tampi-ss-comm/cpu.prv",
            "ovni_nanos6-task-types/thread.prv",
            "ovni_nanos6-breakdown-write-zero/thread.prv",
            "null_mode/threads_legacy.prv",
            "null_mode/threads_null.prv",
        ])
        .map(|p| shared.join("traces").join(p))
        .collect()
}

/// The text of a gzip file.
pub fn gunzip(path: &Path) -> String {
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    s
}

/// A trace loaded whole.
pub fn load(path: &Path) -> prvscope_store::Trace {
    prvscope_import::load(path, &prvscope_import::LoadOptions::default(), None)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of a trace file, plain or gzipped.
pub fn text_of(path: &Path) -> String {
    if path.extension().is_some_and(|e| e == "gz") {
        gunzip(path)
    } else {
        std::fs::read_to_string(path).unwrap()
    }
}

/// A store's records, for comparison: per thread its states, events per type, CPU changes;
/// the communications; the header (a task's node only where the trace has nodes: Paraver's
/// tools write 0 there otherwise); the null values counted.
pub fn store_records(t: &prvscope_store::Trace) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for (row, th) in t.store.threads().iter().enumerate() {
        for i in 0..th.states.len() {
            let _ = writeln!(
                s,
                "{row} state {} {} {}",
                th.states.begin.get(i),
                th.states.end.get(i),
                th.states.value.get(i)
            );
        }
        for c in &th.events {
            for (time, v) in c.time.iter().zip(c.value.iter()) {
                let _ = writeln!(s, "{row} event {} {time} {v}", c.ty);
            }
        }
        let _ = writeln!(s, "{row} cpus {:?}", th.cpus);
    }
    for c in t.store.comms() {
        let _ = writeln!(s, "comm {c:?}");
    }
    let h = &t.header;
    let tasks: Vec<(u32, u32)> = h
        .applications
        .iter()
        .flat_map(|a| &a.tasks)
        .map(|t| (t.threads, if h.node_cpus.is_empty() { 0 } else { t.node }))
        .collect();
    let _ = writeln!(
        s,
        "header {} {} {:?} {:?} {tasks:?} {}",
        h.date, h.end_time, h.time_unit, h.node_cpus, h.communicator_lines
    );
    let _ = writeln!(s, "nulls {}", t.store.counts().null_values);
    s
}

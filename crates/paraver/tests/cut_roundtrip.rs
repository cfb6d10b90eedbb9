//! A trace written by prvscope and read back gives the same store: every shared trace, and
//! generated traces (states, events with `N` values, several events of one type at one time,
//! communications, migrations) as a property test. Also: a cut written to `.xz` and `.gz`
//! reads back as the plain one, and a failed or cancelled write leaves nothing behind.

#![allow(clippy::unwrap_used)]

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use proptest::prelude::*;
use prvscope_paraver::cut::options::EventFilter;
use prvscope_paraver::cut::{
    self, Control, CutterOptions, FilterOptions, Head, Job, StateFilter, WriteError,
};
use prvscope_store::Trace;

use common::{load, store_records as records};

/// Every record kept: the filter that writes the whole trace.
fn everything() -> FilterOptions {
    FilterOptions {
        states: Some(StateFilter {
            all: true,
            ..StateFilter::default()
        }),
        events: Some(EventFilter::default()),
        comms: Some(0),
    }
}

fn no_control() -> (AtomicBool, Box<dyn Fn(f32) + Sync>) {
    (AtomicBool::new(false), Box::new(|_| {}))
}

fn rewrite(trace: &Trace, out: &Path) -> Trace {
    let (cancel, progress) = no_control();
    let control = Control {
        progress: &*progress,
        cancel: &cancel,
    };
    let job = Job {
        cutter: None,
        filter: Some(everything()),
        stop_as_paraver: false,
        source_name: None,
    };
    cut::save(trace, &job, out, &control).unwrap();
    load(out)
}

#[test]
fn shared_traces_read_back_the_same() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("prvscope-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for p in common::REFERENCE_TRACES.iter().chain(&[
        "ovni_nanos6-task-types/thread.prv",
        "ovni_nanos6-task-types/cpu.prv",
        "ovni_tampi-ss-comm/thread.prv",
        "null_mode/threads_null.prv",
        "null_mode/threads_legacy.prv",
    ]) {
        let path = shared.join("traces").join(p);
        let trace = load(&path);
        for ext in ["prv", "prv.gz", "prv.xz"] {
            let back = rewrite(&trace, &dir.join(format!("back.{ext}")));
            let (a, b) = (records(&back), records(&trace));
            let first = a.lines().zip(b.lines()).find(|(x, y)| x != y);
            assert!(a == b, "{p} written as .{ext}: first difference {first:?}");
            assert!(
                back.report.warnings().is_empty(),
                "{p}: {:?}",
                back.report.warnings()
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A generated trace's text: `threads` threads, states back to back, events (some `N`,
/// some of one type at one time), messages between threads, a migration.
fn generate(threads: u32, seed: &[u64]) -> String {
    let mut s = format!("#Paraver (01/01/2026 at 00:00):1000000_ns:1(4):1:1({threads}:1)\n");
    let mut k = 0usize;
    let mut next = || {
        k += 1;
        seed[k % seed.len()]
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(k as u64)
            >> 33
    };
    let mut lines: Vec<(u64, String)> = Vec::new();
    for th in 1..=threads {
        let mut t = 0u64;
        let mut cpu = th % 4 + 1;
        while t < 900_000 {
            let len = next() % 50_000 + 1;
            if next() % 7 == 0 {
                cpu = cpu % 4 + 1;
            }
            if t == 0 {
                // A null (`N`) on every thread.
                lines.push((0, format!("2:{cpu}:1:1:{th}:0:49999999:N")));
            }
            lines.push((
                t,
                format!("1:{cpu}:1:1:{th}:{t}:{}:{}", t + len, next() % 5),
            ));
            let mut ev = format!("2:{cpu}:1:1:{th}:{t}");
            for _ in 0..=next() % 3 {
                let ty = 50_000_000 + next() % 3;
                if next() % 5 == 0 {
                    let _ = write!(ev, ":{ty}:N");
                } else {
                    let _ = write!(ev, ":{ty}:{}", next() % 4);
                }
            }
            lines.push((t, ev));
            if threads > 1 && next() % 3 == 0 {
                let to = next() % u64::from(threads) + 1;
                let lr = t + next() % 1000;
                lines.push((
                    t,
                    format!(
                        "3:{cpu}:1:1:{th}:{t}:{t}:1:1:1:{to}:{lr}:{}:{}:{}",
                        lr + 5,
                        next() % 4096,
                        next() % 9
                    ),
                ));
            }
            t += len;
        }
    }
    lines.sort_by_key(|l| l.0);
    for (_, l) in lines {
        s.push_str(&l);
        s.push('\n');
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn generated_traces_read_back_the_same(
        threads in 1u32..6,
        seed in proptest::collection::vec(any::<u64>(), 1..8),
    ) {
        let dir = std::env::temp_dir()
            .join(format!("prvscope-roundtrip-gen-{}-{threads}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("gen.prv");
        std::fs::write(&input, generate(threads, &seed)).unwrap();
        let trace = load(&input);
        prop_assert!(trace.store.counts().null_values >= u64::from(threads));
        let back = rewrite(&trace, &dir.join("back.prv"));
        let (a, b) = (records(&back), records(&trace));
        let first = a.lines().zip(b.lines()).find(|(x, y)| x != y).map(|(x, y)| format!("{x} / {y}"));
        prop_assert!(a == b, "first difference {:?}", first);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn compressed_cuts_read_back_as_the_plain_one_and_failures_leave_nothing() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("prvscope-cut-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = load(&shared.join("traces/extrae_mpi_prime16/prime_v0.prv"));
    let d = trace.header.end_time;
    let job = Job {
        cutter: Some(CutterOptions::by_time(d / 3, d / 3 * 2)),
        filter: None,
        stop_as_paraver: false,
        source_name: None,
    };
    let (cancel, progress) = no_control();
    let control = Control {
        progress: &*progress,
        cancel: &cancel,
    };
    let mut back = Vec::new();
    for ext in ["prv", "prv.gz", "prv.xz"] {
        let out = dir.join(format!("cut.{ext}"));
        let saved = cut::save(&trace, &job, &out, &control).unwrap();
        assert_eq!(saved.files.len(), 3, "the trace, its .pcf and .row");
        assert!(dir.join("cut.pcf").exists() && dir.join("cut.row").exists());
        let t = load(&out);
        assert_eq!(t.header.end_time, d / 3 * 2 - d / 3);
        back.push(records(&t));
    }
    assert_eq!(back[0], back[1]);
    assert_eq!(back[0], back[2]);
    // `max_trace_size`: a cut under it is the whole cut; one that reaches it is refused.
    let mut capped = job.clone();
    if let Some(c) = capped.cutter.as_mut() {
        c.max_trace_size = 1;
    }
    let out = dir.join("capped.prv");
    cut::save(&trace, &capped, &out, &control).unwrap();
    assert_eq!(records(&load(&out)), back[0]);
    let big = load(&shared.join("traces/pypop_imagemagick_omp4/omp4.prv.gz"));
    let mut whole = CutterOptions::by_time(0, big.header.end_time);
    whole.max_trace_size = 1;
    let whole = Job {
        cutter: Some(whole),
        filter: None,
        stop_as_paraver: false,
        source_name: None,
    };
    // One that reaches it stops after the line that takes the cutter's first pass to it,
    // as Paraver's does (the cut reads the file's lines in its order).
    cut::save(&big, &whole, &dir.join("big.prv"), &control).unwrap();
    let size = std::fs::metadata(dir.join("big.prv")).unwrap().len();
    assert!((900_000..1_100_000).contains(&size), "{size}");
    // Bad requests: nothing written.
    let refused = |job: &Job, name: &str| {
        let out = dir.join(name);
        let e = cut::save(&trace, job, &out, &control).unwrap_err();
        assert!(!out.exists(), "{name}");
        e.to_string()
    };
    let e = refused(
        &Job {
            cutter: Some(CutterOptions::by_time(5, 5)),
            filter: None,
            stop_as_paraver: false,
            source_name: None,
        },
        "empty.prv",
    );
    assert!(e.contains("empty"), "{e}");
    let e = refused(
        &Job {
            cutter: Some(CutterOptions::by_time(d + 1, d + 9)),
            filter: None,
            stop_as_paraver: false,
            source_name: None,
        },
        "outside.prv",
    );
    assert!(e.contains("after the trace's end"), "{e}");
    let e = cut::save(&trace, &job, &dir.join("no/such/folder/x.prv"), &control).unwrap_err();
    assert!(e.to_string().contains("no/such/folder/x.prv"), "{e}");
    let e = cut::save(&trace, &job, &trace.path.clone(), &control).unwrap_err();
    assert!(e.to_string().contains("the trace itself"), "{e}");
    // A trace whose communicator lines cannot be read again: refused, not written without.
    let mut gone = trace.clone();
    gone.path = dir.join("moved_away.prv");
    let e = cut::save(&gone, &job, &dir.join("gone.prv"), &control).unwrap_err();
    assert!(e.to_string().contains("communicator lines"), "{e}");
    assert!(!dir.join("gone.prv").exists());
    // Cancelled: no file, no temporary left.
    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let out = dir.join("cancelled.prv");
    let e = cut::save(&trace, &job, &out, &control).unwrap_err();
    assert!(matches!(e, WriteError::Cancelled), "{e}");
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".part-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = Head::default();
}

/// The region POP measures (`cut::in_memory`) is the trace `prvscope cut` writes,
/// read back: one cut, two ways to it.
#[test]
fn the_pop_region_is_the_written_cut() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("prvscope-pop-region-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cancel, progress) = no_control();
    let control = Control {
        progress: &*progress,
        cancel: &cancel,
    };
    for p in common::REFERENCE_TRACES
        .iter()
        .chain(&["ovni_tampi-ss-comm/cpu.prv", "null_mode/threads_null.prv"])
    {
        let trace = load(&shared.join("traces").join(p));
        let d = trace.header.end_time;
        for (t0, t1) in [(d / 4, d / 2), (d / 3, d / 3 + d / 50 + 1), (0, d)] {
            let job = Job {
                cutter: Some(CutterOptions::by_time(t0, t1)),
                filter: None,
                stop_as_paraver: false,
                source_name: None,
            };
            let out = dir.join("region.prv");
            cut::save(&trace, &job, &out, &control).unwrap();
            let written = load(&out);
            let in_memory = prvscope_paraver::cut::in_memory(&trace, t0, t1);
            // (The region measured reads `N` as 0, as Paraver reads it; the file keeps it.)
            let null = format!(" {}", u64::MAX);
            let a = records(&written).replace(&null, " 0");
            let b = records(&in_memory);
            let a: String = a.lines().filter(|l| !l.starts_with("nulls")).collect();
            let b: String = b.lines().filter(|l| !l.starts_with("nulls")).collect();
            assert!(
                a == b,
                "{p} [{t0}, {t1}]: the region differs from the written cut"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

//! Out-of-core conversion: a trace parsed in batches, written into the store cache and joined
//! there is the trace a load gives, whatever the batches cut (threads out of time order across
//! them, messages merged from runs, line numbers of the issues).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use prvscope_import::cache::CacheState;
use prvscope_import::{self as trace, LoadOptions, Trace};

use crate::common;
use crate::store_cache::{assert_same, assert_same_pictures, options};

fn convert(path: &Path, opts: &LoadOptions, batch: u64) -> Trace {
    trace::convert::convert(path, opts, Some(batch), None)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Real traces of every kind, converted in many batches (a thirtieth of the file, at least
/// 64 kB; every thread's parts joined), are the traces a load gives, and open from the cache
/// the second time.
#[test]
fn real_traces_converted_in_batches_are_the_loaded_traces() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let dir = common::temp_dir("convert-real");
    let opts = options(&dir);
    for rel in [
        "extrae_mpi_prime16/prime_v0.prv",
        "ovni_tampi-ss-comm/thread.prv",
        "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
        "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
        "pypop_epoch_scaling/epoch_4proc.prv.gz",
        "ovni_gen_large_4x16/thread.prv.xz",
    ] {
        let path = root.join(rel);
        let plain = common::load(&path);
        let batch = (std::fs::metadata(&path).unwrap().len() / 30).max(64 << 10);
        let converted = convert(&path, &opts, batch);
        assert_eq!(converted.cache.state, CacheState::Built, "{rel}");
        assert!(converted.store.is_mapped(), "{rel}");
        assert_same(&plain, &converted);
        assert_same_pictures(&plain, &converted);
        let again = convert(&path, &opts, batch);
        assert_eq!(again.cache.state, CacheState::Hit, "{rel}");
        assert_same(&plain, &again);
    }
    // Nothing but the cache files is left in the folder.
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        assert_eq!(
            p.extension().and_then(|x| x.to_str()),
            Some("prvc"),
            "{}",
            p.display()
        );
    }
}

/// A trace whose records are out of time order across batches (states, events and messages
/// of one thread written late), with bad lines in several batches: joined and sorted as a
/// load sorts them, and every issue names the line it is on.
#[test]
fn records_out_of_order_across_batches_are_sorted_as_a_load_sorts_them() {
    let dir = common::temp_dir("convert-disorder");
    let path: PathBuf = dir.join("t.prv");
    let mut text = String::from("#Paraver (01/01/2024 at 00:00):100000_ns:1(4):1:2(2:1,2:1)\n");
    for i in 0..400u64 {
        let t = 1000 + i * 100;
        writeln!(text, "1:1:1:1:1:{t}:{}:{}", t + 60, i % 7).unwrap();
        writeln!(text, "2:2:1:2:1:{t}:50000001:{}:50000002:{i}", i % 3).unwrap();
        writeln!(
            text,
            "3:1:1:1:1:{t}:{t}:2:1:2:1:{}:{}:64:{i}",
            t + 40,
            t + 45
        )
        .unwrap();
        if i % 97 == 5 {
            text += "1:1:1:1:bad\n";
        }
    }
    // Thread 2's early history, written after everything else.
    for i in 0..300u64 {
        let t = 10 + i * 3;
        writeln!(text, "1:2:1:2:1:{t}:{}:{}", t + 2, i % 5).unwrap();
        writeln!(text, "2:2:1:2:1:{t}:50000001:{i}").unwrap();
        writeln!(text, "3:2:1:2:1:{t}:{t}:1:1:1:1:{}:{}:8:{i}", t + 1, t + 1).unwrap();
    }
    std::fs::write(&path, &text).unwrap();
    let plain = common::load(&path);
    assert!(plain.report.skipped_lines() > 0);
    // Thread 2 goes back in time: the order of its two event types at one timestamp is
    // taken as unknown, in every batch cut alike.
    assert_eq!(
        plain.report.count(trace::IssueKind::EventsOutOfOrder),
        1,
        "{:?}",
        plain.report.warnings()
    );
    assert_eq!(plain.store.inversions(), [(50_000_002, 50_000_001)]);
    for batch in [300u64, 4 << 10, 1 << 30] {
        let dir = common::temp_dir(&format!("convert-disorder-{batch}"));
        let converted = convert(&path, &options(&dir), batch);
        assert_same(&plain, &converted);
        assert_same_pictures(&plain, &converted);
    }
}

/// A cancelled conversion stops, says so and leaves nothing in the cache folder; a part of a
/// trace or a cache turned off is refused with the reason.
#[test]
fn a_cancelled_or_impossible_conversion_leaves_nothing() {
    let path = common::generated_16_threads("convert-cancel");
    let dir = common::temp_dir("convert-cancel-dir");
    let progress = std::sync::Arc::new(trace::LoadProgress::default());
    progress
        .cancel
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let e = trace::convert::convert(&path, &options(&dir), Some(1 << 20), Some(progress))
        .expect_err("cancelled");
    assert!(matches!(e, trace::LoadError::Cancelled { .. }), "{e}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let no_cache = LoadOptions::default();
    let e = trace::convert::convert(&path, &no_cache, None, None).expect_err("no cache");
    assert!(e.to_string().contains("--no-cache"), "{e}");
    let part = LoadOptions {
        subset: trace::Subset {
            threads: Some("1-2".parse().unwrap()),
            ..trace::Subset::default()
        },
        ..options(&dir)
    };
    let e = trace::convert::convert(&path, &part, None, None).expect_err("a part");
    assert!(e.to_string().contains("whole trace"), "{e}");
}

/// The command line converts a whole trace that does not fit in its memory budget (it says
/// so), with `--convert` when asked, and refuses with `--no-cache`, saying what to do.
#[test]
fn the_command_line_converts_what_does_not_fit() {
    let path = common::generated_16_threads_of("convert-cli", 2 << 20);
    let dir = common::temp_dir("convert-cli-dir");
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["info", "--json", "--cache-dir"])
            .arg(&dir)
            .args(extra)
            .arg(&path)
            .output()
            .unwrap()
    };
    let refused = run(&["--no-cache", "--memory-budget", "1MB"]);
    assert!(!refused.status.success());
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(why.contains("leave out --no-cache"), "{why}");
    let converted = run(&["--memory-budget", "1MB"]);
    assert!(
        converted.status.success(),
        "{}",
        String::from_utf8_lossy(&converted.stderr)
    );
    let note = String::from_utf8_lossy(&converted.stderr);
    assert!(
        note.contains("converting it into the store cache"),
        "{note}"
    );
    let json: serde_json::Value = serde_json::from_slice(&converted.stdout).unwrap();
    assert_eq!(json["cache"], "built");
    let loaded: serde_json::Value = serde_json::from_str(&common::stdout_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["info", "--json", "--no-cache"])
            .arg(&path),
    ))
    .unwrap();
    for k in ["state_records", "event_records", "comm_records", "skipped"] {
        assert_eq!(json[k], loaded[k], "{k}");
    }
    let hit = run(&["--memory-budget", "1MB"]);
    let hit: serde_json::Value = serde_json::from_slice(&hit.stdout).unwrap();
    assert_eq!(hit["cache"], "hit");
    // Asked for on a trace that fits.
    let other = common::temp_dir("convert-cli-dir2");
    let asked = common::stdout_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["info", "--json", "--convert", "--cache-dir"])
            .arg(&other)
            .arg(&path),
    );
    let asked: serde_json::Value = serde_json::from_str(&asked).unwrap();
    assert_eq!(asked["cache"], "built");
    assert_eq!(asked["state_records"], loaded["state_records"]);
}

/// A trace that does not fit is converted into the store cache and cut from there: the same
/// cut as from the trace loaded whole.
#[test]
fn a_trace_that_does_not_fit_is_cut_from_the_store_cache() {
    let path = common::generated_16_threads_of("convert-cut", 2 << 20);
    let dir = common::temp_dir("convert-cut-dir");
    let cut = |extra: &[&str], out: &std::path::Path| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .arg("cut")
            .arg(&path)
            .args(["--from", "1ms", "--to", "3ms", "-o"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let cache = dir.join("cache");
    let note = cut(
        &[
            "--memory-budget",
            "1MB",
            "--cache-dir",
            &cache.to_string_lossy(),
        ],
        &dir.join("converted.prv"),
    );
    assert!(
        note.contains("converting it into the store cache"),
        "{note}"
    );
    cut(&["--no-cache"], &dir.join("whole.prv"));
    let body = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.join(name))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    let converted = body("converted.prv");
    assert!(converted.len() > 100, "{} lines", converted.len());
    assert_eq!(converted, body("whole.prv"));
}

//! The cut of a loaded trace in memory (`cut::in_memory`) against a cut of its text made line by line as
//! Paraver's cutter makes it (`naive_tools::cutter`, the port of `KTraceCutter::execute`, with
//! its default settings), on every shared trace and several regions; and the POP metrics of a
//! region (`pop::figures_in`) against those of the trace cut to it, every efficiency within
//! [0, 100]%.
//!
//! With `PARAMEDIR=path/to/paramedir` in the environment, the text cut is also compared with
//! BSC's own cutter (`paramedir -c -o OUT TRACE CUTTER.xml`), record for record.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

mod common;
mod naive_tools;

use prvscope_paraver::{cut, pop};
use prvscope_store::Trace;

use common::{load, store_records as records, text_of};

/// The shared traces a cut is checked on, with their side files.
fn traces(shared: &Path) -> Vec<PathBuf> {
    common::REFERENCE_TRACES
        .iter()
        .chain(&[
            "pypop_epoch_scaling/epoch_4proc.prv.gz",
            "ovni_nosv-hwc/thread.prv",
            "ovni_tampi-ss-comm/cpu.prv",
            "null_mode/threads_null.prv",
        ])
        .map(|p| shared.join("traces").join(p))
        .collect()
}

/// The text cut of `path`, loaded (written beside copies of the side files).
fn load_text_cut(path: &Path, trace: &Trace, t0: u64, t1: u64, dir: &Path) -> Trace {
    let text = naive_tools::cutter(
        &text_of(path),
        trace.pcf.as_ref(),
        &prvscope_paraver::cut::CutterOptions::by_time(t0, t1),
    );
    let out = dir.join("cut.prv");
    std::fs::write(&out, text).unwrap();
    let stem = |ext: &str| {
        let name = path.file_name().unwrap().to_string_lossy();
        let base = name.trim_end_matches(".gz").trim_end_matches(".prv");
        path.with_file_name(format!("{base}.{ext}"))
    };
    for ext in ["pcf", "row"] {
        let _ = std::fs::remove_file(dir.join(format!("cut.{ext}")));
        if stem(ext).exists() {
            std::fs::copy(stem(ext), dir.join(format!("cut.{ext}"))).unwrap();
        }
    }
    load(&out)
}

fn regions(end: u64) -> Vec<(u64, u64)> {
    vec![
        (0, end),
        (end / 4, end / 2),
        (end / 3, end / 3 + end / 50 + 1),
        (end / 10 * 9, end),
        (1, 2),
    ]
}

#[test]
fn a_cut_store_is_the_store_of_the_cut_text() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("prvscope-cutter-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bsc = std::env::var_os("PARAMEDIR").map(PathBuf::from);
    for path in traces(&shared) {
        let trace = load(&path);
        for (t0, t1) in regions(trace.header.end_time) {
            let ours = cut::in_memory(&trace, t0, t1);
            let theirs = load_text_cut(&path, &trace, t0, t1, &dir);
            assert_eq!(
                records(&ours),
                records(&theirs),
                "{} cut to [{t0}, {t1}]",
                path.display()
            );
            // (BSC's cutter writes an undefined duration for a cut without records, and
            // does not read the `N` values of the NULL mode, prvscope's extension.)
            let empty = theirs.store.counts().states + theirs.store.counts().events == 0;
            let null_mode = !trace.store.null_policy().zero_is_null;
            if let Some(paramedir) = bsc.as_ref().filter(|_| !empty && !null_mode) {
                let bsc_cut = bsc_cut(paramedir, &path, t0, t1, &dir);
                assert_eq!(
                    records(&bsc_cut),
                    records(&theirs),
                    "BSC's cutter, {} cut to [{t0}, {t1}]",
                    path.display()
                );
            }
        }
    }
}

/// BSC's cutter run on `path` (its text unpacked beside its side files).
fn bsc_cut(paramedir: &Path, path: &Path, t0: u64, t1: u64, dir: &Path) -> Trace {
    let input = dir.join("in.prv");
    std::fs::write(&input, text_of(path)).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    let base = name.trim_end_matches(".gz").trim_end_matches(".prv");
    for ext in ["pcf", "row"] {
        let side = path.with_file_name(format!("{base}.{ext}"));
        let _ = std::fs::remove_file(dir.join(format!("in.{ext}")));
        if side.exists() {
            std::fs::copy(side, dir.join(format!("in.{ext}"))).unwrap();
        }
    }
    let xml = dir.join("cutter.xml");
    std::fs::write(
        &xml,
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<config>\n  <cutter>\n    \
             <max_trace_size>0</max_trace_size>\n    <by_time>1</by_time>\n    \
             <minimum_time>{t0}</minimum_time>\n    <maximum_time>{t1}</maximum_time>\n    \
             <minimum_time_percentage>0</minimum_time_percentage>\n    \
             <maximum_time_percentage>100</maximum_time_percentage>\n    \
             <original_time>0</original_time>\n    <break_states>1</break_states>\n    \
             <remove_first_states>0</remove_first_states>\n    \
             <remove_last_states>0</remove_last_states>\n  </cutter>\n</config>\n"
        ),
    )
    .unwrap();
    let out = dir.join("bsc.prv");
    let status = std::process::Command::new(paramedir)
        .arg("-c")
        .arg("-o")
        .arg(&out)
        .arg(&input)
        .arg(&xml)
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success(), "{} failed", paramedir.display());
    load(&out)
}

#[test]
fn region_metrics_are_those_of_the_trace_cut_to_the_region() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("prvscope-region-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for path in traces(&shared) {
        let trace = load(&path);
        for (t0, t1) in regions(trace.header.end_time) {
            let region = pop::figures_in(&trace, Some((t0, t1)));
            let cut = pop::figures(&load_text_cut(&path, &trace, t0, t1, &dir));
            assert_eq!(region, cut, "{} [{t0}, {t1})", path.display());
            let Ok(f) = region else {
                continue;
            };
            for m in pop::metrics(std::slice::from_ref(&f)) {
                let Some(v) = m.values[0] else {
                    continue;
                };
                if m.percent {
                    assert!(
                        (0.0..=100.000_001).contains(&v),
                        "{} [{t0}, {t1}): {} {v}",
                        path.display(),
                        m.name
                    );
                }
            }
        }
    }
}

/// The region reported: EPOCH's one-process run zoomed to 5-10 s gave a global efficiency
/// of 437.81% and 2.90 GHz (the region compared with the whole run, and the counters of
/// the bursts that overlap it counted whole).
#[test]
fn a_region_of_epoch_is_its_own_reference() {
    let Some(shared) = common::shared() else {
        return;
    };
    let trace = load(&shared.join("traces/pypop_epoch_scaling/epoch_1proc.prv.gz"));
    let whole = pop::figures(&trace).unwrap();
    let region = pop::figures_in(&trace, Some((5_000_000_000, 10_000_000_000))).unwrap();
    assert!((region.runtime_us - 5_000_000.0).abs() < 1e-6);
    let metrics = pop::metrics(std::slice::from_ref(&region));
    let get = |name: &str| {
        metrics
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.values[0])
            .unwrap()
    };
    assert!(get("Global efficiency") <= 100.0);
    assert!((get("Computation scalability") - 100.0).abs() < 1e-9);
    let freq = get("Average frequency (GHz)");
    let whole_freq = whole.cycles.unwrap() / whole.useful_total() / 1000.0;
    assert!(
        freq <= whole_freq,
        "the region's frequency {freq} GHz, the run's {whole_freq} GHz"
    );
}

//! A store cache file checked after it was opened (`CacheCheck::Later`, what the viewer does
//! with a file that cannot stay in memory): its first view is drawn at once; its records are
//! the trace's once checked, and, when a section is corrupt, they are never used: the store's
//! records are empty, the file is removed, and the viewer reads the trace again.

use std::path::Path;
use std::sync::Arc;

use prvscope::cli::info::{info_json, info_text};
use prvscope_import::cache::{CacheCheck, CacheOptions, CacheState};
use prvscope_import::{self as trace, LoadOptions, NullOverride, Trace};
use prvscope_store::Integrity;

use crate::common;
use crate::store_cache::{assert_same, options};

fn later(dir: &Path) -> LoadOptions {
    LoadOptions {
        cache_check: CacheCheck::Later,
        ..options(dir)
    }
}

fn load(path: &Path, opts: &LoadOptions) -> Trace {
    trace::load(path, opts, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// An intact file is the trace once checked; one byte flipped anywhere is caught: at the
/// open (the view, the description) or by the check after it (the threads, the messages),
/// which empties the records and removes the file, so that the next open parses the trace.
#[test]
fn a_file_corrupt_in_its_records_is_caught_after_the_open_and_never_used() {
    let path = common::generated_16_threads_of("cache-check-later", 2 << 20);
    let dir = common::temp_dir("cache-check-later-dir");
    let truth = common::load(&path);
    let built = load(&path, &options(&dir));
    let file = built.cache.file.clone().unwrap();
    let good = std::fs::read(&file).unwrap();
    let n = good.len();

    let t = load(&path, &later(&dir));
    assert_eq!(t.cache.state, CacheState::Hit);
    assert_eq!(t.store.wait_checked(), Integrity::Checked);
    assert_same(&truth, &t);
    // `info` says the file was checked (it does not wait for the check: see below).
    assert!(
        info_text(&t).contains("store cache    hit\n"),
        "{}",
        info_text(&t)
    );
    assert!(info_text(&t).contains("s from the store cache\n"));
    assert_eq!(info_json(&t)["cache_records_checked"], true);

    let mut caught_later = 0;
    for at in [64, 4096, n / 5, n / 3, n / 2, n - 200, n - 2] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        std::fs::write(&file, &bad).unwrap();
        let t = load(&path, &later(&dir));
        if t.cache.state == CacheState::Hit {
            // Opened: the records are checked now.
            let Integrity::Corrupt(why) = t.store.wait_checked() else {
                panic!("byte {at}: a corrupt file was checked whole");
            };
            assert!(why.contains("checksum differs"), "{why}");
            assert!(t.store.threads().iter().all(|th| th.states.is_empty()));
            assert!(t.store.threads().iter().all(|th| th.events.is_empty()));
            assert!(t.store.comms().is_empty());
            assert_eq!(t.store.thread_count(), truth.store.thread_count());
            assert!(!file.exists(), "byte {at}: the corrupt file is still there");
            // `info` says so: its counts are the description's, checked at the open.
            let text = info_text(&t);
            assert!(
                text.contains("checksum differs")
                    && text
                        .contains("the file was removed, and the next load reads the trace again"),
                "{text}"
            );
            assert_eq!(info_json(&t)["cache_records_checked"], false);
            assert_eq!(
                info_json(&t)["event_records"],
                info_json(&truth)["event_records"]
            );
            caught_later += 1;
            let again = load(&path, &later(&dir));
            assert_eq!(again.cache.state, CacheState::Built, "byte {at}");
            assert_same(&truth, &again);
        } else {
            let refused = t.cache.refused.clone().unwrap_or_default();
            assert!(refused.contains("checksum"), "byte {at}: {refused}");
            assert_eq!(t.cache.state, CacheState::Built);
            assert_same(&truth, &t);
        }
        assert_eq!(std::fs::read(&file).unwrap(), good, "byte {at}: rebuilt");
    }
    assert!(caught_later >= 3, "{caught_later} caught after the open");
}

/// The viewer opening a file corrupt in a thread's section opens the trace from the cache,
/// then closes it when the check fails, says why, and reads the trace again: the trace it
/// then shows is the parsed one.
#[test]
fn the_viewer_reads_the_trace_again_when_the_check_finds_the_cache_corrupt() {
    use prvscope_viewer::app::App;
    use prvscope_viewer::loader::{LoadRequest, LoadSource};
    use prvscope_viewer::settings::Settings;
    let _shared = common::shared();
    let path = common::generated_16_threads_of("cache-check-viewer", 2 << 20);
    let dir = common::temp_dir("cache-check-viewer-dir");
    let truth = common::load(&path);
    let file = load(&path, &options(&dir)).cache.file.unwrap();
    let mut bad = std::fs::read(&file).unwrap();
    bad[64] ^= 0x10;
    std::fs::write(&file, &bad).unwrap();

    let (p, d) = (path.clone(), dir.clone());
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1000.0, 600.0))
        .build_eframe(move |cc| {
            App::with_request(
                &cc.egui_ctx,
                LoadSource::File(p),
                NullOverride::Auto,
                Settings::default(),
                LoadRequest {
                    cache: Some(CacheOptions {
                        dir: d,
                        limit_bytes: 1 << 30,
                    }),
                    cache_check: CacheCheck::Later,
                    ..LoadRequest::default()
                },
            )
        });
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    // The trace opened from the cache (a small one may be closed again before this frame:
    // the check is quick); a frame after the check failed closes it and reads it again.
    for _ in 0..500 {
        if h.state().status().contains("read again") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        h.run_steps(1);
    }
    let status = h.state().status().to_owned();
    assert!(
        status.contains("checksum differs") && status.contains("read again"),
        "{status}"
    );
    h.state_mut().wait_for_load(&ctx);
    h.state_mut().wait_for_cache_write();
    h.run_steps(2);
    let t = &h.state().loaded().expect("loaded again").trace;
    assert_ne!(t.cache.state, CacheState::Hit);
    assert_eq!(t.store.integrity(), Integrity::Checked);
    assert_eq!(*t.store, *truth.store);
    assert!(h.state().status().contains("read again"));
}

/// The sections of a cache file (offset, length), from its directory.
fn sections(bytes: &[u8]) -> Vec<(usize, usize)> {
    let le = |at: usize, n: usize| {
        bytes[at..at + n]
            .iter()
            .rev()
            .fold(0u64, |x, &b| (x << 8) | u64::from(b)) as usize
    };
    let dir_at = le(16, 8);
    (0..le(dir_at, 4))
        .map(|k| {
            let e = dir_at + 4 + k * 20;
            (le(e, 8), le(e + 8, 8))
        })
        .collect()
}

/// A file written by a conversion (records in batches, then the first view and the messages'
/// index) with its records checked after the open: a byte flipped in any section is refused
/// at the open, or the first frames draw what they drew from the intact file (the State view
/// over three windows, every message line) and the check after the open finds it.
#[test]
fn a_converted_file_is_drawn_from_checked_bytes_only() {
    use prvscope_store::comm_index::{BundleQuery, CommIndex};
    use prvscope_store::signal::{SignalSpec, ViewSignals};
    use prvscope_store::summary::DrawMode;
    let path = common::generated_16_threads_of("cache-check-converted", 1 << 20);
    let dir = common::temp_dir("cache-check-converted-dir");
    let converted = trace::convert::convert(&path, &options(&dir), Some(64 << 10), None).unwrap();
    let file = converted.cache.file.clone().unwrap();
    let good = std::fs::read(&file).unwrap();
    let end = converted.header.end_time;
    let rows: Vec<usize> = (0..16).collect();
    let drawn = |t: &Trace| {
        let view = ViewSignals::build(Arc::clone(&t.store), SignalSpec::States, false);
        let mut out = Vec::new();
        for (from, to) in [(0, end), (end / 3, end / 3 + end / 50), (end - 1000, end)] {
            let edges: Vec<u64> = (0..=400u64).map(|k| from + k * (to - from) / 400).collect();
            for mode in DrawMode::ALL {
                out.push(format!("{:?}", view.summarize_rows(&rows, &edges, mode)));
            }
        }
        let all = |r: u32| Some(r);
        let lines = CommIndex::of(&t.store).bundles(&BundleQuery {
            t0: 0,
            span: end,
            closed: false,
            width: 400,
            row_of: &all,
            max_bundles: 1 << 20,
            only_row: None,
        });
        out.push(format!("{lines:?}"));
        out
    };
    let reference = drawn(&load(&path, &later(&dir)));
    let (mut at_open, mut after) = (0, 0);
    for (at, len) in sections(&good).into_iter().filter(|s| s.1 > 0) {
        let mut bad = good.clone();
        bad[at + len / 2] ^= 0x08;
        std::fs::write(&file, &bad).unwrap();
        let t = load(&path, &later(&dir));
        if t.cache.state == CacheState::Hit {
            // (Compared whole, printed short: a frame's pixels are thousands of lines.)
            assert!(
                drawn(&t) == reference,
                "section at {at}: drawn from unchecked bytes"
            );
            assert!(
                matches!(t.store.wait_checked(), Integrity::Corrupt(_)),
                "section at {at}"
            );
            after += 1;
        } else {
            let refused = t.cache.refused.clone().unwrap_or_default();
            assert!(refused.contains("checksum"), "section at {at}: {refused}");
            at_open += 1;
        }
        std::fs::write(&file, &good).unwrap();
    }
    assert!(
        at_open >= 10 && after >= 16,
        "{at_open} at the open, {after} after"
    );
}

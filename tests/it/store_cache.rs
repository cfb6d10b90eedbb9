//! The store cache: a re-opened trace is the same trace, read in place from the mapped file;
//! a truncated, corrupted, stale or half-written cache is refused and rebuilt, never used.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use prvscope_import::cache::{CacheOptions, CacheState};
use prvscope_import::{self as trace, LoadOptions, NullOverride, Trace};

use crate::common;

pub(crate) fn options(dir: &Path) -> LoadOptions {
    LoadOptions {
        cache: Some(CacheOptions {
            dir: dir.to_path_buf(),
            limit_bytes: 1 << 40,
        }),
        ..LoadOptions::default()
    }
}

fn load(path: &Path, opts: &LoadOptions) -> Trace {
    trace::load(path, opts, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Everything a user sees of a load, whatever the store was read from.
pub(crate) fn assert_same(a: &Trace, b: &Trace) {
    assert_eq!(a.header, b.header);
    assert_eq!(*a.store, *b.store, "{}", a.path.display());
    assert_eq!(a.store.counts(), b.store.counts());
    assert_eq!(a.store.null_policy(), b.store.null_policy());
    assert_eq!(a.store.loaded_rows(), b.store.loaded_rows());
    assert_eq!(a.report, b.report);
    assert_eq!(a.part, b.part);
    assert_eq!(a.pcf.is_some(), b.pcf.is_some());
    assert_eq!(a.stats.compression, b.stats.compression);
    assert_eq!(a.stats.bytes_decoded, b.stats.bytes_decoded);
    // The index of the text's pieces (what a cut passes over) comes back as it was made.
    assert_eq!(a.text_index, b.text_index, "{}", a.path.display());
}

/// The State view and the messages' index that a re-opened trace takes from its cache file
/// draw what the ones built from the records draw: every row, every draw mode, the whole
/// trace and a zoom, and the message bundles.
pub(crate) fn assert_same_pictures(plain: &Trace, hit: &Trace) {
    use prvscope_store::comm_index::{BundleQuery, CommIndex};
    use prvscope_store::signal::{SignalSpec, ViewSignals};
    use prvscope_store::summary::DrawMode;
    let zero = plain.store.null_policy().zero_is_null;
    let view = |t: &Trace| ViewSignals::build(Arc::clone(&t.store), SignalSpec::States, zero);
    let (a, b) = (view(plain), view(hit));
    assert_eq!(a.values(), b.values());
    let end = plain.header.end_time.max(1);
    let rows: Vec<usize> = (0..a.row_count()).collect();
    for (from, to) in [(0, end), (end / 3, end / 3 + end / 50 + 1)] {
        let edges: Vec<u64> = (0..=700u64).map(|k| from + k * (to - from) / 700).collect();
        for mode in DrawMode::ALL {
            assert_eq!(
                a.summarize_rows(&rows, &edges, mode),
                b.summarize_rows(&rows, &edges, mode),
                "{} {mode:?}",
                plain.path.display()
            );
        }
    }
    let row_of = |r: u32| Some(r);
    let q = BundleQuery {
        t0: 0,
        span: end,
        closed: false,
        width: 1000,
        row_of: &row_of,
        max_bundles: 5000,
        only_row: None,
    };
    let built = CommIndex::build(plain.store.comms());
    let cached = CommIndex::of(&hit.store);
    assert_eq!(built.len(), cached.len());
    assert_eq!(built.bundles(&q), cached.bundles(&q));
}

fn cache_file(t: &Trace) -> PathBuf {
    t.cache.file.clone().expect("a cache file")
}

/// Real traces of every kind (MPI with messages, ovni, two applications, plain and
/// compressed): the second open maps the cache and gives the same trace.
#[test]
fn reopening_real_traces_reads_the_same_store_in_place() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let dir = common::temp_dir("store-cache-real");
    let opts = options(&dir);
    for rel in [
        "extrae_mpi_prime16/prime_v0.prv",
        "ovni_tampi-ss-comm/thread.prv",
        "ovni_tampi-ss-comm/cpu.prv",
        "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
        "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
        "pypop_epoch_scaling/epoch_4proc.prv.gz",
        "pypop_imagemagick_omp4/omp4.prv.gz",
        "ovni_gen_large_4x16/thread.prv.xz",
        "null_mode",
    ] {
        let files: Vec<PathBuf> = if rel.contains(".prv") {
            vec![root.join(rel)]
        } else {
            common::shared_trace_files(&root)
                .into_iter()
                .filter(|f| f.starts_with(root.join(rel)))
                .collect()
        };
        assert!(!files.is_empty(), "{rel}");
        for path in files {
            let plain = common::load(&path);
            let built = load(&path, &opts);
            assert_eq!(built.cache.state, CacheState::Built, "{}", path.display());
            assert!(!built.store.is_mapped());
            let hit = load(&path, &opts);
            assert_eq!(hit.cache.state, CacheState::Hit, "{}", path.display());
            assert!(hit.store.is_mapped());
            assert!(hit.store.mapped_bytes() > 0);
            assert!(plain.text_index.is_some(), "{}: no index", path.display());
            assert_same(&plain, &built);
            assert_same(&plain, &hit);
            assert_same_pictures(&plain, &hit);
        }
    }
}

/// A generated trace with a part loaded (some threads, a time range): the part is keyed
/// apart from the whole, and re-opened as the same part.
#[test]
fn parts_and_null_options_are_cached_apart() {
    let _shared = common::shared();
    let path = common::generated_16_threads("store-cache-parts");
    let dir = common::temp_dir("store-cache-parts-dir");
    let whole = options(&dir);
    let part = LoadOptions {
        subset: trace::Subset {
            from: Some(1_000),
            to: Some(50_000_000),
            threads: Some("2-5".parse().unwrap()),
        },
        ..options(&dir)
    };
    let zero = LoadOptions {
        null: NullOverride::Zero,
        ..options(&dir)
    };
    for opts in [&whole, &part, &zero] {
        assert_eq!(load(&path, opts).cache.state, CacheState::Built);
    }
    for opts in [&whole, &part, &zero] {
        let hit = load(&path, opts);
        assert_eq!(hit.cache.state, CacheState::Hit);
        let fresh = trace::load(
            &path,
            &LoadOptions {
                cache: None,
                ..opts.clone()
            },
            None,
        )
        .unwrap();
        assert_same(&fresh, &hit);
    }
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(files, 3);
}

/// A trace rewritten after its store was cached is parsed again.
#[test]
fn a_changed_trace_is_parsed_again() {
    let _shared = common::shared();
    let path = common::generated_16_threads("store-cache-changed");
    let dir = common::temp_dir("store-cache-changed-dir");
    let opts = options(&dir);
    let first = load(&path, &opts);
    assert_eq!(first.cache.state, CacheState::Built);
    // The same size, another modification time, one value changed.
    let mut text = std::fs::read(&path).unwrap();
    let at = text.len() / 2;
    let at = at + text[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let line_end = at + text[at..].iter().position(|&b| b == b'\n').unwrap();
    let digit = (at..line_end)
        .rev()
        .find(|&i| text[i].is_ascii_digit())
        .unwrap();
    text[digit] = if text[digit] == b'7' { b'8' } else { b'7' };
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&path, &text).unwrap();
    let again = load(&path, &opts);
    assert_eq!(again.cache.state, CacheState::Built);
    assert_same(&common::load(&path), &again);
    // The store of the older trace was replaced, not kept beside.
    assert_ne!(cache_file(&first), cache_file(&again));
    assert!(!cache_file(&first).exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

/// Truncated, one byte changed anywhere (header, data, directory), an older layout, a file
/// of another trace: each is refused with its reason, removed and rebuilt; what loads is the
/// trace itself.
#[test]
fn damaged_or_stale_caches_are_refused_and_rebuilt() {
    let _shared = common::shared();
    let path = common::generated_16_threads("store-cache-damage");
    let other = common::generated_16_threads_of("store-cache-damage-other", 1 << 20);
    let dir = common::temp_dir("store-cache-damage-dir");
    let opts = options(&dir);
    let truth = common::load(&path);
    let file = cache_file(&load(&path, &opts));
    let good = std::fs::read(&file).unwrap();
    let n = good.len();
    let check = |damaged: Vec<u8>, expect: &str| {
        std::fs::write(&file, damaged).unwrap();
        let t = load(&path, &opts);
        let refused = t.cache.refused.clone().unwrap_or_default();
        assert!(refused.contains(expect), "{expect}: {refused}");
        assert_eq!(t.cache.state, CacheState::Built, "{expect}");
        assert_same(&truth, &t);
        // Rebuilt: the next open uses the new file.
        assert_eq!(load(&path, &opts).cache.state, CacheState::Hit);
        assert_eq!(std::fs::read(&file).unwrap(), good);
    };
    check(good[..n - 1].to_vec(), "truncated");
    check(good[..n / 2].to_vec(), "truncated");
    check(good[..10].to_vec(), "truncated header");
    check(Vec::new(), "truncated header");
    // One byte flipped: in the magic, in the data, near the end (directory or meta).
    for (at, expect) in [
        (0, "not a prvscope cache"),
        (64, "checksum"),
        (n / 3, "checksum"),
        (n / 2 + 5, "checksum"),
        (n - 2, "checksum"),
    ] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        check(bad, expect);
    }
    let mut older = good.clone();
    older[8..12].copy_from_slice(&(prvscope_store::cache::FORMAT_VERSION - 1).to_le_bytes());
    check(older, "stale cache: written in layout version");
    // Another trace's cache file under this trace's name.
    let other_file = cache_file(&load(&other, &opts));
    check(std::fs::read(other_file).unwrap(), "another trace");
}

/// A writer killed at any moment leaves nothing that is used: the final name appears only
/// once complete (written under another name, then renamed), and a load after each kill
/// either hits a whole cache or parses the trace again.
#[test]
fn a_write_killed_midway_leaves_no_cache_that_is_used() {
    let _shared = common::shared();
    let path = common::generated_16_threads_of("store-cache-kill", 24 << 20);
    let dir = common::temp_dir("store-cache-kill-dir");
    let opts = options(&dir);
    let truth = common::load(&path);
    for delay_ms in [30u64, 60, 90, 120, 150, 200, 260, 330] {
        for f in std::fs::read_dir(&dir).unwrap() {
            std::fs::remove_file(f.unwrap().path()).unwrap();
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["info", "--cache-dir"])
            .arg(&dir)
            .arg(&path)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let t = load(&path, &opts);
        assert!(
            matches!(t.cache.state, CacheState::Hit | CacheState::Built),
            "{:?}",
            t.cache
        );
        assert_same(&truth, &t);
    }
}

/// A write interrupted with its process (a viewer closed mid-write, a command killed) leaves
/// its temporary file; the next load that uses the cache removes it, and leaves the writes of
/// live processes alone.
#[test]
fn the_next_load_removes_what_a_dead_writer_left() {
    let _shared = common::shared();
    let dir = common::temp_dir("store-cache-abandoned-dir");
    let path = common::generated_16_threads_of("store-cache-abandoned", 1 << 20);
    // No process has this id (Linux's ids stop at 2^22).
    let dead = dir.join("0123456789abcdef-0123456789abcdef.tmp4000000000-0");
    let init = dir.join("0123456789abcdef-0123456789abcdef.tmp1-0");
    let mine = dir.join(format!(
        "0123456789abcdef-0123456789abcdef.tmp{}-7",
        std::process::id()
    ));
    for f in [&dead, &init, &mine] {
        std::fs::write(f, b"half a cache").unwrap();
    }
    let t = load(&path, &options(&dir));
    assert!(matches!(t.cache.state, CacheState::Built | CacheState::Hit));
    assert!(!dead.exists(), "a dead writer's file stays");
    assert!(
        init.exists() && mine.exists(),
        "a live writer's file was removed"
    );
    assert_eq!(prvscope_import::cache::remove_abandoned(&dir), 0);
}

/// Files left by unfinished writes are removed once old; the least recently used stores go
/// first when the folder is over its limit.
#[test]
fn eviction_keeps_the_folder_under_its_limit() {
    let _shared = common::shared();
    let dir = common::temp_dir("store-cache-evict-dir");
    let a = common::generated_16_threads_of("store-cache-evict-a", 1 << 20);
    let b = common::generated_16_threads_of("store-cache-evict-b", 1 << 20);
    let c = common::generated_16_threads_of("store-cache-evict-c", 1 << 20);
    let big = options(&dir);
    let fa = cache_file(&load(&a, &big));
    let fb = cache_file(&load(&b, &big));
    let size = std::fs::metadata(&fa).unwrap().len();
    // `a` used after `b`: `b` is the least recently used.
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(load(&a, &big).cache.state, CacheState::Hit);
    let leftover = dir.join("0123456789abcdef.tmp4242");
    std::fs::write(&leftover, b"half a cache").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_hours(2);
    std::fs::File::options()
        .append(true)
        .open(&leftover)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let recent = dir.join("fedcba9876543210.tmp4243");
    std::fs::write(&recent, b"being written").unwrap();
    let tight = LoadOptions {
        cache: Some(CacheOptions {
            dir: dir.clone(),
            limit_bytes: size * 5 / 2,
        }),
        ..LoadOptions::default()
    };
    let fc = cache_file(&load(&c, &tight));
    assert!(fc.exists() && fa.exists());
    assert!(!fb.exists(), "the least recently used store stays");
    assert!(!leftover.exists(), "an hour-old unfinished write stays");
    assert!(recent.exists(), "a write in progress was removed");
}

/// `info --json` says what the cache did; `--no-cache` leaves it alone.
#[test]
fn info_says_built_hit_or_off() {
    let _shared = common::shared();
    let path = common::generated_16_threads_of("store-cache-cli", 1 << 20);
    let dir = common::temp_dir("store-cache-cli-dir");
    let info = |extra: &[&str]| {
        let out = common::stdout_of(
            Command::new(env!("CARGO_BIN_EXE_prvscope"))
                .args(["info", "--json", "--cache-dir"])
                .arg(&dir)
                .args(extra)
                .arg(&path),
        );
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    assert_eq!(info(&["--no-cache"])["cache"], "off");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // The store is written by a process of the command's own, which goes on after it.
    let built = info(&[]);
    assert_eq!(built["cache"], "writing");
    let hit = info(&[]);
    assert_eq!(hit["cache"], "hit");
    assert!(hit["mapped_bytes"].as_u64().unwrap() > 0);
    for k in ["state_records", "event_records", "comm_records", "skipped"] {
        assert_eq!(built[k], hit[k], "{k}");
    }
}

/// A command writes the store beside its own work, in a process of its own that keeps the
/// command's stderr (read here to its end: after the write): the next command maps the store.
/// A cache folder that cannot be written leaves the command's output whole and says why on
/// stderr.
#[test]
fn commands_write_the_cache_beside_their_work() {
    let _shared = common::shared();
    let path = common::generated_16_threads_of("store-cache-beside", 1 << 20);
    let dir = common::temp_dir("store-cache-beside-dir");
    let stats = |dir: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["stats", "--csv", "--cache-dir"])
            .arg(dir)
            .arg(&path)
            .output()
            .unwrap()
    };
    let first = stats(&dir);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(
        first.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "one store written, no temporary file left");
    let hit: serde_json::Value = serde_json::from_str(&common::stdout_of(
        Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["info", "--json", "--cache-dir"])
            .arg(&dir)
            .arg(&path),
    ))
    .unwrap();
    assert_eq!(hit["cache"], "hit");
    let again = stats(&dir);
    assert_eq!(
        again.stdout, first.stdout,
        "the same figures from the store cache"
    );

    // A file where the cache folder should be: the folder cannot be made.
    let blocked = common::temp_dir("store-cache-beside-blocked").join("not-a-folder");
    std::fs::write(&blocked, b"x").unwrap();
    let out = stats(&blocked);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, first.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("store cache not written"), "{err}");
}

/// A command returns before its store is written (its output's pipe closes with it, the
/// writing process holds neither it nor a terminal). A load of the same trace meanwhile waits
/// for that process and maps the store it wrote, rather than parsing the trace again: here a
/// live process holds a temporary file of the store, which appears 300 ms later.
#[test]
fn a_load_waits_for_the_store_another_command_writes() {
    let _shared = common::shared();
    let path = common::generated_16_threads_of("store-cache-detached", 4 << 20);
    let dir = common::temp_dir("store-cache-detached-dir");
    let info = || {
        let out = Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["info", "--json", "--cache-dir"])
            .arg(&dir)
            .arg(&path)
            .stderr(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success());
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let first = info();
    assert_eq!(first["cache"], "writing");
    let store = (0..500)
        .find_map(|_| {
            let found = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "prvc"));
            if found.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            found
        })
        .expect("the store written by the first command");
    // The store moved away, and a live process writing it.
    let aside = store.with_extension("aside");
    std::fs::rename(&store, &aside).unwrap();
    let mut writer = Command::new("sleep").arg("30").spawn().unwrap();
    let tmp = store.with_extension(format!("tmp{}-0", writer.id()));
    std::fs::write(&tmp, b"").unwrap();
    let start = std::time::Instant::now();
    let appears = {
        let (aside, store) = (aside.clone(), store.clone());
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::fs::rename(aside, store).unwrap();
        })
    };
    let second = info();
    let waited = start.elapsed();
    appears.join().unwrap();
    let _ = writer.kill();
    let _ = writer.wait();
    assert_eq!(second["cache"], "hit", "{second}");
    assert!(waited.as_millis() >= 300, "{waited:?}");
    for k in ["state_records", "event_records", "comm_records", "skipped"] {
        assert_eq!(first[k], second[k], "{k}");
    }
    // A temporary file whose process is gone is not waited for.
    std::fs::rename(&store, &aside).unwrap();
    let start = std::time::Instant::now();
    assert_eq!(info()["cache"], "writing");
    assert!(start.elapsed().as_secs() < 10);
}

/// The viewer opens through the cache given on its command line: the first window shows the
/// parsed trace, then writes its store on a background job; the second maps the store, and
/// its timeline shows the same picture as the first.
#[test]
fn the_viewer_reopens_from_the_cache() {
    use prvscope_viewer::app::App;
    use prvscope_viewer::loader::{LoadRequest, LoadSource};
    use prvscope_viewer::settings::Settings;
    let _shared = common::shared();
    let path = common::generated_16_threads_of("store-cache-viewer", 2 << 20);
    let dir = common::temp_dir("store-cache-viewer-dir");
    let open = || {
        let (path, dir) = (path.clone(), dir.clone());
        let mut h = egui_kittest::Harness::builder()
            .with_size(egui::vec2(1000.0, 600.0))
            .build_eframe(move |cc| {
                App::with_request(
                    &cc.egui_ctx,
                    LoadSource::File(path),
                    NullOverride::Auto,
                    Settings::default(),
                    LoadRequest {
                        cache: Some(CacheOptions {
                            dir,
                            limit_bytes: 1 << 30,
                        }),
                        ..LoadRequest::default()
                    },
                )
            });
        let ctx = h.ctx.clone();
        h.state_mut().wait_for_load(&ctx);
        // A parsed store is written after the trace is shown.
        let shown = h
            .state()
            .loaded()
            .expect("loaded")
            .trace
            .cache
            .state
            .clone();
        h.state_mut().wait_for_cache_write();
        h.run_steps(2);
        let l = h.state().loaded().expect("loaded");
        let pixels = l.timeline.signals().summarize_rows(
            &[0, 5, 15],
            &[0, 1_000, 1_000_000, l.trace.header.end_time],
            prvscope_store::summary::DrawMode::Maximum,
        );
        (
            (shown, l.trace.cache.state.clone()),
            l.trace.store.is_mapped(),
            pixels,
        )
    };
    let (first, first_mapped, first_pixels) = open();
    let (second, second_mapped, second_pixels) = open();
    assert_eq!(first, (CacheState::Pending, CacheState::Built));
    assert!(!first_mapped);
    assert_eq!(second, (CacheState::Hit, CacheState::Hit));
    assert!(second_mapped);
    assert_eq!(first_pixels, second_pixels);
}

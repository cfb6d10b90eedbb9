//! Loading throughput, each figure beside a reference measured in the same run:
//! - a generated 1 GB plain `.prv` from the page cache, against `wc -l` on the same file,
//!   reading the file into memory and one `memcpy` of its bytes (the machine's limits);
//! - `ovni_gen_large_4x16/thread.prv.xz` (282 MB of text), against `xz -dc -T0 > /dev/null`
//!   and prvscope's own decode of it without the parse;
//! - the same ovni trace unpacked (one event per line: per-line costs), and a copy with its
//!   times zero-padded to 20 digits, each against `wc -l` and Paraver's loader (BSC's
//!   paramedir with a one-window cfg, when `build-paramedir.sh` built it);
//! - a generated 1 GB trace of 4096 threads against `wc -l`, and its cost per byte over the
//!   64-thread trace's from pairs of loads of the two taken in turn;
//! - `cache_reopen_4gb`: a generated 4 GB trace re-opened from its store cache to its first
//!   frame, against reading the cache file once with `cat`;
//! - `cache_reopen_3gb`: a generated 3 GB trace re-opened from its store cache to its first
//!   frame as the viewer opens it, against `cat` of the cache file (run it inside a 768 MB
//!   memory cgroup: see the README);
//! - `convert_1gb`: the generated 1 GB trace converted into the store cache in eight batches,
//!   against loading it parsed and loading it with the cache written;
//! - `export_parquet_1gb`: `prvscope export --parquet` of the generated 1 GB trace, read
//!   and written in batches (not in the store cache) and from the store cache, against
//!   `wc -l` on the trace;
//! - `scaling`: the generated 1 GB trace (64 threads) and the 4096-thread one loaded on
//!   rayon pools of 1, 2, 4... threads up to the machine's (compare the ratios);
//! - `stages_1gb`: where one worker's time goes on the generated 1 GB trace, each stage on
//!   one core over the text in memory: one `memcpy` of it, the structural scan alone, the
//!   parse (scan, fields, records encoded per thread, no assembly), the whole load on a pool
//!   of one thread; beside them the kernel's least part of a load: the file read 512 kB at
//!   a time, and fresh memory of the store's size written once (its page faults).
//!
//! Beside each plain trace's load, `prvscope_info_process`: the same load in a process of its
//! own (`prvscope info --no-cache`), as a user runs it; and `prvscope_info_process_after_idle`:
//! that process started after 3 s without load, as a user's first load comes, whose fresh
//! memory can cost more than back-to-back loads show (quartiles printed).
//!
//! Run with `cargo bench --bench load`. The generated trace is written once to
//! `target/bench-data/` and reused. Each benchmark checks what it loaded, so that it cannot
//! measure nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prvscope_import::cache::{CacheOptions, CacheState};
use prvscope_import::synth::{self, GenOptions};
use prvscope_import::{self as trace, LoadOptions};
use prvscope_store::signal::{SignalSpec, ViewSignals};
use prvscope_store::summary::DrawMode;
use std::sync::Arc;

pub fn bench_data() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("bench data folder");
    dir
}

/// A generated 1 GB trace of `threads` threads (seed 1), written on first use.
fn generated(name: &str, threads: u32) -> PathBuf {
    generated_of(name, threads, 1_000_000_000)
}

/// A generated trace of about `bytes` and `threads` threads (seed 1), written on first use.
fn generated_of(name: &str, threads: u32, bytes: u64) -> PathBuf {
    let path = bench_data().join(name);
    if !path.exists() {
        let opts = GenOptions {
            threads,
            threads_per_task: 4,
            target_bytes: bytes,
            seed: 1,
            legacy: false,
            xz: false,
            mpi: false,
        };
        synth::generate(&path, &opts).expect("generating the bench trace");
    }
    path
}

/// The generated 1 GB trace (64 threads, seed 1), written on first use.
pub fn generated_1gb() -> PathBuf {
    generated("gen_1gb.prv", 64)
}

/// The same size with 4096 threads.
fn generated_4096() -> PathBuf {
    generated("gen_1gb_4096.prv", 4096)
}

/// `ovni_gen_large_4x16/thread.prv.xz` unpacked once (with its `.pcf` and `.row`).
pub fn ovni_plain() -> Option<PathBuf> {
    let xz = shared_trace("ovni_gen_large_4x16/thread.prv.xz")?;
    let path = bench_data().join("ovni_thread.prv");
    if !path.exists() {
        run(&format!("xz -dc '{}' > '{}'", xz.display(), path.display()));
        for ext in ["pcf", "row"] {
            let from = xz.with_file_name(format!("thread.{ext}"));
            std::fs::copy(&from, path.with_extension(ext)).expect("copying the pcf and row");
        }
    }
    Some(path)
}

/// The unpacked ovni trace with every time written in 20 digits, zero-padded (the style of
/// ovni traces whose header reserves room for the end time: 20.6 M records in 551 MB), so
/// that the per-line cost of long numbers is measured too.
fn ovni_padded() -> Option<PathBuf> {
    let plain = ovni_plain()?;
    let path = bench_data().join("ovni_padded.prv");
    if !path.exists() {
        let text = std::fs::read(&plain).expect("the unpacked ovni trace");
        let out = synth::pad_times(&text, 20);
        std::fs::write(&path, out).expect("writing the padded ovni trace");
        for ext in ["pcf", "row"] {
            std::fs::copy(plain.with_extension(ext), path.with_extension(ext))
                .expect("copying the pcf and row");
        }
    }
    Some(path)
}

/// BSC's paramedir (`build-paramedir.sh`'s default prefix, or `PARAMEDIR`), when built.
pub fn paramedir() -> Option<PathBuf> {
    let path = std::env::var_os("PARAMEDIR").map_or_else(
        || {
            Path::new(&std::env::var_os("HOME").unwrap_or_default())
                .join(".local/paramedir/bin/paramedir")
        },
        PathBuf::from,
    );
    path.exists().then_some(path)
}

fn shared_trace(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces")
        .join(rel);
    p.exists().then_some(p)
}

/// Whether the command line's filter (criterion's first argument that is not an option)
/// can select the group `group`: setups that load gigabytes are skipped when it cannot (a
/// run of one group inside a small memory cgroup would be killed by another's).
pub fn selected(group: &str) -> bool {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-') && a != "load");
    filter.is_none_or(|f| group.contains(&f) || f.contains(group))
}

fn run(cmd: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .status()
        .expect("running the reference");
    assert!(ok.success(), "{cmd}");
}

/// Clock ticks a second of `/proc/self/stat`'s CPU times, asked of `getconf` once, before
/// any measurement (its process's CPU time would otherwise count in the children's).
fn ticks_per_second() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse::<f64>().ok())
            .unwrap_or(100.0)
    })
}

/// CPU time used so far by this process (all its threads) and by the children it waited
/// for, in seconds, from `/proc/self/stat` (`None` where there is none).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command name come the state (field 3), then utime, stime, cutime and
    // cstime as fields 14 to 17: the 11th to 14th after the state.
    let fields: Vec<u64> = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks: u64 = fields.get(10..14)?.iter().sum();
    Some(ticks as f64 / ticks_per_second())
}

/// `f` benchmarked as `name`, then its CPU time per run (this process's threads and the
/// children it waited for) printed beside the wall time: with as many busy threads as cores,
/// CPU time over cores is the least wall time.
fn bench_with_cpu(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    group: &str,
    name: &str,
    mut f: impl FnMut(),
) {
    ticks_per_second();
    let mut runs = 0u64;
    let mut wall = 0.0;
    let mut cpu = 0.0;
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let before = cpu_seconds();
            let start = std::time::Instant::now();
            for _ in 0..iters {
                f();
            }
            let took = start.elapsed();
            if let (Some(a), Some(b)) = (before, cpu_seconds()) {
                runs += iters;
                wall += took.as_secs_f64();
                cpu += b - a;
            }
            took
        });
    });
    if runs > 0 {
        let n = runs as f64;
        eprintln!(
            "{group}/{name}: {:.3} s wall, {:.3} s CPU a run ({runs} runs, warm-up included)",
            wall / n,
            cpu / n
        );
    }
}

fn plain(c: &mut Criterion) {
    let path = generated_1gb();
    let bytes = std::fs::metadata(&path).expect("bench trace").len();
    // Warm the page cache.
    run(&format!("cat '{}' > /dev/null", path.display()));
    let mut g = c.benchmark_group("plain_1gb");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Bytes(bytes));
    bench_with_cpu(&mut g, "plain_1gb", "prvscope_load", || {
        let t = trace::load(&path, &LoadOptions::default(), None).expect("load");
        assert!(t.store.counts().total() > 40_000_000);
    });
    info_process(&mut g, "plain_1gb", &path);
    g.bench_function("wc_-l", |b| {
        b.iter(|| run(&format!("wc -l '{}' > /dev/null", path.display())));
    });
    // The machine's limits: the file read from the page cache into memory (what every
    // loader that reads pays), and one copy of its bytes in memory, on one core.
    let mut text = vec![0u8; usize::try_from(bytes).expect("fits")];
    g.bench_function("read_into_memory", |b| {
        b.iter(|| {
            use std::io::Read;
            let mut f = std::fs::File::open(&path).expect("bench trace");
            f.read_exact(&mut text).expect("read");
            text[text.len() / 2]
        });
    });
    let mut copy = vec![1u8; text.len()];
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            copy.copy_from_slice(&text);
            copy[copy.len() / 3]
        });
    });
    info_process_after_idle(&mut g, "plain_1gb", &path);
    g.finish();
}

/// The trace loaded by a process of its own, as a user loads it: `prvscope info --no-cache`,
/// its start and exit included. Unlike the loads above, repeated in one process, each load
/// starts with no memory of its own: every page of its store is faulted in fresh, where the
/// allocator of a process that loaded before hands the memory it kept back.
fn info_process(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    group: &str,
    path: &Path,
) {
    let bin = env!("CARGO_BIN_EXE_prvscope");
    bench_with_cpu(g, group, "prvscope_info_process", || {
        run(&format!(
            "'{bin}' info --no-cache '{}' > /dev/null",
            path.display()
        ));
    });
}

/// The first quartile, median and third quartile of `v` (not empty).
fn quartiles(mut v: Vec<f64>) -> [f64; 3] {
    v.sort_by(f64::total_cmp);
    [1, 2, 3].map(|q| v.get(v.len() * q / 4).copied().unwrap_or(f64::NAN))
}

/// Idle time before each run of `prvscope_info_process_after_idle`.
const IDLE: Duration = Duration::from_secs(3);

/// `prvscope info --no-cache` as a user runs it after a pause: the loads above follow one
/// another within a second, and on a virtual machine whose balloon hands free memory back to
/// its host a second or two after it is freed, fresh memory then costs what it did not cost
/// them (see `huge_pages_pay` in the store's slabs). Each run is timed after `IDLE` seconds
/// (not timed) without load; prints the quartiles of the runs' wall and CPU times. Put last
/// in its group: it sets the group's sampling to one run a sample.
fn info_process_after_idle(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    group: &str,
    path: &Path,
) {
    let bin = env!("CARGO_BIN_EXE_prvscope");
    ticks_per_second();
    g.sampling_mode(criterion::SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    let mut runs: Vec<(f64, f64)> = Vec::new();
    g.bench_function("prvscope_info_process_after_idle", |b| {
        b.iter_custom(|iters| {
            let mut took = Duration::ZERO;
            for _ in 0..iters {
                std::thread::sleep(IDLE);
                let before = cpu_seconds();
                let start = std::time::Instant::now();
                run(&format!(
                    "'{bin}' info --no-cache '{}' > /dev/null",
                    path.display()
                ));
                let wall = start.elapsed();
                took += wall;
                if let (Some(a), Some(b)) = (before, cpu_seconds()) {
                    runs.push((wall.as_secs_f64(), b - a));
                }
            }
            took
        });
    });
    if runs.is_empty() {
        // Left out by the bench filter.
        return;
    }
    let three = |v: Vec<f64>| {
        let [q1, median, q3] = quartiles(v);
        format!("{q1:.3} {median:.3} {q3:.3}")
    };
    eprintln!(
        "{group}/prvscope_info_process_after_idle: wall {} s, CPU {} s (quartiles of {} runs, each after {} s idle, warm-up included)",
        three(runs.iter().map(|r| r.0).collect()),
        three(runs.iter().map(|r| r.1).collect()),
        runs.len(),
        IDLE.as_secs()
    );
}

fn xz(c: &mut Criterion) {
    let Some(path) = shared_trace("ovni_gen_large_4x16/thread.prv.xz") else {
        eprintln!("../shared/traces not found: skipping the xz benchmark");
        return;
    };
    let mut g = c.benchmark_group("ovni_xz");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(15))
        .throughput(Throughput::Bytes(282_000_000));
    bench_with_cpu(&mut g, "ovni_xz", "prvscope_load", || {
        let t = trace::load(&path, &LoadOptions::default(), None).expect("load");
        assert_eq!(t.store.counts().events, 10_327_530);
    });
    info_process(&mut g, "ovni_xz", &path);
    // The decode alone, as a load runs it (liblzma's multithreaded decoder on a thread of
    // its own, 8 MB blocks handed on and their buffers recycled), without a parse: what is
    // left for the parse on these cores.
    bench_with_cpu(&mut g, "ovni_xz", "prvscope_decode_only", || {
        let file = std::fs::File::open(&path).expect("xz trace");
        let decoder = trace::source::spawn_decoder(
            file,
            trace::Compression::Xz,
            Arc::new(trace::LoadProgress::default()),
            trace::source::STREAM_BLOCK,
        );
        let mut text = 0;
        for item in &decoder.blocks {
            match item {
                trace::source::StreamItem::Block(block) => {
                    text += block.len;
                    let _ = decoder.recycle.send(block.bytes);
                }
                trace::source::StreamItem::Error { message, .. } => panic!("{message}"),
            }
        }
        assert_eq!(text, 282_396_914);
    });
    bench_with_cpu(&mut g, "ovni_xz", "xz_-dc_-T0", || {
        run(&format!("xz -dc -T0 '{}' > /dev/null", path.display()));
    });
    g.finish();
}

/// A plain trace against `wc -l` (and Paraver's loader, paramedir running the simplest
/// cfg, when `with_paraver` and it is built); `min_records` checks what was loaded.
fn against_wc(c: &mut Criterion, group: &str, path: &Path, min_records: u64, with_paraver: bool) {
    let bytes = std::fs::metadata(path).expect("bench trace").len();
    run(&format!("cat '{}' > /dev/null", path.display()));
    let mut g = c.benchmark_group(group);
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Bytes(bytes));
    bench_with_cpu(&mut g, group, "prvscope_load", || {
        let t = trace::load(path, &LoadOptions::default(), None).expect("load");
        assert!(t.store.counts().total() >= min_records);
    });
    info_process(&mut g, group, path);
    g.bench_function("wc_-l", |b| {
        b.iter(|| run(&format!("wc -l '{}' > /dev/null", path.display())));
    });
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/paraver_cfgs/paraver/General/views/state_as_is.cfg");
    if let Some(paramedir) = paramedir().filter(|_| with_paraver && cfg.exists()) {
        let out = bench_data().join("paramedir.out");
        bench_with_cpu(&mut g, group, "paramedir", || {
            run(&format!(
                "'{}' '{}' '{}' '{}' > /dev/null",
                paramedir.display(),
                path.display(),
                cfg.display(),
                out.display()
            ));
        });
    }
    info_process_after_idle(&mut g, group, path);
    g.finish();
}

fn ovni_unpacked(c: &mut Criterion) {
    let Some(path) = ovni_plain() else {
        eprintln!("../shared/traces not found: skipping the unpacked ovni benchmark");
        return;
    };
    against_wc(c, "ovni_plain", &path, 10_327_530, true);
    walk_floor(c, "ovni_plain_walk", &path);
    let Some(padded) = ovni_padded() else {
        return;
    };
    against_wc(c, "ovni_padded", &padded, 10_327_530, true);
}

/// The scanner's marks of a trace walked on one core, with and without every run of digits
/// turned into a number (as in `stages_1gb`): the least this parse's way of reading costs.
fn walk_floor(c: &mut Criterion, group: &str, path: &Path) {
    use prvscope_import::{ScanBackend, prv};
    let text = std::fs::read(path).expect("bench trace");
    let backend = ScanBackend::detect();
    let mut g = c.benchmark_group(group);
    g.sample_size(10)
        .throughput(Throughput::Bytes(text.len() as u64));
    for (name, numbers) in [("walk_marks", false), ("walk_marks_and_numbers", true)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let (marks, sum) = prv::walk_marks(&text, backend, numbers);
                assert!(marks > 50_000_000 && sum > 0, "{marks} marks");
                sum
            });
        });
    }
    g.finish();
}

fn threads_4096(c: &mut Criterion) {
    against_wc(
        c,
        "plain_1gb_4096_threads",
        &generated_4096(),
        40_000_000,
        false,
    );
    cost_ratio_4096(c);
}

/// The 4096-thread trace's cost per byte over the 64-thread one's, from loads of the two
/// taken in turn, in one process and as processes (`prvscope info --no-cache`): the
/// machine's drift between two groups measured minutes apart moves the ratio of their
/// separate figures by as much as the 1.5x aimed at leaves; a pair of loads seconds apart
/// sees the same machine. Prints the first quartile, median and third quartile of the pairs'
/// ratios; criterion times a pair.
fn cost_ratio_4096(c: &mut Criterion) {
    let (few, many) = (generated_1gb(), generated_4096());
    let size = |p: &Path| std::fs::metadata(p).expect("bench trace").len() as f64;
    let per_byte = size(&few) / size(&many);
    for p in [&few, &many] {
        run(&format!("cat '{}' > /dev/null", p.display()));
    }
    let bin = env!("CARGO_BIN_EXE_prvscope");
    let mut g = c.benchmark_group("cost_ratio_4096_to_64_threads");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    for (name, in_process) in [("in_one_process", true), ("a_process_per_load", false)] {
        let mut ratios = Vec::new();
        let load = |p: &Path| {
            let start = std::time::Instant::now();
            if in_process {
                let t = trace::load(p, &LoadOptions::default(), None).expect("load");
                assert!(t.store.counts().total() > 40_000_000);
            } else {
                run(&format!(
                    "'{bin}' info --no-cache '{}' > /dev/null",
                    p.display()
                ));
            }
            start.elapsed()
        };
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut took = Duration::ZERO;
                for _ in 0..iters {
                    let (a, b) = (load(&few), load(&many));
                    ratios.push(b.as_secs_f64() / a.as_secs_f64() * per_byte);
                    took += a + b;
                }
                took
            });
        });
        if ratios.is_empty() {
            // Left out by the bench filter: no pair was timed, so no ratio is printed.
            continue;
        }
        let pairs = ratios.len();
        let [q1, median, q3] = quartiles(std::mem::take(&mut ratios));
        eprintln!(
            "cost_ratio_4096_to_64_threads/{name}: {q1:.2}x {median:.2}x {q3:.2}x (quartiles of {pairs} pairs, warm-up included)"
        );
    }
    g.finish();
}

/// Loads on rayon pools of 1, 2, 4... threads (up to the machine's): the speed-up is the
/// ratio to one thread.
fn scaling(c: &mut Criterion) {
    let most = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut sizes = vec![1];
    while sizes.last().is_some_and(|&n| n * 2 <= most) {
        sizes.push(sizes.last().copied().unwrap_or(1) * 2);
    }
    if sizes.last() != Some(&most) {
        sizes.push(most);
    }
    for (group, path) in [
        ("scaling_64_threads", generated_1gb()),
        ("scaling_4096_threads", generated_4096()),
    ] {
        run(&format!("cat '{}' > /dev/null", path.display()));
        let bytes = std::fs::metadata(&path).expect("bench trace").len();
        let mut g = c.benchmark_group(group);
        g.sample_size(10)
            .measurement_time(Duration::from_secs(20))
            .throughput(Throughput::Bytes(bytes));
        for &n in &sizes {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("a rayon pool");
            g.bench_function(format!("rayon_{n}"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let t = trace::load(&path, &LoadOptions::default(), None).expect("load");
                        assert!(t.store.counts().total() > 40_000_000);
                        t
                    })
                });
            });
        }
        g.finish();
    }
}

/// One worker's time, stage by stage (see the module documentation).
fn stages(c: &mut Criterion) {
    use prvscope_import::ScanBackend;
    use prvscope_import::prv::{self, ParseContext};
    let path = generated_1gb();
    let text = std::fs::read(&path).expect("bench trace");
    let bytes = text.len() as u64;
    let newline = text
        .iter()
        .position(|&b| b == b'\n')
        .expect("a header line");
    let header = prvscope_format::Header::parse(&text[..newline]).expect("the header");
    let body = &text[newline + 1..];
    let rows = prvscope_format::RowMap::new(&header);
    let ctx = ParseContext::new(&rows, u64::MAX, &path);
    let window = prv::encode_window(rows.rows());
    let mut g = c.benchmark_group("stages_1gb");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Bytes(text.len() as u64));
    let mut copy = vec![1u8; text.len()];
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            copy.copy_from_slice(&text);
            copy[copy.len() / 3]
        });
    });
    drop(copy);
    let backend = ScanBackend::detect();
    let mut masks = Vec::new();
    g.bench_function(format!("scan_{backend:?}"), |b| {
        b.iter(|| {
            let mut lines = 0u64;
            for piece in body.chunks(window) {
                masks.clear();
                backend.scan(piece, &mut masks);
                lines += masks.iter().map(|m| u64::from(m.count_ones())).sum::<u64>();
            }
            assert!(lines > 100_000_000, "non-digits found: {lines}");
            lines
        });
    });
    // What this parse's way of reading costs at least, on one core: the scanner's marks
    // walked one by one, then with every run of digits between them turned into a number
    // (nothing checked or stored). A reference for the parse, not a load.
    for (name, numbers) in [("walk_marks", false), ("walk_marks_and_numbers", true)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let (walked, sum) = prv::walk_marks(body, backend, numbers);
                assert!(walked > 100_000_000 && sum > 0, "{walked} marks");
                sum
            });
        });
    }
    g.bench_function("parse_chunks", |b| {
        b.iter(|| {
            let mut records = 0u64;
            let ranges = prv::split_chunks(body, 64 << 20);
            let unclaimed = prv::Unclaimed::new(ranges.len());
            for range in ranges {
                let out = prv::parse_chunk(&ctx, &body[range], &unclaimed);
                records += out.lines;
            }
            assert!(records > 15_000_000, "{records} lines");
            records
        });
    });
    drop(text);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a rayon pool");
    let mut store_bytes = 0;
    g.bench_function("load_one_worker", |b| {
        b.iter(|| {
            pool.install(|| {
                let t = trace::load(&path, &LoadOptions::default(), None).expect("load");
                assert!(t.store.counts().total() > 40_000_000);
                store_bytes = t.store.heap_bytes();
                t
            })
        });
    });
    // What the kernel's part of a load costs at least, on one core: the file read 512 kB at
    // a time into one buffer (as the plain reader reads it), and fresh memory of the store's
    // size written once (a page fault a page: the store cannot be built in fewer pages).
    g.bench_function("read_512k_windows", |b| {
        let mut buf = vec![0u8; 512 << 10];
        b.iter(|| {
            use std::io::Read;
            let mut f = std::fs::File::open(&path).expect("bench trace");
            let mut total = 0;
            loop {
                let n = f.read(&mut buf).expect("read");
                if n == 0 {
                    break;
                }
                total += n;
            }
            assert_eq!(total as u64, bytes);
            total
        });
    });
    if store_bytes == 0 {
        // `load_one_worker` was filtered out (`cargo bench -- NAME`): no store to size by.
        g.finish();
        return;
    }
    assert!(store_bytes > 100_000_000, "store of {store_bytes} bytes");
    g.throughput(Throughput::Bytes(store_bytes as u64));
    g.bench_function("first_touch_store", |b| {
        b.iter(|| {
            // Zeroed by the kernel on first touch (calloc maps fresh pages): one write a page.
            let mut fresh = vec![0u8; store_bytes];
            for i in (0..store_bytes).step_by(4096) {
                fresh[i] = 1;
            }
            fresh[store_bytes / 2]
        });
    });
    g.finish();
}

/// Re-opening a generated 4 GB trace (64 threads) from its store cache to its first frame:
/// the cache file mapped and checked, the State view taken from it, every row summarised over
/// 1400 pixel columns. Beside it, reading the cache file once (`cat`, page cache warm).
/// A cached trace of 64 threads re-opened, and the pixels of its first frame (the State
/// view over the whole trace, 1400 columns).
fn first_frame(
    path: &Path,
    opts: &LoadOptions,
) -> (trace::Trace, Vec<Vec<prvscope_store::summary::Pixel>>) {
    let t = trace::load(path, opts, None).expect("re-open");
    assert_eq!(t.cache.state, CacheState::Hit);
    let view = ViewSignals::build(
        Arc::clone(&t.store),
        SignalSpec::States,
        t.store.null_policy().zero_is_null,
    );
    let end = t.header.end_time;
    let edges: Vec<u64> = (0..=1400u64).map(|k| k * end / 1400).collect();
    let rows: Vec<usize> = (0..view.row_count()).collect();
    let frame = view.summarize_rows(&rows, &edges, DrawMode::Dominant);
    assert_eq!(frame.len(), 64);
    assert!(frame.iter().all(|r| r.len() == 1400));
    (t, frame)
}

fn cache_reopen(c: &mut Criterion) {
    if !selected("cache_reopen_4gb") {
        return;
    }
    let path = generated_of("gen_4gb.prv", 64, 4_000_000_000);
    let opts = LoadOptions {
        cache: Some(CacheOptions {
            dir: bench_data().join("cache"),
            limit_bytes: 1 << 40,
        }),
        ..LoadOptions::default()
    };
    // Parsed and written once (this bench binary has its own cache files).
    let first = trace::load(&path, &opts, None).expect("load");
    let file = first.cache.file.clone().expect("a cache file");
    drop(first);
    let mut g = c.benchmark_group("cache_reopen_4gb");
    g.sample_size(10);
    g.bench_function("open_to_first_frame", |b| {
        b.iter(|| first_frame(&path, &opts).1);
    });
    g.bench_function("cat_cache_file", |b| {
        b.iter(|| run(&format!("cat '{}' > /dev/null", file.display())));
    });
    g.finish();
}

/// The generated 3 GB trace re-opened from its store cache to its first frame, the way the
/// viewer opens it (`CacheCheck::LaterWhenLarge`), against `cat` of the cache file, in the same
/// run. Meant to run inside a memory cgroup smaller than the cache file (README: "Converting a
/// trace larger than the memory"), where the file cannot stay in memory and its records are
/// checked after the first frame; elsewhere the file is checked whole at the open.
fn cache_reopen_3gb(c: &mut Criterion) {
    if !selected("cache_reopen_3gb") {
        return;
    }
    let path = generated_of("gen_3gb.prv", 64, 3_000_000_000);
    let opts = LoadOptions {
        cache: Some(CacheOptions {
            dir: bench_data().join("cache-3gb"),
            limit_bytes: 1 << 40,
        }),
        cache_check: prvscope_import::cache::CacheCheck::LaterWhenLarge,
        ..LoadOptions::default()
    };
    // Converted once (in memory this small, a load would be killed).
    let first = trace::convert::convert(&path, &opts, None, None).expect("convert");
    let file = first.cache.file.clone().expect("a cache file");
    drop(first);
    let mut g = c.benchmark_group("cache_reopen_3gb");
    g.sample_size(10);
    g.bench_function("open_to_first_frame", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let started = std::time::Instant::now();
                let (t, _frame) = first_frame(&path, &opts);
                spent += started.elapsed();
                // The check goes on after the first frame; it ends (untimed) before the next
                // open, and it passes.
                assert_eq!(t.store.wait_checked(), prvscope_store::Integrity::Checked);
            }
            spent
        });
    });
    g.bench_function("cat_cache_file", |b| {
        b.iter(|| run(&format!("cat '{}' > /dev/null", file.display())));
    });
    g.finish();
}

/// Converting the generated 1 GB trace (64 threads) into the store cache in batches of
/// 128 MB of text (eight), then opening it from there, beside loading it whole (parsed, no
/// cache) and loading it whole and writing its cache, in the same run.
fn convert(c: &mut Criterion) {
    let path = generated_1gb();
    let dir = bench_data().join("convert-cache");
    let cached = || LoadOptions {
        cache: Some(CacheOptions {
            dir: dir.clone(),
            limit_bytes: 1 << 40,
        }),
        ..LoadOptions::default()
    };
    let mut g = c.benchmark_group("convert_1gb");
    g.sample_size(10);
    g.bench_function("convert_in_128mb_batches", |b| {
        b.iter(|| {
            let _ = std::fs::remove_dir_all(&dir);
            let t =
                trace::convert::convert(&path, &cached(), Some(128 << 20), None).expect("convert");
            assert_eq!(t.cache.state, CacheState::Built);
            assert!(t.store.counts().total() > 40_000_000);
            t
        });
    });
    g.bench_function("load_parsed", |b| {
        b.iter(|| {
            let t = trace::load(&path, &LoadOptions::default(), None).expect("load");
            assert!(t.store.counts().total() > 40_000_000);
            t
        });
    });
    g.bench_function("load_and_write_cache", |b| {
        b.iter(|| {
            let _ = std::fs::remove_dir_all(&dir);
            let t = trace::load(&path, &cached(), None).expect("load");
            assert_eq!(t.cache.state, CacheState::Built);
            t
        });
    });
    g.finish();
}

/// `prvscope export --parquet` of the generated 1 GB trace (the command, as a user runs it):
/// streamed from the trace (`--no-cache`), and from its store cache; `wc -l` of the trace in
/// the same run.
fn export_parquet(c: &mut Criterion) {
    if !selected("export_parquet_1gb") {
        return;
    }
    let path = generated_1gb();
    let bin = env!("CARGO_BIN_EXE_prvscope");
    let out = bench_data().join("parquet-out");
    let cache = bench_data().join("parquet-cache");
    let _ = std::fs::remove_dir_all(&cache);
    let export = |extra: &str| {
        format!(
            "'{bin}' export '{}' --parquet '{}' {extra} > /dev/null 2>&1",
            path.display(),
            out.display()
        )
    };
    // The cache written once, by `info`.
    run(&format!(
        "'{bin}' info '{}' --cache-dir '{}' > /dev/null",
        path.display(),
        cache.display()
    ));
    let mut g = c.benchmark_group("export_parquet_1gb");
    g.sample_size(10);
    g.bench_function("streamed", |b| b.iter(|| run(&export("--no-cache"))));
    g.bench_function("from_cache", |b| {
        b.iter(|| run(&export(&format!("--cache-dir '{}'", cache.display()))));
    });
    g.bench_function("wc_l", |b| {
        b.iter(|| run(&format!("wc -l '{}' > /dev/null", path.display())));
    });
    g.finish();
}

criterion_group!(
    benches,
    plain,
    xz,
    ovni_unpacked,
    threads_4096,
    scaling,
    stages,
    cache_reopen,
    cache_reopen_3gb,
    convert,
    export_parquet
);
criterion_main!(benches);

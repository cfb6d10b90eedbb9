//! Where the time of a cfg goes: `prvscope paramedir` per cfg family (a state histogram, the
//! useful-duration histogram, the MPI call profile, the 3D duration per MPI call, the node
//! bandwidth timeline) on the generated 1 GB MPI trace (`gen --mpi --legacy`, 16 threads) and
//! on the large ovni trace unpacked, each beside, in the same run, `prvscope stats` (the
//! store's own state profile) and BSC's paramedir with the same cfg (when
//! `build-paramedir.sh` built it: one run each, it takes a minute on 1 GB).
//!
//! Every command runs as its user runs it, as a process from the store cache (converted
//! once, before the timings). Criterion times the wall clock; one more run of each reads
//! its peak resident memory (`wait4`), and BSC's output is compared with ours, so that the
//! figures are of the same numbers. Then `viewer_follow` opens the state histogram in the
//! viewer on the 1 GB trace and times the cfg's table from Open, then each
//! Follow-the-timeline update while zooming, with the app's longest step meanwhile (its code
//! and egui's layout, painting aside); it writes a
//! screenshot of the histogram following the timeline to
//! `target/bench-data/follow_1gb.png`.
//!
//! Run with `cargo bench --bench paramedir` (`-- gen` or `-- ovni` or `-- viewer` for one
//! part). `PARAMEDIR=path` names another BSC paramedir.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::Criterion;
use prvscope_import::synth::{self, GenOptions};

#[path = "load.rs"]
#[allow(dead_code)]
mod load;
#[path = "viewer_harness.rs"]
mod viewer_harness;

const PRVSCOPE: &str = env!("CARGO_BIN_EXE_prvscope");

/// The cfg families: (name, cfg).
fn families() -> Vec<(&'static str, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let library = root.join("../shared/paraver_cfgs/paraver");
    vec![
        (
            "state_histogram",
            root.join("benches/cfgs/state_histogram.cfg"),
        ),
        (
            "useful_duration",
            library.join("General/analysis/2dh_useful_duration.cfg"),
        ),
        ("mpi_profile", library.join("mpi/analysis/mpi_stats.cfg")),
        (
            "duration_per_call_3d",
            library.join("mpi/analysis/3dh_duration_MPIcall.cfg"),
        ),
        (
            "node_bandwidth",
            library.join("mpi/views/node_bandwidth.cfg"),
        ),
    ]
}

/// The generated 1 GB trace with MPI calls (legacy zeros, which BSC's paramedir reads).
fn generated_mpi() -> PathBuf {
    let path = load::bench_data().join("gen_1gb_mpi.prv");
    if !path.exists() {
        let opts = GenOptions {
            target_bytes: 1_000_000_000,
            mpi: true,
            legacy: true,
            ..GenOptions::default()
        };
        synth::generate(&path, &opts).expect("generating the bench trace");
    }
    path
}

/// One run of `program args` (output to `/dev/null`): its wall time and peak resident bytes;
/// it must succeed.
fn run_once(program: &Path, args: &[OsString], env_home: Option<&Path>) -> (Duration, u64) {
    try_once(program, args, env_home).unwrap_or_else(|e| panic!("{e}"))
}

/// [`run_once`], or why the command failed (a cfg refused: its message).
fn try_once(
    program: &Path,
    args: &[OsString],
    env_home: Option<&Path>,
) -> Result<(Duration, u64), String> {
    let mut cmd = Command::new(program);
    cmd.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
    if let Some(home) = env_home {
        cmd.env("HOME", home);
    }
    let started = Instant::now();
    let mut child = cmd.spawn().expect("starting the command");
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let pid = i32::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: `rusage` is plain data that `wait4` fills; the child is ours and not yet
    // waited for (`child` is dropped without waiting).
    #[allow(unsafe_code)]
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let r = libc::wait4(pid, &raw mut status, 0, &raw mut usage);
        assert_eq!(r, pid, "waiting for {}", program.display());
        usage
    };
    let wall = started.elapsed();
    drop(child);
    let messages = reader.join().unwrap_or_default();
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!(
            "{} {args:?} failed ({status}): {}",
            program.display(),
            messages.trim()
        ));
    }
    Ok((wall, u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024))
}

fn ours(args: &[&str], trace: &Path, rest: &[&Path]) -> Vec<OsString> {
    let mut v: Vec<OsString> = args.iter().map(OsString::from).collect();
    v.push(trace.into());
    v.extend(rest.iter().map(|p| p.as_os_str().to_owned()));
    v
}

/// The cfg families on `trace`, beside `stats` and BSC's paramedir.
fn families_on(c: &mut Criterion, name: &str, trace: &Path) {
    let group = format!("paramedir_{name}");
    if !load::selected(&group) {
        return;
    }
    let out_dir = load::bench_data().join(format!("paramedir-{name}"));
    std::fs::create_dir_all(&out_dir).expect("output folder");
    let prvscope = Path::new(PRVSCOPE);
    // Into the store cache first: every timing reads the trace from it.
    run_once(prvscope, &ours(&["stats"], trace, &[]), None);
    let stats = ours(&["stats"], trace, &[]);
    let (stats_wall, stats_peak) = run_once(prvscope, &stats, None);
    println!(
        "{group}: prvscope stats: {:.2} s, peak {} MB (one run)",
        stats_wall.as_secs_f64(),
        stats_peak >> 20
    );
    let mut g = c.benchmark_group(&group);
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("stats", |b| b.iter(|| run_once(prvscope, &stats, None)));
    for (family, cfg) in families() {
        if !cfg.exists() {
            println!("{group}/{family}: {} not found", cfg.display());
            continue;
        }
        let out = out_dir.join(format!("{family}.ours.txt"));
        let args = ours(&["paramedir"], trace, &[&cfg, &out]);
        let (wall, peak) = match try_once(prvscope, &args, None) {
            Ok(x) => x,
            Err(e) => {
                println!("{group}/{family}: not timed: {e}");
                continue;
            }
        };
        g.bench_function(family, |b| b.iter(|| run_once(prvscope, &args, None)));
        let mut line = format!(
            "{group}/{family}: prvscope paramedir {:.2} s ({:.1}x stats), peak {} MB ({:.2}x \
             stats)",
            wall.as_secs_f64(),
            wall.as_secs_f64() / stats_wall.as_secs_f64(),
            peak >> 20,
            peak as f64 / stats_peak as f64
        );
        if let Some(bsc) = load::paramedir() {
            let home = out_dir.join("home");
            std::fs::create_dir_all(&home).expect("a home for paramedir");
            let theirs = out_dir.join(format!("{family}.bsc.txt"));
            let args: Vec<OsString> = vec![
                trace.into(),
                cfg.clone().into_os_string(),
                theirs.clone().into_os_string(),
            ];
            let Ok((bwall, bpeak)) = try_once(&bsc, &args, Some(&home)) else {
                println!("{line}; BSC paramedir refused it too");
                continue;
            };
            let same = same_output(&out, &theirs);
            let _ = write!(
                line,
                "; BSC paramedir {:.1} s ({:.1}x ours), peak {} MB; outputs {same}",
                bwall.as_secs_f64(),
                bwall.as_secs_f64() / wall.as_secs_f64(),
                bpeak >> 20
            );
        }
        println!("{line}");
    }
    g.finish();
}

/// Whether two outputs (paramedir writes `.csv` beside a name without it) are equal.
fn same_output(ours: &Path, theirs: &Path) -> String {
    let read = |p: &Path| {
        std::fs::read(p)
            .or_else(|_| std::fs::read(format!("{}.csv", p.display())))
            .ok()
    };
    match (read(ours), read(theirs)) {
        (Some(a), Some(b)) if a == b => "identical".into(),
        (Some(a), Some(b)) => {
            let line = a
                .split(|&x| x == b'\n')
                .zip(b.split(|&x| x == b'\n'))
                .position(|(x, y)| x != y)
                .map_or(0, |l| l + 1);
            format!("DIFFER (line {line})")
        }
        _ => "missing".into(),
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    families_on(&mut c, "gen_1gb_mpi", &generated_mpi());
    if let Some(ovni) = load::ovni_plain() {
        families_on(&mut c, "ovni", &ovni);
    }
    if load::selected("viewer_follow") {
        viewer_follow(&generated_mpi());
    }
    c.final_summary();
}

/// The state histogram in the viewer on the 1 GB trace: the table from Open, then Follow
/// updates while zooming in step by step and panning, the app's longest step meanwhile; a
/// screenshot at the end.
fn viewer_follow(trace: &Path) {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    use prvscope_viewer::app::App;
    use prvscope_viewer::frame::TimeWindow;

    let mut h = viewer_harness::opened(trace.to_path_buf(), 1400.0, 900.0);
    let ctx = h.ctx.clone();
    h.run_steps(3);
    // The timeline with its communications at full zoom, then zoomed in to 89 ms with a
    // thread pinned (its messages as lines over the others' density).
    screenshot(&mut h, "timeline_1gb_full.png");
    let end = h.state().loaded().expect("loaded").trace.header.end_time;
    {
        let t = &mut h.state_mut().loaded_mut().expect("loaded").timeline;
        let window = TimeWindow {
            start: end / 2 - end / 512,
            span: end / 256,
        };
        t.zoom_to(window);
        t.pin(5, window.start + window.span / 2);
    }
    h.run_steps(3);
    screenshot(&mut h, "timeline_1gb_zoomed_pinned.png");
    h.state_mut().loaded_mut().expect("loaded").timeline.fit();
    h.run_steps(3);
    let mut slowest = Duration::ZERO;
    let mut step = |h: &mut Harness<'_, App>| {
        let started = Instant::now();
        h.step();
        slowest = slowest.max(started.elapsed());
    };
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/cfgs/state_histogram.cfg");
    let opened = Instant::now();
    h.state_mut().open_cfg(&ctx, cfg.clone());
    while h.state().histograms().is_empty() {
        step(&mut h);
        std::thread::sleep(Duration::from_millis(5));
        assert!(
            opened.elapsed() < Duration::from_mins(2),
            "{}",
            h.state().status()
        );
    }
    let table = opened.elapsed();
    step(&mut h);
    h.get_by_label("Follow the timeline window").click();
    step(&mut h);
    let mut updates = Vec::new();
    // Zoom in by halves around the middle, as wheel steps would, then pan by tenths of the
    // window, as drags would.
    let mut span = end;
    let mut windows = Vec::new();
    for _ in 0..8 {
        span /= 2;
        windows.push(TimeWindow {
            start: end / 2 - span / 2,
            span,
        });
    }
    for k in 1..=4 {
        windows.push(TimeWindow {
            start: end / 2 - span / 2 + k * span / 10,
            span,
        });
    }
    for &window in &windows {
        h.state_mut()
            .loaded_mut()
            .expect("loaded")
            .timeline
            .zoom_to(window);
        let started = Instant::now();
        loop {
            step(&mut h);
            let w = &h.state().histograms()[0];
            let visible = h.state().loaded().expect("loaded").timeline.window();
            if !w.computing() && w.computed_for == Some(visible) {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        updates.push(started.elapsed());
    }
    // Each update's computation alone, as its background job runs it (a context over the
    // trace, the analyzer over the window from the kept windows): the rest of an update is
    // the frames that show it.
    let loaded = h.state().loaded().expect("loaded");
    let text = std::fs::read_to_string(&cfg).expect("the cfg");
    let parsed = prvscope_paraver::cfg::Cfg::parse("state_histogram.cfg", &text).expect("a cfg");
    let alone: Vec<(Duration, Duration)> = windows
        .iter()
        .map(|w| {
            let started = Instant::now();
            let context = prvscope_paraver::paramedir::Context::with_cache(
                &loaded.trace,
                std::sync::Arc::clone(&loaded.windows),
            );
            let built = started.elapsed();
            context
                .analysis(&parsed, 0, Some((w.start, w.start + w.span)))
                .expect("the analysis");
            (built, started.elapsed())
        })
        .collect();
    println!(
        "viewer_follow: each update's computation alone (context built, whole): {:?} us",
        alone
            .iter()
            .map(|(c, t)| (c.as_micros(), t.as_micros()))
            .collect::<Vec<_>>()
    );
    let kept = h.state().loaded().expect("loaded").windows.usage();
    let longest = updates.iter().max().copied().unwrap_or_default();
    println!(
        "viewer_follow: state histogram table {:.2} s after Open; {} Follow updates (8 zooms, \
         4 pans), longest {:.3} s (each: {:?} us); longest app step {:.0} ms; windows kept: {} \
         ({} MB), {} hits",
        table.as_secs_f64(),
        updates.len(),
        longest.as_secs_f64(),
        updates.iter().map(Duration::as_micros).collect::<Vec<_>>(),
        slowest.as_secs_f64() * 1e3,
        kept.windows,
        kept.bytes >> 20,
        kept.hits
    );
    h.run_steps(3);
    screenshot(&mut h, "follow_1gb.png");
}

/// Writes what the window shows to `name` under the bench data.
fn screenshot(h: &mut egui_kittest::Harness<'_, prvscope_viewer::app::App>, name: &str) {
    match h.render() {
        Ok(image) => {
            let png = load::bench_data().join(name);
            image.save(&png).expect("writing the screenshot");
            println!("viewer_follow: screenshot {}", png.display());
        }
        Err(e) => println!("viewer_follow: no screenshot: {e}"),
    }
}

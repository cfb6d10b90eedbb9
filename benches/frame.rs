//! Building one timeline frame (per-pixel summaries + the mesh of coloured runs, no GPU) for
//! 128 rows x 2000 pixels over a generated trace of about 20 M records, at full zoom-out, at
//! 1/1000 of the trace and at about one pixel per record, for the State view and for an
//! event view (user functions). DESIGN.md's target: at most 8 ms per frame.
//!
//! Beside them, the same run times decoding every point of the view once on one thread: the
//! least a frame that visited every record would cost.
//!
//! `frame_end_to_end` times whole frames of the viewer (layout, tessellation, painting) on a
//! generated 1 GB trace with communications in the default window; `cargo bench --bench
//! frame -- end_to_end` runs only those.
//!
//! `frame_cluster_window` times whole frames with Analysis > Cluster bursts open on the same
//! 1 GB trace (its scatter of up to 40,000 drawn points, its table, and the Clusters view
//! painting the timeline's rows by cluster); `-- cluster_window` runs only those.
//!
//! `frame_histogram` times whole frames with a 1,040-row x 200-column histogram window open
//! (`2dh_useful_duration.cfg` of the shared cfgs, every thread a row, on a generated trace of
//! 1,040 threads, every column shown), in colour mode with 2-point cells and in numbers mode;
//! `-- histogram` runs only those (it needs `../shared`).
//!
//! Run with `cargo bench --bench frame`. The trace is written once to `target/bench-data/`.
//! Each frame is checked to have drawn something, so the bench cannot measure nothing.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use egui::{Rect, pos2};
use prvscope_import::synth::{self, GenOptions, TYPE_USER_FUNCTION};
use prvscope_import::{self as trace, LoadOptions, Trace};
use prvscope_store::signal::{SignalSpec, ViewSignals};
use prvscope_store::summary::DrawMode;
use prvscope_viewer::frame::{self, FrameRequest, TimeWindow};
use prvscope_viewer::rows::Grouping;
use prvscope_viewer::view::{Coloring, ViewConfig};

#[path = "viewer_harness.rs"]
mod viewer_harness;

const ROWS: u32 = 128;
const WIDTH: f32 = 2000.0;
const ROW_HEIGHT: f32 = 12.0;

/// The generated trace `name` of `target/bench-data/`, written with `opts` on first use.
fn generated(name: &str, opts: &GenOptions) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let path = dir.join(name);
    if !path.exists() {
        std::fs::create_dir_all(&dir).expect("bench data folder");
        synth::generate(&path, opts).expect("generating the bench trace");
    }
    path
}

fn generated_20m() -> PathBuf {
    generated(
        "gen_20m_128.prv",
        &GenOptions {
            threads: ROWS,
            threads_per_task: 8,
            target_bytes: 470_000_000,
            seed: 3,
            legacy: false,
            xz: false,
            mpi: false,
        },
    )
}

fn bench_view(c: &mut Criterion, trace: &Trace, name: &str, spec: SignalSpec) {
    let config = ViewConfig::new(trace, spec.clone());
    let signals = ViewSignals::build(Arc::clone(&trace.store), spec, config.zero_is_null);
    let coloring = Coloring::new(trace, &config, signals.values());
    let rows = Grouping::default().layout(trace);
    assert_eq!(rows.len(), ROWS as usize);
    let points: usize = (0..signals.row_count())
        .map(|r| signals.steps(r).len())
        .sum();
    let end = trace.header.end_time;
    let per_row = (points / ROWS as usize).max(1) as u64;
    eprintln!("{name}: {points} points in the view, {per_row} per row");
    let rect = Rect::from_min_max(pos2(0.0, 0.0), pos2(WIDTH, ROWS as f32 * ROW_HEIGHT));
    let windows = [
        ("full", TimeWindow::all(end)),
        (
            "1/1000",
            TimeWindow {
                start: end / 2,
                span: end / 1000,
            },
        ),
        (
            "pixel_per_record",
            TimeWindow {
                start: end / 3,
                span: (end / per_row * WIDTH as u64).max(10),
            },
        ),
    ];
    let mut g = c.benchmark_group(format!("frame_{name}"));
    g.sample_size(30).measurement_time(Duration::from_secs(6));
    for (label, window) in windows {
        // The view's default draw mode in every window; every mode at full zoom-out, where
        // the most values share a pixel.
        let modes: Vec<DrawMode> = if label == "full" {
            DrawMode::ALL.to_vec()
        } else {
            vec![config.mode]
        };
        for mode in modes {
            let req = FrameRequest {
                view: &signals,
                coloring: &coloring,
                rows: &rows,
                visible: 0..rows.len(),
                rect,
                row_height: ROW_HEIGHT,
                window,
                flags: false,
                mode,
                scale: config.scale,
            };
            let built = frame::build(&req);
            assert!(built.quads > 0, "{name} {label} {mode}: nothing drawn");
            let id = if mode == config.mode {
                label.to_owned()
            } else {
                format!("{label}_{mode}")
            };
            eprintln!("{name} {id}: {} quads", built.quads);
            g.bench_function(id, |b| b.iter(|| frame::build(&req).quads));
        }
    }
    // Beyond the target's shape: the same rows 100 px wide at full zoom-out, some 300 points
    // per pixel column, the density a 200 M-record trace has at 2000 px. This is the pyramid's
    // path (a search per column), which the cases above do not reach.
    let narrow = Rect::from_min_max(pos2(0.0, 0.0), pos2(100.0, ROWS as f32 * ROW_HEIGHT));
    let dense = FrameRequest {
        view: &signals,
        coloring: &coloring,
        rows: &rows,
        visible: 0..rows.len(),
        rect: narrow,
        row_height: ROW_HEIGHT,
        window: TimeWindow::all(end),
        flags: false,
        mode: config.mode,
        scale: config.scale,
    };
    assert!(frame::build(&dense).quads > 0);
    g.bench_function("full_100px_dense", |b| {
        b.iter(|| frame::build(&dense).quads);
    });
    // The reference of the same run: decoding every point of the view once, on one thread
    // (what a frame that visited every record would cost at the least).
    g.bench_function("reference_decode_every_point", |b| {
        let mut times = vec![0u64; 4096];
        let mut values = vec![0u64; 4096];
        b.iter(|| {
            let mut sum = 0u64;
            for r in 0..signals.row_count() {
                let steps = signals.steps(r);
                let mut i = 0;
                while i < steps.len() {
                    let got = steps.time.read(i, &mut times);
                    steps.value.read(i, &mut values[..got]);
                    sum = times[..got]
                        .iter()
                        .zip(&values[..got])
                        .fold(sum, |s, (&t, &v)| s.wrapping_add(t ^ v));
                    i += got.max(1);
                }
            }
            black_box(sum)
        });
    });
    g.finish();
}

fn frames(c: &mut Criterion) {
    let path = generated_20m();
    let trace = trace::load(&path, &LoadOptions::default(), None).expect("loading the bench trace");
    let records = trace.store.counts().total();
    eprintln!("{}: {records} records", path.display());
    assert!(records > 15_000_000, "{records} records");
    bench_view(c, &trace, "state", SignalSpec::States);
    bench_view(
        c,
        &trace,
        "user_function",
        SignalSpec::Events(vec![TYPE_USER_FUNCTION]),
    );
}

/// The generated 1 GB trace of 64 threads with communications (the replay test's).
fn generated_1g_64() -> PathBuf {
    generated(
        "gen_1g_64.prv",
        &GenOptions {
            threads: 64,
            threads_per_task: 8,
            target_bytes: 1 << 30,
            seed: 11,
            legacy: false,
            xz: false,
            mpi: false,
        },
    )
}

/// Whole frames of the viewer in the default 1400x800 window on the generated 1 GB trace with
/// communications on, split as a window pays them: the frame's CPU work (the app's code,
/// egui's layout and the tessellation into meshes) after a wheel step (in, then out again at
/// the same place, so its rows and lines are built anew) and on an idle repaint; then the
/// painting of those meshes by wgpu on the software Vulkan rasterizer (lavapipe) with the
/// picture read back, which a machine with a GPU does not pay on its CPU. The window's own
/// figures, frame to frame, are in the README (`prvscope --measure-frame-rate`).
fn end_to_end(c: &mut Criterion) {
    use egui::{Event, Modifiers, MouseWheelSource, MouseWheelUnit, TouchPhase};
    use egui_kittest::Harness;
    use prvscope_viewer::app::App;

    let mut h = viewer_harness::opened(generated_1g_64(), 1400.0, 800.0);
    for _ in 0..3 {
        h.step();
    }
    let area = h.state().loaded().expect("loaded").timeline.area();
    let p = pos2(area.left() + area.width() / 3.0, area.center().y);
    h.event(Event::PointerMoved(p));
    h.step();
    // One frame: the app's step, then tessellation; returns the number of meshes.
    let frame = |h: &mut Harness<'_, App>| {
        h.step();
        let shapes = h.output().shapes.clone();
        let ppp = h.ctx.pixels_per_point();
        h.ctx.tessellate(shapes, ppp).len()
    };
    let mut sign = 1.0;
    let mut g = c.benchmark_group("frame_end_to_end");
    g.sample_size(30).measurement_time(Duration::from_secs(10));
    g.bench_function("wheel_step_1400x800_1gb_comms", |b| {
        b.iter(|| {
            h.event(Event::MouseWheel {
                unit: MouseWheelUnit::Line,
                delta: egui::vec2(0.0, sign),
                phase: TouchPhase::Move,
                source: MouseWheelSource::Unknown,
                modifiers: Modifiers::NONE,
            });
            sign = -sign;
            frame(&mut h)
        });
    });
    // The same frame without anything new to build (hover, idle repaint).
    g.bench_function("idle_1400x800_1gb_comms", |b| b.iter(|| frame(&mut h)));
    g.sample_size(10);
    g.bench_function("paint_software_wgpu_1400x800_1gb_comms", |b| {
        b.iter_custom(|iters| {
            let mut painting = Duration::ZERO;
            for _ in 0..iters {
                h.step();
                let started = std::time::Instant::now();
                h.render().expect("rendering");
                painting += started.elapsed();
            }
            painting
        });
    });
    g.finish();
}

/// Whole frames (CPU: the app's step and tessellation) with the burst clustering window open
/// on the generated 1 GB trace, once its clustering is done: idle, and with the pointer
/// moving over the scatter (the hover looks for the nearest point).
fn cluster_window(c: &mut Criterion) {
    use egui::Event;
    let mut h = viewer_harness::opened(generated_1g_64(), 1400.0, 900.0);
    let ctx = h.ctx.clone();
    h.state_mut().open_cluster(&ctx);
    {
        let w = h.state_mut().cluster_window().expect("the window");
        // Every burst (the generated ones are microseconds long).
        w.options.min_duration = 0;
        while w.is_computing() || w.clustering().is_none() {
            w.poll(&ctx);
            std::thread::sleep(Duration::from_millis(5));
        }
        let c = w.clustering().expect("a clustering");
        assert!(
            c.bursts.list.len() > 100_000,
            "{} bursts",
            c.bursts.list.len()
        );
    }
    for _ in 0..3 {
        h.step();
    }
    let frame = |h: &mut egui_kittest::Harness<'_, prvscope_viewer::app::App>| {
        h.step();
        let shapes = h.output().shapes.clone();
        let ppp = h.ctx.pixels_per_point();
        h.ctx.tessellate(shapes, ppp).len()
    };
    let mut g = c.benchmark_group("frame_cluster_window");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("idle_1400x900_1gb", |b| b.iter(|| frame(&mut h)));
    let mut x = 200.0;
    g.bench_function("hover_scatter_1400x900_1gb", |b| {
        b.iter(|| {
            x = if x > 600.0 { 200.0 } else { x + 7.0 };
            h.event(Event::PointerMoved(pos2(x, 250.0)));
            frame(&mut h)
        });
    });
    // Cluster 1 selected: its bursts outlined on the timeline (the outline made once).
    let selected = h
        .state_mut()
        .cluster_window()
        .expect("the window")
        .select_class(prvscope_paraver::cluster::Class::Cluster(1));
    assert!(selected > 10_000, "{selected} bursts selected");
    g.bench_function("cluster_1_selected_1400x900_1gb", |b| {
        b.iter(|| frame(&mut h));
    });
    // The same without the Clusters view (the timeline shows its states): the view's share.
    h.state_mut()
        .cluster_window()
        .expect("the window")
        .colour_timeline = false;
    g.bench_function("idle_without_clusters_view_1400x900_1gb", |b| {
        b.iter(|| frame(&mut h));
    });
    g.finish();
}

fn generated_1040() -> PathBuf {
    generated(
        "gen_1040.prv",
        &GenOptions {
            threads: 1040,
            threads_per_task: 8,
            target_bytes: 60_000_000,
            seed: 5,
            legacy: false,
            xz: false,
            mpi: false,
        },
    )
}

/// Whole frames (the app, egui's layout, the tessellation) with a 1,040 x 200 histogram
/// window of 1,400 x 1,000 points open, idle and with the pointer moving over its cells.
fn histogram(c: &mut Criterion) {
    use egui::Event;
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/paraver_cfgs/paraver/General/analysis/2dh_useful_duration.cfg");
    if !cfg.exists() {
        eprintln!(
            "frame_histogram: no {} (../shared is needed)",
            cfg.display()
        );
        return;
    }
    // Its `Analyzer2D.Objects` lists the first 512 threads, which paramedir alone prints:
    // without it, every thread is a row.
    let text = std::fs::read_to_string(&cfg).expect("the cfg");
    let mut every = String::new();
    for l in text
        .lines()
        .filter(|l| !l.starts_with("Analyzer2D.Objects:"))
    {
        every.push_str(l);
        every.push('\n');
    }
    let cfg = generated_1040().with_file_name("2dh_useful_duration_every_thread.cfg");
    std::fs::write(&cfg, every).expect("the bench's cfg");
    let mut h = viewer_harness::opened(generated_1040(), 1600.0, 1100.0);
    let ctx = h.ctx.clone();
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    for _ in 0..3 {
        h.step();
    }
    let frame = |h: &mut egui_kittest::Harness<'_, prvscope_viewer::app::App>| {
        h.step();
        let shapes = h.output().shapes.clone();
        let ppp = h.ctx.pixels_per_point();
        let n = h.ctx.tessellate(shapes, ppp).len();
        assert!(n > 0, "nothing drawn");
        n
    };
    let set = |h: &mut egui_kittest::Harness<'_, prvscope_viewer::app::App>, colours: bool| {
        let w = &mut h.state_mut().histograms_mut()[0];
        w.look.hide_empty = false;
        w.look.colours = colours;
        w.look.cell_size = 2.0;
        let (rows, cols) = w.grid().size();
        assert!(rows >= 1040 && cols >= 200, "{rows} x {cols}");
    };
    let mut g = c.benchmark_group("frame_histogram");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    for (name, colours) in [("colours_2pt", true), ("numbers", false)] {
        set(&mut h, colours);
        frame(&mut h);
        g.bench_function(format!("idle_1040x200_{name}"), |b| {
            b.iter(|| frame(&mut h));
        });
        let mut x = 200.0;
        g.bench_function(format!("hover_1040x200_{name}"), |b| {
            b.iter(|| {
                x = if x > 600.0 { 200.0 } else { x + 7.0 };
                h.event(Event::PointerMoved(pos2(x, 300.0)));
                frame(&mut h)
            });
        });
    }
    g.finish();
}

/// A generated trace of 100 MB of `threads` threads, 64 to a task.
fn generated_100m(threads: u32) -> PathBuf {
    generated(
        &format!("gen_100m_{threads}.prv"),
        &GenOptions {
            threads,
            threads_per_task: 64,
            target_bytes: 100_000_000,
            seed: 1,
            legacy: false,
            xz: false,
            mpi: false,
        },
    )
}

/// A wheel step at the centre, in and out again, until its picture is shown (the app's
/// steps and the last one's tessellation; a heavy frame is built on a worker meanwhile), on
/// 100 MB of 65,536 threads (opened fitted: every thread summarised on the
/// area's point rows) beside the same on 100 MB of 64 threads; with and without the
/// communications drawn. `-- many_threads` runs only those.
fn many_threads(c: &mut Criterion) {
    use egui::{Event, Modifiers, MouseWheelSource, MouseWheelUnit, TouchPhase};
    let mut g = c.benchmark_group("frame_many_threads");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    for threads in [64, 65_536] {
        let mut h = viewer_harness::opened(generated_100m(threads), 1400.0, 800.0);
        for _ in 0..3 {
            h.step();
        }
        let area = h.state().loaded().expect("loaded").timeline.area();
        h.event(Event::PointerMoved(area.center()));
        h.step();
        for comms in [true, false] {
            {
                let l = h.state_mut().loaded_mut().expect("loaded");
                let mut config = l.timeline.config().clone();
                config.comms = comms;
                l.timeline.apply_config(&l.trace, config);
            }
            let mut sign = 1.0;
            let name = if comms { "comms" } else { "states" };
            g.bench_function(
                format!("wheel_step_1400x800_{threads}_threads_{name}"),
                |b| {
                    b.iter(|| {
                        h.event(Event::MouseWheel {
                            unit: MouseWheelUnit::Line,
                            delta: egui::vec2(0.0, sign),
                            phase: TouchPhase::Move,
                            source: MouseWheelSource::Unknown,
                            modifiers: Modifiers::NONE,
                        });
                        sign = -sign;
                        // Until the picture of the new window is shown (a heavy frame is
                        // built on a worker meanwhile, the window's frames going on).
                        let mut frames = 0;
                        loop {
                            h.step();
                            frames += 1;
                            let t = &h.state().loaded().expect("loaded").timeline;
                            if !t.is_redrawing() && t.drawn_window() == Some(t.window()) {
                                break;
                            }
                            // As the window waits between its frames, leaving the cores
                            // to the worker.
                            std::thread::sleep(Duration::from_millis(2));
                        }
                        let shapes = h.output().shapes.clone();
                        let ppp = h.ctx.pixels_per_point();
                        h.ctx.tessellate(shapes, ppp).len() + frames
                    });
                },
            );
        }
    }
    g.finish();
}

criterion_group!(
    benches,
    frames,
    end_to_end,
    cluster_window,
    histogram,
    many_threads
);
criterion_main!(benches);

//! The viewer driven by `egui_kittest`: what it shows after opening, switching views, zooming,
//! undoing, selecting and collapsing, and snapshot images of real traces.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui::{Event, Key, Modifiers, MouseWheelUnit, PointerButton, Pos2, TouchPhase, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_import::NullOverride;
use prvscope_import::synth::{self, GenOptions};
use prvscope_store::signal::SignalSpec;
use prvscope_viewer::app::App;
use prvscope_viewer::frame::TimeWindow;
use prvscope_viewer::loader::LoadSource;
use prvscope_viewer::settings::Settings;
use prvscope_viewer::theme;

use crate::common::{shared_traces, temp_dir};

/// The viewer on `source`, loaded; the scope panel is hidden (these tests are about the
/// timeline; `scope_panel.rs` tests the panel).
fn harness(
    source: LoadSource,
    view: Option<SignalSpec>,
    size: (f32, f32),
) -> Harness<'static, App> {
    harness_with(source, view, size, false)
}

pub fn harness_with(
    source: LoadSource,
    view: Option<SignalSpec>,
    size: (f32, f32),
    scopes: bool,
) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(size.0, size.1))
        .build_eframe(move |cc| {
            let mut app = App::new(
                &cc.egui_ctx,
                source,
                NullOverride::Auto,
                Settings::default(),
            );
            app.set_start_view(view);
            app.set_show_timings(false);
            app.set_show_scopes(scopes);
            app
        });
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(4);
    h
}

fn window(h: &Harness<'_, App>) -> TimeWindow {
    h.state().loaded().unwrap().timeline.window()
}

/// The centre of drawn row `row` at fraction `f` of the timeline's width.
pub fn at(h: &Harness<'_, App>, row: usize, f: f32) -> Pos2 {
    let t = &h.state().loaded().unwrap().timeline;
    pos2(
        t.area().left() + f * t.area().width(),
        t.area().top() + (row as f32 + 0.5) * t.row_height(),
    )
}

pub fn wheel(h: &mut Harness<'_, App>, pos: Pos2, lines: f32) {
    wheel_with(h, pos, lines, Modifiers::NONE);
}

/// The wheel turned `lines` at `pos` with `modifiers` held.
pub fn wheel_with(h: &mut Harness<'_, App>, pos: Pos2, lines: f32, modifiers: Modifiers) {
    h.event(Event::PointerMoved(pos));
    h.step();
    h.event(Event::MouseWheel {
        unit: MouseWheelUnit::Line,
        delta: egui::vec2(0.0, lines),
        phase: TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers,
    });
    h.run_steps(2);
}

pub fn drag(h: &mut Harness<'_, App>, from: Pos2, to: Pos2, button: PointerButton) {
    let press = |pressed, pos| Event::PointerButton {
        pos,
        button,
        pressed,
        modifiers: Modifiers::NONE,
    };
    h.event(Event::PointerMoved(from));
    h.step();
    h.event(press(true, from));
    h.step();
    for k in 1..=4 {
        let f = k as f32 / 4.0;
        h.event(Event::PointerMoved(from + (to - from) * f));
        h.step();
    }
    h.event(press(false, to));
    h.run_steps(2);
}

#[test]
fn viewer_opens_the_demo_switches_views_zooms_undoes_and_selects() {
    let _shared = crate::common::shared();
    let mut h = harness(LoadSource::Demo, None, (1400.0, 800.0));
    // What is shown: the title, the thread names from demo.row, the legend of the State view.
    h.get_by_label("State @ demo.prv");
    h.get_by_label("THREAD 1.1.1");
    h.get_by_label("THREAD 1.2.4");
    h.get_by_label_contains("Running (1)");
    h.get_by_label_contains("Synchronization (5)");
    let end = h.state().loaded().unwrap().timeline.end_time();
    assert_eq!(window(&h), TimeWindow::all(end));

    // An event view picked from the list of PCF labels, with its real zero labelled.
    h.get_by_label("Ready tasks in queue (7000)").click();
    h.run_steps(3);
    h.get_by_label("Ready tasks in queue @ demo.prv");
    h.get_by_label_contains("empty queue (0)");
    assert!(h.query_by_label_contains("Running (1)").is_none());

    // The list filter narrows the types.
    h.get_by_label("Filter").focus();
    h.step();
    h.get_by_label("Filter").type_text("user function");
    h.run_steps(2);
    assert!(h.query_by_label("Ready tasks in queue (7000)").is_none());
    h.get_by_label("User function (60000019)");
    h.key_press(Key::Escape);
    h.run_steps(2);

    // Wheel zoom centred on the cursor: the tick under the pointer stays there.
    let p = at(&h, 2, 0.25);
    let before = window(&h);
    let t = |w: TimeWindow| w.start as f64 + 0.25 * w.span as f64;
    wheel(&mut h, p, 3.0);
    let zoomed = window(&h);
    assert!(zoomed.span < before.span * 6 / 10, "{zoomed:?}");
    assert!(
        (t(zoomed) - t(before)).abs() < before.span as f64 * 0.01,
        "{zoomed:?}"
    );
    h.get_by_label_contains(&format!(
        "window {}",
        prvscope_viewer::frame::format_window(zoomed.start, zoomed.end(), 1)
    ));

    // Undo (Ctrl+U) goes back, redo (Ctrl+R) forth, Ctrl+Z / Ctrl+Shift+Z too, Home fits.
    h.key_press_modifiers(Modifiers::COMMAND, Key::U);
    h.run_steps(2);
    assert_eq!(window(&h), before);
    h.key_press_modifiers(Modifiers::COMMAND, Key::R);
    h.run_steps(2);
    assert_eq!(window(&h), zoomed);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(window(&h), before);
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run_steps(2);
    assert_eq!(window(&h), zoomed);
    h.key_press(Key::Home);
    h.run_steps(2);
    assert_eq!(window(&h), before);

    // Right-drag selects a range and zooms to it.
    let (a, b) = (at(&h, 1, 0.2), at(&h, 3, 0.6));
    drag(&mut h, a, b, PointerButton::Secondary);
    let sel = window(&h);
    let expect_start = before.span as f64 * 0.2;
    let expect_span = before.span as f64 * 0.4;
    assert!(
        (sel.start as f64 - expect_start).abs() < before.span as f64 * 0.005,
        "{sel:?}"
    );
    assert!(
        (sel.span as f64 - expect_span).abs() < before.span as f64 * 0.005,
        "{sel:?}"
    );

    // A plain drag pans: dragging to the left moves the window later.
    let (a, b) = (at(&h, 1, 0.6), at(&h, 1, 0.4));
    drag(&mut h, a, b, PointerButton::Primary);
    let panned = window(&h);
    assert_eq!(panned.span, sel.span);
    assert!(
        (panned.start as f64 - (sel.start as f64 + 0.2 * sel.span as f64)).abs()
            < sel.span as f64 * 0.01
    );
    // Keyboard panning.
    h.key_press(Key::ArrowLeft);
    h.run_steps(2);
    assert!(window(&h).start < panned.start);

    // Clicking pins the point's details in the side panel.
    let p = at(&h, 3, 0.5);
    crate::common::click_at(&mut h, p);
    h.run_steps(2);
    assert!(h.state().loaded().unwrap().timeline.pinned().is_some());
    h.get_by_label_contains("time ");
    assert_eq!(
        h.get_all_by_label("THREAD 1.1.4").count(),
        2,
        "row label and details"
    );

    // Clicking a thread's label collapses its task into one row; clicking that expands it.
    h.get_by_label("THREAD 1.1.1").click();
    h.run_steps(2);
    h.get_by_label("+ TASK 1.1");
    assert!(h.query_by_label("THREAD 1.1.2").is_none());
    h.get_by_label("THREAD 1.2.1");
    h.get_by_label("+ TASK 1.1").click();
    h.run_steps(2);
    h.get_by_label("THREAD 1.1.2");
}

#[test]
fn csv_export_of_the_visible_window_matches_the_statistics() {
    let _shared = crate::common::shared();
    let mut h = harness(LoadSource::Demo, None, (1200.0, 600.0));
    let dir = temp_dir("viewer-csv");
    let path = dir.join("states.csv");
    h.state().export_csv(&path).unwrap();
    let csv = std::fs::read_to_string(&path).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("thread,") && header.contains("Running"),
        "{header}"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 8);
    // Every row covers the whole window exactly.
    let end = h.state().loaded().unwrap().timeline.end_time();
    for r in &rows {
        let sum: u64 = r
            .split(',')
            .skip(1)
            .map(|c| c.parse::<u64>().unwrap())
            .sum();
        assert_eq!(sum, end, "{r}");
    }
    // PNG export of the timeline through a screenshot.
    let png = dir.join("timeline.png");
    h.state_mut().export_png(png.clone());
    h.run_steps(4);
    let img = image::open(&png).unwrap().to_rgba8();
    let area = h.state().loaded().unwrap().timeline.area();
    assert!(
        img.width() as f32 >= area.width() && img.height() as f32 >= area.height(),
        "{:?}",
        img.dimensions()
    );
}

fn shared(path: &str) -> Option<PathBuf> {
    shared_traces().map(|d| d.join(path))
}

/// The rendered colour at tick `t` on drawn row `row`.
fn color_at(h: &mut Harness<'_, App>, img: &image::RgbaImage, row: usize, t: u64) -> [u8; 3] {
    let tl = &h.state().loaded().unwrap().timeline;
    let x = tl.window().x_from_time(t as f64, tl.area());
    let y = tl.area().top() + (row as f32 + 0.5) * tl.row_height();
    let ppp = h.ctx.pixels_per_point();
    let p = img.get_pixel((x * ppp) as u32, (y * ppp) as u32).0;
    [p[0], p[1], p[2]]
}

const BLACK: [u8; 3] = [0, 0, 0];
const ZERO: [u8; 3] = theme::PARAVER_PALETTE[0];
const THREE: [u8; 3] = theme::PARAVER_PALETTE[3];

/// A `null_mode` trace opened in the view of event type 7.
fn null_mode_type7(file: &str) -> Option<Harness<'static, App>> {
    let path = shared(&format!("null_mode/{file}"))?;
    Some(harness(
        LoadSource::File(path),
        Some(SignalSpec::Events(vec![7])),
        (900.0, 300.0),
    ))
}

#[test]
fn null_mode_draws_zero_in_colour_and_null_as_background() {
    let _shared = crate::common::shared();
    let Some(mut h) = null_mode_type7("threads_null.prv") else {
        return;
    };
    h.get_by_label("Ready tasks in queue @ threads_null.prv");
    h.get_by_label("worker 1.1.1");
    h.get_by_label_contains("empty queue (0)");
    let img = h.render().unwrap();
    // Thread 1: null, 0 on [100, 200), null. Thread 2: 3 on [0, 150), 0 on [150, 300), null.
    assert_eq!(color_at(&mut h, &img, 0, 50), BLACK);
    assert_eq!(color_at(&mut h, &img, 0, 150), ZERO);
    assert_eq!(color_at(&mut h, &img, 0, 350), BLACK);
    assert_eq!(color_at(&mut h, &img, 1, 75), THREE);
    assert_eq!(color_at(&mut h, &img, 1, 225), ZERO);
    assert_eq!(color_at(&mut h, &img, 1, 400), BLACK);
    h.snapshot("null_mode_threads_null_type7");
}

#[test]
fn legacy_mode_draws_zero_as_background_unless_the_view_says_otherwise() {
    let _shared = crate::common::shared();
    let Some(mut h) = null_mode_type7("threads_legacy.prv") else {
        return;
    };
    let img = h.render().unwrap();
    assert_eq!(color_at(&mut h, &img, 0, 150), BLACK);
    assert_eq!(color_at(&mut h, &img, 1, 75), THREE);
    assert_eq!(color_at(&mut h, &img, 1, 225), BLACK);
    assert!(h.query_by_label_contains("empty queue").is_none());
    h.snapshot("null_mode_threads_legacy_type7");
    // The per-view switch turns the legacy zeros into values.
    h.get_by_label("Zero is null").click();
    h.run_steps(2);
    let img = h.render().unwrap();
    assert_eq!(color_at(&mut h, &img, 1, 225), ZERO);
}

#[test]
fn prime16_mpi_call_view_matches_paravers_picture() {
    let _shared = crate::common::shared();
    let Some(path) = shared("extrae_mpi_prime16/prime_v0.prv") else {
        return;
    };
    let mut h = harness(
        LoadSource::File(path),
        Some(SignalSpec::Events(vec![50_000_001, 50_000_002, 50_000_003])),
        (1400.0, 800.0),
    );
    h.get_by_label("MPI call @ prime_v0.prv");
    for entry in [
        "MPI_Init (31)",
        "MPI_Comm_size (20)",
        "MPI_Bcast (7)",
        "MPI_Reduce (9)",
        "MPI_Finalize (32)",
    ] {
        h.get_by_label_contains(entry);
    }
    let img = h.render().unwrap();
    let end = h.state().loaded().unwrap().timeline.end_time();
    let at = |f: f64| (end as f64 * f) as u64;
    let c = |v: usize| theme::PARAVER_PALETTE[v];
    // As in paraver_mpi_call_prime_v0.png: nothing for the first quarter, thread 1.1.1 ends
    // in a long MPI_Reduce, thread 1.2.1 in MPI_Finalize, thread 1.16.1 outside MPI.
    assert_eq!(color_at(&mut h, &img, 0, at(0.1)), [0, 0, 0]);
    assert_eq!(color_at(&mut h, &img, 0, at(0.9)), c(9));
    assert_eq!(color_at(&mut h, &img, 1, at(0.9)), c(32));
    assert_eq!(color_at(&mut h, &img, 15, at(0.8)), [0, 0, 0]);
    h.snapshot("prime16_mpi_call");
}

/// A trace that takes a while to load: the frames keep coming, the progress bar moves, and
/// Cancel stops the load. `PRVSCOPE_BIG_TRACE_MB` sets its size (default 150 MB).
#[test]
fn window_stays_responsive_while_a_big_trace_loads_and_cancel_works() {
    let mb: u64 = std::env::var("PRVSCOPE_BIG_TRACE_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    let dir = temp_dir("viewer-big");
    let path = dir.join("big.prv");
    synth::generate(
        &path,
        &GenOptions {
            threads: 64,
            target_bytes: mb << 20,
            ..GenOptions::default()
        },
    )
    .unwrap();
    let _alone = crate::common::alone();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1200.0, 600.0))
        .build_eframe(|cc| {
            App::new(
                &cc.egui_ctx,
                LoadSource::Demo,
                NullOverride::Auto,
                Settings::default(),
            )
        });
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(2);
    h.state_mut().open(&ctx, LoadSource::File(path.clone()));
    let mut frames = 0;
    let mut slowest = Duration::ZERO;
    let started = Instant::now();
    let mut seen_progress = false;
    while h.state().loading().is_some() {
        let t = Instant::now();
        h.step();
        slowest = slowest.max(t.elapsed());
        frames += 1;
        let (done, total) = h
            .state()
            .loading()
            .map_or((0, 1), prvscope_viewer::loader::Loading::bytes);
        if done > 0 && done < total {
            seen_progress = true;
        }
        // Cancel half-way, so that frames are timed during a good part of the load.
        if done * 2 >= total && done < total && h.query_by_label("Cancel").is_some() {
            h.get_by_label("Cancel").click();
            h.step();
        }
        std::thread::sleep(Duration::from_millis(5));
        assert!(
            started.elapsed() < Duration::from_mins(2),
            "load did not stop"
        );
    }
    h.run_steps(2);
    eprintln!(
        "{mb} MB: {frames} frames in {:?}, slowest {slowest:?}",
        started.elapsed()
    );
    assert!(frames >= 3, "{frames} frames");
    assert!(
        slowest < Duration::from_millis(250),
        "a frame took {slowest:?}"
    );
    // Cancelled: the demo is still shown, and the status says so.
    assert!(seen_progress);
    h.get_by_label_contains("was cancelled");
    h.get_by_label("State @ demo.prv");
    // A later load that succeeds clears it.
    let ctx = h.ctx.clone();
    h.state_mut().open(&ctx, LoadSource::Demo);
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(3);
    assert!(h.query_by_label_contains("was cancelled").is_none());
    let _ = Path::new(&path);
}

#[derive(Debug)]
struct Dropped(PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn a_file_dropped_on_the_window_opens_and_joins_the_recent_files() {
    let _shared = crate::common::shared();
    let Some(path) = shared("null_mode/threads_null.prv") else {
        return;
    };
    let mut h = harness(LoadSource::Demo, None, (900.0, 400.0));
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(path.clone())));
    h.step();
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(3);
    h.get_by_label("State @ threads_null.prv");
    h.get_by_label("worker 1.1.2");
    let recent = h.state().settings().recent.paths();
    assert_eq!(recent.first(), Some(&std::fs::canonicalize(&path).unwrap()));
}

/// A copy of the files of `src` in `/tmp/prvscope-snapshots/<name>`, a path that is the same
/// on every machine (pictures that show paths depend on it).
fn fixed_copy(src: &Path, name: &str) -> PathBuf {
    let dir = Path::new("/tmp/prvscope-snapshots").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let from = entry.unwrap().path();
        let to = dir.join(from.file_name().unwrap());
        let tmp = dir.join(format!(".{}.part", std::process::id()));
        std::fs::copy(&from, &tmp).unwrap();
        std::fs::rename(&tmp, &to).unwrap();
    }
    dir
}

/// The default window (1400x800, side panel and scope panel as a first run shows them) on
/// `source`: the rows get at least 65% of the width, every row is shown, the scope panel is
/// there, and the picture is kept as the snapshot `name`.
fn default_window(source: LoadSource, view: Option<SignalSpec>, name: &str, rows: usize) {
    let mut h = harness_with(source, view, (1400.0, 800.0), true);
    h.state_mut().loaded_mut().unwrap().scopes.wait();
    h.run_steps(4);
    let t = &h.state().loaded().unwrap().timeline;
    assert!(
        t.area().width() >= 0.65 * 1400.0,
        "{name}: rows {} px wide",
        t.area().width()
    );
    assert_eq!(t.rows().len(), rows, "{name}");
    assert!(
        t.row_height() * rows as f32 <= t.area().height() + 0.5,
        "{name}: every row is shown"
    );
    assert!(h.state().scope_panel_shown(), "{name}: has scope types");
    h.snapshot(name);
}

#[test]
fn the_default_window_on_the_demo_gives_the_timeline_most_of_the_width() {
    let _shared = crate::common::shared();
    default_window(LoadSource::Demo, None, "default_window_demo", 8);
}

#[test]
fn the_default_window_on_prime_shows_the_mpi_calls_of_all_16_ranks() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    default_window(
        LoadSource::File(root.join("extrae_mpi_prime16/prime_v0.prv")),
        Some(SignalSpec::Events(vec![50_000_001, 50_000_002, 50_000_003])),
        "default_window_prime16_mpi_call",
        16,
    );
}

#[test]
fn the_default_window_on_jacobi_shows_all_24_threads() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    // The source file is not shipped, so the scope panel lists the folders it was looked for
    // in: open a copy at a fixed path so that the picture does not depend on the checkout's.
    let dir = fixed_copy(&root.join("extrae_omp_jacobi24"), "jacobi24");
    default_window(
        LoadSource::File(dir.join("jacobi-2d-imper_v0.prv")),
        None,
        "default_window_jacobi24",
        24,
    );
}

#[test]
fn measuring_the_frame_rate_times_frame_to_frame_and_says_so() {
    let mut h = harness(LoadSource::Demo, None, (1400.0, 800.0));
    assert!(h.state().frame_interval_ms().is_none(), "off by default");
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Measure frame rate").click();
    h.run_steps(2);
    h.key_press(Key::Escape);
    let t = Instant::now();
    h.run_steps(10);
    let elapsed = t.elapsed().as_secs_f64() * 1e3;
    let (mean, longest) = h.state().frame_interval_ms().expect("measured");
    assert!(mean > 0.0 && longest >= mean, "{mean} {longest}");
    // Ten frames cannot be further apart on average than the time they all took.
    assert!(mean <= elapsed, "{mean} ms per frame, {elapsed} ms in all");
    h.get_by_label_contains("ms frame to frame");
}

/// Room: by default the timeline keeps at least 65% of the window's height and width with
/// the scope panel shown, and the side panel keeps its width whatever it shows (every view
/// of the demo, a point pinned in each): a long label is cut, it does not narrow the
/// timeline.
#[test]
fn the_timeline_keeps_its_room_whatever_the_panels_show() {
    let (w, h_px) = (1400.0, 800.0);
    let mut h = harness_with(LoadSource::Demo, None, (w, h_px), true);
    h.run_steps(4);
    let first = h.state().timeline_rect();
    assert!(first.height() >= 0.65 * h_px, "{first:?}");
    assert!(first.width() >= 0.65 * w, "{first:?}");
    let types = h.state().loaded().unwrap().trace.store.event_types();
    let mut views = vec![SignalSpec::States];
    views.extend(types.iter().map(|&ty| SignalSpec::Events(vec![ty])));
    views.push(SignalSpec::Events(types.clone()));
    for spec in views {
        h.state_mut().set_view(spec.clone());
        h.run_steps(3);
        let l = h.state_mut().loaded_mut().unwrap();
        let end = l.timeline.end_time();
        l.timeline.pin(0, end / 3);
        h.run_steps(3);
        let now = h.state().timeline_rect();
        assert!((now.left() - first.left()).abs() < 0.5, "{spec:?}: {now:?}");
        assert!(now.height() >= 0.65 * h_px, "{spec:?}: {now:?}");
    }
}

/// Rows whose names share a long beginning (EAR's GPU rows: "(25335297.1.3574) GPU 0
/// power"...) show the part that tells them apart, the whole name on hover.
#[test]
fn row_labels_sharing_a_long_beginning_show_what_differs() {
    let dir = temp_dir("long-labels");
    let prv = dir.join("gpus.prv");
    synth::generate(
        &prv,
        &GenOptions {
            threads: 4,
            threads_per_task: 4,
            target_bytes: 200_000,
            ..GenOptions::default()
        },
    )
    .unwrap();
    let names: Vec<String> = (0..4)
        .map(|k| format!("(25335297.1.3574) EAR GPU {k} power"))
        .collect();
    std::fs::write(
        dir.join("gpus.row"),
        format!("LEVEL THREAD SIZE 4\n{}\n", names.join("\n")),
    )
    .unwrap();
    let mut h = harness_with(LoadSource::File(prv), None, (1400.0, 800.0), false);
    h.run_steps(3);
    for k in 0..4 {
        h.get_by_label(&format!("…GPU {k} power"));
    }
    h.snapshot("long_row_labels");
}

/// A trace whose threads go back in time opens with a link that counts its warnings (notes
/// that lost nothing included), and the load report it opens names each such thread and
/// where it goes back.
#[test]
fn threads_going_back_in_time_are_named_in_the_load_report() {
    // The report shows the file's path: one that is the same in every checkout, for the
    // snapshot.
    let dir = std::env::temp_dir().join("prvscope-viewer-back-in-time");
    std::fs::create_dir_all(&dir).unwrap();
    let prv = dir.join("back.prv");
    std::fs::write(
        &prv,
        "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:2(1:1,1:1)\n\
         1:1:1:1:1:0:1000:1\n1:2:1:2:1:0:1000:1\n\
         2:1:1:1:1:300:50000002:0\n2:1:1:1:1:100:50000001:0\n\
         2:2:1:2:1:200:50000001:3\n2:2:1:2:1:50:50000002:1\n",
    )
    .unwrap();
    let mut h = harness_with(LoadSource::File(prv), None, (1200.0, 500.0), false);
    h.get_by_label("2 warnings").click();
    h.run_steps(3);
    h.get_by_label_contains("thread 1.1.1: an event at time 100 comes after one at time 300");
    h.get_by_label_contains("thread 1.2.1: an event at time 50 comes after one at time 200");
    h.snapshot("load_report_threads_back_in_time");
}

/// A drag moves the window by what the pointer moved, however the frames fall: the press,
/// the moves and the release in separate frames, a 200 px move in the frame of the press
/// (a slow frame gathers them), or 200 moves of a pixel at a zoom where a pixel is a
/// fraction of a tick (the frames' deltas, each rounded to a tick, moved nothing).
#[test]
fn drags_move_the_window_by_what_the_pointer_moved() {
    let mut h = harness_with(LoadSource::Demo, None, (1400.0, 800.0), false);
    h.run_steps(2);
    let area = h.state().loaded().unwrap().timeline.area();
    // Zoomed in, so that the window can move both ways.
    let end = h.state().loaded().unwrap().timeline.end_time();
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .timeline
        .zoom_to(TimeWindow {
            start: end / 3,
            span: end / 10,
        });
    h.run_steps(1);
    let press = |pos: Pos2, pressed: bool| Event::PointerButton {
        pos,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    let c = area.center();
    for (k, gathered) in [(0, false), (1, true), (2, false)] {
        let before = h.state().loaded().unwrap().timeline.window();
        let dx = if k % 2 == 0 { 200.0 } else { -200.0 };
        h.event(Event::PointerMoved(c));
        h.event(press(c, true));
        if gathered {
            for step in 1..=4 {
                h.event(Event::PointerMoved(
                    c + egui::vec2(dx * step as f32 / 4.0, 0.0),
                ));
            }
            h.step();
        } else {
            h.step();
            for step in 1..=4 {
                h.event(Event::PointerMoved(
                    c + egui::vec2(dx * step as f32 / 4.0, 0.0),
                ));
                h.step();
            }
        }
        h.event(press(c + egui::vec2(dx, 0.0), false));
        h.run_steps(2);
        let after = h.state().loaded().unwrap().timeline.window();
        let want = -f64::from(dx) * before.span as f64 / f64::from(area.width());
        let moved = after.start as f64 - before.start as f64;
        assert_eq!(after.span, before.span);
        assert!(
            (moved - want).abs() <= before.span as f64 / 1000.0,
            "drag {k} (gathered: {gathered}): moved {moved} ticks, want {want}"
        );
    }
    // 500 ticks over the timeline's width: a pixel is under half a tick.
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .timeline
        .zoom_to(TimeWindow {
            start: end / 2,
            span: 500,
        });
    h.run_steps(1);
    let before = h.state().loaded().unwrap().timeline.window();
    h.event(Event::PointerMoved(c));
    h.event(press(c, true));
    h.step();
    for step in 1..=200 {
        h.event(Event::PointerMoved(c + egui::vec2(step as f32, 0.0)));
        h.step();
    }
    h.event(press(c + egui::vec2(200.0, 0.0), false));
    h.run_steps(2);
    let after = h.state().loaded().unwrap().timeline.window();
    let want = -200.0 * before.span as f64 / f64::from(area.width());
    let moved = after.start as f64 - before.start as f64;
    assert!(
        (moved - want).abs() <= 1.0,
        "moved {moved} ticks, want {want}"
    );
}

/// Thousands of rows open fitted ("Fit all rows", F): a point row each, more rows than points
/// summarised (each point row the draw mode over its threads), the first shown named at the
/// top with its application, the last at the bottom with how many are shown; F again gives
/// rows of a readable height that scroll.
#[test]
fn a_thousand_rows_fit_at_a_pixel_each() {
    let dir = temp_dir("rows-1040");
    let prv = dir.join("rows.prv");
    synth::generate(
        &prv,
        &GenOptions {
            threads: 1040,
            threads_per_task: 8,
            target_bytes: 3_000_000,
            ..GenOptions::default()
        },
    )
    .unwrap();
    let mut h = harness_with(LoadSource::File(prv), None, (1400.0, 800.0), false);
    h.run_steps(3);
    let t = &h.state().loaded().unwrap().timeline;
    assert!(t.fits_rows() && t.rows_summarised());
    let points = t.area().height().floor() as usize;
    assert!(points >= 600, "{points} point rows");
    assert_eq!(t.rows().len(), points);
    assert!(
        (t.row_height() - t.area().height() / points as f32).abs() < 0.01,
        "{}",
        t.row_height()
    );
    let threads: Vec<usize> = t.rows().iter().flat_map(|r| r.threads.clone()).collect();
    assert_eq!(threads, (0..1040).collect::<Vec<_>>());
    h.snapshot("rows_1040_fit");
    h.key_press(Key::F);
    h.run_steps(3);
    let t = &h.state().loaded().unwrap().timeline;
    assert!(!t.fits_rows());
    assert_eq!(t.rows().len(), 1040);
    assert!((t.row_height() - prvscope_viewer::timeline::MIN_ROW_HEIGHT).abs() < 1e-3);
}

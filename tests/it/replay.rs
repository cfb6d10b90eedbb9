//! A user's first minute on a real-size trace, timed frame by frame: a generated 1 GB trace
//! of 64 threads with communications (on by default) opened in the default 1400x800 window,
//! ten wheel steps, a range zoom, the View menu opened, an undo. Every frame is timed from the
//! app's code and egui's layout to the tessellated meshes ready to paint. No frame may take
//! more than 100 ms. `PRVSCOPE_REPLAY_MB` changes the trace's size (default 1024),
//! `PRVSCOPE_REPLAY_VERBOSE` prints every frame.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use egui::{Event, Key, Modifiers, PointerButton, pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_import::NullOverride;
use prvscope_import::synth::{self, GenOptions};
use prvscope_viewer::app::App;
use prvscope_viewer::loader::{LoadRequest, LoadSource};
use prvscope_viewer::settings::Settings;

/// The slowest frame allowed.
const MAX_FRAME: Duration = Duration::from_millis(100);

/// The generated trace, written once into `target/test-data/` (kept between runs: the same
/// options always write the same bytes).
fn replay_trace(mb: u64) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/test-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("replay_{mb}mb_64.prv"));
    let done = path.with_extension("done");
    if !done.exists() {
        synth::generate(
            &path,
            &GenOptions {
                threads: 64,
                threads_per_task: 8,
                target_bytes: mb << 20,
                seed: 11,
                legacy: false,
                xz: false,
                mpi: false,
            },
        )
        .unwrap();
        std::fs::write(&done, b"").unwrap();
    }
    path
}

/// Frame times of one user action.
struct Timer {
    frames: Vec<(String, Duration)>,
}

impl Timer {
    /// One whole frame as the harness can time it: the app and egui's layout (`step`), then
    /// tessellation of everything the frame paints. (The harness's own painting reads the
    /// picture back from the software adapter, about a second per call whatever is drawn,
    /// which a window does not pay; the window's status bar shows eframe's whole-frame time,
    /// painting included.)
    fn frame(&mut self, h: &mut Harness<'_, App>, what: &str) {
        let t = Instant::now();
        h.step();
        let stepped = t.elapsed();
        let shapes = h.output().shapes.clone();
        let ppp = h.ctx.pixels_per_point();
        let meshes = h.ctx.tessellate(shapes, ppp);
        assert!(!meshes.is_empty(), "the frame paints something");
        self.frames.push((what.to_owned(), t.elapsed()));
        if std::env::var_os("PRVSCOPE_REPLAY_VERBOSE").is_some() {
            let built = h
                .state()
                .loaded()
                .map_or(0.0, |l| l.timeline.last_build_ms());
            eprintln!(
                "{what}: step {stepped:?}, whole {:?}, rows and lines built in {built:.1} ms",
                t.elapsed()
            );
        }
    }

    fn frames(&mut self, h: &mut Harness<'_, App>, what: &str, n: usize) {
        for _ in 0..n {
            self.frame(h, what);
        }
    }
}

#[test]
fn a_users_first_minute_on_a_1_gb_trace_has_no_frame_over_100_ms() {
    let mb: u64 = std::env::var("PRVSCOPE_REPLAY_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    let path = replay_trace(mb);
    let _alone = crate::common::alone();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 800.0))
        .build_eframe(move |cc| {
            // The memory check is not what is tested here.
            App::with_request(
                &cc.egui_ctx,
                LoadSource::File(path),
                NullOverride::Auto,
                Settings::default(),
                LoadRequest {
                    skip_memory_check: true,
                    ..LoadRequest::default()
                },
            )
        });
    let ctx = h.ctx.clone();
    let loading = Instant::now();
    h.state_mut().wait_for_load(&ctx);
    let load = loading.elapsed();
    let mut timer = Timer { frames: Vec::new() };
    // The first frames build the view, the communications and start the scope analysis.
    timer.frames(&mut h, "open", 3);
    let comms = h.state().loaded().unwrap().trace.store.counts().comms;
    assert!(comms > 100_000, "{comms} communications");
    let l = h.state().loaded().unwrap();
    let t = &l.timeline;
    assert!(t.comms().is_some(), "communications are on by default");
    // That many messages are a density: every message between the rows on screen counted
    // at its send (here a thread per row).
    let drawn = t
        .comm_density()
        .expect("that many messages are drawn as a density");
    let shown = t.first_row()..t.first_row() + (t.area().height() / t.row_height()) as usize;
    let between_shown = l
        .trace
        .store
        .comms()
        .iter()
        .filter(|c| {
            shown.contains(&(c.send_row as usize)) && shown.contains(&(c.recv_row as usize))
        })
        .count() as u64;
    assert!(
        between_shown > 100_000,
        "{between_shown} messages on screen"
    );
    assert_eq!(drawn.messages, between_shown);
    let counted: u64 = drawn
        .rows
        .iter()
        .flat_map(|(_, c)| c.iter())
        .map(|&n| u64::from(n))
        .sum();
    assert!(
        counted >= between_shown,
        "every message on screen is counted at its send: {counted}"
    );
    let area = t.area();
    let (before, end) = (t.window(), t.end_time());

    // Ten wheel steps in, at a third of the width.
    let p = pos2(
        area.left() + area.width() / 3.0,
        area.top() + area.height() / 2.0,
    );
    h.event(Event::PointerMoved(p));
    timer.frame(&mut h, "pointer");
    for i in 0..10 {
        h.event(Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::vec2(0.0, 1.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: Modifiers::NONE,
        });
        timer.frames(&mut h, &format!("wheel {i}"), 2);
    }
    let zoomed = h.state().loaded().unwrap().timeline.window();
    assert!(zoomed.span < before.span / 5, "{zoomed:?} of {end}");

    // A range zoom: right-drag over the middle fifth.
    let (a, b) = (
        pos2(area.left() + area.width() * 0.4, area.top() + 20.0),
        pos2(area.left() + area.width() * 0.6, area.top() + 60.0),
    );
    let press = |pressed, pos| Event::PointerButton {
        pos,
        button: PointerButton::Secondary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    h.event(Event::PointerMoved(a));
    timer.frame(&mut h, "drag");
    h.event(press(true, a));
    timer.frame(&mut h, "drag");
    for k in 1..=4 {
        h.event(Event::PointerMoved(a + (b - a) * (k as f32 / 4.0)));
        timer.frame(&mut h, "drag");
    }
    h.event(press(false, b));
    timer.frames(&mut h, "range zoom", 2);
    let ranged = h.state().loaded().unwrap().timeline.window();
    assert!(ranged.span < zoomed.span / 3, "{ranged:?} after {zoomed:?}");

    // The View menu.
    h.get_by_label("View").click();
    timer.frames(&mut h, "View menu", 2);
    h.get_by_label("Fit all rows (F)");
    h.key_press(Key::Escape);
    timer.frame(&mut h, "menu closed");

    // Undo goes back to the wheel's window.
    h.event(Event::PointerMoved(p));
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    timer.frames(&mut h, "undo", 2);
    assert_eq!(h.state().loaded().unwrap().timeline.window(), zoomed);

    let slowest = timer.frames.iter().max_by_key(|f| f.1).unwrap();
    let total: Duration = timer.frames.iter().map(|f| f.1).sum();
    eprintln!(
        "{mb} MB, {comms} messages: loaded in {load:?}; {} frames, mean {:?}, slowest {:?} ({})",
        timer.frames.len(),
        total / timer.frames.len() as u32,
        slowest.1,
        slowest.0
    );
    for (what, d) in &timer.frames {
        assert!(*d <= MAX_FRAME, "the frame of `{what}` took {d:?}");
    }
}

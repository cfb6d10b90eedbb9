//! Moving around a trace in the viewer: Find (Ctrl+F) against a naive scan, markers (M) and
//! their distances, the duration of a range selection, and the keys window (F1, `?`).

use egui::{Event, Key, Modifiers, PointerButton};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_viewer::app::App;
use prvscope_viewer::find::{self, Target};
use prvscope_viewer::loader::LoadSource;

use crate::viewer::{at, drag, harness_with};

fn demo() -> Harness<'static, App> {
    harness_with(LoadSource::Demo, None, (1400.0, 800.0), false)
}

/// The earliest state `v` beginning after `after` on any thread, by a plain scan.
fn naive_next_state(app: &App, v: u64, after: u64) -> Option<(usize, u64)> {
    let store = &app.loaded().unwrap().trace.store;
    (0..store.threads().len())
        .flat_map(|row| {
            store
                .states_in(row, 0, u64::MAX)
                .filter(move |&(b, _, value)| b > after && value == v)
                .map(move |(b, _, _)| (row, b))
        })
        .min_by_key(|&(row, b)| (b, row))
}

#[test]
fn find_walks_the_occurrences_of_a_state_forward_and_back_and_pins_them() {
    let _shared = crate::common::shared();
    let mut h = demo();
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run_steps(2);
    assert!(h.state().find().open);
    // The query goes to the find field, which has the focus.
    h.event(Event::Text("synchroniz".into()));
    h.run_steps(2);
    h.get_by_label_contains("state Synchronization (5)");
    h.state_mut().find_mut().all_rows = true;
    let mut seen = Vec::new();
    for _ in 0..3 {
        h.key_press(Key::Enter);
        h.run_steps(2);
        let app = h.state();
        let last = app.find().last.expect("an occurrence");
        let after = seen.last().map_or_else(
            || app.loaded().unwrap().timeline.window().start,
            |&(_, b): &(usize, u64)| b,
        );
        // The next one is the first a plain scan finds after the previous.
        let want = naive_next_state(app, 5, after);
        if seen.is_empty() {
            // The first search starts at the window's start (the whole trace here, 0).
            assert_eq!(
                Some((last.row, last.begin)),
                naive_next_state(app, 5, 0).or(want)
            );
        } else {
            assert_eq!(Some((last.row, last.begin)), want);
        }
        // It is shown and pinned.
        let t = &app.loaded().unwrap().timeline;
        let w = t.window();
        assert!(w.start <= last.begin && last.begin <= w.start + w.span);
        assert_eq!(t.pinned().map(|p| p.time), Some(last.begin));
        seen.push((last.row, last.begin));
    }
    assert!(seen.windows(2).all(|w| w[0].1 <= w[1].1), "{seen:?}");
    h.get_by_label_contains("Synchronization (5) on THREAD");
    // Shift+Enter in the find field goes back, Enter forward again.
    h.key_press_modifiers(Modifiers::SHIFT, Key::Enter);
    h.run_steps(2);
    let back = h.state().find().last.unwrap();
    assert_eq!((back.row, back.begin), seen[1], "Shift+Enter in the field");
    h.key_press(Key::Enter);
    h.run_steps(2);
    let again = h.state().find().last.unwrap();
    assert_eq!((again.row, again.begin), seen[2], "Enter in the field");
    // For the picture: the find window, and a marker across the rows and in the side panel
    // (placed after a click on the timeline, which takes the keys back from the find field).
    let p = at(&h, 6, 0.8);
    crate::common::click_at(&mut h, p);
    h.run_steps(2);
    h.key_press(Key::M);
    h.run_steps(2);
    assert_eq!(h.state().loaded().unwrap().timeline.markers().len(), 1);
    h.snapshot("find_window_and_marker");
    // Shift+Enter goes back to the one before.
    h.key_press_modifiers(Modifiers::SHIFT, Key::Enter);
    h.run_steps(2);
    let back = h.state().find().last.unwrap();
    assert_eq!((back.row, back.begin), seen[1]);
    // A name the trace does not have says so.
    h.state_mut().find_mut().query = "no such thing".into();
    h.run_steps(2);
    h.get_by_label("nothing in this trace is named so");
    // The search itself, against the scan, from the end backwards.
    let app = h.state();
    let trace = &app.loaded().unwrap().trace;
    let rows: Vec<usize> = (0..trace.store.threads().len()).collect();
    let last = find::previous(trace, Target::State(5), &rows, u64::MAX).unwrap();
    let naive_last = rows
        .iter()
        .flat_map(|&r| {
            trace
                .store
                .states_in(r, 0, u64::MAX)
                .filter(|s| s.2 == 5)
                .map(move |s| (s.0, std::cmp::Reverse(r)))
        })
        .max()
        .unwrap();
    assert_eq!((last.begin, std::cmp::Reverse(last.row)), naive_last);
}

#[test]
fn markers_are_placed_with_m_listed_with_their_distance_and_removed() {
    let _shared = crate::common::shared();
    let mut h = demo();
    let span = h.state().loaded().unwrap().timeline.window().span;
    for f in [0.25, 0.75] {
        h.event(Event::PointerMoved(at(&h, 1, f)));
        h.run_steps(2);
        h.key_press(Key::M);
        h.run_steps(2);
    }
    let markers = h.state().loaded().unwrap().timeline.markers().to_vec();
    assert_eq!(markers.len(), 2);
    assert_eq!(markers[0].label, "M1");
    for (m, f) in markers.iter().zip([0.25, 0.75]) {
        let want = span as f64 * f;
        assert!((m.time as f64 - want).abs() < span as f64 * 0.002, "{m:?}");
    }
    // The second is listed with its distance from the first.
    let d = markers[1].time - markers[0].time;
    let npt = crate::common::ns_per_tick(h.state());
    let precision = (span as f64 * npt as f64 / 1000.0).max(1.0);
    let text = format!(
        "+{}",
        prvscope_viewer::frame::format_time(d as f64 * npt as f64, precision)
    );
    h.get_by_label(&text);
    // × removes the first.
    h.get_all_by_label("×").next().unwrap().click();
    h.run_steps(2);
    let left = h.state().loaded().unwrap().timeline.markers().to_vec();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].label, "M2");
}

#[test]
fn a_range_selection_measures_its_duration() {
    let _shared = crate::common::shared();
    let mut h = demo();
    let span = h.state().loaded().unwrap().timeline.window().span;
    let (a, b) = (at(&h, 1, 0.2), at(&h, 1, 0.6));
    drag(&mut h, a, b, PointerButton::Secondary);
    let (from, to) = h
        .state()
        .loaded()
        .unwrap()
        .timeline
        .measured()
        .unwrap()
        .bounds();
    let want = span as f64 * 0.4;
    assert!(((to - from) as f64 - want).abs() < span as f64 * 0.005);
    h.get_by_label_contains("selected ");
}

#[test]
fn f1_and_question_mark_list_every_key_and_gesture() {
    let _shared = crate::common::shared();
    let mut h = demo();
    h.key_press(Key::F1);
    h.run_steps(2);
    h.get_by_label("Keys and gestures");
    for (key, _) in prvscope_viewer::app::KEYS {
        h.get_by_label(key);
    }
    h.key_press(Key::Escape);
    h.run_steps(2);
    assert!(h.query_by_label("Keys and gestures").is_none());
    h.event(Event::Text("?".into()));
    h.run_steps(2);
    h.get_by_label("Keys and gestures");
}

#[test]
fn the_session_is_kept_and_restored_on_the_next_start_without_a_trace() {
    use prvscope_import::NullOverride;
    use prvscope_store::signal::SignalSpec;
    use prvscope_viewer::settings::{MemoryStorage, Settings};

    let _shared = crate::common::shared();
    let Some(root) = crate::common::shared_traces() else {
        return;
    };
    let prv = root.join("extrae_mpi_prime16/prime_v0.prv");
    let mut h = harness_with(LoadSource::File(prv.clone()), None, (1200.0, 800.0), false);
    // A view, a window, a collapsed task, a marker.
    h.state_mut().set_view(SignalSpec::Events(vec![50_000_002]));
    h.run_steps(2);
    let window = {
        let l = h.state_mut().loaded_mut().unwrap();
        let w = prvscope_viewer::frame::TimeWindow {
            start: 600_000_000,
            span: 300_000_000,
        };
        l.timeline.zoom_to(w);
        l.timeline.toggle_row(&l.trace, 2);
        l.timeline.add_marker(700_000_000);
        w
    };
    h.run_steps(2);
    let rows_before = h.state().loaded().unwrap().timeline.rows().len();
    let mut storage = MemoryStorage::default();
    eframe::App::save(h.state_mut(), &mut storage);
    drop(h);
    // The next start, without a trace.
    let settings = Settings::load(Some(&storage));
    assert_eq!(
        settings.session.as_ref().map(|s| s.path.clone()),
        Some(std::fs::canonicalize(&prv).unwrap())
    );
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .build_eframe(move |cc| {
            let mut app = App::new(&cc.egui_ctx, LoadSource::Demo, NullOverride::Auto, settings);
            app.set_show_timings(false);
            app
        });
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(4);
    let app = h.state();
    let t = &app.loaded().unwrap().timeline;
    assert_eq!(
        app.loaded().unwrap().trace.path,
        std::fs::canonicalize(&prv).unwrap()
    );
    assert_eq!(t.config().spec, SignalSpec::Events(vec![50_000_002]));
    assert_eq!(t.window(), window);
    assert_eq!(
        t.rows().len(),
        rows_before,
        "the collapsed task stays collapsed"
    );
    assert_eq!(t.markers().len(), 1);
    assert_eq!(t.markers()[0].time, 700_000_000);
    h.get_by_label_contains("restored the last session of");
}

#[test]
fn the_wheel_over_the_row_names_scrolls_the_rows() {
    let _shared = crate::common::shared();
    let Some(root) = crate::common::shared_traces() else {
        return;
    };
    let prv = root.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv");
    // 24 rows in a short window: they do not all fit.
    let mut h = harness_with(LoadSource::File(prv), None, (1000.0, 380.0), false);
    let (first, label_x, y) = {
        let t = &h.state().loaded().unwrap().timeline;
        assert!(t.area().height() < 24.0 * prvscope_viewer::timeline::MIN_ROW_HEIGHT);
        (t.first_row(), t.area().left() - 40.0, t.area().center().y)
    };
    assert_eq!(first, 0);
    crate::viewer::wheel(&mut h, egui::pos2(label_x, y), -2.0);
    let t = &h.state().loaded().unwrap().timeline;
    assert!(t.first_row() > 0, "the rows scrolled down");
}

#[test]
fn home_over_the_rows_goes_to_the_timeline_while_the_filter_box_has_the_keys() {
    let _shared = crate::common::shared();
    let mut h = demo();
    let all = h.state().loaded().unwrap().timeline.window();
    let p = at(&h, 2, 0.5);
    crate::viewer::wheel(&mut h, p, 3.0);
    assert!(h.state().loaded().unwrap().timeline.window().span < all.span);
    h.get_by_label("Filter").focus();
    h.step();
    h.get_by_label("Filter").type_text("user");
    h.run_steps(2);
    // The pointer over the rows, Home: the whole trace, and the filter keeps its text.
    h.event(Event::PointerMoved(p));
    h.run_steps(2);
    h.key_press(Key::Home);
    h.run_steps(2);
    assert_eq!(h.state().loaded().unwrap().timeline.window(), all);
    h.get_by_label("User function (60000019)");
}

/// Find on a call much shorter than a pixel of the window: the window zooms to it, its
/// message has the digits to tell it from the next one, and a search backwards starts at the
/// point pinned (EPOCH's 1-process run: `MPI_Sendrecv` calls of a few microseconds in a 307 ms
/// window).
#[test]
fn find_zooms_to_a_call_under_a_pixel_and_goes_back_from_the_pinned_point() {
    let Some(dir) = crate::common::shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("pypop_epoch_scaling/epoch_1proc.prv.gz")),
        None,
        (1200.0, 700.0),
        false,
    );
    let (target, text) = {
        let trace = &h.state().loaded().unwrap().trace;
        find::candidates(trace, "MPI_Sendrecv")
            .into_iter()
            .find(|(t, _)| matches!(t, Target::Value(..)))
            .expect("MPI_Sendrecv is a value of the trace")
    };
    let window = prvscope_viewer::frame::TimeWindow {
        start: 5_000_000_000,
        span: 307_000_000,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(window);
    let mut hits = Vec::new();
    let mut messages = Vec::new();
    for _ in 0..2 {
        h.state_mut().find_step(target, &text, true);
        h.run_steps(1);
        let app = h.state();
        let o = app.find().last.unwrap();
        let w = app.loaded().unwrap().timeline.window();
        assert!(o.end > o.begin, "the call holds until it is left");
        assert!(
            (o.end - o.begin) * 1000 >= w.span,
            "the window {w:?} shows the call {o:?} over a pixel at least"
        );
        assert!(w.start <= o.begin && o.end <= w.start + w.span);
        hits.push(o);
        messages.push(app.find().message.clone());
    }
    assert!(hits[0].begin < hits[1].begin);
    assert_ne!(messages[0], messages[1], "two calls told apart");
    // Backwards from a point pinned between them, with no search before: the first call.
    {
        let app = h.state_mut();
        app.find_mut().last = None;
        let t = &mut app.loaded_mut().unwrap().timeline;
        let mid = u64::midpoint(hits[0].end, hits[1].begin);
        t.pin(0, mid);
    }
    h.state_mut().find_step(target, &text, false);
    let back = h.state().find().last.unwrap();
    assert_eq!(
        back.begin, hits[0].begin,
        "Previous goes back from the pinned point"
    );
}

/// The tooltip in a 322 ns window of prime (633.509 ms into the run) gives its times to the
/// nanosecond: it said "time 677 ms, from 658 ms to 710 ms".
#[test]
fn the_tooltip_of_a_322_ns_window_gives_nanoseconds() {
    let Some(dir) = crate::common::shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("extrae_mpi_prime16/prime_v0.prv")),
        None,
        (1200.0, 700.0),
        false,
    );
    let window = prvscope_viewer::frame::TimeWindow {
        start: 633_509_000,
        span: 322,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(window);
    h.run_steps(2);
    let p = at(&h, 3, 0.5);
    h.event(Event::PointerMoved(p));
    h.run_steps(40);
    let app = h.state();
    let t = &app.loaded().unwrap().timeline;
    let d = t.hovered().expect("the pointer is over a row");
    let lines = prvscope_viewer::timeline::details_lines(&d, 1, t.window().span);
    let time = &lines[1];
    assert!(time.starts_with("time 633.509"), "{time}");
    assert_eq!(time.len(), "time 633.509161 ms".len(), "{time}");
    h.get_by_label(time);
    h.snapshot("tooltip_322ns_window");
}

//! Several timeline windows of one trace (Window > New timeline): stacked, each its own view,
//! and Paraver's synchronize groups: a zoom, a pan or an undo in one window moves every window
//! of its group in the frame of the zoom (each drawn with the new range), markers and the
//! pointer's time are shown in all; copy and paste of a range and of rows between windows.

use egui::{Event, Key, Modifiers, MouseWheelUnit, TouchPhase};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_store::signal::SignalSpec;
use prvscope_viewer::app::App;
use prvscope_viewer::frame::TimeWindow;
use prvscope_viewer::loader::LoadSource;
use std::fmt::Write as _;

use crate::viewer::harness_with;

fn windows(h: &Harness<'_, App>) -> Vec<TimeWindow> {
    let l = h.state().loaded().unwrap();
    (0..l.pane_count())
        .map(|i| l.pane_timeline(i).unwrap().window())
        .collect()
}

fn drawn(h: &Harness<'_, App>) -> Vec<Option<TimeWindow>> {
    let l = h.state().loaded().unwrap();
    (0..l.pane_count())
        .map(|i| l.pane_timeline(i).unwrap().drawn_window())
        .collect()
}

/// A point over the rows of window `i`, `f` of the way across.
fn over(h: &Harness<'_, App>, i: usize, f: f32) -> egui::Pos2 {
    let a = h.state().loaded().unwrap().pane_timeline(i).unwrap().area();
    egui::pos2(a.left() + f * a.width(), a.top() + 10.0)
}

/// Three stacked windows of the demo: State, User function, and the first event type.
fn three() -> Harness<'static, App> {
    let mut h = harness_with(LoadSource::Demo, None, (1400.0, 900.0), false);
    h.state_mut().new_timeline();
    h.run_steps(2);
    h.state_mut().set_view(SignalSpec::Events(vec![60_000_019]));
    h.state_mut().new_timeline();
    h.run_steps(2);
    let ty = h.state().loaded().unwrap().types[0];
    h.state_mut().set_view(SignalSpec::Events(vec![ty]));
    h.run_steps(4);
    h
}

#[test]
fn windows_of_a_group_zoom_pan_and_undo_together_in_the_same_frame() {
    let _shared = crate::common::shared();
    let mut h = three();
    let l = h.state().loaded().unwrap();
    assert_eq!(l.pane_count(), 3);
    assert_eq!(l.active_pane(), 2, "the new window is the active one");
    assert!((0..3).all(|i| l.pane_group(i) == Some(1)));
    // Each window its own view.
    let names: Vec<String> = (0..3)
        .map(|i| {
            let t = l.pane_timeline(i).unwrap();
            t.config().name(&l.trace)
        })
        .collect();
    assert_eq!(names.len(), 3);
    assert!(names[0] != names[1] && names[1] != names[2], "{names:?}");
    let start = windows(&h);
    assert!(start.iter().all(|w| *w == start[0]));
    // A wheel step over the middle window (not the active one): one frame later every window
    // has the new range, and each was drawn with it in that frame.
    h.event(Event::PointerMoved(over(&h, 1, 0.3)));
    h.step();
    h.event(Event::MouseWheel {
        unit: MouseWheelUnit::Line,
        delta: egui::vec2(0.0, 3.0),
        phase: TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: Modifiers::NONE,
    });
    h.step();
    let zoomed = windows(&h);
    assert!(zoomed[1].span < start[1].span, "{zoomed:?}");
    assert!(zoomed.iter().all(|w| *w == zoomed[1]), "{zoomed:?}");
    assert!(
        drawn(&h).iter().all(|w| *w == Some(zoomed[1])),
        "{:?}",
        drawn(&h)
    );
    // The pointer's time over the middle window is a cursor in the two others.
    let l = h.state().loaded().unwrap();
    let t = l
        .pane_timeline(1)
        .unwrap()
        .hover_time()
        .expect("the pointer's time");
    assert_eq!(l.pane_timeline(0).unwrap().group_cursor(), Some(t));
    assert_eq!(l.pane_timeline(2).unwrap().group_cursor(), Some(t));
    assert_eq!(l.pane_timeline(1).unwrap().group_cursor(), None);
    // The arrow key pans the window under the pointer, and so the group.
    h.key_press(Key::ArrowRight);
    h.step();
    let panned = windows(&h);
    assert!(panned[1].start > zoomed[1].start);
    assert!(panned.iter().all(|w| *w == panned[1]), "{panned:?}");
    // M over the first window: a marker in all three.
    h.event(Event::PointerMoved(over(&h, 0, 0.5)));
    h.step();
    h.key_press(Key::M);
    h.run_steps(2);
    let l = h.state().loaded().unwrap();
    let m0 = l.pane_timeline(0).unwrap().markers().to_vec();
    assert_eq!(m0.len(), 1);
    for i in 1..3 {
        assert_eq!(l.pane_timeline(i).unwrap().markers(), m0.as_slice());
    }
    // Undo in the first window: the group goes back to the zoom, then to the start.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.step();
    assert!(
        windows(&h).iter().all(|w| *w == zoomed[1]),
        "{:?}",
        windows(&h)
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.step();
    assert!(
        windows(&h).iter().all(|w| *w == start[0]),
        "{:?}",
        windows(&h)
    );
    assert!(drawn(&h).iter().all(|w| *w == Some(start[0])));
}

#[test]
fn a_window_out_of_the_group_moves_alone_and_ranges_and_rows_paste_across() {
    let _shared = crate::common::shared();
    let mut h = three();
    let start = windows(&h);
    h.state_mut().loaded_mut().unwrap().set_pane_group(2, None);
    h.step();
    // A zoom in window 3 (out of the group) moves it alone.
    h.event(Event::PointerMoved(over(&h, 2, 0.6)));
    h.step();
    h.event(Event::MouseWheel {
        unit: MouseWheelUnit::Line,
        delta: egui::vec2(0.0, 4.0),
        phase: TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: Modifiers::NONE,
    });
    h.step();
    let w = windows(&h);
    assert!(w[2].span < start[2].span);
    assert_eq!((w[0], w[1]), (start[0], start[1]));
    // Its range copied and pasted on window 1: window 1 and its group (window 2) show it.
    let ctx = h.ctx.clone();
    let l = h.state_mut().loaded_mut().unwrap();
    l.copy_pane(2);
    l.paste_on_pane(&ctx, 0, true).unwrap();
    h.step();
    let w = windows(&h);
    assert!(w.iter().all(|x| *x == w[2]), "{w:?}");
    // Rows: window 1 collapsed to tasks, copied, pasted on window 3.
    let ctx = h.ctx.clone();
    h.state_mut().loaded_mut().unwrap().activate_pane(0);
    h.state_mut().set_level(prvscope_viewer::rows::Level::Task);
    h.step();
    let l = h.state_mut().loaded_mut().unwrap();
    let tasks = l.pane_timeline(0).unwrap().rows().len();
    assert!(tasks < l.pane_timeline(2).unwrap().rows().len());
    l.copy_pane(0);
    l.paste_on_pane(&ctx, 2, false).unwrap();
    assert_eq!(l.pane_timeline(2).unwrap().rows().len(), tasks);
    // Closing: the active window closed, another becomes active; the last one stays.
    assert!(l.close_pane(0));
    assert_eq!(l.pane_count(), 2);
    assert!(l.close_pane(0));
    assert!(!l.close_pane(0), "the last window stays");
    h.run_steps(2);
}

#[test]
fn snapshot_of_three_stacked_windows_zoomed_together() {
    let _shared = crate::common::shared();
    let mut h = three();
    h.event(Event::PointerMoved(over(&h, 0, 0.4)));
    h.step();
    h.event(Event::MouseWheel {
        unit: MouseWheelUnit::Line,
        delta: egui::vec2(0.0, 2.0),
        phase: TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(4);
    let w = windows(&h);
    assert!(w.iter().all(|x| *x == w[0]));
    h.snapshot("timeline_windows_three_synchronized");
}

#[test]
fn a_named_session_reopens_every_window_its_view_range_and_group() {
    let _shared = crate::common::shared();
    let Some(root) = crate::common::shared_traces() else {
        return;
    };
    let prv = root.join("extrae_mpi_prime16/prime_v0.prv");
    let mut h = harness_with(LoadSource::File(prv.clone()), None, (1200.0, 800.0), false);
    // Window 1: State, zoomed; window 2: MPI collectives, out of the group, zoomed elsewhere.
    let w1 = TimeWindow {
        start: 600_000_000,
        span: 300_000_000,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(w1);
    h.run_steps(2);
    h.state_mut().new_timeline();
    h.state_mut().set_view(SignalSpec::Events(vec![50_000_002]));
    let w2 = TimeWindow {
        start: 640_000_000,
        span: 40_000_000,
    };
    {
        let l = h.state_mut().loaded_mut().unwrap();
        l.set_pane_group(1, None);
        l.timeline.zoom_to(w2);
        l.activate_pane(0);
    }
    h.run_steps(2);
    let file = crate::common::temp_dir("named-session").join("two windows.prvscope.json");
    h.state_mut().save_session_as(&file);
    h.run_steps(1);
    h.get_by_label_contains("session saved to");
    drop(h);
    // Another viewer, on the demo, opens the session file.
    let mut h = harness_with(LoadSource::Demo, None, (1200.0, 800.0), false);
    h.state_mut().open_session(&file);
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(4);
    let l = h.state().loaded().unwrap();
    assert_eq!(l.trace.path, std::fs::canonicalize(&prv).unwrap());
    assert_eq!(l.pane_count(), 2);
    assert_eq!(l.active_pane(), 0);
    assert_eq!((l.pane_group(0), l.pane_group(1)), (Some(1), None));
    let (a, b) = (l.pane_timeline(0).unwrap(), l.pane_timeline(1).unwrap());
    assert_eq!(a.config().spec, SignalSpec::States);
    assert_eq!(b.config().spec, SignalSpec::Events(vec![50_000_002]));
    assert_eq!((a.window(), b.window()), (w1, w2));
    h.get_by_label_contains(
        "opened the session two windows.prvscope.json on prime_v0.prv (2 timeline windows",
    );
    h.snapshot("named_session_reopened");
    // A file that is not a session says so.
    let bad = file.with_file_name("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    h.state_mut().open_session(&bad);
    h.run_steps(1);
    h.get_by_label_contains("not a prvscope session file");
}

#[test]
fn several_traces_stay_open_each_with_its_windows_and_one_shows_under_another() {
    let _shared = crate::common::shared();
    let Some(root) = crate::common::shared_traces() else {
        return;
    };
    let dir = root.join("pypop_epoch_scaling");
    let (a, b) = (
        dir.join("epoch_2proc.prv.gz"),
        dir.join("epoch_4proc.prv.gz"),
    );
    let mut h = harness_with(LoadSource::File(a.clone()), None, (1200.0, 800.0), false);
    h.state_mut().new_timeline();
    h.run_steps(2);
    // B opened: A stays open, with its two windows.
    let ctx = h.ctx.clone();
    h.state_mut().open(&ctx, LoadSource::File(b.clone()));
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(2);
    let name = |p: &std::path::Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let shown = |h: &Harness<'_, App>| name(&h.state().loaded().unwrap().trace.path);
    assert_eq!(shown(&h), name(&b));
    assert_eq!(h.state().other_traces().len(), 1);
    assert_eq!(h.state().other_traces()[0].pane_count(), 2);
    h.get_by_label("Traces");
    // Switched back to A: its windows are there; B waits.
    h.state_mut().switch_trace(0);
    h.run_steps(2);
    assert_eq!(shown(&h), name(&a));
    assert_eq!(h.state().loaded().unwrap().pane_count(), 2);
    // B under A, 1 s later in B's ticks: a zoom of A moves B's window by the same, shifted.
    h.state_mut().new_timeline_of(0, 1_000_000_000);
    h.run_steps(2);
    let l = h.state().loaded().unwrap();
    assert_eq!(l.pane_count(), 3);
    assert!(l.pane_is_guest(2));
    let w = TimeWindow {
        start: 2_000_000_000,
        span: 500_000_000,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(w);
    h.step();
    let l = h.state().loaded().unwrap();
    let guest = l.pane_timeline(2).unwrap();
    assert_eq!(
        guest.window(),
        TimeWindow {
            start: 3_000_000_000,
            span: 500_000_000
        }
    );
    assert_eq!(
        guest.drawn_window(),
        Some(guest.window()),
        "drawn in that frame"
    );
    // A marker of A stands at the same (shifted) time in B's window.
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .timeline
        .add_marker(2_100_000_000);
    h.run_steps(2);
    let l = h.state().loaded().unwrap();
    let times = |i: usize| -> Vec<u64> {
        l.pane_timeline(i)
            .unwrap()
            .markers()
            .iter()
            .map(|m| m.time)
            .collect()
    };
    assert_eq!(times(1), vec![2_100_000_000]);
    assert_eq!(times(2), vec![3_100_000_000]);
    assert!(
        l.pane_trace(2)
            .unwrap()
            .path
            .ends_with("epoch_4proc.prv.gz")
    );
    // A window of another trace is never the active one.
    h.state_mut().loaded_mut().unwrap().activate_pane(2);
    assert_eq!(h.state().loaded().unwrap().active_pane(), 1);
    // Closing A shows B.
    h.state_mut().close_trace();
    h.run_steps(2);
    assert_eq!(shown(&h), name(&b));
    assert!(h.state().other_traces().is_empty());
}

/// Waits for the Compare window's comparison.
fn compared(h: &mut Harness<'static, App>) {
    for _ in 0..500 {
        h.run_steps(1);
        let w = h.state_mut().compare_window().expect("the Compare window");
        if !w.computing() && w.comparison().is_some() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("no comparison");
}

/// EPOCH's 2-process run (A, shown) compared with its 4-process run (B, open too) in the
/// Compare window, the POP metrics left out, the scope panel shown or not; `None` without
/// the shared traces.
fn epoch_compared(
    scopes: bool,
) -> Option<(
    Harness<'static, App>,
    std::path::PathBuf,
    std::path::PathBuf,
)> {
    let root = crate::common::shared_traces()?;
    let dir = root.join("pypop_epoch_scaling");
    let (a, b) = (
        dir.join("epoch_2proc.prv.gz"),
        dir.join("epoch_4proc.prv.gz"),
    );
    let mut h = harness_with(LoadSource::File(b.clone()), None, (1300.0, 900.0), scopes);
    let ctx = h.ctx.clone();
    h.state_mut().open(&ctx, LoadSource::File(a.clone()));
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(2);
    h.state_mut().open_compare(0);
    h.state_mut().compare_window().unwrap().set_pop(false);
    compared(&mut h);
    Some((h, a, b))
}

/// `prvscope compare --csv` rows as (kind, scope, type) -> (a, b, delta).
fn cli_rows(args: &[&str]) -> std::collections::BTreeMap<(String, String, String), String> {
    let out = crate::common::stdout_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["compare", "--no-cache", "--csv", "--no-pop"])
            .args(["--rows", "scopes,states"])
            .args(args),
    );
    out.lines()
        .skip(1)
        .filter(|l| l.starts_with("scope,") || l.starts_with("state,"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                (f[0].to_owned(), f[1].to_owned(), f[2].to_owned()),
                format!("{},{},{}", f[3], f[4], f[5]),
            )
        })
        .collect()
}

#[test]
fn the_compare_window_gives_prvscope_compares_rows_and_shows_b_under_a_aligned() {
    let _shared = crate::common::shared();
    let Some((mut h, a, b)) = epoch_compared(false) else {
        return;
    };
    let rows = |h: &mut Harness<'static, App>| {
        let c = h
            .state_mut()
            .compare_window()
            .unwrap()
            .comparison()
            .unwrap()
            .clone();
        c.rows
            .iter()
            .map(|r| {
                let kind = match r.kind {
                    prvscope_compare::Kind::Scope => "scope",
                    prvscope_compare::Kind::State => "state",
                };
                (
                    (kind.to_owned(), r.name.clone(), r.ty.clone()),
                    format!("{},{},{}", r.a, r.b, r.delta()),
                )
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let (sa, sb) = (a.to_string_lossy(), b.to_string_lossy());
    assert_eq!(rows(&mut h), cli_rows(&[&sa, &sb]));
    // Aligned on the 3rd MPI_Allreduce of each run: the rows `compare --region` gives.
    h.state_mut()
        .compare_window()
        .unwrap()
        .set_region(Some(("50000002=10", 3)));
    compared(&mut h);
    let region = ["--region", "50000002=10", "--occurrence", "3"];
    let mut args: Vec<&str> = region.to_vec();
    args.extend([&*sa, &*sb]);
    assert_eq!(rows(&mut h), cli_rows(&args));
    // B under A: a window of B, shifted so that both show their region from its start.
    let c = h
        .state_mut()
        .compare_window()
        .unwrap()
        .comparison()
        .unwrap()
        .clone();
    h.get_by_label("Show B under A").click();
    h.run_steps(3);
    let l = h.state().loaded().unwrap();
    assert_eq!(l.pane_count(), 2);
    assert!(l.pane_is_guest(1));
    let (wa, wb) = (
        l.pane_timeline(0).unwrap().window(),
        l.pane_timeline(1).unwrap().window(),
    );
    assert_eq!(wa.start, c.a.region.t0);
    assert_eq!(wb.start, c.b.region.t0);
    assert_eq!(wa.span, wb.span);
    // Both rulers count from their region's start.
    assert_eq!(l.pane_timeline(0).unwrap().origin(), Some(c.a.region.t0));
    assert_eq!(l.pane_timeline(1).unwrap().origin(), Some(c.b.region.t0));
    h.snapshot("compare_epoch_2_and_4_aligned");
}

#[test]
fn a_scope_clicked_in_the_compare_window_shows_both_runs_time_per_thread_and_durations() {
    let _shared = crate::common::shared();
    let Some((mut h, _, _)) = epoch_compared(false) else {
        return;
    };
    h.get_by_label("MPI_Allreduce").click();
    compared(&mut h);
    for _ in 0..300 {
        h.run_steps(1);
        if h.state_mut().compare_window().unwrap().detail().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let w = h.state_mut().compare_window().unwrap();
    let c = w.comparison().unwrap().clone();
    let row = c.rows.iter().find(|r| r.name == "MPI_Allreduce").unwrap();
    let d = w.detail().expect("the scope's detail");
    // Each run's instances add up to the table's figure, per thread and in all.
    assert_eq!(d.per_thread(true).iter().sum::<u64>(), row.a);
    assert_eq!(d.per_thread(false).iter().sum::<u64>(), row.b);
    assert_eq!(d.per_thread(true).len(), 2);
    assert_eq!(d.per_thread(false).len(), 4);
    assert_eq!(d.durations(true).len() as u64, row.entries.0);
    assert_eq!(d.durations(false).len() as u64, row.entries.1);
    h.run_steps(2);
    h.snapshot("compare_epoch_2_and_4_allreduce");
}

#[test]
fn tiled_windows_stand_side_by_side_and_still_move_together() {
    let _shared = crate::common::shared();
    let mut h = three();
    h.state_mut().loaded_mut().unwrap().set_tiled(true);
    h.run_steps(3);
    let l = h.state().loaded().unwrap();
    let areas: Vec<egui::Rect> = (0..3).map(|i| l.pane_timeline(i).unwrap().area()).collect();
    for w in areas.windows(2) {
        assert!(w[0].right() <= w[1].left(), "{areas:?}");
        assert!((w[0].top() - w[1].top()).abs() < 1.0, "{areas:?}");
    }
    let start = windows(&h);
    h.event(Event::PointerMoved(over(&h, 2, 0.5)));
    h.step();
    h.event(Event::MouseWheel {
        unit: MouseWheelUnit::Line,
        delta: egui::vec2(0.0, 3.0),
        phase: TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: Modifiers::NONE,
    });
    h.step();
    let w = windows(&h);
    assert!(w[2].span < start[2].span);
    assert!(w.iter().all(|x| *x == w[2]), "{w:?}");
    h.snapshot("timeline_windows_three_tiled");
}

#[test]
fn with_several_traces_open_a_window_names_its_trace() {
    let _shared = crate::common::shared();
    let Some(root) = crate::common::shared_traces() else {
        return;
    };
    let dir = root.join("pypop_epoch_scaling");
    let (a, b) = (
        dir.join("epoch_2proc.prv.gz"),
        dir.join("epoch_4proc.prv.gz"),
    );
    let mut h = harness_with(LoadSource::File(a.clone()), None, (1300.0, 900.0), false);
    let ctx = h.ctx.clone();
    h.state_mut().open_pop(&ctx);
    h.run_steps(2);
    // A breakdown window, the load report and Find too.
    for _ in 0..300 {
        h.run_steps(1);
        if h.state().loaded().unwrap().scopes.analysis().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let l = h.state_mut().loaded_mut().unwrap();
    let key = l
        .scopes
        .analysis()
        .unwrap()
        .scopes
        .iter()
        .find(|s| s.name == "MPI_Allreduce")
        .unwrap()
        .key;
    l.scopes.open_breakdown(key);
    l.report.shown = true;
    h.state_mut().find_mut().open = true;
    h.run_steps(2);
    // One trace: the title alone.
    for title in [
        "POP metrics",
        "Breakdown: MPI_Allreduce",
        "Load report",
        "Find",
    ] {
        crate::common::window_titled(&h, title);
    }
    h.state_mut().open(&ctx, LoadSource::File(b.clone()));
    h.state_mut().wait_for_load(&ctx);
    h.state_mut().switch_trace(0);
    h.run_steps(3);
    for title in [
        "POP metrics",
        "Breakdown: MPI_Allreduce",
        "Load report",
        "Find",
    ] {
        crate::common::window_titled(&h, &format!("{title} · epoch_2proc.prv.gz"));
    }
    // The other trace shown (it took A's place in the list): A's windows go with A (Find
    // searches the trace shown).
    h.state_mut().switch_trace(0);
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("Breakdown: MPI_Allreduce")
            .is_none()
    );
    assert!(h.query_by_label_contains("POP metrics").is_none());
    crate::common::window_titled(&h, "Find · epoch_4proc.prv.gz");
}

#[test]
fn the_scope_table_shows_b_and_the_delta_beside_a_over_the_region_compared() {
    let _shared = crate::common::shared();
    let Some((mut h, _, _)) = epoch_compared(true) else {
        return;
    };
    for _ in 0..300 {
        h.run_steps(1);
        if h.state().loaded().unwrap().scopes.analysis().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    let c = h
        .state_mut()
        .compare_window()
        .unwrap()
        .comparison()
        .unwrap()
        .clone();
    let l = h.state().loaded().unwrap();
    let an = l.scopes.analysis().unwrap().clone();
    assert_eq!(
        (an.t0, an.t1),
        (c.a.region.t0, c.a.region.t1),
        "the whole run"
    );
    let mut seen = 0;
    for r in c
        .rows
        .iter()
        .filter(|r| r.kind == prvscope_compare::Kind::Scope)
    {
        let Some(sc) = an.scopes.iter().find(|s| s.name == r.name) else {
            continue;
        };
        // A's column is the table's own figure; B and the delta the comparison's.
        assert_eq!(sc.inclusive, r.a, "{} (ns traces)", r.name);
        assert_eq!(
            l.scopes.compared(sc.key),
            Some((r.b, r.delta())),
            "{}",
            r.name
        );
        seen += 1;
    }
    assert!(seen >= 5, "{seen}");
    h.get_by_label("B less A");
    // For the picture, a stand-in for boundary.F90 (the trace ships without it), so that the
    // panel shows its heat rather than the folders of this machine it looked in.
    let sources = crate::common::temp_dir("epoch-sources");
    let mut text = String::new();
    for k in 1..=2000 {
        let _ = writeln!(text, "! boundary.F90 line {k}");
    }
    std::fs::write(sources.join("boundary.F90"), text).unwrap();
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .scopes
        .add_folder(&sources);
    h.run_steps(3);
    assert!(
        h.query_by_label("Source file boundary.F90 not found.")
            .is_none()
    );
    h.snapshot("compare_scope_table_beside_b");
    // Other scope types than the comparison's: no B column (B was not analysed for them).
    let types = h.state().loaded().unwrap().scopes.types().to_vec();
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .scopes
        .set_types(vec![prvscope_analysis::scopes::ScopeType::new(50_000_002)]);
    for _ in 0..300 {
        h.run_steps(1);
        let l = h.state().loaded().unwrap();
        if l.scopes.analysis().is_some_and(|a| a.types.len() == 1) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    let l = h.state().loaded().unwrap();
    let key = an
        .scopes
        .iter()
        .find(|s| s.name == "MPI_Allreduce")
        .unwrap()
        .key;
    assert_eq!(l.scopes.compared(key), None);
    h.get_by_label_contains("over other scope types");
    h.state_mut().loaded_mut().unwrap().scopes.set_types(types);
    h.run_steps(3);
    // Another window: the columns would not be of the region compared, so they go.
    let w = TimeWindow {
        start: 1_000_000_000,
        span: 1_000_000_000,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(w);
    for _ in 0..300 {
        h.run_steps(1);
        let an = h.state().loaded().unwrap().scopes.analysis().map(|a| a.t0);
        if an == Some(w.start) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    let l = h.state().loaded().unwrap();
    let key = l.scopes.analysis().unwrap().scopes[0].key;
    assert_eq!(l.scopes.compared(key), None);
    assert!(h.query_by_label("B less A").is_none());
    h.get_by_label_contains("analyse that window to see its columns");
}

#[test]
fn a_trace_in_microseconds_under_one_in_nanoseconds_shows_the_same_time() {
    let _shared = crate::common::shared();
    let Some(root) = crate::common::shared_traces() else {
        return;
    };
    // prime in ns (A), and the same records read as µs (B: a run 1000 times as long).
    let prv = root.join("extrae_mpi_prime16/prime_v0.prv");
    let text = std::fs::read_to_string(&prv).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    assert!(header.contains("_ns:"));
    let us = crate::common::temp_dir("prime-us").join("prime_us.prv");
    std::fs::write(
        &us,
        format!("{}\n{rest}", header.replacen("_ns:", "_us:", 1)),
    )
    .unwrap();
    let mut h = harness_with(LoadSource::File(us.clone()), None, (1200.0, 800.0), false);
    let ctx = h.ctx.clone();
    h.state_mut().open(&ctx, LoadSource::File(prv.clone()));
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(2);
    assert!(
        h.state()
            .loaded()
            .unwrap()
            .trace
            .path
            .ends_with("prime_v0.prv")
    );
    h.state_mut().new_timeline_of(0, 0);
    h.run_steps(2);
    // A at 600-900 ms: B (µs ticks) at the same time, 600,000-900,000 of its ticks.
    let w = TimeWindow {
        start: 600_000_000,
        span: 300_000_000,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(w);
    h.step();
    let l = h.state().loaded().unwrap();
    let guest = l.pane_timeline(1).unwrap();
    assert_eq!(
        guest.window(),
        TimeWindow {
            start: 600_000,
            span: 300_000
        }
    );
    assert_eq!(guest.drawn_window(), Some(guest.window()));
    // B moved: A follows, in its ns.
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .pane_timeline_mut(1)
        .unwrap()
        .zoom_to(TimeWindow {
            start: 100_000,
            span: 50_000,
        });
    h.step();
    h.step();
    let l = h.state().loaded().unwrap();
    assert_eq!(
        l.timeline.window(),
        TimeWindow {
            start: 100_000_000,
            span: 50_000_000
        }
    );
    // A marker at A's 120 ms is at B's 120,000 µs.
    h.state_mut()
        .loaded_mut()
        .unwrap()
        .timeline
        .add_marker(120_000_000);
    h.run_steps(2);
    let l = h.state().loaded().unwrap();
    let b: Vec<u64> = l
        .pane_timeline(1)
        .unwrap()
        .markers()
        .iter()
        .map(|m| m.time)
        .collect();
    assert_eq!(b, vec![120_000]);
    // Copy on B, paste on A: the same time, in A's ticks.
    let l = h.state_mut().loaded_mut().unwrap();
    l.copy_pane(1);
    l.timeline.zoom_to(w);
    l.set_pane_group(0, None);
    h.step();
    let ctx = h.ctx.clone();
    let l = h.state_mut().loaded_mut().unwrap();
    l.paste_on_pane(&ctx, 0, true).unwrap();
    assert_eq!(
        l.timeline.window(),
        TimeWindow {
            start: 100_000_000,
            span: 50_000_000
        }
    );
}

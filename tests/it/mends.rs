//! Small things a Paraver user trips on in the viewer: the toolbar's labels stand before their
//! boxes, a cfg's view is told apart from the built-in one of the same name, a few rows fill
//! the timeline's height, the in-app browser tells a missing path from a file, Find zooms to
//! every occurrence (the first too) and Escape closes it, the marker distance stays inside
//! the side panel.

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use prvscope_viewer::file_dialog;
use prvscope_viewer::loader::LoadSource;

use crate::viewer::harness_with;

#[test]
fn the_toolbars_labels_stand_before_their_boxes() {
    let _shared = crate::common::shared();
    let h = harness_with(LoadSource::Demo, None, (1400.0, 800.0), false);
    for name in ["Colours", "Pixel"] {
        let label = h.get_by_role_and_label(Role::Label, name).rect();
        let boxed = h.get_by_role_and_label(Role::ComboBox, name).rect();
        assert!(
            label.right() <= boxed.left() && (label.center().y - boxed.center().y).abs() < 4.0,
            "{name}: label {label:?}, box {boxed:?}"
        );
    }
}

#[test]
fn a_cfgs_view_is_told_apart_from_the_built_in_view_of_its_name() {
    let _shared = crate::common::shared();
    let Some(dir) = crate::common::shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(dir.join("extrae_mpi_prime16/prime_v0.prv")),
        None,
        (1400.0, 800.0),
        false,
    );
    let ctx = h.ctx.clone();
    h.state_mut().open_cfg(
        &ctx,
        dir.join("../paraver_cfgs/paraver/mpi/views/MPI_call.cfg"),
    );
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    // The built-in view and the cfg's window, both "MPI call", each said so in the list.
    h.get_by_label("MPI call (cfg)");
    h.get_by_role_and_label(Role::Button, "MPI call");
}

#[test]
fn a_few_rows_fill_the_timelines_height() {
    let _shared = crate::common::shared();
    let Some(dir) = crate::common::shared_traces() else {
        return;
    };
    // Two processes: two rows, not two bands of 80 pixels over a black half.
    let h = harness_with(
        LoadSource::File(dir.join("pypop_epoch_scaling/epoch_2proc.prv.gz")),
        None,
        (1200.0, 800.0),
        false,
    );
    let t = &h.state().loaded().unwrap().timeline;
    assert_eq!(t.rows().len(), 2);
    let filled = t.row_height() * t.rows().len() as f32;
    assert!(
        (filled - t.area().height()).abs() < 1.0,
        "{filled} of {}",
        t.area().height()
    );
}

#[test]
fn the_in_app_browser_says_a_path_does_not_exist() {
    let _shared = crate::common::shared();
    file_dialog::use_builtin(true);
    let mut h = harness_with(LoadSource::Demo, None, (1200.0, 800.0), false);
    crate::dialogs::menu(&mut h, "File", "Open…");
    crate::dialogs::type_path(&mut h, "/nonexistent/folder/x.prv");
    h.get_by_label("/nonexistent/folder/x.prv does not exist");
    assert!(h.query_by_label_contains("is not a folder").is_none());
}

#[test]
fn find_zooms_to_every_occurrence_the_first_too_and_escape_closes_it() {
    let _shared = crate::common::shared();
    let mut h = harness_with(LoadSource::Demo, None, (1400.0, 800.0), false);
    let whole = h.state().loaded().unwrap().timeline.window();
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run_steps(2);
    h.event(egui::Event::Text("synchroniz".into()));
    h.run_steps(2);
    h.key_press(Key::Enter);
    h.run_steps(2);
    let o = h.state().find().last.expect("an occurrence");
    let w = h.state().loaded().unwrap().timeline.window();
    assert!(
        w.span < whole.span,
        "the first occurrence is zoomed to: {w:?}"
    );
    assert!(w.start <= o.begin && o.end <= w.end(), "{w:?} {o:?}");
    h.key_press(Key::Escape);
    h.run_steps(2);
    assert!(!h.state().find().open, "Escape closes Find");
}

#[test]
fn the_distance_between_markers_stays_inside_the_side_panel() {
    let _shared = crate::common::shared();
    let mut h = harness_with(LoadSource::Demo, None, (1400.0, 800.0), false);
    {
        let t = &mut h.state_mut().loaded_mut().unwrap().timeline;
        t.add_marker(1_000_000);
        t.add_marker(3_500_000);
    }
    h.run_steps(3);
    let d = h.get_by_label_contains("+2.5").rect();
    let side = h.state().loaded().unwrap().timeline.area().left();
    assert!(
        d.right() <= side,
        "the distance {d:?} ends before the rows at {side}"
    );
}

#[test]
fn the_add_runs_dialog_starts_in_the_traces_folder() {
    let _shared = crate::common::shared();
    let Some(dir) = crate::common::shared_traces() else {
        return;
    };
    file_dialog::use_builtin(true);
    let mut h = harness_with(
        LoadSource::File(dir.join("pypop_epoch_scaling/epoch_2proc.prv.gz")),
        None,
        (1400.0, 900.0),
        true,
    );
    let ctx = h.ctx.clone();
    h.state_mut().open_pop(&ctx);
    // Until the metrics are in (a minute at most: the whole suite in parallel, a debug build).
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_mins(1) {
        h.run_steps(1);
        if !h.state_mut().pop_window().unwrap().busy() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    h.get_by_label("Add runs of the series…").click();
    h.run_steps(3);
    // The browser lists the trace's folder: the other runs of the series are there.
    h.get_by_label("Add runs of the series");
    h.get_by_label("epoch_4proc.prv.gz");
}

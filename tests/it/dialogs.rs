//! File dialogs that cannot open fall back to the in-app browser and say why; every export
//! either writes its file or says what went wrong.

use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_viewer::app::App;
use prvscope_viewer::file_dialog;
use prvscope_viewer::loader::LoadSource;

use crate::common::{shared_traces, temp_dir};
use crate::viewer::harness_with;

pub fn menu(h: &mut Harness<'static, App>, menu: &str, item: &str) {
    h.get_by_label(menu).click();
    h.run_steps(2);
    h.get_by_label(item).click();
    h.run_steps(3);
}

pub fn type_path(h: &mut Harness<'static, App>, text: &str) {
    let field = h.get_by_label("Path");
    field.focus();
    h.step();
    // Replace what the field holds: select all, then type.
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::A);
    h.step();
    h.get_by_label("Path").type_text(text);
    h.step();
    h.key_press(Key::Enter);
    h.run_steps(3);
}

#[test]
fn open_falls_back_to_the_in_app_browser_which_says_why_and_opens_the_trace() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    file_dialog::use_builtin(true);
    let mut h = harness_with(LoadSource::Demo, None, (1200.0, 800.0), false);
    menu(&mut h, "File", "Open…");
    h.get_by_label("Open a trace");
    h.get_by_label_contains("the in-app file browser was asked for");
    let trace = root.join("null_mode/threads_null.prv");
    type_path(&mut h, &trace.display().to_string());
    let ctx = h.ctx.clone();
    h.state_mut().wait_for_load(&ctx);
    h.run_steps(3);
    h.get_by_label_contains("threads_null.prv");
    assert!(h.query_by_label("Open a trace").is_none());
    // Every dialog now starts in the trace's folder, not the working directory.
    assert_eq!(
        h.state().start_folder().as_deref(),
        Some(root.join("null_mode").as_path())
    );
}

#[test]
fn an_export_through_the_browser_writes_its_file_or_says_why_not() {
    let _shared = crate::common::shared();
    file_dialog::use_builtin(true);
    let dir = temp_dir("dialogs");
    let blocker = dir.join("a_folder");
    std::fs::create_dir_all(&blocker).unwrap();
    let mut h = harness_with(LoadSource::Demo, None, (1200.0, 800.0), false);
    // CSV: to a folder, under the name given.
    menu(&mut h, "File", "Export time per value as CSV…");
    h.get_by_label("Export");
    type_path(&mut h, &dir.display().to_string());
    h.get_by_label("Save").click();
    h.run_steps(3);
    let written = dir.join("time_per_value.csv");
    assert!(
        std::fs::read_to_string(&written)
            .unwrap()
            .starts_with("thread,")
    );
    h.get_by_label_contains(&format!("saved {}", written.display()));
    // A name that cannot be written (a folder is there): the status bar says so.
    menu(&mut h, "File", "Export time per value as CSV…");
    type_path(&mut h, &dir.display().to_string());
    let name = h.get_by_label("File name");
    name.focus();
    h.step();
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::A);
    h.get_by_label("File name").type_text("a_folder");
    h.step();
    h.get_by_label("Save").click();
    h.run_steps(3);
    h.get_by_label_contains(&format!("could not save {}", blocker.display()));
    // Cancelling says that nothing was written.
    menu(&mut h, "File", "Export time per value as CSV…");
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    h.get_by_label("not exported: no file was chosen");
    // A PNG that cannot be written says so too.
    let bad = std::path::PathBuf::from("/nonexistent-folder/timeline.png");
    h.state_mut().export_png(bad.clone());
    h.run_steps(6);
    h.get_by_label_contains(&format!("could not save {}", bad.display()));
}

#[test]
fn save_view_as_paraver_cfg_writes_a_cfg_the_engine_computes_over_the_visible_window() {
    let _shared = crate::common::shared();
    file_dialog::use_builtin(true);
    let dir = temp_dir("dialogs-cfg");
    let mut h = harness_with(LoadSource::Demo, None, (1200.0, 800.0), false);
    {
        let l = h.state_mut().loaded_mut().unwrap();
        let w = prvscope_viewer::frame::TimeWindow {
            start: 5_000_000,
            span: 2_000_000,
        };
        l.timeline.zoom_to(w);
    }
    h.run_steps(2);
    menu(&mut h, "File", "Save view as Paraver cfg…");
    type_path(&mut h, &dir.display().to_string());
    h.get_by_label("Save").click();
    h.run_steps(3);
    let path = dir.join("view.cfg");
    h.get_by_label_contains(&format!("saved {}", path.display()));
    let text = std::fs::read_to_string(&path).unwrap();
    let cfg = prvscope_paraver::cfg::Cfg::parse("view.cfg", &text).unwrap();
    let app = h.state();
    let trace = &app.loaded().unwrap().trace;
    let out = prvscope_paraver::paramedir::compute(
        trace,
        &cfg,
        &prvscope_paraver::paramedir::Options {
            trace_units: true,
            ..Default::default()
        },
    )
    .unwrap();
    let prvscope_paraver::paramedir::OutcomeKind::Timeline { one, .. } = out.kind else {
        panic!("a timeline");
    };
    // The visible window, on every thread (the values are checked against BSC's paramedir and
    // the store in crates/paraver/tests/saved_view.rs).
    let mut rows = std::collections::BTreeSet::new();
    for line in one.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let begin: u64 = f[1].parse().unwrap();
        let len: u64 = f[2].parse().unwrap();
        assert!(begin + len >= 5_000_000 && begin <= 7_000_000, "{line}");
        let thread: usize = f[0].rsplit('.').next().unwrap().parse().unwrap();
        let task: usize = f[0].split('.').nth(1).unwrap().parse().unwrap();
        rows.insert((task, thread));
    }
    assert_eq!(rows.len(), 8, "every thread");
}

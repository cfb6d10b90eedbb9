//! File > Save window as trace…: the visible window of a trace written as a trace opens
//! showing the picture of the window it was cut from.

use egui_kittest::kittest::Queryable;
use prvscope_store::signal::SignalSpec;
use prvscope_viewer::file_dialog;
use prvscope_viewer::frame::TimeWindow;
use prvscope_viewer::loader::LoadSource;
use prvscope_viewer::render::{RenderOptions, render};
use prvscope_viewer::rows::Level;

use crate::common::{load, shared_traces, temp_dir};
use crate::dialogs::{menu, type_path};
use crate::viewer::harness_with;

fn picture(trace: &prvscope_store::Trace, from: u64, to: u64) -> Vec<u8> {
    let opts = RenderOptions {
        view: SignalSpec::States,
        mode: None,
        level: Level::Thread,
        from: Some(from),
        to: Some(to),
        width: 700,
        height: 160,
        comms: false,
        scale: prvscope_viewer::view::Scale::default(),
        log: false,
    };
    render(trace, &opts).unwrap().image.into_raw()
}

#[test]
fn a_saved_window_opens_showing_the_window_it_was_cut_from() {
    let Some(shared) = shared_traces() else {
        return;
    };
    file_dialog::use_builtin(true);
    let dir = temp_dir("save-window");
    let path = shared.join("extrae_mpi_prime16/prime_v0.prv");
    let mut h = harness_with(
        LoadSource::File(path.clone()),
        Some(SignalSpec::States),
        (1100.0, 520.0),
        false,
    );
    let w = TimeWindow {
        start: 600_000_000,
        span: 400_000_000,
    };
    h.state_mut().loaded_mut().unwrap().timeline.zoom_to(w);
    h.run_steps(3);
    h.snapshot("save_window_original");
    let mut snapshots = h.take_snapshot_results();
    menu(&mut h, "File", "Save window as trace…");
    type_path(&mut h, &dir.display().to_string());
    h.get_by_label("Save").click();
    let out = dir.join("prime_v0.cut.prv");
    let status = status_after(&mut h, "saved", 200);
    assert!(
        status.starts_with(&format!("saved {}", out.display())),
        "{status}"
    );
    assert!(status.contains("prime_v0.cut.cutter.xml"), "{status}");
    for ext in ["pcf", "row", "cutter.xml"] {
        assert!(dir.join(format!("prime_v0.cut.{ext}")).exists(), "{ext}");
    }
    // The XML beside it is Paraver's cutter, with the window.
    let xml = std::fs::read_to_string(dir.join("prime_v0.cut.cutter.xml")).unwrap();
    let opts = prvscope_paraver::cut::ToolOptions::parse(&xml)
        .unwrap()
        .cutter
        .unwrap();
    assert_eq!((opts.min_time, opts.max_time), (w.start, w.end()));
    // The cut, drawn from 0, is the window's picture pixel for pixel.
    let original = load(&path);
    let cut = load(&out);
    assert_eq!(cut.header.end_time, w.span);
    assert_eq!(
        picture(&cut, 0, w.span),
        picture(&original, w.start, w.end())
    );
    // A save that cannot be written says why, and leaves nothing.
    let bad = std::path::PathBuf::from("/nonexistent-folder/w.prv");
    let ctx = h.ctx.clone();
    h.state_mut().save_window_as_trace(&ctx, bad.clone());
    let status = status_after(&mut h, "could not save", 100);
    assert!(
        status.starts_with(&format!("could not save {}", bad.display())),
        "{status}"
    );
    snapshots.extend_harness(&mut h);
    drop(h);
    // And it opens in the viewer.
    let mut h2 = harness_with(
        LoadSource::File(out.clone()),
        Some(SignalSpec::States),
        (1100.0, 520.0),
        false,
    );
    h2.run_steps(3);
    h2.snapshot("save_window_cut");
    snapshots.extend_harness(&mut h2);
    snapshots.unwrap();
}

/// The status bar's text once it starts with `prefix` (a background save ended), or after
/// `tries` frames 20 ms apart.
fn status_after(
    h: &mut egui_kittest::Harness<'static, prvscope_viewer::app::App>,
    prefix: &str,
    tries: usize,
) -> String {
    // At least `tries` frames, and a minute at most: a loaded machine (the whole suite in
    // parallel, a debug build) takes longer than frames count.
    let started = std::time::Instant::now();
    let mut frames = 0;
    while frames < tries || started.elapsed() < std::time::Duration::from_mins(1) {
        h.run_steps(1);
        frames += 1;
        if h.state().status().starts_with(prefix) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.state().status().to_owned()
}

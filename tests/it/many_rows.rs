//! The object axis at thousands of threads: more rows than points are summarised (each point
//! row the draw mode over the threads it holds, labelled with its range), and zoomed and
//! scrolled along the rows as the window is along time.

use egui::Modifiers;
use prvscope_viewer::app::App;
use prvscope_viewer::loader::LoadSource;
use prvscope_viewer::rows::{RowItem, RowKind};

use crate::viewer::{harness_with, wheel, wheel_with};

/// A generated trace of `threads` threads, 64 to a task.
fn many_threads(name: &str, threads: u32, bytes: u64) -> std::path::PathBuf {
    let path = crate::common::temp_dir(&format!("many_rows_{name}")).join(name);
    prvscope_import::synth::generate(
        &path,
        &prvscope_import::synth::GenOptions {
            threads,
            threads_per_task: 64,
            target_bytes: bytes,
            ..prvscope_import::synth::GenOptions::default()
        },
    )
    .unwrap();
    path
}

/// Every thread of `range` on exactly one drawn row, in order.
fn covers_in_order(rows: &[RowItem], range: std::ops::Range<usize>) {
    let threads: Vec<usize> = rows.iter().flat_map(|r| r.threads.clone()).collect();
    assert_eq!(threads, range.collect::<Vec<_>>());
}

fn timeline<'h>(h: &'h egui_kittest::Harness<'_, App>) -> &'h prvscope_viewer::timeline::Timeline {
    &h.state().loaded().unwrap().timeline
}

#[test]
fn thousands_of_threads_open_summarised_and_zoom_along_the_rows_to_single_threads() {
    let _shared = crate::common::shared();
    let prv = many_threads("t4096.prv", 4096, 3 << 20);
    let mut h = harness_with(LoadSource::File(prv), None, (1200.0, 700.0), false);
    let (area, rows) = {
        let t = timeline(&h);
        (t.area(), t.rows().to_vec())
    };
    // Opened with every thread on screen: one summary row per point row of the area.
    assert!(timeline(&h).fits_rows());
    assert!(timeline(&h).rows_summarised());
    assert_eq!(timeline(&h).all_rows().len(), 4096);
    assert_eq!(rows.len(), area.height().floor() as usize);
    covers_in_order(&rows, 0..4096);
    assert_eq!(
        rows,
        prvscope_viewer::rows::fit(timeline(&h).all_rows(), rows.len()).unwrap()
    );
    let span = rows.iter().find(|r| r.threads.len() > 1).unwrap();
    assert_eq!(span.kind, RowKind::Span);
    assert_eq!(
        span.label,
        format!(
            "{} – {}",
            h.state()
                .loaded()
                .unwrap()
                .trace
                .thread_name(span.threads.start),
            h.state()
                .loaded()
                .unwrap()
                .trace
                .thread_name(span.threads.end - 1)
        )
    );
    // A summary row's tooltip names its range.
    let y = area.top() + 100.5;
    h.event(egui::Event::PointerMoved(egui::pos2(area.center().x, y)));
    h.run_steps(2);
    let hovered = timeline(&h).hovered().unwrap();
    assert_eq!(hovered.row_label, timeline(&h).rows()[100].label);

    // Ctrl+wheel at the row under the pointer: fewer rows, that row still under it.
    let anchor_thread = timeline(&h).rows()[100].threads.start;
    for _ in 0..40 {
        if !timeline(&h).rows_summarised() && timeline(&h).rows().len() <= 64 {
            break;
        }
        wheel_with(&mut h, egui::pos2(area.center().x, y), 3.0, Modifiers::CTRL);
    }
    let t = timeline(&h);
    assert!(t.rows().len() <= 64, "{} rows", t.rows().len());
    assert!(!t.rows_summarised());
    assert!(
        t.rows()
            .iter()
            .all(|r| matches!(r.kind, RowKind::Thread(_)))
    );
    let shown = t.shown_rows();
    covers_in_order(t.rows(), shown.clone());
    assert!(
        shown.contains(&anchor_thread),
        "{anchor_thread} left the rows shown {shown:?}"
    );
    assert!(t.row_height() >= area.height() / 64.0 - 0.01);
    // The wheel over the row names scrolls the rows shown by a tenth of them per line.
    let label_x = area.left() - 40.0;
    wheel(&mut h, egui::pos2(label_x, area.center().y), -1.0);
    let after = timeline(&h).shown_rows();
    assert_eq!(after.len(), shown.len());
    assert!(after.start > shown.start, "{after:?} after {shown:?}");
    // Zoomed out again to every row: summarised as it opened.
    for _ in 0..60 {
        if timeline(&h).shown_rows().len() == 4096 {
            break;
        }
        wheel_with(
            &mut h,
            egui::pos2(area.center().x, y),
            -3.0,
            Modifiers::CTRL,
        );
    }
    assert_eq!(timeline(&h).shown_rows(), 0..4096);
    assert_eq!(timeline(&h).rows(), rows.as_slice());
}

#[test]
fn rows_that_fit_at_a_point_are_not_summarised_and_fit_off_scrolls_them() {
    let _shared = crate::common::shared();
    let prv = many_threads("t300.prv", 300, 1 << 20);
    let mut h = harness_with(LoadSource::File(prv), None, (1200.0, 700.0), false);
    let t = timeline(&h);
    // 300 rows fit in the area's 600-odd points: every one a thread row of its own.
    assert!(t.fits_rows() && !t.rows_summarised());
    assert_eq!(t.rows().len(), 300);
    covers_in_order(t.rows(), 0..300);
    // Fit off (F): readable rows that scroll; the rows shown are all of them.
    h.key_press(egui::Key::F);
    h.run_steps(2);
    let t = timeline(&h);
    assert!(!t.fits_rows());
    assert!((t.row_height() - prvscope_viewer::timeline::MIN_ROW_HEIGHT).abs() < 1e-3);
    assert_eq!(t.rows().len(), 300);
    // Ctrl+wheel from scrolling rows zooms into the rows on screen, and fits them.
    let area = t.area();
    let on_screen = (area.height() / t.row_height()).floor() as usize;
    wheel_with(&mut h, area.center(), 1.0, Modifiers::CTRL);
    let t = timeline(&h);
    assert!(t.fits_rows());
    assert!(t.shown_rows().len() < on_screen, "{:?}", t.shown_rows());
    assert!(t.shown_rows().end <= on_screen);
}

#[test]
fn rows_pasted_on_another_window_keep_the_rows_shown() {
    let _shared = crate::common::shared();
    let prv = many_threads("t1024.prv", 1024, 1 << 20);
    let mut h = harness_with(LoadSource::File(prv), None, (1200.0, 700.0), false);
    let ctx = h.ctx.clone();
    let l = h.state_mut().loaded_mut().unwrap();
    l.timeline.show_rows(100..164);
    let copy = l.timeline.rows_copy();
    let mut other = prvscope_viewer::timeline::Timeline::new(&l.trace);
    other.paste_rows(&ctx, &l.trace, &copy).unwrap();
    assert_eq!(other.shown_rows(), 100..164);
    covers_in_order(other.rows(), 100..164);
    assert_eq!(other.rows(), l.timeline.rows());
}

/// A frame summarising tens of thousands of threads is built on a worker: the window's
/// frames do not wait for it, and what is shown once it lands is the frame built on the spot.
#[test]
fn frames_of_tens_of_thousands_of_threads_are_built_on_a_worker_and_then_shown() {
    use prvscope_viewer::frame::{self, FrameRequest};
    use prvscope_viewer::timeline::BUILT_ON_WORKERS;
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    let _alone = crate::common::alone();
    let prv = many_threads("t32768.prv", 32_768, 4 << 20);
    let mut h = harness_with(LoadSource::File(prv), None, (1400.0, 800.0), false);
    let settle = |h: &mut egui_kittest::Harness<'_, App>| {
        let deadline = Instant::now() + Duration::from_mins(2);
        loop {
            h.step();
            let t = timeline(h);
            if !t.is_redrawing() && t.drawn_window() == Some(t.window()) {
                break;
            }
            assert!(Instant::now() < deadline, "the frame never landed");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let before = BUILT_ON_WORKERS.load(Ordering::Relaxed);
    settle(&mut h);
    let area = timeline(&h).area();
    let threads: u64 = timeline(&h)
        .rows()
        .iter()
        .map(|r| r.threads.len() as u64)
        .sum();
    assert_eq!(threads, 32_768);
    assert!(threads * area.width() as u64 > prvscope_viewer::timeline::HEAVY_THREAD_COLUMNS);
    // A wheel step in: built on a worker too, then shown.
    wheel(&mut h, area.center(), 2.0);
    settle(&mut h);
    assert!(BUILT_ON_WORKERS.load(Ordering::Relaxed) >= before + 2);
    let t = timeline(&h);
    let c = t.config();
    let here = frame::build(&FrameRequest {
        view: t.signals(),
        coloring: t.coloring(),
        rows: t.rows(),
        visible: 0..t.rows().len(),
        rect: t.area(),
        row_height: t.row_height(),
        window: t.window(),
        flags: c.flags,
        mode: c.mode,
        scale: c.scale,
    });
    assert!(!here.legend.is_empty());
    assert_eq!(t.legend(), here.legend.as_slice());
    assert_eq!(t.frame_scale(), here.scale);
}

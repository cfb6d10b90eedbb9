//! The timeline and the scope panel on their own: each built from a trace written in memory,
//! drawn in a bare egui harness (no application around it), driven by the pointer and observed
//! through the widget's public methods.

use std::path::Path;

use egui::{Event, Modifiers, MouseWheelUnit, TouchPhase, pos2, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prvscope_import::{LoadOptions, LoadReport, Pcf, Trace};
use prvscope_viewer::frame::TimeWindow;
use prvscope_viewer::scope_panel::ScopePanel;
use prvscope_viewer::settings::RecentFiles;
use prvscope_viewer::timeline::{Pinned, Timeline};

const PCF: &str = "DEFAULT_OPTIONS\n\nNULL_VALUE N\n\nSTATES\n0 Idle\n1 Running\n5 Synchronization\n\n\
EVENT_TYPE\n0 60000019 User function\nVALUES\n1 main\n2 solve\n\n";

/// A one-task trace of `threads` threads ending at `end` ns, from its body lines.
fn trace(threads: u32, end: u64, body: &str) -> Trace {
    let text =
        format!("#Paraver (01/01/2026 at 00:00):{end}_ns:1({threads}):1:1({threads}:1)\n{body}");
    let pcf = Pcf::parse(
        PCF.as_bytes(),
        Path::new("w.pcf"),
        &mut LoadReport::default(),
    );
    prvscope_import::load_bytes(
        Path::new("w.prv"),
        text.as_bytes(),
        Some(pcf),
        &LoadOptions::default(),
    )
    .unwrap()
}

/// Thread 1 runs over [0, 500) and synchronises over [500, 1000); thread 2 runs throughout.
/// main [0, 1000) on both, solve [100, 400) on thread 1.
fn two_threads() -> Trace {
    let t = trace(
        2,
        1000,
        "1:1:1:1:1:0:500:1\n1:1:1:1:1:500:1000:5\n1:2:1:1:2:0:1000:1\n\
2:1:1:1:1:0:60000019:1\n2:2:1:1:2:0:60000019:1\n2:1:1:1:1:100:60000019:2\n\
2:1:1:1:1:400:60000019:N\n2:1:1:1:1:1000:60000019:N\n2:2:1:1:2:1000:60000019:N\n",
    );
    assert!(t.report.is_empty(), "{:?}", t.report);
    t
}

fn timeline(trace: Trace) -> Harness<'static, (Trace, Timeline)> {
    let tl = Timeline::new(&trace);
    let mut h = Harness::builder()
        .with_size(vec2(900.0, 300.0))
        .build_ui_state(
            |ui, (trace, tl): &mut (Trace, Timeline)| tl.ui(ui, trace),
            (trace, tl),
        );
    h.run_steps(3);
    h
}

/// The screen point of tick `t` on drawn row `row`.
fn point(h: &Harness<'_, (Trace, Timeline)>, row: usize, t: f64) -> egui::Pos2 {
    let tl = &h.state().1;
    pos2(
        tl.window().x_from_time(t, tl.area()),
        tl.area().top() + (row as f32 + 0.5) * tl.row_height(),
    )
}

#[test]
fn a_timeline_alone_pins_the_point_clicked() {
    let mut h = timeline(two_threads());
    assert_eq!(
        h.state().1.window(),
        TimeWindow {
            start: 0,
            span: 1000
        }
    );
    assert_eq!(h.state().1.rows().len(), 2);
    assert_eq!(h.state().1.pinned(), None);
    let p = point(&h, 1, 750.0);
    crate::common::click_at(&mut h, p);
    h.run_steps(2);
    let Some(Pinned { row, time }) = h.state().1.pinned() else {
        panic!("no point pinned");
    };
    assert_eq!(row, 1);
    // Within the ticks of one pixel of the 1000-tick window.
    let per_pixel = 1000.0 / f64::from(h.state().1.area().width());
    assert!((time as f64 - 750.0).abs() <= per_pixel.ceil(), "{time}");
}

#[test]
fn a_timeline_alone_zooms_at_the_pointer() {
    let mut h = timeline(two_threads());
    let p = point(&h, 0, 250.0);
    h.hover_at(p);
    h.run_steps(1);
    h.event(Event::MouseWheel {
        unit: MouseWheelUnit::Line,
        delta: vec2(0.0, 1.0),
        phase: TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(2);
    let tl = &h.state().1;
    // One line of wheel keeps 80 % of the span, and tick 250 stays under the pointer.
    assert_eq!(tl.window().span, 800);
    let under = tl.window().time_from_x(p.x, tl.area());
    assert!((under - 250.0).abs() <= 2.0, "{under}");
}

#[test]
fn a_scope_panel_alone_lists_the_scopes_and_outlines_the_one_clicked() {
    let trace = two_threads();
    let panel = ScopePanel::new(&trace, &RecentFiles::default());
    let window = TimeWindow {
        start: 0,
        span: 1000,
    };
    let mut h = Harness::builder()
        .with_size(vec2(900.0, 600.0))
        .build_ui_state(
            move |ui, p: &mut ScopePanel| {
                p.update(ui.ctx(), window);
                p.ui(ui);
            },
            panel,
        );
    let settle = |h: &mut Harness<'_, ScopePanel>| {
        for _ in 0..500 {
            h.run_steps(1);
            if !h.state().is_busy() && h.state().analysis().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        h.run_steps(2);
    };
    settle(&mut h);
    let a = h.state().analysis().expect("an analysis").clone();
    let solve = a.scopes.iter().find(|s| s.name == "solve").unwrap();
    assert_eq!((solve.inclusive, solve.entries), (300, 1));
    assert_eq!(h.state().selected(), None);
    h.get_by_label("solve").click();
    h.run_steps(1);
    assert_eq!(h.state().selected(), Some(solve.key));
    // The intervals are computed in the background; wait for them (at most 10 s).
    for _ in 0..2000 {
        if h.state().highlight().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
        h.run_steps(1);
    }
    let outlined = h.state().highlight().expect("the scope's intervals");
    assert_eq!(*outlined, [vec![(100, 400)], vec![]]);
}

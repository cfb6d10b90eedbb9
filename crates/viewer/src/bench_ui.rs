//! `prvscope TRACE --bench-ui`: the viewer measures itself. It opens the trace, waits for the
//! first complete frame (the first view's rows drawn), replays a fixed interaction with
//! continuous repaint (20 wheel steps in and 20 out at the timeline's centre, 10 drags of
//! 200 pixels, Home, the View menu opened and closed), prints one JSON line and exits:
//!
//! `{"load_s", "first_frame_s", "frames", "median_ms", "p95_ms", "max_ms", "app_median_ms",
//! "app_max_ms"}`: seconds from the start to the trace loaded and to its first complete
//! frame; over the interaction, the time from the start of one frame to the next (the
//! rasterization and the wait for the screen included) and the app's own share of a frame
//! as eframe reports it (its code, egui's layout and the tessellation).

use std::time::Instant;

use egui::{Event, Key, Modifiers, PointerButton, Pos2, Rect, Ui, vec2};

use crate::app::App;

/// The viewer under measurement.
pub struct BenchUi {
    app: App,
    m: Measure,
}

/// What is measured, and the interaction's progress.
struct Measure {
    started: Instant,
    load_s: Option<f64>,
    first_frame_s: Option<f64>,
    /// The events of each frame of the interaction, once the first frame is drawn.
    script: Vec<Vec<Event>>,
    next: usize,
    last_frame: Option<Instant>,
    /// Frame to frame, and the app's share, over the interaction (ms).
    gaps: Vec<f64>,
    own: Vec<f64>,
    done: bool,
    /// The timeline windows the interaction ran on (one synchronized group).
    windows: usize,
}

/// The fixed interaction over the timeline's `area`, a frame's events at a time; `menu`
/// is where the View menu's button is.
fn script(area: Rect, menu: Option<Rect>) -> Vec<Vec<Event>> {
    let centre = area.center();
    let wheel = |dy: f32| Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: vec2(0.0, dy),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
        modifiers: Modifiers::NONE,
    };
    let button = |pos: Pos2, pressed: bool| Event::PointerButton {
        pos,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    let key = |key: Key, pressed: bool| Event::Key {
        key,
        physical_key: None,
        pressed,
        repeat: false,
        modifiers: Modifiers::NONE,
    };
    let mut s = vec![vec![Event::PointerMoved(centre)]];
    s.extend((0..20).map(|_| vec![wheel(1.0)]));
    s.extend((0..20).map(|_| vec![wheel(-1.0)]));
    for k in 0..10 {
        let dx = if k % 2 == 0 { 200.0 } else { -200.0 };
        let from = centre - vec2(dx / 2.0, 0.0);
        s.push(vec![Event::PointerMoved(from)]);
        s.push(vec![button(from, true)]);
        for step in 1..=4 {
            s.push(vec![Event::PointerMoved(
                from + vec2(dx * step as f32 / 4.0, 0.0),
            )]);
        }
        s.push(vec![button(from + vec2(dx, 0.0), false)]);
    }
    s.push(vec![key(Key::Home, true), key(Key::Home, false)]);
    if let Some(m) = menu {
        s.push(vec![Event::PointerMoved(m.center())]);
        s.push(vec![button(m.center(), true)]);
        s.push(vec![button(m.center(), false)]);
        s.push(vec![]);
        s.push(vec![key(Key::Escape, true), key(Key::Escape, false)]);
    }
    // A few frames for what the last steps started.
    s.extend((0..5).map(|_| vec![]));
    s
}

impl BenchUi {
    /// Measures `app`, its times counted from `launched` (before the window was made).
    pub fn new(app: App, launched: Instant) -> BenchUi {
        BenchUi {
            app,
            m: Measure {
                started: launched,
                load_s: None,
                first_frame_s: None,
                script: Vec::new(),
                next: 0,
                last_frame: None,
                gaps: Vec::new(),
                own: Vec::new(),
                done: false,
                windows: 1,
            },
        }
    }
}

impl Measure {
    /// The JSON line of what was measured.
    fn report(&self) -> String {
        let mut gaps = self.gaps.clone();
        gaps.sort_by(f64::total_cmp);
        let mut own = self.own.clone();
        own.sort_by(f64::total_cmp);
        let at = |v: &[f64], q: f64| {
            v.get(((v.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or(f64::NAN)
        };
        format!(
            "{{\"load_s\": {:.3}, \"first_frame_s\": {:.3}, \"frames\": {}, \"median_ms\": {:.1}, \
             \"p95_ms\": {:.1}, \"max_ms\": {:.1}, \"app_median_ms\": {:.1}, \"app_max_ms\": {:.1}, \
             \"windows\": {}}}",
            self.load_s.unwrap_or(f64::NAN),
            self.first_frame_s.unwrap_or(f64::NAN),
            gaps.len(),
            at(&gaps, 0.5),
            at(&gaps, 0.95),
            at(&gaps, 1.0),
            at(&own, 0.5),
            at(&own, 1.0),
            self.windows
        )
    }
}

impl eframe::App for BenchUi {
    fn raw_input_hook(&mut self, _ctx: &egui::Context, raw: &mut egui::RawInput) {
        if let Some(events) = self.m.script.get(self.m.next) {
            raw.events.extend(events.iter().cloned());
        }
    }

    fn ui(&mut self, ui: &mut Ui, frame: &mut eframe::Frame) {
        let now = Instant::now();
        let ctx = ui.ctx().clone();
        let m = &mut self.m;
        let scripting = !m.script.is_empty();
        if scripting {
            if let Some(last) = m.last_frame {
                m.gaps.push((now - last).as_secs_f64() * 1e3);
            }
            if let Some(cpu) = frame.info().cpu_usage {
                m.own.push(f64::from(cpu) * 1e3);
            }
            m.next += 1;
        }
        m.last_frame = Some(now);
        self.app.ui(ui, frame);
        // Continuous repaint once the trace is shown: while it loads, frames drawn by a
        // software renderer would take a core from the load that is being measured (the app
        // repaints its progress five times a second, and when the load ends).
        if self.app.loaded().is_some() {
            ctx.request_repaint();
        }
        let m = &mut self.m;
        let t = m.started.elapsed().as_secs_f64();
        // Every trace given loaded (those after the first as windows under it).
        let opened = self.app.loaded().is_some() && !self.app.still_opening();
        if m.load_s.is_none() && opened {
            m.load_s = Some(t);
        }
        if let Some(err) = self.app.load_error() {
            eprintln!("prvscope --bench-ui: {err}");
            m.done = true;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if m.first_frame_s.is_none()
            && opened
            && let Some(l) = self.app.loaded()
            // Every window built a frame (a window that draws nothing has an empty legend).
            && (0..l.pane_count()).all(|i| {
                l.pane_timeline(i)
                    .is_some_and(|t| !t.is_building() && t.last_build_ms() > 0.0)
            })
        {
            m.windows = l.pane_count();
            m.first_frame_s = Some(t);
            m.script = script(l.timeline.area(), App::view_menu_rect(&ctx));
            m.next = 0;
        }
        if scripting && m.next >= m.script.len() && !m.done {
            m.done = true;
            println!("{}", m.report());
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interaction_is_the_one_documented() {
        let area = Rect::from_min_max(egui::pos2(200.0, 50.0), egui::pos2(1400.0, 750.0));
        let menu = Rect::from_min_max(egui::pos2(90.0, 0.0), egui::pos2(120.0, 20.0));
        let s = script(area, Some(menu));
        let all: Vec<&Event> = s.iter().flatten().collect();
        let wheel = |up: bool| {
            all.iter()
                .filter(|e| matches!(e, Event::MouseWheel { delta, .. } if (delta.y > 0.0) == up))
                .count()
        };
        assert_eq!((wheel(true), wheel(false)), (20, 20));
        // Ten drags of 200 pixels (a press and a release each), and the menu's click.
        let presses: Vec<Pos2> = all
            .iter()
            .filter_map(|e| match e {
                Event::PointerButton {
                    pos, pressed: true, ..
                } => Some(*pos),
                _ => None,
            })
            .collect();
        assert_eq!(presses.len(), 11);
        assert!(presses[..10].iter().all(|p| area.contains(*p)));
        assert_eq!(presses[10], menu.center());
        let keys: Vec<Key> = all
            .iter()
            .filter_map(|e| match e {
                Event::Key {
                    key, pressed: true, ..
                } => Some(*key),
                _ => None,
            })
            .collect();
        assert_eq!(keys, [Key::Home, Key::Escape]);
        // Without the menu's place, the rest is the same.
        assert_eq!(script(area, None).len(), s.len() - 5);
    }

    #[test]
    fn the_report_is_one_json_line_of_the_frames() {
        let mut b = Measure {
            started: Instant::now(),
            load_s: Some(1.5),
            first_frame_s: Some(1.75),
            script: Vec::new(),
            next: 0,
            last_frame: None,
            gaps: (1..=100).map(f64::from).collect(),
            own: vec![2.0, 4.0, 3.0],
            done: false,
            windows: 2,
        };
        b.gaps.reverse();
        assert_eq!(
            b.report(),
            "{\"load_s\": 1.500, \"first_frame_s\": 1.750, \"frames\": 100, \"median_ms\": 51.0, \
             \"p95_ms\": 95.0, \"max_ms\": 100.0, \"app_median_ms\": 3.0, \"app_max_ms\": 4.0, \
             \"windows\": 2}"
        );
    }
}

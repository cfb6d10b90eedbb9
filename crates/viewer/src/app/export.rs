//! Exports: the timeline's part of the window as PNG, the visible window's time per value
//! per thread as CSV.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{App, Loaded};
use crate::view::value_label;
use prvscope_analysis::stats::{self, Column, Semantic};
use prvscope_store::signal::SignalSpec;

/// What the user asked to save.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Export {
    Png,
    Csv,
    /// The view as a Paraver cfg.
    Cfg,
    /// The visible window as a trace.
    Trace,
}

impl App {
    /// Says in the status bar, and in the log (standard error), whether `path` was written;
    /// returns whether it was.
    pub(crate) fn say_saved(&mut self, path: &Path, result: Result<(), String>) -> bool {
        let saved = result.is_ok();
        self.status = match result {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => {
                let text = format!("could not save {}: {e}", path.display());
                eprintln!("prvscope: {text}");
                text
            }
        };
        saved
    }

    /// Writes the view as a Paraver cfg (see [`prvscope_paraver::save`]): its semantic, rows,
    /// visible window, draw and colour mode. Returns what a reader should know beside it.
    pub fn save_view_cfg(&self, path: &Path) -> Result<String, String> {
        let (text, note) = self.view_cfg_text()?;
        std::fs::write(path, text).map_err(|e| e.to_string())?;
        Ok(note.to_string())
    }

    /// The view shown as a Paraver cfg's text, and what a reader should know beside it.
    pub(crate) fn view_cfg_text(&self) -> Result<(String, &'static str), String> {
        use prvscope_paraver::save::{View, ViewKind, view_cfg};
        use prvscope_store::summary::DrawMode;
        let Some(l) = &self.loaded else {
            return Err("no trace is open".into());
        };
        let t = &l.timeline;
        let kind = match &t.config.spec {
            SignalSpec::States => ViewKind::States,
            SignalSpec::Events(types) => ViewKind::Events(types.clone()),
            SignalSpec::Custom(_) => {
                return Err("this view comes from a configuration: save that cfg instead".into());
            }
        };
        let (level, note) = match t.level() {
            crate::rows::Level::Thread => (crate::rows::Level::Thread, ""),
            crate::rows::Level::Task | crate::rows::Level::Appl | crate::rows::Level::Workload => (
                crate::rows::Level::Thread,
                " (thread rows: Paraver's collapsed rows would add their threads' values)",
            ),
            crate::rows::Level::Cpu => (crate::rows::Level::Cpu, ""),
            crate::rows::Level::Node | crate::rows::Level::System => (
                crate::rows::Level::Cpu,
                " (CPU rows: Paraver's node rows would add their CPUs' values)",
            ),
        };
        let draw_mode = match t.config.mode {
            DrawMode::Average => "draw_average",
            DrawMode::Maximum => "draw_maximum",
            DrawMode::Minimum => "draw_minimum",
            DrawMode::Random => "draw_random",
            // Paraver has no "dominant": the last value is the closest.
            DrawMode::Last | DrawMode::Dominant => "draw_last",
        };
        let view = View {
            name: crate::view::view_name(&l.trace, &t.config.spec),
            kind,
            level,
            window: (t.window.start, t.window.end()),
            end_time: l.trace.header.end_time.max(t.end_time()),
            draw_mode,
            gradient: t.config.color == crate::view::ColorMode::Gradient,
        };
        Ok((view_cfg(&view), note))
    }

    /// View > Window properties…: the properties of the view shown (a cfg's window, or the
    /// window the State or event view is as a cfg), or why not.
    pub fn open_properties(&mut self) {
        let shown = self.loaded.as_ref().map(|l| l.timeline.config.spec.clone());
        let source = match &shown {
            None => {
                self.status = "open a trace first".into();
                return;
            }
            Some(SignalSpec::Custom(c)) => {
                let l = self.loaded.as_ref().expect("a trace");
                match l.cfg_sources.get(&c.0.id) {
                    Some(s) => Ok((Some(c.0.id), s.clone())),
                    None => Err(format!("`{}` is no cfg window", c.0.name)),
                }
            }
            Some(_) => self.view_cfg_text().and_then(|(text, _)| {
                prvscope_paraver::cfg::Cfg::parse("view", &text)
                    .map(|cfg| {
                        (
                            None,
                            crate::properties::Source {
                                cfg: Arc::new(cfg),
                                window: 1,
                            },
                        )
                    })
                    .map_err(|e| e.to_string())
            }),
        };
        let Some(l) = &mut self.loaded else {
            return;
        };
        match source.and_then(|(view, source)| {
            crate::properties::PropertiesWindow::new(
                &l.trace,
                Arc::clone(&l.windows),
                view,
                source,
                l.timeline.config.mode,
            )
        }) {
            Ok(p) => l.properties = Some(p),
            Err(e) => self.status = format!("no window properties: {e}"),
        }
    }

    /// The window properties open, if any.
    pub fn properties_mut(&mut self) -> Option<&mut crate::properties::PropertiesWindow> {
        self.loaded.as_mut()?.properties.as_mut()
    }

    /// Writes the visible window's time per value per row as CSV.
    pub fn export_csv(&self, path: &Path) -> std::io::Result<()> {
        let Some(l) = &self.loaded else {
            return Err(std::io::Error::other("no trace is open"));
        };
        std::fs::write(path, visible_csv(l))
    }

    /// Saves the timeline's part of the next frame to `path` (PNG): the frame is captured
    /// with a screenshot request, and written when it arrives a frame or two later.
    pub fn export_png(&mut self, path: PathBuf) {
        self.exports.png_pending = Some((path, None));
    }

    pub(super) fn finish_png(&mut self, ctx: &egui::Context) {
        if let Some((_, requested @ None)) = &mut self.exports.png_pending {
            *requested = Some(std::time::Instant::now());
            let slot = Arc::clone(&self.exports.screenshot);
            let wake = ctx.clone();
            ctx.request_screenshot(move |image| {
                if let Ok(mut s) = slot.lock() {
                    *s = Some(image);
                }
                wake.request_repaint();
            });
            return;
        }
        let image = self
            .exports
            .screenshot
            .lock()
            .ok()
            .and_then(|mut s| s.take());
        // A renderer that never delivers the screenshot: the rows are drawn headless
        // instead, as `prvscope render` draws them, rather than nothing at all.
        if image.is_none()
            && let Some((_, Some(at))) = &self.exports.png_pending
        {
            if at.elapsed() > SCREENSHOT_WAIT {
                if let Some((path, _)) = self.exports.png_pending.take() {
                    let saved = self.render_png(ctx, &path);
                    if self.say_saved(&path, saved) {
                        self.status.push_str(
                            " (the rows drawn headless: the renderer returned no screenshot)",
                        );
                    }
                }
            } else {
                ctx.request_repaint_after(std::time::Duration::from_millis(100));
            }
            return;
        }
        let (Some(image), Some((path, _))) = (image, self.exports.png_pending.take()) else {
            return;
        };
        let ppp = ctx.pixels_per_point();
        let r = self.shell.timeline_rect;
        let [w, h] = image.size;
        let x0 = ((r.left() * ppp).round().max(0.0) as usize).min(w);
        let y0 = ((r.top() * ppp).round().max(0.0) as usize).min(h);
        let x1 = ((r.right() * ppp).round().max(0.0) as usize).clamp(x0, w);
        let y1 = ((r.bottom() * ppp).round().max(0.0) as usize).clamp(y0, h);
        let mut rgba = Vec::with_capacity((x1 - x0) * (y1 - y0) * 4);
        for y in y0..y1 {
            for x in x0..x1 {
                rgba.extend_from_slice(&image.pixels[y * w + x].to_array());
            }
        }
        let saved = image::RgbaImage::from_raw((x1 - x0) as u32, (y1 - y0) as u32, rgba)
            .ok_or_else(|| "empty image".to_owned())
            .and_then(|img| img.save(&path).map_err(|e| e.to_string()));
        self.say_saved(&path, saved);
    }
}

/// How long a PNG export waits for the renderer's screenshot.
const SCREENSHOT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

impl App {
    /// The timeline's rows as `prvscope render` draws them, at the timeline's size.
    fn render_png(&self, ctx: &egui::Context, path: &Path) -> Result<(), String> {
        let Some(l) = &self.loaded else {
            return Err("no trace is open".into());
        };
        let t = &l.timeline;
        let ppp = ctx.pixels_per_point();
        let opts = crate::render::RenderOptions {
            view: t.config.spec.clone(),
            mode: Some(t.config.mode),
            level: t.level(),
            from: Some(t.window.start),
            to: Some(t.window.end()),
            width: ((t.area().width() * ppp) as u32).max(1),
            height: ((t.area().height() * ppp) as u32).max(t.rows().len() as u32),
            comms: t.config.comms,
            scale: t.config.scale,
            log: t.config.function == crate::view::GradientFn::Logarithmic,
        };
        let r = crate::render::render(&l.trace, &opts).map_err(|e| e.to_string())?;
        r.save_png(path).map_err(|e| e.to_string())
    }
}

/// The visible window's time per value per thread, as CSV.
fn visible_csv(l: &Loaded) -> String {
    let t = &l.timeline;
    let (t0, t1) = (
        t.window.start,
        t.window.end().min(t.end_time().max(t.window.start)),
    );
    let spec = t.config.spec.clone();
    let table = match &spec {
        SignalSpec::States => stats::time_per_value(&l.trace.store, Semantic::StateAsIs, t0, t1),
        SignalSpec::Events(types) if types.len() == 1 => {
            stats::time_per_value(&l.trace.store, Semantic::LastEventValue(types[0]), t0, t1)
        }
        SignalSpec::Events(_) | SignalSpec::Custom(_) => {
            stats::time_per_value_of_view(t.signals(), t.config.zero_is_null, t0, t1)
        }
    };
    let label = |c: Column| match c {
        Column::Value(v) => value_label(&l.trace, &spec, v, false),
        Column::Null => "null".to_owned(),
    };
    prvscope_analysis::table::table_text(&l.trace, &table, true, &label)
}

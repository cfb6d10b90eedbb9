//! Sessions: what is open when the viewer closes (the trace file, its view, window, rows and
//! markers) is kept with the settings, and restored when the viewer next starts without a
//! trace.

use super::App;
use crate::rows::{Grouping, Level};
use crate::settings::{Session, WindowLayout};
use crate::timeline::Marker;
use crate::view::MPI_CALL_TYPES;
use prvscope_store::signal::SignalSpec;

/// A view as `--view` writes it; `None` for a configuration's view (not kept).
fn view_text(spec: &SignalSpec) -> Option<String> {
    match spec {
        SignalSpec::States => Some("state".into()),
        SignalSpec::Events(types) if types.as_slice() == MPI_CALL_TYPES => Some("mpi".into()),
        SignalSpec::Events(types) => Some(
            types
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(","),
        ),
        SignalSpec::Custom(_) => None,
    }
}

fn level_text(level: Level) -> &'static str {
    level.word()
}

/// A row level of a saved session (the workload and the system are none).
fn level_of(text: &str) -> Option<Level> {
    Level::parse(text).filter(|l| !matches!(l, Level::Workload | Level::System))
}

impl App {
    /// The session to keep: the trace file open (not the demo), its view, window, rows and
    /// markers.
    pub fn session(&self) -> Option<Session> {
        let l = self.loaded.as_ref()?;
        if !l.trace.path.is_file() {
            return None;
        }
        // The first window's rows and markers; every window's view, range and group.
        let t = l.pane_timeline(0)?;
        let path = std::fs::canonicalize(&l.trace.path).unwrap_or_else(|_| l.trace.path.clone());
        // (Windows of other traces are not kept: a session is one trace's.)
        let own: Vec<usize> = (0..l.pane_count())
            .filter(|&i| !l.pane_is_guest(i))
            .collect();
        let windows: Vec<WindowLayout> = if own.len() > 1 {
            own.iter()
                .filter_map(|&i| {
                    let w = l.pane_timeline(i)?;
                    Some(WindowLayout {
                        view: view_text(&w.config.spec).unwrap_or_else(|| "state".into()),
                        window: w.window,
                        group: l.pane_group(i),
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        Some(Session {
            windows,
            active: own.iter().position(|&i| i == l.active_pane()).unwrap_or(0),
            path,
            view: view_text(&t.config.spec).unwrap_or_else(|| "state".into()),
            window: t.window,
            level: level_text(t.level()).into(),
            collapsed_tasks: t.layout.grouping.tasks.iter().copied().collect(),
            collapsed_apps: t.layout.grouping.apps.iter().copied().collect(),
            markers: t
                .markers()
                .iter()
                .map(|m| (m.time, m.label.clone()))
                .collect(),
        })
    }

    /// Restores `s` on the trace just loaded (the view given on the command line wins).
    pub(super) fn restore_session(&mut self, s: &Session) {
        if self.opening.start_view.is_none()
            && let Ok(spec) = s.view.parse::<SignalSpec>()
        {
            self.set_view(spec);
        }
        let Some(l) = &mut self.loaded else {
            return;
        };
        let t = &mut l.timeline;
        let grouping = Grouping {
            tasks: s.collapsed_tasks.iter().copied().collect(),
            apps: s.collapsed_apps.iter().copied().collect(),
        };
        t.set_grouping(&l.trace, grouping);
        // CPU or node rows the trace can no longer show are said, not dropped silently.
        let mut level_note = String::new();
        if let Some(level) = level_of(&s.level).filter(|l| l.is_resource())
            && let Err(e) = t.set_level(&self.ctx, &l.trace, level)
        {
            level_note = format!("; no CPU rows: {e}");
        }
        t.zoom_to(crate::frame::TimeWindow {
            start: s.window.start,
            span: s.window.span.max(crate::frame::MIN_SPAN),
        });
        t.set_markers(
            s.markers
                .iter()
                .map(|(time, label)| Marker {
                    time: *time,
                    label: label.clone(),
                })
                .collect(),
        );
        let name = l
            .trace
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let windows = self.restore_windows(s);
        let what = match self.opening.restore_file.take() {
            Some(file) => format!(
                "opened the session {} on {name}",
                file.file_name().map_or_else(
                    || file.display().to_string(),
                    |n| n.to_string_lossy().into_owned()
                )
            ),
            None => format!("restored the last session of {name}"),
        };
        self.status = format!(
            "{what} ({windows}view, window, rows, {} marker{})",
            s.markers.len(),
            if s.markers.len() == 1 { "" } else { "s" }
        );
        self.status.push_str(&level_note);
    }

    /// Opens the other timeline windows of `s` (each of its view, range and group, the
    /// first window's rows and markers) and makes its active one active again; what it
    /// opened, for the status line.
    fn restore_windows(&mut self, s: &Session) -> String {
        if s.windows.len() < 2 {
            return String::new();
        }
        if let Some(l) = &mut self.loaded {
            l.set_pane_group(0, s.windows[0].group);
        }
        for w in &s.windows[1..] {
            let ctx = self.ctx.clone();
            let Some(l) = &mut self.loaded else {
                return String::new();
            };
            l.new_pane(&ctx);
            let i = l.pane_count() - 1;
            l.set_pane_group(i, w.group);
            if let Ok(spec) = w.view.parse::<SignalSpec>() {
                self.set_view(spec);
            }
            if let Some(l) = &mut self.loaded {
                l.timeline.zoom_to(crate::frame::TimeWindow {
                    start: w.window.start,
                    span: w.window.span.max(crate::frame::MIN_SPAN),
                });
            }
        }
        if let Some(l) = &mut self.loaded {
            l.activate_pane(s.active);
        }
        format!("{} timeline windows, ", s.windows.len())
    }

    /// File > Save session as: the session written to `path` (a named session, opened again
    /// with File > Open session); says how it went.
    pub fn save_session_as(&mut self, path: &std::path::Path) {
        let Some(s) = self.session() else {
            "no session to save: open a trace file first (the demo has none)"
                .clone_into(&mut self.status);
            return;
        };
        self.status = match std::fs::write(path, s.to_file_text()) {
            Ok(()) => format!("session saved to {}", path.display()),
            Err(e) => format!("could not save the session to {}: {e}", path.display()),
        };
    }

    /// File > Open session: opens the trace of the named session at `path` and restores it
    /// (its windows, views, ranges, rows and markers); says why not.
    pub fn open_session(&mut self, path: &std::path::Path) {
        let read = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Session::from_file_text(&text));
        match read {
            Ok(s) if s.path.is_file() => {
                self.opening.restore = Some(s.clone());
                self.opening.restore_file = Some(path.to_path_buf());
                let ctx = self.ctx.clone();
                self.open(&ctx, crate::loader::LoadSource::File(s.path));
            }
            Ok(s) => {
                self.status = format!(
                    "{}: its trace {} is not there",
                    path.display(),
                    s.path.display()
                );
            }
            Err(e) => self.status = format!("could not open the session {}: {e}", path.display()),
        }
    }
}

//! Sessions: what is open when the viewer closes (the trace file, its view, window, rows and
//! markers) is kept with the settings, and restored when the viewer next starts without a
//! trace.

use super::App;
use crate::rows::{Grouping, Level};
use crate::settings::Session;
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
        let t = &l.timeline;
        let path = std::fs::canonicalize(&l.trace.path).unwrap_or_else(|_| l.trace.path.clone());
        Some(Session {
            path,
            view: view_text(&t.config.spec).unwrap_or_else(|| "state".into()),
            window: (t.window.start, t.window.span),
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
            start: s.window.0,
            span: s.window.1.max(crate::frame::MIN_SPAN),
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
        self.status = format!(
            "restored the last session of {} (view, window, rows, {} marker{})",
            l.trace
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            s.markers.len(),
            if s.markers.len() == 1 { "" } else { "s" }
        );
        self.status.push_str(&level_note);
    }
}

//! File > Save window as trace…: the visible time window and the view's rows written as a
//! trace (Paraver's cutter, `prvscope_paraver::cut`), off the UI thread with progress and
//! Cancel, with a cutter XML beside it for Paraver's users.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use prvscope_paraver::cut::{self, Control, CutterOptions, Job as CutJob, Saved};

use super::App;
use crate::jobs::Job;

/// A trace being saved.
pub(crate) struct TraceSave {
    pub path: PathBuf,
    /// Progress in 1/1000.
    pub progress: Arc<AtomicU32>,
    pub job: Job<Result<Saved, String>>,
    /// What the status line says beside "saved" (rows the XML cannot name).
    pub note: String,
}

/// The cutter XML written beside `trace`: `x.prv[.xz|.gz]` gives `x.cutter.xml`.
pub fn xml_beside(trace: &Path) -> PathBuf {
    prvscope_format::files::side_file(trace, "cutter.xml")
}

impl App {
    /// The cut File > Save window as trace writes: the visible window, the rows the view
    /// shows (their threads; every thread at the CPU and node levels), Paraver's cutter
    /// settings (states cut at the window's edges, times from 0).
    pub fn window_cut(&self) -> Option<CutterOptions> {
        let l = self.loaded.as_ref()?;
        let t = &l.timeline;
        let w = t.window();
        let end = l.trace.header.end_time.max(t.end_time());
        let mut o = CutterOptions::by_time(w.start.min(end), w.end().min(end));
        let threads = l.trace.store.thread_count();
        let mut rows = vec![false; threads];
        let mut any_thread_row = false;
        for item in t.rows() {
            for r in item.threads.clone() {
                if let Some(k) = rows.get_mut(r) {
                    *k = true;
                    any_thread_row = true;
                }
            }
        }
        if !any_thread_row {
            rows.fill(true);
        }
        for (r, k) in rows.iter_mut().enumerate() {
            *k &= l.trace.store.is_row_loaded(r);
        }
        if rows.iter().any(|k| !k) {
            o.rows = Some(rows);
        }
        Some(o)
    }

    /// Starts writing the window as a trace to `path`.
    pub fn save_window_as_trace(&mut self, ctx: &egui::Context, path: PathBuf) {
        let (Some(l), Some(cut)) = (self.loaded.as_ref(), self.window_cut()) else {
            self.status = "not saved: no trace is open".into();
            return;
        };
        if self.exports.trace_save.is_some() {
            self.status = "not saved: a trace is being saved already".into();
            return;
        }
        if let Err(e) = cut::check(
            &l.trace,
            &CutJob {
                cutter: Some(cut.clone()),
                filter: None,
                stop_as_paraver: false,
                source_name: None,
            },
        ) {
            self.say_saved(&path, Err(e.to_string()));
            return;
        }
        let note = if cut.rows.is_some() {
            " (the cutter XML beside it names the time range; the rows kept are the view's, \
             which Paraver's cutter selects by task)"
                .to_owned()
        } else {
            String::new()
        };
        let trace = l.trace.clone();
        let progress = Arc::new(AtomicU32::new(0));
        let shown = Arc::clone(&progress);
        let out = path.clone();
        let job = Job::spawn(ctx, "save-trace", move |cancel| {
            let report = |f: f32| shown.store((f * 1000.0) as u32, Ordering::Relaxed);
            let control = Control {
                progress: &report,
                cancel,
            };
            let job = CutJob {
                cutter: Some(cut.clone()),
                filter: None,
                stop_as_paraver: false,
                source_name: None,
            };
            let saved = cut::save(&trace, &job, &out, &control).map_err(|e| e.to_string())?;
            let xml = xml_beside(&out);
            std::fs::write(&xml, cut.to_xml())
                .map_err(|e| format!("{}: {e} (the trace was written)", xml.display()))?;
            Ok(saved)
        });
        self.exports.trace_save = Some(TraceSave {
            path,
            progress,
            job,
            note,
        });
    }

    /// Says how a trace save ended, once it has.
    pub(super) fn poll_trace_save(&mut self) {
        let Some(s) = &mut self.exports.trace_save else {
            return;
        };
        let Some(result) = s.job.poll() else {
            if !s.job.is_running() {
                let path = s.path.clone();
                self.exports.trace_save = None;
                self.say_saved(&path, Err("the save stopped without a result".into()));
            }
            return;
        };
        let (path, note) = (s.path.clone(), s.note.clone());
        self.exports.trace_save = None;
        match result {
            Ok(saved) => {
                if self.say_saved(&path, Ok(())) {
                    let _ = saved;
                    let _ = write!(self.status, " and {}{note}", xml_beside(&path).display());
                }
            }
            Err(e) => {
                self.say_saved(&path, Err(e));
            }
        }
    }

    /// The save's progress bar and Cancel, in the status bar.
    pub(super) fn trace_save_ui(&mut self, ui: &mut egui::Ui) {
        let Some(s) = &self.exports.trace_save else {
            return;
        };
        let f = s.progress.load(Ordering::Relaxed) as f32 / 1000.0;
        ui.label(format!("Saving {}", s.path.display()));
        ui.add(
            egui::ProgressBar::new(f)
                .desired_width(160.0)
                .show_percentage(),
        );
        if ui.button("Cancel").clicked() {
            s.job.cancel();
        }
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(100));
    }
}

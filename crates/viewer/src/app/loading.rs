//! A load that finished: the trace shown (its timeline, scope panel and windows), or why
//! not (an error, a trace too large: the part dialog).

use super::{App, Loaded, panes};
use crate::loader::{LoadOutcome, LoadSource, Loading};
use crate::part_dialog::PartDialog;
use crate::scope_panel::ScopePanel;
use prvscope_format::LoadError;

impl App {
    pub(super) fn poll_loading(&mut self, ctx: &egui::Context) {
        let Some(result) = self.loading.as_mut().and_then(Loading::poll) else {
            return;
        };
        let source = self.loading.take().map(|l| l.source);
        // (A trace given after the first: one that fails is said as any other.)
        let also = std::mem::take(&mut self.opening.loading_also);
        match result {
            LoadOutcome::Loaded(loaded) => {
                let (trace, timeline, report) = *loaded;
                // What an earlier load said (cancelled, too large) is no longer true.
                if self
                    .opening
                    .load_note
                    .take()
                    .is_some_and(|n| n == self.status)
                {
                    self.status.clear();
                }
                self.opening.reread = None;
                if let Some(LoadSource::File(path)) = &source {
                    self.settings.recent.add(path);
                }
                // A file cut short opens the report and says so in the status line, as does
                // a missing .pcf; a missing .row is listed in the report and the side panel.
                let cut_short = trace.records_cut_short().is_some();
                let incomplete = report.incomplete();
                let said = incomplete.first().filter(|_| trace.pcf.is_none());
                if let Some(note) = incomplete.last().filter(|_| cut_short).or(said) {
                    self.status.clone_from(note);
                }
                self.shell.scopes_forced = false;
                self.write_cache_later(ctx, &trace);
                let types = trace.store.event_types();
                self.take_source_folders();
                let scopes = ScopePanel::new(&trace, &self.settings.source_folders);
                let new = Loaded {
                    trace,
                    timeline,
                    types,
                    report,
                    cfg_report: None,
                    scopes,
                    cfg_run: None,
                    histograms: Vec::new(),
                    cfg_views: Vec::new(),
                    cfg_sources: std::collections::HashMap::new(),
                    properties: None,
                    pop: None,
                    cluster: None,
                    compare: None,
                    panes: panes::Panes::default(),
                    windows: std::sync::Arc::new(
                        prvscope_paraver::window::WindowCache::for_machine(),
                    ),
                };
                if also && self.loaded.is_some() {
                    // One of the traces given after the first: kept open, shown under it.
                    self.others.push(new);
                    self.new_timeline_of(self.others.len() - 1, 0);
                    self.open_next_also(ctx);
                    ctx.request_repaint();
                    return;
                }
                self.keep_open_before(&new.trace.path);
                self.loaded = Some(new);
                if let Some(spec) = self.opening.start_view.clone() {
                    self.set_view(spec);
                }
                if let Some(s) = self.opening.restore.take()
                    && self.loaded.as_ref().is_some_and(|l| {
                        std::fs::canonicalize(&l.trace.path).ok() == Some(s.path.clone())
                    })
                {
                    self.restore_session(&s);
                }
                self.opening.restore_file = None;
                if let Some(mode) = self.opening.start_mode
                    && let Some(l) = &mut self.loaded
                {
                    let mut config = l.timeline.config.clone();
                    config.mode = mode;
                    l.timeline.set_view(&self.ctx, &l.trace, config);
                }
                self.open_next_also(ctx);
            }
            LoadOutcome::Failed(LoadError::Cancelled { path }) => {
                self.status = format!("loading {} was cancelled", path.display());
                self.opening.load_note = Some(self.status.clone());
            }
            LoadOutcome::Failed(e) => self.error = Some(e.to_string()),
            LoadOutcome::TooLarge(path, estimate) => {
                // Why it is read again (a corrupt store cache), if it is, stays said.
                let before = self
                    .opening
                    .reread
                    .take()
                    .map(|why| format!("{why}. "))
                    .unwrap_or_default();
                self.status = before
                    + &format!(
                        "{} needs about {} to load, more than the memory available: choose a part of it{}",
                        path.file_name().map_or_else(
                            || path.display().to_string(),
                            |n| n.to_string_lossy().into_owned()
                        ),
                        prvscope_format::units::human_bytes(estimate.whole_bytes),
                        if self.opening.cache.is_some() {
                            ", or convert it into the store cache"
                        } else {
                            ""
                        }
                    );
                self.opening.load_note = Some(self.status.clone());
                let mut dialog = PartDialog::with_estimate(path, *estimate);
                dialog.no_convert = self.no_convert();
                self.dialogs.part = Some(dialog);
            }
        }
        self.open_next_also(ctx);
        ctx.request_repaint();
    }

    /// Starts loading the next of the traces given after the first, if any.
    fn open_next_also(&mut self, ctx: &egui::Context) {
        while self.loading.is_none()
            && let Some(path) = self.opening.also.pop_front()
        {
            // A trace already open is not read again: another window of it.
            if let Some(l) = &mut self.loaded
                && super::traces::same_file(&l.trace.path, &path)
            {
                l.new_pane(ctx);
                l.activate_pane(0);
                continue;
            }
            if let Some(k) = self
                .others
                .iter()
                .position(|o| super::traces::same_file(&o.trace.path, &path))
            {
                self.new_timeline_of(k, 0);
                continue;
            }
            self.open(ctx, LoadSource::File(path));
            self.opening.loading_also = true;
        }
    }

    /// Are traces given after the first still being opened?
    pub fn still_opening(&self) -> bool {
        self.loading.is_some() || !self.opening.also.is_empty()
    }

    /// Opens `paths` after the trace being loaded, each kept open and shown as a timeline
    /// window under the first trace's windows, in their synchronize group.
    pub fn open_also(&mut self, paths: Vec<std::path::PathBuf>) {
        self.opening.also.extend(paths);
    }
}

//! The scope panel beside the timeline, after Carnival: the source code with its heat, a
//! vertical bar per scope over its lines (shaded by inclusive time; click: its breakdown per
//! thread), a horizontal bar per scope split by thread state (click: its breakdown per
//! state), a condensed profile map of the file (click: scroll there), and a sortable scope
//! table (click: select the scope and open its breakdown). The statistics follow the
//! timeline's visible window (or the whole trace), computed by [`prvscope_analysis::scopes`]
//! on a worker thread that a newer window cancels. The panel owns the breakdown windows
//! ([`crate::breakdown`]), which the app draws every frame, even while the panel is hidden.
//!
//! - `source_view`: the source view with its line heat, scope bars and profile map;
//! - `table`: the scope table.

mod against;
mod parts;
mod source_view;
mod table;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use egui::{Color32, Ui, vec2};

use super::breakdown::{Breakdowns, Facts, Latest, Tab};
use super::frame::{TimeWindow, format_window};
use super::jobs::Job;
use super::settings::RecentFiles;
pub use prvscope_analysis::panel::SortBy;
use prvscope_analysis::panel::{Prepared, parse_types, types_text};
use prvscope_analysis::scopes::{
    self, Cancelled, Category, ScopeAnalysis, ScopeContext, ScopeKey, ScopeQuery, ScopeType,
};
use prvscope_analysis::source::{Found, SourceFinder};
use prvscope_store::Trace;

/// A computation on a worker thread for a time window.
pub(crate) struct WindowJob<T> {
    window: TimeWindow,
    job: Job<Result<T, Cancelled>>,
}

impl<T: Send + 'static> WindowJob<T> {
    fn start(
        ctx: &egui::Context,
        name: &str,
        window: TimeWindow,
        work: impl FnOnce(&AtomicBool) -> Result<T, Cancelled> + Send + 'static,
    ) -> Self {
        WindowJob {
            window,
            job: Job::spawn(ctx, name, work),
        }
    }

    fn cancel(&self) {
        self.job.cancel();
    }
}

/// Per-thread intervals of the selected scope (what the timeline highlights).
pub use crate::shared::Intervals;

/// The computation of a scope's intervals.
pub(crate) type IntervalJob = WindowJob<Vec<Vec<(u64, u64)>>>;

/// The panel's state, a part per concern ([`parts`]).
pub struct ScopePanel {
    pub(crate) an: parts::Analysing,
    pub(crate) sel: parts::Selection,
    pub(crate) src: parts::Source,
    pub(crate) table: parts::Table,
    pub(crate) edit: parts::TypesEdit,
    /// The run the table is compared with, if any.
    pub(crate) against: Option<parts::Against>,
    /// The breakdown windows.
    breakdowns: Breakdowns,
    /// Thread names and groups, state colours and labels, the time unit.
    facts: Arc<Facts>,
    ns_per_tick: u64,
}

impl ScopePanel {
    /// The panel of a freshly loaded trace, searching sources in `folders` too.
    pub fn new(trace: &Trace, folders: &RecentFiles) -> Self {
        let store = Arc::clone(&trace.store);
        let ctx = Arc::new(ScopeContext::new(trace.pcf.as_ref(), &store));
        let types = scopes::auto_types(trace.pcf.as_ref(), &store.event_types());
        let types_text = types_text(&types, trace.pcf.as_ref());
        let auto_types = types.clone();
        let folders = folders.clone();
        let finder = super::loader::source_finder(trace, folders.paths());
        let facts = Arc::new(Facts::new(trace));
        ScopePanel {
            an: parts::Analysing {
                store,
                ctx,
                types,
                auto_types,
                whole_trace: false,
                end_time: trace.header.end_time.max(trace.store.end_time()),
                span: trace.header.end_time.max(1),
                analysis: None,
                full: None,
                application_rows: prvscope_format::RowMap::new(&trace.header).application_rows(),
                application: 1,
                job: None,
                cancelled: None,
            },
            sel: parts::Selection {
                selected: None,
                highlight: None,
                highlight_job: None,
            },
            src: parts::Source {
                file: None,
                sources: HashMap::new(),
                prepared: None,
                finder,
                folders,
                folder_dialog: None,
                folder_note: None,
                scroll_to_line: None,
                first_visible_line: 1,
                line_count: 0,
                trace_path: trace.path.clone(),
                ships_sources: !trace.shipped_sources.is_empty(),
            },
            table: parts::Table {
                sort: (SortBy::Inclusive, true),
                table_order: None,
            },
            edit: parts::TypesEdit {
                types_text,
                types_note: None,
            },
            against: None,
            breakdowns: Breakdowns::new(Arc::clone(&facts)),
            facts,
            ns_per_tick: trace.header.time_unit.ns_per_tick(),
        }
    }

    /// The latest finished analysis, as shown (one application's part of it when several
    /// ran).
    pub fn analysis(&self) -> Option<&Arc<ScopeAnalysis>> {
        self.an.analysis.as_ref()
    }

    /// The applications whose rows the latest analysis counts (1-based), with those rows.
    pub fn counted_applications(&self) -> Vec<(usize, Vec<usize>)> {
        let Some(a) = &self.an.full else {
            return Vec::new();
        };
        self.an
            .application_rows
            .iter()
            .enumerate()
            .map(|(i, rows)| {
                let counted: Vec<usize> = rows
                    .clone()
                    .filter(|&r| a.counted.get(r).copied().unwrap_or(false))
                    .collect();
                (i + 1, counted)
            })
            .filter(|(_, rows)| !rows.is_empty())
            .collect()
    }

    /// Shows application `appl` (1-based) when several ran, each with its own shares.
    pub fn set_application(&mut self, appl: usize) {
        self.an.application = appl;
        self.show_application();
    }

    /// The analysis shown from the whole one: the application chosen when several ran.
    fn show_application(&mut self) {
        let Some(full) = self.an.full.clone() else {
            return;
        };
        let apps = self.counted_applications();
        self.an.analysis = Some(if apps.len() > 1 {
            let rows = apps
                .iter()
                .find(|(i, _)| *i == self.an.application)
                .or(apps.first())
                .map(|(_, r)| r.clone())
                .unwrap_or_default();
            Arc::new(full.restricted_to(&rows))
        } else {
            full
        });
        self.src.prepared = None;
        self.table.table_order = None;
    }

    /// True while an analysis runs.
    pub fn is_busy(&self) -> bool {
        self.an.job.is_some() || self.sel.highlight_job.is_some()
    }

    /// The scope types read.
    pub fn types(&self) -> &[ScopeType] {
        &self.an.types
    }

    /// The selected scope.
    pub fn selected(&self) -> Option<ScopeKey> {
        self.sel.selected
    }

    /// The source file shown (its name).
    pub fn file(&self) -> Option<&str> {
        self.src.file.as_deref()
    }

    /// Folders the user added to the source search.
    pub fn folders(&self) -> &RecentFiles {
        &self.src.folders
    }

    /// The breakdown windows.
    pub fn breakdowns(&self) -> &Breakdowns {
        &self.breakdowns
    }

    /// The breakdown windows, to act on them as the user would.
    pub fn breakdowns_mut(&mut self) -> &mut Breakdowns {
        &mut self.breakdowns
    }

    /// How many breakdown windows are open.
    pub fn breakdown_count(&self) -> usize {
        self.breakdowns.len()
    }

    /// Thread names and groups, state colours and labels, the time unit: what the breakdowns
    /// are drawn with.
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// Opens the breakdown window of `key` (per thread), or brings it to the front.
    pub fn open_breakdown(&mut self, key: ScopeKey) {
        self.open_breakdown_on(key, Tab::Threads);
    }

    /// Opens the breakdown window of `key` on `tab`, or brings it to the front on that tab.
    pub fn open_breakdown_on(&mut self, key: ScopeKey, tab: Tab) {
        let name = self
            .an
            .analysis
            .as_ref()
            .and_then(|a| a.find(key).and_then(|i| a.scopes.get(i)))
            .map_or_else(|| self.an.ctx.scope_name(key), |s| s.name.clone());
        self.breakdowns.open(key, name, tab);
    }

    /// Opens the breakdown of the innermost scope open on `thread` (a store row) at tick `t`,
    /// and returns it; `None` when no scope is open there. The thread's events up to `t` are
    /// replayed ([`scopes::stack_at`]).
    pub fn open_breakdown_at(&mut self, thread: usize, t: u64) -> Option<ScopeKey> {
        let key =
            *scopes::stack_at(&self.an.store, &self.an.ctx, &self.an.types, thread, t).last()?;
        self.open_breakdown(key);
        Some(key)
    }

    /// Opens the breakdown window of a set of intervals (`within`, per store row, in time
    /// order; a cluster's bursts) called `key` and `name`: the scope analysis of the whole
    /// trace restricted to them, with this panel's scope types (and the MPI calls' callers,
    /// for where the intervals end: [`scopes::with_callers`]), computed in the background.
    pub fn open_intervals_breakdown(
        &mut self,
        ctx: &egui::Context,
        key: ScopeKey,
        name: String,
        within: Intervals,
    ) {
        // The panel's types are listed; the callers only tell where the intervals end.
        let type_labels = self
            .an
            .types
            .iter()
            .map(|t| (t.ty, self.an.ctx.type_label(t.ty)))
            .collect();
        let types = scopes::with_callers(self.an.types.clone(), &self.an.store.event_types());
        let (store, scope_ctx) = (Arc::clone(&self.an.store), Arc::clone(&self.an.ctx));
        let query = ScopeQuery {
            types,
            t0: 0,
            t1: self.an.end_time,
        };
        let job = Job::spawn(ctx, "intervals-breakdown", move |cancel| {
            let a = scopes::analyze_within(&store, &scope_ctx, &query, &within, Some(cancel))?;
            let counted = within
                .iter()
                .enumerate()
                .filter(|(row, _)| a.counted.get(*row).copied().unwrap_or(false))
                .map(|(_, w)| w.len())
                .sum();
            Ok((a, counted))
        });
        let what = format!("the bursts of {name}");
        self.breakdowns.open_fixed(
            key,
            name,
            super::breakdown::Fixed::new(what, job, type_labels),
        );
    }

    /// Writes the breakdown of `key`, as its open window shows it, as CSV to `path`.
    pub fn export_breakdown_csv(
        &mut self,
        key: ScopeKey,
        path: &std::path::Path,
    ) -> std::io::Result<()> {
        let Some(w) = self.breakdowns.get_mut(key) else {
            return Err(std::io::Error::other(
                "no breakdown window of that scope is open",
            ));
        };
        w.export_csv(&self.facts, path)
    }

    /// Polls and shows the breakdown windows, with this frame's analysis, as windows of the
    /// trace `seen` (every frame, whether the panel is shown or not); drops the closed ones.
    pub fn breakdowns_ui(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        self.breakdowns.offer(Latest {
            analysis: self.an.analysis.clone(),
            whole_trace: self.an.whole_trace,
            busy: self.an.job.is_some(),
        });
        let mut windows: Vec<&mut dyn crate::windows::ToolWindow> = Vec::new();
        for w in self.breakdowns.windows_mut() {
            windows.push(w);
        }
        crate::windows::show_all(ctx, seen, &mut windows);
        self.breakdowns.drop_closed();
    }

    /// The first source line in view (1-based), after the last frame.
    pub fn first_visible_line(&self) -> u32 {
        self.src.first_visible_line
    }

    /// Source lines of the file shown.
    pub fn line_count(&self) -> usize {
        self.src.line_count
    }

    /// The intervals of the selected scope, once computed.
    pub fn highlight(&self) -> Option<Intervals> {
        match (&self.sel.highlight, self.sel.selected) {
            (Some((k, iv)), Some(s)) if *k == s => Some(Arc::clone(iv)),
            _ => None,
        }
    }

    /// Starts, keeps or replaces the analysis so that it covers the visible `window`; takes
    /// finished results; `ctx` is repainted when a computation finishes.
    pub fn update(&mut self, ctx: &egui::Context, window: TimeWindow) {
        self.poll();
        if self.an.types.is_empty() {
            return;
        }
        let wanted = if self.an.whole_trace {
            TimeWindow::from_bounds(0, self.an.end_time)
        } else {
            TimeWindow::from_bounds(
                window.start,
                window.end().min(self.an.end_time).max(window.start),
            )
        };
        let (t0, t1) = wanted.bounds();
        let have = self
            .an
            .analysis
            .as_ref()
            .is_some_and(|a| a.t0 == t0 && a.t1 == t1);
        let running = self.an.job.as_ref().is_some_and(|j| j.window == wanted);
        if self.an.cancelled.is_some_and(|c| c != wanted) {
            self.an.cancelled = None;
        }
        if !have && !running && self.an.cancelled.is_none() {
            if let Some(old) = self.an.job.take() {
                old.cancel();
            }
            let (store, scope_ctx, types) = (
                Arc::clone(&self.an.store),
                Arc::clone(&self.an.ctx),
                self.an.types.clone(),
            );
            self.an.job = Some(WindowJob::start(
                ctx,
                "scope-analysis",
                wanted,
                move |cancel| {
                    scopes::analyze(
                        &store,
                        &scope_ctx,
                        &ScopeQuery { types, t0, t1 },
                        Some(cancel),
                    )
                },
            ));
        }
        if let Some(key) = self.sel.selected
            && self.sel.highlight.as_ref().is_none_or(|h| h.0 != key)
            && self.sel.highlight_job.as_ref().is_none_or(|j| j.0 != key)
        {
            if let Some((_, old)) = self.sel.highlight_job.take() {
                old.cancel();
            }
            let (store, scope_ctx, types) = (
                Arc::clone(&self.an.store),
                Arc::clone(&self.an.ctx),
                self.an.types.clone(),
            );
            let end = self.an.end_time;
            self.sel.highlight_job = Some((
                key,
                WindowJob::start(
                    ctx,
                    "scope-intervals",
                    TimeWindow::from_bounds(0, end),
                    move |cancel| {
                        scopes::scope_intervals(
                            &store,
                            &scope_ctx,
                            &types,
                            key,
                            0,
                            end,
                            Some(cancel),
                        )
                    },
                ),
            ));
        }
    }

    fn poll(&mut self) {
        if let Some(job) = &mut self.an.job
            && let Some(result) = job.job.poll()
        {
            self.an.job = None;
            if let Ok(a) = result {
                if self.src.file.is_none() {
                    self.src.file = a.files().into_iter().next();
                }
                self.an.full = Some(Arc::new(a));
                self.show_application();
            }
        }
        if let Some((key, job)) = &mut self.sel.highlight_job
            && let Some(result) = job.job.poll()
        {
            let key = *key;
            self.sel.highlight_job = None;
            if let Ok(iv) = result {
                self.sel.highlight = Some((key, Arc::new(iv)));
            }
        }
    }

    /// Takes the folder chosen in "Add source folder…" (the in-app browser is drawn here
    /// when the system dialog cannot open).
    fn poll_folder_dialog(&mut self, ctx: &egui::Context) {
        if let Some(d) = &mut self.src.folder_dialog
            && let Some(choice) = d.poll(ctx)
        {
            self.src.folder_dialog = None;
            self.src.folder_note = Some(match choice.into_iter().next() {
                Some(dir) => {
                    self.add_folder(&dir);
                    format!("source folder {} added", dir.display())
                }
                None => "no source folder added: none was chosen".to_string(),
            });
        }
    }

    /// Blocks until the running computations have finished (tests, command line).
    pub fn wait(&mut self) {
        while self.an.job.is_some() || self.sel.highlight_job.is_some() {
            self.poll();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Reads the scopes of these types from now on (the automatic choice when empty).
    pub fn set_types(&mut self, types: Vec<ScopeType>) {
        let types = if types.is_empty() {
            self.an.auto_types.clone()
        } else {
            types
        };
        let present = self.an.store.event_types();
        let missing: Vec<String> = types
            .iter()
            .filter(|t| !present.contains(&t.ty))
            .map(|t| t.ty.to_string())
            .collect();
        self.edit.types_note = (!missing.is_empty()).then(|| {
            format!(
                "no event of type {} in the trace: the table holds the other types",
                missing.join(", ")
            )
        });
        self.edit.types_text = types_text(&types, self.an.ctx.pcf());
        if types == self.an.types {
            return;
        }
        self.an.types = types;
        self.restart();
    }

    /// Reads 0 as null or as a value from now on (the timeline's "Zero is null"): the table
    /// is recomputed when that changes.
    pub fn set_zero_is_null(&mut self, zero_is_null: bool) {
        if self.an.ctx.zero_is_null() != zero_is_null {
            self.an.ctx = Arc::new(self.an.ctx.with_zero_is_null(zero_is_null));
            self.restart();
        }
    }

    /// Drops the analysis and what was computed from it, so that the next update starts
    /// again.
    fn restart(&mut self) {
        if let Some(j) = self.an.job.take() {
            j.cancel();
        }
        if let Some((_, j)) = self.sel.highlight_job.take() {
            j.cancel();
        }
        self.an.analysis = None;
        self.an.full = None;
        self.sel.selected = None;
        self.sel.highlight = None;
        self.src.file = None;
        self.an.cancelled = None;
    }

    /// Adds a folder to the source search and remembers it.
    pub fn add_folder(&mut self, dir: &std::path::Path) {
        self.src.folders.add(dir);
        self.src.finder = if self.src.ships_sources {
            self.src.finder.clone()
        } else {
            SourceFinder::for_trace(&self.src.trace_path, self.src.folders.paths())
        };
        self.src.sources.clear();
        self.src.prepared = None;
    }

    /// Selects a scope: shows its file at its first line and highlights it on the timeline.
    pub fn select(&mut self, key: ScopeKey) {
        self.sel.selected = Some(key);
        let loc = self
            .an
            .analysis
            .as_ref()
            .and_then(|a| a.find(key).and_then(|i| a.scopes.get(i)))
            .and_then(|s| s.location.clone());
        if let Some(loc) = loc {
            self.src.file = Some(loc.file_name().to_owned());
            self.src.scroll_to_line = Some(loc.line.saturating_sub(3).max(1));
        }
    }

    fn source(&mut self, file: &str) -> Arc<Found> {
        let finder = &self.src.finder;
        Arc::clone(
            self.src
                .sources
                .entry(file.to_owned())
                .or_insert_with(|| Arc::new(finder.find(file))),
        )
    }

    /// The prepared view of `file` for `a`, rebuilt only when either changed.
    fn prepared(&mut self, a: &Arc<ScopeAnalysis>, file: &str) -> Arc<Prepared> {
        let fresh = self
            .src
            .prepared
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(&p.analysis, a) && p.file == file);
        if !fresh {
            let found = self.source(file);
            let fresh = Arc::new(Prepared::new(a, file, found));
            self.src.prepared = Some(Arc::clone(&fresh));
            return fresh;
        }
        self.src
            .prepared
            .clone()
            .unwrap_or_else(|| Arc::new(Prepared::new(a, file, self.source(file))))
    }

    fn category_color(&self, c: Category) -> Color32 {
        self.facts.category_color(c)
    }

    /// The panel.
    pub fn ui(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            ui.heading("Scopes");
            ui.checkbox(&mut self.an.whole_trace, "Whole trace")
                .on_hover_text("Statistics of the whole trace instead of the visible window");
            if let Some(j) = &self.an.job {
                ui.spinner();
                if ui.button("Cancel analysis").clicked() {
                    j.cancel();
                    self.an.cancelled = Some(j.window);
                    self.an.job = None;
                }
            } else if self.an.cancelled.is_some() && ui.button("Analyse").clicked() {
                self.an.cancelled = None;
            }
            // One line for the title, the types and the window: the panel is low (the
            // timeline keeps most of the height), its rows are for the table.
            ui.separator();
            let label = ui.label("Scope types");
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.edit.types_text)
                        .desired_width(220.0)
                        .hint_text("e.g. 60000019,50000002"),
                )
                .labelled_by(label.id)
                .on_hover_text(
                    "Event types read as scopes, comma-separated; empty: chosen from the trace. \
                     T:stack (enter and leave: functions), T:hold (the last value holds, \
                     above the functions: MPI calls) or T:replace (below them) names how a \
                     type nests",
                );
            let apply = ui.button("Apply").clicked()
                || (edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)));
            if apply {
                match parse_types(&self.edit.types_text, self.an.ctx.pcf()) {
                    Ok(parsed) => self.set_types(parsed),
                    Err(e) => self.edit.types_note = Some(format!("types not changed: {e}")),
                }
            }
            if let Some(a) = &self.an.analysis
                && !self.an.types.is_empty()
            {
                ui.separator();
                ui.label(format!(
                    "{} scopes, window {}",
                    a.scopes.len(),
                    format_window(a.t0, a.t1, self.ns_per_tick)
                ));
            }
        });
        if let Some(note) = &self.edit.types_note {
            ui.label(egui::RichText::new(note).color(crate::theme::WARNING));
        }
        if self.an.types.is_empty() {
            ui.label("No scope event types in this trace (user functions, OpenMP, MPI, sampled functions): name some above.");
            return;
        }
        if self.an.cancelled.is_some() && self.an.analysis.is_none() {
            ui.label("The analysis was cancelled.");
            return;
        }
        let Some(a) = self.an.analysis.clone() else {
            ui.label("analysing…");
            return;
        };
        self.an.span = a.span();
        if let Some(note) = a.order_note() {
            ui.label(egui::RichText::new(note).color(crate::theme::WARNING));
        }
        let files = match &self.src.file {
            Some(f) => {
                let f = f.clone();
                self.prepared(&a, &f).files.clone()
            }
            None => a.files(),
        };
        let apps = self.counted_applications();
        ui.horizontal(|ui| {
            if apps.len() > 1 {
                let mut chosen = self.an.application;
                egui::ComboBox::from_id_salt("scope-application")
                    .selected_text(format!("application {chosen}"))
                    .show_ui(ui, |ui| {
                        for (i, rows) in &apps {
                            ui.selectable_value(
                                &mut chosen,
                                *i,
                                format!("application {i} ({} threads)", rows.len()),
                            );
                        }
                    })
                    .response
                    .on_hover_text("Each application's scopes, as shares of its own threads' time");
                if chosen != self.an.application {
                    self.set_application(chosen);
                }
            }
            let counted = self
                .an
                .full
                .as_ref()
                .map_or_else(String::new, |f| f.counted_text());
            ui.label(egui::RichText::new(format!("shares of the time of {counted}")).weak())
                .on_hover_text(
                    "Rows without states whose events are only counters or samples (uncore or \
                 sampling rows) did not run the program: their values are not its scopes, \
                 and their time is not counted",
                );
            ui.separator();
            let current = self
                .src
                .file
                .clone()
                .unwrap_or_else(|| "(no source file)".to_owned());
            egui::ComboBox::from_label("Source file")
                .selected_text(current)
                .show_ui(ui, |ui| {
                    for f in &files {
                        if ui
                            .selectable_label(self.src.file.as_ref() == Some(f), f)
                            .clicked()
                        {
                            self.src.file = Some(f.clone());
                            self.src.scroll_to_line = Some(1);
                        }
                    }
                });
            if ui
                .button("Add source folder…")
                .on_hover_text("Search this folder for source files too (remembered)")
                .clicked()
                && self.src.folder_dialog.is_none()
            {
                // From the trace's folder, where its sources usually are.
                let spec = crate::file_dialog::Spec::new(
                    "Add a source folder",
                    crate::file_dialog::Kind::Folder,
                )
                .dir(
                    self.src
                        .trace_path
                        .parent()
                        .filter(|d| d.is_dir())
                        .map(std::path::Path::to_path_buf),
                );
                self.src.folder_dialog = Some(crate::file_dialog::FileDialog::open(ui.ctx(), spec));
            }
            let ctx = ui.ctx().clone();
            self.poll_folder_dialog(&ctx);
            if let Some(note) = &self.src.folder_note {
                ui.label(egui::RichText::new(note).small());
            }
        });
        // Below the timeline the panel is wide and low: the source on the left, the table
        // on the right; in a tall, narrow panel the table goes under the source.
        let size = ui.available_size();
        if size.x > 2.0 * size.y {
            let full = ui.available_rect_before_wrap();
            let split = full.left() + (full.width() * 0.55).max(200.0);
            let left = egui::Rect::from_min_max(full.min, egui::pos2(split - 4.0, full.bottom()));
            let right = egui::Rect::from_min_max(egui::pos2(split + 4.0, full.top()), full.max);
            ui.scope_builder(egui::UiBuilder::new().max_rect(left), |ui| {
                ui.set_clip_rect(left.intersect(ui.clip_rect()));
                self.source_ui(ui, &a);
            });
            ui.painter().vline(
                split,
                full.y_range(),
                ui.visuals().widgets.noninteractive.bg_stroke,
            );
            ui.scope_builder(egui::UiBuilder::new().max_rect(right), |ui| {
                ui.set_clip_rect(right.intersect(ui.clip_rect()));
                self.table_ui(ui, &a);
            });
            ui.allocate_rect(full, egui::Sense::hover());
        } else {
            let table_height = (size.y * 0.35).clamp(80.0, 320.0);
            let source_height = (size.y - table_height - 8.0).max(80.0);
            ui.allocate_ui(vec2(size.x, source_height), |ui| {
                self.source_ui(ui, &a);
            });
            ui.separator();
            self.table_ui(ui, &a);
        }
    }
}

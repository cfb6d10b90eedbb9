//! The scope panel beside the timeline, after Carnival: the source code with its heat, a
//! vertical bar per scope over its lines (shaded by inclusive time; click: per-thread
//! percentages), a horizontal bar per scope split by thread state (click: the category
//! histogram), a condensed profile map of the file (click: scroll there), and a sortable scope
//! table. The statistics follow the timeline's visible window (or the whole trace), computed
//! by [`prvscope_analysis::scopes`] on a worker thread that a newer window cancels.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use egui::{Color32, FontId, Rect, RichText, Sense, Ui, WidgetInfo, pos2, vec2};

use super::frame::{TimeWindow, format_ticks};
use super::jobs::Job;
use super::recent::RecentFiles;
use super::theme;
use prvscope_analysis::scopes::{
    self, Cancelled, Category, ScopeAnalysis, ScopeContext, ScopeKey, ScopeQuery, ScopeStats,
    ScopeType,
};
use prvscope_analysis::source::{Found, SourceFinder, scope_end_line};
use prvscope_store::Trace;
use prvscope_store::TraceStore;

/// A computation on a worker thread for the window `[t0, t1)`.
struct WindowJob<T> {
    t0: u64,
    t1: u64,
    job: Job<Result<T, Cancelled>>,
}

impl<T: Send + 'static> WindowJob<T> {
    fn start(
        ctx: &egui::Context,
        name: &str,
        (t0, t1): (u64, u64),
        work: impl FnOnce(&AtomicBool) -> Result<T, Cancelled> + Send + 'static,
    ) -> Self {
        WindowJob {
            t0,
            t1,
            job: Job::spawn(ctx, name, work),
        }
    }

    fn cancel(&self) {
        self.job.cancel();
    }
}

/// Which popup is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Popup {
    /// Per-thread percentages of a scope.
    Threads(ScopeKey),
    /// The category histogram of a scope.
    Categories(ScopeKey),
}

/// Columns the scope table sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    Name,
    Location,
    Inclusive,
    Exclusive,
    Entries,
}

/// Per-thread intervals of the selected scope (what the timeline highlights).
pub type Intervals = Arc<Vec<Vec<(u64, u64)>>>;

/// The computation of a scope's intervals.
type IntervalJob = WindowJob<Vec<Vec<(u64, u64)>>>;

/// The panel's state.
pub struct ScopePanel {
    store: Arc<TraceStore>,
    ctx: Arc<ScopeContext>,
    /// The scope types read.
    pub types: Vec<ScopeType>,
    /// Statistics over the whole trace instead of the visible window.
    pub whole_trace: bool,
    end_time: u64,
    analysis: Option<Arc<ScopeAnalysis>>,
    job: Option<WindowJob<ScopeAnalysis>>,
    /// The selected scope.
    pub selected: Option<ScopeKey>,
    highlight: Option<(ScopeKey, Intervals)>,
    highlight_job: Option<(ScopeKey, IntervalJob)>,
    /// The source file shown (its name).
    pub file: Option<String>,
    sources: HashMap<String, Arc<Found>>,
    /// The shown file's text, heat and scope lanes for the current analysis (built when the
    /// analysis or the file changes, not per frame).
    prepared: Option<Arc<Prepared>>,
    /// The table's order for (analysis, sort).
    table_order: Option<(usize, (SortBy, bool), Vec<usize>)>,
    finder: SourceFinder,
    /// Folders the user added to the source search (remembered).
    pub folders: RecentFiles,
    folder_dialog: Option<Job<Option<PathBuf>>>,
    /// The open popup.
    pub popup: Option<Popup>,
    scroll_to_line: Option<u32>,
    /// The first source line in view (1-based), after the last frame.
    pub first_visible_line: u32,
    /// Source lines of the file shown.
    pub line_count: usize,
    pub sort: (SortBy, bool),
    state_colors: BTreeMap<u64, Color32>,
    state_labels: BTreeMap<u64, String>,
    /// The loaded threads: (row, name).
    threads: Vec<(usize, String)>,
    ns_per_tick: u64,
    trace_path: PathBuf,
    ships_sources: bool,
    /// Where the panel was drawn (popups open beside it).
    panel_rect: Rect,
    /// The scope types as the user edits them (comma-separated numbers).
    pub types_text: String,
    auto_types: Vec<ScopeType>,
    /// The window whose analysis the user cancelled: not restarted until the window changes.
    cancelled: Option<(u64, u64)>,
}

impl ScopePanel {
    /// The panel of a freshly loaded trace; source folders are remembered in `config`.
    pub fn new(trace: &Trace, config: Option<&std::path::Path>) -> Self {
        let store = Arc::clone(&trace.store);
        let ctx = Arc::new(ScopeContext::new(trace.pcf.as_ref(), &store));
        let types = scopes::auto_types(trace.pcf.as_ref(), &store.event_types());
        let types_text = types_text(&types);
        let auto_types = types.clone();
        let folders = RecentFiles::load_named(config, "source-folders.txt");
        let finder = super::loader::source_finder(trace, &folders.paths);
        let mut state_colors = BTreeMap::new();
        let mut state_labels = BTreeMap::new();
        if let Some(pcf) = &trace.pcf {
            for (&v, &c) in &pcf.state_colors {
                state_colors.insert(v, theme::rgb(c));
            }
            for (&v, l) in &pcf.states {
                state_labels.insert(v, l.trim().to_owned());
            }
        }
        ScopePanel {
            store,
            ctx,
            types,
            whole_trace: false,
            end_time: trace.header.end_time.max(trace.store.end_time()),
            analysis: None,
            job: None,
            selected: None,
            highlight: None,
            highlight_job: None,
            file: None,
            sources: HashMap::new(),
            prepared: None,
            table_order: None,
            finder,
            folders,
            folder_dialog: None,
            popup: None,
            scroll_to_line: None,
            first_visible_line: 1,
            line_count: 0,
            sort: (SortBy::Inclusive, true),
            state_colors,
            state_labels,
            threads: trace
                .loaded_rows()
                .into_iter()
                .map(|r| (r, trace.thread_name(r)))
                .collect(),
            ns_per_tick: trace.header.time_unit.ns_per_tick(),
            trace_path: trace.path.clone(),
            ships_sources: !trace.shipped_sources.is_empty(),
            panel_rect: Rect::NOTHING,
            types_text,
            auto_types,
            cancelled: None,
        }
    }

    /// The latest finished analysis.
    pub fn analysis(&self) -> Option<&Arc<ScopeAnalysis>> {
        self.analysis.as_ref()
    }

    /// True while an analysis runs.
    pub fn is_busy(&self) -> bool {
        self.job.is_some() || self.highlight_job.is_some()
    }

    /// The intervals of the selected scope, once computed.
    pub fn highlight(&self) -> Option<Intervals> {
        match (&self.highlight, self.selected) {
            (Some((k, iv)), Some(s)) if *k == s => Some(Arc::clone(iv)),
            _ => None,
        }
    }

    /// Starts, keeps or replaces the analysis so that it covers the visible `window`; takes
    /// finished results; `ctx` is repainted when a computation finishes.
    pub fn update(&mut self, ctx: &egui::Context, window: TimeWindow) {
        self.poll();
        if self.types.is_empty() {
            return;
        }
        let (t0, t1) = if self.whole_trace {
            (0, self.end_time)
        } else {
            (
                window.start,
                window.end().min(self.end_time).max(window.start),
            )
        };
        let have = self
            .analysis
            .as_ref()
            .is_some_and(|a| a.t0 == t0 && a.t1 == t1);
        let running = self.job.as_ref().is_some_and(|j| j.t0 == t0 && j.t1 == t1);
        if self.cancelled.is_some_and(|c| c != (t0, t1)) {
            self.cancelled = None;
        }
        if !have && !running && self.cancelled.is_none() {
            if let Some(old) = self.job.take() {
                old.cancel();
            }
            let (store, scope_ctx, types) = (
                Arc::clone(&self.store),
                Arc::clone(&self.ctx),
                self.types.clone(),
            );
            self.job = Some(WindowJob::start(
                ctx,
                "scope-analysis",
                (t0, t1),
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
        if let Some(key) = self.selected
            && self.highlight.as_ref().is_none_or(|h| h.0 != key)
            && self.highlight_job.as_ref().is_none_or(|j| j.0 != key)
        {
            if let Some((_, old)) = self.highlight_job.take() {
                old.cancel();
            }
            let (store, scope_ctx, types) = (
                Arc::clone(&self.store),
                Arc::clone(&self.ctx),
                self.types.clone(),
            );
            let end = self.end_time;
            self.highlight_job = Some((
                key,
                WindowJob::start(ctx, "scope-intervals", (0, end), move |cancel| {
                    scopes::scope_intervals(&store, &scope_ctx, &types, key, 0, end, Some(cancel))
                }),
            ));
        }
    }

    fn poll(&mut self) {
        if let Some(job) = &mut self.job
            && let Some(result) = job.job.poll()
        {
            self.job = None;
            if let Ok(a) = result {
                if self.file.is_none() {
                    self.file = a.files().into_iter().next();
                }
                self.analysis = Some(Arc::new(a));
            }
        }
        if let Some((key, job)) = &mut self.highlight_job
            && let Some(result) = job.job.poll()
        {
            let key = *key;
            self.highlight_job = None;
            if let Ok(iv) = result {
                self.highlight = Some((key, Arc::new(iv)));
            }
        }
        if let Some(job) = &mut self.folder_dialog
            && let Some(choice) = job.poll()
        {
            self.folder_dialog = None;
            if let Some(dir) = choice {
                self.add_folder(&dir);
            }
        }
    }

    /// Blocks until the running computations have finished (tests, command line).
    pub fn wait(&mut self) {
        while self.job.is_some() || self.highlight_job.is_some() {
            self.poll();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Reads the scopes of these types from now on (the automatic choice when empty).
    pub fn set_types(&mut self, types: Vec<ScopeType>) {
        let types = if types.is_empty() {
            self.auto_types.clone()
        } else {
            types
        };
        self.types_text = types_text(&types);
        if types == self.types {
            return;
        }
        self.types = types;
        if let Some(j) = self.job.take() {
            j.cancel();
        }
        if let Some((_, j)) = self.highlight_job.take() {
            j.cancel();
        }
        self.analysis = None;
        self.selected = None;
        self.highlight = None;
        self.popup = None;
        self.file = None;
        self.cancelled = None;
    }

    /// Adds a folder to the source search and remembers it.
    pub fn add_folder(&mut self, dir: &std::path::Path) {
        let _ = self.folders.add(dir);
        self.finder = if self.ships_sources {
            self.finder.clone()
        } else {
            SourceFinder::for_trace(&self.trace_path, &self.folders.paths)
        };
        self.sources.clear();
        self.prepared = None;
    }

    /// Selects a scope: shows its file at its first line and highlights it on the timeline.
    pub fn select(&mut self, key: ScopeKey) {
        self.selected = Some(key);
        let loc = self
            .analysis
            .as_ref()
            .and_then(|a| a.find(key).and_then(|i| a.scopes.get(i)))
            .and_then(|s| s.location.clone());
        if let Some(loc) = loc {
            self.file = Some(loc.file_name().to_owned());
            self.scroll_to_line = Some(loc.line.saturating_sub(3).max(1));
        }
    }

    fn source(&mut self, file: &str) -> Arc<Found> {
        let finder = &self.finder;
        Arc::clone(
            self.sources
                .entry(file.to_owned())
                .or_insert_with(|| Arc::new(finder.find(file))),
        )
    }

    /// The prepared view of `file` for `a`, rebuilt only when either changed.
    fn prepared(&mut self, a: &Arc<ScopeAnalysis>, file: &str) -> Arc<Prepared> {
        let fresh = self
            .prepared
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(&p.analysis, a) && p.file == file);
        if !fresh {
            let found = self.source(file);
            let fresh = Arc::new(Prepared::new(a, file, found));
            self.prepared = Some(Arc::clone(&fresh));
            return fresh;
        }
        self.prepared
            .clone()
            .unwrap_or_else(|| Arc::new(Prepared::new(a, file, self.source(file))))
    }

    fn category_color(&self, c: Category) -> Color32 {
        match c {
            Category::State(v) => self
                .state_colors
                .get(&v)
                .copied()
                .unwrap_or_else(|| theme::palette(v)),
            Category::NoState => theme::NO_STATE,
        }
    }

    fn category_label(&self, c: Category) -> String {
        match c {
            Category::State(v) => self
                .state_labels
                .get(&v)
                .cloned()
                .unwrap_or_else(|| format!("state {v}")),
            Category::NoState => "no state".to_owned(),
        }
    }

    /// The panel.
    pub fn ui(&mut self, ui: &mut Ui) {
        self.panel_rect = ui.max_rect();
        ui.horizontal(|ui| {
            ui.heading("Scopes");
            ui.checkbox(&mut self.whole_trace, "Whole trace")
                .on_hover_text("Statistics of the whole trace instead of the visible window");
            if let Some(j) = &self.job {
                ui.spinner();
                if ui.button("Cancel analysis").clicked() {
                    j.cancel();
                    self.cancelled = Some((j.t0, j.t1));
                    self.job = None;
                }
            } else if self.cancelled.is_some() && ui.button("Analyse").clicked() {
                self.cancelled = None;
            }
        });
        ui.horizontal(|ui| {
            let label = ui.label("Scope types");
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut self.types_text)
                        .desired_width(220.0)
                        .hint_text("e.g. 60000019,50000002"),
                )
                .labelled_by(label.id)
                .on_hover_text(
                    "Event types read as scopes, comma-separated; empty: chosen from the trace",
                );
            let apply = ui.button("Apply").clicked()
                || (edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)));
            if apply {
                let parsed: Vec<ScopeType> = self
                    .types_text
                    .split([',', ' '])
                    .filter_map(|t| t.trim().parse::<u32>().ok())
                    .map(ScopeType::new)
                    .collect();
                self.set_types(parsed);
            }
        });
        if self.types.is_empty() {
            ui.label("No scope event types in this trace (user functions, OpenMP, MPI, sampled functions): name some above.");
            return;
        }
        if self.cancelled.is_some() && self.analysis.is_none() {
            ui.label("The analysis was cancelled.");
            return;
        }
        let Some(a) = self.analysis.clone() else {
            ui.label("analysing…");
            return;
        };
        ui.label(format!(
            "{} scopes, window {} – {}",
            a.scopes.len(),
            format_ticks(a.t0, self.ns_per_tick),
            format_ticks(a.t1, self.ns_per_tick)
        ));
        let files = match &self.file {
            Some(f) => {
                let f = f.clone();
                self.prepared(&a, &f).files.clone()
            }
            None => a.files(),
        };
        ui.horizontal(|ui| {
            let current = self
                .file
                .clone()
                .unwrap_or_else(|| "(no source file)".to_owned());
            egui::ComboBox::from_label("Source file")
                .selected_text(current)
                .show_ui(ui, |ui| {
                    for f in &files {
                        if ui
                            .selectable_label(self.file.as_ref() == Some(f), f)
                            .clicked()
                        {
                            self.file = Some(f.clone());
                            self.scroll_to_line = Some(1);
                        }
                    }
                });
            if ui
                .button("Add source folder…")
                .on_hover_text("Search this folder for source files too (remembered)")
                .clicked()
                && self.folder_dialog.is_none()
            {
                self.folder_dialog =
                    Some(Job::spawn_outside_pool(ui.ctx(), "folder-dialog", |_| {
                        rfd::FileDialog::new().pick_folder()
                    }));
            }
        });
        let table_height = (ui.available_height() * 0.35).clamp(80.0, 320.0);
        let source_height = (ui.available_height() - table_height - 8.0).max(80.0);
        ui.allocate_ui(vec2(ui.available_width(), source_height), |ui| {
            self.source_ui(ui, &a);
        });
        ui.separator();
        self.table_ui(ui, &a);
        self.popup_ui(ui.ctx(), &a);
    }

    // Painting code: x, y, w, h and friends read best short.
    #[allow(clippy::many_single_char_names)]
    fn source_ui(&mut self, ui: &mut Ui, a: &Arc<ScopeAnalysis>) {
        let Some(file) = self.file.clone() else {
            ui.label("No scope of this window has a source location.");
            return;
        };
        let p = self.prepared(a, &file);
        let hot = &p.hot;
        let Some(text) = p.found.text() else {
            if let Found::Missing { tried } = &*p.found {
                ui.label(
                    RichText::new(format!("Source file {file} not found.")).color(theme::WARNING),
                );
                ui.label("Looked for it in:");
                for p in tried {
                    ui.label(format!("  {}", p.display()));
                }
                ui.label("Add the folder that holds it with \"Add source folder…\".");
            }
            // The heat is known without the text: list the hottest lines.
            let total: u64 = hot.iter().map(|h| h.1).sum::<u64>().max(1);
            if !hot.is_empty() {
                ui.separator();
                ui.label(format!("Hottest lines of {file}:"));
                egui::ScrollArea::vertical()
                    .id_salt("hot-lines")
                    .max_height(ui.available_height().max(40.0))
                    .show(ui, |ui| {
                        for (line, t) in hot.iter().take(50) {
                            ui.label(format!(
                                "{file}:{line}  {}  ({:.1}%)",
                                format_ticks(*t, self.ns_per_tick),
                                100.0 * *t as f64 / total as f64
                            ));
                        }
                    });
            }
            self.line_count = 0;
            return;
        };
        let (heat, source, placed, lanes) = (&p.heat, p.source, &p.placed, p.lanes);
        let line_ranges = &p.lines;
        self.line_count = line_ranges.len();
        let heat_max = heat.values().copied().max().unwrap_or(0).max(1);
        let heat_total: u64 = heat.values().sum::<u64>().max(1);
        let total = a.threads_ticks();
        let max_inclusive = a
            .scopes
            .iter()
            .map(|s| s.inclusive)
            .max()
            .unwrap_or(0)
            .max(1);

        let font = FontId::monospace(11.0);
        let row_h = 14.0;
        let lane_width = 8.0;
        let gutter_width = lanes.max(1) as f32 * lane_width + 4.0;
        let num_w = 40.0;
        let hbar_w = 90.0;
        let map_w = 16.0;
        ui.label(match source {
            scopes::HeatSource::LineEvents => "line heat: time from sampled and caller line events",
            scopes::HeatSource::ScopeFirstLines => {
                "line heat: exclusive time of each scope on its first line"
            }
        });
        let avail = ui.available_rect_before_wrap();
        let map_rect = Rect::from_min_max(pos2(avail.right() - map_w, avail.top()), avail.max);
        // The profile map: the whole file squeezed into the panel's height.
        let map = ui.interact(map_rect, ui.scope_id().with("profile-map"), Sense::click());
        map.widget_info(|| WidgetInfo::labeled(egui::Role::Button, true, "profile map"));
        let n = line_ranges.len().max(1) as f32;
        let y_of =
            |line: u32| map_rect.top() + (line.saturating_sub(1)) as f32 / n * map_rect.height();
        let painter = ui.painter_at(map_rect);
        painter.rect_filled(map_rect, 0.0, theme::SOURCE_BACKGROUND);
        for &(i, first, last, _) in placed {
            if let Some(s) = a.scopes.get(i) {
                let r = Rect::from_x_y_ranges(
                    map_rect.left() + 2.0..=map_rect.right() - 2.0,
                    y_of(first)..=y_of(last + 1).max(y_of(first) + 2.0),
                );
                painter.rect_filled(r, 0.0, theme::heat_grey(s.inclusive as f64 / total));
            }
        }
        for (&line, &t) in heat {
            let y = y_of(line);
            painter.line_segment(
                [pos2(map_rect.left(), y), pos2(map_rect.left() + 4.0, y)],
                egui::Stroke::new(1.5, theme::heat_grey(t as f64 / heat_max as f64)),
            );
        }
        if map.clicked()
            && let Some(p) = map.interact_pointer_pos()
        {
            let f = ((p.y - map_rect.top()) / map_rect.height()).clamp(0.0, 1.0);
            self.scroll_to_line = Some((f * n) as u32 + 1);
        }
        map.on_hover_text("Profile map of the file: click to scroll there");

        let source_rect =
            Rect::from_min_max(avail.min, pos2(avail.right() - map_w - 2.0, avail.bottom()));
        let mut scroll = egui::ScrollArea::both()
            .id_salt("source")
            .auto_shrink([false, false])
            .max_height(source_rect.height());
        if let Some(line) = self.scroll_to_line.take() {
            scroll = scroll.vertical_scroll_offset(line.saturating_sub(1) as f32 * row_h);
        }
        let mut clicked: Option<Popup> = None;
        let mut child = ui.new_child(egui::UiBuilder::new().max_rect(source_rect));
        scroll.show_viewport(&mut child, |ui, viewport| {
            let width = (ui.available_width()).max(400.0);
            ui.set_height(line_ranges.len() as f32 * row_h);
            ui.set_width(width);
            let top = ui.max_rect().top();
            let left = ui.max_rect().left();
            let right = left + ui.available_width().max(width);
            let first = (viewport.min.y / row_h).floor().max(0.0) as usize;
            let last = ((viewport.max.y / row_h).ceil() as usize + 1).min(line_ranges.len());
            self.first_visible_line = first as u32 + 1;
            let painter = ui.painter().clone();
            painter.rect_filled(
                Rect::from_x_y_ranges(
                    left..=right,
                    top + first as f32 * row_h..=top + last as f32 * row_h,
                ),
                0.0,
                theme::SOURCE_BACKGROUND,
            );
            let text_x = left + gutter_width + num_w + 6.0;
            for i in first..last {
                let y = top + i as f32 * row_h;
                let line_no = i as u32 + 1;
                let num_rect =
                    Rect::from_min_size(pos2(left + gutter_width, y), vec2(num_w, row_h));
                let h = heat.get(&line_no).copied().unwrap_or(0);
                let bg = if h > 0 {
                    theme::heat_grey(h as f64 / heat_max as f64)
                } else {
                    theme::LABEL_BACKGROUND
                };
                painter.rect_filled(num_rect, 0.0, bg);
                painter.text(
                    num_rect.right_center() - vec2(4.0, 0.0),
                    egui::Align2::RIGHT_CENTER,
                    line_no.to_string(),
                    font.clone(),
                    theme::text_on(bg),
                );
                if h > 0 {
                    let r = ui.interact(
                        num_rect,
                        ui.scope_id().with(("line", line_no)),
                        Sense::hover(),
                    );
                    r.on_hover_text(format!(
                        "line {line_no}: {} ({:.1}% of the file's heat)",
                        format_ticks(h, self.ns_per_tick),
                        100.0 * h as f64 / heat_total as f64
                    ));
                }
                if let Some(l) = line_ranges.get(i).and_then(|r| text.get(r.clone())) {
                    painter.text(
                        pos2(text_x, y + 1.0),
                        egui::Align2::LEFT_TOP,
                        l.replace('\t', "    "),
                        font.clone(),
                        theme::SOURCE_TEXT,
                    );
                }
            }
            // Vertical bars (click: per-thread percentages) and horizontal bars at each
            // scope's first line (click: category histogram).
            for &(i, first_line, last_line, lane) in placed {
                let Some(s) = a.scopes.get(i) else { continue };
                let y0 = top + (first_line - 1) as f32 * row_h;
                let y1 = top + last_line as f32 * row_h;
                if y1 < top + viewport.min.y || y0 > top + viewport.max.y {
                    continue;
                }
                let selected = self.selected == Some(s.key);
                let x = left + 2.0 + lane as f32 * lane_width;
                let vrect = Rect::from_x_y_ranges(x..=x + lane_width - 2.0, y0 + 1.0..=y1 - 1.0);
                let share = s.inclusive as f64 / total;
                painter.rect_filled(vrect, 1.0, theme::heat_grey(share));
                if selected {
                    painter.rect_stroke(
                        vrect,
                        1.0,
                        egui::Stroke::new(1.5, theme::SCOPE_SELECTED),
                        egui::StrokeKind::Outside,
                    );
                }
                let name = s.name.clone();
                let r = bar_button(ui, vrect, ("vbar", s.key), &format!("scope bar {name}"));
                if r.clicked() {
                    clicked = Some(Popup::Threads(s.key));
                }
                r.on_hover_text(format!(
                    "{}: lines {first_line}-{last_line}, inclusive {} ({:.1}%): click for threads",
                    s.name,
                    format_ticks(s.inclusive, self.ns_per_tick),
                    100.0 * share
                ));
                // Horizontal bar split by category.
                let w = (hbar_w * s.inclusive as f32 / max_inclusive as f32).max(2.0);
                let hx = right - hbar_w - 4.0;
                let hrect = Rect::from_min_size(pos2(hx, y0 + 2.0), vec2(w, row_h - 4.0));
                let mut x = hx;
                for (&c, &t) in &s.inclusive_per_category {
                    let cw = w * t as f32 / s.inclusive.max(1) as f32;
                    painter.rect_filled(
                        Rect::from_min_size(pos2(x, hrect.top()), vec2(cw, hrect.height())),
                        0.0,
                        self.category_color(c),
                    );
                    x += cw;
                }
                let r = bar_button(ui, hrect, ("hbar", s.key), &format!("category bar {name}"));
                if r.clicked() {
                    clicked = Some(Popup::Categories(s.key));
                }
                r.on_hover_text(format!(
                    "{}: time by thread state: click for the histogram",
                    s.name
                ));
            }
        });
        ui.advance_cursor_after_rect(avail);
        if let Some(p) = clicked {
            let key = match p {
                Popup::Threads(k) | Popup::Categories(k) => k,
            };
            self.selected = Some(key);
            self.popup = Some(p);
        }
    }

    fn table_ui(&mut self, ui: &mut Ui, a: &Arc<ScopeAnalysis>) {
        let total = a.threads_ticks();
        let id = Arc::as_ptr(a) as usize;
        if self
            .table_order
            .as_ref()
            .is_none_or(|t| t.0 != id || t.1 != self.sort)
        {
            self.table_order = Some((id, self.sort, table_order(a, self.sort)));
        }
        let order: Vec<&ScopeStats> = self
            .table_order
            .as_ref()
            .map(|t| {
                t.2.iter()
                    .take(500)
                    .filter_map(|&i| a.scopes.get(i))
                    .collect()
            })
            .unwrap_or_default();
        let mut chosen = None;
        egui::ScrollArea::vertical()
            .id_salt("scope-table")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("scope-table-grid")
                    .striped(true)
                    .num_columns(6)
                    .show(ui, |ui| {
                        for (col, name) in [
                            (SortBy::Name, "Scope"),
                            (SortBy::Location, "Location"),
                            (SortBy::Inclusive, "Inclusive"),
                            (SortBy::Exclusive, "Exclusive"),
                            (SortBy::Inclusive, "%"),
                            (SortBy::Entries, "Entries"),
                        ] {
                            let arrow = if self.sort.0 == col && name != "%" {
                                if self.sort.1 { " v" } else { " ^" }
                            } else {
                                ""
                            };
                            if ui.button(format!("{name}{arrow}")).clicked() {
                                self.sort = (
                                    col,
                                    if self.sort.0 == col {
                                        !self.sort.1
                                    } else {
                                        true
                                    },
                                );
                            }
                        }
                        ui.end_row();
                        for s in &order {
                            let selected = self.selected == Some(s.key);
                            if ui.selectable_label(selected, &s.name).clicked() {
                                chosen = Some(s.key);
                            }
                            ui.label(
                                s.location
                                    .as_ref()
                                    .map_or_else(String::new, ToString::to_string),
                            );
                            ui.label(format_ticks(s.inclusive, self.ns_per_tick));
                            ui.label(format_ticks(s.exclusive, self.ns_per_tick));
                            ui.label(format!("{:.2}", 100.0 * s.inclusive as f64 / total));
                            ui.label(s.entries.to_string());
                            ui.end_row();
                        }
                    });
            });
        if let Some(k) = chosen {
            self.select(k);
        }
    }

    fn popup_ui(&mut self, ctx: &egui::Context, a: &ScopeAnalysis) {
        let Some(popup) = self.popup else {
            return;
        };
        let key = match popup {
            Popup::Threads(k) | Popup::Categories(k) => k,
        };
        let Some(s) = a.find(key).and_then(|i| a.scopes.get(i)) else {
            self.popup = None;
            return;
        };
        let mut open = true;
        let span = a.span().max(1) as f64;
        // Beside the panel, over the timeline's right part.
        let pos = pos2(
            (self.panel_rect.left() - 380.0).max(0.0),
            self.panel_rect.top() + 60.0,
        );
        // (title, caption, bars as (label, fraction, colour)).
        let (title, caption, bars): (String, &str, Vec<(String, f64, Color32)>) = match popup {
            Popup::Threads(_) => (
                format!("Threads: {}", s.name),
                "inclusive time per thread, % of the window",
                self.threads
                    .iter()
                    .map(|(r, name)| {
                        let t = s.inclusive_per_thread.get(*r).copied().unwrap_or(0);
                        let pct = 100.0 * t as f64 / span;
                        (
                            format!("{name}: {pct:.1}%"),
                            pct / 100.0,
                            theme::SCOPE_SELECTED,
                        )
                    })
                    .collect(),
            ),
            Popup::Categories(_) => (
                format!("Categories: {}", s.name),
                "inclusive time by thread state, % of the scope's time",
                s.inclusive_per_category
                    .iter()
                    .map(|(&c, &t)| {
                        let pct = 100.0 * t as f64 / s.inclusive.max(1) as f64;
                        let label = self.category_label(c);
                        (
                            format!("{label}: {pct:.1}%"),
                            pct / 100.0,
                            self.category_color(c),
                        )
                    })
                    .collect(),
            ),
        };
        egui::Window::new(title)
            .default_pos(pos)
            .open(&mut open)
            .default_width(360.0)
            .show(ctx, |ui| {
                ui.label(caption);
                egui::ScrollArea::vertical()
                    .max_height(400.0)
                    .show(ui, |ui| {
                        for (label, fraction, color) in &bars {
                            bar(ui, label, *fraction, *color);
                        }
                    });
            });
        if !open {
            self.popup = None;
        }
    }
}

/// The scope table's order: indices into `a.scopes`.
fn table_order(a: &ScopeAnalysis, (by, desc): (SortBy, bool)) -> Vec<usize> {
    let mut order: Vec<usize> = (0..a.scopes.len()).collect();
    order.sort_by(|&i, &j| {
        let (x, y) = (&a.scopes[i], &a.scopes[j]);
        let o = match by {
            SortBy::Name => x.name.cmp(&y.name),
            SortBy::Location => x.location.cmp(&y.location),
            SortBy::Inclusive => x.inclusive.cmp(&y.inclusive),
            SortBy::Exclusive => x.exclusive.cmp(&y.exclusive),
            SortBy::Entries => x.entries.cmp(&y.entries),
        };
        if desc { o.reverse() } else { o }
    });
    order
}

/// What the source view draws for one analysis and one file.
struct Prepared {
    analysis: Arc<ScopeAnalysis>,
    file: String,
    found: Arc<Found>,
    /// Byte ranges of the text's lines.
    lines: Vec<std::ops::Range<usize>>,
    heat: BTreeMap<u32, u64>,
    source: scopes::HeatSource,
    /// Heated lines, hottest first.
    hot: Vec<(u32, u64)>,
    /// (scope index, first line, last line, lane) of the file's scopes.
    placed: Vec<(usize, u32, u32, usize)>,
    lanes: usize,
    /// Source files of the analysis, most heated first.
    files: Vec<String>,
}

impl Prepared {
    fn new(a: &Arc<ScopeAnalysis>, file: &str, found: Arc<Found>) -> Self {
        let (heat, source) = a.heat(file);
        let mut hot: Vec<(u32, u64)> = heat.iter().map(|(&l, &t)| (l, t)).collect();
        hot.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        let text = found.text().unwrap_or_default();
        let mut lines = Vec::new();
        let mut start = 0;
        for l in text.split_inclusive('\n') {
            let body = l.strip_suffix('\n').unwrap_or(l);
            let body = body.strip_suffix('\r').unwrap_or(body);
            lines.push(start..start + body.len());
            start += l.len();
        }
        // Scopes of this file with their line ranges, in lanes that do not overlap.
        let mut in_file: Vec<(usize, u32, u32)> = if found.text().is_some() {
            a.scopes
                .iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let loc = s.location.as_ref()?;
                    (loc.file_name() == file).then(|| {
                        let last = scope_end_line(text, loc.line)
                            .unwrap_or(loc.line)
                            .max(loc.line);
                        (i, loc.line, last)
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        in_file.sort_by_key(|s| (s.1, std::cmp::Reverse(s.2)));
        let mut placed = Vec::new();
        let mut lane_ends: Vec<u32> = Vec::new();
        for (i, first, last) in in_file {
            let lane = lane_ends
                .iter()
                .position(|&e| e < first)
                .unwrap_or(lane_ends.len());
            if lane == lane_ends.len() {
                lane_ends.push(last);
            } else if let Some(e) = lane_ends.get_mut(lane) {
                *e = last;
            }
            placed.push((i, first, last, lane));
        }
        Prepared {
            analysis: Arc::clone(a),
            file: file.to_owned(),
            found,
            lines,
            heat,
            source,
            hot,
            placed,
            lanes: lane_ends.len(),
            files: a.files(),
        }
    }
}

/// A clickable painted bar, named for accessibility (and the UI tests).
fn bar_button(
    ui: &Ui,
    rect: Rect,
    id: impl std::hash::Hash + std::fmt::Debug,
    label: &str,
) -> egui::Response {
    let r = ui.interact(rect, ui.scope_id().with(id), Sense::click());
    r.widget_info(|| WidgetInfo::labeled(egui::Role::Button, true, label));
    r
}

/// Scope types as the user edits them.
fn types_text(types: &[ScopeType]) -> String {
    types
        .iter()
        .map(|t| t.ty.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// A labelled horizontal bar filled to `fraction`.
fn bar(ui: &mut Ui, text: &str, fraction: f64, color: Color32) {
    ui.horizontal(|ui| {
        let (r, _) = ui.allocate_exact_size(vec2(140.0, 12.0), Sense::hover());
        ui.painter().rect_filled(r, 0.0, theme::BAR_TRACK);
        let w = r.width() * fraction.clamp(0.0, 1.0) as f32;
        ui.painter()
            .rect_filled(Rect::from_min_size(r.min, vec2(w, r.height())), 0.0, color);
        ui.label(text);
    });
}

//! Breakdown windows: for one scope, a bar chart of its inclusive time on each thread, each
//! bar stacked by thread state in the trace's state colours (one bar per task, or per node,
//! when there are more than [`MAX_BARS`] threads), and a second tab with its time per state.
//! Values show on hover, in the trace's time unit and as a share of the window; a toggle
//! plots shares instead of times. Several windows can stay open side by side, one per scope.
//!
//! A window follows the scope panel's latest analysis (the visible window, or the whole
//! trace), and says which window it shows. It exports its numbers as CSV and itself as PNG.
//!
//! A window can also show a set of intervals instead of a scope (a cluster's bursts): the
//! scope analysis restricted to them, computed once in the background, its time per thread
//! and state, and a third tab with the scopes the intervals span (each one's time in them).
//!
//! - `chart`: the two bar charts (`egui_plot`);
//! - `export`: the save dialogs, the CSV and the PNG (a screenshot cropped to the window).

mod chart;
mod export;
mod spans;

use std::collections::BTreeMap;
use std::sync::Arc;

use egui::{Color32, Rect, RichText};

use crate::frame::{format_in_window, format_window};
use crate::rows::{Grouping, Level};
use crate::theme;
use prvscope_analysis::breakdown::Breakdown;
use prvscope_analysis::scopes::{Cancelled, Category, ScopeAnalysis, ScopeKey};
use prvscope_store::Trace;

use crate::capture::PngCapture;
use crate::jobs::Job;
use export::Export;

/// More threads than this are drawn as one bar per task (or per node, when there are more
/// tasks than this too).
pub const MAX_BARS: usize = 64;

/// What the windows need to know of the trace: thread names and groups, state colours and
/// labels, the time unit.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The loaded threads: (store row, name).
    pub threads: Vec<(usize, String)>,
    /// How the threads are drawn when there are more than [`MAX_BARS`] of them.
    pub groups: Option<Groups>,
    pub ns_per_tick: u64,
    state_colors: BTreeMap<u64, Color32>,
    state_labels: BTreeMap<u64, String>,
}

/// Threads grouped into bars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups {
    /// "task" or "node".
    pub by: &'static str,
    /// Each group's label and its loaded threads (store rows).
    pub groups: Vec<(String, Vec<usize>)>,
}

impl Facts {
    /// The facts of a loaded trace.
    pub fn new(trace: &Trace) -> Self {
        let mut state_colors = BTreeMap::new();
        let mut state_labels = BTreeMap::new();
        // Without state records (ovni), the categories are the values of the state type,
        // labelled and coloured as the timeline draws that type.
        let state_type = prvscope_analysis::scopes::state_type(trace.pcf.as_ref(), &trace.store);
        if let Some(pcf) = &trace.pcf {
            if let Some(info) = state_type.and_then(|ty| pcf.event_types.get(&ty)) {
                for (&v, l) in &info.values {
                    state_colors.insert(v, theme::palette(v));
                    state_labels.insert(v, l.trim().to_owned());
                }
            } else {
                for (&v, &c) in &pcf.state_colors {
                    state_colors.insert(v, theme::rgb(c));
                }
                for (&v, l) in &pcf.states {
                    state_labels.insert(v, l.trim().to_owned());
                }
            }
        }
        let threads: Vec<(usize, String)> = trace
            .loaded_rows()
            .into_iter()
            .map(|r| (r, trace.thread_name(r)))
            .collect();
        let groups = (threads.len() > MAX_BARS).then(|| groups(trace)).flatten();
        Facts {
            threads,
            groups,
            ns_per_tick: trace.header.time_unit.ns_per_tick(),
            state_colors,
            state_labels,
        }
    }

    /// The colour of a thread state (its `.pcf` colour, else Paraver's palette).
    pub fn category_color(&self, c: Category) -> Color32 {
        match c {
            Category::State(v) => self
                .state_colors
                .get(&v)
                .copied()
                .unwrap_or_else(|| theme::palette(v)),
            Category::NoState => theme::NO_STATE,
        }
    }

    /// The label of a thread state.
    pub fn category_label(&self, c: Category) -> String {
        match c {
            Category::State(v) => self
                .state_labels
                .get(&v)
                .cloned()
                .unwrap_or_else(|| format!("state {v}")),
            Category::NoState => "no state".to_owned(),
        }
    }

    /// How many pages the per-thread chart has: one, unless one task has more than
    /// [`MAX_BARS`] threads (they are then shown [`MAX_BARS`] at a time).
    pub fn pages(&self) -> usize {
        if self.groups.is_some() {
            1
        } else {
            self.threads.len().div_ceil(MAX_BARS).max(1)
        }
    }

    /// The bars of a breakdown: one per thread, or per group when the threads are grouped.
    pub fn bars(&self, b: &Breakdown) -> Vec<BarRow> {
        match &self.groups {
            Some(g) => g
                .groups
                .iter()
                .map(|(label, rows)| BarRow {
                    label: label.clone(),
                    threads: rows.len(),
                    ticks: b.group(rows),
                })
                .collect(),
            None => self
                .threads
                .iter()
                .map(|(row, name)| BarRow {
                    label: name.clone(),
                    threads: 1,
                    ticks: b.per_thread.get(*row).cloned().unwrap_or_default(),
                })
                .collect(),
        }
    }
}

/// The loaded threads grouped by task, or by node when there are more than [`MAX_BARS`]
/// tasks and the trace names its nodes; `None` when they are one task's (an ovni or OpenMP
/// run): its threads are then shown a page at a time.
fn groups(trace: &Trace) -> Option<Groups> {
    let mut grouping = Grouping::default();
    grouping.set_level(trace, Level::Task);
    let tasks: Vec<(String, Vec<usize>)> = grouping
        .layout(trace)
        .into_iter()
        .map(|item| {
            let rows = item.threads.filter(|&r| trace.is_row_loaded(r)).collect();
            (item.label, rows)
        })
        .filter(|(_, rows): &(String, Vec<usize>)| !rows.is_empty())
        .collect();
    let with_nodes = trace
        .header
        .applications
        .iter()
        .flat_map(|a| &a.tasks)
        .all(|t| t.node > 0);
    if tasks.len() <= 1 {
        return None;
    }
    if tasks.len() <= MAX_BARS || !with_nodes {
        return Some(Groups {
            by: "task",
            groups: tasks,
        });
    }
    let mut by_node: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut row = 0;
    for task in trace.header.applications.iter().flat_map(|a| &a.tasks) {
        let n = task.threads as usize;
        by_node
            .entry(task.node)
            .or_default()
            .extend((row..row + n).filter(|&r| trace.is_row_loaded(r)));
        row += n;
    }
    Some(Groups {
        by: "node",
        groups: by_node
            .into_iter()
            .filter(|(_, rows)| !rows.is_empty())
            .map(|(node, rows)| {
                let n = node as usize;
                let label = prvscope_format::model::object_name(
                    trace.row.as_ref(),
                    Level::Node,
                    n.saturating_sub(1),
                    &[n],
                );
                (label, rows)
            })
            .collect(),
    })
}

/// One bar of the per-thread chart: a thread, or a group of threads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BarRow {
    pub label: String,
    /// The threads it sums (1 for a thread).
    pub threads: usize,
    /// The scope's time on them per state.
    pub ticks: BTreeMap<Category, u64>,
}

/// A window's tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    /// Time per thread (or task, or node), stacked by state.
    #[default]
    Threads,
    /// Time per state.
    States,
    /// The scopes a set of intervals spans (windows of intervals only).
    Scopes,
}

/// What a window of intervals shows instead of a scope's analysis.
pub struct Fixed {
    /// What the intervals are ("the bursts of Cluster 1").
    what: String,
    /// The analysis restricted to them and how many of them lie on the threads it counts,
    /// while it is computed.
    job: Option<Job<Result<(ScopeAnalysis, usize), Cancelled>>>,
    /// The scope types' labels.
    type_labels: BTreeMap<u32, String>,
    /// What the Scopes tab lists, once the analysis is in.
    spans: Option<spans::Spans>,
    intervals: usize,
}

impl Fixed {
    /// The intervals `what`, whose analysis `job` computes; `type_labels` names the scope
    /// types.
    pub fn new(
        what: String,
        job: Job<Result<(ScopeAnalysis, usize), Cancelled>>,
        type_labels: BTreeMap<u32, String>,
    ) -> Self {
        Fixed {
            what,
            job: Some(job),
            type_labels,
            spans: None,
            intervals: 0,
        }
    }
}

/// What the scope panel has for the windows this frame ([`Breakdowns::offer`]).
#[derive(Clone, Default)]
pub struct Latest {
    /// The scope panel's latest analysis.
    pub analysis: Option<Arc<ScopeAnalysis>>,
    /// The analysis covers the whole trace rather than the visible window.
    pub whole_trace: bool,
    /// A newer analysis is being computed.
    pub busy: bool,
}

/// One breakdown window.
pub struct BreakdownWindow {
    id: u64,
    /// Its place in the cascade of windows (from the number open when it opened).
    cascade: usize,
    open: bool,
    facts: Arc<Facts>,
    latest: Latest,
    key: ScopeKey,
    name: String,
    tab: Tab,
    /// Plot shares of the window instead of times.
    percent: bool,
    /// The page of threads shown when one task has more than [`MAX_BARS`] of them.
    page: usize,
    /// The analysis shown and the scope's breakdown in it (`None`: no time there).
    data: Option<(Arc<ScopeAnalysis>, Option<Breakdown>)>,
    /// Where the window was drawn last frame (what a PNG export captures).
    rect: Rect,
    /// The last export's outcome: text, and whether it failed.
    message: Option<(String, bool)>,
    dialog: Option<(Export, crate::file_dialog::FileDialog)>,
    png: Option<PngCapture>,
    /// Bring the window to the front next frame.
    raise: bool,
    /// A window of intervals, not of a scope.
    fixed: Option<Fixed>,
}

impl BreakdownWindow {
    /// The scope shown.
    pub fn key(&self) -> ScopeKey {
        self.key
    }

    /// The scope's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The window's title.
    pub fn title(&self) -> String {
        format!("Breakdown: {}", self.name)
    }

    /// The tab shown.
    pub fn tab(&self) -> Tab {
        self.tab
    }

    /// Shows this tab.
    pub fn set_tab(&mut self, tab: Tab) {
        self.tab = tab;
    }

    /// True when shares of the window are plotted instead of times.
    pub fn percent(&self) -> bool {
        self.percent
    }

    /// Plots shares of the window (`true`) or times.
    pub fn set_percent(&mut self, percent: bool) {
        self.percent = percent;
    }

    /// The breakdown shown, once computed (`None` also when the scope has no time in the
    /// window analysed).
    pub fn breakdown(&self) -> Option<&Breakdown> {
        self.data.as_ref().and_then(|d| d.1.as_ref())
    }

    /// The time range of the analysis shown.
    pub fn window(&self) -> Option<prvscope_draw::frame::TimeWindow> {
        self.data
            .as_ref()
            .map(|d| prvscope_draw::frame::TimeWindow::from_bounds(d.0.t0, d.0.t1))
    }

    /// The last export's outcome, as the window shows it.
    pub fn message(&self) -> Option<&str> {
        self.message.as_ref().map(|m| m.0.as_str())
    }

    /// Where the window was drawn last frame.
    pub fn rect(&self) -> Rect {
        self.rect
    }

    /// True while the analysis of a window of intervals is computed.
    pub fn is_computing(&self) -> bool {
        self.fixed.as_ref().is_some_and(|f| f.job.is_some())
    }

    /// The analysis shown.
    pub fn analysis(&self) -> Option<&Arc<ScopeAnalysis>> {
        self.data.as_ref().map(|d| &d.0)
    }

    /// Takes the analysis of a window of intervals once computed.
    fn poll_fixed(&mut self) {
        let Some(f) = &mut self.fixed else { return };
        let Some(job) = &mut f.job else { return };
        match job.poll() {
            Some(Ok((a, intervals))) => {
                f.spans = Some(spans::Spans::of(&a, &f.type_labels));
                f.intervals = intervals;
                let a = Arc::new(a);
                let b = Breakdown::all(&a, self.key);
                self.data = Some((a, Some(b)));
                f.job = None;
            }
            Some(Err(Cancelled)) => {
                self.message = Some(("the analysis was cancelled".into(), true));
                f.job = None;
            }
            None if !job.is_running() => {
                self.message = Some(("the analysis stopped without a result".into(), true));
                f.job = None;
            }
            None => {}
        }
    }

    /// Takes the breakdown of `a` when it is newer than the one shown.
    fn refresh(&mut self, a: Option<&Arc<ScopeAnalysis>>) {
        if self.fixed.is_some() {
            self.poll_fixed();
            return;
        }
        let Some(a) = a else { return };
        if self.data.as_ref().is_some_and(|d| Arc::ptr_eq(&d.0, a)) {
            return;
        }
        if let Some(s) = a.find(self.key).and_then(|i| a.scopes.get(i)) {
            self.name.clone_from(&s.name);
        }
        self.data = Some((Arc::clone(a), Breakdown::of(a, self.key)));
    }

    /// The trace's facts the window draws with.
    pub fn facts(&self) -> &Facts {
        &self.facts
    }
}

impl crate::windows::ToolWindow for BreakdownWindow {
    fn title(&self) -> String {
        BreakdownWindow::title(self)
    }

    fn is_open(&self) -> bool {
        self.open
    }

    fn poll(&mut self, ctx: &egui::Context, _seen: &crate::windows::Seen<'_>) {
        let facts = Arc::clone(&self.facts);
        self.poll_dialog(ctx, &facts);
        self.finish_png(ctx);
        let latest = self.latest.analysis.clone();
        self.refresh(latest.as_ref());
    }

    fn show(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        let mut open = self.open;
        let id = egui::Id::unique(("breakdown-window", self.id));
        let offset = 28.0 * (self.cascade % 8) as f32;
        // Tall enough for every bar of the per-thread chart, up to a point.
        let bars = self
            .facts
            .groups
            .as_ref()
            .map_or(self.facts.threads.len().min(MAX_BARS), |g| g.groups.len());
        // Over the timeline's right part, above the scope panel below it (windows cascade).
        let screen = ctx.content_rect();
        let height = (bars as f32 * chart::ROW_H + chart::PLOT_EXTRA + 130.0)
            .clamp(300.0, (screen.height() * 0.8).max(300.0));
        let x = (screen.right() - 620.0 - offset).max(screen.left());
        let response = crate::windows::placed(
            ctx,
            id,
            &seen.title(&self.title()),
            egui::Window::new(seen.title(&self.title()))
                .id(id)
                .open(&mut open)
                .default_pos(egui::pos2(x, 60.0 + offset))
                .default_size(egui::vec2(600.0, height))
                .resizable(true),
        )
        .show(ctx, |ui| self.contents(ui));
        if let Some(r) = response {
            self.rect = r.response.rect;
            if self.raise {
                self.raise = false;
                ctx.move_to_top(r.response.layer_id);
            }
        }
        self.open = open;
    }
}

impl BreakdownWindow {
    fn contents(&mut self, ui: &mut egui::Ui) {
        let facts = Arc::clone(&self.facts);
        let facts = &*facts;
        let Some((t0, t1)) = self.window().map(|w| w.bounds()) else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(if self.fixed.is_some() {
                    "analysing the scopes of the intervals…"
                } else {
                    "waiting for the scope analysis…"
                });
            });
            if let Some((text, _)) = &self.message {
                ui.label(RichText::new(text).color(theme::WARNING));
            }
            return;
        };
        let what = match &self.fixed {
            Some(f) => format!("{}, in the whole trace", f.what),
            None if self.latest.whole_trace => "whole trace".to_owned(),
            None => "visible window".to_owned(),
        };
        let busy = if self.fixed.is_some() {
            self.is_computing()
        } else {
            self.latest.busy
        };
        ui.horizontal(|ui| {
            ui.label(format!(
                "{what}: {}",
                format_window(t0, t1, facts.ns_per_tick)
            ));
            if busy {
                ui.spinner();
                ui.label("updating");
            }
        });
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.tab, Tab::Threads, "Per thread");
            ui.selectable_value(&mut self.tab, Tab::States, "Per state");
            if self.fixed.is_some() {
                ui.selectable_value(&mut self.tab, Tab::Scopes, "Scopes");
            }
            ui.separator();
            ui.selectable_value(&mut self.percent, false, "Time");
            ui.selectable_value(&mut self.percent, true, "Percent");
            ui.separator();
            let idle = self.dialog.is_none() && self.png.is_none();
            if ui
                .add_enabled(idle, egui::Button::new("Export CSV…"))
                .clicked()
            {
                self.ask_save(ui.ctx(), Export::Csv);
            }
            if ui
                .add_enabled(idle, egui::Button::new("Export PNG…"))
                .clicked()
            {
                self.ask_save(ui.ctx(), Export::Png);
            }
        });
        if let Some((text, failed)) = &self.message {
            let color = if *failed {
                theme::WARNING
            } else {
                ui.visuals().text_color()
            };
            ui.label(RichText::new(text).color(color));
        }
        let Some(b) = self.breakdown() else {
            ui.label(format!("{} has no time in this window.", self.name));
            return;
        };
        let b = b.clone();
        let subject = if self.fixed.is_some() {
            "the bursts"
        } else {
            "the scope"
        };
        ui.label(format!(
            "{} {} ({:.2}% of the threads' time)",
            if self.fixed.is_some() {
                "time"
            } else {
                "inclusive time"
            },
            format_in_window(b.total, b.span(), facts.ns_per_tick),
            b.percent_of_window(b.total, facts.threads.len())
        ));
        match self.tab {
            Tab::Threads => {
                let pages = facts.pages();
                if pages > 1 {
                    self.page = self.page.min(pages - 1);
                    ui.horizontal(|ui| {
                        if ui
                            .add_enabled(self.page > 0, egui::Button::new("<"))
                            .clicked()
                        {
                            self.page -= 1;
                        }
                        let first = self.page * MAX_BARS;
                        let last = (first + MAX_BARS).min(facts.threads.len());
                        ui.label(format!(
                            "threads {}–{last} of {}",
                            first + 1,
                            facts.threads.len()
                        ));
                        if ui
                            .add_enabled(self.page + 1 < pages, egui::Button::new(">"))
                            .clicked()
                        {
                            self.page += 1;
                        }
                    });
                }
                chart::threads(ui, (self.id, subject), &b, facts, self.percent, self.page);
            }
            Tab::States => chart::states(ui, (self.id, subject), &b, facts, self.percent),
            Tab::Scopes => {
                if let (Some(f), Some(a)) = (&self.fixed, self.analysis())
                    && let Some(s) = &f.spans
                {
                    spans::ui(ui, (a, s), &b, facts, (&f.type_labels, f.intervals));
                }
            }
        }
    }
}

/// The open breakdown windows.
pub struct Breakdowns {
    windows: Vec<BreakdownWindow>,
    next_id: u64,
    facts: Arc<Facts>,
    latest: Latest,
}

impl Breakdowns {
    /// No window yet; those opened draw with `facts`.
    pub fn new(facts: Arc<Facts>) -> Self {
        Self {
            windows: Vec::new(),
            next_id: 0,
            facts,
            latest: Latest::default(),
        }
    }

    /// What the scope panel has this frame, for every window (before they are polled).
    pub fn offer(&mut self, latest: Latest) {
        for w in &mut self.windows {
            w.latest.clone_from(&latest);
        }
        self.latest = latest;
    }

    /// The open windows, to poll and show ([`crate::windows::show_all`]).
    pub fn windows_mut(&mut self) -> impl Iterator<Item = &mut BreakdownWindow> {
        self.windows.iter_mut()
    }

    /// Drops the windows closed.
    pub fn drop_closed(&mut self) {
        self.windows.retain(|w| w.open);
    }

    /// Opens the breakdown of `key` (named `name`) on `tab`, or brings its window to the
    /// front on that tab when it is open.
    pub fn open(&mut self, key: ScopeKey, name: String, tab: Tab) {
        self.open_window(key, name, tab, None);
    }

    /// Opens the window of a set of intervals called `key` and `name` (per thread), or
    /// brings its window to the front with the new intervals' analysis (`fixed`).
    pub fn open_fixed(&mut self, key: ScopeKey, name: String, fixed: Fixed) {
        self.open_window(key, name, Tab::Threads, Some(fixed));
    }

    fn open_window(&mut self, key: ScopeKey, name: String, tab: Tab, fixed: Option<Fixed>) {
        if let Some(w) = self.windows.iter_mut().find(|w| w.key == key) {
            w.tab = tab;
            w.raise = true;
            if fixed.is_some() {
                w.name = name;
                w.fixed = fixed;
                w.data = None;
                w.message = None;
            }
            return;
        }
        self.next_id += 1;
        self.windows.push(BreakdownWindow {
            id: self.next_id,
            cascade: self.windows.len(),
            open: true,
            facts: Arc::clone(&self.facts),
            latest: self.latest.clone(),
            key,
            name,
            tab,
            percent: false,
            page: 0,
            data: None,
            rect: Rect::NOTHING,
            message: None,
            dialog: None,
            png: None,
            raise: true,
            fixed,
        });
    }

    /// How many windows are open.
    pub fn len(&self) -> usize {
        self.windows.len()
    }

    /// True when no window is open.
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }

    /// The open windows, oldest first.
    pub fn windows(&self) -> &[BreakdownWindow] {
        &self.windows
    }

    /// The window of `key`, if open.
    pub fn get(&self, key: ScopeKey) -> Option<&BreakdownWindow> {
        self.windows.iter().find(|w| w.key == key)
    }

    /// The window of `key`, if open, to act on it as the user would.
    pub fn get_mut(&mut self, key: ScopeKey) -> Option<&mut BreakdownWindow> {
        self.windows.iter_mut().find(|w| w.key == key)
    }

    /// Closes the window of `key`.
    pub fn close(&mut self, key: ScopeKey) {
        self.windows.retain(|w| w.key != key);
    }

    /// Closes the windows of the scopes (or interval sets) of event type `ty`.
    pub fn close_type(&mut self, ty: u32) {
        self.windows.retain(|w| w.key.ty != ty);
    }

    /// Closes every window.
    pub fn close_all(&mut self) {
        self.windows.clear();
    }
}

//! Paraver configurations (`.cfg`) in the viewer: File > Open configuration… (or a `.cfg`
//! dropped on the window) computes every analyzer of the cfg over the whole trace, off the
//! UI thread, and opens one histogram window per analyzer.
//!
//! A histogram window is Paraver's table: one row per object, one column per value or bin of
//! the control window (per partner for communication statistics), cells coloured on a
//! gradient from the plane's smallest to its largest value (an empty cell is blank),
//! the six totals rows, a plane selector for 3D analyzers. A click on a column header sorts
//! the rows by that column (again: the other way); a click on a cell outlines on the
//! timeline where that object holds that column's value; a click on a row label plots the
//! row (`egui_plot`). The empty rows and columns are hidden by default, the table may be
//! transposed, and colour mode draws a block per cell ([`grid`]). The numbers are
//! `prvscope paramedir`'s, which equal BSC paramedir's.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui::{Color32, RichText, Ui};
use egui_plot::{Bar, BarChart, Plot};
use prvscope_draw::frame::TimeWindow;
use prvscope_paraver::cfg::Cfg;
use prvscope_paraver::filter::TypesFound;
use prvscope_paraver::objects::Objects;
use prvscope_paraver::paramedir::{Analysis, Context};
use prvscope_paraver::window::{WindowCache, WindowError};
use prvscope_store::Trace;
use prvscope_store::signal::CustomRef;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::jobs::Job;
use crate::shared::Intervals;

mod export;
pub mod grid;
mod table;
pub use export::Export;
pub use grid::{At, Grid, Head};
pub use table::{ROW as TABLE_ROW, time_unit, unit};

/// What a cfg gave.
pub struct CfgResult {
    /// The cfg's file name.
    pub name: String,
    /// The cfg, for recomputing an analyzer over another time range.
    pub cfg: Arc<Cfg>,
    /// Each analyzer, or why it could not be computed.
    pub analyses: Vec<Result<Analysis, String>>,
    /// The names of its timeline windows.
    pub windows: Vec<String>,
    /// Each timeline window as a view, or why it is not drawn.
    pub views: Vec<Result<CustomRef, String>>,
    /// The cfg's window id of each of `views`.
    pub view_windows: Vec<u32>,
    /// What paramedir prints about the cfg and goes on (filter events not in the trace).
    pub warnings: Vec<String>,
}

/// Ids of the cfg views, unique in the process.
static NEXT_VIEW: AtomicU64 = AtomicU64::new(1);

/// Reads and computes `path` over `trace` (run off the UI thread). Its windows are computed
/// once and kept in `cache`: its views show them, its analyzers and later recomputations
/// over other time ranges read them.
pub fn run_cfg(trace: &Trace, cache: Arc<WindowCache>, path: &Path) -> Result<CfgResult, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let cfg = Cfg::parse(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    compute_cfg(trace, cache, cfg, name, None)
}

/// Computes a parsed `cfg` (named `name` in the windows' titles) over `trace`: its views
/// (only window `only`'s when given: a window edited in its properties) and analyzers.
pub fn compute_cfg(
    trace: &Trace,
    cache: Arc<WindowCache>,
    cfg: Cfg,
    name: String,
    only: Option<u32>,
) -> Result<CfgResult, String> {
    let ctx = Context::with_cache(trace, cache);
    // What paramedir refuses the viewer refuses, with its reason; what Paraver does not read
    // of the cfg (after an analyzer it cannot read) is not shown, and says why.
    let checked = ctx.check(&cfg).map_err(|e| e.to_string())?;
    let cut_line = cfg.analyzers.get(checked.readable).map(|a| a.line);
    let not_read = |what: &str| {
        format!(
            "{what}: not read by Paraver, which stops reading the cfg at analyzer {} ({})",
            checked.readable + 1,
            checked.dropped.as_deref().unwrap_or_default()
        )
    };
    let engine = ctx.engine();
    let sentinel = trace.store.null_policy().sentinel;
    let shown: Vec<&prvscope_paraver::cfg::WindowCfg> = cfg
        .windows
        .iter()
        .filter(|w| only.is_none_or(|id| w.id == id))
        .collect();
    let view_windows = shown.iter().map(|w| w.id).collect();
    let views = shown
        .iter()
        .map(|w| {
            if cut_line.is_some_and(|line| w.line > line) {
                return Err(not_read(&format!("window `{}`", w.name)));
            }
            let mut found = TypesFound::default();
            let window = engine
                .window_kept(&cfg, w, &mut found)
                .map_err(|e| match e {
                    WindowError::Unsupported(window, what) => {
                        format!("window `{window}`: {what} is not computed by prvscope")
                    }
                    WindowError::Missing(window, id) => {
                        format!("window `{window}` uses window {id}, which the cfg does not have")
                    }
                })?;
            let kept;
            let c = if let Some(c) = window.kept() {
                c.as_ref()
            } else {
                kept = window.compute();
                &kept
            };
            crate::cfg_view::custom_view(
                NEXT_VIEW.fetch_add(1, Ordering::Relaxed),
                &engine,
                c,
                &ctx.objects,
                trace.store.thread_count(),
                sentinel,
            )
        })
        .collect();
    let analyses = (0..if only.is_some() {
        0
    } else {
        cfg.analyzers.len()
    })
        .map(|i| {
            if i < checked.readable {
                ctx.analysis(&cfg, i, None).map_err(|e| e.to_string())
            } else {
                Err(not_read(&format!("analyzer {}", i + 1)))
            }
        })
        .collect();
    let windows = cfg.windows.iter().map(|w| w.name.clone()).collect();
    Ok(CfgResult {
        warnings: checked.warnings,
        views,
        view_windows,
        cfg: Arc::new(cfg),
        name,
        analyses,
        windows,
    })
}

/// A cfg being computed.
pub struct CfgRun {
    pub path: PathBuf,
    pub job: Job<Result<CfgResult, String>>,
}

impl CfgRun {
    pub fn start(
        ctx: &egui::Context,
        trace: &Trace,
        cache: Arc<WindowCache>,
        path: PathBuf,
    ) -> CfgRun {
        let trace = trace.clone();
        let p = path.clone();
        CfgRun {
            path,
            job: Job::spawn(ctx, "cfg", move |_| run_cfg(&trace, cache, &p)),
        }
    }
}

/// A menu of the cfgs under `dir`, one submenu per folder (Paraver's library is sorted by
/// topic: `General/`, `mpi/analysis/`, ...): the cfg picked, if any.
pub fn browse(ui: &mut Ui, dir: &Path) -> Option<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        ui.label(format!("cannot read {}", dir.display()));
        return None;
    };
    let mut dirs = Vec::new();
    let mut cfgs = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            dirs.push(p);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("cfg")) {
            cfgs.push(p);
        }
    }
    dirs.sort();
    cfgs.sort();
    if dirs.is_empty() && cfgs.is_empty() {
        ui.label("(no .cfg here)");
    }
    let mut picked = None;
    for d in &dirs {
        let name = d
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        ui.menu_button(name, |ui| {
            if let Some(p) = browse(ui, d) {
                picked = Some(p);
            }
        });
    }
    for c in cfgs {
        let name = c
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if ui.button(name).clicked() {
            picked = Some(c);
        }
    }
    picked
}

/// One histogram window.
pub struct HistogramWindow {
    /// Unique among the open windows (egui's id).
    id: u64,
    pub title: String,
    pub analysis: Analysis,
    /// The thread rows of each row of the histogram (its control window's objects).
    threads: Vec<Range<usize>>,
    pub open: bool,
    plane: usize,
    /// Rows sorted by a column: (column, descending).
    sort: Option<(usize, bool)>,
    /// The cell outlined on the timeline: (row, column).
    pub selected: Option<(usize, usize)>,
    /// The row plotted under the table.
    plot_row: Option<usize>,
    /// Follow the timeline's visible window (else the whole trace, or the cfg's limits).
    pub follow: bool,
    /// The time range the table was computed for (`None`: the cfg's analysis limits).
    pub computed_for: Option<TimeWindow>,
    source: Source,
    /// A recomputation for another time range.
    job: Option<(Option<TimeWindow>, AnalysisJob)>,
    error: Option<String>,
    /// The table's column and label widths (they only grow), and whether they were measured
    /// for the analysis shown.
    widths: table::Widths,
    measured: bool,
    /// Scroll the cells to this (row, column) when next drawn.
    scroll_to: Option<(usize, usize)>,
    /// Each plane's smallest and largest cell (the gradient's ends), for the analysis shown.
    ranges: Vec<(f64, f64)>,
    /// How the table shows the plane.
    pub look: Look,
    /// Transposed: the values sorted by an object's row: (row, largest first).
    sort_t: Option<(usize, bool)>,
    /// Changes with every analysis shown (colour mode's images are of one).
    generation: u64,
    /// Colour mode's images and what they were made of.
    images: Option<(table::ImagesKey, Vec<table::Tile>)>,
    /// The save dialog open, and for what.
    dialog: Option<(Export, crate::file_dialog::FileDialog)>,
    /// The last export's outcome (text, failed), or why a cell has no time to show.
    message: Option<(String, bool)>,
    /// Colour mode: the cell whose context menu is open.
    menu_cell: Option<(usize, usize)>,
    /// The grid drawn, and what it was made of (made again only when that changes, not
    /// every frame: hiding the empty rows and columns reads every cell).
    grid_cache: Option<(GridKey, Grid)>,
}

/// What a window's grid is made of.
type GridKey = (
    u64,
    usize,
    bool,
    bool,
    bool,
    Option<(usize, bool)>,
    Option<(usize, bool)>,
);

/// How a histogram window's table shows its plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// Hide the rows and columns without a value (as `paramedir -e`; on by default).
    pub hide_empty: bool,
    /// Objects as columns, the control values as rows.
    pub transposed: bool,
    /// Colour mode: cells as blocks on the gradient, the numbers on hover.
    pub colours: bool,
    /// Colour mode's block size, in points (small: the whole table at once).
    pub cell_size: f32,
}

impl Default for Look {
    fn default() -> Self {
        Look {
            hide_empty: true,
            transposed: false,
            colours: false,
            cell_size: 8.0,
        }
    }
}

/// An analyzer being recomputed.
type AnalysisJob = Job<Result<Analysis, String>>;

/// Where a window's table comes from: analyzer `index` of `cfg` over `trace`, its windows
/// kept in `cache`.
struct Source {
    trace: Trace,
    cfg: Arc<Cfg>,
    index: usize,
    cache: Arc<WindowCache>,
}

/// The gradient of the cells: pale for the plane's smallest value, dark for its largest.
pub fn gradient(v: f64, lo: f64, hi: f64) -> Color32 {
    let t = if hi > lo {
        ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
    } else {
        1.0
    } as f32;
    let mix = |a: u8, b: u8| (f32::from(a) + (f32::from(b) - f32::from(a)) * t).round() as u8;
    Color32::from_rgb(mix(200, 10), mix(230, 60), mix(255, 170))
}

impl HistogramWindow {
    pub fn new(
        id: u64,
        cfg_name: &str,
        analysis: Analysis,
        trace: &Trace,
        cfg: Arc<Cfg>,
        index: usize,
        cache: Arc<WindowCache>,
    ) -> HistogramWindow {
        let objects = Objects::new(&trace.header, trace.row.as_ref());
        let level = analysis.control.info.level;
        // CPUs, nodes and the system are no set of threads: their cells outline nothing.
        let resource = matches!(
            level,
            prvscope_paraver::cfg::Level::Cpu
                | prvscope_paraver::cfg::Level::Node
                | prvscope_paraver::cfg::Level::System
        );
        let threads = (0..analysis.control.rows.len())
            .map(|o| {
                if resource {
                    0..0
                } else {
                    objects.thread_rows(level, o)
                }
            })
            .collect();
        HistogramWindow {
            id,
            title: format!("{} ({cfg_name})", analysis.name),
            analysis,
            threads,
            open: true,
            plane: 0,
            sort: None,
            selected: None,
            plot_row: None,
            follow: false,
            computed_for: None,
            source: Source {
                trace: trace.clone(),
                cfg,
                index,
                cache,
            },
            job: None,
            error: None,
            widths: table::Widths::default(),
            measured: false,
            scroll_to: None,
            ranges: Vec::new(),
            look: Look::default(),
            sort_t: None,
            generation: 0,
            images: None,
            dialog: None,
            message: None,
            menu_cell: None,
            grid_cache: None,
        }
    }

    /// Recomputes the table when it follows the timeline and the visible window moved (or
    /// when it stopped following); takes a finished recomputation.
    pub fn update(&mut self, ctx: &egui::Context, visible: TimeWindow) {
        if let Some((range, job)) = &mut self.job
            && let Some(result) = job.poll()
        {
            let range = *range;
            self.job = None;
            match result {
                Ok(a) => {
                    self.analysis = a;
                    self.measured = false;
                    self.ranges.clear();
                    self.generation += 1;
                    self.computed_for = range;
                    self.error = None;
                    self.selected = None;
                }
                Err(e) => self.error = Some(e),
            }
        }
        let want = self.follow.then_some(visible);
        if want != self.computed_for && self.job.is_none() && self.error.is_none() {
            let (trace, cfg, index, cache) = (
                self.source.trace.clone(),
                Arc::clone(&self.source.cfg),
                self.source.index,
                Arc::clone(&self.source.cache),
            );
            // Read from the kept windows (their index, for a profile of a few values): a
            // few milliseconds that answer the timeline's move.
            let job = Job::spawn_interactive(ctx, "histogram", move |_| {
                Context::with_cache(&trace, cache)
                    .analysis(&cfg, index, want.map(|w| w.bounds()))
                    .map_err(|e| e.to_string())
            });
            self.job = Some((want, job));
        }
    }

    /// Is a recomputation running?
    pub fn computing(&self) -> bool {
        self.job.is_some()
    }

    /// Shows the window.
    fn show_window(&mut self, ctx: &egui::Context, title: &str) {
        let mut open = self.open;
        crate::windows::placed(
            ctx,
            egui::Id::NULL.with(("histogram", self.id)),
            title,
            egui::Window::new(title)
                .id(egui::Id::NULL.with(("histogram", self.id)))
                .open(&mut open)
                .default_size([900.0, 440.0])
                .resizable(true),
        )
        .show(ctx, |ui| self.ui(ui));
        self.open = open;
        if !self.open {
            self.selected = None;
        }
    }

    /// [`Self::grid`], made again only when the table, the plane or the look changed.
    fn shown_grid(&mut self) -> Grid {
        let key = (
            self.generation,
            self.plane,
            self.look.hide_empty,
            self.look.transposed,
            self.look.colours,
            self.sort,
            self.sort_t,
        );
        if let Some((k, g)) = &self.grid_cache
            && *k == key
        {
            return g.clone();
        }
        let g = self.grid();
        self.grid_cache = Some((key, g.clone()));
        g
    }

    /// The display rows and columns of the plane shown.
    pub fn grid(&self) -> Grid {
        let h = &self.analysis.histogram;
        let Some(p) = h.planes.get(self.plane) else {
            return Grid {
                rows: Vec::new(),
                cols: Vec::new(),
                transposed: self.look.transposed,
                totals: false,
            };
        };
        Grid::new(
            p,
            grid::Shape {
                hide_empty: self.look.hide_empty,
                transposed: self.look.transposed,
                totals: !self.look.colours,
                sort: self.sort,
                sort_t: self.sort_t,
            },
        )
    }

    /// The window's content.
    pub fn ui(&mut self, ui: &mut Ui) {
        let h = &self.analysis.histogram;
        if h.planes.is_empty() {
            ui.label("No object has a value in this histogram's range.");
            return;
        }
        self.plane = self.plane.min(h.planes.len() - 1);
        ui.horizontal(|ui| {
            ui.label(format!("Statistic: {}", h.statistic));
            if h.planes.len() > 1 {
                egui::ComboBox::from_label("plane")
                    .selected_text(h.planes[self.plane].label.clone().unwrap_or_default())
                    .show_ui(ui, |ui| {
                        for (i, p) in h.planes.iter().enumerate() {
                            ui.selectable_value(
                                &mut self.plane,
                                i,
                                p.label.clone().unwrap_or_default(),
                            );
                        }
                    });
            }
            let follow = ui
                .checkbox(&mut self.follow, "Follow the timeline window")
                .on_hover_text("Compute over the visible window instead of the whole trace");
            if follow.changed() {
                self.error = None;
            }
            let what = match self.computed_for {
                Some(w) => {
                    let (t0, t1) = w.bounds();
                    // Times with the window's digits, as the timeline shows them.
                    let npt = self.source.trace.header.time_unit.ns_per_tick();
                    let t = |x: u64| crate::frame::format_in_window(x, t1 - t0, npt);
                    format!("from {} to {}", t(t0), t(t1))
                }
                None => "whole trace (the cfg's limits)".to_owned(),
            };
            ui.label(RichText::new(what).weak());
            if self.job.is_some() {
                ui.spinner();
            }
            if let Some(e) = &self.error {
                ui.label(RichText::new(e).color(crate::theme::ERROR));
            }
            if let Some((m, failed)) = &self.message {
                let color = if *failed {
                    crate::theme::WARNING
                } else {
                    ui.visuals().text_color()
                };
                ui.label(RichText::new(m).color(color));
            }
        });
        // Each plane's smallest and largest cell, found once per table (not every frame).
        if self.ranges.len() != h.planes.len() {
            self.ranges = h
                .planes
                .iter()
                .map(|p| {
                    p.cells
                        .iter()
                        .flatten()
                        .flatten()
                        .filter(|v| v.is_finite())
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                            (a.min(v), b.max(v))
                        })
                })
                .collect();
        }
        let range = self.ranges[self.plane];
        let (lo, hi) = range;
        self.shape_ui(ui);
        let grid = self.shown_grid();
        let plot_height = if self.plot_row.is_some() { 160.0 } else { 0.0 };
        let table_height = (ui.available_height() - plot_height).max(80.0);
        let clicks = if self.look.colours {
            self.colour_table(ui, table_height, range, &grid)
        } else {
            self.table(ui, table_height, range, &grid)
        };
        if clicks.menu_cell.is_some() {
            self.menu_cell = clicks.menu_cell;
        }
        match clicks.action {
            Some(export::CellAction::Save(kind)) => self.ask_save(ui.ctx(), kind),
            Some(export::CellAction::Show(r, c)) => match self.cell_time(r, c) {
                Ok(w) => {
                    self.selected = Some((r, c));
                    crate::commands::send(ui.ctx(), crate::commands::Command::GoTo(w));
                }
                Err(why) => self.message = Some((format!("no time to show: {why}"), true)),
            },
            None => {}
        }
        if let Some(r) = clicks.sort_row {
            self.sort_t = match self.sort_t {
                Some((s, desc)) if s == r => Some((r, !desc)),
                _ => Some((r, true)),
            };
        }
        let (clicked_cell, clicked_col, clicked_row) = (clicks.cell, clicks.column, clicks.row);
        if let Some(c) = clicked_col {
            self.sort = match self.sort {
                Some((s, desc)) if s == c => Some((c, !desc)),
                _ => Some((c, true)),
            };
        }
        if let Some(cell) = clicked_cell {
            self.selected = if self.selected == Some(cell) {
                None
            } else {
                Some(cell)
            };
        }
        if let Some(r) = clicked_row {
            self.plot_row = if self.plot_row == Some(r) {
                None
            } else {
                Some(r)
            };
        }
        let h = &self.analysis.histogram;
        let plane = &h.planes[self.plane];
        if let Some(r) = self.plot_row {
            let bars: Vec<Bar> = plane.cells[r]
                .iter()
                .enumerate()
                .map(|(c, v)| Bar::new(c as f64, v.unwrap_or(0.0)).name(&plane.columns[c]))
                .collect();
            let columns = plane.columns.clone();
            Plot::new(("histogram-plot", self.id))
                .height(plot_height - 10.0)
                .x_axis_formatter(move |mark, _| {
                    let i = mark.value.round();
                    if (mark.value - i).abs() < 1e-6 && i >= 0.0 {
                        columns.get(i as usize).cloned().unwrap_or_default()
                    } else {
                        String::new()
                    }
                })
                .show(ui, |p| {
                    p.bar_chart(
                        BarChart::new(h.row_labels[r].clone(), bars).color(gradient(hi, lo, hi)),
                    );
                });
        }
    }

    /// The table's shape: empty rows and columns hidden, transposed, colour or numbers.
    fn shape_ui(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.look.hide_empty, "Hide empty")
                .on_hover_text("Hide the rows and columns without a value (paramedir -e)");
            if ui
                .checkbox(&mut self.look.transposed, "Transpose")
                .on_hover_text("The objects as columns, the control values as rows")
                .changed()
            {
                // Other headers and labels: measured anew.
                self.widths = table::Widths::default();
                self.measured = false;
            }
            ui.separator();
            ui.selectable_value(&mut self.look.colours, false, "Numbers");
            ui.selectable_value(&mut self.look.colours, true, "Colours")
                .on_hover_text("Cells as blocks on the gradient, the numbers on hover");
            if self.look.colours {
                ui.add(
                    egui::Slider::new(&mut self.look.cell_size, 1.0..=24.0)
                        .text("cell size")
                        .step_by(1.0),
                );
            }
            let g = self.shown_grid();
            let h = &self.analysis.histogram;
            let p = &h.planes[self.plane];
            ui.label(
                RichText::new(format!(
                    "{} of {} rows, {} of {} columns",
                    g.rows.len(),
                    p.cells.len(),
                    g.cols.len(),
                    p.columns.len()
                ))
                .weak(),
            );
        });
    }

    /// Where the selected cell's object holds its column's value, per thread row (for the
    /// timeline's outline); `None` without a selection or for partner columns.
    pub fn highlight(&self, n_threads: usize) -> Option<Intervals> {
        let (r, c) = self.selected?;
        let plane = self.analysis.histogram.planes.get(self.plane)?;
        let (lo, hi) = plane.column_values.get(c).copied().flatten()?;
        let r = *self.analysis.histogram.row_objects.get(r)?;
        let row = self.analysis.control.rows.get(r)?;
        let hold: Vec<(u64, u64)> = row
            .iter()
            .filter(|i| i.end > i.begin && i.value >= lo && i.value < hi)
            .map(|i| (i.begin, i.end))
            .collect();
        let mut out = vec![Vec::new(); n_threads];
        for t in self.threads.get(r)?.clone() {
            if let Some(v) = out.get_mut(t) {
                v.clone_from(&hold);
            }
        }
        Some(Arc::new(out))
    }
}

fn gradient_is_dark(v: f64, lo: f64, hi: f64) -> bool {
    let c = gradient(v, lo, hi);
    u32::from(c.r()) + u32::from(c.g()) + u32::from(c.b()) < 380
}

impl crate::windows::ToolWindow for HistogramWindow {
    fn title(&self) -> String {
        self.title.clone()
    }
    fn is_open(&self) -> bool {
        self.open
    }
    fn poll(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        self.poll_dialog(ctx);
        self.update(ctx, seen.visible);
    }
    fn show(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        self.show_window(ctx, &seen.title(&self.title));
    }
}

//! Analysis > POP metrics: the POP efficiency metrics of the open trace, and of other runs
//! of its scaling series added from files, as BSC's modelfactors lays them out (see
//! `prvscope_paraver::pop`): a table coloured as POP reports colour it (green from 80%,
//! orange from 60%, red below), the efficiencies and the speedup against the number of
//! processes (`egui_plot`), the metrics of the timeline's visible window (a region of
//! interest: the trace cut to it as Paraver's cutter cuts it, its metrics those pypop gives
//! for the cut trace, with itself as reference; shown beside the series, never in it), and
//! CSV and PNG exports. Figures are
//! computed off the UI thread; every failure (a file that does not load, a dialog that does
//! not open, a file that cannot be written) is said in the window.

use prvscope_draw::frame::TimeWindow;
use std::path::{Path, PathBuf};

use egui::{Color32, RichText};
use egui_plot::{GridMark, Line, Plot, PlotPoints, Points};

use prvscope_paraver::pop::{self, Figures};
use prvscope_store::Trace;

use crate::capture::PngCapture;
use crate::file_dialog::{FileDialog, Kind, Spec};
use crate::jobs::Job;

/// Named runs.
type Runs = Vec<(String, Figures)>;

/// What a background computation gives: runs of the series, or a region.
enum Computed {
    Runs(Runs),
    Region(String, Figures),
}

/// The metrics of a series, and what is being computed.
pub struct PopWindow {
    pub open: bool,
    /// Runs (a name and its figures), ordered by number of processes.
    runs: Vec<(String, Figures)>,
    /// Regions of interest (a name and the figures of the trace cut to it), each its own
    /// reference.
    regions: Vec<(String, Figures)>,
    /// The trace files of the runs shown or being computed (a run is added once).
    sources: Vec<PathBuf>,
    computing: Option<Job<Result<Computed, String>>>,
    dialog: Option<(Purpose, FileDialog)>,
    message: Option<(String, bool)>,
    png: Option<PngCapture>,
    rect: egui::Rect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    AddRuns,
    SaveCsv,
    SavePng,
}

/// POP's traffic light for an efficiency (percent).
pub fn traffic_light(v: f64) -> Color32 {
    if v >= 80.0 {
        Color32::from_rgb(90, 180, 90)
    } else if v >= 60.0 {
        Color32::from_rgb(230, 160, 60)
    } else {
        Color32::from_rgb(210, 80, 70)
    }
}

impl PopWindow {
    /// Starts computing the metrics of `trace` (named `name`).
    pub fn new(ctx: &egui::Context, trace: &Trace, name: String) -> PopWindow {
        let trace = trace.clone();
        PopWindow {
            open: true,
            runs: Vec::new(),
            regions: Vec::new(),
            sources: vec![same_file(&trace.path)],
            computing: Some(Job::spawn(ctx, "pop", move |_| {
                pop::figures(&trace).map(|f| Computed::Runs(vec![(name, f)]))
            })),
            dialog: None,
            message: None,
            png: None,
            rect: egui::Rect::NOTHING,
        }
    }

    /// The runs shown.
    pub fn runs(&self) -> &[(String, Figures)] {
        &self.runs
    }

    /// The regions shown.
    pub fn regions(&self) -> &[(String, Figures)] {
        &self.regions
    }

    /// Is something still being computed?
    pub fn busy(&self) -> bool {
        self.computing.is_some()
    }

    /// Takes what the background work gave.
    pub fn poll(&mut self, ctx: &egui::Context) {
        if let Some(job) = &mut self.computing
            && let Some(result) = job.poll()
        {
            self.computing = None;
            match result {
                Ok(Computed::Runs(runs)) => {
                    self.runs.extend(runs);
                    self.runs.sort_by_key(|(_, f)| f.processes);
                }
                Ok(Computed::Region(name, f)) => self.regions.push((name, f)),
                Err(e) => {
                    // The runs that failed are not in the series.
                    let shown: Vec<String> = self.runs.iter().map(|(n, _)| n.clone()).collect();
                    self.sources.retain(|p| shown.contains(&name_of(p)));
                    self.message = Some((e, true));
                }
            }
        }
        let Some((purpose, d)) = &mut self.dialog else {
            return;
        };
        let purpose = *purpose;
        let Some(paths) = d.poll(ctx) else {
            return;
        };
        self.dialog = None;
        if paths.is_empty() {
            self.message = Some(("no file chosen".to_owned(), true));
            return;
        }
        match purpose {
            Purpose::AddRuns => self.add_runs(ctx, paths),
            Purpose::SaveCsv => self.save_csv(&paths[0]),
            Purpose::SavePng => self.save_png(paths[0].clone()),
        }
    }

    /// Loads the traces of `paths` and adds their runs (in the background).
    pub fn add_runs(&mut self, ctx: &egui::Context, paths: Vec<PathBuf>) {
        self.message = None;
        let (again, paths): (Vec<PathBuf>, Vec<PathBuf>) = paths
            .into_iter()
            .partition(|p| self.sources.contains(&same_file(p)));
        if !again.is_empty() {
            let names: Vec<String> = again.iter().map(|p| name_of(p)).collect();
            self.message = Some((
                format!("already in the series: {}", names.join(", ")),
                false,
            ));
        }
        if paths.is_empty() {
            return;
        }
        self.sources.extend(paths.iter().map(|p| same_file(p)));
        self.computing = Some(Job::spawn(ctx, "pop-series", move |_| {
            paths
                .iter()
                .map(|p| {
                    let t =
                        prvscope_import::load(p, &prvscope_import::LoadOptions::default(), None)
                            .map_err(|e| e.to_string())?;
                    let f = pop::figures(&t).map_err(|e| format!("{}: {e}", p.display()))?;
                    Ok((name_of(p), f))
                })
                .collect::<Result<Runs, String>>()
                .map(Computed::Runs)
        }));
    }

    /// Adds the metrics of `trace` over `window` (ticks; the timeline's visible window) as a
    /// region: the trace cut to it, its own reference.
    pub fn add_window(&mut self, ctx: &egui::Context, trace: &Trace, window: TimeWindow) {
        let trace = trace.clone();
        let npt = trace.header.time_unit.ns_per_tick();
        let name = format!(
            "region {}",
            crate::frame::format_window(window.start, window.end(), npt)
        );
        // The last message was about something else.
        self.message = None;
        if self.regions.iter().any(|(n, _)| *n == name) {
            self.message = Some((format!("{name} is already shown"), false));
            return;
        }
        self.computing = Some(Job::spawn(ctx, "pop-window", move |_| {
            pop::figures_in(&trace, Some(window.bounds()))
                .map(|f| Computed::Region(name.clone(), f))
                .map_err(|e| format!("{name}: {e}"))
        }));
    }

    /// Saves the window as drawn next frame to `path` (PNG); the outcome is said in it.
    pub fn save_png(&mut self, path: PathBuf) {
        self.png = Some(PngCapture::new(path));
    }

    fn finish_png(&mut self, ctx: &egui::Context) {
        let Some(capture) = &mut self.png else {
            return;
        };
        if let Some((path, saved)) = capture.poll(ctx, self.rect) {
            self.png = None;
            self.message = Some(match saved {
                Ok(()) => (format!("saved {}", path.display()), false),
                Err(e) => (format!("could not save {}: {e}", path.display()), true),
            });
        }
    }

    /// Writes modelfactors' CSV of the runs to `path`, and says how it went.
    pub fn save_csv(&mut self, path: &Path) {
        let figures: Vec<Figures> = self.runs.iter().map(|(_, f)| f.clone()).collect();
        self.message = Some(match std::fs::write(path, pop::csv(&figures)) {
            Ok(()) => (format!("saved {}", path.display()), false),
            Err(e) => (format!("could not save {}: {e}", path.display()), true),
        });
    }

    fn ask(&mut self, ctx: &egui::Context, purpose: Purpose) {
        let spec = match purpose {
            // From the folder of the run shown (the series' runs usually sit together).
            Purpose::AddRuns => Spec::new("Add runs of the series", Kind::OpenMany)
                .filter("Paraver trace", &["prv", "gz", "xz"])
                .dir(
                    self.sources
                        .first()
                        .and_then(|p| p.parent())
                        .filter(|d| d.is_dir())
                        .map(Path::to_path_buf),
                ),
            Purpose::SaveCsv => Spec::new("Export CSV", Kind::Save("modelfactors.csv".into()))
                .filter("csv", &["csv"]),
            Purpose::SavePng => Spec::new("Export PNG", Kind::Save("pop_metrics.png".into()))
                .filter("png", &["png"]),
        };
        self.dialog = Some((purpose, FileDialog::open(ctx, spec)));
    }

    /// Draws the window; `visible` is the open trace and its timeline's visible window.
    fn show_window(
        &mut self,
        ctx: &egui::Context,
        visible: Option<(&Trace, TimeWindow)>,
        title: &str,
    ) {
        let mut open = self.open;
        let shown = crate::windows::placed(
            ctx,
            egui::Id::NULL.with("pop window"),
            title,
            egui::Window::new(title)
                .id(egui::Id::NULL.with("pop window"))
                .open(&mut open)
                .default_size([760.0, 560.0]),
        )
        .show(ctx, |ui| {
            // A table of many runs scrolls within the window (docked, it is no wider than
            // the dock).
            egui::ScrollArea::horizontal().show(ui, |ui| self.ui(ui, visible));
        });
        if let Some(r) = shown {
            self.rect = r.response.rect;
        }
        self.open = open;
    }

    fn ui(&mut self, ui: &mut egui::Ui, visible: Option<(&Trace, TimeWindow)>) {
        ui.horizontal_wrapped(|ui| {
            let idle = self.computing.is_none() && self.dialog.is_none() && self.png.is_none();
            if let Some((trace, window)) = visible
                && ui
                    .add_enabled(idle, egui::Button::new("Add the visible window"))
                    .on_hover_text(
                        "The metrics of the part of the run the timeline shows (a region of \
                         interest): the trace cut to it as Paraver's cutter cuts it, measured \
                         as pypop measures a cut trace, with itself as reference",
                    )
                    .clicked()
            {
                self.add_window(ui.ctx(), trace, window);
            }
            if ui
                .add_enabled(idle, egui::Button::new("Add runs of the series…"))
                .on_hover_text("Traces of the same program on other numbers of processes")
                .clicked()
            {
                self.ask(ui.ctx(), Purpose::AddRuns);
            }
            if ui
                .add_enabled(
                    idle && !self.runs.is_empty(),
                    egui::Button::new("Export CSV…"),
                )
                .on_hover_text("BSC modelfactors' layout")
                .clicked()
            {
                self.ask(ui.ctx(), Purpose::SaveCsv);
            }
            if ui
                .add_enabled(
                    idle && !self.runs.is_empty(),
                    egui::Button::new("Export PNG…"),
                )
                .clicked()
            {
                self.ask(ui.ctx(), Purpose::SavePng);
            }
            if self.computing.is_some() {
                ui.spinner();
                ui.label("computing…");
            }
        });
        if let Some((text, error)) = &self.message {
            let color = if *error {
                ui.visuals().error_fg_color
            } else {
                ui.visuals().weak_text_color()
            };
            ui.label(RichText::new(text).color(color));
        }
        if self.runs.is_empty() && self.regions.is_empty() {
            return;
        }
        for (name, f) in self.runs.iter().chain(&self.regions) {
            for caveat in f.caveats() {
                ui.label(
                    RichText::new(format!("{name}: {caveat}"))
                        .color(ui.visuals().warn_fg_color)
                        .small(),
                );
            }
        }
        let figures: Vec<Figures> = self.runs.iter().map(|(_, f)| f.clone()).collect();
        // POP's tree: global efficiency first (modelfactors lists it after computation
        // scalability).
        let global_first = |mut metrics: Vec<pop::Metric>| {
            if let Some(k) = metrics.iter().position(|m| m.name == "Global efficiency") {
                let global = metrics.remove(k);
                metrics.insert(0, global);
            }
            metrics
        };
        let mut metrics = global_first(pop::metrics(&figures));
        // Each region is its own series of one run: its column is the metrics of that run.
        let regions: Vec<Vec<pop::Metric>> = self
            .regions
            .iter()
            .map(|(_, f)| global_first(pop::metrics(std::slice::from_ref(f))))
            .collect();
        if metrics.is_empty()
            && let Some(first) = regions.first()
        {
            metrics = first
                .iter()
                .map(|m| pop::Metric {
                    values: Vec::new(),
                    ..m.clone()
                })
                .collect();
        }
        let mut remove = None;
        egui::Grid::new("pop-table").striped(true).show(ui, |ui| {
            ui.label(RichText::new("Run").strong());
            for (k, (name, _)) in self.runs.iter().enumerate() {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(name).small());
                    if ui
                        .small_button("×")
                        .on_hover_text("Remove this run from the series")
                        .clicked()
                    {
                        remove = Some((false, k));
                    }
                });
            }
            for (k, (name, _)) in self.regions.iter().enumerate() {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(name).small().italics())
                        .on_hover_text(REGION_NOTE);
                    if ui
                        .small_button("×")
                        .on_hover_text("Remove this region")
                        .clicked()
                    {
                        remove = Some((true, k));
                    }
                });
            }
            ui.end_row();
            ui.label(RichText::new("Number of processes").strong());
            for (_, f) in self.runs.iter().chain(&self.regions) {
                ui.label(RichText::new(f.processes.to_string()).strong());
            }
            ui.end_row();
            for m in &metrics {
                // POP's tree, as modelfactors indents it.
                ui.horizontal(|ui| {
                    ui.add_space(f32::from(m.depth) * 12.0);
                    ui.label(m.name);
                });
                let region_values = regions.iter().map(|r| {
                    r.iter()
                        .find(|x| x.name == m.name)
                        .and_then(|x| x.values.first().copied().flatten())
                });
                let values: Vec<Option<f64>> =
                    m.values.iter().copied().chain(region_values).collect();
                for v in &values {
                    match v {
                        Some(v) if m.percent => {
                            let text = RichText::new(format!("{v:.2}"))
                                .color(Color32::BLACK)
                                .background_color(traffic_light(*v));
                            ui.label(text);
                        }
                        Some(v) => {
                            ui.label(format!("{v:.2}"));
                        }
                        None => {
                            ui.label("n/a").on_hover_text("not computed for this run");
                        }
                    }
                }
                ui.end_row();
            }
        });
        if let Some((region, k)) = remove {
            // Gone from the table and the charts at the next frame.
            if region {
                self.regions.remove(k);
            } else {
                let (name, _) = self.runs.remove(k);
                self.sources.retain(|p| name_of(p) != name);
            }
            ui.ctx().request_repaint();
            return;
        }
        ui.separator();
        let procs: Vec<f64> = self.runs.iter().map(|(_, f)| f.processes as f64).collect();
        // A series as a line with a marker on each run (a single run shows as a point), in
        // one colour of its own.
        let series = |plot: &mut egui_plot::PlotUi<'_>,
                      k: usize,
                      name: &str,
                      values: &[Option<f64>]| {
            let points: Vec<[f64; 2]> = procs
                .iter()
                .zip(values)
                .filter_map(|(&p, v)| v.map(|v| [p, v]))
                .collect();
            let color = SERIES_COLOURS[k % SERIES_COLOURS.len()];
            plot.line(Line::new(name.to_owned(), PlotPoints::from(points.clone())).color(color));
            plot.points(
                Points::new(name.to_owned(), PlotPoints::from(points))
                    .color(color)
                    .radius(3.0),
            );
        };
        // Half a process of margin either side, so that the first and last runs are seen.
        let x_range = (
            procs.iter().copied().fold(f64::MAX, f64::min) - 0.5,
            procs.iter().copied().fold(f64::MIN, f64::max) + 0.5,
        );
        // A tick and a label on the x axis at each run's processes, none between.
        let span = (x_range.1 - x_range.0).max(1.0);
        let marks: Vec<GridMark> = procs
            .iter()
            .map(|&value| GridMark {
                value,
                step_size: span,
            })
            .collect();
        let charted = [
            "Parallel efficiency",
            "Load balance",
            "Communication efficiency",
            "Process level efficiency",
            "Thread level efficiency",
            "Computation scalability",
            "Global efficiency",
        ];
        let efficiencies: Vec<&pop::Metric> = metrics
            .iter()
            .filter(|m| charted.contains(&m.name))
            .collect();
        ui.columns(2, |cols| {
            // The legends above the charts, never over their lines.
            chart_legend(
                &mut cols[0],
                efficiencies
                    .iter()
                    .map(|m| m.name)
                    .collect::<Vec<_>>()
                    .as_slice(),
            );
            Plot::new("pop-efficiencies")
                .include_x(x_range.0)
                .include_x(x_range.1)
                .x_grid_spacer(|_| marks.clone())
                .x_axis_formatter(|mark, _| format!("{}", mark.value))
                .height(220.0)
                .x_axis_label("processes")
                .y_axis_label("%")
                .show(&mut cols[0], |plot| {
                    for (k, m) in efficiencies.iter().enumerate() {
                        series(plot, k, m.name, &m.values);
                    }
                });
            let speedup = metrics
                .iter()
                .find(|m| m.name == "Speedup")
                .map(|m| m.values.clone())
                .unwrap_or_default();
            let first = procs.first().copied().unwrap_or(1.0);
            chart_legend(&mut cols[1], &["Speedup", "Ideal"]);
            Plot::new("pop-speedup")
                .include_x(x_range.0)
                .include_x(x_range.1)
                .x_grid_spacer(|_| marks.clone())
                .x_axis_formatter(|mark, _| format!("{}", mark.value))
                .height(220.0)
                .x_axis_label("processes")
                .y_axis_label("speedup")
                .show(&mut cols[1], |plot| {
                    series(plot, 0, "Speedup", &speedup);
                    let ideal: Vec<Option<f64>> = procs.iter().map(|&p| Some(p / first)).collect();
                    series(plot, 1, "Ideal", &ideal);
                });
        });
    }
}

/// A chart's legend, above it: each series' colour and name, in the order of the colours.
fn chart_legend(ui: &mut egui::Ui, names: &[&str]) {
    ui.horizontal_wrapped(|ui| {
        for (k, name) in names.iter().enumerate() {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 3.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(rect, 0.0, SERIES_COLOURS[k % SERIES_COLOURS.len()]);
            ui.label(egui::RichText::new(*name).small());
        }
    });
}

/// What a region's column is.
const REGION_NOTE: &str = "A region of interest: the trace cut to the timeline's window \
     as Paraver's cutter cuts it (states cut at the edges, each counter's first value zeroed, \
     open calls closed at the end) and measured as pypop measures a cut trace, as a run of its \
     own (its scalabilities compare it with itself); not compared with the runs of the series";

/// The charts' series colours, told apart on the dark background.
const SERIES_COLOURS: [Color32; 7] = [
    Color32::from_rgb(230, 90, 80),
    Color32::from_rgb(90, 160, 240),
    Color32::from_rgb(120, 200, 110),
    Color32::from_rgb(240, 190, 60),
    Color32::from_rgb(190, 120, 230),
    Color32::from_rgb(80, 210, 200),
    Color32::from_rgb(240, 140, 200),
];

/// A file as the series tells files apart (the same file by any path is one run).
fn same_file(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A run's name: its file's.
fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

impl crate::windows::ToolWindow for PopWindow {
    fn title(&self) -> String {
        "POP metrics".to_owned()
    }
    fn is_open(&self) -> bool {
        self.open
    }
    fn poll(&mut self, ctx: &egui::Context, _: &crate::windows::Seen<'_>) {
        PopWindow::poll(self, ctx);
        self.finish_png(ctx);
    }
    fn show(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        self.show_window(
            ctx,
            Some((seen.trace, seen.visible)),
            &seen.title("POP metrics"),
        );
    }
}

//! Analysis > Cluster bursts: the CPU bursts of the open trace clustered with DBSCAN as BSC's
//! Clustering Suite does (`prvscope_paraver::cluster`), shown as a scatter plot
//! (`egui_plot`) linked to the timeline:
//! - each burst a point on its features' scales (a log scale is drawn as the logarithm of the
//!   value, its ticks labelled with the values), coloured by cluster, noise grey;
//! - hovering a point gives its thread, time and values; clicking it centres the timeline
//!   on the burst;
//! - a box dragged with Shift held selects the bursts inside, and the timeline outlines
//!   them; clicking a row of the clusters' table selects that cluster's bursts and opens its
//!   breakdown window (time per thread and state, the scopes the bursts span);
//! - the bursts within the timeline's visible window are ringed in the scatter: a range
//!   selected on the timeline (Shift-drag or right-drag) zooms to it, and so rings its
//!   bursts;
//! - epsilon (chosen from the bursts by default, the knee shown), the refinement's steps, the
//!   minimum points, the minimum duration and the features are adjustable; the clustering
//!   runs again in the background, the last result shown until the new one is ready.
//!
//! Above [`MAX_DRAWN`] bursts, every k-th burst of each class is drawn, and the window says
//! so; the table always counts every burst.

use std::fmt::Write as _;
use std::sync::Arc;

use egui::{Color32, RichText};
use egui_plot::{Plot, PlotPoint, PlotPoints, Points, Polygon};

use prvscope_paraver::cluster::{self, Bursts, Class, Clustering, Feature, Measure, Options};

mod table;

use crate::commands::{Command, send};
use prvscope_draw::frame::TimeWindow;
use prvscope_store::Trace;

use crate::jobs::Job;

/// At most this many points are drawn.
pub const MAX_DRAWN: usize = 40_000;

/// The colour of a class: noise grey, missing data dark grey, clusters from a palette.
pub fn class_color(c: Class) -> Color32 {
    const PALETTE: [Color32; 12] = [
        Color32::from_rgb(230, 80, 80),
        Color32::from_rgb(80, 160, 240),
        Color32::from_rgb(90, 200, 100),
        Color32::from_rgb(240, 190, 60),
        Color32::from_rgb(190, 100, 230),
        Color32::from_rgb(60, 210, 210),
        Color32::from_rgb(250, 130, 40),
        Color32::from_rgb(160, 220, 60),
        Color32::from_rgb(240, 110, 180),
        Color32::from_rgb(130, 130, 250),
        Color32::from_rgb(200, 160, 110),
        Color32::from_rgb(100, 240, 160),
    ];
    match c {
        Class::Noise => Color32::from_gray(150),
        Class::Missing => Color32::from_gray(80),
        Class::Cluster(n) => PALETTE[(n as usize - 1) % PALETTE.len()],
    }
}

/// The points drawn: the stride k (every k-th burst of each class), and per class its
/// bursts drawn (index, coordinates).
type Drawn = (
    usize,
    std::collections::BTreeMap<Class, Vec<(usize, [f64; 2])>>,
);

/// The points of `c` drawn (see [`MAX_DRAWN`]).
fn drawn_points(c: &Clustering) -> Drawn {
    let n = c.bursts.list.len();
    let stride = n.div_ceil(MAX_DRAWN).max(1);
    let mut per_class: std::collections::BTreeMap<Class, Vec<(usize, [f64; 2])>> =
        std::collections::BTreeMap::new();
    let mut seen: std::collections::HashMap<Class, usize> = std::collections::HashMap::new();
    for (i, class) in c.class.iter().enumerate() {
        let k = seen.entry(*class).or_default();
        *k += 1;
        if !(*k - 1).is_multiple_of(stride) {
            continue;
        }
        if let Some(p) = ClusterWindow::point(c, i) {
            per_class.entry(*class).or_default().push((i, p));
        }
    }
    (stride, per_class)
}

/// The bursts `bursts` of `c` per thread (of `rows`), in time order.
fn intervals_of(c: &Clustering, bursts: &[usize], rows: usize) -> crate::shared::Intervals {
    let mut per: Vec<Vec<(u64, u64)>> = vec![Vec::new(); rows];
    for &i in bursts {
        let b = &c.bursts.list[i];
        if let Some(v) = per.get_mut(b.thread as usize) {
            v.push((b.begin, b.end));
        }
    }
    for v in &mut per {
        v.sort_unstable();
    }
    Arc::new(per)
}

/// A mask of `n` bursts with `bursts` set.
fn mask_of(bursts: &[usize], n: usize) -> Vec<bool> {
    let mut mask = vec![false; n];
    for &i in bursts {
        mask[i] = true;
    }
    mask
}

/// What is selected: its name, the bursts (indices into the burst list).
#[derive(Debug, Clone)]
struct Selection {
    name: String,
    /// Per burst, whether it is selected.
    mask: Vec<bool>,
    /// The bursts selected per thread, in time order: the timeline's outline (made once per
    /// selection, not per frame).
    intervals: crate::shared::Intervals,
    /// The cluster selected in the table.
    class: Option<Class>,
}

/// The window's state.
pub struct ClusterWindow {
    pub open: bool,
    bursts: Option<Arc<Bursts>>,
    bursts_job: Option<Job<Result<Bursts, String>>>,
    pub options: Options,
    /// Why the features are not instructions and IPC.
    note: Option<String>,
    /// The trace's counters offered as features (type, name).
    counters: Vec<(u32, String)>,
    clustering: Option<Arc<Clustering>>,
    job: Option<Job<Clustering>>,
    /// The options the shown clustering (or the running job) used.
    computed: Option<Options>,
    error: Option<String>,
    selection: Option<Selection>,
    drag_from: Option<PlotPoint>,
    /// The timeline's visible window.
    visible: TimeWindow,
    /// Thread names, by row.
    threads: Vec<String>,
    ns_per_tick: f64,
    /// Paint the timeline's rows by cluster (the Clusters view).
    pub colour_timeline: bool,
    /// Why the trace has no burst, if it has none.
    no_bursts: String,
    /// The shown clustering's bursts as the timeline paints them.
    fill: Option<Arc<crate::timeline::ClassFill>>,
    /// The points drawn: every k-th burst of each class (k), with their coordinates.
    drawn: Option<Arc<Drawn>>,
}

impl ClusterWindow {
    /// Starts finding the bursts of `trace` (all of them: the minimum duration is applied
    /// when clustering).
    pub fn new(ctx: &egui::Context, trace: &Trace) -> ClusterWindow {
        let (options, note) = Options::for_trace(trace);
        let present = trace.store.event_types();
        let counters: Vec<(u32, String)> = present
            .iter()
            .filter(|&&ty| {
                (42_000_000..50_000_000).contains(&ty)
                    || trace.pcf.as_ref().is_some_and(|p| {
                        p.event_types
                            .get(&ty)
                            .is_some_and(|t| t.label.trim().starts_with("PAPI_"))
                    })
            })
            .map(|&ty| {
                let name = Feature {
                    measure: Measure::Counter(ty),
                    log: false,
                }
                .name(trace.pcf.as_ref());
                (ty, name)
            })
            .collect();
        let wanted: Vec<u32> = counters.iter().map(|c| c.0).collect();
        let t = trace.clone();
        let threads = prvscope_paraver::cut::row_ids(&trace.header)
            .iter()
            .map(|[a, k, h]| format!("THREAD {a}.{k}.{h}"))
            .collect();
        ClusterWindow {
            open: true,
            bursts: None,
            bursts_job: Some(Job::spawn(ctx, "bursts", move |_| {
                cluster::bursts(&t, &wanted, 0)
            })),
            options,
            note,
            counters,
            clustering: None,
            job: None,
            computed: None,
            error: None,
            selection: None,
            drag_from: None,
            visible: TimeWindow::from_bounds(0, u64::MAX),
            threads,
            ns_per_tick: trace.header.time_unit.ns_per_tick() as f64,
            colour_timeline: true,
            fill: None,
            drawn: None,
            no_bursts: cluster::no_bursts(trace),
        }
    }

    /// The index of a class in [`Self::class_fill`]'s colours.
    fn class_index(c: Class) -> u16 {
        match c {
            Class::Noise => 0,
            Class::Missing => 1,
            Class::Cluster(n) => u16::try_from(n + 1).unwrap_or(u16::MAX),
        }
    }

    /// The clusters as the timeline paints them, while the Clusters view is on.
    pub fn class_fill(&self) -> Option<Arc<crate::timeline::ClassFill>> {
        self.fill.clone().filter(|_| self.colour_timeline)
    }

    fn build_fill(&self, c: &Clustering) -> crate::timeline::ClassFill {
        let mut rows: Vec<Vec<(u64, u64, u16)>> = vec![Vec::new(); self.threads.len()];
        for (b, &class) in c.bursts.list.iter().zip(&c.class) {
            if let Some(r) = rows.get_mut(b.thread as usize) {
                r.push((b.begin, b.end, Self::class_index(class)));
            }
        }
        let mut colors = vec![class_color(Class::Noise), class_color(Class::Missing)];
        colors.extend((1..=c.clusters()).map(|n| class_color(Class::Cluster(n))));
        crate::timeline::ClassFill::new(rows, colors)
    }

    /// Whether a computation is running.
    pub fn is_computing(&self) -> bool {
        self.bursts_job.is_some() || self.job.is_some()
    }

    /// The clustering shown, if any.
    pub fn clustering(&self) -> Option<&Clustering> {
        self.clustering.as_deref()
    }

    /// Takes finished work; starts a clustering when the options changed.
    pub fn poll(&mut self, ctx: &egui::Context) {
        if let Some(job) = &mut self.bursts_job
            && let Some(result) = job.poll()
        {
            self.bursts_job = None;
            match result {
                Ok(b) if b.list.is_empty() => self.error = Some(self.no_bursts.clone()),
                Ok(b) => self.bursts = Some(Arc::new(b)),
                Err(e) => self.error = Some(e),
            }
        }
        if let Some(job) = &mut self.job
            && let Some(c) = job.poll()
        {
            self.job = None;
            self.selection = None;
            // Its clusters' breakdown windows showed the clustering replaced.
            send(
                ctx,
                Command::CloseBreakdowns {
                    ty: cluster::CLUSTER_EVENT,
                },
            );
            self.fill = Some(Arc::new(self.build_fill(&c)));
            self.drawn = Some(Arc::new(drawn_points(&c)));
            self.clustering = Some(Arc::new(c));
        }
        let stale = self.computed.as_ref() != Some(&self.options);
        if stale
            && self.job.is_none()
            && let Some(bursts) = &self.bursts
        {
            let (bursts, options) = (Arc::clone(bursts), self.options.clone());
            self.computed = Some(options.clone());
            self.error = None;
            self.job = Some(Job::spawn(ctx, "cluster", move |_| {
                let mut b = (*bursts).clone();
                let before = b.list.len();
                let short: u64 = b
                    .list
                    .iter()
                    .filter(|x| x.duration() < options.min_duration)
                    .map(cluster::Burst::duration)
                    .sum();
                b.list.retain(|x| x.duration() >= options.min_duration);
                b.filtered = ((before - b.list.len()) as u64, short);
                cluster::classify(b, &options)
            }));
        }
    }

    /// The bursts selected, as intervals per thread, for the timeline's outline.
    pub fn highlight(&self) -> Option<crate::shared::Intervals> {
        self.selection.as_ref().map(|s| Arc::clone(&s.intervals))
    }

    /// Shows the window.
    fn show_window(&mut self, ctx: &egui::Context, title: &str) {
        let (mut open, id) = (self.open, egui::Id::NULL.with("cluster window"));
        let window = egui::Window::new(title).id(id).open(&mut open);
        crate::windows::placed(ctx, id, title, window.default_size([760.0, 640.0]))
            .show(ctx, |ui| self.ui(ui));
        if self.open && !open {
            // Its clusters' breakdown windows go with it.
            send(
                ctx,
                Command::CloseBreakdowns {
                    ty: cluster::CLUSTER_EVENT,
                },
            );
        }
        self.open = open;
    }

    fn ui(&mut self, ui: &mut egui::Ui) {
        self.controls(ui);
        if let Some(e) = &self.error {
            ui.colored_label(prvscope_draw::theme::ERROR, e);
        }
        if let Some(n) = &self.note {
            ui.label(RichText::new(n).italics());
        }
        if self.is_computing() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(if self.bursts.is_none() {
                    "Finding the bursts…"
                } else {
                    "Clustering…"
                });
            });
        }
        let Some(c) = self.clustering.clone() else {
            return;
        };
        let clustered = c
            .class
            .iter()
            .filter(|k| matches!(k, Class::Cluster(_)))
            .count();
        ui.label(format!(
            "{} bursts of {} ms or more ({} shorter left out); {} clusters holding {} bursts \
             ({:.1}%) at eps {:.4}{}.",
            c.bursts.list.len(),
            c.options.min_duration as f64 * self.ns_per_tick / 1e6,
            c.bursts.filtered.0,
            c.clusters(),
            clustered,
            100.0 * clustered as f64 / c.bursts.list.len().max(1) as f64,
            c.eps,
            match c.options.refine {
                0 => String::new(),
                n => format!(" refined to {:.4}", c.eps * f64::from(1u32 << n.min(30))),
            },
        ));
        ui.label("Shift-drag to select bursts; click a point to centre the timeline on it.");
        if let Some(note) = c.bursts.cut_note() {
            ui.colored_label(prvscope_draw::theme::WARNING, note);
        }
        self.scatter(ui, &c);
        ui.checkbox(
            &mut self.colour_timeline,
            "Clusters view: the timeline's rows painted by cluster (each pixel the class with \
             the most time in it; black: no burst; the table below is the legend)",
        );
        self.table(ui, &c);
    }

    fn feature_combo(
        &self,
        ui: &mut egui::Ui,
        (id, label): (&str, egui::Id),
        f: &mut Option<Feature>,
        none: bool,
    ) {
        let name = |f: &Option<Feature>| {
            f.map_or_else(
                || "none".to_owned(),
                |f| {
                    let mut plain = f;
                    plain.log = false;
                    match plain.measure {
                        Measure::Counter(ty) => self
                            .counters
                            .iter()
                            .find(|c| c.0 == ty)
                            .map_or_else(|| ty.to_string(), |c| c.1.clone()),
                        _ => plain.name(None),
                    }
                },
            )
        };
        let combo = egui::ComboBox::from_id_salt(id)
            .selected_text(name(f))
            .show_ui(ui, |ui| {
                let mut choices: Vec<Option<Feature>> = Vec::new();
                if none {
                    choices.push(None);
                }
                choices.push(Some(Feature {
                    measure: Measure::Duration,
                    log: true,
                }));
                choices.push(Some(Feature {
                    measure: Measure::Ipc,
                    log: false,
                }));
                for &(ty, _) in &self.counters {
                    choices.push(Some(Feature {
                        measure: Measure::Counter(ty),
                        log: true,
                    }));
                }
                for choice in choices {
                    let same = choice.map(|c| c.measure) == f.map(|c| c.measure);
                    if ui.selectable_label(same, name(&choice)).clicked() && !same {
                        *f = choice;
                    }
                }
            });
        combo.response.labelled_by(label);
        if let Some(f) = f {
            ui.checkbox(&mut f.log, "log");
        }
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        let mut x = self.options.features.first().copied();
        let mut y = self.options.features.get(1).copied();
        ui.horizontal(|ui| {
            let lx = ui.label("x").id;
            self.feature_combo(ui, ("cluster-x", lx), &mut x, false);
            let ly = ui.label("y").id;
            self.feature_combo(ui, ("cluster-y", ly), &mut y, true);
        });
        if let Some(x) = x {
            self.options.features = std::iter::once(x).chain(y).collect();
        }
        let (used, knee) = self
            .clustering
            .as_ref()
            .map_or((cluster::DEFAULT_EPS, None), |c| (c.eps, c.knee));
        ui.horizontal(|ui| {
            let mut auto = self.options.eps.is_none();
            if ui
                .checkbox(&mut auto, "epsilon from the bursts")
                .on_hover_text(
                    "The knee of the bursts' sorted core distances (the radius at which each \
                     becomes a core point), at least the Clustering Suite's usual 0.03",
                )
                .changed()
            {
                self.options.eps = if auto { None } else { Some(used) };
            }
            let label = ui.label("epsilon").id;
            let mut eps = self.options.eps.unwrap_or(used);
            let r = ui
                .add_enabled(
                    !auto,
                    egui::DragValue::new(&mut eps)
                        .range(0.001..=1.0)
                        .speed(0.001)
                        .max_decimals(4),
                )
                .labelled_by(label);
            if r.changed() {
                self.options.eps = Some(eps);
            }
            if auto {
                ui.label(knee.map_or_else(
                    || "(no knee: the usual 0.03)".to_owned(),
                    |k| format!("(knee {k:.4})"),
                ));
            }
            let label = ui.label("refine steps").id;
            ui.add(egui::DragValue::new(&mut self.options.refine).range(0..=6))
                .labelled_by(label)
                .on_hover_text(
                    "The bursts left as noise are offered to the clusters found at twice the \
                     radius, then four times..., never merging two clusters; 0: DBSCAN alone, \
                     as the Clustering Suite runs it",
                );
        });
        ui.horizontal(|ui| {
            let label = ui.label("min points").id;
            ui.add(egui::DragValue::new(&mut self.options.min_points).range(1..=100_000))
                .labelled_by(label);
            let label = ui.label("min duration (ms)").id;
            let mut ms = self.options.min_duration as f64 * self.ns_per_tick / 1e6;
            if ui
                .add(
                    egui::DragValue::new(&mut ms)
                        .range(0.0..=1e6)
                        .speed(0.1)
                        .max_decimals(3),
                )
                .labelled_by(label)
                .changed()
            {
                self.options.min_duration = (ms * 1e6 / self.ns_per_tick).round() as u64;
            }
        });
    }

    /// A burst's point in the scatter: its features' coordinates, or (x, thread) with one
    /// feature; `None` when a feature cannot be placed.
    fn point(c: &Clustering, burst: usize) -> Option<[f64; 2]> {
        let features = &c.options.features;
        let values = &c.values[burst];
        let x = Self::coordinate(features[0], values[0])?;
        let y = match features.get(1) {
            Some(&f) => Self::coordinate(f, values[1])?,
            None => f64::from(c.bursts.list[burst].thread),
        };
        Some([x, y])
    }

    /// Selects the bursts whose points lie in the box `x` by `y` (plot coordinates: the
    /// logarithm on a log scale), as a Shift-drag in the scatter does; how many.
    pub fn select_box(&mut self, x: (f64, f64), y: (f64, f64)) -> usize {
        let Some(c) = &self.clustering else {
            return 0;
        };
        let (x0, x1) = (x.0.min(x.1), x.0.max(x.1));
        let (y0, y1) = (y.0.min(y.1), y.0.max(y.1));
        let bursts: Vec<usize> = (0..c.bursts.list.len())
            .filter(|&i| {
                Self::point(c, i)
                    .is_some_and(|p| (x0..=x1).contains(&p[0]) && (y0..=y1).contains(&p[1]))
            })
            .collect();
        let n = bursts.len();
        self.selection = Some(Selection {
            name: format!("{n} bursts in the box"),
            mask: mask_of(&bursts, c.class.len()),
            intervals: intervals_of(c, &bursts, self.threads.len()),
            class: None,
        });
        n
    }

    /// Selects the bursts of `class`, as a click on its row of the table does.
    pub fn select_class(&mut self, class: Class) -> usize {
        let Some(c) = &self.clustering else {
            return 0;
        };
        let bursts: Vec<usize> = (0..c.class.len())
            .filter(|&i| c.class[i] == class)
            .collect();
        let n = bursts.len();
        self.selection = Some(Selection {
            name: class.label(),
            mask: mask_of(&bursts, c.class.len()),
            intervals: intervals_of(c, &bursts, self.threads.len()),
            class: Some(class),
        });
        n
    }

    /// Selects the bursts of `class` and asks for its breakdown window, as a click on its row
    /// of the table does; how many bursts.
    pub fn open_breakdown(&mut self, ctx: &egui::Context, class: Class) -> usize {
        let n = self.select_class(class);
        if let Some(s) = &self.selection {
            send(
                ctx,
                Command::IntervalsBreakdown {
                    key: prvscope_analysis::scopes::ScopeKey {
                        ty: cluster::CLUSTER_EVENT,
                        value: class.event_value(),
                    },
                    label: class.label(),
                    within: Arc::clone(&s.intervals),
                },
            );
        }
        n
    }

    /// Does the timeline show burst `b` (any of it)? Those are ringed in the scatter: a range
    /// selected on the timeline (Shift-drag) zooms to it, and so marks its bursts.
    fn shows(&self, b: &cluster::Burst) -> bool {
        b.begin < self.visible.end() && b.end > self.visible.start
    }

    /// The bursts ringed in the scatter (the timeline shows them), by index.
    pub fn ringed(&self) -> Vec<usize> {
        self.clustering.as_ref().map_or_else(Vec::new, |c| {
            (0..c.bursts.list.len())
                .filter(|&i| self.shows(&c.bursts.list[i]))
                .collect()
        })
    }

    /// Asks the timeline to show burst `i` in the middle third of its window, as a click on
    /// its point does.
    pub fn go_to_burst(&mut self, ctx: &egui::Context, i: usize) {
        if let Some(b) = self.clustering.as_ref().and_then(|c| c.bursts.list.get(i)) {
            let d = (b.end - b.begin).max(1);
            send(
                ctx,
                Command::GoTo(TimeWindow {
                    start: b.begin.saturating_sub(d),
                    span: 3 * d,
                }),
            );
        }
    }

    /// A feature's name, with its counter's `.pcf` label.
    fn feature_label(&self, f: Feature) -> String {
        let base = if let Measure::Counter(ty) = f.measure {
            self.counters
                .iter()
                .find(|c| c.0 == ty)
                .map_or_else(|| ty.to_string(), |c| c.1.clone())
        } else {
            let mut plain = f;
            plain.log = false;
            plain.name(None)
        };
        if f.log {
            format!("{base} (log scale)")
        } else {
            base
        }
    }

    /// A feature's plotted coordinate: its value, or its logarithm on a log scale.
    fn coordinate(f: Feature, v: f64) -> Option<f64> {
        let y = if f.log { v.ln() } else { v };
        (v.is_finite() && (!f.log || v > 0.0) && y.is_finite()).then_some(y)
    }

    fn scatter(&mut self, ui: &mut egui::Ui, c: &Arc<Clustering>) {
        let features = &c.options.features;
        let (fx, fy) = (features[0], features.get(1).copied());
        let n = c.bursts.list.len();
        let Some(drawn) = self.drawn.clone() else {
            return;
        };
        let (stride, per_class) = (drawn.0, &drawn.1);
        if stride > 1 {
            ui.label(
                RichText::new(format!(
                    "Drawn: every {stride}th burst of each class ({} of {n}); the table counts \
                     all of them.",
                    per_class.values().map(Vec::len).sum::<usize>()
                ))
                .color(prvscope_draw::theme::WARNING),
            );
        }
        let in_view: Vec<[f64; 2]> = per_class
            .values()
            .flatten()
            .filter(|(i, _)| self.shows(&c.bursts.list[*i]))
            .map(|(_, p)| *p)
            .collect();
        let selected: &[bool] = self.selection.as_ref().map_or(&[], |s| &s.mask);
        let log_fmt = |log: bool| {
            move |mark: egui_plot::GridMark, _: &std::ops::RangeInclusive<f64>| {
                if log {
                    format!("{:.3e}", mark.value.exp())
                } else {
                    format!("{:.3}", mark.value)
                }
            }
        };
        let shift = ui.input(|i| i.modifiers.shift);
        let drag_from = self.drag_from;
        let names: Vec<String> = features.iter().map(|&f| self.feature_label(f)).collect();
        let response = Plot::new("cluster-scatter")
            .height(320.0)
            .allow_drag(!shift)
            .allow_boxed_zoom(false)
            .x_axis_label(names[0].clone())
            .y_axis_label(names.get(1).cloned().unwrap_or_else(|| "thread".into()))
            .x_axis_formatter(log_fmt(fx.log))
            .y_axis_formatter(log_fmt(fy.is_some_and(|f| f.log)))
            .label_formatter(|_| None)
            .show(ui, |plot| {
                // Halos under the points (filled discs: stroked rings of tens of thousands of
                // points cost a frame 140 ms to tessellate): the selected bursts, then those
                // in the timeline's window.
                let chosen: Vec<[f64; 2]> = per_class
                    .values()
                    .flatten()
                    .filter(|(i, _)| selected.get(*i).copied().unwrap_or(false))
                    .map(|(_, p)| *p)
                    .collect();
                if !chosen.is_empty() {
                    plot.points(
                        Points::new("selected", PlotPoints::from(chosen))
                            .color(prvscope_draw::theme::SCOPE_SELECTED)
                            .radius(4.5)
                            .allow_hover(false),
                    );
                }
                if !in_view.is_empty() && in_view.len() < per_class.values().map(Vec::len).sum() {
                    plot.points(
                        Points::new("in the timeline's window", PlotPoints::from(in_view))
                            .color(Color32::WHITE)
                            .radius(3.5)
                            .allow_hover(false),
                    );
                }
                for (class, pts) in per_class {
                    let xy: Vec<[f64; 2]> = pts.iter().map(|(_, p)| *p).collect();
                    plot.points(
                        Points::new(class.label(), PlotPoints::from(xy))
                            .color(class_color(*class))
                            .radius(2.0)
                            .allow_hover(false),
                    );
                }
                if let (Some(a), Some(b)) = (drag_from, plot.pointer_coordinate()) {
                    plot.polygon(
                        Polygon::new(
                            "selection",
                            PlotPoints::from(vec![[a.x, a.y], [b.x, a.y], [b.x, b.y], [a.x, b.y]]),
                        )
                        .fill_color(prvscope_draw::theme::SELECTION),
                    );
                }
            });
        let resp = &response.response;
        let transform = &response.transform;
        // Hover and click: the nearest drawn point within 6 pixels.
        let nearest = resp.hover_pos().and_then(|pos| {
            per_class
                .values()
                .flatten()
                .map(|(i, p)| {
                    let s = transform.position_from_point(&PlotPoint::new(p[0], p[1]));
                    (*i, s.distance(pos))
                })
                .filter(|(_, d)| *d <= 6.0)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i)
        });
        if let Some(i) = nearest {
            let b = &c.bursts.list[i];
            let mut text = format!(
                "{}\n{}\nbegin {} ticks, duration {:.3} ms",
                self.threads
                    .get(b.thread as usize)
                    .cloned()
                    .unwrap_or_default(),
                c.class[i].label(),
                b.begin,
                b.duration() as f64 * self.ns_per_tick / 1e6
            );
            for (f, v) in features.iter().zip(&c.values[i]) {
                let mut plain = *f;
                plain.log = false;
                let _ = write!(text, "\n{}: {v:.4}", self.feature_label(plain));
            }
            resp.clone().on_hover_text_at_pointer(text);
            if resp.clicked() {
                self.go_to_burst(ui.ctx(), i);
            }
        }
        // Shift-drag: a box selection.
        if shift && resp.drag_started() {
            self.drag_from = resp.hover_pos().map(|p| transform.value_from_position(p));
        }
        if resp.drag_stopped()
            && let Some(a) = self.drag_from.take()
            && let Some(b) = resp.hover_pos().map(|p| transform.value_from_position(p))
        {
            self.select_box((a.x, b.x), (a.y, b.y));
        }
        if !resp.dragged() && !resp.drag_stopped() && !shift {
            self.drag_from = None;
        }
        if let Some(name) = self.selection.as_ref().map(|s| s.name.clone()) {
            ui.horizontal(|ui| {
                ui.label(format!("Selected: {name} (outlined on the timeline)"));
                if ui.button("Clear").clicked() {
                    self.selection = None;
                }
            });
        }
    }
}

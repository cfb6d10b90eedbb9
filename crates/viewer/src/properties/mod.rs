//! Window properties (View > Window properties…): Paraver's semantic choices of the view
//! shown, as its window properties dialog offers them, applied live and saved as a `.cfg`.
//!
//! - A view from a cfg is that cfg's window; the State and event views are the window
//!   "Save view as Paraver cfg" writes of them (`State As Is`, `Last Evt Val` of their types).
//! - Per level from the thread up to the window's, the semantic function and its compose
//!   function, then the two top compose functions (each with its parameters: numbers, `;`
//!   between two parameters); the level; the filter of event types and values and of
//!   logical and physical communications; the draw mode.
//! - Each change is computed off the UI thread and replaces the view on the timeline; what
//!   prvscope cannot compute is said in the window, and the view stays as it was.
//! - Save as cfg… writes the cfg it came from with this window as edited (its analyzers
//!   too, so that paramedir reads it as the original when nothing was changed); Save window
//!   alone… writes the window and its parents only.
//! - A derived window: this window and another cfg view combined by one of Paraver's
//!   operations with its two factors, computed as Paraver's derived window and shown.

use std::path::Path;
use std::sync::Arc;

use prvscope_paraver::cfg::{Cfg, FilterValues, FunctionParams, Level, WindowCfg};
use prvscope_paraver::functions;
use prvscope_paraver::window::WindowCache;
use prvscope_store::Trace;
use prvscope_store::signal::CustomRef;
use prvscope_store::summary::DrawMode;

use crate::commands::Command;

mod form;
use crate::file_dialog::{FileDialog, Kind, Spec};
use crate::jobs::Job;
use crate::windows::{Seen, ToolWindow};

/// The cfg window a view shows (in [`crate::shared`]: the commands carry it too).
pub use crate::shared::CfgWindow as Source;

/// Another view a derived window may be made with.
#[derive(Debug, Clone)]
pub struct Other {
    pub name: String,
    pub source: Source,
}

/// What the user asked to save.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Save {
    /// The whole cfg, with this window as edited.
    Cfg,
    /// This window and its parents.
    Alone,
}

/// The parts of a window's filter, as the cfg names them, and what the panel calls them.
const FILTERS: [(&str, &str); 7] = [
    ("evt_type", "event types"),
    ("evt_value", "event values"),
    ("from_obj", "from"),
    ("to_obj", "to"),
    ("tag_msg", "tag"),
    ("size_msg", "size"),
    ("bw_msg", "bandwidth"),
];

/// The levels a window may be of, Paraver's order.
const LEVELS: [Level; 7] = [
    Level::Thread,
    Level::Task,
    Level::Appl,
    Level::Workload,
    Level::Cpu,
    Level::Node,
    Level::System,
];

/// Paraver's draw modes by the cfg's word, with the viewer's mode of each (Paraver has no
/// "dominant"; the viewer's "Dominant" is written as `draw_last`).
const DRAW_MODES: [(&str, DrawMode); 5] = [
    ("draw_last", DrawMode::Last),
    ("draw_maximum", DrawMode::Maximum),
    ("draw_minimum", DrawMode::Minimum),
    ("draw_random", DrawMode::Random),
    ("draw_average", DrawMode::Average),
];

/// Paraver's word for a draw mode.
fn draw_word(mode: DrawMode) -> &'static str {
    DRAW_MODES
        .iter()
        .find(|(_, m)| *m == mode)
        .map_or("draw_last", |(w, _)| w)
}

/// Numbers of a parameter text: `1 2, 3` is one parameter of three values, `;` starts the
/// next parameter.
pub fn parse_params(text: &str) -> Result<Vec<Vec<f64>>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(';')
        .map(|p| {
            p.split([' ', ','])
                .filter(|x| !x.is_empty())
                .map(|x| {
                    x.parse::<f64>()
                        .map_err(|_| format!("`{x}` is not a number"))
                })
                .collect()
        })
        .collect()
}

/// The text of parameters, as [`parse_params`] reads it.
pub fn params_text(params: &[Vec<f64>]) -> String {
    params
        .iter()
        .map(|p| {
            p.iter()
                .map(|v| format!("{v}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `w` with `function` in `slot` and its parameters `params` (none: Paraver's defaults).
pub fn set_function(w: &mut WindowCfg, slot: &str, function: &str, params: Vec<Vec<f64>>) {
    w.functions.insert(slot.to_owned(), function.to_owned());
    w.params.retain(|p| p.slot != slot);
    if !params.is_empty() {
        w.params.push(FunctionParams {
            slot: slot.to_owned(),
            function: function.to_owned(),
            params,
        });
    }
}

/// `w` with the values of filter `kind` (`evt_type`, `evt_value`) given as numbers (the
/// pcf labels a cfg may name them by are dropped with the old values).
pub fn set_filter_values(w: &mut WindowCfg, kind: &str, values: Vec<f64>) {
    w.filters.retain(|f| f.kind != kind);
    if !values.is_empty() {
        w.filters.push(FilterValues {
            kind: kind.to_owned(),
            values,
            labels: Vec::new(),
        });
    }
}

/// `cfg` with its window `w.id` replaced by `w`.
pub fn with_window(cfg: &Cfg, w: &WindowCfg) -> Cfg {
    let mut out = cfg.clone();
    for x in &mut out.windows {
        if x.id == w.id {
            *x = w.clone();
        }
    }
    out
}

/// The text boxes of the window being edited, kept while the user types.
#[derive(Debug, Clone, Default, PartialEq)]
struct Texts {
    /// Per slot, its parameters.
    params: std::collections::BTreeMap<String, String>,
    /// Per filter part (`evt_type`, `from_obj`, ...), its values.
    filters: std::collections::BTreeMap<String, String>,
    factors: [String; 2],
}

/// The derived window asked for.
#[derive(Debug, Clone)]
struct DerivedForm {
    other: usize,
    operation: &'static str,
    factors: [String; 2],
    name: String,
}

/// The properties of one view.
pub struct PropertiesWindow {
    open: bool,
    trace: Trace,
    cache: Arc<WindowCache>,
    /// The view shown (replaced at each change).
    view: Option<u64>,
    source: Source,
    /// The window as edited, and as last computed (or being computed).
    edit: WindowCfg,
    applied: WindowCfg,
    draw: DrawMode,
    texts: Texts,
    /// What went wrong in the texts, per box.
    bad: Vec<String>,
    job: Option<Job<Result<(CustomRef, Source), String>>>,
    derived_job: Option<Job<Result<(CustomRef, Source), String>>>,
    /// The other cfg views, for a derived window.
    pub others: Vec<Other>,
    form: DerivedForm,
    message: Option<(String, bool)>,
    /// The file last saved to (shown on hover of the message).
    saved: Option<std::path::PathBuf>,
    dialog: Option<(Save, FileDialog)>,
}

/// Computes window `source.window` of `source.cfg` alone (its parents too) as a view.
fn compute(
    trace: &Trace,
    cache: Arc<WindowCache>,
    source: &Source,
) -> Result<(CustomRef, Source), String> {
    let alone = prvscope_paraver::cfg_write::window_alone(&source.cfg, source.window)?;
    let r = crate::histogram::compute_cfg(
        trace,
        cache,
        alone,
        source.cfg.file.clone(),
        Some(source.window),
    )?;
    let view = r
        .views
        .into_iter()
        .next()
        .ok_or_else(|| format!("the cfg has no window {}", source.window))??;
    Ok((view, source.clone()))
}

impl PropertiesWindow {
    /// The properties of `view` (`None`: a view made of the trace, not yet a cfg's), which
    /// shows `source`; `draw` is the timeline's draw mode.
    pub fn new(
        trace: &Trace,
        cache: Arc<WindowCache>,
        view: Option<u64>,
        source: Source,
        draw: DrawMode,
    ) -> Result<PropertiesWindow, String> {
        let edit = source
            .window()
            .cloned()
            .ok_or_else(|| format!("the cfg has no window {}", source.window))?;
        let mut w = PropertiesWindow {
            open: true,
            trace: trace.clone(),
            cache,
            view,
            applied: edit.clone(),
            edit,
            source,
            draw,
            texts: Texts::default(),
            bad: Vec::new(),
            job: None,
            derived_job: None,
            others: Vec::new(),
            form: DerivedForm {
                other: 0,
                operation: "divide",
                factors: ["1".into(), "1".into()],
                name: String::new(),
            },
            message: None,
            saved: None,
            dialog: None,
        };
        w.reset_texts();
        Ok(w)
    }

    fn reset_texts(&mut self) {
        let e = &self.edit;
        let mut params = std::collections::BTreeMap::new();
        for (slot, _) in functions::slots(e.level, e.derived.is_some()) {
            let f = e.function(slot).unwrap_or_default();
            params.insert(
                slot.to_owned(),
                e.params_of(slot, f).map(params_text).unwrap_or_default(),
            );
        }
        let values = |k: &str| {
            e.filter_values(k)
                .map(|v| params_text(&[v.to_vec()]))
                .unwrap_or_default()
        };
        let factors = e.derived.as_ref().map_or([1.0, 1.0], |d| d.factors);
        self.texts = Texts {
            params,
            filters: FILTERS
                .iter()
                .map(|(k, _)| ((*k).to_owned(), values(k)))
                .collect(),
            factors: factors.map(|v| format!("{v}")),
        };
    }

    /// The view it edits.
    pub fn view(&self) -> Option<u64> {
        self.view
    }

    /// The window as edited.
    pub fn edited(&self) -> &WindowCfg {
        &self.edit
    }

    /// The window as edited, to change (applied at the next frame).
    pub fn edited_mut(&mut self) -> &mut WindowCfg {
        &mut self.edit
    }

    /// The cfg the view came from, with this window as edited.
    pub fn cfg(&self) -> Cfg {
        with_window(&self.source.cfg, &self.edit)
    }

    /// Is a change being computed?
    pub fn computing(&self) -> bool {
        self.job.is_some() || self.derived_job.is_some()
    }

    /// The window's last message (what was computed, saved, refused), and whether it is a
    /// failure.
    pub fn message(&self) -> Option<(&str, bool)> {
        self.message.as_ref().map(|(m, f)| (m.as_str(), *f))
    }

    /// Writes what `kind` asks for to `path`.
    fn save(&mut self, kind: Save, path: &Path) {
        let cfg = self.cfg();
        let text = match kind {
            Save::Cfg => Ok(prvscope_paraver::cfg_write::write(&cfg)),
            Save::Alone => prvscope_paraver::cfg_write::window_alone(&cfg, self.edit.id)
                .map(|c| prvscope_paraver::cfg_write::write(&c)),
        };
        self.saved = Some(path.to_owned());
        self.message = Some(match text {
            Err(e) => (format!("not saved: {e}"), true),
            // The file's name (its folder on hover).
            Ok(t) => match std::fs::write(path, t) {
                Ok(()) => (
                    format!(
                        "saved {}",
                        path.file_name().map_or_else(
                            || path.display().to_string(),
                            |n| n.to_string_lossy().into_owned()
                        )
                    ),
                    false,
                ),
                Err(e) => (format!("could not save {}: {e}", path.display()), true),
            },
        });
    }

    /// Saves the cfg (the whole cfg, or this window alone) to `path` now.
    pub fn save_to(&mut self, path: &Path, alone: bool) {
        self.save(if alone { Save::Alone } else { Save::Cfg }, path);
    }

    fn ask_save(&mut self, ctx: &egui::Context, kind: Save) {
        let stem = crate::file_dialog::safe_stem(&self.edit.name);
        let spec = Spec::new("Save as Paraver cfg", Kind::Save(format!("{stem}.cfg")))
            .filter("Paraver cfg", &["cfg"]);
        self.dialog = Some((kind, FileDialog::open(ctx, spec)));
    }

    /// Makes the derived window of the form: this window, the other one, the operation.
    pub fn make_derived(
        &mut self,
        ctx: &egui::Context,
        other: usize,
        operation: &str,
        factors: [f64; 2],
        name: &str,
    ) {
        let Some(o) = self.others.get(other) else {
            self.message = Some(("no other cfg view to derive with".into(), true));
            return;
        };
        let a = self.cfg();
        let name = if name.trim().is_empty() {
            format!("{} {operation} {}", self.edit.name, o.name)
        } else {
            name.trim().to_owned()
        };
        match prvscope_paraver::cfg_write::derived(
            (&a, self.edit.id),
            (&o.source.cfg, o.source.window),
            operation,
            factors,
            &name,
        ) {
            Err(e) => self.message = Some((format!("no derived window: {e}"), true)),
            Ok(cfg) => {
                let window = cfg.windows.last().map_or(0, |w| w.id);
                let source = Source {
                    cfg: Arc::new(cfg),
                    window,
                };
                let (trace, cache) = (self.trace.clone(), Arc::clone(&self.cache));
                self.message = Some((format!("computing `{name}`…"), false));
                self.derived_job = Some(Job::spawn_interactive(ctx, "derived", move |_| {
                    compute(&trace, cache, &source)
                }));
            }
        }
    }

    /// Starts computing the window as edited when it changed.
    fn apply(&mut self, ctx: &egui::Context) {
        if self.job.is_some() || self.edit == self.applied || !self.bad.is_empty() {
            return;
        }
        self.applied = self.edit.clone();
        let source = Source {
            cfg: Arc::new(self.cfg()),
            window: self.edit.id,
        };
        let (trace, cache) = (self.trace.clone(), Arc::clone(&self.cache));
        self.message = Some(("computing…".into(), false));
        self.job = Some(Job::spawn_interactive(ctx, "properties", move |_| {
            compute(&trace, cache, &source)
        }));
    }

    fn take_jobs(&mut self, ctx: &egui::Context) {
        if let Some(job) = &mut self.job
            && let Some(r) = job.poll()
        {
            self.job = None;
            match r {
                Ok((view, source)) => {
                    self.message = Some((format!("shown: {}", view.0.name), false));
                    crate::commands::send(
                        ctx,
                        Command::ReplaceView {
                            old: self.view,
                            view: view.clone(),
                            source: source.clone(),
                        },
                    );
                    self.view = Some(view.0.id);
                    self.source = source;
                }
                Err(e) => self.message = Some((format!("not shown: {e}"), true)),
            }
        }
        if let Some(job) = &mut self.derived_job
            && let Some(r) = job.poll()
        {
            self.derived_job = None;
            match r {
                Ok((view, source)) => {
                    self.message = Some((format!("derived window shown: {}", view.0.name), false));
                    crate::commands::send(
                        ctx,
                        Command::ReplaceView {
                            old: None,
                            view: view.clone(),
                            source: source.clone(),
                        },
                    );
                    // The derived window is the one edited now.
                    if let Some(w) = source.window().cloned() {
                        self.view = Some(view.0.id);
                        self.source = source;
                        self.applied = w.clone();
                        self.edit = w;
                        self.reset_texts();
                    }
                }
                Err(e) => self.message = Some((format!("no derived window: {e}"), true)),
            }
        }
        match crate::file_dialog::poll_save(&mut self.dialog, ctx) {
            None => {}
            Some(Ok((kind, path))) => self.save(kind, &path),
            Some(Err(why)) => self.message = Some((why, true)),
        }
    }
}

impl ToolWindow for PropertiesWindow {
    fn title(&self) -> String {
        format!("Window properties: {}", self.edit.name)
    }

    fn is_open(&self) -> bool {
        self.open
    }

    fn poll(&mut self, ctx: &egui::Context, _seen: &Seen<'_>) {
        self.take_jobs(ctx);
        self.apply(ctx);
        if self.computing() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
    }

    fn show(&mut self, ctx: &egui::Context, seen: &Seen<'_>) {
        let mut open = self.open;
        crate::windows::placed(
            ctx,
            egui::Id::NULL.with("window properties"),
            &seen.title(&self.title()),
            egui::Window::new(seen.title(&self.title()))
                .id(egui::Id::NULL.with("window properties"))
                .open(&mut open)
                .default_width(460.0)
                // As tall as the dock (the form and the derived window at once).
                .default_height(crate::windows::dock(ctx).map_or(720.0, |r| r.height() - 8.0))
                .resizable(true),
        )
        .show(ctx, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| self.ui(ui));
        });
        self.open = open;
    }
}

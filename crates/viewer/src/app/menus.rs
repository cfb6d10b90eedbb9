//! The menu bar (File, View) and the toolbar (undo, redo, fit, colours and switches).

use egui::{RichText, Ui};

use super::App;
use super::export::Export;
use crate::loader::LoadSource;
use crate::rows::Level;
use crate::view::ColorMode;
use prvscope_store::summary::DrawMode;

impl App {
    /// Ctrl+B: the side panel; Ctrl+J: the scope panel (both remembered).
    pub(super) fn panel_keys(&mut self, ctx: &egui::Context) {
        let (side, scopes) = ctx.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::B),
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::J),
            )
        });
        if side {
            self.settings.show_side = !self.settings.show_side;
        }
        if scopes {
            let shown = self.scope_panel_shown();
            self.settings.show_scopes = !shown;
            self.shell.scopes_forced = !shown;
        }
    }

    pub(super) fn menu_ui(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open…").clicked() {
                    self.ask_open(&ctx, false);
                }
                if ui
                    .button("Open part of a trace…")
                    .on_hover_text(
                        "A time range or some threads of a trace too large to load whole",
                    )
                    .clicked()
                {
                    self.ask_open(&ctx, true);
                }
                if ui
                    .button("Open session…")
                    .on_hover_text("A session saved with Save session as: its trace, windows, views, ranges, rows and markers")
                    .clicked()
                {
                    self.ask_session(&ctx, false);
                }
                if ui
                    .add_enabled(
                        self.loaded.as_ref().is_some_and(|l| l.trace.path.is_file()),
                        egui::Button::new("Save session as…"),
                    )
                    .on_hover_text("This trace's windows, views, ranges, rows and markers, in a file")
                    .clicked()
                {
                    self.ask_session(&ctx, true);
                }
                if ui
                    .add_enabled(self.loaded.is_some(), egui::Button::new("Close trace"))
                    .on_hover_text("Close the trace shown with its windows (another open trace is shown)")
                    .clicked()
                {
                    self.close_trace();
                    ui.close();
                }
                if ui
                    .add_enabled(
                        self.loaded.is_some(),
                        egui::Button::new("Open configuration…"),
                    )
                    .on_hover_text("A Paraver .cfg: its analyzers as histogram windows")
                    .clicked()
                {
                    self.ask_cfg(&ctx);
                }
                ui.add_enabled_ui(self.loaded.is_some(), |ui| {
                    ui.menu_button("Configurations", |ui| {
                        let library = self.settings.cfg_library.clone();
                        match &library {
                            Some(dir) => {
                                if let Some(path) = crate::histogram::browse(ui, dir) {
                                    self.open_cfg(&ctx, path);
                                    ui.close();
                                }
                            }
                            None => {
                                ui.label(
                                    "Choose the folder of your Paraver cfgs (Paraver's cfgs/, say)",
                                );
                            }
                        }
                        ui.separator();
                        if ui.button("Choose configuration folder…").clicked() {
                            self.ask_cfg_library(&ctx);
                        }
                    });
                });
                if ui.button("Open the demo trace").clicked() {
                    self.open(&ctx, LoadSource::Demo);
                }
                ui.menu_button("Recent files", |ui| {
                    if self.settings.recent.paths().is_empty() {
                        ui.label("(none yet)");
                    }
                    let mut chosen = None;
                    for p in self.settings.recent.paths() {
                        if ui.button(p.display().to_string()).clicked() {
                            chosen = Some(p.clone());
                        }
                    }
                    if let Some(p) = chosen {
                        self.open(&ctx, LoadSource::File(p));
                    }
                });
                ui.separator();
                let loaded = self.loaded.is_some();
                if ui
                    .add_enabled(loaded, egui::Button::new("Export timeline as PNG…"))
                    .clicked()
                {
                    self.ask_save(&ctx, Export::Png);
                }
                if ui
                    .add_enabled(loaded, egui::Button::new("Export time per value as CSV…"))
                    .clicked()
                {
                    self.ask_save(&ctx, Export::Csv);
                }
                if ui
                    .add_enabled(loaded, egui::Button::new("Save view as Paraver cfg…"))
                    .on_hover_text(
                        "The view, its rows and the visible window as a Paraver configuration \
                         (wxparaver and paramedir compute it as shown)",
                    )
                    .clicked()
                {
                    self.ask_save(&ctx, Export::Cfg);
                }
                if ui
                    .add_enabled(
                        loaded && self.exports.trace_save.is_none(),
                        egui::Button::new("Save window as trace…"),
                    )
                    .on_hover_text(
                        "The visible time range and the view's rows written as a Paraver trace \
                         (.prv, .prv.xz or .prv.gz) with its .pcf, .row and a cutter XML, as \
                         Paraver's cutter writes it",
                    )
                    .clicked()
                {
                    self.ask_save(&ctx, Export::Trace);
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            if self.loaded.is_some() {
                ui.menu_button("Analysis", |ui| {
                    if ui
                        .button("POP metrics…")
                        .on_hover_text(
                            "POP efficiency metrics of this trace, and of the other runs of \
                             its scaling series",
                        )
                        .clicked()
                    {
                        let ctx = ui.ctx().clone();
                        self.open_pop(&ctx);
                        ui.close();
                    }
                    if ui
                        .button("Cluster bursts…")
                        .on_hover_text(
                            "Group the CPU bursts with DBSCAN (BSC's Clustering Suite): a \
                             scatter plot linked to the timeline",
                        )
                        .clicked()
                    {
                        let ctx = ui.ctx().clone();
                        self.open_cluster(&ctx);
                        ui.close();
                    }
                    let mut compare = None;
                    ui.add_enabled_ui(!self.others.is_empty(), |ui| {
                        ui.menu_button("Compare with", |ui| {
                            for (k, o) in self.others.iter().enumerate() {
                                if ui.button(super::traces::trace_name(o)).clicked() {
                                    compare = Some(k);
                                    ui.close();
                                }
                            }
                        })
                        .response
                        .on_hover_text(
                            "This trace (A) against another open trace (B): per scope, state and \
                             POP metric, A, B and B less A",
                        )
                        .on_disabled_hover_text("Open another trace first (File > Open)");
                    });
                    if let Some(k) = compare {
                        self.open_compare(k);
                    }
                });
            }
            let mut level_chosen = None;
            let mut find_asked = false;
            let mut properties_asked = false;
            if let Some(l) = &mut self.loaded {
                ui.menu_button("View", |ui| {
                    if ui.button("Fit (Home)").clicked() {
                        l.timeline.fit();
                    }
                    if ui.button("Find… (Ctrl+F)").clicked() {
                        find_asked = true;
                        ui.close();
                    }
                    if ui
                        .button("Window properties…")
                        .on_hover_text(
                            "The semantic functions, filter and draw mode of the view shown, \
                             applied live and saved as a Paraver cfg; derived windows",
                        )
                        .clicked()
                    {
                        properties_asked = true;
                        ui.close();
                    }
                    if ui.button("Undo zoom (Ctrl+U, Ctrl+Z)").clicked() {
                        l.timeline.undo_zoom();
                    }
                    if ui.button("Redo zoom (Ctrl+R, Ctrl+Shift+Z)").clicked() {
                        l.timeline.redo_zoom();
                    }
                    ui.separator();
                    ui.menu_button("Draw mode", |ui| {
                        let mut config = l.timeline.config.clone();
                        for mode in DrawMode::ALL {
                            ui.radio_value(&mut config.mode, mode, mode.name())
                                .on_hover_text(mode.description());
                        }
                        if config != l.timeline.config {
                            l.timeline.apply_config(&l.trace, config);
                            ui.close();
                        }
                    });
                    ui.separator();
                    let current = l.timeline.level();
                    for (level, name, hint) in [
                        (Level::Thread, "Rows: threads", "One row per thread"),
                        (Level::Task, "Rows: tasks", "Each task's threads on one row"),
                        (
                            Level::Appl,
                            "Rows: applications",
                            "Each application's threads on one row",
                        ),
                        (
                            Level::Cpu,
                            "Rows: CPUs",
                            "One row per CPU: the thread that ran there (Paraver's CPU level)",
                        ),
                        (
                            Level::Node,
                            "Rows: nodes",
                            "One row per node: its CPUs together",
                        ),
                    ] {
                        if ui
                            .radio(current == level, name)
                            .on_hover_text(hint)
                            .clicked()
                        {
                            level_chosen = Some(level);
                        }
                    }
                    let mut fit = l.timeline.fits_rows();
                    if ui
                        .checkbox(&mut fit, "Fit all rows (F)")
                        .on_hover_text(
                            "Rows as thin as needed to show every row at once; more rows \
                             than points: each point row summarises the rows it holds",
                        )
                        .changed()
                    {
                        l.timeline.set_fit_rows(fit);
                        ui.close();
                    }
                    let shown = l.timeline.shown_rows();
                    let all = l.timeline.all_rows().len();
                    if ui
                        .add_enabled(shown.len() < all, egui::Button::new("Show all rows"))
                        .on_hover_text(format!(
                            "Rows {}-{} of {all} shown (Ctrl+wheel zooms along the rows, \
                             the wheel over the row names scrolls them)",
                            shown.start + 1,
                            shown.end
                        ))
                        .clicked()
                    {
                        l.timeline.show_all_rows();
                        ui.close();
                    }
                    let mut only = l.timeline.pinned_comms_only();
                    if ui
                        .add_enabled(
                            l.timeline.config.comms,
                            egui::Checkbox::new(&mut only, "Pinned thread's messages only"),
                        )
                        .on_hover_text(
                            "Draw only the messages the pinned thread (click its row) sends \
                             or receives, as lines (with Communications on)",
                        )
                        .changed()
                    {
                        l.timeline.set_pinned_comms_only(only);
                        ui.close();
                    }
                    ui.separator();
                    ui.checkbox(
                        &mut self.settings.dock_windows,
                        "Dock windows beside the timeline",
                    )
                    .on_hover_text(
                        "Histograms, POP, clustering, Find and the reports open in a panel at \
                         the timeline's right, never over its rows; off: they float anywhere",
                    );
                    ui.checkbox(&mut self.settings.show_side, "Side panel (Ctrl+B)")
                        .on_hover_text("Views, legend and details, left of the timeline");
                    let has_types = !l.scopes.types().is_empty();
                    let mut scopes =
                        self.settings.show_scopes && (has_types || self.shell.scopes_forced);
                    if ui
                        .checkbox(&mut scopes, "Scope panel (Ctrl+J)")
                        .on_hover_text(if has_types {
                            "Source code and scopes, below the timeline"
                        } else {
                            "This trace has no scope types; the panel lets you name some"
                        })
                        .changed()
                    {
                        self.settings.show_scopes = scopes;
                        self.shell.scopes_forced = scopes && !has_types;
                    }
                    let mut measure = self.frames.measure_rate;
                    if ui
                        .checkbox(&mut measure, "Measure frame rate")
                        .on_hover_text(
                            "Repaint continuously and show in the status bar the time from one \
                             frame to the next, the wait for the screen included",
                        )
                        .changed()
                    {
                        self.frames.measure_rate = measure;
                        self.frames.starts.clear();
                    }
                    if ui.button("Load report").clicked() {
                        l.report.shown = true;
                    }
                })
                .response
                .pipe_rect(ui.ctx());
            }
            if let Some(level) = level_chosen {
                self.set_level(level);
            }
            if find_asked {
                self.find.open = true;
            }
            if properties_asked {
                self.open_properties();
            }
            if self.loaded.is_some() {
                let mut new_timeline = false;
                let mut guest = None;
                ui.menu_button("Window", |ui| {
                    if ui
                        .button("New timeline")
                        .on_hover_text(
                            "Another timeline window of this trace below the others, of the \
                             active window's view, in its synchronize group",
                        )
                        .clicked()
                    {
                        new_timeline = true;
                        ui.close();
                    }
                    if let Some(l) = &mut self.loaded {
                        let mut tiled = l.tiled();
                        if ui
                            .checkbox(&mut tiled, "Tile side by side")
                            .on_hover_text("The timeline windows side by side instead of one above the other")
                            .changed()
                        {
                            l.set_tiled(tiled);
                        }
                    }
                    // A window of each other open trace, to see two runs one over the other.
                    for (k, o) in self.others.iter().enumerate() {
                        let name = super::traces::trace_name(o);
                        if ui
                            .button(format!("New timeline of {name}"))
                            .on_hover_text(
                                "A timeline window of that trace below this one's, in the active \
                                 window's synchronize group, aligned at time 0",
                            )
                            .clicked()
                        {
                            guest = Some(k);
                            ui.close();
                        }
                    }
                });
                if new_timeline {
                    self.new_timeline();
                }
                if let Some(k) = guest {
                    self.new_timeline_of(k, 0);
                }
            }
            ui.menu_button("Help", |ui| {
                if ui.button("Keys and gestures (F1)").clicked() {
                    self.dialogs.show_help = true;
                    ui.close();
                }
            });
            // The view and the window, on the menu bar's free space (the toolbar below keeps
            // its controls in place whatever their length).
            if let Some(l) = &self.loaded {
                ui.separator();
                ui.add(
                    egui::Label::new(RichText::new(self.shell.title.clone()).strong()).truncate(),
                );
                let npt = l.trace.header.time_unit.ns_per_tick();
                let w = l.timeline.window;
                ui.add(
                    egui::Label::new(format!(
                        "window {}",
                        crate::frame::format_window(w.start, w.end(), npt)
                    ))
                    .truncate(),
                );
            }
        });
    }

    pub(super) fn toolbar_ui(&mut self, ui: &mut Ui) {
        let Some(l) = &mut self.loaded else {
            return;
        };
        let t = &mut l.timeline;
        ui.horizontal(|ui| {
            if ui
                .button("Undo")
                .on_hover_text("Undo zoom (Ctrl+U, Ctrl+Z)")
                .clicked()
            {
                t.undo_zoom();
            }
            if ui
                .button("Redo")
                .on_hover_text("Redo zoom (Ctrl+R, Ctrl+Shift+Z)")
                .clicked()
            {
                t.redo_zoom();
            }
            if ui
                .button("Fit")
                .on_hover_text("Whole trace (Home)")
                .clicked()
            {
                t.fit();
            }
            ui.separator();
            let mut config = t.config.clone();
            // Each box after its label, as a toolbar reads from left to right.
            let label = ui.label("Colours");
            egui::ComboBox::from_id_salt("toolbar colours")
                .selected_text(match config.color {
                    ColorMode::Code => "Code",
                    ColorMode::Gradient => "Gradient",
                    ColorMode::FunctionLine => "Function line",
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut config.color, ColorMode::Code, "Code");
                    ui.selectable_value(&mut config.color, ColorMode::Gradient, "Gradient");
                    ui.selectable_value(
                        &mut config.color,
                        ColorMode::FunctionLine,
                        "Function line",
                    );
                })
                .response
                .labelled_by(label.id);
            if config.color != ColorMode::Code {
                scale_choice(ui, t, &mut config);
            }
            let label = ui.label("Pixel");
            egui::ComboBox::from_id_salt("toolbar pixel")
                .selected_text(config.mode.name())
                .show_ui(ui, |ui| {
                    for mode in DrawMode::ALL {
                        ui.selectable_value(&mut config.mode, mode, mode.name())
                            .on_hover_text(mode.description());
                    }
                })
                .response
                .labelled_by(label.id)
                .on_hover_text("Draw mode: what a pixel shows when several values share it");
            ui.checkbox(&mut config.zero_is_null, "Zero is null");
            ui.checkbox(&mut config.comms, "Communications");
            ui.checkbox(&mut config.flags, "Event flags");
            if config != t.config {
                let ctx = ui.ctx().clone();
                t.set_view(&ctx, &l.trace, config);
            }
            if t.is_building() {
                ui.spinner();
                ui.label("building view…");
            }
        });
    }
}

/// A gradient's or function line's scale: fit to the window (the default), fit with
/// outliers clipped, the whole trace, or raw values set by hand (in the legend; views whose
/// raw values are their values), and Paraver's linear or logarithmic gradient function.
fn scale_choice(ui: &mut Ui, t: &crate::timeline::Timeline, config: &mut crate::view::ViewConfig) {
    use crate::view::Scale;
    let current = config.scale;
    let label = ui.label("Scale");
    egui::ComboBox::from_id_salt("toolbar scale")
        .selected_text(current.name())
        .show_ui(ui, |ui| {
            for (s, name) in Scale::CHOICES {
                ui.selectable_value(&mut config.scale, s, name);
            }
            if crate::view::raw_is_value(&config.spec) {
                let manual = matches!(current, Scale::Manual(..));
                if ui.selectable_label(manual, "set by hand").clicked() && !manual {
                    let (lo, hi) = t.frame_scale().unwrap_or_else(|| t.coloring().range());
                    config.scale = Scale::Manual(lo, hi);
                }
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("What the gradient spans: the values drawn in the window by default");
    let mut log = config.function == crate::view::GradientFn::Logarithmic;
    ui.checkbox(&mut log, "log").on_hover_text(
        "Paraver's logarithmic gradient function: colours (and a function line's heights) \
         follow the logarithm of the distance from the scale's low end, so that values that \
         span decades all show",
    );
    config.function = if log {
        crate::view::GradientFn::Logarithmic
    } else {
        crate::view::GradientFn::Linear
    };
}

/// Where the View menu's button is, kept in egui's memory for `--bench-ui` (which clicks
/// it).
pub const VIEW_MENU_RECT: &str = "view-menu-rect";

trait PipeRect {
    fn pipe_rect(&self, ctx: &egui::Context);
}

impl PipeRect for egui::Response {
    fn pipe_rect(&self, ctx: &egui::Context) {
        let rect = self.rect;
        ctx.data_mut(|d| d.insert_temp(egui::Id::NULL.with(VIEW_MENU_RECT), rect));
    }
}

impl App {
    /// Why the trace could not be opened, if it could not.
    pub fn load_error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Where the View menu's button was in the last frame.
    pub fn view_menu_rect(ctx: &egui::Context) -> Option<egui::Rect> {
        ctx.data(|d| d.get_temp(egui::Id::NULL.with(VIEW_MENU_RECT)))
    }
}

//! The application: menus, the view list, the timeline, the legend and details panels, the
//! load progress bar, the load report, recent files, drag-and-drop and exports.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use egui::{Color32, RichText, Ui};

use super::jobs::Job;
use super::loader::{LoadOutcome, LoadRequest, LoadSource, Loading};
use super::part_dialog::{PartChoice, PartDialog};
use super::recent::{RecentFiles, config_dir};
use super::rows::Level;
use super::scope_panel::ScopePanel;
use super::theme;
use super::timeline::{self, Timeline};
use super::view::{ColorMode, MPI_CALL_TYPES, ViewConfig, type_label, value_label};
use prvscope_analysis::stats::{self, Column, Semantic};
use prvscope_format::LoadError;
use prvscope_store::signal::SignalSpec;
use prvscope_store::{NullOverride, Trace};

/// A loaded trace and its timeline.
pub struct Loaded {
    pub trace: Trace,
    pub timeline: Timeline,
    /// The event types present, for the view list (found once, not every frame).
    pub types: Vec<u32>,
    /// The scope panel beside the timeline.
    pub scopes: ScopePanel,
}

/// What the user asked to save.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Export {
    Png,
    Csv,
}

/// The viewer.
#[allow(clippy::struct_excessive_bools)] // independent switches of the window
pub struct App {
    pub loaded: Option<Loaded>,
    pub loading: Option<Loading>,
    /// The last load error, shown in the window.
    pub error: Option<String>,
    pub recent: RecentFiles,
    null: NullOverride,
    /// The file dialog, and whether the file picked opens the "part" dialog.
    open_dialog: Option<(Job<Option<PathBuf>>, bool)>,
    /// "Open part of a trace", when shown.
    pub part_dialog: Option<PartDialog>,
    /// Load without estimating the memory first (`--skip-memory-check`).
    pub skip_memory_check: bool,
    /// The memory to count on instead of what the machine has (tests).
    pub available_override: Option<u64>,
    save_dialog: Option<(Export, Job<Option<PathBuf>>)>,
    /// A PNG export waiting for its screenshot: path and the timeline's rect in points.
    png_pending: Option<(PathBuf, bool)>,
    screenshot: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
    /// The last status message (saved files, export errors).
    pub status: String,
    type_filter: String,
    show_report: bool,
    timeline_rect: egui::Rect,
    title: String,
    /// The view to show once the trace is loaded (the State view otherwise).
    pub start_view: Option<SignalSpec>,
    /// Show load and frame times (off for snapshot images, which must not vary).
    pub show_timings: bool,
    /// Show the scope panel.
    pub show_scopes: bool,
    /// Where settings are kept (none: nothing is saved).
    config: Option<PathBuf>,
    /// The context the app draws in: background work repaints it when done.
    ctx: egui::Context,
}

impl App {
    /// An app that starts loading `source`; recent files are kept in `config` (none: not kept).
    pub fn new(
        ctx: &egui::Context,
        source: LoadSource,
        null: NullOverride,
        config: Option<&Path>,
    ) -> Self {
        App::with_request(ctx, source, null, config, LoadRequest::default())
    }

    /// An app that starts loading `request`'s part of `source` (with its memory check).
    pub fn with_request(
        ctx: &egui::Context,
        source: LoadSource,
        null: NullOverride,
        config: Option<&Path>,
        request: LoadRequest,
    ) -> Self {
        let mut app = App {
            loaded: None,
            loading: None,
            error: None,
            recent: RecentFiles::load(config),
            null,
            open_dialog: None,
            part_dialog: None,
            skip_memory_check: request.skip_memory_check,
            available_override: request.available_override,
            save_dialog: None,
            png_pending: None,
            screenshot: Arc::default(),
            status: String::new(),
            type_filter: String::new(),
            show_report: false,
            timeline_rect: egui::Rect::NOTHING,
            title: String::new(),
            start_view: None,
            show_timings: true,
            show_scopes: true,
            config: config.map(Path::to_path_buf),
            ctx: ctx.clone(),
        };
        app.open_request(ctx, source, request);
        app
    }

    /// An app reading its recent files from the user's configuration folder.
    pub fn with_user_config(
        ctx: &egui::Context,
        source: LoadSource,
        null: NullOverride,
        request: LoadRequest,
    ) -> Self {
        App::with_request(ctx, source, null, config_dir().as_deref(), request)
    }

    /// Starts loading a trace in the background (the current one stays until it is ready).
    /// A trace too large for the memory available opens the "part" dialog instead.
    pub fn open(&mut self, ctx: &egui::Context, source: LoadSource) {
        let request = LoadRequest {
            subset: prvscope_format::Subset::default(),
            skip_memory_check: self.skip_memory_check,
            available_override: self.available_override,
        };
        self.open_request(ctx, source, request);
    }

    /// Starts loading `request`'s part of a trace in the background.
    pub fn open_request(&mut self, ctx: &egui::Context, source: LoadSource, request: LoadRequest) {
        if let Some(old) = self.loading.take() {
            old.cancel();
        }
        self.error = None;
        self.loading = Some(Loading::start(ctx, source, self.null, request));
    }

    /// Shows "Open part of a trace" for `path` (File > Open part of a trace…).
    pub fn ask_part(&mut self, path: PathBuf) {
        self.part_dialog = Some(PartDialog::estimating(
            &self.ctx,
            path,
            self.available_override,
        ));
    }

    fn part_dialog_ui(&mut self, ctx: &egui::Context) {
        let Some(choice) = self.part_dialog.as_mut().and_then(|d| d.show(ctx)) else {
            return;
        };
        self.part_dialog = None;
        self.status.clear();
        if let PartChoice::Load(path, subset) = choice {
            let request = LoadRequest {
                subset,
                skip_memory_check: true,
                available_override: self.available_override,
            };
            self.open_request(ctx, LoadSource::File(path), request);
        }
    }

    /// Blocks until the current load has finished (for tests and the command line).
    pub fn wait_for_load(&mut self, ctx: &egui::Context) {
        while self.loading.is_some() {
            self.poll_loading(ctx);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    fn poll_loading(&mut self, ctx: &egui::Context) {
        let Some(result) = self.loading.as_mut().and_then(Loading::poll) else {
            return;
        };
        let source = self.loading.take().map(|l| l.source);
        match result {
            LoadOutcome::Loaded(loaded) => {
                let (trace, timeline) = *loaded;
                if let Some(LoadSource::File(path)) = &source
                    && let Err(e) = self.recent.add(path)
                {
                    self.status = format!("could not save the recent-files list: {e}");
                }
                self.show_report = !trace.report.is_empty();
                let types = trace.store.event_types();
                let scopes = ScopePanel::new(&trace, self.config.as_deref());
                self.loaded = Some(Loaded {
                    trace,
                    timeline,
                    types,
                    scopes,
                });
                if let Some(spec) = self.start_view.clone() {
                    self.set_view(spec);
                }
            }
            LoadOutcome::Failed(LoadError::Cancelled { path }) => {
                self.status = format!("loading {} was cancelled", path.display());
            }
            LoadOutcome::Failed(e) => self.error = Some(e.to_string()),
            LoadOutcome::TooLarge(path, estimate) => {
                self.status = format!(
                    "{} needs about {} to load, more than the memory available: choose a part of it",
                    path.file_name().map_or_else(
                        || path.display().to_string(),
                        |n| n.to_string_lossy().into_owned()
                    ),
                    prvscope_format::units::human_bytes(estimate.whole_bytes)
                );
                self.part_dialog = Some(PartDialog::with_estimate(path, *estimate));
            }
        }
        ctx.request_repaint();
    }

    /// Switches the timeline to a view.
    pub fn set_view(&mut self, spec: SignalSpec) {
        if let Some(l) = &mut self.loaded {
            let mut config = ViewConfig::new(&l.trace, spec);
            config.comms = l.timeline.config.comms;
            config.flags = l.timeline.config.flags;
            l.timeline.set_view(&self.ctx, &l.trace, config);
        }
    }

    /// Writes the visible window's time per value per row as CSV.
    pub fn export_csv(&self, path: &Path) -> std::io::Result<()> {
        let Some(l) = &self.loaded else {
            return Err(std::io::Error::other("no trace is open"));
        };
        std::fs::write(path, visible_csv(l))
    }

    /// Saves the timeline's part of the next frame to `path` (PNG): the frame is captured
    /// with a screenshot request, and written when it arrives a frame or two later.
    pub fn export_png(&mut self, path: PathBuf) {
        self.png_pending = Some((path, false));
    }

    fn finish_png(&mut self, ctx: &egui::Context) {
        if let Some((_, requested @ false)) = &mut self.png_pending {
            *requested = true;
            let slot = Arc::clone(&self.screenshot);
            let wake = ctx.clone();
            ctx.request_screenshot(move |image| {
                if let Ok(mut s) = slot.lock() {
                    *s = Some(image);
                }
                wake.request_repaint();
            });
            return;
        }
        let image = self.screenshot.lock().ok().and_then(|mut s| s.take());
        let (Some(image), Some((path, _))) = (image, self.png_pending.take()) else {
            return;
        };
        let ppp = ctx.pixels_per_point();
        let r = self.timeline_rect;
        let [w, h] = image.size;
        let x0 = ((r.left() * ppp).round().max(0.0) as usize).min(w);
        let y0 = ((r.top() * ppp).round().max(0.0) as usize).min(h);
        let x1 = ((r.right() * ppp).round().max(0.0) as usize).clamp(x0, w);
        let y1 = ((r.bottom() * ppp).round().max(0.0) as usize).clamp(y0, h);
        let mut rgba = Vec::with_capacity((x1 - x0) * (y1 - y0) * 4);
        for y in y0..y1 {
            for x in x0..x1 {
                rgba.extend_from_slice(&image.pixels[y * w + x].to_array());
            }
        }
        let saved = image::RgbaImage::from_raw((x1 - x0) as u32, (y1 - y0) as u32, rgba)
            .ok_or_else(|| "empty image".to_owned())
            .and_then(|img| img.save(&path).map_err(|e| e.to_string()));
        self.status = match saved {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => format!("could not save {}: {e}", path.display()),
        };
    }

    fn ask_open(&mut self, ctx: &egui::Context, part: bool) {
        // The dialog blocks its thread; the UI keeps drawing.
        let job = Job::spawn_outside_pool(ctx, "open-dialog", |_| {
            rfd::FileDialog::new()
                .add_filter("Paraver trace", &["prv", "xz", "gz"])
                .add_filter("All files", &["*"])
                .pick_file()
        });
        self.open_dialog = Some((job, part));
    }

    fn ask_save(&mut self, ctx: &egui::Context, kind: Export) {
        let (name, ext) = match kind {
            Export::Png => ("timeline.png", "png"),
            Export::Csv => ("time_per_value.csv", "csv"),
        };
        let job = Job::spawn_outside_pool(ctx, "save-dialog", move |_| {
            rfd::FileDialog::new()
                .set_file_name(name)
                .add_filter(ext, &[ext])
                .save_file()
        });
        self.save_dialog = Some((kind, job));
    }

    fn poll_dialogs(&mut self, ctx: &egui::Context) {
        if let Some((job, part)) = &mut self.open_dialog
            && let Some(picked) = job.poll()
        {
            let part = *part;
            self.open_dialog = None;
            match picked {
                Some(path) if part => self.ask_part(path),
                Some(path) => self.open(ctx, LoadSource::File(path)),
                None => {}
            }
        }
        if let Some((kind, job)) = &mut self.save_dialog
            && let Some(picked) = job.poll()
        {
            let kind = *kind;
            self.save_dialog = None;
            if let Some(path) = picked {
                match kind {
                    Export::Png => self.export_png(path),
                    Export::Csv => {
                        self.status = match self.export_csv(&path) {
                            Ok(()) => format!("saved {}", path.display()),
                            Err(e) => format!("could not save {}: {e}", path.display()),
                        }
                    }
                }
            }
        }
        if self.open_dialog.is_some() || self.save_dialog.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    fn handle_drops(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(path) = dropped.into_iter().next() {
            self.open(ctx, LoadSource::File(path));
        }
    }

    /// The window title: "<view> @ <trace>".
    pub fn title(&self) -> String {
        match &self.loaded {
            Some(l) => format!(
                "{} @ {}",
                l.timeline.config.name(&l.trace),
                trace_file_name(&l.trace)
            ),
            None => "prvscope".to_owned(),
        }
    }

    fn menu_ui(&mut self, ui: &mut Ui) {
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
                if ui.button("Open the demo trace").clicked() {
                    self.open(&ctx, LoadSource::Demo);
                }
                ui.menu_button("Recent files", |ui| {
                    if self.recent.paths.is_empty() {
                        ui.label("(none yet)");
                    }
                    let mut chosen = None;
                    for p in &self.recent.paths {
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
                ui.separator();
                if ui.button("Quit").clicked() {
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            if let Some(l) = &mut self.loaded {
                ui.menu_button("View", |ui| {
                    if ui.button("Fit (Home)").clicked() {
                        l.timeline.fit();
                    }
                    if ui.button("Undo zoom (Ctrl+U, Ctrl+Z)").clicked() {
                        l.timeline.undo_zoom();
                    }
                    if ui.button("Redo zoom (Ctrl+R, Ctrl+Shift+Z)").clicked() {
                        l.timeline.redo_zoom();
                    }
                    ui.separator();
                    for (level, name) in [
                        (Level::Thread, "Rows: threads"),
                        (Level::Task, "Rows: tasks"),
                        (Level::Application, "Rows: applications"),
                    ] {
                        if ui.button(name).clicked() {
                            l.timeline.set_level(&l.trace, level);
                        }
                    }
                    ui.separator();
                    ui.checkbox(&mut self.show_scopes, "Scope panel");
                    if ui.button("Load report").clicked() {
                        self.show_report = true;
                    }
                });
            }
        });
    }

    fn toolbar_ui(&mut self, ui: &mut Ui) {
        let Some(l) = &mut self.loaded else {
            return;
        };
        let t = &mut l.timeline;
        ui.horizontal(|ui| {
            ui.label(RichText::new(self.title.clone()).strong().size(15.0));
            ui.separator();
            let npt = l.trace.header.time_unit.ns_per_tick();
            ui.label(format!(
                "window {} – {}",
                super::frame::format_ticks(t.window.start, npt),
                super::frame::format_ticks(t.window.end(), npt)
            ));
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
            egui::ComboBox::from_label("Colours")
                .selected_text(match config.color {
                    ColorMode::Code => "Code",
                    ColorMode::Gradient => "Gradient",
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut config.color, ColorMode::Code, "Code");
                    ui.selectable_value(&mut config.color, ColorMode::Gradient, "Gradient");
                });
            ui.checkbox(&mut config.zero_is_null, "Zero is null");
            ui.checkbox(&mut config.comms, "Communications");
            ui.checkbox(&mut config.flags, "Event flags");
            if config != t.config {
                t.apply_config(&l.trace, config);
            }
            if t.is_building() {
                ui.spinner();
                ui.label("building view…");
            }
        });
    }

    fn views_ui(&mut self, ui: &mut Ui) {
        let Some(l) = &self.loaded else {
            return;
        };
        ui.heading("Views");
        ui.horizontal(|ui| {
            let label = ui.label("Filter");
            ui.add(egui::TextEdit::singleline(&mut self.type_filter).hint_text("event types"))
                .labelled_by(label.id);
        });
        let current = l.timeline.config.spec.clone();
        let mut chosen: Option<SignalSpec> = None;
        let types = &l.types;
        egui::ScrollArea::vertical().show(ui, |ui| {
            if ui
                .selectable_label(current == SignalSpec::States, "State")
                .clicked()
            {
                chosen = Some(SignalSpec::States);
            }
            let mpi: Vec<u32> = MPI_CALL_TYPES
                .iter()
                .copied()
                .filter(|t| types.contains(t))
                .collect();
            if !mpi.is_empty()
                && ui
                    .selectable_label(
                        current == SignalSpec::Events(MPI_CALL_TYPES.to_vec()),
                        "MPI call",
                    )
                    .on_hover_text(
                        "MPI point-to-point, collective and other calls (50000001-50000003)",
                    )
                    .clicked()
            {
                chosen = Some(SignalSpec::Events(MPI_CALL_TYPES.to_vec()));
            }
            let filter = self.type_filter.to_lowercase();
            for &ty in types {
                let label = format!("{} ({ty})", type_label(&l.trace, ty));
                if !filter.is_empty() && !label.to_lowercase().contains(&filter) {
                    continue;
                }
                let selected = matches!(&current, SignalSpec::Events(v) if v.contains(&ty));
                let r = ui
                    .selectable_label(selected, label)
                    .on_hover_text("Click: this type; Ctrl+click: add it to the view");
                if r.clicked() {
                    let add = ui.input(|i| i.modifiers.command);
                    chosen = Some(match (&current, add) {
                        (SignalSpec::Events(v), true) if !v.contains(&ty) => {
                            let mut v = v.clone();
                            v.push(ty);
                            v.sort_unstable();
                            SignalSpec::Events(v)
                        }
                        _ => SignalSpec::Events(vec![ty]),
                    });
                }
            }
        });
        if let Some(spec) = chosen
            && spec != current
        {
            self.set_view(spec);
        }
    }

    fn side_ui(&mut self, ui: &mut Ui) {
        let Some(l) = &self.loaded else {
            return;
        };
        let t = &l.timeline;
        ui.heading("Legend");
        let legend = t.legend();
        let total: u64 = legend.iter().map(|e| u64::from(e.1)).sum();
        egui::ScrollArea::vertical()
            .id_salt("legend")
            .max_height(ui.available_height() * 0.55)
            .show(ui, |ui| {
                if legend.is_empty() {
                    ui.label("nothing drawn in this window");
                }
                let mut entries: Vec<(u64, u32)> = legend.to_vec();
                entries.sort_by_key(|e| std::cmp::Reverse(e.1));
                for (value, px) in entries.iter().take(200) {
                    let color = t.coloring().color(*value).unwrap_or(Color32::TRANSPARENT);
                    let label = value_label(&l.trace, &t.config.spec, *value, false);
                    let share = 100.0 * f64::from(*px) / total.max(1) as f64;
                    timeline::swatch(ui, color, &format!("{label} ({value})"))
                        .on_hover_text(format!("{share:.1}% of the drawn pixels"));
                }
                if t.config.color == ColorMode::Gradient {
                    let (lo, hi) = t.coloring().range();
                    ui.label(format!("gradient {lo} (green) to {hi} (blue)"));
                }
            });
        ui.separator();
        ui.heading("Details");
        let npt = l.trace.header.time_unit.ns_per_tick();
        match t.pinned.and_then(|p| t.details(&l.trace, p.row, p.time)) {
            Some(d) => timeline::details_ui(ui, &d, npt),
            None => {
                ui.label("click the timeline to pin a point");
            }
        }
        ui.separator();
        ui.heading("Trace");
        let c = l.trace.store.counts();
        ui.label(format!(
            "{} rows, {} ticks ({})",
            l.trace.store.threads().len(),
            l.trace.header.end_time,
            l.trace.header.time_unit
        ));
        ui.label(format!(
            "{} states, {} events, {} comms",
            c.states, c.events, c.comms
        ));
        if let Some(part) = l.trace.part_description() {
            ui.label(RichText::new(format!("Part loaded: {part}")).color(theme::WARNING));
        }
        if self.show_timings {
            ui.label(format!("loaded in {:.2} s", l.trace.stats.load_seconds));
        }
        if !l.trace.report.is_empty()
            && ui
                .link(format!("{} warnings", l.trace.report.skipped().max(1)))
                .clicked()
        {
            self.show_report = true;
        }
    }

    fn report_window(&mut self, ctx: &egui::Context) {
        let Some(l) = &self.loaded else {
            return;
        };
        let mut open = self.show_report;
        egui::Window::new("Load report")
            .open(&mut open)
            .default_width(520.0)
            .show(ctx, |ui| {
                if l.trace.report.is_empty() {
                    ui.label("Everything in the trace was read.");
                }
                for w in l.trace.report.warnings() {
                    ui.label(RichText::new(w).color(theme::WARNING));
                }
            });
        self.show_report = open;
    }

    fn status_ui(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            if let Some(loading) = &self.loading {
                let (done, total) = loading.bytes();
                ui.label(format!("Loading {}", loading.source.display_name()));
                ui.add(
                    egui::ProgressBar::new(loading.progress.fraction() as f32)
                        .desired_width(240.0)
                        .show_percentage(),
                );
                ui.label(format!(
                    "{:.0} / {:.0} MB, {:.0} MB/s",
                    done as f64 / 1e6,
                    total as f64 / 1e6,
                    loading.mb_per_s()
                ));
                if ui.button("Cancel").clicked() {
                    loading.cancel();
                }
            } else if let Some(l) = &self.loaded {
                if let Some(part) = &l.trace.part {
                    ui.label(
                        RichText::new(format!("part loaded: {}", part.subset))
                            .color(theme::WARNING),
                    );
                }
                if self.show_timings {
                    ui.label(format!("frame built in {:.1} ms", l.timeline.last_build_ms));
                }
            }
            if !self.status.is_empty() {
                ui.separator();
                ui.label(&self.status);
            }
        });
    }
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.poll_loading(&ctx);
        self.poll_dialogs(&ctx);
        self.handle_drops(&ctx);
        self.finish_png(&ctx);
        if self.loading.is_some() {
            // Keep the progress bar moving, five times a second: a frame drawn by a software
            // renderer costs tens of milliseconds of a core the load could use.
            ctx.request_repaint_after(std::time::Duration::from_millis(200));
        }
        let title = self.title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }

        if let Some(l) = &mut self.loaded {
            l.scopes.update(&ctx, l.timeline.window);
            l.timeline.highlight = l.scopes.highlight();
        }
        egui::Panel::top("menu").show(ui, |ui| {
            self.menu_ui(ui);
            self.toolbar_ui(ui);
        });
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        if self.loaded.is_some() {
            egui::Panel::left("views")
                .default_size(220.0)
                .resizable(true)
                .show(ui, |ui| self.views_ui(ui));
            egui::Panel::right("side")
                .default_size(240.0)
                .resizable(true)
                .show(ui, |ui| self.side_ui(ui));
        }
        if self.show_scopes
            && let Some(l) = &mut self.loaded
        {
            egui::Panel::right("scopes")
                .default_size(560.0)
                .resizable(true)
                .show(ui, |ui| l.scopes.ui(ui));
        }
        egui::CentralPanel::default().show(ui, |ui| {
            if let Some(e) = &self.error {
                ui.label(RichText::new(format!("Could not open the trace: {e}")).color(theme::ERROR));
            }
            match &mut self.loaded {
                Some(l) => {
                    self.timeline_rect = ui.available_rect_before_wrap();
                    l.timeline.ui(ui, &l.trace);
                }
                None if self.loading.is_some() => {
                    ui.centered_and_justified(|ui| ui.label("Loading…"));
                }
                None => {
                    ui.centered_and_justified(|ui| {
                        ui.label("Open a trace with File > Open, or drop a .prv, .prv.xz or .prv.gz here.")
                    });
                }
            }
        });
        self.report_window(&ctx);
        self.part_dialog_ui(&ctx);
    }
}

/// The file name of a trace.
pub fn trace_file_name(trace: &Trace) -> String {
    trace.path.file_name().map_or_else(
        || trace.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The visible window's time per value per thread, as CSV.
fn visible_csv(l: &Loaded) -> String {
    let t = &l.timeline;
    let (t0, t1) = (
        t.window.start,
        t.window.end().min(t.end_time().max(t.window.start)),
    );
    let spec = t.config.spec.clone();
    let table = match &spec {
        SignalSpec::States => stats::time_per_value(&l.trace.store, Semantic::StateAsIs, t0, t1),
        SignalSpec::Events(types) if types.len() == 1 => {
            stats::time_per_value(&l.trace.store, Semantic::LastEventValue(types[0]), t0, t1)
        }
        SignalSpec::Events(_) => {
            stats::time_per_value_of_view(t.signals(), t.config.zero_is_null, t0, t1)
        }
    };
    let label = |c: Column| match c {
        Column::Value(v) => value_label(&l.trace, &spec, v, false),
        Column::Null => "null".to_owned(),
    };
    prvscope_analysis::table::table_text(&l.trace, &table, true, &label)
}

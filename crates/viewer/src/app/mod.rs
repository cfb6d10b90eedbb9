//! The application: menus, the view list, the timeline, the legend and details panels, the
//! load progress bar, the load report, recent files, drag-and-drop and exports.
//!
//! - `menus`: the menu bar and the toolbar;
//! - `panels`: the view list, the legend and details, the load report, the status bar;
//! - `dialogs`: the file dialogs and dropped files;
//! - `export`: the timeline as PNG, the time per value as CSV.

mod carry_out;
mod dialogs;
mod export;
mod loading;
mod menus;
mod navigate;
pub mod panes;
mod save_trace;
mod session;
mod state;
pub mod traces;

pub use crate::frame::thousands;
pub use navigate::{FindState, KEYS};
mod panels;

use std::path::PathBuf;

use crate::jobs::Job;

use egui::{RichText, Ui};

use super::loader::{LoadRequest, LoadSource, Loading};
use super::part_dialog::{PartChoice, PartDialog};
use super::rows::Level;
use super::scope_panel::ScopePanel;
use super::settings::Settings;
use super::theme;
use super::timeline::Timeline;
use super::view::ViewConfig;
use prvscope_store::signal::SignalSpec;
use prvscope_store::{NullOverride, Trace};

/// Frames whose times the status bar looks at (the slowest is shown).
pub const FRAME_HISTORY: usize = 120;
/// The side panel's width in a fresh window: with the row labels it leaves the rows at
/// least 65% of the default 1400-pixel window.
pub const SIDE_WIDTH: f32 = 210.0;

/// A loaded trace and its timeline.
pub struct Loaded {
    pub trace: Trace,
    pub timeline: Timeline,
    /// The event types present, for the view list (found once, not every frame).
    pub types: Vec<u32>,
    /// The load report: what was skipped, what the trace lacks (side files not found,
    /// records that stop before the header's end).
    pub report: crate::reports::LoadReport,
    /// What the last cfg computed on the trace did not show, and why, while its window is
    /// open.
    pub cfg_report: Option<crate::reports::CfgReport>,
    /// The scope panel beside the timeline.
    pub scopes: ScopePanel,
    /// The cfg windows computed over this trace, kept for the histograms that follow the
    /// timeline (dropped with the trace).
    pub windows: std::sync::Arc<prvscope_paraver::window::WindowCache>,
    /// The cfg being computed over this trace.
    pub(crate) cfg_run: Option<crate::histogram::CfgRun>,
    /// The histogram windows of the cfgs opened on this trace.
    pub(crate) histograms: Vec<crate::histogram::HistogramWindow>,
    /// The timeline windows of those cfgs, as views (side panel, above "State").
    pub(crate) cfg_views: Vec<prvscope_store::signal::CustomRef>,
    /// The cfg window each of those views shows, by view id.
    pub(crate) cfg_sources: std::collections::HashMap<u64, crate::properties::Source>,
    /// View > Window properties…, of the view shown.
    pub(crate) properties: Option<crate::properties::PropertiesWindow>,
    /// Analysis > POP metrics, from this trace.
    pub(crate) pop: Option<crate::pop_window::PopWindow>,
    /// Analysis > Cluster bursts, on this trace.
    pub(crate) cluster: Option<crate::cluster_window::ClusterWindow>,
    /// Analysis > Compare with, of this trace (A) with another open trace.
    pub(crate) compare: Option<crate::compare_window::CompareWindow>,
    /// Its timeline windows (Window > New timeline) and their synchronize groups.
    pub(crate) panes: panes::Panes,
}

/// The viewer: the trace shown (or being loaded), the settings, the status line, Find, and
/// the state of each concern of the window ([`state`]).
pub struct App {
    /// The trace shown.
    pub(crate) loaded: Option<Loaded>,
    /// The other traces open, each with its windows ([`traces`]).
    pub(crate) others: Vec<Loaded>,
    pub(crate) loading: Option<Loading>,
    /// The last load error, shown in the window.
    pub(crate) error: Option<String>,
    /// Recent files and source folders, kept between runs by eframe.
    settings: Settings,
    /// The last status message (saved files, export errors).
    pub(crate) status: String,
    /// The context the app draws in: background work repaints it when done.
    ctx: egui::Context,
    /// Find (Ctrl+F) and the keys window (F1).
    pub(crate) find: navigate::FindState,
    pub(crate) opening: state::Opening,
    pub(crate) dialogs: state::Dialogs,
    pub(crate) frames: state::FrameStats,
    exports: state::Exports,
    pub(crate) shell: state::Shell,
}

impl App {
    /// An app that starts loading `source`, with `settings` (recent files, source folders).
    pub fn new(
        ctx: &egui::Context,
        source: LoadSource,
        null: NullOverride,
        settings: Settings,
    ) -> Self {
        App::with_request(ctx, source, null, settings, LoadRequest::default())
    }

    /// An app that starts loading `request`'s part of `source` (with its memory check).
    pub fn with_request(
        ctx: &egui::Context,
        source: LoadSource,
        null: NullOverride,
        settings: Settings,
        request: LoadRequest,
    ) -> Self {
        let mut app = App {
            loaded: None,
            others: Vec::new(),
            loading: None,
            error: None,
            settings,
            status: String::new(),
            ctx: ctx.clone(),
            find: navigate::FindState::default(),
            opening: state::Opening::new(null, &request),
            dialogs: state::Dialogs::default(),
            frames: state::FrameStats::default(),
            exports: state::Exports::default(),
            shell: state::Shell::default(),
        };
        // Without a trace, the last session's (if its file is still there).
        let source = match (&source, &app.settings.session) {
            (LoadSource::Demo, Some(s)) if s.path.is_file() => {
                app.opening.restore = Some(s.clone());
                LoadSource::File(s.path.clone())
            }
            _ => source,
        };
        app.open_request(ctx, source, request);
        app
    }

    /// The settings as they are now (what eframe saves).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// View > Dock windows beside the timeline.
    pub fn set_dock_windows(&mut self, dock: bool) {
        self.settings.dock_windows = dock;
    }

    /// Takes into the settings the source folders the scope panel's user added (before the
    /// panel is replaced by a new trace's, and when eframe saves).
    fn take_source_folders(&mut self) {
        if let Some(l) = &self.loaded {
            self.settings
                .source_folders
                .clone_from(&l.scopes.src.folders);
        }
    }

    /// The trace shown, once loaded.
    pub fn loaded(&self) -> Option<&Loaded> {
        self.loaded.as_ref()
    }

    /// The trace shown, to act on it as the user would (zoom, select a scope, add a folder).
    pub fn loaded_mut(&mut self) -> Option<&mut Loaded> {
        self.loaded.as_mut()
    }

    /// The load under way, with its progress.
    pub fn loading(&self) -> Option<&Loading> {
        self.loading.as_ref()
    }

    /// The last load error, as the window shows it.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The status bar's message.
    pub fn status(&self) -> &str {
        &self.status
    }

    /// "Open part of a trace", when shown.
    pub fn part_dialog(&self) -> Option<&PartDialog> {
        self.dialogs.part.as_ref()
    }

    /// "Open part of a trace", to fill in as the user would.
    pub fn part_dialog_mut(&mut self) -> Option<&mut PartDialog> {
        self.dialogs.part.as_mut()
    }

    /// Shows `spec` instead of the State view once the trace is loaded (`--view`).
    pub fn set_start_view(&mut self, spec: Option<SignalSpec>) {
        self.opening.start_view = spec;
    }

    /// Draws the first view in `mode` instead of its default (`--draw-mode`).
    pub fn set_start_mode(&mut self, mode: Option<prvscope_store::summary::DrawMode>) {
        self.opening.start_mode = mode;
    }

    /// Shows or hides load and frame times (hidden in snapshot images, which must not vary).
    pub fn set_show_timings(&mut self, show: bool) {
        self.frames.show_timings = show;
    }

    /// Shows or hides the scope panel (View > Scope panel, Ctrl+J; remembered).
    pub fn set_show_scopes(&mut self, show: bool) {
        self.settings.show_scopes = show;
    }

    /// Shows or hides the side panel (View > Side panel, Ctrl+B; remembered).
    pub fn set_show_side(&mut self, show: bool) {
        self.settings.show_side = show;
    }

    /// True when the scope panel is drawn: asked for, and the trace has scope types.
    pub fn scope_panel_shown(&self) -> bool {
        self.settings.show_scopes
            && self
                .loaded
                .as_ref()
                .is_some_and(|l| self.shell.scopes_forced || !l.scopes.types().is_empty())
    }

    /// The slowest whole frame (as eframe reports it: the app's code, tessellation and
    /// painting) of the last [`FRAME_HISTORY`] frames, and the last one, in milliseconds.
    pub fn frame_ms(&self) -> Option<(f32, f32)> {
        let last = *self.frames.times.back()?;
        let worst = self.frames.times.iter().copied().fold(0.0, f32::max);
        Some((last * 1e3, worst * 1e3))
    }

    /// While the frame rate is measured: the mean and the longest time from one frame's
    /// start to the next over the last [`FRAME_HISTORY`] frames, in milliseconds. Unlike
    /// [`Self::frame_ms`] this holds everything, the wait for the screen included.
    pub fn frame_interval_ms(&self) -> Option<(f64, f64)> {
        let (first, last) = (self.frames.starts.front()?, self.frames.starts.back()?);
        let n = self.frames.starts.len().checked_sub(1).filter(|&n| n > 0)?;
        let mean = last.duration_since(*first).as_secs_f64() * 1e3 / n as f64;
        let longest = self
            .frames
            .starts
            .iter()
            .zip(self.frames.starts.iter().skip(1))
            .map(|(a, b)| b.duration_since(*a).as_secs_f64() * 1e3)
            .fold(0.0, f64::max);
        Some((mean, longest))
    }

    /// Turns the frame-rate measurement on or off (View menu).
    pub fn set_measure_rate(&mut self, on: bool) {
        self.frames.measure_rate = on;
        self.frames.starts.clear();
    }

    /// Starts loading a trace in the background (the current one stays until it is ready).
    /// A trace too large for the memory available opens the "part" dialog instead.
    pub fn open(&mut self, ctx: &egui::Context, source: LoadSource) {
        let request = LoadRequest {
            subset: prvscope_format::Subset::default(),
            skip_memory_check: self.opening.skip_memory_check,
            available_override: self.opening.available_override,
            cache: self.opening.cache.clone(),
            convert: false,
            cache_check: self.opening.cache_check,
        };
        self.open_request(ctx, source, request);
    }

    /// Starts loading `request`'s part of a trace in the background.
    pub fn open_request(&mut self, ctx: &egui::Context, source: LoadSource, request: LoadRequest) {
        if let Some(old) = self.loading.take() {
            old.cancel();
        }
        self.error = None;
        self.loading = Some(Loading::start(ctx, source, self.opening.null, request));
    }

    /// Shows "Open part of a trace" for `path` (File > Open part of a trace…).
    pub fn ask_part(&mut self, path: PathBuf) {
        let mut dialog = PartDialog::estimating(&self.ctx, path, self.opening.available_override);
        dialog.no_convert = self.no_convert();
        self.dialogs.part = Some(dialog);
    }

    /// Why a trace cannot be converted here: there is no store cache to convert it into.
    fn no_convert(&self) -> Option<String> {
        self.opening.cache.is_none().then(|| {
            "The store cache is off (--no-cache, or no cache folder): there is nothing to convert the trace into.".to_string()
        })
    }

    fn part_dialog_ui(&mut self, ctx: &egui::Context) {
        let Some(choice) = self.dialogs.part.as_mut().and_then(|d| d.show(ctx)) else {
            return;
        };
        self.dialogs.part = None;
        self.status.clear();
        let (path, subset, convert) = match choice {
            PartChoice::Load(path, subset) => (path, subset, false),
            PartChoice::Convert(path) => (path, prvscope_format::Subset::default(), true),
            PartChoice::Cancel => return,
        };
        let request = LoadRequest {
            subset,
            skip_memory_check: true,
            available_override: self.opening.available_override,
            cache: self.opening.cache.clone(),
            convert,
            cache_check: self.opening.cache_check,
        };
        self.open_request(ctx, LoadSource::File(path), request);
    }

    /// Writes the store of a trace just parsed to the store cache on a background job, once
    /// it is shown (writing a large store takes seconds the user need not wait for).
    fn write_cache_later(&mut self, ctx: &egui::Context, trace: &Trace) {
        if trace.cache.state != prvscope_import::cache::CacheState::Pending {
            return;
        }
        let options = prvscope_import::LoadOptions {
            null: self.opening.null,
            subset: trace
                .part
                .as_ref()
                .map(|p| p.subset.clone())
                .unwrap_or_default(),
            cache: self.opening.cache.clone(),
            ..prvscope_import::LoadOptions::default()
        };
        let trace = trace.clone();
        let path = trace.path.clone();
        // The write outlives the window: the process, its window closed, waits for it (an
        // interrupted write would leave a temporary file and no store).
        let guard = crate::jobs::lingering();
        let job = Job::spawn(ctx, "store-cache", move |_| {
            let _guard = guard;
            prvscope_import::cache::write_later(&trace, &options)
        });
        self.opening.cache_write = Some((path, job));
    }

    /// Takes what the cache write says, for the trace it was for.
    fn poll_cache_write(&mut self) {
        let Some((_, job)) = self.opening.cache_write.as_mut() else {
            return;
        };
        let state = match job.poll() {
            Some(state) => state,
            // The writer stopped without a result (it panicked): said, not waited for.
            None if !job.is_running() => prvscope_import::cache::CacheState::NotWritten(
                "the writer stopped unexpectedly".into(),
            ),
            None => return,
        };
        let path = self.opening.cache_write.take().map(|(p, _)| p);
        if let Some(l) = self.loaded.as_mut()
            && Some(&l.trace.path) == path.as_ref()
        {
            l.trace.cache.state = state;
        }
    }

    /// Blocks until the store of the trace shown is in the cache, or could not be written
    /// (tests).
    pub fn wait_for_cache_write(&mut self) {
        while self.opening.cache_write.is_some() {
            self.poll_cache_write();
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Blocks until the current load has finished (for tests and the command line).
    pub fn wait_for_load(&mut self, ctx: &egui::Context) {
        while self.loading.is_some() {
            self.poll_loading(ctx);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Blocks until the configuration being computed is done (tests).
    pub fn wait_for_cfg(&mut self, ctx: &egui::Context) {
        while self.loaded.as_ref().is_some_and(|l| l.cfg_run.is_some()) {
            self.poll_cfg(ctx);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// The folder File > Configurations browses (the user chooses it in that menu).
    pub fn set_cfg_library(&mut self, dir: Option<PathBuf>) {
        self.settings.cfg_library = dir;
    }

    /// The views of the cfgs' timeline windows.
    pub fn cfg_views(&self) -> &[prvscope_store::signal::CustomRef] {
        self.loaded.as_ref().map_or(&[], |l| &l.cfg_views)
    }

    /// The histogram windows open.
    pub fn histograms(&self) -> &[crate::histogram::HistogramWindow] {
        self.loaded.as_ref().map_or(&[], |l| &l.histograms)
    }

    /// The histogram windows of the open trace, to act on.
    pub fn histograms_mut(&mut self) -> &mut [crate::histogram::HistogramWindow] {
        self.loaded
            .as_mut()
            .map_or(&mut [], |l| l.histograms.as_mut_slice())
    }

    /// Opens the POP metrics window on the open trace (computed in the background).
    pub fn open_pop(&mut self, ctx: &egui::Context) {
        if let Some(l) = &mut self.loaded {
            let name = l
                .trace
                .path
                .file_name()
                .map_or_else(|| "trace".to_owned(), |n| n.to_string_lossy().into_owned());
            l.pop = Some(crate::pop_window::PopWindow::new(ctx, &l.trace, name));
        } else {
            "POP metrics: no trace is open".clone_into(&mut self.status);
        }
    }

    /// Opens the burst clustering window on the open trace (its bursts found in the
    /// background).
    pub fn open_cluster(&mut self, ctx: &egui::Context) {
        if let Some(l) = &mut self.loaded {
            l.cluster = Some(crate::cluster_window::ClusterWindow::new(ctx, &l.trace));
        } else {
            "Cluster bursts: no trace is open".clone_into(&mut self.status);
        }
    }

    /// The burst clustering window, if open.
    pub fn cluster_window(&mut self) -> Option<&mut crate::cluster_window::ClusterWindow> {
        self.loaded.as_mut().and_then(|l| l.cluster.as_mut())
    }

    /// The POP metrics window, if open.
    pub fn pop_window(&mut self) -> Option<&mut crate::pop_window::PopWindow> {
        self.loaded.as_mut().and_then(|l| l.pop.as_mut())
    }

    /// A store cache file whose records are checked after it was opened
    /// ([`LoadRequest::cache_check`]): polled until the check ends; when it found the file
    /// corrupt, the trace is closed (nothing of the file is shown any more), the file was
    /// removed, and the trace is read again, the status line saying why.
    fn poll_integrity(&mut self, ctx: &egui::Context) {
        let Some(l) = &self.loaded else {
            return;
        };
        let why = match l.trace.store.integrity() {
            prvscope_store::Integrity::Checked => return,
            prvscope_store::Integrity::Checking => {
                ctx.request_repaint_after(std::time::Duration::from_millis(200));
                return;
            }
            prvscope_store::Integrity::Corrupt(why) => why,
        };
        let path = l.trace.path.clone();
        self.loaded = None;
        self.open(ctx, LoadSource::File(path.clone()));
        self.status = format!(
            "{}: {why}; the cache file was removed and the trace is read again",
            path.display()
        );
        self.opening.reread = Some(self.status.clone());
    }

    /// Shows the rows of `level`: threads, tasks, applications, CPUs or nodes (the status
    /// line says why not, when the trace does not tell where its threads ran).
    pub fn set_level(&mut self, level: Level) {
        if let Some(l) = &mut self.loaded {
            match l.timeline.set_level(&self.ctx, &l.trace, level) {
                Ok(()) => {
                    if let Some(note) = l
                        .timeline
                        .placement()
                        .and_then(|p| level.is_resource().then(|| p.unplaced_note()).flatten())
                    {
                        self.status = note;
                    }
                }
                Err(e) => self.status = format!("no CPU rows: {e}"),
            }
        }
    }

    /// Switches the timeline to a view.
    /// Where the timeline was drawn in the last frame (its rows, labels and ruler).
    pub fn timeline_rect(&self) -> egui::Rect {
        self.shell.timeline_rect
    }

    pub fn set_view(&mut self, spec: SignalSpec) {
        if let Some(l) = &mut self.loaded {
            // A view of tasks or applications shows on their collapsed rows.
            let collapse = match &spec {
                SignalSpec::Custom(c) => c.0.group_level,
                _ => None,
            };
            let mut config = ViewConfig::new(&l.trace, spec);
            config.comms = l.timeline.config.comms;
            config.flags = l.timeline.config.flags;
            l.timeline.set_view(&self.ctx, &l.trace, config);
            // A thread view stays on the CPUs or nodes shown.
            let level = collapse.filter(|l| matches!(l, Level::Task | Level::Appl));
            if let Some(level) = level
                && let Err(e) = l.timeline.set_level(&self.ctx, &l.trace, level)
            {
                self.status = e;
            }
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
}

impl eframe::App for App {
    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        self.take_source_folders();
        // The session of the trace file open; the demo (or nothing) keeps the last one.
        if let Some(s) = self.session() {
            self.settings.session = Some(s);
        }
        self.settings.save(storage);
    }

    fn ui(&mut self, ui: &mut Ui, frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.poll_loading(&ctx);
        self.poll_integrity(&ctx);
        self.poll_dialogs(&ctx);
        self.poll_cfg(&ctx);
        self.poll_cache_write();
        self.handle_drops(&ctx);
        self.finish_png(&ctx);
        self.poll_trace_save();
        if self.loading.is_some() {
            // Keep the progress bar moving, five times a second: a frame drawn by a software
            // renderer costs tens of milliseconds of a core the load could use.
            ctx.request_repaint_after(std::time::Duration::from_millis(200));
        }
        let title = self.title();
        if title != self.shell.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.shell.title = title;
        }

        if let Some(l) = &mut self.loaded {
            l.panes_begin(&ctx);
        }
        if self.frames.measure_rate {
            self.frames.starts.push_back(std::time::Instant::now());
            while self.frames.starts.len() > FRAME_HISTORY + 1 {
                self.frames.starts.pop_front();
            }
            ctx.request_repaint();
        }
        if let Some(t) = frame.info().cpu_usage {
            self.frames.times.push_back(t);
            while self.frames.times.len() > FRAME_HISTORY {
                self.frames.times.pop_front();
            }
        }
        self.panel_keys(&ctx);
        self.navigation_keys(&ctx);
        let scopes_shown = self.scope_panel_shown();
        if let Some(l) = &mut self.loaded {
            l.scopes.set_zero_is_null(l.timeline.config.zero_is_null);
            l.scopes.update(&ctx, l.timeline.window);
            // A histogram cell clicked is outlined; else the selected scope, only while the
            // panel that selected it is shown.
            let rows = l.trace.store.thread_count();
            l.timeline.pointer.classes = l
                .cluster
                .as_ref()
                .and_then(crate::cluster_window::ClusterWindow::class_fill);
            l.timeline.pointer.highlight = l
                .cluster
                .as_ref()
                .and_then(crate::cluster_window::ClusterWindow::highlight)
                .or_else(|| l.histograms.iter().rev().find_map(|h| h.highlight(rows)))
                .or_else(|| {
                    if scopes_shown {
                        l.scopes.highlight()
                    } else {
                        None
                    }
                });
        }
        egui::Panel::top("menu").show(ui, |ui| {
            self.menu_ui(ui);
            self.toolbar_ui(ui);
        });
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        if self.loaded.is_some() && self.settings.show_side {
            egui::Panel::left("side")
                .default_size(SIDE_WIDTH)
                .min_size(120.0)
                .max_size(480.0)
                .resizable(true)
                .show(ui, |ui| self.side_panel_ui(ui));
        }
        // The dock of the floating windows, at the timeline's right while one is open.
        let dock = self.settings.dock_windows && self.tool_windows_open();
        if dock {
            let width = ui.ctx().content_rect().width();
            let rect = egui::Panel::right("dock")
                .default_size((width * 0.42).max(360.0))
                .min_size(240.0)
                .max_size((width * 0.75).max(240.0))
                .resizable(true)
                .show(ui, crate::windows::dock_ui)
                .inner;
            crate::windows::set_dock(&ctx, Some(rect));
        } else {
            crate::windows::set_dock(&ctx, None);
        }
        if scopes_shown && let Some(l) = &mut self.loaded {
            let height = ui.available_height();
            // The first height is the window's, not what the other panels leave: the status
            // bar is a line taller while a load ends, and egui keeps the first size it gets.
            let window = ui.ctx().content_rect().height();
            egui::Panel::bottom("scopes")
                // The timeline keeps at least 65% of the window's height by default; the user
                // may give the panel up to 60% of what the timeline has.
                .default_size((window * 0.22).clamp(140.0, 320.0))
                .min_size(120.0)
                .max_size((height * 0.6).max(120.0))
                .resizable(true)
                .show(ui, |ui| {
                    // The panel's height is the user's (or the default), never its content's:
                    // egui remembers a panel's size from what its content used, so content is
                    // laid out in a child clipped to the panel, which takes the whole panel
                    // whether the content is short ("analysing…") or, for a frame, tall.
                    let rect = ui.available_rect_before_wrap();
                    let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect));
                    child.set_clip_rect(rect.intersect(ui.clip_rect()));
                    l.scopes.ui(&mut child);
                    ui.advance_cursor_after_rect(rect);
                });
        }
        egui::CentralPanel::default().show(ui, |ui| {
            if let Some(e) = &self.error {
                ui.label(RichText::new(format!("Could not open the trace: {e}")).color(theme::ERROR));
            }
            match &mut self.loaded {
                Some(_) => self.panes_ui(ui),
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
        self.help_window(&ctx);
        self.find_window(&ctx);
        for command in crate::commands::take(&ctx) {
            self.carry_out(command);
        }
        self.part_dialog_ui(&ctx);
        self.histograms_ui(&ctx);
        // What the floating windows asked for, carried out now: the timeline and windows
        // they change are drawn so next frame, which is asked for.
        let late = crate::commands::take(&ctx);
        if !late.is_empty() {
            ctx.request_repaint();
        }
        for command in late {
            self.carry_out(command);
        }
        if let Some(l) = &mut self.loaded {
            l.panes_sync(&ctx);
        }
    }
}

/// The file name of a trace.
pub use crate::shared::trace_file_name;

impl App {
    /// Is any of the windows that dock beside the timeline open?
    fn tool_windows_open(&self) -> bool {
        let Some(l) = &self.loaded else {
            return false;
        };
        self.find.open
            || !l.histograms.is_empty()
            || l.properties.is_some()
            || l.pop.is_some()
            || l.cluster.is_some()
            || l.compare.is_some()
            || l.cfg_report.is_some()
            || l.report.shown
            || !l.scopes.breakdowns().is_empty()
    }
}

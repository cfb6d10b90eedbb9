//! The file dialogs (open, open part, save an export), each on a thread of its own so that
//! the UI keeps drawing, and files dropped on the window.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::App;
use super::export::Export;
use crate::file_dialog::{FileDialog, Kind, Spec};
use crate::loader::LoadSource;

impl App {
    /// The folder a dialog starts in: that of the trace open, else of the last trace opened
    /// (never the working directory the program happened to start in, when either exists).
    pub fn start_folder(&self) -> Option<PathBuf> {
        self.loaded
            .as_ref()
            .map(|l| l.trace.path.as_path())
            .into_iter()
            .chain(self.settings.recent.paths().iter().map(PathBuf::as_path))
            .filter_map(std::path::Path::parent)
            .find(|d| d.is_dir())
            .map(std::path::Path::to_path_buf)
    }

    pub(super) fn ask_open(&mut self, ctx: &egui::Context, part: bool) {
        let dir = self.start_folder();
        let spec = Spec::new("Open a trace", Kind::Open)
            .filter("Paraver trace", &["prv", "xz", "gz"])
            .filter("All files", &["*"])
            .dir(dir);
        self.dialogs.open = Some((FileDialog::open(ctx, spec), part));
    }

    /// File > Open session… (`save`: Save session as…): a named session file.
    pub(super) fn ask_session(&mut self, ctx: &egui::Context, save: bool) {
        let kind = if save {
            Kind::Save("session.prvscope.json".to_owned())
        } else {
            Kind::Open
        };
        let title = if save {
            "Save session as"
        } else {
            "Open session"
        };
        let spec = Spec::new(title, kind)
            .filter("prvscope session", &["json"])
            .dir(self.start_folder());
        self.dialogs.session = Some((FileDialog::open(ctx, spec), save));
    }

    /// File > Open configuration…: a Paraver `.cfg`, from the folder of the last one.
    pub(super) fn ask_cfg(&mut self, ctx: &egui::Context) {
        let spec = Spec::new("Open a Paraver configuration", Kind::Open)
            .filter("Paraver configuration", &["cfg"])
            .filter("All files", &["*"])
            .dir(
                self.settings
                    .cfg_folder
                    .clone()
                    .or_else(|| self.start_folder()),
            );
        self.dialogs.cfg = Some(FileDialog::open(ctx, spec));
    }

    /// File > Configurations > Choose configuration folder….
    pub(super) fn ask_cfg_library(&mut self, ctx: &egui::Context) {
        let spec = Spec::new("Choose a configuration folder", Kind::Folder).dir(
            self.settings
                .cfg_library
                .clone()
                .or_else(|| self.settings.cfg_folder.clone())
                .or_else(|| self.start_folder()),
        );
        self.dialogs.cfg_library = Some(FileDialog::open(ctx, spec));
    }

    /// Computes the cfg at `path` over the open trace (or says why not).
    pub fn open_cfg(&mut self, ctx: &egui::Context, path: PathBuf) {
        let Some(l) = &mut self.loaded else {
            self.status = format!(
                "{}: open a trace first, then its configuration",
                path.display()
            );
            return;
        };
        self.settings.cfg_folder = path.parent().map(PathBuf::from);
        self.status = format!("computing {}…", path.display());
        l.cfg_run = Some(crate::histogram::CfgRun::start(
            ctx,
            &l.trace,
            std::sync::Arc::clone(&l.windows),
            path,
        ));
    }

    /// Takes a finished cfg: one window per analyzer; the status says what was not shown.
    pub(crate) fn poll_cfg(&mut self, ctx: &egui::Context) {
        if let Some(d) = &mut self.dialogs.cfg
            && let Some(picked) = d.poll(ctx)
        {
            self.dialogs.cfg = None;
            if let Some(path) = picked.into_iter().next() {
                self.open_cfg(ctx, path);
            }
        }
        if let Some(d) = &mut self.dialogs.cfg_library
            && let Some(picked) = d.poll(ctx)
        {
            self.dialogs.cfg_library = None;
            if let Some(dir) = picked.into_iter().next() {
                self.status = format!("configurations from {}", dir.display());
                self.settings.cfg_library = Some(dir);
            }
        }
        let Some(l) = &mut self.loaded else {
            return;
        };
        let Some(run) = &mut l.cfg_run else {
            return;
        };
        let Some(result) = run.job.poll() else {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
            return;
        };
        let path = run.path.clone();
        l.cfg_run = None;
        let mut show = None;
        match result {
            Err(e) => {
                self.status = format!("could not compute {}: {e}", path.display());
                l.cfg_report = Some(crate::reports::CfgReport::new(
                    path.file_name().map_or_else(
                        || path.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    ),
                    Some(e),
                    Vec::new(),
                    Vec::new(),
                ));
            }
            Ok(r) => {
                let mut failed = Vec::new();
                let mut shown = 0;
                for (index, a) in r.analyses.into_iter().enumerate() {
                    match a {
                        Ok(a) => {
                            self.exports.next_histogram += 1;
                            l.histograms.push(crate::histogram::HistogramWindow::new(
                                self.exports.next_histogram,
                                &r.name,
                                a,
                                &l.trace,
                                std::sync::Arc::clone(&r.cfg),
                                index,
                                std::sync::Arc::clone(&l.windows),
                            ));
                            shown += 1;
                        }
                        Err(e) => failed.push(e),
                    }
                }
                let mut views = 0;
                let mut last_view = None;
                for (v, window) in r.views.into_iter().zip(r.view_windows) {
                    match v {
                        Ok(mut v) => {
                            l.cfg_sources.insert(
                                v.0.id,
                                crate::properties::Source {
                                    cfg: std::sync::Arc::clone(&r.cfg),
                                    window,
                                },
                            );
                            views += 1;
                            // Views named alike (the same window in two cfgs, or one cfg
                            // opened twice) are told apart by their cfg, then a number.
                            let taken = |n: &str| l.cfg_views.iter().any(|x| x.0.name == n);
                            if taken(&v.0.name) {
                                let base = format!("{} ({})", v.0.name, r.name);
                                let mut name = base.clone();
                                let mut k = 2;
                                while taken(&name) {
                                    name = format!("{base} {k}");
                                    k += 1;
                                }
                                if let Some(s) = std::sync::Arc::get_mut(&mut v.0) {
                                    s.name = name;
                                }
                            }
                            last_view = Some(v.clone());
                            l.cfg_views.push(v);
                        }
                        Err(e) => failed.push(e),
                    }
                }
                // A cfg without analyzers is a timeline: show its last window, as Paraver does.
                if shown == 0 {
                    show = last_view;
                }
                self.status = if r.windows.is_empty() && shown == 0 && failed.is_empty() {
                    format!("{}: no window and no analyzer", r.name)
                } else {
                    let mut s = format!("{}: {shown} histogram window(s), {views} view(s)", r.name);
                    for e in &failed {
                        let _ = write!(s, "; not shown: {e}");
                    }
                    s
                };
                l.cfg_report = (!failed.is_empty() || !r.warnings.is_empty()).then(|| {
                    crate::reports::CfgReport::new(r.name.clone(), None, failed, r.warnings)
                });
            }
        }
        if let Some(v) = show {
            self.set_view(prvscope_store::signal::SignalSpec::Custom(v));
        }
    }

    /// The histogram windows (closed ones are dropped).
    pub(super) fn histograms_ui(&mut self, ctx: &egui::Context) {
        use crate::windows::ToolWindow;
        // They go with their trace.
        let several = !self.others.is_empty();
        let Some(l) = &mut self.loaded else {
            return;
        };
        let seen = crate::windows::Seen {
            trace: &l.trace,
            visible: l.timeline.window(),
            several,
        };
        let mut windows: Vec<&mut dyn ToolWindow> = Vec::new();
        for h in &mut l.histograms {
            windows.push(h);
        }
        if let Some(p) = &mut l.properties {
            // The other cfg views, to derive a window with.
            p.others = l
                .cfg_views
                .iter()
                .filter(|v| Some(v.0.id) != p.view())
                .filter_map(|v| {
                    l.cfg_sources
                        .get(&v.0.id)
                        .map(|s| crate::properties::Other {
                            name: v.0.name.clone(),
                            source: s.clone(),
                        })
                })
                .collect();
            windows.push(p);
        }
        if let Some(p) = &mut l.pop {
            windows.push(p);
        }
        if let Some(c) = &mut l.cluster {
            windows.push(c);
        }
        if let Some(c) = &mut l.compare {
            windows.push(c);
        }
        windows.push(&mut l.report);
        if let Some(r) = &mut l.cfg_report {
            windows.push(r);
        }
        crate::windows::show_all(ctx, &seen, &mut windows);
        if l.cfg_report.as_ref().is_some_and(|r| !r.is_open()) {
            l.cfg_report = None;
        }
        // The breakdown windows of the scope panel, with its analysis of this frame.
        l.scopes.breakdowns_ui(ctx, &seen);
        l.histograms.retain(ToolWindow::is_open);
        if l.pop.as_ref().is_some_and(|p| !p.is_open()) {
            l.pop = None;
        }
        if l.cluster.as_ref().is_some_and(|c| !c.is_open()) {
            l.cluster = None;
        }
        if l.compare.as_ref().is_some_and(|c| !c.is_open()) {
            l.compare = None;
        }
        if l.properties.as_ref().is_some_and(|p| !p.is_open()) {
            l.properties = None;
        }
        // The scope table beside the comparison's B (while the Compare window is open).
        let against = l
            .compare
            .as_ref()
            .and_then(|c| c.comparison_arc().map(|a| (a, c.b_name())));
        l.scopes
            .set_against(against.as_ref().map(|(a, n)| (*a, n.as_str())));
    }

    pub(super) fn ask_save(&mut self, ctx: &egui::Context, kind: Export) {
        let cut_name = self.loaded.as_ref().map_or_else(
            || "window.prv".to_owned(),
            |l| {
                let stem = prvscope_format::files::side_file(&l.trace.path, "cut.prv");
                stem.file_name()
                    .map_or_else(|| "window.prv".into(), |n| n.to_string_lossy().into_owned())
            },
        );
        let (name, ext) = match kind {
            Export::Png => ("timeline.png", "png"),
            Export::Csv => ("time_per_value.csv", "csv"),
            Export::Cfg => ("view.cfg", "cfg"),
            Export::Trace => (cut_name.as_str(), "prv"),
        };
        let title = if kind == Export::Trace {
            "Save window as trace"
        } else {
            "Export"
        };
        let mut spec = Spec::new(title, Kind::Save(name.to_string()));
        spec = if kind == Export::Trace {
            spec.filter(
                "Paraver trace (.prv, .prv.xz, .prv.gz)",
                &["prv", "xz", "gz"],
            )
        } else {
            spec.filter(ext, &[ext])
        };
        let spec = spec.dir(self.start_folder());
        self.dialogs.save = Some((kind, FileDialog::open(ctx, spec)));
    }

    pub(super) fn poll_dialogs(&mut self, ctx: &egui::Context) {
        if let Some((d, part)) = &mut self.dialogs.open
            && let Some(picked) = d.poll(ctx)
        {
            let part = *part;
            self.dialogs.open = None;
            match picked.into_iter().next() {
                Some(path) if part => self.ask_part(path),
                Some(path) => self.open(ctx, LoadSource::File(path)),
                None => {}
            }
        }
        if let Some((d, save)) = &mut self.dialogs.session
            && let Some(picked) = d.poll(ctx)
        {
            let save = *save;
            self.dialogs.session = None;
            match picked.into_iter().next() {
                Some(path) if save => self.save_session_as(&path),
                Some(path) => self.open_session(&path),
                None => "no session file was chosen".clone_into(&mut self.status),
            }
        }
        if let Some((kind, d)) = &mut self.dialogs.save
            && let Some(picked) = d.poll(ctx)
        {
            let kind = *kind;
            self.dialogs.save = None;
            match picked.into_iter().next() {
                Some(path) => match kind {
                    Export::Png => self.export_png(path),
                    Export::Csv => {
                        let result = self.export_csv(&path);
                        self.say_saved(&path, result.map_err(|e| e.to_string()));
                    }
                    Export::Trace => self.save_window_as_trace(ctx, path),
                    Export::Cfg => {
                        let result = self.save_view_cfg(&path);
                        let note = result.as_ref().map_or_else(|_| String::new(), Clone::clone);
                        self.say_saved(&path, result.map(|_| ()));
                        self.status.push_str(&note);
                    }
                },
                None => self.status = "not exported: no file was chosen".to_string(),
            }
        }
        if self.dialogs.open.is_some()
            || self.dialogs.save.is_some()
            || self.dialogs.session.is_some()
        {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    pub(super) fn handle_drops(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(path) = dropped.into_iter().next() {
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("cfg"))
            {
                self.open_cfg(ctx, path);
            } else {
                self.open(ctx, LoadSource::File(path));
            }
        }
    }
}

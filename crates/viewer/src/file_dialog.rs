//! File dialogs: the system's (rfd: the xdg desktop portal, else zenity), on a thread of its
//! own so that the UI keeps drawing, and an in-app file browser where the system's cannot
//! open, which says why.
//!
//! The system dialog is taken as unavailable when there is neither a D-Bus session (the
//! portal's way in) nor `zenity` on the `PATH`, when its thread cannot start, or when it
//! closes within a fraction of a second without a file (what rfd does when no portal and
//! no zenity answered; a person takes longer to cancel). `PRVSCOPE_FILE_DIALOG=builtin`
//! (or [`use_builtin`]) always uses the in-app browser.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use egui::{Key, RichText};

use crate::jobs::Job;
use crate::theme;

/// A system dialog that closes faster than this without a file did not open.
const TOO_FAST: Duration = Duration::from_millis(400);

static FORCE_BUILTIN: AtomicBool = AtomicBool::new(false);

/// Always use the in-app browser (tests; the same as `PRVSCOPE_FILE_DIALOG=builtin`).
pub fn use_builtin(yes: bool) {
    FORCE_BUILTIN.store(yes, Ordering::Relaxed);
}

/// What the dialog picks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// One existing file.
    Open,
    /// Several existing files.
    OpenMany,
    /// A file to write, with a suggested name.
    Save(String),
    /// A folder.
    Folder,
}

/// A dialog's title, what it picks, its file filters (name, extensions) and first folder.
#[derive(Debug, Clone)]
pub struct Spec {
    pub title: String,
    pub kind: Kind,
    pub filters: Vec<(String, Vec<String>)>,
    pub dir: Option<PathBuf>,
}

impl Spec {
    /// A dialog of `kind` titled `title`.
    pub fn new(title: &str, kind: Kind) -> Spec {
        Spec {
            title: title.to_string(),
            kind,
            filters: Vec::new(),
            dir: None,
        }
    }

    /// Adds a filter (files with these extensions).
    #[must_use]
    pub fn filter(mut self, name: &str, extensions: &[&str]) -> Spec {
        self.filters.push((
            name.to_string(),
            extensions.iter().map(|e| (*e).to_string()).collect(),
        ));
        self
    }

    /// Starts in `dir`.
    #[must_use]
    pub fn dir(mut self, dir: Option<PathBuf>) -> Spec {
        self.dir = dir;
        self
    }

    fn run_native(&self) -> Vec<PathBuf> {
        let mut d = rfd::FileDialog::new().set_title(&self.title);
        for (name, exts) in &self.filters {
            d = d.add_filter(name, exts);
        }
        if let Some(dir) = &self.dir {
            d = d.set_directory(dir);
        }
        match &self.kind {
            Kind::Open => d.pick_file().into_iter().collect(),
            Kind::OpenMany => d.pick_files().unwrap_or_default(),
            Kind::Save(name) => d.set_file_name(name).save_file().into_iter().collect(),
            Kind::Folder => d.pick_folder().into_iter().collect(),
        }
    }
}

/// A dialog in progress.
pub struct FileDialog {
    spec: Spec,
    state: State,
}

enum State {
    Native {
        job: Job<Vec<PathBuf>>,
        started: Instant,
    },
    Browser(Box<Browser>),
}

/// Why the system dialog cannot be used, if it cannot.
fn native_unavailable() -> Option<String> {
    if FORCE_BUILTIN.load(Ordering::Relaxed)
        || std::env::var("PRVSCOPE_FILE_DIALOG").is_ok_and(|v| v == "builtin")
    {
        return Some("the in-app file browser was asked for (PRVSCOPE_FILE_DIALOG=builtin)".into());
    }
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
    let zenity = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|p| p.join("zenity").is_file()));
    (!bus && !zenity).then(|| {
        "the system file dialog cannot open here: no D-Bus session for the xdg desktop \
         portal, and no zenity"
            .into()
    })
}

impl FileDialog {
    /// Opens the system dialog, or the in-app browser when it cannot open.
    pub fn open(ctx: &egui::Context, spec: Spec) -> FileDialog {
        if let Some(why) = native_unavailable() {
            return FileDialog::browser(spec, why);
        }
        let native = spec.clone();
        match Job::try_spawn_outside_pool(ctx, "file-dialog", move |_| native.run_native()) {
            Ok(job) => FileDialog {
                spec,
                state: State::Native {
                    job,
                    started: Instant::now(),
                },
            },
            Err(e) => FileDialog::browser(
                spec,
                format!("the file dialog's thread could not start: {e}"),
            ),
        }
    }

    fn browser(spec: Spec, why: String) -> FileDialog {
        let browser = Browser::new(&spec, why);
        FileDialog {
            spec,
            state: State::Browser(Box::new(browser)),
        }
    }

    /// Why the in-app browser is shown instead of the system dialog, if it is.
    pub fn reason(&self) -> Option<&str> {
        match &self.state {
            State::Browser(b) => Some(&b.reason),
            State::Native { .. } => None,
        }
    }

    /// Shows the in-app browser if it is the one open; once the dialog is done, the files
    /// picked (none: cancelled).
    pub fn poll(&mut self, ctx: &egui::Context) -> Option<Vec<PathBuf>> {
        match &mut self.state {
            State::Native { job, started } => match job.poll() {
                Some(files) if files.is_empty() && started.elapsed() < TOO_FAST => {
                    let why = "the system file dialog closed at once without a file: no xdg \
                               desktop portal or zenity answered"
                        .to_string();
                    *self = FileDialog::browser(self.spec.clone(), why);
                    ctx.request_repaint();
                    None
                }
                Some(files) => Some(files),
                None => {
                    ctx.request_repaint_after(Duration::from_millis(100));
                    None
                }
            },
            State::Browser(b) => b.show(ctx, &self.spec),
        }
    }
}

/// The in-app file browser.
struct Browser {
    reason: String,
    dir: PathBuf,
    /// The path field: a folder to go to, or a file to pick.
    path: String,
    /// The file name of a save.
    name: String,
    entries: Vec<(String, bool)>,
    selected: Vec<String>,
    error: Option<String>,
    all_files: bool,
}

impl Browser {
    fn new(spec: &Spec, reason: String) -> Browser {
        let dir = spec
            .dir
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let mut b = Browser {
            reason,
            path: dir.display().to_string(),
            dir,
            name: match &spec.kind {
                Kind::Save(n) => n.clone(),
                _ => String::new(),
            },
            entries: Vec::new(),
            selected: Vec::new(),
            error: None,
            all_files: spec.filters.is_empty(),
        };
        b.read(spec);
        b
    }

    /// Lists the folder: folders first, then the files the filters let through.
    fn read(&mut self, spec: &Spec) {
        self.entries.clear();
        self.selected.clear();
        match std::fs::read_dir(&self.dir) {
            Ok(rd) => {
                let mut dirs = Vec::new();
                let mut files = Vec::new();
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with('.') {
                        continue;
                    }
                    if e.path().is_dir() {
                        dirs.push(name);
                    } else if self.all_files || matches_filters(spec, &name) {
                        files.push(name);
                    }
                }
                dirs.sort();
                files.sort();
                self.entries = dirs
                    .into_iter()
                    .map(|d| (d, true))
                    .chain(files.into_iter().map(|f| (f, false)))
                    .collect();
                self.error = None;
            }
            Err(e) => self.error = Some(format!("cannot read {}: {e}", self.dir.display())),
        }
    }

    fn go(&mut self, spec: &Spec, dir: PathBuf) {
        self.dir = dir;
        self.path = self.dir.display().to_string();
        self.read(spec);
    }

    fn show(&mut self, ctx: &egui::Context, spec: &Spec) -> Option<Vec<PathBuf>> {
        let mut done: Option<Vec<PathBuf>> = None;
        let mut open = true;
        egui::Window::new(&spec.title)
            .open(&mut open)
            .collapsible(false)
            .default_size([520.0, 420.0])
            .show(ctx, |ui| {
                ui.label(RichText::new(&self.reason).color(theme::WARNING));
                ui.horizontal(|ui| {
                    let label = ui.label("Path");
                    let edit = ui
                        .add(egui::TextEdit::singleline(&mut self.path).desired_width(360.0))
                        .labelled_by(label.id);
                    if edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                        let p = PathBuf::from(self.path.trim());
                        if p.is_dir() {
                            self.go(spec, p);
                        } else if (p.is_file() && matches!(spec.kind, Kind::Open | Kind::OpenMany))
                            || (matches!(spec.kind, Kind::Save(_))
                                && p.parent().is_some_and(Path::is_dir))
                        {
                            done = Some(vec![p]);
                        } else if !p.exists() {
                            self.error = Some(format!("{} does not exist", p.display()));
                        } else {
                            self.error = Some(format!("{} is not a folder", p.display()));
                        }
                    }
                    if ui.button("Up").clicked()
                        && let Some(parent) = self.dir.parent().map(Path::to_path_buf)
                    {
                        self.go(spec, parent);
                    }
                });
                if !spec.filters.is_empty()
                    && ui.checkbox(&mut self.all_files, "All files").changed()
                {
                    self.read(spec);
                }
                let mut enter = None;
                egui::ScrollArea::vertical()
                    .max_height(260.0)
                    .auto_shrink([false, true])
                    .show(ui, |ui| {
                        for (name, is_dir) in &self.entries {
                            let text = if *is_dir {
                                format!("{name}/")
                            } else {
                                name.clone()
                            };
                            let on = self.selected.contains(name);
                            let r = ui.selectable_label(on, text);
                            if (r.clicked() || r.double_clicked()) && *is_dir {
                                enter = Some(name.clone());
                            } else if r.clicked() {
                                if spec.kind == Kind::OpenMany {
                                    if on {
                                        self.selected.retain(|s| s != name);
                                    } else {
                                        self.selected.push(name.clone());
                                    }
                                } else {
                                    self.selected = vec![name.clone()];
                                    if let Kind::Save(_) = spec.kind {
                                        self.name.clone_from(name);
                                    }
                                }
                            }
                        }
                    });
                if let Some(d) = enter {
                    let next = self.dir.join(d);
                    self.go(spec, next);
                }
                if let Kind::Save(_) = spec.kind {
                    ui.horizontal(|ui| {
                        let label = ui.label("File name");
                        ui.add(egui::TextEdit::singleline(&mut self.name).desired_width(300.0))
                            .labelled_by(label.id);
                    });
                }
                if let Some(e) = &self.error {
                    ui.label(RichText::new(e).color(theme::ERROR));
                }
                ui.horizontal(|ui| {
                    let (action, enabled) = match &spec.kind {
                        Kind::Open | Kind::OpenMany => ("Open", !self.selected.is_empty()),
                        Kind::Save(_) => ("Save", !self.name.trim().is_empty()),
                        Kind::Folder => ("Choose this folder", true),
                    };
                    if ui.add_enabled(enabled, egui::Button::new(action)).clicked() {
                        done = Some(match &spec.kind {
                            Kind::Open | Kind::OpenMany => {
                                self.selected.iter().map(|s| self.dir.join(s)).collect()
                            }
                            Kind::Save(_) => vec![self.dir.join(self.name.trim())],
                            Kind::Folder => vec![self.dir.clone()],
                        });
                    }
                    if ui.button("Cancel").clicked() {
                        done = Some(Vec::new());
                    }
                });
            });
        if !open {
            done = Some(Vec::new());
        }
        done
    }
}

fn matches_filters(spec: &Spec, name: &str) -> bool {
    let lower = name.to_lowercase();
    spec.filters.iter().any(|(_, exts)| {
        // "All files" (`*`) is the browser's checkbox.
        exts.iter()
            .any(|e| e != "*" && lower.ends_with(&format!(".{}", e.to_lowercase())))
    })
}

/// A file name's stem made of `name`: its ASCII letters and digits, `_` for the rest.
pub fn safe_stem(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// What a window's save dialog (`slot`: what it saves, and the dialog) answered, once: the
/// file chosen, or why nothing is saved. `None` while it is open (or there is none).
pub fn poll_save<K: Copy>(
    slot: &mut Option<(K, FileDialog)>,
    ctx: &egui::Context,
) -> Option<Result<(K, PathBuf), String>> {
    let (kind, d) = slot.as_mut()?;
    let kind = *kind;
    let picked = d.poll(ctx)?;
    *slot = None;
    ctx.request_repaint();
    Some(
        picked
            .into_iter()
            .next()
            .map(|path| (kind, path))
            .ok_or_else(|| "not saved: no file was chosen".to_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A system dialog that answered `files`, a while after it opened.
    fn answered(files: Vec<PathBuf>) -> FileDialog {
        FileDialog {
            spec: Spec::new("Save", Kind::Save("x.csv".into())),
            state: State::Native {
                job: Job::ready(files),
                started: Instant::now()
                    .checked_sub(Duration::from_secs(5))
                    .expect("an instant 5 s back"),
            },
        }
    }

    #[test]
    fn a_save_dialogs_answer_is_taken_once_with_what_it_was_for() {
        let ctx = egui::Context::default();
        let mut none: Option<(u8, FileDialog)> = None;
        assert!(poll_save(&mut none, &ctx).is_none());
        let mut slot = Some((7u8, answered(vec![PathBuf::from("/tmp/x.csv")])));
        assert_eq!(
            poll_save(&mut slot, &ctx),
            Some(Ok((7, PathBuf::from("/tmp/x.csv"))))
        );
        assert!(slot.is_none() && poll_save(&mut slot, &ctx).is_none());
        let mut cancelled = Some((1u8, answered(Vec::new())));
        assert_eq!(
            poll_save(&mut cancelled, &ctx),
            Some(Err("not saved: no file was chosen".to_owned()))
        );
        assert_eq!(
            safe_stem("MPI call profile (a.cfg)"),
            "MPI_call_profile__a_cfg_"
        );
    }
}

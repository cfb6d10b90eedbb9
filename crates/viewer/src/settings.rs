//! What the viewer remembers between runs: the recent files and the source folders the user
//! added. eframe keeps them (its `persistence`, beside the window's size and place, in
//! `~/.local/share/prvscope/`): they are read when the window opens and written when eframe
//! saves (on exit, and every 30 s while the window repaints). Lists kept as text files by
//! earlier versions, in `~/.config/prvscope/`, are read once when eframe has none yet.

use std::path::{Path, PathBuf};

use prvscope_draw::frame::TimeWindow;

/// How many paths a list remembers.
pub const MAX_RECENT: usize = 10;

/// eframe's key of the recent files.
const RECENT_KEY: &str = "prvscope.recent_files";
/// eframe's key of the source folders.
const FOLDERS_KEY: &str = "prvscope.source_folders";
/// eframe's keys of the panels shown.
const SIDE_KEY: &str = "prvscope.show_side_panel";
const SCOPES_KEY: &str = "prvscope.show_scope_panel";
const DOCK_KEY: &str = "prvscope.dock_windows";
const CFG_FOLDER_KEY: &str = "prvscope.cfg_folder";
const CFG_LIBRARY_KEY: &str = "prvscope.cfg_library";
/// eframe's key of the last session.
const SESSION_KEY: &str = "prvscope.session";
/// eframe's key of the last session's timeline windows (kept apart: a session saved before
/// there were several windows reads as one).
const WINDOWS_KEY: &str = "prvscope.session.windows";

/// A list of paths, newest first, without duplicates, at most [`MAX_RECENT`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecentFiles {
    paths: Vec<PathBuf>,
}

impl RecentFiles {
    /// The list of `paths` (the first [`MAX_RECENT`] distinct ones).
    pub fn from_paths(paths: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut list = RecentFiles::default();
        for p in paths {
            if list.paths.len() == MAX_RECENT {
                break;
            }
            if !list.paths.contains(&p) {
                list.paths.push(p);
            }
        }
        list
    }

    /// The paths, newest first.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Puts `path` (made absolute where it exists) first.
    pub fn add(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| p != &path);
        self.paths.insert(0, path);
        self.paths.truncate(MAX_RECENT);
    }
}

/// What was open when the viewer closed, restored when it next starts without a trace: the
/// trace, its view, window, rows and markers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Session {
    pub path: PathBuf,
    /// `state`, `mpi` or event types (`50000001,50000002`), as `--view` reads them.
    pub view: String,
    /// The window's range (kept as its first tick and length).
    pub window: TimeWindow,
    /// `thread`, `task`, `appl`, `cpu` or `node`.
    pub level: String,
    /// Collapsed (application, task) pairs and applications, 0-based.
    pub collapsed_tasks: Vec<(usize, usize)>,
    pub collapsed_apps: Vec<usize>,
    /// Markers: time and label.
    pub markers: Vec<(u64, String)>,
    /// Every timeline window, in the order stacked (the first is the one described above),
    /// and which one was active; empty for one window.
    pub windows: Vec<WindowLayout>,
    pub active: usize,
}

/// A timeline window of a session: its view (as `--view` writes it), its range (first tick,
/// length) and its synchronize group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowLayout {
    pub view: String,
    pub window: TimeWindow,
    pub group: Option<u8>,
}

/// How eframe keeps the windows of a [`Session`].
type WindowsTuple = (Vec<(String, (u64, u64), Option<u8>)>, usize);

/// How eframe keeps a [`Session`].
type SessionTuple = (
    PathBuf,
    String,
    (u64, u64),
    String,
    Vec<(usize, usize)>,
    Vec<usize>,
    Vec<(u64, String)>,
);

impl Session {
    fn to_tuple(&self) -> SessionTuple {
        (
            self.path.clone(),
            self.view.clone(),
            (self.window.start, self.window.span),
            self.level.clone(),
            self.collapsed_tasks.clone(),
            self.collapsed_apps.clone(),
            self.markers.clone(),
        )
    }

    fn from_tuple(t: SessionTuple) -> Session {
        Session {
            path: t.0,
            view: t.1,
            window: TimeWindow {
                start: t.2.0,
                span: t.2.1,
            },
            level: t.3,
            collapsed_tasks: t.4,
            collapsed_apps: t.5,
            markers: t.6,
            windows: Vec::new(),
            active: 0,
        }
    }

    fn windows_tuple(&self) -> WindowsTuple {
        (
            self.windows
                .iter()
                .map(|w| (w.view.clone(), (w.window.start, w.window.span), w.group))
                .collect(),
            self.active,
        )
    }

    fn with_windows(mut self, t: WindowsTuple) -> Session {
        self.windows =
            t.0.into_iter()
                .map(|(view, (start, span), group)| WindowLayout {
                    view,
                    window: TimeWindow { start, span },
                    group,
                })
                .collect();
        self.active = t.1.min(self.windows.len().saturating_sub(1));
        self
    }

    /// The session as a named session file holds it (File > Save session as).
    pub fn to_file_text(&self) -> String {
        let value = serde_json::json!({
            "prvscope_session": 1,
            "session": self.to_tuple(),
            "windows": self.windows_tuple(),
        });
        serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
    }

    /// A named session file's session, or what is wrong with it.
    pub fn from_file_text(text: &str) -> Result<Session, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not a session file: {e}"))?;
        if value
            .get("prvscope_session")
            .and_then(serde_json::Value::as_u64)
            != Some(1)
        {
            return Err("not a prvscope session file (no \"prvscope_session\": 1)".to_owned());
        }
        let session: SessionTuple = serde_json::from_value(value["session"].clone())
            .map_err(|e| format!("its session: {e}"))?;
        let windows: WindowsTuple = match value.get("windows") {
            Some(w) => {
                serde_json::from_value(w.clone()).map_err(|e| format!("its windows: {e}"))?
            }
            None => (Vec::new(), 0),
        };
        Ok(Session::from_tuple(session).with_windows(windows))
    }
}

/// The viewer's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)] // independent switches
pub struct Settings {
    /// Traces opened, newest first (File > Open recent).
    pub recent: RecentFiles,
    /// Folders added to the source search (the scope panel).
    pub source_folders: RecentFiles,
    /// Show the side panel (views, legend, details): View menu, Ctrl+B.
    pub show_side: bool,
    /// Show the scope panel on traces with scope types: View menu, Ctrl+J.
    pub show_scopes: bool,
    /// Dock the floating windows (histograms, POP, clustering, Find, reports ...) in a
    /// panel beside the timeline, never over its rows (else they float anywhere): View menu.
    pub dock_windows: bool,
    /// The folder of the last Paraver configuration opened (where File > Open
    /// configuration… starts).
    pub cfg_folder: Option<PathBuf>,
    /// The user's folder of Paraver cfgs, browsed by topic in File > Configurations.
    pub cfg_library: Option<PathBuf>,
    /// The last session, if a trace file was open.
    pub session: Option<Session>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            recent: RecentFiles::default(),
            source_folders: RecentFiles::default(),
            show_side: true,
            show_scopes: true,
            dock_windows: true,
            cfg_folder: None,
            cfg_library: None,
            session: None,
        }
    }
}

impl Settings {
    /// The settings eframe kept (`None`: a window without persistence, as in tests, starts
    /// with none). A list eframe does not have yet is read from the text file an earlier
    /// version kept in [`legacy_dir`].
    pub fn load(storage: Option<&dyn eframe::Storage>) -> Self {
        match storage {
            Some(storage) => Settings::load_from(storage, legacy_dir().as_deref()),
            None => Settings::default(),
        }
    }

    /// The settings in `storage`, or in the text files of `legacy` for lists it lacks.
    fn load_from(storage: &dyn eframe::Storage, legacy: Option<&Path>) -> Self {
        let list = |key: &str, file: &str| match eframe::get_value::<Vec<PathBuf>>(storage, key) {
            Some(paths) => RecentFiles::from_paths(paths),
            None => read_list(legacy.map(|d| d.join(file)).as_deref()),
        };
        Settings {
            recent: list(RECENT_KEY, "recent.txt"),
            source_folders: list(FOLDERS_KEY, "source-folders.txt"),
            show_side: eframe::get_value(storage, SIDE_KEY).unwrap_or(true),
            show_scopes: eframe::get_value(storage, SCOPES_KEY).unwrap_or(true),
            dock_windows: eframe::get_value(storage, DOCK_KEY).unwrap_or(true),
            cfg_folder: eframe::get_value(storage, CFG_FOLDER_KEY).unwrap_or(None),
            cfg_library: eframe::get_value(storage, CFG_LIBRARY_KEY).unwrap_or(None),
            session: eframe::get_value::<Option<SessionTuple>>(storage, SESSION_KEY)
                .flatten()
                .map(|t| {
                    let windows =
                        eframe::get_value::<WindowsTuple>(storage, WINDOWS_KEY).unwrap_or_default();
                    Session::from_tuple(t).with_windows(windows)
                }),
        }
    }

    /// Hands the settings to eframe, which writes them.
    pub fn save(&self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, RECENT_KEY, &self.recent.paths);
        eframe::set_value(storage, FOLDERS_KEY, &self.source_folders.paths);
        eframe::set_value(storage, SIDE_KEY, &self.show_side);
        eframe::set_value(storage, DOCK_KEY, &self.dock_windows);
        eframe::set_value(storage, SCOPES_KEY, &self.show_scopes);
        eframe::set_value(storage, CFG_FOLDER_KEY, &self.cfg_folder);
        eframe::set_value(storage, CFG_LIBRARY_KEY, &self.cfg_library);
        eframe::set_value(
            storage,
            SESSION_KEY,
            &self.session.as_ref().map(Session::to_tuple),
        );
        eframe::set_value(
            storage,
            WINDOWS_KEY,
            &self
                .session
                .as_ref()
                .map(Session::windows_tuple)
                .unwrap_or_default(),
        );
    }
}

/// Where earlier versions kept their lists: `$PRVSCOPE_CONFIG_DIR`, else
/// `$XDG_CONFIG_HOME/prvscope`, else `~/.config/prvscope`.
pub fn legacy_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PRVSCOPE_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("prvscope"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config").join("prvscope"))
}

/// A list kept as a text file, one path per line (a missing or unreadable file is an empty
/// list).
fn read_list(file: Option<&Path>) -> RecentFiles {
    let text = file.and_then(|f| std::fs::read_to_string(f).ok());
    RecentFiles::from_paths(
        text.iter()
            .flat_map(|t| t.lines())
            .filter(|l| !l.trim().is_empty())
            .map(PathBuf::from),
    )
}

/// An eframe storage kept in memory (nothing reaches the disk): what a window saves, for
/// tests and for checking settings without touching the user's.
#[derive(Debug, Default)]
pub struct MemoryStorage(std::collections::HashMap<String, String>);

impl eframe::Storage for MemoryStorage {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_files_come_newest_first_without_duplicates_and_at_most_ten() {
        let mut r = RecentFiles::default();
        for name in ["a.prv", "b.prv", "a.prv"] {
            r.add(Path::new(&format!("/nonexistent/{name}")));
        }
        assert_eq!(
            r.paths(),
            [
                PathBuf::from("/nonexistent/a.prv"),
                PathBuf::from("/nonexistent/b.prv")
            ]
        );
        for i in 0..20 {
            r.add(Path::new(&format!("/nonexistent/{i}.prv")));
        }
        assert_eq!(r.paths().len(), MAX_RECENT);
        assert_eq!(
            r.paths().first(),
            Some(&PathBuf::from("/nonexistent/19.prv"))
        );
    }

    #[test]
    fn settings_survive_a_restart_through_eframes_storage() {
        let mut settings = Settings::default();
        settings.recent.add(Path::new("/nonexistent/a b.prv"));
        settings.recent.add(Path::new("/nonexistent/c.prv.xz"));
        settings.source_folders.add(Path::new("/nonexistent/src"));
        settings.show_side = false;
        settings.dock_windows = false;
        settings.session = Some(Session {
            path: PathBuf::from("/nonexistent/a b.prv"),
            view: "50000001,50000002".into(),
            window: TimeWindow {
                start: 1000,
                span: 5000,
            },
            level: "task".into(),
            collapsed_tasks: vec![(0, 1)],
            collapsed_apps: vec![],
            markers: vec![(1500, "start of the loop".into())],
            windows: vec![
                WindowLayout {
                    view: "50000001,50000002".into(),
                    window: TimeWindow {
                        start: 1000,
                        span: 5000,
                    },
                    group: Some(1),
                },
                WindowLayout {
                    view: "state".into(),
                    window: TimeWindow {
                        start: 0,
                        span: 9000,
                    },
                    group: None,
                },
            ],
            active: 1,
        });
        let mut storage = MemoryStorage::default();
        settings.save(&mut storage);
        assert_eq!(Settings::load(Some(&storage)), settings);
        // A named session file reads back the same session, and a file that is not one
        // says so.
        let s = settings.session.clone().unwrap();
        assert_eq!(Session::from_file_text(&s.to_file_text()), Ok(s));
        assert!(
            Session::from_file_text("{}")
                .unwrap_err()
                .contains("not a prvscope session")
        );
        assert!(
            Session::from_file_text("x")
                .unwrap_err()
                .starts_with("not a session file")
        );
        // Without storage (tests, a window without persistence) nothing is read.
        assert_eq!(Settings::load(None), Settings::default());
    }

    #[test]
    fn lists_of_earlier_versions_are_read_when_eframe_has_none() {
        let dir = std::env::temp_dir().join(format!("prvscope-legacy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("recent.txt"), "/t/a.prv\n\n/t/b.prv\n/t/a.prv\n").unwrap();
        std::fs::write(dir.join("source-folders.txt"), "/t/old-src\n").unwrap();
        let mut storage = MemoryStorage::default();
        let read = Settings::load_from(&storage, Some(&dir));
        assert_eq!(
            read.recent.paths(),
            [PathBuf::from("/t/a.prv"), PathBuf::from("/t/b.prv")]
        );
        assert_eq!(read.source_folders.paths(), [PathBuf::from("/t/old-src")]);
        assert!(
            read.show_side && read.show_scopes && read.dock_windows,
            "panels shown and windows docked by default"
        );
        // Once eframe has a list, the old file is no longer read (an emptied list stays empty).
        Settings::default().save(&mut storage);
        assert_eq!(
            Settings::load_from(&storage, Some(&dir)),
            Settings::default()
        );
        assert_eq!(
            read_list(Some(&dir.join("missing.txt"))),
            RecentFiles::default()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

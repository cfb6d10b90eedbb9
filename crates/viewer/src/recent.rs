//! The recent-files list, kept in a small text file (one path per line, newest first) in the
//! user's configuration folder so it survives restarts.

use std::path::{Path, PathBuf};

/// How many paths are remembered.
pub const MAX_RECENT: usize = 10;

/// The recent files and where they are saved (`None`: kept in memory only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecentFiles {
    pub paths: Vec<PathBuf>,
    file: Option<PathBuf>,
}

/// `$PRVSCOPE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/prvscope`, else `~/.config/prvscope`.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PRVSCOPE_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("prvscope"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config").join("prvscope"))
}

impl RecentFiles {
    /// Reads the list kept in `dir` (a missing or unreadable file is an empty list).
    pub fn load(dir: Option<&Path>) -> Self {
        Self::load_named(dir, "recent.txt")
    }

    /// Reads a list of paths kept in the file `name` of `dir` (the source folders the user
    /// added are kept the same way).
    pub fn load_named(dir: Option<&Path>, name: &str) -> Self {
        let file = dir.map(|d| d.join(name));
        let paths = file
            .as_ref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .map(|text| {
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(PathBuf::from)
                    .take(MAX_RECENT)
                    .collect()
            })
            .unwrap_or_default();
        RecentFiles { paths, file }
    }

    /// Puts `path` first and saves the list. Saving problems are returned, the list in memory
    /// is updated anyway.
    pub fn add(&mut self, path: &Path) -> std::io::Result<()> {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.paths.retain(|p| p != &path);
        self.paths.insert(0, path);
        self.paths.truncate(MAX_RECENT);
        self.save()
    }

    fn save(&self) -> std::io::Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut text = String::new();
        for p in &self.paths {
            text.push_str(&p.to_string_lossy());
            text.push('\n');
        }
        std::fs::write(file, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_files_survive_a_restart_newest_first_without_duplicates() {
        let dir = std::env::temp_dir().join(format!("prvscope-recent-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut r = RecentFiles::load(Some(&dir));
        assert!(r.paths.is_empty());
        for name in ["a.prv", "b.prv", "a.prv"] {
            r.add(Path::new(&format!("/nonexistent/{name}"))).unwrap();
        }
        let again = RecentFiles::load(Some(&dir));
        assert_eq!(
            again.paths,
            [
                PathBuf::from("/nonexistent/a.prv"),
                PathBuf::from("/nonexistent/b.prv")
            ]
        );
        for i in 0..20 {
            r.add(Path::new(&format!("/nonexistent/{i}.prv"))).unwrap();
        }
        assert_eq!(RecentFiles::load(Some(&dir)).paths.len(), MAX_RECENT);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

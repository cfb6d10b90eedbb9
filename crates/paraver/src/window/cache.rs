//! Computed windows kept to be asked again: a window's intervals per object, computed once
//! over the whole trace, serve every later histogram over any part of it (the viewer's
//! "Follow the timeline" reads the visible range from them instead of the store). Least
//! recently used windows go first when the kept bytes pass the budget; a window bigger than
//! the whole budget is not kept (it is read from the store each time).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};

use super::{Computed, Interval};
use crate::cfg::{Cfg, WindowCfg};

/// Windows kept, bounded in bytes.
#[derive(Debug)]
pub struct WindowCache {
    budget: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    bytes: usize,
    clock: u64,
    hits: u64,
    misses: u64,
}

#[derive(Debug)]
struct Entry {
    window: Arc<Computed>,
    bytes: usize,
    used: u64,
}

/// What a cache holds and how it was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheUse {
    pub windows: usize,
    pub bytes: usize,
    pub hits: u64,
    pub misses: u64,
}

impl Computed {
    /// The bytes its intervals take, with room for their index by value (built when a part
    /// of the window is first asked: at most 16 bytes an interval).
    pub fn bytes(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r.capacity() * (size_of::<Interval>() + 16) + size_of::<Vec<Interval>>())
            .sum()
    }
}

impl WindowCache {
    /// A cache keeping at most `budget` bytes of intervals.
    pub fn new(budget: usize) -> WindowCache {
        WindowCache {
            budget,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// A cache for this machine: an eighth of its memory, between 256 MB and 4 GB.
    pub fn for_machine() -> WindowCache {
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                m.lines()
                    .find_map(|l| l.strip_prefix("MemTotal:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
            })
            .map_or(8 << 30, |kb| kb * 1024);
        WindowCache::new((total / 8).clamp(256 << 20, 4 << 30))
    }

    pub fn budget(&self) -> usize {
        self.budget
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The window kept under `key`, if any.
    pub fn get(&self, key: &str) -> Option<Arc<Computed>> {
        let mut inner = self.lock();
        inner.clock += 1;
        let clock = inner.clock;
        if let Some(e) = inner.entries.get_mut(key) {
            e.used = clock;
            let w = Arc::clone(&e.window);
            inner.hits += 1;
            Some(w)
        } else {
            inner.misses += 1;
            None
        }
    }

    /// Keeps `window` under `key`, dropping the least recently used windows to stay within
    /// the budget (a window over the whole budget is not kept).
    pub fn insert(&self, key: String, window: Arc<Computed>) {
        let bytes = window.bytes();
        if bytes > self.budget {
            return;
        }
        let mut inner = self.lock();
        inner.clock += 1;
        let used = inner.clock;
        if let Some(old) = inner.entries.insert(
            key,
            Entry {
                window,
                bytes,
                used,
            },
        ) {
            inner.bytes -= old.bytes;
        }
        inner.bytes += bytes;
        while inner.bytes > self.budget {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(e) = inner.entries.remove(&oldest) {
                inner.bytes -= e.bytes;
            }
        }
    }

    /// What it holds now, and its hits and misses so far.
    pub fn usage(&self) -> CacheUse {
        let inner = self.lock();
        CacheUse {
            windows: inner.entries.len(),
            bytes: inner.bytes,
            hits: inner.hits,
            misses: inner.misses,
        }
    }
}

/// What identifies window `w` of `cfg`: its settings and, for a derived window, those of
/// its parents (by content, so that two cfgs with one window share it).
pub fn window_key(cfg: &Cfg, w: &WindowCfg) -> String {
    let mut key = String::new();
    add_key(cfg, w, &mut key, 0);
    key
}

fn add_key(cfg: &Cfg, w: &WindowCfg, key: &mut String, depth: usize) {
    // The settings that make the values: the cfg line a window sits on and its position on
    // screen do not.
    let mut w2 = w.clone();
    w2.line = 0;
    w2.id = 0;
    w2.lines.retain(|(k, _)| {
        !matches!(
            k.as_str(),
            "window_position_x" | "window_position_y" | "window_width" | "window_height"
        )
    });
    let _ = write!(key, "{w2:?}");
    if let Some(d) = &w.derived
        && depth < 64
    {
        for &id in &d.parents {
            key.push('[');
            if let Some(p) = cfg.window(id) {
                add_key(cfg, p, key, depth + 1);
            }
            key.push(']');
        }
    }
}

//! The parts of the app's state, each what one concern of the window keeps: how traces are
//! opened, the dialogs, the frame times, the exports under way, the shell's layout.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use prvscope_import::cache::{CacheCheck, CacheOptions, CacheState};
use prvscope_store::NullOverride;
use prvscope_store::signal::SignalSpec;
use prvscope_store::summary::DrawMode;

use super::export::Export;
use crate::file_dialog::FileDialog;
use crate::jobs::Job;
use crate::loader::LoadRequest;
use crate::part_dialog::PartDialog;

/// How the traces of this window are opened, and what is done once one is.
pub(crate) struct Opening {
    pub null: NullOverride,
    /// Load without estimating the memory first (`--skip-memory-check`).
    pub skip_memory_check: bool,
    /// The memory to count on instead of what the machine has (tests).
    pub available_override: Option<u64>,
    /// The store cache every load of this window goes through.
    pub cache: Option<CacheOptions>,
    /// When store cache files are checked (see `App::poll_integrity`).
    pub cache_check: CacheCheck,
    /// The store of the trace just parsed, being written to the cache after it was shown:
    /// (the trace's path, the job).
    pub cache_write: Option<(PathBuf, Job<CacheState>)>,
    /// The view to show once the trace is loaded (the State view otherwise).
    pub start_view: Option<SignalSpec>,
    /// The draw mode of the first view (`--draw-mode`), instead of the view's default.
    pub start_mode: Option<DrawMode>,
    /// The last session, to restore once its trace is loaded.
    pub restore: Option<crate::settings::Session>,
    /// The named session file `restore` was read from (File > Open session); `None` for
    /// the last session.
    pub restore_file: Option<std::path::PathBuf>,
    /// The status line's note about the last load (cancelled, too large), which the next
    /// trace loaded makes untrue: cleared then, if the line still says it.
    pub load_note: Option<String>,
    /// Why the trace is read again (its store cache file was corrupt), said until it is.
    pub reread: Option<String>,
    /// More traces to open once the first is shown (`prvscope A B ...`): each is kept open
    /// and shown as a timeline window under the first's, in its synchronize group.
    pub also: std::collections::VecDeque<PathBuf>,
    /// The load running is one of `also`.
    pub loading_also: bool,
}

impl Opening {
    pub fn new(null: NullOverride, request: &LoadRequest) -> Opening {
        Opening {
            null,
            skip_memory_check: request.skip_memory_check,
            available_override: request.available_override,
            cache: request.cache.clone(),
            cache_check: request.cache_check,
            cache_write: None,
            start_view: None,
            start_mode: None,
            restore: None,
            restore_file: None,
            load_note: None,
            reread: None,
            also: std::collections::VecDeque::new(),
            loading_also: false,
        }
    }
}

/// The dialogs and windows the app may show over the timeline.
#[derive(Default)]
pub(crate) struct Dialogs {
    /// The file dialog, and whether the file picked opens the "part" dialog.
    pub open: Option<(FileDialog, bool)>,
    /// File > Open session or Save session as (`true`), when asked.
    pub session: Option<(FileDialog, bool)>,
    /// "Open part of a trace", when shown.
    pub part: Option<PartDialog>,
    pub save: Option<(Export, FileDialog)>,
    /// File > Open configuration…: the dialog, then the cfg being computed.
    pub cfg: Option<FileDialog>,
    pub cfg_library: Option<FileDialog>,
    pub show_help: bool,
}

/// The frame times the status bar and View > Measure frame rate show.
pub(crate) struct FrameStats {
    /// Show load and frame times (off for snapshot images, which must not vary).
    pub show_timings: bool,
    /// The whole-frame times eframe reported for the last frames, in seconds (newest last).
    pub times: VecDeque<f32>,
    /// View > Measure frame rate: repaint continuously and time frame to frame.
    pub measure_rate: bool,
    /// When the last frames began (newest last), while the frame rate is measured.
    pub starts: VecDeque<Instant>,
}

impl Default for FrameStats {
    fn default() -> Self {
        FrameStats {
            show_timings: true,
            times: VecDeque::new(),
            measure_rate: false,
            starts: VecDeque::new(),
        }
    }
}

/// Exports under way.
#[derive(Default)]
pub(crate) struct Exports {
    /// The last histogram window's id (ids are unique in the process).
    pub next_histogram: u64,
    /// A PNG export waiting for its screenshot: its path, and when it was asked.
    pub png_pending: Option<(PathBuf, Option<Instant>)>,
    pub screenshot: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
    /// File > Save window as trace, while it writes.
    pub trace_save: Option<super::save_trace::TraceSave>,
}

/// The window around the timeline: its title, where the timeline was drawn, the view list's
/// filter, the scope panel asked for.
pub(crate) struct Shell {
    pub type_filter: String,
    /// The scope panel was asked for on a trace without scope types (to name some).
    pub scopes_forced: bool,
    pub timeline_rect: egui::Rect,
    pub title: String,
}

impl Default for Shell {
    fn default() -> Self {
        Shell {
            type_filter: String::new(),
            scopes_forced: false,
            timeline_rect: egui::Rect::NOTHING,
            title: String::new(),
        }
    }
}

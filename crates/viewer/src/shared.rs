//! What the panels and windows share, below all of them (so that none imports another for
//! a type): the intervals a selection outlines on the timeline, a trace's name as titles
//! show it.

use std::sync::Arc;

use egui::Color32;
use prvscope_store::Trace;

/// Per-thread intervals `[begin, end)` in ticks (a selected scope's, a cluster's bursts, a
/// histogram cell's): what the timeline outlines, and what a breakdown is taken within.
pub type Intervals = Arc<Vec<Vec<(u64, u64)>>>;

/// The file name of a trace (its path when it has none).
pub fn trace_file_name(trace: &Trace) -> String {
    trace.path.file_name().map_or_else(
        || trace.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The delta's colour: warm where B takes longer, cool where it takes less, its strength the
/// change's share of A (full at 100% and beyond).
pub fn delta_color(delta: i128, a: u64) -> Color32 {
    let share = if a == 0 {
        1.0
    } else {
        (delta.unsigned_abs() as f64 / a as f64).min(1.0) as f32
    };
    let t = 0.35 + 0.65 * share;
    let fade = |c: f32| (c * (1.0 - t)) as u8 + 40;
    match delta.cmp(&0) {
        std::cmp::Ordering::Greater => Color32::from_rgb(255, fade(200.0), fade(160.0)),
        std::cmp::Ordering::Less => Color32::from_rgb(fade(160.0), fade(200.0), 255),
        std::cmp::Ordering::Equal => Color32::GRAY,
    }
}

/// The cfg window a view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CfgWindow {
    pub cfg: Arc<prvscope_paraver::cfg::Cfg>,
    /// Its `window_id`.
    pub window: u32,
}

impl CfgWindow {
    /// The window.
    pub fn window(&self) -> Option<&prvscope_paraver::cfg::WindowCfg> {
        self.cfg.window(self.window)
    }
}

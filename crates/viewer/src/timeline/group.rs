//! A timeline among other timeline windows: what its synchronize group reads of it (the
//! pointer's time, the window drawn) and sets on it (the group's window, cursor and
//! markers; whether it takes the keys), and its time range and rows copied to another.

use super::{Marker, Timeline};
use crate::frame::TimeWindow;
use crate::rows::{Grouping, Level};

/// A window's rows as they are copied to another (Paraver's copy and paste of objects):
/// their level, which tasks and applications are collapsed, the rows shown (zoomed along
/// the rows), the first row at the top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowsCopy {
    pub level: Level,
    pub grouping: Grouping,
    pub shown: std::ops::Range<usize>,
    pub fit_rows: bool,
    pub first_row: usize,
}

impl Timeline {
    /// The tick under the pointer over its rows in the last frame.
    pub fn hover_time(&self) -> Option<u64> {
        self.pointer.hover_time
    }

    /// Draws a cursor at `t` (the pointer's time in another window of its group).
    pub fn set_group_cursor(&mut self, t: Option<u64>) {
        self.pointer.group_cursor = t;
    }

    /// The cursor drawn for the group.
    pub fn group_cursor(&self) -> Option<u64> {
        self.pointer.group_cursor
    }

    /// The window of the frame drawn last (`None` before the first).
    pub fn drawn_window(&self) -> Option<TimeWindow> {
        self.drawn.cache.as_ref().map(|c| c.0.window)
    }

    /// Counts the ruler's times from `origin` (a region's start; `None`: the trace's start).
    pub fn set_origin(&mut self, origin: Option<u64>) {
        self.nav.origin = origin;
    }

    /// Where the ruler counts from.
    pub fn origin(&self) -> Option<u64> {
        self.nav.origin
    }

    /// Leaves the keys to another timeline window.
    pub fn set_ignores_keys(&mut self, ignore: bool) {
        self.pointer.ignores_keys = ignore;
    }

    /// Takes its group's markers (added or removed in another window of the group).
    pub fn take_markers(&mut self, markers: &[Marker]) {
        if self.markers() != markers {
            self.set_markers(markers.to_vec());
        }
    }

    /// Its rows, to paste on another window.
    pub fn rows_copy(&self) -> RowsCopy {
        RowsCopy {
            level: self.layout.level,
            grouping: self.layout.grouping.clone(),
            shown: self.layout.shown.clone(),
            fit_rows: self.layout.fit_rows,
            first_row: self.layout.first_row,
        }
    }

    /// Shows the rows `copy` holds (of a window of the same trace); why not, when its level
    /// cannot be shown.
    pub fn paste_rows(
        &mut self,
        ctx: &egui::Context,
        trace: &prvscope_store::Trace,
        copy: &RowsCopy,
    ) -> Result<(), String> {
        if copy.level != self.layout.level {
            self.set_level(ctx, trace, copy.level)?;
        }
        self.set_grouping(trace, copy.grouping.clone());
        self.set_fit_rows(copy.fit_rows);
        self.show_rows(copy.shown.clone());
        self.layout.first_row = copy.first_row.min(self.layout.rows.len().saturating_sub(1));
        Ok(())
    }
}

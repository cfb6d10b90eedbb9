//! The object axis, summarised and navigated as the time axis is: the rows of the grouping
//! or level (`Layout::all`), the part of them shown (`Layout::shown`: zoomed and scrolled),
//! and the drawn rows: that part as it is, or, with "Fit all rows" on when it has more rows
//! than the area has points, one summary row per point ([`crate::rows::fit`]: the draw mode
//! over the threads it holds, labelled with its first and last rows).

use std::ops::Range;

use super::{RowKind, Timeline, resource_rows};
use crate::rows::RowItem;
use prvscope_store::Trace;

/// Traces with more rows than this open with "Fit all rows" on: every thread on screen,
/// summarised, rather than the first few dozen of thousands.
pub const FIT_ON_OPEN_ROWS: usize = 256;

/// The fewest rows a zoom along the objects shows.
const MIN_SHOWN_ROWS: usize = 1;

impl Timeline {
    /// Every row of the grouping or level, before the part shown is taken.
    pub fn all_rows(&self) -> &[RowItem] {
        &self.layout.all
    }

    /// The rows of [`Self::all_rows`] shown (zoomed along the objects).
    pub fn shown_rows(&self) -> Range<usize> {
        self.layout.shown.clone()
    }

    /// True when drawn rows stand for several rows each (more rows than points).
    pub fn rows_summarised(&self) -> bool {
        self.layout.rows.len() < self.layout.shown.len()
    }

    /// Shows rows `range` of [`Self::all_rows`] (clamped; at least one row).
    pub fn show_rows(&mut self, range: Range<usize>) {
        let n = self.layout.all.len();
        let start = range.start.min(n.saturating_sub(1));
        let end = range.end.clamp((start + MIN_SHOWN_ROWS).min(n), n);
        if (start..end) != self.layout.shown {
            self.layout.shown = start..end;
            self.layout.first_row = 0;
            self.refit();
        }
    }

    /// Shows every row.
    pub fn show_all_rows(&mut self) {
        self.show_rows(0..self.layout.all.len());
    }

    /// Zooms along the objects by `factor` (below 1: fewer rows, each taller), keeping the
    /// row at `anchor` (0 top, 1 bottom of the shown rows) where it is.
    pub fn zoom_rows(&mut self, factor: f64, anchor: f64) {
        let shown = self.layout.shown.clone();
        let n = self.layout.all.len();
        let len = shown.len() as f64;
        let anchor = anchor.clamp(0.0, 1.0);
        let at = shown.start as f64 + anchor * len;
        let new_len = (len * factor)
            .round()
            .clamp(MIN_SHOWN_ROWS as f64, n as f64);
        let start = (at - anchor * new_len)
            .round()
            .clamp(0.0, n as f64 - new_len) as usize;
        self.show_rows(start..start + new_len as usize);
    }

    /// Moves the shown rows by `fraction` of their count (negative: up).
    pub fn scroll_rows(&mut self, fraction: f64) {
        let shown = self.layout.shown.clone();
        let n = self.layout.all.len();
        if fraction == 0.0 || n == 0 {
            return;
        }
        let step = (shown.len() as f64 * fraction).round();
        // At least one row, the way asked.
        let step = if step == 0.0 { fraction.signum() } else { step };
        let last = (n - shown.len()) as f64;
        let start = (shown.start as f64 + step).clamp(0.0, last) as usize;
        self.show_rows(start..start + shown.len());
    }

    /// Lays the rows out again (after a grouping, level or view change): every row of the
    /// grouping, the part shown kept where it still exists, then the drawn rows.
    pub(super) fn relayout(&mut self, trace: &Trace) {
        let placed = self
            .layout
            .placement
            .as_ref()
            .filter(|_| self.layout.level.is_resource())
            .map(|p| crate::rows::resource_layout(p, self.layout.level));
        let before = self.layout.all.len();
        self.layout.all = match resource_rows(&self.config.spec) {
            Some(labels) => labels
                .into_iter()
                .enumerate()
                .map(|(k, label)| RowItem {
                    label,
                    kind: RowKind::Resource(k..k + 1),
                    threads: 0..0,
                    appl: 0,
                    task: 0,
                })
                .collect(),
            None => placed.unwrap_or_else(|| self.layout.grouping.layout(trace)),
        };
        let n = self.layout.all.len();
        if before != n || self.layout.shown.end > n {
            self.layout.shown = 0..n;
        }
        self.refit();
        self.layout.first_row = self
            .layout
            .first_row
            .min(self.layout.rows.len().saturating_sub(1));
    }

    /// The drawn rows of the shown part, on `layout.fit_height` point rows when "Fit all
    /// rows" is on (CPU and node rows are not summarised: they scroll).
    pub(super) fn refit(&mut self) {
        let part = &self.layout.all[self.layout.shown.clone()];
        let rows = if self.layout.fit_rows && self.layout.fit_height > 0 {
            crate::rows::fit(part, self.layout.fit_height).unwrap_or_else(|| part.to_vec())
        } else {
            part.to_vec()
        };
        if rows != self.layout.rows {
            self.layout.rows = rows;
            self.layout.generation += 1;
            self.pointer.pinned = None;
        }
    }

    /// Fits the drawn rows to `points` point rows, when that changes them.
    pub(super) fn fit_to(&mut self, points: usize) {
        if points != self.layout.fit_height {
            self.layout.fit_height = points;
            self.refit();
        }
    }

    /// Shows all rows at once (as thin as needed, summarised below a point), or rows of a
    /// readable height.
    pub fn set_fit_rows(&mut self, fit: bool) {
        if fit != self.layout.fit_rows {
            self.layout.fit_rows = fit;
            self.refit();
        }
    }
}

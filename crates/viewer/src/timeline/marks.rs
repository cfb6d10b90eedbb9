//! Markers and measures: markers (key M at the pointer) are labelled instants drawn across
//! the rows, listed with the distance from the one before; a range selection (shift-drag or
//! right-drag) measures its duration, shown while dragging and kept after it.

use egui::{Align2, FontId, Rect, Stroke, Ui, pos2};

use super::Timeline;
use crate::frame::{TimeWindow, format_in_window};
use crate::theme;

/// A labelled instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub time: u64,
    pub label: String,
}

impl Timeline {
    /// Adds a marker at `time` (labelled M1, M2...), kept in time order; returns its index.
    pub fn add_marker(&mut self, time: u64) -> usize {
        self.marks.count += 1;
        let marker = Marker {
            time,
            label: format!("M{}", self.marks.count),
        };
        let i = self.marks.markers.partition_point(|m| m.time <= time);
        self.marks.markers.insert(i, marker);
        i
    }

    /// The markers, in time order.
    pub fn markers(&self) -> &[Marker] {
        &self.marks.markers
    }

    /// The markers, to relabel (their times stay).
    pub fn marker_labels_mut(&mut self) -> impl Iterator<Item = &mut String> {
        self.marks.markers.iter_mut().map(|m| &mut m.label)
    }

    /// Replaces the markers (a session restored).
    pub fn set_markers(&mut self, mut markers: Vec<Marker>) {
        markers.sort_by_key(|m| m.time);
        self.marks.count = markers.len();
        self.marks.markers = markers;
    }

    /// Removes marker `i`.
    pub fn remove_marker(&mut self, i: usize) {
        if i < self.marks.markers.len() {
            self.marks.markers.remove(i);
        }
    }

    /// The last range measured (a selection).
    pub fn measured(&self) -> Option<TimeWindow> {
        self.marks.measured
    }

    /// Shows `[begin, end]` with a quarter of its length either side (at least the shortest
    /// window), remembering the current window for undo.
    pub fn reveal(&mut self, begin: u64, end: u64) {
        let len = end.saturating_sub(begin).max(1);
        let pad = (len / 4).max(1);
        let w = TimeWindow::between(
            begin.saturating_sub(pad) as f64,
            (end + pad) as f64,
            self.nav.end_time,
        );
        self.zoom_to(w);
    }

    /// Centres the window on `t`, keeping its length.
    pub fn centre_on(&mut self, t: u64) {
        let half = self.window.span / 2;
        let w = TimeWindow {
            start: t.saturating_sub(half),
            span: self.window.span,
        };
        self.zoom_to(w);
    }

    /// Collapses the tasks and applications of `grouping` (a session restored).
    pub fn set_grouping(&mut self, trace: &prvscope_store::Trace, grouping: crate::rows::Grouping) {
        self.layout.grouping = grouping;
        self.relayout(trace);
    }

    /// The drawn row under the pointer in the last frame.
    pub fn hovered_row(&self) -> Option<usize> {
        self.pointer.hovered_row
    }

    /// Scrolls so that drawn row `row` is in view.
    pub fn ensure_row_visible(&mut self, row: usize) {
        let per_page = (self.drawn.area.height() / self.drawn.row_height.max(1.0))
            .floor()
            .max(1.0) as usize;
        if row < self.layout.first_row || row >= self.layout.first_row + per_page {
            self.layout.first_row = row.saturating_sub(per_page / 2);
        }
    }

    /// Draws the markers across the rows, their labels at the top, and the duration of the
    /// range being selected beside it.
    pub(super) fn paint_marks(&self, ui: &Ui, area: Rect) {
        let painter = ui.painter_at(area);
        let font = FontId::proportional(11.0);
        for m in &self.marks.markers {
            let x = self.window.x_from_time(m.time as f64, area);
            if x < area.left() || x > area.right() {
                continue;
            }
            painter.line_segment(
                [pos2(x, area.top()), pos2(x, area.bottom())],
                Stroke::new(1.0, theme::MARKER),
            );
            painter.text(
                pos2(x + 3.0, area.top() + 2.0),
                Align2::LEFT_TOP,
                &m.label,
                font.clone(),
                theme::MARKER,
            );
        }
        if let Some(start) = self.pointer.selecting
            && let Some(p) = ui.input(|i| i.pointer.interact_pos())
        {
            let end = self
                .window
                .time_from_x(p.x.clamp(area.left(), area.right()), area);
            let ticks = (end - start).abs().round() as u64;
            // On a dark plate: the rows under the pointer may be any colour (orange, white).
            let galley = painter.layout_no_wrap(
                format!(
                    "Δ {}",
                    format_in_window(ticks, self.window.span, self.nav.ns_per_tick)
                ),
                font,
                egui::Color32::WHITE,
            );
            let at = Align2::LEFT_BOTTOM
                .anchor_size(pos2(p.x + 8.0, p.y - 8.0), galley.size())
                .expand(3.0);
            painter.rect_filled(at, 3.0, theme::BACKGROUND.gamma_multiply(0.9));
            painter.rect_stroke(
                at,
                3.0,
                Stroke::new(1.0, theme::SELECTION_EDGE),
                egui::StrokeKind::Inside,
            );
            painter.galley(at.shrink(3.0).min, galley, egui::Color32::WHITE);
        }
    }
}

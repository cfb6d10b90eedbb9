//! Painting the timeline: a frame of many quads as one image, and around its rows the
//! overlays (range selection, the selected scope's intervals, the pinned point), a function
//! line's axis labels, the time ruler and the row labels.

use egui::{Align2, FontId, Rect, Sense, Stroke, Ui, pos2, vec2};

use super::{LABEL_WIDTH, Timeline};
use crate::frame;
use crate::rows::RowKind;
use crate::theme;
use prvscope_store::Trace;

impl Timeline {
    /// `built` with its meshes drawn into one texture of `ctx` when they hold more than
    /// [`frame::RASTER_QUADS`] quads (the meshes are then dropped), else as it is.
    pub(super) fn raster_if_large(
        ctx: &egui::Context,
        mut built: frame::Frame,
        area: Rect,
    ) -> (frame::Frame, Option<super::state::RowsImage>) {
        if built.quads <= frame::RASTER_QUADS {
            return (built, None);
        }
        // On the screen's pixels: the image's pixel centres are the screen's.
        let ppp = ctx.pixels_per_point();
        let snapped = Rect::from_min_max(
            pos2((area.left() * ppp).floor(), (area.top() * ppp).floor()) / ppp,
            pos2((area.right() * ppp).ceil(), (area.bottom() * ppp).ceil()) / ppp,
        );
        let meshes: Vec<&egui::Mesh> = built.meshes.iter().map(AsRef::as_ref).collect();
        let image = frame::rasterize(&meshes, snapped, ppp);
        let texture = ctx.load_texture("timeline-rows", image, egui::TextureOptions::NEAREST);
        built.meshes.clear();
        (built, Some((texture, snapped)))
    }

    /// A function line's axis: on rows tall enough to read them, the values at the top and
    /// the bottom of the row, at its left edge (as a plot's axis labels).
    pub(super) fn paint_line_axes(
        &self,
        ui: &Ui,
        trace: &Trace,
        area: Rect,
        row_height: f32,
        rows: usize,
    ) {
        if row_height < 30.0 {
            return;
        }
        // The axis of the scale the frame was drawn with.
        let (lo, hi) = self
            .frame_scale()
            .unwrap_or_else(|| self.shown.coloring.range());
        let label = |v| crate::view::value_label(trace, &self.config.spec, v, false);
        let (top, bottom) = (label(hi), label(lo));
        let font = FontId::proportional(10.0);
        let painter = ui.painter_at(area);
        for i in 0..rows {
            let y0 = area.top() + i as f32 * row_height;
            painter.text(
                pos2(area.left() + 3.0, y0 + 1.0),
                Align2::LEFT_TOP,
                &top,
                font.clone(),
                theme::AXIS,
            );
            painter.text(
                pos2(area.left() + 3.0, y0 + row_height - 3.0),
                Align2::LEFT_BOTTOM,
                &bottom,
                font.clone(),
                theme::AXIS,
            );
        }
    }

    pub(super) fn paint_overlays(
        &self,
        ui: &Ui,
        area: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) {
        let painter = ui.painter_at(area);
        if let Some(start) = self.pointer.selecting
            && let Some(p) = ui.input(|i| i.pointer.interact_pos())
        {
            let x0 = self.window.x_from_time(start, area);
            let r = Rect::from_x_y_ranges(x0.min(p.x)..=x0.max(p.x), area.y_range());
            painter.rect_filled(r, 0.0, theme::SELECTION);
            painter.rect_stroke(
                r,
                0.0,
                Stroke::new(1.0, theme::SELECTION_EDGE),
                egui::StrokeKind::Inside,
            );
        }
        if let Some(classes) = &self.pointer.classes {
            self.paint_classes(&painter, classes, area, row_height, visible);
        }
        if let Some(highlight) = &self.pointer.highlight {
            self.paint_highlight(&painter, highlight, area, row_height, visible);
        }
        // The pointer's time in another window of the group.
        if let Some(t) = self.pointer.group_cursor
            && self.pointer.hover_time.is_none()
            && t >= self.window.start
            && t < self.window.end()
        {
            let x = self.window.x_from_time(t as f64, area);
            painter.line_segment(
                [pos2(x, area.top()), pos2(x, area.bottom())],
                Stroke::new(1.0, theme::CURSOR.gamma_multiply(0.4)),
            );
        }
        if let Some(pin) = self.pointer.pinned
            && visible.contains(&pin.row)
        {
            let x = self.window.x_from_time(pin.time as f64, area);
            let y = area.top() + (pin.row - self.layout.first_row) as f32 * row_height;
            painter.line_segment(
                [pos2(x, area.top()), pos2(x, area.bottom())],
                Stroke::new(1.0, theme::PINNED),
            );
            painter.rect_stroke(
                Rect::from_min_size(pos2(area.left(), y), vec2(area.width(), row_height)),
                0.0,
                Stroke::new(1.0, theme::PINNED),
                egui::StrokeKind::Inside,
            );
        }
    }

    /// Paints the visible rows with their classes (see [`super::state::ClassFill`]): each
    /// pixel column the class with the most time in it (over the row's threads), black
    /// where there is none.
    fn paint_classes(
        &self,
        painter: &egui::Painter,
        fill: &super::state::ClassFill,
        area: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) {
        let width = area.width().ceil().max(1.0) as usize;
        let items: Vec<std::ops::Range<usize>> = visible
            .clone()
            .filter_map(|r| self.layout.rows.get(r).map(|item| item.threads.clone()))
            .collect();
        let key: super::state::ClassKey = (
            fill.id,
            self.window.start,
            self.window.span,
            width,
            items.clone(),
        );
        let mut cache = self.pointer.classes_painted.borrow_mut();
        if cache.as_ref().is_none_or(|(k, _)| *k != key) {
            let rows = items
                .iter()
                .map(|threads| {
                    let threads: Vec<&[(u64, u64, u16)]> = threads
                        .clone()
                        .filter_map(|t| fill.rows.get(t).map(Vec::as_slice))
                        .collect();
                    dominant_classes(&threads, self.window, width)
                })
                .collect();
            *cache = Some((key, rows));
        }
        let Some((_, rows)) = cache.as_ref() else {
            return;
        };
        for (i, classes) in rows.iter().enumerate() {
            let y = area.top() + i as f32 * row_height;
            let rect = |x0: usize, x1: usize| {
                Rect::from_x_y_ranges(
                    area.left() + x0 as f32..=area.left() + x1 as f32,
                    y..=y + row_height - 1.0,
                )
            };
            painter.rect_filled(rect(0, width), 0.0, theme::BACKGROUND);
            let mut k = 0;
            while k < width {
                let class = classes[k];
                let mut end = k + 1;
                while end < width && classes[end] == class {
                    end += 1;
                }
                if let Some(c) = class
                    && let Some(&color) = fill.colors.get(c as usize)
                {
                    painter.rect_filled(rect(k, end), 0.0, color);
                }
                k = end;
            }
        }
    }

    /// Outlines the highlighted intervals of the visible rows (a collapsed row shows those
    /// of all its threads); intervals narrower than a pixel are merged. Only an outline: the
    /// values' colours inside stay those of the legend.
    fn paint_highlight(
        &self,
        painter: &egui::Painter,
        intervals: &[Vec<(u64, u64)>],
        area: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) {
        let (w0, w1) = (self.window.start, self.window.end());
        for (i, r) in visible.clone().enumerate() {
            let Some(item) = self.layout.rows.get(r) else {
                continue;
            };
            let y = area.top() + i as f32 * row_height;
            let mut runs: Vec<(f32, f32)> = Vec::new();
            for thread in item.threads.clone() {
                let Some(of_thread) = intervals.get(thread) else {
                    continue;
                };
                // Each step draws an interval, then jumps to the first one that ends after the
                // pixel it ended in: a row costs O(pixels x log n), however many intervals the
                // window holds (those jumped over end inside a pixel the run already covers).
                let mut i = of_thread.partition_point(|iv| iv.1 <= w0);
                while let Some(&(b, e)) = of_thread.get(i) {
                    if b >= w1 {
                        break;
                    }
                    let x0 = self.window.x_from_time(b.max(w0) as f64, area);
                    let x1 = self
                        .window
                        .x_from_time(e.min(w1) as f64, area)
                        .max(x0 + 1.0);
                    match runs.last_mut() {
                        Some(last) if x0 <= last.1 + 1.0 => last.1 = last.1.max(x1),
                        _ => runs.push((x0, x1)),
                    }
                    let pixel_end = self.window.time_from_x(x1.ceil(), area).max(0.0) as u64;
                    let rest = of_thread.get(i + 1..).unwrap_or_default();
                    i += 1 + rest.partition_point(|iv| iv.1 <= pixel_end);
                }
            }
            runs.sort_by(|a, b| a.0.total_cmp(&b.0));
            for (x0, x1) in runs {
                let rect = Rect::from_x_y_ranges(x0..=x1, y..=y + row_height - 1.0);
                painter.rect_stroke(
                    rect,
                    0.0,
                    Stroke::new(1.0, theme::SCOPE_SELECTED),
                    egui::StrokeKind::Inside,
                );
            }
        }
    }

    /// A line across labels and rows where one application's rows end and the next one's
    /// begin.
    pub(super) fn paint_app_separators(
        &self,
        ui: &Ui,
        labels: Rect,
        area: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) {
        let painter = ui.painter_at(labels.union(area));
        for (i, r) in visible.clone().enumerate().skip(1) {
            let (Some(prev), Some(item)) = (self.layout.rows.get(r - 1), self.layout.rows.get(r))
            else {
                continue;
            };
            if prev.appl != item.appl {
                let y = area.top() + i as f32 * row_height;
                painter.line_segment(
                    [pos2(labels.left(), y), pos2(area.right(), y)],
                    Stroke::new(2.0, theme::APP_SEPARATOR),
                );
            }
        }
    }

    pub(super) fn paint_ruler(&self, ui: &Ui, ruler: Rect, area: Rect) {
        let painter = ui.painter_at(ruler.expand2(vec2(LABEL_WIDTH, 0.0)));
        painter.line_segment(
            [ruler.left_top(), ruler.right_top()],
            Stroke::new(1.0, theme::AXIS),
        );
        painter.line_segment(
            [area.left_top(), area.left_bottom()],
            Stroke::new(1.0, theme::AXIS),
        );
        let font = FontId::proportional(11.0);
        // Times from the region's start when the window starts after it (two runs aligned):
        // `+t`, the region's start marked on the rows.
        let origin = self.nav.origin.filter(|&o| o <= self.window.start);
        if let Some(o) = self.nav.origin
            && o >= self.window.start
            && o < self.window.end()
        {
            let x = self.window.x_from_time(o as f64, area);
            ui.painter_at(area).line_segment(
                [pos2(x, area.top()), pos2(x, area.bottom())],
                Stroke::new(1.0, theme::MARKER.gamma_multiply(0.6)),
            );
        }
        let shown = match origin {
            Some(o) => frame::TimeWindow {
                start: self.window.start - o,
                span: self.window.span,
            },
            None => self.window,
        };
        let plus = if origin.is_some() { "+" } else { "" };
        // The window's end at the right edge, as Paraver writes it; tick labels stay inside
        // the timeline and clear of it.
        let npt = self.nav.ns_per_tick.max(1) as f64;
        let end_ns = shown.end() as f64 * npt;
        let end_text = format!(
            "{plus}{}",
            frame::format_time(end_ns, (self.window.span as f64 * npt / 1000.0).max(1.0))
        );
        let end_galley = painter.layout_no_wrap(end_text, font.clone(), theme::FOREGROUND);
        let end_left = area.right() - end_galley.size().x - 2.0;
        painter.galley(
            pos2(end_left, ruler.top() + 5.0),
            end_galley,
            theme::FOREGROUND,
        );
        for (t, label) in frame::ruler_ticks(shown, self.nav.ns_per_tick, area.width(), 110.0) {
            let x = shown.x_from_time(t, area);
            let label = format!("{plus}{label}");
            let galley = painter.layout_no_wrap(label, font.clone(), theme::FOREGROUND);
            let w = galley.size().x;
            let left = (x - w / 2.0).max(area.left() + 1.0);
            if left + w > end_left - 6.0 {
                continue;
            }
            painter.line_segment(
                [pos2(x, ruler.top()), pos2(x, ruler.top() + 4.0)],
                Stroke::new(1.0, theme::AXIS),
            );
            painter.galley(pos2(left, ruler.top() + 5.0), galley, theme::FOREGROUND);
        }
    }

    pub(super) fn paint_labels(
        &mut self,
        ui: &mut Ui,
        trace: &Trace,
        labels: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) {
        if row_height < super::MIN_LABEL_ROW_HEIGHT {
            // Too thin to label each row: name each application (and task, when there is
            // room) at its first visible row, and tell how many rows are shown.
            let font = FontId::proportional(11.0);
            let mut last_y = f32::NEG_INFINITY;
            for (i, r) in visible.clone().enumerate() {
                let Some(item) = self.layout.rows.get(r) else {
                    continue;
                };
                let starts = i == 0
                    || self
                        .layout
                        .rows
                        .get(r - 1)
                        .is_none_or(|p| p.appl != item.appl);
                let y = labels.top() + i as f32 * row_height;
                if starts && y >= last_y + 13.0 {
                    let mut name = prvscope_format::model::object_name(
                        trace.row.as_ref(),
                        prvscope_format::model::Level::Appl,
                        item.appl,
                        &[item.appl + 1],
                    );
                    // The first row shown, by its own name too.
                    if i == 0 && name != item.label {
                        name = format!("{name}: {}", item.label);
                    }
                    ui.painter().text(
                        pos2(labels.left() + 4.0, y),
                        Align2::LEFT_TOP,
                        name,
                        font.clone(),
                        theme::FOREGROUND,
                    );
                    last_y = y;
                }
            }
            // The visible range's last row by name (its first is named at the top), and
            // how many rows are shown.
            let name = |r: usize| self.layout.rows.get(r).map_or("", |i| i.label.as_str());
            let last = visible.end.saturating_sub(1);
            ui.painter().text(
                pos2(labels.left() + 4.0, labels.bottom() - 2.0),
                Align2::LEFT_BOTTOM,
                name(last),
                font.clone(),
                theme::GROUP_TEXT,
            );
            let threads: usize = visible
                .clone()
                .filter_map(|r| self.layout.rows.get(r))
                .map(|item| item.threads.len())
                .sum();
            let count = if self.rows_summarised() {
                format!("{threads} threads on {} rows", visible.len())
            } else {
                format!("{} rows", visible.len())
            };
            let count = ui.painter().layout_no_wrap(count, font, theme::GROUP_TEXT);
            let at = pos2(labels.left() + 4.0, labels.bottom() - 16.0 - count.size().y);
            ui.painter().galley(at, count, theme::GROUP_TEXT);
            return;
        }
        let font = FontId::monospace((row_height - 3.0).clamp(8.0, 12.0));
        // Labels sharing a long beginning show the part that differs (monospace: a
        // character is about 0.6 of the font's size).
        let room = ((labels.width() - 8.0) / (font.size * 0.6)).max(1.0) as usize;
        let names: Vec<&str> = visible
            .clone()
            .filter_map(|r| self.layout.rows.get(r).map(|item| item.label.as_str()))
            .collect();
        let shown = crate::rows::distinct_labels(&names, room.saturating_sub(2));
        let mut toggle = None;
        for (i, r) in visible.clone().enumerate() {
            let Some(item) = self.layout.rows.get(r) else {
                continue;
            };
            let name = shown.get(i).map_or(item.label.as_str(), String::as_str);
            let top = labels.top() + i as f32 * row_height;
            let rect =
                Rect::from_min_size(pos2(labels.left(), top), vec2(labels.width(), row_height));
            if r % 2 == 1 {
                ui.painter().rect_filled(rect, 0.0, theme::LABEL_STRIPE);
            }
            let collapsed = matches!(item.kind, RowKind::Task { .. } | RowKind::Appl { .. });
            let text = if collapsed {
                format!("+ {name}")
            } else {
                name.to_owned()
            };
            let color = if collapsed {
                theme::GROUP_TEXT
            } else {
                theme::FOREGROUND
            };
            let label = egui::Label::new(egui::RichText::new(text).font(font.clone()).color(color))
                .truncate()
                .sense(Sense::click());
            let resp = ui
                .put(rect.shrink2(vec2(4.0, 0.0)), label)
                .on_hover_text(format!(
                    "{}\n{}",
                    item.label,
                    if collapsed {
                        "Click to expand"
                    } else {
                        "Click to collapse its task"
                    }
                ));
            if resp.clicked() {
                toggle = Some(r);
            }
        }
        if let Some(r) = toggle {
            self.toggle_row(trace, r);
        }
    }
}

/// Per pixel column of `width` columns over the window (start, span) in ticks (column `k`
/// covers ticks `[start + k*span/width, start + (k+1)*span/width)`, rounded down), the class
/// with the most ticks in it among the intervals (begin, end, class) of `threads` (each in
/// time order, not overlapping); ties go to the lower class; `None` where no interval is.
pub fn dominant_classes(
    threads: &[&[(u64, u64, u16)]],
    window: frame::TimeWindow,
    width: usize,
) -> Vec<Option<u16>> {
    let frame::TimeWindow { start, span } = window;
    let w = width.max(1) as u128;
    let edge = |k: usize| start + (k as u128 * u128::from(span) / w) as u64;
    let column = |t: u64| ((u128::from(t - start) * w) / u128::from(span.max(1))) as usize;
    let w1 = start.saturating_add(span);
    let mut acc: Vec<Vec<(u16, u64)>> = vec![Vec::new(); width];
    for of_thread in threads {
        let from = of_thread.partition_point(|iv| iv.1 <= start);
        for &(b, e, class) in of_thread.get(from..).unwrap_or_default() {
            if b >= w1 {
                break;
            }
            let (b, e) = (b.max(start), e.min(w1));
            let first = column(b).min(width.saturating_sub(1));
            for (k, slot) in acc.iter_mut().enumerate().skip(first) {
                let (p0, p1) = (edge(k), edge(k + 1));
                if p0 >= e {
                    break;
                }
                let time = e.min(p1).saturating_sub(b.max(p0));
                if time == 0 {
                    continue;
                }
                match slot.iter_mut().find(|(c, _)| *c == class) {
                    Some(s) => s.1 += time,
                    None => slot.push((class, time)),
                }
            }
        }
    }
    acc.iter()
        .map(|a| {
            a.iter()
                .max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)))
                .map(|&(c, _)| c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::dominant_classes;
    use crate::frame;

    /// Against a naive computation: each pixel's time per class summed over every interval
    /// in exact integer arithmetic (pixel k covers ticks [start + k*span/width, ...)).
    #[test]
    fn dominant_classes_match_a_naive_count() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % m
        };
        for _ in 0..200 {
            let threads: Vec<Vec<(u64, u64, u16)>> = (0..3)
                .map(|_| {
                    let mut t = next(50);
                    let mut v = Vec::new();
                    for _ in 0..next(40) {
                        let b = t + next(30);
                        let e = b + 1 + next(60);
                        v.push((b, e, next(4) as u16));
                        t = e;
                    }
                    v
                })
                .collect();
            let refs: Vec<&[(u64, u64, u16)]> = threads.iter().map(Vec::as_slice).collect();
            let (start, width) = (next(100), 1 + next(40) as usize);
            let span = 1 + next(800);
            let got = dominant_classes(&refs, frame::TimeWindow { start, span }, width);
            let edge = |k: u64| start + k * span / width as u64;
            for (k, g) in got.iter().enumerate() {
                let (p0, p1) = (edge(k as u64), edge(k as u64 + 1));
                let mut time = [0u64; 4];
                for th in &threads {
                    for &(b, e, c) in th {
                        time[c as usize] += e.min(p1).saturating_sub(b.max(p0));
                    }
                }
                let best = time.iter().copied().max().unwrap_or(0);
                let want = (best > 0).then(|| time.iter().position(|&t| t == best).unwrap() as u16);
                assert_eq!(*g, want, "pixel {k} of {width}, span {span}: {time:?}");
            }
        }
    }
}

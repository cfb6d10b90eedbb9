//! The timeline widget: row labels, the rows of the current view, the time ruler, and the
//! interaction (wheel zoom at the cursor, drag to pan, shift-drag or right-drag to select a
//! range, undo/redo, fit, keyboard panning, hover tooltip, click to pin).
//!
//! Frames are cached: the summaries are only rebuilt when the window, the size, the rows or
//! the view change, so hovering and idle repaints cost nothing.

use std::sync::Arc;
use std::time::Instant;

use egui::{
    Align2, Color32, CursorIcon, FontId, Key, Modifiers, MouseWheelUnit, PointerButton, Rect,
    Sense, Shape, Stroke, Ui, pos2, vec2,
};

use super::frame::{self, Frame, FrameRequest, TimeWindow};
use super::jobs::Job;
use super::rows::{Grouping, Level, RowItem, RowKind, drawn_row_of_thread};
use super::theme;
use super::view::{Coloring, ViewConfig, value_label};
use prvscope_store::Trace;
use prvscope_store::signal::{SignalSpec, ViewSignals};

/// Width of the row label column.
pub const LABEL_WIDTH: f32 = 150.0;
/// Height of the time ruler.
pub const RULER_HEIGHT: f32 = 22.0;
/// Rows never get thinner than this; more rows scroll.
pub const MIN_ROW_HEIGHT: f32 = 12.0;
/// Nor thicker than this.
pub const MAX_ROW_HEIGHT: f32 = 80.0;
/// Views of stores with fewer records are built on the UI thread (instantly); bigger ones on
/// a worker, while the previous view stays on screen.
const SYNC_BUILD_RECORDS: u64 = 2_000_000;
/// At most this many communication lines are drawn.
const MAX_COMM_LINES: usize = 20_000;

/// A point the user clicked: row (index into the drawn rows) and tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pinned {
    pub row: usize,
    pub time: u64,
}

/// What the pointer is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Details {
    pub row_label: String,
    pub time: u64,
    /// Raw value and its label ("null" when null).
    pub value: Option<u64>,
    pub label: String,
    /// The interval holding the value (thread rows only).
    pub begin: Option<u64>,
    pub end: Option<u64>,
}

#[derive(Clone, PartialEq)]
struct FrameKey {
    window: TimeWindow,
    rect: Rect,
    row_height: f32,
    first_row: usize,
    rows_generation: u64,
    view_generation: u64,
}

/// The timeline of one trace.
pub struct Timeline {
    pub config: ViewConfig,
    signals: Arc<ViewSignals>,
    coloring: Coloring,
    pending: Option<(ViewConfig, Job<Arc<ViewSignals>>)>,
    view_generation: u64,
    pub window: TimeWindow,
    undo: Vec<TimeWindow>,
    redo: Vec<TimeWindow>,
    pub grouping: Grouping,
    rows: Vec<RowItem>,
    rows_generation: u64,
    /// First drawn row at the top of the area.
    pub first_row: usize,
    cache: Option<(FrameKey, Frame, Vec<Shape>)>,
    /// Tick where a range selection started.
    selecting: Option<f64>,
    pub pinned: Option<Pinned>,
    pub hovered: Option<Details>,
    /// Milliseconds the last frame build took.
    pub last_build_ms: f64,
    end_time: u64,
    /// What Home shows: the whole trace, or the time range loaded.
    home: TimeWindow,
    ns_per_tick: u64,
    /// Where the rows were drawn in the last frame, and their height.
    pub area: Rect,
    pub row_height: f32,
    /// Intervals to outline per thread (the scope selected in the scope panel).
    pub highlight: Option<super::scope_panel::Intervals>,
}

impl Timeline {
    /// The "State" view of a trace over its whole duration.
    pub fn new(trace: &Trace) -> Self {
        let config = ViewConfig::new(trace, SignalSpec::States);
        let signals = Arc::new(ViewSignals::build(
            Arc::clone(&trace.store),
            config.spec.clone(),
        ));
        let coloring = Coloring::new(trace, &config, signals.values());
        let grouping = Grouping::default();
        let rows = grouping.layout(trace);
        let end_time = trace.header.end_time.max(trace.store.end_time());
        let home = match trace.loaded_range() {
            Some((from, to)) if to > from => TimeWindow {
                start: from,
                span: (to - from).max(super::frame::MIN_SPAN),
            },
            _ => TimeWindow::all(end_time),
        };
        Timeline {
            config,
            signals,
            coloring,
            pending: None,
            view_generation: 0,
            window: home,
            home,
            undo: Vec::new(),
            redo: Vec::new(),
            grouping,
            rows,
            rows_generation: 0,
            first_row: 0,
            cache: None,
            selecting: None,
            pinned: None,
            hovered: None,
            last_build_ms: 0.0,
            end_time,
            ns_per_tick: trace.header.time_unit.ns_per_tick(),
            area: Rect::NOTHING,
            row_height: MIN_ROW_HEIGHT,
            highlight: None,
        }
    }

    /// The drawn rows.
    pub fn rows(&self) -> &[RowItem] {
        &self.rows
    }

    /// The view's signals (what is drawn).
    pub fn signals(&self) -> &Arc<ViewSignals> {
        &self.signals
    }

    /// The current colouring.
    pub fn coloring(&self) -> &Coloring {
        &self.coloring
    }

    /// True while a new view is being built.
    pub fn is_building(&self) -> bool {
        self.pending.is_some()
    }

    /// Values drawn in the last frame, with their pixel counts.
    pub fn legend(&self) -> &[(u64, u32)] {
        self.cache.as_ref().map_or(&[], |c| c.1.legend.as_slice())
    }

    /// The last tick of the trace.
    pub fn end_time(&self) -> u64 {
        self.end_time
    }

    /// Switches to another view; its rows are built now for small traces, else on a worker
    /// (`ctx` is repainted when they are ready).
    pub fn set_view(&mut self, ctx: &egui::Context, trace: &Trace, config: ViewConfig) {
        if config.spec == self.config.spec {
            self.apply_config(trace, config);
            return;
        }
        if trace.store.counts().total() < SYNC_BUILD_RECORDS {
            let signals = Arc::new(ViewSignals::build(
                Arc::clone(&trace.store),
                config.spec.clone(),
            ));
            self.signals = signals;
            self.apply_config(trace, config);
        } else {
            let store = Arc::clone(&trace.store);
            let spec = config.spec.clone();
            let job = Job::spawn_outside_pool(ctx, "view-builder", move |_| {
                Arc::new(ViewSignals::build(store, spec))
            });
            self.pending = Some((config, job));
        }
    }

    /// Changes colour mode, null switch, comms or flags of the current view.
    pub fn apply_config(&mut self, trace: &Trace, config: ViewConfig) {
        self.coloring = Coloring::new(trace, &config, self.signals.values());
        self.config = config;
        self.view_generation += 1;
    }

    fn poll_pending(&mut self, trace: &Trace) {
        let ready = self.pending.as_mut().and_then(|(_, job)| job.poll());
        if let Some(signals) = ready
            && let Some((config, _)) = self.pending.take()
        {
            self.signals = signals;
            self.apply_config(trace, config);
        }
    }

    /// Collapses or expands every task/application.
    pub fn set_level(&mut self, trace: &Trace, level: Level) {
        self.grouping.set_level(trace, level);
        self.relayout(trace);
    }

    /// Toggles the group of drawn row `i`.
    pub fn toggle_row(&mut self, trace: &Trace, i: usize) {
        if let Some(item) = self.rows.get(i).cloned() {
            self.grouping.toggle(&item);
            self.relayout(trace);
        }
    }

    fn relayout(&mut self, trace: &Trace) {
        self.rows = self.grouping.layout(trace);
        self.rows_generation += 1;
        self.first_row = self.first_row.min(self.rows.len().saturating_sub(1));
        self.pinned = None;
    }

    /// Moves to `window`, remembering the current one for undo.
    pub fn zoom_to(&mut self, window: TimeWindow) {
        if window != self.window {
            self.undo.push(self.window);
            self.redo.clear();
            self.window = window;
        }
    }

    /// Goes back to the previous window.
    pub fn undo_zoom(&mut self) -> bool {
        step_history(&mut self.window, &mut self.undo, &mut self.redo)
    }

    /// Goes forward again after an undo.
    pub fn redo_zoom(&mut self) -> bool {
        step_history(&mut self.window, &mut self.redo, &mut self.undo)
    }

    /// Shows the whole trace (the range loaded, when only part of it was).
    pub fn fit(&mut self) {
        self.zoom_to(self.home);
    }

    /// Details of drawn row `row` at tick `t`.
    pub fn details(&self, trace: &Trace, row: usize, t: u64) -> Option<Details> {
        let item = self.rows.get(row)?;
        let spec = &self.config.spec;
        if let RowKind::Thread(thread) = item.kind {
            let interval = self.signals.interval_at(thread, t);
            let value = interval.map(|i| i.value);
            let null = value.is_none_or(|v| self.coloring.is_null(v));
            Some(Details {
                row_label: item.label.clone(),
                time: t,
                value: value.filter(|_| !null),
                label: value_label(trace, spec, value.unwrap_or(0), null),
                begin: interval.map(|i| i.begin),
                end: interval.map(|i| i.end),
            })
        } else {
            let sentinel = self.signals.sentinel();
            let edges = [t, t.saturating_add(1)];
            let px = frame::row_pixels(&self.signals, item, &edges, sentinel);
            let value = px.first().map_or(sentinel, |p| p.value);
            let null = self.coloring.is_null(value);
            Some(Details {
                row_label: item.label.clone(),
                time: t,
                value: (!null).then_some(value),
                label: value_label(trace, spec, value, null),
                begin: None,
                end: None,
            })
        }
    }

    /// Draws the timeline in all of `ui`'s available space and handles its input.
    pub fn ui(&mut self, ui: &mut Ui, trace: &Trace) {
        self.poll_pending(trace);
        if self.pending.is_some() {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(50));
        }
        let (rect, _) = ui.allocate_exact_size(ui.available_size(), Sense::hover());
        let labels = Rect::from_min_max(
            rect.min,
            pos2(rect.left() + LABEL_WIDTH, rect.bottom() - RULER_HEIGHT),
        );
        let area = Rect::from_min_max(
            pos2(labels.right(), rect.top()),
            pos2(rect.right() - 10.0, rect.bottom() - RULER_HEIGHT),
        );
        let ruler = Rect::from_min_max(
            pos2(area.left(), area.bottom()),
            pos2(area.right(), rect.bottom()),
        );
        let scrollbar = Rect::from_min_max(
            pos2(area.right(), area.top()),
            pos2(rect.right(), area.bottom()),
        );
        if area.width() < 20.0 || area.height() < 10.0 {
            return;
        }
        let n = self.rows.len().max(1);
        let row_height = (area.height() / n as f32).clamp(MIN_ROW_HEIGHT, MAX_ROW_HEIGHT);
        let per_page = ((area.height() / row_height).floor() as usize).max(1);
        let max_first = self.rows.len().saturating_sub(per_page);

        let response = ui.interact(
            area,
            ui.scope_id().with("timeline-area"),
            Sense::click_and_drag(),
        );
        let label_response = ui.interact(
            labels,
            ui.scope_id().with("timeline-labels"),
            Sense::hover(),
        );
        let bar_response = ui.interact(
            scrollbar,
            ui.scope_id().with("timeline-scroll"),
            Sense::click_and_drag(),
        );
        self.handle_input(ui, &response, &label_response, area, row_height, per_page);
        if (bar_response.dragged() || bar_response.clicked())
            && let Some(p) = bar_response.interact_pointer_pos()
        {
            let f = ((p.y - scrollbar.top()) / scrollbar.height()).clamp(0.0, 1.0);
            self.first_row = ((f * self.rows.len() as f32) as usize).saturating_sub(per_page / 2);
        }
        self.first_row = self.first_row.min(max_first);
        let visible = self.first_row..(self.first_row + per_page).min(self.rows.len());
        self.area = area;
        self.row_height = row_height;

        // Build (or reuse) the frame.
        let key = FrameKey {
            window: self.window,
            rect: area,
            row_height,
            first_row: self.first_row,
            rows_generation: self.rows_generation,
            view_generation: self.view_generation
                ^ (Arc::as_ptr(&self.signals) as u64).rotate_left(17),
        };
        if self.cache.as_ref().is_none_or(|c| c.0 != key) {
            let started = Instant::now();
            let built = frame::build(&FrameRequest {
                view: &self.signals,
                coloring: &self.coloring,
                rows: &self.rows,
                visible: visible.clone(),
                rect: area,
                row_height,
                window: self.window,
                flags: self.config.flags,
            });
            let comms = if self.config.comms {
                let drawn = drawn_row_of_thread(&self.rows, trace.store.threads().len());
                let first = self.first_row;
                let center = |thread: usize| {
                    let r = (*drawn.get(thread)?)? as usize;
                    (visible.contains(&r))
                        .then(|| area.top() + (r - first) as f32 * row_height + row_height * 0.5)
                };
                frame::comm_lines(&trace.store, self.window, area, &center, MAX_COMM_LINES)
            } else {
                Vec::new()
            };
            self.last_build_ms = started.elapsed().as_secs_f64() * 1e3;
            self.cache = Some((key, built, comms));
        }

        let painter = ui.painter_at(rect);
        painter.rect_filled(area, 0.0, theme::BACKGROUND);
        painter.rect_filled(ruler, 0.0, theme::BACKGROUND);
        painter.rect_filled(labels, 0.0, theme::LABEL_BACKGROUND);
        if let Some((_, built, comms)) = &self.cache {
            let clipped = ui.painter_at(area);
            clipped.extend(built.meshes.iter().map(|m| Shape::Mesh(Arc::clone(m))));
            clipped.extend(comms.iter().cloned());
        }
        self.paint_overlays(ui, area, row_height, &visible);
        self.paint_ruler(ui, ruler, area);
        self.paint_labels(ui, trace, labels, row_height, &visible);
        if self.rows.len() > per_page {
            let total = self.rows.len() as f32;
            let top = scrollbar.top() + scrollbar.height() * self.first_row as f32 / total;
            let h = (scrollbar.height() * per_page as f32 / total).max(8.0);
            painter.rect_filled(scrollbar, 0.0, theme::LABEL_STRIPE);
            painter.rect_filled(
                Rect::from_min_size(
                    pos2(scrollbar.left() + 2.0, top),
                    vec2(scrollbar.width() - 4.0, h),
                ),
                2.0,
                theme::AXIS,
            );
        }

        // Hover tooltip.
        self.hovered = None;
        if let Some(pos) = response.hover_pos()
            && self.selecting.is_none()
            && let Some(row) = self.row_at(pos.y, area, row_height, &visible)
        {
            let t = self.window.time_from_x(pos.x, area).max(0.0) as u64;
            self.hovered = self.details(trace, row, t);
            ui.painter_at(area).line_segment(
                [pos2(pos.x, area.top()), pos2(pos.x, area.bottom())],
                Stroke::new(1.0, theme::CURSOR.gamma_multiply(0.4)),
            );
            if let Some(d) = self.hovered.clone() {
                let npt = self.ns_per_tick;
                response.on_hover_ui_at_pointer(|ui| details_ui(ui, &d, npt));
            }
        }
    }

    fn row_at(
        &self,
        y: f32,
        area: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) -> Option<usize> {
        if y < area.top() {
            return None;
        }
        let r = self.first_row + ((y - area.top()) / row_height) as usize;
        visible.contains(&r).then_some(r)
    }

    fn handle_input(
        &mut self,
        ui: &Ui,
        response: &egui::Response,
        label_response: &egui::Response,
        area: Rect,
        row_height: f32,
        per_page: usize,
    ) {
        let limit = self.end_time;
        // Wheel: zoom at the pointer over the rows, scroll rows over the labels.
        let (wheel, horizontal) = ui.input(|i| {
            let mut lines = 0.0_f32;
            let mut horizontal = 0.0_f32;
            for e in &i.events {
                if let egui::Event::MouseWheel { unit, delta, .. } = e {
                    let scale = match unit {
                        MouseWheelUnit::Point => 1.0 / 50.0,
                        MouseWheelUnit::Line => 1.0,
                        MouseWheelUnit::Page => 10.0,
                    };
                    lines += delta.y * scale;
                    horizontal += delta.x * scale;
                }
            }
            (lines, horizontal)
        });
        if let Some(pos) = response.hover_pos() {
            if wheel != 0.0 {
                let anchor = self.window.time_from_x(pos.x, area);
                let factor = 0.8_f64.powf(f64::from(wheel));
                let next = self.window.zoomed(factor, anchor, limit);
                self.zoom_to(next);
            }
            if horizontal != 0.0 {
                let dt = -f64::from(horizontal) * 0.1 * self.window.span as f64;
                self.window = self.window.panned(dt, limit);
            }
        } else if label_response.hovered() && wheel != 0.0 {
            let rows = (-wheel * 3.0).round() as isize;
            self.first_row = self.first_row.saturating_add_signed(rows);
        }

        if response.clicked() || response.drag_started() {
            // Keyboard shortcuts go to the timeline again, not to a text field.
            ui.ctx().memory_mut(egui::Memory::stop_text_input);
        }
        // Drags: pan with the primary button, select with shift or the secondary button.
        let shift = ui.input(|i| i.modifiers.shift);
        if response.drag_started_by(PointerButton::Secondary)
            || (response.drag_started_by(PointerButton::Primary) && shift)
        {
            // From where the button went down, not where the drag was recognised.
            if let Some(p) = ui
                .input(|i| i.pointer.press_origin())
                .or(response.interact_pointer_pos())
            {
                self.selecting = Some(self.window.time_from_x(p.x, area));
            }
        } else if response.dragged_by(PointerButton::Primary) && self.selecting.is_none() {
            let dx = response.drag_delta().x;
            if dx != 0.0 {
                let dt = -f64::from(dx) * self.window.span as f64 / f64::from(area.width());
                self.window = self.window.panned(dt, limit);
            }
            ui.ctx().set_cursor_icon(CursorIcon::Grabbing);
        }
        if response.drag_stopped()
            && let Some(start) = self.selecting.take()
            && let Some(p) = response.interact_pointer_pos()
        {
            let end = self
                .window
                .time_from_x(p.x.clamp(area.left(), area.right()), area);
            let px =
                (self.window.x_from_time(end, area) - self.window.x_from_time(start, area)).abs();
            if px >= 3.0 {
                self.zoom_to(TimeWindow::between(start, end, limit));
            }
        }
        if response.clicked()
            && let Some(p) = response.interact_pointer_pos()
        {
            let row = self.first_row + ((p.y - area.top()) / row_height) as usize;
            if row < self.rows.len() {
                let t = self.window.time_from_x(p.x, area).max(0.0) as u64;
                self.pinned = Some(Pinned { row, time: t });
            }
        }

        // Keyboard (not while typing in a text field).
        if ui.ctx().text_edit_focused() {
            return;
        }
        let (redo, undo, fit, left, right, zoom_in, zoom_out, up, down, page_up, page_down) = ui
            .input_mut(|i| {
                let redo = i.consume_key(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z)
                    || i.consume_key(Modifiers::COMMAND, Key::R);
                let undo = i.consume_key(Modifiers::COMMAND, Key::Z)
                    || i.consume_key(Modifiers::COMMAND, Key::U);
                (
                    redo,
                    undo,
                    i.consume_key(Modifiers::NONE, Key::Home),
                    i.consume_key(Modifiers::NONE, Key::ArrowLeft),
                    i.consume_key(Modifiers::NONE, Key::ArrowRight),
                    i.consume_key(Modifiers::NONE, Key::Plus)
                        || i.consume_key(Modifiers::NONE, Key::Equals),
                    i.consume_key(Modifiers::NONE, Key::Minus),
                    i.consume_key(Modifiers::NONE, Key::ArrowUp),
                    i.consume_key(Modifiers::NONE, Key::ArrowDown),
                    i.consume_key(Modifiers::NONE, Key::PageUp),
                    i.consume_key(Modifiers::NONE, Key::PageDown),
                )
            });
        if redo {
            self.redo_zoom();
        } else if undo {
            self.undo_zoom();
        }
        if fit {
            self.fit();
        }
        let step = self.window.span as f64 * 0.1;
        if left {
            self.window = self.window.panned(-step, limit);
        }
        if right {
            self.window = self.window.panned(step, limit);
        }
        let center = self.window.start as f64 + self.window.span as f64 / 2.0;
        if zoom_in {
            let w = self.window.zoomed(0.5, center, limit);
            self.zoom_to(w);
        }
        if zoom_out {
            let w = self.window.zoomed(2.0, center, limit);
            self.zoom_to(w);
        }
        if up {
            self.first_row = self.first_row.saturating_sub(1);
        }
        if down {
            self.first_row += 1;
        }
        if page_up {
            self.first_row = self.first_row.saturating_sub(per_page);
        }
        if page_down {
            self.first_row += per_page;
        }
    }

    fn paint_overlays(
        &self,
        ui: &Ui,
        area: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) {
        let painter = ui.painter_at(area);
        if let Some(start) = self.selecting
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
        if let Some(highlight) = &self.highlight {
            self.paint_highlight(&painter, highlight, area, row_height, visible);
        }
        if let Some(pin) = self.pinned
            && visible.contains(&pin.row)
        {
            let x = self.window.x_from_time(pin.time as f64, area);
            let y = area.top() + (pin.row - self.first_row) as f32 * row_height;
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

    /// Outlines the highlighted intervals of the visible rows (a collapsed row shows those
    /// of all its threads); intervals narrower than a pixel are merged.
    fn paint_highlight(
        &self,
        painter: &egui::Painter,
        intervals: &[Vec<(u64, u64)>],
        area: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) {
        let (w0, w1) = (self.window.start, self.window.end());
        let fill = theme::SCOPE_SELECTED.gamma_multiply(0.25);
        for (i, r) in visible.clone().enumerate() {
            let Some(item) = self.rows.get(r) else {
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
                painter.rect_filled(rect, 0.0, fill);
                painter.rect_stroke(
                    rect,
                    0.0,
                    Stroke::new(1.0, theme::SCOPE_SELECTED),
                    egui::StrokeKind::Inside,
                );
            }
        }
    }

    fn paint_ruler(&self, ui: &Ui, ruler: Rect, area: Rect) {
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
        for (t, label) in frame::ruler_ticks(self.window, self.ns_per_tick, area.width(), 110.0) {
            let x = self.window.x_from_time(t, area);
            painter.line_segment(
                [pos2(x, ruler.top()), pos2(x, ruler.top() + 4.0)],
                Stroke::new(1.0, theme::AXIS),
            );
            painter.text(
                pos2(x, ruler.top() + 5.0),
                Align2::CENTER_TOP,
                label,
                font.clone(),
                theme::FOREGROUND,
            );
        }
    }

    fn paint_labels(
        &mut self,
        ui: &mut Ui,
        trace: &Trace,
        labels: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) {
        let font = FontId::monospace((row_height - 3.0).clamp(8.0, 12.0));
        let mut toggle = None;
        for (i, r) in visible.clone().enumerate() {
            let Some(item) = self.rows.get(r) else {
                continue;
            };
            let top = labels.top() + i as f32 * row_height;
            let rect =
                Rect::from_min_size(pos2(labels.left(), top), vec2(labels.width(), row_height));
            if r % 2 == 1 {
                ui.painter().rect_filled(rect, 0.0, theme::LABEL_STRIPE);
            }
            let collapsed = !matches!(item.kind, RowKind::Thread(_));
            let text = if collapsed {
                format!("+ {}", item.label)
            } else {
                item.label.clone()
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
                .on_hover_text(if collapsed {
                    "Click to expand"
                } else {
                    "Click to collapse its task"
                });
            if resp.clicked() {
                toggle = Some(r);
            }
        }
        if let Some(r) = toggle {
            self.toggle_row(trace, r);
        }
    }
}

/// Moves `window` to the top of `from`, remembering it on `to` (undo and redo).
fn step_history(
    window: &mut TimeWindow,
    from: &mut Vec<TimeWindow>,
    to: &mut Vec<TimeWindow>,
) -> bool {
    match from.pop() {
        Some(w) => {
            to.push(*window);
            *window = w;
            true
        }
        None => false,
    }
}

/// The details of a point: used by the tooltip and the pinned panel.
pub fn details_ui(ui: &mut Ui, d: &Details, ns_per_tick: u64) {
    ui.label(egui::RichText::new(&d.row_label).strong());
    ui.label(format!("time {}", frame::format_ticks(d.time, ns_per_tick)));
    match d.value {
        Some(v) => ui.label(format!("value {v}: {}", d.label)),
        None => ui.label("no value (null)"),
    };
    if let (Some(b), Some(e)) = (d.begin, d.end) {
        ui.label(format!(
            "from {} to {} ({})",
            frame::format_ticks(b, ns_per_tick),
            frame::format_ticks(e, ns_per_tick),
            frame::format_ticks(e.saturating_sub(b), ns_per_tick)
        ));
    }
}

/// A colour swatch followed by a label, for legends.
pub fn swatch(ui: &mut Ui, color: Color32, text: &str) -> egui::Response {
    ui.horizontal(|ui| {
        let (r, _) = ui.allocate_exact_size(vec2(14.0, 12.0), Sense::hover());
        ui.painter().rect_filled(r, 2.0, color);
        ui.label(text)
    })
    .inner
}

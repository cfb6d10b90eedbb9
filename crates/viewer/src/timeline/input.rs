//! The timeline's input: the wheel (zoom at the pointer over the rows, scroll over the
//! labels; with Ctrl, zoom along the rows), drags (pan; shift-drag or right-drag selects a range), clicks (pin a point),
//! double-clicks (the breakdown of the scope there) and keys (undo, redo, fit, pan, zoom,
//! scroll, fit rows).

use egui::{CursorIcon, Key, Modifiers, MouseWheelUnit, PointerButton, Rect, Ui};

use super::{Pinned, Timeline};
use crate::frame::TimeWindow;

impl Timeline {
    pub(super) fn row_at(
        &self,
        y: f32,
        area: Rect,
        row_height: f32,
        visible: &std::ops::Range<usize>,
    ) -> Option<usize> {
        if y < area.top() {
            return None;
        }
        let r = self.layout.first_row + ((y - area.top()) / row_height) as usize;
        visible.contains(&r).then_some(r)
    }

    /// Zooms along the rows by `factor`, keeping the row at height `y` where it is (from the
    /// rows on screen when they scroll: those become the rows shown).
    fn zoom_rows_at(&mut self, y: f32, area: Rect, row_height: f32, factor: f64) {
        let per_page = ((area.height() / row_height).floor() as usize).max(1);
        if !self.rows_summarised() && self.layout.rows.len() > per_page {
            let start = self.layout.shown.start + self.layout.first_row;
            self.show_rows(start..start + per_page);
        }
        self.set_fit_rows(true);
        let anchor = f64::from(((y - area.top()) / area.height()).clamp(0.0, 1.0));
        self.zoom_rows(factor, anchor);
    }

    pub(super) fn handle_input(
        &mut self,
        ui: &Ui,
        response: &egui::Response,
        label_response: &egui::Response,
        area: Rect,
        row_height: f32,
        per_page: usize,
    ) {
        let limit = self.nav.end_time;
        // Wheel: zoom at the pointer over the rows, scroll rows over the labels; with Ctrl,
        // zoom along the rows at the pointer.
        let (wheel, horizontal, rows_zoom) = ui.input(|i| {
            let (mut lines, mut horizontal, mut rows_zoom) = (0.0_f32, 0.0_f32, 0.0_f32);
            for e in &i.events {
                if let egui::Event::MouseWheel {
                    unit,
                    delta,
                    modifiers,
                    ..
                } = e
                {
                    let scale = match unit {
                        MouseWheelUnit::Point => 1.0 / 50.0,
                        MouseWheelUnit::Line => 1.0,
                        MouseWheelUnit::Page => 10.0,
                    };
                    if modifiers.ctrl || modifiers.command {
                        rows_zoom += (delta.y + delta.x) * scale;
                    } else {
                        lines += delta.y * scale;
                        horizontal += delta.x * scale;
                    }
                }
            }
            (lines, horizontal, rows_zoom)
        });
        let over_labels = ui
            .input(|i| i.pointer.hover_pos())
            .is_some_and(|p| label_response.rect.contains(p));
        if rows_zoom != 0.0
            && let Some(p) = response.hover_pos().or_else(|| {
                over_labels
                    .then(|| ui.input(|i| i.pointer.hover_pos()))
                    .flatten()
            })
        {
            self.zoom_rows_at(p.y, area, row_height, 0.8_f64.powf(f64::from(rows_zoom)));
        }
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
        } else if wheel != 0.0 && over_labels {
            // Over the row names (by position: their click areas sit on top of this one).
            if self.layout.rows.len() <= per_page {
                // Every drawn row on screen: the rows shown move instead.
                self.scroll_rows(-f64::from(wheel) * 0.1);
            } else {
                let rows = (-wheel * 3.0).round() as isize;
                self.layout.first_row = self.layout.first_row.saturating_add_signed(rows);
            }
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
                self.pointer.selecting = Some(self.window.time_from_x(p.x, area));
            }
        } else if response.dragged_by(PointerButton::Primary) && self.pointer.selecting.is_none() {
            // The window moves by what the pointer moved since the button went down, from
            // the window it had then: a slow frame, or the pixels egui waits for before it
            // calls it a drag, lose nothing (three 200 px drags just after opening a 1 GB
            // trace moved 25%, 40% and 150% of what they should by the frame's deltas).
            let id = response.id.with("pan-from");
            let from = ui.ctx().data(|d| d.get_temp::<(f32, TimeWindow)>(id));
            let from = match from {
                Some(f) if !response.drag_started() => f,
                _ => {
                    let x = ui
                        .input(|i| i.pointer.press_origin())
                        .or(response.interact_pointer_pos())
                        .map_or(0.0, |p| p.x);
                    ui.ctx().data_mut(|d| d.insert_temp(id, (x, self.window)));
                    (x, self.window)
                }
            };
            if let Some(p) = response.interact_pointer_pos() {
                let dx = p.x - from.0;
                let dt = -f64::from(dx) * from.1.span as f64 / f64::from(area.width());
                self.window = from.1.panned(dt, limit);
            }
            ui.ctx().set_cursor_icon(CursorIcon::Grabbing);
        }
        if response.drag_stopped()
            && let Some(start) = self.pointer.selecting.take()
            && let Some(p) = response.interact_pointer_pos()
        {
            let end = self
                .window
                .time_from_x(p.x.clamp(area.left(), area.right()), area);
            let px =
                (self.window.x_from_time(end, area) - self.window.x_from_time(start, area)).abs();
            if px >= 3.0 {
                let (a, b) = (start.min(end).max(0.0), start.max(end).max(0.0));
                self.marks.measured =
                    Some(TimeWindow::from_bounds(a.round() as u64, b.round() as u64));
                self.zoom_to(TimeWindow::between(start, end, limit));
            }
        }
        if response.double_clicked()
            && let Some(p) = response.interact_pointer_pos()
        {
            let row = self.layout.first_row + ((p.y - area.top()) / row_height) as usize;
            // A row of threads (not of CPUs or nodes, which name none).
            if let Some(item) = self.layout.rows.get(row)
                && !item.threads.is_empty()
            {
                let t = self.window.time_from_x(p.x, area).max(0.0) as u64;
                crate::commands::send(
                    ui.ctx(),
                    crate::commands::Command::BreakdownAt {
                        thread: item.threads.start,
                        tick: t,
                    },
                );
            }
        }
        if response.clicked()
            && let Some(p) = response.interact_pointer_pos()
        {
            let row = self.layout.first_row + ((p.y - area.top()) / row_height) as usize;
            if row < self.layout.rows.len() {
                let t = self.window.time_from_x(p.x, area).max(0.0) as u64;
                self.pointer.pinned = Some(Pinned { row, time: t });
            }
        }

        // Keyboard (not while typing in a text field, unless the pointer is over the rows
        // and the key moves the timeline: the field then gives the keys back).
        if self.pointer.ignores_keys {
            return;
        }
        if ui.ctx().text_edit_focused() {
            let navigation = ui.input(|i| {
                [
                    Key::Home,
                    Key::ArrowLeft,
                    Key::ArrowRight,
                    Key::ArrowUp,
                    Key::ArrowDown,
                    Key::PageUp,
                    Key::PageDown,
                ]
                .iter()
                .any(|&k| i.key_pressed(k))
            });
            if !(navigation && response.hovered()) {
                return;
            }
            ui.ctx().memory_mut(egui::Memory::stop_text_input);
        }
        if ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::F)) {
            self.set_fit_rows(!self.layout.fit_rows);
        }
        // M: a marker at the pointer over the rows, else at the window's centre.
        if ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::M)) {
            let t = match response.hover_pos() {
                Some(p) => self.window.time_from_x(p.x, area).max(0.0) as u64,
                None => self.window.start + self.window.span / 2,
            };
            self.add_marker(t);
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
        if self.layout.rows.len() <= per_page {
            // Every drawn row on screen: the keys move the rows shown, a drawn row or a page
            // at a time.
            let row = 1.0 / self.layout.rows.len().max(1) as f64;
            let moved = [(up, -row), (down, row), (page_up, -1.0), (page_down, 1.0)];
            for (_, by) in moved.into_iter().filter(|(k, _)| *k) {
                self.scroll_rows(by);
            }
            return;
        }
        if up {
            self.layout.first_row = self.layout.first_row.saturating_sub(1);
        }
        if down {
            self.layout.first_row += 1;
        }
        if page_up {
            self.layout.first_row = self.layout.first_row.saturating_sub(per_page);
        }
        if page_down {
            self.layout.first_row += per_page;
        }
    }
}

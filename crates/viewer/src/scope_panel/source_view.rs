//! The scope panel's source view: the lines of the file shown, numbered and shaded by their
//! heat, a vertical bar per scope over its lines (shaded by inclusive time; click: its
//! breakdown per thread), a horizontal bar per scope split by thread state (click: its
//! breakdown per state), and the profile map of the whole file beside them (click: scroll
//! there).

use std::sync::Arc;

use egui::{FontId, Painter, Rect, RichText, Sense, Ui, WidgetInfo, pos2, vec2};

use super::ScopePanel;
use crate::breakdown::Tab;
use crate::frame::format_in_window;
use crate::theme;
use prvscope_analysis::panel::Prepared;
use prvscope_analysis::scopes::{self, ScopeAnalysis, ScopeKey};
use prvscope_analysis::source::Found;

/// Height of a source line.
const ROW_H: f32 = 14.0;
/// Width of a lane of scope bars.
const LANE_WIDTH: f32 = 8.0;
/// Width of the line numbers.
const NUM_W: f32 = 40.0;
/// Length of the longest horizontal bar.
const HBAR_W: f32 = 90.0;
/// Width of the profile map.
const MAP_W: f32 = 16.0;

/// What the heat and the bars of the source view are shares of.
struct Shares {
    /// The hottest line's time (at least 1).
    heat_max: u64,
    /// The file's heat (at least 1).
    heat_total: u64,
    /// The threads' time over the window.
    total: f64,
    /// The largest inclusive time of a scope (at least 1).
    max_inclusive: u64,
}

impl Shares {
    fn new(p: &Prepared, a: &ScopeAnalysis) -> Self {
        let heat = &p.heat;
        Shares {
            heat_max: heat.values().copied().max().unwrap_or(0).max(1),
            heat_total: heat.values().sum::<u64>().max(1),
            total: a.threads_ticks(),
            max_inclusive: a
                .scopes
                .iter()
                .map(|s| s.inclusive)
                .max()
                .unwrap_or(0)
                .max(1),
        }
    }
}

/// The part of the scrolled lines drawn this frame.
struct Drawn {
    /// Left and right edges of the scrolled content, and its top (where line 1 starts).
    left: f32,
    right: f32,
    top: f32,
    /// The lines drawn (0-based).
    lines: std::ops::Range<usize>,
    /// Width of the scope bars' lanes, left of the line numbers.
    gutter_width: f32,
    /// The visible part of the content, relative to its top left.
    viewport: Rect,
}

impl ScopePanel {
    /// The source view of the file shown (where it was looked for, when it is not found).
    pub(super) fn source_ui(&mut self, ui: &mut Ui, a: &Arc<ScopeAnalysis>) {
        let Some(file) = self.src.file.clone() else {
            ui.label("No scope of this window has a source location.");
            return;
        };
        let p = self.prepared(a, &file);
        let Some(text) = p.found.text() else {
            self.missing_source_ui(ui, &file, &p);
            return;
        };
        self.src.line_count = p.lines.len();
        let shares = Shares::new(&p, a);
        ui.label(match p.source {
            scopes::HeatSource::LineEvents => "line heat: time from sampled and caller line events",
            scopes::HeatSource::ScopeFirstLines => {
                "line heat: exclusive time of each scope on its first line"
            }
        });
        let avail = ui.available_rect_before_wrap();
        let map_rect = Rect::from_min_max(pos2(avail.right() - MAP_W, avail.top()), avail.max);
        self.profile_map_ui(ui, a, &p, &shares, map_rect);
        let source_rect =
            Rect::from_min_max(avail.min, pos2(avail.right() - MAP_W - 2.0, avail.bottom()));
        let clicked = self.lines_ui(ui, a, &p, text, &shares, source_rect);
        ui.advance_cursor_after_rect(avail);
        if let Some((key, tab)) = clicked {
            self.sel.selected = Some(key);
            self.open_breakdown_on(key, tab);
        }
    }

    /// The file was not found: where it was looked for, and its hottest lines.
    fn missing_source_ui(&mut self, ui: &mut Ui, file: &str, p: &Prepared) {
        let hot = &p.hot;
        if let Found::Missing { tried } = &*p.found {
            ui.label(RichText::new(format!("Source file {file} not found.")).color(theme::WARNING));
            ui.label("Looked for it in:");
            for p in tried {
                ui.label(format!("  {}", p.display()));
            }
            ui.label("Add the folder that holds it with \"Add source folder…\".");
        }
        // The heat is known without the text: list the hottest lines.
        let total: u64 = hot.iter().map(|h| h.1).sum::<u64>().max(1);
        if !hot.is_empty() {
            ui.separator();
            ui.label(format!("Hottest lines of {file}:"));
            egui::ScrollArea::vertical()
                .id_salt("hot-lines")
                .max_height(ui.available_height().max(40.0))
                .show(ui, |ui| {
                    for (line, t) in hot.iter().take(50) {
                        ui.label(format!(
                            "{file}:{line}  {}  ({:.1}%)",
                            format_in_window(*t, self.an.span, self.ns_per_tick),
                            100.0 * *t as f64 / total as f64
                        ));
                    }
                });
        }
        self.src.line_count = 0;
    }

    /// The profile map: the whole file squeezed into the panel's height; click to scroll there.
    fn profile_map_ui(
        &mut self,
        ui: &Ui,
        a: &ScopeAnalysis,
        p: &Prepared,
        shares: &Shares,
        map_rect: Rect,
    ) {
        let map = ui.interact(map_rect, ui.scope_id().with("profile-map"), Sense::click());
        map.widget_info(|| WidgetInfo::labeled(egui::Role::Button, true, "profile map"));
        let n = p.lines.len().max(1) as f32;
        let y_of =
            |line: u32| map_rect.top() + (line.saturating_sub(1)) as f32 / n * map_rect.height();
        let painter = ui.painter_at(map_rect);
        painter.rect_filled(map_rect, 0.0, theme::SOURCE_BACKGROUND);
        for &(i, first, last, _) in &p.placed {
            if let Some(s) = a.scopes.get(i) {
                let r = Rect::from_x_y_ranges(
                    map_rect.left() + 2.0..=map_rect.right() - 2.0,
                    y_of(first)..=y_of(last + 1).max(y_of(first) + 2.0),
                );
                painter.rect_filled(r, 0.0, theme::heat_grey(s.inclusive as f64 / shares.total));
            }
        }
        for (&line, &t) in &p.heat {
            let y = y_of(line);
            painter.line_segment(
                [pos2(map_rect.left(), y), pos2(map_rect.left() + 4.0, y)],
                egui::Stroke::new(1.5, theme::heat_grey(t as f64 / shares.heat_max as f64)),
            );
        }
        if map.clicked()
            && let Some(pos) = map.interact_pointer_pos()
        {
            let f = ((pos.y - map_rect.top()) / map_rect.height()).clamp(0.0, 1.0);
            self.src.scroll_to_line = Some((f * n) as u32 + 1);
        }
        map.on_hover_text("Profile map of the file: click to scroll there");
    }

    /// The scrolled lines with the scope bars in their gutter; returns the scope whose bar was
    /// clicked, and the breakdown tab it opens.
    fn lines_ui(
        &mut self,
        ui: &mut Ui,
        a: &ScopeAnalysis,
        p: &Prepared,
        text: &str,
        shares: &Shares,
        source_rect: Rect,
    ) -> Option<(ScopeKey, Tab)> {
        let line_ranges = &p.lines;
        let gutter_width = p.lanes.max(1) as f32 * LANE_WIDTH + 4.0;
        let mut scroll = egui::ScrollArea::both()
            .id_salt("source")
            .auto_shrink([false, false])
            .max_height(source_rect.height());
        if let Some(line) = self.src.scroll_to_line.take() {
            scroll = scroll.vertical_scroll_offset(line.saturating_sub(1) as f32 * ROW_H);
        }
        let mut clicked: Option<(ScopeKey, Tab)> = None;
        let mut child = ui.new_child(egui::UiBuilder::new().max_rect(source_rect));
        scroll.show_viewport(&mut child, |ui, viewport| {
            let width = (ui.available_width()).max(400.0);
            ui.set_height(line_ranges.len() as f32 * ROW_H);
            ui.set_width(width);
            let top = ui.max_rect().top();
            let left = ui.max_rect().left();
            let right = left + ui.available_width().max(width);
            let first = (viewport.min.y / ROW_H).floor().max(0.0) as usize;
            let last = ((viewport.max.y / ROW_H).ceil() as usize + 1).min(line_ranges.len());
            self.src.first_visible_line = first as u32 + 1;
            let painter = ui.painter().clone();
            let drawn = Drawn {
                left,
                right,
                top,
                lines: first..last,
                gutter_width,
                viewport,
            };
            self.paint_lines(ui, &painter, p, text, shares, &drawn);
            clicked = self.scope_bars(ui, &painter, a, p, shares, &drawn);
        });
        clicked
    }

    /// The drawn lines: their numbers shaded by heat (hover: the line's time), and their text.
    fn paint_lines(
        &self,
        ui: &Ui,
        painter: &Painter,
        p: &Prepared,
        text: &str,
        shares: &Shares,
        drawn: &Drawn,
    ) {
        let (left, top, lines) = (drawn.left, drawn.top, &drawn.lines);
        let font = FontId::monospace(11.0);
        painter.rect_filled(
            Rect::from_x_y_ranges(
                left..=drawn.right,
                top + lines.start as f32 * ROW_H..=top + lines.end as f32 * ROW_H,
            ),
            0.0,
            theme::SOURCE_BACKGROUND,
        );
        let text_x = left + drawn.gutter_width + NUM_W + 6.0;
        for i in lines.clone() {
            let y = top + i as f32 * ROW_H;
            let line_no = i as u32 + 1;
            let num_rect =
                Rect::from_min_size(pos2(left + drawn.gutter_width, y), vec2(NUM_W, ROW_H));
            let h = p.heat.get(&line_no).copied().unwrap_or(0);
            let bg = if h > 0 {
                theme::heat_grey(h as f64 / shares.heat_max as f64)
            } else {
                theme::LABEL_BACKGROUND
            };
            painter.rect_filled(num_rect, 0.0, bg);
            painter.text(
                num_rect.right_center() - vec2(4.0, 0.0),
                egui::Align2::RIGHT_CENTER,
                line_no.to_string(),
                font.clone(),
                theme::text_on(bg),
            );
            if h > 0 {
                let r = ui.interact(
                    num_rect,
                    ui.scope_id().with(("line", line_no)),
                    Sense::hover(),
                );
                r.on_hover_text(format!(
                    "line {line_no}: {} ({:.1}% of the file's heat)",
                    format_in_window(h, self.an.span, self.ns_per_tick),
                    100.0 * h as f64 / shares.heat_total as f64
                ));
            }
            if let Some(l) = p.lines.get(i).and_then(|r| text.get(r.clone())) {
                painter.text(
                    pos2(text_x, y + 1.0),
                    egui::Align2::LEFT_TOP,
                    l.replace('\t', "    "),
                    font.clone(),
                    theme::SOURCE_TEXT,
                );
            }
        }
    }

    /// Vertical bars (click: the breakdown per thread) and horizontal bars at each scope's
    /// first line (click: the breakdown per state); returns the bar clicked.
    // Painting code: x, y, w, h and friends read best short.
    #[allow(clippy::many_single_char_names)]
    fn scope_bars(
        &self,
        ui: &Ui,
        painter: &Painter,
        a: &ScopeAnalysis,
        p: &Prepared,
        shares: &Shares,
        drawn: &Drawn,
    ) -> Option<(ScopeKey, Tab)> {
        let (left, right, top, viewport) = (drawn.left, drawn.right, drawn.top, drawn.viewport);
        let (total, max_inclusive) = (shares.total, shares.max_inclusive);
        let mut clicked = None;
        for &(i, first_line, last_line, lane) in &p.placed {
            let Some(s) = a.scopes.get(i) else { continue };
            let y0 = top + (first_line - 1) as f32 * ROW_H;
            let y1 = top + last_line as f32 * ROW_H;
            if y1 < top + viewport.min.y || y0 > top + viewport.max.y {
                continue;
            }
            let selected = self.sel.selected == Some(s.key);
            let x = left + 2.0 + lane as f32 * LANE_WIDTH;
            let vrect = Rect::from_x_y_ranges(x..=x + LANE_WIDTH - 2.0, y0 + 1.0..=y1 - 1.0);
            let share = s.inclusive as f64 / total;
            painter.rect_filled(vrect, 1.0, theme::heat_grey(share));
            if selected {
                painter.rect_stroke(
                    vrect,
                    1.0,
                    egui::Stroke::new(1.5, theme::SCOPE_SELECTED),
                    egui::StrokeKind::Outside,
                );
            }
            let name = s.name.clone();
            let r = bar_button(ui, vrect, ("vbar", s.key), &format!("scope bar {name}"));
            if r.clicked() {
                clicked = Some((s.key, Tab::Threads));
            }
            r.on_hover_text(format!(
                "{}: lines {first_line}-{last_line}, inclusive {} ({:.1}%): click for its time per thread",
                s.name,
                format_in_window(s.inclusive, self.an.span, self.ns_per_tick),
                100.0 * share
            ));
            // Horizontal bar split by category.
            let w = (HBAR_W * s.inclusive as f32 / max_inclusive as f32).max(2.0);
            let hx = right - HBAR_W - 4.0;
            let hrect = Rect::from_min_size(pos2(hx, y0 + 2.0), vec2(w, ROW_H - 4.0));
            let mut x = hx;
            for (&c, &t) in &s.inclusive_per_category {
                let cw = w * t as f32 / s.inclusive.max(1) as f32;
                painter.rect_filled(
                    Rect::from_min_size(pos2(x, hrect.top()), vec2(cw, hrect.height())),
                    0.0,
                    self.category_color(c),
                );
                x += cw;
            }
            let r = bar_button(ui, hrect, ("hbar", s.key), &format!("category bar {name}"));
            if r.clicked() {
                clicked = Some((s.key, Tab::States));
            }
            r.on_hover_text(format!(
                "{}: time by thread state: click for its time per state",
                s.name
            ));
        }
        clicked
    }
}

/// A clickable painted bar, named for accessibility (and the UI tests).
fn bar_button(
    ui: &Ui,
    rect: Rect,
    id: impl std::hash::Hash + std::fmt::Debug,
    label: &str,
) -> egui::Response {
    let r = ui.interact(rect, ui.scope_id().with(id), Sense::click());
    r.widget_info(|| WidgetInfo::labeled(egui::Role::Button, true, label));
    r
}

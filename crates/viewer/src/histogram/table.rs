//! A histogram window's table, read as Paraver's is: the header row and the row labels stay
//! in place while the cells scroll under them; only the cells in view are made (a table of
//! a thousand rows by 200 columns costs what its visible part does); every column has one
//! width, which only grows while the window is open (sorting or following the timeline never
//! moves the columns); the statistic and its unit head the labels; an empty cell is blank.

use std::ops::Range;

use egui::{Button, Color32, Rect, RichText, Sense, TextStyle, Ui, UiBuilder, pos2, vec2};
use prvscope_paraver::cfg::TimeUnit;
use prvscope_paraver::histogram::TOTALS;
use prvscope_paraver::number::fixed;

use super::grid::{At, Grid, Head};
use super::{HistogramWindow, gradient, gradient_is_dark};

/// The height of a table row, its gap included.
pub const ROW: f32 = 22.0;
/// The header row's height: two lines of a column's name.
pub const HEADER: f32 = 36.0;
/// The gap between two cells.
const GAP: f32 = 2.0;
/// The row labels' column at most: a longer label is cut, whole on hover.
const MAX_LABEL: f32 = 260.0;
/// A column at least.
const MIN_CELL: f32 = 48.0;
/// A header widens its column up to this; a longer one wraps on two lines, whole on hover.
const MAX_HEADER: f32 = 110.0;
/// Room for the sort mark in a header.
const SORT_MARK: f32 = 14.0;

/// The widths of a window's table, in points: they only grow.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Widths {
    pub cell: f32,
    pub label: f32,
}

/// What a click on the table asked for.
#[derive(Debug, Default)]
pub(super) struct Clicks {
    /// A cell: (row, column).
    pub cell: Option<(usize, usize)>,
    /// A column's header: sort by it.
    pub column: Option<usize>,
    /// A row's label: plot it.
    pub row: Option<usize>,
    /// Transposed, an object's header: sort the values by it.
    pub sort_row: Option<usize>,
    /// What a cell's context menu asked for.
    pub action: Option<super::export::CellAction>,
    /// Colour mode: the cell right-clicked (its menu's).
    pub menu_cell: Option<(usize, usize)>,
}

/// The unit of a statistic's cells, as Paraver computes them: the control window's time unit
/// for times, `%` for shares, bytes for message sizes; none for counts and for the values of
/// a window (what they measure is the window's, which the cfg does not say).
pub fn unit(statistic: &str, control: TimeUnit) -> Option<&'static str> {
    match statistic {
        "Time" | "Average Burst Time" | "Stdev Burst Time" => Some(time_unit(control)),
        s if s.starts_with('%') => Some("%"),
        s if s.to_ascii_lowercase().contains("bytes") => Some("bytes"),
        _ => None,
    }
}

/// A window time unit's symbol.
pub fn time_unit(u: TimeUnit) -> &'static str {
    match u {
        TimeUnit::Nanoseconds => "ns",
        TimeUnit::Microseconds => "µs",
        TimeUnit::Milliseconds => "ms",
        TimeUnit::Seconds => "s",
        TimeUnit::Minutes => "min",
        TimeUnit::Hours => "h",
        TimeUnit::Days => "d",
    }
}

/// The items (rows or columns) of pitch `step` seen between `from` and `to` (content
/// coordinates), of `n`.
fn seen(from: f32, to: f32, step: f32, n: usize) -> Range<usize> {
    let first = ((from / step).floor().max(0.0) as usize).min(n);
    let last = ((to / step).ceil().max(0.0) as usize).min(n);
    first..last.max(first)
}

impl HistogramWindow {
    /// Widens the table's columns for the analysis shown (never narrows them): a column fits
    /// the longest number of any plane (digits as wide as the widest) and every header with
    /// its sort mark up to [`MAX_HEADER`]; the labels fit the longest, up to [`MAX_LABEL`].
    fn measure(&mut self, ui: &Ui) {
        let h = &self.analysis.histogram;
        let font = TextStyle::Button.resolve(ui.style());
        let width = |s: String| {
            ui.painter()
                .layout_no_wrap(s, font.clone(), Color32::WHITE)
                .size()
                .x
        };
        // The longest text is the largest or the most negative number's.
        let (lo, hi) = h
            .planes
            .iter()
            .flat_map(|p| {
                p.cells
                    .iter()
                    .flatten()
                    .flatten()
                    .copied()
                    .chain(p.totals.iter().flatten().copied())
            })
            .filter(|v| v.is_finite())
            .fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
        let digits = |v: f64| -> String {
            fixed(v, 2)
                .chars()
                .map(|c| if c.is_ascii_digit() { '0' } else { c })
                .collect()
        };
        let mut cell = width(digits(lo)).max(width(digits(hi)));
        // Transposed, the row labels and the totals head the columns and the columns' names
        // label the rows.
        let (heads, labels): (Vec<&str>, Vec<&str>) = if self.look.transposed {
            (
                h.row_labels
                    .iter()
                    .map(String::as_str)
                    .chain(TOTALS)
                    .collect(),
                h.planes
                    .iter()
                    .flat_map(|p| p.columns.iter().map(String::as_str))
                    .collect(),
            )
        } else {
            (
                h.planes
                    .iter()
                    .flat_map(|p| p.columns.iter().map(String::as_str))
                    .collect(),
                h.row_labels
                    .iter()
                    .map(String::as_str)
                    .chain(TOTALS)
                    .collect(),
            )
        };
        for c in heads {
            cell = cell.max((width(c.to_owned()) + SORT_MARK).min(MAX_HEADER));
        }
        let label = labels
            .into_iter()
            .map(|l| width(l.to_owned()))
            .fold(0.0f32, f32::max);
        let pad = 2.0 * ui.spacing().button_padding.x + GAP + 2.0;
        self.widths.cell = self.widths.cell.max((cell + pad).max(MIN_CELL));
        self.widths.label = self.widths.label.max((label + pad).min(MAX_LABEL));
        self.measured = true;
    }

    /// The column the rows are sorted by, and whether largest first.
    pub fn sorted_by(&self) -> Option<(usize, bool)> {
        self.sort
    }

    /// Scrolls the cells so that display row `row` and data column `column` (its display
    /// column when transposed) are at the top left (the next time the table is drawn).
    pub fn scroll_cells_to(&mut self, row: usize, column: usize) {
        self.scroll_to = Some((row, column));
    }

    /// Draws the table of the plane shown in `height` points of `ui`: its display rows and
    /// columns (`grid`: the rows sorted, empty ones hidden, maybe transposed, the totals
    /// after the objects); cells on the gradient from `lo` to `hi`.
    pub(super) fn table(
        &mut self,
        ui: &mut Ui,
        height: f32,
        (lo, hi): (f64, f64),
        grid: &Grid,
    ) -> Clicks {
        if !self.measured {
            self.measure(ui);
        }
        let Widths {
            cell: cw,
            label: lw,
        } = self.widths;
        let h = &self.analysis.histogram;
        let plane = &h.planes[self.plane];
        let (n_rows, n_cols) = grid.size();
        let (outer, _) = ui.allocate_exact_size(vec2(ui.available_width(), height), Sense::hover());
        let top = outer.top() + HEADER;
        let corner = Rect::from_min_max(outer.min, pos2(outer.left() + lw, top));
        let header =
            Rect::from_min_max(pos2(corner.right(), outer.top()), pos2(outer.right(), top));
        let labels = Rect::from_min_max(
            pos2(outer.left(), top),
            pos2(corner.right(), outer.bottom()),
        );
        let body = Rect::from_min_max(pos2(corner.right(), top), outer.max);
        let mut clicks = Clicks::default();

        // The cells, scrolled; only those in view are made.
        let mut area = egui::ScrollArea::both()
            .id_salt(("histogram-cells", self.id))
            .auto_shrink([false, false]);
        if let Some((i, c)) = self.scroll_to.take() {
            let j = grid.display_column(c);
            area = area.scroll_offset(vec2(j as f32 * cw, i as f32 * ROW));
        }
        let resource = self.threads.first().is_some_and(Range::is_empty);
        let selected = self.selected;
        let mut body_ui = ui.new_child(UiBuilder::new().max_rect(body));
        let out = area.show_viewport(&mut body_ui, |ui, view| {
            ui.set_min_size(vec2(n_cols as f32 * cw, n_rows as f32 * ROW));
            let origin = ui.min_rect().min;
            let cols = seen(view.min.x, view.max.x, cw, n_cols);
            for i in seen(view.min.y, view.max.y, ROW, n_rows) {
                let top = origin.y + i as f32 * ROW;
                for j in cols.clone() {
                    let rect = Rect::from_min_size(
                        pos2(origin.x + j as f32 * cw, top),
                        vec2(cw - GAP, ROW - GAP),
                    );
                    match grid.at(i, j) {
                        // A total with no value (the Avg/Max of a column whose cells are
                        // all empty or 0, where paramedir's text writes `-nan`) is blank.
                        Some(At::Total(c, k)) => {
                            if let Some(t) = plane.totals.get(c)
                                && !t[k].is_nan()
                            {
                                ui.put(rect, egui::Label::new(fixed(t[k], 2)));
                            }
                        }
                        Some(At::Cell(r, c)) => {
                            // An empty cell is blank, as in Paraver (paramedir's text writes
                            // 0.00).
                            let Some(v) = plane.cells[r].get(c).copied().flatten() else {
                                continue;
                            };
                            let ink = if gradient_is_dark(v, lo, hi) {
                                Color32::WHITE
                            } else {
                                Color32::BLACK
                            };
                            let button = Button::new(RichText::new(fixed(v, 2)).color(ink))
                                .fill(gradient(v, lo, hi))
                                .selected(selected == Some((r, c)));
                            let resp = ui.put(rect, button).on_hover_ui(|ui| {
                                ui.label(format!("{}, {}", h.row_labels[r], plane.columns[c]));
                                if resource {
                                    ui.label(
                                        "Rows of CPUs, nodes or the system: a click outlines \
                                         nothing on the threads' timeline",
                                    );
                                }
                            });
                            if resp.clicked() {
                                clicks.cell = Some((r, c));
                            }
                            resp.context_menu(|ui| {
                                Self::cell_menu(ui, Some(v), (r, c), h, &mut clicks.action);
                            });
                        }
                        None => {}
                    }
                }
            }
            origin
        });
        // Where the cells were drawn (the labels and headers follow them exactly).
        let offset = out.inner_rect.min - out.inner;
        let inner = out.inner_rect;

        // The header row, in step with the cells' columns.
        let mut head = ui.new_child(UiBuilder::new().max_rect(header));
        head.set_clip_rect(header.intersect(ui.clip_rect()));
        for j in seen(offset.x, offset.x + inner.width(), cw, n_cols) {
            let rect = Rect::from_min_size(
                pos2(inner.left() + j as f32 * cw - offset.x, header.top()),
                vec2(cw - GAP, HEADER - GAP),
            );
            let (name, order, sorts) = match grid.col_head(j) {
                Some(Head::Column(c)) => (
                    plane.columns[c].as_str(),
                    self.sort.filter(|s| s.0 == c).map(|s| s.1),
                    Sorts::Rows(c),
                ),
                Some(Head::Row(r)) => (
                    h.row_labels[r].as_str(),
                    self.sort_t.filter(|s| s.0 == r).map(|s| s.1),
                    Sorts::Columns(r),
                ),
                Some(Head::Total(k)) => (TOTALS[k], None, Sorts::Nothing),
                None => continue,
            };
            let text_rect = rect.with_max_x(rect.right() - SORT_MARK);
            let what = if grid.transposed { "values" } else { "rows" };
            let hover = match (order, sorts) {
                (_, Sorts::Nothing) => name.to_owned(),
                (Some(true), _) => {
                    format!("{name}: {what} sorted largest first (click: smallest first)")
                }
                (Some(false), _) => {
                    format!("{name}: {what} sorted smallest first (click: largest first)")
                }
                (None, _) => format!("{name}: sort the {what} by this"),
            };
            // The name wrapped on the header's two lines (whole on hover); the mark beside
            // it, in the room kept for it.
            let button = Button::new(RichText::new(name).strong())
                .wrap()
                .selected(order.is_some());
            let resp = head.put(text_rect, button);
            if let Some(desc) = order {
                // A triangle: the fonts may lack the arrows.
                let m = pos2(rect.right() - SORT_MARK / 2.0 - 2.0, rect.center().y);
                let (tip, base) = if desc { (4.0, -4.0) } else { (-4.0, 4.0) };
                let ink = head.visuals().strong_text_color();
                head.painter().add(egui::Shape::convex_polygon(
                    vec![
                        pos2(m.x - 4.0, m.y + base),
                        pos2(m.x + 4.0, m.y + base),
                        pos2(m.x, m.y + tip),
                    ],
                    ink,
                    egui::Stroke::NONE,
                ));
            }
            if resp.on_hover_text(hover).clicked() {
                match sorts {
                    Sorts::Rows(c) => clicks.column = Some(c),
                    Sorts::Columns(r) => clicks.sort_row = Some(r),
                    Sorts::Nothing => {}
                }
            }
        }

        // The row labels, in step with the cells' rows.
        let mut side = ui.new_child(UiBuilder::new().max_rect(labels));
        side.set_clip_rect(labels.intersect(ui.clip_rect()));
        for i in seen(offset.y, offset.y + inner.height(), ROW, n_rows) {
            let rect = Rect::from_min_size(
                pos2(labels.left(), inner.top() + i as f32 * ROW - offset.y),
                vec2(lw - GAP, ROW - GAP),
            );
            match grid.row_head(i) {
                Some(Head::Row(r)) => {
                    let label = &h.row_labels[r];
                    let button =
                        Button::selectable(self.plot_row == Some(r), label.as_str()).truncate();
                    if side
                        .put(rect, button)
                        .on_hover_text(format!("{label}: plot this row"))
                        .clicked()
                    {
                        clicks.row = Some(r);
                    }
                }
                Some(Head::Column(c)) => {
                    let name = &plane.columns[c];
                    side.put(rect, egui::Label::new(name.as_str()).truncate())
                        .on_hover_text(name.as_str());
                }
                Some(Head::Total(k)) => {
                    side.put(rect, egui::Label::new(RichText::new(TOTALS[k]).italics()));
                }
                None => {}
            }
        }

        // The corner: what the cells are, in which unit.
        let unit = unit(&h.statistic, self.analysis.control.info.units);
        let what = match unit {
            Some(u) => format!("{} ({u})", h.statistic),
            None => h.statistic.clone(),
        };
        let mut corner_ui = ui.new_child(UiBuilder::new().max_rect(corner));
        corner_ui.put(
            corner.shrink2(vec2(GAP, 0.0)),
            egui::Label::new(RichText::new(what).weak()).truncate(),
        );
        clicks
    }
}

impl HistogramWindow {
    /// Draws the plane in colour mode in `height` points of `ui`: a block of
    /// [`Look::cell_size`](super::Look::cell_size) points per cell on the gradient from `lo` to `hi`
    /// (drawn as images, a texel per cell: a table of 1,000 rows by 200 columns costs a few
    /// quads), the row, the column and the number on hover; labels and headers where the
    /// blocks leave room for them.
    pub(super) fn colour_table(
        &mut self,
        ui: &mut Ui,
        height: f32,
        range: (f64, f64),
        grid: &Grid,
    ) -> Clicks {
        if !self.measured {
            self.measure(ui);
        }
        let px = self.look.cell_size;
        let h = &self.analysis.histogram;
        let plane = &h.planes[self.plane];
        let (n_rows, n_cols) = grid.size();
        let key = ImagesKey {
            generation: self.generation,
            plane: self.plane,
            grid: grid.clone(),
            range: (range.0.to_bits(), range.1.to_bits()),
        };
        if self.images.as_ref().is_none_or(|(k, _)| *k != key) {
            let empty = ui.visuals().extreme_bg_color;
            let tiles = (0..n_rows)
                .step_by(TILE_ROWS)
                .map(|first| {
                    let rows = first..(first + TILE_ROWS).min(n_rows);
                    let image = grid.image(plane, rows.clone(), range, empty);
                    let tex = ui.ctx().load_texture(
                        format!("histogram-{}-{first}", self.id),
                        image,
                        egui::TextureOptions::NEAREST,
                    );
                    (rows, tex)
                })
                .collect();
            self.images = Some((key, tiles));
        }
        let lw = if px >= LABELLED {
            self.widths.label
        } else {
            0.0
        };
        let head_h = if px >= LABELLED { HEADER } else { 0.0 };
        let (outer, _) = ui.allocate_exact_size(vec2(ui.available_width(), height), Sense::hover());
        let top = outer.top() + head_h;
        let header = Rect::from_min_max(
            pos2(outer.left() + lw, outer.top()),
            pos2(outer.right(), top),
        );
        let labels = Rect::from_min_max(
            pos2(outer.left(), top),
            pos2(outer.left() + lw, outer.bottom()),
        );
        let body = Rect::from_min_max(pos2(outer.left() + lw, top), outer.max);
        let mut clicks = Clicks::default();
        let mut area = egui::ScrollArea::both()
            .id_salt(("histogram-colours", self.id))
            .auto_shrink([false, false]);
        if let Some((i, c)) = self.scroll_to.take() {
            let j = grid.display_column(c);
            area = area.scroll_offset(vec2(j as f32 * px, i as f32 * px));
        }
        let selected = self.selected.and_then(|(r, c)| grid.position(r, c));
        let menu_cell = self.menu_cell;
        let tiles = self.images.as_ref().map_or(&[][..], |(_, t)| t.as_slice());
        let mut body_ui = ui.new_child(UiBuilder::new().max_rect(body));
        let out = area.show_viewport(&mut body_ui, |ui, _view| {
            let size = vec2(n_cols as f32 * px, n_rows as f32 * px);
            let (content, resp) = ui.allocate_exact_size(size, Sense::click());
            let uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
            for (rows, tex) in tiles {
                let rect = Rect::from_min_size(
                    pos2(content.left(), content.top() + rows.start as f32 * px),
                    vec2(size.x, rows.len() as f32 * px),
                );
                ui.painter().image(tex.id(), rect, uv, Color32::WHITE);
            }
            let cell_at = |p: egui::Pos2| {
                let (i, j) = (
                    ((p.y - content.top()) / px).floor(),
                    ((p.x - content.left()) / px).floor(),
                );
                (i >= 0.0 && j >= 0.0)
                    .then(|| grid.at(i as usize, j as usize))
                    .flatten()
            };
            if let Some((i, j)) = selected {
                let rect = Rect::from_min_size(
                    pos2(
                        content.left() + j as f32 * px,
                        content.top() + i as f32 * px,
                    ),
                    vec2(px, px),
                );
                ui.painter().rect_stroke(
                    rect.expand(1.0),
                    0.0,
                    egui::Stroke::new(2.0, Color32::from_rgb(255, 140, 0)),
                    egui::StrokeKind::Outside,
                );
            }
            if resp.secondary_clicked()
                && let Some(At::Cell(r, c)) = resp.interact_pointer_pos().and_then(cell_at)
            {
                clicks.menu_cell = Some((r, c));
            }
            if let Some((r, c)) = clicks.menu_cell.or(menu_cell) {
                let v = plane.cells[r].get(c).copied().flatten();
                resp.context_menu(|ui| {
                    Self::cell_menu(ui, v, (r, c), h, &mut clicks.action);
                });
            }
            if let Some(At::Cell(r, c)) = resp.hover_pos().and_then(cell_at) {
                let v = plane.cells[r].get(c).copied().flatten();
                resp.clone().on_hover_ui_at_pointer(|ui| {
                    ui.label(format!("{}, {}", h.row_labels[r], plane.columns[c]));
                    ui.label(v.map_or_else(|| "no value".to_owned(), |v| fixed(v, 2)));
                });
                if resp.clicked() && v.is_some() {
                    clicks.cell = Some((r, c));
                }
            }
            content.min
        });
        // Where the cells were drawn (the labels and headers follow them exactly).
        let offset = out.inner_rect.min - out.inner;
        let inner = out.inner_rect;
        if px >= LABELLED {
            let mut side = ui.new_child(UiBuilder::new().max_rect(labels));
            side.set_clip_rect(labels.intersect(ui.clip_rect()));
            for i in seen(offset.y, offset.y + inner.height(), px, n_rows) {
                let rect = Rect::from_min_size(
                    pos2(labels.left(), inner.top() + i as f32 * px - offset.y),
                    vec2(lw - GAP, px),
                );
                let text = match grid.row_head(i) {
                    Some(Head::Row(r)) => h.row_labels[r].as_str(),
                    Some(Head::Column(c)) => plane.columns[c].as_str(),
                    _ => continue,
                };
                side.put(
                    rect,
                    egui::Label::new(RichText::new(text).small()).truncate(),
                );
            }
            let mut head = ui.new_child(UiBuilder::new().max_rect(header));
            head.set_clip_rect(header.intersect(ui.clip_rect()));
            for j in seen(offset.x, offset.x + inner.width(), px, n_cols) {
                let rect = Rect::from_min_size(
                    pos2(inner.left() + j as f32 * px - offset.x, header.top()),
                    vec2(px, HEADER - GAP),
                );
                let text = match grid.col_head(j) {
                    Some(Head::Row(r)) => h.row_labels[r].as_str(),
                    Some(Head::Column(c)) => plane.columns[c].as_str(),
                    _ => continue,
                };
                head.put(
                    rect,
                    egui::Label::new(RichText::new(text).small()).truncate(),
                )
                .on_hover_text(text);
            }
        }
        clicks
    }
}

/// The rows of one image of colour mode (textures stay far under every GPU's limit).
const TILE_ROWS: usize = 2048;
/// Colour-mode blocks this large leave room for the labels and headers.
pub const LABELLED: f32 = 12.0;

/// One of colour mode's images: its display rows and its texture.
pub(super) type Tile = (Range<usize>, egui::TextureHandle);

/// What colour mode's images were made of: rebuilt when it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ImagesKey {
    pub generation: u64,
    pub plane: usize,
    pub grid: Grid,
    pub range: (u64, u64),
}

/// What a click on a header sorts.
#[derive(Debug, Clone, Copy)]
enum Sorts {
    /// The rows, by a data column.
    Rows(usize),
    /// Transposed: the values (display rows), by a data row.
    Columns(usize),
    Nothing,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statistic_is_headed_by_the_unit_paraver_computes_it_in() {
        let us = TimeUnit::Microseconds;
        assert_eq!(unit("Time", us), Some("µs"));
        assert_eq!(
            unit("Average Burst Time", TimeUnit::Nanoseconds),
            Some("ns")
        );
        assert_eq!(unit("Stdev Burst Time", TimeUnit::Milliseconds), Some("ms"));
        for share in ["% Time", "% Time Not Zero", "% Window Time", "% # Bursts"] {
            assert_eq!(unit(share, us), Some("%"), "{share}");
        }
        assert_eq!(unit("Bytes sent", us), Some("bytes"));
        assert_eq!(unit("Average bytes received", us), Some("bytes"));
        for none in ["# Bursts", "#Sends", "Average value", "Maximum", "Integral"] {
            assert_eq!(unit(none, us), None, "{none}");
        }
    }

    #[test]
    fn only_the_items_in_view_are_made() {
        assert_eq!(seen(0.0, 100.0, 22.0, 30), 0..5);
        assert_eq!(seen(440.0, 660.0, 22.0, 30), 20..30);
        assert_eq!(seen(650.0, 900.0, 22.0, 30), 29..30);
        assert_eq!(seen(0.0, 100.0, 22.0, 0), 0..0);
    }
}

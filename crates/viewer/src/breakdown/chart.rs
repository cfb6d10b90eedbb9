//! The bar charts of a breakdown window: time per thread (or group) stacked by state, and
//! time per state. Bars are horizontal, so that the thread and state names read along the
//! vertical axis; the first thread is at the top. Hovering a bar's row shows its numbers in a
//! tooltip (the hovered state in strong text).

use egui::{Color32, RichText, Sense, Stroke, Ui, vec2};
use egui_plot::{AxisHints, Bar, BarChart, GridMark, Plot, PlotResponse};

use super::Facts;
use crate::frame::format_in_window;
use prvscope_analysis::breakdown::Breakdown;

/// Height of one bar's row, in points: room for its label on the vertical axis.
pub(super) const ROW_H: f32 = 20.0;
/// Height of a plot beside its rows: the horizontal axis, its label, margins.
pub(super) const PLOT_EXTRA: f32 = 64.0;
/// Thickness of a bar, in rows.
const BAR_WIDTH: f64 = 0.75;

/// A unit to plot times in: (name, nanoseconds per unit), from the largest value.
fn unit_for(max_ns: f64) -> (&'static str, f64) {
    if max_ns >= 1e9 {
        ("s", 1e9)
    } else if max_ns >= 1e6 {
        ("ms", 1e6)
    } else if max_ns >= 1e3 {
        ("us", 1e3)
    } else {
        ("ns", 1.0)
    }
}

/// One hoverable row of a chart: its title, then its parts as (start, end along the value
/// axis, text).
struct HoverRow {
    title: String,
    parts: Vec<(f64, f64, String)>,
}

/// A plot of labelled bars (the first at the top), values along the horizontal axis.
fn plot<'a>(id: (&'static str, u64), labels: Vec<String>, x_label: String) -> Plot<'a> {
    let n = labels.len();
    let height = (n as f32 * ROW_H + PLOT_EXTRA).max(150.0);
    let y_axis = AxisHints::new_y()
        .min_thickness(110.0)
        // One label per bar, all shown at the bars' spacing.
        .label_spacing(12.0..=16.0)
        .formatter(move |mark, _| {
            let i = mark.value.round();
            if (mark.value - i).abs() > 1e-6 || i < 0.0 {
                return String::new();
            }
            // The first label is the top bar.
            n.checked_sub(1 + i as usize)
                .and_then(|k| labels.get(k))
                .cloned()
                .unwrap_or_default()
        });
    Plot::new(id)
        .height(height)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        .show_crosshair(false)
        .include_x(0.0)
        .include_y(-0.6)
        .include_y(n as f64 - 0.4)
        .x_axis_label(x_label)
        .custom_y_axes(vec![y_axis])
        .y_grid_spacer(move |_| {
            (0..n)
                .map(|i| GridMark {
                    value: i as f64,
                    step_size: 1.0,
                })
                .collect()
        })
        .label_formatter(|_| None)
}

/// The tooltip of the row under the pointer, if any.
fn hover(resp: &PlotResponse<()>, rows: &[HoverRow]) {
    let Some(pos) = resp.response.hover_pos() else {
        return;
    };
    let at = resp.transform.value_from_position(pos);
    let i = at.y.round();
    let n = rows.len();
    if (at.y - i).abs() > BAR_WIDTH / 2.0 || i < 0.0 {
        return;
    }
    let Some(row) = n.checked_sub(1 + i as usize).and_then(|k| rows.get(k)) else {
        return;
    };
    resp.response.clone().on_hover_ui_at_pointer(|ui| {
        ui.label(RichText::new(&row.title).strong());
        for (lo, hi, text) in &row.parts {
            if (*lo..*hi).contains(&at.x) {
                ui.label(RichText::new(format!("> {text}")).strong());
            } else {
                ui.label(text);
            }
        }
    });
}

/// The colour key: a swatch and the name of each state of the breakdown.
fn key(ui: &mut Ui, b: &Breakdown, facts: &Facts) {
    ui.horizontal_wrapped(|ui| {
        for c in b.categories() {
            let (r, _) = ui.allocate_exact_size(vec2(12.0, 12.0), Sense::hover());
            ui.painter().rect_filled(r, 2.0, facts.category_color(c));
            ui.label(facts.category_label(c));
            ui.add_space(6.0);
        }
    });
}

/// A slightly darker edge for a bar of colour `c`, so that stacked parts stay apart.
fn edge(c: Color32) -> Stroke {
    Stroke::new(0.5, c.gamma_multiply(0.6))
}

/// Time per thread (or per task or node), each bar stacked by state.
pub(super) fn threads(
    ui: &mut Ui,
    (id, subject): (u64, &str),
    b: &Breakdown,
    facts: &Facts,
    percent: bool,
    page: usize,
) {
    let all = facts.bars(b);
    // One page of bars when the threads are too many to be drawn at once.
    let rows: Vec<_> = if facts.pages() > 1 {
        all.into_iter()
            .skip(page * super::MAX_BARS)
            .take(super::MAX_BARS)
            .collect()
    } else {
        all
    };
    let n = rows.len();
    let scale = facts.ns_per_tick.max(1) as f64;
    let max_ns = rows
        .iter()
        .map(|r| r.ticks.values().sum::<u64>() as f64 * scale)
        .fold(0.0, f64::max);
    let (unit, per_unit) = unit_for(max_ns);
    let what = match &facts.groups {
        Some(g) => format!("per {} ({} {}s)", g.by, n, g.by),
        None if facts.pages() > 1 => {
            format!("per thread ({n} of {} threads)", facts.threads.len())
        }
        None => format!("per thread ({n} threads)"),
    };
    let x_label = if percent {
        format!("% of the window {what}")
    } else {
        format!("time in {subject} ({unit}) {what}")
    };
    let value_of = |ticks: u64, threads: usize| {
        if percent {
            b.percent_of_window(ticks, threads)
        } else {
            ticks as f64 * scale / per_unit
        }
    };
    let mut hover_rows: Vec<HoverRow> = rows
        .iter()
        .map(|r| {
            let total: u64 = r.ticks.values().sum();
            let of = if r.threads > 1 {
                format!(" of its {} threads", r.threads)
            } else {
                String::new()
            };
            HoverRow {
                title: format!(
                    "{}: {} ({:.2}% of the window{of})",
                    r.label,
                    format_in_window(total, b.span(), facts.ns_per_tick),
                    b.percent_of_window(total, r.threads)
                ),
                parts: Vec::new(),
            }
        })
        .collect();
    let mut charts: Vec<BarChart> = Vec::new();
    for c in b.categories() {
        let color = facts.category_color(c);
        let state = facts.category_label(c);
        let bars: Vec<Bar> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let t = r.ticks.get(&c).copied().unwrap_or(0);
                Bar::new((n - 1 - i) as f64, value_of(t, r.threads))
                    .width(BAR_WIDTH)
                    .fill(color)
                    .stroke(edge(color))
            })
            .collect();
        let others: Vec<&BarChart> = charts.iter().collect();
        let chart = BarChart::new(state.clone(), bars)
            .horizontal()
            .color(color)
            .allow_hover(false)
            .stack_on(&others);
        for (r, h) in rows.iter().zip(&mut hover_rows) {
            let t = r.ticks.get(&c).copied().unwrap_or(0);
            if t == 0 {
                continue;
            }
            let lo = h.parts.last().map_or(0.0, |p| p.1);
            h.parts.push((
                lo,
                lo + value_of(t, r.threads),
                format!(
                    "{state}: {} ({:.2}%)",
                    format_in_window(t, b.span(), facts.ns_per_tick),
                    b.percent_of_window(t, r.threads)
                ),
            ));
        }
        charts.push(chart);
    }
    let labels = rows.into_iter().map(|r| r.label).collect();
    key(ui, b, facts);
    egui::ScrollArea::vertical()
        .id_salt(("breakdown-threads", id))
        .show(ui, |ui| {
            let resp = plot(("breakdown-threads-plot", id), labels, x_label).show(ui, |p| {
                for c in charts {
                    p.bar_chart(c);
                }
            });
            hover(&resp, &hover_rows);
        });
}

/// Time per state, each bar in its state's colour.
pub(super) fn states(
    ui: &mut Ui,
    (id, subject): (u64, &str),
    b: &Breakdown,
    facts: &Facts,
    percent: bool,
) {
    let categories = b.categories();
    let n = categories.len();
    let scale = facts.ns_per_tick.max(1) as f64;
    let max_ns = b.per_category.values().copied().max().unwrap_or(0) as f64 * scale;
    let (unit, per_unit) = unit_for(max_ns);
    let x_label = if percent {
        format!("% of the time in {subject}")
    } else {
        format!("time in {subject} ({unit})")
    };
    let threads = facts.threads.len();
    let mut hover_rows = Vec::new();
    let charts: Vec<BarChart> = categories
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let color = facts.category_color(c);
            let state = facts.category_label(c);
            let t = b.per_category.get(&c).copied().unwrap_or(0);
            let of_scope = 100.0 * t as f64 / b.total.max(1) as f64;
            let value = if percent {
                of_scope
            } else {
                t as f64 * scale / per_unit
            };
            hover_rows.push(HoverRow {
                title: format!(
                    "{state}: {}",
                    format_in_window(t, b.span(), facts.ns_per_tick)
                ),
                parts: vec![(
                    0.0,
                    value,
                    format!(
                        "{of_scope:.2}% of the scope's time, {:.2}% of the threads' time",
                        b.percent_of_window(t, threads)
                    ),
                )],
            });
            let bar = Bar::new((n - 1 - i) as f64, value)
                .width(BAR_WIDTH)
                .fill(color)
                .stroke(edge(color));
            BarChart::new(state, vec![bar])
                .horizontal()
                .color(color)
                .allow_hover(false)
        })
        .collect();
    let labels = categories
        .iter()
        .map(|&c| facts.category_label(c))
        .collect();
    key(ui, b, facts);
    let resp = plot(("breakdown-states-plot", id), labels, x_label).show(ui, |p| {
        for c in charts {
            p.bar_chart(c);
        }
    });
    hover(&resp, &hover_rows);
}

//! Building one frame of the timeline: per-pixel summaries of the visible rows turned into
//! meshes of coloured runs (one per row), plus event flags, communication lines and the legend's
//! counts. Nothing here needs a GPU or an egui context, so the benches time exactly what the
//! viewer does.

use std::ops::Range;
use std::sync::Arc;

use epaint::Mesh;
use epaint::{Rect, pos2, vec2};
use rayon::prelude::*;

use super::rows::{RowItem, RowKind};
use super::theme;
use super::view::{ColorMode, Coloring, Scale};

mod comms;
mod raster;
pub use comms::*;
use prvscope_store::signal::ViewSignals;
use prvscope_store::summary::{DrawMode, Grid, Pixel};
pub use raster::{RASTER_QUADS, rasterize};

/// At most about this many communication lines are drawn; a window with more messages
/// draws them as bundles (see [`prvscope_store::comm_index`]).
pub const MAX_BUNDLES: usize = 20_000;

/// The visible time range `[start, start + span)`, in ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeWindow {
    pub start: u64,
    pub span: u64,
}

/// The narrowest window, in ticks.
pub const MIN_SPAN: u64 = 10;

impl TimeWindow {
    /// The whole trace.
    pub fn all(end_time: u64) -> Self {
        TimeWindow {
            start: 0,
            span: end_time.max(MIN_SPAN),
        }
    }

    /// The first tick after the window.
    pub fn end(&self) -> u64 {
        self.start.saturating_add(self.span)
    }

    /// The window `[start, end)` (empty when `end <= start`).
    pub fn from_bounds(start: u64, end: u64) -> Self {
        TimeWindow {
            start,
            span: end.saturating_sub(start),
        }
    }

    /// Its first tick and the first tick after it, as the analyses take a time range.
    pub fn bounds(&self) -> (u64, u64) {
        (self.start, self.end())
    }

    /// The x of tick `t` in `rect`.
    pub fn x_from_time(&self, t: f64, rect: Rect) -> f32 {
        rect.left() + ((t - self.start as f64) * f64::from(rect.width()) / self.span as f64) as f32
    }

    /// The tick at `x` in `rect` (may be outside the window).
    pub fn time_from_x(&self, x: f32, rect: Rect) -> f64 {
        self.start as f64
            + f64::from(x - rect.left()) * self.span as f64 / f64::from(rect.width().max(1.0))
    }

    /// Zooms by `factor` (< 1 zooms in) keeping tick `anchor` at the same place, within
    /// `[0, limit]`.
    #[must_use]
    pub fn zoomed(&self, factor: f64, anchor: f64, limit: u64) -> Self {
        let span =
            ((self.span as f64 * factor).round() as u64).clamp(MIN_SPAN, limit.max(MIN_SPAN));
        let frac = ((anchor - self.start as f64) / self.span as f64).clamp(0.0, 1.0);
        let start = (anchor - frac * span as f64).round().max(0.0) as u64;
        TimeWindow { start, span }.clamped(limit)
    }

    /// Moves by `dt` ticks, within `[0, limit]`.
    #[must_use]
    pub fn panned(&self, dt: f64, limit: u64) -> Self {
        let start = (self.start as f64 + dt).round().max(0.0) as u64;
        TimeWindow {
            start,
            span: self.span,
        }
        .clamped(limit)
    }

    /// The window from `a` to `b` (either order), at least [`MIN_SPAN`] wide.
    pub fn between(a: f64, b: f64, limit: u64) -> Self {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let start = lo.round().max(0.0) as u64;
        let span = ((hi - lo).round() as u64).max(MIN_SPAN);
        TimeWindow { start, span }.clamped(limit)
    }

    fn clamped(self, limit: u64) -> Self {
        let limit = limit.max(MIN_SPAN);
        let span = self.span.min(limit);
        TimeWindow {
            start: self.start.min(limit - span),
            span,
        }
    }
}

/// What to build.
pub struct FrameRequest<'a> {
    pub view: &'a ViewSignals,
    pub coloring: &'a Coloring,
    pub rows: &'a [RowItem],
    /// Indices into `rows` that are on screen.
    pub visible: Range<usize>,
    /// The timeline area; visible row `i` starts at `rect.top() + i * row_height`.
    pub rect: Rect,
    pub row_height: f32,
    pub window: TimeWindow,
    pub flags: bool,
    /// What a pixel shows when several values share it.
    pub mode: DrawMode,
    /// The span of a gradient or function line.
    pub scale: Scale,
}

/// A built frame.
#[derive(Clone, Default)]
pub struct Frame {
    /// Coloured runs (and flags), one mesh per visible row (built in parallel, never joined).
    pub meshes: Vec<Arc<Mesh>>,
    /// Drawn values and how many pixel columns show each, sorted by value.
    pub legend: Vec<(u64, u32)>,
    /// Quads in the mesh.
    pub quads: usize,
    /// The scale a gradient or function line was drawn with (raw values), `None` for code
    /// colours.
    pub scale: Option<(u64, u64)>,
}

/// Builds the frame: rows are summarised in parallel, then their meshes are joined.
pub fn build(req: &FrameRequest<'_>) -> Frame {
    let width = req.rect.width().round().max(1.0) as u32;
    let grid = Grid {
        span: req.window.span,
        width,
    };
    let first = grid.column_of(req.window.start);
    let edges = grid.edges(first, width as usize + 2);
    let xs: Vec<f32> = edges
        .iter()
        .map(|&e| req.window.x_from_time(e as f64, req.rect))
        .collect();
    let gap = if req.row_height >= 6.0 { 1.0 } else { 0.0 };
    let sentinel = req.view.sentinel();
    let rows = req.rows.get(req.visible.clone()).unwrap_or_default();
    let pixels: Vec<Vec<Pixel>> = rows
        .par_iter()
        .map(|item| row_pixels(req.view, item, &edges, sentinel, req.mode))
        .collect();
    // A gradient's scale fits what this window draws (the columns on screen), unless the
    // view says otherwise.
    let coloring = req.coloring.fitted(
        req.scale,
        pixels
            .iter()
            .flat_map(|row| row.iter().take(width as usize + 1).map(|p| p.value)),
    );
    let parts: Vec<(Mesh, Vec<(u64, u32)>)> = pixels
        .par_iter()
        .enumerate()
        .map(|(i, pixels)| {
            let top = req.rect.top() + i as f32 * req.row_height;
            let y = top..top + (req.row_height - gap).max(1.0);
            row_mesh(pixels, &xs, y, &coloring, req.flags)
        })
        .collect();
    let mut meshes = Vec::with_capacity(parts.len());
    let mut legend: Vec<(u64, u32)> = Vec::new();
    let mut quads = 0;
    for (m, counts) in parts {
        quads += m.indices.len() / 6;
        meshes.push(Arc::new(m));
        legend.extend(counts);
    }
    legend.sort_unstable_by_key(|e| e.0);
    legend.dedup_by(|next, kept| {
        if next.0 == kept.0 {
            kept.1 += next.1;
            true
        } else {
            false
        }
    });
    Frame {
        meshes,
        legend,
        quads,
        scale: (coloring.mode() != ColorMode::Code).then(|| coloring.range()),
    }
}

/// The pixels of one drawn row: its thread's, or a collapsed group's (its threads together,
/// in the same draw mode).
pub fn row_pixels(
    view: &ViewSignals,
    item: &RowItem,
    edges: &[u64],
    _sentinel: u64,
    mode: DrawMode,
) -> Vec<Pixel> {
    let mut out = Vec::with_capacity(edges.len());
    if let RowKind::Resource(ks) = &item.kind {
        view.summarize_resources(ks.clone(), edges, mode, &mut out);
    } else if item.threads.len() == 1 {
        view.summarize_row(item.threads.start, edges, mode, &mut out);
    } else {
        view.summarize_group(item.threads.clone(), edges, mode, &mut out);
    }
    out
}

/// Runs of equal colour become quads; returns the mesh and the pixel count per value.
fn row_mesh(
    pixels: &[Pixel],
    xs: &[f32],
    y: Range<f32>,
    coloring: &Coloring,
    flags: bool,
) -> (Mesh, Vec<(u64, u32)>) {
    let mut mesh = Mesh::default();
    // Room for a run every 4 pixels; zoomed-in rows have far fewer.
    mesh.reserve_vertices(pixels.len());
    mesh.reserve_triangles(pixels.len() / 2);
    let mut counts: Vec<(u64, u32)> = Vec::new();
    if coloring.mode() == ColorMode::FunctionLine {
        function_line(&mut mesh, &mut counts, pixels, xs, y.clone(), coloring);
        return (mesh, counts);
    }
    for (k, j, value) in runs(pixels) {
        if let Some(color) = coloring.color(value) {
            let (x0, x1) = (xs[k], xs[j]);
            mesh.add_colored_rect(Rect::from_x_y_ranges(x0..=x1, y.start..=y.end), color);
            count_pixels(&mut counts, value, j - k);
        }
    }
    if flags {
        let h = ((y.end - y.start) * 0.5).max(2.0);
        for (k, p) in pixels.iter().enumerate() {
            if p.changes > 0 {
                let x = xs[k].max(xs[0]);
                mesh.add_colored_rect(
                    Rect::from_min_size(pos2(x, y.start), vec2(1.0, h)),
                    theme::FLAG,
                );
            }
        }
    }
    (mesh, counts)
}

/// The runs of equal pixels of a row: (first column, end column, value).
fn runs(pixels: &[Pixel]) -> impl Iterator<Item = (usize, usize, u64)> + '_ {
    let mut k = 0;
    std::iter::from_fn(move || {
        let value = pixels.get(k)?.value;
        let start = k;
        k += 1;
        while pixels.get(k).is_some_and(|p| p.value == value) {
            k += 1;
        }
        Some((start, k, value))
    })
}

/// Adds `n` pixel columns showing `value` to a row's legend counts.
fn count_pixels(counts: &mut Vec<(u64, u32)>, value: u64, n: usize) {
    match counts.iter_mut().find(|c| c.0 == value) {
        Some(c) => c.1 += n as u32,
        None => counts.push((value, n as u32)),
    }
}

/// A row as Paraver's function line: a faint baseline at the row's bottom, and each run of
/// equal pixels a horizontal stroke at the height of its value
/// ([`Coloring::height`]: the smallest drawn value at the bottom, the largest at the top),
/// joined to the previous run by a vertical stroke; null pixels draw no line.
fn function_line(
    mesh: &mut Mesh,
    counts: &mut Vec<(u64, u32)>,
    pixels: &[Pixel],
    xs: &[f32],
    y: Range<f32>,
    coloring: &Coloring,
) {
    const STROKE: f32 = 1.5;
    let (x_first, x_last) = (xs[0], xs[pixels.len().min(xs.len() - 1)]);
    mesh.add_colored_rect(
        Rect::from_x_y_ranges(x_first..=x_last, (y.end - 1.0)..=y.end),
        theme::FUNCTION_BASELINE,
    );
    let span = (y.end - y.start - STROKE).max(0.0);
    let mut prev: Option<f32> = None;
    for (k, j, value) in runs(pixels) {
        if coloring.is_null(value) {
            prev = None;
        } else {
            let top = y.end - STROKE - coloring.height(value) * span;
            let (x0, x1) = (xs[k], xs[j]);
            mesh.add_colored_rect(
                Rect::from_x_y_ranges(x0..=x1.max(x0 + 1.0), top..=top + STROKE),
                theme::FUNCTION_LINE,
            );
            if let Some(p) = prev
                && (p - top).abs() > 0.5
            {
                mesh.add_colored_rect(
                    Rect::from_x_y_ranges(x0..=x0 + 1.0, p.min(top)..=p.max(top) + STROKE),
                    theme::FUNCTION_LINE,
                );
            }
            prev = Some(top);
            count_pixels(counts, value, j - k);
        }
    }
}

/// Ruler ticks: about one label per `min_px` pixels, at 1, 2 or 5 times a power of ten of
/// nanoseconds; each with its time in ticks and its label.
pub fn ruler_ticks(
    window: TimeWindow,
    ns_per_tick: u64,
    width: f32,
    min_px: f32,
) -> Vec<(f64, String)> {
    let ns_per_tick = ns_per_tick.max(1) as f64;
    let span_ns = window.span as f64 * ns_per_tick;
    let max_labels = (f64::from(width) / f64::from(min_px)).max(1.0);
    let mut step = 1.0_f64;
    'search: loop {
        for m in [1.0, 2.0, 5.0] {
            if span_ns / (step * m) <= max_labels {
                step *= m;
                break 'search;
            }
        }
        step *= 10.0;
    }
    let start_ns = window.start as f64 * ns_per_tick;
    let end_ns = window.end() as f64 * ns_per_tick;
    let mut t = (start_ns / step).ceil() * step;
    let mut out = Vec::new();
    while t <= end_ns && out.len() < 1000 {
        out.push((t / ns_per_tick, format_ns(t, step)));
        t += step;
    }
    out
}

/// The largest unit (and its size in ns) in which `ns` is at least 1.
fn unit_for(ns: f64) -> (&'static str, f64) {
    if ns >= 1e9 {
        ("s", 1e9)
    } else if ns >= 1e6 {
        ("ms", 1e6)
    } else if ns >= 1e3 {
        ("us", 1e3)
    } else {
        ("ns", 1.0)
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(v: u64) -> String {
    group_digits(&v.to_string())
}

/// A number written in decimal with separators in its integer part: `1234567.25` as
/// `1,234,567.25`.
fn group_digits(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int, frac) = rest
        .split_once('.')
        .map_or((rest, None), |(i, f)| (i, Some(f)));
    let mut out = String::with_capacity(s.len() + int.len() / 3);
    out.push_str(sign);
    for (k, ch) in int.chars().enumerate() {
        if k > 0 && (int.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// A window's first and last instant in one unit (the last's), with the digits its length
/// needs: `1.3700 s – 1.3730 s`.
pub fn format_window(start: u64, end: u64, ns_per_tick: u64) -> String {
    let npt = ns_per_tick.max(1) as f64;
    let (s, e) = (start as f64 * npt, end as f64 * npt);
    let (unit, scale) = unit_for(e.abs());
    let precision = ((e - s) / 1000.0).max(1.0);
    let ratio = scale / precision;
    let digits = if ratio <= 1.0 {
        0
    } else {
        (ratio.log10().ceil() as usize).min(9)
    };
    format!(
        "{} {unit} – {} {unit}",
        group_digits(&format!("{:.digits$}", s / scale)),
        group_digits(&format!("{:.digits$}", e / scale))
    )
}

/// A time in nanoseconds with a unit suited to `precision_ns` (the smallest difference
/// the label must show).
pub fn format_ns(ns: f64, precision_ns: f64) -> String {
    let (unit, scale) = unit_for(precision_ns);
    let value = ns / scale;
    let digits = if (precision_ns / scale).fract().abs() < 1e-9 && precision_ns / scale >= 1.0 {
        0
    } else {
        let mut d = 0;
        let mut p = precision_ns / scale;
        while p < 1.0 && d < 9 {
            p *= 10.0;
            d += 1;
        }
        d
    };
    format!("{} {unit}", group_digits(&format!("{value:.digits$}")))
}

/// A time or duration in nanoseconds in the unit of its size, with as many decimals as
/// `precision_ns` (the smallest difference it must show) needs: `1.3710002 s` for a time
/// read at 229 ns, `229.4 us` for a duration read at 100 ns.
pub fn format_time(ns: f64, precision_ns: f64) -> String {
    let (unit, scale) = unit_for(ns.abs());
    let ratio = scale / precision_ns.max(1.0);
    let digits = if ratio <= 1.0 {
        0
    } else {
        (ratio.log10().ceil() as usize).min(9)
    };
    format!(
        "{} {unit}",
        group_digits(&format!("{:.digits$}", ns / scale))
    )
}

/// The smallest difference a time shown for a window of `span` ticks must tell apart: a
/// thousandth of the window (about a pixel of the timeline), at least a tick.
pub fn window_precision_ns(span: u64, ns_per_tick: u64) -> f64 {
    let npt = ns_per_tick.max(1) as f64;
    (span as f64 * npt / 1000.0).max(npt)
}

/// A time or duration in ticks, in the unit of its size, with the digits a window of `span`
/// ticks needs (every time the viewer shows of a window: tooltips, Details, selections,
/// Find, the scope panel's window and table, breakdowns): `633.509123 ms` in a 322 ns
/// window, `633.51 ms` in a 300 ms one.
pub fn format_in_window(ticks: u64, span: u64, ns_per_tick: u64) -> String {
    format_time(
        ticks as f64 * ns_per_tick.max(1) as f64,
        window_precision_ns(span, ns_per_tick),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruler_labels_are_round_and_readable() {
        let w = TimeWindow {
            start: 0,
            span: 1_871_483,
        };
        let ticks = ruler_ticks(w, 1, 1000.0, 100.0);
        let labels: Vec<&str> = ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels.first(), Some(&"0 us"));
        assert!(labels.contains(&"200 us"), "{labels:?}");
        assert!(ticks.len() <= 10 && ticks.len() >= 5, "{labels:?}");
        let us = ruler_ticks(w, 1000, 1000.0, 100.0);
        assert_eq!(us[1].1, "200 ms");
        assert_eq!(format_ns(1_500.0, 100.0), "1,500 ns");
        assert_eq!(format_time(1_371_000_229.0, 229.0), "1.3710002 s");
        assert_eq!(format_time(229_407.0, 100.0), "229.4 us");
        assert_eq!(format_time(1_500.0, 1.0), "1.500 us");
        assert_eq!(format_time(0.0, 1000.0), "0 ns");
        assert_eq!(format_ns(1_370_000_000.0, 200_000.0), "1,370,000 us");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(
            format_window(1_370_000_000, 1_373_000_000, 1),
            "1.370000 s – 1.373000 s"
        );
        assert_eq!(format_window(0, 23_500_434, 1), "0.00 ms – 23.50 ms");
        assert_eq!(format_ns(1_500_000.0, 1_000_000.0), "2 ms");
        assert_eq!(format_in_window(1_871_483, 1_871_483, 1000), "1.871 s");
        // Every time of a window (the scope panel's, a breakdown's, Find's, a selection's)
        // has the digits its zoom needs: windows of 100 ns, 10 us and 10 s.
        assert_eq!(format_in_window(633_509_123, 100, 1), "633.509123 ms");
        assert_eq!(format_in_window(633_509_123, 10_000, 1), "633.50912 ms");
        assert_eq!(format_in_window(633_509_123, 10_000_000_000, 1), "634 ms");
        assert_eq!(format_in_window(322, 322, 1), "322 ns");
        assert_eq!(format_in_window(13_250, 10_000, 1), "13.25 us");
        assert_eq!(
            format_window(633_509_123, 633_509_445, 1),
            "633.509123 ms – 633.509445 ms"
        );
        assert_eq!(
            format_window(5_000_000_000, 5_000_010_000, 1),
            "5.00000000 s – 5.00001000 s"
        );
    }

    #[test]
    fn zoom_keeps_the_anchor_and_stays_inside_the_trace() {
        let w = TimeWindow {
            start: 0,
            span: 1000,
        };
        let z = w.zoomed(0.5, 250.0, 1000);
        assert_eq!(
            z,
            TimeWindow {
                start: 125,
                span: 500
            }
        );
        assert_eq!(z.zoomed(4.0, 300.0, 1000), w);
        assert_eq!(w.panned(-50.0, 1000), w);
        assert_eq!(
            z.panned(10_000.0, 1000),
            TimeWindow {
                start: 500,
                span: 500
            }
        );
        assert_eq!(
            TimeWindow::between(700.0, 300.0, 1000),
            TimeWindow {
                start: 300,
                span: 400
            }
        );
    }
}

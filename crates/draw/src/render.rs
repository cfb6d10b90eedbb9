//! The timeline drawn headless (no window, no GPU): `prvscope render`.
//!
//! The picture is the timeline's rows and nothing else: `width` pixel columns, column `k`
//! covering the ticks `[t0 + k * span / width, t0 + (k + 1) * span / width)`, and the rows
//! stacked over `height` pixels (row `i` from `i * height / rows` to `(i + 1) * height / rows`,
//! with a one-pixel gap under rows of at least 6 pixels, as on screen). A column of a row
//! shows what the viewer shows there with the same view, draw mode and colours (see
//! [`prvscope_store::summary`]); communications are the viewer's lines and bundles. What
//! each (row, column) shows can be written as CSV beside it, so a script can check any pixel.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use image::{Rgba, RgbaImage};

use super::frame::{self, TimeWindow};
use super::rows::{Grouping, Level, RowItem, drawn_row_of_thread};
use super::theme;
use super::view::{Coloring, ViewConfig, value_label};
use prvscope_store::Trace;
use prvscope_store::comm_index::{Bundles, CommIndex};
use prvscope_store::signal::{SignalSpec, ViewSignals};
use prvscope_store::summary::{DrawMode, Pixel};

/// At most about this many communication lines in a picture (no frame rate to keep: five
/// times the viewer's).
pub const RENDER_MAX_BUNDLES: usize = 5 * super::frame::MAX_BUNDLES;

/// What to draw.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    pub view: SignalSpec,
    /// `None`: the view's default (dominant for categories, average for gradients).
    pub mode: Option<DrawMode>,
    pub level: Level,
    /// The window; `None`: the whole trace (or the part loaded).
    pub from: Option<u64>,
    pub to: Option<u64>,
    pub width: u32,
    pub height: u32,
    pub comms: bool,
    /// The span of a gradient or function line (the viewer's default: fit to the window).
    pub scale: crate::view::Scale,
    /// Paraver's logarithmic gradient function.
    pub log: bool,
}

/// A drawn picture and what it shows.
pub struct Rendered {
    pub image: RgbaImage,
    pub rows: Vec<RowItem>,
    /// The pixel columns' first ticks (`width + 1` edges).
    pub edges: Vec<u64>,
    /// What each row shows per column.
    pub pixels: Vec<Vec<Pixel>>,
    pub config: ViewConfig,
    pub coloring: Coloring,
    pub comms: Option<Bundles>,
    /// The communications as a density, when they were too many for lines (`comms` then
    /// holds no line).
    pub density: Option<prvscope_store::comm_index::Density>,
    /// Where the threads ran, at the CPU and node levels.
    pub placement: Option<prvscope_store::placement::Placement>,
}

/// Draws `trace` as `opts` say.
pub fn render(trace: &Trace, opts: &RenderOptions) -> anyhow::Result<Rendered> {
    anyhow::ensure!(
        opts.width > 0 && opts.height > 0,
        "the picture needs a width and a height of at least one pixel"
    );
    let end = trace.header.end_time.max(trace.store.end_time());
    let home = match trace.loaded_range() {
        Some((a, b)) if b > a => (a, b),
        _ => (0, end),
    };
    let t0 = opts.from.unwrap_or(home.0);
    let t1 = opts.to.unwrap_or(home.1);
    anyhow::ensure!(
        t1 > t0,
        "the window is empty: --to ({t1}) must be after --from ({t0})"
    );
    let mut config = ViewConfig::new(trace, opts.view.clone());
    if let Some(mode) = opts.mode {
        config.mode = mode;
    }
    config.scale = opts.scale;
    if opts.log {
        config.function = crate::view::GradientFn::Logarithmic;
    }
    // Communications are drawn between threads: not on CPU or node rows.
    config.comms = opts.comms && !opts.level.is_resource();
    let placement = if opts.level.is_resource() {
        Some(prvscope_store::placement::Placement::of(trace).map_err(anyhow::Error::msg)?)
    } else {
        None
    };
    // The communication index is built beside the view (its sort is one thread's work).
    let (signals, index) = rayon::join(
        || {
            ViewSignals::build(
                Arc::clone(&trace.store),
                config.spec.clone(),
                config.zero_is_null,
            )
        },
        || config.comms.then(|| CommIndex::of(&trace.store)),
    );
    let (signals, rows) = if let Some(p) = &placement {
        (
            signals.on_cpus(p),
            super::rows::resource_layout(p, opts.level),
        )
    } else {
        let mut grouping = Grouping::default();
        grouping.set_level(trace, opts.level);
        (signals, grouping.layout(trace))
    };
    let coloring = Coloring::new(trace, &config, signals.values());
    anyhow::ensure!(!rows.is_empty(), "the trace has no rows to draw");
    // More rows than pixels: each pixel row summarises the rows it holds (rows::fit).
    let rows = super::rows::fit(&rows, opts.height as usize).ok_or_else(|| {
        anyhow::anyhow!(
            "{} rows do not fit in {} pixels: give --height {} or more (CPU and node rows are \
             not summarised)",
            rows.len(),
            opts.height,
            rows.len()
        )
    })?;
    let (width, height) = (opts.width, opts.height);
    let span = t1 - t0;
    let edges: Vec<u64> = (0..=u64::from(width))
        .map(|k| {
            let e = u128::from(k) * u128::from(span) / u128::from(width);
            t0 + u64::try_from(e).unwrap_or(u64::MAX)
        })
        .collect();
    let sentinel = signals.sentinel();
    let pixels: Vec<Vec<Pixel>> = {
        use rayon::prelude::*;
        rows.par_iter()
            .map(|item| frame::row_pixels(&signals, item, &edges, sentinel, config.mode))
            .collect()
    };
    // A gradient's scale fits what the picture draws, as in the viewer.
    let coloring = coloring.fitted(
        config.scale,
        pixels
            .iter()
            .flat_map(|row| row.iter().take(width as usize).map(|p| p.value)),
    );
    let mut image = RgbaImage::from_pixel(width, height, rgba(theme::BACKGROUND));
    let top = |i: usize| (i as u64 * u64::from(height) / rows.len() as u64) as u32;
    for (i, row) in pixels.iter().enumerate() {
        let (y0, y1) = (top(i), top(i + 1));
        let y1 = if y1 - y0 >= 6 { y1 - 1 } else { y1 };
        let colours: Vec<Option<Rgba<u8>>> = row
            .iter()
            .take(width as usize)
            .map(|p| coloring.color(p.value).map(rgba))
            .collect();
        for y in y0..y1 {
            for (x, c) in colours.iter().enumerate() {
                if let Some(c) = c {
                    image.put_pixel(x as u32, y, *c);
                }
            }
        }
    }
    let mut density = None;
    let comms = index.map(|index| {
        let drawn = drawn_row_of_thread(&rows, trace.store.thread_count());
        let row_of = |thread: u32| *drawn.get(thread as usize)?;
        let rect = epaint::Rect::from_min_size(
            epaint::Pos2::ZERO,
            epaint::vec2(width as f32, height as f32),
        );
        let window = TimeWindow { start: t0, span };
        let bundles = frame::comm_bundles(
            &index,
            window,
            trace.header.end_time,
            rect,
            &row_of,
            RENDER_MAX_BUNDLES,
        );
        let center = |r: u32| (top(r as usize) + top(r as usize + 1)) as f32 * 0.5;
        let area = width as f32 * height as f32;
        if bundles.is_density()
            || frame::covered_share(&bundles, window, rect, area, &center) > frame::LINE_BUDGET
        {
            // Too dense for lines, as in the viewer: a band at the bottom of each row.
            let d = frame::comm_density(&index, window, trace.header.end_time, rect, &row_of);
            for (row, counts) in &d.rows {
                let (y0, y1) = (top(*row as usize), top(*row as usize + 1));
                let Some(band) = frame::density_band((y1 - y0) as f32) else {
                    continue;
                };
                let band = band.round() as u32;
                let y1 = if y1 - y0 >= 6 { y1 - 1 } else { y1 };
                for (x, &n) in counts.iter().enumerate().take(width as usize) {
                    if n > 0 {
                        let c = rgba(frame::density_colour(n, d.max));
                        for y in y1.saturating_sub(band).max(y0)..y1 {
                            image.put_pixel(x as u32, y, c);
                        }
                    }
                }
            }
            density = Some(d);
            return Bundles {
                messages: bundles.messages,
                ..Bundles::default()
            };
        }
        let lines: Vec<([epaint::Pos2; 2], f32)> = bundles
            .bundles
            .iter()
            .map(|b| {
                (
                    frame::bundle_segment(b, window, rect, &center),
                    frame::bundle_width(b.count),
                )
            })
            .collect();
        draw_lines(&mut image, &lines, rgba(theme::COMM));
        bundles
    });
    Ok(Rendered {
        image,
        rows,
        edges,
        pixels,
        config,
        coloring,
        comms,
        density,
        placement,
    })
}

fn rgba(c: epaint::Color32) -> Rgba<u8> {
    Rgba([c.r(), c.g(), c.b(), 255])
}

/// Lines from `a` to `b`, `width` pixels thick, in colour `c` (see [`draw_line`]), drawn
/// in horizontal bands of the picture in parallel.
fn draw_lines(image: &mut RgbaImage, lines: &[([epaint::Pos2; 2], f32)], c: Rgba<u8>) {
    use rayon::prelude::*;
    let (w, h) = (image.width(), image.height());
    if w == 0 || h == 0 {
        return;
    }
    let threads = u32::try_from(rayon::current_num_threads()).unwrap_or(1);
    let band_rows = h.div_ceil(4 * threads.max(1)).max(8);
    let buf: &mut [u8] = image;
    buf.par_chunks_mut(band_rows as usize * w as usize * 4)
        .enumerate()
        .for_each(|(k, band)| {
            let rows_here = band.len() / (4 * w as usize);
            let mut band = Band {
                buf: band,
                width: i64::from(w),
                y0: i64::from(band_rows) * i64::try_from(k).unwrap_or(i64::MAX / 2),
                height: i64::try_from(rows_here).unwrap_or(0),
                picture_height: i64::from(h),
            };
            for &([a, b], width) in lines {
                draw_line(&mut band, a, b, width, c);
            }
        });
}

/// Rows `[y0, y0 + height)` of a picture `width` pixels wide and `picture_height` high.
struct Band<'a> {
    buf: &'a mut [u8],
    width: i64,
    y0: i64,
    height: i64,
    picture_height: i64,
}

/// A line from `a` to `b`, `width` pixels thick: one pixel per step along its longer axis
/// (step `s` of `n` at `a + (b - a) * s / n`, floored), widened to `width` pixels across it.
/// Only the steps whose pixels can fall inside `band` are walked, and only its pixels are
/// written.
#[allow(clippy::many_single_char_names)] // points and coordinates
fn draw_line(band: &mut Band<'_>, a: epaint::Pos2, b: epaint::Pos2, width: f32, c: Rgba<u8>) {
    let (w, h) = (band.width, band.picture_height);
    // Clip far ends to a little outside the picture (lines to rows out of the window).
    let clamp = |p: epaint::Pos2| epaint::pos2(p.x.clamp(-(w as f32), 2.0 * w as f32), p.y);
    let (a, b) = (clamp(a), clamp(b));
    let d = b - a;
    let steep = d.y.abs() > d.x.abs();
    let steps = d.x.abs().max(d.y.abs()).ceil().max(1.0) as usize;
    let thick = width.round().max(1.0) as i64;
    let (from, to) = (-(thick - 1) / 2, thick / 2);
    // The steps whose point is within `thick + 1` pixels of the band, on both axes.
    let margin = (thick + 1) as f32;
    let (y_lo, y_hi) = (band.y0 as f32, (band.y0 + band.height) as f32);
    let (mut s0, mut s1) = (0.0_f32, steps as f32);
    for (start, delta, lo, hi) in [
        (a.x, d.x, -margin, w as f32 + margin),
        (a.y, d.y, y_lo - margin, y_hi + margin),
    ] {
        if delta == 0.0 {
            if !(lo..=hi).contains(&start) {
                return;
            }
        } else {
            let at = |m: f32| (m - start) / delta * steps as f32;
            let (p, q) = (at(lo), at(hi));
            s0 = s0.max(p.min(q).floor());
            s1 = s1.min(p.max(q).ceil());
        }
    }
    if s1 < s0 {
        return;
    }
    let (s0, s1) = (s0.max(0.0) as usize, (s1.max(0.0) as usize).min(steps));
    let _ = h;
    let (y0, band_h, stride) = (band.y0, band.height, w as usize);
    let buf = &mut *band.buf;
    let mut put = |x: i64, y: i64| {
        let y = y - y0;
        if (0..w).contains(&x) && (0..band_h).contains(&y) {
            let i = (y as usize * stride + x as usize) * 4;
            if let Some(px) = buf.get_mut(i..i + 4) {
                px.copy_from_slice(&c.0);
            }
        }
    };
    let inv = 1.0 / steps as f32;
    for s in s0..=s1 {
        let f = s as f32 * inv;
        let (cx, cy) = (floor_i64(a.x + d.x * f), floor_i64(a.y + d.y * f));
        for k in from..=to {
            if steep {
                put(cx + k, cy);
            } else {
                put(cx, cy + k);
            }
        }
    }
}

/// `v` rounded down (as `f32::floor`, without the library call it makes on baseline x86-64).
fn floor_i64(v: f32) -> i64 {
    let i = v as i64;
    if (i as f32) > v { i - 1 } else { i }
}

impl Rendered {
    /// Writes the picture as PNG.
    pub fn save_png(&self, path: &Path) -> anyhow::Result<()> {
        self.image
            .save_with_format(path, image::ImageFormat::Png)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
    }

    /// Writes what every (row, column) shows: `row,label,column,begin,end,value,value_label`
    /// (`end` exclusive; value and label empty where nothing is drawn).
    pub fn write_values_csv(&self, trace: &Trace, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "row,label,column,begin,end,value,value_label")?;
        for (i, (item, row)) in self.rows.iter().zip(&self.pixels).enumerate() {
            for (k, p) in row.iter().enumerate() {
                let (Some(&b), Some(&e)) = (self.edges.get(k), self.edges.get(k + 1)) else {
                    continue;
                };
                let null = self.coloring.is_null(p.value);
                let (value, label) = if null {
                    (String::new(), String::new())
                } else {
                    (
                        p.value.to_string(),
                        csv_field(&value_label(trace, &self.config.spec, p.value, false)),
                    )
                };
                writeln!(
                    out,
                    "{},{},{k},{b},{e},{value},{label}",
                    i + 1,
                    csv_field(&item.label)
                )?;
            }
        }
        Ok(())
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same line drawn the simplest way: every step, `f32::floor`, the whole picture.
    fn naive_line(
        image: &mut RgbaImage,
        from: epaint::Pos2,
        to: epaint::Pos2,
        width: f32,
        colour: Rgba<u8>,
    ) {
        let (img_w, img_h) = (i64::from(image.width()), i64::from(image.height()));
        let clamp =
            |p: epaint::Pos2| epaint::pos2(p.x.clamp(-(img_w as f32), 2.0 * img_w as f32), p.y);
        let (from, to) = (clamp(from), clamp(to));
        let delta = to - from;
        let steep = delta.y.abs() > delta.x.abs();
        let steps = delta.x.abs().max(delta.y.abs()).ceil().max(1.0) as usize;
        let thick = width.round().max(1.0) as i64;
        for step in 0..=steps {
            let frac = step as f32 * (1.0 / steps as f32);
            let (cx, cy) = (
                (from.x + delta.x * frac).floor() as i64,
                (from.y + delta.y * frac).floor() as i64,
            );
            for k in -(thick - 1) / 2..=thick / 2 {
                let (px, py) = if steep { (cx + k, cy) } else { (cx, cy + k) };
                if (0..img_w).contains(&px) && (0..img_h).contains(&py) {
                    image.put_pixel(px as u32, py as u32, colour);
                }
            }
        }
    }

    #[test]
    fn lines_drawn_in_bands_are_the_naive_lines() {
        // splitmix64: a fixed sequence of cases.
        let mut state = 14_u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut range =
            |lo: f32, hi: f32| lo + (hi - lo) * ((next() >> 40) as f32 / (1 << 24) as f32);
        for (w, h) in [(1400, 800), (97, 61), (3, 300), (300, 1)] {
            let mut lines = Vec::new();
            for _ in 0..2000 {
                let a = epaint::pos2(
                    range(-3.0 * w as f32, 4.0 * w as f32),
                    range(-2.0, h as f32 + 2.0),
                );
                let b = epaint::pos2(
                    range(-3.0 * w as f32, 4.0 * w as f32),
                    range(-2.0, h as f32 + 2.0),
                );
                // Some vertical, horizontal and point-like lines too.
                let b = match (range(0.0, 8.0)) as u32 {
                    0 => epaint::pos2(a.x, b.y),
                    1 => epaint::pos2(b.x, a.y),
                    2 => a,
                    _ => b,
                };
                lines.push(([a, b], range(0.5, 4.5)));
            }
            let c = Rgba([255, 255, 0, 255]);
            let mut fast = RgbaImage::new(w, h);
            draw_lines(&mut fast, &lines, c);
            let mut naive = RgbaImage::new(w, h);
            for &([a, b], width) in &lines {
                naive_line(&mut naive, a, b, width, c);
            }
            let differ = fast
                .pixels()
                .zip(naive.pixels())
                .filter(|(x, y)| x != y)
                .count();
            assert_eq!(differ, 0, "{w}x{h}: {differ} pixels differ");
            assert!(naive.pixels().any(|p| *p == c), "{w}x{h}: nothing drawn");
        }
    }
}

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
pub const RENDER_MAX_BUNDLES: usize = 5 * super::timeline::MAX_BUNDLES;

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
    config.comms = opts.comms;
    let signals = ViewSignals::build(
        Arc::clone(&trace.store),
        config.spec.clone(),
        config.zero_is_null,
    );
    let coloring = Coloring::new(trace, &config, signals.values());
    let mut grouping = Grouping::default();
    grouping.set_level(trace, opts.level);
    let rows = grouping.layout(trace);
    anyhow::ensure!(!rows.is_empty(), "the trace has no rows to draw");
    anyhow::ensure!(
        opts.height as usize >= rows.len(),
        "{} rows do not fit in {} pixels: give --height {} or more, or draw tasks or applications (--level)",
        rows.len(),
        opts.height,
        rows.len()
    );
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
    let mut image = RgbaImage::from_pixel(width, height, rgba(theme::BACKGROUND));
    let top = |i: usize| (i as u64 * u64::from(height) / rows.len() as u64) as u32;
    for (i, row) in pixels.iter().enumerate() {
        let (y0, y1) = (top(i), top(i + 1));
        let y1 = if y1 - y0 >= 6 { y1 - 1 } else { y1 };
        for (x, p) in row.iter().enumerate().take(width as usize) {
            if let Some(c) = coloring.color(p.value) {
                let c = rgba(c);
                for y in y0..y1 {
                    image.put_pixel(x as u32, y, c);
                }
            }
        }
    }
    let comms = opts.comms.then(|| {
        let index = CommIndex::build(trace.store.comms());
        let drawn = drawn_row_of_thread(&rows, trace.store.threads().len());
        let row_of = |thread: u32| *drawn.get(thread as usize)?;
        let rect =
            egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(width as f32, height as f32));
        let window = TimeWindow { start: t0, span };
        let bundles = frame::comm_bundles(&index, window, rect, &row_of, RENDER_MAX_BUNDLES);
        let center = |r: u32| (top(r as usize) + top(r as usize + 1)) as f32 * 0.5;
        for b in &bundles.bundles {
            let [p0, p1] = frame::bundle_segment(b, window, rect, &center);
            draw_line(
                &mut image,
                p0,
                p1,
                frame::bundle_width(b.count),
                rgba(theme::COMM),
            );
        }
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
    })
}

fn rgba(c: egui::Color32) -> Rgba<u8> {
    Rgba([c.r(), c.g(), c.b(), 255])
}

/// A line from `a` to `b`, `width` pixels thick: one pixel per step along its longer axis,
/// widened to `width` pixels across it.
#[allow(clippy::many_single_char_names)] // points and coordinates
fn draw_line(image: &mut RgbaImage, a: egui::Pos2, b: egui::Pos2, width: f32, c: Rgba<u8>) {
    let (w, h) = (i64::from(image.width()), i64::from(image.height()));
    // Clip far ends to a little outside the picture (lines to rows out of the window).
    let clamp = |p: egui::Pos2| egui::pos2(p.x.clamp(-(w as f32), 2.0 * w as f32), p.y);
    let (a, b) = (clamp(a), clamp(b));
    let d = b - a;
    let steep = d.y.abs() > d.x.abs();
    let steps = d.x.abs().max(d.y.abs()).ceil().max(1.0) as usize;
    let thick = width.round().max(1.0) as i64;
    let (from, to) = (-(thick - 1) / 2, thick / 2);
    for s in 0..=steps {
        let p = a + d * (s as f32 / steps as f32);
        let (cx, cy) = (p.x.floor() as i64, p.y.floor() as i64);
        for k in from..=to {
            let (x, y) = if steep { (cx + k, cy) } else { (cx, cy + k) };
            if (0..w).contains(&x) && (0..h).contains(&y) {
                image.put_pixel(x as u32, y as u32, c);
            }
        }
    }
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

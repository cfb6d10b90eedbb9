//! The communications of a frame: lines (one per message, or per pair's messages on the
//! same pixels, or bundles) while they stay sparse; beyond that, a density band at the
//! bottom of each row (the messages it sends or receives per pixel column), with the lines
//! of the pinned thread over it.

use epaint::Mesh;
use epaint::{Pos2, Rect, pos2, vec2};

use super::TimeWindow;
use crate::theme;
use prvscope_store::comm_index::{Bundle, BundleQuery, Bundles, CommIndex, Density};

/// The communications of a window as lines: few messages one line per distinct pixel pair,
/// many as bundles (see [`CommIndex`]); `row_of` gives the drawn row of a visible store row.
pub fn comm_bundles(
    index: &CommIndex,
    window: TimeWindow,
    end_time: u64,
    rect: Rect,
    row_of: &dyn Fn(u32) -> Option<u32>,
    max_bundles: usize,
) -> Bundles {
    index.bundles(&query(window, end_time, rect, row_of, max_bundles, None))
}

/// The query of a window drawn over `rect`.
fn query(
    window: TimeWindow,
    end_time: u64,
    rect: Rect,
    row_of: &dyn Fn(u32) -> Option<u32>,
    max_bundles: usize,
    only_row: Option<u32>,
) -> BundleQuery<'_> {
    BundleQuery {
        t0: window.start,
        span: window.span,
        closed: window.end() >= end_time,
        width: rect.width().round().max(1.0) as u32,
        row_of,
        max_bundles,
        only_row,
    }
}

/// The lines of the messages that `row` (a drawn row) sends or receives in the window.
pub fn row_bundles(
    index: &CommIndex,
    window: TimeWindow,
    end_time: u64,
    rect: Rect,
    row_of: &dyn Fn(u32) -> Option<u32>,
    max_bundles: usize,
    row: u32,
) -> Bundles {
    index.bundles(&query(
        window,
        end_time,
        rect,
        row_of,
        max_bundles,
        Some(row),
    ))
}

/// The messages of the window per drawn row and pixel column (see [`Density`]).
pub fn comm_density(
    index: &CommIndex,
    window: TimeWindow,
    end_time: u64,
    rect: Rect,
    row_of: &dyn Fn(u32) -> Option<u32>,
) -> Density {
    index.density(&query(window, end_time, rect, row_of, 0, None))
}

/// Lines may cover at most this share of the rows' pixels; past it the messages are drawn
/// as a density.
pub const LINE_BUDGET: f32 = 0.25;

/// The share of `area` (the drawn rows) that the lines of `bundles` cover, counting each
/// line's length times its width (crossings counted twice: an upper bound).
pub fn covered_share(
    bundles: &Bundles,
    window: TimeWindow,
    rect: Rect,
    area: f32,
    y_of: &dyn Fn(u32) -> f32,
) -> f32 {
    let covered: f32 = bundles
        .bundles
        .iter()
        .map(|b| {
            let [p0, p1] = bundle_segment(b, window, rect, y_of);
            let (dx, dy) = (
                (p1.x.clamp(rect.left(), rect.right()) - p0.x.clamp(rect.left(), rect.right()))
                    .abs(),
                (p1.y - p0.y).abs(),
            );
            (dx.max(dy) + 1.0) * bundle_width(b.count)
        })
        .sum();
    covered / area.max(1.0)
}

/// Rows thinner than this leave no room for a density band beside their states: a band there
/// would cover them (a 1-pixel row would show messages instead of states).
pub const MIN_BAND_ROW: f32 = 4.0;

/// The height of a row's density band: a quarter of the row, 1 to 6 pixels; none for a row
/// under [`MIN_BAND_ROW`].
pub fn density_band(row_height: f32) -> Option<f32> {
    (row_height >= MIN_BAND_ROW).then(|| (row_height * 0.25).clamp(1.0, 6.0))
}

/// The colour of a column where `count` of the window's most (`max`) messages are: from a
/// dim to the full communication colour, by the square root of the share.
pub fn density_colour(count: u32, max: u32) -> epaint::Color32 {
    let f = (f64::from(count) / f64::from(max.max(1)))
        .sqrt()
        .clamp(0.0, 1.0);
    let f = 0.25 + 0.75 * f;
    let c = theme::COMM;
    let mix = |v: u8| (f64::from(v) * f).round() as u8;
    epaint::Color32::from_rgb(mix(c.r()), mix(c.g()), mix(c.b()))
}

/// A density as an image: a texel per pixel column (x) and drawn row (y, in the order of
/// `density.rows`), in [`density_colour`]; a column without messages is transparent, left to
/// the states.
pub fn density_image(density: &Density) -> epaint::ColorImage {
    let w = density.width.max(1) as usize;
    let h = density.rows.len().max(1);
    let mut pixels = vec![epaint::Color32::TRANSPARENT; w * h];
    for (y, (_, counts)) in density.rows.iter().enumerate() {
        for (px, &n) in pixels[y * w..(y + 1) * w].iter_mut().zip(counts) {
            if n > 0 {
                *px = density_colour(n, density.max);
            }
        }
    }
    epaint::ColorImage::new([w, h], pixels)
}

/// A density as one band per row, at its bottom (`band_of` gives a drawn row's band, top
/// and bottom): a quad per row textured with its line of [`density_image`] (`texture`,
/// sampled nearest), so that a pixel column shows its column's colour. A quad per column
/// drew 40,000 quads on the 1 GB trace at full zoom, most of a frame's work for a software
/// renderer; a quad per row is as many as the rows.
pub fn density_mesh(
    density: &Density,
    rect: Rect,
    band_of: &dyn Fn(u32) -> Option<(f32, f32)>,
    texture: epaint::TextureId,
) -> Mesh {
    let mut mesh = Mesh::with_texture(texture);
    let h = density.rows.len().max(1) as f32;
    for (y, (row, _)) in density.rows.iter().enumerate() {
        let Some((top, bottom)) = band_of(*row) else {
            continue;
        };
        let uv = Rect::from_x_y_ranges(0.0..=1.0, y as f32 / h..=(y as f32 + 1.0) / h);
        mesh.add_rect_with_uv(
            Rect::from_x_y_ranges(rect.left()..=rect.right(), top..=bottom),
            uv,
            epaint::Color32::WHITE,
        );
    }
    mesh
}

/// The messages sent in the window between drawn rows.
pub fn comm_count(
    index: &CommIndex,
    window: TimeWindow,
    end_time: u64,
    rect: Rect,
    row_of: &dyn Fn(u32) -> Option<u32>,
) -> u64 {
    index.count(&query(window, end_time, rect, row_of, 0, None))
}

/// The width of a bundle's line: 1 pixel for one message, growing with the logarithm of
/// the count up to 4 pixels.
pub fn bundle_width(count: u32) -> f32 {
    (1.0 + (count.max(1) as f32).log2() * 0.35).min(4.0)
}

/// The endpoints of a bundle's line; `y_of` gives the centre of a drawn row.
pub fn bundle_segment(
    b: &Bundle,
    window: TimeWindow,
    rect: Rect,
    y_of: &dyn Fn(u32) -> f32,
) -> [Pos2; 2] {
    [
        Pos2::new(window.x_from_time(b.send, rect), y_of(b.from_row)),
        Pos2::new(window.x_from_time(b.recv, rect), y_of(b.to_row)),
    ]
}

/// One mesh of quads for all the lines (cheap to tessellate, however many).
pub fn comm_mesh(
    bundles: &Bundles,
    window: TimeWindow,
    rect: Rect,
    y_of: &dyn Fn(u32) -> f32,
) -> Mesh {
    let mut mesh = Mesh::default();
    mesh.reserve_vertices(bundles.bundles.len() * 4);
    mesh.reserve_triangles(bundles.bundles.len() * 2);
    for b in &bundles.bundles {
        let [p0, p1] = bundle_segment(b, window, rect, y_of);
        // Keep far-away ends from making huge coordinates.
        let clamp = |p: Pos2| pos2(p.x.clamp(rect.left() - 4000.0, rect.right() + 4000.0), p.y);
        let (p0, p1) = (clamp(p0), clamp(p1));
        let d = p1 - p0;
        let len = d.length();
        let half = bundle_width(b.count) * 0.5;
        let n = if len > 1e-3 {
            vec2(-d.y, d.x) / len * half
        } else {
            vec2(0.0, half)
        };
        // A line shorter than a pixel is drawn as a short vertical tick.
        let (p0, p1) = if len > 1e-3 {
            (p0, p1)
        } else {
            (p0 - vec2(half, 0.0), p0 + vec2(half, 0.0))
        };
        let i = mesh.vertices.len() as u32;
        for p in [p0 + n, p0 - n, p1 - n, p1 + n] {
            mesh.colored_vertex(p, theme::COMM);
        }
        mesh.add_triangle(i, i + 1, i + 2);
        mesh.add_triangle(i, i + 2, i + 3);
    }
    mesh
}

/// The bundle whose line passes within `tolerance` pixels of `pos`, the nearest.
pub fn bundle_at<'b>(
    bundles: &'b Bundles,
    window: TimeWindow,
    rect: Rect,
    y_of: &dyn Fn(u32) -> f32,
    pos: Pos2,
    tolerance: f32,
) -> Option<&'b Bundle> {
    let mut best: Option<(f32, &Bundle)> = None;
    for b in &bundles.bundles {
        let [p0, p1] = bundle_segment(b, window, rect, y_of);
        let d = p1 - p0;
        let len2 = d.length_sq();
        let t = if len2 > 0.0 {
            ((pos - p0).dot(d) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dist = (p0 + d * t - pos).length() - bundle_width(b.count) * 0.5;
        if dist <= tolerance && best.is_none_or(|(bd, _)| dist < bd) {
            best = Some((dist, b));
        }
    }
    best.map(|b| b.1)
}

/// A count for people: 950, 12,300, 1.2 M.
pub fn human_count(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1} M", n as f64 / 1e6)
    } else if n >= 10_000 {
        let s = n.to_string();
        let (a, b) = s.split_at(s.len() - 3);
        format!("{a},{b}")
    } else {
        n.to_string()
    }
}

/// The legend's line about communications drawn as a density on rows `row_height` high.
pub fn density_legend(d: &Density, row_height: f32) -> String {
    if density_band(row_height).is_none() {
        return format!(
            "Communications: {} messages, too many for lines; rows under {MIN_BAND_ROW} pixels \
             leave no room for their density band beside the states (taller rows show it)",
            human_count(d.messages)
        );
    }
    format!(
        "Communications: {} messages, too many for lines: the band at the bottom of each row \
         shows the messages it sends or receives per pixel column (brighter: more, up to {} \
         in a column)",
        human_count(d.messages),
        human_count(u64::from(d.max))
    )
}

/// What the legend adds about the pinned row's lines over a density (`pinned`: its
/// lines, when a row is pinned).
pub fn pinned_lines_note(pinned: Option<&Bundles>) -> String {
    match pinned {
        Some(b) if b.is_density() => format!(
            "the pinned thread's {} messages are too many for lines too",
            human_count(b.messages)
        ),
        Some(b) => format!(
            "the pinned thread's {} messages drawn as lines",
            human_count(b.messages)
        ),
        None => "pin a thread (click it) to draw its messages as lines".to_owned(),
    }
}

/// The legend's line about communications: how many messages, drawn as how many lines.
pub fn comms_legend(c: &prvscope_store::comm_index::Bundles) -> String {
    let messages = human_count(c.messages);
    let lines = human_count(c.bundles.len() as u64);
    let mut text = if c.messages == 0 {
        "Communications: none sent in this window".to_owned()
    } else if c.is_density() {
        format!(
            "Communications: {messages} messages, drawn as {lines} bundles ({} pixel columns each)",
            c.bucket_columns
        )
    } else {
        format!("Communications: {messages} messages, drawn as {lines} lines")
    };
    if c.crossing > 0 {
        text += ", and ";
        text += &human_count(c.crossing);
        text += " sent before the window";
    }
    if c.crossing_skipped {
        text.push_str("; those sent before the window are too many to draw");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_under_four_pixels_have_no_band() {
        assert_eq!(density_band(1.0), None);
        assert_eq!(density_band(3.9), None);
        assert_eq!(density_band(4.0), Some(1.0));
        assert_eq!(density_band(12.0), Some(3.0));
        assert_eq!(density_band(60.0), Some(6.0));
    }

    /// The band's image is the density column for column (transparent where no message is),
    /// and each row's quad shows its own line of the image over the whole width.
    #[test]
    fn density_bands_show_each_rows_counts_column_for_column() {
        let density = Density {
            width: 5,
            rows: vec![(3, vec![0, 1, 4, 0, 2]), (7, vec![9, 0, 0, 0, 1])],
            messages: 17,
            max: 9,
        };
        let image = density_image(&density);
        assert_eq!(image.size, [5, 2]);
        for (y, (_, counts)) in density.rows.iter().enumerate() {
            for (x, &n) in counts.iter().enumerate() {
                let want = if n == 0 {
                    epaint::Color32::TRANSPARENT
                } else {
                    density_colour(n, density.max)
                };
                assert_eq!(image.pixels[y * 5 + x], want, "row {y}, column {x}");
            }
        }
        let rect = Rect::from_min_max(Pos2::new(100.0, 0.0), Pos2::new(600.0, 100.0));
        let texture = epaint::TextureId::User(1);
        let mesh = density_mesh(
            &density,
            rect,
            &|r| Some((r as f32 * 10.0, r as f32 * 10.0 + 3.0)),
            texture,
        );
        assert_eq!(mesh.texture_id, texture);
        assert_eq!(mesh.vertices.len(), 8, "a quad per row");
        for (y, (row, _)) in density.rows.iter().enumerate() {
            let quad = &mesh.vertices[y * 4..y * 4 + 4];
            let (x0, x1) = quad.iter().fold((f32::MAX, f32::MIN), |(a, b), v| {
                (a.min(v.pos.x), b.max(v.pos.x))
            });
            assert_eq!((x0, x1), (rect.left(), rect.right()));
            for v in quad {
                assert!([*row as f32 * 10.0, *row as f32 * 10.0 + 3.0].contains(&v.pos.y));
                // The quad spans its own line of the image, and only it.
                let line = v.uv.y * 2.0;
                let near = |a: f32| (line - a).abs() < 1e-6;
                assert!(near(y as f32) || near(y as f32 + 1.0), "{line}");
            }
        }
    }
}

//! A frame of many quads as one image. Thousands of rows of a pixel, or rows whose every pixel
//! column changes colour, make meshes of hundreds of thousands of quads (513 rows of 1,400
//! columns: up to 720,000), which egui copies and the renderer draws on every frame (28 ms of
//! CPU a frame, 287 ms for the frame that built them, on 1,040 generated threads under a
//! software renderer). Drawn into an image once per build and shown as one textured quad, a
//! frame costs the same whatever it holds.
//!
//! The image is the meshes' own picture: a pixel takes the colour of the last quad whose
//! area holds the pixel's centre (left and top edges inside, right and bottom edges outside:
//! the rule by which a GPU fills the same quads), blended over what is under it.

use epaint::{Color32, ColorImage, Mesh};
use epaint::{Pos2, Rect};

/// Frames of more quads than this are drawn into an image; smaller ones stay meshes.
pub const RASTER_QUADS: usize = 10_000;

/// The quads of `meshes` (each made of axis-aligned quads of four vertices of one colour, as
/// `Mesh::add_colored_rect` makes them) drawn into an image of `rect` at `pixels_per_point`.
pub fn rasterize(meshes: &[&Mesh], rect: Rect, pixels_per_point: f32) -> ColorImage {
    let w = (rect.width() * pixels_per_point).round().max(1.0) as usize;
    let h = (rect.height() * pixels_per_point).round().max(1.0) as usize;
    let mut image = ColorImage::new([w, h], vec![Color32::TRANSPARENT; w * h]);
    // The first pixel whose centre is at or right of (below) `v`, in image pixels.
    let first = |v: f32, origin: f32, n: usize| -> usize {
        let p = (v - origin) * pixels_per_point - 0.5;
        (p.ceil().max(0.0) as usize).min(n)
    };
    for mesh in meshes {
        debug_assert_eq!(mesh.vertices.len() % 4, 0, "quads of four vertices");
        for quad in mesh.vertices.chunks_exact(4) {
            let (lo, hi) = quad.iter().fold(
                (Pos2::new(f32::MAX, f32::MAX), Pos2::new(f32::MIN, f32::MIN)),
                |(lo, hi), v| (lo.min(v.pos), hi.max(v.pos)),
            );
            let colour = quad[0].color;
            let (x0, x1) = (first(lo.x, rect.left(), w), first(hi.x, rect.left(), w));
            let (y0, y1) = (first(lo.y, rect.top(), h), first(hi.y, rect.top(), h));
            for y in y0..y1 {
                let line = &mut image.pixels[y * w + x0..y * w + x1];
                if colour.a() == 255 {
                    line.fill(colour);
                } else {
                    for p in line {
                        *p = over(colour, *p);
                    }
                }
            }
        }
    }
    image
}

/// `top` over `under`, both premultiplied.
fn over(top: Color32, under: Color32) -> Color32 {
    let keep = 255 - u16::from(top.a());
    let mix = |t: u8, u: u8| (u16::from(t) + (u16::from(u) * keep + 127) / 255).min(255) as u8;
    Color32::from_rgba_premultiplied(
        mix(top.r(), under.r()),
        mix(top.g(), under.g()),
        mix(top.b(), under.b()),
        mix(top.a(), under.a()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each pixel is the colour of the last quad holding its centre, checked against a naive
    /// test of every quad for every pixel, with fractional edges and a point of 2 pixels.
    #[test]
    fn a_pixel_shows_the_last_quad_that_holds_its_centre() {
        let rect = Rect::from_min_max(Pos2::new(10.0, 20.0), Pos2::new(60.0, 50.0));
        let mut a = Mesh::default();
        let mut b = Mesh::default();
        let quads = [
            (
                Rect::from_min_max(Pos2::new(10.0, 20.0), Pos2::new(30.5, 27.25)),
                Color32::RED,
            ),
            (
                Rect::from_min_max(Pos2::new(30.5, 20.0), Pos2::new(61.0, 27.25)),
                Color32::BLUE,
            ),
            (
                Rect::from_min_max(Pos2::new(8.0, 27.25), Pos2::new(44.7, 35.0)),
                Color32::GREEN,
            ),
            (
                Rect::from_min_max(Pos2::new(20.2, 22.0), Pos2::new(21.2, 31.0)),
                Color32::YELLOW,
            ),
        ];
        for (i, (r, c)) in quads.iter().enumerate() {
            if i < 2 { &mut a } else { &mut b }.add_colored_rect(*r, *c);
        }
        for ppp in [1.0, 2.0, 1.5] {
            let image = rasterize(&[&a, &b], rect, ppp);
            let [w, h] = image.size;
            for y in 0..h {
                for x in 0..w {
                    let centre = Pos2::new(
                        rect.left() + (x as f32 + 0.5) / ppp,
                        rect.top() + (y as f32 + 0.5) / ppp,
                    );
                    let want = quads
                        .iter()
                        .rev()
                        .find(|(r, _)| {
                            centre.x >= r.left()
                                && centre.x < r.right()
                                && centre.y >= r.top()
                                && centre.y < r.bottom()
                        })
                        .map_or(Color32::TRANSPARENT, |q| q.1);
                    assert_eq!(image.pixels[y * w + x], want, "pixel {x},{y} at {ppp}");
                }
            }
        }
    }

    #[test]
    fn a_translucent_quad_is_blended_over_what_is_under_it() {
        let under = Color32::from_rgb(200, 0, 0);
        let top = Color32::from_rgba_unmultiplied(0, 0, 255, 128);
        let c = over(top, under);
        assert_eq!(c.a(), 255);
        assert!(c.r() > 90 && c.r() < 110 && c.b() > 120, "{c:?}");
    }
}

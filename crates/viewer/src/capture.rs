//! Saving a window as PNG: a screenshot of the next frame, cropped to the window's rect.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A PNG export waiting for its screenshot.
pub struct PngCapture {
    path: PathBuf,
    /// The screenshot was requested.
    requested: bool,
    image: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
}

impl PngCapture {
    /// An export to `path`, asked for at the next [`Self::poll`].
    pub fn new(path: PathBuf) -> PngCapture {
        PngCapture {
            path,
            requested: false,
            image: Arc::default(),
        }
    }

    /// Requests the screenshot, or, once it arrived, crops it to `rect` (points) and writes
    /// it: then the file and how that went.
    pub fn poll(
        &mut self,
        ctx: &egui::Context,
        rect: egui::Rect,
    ) -> Option<(PathBuf, Result<(), String>)> {
        if !self.requested {
            self.requested = true;
            let slot = Arc::clone(&self.image);
            let wake = ctx.clone();
            ctx.request_screenshot(move |image| {
                if let Ok(mut s) = slot.lock() {
                    *s = Some(image);
                }
                wake.request_repaint();
            });
            return None;
        }
        let image = self.image.lock().ok().and_then(|mut s| s.take())?;
        let saved = crop(&image, rect, ctx.pixels_per_point())
            .ok_or_else(|| "the window is not on screen".to_owned())
            .and_then(|img| img.save(&self.path).map_err(|e| e.to_string()));
        Some((self.path.clone(), saved))
    }
}

/// The part of `image` (pixels) under `rect` (points).
fn crop(image: &egui::ColorImage, rect: egui::Rect, ppp: f32) -> Option<image::RgbaImage> {
    if !rect.is_positive() {
        return None;
    }
    let [w, h] = image.size;
    let px = |v: f32, max: usize| ((v * ppp).round().max(0.0) as usize).min(max);
    let (x0, y0) = (px(rect.left(), w), px(rect.top(), h));
    let (x1, y1) = (px(rect.right(), w).max(x0), px(rect.bottom(), h).max(y0));
    let mut rgba = Vec::with_capacity((x1 - x0) * (y1 - y0) * 4);
    for y in y0..y1 {
        for p in image.pixels.get(y * w + x0..y * w + x1)? {
            rgba.extend_from_slice(&p.to_array());
        }
    }
    image::RgbaImage::from_raw((x1 - x0) as u32, (y1 - y0) as u32, rgba)
        .filter(|i| i.width() > 0 && i.height() > 0)
}

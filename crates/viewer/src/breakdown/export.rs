//! A breakdown window's exports: its numbers as CSV, itself as PNG (a screenshot of the next
//! frame cropped to the window's rect), each to a file chosen in a save dialog that runs on a
//! thread of its own. Every outcome is said in the window: saved, not saved, or why not.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{BreakdownWindow, Facts};
use crate::jobs::Job;

/// What the user asked to save.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Export {
    Csv,
    Png,
}

/// A PNG export waiting for its screenshot.
pub(super) struct PngCapture {
    path: PathBuf,
    /// The screenshot was requested.
    requested: bool,
    image: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
}

impl BreakdownWindow {
    /// Writes the breakdown shown as CSV (`thread,state,ticks,percent`, every loaded thread)
    /// to `path`.
    pub fn export_csv(&mut self, facts: &Facts, path: &Path) -> std::io::Result<()> {
        let result = match self.breakdown() {
            Some(b) => {
                let csv = b.csv(&facts.threads, |c| facts.category_label(c));
                std::fs::write(path, csv)
            }
            None => Err(std::io::Error::other(format!(
                "{} has no time in this window",
                self.name
            ))),
        };
        self.say_saved(path, result.as_ref().map_err(ToString::to_string));
        result
    }

    /// Saves the window as it is drawn next frame to `path` (PNG); the outcome is shown in
    /// the window a frame or two later ([`Self::message`]).
    pub fn export_png(&mut self, path: PathBuf) {
        self.png = Some(PngCapture {
            path,
            requested: false,
            image: Arc::default(),
        });
    }

    fn say_saved(&mut self, path: &Path, result: Result<&(), String>) {
        self.message = Some(match result {
            Ok(()) => (format!("saved {}", path.display()), false),
            Err(e) => (format!("could not save {}: {e}", path.display()), true),
        });
    }

    /// Opens a save dialog for `kind` on a thread of its own.
    pub(super) fn ask_save(&mut self, ctx: &egui::Context, kind: Export) {
        let ext = match kind {
            Export::Csv => "csv",
            Export::Png => "png",
        };
        let stem: String = self
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let name = format!("breakdown_{stem}.{ext}");
        let job = Job::try_spawn_outside_pool(ctx, "breakdown-save-dialog", move |_| {
            rfd::FileDialog::new()
                .set_file_name(name)
                .add_filter(ext, &[ext])
                .save_file()
        });
        match job {
            Ok(job) => self.dialog = Some((kind, job)),
            Err(e) => self.message = Some((format!("could not open a save dialog: {e}"), true)),
        }
    }

    /// Takes the file chosen in the save dialog and exports to it.
    pub(super) fn poll_dialog(&mut self, ctx: &egui::Context, facts: &Facts) {
        let Some((kind, job)) = &mut self.dialog else {
            return;
        };
        let kind = *kind;
        let (picked, running) = (job.poll(), job.is_running());
        match picked {
            Some(Some(path)) => {
                self.dialog = None;
                match kind {
                    Export::Csv => {
                        // The outcome is in the window's message.
                        let _ = self.export_csv(facts, &path);
                    }
                    Export::Png => self.export_png(path),
                }
                ctx.request_repaint();
            }
            Some(None) => {
                self.dialog = None;
                self.message = Some((
                    "not saved: no file was chosen (the dialog was cancelled, or no file dialog could open)"
                        .to_owned(),
                    true,
                ));
            }
            None if !running => {
                self.dialog = None;
                self.message = Some(("not saved: the save dialog failed".to_owned(), true));
            }
            None => {}
        }
    }

    /// Requests the screenshot of a PNG export, or crops and writes it once it arrived.
    pub(super) fn finish_png(&mut self, ctx: &egui::Context) {
        let Some(capture) = &mut self.png else {
            return;
        };
        if !capture.requested {
            capture.requested = true;
            let slot = Arc::clone(&capture.image);
            let wake = ctx.clone();
            ctx.request_screenshot(move |image| {
                if let Ok(mut s) = slot.lock() {
                    *s = Some(image);
                }
                wake.request_repaint();
            });
            return;
        }
        let image = capture.image.lock().ok().and_then(|mut s| s.take());
        let Some(image) = image else {
            return;
        };
        let path = capture.path.clone();
        self.png = None;
        let saved = crop(&image, self.rect, ctx.pixels_per_point())
            .ok_or_else(|| "the window is not on screen".to_owned())
            .and_then(|img| img.save(&path).map_err(|e| e.to_string()));
        self.say_saved(&path, saved.as_ref().map_err(Clone::clone));
    }
}

/// The part of `image` (pixels) under `rect` (points).
pub(crate) fn crop(
    image: &egui::ColorImage,
    rect: egui::Rect,
    ppp: f32,
) -> Option<image::RgbaImage> {
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

//! A breakdown window's exports: its numbers as CSV, itself as PNG (a screenshot of the next
//! frame cropped to the window's rect), each to a file chosen in a save dialog that runs on a
//! thread of its own. Every outcome is said in the window: saved, not saved, or why not.

use std::path::{Path, PathBuf};

use super::{BreakdownWindow, Facts};
use crate::capture::PngCapture;

/// What the user asked to save.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Export {
    Csv,
    Png,
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
        self.png = Some(PngCapture::new(path));
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
        let stem = crate::file_dialog::safe_stem(&self.name);
        let name = format!("breakdown_{stem}.{ext}");
        let spec = crate::file_dialog::Spec::new(
            "Export the breakdown",
            crate::file_dialog::Kind::Save(name),
        )
        .filter(ext, &[ext]);
        self.dialog = Some((kind, crate::file_dialog::FileDialog::open(ctx, spec)));
    }

    /// Takes the file chosen in the save dialog and exports to it.
    pub(super) fn poll_dialog(&mut self, ctx: &egui::Context, facts: &Facts) {
        match crate::file_dialog::poll_save(&mut self.dialog, ctx) {
            None => {}
            Some(Ok((Export::Csv, path))) => {
                // The outcome is in the window's message.
                let _ = self.export_csv(facts, &path);
            }
            Some(Ok((Export::Png, path))) => self.export_png(path),
            Some(Err(why)) => self.message = Some((why, true)),
        }
    }

    /// Requests the screenshot of a PNG export, or writes it once it arrived.
    pub(super) fn finish_png(&mut self, ctx: &egui::Context) {
        let Some(capture) = &mut self.png else {
            return;
        };
        if let Some((path, saved)) = capture.poll(ctx, self.rect) {
            self.png = None;
            self.say_saved(&path, saved.as_ref().map_err(Clone::clone));
        }
    }
}

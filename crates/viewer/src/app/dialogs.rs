//! The file dialogs (open, open part, save an export), each on a thread of its own so that
//! the UI keeps drawing, and files dropped on the window.

use std::path::PathBuf;

use super::App;
use super::export::Export;
use crate::jobs::Job;
use crate::loader::LoadSource;

impl App {
    pub(super) fn ask_open(&mut self, ctx: &egui::Context, part: bool) {
        // The dialog blocks its thread; the UI keeps drawing.
        let job = Job::spawn_outside_pool(ctx, "open-dialog", |_| {
            rfd::FileDialog::new()
                .add_filter("Paraver trace", &["prv", "xz", "gz"])
                .add_filter("All files", &["*"])
                .pick_file()
        });
        self.open_dialog = Some((job, part));
    }

    pub(super) fn ask_save(&mut self, ctx: &egui::Context, kind: Export) {
        let (name, ext) = match kind {
            Export::Png => ("timeline.png", "png"),
            Export::Csv => ("time_per_value.csv", "csv"),
        };
        let job = Job::spawn_outside_pool(ctx, "save-dialog", move |_| {
            rfd::FileDialog::new()
                .set_file_name(name)
                .add_filter(ext, &[ext])
                .save_file()
        });
        self.save_dialog = Some((kind, job));
    }

    pub(super) fn poll_dialogs(&mut self, ctx: &egui::Context) {
        if let Some((job, part)) = &mut self.open_dialog
            && let Some(picked) = job.poll()
        {
            let part = *part;
            self.open_dialog = None;
            match picked {
                Some(path) if part => self.ask_part(path),
                Some(path) => self.open(ctx, LoadSource::File(path)),
                None => {}
            }
        }
        if let Some((kind, job)) = &mut self.save_dialog
            && let Some(picked) = job.poll()
        {
            let kind = *kind;
            self.save_dialog = None;
            if let Some(path) = picked {
                match kind {
                    Export::Png => self.export_png(path),
                    Export::Csv => {
                        self.status = match self.export_csv(&path) {
                            Ok(()) => format!("saved {}", path.display()),
                            Err(e) => format!("could not save {}: {e}", path.display()),
                        }
                    }
                }
            }
        }
        if self.open_dialog.is_some() || self.save_dialog.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    pub(super) fn handle_drops(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(path) = dropped.into_iter().next() {
            self.open(ctx, LoadSource::File(path));
        }
    }
}

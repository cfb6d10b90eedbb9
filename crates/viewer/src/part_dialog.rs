//! "Open part of a trace": a time range and/or some threads, with the memory each choice is
//! expected to need. Shown when a trace is too large for the memory available, and from
//! File > Open part of a trace….

use std::path::PathBuf;

use egui::{RichText, Ui};

use super::jobs::Job;
use super::theme;
use prvscope_format::units::human_bytes;
use prvscope_format::{Subset, ThreadSpec};
use prvscope_import::estimate::MemoryEstimate;

/// What the user chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartChoice {
    /// Load this part (the whole trace when the subset is whole), without checking memory.
    Load(PathBuf, Subset),
    /// Convert the whole trace into the store cache a batch at a time, then open it from
    /// there.
    Convert(PathBuf),
    Cancel,
}

/// The dialog's state.
pub struct PartDialog {
    pub path: PathBuf,
    pub estimate: Option<MemoryEstimate>,
    pending: Option<Job<std::io::Result<MemoryEstimate>>>,
    /// Why the estimate failed.
    estimate_error: Option<String>,
    pub from: String,
    pub to: String,
    pub threads: String,
    /// Why the whole trace cannot be converted into the store cache (it is off), if so.
    pub no_convert: Option<String>,
}

impl PartDialog {
    /// The dialog for a trace whose estimate is known (the loader found it too large): the
    /// range is set to what is expected to fit in 80% of the memory available.
    pub fn with_estimate(path: PathBuf, estimate: MemoryEstimate) -> Self {
        let fits = estimate
            .available_bytes
            .and_then(|a| estimate.range_that_fits(a / 10 * 8));
        let (from, to) = match fits {
            Some((from, to)) if estimate.too_large() => (
                if from == 0 {
                    String::new()
                } else {
                    from.to_string()
                },
                to.to_string(),
            ),
            _ => (String::new(), String::new()),
        };
        PartDialog {
            path,
            estimate: Some(estimate),
            pending: None,
            estimate_error: None,
            from,
            to,
            threads: String::new(),
            no_convert: None,
        }
    }

    /// The dialog for a trace the user picked: the estimate is made on another thread (it
    /// may decode a sample of a compressed file); `ctx` is repainted when it is done.
    pub fn estimating(ctx: &egui::Context, path: PathBuf, available_override: Option<u64>) -> Self {
        let job = path.clone();
        // Read alone, not queued behind the pool's work.
        let pending = Job::spawn_outside_pool(ctx, "memory-estimate", move |_| {
            prvscope_import::estimate::estimate(&job).map(|mut e| {
                if available_override.is_some() {
                    e.available_bytes = available_override;
                }
                e
            })
        });
        PartDialog {
            path,
            estimate: None,
            pending: Some(pending),
            estimate_error: None,
            from: String::new(),
            to: String::new(),
            threads: String::new(),
            no_convert: None,
        }
    }

    /// The part the fields describe, or what is wrong with them.
    pub fn subset(&self) -> Result<Subset, String> {
        // Ticks, or a time with its unit, in the trace's ticks once its header is read.
        let npt = self
            .estimate
            .as_ref()
            .and_then(|e| e.header.as_ref())
            .map_or(1, |h| h.time_unit.ns_per_tick());
        let tick = |s: &str, name: &str| -> Result<Option<u64>, String> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            prvscope_format::units::parse_time(s, npt)
                .map(Some)
                .map_err(|e| format!("{name}: {e}"))
        };
        let from = tick(&self.from, "From")?;
        let to = tick(&self.to, "To")?;
        if let (Some(a), Some(b)) = (from, to)
            && b < a
        {
            return Err(format!("To ({b}) is before From ({a})"));
        }
        let threads = if self.threads.trim().is_empty() {
            None
        } else {
            Some(
                self.threads
                    .parse::<ThreadSpec>()
                    .map_err(|e| format!("Threads: {e}"))?,
            )
        };
        let subset = Subset { from, to, threads };
        if let (Some(spec), Some(h)) = (
            &subset.threads,
            self.estimate.as_ref().and_then(|e| e.header.as_ref()),
        ) {
            spec.resolve(&prvscope_format::RowMap::new(h))
                .map_err(|e| format!("Threads: {e}"))?;
        }
        Ok(subset)
    }

    /// Draws the dialog; returns what the user chose, once they have.
    pub fn show(&mut self, ctx: &egui::Context) -> Option<PartChoice> {
        if let Some(job) = &mut self.pending {
            match job.poll() {
                Some(Ok(e)) => {
                    self.estimate = Some(e);
                    self.pending = None;
                }
                Some(Err(e)) => {
                    self.estimate_error = Some(e.to_string());
                    self.pending = None;
                }
                None if job.is_running() => {
                    ctx.request_repaint_after(std::time::Duration::from_millis(50));
                }
                None => self.pending = None,
            }
        }
        let mut choice = None;
        let mut open = true;
        egui::Window::new("Open part of a trace")
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .default_width(460.0)
            .show(ctx, |ui| choice = self.body(ui));
        if !open {
            choice = Some(PartChoice::Cancel);
        }
        choice
    }

    fn body(&mut self, ui: &mut Ui) -> Option<PartChoice> {
        let name = self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        ui.label(RichText::new(name).strong())
            .on_hover_text(self.path.display().to_string());
        match (&self.estimate, &self.estimate_error) {
            (Some(e), _) => {
                let text = format!(
                    "The whole trace needs about {} to load ({} of text); {} available.",
                    human_bytes(e.whole_bytes),
                    human_bytes(e.text_bytes),
                    e.available_bytes
                        .map_or_else(|| "memory".into(), human_bytes)
                        + if e.available_bytes.is_some() {
                            ""
                        } else {
                            " unknown"
                        }
                );
                if e.too_large() {
                    ui.label(RichText::new(text).color(theme::WARNING));
                    ui.label("Load a time range or some threads instead:");
                } else {
                    ui.label(text);
                }
                if let Some(h) = &e.header {
                    let seconds = h.end_time as f64 * h.time_unit.ns_per_tick() as f64 / 1e9;
                    ui.label(format!(
                        "It lasts {} {} ({seconds:.3} s) and has {} threads.",
                        h.end_time,
                        h.time_unit,
                        h.thread_count()
                    ));
                }
            }
            (None, Some(err)) => {
                ui.label(RichText::new(format!("Could not read it: {err}")).color(theme::ERROR));
            }
            (None, None) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Estimating the memory it needs…");
                });
            }
        }
        ui.add_space(6.0);
        egui::Grid::new("part-fields")
            .num_columns(2)
            .show(ui, |ui| {
                for (name, value, hint) in [
                    (
                        "From",
                        &mut self.from,
                        "the start: ticks, or 2.5s, 300ms, 1200us",
                    ),
                    ("To", &mut self.to, "the end: ticks, or 2.5s, 300ms, 1200us"),
                    ("Threads", &mut self.threads, "all, or 1-8,12 or 1.2"),
                ] {
                    let label = ui.label(name);
                    ui.add(egui::TextEdit::singleline(value).hint_text(hint))
                        .labelled_by(label.id);
                    ui.end_row();
                }
            });
        let subset = self.subset();
        let mut loadable = None;
        match &subset {
            Ok(s) => {
                if let Some(e) = &self.estimate {
                    let need = e.bytes_for(s);
                    let fits = e.available_bytes.is_none_or(|a| need <= a);
                    let text = format!("This part needs about {}.", human_bytes(need));
                    ui.label(if fits {
                        RichText::new(text)
                    } else {
                        RichText::new(text).color(theme::WARNING)
                    });
                }
                loadable = Some(s.clone());
            }
            Err(e) => {
                ui.label(RichText::new(e).color(theme::ERROR));
            }
        }
        let mut choice = None;
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            if ui
                .add_enabled(loadable.is_some(), egui::Button::new("Load this part"))
                .clicked()
                && let Some(s) = loadable.take()
            {
                choice = Some(PartChoice::Load(self.path.clone(), s));
            }
            if ui.button("Load everything").clicked() {
                choice = Some(PartChoice::Load(self.path.clone(), Subset::default()));
            }
            let convert = ui
                .add_enabled(
                    self.no_convert.is_none(),
                    egui::Button::new("Convert and open everything"),
                )
                .on_hover_text(
                    "Converts the whole trace into the store cache a batch at a time, in the memory \
                     available, then opens it from there (its columns are read from the file); \
                     later opens read the cache at once.",
                )
                .on_disabled_hover_text(self.no_convert.clone().unwrap_or_default());
            if convert.clicked() {
                choice = Some(PartChoice::Convert(self.path.clone()));
            }
            if ui.button("Cancel").clicked() {
                choice = Some(PartChoice::Cancel);
            }
        });
        choice
    }
}

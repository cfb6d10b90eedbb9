//! A histogram window's exports and its cells' context menu: the whole table as paramedir's
//! text, the plane shown as CSV (every row and column, the hidden ones too, then the
//! totals), each to a file chosen in a save dialog on a thread of its own, or copied; and a
//! cell's time on the timeline. Every outcome is said in the window.

use std::fmt::Write as _;
use std::path::Path;

use prvscope_paraver::histogram::TOTALS;
use prvscope_paraver::number::fixed;

use super::HistogramWindow;
use crate::file_dialog::{FileDialog, Kind, Spec};

/// What the user asked to save.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    /// The plane shown, as CSV.
    Csv,
    /// Every plane, as paramedir's text.
    Text,
}

/// What a cell's context menu asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CellAction {
    /// Show on the timeline the time the cell counts: (row, column).
    Show(usize, usize),
    Save(Export),
}

fn csv_field(x: &str) -> String {
    if x.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", x.replace('"', "\"\""))
    } else {
        x.to_owned()
    }
}

impl HistogramWindow {
    /// The plane shown as CSV: `object` and every column's name, a line per row (an empty
    /// cell is empty), then the six totals (an undefined one is empty). Cells with
    /// paramedir's 2 decimals.
    pub fn csv(&self) -> String {
        let h = &self.analysis.histogram;
        let Some(p) = h.planes.get(self.plane) else {
            return String::new();
        };
        let mut s = String::from("object");
        for c in &p.columns {
            let _ = write!(s, ",{}", csv_field(c));
        }
        s.push('\n');
        for (r, row) in p.cells.iter().enumerate() {
            s.push_str(&csv_field(&h.row_labels[r]));
            for c in 0..p.columns.len() {
                s.push(',');
                if let Some(v) = row.get(c).copied().flatten() {
                    s.push_str(&fixed(v, 2));
                }
            }
            s.push('\n');
        }
        for (k, name) in TOTALS.iter().enumerate() {
            s.push_str(name);
            for t in &p.totals {
                s.push(',');
                if !t[k].is_nan() {
                    s.push_str(&fixed(t[k], 2));
                }
            }
            s.push('\n');
        }
        s
    }

    /// Writes `kind` to `path`; the outcome is the window's message.
    pub fn export(&mut self, kind: Export, path: &Path) -> std::io::Result<()> {
        let text = match kind {
            Export::Csv => self.csv(),
            Export::Text => self.analysis.histogram.text(),
        };
        let result = std::fs::write(path, text);
        self.message = Some(match &result {
            Ok(()) => (format!("saved {}", path.display()), false),
            Err(e) => (format!("could not save {}: {e}", path.display()), true),
        });
        result
    }

    /// The window's last message (saved, not saved, why not), and whether it is a failure.
    pub fn message(&self) -> Option<(&str, bool)> {
        self.message.as_ref().map(|(m, f)| (m.as_str(), *f))
    }

    /// Opens a save dialog for `kind`.
    pub(super) fn ask_save(&mut self, ctx: &egui::Context, kind: Export) {
        let ext = match kind {
            Export::Csv => "csv",
            Export::Text => "txt",
        };
        let stem = crate::file_dialog::safe_stem(&self.analysis.name);
        let spec = Spec::new("Save the histogram", Kind::Save(format!("{stem}.{ext}")))
            .filter(ext, &[ext]);
        self.dialog = Some((kind, FileDialog::open(ctx, spec)));
    }

    /// Takes the file chosen in the save dialog and writes to it.
    pub(super) fn poll_dialog(&mut self, ctx: &egui::Context) {
        match crate::file_dialog::poll_save(&mut self.dialog, ctx) {
            None => {}
            // The outcome is in the window's message.
            Some(Ok((kind, path))) => {
                let _ = self.export(kind, &path);
            }
            Some(Err(why)) => self.message = Some((why, true)),
        }
    }

    /// The time cell (`r`, `c`) counts, from its first interval's start to its last one's
    /// end, on the threads of its row; why not when there is none (a partner column, a row
    /// of CPUs).
    pub fn cell_time(&self, r: usize, c: usize) -> Result<crate::frame::TimeWindow, String> {
        let plane = self
            .analysis
            .histogram
            .planes
            .get(self.plane)
            .ok_or("no plane")?;
        let (lo, hi) = plane
            .column_values
            .get(c)
            .copied()
            .flatten()
            .ok_or("a column of partners holds no time range of its own")?;
        let object = *self
            .analysis
            .histogram
            .row_objects
            .get(r)
            .ok_or("no such row")?;
        let row = self
            .analysis
            .control
            .rows
            .get(object)
            .ok_or("no such row")?;
        let mut hold = row
            .iter()
            .filter(|i| i.end > i.begin && i.value >= lo && i.value < hi);
        let first = hold
            .next()
            .ok_or("the cell's object never holds that value")?;
        let last = hold.next_back().unwrap_or(first);
        Ok(crate::frame::TimeWindow::from_bounds(first.begin, last.end))
    }

    /// A cell's context menu.
    pub(super) fn cell_menu(
        ui: &mut egui::Ui,
        value: Option<f64>,
        cell: (usize, usize),
        histogram: &prvscope_paraver::histogram::Histogram,
        action: &mut Option<CellAction>,
    ) {
        if let Some(v) = value
            && ui.button("Copy the value").clicked()
        {
            ui.ctx().copy_text(fixed(v, 2));
            ui.close();
        }
        if ui.button("Copy the table (paramedir's text)").clicked() {
            ui.ctx().copy_text(histogram.text());
            ui.close();
        }
        if ui.button("Save as CSV…").clicked() {
            *action = Some(CellAction::Save(Export::Csv));
            ui.close();
        }
        if ui.button("Save as text…").clicked() {
            *action = Some(CellAction::Save(Export::Text));
            ui.close();
        }
        if value.is_some() && ui.button("Show its time in the timeline").clicked() {
            *action = Some(CellAction::Show(cell.0, cell.1));
            ui.close();
        }
    }
}

//! The reports of a trace: what its loading skipped or did not find (the load report), and
//! what a cfg computed on it did not show, and why (the cfg report). Both are windows of
//! their trace ([`ToolWindow`]) and send no command.

use egui::RichText;
use prvscope_store::Trace;

use crate::theme;
use crate::windows::{Seen, ToolWindow};

/// The load report: the loader's warnings and what the trace lacks. It stays with its trace,
/// shown or hidden.
pub struct LoadReport {
    /// Drawn this frame (View > Load report, or a load with warnings).
    pub shown: bool,
    /// What the trace lacks ([`Trace::incomplete`], found once): side files not found,
    /// records cut short.
    incomplete: Vec<String>,
}

impl LoadReport {
    /// The report of a trace just loaded: shown when the loader skipped anything or the file
    /// was cut short.
    pub fn new(trace: &Trace) -> Self {
        let incomplete = trace.incomplete();
        let cut_short = trace.records_cut_short().is_some();
        Self {
            shown: !trace.report.is_empty() || cut_short,
            incomplete,
        }
    }

    /// What the trace lacks, a line each.
    pub fn incomplete(&self) -> &[String] {
        &self.incomplete
    }
}

impl ToolWindow for LoadReport {
    fn title(&self) -> String {
        "Load report".to_owned()
    }

    fn is_open(&self) -> bool {
        true
    }

    fn poll(&mut self, _ctx: &egui::Context, _seen: &Seen<'_>) {}

    fn show(&mut self, ctx: &egui::Context, seen: &Seen<'_>) {
        if !self.shown {
            return;
        }
        let mut open = true;
        crate::windows::placed(
            ctx,
            egui::Id::unique(("load report", &seen.trace.path)),
            &seen.title(&self.title()),
            egui::Window::new(seen.title(&self.title()))
                .id(egui::Id::unique(("load report", &seen.trace.path)))
                .open(&mut open)
                .default_width(520.0),
        )
        .show(ctx, |ui| {
            for note in &self.incomplete {
                ui.label(RichText::new(note).color(theme::WARNING));
            }
            if seen.trace.report.is_empty() {
                ui.label("Every record of the file was read.");
            }
            for w in seen.trace.report.warnings() {
                ui.label(RichText::new(w).color(theme::WARNING));
            }
        });
        self.shown = open;
    }
}

/// The window a cfg opens when not all of it is shown: the reason paramedir refuses it, or
/// what of it is not drawn and why, and what paramedir warns about.
pub struct CfgReport {
    /// The cfg's file name.
    pub name: String,
    /// Why the cfg gives nothing, if it does.
    pub refused: Option<String>,
    /// Analyzers and windows not shown, each with its reason.
    pub not_shown: Vec<String>,
    /// What paramedir prints about the cfg and goes on.
    pub warnings: Vec<String>,
    open: bool,
}

impl CfgReport {
    /// The report of cfg `name`.
    pub fn new(
        name: String,
        refused: Option<String>,
        not_shown: Vec<String>,
        warnings: Vec<String>,
    ) -> Self {
        Self {
            name,
            refused,
            not_shown,
            warnings,
            open: true,
        }
    }
}

impl ToolWindow for CfgReport {
    fn title(&self) -> String {
        format!("Configuration {}", self.name)
    }

    fn is_open(&self) -> bool {
        self.open
    }

    fn poll(&mut self, _ctx: &egui::Context, _seen: &Seen<'_>) {}

    fn show(&mut self, ctx: &egui::Context, seen: &Seen<'_>) {
        let mut open = self.open;
        crate::windows::placed(
            ctx,
            egui::Id::unique(("cfg report", &seen.trace.path)),
            &seen.title(&self.title()),
            egui::Window::new(seen.title(&self.title()))
                .id(egui::Id::unique(("cfg report", &seen.trace.path)))
                .open(&mut open)
                .default_width(520.0),
        )
        .show(ctx, |ui| {
            if let Some(why) = &self.refused {
                ui.label("Not computed, as paramedir refuses it:");
                ui.label(RichText::new(why).color(theme::WARNING));
            }
            if !self.not_shown.is_empty() {
                ui.label("Not shown:");
            }
            for why in &self.not_shown {
                ui.label(RichText::new(why).color(theme::WARNING));
            }
            for w in &self.warnings {
                ui.label(format!("paramedir: {w}"));
            }
        });
        self.open = open;
    }
}

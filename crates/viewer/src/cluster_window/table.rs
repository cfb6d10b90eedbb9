//! The clustering window's table of clusters (a click opens a cluster's breakdown) and its
//! place among the floating windows.

use std::sync::Arc;

use egui::RichText;
use prvscope_paraver::cluster::Clustering;

use super::{ClusterWindow, class_color};

impl ClusterWindow {
    pub(super) fn table(&mut self, ui: &mut egui::Ui, c: &Arc<Clustering>) {
        let ns = self.ns_per_tick;
        egui::Grid::new("cluster-table")
            .striped(true)
            .num_columns(10)
            .show(ui, |ui| {
                for h in [
                    "class",
                    "bursts",
                    "time (s)",
                    "share",
                    "mean (ms)",
                    "mean instr",
                    "IPC",
                    "SPMD",
                    "found at eps",
                    "joined later",
                ] {
                    ui.label(RichText::new(h).strong());
                }
                ui.end_row();
                for f in &c.figures {
                    let label = RichText::new(f.class.label()).color(class_color(f.class));
                    let chosen = self
                        .selection
                        .as_ref()
                        .is_some_and(|s| s.class == Some(f.class));
                    if ui.selectable_label(chosen, label).clicked() {
                        self.open_breakdown(ui.ctx(), f.class);
                    }
                    ui.label(f.bursts.to_string());
                    ui.label(format!("{:.6}", f.total as f64 * ns / 1e9));
                    ui.label(format!("{:.2}%", f.share * 100.0));
                    ui.label(format!("{:.3}", f.mean_ns / 1e6));
                    ui.label(
                        f.mean_instructions
                            .map_or_else(|| "-".into(), |v| format!("{v:.0}")),
                    );
                    ui.label(f.ipc.map_or_else(|| "-".into(), |v| format!("{v:.3}")));
                    ui.label(f.spmd.map_or_else(|| "-".into(), |v| format!("{v:.3}")));
                    ui.label(f.found_at.map_or_else(|| "-".into(), |v| format!("{v:.4}")));
                    ui.label(if f.found_at.is_some() {
                        f.joined.to_string()
                    } else {
                        "-".into()
                    });
                    ui.end_row();
                }
            });
        if let Some(n) = &c.spmd_note {
            ui.label(format!("SPMD scores not given: {n}"));
        }
    }
}

impl crate::windows::ToolWindow for ClusterWindow {
    fn title(&self) -> String {
        "Cluster bursts".to_owned()
    }
    fn is_open(&self) -> bool {
        self.open
    }
    fn poll(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        self.visible = seen.visible;
        ClusterWindow::poll(self, ctx);
    }
    fn show(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        self.show_window(ctx, &seen.title("Cluster bursts"));
    }
}

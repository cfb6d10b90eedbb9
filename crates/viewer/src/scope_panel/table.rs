//! The scope table: every scope of the analysis with its location, times and entries,
//! sortable by each column (click: select the scope and open its breakdown).

use std::sync::Arc;

use egui::Ui;

use super::{ScopePanel, SortBy};
use crate::frame::format_in_window;
use prvscope_analysis::panel::table_order;
use prvscope_analysis::scopes::{ScopeAnalysis, ScopeStats};

impl ScopePanel {
    pub(super) fn table_ui(&mut self, ui: &mut Ui, a: &Arc<ScopeAnalysis>) {
        let total = a.threads_ticks();
        let id = Arc::as_ptr(a) as usize;
        if self
            .table
            .table_order
            .as_ref()
            .is_none_or(|t| t.0 != id || t.1 != self.table.sort)
        {
            self.table.table_order = Some((id, self.table.sort, table_order(a, self.table.sort)));
        }
        let order: Vec<&ScopeStats> = self
            .table
            .table_order
            .as_ref()
            .map(|t| {
                t.2.iter()
                    .take(500)
                    .filter_map(|&i| a.scopes.get(i))
                    .collect()
            })
            .unwrap_or_default();
        let mut chosen = None;
        // Compared with another run over this very window: its figure and the delta.
        let region = self
            .against
            .as_ref()
            .map(|g| (g.name.clone(), g.comparison.a.region.clone()));
        let same_types = self
            .against
            .as_ref()
            .is_some_and(|g| g.comparison.a.types == self.an.types);
        let compared = same_types
            && region
                .as_ref()
                .is_some_and(|(_, r)| (a.t0, a.t1) == (r.t0, r.t1));
        if let Some((name, r)) = &region {
            ui.label(if compared {
                egui::RichText::new(format!("compared with {name} (B): its time and B less A"))
                    .weak()
            } else if !same_types {
                egui::RichText::new(format!(
                    "compared with {name} over other scope types: set the types the \
                     comparison chose to see its columns"
                ))
                .color(crate::theme::WARNING)
            } else {
                egui::RichText::new(format!(
                    "compared with {name} over {}: analyse that window to see its columns",
                    r.how
                ))
                .color(crate::theme::WARNING)
            });
        }
        egui::ScrollArea::vertical()
            .id_salt("scope-table")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("scope-table-grid")
                    .striped(true)
                    .num_columns(if compared { 8 } else { 6 })
                    .show(ui, |ui| {
                        for (col, name) in [
                            (SortBy::Name, "Scope"),
                            (SortBy::Location, "Location"),
                            (SortBy::Inclusive, "Inclusive"),
                            (SortBy::Exclusive, "Exclusive"),
                            (SortBy::Inclusive, "%"),
                            (SortBy::Entries, "Entries"),
                        ] {
                            let arrow = if self.table.sort.0 == col && name != "%" {
                                if self.table.sort.1 { " v" } else { " ^" }
                            } else {
                                ""
                            };
                            if ui.button(format!("{name}{arrow}")).clicked() {
                                self.table.sort = (
                                    col,
                                    if self.table.sort.0 == col {
                                        !self.table.sort.1
                                    } else {
                                        true
                                    },
                                );
                            }
                        }
                        if compared {
                            // (B's name is in the line above the table.)
                            ui.label(egui::RichText::new("B").strong());
                            ui.label(egui::RichText::new("B less A").strong());
                        }
                        ui.end_row();
                        for s in &order {
                            let selected = self.sel.selected == Some(s.key);
                            if ui.selectable_label(selected, &s.name).clicked() {
                                chosen = Some(s.key);
                            }
                            ui.label(
                                s.location
                                    .as_ref()
                                    .map_or_else(String::new, ToString::to_string),
                            );
                            ui.label(format_in_window(
                                s.inclusive,
                                self.an.span,
                                self.ns_per_tick,
                            ));
                            ui.label(format_in_window(
                                s.exclusive,
                                self.an.span,
                                self.ns_per_tick,
                            ));
                            ui.label(format!("{:.2}", 100.0 * s.inclusive as f64 / total));
                            ui.label(s.entries.to_string());
                            if compared && let Some(against) = &self.against {
                                let (b, delta) = self.b_of(against, s);
                                let ms = |ns: f64| format!("{:.3} ms", ns / 1e6);
                                ui.label(ms(b as f64));
                                let a_ns = s.inclusive * self.ns_per_tick;
                                ui.label(
                                    egui::RichText::new(format!("{:+.3} ms", delta as f64 / 1e6))
                                        .color(crate::shared::delta_color(delta, a_ns)),
                                );
                            }
                            ui.end_row();
                        }
                    });
            });
        if let Some(k) = chosen {
            self.select(k);
            self.open_breakdown(k);
        }
    }
}

//! The scope panel's popups: a scope's inclusive time per thread, or by thread state.

use egui::{Color32, Rect, Sense, Ui, pos2, vec2};

use super::{Popup, ScopePanel};
use crate::theme;
use prvscope_analysis::scopes::ScopeAnalysis;

impl ScopePanel {
    pub(super) fn popup_ui(&mut self, ctx: &egui::Context, a: &ScopeAnalysis) {
        let Some(popup) = self.popup else {
            return;
        };
        let key = match popup {
            Popup::Threads(k) | Popup::Categories(k) => k,
        };
        let Some(s) = a.find(key).and_then(|i| a.scopes.get(i)) else {
            self.popup = None;
            return;
        };
        let mut open = true;
        let span = a.span().max(1) as f64;
        // Beside the panel, over the timeline's right part.
        let pos = pos2(
            (self.panel_rect.left() - 380.0).max(0.0),
            self.panel_rect.top() + 60.0,
        );
        // (title, caption, bars as (label, fraction, colour)).
        let (title, caption, bars): (String, &str, Vec<(String, f64, Color32)>) = match popup {
            Popup::Threads(_) => (
                format!("Threads: {}", s.name),
                "inclusive time per thread, % of the window",
                self.threads
                    .iter()
                    .map(|(r, name)| {
                        let t = s.inclusive_per_thread.get(*r).copied().unwrap_or(0);
                        let pct = 100.0 * t as f64 / span;
                        (
                            format!("{name}: {pct:.1}%"),
                            pct / 100.0,
                            theme::SCOPE_SELECTED,
                        )
                    })
                    .collect(),
            ),
            Popup::Categories(_) => (
                format!("Categories: {}", s.name),
                "inclusive time by thread state, % of the scope's time",
                s.inclusive_per_category
                    .iter()
                    .map(|(&c, &t)| {
                        let pct = 100.0 * t as f64 / s.inclusive.max(1) as f64;
                        let label = self.category_label(c);
                        (
                            format!("{label}: {pct:.1}%"),
                            pct / 100.0,
                            self.category_color(c),
                        )
                    })
                    .collect(),
            ),
        };
        egui::Window::new(title)
            .default_pos(pos)
            .open(&mut open)
            .default_width(360.0)
            .show(ctx, |ui| {
                ui.label(caption);
                egui::ScrollArea::vertical()
                    .max_height(400.0)
                    .show(ui, |ui| {
                        for (label, fraction, color) in &bars {
                            bar(ui, label, *fraction, *color);
                        }
                    });
            });
        if !open {
            self.popup = None;
        }
    }
}

/// A labelled horizontal bar filled to `fraction`.
fn bar(ui: &mut Ui, text: &str, fraction: f64, color: Color32) {
    ui.horizontal(|ui| {
        let (r, _) = ui.allocate_exact_size(vec2(140.0, 12.0), Sense::hover());
        ui.painter().rect_filled(r, 0.0, theme::BAR_TRACK);
        let w = r.width() * fraction.clamp(0.0, 1.0) as f32;
        ui.painter()
            .rect_filled(Rect::from_min_size(r.min, vec2(w, r.height())), 0.0, color);
        ui.label(text);
    });
}

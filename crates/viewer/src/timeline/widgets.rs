//! Small widgets the side panels share with the timeline's tooltip.

use egui::{Color32, Sense, Ui, vec2};

use super::Details;
use crate::frame;

/// The details of a point: used by the tooltip and the pinned panel.
pub fn details_ui(ui: &mut Ui, d: &Details, ns_per_tick: u64) {
    ui.label(egui::RichText::new(&d.row_label).strong());
    ui.label(format!("time {}", frame::format_ticks(d.time, ns_per_tick)));
    match d.value {
        Some(v) => ui.label(format!("value {v}: {}", d.label)),
        None => ui.label("no value (null)"),
    };
    if let (Some(b), Some(e)) = (d.begin, d.end) {
        ui.label(format!(
            "from {} to {} ({})",
            frame::format_ticks(b, ns_per_tick),
            frame::format_ticks(e, ns_per_tick),
            frame::format_ticks(e.saturating_sub(b), ns_per_tick)
        ));
    }
}

/// A colour swatch followed by a label, for legends.
pub fn swatch(ui: &mut Ui, color: Color32, text: &str) -> egui::Response {
    ui.horizontal(|ui| {
        let (r, _) = ui.allocate_exact_size(vec2(14.0, 12.0), Sense::hover());
        ui.painter().rect_filled(r, 2.0, color);
        ui.label(text)
    })
    .inner
}

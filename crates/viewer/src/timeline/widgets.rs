//! Small widgets the side panels share with the timeline's tooltip.

use egui::{Color32, Sense, Ui, vec2};

use super::Details;
use crate::frame;

/// The details of a point: used by the tooltip and the pinned panel.
pub fn details_ui(ui: &mut Ui, d: &Details, ns_per_tick: u64) {
    // Enough digits to tell the interval's begin from its end (a tenth of its length).
    let npt = ns_per_tick.max(1) as f64;
    let precision = match (d.begin, d.end) {
        (Some(b), Some(e)) if e > b => ((e - b) as f64 * npt / 10.0).clamp(1.0, 1e6),
        _ => 1.0,
    };
    let time = |ticks: u64| frame::format_time(ticks as f64 * npt, precision);
    ui.label(egui::RichText::new(&d.row_label).strong());
    ui.label(format!("time {}", time(d.time)));
    match d.value {
        Some(v) => ui.label(format!("value {v}: {}", d.label)),
        // A value whose raw code means nothing (a cfg window on a gradient), or several
        // types' values (a view drawn in lanes), one a line.
        None if !d.label.is_empty() && d.label != "null" => ui.label(format!("value {}", d.label)),
        None => ui.label("no value (null)"),
    };
    if let (Some(b), Some(e)) = (d.begin, d.end) {
        ui.label(format!(
            "from {} to {} ({})",
            time(b),
            time(e),
            time(e.saturating_sub(b))
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

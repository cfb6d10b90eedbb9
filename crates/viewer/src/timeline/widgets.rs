//! Small widgets the side panels share with the timeline's tooltip.

use egui::{Color32, Sense, Ui, vec2};

use super::Details;
use crate::frame;
use prvscope_store::Trace;
use prvscope_store::comm_index::{Bundle, CommIndex};

/// The details of a point: used by the tooltip and the pinned panel.
pub fn details_ui(ui: &mut Ui, d: &Details, ns_per_tick: u64, span: u64) {
    let lines = details_lines(d, ns_per_tick, span);
    if let Some((first, rest)) = lines.split_first() {
        ui.label(egui::RichText::new(first).strong());
        for l in rest {
            ui.label(l);
        }
    }
}

/// The lines of [`details_ui`]: the row, the time, the value, the interval. Times have the
/// digits the window (`span` ticks) needs, and enough to tell the interval's begin from its
/// end.
pub fn details_lines(d: &Details, ns_per_tick: u64, span: u64) -> Vec<String> {
    let npt = ns_per_tick.max(1) as f64;
    let window = frame::window_precision_ns(span, ns_per_tick);
    let precision = match (d.begin, d.end) {
        (Some(b), Some(e)) if e > b => window.min((e - b) as f64 * npt / 10.0).max(npt),
        _ => window,
    };
    let time = |ticks: u64| frame::format_time(ticks as f64 * npt, precision);
    let mut out = vec![d.row_label.clone(), format!("time {}", time(d.time))];
    out.push(match d.value {
        Some(v) => format!("value {v}: {}", d.label),
        // A value whose raw code means nothing (a cfg window on a gradient), or several
        // types' values (a view drawn in lanes), one a line.
        None if !d.label.is_empty() && d.label != "null" => format!("value {}", d.label),
        None => "no value (null)".to_owned(),
    });
    if let (Some(b), Some(e)) = (d.begin, d.end) {
        out.push(format!(
            "from {} to {} ({})",
            time(b),
            time(e),
            time(e.saturating_sub(b))
        ));
    }
    out
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

/// At most this many messages of a line are listed one by one.
const LISTED_MESSAGES: usize = 8;

/// The messages a communication line stands for.
pub fn comm_ui(
    ui: &mut Ui,
    trace: &Trace,
    index: &CommIndex,
    b: &Bundle,
    ns_per_tick: u64,
    span: u64,
) {
    let comms = trace.store.comms();
    let ids = index.messages(b.start, b.end);
    let name = |row: u32| trace.thread_name(row as usize);
    let t = |ticks: u64| frame::format_in_window(ticks, span, ns_per_tick);
    if let (Some(&first), Some(&last)) = (ids.first(), ids.last())
        && let (Some(c0), Some(c1)) = (comms.get(first as usize), comms.get(last as usize))
    {
        if b.count > 1 {
            ui.label(
                egui::RichText::new(format!(
                    "{} messages from {} to {}",
                    b.count,
                    name(c0.send_row),
                    name(c0.recv_row)
                ))
                .strong(),
            );
            ui.label(format!("sent from {} to {}", t(c0.lsend), t(c1.lsend)));
            let bytes: u64 = ids
                .iter()
                .filter_map(|&i| comms.get(i as usize))
                .map(|c| c.size)
                .sum();
            ui.label(format!("{bytes} bytes in all"));
            ui.separator();
        }
        for &i in ids.iter().take(LISTED_MESSAGES) {
            let Some(c) = comms.get(i as usize) else {
                continue;
            };
            ui.label(format!(
                "{} to {}: sent {} (physical {}), received {} (physical {}), {} bytes, tag {}",
                name(c.send_row),
                name(c.recv_row),
                t(c.lsend),
                t(c.psend),
                t(c.lrecv),
                t(c.precv),
                c.size,
                c.tag
            ));
        }
        if ids.len() > LISTED_MESSAGES {
            ui.label(format!("… and {} more", ids.len() - LISTED_MESSAGES));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(time: u64, begin: u64, end: u64) -> Details {
        Details {
            row_label: "THREAD 1.1.1".into(),
            time,
            value: Some(1),
            label: "Running".into(),
            begin: Some(begin),
            end: Some(end),
        }
    }

    #[test]
    fn times_have_the_digits_the_window_needs() {
        // A long state under the pointer, at 633.509 ms, in windows of 100 ns, 10 us, 10 s.
        let d = at(633_509_123, 600_000_000, 700_000_000);
        assert_eq!(
            details_lines(&d, 1, 100)[1..],
            [
                "time 633.509123 ms",
                "value 1: Running",
                "from 600.000000 ms to 700.000000 ms (100.000000 ms)"
            ]
        );
        assert_eq!(details_lines(&d, 1, 10_000)[1], "time 633.50912 ms");
        assert_eq!(details_lines(&d, 1, 10_000_000_000)[1], "time 634 ms");
        // A time of a microsecond trace is never given below its tick.
        let d = at(633_509, 600_000, 700_000);
        assert_eq!(details_lines(&d, 1000, 1)[1], "time 633.509 ms");
        // A short interval still tells its begin from its end in a wide window.
        let d = at(5_000_000_150, 5_000_000_100, 5_000_000_300);
        assert_eq!(
            details_lines(&d, 1, 10_000_000_000)[3],
            "from 5.00000010 s to 5.00000030 s (200 ns)"
        );
    }
}

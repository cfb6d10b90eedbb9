//! The Scopes tab of a window of intervals (a cluster's bursts): the scopes the intervals
//! run in, the time outside them, and where the intervals end. What it lists is found once,
//! when the analysis arrives ([`Spans::of`]), not every frame.

use std::collections::BTreeMap;

use egui::{RichText, Ui};

use super::Facts;
use crate::frame::format_in_window;
use prvscope_analysis::breakdown::Breakdown;
use prvscope_analysis::scopes::ScopeAnalysis;

/// The most scopes (and stacks) the tab lists.
const MAX_ROWS: usize = 200;

/// What the tab lists.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    /// The scopes of the types listed with time in the intervals (indices into the
    /// analysis's scopes, largest first).
    scopes: Vec<usize>,
    /// The time outside every scope of the types listed.
    outside: u64,
    /// The stacks open where intervals end (names, outermost first) and how many end there,
    /// most first.
    ends: Vec<(String, u64)>,
}

impl Spans {
    /// What `a` gives for the types of `type_labels` (other types, as the MPI calls'
    /// callers, tell only where the intervals end).
    pub fn of(a: &ScopeAnalysis, type_labels: &BTreeMap<u32, String>) -> Self {
        let listed_scope = |i: usize| {
            a.scopes
                .get(i)
                .is_some_and(|s| type_labels.contains_key(&s.key.ty))
        };
        let listed: Vec<bool> = a
            .blocks
            .iter()
            .map(|b| b.path.iter().any(|&i| listed_scope(i)))
            .collect();
        let outside = a
            .cells
            .iter()
            .filter(|c| !listed.get(c.block).copied().unwrap_or(false))
            .map(|c| c.ticks)
            .sum();
        let scopes = (0..a.scopes.len())
            .filter(|&i| listed_scope(i) && a.scopes.get(i).is_some_and(|s| s.inclusive > 0))
            .collect();
        let mut ends: Vec<(String, u64)> = a
            .ends
            .iter()
            .map(|&(block, n)| {
                let path: Vec<&str> = a
                    .blocks
                    .get(block)
                    .map(|b| b.path.as_slice())
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|&i| a.scopes.get(i).map(|s| s.name.as_str()))
                    .collect();
                (path.join(" > "), n)
            })
            .collect();
        ends.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
        Spans {
            scopes,
            outside,
            ends,
        }
    }
}

/// Draws the tab: `intervals` is how many intervals the analysis was restricted to.
pub(super) fn ui(
    ui: &mut Ui,
    (a, spans): (&ScopeAnalysis, &Spans),
    b: &Breakdown,
    facts: &Facts,
    (type_labels, intervals): (&BTreeMap<u32, String>, usize),
) {
    let total = b.total.max(1) as f64;
    let span = b.span();
    let ns = facts.ns_per_tick;
    if spans.scopes.is_empty() {
        let types: Vec<&str> = type_labels.values().map(String::as_str).collect();
        ui.label(if types.is_empty() {
            "No scope type is read (the scope panel's types are empty): all the time is \
             outside every scope."
                .to_owned()
        } else {
            format!(
                "No scope of the types read ({}) holds time of the intervals: they lie outside \
                 all of them (bursts are outside MPI calls; a trace with function events or \
                 OpenMP's outlined functions shows them here).",
                types.join(", ")
            )
        });
    } else {
        let n = spans.scopes.len();
        ui.label(format!(
            "{n} {} time of the intervals (a scope's time includes the scopes it calls)",
            if n == 1 { "scope holds" } else { "scopes hold" }
        ));
    }
    egui::ScrollArea::vertical()
        .id_salt("breakdown-scopes")
        .show(ui, |ui| {
            egui::Grid::new("breakdown-scopes-grid")
                .striped(true)
                .num_columns(5)
                .show(ui, |ui| {
                    for h in ["type", "scope", "time", "share", "source"] {
                        ui.label(RichText::new(h).strong());
                    }
                    ui.end_row();
                    for s in spans
                        .scopes
                        .iter()
                        .take(MAX_ROWS)
                        .filter_map(|&i| a.scopes.get(i))
                    {
                        let ty = type_labels
                            .get(&s.key.ty)
                            .cloned()
                            .unwrap_or_else(|| s.key.ty.to_string());
                        ui.label(ty);
                        ui.label(&s.name);
                        ui.label(format_in_window(s.inclusive, span, ns));
                        ui.label(format!("{:.2}%", 100.0 * s.inclusive as f64 / total));
                        ui.label(
                            s.location
                                .as_ref()
                                .map_or_else(String::new, |l| format!("{}:{}", l.file, l.line)),
                        );
                        ui.end_row();
                    }
                    ui.label("");
                    ui.label(RichText::new("outside every scope").italics());
                    ui.label(format_in_window(spans.outside, span, ns));
                    ui.label(format!("{:.2}%", 100.0 * spans.outside as f64 / total));
                    ui.label("");
                    ui.end_row();
                });
            if spans.scopes.len() > MAX_ROWS {
                ui.label(format!(
                    "{} more scopes with less time not listed",
                    spans.scopes.len() - MAX_ROWS
                ));
            }
            ends(ui, spans, intervals);
        });
}

/// Where the intervals end: the stacks open at their ends (for bursts, the call that ends
/// each one), by how many end there; those ending at the window's end have no stack.
fn ends(ui: &mut Ui, spans: &Spans, intervals: usize) {
    let found: u64 = spans.ends.iter().map(|e| e.1).sum();
    let at_end = (intervals as u64).saturating_sub(found);
    let n = (found + at_end).max(1) as f64;
    ui.add_space(8.0);
    ui.label(
        RichText::new(
            "Where they end: the scopes open at each one's end (with the MPI call's callers, \
             where the trace has them)",
        )
        .strong(),
    );
    egui::Grid::new("breakdown-ends-grid")
        .striped(true)
        .num_columns(3)
        .show(ui, |ui| {
            for h in ["scopes open (outermost first)", "ends", "share"] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            for (path, count) in spans.ends.iter().take(MAX_ROWS) {
                if path.is_empty() {
                    ui.label(RichText::new("outside every scope").italics());
                } else {
                    ui.label(path);
                }
                ui.label(count.to_string());
                ui.label(format!("{:.2}%", 100.0 * *count as f64 / n));
                ui.end_row();
            }
            if at_end > 0 {
                ui.label(RichText::new("at the end of the trace (nothing follows)").italics());
                ui.label(at_end.to_string());
                ui.label(format!("{:.2}%", 100.0 * at_end as f64 / n));
                ui.end_row();
            }
        });
    if spans.ends.len() > MAX_ROWS {
        ui.label(format!(
            "{} more stacks with fewer ends not listed",
            spans.ends.len() - MAX_ROWS
        ));
    }
}

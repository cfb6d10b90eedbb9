//! Analysis > Compare with: the trace shown (A) against another open trace (B), as
//! `prvscope compare` computes it (`prvscope_compare`): per scope and per state, A, B, B less
//! A and its share of A, per thread; the POP metrics of both. The runs are aligned on the whole
//! run or on a region found by an event in each; "Show B under A" stacks B's timeline under
//! A's in their synchronize group, shifted so that both show their region from its start.
//!
//! A click on a scope's name shows its time on each thread of both runs and the distribution
//! of its durations in both ([`detail`]).
//!
//! Commands sent: `ShowAligned` (the button).

pub mod detail;

use std::sync::Arc;

use egui::{RichText, Ui};
use prvscope_compare::{self as compare, Comparison, Kind, Order, Region};
use prvscope_store::Trace;

use crate::commands::{Command, send};
use crate::jobs::Job;

/// The comparison of A (the trace shown) with B.
pub struct CompareWindow {
    pub open: bool,
    b: Trace,
    /// How the runs are aligned: the whole run, or the `occurrence`-th value of an event type
    /// (`TYPE` or `TYPE=VALUE`).
    by_event: bool,
    event: String,
    occurrence: usize,
    /// Compute the POP metrics (they replay both runs on an ideal network).
    pop: bool,
    order: Order,
    /// The options the shown comparison (or the running job) used.
    computed: Option<(bool, String, usize, bool)>,
    job: Option<Job<Result<Comparison, String>>>,
    shown: Option<Arc<Comparison>>,
    error: Option<String>,
    /// The scope clicked (type, name), its instances in both runs, and their computation.
    selected: Option<(String, String)>,
    detail: Option<detail::Detail>,
    detail_job: Option<Job<Result<detail::Detail, String>>>,
}

/// A region from the window's fields, or why they do not name one.
fn region_of(by_event: bool, event: &str, n: usize) -> Result<Region, String> {
    if !by_event {
        return Ok(Region::Whole);
    }
    let (ty, value) = match event.split_once('=') {
        Some((t, v)) => (t, Some(v)),
        None => (event, None),
    };
    let ty: u32 = ty
        .trim()
        .parse()
        .map_err(|_| format!("{event:?}: an event type, TYPE or TYPE=VALUE"))?;
    let value = value
        .map(|v| v.trim().parse::<u64>())
        .transpose()
        .map_err(|_| format!("{event:?}: VALUE is a number"))?;
    Ok(Region::Event { ty, value, n })
}

pub use crate::shared::delta_color;

impl CompareWindow {
    /// A comparison of the trace shown with `b`, computed when first shown.
    pub fn new(b: Trace) -> CompareWindow {
        CompareWindow {
            open: true,
            b,
            by_event: false,
            event: String::new(),
            occurrence: 1,
            pop: true,
            order: Order::AbsDelta,
            computed: None,
            job: None,
            shown: None,
            error: None,
            selected: None,
            detail: None,
            detail_job: None,
        }
    }

    /// Shows the time per thread and the durations of the scope of type `ty` (as the table
    /// names it) and `name` in both runs, as a click on its name does.
    pub fn select_scope(&mut self, ty: &str, name: &str) {
        self.selected = Some((ty.to_owned(), name.to_owned()));
    }

    /// The selected scope's instances in both runs, once computed.
    pub fn detail(&self) -> Option<&detail::Detail> {
        self.detail
            .as_ref()
            .filter(|d| self.selected.as_ref() == Some(&d.scope))
    }

    /// The comparison shown, once computed.
    pub fn comparison(&self) -> Option<&Comparison> {
        self.shown.as_deref()
    }

    /// The comparison shown, shared (the scope panel's B columns).
    pub fn comparison_arc(&self) -> Option<&Arc<Comparison>> {
        self.shown.as_ref()
    }

    /// B's name.
    pub fn b_name(&self) -> String {
        crate::shared::trace_file_name(&self.b)
    }

    /// Is it being computed (the comparison or a scope's detail)?
    pub fn computing(&self) -> bool {
        self.job.is_some() || self.detail_job.is_some()
    }

    /// Aligns the runs on the `n`-th value of `event` (`TYPE` or `TYPE=VALUE`) of each, or
    /// on the whole run (`None`).
    pub fn set_region(&mut self, event: Option<(&str, usize)>) {
        match event {
            Some((e, n)) => {
                self.by_event = true;
                e.clone_into(&mut self.event);
                self.occurrence = n.max(1);
            }
            None => self.by_event = false,
        }
    }

    /// Computes the POP metrics or not.
    pub fn set_pop(&mut self, on: bool) {
        self.pop = on;
    }

    fn options(&self) -> (bool, String, usize, bool) {
        (self.by_event, self.event.clone(), self.occurrence, self.pop)
    }

    /// Takes a finished comparison; starts one when the options changed.
    pub fn poll(&mut self, ctx: &egui::Context, a: &Trace) {
        if let Some(job) = &mut self.job
            && let Some(result) = job.poll()
        {
            self.job = None;
            match result {
                Ok(mut c) => {
                    compare::sort(&mut c.rows, self.order);
                    self.shown = Some(Arc::new(c));
                    self.error = None;
                    // A new comparison: the detail shown was of the last one.
                    self.detail = None;
                }
                Err(e) => {
                    self.error = Some(e);
                    self.shown = None;
                }
            }
        }
        if let Some(job) = &mut self.detail_job
            && let Some(result) = job.poll()
        {
            self.detail_job = None;
            match result {
                Ok(d) => self.detail = Some(d),
                Err(e) => self.error = Some(e),
            }
        }
        // A scope selected whose instances are not computed (or not for this comparison).
        if self.detail_job.is_none()
            && self.job.is_none()
            && let (Some(sel), Some(c)) = (&self.selected, &self.shown)
            && self.detail.as_ref().is_none_or(|d| &d.scope != sel)
        {
            let (a, b, c, sel) = (a.clone(), self.b.clone(), Arc::clone(c), sel.clone());
            self.detail_job = Some(Job::spawn(ctx, "compare-scope", move |_| {
                detail::Detail::of((&a, &b), &c, sel)
            }));
        }
        let options = self.options();
        if self.job.is_none() && self.computed.as_ref() != Some(&options) {
            self.computed = Some(options.clone());
            let region = match region_of(options.0, &options.1, options.2) {
                Ok(r) => r,
                Err(e) => {
                    self.error = Some(e);
                    return;
                }
            };
            let (a, b) = (a.clone(), self.b.clone());
            let pop = options.3;
            self.job = Some(Job::spawn(ctx, "compare", move |_| {
                let side = |t: &Trace| -> Result<compare::Run, String> {
                    let name = crate::shared::trace_file_name(t);
                    let found = compare::find(t, &region).map_err(|e| format!("{name}: {e}"))?;
                    let options = compare::Options {
                        types: Vec::new(),
                        pop,
                    };
                    compare::run(t, found, &options).map_err(|e| format!("{name}: {e}"))
                };
                Ok(compare::compare(side(&a)?, side(&b)?))
            }));
        }
    }

    /// Draws the window.
    fn show_window(&mut self, ctx: &egui::Context, a: &Trace) {
        let mut open = self.open;
        let title = format!(
            "Compare {} with {}",
            crate::shared::trace_file_name(a),
            crate::shared::trace_file_name(&self.b)
        );
        crate::windows::placed(
            ctx,
            egui::Id::NULL.with("compare window"),
            &title,
            egui::Window::new(title.clone())
                .id(egui::Id::NULL.with("compare window"))
                .open(&mut open)
                .default_size([820.0, 560.0]),
        )
        .show(ctx, |ui| self.ui(ui, a));
        self.open = open;
    }

    fn ui(&mut self, ui: &mut Ui, a: &Trace) {
        ui.label(
            RichText::new(
                "Times in ms over all threads: a scope's as the scope table gives it, a state's as \
                 stats; delta = B less A",
            )
            .weak(),
        );
        ui.horizontal_wrapped(|ui| {
            ui.label("Align on");
            ui.radio_value(&mut self.by_event, false, "the whole run");
            ui.radio_value(&mut self.by_event, true, "a region found by an event:");
            ui.add_enabled(
                self.by_event,
                egui::TextEdit::singleline(&mut self.event)
                    .hint_text("TYPE or TYPE=VALUE")
                    .desired_width(130.0),
            );
            let label = ui.label("occurrence");
            ui.add_enabled(
                self.by_event,
                egui::DragValue::new(&mut self.occurrence).range(1..=1_000_000),
            )
            .labelled_by(label.id);
            ui.checkbox(&mut self.pop, "POP metrics");
        });
        if let Some(e) = &self.error {
            ui.colored_label(crate::theme::ERROR, e);
        }
        if self.job.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("comparing…");
            });
        }
        let Some(c) = self.shown.clone() else {
            return;
        };
        ui.horizontal_wrapped(|ui| {
            ui.label(format!(
                "A: {} ({} threads), {}   B: {} ({} threads), {}",
                crate::shared::trace_file_name(a),
                c.a.threads,
                c.a.region.how,
                crate::shared::trace_file_name(&self.b),
                c.b.threads,
                c.b.region.how
            ));
            if ui
                .button("Show B under A")
                .on_hover_text(
                    "B's timeline under A's, in their synchronize group, both from the start of \
                     their region",
                )
                .clicked()
            {
                // B's region start at A's (the app scales B's ticks when the two
                // traces count time in different units).
                send(
                    ui.ctx(),
                    Command::ShowAligned {
                        path: self.b.path.clone(),
                        b_start: c.b.region.t0,
                        window: crate::frame::TimeWindow::from_bounds(c.a.region.t0, c.a.region.t1),
                    },
                );
            }
        });
        for n in &c.notes {
            ui.label(RichText::new(n).color(crate::theme::WARNING));
        }
        for (run, notes) in [("A", &c.a.notes), ("B", &c.b.notes)] {
            for n in notes {
                ui.label(RichText::new(format!("{run}: {n}")).weak());
            }
        }
        ui.horizontal_wrapped(|ui| {
            ui.label("Sort by");
            let before = self.order;
            ui.selectable_value(&mut self.order, Order::AbsDelta, "largest change");
            ui.selectable_value(&mut self.order, Order::Delta, "largest increase");
            ui.selectable_value(&mut self.order, Order::A, "A");
            ui.selectable_value(&mut self.order, Order::B, "B");
            ui.selectable_value(&mut self.order, Order::Name, "name");
            if self.order != before
                && let Some(shown) = &mut self.shown
            {
                compare::sort(&mut Arc::make_mut(shown).rows, self.order);
            }
        });
        let clicked = Self::table(ui, &c, self.selected.as_ref(), self.detail.is_some());
        if let Some(sel) = clicked {
            self.selected = Some(sel);
        }
        if self.detail_job.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("its instances in A and B…");
            });
        } else if let Some(d) = self.detail() {
            ui.separator();
            d.ui(ui);
        }
    }

    /// The rows; the scope whose name was clicked.
    fn table(
        ui: &mut Ui,
        c: &Comparison,
        selected: Option<&(String, String)>,
        detail: bool,
    ) -> Option<(String, String)> {
        let mut clicked = None;
        let ms = |ns: f64| format!("{:.3}", ns / 1e6);
        egui::ScrollArea::vertical()
            .id_salt("compare rows")
            .max_height(ui.available_height() * if detail { 0.35 } else { 0.65 })
            .show(ui, |ui| {
                egui::Grid::new("compare grid")
                    .striped(true)
                    .num_columns(8)
                    .show(ui, |ui| {
                        for h in [
                            "kind",
                            "scope",
                            "type",
                            "A ms",
                            "B ms",
                            "delta ms",
                            "delta %",
                            "per thread A / B ms",
                        ] {
                            ui.label(RichText::new(h).strong());
                        }
                        ui.end_row();
                        for r in &c.rows {
                            ui.label(match r.kind {
                                Kind::Scope => "scope",
                                Kind::State => "state",
                            });
                            let key = (r.ty.clone(), r.name.clone());
                            if r.kind == Kind::Scope {
                                if ui
                                    .selectable_label(selected == Some(&key), &r.name)
                                    .on_hover_text(
                                        "Its time per thread and its durations in A and B",
                                    )
                                    .clicked()
                                {
                                    clicked = Some(key);
                                }
                            } else {
                                ui.label(&r.name);
                            }
                            ui.label(&r.ty);
                            ui.label(ms(r.a as f64));
                            ui.label(ms(r.b as f64));
                            let color = delta_color(r.delta(), r.a);
                            ui.label(
                                RichText::new(format!("{:+.3}", r.delta() as f64 / 1e6))
                                    .color(color),
                            );
                            ui.label(match r.delta_percent() {
                                Some(p) => RichText::new(format!("{p:+.1}")).color(color),
                                None if r.b > 0 => RichText::new("new").color(color),
                                None => RichText::new(""),
                            });
                            let per =
                                |ns: u64, of_a| c.per_thread(ns, of_a).map_or_else(String::new, ms);
                            ui.label(format!("{} / {}", per(r.a, true), per(r.b, false)));
                            ui.end_row();
                        }
                    });
            });
        ui.separator();
        match &c.metrics {
            Ok(m) => {
                egui::Grid::new("compare pop").striped(true).show(ui, |ui| {
                    for h in ["POP metric (A the reference)", "A", "B", "delta"] {
                        ui.label(RichText::new(h).strong());
                    }
                    ui.end_row();
                    for m in m {
                        ui.label(m.name);
                        ui.label(m.text(m.a));
                        ui.label(m.text(m.b));
                        ui.label(m.delta_text());
                        ui.end_row();
                    }
                });
            }
            Err(why) => {
                ui.label(RichText::new(format!("No POP metrics: {why}")).weak());
            }
        }
        clicked
    }
}

impl crate::windows::ToolWindow for CompareWindow {
    fn title(&self) -> String {
        format!("Compare with {}", crate::shared::trace_file_name(&self.b))
    }
    fn is_open(&self) -> bool {
        self.open
    }
    fn poll(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        CompareWindow::poll(self, ctx, seen.trace);
    }
    fn show(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        self.show_window(ctx, seen.trace);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::Color32;

    #[test]
    fn a_region_is_read_from_the_windows_fields() {
        assert_eq!(region_of(false, "junk", 3), Ok(Region::Whole));
        assert_eq!(
            region_of(true, "50000002=10", 3),
            Ok(Region::Event {
                ty: 50_000_002,
                value: Some(10),
                n: 3
            })
        );
        assert_eq!(
            region_of(true, " 1000 ", 1),
            Ok(Region::Event {
                ty: 1000,
                value: None,
                n: 1
            })
        );
        assert!(region_of(true, "x", 1).is_err());
        assert!(region_of(true, "5=y", 1).is_err());
    }

    #[test]
    fn increases_are_warm_decreases_cool_and_stronger_with_the_change() {
        let up = delta_color(50, 100);
        let down = delta_color(-50, 100);
        assert!(up.r() > up.b() && down.b() > down.r());
        let bigger = delta_color(100, 100);
        assert!(bigger.g() < up.g(), "a larger increase is more saturated");
        assert_eq!(delta_color(0, 100), Color32::GRAY);
    }
}

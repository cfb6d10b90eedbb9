//! The panels around the timeline: the view list, the legend with the details of the pinned
//! point and the trace's summary, the load report and the status bar.

use egui::{Color32, RichText, Ui};

use super::App;
use crate::frame::thousands;
use crate::theme;
use crate::timeline;
use crate::view::{ColorMode, MPI_CALL_TYPES, Scale, type_label, value_label};
use prvscope_store::signal::SignalSpec;

/// Tells legends of different views apart (their collapsing headers' state).
fn spec_key(spec: &SignalSpec) -> String {
    match spec {
        SignalSpec::States => "states".into(),
        SignalSpec::Events(types) => format!("{types:?}"),
        SignalSpec::Custom(c) => format!("custom {}", c.0.id),
    }
}

/// The entries of a legend (a colour per value): the most drawn first.
fn value_entries(
    ui: &mut Ui,
    trace: &prvscope_store::Trace,
    spec: &SignalSpec,
    coloring: &crate::view::Coloring,
    legend: &[(u64, u32)],
) {
    let total: u64 = legend.iter().map(|e| u64::from(e.1)).sum();
    let mut entries: Vec<(u64, u32)> = legend.to_vec();
    entries.sort_by_key(|e| std::cmp::Reverse(e.1));
    for (value, px) in entries.iter().take(200) {
        let color = coloring.color(*value).unwrap_or(Color32::TRANSPARENT);
        let label = value_label(trace, spec, *value, false);
        let share = 100.0 * f64::from(*px) / total.max(1) as f64;
        let text = if crate::view::raw_is_value(spec) {
            format!("{label} ({value})")
        } else {
            label
        };
        timeline::swatch(ui, color, &text)
            .on_hover_text(format!("{text}: {share:.1}% of the drawn pixels"));
    }
}

/// Colour steps of a gradient's ramp.
const RAMP_STEPS: u32 = 64;

/// A gradient's legend: the colour ramp from the scale's smallest value to its largest,
/// both written under it, what this window draws, and its values in order on demand.
fn gradient_legend(
    ui: &mut Ui,
    trace: &prvscope_store::Trace,
    spec: &SignalSpec,
    coloring: &crate::view::Coloring,
    scale: Option<(u64, u64)>,
    legend: &[(u64, u32)],
) {
    // The ramp of the scale the frame was drawn with.
    let fitted;
    let coloring = match scale {
        Some((a, b)) => {
            fitted = coloring.fitted(Scale::Manual(a, b), std::iter::empty());
            &fitted
        }
        None => coloring,
    };
    let (lo, hi) = coloring.range();
    let raw = crate::view::raw_is_value(spec);
    let name = |v: u64| {
        let label = value_label(trace, spec, v, false);
        if label == v.to_string() {
            thousands(v)
        } else if raw {
            format!("{label} ({})", thousands(v))
        } else {
            label
        }
    };
    let width = ui.available_width().clamp(80.0, 260.0);
    let (rect, response) = ui.allocate_exact_size(egui::vec2(width, 16.0), egui::Sense::hover());
    for k in 0..RAMP_STEPS {
        let v = coloring.value_at(f64::from(k) / f64::from(RAMP_STEPS - 1));
        let x0 = rect.left() + rect.width() * k as f32 / RAMP_STEPS as f32;
        let x1 = rect.left() + rect.width() * (k + 1) as f32 / RAMP_STEPS as f32;
        let c = coloring.color(v).unwrap_or(Color32::TRANSPARENT);
        ui.painter().rect_filled(
            egui::Rect::from_x_y_ranges(x0..=x1 + 0.5, rect.y_range()),
            0.0,
            c,
        );
    }
    if let Some(p) = response.hover_pos() {
        let f = ((p.x - rect.left()) / rect.width()).clamp(0.0, 1.0);
        let v = coloring.value_at(f64::from(f));
        response.on_hover_text_at_pointer(name(v));
    }
    ui.horizontal(|ui| {
        ui.label(RichText::new(name(lo)).small());
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.label(RichText::new(name(hi)).small());
        });
    });
    // Pixels beyond the scale take its end colours: say how many.
    let total: u64 = legend.iter().map(|e| u64::from(e.1)).sum::<u64>().max(1);
    let share = |f: &dyn Fn(u64) -> bool| {
        100.0
            * legend
                .iter()
                .filter(|e| f(e.0))
                .map(|e| u64::from(e.1))
                .sum::<u64>() as f64
            / total as f64
    };
    let (below, above) = (share(&|v| v < lo), share(&|v| v > hi));
    if below > 0.0 || above > 0.0 {
        ui.label(
            RichText::new(format!(
                "beyond the scale, drawn in its end colours: {below:.1}% of the pixels below, \
                 {above:.1}% above"
            ))
            .small(),
        );
    }
    let mut drawn: Vec<u64> = legend.iter().map(|e| e.0).collect();
    drawn.sort_unstable();
    if let (Some(&a), Some(&b)) = (drawn.first(), drawn.last()) {
        ui.label(format!(
            "this window: {} value{} from {} to {}",
            drawn.len(),
            if drawn.len() == 1 { "" } else { "s" },
            name(a),
            name(b)
        ));
    }
    egui::CollapsingHeader::new("values drawn, in order")
        .id_salt(("values drawn", spec_key(spec)))
        .default_open(false)
        .show(ui, |ui| {
            for v in drawn.iter().take(200) {
                let c = coloring.color(*v).unwrap_or(Color32::TRANSPARENT);
                timeline::swatch(ui, c, &name(*v));
            }
        });
}

/// The scale in use, and its ends when they are set by hand: the ends chosen, when they
/// changed.
fn scale_ui(ui: &mut Ui, trace: &prvscope_store::Trace, t: &timeline::Timeline) -> Option<Scale> {
    let current = t.config.scale;
    let Scale::Manual(mut lo, mut hi) = current else {
        ui.label(
            RichText::new(format!(
                "scale: {}{}",
                current.name(),
                if t.config.function == crate::view::GradientFn::Logarithmic {
                    ", logarithmic"
                } else {
                    ""
                }
            ))
            .small(),
        );
        return None;
    };
    let speed = hi.abs_diff(lo) as f64 / 200.0 + 1.0;
    ui.horizontal(|ui| {
        ui.label("scale from");
        ui.add(egui::DragValue::new(&mut lo).speed(speed));
        ui.label("to");
        ui.add(egui::DragValue::new(&mut hi).speed(speed));
    });
    ui.label(
        RichText::new(format!(
            "{} to {}",
            value_label(trace, &t.config.spec, lo, false),
            value_label(trace, &t.config.spec, hi, false)
        ))
        .small(),
    );
    let chosen = Scale::Manual(lo, hi);
    (chosen != current).then_some(chosen)
}

impl App {
    /// The side panel's content, in a child clipped to the panel: the panel's width is the
    /// user's (or the default), never its content's: a long label is cut (whole on hover),
    /// it does not widen the panel and narrow the timeline.
    pub(super) fn side_panel_ui(&mut self, ui: &mut Ui) {
        let rect = ui.available_rect_before_wrap();
        let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect));
        child.set_clip_rect(rect.intersect(ui.clip_rect()));
        child.set_max_width(rect.width());
        self.side_ui(&mut child);
        ui.advance_cursor_after_rect(rect);
    }

    /// The side panel: the view list, then the legend, the details and the trace's summary.
    pub(super) fn side_ui(&mut self, ui: &mut Ui) {
        self.traces_ui(ui);
        let list_height = (ui.available_height() * 0.42).max(80.0);
        ui.allocate_ui(egui::vec2(ui.available_width(), list_height), |ui| {
            self.views_ui(ui);
        });
        ui.separator();
        egui::ScrollArea::vertical()
            .id_salt("side-lower")
            .show(ui, |ui| {
                self.legend_ui(ui);
                self.marks_ui(ui);
            });
    }

    fn views_ui(&mut self, ui: &mut Ui) {
        let Some(l) = &self.loaded else {
            return;
        };
        ui.heading("Views");
        ui.horizontal(|ui| {
            let label = ui.label("Filter");
            ui.add(
                egui::TextEdit::singleline(&mut self.shell.type_filter).hint_text("event types"),
            )
            .labelled_by(label.id);
        });
        let current = l.timeline.config.spec.clone();
        let mut chosen: Option<SignalSpec> = None;
        let types = &l.types;
        egui::ScrollArea::vertical()
            .id_salt("views")
            .show(ui, |ui| {
                for v in &l.cfg_views {
                    let spec = SignalSpec::Custom(v.clone());
                    // Marked as a cfg's: its window may carry a built-in view's name.
                    let label = format!("{} (cfg)", v.0.name);
                    if ui
                        .add(egui::Button::selectable(current == spec, label).truncate())
                        .on_hover_text(format!(
                            "{} (a window of a Paraver configuration)",
                            v.0.name
                        ))
                        .clicked()
                    {
                        chosen = Some(spec);
                    }
                }
                if !l.cfg_views.is_empty() {
                    ui.separator();
                }
                if ui
                    .add(
                        egui::Button::selectable(current == SignalSpec::States, "State").truncate(),
                    )
                    .clicked()
                {
                    chosen = Some(SignalSpec::States);
                }
                let mpi: Vec<u32> = MPI_CALL_TYPES
                    .iter()
                    .copied()
                    .filter(|t| types.contains(t))
                    .collect();
                if !mpi.is_empty()
                    && ui
                        .add(
                            egui::Button::selectable(
                                current == SignalSpec::Events(MPI_CALL_TYPES.to_vec()),
                                "MPI call",
                            )
                            .truncate(),
                        )
                        .on_hover_text(
                            "MPI point-to-point, collective and other calls (50000001-50000003)",
                        )
                        .clicked()
                {
                    chosen = Some(SignalSpec::Events(MPI_CALL_TYPES.to_vec()));
                }
                let filter = self.shell.type_filter.to_lowercase();
                for &ty in types {
                    let label = format!("{} ({ty})", type_label(&l.trace, ty));
                    if !filter.is_empty() && !label.to_lowercase().contains(&filter) {
                        continue;
                    }
                    let selected = matches!(&current, SignalSpec::Events(v) if v.contains(&ty));
                    let r = ui
                        .add(egui::Button::selectable(selected, label.as_str()).truncate())
                        .on_hover_text(format!(
                            "{label}\nClick: this type; Ctrl+click: add it to the view"
                        ));
                    if r.clicked() {
                        let add = ui.input(|i| i.modifiers.command);
                        chosen = Some(match (&current, add) {
                            (SignalSpec::Events(v), true) if !v.contains(&ty) => {
                                let mut v = v.clone();
                                v.push(ty);
                                v.sort_unstable();
                                SignalSpec::Events(v)
                            }
                            _ => SignalSpec::Events(vec![ty]),
                        });
                    }
                }
            });
        if let Some(spec) = chosen
            && spec != current
        {
            self.set_view(spec);
        }
    }

    fn legend_ui(&mut self, ui: &mut Ui) {
        let Some(l) = &self.loaded else {
            return;
        };
        let t = &l.timeline;
        ui.heading("Legend");
        let legend = t.legend();
        let mut scale_chosen = None;
        egui::ScrollArea::vertical()
            .id_salt("legend")
            .max_height(ui.available_height() * 0.55)
            .show(ui, |ui| {
                // A view of several types: a part per type, as its lane is drawn.
                for (j, lane) in t.lanes().iter().enumerate() {
                    let spec = SignalSpec::Events(vec![lane.ty]);
                    ui.label(
                        RichText::new(format!("lane {}: {}", j + 1, type_label(&l.trace, lane.ty)))
                            .strong(),
                    );
                    if lane.legend.is_empty() {
                        ui.label("nothing drawn in this window");
                    } else if t.config.color == ColorMode::Gradient {
                        gradient_legend(
                            ui,
                            &l.trace,
                            &spec,
                            &lane.coloring,
                            lane.scale,
                            &lane.legend,
                        );
                    } else {
                        value_entries(ui, &l.trace, &spec, &lane.coloring, &lane.legend);
                    }
                }
                if t.lanes().is_empty() && legend.is_empty() {
                    ui.label("nothing drawn in this window");
                }
                if t.lanes().is_empty()
                    && t.config.color == ColorMode::Gradient
                    && !legend.is_empty()
                {
                    gradient_legend(
                        ui,
                        &l.trace,
                        &t.config.spec,
                        t.coloring(),
                        t.frame_scale(),
                        legend,
                    );
                } else if t.lanes().is_empty() {
                    value_entries(ui, &l.trace, &t.config.spec, t.coloring(), legend);
                }
                // A view of several types merged: where the file gave two of them at one
                // timestamp in an order the store does not keep, the value there is inferred.
                if let SignalSpec::Events(types) = &t.config.spec
                    && types.len() > 1
                    && t.lanes().is_empty()
                    && let Some((a, b)) = l.trace.store.keeps_order_of(|x| types.contains(&x))
                {
                    ui.label(
                        RichText::new(format!(
                            "types {a} and {b} share timestamps where the trace gives {a} \
                             first: there the value shown is inferred (a call left before \
                             the next is entered)"
                        ))
                        .color(theme::WARNING),
                    );
                }
                if t.config.color != ColorMode::Code {
                    scale_chosen = scale_ui(ui, &l.trace, t);
                }
                if t.config.color == ColorMode::FunctionLine {
                    let (lo, hi) = t.frame_scale().unwrap_or_else(|| t.coloring().range());
                    let name = |v| value_label(&l.trace, &t.config.spec, v, false);
                    ui.label(format!(
                        "function line: {} at a row's bottom, {} at its top",
                        name(lo),
                        name(hi)
                    ));
                }
            });
        if let Some(scale) = scale_chosen
            && let Some(l) = &mut self.loaded
        {
            let mut config = l.timeline.config.clone();
            config.scale = scale;
            l.timeline.apply_config(&l.trace, config);
            return;
        }
        let Some(l) = &self.loaded else {
            return;
        };
        let t = &l.timeline;
        let resource_rows = matches!(
            t.rows().first().map(|r| &r.kind),
            Some(crate::rows::RowKind::Resource(_))
        );
        if resource_rows && t.config.comms {
            ui.add(
                egui::Label::new(
                    "Communications: drawn between threads' rows only (this view's rows are \
                     CPUs, nodes or the system)",
                )
                .wrap(),
            );
        } else if t.pinned_comms_only() {
            let text = match (t.pinned(), t.comms()) {
                (Some(_), Some(c)) => format!(
                    "{} (the pinned thread's only)",
                    crate::frame::comms_legend(c)
                ),
                _ => "Communications: the pinned thread's only; pin a thread (click it) to \
                      draw its messages"
                    .to_owned(),
            };
            ui.add(egui::Label::new(text).wrap());
        } else if let Some(d) = t.comm_density() {
            let pinned = t.pinned().is_some().then(|| t.comms()).flatten();
            ui.add(
                egui::Label::new(format!(
                    "{}; {}",
                    crate::frame::density_legend(d, t.row_height()),
                    crate::frame::pinned_lines_note(pinned)
                ))
                .wrap(),
            );
        } else if let Some(c) = t.comms() {
            ui.add(egui::Label::new(crate::frame::comms_legend(c)).wrap())
                .on_hover_text(
                    "Messages sent in the window between the rows shown. When they are more than \
                     can be drawn one by one, those of a sender-receiver pair sent within a few \
                     pixel columns are drawn as one line (a bundle) from their mean send time to \
                     their mean receive time; thicker lines stand for more messages.",
                );
        }
        ui.separator();
        ui.heading("Details");
        let npt = l.trace.header.time_unit.ns_per_tick();
        match t
            .pointer
            .pinned
            .and_then(|p| t.details(&l.trace, p.row, p.time))
        {
            Some(d) => timeline::details_ui(ui, &d, npt, t.window.span),
            None => {
                ui.label("click the timeline to pin a point and the messages there");
            }
        }
        if let Some(b) = t.pinned_comm() {
            ui.separator();
            timeline::comm_ui(ui, &l.trace, t.comm_index(), b, npt, t.window.span);
        }
        ui.separator();
        ui.heading("Trace");
        let c = l.trace.store.counts();
        // A partial load counts the rows it loaded.
        let rows = l.trace.store.thread_count();
        let loaded = (0..rows).filter(|&r| l.trace.is_row_loaded(r)).count();
        let rows_text = if loaded == rows {
            format!("{rows} rows")
        } else {
            format!("{loaded} of {rows} rows loaded")
        };
        ui.label(format!(
            "{rows_text}, {} ticks ({})",
            thousands(l.trace.header.end_time),
            l.trace.header.time_unit
        ));
        ui.label(format!(
            "{} states, {} events, {} comms",
            c.states, c.events, c.comms
        ));
        if let Some(part) = l.trace.part_description() {
            ui.label(RichText::new(format!("Part loaded: {part}")).color(theme::WARNING));
        }
        for note in l.report.incomplete() {
            ui.label(RichText::new(note).color(theme::WARNING));
        }
        if self.frames.show_timings {
            let how = match l.trace.cache.state {
                prvscope_store::cache::CacheState::Hit => " from the store cache",
                // A store read from the file as soon as it was written: converted into it.
                prvscope_store::cache::CacheState::Built if l.trace.store.is_mapped() => {
                    ", converted into the store cache"
                }
                _ => "",
            };
            ui.label(format!(
                "loaded in {:.2} s{how}",
                l.trace.stats.load_seconds
            ));
        }
        if let Some(note) = cache_note(&l.trace.cache) {
            ui.label(RichText::new(note).color(theme::WARNING));
        }
        if l.trace.store.integrity() == prvscope_store::Integrity::Checking {
            ui.label("checking the store cache file…");
        }
        // Every issue counts, the notes that lost nothing (threads going back in time, values
        // read as null) too: the link says as many as the report lists.
        let warnings = l.trace.report.total();
        if warnings > 0
            && ui
                .link(format!(
                    "{warnings} warning{}",
                    if warnings == 1 { "" } else { "s" }
                ))
                .clicked()
            && let Some(l) = &mut self.loaded
        {
            l.report.shown = true;
        }
    }

    pub(super) fn status_ui(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            self.trace_save_ui(ui);
            if let Some(loading) = &self.loading {
                let (done, total) = loading.bytes();
                ui.label(format!("Loading {}", loading.source.display_name()));
                let fraction = loading.progress.fraction() as f32;
                // Once every byte is read the store is still being assembled: say so rather
                // than sit at 100%.
                let bar = egui::ProgressBar::new(fraction).desired_width(240.0);
                ui.add(if fraction >= 1.0 {
                    bar.text("read; building the store…").animate(true)
                } else {
                    bar.show_percentage()
                });
                ui.label(format!(
                    "{:.0} / {:.0} MB, {:.0} MB/s",
                    done as f64 / 1e6,
                    total as f64 / 1e6,
                    loading.mb_per_s()
                ));
                if ui.button("Cancel").clicked() {
                    loading.cancel();
                }
            } else if let Some(l) = &self.loaded {
                if let Some(part) = &l.trace.part {
                    ui.label(
                        RichText::new(format!("part loaded: {}", part.subset))
                            .color(theme::WARNING),
                    );
                }
                if self.frames.show_timings {
                    let text = match self.frame_ms() {
                        Some((last, worst)) => format!(
                            "frame {last:.1} ms, slowest of the last {}: {worst:.1} ms",
                            super::FRAME_HISTORY
                        ),
                        None => "frame time: not reported".to_owned(),
                    };
                    ui.label(text).on_hover_text(format!(
                        "Whole frames as eframe measures them (the app, tessellation and \
                         painting; not the wait for the screen). Of the last timeline change, \
                         the rows and lines took {:.1} ms.",
                        l.timeline.drawn.last_build_ms
                    ));
                }
                if self.frames.measure_rate
                    && let Some((mean, longest)) = self.frame_interval_ms()
                {
                    ui.separator();
                    ui.label(format!(
                        "{:.0} frames/s: {mean:.1} ms frame to frame, longest {longest:.1} ms",
                        1e3 / mean.max(1e-3)
                    ))
                    .on_hover_text(
                        "Repainting continuously (View > Measure frame rate): the time from \
                         the start of one frame to the next, waiting for the screen included",
                    );
                }
            }
            if !self.status.is_empty() {
                ui.separator();
                ui.label(&self.status);
            }
        });
    }
}

/// What the trace facts say when the store cache could not be used or written.
fn cache_note(c: &prvscope_store::cache::CacheReport) -> Option<String> {
    match (&c.refused, &c.state) {
        (_, prvscope_store::cache::CacheState::NotWritten(why)) => {
            Some(format!("Store cache not written: {why}"))
        }
        (Some(why), _) => Some(format!("Store cache rebuilt: {why}")),
        (None, prvscope_store::cache::CacheState::Pending) => {
            Some("Writing the store cache…".to_owned())
        }
        _ => None,
    }
}

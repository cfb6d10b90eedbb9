//! The window properties' form: the window's name, level and units, its semantic functions
//! per level, its filter, its draw mode, the saves and the derived window.

use egui::{RichText, Ui};
use prvscope_paraver::functions;

use super::{
    DRAW_MODES, FILTERS, LEVELS, PropertiesWindow, Save, draw_word, parse_params,
    set_filter_values, set_function,
};
use crate::commands::Command;
use crate::theme;

impl PropertiesWindow {
    pub(super) fn ui(&mut self, ui: &mut Ui) {
        let before_draw = self.draw;
        let derived = self.edit.derived.is_some();
        self.bad.clear();
        egui::Grid::new("properties grid")
            .num_columns(3)
            .spacing([8.0, 4.0])
            .show(ui, |ui| {
                let label = ui.label("Name");
                ui.text_edit_singleline(&mut self.edit.name)
                    .labelled_by(label.id);
                ui.end_row();
                let label = ui.label("Level");
                egui::ComboBox::from_id_salt("properties level")
                    .selected_text(self.edit.level.word())
                    .show_ui(ui, |ui| {
                        for l in LEVELS {
                            ui.selectable_value(&mut self.edit.level, l, l.word());
                        }
                    })
                    .response
                    .labelled_by(label.id);
                ui.end_row();
                let label = ui.label("Units");
                egui::ComboBox::from_id_salt("properties units")
                    .selected_text(prvscope_paraver::cfg_write::unit_word(self.edit.units))
                    .show_ui(ui, |ui| {
                        for u in prvscope_paraver::cfg::TimeUnit::ALL {
                            ui.selectable_value(
                                &mut self.edit.units,
                                u,
                                prvscope_paraver::cfg_write::unit_word(u),
                            );
                        }
                    })
                    .response
                    .labelled_by(label.id);
                ui.end_row();
                if let Some(d) = &mut self.edit.derived {
                    let label = ui.label("Operation");
                    egui::ComboBox::from_id_salt("properties operation")
                        .selected_text(d.operation.clone())
                        .show_ui(ui, |ui| {
                            for op in functions::DERIVED {
                                if ui.selectable_label(d.operation == *op, *op).clicked() {
                                    (*op).clone_into(&mut d.operation);
                                }
                            }
                        })
                        .response
                        .labelled_by(label.id);
                    ui.end_row();
                    let label = ui.label("Factors");
                    ui.horizontal(|ui| {
                        for k in 0..2 {
                            let t = &mut self.texts.factors[k];
                            ui.add(egui::TextEdit::singleline(t).desired_width(60.0))
                                .labelled_by(label.id);
                            match t.trim().parse::<f64>() {
                                Ok(v) => d.factors[k] = v,
                                Err(_) => self.bad.push(format!("factor `{t}` is not a number")),
                            }
                        }
                    });
                    ui.end_row();
                }
                let label = ui.label("Draw mode");
                egui::ComboBox::from_id_salt("properties draw mode")
                    .selected_text(draw_word(self.draw))
                    .show_ui(ui, |ui| {
                        for (word, mode) in DRAW_MODES {
                            ui.selectable_value(&mut self.draw, mode, word);
                        }
                    })
                    .response
                    .labelled_by(label.id);
                ui.end_row();
            });
        egui::CollapsingHeader::new(RichText::new("Semantic").strong())
            .default_open(true)
            .show(ui, |ui| {
                egui::Grid::new("properties semantic")
                    .num_columns(3)
                    .spacing([8.0, 4.0])
                    .show(ui, |ui| {
                        for (slot, names) in functions::slots(self.edit.level, derived) {
                            let default = if slot.contains("compose") {
                                "As Is"
                            } else {
                                match slot {
                                    "thread" => "State As Is",
                                    "cpu" => "Active Thd",
                                    _ => "Adding",
                                }
                            };
                            let current = self.edit.function(slot).unwrap_or(default).to_owned();
                            let label = ui.label(slot.replace('_', " "));
                            let mut picked = current.clone();
                            egui::ComboBox::from_id_salt(("properties slot", slot))
                                .selected_text(&picked)
                                .height(400.0)
                                .show_ui(ui, |ui| {
                                    for n in names {
                                        ui.selectable_value(&mut picked, (*n).to_owned(), *n);
                                    }
                                })
                                .response
                                .labelled_by(label.id);
                            let text = self.texts.params.entry(slot.to_owned()).or_default();
                            ui.add(
                                egui::TextEdit::singleline(text)
                                    .hint_text("parameters")
                                    .desired_width(140.0),
                            )
                            .labelled_by(label.id)
                            .on_hover_text(
                                "The function's parameters: numbers; `;` before the next one",
                            );
                            ui.end_row();
                            match parse_params(text) {
                                Ok(params) => {
                                    let old = self.edit.params_of(slot, &current).unwrap_or(&[]);
                                    if picked != current || params != old {
                                        set_function(&mut self.edit, slot, &picked, params);
                                    }
                                }
                                Err(e) => self.bad.push(format!("{slot}: {e}")),
                            }
                        }
                    });
            });
        // The filter, open when the window filters anything.
        let filters = self.edit.filters.iter().any(|f| !f.values.is_empty())
            || FILTERS
                .iter()
                .any(|(k, _)| self.edit.function(k).is_some_and(|f| f != "All"));
        if !derived {
            egui::CollapsingHeader::new(RichText::new("Filter").strong())
                .default_open(filters)
                .show(ui, |ui| {
                    egui::Grid::new("properties filter")
                        .num_columns(3)
                        .spacing([8.0, 4.0])
                        .show(ui, |ui| {
                            for &(kind, label) in &FILTERS {
                                if kind == "from_obj" {
                                    let shown = ui.label("communications");
                                    ui.horizontal(|ui| {
                                        ui.checkbox(&mut self.edit.logical_filtered, "logical")
                                            .labelled_by(shown.id);
                                        ui.checkbox(&mut self.edit.physical_filtered, "physical")
                                            .labelled_by(shown.id);
                                    });
                                    ui.end_row();
                                }
                                let shown = ui.label(label);
                                let current = self.edit.function(kind).unwrap_or("All").to_owned();
                                let mut picked = current.clone();
                                egui::ComboBox::from_id_salt(("properties filter", kind))
                                    .selected_text(&picked)
                                    .show_ui(ui, |ui| {
                                        for n in functions::FILTER {
                                            ui.selectable_value(&mut picked, (*n).to_owned(), *n);
                                        }
                                    })
                                    .response
                                    .labelled_by(shown.id);
                                if picked != current {
                                    self.edit.functions.insert(kind.to_owned(), picked);
                                }
                                let text = self.texts.filters.entry(kind.to_owned()).or_default();
                                ui.add(
                                    egui::TextEdit::singleline(text)
                                        .hint_text("values")
                                        .desired_width(140.0),
                                )
                                .labelled_by(shown.id);
                                ui.end_row();
                                match parse_params(text) {
                                    Ok(p) => {
                                        let values: Vec<f64> = p.into_iter().flatten().collect();
                                        let old = self.edit.filter_values(kind).unwrap_or(&[]);
                                        if values != old {
                                            set_filter_values(&mut self.edit, kind, values);
                                        }
                                    }
                                    Err(e) => self.bad.push(format!("{label}: {e}")),
                                }
                            }
                            let shown = ui.label("combined by");
                            ui.vertical(|ui| {
                                for (value, what) in [
                                    (&mut self.edit.comm_fromto, "from and to"),
                                    (&mut self.edit.comm_tagsize, "tag and size"),
                                    (&mut self.edit.comm_typeval, "type and value"),
                                ] {
                                    ui.checkbox(value, what)
                                        .on_hover_text(
                                            "Checked: both must pass (and); else either (or)",
                                        )
                                        .labelled_by(shown.id);
                                }
                            });
                            ui.end_row();
                        });
                });
        }
        if self.draw != before_draw {
            // The timeline draws so; the cfg says so, as Paraver writes it.
            crate::commands::send(ui.ctx(), Command::DrawMode(self.draw));
            let word = draw_word(self.draw).to_owned();
            match self
                .edit
                .lines
                .iter_mut()
                .find(|(k, _)| k == "window_drawmode")
            {
                Some((_, v)) => *v = word,
                None => self.edit.lines.push(("window_drawmode".to_owned(), word)),
            }
        }
        for b in &self.bad {
            ui.colored_label(theme::ERROR, b);
        }
        ui.horizontal(|ui| {
            if ui.button("Save as cfg…").clicked() {
                self.ask_save(ui.ctx(), Save::Cfg);
            }
            if ui
                .button("Save window alone…")
                .on_hover_text("This window and the windows it is derived from, no analyzer")
                .clicked()
            {
                self.ask_save(ui.ctx(), Save::Alone);
            }
            if self.computing() {
                ui.spinner();
            }
        });
        if let Some((m, failed)) = &self.message {
            let r = if *failed {
                ui.colored_label(theme::ERROR, m)
            } else {
                ui.label(m)
            };
            if let Some(p) = &self.saved {
                r.on_hover_text(p.display().to_string());
            }
        }
        ui.separator();
        ui.label(RichText::new("Derived window").strong())
            .on_hover_text(
                "This window and another cfg view combined, as Paraver's derived windows",
            );
        if self.others.is_empty() {
            ui.label("Open another cfg view to combine this window with it.");
            return;
        }
        self.form.other = self.form.other.min(self.others.len() - 1);
        let mut make = false;
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("this window");
            egui::ComboBox::from_id_salt("derived operation")
                .selected_text(self.form.operation)
                .show_ui(ui, |ui| {
                    for op in functions::DERIVED {
                        ui.selectable_value(&mut self.form.operation, op, *op);
                    }
                })
                .response
                .labelled_by(label.id);
            let label = ui.label("with");
            egui::ComboBox::from_id_salt("derived other")
                .selected_text(&self.others[self.form.other].name)
                .show_ui(ui, |ui| {
                    for (k, o) in self.others.iter().enumerate() {
                        ui.selectable_value(&mut self.form.other, k, &o.name);
                    }
                })
                .response
                .labelled_by(label.id);
            let label = ui.label("factors");
            for k in 0..2 {
                ui.add(egui::TextEdit::singleline(&mut self.form.factors[k]).desired_width(40.0))
                    .labelled_by(label.id);
            }
        });
        ui.horizontal(|ui| {
            let label = ui.label("name");
            ui.add(
                egui::TextEdit::singleline(&mut self.form.name)
                    .hint_text("(this op other)")
                    .desired_width(200.0),
            )
            .labelled_by(label.id);
            make = ui.button("Make derived window").clicked();
        });
        if make {
            let f: Result<Vec<f64>, _> = self
                .form
                .factors
                .iter()
                .map(|t| t.trim().parse::<f64>())
                .collect();
            match f {
                Ok(f) => {
                    let (other, op, name) =
                        (self.form.other, self.form.operation, self.form.name.clone());
                    self.make_derived(ui.ctx(), other, op, [f[0], f[1]], &name);
                }
                Err(_) => self.message = Some(("a factor is not a number".into(), true)),
            }
        }
    }
}

//! Finding and moving around: Find (Ctrl+F), the keys and gestures (F1 or `?`), and the
//! markers and measure of the side panel.

use egui::{Key, Modifiers, RichText, Ui};

use super::App;
use crate::find::{self, Occurrence, Target};
use crate::frame::{format_in_window, format_time};
use crate::rows::drawn_row_of_thread;
use crate::theme;

/// Every key and gesture, as the help window lists them.
pub const KEYS: &[(&str, &str)] = &[
    ("Wheel over the rows", "zoom in or out at the pointer"),
    ("Wheel over the row names", "scroll the rows"),
    ("Shift+wheel, horizontal wheel", "pan"),
    ("Drag", "pan"),
    (
        "Shift+drag, right-drag",
        "select a range: its duration is shown, then the timeline zooms to it",
    ),
    ("Click", "pin a point: its value and messages in Details"),
    ("Double-click", "the breakdown of the scope there"),
    (
        "Click a row name",
        "collapse its task, or expand a collapsed row",
    ),
    ("Home", "the whole trace"),
    ("Left, Right", "pan by a tenth of the window"),
    ("+, -", "zoom in or out at the centre"),
    ("Up, Down, Page Up, Page Down", "scroll the rows"),
    ("Ctrl+Z or Ctrl+U", "undo the last zoom"),
    ("Ctrl+Shift+Z or Ctrl+R", "redo"),
    ("F", "fit all rows in the height"),
    (
        "M",
        "a marker at the pointer (at the centre when the pointer is elsewhere)",
    ),
    ("Ctrl+F", "find a state, an event type or value"),
    ("Enter, F3", "next occurrence (in Find)"),
    ("Shift+Enter, Shift+F3", "previous occurrence (in Find)"),
    ("Ctrl+B", "show or hide the side panel"),
    ("Ctrl+J", "show or hide the scope panel"),
    ("F1, ?", "this list"),
    ("Escape", "close a menu or this window"),
];

/// The find window's state.
#[derive(Default)]
pub struct FindState {
    pub open: bool,
    pub query: String,
    /// The target picked among the query's candidates (the first by default).
    pub picked: usize,
    /// Search every thread (else the pinned or hovered one).
    pub all_rows: bool,
    /// Where the last search stopped.
    pub last: Option<Occurrence>,
    pub message: String,
    focus: bool,
}

impl App {
    /// The find window's state.
    pub fn find(&self) -> &FindState {
        &self.find
    }

    /// The find window's state, to change.
    pub fn find_mut(&mut self) -> &mut FindState {
        &mut self.find
    }

    /// F1, `?` and Ctrl+F (not while typing).
    pub(super) fn navigation_keys(&mut self, ctx: &egui::Context) {
        if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::F)) {
            self.find.open = true;
            self.find.focus = true;
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::F1)) {
            self.dialogs.show_help = !self.dialogs.show_help;
        }
        if !ctx.text_edit_focused() {
            let question = ctx.input(|i| {
                i.events
                    .iter()
                    .any(|e| matches!(e, egui::Event::Text(t) if t == "?"))
            });
            if question {
                self.dialogs.show_help = !self.dialogs.show_help;
            }
        }
    }

    /// The list of keys and gestures.
    pub(super) fn help_window(&mut self, ctx: &egui::Context) {
        let mut open = self.dialogs.show_help;
        egui::Window::new("Keys and gestures")
            .open(&mut open)
            .collapsible(false)
            .default_width(520.0)
            .show(ctx, |ui| {
                egui::Grid::new("keys").striped(true).show(ui, |ui| {
                    for (key, what) in KEYS {
                        ui.label(RichText::new(*key).strong());
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            });
        if ctx.input(|i| i.key_pressed(Key::Escape)) {
            open = false;
        }
        self.dialogs.show_help = open;
    }

    /// The find window, over the shown trace.
    pub(super) fn find_window(&mut self, ctx: &egui::Context) {
        use crate::windows::ToolWindow;
        if !self.find.open {
            return;
        }
        let several = !self.others.is_empty();
        let Some(l) = &self.loaded else {
            self.find.open = false;
            return;
        };
        let seen = l.seen(several);
        self.find.poll(ctx, &seen);
        self.find.show(ctx, &seen);
    }

    /// Moves to the next (or previous) occurrence of `target` and pins it.
    pub fn find_step(&mut self, target: Target, what: &str, forward: bool) {
        let Some(l) = &mut self.loaded else {
            return;
        };
        let t = &mut l.timeline;
        let threads = l.trace.store.thread_count();
        // The rows searched: all, else the pinned or hovered thread.
        let one = t
            .pointer
            .pinned
            .map(|p| p.row)
            .or(t.hovered_row())
            .and_then(|r| t.rows().get(r))
            .filter(|item| item.threads.len() == 1)
            .map(|item| item.threads.start);
        let rows: Vec<usize> = match one {
            Some(r) if !self.find.all_rows => vec![r],
            _ => (0..threads).collect(),
        };
        // From the last occurrence, else from the point pinned (the search goes either way
        // from where the user is), else from the window's edge.
        let from = self
            .find
            .last
            .map(|o| o.begin)
            .or(t.pointer.pinned.map(|p| p.time))
            .unwrap_or(if forward {
                t.window.start
            } else {
                t.window.start + t.window.span
            });
        let found = if forward {
            find::next(&l.trace, target, &rows, from)
        } else {
            find::previous(&l.trace, target, &rows, from)
        };
        let npt = l.trace.header.time_unit.ns_per_tick();
        match found {
            Some(o) => {
                self.find.last = Some(o);
                // Every occurrence is shown alike, the first as the next: the window zoomed
                // to it, a quarter of its length either side (undo goes back).
                t.reveal(o.begin, o.end);
                let drawn = drawn_row_of_thread(t.rows(), threads);
                if let Some(&Some(row)) = drawn.get(o.row) {
                    t.pointer.pinned = Some(crate::timeline::Pinned {
                        row: row as usize,
                        time: o.begin,
                    });
                    t.ensure_row_visible(row as usize);
                }
                self.find.message = format!(
                    "{what} on {} at {}",
                    l.trace.thread_name(o.row),
                    format_in_window(o.begin, t.window.span, npt)
                );
            }
            None => {
                self.find.message = format!(
                    "no {} {what}{}",
                    if forward { "later" } else { "earlier" },
                    if rows.len() == 1 {
                        format!(" on {}", l.trace.thread_name(rows[0]))
                    } else {
                        String::new()
                    }
                );
            }
        }
    }

    /// The markers and the last measure, in the side panel.
    pub(super) fn marks_ui(&mut self, ui: &mut Ui) {
        let Some(l) = &mut self.loaded else {
            return;
        };
        let npt = l.trace.header.time_unit.ns_per_tick() as f64;
        let t = &mut l.timeline;
        let precision = (t.window.span as f64 * npt / 1000.0).max(1.0);
        let time = |ticks: u64| format_time(ticks as f64 * npt, precision);
        ui.separator();
        ui.heading("Markers");
        if let Some((a, b)) = t.measured().map(|w| w.bounds()) {
            ui.label(format!(
                "selected {} (from {} to {})",
                time(b - a),
                time(a),
                time(b)
            ));
        }
        if t.markers().is_empty() {
            ui.label("M adds a marker at the pointer");
            return;
        }
        let times: Vec<u64> = t.markers().iter().map(|m| m.time).collect();
        let (mut go, mut remove) = (None, None);
        // The buttons first: a narrow panel cuts the end of a row, never them.
        egui::Grid::new("markers").striped(true).show(ui, |ui| {
            for (i, label) in t.marker_labels_mut().enumerate() {
                if ui.small_button("×").on_hover_text("remove it").clicked() {
                    remove = Some(i);
                }
                if ui
                    .small_button("go")
                    .on_hover_text("centre the window on it")
                    .clicked()
                {
                    go = Some(times[i]);
                }
                ui.add(egui::TextEdit::singleline(label).desired_width(48.0))
                    .widget_info(|| {
                        egui::WidgetInfo::labeled(
                            egui::Role::TextInput,
                            true,
                            format!("label of marker {}", i + 1),
                        )
                    });
                ui.label(time(times[i]));
                ui.end_row();
                // The distance from the marker above on a line of its own, under the time:
                // a narrow panel cuts the end of a row.
                if let Some(d) = i.checked_sub(1).map(|p| times[i] - times[p]) {
                    for _ in 0..3 {
                        ui.label("");
                    }
                    ui.label(format!("+{}", time(d)))
                        .on_hover_text("the distance from the marker above");
                    ui.end_row();
                }
            }
        });
        if let Some(at) = go {
            t.centre_on(at);
        }
        if let Some(i) = remove {
            t.remove_marker(i);
        }
    }
}

/// The find window: the query, what it names, and next / previous, which it sends as
/// [`Command::FindStep`](crate::commands::Command::FindStep).
impl crate::windows::ToolWindow for FindState {
    fn title(&self) -> String {
        "Find".to_owned()
    }

    fn is_open(&self) -> bool {
        self.open
    }

    fn poll(&mut self, _ctx: &egui::Context, _seen: &crate::windows::Seen<'_>) {}

    fn show(&mut self, ctx: &egui::Context, seen: &crate::windows::Seen<'_>) {
        let candidates = find::candidates(seen.trace, &self.query);
        let mut open = true;
        let mut step: Option<bool> = None;
        crate::windows::placed(
            ctx,
            egui::Id::unique("find window"),
            &seen.title("Find"),
            egui::Window::new(seen.title("Find"))
                .id(egui::Id::unique("find window"))
                .open(&mut open)
                .collapsible(false)
                .default_width(380.0),
        )
        .show(ctx, |ui| {
            let edit = ui.add(
                egui::TextEdit::singleline(&mut self.query)
                    .hint_text("state, event type or value: name or number, type:value")
                    .desired_width(f32::INFINITY),
            );
            if std::mem::take(&mut self.focus) {
                edit.request_focus();
            }
            if edit.changed() {
                self.picked = 0;
                self.last = None;
            }
            if edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                step = Some(!ui.input(|i| i.modifiers.shift));
                edit.request_focus();
            }
            if candidates.is_empty() && !self.query.trim().is_empty() {
                ui.label(RichText::new("nothing in this trace is named so").color(theme::WARNING));
            }
            egui::ScrollArea::vertical()
                .max_height(160.0)
                .show(ui, |ui| {
                    for (k, (_, text)) in candidates.iter().enumerate() {
                        if ui.selectable_label(self.picked == k, text).clicked() {
                            self.picked = k;
                            self.last = None;
                        }
                    }
                });
            ui.horizontal(|ui| {
                let any = !candidates.is_empty();
                if ui
                    .add_enabled(any, egui::Button::new("< Previous"))
                    .on_hover_text("Shift+Enter, Shift+F3")
                    .clicked()
                {
                    step = Some(false);
                }
                if ui
                    .add_enabled(any, egui::Button::new("Next >"))
                    .on_hover_text("Enter, F3")
                    .clicked()
                {
                    step = Some(true);
                }
                ui.checkbox(&mut self.all_rows, "All rows")
                    .on_hover_text("Else the pinned row, or the row under the pointer");
            });
            if !self.message.is_empty() {
                ui.label(&self.message);
            }
        });
        // F3 anywhere; Enter too while no text field has the keys (the timeline was clicked).
        let typing = ctx.text_edit_focused();
        if let Some(forward) = ctx.input_mut(|i| {
            if i.consume_key(Modifiers::SHIFT, Key::F3)
                || (!typing && i.consume_key(Modifiers::SHIFT, Key::Enter))
            {
                Some(false)
            } else if i.consume_key(Modifiers::NONE, Key::F3)
                || (!typing && i.consume_key(Modifiers::NONE, Key::Enter))
            {
                Some(true)
            } else {
                None
            }
        }) {
            step = Some(forward);
        }
        // Escape closes it, as it closes the keys window.
        if ctx.input(|i| i.key_pressed(Key::Escape)) {
            open = false;
        }
        if let Some(forward) = step
            && let Some(&(target, ref text)) = candidates.get(self.picked)
        {
            crate::commands::send(
                ctx,
                crate::commands::Command::FindStep {
                    target,
                    what: text.clone(),
                    forward,
                },
            );
        }
        self.open = open;
    }
}

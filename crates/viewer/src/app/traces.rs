//! Several traces open at once: each keeps its session (its store, timeline windows, scope
//! panel, cfg windows and histograms, POP and clustering windows). One is shown; the others
//! wait, whole, in `App::others`. Opening a trace keeps the one shown open (the same file
//! opened again replaces it); the side panel lists the open traces, to switch to one or
//! close it. A timeline window of another open trace can be stacked under the shown one's
//! (Window > New timeline of), in a synchronize group with them.

use egui::{RichText, Ui};

use super::{App, Loaded};

/// The name of `l`'s trace, as the list shows it.
pub fn trace_name(l: &Loaded) -> String {
    crate::shared::trace_file_name(&l.trace)
}

pub(super) fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

impl App {
    /// The traces open and not shown, in the order they were opened.
    pub fn other_traces(&self) -> &[Loaded] {
        &self.others
    }

    /// Keeps the trace shown open before `incoming` replaces it (the same file opened again
    /// replaces it, and an earlier session of that file waiting in the list goes too).
    pub(super) fn keep_open_before(&mut self, incoming: &std::path::Path) {
        self.others.retain(|o| !same_file(&o.trace.path, incoming));
        // (The embedded demo, no file, is not kept: it is what shows before a trace.)
        if let Some(old) = self.loaded.take()
            && old.trace.path.is_file()
            && !same_file(&old.trace.path, incoming)
        {
            self.others.push(old);
        }
    }

    /// Shows open trace `i` of [`App::other_traces`] (the one shown takes its place in the
    /// list).
    pub fn switch_trace(&mut self, i: usize) {
        if i >= self.others.len() {
            return;
        }
        let next = self.others.remove(i);
        if let Some(old) = self.loaded.replace(next) {
            self.others.insert(i, old);
        }
        if let Some(l) = &self.loaded {
            self.status = format!("showing {}", trace_name(l));
        }
    }

    /// Closes the trace shown; the first of the others, if any, is shown instead.
    pub fn close_trace(&mut self) {
        let closed = self.loaded.take().map(|l| trace_name(&l));
        if !self.others.is_empty() {
            self.loaded = Some(self.others.remove(0));
        }
        if let Some(name) = closed {
            self.status = format!("closed {name}");
        }
    }

    /// Closes open trace `i` of [`App::other_traces`].
    pub fn close_other_trace(&mut self, i: usize) {
        if i < self.others.len() {
            let l = self.others.remove(i);
            self.status = format!("closed {}", trace_name(&l));
        }
    }

    /// A timeline window of open trace `k` of [`App::other_traces`] under the shown trace's
    /// windows, in the active window's group, showing from `t + shift` (its ticks) where the
    /// shown trace's windows show from `t` (scaled when the two count time in different
    /// units).
    pub fn new_timeline_of(&mut self, k: usize, shift: i64) {
        self.new_guest(k, |host_ns, own_ns| {
            let mut c = super::panes::Clock::aligned(host_ns, own_ns, 0, 0);
            c.shift = shift;
            c
        });
    }

    /// As [`App::new_timeline_of`], its tick `own_start` where the shown trace's windows
    /// show `host_start` (two runs aligned at a region's start).
    pub fn new_timeline_aligned(&mut self, k: usize, host_start: u64, own_start: u64) {
        self.new_guest(k, |host_ns, own_ns| {
            super::panes::Clock::aligned(host_ns, own_ns, host_start, own_start)
        });
    }

    fn new_guest(&mut self, k: usize, clock: impl FnOnce(u64, u64) -> super::panes::Clock) {
        let Some(other) = self.others.get(k).map(|o| o.trace.clone()) else {
            return;
        };
        if let Some(l) = &mut self.loaded {
            let npt = |t: &prvscope_store::Trace| t.header.time_unit.ns_per_tick();
            let clock = clock(npt(&l.trace), npt(&other));
            let i = l.new_guest_pane(&other, clock);
            self.status = format!(
                "timeline window {} of {} opened",
                l.panes.list[i].id,
                crate::shared::trace_file_name(&other)
            );
        }
    }

    /// Analysis > Compare with: the trace shown (A) against open trace `k` of
    /// [`App::other_traces`] (B).
    pub fn open_compare(&mut self, k: usize) {
        let Some(b) = self.others.get(k).map(|o| o.trace.clone()) else {
            return;
        };
        if let Some(l) = &mut self.loaded {
            l.compare = Some(crate::compare_window::CompareWindow::new(b));
        }
    }

    /// The Compare window, if open.
    pub fn compare_window(&mut self) -> Option<&mut crate::compare_window::CompareWindow> {
        self.loaded.as_mut().and_then(|l| l.compare.as_mut())
    }

    /// The list of open traces (when there are several), at the top of the side panel.
    pub(super) fn traces_ui(&mut self, ui: &mut Ui) {
        if self.others.is_empty() {
            return;
        }
        let Some(shown) = self.loaded.as_ref().map(trace_name) else {
            return;
        };
        ui.heading("Traces");
        let mut switch = None;
        let mut close_shown = false;
        let mut close = None;
        ui.horizontal(|ui| {
            ui.add(egui::Button::selectable(true, RichText::new(&shown).strong()).truncate())
                .on_hover_text("The trace shown");
            if ui
                .small_button("Close")
                .on_hover_text("Close this trace")
                .clicked()
            {
                close_shown = true;
            }
        });
        for (i, o) in self.others.iter().enumerate() {
            let name = trace_name(o);
            ui.horizontal(|ui| {
                if ui
                    .add(egui::Button::selectable(false, name.as_str()).truncate())
                    .on_hover_text(format!("Show {}", o.trace.path.display()))
                    .clicked()
                {
                    switch = Some(i);
                }
                if ui
                    .small_button("Close")
                    .on_hover_text(format!("Close {name}"))
                    .clicked()
                {
                    close = Some(i);
                }
            });
        }
        ui.separator();
        if close_shown {
            self.close_trace();
        } else if let Some(i) = close {
            self.close_other_trace(i);
        } else if let Some(i) = switch {
            self.switch_trace(i);
        }
    }
}

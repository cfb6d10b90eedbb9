//! The floating windows that go with a trace (histograms, POP metrics, the clustering, the
//! comparison with another trace, the scope breakdowns, the load and cfg reports, Find) as
//! the app drives them: each frame it hands every open one what it sees of the trace
//! ([`Seen`]), polls it for finished work, shows it, and drops the ones closed. What a window
//! asks of the app (move the timeline, open or close another window) it sends as a
//! [`Command`](crate::commands::Command), never through a field of its own. With several
//! traces open, each window's title names its trace ([`Seen::title`]).
//!
//! The commands each window sends:
//! - [`HistogramWindow`](crate::histogram::HistogramWindow): none (it outlines its selected
//!   cell on the timeline, which reads it);
//! - [`PopWindow`](crate::pop_window::PopWindow): none;
//! - [`ClusterWindow`](crate::cluster_window::ClusterWindow): `GoTo` (a burst clicked),
//!   `IntervalsBreakdown` (a cluster clicked), `CloseBreakdowns` (clustered again, or closed);
//! - [`CompareWindow`](crate::compare_window::CompareWindow): `ShowAligned` (B's timeline
//!   under A's, both from their region's start);
//! - [`BreakdownWindow`](crate::breakdown::BreakdownWindow): none (the scope panel offers it
//!   its latest analysis before it is polled);
//! - [`LoadReport`](crate::reports::LoadReport), [`CfgReport`](crate::reports::CfgReport):
//!   none;
//! - Find (`app::navigate::FindState`): `FindStep` (Next, Previous).
//!
//! The app's own windows, which belong to no trace (the list of keys, the file dialogs, the
//! dialog of a part of a trace to open), are not `ToolWindow`s.

use prvscope_draw::frame::TimeWindow;
use prvscope_store::Trace;

/// What a window sees of the app in a frame.
#[derive(Clone, Copy)]
pub struct Seen<'a> {
    /// The trace the window belongs to.
    pub trace: &'a Trace,
    /// Its timeline's visible window.
    pub visible: TimeWindow,
    /// Several traces are open: a window's title names its trace.
    pub several: bool,
}

impl Seen<'_> {
    /// `title`, with the trace's name when several traces are open (the window's id stays
    /// the title's own).
    pub fn title(&self, title: &str) -> String {
        if self.several {
            format!("{title} · {}", crate::shared::trace_file_name(self.trace))
        } else {
            title.to_owned()
        }
    }
}

/// A floating window of a trace.
pub trait ToolWindow {
    /// Its title, as its frame shows it.
    fn title(&self) -> String;
    /// Still open (a closed window is dropped after the frame)?
    fn is_open(&self) -> bool;
    /// Takes finished background work; starts what `seen` calls for (a window that follows
    /// the timeline recomputes for its visible window).
    fn poll(&mut self, ctx: &egui::Context, seen: &Seen<'_>);
    /// Draws it.
    fn show(&mut self, ctx: &egui::Context, seen: &Seen<'_>);
}

/// Polls and shows each of `windows`, in order.
pub fn show_all(ctx: &egui::Context, seen: &Seen<'_>, windows: &mut [&mut dyn ToolWindow]) {
    for w in windows {
        w.poll(ctx, seen);
        w.show(ctx, seen);
    }
}

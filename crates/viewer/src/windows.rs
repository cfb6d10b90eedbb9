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
//! Docked (the default, View > Dock windows beside the timeline), they open in a panel the
//! app keeps at the timeline's right while any of them is open ([`set_dock`]): each is held
//! inside it ([`placed`]), cascaded, never over the rows; the user resizes the panel, and
//! moves and sizes the windows in it (egui keeps their places, across runs too).
//!
//! The app's own windows, which belong to no trace (the list of keys, the file dialogs, the
//! dialog of a part of a trace to open), are not `ToolWindow`s.

use egui::{Rect, pos2, vec2};
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

/// The dock of this frame: its rectangle and the windows placed in it so far (title, id).
#[derive(Debug, Clone)]
struct Dock {
    rect: Rect,
    placed: Vec<(String, egui::Id)>,
}

fn dock_id() -> egui::Id {
    egui::Id::NULL.with("prvscope-dock")
}

fn tabs_id() -> egui::Id {
    egui::Id::NULL.with("prvscope-dock-tabs")
}

/// This frame's dock (`None`: windows float anywhere), set by the app before the windows
/// are shown; the windows placed in the last frame's become its tabs.
pub fn set_dock(ctx: &egui::Context, rect: Option<Rect>) {
    ctx.data_mut(|d| {
        let last = d
            .get_temp::<Dock>(dock_id())
            .map(|dock| dock.placed)
            .unwrap_or_default();
        d.insert_temp(tabs_id(), last);
        match rect {
            Some(rect) => {
                d.insert_temp(
                    dock_id(),
                    Dock {
                        rect,
                        placed: Vec::new(),
                    },
                );
            }
            None => {
                d.remove::<Dock>(dock_id());
            }
        }
    });
}

/// The dock's rectangle this frame, if windows are docked.
pub fn dock(ctx: &egui::Context) -> Option<Rect> {
    ctx.data(|d| d.get_temp::<Dock>(dock_id())).map(|d| d.rect)
}

/// The windows docked in the last frame (title, id), in the order they were shown.
pub fn docked(ctx: &egui::Context) -> Vec<(String, egui::Id)> {
    ctx.data(|d| d.get_temp::<Vec<(String, egui::Id)>>(tabs_id()))
        .unwrap_or_default()
}

/// The dock panel's content: a tab per window docked (a click brings it to the front; the
/// front one is marked), then the room the windows are held in, which it returns.
pub fn dock_ui(ui: &mut egui::Ui) -> Rect {
    let ctx = ui.ctx().clone();
    let tabs = docked(&ctx);
    let top = ctx.memory(|m| m.areas().top_layer_id(egui::Order::Middle));
    ui.horizontal_wrapped(|ui| {
        for (title, id) in &tabs {
            let layer = egui::LayerId::new(egui::Order::Middle, *id);
            let short: String = if title.chars().count() > 28 {
                title.chars().take(27).chain(['…']).collect()
            } else {
                title.clone()
            };
            if ui
                .selectable_label(top == Some(layer), short)
                .on_hover_text(title)
                .clicked()
            {
                ctx.move_to_top(layer);
            }
        }
    });
    ui.separator();
    let rect = ui.available_rect_before_wrap();
    ui.with_layout(egui::Layout::bottom_up(egui::Align::Center), |ui| {
        ui.weak("Windows dock here (View > Dock windows beside the timeline)");
    });
    rect
}

/// How far each window opened in the dock is moved from the one before.
const CASCADE: f32 = 26.0;

/// `window` (titled `title`, of id `id`) held in the dock when there is one: inside it, no
/// wider or taller than it, its first place cascaded from the dock's top left by the windows
/// placed before it (a window the user moved stays where it was put), and a tab of the dock.
pub fn placed<'a>(
    ctx: &egui::Context,
    id: egui::Id,
    title: &str,
    window: egui::Window<'a>,
) -> egui::Window<'a> {
    let Some((rect, k)) = ctx.data_mut(|d| {
        d.get_temp::<Dock>(dock_id()).map(|mut dock| {
            let k = dock.placed.len();
            dock.placed.push((title.to_owned(), id));
            let rect = dock.rect;
            d.insert_temp(dock_id(), dock);
            (rect, k)
        })
    }) else {
        return window;
    };
    let step = CASCADE * (k % 6) as f32;
    window
        .constrain_to(rect)
        .default_pos(pos2(rect.left() + 4.0 + step, rect.top() + 4.0 + step))
        .max_size(vec2(rect.width() - 8.0, rect.height() - 8.0))
}

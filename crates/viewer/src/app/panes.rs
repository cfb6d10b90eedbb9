//! The timeline windows of the main area (Window > New timeline), stacked, each with its own
//! view, rows and window, and Paraver's synchronize groups: the windows of a group zoom, pan
//! and undo together (a change in one moves every other in the same frame), and show each
//! other's pointer time and markers. One window is the active one: the side panel (views,
//! legend, details), the menus and the exports act on it, and it is `Loaded::timeline`; the
//! others keep theirs here. A click in a window makes it the active one; the keys go to the
//! window under the pointer.

use egui::{RichText, Ui};

use super::{App, Loaded};
use crate::frame::TimeWindow;
use crate::timeline::{Marker, RowsCopy, Timeline};

/// The synchronize groups offered (Paraver's default has a few).
pub const GROUPS: u8 = 4;
/// A window's least height (stacked) and width (tiled), in points.
const MIN_HEIGHT: f32 = 80.0;
const MIN_WIDTH: f32 = 240.0;

/// One timeline window.
pub struct Pane {
    /// Its number, as its header shows it (1 for the trace's first window).
    pub id: u64,
    /// Its timeline; `None` for the active window, whose timeline is `Loaded::timeline`.
    pub(crate) timeline: Option<Timeline>,
    /// Its synchronize group.
    pub group: Option<u8>,
    /// A window of another open trace (a guest of this trace's stack), never the active one.
    pub(crate) guest: Option<Guest>,
}

/// A timeline window of another trace in this trace's stack.
pub struct Guest {
    pub(crate) trace: prvscope_store::Trace,
    /// Its ticks against this trace's.
    pub(crate) clock: Clock,
}

/// How a window's ticks stand to those of its stack's trace (the host): at the host's tick
/// `t` it shows its own tick `t * num / den + shift`. `num / den` is the host's tick in the
/// window's (traces written in different time units: µs and ns); `shift`, in the window's
/// ticks, aligns two runs at a region's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub num: u64,
    pub den: u64,
    pub shift: i64,
}

impl Clock {
    /// The host's own windows.
    pub const SAME: Clock = Clock {
        num: 1,
        den: 1,
        shift: 0,
    };

    /// A window of a trace of `own_ns` ns per tick in the stack of one of `host_ns`, its tick
    /// `own_start` at the host's `host_start` (0 and 0: the two runs' starts together).
    pub fn aligned(host_ns: u64, own_ns: u64, host_start: u64, own_start: u64) -> Clock {
        let (a, b) = (host_ns.max(1), own_ns.max(1));
        let g = gcd(a, b);
        let mut c = Clock {
            num: a / g,
            den: b / g,
            shift: 0,
        };
        let at = c.own(i128::from(host_start));
        c.shift = i64::try_from(i128::from(own_start) - at).unwrap_or(0);
        c
    }

    /// The window's tick at the host's tick `host`.
    pub fn own(&self, host: i128) -> i128 {
        (host * i128::from(self.num)).div_euclid(i128::from(self.den)) + i128::from(self.shift)
    }

    /// The host's tick at the window's tick `own`.
    pub fn host(&self, own: i128) -> i128 {
        ((own - i128::from(self.shift)) * i128::from(self.den)).div_euclid(i128::from(self.num))
    }

    /// The host's window `w` as this window shows it.
    pub fn own_window(&self, w: TimeWindow) -> TimeWindow {
        let start = self.own(i128::from(w.start));
        let end = self.own(i128::from(w.end()));
        window_of(start, end)
    }

    /// This window's `w` in the host's ticks.
    pub fn host_window(&self, w: TimeWindow) -> TimeWindow {
        let start = self.host(i128::from(w.start));
        let end = self.host(i128::from(w.end()));
        window_of(start, end)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

/// The window `[start, end)` of ticks, cut at 0 and at least a tick long.
fn window_of(start: i128, end: i128) -> TimeWindow {
    let clamp = |t: i128| u64::try_from(t.max(0)).unwrap_or(u64::MAX);
    let start = clamp(start);
    TimeWindow {
        start,
        span: clamp(end).saturating_sub(start).max(1),
    }
}

impl Pane {
    fn clock(&self) -> Clock {
        self.guest.as_ref().map_or(Clock::SAME, |g| g.clock)
    }
}

/// The windows, in the order they are stacked, and what a frame found of them at its start.
pub struct Panes {
    pub(crate) list: Vec<Pane>,
    /// Where the active window stands in `list`.
    pub(crate) active: usize,
    next_id: u64,
    /// Changes when a window opens or closes: the windows then share the height anew (the
    /// heights the user gave them are kept until then).
    layout: u64,
    /// Side by side instead of one above the other (Window > Tile side by side).
    pub(crate) tiled: bool,
    /// A window's time range and rows, copied to paste on another.
    pub(crate) copied: Option<(TimeWindow, RowsCopy)>,
    /// Each window's time range and markers when the groups were last synchronized.
    before: Vec<(TimeWindow, Vec<Marker>)>,
}

impl Default for Panes {
    fn default() -> Self {
        Panes {
            list: vec![Pane {
                id: 1,
                timeline: None,
                group: Some(1),
                guest: None,
            }],
            active: 0,
            next_id: 2,
            layout: 0,
            tiled: false,
            copied: None,
            before: Vec::new(),
        }
    }
}

impl Loaded {
    /// What this trace's windows see of it this frame (`several`: other traces are open).
    pub(crate) fn seen(&self, several: bool) -> crate::windows::Seen<'_> {
        crate::windows::Seen {
            trace: &self.trace,
            visible: self.timeline.window(),
            several,
        }
    }

    /// Timeline `i` of the stack (the active one from `Loaded::timeline`).
    pub fn pane_timeline(&self, i: usize) -> Option<&Timeline> {
        let p = self.panes.list.get(i)?;
        Some(p.timeline.as_ref().unwrap_or(&self.timeline))
    }

    /// Timeline `i` of the stack, to act on it as the user would.
    pub fn pane_timeline_mut(&mut self, i: usize) -> Option<&mut Timeline> {
        let p = self.panes.list.get_mut(i)?;
        Some(p.timeline.as_mut().unwrap_or(&mut self.timeline))
    }

    /// Shows the windows side by side (`true`) or one above the other.
    pub fn set_tiled(&mut self, tiled: bool) {
        self.panes.tiled = tiled;
    }

    /// Are the windows side by side?
    pub fn tiled(&self) -> bool {
        self.panes.tiled
    }

    /// How many timeline windows are open.
    pub fn pane_count(&self) -> usize {
        self.panes.list.len()
    }

    /// Where the active window stands in the stack.
    pub fn active_pane(&self) -> usize {
        self.panes.active
    }

    /// The synchronize group of window `i`.
    pub fn pane_group(&self, i: usize) -> Option<u8> {
        self.panes.list.get(i).and_then(|p| p.group)
    }

    /// Puts window `i` in `group` (none: it moves alone).
    pub fn set_pane_group(&mut self, i: usize, group: Option<u8>) {
        if let Some(p) = self.panes.list.get_mut(i) {
            p.group = group;
        }
    }

    /// Makes window `i` the active one (a window of another trace cannot be: the side
    /// panel and the menus act on this trace).
    pub fn activate_pane(&mut self, i: usize) {
        if i == self.panes.active
            || i >= self.panes.list.len()
            || self.panes.list[i].guest.is_some()
        {
            return;
        }
        let taken = self.panes.list[i]
            .timeline
            .take()
            .expect("an inactive window holds its timeline");
        let old = std::mem::replace(&mut self.timeline, taken);
        self.panes.list[self.panes.active].timeline = Some(old);
        self.panes.active = i;
    }

    /// Opens a timeline window below the others, of the active window's view, time range
    /// and rows, in its synchronize group (group 1 when it has none), and makes it active.
    pub fn new_pane(&mut self, ctx: &egui::Context) -> usize {
        let mut t = Timeline::new(&self.trace);
        t.set_view(ctx, &self.trace, self.timeline.config().clone());
        let _ = t.paste_rows(ctx, &self.trace, &self.timeline.rows_copy());
        t.zoom_to(self.timeline.window());
        t.set_markers(self.timeline.markers().to_vec());
        let group = self.panes.list[self.panes.active].group.or(Some(1));
        let id = self.panes.next_id;
        self.panes.next_id += 1;
        self.panes.list.push(Pane {
            id,
            timeline: Some(t),
            group,
            guest: None,
        });
        self.panes.layout += 1;
        let i = self.panes.list.len() - 1;
        self.activate_pane(i);
        i
    }

    /// Opens a timeline window of `trace` (another open trace) below the others, in the
    /// active window's synchronize group (group 1 when it has none), showing from `t + shift`
    /// where this trace's windows show from `t`.
    pub fn new_guest_pane(&mut self, trace: &prvscope_store::Trace, clock: Clock) -> usize {
        let mut t = Timeline::new(trace);
        t.zoom_to(clock.own_window(self.timeline.window()));
        let group = self.panes.list[self.panes.active].group.or(Some(1));
        let id = self.panes.next_id;
        self.panes.next_id += 1;
        self.panes.list.push(Pane {
            id,
            timeline: Some(t),
            group,
            guest: Some(Guest {
                trace: trace.clone(),
                clock,
            }),
        });
        self.panes.layout += 1;
        self.panes.list.len() - 1
    }

    /// The trace window `i` shows.
    pub fn pane_trace(&self, i: usize) -> Option<&prvscope_store::Trace> {
        let p = self.panes.list.get(i)?;
        Some(p.guest.as_ref().map_or(&self.trace, |g| &g.trace))
    }

    /// Counts window `i`'s ruler from `origin` (see [`Timeline::set_origin`]).
    pub fn set_pane_origin(&mut self, i: usize, origin: Option<u64>) {
        if let Some(t) = self.pane_timeline_mut(i) {
            t.set_origin(origin);
        }
    }

    /// Is window `i` one of another trace?
    pub fn pane_is_guest(&self, i: usize) -> bool {
        self.panes.list.get(i).is_some_and(|p| p.guest.is_some())
    }

    /// Closes window `i` (the last one stays); whether it closed.
    pub fn close_pane(&mut self, i: usize) -> bool {
        if self.panes.list.len() <= 1 || i >= self.panes.list.len() {
            return false;
        }
        if i == self.panes.active {
            // Another of this trace's windows becomes the active one; the last of them stays.
            let Some(next) = (0..self.panes.list.len())
                .filter(|&k| k != i && self.panes.list[k].guest.is_none())
                .min_by_key(|&k| k.abs_diff(i))
            else {
                return false;
            };
            self.activate_pane(next);
        }
        self.panes.list.remove(i);
        self.panes.layout += 1;
        if self.panes.active > i {
            self.panes.active -= 1;
        }
        true
    }

    /// Copies window `i`'s time range and rows.
    pub fn copy_pane(&mut self, i: usize) {
        // The range in this trace's ticks: a paste on another trace's window shows its
        // part of the same (aligned) time.
        let clock = self.panes.list.get(i).map_or(Clock::SAME, Pane::clock);
        if let Some(t) = self.pane_timeline(i) {
            self.panes.copied = Some((clock.host_window(t.window()), t.rows_copy()));
        }
    }

    /// Pastes the time range (`time`) or the rows copied on window `i`; why not.
    pub fn paste_on_pane(
        &mut self,
        ctx: &egui::Context,
        i: usize,
        time: bool,
    ) -> Result<(), String> {
        let Some((window, rows)) = self.panes.copied.clone() else {
            return Err("nothing copied: Copy on a window first".to_owned());
        };
        let trace = self
            .pane_trace(i)
            .cloned()
            .ok_or_else(|| format!("no window {}", i + 1))?;
        let window = self.panes.list[i].clock().own_window(window);
        let t = self
            .pane_timeline_mut(i)
            .ok_or_else(|| format!("no window {}", i + 1))?;
        if time {
            t.zoom_to(window);
            Ok(())
        } else {
            t.paste_rows(ctx, &trace, &rows)
        }
    }

    /// Gives the keys to the window under the pointer (the active one when the pointer is
    /// over none).
    pub(super) fn panes_begin(&mut self, ctx: &egui::Context) {
        let pointer = ctx.input(|i| i.pointer.hover_pos());
        let n = self.panes.list.len();
        let under = pointer.and_then(|p| {
            (0..n).find(|&i| {
                self.pane_timeline(i)
                    .is_some_and(|t| t.area().is_positive() && t.area().contains(p))
            })
        });
        let keys = under.unwrap_or(self.panes.active);
        for i in 0..n {
            if let Some(t) = self.pane_timeline_mut(i) {
                t.set_ignores_keys(n > 1 && i != keys);
            }
        }
    }

    /// Notes each window's time range and markers, against which the next synchronization
    /// finds what moved.
    fn panes_note(&mut self) {
        let n = self.panes.list.len();
        self.panes.before = (0..n)
            .filter_map(|i| self.pane_timeline(i))
            .map(|t| (t.window(), t.markers().to_vec()))
            .collect();
    }

    /// Synchronizes each group after the frame's input (or whatever moved a window since the
    /// last synchronization): the window whose time range moved (the active one first)
    /// moves the others, markers added or removed in one are every
    /// one's, and the pointer's time over one is a cursor in the others. The frame is drawn
    /// again when a window moved, so that every window of the group shows the move in the
    /// frame the user sees.
    pub(super) fn panes_sync(&mut self, ctx: &egui::Context) {
        let n = self.panes.list.len();
        if n < 2 {
            // One window: nothing to synchronize, nothing to note each frame.
            self.panes.before.clear();
            return;
        }
        if self.panes.before.len() != n {
            self.panes_note();
            return;
        }
        let mut moved_any = false;
        for g in 1..=GROUPS {
            let members: Vec<usize> = (0..n)
                .filter(|&i| self.panes.list[i].group == Some(g))
                .collect();
            if members.len() < 2 {
                continue;
            }
            // The window that moved (the active one when several did).
            let mut order = members.clone();
            order.sort_by_key(|&i| i != self.panes.active);
            let moved = order.iter().copied().find(|&i| {
                self.pane_timeline(i)
                    .is_some_and(|t| t.window() != self.panes.before[i].0)
            });
            if let Some(src) = moved {
                // In the host's ticks, then in each window's.
                let from = self.panes.list[src].clock();
                let w = self
                    .pane_timeline(src)
                    .map(|t| from.host_window(t.window()));
                for &i in &members {
                    let to = self.panes.list[i].clock();
                    if i != src
                        && let (Some(w), Some(t)) = (w, self.pane_timeline_mut(i))
                    {
                        let w = to.own_window(w);
                        if t.window() != w {
                            t.zoom_to(w);
                            moved_any = true;
                        }
                    }
                }
            }
            let marked = order.iter().copied().find(|&i| {
                self.pane_timeline(i)
                    .is_some_and(|t| t.markers() != self.panes.before[i].1.as_slice())
            });
            if let Some(src) = marked {
                // Each window's markers at its own ticks of the same (aligned) time.
                let from = self.panes.list[src].clock();
                let markers: Vec<(i128, String)> = self
                    .pane_timeline(src)
                    .map(|t| {
                        t.markers()
                            .iter()
                            .map(|m| (from.host(i128::from(m.time)), m.label.clone()))
                            .collect()
                    })
                    .unwrap_or_default();
                for &i in &members {
                    let to = self.panes.list[i].clock();
                    let own: Vec<crate::timeline::Marker> = markers
                        .iter()
                        .filter_map(|(t, label)| {
                            Some(crate::timeline::Marker {
                                time: u64::try_from(to.own(*t)).ok()?,
                                label: label.clone(),
                            })
                        })
                        .collect();
                    if let Some(t) = self.pane_timeline_mut(i) {
                        t.take_markers(&own);
                    }
                }
            }
            // (In this trace's ticks.)
            let cursor = members.iter().find_map(|&i| {
                let t = self.pane_timeline(i)?.hover_time()?;
                Some(self.panes.list[i].clock().host(i128::from(t)))
            });
            for &i in &members {
                let clock = self.panes.list[i].clock();
                if let Some(t) = self.pane_timeline_mut(i) {
                    let own = t.hover_time().is_some();
                    let c = cursor
                        .filter(|_| !own)
                        .and_then(|c| u64::try_from(clock.own(c)).ok());
                    if t.group_cursor() != c {
                        t.set_group_cursor(c);
                        ctx.request_repaint();
                    }
                }
            }
        }
        self.panes_note();
        if moved_any {
            ctx.request_discard("timeline windows of a group synchronized");
            ctx.request_repaint();
        }
    }
}

impl App {
    /// Window > New timeline: a window of the active one's view below the others.
    pub fn new_timeline(&mut self) {
        let ctx = self.ctx.clone();
        if let Some(l) = &mut self.loaded {
            let i = l.new_pane(&ctx);
            self.status = format!(
                "timeline window {} opened (synchronize group {})",
                l.panes.list[i].id,
                l.panes.list[i]
                    .group
                    .map_or_else(|| "none".to_owned(), |g| g.to_string())
            );
        }
    }

    /// Draws the timeline windows stacked in `ui` (one window: the timeline alone).
    pub(super) fn panes_ui(&mut self, ui: &mut Ui) {
        let Some(l) = &mut self.loaded else {
            return;
        };
        let n = l.panes.list.len();
        if n == 1 {
            self.shell.timeline_rect = ui.available_rect_before_wrap();
            l.timeline.ui(ui, &l.trace);
            return;
        }
        let mut actions = Vec::new();
        let tiled = l.panes.tiled;
        let total = if tiled {
            ui.available_width()
        } else {
            ui.available_height()
        };
        for i in 0..n {
            let id = l.panes.list[i].id;
            let left = n - i - 1;
            let mut show = |ui: &mut Ui, l: &mut Loaded| {
                if i == l.panes.active {
                    self.shell.timeline_rect = ui.available_rect_before_wrap();
                }
                pane_header(ui, l, i, &mut actions);
                let pressed = ui.input(|inp| {
                    inp.pointer
                        .any_pressed()
                        .then(|| inp.pointer.interact_pos())
                        .flatten()
                });
                let rect = ui.available_rect_before_wrap();
                let Loaded {
                    panes,
                    timeline,
                    trace,
                    ..
                } = l;
                let pane = &mut panes.list[i];
                let trace = pane.guest.as_ref().map_or(&*trace, |g| &g.trace);
                let t = pane.timeline.as_mut().unwrap_or(timeline);
                t.ui(ui, trace);
                if pressed.is_some_and(|p| rect.contains(p)) && i != l.panes.active {
                    actions.push(Action::Activate(i));
                }
            };
            if left == 0 {
                show(ui, l);
            } else {
                // Stacked (one above the other) or tiled (side by side).
                let (least, available) = if tiled {
                    (MIN_WIDTH, ui.available_width())
                } else {
                    (MIN_HEIGHT, ui.available_height())
                };
                let room = (available - least * left as f32).max(least);
                let salt = ("timeline window", id, l.panes.layout, tiled);
                let panel = if tiled {
                    egui::Panel::left(salt)
                } else {
                    egui::Panel::top(salt)
                };
                let margin = if tiled {
                    egui::Margin {
                        right: 6,
                        ..egui::Margin::ZERO
                    }
                } else {
                    egui::Margin {
                        bottom: 6,
                        ..egui::Margin::ZERO
                    }
                };
                panel
                    .resizable(true)
                    .default_size(total / n as f32)
                    .min_size(least)
                    .max_size(room)
                    // No margin of its own: the windows' rows line up.
                    .frame(egui::Frame::new().inner_margin(margin))
                    .show(ui, |ui| {
                        // The panel's height is the user's (or the default), never its
                        // content's: egui keeps a panel's size from what its content used,
                        // and the timeline takes all the room it is given.
                        let rect = ui.available_rect_before_wrap();
                        let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect));
                        child.set_clip_rect(rect.intersect(ui.clip_rect()));
                        show(&mut child, l);
                        ui.advance_cursor_after_rect(rect);
                    });
            }
        }
        for a in actions {
            self.pane_action(a);
        }
    }

    fn pane_action(&mut self, a: Action) {
        let ctx = self.ctx.clone();
        let Some(l) = &mut self.loaded else {
            return;
        };
        match a {
            Action::View(i, spec) => {
                if let Some(p) = l.panes.list.get_mut(i)
                    && let (Some(g), Some(t)) = (&p.guest, &mut p.timeline)
                {
                    let config = crate::view::ViewConfig::new(&g.trace, spec);
                    t.set_view(&ctx, &g.trace, config);
                }
            }
            Action::Activate(i) => l.activate_pane(i),
            Action::Close(i) => {
                l.close_pane(i);
            }
            Action::Group(i, g) => l.set_pane_group(i, g),
            Action::Copy(i) => {
                l.copy_pane(i);
                self.status = format!(
                    "copied the time range and rows of timeline window {}",
                    l.panes.list[i].id
                );
            }
            Action::Paste(i, time) => match l.paste_on_pane(&ctx, i, time) {
                Ok(()) => {}
                Err(e) => self.status = format!("not pasted: {e}"),
            },
        }
    }
}

/// What a window's header asks for.
enum Action {
    /// Another view on a window of another trace.
    View(usize, prvscope_store::signal::SignalSpec),
    Activate(usize),
    Close(usize),
    Group(usize, Option<u8>),
    Copy(usize),
    /// Paste the time range (`true`) or the rows.
    Paste(usize, bool),
}

/// Window `i`'s header: its number and view (a click makes it active), its group, copy,
/// paste and close.
fn pane_header(ui: &mut Ui, l: &Loaded, i: usize, actions: &mut Vec<Action>) {
    let p = &l.panes.list[i];
    let active = i == l.panes.active;
    let trace = l.pane_trace(i).unwrap_or(&l.trace);
    let view = l
        .pane_timeline(i)
        .map(|t| t.config().name(trace))
        .unwrap_or_default();
    ui.horizontal_wrapped(|ui| {
        if p.guest.is_some() {
            // A window of another trace: its name, and its own view list.
            let name = crate::shared::trace_file_name(trace);
            ui.label(RichText::new(format!("{}: {name}", p.id)).strong())
                .on_hover_text(trace.path.display().to_string());
            ui.menu_button(view, |ui| {
                let mut specs = vec![prvscope_store::signal::SignalSpec::States];
                let types = trace.store.event_types();
                if crate::view::MPI_CALL_TYPES
                    .iter()
                    .any(|t| types.contains(t))
                {
                    specs.push(prvscope_store::signal::SignalSpec::Events(
                        crate::view::MPI_CALL_TYPES.to_vec(),
                    ));
                }
                specs.extend(
                    types
                        .iter()
                        .map(|&t| prvscope_store::signal::SignalSpec::Events(vec![t])),
                );
                for spec in specs {
                    let name = crate::view::view_name(trace, &spec);
                    if ui.button(name).clicked() {
                        actions.push(Action::View(i, spec));
                        ui.close();
                    }
                }
            });
            pane_controls(ui, l, i, actions);
            return;
        }
        let title = RichText::new(format!("{}: {view}", p.id));
        if ui
            .selectable_label(active, if active { title.strong() } else { title })
            .on_hover_text("The active window: the side panel, the menus and the exports act on it")
            .clicked()
        {
            actions.push(Action::Activate(i));
        }
        pane_controls(ui, l, i, actions);
    });
}

/// Window `i`'s synchronize group, copy, paste and close.
fn pane_controls(ui: &mut Ui, l: &Loaded, i: usize, actions: &mut Vec<Action>) {
    let p = &l.panes.list[i];
    let text = |g: Option<u8>| {
        g.map_or_else(
            || "not synchronized".to_owned(),
            |g| format!("sync group {g}"),
        )
    };
    let mut group = p.group;
    ui.menu_button(text(group), |ui| {
        ui.selectable_value(&mut group, None, text(None));
        for g in 1..=GROUPS {
            ui.selectable_value(&mut group, Some(g), text(Some(g)));
        }
    })
    .response
    .on_hover_text("Windows of one group zoom, pan and undo together");
    if group != p.group {
        actions.push(Action::Group(i, group));
    }
    if ui
        .small_button("Copy")
        .on_hover_text("Copy this window's time range and rows")
        .clicked()
    {
        actions.push(Action::Copy(i));
    }
    let can = l.panes.copied.is_some();
    if ui
        .add_enabled(can, egui::Button::new("Paste time").small())
        .on_hover_text("Show the time range copied")
        .clicked()
    {
        actions.push(Action::Paste(i, true));
    }
    if ui
        .add_enabled(can, egui::Button::new("Paste rows").small())
        .on_hover_text("Show the rows copied (level, collapsed tasks, first row)")
        .clicked()
    {
        actions.push(Action::Paste(i, false));
    }
    if ui
        .small_button("Close")
        .on_hover_text("Close this timeline window")
        .clicked()
    {
        actions.push(Action::Close(i));
    }
}

#[cfg(test)]
mod tests {
    use super::{Clock, TimeWindow};

    #[test]
    fn a_clock_maps_ticks_of_other_units_and_shifts_both_ways() {
        // Host in ns, window in µs, B's region at its 5,000 where A's is at 2,000,000.
        let c = Clock::aligned(1, 1000, 2_000_000, 5_000);
        assert_eq!((c.num, c.den, c.shift), (1, 1000, 3_000));
        assert_eq!(c.own(2_000_000), 5_000);
        assert_eq!(c.host(5_000), 2_000_000);
        let w = TimeWindow {
            start: 3_000_000,
            span: 1_000_000,
        };
        let own = c.own_window(w);
        assert_eq!(
            own,
            TimeWindow {
                start: 6_000,
                span: 1_000
            }
        );
        assert_eq!(c.host_window(own), w);
        // Host in µs, window in ns: its tick is the host's times 1000.
        let c = Clock::aligned(1000, 1, 0, 0);
        assert_eq!(c.own(7), 7_000);
        assert_eq!(c.host(7_999), 7);
        // A window shifted before 0 starts at 0, and is never empty.
        let c = Clock::aligned(1, 1, 100, 0);
        assert_eq!(
            c.own_window(TimeWindow { start: 0, span: 10 }),
            TimeWindow { start: 0, span: 1 }
        );
        assert_eq!(Clock::aligned(1, 1, 0, 0), Clock::SAME);
    }
}

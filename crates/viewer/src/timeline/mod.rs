//! The timeline widget: row labels, the rows of the current view, the time ruler, and the
//! interaction (wheel zoom at the cursor, drag to pan, shift-drag or right-drag to select a
//! range, undo/redo, fit, keyboard panning, hover tooltip, click to pin).
//!
//! Frames are cached: the summaries are only rebuilt when the window, the size, the rows or
//! the view change, so hovering and idle repaints cost nothing.
//!
//! - `input`: the wheel, drags, clicks and keys;
//! - `paint`: the overlays (selection, scope highlight, pin), the ruler and the row labels;
//! - `widgets`: the details of a point, the messages of a line and the legend's swatches,
//!   for the side panels.

mod comms;
mod deferred;
pub use deferred::{BUILT_ON_WORKERS, HEAVY_THREAD_COLUMNS};
mod group;
mod input;
mod lanes;
mod marks;
mod objects;
mod paint;
mod state;
mod widgets;

pub use group::RowsCopy;
pub use lanes::{Lane, MAX_LANES};
pub use marks::Marker;
pub use objects::FIT_ON_OPEN_ROWS;
pub use state::ClassFill;
pub use widgets::{comm_ui, details_lines, details_ui, swatch};

use std::sync::Arc;
use std::time::Instant;

use egui::{Rect, Sense, Shape, Stroke, Ui, pos2, vec2};

use super::frame::{self, FrameRequest, TimeWindow};
use super::jobs::Job;
use super::rows::{Grouping, Level, RowItem, RowKind, drawn_row_of_thread};
use super::theme;
use super::view::{ColorMode, Coloring, ViewConfig, raw_is_value, value_label};
use prvscope_store::Trace;
use prvscope_store::comm_index::{Bundle, Bundles, CommIndex};
use prvscope_store::placement::Placement;
use prvscope_store::signal::ViewSignals;

/// Width of the row label column.
pub const LABEL_WIDTH: f32 = 130.0;
/// Height of the time ruler.
pub const RULER_HEIGHT: f32 = 22.0;
/// Rows never get thinner than this; more rows scroll. Fewer rows share the whole height
/// (as Paraver's windows: no band of background under the last row).
pub const MIN_ROW_HEIGHT: f32 = 12.0;
/// "Fit all rows" makes rows as thin as this at most (a pixel: thousands of CPUs).
pub const MIN_FIT_ROW_HEIGHT: f32 = 1.0;
/// Rows thinner than this get no label of their own (their applications are named).
pub const MIN_LABEL_ROW_HEIGHT: f32 = 8.0;
/// Views of stores with fewer records are built on the UI thread (instantly); bigger ones on
/// a worker, while the previous view stays on screen.
const SYNC_BUILD_RECORDS: u64 = 2_000_000;
pub use crate::frame::MAX_BUNDLES;

/// A point the user clicked: row (index into the drawn rows) and tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pinned {
    pub row: usize,
    pub time: u64,
}

/// What the pointer is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Details {
    pub row_label: String,
    pub time: u64,
    /// Raw value and its label ("null" when null).
    pub value: Option<u64>,
    pub label: String,
    /// The interval holding the value (thread rows only).
    pub begin: Option<u64>,
    pub end: Option<u64>,
}

/// The communications drawn in a frame: their lines (too dense for lines: those of the
/// pinned row) and density, and the mesh.
pub struct Comms {
    pub bundles: Bundles,
    /// The window's messages per row and pixel column, when lines would cover more than
    /// [`frame::LINE_BUDGET`] of the rows.
    pub density: Option<prvscope_store::comm_index::Density>,
    /// The lines (of the pinned row, over a density).
    mesh: Arc<egui::Mesh>,
    /// A density's bands, textured with its image (kept while the frame is shown).
    band: Option<(Arc<egui::Mesh>, egui::TextureHandle)>,
}

#[derive(Clone, PartialEq)]
struct FrameKey {
    window: TimeWindow,
    rect: Rect,
    row_height: f32,
    first_row: usize,
    rows_generation: u64,
    view_generation: u64,
    /// The pinned row (its lines are drawn over a density).
    pinned_row: Option<usize>,
    /// Only the pinned thread's lines are drawn.
    pinned_only: bool,
    pixels_per_point: f32,
}

/// How far from a communication line (beyond its width) the pointer still shows it, in
/// points: a line is a pixel or two wide.
const COMM_HOVER_SLOP: f32 = 6.0;

/// The timeline of one trace: the view and the window shown, and the state of each concern
/// ([`state`]).
pub struct Timeline {
    pub(crate) config: ViewConfig,
    pub(crate) window: TimeWindow,
    pub(crate) shown: state::Shown,
    pub(crate) nav: state::Nav,
    pub(crate) layout: state::Layout,
    pub(crate) drawn: state::Drawn,
    pub(crate) comm: state::CommState,
    pub(crate) pointer: state::Pointer,
    pub(crate) marks: state::Marks,
}

impl Timeline {
    /// The first view with data of a trace ([`super::view::first_view`]) over its whole
    /// duration.
    pub fn new(trace: &Trace) -> Self {
        let config = ViewConfig::new(trace, super::view::first_view(trace));
        let signals = Arc::new(ViewSignals::build(
            Arc::clone(&trace.store),
            config.spec.clone(),
            config.zero_is_null,
        ));
        let coloring = Coloring::new(trace, &config, signals.values());
        let grouping = Grouping::default();
        let rows = grouping.layout(trace);
        let fit_rows = rows.len() > FIT_ON_OPEN_ROWS;
        let end_time = trace.header.end_time.max(trace.store.end_time());
        let home = match trace.loaded_range() {
            Some((from, to)) if to > from => TimeWindow {
                start: from,
                span: (to - from).max(super::frame::MIN_SPAN),
            },
            _ => TimeWindow::all(end_time),
        };
        Timeline {
            config,
            window: home,
            shown: state::Shown {
                signals,
                coloring,
                pending: None,
                generation: 0,
                lanes: Vec::new(),
                lanes_job: None,
            },
            nav: state::Nav {
                home,
                undo: Vec::new(),
                redo: Vec::new(),
                end_time,
                ns_per_tick: trace.header.time_unit.ns_per_tick(),
                origin: None,
            },
            layout: state::Layout {
                grouping,
                shown: 0..rows.len(),
                all: rows.clone(),
                rows,
                fit_height: 0,
                generation: 0,
                first_row: 0,
                fit_rows,
                level: Level::Thread,
                placement: None,
            },
            drawn: state::Drawn {
                cache: None,
                deferred: deferred::Deferred::default(),
                last_build_ms: 0.0,
                area: Rect::NOTHING,
                row_height: MIN_ROW_HEIGHT,
            },
            comm: state::CommState {
                index: CommIndex::of(&trace.store),
                hovered: None,
                pinned: None,
                pinned_only: false,
            },
            pointer: state::Pointer::default(),
            marks: state::Marks::default(),
        }
    }

    /// The view shown and its settings.
    pub fn config(&self) -> &ViewConfig {
        &self.config
    }

    /// The visible time range.
    pub fn window(&self) -> TimeWindow {
        self.window
    }

    /// The drawn row at the top of the area.
    pub fn first_row(&self) -> usize {
        self.layout.first_row
    }

    /// Milliseconds the last rebuild of the rows and communication lines took.
    pub fn last_build_ms(&self) -> f64 {
        self.drawn.last_build_ms
    }

    /// True when rows are made thin enough to show them all (View > Fit all rows, F).
    pub fn fits_rows(&self) -> bool {
        self.layout.fit_rows
    }

    /// The point the user pinned, if any.
    pub fn pinned(&self) -> Option<Pinned> {
        self.pointer.pinned
    }

    /// The details of the point under the pointer, after the last frame.
    pub fn hovered(&self) -> Option<Details> {
        self.pointer.hovered.clone()
    }

    /// Pins drawn row `row` at tick `time` (as a click on the timeline does).
    pub fn pin(&mut self, row: usize, time: u64) {
        self.pointer.pinned = Some(Pinned { row, time });
    }

    /// Where the rows were drawn in the last frame.
    pub fn area(&self) -> Rect {
        self.drawn.area
    }

    /// The height of a row in the last frame.
    pub fn row_height(&self) -> f32 {
        self.drawn.row_height
    }

    /// The intervals outlined per thread (the scope selected in the scope panel).
    pub fn highlight(&self) -> Option<&crate::shared::Intervals> {
        self.pointer.highlight.as_ref()
    }

    /// The drawn rows.
    pub fn rows(&self) -> &[RowItem] {
        &self.layout.rows
    }

    /// The view's signals (what is drawn).
    pub fn signals(&self) -> &Arc<ViewSignals> {
        &self.shown.signals
    }

    /// The current colouring.
    pub fn coloring(&self) -> &Coloring {
        &self.shown.coloring
    }

    /// True while a heavy frame is built on a worker (the last one shown meanwhile).
    pub fn is_redrawing(&self) -> bool {
        self.drawn.deferred.is_building()
    }

    /// True while a new view is being built.
    pub fn is_building(&self) -> bool {
        self.shown.pending.is_some()
    }

    /// The communications drawn in the last frame (none when they are switched off).
    pub fn comms(&self) -> Option<&Bundles> {
        self.drawn
            .cache
            .as_ref()
            .and_then(|c| c.3.as_ref())
            .map(|c| &c.bundles)
    }

    /// Whether only the pinned thread's messages are drawn.
    pub fn pinned_comms_only(&self) -> bool {
        self.comm.pinned_only
    }

    /// Draws only the pinned thread's messages (as lines), or all of them.
    pub fn set_pinned_comms_only(&mut self, on: bool) {
        self.comm.pinned_only = on;
    }

    /// The communications' density drawn in the last frame, when they were too many for
    /// lines.
    pub fn comm_density(&self) -> Option<&prvscope_store::comm_index::Density> {
        self.drawn
            .cache
            .as_ref()
            .and_then(|c| c.3.as_ref())
            .and_then(|c| c.density.as_ref())
    }

    /// The trace's communications by pair.
    pub fn comm_index(&self) -> &CommIndex {
        &self.comm.index
    }

    /// The communication line under the pointer in the last frame.
    pub fn hovered_comm(&self) -> Option<&Bundle> {
        self.comm.hovered.as_ref()
    }

    /// The communication line clicked last.
    pub fn pinned_comm(&self) -> Option<&Bundle> {
        self.comm.pinned.as_ref()
    }

    /// The scale the last frame drew a gradient or function line with.
    pub fn frame_scale(&self) -> Option<(u64, u64)> {
        self.drawn.cache.as_ref().and_then(|c| c.1.scale)
    }

    /// Values drawn in the last frame, with their pixel counts.
    pub fn legend(&self) -> &[(u64, u32)] {
        self.drawn
            .cache
            .as_ref()
            .map_or(&[], |c| c.1.legend.as_slice())
    }

    /// The last tick of the trace.
    pub fn end_time(&self) -> u64 {
        self.nav.end_time
    }

    /// Switches to another view; its rows are built now for small traces, else on a worker
    /// (`ctx` is repainted when they are ready).
    pub fn set_view(&mut self, ctx: &egui::Context, trace: &Trace, config: ViewConfig) {
        if config.spec == self.shown.signals.spec().clone()
            && config.zero_is_null == self.shown.signals.zero_is_null()
        {
            self.shown.pending = None;
            self.apply_config(trace, config);
            return;
        }
        self.build_view(ctx, trace, config);
    }

    /// Builds the rows of `config`'s view (on the CPUs at the CPU and node levels): now for
    /// small traces, else on a worker.
    fn build_view(&mut self, ctx: &egui::Context, trace: &Trace, config: ViewConfig) {
        let placement = self
            .layout
            .level
            .is_resource()
            .then(|| self.layout.placement.clone())
            .flatten();
        let build = move |store, spec, zero_is_null| {
            let view = ViewSignals::build(store, spec, zero_is_null);
            match placement {
                Some(p) => view.on_cpus(&p),
                None => view,
            }
        };
        if trace.store.counts().total() < SYNC_BUILD_RECORDS {
            let signals = Arc::new(build(
                Arc::clone(&trace.store),
                config.spec.clone(),
                config.zero_is_null,
            ));
            self.shown.signals = signals;
            self.apply_config(trace, config);
        } else {
            let store = Arc::clone(&trace.store);
            let spec = config.spec.clone();
            let zero_is_null = config.zero_is_null;
            let job = Job::spawn_outside_pool(ctx, "view-builder", move |_| {
                Arc::new(build(store, spec, zero_is_null))
            });
            self.shown.pending = Some((config, job));
        }
    }

    /// Changes colour mode, draw mode, comms or flags of the current view (the null switch
    /// goes through [`Self::set_view`], which rebuilds the view's rows).
    pub fn apply_config(&mut self, trace: &Trace, config: ViewConfig) {
        self.shown.coloring = Coloring::new(trace, &config, self.shown.signals.values());
        // A view of CPUs or nodes has rows of its own; leaving it brings the threads back.
        let resource_view = resource_rows(&config.spec).is_some();
        let resource_shown = matches!(
            self.layout.rows.first().map(|r| &r.kind),
            Some(RowKind::Resource(_))
        );
        let spec_changed = config.spec != self.config.spec;
        self.config = config;
        self.shown.generation += 1;
        self.update_lanes(trace);
        if resource_view != resource_shown || (resource_view && spec_changed) {
            self.relayout(trace);
        }
    }

    fn poll_pending(&mut self, trace: &Trace) {
        let ready = self.shown.pending.as_mut().and_then(|(_, job)| job.poll());
        if let Some(signals) = ready
            && let Some((config, _)) = self.shown.pending.take()
        {
            self.shown.signals = signals;
            self.apply_config(trace, config);
        }
    }

    /// Collapses or expands every task/application, or shows the CPUs or nodes instead of
    /// the threads (the view is rebuilt on them); says why when the trace does not tell
    /// where its threads ran.
    pub fn set_level(
        &mut self,
        ctx: &egui::Context,
        trace: &Trace,
        level: Level,
    ) -> Result<(), String> {
        if level.is_resource() && self.layout.placement.is_none() {
            self.layout.placement = Some(Arc::new(Placement::of(trace)?));
        }
        let rebuild = level.is_resource() != self.layout.level.is_resource();
        self.layout.level = level;
        self.layout.grouping.set_level(trace, level);
        if rebuild {
            // Communications are drawn between threads only.
            let config = self.config.clone();
            self.build_view(ctx, trace, config);
        }
        self.relayout(trace);
        Ok(())
    }

    /// The rows' level.
    pub fn level(&self) -> Level {
        self.layout.level
    }

    /// Where the threads ran, once CPU or node rows were shown.
    pub fn placement(&self) -> Option<&Placement> {
        self.layout.placement.as_deref()
    }

    /// Toggles the group of drawn row `i`.
    pub fn toggle_row(&mut self, trace: &Trace, i: usize) {
        if let Some(item) = self.layout.rows.get(i).cloned() {
            self.layout.grouping.toggle(&item);
            self.relayout(trace);
        }
    }

    /// Moves to `window`, remembering the current one for undo.
    pub fn zoom_to(&mut self, window: TimeWindow) {
        if window != self.window {
            self.nav.undo.push(self.window);
            self.nav.redo.clear();
            self.window = window;
        }
    }

    /// Goes back to the previous window.
    pub fn undo_zoom(&mut self) -> bool {
        step_history(&mut self.window, &mut self.nav.undo, &mut self.nav.redo)
    }

    /// Goes forward again after an undo.
    pub fn redo_zoom(&mut self) -> bool {
        step_history(&mut self.window, &mut self.nav.redo, &mut self.nav.undo)
    }

    /// Shows the whole trace (the range loaded, when only part of it was).
    pub fn fit(&mut self) {
        self.zoom_to(self.nav.home);
    }

    /// Details of drawn row `row` at tick `t`.
    pub fn details(&self, trace: &Trace, row: usize, t: u64) -> Option<Details> {
        if let Some(d) = self.lane_details(trace, row, t) {
            return Some(d);
        }
        let item = self.layout.rows.get(row)?;
        let spec = &self.config.spec;
        if let RowKind::Thread(thread) = item.kind {
            let interval = self.shown.signals.interval_at(thread, t);
            let value = interval.map(|i| i.value);
            let null = value.is_none_or(|v| self.shown.coloring.is_null(v));
            Some(Details {
                row_label: item.label.clone(),
                time: t,
                value: value.filter(|_| !null && raw_is_value(spec)),
                label: value_label(trace, spec, value.unwrap_or(0), null),
                begin: interval.map(|i| i.begin),
                end: interval.map(|i| i.end),
            })
        } else {
            let sentinel = self.shown.signals.sentinel();
            let edges = [t, t.saturating_add(1)];
            let px = frame::row_pixels(
                &self.shown.signals,
                item,
                &edges,
                sentinel,
                self.config.mode,
            );
            let value = px.first().map_or(sentinel, |p| p.value);
            let null = self.shown.coloring.is_null(value);
            Some(Details {
                row_label: item.label.clone(),
                time: t,
                value: (!null && raw_is_value(spec)).then_some(value),
                label: value_label(trace, spec, value, null),
                begin: None,
                end: None,
            })
        }
    }

    /// Draws the timeline in all of `ui`'s available space and handles its input.
    pub fn ui(&mut self, ui: &mut Ui, trace: &Trace) {
        self.poll_pending(trace);
        self.poll_lanes(trace, ui.ctx());
        if self.shown.pending.is_some() {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(50));
        }
        let (rect, _) = ui.allocate_exact_size(ui.available_size(), Sense::hover());
        let labels = Rect::from_min_max(
            rect.min,
            pos2(rect.left() + LABEL_WIDTH, rect.bottom() - RULER_HEIGHT),
        );
        let area = Rect::from_min_max(
            pos2(labels.right(), rect.top()),
            pos2(rect.right() - 10.0, rect.bottom() - RULER_HEIGHT),
        );
        let ruler = Rect::from_min_max(
            pos2(area.left(), area.bottom()),
            pos2(area.right(), rect.bottom()),
        );
        let scrollbar = Rect::from_min_max(
            pos2(area.right(), area.top()),
            pos2(rect.right(), area.bottom()),
        );
        if area.width() < 20.0 || area.height() < 10.0 {
            return;
        }
        // More rows than points with "Fit all rows": one summary row per point.
        self.fit_to((area.height() / MIN_FIT_ROW_HEIGHT).floor() as usize);
        let n = self.layout.rows.len().max(1);
        let min_height = if self.layout.fit_rows {
            MIN_FIT_ROW_HEIGHT
        } else {
            MIN_ROW_HEIGHT
        };
        let row_height = (area.height() / n as f32).max(min_height);
        let per_page = ((area.height() / row_height).floor() as usize).max(1);
        let max_first = self.layout.rows.len().saturating_sub(per_page);

        let response = ui.interact(
            area,
            ui.scope_id().with("timeline-area"),
            Sense::click_and_drag(),
        );
        let label_response = ui.interact(
            labels,
            ui.scope_id().with("timeline-labels"),
            Sense::hover(),
        );
        let bar_response = ui.interact(
            scrollbar,
            ui.scope_id().with("timeline-scroll"),
            Sense::click_and_drag(),
        );
        self.handle_input(ui, &response, &label_response, area, row_height, per_page);
        if (bar_response.dragged() || bar_response.clicked())
            && let Some(p) = bar_response.interact_pointer_pos()
        {
            let f = ((p.y - scrollbar.top()) / scrollbar.height()).clamp(0.0, 1.0);
            self.layout.first_row =
                ((f * self.layout.rows.len() as f32) as usize).saturating_sub(per_page / 2);
        }
        self.layout.first_row = self.layout.first_row.min(max_first);
        let visible =
            self.layout.first_row..(self.layout.first_row + per_page).min(self.layout.rows.len());
        self.drawn.area = area;
        self.drawn.row_height = row_height;

        // Build (or reuse) the frame.
        let key = FrameKey {
            window: self.window,
            rect: area,
            row_height,
            first_row: self.layout.first_row,
            rows_generation: self.layout.generation,
            view_generation: self.shown.generation
                ^ (Arc::as_ptr(&self.shown.signals) as u64).rotate_left(17),
            pinned_row: self.pointer.pinned.map(|p| p.row),
            pinned_only: self.comm.pinned_only,
            pixels_per_point: ui.ctx().pixels_per_point(),
        };
        if self.drawn.cache.as_ref().is_none_or(|c| c.0 != key) {
            let started = Instant::now();
            let req = FrameRequest {
                view: &self.shown.signals,
                coloring: &self.shown.coloring,
                rows: &self.layout.rows,
                visible: visible.clone(),
                rect: area,
                row_height,
                window: self.window,
                flags: self.config.flags,
                mode: self.config.mode,
                scale: self.config.scale,
            };
            let visible_rows = self.layout.rows.get(visible.clone()).unwrap_or_default();
            let heavy =
                self.shown.lanes.is_empty() && deferred::is_heavy(visible_rows, area.width());
            let built = if heavy {
                let done = self
                    .drawn
                    .deferred
                    .frame_for(ui.ctx(), &key, &self.shown.signals, &req);
                if done.is_none() && self.drawn.deferred.is_building() {
                    ui.ctx()
                        .request_repaint_after(std::time::Duration::from_millis(30));
                }
                done
            } else {
                self.drawn.deferred.clear();
                Some((key.clone(), Self::build_frame(&mut self.shown.lanes, &req)))
            };
            if let Some((built_for, built)) = built {
                let (built, image) = Self::raster_if_large(ui.ctx(), built, built_for.rect);
                let comms = self
                    .config
                    .comms
                    .then(|| self.build_comms(ui.ctx(), trace, area, row_height, &visible));
                self.drawn.last_build_ms = started.elapsed().as_secs_f64() * 1e3;
                self.drawn.cache = Some((built_for, built, image, comms));
            }
        }
        let painter = ui.painter_at(rect);
        painter.rect_filled(area, 0.0, theme::BACKGROUND);
        painter.rect_filled(ruler, 0.0, theme::BACKGROUND);
        painter.rect_filled(labels, 0.0, theme::LABEL_BACKGROUND);
        if let Some((_, built, image, comms)) = &self.drawn.cache {
            let clipped = ui.painter_at(area);
            if let Some((texture, at)) = image {
                let uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
                clipped.image(texture.id(), *at, uv, egui::Color32::WHITE);
            }
            clipped.extend(built.meshes.iter().map(|m| Shape::Mesh(Arc::clone(m))));
            if let Some(c) = comms {
                if let Some((band, _)) = &c.band {
                    clipped.add(Shape::Mesh(Arc::clone(band)));
                }
                clipped.add(Shape::Mesh(Arc::clone(&c.mesh)));
            }
        }
        let shown = self.drawn.cache.as_ref().map(|c| c.0 == key);
        self.drawn
            .deferred
            .paint(&ui.painter_at(area), area, &key, shown);
        if self.config.color == ColorMode::FunctionLine {
            self.paint_line_axes(ui, trace, area, row_height, visible.len());
        }
        self.paint_app_separators(ui, labels, area, row_height, &visible);
        self.paint_overlays(ui, area, row_height, &visible);
        self.paint_marks(ui, area);
        self.paint_ruler(ui, ruler, area);
        self.paint_labels(ui, trace, labels, row_height, &visible);
        if self.layout.rows.len() > per_page {
            let total = self.layout.rows.len() as f32;
            let top = scrollbar.top() + scrollbar.height() * self.layout.first_row as f32 / total;
            let h = (scrollbar.height() * per_page as f32 / total).max(8.0);
            painter.rect_filled(scrollbar, 0.0, theme::LABEL_STRIPE);
            painter.rect_filled(
                Rect::from_min_size(
                    pos2(scrollbar.left() + 2.0, top),
                    vec2(scrollbar.width() - 4.0, h),
                ),
                2.0,
                theme::AXIS,
            );
        }

        self.pointer.hover_time = response
            .hover_pos()
            .map(|p| self.window.time_from_x(p.x, area).max(0.0) as u64);
        // Hover tooltip: a communication line under the pointer, else the row's value.
        self.pointer.hovered = None;
        self.pointer.hovered_row = None;
        self.comm.hovered = None;
        if let Some(pos) = response.hover_pos()
            && self.pointer.selecting.is_none()
            && let Some((_, _, _, Some(c))) = &self.drawn.cache
        {
            let first = self.layout.first_row;
            self.comm.hovered = frame::bundle_at(
                &c.bundles,
                self.window,
                area,
                &|r| row_center(area, r, first, row_height),
                pos,
                COMM_HOVER_SLOP,
            )
            .copied();
        }
        if response.clicked() {
            self.comm.pinned = self.comm.hovered;
        }
        if let Some(b) = self.comm.hovered {
            let npt = self.nav.ns_per_tick;
            let index = Arc::clone(&self.comm.index);
            let span = self.window.span;
            response.on_hover_ui_at_pointer(|ui| comm_ui(ui, trace, &index, &b, npt, span));
        } else if let Some(pos) = response.hover_pos()
            && self.pointer.selecting.is_none()
            && let Some(row) = self.row_at(pos.y, area, row_height, &visible)
        {
            let t = self.window.time_from_x(pos.x, area).max(0.0) as u64;
            self.pointer.hovered = self.details(trace, row, t);
            self.pointer.hovered_row = Some(row);
            ui.painter_at(area).line_segment(
                [pos2(pos.x, area.top()), pos2(pos.x, area.bottom())],
                Stroke::new(1.0, theme::CURSOR.gamma_multiply(0.4)),
            );
            if let Some(d) = self.pointer.hovered.clone() {
                let npt = self.nav.ns_per_tick;
                let span = self.window.span;
                response.on_hover_ui_at_pointer(|ui| details_ui(ui, &d, npt, span));
            }
        }
    }
}

/// The vertical centre of drawn row `r` when `first` is the top row.
fn row_center(area: Rect, r: u32, first: usize, row_height: f32) -> f32 {
    area.top() + (r as f32 - first as f32) * row_height + row_height * 0.5
}

/// Moves `window` to the top of `from`, remembering it on `to` (undo and redo).
fn step_history(
    window: &mut TimeWindow,
    from: &mut Vec<TimeWindow>,
    to: &mut Vec<TimeWindow>,
) -> bool {
    match from.pop() {
        Some(w) => {
            to.push(*window);
            *window = w;
            true
        }
        None => false,
    }
}

/// The labels of a view's own rows of CPUs, nodes or the system, if it has them.
fn resource_rows(spec: &prvscope_store::signal::SignalSpec) -> Option<Vec<String>> {
    match spec {
        prvscope_store::signal::SignalSpec::Custom(c) if !c.0.resource_rows.is_empty() => Some(
            c.0.resource_rows
                .iter()
                .map(|(label, _, _)| label.clone())
                .collect(),
        ),
        _ => None,
    }
}

//! Lanes: a view of several event types (other than the MPI call view, whose types are one
//! call at a time) draws each thread's row as one lane per type, top
//! to bottom in type order, each with its own colours (a counter's gradient spans that
//! type's values only), so that the types are told apart; the legend has a part per type.
//! Collapsed and CPU rows draw lanes too: each lane is that type's view of the row.

use std::sync::Arc;

use egui::Mesh;

use super::{Details, Timeline};
use crate::frame::{self, Frame, FrameRequest};
use crate::jobs::Job;
use crate::view::{Coloring, ViewConfig, value_label};
use prvscope_store::Trace;
use prvscope_store::signal::{SignalSpec, ViewSignals};

/// At most this many types are drawn as lanes (more share one lane, as before).
pub const MAX_LANES: usize = 4;

/// Lanes of stores with fewer records are built on the UI thread (instantly); bigger ones by
/// a background job, the view drawn in one lane meanwhile.
const SYNC_LANE_RECORDS: u64 = 2_000_000;

/// Lanes being built: their types, and the job building them (started at the next frame,
/// which has the context to wake).
pub type LanesJob = (Vec<u32>, Option<Job<Vec<(u32, ViewSignals)>>>);

/// The view's settings for one of its types.
fn lane_config(config: &ViewConfig, ty: u32) -> ViewConfig {
    ViewConfig {
        spec: SignalSpec::Events(vec![ty]),
        ..config.clone()
    }
}

/// One type's lane.
pub struct Lane {
    pub ty: u32,
    pub signals: Arc<ViewSignals>,
    pub coloring: Coloring,
    /// What the last frame drew in this lane (value, pixel columns).
    pub legend: Vec<(u64, u32)>,
    /// The scale the last frame drew this lane with (see [`crate::frame::Frame::scale`]).
    pub scale: Option<(u64, u64)>,
}

impl Timeline {
    /// The lanes of the view (none unless it reads 2 to [`MAX_LANES`] event types).
    pub fn lanes(&self) -> &[Lane] {
        &self.shown.lanes
    }

    /// Rebuilds the lanes for the current view (after its signals changed).
    pub(super) fn update_lanes(&mut self, trace: &Trace) {
        let types = match &self.config.spec {
            // The MPI call view reads its types as one (a call is of one of them at a time).
            SignalSpec::Events(types)
                if (2..=MAX_LANES).contains(&types.len())
                    && types.as_slice() != crate::view::MPI_CALL_TYPES =>
            {
                types.clone()
            }
            _ => {
                self.shown.lanes.clear();
                return;
            }
        };
        if self
            .shown
            .lanes
            .iter()
            .map(|l| l.ty)
            .eq(types.iter().copied())
            && self.shown.lanes.first().is_some_and(|l| {
                l.signals.zero_is_null() == self.config.zero_is_null
                    && Arc::ptr_eq(l.signals.store(), &trace.store)
            })
        {
            // Same types: only the colours may have changed.
            for lane in &mut self.shown.lanes {
                let config = lane_config(&self.config, lane.ty);
                lane.coloring = Coloring::new(trace, &config, lane.signals.values());
            }
            return;
        }
        if self
            .shown
            .lanes_job
            .as_ref()
            .is_some_and(|(t, _)| *t == types)
        {
            // Already being built.
            return;
        }
        self.shown.lanes.clear();
        self.shown.lanes_job = None;
        if trace.store.counts().total() < SYNC_LANE_RECORDS {
            let views = self.lanes_builder(trace)(types);
            self.set_lanes(trace, views);
        } else {
            self.shown.lanes_job = Some((types, None));
        }
    }

    /// What builds the lanes of some types of the view, off the UI thread or on it.
    fn lanes_builder(
        &self,
        trace: &Trace,
    ) -> impl FnOnce(Vec<u32>) -> Vec<(u32, ViewSignals)> + Send + 'static {
        let placement = self
            .layout
            .level
            .is_resource()
            .then(|| self.layout.placement.clone())
            .flatten();
        let store = Arc::clone(&trace.store);
        let zero_is_null = self.config.zero_is_null;
        move |types: Vec<u32>| -> Vec<(u32, ViewSignals)> {
            types
                .into_iter()
                .map(|ty| {
                    let view = ViewSignals::build(
                        Arc::clone(&store),
                        SignalSpec::Events(vec![ty]),
                        zero_is_null,
                    );
                    let view = match &placement {
                        Some(p) => view.on_cpus(p),
                        None => view,
                    };
                    (ty, view)
                })
                .collect()
        }
    }

    fn set_lanes(&mut self, trace: &Trace, built: Vec<(u32, ViewSignals)>) {
        self.shown.lanes = built
            .into_iter()
            .map(|(ty, view)| {
                let config = lane_config(&self.config, ty);
                let coloring = Coloring::new(trace, &config, view.values());
                Lane {
                    ty,
                    signals: Arc::new(view),
                    coloring,
                    legend: Vec::new(),
                    scale: None,
                }
            })
            .collect();
        self.shown.generation += 1;
    }

    /// Starts the lanes asked for, and takes those built in the background if they are still
    /// the view's.
    pub(super) fn poll_lanes(&mut self, trace: &Trace, ctx: &egui::Context) {
        let Some((types, job)) = &mut self.shown.lanes_job else {
            return;
        };
        if job.is_none() {
            let build = {
                let wanted = types.clone();
                let builder = self.lanes_builder(trace);
                move |_: &std::sync::atomic::AtomicBool| builder(wanted)
            };
            let Some((_, job)) = &mut self.shown.lanes_job else {
                return;
            };
            *job = Some(Job::spawn(ctx, "lanes", build));
            return;
        }
        let Some(running) = job.as_mut() else {
            return;
        };
        let Some(built) = running.poll() else {
            if !running.is_running() {
                // The build ended without lanes (it panicked): the view stays in one lane.
                self.shown.lanes_job = None;
            }
            return;
        };
        let current = matches!(&self.config.spec, SignalSpec::Events(t) if t == types);
        self.shown.lanes_job = None;
        if current {
            self.set_lanes(trace, built);
        }
    }

    /// The frame of `req`, or, with lanes, each lane's frame squeezed into its band of every
    /// row (the frame's legend is then empty: each lane keeps its own).
    pub(super) fn build_frame(lanes: &mut [Lane], req: &FrameRequest<'_>) -> Frame {
        if lanes.is_empty() {
            return frame::build(req);
        }
        let k = lanes.len() as f32;
        let mut out = Frame::default();
        for (j, lane) in lanes.iter_mut().enumerate() {
            let f = frame::build(&FrameRequest {
                view: &lane.signals,
                coloring: &lane.coloring,
                rows: req.rows,
                visible: req.visible.clone(),
                rect: req.rect,
                row_height: req.row_height,
                window: req.window,
                flags: req.flags,
                mode: req.mode,
                scale: req.scale,
            });
            for (i, mesh) in f.meshes.iter().enumerate() {
                let top = req.rect.top() + i as f32 * req.row_height;
                let band = top + j as f32 * req.row_height / k;
                let mut m: Mesh = (**mesh).clone();
                for v in &mut m.vertices {
                    v.pos.y = band + (v.pos.y - top) / k;
                }
                out.meshes.push(Arc::new(m));
            }
            out.quads += f.quads;
            lane.legend = f.legend;
            lane.scale = f.scale;
        }
        out
    }

    /// The details of a thread row with lanes: every type's value at `t`.
    pub(super) fn lane_details(&self, trace: &Trace, row: usize, t: u64) -> Option<Details> {
        if self.shown.lanes.is_empty() {
            return None;
        }
        let item = self.layout.rows.get(row)?;
        let crate::rows::RowKind::Thread(thread) = item.kind else {
            return None;
        };
        let mut labels = Vec::new();
        let mut first = None;
        for lane in &self.shown.lanes {
            let spec = SignalSpec::Events(vec![lane.ty]);
            let interval = lane.signals.interval_at(thread, t);
            let value = interval.map(|i| i.value);
            let null = value.is_none_or(|v| lane.coloring.is_null(v));
            first = first.or(interval.filter(|_| !null));
            labels.push(format!(
                "{}: {}",
                crate::view::type_label(trace, lane.ty),
                if null {
                    "null".to_string()
                } else {
                    value_label(trace, &spec, value.unwrap_or(0), false)
                }
            ));
        }
        // No single value: the label lists each type's.
        let _ = first;
        Some(Details {
            row_label: item.label.clone(),
            time: t,
            value: None,
            label: labels.join("\n"),
            begin: None,
            end: None,
        })
    }
}

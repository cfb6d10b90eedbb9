//! Frames too heavy for the UI thread (a summary of tens of thousands of threads per point
//! row) are built on a worker: the frame drawn last stays on screen, dimmed and marked as
//! being redrawn, until the new one is ready, so that no frame of the window waits for the
//! summaries. Whether a frame is heavy depends only on what it summarises (threads times
//! columns), never on a time measured, so the same window always takes the same path.

use std::sync::Arc;

use super::FrameKey;
use crate::frame::{Frame, FrameRequest, TimeWindow};
use crate::jobs::Job;
use crate::rows::RowItem;
use crate::theme;
use crate::view::{Coloring, Scale};
use prvscope_store::signal::ViewSignals;
use prvscope_store::summary::DrawMode;

/// Frames summarising more thread-columns than this are built on a worker (65,536 threads
/// over 1,250 columns are 82 million; 4,096 threads over 2,000 columns, 8 million, stay on
/// the UI thread).
pub const HEAVY_THREAD_COLUMNS: u64 = 20_000_000;

/// Frames built on workers and shown, since the start (for tests and measurements).
pub static BUILT_ON_WORKERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The heavy frames of a timeline: the one being built on a worker (with the frame key it
/// was asked for), and the key whose worker stopped without a frame (it panicked), which is
/// said on the timeline and not asked again until the window or layout changes.
#[derive(Default)]
pub(crate) struct Deferred {
    pending: Option<(FrameKey, Job<Frame>)>,
    failed: Option<FrameKey>,
}

/// Whether the frame of `rows` over `width` points is built on a worker.
pub fn is_heavy(rows: &[RowItem], width: f32) -> bool {
    let threads: u64 = rows.iter().map(|r| r.threads.len().max(1) as u64).sum();
    threads.saturating_mul(width.max(1.0) as u64) > HEAVY_THREAD_COLUMNS
}

/// What a frame's worker owns of its request.
struct Owned {
    view: Arc<ViewSignals>,
    coloring: Coloring,
    rows: Vec<RowItem>,
    rect: egui::Rect,
    row_height: f32,
    window: TimeWindow,
    flags: bool,
    mode: DrawMode,
    scale: Scale,
}

impl Deferred {
    /// True while a frame is being built on a worker.
    pub fn is_building(&self) -> bool {
        self.pending.is_some()
    }

    /// True when the worker building the frame for `key` stopped without one.
    pub fn failed_for(&self, key: &FrameKey) -> bool {
        self.failed.as_ref() == Some(key)
    }

    /// Over the frame drawn (`shown`: whether it is of `key`; `None`: none yet), what the
    /// picture is: dimmed and said to be of the previous window while its successor is
    /// built, "drawing…" before the first, or that the worker building it stopped.
    pub fn paint(
        &self,
        painter: &egui::Painter,
        area: egui::Rect,
        key: &FrameKey,
        shown: Option<bool>,
    ) {
        let say = |text: &str, color| {
            painter.text(
                area.center(),
                egui::Align2::CENTER_CENTER,
                text,
                egui::FontId::proportional(14.0),
                color,
            );
        };
        if shown == Some(false) {
            painter.rect_filled(area, 0.0, theme::BACKGROUND.gamma_multiply(0.6));
            painter.text(
                area.center_top() + egui::vec2(0.0, 6.0),
                egui::Align2::CENTER_TOP,
                if self.is_building() {
                    "drawing…  (the picture shown is of the previous window)"
                } else {
                    "the picture shown is of the previous window"
                },
                egui::FontId::proportional(13.0),
                theme::FOREGROUND,
            );
        }
        if self.failed_for(key) {
            say(
                "this picture could not be drawn: the worker building it stopped (see the \
                 terminal's message); zoom, scroll or resize to try again",
                theme::ERROR,
            );
        } else if shown.is_none() && self.is_building() {
            say("drawing…", theme::FOREGROUND);
        }
    }

    /// Forgets the frame being built (a light frame is drawn instead).
    pub fn clear(&mut self) {
        self.pending = None;
    }

    /// The frame a worker finished, with the key it was built for; a worker that stopped
    /// without one leaves its key as failed.
    fn poll(&mut self) -> Option<(FrameKey, Frame)> {
        let (built_for, job) = self.pending.as_mut()?;
        if let Some(frame) = job.poll() {
            BUILT_ON_WORKERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let built_for = built_for.clone();
            self.pending = None;
            return Some((built_for, frame));
        }
        if !job.is_running() {
            self.failed = Some(built_for.clone());
            self.pending = None;
        }
        None
    }

    /// The frame for `key`: the one a worker finished (with the key it was built for, which
    /// may be an earlier one: it is newer than what is shown), or `None` while it is being
    /// built or after its worker stopped without one; a worker is started for `key` when none
    /// is building.
    pub fn frame_for(
        &mut self,
        ctx: &egui::Context,
        key: &FrameKey,
        view: &Arc<ViewSignals>,
        req: &FrameRequest<'_>,
    ) -> Option<(FrameKey, Frame)> {
        if let Some(done) = self.poll() {
            return Some(done);
        }
        if self.pending.is_some() || self.failed_for(key) {
            // Still building (this key or an earlier one, which is let finish: restarting
            // at every wheel step would never finish one), or its worker stopped.
            return None;
        }
        self.failed = None;
        spawn(ctx, key, view, req, &mut self.pending)
    }
}

/// Starts the worker building `req` for `key` into `pending`; builds it here when no
/// thread can be started.
fn spawn(
    ctx: &egui::Context,
    key: &FrameKey,
    view: &Arc<ViewSignals>,
    req: &FrameRequest<'_>,
    pending: &mut Option<(FrameKey, Job<Frame>)>,
) -> Option<(FrameKey, Frame)> {
    let owned = Owned {
        view: Arc::clone(view),
        coloring: req.coloring.clone(),
        rows: req
            .rows
            .get(req.visible.clone())
            .unwrap_or_default()
            .to_vec(),
        rect: req.rect,
        row_height: req.row_height,
        window: req.window,
        flags: req.flags,
        mode: req.mode,
        scale: req.scale,
    };
    let job = Job::try_spawn_outside_pool(ctx, "frame-builder", move |_| {
        crate::frame::build(&FrameRequest {
            view: &owned.view,
            coloring: &owned.coloring,
            rows: &owned.rows,
            visible: 0..owned.rows.len(),
            rect: owned.rect,
            row_height: owned.row_height,
            window: owned.window,
            flags: owned.flags,
            mode: owned.mode,
            scale: owned.scale,
        })
    });
    match job {
        Ok(job) => {
            *pending = Some((key.clone(), job));
            None
        }
        // No thread to build on: built here, as a light frame is.
        Err(_) => Some((key.clone(), crate::frame::build(req))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(first_row: usize) -> FrameKey {
        FrameKey {
            window: TimeWindow::all(1000),
            rect: egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(800.0, 600.0)),
            row_height: 1.0,
            first_row,
            rows_generation: 0,
            view_generation: 0,
            pinned_row: None,
            pinned_only: false,
            pixels_per_point: 1.0,
        }
    }

    /// A worker that panics leaves no "drawing…" forever: its key is marked failed (the
    /// timeline says so) and the next key is free to be built.
    #[test]
    fn a_worker_that_stops_without_a_frame_is_said_not_waited_for() {
        let ctx = egui::Context::default();
        let mut d = Deferred::default();
        let job = Job::spawn_outside_pool(&ctx, "test-frame", |_| -> Frame {
            panic!("the frame builder stopped")
        });
        d.pending = Some((key(0), job));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while d.is_building() {
            assert!(d.poll().is_none());
            assert!(std::time::Instant::now() < deadline, "the job never ended");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(d.failed_for(&key(0)));
        assert!(!d.failed_for(&key(1)));
        // A finished worker's frame comes with the key it was built for.
        let job = Job::spawn_outside_pool(&ctx, "test-frame", |_| Frame::default());
        d.pending = Some((key(1), job));
        let done = loop {
            if let Some(done) = d.poll() {
                break done;
            }
            assert!(std::time::Instant::now() < deadline, "the job never ended");
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert!(done.0 == key(1));
        assert!(!d.is_building());
    }
}

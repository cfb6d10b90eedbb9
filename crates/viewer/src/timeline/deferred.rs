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
use crate::view::{Coloring, Scale};
use prvscope_store::signal::ViewSignals;
use prvscope_store::summary::DrawMode;

/// Frames summarising more thread-columns than this are built on a worker (65,536 threads
/// over 1,250 columns are 82 million; 4,096 threads over 2,000 columns, 8 million, stay on
/// the UI thread).
pub const HEAVY_THREAD_COLUMNS: u64 = 20_000_000;

/// Frames built on workers and shown, since the start (for tests and measurements).
pub static BUILT_ON_WORKERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A frame being built on a worker, for the frame key it was asked for.
pub(crate) type PendingFrame = (FrameKey, Job<Frame>);

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

/// The frame for `key`: the one a worker finished (with the key it was built for, which may
/// be an earlier one: it is newer than what is shown), or `None` while it is being built; a
/// worker is started for `key` when none is building.
pub(crate) fn frame_for(
    pending: &mut Option<PendingFrame>,
    ctx: &egui::Context,
    key: &FrameKey,
    view: &Arc<ViewSignals>,
    req: &FrameRequest<'_>,
) -> Option<(FrameKey, Frame)> {
    if let Some((built_for, job)) = pending {
        if let Some(frame) = job.poll() {
            BUILT_ON_WORKERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let built_for = built_for.clone();
            *pending = None;
            return Some((built_for, frame));
        }
        // Still building (this key or an earlier one, which is let finish: restarting at
        // every wheel step would never finish one).
        return None;
    }
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

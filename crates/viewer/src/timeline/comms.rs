//! The communications of a frame: lines while they stay sparse (under
//! [`frame::LINE_BUDGET`] of the rows' pixels), else a density band per row with the
//! pinned row's lines over it.

use std::ops::Range;
use std::sync::Arc;

use egui::Rect;
use prvscope_store::Trace;

use super::{Comms, MAX_BUNDLES, Timeline, drawn_row_of_thread, row_center};
use crate::frame;

impl Timeline {
    /// The communications of the frame over `area` with rows `visible` (a density's image is
    /// a texture of `ctx`).
    pub(super) fn build_comms(
        &self,
        ctx: &egui::Context,
        trace: &Trace,
        area: Rect,
        row_height: f32,
        visible: &Range<usize>,
    ) -> Comms {
        let drawn = drawn_row_of_thread(&self.layout.rows, trace.store.thread_count());
        let row_of = |thread: u32| {
            let r = (*drawn.get(thread as usize)?)?;
            visible.contains(&(r as usize)).then_some(r)
        };
        let y_of = |r| row_center(area, r, self.layout.first_row, row_height);
        let pinned_row = self
            .pointer
            .pinned
            .and_then(|p| u32::try_from(p.row).ok())
            .filter(|&r| visible.contains(&(r as usize)));
        let pinned_lines = |r: u32| {
            frame::row_bundles(
                &self.comm.index,
                self.window,
                self.nav.end_time,
                area,
                &row_of,
                MAX_BUNDLES,
                r,
            )
        };
        // Lines alone, without a density.
        let lines = |bundles: prvscope_store::comm_index::Bundles| {
            let mesh = frame::comm_mesh(&bundles, self.window, area, &y_of);
            Comms {
                bundles,
                density: None,
                mesh: Arc::new(mesh),
                band: None,
            }
        };
        // Only the pinned thread's lines, when asked (none until a thread is pinned).
        if self.comm.pinned_only {
            return lines(pinned_row.map(pinned_lines).unwrap_or_default());
        }
        // More messages than lines: a density, without making the lines first.
        let few = frame::comm_count(
            &self.comm.index,
            self.window,
            self.nav.end_time,
            area,
            &row_of,
        ) <= MAX_BUNDLES as u64;
        let bundles = if few {
            frame::comm_bundles(
                &self.comm.index,
                self.window,
                self.nav.end_time,
                area,
                &row_of,
                MAX_BUNDLES,
            )
        } else {
            prvscope_store::comm_index::Bundles::default()
        };
        let rows_area = visible.len() as f32 * row_height * area.width();
        if few
            && !bundles.is_density()
            && frame::covered_share(&bundles, self.window, area, rows_area, &y_of)
                <= frame::LINE_BUDGET
        {
            return lines(bundles);
        }
        // Too dense for lines: a band per row, and the pinned row's lines over it.
        let density = frame::comm_density(
            &self.comm.index,
            self.window,
            self.nav.end_time,
            area,
            &row_of,
        );
        // Rows too thin for a band beside their states show none (the legend says so).
        let band = frame::density_band(row_height).map(|band| {
            let gap = if row_height >= 6.0 { 1.0 } else { 0.0 };
            let first = self.layout.first_row as f32;
            let texture = ctx.load_texture(
                "comm-density",
                frame::density_image(&density),
                egui::TextureOptions::NEAREST,
            );
            let mesh = frame::density_mesh(
                &density,
                area,
                &|r| {
                    let bottom = area.top() + (r as f32 - first + 1.0) * row_height - gap;
                    Some((bottom - band, bottom))
                },
                texture.id(),
            );
            (Arc::new(mesh), texture)
        });
        let pinned = pinned_row.map(pinned_lines).unwrap_or_default();
        let mesh = frame::comm_mesh(&pinned, self.window, area, &y_of);
        Comms {
            bundles: pinned,
            density: Some(density),
            mesh: Arc::new(mesh),
            band,
        }
    }
}

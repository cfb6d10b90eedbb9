//! A histogram's columns: Paraver's bins of a value range, and the range itself as
//! `computeYScale` finds it over a window.

use rayon::prelude::*;

use crate::window::{Window, YScale};

/// Paraver's column translator: bins of [min, max] of width `delta`.
#[derive(Debug, Clone, Copy)]
pub struct Bins {
    pub min: f64,
    pub max: f64,
    pub delta: f64,
    pub n: usize,
}

impl Bins {
    pub(super) fn fixed(min: f64, max: f64, delta: f64) -> Bins {
        let mut n = ((max - min) / delta).ceil();
        if delta == 1.0 && n * delta + min <= max {
            n += 1.0;
        }
        let n = if n <= 0.0 || n.is_nan() {
            1
        } else {
            n as usize
        };
        Bins { min, max, delta, n }
    }

    pub(super) fn columns(min: f64, max: f64, n: usize) -> Bins {
        Bins {
            min,
            max,
            delta: (max - min) / n as f64,
            n,
        }
    }

    pub fn column(&self, v: f64) -> Option<usize> {
        if v < self.min || v > self.max || v.is_nan() {
            return None;
        }
        let c = ((v - self.min) / self.delta).floor();
        Some((c.max(0.0) as usize).min(self.n - 1))
    }
}

/// Paraver's `computeYScale` of a window over [from, to]: (smallest non-zero value, or 0;
/// largest value, at least 0; whether a zero occurs). Each row is walked from its first
/// interval ending after `from` (its last when none does) to the first beginning at `to`.
pub(super) fn y_scale(w: &Window, from: u64, to: u64) -> (f64, f64, bool) {
    let per_row: Vec<(f64, f64, bool)> = (0..w.rows())
        .into_par_iter()
        .map(|r| {
            let mut scale = YScale::default();
            let mut row = w.row_from(r, from);
            let mut last = None;
            let first = loop {
                match row.next() {
                    Some(iv) if iv.end > from => break Some(iv),
                    Some(iv) => last = Some(iv),
                    None => break last,
                }
            };
            for iv in first.into_iter().chain(row) {
                scale.see(iv.value);
                if iv.begin >= to {
                    break;
                }
            }
            scale.get()
        })
        .collect();
    combine(per_row)
}

/// The scale of a window from those of its rows, one after the other as Paraver reads them.
pub(super) fn combine(per_row: impl IntoIterator<Item = (f64, f64, bool)>) -> (f64, f64, bool) {
    let mut scale = YScale::default();
    for (lo, hi, z) in per_row {
        scale.zero |= z;
        if hi > scale.max {
            scale.max = hi;
        }
        if scale.min == 0.0 || (lo != 0.0 && lo < scale.min) {
            scale.min = lo;
        }
    }
    scale.get()
}

//! The references the tests compare with: every mode computed from its definition by visiting
//! the points of every column (found by binary search, so that the tests stay fast).

use super::{DrawMode, Pixel, Steps, column_hash, min_of};
use crate::null;

/// What one row holds in one column `[a, b)`.
pub(super) struct Facts {
    /// The value at `a`.
    pub start: u64,
    /// The values of the points inside `(a, b)`, in index order.
    pub inner: Vec<u64>,
    /// (value, ticks) of each piece of the column; an empty column is the tick `[a, a + 1)`.
    pub pieces: Vec<(u64, u64)>,
    /// The last point at or before the column's last tick (`b - 1`, or `a` when empty).
    pub last: Option<(u64, u64)>,
}

pub(super) fn facts(points: &[(u64, u64)], a: u64, b: u64, none: u64) -> Facts {
    // Points at or before `a`, and before `b`.
    let at_a = points.partition_point(|p| p.0 <= a);
    let before_b = points.partition_point(|p| p.0 < b);
    let start = at_a.checked_sub(1).map_or(none, |i| points[i].1);
    let inner = points.get(at_a..before_b.max(at_a)).unwrap_or_default();
    let pieces = if a == b {
        vec![(start, 1)]
    } else {
        let mut pieces = Vec::with_capacity(inner.len() + 1);
        let (mut value, mut since) = (start, a);
        for &(t, v) in inner {
            pieces.push((value, t - since));
            (value, since) = (v, t);
        }
        pieces.push((value, b - since));
        pieces
    };
    let last_tick = if a == b { a } else { b - 1 };
    let upto = points.partition_point(|p| p.0 <= last_tick);
    Facts {
        start,
        inner: inner.iter().map(|p| p.1).collect(),
        pieces,
        last: upto.checked_sub(1).map(|i| points[i]),
    }
}

/// The same as [`super::summarize`], by visiting every point.
pub fn summarize_naive(steps: &Steps<'_>, edges: &[u64], mode: DrawMode) -> Vec<Pixel> {
    summarize_group_naive(std::slice::from_ref(steps), edges, mode)
}

/// The same as [`super::summarize_group`], by visiting every point of every thread.
pub fn summarize_group_naive(rows: &[Steps<'_>], edges: &[u64], mode: DrawMode) -> Vec<Pixel> {
    let Some(none) = rows.first().map(|s| s.sentinel) else {
        return Vec::new();
    };
    let points: Vec<Vec<(u64, u64)>> = rows
        .iter()
        .map(|s| (0..s.len()).map(|i| (s.t(i), s.v(i))).collect())
        .collect();
    edges
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let all: Vec<Facts> = points.iter().map(|p| facts(p, a, b, none)).collect();
            let changes = all.iter().fold(0u32, |s, f| {
                s.saturating_add(u32::try_from(f.inner.len()).unwrap_or(u32::MAX))
            });
            // Every value holding: each row's value at `a`, then its inner points.
            let holding = || {
                all.iter()
                    .flat_map(|f| std::iter::once(f.start).chain(f.inner.iter().copied()))
            };
            let value = match mode {
                DrawMode::Dominant => {
                    let mut ticks = std::collections::BTreeMap::<u64, u64>::new();
                    for &(v, t) in all.iter().flat_map(|f| &f.pieces) {
                        let e = ticks.entry(v).or_default();
                        *e = e.saturating_add(t);
                    }
                    // Most ticks, then non-null before null, then the smaller value.
                    ticks
                        .iter()
                        .filter(|e| *e.1 > 0)
                        .min_by_key(|&(&v, &t)| (std::cmp::Reverse(t), v == none, v))
                        .map_or(none, |e| *e.0)
                }
                DrawMode::Average => {
                    let (mut held, mut sum) = (0u128, 0u128);
                    for &(v, t) in all.iter().flat_map(|f| &f.pieces) {
                        if v != none {
                            held += u128::from(t);
                            sum = sum.saturating_add(u128::from(v) * u128::from(t));
                        }
                    }
                    match sum
                        .checked_div(held)
                        .map(|m| u64::try_from(m).unwrap_or(u64::MAX))
                    {
                        None => none,
                        Some(m) if m == none => m - 1,
                        Some(m) => m,
                    }
                }
                DrawMode::Maximum => holding().fold(none, |m, v| null::max_of(m, v, none)),
                DrawMode::Minimum => holding().fold(none, |m, v| min_of(m, v, none)),
                DrawMode::Last => {
                    let mut best: Option<(u64, u64)> = None;
                    for p in all.iter().filter_map(|f| f.last) {
                        if best.is_none_or(|q| p.0 > q.0) {
                            best = Some(p);
                        }
                    }
                    best.map_or(none, |p| p.1)
                }
                DrawMode::Random => {
                    let candidates: Vec<u64> = holding().filter(|&v| v != none).collect();
                    column_hash(a, b)
                        .checked_rem(candidates.len() as u64)
                        .and_then(|k| candidates.get(k as usize).copied())
                        .unwrap_or(none)
                }
            };
            Pixel { value, changes }
        })
        .collect()
}

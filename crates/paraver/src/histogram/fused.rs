//! One walk for a histogram's scale and its table. Paraver computes the columns from the
//! control window's range (`computeYScale`), then walks the window again to fill them. When
//! the control window is its own data, in 2D, for a statistic of the cell alone or of its
//! row's total, one walk keeps each row's cells by control value while it finds the row's
//! range; once the columns are known, a value is a column. A row of more than
//! [`MAX_VALUES`] values (durations, say) keeps its bursts instead, (value, duration) in
//! time order, while a budget of bytes lasts (a third of the store's records at 8 bytes
//! each, 256 MB at most): they are added up as the walk would, column by column. Where a
//! row's values fall two in one column, or its bursts were over the budget, its cells
//! would add up in another order than Paraver's, so that row is walked again as Paraver
//! does: the numbers are Paraver's either way.
//!
//! A window kept whole and indexed by value ([`Computed::index`]) gives a part's scale and
//! cells without a walk: each value's ticks and bursts in the part, made into the cell the
//! walk would have added up where that is exact (integer sums), else the row is walked.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};

use rayon::prelude::*;

use super::Bins;
use super::cells::{Cell, Cells, Units};
use crate::bursts::for_each_burst;
use crate::window::{Computed, Interval, MAX_VALUES, RowSums, Window, YScale};

/// One row's walk: its `computeYScale` and its cells by control value.
pub(super) struct RowScan {
    pub(super) scale: (f64, f64, bool),
    /// Cells per control value, in the order of their first bursts; `None` past
    /// [`MAX_VALUES`] values.
    cells: Option<Vec<(f64, Cell)>>,
    /// Past [`MAX_VALUES`] values: the row's bursts, (value, duration) in time order, if
    /// the budget held them.
    bursts: Option<Vec<(f64, f64)>>,
}

/// Paraver's `computeYScale` of one row, fed its intervals in order (`columns::y_scale`):
/// from the first interval ending after `from` (the last when none does) to the first
/// beginning at or after `to`.
struct Scale {
    from: u64,
    to: u64,
    seen: YScale,
    started: bool,
    done: bool,
    last_before: Option<f64>,
}

impl Scale {
    fn see(&mut self, iv: &Interval) {
        if self.done {
            return;
        }
        if !self.started {
            if iv.end <= self.from {
                self.last_before = Some(iv.value);
                return;
            }
            self.started = true;
        }
        self.seen.see(iv.value);
        if iv.begin >= self.to {
            self.done = true;
        }
    }

    fn finish(mut self) -> (f64, f64, bool) {
        if !self.started
            && let Some(v) = self.last_before
        {
            self.seen.see(v);
        }
        self.seen.get()
    }
}

/// Every row of `control` (its own data) over [from, to): scales and cells, from the
/// index of `kept` (the window's rows computed whole) where it has the row and the cells
/// come out exact, else from one walk.
pub(super) fn scan(
    control: &Window,
    kept: Option<&Computed>,
    (from, to): (u64, u64),
    stat: usize,
    units: Units,
    budget: usize,
) -> Vec<RowScan> {
    // Bytes of kept bursts left, over all rows.
    let left = AtomicI64::new(i64::try_from(budget).unwrap_or(i64::MAX));
    let index = kept.map(|k| (k, k.index()));
    (0..control.rows())
        .into_par_iter()
        .map(|r| {
            index
                .and_then(|(k, index)| {
                    let sums = index.get(r)?.as_ref()?.sums(&k.rows[r], from, to);
                    RowScan::of_sums(&sums, stat)
                })
                .unwrap_or_else(|| walk(control, r, (from, to), stat, units, &left))
        })
        .collect()
}

/// Walks row `r` of `control` once over [from, to), keeping its bursts within what is `left`
/// of the budget.
fn walk(
    control: &Window,
    r: usize,
    (from, to): (u64, u64),
    stat: usize,
    units: Units,
    left: &AtomicI64,
) -> RowScan {
    let burst_bytes = size_of::<(f64, f64)>() as i64;
    let mut scale = Scale {
        from,
        to,
        seen: YScale::default(),
        started: false,
        done: false,
        last_before: None,
    };
    let mut cells: Vec<(f64, Cell)> = Vec::new();
    let mut index: HashMap<u64, usize> = HashMap::new();
    let mut last = usize::MAX;
    let mut overflow = false;
    // Every burst, kept until the row is known to need them (claims on the budget
    // a thousand bursts at a time).
    let mut bursts: Option<Vec<(f64, f64)>> = Some(Vec::new());
    let mut claimed = 0i64;
    {
        let stream = control.row_from(r, from).inspect(|iv| scale.see(iv));
        for_each_burst(Box::new(stream), None, None, from, to, |b| {
            let dur = (b.end - b.begin) as f64;
            if let Some(list) = &mut bursts {
                if list.len() as i64 * burst_bytes >= claimed {
                    let more = 1024 * burst_bytes;
                    if left.fetch_sub(more, Ordering::Relaxed) >= more {
                        claimed += more;
                    } else {
                        left.fetch_add(more, Ordering::Relaxed);
                        bursts = None;
                    }
                }
                if let Some(list) = &mut bursts {
                    list.push((b.control, dur));
                }
            }
            if overflow {
                return;
            }
            let key = b.control.to_bits();
            let k = if cells.get(last).is_some_and(|(v, _)| v.to_bits() == key) {
                last
            } else if let Some(&k) = index.get(&key) {
                k
            } else if cells.len() >= MAX_VALUES {
                overflow = true;
                return;
            } else {
                cells.push((b.control, Cell::default()));
                index.insert(key, cells.len() - 1);
                cells.len() - 1
            };
            last = k;
            cells[k].1.add_any(stat, dur, b.control, units);
        });
    }
    if !overflow {
        // The cells serve: the bursts and their bytes go.
        bursts = None;
        left.fetch_add(claimed, Ordering::Relaxed);
    }
    RowScan {
        scale: scale.finish(),
        cells: (!overflow).then_some(cells),
        bursts,
    }
}

impl RowScan {
    /// The row's scan from its sums over a range, when every cell comes out exact.
    fn of_sums(sums: &RowSums, stat: usize) -> Option<RowScan> {
        let cells = sums
            .values
            .iter()
            .map(|s| Some((s.value, Cell::of_bursts(stat, s.value, s.ticks, s.bursts)?)))
            .collect::<Option<Vec<_>>>()?;
        Some(RowScan {
            scale: sums.scale,
            cells: Some(cells),
            bursts: None,
        })
    }

    /// The row's table (one plane) with `bins`, or `None` when it must be walked again.
    pub(super) fn table(
        &self,
        bins: &Bins,
        stat: usize,
        units: Units,
        span: f64,
    ) -> Option<Vec<Option<f64>>> {
        let mut acc = Cells::new(1, bins.n);
        if let Some(bursts) = &self.bursts {
            // The walk's own additions, burst by burst.
            for &(v, dur) in bursts {
                if let Some(col) = bins.column(v) {
                    acc.at(0, col).add_any(stat, dur, v, units);
                }
            }
        } else {
            let cells = self.cells.as_ref()?;
            let mut taken = vec![false; bins.n];
            for (v, c) in cells {
                if let Some(col) = bins.column(*v) {
                    if std::mem::replace(&mut taken[col], true) {
                        return None;
                    }
                    *acc.at(0, col) = *c;
                }
            }
        }
        // A percentage of the row's total: the total of its cells' parts (integers, so in
        // any order the walk's), over the bursts that fall in a column.
        let mut total = 0.0;
        acc.each(|_, _, c| total += c.sum);
        let mut out = vec![None; bins.n];
        acc.each(|_, col, c| {
            out[col] = Some(match stat {
                1 | 5 => c.sum * 100.0 / total,
                // No non-zero value in the row (bursts last, so its total is 0): 0, not 0/0.
                2 if total == 0.0 => 0.0,
                2 => c.sum * 100.0 / total,
                _ => c.value(stat, units, span),
            });
        });
        Some(out)
    }
}

//! A histogram cell's sums and the statistic Paraver makes of them, one burst at a time
//! (`src/histogramstatistic.cpp`), for the statistics that need nothing but the cell (the
//! percentages of a row's total keep their row sums in the caller).

use std::collections::BTreeMap;

use crate::cfg::TimeUnit;
use crate::window::convert;

/// The time units a cell's statistic converts durations to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Units {
    pub(super) trace: TimeUnit,
    pub(super) control: TimeUnit,
    pub(super) data: TimeUnit,
}

/// One cell's sums.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Cell {
    pub(super) sum: f64,
    weight: f64,
    count: f64,
    squares: f64,
    extreme: f64,
}

impl Cell {
    /// Adds a burst of `dur` ticks whose data value is `dv`, for value statistic `stat`
    /// (not 1, 2 or 5: those add to their row's sums too).
    #[inline]
    pub(super) fn add(&mut self, stat: usize, dur: f64, dv: f64, u: Units) {
        let c = self;
        match stat {
            0 | 3 => c.sum += dur,
            4 => c.sum += 1.0,
            6 => c.sum += convert(u.trace, u.data, dur) * dv.abs(),
            7 => {
                c.sum += dv * dur;
                c.weight += dur;
            }
            8 => {
                if dv > c.extreme {
                    c.extreme = dv;
                }
            }
            9 => {
                if c.extreme == 0.0 || (dv != 0.0 && dv < c.extreme) {
                    c.extreme = dv;
                }
            }
            10 => {
                c.sum += dur;
                c.count += 1.0;
            }
            11 => {
                let d = convert(u.trace, u.control, dur);
                c.sum += d;
                c.count += 1.0;
                c.squares += d * d;
            }
            12 => {
                c.sum += dv;
                c.count += 1.0;
            }
            13 => {
                c.sum += dv * dur;
                if dv != 0.0 {
                    c.weight += dur;
                }
            }
            14 => {
                c.sum += dv;
                if dv != 0.0 {
                    c.count += 1.0;
                }
            }
            15 => {
                if dv != 0.0 {
                    c.sum += 1.0;
                }
            }
            _ => c.sum += dv,
        }
    }

    /// Adds a burst for any value statistic: the percentages of a row's total (1, 2, 5)
    /// keep their part here (ticks, ticks of a non-zero value, one), their row's total
    /// being the sum of its cells'.
    #[inline]
    pub(super) fn add_any(&mut self, stat: usize, dur: f64, dv: f64, u: Units) {
        match stat {
            1 => self.sum += dur,
            2 => {
                if dv != 0.0 {
                    self.sum += dur;
                }
            }
            5 => self.sum += 1.0,
            _ => self.add(stat, dur, dv, u),
        }
    }

    /// The cell [`Cell::add_any`] makes of `bursts` bursts (at least one) of value `v`
    /// (control and data) lasting `ticks` in all, when their additions give the same
    /// numbers in any order: sums of integers below 2^53. `None` for the statistics that
    /// add non-integers (integrals, averages of value, deviations) or values that are not
    /// integers.
    pub(super) fn of_bursts(stat: usize, v: f64, ticks: u64, bursts: u64) -> Option<Cell> {
        const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
        let (t, n) = (ticks as f64, bursts as f64);
        if t > EXACT || bursts == 0 {
            return None;
        }
        // v added `bursts` times, as the walk adds it (to a +0: never a -0).
        let repeated = || (v.fract() == 0.0 && (v * n).abs() <= EXACT).then_some(v * n + 0.0);
        let nz = v != 0.0;
        let mut c = Cell::default();
        match stat {
            0 | 1 | 3 => c.sum = t,
            2 => c.sum = if nz { t } else { 0.0 },
            4 | 5 => c.sum = n,
            8 => c.extreme = if v > 0.0 { v } else { 0.0 },
            9 => c.extreme = v,
            10 => {
                c.sum = t;
                c.count = n;
            }
            12 => {
                c.sum = repeated()?;
                c.count = n;
            }
            14 => {
                c.sum = repeated()?;
                c.count = if nz { n } else { 0.0 };
            }
            15 => c.sum = if nz { n } else { 0.0 },
            16 => c.sum = repeated()?,
            _ => return None,
        }
        Some(c)
    }

    /// The cell's value of statistic `stat` (not 1, 2 or 5) over an analysis of `span`
    /// ticks.
    pub(super) fn value(&self, stat: usize, u: Units, span: f64) -> f64 {
        let c = self;
        let cu = |t: f64| convert(u.trace, u.control, t);
        match stat {
            0 => cu(c.sum),
            3 => c.sum * 100.0 / span,
            7 => c.sum / c.weight,
            8 | 9 => c.extreme,
            10 => cu(c.sum) / c.count,
            11 => (c.squares / c.count - (c.sum / c.count).powi(2))
                .abs()
                .sqrt(),
            12 | 14 => c.sum / c.count,
            13 => {
                if c.weight == 0.0 {
                    0.0
                } else {
                    c.sum / c.weight
                }
            }
            _ => c.sum,
        }
    }
}

/// A row's sums, per (plane, column): dense when the table is small.
pub(super) enum Cells {
    Dense(Vec<Option<Cell>>, usize),
    Sparse(BTreeMap<(usize, usize), Cell>),
}

impl Cells {
    pub(super) fn new(planes: usize, columns: usize) -> Cells {
        if planes.saturating_mul(columns) <= 1 << 16 {
            Cells::Dense(vec![None; planes * columns], columns)
        } else {
            Cells::Sparse(BTreeMap::new())
        }
    }

    #[inline]
    pub(super) fn at(&mut self, plane: usize, col: usize) -> &mut Cell {
        match self {
            Cells::Dense(v, columns) => v[plane * *columns + col].get_or_insert_with(Cell::default),
            Cells::Sparse(m) => m.entry((plane, col)).or_default(),
        }
    }

    /// Every cell with sums, by (plane, column).
    pub(super) fn each(&self, mut f: impl FnMut(usize, usize, &Cell)) {
        match self {
            Cells::Dense(v, columns) => {
                for (k, c) in v.iter().enumerate() {
                    if let Some(c) = c {
                        f(k / columns, k % columns, c);
                    }
                }
            }
            Cells::Sparse(m) => {
                for (&(p, col), c) in m {
                    f(p, col, c);
                }
            }
        }
    }
}

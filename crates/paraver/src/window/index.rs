//! A kept window's intervals by value, so that a histogram over any part of it reads a few
//! sums instead of walking the part: for each row of at most [`MAX_VALUES`] values, each
//! value's intervals (their places in the row) with running sums of their durations and of
//! their non-empty intervals. A range's time and bursts of a value are two differences of
//! running sums, less what its two edge intervals hold outside the range; its scale (the
//! values Paraver's `computeYScale` meets) is whether each value has an interval between
//! the range's first and last intervals. The viewer's "Follow the timeline" asks this on
//! every move of the timeline: the work is the range's edges, never what lies between.
//!
//! Sums are integers (ticks and counts), so they are the walk's own numbers whatever the
//! order of the additions.

use super::{Computed, Interval, WindowInfo};

/// The values a row is indexed by; a row with more is walked.
pub const MAX_VALUES: usize = 64;

impl Computed {
    /// A window computed whole from its rows.
    pub fn new(info: WindowInfo, rows: Vec<Vec<Interval>>) -> Computed {
        Computed {
            info,
            rows,
            index: std::sync::OnceLock::new(),
        }
    }

    /// Each row by value (`None`: a row of more than [`MAX_VALUES`] values), built on the
    /// first call, in parallel.
    pub fn index(&self) -> &[Option<RowIndex>] {
        use rayon::prelude::*;
        self.index
            .get_or_init(|| self.rows.par_iter().map(|r| RowIndex::build(r)).collect())
    }

    /// Whether [`Computed::index`] was built.
    pub fn indexed(&self) -> bool {
        self.index.get().is_some()
    }
}

/// Paraver's `computeYScale` as it meets values: the smallest non-zero value (0 when all
/// are 0), the largest (at least 0), whether a 0 occurs. Met in any order, it ends the same
/// (NaN aside: rows with one are not indexed).
#[derive(Debug, Clone, Copy, Default)]
pub struct YScale {
    pub min: f64,
    pub max: f64,
    pub zero: bool,
}

impl YScale {
    #[inline]
    pub fn see(&mut self, v: f64) {
        self.zero |= v == 0.0;
        if v > self.max {
            self.max = v;
        }
        if self.min == 0.0 || (v != 0.0 && v < self.min) {
            self.min = v;
        }
    }

    pub fn get(self) -> (f64, f64, bool) {
        (self.min, self.max, self.zero)
    }
}

/// One value's intervals in a row.
#[derive(Debug, Clone)]
struct Runs {
    value: f64,
    /// Places of its intervals in the row, in time order.
    at: Vec<u32>,
    /// Running sums of their durations (ticks), one more than `at`.
    ticks: Vec<u64>,
    /// Running counts of its non-empty intervals, one more than `at`.
    nonempty: Vec<u32>,
}

/// A row's intervals by value.
#[derive(Debug, Clone)]
pub struct RowIndex {
    runs: Vec<Runs>,
}

/// One value's bursts over a range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueSums {
    pub value: f64,
    /// Ticks of its intervals inside the range.
    pub ticks: u64,
    /// Its intervals with a non-empty part inside the range.
    pub bursts: u64,
}

/// What a row holds over a range.
#[derive(Debug, Clone, PartialEq)]
pub struct RowSums {
    /// Paraver's `computeYScale` of the row: (smallest non-zero value or 0, largest value
    /// at least 0, whether a zero occurs).
    pub scale: (f64, f64, bool),
    /// Each value with at least one burst.
    pub values: Vec<ValueSums>,
}

impl RowIndex {
    /// The index of `row`, or `None` when it has more than [`MAX_VALUES`] values, a NaN
    /// (whose scale depends on the order it is met in) or more intervals than places fit
    /// in 32 bits.
    pub fn build(row: &[Interval]) -> Option<RowIndex> {
        if u32::try_from(row.len()).is_err() {
            return None;
        }
        let mut runs: Vec<Runs> = Vec::new();
        let mut last = usize::MAX;
        for (k, iv) in row.iter().enumerate() {
            if iv.value.is_nan() {
                return None;
            }
            let bits = iv.value.to_bits();
            let slot = if runs.get(last).is_some_and(|r| r.value.to_bits() == bits) {
                last
            } else if let Some(s) = runs.iter().position(|r| r.value.to_bits() == bits) {
                s
            } else if runs.len() == MAX_VALUES {
                return None;
            } else {
                runs.push(Runs {
                    value: iv.value,
                    at: Vec::new(),
                    ticks: vec![0],
                    nonempty: vec![0],
                });
                runs.len() - 1
            };
            last = slot;
            let r = &mut runs[slot];
            let dur = iv.end.saturating_sub(iv.begin);
            r.at.push(k as u32);
            r.ticks.push(r.ticks[r.ticks.len() - 1] + dur);
            r.nonempty
                .push(r.nonempty[r.nonempty.len() - 1] + u32::from(dur > 0));
        }
        for r in &mut runs {
            r.at.shrink_to_fit();
            r.ticks.shrink_to_fit();
            r.nonempty.shrink_to_fit();
        }
        Some(RowIndex { runs })
    }

    /// The bytes it takes.
    pub fn bytes(&self) -> usize {
        self.runs
            .iter()
            .map(|r| {
                size_of::<Runs>()
                    + r.at.capacity() * 4
                    + r.ticks.capacity() * 8
                    + r.nonempty.capacity() * 4
            })
            .sum()
    }

    /// The row's scale and each value's bursts over [from, to) (`row` is the row indexed),
    /// as a walk of the row from `from` finds them (`histogram::fused`).
    pub fn sums(&self, row: &[Interval], from: u64, to: u64) -> RowSums {
        let n = row.len();
        if n == 0 {
            return RowSums {
                scale: (0.0, 0.0, false),
                values: Vec::new(),
            };
        }
        // The first interval ending after `from` (the last when none does), and the first
        // beginning at or after `to` from there (`n` when none does).
        let first = row.partition_point(|i| i.end <= from);
        let stop = first + row[first..].partition_point(|i| i.begin < to);
        // The scale sees [first, stop] (the walk counts the interval it stops at), or the
        // last interval alone.
        let seen = if first == n {
            (n - 1, n - 1)
        } else {
            (first, stop.min(n - 1))
        };
        let mut scale = YScale::default();
        let mut values = Vec::new();
        for r in &self.runs {
            let place = |k: usize| r.at.partition_point(|&a| (a as usize) < k);
            let (s0, s1) = (place(seen.0), place(seen.1 + 1));
            if s0 < s1 {
                scale.see(r.value);
            }
            if from >= to || first == n {
                continue;
            }
            // Bursts: intervals [first, stop) clipped to [from, to).
            let (k0, k1) = (place(first), place(stop));
            let bursts = u64::from(r.nonempty[k1] - r.nonempty[k0]);
            if bursts == 0 {
                continue;
            }
            let mut ticks = r.ticks[k1] - r.ticks[k0];
            // Only the first interval can begin before `from`, only the last end after `to`.
            if r.at[k0] as usize == first {
                ticks -= from.saturating_sub(row[first].begin);
            }
            if r.at[k1 - 1] as usize == stop - 1 {
                ticks -= row[stop - 1].end.saturating_sub(to);
            }
            values.push(ValueSums {
                value: r.value,
                ticks,
                bursts,
            });
        }
        RowSums {
            scale: scale.get(),
            values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(begin: u64, end: u64, value: f64) -> Interval {
        Interval { begin, end, value }
    }

    /// The walk: every interval's overlap with [from, to), the scale from the first
    /// interval ending after `from` to the first beginning at `to`.
    fn naive(row: &[Interval], from: u64, to: u64) -> RowSums {
        let first = row.iter().position(|i| i.end > from);
        let mut seen: Vec<f64> = Vec::new();
        match first {
            None => seen.extend(row.last().map(|i| i.value)),
            Some(f) => {
                for i in &row[f..] {
                    seen.push(i.value);
                    if i.begin >= to {
                        break;
                    }
                }
            }
        }
        let (mut min, mut max, mut zero) = (0.0f64, 0.0f64, false);
        for v in seen {
            zero |= v == 0.0;
            max = max.max(v);
            if min == 0.0 || (v != 0.0 && v < min) {
                min = v;
            }
        }
        let mut values: Vec<ValueSums> = Vec::new();
        for i in row {
            let (b, e) = (i.begin.max(from), i.end.min(to));
            if b >= e {
                continue;
            }
            match values
                .iter_mut()
                .find(|s| s.value.to_bits() == i.value.to_bits())
            {
                Some(s) => {
                    s.ticks += e - b;
                    s.bursts += 1;
                }
                None => values.push(ValueSums {
                    value: i.value,
                    ticks: e - b,
                    bursts: 1,
                }),
            }
        }
        RowSums {
            scale: (min, max, zero),
            values,
        }
    }

    fn sorted(mut s: RowSums) -> RowSums {
        s.values.sort_by(|a, b| a.value.total_cmp(&b.value));
        s
    }

    #[test]
    fn sums_over_any_range_are_the_walks() {
        // Rows of random intervals, zero-length ones among them, tried over every range
        // whose ends fall on or between their edges.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..200 {
            let mut row = Vec::new();
            let mut t = 0;
            for _ in 0..rnd(12) {
                let d = [0, 1, 3, 10][rnd(4) as usize];
                let v = [0.0, 1.0, 2.0, -3.0, 7.5][rnd(5) as usize];
                row.push(iv(t, t + d, v));
                t += d;
            }
            let idx = RowIndex::build(&row).unwrap();
            for from in 0..=t + 1 {
                for to in from..=t + 2 {
                    assert_eq!(
                        sorted(idx.sums(&row, from, to)),
                        sorted(naive(&row, from, to)),
                        "{row:?} over [{from}, {to})"
                    );
                }
            }
        }
    }

    #[test]
    fn rows_of_many_values_or_a_nan_are_not_indexed() {
        let many: Vec<Interval> = (0..=MAX_VALUES as u64)
            .map(|k| iv(k, k + 1, k as f64))
            .collect();
        assert!(RowIndex::build(&many).is_none());
        assert!(RowIndex::build(&many[..MAX_VALUES]).is_some());
        assert!(RowIndex::build(&[iv(0, 1, f64::NAN)]).is_none());
    }
}

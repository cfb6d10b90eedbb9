//! [`Pyramid`]: the per-row index every draw mode reads (see the parent module's docs).

use super::heavy::{HEAVY_LEAF, Heavy, Tally, beats};
use super::{Column, Steps, min_of};
use crate::columns::Buf;
use crate::null;

/// Points per block of the first pyramid level.
pub(super) const BLOCK: usize = 16;
/// Blocks per block of the next level.
pub(super) const FANOUT: usize = 4;
/// Rows with at most this many distinct non-null values keep the ticks of each value per
/// block, so that Dominant is exact; the others keep heavy-hitter summaries.
pub(super) const DICT_MAX: usize = 8;
/// Ranges of at most this many points are weighed point by point rather than through the
/// prefix sums (which read up to `BLOCK / 2` points at each end).
const DIRECT: usize = BLOCK;
/// Points decoded at a time by the small scans.
const SMALL: usize = 32;
/// Points decoded at a time while building.
const CHUNK: usize = 64 * BLOCK;

/// The index of one row: what a column of any draw mode reads in O(log n).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pyramid {
    /// `max[0][b]` is the largest non-null value of points `[16b, 16b + 16)`; each next level
    /// takes the maximum of 4 entries of the level below. The sentinel means "none".
    pub(super) max: Vec<Buf<u64>>,
    /// The same with the smallest non-null values.
    pub(super) min: Vec<Buf<u64>>,
    /// The time of point `16b` for each block `b`: searches by time go through these (one
    /// cache line holds 8 blocks) and then read at most 16 points, instead of probing the
    /// compressed times of a row of millions of points.
    pub(super) block_times: Buf<u64>,
    /// `non_null[b]`: the number of non-null points before point `min(16b, n)`, for
    /// `b = 0..=blocks` (rows have fewer than 2^32 points, as time columns assume).
    pub(super) non_null: Buf<u32>,
    /// The ticks of the values before each block.
    pub(super) weighing: Weighing,
}

/// Per-block prefix sums of the ticks the values hold. A point holds from its time to the
/// next point's; the row's last point holds for no tick here (a column clips it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum Weighing {
    /// A row without points.
    #[default]
    Empty,
    /// At most [`DICT_MAX`] distinct non-null values, sorted: `ticks[b * D + d]` is the ticks
    /// value `d` holds over the points `[0, 16b)`, `D` being the number of values.
    Dict { values: Vec<u64>, ticks: Buf<u64> },
    /// More values: `sums[b]` holds the non-null ticks and the weighted sum `sum(v * ticks)`
    /// (as its low and high 64 bits) over the points `[0, 16b)`, side by side so that a
    /// column reads one cache line per end; and the heavy hitters for Dominant.
    Sums { sums: Buf<[u64; 3]>, heavy: Heavy },
}

/// The prefix a column's right end read, kept for the next column's left end, which is
/// usually a point or two further: (point index, prefix before it, its time). One per row
/// walked column by column.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Carry {
    dict: Option<(usize, [u64; DICT_MAX], u64)>,
    sums: Option<(usize, (u64, u128), u64)>,
}

/// Prefixes further back than this many points are read afresh rather than carried.
const CARRY: usize = BLOCK / 2;

/// The non-null ticks and weighted sum of part of a column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Weights {
    pub ticks: u64,
    pub sum: u128,
}

impl Weights {
    #[inline]
    fn add(&mut self, value: u64, ticks: u64, none: u64) {
        if value != none {
            self.ticks += ticks;
            self.sum += u128::from(value) * u128::from(ticks);
        }
    }
}

impl Pyramid {
    /// Builds the index of a row: one pass over its points.
    pub fn build(steps: &Steps<'_>) -> Self {
        let none = steps.sentinel;
        let n = steps.len();
        let blocks = n.div_ceil(BLOCK);
        let dict = if n == 0 {
            None
        } else {
            distinct_up_to(steps, DICT_MAX)
        };
        let mut max0 = Vec::with_capacity(blocks);
        let mut min0 = Vec::with_capacity(blocks);
        let mut block_times = Vec::with_capacity(blocks);
        let mut non_null = Vec::with_capacity(blocks + 1);
        let width = dict.as_ref().map_or(0, Vec::len);
        let mut dict_ticks: Vec<u64> = Vec::with_capacity(blocks * width);
        let mut sums: Vec<[u64; 3]> = Vec::with_capacity(if dict.is_some() { 0 } else { blocks });
        let mut heavy = Heavy::with_leaves(if dict.is_some() {
            0
        } else {
            n.div_ceil(HEAVY_LEAF)
        });
        // Running totals over the points seen.
        let mut count = 0u32;
        let mut per_value = [0u64; DICT_MAX];
        let mut total = Weights::default();
        let mut leaf: Vec<(u64, u64)> = Vec::with_capacity(HEAVY_LEAF);
        let mut times = vec![0u64; CHUNK + 1];
        let mut values = vec![0u64; CHUNK];
        let mut pos = 0;
        while pos < n {
            let len = CHUNK.min(n - pos);
            // One more time than values: the next point's, when there is one.
            let (Some(tbuf), Some(vbuf)) = (
                times.get_mut(..(len + 1).min(n - pos)),
                values.get_mut(..len),
            ) else {
                break;
            };
            steps.time.read(pos, tbuf);
            steps.value.read(pos, vbuf);
            for (chunk, block) in vbuf.chunks(BLOCK).enumerate() {
                let base = chunk * BLOCK;
                non_null.push(count);
                block_times.push(tbuf.get(base).copied().unwrap_or(0));
                if dict.is_some() {
                    dict_ticks.extend_from_slice(per_value.get(..width).unwrap_or_default());
                } else {
                    sums.push([total.ticks, total.sum as u64, (total.sum >> 64) as u64]);
                }
                let (mut high, mut low) = (none, none);
                for (at, &v) in (base..).zip(block) {
                    // The row's last point holds for no tick here.
                    let ticks = match (tbuf.get(at), tbuf.get(at + 1)) {
                        (Some(&from), Some(&to)) => to.saturating_sub(from),
                        _ => 0,
                    };
                    if v == none {
                        continue;
                    }
                    count += 1;
                    high = null::max_of(high, v, none);
                    low = min_of(low, v, none);
                    if let Some(values) = &dict {
                        if let Some(slot) = values
                            .iter()
                            .position(|&x| x == v)
                            .and_then(|id| per_value.get_mut(id))
                        {
                            *slot += ticks;
                        }
                    } else {
                        total.add(v, ticks, none);
                        if ticks > 0 {
                            leaf.push((v, ticks));
                        }
                    }
                }
                max0.push(high);
                min0.push(low);
                // A heavy leaf ends with every FANOUT-th block, or with the row.
                let end = pos + base + block.len();
                if dict.is_none() && (end.is_multiple_of(HEAVY_LEAF) || end == n) {
                    heavy.push_leaf(&mut leaf);
                    leaf.clear();
                }
            }
            pos += len;
        }
        non_null.push(count);
        let weighing = match dict {
            _ if n == 0 => Weighing::Empty,
            Some(values) => Weighing::Dict {
                values,
                ticks: dict_ticks.into(),
            },
            None => {
                heavy.finish();
                Weighing::Sums {
                    sums: sums.into(),
                    heavy,
                }
            }
        };
        Pyramid {
            max: levels(max0, |a, b| null::max_of(a, b, none)),
            min: levels(min0, |a, b| min_of(a, b, none)),
            block_times: block_times.into(),
            non_null: non_null.into(),
            weighing,
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        let levels = |l: &[Buf<u64>]| l.iter().map(Buf::heap_bytes).sum::<usize>();
        levels(&self.max)
            + levels(&self.min)
            + self.block_times.heap_bytes()
            + self.non_null.heap_bytes()
            + match &self.weighing {
                Weighing::Empty => 0,
                Weighing::Dict { values, ticks } => values.capacity() * 8 + ticks.heap_bytes(),
                Weighing::Sums { sums, heavy } => sums.heap_bytes() + heavy.heap_bytes(),
            }
    }

    /// True when Dominant is exact for every column of the row: at most 8 distinct
    /// non-null values.
    pub fn dominant_is_exact(&self) -> bool {
        !matches!(self.weighing, Weighing::Sums { .. })
    }

    /// The first index `>= from` whose time is `>= t`: a galloping search over the blocks'
    /// first times from `from`'s block, then a binary search in one block.
    pub(super) fn lower_bound_from(&self, steps: &Steps<'_>, from: usize, t: u64) -> usize {
        let n = steps.len();
        let b0 = from / BLOCK;
        // The first block after b0 whose first time is >= t (or the number of blocks).
        let blocks = self.block_times.len();
        let mut lo = b0 + 1;
        let mut hi = lo;
        let mut step = 1;
        while hi < blocks && self.block_times.get(hi).is_some_and(|&bt| bt < t) {
            lo = hi + 1;
            hi = b0 + 1 + step;
            step *= 2;
        }
        let mut hi = hi.min(blocks);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.block_times.get(mid).is_some_and(|&bt| bt < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // Points of blocks before lo - 1 are < t; the answer is in block lo - 1 or is the
        // first point of block lo: a binary search over at most 16 points.
        let (mut start, mut end) = (from.max((lo - 1) * BLOCK), (lo * BLOCK).min(n));
        while start < end {
            let mid = start + (end - start) / 2;
            if steps.t(mid) < t {
                start = mid + 1;
            } else {
                end = mid;
            }
        }
        start
    }

    /// The largest non-null value of points `[i, j)`, or the sentinel when there is none.
    pub fn range_max(&self, steps: &Steps<'_>, i: usize, j: usize) -> u64 {
        let none = steps.sentinel;
        range_fold(
            &self.max,
            i,
            j,
            none,
            |from, to| steps.value.max_in(from, to),
            |a, b| null::max_of(a, b, none),
        )
    }

    /// The smallest non-null value of points `[i, j)`, or the sentinel when there is none.
    pub fn range_min(&self, steps: &Steps<'_>, i: usize, j: usize) -> u64 {
        let none = steps.sentinel;
        range_fold(
            &self.min,
            i,
            j,
            none,
            |from, to| steps.value.min_in(from, to),
            |a, b| min_of(a, b, none),
        )
    }

    /// The non-null ticks and weighted sum of the column `c` (an empty column weighs its
    /// value at `a` as one tick).
    pub(super) fn weights(&self, steps: &Steps<'_>, c: &Column, carry: &mut Carry) -> Weights {
        let none = steps.sentinel;
        let mut w = Weights::default();
        if c.e == c.u {
            w.add(c.start, (c.b - c.a).max(1), none);
            return w;
        }
        let bt = &self.block_times;
        // The times of the first and last inner points come with the range's reads.
        let (first, last) = match &self.weighing {
            Weighing::Empty => (steps.t(c.u), steps.t(c.e - 1)),
            Weighing::Dict { values, ticks } => {
                let mut acc = [0u64; DICT_MAX];
                let weigh = DictWeigh { values, ticks };
                let ends = weigh_range(&weigh, steps, bt, c.u, c.e - 1, &mut acc, &mut carry.dict);
                for (&v, &t) in values.iter().zip(&acc) {
                    w.add(v, t, none);
                }
                ends
            }
            Weighing::Sums { sums, .. } => {
                let mut acc = (0u64, 0u128);
                let weigh = SumWeigh { sums, none };
                let ends = weigh_range(&weigh, steps, bt, c.u, c.e - 1, &mut acc, &mut carry.sums);
                (w.ticks, w.sum) = acc;
                ends
            }
        };
        w.add(c.start, first.saturating_sub(c.a), none);
        w.add(steps.v(c.e - 1), c.b.saturating_sub(last), none);
        w
    }

    /// Adds the ticks each value holds in the column `c` to `tally`, null exactly, the others
    /// exactly or (rows with many values) as heavy-hitter estimates (an empty column weighs
    /// its value at `a` as one tick).
    pub(super) fn tally(
        &self,
        steps: &Steps<'_>,
        c: &Column,
        tally: &mut Tally,
        carry: &mut Carry,
    ) {
        let none = steps.sentinel;
        let add = |tally: &mut Tally, v: u64, t: u64| {
            if v == none {
                tally.add_null(t);
            } else {
                tally.add(v, t);
            }
        };
        if c.e == c.u {
            add(tally, c.start, (c.b - c.a).max(1));
            return;
        }
        let end_value = steps.v(c.e - 1);
        let bt = &self.block_times;
        // Non-null ticks of the column, for null's.
        let mut held = 0u64;
        // The times of the first and last inner points come with the range's reads.
        let (first, last) = match &self.weighing {
            Weighing::Empty => (steps.t(c.u), steps.t(c.e - 1)),
            Weighing::Dict { values, ticks } => {
                let mut acc = [0u64; DICT_MAX];
                let weigh = DictWeigh { values, ticks };
                let ends = weigh_range(&weigh, steps, bt, c.u, c.e - 1, &mut acc, &mut carry.dict);
                for (&v, &t) in values.iter().zip(&acc) {
                    tally.add(v, t);
                    held += t;
                }
                ends
            }
            Weighing::Sums { sums, heavy } => {
                let mut acc = (0u64, 0u128);
                let weigh = SumWeigh { sums, none };
                let ends = weigh_range(&weigh, steps, bt, c.u, c.e - 1, &mut acc, &mut carry.sums);
                held = acc.0;
                heavy.tally(steps, c.u, c.e - 1, tally);
                ends
            }
        };
        for (v, t) in [
            (c.start, first.saturating_sub(c.a)),
            (end_value, c.b.saturating_sub(last)),
        ] {
            if v != none {
                tally.add(v, t);
                held += t;
            }
        }
        tally.add_null((c.b - c.a).saturating_sub(held));
    }

    /// Dominant's value for the column `c` of one row: [`Self::tally`] and its best, with the
    /// ticks of a row of few values summed in place.
    pub(super) fn dominant(
        &self,
        steps: &Steps<'_>,
        c: &Column,
        tally: &mut Tally,
        carry: &mut Carry,
    ) -> u64 {
        let none = steps.sentinel;
        let Weighing::Dict { values, ticks } = &self.weighing else {
            tally.clear();
            self.tally(steps, c, tally, carry);
            return tally.best(none);
        };
        if c.e == c.u {
            return c.start;
        }
        let mut acc = [0u64; DICT_MAX];
        let weigh = DictWeigh { values, ticks };
        let bt = &self.block_times;
        let (first, last) = weigh_range(&weigh, steps, bt, c.u, c.e - 1, &mut acc, &mut carry.dict);
        weigh.point(c.start, first.saturating_sub(c.a), true, &mut acc);
        weigh.point(steps.v(c.e - 1), c.b.saturating_sub(last), true, &mut acc);
        let held: u64 = acc.iter().sum();
        // Values are sorted: the first of equal ticks is the smaller.
        let mut best = (none, (c.b - c.a).saturating_sub(held));
        for (&v, &t) in values.iter().zip(&acc) {
            if beats(v, t, best.0, best.1, none) {
                best = (v, t);
            }
        }
        best.0
    }

    /// The number of non-null points in `[i, j)`.
    pub(super) fn non_null_count(&self, steps: &Steps<'_>, i: usize, j: usize) -> u64 {
        if j <= i {
            0
        } else if j - i <= DIRECT {
            count_non_null(steps, i, j)
        } else {
            self.non_null_before(steps, j) - self.non_null_before(steps, i)
        }
    }

    /// The number of non-null points before point `x` (`x <= n`).
    fn non_null_before(&self, steps: &Steps<'_>, x: usize) -> u64 {
        let n = steps.len();
        let (k, r) = (x / BLOCK, x % BLOCK);
        let at = |k: usize| u64::from(self.non_null.get(k).copied().unwrap_or(0));
        if r == 0 {
            at(k)
        } else if r <= BLOCK / 2 || (k + 1) * BLOCK > n {
            at(k) + count_non_null(steps, k * BLOCK, x)
        } else {
            at(k + 1) - count_non_null(steps, x, (k + 1) * BLOCK)
        }
    }

    /// The value of the `k`-th (from 0) non-null point of `[i, j)`; the sentinel if there are
    /// not that many.
    pub(super) fn nth_non_null(&self, steps: &Steps<'_>, i: usize, j: usize, k: u64) -> u64 {
        if j <= i {
            return steps.sentinel;
        }
        if j - i <= 2 * BLOCK {
            return nth_in(steps, i, j, k);
        }
        // The global rank of the point, and the block holding it.
        let rank = self.non_null_before(steps, i) + k;
        let b = self
            .non_null
            .partition_point(|&c| u64::from(c) <= rank)
            .saturating_sub(1);
        let before = u64::from(self.non_null.get(b).copied().unwrap_or(0));
        let from = b * BLOCK;
        nth_in(steps, from, (from + BLOCK).min(j), rank - before)
    }
}

/// The pyramid levels above a first level: each entry combines `FANOUT` of the level below,
/// up to a level of at most `FANOUT` entries.
fn levels(first: Vec<u64>, combine: impl Fn(u64, u64) -> u64) -> Vec<Buf<u64>> {
    let mut levels: Vec<Buf<u64>> = vec![first.into()];
    while let Some(last) = levels.last()
        && last.len() > FANOUT
    {
        let next = last
            .chunks(FANOUT)
            .map(|c| c.iter().copied().reduce(&combine).unwrap_or_default())
            .collect::<Vec<u64>>();
        levels.push(next.into());
    }
    levels
}

/// Folds the entries of `levels` covering points `[i, j)` with `combine`, reading the points
/// at the ends with `scan` (at most 30).
fn range_fold(
    levels: &[Buf<u64>],
    i: usize,
    j: usize,
    none: u64,
    scan: impl Fn(usize, usize) -> u64,
    combine: impl Fn(u64, u64) -> u64,
) -> u64 {
    let scan = |from: usize, to: usize, acc: u64| {
        if from >= to {
            acc
        } else {
            combine(acc, scan(from, to))
        }
    };
    if j <= i {
        return none;
    }
    if j - i < 2 * BLOCK {
        return scan(i, j, none);
    }
    let (lo, hi) = (i.div_ceil(BLOCK), j / BLOCK);
    let mut acc = scan(i, lo * BLOCK, none);
    acc = scan(hi * BLOCK, j, acc);
    let (mut lo, mut hi) = (lo, hi);
    for (k, level) in levels.iter().enumerate() {
        let fold = |from: usize, to: usize, acc: u64| {
            level
                .get(from..to)
                .unwrap_or_default()
                .iter()
                .fold(acc, |a, &v| combine(a, v))
        };
        if hi - lo <= 2 * FANOUT || k + 1 == levels.len() {
            return fold(lo, hi, acc);
        }
        let (lo2, hi2) = (lo.div_ceil(FANOUT), hi / FANOUT);
        acc = fold(lo, lo2 * FANOUT, acc);
        acc = fold(hi2 * FANOUT, hi, acc);
        (lo, hi) = (lo2, hi2);
    }
    acc
}

/// The distinct non-null values of a row, sorted, if there are at most `limit`.
fn distinct_up_to(steps: &Steps<'_>, limit: usize) -> Option<Vec<u64>> {
    let none = steps.sentinel;
    let mut found: Vec<u64> = Vec::with_capacity(limit + 1);
    let mut buf = vec![0u64; CHUNK];
    let mut s = 0;
    while s < steps.len() {
        let got = steps.value.read(s, &mut buf);
        if got == 0 {
            break;
        }
        for &v in buf.get(..got).unwrap_or_default() {
            if v != none && !found.contains(&v) {
                found.push(v);
                if found.len() > limit {
                    return None;
                }
            }
        }
        s += got;
    }
    found.sort_unstable();
    found.shrink_to_fit();
    Some(found)
}

/// Calls `each(value, ticks)` for the points `[from, to)`, `to < n` (each with its next
/// point); returns the times of points `from` and `to` when `from < to`.
#[inline]
pub(super) fn for_durations(
    steps: &Steps<'_>,
    from: usize,
    to: usize,
    mut each: impl FnMut(u64, u64),
) -> Option<(u64, u64)> {
    let mut times = [0u64; SMALL + 1];
    let mut values = [0u64; SMALL];
    let mut pos = from;
    let mut first = None;
    let mut last = 0;
    while pos < to {
        let len = (to - pos).min(SMALL);
        let (Some(tbuf), Some(vbuf)) = (times.get_mut(..=len), values.get_mut(..len)) else {
            break;
        };
        steps.time.read(pos, tbuf);
        steps.value.read(pos, vbuf);
        for (pair, &value) in tbuf.windows(2).zip(vbuf.iter()) {
            each(value, pair[1].saturating_sub(pair[0]));
        }
        first = first.or(tbuf.first().copied());
        last = tbuf.last().copied().unwrap_or(last);
        pos += len;
    }
    first.map(|f| (f, last))
}

/// Calls `each(index, value)` for the points `[from, to)` until it says stop.
#[inline]
fn for_values(
    steps: &Steps<'_>,
    from: usize,
    to: usize,
    mut each: impl FnMut(usize, u64) -> std::ops::ControlFlow<()>,
) {
    let mut values = [0u64; SMALL];
    let mut pos = from;
    while pos < to {
        let len = (to - pos).min(SMALL);
        let Some(vbuf) = values.get_mut(..len) else {
            break;
        };
        steps.value.read(pos, vbuf);
        for (at, &value) in (pos..).zip(vbuf.iter()) {
            if each(at, value).is_break() {
                return;
            }
        }
        pos += len;
    }
}

/// The number of non-null points of `[from, to)`, by reading them.
fn count_non_null(steps: &Steps<'_>, from: usize, to: usize) -> u64 {
    let none = steps.sentinel;
    let mut count = 0;
    for_values(steps, from, to, |_, value| {
        count += u64::from(value != none);
        std::ops::ControlFlow::Continue(())
    });
    count
}

/// Reads `[from, to)` for its `rank`-th (from 0) non-null point: its value, or the sentinel.
fn nth_in(steps: &Steps<'_>, from: usize, to: usize, mut rank: u64) -> u64 {
    let none = steps.sentinel;
    let mut found = none;
    for_values(steps, from, to, |_, value| {
        if value == none {
            return std::ops::ControlFlow::Continue(());
        }
        if rank == 0 {
            found = value;
            return std::ops::ControlFlow::Break(());
        }
        rank -= 1;
        std::ops::ControlFlow::Continue(())
    });
    found
}

/// Prefix sums over blocks of points: what [`weigh_range`] adds and subtracts. Arithmetic
/// wraps: the partial results may leave the range, the final difference is exact.
trait Weigh {
    type Acc: Copy + Default;
    /// Adds (or subtracts) the prefix of block `k`: the weights of points `[0, 16k)`.
    fn entry(&self, k: usize, add: bool, acc: &mut Self::Acc);
    /// Adds (or subtracts) one point.
    fn point(&self, value: u64, ticks: u64, add: bool, acc: &mut Self::Acc);
    /// Adds `plus - minus`.
    fn add_difference(acc: &mut Self::Acc, plus: &Self::Acc, minus: &Self::Acc);
}

struct DictWeigh<'p> {
    values: &'p [u64],
    ticks: &'p [u64],
}

impl Weigh for DictWeigh<'_> {
    type Acc = [u64; DICT_MAX];

    #[inline]
    fn add_difference(acc: &mut Self::Acc, plus: &Self::Acc, minus: &Self::Acc) {
        for ((a, &p), &m) in acc.iter_mut().zip(plus).zip(minus) {
            *a = a.wrapping_add(p.wrapping_sub(m));
        }
    }

    #[inline]
    fn entry(&self, k: usize, add: bool, acc: &mut Self::Acc) {
        let d = self.values.len();
        let row = self.ticks.get(k * d..(k + 1) * d).unwrap_or_default();
        for (a, &t) in acc.iter_mut().zip(row) {
            *a = if add {
                a.wrapping_add(t)
            } else {
                a.wrapping_sub(t)
            };
        }
    }

    #[inline]
    fn point(&self, value: u64, ticks: u64, add: bool, acc: &mut Self::Acc) {
        if let Some(a) = self
            .values
            .iter()
            .position(|&x| x == value)
            .and_then(|id| acc.get_mut(id))
        {
            *a = if add {
                a.wrapping_add(ticks)
            } else {
                a.wrapping_sub(ticks)
            };
        }
    }
}

struct SumWeigh<'p> {
    sums: &'p [[u64; 3]],
    none: u64,
}

impl Weigh for SumWeigh<'_> {
    type Acc = (u64, u128);

    #[inline]
    fn add_difference(acc: &mut Self::Acc, plus: &Self::Acc, minus: &Self::Acc) {
        acc.0 = acc.0.wrapping_add(plus.0.wrapping_sub(minus.0));
        acc.1 = acc.1.wrapping_add(plus.1.wrapping_sub(minus.1));
    }

    #[inline]
    fn entry(&self, k: usize, add: bool, acc: &mut Self::Acc) {
        let [t, lo, hi] = self.sums.get(k).copied().unwrap_or_default();
        let s = u128::from(hi) << 64 | u128::from(lo);
        *acc = if add {
            (acc.0.wrapping_add(t), acc.1.wrapping_add(s))
        } else {
            (acc.0.wrapping_sub(t), acc.1.wrapping_sub(s))
        };
    }

    #[inline]
    fn point(&self, value: u64, ticks: u64, add: bool, acc: &mut Self::Acc) {
        if value == self.none {
            return;
        }
        let s = u128::from(value) * u128::from(ticks);
        *acc = if add {
            (acc.0.wrapping_add(ticks), acc.1.wrapping_add(s))
        } else {
            (acc.0.wrapping_sub(ticks), acc.1.wrapping_sub(s))
        };
    }
}

/// Adds the weights of points `[i, j)` (`j < n`) to `acc`: point by point when the range is
/// short, otherwise as the difference of two prefixes, each a block's entry corrected by at
/// most `BLOCK / 2` points, or for `i` the `carry` from the previous column's `j` when that is
/// at most `CARRY` points back; `carry` then holds `j`'s. Returns the times of points `i` and
/// `j`, which these reads give.
fn weigh_range<W: Weigh>(
    w: &W,
    steps: &Steps<'_>,
    block_times: &[u64],
    i: usize,
    j: usize,
    acc: &mut W::Acc,
    carry: &mut Option<(usize, W::Acc, u64)>,
) -> (u64, u64) {
    if j <= i {
        let t = steps.t(i);
        return (t, t);
    }
    if j - i <= DIRECT {
        return for_durations(steps, i, j, |v, t| w.point(v, t, true, acc))
            .unwrap_or_else(|| (steps.t(i), steps.t(j)));
    }
    let mut right = W::Acc::default();
    let last = weigh_prefix(w, steps, block_times, j, true, &mut right);
    let mut left = W::Acc::default();
    let first = match *carry {
        Some((at, prefix, t)) if at <= i && i - at <= CARRY => {
            left = prefix;
            for_durations(steps, at, i, |v, d| w.point(v, d, true, &mut left))
                .map_or(t, |(_, ti)| ti)
        }
        _ => weigh_prefix(w, steps, block_times, i, true, &mut left),
    };
    *carry = Some((j, right, last));
    W::add_difference(acc, &right, &left);
    (first, last)
}

/// Adds (or subtracts) the weights of points `[0, at)` (`at < n`); returns the time of
/// point `at`.
fn weigh_prefix<W: Weigh>(
    weigh: &W,
    steps: &Steps<'_>,
    block_times: &[u64],
    at: usize,
    add: bool,
    acc: &mut W::Acc,
) -> u64 {
    let blocks = block_times.len();
    let (k, r) = (at / BLOCK, at % BLOCK);
    if r <= BLOCK / 2 || k + 1 >= blocks {
        weigh.entry(k, add, acc);
        match for_durations(steps, k * BLOCK, at, |v, t| weigh.point(v, t, add, acc)) {
            Some((_, t)) => t,
            None => block_times.get(k).copied().unwrap_or_else(|| steps.t(at)),
        }
    } else {
        weigh.entry(k + 1, add, acc);
        for_durations(steps, at, (k + 1) * BLOCK, |v, t| {
            weigh.point(v, t, !add, acc);
        })
        .map_or_else(|| steps.t(at), |(t, _)| t)
    }
}

//! Level of detail: what each pixel column of a timeline row shows, without visiting every
//! record in the window.
//!
//! A row is a step function ([`Steps`]): point `i` says "from `time(i)` on, the value is
//! `value(i)`", until the next point; before the first point there is no value. Null values
//! (the sentinel) are points too, so a state's end or a null event ends the value before it.
//!
//! A pixel column covers the ticks `[a, b)`. It shows the **largest non-null value** that
//! holds anywhere in it: the value holding at `a` and the values of the points inside
//! `(a, b)` (wxparaver's default "maximum" draw mode; a burst shorter than a pixel stays
//! visible unless something larger shares its pixel). It also counts those inner points, so
//! the timeline knows a pixel is mixed.
//!
//! [`Pyramid`] holds the maxima of blocks of 16 points, then of 4 blocks, and so on (0.7
//! bytes per point), so the maximum of any index range costs O(log n) block reads plus at most
//! 30 point reads at its ends. Column edges are found by galloping from the previous edge over
//! the blocks' first times, then reading at most 32 points.
//! A frame of W columns thus costs O(W log n) per row, whatever the number of records.
//! When the window holds only a few points per column, one sequential pass over them
//! (decoded a batch at a time) is cheaper than a search per column, and costs O(W) too.
//!
//! [`Grid`] puts column edges at fixed positions in absolute time (`edge(k) = k * span /
//! width`), so panning by whole pixels shows exactly the same columns: no shimmer.

use super::columns::{TimeColumn, ValueColumn};
use crate::null;

/// Points per block of the first pyramid level.
const BLOCK: usize = 16;
/// Blocks per block of the next level.
const FANOUT: usize = 4;

/// A row as a step function over borrowed columns.
#[derive(Clone, Copy)]
pub struct Steps<'a> {
    /// Point times; sorted.
    pub time: &'a TimeColumn,
    /// Point values; same length as `time`. `sentinel` means null.
    pub value: &'a ValueColumn,
    pub sentinel: u64,
}

impl Steps<'_> {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.time.len()
    }

    /// True when the row has no point.
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    #[inline]
    fn t(&self, i: usize) -> u64 {
        self.time.get(i)
    }

    #[inline]
    fn v(&self, i: usize) -> u64 {
        self.value.get(i)
    }

    /// Index of the point whose value holds at `t` (the last point at or before `t`).
    pub fn point_at(&self, t: u64) -> Option<usize> {
        self.time.upper_bound(t).checked_sub(1)
    }
}

/// Range-maximum index over the non-null values of one row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pyramid {
    /// `levels[0][b]` is the largest non-null value of points `[16b, 16b + 16)`; each next
    /// level takes the maximum of 4 entries of the level below. The sentinel means "none".
    levels: Vec<Vec<u64>>,
    /// The time of point `16b` for each block `b`: searches by time go through these (one
    /// cache line holds 8 blocks) and then read at most 16 points, instead of probing the
    /// compressed times of a row of millions of points.
    block_times: Vec<u64>,
}

impl Pyramid {
    /// Builds the pyramid of a row.
    pub fn build(steps: &Steps<'_>) -> Self {
        let none = steps.sentinel;
        let mut first = Vec::with_capacity(steps.len().div_ceil(BLOCK));
        let mut acc = none;
        for (i, v) in steps.value.iter().enumerate() {
            acc = null::max_of(acc, v, none);
            if i % BLOCK == BLOCK - 1 {
                first.push(acc);
                acc = none;
            }
        }
        if !steps.len().is_multiple_of(BLOCK) {
            first.push(acc);
        }
        let mut levels = vec![first];
        while let Some(last) = levels.last()
            && last.len() > FANOUT
        {
            let next = last
                .chunks(FANOUT)
                .map(|c| c.iter().fold(none, |a, &v| null::max_of(a, v, none)))
                .collect();
            levels.push(next);
        }
        let block_times = (0..steps.len())
            .step_by(BLOCK)
            .map(|i| steps.t(i))
            .collect();
        Pyramid {
            levels,
            block_times,
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.levels.iter().map(|l| l.capacity() * 8).sum::<usize>()
            + self.block_times.capacity() * 8
    }

    /// The first index `>= from` whose time is `>= t`: a galloping search over the blocks'
    /// first times from `from`'s block, then a scan of at most two blocks.
    fn lower_bound_from(&self, steps: &Steps<'_>, from: usize, t: u64) -> usize {
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
        // first point of block lo.
        let start = from.max((lo - 1) * BLOCK);
        let end = (lo * BLOCK).min(n);
        (start..end).find(|&i| steps.t(i) >= t).unwrap_or(end)
    }

    /// The largest non-null value of points `[i, j)`, or the sentinel when there is none.
    pub fn range_max(&self, steps: &Steps<'_>, i: usize, j: usize) -> u64 {
        let none = steps.sentinel;
        let scan = |from: usize, to: usize, acc: u64| {
            if from >= to {
                acc
            } else {
                null::max_of(acc, steps.value.max_in(from, to), none)
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
        for (k, level) in self.levels.iter().enumerate() {
            let fold = |from: usize, to: usize, acc: u64| {
                level
                    .get(from..to)
                    .unwrap_or_default()
                    .iter()
                    .fold(acc, |a, &v| null::max_of(a, v, none))
            };
            if hi - lo <= 2 * FANOUT || k + 1 == self.levels.len() {
                return fold(lo, hi, acc);
            }
            let (lo2, hi2) = (lo.div_ceil(FANOUT), hi / FANOUT);
            acc = fold(lo, lo2 * FANOUT, acc);
            acc = fold(hi2 * FANOUT, hi, acc);
            (lo, hi) = (lo2, hi2);
        }
        acc
    }
}

/// What one pixel column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pixel {
    /// The largest non-null value holding in the column, or the sentinel (draw nothing).
    pub value: u64,
    /// Points inside the column after its first tick: 0 means one value covers it whole.
    pub changes: u32,
}

/// Windows with at most this many points per column on average are summarised by one pass
/// over their points ([`summarize_scan`]); denser ones through the pyramid. A sequential pass
/// costs about a nanosecond per point, a pyramid column (two searches by time and a range
/// maximum) some 80 ns, so the scan wins up to a few dozen points per column, and the bound
/// keeps a frame at O(columns) per row below it and O(columns x log n) above it.
const SCAN_POINTS_PER_COLUMN: usize = 32;

/// Summarises one row over the columns `[edges[k], edges[k + 1])` (`edges` sorted).
pub fn summarize(steps: &Steps<'_>, pyramid: &Pyramid, edges: &[u64], out: &mut Vec<Pixel>) {
    out.clear();
    let (Some(&a0), Some(&last)) = (edges.first(), edges.last()) else {
        return;
    };
    // The number of points at or before the first edge, and at or before the last one.
    let first = steps.time.upper_bound(a0);
    let stop = steps.time.upper_bound(last);
    let columns = edges.len() - 1;
    if stop.saturating_sub(first) <= SCAN_POINTS_PER_COLUMN.saturating_mul(columns)
        && steps.value.keys_are_exact()
    {
        summarize_scan(steps, edges, first, stop, out);
    } else {
        summarize_pyramid(steps, pyramid, edges, first, out);
    }
}

/// [`summarize`] through the pyramid: per column, a galloping search for its last point and a
/// range maximum. `first` is the number of points at or before the first edge.
fn summarize_pyramid(
    steps: &Steps<'_>,
    pyramid: &Pyramid,
    edges: &[u64],
    first: usize,
    out: &mut Vec<Pixel>,
) {
    let none = steps.sentinel;
    let n = steps.len();
    let skip_equal = |mut u: usize, t: u64| {
        while u < n && steps.t(u) == t {
            u += 1;
        }
        u
    };
    // `u`: the number of points at or before the current column's first tick.
    let mut u = first;
    for &b in edges.get(1..).unwrap_or_default() {
        let inner_end = pyramid.lower_bound_from(steps, u, b);
        let start = if u > 0 { steps.v(u - 1) } else { none };
        let value = null::max_of(start, pyramid.range_max(steps, u, inner_end), none);
        out.push(Pixel {
            value,
            changes: u32::try_from(inner_end - u).unwrap_or(u32::MAX),
        });
        u = skip_equal(inner_end, b);
    }
}

/// Points decoded at a time by [`summarize_scan`].
const SCAN_BATCH: usize = 256;

/// [`summarize`] by one pass over the points `[first, stop)`, where `first` is the number of
/// points at or before the first edge and no point after `stop` is at or before the last one.
/// Times and values are decoded a batch at a time into plain arrays, so the inner loops are a
/// comparison per point and a branch-free maximum per column.
fn summarize_scan(
    steps: &Steps<'_>,
    edges: &[u64],
    first: usize,
    stop: usize,
    out: &mut Vec<Pixel>,
) {
    let none = steps.sentinel;
    let mut batch = Batch {
        steps,
        times: [0; SCAN_BATCH],
        keys: [0; SCAN_BATCH],
        next: first,
        stop,
        len: 0,
        pos: 0,
    };
    // Values travel as keys (null 0, v as v + 1): the largest non-null is a plain maximum.
    let key_of = |v: u64| if v == none { 0 } else { v + 1 };
    let value_of = |k: u64| k.checked_sub(1).unwrap_or(none);
    // The key of the value holding at the current column's first tick.
    let mut current = if first > 0 {
        key_of(steps.v(first - 1))
    } else {
        0
    };
    for &b in edges.get(1..).unwrap_or_default() {
        let mut best = current;
        let mut changes = 0usize;
        // Points before `b` are inside the column (those at its first tick were taken already).
        while batch.ready() {
            let times = batch.times.get(batch.pos..batch.len).unwrap_or_default();
            let inside = times.iter().position(|&t| t >= b).unwrap_or(times.len());
            if inside > 0 {
                let keys = batch
                    .keys
                    .get(batch.pos..batch.pos + inside)
                    .unwrap_or_default();
                best = keys.iter().fold(best, |m, &k| m.max(k));
                current = keys.last().copied().unwrap_or(current);
                changes += inside;
                batch.pos += inside;
            }
            if batch.pos < batch.len {
                break;
            }
        }
        // Points at `b` itself set the next column's first value.
        while batch.ready() && batch.times.get(batch.pos) == Some(&b) {
            current = batch.keys.get(batch.pos).copied().unwrap_or(current);
            batch.pos += 1;
        }
        out.push(Pixel {
            value: value_of(best),
            changes: u32::try_from(changes).unwrap_or(u32::MAX),
        });
    }
}

/// Decoded points of a row, a batch at a time: `times[pos..len]` and `keys[pos..len]` are
/// the points `[next - len + pos, next)` not used yet.
struct Batch<'s, 'a> {
    steps: &'s Steps<'a>,
    times: [u64; SCAN_BATCH],
    keys: [u64; SCAN_BATCH],
    next: usize,
    stop: usize,
    len: usize,
    pos: usize,
}

impl Batch<'_, '_> {
    /// True when an unused point is there, decoding the next batch if needed.
    #[inline]
    fn ready(&mut self) -> bool {
        if self.pos < self.len {
            return true;
        }
        let want = SCAN_BATCH.min(self.stop.saturating_sub(self.next));
        let times = self.times.get_mut(..want).unwrap_or_default();
        let got = self.steps.time.read(self.next, times);
        let keys = self.keys.get_mut(..got).unwrap_or_default();
        self.steps.value.read_keys(self.next, keys);
        self.next += got;
        self.len = got;
        self.pos = 0;
        got > 0
    }
}

/// The same as [`summarize`], by visiting every point: the reference the tests compare with.
pub fn summarize_naive(steps: &Steps<'_>, edges: &[u64]) -> Vec<Pixel> {
    let none = steps.sentinel;
    let points: Vec<(u64, u64)> = (0..steps.len()).map(|i| (steps.t(i), steps.v(i))).collect();
    edges
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let start = points.iter().rev().find(|p| p.0 <= a).map_or(none, |p| p.1);
            let inner: Vec<u64> = points
                .iter()
                .filter(|p| p.0 > a && p.0 < b)
                .map(|p| p.1)
                .collect();
            let value = inner.iter().fold(start, |m, &v| null::max_of(m, v, none));
            Pixel {
                value,
                changes: inner.len() as u32,
            }
        })
        .collect()
}

/// Pixel columns at fixed places in absolute time: `span` ticks over `width` columns, column
/// `k` covering `[edge(k), edge(k + 1))`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    pub span: u64,
    pub width: u32,
}

impl Grid {
    /// The first tick of column `k`.
    pub fn edge(&self, k: u64) -> u64 {
        let e = u128::from(k) * u128::from(self.span) / u128::from(self.width.max(1));
        u64::try_from(e).unwrap_or(u64::MAX)
    }

    /// The column holding tick `t`.
    pub fn column_of(&self, t: u64) -> u64 {
        // The smallest k with edge(k + 1) > t, i.e. k = floor(t * width / span) adjusted for
        // the flooring of edges.
        if self.span == 0 {
            return 0;
        }
        let w = u128::from(self.width.max(1));
        let s = u128::from(self.span);
        let mut k = (u128::from(t) * w / s) as u64;
        while k > 0 && self.edge(k) > t {
            k -= 1;
        }
        while self.edge(k + 1) <= t {
            k += 1;
        }
        k
    }

    /// Edges of `count` columns starting at column `first` (`count + 1` values).
    pub fn edges(&self, first: u64, count: usize) -> Vec<u64> {
        (0..=count as u64).map(|i| self.edge(first + i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-bit LCG with its high bits folded in: reproducible test data, no dependency.
    struct Rng(u64);

    impl Rng {
        fn new(seed: u64) -> Self {
            Rng(seed)
        }
        fn next_u64(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 ^ (self.0 >> 29)
        }
        fn range(&mut self, lo: u64, hi: u64) -> u64 {
            lo + self.next_u64() % (hi - lo).max(1)
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next_u64() % 100 < percent
        }
    }

    const NULL: u64 = u64::MAX;

    fn columns(points: &[(u64, u64)]) -> (TimeColumn, ValueColumn) {
        let times: Vec<u64> = points.iter().map(|p| p.0).collect();
        let values: Vec<u64> = points.iter().map(|p| p.1).collect();
        (
            TimeColumn::from_times(&times),
            ValueColumn::from_values(&values, NULL),
        )
    }

    /// The same points as several segments (as a loaded trace has them): pieces of at least
    /// 1024 points become segments of their own.
    fn segmented_columns(points: &[(u64, u64)], rng: &mut Rng) -> (TimeColumn, ValueColumn) {
        let (mut times, mut values) = (Vec::new(), Vec::new());
        let mut rest = points;
        while !rest.is_empty() {
            let k = (rng.range(1, 2500) as usize).min(rest.len());
            let (piece, tail) = rest.split_at(k);
            let (t, v) = columns(piece);
            times.push(t);
            values.push(v);
            rest = tail;
        }
        (
            TimeColumn::join_sorted(times),
            ValueColumn::join(values, NULL),
        )
    }

    /// Random rows (runs of equal times, nulls, wide and narrow values) against random
    /// column edges (repeated edges, edges on points, before and after the data).
    #[test]
    fn summaries_equal_the_naive_per_pixel_computation() {
        let mut rng = Rng::new(7);
        for case in 0..400 {
            let n = match case % 4 {
                0 => rng.range(0, 10) as usize,
                1 => rng.range(10, 200) as usize,
                _ => rng.range(200, 5000) as usize,
            };
            let mut t = rng.range(0, 50);
            let wide = rng.chance(30);
            let points: Vec<(u64, u64)> = (0..n)
                .map(|_| {
                    if !rng.chance(20) {
                        t += rng.range(1, 40);
                    }
                    let v = if rng.chance(15) {
                        NULL
                    } else if wide {
                        rng.next_u64() >> 8
                    } else {
                        rng.range(0, 20)
                    };
                    (t, v)
                })
                .collect();
            let (time, value) = if case % 3 == 0 {
                segmented_columns(&points, &mut rng)
            } else {
                columns(&points)
            };
            let steps = Steps {
                time: &time,
                value: &value,
                sentinel: NULL,
            };
            let pyramid = Pyramid::build(&steps);
            let end = t + 60;
            let mut edges: Vec<u64> = (0..rng.range(1, 300))
                .map(|_| {
                    if rng.chance(30) && n > 0 {
                        points[rng.range(0, n as u64) as usize].0
                    } else {
                        rng.range(0, end)
                    }
                })
                .collect();
            edges.sort_unstable();
            let naive = summarize_naive(&steps, &edges);
            let mut fast = Vec::new();
            summarize(&steps, &pyramid, &edges, &mut fast);
            assert_eq!(fast, naive, "case {case}");
            // Both ways, whatever the density picks.
            let first = time.upper_bound(edges[0]);
            let stop = time.upper_bound(*edges.last().unwrap());
            fast.clear();
            summarize_scan(&steps, &edges, first, stop, &mut fast);
            assert_eq!(fast, naive, "case {case}: scan");
            fast.clear();
            summarize_pyramid(&steps, &pyramid, &edges, first, &mut fast);
            assert_eq!(fast, naive, "case {case}: pyramid");
            // Range maxima of arbitrary ranges too.
            for _ in 0..50 {
                let i = rng.range(0, n as u64 + 1) as usize;
                let j = rng.range(i as u64, n as u64 + 1) as usize;
                let naive = (i..j).fold(NULL, |m, k| null::max_of(m, points[k].1, NULL));
                assert_eq!(
                    pyramid.range_max(&steps, i, j),
                    naive,
                    "case {case} {i}..{j}"
                );
            }
        }
    }

    #[test]
    fn another_sentinel_keeps_u64_max_as_a_value() {
        // Sentinel 7: the value u64::MAX is real and the largest; 7 is null.
        let points = [(0, 3), (10, u64::MAX), (11, 7), (20, 5), (30, 7)];
        let times: Vec<u64> = points.iter().map(|p| p.0).collect();
        let values: Vec<u64> = points.iter().map(|p| p.1).collect();
        let (time, value) = (
            TimeColumn::from_times(&times),
            ValueColumn::from_values(&values, 7),
        );
        let steps = Steps {
            time: &time,
            value: &value,
            sentinel: 7,
        };
        assert!(!value.keys_are_exact());
        let edges = [0, 5, 12, 25, 40];
        let mut px = Vec::new();
        summarize(&steps, &Pyramid::build(&steps), &edges, &mut px);
        assert_eq!(px, summarize_naive(&steps, &edges));
        let shown: Vec<u64> = px.iter().map(|p| p.value).collect();
        assert_eq!(shown, [3, u64::MAX, 5, 5]);
    }

    #[test]
    fn a_burst_shorter_than_a_pixel_stays_visible() {
        // Value 1 everywhere but a 1-tick burst of 5 at 5003, drawn over 10 columns of 1000.
        let (time, value) = columns(&[(0, 1), (5003, 5), (5004, 1)]);
        let steps = Steps {
            time: &time,
            value: &value,
            sentinel: NULL,
        };
        let grid = Grid {
            span: 10_000,
            width: 10,
        };
        let mut px = Vec::new();
        summarize(&steps, &Pyramid::build(&steps), &grid.edges(0, 10), &mut px);
        let values: Vec<u64> = px.iter().map(|p| p.value).collect();
        assert_eq!(values, [1, 1, 1, 1, 1, 5, 1, 1, 1, 1]);
        assert_eq!(px[5].changes, 2);
        assert_eq!(px[4].changes, 0);
    }

    #[test]
    fn grid_columns_are_fixed_in_absolute_time() {
        let grid = Grid {
            span: 1000,
            width: 7,
        };
        for t in 0..3000 {
            let k = grid.column_of(t);
            assert!(grid.edge(k) <= t && t < grid.edge(k + 1), "t {t} k {k}");
        }
        // Panning by whole columns reuses the same edges.
        assert_eq!(grid.edges(3, 4)[1..], grid.edges(4, 3)[..]);
        // More columns than ticks: empty columns repeat an edge.
        let fine = Grid { span: 3, width: 10 };
        assert_eq!(fine.edges(0, 10), [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
        assert_eq!(fine.column_of(1), 6);
    }
}

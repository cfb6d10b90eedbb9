//! Level of detail: what each pixel column of a timeline row shows, without visiting every
//! record in the window.
//!
//! A row is a step function ([`Steps`]): point `i` says "from `time(i)` on, the value is
//! `value(i)`", until the next point; before the first point there is no value. Null values
//! (the sentinel) are points too, so a state's end or a null event ends the value before it.
//! The row's last point holds until forever (a column clips it).
//!
//! # What a pixel means
//!
//! A pixel column covers the ticks `[a, b)`. The values *holding* in it are the value at `a`
//! (the last point at or before `a`, null before the first point) and the values of the points
//! inside `(a, b)`, in index order; a point at `b` belongs to the next column. A value's
//! *ticks* in the column are the ticks it holds there: the value at `a` from `a` to the first
//! inner point (or `b`), each inner point from its time to the next point's (or `b`). Several
//! points at one time hold for no tick, but they still hold (a burst shorter than a tick).
//! The column shows, by [`DrawMode`]:
//!
//! - **Dominant**: the value holding the most ticks, null counted as a candidate too (a column
//!   mostly without a value draws nothing); ties go to a non-null value, then to the smaller
//!   value. The default for categorical views (states, calls). See "Dominant" below for when it
//!   is exact.
//! - **Average**: the time-weighted mean of the non-null values, `floor(sum(v * ticks) /
//!   sum(ticks))` over the ticks where some non-null value holds, computed exactly in `u128`
//!   (sums saturate, which one row never reaches); null when no non-null value holds a tick.
//!   A mean that falls on a sentinel other than `u64::MAX` is drawn as the sentinel minus one,
//!   so a value never reads as null. The default for counters.
//! - **Maximum**: the largest non-null value holding (wxparaver's "maximum": a burst shorter
//!   than a pixel stays visible unless something larger shares its pixel).
//! - **Minimum**: the smallest non-null value holding.
//! - **Last**: the value holding at the column's last tick `b - 1` (null if null there).
//! - **Random** (Paraver's "random non-null"): candidate `k = h(a, b) % count` of the list
//!   "the value at `a` if non-null, then the non-null inner points in index order", where `h`
//!   is a fixed hash of the edges ([`column_hash`]), so a column shows the same value whenever
//!   it is drawn (no flicker when repainting or panning by whole pixels); null without
//!   candidates.
//!
//! A column without ticks (a repeated edge, `a == b`) is read as its first tick `[a, a + 1)`:
//! it shows the value at `a` in every mode. Each pixel also counts the points inside `(a, b)`
//! ([`Pixel::changes`], whatever the mode), so the timeline knows a pixel is mixed.
//!
//! ## Groups
//!
//! A collapsed task or application draws one row for several threads ([`summarize_group`]):
//! **Dominant** takes the value with the most ticks summed over the threads (null included,
//! same ties); **Average** is time-weighted over all threads' non-null ticks; **Maximum** and
//! **Minimum** are taken over all threads; **Last** is the value at `b - 1` of the thread
//! whose last point at or before `b - 1` is the latest (ties: the lowest thread; null when that
//! value is null or no thread has a point); **Random** picks candidate `h(a, b) % count` of the
//! threads' candidate lists joined in thread order. `changes` is the sum over the threads.
//! An empty column weighs each thread's value at `a` as one tick.
//!
//! # Cost
//!
//! [`Pyramid`] indexes a row by blocks of 16 points (a block's first time, the maxima and
//! minima of blocks, then of 4 blocks, and so on), so that the maximum or minimum of any index
//! range costs O(log n) block reads plus at most 30 point reads at its ends. The modes that
//! weigh ticks read prefix sums per block (the ticks and the weighted sum of the non-null
//! values before the block; per value when a row has at most 8 distinct values), so a column
//! costs two prefix reads and at most 8 point reads at each end; Dominant on rows of more
//! values adds O(log n) summaries (below); Random counts non-null points the same way and
//! finds the chosen one by a binary search over the blocks. Column edges are
//! found by galloping from the previous edge over the blocks' first times, then reading at
//! most 32 points. A frame of W columns thus costs O(W log n) per row in every mode, whatever
//! the number of records. When the window holds only a few points per column, one sequential
//! pass over them (decoded a batch at a time) is cheaper than a search per column, and costs
//! O(W) too; it is exact in every mode. Everything is built with the view
//! ([`Pyramid::build`]), never during a frame.
//!
//! ## Dominant
//!
//! A row with at most 8 distinct non-null values (states, most categorical views) keeps the
//! ticks of each value before each block, and Dominant is exact. A row with more keeps
//! weighted Misra-Gries summaries of nodes of 32 points, 128, and so on: at most
//! [`HEAVY_ENTRIES`] = K = 8 values per node, each count short of the value's true ticks in
//! the node by at most `(node's non-null ticks) / (K + 1)`, and exact when the node holds at
//! most K distinct non-null values (a node whose values are spread flat, as a counter's are,
//! keeps few or none). A column reads the points between its ends and the first and last node
//! boundaries exactly (at most 31 on each side), adds the summaries of the nodes between, and
//! takes null's ticks exactly from the prefix sums. Hence, with `N = b - a` and `T` the most
//! ticks any value (null included) holds in the column:
//!
//! - the result is exact (equal to [`summarize_naive`]) whenever every node the column reads
//!   is exact, in particular whenever the column holds at most K distinct non-null values,
//!   or the row at most 8;
//! - otherwise the value drawn holds at least `T - N / (K + 1)` ticks, so a value holding more
//!   than `(K + 2) / (2K + 2)` (5/9) of the column is always drawn.
//!
//! Groups add the threads' parts the same way: exact where every thread's part is (up to 4096
//! distinct values in a column), otherwise the same bound with `N` the sum of the threads'
//! ticks.
//!
//! ## Memory
//!
//! The index takes about 4.6 bytes per point for a row of 5 values (block times 0.5, maxima
//! and minima 1.3, non-null counts 0.25, the ticks of each value 0.5 per value) and 3.8 for a
//! counter whose values are all distinct (the sums 1.5, the summaries close to nothing); the
//! maximum alone took 1.2.
//!
//! [`Grid`] puts column edges at fixed positions in absolute time (`edge(k) = k * span /
//! width`), so panning by whole pixels shows exactly the same columns: no shimmer.

mod group;
mod heavy;
mod naive;
mod persist;
mod pyramid;
mod scan;
#[cfg(test)]
mod tests;

use super::columns::{TimeColumn, ValueColumn};
use crate::null;

pub use heavy::HEAVY_ENTRIES;
pub use naive::{summarize_group_naive, summarize_naive};
pub use pyramid::Pyramid;

use pyramid::Carry;

use heavy::Tally;
use scan::summarize_scan;

/// How a pixel column sums up the values holding in it (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DrawMode {
    /// The value holding the most ticks (null included).
    #[default]
    Dominant,
    /// The time-weighted mean of the non-null values.
    Average,
    /// The largest non-null value.
    Maximum,
    /// The smallest non-null value.
    Minimum,
    /// The value at the column's last tick.
    Last,
    /// One of the non-null values, the same one at every repaint.
    Random,
}

impl DrawMode {
    /// Every mode, in menu order.
    pub const ALL: [DrawMode; 6] = [
        DrawMode::Dominant,
        DrawMode::Average,
        DrawMode::Maximum,
        DrawMode::Minimum,
        DrawMode::Last,
        DrawMode::Random,
    ];

    /// The name the command line and settings use.
    pub fn name(self) -> &'static str {
        match self {
            DrawMode::Dominant => "dominant",
            DrawMode::Average => "average",
            DrawMode::Maximum => "maximum",
            DrawMode::Minimum => "minimum",
            DrawMode::Last => "last",
            DrawMode::Random => "random",
        }
    }

    /// One line for menus and tooltips.
    pub fn description(self) -> &'static str {
        match self {
            DrawMode::Dominant => {
                "the value holding longest in the pixel, no value included (for states and calls)"
            }
            DrawMode::Average => "the time-weighted mean of the pixel's values (for counters)",
            DrawMode::Maximum => "the largest value in the pixel: short bursts stay visible",
            DrawMode::Minimum => "the smallest value in the pixel",
            DrawMode::Last => "the value at the pixel's last instant",
            DrawMode::Random => "one of the pixel's values, picked at random but stable",
        }
    }
}

impl std::fmt::Display for DrawMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DrawMode {
    type Err = String;

    /// The names of [`DrawMode::name`] (any case) and the aliases `mode`, `avg`, `max`, `min`
    /// and `random-non-null`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "dominant" | "mode" => Ok(DrawMode::Dominant),
            "average" | "avg" => Ok(DrawMode::Average),
            "maximum" | "max" => Ok(DrawMode::Maximum),
            "minimum" | "min" => Ok(DrawMode::Minimum),
            "last" => Ok(DrawMode::Last),
            "random" | "random-non-null" => Ok(DrawMode::Random),
            _ => Err(format!(
                "unknown draw mode `{text}`; expected one of dominant (or mode), average (avg), \
                 maximum (max), minimum (min), last, random (random-non-null)"
            )),
        }
    }
}

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

    /// The number of points from `u` on whose time is `t` (at most the end of the row).
    #[inline]
    fn skip_equal(&self, mut u: usize, t: u64) -> usize {
        let n = self.len();
        while u < n && self.t(u) == t {
            u += 1;
        }
        u
    }
}

/// What one pixel column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pixel {
    /// What the column shows in the draw mode, or the sentinel (draw nothing).
    pub value: u64,
    /// Points inside the column after its first tick: 0 means one value covers it whole.
    pub changes: u32,
}

/// A fixed hash of a column's edges: Random's pick (splitmix64's finaliser over both).
pub fn column_hash(a: u64, b: u64) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    mix(a.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ mix(b).rotate_left(23))
}

/// Average's result from the non-null ticks and the weighted sum: the floor of the mean, null
/// without ticks, and a mean that lands on the sentinel moved one below it.
fn mean(ticks: u128, sum: u128, sentinel: u64) -> u64 {
    if ticks == 0 {
        return sentinel;
    }
    let m = u64::try_from(sum / ticks).unwrap_or(u64::MAX);
    if m == sentinel {
        // The sentinel is not 0 here: values are at least 1 when 0 is the sentinel.
        m.saturating_sub(1)
    } else {
        m
    }
}

/// The smaller of two values where `sentinel` means "no value".
#[inline]
fn min_of(a: u64, b: u64, sentinel: u64) -> u64 {
    if a == sentinel {
        b
    } else if b == sentinel {
        a
    } else {
        a.min(b)
    }
}

/// Windows with at most this many points per column on average are summarised by one pass
/// over their points ([`summarize_scan`]); denser ones through the pyramid. A sequential pass
/// costs about a nanosecond per point, a pyramid column (two searches by time and a range
/// maximum) some 80 ns, so the scan wins up to a few dozen points per column, and the bound
/// keeps a frame at O(columns) per row below it and O(columns x log n) above it.
const SCAN_POINTS_PER_COLUMN: usize = 32;

/// Summarises one row over the columns `[edges[k], edges[k + 1])` (`edges` sorted) in `mode`.
pub fn summarize(
    steps: &Steps<'_>,
    pyramid: &Pyramid,
    edges: &[u64],
    mode: DrawMode,
    out: &mut Vec<Pixel>,
) {
    out.clear();
    let (Some(&a0), Some(&last)) = (edges.first(), edges.last()) else {
        return;
    };
    // The number of points at or before the first edge, and at or before the last one.
    let first = steps.time.upper_bound(a0);
    let stop = steps.time.upper_bound(last);
    let columns = edges.len() - 1;
    let sparse = stop.saturating_sub(first) <= SCAN_POINTS_PER_COLUMN.saturating_mul(columns);
    if sparse {
        summarize_scan(steps, edges, first, stop, mode, out);
    } else {
        summarize_pyramid(steps, pyramid, edges, first, mode, out);
    }
}

/// One column of a row as the pyramid path sees it: `[a, b)`, `u` the number of points at or
/// before `a`, `e >= u` the first point from `u` on at or after `b` (inner points are
/// `[u, e)`), and `start` the value at `a`.
#[derive(Debug, Clone, Copy)]
struct Column {
    a: u64,
    b: u64,
    u: usize,
    e: usize,
    start: u64,
}

impl Column {
    fn changes(&self) -> u32 {
        u32::try_from(self.e - self.u).unwrap_or(u32::MAX)
    }
}

/// Walks the columns of `edges` over one row: galloping searches from the previous column.
/// The time of the next point and the value holding are kept, so that a column with no
/// point of the row (most columns of a quiet thread among thousands) reads no column.
struct Cursor<'s, 'a> {
    steps: &'s Steps<'a>,
    pyramid: &'s Pyramid,
    /// Points at or before the next column's first tick.
    u: usize,
    /// The time of point `u` (`u64::MAX` past the last point).
    next_t: u64,
    /// The value of point `u - 1` (the sentinel before the first point).
    start: u64,
}

impl<'s, 'a> Cursor<'s, 'a> {
    fn new(steps: &'s Steps<'a>, pyramid: &'s Pyramid, first: usize) -> Self {
        let mut c = Cursor {
            steps,
            pyramid,
            u: first,
            next_t: 0,
            start: 0,
        };
        c.settle();
        c
    }

    /// Reads the next point's time and the value holding at `u`.
    #[inline]
    fn settle(&mut self) {
        let u = self.u;
        self.next_t = if u < self.steps.len() {
            self.steps.t(u)
        } else {
            u64::MAX
        };
        self.start = if u > 0 {
            self.steps.v(u - 1)
        } else {
            self.steps.sentinel
        };
    }

    /// The column `[a, b)`, `a` being the previous column's end.
    #[inline]
    fn next(&mut self, a: u64, b: u64) -> Column {
        let (u, start) = (self.u, self.start);
        if self.next_t > b {
            // No point in the column nor at its end: the value at `a` holds throughout.
            return Column {
                a,
                b,
                u,
                e: u,
                start,
            };
        }
        let e = self.pyramid.lower_bound_from(self.steps, u, b);
        self.u = self.steps.skip_equal(e, b);
        self.settle();
        Column { a, b, u, e, start }
    }
}

/// [`summarize`] through the pyramid: per column, a galloping search for its last point and
/// the mode's range query. `first` is the number of points at or before the first edge.
fn summarize_pyramid(
    steps: &Steps<'_>,
    pyramid: &Pyramid,
    edges: &[u64],
    first: usize,
    mode: DrawMode,
    out: &mut Vec<Pixel>,
) {
    let none = steps.sentinel;
    match mode {
        DrawMode::Maximum => pyramid_columns(steps, pyramid, edges, first, out, |c| {
            null::max_of(c.start, pyramid.range_max(steps, c.u, c.e), none)
        }),
        DrawMode::Minimum => pyramid_columns(steps, pyramid, edges, first, out, |c| {
            min_of(c.start, pyramid.range_min(steps, c.u, c.e), none)
        }),
        DrawMode::Last => pyramid_columns(steps, pyramid, edges, first, out, |c| steps.v(c.e - 1)),
        DrawMode::Average => {
            let mut carry = Carry::default();
            pyramid_columns(steps, pyramid, edges, first, out, |c| {
                let w = pyramid.weights(steps, c, &mut carry);
                mean(u128::from(w.ticks), w.sum, none)
            });
        }
        DrawMode::Dominant => {
            let mut tally = Tally::default();
            let mut carry = Carry::default();
            pyramid_columns(steps, pyramid, edges, first, out, |c| {
                pyramid.dominant(steps, c, &mut tally, &mut carry)
            });
        }
        DrawMode::Random => pyramid_columns(steps, pyramid, edges, first, out, |c| {
            let lead = u64::from(c.start != none);
            let count = lead + pyramid.non_null_count(steps, c.u, c.e);
            match column_hash(c.a, c.b).checked_rem(count) {
                None => none,
                Some(0) if lead == 1 => c.start,
                Some(k) => pyramid.nth_non_null(steps, c.u, c.e, k - lead),
            }
        }),
    }
}

/// The columns of `edges` over one row: `value` gives what a column with inner points shows;
/// one without shows the value at its first tick, in every mode.
#[inline]
fn pyramid_columns(
    steps: &Steps<'_>,
    pyramid: &Pyramid,
    edges: &[u64],
    first: usize,
    out: &mut Vec<Pixel>,
    mut value: impl FnMut(&Column) -> u64,
) {
    let mut cursor = Cursor::new(steps, pyramid, first);
    for w in edges.windows(2) {
        let col = cursor.next(w[0], w[1]);
        let v = if col.e == col.u {
            col.start
        } else {
            value(&col)
        };
        out.push(Pixel {
            value: v,
            changes: col.changes(),
        });
    }
}

/// Summarises a collapsed task or application: one pixel row for the threads of `rows`
/// (each with its pyramid), in `mode` (see the module docs). Maximum and Minimum combine the
/// threads' own summaries; the other modes walk the threads' pyramids column by column.
pub fn summarize_group(
    rows: &[(Steps<'_>, &Pyramid)],
    edges: &[u64],
    mode: DrawMode,
    out: &mut Vec<Pixel>,
) {
    out.clear();
    let Some(((first_steps, first_pyramid), rest)) = rows.split_first() else {
        // No thread: nothing holds anywhere.
        return;
    };
    let none = first_steps.sentinel;
    if matches!(mode, DrawMode::Maximum | DrawMode::Minimum) {
        summarize(first_steps, first_pyramid, edges, mode, out);
        let mut other = Vec::with_capacity(out.len());
        for (steps, pyramid) in rest {
            summarize(steps, pyramid, edges, mode, &mut other);
            for (p, q) in out.iter_mut().zip(&other) {
                p.value = if mode == DrawMode::Maximum {
                    null::max_of(p.value, q.value, none)
                } else {
                    min_of(p.value, q.value, none)
                };
                p.changes = p.changes.saturating_add(q.changes);
            }
        }
        return;
    }
    let Some(&a0) = edges.first() else {
        return;
    };
    let mut cursors: Vec<Cursor<'_, '_>> = rows
        .iter()
        .map(|(steps, pyramid)| Cursor::new(steps, pyramid, steps.time.upper_bound(a0)))
        .collect();
    if matches!(mode, DrawMode::Average | DrawMode::Dominant) {
        group::summarize_sparse(rows, cursors, edges, mode, none, out);
        return;
    }
    let mut cols: Vec<Column> = Vec::with_capacity(rows.len());
    let mut counts: Vec<u64> = Vec::with_capacity(rows.len());
    for w in edges.windows(2) {
        let (a, b) = (w[0], w[1]);
        cols.clear();
        cols.extend(cursors.iter_mut().map(|c| c.next(a, b)));
        let changes = cols.iter().fold(0u32, |s, c| s.saturating_add(c.changes()));
        let pairs = || rows.iter().map(|r| (&r.0, r.1)).zip(&cols);
        let value = match mode {
            DrawMode::Last => {
                // The thread whose last point before `b` is the latest; the first on ties.
                let mut best: Option<(u64, u64)> = None;
                for ((steps, _), c) in pairs() {
                    if let Some(i) = c.e.checked_sub(1) {
                        let t = steps.t(i);
                        if best.is_none_or(|(bt, _)| t > bt) {
                            best = Some((t, steps.v(i)));
                        }
                    }
                }
                best.map_or(none, |(_, v)| v)
            }
            DrawMode::Random => {
                counts.clear();
                for ((steps, pyramid), c) in pairs() {
                    let lead = u64::from(c.start != none);
                    counts.push(lead + pyramid.non_null_count(steps, c.u, c.e));
                }
                let total: u64 = counts.iter().sum();
                match column_hash(a, b).checked_rem(total) {
                    None => none,
                    Some(mut k) => {
                        let mut pick = none;
                        for (((steps, pyramid), c), &count) in pairs().zip(&counts) {
                            if k < count {
                                let lead = u64::from(c.start != none);
                                pick = if k < lead {
                                    c.start
                                } else {
                                    pyramid.nth_non_null(steps, c.u, c.e, k - lead)
                                };
                                break;
                            }
                            k -= count;
                        }
                        pick
                    }
                }
            }
            // Summarised above.
            DrawMode::Maximum | DrawMode::Minimum | DrawMode::Average | DrawMode::Dominant => none,
        };
        out.push(Pixel { value, changes });
    }
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

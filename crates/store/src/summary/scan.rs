//! The one-pass path of [`super::summarize`] for sparse windows: the points of the window
//! decoded a batch at a time, each draw mode folding them column by column.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Points decoded at a time by [`summarize_scan`].
const SCAN_BATCH: usize = 256;

/// [`summarize`] by one pass over the points `[first, stop)`, where `first` is the number of
/// points at or before the first edge and no point after `stop` is at or before the last one.
/// Exact in every mode.
pub(super) fn summarize_scan(
    steps: &Steps<'_>,
    edges: &[u64],
    first: usize,
    stop: usize,
    mode: DrawMode,
    out: &mut Vec<Pixel>,
) {
    let none = steps.sentinel;
    match mode {
        DrawMode::Maximum if steps.value.keys_are_exact() => {
            summarize_scan_max(steps, edges, first, stop, out);
        }
        DrawMode::Maximum => scan_with(steps, edges, first, stop, out, &mut MaxScan::new(none)),
        DrawMode::Minimum => scan_with(steps, edges, first, stop, out, &mut MinScan::new(none)),
        DrawMode::Last => scan_with(steps, edges, first, stop, out, &mut LastScan::default()),
        DrawMode::Average => scan_with(steps, edges, first, stop, out, &mut AvgScan::new(none)),
        DrawMode::Dominant => scan_with(steps, edges, first, stop, out, &mut DomScan::new(none)),
        DrawMode::Random => scan_with(steps, edges, first, stop, out, &mut RandScan::new(none)),
    }
}

/// Maximum by one pass when values read as exact keys: times and values are decoded a batch at a time into plain arrays,
/// so the inner loops are a comparison per point and a branch-free maximum per column.
fn summarize_scan_max(
    steps: &Steps<'_>,
    edges: &[u64],
    first: usize,
    stop: usize,
    out: &mut Vec<Pixel>,
) {
    let none = steps.sentinel;
    let mut batch = Batch::new(steps, first, stop, true);
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
                    .values
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
            current = batch.values.get(batch.pos).copied().unwrap_or(current);
            batch.pos += 1;
        }
        out.push(Pixel {
            value: value_of(best),
            changes: u32::try_from(changes).unwrap_or(u32::MAX),
        });
    }
}

/// A mode's view of one column in a sequential pass: the value at `a`, the inner points in
/// order, then the end.
trait ScanMode {
    /// A column `[a, b)` with `a < b` starts; `start` holds at `a`.
    fn begin(&mut self, a: u64, b: u64, start: u64);
    /// A point inside the column.
    fn point(&mut self, t: u64, v: u64);
    /// The column ends at `b`; what it shows.
    fn end(&mut self, b: u64) -> u64;
}

/// [`summarize_scan`] for the modes of [`ScanMode`].
fn scan_with(
    steps: &Steps<'_>,
    edges: &[u64],
    first: usize,
    stop: usize,
    out: &mut Vec<Pixel>,
    mode: &mut impl ScanMode,
) {
    let mut batch = Batch::new(steps, first, stop, false);
    // The value holding at the current column's first tick.
    let mut current = if first > 0 {
        steps.v(first - 1)
    } else {
        steps.sentinel
    };
    for w in edges.windows(2) {
        let (a, b) = (w[0], w[1]);
        let at_a = current;
        let mut changes = 0usize;
        if a < b {
            mode.begin(a, b, current);
        }
        while batch.ready() {
            let times = batch.times.get(batch.pos..batch.len).unwrap_or_default();
            let inside = times.iter().position(|&t| t >= b).unwrap_or(times.len());
            let values = batch
                .values
                .get(batch.pos..batch.pos + inside)
                .unwrap_or_default();
            for (&t, &v) in times.iter().zip(values) {
                mode.point(t, v);
            }
            current = values.last().copied().unwrap_or(current);
            changes += inside;
            batch.pos += inside;
            if batch.pos < batch.len {
                break;
            }
        }
        while batch.ready() && batch.times.get(batch.pos) == Some(&b) {
            current = batch.values.get(batch.pos).copied().unwrap_or(current);
            batch.pos += 1;
        }
        out.push(Pixel {
            value: if a < b { mode.end(b) } else { at_a },
            changes: u32::try_from(changes).unwrap_or(u32::MAX),
        });
    }
}

struct MaxScan {
    none: u64,
    best: u64,
}

impl MaxScan {
    fn new(none: u64) -> Self {
        MaxScan { none, best: none }
    }
}

impl ScanMode for MaxScan {
    fn begin(&mut self, _a: u64, _b: u64, start: u64) {
        self.best = start;
    }
    #[inline]
    fn point(&mut self, _t: u64, v: u64) {
        self.best = null::max_of(self.best, v, self.none);
    }
    fn end(&mut self, _b: u64) -> u64 {
        self.best
    }
}

struct MinScan {
    none: u64,
    best: u64,
}

impl MinScan {
    fn new(none: u64) -> Self {
        MinScan { none, best: none }
    }
}

impl ScanMode for MinScan {
    fn begin(&mut self, _a: u64, _b: u64, start: u64) {
        self.best = start;
    }
    #[inline]
    fn point(&mut self, _t: u64, v: u64) {
        self.best = min_of(self.best, v, self.none);
    }
    fn end(&mut self, _b: u64) -> u64 {
        self.best
    }
}

#[derive(Default)]
struct LastScan {
    last: u64,
}

impl ScanMode for LastScan {
    fn begin(&mut self, _a: u64, _b: u64, start: u64) {
        self.last = start;
    }
    #[inline]
    fn point(&mut self, _t: u64, v: u64) {
        self.last = v;
    }
    fn end(&mut self, _b: u64) -> u64 {
        self.last
    }
}

struct AvgScan {
    none: u64,
    value: u64,
    since: u64,
    ticks: u128,
    sum: u128,
}

impl AvgScan {
    fn new(none: u64) -> Self {
        AvgScan {
            none,
            value: none,
            since: 0,
            ticks: 0,
            sum: 0,
        }
    }

    #[inline]
    fn close(&mut self, t: u64) {
        if self.value != self.none {
            let d = t - self.since;
            self.ticks += u128::from(d);
            self.sum += u128::from(d) * u128::from(self.value);
        }
    }
}

impl ScanMode for AvgScan {
    fn begin(&mut self, a: u64, _b: u64, start: u64) {
        (self.value, self.since, self.ticks, self.sum) = (start, a, 0, 0);
    }
    #[inline]
    fn point(&mut self, t: u64, v: u64) {
        self.close(t);
        (self.value, self.since) = (v, t);
    }
    fn end(&mut self, b: u64) -> u64 {
        self.close(b);
        mean(self.ticks, self.sum, self.none)
    }
}

struct DomScan {
    none: u64,
    value: u64,
    since: u64,
    /// (value, ticks) of the column's pieces, null included.
    pieces: Vec<(u64, u64)>,
}

impl DomScan {
    fn new(none: u64) -> Self {
        DomScan {
            none,
            value: none,
            since: 0,
            pieces: Vec::new(),
        }
    }
}

impl ScanMode for DomScan {
    fn begin(&mut self, a: u64, _b: u64, start: u64) {
        (self.value, self.since) = (start, a);
        self.pieces.clear();
    }
    #[inline]
    fn point(&mut self, t: u64, v: u64) {
        if t > self.since {
            self.pieces.push((self.value, t - self.since));
        }
        (self.value, self.since) = (v, t);
    }
    fn end(&mut self, b: u64) -> u64 {
        self.pieces.push((self.value, b - self.since));
        dominant_of(&mut self.pieces, self.none)
    }
}

/// The dominant value of (value, ticks) pieces (null included), exactly: sorts `pieces`.
fn dominant_of(pieces: &mut [(u64, u64)], none: u64) -> u64 {
    pieces.sort_unstable_by_key(|p| p.0);
    let mut best = (none, 0u64);
    let mut k = 0;
    while let Some(&(v, _)) = pieces.get(k) {
        let mut ticks = 0u64;
        while let Some(&(w, t)) = pieces.get(k)
            && w == v
        {
            ticks = ticks.saturating_add(t);
            k += 1;
        }
        if ticks > 0 && heavy::beats(v, ticks, best.0, best.1, none) {
            best = (v, ticks);
        }
    }
    best.0
}

struct RandScan {
    none: u64,
    hash: u64,
    candidates: Vec<u64>,
}

impl RandScan {
    fn new(none: u64) -> Self {
        RandScan {
            none,
            hash: 0,
            candidates: Vec::new(),
        }
    }
}

impl ScanMode for RandScan {
    fn begin(&mut self, a: u64, b: u64, start: u64) {
        self.hash = column_hash(a, b);
        self.candidates.clear();
        self.point(a, start);
    }
    #[inline]
    fn point(&mut self, _t: u64, v: u64) {
        if v != self.none {
            self.candidates.push(v);
        }
    }
    fn end(&mut self, _b: u64) -> u64 {
        let count = self.candidates.len() as u64;
        self.hash
            .checked_rem(count)
            .and_then(|k| self.candidates.get(k as usize).copied())
            .unwrap_or(self.none)
    }
}

/// Decoded points of a row, a batch at a time: `times[pos..len]` and `values[pos..len]` are
/// the points `[next - len + pos, next)` not used yet. Values are keys (null 0, `v` as
/// `v + 1`) when `keys` is set, plain values otherwise.
struct Batch<'s, 'a> {
    steps: &'s Steps<'a>,
    times: [u64; SCAN_BATCH],
    values: [u64; SCAN_BATCH],
    keys: bool,
    next: usize,
    stop: usize,
    len: usize,
    pos: usize,
}

impl<'s, 'a> Batch<'s, 'a> {
    fn new(steps: &'s Steps<'a>, first: usize, stop: usize, keys: bool) -> Self {
        Batch {
            steps,
            times: [0; SCAN_BATCH],
            values: [0; SCAN_BATCH],
            keys,
            next: first,
            stop,
            len: 0,
            pos: 0,
        }
    }

    /// True when an unused point is there, decoding the next batch if needed.
    #[inline]
    fn ready(&mut self) -> bool {
        if self.pos < self.len {
            return true;
        }
        let want = SCAN_BATCH.min(self.stop.saturating_sub(self.next));
        let times = self.times.get_mut(..want).unwrap_or_default();
        let got = self.steps.time.read(self.next, times);
        let values = self.values.get_mut(..got).unwrap_or_default();
        if self.keys {
            self.steps.value.read_keys(self.next, values);
        } else {
            self.steps.value.read(self.next, values);
        }
        self.next += got;
        self.len = got;
        self.pos = 0;
        got > 0
    }
}

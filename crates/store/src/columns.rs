//! Compact columns: times as per-block bases plus 32-bit deltas, values in the narrowest width.
//!
//! A Paraver time is a `u64` tick count, but consecutive records of one thread are close in
//! time, so each block of [`BLOCK`] records keeps one 64-bit base and every record a 32-bit delta
//! from it (as `LTTng` does). A delta that does not fit (a gap of more than 2^32 - 1 ticks, or a
//! time before the base in a column that is not sorted) is stored as [`ESCAPE`] and its full
//! value goes to a small sorted side table, so random access stays O(1) in the common case and
//! O(log escapes) otherwise.
//!
//! Values keep the width of the largest value in the column (8, 16, 32 or 64 bits). The null
//! sentinel is stored as the all-ones value of the narrow width, so a column of small values
//! with a few nulls stays narrow.
//!
//! A column is a list of segments, like Arrow's chunked arrays: the loader parses a trace in
//! chunks, encodes each chunk's records of one thread and type as a segment, and joins the
//! segments of consecutive chunks by moving them instead of copying. Short pieces are appended
//! to the previous segment instead, so that a rare event type does not pay a segment per
//! record. Finding a record by index or time first finds its segment by binary search.

use crate::null;

/// Records per time block.
pub const BLOCK: usize = 256;
/// Delta marking an escaped time.
pub const ESCAPE: u32 = u32::MAX;

/// One segment of a [`TimeColumn`]: a run of `u64` times, stored compactly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeSeg {
    /// Base time of each block of [`BLOCK`] records: the first record's time, or the smallest
    /// time of the block when the column is not sorted.
    bases: Vec<u64>,
    /// Per record: time minus its block's base, or [`ESCAPE`].
    deltas: Vec<u32>,
    /// (record index, full time) of escaped records, sorted by index.
    escapes: Vec<(u32, u64)>,
}

impl TimeSeg {
    /// Builds a column from times (any order; sorted columns are the common case).
    pub fn from_times(times: &[u64]) -> Self {
        Self::from_slice_by(times, |&t| t)
    }

    /// Builds a column from the times `time` gives for the items of `items`.
    pub fn from_slice_by<T>(items: &[T], time: impl Fn(&T) -> u64) -> Self {
        let mut col = TimeSeg {
            bases: Vec::with_capacity(items.len().div_ceil(BLOCK)),
            deltas: Vec::with_capacity(items.len()),
            escapes: Vec::new(),
        };
        for (b, block) in items.chunks(BLOCK).enumerate() {
            let base = block.iter().map(&time).min().unwrap_or(0);
            col.bases.push(base);
            for (j, item) in block.iter().enumerate() {
                let t = time(item);
                let delta = t - base;
                if delta >= u64::from(ESCAPE) {
                    col.deltas.push(ESCAPE);
                    col.escapes.push(((b * BLOCK + j) as u32, t));
                } else {
                    col.deltas.push(delta as u32);
                }
            }
        }
        col
    }

    /// Builds a column from times that come in sorted order, without collecting them first.
    pub fn from_sorted_iter(times: impl IntoIterator<Item = u64>, len_hint: usize) -> Self {
        let mut col = TimeSeg {
            bases: Vec::with_capacity(len_hint.div_ceil(BLOCK)),
            deltas: Vec::with_capacity(len_hint),
            escapes: Vec::new(),
        };
        let mut base = 0u64;
        for t in times {
            let i = col.deltas.len();
            if i.is_multiple_of(BLOCK) {
                base = t;
                col.bases.push(t);
            }
            let delta = t.wrapping_sub(base);
            if t < base || delta >= u64::from(ESCAPE) {
                col.deltas.push(ESCAPE);
                col.escapes.push((i as u32, t));
            } else {
                col.deltas.push(delta as u32);
            }
        }
        col
    }

    /// Concatenates segments whose concatenation is sorted. Works a block at a time
    /// (decode into a buffer, encode from it) so that both loops vectorise.
    pub fn concat_sorted(pieces: &[&TimeSeg]) -> Self {
        let n: usize = pieces.iter().map(|p| p.len()).sum();
        let mut col = TimeSeg {
            bases: Vec::with_capacity(n.div_ceil(BLOCK)),
            deltas: Vec::with_capacity(n),
            escapes: Vec::new(),
        };
        for p in pieces {
            col.append_seg(p);
        }
        col
    }

    /// Appends a segment whose times keep this one sorted.
    fn append_seg(&mut self, other: &TimeSeg) {
        let mut buf = [0u64; BLOCK];
        for (b, deltas) in other.deltas.chunks(BLOCK).enumerate() {
            let base = other.bases.get(b).copied().unwrap_or(0);
            let out = buf.get_mut(..deltas.len()).unwrap_or(&mut []);
            for (o, &d) in out.iter_mut().zip(deltas) {
                *o = base + u64::from(d);
            }
            if deltas.contains(&ESCAPE) {
                for (j, o) in out.iter_mut().enumerate() {
                    if deltas.get(j) == Some(&ESCAPE) {
                        *o = other.get(b * BLOCK + j);
                    }
                }
            }
            self.extend_sorted(out);
        }
    }

    /// Appends times that keep the column sorted.
    pub fn extend_sorted(&mut self, mut times: &[u64]) {
        while !times.is_empty() {
            let i = self.deltas.len();
            let room = BLOCK - i % BLOCK;
            let (now, rest) = times.split_at(room.min(times.len()));
            times = rest;
            if i.is_multiple_of(BLOCK) {
                self.bases.push(now.first().copied().unwrap_or(0));
            }
            let base = self.bases.last().copied().unwrap_or(0);
            let fits = now
                .iter()
                .all(|&t| t >= base && t - base < u64::from(ESCAPE));
            if fits {
                self.deltas.extend(now.iter().map(|&t| (t - base) as u32));
            } else {
                for (j, &t) in now.iter().enumerate() {
                    if t >= base && t - base < u64::from(ESCAPE) {
                        self.deltas.push((t - base) as u32);
                    } else {
                        self.deltas.push(ESCAPE);
                        self.escapes.push(((i + j) as u32, t));
                    }
                }
            }
        }
    }

    /// The first time (for sorted columns, the smallest).
    pub fn first(&self) -> Option<u64> {
        (!self.is_empty()).then(|| self.get(0))
    }

    /// The last time (for sorted columns, the largest).
    pub fn last(&self) -> Option<u64> {
        self.len().checked_sub(1).map(|i| self.get(i))
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.deltas.len()
    }

    /// True when the column holds no record.
    pub fn is_empty(&self) -> bool {
        self.deltas.is_empty()
    }

    /// The time of record `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        let d = self.deltas[i];
        if d == ESCAPE {
            self.escaped(i)
        } else {
            self.bases[i / BLOCK] + u64::from(d)
        }
    }

    #[cold]
    fn escaped(&self, i: usize) -> u64 {
        match self.escapes.binary_search_by_key(&(i as u32), |e| e.0) {
            Ok(k) => self.escapes[k].1,
            Err(_) => unreachable!("escaped delta without an escape entry"),
        }
    }

    /// The first index whose time is not less than `t`, for a column sorted by time.
    pub fn lower_bound(&self, t: u64) -> usize {
        self.partition_point(|x| x < t)
    }

    /// The first index whose time is greater than `t`, for a column sorted by time.
    pub fn upper_bound(&self, t: u64) -> usize {
        self.partition_point(|x| x <= t)
    }

    /// The first index for which `pred` is false, assuming it is true then false along the
    /// column. Searches the block bases first, then inside one block.
    pub fn partition_point(&self, pred: impl Fn(u64) -> bool) -> usize {
        // Bases are the first times of their blocks when the column is sorted.
        let block = self.bases.partition_point(|&b| pred(b));
        let lo = block.saturating_sub(1) * BLOCK;
        let hi = (block * BLOCK).min(self.len());
        let (mut lo, mut hi) = (lo, hi.max(lo));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.get(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Iterates over all times.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Decodes the times of records `start..` into `out`, as many as fit and exist; returns
    /// how many. Sequential decoding, for scans that would otherwise call [`Self::get`] per
    /// record.
    pub fn read(&self, start: usize, out: &mut [u64]) -> usize {
        let deltas = self.deltas.get(start..).unwrap_or_default();
        let n = deltas.len().min(out.len());
        let mut done = 0;
        while done < n {
            let i = start + done;
            let base = self.bases.get(i / BLOCK).copied().unwrap_or(0);
            let run = (BLOCK - i % BLOCK).min(n - done);
            let (Some(d), Some(o)) = (deltas.get(done..done + run), out.get_mut(done..done + run))
            else {
                break;
            };
            for (o, &d) in o.iter_mut().zip(d) {
                *o = base + u64::from(d);
            }
            if d.contains(&ESCAPE) {
                for (j, o) in o.iter_mut().enumerate() {
                    if d.get(j) == Some(&ESCAPE) {
                        *o = self.escaped(i + j);
                    }
                }
            }
            done += run;
        }
        done
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.bases.capacity() * 8 + self.deltas.capacity() * 4 + self.escapes.capacity() * 16
    }
}

/// One segment of a [`ValueColumn`]: `u64` values stored in the narrowest width that holds
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueSeg {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Default for ValueSeg {
    fn default() -> Self {
        ValueSeg::U8(Vec::new())
    }
}

impl ValueSeg {
    /// Builds a column; `sentinel` (the null value) is stored as the narrow width's maximum.
    pub fn from_values(values: &[u64], sentinel: u64) -> Self {
        Self::from_pieces(&[values], sentinel)
    }

    /// Builds a column from the values `value` gives for the items of `items`.
    pub fn from_slice_by<T>(items: &[T], sentinel: u64, value: impl Fn(&T) -> u64) -> Self {
        let max = items
            .iter()
            .map(&value)
            .filter(|&v| v != sentinel)
            .max()
            .unwrap_or(0);
        Self::from_slice_with_max(items, sentinel, max, value)
    }

    /// Builds a segment when the largest non-null value, `max`, is already known.
    pub fn from_slice_with_max<T>(
        items: &[T],
        sentinel: u64,
        max: u64,
        value: impl Fn(&T) -> u64,
    ) -> Self {
        let n = items.len();
        let all = items.iter().map(&value);
        if max < u64::from(u8::MAX) {
            ValueSeg::U8(narrow_iter(all, n, sentinel, u8::MAX, |v| v as u8))
        } else if max < u64::from(u16::MAX) {
            ValueSeg::U16(narrow_iter(all, n, sentinel, u16::MAX, |v| v as u16))
        } else if max < u64::from(u32::MAX) {
            ValueSeg::U32(narrow_iter(all, n, sentinel, u32::MAX, |v| v as u32))
        } else {
            ValueSeg::U64(all.collect())
        }
    }

    /// Builds a column from the concatenation of `pieces`.
    pub fn from_pieces(pieces: &[&[u64]], sentinel: u64) -> Self {
        // A narrow width holds values strictly below its maximum, which is kept for null.
        fn narrow<T: Copy>(
            pieces: &[&[u64]],
            sentinel: u64,
            null: T,
            cast: impl Fn(u64) -> T,
        ) -> Vec<T> {
            let mut out = Vec::with_capacity(pieces.iter().map(|p| p.len()).sum());
            for p in pieces {
                out.extend(
                    p.iter()
                        .map(|&v| if v == sentinel { null } else { cast(v) }),
                );
            }
            out
        }
        let max = pieces
            .iter()
            .flat_map(|p| p.iter().copied())
            .filter(|&v| v != sentinel)
            .max()
            .unwrap_or(0);
        if max < u64::from(u8::MAX) {
            ValueSeg::U8(narrow(pieces, sentinel, u8::MAX, |v| v as u8))
        } else if max < u64::from(u16::MAX) {
            ValueSeg::U16(narrow(pieces, sentinel, u16::MAX, |v| v as u16))
        } else if max < u64::from(u32::MAX) {
            ValueSeg::U32(narrow(pieces, sentinel, u32::MAX, |v| v as u32))
        } else {
            ValueSeg::U64(pieces.concat())
        }
    }

    /// Bytes per value.
    pub fn width(&self) -> usize {
        match self {
            Self::U8(_) => 1,
            Self::U16(_) => 2,
            Self::U32(_) => 4,
            Self::U64(_) => 8,
        }
    }

    /// Appends the values of a segment that is not wider than this one.
    fn append_seg(&mut self, other: &ValueSeg, sentinel: u64) {
        let n = other.len();
        let values = (0..n).map(|i| other.get(i, sentinel));
        match self {
            Self::U8(v) => v.extend(values.map(|x| if x == sentinel { u8::MAX } else { x as u8 })),
            Self::U16(v) => {
                v.extend(values.map(|x| if x == sentinel { u16::MAX } else { x as u16 }));
            }
            Self::U32(v) => {
                v.extend(values.map(|x| if x == sentinel { u32::MAX } else { x as u32 }));
            }
            Self::U64(v) => v.extend(values),
        }
    }

    /// Concatenates segments; the result has the width `from_values` would pick for all the
    /// values (the widest of the pieces).
    pub fn concat(pieces: &[&ValueSeg], sentinel: u64) -> Self {
        let width = pieces.iter().map(|p| p.width()).max().unwrap_or(1);
        let n: usize = pieces.iter().map(|p| p.len()).sum();
        // Pieces of the result's width are copied as they are (null has the same encoding);
        // narrower ones are widened value by value.
        macro_rules! join {
            ($variant:ident, $t:ty, $null:expr) => {{
                let mut out: Vec<$t> = Vec::with_capacity(n);
                for p in pieces {
                    if let ValueSeg::$variant(v) = p {
                        out.extend_from_slice(v);
                    } else {
                        out.extend((0..p.len()).map(|i| {
                            let v = p.get(i, sentinel);
                            if v == sentinel { $null } else { v as $t }
                        }));
                    }
                }
                ValueSeg::$variant(out)
            }};
        }
        match width {
            1 => join!(U8, u8, u8::MAX),
            2 => join!(U16, u16, u16::MAX),
            4 => join!(U32, u32, u32::MAX),
            _ => join!(U64, u64, sentinel),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Self::U8(v) => v.len(),
            Self::U16(v) => v.len(),
            Self::U32(v) => v.len(),
            Self::U64(v) => v.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i`, with the narrow null marker turned back into `sentinel`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[inline]
    pub fn get(&self, i: usize, sentinel: u64) -> u64 {
        match self {
            Self::U8(v) => widen(v[i], u8::MAX, sentinel),
            Self::U16(v) => widen(v[i], u16::MAX, sentinel),
            Self::U32(v) => widen(v[i], u32::MAX, sentinel),
            Self::U64(v) => v[i],
        }
    }

    /// Decodes values `start..` into `out` (null as `sentinel`), as many as fit and exist;
    /// returns how many.
    pub fn read(&self, start: usize, out: &mut [u64], sentinel: u64) -> usize {
        fn copy<T: Into<u64> + PartialEq + Copy>(
            v: &[T],
            start: usize,
            out: &mut [u64],
            max: T,
            sentinel: u64,
        ) -> usize {
            let v = v.get(start..).unwrap_or_default();
            let n = v.len().min(out.len());
            for (o, &x) in out.iter_mut().zip(v) {
                *o = widen(x, max, sentinel);
            }
            n
        }
        match self {
            Self::U8(v) => copy(v, start, out, u8::MAX, sentinel),
            Self::U16(v) => copy(v, start, out, u16::MAX, sentinel),
            Self::U32(v) => copy(v, start, out, u32::MAX, sentinel),
            Self::U64(v) => {
                let v = v.get(start..).unwrap_or_default();
                let n = v.len().min(out.len());
                out.get_mut(..n)
                    .unwrap_or_default()
                    .copy_from_slice(v.get(..n).unwrap_or_default());
                n
            }
        }
    }

    /// Decodes values `start..` into `out` as order-preserving keys: null (the sentinel) is
    /// 0 and a value `v` is `v + 1`, so the largest non-null value is a plain maximum. Exact
    /// unless a non-null value is `u64::MAX` (see [`ValueColumn::keys_are_exact`]).
    pub fn read_keys(&self, start: usize, out: &mut [u64], sentinel: u64) -> usize {
        // The narrow null is the all-ones value, which wraps to 0.
        macro_rules! keys {
            ($v:expr) => {{
                let v = $v.get(start..).unwrap_or_default();
                for (o, &x) in out.iter_mut().zip(v) {
                    *o = u64::from(x.wrapping_add(1));
                }
                v.len().min(out.len())
            }};
        }
        match self {
            Self::U8(v) => keys!(v),
            Self::U16(v) => keys!(v),
            Self::U32(v) => keys!(v),
            Self::U64(v) => {
                let v = v.get(start..).unwrap_or_default();
                for (o, &x) in out.iter_mut().zip(v) {
                    *o = null::key(x, sentinel);
                }
                v.len().min(out.len())
            }
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Self::U8(v) => v.capacity(),
            Self::U16(v) => v.capacity() * 2,
            Self::U32(v) => v.capacity() * 4,
            Self::U64(v) => v.capacity() * 8,
        }
    }
}

/// Pieces at least this long are moved into a column as segments; shorter ones are copied
/// onto the end of the last segment.
pub const MOVE_MIN: usize = 1024;

/// What a column needs from its segments.
pub trait Segment {
    /// Number of records.
    fn seg_len(&self) -> usize;
    /// Heap bytes held.
    fn seg_heap_bytes(&self) -> usize;
}

impl Segment for TimeSeg {
    fn seg_len(&self) -> usize {
        self.len()
    }
    fn seg_heap_bytes(&self) -> usize {
        self.heap_bytes()
    }
}

impl Segment for ValueSeg {
    fn seg_len(&self) -> usize {
        self.len()
    }
    fn seg_heap_bytes(&self) -> usize {
        self.heap_bytes()
    }
}

/// A list of segments with the index of each one's first record: the part that
/// [`TimeColumn`] and [`ValueColumn`] share.
#[derive(Debug, Clone)]
pub struct Segments<S> {
    segs: Vec<S>,
    /// Index of the first record of each segment; same length as `segs`.
    starts: Vec<usize>,
    len: usize,
}

impl<S> Default for Segments<S> {
    fn default() -> Self {
        Segments {
            segs: Vec::new(),
            starts: Vec::new(),
            len: 0,
        }
    }
}

impl<S: Segment> Segments<S> {
    fn single(seg: S) -> Self {
        let mut out = Segments::default();
        out.push(seg);
        out
    }

    /// Adds a segment at the end (empty ones are dropped).
    fn push(&mut self, seg: S) {
        let n = seg.seg_len();
        if n > 0 {
            self.starts.push(self.len);
            self.len += n;
            self.segs.push(seg);
        }
    }

    /// Joins pieces: a piece shorter than [`MOVE_MIN`] records whose segments the last
    /// segment `can` take is appended to it by `append`; other pieces have their segments
    /// moved in.
    fn join(
        pieces: Vec<Segments<S>>,
        can: impl Fn(&S, &S) -> bool,
        mut append: impl FnMut(&mut S, &S),
    ) -> Self {
        let mut out = Segments::default();
        for p in pieces {
            if p.len < MOVE_MIN
                && let Some(last) = out.segs.last_mut()
                && p.segs.iter().all(|s| can(last, s))
            {
                for seg in &p.segs {
                    append(last, seg);
                }
                out.len += p.len;
                continue;
            }
            for seg in p.segs {
                out.push(seg);
            }
        }
        out
    }

    /// Decodes records `start..` into `out` with `read` (a segment's decoder), crossing
    /// segments; returns how many.
    fn read(
        &self,
        start: usize,
        out: &mut [u64],
        read: impl Fn(&S, usize, &mut [u64]) -> usize,
    ) -> usize {
        let mut done = 0;
        while done < out.len() && start + done < self.len {
            let (k, j) = self.locate(start + done);
            let (Some(seg), Some(rest)) = (self.segs.get(k), out.get_mut(done..)) else {
                break;
            };
            let got = read(seg, j, rest);
            if got == 0 {
                break;
            }
            done += got;
        }
        done
    }

    /// The segment holding record `i` and the index inside it.
    #[inline]
    fn locate(&self, i: usize) -> (usize, usize) {
        if self.segs.len() == 1 {
            return (0, i);
        }
        let k = self.starts.partition_point(|&s| s <= i).saturating_sub(1);
        (k, i - self.starts.get(k).copied().unwrap_or(0))
    }

    fn heap_bytes(&self) -> usize {
        self.segs.capacity() * std::mem::size_of::<S>()
            + self.starts.capacity() * 8
            + self.segs.iter().map(Segment::seg_heap_bytes).sum::<usize>()
    }
}

/// A column of `u64` times: segments of compact times (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct TimeColumn {
    segs: Segments<TimeSeg>,
}

impl TimeColumn {
    fn single(seg: TimeSeg) -> Self {
        TimeColumn {
            segs: Segments::single(seg),
        }
    }

    /// Builds a column from times (any order; sorted columns are the common case).
    pub fn from_times(times: &[u64]) -> Self {
        Self::single(TimeSeg::from_times(times))
    }

    /// Builds a column from the times `time` gives for the items of `items`.
    pub fn from_slice_by<T>(items: &[T], time: impl Fn(&T) -> u64) -> Self {
        Self::single(TimeSeg::from_slice_by(items, time))
    }

    /// Builds a column from times that come in sorted order.
    pub fn from_sorted_iter(times: impl IntoIterator<Item = u64>, len_hint: usize) -> Self {
        Self::single(TimeSeg::from_sorted_iter(times, len_hint))
    }

    /// Builds a column from items whose times are sorted (one pass: block bases are the
    /// blocks' first times).
    pub fn from_sorted_slice_by<T>(items: &[T], time: impl Fn(&T) -> u64) -> Self {
        Self::single(TimeSeg::from_sorted_iter(
            items.iter().map(time),
            items.len(),
        ))
    }

    /// Joins columns whose concatenation is sorted, moving long pieces' segments and copying
    /// short pieces onto the previous segment.
    pub fn join_sorted(pieces: Vec<TimeColumn>) -> Self {
        let pieces = pieces.into_iter().map(|p| p.segs).collect();
        TimeColumn {
            segs: Segments::join(pieces, |_, _| true, TimeSeg::append_seg),
        }
    }

    /// Concatenates columns whose concatenation is sorted into one segment (a copy).
    pub fn concat_sorted(pieces: &[&TimeColumn]) -> Self {
        let segs: Vec<&TimeSeg> = pieces.iter().flat_map(|p| &p.segs.segs).collect();
        Self::single(TimeSeg::concat_sorted(&segs))
    }

    /// The first time (for sorted columns, the smallest).
    pub fn first(&self) -> Option<u64> {
        self.segs.segs.first().and_then(TimeSeg::first)
    }

    /// The last time (for sorted columns, the largest).
    pub fn last(&self) -> Option<u64> {
        self.segs.segs.last().and_then(TimeSeg::last)
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.segs.len
    }

    /// True when the column holds no record.
    pub fn is_empty(&self) -> bool {
        self.segs.len == 0
    }

    /// Number of segments.
    pub fn segment_count(&self) -> usize {
        self.segs.segs.len()
    }

    /// The time of record `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        let (k, j) = self.segs.locate(i);
        self.segs.segs[k].get(j)
    }

    /// The first index whose time is not less than `t`, for a column sorted by time.
    pub fn lower_bound(&self, t: u64) -> usize {
        self.partition_point(|x| x < t)
    }

    /// The first index whose time is greater than `t`, for a column sorted by time.
    pub fn upper_bound(&self, t: u64) -> usize {
        self.partition_point(|x| x <= t)
    }

    /// The first index for which `pred` is false, assuming it is true then false along the
    /// column: finds the segment by its first time, then searches inside it.
    pub fn partition_point(&self, pred: impl Fn(u64) -> bool) -> usize {
        let segs = &self.segs.segs;
        let k = segs.partition_point(|s| s.first().is_some_and(&pred));
        let Some(seg) = k.checked_sub(1) else {
            return 0;
        };
        let start = self.segs.starts.get(seg).copied().unwrap_or(0);
        start + segs.get(seg).map_or(0, |s| s.partition_point(&pred))
    }

    /// Iterates over all times.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.segs.segs.iter().flat_map(TimeSeg::iter)
    }

    /// Decodes the times of records `start..` into `out`, as many as fit and exist; returns
    /// how many.
    pub fn read(&self, start: usize, out: &mut [u64]) -> usize {
        self.segs.read(start, out, TimeSeg::read)
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.segs.heap_bytes()
    }
}

impl PartialEq for TimeColumn {
    /// Columns are equal when they hold the same times, however they are segmented.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for TimeColumn {}

/// A column of `u64` values: segments in the narrowest width each (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct ValueColumn {
    segs: Segments<ValueSeg>,
    /// The null sentinel the column was built with (64-bit segments store it as it is).
    sentinel: u64,
}

impl ValueColumn {
    fn single(seg: ValueSeg, sentinel: u64) -> Self {
        ValueColumn {
            segs: Segments::single(seg),
            sentinel,
        }
    }

    /// Builds a column; `sentinel` (the null value) is stored as the narrow width's maximum.
    pub fn from_values(values: &[u64], sentinel: u64) -> Self {
        Self::single(ValueSeg::from_values(values, sentinel), sentinel)
    }

    /// Builds a column from the values `value` gives for the items of `items`.
    pub fn from_slice_by<T>(items: &[T], sentinel: u64, value: impl Fn(&T) -> u64) -> Self {
        Self::single(ValueSeg::from_slice_by(items, sentinel, value), sentinel)
    }

    /// Builds a column when the largest non-null value, `max`, is already known.
    pub fn from_slice_with_max<T>(
        items: &[T],
        sentinel: u64,
        max: u64,
        value: impl Fn(&T) -> u64,
    ) -> Self {
        Self::single(
            ValueSeg::from_slice_with_max(items, sentinel, max, value),
            sentinel,
        )
    }

    /// Joins columns, moving long pieces' segments and copying short pieces onto the previous
    /// segment when it is at least as wide.
    pub fn join(pieces: Vec<ValueColumn>, sentinel: u64) -> Self {
        let pieces = pieces.into_iter().map(|p| p.segs).collect();
        ValueColumn {
            segs: Segments::join(
                pieces,
                |last, seg| seg.width() <= last.width(),
                |last, seg| last.append_seg(seg, sentinel),
            ),
            sentinel,
        }
    }

    /// Concatenates columns into one segment (a copy) of the widest width.
    pub fn concat(pieces: &[&ValueColumn], sentinel: u64) -> Self {
        let segs: Vec<&ValueSeg> = pieces.iter().flat_map(|p| &p.segs.segs).collect();
        Self::single(ValueSeg::concat(&segs, sentinel), sentinel)
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.segs.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.segs.len == 0
    }

    /// Bytes per value of the widest segment (1, 2, 4 or 8; 1 when empty).
    pub fn width(&self) -> usize {
        self.segs
            .segs
            .iter()
            .map(ValueSeg::width)
            .max()
            .unwrap_or(1)
    }

    /// Value `i`, with the narrow null marker turned back into the sentinel.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        let sentinel = self.sentinel;
        let (k, j) = self.segs.locate(i);
        self.segs.segs[k].get(j, sentinel)
    }

    /// The largest value of `[i, j)` that is not null, or the sentinel when there is
    /// none: each segment is located once and scanned as a plain slice.
    pub fn max_in(&self, i: usize, j: usize) -> u64 {
        let sentinel = self.sentinel;
        // A narrow width keeps its all-ones value for null and holds values below it, so
        // adding one (wrapping) turns null into 0 and keeps the order: a branch-free maximum
        // that vectorises.
        macro_rules! scan {
            ($v:expr, $acc:expr) => {{
                let key = $v
                    .iter()
                    .fold(0, |best, &value| best.max(value.wrapping_add(1)));
                match key {
                    0 => $acc,
                    top => {
                        let found = u64::from(top - 1);
                        Some($acc.map_or(found, |prev: u64| prev.max(found)))
                    }
                }
            }};
        }
        let mut acc: Option<u64> = None;
        let mut pos = i;
        while pos < j {
            let (k, start) = self.segs.locate(pos);
            let Some(seg) = self.segs.segs.get(k) else {
                break;
            };
            let end = (start + (j - pos)).min(seg.len());
            acc = match seg {
                ValueSeg::U8(v) => scan!(&v[start..end], acc),
                ValueSeg::U16(v) => scan!(&v[start..end], acc),
                ValueSeg::U32(v) => scan!(&v[start..end], acc),
                ValueSeg::U64(v) => match null::max_non_null(&v[start..end], sentinel) {
                    best if best == sentinel => acc,
                    best => Some(acc.map_or(best, |prev| prev.max(best))),
                },
            };
            pos += end - start;
            if end == start {
                break;
            }
        }
        acc.unwrap_or(sentinel)
    }

    /// Decodes values `start..` into `out` (null as the sentinel), as many as fit and exist;
    /// returns how many.
    pub fn read(&self, start: usize, out: &mut [u64]) -> usize {
        let sentinel = self.sentinel;
        self.segs
            .read(start, out, |seg, j, out| seg.read(j, out, sentinel))
    }

    /// Decodes values `start..` into `out` as keys (see [`ValueSeg::read_keys`]); returns how
    /// many.
    pub fn read_keys(&self, start: usize, out: &mut [u64]) -> usize {
        let sentinel = self.sentinel;
        self.segs
            .read(start, out, |seg, j, out| seg.read_keys(j, out, sentinel))
    }

    /// True when [`Self::read_keys`] is exact: no non-null value can be `u64::MAX` (the
    /// sentinel is `u64::MAX`, or every segment is narrow).
    pub fn keys_are_exact(&self) -> bool {
        self.sentinel == u64::MAX || self.width() < 8
    }

    /// Iterates over all values.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let sentinel = self.sentinel;
        self.segs
            .segs
            .iter()
            .flat_map(move |s| (0..s.len()).map(move |i| s.get(i, sentinel)))
    }

    /// The null sentinel the column was built with: what its reads return for null.
    pub fn sentinel(&self) -> u64 {
        self.sentinel
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.segs.heap_bytes()
    }
}

impl PartialEq for ValueColumn {
    /// Columns are equal when they hold the same values, however they are segmented and
    /// whatever widths their segments have.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for ValueColumn {}

fn narrow_iter<T: Copy>(
    values: impl Iterator<Item = u64>,
    n: usize,
    sentinel: u64,
    null: T,
    cast: impl Fn(u64) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(n);
    out.extend(values.map(|v| if v == sentinel { null } else { cast(v) }));
    out
}

#[inline]
#[allow(clippy::needless_pass_by_value)] // small Copy integers
fn widen<T: Into<u64> + PartialEq + Copy>(v: T, max: T, sentinel: u64) -> u64 {
    if v == max { sentinel } else { v.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_with_escapes_and_unsorted_values() {
        let mut times: Vec<u64> = (0..1000).map(|i| i * 1_000_000).collect();
        times.push(u64::MAX - 1);
        times.push(5);
        times.extend((0..600).map(|i| 10_000_000_000 + i));
        let col = TimeSeg::from_times(&times);
        let back: Vec<u64> = col.iter().collect();
        assert_eq!(back, times);
        assert!(!col.escapes.is_empty());
    }

    #[test]
    fn reads_cross_segments_and_escapes() {
        // Segments of 1500 and 2100 records (moved, not copied), escapes in both, values of
        // two widths with nulls.
        let times: Vec<u64> = (0..3600u64)
            .map(|i| i * 3 + if i > 700 { 1 << 40 } else { 0 } + if i > 2000 { 1 << 50 } else { 0 })
            .collect();
        let s = u64::MAX;
        let values: Vec<u64> = (0..3600u64)
            .map(|i| match i % 9 {
                0 => s,
                _ if i > 1500 => i * 1000,
                _ => i % 200,
            })
            .collect();
        let time = TimeColumn::join_sorted(vec![
            TimeColumn::from_times(&times[..1500]),
            TimeColumn::from_times(&times[1500..]),
        ]);
        let value = ValueColumn::join(
            vec![
                ValueColumn::from_values(&values[..1500], s),
                ValueColumn::from_values(&values[1500..], s),
            ],
            s,
        );
        assert_eq!(time.segment_count(), 2);
        for (start, want) in [
            (0, 10),
            (250, 300),
            (1490, 40),
            (3590, 64),
            (3600, 5),
            (0, 3600),
        ] {
            let mut t = vec![0; want];
            let mut v = vec![0; want];
            let got = time.read(start, &mut t);
            assert_eq!(got, want.min(3600 - start), "times from {start}");
            assert_eq!(value.read(start, &mut v), got, "values from {start}");
            assert_eq!(t[..got], times[start..start + got], "times from {start}");
            assert_eq!(v[..got], values[start..start + got], "values from {start}");
            if got > 0 {
                let best = values[start..start + got]
                    .iter()
                    .copied()
                    .filter(|&x| x != s)
                    .max();
                assert_eq!(value.max_in(start, start + got), best.unwrap_or(s));
                assert_eq!(null::max_non_null(&v[..got], s), best.unwrap_or(s));
            }
        }
        // A real u64::MAX when the sentinel is another number.
        assert_eq!(null::max_non_null(&[3, u64::MAX, 7], 7), u64::MAX);
        assert_eq!(null::max_non_null(&[7, 7], 7), 7);
    }

    #[test]
    fn concatenated_pieces_equal_one_column() {
        // Gaps beyond 32 bits inside and between pieces force escapes.
        let times: Vec<u64> = (0..1000u64)
            .map(|i| {
                i * i * 1000 + if i > 500 { 1 << 40 } else { 0 } + if i > 900 { 1 << 50 } else { 0 }
            })
            .collect();
        let pieces: Vec<TimeColumn> = times.chunks(77).map(TimeColumn::from_times).collect();
        let refs: Vec<&TimeColumn> = pieces.iter().collect();
        assert_eq!(
            TimeColumn::concat_sorted(&refs),
            TimeColumn::from_times(&times)
        );
        let s = u64::MAX;
        let values: Vec<u64> = (0..1000u64)
            .map(|i| if i % 7 == 0 { s } else { i * i })
            .collect();
        let pieces: Vec<ValueColumn> = values
            .chunks(300)
            .map(|c| ValueColumn::from_values(c, s))
            .collect();
        let refs: Vec<&ValueColumn> = pieces.iter().collect();
        assert_eq!(
            ValueColumn::concat(&refs, s),
            ValueColumn::from_values(&values, s)
        );
    }

    #[test]
    fn bounds_on_sorted_column() {
        let times: Vec<u64> = (0..2000u64)
            .map(|i| (i / 3) * 7 + (i % 3) * (1 << 33))
            .collect();
        let mut times = times;
        times.sort_unstable();
        let col = TimeColumn::from_times(&times);
        check_bounds(
            &col,
            &times,
            &[0, 1, 7, 8, 100, 4666, 1 << 33, (1 << 34) + 5, u64::MAX],
        );
    }

    /// Binary searches of `col` agree with those of the plain `times`.
    fn check_bounds(col: &TimeColumn, times: &[u64], probes: &[u64]) {
        for &t in probes {
            let lower = times.partition_point(|&x| x < t);
            let upper = times.partition_point(|&x| x <= t);
            assert_eq!(col.lower_bound(t), lower, "t={t}");
            assert_eq!(col.upper_bound(t), upper, "t={t}");
        }
    }

    #[test]
    fn joined_columns_move_long_pieces_and_copy_short_ones() {
        let s = u64::MAX;
        let times: Vec<u64> = (0..10_000u64)
            .map(|i| i * 3 + (i / 4000) * (1 << 33))
            .collect();
        let values: Vec<u64> = (0..10_000u64)
            .map(|i| if i % 5 == 0 { s } else { i % 300 })
            .collect();
        // Pieces of 3000, 10, 10, 2980, 4000 records.
        let cuts = [0, 3000, 3010, 3020, 6000, 10_000];
        let tp: Vec<TimeColumn> = cuts
            .windows(2)
            .map(|w| TimeColumn::from_times(&times[w[0]..w[1]]))
            .collect();
        let vp: Vec<ValueColumn> = cuts
            .windows(2)
            .map(|w| ValueColumn::from_values(&values[w[0]..w[1]], s))
            .collect();
        let t = TimeColumn::join_sorted(tp);
        let v = ValueColumn::join(vp, s);
        assert_eq!(
            t.segment_count(),
            3,
            "the two short pieces join the first segment"
        );
        assert_eq!(t.iter().collect::<Vec<_>>(), times);
        assert_eq!(v.iter().collect::<Vec<_>>(), values);
        for i in [0, 2999, 3000, 3015, 3020, 5999, 6000, 9999] {
            assert_eq!(t.get(i), times[i]);
            assert_eq!(v.get(i), values[i]);
        }
        let probes = [
            0,
            1,
            8999,
            9000,
            9001,
            1 << 33,
            (1 << 33) + 12_000,
            u64::MAX,
        ];
        check_bounds(&t, &times, &probes);
        assert_eq!(t, TimeColumn::from_times(&times));
        assert_eq!(v, ValueColumn::from_values(&values, s));
    }

    #[test]
    fn values_pick_narrow_width_and_keep_null() {
        let s = u64::MAX;
        let col = ValueColumn::from_values(&[0, 3, s, 254], s);
        assert_eq!(col.width(), 1);
        assert_eq!(
            (0..4).map(|i| col.get(i)).collect::<Vec<_>>(),
            vec![0, 3, s, 254]
        );
        let col = ValueColumn::from_values(&[255, s], s);
        assert_eq!(col.width(), 2);
        assert_eq!(col.get(0), 255);
        assert_eq!(col.get(1), s);
        let col = ValueColumn::from_values(&[u64::from(u32::MAX), 1], s);
        assert_eq!(col.width(), 8);
        // A custom sentinel: the all-ones narrow value maps back to it.
        let col = ValueColumn::from_values(&[42, 1, 0], 42);
        assert_eq!(col.get(0), 42);
        assert_eq!(col.get(2), 0);
    }
}

//! Times: [`TimeSeg`], a run of times as block bases and 32-bit deltas, and [`TimeColumn`],
//! a list of them.

use std::sync::Arc;

use super::slab::{Placed, Slab, SlabWriter, slab_bytes};
use super::{Buf, Segments};

/// Records per time block.
pub const BLOCK: usize = 256;
/// Delta marking an escaped time.
pub const ESCAPE: u32 = u32::MAX;

/// One segment of a [`TimeColumn`]: a run of `u64` times, stored compactly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeSeg {
    /// Base time of each block of [`BLOCK`] records: the first record's time, or the smallest
    /// time of the block when the column is not sorted.
    pub(super) bases: Buf<u64>,
    /// Per record: time minus its block's base, or [`ESCAPE`].
    pub(super) deltas: Buf<u32>,
    /// (record index, full time) of escaped records, sorted by index.
    pub(super) escapes: Vec<(u32, u64)>,
}

/// A [`TimeSeg`] copied into a slab that is still being filled.
#[derive(Debug)]
pub struct PlacedTime {
    bases: Placed<u64>,
    deltas: Placed<u32>,
    escapes: Vec<(u32, u64)>,
}

impl PlacedTime {
    /// The segment in the filled slab `map`.
    pub fn seg(&self, map: &Arc<Slab>) -> Option<TimeSeg> {
        Some(TimeSeg {
            bases: self.bases.buf(map)?,
            deltas: self.deltas.buf(map)?,
            escapes: self.escapes.clone(),
        })
    }
}

impl TimeSeg {
    /// Builds a column from times (any order; sorted columns are the common case).
    pub fn from_times(times: &[u64]) -> Self {
        Self::from_slice_by(times, |&t| t)
    }

    /// Builds a column from the times `time` gives for the items of `items`.
    pub fn from_slice_by<T>(items: &[T], time: impl Fn(&T) -> u64) -> Self {
        let mut col = TimeSeg {
            bases: Buf::with_capacity(items.len().div_ceil(BLOCK)),
            deltas: Buf::with_capacity(items.len()),
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
            bases: Buf::with_capacity(len_hint.div_ceil(BLOCK)),
            deltas: Buf::with_capacity(len_hint),
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
            bases: Buf::with_capacity(n.div_ceil(BLOCK)),
            deltas: Buf::with_capacity(n),
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
            self.extend_by(out, |&t| t);
        }
    }

    /// Appends the times `time` gives for `items`. Times that keep the segment sorted are
    /// stored compactly; any others are kept exactly too (as escapes), so a segment built
    /// from unsorted runs decodes to its times in the order given.
    ///
    /// One pass per block: the deltas are written as they are computed, and only a block
    /// part with a time that does not fit (before its block's base, or too far after it) is
    /// written again, time by time.
    pub fn extend_by<T>(&mut self, mut items: &[T], time: impl Fn(&T) -> u64) {
        while let Some(first) = items.first() {
            let i = self.deltas.len();
            let room = BLOCK - i % BLOCK;
            let (now, rest) = items.split_at(room.min(items.len()));
            items = rest;
            if i.is_multiple_of(BLOCK) {
                self.bases.push(time(first));
            }
            let base = self.bases.last().copied().unwrap_or(0);
            let deltas = self.deltas.to_mut();
            // A time before the base wraps to a delta of 2^32 or more: escaped as well.
            let mut far = false;
            deltas.extend(now.iter().map(|item| {
                let delta = time(item).wrapping_sub(base);
                far |= delta >= u64::from(ESCAPE);
                delta as u32
            }));
            if far {
                deltas.truncate(i);
                for (j, item) in now.iter().enumerate() {
                    let t = time(item);
                    let delta = t.wrapping_sub(base);
                    if delta < u64::from(ESCAPE) {
                        deltas.push(delta as u32);
                    } else {
                        deltas.push(ESCAPE);
                        self.escapes.push(((i + j) as u32, t));
                    }
                }
            }
        }
    }

    /// Times the segment holds room for.
    pub fn capacity(&self) -> usize {
        self.deltas.capacity()
    }

    /// Makes room for exactly `total` times in all (nothing when there is room).
    pub fn reserve_total(&mut self, total: usize) {
        self.deltas.reserve_total(total);
        self.bases.reserve_total(total.div_ceil(BLOCK) + 1);
    }

    /// Makes room for `additional` more times.
    pub fn reserve(&mut self, additional: usize) {
        self.deltas.reserve(additional);
        self.bases.reserve(additional.div_ceil(BLOCK) + 1);
    }

    /// The segment in arrays of its exact size, leaving `self` empty with its room kept (a
    /// parse encodes its next chunk into the same, already touched, memory).
    #[must_use]
    pub fn take_keeping_room(&mut self) -> Self {
        let out = self.clone();
        self.clear_keeping_room();
        out
    }

    /// Empties the segment, keeping its room.
    pub fn clear_keeping_room(&mut self) {
        self.bases.clear();
        self.deltas.clear();
        self.escapes.clear();
    }

    /// The bytes [`Self::place`] takes in a slab.
    pub fn slab_bytes(&self) -> usize {
        slab_bytes::<u64>(self.bases.len()) + slab_bytes::<u32>(self.deltas.len())
    }

    /// Copies the segment's arrays into `slab`: once the slab is filled,
    /// [`PlacedTime::seg`] is the segment in it.
    pub fn place(&self, slab: &mut SlabWriter) -> Option<PlacedTime> {
        Some(PlacedTime {
            bases: slab.put(&self.bases)?,
            deltas: slab.put(&self.deltas)?,
            escapes: self.escapes.clone(),
        })
    }

    /// Gives back the room not used.
    pub fn shrink_to_fit(&mut self) {
        self.deltas.shrink_to_fit();
        self.bases.shrink_to_fit();
        self.escapes.shrink_to_fit();
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
        self.bases.heap_bytes() + self.deltas.heap_bytes() + self.escapes.capacity() * 16
    }
}

/// A column of `u64` times: segments of compact times (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct TimeColumn {
    pub(super) segs: Segments<TimeSeg>,
}

impl TimeColumn {
    fn single(seg: TimeSeg) -> Self {
        TimeColumn {
            segs: Segments::single(seg),
        }
    }

    /// A column of one segment.
    pub fn from_seg(seg: TimeSeg) -> Self {
        Self::single(seg)
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
        let start = self.segs.seg_start(seg);
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
    /// Bytes of its times that lie in slabs (see [`super::SlabWriter`]).
    pub fn shared_bytes(&self) -> usize {
        self.segs
            .segs
            .iter()
            .map(|s| s.bases.shared_bytes() + s.deltas.shared_bytes())
            .sum()
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

//! Values: [`ValueSeg`], a run of values in the narrowest width, and [`ValueColumn`], a list
//! of them with the null sentinel they were built with.

use std::sync::Arc;

use super::slab::{Placed, Slab, SlabWriter, slab_bytes};
use super::{Buf, Segments};
use crate::null;

/// One segment of a [`ValueColumn`]: `u64` values stored in the narrowest width that holds
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueSeg {
    U8(Buf<u8>),
    U16(Buf<u16>),
    U32(Buf<u32>),
    U64(Buf<u64>),
}

impl Default for ValueSeg {
    fn default() -> Self {
        ValueSeg::U8(Buf::default())
    }
}

/// The width in bytes of the narrowest segment for values up to `max` (the null sentinel
/// apart).
fn width_for(max: u64) -> usize {
    if max < u64::from(u8::MAX) {
        1
    } else if max < u64::from(u16::MAX) {
        2
    } else if max < u64::from(u32::MAX) {
        4
    } else {
        8
    }
}

/// A [`ValueSeg`] copied into a slab that is still being filled.
#[derive(Debug)]
pub enum PlacedValue {
    U8(Placed<u8>),
    U16(Placed<u16>),
    U32(Placed<u32>),
    U64(Placed<u64>),
}

impl PlacedValue {
    /// The segment in the filled slab `map`.
    pub fn seg(&self, map: &Arc<Slab>) -> Option<ValueSeg> {
        Some(match self {
            Self::U8(p) => ValueSeg::U8(p.buf(map)?),
            Self::U16(p) => ValueSeg::U16(p.buf(map)?),
            Self::U32(p) => ValueSeg::U32(p.buf(map)?),
            Self::U64(p) => ValueSeg::U64(p.buf(map)?),
        })
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
        match width_for(max) {
            1 => ValueSeg::U8(narrow_iter(all, n, sentinel, u8::MAX, |v| v as u8)),
            2 => ValueSeg::U16(narrow_iter(all, n, sentinel, u16::MAX, |v| v as u16)),
            4 => ValueSeg::U32(narrow_iter(all, n, sentinel, u32::MAX, |v| v as u32)),
            _ => ValueSeg::U64(all.collect()),
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
        match width_for(max) {
            1 => ValueSeg::U8(narrow(pieces, sentinel, u8::MAX, |v| v as u8).into()),
            2 => ValueSeg::U16(narrow(pieces, sentinel, u16::MAX, |v| v as u16).into()),
            4 => ValueSeg::U32(narrow(pieces, sentinel, u32::MAX, |v| v as u32).into()),
            _ => ValueSeg::U64(pieces.concat().into()),
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
    /// Appends the values `value` gives for `items`, `max` being the largest of them that is
    /// not `sentinel`: the segment is widened first when `max` needs it (building a segment a
    /// run of values at a time, as a parse goes).
    pub fn extend_with_max<T>(
        &mut self,
        items: &[T],
        sentinel: u64,
        max: u64,
        value: impl Fn(&T) -> u64,
    ) {
        let need = width_for(max);
        if need > self.width() {
            let old = std::mem::take(self);
            let values = (0..old.len()).map(|i| old.get(i, sentinel));
            let n = old.len() + items.len();
            *self = match need {
                2 => ValueSeg::U16(narrow_iter(values, n, sentinel, u16::MAX, |v| v as u16)),
                4 => ValueSeg::U32(narrow_iter(values, n, sentinel, u32::MAX, |v| v as u32)),
                _ => ValueSeg::U64(narrow_iter(values, n, sentinel, sentinel, |v| v)),
            };
        }
        let all = items.iter().map(value);
        match self {
            Self::U8(v) => v.extend(all.map(|x| if x == sentinel { u8::MAX } else { x as u8 })),
            Self::U16(v) => v.extend(all.map(|x| if x == sentinel { u16::MAX } else { x as u16 })),
            Self::U32(v) => v.extend(all.map(|x| if x == sentinel { u32::MAX } else { x as u32 })),
            Self::U64(v) => v.extend(all),
        }
    }

    /// Makes room for exactly `total` values in all at the present width (nothing when
    /// there is room).
    pub fn reserve_total(&mut self, total: usize) {
        match self {
            Self::U8(v) => v.reserve_total(total),
            Self::U16(v) => v.reserve_total(total),
            Self::U32(v) => v.reserve_total(total),
            Self::U64(v) => v.reserve_total(total),
        }
    }

    /// Makes room for `additional` more values.
    pub fn reserve(&mut self, additional: usize) {
        match self {
            Self::U8(v) => v.reserve(additional),
            Self::U16(v) => v.reserve(additional),
            Self::U32(v) => v.reserve(additional),
            Self::U64(v) => v.reserve(additional),
        }
    }

    /// The segment in the narrowest width for `max`, its largest value that is not
    /// `sentinel`, in an array of its exact size, leaving `self` empty with its room and
    /// width kept (a parse encodes its next chunk into the same, already touched, memory).
    #[must_use]
    pub fn take_keeping_room(&mut self, max: u64, sentinel: u64) -> Self {
        let out = if width_for(max) == self.width() {
            self.clone()
        } else {
            let mut values = vec![0; self.len()];
            self.read(0, &mut values, sentinel);
            Self::from_slice_with_max(&values, sentinel, max, |&v| v)
        };
        self.clear_keeping_room();
        out
    }

    /// Empties the segment, keeping its room and width.
    pub fn clear_keeping_room(&mut self) {
        match self {
            Self::U8(v) => v.clear(),
            Self::U16(v) => v.clear(),
            Self::U32(v) => v.clear(),
            Self::U64(v) => v.clear(),
        }
    }

    /// The bytes [`Self::place`] takes in a slab.
    pub fn slab_bytes(&self, max: u64) -> usize {
        match width_for(max) {
            1 => slab_bytes::<u8>(self.len()),
            2 => slab_bytes::<u16>(self.len()),
            4 => slab_bytes::<u32>(self.len()),
            _ => slab_bytes::<u64>(self.len()),
        }
    }

    /// Copies the segment into `slab` in the narrowest width for `max`, its largest value
    /// that is not `sentinel` (what [`Self::take_keeping_room`] gives): once the slab is
    /// filled, [`PlacedValue::seg`] is the segment in it.
    pub fn place(&self, max: u64, sentinel: u64, slab: &mut SlabWriter) -> Option<PlacedValue> {
        if width_for(max) != self.width() {
            let mut values = vec![0; self.len()];
            self.read(0, &mut values, sentinel);
            return Self::from_slice_with_max(&values, sentinel, max, |&v| v)
                .place(max, sentinel, slab);
        }
        Some(match self {
            Self::U8(v) => PlacedValue::U8(slab.put(v)?),
            Self::U16(v) => PlacedValue::U16(slab.put(v)?),
            Self::U32(v) => PlacedValue::U32(slab.put(v)?),
            Self::U64(v) => PlacedValue::U64(slab.put(v)?),
        })
    }

    /// Gives back the room not used.
    pub fn shrink_to_fit(&mut self) {
        match self {
            Self::U8(v) => v.shrink_to_fit(),
            Self::U16(v) => v.shrink_to_fit(),
            Self::U32(v) => v.shrink_to_fit(),
            Self::U64(v) => v.shrink_to_fit(),
        }
    }

    fn append_seg(&mut self, other: &ValueSeg, sentinel: u64) {
        // Same width: the encodings (null included) are the same.
        match (&mut *self, other) {
            (Self::U8(v), Self::U8(o)) => return v.extend_from_slice(o),
            (Self::U16(v), Self::U16(o)) => return v.extend_from_slice(o),
            (Self::U32(v), Self::U32(o)) => return v.extend_from_slice(o),
            (Self::U64(v), Self::U64(o)) => return v.extend_from_slice(o),
            _ => {}
        }
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
                ValueSeg::$variant(out.into())
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
            Self::U8(v) => v.heap_bytes(),
            Self::U16(v) => v.heap_bytes(),
            Self::U32(v) => v.heap_bytes(),
            Self::U64(v) => v.heap_bytes(),
        }
    }
}

/// A column of `u64` values: segments in the narrowest width each (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct ValueColumn {
    pub(super) segs: Segments<ValueSeg>,
    /// The null sentinel the column was built with (64-bit segments store it as it is).
    pub(super) sentinel: u64,
}

impl ValueColumn {
    fn single(seg: ValueSeg, sentinel: u64) -> Self {
        ValueColumn {
            segs: Segments::single(seg),
            sentinel,
        }
    }

    /// A column of one segment.
    pub fn from_seg(seg: ValueSeg, sentinel: u64) -> Self {
        Self::single(seg, sentinel)
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

    /// The smallest value of `[i, j)` that is not null, or the sentinel when there is none:
    /// each segment is located once and scanned as a plain slice.
    pub fn min_in(&self, i: usize, j: usize) -> u64 {
        let sentinel = self.sentinel;
        // A narrow width keeps its all-ones value for null and holds values below it, so a
        // plain minimum skips null unless nothing else is there.
        macro_rules! scan {
            ($v:expr, $null:expr, $acc:expr) => {{
                let low = $v.iter().fold($null, |best, &value| best.min(value));
                if low == $null {
                    $acc
                } else {
                    let found = u64::from(low);
                    Some($acc.map_or(found, |prev: u64| prev.min(found)))
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
                ValueSeg::U8(v) => scan!(&v[start..end], u8::MAX, acc),
                ValueSeg::U16(v) => scan!(&v[start..end], u16::MAX, acc),
                ValueSeg::U32(v) => scan!(&v[start..end], u32::MAX, acc),
                ValueSeg::U64(v) => v[start..end]
                    .iter()
                    .copied()
                    .filter(|&x| x != sentinel)
                    .min()
                    .map_or(acc, |low| Some(acc.map_or(low, |prev| prev.min(low)))),
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
) -> Buf<T> {
    let mut out = Vec::with_capacity(n);
    out.extend(values.map(|v| if v == sentinel { null } else { cast(v) }));
    out.into()
}

#[inline]
#[allow(clippy::needless_pass_by_value)] // small Copy integers
fn widen<T: Into<u64> + PartialEq + Copy>(v: T, max: T, sentinel: u64) -> u64 {
    if v == max { sentinel } else { v.into() }
}

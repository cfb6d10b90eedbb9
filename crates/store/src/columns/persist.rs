//! Columns written to and read from the store cache ([`crate::cache`]): each array is written
//! once, aligned, into the data part of the file; the directory holds where it is, and reading
//! a column back maps its arrays in place.

use super::{Buf, Mapped, Segments, TimeColumn, TimeSeg, ValueColumn, ValueSeg};
use crate::cache::{Dec, Enc};

/// Where arrays go: appends `bytes` aligned to 8 and returns their offset in the file.
pub trait Sink {
    fn array(&mut self, bytes: &[u8]) -> std::io::Result<u64>;
    /// Ends the checksummed section the arrays so far belong to (sections are checked in
    /// parallel: large parts are cut into several).
    fn end_section(&mut self);
}

pub(crate) fn put_array<T: bytemuck::Pod>(
    sink: &mut impl Sink,
    enc: &mut Enc,
    xs: &[T],
) -> std::io::Result<()> {
    let at = sink.array(bytemuck::cast_slice(xs))?;
    enc.u64(at);
    enc.u64(xs.len() as u64);
    Ok(())
}

pub(crate) fn get_array<T: bytemuck::Pod>(dec: &mut Dec<'_>, map: &Mapped) -> Option<Buf<T>> {
    let at = usize::try_from(dec.u64()?).ok()?;
    let len = usize::try_from(dec.u64()?).ok()?;
    Buf::mapped(map, at, len)
}

impl TimeColumn {
    pub(crate) fn persist(&self, sink: &mut impl Sink, enc: &mut Enc) -> std::io::Result<()> {
        enc.u32(self.segs.segs.len() as u32);
        for seg in &self.segs.segs {
            put_array(sink, enc, &seg.bases)?;
            put_array(sink, enc, &seg.deltas)?;
            enc.u32(seg.escapes.len() as u32);
            for &(i, t) in &seg.escapes {
                enc.u32(i);
                enc.u64(t);
            }
        }
        Ok(())
    }

    /// Reads a column back; `None` when the directory does not describe a valid column (its
    /// arrays outside the file, lengths that disagree, an escape without its marker). The
    /// arrays themselves are not read here: their section's checksum vouches for them.
    pub(crate) fn restore(dec: &mut Dec<'_>, map: &Mapped) -> Option<Self> {
        let n = dec.u32()?;
        let mut segs = Segments::default();
        for _ in 0..n {
            let bases: Buf<u64> = get_array(dec, map)?;
            let deltas: Buf<u32> = get_array(dec, map)?;
            let k = dec.u32()?;
            let mut escapes = Vec::with_capacity((k as usize).min(dec.remaining() / 12));
            for _ in 0..k {
                escapes.push((dec.u32()?, dec.u64()?));
            }
            let valid = bases.len() == deltas.len().div_ceil(super::BLOCK)
                && escapes.windows(2).all(|w| w[0].0 < w[1].0)
                && escapes
                    .iter()
                    .all(|&(i, _)| deltas.get(i as usize) == Some(&super::ESCAPE));
            if !valid || deltas.is_empty() {
                return None;
            }
            segs.push(TimeSeg {
                bases,
                deltas,
                escapes,
            });
        }
        Some(TimeColumn { segs })
    }
}

impl ValueColumn {
    pub(crate) fn persist(&self, sink: &mut impl Sink, enc: &mut Enc) -> std::io::Result<()> {
        enc.u64(self.sentinel);
        enc.u32(self.segs.segs.len() as u32);
        for seg in &self.segs.segs {
            enc.u32(seg.width() as u32);
            match seg {
                ValueSeg::U8(v) => put_array(sink, enc, v.as_slice())?,
                ValueSeg::U16(v) => put_array(sink, enc, v.as_slice())?,
                ValueSeg::U32(v) => put_array(sink, enc, v.as_slice())?,
                ValueSeg::U64(v) => put_array(sink, enc, v.as_slice())?,
            }
        }
        Ok(())
    }

    pub(crate) fn restore(dec: &mut Dec<'_>, map: &Mapped) -> Option<Self> {
        let sentinel = dec.u64()?;
        let n = dec.u32()?;
        let mut segs = Segments::default();
        for _ in 0..n {
            let seg = match dec.u32()? {
                1 => ValueSeg::U8(get_array(dec, map)?),
                2 => ValueSeg::U16(get_array(dec, map)?),
                4 => ValueSeg::U32(get_array(dec, map)?),
                8 => ValueSeg::U64(get_array(dec, map)?),
                _ => return None,
            };
            if seg.is_empty() {
                return None;
            }
            segs.push(seg);
        }
        Some(ValueColumn { segs, sentinel })
    }
}

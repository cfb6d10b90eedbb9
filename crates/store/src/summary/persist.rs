//! Pyramids written to and read from the store cache (see [`crate::cache`]): their arrays
//! are mapped in place; the heavy hitters' tree (only rows of more than eight distinct values
//! have one) is read back into memory.

use super::heavy::Heavy;
use super::pyramid::{Pyramid, Weighing};
use crate::cache::{Dec, Enc};
use crate::columns::Mapped;
use crate::columns::persist::{Sink, get_array, put_array};

impl Pyramid {
    pub(crate) fn persist(&self, sink: &mut impl Sink, enc: &mut Enc) -> std::io::Result<()> {
        for levels in [&self.max, &self.min] {
            enc.u32(levels.len() as u32);
            for l in levels {
                put_array(sink, enc, l.as_slice())?;
            }
        }
        put_array(sink, enc, self.block_times.as_slice())?;
        put_array(sink, enc, self.non_null.as_slice())?;
        match &self.weighing {
            Weighing::Empty => enc.u8(0),
            Weighing::Dict { values, ticks } => {
                enc.u8(1);
                enc.u32(values.len() as u32);
                for &v in values {
                    enc.u64(v);
                }
                put_array(sink, enc, ticks.as_slice())?;
            }
            Weighing::Sums { sums, heavy } => {
                enc.u8(2);
                put_array(sink, enc, sums.as_slice())?;
                let parts: Vec<_> = heavy.parts().collect();
                enc.u32(parts.len() as u32);
                for (ends, entries) in parts {
                    put_array(sink, enc, ends)?;
                    let flat: Vec<[u64; 2]> = entries.iter().map(|&(v, t)| [v, t]).collect();
                    put_array(sink, enc, &flat)?;
                }
            }
        }
        Ok(())
    }

    /// Reads a pyramid back; `None` when the directory does not describe one whose arrays
    /// agree in length.
    pub(crate) fn restore(dec: &mut Dec<'_>, map: &Mapped) -> Option<Self> {
        let mut both = Vec::with_capacity(2);
        for _ in 0..2 {
            let n = dec.u32()? as usize;
            let mut levels = Vec::with_capacity(n.min(64));
            for _ in 0..n {
                levels.push(get_array(dec, map)?);
            }
            both.push(levels);
        }
        let min = both.pop()?;
        let max = both.pop()?;
        let block_times = get_array(dec, map)?;
        let non_null = get_array::<u32>(dec, map)?;
        let blocks = block_times.len();
        let weighing = match dec.u8()? {
            0 => Weighing::Empty,
            1 => {
                let k = dec.u32()? as usize;
                let mut values = Vec::with_capacity(k.min(64));
                for _ in 0..k {
                    values.push(dec.u64()?);
                }
                let ticks = get_array(dec, map)?;
                if ticks.len() != blocks * k {
                    return None;
                }
                Weighing::Dict { values, ticks }
            }
            2 => {
                let sums = get_array(dec, map)?;
                let n = dec.u32()? as usize;
                let mut parts = Vec::with_capacity(n.min(64));
                for _ in 0..n {
                    let ends = get_array::<u32>(dec, map)?;
                    let flat = get_array::<[u64; 2]>(dec, map)?;
                    parts.push((ends.to_vec(), flat.iter().map(|&[v, t]| (v, t)).collect()));
                }
                Weighing::Sums {
                    sums,
                    heavy: Heavy::from_parts(parts)?,
                }
            }
            _ => return None,
        };
        let first = max
            .first()
            .map_or(0, |l: &crate::columns::Buf<u64>| l.len());
        let agree = max.len() == min.len()
            && first == blocks
            && min.first().map_or(0, |l| l.len()) == blocks
            && non_null.len() == blocks + 1;
        agree.then_some(Pyramid {
            max,
            min,
            block_times,
            non_null,
            weighing,
        })
    }
}

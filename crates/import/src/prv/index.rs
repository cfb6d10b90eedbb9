//! The small hash indexes of a chunk's parse: rows by line prefix bytes, and event buffers
//! by (row, type).

/// Rows by the bytes of a line's `kind:cpu:appl:task:thread:` prefix, for prefixes of up to
/// 16 bytes. Lines of many threads interleave in most traces, so the previous line rarely has
/// the same prefix; looking the 16 bytes up here replaces parsing four numbers and finding the
/// row. A small open-addressing table keyed by the prefix bytes (zero-padded).
#[derive(Debug, Default)]
pub(super) struct PrefixIndex {
    /// (key, row, prefix length); length 0 marks a free slot. Power-of-two size, at most half
    /// full.
    slots: Vec<(u128, u32, u8)>,
    len: usize,
}

impl PrefixIndex {
    /// The 16 bytes at `p` and a mask of the bytes that are `:`, one bit per byte.
    #[inline]
    fn load(bytes: &[u8], at: usize) -> Option<(u128, u32)> {
        const LOW7: u128 = 0x7F7F_7F7F_7F7F_7F7F_7F7F_7F7F_7F7F_7F7F;
        let word = u128::from_le_bytes(*bytes.get(at..)?.first_chunk::<16>()?);
        // Exact zero-byte test on word ^ ':::...': a byte's high bit ends up set iff it was ':'.
        let y = word ^ 0x3A3A_3A3A_3A3A_3A3A_3A3A_3A3A_3A3A_3A3A;
        let t = !(((y & LOW7) + LOW7) | y | LOW7);
        // Gather the 16 high bits into a 16-bit mask (a multiply moves bit 7 of byte i to
        // bit 56 + i).
        let gather = |x: u64| {
            ((((x >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56) as u32
        };
        let mask = gather(t as u64) | (gather((t >> 64) as u64) << 8);
        Some((word, mask))
    }

    /// The key of the prefix at `p`: its bytes up to and including the fifth `:`.
    #[inline]
    fn key(b: &[u8], p: usize) -> Option<(u128, usize)> {
        let (w, mut mask) = Self::load(b, p)?;
        for _ in 0..4 {
            if mask == 0 {
                return None;
            }
            mask &= mask - 1;
        }
        if mask == 0 {
            return None;
        }
        let len = mask.trailing_zeros() as usize + 1;
        let keep = if len >= 16 {
            u128::MAX
        } else {
            (1u128 << (8 * len)) - 1
        };
        Some((w & keep, len))
    }

    #[inline]
    fn slot_of(key: u128, mask: usize) -> usize {
        let h = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 32) as usize & mask
    }

    /// The row of the line at `p` whose prefix (up to and including its fifth `:`) is `len`
    /// bytes long, if that prefix was seen before.
    #[inline]
    pub(super) fn find(&self, b: &[u8], p: usize, len: usize) -> Option<u32> {
        if self.len == 0 || len > 16 {
            return None;
        }
        let word = u128::from_le_bytes(*b.get(p..)?.first_chunk::<16>()?);
        let keep = if len >= 16 {
            u128::MAX
        } else {
            (1u128 << (8 * len)) - 1
        };
        let key = word & keep;
        let mask = self.slots.len() - 1;
        let mut slot = Self::slot_of(key, mask);
        loop {
            let &(k, row, l) = self.slots.get(slot)?;
            if l == 0 {
                return None;
            }
            if k == key && usize::from(l) == len {
                return Some(row);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Remembers the row of the prefix of `len` bytes at `p`.
    pub(super) fn insert(&mut self, b: &[u8], p: usize, len: usize, row: u32) {
        let Some((key, key_len)) = Self::key(b, p) else {
            return;
        };
        if key_len != len || self.len >= 1 << 16 {
            return;
        }
        if (self.len + 1) * 2 > self.slots.len() {
            let size = (self.slots.len() * 2).max(256);
            let old = std::mem::replace(&mut self.slots, vec![(0, 0, 0); size]);
            self.len = 0;
            for (k, r, l) in old {
                if l != 0 {
                    self.put(k, r, l);
                }
            }
        }
        self.put(key, row, len as u8);
    }

    fn put(&mut self, key: u128, row: u32, len: u8) {
        let mask = self.slots.len() - 1;
        let mut slot = Self::slot_of(key, mask);
        while let Some(&(k, _, l)) = self.slots.get(slot) {
            if l == 0 || (k == key && l == len) {
                break;
            }
            slot = (slot + 1) & mask;
        }
        if let Some(s) = self.slots.get_mut(slot) {
            if s.2 == 0 {
                self.len += 1;
            }
            *s = (key, row, len);
        }
    }
}

/// (row, event type) key -> dense index: a small open-addressing hash table with linear
/// probing and a multiplicative hash. It is looked up once per event pair, so it must cost a
/// few instructions, not a `SipHash` (a direct-mapped cache in front of `HashMap` thrashed on
/// colliding keys).
#[derive(Debug, Default)]
pub(super) struct KeyIndex {
    /// (key, index); `EMPTY` keys are free. The length is a power of two, at most half full.
    slots: Vec<(u64, u32)>,
    len: usize,
}

impl KeyIndex {
    /// Keys are `row << 32 | type` with rows below 2^24, so this is never a key.
    const EMPTY: u64 = u64::MAX;

    #[inline]
    fn slot_of(key: u64, mask: usize) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
    }

    #[inline]
    pub(super) fn get_or_insert(&mut self, key: u64, insert: impl FnOnce() -> usize) -> usize {
        // Look up first; the table only grows on the (rare) insertion path.
        let mask = self.slots.len().wrapping_sub(1);
        let mut slot = Self::slot_of(key, mask);
        while let Some(&(k, i)) = self.slots.get(slot) {
            if k == key {
                return i as usize;
            }
            if k == Self::EMPTY {
                break;
            }
            slot = (slot + 1) & mask;
        }
        self.insert(key, insert())
    }

    #[cold]
    fn insert(&mut self, key: u64, i: usize) -> usize {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut slot = Self::slot_of(key, mask);
        while self.slots.get(slot).is_some_and(|e| e.0 != Self::EMPTY) {
            slot = (slot + 1) & mask;
        }
        if let Some(s) = self.slots.get_mut(slot) {
            *s = (key, i as u32);
        }
        self.len += 1;
        i
    }

    #[cold]
    fn grow(&mut self) {
        let new_len = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![(Self::EMPTY, 0); new_len]);
        let mask = new_len - 1;
        for (k, i) in old.into_iter().filter(|e| e.0 != Self::EMPTY) {
            let mut slot = Self::slot_of(k, mask);
            while self.slots.get(slot).is_some_and(|e| e.0 != Self::EMPTY) {
                slot = (slot + 1) & mask;
            }
            if let Some(s) = self.slots.get_mut(slot) {
                *s = (k, i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_keys_end_at_the_fifth_colon() {
        let line = b"2:24:1:6:4:46:60000019:5:60000119:5\n";
        let (_, len) = PrefixIndex::key(line, 0).unwrap();
        assert_eq!(len, 11);
        let mut idx = PrefixIndex::default();
        idx.insert(line, 0, 11, 7);
        let other = b"1:24:1:6:4:99:100:1\n.....";
        assert_eq!(idx.find(line, 0, 11), Some(7));
        assert_eq!(idx.find(line, 0, 10), None);
        assert_eq!(idx.find(other, 0, 11), None);
        // A prefix longer than 16 bytes is not indexed.
        assert!(PrefixIndex::key(b"2:1234:1:1234:1234:5:6:7:8:9:0", 0).is_none());
    }
}

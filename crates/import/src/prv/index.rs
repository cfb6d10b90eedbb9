//! The small hash index of a chunk's parse: event buffers by (row, type).

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

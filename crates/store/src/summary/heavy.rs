//! Dominant for rows with many distinct values: weighted Misra-Gries summaries over nodes of
//! 32 points, 128 and so on, and the tally a column adds them into.
//!
//! A summary of a node keeps at most [`HEAVY_ENTRIES`] = K values with counts `c(v)` such
//! that, with `T(v)` the ticks `v` truly holds in the node, `N` the node's non-null ticks and
//! `S` the sum of the kept counts, `T(v) - (N - S) / (K + 1) <= c(v) <= T(v)` for every value
//! (absent values count 0). It is exact when the node holds at most K distinct non-null
//! values. Summaries merge by adding counts and then, when more than K values remain,
//! subtracting the (K+1)-th largest count from all and dropping those left at zero: each
//! subtraction of `d` removes at least `(K + 1) d` from `S`, so the bound holds for the merge
//! (Agarwal et al., "Mergeable summaries", 2012). A leaf knows its values' true ticks, so it
//! can also keep only its largest values as long as every value left out holds at most
//! `1 / (K + 1)` of the ticks left out, which is the same bound with fewer entries: a leaf of
//! values spread flat (a counter's) keeps none, and neither do the nodes above it.
//!
//! A column reads the points between its ends and the first and last node boundaries exactly
//! (at most 31 on each side) and the summaries of the nodes between. Its [`Tally`] adds
//! counts exactly (a hash table once it holds more than a few values), so the column's counts
//! are short by at most the sum of the nodes' shortfalls: `N / (K + 1)` for the column's `N`.
//! Only past [`TALLY_CAP`] values (groups of many threads) does the tally subtract the same
//! way, which keeps the bound.
//!
//! The smallest nodes are 32 points rather than the pyramid's blocks of 16: 16 values spread
//! flat do not let a leaf drop its tail (each holds more than 1/9 of the rest), 32 mostly do,
//! so a counter's summaries stay empty; and reading a few more points at a column's ends costs
//! less than the memory of 16-point summaries of categorical rows. (64-point nodes saved 2 %
//! of a counter row's index and made its Dominant 20 to 40 % slower in the bench.)

use super::Steps;
use super::pyramid::{BLOCK, FANOUT, for_durations};

/// Values kept per node summary (K).
pub const HEAVY_ENTRIES: usize = 8;
/// Points per node of the first summary level.
pub(super) const HEAVY_LEAF: usize = 2 * BLOCK;
/// Values a [`Tally`] keeps before it subtracts (down to half as many).
const TALLY_CAP: usize = 4096;
/// Values a [`Tally`] searches linearly before it builds its hash table.
const TALLY_LINEAR: usize = 12;

/// The summaries of one level: node `k` holds `entries[ends[k - 1]..ends[k]]`, as
/// (value, ticks) sorted by value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Level {
    ends: Vec<u32>,
    entries: Vec<(u64, u64)>,
}

impl Level {
    fn with_capacity(nodes: usize) -> Self {
        Level {
            ends: Vec::with_capacity(nodes),
            entries: Vec::new(),
        }
    }

    fn node(&self, k: usize) -> &[(u64, u64)] {
        let start = match k.checked_sub(1) {
            Some(p) => self.ends.get(p).copied().unwrap_or(0) as usize,
            None => 0,
        };
        let end = self.ends.get(k).copied().unwrap_or(0) as usize;
        self.entries.get(start..end).unwrap_or_default()
    }

    /// Appends a node made of `items` (any order, repeated values allowed): a leaf's exact
    /// ticks, or its children's summaries.
    fn push(&mut self, items: &mut Vec<(u64, u64)>, leaf: bool, scratch: &mut Vec<u64>) {
        condense(items, HEAVY_ENTRIES, leaf, scratch);
        self.entries.extend_from_slice(items);
        self.ends
            .push(u32::try_from(self.entries.len()).unwrap_or(u32::MAX));
    }

    fn heap_bytes(&self) -> usize {
        self.ends.capacity() * 4 + self.entries.capacity() * 16
    }
}

/// One level of the tree as the store cache keeps it: node ends and (value, ticks) entries.
pub(super) type LevelParts = (Vec<u32>, Vec<(u64, u64)>);

/// Heavy-hitter summaries: leaves of [`HEAVY_LEAF`] points, then nodes of `FANOUT`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Heavy {
    levels: Vec<Level>,
    scratch: Vec<u64>,
}

impl Heavy {
    /// Each level's node ends and entries (for the store cache).
    pub(super) fn parts(&self) -> impl Iterator<Item = (&[u32], &[(u64, u64)])> {
        self.levels
            .iter()
            .map(|l| (l.ends.as_slice(), l.entries.as_slice()))
    }

    /// The tree whose levels are `parts` (as [`Self::parts`] gave them); `None` when a
    /// level's ends do not fit its entries.
    pub(super) fn from_parts(parts: Vec<LevelParts>) -> Option<Self> {
        let mut levels = Vec::with_capacity(parts.len());
        for (ends, entries) in parts {
            let fits = ends.windows(2).all(|w| w[0] <= w[1])
                && ends.last().is_none_or(|&e| e as usize <= entries.len());
            if !fits {
                return None;
            }
            levels.push(Level { ends, entries });
        }
        Some(Heavy {
            levels,
            scratch: Vec::new(),
        })
    }

    /// An empty tree about to receive `blocks` leaves.
    pub fn with_leaves(blocks: usize) -> Self {
        Heavy {
            levels: vec![Level::with_capacity(blocks)],
            scratch: Vec::new(),
        }
    }

    /// Appends the next leaf: the (value, ticks) of its non-null points.
    pub fn push_leaf(&mut self, items: &mut Vec<(u64, u64)>) {
        if let Some(level) = self.levels.first_mut() {
            level.push(items, true, &mut self.scratch);
        }
    }

    /// Builds the levels above the leaves, up to one of at most `FANOUT` nodes.
    pub fn finish(&mut self) {
        let mut items = Vec::with_capacity(FANOUT * HEAVY_ENTRIES);
        while let Some(last) = self.levels.last()
            && last.ends.len() > FANOUT
        {
            let nodes = last.ends.len().div_ceil(FANOUT);
            let mut next = Level::with_capacity(nodes);
            for k in 0..nodes {
                items.clear();
                for child in k * FANOUT..((k + 1) * FANOUT).min(last.ends.len()) {
                    items.extend_from_slice(last.node(child));
                }
                next.push(&mut items, false, &mut self.scratch);
            }
            self.levels.push(next);
        }
        for level in &mut self.levels {
            level.entries.shrink_to_fit();
            level.ends.shrink_to_fit();
        }
        self.scratch = Vec::new();
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.levels.iter().map(Level::heap_bytes).sum::<usize>() + self.scratch.capacity() * 8
    }

    /// Adds the non-null ticks of points `[i, j)` (`j < n`) to `tally`: the points of partial
    /// leaves at the ends exactly (at most 62), the nodes between as their summaries.
    pub fn tally(&self, steps: &Steps<'_>, i: usize, j: usize, tally: &mut Tally) {
        let none = steps.sentinel;
        let exact = |from: usize, to: usize, tally: &mut Tally| {
            for_durations(steps, from, to, |v, t| {
                if v != none {
                    tally.add(v, t);
                }
            });
        };
        if j <= i {
            return;
        }
        if j - i < 2 * HEAVY_LEAF {
            exact(i, j, tally);
            return;
        }
        let (lo, hi) = (i.div_ceil(HEAVY_LEAF), j / HEAVY_LEAF);
        exact(i, lo * HEAVY_LEAF, tally);
        exact(hi * HEAVY_LEAF, j, tally);
        let (mut lo, mut hi) = (lo, hi);
        for (k, level) in self.levels.iter().enumerate() {
            let add = |from: usize, to: usize, tally: &mut Tally| {
                for node in from..to {
                    for &(v, t) in level.node(node) {
                        tally.add(v, t);
                    }
                }
            };
            if hi - lo <= 2 * FANOUT || k + 1 == self.levels.len() {
                add(lo, hi, tally);
                return;
            }
            let (lo2, hi2) = (lo.div_ceil(FANOUT), hi / FANOUT);
            add(lo, lo2 * FANOUT, tally);
            add(hi2 * FANOUT, hi, tally);
            (lo, hi) = (lo2, hi2);
        }
    }
}

/// Sums the ticks of equal values of `items` (sorting them by value), then keeps at most `k`
/// of them. When `exact` says the sums are the true ticks (a leaf), the fewest largest values
/// are kept such that every value left out holds at most `1 / (k + 1)` of the ticks left out
/// (none go while at most `k` values remain, and a flat spread of many values, as counters
/// have, leaves nothing). Otherwise, or when no such cut keeps at most `k`, the (k+1)-th
/// largest count is subtracted from all and those at zero go. Both keep the bound of the
/// module docs.
fn condense(items: &mut Vec<(u64, u64)>, k: usize, exact: bool, scratch: &mut Vec<u64>) {
    items.sort_unstable_by_key(|e| e.0);
    items.dedup_by(|next, kept| {
        if next.0 == kept.0 {
            kept.1 = kept.1.saturating_add(next.1);
            true
        } else {
            false
        }
    });
    if items.len() <= k {
        return;
    }
    scratch.clear();
    scratch.extend(items.iter().map(|e| e.1));
    if exact {
        scratch.sort_unstable_by(|x, y| y.cmp(x));
        // left[m]: the ticks of the values from the (m+1)-th largest on.
        let mut left: u128 = scratch.iter().map(|&t| u128::from(t)).sum();
        for (m, &t) in scratch.iter().enumerate().take(k + 1) {
            if u128::from(t) * (k as u128 + 1) <= left {
                // Keep the m largest: those above t, and as many equal to t as make m.
                let above = scratch.iter().take_while(|&&x| x > t).count();
                let mut ties = m - above;
                items.retain(|e| {
                    if e.1 > t {
                        true
                    } else if e.1 == t && ties > 0 {
                        ties -= 1;
                        true
                    } else {
                        false
                    }
                });
                return;
            }
            left -= u128::from(t);
        }
    }
    let (_, &mut cut, _) = scratch.select_nth_unstable_by(k, |x, y| y.cmp(x));
    items.retain_mut(|e| {
        e.1 = e.1.saturating_sub(cut);
        e.1 > 0
    });
}

/// Dominant's order: more ticks first, then a non-null value over null, then the smaller
/// value. True when `(v, t)` goes before `(w, u)`.
#[inline]
pub(super) fn beats(v: u64, t: u64, w: u64, u: u64, none: u64) -> bool {
    t > u || (t == u && v != none && (w == none || v < w))
}

/// The ticks each value holds in a column (or a group's column): null apart, the others
/// summed exactly up to [`TALLY_CAP`] values, then as a weighted Misra-Gries summary.
#[derive(Debug, Clone, Default)]
pub(super) struct Tally {
    /// (value, ticks) in the order values came.
    entries: Vec<(u64, u64)>,
    /// Once `entries` outgrows a linear search: an open-addressing table of indexes into it
    /// (plus one; 0 is a free slot), `1 << bits` slots, at most half full. It stays allocated
    /// from column to column, with only the slots in use freed.
    slots: Vec<u32>,
    /// The slot of each entry while the table is in use.
    slot_of: Vec<u32>,
    bits: u32,
    null: u64,
}

impl Tally {
    /// Empties the tally.
    pub fn clear(&mut self) {
        for &s in &self.slot_of {
            if let Some(slot) = self.slots.get_mut(s as usize) {
                *slot = 0;
            }
        }
        self.slot_of.clear();
        self.entries.clear();
        self.null = 0;
    }

    #[inline]
    fn hash(&self, v: u64) -> usize {
        (v.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - self.bits)) as usize
    }

    /// The slot holding `v`, or the free slot where it would go.
    #[inline]
    fn find(&self, v: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut slot = self.hash(v);
        while let Some(&s) = self.slots.get(slot)
            && s != 0
            && self.entries.get(s as usize - 1).is_some_and(|e| e.0 != v)
        {
            slot = (slot + 1) & mask;
        }
        slot
    }

    /// Puts entry `k` in its free slot.
    #[inline]
    fn place(&mut self, k: usize) {
        let Some(&(v, _)) = self.entries.get(k) else {
            return;
        };
        let slot = self.find(v);
        if let Some(s) = self.slots.get_mut(slot) {
            *s = u32::try_from(k + 1).unwrap_or(0);
        }
        self.slot_of.push(u32::try_from(slot).unwrap_or(0));
    }

    /// Indexes all entries in a table of `size` slots (a power of two), reusing a free one
    /// that is large enough.
    fn index(&mut self, size: usize) {
        if self.slots.len() < size || !self.slot_of.is_empty() {
            self.bits = size.max(self.slots.len()).ilog2();
            self.slots.clear();
            self.slots.resize(1 << self.bits, 0);
        }
        self.slot_of.clear();
        for k in 0..self.entries.len() {
            self.place(k);
        }
    }

    /// Adds ticks of a non-null value.
    #[inline]
    pub fn add(&mut self, v: u64, ticks: u64) {
        if ticks == 0 {
            return;
        }
        if self.entries.len() <= TALLY_LINEAR {
            if let Some(e) = self.entries.iter_mut().find(|e| e.0 == v) {
                e.1 = e.1.saturating_add(ticks);
                return;
            }
            self.entries.push((v, ticks));
            if self.entries.len() > TALLY_LINEAR {
                self.index(64);
            }
            return;
        }
        let slot = self.find(v);
        match self.slots.get(slot).copied() {
            Some(s) if s != 0 => {
                if let Some(e) = self.entries.get_mut(s as usize - 1) {
                    e.1 = e.1.saturating_add(ticks);
                }
            }
            _ => {
                self.entries.push((v, ticks));
                if let Some(s) = self.slots.get_mut(slot) {
                    *s = u32::try_from(self.entries.len()).unwrap_or(0);
                }
                self.slot_of.push(u32::try_from(slot).unwrap_or(0));
                if self.entries.len() > TALLY_CAP {
                    self.reduce();
                } else if self.entries.len() * 2 > self.slots.len() {
                    self.index(self.slots.len() * 2);
                }
            }
        }
    }

    /// Subtracts the (CAP/2 + 1)-th largest count from all and drops those left at zero.
    #[cold]
    fn reduce(&mut self) {
        let mut counts: Vec<u64> = self.entries.iter().map(|e| e.1).collect();
        let keep = TALLY_CAP / 2;
        let (_, &mut cut, _) = counts.select_nth_unstable_by(keep, |x, y| y.cmp(x));
        self.entries.retain_mut(|e| {
            e.1 = e.1.saturating_sub(cut);
            e.1 > 0
        });
        // Every slot is freed, then the table is rebuilt unless a linear search will do.
        self.slots.fill(0);
        self.slot_of.clear();
        if self.entries.len() > TALLY_LINEAR {
            self.index(64);
        }
    }

    /// Adds ticks without a value.
    #[inline]
    pub fn add_null(&mut self, ticks: u64) {
        self.null = self.null.saturating_add(ticks);
    }

    /// The dominant value (null as `none`).
    pub fn best(&self, none: u64) -> u64 {
        let mut best = (none, self.null);
        for &(v, t) in &self.entries {
            if beats(v, t, best.0, best.1, none) {
                best = (v, t);
            }
        }
        best.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The stated bound of a summary against the exact ticks: at most `room` values, counts
    /// never above the truth and short of it by at most `(N - S) / (k + 1)`, exact with at
    /// most `k` values.
    fn check(
        summary: &[(u64, u64)],
        exact: &BTreeMap<u64, u64>,
        k: usize,
        room: usize,
        what: &str,
    ) {
        let n: u64 = exact.values().sum();
        let s: u64 = summary.iter().map(|e| e.1).sum();
        let kept: BTreeMap<u64, u64> = summary.iter().copied().collect();
        assert_eq!(kept.len(), summary.len(), "{what}: a value twice");
        assert!(summary.len() <= room, "{what}: too many values");
        if exact.len() <= k {
            assert_eq!(&kept, exact, "{what}: should be exact");
        }
        for (v, &c) in &kept {
            assert!(exact.get(v).is_some_and(|&t| c <= t), "{what}: {v} over");
        }
        for (v, &t) in exact {
            let c = kept.get(v).copied().unwrap_or(0);
            assert!(
                (t - c) * (k as u64 + 1) <= n - s,
                "{what}: {v} holds {t}, counted {c}, N {n} S {s}"
            );
        }
    }

    #[test]
    fn summaries_and_tallies_keep_the_misra_gries_bound() {
        let mut state = 3u64;
        let mut next = move |m: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % m
        };
        let mut tally = Tally::default();
        for case in 0..60 {
            let spread = [3, 9, 30, 1000][case % 4];
            let leaves: Vec<Vec<(u64, u64)>> = (0..=next(300))
                .map(|_| {
                    (0..next(17))
                        .map(|_| (next(spread) * 7, next(50) + 1))
                        .collect()
                })
                .collect();
            let mut heavy = Heavy::with_leaves(leaves.len());
            for leaf in &leaves {
                heavy.push_leaf(&mut leaf.clone());
            }
            heavy.finish();
            let mut span = 1;
            // Leaves here are the items of one node each.
            for (depth, level) in heavy.levels.iter().enumerate() {
                assert_eq!(level.ends.len(), leaves.len().div_ceil(span));
                for k in 0..level.ends.len() {
                    let mut exact = BTreeMap::new();
                    let under = leaves.get(k * span..((k + 1) * span).min(leaves.len()));
                    for &(v, t) in under.unwrap_or_default().iter().flatten() {
                        *exact.entry(v).or_default() += t;
                    }
                    let node = level.node(k);
                    assert!(node.windows(2).all(|w| w[0].0 < w[1].0));
                    check(
                        node,
                        &exact,
                        HEAVY_ENTRIES,
                        HEAVY_ENTRIES,
                        &format!("case {case} level {depth} node {k}"),
                    );
                }
                span *= FANOUT;
            }
            // A tally fed the same points one by one (the same tally for every case: its
            // table is kept from one column to the next).
            tally.clear();
            let mut exact = BTreeMap::new();
            for &(v, t) in leaves.iter().flatten() {
                tally.add(v, t);
                *exact.entry(v).or_default() += t;
            }
            // Below its cap a tally is exact.
            check(
                &tally.entries,
                &exact,
                TALLY_CAP,
                TALLY_CAP,
                &format!("case {case} tally"),
            );
        }
        // Past its cap, a tally subtracts: 20 000 distinct values around a heavy one.
        tally.clear();
        let mut exact = BTreeMap::new();
        for k in 0..20_000u64 {
            let (v, t) = if k % 3 == 0 {
                (1 << 40, 7)
            } else {
                ((k * 7919) % 1_000_003, next(20) + 1)
            };
            tally.add(v, t);
            *exact.entry(v).or_default() += t;
            if k % 997 == 0 {
                check(
                    &tally.entries,
                    &exact,
                    TALLY_CAP / 2,
                    TALLY_CAP,
                    &format!("tally at {k}"),
                );
            }
        }
        assert!(tally.entries.len() <= TALLY_CAP);
        check(
            &tally.entries,
            &exact,
            TALLY_CAP / 2,
            TALLY_CAP,
            "full tally",
        );
        assert_eq!(tally.best(u64::MAX), 1 << 40);
        tally.clear();
        tally.add(5, 1);
        tally.add_null(2);
        assert_eq!(tally.best(u64::MAX), u64::MAX);
    }
}

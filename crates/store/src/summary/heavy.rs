//! Dominant for rows with many distinct values: weighted Misra-Gries summaries per pyramid
//! node, and the tally a column adds them into.
//!
//! A summary of a node keeps at most [`HEAVY_ENTRIES`] = K values with counts `c(v)` such
//! that, with `T(v)` the ticks `v` truly holds in the node, `N` the node's non-null ticks and
//! `S` the sum of the kept counts, `T(v) - (N - S) / (K + 1) <= c(v) <= T(v)` for every value
//! (absent values count 0). It is exact when the node holds at most K distinct non-null
//! values. Summaries merge by adding counts and then, when more than K values remain,
//! subtracting the (K+1)-th largest count from all and dropping those left at zero: each
//! subtraction of `d` removes at least `(K + 1) d` from `S`, so the bound holds for the merge
//! (Agarwal et al., "Mergeable summaries", 2012). The [`Tally`] of a column merges the same
//! way with room for 32 values, which keeps the bound with K.

use super::Steps;
use super::pyramid::{BLOCK, FANOUT, for_durations};

/// Values kept per node summary (K).
pub const HEAVY_ENTRIES: usize = 8;
/// Values a column's [`Tally`] keeps before it subtracts.
const TALLY_CAP: usize = 32;

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

    /// Appends a node made of `items` (any order, repeated values allowed).
    fn push(&mut self, items: &mut Vec<(u64, u64)>, scratch: &mut Vec<u64>) {
        condense(items, HEAVY_ENTRIES, scratch);
        self.entries.extend_from_slice(items);
        self.ends
            .push(u32::try_from(self.entries.len()).unwrap_or(u32::MAX));
    }

    fn heap_bytes(&self) -> usize {
        self.ends.capacity() * 4 + self.entries.capacity() * 16
    }
}

/// Heavy-hitter summaries over the pyramid's blocks: leaves of 16 points, then nodes of 4.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Heavy {
    levels: Vec<Level>,
    scratch: Vec<u64>,
}

impl Heavy {
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
            level.push(items, &mut self.scratch);
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
                next.push(&mut items, &mut self.scratch);
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
    /// blocks at the ends exactly (at most 30), the nodes between as their summaries.
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
        if j - i < 2 * BLOCK {
            exact(i, j, tally);
            return;
        }
        let (lo, hi) = (i.div_ceil(BLOCK), j / BLOCK);
        exact(i, lo * BLOCK, tally);
        exact(hi * BLOCK, j, tally);
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
/// of them: when more remain, the (k+1)-th largest count is subtracted from all and those at
/// zero go.
fn condense(items: &mut Vec<(u64, u64)>, k: usize, scratch: &mut Vec<u64>) {
    items.sort_unstable_by_key(|e| e.0);
    items.dedup_by(|next, kept| {
        if next.0 == kept.0 {
            kept.1 = kept.1.saturating_add(next.1);
            true
        } else {
            false
        }
    });
    if items.len() > k {
        scratch.clear();
        scratch.extend(items.iter().map(|e| e.1));
        let (_, &mut cut, _) = scratch.select_nth_unstable_by(k, |x, y| y.cmp(x));
        items.retain_mut(|e| {
            e.1 = e.1.saturating_sub(cut);
            e.1 > 0
        });
    }
}

/// Dominant's order: more ticks first, then a non-null value over null, then the smaller
/// value. True when `(v, t)` goes before `(w, u)`.
#[inline]
pub(super) fn beats(v: u64, t: u64, w: u64, u: u64, none: u64) -> bool {
    t > u || (t == u && v != none && (w == none || v < w))
}

/// The ticks each value holds in a column (or a group's column): null exactly, the others
/// exactly up to 32 values, then as a weighted Misra-Gries summary.
#[derive(Debug, Clone, Default)]
pub(super) struct Tally {
    entries: Vec<(u64, u64)>,
    null: u64,
}

impl Tally {
    pub fn clear(&mut self) {
        self.entries.clear();
        self.null = 0;
    }

    /// Adds ticks of a non-null value.
    #[inline]
    pub fn add(&mut self, v: u64, ticks: u64) {
        if ticks == 0 {
            return;
        }
        if let Some(e) = self.entries.iter_mut().find(|e| e.0 == v) {
            e.1 = e.1.saturating_add(ticks);
            return;
        }
        self.entries.push((v, ticks));
        if self.entries.len() > TALLY_CAP {
            let cut = self.entries.iter().map(|e| e.1).min().unwrap_or(0);
            self.entries.retain_mut(|e| {
                e.1 -= cut;
                e.1 > 0
            });
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

    /// The stated bound of a summary against the exact ticks: counts never above the truth,
    /// and short of it by at most `(N - S) / (K + 1)`.
    fn check(summary: &[(u64, u64)], exact: &BTreeMap<u64, u64>, k: usize, what: &str) {
        let n: u64 = exact.values().sum();
        let s: u64 = summary.iter().map(|e| e.1).sum();
        let kept: BTreeMap<u64, u64> = summary.iter().copied().collect();
        assert_eq!(kept.len(), summary.len(), "{what}: a value twice");
        assert!(
            summary.len() <= k.max(exact.len().min(k)),
            "{what}: too many values"
        );
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
                        &format!("case {case} level {depth} node {k}"),
                    );
                }
                span *= FANOUT;
            }
            // A tally fed the same points one by one keeps the bound with its own room, and
            // with K too.
            let mut tally = Tally::default();
            let mut exact = BTreeMap::new();
            for &(v, t) in leaves.iter().flatten() {
                tally.add(v, t);
                *exact.entry(v).or_default() += t;
            }
            check(
                &tally.entries,
                &exact,
                TALLY_CAP,
                &format!("case {case} tally"),
            );
        }
    }
}

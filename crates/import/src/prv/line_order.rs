//! A window's records in line order, for traces of many threads: each record is tagged
//! with its key (row, or (row, type)) as the lines give it, one sequential stream however
//! many threads the lines interleave; at the end of the window the records are grouped by
//! key with a counting sort of their indexes and each group is encoded onto its run.

// The per-record push is forced inline, as the parse's other per-record helpers.
#![allow(clippy::inline_always)]

use super::chunk::Run;

/// A window's records in line order, each tagged with its key (row or (row, type)).
#[derive(Debug)]
pub(super) struct LineOrder<T> {
    keys: Vec<u32>,
    items: Vec<T>,
    /// Grouping scratch: the records' indexes grouped by key (4 bytes a record where the
    /// records themselves took 16 or 24: with 4096 threads, 32 MB less at the end of a parse
    /// on 2 workers, where its memory peaks).
    order: Vec<u32>,
}

impl<T> Default for LineOrder<T> {
    fn default() -> Self {
        LineOrder {
            keys: Vec::new(),
            items: Vec::new(),
            order: Vec::new(),
        }
    }
}

impl<T: Copy + Default> LineOrder<T> {
    #[inline(always)]
    pub(super) fn push(&mut self, key: u32, item: T) {
        self.keys.push(key);
        self.items.push(item);
    }

    /// Groups the records by key (below `n`), encodes each group onto its run and empties
    /// the window. A run that must grow is grown to its size forecast for the chunk's end
    /// (`scale`: the chunk's text over the text parsed so far) instead of doubled: fewer
    /// reallocations, and less room left unused when the chunk ends.
    pub(super) fn flush<R: Run<T>>(
        &mut self,
        runs: &mut [R],
        n: usize,
        cursors: &mut Vec<u32>,
        sentinel: u64,
        scale: f64,
    ) {
        // Each group's records are gathered a block at a time into a buffer that stays in L1.
        let mut block = [T::default(); GATHER];
        for (key, range) in group_by_key(&self.keys, n, cursors, &mut self.order) {
            let (Some(run), Some(order)) = (runs.get_mut(key as usize), self.order.get(range))
            else {
                continue;
            };
            run.make_room(order.len(), scale);
            for part in order.chunks(GATHER) {
                for (slot, &i) in block.iter_mut().zip(part) {
                    *slot = self.items.get(i as usize).copied().unwrap_or_default();
                }
                run.extend(block.get(..part.len()).unwrap_or_default(), sentinel);
            }
        }
        self.keys.clear();
        self.items.clear();
    }
}

/// Records gathered at a time from a window's line order into their group.
const GATHER: usize = 256;

/// Groups the indexes of records tagged with `keys` (below `n`) by key, keeping their order
/// within a key, into `out`; returns each non-empty key with its range in `out`. `cursors`
/// is scratch.
fn group_by_key(
    keys: &[u32],
    n: usize,
    cursors: &mut Vec<u32>,
    out: &mut Vec<u32>,
) -> Vec<(u32, std::ops::Range<usize>)> {
    cursors.clear();
    cursors.resize(n, 0);
    for &k in keys {
        if let Some(c) = cursors.get_mut(k as usize) {
            *c += 1;
        }
    }
    let mut ranges = Vec::new();
    let mut at = 0u32;
    for (k, c) in cursors.iter_mut().enumerate() {
        let count = *c;
        if count > 0 {
            ranges.push((k as u32, at as usize..(at + count) as usize));
        }
        *c = at;
        at += count;
    }
    // Every slot below `keys.len()` is written before it is read: stale values from the
    // previous chunk never show, so the buffer is only grown, not cleared.
    if out.len() < keys.len() {
        out.resize(keys.len(), 0);
    }
    for (i, &k) in keys.iter().enumerate() {
        if let Some(c) = cursors.get_mut(k as usize) {
            if let Some(slot) = out.get_mut(*c as usize) {
                *slot = i as u32;
            }
            *c += 1;
        }
    }
    ranges
}

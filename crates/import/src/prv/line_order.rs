//! A window's records in line order, for traces of many threads: each record is tagged
//! with its key (row, or (row, type)) as the lines give it, one sequential stream however
//! many threads the lines interleave; at the end of the window the records are grouped by
//! key with a counting sort (each record moved to its group's end as it is read) and each
//! group is encoded onto its run.

// The per-record push is forced inline, as the parse's other per-record helpers.
#![allow(clippy::inline_always)]

use super::runs::Run;

/// A window's records in line order, each tagged with its key (row or (row, type)).
#[derive(Debug)]
pub(super) struct LineOrder<T> {
    keys: Vec<u32>,
    items: Vec<T>,
    /// Grouping scratch: the records grouped by key, each group in line order.
    grouped: Vec<T>,
}

impl<T> Default for LineOrder<T> {
    fn default() -> Self {
        LineOrder {
            keys: Vec::new(),
            items: Vec::new(),
            grouped: Vec::new(),
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
        for (key, range) in group_by_key(&self.keys, &self.items, n, cursors, &mut self.grouped) {
            let (Some(run), Some(group)) = (runs.get_mut(key as usize), self.grouped.get(range))
            else {
                continue;
            };
            run.make_room(group.len(), scale);
            run.extend(group, sentinel);
        }
        self.keys.clear();
        self.items.clear();
    }
}

/// Groups the records `items`, tagged with `keys` (below `n`), by key into `out`, keeping
/// their order within a key; returns each non-empty key with its range in `out`. `cursors`
/// is scratch.
///
/// The records are moved to their groups as they are read (a write at one of the groups'
/// ends, which stay in cache: 20 k keys' ends are about 1.3 MB) rather than gathered from
/// the window group by group through their grouped indexes (a read scattered over a window
/// of 16-24 MB of records, a cache miss a record). Generated 1 GB trace of 4096 threads,
/// `info --no-cache` on 2 cores, three alternating runs: 1.10-1.16 s and 1.51-1.61 s of
/// user time against 1.17-1.23 s and 1.69-1.80 s; peak 537 MB against 499 MB (the grouped
/// records take 16 or 24 bytes a record where their indexes took 4).
fn group_by_key<T: Copy + Default>(
    keys: &[u32],
    items: &[T],
    n: usize,
    cursors: &mut Vec<u32>,
    out: &mut Vec<T>,
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
    // previous window never show, so the buffer is only grown, not cleared.
    if out.len() < keys.len() {
        out.resize(keys.len(), T::default());
    }
    for (&k, &item) in keys.iter().zip(items) {
        if let Some(c) = cursors.get_mut(k as usize) {
            if let Some(slot) = out.get_mut(*c as usize) {
                *slot = item;
            }
            *c += 1;
        }
    }
    ranges
}

//! A group's columns in the average and dominant modes, at the cost of the points drawn
//! rather than of threads times columns: a thread with no point in a column adds its held
//! value over the whole column, so the threads holding a value without a point are counted
//! once per value, and only the threads with points in a column are walked (a heap of their
//! next points' times). At 65,536 threads, most of them quiet in most columns of a frame, the
//! frame then costs what its points cost.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::heavy::Tally;
use super::pyramid::{Carry, Pyramid};
use super::{Cursor, DrawMode, Pixel, Steps, mean};

/// How many threads hold each value in a column where they have no point, in a fixed order
/// (the order values came; a value no thread holds leaves): a linear search while the values
/// are few (a state view's), an index once they are many.
#[derive(Default)]
struct Holding {
    values: Vec<(u64, u64)>,
    at: Option<HashMap<u64, usize>>,
}

/// Values held past which [`Holding`] indexes them.
const HOLDING_LINEAR: usize = 16;

impl Holding {
    fn find(&self, v: u64) -> Option<usize> {
        match &self.at {
            Some(at) => at.get(&v).copied(),
            None => self.values.iter().position(|e| e.0 == v),
        }
    }

    fn add(&mut self, v: u64) {
        if let Some(k) = self.find(v) {
            self.values[k].1 += 1;
            return;
        }
        if let Some(at) = &mut self.at {
            at.insert(v, self.values.len());
        }
        self.values.push((v, 1));
        if self.at.is_none() && self.values.len() > HOLDING_LINEAR {
            let at = self.values.iter().enumerate().map(|(k, e)| (e.0, k));
            self.at = Some(at.collect());
        }
    }

    fn remove(&mut self, v: u64) {
        let Some(k) = self.find(v) else {
            return;
        };
        self.values[k].1 -= 1;
        if self.values[k].1 == 0 {
            self.values.swap_remove(k);
            if let Some(at) = &mut self.at {
                at.remove(&v);
                if let Some(&(moved, _)) = self.values.get(k) {
                    at.insert(moved, k);
                }
            }
        }
    }
}

/// [`super::summarize_group`] for [`DrawMode::Average`] and [`DrawMode::Dominant`]: the same
/// pixels, each column's ticks per value summed by value instead of thread by thread.
pub(super) fn summarize_sparse(
    rows: &[(Steps<'_>, &Pyramid)],
    mut cursors: Vec<Cursor<'_, '_>>,
    edges: &[u64],
    mode: DrawMode,
    none: u64,
    out: &mut Vec<Pixel>,
) {
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = cursors
        .iter()
        .enumerate()
        .filter(|(_, c)| c.next_t != u64::MAX)
        .map(|(i, c)| Reverse((c.next_t, i)))
        .collect();
    let mut holding = Holding::default();
    for c in &cursors {
        holding.add(c.start);
    }
    let mut carries = vec![Carry::default(); rows.len()];
    let mut tally = Tally::default();
    let mut active: Vec<usize> = Vec::new();
    for w in edges.windows(2) {
        let (a, b) = (w[0], w[1]);
        // The threads with a point in the column or at its end leave the held counts.
        active.clear();
        while let Some(&Reverse((t, i))) = heap.peek() {
            if t > b {
                break;
            }
            heap.pop();
            active.push(i);
        }
        for &i in &active {
            holding.remove(cursors[i].start);
        }
        // An empty column weighs its value as one tick (as one thread's does).
        let width = (b - a).max(1);
        let mut changes = 0u32;
        let value = if mode == DrawMode::Average {
            let (mut ticks, mut sum) = (0u128, 0u128);
            for &(v, n) in &holding.values {
                if v != none {
                    let t = u128::from(n) * u128::from(width);
                    ticks += t;
                    sum = sum.saturating_add(u128::from(v).saturating_mul(t));
                }
            }
            for &i in &active {
                let c = cursors[i].next(a, b);
                changes = changes.saturating_add(c.changes());
                let (steps, pyramid) = &rows[i];
                let w = pyramid.weights(steps, &c, &mut carries[i]);
                ticks += u128::from(w.ticks);
                sum = sum.saturating_add(w.sum);
            }
            mean(ticks, sum, none)
        } else {
            tally.clear();
            for &(v, n) in &holding.values {
                let t = n.saturating_mul(width);
                if v == none {
                    tally.add_null(t);
                } else {
                    tally.add(v, t);
                }
            }
            for &i in &active {
                let c = cursors[i].next(a, b);
                changes = changes.saturating_add(c.changes());
                let (steps, pyramid) = &rows[i];
                pyramid.tally(steps, &c, &mut tally, &mut carries[i]);
            }
            tally.best(none)
        };
        for &i in &active {
            holding.add(cursors[i].start);
            if cursors[i].next_t != u64::MAX {
                heap.push(Reverse((cursors[i].next_t, i)));
            }
        }
        out.push(Pixel { value, changes });
    }
}

//! The bursts a histogram accumulates (overlaps of control, data and third-window
//! intervals) and the table of a communication statistic, whose columns are partner objects
//! (Paraver's `KHistogram::calculate` and `calculateComm`). Intervals come as streams: a
//! row's bursts are found as its windows' intervals are walked, holding only those that
//! overlap the control interval at hand.

use std::collections::{BTreeMap, VecDeque};

use rayon::prelude::*;

use crate::histogram::{Bins, Table};
use crate::levels::Stream;
use crate::window::{Engine, Interval, Window};

/// One burst: an overlap of a control, a data and (3D) a third-window interval.
pub(crate) struct Burst {
    pub(crate) begin: u64,
    pub(crate) end: u64,
    pub(crate) control: f64,
    pub(crate) data: f64,
    pub(crate) extra: Option<f64>,
}

/// The intervals of a stream that may still overlap what comes: a queue fed from the
/// stream as far as asked.
struct Ahead<'a> {
    queue: VecDeque<Interval>,
    src: Stream<'a>,
}

impl<'a> Ahead<'a> {
    fn new(src: Stream<'a>) -> Self {
        Ahead {
            queue: VecDeque::new(),
            src,
        }
    }

    /// Interval `k` of the queue, reading the stream as needed.
    fn get(&mut self, k: usize) -> Option<Interval> {
        while self.queue.len() <= k {
            self.queue.push_back(self.src.next()?);
        }
        self.queue.get(k).copied()
    }

    /// Calls `f(begin, end, value)` for each non-empty overlap of [b, e) with the queued
    /// intervals, after dropping those that end by `b` (later calls ask later ranges).
    fn overlaps(&mut self, b: u64, e: u64, mut f: impl FnMut(u64, u64, f64)) {
        self.drop_ending_by(b);
        let mut k = 0;
        while let Some(i) = self.get(k) {
            if i.begin >= e {
                break;
            }
            let (ob, oe) = (b.max(i.begin), e.min(i.end));
            if ob < oe {
                f(ob, oe, i.value);
            }
            k += 1;
        }
    }

    /// Drops the intervals that end at or before `t`.
    fn drop_ending_by(&mut self, t: u64) {
        while self.get(0).is_some_and(|i| i.end <= t) {
            self.queue.pop_front();
        }
    }
}

/// Calls `f` for every non-empty overlap of the intervals of `control`, `data` (`None`:
/// the control stream itself) and `extra` inside [from, to].
pub(crate) fn for_each_burst(
    control: Stream<'_>,
    data: Option<Stream<'_>>,
    extra: Option<Stream<'_>>,
    from: u64,
    to: u64,
    mut f: impl FnMut(Burst),
) {
    let mut data = data.map(Ahead::new);
    let mut extra = extra.map(Ahead::new);
    for c in control {
        if c.begin >= to {
            // Every later interval begins there too: none overlaps [from, to).
            break;
        }
        let (cb, ce) = (c.begin.max(from), c.end.min(to));
        if cb >= ce {
            continue;
        }
        let mut emit = |db: u64, de: u64, dv: f64, f: &mut dyn FnMut(Burst)| match &mut extra {
            None => f(Burst {
                begin: db,
                end: de,
                control: c.value,
                data: dv,
                extra: None,
            }),
            Some(x) => x.overlaps(db, de, |xb, xe, xv| {
                f(Burst {
                    begin: xb,
                    end: xe,
                    control: c.value,
                    data: dv,
                    extra: Some(xv),
                });
            }),
        };
        match &mut data {
            // A window read as its own data: each interval overlaps only itself (a row's
            // intervals follow one another).
            None => emit(cb, ce, c.value, &mut f),
            Some(d) => d.overlaps(cb, ce, |db, de, dv| emit(db, de, dv, &mut f)),
        }
    }
}

/// A communication statistic: partner objects as columns.
pub(crate) fn comm_table(
    engine: &Engine,
    control: &Window,
    extra: Option<&Window>,
    planes: Option<Bins>,
    stat: usize,
    (from, to): (u64, u64),
    rows: &[usize],
) -> Table {
    let objects = engine.objects;
    let level = control.info.level;
    let columns = control.rows();
    let n_planes = planes.map_or(1, |p| p.n);
    let computed: Vec<Vec<Vec<Option<f64>>>> = rows
        .par_iter()
        .map(|&r| {
            let mut cells = vec![vec![None; columns]; n_planes];
            let mut acc: BTreeMap<(usize, usize), (f64, f64, f64)> = BTreeMap::new();
            let xrow: Option<Vec<Interval>> = extra.map(|x| {
                x.row(objects.children(level, r, x.info.level).start)
                    .collect()
            });
            for c in control.comms(r) {
                if c.time < from || c.time >= to {
                    continue;
                }
                let plane = match (planes, &xrow) {
                    (Some(p), Some(xr)) => {
                        // The interval holding the message's time.
                        let k = xr.partition_point(|i| i.end <= c.time);
                        let v = xr
                            .get(k)
                            .filter(|i| i.begin <= c.time && c.time < i.end)
                            .map_or(0.0, |i| i.value);
                        match p.column(v) {
                            Some(p) => p,
                            None => continue,
                        }
                    }
                    _ => 0,
                };
                let col = objects.object_of_thread(level, c.partner_thread);
                let e = acc.entry((plane, col)).or_insert((0.0, 0.0, 0.0));
                let counts = match stat {
                    0 | 2 | 4 | 6 | 8 => c.send,
                    _ => !c.send,
                };
                let value = match stat {
                    0 | 1 => f64::from(u8::from(counts)),
                    _ => {
                        if counts {
                            c.size
                        } else {
                            0.0
                        }
                    }
                };
                e.0 += value;
                if counts {
                    e.1 += 1.0;
                    match stat {
                        6 | 7 if (e.2 == 0.0 || c.size < e.2) => {
                            e.2 = c.size;
                        }
                        8 | 9 if c.size > e.2 => {
                            e.2 = c.size;
                        }
                        _ => {}
                    }
                }
            }
            for (&(plane, col), &(sum, n, ext)) in &acc {
                if col < columns {
                    cells[plane][col] = Some(match stat {
                        4 | 5 => sum / n,
                        6..=9 => ext,
                        _ => sum,
                    });
                }
            }
            cells
        })
        .collect();
    let mut cells = vec![vec![Vec::new(); rows.len()]; n_planes];
    for (k, row) in computed.into_iter().enumerate() {
        for (p, plane) in row.into_iter().enumerate() {
            cells[p][k] = plane;
        }
    }
    Table { cells, columns }
}

//! The bursts a histogram accumulates (overlaps of control, data and third-window
//! intervals) and the table of a communication statistic, whose columns are partner objects
//! (Paraver's `KHistogram::calculate` and `calculateComm`).

use std::collections::BTreeMap;

use crate::histogram::{Bins, Table};
use crate::window::{Computed, Engine, Interval};

/// One burst: an overlap of a control, a data and (3D) a third-window interval.
pub(crate) struct Burst {
    pub(crate) begin: u64,
    pub(crate) end: u64,
    pub(crate) control: f64,
    pub(crate) data: f64,
    pub(crate) extra: Option<f64>,
}

/// Calls `f` for every non-empty overlap of the intervals of `control`, `data` and `extra`
/// inside [from, to].
pub(crate) fn for_each_burst(
    control: &[Interval],
    data: &[Interval],
    extra: Option<&Vec<Interval>>,
    from: u64,
    to: u64,
    mut f: impl FnMut(Burst),
) {
    let (mut j, mut k) = (0usize, 0usize);
    for c in control {
        let (cb, ce) = (c.begin.max(from), c.end.min(to));
        if cb >= ce {
            continue;
        }
        while j < data.len() && data[j].end <= cb {
            j += 1;
        }
        let mut jj = j;
        while jj < data.len() && data[jj].begin < ce {
            let d = &data[jj];
            let (db, de) = (cb.max(d.begin), ce.min(d.end));
            if db < de {
                match extra {
                    None => f(Burst {
                        begin: db,
                        end: de,
                        control: c.value,
                        data: d.value,
                        extra: None,
                    }),
                    Some(x) => {
                        while k < x.len() && x[k].end <= db {
                            k += 1;
                        }
                        let mut kk = k;
                        while kk < x.len() && x[kk].begin < de {
                            let (xb, xe) = (db.max(x[kk].begin), de.min(x[kk].end));
                            if xb < xe {
                                f(Burst {
                                    begin: xb,
                                    end: xe,
                                    control: c.value,
                                    data: d.value,
                                    extra: Some(x[kk].value),
                                });
                            }
                            kk += 1;
                        }
                    }
                }
            }
            jj += 1;
        }
    }
}

/// A communication statistic: partner objects as columns.
pub(crate) fn comm_table(
    engine: &Engine,
    control: &Computed,
    extra: Option<&Computed>,
    planes: Option<Bins>,
    stat: usize,
    (from, to): (u64, u64),
    n_planes: usize,
) -> Table {
    let objects = engine.objects;
    let rows = control.rows.len();
    let columns = rows;
    let mut cells = vec![vec![vec![None; columns]; rows]; n_planes];
    for r in 0..rows {
        let mut acc: BTreeMap<(usize, usize), (f64, f64, f64)> = BTreeMap::new();
        let xrow = extra.and_then(|x| {
            x.rows
                .get(objects.children(control.level, r, x.level).start)
        });
        for c in control.comms.get(r).map_or(&[][..], Vec::as_slice) {
            if c.time < from || c.time >= to {
                continue;
            }
            let plane = match (planes, xrow) {
                (Some(p), Some(xr)) => {
                    let v = xr
                        .iter()
                        .find(|i| i.begin <= c.time && c.time < i.end)
                        .map_or(0.0, |i| i.value);
                    match p.column(v) {
                        Some(p) => p,
                        None => continue,
                    }
                }
                _ => 0,
            };
            let col = objects.object_of_thread(control.level, c.partner_thread);
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
                cells[plane][r][col] = Some(match stat {
                    4 | 5 => sum / n,
                    6..=9 => ext,
                    _ => sum,
                });
            }
        }
    }
    Table { cells, columns }
}

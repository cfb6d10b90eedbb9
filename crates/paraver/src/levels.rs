//! From one level to the one above (threads to a task, tasks to an application, ...):
//! Paraver's `IntervalNotThread` (`src/intervalnotthread.cpp`) and the functions of
//! `src/semanticnotthreadfunctions.cpp`.
//!
//! The children are walked together: each step advances the children whose interval ends
//! where the parent's last interval ended (one interval each, at most as many steps as there
//! are children), and the parent's interval runs to the earliest end among the children.
//! With one child the parent's intervals are the child's, zero-length ones included.

use std::collections::BTreeMap;

use crate::window::Interval;

/// A function combining the children's values.
#[derive(Debug, Clone)]
pub enum LevelFn {
    Adding,
    AddingSign,
    Average,
    Maximum,
    Minimum,
    Activity(Vec<f64>),
    InActivity(Vec<f64>),
    Mode,
    ObjectI(f64),
    AddObjects(Vec<f64>),
    ChangedValue,
}

impl LevelFn {
    pub fn new(name: &str, params: &[Vec<f64>]) -> Option<LevelFn> {
        let list = |k: usize| params.get(k).cloned().unwrap_or_default();
        Some(match name {
            "Adding" => LevelFn::Adding,
            "AddingSign" => LevelFn::AddingSign,
            "Average" => LevelFn::Average,
            "Maximum" => LevelFn::Maximum,
            "Minimum" => LevelFn::Minimum,
            "Activity" => LevelFn::Activity(list(0)),
            "In Activity" => LevelFn::InActivity(list(0)),
            "Mode" => LevelFn::Mode,
            "Thread i" => LevelFn::ObjectI(list(0).first().copied().unwrap_or(1.0)),
            "Add Tasks" => LevelFn::AddObjects(list(0)),
            "Changed value" => LevelFn::ChangedValue,
            _ => return None,
        })
    }

    fn execute(&self, values: &[f64], last_changed: usize) -> f64 {
        match self {
            LevelFn::Adding => values.iter().sum(),
            LevelFn::AddingSign => f64::from(u8::from(values.iter().sum::<f64>() > 0.0)),
            LevelFn::Average => values.iter().sum::<f64>() / values.len() as f64,
            LevelFn::Maximum => values.iter().fold(0.0, |m, &v| if v > m { v } else { m }),
            LevelFn::Minimum => values
                .iter()
                .fold(0.0, |m, &v| if m == 0.0 || v < m { v } else { m }),
            LevelFn::Activity(p) | LevelFn::InActivity(p) => {
                let Some(&first) = values.first() else {
                    return 0.0;
                };
                let tmp = if p.contains(&first) { first } else { 0.0 };
                if tmp == 0.0 || values[1..].iter().any(|&v| v != tmp) {
                    0.0
                } else if matches!(self, LevelFn::Activity(_)) {
                    tmp
                } else {
                    1.0
                }
            }
            LevelFn::Mode => mode(values),
            LevelFn::ObjectI(i) => {
                if *i != 0.0 && *i <= values.len() as f64 {
                    values[*i as usize - 1]
                } else {
                    0.0
                }
            }
            LevelFn::AddObjects(objs) => objs.iter().filter_map(|&o| values.get(o as usize)).sum(),
            LevelFn::ChangedValue => values.get(last_changed).copied().unwrap_or(0.0),
        }
    }
}

/// The most frequent value (the smallest of the most frequent ones).
fn mode(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (mut best, mut best_n, mut i) = (0.0, 0, 0);
    while i < sorted.len() {
        let j = sorted[i..].iter().take_while(|&&v| v == sorted[i]).count();
        if j > best_n {
            best_n = j;
            best = sorted[i];
        }
        i += j;
    }
    best
}

/// The parent's intervals from its children's (each a list from [`crate::thread::intervals`]
/// or a level below, ending with a zero-length interval at the end).
pub fn aggregate(f: &LevelFn, children: &[Vec<Interval>], end_time: u64) -> Vec<Interval> {
    let n = children.len();
    if n == 0 {
        return vec![
            Interval {
                begin: 0,
                end: end_time,
                value: 0.0,
            },
            Interval {
                begin: end_time,
                end: end_time,
                value: 0.0,
            },
        ];
    }
    let mut at = vec![0usize; n];
    let cur = |c: usize, at: &[usize]| children[c][at[c].min(children[c].len() - 1)];
    // Children by the end of their interval; equal ends in insertion order (a multimap).
    let mut seq = 0u64;
    let mut order: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    let mut values = Vec::with_capacity(n);
    let mut begin = 0;
    for c in 0..n {
        let iv = cur(c, &at);
        begin = begin.max(iv.begin);
        values.push(iv.value);
        order.insert((iv.end, seq), c);
        seq += 1;
    }
    let mut last_changed = 0;
    let mut end = order.keys().next().map_or(end_time, |k| k.0);
    let mut out = vec![Interval {
        begin,
        end,
        value: f.execute(&values, last_changed),
    }];
    let mut guard = 0usize;
    let max_steps = children.iter().map(Vec::len).sum::<usize>() * 2 + 16;
    while begin < end_time || end > begin {
        if out.last().is_some_and(|l| l.begin >= end_time) {
            break;
        }
        guard += 1;
        if guard > max_steps {
            break;
        }
        begin = end;
        let mut steps = 0;
        while let Some((&key, &c)) = order.iter().next() {
            if key.0 != begin {
                break;
            }
            if cur(c, &at).end <= begin {
                if at[c] + 1 < children[c].len() {
                    at[c] += 1;
                }
                last_changed = c;
            }
            values[c] = cur(c, &at).value;
            order.remove(&key);
            order.insert((cur(c, &at).end, seq), c);
            seq += 1;
            steps += 1;
            if steps >= n {
                break;
            }
        }
        end = order.keys().next().map_or(end_time, |k| k.0);
        out.push(Interval {
            begin,
            end,
            value: f.execute(&values, last_changed),
        });
    }
    out
}

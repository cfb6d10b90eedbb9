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

/// A stream of intervals, from one object's walk up to its window.
pub type Stream<'a> = Box<dyn Iterator<Item = Interval> + Send + 'a>;

/// One child being walked: its current interval and whether another follows.
pub(crate) struct Kid<'a> {
    pub(crate) cur: Interval,
    next: Option<Interval>,
    src: Stream<'a>,
}

impl<'a> Kid<'a> {
    /// `None` for a stream without intervals.
    pub(crate) fn new(mut src: Stream<'a>) -> Option<Kid<'a>> {
        let cur = src.next()?;
        let next = src.next();
        Some(Kid { cur, next, src })
    }

    pub(crate) fn has_next(&self) -> bool {
        self.next.is_some()
    }

    /// Moves to the next interval, if there is one.
    pub(crate) fn advance(&mut self) -> bool {
        match self.next.take() {
            Some(n) => {
                self.cur = n;
                self.next = self.src.next();
                true
            }
            None => false,
        }
    }
}

/// The parent's intervals from its children's (each a stream of a thread walk or a level
/// below, ending with a zero-length interval at the end), as Paraver's `IntervalNotThread`
/// walks them.
pub struct Aggregate<'a> {
    f: LevelFn,
    kids: Vec<Kid<'a>>,
    end_time: u64,
    /// Children by the end of their interval; equal ends in insertion order (a multimap).
    order: BTreeMap<(u64, u64), usize>,
    seq: u64,
    values: Vec<f64>,
    last_changed: usize,
    begin: u64,
    end: u64,
    /// The begin of the last interval given (`None` before the first).
    last_begin: Option<u64>,
    /// Steps taken, and intervals of the children consumed (a guard against a walk that
    /// would not end).
    steps: usize,
    consumed: usize,
    done: bool,
}

impl<'a> Aggregate<'a> {
    pub fn new(f: LevelFn, children: Vec<Stream<'a>>, end_time: u64) -> Aggregate<'a> {
        let kids: Vec<Kid<'a>> = children.into_iter().filter_map(Kid::new).collect();
        let mut a = Aggregate {
            f,
            end_time,
            order: BTreeMap::new(),
            seq: 0,
            values: Vec::with_capacity(kids.len()),
            last_changed: 0,
            begin: 0,
            end: 0,
            last_begin: None,
            steps: 0,
            consumed: kids.len(),
            done: false,
            kids,
        };
        for c in 0..a.kids.len() {
            let iv = a.kids[c].cur;
            a.begin = a.begin.max(iv.begin);
            a.values.push(iv.value);
            a.order.insert((iv.end, a.seq), c);
            a.seq += 1;
        }
        a.end = a.order.keys().next().map_or(end_time, |k| k.0);
        a
    }

    fn emit(&mut self) -> Interval {
        self.last_begin = Some(self.begin);
        Interval {
            begin: self.begin,
            end: self.end,
            value: self.f.execute(&self.values, self.last_changed),
        }
    }
}

impl Iterator for Aggregate<'_> {
    type Item = Interval;

    fn next(&mut self) -> Option<Interval> {
        if self.done {
            return None;
        }
        let n = self.kids.len();
        if n == 0 {
            // No children: 0 over the whole trace.
            if self.last_begin.is_none() {
                self.last_begin = Some(0);
                return Some(Interval {
                    begin: 0,
                    end: self.end_time,
                    value: 0.0,
                });
            }
            self.done = true;
            return Some(Interval {
                begin: self.end_time,
                end: self.end_time,
                value: 0.0,
            });
        }
        if self.last_begin.is_none() {
            return Some(self.emit());
        }
        let (begin, end) = (self.begin, self.end);
        if !(begin < self.end_time || end > begin)
            || self.last_begin.is_some_and(|b| b >= self.end_time)
        {
            self.done = true;
            return None;
        }
        self.steps += 1;
        if self.steps > 2 * self.consumed + 16 {
            self.done = true;
            return None;
        }
        self.begin = end;
        let begin = self.begin;
        let mut steps = 0;
        while let Some((&key, &c)) = self.order.iter().next() {
            if key.0 != begin {
                break;
            }
            let kid = &mut self.kids[c];
            if kid.cur.end <= begin {
                if kid.advance() {
                    self.consumed += 1;
                }
                self.last_changed = c;
            }
            self.values[c] = kid.cur.value;
            let end = kid.cur.end;
            self.order.remove(&key);
            self.order.insert((end, self.seq), c);
            self.seq += 1;
            steps += 1;
            if steps >= n {
                break;
            }
        }
        self.end = self.order.keys().next().map_or(self.end_time, |k| k.0);
        Some(self.emit())
    }
}

/// [`Aggregate`] over children given whole.
pub fn aggregate(f: &LevelFn, children: &[Vec<Interval>], end_time: u64) -> Vec<Interval> {
    let streams: Vec<Stream<'_>> = children
        .iter()
        .map(|c| Box::new(c.iter().copied()) as Stream<'_>)
        .collect();
    Aggregate::new(f.clone(), streams, end_time).collect()
}

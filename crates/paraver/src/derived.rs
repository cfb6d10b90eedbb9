//! Derived (composed) windows: two windows combined object by object (Paraver's
//! `IntervalDerived`, `src/intervalderived.cpp`, and `src/semanticderivedfunctions.cpp`).
//!
//! Both parents are walked together: each step advances the parents whose interval ends
//! where the last one ended, and the new interval runs to the earliest end among them
//! (ends at the trace's end do not count while another parent ends earlier). Each parent's
//! value is multiplied by its factor first.

use crate::cfg::WindowCfg;
use crate::levels::{Kid, Stream};
use crate::window::Interval;

/// The operation of a derived window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DerivedFn {
    Add,
    Product,
    Substract,
    Divide,
    Maximum,
    Minimum,
    Different,
    /// `controlled: clear by`, which Paraver computes as a plain derived function
    /// (`controlDerived` is false for it): the first parent's value while the second does
    /// not drop, 0 from where it drops until the first parent's next interval.
    ClearBy,
}

impl DerivedFn {
    pub fn parse(name: &str) -> Option<DerivedFn> {
        Some(match name.trim() {
            "add" => DerivedFn::Add,
            "product" => DerivedFn::Product,
            "substract" => DerivedFn::Substract,
            "divide" => DerivedFn::Divide,
            "maximum" => DerivedFn::Maximum,
            "minimum" => DerivedFn::Minimum,
            "different" => DerivedFn::Different,
            "controlled: clear by" => DerivedFn::ClearBy,
            _ => return None,
        })
    }

    fn execute(self, a: f64, b: f64) -> f64 {
        match self {
            DerivedFn::Add => a + b,
            DerivedFn::Product => a * b,
            DerivedFn::Substract => a - b,
            DerivedFn::Divide => {
                if b == 0.0 {
                    0.0
                } else {
                    a / b
                }
            }
            DerivedFn::Maximum => {
                if a > b {
                    a
                } else {
                    b
                }
            }
            DerivedFn::Minimum => {
                if a < b {
                    a
                } else {
                    b
                }
            }
            DerivedFn::Different => f64::from(u8::from(a != b)),
            // Stateful: see `ClearBy::execute`.
            DerivedFn::ClearBy => 0.0,
        }
    }
}

/// The state of Paraver's `ControlDerivedClearBy` for one object.
#[derive(Default)]
struct ClearBy {
    last_control: f64,
    last_data_begin: u64,
}

impl ClearBy {
    /// `data` and `control`: the parents' values; `data_begin`: where the first parent's
    /// interval began.
    fn execute(&mut self, data: f64, control: f64, data_begin: u64) -> f64 {
        let mut result = 0.0;
        if control < self.last_control {
            self.last_data_begin = data_begin;
        } else if self.last_data_begin != data_begin || data_begin == 0 {
            result = data;
        }
        self.last_control = control;
        result
    }
}

/// A parent's value times its factor, as Paraver computes it (a factor below 1 in absolute
/// value divides by its inverse).
fn scaled(v: f64, factor: f64) -> f64 {
    let a = factor.abs();
    if a < 1.0 {
        if factor < 0.0 {
            -v / (1.0 / a)
        } else {
            v / (1.0 / a)
        }
    } else {
        v * factor
    }
}

/// The derived operation of window `w` (not a controlled one), checked.
pub fn operation(w: &WindowCfg) -> Result<(DerivedFn, [f64; 2]), String> {
    let Some(d) = &w.derived else {
        return Err("a derived window without parents".into());
    };
    let op = DerivedFn::parse(&d.operation)
        .ok_or_else(|| format!("derived operation `{}`", d.operation))?;
    if d.shifts != [0, 0] {
        return Err("shifted parents (window_shift)".into());
    }
    Ok((op, d.factors))
}

/// Two parents' intervals combined by `op` (Paraver's `IntervalDerived`), the first one's
/// first (the factors go by that order).
pub struct Combined<'a> {
    op: DerivedFn,
    factors: [f64; 2],
    kids: [Kid<'a>; 2],
    end_time: u64,
    clear_by: ClearBy,
    begin: u64,
    end: u64,
    started: bool,
    /// Steps left (a guard against a walk that would not end).
    steps: usize,
    consumed: usize,
}

impl<'a> Combined<'a> {
    /// `None` when a parent has no interval.
    pub fn new(
        op: DerivedFn,
        factors: [f64; 2],
        parents: [Stream<'a>; 2],
        end_time: u64,
    ) -> Option<Self> {
        let [a, b] = parents;
        let kids = [Kid::new(a)?, Kid::new(b)?];
        let begin = kids[0].cur.begin.max(kids[1].cur.begin);
        let end = kids[0].cur.end.min(kids[1].cur.end);
        Some(Combined {
            op,
            factors,
            kids,
            end_time,
            clear_by: ClearBy::default(),
            begin,
            end,
            started: false,
            steps: 0,
            consumed: 2,
        })
    }

    fn value(&mut self) -> f64 {
        let (k0, k1) = (&self.kids[0].cur, &self.kids[1].cur);
        let (a, b) = (
            scaled(k0.value, self.factors[0]),
            scaled(k1.value, self.factors[1]),
        );
        if self.op == DerivedFn::ClearBy {
            self.clear_by.execute(a, b, k0.begin)
        } else {
            self.op.execute(a, b)
        }
    }
}

impl Iterator for Combined<'_> {
    type Item = Interval;

    fn next(&mut self) -> Option<Interval> {
        if !self.started {
            self.started = true;
            let value = self.value();
            return Some(Interval {
                begin: self.begin,
                end: self.end,
                value,
            });
        }
        self.steps += 1;
        if self.begin >= self.end_time || self.steps > self.consumed + 16 {
            return None;
        }
        self.begin = self.end;
        let mut next_end: Option<u64> = None;
        for c in 0..2 {
            let kid = &mut self.kids[c];
            if kid.cur.end <= self.begin && kid.has_next() {
                kid.advance();
                self.consumed += 1;
            }
            let e = kid.cur.end;
            if e < self.end_time && next_end.is_none_or(|n| e < n) {
                next_end = Some(e);
            }
        }
        self.end = next_end.unwrap_or(self.end_time);
        let value = self.value();
        Some(Interval {
            begin: self.begin,
            end: self.end,
            value,
        })
    }
}

/// The fold of a controlled derived window (`controlled: maximum`, `controlled: add`) and
/// the data parent's factor, checked.
/// How a controlled window folds the data values it meets.
pub type Fold = fn(f64, f64) -> f64;

pub fn controlled_fold(w: &WindowCfg) -> Result<(Fold, f64), String> {
    let Some(d) = &w.derived else {
        return Err("a derived window without parents".into());
    };
    let op = d.operation.trim();
    let fold: Fold = match op {
        "controlled: maximum" => |a, b| if a > b { a } else { b },
        "controlled: add" => |a, b| a + b,
        _ => return Err(format!("derived operation `{op}`")),
    };
    if d.shifts != [0, 0] {
        return Err("shifted parents (window_shift)".into());
    }
    Ok((fold, d.factors[0]))
}

/// A controlled derived window (Paraver's `IntervalControlDerived`): the intervals of the
/// control (second) parent, each valued by folding the data (first) parent's intervals that
/// overlap it, from 0: `controlled: maximum` keeps the largest, `controlled: add` sums them.
pub struct Controlled<'a> {
    fold: Fold,
    factor: f64,
    data: Kid<'a>,
    control: Stream<'a>,
    end: u64,
}

impl<'a> Controlled<'a> {
    /// `None` when the data parent has no interval.
    pub fn new(
        fold: Fold,
        factor: f64,
        data: Stream<'a>,
        control: Stream<'a>,
        end: u64,
    ) -> Option<Self> {
        Some(Controlled {
            fold,
            factor,
            data: Kid::new(data)?,
            control,
            end,
        })
    }
}

impl Iterator for Controlled<'_> {
    type Item = Interval;

    fn next(&mut self) -> Option<Interval> {
        let c = self.control.next()?;
        let mut value = 0.0;
        if c.begin < self.end {
            let d = &mut self.data;
            while d.has_next() && d.cur.end <= c.begin {
                d.advance();
            }
            if d.cur.end > c.begin {
                value = (self.fold)(value, d.cur.value * self.factor);
            }
            while d.has_next() && d.cur.end < c.end {
                d.advance();
                value = (self.fold)(value, d.cur.value * self.factor);
            }
        }
        Some(Interval {
            begin: c.begin,
            end: c.end,
            value,
        })
    }
}

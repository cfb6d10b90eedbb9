//! Derived (composed) windows: two windows combined object by object (Paraver's
//! `IntervalDerived`, `src/intervalderived.cpp`, and `src/semanticderivedfunctions.cpp`).
//!
//! Both parents are walked together: each step advances the parents whose interval ends
//! where the last one ended, and the new interval runs to the earliest end among them
//! (ends at the trace's end do not count while another parent ends earlier). Each parent's
//! value is multiplied by its factor first.

use crate::cfg::WindowCfg;
use crate::window::{Computed, Interval};

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

/// Combines the rows of derived window `w`'s two children, object by object (each pair in
/// Paraver's child order: the factors go by that order); `end` is the trace's end.
pub fn combine(
    w: &WindowCfg,
    pairs: &[(&[Interval], &[Interval])],
    end: u64,
) -> Result<Vec<Vec<Interval>>, String> {
    let Some(d) = &w.derived else {
        return Err("a derived window without parents".into());
    };
    let op = DerivedFn::parse(&d.operation)
        .ok_or_else(|| format!("derived operation `{}`", d.operation))?;
    if d.shifts != [0, 0] {
        return Err("shifted parents (window_shift)".into());
    }
    if pairs.iter().any(|(a, b)| a.is_empty() || b.is_empty()) {
        return Err("a parent object without intervals".into());
    }
    Ok(pairs
        .iter()
        .map(|&(a, b)| walk(op, [a, b], d.factors, end))
        .collect())
}

fn walk(op: DerivedFn, kids: [&[Interval]; 2], factors: [f64; 2], end_time: u64) -> Vec<Interval> {
    let mut at = [0usize; 2];
    let cur = |c: usize, at: &[usize; 2]| kids[c][at[c].min(kids[c].len() - 1)];
    let mut clear_by = ClearBy::default();
    let mut value = |at: &[usize; 2]| {
        let (a, b) = (
            scaled(cur(0, at).value, factors[0]),
            scaled(cur(1, at).value, factors[1]),
        );
        if op == DerivedFn::ClearBy {
            clear_by.execute(a, b, cur(0, at).begin)
        } else {
            op.execute(a, b)
        }
    };
    let mut begin = cur(0, &at).begin.max(cur(1, &at).begin);
    let mut end = cur(0, &at).end.min(cur(1, &at).end);
    let mut out = vec![Interval {
        begin,
        end,
        value: value(&at),
    }];
    let max_steps = kids[0].len() + kids[1].len() + 16;
    for _ in 0..max_steps {
        if begin >= end_time {
            break;
        }
        begin = end;
        let mut next_end: Option<u64> = None;
        for c in 0..2 {
            if cur(c, &at).end <= begin && at[c] + 1 < kids[c].len() {
                at[c] += 1;
            }
            let e = cur(c, &at).end;
            if e < end_time && next_end.is_none_or(|n| e < n) {
                next_end = Some(e);
            }
        }
        end = next_end.unwrap_or(end_time);
        out.push(Interval {
            begin,
            end,
            value: value(&at),
        });
    }
    out
}

/// A controlled derived window (Paraver's `IntervalControlDerived`): the intervals of the
/// control (second) parent, each valued by folding the data (first) parent's intervals that
/// overlap it, from 0: `controlled: maximum` keeps the largest, `controlled: add` sums them.
/// Both parents have the rows of the data's objects (the control's object that holds each).
pub fn controlled(w: &WindowCfg, parents: Vec<Computed>, end: u64) -> Result<Computed, String> {
    let Some(d) = &w.derived else {
        return Err("a derived window without parents".into());
    };
    let op = d.operation.trim();
    let fold: fn(f64, f64) -> f64 = match op {
        "controlled: maximum" => |a, b| if a > b { a } else { b },
        "controlled: add" => |a, b| a + b,
        _ => return Err(format!("derived operation `{op}`")),
    };
    if d.shifts != [0, 0] {
        return Err("shifted parents (window_shift)".into());
    }
    let [data, control]: [Computed; 2] = parents
        .try_into()
        .map_err(|_| "a derived window needs two parents".to_string())?;
    if data.rows.len() != control.rows.len() || data.rows.iter().any(Vec::is_empty) {
        return Err("parents with different objects".into());
    }
    let factor = d.factors[0];
    let rows = data
        .rows
        .iter()
        .enumerate()
        .map(|(o, drow)| {
            let crow = &control.rows[o];
            let mut j = 0;
            crow.iter()
                .map(|c| {
                    let mut value = 0.0;
                    if c.begin < end {
                        while j + 1 < drow.len() && drow[j].end <= c.begin {
                            j += 1;
                        }
                        if drow[j].end > c.begin {
                            value = fold(value, drow[j].value * factor);
                        }
                        while j + 1 < drow.len() && drow[j].end < c.end {
                            j += 1;
                            value = fold(value, drow[j].value * factor);
                        }
                    }
                    Interval {
                        begin: c.begin,
                        end: c.end,
                        value,
                    }
                })
                .collect()
        })
        .collect();
    Ok(Computed { rows, ..data })
}

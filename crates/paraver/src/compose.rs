//! Compose functions (Paraver's `src/semanticcomposefunctions.cpp`): applied to each
//! interval of the level below, one output interval per input interval (except `Join
//! Bursts`, which joins consecutive intervals of equal value). The stateful ones (stacks,
//! `Delta`, `Accumulate`) keep their state per object from the start of the trace.

use crate::cfg::TimeUnit;
use crate::window::Interval;

/// A compose function and its parameters.
#[derive(Debug, Clone)]
pub enum ComposeFn {
    AsIs,
    Sign,
    OneMinusSign,
    Mod(f64),
    ModPlus1(f64),
    Div(f64),
    Prod(f64),
    Add(f64),
    Subs(f64),
    Complement(f64),
    InverseDiv(f64),
    SelectRange(Vec<f64>, Vec<f64>, bool),
    IsInRange(Vec<f64>, Vec<f64>, bool),
    IsEqual(Vec<f64>),
    IsEqualSign(Vec<f64>),
    Floor,
    Ceil,
    Round,
    Abs,
    StackedVal,
    InStackedVal(f64),
    NestingLevel,
    Enumerate,
    Accumulate,
    Delta,
    BurstTime(Scale),
    DivideByBurstTime(Scale),
    BeginTime(Scale),
    EndTime(Scale),
    JoinBursts,
    Translate(Vec<f64>),
}

/// Ticks (the trace's unit) to the window's unit, as Paraver's `traceUnitsToWindowUnits`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale(pub TimeUnit, pub TimeUnit);

impl Scale {
    /// `ticks` in the window's unit.
    #[inline]
    pub fn of(self, ticks: f64) -> f64 {
        crate::window::convert(self.0, self.1, ticks)
    }
}

impl ComposeFn {
    /// `name` with the cfg's parameters; `None` when not computed by prvscope. `scale`
    /// multiplies ticks into the window's units.
    pub fn new(name: &str, params: &[Vec<f64>], scale: Scale) -> Option<ComposeFn> {
        let one = |k: usize, default: f64| {
            params
                .get(k)
                .and_then(|v| v.first().copied())
                .unwrap_or(default)
        };
        // Paraver's defaults where the cfg gives no value.
        let list =
            |k: usize, default: &[f64]| params.get(k).cloned().unwrap_or_else(|| default.to_vec());
        Some(match name {
            "As Is" => ComposeFn::AsIs,
            "Sign" => ComposeFn::Sign,
            "1-Sign" => ComposeFn::OneMinusSign,
            "Mod" => ComposeFn::Mod(one(0, 1.0)),
            "Mod+1" => ComposeFn::ModPlus1(one(0, 1.0)),
            "Div" => ComposeFn::Div(one(0, 1.0)),
            "Prod" => ComposeFn::Prod(one(0, 0.0)),
            "Add" => ComposeFn::Add(one(0, 0.0)),
            "Subs" => ComposeFn::Subs(one(0, 0.0)),
            "Complement" => ComposeFn::Complement(one(0, 0.0)),
            "Inverse Div" => ComposeFn::InverseDiv(one(0, 1.0)),
            // Parameters: maximum first, then minimum.
            "Select Range" => ComposeFn::SelectRange(list(0, &[1.0]), list(1, &[0.0]), false),
            "Select Range [)" => ComposeFn::SelectRange(list(0, &[1.0]), list(1, &[0.0]), true),
            "Is In Range" => ComposeFn::IsInRange(list(0, &[1.0]), list(1, &[0.0]), false),
            "Is In Range [)" => ComposeFn::IsInRange(list(0, &[1.0]), list(1, &[0.0]), true),
            "Is Equal" => ComposeFn::IsEqual(list(0, &[1.0])),
            "Is Equal (Sign)" => ComposeFn::IsEqualSign(list(0, &[1.0])),
            "Floor" => ComposeFn::Floor,
            "Ceil" => ComposeFn::Ceil,
            "Round" => ComposeFn::Round,
            "Abs" => ComposeFn::Abs,
            "Stacked Val" => ComposeFn::StackedVal,
            "In Stacked Val" => ComposeFn::InStackedVal(one(0, 1.0)),
            "Nesting level" => ComposeFn::NestingLevel,
            "Enumerate" => ComposeFn::Enumerate,
            "Accumulate" => ComposeFn::Accumulate,
            "Delta" => ComposeFn::Delta,
            "Burst Time" => ComposeFn::BurstTime(scale),
            "Divide by Burst Time" => ComposeFn::DivideByBurstTime(scale),
            "Begin Time" => ComposeFn::BeginTime(scale),
            "End Time" => ComposeFn::EndTime(scale),
            "Join Bursts" => ComposeFn::JoinBursts,
            "Translate" => ComposeFn::Translate(list(0, &[])),
            _ => return None,
        })
    }
}

fn in_ranges(v: f64, max: &[f64], min: &[f64], open: bool) -> bool {
    max.iter()
        .zip(min)
        .any(|(&hi, &lo)| v >= lo && if open { v < hi } else { v <= hi })
}

/// Applies `f` to the intervals of one object, in place.
pub fn apply_compose(f: &ComposeFn, iv: &mut Vec<Interval>) {
    let out: Vec<Interval> = Composed::new(f.clone(), std::mem::take(iv).into_iter()).collect();
    *iv = out;
}

/// The intervals of a stream with compose function `f` applied, one by one (`Join Bursts`
/// holds an interval back until the next one has another value).
pub struct Composed<I> {
    f: ComposeFn,
    inner: I,
    state: ComposeState,
    /// `Join Bursts`: the interval being joined.
    pending: Option<Interval>,
}

impl<I: Iterator<Item = Interval>> Composed<I> {
    pub fn new(f: ComposeFn, inner: I) -> Self {
        Composed {
            f,
            inner,
            state: ComposeState::default(),
            pending: None,
        }
    }
}

impl<I: Iterator<Item = Interval>> Iterator for Composed<I> {
    type Item = Interval;

    fn next(&mut self) -> Option<Interval> {
        match self.f {
            ComposeFn::AsIs => self.inner.next(),
            ComposeFn::JoinBursts => loop {
                // Consecutive intervals of one value become one.
                let Some(i) = self.inner.next() else {
                    return self.pending.take();
                };
                match &mut self.pending {
                    Some(last) if last.value == i.value && i.begin != i.end => last.end = i.end,
                    Some(last)
                        if last.value == i.value && i.begin == i.end && last.end == i.end => {}
                    Some(_) => return self.pending.replace(i),
                    None => self.pending = Some(i),
                }
            },
            _ => {
                let mut i = self.inner.next()?;
                i.value = self.state.value(&self.f, &i);
                Some(i)
            }
        }
    }
}

/// A compose function applied to one object's intervals one at a time, for functions that
/// give one interval per interval (not `Join Bursts`).
pub struct ComposeStep {
    f: ComposeFn,
    state: ComposeState,
}

impl ComposeStep {
    pub fn new(f: ComposeFn) -> Self {
        ComposeStep {
            f,
            state: ComposeState::default(),
        }
    }

    /// The value of the next interval, `i`.
    pub fn value(&mut self, i: &Interval) -> f64 {
        match self.f {
            ComposeFn::AsIs | ComposeFn::JoinBursts => i.value,
            _ => self.state.value(&self.f, i),
        }
    }
}

/// What the stateful compose functions remember of one object's intervals.
#[derive(Default)]
struct ComposeState {
    stack: Vec<f64>,
    nesting: f64,
    prev_value: f64,
    prev_in: f64,
}

impl ComposeState {
    /// The value of interval `i` under `f` (not `Join Bursts`).
    fn value(&mut self, f: &ComposeFn, i: &Interval) -> f64 {
        use ComposeFn::{
            Abs, Accumulate, Add, AsIs, BeginTime, BurstTime, Ceil, Complement, Delta, Div,
            DivideByBurstTime, EndTime, Enumerate, Floor, InStackedVal, InverseDiv, IsEqual,
            IsEqualSign, IsInRange, JoinBursts, Mod, ModPlus1, NestingLevel, OneMinusSign, Prod,
            Round, SelectRange, Sign, StackedVal, Subs, Translate,
        };
        let v = i.value;
        let out = match f {
            Sign => f64::from(u8::from(v != 0.0)),
            OneMinusSign => 1.0 - f64::from(u8::from(v != 0.0)),
            Mod(d) => v % if *d == 0.0 { 1.0 } else { *d },
            ModPlus1(d) => v % if *d == 0.0 { 1.0 } else { *d } + 1.0,
            Div(d) => {
                if *d == 0.0 {
                    v % 1.0
                } else {
                    v / d
                }
            }
            Prod(k) => v * k,
            Add(k) => v + k,
            Subs(k) => v - k,
            Complement(k) => k - v,
            InverseDiv(k) => {
                if v == 0.0 {
                    0.0
                } else {
                    k / v
                }
            }
            SelectRange(max, min, open) => {
                if in_ranges(v, max, min, *open) {
                    v
                } else {
                    0.0
                }
            }
            IsInRange(max, min, open) => f64::from(u8::from(in_ranges(v, max, min, *open))),
            IsEqual(vals) => {
                if vals.contains(&v) {
                    v
                } else {
                    0.0
                }
            }
            IsEqualSign(vals) => f64::from(u8::from(vals.contains(&v))),
            Floor => v.floor(),
            Ceil => v.ceil(),
            Round => v.round_ties_even(),
            Abs => v.abs(),
            StackedVal | InStackedVal(_) => {
                if v == 0.0 {
                    self.stack.pop();
                } else {
                    self.stack.push(v);
                }
                match (self.stack.last(), f) {
                    (None, _) => 0.0,
                    (Some(&top), InStackedVal(want)) => {
                        if top == *want {
                            top
                        } else {
                            0.0
                        }
                    }
                    (Some(&top), _) => top,
                }
            }
            NestingLevel => {
                if v != 0.0 {
                    self.nesting += 1.0;
                } else if self.nesting > 0.0 {
                    self.nesting -= 1.0;
                }
                self.nesting
            }
            Enumerate => {
                if v == 0.0 {
                    self.prev_value
                } else {
                    self.prev_value + 1.0
                }
            }
            Accumulate => self.prev_value + v,
            Delta => {
                let r = if v == self.prev_in {
                    0.0
                } else {
                    v - self.prev_in
                };
                self.prev_in = v;
                r
            }
            BurstTime(s) => s.of((i.end - i.begin) as f64),
            DivideByBurstTime(s) => {
                let d = (i.end - i.begin) as f64;
                if d == 0.0 { 0.0 } else { v / s.of(d) }
            }
            BeginTime(s) => s.of(i.begin as f64),
            EndTime(s) => s.of(i.end as f64),
            Translate(list) => list
                .chunks(2)
                .find(|p| p[0] == v)
                .and_then(|p| p.get(1).copied())
                .unwrap_or(v),
            AsIs | JoinBursts => v,
        };
        self.prev_value = out;
        out
    }
}

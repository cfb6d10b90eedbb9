//! Two runs compared (`prvscope compare A B`): per scope (function, OpenMP region, MPI
//! call), per state and per POP metric, each run's own figure over its region and their
//! difference, B less A.
//!
//! Each run's figures are the ones its own commands give: a scope's time is the inclusive
//! time of `prvscope scopes` (over all the threads it counts, the scope types chosen from
//! each trace as `scopes` chooses them, or those named), a state's the time of `prvscope
//! stats` summed over the threads, the POP metrics those of `prvscope pop` with run A as the
//! reference (its region cut as `pop --from --to` cuts it). A delta is always the difference
//! of the two figures shown, never computed another way.
//!
//! Scopes are matched by their type (as `scopes` names it) and name: the values of a
//! function differ from one binary to the next, their names do not. Times are in
//! nanoseconds, so that runs traced in other units compare.

use std::collections::BTreeMap;

use prvscope_analysis::scopes::{self, ScopeType};
use prvscope_analysis::stats::{self, Column, Semantic};
use prvscope_paraver::pop;
use prvscope_store::Trace;

/// The part of a run compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Region {
    /// The whole run.
    Whole,
    /// `[t0, t1)`, in the trace's ticks.
    Range(u64, u64),
    /// The `n`-th (1-based) time event type `ty` takes `value` on a thread (with `None`: the
    /// `n`-th value of the type that is not its end value, 0 or null: an iteration or phase
    /// marker), until that thread's next event of the type (or the trace's end): from the
    /// earliest of these starts over the threads to the latest of their ends.
    Event {
        ty: u32,
        value: Option<u64>,
        n: usize,
    },
}

/// A region found in a run: `[t0, t1)` in its ticks, and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub t0: u64,
    pub t1: u64,
    /// The region as a user reads it ("whole run", "[a, b)", "2nd value 5 of type 1000").
    pub how: String,
}

impl Found {
    /// Is it the whole run?
    pub fn is_whole(&self, trace: &Trace) -> bool {
        self.t0 == 0 && self.t1 == trace.header.end_time
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Finds `region` in `trace`, or says why it is not there.
pub fn find(trace: &Trace, region: &Region) -> Result<Found, String> {
    let end = trace.header.end_time;
    match *region {
        Region::Whole => Ok(Found {
            t0: 0,
            t1: end,
            how: "whole run".to_owned(),
        }),
        Region::Range(t0, t1) => {
            if t1 <= t0 {
                return Err(format!("the range [{t0}, {t1}) is empty"));
            }
            if t0 >= end {
                return Err(format!(
                    "the range [{t0}, {t1}) starts after the trace's end ({end})"
                ));
            }
            let t1 = t1.min(end);
            Ok(Found {
                t0,
                t1,
                how: format!("[{t0}, {t1})"),
            })
        }
        Region::Event { ty, value, n } => {
            if n == 0 {
                return Err("the occurrence is counted from 1".to_owned());
            }
            let store = &trace.store;
            if !store.event_types().contains(&ty) {
                return Err(format!("no event of type {ty} in the trace"));
            }
            let policy = store.null_policy();
            let wanted = |v: u64| match value {
                Some(want) => v == want,
                None => v != 0 && !policy.is_null(v),
            };
            let (mut t0, mut t1) = (u64::MAX, 0u64);
            let mut most = 0usize;
            for row in 0..store.thread_count() {
                let events: Vec<(u64, u64)> = store.events_in(row, ty, 0, u64::MAX).collect();
                let mut seen = 0usize;
                for (i, &(time, v)) in events.iter().enumerate() {
                    if !wanted(v) {
                        continue;
                    }
                    seen += 1;
                    if seen == n {
                        let until = events.get(i + 1).map_or(end, |e| e.0);
                        t0 = t0.min(time);
                        t1 = t1.max(until);
                        break;
                    }
                }
                most = most.max(seen);
            }
            let what = match value {
                Some(v) => format!("value {v} of type {ty}"),
                None => format!("value of type {ty}"),
            };
            if t0 == u64::MAX {
                return Err(format!(
                    "no thread has a {} {what} (at most {most} on a thread)",
                    ordinal(n)
                ));
            }
            Ok(Found {
                t0,
                t1: t1.max(t0),
                how: format!("{} {what}: [{t0}, {})", ordinal(n), t1.max(t0)),
            })
        }
    }
}

/// A scope's figures in one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeFigure {
    /// Inclusive time over the threads counted, in ns.
    pub inclusive_ns: u64,
    pub entries: u64,
    /// The scopes of the trace of this type and name (usually one).
    pub keys: Vec<scopes::ScopeKey>,
}

/// One run's figures over its region.
#[derive(Debug, Clone)]
pub struct Run {
    /// The region compared.
    pub region: Found,
    /// The threads the scope analysis counts (its per-thread means divide by them).
    pub threads: usize,
    /// Per (type, scope name) as `scopes` names them.
    pub scopes: BTreeMap<(String, String), ScopeFigure>,
    /// The scope types analysed.
    pub types: Vec<ScopeType>,
    /// Per state (its name): time over all threads, in ns.
    pub states: BTreeMap<String, u64>,
    /// The POP figures of the region, or why there are none.
    pub pop: Result<pop::Figures, String>,
    /// What the reader should know (scopes of the same name added together, types missing).
    pub notes: Vec<String>,
    /// 0 is a value of its own (NULL mode), not the end of a call or function (legacy).
    pub zero_is_value: bool,
}

/// What to compare.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Scope types as `scopes --types` takes them (empty: chosen from each trace).
    pub types: Vec<String>,
    /// Compute the POP metrics (they replay the run on an ideal network: the slow part).
    pub pop: bool,
}

/// The figures of `trace` over `region`.
pub fn run(trace: &Trace, region: Found, options: &Options) -> Result<Run, String> {
    let mut notes = Vec::new();
    let store = &trace.store;
    let ns = trace.header.time_unit.ns_per_tick();
    let present = store.event_types();
    let named = options
        .types
        .iter()
        .filter(|text| !text.trim().is_empty())
        .map(|text| ScopeType::parse(text, trace.pcf.as_ref()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--types: {e}"))?;
    let (types, missing): (Vec<_>, Vec<_>) = named
        .iter()
        .copied()
        .partition(|st| present.contains(&st.ty));
    if !missing.is_empty() {
        let missing: Vec<String> = missing.iter().map(|st| st.ty.to_string()).collect();
        notes.push(format!("no event of type {}", missing.join(", ")));
    }
    let types = if named.is_empty() {
        scopes::auto_types(trace.pcf.as_ref(), &present)
    } else {
        types
    };
    let analysed = types.clone();
    let mut table = BTreeMap::new();
    let mut threads = 0;
    if types.is_empty() {
        notes.push("no scope event types (functions, OpenMP, MPI)".to_owned());
    } else {
        let ctx = scopes::ScopeContext::new(trace.pcf.as_ref(), store);
        let query = scopes::ScopeQuery {
            types,
            t0: region.t0,
            t1: region.t1,
        };
        let a = scopes::analyze(store, &ctx, &query, None)
            .map_err(|_| "scope analysis cancelled".to_owned())?;
        threads = a.counted_rows().len();
        let mut doubled: BTreeMap<(String, String), usize> = BTreeMap::new();
        for sc in &a.scopes {
            let key = (ctx.type_label(sc.key.ty), sc.name.clone());
            let f: &mut ScopeFigure = table.entry(key.clone()).or_default();
            f.inclusive_ns = ns
                .checked_mul(sc.inclusive)
                .and_then(|v| v.checked_add(f.inclusive_ns))
                .ok_or_else(|| format!("{}: its time overflows 64 bits of ns", sc.name))?;
            f.entries += sc.entries;
            f.keys.push(sc.key);
            *doubled.entry(key).or_default() += 1;
        }
        for ((ty, name), n) in doubled {
            if n > 1 {
                notes.push(format!(
                    "{n} scopes of type {ty} are named {name}: their times are added"
                ));
            }
        }
    }
    let mut states = BTreeMap::new();
    let per_state = stats::time_per_value(store, Semantic::StateAsIs, region.t0, region.t1);
    for row in &per_state.rows {
        for (&col, &ticks) in row {
            if let Column::Value(_) = col {
                let name = prvscope_analysis::table::column_label(trace, Semantic::StateAsIs, col);
                *states.entry(name).or_insert(0u64) += ticks * ns;
            }
        }
    }
    let pop = if options.pop {
        let window = (!region.is_whole(trace)).then_some((region.t0, region.t1));
        pop::figures_in(trace, window)
    } else {
        Err("not computed (not asked for)".to_owned())
    };
    Ok(Run {
        zero_is_value: !store.null_policy().zero_is_null,
        region,
        threads,
        scopes: table,
        types: analysed,
        states,
        pop,
        notes,
    })
}

/// What a time row compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Scope,
    State,
}

/// A scope or a state in both runs (0 in a run that does not have it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeRow {
    pub kind: Kind,
    /// The scope's or state's name.
    pub name: String,
    /// The scope's type as `scopes` names it; "State" for a state.
    pub ty: String,
    /// The time in each run, ns over all threads.
    pub a: u64,
    pub b: u64,
    /// Entries in each run (scopes; 0 for states).
    pub entries: (u64, u64),
}

impl TimeRow {
    /// B less A, in ns.
    pub fn delta(&self) -> i128 {
        i128::from(self.b) - i128::from(self.a)
    }

    /// The delta as a percentage of A (none when A is 0).
    pub fn delta_percent(&self) -> Option<f64> {
        (self.a > 0).then(|| self.delta() as f64 / self.a as f64 * 100.0)
    }
}

/// A POP metric in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    pub name: &'static str,
    /// A percentage (else a plain figure: speedup, IPC, frequency).
    pub percent: bool,
    pub a: Option<f64>,
    pub b: Option<f64>,
}

impl MetricRow {
    /// B less A, when both are known.
    pub fn delta(&self) -> Option<f64> {
        Some(self.b? - self.a?)
    }

    /// A value of it as tables write it: `97.35%` or `1.90`, `-` when not known.
    pub fn text(&self, v: Option<f64>) -> String {
        match v {
            Some(v) if self.percent => format!("{v:.2}%"),
            Some(v) => format!("{v:.2}"),
            None => "-".to_owned(),
        }
    }

    /// Its delta as tables write it: a percentage's in percentage points (`-2.03 pp`).
    pub fn delta_text(&self) -> String {
        self.delta().map_or_else(
            || "-".to_owned(),
            |d| format!("{d:+.2}{}", if self.percent { " pp" } else { "" }),
        )
    }
}

/// Two runs compared.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub a: Run,
    pub b: Run,
    /// Every scope, then every state, of either run.
    pub rows: Vec<TimeRow>,
    /// The POP metrics (run A the reference), or why there are none.
    pub metrics: Result<Vec<MetricRow>, String>,
    /// What the reader should know of the two runs together (they read nulls differently).
    pub notes: Vec<String>,
}

impl Comparison {
    /// A per-thread mean: `ns` over the threads run `a` (else B) counts.
    pub fn per_thread(&self, ns: u64, of_a: bool) -> Option<f64> {
        let threads = if of_a { self.a.threads } else { self.b.threads };
        (threads > 0).then(|| ns as f64 / threads as f64)
    }
}

/// Compares run `a` with run `b`.
pub fn compare(a: Run, b: Run) -> Comparison {
    let mut rows = Vec::new();
    let keys: std::collections::BTreeSet<&(String, String)> =
        a.scopes.keys().chain(b.scopes.keys()).collect();
    for key in keys {
        let (fa, fb) = (
            a.scopes.get(key).cloned().unwrap_or_default(),
            b.scopes.get(key).cloned().unwrap_or_default(),
        );
        rows.push(TimeRow {
            kind: Kind::Scope,
            name: key.1.clone(),
            ty: key.0.clone(),
            a: fa.inclusive_ns,
            b: fb.inclusive_ns,
            entries: (fa.entries, fb.entries),
        });
    }
    let states: std::collections::BTreeSet<&String> =
        a.states.keys().chain(b.states.keys()).collect();
    for name in states {
        rows.push(TimeRow {
            kind: Kind::State,
            name: name.clone(),
            ty: "State".to_owned(),
            a: a.states.get(name).copied().unwrap_or(0),
            b: b.states.get(name).copied().unwrap_or(0),
            entries: (0, 0),
        });
    }
    let metrics = match (&a.pop, &b.pop) {
        (Ok(fa), Ok(fb)) => Ok(pop::metrics(&[fa.clone(), fb.clone()])
            .into_iter()
            .map(|m| MetricRow {
                name: m.name,
                percent: m.percent,
                a: m.values.first().copied().flatten(),
                b: m.values.get(1).copied().flatten(),
            })
            .collect()),
        (Err(e), _) => Err(format!("A: {e}")),
        (_, Err(e)) => Err(format!("B: {e}")),
    };
    let mut notes = Vec::new();
    if a.zero_is_value != b.zero_is_value {
        let mode = |r: &Run| {
            if r.zero_is_value {
                "NULL mode (0 is a value: rows such as \"Outside MPI\")"
            } else {
                "legacy mode (0 ends a call)"
            }
        };
        notes.push(format!(
            "A is in {}, B in {}: rows of the value 0 are in one run only",
            mode(&a),
            mode(&b)
        ));
    }
    Comparison {
        a,
        b,
        rows,
        metrics,
        notes,
    }
}

/// Each time the scope of type `ty` and name `name` (a row of the comparison) is open in
/// `run`'s region of `trace`, per thread (see [`scopes::scope_instances`]; the scopes of
/// that name taken together); empty when the run has no such scope.
pub fn instances(
    trace: &Trace,
    run: &Run,
    (ty, name): (&str, &str),
) -> Result<Vec<Vec<(u64, u64)>>, String> {
    let Some(f) = run.scopes.get(&(ty.to_owned(), name.to_owned())) else {
        return Ok(Vec::new());
    };
    let ctx = scopes::ScopeContext::new(trace.pcf.as_ref(), &trace.store);
    let mut all: Vec<Vec<(u64, u64)>> = Vec::new();
    for &key in &f.keys {
        let per = scopes::scope_instances(
            &trace.store,
            &ctx,
            &run.types,
            key,
            run.region.t0,
            run.region.t1,
            None,
        )
        .map_err(|_| "cancelled".to_owned())?;
        if all.len() < per.len() {
            all.resize(per.len(), Vec::new());
        }
        for (mine, theirs) in all.iter_mut().zip(per) {
            mine.extend(theirs);
        }
    }
    for t in &mut all {
        t.sort_unstable();
    }
    Ok(all)
}

/// How the rows are ordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    /// The largest change first, either way (the default).
    #[default]
    AbsDelta,
    /// The largest increase first.
    Delta,
    /// Kind, type and name.
    Name,
    /// The most time in A first.
    A,
    /// The most time in B first.
    B,
}

/// Sorts `rows` by `order` (ties by kind, type and name).
pub fn sort(rows: &mut [TimeRow], order: Order) {
    let name = |r: &TimeRow| (r.kind, r.ty.clone(), r.name.clone());
    match order {
        Order::AbsDelta => rows.sort_by_key(|r| (std::cmp::Reverse(r.delta().abs()), name(r))),
        Order::Delta => rows.sort_by_key(|r| (std::cmp::Reverse(r.delta()), name(r))),
        Order::Name => rows.sort_by_key(name),
        Order::A => rows.sort_by_key(|r| (std::cmp::Reverse(r.a), name(r))),
        Order::B => rows.sort_by_key(|r| (std::cmp::Reverse(r.b), name(r))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_read_as_english() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }

    fn trace(text: &str) -> Trace {
        prvscope_import::load_bytes(
            std::path::Path::new("t.prv"),
            text.as_bytes(),
            None,
            &prvscope_import::LoadOptions::default(),
        )
        .unwrap()
    }

    /// Two threads with phase markers (type 1000: 1, 0, 2, 0, 1, 0 on thread 1; 1, 2 on
    /// thread 2), worked out by hand.
    const PHASES: &str = "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:1(2:1)\n\
        2:1:1:1:1:10:1000:1\n\
        2:2:1:1:2:15:1000:1\n\
        2:1:1:1:1:100:1000:0\n\
        2:1:1:1:1:200:1000:2\n\
        2:2:1:1:2:250:1000:2\n\
        2:1:1:1:1:300:1000:0\n\
        2:1:1:1:1:400:1000:1\n\
        2:1:1:1:1:500:1000:0\n";

    #[test]
    fn a_region_is_found_by_the_nth_value_on_each_thread() {
        let t = trace(PHASES);
        let find = |value, n| find(&t, &Region::Event { ty: 1000, value, n });
        // The 2nd value other than 0: 2 on both threads, [200, 300) and [250, end).
        let r = find(None, 2).unwrap();
        assert_eq!((r.t0, r.t1), (200, 1000));
        assert_eq!(r.how, "2nd value of type 1000: [200, 1000)");
        // The 1st 1: [10, 100) and [15, 250).
        let r = find(Some(1), 1).unwrap();
        assert_eq!((r.t0, r.t1), (10, 250));
        // The 2nd 1: thread 1 alone, [400, 500).
        let r = find(Some(1), 2).unwrap();
        assert_eq!((r.t0, r.t1), (400, 500));
        assert_eq!(
            find(Some(1), 3).unwrap_err(),
            "no thread has a 3rd value 1 of type 1000 (at most 2 on a thread)"
        );
        assert_eq!(
            super::find(
                &t,
                &Region::Event {
                    ty: 7,
                    value: None,
                    n: 1
                }
            )
            .unwrap_err(),
            "no event of type 7 in the trace"
        );
        assert!(super::find(&t, &Region::Range(5, 5)).is_err());
        let r = super::find(&t, &Region::Range(5, 5000)).unwrap();
        assert_eq!((r.t0, r.t1), (5, 1000), "a range ends at the trace's end");
    }

    #[test]
    fn a_delta_is_b_less_a() {
        let r = TimeRow {
            kind: Kind::Scope,
            name: "f".into(),
            ty: "User function".into(),
            a: 300,
            b: 120,
            entries: (1, 1),
        };
        assert_eq!(r.delta(), -180);
        assert_eq!(r.delta_percent(), Some(-60.0));
        let new = TimeRow { a: 0, ..r };
        assert_eq!(new.delta(), 120);
        assert_eq!(new.delta_percent(), None);
    }
}

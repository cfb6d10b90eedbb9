//! Events of one type at one time keep their file order: through the store (the parallel
//! parser, the naive parser, the store cache), the views, the `stats` table and the scope
//! walk, on random well-nested traces where many events share a time (a call entered and
//! left at one instant, a call left and the next entered at one instant, on one type or
//! two). The scope walk is compared with a naive walk that takes the events one by one in
//! file order.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use prvscope_analysis::scopes::{self, Nesting, ScopeContext, ScopeKey, ScopeQuery, ScopeType};
use prvscope_analysis::stats::{self, Column, Semantic};
use prvscope_import::{self as trace, LoadOptions, naive};
use prvscope_store::signal::{SignalSpec, ViewSignals};

const FUNCTION: u32 = 60_000_019;
const MPI: [u32; 2] = [50_000_001, 50_000_002];
const SAMPLED: u32 = 30_000_000;
const NULL: u64 = u64::MAX;

/// One step of a thread's program: (what, a value, time to the step, written on the line of
/// the step before when at the same time).
type Op = (u8, u64, u64, bool);

fn op() -> impl Strategy<Value = Op> {
    (
        0u8..4,
        0u64..12,
        prop_oneof![3 => Just(0u64), 2 => 1u64..40],
        any::<bool>(),
    )
}

/// A thread's events in file order, (time, type, value; 0 leaves), and whether each starts
/// a new line. Functions nest, an MPI call (of either type) nests in them and holds nothing,
/// the sampled function replaces its value.
fn program(ops: &[Op]) -> Vec<(u64, u32, u64, bool)> {
    let mut out = Vec::new();
    let mut t = 0u64;
    let mut stack: Vec<u32> = Vec::new();
    for &(what, v, dt, join) in ops {
        t += dt;
        let mpi_open = stack.last().is_some_and(|ty| MPI.contains(ty));
        let (ty, value) = match what {
            0 if !mpi_open => (FUNCTION, v % 4 + 1),
            2 if !mpi_open => (MPI[(v % 2) as usize], v % 3 + 1),
            0..=2 => match stack.last() {
                Some(&ty) => (ty, 0),
                None => (FUNCTION, v % 4 + 1),
            },
            _ => (SAMPLED, v % 4),
        };
        if ty != SAMPLED {
            if value == 0 {
                stack.pop();
            } else {
                stack.push(ty);
            }
        }
        let same_time = out.last().is_some_and(|e: &(u64, u32, u64, bool)| e.0 == t);
        out.push((t, ty, value, !(join && same_time)));
    }
    out
}

/// The trace's text (one state per thread over the whole run, then the event lines of every
/// thread merged by time, each thread's in its order) and its end.
fn text_of(threads: &[Vec<(u64, u32, u64, bool)>]) -> (String, u64) {
    let end = threads
        .iter()
        .filter_map(|t| t.last().map(|e| e.0))
        .max()
        .unwrap_or(0)
        + 10;
    let n = threads.len();
    let mut text = format!("#Paraver (01/01/2026 at 00:00):{end}_ns:1({n}):1:1({n}:1)\n");
    let mut lines: Vec<(u64, usize, String)> = Vec::new();
    for (th, events) in threads.iter().enumerate() {
        lines.push((0, th, format!("1:{}:1:1:{}:0:{end}:1", th + 1, th + 1)));
        for &(t, ty, v, new_line) in events {
            match lines.last_mut() {
                Some(l) if !new_line && l.1 == th && l.0 == t && l.2.starts_with("2:") => {
                    let _ = write!(l.2, ":{ty}:{v}");
                }
                _ => lines.push((t, th, format!("2:{}:1:1:{}:{t}:{ty}:{v}", th + 1, th + 1))),
            }
        }
    }
    lines.sort_by_key(|l| l.0); // stable: each thread's lines keep their order
    for l in lines {
        text.push_str(&l.2);
        text.push('\n');
    }
    (text, end)
}

/// What a scope analysis gives, per thread and scope: (inclusive, exclusive), entries, and
/// the irregularities (exits without entry, frames closed under others, open at the end).
#[derive(Debug, Default, PartialEq)]
struct Walked {
    time: BTreeMap<(usize, ScopeKey), (u64, u64)>,
    entries: BTreeMap<ScopeKey, u64>,
    report: (u64, u64, u64),
}

/// The scope walk done naively: every event in file order, one at a time.
fn naive_walk(threads: &[Vec<(u64, u32, u64, bool)>], t0: u64, t1: u64) -> Walked {
    let mut w = Walked::default();
    for (th, events) in threads.iter().enumerate() {
        let mut stack: Vec<ScopeKey> = Vec::new();
        let mut sampled: Option<ScopeKey> = None;
        let mut now = t0;
        let mut add = |from: u64, to: u64, sampled: Option<ScopeKey>, stack: &[ScopeKey]| {
            let (from, to) = (from.max(t0), to.min(t1));
            if to <= from {
                return;
            }
            let path: Vec<ScopeKey> = sampled.iter().chain(stack).copied().collect();
            if let Some(&top) = path.last() {
                w.time.entry((th, top)).or_default().1 += to - from;
            }
            let mut seen: Vec<ScopeKey> = Vec::new();
            for k in path {
                if !seen.contains(&k) {
                    seen.push(k);
                    w.time.entry((th, k)).or_default().0 += to - from;
                }
            }
        };
        for (i, &(t, ty, v, _)) in events.iter().enumerate() {
            if t >= t1 {
                break;
            }
            add(now, t, sampled, &stack);
            now = now.max(t);
            let in_window = t >= t0;
            let key = ScopeKey { ty, value: v };
            if ty == SAMPLED {
                // Only a sampled function's last event at a time counts.
                if events[i + 1..]
                    .iter()
                    .take_while(|e| e.0 == t)
                    .any(|e| e.1 == SAMPLED)
                {
                    continue;
                }
                if v == 0 {
                    if sampled.take().is_none() && in_window {
                        w.report.0 += 1;
                    }
                } else {
                    sampled = Some(key);
                    if in_window {
                        *w.entries.entry(key).or_default() += 1;
                    }
                }
                continue;
            }
            if v == 0 {
                match stack.iter().rposition(|k| k.ty == ty) {
                    Some(p) => {
                        if in_window {
                            w.report.1 += (stack.len() - p - 1) as u64;
                        }
                        stack.truncate(p);
                    }
                    None if in_window => w.report.0 += 1,
                    None => {}
                }
            } else {
                stack.push(key);
                if in_window {
                    *w.entries.entry(key).or_default() += 1;
                }
            }
        }
        add(now, t1, sampled, &stack);
        // Left open: the functions; an MPI call or a sample held at the end holds a value.
        w.report.2 += stack.iter().filter(|k| k.ty == FUNCTION).count() as u64;
    }
    w.time.retain(|_, v| *v != (0, 0));
    w
}

fn walked(store: &prvscope_store::TraceStore, t0: u64, t1: u64) -> Walked {
    let ctx = ScopeContext::new(None, store);
    let mut types: Vec<ScopeType> = [FUNCTION, MPI[0], MPI[1]]
        .into_iter()
        .map(ScopeType::new)
        .collect();
    types.push(ScopeType {
        ty: SAMPLED,
        nesting: Nesting::Replace,
    });
    let a = scopes::analyze(store, &ctx, &ScopeQuery { types, t0, t1 }, None).unwrap();
    let mut w = Walked::default();
    for s in &a.scopes {
        for (th, (&i, &e)) in s
            .inclusive_per_thread
            .iter()
            .zip(&s.exclusive_per_thread)
            .enumerate()
        {
            if (i, e) != (0, 0) {
                w.time.insert((th, s.key), (i, e));
            }
        }
        if s.entries > 0 {
            w.entries.insert(s.key, s.entries);
        }
    }
    w.report = (
        a.report.exits_without_entry,
        a.report.unclosed_inner,
        a.report.open_at_end,
    );
    w
}

/// Per thread and type, its events (time, value) in file order, as the store must hold them.
fn columns_of(threads: &[Vec<(u64, u32, u64, bool)>]) -> BTreeMap<(usize, u32), Vec<(u64, u64)>> {
    let mut out: BTreeMap<(usize, u32), Vec<(u64, u64)>> = BTreeMap::new();
    for (th, events) in threads.iter().enumerate() {
        for &(t, ty, v, _) in events {
            out.entry((th, ty)).or_default().push((t, v));
        }
    }
    out
}

fn columns_in(store: &prvscope_store::TraceStore) -> BTreeMap<(usize, u32), Vec<(u64, u64)>> {
    let mut out = BTreeMap::new();
    for (th, t) in store.threads().iter().enumerate() {
        for c in &t.events {
            out.insert((th, c.ty), c.time.iter().zip(c.value.iter()).collect());
        }
    }
    out
}

/// The MPI call view's value after each time where an MPI event is, read in file order (the
/// last MPI event there), null as `NULL`.
fn mpi_view_after(events: &[(u64, u32, u64, bool)]) -> BTreeMap<u64, u64> {
    let mut out = BTreeMap::new();
    for &(t, ty, v, _) in events {
        if MPI.contains(&ty) {
            out.insert(t, if v == 0 { NULL } else { v });
        }
    }
    out
}

/// `stats` of one type in file order: the last event at a time holds until the next time
/// (before the first event, Paraver's value is 0).
fn naive_stats(events: &[(u64, u32, u64, bool)], ty: u32, end: u64) -> BTreeMap<Column, u64> {
    let mut out: BTreeMap<Column, u64> = BTreeMap::new();
    let mut held = Column::Value(0);
    let mut since = 0;
    for &(t, _, v, _) in events.iter().filter(|e| e.1 == ty) {
        if t > since {
            *out.entry(held).or_default() += t - since;
            since = t;
        }
        held = Column::Value(v);
    }
    *out.entry(held).or_default() += end - since;
    out.retain(|_, t| *t > 0);
    out
}

fn check(threads: &[Vec<(u64, u32, u64, bool)>], window: (u64, u64), dir: &Path) {
    let (text, end) = text_of(threads);
    let prv = dir.join("t.prv");
    std::fs::write(&prv, &text).unwrap();
    let cache_dir = dir.join("cache");
    let _ = std::fs::remove_dir_all(&cache_dir);
    let parsed = trace::load(&prv, &LoadOptions::default(), None).unwrap();
    let cached_options = crate::store_cache::options(&cache_dir);
    let _written = trace::load(&prv, &cached_options, None).unwrap();
    let cached = trace::load(&prv, &cached_options, None).unwrap();
    assert!(
        cached.store.is_mapped(),
        "the second load reads the store cache"
    );
    let naive = naive::parse(&text, parsed.store.null_policy()).unwrap();
    let expected = columns_of(threads);
    assert_eq!(columns_in(&parsed.store), expected, "parallel parser");
    assert_eq!(columns_in(&naive.store), expected, "naive parser");
    assert_eq!(columns_in(&cached.store), expected, "store cache");

    let (t0, t1) = window;
    let naive_scopes = naive_walk(threads, t0, t1);
    for t in [&parsed, &cached] {
        assert_eq!(
            walked(&t.store, t0, t1),
            naive_scopes,
            "scopes over [{t0}, {t1})"
        );
        assert_eq!(walked(&t.store, 0, end), naive_walk(threads, 0, end));
    }

    let view = ViewSignals::build(
        Arc::clone(&parsed.store),
        SignalSpec::Events(MPI.to_vec()),
        true,
    );
    for (th, events) in threads.iter().enumerate() {
        for (t, v) in mpi_view_after(events) {
            let shown = view.interval_at(th, t).map_or(NULL, |i| i.value);
            assert_eq!(shown, v, "MPI call view of thread {th} at {t}");
        }
        for ty in [FUNCTION, MPI[0], SAMPLED] {
            let table = stats::time_per_value(&parsed.store, Semantic::LastEventValue(ty), 0, end);
            let row = table.rows.get(th).cloned().unwrap_or_default();
            let row: BTreeMap<Column, u64> = row.into_iter().filter(|c| c.1 > 0).collect();
            assert_eq!(
                row,
                naive_stats(events, ty, end),
                "stats of {ty}, thread {th}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn events_at_one_time_keep_their_file_order(
        threads in prop::collection::vec(prop::collection::vec(op(), 1..60), 1..4),
        from in 0u64..400,
        len in 1u64..400,
    ) {
        let dir = tempdir();
        let threads: Vec<_> = threads.iter().map(|ops| program(ops)).collect();
        check(&threads, (from, from + len), &dir);
    }
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "prvscope-same-time-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The case that was reported: `MPI_Cart_create` entered and left at one time (two lines),
/// on every run of the EPOCH series. Its scope has no time, and nothing is left open.
#[test]
fn a_call_entered_and_left_at_one_time_has_no_time() {
    let Some(shared) = crate::common::shared_traces() else {
        return;
    };
    for n in [1, 2, 4] {
        let path = shared.join(format!("pypop_epoch_scaling/epoch_{n}proc.prv.gz"));
        let t = trace::load(&path, &LoadOptions::default(), None).unwrap();
        let (_, a) = crate::common::whole_trace_scopes(&t);
        let cart = a
            .scopes
            .iter()
            .find(|s| s.name == "MPI_Cart_create")
            .unwrap_or_else(|| panic!("{n} processes: no MPI_Cart_create"));
        assert_eq!(cart.inclusive, 0, "{n} processes");
        let calls = if n == 4 { 2 } else { 1 };
        assert_eq!(cart.entries, n * calls, "{n} processes");
        assert_eq!(a.report.open_at_end, 0, "{n} processes");
        assert_eq!(a.report.exits_without_entry, 0, "{n} processes");
    }
}

//! `prvscope compare` against each run's own commands: every scope's A and B are what
//! `scopes --csv` of that trace gives (over the same region), every state's what `stats
//! --csv` gives summed over the threads, every delta is B less A; a trace compared with
//! itself changes nothing; a region found by an event is the one its events give.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::common;

fn prvscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_prvscope"))
}

/// The fields of a CSV line (quoted fields with commas and doubled quotes read back).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A CSV as maps from its header's names to the fields.
fn table(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = text.lines();
    let head = fields(lines.next().expect("a header"));
    lines
        .map(|l| head.iter().cloned().zip(fields(l)).collect())
        .collect()
}

/// `scopes --csv` of `trace` over `window`: inclusive ticks per (type, scope), the rows of
/// several applications added.
fn scopes_of(trace: &Path, window: Option<(u64, u64)>) -> BTreeMap<(String, String), u64> {
    let mut cmd = prvscope();
    cmd.args(["scopes", "--no-cache", "--csv"]).arg(trace);
    if let Some((t0, t1)) = window {
        cmd.args(["--from", &t0.to_string(), "--to", &t1.to_string()]);
    }
    let out = cmd.output().unwrap();
    if !out.status.success() {
        // No scope type in the trace: compare has no scope row either.
        return BTreeMap::new();
    }
    let mut m = BTreeMap::new();
    for row in table(&String::from_utf8(out.stdout).unwrap()) {
        *m.entry((row["type"].clone(), row["scope"].clone()))
            .or_insert(0) += row["inclusive"].parse::<u64>().unwrap();
    }
    m
}

/// `stats --csv` of `trace`: ticks per state over all threads (null left out).
fn states_of(trace: &Path) -> BTreeMap<String, u64> {
    let text = common::stdout_of(prvscope().args(["stats", "--no-cache", "--csv"]).arg(trace));
    let mut m = BTreeMap::new();
    for row in table(&text) {
        for (k, v) in row {
            if k != "thread" && k != "null" {
                *m.entry(k).or_insert(0) += v.parse::<u64>().unwrap();
            }
        }
    }
    m.retain(|_, v| *v > 0);
    m
}

fn ns_per_tick(trace: &Path) -> u64 {
    let t = common::load(trace);
    t.header.time_unit.ns_per_tick()
}

/// `compare --csv` of `a` and `b` with `args`, every kind of row.
fn compare(a: &Path, b: &Path, args: &[&str]) -> Vec<BTreeMap<String, String>> {
    let text = common::stdout_of(
        prvscope()
            .args([
                "compare",
                "--no-cache",
                "--csv",
                "--rows",
                "scopes,states,pop",
            ])
            .args(args)
            .arg(a)
            .arg(b),
    );
    table(&text)
}

/// Every scope row of `rows` against `scopes --csv` of each trace, every state row against
/// `stats --csv` (when `states`), every delta against B less A.
fn check(
    rows: &[BTreeMap<String, String>],
    (a, wa): (&Path, Option<(u64, u64)>),
    (b, wb): (&Path, Option<(u64, u64)>),
    states: bool,
) {
    let (sa, sb) = (scopes_of(a, wa), scopes_of(b, wb));
    let (na, nb) = (ns_per_tick(a), ns_per_tick(b));
    let mut seen = 0;
    for r in rows.iter().filter(|r| r["kind"] == "scope") {
        let key = (r["type"].clone(), r["scope"].clone());
        let (ra, rb): (u64, u64) = (r["a"].parse().unwrap(), r["b"].parse().unwrap());
        assert_eq!(ra, sa.get(&key).copied().unwrap_or(0) * na, "A {key:?}");
        assert_eq!(rb, sb.get(&key).copied().unwrap_or(0) * nb, "B {key:?}");
        assert_eq!(
            r["delta"].parse::<i128>().unwrap(),
            i128::from(rb) - i128::from(ra),
            "{key:?}"
        );
        seen += 1;
    }
    // Every scope of either run has its row.
    let all: std::collections::BTreeSet<_> = sa.keys().chain(sb.keys()).collect();
    assert_eq!(seen, all.len(), "{} vs {}", a.display(), b.display());
    if states {
        let (ta, tb) = (states_of(a), states_of(b));
        for r in rows.iter().filter(|r| r["kind"] == "state") {
            let name = &r["scope"];
            assert_eq!(r["type"], "State");
            let (ra, rb): (u64, u64) = (r["a"].parse().unwrap(), r["b"].parse().unwrap());
            assert_eq!(ra, ta.get(name).copied().unwrap_or(0) * na, "A {name}");
            assert_eq!(rb, tb.get(name).copied().unwrap_or(0) * nb, "B {name}");
            assert_eq!(
                r["delta"].parse::<i128>().unwrap(),
                i128::from(rb) - i128::from(ra)
            );
        }
        let n = rows.iter().filter(|r| r["kind"] == "state").count();
        let all: std::collections::BTreeSet<_> = ta.keys().chain(tb.keys()).collect();
        assert_eq!(n, all.len());
    }
}

/// EPOCH's 2- and 4-process runs, when the shared traces are there.
fn epoch_runs() -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let dir = common::shared_traces()?.join("pypop_epoch_scaling");
    Some((
        dir.join("epoch_2proc.prv.gz"),
        dir.join("epoch_4proc.prv.gz"),
    ))
}

#[test]
fn two_epoch_runs_compare_as_each_runs_own_scopes_stats_and_pop() {
    let _shared = common::shared();
    let Some((a, b)) = epoch_runs() else {
        return;
    };
    let rows = compare(&a, &b, &[]);
    check(&rows, (&a, None), (&b, None), true);
    // MPI_Allreduce's time grows from 2 to 4 processes; per thread: over 2 and 4 threads.
    let allreduce = rows
        .iter()
        .find(|r| r["scope"] == "MPI_Allreduce")
        .expect("MPI_Allreduce compared");
    let (ra, rb): (f64, f64) = (
        allreduce["a"].parse().unwrap(),
        allreduce["b"].parse().unwrap(),
    );
    assert!(rb > ra);
    let per = |k: &str| allreduce[k].parse::<f64>().unwrap();
    assert!((per("a_per_thread") - ra / 2.0).abs() < 0.1);
    assert!((per("b_per_thread") - rb / 4.0).abs() < 0.1);
    // The POP metrics are `pop`'s of the series A, B (A the reference): the same figures
    // as modelfactors' CSV of `pop` over both traces.
    let pop = common::stdout_of(
        prvscope()
            .args(["pop", "--no-cache", "--csv"])
            .arg(&a)
            .arg(&b),
    );
    let metrics: Vec<&BTreeMap<String, String>> =
        rows.iter().filter(|r| r["kind"] == "pop").collect();
    assert!(metrics.len() >= 10, "{metrics:?}");
    let mut matched = 0;
    for line in pop.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let cells: Vec<&str> = line.split(';').collect();
        let m = metrics
            .iter()
            .find(|m| m["scope"] == cells[0])
            .unwrap_or_else(|| panic!("{line}: not compared"));
        let (pa, pb): (f64, f64) = (cells[1].parse().unwrap(), cells[2].parse().unwrap());
        let (ca, cb): (f64, f64) = (m["a"].parse().unwrap(), m["b"].parse().unwrap());
        assert!((ca - pa).abs() < 1e-4, "{line}: {ca}");
        assert!((cb - pb).abs() < 1e-4, "{line}: {cb}");
        let d: f64 = m["delta"].parse().unwrap();
        assert!((d - (cb - ca)).abs() < 1e-3, "{line}");
        matched += 1;
    }
    assert_eq!(matched, metrics.len(), "{pop}");
}

#[test]
fn a_trace_compared_with_itself_changes_nothing_on_every_shared_trace() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let mut compared = 0;
    for trace in common::shared_trace_files(&root) {
        // (The 282 MB ovni trace is read by the tests of the parse; here it would add a
        // minute.)
        if std::fs::metadata(&trace).unwrap().len() > 8_000_000 {
            continue;
        }
        let rows = compare(&trace, &trace, &["--no-pop"]);
        for r in &rows {
            assert_eq!(r["a"], r["b"], "{}: {r:?}", trace.display());
            assert_eq!(r["delta"], "0", "{}: {r:?}", trace.display());
        }
        check(&rows, (&trace, None), (&trace, None), true);
        compared += rows.len();
    }
    assert!(compared > 100, "{compared} rows");
}

#[test]
fn runs_aligned_by_a_range_or_an_event_compare_their_regions() {
    let _shared = common::shared();
    let Some((a, b)) = epoch_runs() else {
        return;
    };
    // A range of each.
    let (wa, wb) = (
        (1_000_000_000, 3_000_000_000),
        (2_000_000_000, 2_500_000_000),
    );
    let rows = compare(
        &a,
        &b,
        &[
            "--no-pop",
            "--from-a",
            &wa.0.to_string(),
            "--to-a",
            &wa.1.to_string(),
            "--from-b",
            &wb.0.to_string(),
            "--to-b",
            &wb.1.to_string(),
        ],
    );
    check(&rows, (&a, Some(wa)), (&b, Some(wb)), false);
    // The 3rd MPI_Allreduce (MPI collective type 50000002, value 10) of each run: its
    // region in the JSON, the rows those of `scopes` over it.
    let json = common::stdout_of(
        prvscope()
            .args(["compare", "--no-cache", "--json", "--no-pop"])
            .args(["--region", "50000002=10", "--occurrence", "3"])
            .arg(&a)
            .arg(&b),
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let region = |side: &str| {
        (
            v[side]["t0"].as_u64().unwrap(),
            v[side]["t1"].as_u64().unwrap(),
        )
    };
    let (ra, rb) = (region("a"), region("b"));
    // Found as the events give it: the 3rd Allreduce on each thread, the earliest entry
    // to the latest exit.
    for (trace, r) in [(&a, ra), (&b, rb)] {
        let t = common::load(trace);
        let (mut lo, mut hi) = (u64::MAX, 0);
        for row in 0..t.store.thread_count() {
            let ev: Vec<(u64, u64)> = t.store.events_in(row, 50_000_002, 0, u64::MAX).collect();
            if let Some(i) = ev
                .iter()
                .enumerate()
                .filter(|e| e.1.1 == 10)
                .nth(2)
                .map(|e| e.0)
            {
                lo = lo.min(ev[i].0);
                hi = hi.max(ev.get(i + 1).map_or(t.header.end_time, |e| e.0));
            }
        }
        assert_eq!(r, (lo, hi), "{}", trace.display());
        assert!(hi > lo);
    }
    let text = common::stdout_of(
        prvscope()
            .args(["compare", "--no-cache", "--csv", "--no-pop"])
            .args(["--region", "50000002=10", "--occurrence", "3"])
            .arg(&a)
            .arg(&b),
    );
    check(&table(&text), (&a, Some(ra)), (&b, Some(rb)), false);
    let allreduce = table(&text)
        .into_iter()
        .find(|r| r["scope"] == "MPI_Allreduce")
        .unwrap();
    assert!(allreduce["a"].parse::<u64>().unwrap() > 0);
}

#[test]
fn a_region_that_is_not_there_is_refused_with_the_reason() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let a = root.join("pypop_epoch_scaling/epoch_2proc.prv.gz");
    let out = prvscope()
        .args(["compare", "--no-cache", "--no-pop"])
        .args(["--region", "50000002=10", "--occurrence", "100000"])
        .arg(&a)
        .arg(&a)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("epoch_2proc.prv.gz")
            && err.contains("no thread has a 100000th value 10 of type 50000002"),
        "{err}"
    );
    let out = prvscope()
        .args(["compare", "--no-cache", "--no-pop", "--region", "123456"])
        .arg(&a)
        .arg(&a)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no event of type 123456 in the trace"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The same generated MPI run in NULL mode (A) and in legacy mode (B): every MPI call has
/// the same time in both (delta 0); the NULL-mode run alone has "Outside MPI" rows (0 is a
/// value there), and a note says why.
#[test]
fn a_null_mode_run_and_its_legacy_twin_differ_only_by_the_value_0_and_say_so() {
    use prvscope_import::synth::{self, GenOptions};
    let dir = common::temp_dir("compare-null-legacy");
    let generated = |name: &str, legacy: bool| {
        let p = dir.join(name);
        let opts = GenOptions {
            target_bytes: 2_000_000,
            mpi: true,
            legacy,
            ..GenOptions::default()
        };
        synth::generate(&p, &opts).unwrap();
        p
    };
    let (a, b) = (generated("null.prv", false), generated("legacy.prv", true));
    let out = prvscope()
        .args(["compare", "--no-cache", "--csv", "--no-pop"])
        .args(["--rows", "scopes,states"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("A is in NULL mode") && err.contains("B in legacy mode"),
        "{err}"
    );
    let rows = table(&String::from_utf8(out.stdout).unwrap());
    let mut calls = 0;
    for r in rows.iter().filter(|r| r["kind"] == "scope") {
        if r["scope"] == "Outside MPI" {
            assert_eq!(r["b"], "0", "{r:?}");
        } else {
            assert_eq!(r["delta"], "0", "{r:?}");
            calls += 1;
        }
    }
    assert!(calls >= 3, "{rows:?}");
    check(&rows, (&a, None), (&b, None), true);
}

/// A run cut short says so, as every command says it, naming which run.
#[test]
fn a_truncated_run_is_said_to_be_cut_short() {
    let Some((a, _)) = epoch_runs() else {
        return;
    };
    let dir = common::temp_dir("compare-truncated");
    let text = common::gunzip_text(&a);
    let cut = dir.join("cut.prv");
    std::fs::write(&cut, &text[..text.len() / 3]).unwrap();
    let out = prvscope()
        .args(["compare", "--no-cache", "--csv", "--no-pop"])
        .arg(&a)
        .arg(&cut)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("note: {}: the records stop at", cut.display())),
        "{err}"
    );
}

#[test]
fn an_unsorted_file_compares_as_its_sorted_original_whole_and_by_region() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    // prime's records grouped by task (as tools that merge per-node files write them):
    // the same records, not in time order.
    let src = root.join("extrae_mpi_prime16/prime_v0");
    let sorted = src.with_extension("prv");
    let text = std::fs::read_to_string(&sorted).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let mut body: Vec<&str> = lines.collect();
    body.sort_by_key(|l| {
        (
            l.starts_with(['1', '2', '3']),
            l.split(':').nth(3).map(|t| std::cmp::Reverse(t.to_owned())),
        )
    });
    let dir = common::temp_dir("compare-unsorted");
    let grouped = dir.join("grouped.prv");
    std::fs::write(&grouped, format!("{header}\n{}\n", body.join("\n"))).unwrap();
    for side in ["pcf", "row"] {
        std::fs::copy(src.with_extension(side), grouped.with_extension(side)).unwrap();
    }
    assert_ne!(std::fs::read_to_string(&grouped).unwrap(), text);
    // The whole run, and the 2nd MPI_Reduce (50000002=9) of each thread.
    for args in [
        vec!["--no-pop"],
        vec!["--no-pop", "--region", "50000002=9", "--occurrence", "2"],
    ] {
        let rows = compare(&sorted, &grouped, &args);
        assert!(rows.len() >= 4, "{args:?}: {} rows", rows.len());
        for r in &rows {
            assert_eq!(r["delta"], "0", "{args:?}: {r:?}");
        }
        if args.len() == 1 {
            check(&rows, (&sorted, None), (&grouped, None), true);
        }
        let reduce = rows.iter().find(|r| r["scope"] == "MPI_Reduce").unwrap();
        assert!(reduce["a"].parse::<u64>().unwrap() > 0, "{args:?}");
    }
}

#[test]
fn the_csv_is_one_row_per_scope_unless_more_rows_are_asked_for() {
    let _shared = common::shared();
    let Some((a, b)) = epoch_runs() else {
        return;
    };
    let rows = |args: &[&str]| {
        table(&common::stdout_of(
            prvscope()
                .args(["compare", "--no-cache", "--csv"])
                .args(args)
                .arg(&a)
                .arg(&b),
        ))
    };
    // By default: the scopes alone, each as `scopes --csv` of each run gives it.
    let scopes = rows(&[]);
    assert!(scopes.len() >= 10);
    assert!(scopes.iter().all(|r| r["kind"] == "scope"), "{scopes:?}");
    let (sa, sb) = (scopes_of(&a, None), scopes_of(&b, None));
    let (na, nb) = (ns_per_tick(&a), ns_per_tick(&b));
    for r in &scopes {
        let key = (r["type"].clone(), r["scope"].clone());
        assert_eq!(
            r["a"],
            (sa.get(&key).copied().unwrap_or(0) * na).to_string()
        );
        assert_eq!(
            r["b"],
            (sb.get(&key).copied().unwrap_or(0) * nb).to_string()
        );
    }
    let all: std::collections::BTreeSet<_> = sa.keys().chain(sb.keys()).collect();
    assert_eq!(scopes.len(), all.len());
    // Asked for: the states, the POP metrics.
    let states = rows(&["--rows", "states"]);
    assert!(!states.is_empty() && states.iter().all(|r| r["kind"] == "state"));
    let pop = rows(&["--rows", "pop"]);
    assert!(pop.iter().any(|r| r["scope"] == "Parallel efficiency"));
    assert!(pop.iter().all(|r| r["kind"] == "pop"));
    // The text table has every kind.
    let text = common::stdout_of(
        prvscope()
            .args(["compare", "--no-cache", "--no-pop"])
            .arg(&a)
            .arg(&b),
    );
    assert!(
        text.contains("\nstate ") && text.contains("\nscope "),
        "{text}"
    );
}

//! The cut of a loaded trace (`cutter::cut`) against a cut of its text made line by line as
//! Paraver's cutter makes it (`KTraceCutter::execute` with its default settings: a port that
//! reads the file in order and stops at the first state or message past the cut, kept here
//! as the reference), on every shared trace and several regions; and the POP metrics of a
//! region (`pop::figures_in`) against those of the trace cut to it, every efficiency within
//! [0, 100]%.
//!
//! With `PARAMEDIR=path/to/paramedir` in the environment, the text cut is also compared with
//! BSC's own cutter (`paramedir -c -o OUT TRACE CUTTER.xml`), record for record.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod common;

use prvscope_format::Pcf;
use prvscope_paraver::{cutter, pop};
use prvscope_store::Trace;

fn load(path: &Path) -> Trace {
    prvscope_import::load(path, &prvscope_import::LoadOptions::default(), None)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text_of(path: &Path) -> String {
    if path.extension().is_some_and(|e| e == "gz") {
        common::gunzip(path)
    } else {
        std::fs::read_to_string(path).unwrap()
    }
}

/// Per thread of the cutter: the types opened and not closed, in order; the counter types
/// seen (value > 0); the counters not yet zeroed; its last CPU.
#[derive(Default)]
struct Cutting {
    opened: Vec<u64>,
    counters_seen: BTreeSet<u64>,
    counters_zeroed: BTreeSet<u64>,
    last_cpu: u64,
}

/// The text of `text` cut to `[t0, t1]` as Paraver's cutter writes it (without its comment
/// line).
fn naive_cut(text: &str, pcf: Option<&Pcf>, t0: u64, t1: u64) -> String {
    let counter = |ty: u64| {
        (42_000_000..50_000_000).contains(&ty)
            && pcf.is_some_and(|p| p.event_types.contains_key(&(ty as u32)))
    };
    let untracked = |ty: u64| {
        pcf.is_some_and(|p| {
            p.event_types
                .get(&(ty as u32))
                .is_some_and(|t| t.values.is_empty())
        }) && !counter(ty)
    };
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let (date, rest) = header.split_once("):").unwrap();
    let (duration, rest) = rest.split_once(':').unwrap();
    let unit = duration.trim_start_matches(|c: char| c.is_ascii_digit());
    let mut out = String::new();
    // The communicator lines the header announces.
    let comms = rest
        .rsplit_once(',')
        .filter(|(_, n)| !n.contains(')'))
        .and_then(|(_, n)| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    for _ in 0..comms {
        let _ = writeln!(out, "{}", lines.next().unwrap());
    }
    let mut body = String::new();
    let mut threads: BTreeMap<(u64, u64, u64), Cutting> = BTreeMap::new();
    let mut first: Option<u64> = None;
    let mut last = 0u64;
    let mut note = |t: u64, end: u64| {
        first = Some(first.map_or(t, |f: u64| f.min(t)));
        last = last.max(end);
    };
    for line in lines {
        let f: Vec<u64> = line.split(':').map(|x| x.parse().unwrap_or(0)).collect();
        match line.as_bytes().first() {
            Some(b'1') => {
                let (b, e) = (f[5], f[6]);
                if e <= t0 {
                    continue;
                }
                if b > t1 {
                    break;
                }
                let th = threads.entry((f[2], f[3], f[4])).or_default();
                th.last_cpu = f[1];
                let (b, e) = (b.max(t0), e.min(t1));
                note(b, e);
                let _ = writeln!(
                    body,
                    "1:{}:{}:{}:{}:{b}:{e}:{}",
                    f[1], f[2], f[3], f[4], f[7]
                );
            }
            Some(b'2') => {
                let t = f[5];
                if t > t1 || t < t0 {
                    continue;
                }
                note(t, t);
                let th = threads.entry((f[2], f[3], f[4])).or_default();
                let _ = write!(body, "2:{}:{}:{}:{}:{t}", f[1], f[2], f[3], f[4]);
                for pair in f[6..].chunks(2) {
                    let [ty, mut v] = [pair[0], *pair.get(1).unwrap_or(&0)];
                    if counter(ty) {
                        if v > 0 {
                            th.counters_seen.insert(ty);
                        }
                        if th.counters_zeroed.insert(ty) {
                            v = 0;
                        }
                    } else if !untracked(ty) {
                        if v > 0 {
                            th.opened.push(ty);
                        } else if let Some(p) = th.opened.iter().rposition(|&o| o == ty) {
                            th.opened.remove(p);
                        }
                    }
                    let _ = write!(body, ":{ty}:{v}");
                }
                body.push('\n');
                th.last_cpu = f[1];
            }
            Some(b'3') => {
                let (ls, ps, lr, pr) = (f[5], f[6], f[11], f[12]);
                if ls >= t0 && lr >= t0 {
                    if ls > t1 {
                        break;
                    }
                    if ps <= t1 && pr <= t1 {
                        note(ls.min(ps).min(lr).min(pr), ls.max(ps).max(lr).max(pr));
                        body.push_str(line);
                        body.push('\n');
                    }
                }
            }
            _ => {}
        }
    }
    for ((a, t, h), th) in &threads {
        let mut unique: Vec<u64> = Vec::new();
        for &ty in &th.opened {
            if !unique.contains(&ty) {
                unique.push(ty);
            }
        }
        let zeros: Vec<u64> = unique
            .iter()
            .rev()
            .copied()
            .chain(th.counters_seen.iter().copied())
            .collect();
        if !zeros.is_empty() {
            let _ = write!(body, "2:{}:{a}:{t}:{h}:{t1}", th.last_cpu);
            for ty in zeros {
                let _ = write!(body, ":{ty}:0");
            }
            body.push('\n');
        }
    }
    // Times shifted so that the first record is at 0; the duration from the first record to
    // the last (the closing zeros left out).
    let shift = first.unwrap_or(t0);
    let header = format!("{date}):{}{unit}:{rest}\n", last.saturating_sub(shift));
    out.insert_str(0, &header);
    for line in body.lines() {
        let mut f: Vec<String> = line.split(':').map(str::to_owned).collect();
        let times: &[usize] = match line.as_bytes().first() {
            Some(b'1') => &[5, 6],
            Some(b'2') => &[5],
            _ => &[5, 6, 11, 12],
        };
        for &i in times {
            f[i] = (f[i].parse::<u64>().unwrap() - shift).to_string();
        }
        out.push_str(&f.join(":"));
        out.push('\n');
    }
    out
}

/// The records of a store, for comparison: per thread, its states, its events per type and
/// its CPU changes; the communications.
fn records(t: &Trace) -> String {
    let mut s = String::new();
    for (row, th) in t.store.threads().iter().enumerate() {
        for i in 0..th.states.len() {
            let _ = writeln!(
                s,
                "{row} state {} {} {}",
                th.states.begin.get(i),
                th.states.end.get(i),
                th.states.value.get(i)
            );
        }
        for c in &th.events {
            for (time, v) in c.time.iter().zip(c.value.iter()) {
                let _ = writeln!(s, "{row} event {} {time} {v}", c.ty);
            }
        }
        let _ = writeln!(s, "{row} cpus {:?}", th.cpus);
    }
    for c in t.store.comms() {
        let _ = writeln!(s, "comm {c:?}");
    }
    let _ = writeln!(s, "end {}", t.header.end_time);
    s
}

/// The shared traces a cut is checked on, with their side files.
fn traces(shared: &Path) -> Vec<PathBuf> {
    common::REFERENCE_TRACES
        .iter()
        .chain(&[
            "pypop_epoch_scaling/epoch_4proc.prv.gz",
            "ovni_nosv-hwc/thread.prv",
            "ovni_tampi-ss-comm/cpu.prv",
            "null_mode/threads_null.prv",
        ])
        .map(|p| shared.join("traces").join(p))
        .collect()
}

/// The text cut of `path`, loaded (written beside copies of the side files).
fn load_text_cut(path: &Path, trace: &Trace, t0: u64, t1: u64, dir: &Path) -> Trace {
    let text = naive_cut(&text_of(path), trace.pcf.as_ref(), t0, t1);
    let out = dir.join("cut.prv");
    std::fs::write(&out, text).unwrap();
    let stem = |ext: &str| {
        let name = path.file_name().unwrap().to_string_lossy();
        let base = name.trim_end_matches(".gz").trim_end_matches(".prv");
        path.with_file_name(format!("{base}.{ext}"))
    };
    for ext in ["pcf", "row"] {
        let _ = std::fs::remove_file(dir.join(format!("cut.{ext}")));
        if stem(ext).exists() {
            std::fs::copy(stem(ext), dir.join(format!("cut.{ext}"))).unwrap();
        }
    }
    load(&out)
}

fn regions(end: u64) -> Vec<(u64, u64)> {
    vec![
        (0, end),
        (end / 4, end / 2),
        (end / 3, end / 3 + end / 50 + 1),
        (end / 10 * 9, end),
        (1, 2),
    ]
}

#[test]
fn a_cut_store_is_the_store_of_the_cut_text() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("prvscope-cutter-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bsc = std::env::var_os("PARAMEDIR").map(PathBuf::from);
    for path in traces(&shared) {
        let trace = load(&path);
        for (t0, t1) in regions(trace.header.end_time) {
            let ours = cutter::cut(&trace, t0, t1);
            let theirs = load_text_cut(&path, &trace, t0, t1, &dir);
            assert_eq!(
                records(&ours),
                records(&theirs),
                "{} cut to [{t0}, {t1}]",
                path.display()
            );
            // (BSC's cutter writes an undefined duration for a cut without records, and
            // does not read the `N` values of the NULL mode, prvscope's extension.)
            let empty = theirs.store.counts().states + theirs.store.counts().events == 0;
            let null_mode = !trace.store.null_policy().zero_is_null;
            if let Some(paramedir) = bsc.as_ref().filter(|_| !empty && !null_mode) {
                let bsc_cut = bsc_cut(paramedir, &path, t0, t1, &dir);
                assert_eq!(
                    records(&bsc_cut),
                    records(&theirs),
                    "BSC's cutter, {} cut to [{t0}, {t1}]",
                    path.display()
                );
            }
        }
    }
}

/// BSC's cutter run on `path` (its text unpacked beside its side files).
fn bsc_cut(paramedir: &Path, path: &Path, t0: u64, t1: u64, dir: &Path) -> Trace {
    let input = dir.join("in.prv");
    std::fs::write(&input, text_of(path)).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    let base = name.trim_end_matches(".gz").trim_end_matches(".prv");
    for ext in ["pcf", "row"] {
        let side = path.with_file_name(format!("{base}.{ext}"));
        let _ = std::fs::remove_file(dir.join(format!("in.{ext}")));
        if side.exists() {
            std::fs::copy(side, dir.join(format!("in.{ext}"))).unwrap();
        }
    }
    let xml = dir.join("cutter.xml");
    std::fs::write(
        &xml,
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<config>\n  <cutter>\n    \
             <max_trace_size>0</max_trace_size>\n    <by_time>1</by_time>\n    \
             <minimum_time>{t0}</minimum_time>\n    <maximum_time>{t1}</maximum_time>\n    \
             <minimum_time_percentage>0</minimum_time_percentage>\n    \
             <maximum_time_percentage>100</maximum_time_percentage>\n    \
             <original_time>0</original_time>\n    <break_states>1</break_states>\n    \
             <remove_first_states>0</remove_first_states>\n    \
             <remove_last_states>0</remove_last_states>\n  </cutter>\n</config>\n"
        ),
    )
    .unwrap();
    let out = dir.join("bsc.prv");
    let status = std::process::Command::new(paramedir)
        .arg("-c")
        .arg("-o")
        .arg(&out)
        .arg(&input)
        .arg(&xml)
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success(), "{} failed", paramedir.display());
    load(&out)
}

#[test]
fn region_metrics_are_those_of_the_trace_cut_to_the_region() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("prvscope-region-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for path in traces(&shared) {
        let trace = load(&path);
        for (t0, t1) in regions(trace.header.end_time) {
            let region = pop::figures_in(&trace, Some((t0, t1)));
            let cut = pop::figures(&load_text_cut(&path, &trace, t0, t1, &dir));
            assert_eq!(region, cut, "{} [{t0}, {t1})", path.display());
            let Ok(f) = region else {
                continue;
            };
            for m in pop::metrics(std::slice::from_ref(&f)) {
                let Some(v) = m.values[0] else {
                    continue;
                };
                if m.percent {
                    assert!(
                        (0.0..=100.000_001).contains(&v),
                        "{} [{t0}, {t1}): {} {v}",
                        path.display(),
                        m.name
                    );
                }
            }
        }
    }
}

/// The region reported: EPOCH's one-process run zoomed to 5-10 s gave a global efficiency
/// of 437.81% and 2.90 GHz (the region compared with the whole run, and the counters of
/// the bursts that overlap it counted whole).
#[test]
fn a_region_of_epoch_is_its_own_reference() {
    let Some(shared) = common::shared() else {
        return;
    };
    let trace = load(&shared.join("traces/pypop_epoch_scaling/epoch_1proc.prv.gz"));
    let whole = pop::figures(&trace).unwrap();
    let region = pop::figures_in(&trace, Some((5_000_000_000, 10_000_000_000))).unwrap();
    assert!((region.runtime_us - 5_000_000.0).abs() < 1e-6);
    let metrics = pop::metrics(std::slice::from_ref(&region));
    let get = |name: &str| {
        metrics
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.values[0])
            .unwrap()
    };
    assert!(get("Global efficiency") <= 100.0);
    assert!((get("Computation scalability") - 100.0).abs() < 1e-9);
    let freq = get("Average frequency (GHz)");
    let whole_freq = whole.cycles.unwrap() / whole.useful_total() / 1000.0;
    assert!(
        freq <= whole_freq,
        "the region's frequency {freq} GHz, the run's {whole_freq} GHz"
    );
}

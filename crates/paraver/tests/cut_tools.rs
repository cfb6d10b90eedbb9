//! The cutter and the filter written from the store (`cut::write_cut`, `cut::write_filter`)
//! against Paraver's, ported line by line (`naive_tools`), record for record, on every shared
//! trace, several ranges and every cutter setting; with `PARAMEDIR=path/to/paramedir` set,
//! the port is also compared with BSC's own tools.
//!
//! The store keeps no order between a thread's state and its events at one time: where the
//! file has events of a thread before its state at the same time (Extrae writes a thread's
//! first events so), the records of that thread at that time may differ, and only those.

#![allow(
    clippy::unwrap_used,
    clippy::many_single_char_names,
    clippy::format_collect
)]

mod common;
mod naive_tools;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use prvscope_paraver::cut::options::{EventFilter, TypeFilter};
use prvscope_paraver::cut::{
    Control, CutterOptions, FilterOptions, Head, Reading, StateFilter, TaskRange, Written,
    cut_text, filter_text, write_cut, write_filter,
};
use prvscope_store::Trace;

use common::{load, text_of};

fn traces(shared: &Path) -> Vec<PathBuf> {
    common::text_traces(shared)
}

fn head(trace: &Trace) -> Head {
    let (communicators, comments) =
        prvscope_import::output::head_lines(&trace.path, trace.header.communicator_lines).unwrap();
    Head {
        communicators,
        comments,
    }
}

fn ours(trace: &Trace, o: &CutterOptions, f: Option<&FilterOptions>) -> (String, Written) {
    let cancel = AtomicBool::new(false);
    let control = Control {
        progress: &|_| {},
        cancel: &cancel,
    };
    let mut out = Vec::new();
    let w = write_cut(
        trace,
        &head(trace),
        o,
        f,
        ("in.prv", "20260101000000"),
        &mut out,
        &control,
    )
    .unwrap();
    (String::from_utf8(out).unwrap(), w)
}

/// The first and last times a cut wrote (from its comment line's shift and its header's
/// duration).
fn naive_span(cut: &str, _o: &CutterOptions) -> (u64, u64) {
    let mut lines = cut.lines();
    let header = lines.next().unwrap();
    let duration: u64 = header
        .split_once("):")
        .unwrap()
        .1
        .split(['_', ':'])
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let comment = cut.lines().find(|l| l.contains(":CUTTER:")).unwrap();
    let shift: u64 = comment.rsplit(':').nth(2).unwrap().parse().unwrap();
    (shift, shift + duration)
}

/// The four ranges the tests cut a trace of duration `d` by: its second quarter, a fiftieth
/// from its third, the whole trace, its last tenth.
fn ranges(d: u64) -> [(u64, u64); 4] {
    [
        (d / 4, d / 2),
        (d / 3, d / 3 + d / 50 + 1),
        (0, d),
        (d / 10 * 9, d),
    ]
}

/// The cut of `path`'s text (`cut::cut_text`), stopping where Paraver's cutter stops
/// when `stop_as_paraver`.
fn text_cut_as(path: &Path, trace: &Trace, o: &CutterOptions, stop_as_paraver: bool) -> String {
    text_cut_written(path, trace, o, stop_as_paraver).0
}

fn text_cut_written(
    path: &Path,
    trace: &Trace,
    o: &CutterOptions,
    stop_as_paraver: bool,
) -> (String, Written) {
    text_cut_reading_written(
        path,
        trace,
        o,
        None,
        Reading {
            stop_as_paraver,
            ..Reading::default()
        },
    )
}

fn text_cut_reading(
    path: &Path,
    trace: &Trace,
    o: &CutterOptions,
    filter: Option<&FilterOptions>,
    reading: Reading,
) -> String {
    text_cut_reading_written(path, trace, o, filter, reading).0
}

fn text_cut_reading_written(
    path: &Path,
    trace: &Trace,
    o: &CutterOptions,
    filter: Option<&FilterOptions>,
    reading: Reading,
) -> (String, Written) {
    let cancel = AtomicBool::new(false);
    let control = Control {
        progress: &|_| {},
        cancel: &cancel,
    };
    let mut out = Vec::new();
    let written = cut_text(
        &|| prvscope_import::output::open_text(path),
        &trace.header,
        trace.pcf.as_ref(),
        o,
        filter,
        ("in.prv", "20260101000000"),
        reading,
        &mut out,
        &control,
        None,
    )
    .unwrap();
    (String::from_utf8(out).unwrap(), written)
}

/// The cut read in blocks, the lines set aside on their first fields, the threads decided
/// on in parallel, the span found line by line or known from the store: the same text,
/// byte for byte, as every line decided on in order (`Reading::plain`), on every trace
/// (unsorted and NULL-mode ones included), range and setting, read to the end or stopped
/// where Paraver's cutter stops, with and without a filter, in blocks small enough that
/// lines cross them.
#[test]
fn every_way_of_reading_cuts_as_the_plain_pass() {
    let Some(shared) = common::shared() else {
        return;
    };
    let filters = filters();
    let mut cases = 0;
    for path in traces(&shared) {
        let trace = load(&path);
        let d = trace.header.end_time;
        let ranges = ranges(d);
        let size = std::fs::metadata(&path).map_or(0, |m| m.len()) as usize;
        // The index of the text in small pieces (read in small windows), so that a pass
        // passes over many; a plain file is opened past them, a compressed one read and
        // dropped.
        let indexed = prvscope_import::load(
            &path,
            &prvscope_import::LoadOptions {
                read_window_bytes: 4 << 10,
                stream_block_bytes: 64 << 10,
                ..prvscope_import::LoadOptions::default()
            },
            None,
        )
        .unwrap();
        let index = indexed.text_index.as_deref();
        assert!(index.is_some(), "{}: no index", path.display());
        let open_at = |at: u64| -> std::io::Result<Box<dyn std::io::BufRead + Send>> {
            use std::io::{Seek, SeekFrom};
            let mut file = std::fs::File::open(&path)?;
            file.seek(SeekFrom::Start(at))?;
            Ok(Box::new(std::io::BufReader::new(file)))
        };
        let compressed = path.extension().is_some_and(|e| e == "gz" || e == "xz");
        let open_at: Option<&prvscope_paraver::cut::OpenAt<'_>> = (!compressed).then_some(&open_at);
        for (i, (t0, t1)) in ranges.into_iter().enumerate() {
            for (name, mut o) in settings() {
                (o.min_time, o.max_time) = (t0, t1);
                for stop_as_paraver in [false, true] {
                    let filter = (i == 1).then(|| &filters[cases % filters.len()].1);
                    let plain = text_cut_reading(
                        &path,
                        &trace,
                        &o,
                        filter,
                        Reading {
                            stop_as_paraver,
                            plain: true,
                            ..Reading::default()
                        },
                    );
                    let known = (!stop_as_paraver)
                        .then(|| prvscope_paraver::cut::known_span(&trace, &o))
                        .flatten();
                    for (known, block, index, open_at) in [
                        (None, 0, None, None),
                        (known, 0, None, None),
                        (None, (size / 7).max(1), None, None),
                        (None, 0, index, open_at),
                        (known, (size / 7).max(1), index, None),
                    ] {
                        let fast = text_cut_reading(
                            &path,
                            &trace,
                            &o,
                            filter,
                            Reading {
                                stop_as_paraver,
                                known,
                                block,
                                plain: false,
                                index,
                                open_at,
                            },
                        );
                        if fast != plain {
                            let (a, b): (Vec<_>, Vec<_>) =
                                (fast.lines().collect(), plain.lines().collect());
                            let at = (0..a.len().max(b.len())).find(|&k| a.get(k) != b.get(k));
                            panic!(
                                "{} [{t0}, {t1}] {name} stop {stop_as_paraver} known {known:?} \
                                 block {block} index {}: line {at:?}: {:?} against the plain \
                                 pass's {:?}",
                                path.display(),
                                index.is_some(),
                                at.and_then(|k| a.get(k)),
                                at.and_then(|k| b.get(k)),
                            );
                        }
                        cases += 1;
                    }
                }
            }
        }
    }
    assert!(cases > 1000, "{cases} cases");
}

/// The first line where `a` and `b` differ, with each one's line there.
fn first_difference<'a>(
    a: &'a [String],
    b: &'a [String],
) -> Option<(usize, Option<&'a String>, Option<&'a String>)> {
    (0..a.len().max(b.len()))
        .find(|&i| a.get(i) != b.get(i))
        .map(|i| (i, a.get(i), b.get(i)))
}

/// Where the file has an event line of a thread before its state line at the same time:
/// (appl, task, thread, time), and per thread the event types of those lines.
type Ties = (
    BTreeSet<(u64, u64, u64, u64)>,
    std::collections::HashMap<(u64, u64, u64), BTreeSet<u64>>,
);

fn ties(text: &str) -> Ties {
    let (mut at, mut types) = (BTreeSet::new(), std::collections::HashMap::new());
    let mut events_at: std::collections::HashMap<(u64, u64, u64), (u64, Vec<u64>)> =
        std::collections::HashMap::new();
    for l in text.lines().skip(1) {
        let f: Vec<u64> = l.split(':').map(|x| x.parse().unwrap_or(0)).collect();
        let key = || (f[2], f[3], f[4]);
        match l.as_bytes().first() {
            Some(b'2') => {
                let e = events_at.entry(key()).or_insert((f[5], Vec::new()));
                if e.0 != f[5] {
                    *e = (f[5], Vec::new());
                }
                e.1.extend(f[6..].iter().step_by(2));
            }
            Some(b'1') => {
                if let Some((t, tys)) = events_at.get(&key()).filter(|e| e.0 == f[5]) {
                    at.insert((f[2], f[3], f[4], *t));
                    types
                        .entry(key())
                        .or_insert_with(BTreeSet::new)
                        .extend(tys.iter().copied());
                }
            }
            _ => {}
        }
    }
    (at, types)
}

/// The records of sorted `a` not in sorted `b` (as multisets).
fn only_in(a: &[String], b: &[String]) -> Vec<String> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() {
        if j >= b.len() || a[i] < b[j] {
            out.push(a[i].clone());
            i += 1;
        } else if a[i] == b[j] {
            i += 1;
            j += 1;
        } else {
            j += 1;
        }
    }
    out
}

fn settings() -> Vec<(&'static str, CutterOptions)> {
    let base = CutterOptions::by_time(0, 0);
    let with = |f: &dyn Fn(&mut CutterOptions)| {
        let mut o = base.clone();
        f(&mut o);
        o
    };
    vec![
        ("break", base.clone()),
        ("original", with(&|o| o.original_time = true)),
        (
            "pypop",
            with(&|o| {
                o.break_states = false;
                o.remove_first_states = true;
                o.remove_last_states = true;
                o.keep_events = true;
            }),
        ),
        (
            "keep events",
            with(&|o| {
                o.break_states = false;
                o.keep_events = true;
            }),
        ),
        (
            "remove last",
            with(&|o| {
                o.break_states = false;
                o.remove_last_states = true;
            }),
        ),
        (
            "break remove first",
            with(&|o| o.remove_first_states = true),
        ),
        ("whole states", with(&|o| o.break_states = false)),
        // Paraver's example file (`docs/filters/cutter.xml`): 100 MB at most, tasks 1-256.
        (
            "example file",
            with(&|o| {
                o.max_trace_size = 100;
                o.tasks = vec![TaskRange { min: 1, max: 256 }];
            }),
        ),
        (
            "tasks",
            with(&|o| {
                o.tasks = vec![TaskRange { min: 1, max: 1 }, TaskRange { min: 3, max: 4 }];
            }),
        ),
    ]
}

#[test]
fn cuts_are_paravers_record_for_record() {
    let Some(shared) = common::shared() else {
        return;
    };
    let bsc = std::env::var_os("PARAMEDIR").map(PathBuf::from);
    let dir = std::env::temp_dir().join(format!("prvscope-cut-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut tie_cases = 0;
    let mut left_out_cases = 0;
    // The NULL-mode traces are prvscope's extension (`N`, which BSC's tools do not read)
    // and list every state before the events: the cutter, which reads a file in order,
    // expects it sorted by time.
    for path in traces(&shared)
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("null_mode"))
    {
        let trace = load(&path);
        let text = text_of(&path);
        let ties = ties(&text);
        let d = trace.header.end_time;
        let ranges = ranges(d);
        for (t0, t1) in ranges {
            for (name, mut o) in settings() {
                (o.min_time, o.max_time) = (t0, t1);
                let (mine, w) = ours(&trace, &o, None);
                let theirs = naive_tools::cutter(&text, trace.pcf.as_ref(), &o);
                let case = format!("{} [{t0}, {t1}] {name}", path.display());
                let a = naive_tools::records(&mine);
                let b = naive_tools::records(&theirs);
                // The header's duration; its other fields are written again (below).
                let dur = |h: &str| {
                    h.split_once("):")
                        .unwrap()
                        .1
                        .split(['_', ':'])
                        .next()
                        .unwrap()
                        .to_owned()
                };
                let (mine_only, theirs_only) =
                    (only_in(&a[1..], &b[1..]), only_in(&b[1..], &a[1..]));
                if mine_only.is_empty() && theirs_only.is_empty() {
                    if b.len() > 1 {
                        assert_eq!(dur(&a[0]), dur(&b[0]), "{case}: the duration");
                    }
                } else {
                    // Only the records at a tie of the file may differ.
                    // (And the records those change: the same types later, their closing 0s.)
                    for r in mine_only.iter().chain(&theirs_only) {
                        let f: Vec<u64> = r.split(':').map(|x| x.parse().unwrap_or(0)).collect();
                        let at = f[5] + w.shift;
                        let key = (f[2], f[3], f[4]);
                        let tie_type = r.starts_with("2:")
                            && ties.1.get(&key).is_some_and(|t| t.contains(&f[6]));
                        assert!(
                            ties.0.contains(&(f[2], f[3], f[4], at)) || tie_type,
                            "{case}: {r} differs (ours: {} records, Paraver's: {}; first of \
                             ours only: {:?}, of Paraver's only: {:?})",
                            a.len(),
                            b.len(),
                            mine_only.first(),
                            theirs_only.first()
                        );
                    }
                    tie_cases += 1;
                }
                // Reading the whole file (`prvscope cut`) keeps every line the cutter keeps,
                // in its order, and adds those the cutter does not read: after the point
                // where it stops, lines inside the cut (an unsorted file's; the events at
                // the end of a thread's last state once every thread is finished).
                let read_on = text_cut_as(&path, &trace, &o, false);
                // What the store tells of the first and last times is what the first pass
                // finds.
                if let Some(span) = prvscope_paraver::cut::known_span(&trace, &o) {
                    let (first, last) = naive_span(&read_on, &o);
                    assert_eq!(span, (first, last), "{case}: the span known before");
                }
                let (stopped, written) = text_cut_written(&path, &trace, &o, true);
                let body = |t: &str| -> Vec<String> {
                    t.lines()
                        .take_while(|l| !l.starts_with("# Appending"))
                        .map(str::to_owned)
                        .collect()
                };
                let (on, st) = (body(&read_on), body(&stopped));
                // The records the stopped cut says it left out are those reading on adds
                // (but where its size limit stopped it).
                if o.max_trace_size == 0 {
                    let records = |b: &[String]| b.iter().filter(|l| !l.starts_with('#')).count();
                    assert_eq!(
                        written.left_out as usize,
                        records(&on) - records(&st),
                        "{case}: the records left out"
                    );
                    left_out_cases += usize::from(written.left_out > 0);
                }
                // (Compared where both shift the times alike, as the comment line says.)
                if on.iter().find(|l| l.contains(":CUTTER:"))
                    == st.iter().find(|l| l.contains(":CUTTER:"))
                {
                    let mut it = on.iter().skip(1);
                    for l in &st[1..] {
                        assert!(it.any(|x| x == l), "{case}: read on, {l} left out");
                    }
                }
                // The cut of the file's text: the port's lines, one for one, in its order
                // (the port leaves out comment lines), and the same header.
                let text_cut = stopped;
                let body = |t: &str| -> Vec<String> {
                    t.lines()
                        .skip(1)
                        .filter(|l| !l.starts_with('#'))
                        .map(str::to_owned)
                        .collect()
                };
                let (tc, port) = (body(&text_cut), body(&theirs));
                if let Some((i, a, b)) = first_difference(&tc, &port) {
                    panic!("{case}: line {i} of the text cut: {a:?} against the port's {b:?}");
                }
                assert_eq!(
                    text_cut.lines().next(),
                    mine.lines().next(),
                    "{case}: the text cut's header"
                );
                // The port against BSC's own cutter (a trace with `N`, prvscope's
                // extension, is read otherwise by BSC's tools).
                if let Some(pm) = bsc
                    .as_ref()
                    .filter(|_| !path.to_string_lossy().contains("null_mode"))
                {
                    let bsc_out = run_bsc(pm, &path, &text, &o.to_xml(), &["--cutter"], &dir);
                    // The text cut is BSC's, line for line, but for the header's duration
                    // and its comment line (the date and the input's path).
                    let strip = |t: &str| -> Vec<String> {
                        t.lines()
                            .skip(1)
                            .filter(|l| !l.contains(":CUTTER:"))
                            .map(str::to_owned)
                            .collect()
                    };
                    let (tc, bc) = (strip(&text_cut), strip(&bsc_out));
                    if let Some((i, a, b)) = first_difference(&tc, &bc) {
                        panic!("{case}: line {i} of the text cut: {a:?} against BSC's {b:?}");
                    }
                    let c = naive_tools::records(&bsc_out);
                    // BSC writes an undefined duration for a cut where nothing is written.
                    // (BSC writes an undefined duration, its first record's time never
                    // set, for a cut where nothing but closing 0s is written.)
                    let undefined = dur(&c[0]).parse::<u64>().is_ok_and(|d| d > 1 << 62);
                    assert_eq!(&c[1..], &b[1..], "{case}: the port against BSC's cutter");
                    if undefined {
                        let no_dur = |h: &str| {
                            let (a, b) = h.split_once("):").unwrap();
                            format!(
                                "{a}):{}",
                                b.trim_start_matches(|c: char| c.is_ascii_digit())
                            )
                        };
                        assert_eq!(no_dur(&a[0]), no_dur(&c[0]), "{case}: BSC's header");
                    } else {
                        assert_eq!(dur(&c[0]), dur(&b[0]), "{case}: BSC's duration");
                        assert_eq!(a[0], c[0], "{case}: the header as BSC writes it");
                    }
                }
            }
        }
    }
    // The ties this test allows are those of Extrae's traces, a few per trace.
    assert!(tie_cases < 40, "{tie_cases} cuts differ at ties");
    // Some cuts leave records out (the unsorted multi-node trace's among them).
    assert!(left_out_cases > 0, "no cut left records out");
}

/// BSC's paramedir run with `tool` on `text` (written beside copies of the side files).
fn run_bsc(pm: &Path, path: &Path, text: &str, xml: &str, tool: &[&str], dir: &Path) -> String {
    let input = dir.join("in.prv");
    std::fs::write(&input, text).unwrap();
    for ext in ["pcf", "row"] {
        let side = prvscope_format::files::side_file(path, ext);
        let _ = std::fs::remove_file(dir.join(format!("in.{ext}")));
        if side.exists() {
            std::fs::copy(side, dir.join(format!("in.{ext}"))).unwrap();
        }
    }
    std::fs::write(dir.join("o.xml"), xml).unwrap();
    let out = dir.join("bsc.prv");
    let _ = std::fs::remove_file(&out);
    let status = std::process::Command::new(pm)
        .args(tool)
        .arg(&input)
        .arg(dir.join("o.xml"))
        .arg("--output-name")
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    std::fs::read_to_string(&out).unwrap()
}

fn filters() -> Vec<(&'static str, FilterOptions)> {
    let all = FilterOptions {
        states: Some(StateFilter {
            all: true,
            ..StateFilter::default()
        }),
        events: Some(EventFilter::default()),
        comms: Some(0),
    };
    vec![
        ("everything", all.clone()),
        (
            "pypop's tracing state",
            FilterOptions {
                states: None,
                events: Some(EventFilter {
                    discard_given: false,
                    types: vec![TypeFilter {
                        ty: 40_000_012,
                        max: 0,
                        values: vec![],
                    }],
                }),
                comms: None,
            },
        ),
        (
            "running over 1000, MPI calls, big messages",
            FilterOptions {
                states: Some(StateFilter {
                    all: false,
                    names: vec!["Running\n    ".into()],
                    min_time: 1000,
                }),
                events: Some(EventFilter {
                    discard_given: false,
                    types: vec![
                        TypeFilter {
                            ty: 50_000_001,
                            max: 50_000_003,
                            values: vec![],
                        },
                        TypeFilter {
                            ty: 60_000_001,
                            max: 0,
                            values: vec![0],
                        },
                    ],
                }),
                comms: Some(1024),
            },
        ),
        (
            "discard given types",
            FilterOptions {
                states: Some(StateFilter {
                    all: false,
                    names: vec!["Idle".into(), "Running".into()],
                    min_time: 0,
                }),
                events: Some(EventFilter {
                    discard_given: true,
                    types: vec![TypeFilter {
                        ty: 40_000_001,
                        max: 42_999_999,
                        values: vec![],
                    }],
                }),
                comms: None,
            },
        ),
    ]
}

#[test]
fn filters_are_paravers_record_for_record() {
    let Some(shared) = common::shared() else {
        return;
    };
    let bsc = std::env::var_os("PARAMEDIR").map(PathBuf::from);
    let dir = std::env::temp_dir().join(format!("prvscope-filter-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cancel = AtomicBool::new(false);
    let control = Control {
        progress: &|_| {},
        cancel: &cancel,
    };
    for path in traces(&shared) {
        let trace = load(&path);
        let text = text_of(&path);
        for (name, f) in filters() {
            let mut out = Vec::new();
            write_filter(&trace, &head(&trace), &f, &mut out, &control).unwrap();
            let from_store = String::from_utf8(out).unwrap();
            let theirs = naive_tools::filter(&text, trace.pcf.as_ref(), &f);
            let case = format!("{} {name}", path.display());
            assert_eq!(
                naive_tools::records(&from_store)[1..],
                naive_tools::records(&theirs)[1..],
                "{case}"
            );
            // The filter of the file's text: the port's lines, one for one, in its order;
            // the header as Paraver's tools write it.
            let mut out = Vec::new();
            let mut input = prvscope_import::output::open_text(&path).unwrap();
            filter_text(
                &mut *input,
                &trace.header,
                trace.pcf.as_ref(),
                &f,
                &mut out,
                &control,
                None,
            )
            .unwrap();
            let mine = String::from_utf8(out).unwrap();
            let (m, t): (Vec<&str>, Vec<&str>) = (mine.lines().collect(), theirs.lines().collect());
            assert_eq!(m.len(), t.len(), "{case}: lines");
            if let Some(i) = (1..m.len()).find(|&i| m[i] != t[i]) {
                panic!(
                    "{case}: line {}: {} against the port's {}",
                    i + 1,
                    m[i],
                    t[i]
                );
            }
            assert_eq!(
                m[0],
                from_store.lines().next().unwrap(),
                "{case}: the header"
            );
            if let Some(pm) = bsc
                .as_ref()
                .filter(|_| !path.to_string_lossy().contains("null_mode"))
            {
                let xml = filter_xml(&f);
                let bsc_out = run_bsc(pm, &path, &text, &xml, &["--filter"], &dir);
                let b: Vec<&str> = bsc_out.lines().collect();
                assert_eq!(m.len(), b.len(), "{case}: lines against BSC's filter");
                if let Some(i) = (0..m.len()).find(|&i| m[i] != b[i]) {
                    panic!("{case}: line {}: {} against BSC's {}", i + 1, m[i], b[i]);
                }
            }
        }
    }
}

/// A filter's options as Paraver's XML.
fn filter_xml(f: &FilterOptions) -> String {
    use std::fmt::Write as _;
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<config>\n  <filter>\n");
    let b = |v: bool| u8::from(v);
    let _ = writeln!(
        s,
        "    <discard_states>{}</discard_states>",
        b(f.states.is_none())
    );
    let _ = writeln!(
        s,
        "    <discard_events>{}</discard_events>",
        b(f.events.is_none())
    );
    let _ = writeln!(
        s,
        "    <discard_communications>{}</discard_communications>",
        b(f.comms.is_none())
    );
    if let Some(st) = &f.states {
        let names = if st.all {
            "All".to_owned()
        } else {
            st.names.join(",")
        };
        let _ = writeln!(
            s,
            "    <states>{names}\n      <min_state_time>{}</min_state_time>\n    </states>",
            st.min_time
        );
    }
    if let Some(ev) = f.events.as_ref().filter(|e| !e.types.is_empty()) {
        let attr = if ev.discard_given {
            " use=\"discard\""
        } else {
            ""
        };
        let _ = writeln!(s, "    <types{attr}>");
        for t in &ev.types {
            if t.max != 0 {
                let _ = writeln!(s, "      <type>{}-{}</type>", t.ty, t.max);
            } else {
                let values: String = t
                    .values
                    .iter()
                    .map(|v| format!("<value>{v}</value>"))
                    .collect();
                let _ = writeln!(s, "      <type>{}{values}</type>", t.ty);
            }
        }
        let _ = writeln!(s, "    </types>");
    }
    let _ = writeln!(
        s,
        "    <comms>{}</comms>\n  </filter>\n</config>",
        f.comms.unwrap_or(0)
    );
    s
}

/// A trace of two nodes whose CPUs are numbered across the nodes (as COMPSs writes them),
/// with a record on a CPU of the other node than its task's: the filter keeps every record
/// as it was read, CPU field included (the store reads CPU 7 as the second node's fourth,
/// and leaves the record on the other node out of the timelines, as Paraver's windows do).
#[test]
fn the_filter_keeps_each_records_cpu_as_read() {
    let dir = std::env::temp_dir().join(format!("prvscope-filter-cpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = "1:3:1:1:1:0:500:1\n1:7:1:2:1:0:400:1\n1:2:1:2:1:400:1000:2\n\
2:7:1:2:1:400:50000001:3:50000002:0\n3:3:1:1:1:100:100:7:1:2:1:150:150:64:1\n\
1:8:1:2:1:1000:1000:1\n";
    let header = "#Paraver (01/01/2026 at 00:00):1000_ns:2(4,4):1:2(1:1,1:2)\n";
    let path = dir.join("two_nodes.prv");
    std::fs::write(&path, format!("{header}{body}")).unwrap();
    let trace = load(&path);
    let all = FilterOptions {
        states: Some(StateFilter {
            all: true,
            ..StateFilter::default()
        }),
        ..FilterOptions::default()
    };
    let cancel = AtomicBool::new(false);
    let control = Control {
        progress: &|_| {},
        cancel: &cancel,
    };
    let out = dir.join("filtered.prv");
    let job = prvscope_paraver::cut::Job {
        cutter: None,
        filter: Some(all),
        stop_as_paraver: false,
        source_name: None,
    };
    prvscope_paraver::cut::save(&trace, &job, &out, &control).unwrap();
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written, format!("{header}{body}"));
    if let Some(pm) = std::env::var_os("PARAMEDIR").map(PathBuf::from) {
        let xml = filter_xml(job.filter.as_ref().unwrap());
        let bsc = run_bsc(
            &pm,
            &path,
            &format!("{header}{body}"),
            &xml,
            &["--filter"],
            &dir,
        );
        assert_eq!(written, bsc, "against BSC's filter");
    }
}

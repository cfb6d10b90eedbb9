//! Loading part of a trace (a time range, some threads): what the part keeps gives the same
//! statistics of its range as the whole trace, it takes a fraction of the memory, it is the
//! same whichever way the file is read, and a trace too large for the memory is refused
//! with what to do instead.

use std::path::{Path, PathBuf};

use prvscope_analysis::stats::{self, Semantic};
use prvscope_import::synth::{self, GenOptions};
use prvscope_import::{self as trace, LoadOptions, Subset, Trace};

/// A generated trace of 16 threads (4 per task), about 4 MB, and its whole load.
fn generated(name: &str) -> (PathBuf, Trace) {
    let path = crate::common::generated_16_threads(name);
    let whole = crate::common::load(&path);
    (path, whole)
}

fn load_part(path: &Path, subset: &Subset) -> Trace {
    let opts = LoadOptions {
        subset: subset.clone(),
        ..LoadOptions::default()
    };
    trace::load(path, &opts, None).unwrap()
}

#[test]
fn a_time_range_gives_the_same_statistics_of_the_range_in_a_fraction_of_the_memory() {
    let _shared = crate::common::shared();
    let (path, whole) = generated("subset-range");
    let end = whole.header.end_time;
    let (t0, t1) = (end / 2, end / 2 + end / 10);
    let subset = Subset {
        from: Some(t0),
        to: Some(t1),
        threads: None,
    };
    let part = load_part(&path, &subset);
    assert_eq!(part.loaded_range(), Some((t0, t1)));
    assert!(part.report.is_empty(), "{:?}", part.report.warnings());
    // "State as is" and "last event value" of every type over the range: equal.
    let mut semantics = vec![Semantic::StateAsIs];
    semantics.extend(
        whole
            .store
            .event_types()
            .into_iter()
            .map(Semantic::LastEventValue),
    );
    assert!(semantics.len() >= 4);
    for semantic in semantics {
        assert_eq!(
            stats::time_per_value(&part.store, semantic, t0, t1),
            stats::time_per_value(&whole.store, semantic, t0, t1),
            "{semantic:?}"
        );
    }
    // The range's records are all there, and nothing outside it but what holds at t0.
    for row in 0..16 {
        for ty in whole.store.event_types() {
            let inside: Vec<_> = whole.store.events_in(row, ty, t0, t1 + 1).collect();
            assert_eq!(
                part.store
                    .events_in(row, ty, t0, t1 + 1)
                    .collect::<Vec<_>>(),
                inside
            );
            // Of the events before the range, only the last (the value holding at t0).
            let before: Vec<_> = part.store.events_in(row, ty, 0, t0).collect();
            assert!(before.len() <= 1, "row {row} type {ty}: {before:?}");
            assert_eq!(
                before.first(),
                whole.store.events_in(row, ty, 0, t0).last().as_ref()
            );
            assert!(
                part.store
                    .events_in(row, ty, t1 + 1, u64::MAX)
                    .next()
                    .is_none()
            );
        }
        assert_eq!(
            part.store.states_in(row, 0, u64::MAX).collect::<Vec<_>>(),
            whole.store.states_in(row, t0, t1 + 1).collect::<Vec<_>>()
        );
    }
    let (a, b) = (part.store.heap_bytes(), whole.store.heap_bytes());
    assert!(a * 5 < b, "a tenth of the time takes {a} of {b} bytes");
    // Read in memory or from a gzip stream, the part is the same.
    let bytes = std::fs::read(&path).unwrap();
    let opts = LoadOptions {
        subset: subset.clone(),
        chunk_bytes: 64 << 10,
        ..LoadOptions::default()
    };
    let pcf = whole.pcf.clone();
    let in_memory = trace::load_bytes(&path, &bytes, pcf, &opts).unwrap();
    assert_eq!(in_memory.store, part.store);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &bytes).unwrap();
    let gz_path = path.with_extension("prv.gz");
    std::fs::write(&gz_path, gz.finish().unwrap()).unwrap();
    assert_eq!(load_part(&gz_path, &subset).store, part.store);
}

#[test]
fn some_threads_keep_their_records_and_the_messages_between_them() {
    let _shared = crate::common::shared();
    let (path, whole) = generated("subset-threads");
    // Rows 1-2, all of task 3 (rows 9-12) and thread 4.1.4 (row 16).
    let subset = Subset {
        from: None,
        to: None,
        threads: Some("1-2,1.3,1.4.4".parse().unwrap()),
    };
    let part = load_part(&path, &subset);
    let kept = [0, 1, 8, 9, 10, 11, 15];
    for row in 0..16 {
        let w = &whole.store.threads()[row];
        let p = &part.store.threads()[row];
        if kept.contains(&row) {
            assert_eq!(p, w, "row {row}");
            assert!(part.is_row_loaded(row));
        } else {
            assert_eq!(p.states.len() + p.events.len(), 0, "row {row}");
            assert!(!part.is_row_loaded(row));
        }
    }
    // The store itself knows which rows it holds: no consumer re-derives it from the part.
    assert_eq!(part.store.loaded_rows(), kept);
    assert_eq!(whole.store.loaded_rows(), (0..16).collect::<Vec<_>>());
    let between: Vec<_> = whole
        .store
        .comms()
        .iter()
        .filter(|c| kept.contains(&(c.send_row as usize)) && kept.contains(&(c.recv_row as usize)))
        .copied()
        .collect();
    assert!(!between.is_empty());
    assert_eq!(part.store.comms(), between.as_slice());
    // The timeline lists only the loaded threads.
    let timeline = prvscope_viewer::timeline::Timeline::new(&part);
    assert_eq!(timeline.rows().len(), kept.len());
    // Threads the header does not have are refused with the reason.
    let bad = Subset {
        threads: Some("1.5".parse().unwrap()),
        ..Subset::default()
    };
    let e = trace::load(
        &path,
        &LoadOptions {
            subset: bad,
            ..LoadOptions::default()
        },
        None,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("task 1.5 is not in the header"),
        "{e}"
    );
}

#[test]
fn a_trace_too_large_for_the_memory_is_refused_with_what_fits() {
    let _shared = crate::common::shared();
    let (path, whole) = generated("subset-memory");
    let e = trace::estimate::estimate(&path).unwrap();
    assert_eq!(e.text_bytes, std::fs::metadata(&path).unwrap().len());
    assert_eq!(e.header.as_ref().unwrap().thread_count(), 16);
    // The estimate is above what the load took (the store is most of what stays).
    let store = whole.store.heap_bytes() as u64;
    assert!(
        e.whole_bytes > store && e.whole_bytes < store * 20,
        "{} vs {store}",
        e.whole_bytes
    );
    // A budget for a third of the records: refused, naming the options and a range that fits.
    let nothing = Subset {
        from: Some(0),
        to: Some(0),
        threads: None,
    };
    let fixed = e.bytes_for(&nothing);
    let budget = fixed + (e.whole_bytes - fixed) / 3;
    let message = prvscope::cli::check_memory(&path, &Subset::default(), Some(budget), None)
        .unwrap_err()
        .to_string();
    for needle in [
        "needs about",
        "--from/--to",
        "--threads",
        "16 threads",
        "fits",
        "--no-cache",
    ] {
        assert!(message.contains(needle), "{needle}: {message}");
    }
    // With a store cache to convert it into, the whole trace is converted instead.
    let cache = prvscope_import::cache::CacheOptions {
        dir: path.with_file_name("cache"),
        limit_bytes: 1 << 40,
    };
    let fit = prvscope::cli::check_memory(&path, &Subset::default(), Some(budget), Some(&cache));
    assert_eq!(fit.unwrap(), prvscope::cli::Fit::Convert);
    // The suggested range is expected to fit, and a part within the budget passes.
    let mut limited = e.clone();
    limited.available_bytes = Some(budget);
    let (from, to) = limited.range_that_fits(budget).unwrap();
    let part = Subset {
        from: Some(from),
        to: Some(to),
        threads: None,
    };
    assert!(to > 0 && to < whole.header.end_time);
    assert!(limited.bytes_for(&part) <= budget);
    prvscope::cli::check_memory(&path, &part, Some(budget), None).unwrap();
    prvscope::cli::check_memory(&path, &Subset::default(), None, None).unwrap();
    // Compressed: the text size comes from the xz index, exactly.
    let summary = synth::generate(
        &path.with_file_name("x.prv"),
        &GenOptions {
            threads: 4,
            target_bytes: 1 << 20,
            xz: true,
            ..GenOptions::default()
        },
    )
    .unwrap();
    let xz = synth::xz_path(&summary.prv);
    let ex = trace::estimate::estimate(&xz).unwrap();
    assert_eq!(ex.compression, trace::Compression::Xz);
    assert_eq!(ex.text_bytes, summary.bytes);
}

/// The command line: `--from/--to/--threads` reach the load and `info` says a part was
/// loaded; a memory budget too small refuses the load with what to do instead, and
/// `--skip-memory-check` loads it anyway.
#[test]
fn the_command_line_loads_a_part_and_refuses_a_trace_that_does_not_fit() {
    let _shared = crate::common::shared();
    let (path, whole) = generated("subset-cli");
    let end = whole.header.end_time;
    let (t0, t1) = (end / 2, end / 2 + end / 10);
    let cache = crate::common::temp_dir("subset-cli-cache");
    let prvscope = |command: &str, args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .arg(command)
            .arg(&path)
            .arg("--cache-dir")
            .arg(&cache)
            .args(args)
            .output()
            .unwrap()
    };
    let info = |args: &[&str]| prvscope("info", args);
    let json = |out: &std::process::Output| -> serde_json::Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };

    let (from, to) = (t0.to_string(), t1.to_string());
    let j = json(&info(&[
        "--json",
        "--from",
        &from,
        "--to",
        &to,
        "--threads",
        "1.2",
    ]));
    let part = load_part(
        &path,
        &Subset {
            from: Some(t0),
            to: Some(t1),
            threads: Some("1.2".parse().unwrap()),
        },
    );
    let (c, all) = (part.store.counts(), whole.store.counts());
    assert_eq!(j["state_records"], c.states);
    assert_eq!(j["event_records"], c.events);
    assert_eq!(j["comm_records"], c.comms);
    // 4 of 16 threads over a tenth of the time: a small share of the records.
    assert!(
        c.states > 0 && c.states * 20 < all.states,
        "{c:?} of {all:?}"
    );
    assert_eq!(
        j["part"],
        format!("time {t0} to {t1}, threads 1.2 (4 of 16 threads)")
    );

    // The statistics of a part list the loaded threads only (the others would read as idle).
    let stats = prvscope(
        "stats",
        &["--threads", "1.2", "--from", &from, "--to", &to, "--csv"],
    );
    assert!(stats.status.success());
    let stats = String::from_utf8(stats.stdout).unwrap();
    let threads: Vec<&str> = stats.lines().skip(1).collect();
    assert_eq!(threads.len(), 4, "{stats}");
    assert!(
        threads.iter().all(|l| l.starts_with("THREAD 1.2.")),
        "{stats}"
    );

    // So do the scopes, and their shares are of the loaded threads' time.
    let end_text = end.to_string();
    let scopes = prvscope(
        "scopes",
        &[
            "--threads",
            "1.2",
            "--from",
            "0",
            "--to",
            &end_text,
            "--per-thread",
            "--csv",
        ],
    );
    assert!(scopes.status.success());
    let scopes = String::from_utf8(scopes.stdout).unwrap();
    let mut lines = scopes.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.len(), 7 + 4, "{scopes}");
    assert!(header[7..].iter().all(|h| h.starts_with("THREAD 1.2.")));
    let top: Vec<&str> = lines.next().unwrap().split(',').collect();
    let inclusive: u64 = top[3].parse().unwrap();
    let share: f64 = top[5].parse().unwrap();
    let per_thread: u64 = top[7..].iter().map(|x| x.parse::<u64>().unwrap()).sum();
    assert!(inclusive > 0 && per_thread == inclusive, "{scopes}");
    let expected = 100.0 * inclusive as f64 / (end as f64 * 4.0);
    assert!((share - expected).abs() < 0.01, "{share} vs {expected}");

    let whole_json = json(&info(&["--json"]));
    assert_eq!(whole_json["state_records"], all.states);
    assert!(whole_json["part"].is_null());

    // Parsing the trace does not fit in 1 MB: refused. (Its store, cached by the load above,
    // is mapped instead, with no memory check.)
    let refused = info(&["--memory-budget", "1MB", "--no-cache"]);
    assert!(!refused.status.success());
    let mapped = json(&info(&["--json", "--memory-budget", "1MB"]));
    assert_eq!(mapped["cache"], "hit");
    assert_eq!(mapped["event_records"], all.events);
    let message = String::from_utf8_lossy(&refused.stderr);
    for needle in ["g.prv", "needs about", "--from/--to", "--threads"] {
        assert!(message.contains(needle), "{needle}: {message}");
    }
    let forced = json(&info(&[
        "--json",
        "--memory-budget",
        "1MB",
        "--skip-memory-check",
        "--no-cache",
    ]));
    assert_eq!(forced["event_records"], all.events);
}

/// The cut of a part (the viewer's "Save window as trace" on a loaded part) reads the
/// trace's text, as the cut of the whole trace does, when the part holds all it keeps (its
/// range, its threads): the same lines as the whole trace's cut. A cut reaching past the
/// part, or keeping a thread it did not load, is written from what was loaded instead.
#[test]
fn a_parts_cut_is_the_whole_traces_cut_of_the_same_range_and_threads() {
    use std::sync::atomic::AtomicBool;

    use prvscope_paraver::cut::{self, Control, CutterOptions, Job};

    let _shared = crate::common::shared();
    let (path, whole) = generated("subset-cut");
    let end = whole.header.end_time;
    let (from, to) = (end / 4, end / 4 * 3);
    let part = load_part(
        &path,
        &Subset {
            from: Some(from),
            to: Some(to),
            threads: Some("1-2,1.3".parse().unwrap()),
        },
    );
    let loaded: Vec<bool> = (0..16).map(|r| part.is_row_loaded(r)).collect();
    let cancel = AtomicBool::new(false);
    let control = Control {
        progress: &|_| {},
        cancel: &cancel,
    };
    let dir = crate::common::temp_dir("subset-cut-out");
    let body = |t: &Trace, c: &CutterOptions, name: &str| {
        let out = dir.join(name);
        let job = Job {
            cutter: Some(c.clone()),
            ..Job::default()
        };
        cut::save(t, &job, &out, &control).unwrap();
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .filter(|l| !l.contains(":CUTTER:"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let mut inside = CutterOptions::by_time(end / 3, end / 2);
    inside.rows = Some(loaded.clone());
    let of_part = body(&part, &inside, "part.prv");
    assert!(of_part.len() > 100, "{} lines", of_part.len());
    assert!(
        of_part == body(&whole, &inside, "whole.prv"),
        "the part's cut differs from the whole trace's"
    );
    // Past the part's range: what was loaded, not the text's lines past it.
    let mut beyond = CutterOptions::by_time(end / 3, end / 10 * 9);
    beyond.rows = Some(loaded);
    assert!(body(&part, &beyond, "past.prv") != body(&whole, &beyond, "past-whole.prv"));
}

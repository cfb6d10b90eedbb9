//! pypop's `chop_to_roi` (`pypop.extrae.chop_prv_to_roi`, 0.3.5) through `prvscope
//! paramedir`: its two calls with its own XML files, and its reading of the filtered trace
//! in between, on a trace with Extrae's tracing on/off events (40000012) around a region.

use std::path::Path;
use std::process::Command;

/// pypop's `filters/tracing_state.xml`.
const TRACING_STATE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<config>
  <filter>
    <discard_states>1</discard_states>
    <discard_events>0</discard_events>
    <discard_communications>1</discard_communications>
    <states>Running
      <min_state_time>0</min_state_time>
    </states>
    <types>
      <type>40000012</type>
    </types>
    <comms>0</comms>
  </filter>
</config>
"#;

/// pypop's `cutters/single_region.skel`.
const SINGLE_REGION: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<config>
  <cutter>
    <max_trace_size>0</max_trace_size>
    <by_time>1</by_time>
    <minimum_time>@MIN_TIME@</minimum_time>
    <maximum_time>@MAX_TIME@</maximum_time>
    <minimum_time_percentage>0</minimum_time_percentage>
    <maximum_time_percentage>100</maximum_time_percentage>
    <original_time>0</original_time>
    <break_states>0</break_states>
    <remove_first_states>1</remove_first_states>
    <remove_last_states>1</remove_last_states>
    <keep_events>1</keep_events>
  </cutter>
</config>
"#;

fn paramedir(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("paramedir")
        .args(args)
        .output()
        .unwrap()
}

/// `epoch_2proc` with tracing switched off at a tenth of the run, on at a quarter and off
/// at three quarters on every thread, as `Extrae_shutdown`/`Extrae_restart` write it.
fn trace_with_a_region(shared: &Path, dir: &Path) -> (std::path::PathBuf, u64) {
    let src = shared.join("pypop_epoch_scaling/epoch_2proc.prv.gz");
    let text = crate::common::gunzip_text(&src);
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_owned();
    let d: u64 = header
        .split_once("):")
        .unwrap()
        .1
        .split('_')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let ncomm: usize = header
        .rsplit_once(',')
        .unwrap()
        .1
        .trim()
        .parse()
        .unwrap_or(0);
    let mut head = vec![header];
    let mut body: Vec<String> = Vec::new();
    for (i, l) in lines.enumerate() {
        if i < ncomm {
            head.push(l.to_owned());
        } else {
            body.push(l.to_owned());
        }
    }
    for (task, cpu) in [(1, 1), (2, 2)] {
        for (t, v) in [(d / 10, 0), (d / 4, 1), (d / 4 * 3, 0)] {
            body.push(format!("2:{cpu}:1:{task}:1:{t}:40000012:{v}"));
        }
    }
    let time = |l: &String| {
        l.split(':')
            .nth(5)
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0)
    };
    body.sort_by_key(time);
    let path = dir.join("epoch_roi.prv");
    std::fs::write(&path, head.join("\n") + "\n" + &body.join("\n") + "\n").unwrap();
    for ext in ["pcf", "row"] {
        std::fs::copy(
            shared.join(format!("pypop_epoch_scaling/epoch_2proc.{ext}")),
            dir.join(format!("epoch_roi.{ext}")),
        )
        .unwrap();
    }
    (path, d)
}

#[test]
fn chop_to_roi_runs_through_prvscope_paramedir() {
    let Some(shared) = crate::common::shared_traces() else {
        return;
    };
    let dir = crate::common::temp_dir("pypop-chop");
    let (trace, d) = trace_with_a_region(&shared, &dir);
    let t = trace.to_string_lossy().into_owned();
    // 1. The filter: only the tracing events.
    let filter = dir.join("tracing_state.xml");
    std::fs::write(&filter, TRACING_STATE).unwrap();
    let roi = dir.join("epoch_roi.roifilter.prv");
    let out = paramedir(&[
        "--filter",
        &filter.to_string_lossy(),
        "--output-name",
        &roi.to_string_lossy(),
        &t,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 2. pypop's `_get_roi_times`: per thread the second event is the start (1), the last
    // the end (0); the region is the earliest start to one past the latest end.
    let text = std::fs::read_to_string(&roi).unwrap();
    let mut per_thread: std::collections::BTreeMap<(u64, u64), Vec<(u64, u64)>> =
        std::collections::BTreeMap::new();
    for l in text.lines().skip(1) {
        let f: Vec<u64> = l
            .split(':')
            .map(|x| x.parse().unwrap_or(u64::MAX))
            .collect();
        assert!(
            l.starts_with('#') || l.starts_with('c') || l.starts_with('2'),
            "{l}"
        );
        if l.starts_with('2') {
            for p in f[6..].chunks(2) {
                assert_eq!(p[0], 40_000_012, "only the tracing events: {l}");
                per_thread
                    .entry((f[3], f[4]))
                    .or_default()
                    .push((f[5], p[1]));
            }
        }
    }
    assert_eq!(per_thread.len(), 2);
    let on = per_thread.values().map(|v| v[1]).min().unwrap();
    let off = per_thread
        .values()
        .map(|v| *v.last().unwrap())
        .max()
        .unwrap();
    assert_eq!((on.1, off.1), (1, 0));
    let (start, end) = (on.0, off.0 + 1);
    assert_eq!((start, end), (d / 4, d / 4 * 3 + 1));
    // 3. The cutter with pypop's skeleton.
    let cutter = dir.join("cutter.xml");
    std::fs::write(
        &cutter,
        SINGLE_REGION
            .replace("@MIN_TIME@", &start.to_string())
            .replace("@MAX_TIME@", &end.to_string()),
    )
    .unwrap();
    let chopped = dir.join("epoch_roi.chop.prv");
    let chop = paramedir(&[
        "--cutter",
        &t,
        &cutter.to_string_lossy(),
        "--output-name",
        &chopped.to_string_lossy(),
    ]);
    assert!(
        chop.status.success(),
        "{}",
        String::from_utf8_lossy(&chop.stderr)
    );
    let cut = crate::common::load(&chopped);
    assert!(
        cut.report.warnings().is_empty(),
        "{:?}",
        cut.report.warnings()
    );
    assert!(cut.store.counts().states > 0);
    // Every state kept lies inside the region (states crossing its edges removed), shifted
    // to start at the first record.
    let first_state = cut
        .store
        .threads()
        .iter()
        .filter_map(|t| t.states.begin.first())
        .min()
        .unwrap();
    assert_eq!(first_state, 0);
    assert!(
        cut.header.end_time <= end - start,
        "{}",
        cut.header.end_time
    );
    // The same cut as `prvscope cut` with that file.
    let same = dir.join("same.prv");
    let out = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .args(["cut", &t, "--cutter", &cutter.to_string_lossy(), "-o"])
        .arg(&same)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body = |p: &Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    // `prvscope cut` reads the whole file where BSC's cutter stops once every thread is
    // finished: it keeps each line paramedir's cut keeps, in order, and may add the events
    // at the end of a thread's last state that BSC's leaves out after it stopped reading.
    // (The 0s appended at the end, at the last time written, are compared apart.)
    let records = |p: &Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .take_while(|l| !l.starts_with("# Appending"))
            .filter(|l| !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    let closing = |p: &Path| body(p).len() - records(p).len();
    assert_eq!(closing(&chopped), closing(&same));
    let (theirs, ours) = (records(&chopped), records(&same));
    let mut it = ours.iter();
    for l in &theirs {
        assert!(it.any(|x| x == l), "{l} left out by prvscope cut");
    }
    let extra = ours.len() - theirs.len();
    assert!(extra <= 16, "{extra} lines more");
    // paramedir says how many it left out.
    let said = String::from_utf8_lossy(&chop.stderr);
    assert_eq!(
        said.contains(&format!(
            "warning: {extra} records inside the cut come after"
        )),
        extra > 0,
        "{extra} left out: {said}"
    );
    assert_eq!(said.contains("records inside the cut"), extra > 0, "{said}");
    // A trace without the tracing events: the filter writes none, as BSC's does (pypop then
    // says "No valid Extrae ON-OFF bracket").
    let plain = shared.join("extrae_mpi_prime16/prime_v0.prv");
    let none = dir.join("none.prv");
    let out = paramedir(&[
        "--filter",
        &filter.to_string_lossy(),
        "--output-name",
        &none.to_string_lossy(),
        &plain.to_string_lossy(),
    ]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&none).unwrap();
    assert!(
        text.lines()
            .skip(1)
            .all(|l| !l.starts_with(['1', '2', '3']))
    );
    // Bad calls: a missing XML, an XML that is not Paraver's; nothing written.
    let bad = dir.join("bad.xml");
    std::fs::write(
        &bad,
        "<config><cutter><by_time>yes</by_time></cutter></config>",
    )
    .unwrap();
    let never = dir.join("never.prv");
    let out = paramedir(&[
        "--cutter",
        &t,
        &bad.to_string_lossy(),
        "-o",
        &never.to_string_lossy(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.xml") && err.contains("<by_time>"),
        "{err}"
    );
    assert!(!never.exists());
    let out = paramedir(&["--cutter", &t, "-o", &never.to_string_lossy()]);
    assert!(!out.status.success());
    assert!(!never.exists());
}

//! A trace whose file is not sorted by time (each task's records together, as tools that
//! merge per-node files write them): `paramedir --cutter` stops where BSC's cutter stops and
//! says how many records inside the cut it left out; `prvscope cut` keeps them.

use std::path::Path;
use std::process::Command;

/// The records of a cut's file (no comment, no closing 0s).
fn records(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("# Appending"))
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_drop_in_cutter_says_what_it_leaves_out_of_an_unsorted_file() {
    let Some(shared) = crate::common::shared_traces() else {
        return;
    };
    let _g = crate::common::shared();
    let src = shared.join("extrae_mpi_prime16/prime_v0");
    let text = std::fs::read_to_string(src.with_extension("prv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    // The communicator lines, then every record of task 1, then those of the other tasks
    // (a stable sort by task).
    let mut body: Vec<&str> = lines.collect();
    body.sort_by_key(|l| {
        (
            l.starts_with(['1', '2', '3']),
            l.split(':').nth(3) != Some("1"),
        )
    });
    let dir = crate::common::temp_dir("unsorted_cut");
    let t = dir.join("grouped.prv");
    std::fs::write(&t, format!("{header}\n{}\n", body.join("\n"))).unwrap();
    for side in ["pcf", "row"] {
        std::fs::copy(src.with_extension(side), t.with_extension(side)).unwrap();
    }
    let d: u64 = header
        .split("):")
        .nth(1)
        .and_then(|r| r.split('_').next())
        .unwrap()
        .parse()
        .unwrap();
    let (from, to) = (d / 4, d / 2);
    let xml = dir.join("cut.xml");
    std::fs::write(
        &xml,
        format!(
            "<?xml version='1.0'?>\n<config>\n<cutter>\n\
             <max_trace_size>0</max_trace_size>\n<by_time>1</by_time>\n\
             <minimum_time>{from}</minimum_time>\n<maximum_time>{to}</maximum_time>\n\
             <minimum_time_percentage>0</minimum_time_percentage>\n\
             <maximum_time_percentage>100</maximum_time_percentage>\n\
             <original_time>0</original_time>\n<break_states>1</break_states>\n\
             <remove_first_states>0</remove_first_states>\n\
             <remove_last_states>0</remove_last_states>\n\
             <keep_boundary_events>0</keep_boundary_events>\n\
             <keep_all_events>0</keep_all_events>\n</cutter>\n</config>\n"
        ),
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_prvscope");
    let (stopped, whole) = (dir.join("stopped.prv"), dir.join("whole.prv"));
    // Runs prvscope; its stderr.
    let run = |args: &[&std::ffi::OsStr]| -> String {
        let out = Command::new(bin).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = run(&[
        "paramedir".as_ref(),
        "--cutter".as_ref(),
        t.as_os_str(),
        xml.as_os_str(),
        "--output-name".as_ref(),
        stopped.as_os_str(),
    ]);
    let (from, to) = (from.to_string(), to.to_string());
    let all = run(&[
        "cut".as_ref(),
        t.as_os_str(),
        "--from".as_ref(),
        from.as_ref(),
        "--to".as_ref(),
        to.as_ref(),
        "-o".as_ref(),
        whole.as_os_str(),
    ]);
    assert!(!all.contains("left out"), "{all}");
    let (st, wh) = (records(&stopped), records(&whole));
    // The cutter stops at task 1's first record past the cut: the other tasks' records
    // inside the cut come later in the file.
    let left_out = wh.len() - st.len();
    assert!(left_out > 1000, "{} against {}", wh.len(), st.len());
    assert!(
        said.contains(&format!(
            "warning: {left_out} records inside the cut come after"
        )),
        "{left_out}: {said}"
    );
    // (BSC's cutter writes the same lines as `paramedir --cutter` here, but its comments.)
    // What the cutter kept, `prvscope cut` keeps too, in the same order.
    let mut it = wh.iter();
    for l in &st {
        assert!(it.any(|x| x == l), "{l} left out by prvscope cut");
    }
}

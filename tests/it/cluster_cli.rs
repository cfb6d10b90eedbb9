//! `prvscope cluster` on real traces: the bursts' CSV adds up to the clusters' table, the
//! clustered trace is written beside its `.pcf`, a trace without counters is clustered on
//! the duration and says so, an ovni trace's bursts come from its thread-state events, and
//! one with nothing to cluster says why.

use std::process::Command;

use crate::common;

fn cluster(args: &[&str], trace: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .args(["cluster", "--no-cache"])
        .args(args)
        .arg(trace)
        .output()
        .unwrap()
}

#[test]
fn cluster_writes_bursts_table_and_trace() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let trace = root.join("pypop_epoch_scaling/epoch_2proc.prv.gz");
    let csv = cluster(&["--csv", "--min-duration", "0"], &trace);
    assert!(
        csv.status.success(),
        "{}",
        String::from_utf8_lossy(&csv.stderr)
    );
    let text = String::from_utf8(csv.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("thread,begin,end,duration,PAPI_TOT_INS [Instr completed],IPC,cluster")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.len() > 3000, "{} bursts", rows.len());
    for r in &rows {
        let (b, e, d): (u64, u64, u64) = (
            r[1].parse().unwrap(),
            r[2].parse().unwrap(),
            r[3].parse().unwrap(),
        );
        assert_eq!(e - b, d);
    }
    // The table's bursts per class add up to the CSV's.
    let table = cluster(&["--min-duration", "0"], &trace);
    let table = String::from_utf8(table.stdout).unwrap();
    let counted: usize = table
        .lines()
        .skip(2)
        .filter_map(|l| l.split_whitespace().rev().nth(8)?.parse::<usize>().ok())
        .sum();
    assert_eq!(counted, rows.len(), "{table}");
    let noise = rows.iter().filter(|r| r[6] == "noise").count();
    assert!(
        table.contains(&format!("Noise {noise:>20}")) || noise > 0,
        "{table}"
    );

    let dir = common::temp_dir("cluster-cli");
    let out = dir.join("clustered.prv");
    let w = cluster(&["-o", out.to_str().unwrap()], &trace);
    assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
    let pcf = std::fs::read_to_string(out.with_extension("pcf")).unwrap();
    assert!(
        pcf.contains("90000001    Cluster ID") && pcf.contains("Cluster 1"),
        "{pcf}"
    );
    assert!(out.with_extension("row").exists());

    // Paraver's own view of the written trace: `General/analysis/2dp_cluster.cfg` (time per
    // cluster value per thread, as BSC's paramedir computes it, which gives the same text on
    // this file) equals each thread's burst time per class.
    let csv = cluster(&["--csv"], &trace);
    let text = String::from_utf8(csv.stdout).unwrap();
    let mut ours = std::collections::BTreeMap::<(String, String), u64>::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let class = match f[6] {
            "noise" => "Noise".to_owned(),
            "missing" => "Missing data".to_owned(),
            n => format!("Cluster {n}"),
        };
        *ours.entry((f[0].to_owned(), class)).or_default() += f[3].parse::<u64>().unwrap();
    }
    let cfg = root.join("../paraver_cfgs/paraver/General/analysis/2dp_cluster.cfg");
    let table = dir.join("2dp_cluster.txt");
    let p = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("paramedir")
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .arg(&out)
        .arg(&cfg)
        .arg(&table)
        .output()
        .unwrap();
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    let table = std::fs::read_to_string(&table).unwrap();
    let mut lines = table.lines();
    let columns: Vec<String> = lines
        .next()
        .unwrap()
        .split('\t')
        .map(|c| c.trim().to_owned())
        .collect();
    let mut compared = 0;
    for l in lines.filter(|l| l.starts_with("THREAD ")) {
        let cells: Vec<&str> = l.split('\t').collect();
        let thread = cells[0].trim_start_matches("THREAD ").to_owned();
        for (name, cell) in columns.iter().zip(&cells).skip(1) {
            if name == "End" || name.is_empty() {
                continue;
            }
            let us: f64 = cell.trim().parse().unwrap();
            let ns = ours
                .get(&(thread.clone(), name.clone()))
                .copied()
                .unwrap_or(0);
            assert!(
                (us * 1000.0 - ns as f64).abs() < 10.0,
                "{thread} {name}: paramedir {us} us, bursts {ns} ns"
            );
            compared += 1;
        }
    }
    assert!(compared >= 8, "{compared} cells compared\n{table}");
}

#[test]
fn without_counters_the_duration_alone_and_nothing_to_cluster_says_why() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let path = root.join("null_mode/threads_legacy.prv");
    let o = cluster(&["--min-duration", "0", "--min-points", "1"], &path);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("clustered on their duration alone"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("features: log duration (ns)"), "{out}");
    assert!(out.contains("Cluster 1"), "{out}");

    let o = cluster(&["--x", "PAPI_TOT_INS"], &path);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no feature `PAPI_TOT_INS`"), "{err}");

    let o = cluster(&["--min-duration", "1000s"], &path);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no burst of the minimum duration or longer"),
        "{err}"
    );

    let ovni = root.join("ovni_nanos6-task-types/cpu.prv");
    // ovni's CPU view: neither states nor thread-state events.
    let o = cluster(&[], &ovni);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("neither state records nor ovni's thread state events"),
        "{err}"
    );
    let o = cluster(
        &["--min-duration", "0"],
        &root.join("ovni_nanos6-task-types/thread.prv"),
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.starts_with("404 bursts (from the ovni thread state and runtime subsystem events)"),
        "{out}"
    );
}

/// Clustering a part of a trace says how many bursts cross its edges and were left out.
#[test]
fn cluster_of_a_part_leaves_out_the_bursts_at_its_edges() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let trace = root.join("pypop_epoch_scaling/epoch_2proc.prv.gz");
    let out = cluster(
        &[
            "--min-duration",
            "0",
            "--from",
            "2000000000",
            "--to",
            "3000000000",
        ],
        &trace,
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(
        first.ends_with(
            "; 4 bursts crossing the loaded part's edges left out (4.135 s as loaded: their \
             records are only partly loaded)"
        ),
        "{first}"
    );
}

/// A file cut short (its first half of EPOCH 2) and the same records shuffled: the
/// clustering of the shuffled file is the sorted one's, and the cut one says it is cut.
#[test]
fn cluster_of_an_unsorted_file_is_the_sorted_ones_and_a_cut_file_says_so() {
    use std::io::Read as _;
    let _shared = common::shared();
    let Some(dir) = common::shared_traces() else {
        return;
    };
    let src = dir.join("pypop_epoch_scaling/epoch_2proc");
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(src.with_extension("prv.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let out = common::temp_dir("cluster-seams");
    let lines: Vec<&str> = text.lines().collect();
    let write = |name: &str, body: &[&str]| {
        let p = out.join(format!("{name}.prv"));
        std::fs::write(&p, format!("{}\n", body.join("\n"))).unwrap();
        for ext in ["pcf", "row"] {
            std::fs::copy(src.with_extension(ext), p.with_extension(ext)).unwrap();
        }
        p
    };
    let sorted = write("sorted", &lines);
    // The records from the last time to the first, those of one time in their order (which
    // is a trace's meaning): an unsorted file of the same trace.
    let body = lines
        .iter()
        .position(|l| !l.starts_with(['#', 'c']))
        .unwrap();
    let mut records = lines[body..].to_vec();
    let time = |l: &&str| {
        l.split(':')
            .nth(5)
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap()
    };
    records.sort_by_key(|l| std::cmp::Reverse(time(l)));
    let mut shuffled: Vec<&str> = lines[..body].to_vec();
    shuffled.extend(records);
    let shuffled = write("shuffled", &shuffled);
    let half = write("half", &lines[..lines.len() / 2]);
    let table = |o: &std::process::Output| -> String {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let a = cluster(&[], &sorted);
    assert_eq!(table(&a), table(&cluster(&[], &shuffled)));
    assert!(table(&a).contains("Cluster 1"));
    let cut = cluster(&[], &half);
    assert!(table(&cut).contains("Cluster 1"));
    let err = String::from_utf8_lossy(&cut.stderr);
    assert!(err.contains("looks cut short"), "{err}");
    assert!(!String::from_utf8_lossy(&a.stderr).contains("cut short"));
}

//! The traces of `../shared/traces` load with the expected counts, from plain, `.xz` and `.gz`.

use std::io::Write;
use std::path::Path;

use prvscope_import::Compression;

use crate::common::{load, shared_trace_files, shared_traces, temp_dir, value_intervals};

struct Expect {
    path: &'static str,
    states: u64,
    events: u64,
    comms: u64,
    rows: usize,
    applications: usize,
}

const EXPECTED: &[Expect] = &[
    Expect {
        path: "extrae_mpi_prime16/prime_v0.prv",
        states: 1407,
        events: 18482,
        comms: 0,
        rows: 16,
        applications: 1,
    },
    Expect {
        path: "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
        states: 558,
        events: 4993,
        comms: 0,
        rows: 24,
        applications: 1,
    },
    Expect {
        path: "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
        states: 4280,
        events: 42284,
        comms: 484,
        rows: 20,
        applications: 2,
    },
    Expect {
        path: "pypop_imagemagick_omp4/omp4.prv.gz",
        states: 114_301,
        events: 1_083_849,
        comms: 0,
        rows: 4,
        applications: 1,
    },
    Expect {
        path: "null_mode/threads_null.prv",
        states: 3,
        events: 8,
        comms: 0,
        rows: 2,
        applications: 1,
    },
    Expect {
        path: "null_mode/threads_legacy.prv",
        states: 3,
        events: 8,
        comms: 0,
        rows: 2,
        applications: 1,
    },
];

fn check_counts(t: &prvscope_import::Trace, e: &Expect) {
    let c = t.store.counts();
    assert_eq!(
        (c.states, c.events, c.comms),
        (e.states, e.events, e.comms),
        "{}",
        e.path
    );
    assert_eq!(t.header.thread_count(), e.rows, "{}", e.path);
    assert_eq!(t.store.threads().len(), e.rows, "{}", e.path);
    assert_eq!(t.header.applications.len(), e.applications, "{}", e.path);
    assert_eq!(
        t.report.skipped(),
        0,
        "{}: {:?}",
        e.path,
        t.report.warnings()
    );
}

/// Writes the same trace text as plain, `.xz` and `.gz` into `dir`, with the side files.
fn all_forms(src: &Path, dir: &Path) -> Vec<std::path::PathBuf> {
    let text = if Compression::sniff(&std::fs::read(src).unwrap()) == Compression::Gzip {
        let mut out = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(src).unwrap()),
            &mut out,
        )
        .unwrap();
        out
    } else {
        std::fs::read(src).unwrap()
    };
    let plain = dir.join("t.prv");
    std::fs::write(&plain, &text).unwrap();
    for ext in ["pcf", "row"] {
        let side = prvscope_import::source::side_file(src, ext);
        if side.exists() {
            std::fs::copy(&side, dir.join(format!("t.{ext}"))).unwrap();
        }
    }
    let xz = dir.join("t.prv.xz");
    prvscope_import::synth::compress_xz(&plain, &xz).unwrap();
    let gz = dir.join("t.prv.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(&text).unwrap();
    enc.finish().unwrap();
    vec![plain, xz, gz]
}

#[test]
fn shared_traces_load_with_expected_counts_in_every_compression() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    for (i, e) in EXPECTED.iter().enumerate() {
        let src = root.join(e.path);
        let original = load(&src);
        check_counts(&original, e);
        let dir = temp_dir(&format!("forms{i}"));
        for p in all_forms(&src, &dir) {
            let t = load(&p);
            check_counts(&t, e);
            assert_eq!(*t.store, *original.store, "{} as {}", e.path, p.display());
            assert_eq!(t.pcf.is_some(), original.pcf.is_some());
        }
    }
}

#[test]
fn ovni_large_xz_loads_ten_million_events_like_its_plain_text() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let src = root.join("ovni_gen_large_4x16/thread.prv.xz");
    let t = load(&src);
    assert_eq!(t.stats.compression, Compression::Xz);
    let c = t.store.counts();
    assert_eq!((c.states, c.events, c.comms), (0, 10_327_530, 0));
    assert_eq!(t.header.thread_count(), 64);
    assert_eq!(t.report.skipped(), 0, "{:?}", t.report.warnings());
    assert!(t.stats.bytes_decoded > 280_000_000);
    // The memory check before a load reads the text size from the xz index: exact.
    let e = prvscope_import::estimate::estimate(&src).unwrap();
    assert_eq!(e.text_bytes, t.stats.bytes_decoded);
    // The store is compact: well under 16 bytes per record.
    assert!(
        t.store.bytes_per_record() < 16.0,
        "{}",
        t.store.bytes_per_record()
    );

    // The mmap path gives the same store as the streaming path.
    let dir = temp_dir("ovni_plain");
    let plain = dir.join("thread.prv");
    let mut out = std::fs::File::create(&plain).unwrap();
    std::io::copy(
        &mut liblzma::read::XzDecoder::new_multi_decoder(std::fs::File::open(&src).unwrap()),
        &mut out,
    )
    .unwrap();
    drop(out);
    std::fs::copy(
        root.join("ovni_gen_large_4x16/thread.pcf"),
        dir.join("thread.pcf"),
    )
    .unwrap();
    let p = load(&plain);
    assert_eq!(*p.store, *t.store);
}

#[test]
fn every_shared_trace_loads_without_skipping_anything() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let mut seen = 0;
    // The large ovni `.xz` is loaded by the tests of every compression instead.
    for f in shared_trace_files(&root)
        .into_iter()
        .filter(|f| !f.to_string_lossy().ends_with(".xz"))
    {
        let name = f.to_string_lossy();
        let t = load(&f);
        assert_eq!(t.report.skipped(), 0, "{name}: {:?}", t.report.warnings());
        assert!(t.store.counts().total() > 0, "{name}");
        assert!(t.pcf.is_some() && t.row.is_some(), "{name}");
        seen += 1;
    }
    assert!(seen >= 14, "only {seen} traces found");
}

#[test]
fn ovni_style_traces_keep_their_label_spaces() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let t = load(&root.join("ovni_nanos6-task-types/thread.prv"));
    let pcf = t.pcf.as_ref().unwrap();
    assert!(t.header.node_cpus.is_empty());
    assert_eq!(t.header.end_time, 59_826_402);
    // Thread: CPU affinity values are ` CPU 0.0`-style labels written with `%-4d %s`.
    let labels: Vec<&String> = pcf.event_types[&6].values.values().collect();
    assert!(labels.iter().any(|l| l.starts_with(" CPU ")), "{labels:?}");
    assert!(labels.iter().any(|l| l.starts_with("vCPU ")), "{labels:?}");
}

#[test]
fn null_mode_values_follow_the_table_of_the_readme() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let null = load(&root.join("null_mode/threads_null.prv"));
    let s = &null.store;
    assert_eq!(s.null_policy().mode_name(), "sentinel");
    assert_eq!(s.counts().null_values, 4);
    // type 7, thread 1: [100,200) value 0, null elsewhere.
    assert_eq!(value_intervals(s, 0, 7), vec![(100, 200, 0)]);
    // type 7, thread 2: [0,150) value 3, [150,300) value 0, null after.
    assert_eq!(value_intervals(s, 1, 7), vec![(0, 150, 3), (150, 300, 0)]);
    // type 8, thread 2: [300,400) value 0, null after.
    assert_eq!(value_intervals(s, 1, 8), vec![(300, 400, 0)]);
    let label = null.pcf.as_ref().unwrap().value_label(7, 0);
    assert_eq!(label, Some("empty queue"));

    let legacy = load(&root.join("null_mode/threads_legacy.prv"));
    let s = &legacy.store;
    assert_eq!(s.null_policy().mode_name(), "zero");
    assert_eq!(s.counts().null_values, 4);
    assert_eq!(value_intervals(s, 0, 7), vec![]);
    assert_eq!(value_intervals(s, 1, 7), vec![(0, 150, 3)]);
    assert_eq!(value_intervals(s, 1, 8), vec![]);
    // The data is the same; only the reading differs.
    assert_eq!(
        null.store.events_in(1, 7, 0, 500).collect::<Vec<_>>(),
        legacy.store.events_in(1, 7, 0, 500).collect::<Vec<_>>()
    );
}

#[test]
fn null_override_from_the_command_line() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let opts = prvscope_import::LoadOptions {
        null: prvscope_import::NullOverride::Sentinel(u64::MAX),
        ..Default::default()
    };
    let t = prvscope_import::load(&root.join("null_mode/threads_legacy.prv"), &opts, None).unwrap();
    assert_eq!(
        value_intervals(&t.store, 1, 7),
        vec![(0, 150, 3), (150, 300, 0)]
    );
    let opts = prvscope_import::LoadOptions {
        null: prvscope_import::NullOverride::Zero,
        ..Default::default()
    };
    let t = prvscope_import::load(&root.join("null_mode/threads_null.prv"), &opts, None).unwrap();
    assert_eq!(value_intervals(&t.store, 0, 7), vec![]);
}

#[test]
fn unsorted_lulesh_comms_are_sorted_and_queries_match_a_scan() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let t = load(
        &root.join("profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv"),
    );
    let s = &t.store;
    assert!(s.comms().windows(2).all(|w| w[0].lsend <= w[1].lsend));
    // Every thread's states and events are time-sorted, and window queries equal a scan.
    let (t0, t1) = (s.end_time() / 3, s.end_time() / 2);
    for row in 0..s.threads().len() {
        let th = s.thread(row).unwrap();
        for col in &th.events {
            let all: Vec<(u64, u64)> = s.events_in(row, col.ty, 0, u64::MAX).collect();
            assert!(all.windows(2).all(|w| w[0].0 <= w[1].0));
            let scan: Vec<(u64, u64)> = all
                .iter()
                .copied()
                .filter(|e| e.0 >= t0 && e.0 < t1)
                .collect();
            assert_eq!(s.events_in(row, col.ty, t0, t1).collect::<Vec<_>>(), scan);
        }
        let all: Vec<(u64, u64, u64)> = s.states_in(row, 0, u64::MAX).collect();
        let scan: Vec<_> = all
            .iter()
            .copied()
            .filter(|x| x.1 > t0 && x.0 < t1)
            .collect();
        assert_eq!(s.states_in(row, t0, t1).collect::<Vec<_>>(), scan);
    }
    // Two applications: rows 0..8 are application 1, 8..20 application 2.
    assert_eq!(t.header.applications[0].tasks.len(), 8);
    assert_eq!(t.header.applications[1].tasks.len(), 12);
    assert_eq!(
        t.thread_name(0),
        t.row.as_ref().unwrap().level("THREAD").unwrap()[0]
    );
}

#[test]
fn stats_of_prime16_equal_paravers_2d_analyzer() {
    use prvscope_analysis::stats::{Column, Semantic, time_per_value};
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let t = load(&root.join("extrae_mpi_prime16/prime_v0.prv"));
    let table = time_per_value(&t.store, Semantic::StateAsIs, 0, t.header.end_time);
    // What Paraver's 2D analyzer shows for THREAD 1.1.1 (State As Is, Time, ns).
    let expected = [
        (0, 9_360),
        (1, 613_587_757),
        (2, 15_144_257),
        (12, 24_379),
        (13, 1_176_693_971),
        (15, 66_023_051),
    ];
    for (state, ns) in expected {
        assert_eq!(table.get(0, Column::Value(state)), ns, "state {state}");
    }
    assert_eq!(table.rows[0].len(), expected.len());
    // Every row covers the whole window.
    for row in &table.rows {
        assert_eq!(row.values().sum::<u64>(), t.header.end_time);
    }
    let csv = prvscope_analysis::table::stats_text(&t, Semantic::StateAsIs, &table, true);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("thread,Idle,Running,Not created,I/O,Group Communication,Others")
    );
    assert_eq!(
        lines.next(),
        Some("THREAD 1.1.1,9360,613587757,15144257,24379,1176693971,66023051")
    );
}

/// The memory check's text size of a `.gz` comes from the size its last member ends with.
/// A file of many members (`bgzip`, or `.gz` files joined with `cat`) ends with the size of
/// its last member only: read as the whole, it made a 20 MB trace look like 100 kB, and the
/// check let through loads it should have stopped.
#[test]
fn gzip_text_size_is_exact_for_one_member_and_near_for_many() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let src = root.join("pypop_imagemagick_omp4/omp4.prv.gz");
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(&src).unwrap()),
        &mut text,
    )
    .unwrap();
    // Larger than the 16 MB sample: the size comes from the trailer.
    assert!(text.len() > 16 << 20);
    let e = prvscope_import::estimate::estimate(&src).unwrap();
    assert_eq!(e.text_bytes, text.len() as u64);
    assert_eq!(e.header.unwrap().thread_count(), 4);

    let gz = |bytes: &[u8]| {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, bytes).unwrap();
        enc.finish().unwrap()
    };
    let cut = text.len() - 100_000;
    let mut joined = gz(&text[..cut]);
    joined.extend(gz(&text[cut..]));
    let path = temp_dir("gz-members").join("omp4.prv.gz");
    std::fs::write(&path, &joined).unwrap();
    let e = prvscope_import::estimate::estimate(&path).unwrap();
    let ratio = e.text_bytes as f64 / text.len() as f64;
    assert!(
        (0.7..1.4).contains(&ratio),
        "{} of {}",
        e.text_bytes,
        text.len()
    );
}

/// `prvscope pop` orders a series by number of processes and prints BSC modelfactors'
/// CSV (the values themselves are checked in `crates/paraver/tests/pop.rs`).
#[test]
fn pop_prints_modelfactors_csv_for_a_series_given_in_any_order() {
    let _shared = crate::common::shared();
    let Some(dir) = crate::common::shared_traces() else {
        return;
    };
    let series = dir.join("pypop_epoch_scaling");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("pop")
        .arg("--csv")
        .args(
            ["epoch_4proc", "epoch_1proc", "epoch_2proc"]
                .map(|n| series.join(format!("{n}.prv.gz"))),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Number of processes;1;2;4");
    assert_eq!(
        lines[1],
        "Parallel efficiency;99.925583;99.378252;97.349953"
    );
    assert!(
        lines[4].starts_with("Serialization efficiency;100.000000;99.8"),
        "{}",
        lines[4]
    );
    assert_eq!(lines[11], "Speedup;1.000000;1.899545;3.600360");
    assert_eq!(lines[14], "#");
    assert_eq!(
        lines[15],
        "#Runtime (us);21898659.14;11528373.56;6082352.21"
    );
}

//! The trace generator: deterministic, realistic, and read back exactly.

use prvscope_import::IssueKind;
use prvscope_import::synth::{self, GenOptions};

use crate::common::{all_values, load, temp_dir};

#[test]
fn generated_traces_are_deterministic_and_load_with_their_counts() {
    let _shared = crate::common::shared();
    let dir = temp_dir("gen");
    let opts = GenOptions {
        threads: 10,
        threads_per_task: 4,
        target_bytes: 2_000_000,
        seed: 7,
        legacy: false,
        xz: true,
        mpi: false,
    };
    let a = synth::generate(&dir.join("a.prv"), &opts).unwrap();
    let b = synth::generate(&dir.join("b.prv"), &opts).unwrap();
    assert_eq!(
        std::fs::read(&a.prv).unwrap(),
        std::fs::read(&b.prv).unwrap()
    );
    let c = synth::generate(
        &dir.join("c.prv"),
        &GenOptions {
            seed: 8,
            ..opts.clone()
        },
    )
    .unwrap();
    assert_ne!(
        std::fs::read(&a.prv).unwrap(),
        std::fs::read(&c.prv).unwrap()
    );

    let t = load(&a.prv);
    assert!(t.report.is_empty(), "{:?}", t.report.warnings());
    let n = t.store.counts();
    assert_eq!(
        (n.states, n.events, n.comms, n.null_values),
        (
            a.state_records,
            a.event_records,
            a.comm_records,
            a.null_values
        )
    );
    assert!(n.states > 5000 && n.comms > 100 && n.null_values > 1000);
    assert_eq!(t.header.thread_count(), 10);
    assert_eq!(t.header.applications[0].tasks.len(), 3);
    assert_eq!(t.header.end_time, a.end_time);
    assert_eq!(t.store.null_policy().mode_name(), "sentinel");
    assert_eq!(t.thread_name(5), "THREAD 1.2.2");
    let pcf = t.pcf.as_ref().unwrap();
    assert_eq!(
        pcf.value_label(synth::TYPE_USER_FUNCTION, 3),
        Some("exchange_halo [demo.c:41]")
    );
    assert_eq!(
        pcf.value_label(synth::TYPE_USER_FUNCTION_LINE, 3),
        Some("41 (demo.c, demo)")
    );
    // Real zeros and nulls in the ready-tasks type; counters above 16 bits.
    let ready = all_values(&t.store, synth::TYPE_READY_TASKS);
    assert!(ready.contains(&0) && ready.contains(&u64::MAX));
    // States are back to back on each thread.
    for r in 0..10 {
        let s: Vec<_> = t.store.states_in(r, 0, u64::MAX).collect();
        assert!(s.windows(2).all(|w| w[0].1 == w[1].0), "row {r}");
    }

    // Some communication lines are out of time order in the file, and are sorted on load.
    let text = std::fs::read_to_string(&a.prv).unwrap();
    let sends: Vec<u64> = text
        .lines()
        .filter(|l| l.starts_with("3:"))
        .map(|l| l.split(':').nth(5).unwrap().parse().unwrap())
        .collect();
    let times: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(':').nth(5).unwrap().parse().unwrap())
        .collect();
    assert!(
        times.windows(2).any(|w| w[0] > w[1]),
        "no line out of order"
    );
    assert_eq!(sends.len() as u64, n.comms);

    // The .xz holds the same trace.
    let x = load(&synth::xz_path(&a.prv));
    assert_eq!(*x.store, *t.store);

    // Concatenated .xz streams (`cat a.xz b.xz`) are all decoded, as `xz -dc` does.
    let xz = std::fs::read(synth::xz_path(&a.prv)).unwrap();
    let twice = dir.join("twice.prv.xz");
    std::fs::write(&twice, [xz.as_slice(), xz.as_slice()].concat()).unwrap();
    let d = load(&twice);
    assert_eq!(d.store.counts().events, 2 * n.events);
    assert_eq!(d.report.skipped(), 0, "{:?}", d.report.warnings());
}

#[test]
fn legacy_generated_traces_end_functions_with_zero() {
    let _shared = crate::common::shared();
    let dir = temp_dir("gen_legacy");
    let s = synth::generate(
        &dir.join("l.prv"),
        &GenOptions {
            threads: 3,
            target_bytes: 100_000,
            legacy: true,
            ..GenOptions::default()
        },
    )
    .unwrap();
    let t = load(&s.prv);
    assert_eq!(t.store.null_policy().mode_name(), "zero");
    assert_eq!(t.report.count(IssueKind::MalformedRecord), 0);
    let exits = t
        .store
        .events_in(0, synth::TYPE_USER_FUNCTION, 0, u64::MAX)
        .filter(|e| e.1 == 0)
        .count();
    assert!(exits > 10);
}

#[test]
fn a_cancelled_load_stops_with_cancelled_and_progress_is_reported() {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;

    use prvscope_import::{self as trace, LoadError, LoadOptions, LoadProgress};

    let _shared = crate::common::shared();

    let dir = temp_dir("cancel");
    let s = synth::generate(
        &dir.join("c.prv"),
        &GenOptions {
            threads: 8,
            target_bytes: 3_000_000,
            xz: true,
            ..GenOptions::default()
        },
    )
    .unwrap();
    // Cancelled before it starts: both the mapped and the streamed path give up.
    for path in [s.prv.clone(), synth::xz_path(&s.prv)] {
        let progress = Arc::new(LoadProgress::default());
        progress.cancel.store(true, Ordering::Relaxed);
        let opts = LoadOptions {
            chunk_bytes: 64 << 10,
            ..LoadOptions::default()
        };
        let e = trace::load(&path, &opts, Some(Arc::clone(&progress))).unwrap_err();
        assert!(
            matches!(e, LoadError::Cancelled { .. }),
            "{}: {e}",
            path.display()
        );
    }
    // A normal load reports all its bytes as done.
    let progress = Arc::new(LoadProgress::default());
    let t = trace::load(
        &synth::xz_path(&s.prv),
        &LoadOptions::default(),
        Some(Arc::clone(&progress)),
    )
    .unwrap();
    assert_eq!(t.store.counts().events, s.event_records);
    assert_eq!(
        progress.bytes_done.load(Ordering::Relaxed),
        progress.bytes_total.load(Ordering::Relaxed)
    );
    assert!((progress.fraction() - 1.0).abs() < 1e-9);
}

#[test]
fn generated_mpi_calls_are_the_waits_and_send_the_messages() {
    use prvscope_analysis::stats::{Column, Semantic, time_per_value};
    let dir = temp_dir("gen-mpi");
    let opts = GenOptions {
        threads: 6,
        target_bytes: 1_000_000,
        seed: 3,
        mpi: true,
        legacy: true,
        ..GenOptions::default()
    };
    let s = synth::generate(&dir.join("m.prv"), &opts).unwrap();
    let t = load(&s.prv);
    assert!(t.report.is_empty(), "{:?}", t.report.warnings());
    assert_eq!(t.store.counts().events, s.event_records);
    let end = t.header.end_time;
    let states = time_per_value(&t.store, Semantic::StateAsIs, 0, end);
    let p2p = time_per_value(
        &t.store,
        Semantic::LastEventValue(synth::TYPE_MPI_P2P),
        0,
        end,
    );
    let coll = time_per_value(
        &t.store,
        Semantic::LastEventValue(synth::TYPE_MPI_COLLECTIVE),
        0,
        end,
    );
    for row in 0..6 {
        // A wait for a message is an MPI_Sendrecv (41), a synchronization an MPI_Allreduce
        // (10): each call lasts exactly its wait.
        assert_eq!(
            p2p.get(row, Column::Value(41)),
            states.get(row, Column::Value(3))
        );
        assert_eq!(
            coll.get(row, Column::Value(10)),
            states.get(row, Column::Value(5))
        );
        assert!(states.get(row, Column::Value(5)) > 0);
    }
    // Every message is sent inside an MPI_Sendrecv of its sender.
    for c in t.store.comms() {
        let col = t
            .store
            .thread(c.send_row as usize)
            .unwrap()
            .event_type(synth::TYPE_MPI_P2P);
        let at = col
            .and_then(|c2| c2.last_at_or_before(c.lsend))
            .map(|i| col.unwrap().value.get(i));
        assert_eq!(at, Some(41), "{c:?}");
    }
    let pcf = t.pcf.as_ref().unwrap();
    assert_eq!(
        pcf.value_label(synth::TYPE_MPI_COLLECTIVE, 10),
        Some("MPI_Allreduce")
    );
}

/// Thousands of small threads: the store's columns hold no spare room, so a record costs
/// about what it does with few threads plus each column's own structures. 4096 threads of
/// about 33 records each: 59.6 bytes a record (151 when each column's list of segments kept
/// room for four and each thread's list of event columns grew by doubling; 62.6 while a
/// column of one segment still kept a list of segment starts).
#[test]
fn thousands_of_small_threads_cost_few_store_bytes_a_record() {
    let path = temp_dir("small-threads").join("t4096.prv");
    synth::generate(
        &path,
        &GenOptions {
            threads: 4096,
            threads_per_task: 64,
            target_bytes: 3_000_000,
            ..GenOptions::default()
        },
    )
    .unwrap();
    let trace = load(&path);
    let records = trace.store.counts().total() as f64;
    let per_record = trace.store.heap_bytes() as f64 / records;
    assert!(records > 100_000.0, "{records} records");
    assert!(per_record < 70.0, "{per_record:.1} bytes a record");
    for t in trace.store.threads() {
        assert_eq!(t.events.len(), t.events.capacity());
    }
}

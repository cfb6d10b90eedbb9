use super::*;
use crate::signal::{SignalSpec, ViewSignals};
use crate::summary::DrawMode;

/// A store whose rows exercise every kind of pyramid: many distinct state values (the
/// heavy hitters' tree), few (a dictionary), none; events of several types, big time gaps
/// (escaped deltas), nulls; and messages.
fn store() -> Arc<TraceStore> {
    let sentinel = crate::DEFAULT_SENTINEL;
    let mut threads = Vec::new();
    for (row, distinct) in [(0u64, 300u64), (1, 5), (2, 0)] {
        let n = if distinct == 0 { 0 } else { 5000 };
        let begin: Vec<u64> = (0..n).map(|i| i * 100 + (i / 1000) * (1 << 33)).collect();
        let end: Vec<u64> = begin.iter().map(|b| b + 60).collect();
        let value: Vec<u64> = (0..n)
            .map(|i| {
                if i % 17 == 0 {
                    sentinel
                } else {
                    (i * 7 + row) % distinct.max(1)
                }
            })
            .collect();
        let events = (1..=3u32)
            .map(|ty| EventColumn {
                ty,
                time: TimeColumn::from_times(&begin),
                value: ValueColumn::from_values(
                    &value
                        .iter()
                        .map(|v| v.wrapping_mul(u64::from(ty)))
                        .collect::<Vec<_>>(),
                    sentinel,
                ),
            })
            .filter(|_| n > 0)
            .collect();
        threads.push(ThreadData {
            states: StateColumns {
                begin: TimeColumn::from_times(&begin),
                end: TimeColumn::from_times(&end),
                value: ValueColumn::from_values(&value, sentinel),
                ends_sorted: true,
            },
            events,
            cpus: vec![(0, row as u32 + 1)],
        });
    }
    let comms: Vec<Comm> = (0..2000u64)
        .map(|i| Comm {
            send_row: (i % 3) as u32,
            recv_row: ((i + 1) % 3) as u32,
            send_cpu: 1,
            recv_cpu: 2,
            lsend: i * 250,
            psend: i * 250,
            lrecv: i * 250 + 900,
            precv: i * 250 + 900,
            size: i,
            tag: 7,
        })
        .collect();
    let policy = NullPolicy {
        sentinel,
        zero_is_null: false,
    };
    Arc::new(TraceStore::new(
        threads,
        comms,
        policy,
        0,
        5_000_000 + (5 << 33),
    ))
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("prvscope-cache-{name}-{}.prvc", std::process::id()))
}

#[test]
fn a_store_and_its_first_view_read_back_as_written() {
    let store = store();
    let path = temp("roundtrip");
    let written = write(&store, b"extra bytes", &path).unwrap();
    let opened = open(&path, u64::MAX).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(opened.bytes, written);
    assert_eq!(opened.extra, b"extra bytes");
    let back = Arc::new(opened.store);
    assert_eq!(*back, *store);
    assert!(back.is_mapped());
    assert_eq!(back.prebuilt_views().len(), 1);
    let view = |s: &Arc<TraceStore>| ViewSignals::build(Arc::clone(s), SignalSpec::States, false);
    let (a, b) = (view(&store), view(&back));
    assert_eq!(a.values(), b.values());
    let end = store.end_time();
    for (from, to) in [(0, end), (1000, 90_000), (1 << 33, (1 << 33) + 200_000)] {
        let edges: Vec<u64> = (0..=300u64).map(|k| from + k * (to - from) / 300).collect();
        for mode in DrawMode::ALL {
            assert_eq!(
                a.summarize_rows(&[0, 1, 2], &edges, mode),
                b.summarize_rows(&[0, 1, 2], &edges, mode),
                "{mode:?} {from}..{to}"
            );
        }
    }
    // The view of the other null reading is built, not taken from the file.
    let other = ViewSignals::build(Arc::clone(&back), SignalSpec::States, true);
    assert!(!other.values().contains(&0));
    let built = CommIndex::build(store.comms());
    let cached = CommIndex::of(&back);
    assert_eq!(built.len(), cached.len());
    for (start, end) in [(0, 10), (5, 2000), (1999, 2000)] {
        assert_eq!(built.messages(start, end), cached.messages(start, end));
    }
}

#[test]
fn a_file_that_is_not_whole_is_refused() {
    let store = store();
    let path = temp("partial");
    write(&store, b"", &path).unwrap();
    let good = std::fs::read(&path).unwrap();
    assert!(looks_whole(&path));
    std::fs::write(&path, &good[..good.len() - 8]).unwrap();
    assert!(!looks_whole(&path));
    assert!(matches!(open(&path, u64::MAX), Err(CacheError::Corrupt(_))));
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(open(&path, u64::MAX), Err(CacheError::Io(_))));
}

/// Checked after the open: an intact file's records are the store's once checked; a file
/// corrupt in one byte of a thread's section opens (its first view is checked and drawn),
/// then its records are empty, the reason is given, and the caller is told.
#[test]
fn records_checked_after_the_open_are_trusted_only_once_checked() {
    let store = store();
    let path = temp("later");
    write(&store, b"", &path).unwrap();
    let told = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let tell = |told: &Arc<std::sync::Mutex<Vec<String>>>| -> OnCorrupt {
        let told = Arc::clone(told);
        Box::new(move |why: &str| told.lock().unwrap().push(why.to_owned()))
    };
    for populate_below in [0, u64::MAX] {
        let opened = open_checked(&path, populate_below, Some(tell(&told))).unwrap();
        let back = Arc::new(opened.store);
        assert_eq!(back.wait_checked(), crate::Integrity::Checked);
        assert_eq!(*back, *store);
    }
    assert!(told.lock().unwrap().is_empty());

    let mut bytes = std::fs::read(&path).unwrap();
    bytes[HEADER + 100] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(open(&path, u64::MAX), Err(CacheError::Corrupt(_))));
    let opened = open_checked(&path, 0, Some(tell(&told))).unwrap();
    let back = Arc::new(opened.store);
    let view = ViewSignals::build(Arc::clone(&back), SignalSpec::States, false);
    let reference = ViewSignals::build(Arc::clone(&store), SignalSpec::States, false);
    assert_eq!(view.values(), reference.values());
    let why = match back.wait_checked() {
        crate::Integrity::Corrupt(why) => why,
        other => panic!("{other:?}"),
    };
    assert!(why.contains("section 0 checksum differs"), "{why}");
    assert_eq!(back.thread_count(), 3);
    assert_eq!(back.threads().len(), 3);
    assert!(
        back.threads()
            .iter()
            .all(|t| t.states.is_empty() && t.events.is_empty())
    );
    assert!(back.comms().is_empty());
    assert_eq!(back.states_in(1, 0, u64::MAX).count(), 0);
    assert_eq!(*told.lock().unwrap(), vec![why]);
    std::fs::remove_file(&path).unwrap();
}

/// With the records checked after the open, what the first frames draw from (the first view,
/// the messages' index) is checked at the open: a byte flipped in any section of the file is
/// refused at the open, or it leaves the first view and the messages' lines as they were
/// (and the check after the open finds it).
#[test]
fn what_the_first_frames_draw_from_is_checked_at_the_open() {
    let store = store();
    let path = temp("first-frames");
    write(&store, b"", &path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let le = |at: usize, n: usize| {
        good[at..at + n]
            .iter()
            .rev()
            .fold(0u64, |x, &b| (x << 8) | u64::from(b)) as usize
    };
    let dir_at = le(16, 8);
    let sections: Vec<(usize, usize)> = (0..le(dir_at, 4))
        .map(|k| {
            let e = dir_at + 4 + k * 20;
            (le(e, 8), le(e + 8, 8))
        })
        .collect();
    // The first view as drawn: its values and its rows over three windows, in every mode.
    let view = |s: &Arc<TraceStore>| {
        let v = ViewSignals::build(Arc::clone(s), SignalSpec::States, false);
        let end = store.end_time();
        let mut drawn = Vec::new();
        for (from, to) in [(0, end), (1000, 90_000), (1 << 33, (1 << 33) + 200_000)] {
            let edges: Vec<u64> = (0..=300u64).map(|k| from + k * (to - from) / 300).collect();
            for mode in DrawMode::ALL {
                drawn.push(v.summarize_rows(&[0, 1, 2], &edges, mode));
            }
        }
        (v.values().clone(), drawn)
    };
    let all = |_: u32| Some(0);
    let lines = |index: &CommIndex| {
        index.bundles(&crate::comm_index::BundleQuery {
            t0: 0,
            span: store.end_time().max(1),
            closed: false,
            width: 700,
            row_of: &all,
            max_bundles: 10_000,
            only_row: None,
        })
    };
    let (reference_view, reference_lines) = (view(&store), lines(&CommIndex::build(&store.comms)));
    let (mut at_open, mut later) = (0, 0);
    for &(at, len) in sections.iter().filter(|s| s.1 > 0) {
        let mut bad = good.clone();
        bad[at + len / 2] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        match open_checked(&path, 0, Some(Box::new(|_: &str| {}))) {
            Err(CacheError::Corrupt(_)) => at_open += 1,
            Err(e) => panic!("section at {at}: {e}"),
            Ok(opened) => {
                let back = Arc::new(opened.store);
                assert_eq!(view(&back), reference_view, "section at {at}: first view");
                let index = back.prebuilt_comm_index().unwrap();
                assert_eq!(lines(index), reference_lines, "section at {at}: lines");
                assert!(
                    matches!(back.wait_checked(), crate::Integrity::Corrupt(_)),
                    "section at {at}: not caught"
                );
                later += 1;
            }
        }
    }
    assert!(
        at_open >= 5 && later >= 3,
        "{at_open} at the open, {later} after"
    );
    std::fs::remove_file(&path).unwrap();
}

use super::*;
use crate::prv::runs::forecast;

/// A chunk of many threads (line order) whose size is known, parsed in 11 windows of 100
/// states and 100 pairs per thread: each run grows to the size forecast for the chunk's end
/// (1100 records and a margin) instead of doubling (to 1600), and holds the records in order.
#[test]
fn line_order_runs_grow_to_their_forecast_size() {
    let rows = DIRECT_MAX_ROWS + 44;
    let mut out = ChunkOut::new(rows);
    assert!(!out.direct, "more threads than the direct mode's");
    let (windows, per_window) = (11u64, 100u64);
    out.chunk_text = windows * 1000;
    for w in 0..windows {
        for i in 0..per_window {
            let time = w * 1000 + i;
            for row in 0..rows as u32 {
                out.push_event(
                    row,
                    RawEvent {
                        time,
                        value: i,
                        ty: 7,
                    },
                );
                out.push_state(
                    row,
                    RawState {
                        begin: time,
                        end: time + 1,
                        value: w,
                    },
                );
            }
        }
        out.parsed_text += 1000;
        out.end_window(u64::MAX);
    }
    let total = (windows * per_window) as usize;
    let room = |len: usize, capacity: usize| {
        assert_eq!(len, total);
        assert!(
            capacity <= total + total / 8,
            "{capacity} for {len} records"
        );
    };
    for run in &out.event_runs {
        room(run.time.len(), run.time.capacity());
    }
    for run in &out.state_runs {
        room(run.begin.len(), run.begin.capacity());
        room(run.end.len(), run.end.capacity());
    }
    let taken = out.take_output(u64::MAX, false);
    assert_eq!((taken.pieces.len(), taken.state_pieces.len()), (rows, rows));
    let times: Vec<u64> = (0..windows)
        .flat_map(|w| (0..per_window).map(move |i| w * 1000 + i))
        .collect();
    for p in &taken.pieces {
        assert_eq!(p.time.iter().collect::<Vec<_>>(), times);
        assert!(p.sorted);
    }
    for p in &taken.state_pieces {
        assert_eq!(p.begin.iter().collect::<Vec<_>>(), times);
        let values: Vec<u64> = p.value.iter().collect();
        assert_eq!(values.len(), total);
        assert_eq!(values.last(), Some(&(windows - 1)));
    }
}

#[test]
fn forecasts_keep_a_margin_and_at_most_four_times_the_records() {
    // Half the chunk parsed: twice the records, and 1/16.
    assert_eq!(forecast(1600, 2.0), 3400);
    // A run early in its chunk (1/16 parsed) is given four times its records, not sixteen.
    assert_eq!(forecast(100, 16.0), 400);
    // The chunk's end, or its size not known: what is needed.
    assert_eq!(forecast(10, 1.0), 10);
    assert_eq!(forecast(7, f64::NAN), 7);
    assert_eq!(forecast(7, f64::INFINITY), 28);
}

/// A chunk of few threads with more to come: its runs of at least `MOVE_MIN` records become
/// pieces in one slab (more than `SLAB_MIN` bytes together), a shorter one a piece of its
/// own, each holding its records in order; the runs keep their room for the next chunk.
#[test]
fn long_runs_of_a_kept_chunk_become_pieces_in_one_slab() {
    use prvscope_store::columns::MOVE_MIN;
    let mut out = ChunkOut::new(4);
    assert!(out.direct);
    out.spill = Some(u64::MAX);
    let long = 3000u64;
    for i in 0..long {
        for row in 0..4u32 {
            for ty in [7, 8] {
                let e = RawEvent {
                    time: i * 10 + u64::from(ty),
                    value: i * u64::from(row + 1),
                    ty,
                };
                out.push_event(row, e);
            }
        }
        out.push_state(
            0,
            RawState {
                begin: i * 10,
                end: i * 10 + 5,
                value: i % 7,
            },
        );
    }
    // A short run: copied on its own.
    for i in 0..(MOVE_MIN as u64 - 1) {
        out.push_event(
            3,
            RawEvent {
                time: 40_000 + i,
                value: 1,
                ty: 9,
            },
        );
    }
    let taken = out.take_output(u64::MAX, true);
    assert_eq!((taken.pieces.len(), taken.state_pieces.len()), (9, 1));
    for p in &taken.pieces {
        let times: Vec<u64> = p.time.iter().collect();
        let values: Vec<u64> = p.value.iter().collect();
        if p.ty == 9 {
            assert_eq!(
                times,
                (40_000..40_000 + MOVE_MIN as u64 - 1).collect::<Vec<_>>()
            );
            assert_eq!(p.time.shared_bytes(), 0, "a short run is not in the slab");
        } else {
            let ty = u64::from(p.ty);
            assert_eq!(times, (0..long).map(|i| i * 10 + ty).collect::<Vec<_>>());
            let row = u64::from(p.row + 1);
            assert_eq!(values, (0..long).map(|i| i * row).collect::<Vec<_>>());
            assert!(p.time.shared_bytes() >= 4 * long as usize, "in the slab");
        }
    }
    let states = &taken.state_pieces[0];
    assert_eq!(
        states.end.iter().collect::<Vec<_>>(),
        (0..long).map(|i| i * 10 + 5).collect::<Vec<_>>()
    );
    assert!(states.begin.shared_bytes() > 0 && states.end.shared_bytes() > 0);
    // The runs are empty, with their room kept.
    assert!(out.event_runs.iter().all(|r| r.time.is_empty()));
    assert!(
        out.event_runs
            .iter()
            .take(8)
            .all(|r| r.time.capacity() >= long as usize)
    );
}

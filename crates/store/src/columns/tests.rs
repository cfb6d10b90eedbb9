//! Round trips, segment joins, bounds and widths of the columns.

use super::*;
use crate::null;

#[test]
fn times_round_trip_with_escapes_and_unsorted_values() {
    let mut times: Vec<u64> = (0..1000).map(|i| i * 1_000_000).collect();
    times.push(u64::MAX - 1);
    times.push(5);
    times.extend((0..600).map(|i| 10_000_000_000 + i));
    let col = TimeSeg::from_times(&times);
    let back: Vec<u64> = col.iter().collect();
    assert_eq!(back, times);
    assert!(!col.escapes.is_empty());
}

#[test]
fn reads_cross_segments_and_escapes() {
    // Segments of 1500 and 2100 records (moved, not copied), escapes in both, values of
    // two widths with nulls.
    let times: Vec<u64> = (0..3600u64)
        .map(|i| i * 3 + if i > 700 { 1 << 40 } else { 0 } + if i > 2000 { 1 << 50 } else { 0 })
        .collect();
    let s = u64::MAX;
    let values: Vec<u64> = (0..3600u64)
        .map(|i| match i % 9 {
            0 => s,
            _ if i > 1500 => i * 1000,
            _ => i % 200,
        })
        .collect();
    let time = TimeColumn::join_sorted(vec![
        TimeColumn::from_times(&times[..1500]),
        TimeColumn::from_times(&times[1500..]),
    ]);
    let value = ValueColumn::join(
        vec![
            ValueColumn::from_values(&values[..1500], s),
            ValueColumn::from_values(&values[1500..], s),
        ],
        s,
    );
    assert_eq!(time.segment_count(), 2);
    for (start, want) in [
        (0, 10),
        (250, 300),
        (1490, 40),
        (3590, 64),
        (3600, 5),
        (0, 3600),
    ] {
        let mut t = vec![0; want];
        let mut v = vec![0; want];
        let got = time.read(start, &mut t);
        assert_eq!(got, want.min(3600 - start), "times from {start}");
        assert_eq!(value.read(start, &mut v), got, "values from {start}");
        assert_eq!(t[..got], times[start..start + got], "times from {start}");
        assert_eq!(v[..got], values[start..start + got], "values from {start}");
        if got > 0 {
            let best = values[start..start + got]
                .iter()
                .copied()
                .filter(|&x| x != s)
                .max();
            assert_eq!(value.max_in(start, start + got), best.unwrap_or(s));
            assert_eq!(null::max_non_null(&v[..got], s), best.unwrap_or(s));
        }
    }
    // A real u64::MAX when the sentinel is another number.
    assert_eq!(null::max_non_null(&[3, u64::MAX, 7], 7), u64::MAX);
    assert_eq!(null::max_non_null(&[7, 7], 7), 7);
}

#[test]
fn concatenated_pieces_equal_one_column() {
    // Gaps beyond 32 bits inside and between pieces force escapes.
    let times: Vec<u64> = (0..1000u64)
        .map(|i| {
            i * i * 1000 + if i > 500 { 1 << 40 } else { 0 } + if i > 900 { 1 << 50 } else { 0 }
        })
        .collect();
    let pieces: Vec<TimeColumn> = times.chunks(77).map(TimeColumn::from_times).collect();
    let refs: Vec<&TimeColumn> = pieces.iter().collect();
    assert_eq!(
        TimeColumn::concat_sorted(&refs),
        TimeColumn::from_times(&times)
    );
    let s = u64::MAX;
    let values: Vec<u64> = (0..1000u64)
        .map(|i| if i % 7 == 0 { s } else { i * i })
        .collect();
    let pieces: Vec<ValueColumn> = values
        .chunks(300)
        .map(|c| ValueColumn::from_values(c, s))
        .collect();
    let refs: Vec<&ValueColumn> = pieces.iter().collect();
    assert_eq!(
        ValueColumn::concat(&refs, s),
        ValueColumn::from_values(&values, s)
    );
}

#[test]
fn bounds_on_sorted_column() {
    let times: Vec<u64> = (0..2000u64)
        .map(|i| (i / 3) * 7 + (i % 3) * (1 << 33))
        .collect();
    let mut times = times;
    times.sort_unstable();
    let col = TimeColumn::from_times(&times);
    check_bounds(
        &col,
        &times,
        &[0, 1, 7, 8, 100, 4666, 1 << 33, (1 << 34) + 5, u64::MAX],
    );
}

/// Binary searches of `col` agree with those of the plain `times`.
fn check_bounds(col: &TimeColumn, times: &[u64], probes: &[u64]) {
    for &t in probes {
        let lower = times.partition_point(|&x| x < t);
        let upper = times.partition_point(|&x| x <= t);
        assert_eq!(col.lower_bound(t), lower, "t={t}");
        assert_eq!(col.upper_bound(t), upper, "t={t}");
    }
}

#[test]
fn joined_columns_move_long_pieces_and_copy_short_ones() {
    let s = u64::MAX;
    let times: Vec<u64> = (0..10_000u64)
        .map(|i| i * 3 + (i / 4000) * (1 << 33))
        .collect();
    let values: Vec<u64> = (0..10_000u64)
        .map(|i| if i % 5 == 0 { s } else { i % 300 })
        .collect();
    // Pieces of 3000, 10, 10, 2980, 4000 records.
    let cuts = [0, 3000, 3010, 3020, 6000, 10_000];
    let tp: Vec<TimeColumn> = cuts
        .windows(2)
        .map(|w| TimeColumn::from_times(&times[w[0]..w[1]]))
        .collect();
    let vp: Vec<ValueColumn> = cuts
        .windows(2)
        .map(|w| ValueColumn::from_values(&values[w[0]..w[1]], s))
        .collect();
    let t = TimeColumn::join_sorted(tp);
    let v = ValueColumn::join(vp, s);
    assert_eq!(
        t.segment_count(),
        4,
        "the long pieces moved, the two short ones copied into one segment between them"
    );
    assert_eq!(t.iter().collect::<Vec<_>>(), times);
    assert_eq!(v.iter().collect::<Vec<_>>(), values);
    for i in [0, 2999, 3000, 3015, 3020, 5999, 6000, 9999] {
        assert_eq!(t.get(i), times[i]);
        assert_eq!(v.get(i), values[i]);
    }
    let probes = [
        0,
        1,
        8999,
        9000,
        9001,
        1 << 33,
        (1 << 33) + 12_000,
        u64::MAX,
    ];
    check_bounds(&t, &times, &probes);
    assert_eq!(t, TimeColumn::from_times(&times));
    assert_eq!(v, ValueColumn::from_values(&values, s));
}

#[test]
fn values_pick_narrow_width_and_keep_null() {
    let s = u64::MAX;
    let col = ValueColumn::from_values(&[0, 3, s, 254], s);
    assert_eq!(col.width(), 1);
    assert_eq!(
        (0..4).map(|i| col.get(i)).collect::<Vec<_>>(),
        vec![0, 3, s, 254]
    );
    let col = ValueColumn::from_values(&[255, s], s);
    assert_eq!(col.width(), 2);
    assert_eq!(col.get(0), 255);
    assert_eq!(col.get(1), s);
    let col = ValueColumn::from_values(&[u64::from(u32::MAX), 1], s);
    assert_eq!(col.width(), 8);
    // A custom sentinel: the all-ones narrow value maps back to it.
    let col = ValueColumn::from_values(&[42, 1, 0], 42);
    assert_eq!(col.get(0), 42);
    assert_eq!(col.get(2), 0);
}

#[test]
fn segments_extended_run_by_run_equal_segments_built_at_once() {
    // Runs of times (the third out of order, one past the escape distance) and of values
    // that need wider widths as they come, nulls included.
    let s = u64::MAX;
    let runs: Vec<Vec<(u64, u64)>> = vec![
        (0..300)
            .map(|i| (i * 10, if i % 7 == 0 { s } else { i % 200 }))
            .collect(),
        (0..50).map(|i| (5_000 + i, 1_000 + i)).collect(),
        vec![(4_000, 7), (1 << 40, s), (3, 70_000)],
        (0..600).map(|i| ((1 << 40) + i, (1 << 33) + i)).collect(),
    ];
    let all: Vec<(u64, u64)> = runs.concat();
    let mut time = TimeSeg::default();
    let mut value = ValueSeg::default();
    let mut widths = Vec::new();
    for run in &runs {
        let max = run
            .iter()
            .map(|p| p.1)
            .filter(|&v| v != s)
            .max()
            .unwrap_or(0);
        time.extend_by(run, |p| p.0);
        value.extend_with_max(run, s, max, |p| p.1);
        widths.push(value.width());
    }
    assert_eq!(widths, [1, 2, 4, 8]);
    let times: Vec<u64> = time.iter().collect();
    assert_eq!(times, all.iter().map(|p| p.0).collect::<Vec<_>>());
    let values: Vec<u64> = (0..value.len()).map(|i| value.get(i, s)).collect();
    assert_eq!(values, all.iter().map(|p| p.1).collect::<Vec<_>>());
    // The sorted prefix is encoded as a sorted build encodes it.
    let sorted = TimeSeg::from_sorted_iter(all.iter().take(350).map(|p| p.0), 350);
    let mut prefix = TimeSeg::default();
    prefix.extend_by(&all[..350], |p| p.0);
    assert_eq!(prefix, sorted);
}

#[test]
fn segments_taken_keeping_room_are_exact_copies_and_the_room_is_reused() {
    let s = u64::MAX;
    // A first chunk of wide values and escaped times, then a second of narrow values
    // encoded into the same (wide) arrays.
    let mut times = TimeSeg::default();
    let mut values = ValueSeg::default();
    let first: Vec<(u64, u64)> = (0..700u64)
        .map(|i| (i * 7 + if i > 600 { 1 << 40 } else { 0 }, i * 100_000))
        .collect();
    times.extend_by(&first, |p| p.0);
    let max = first.iter().map(|p| p.1).max().unwrap_or(0);
    values.extend_with_max(&first, s, max, |p| p.1);
    assert_eq!(values.width(), 4);
    let (t1, v1) = (times.take_keeping_room(), values.take_keeping_room(max, s));
    assert_eq!(t1, TimeSeg::from_slice_by(&first, |p| p.0));
    assert_eq!(v1, ValueSeg::from_slice_by(&first, s, |p| p.1));
    assert!(times.is_empty() && values.is_empty());
    // Room kept: 700 deltas of 4 bytes, 700 values of 4.
    assert!(
        times.heap_bytes() >= 2800 && values.heap_bytes() >= 2800,
        "room kept"
    );
    let second: Vec<(u64, u64)> = (0..300u64)
        .map(|i| (i, if i % 5 == 0 { s } else { i % 200 }))
        .collect();
    times.extend_by(&second, |p| p.0);
    values.extend_with_max(&second, s, 199, |p| p.1);
    assert_eq!(values.width(), 4, "the arrays keep their width");
    let (t2, v2) = (times.take_keeping_room(), values.take_keeping_room(199, s));
    // The piece is narrowed to the width its own values need, nulls kept.
    assert_eq!(v2.width(), 1);
    assert_eq!(v2, ValueSeg::from_slice_by(&second, s, |p| p.1));
    assert_eq!(t2, TimeSeg::from_slice_by(&second, |p| p.0));
    assert_eq!(v2.get(0, s), s);
}

#[test]
fn segments_placed_in_a_slab_equal_those_taken_keeping_room() {
    let s = u64::MAX;
    // Escaped and unsorted times, wide values; then narrow values (and nulls) in the same
    // wide arrays, narrowed as they are placed.
    let first: Vec<(u64, u64)> = (0..700u64)
        .map(|i| {
            (
                i * 7 + if i > 600 { 1 << 40 } else { 0 } + i % 3,
                i * 100_000,
            )
        })
        .chain([(3, 9), (u64::MAX - 1, 1)])
        .collect();
    let second: Vec<(u64, u64)> = (0..300u64)
        .map(|i| (i, if i % 5 == 0 { s } else { i % 200 }))
        .collect();
    let (mut times, mut values) = (TimeSeg::default(), ValueSeg::default());
    for (chunk, max) in [(&first, 70_000_000), (&second, 199)] {
        times.extend_by(chunk, |p| p.0);
        values.extend_with_max(chunk, s, max, |p| p.1);
        let bytes = times.slab_bytes() + values.slab_bytes(max);
        let mut slab = SlabWriter::new(bytes).unwrap();
        let (placed_times, placed_values) = (
            times.place(&mut slab).unwrap(),
            values.place(max, s, &mut slab).unwrap(),
        );
        let map = slab.finish();
        let (t, v) = (
            placed_times.seg(&map).unwrap(),
            placed_values.seg(&map).unwrap(),
        );
        assert_eq!(t, times.take_keeping_room());
        assert_eq!(v, values.take_keeping_room(max, s));
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            chunk.iter().map(|p| p.0).collect::<Vec<_>>()
        );
        assert_eq!(v, ValueSeg::from_slice_by(chunk, s, |p| p.1));
        assert_eq!(
            t.heap_bytes() + v.heap_bytes(),
            t.len() * 4 + t.len().div_ceil(BLOCK) * 8 + t.escapes.len() * 16 + v.len() * v.width()
        );
    }
}

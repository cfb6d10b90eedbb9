use super::*;

/// The rows of a stream of (row, time, type) whose times go back, at their first such
/// place in file order, naively; by row.
fn naive_backward(events: &[(u32, u64, u32)]) -> Vec<Backward> {
    let mut out: Vec<Backward> = Vec::new();
    for (i, &(r, t, _)) in events.iter().enumerate() {
        let after = events[..i].iter().rev().find(|e| e.0 == r).map(|e| e.1);
        if let Some(after) = after
            && t < after
            && !out.iter().any(|b| b.row == r)
        {
            out.push(Backward {
                row: r,
                time: t,
                after,
                state: false,
            });
        }
    }
    out.sort_by_key(|b| b.row);
    out
}

/// The inversions of a whole stream of (row, time, type) in file order, naively: of a row
/// whose times go back, every pair of its types.
fn naive(events: &[(u32, u64, u32)]) -> Vec<(u32, u32)> {
    let back = naive_backward(events);
    let mut out = std::collections::BTreeSet::new();
    for (i, &(r, t, a)) in events.iter().enumerate() {
        let row_back = back.iter().any(|b| b.row == r);
        for &(r2, t2, b) in if row_back { events } else { &events[i + 1..] } {
            if r2 == r && (row_back || t2 == t) && a > b {
                out.insert((a, b));
            }
        }
    }
    out.into_iter().collect()
}

/// The stream cut into chunks at `cuts`, tracked and joined (one event a line).
fn tracked(events: &[(u32, u64, u32)], cuts: &[usize], rows: usize) -> Vec<(u32, u32)> {
    let lines: Vec<(u32, u64, &[u32])> = events
        .iter()
        .map(|(r, t, ty)| (*r, *t, std::slice::from_ref(ty)))
        .collect();
    tracked_lines(&lines, cuts, rows)
}

#[test]
fn inversions_are_found_within_and_across_chunks() {
    // Row 0 at 5: 3, then (row 1 between) 1 and 3 again; row 1 ascending.
    let events = [
        (0, 5, 3),
        (1, 5, 1),
        (0, 5, 1),
        (1, 5, 2),
        (0, 5, 3),
        (0, 6, 9),
        (0, 6, 4),
        (1, 7, 8),
        (1, 7, 8),
        (1, 7, 7),
    ];
    let want = naive(&events);
    assert_eq!(want, [(3, 1), (8, 7), (9, 4)]);
    for cuts in [
        vec![],
        vec![1],
        vec![2],
        vec![3, 4],
        vec![1, 2, 3, 4, 5, 6, 7, 8, 9],
        vec![5],
        vec![8],
    ] {
        assert_eq!(tracked(&events, &cuts, 2), want, "{cuts:?}");
    }
}

type Pairs = Vec<(u32, u32)>;

/// The events of lines of (row, time, types), one by one.
fn events_of(lines: &[(u32, u64, &[u32])]) -> Vec<(u32, u64, u32)> {
    lines
        .iter()
        .flat_map(|&(r, t, types)| types.iter().map(move |&ty| (r, t, ty)))
        .collect()
}

/// The inversions of `lines` tracked over chunks cut at `cuts` (any line numbers), and
/// the naive ones.
fn tracked_and_naive(
    lines: &[(u32, u64, &[u32])],
    cuts: Vec<usize>,
    rows: usize,
) -> (Pairs, Pairs) {
    let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(lines.len())).collect();
    cuts.sort_unstable();
    (tracked_lines(lines, &cuts, rows), naive(&events_of(lines)))
}

/// Lines of (row, time, types) noted as a parse notes them (a line of several pairs at
/// once, a line of one pair by itself), cut into chunks at `cuts` (in lines).
fn tracked_lines(lines: &[(u32, u64, &[u32])], cuts: &[usize], rows: usize) -> Vec<(u32, u32)> {
    let mut join = OrderJoin::new(rows);
    let mut t = OrderTracker::new(rows);
    let mut from = 0;
    for &to in cuts.iter().chain(std::iter::once(&lines.len())) {
        for &(r, time, types) in &lines[from..to] {
            if let [ty] = types {
                t.note(r, time, *ty);
            } else {
                let pairs: Vec<(u32, u64)> = types.iter().map(|&ty| (ty, 0)).collect();
                t.note_line(r, time, &pairs);
            }
        }
        let (edges, inv, back) = t.take();
        join.add_inversions(inv);
        join.push(edges);
        join.add_backward(back);
        from = to;
    }
    let (_, mut inversions, back) = join.finish();
    // A row that goes back: every pair of its types, as a load completes them.
    let events = events_of(lines);
    assert_eq!(back, naive_backward(&events), "{cuts:?}");
    for b in &back {
        let types = events.iter().filter(|e| e.0 == b.row).map(|e| e.2);
        inversions.extend(pairs_of(types));
    }
    inversions.sort_unstable();
    inversions.dedup();
    inversions
}

#[test]
fn lines_of_several_pairs_give_the_inversions_of_their_pairs() {
    // Ordered lines whose timestamp goes on in the next line with a smaller type: each
    // timestamp's inversions are its own (an ordered line's types, not only its
    // pattern, decide them), on one row and across rows; unordered lines too.
    let lines: [(u32, u64, &[u32]); 12] = [
        (0, 10, &[1, 5]),
        (0, 10, &[3]),
        (0, 20, &[1, 7]),
        (0, 20, &[3]),
        (1, 20, &[2, 9]),
        (1, 20, &[3, 4]),
        (0, 30, &[6, 2, 8]),
        (1, 30, &[6, 2, 8]),
        (0, 30, &[1]),
        (1, 40, &[1, 2]),
        (1, 40, &[2, 1]),
        (0, 50, &[4, 5]),
    ];
    let want = naive(&events_of(&lines));
    assert!(want.contains(&(7, 3)) && want.contains(&(9, 3)), "{want:?}");
    for cuts in [vec![], vec![1], vec![3], vec![2, 4, 6], vec![8], vec![10]] {
        assert_eq!(tracked_lines(&lines, &cuts, 2), want, "{cuts:?}");
    }
}

#[test]
fn timestamps_of_many_types_give_every_inversion() {
    // 20 and 40 types at one timestamp, in one line or one a line, then smaller types at
    // the same time.
    let up: Vec<u32> = (10..30).collect();
    let down: Vec<u32> = (100..140).rev().collect();
    let up2: Vec<u32> = (200..218).collect();
    let lines: Vec<(u32, u64, &[u32])> = vec![
        (0, 1, &up),
        (0, 1, &[15]),
        (0, 1, &[5, 2]),
        (1, 1, &down),
        (0, 2, &[1]),
        (1, 2, &[99]),
        // Many types again: nothing of the 40 is left.
        (1, 3, &up2),
        (1, 3, &[50]),
    ];
    let mut events = events_of(&lines);
    let want = naive(&events);
    // Row 0: 14 types above 15, then 20 above 5, then 21 above 2; row 1: 40 * 39 / 2,
    // then 18 above 50.
    assert_eq!(want.len(), 14 + 20 + 21 + 780 + 18);
    for cuts in [vec![], vec![1], vec![2], vec![4], vec![1, 2, 3], vec![6, 7]] {
        assert_eq!(tracked_lines(&lines, &cuts, 2), want, "{cuts:?}");
    }
    // The same events one a line.
    events.push((0, 3, 7));
    let want = naive(&events);
    for cuts in [vec![], vec![17], vec![25, 40], vec![66, 80]] {
        assert_eq!(tracked(&events, &cuts, 2), want, "{cuts:?}");
    }
}

#[test]
fn a_timestamp_over_three_chunks_joins_every_side() {
    // Row 0 at time 1: types 5 | 6 | 2 over three chunks (the middle one holds only it).
    let events = [(0, 1, 5), (0, 1, 6), (0, 1, 2), (0, 2, 1)];
    assert_eq!(tracked(&events, &[1, 2], 1), [(5, 2), (6, 2)]);
    assert_eq!(tracked(&events, &[1, 2, 3], 1), [(5, 2), (6, 2)]);
    // Batches of chunks: the joined edges, joined again, give the same.
    let mut top = OrderJoin::new(1);
    for part in [&events[..2], &events[2..]] {
        let mut join = OrderJoin::new(1);
        for ev in part.chunks(1) {
            let mut t = OrderTracker::new(1);
            for &(r, time, ty) in ev {
                t.note(r, time, ty);
            }
            let (edges, inv, _) = t.take();
            join.add_inversions(inv);
            join.push(edges);
        }
        let (edges, inv, _) = join.finish();
        top.add_inversions(inv);
        top.push(edges);
    }
    assert_eq!(top.finish().1, [(5, 2), (6, 2)]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

    /// Random event lines of three rows over few types, each row's times going on or
    /// repeating (timestamps over several lines, their types in order or not), or, with
    /// `back`, also going back (a trace not sorted by time), noted as a parse notes them
    /// and cut into chunks anywhere, give the naive inversions; the rows that go back are
    /// found, within chunks and across them, at their first such place, and every pair of
    /// their types counts as inverted.
    #[test]
    fn random_lines_give_the_naive_inversions(
        lines in proptest::collection::vec(
            (0u32..3, 0u64..4, proptest::collection::vec(0u32..6, 1..5)),
            0..24,
        ),
        cuts in proptest::collection::vec(0usize..24, 0..3),
        back in proptest::prelude::any::<bool>(),
    ) {
        // The second field is the row's time, or (not `back`) half the step from its
        // previous time.
        let mut now = [0u64; 3];
        let view: Vec<(u32, u64, &[u32])> = lines
            .iter()
            .map(|(r, t, types)| {
                let time = if back { *t } else { now[*r as usize] + t / 2 };
                now[*r as usize] = time;
                (*r, time, types.as_slice())
            })
            .collect();
        let (tracked, want) = tracked_and_naive(&view, cuts, 3);
        proptest::prop_assert_eq!(tracked, want);
    }
}

#[test]
fn a_row_going_back_to_an_earlier_timestamp_counts_all_its_pairs() {
    // Row 0: 1 at time 1, 0 at time 0, 0 at time 1: at time 1 the file gives 1 before
    // 0, apart. Row 1 in order: nothing of it.
    let events = [(0, 1, 1), (1, 5, 3), (0, 0, 0), (1, 5, 4), (0, 1, 0)];
    for cuts in [vec![], vec![1], vec![2], vec![3], vec![1, 3]] {
        assert_eq!(tracked(&events, &cuts, 2), [(1, 0)], "{cuts:?}");
    }
    assert_eq!(
        naive_backward(&events),
        [Backward {
            row: 0,
            time: 0,
            after: 1,
            state: false
        }]
    );
    assert_eq!(pairs_of([5, 2, 9, 2]), [(5, 2), (9, 2), (9, 5)]);
}

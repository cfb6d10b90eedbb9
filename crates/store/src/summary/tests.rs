//! Every mode against the naive references, on both paths, for rows and groups.

use std::collections::BTreeMap;

use super::naive::facts;
use super::*;

/// A 64-bit LCG with its high bits folded in: reproducible test data, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 ^ (self.0 >> 29)
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo).max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

const NULL: u64 = u64::MAX;
const K: u64 = HEAVY_ENTRIES as u64;

fn columns_with(points: &[(u64, u64)], sentinel: u64) -> (TimeColumn, ValueColumn) {
    let times: Vec<u64> = points.iter().map(|p| p.0).collect();
    let values: Vec<u64> = points.iter().map(|p| p.1).collect();
    (
        TimeColumn::from_times(&times),
        ValueColumn::from_values(&values, sentinel),
    )
}

fn columns(points: &[(u64, u64)]) -> (TimeColumn, ValueColumn) {
    columns_with(points, NULL)
}

/// The same points as several segments (as a loaded trace has them): pieces of at least
/// 1024 points become segments of their own.
fn segmented_columns(
    points: &[(u64, u64)],
    sentinel: u64,
    rng: &mut Rng,
) -> (TimeColumn, ValueColumn) {
    let (mut times, mut values) = (Vec::new(), Vec::new());
    let mut rest = points;
    while !rest.is_empty() {
        let k = (rng.range(1, 2500) as usize).min(rest.len());
        let (piece, tail) = rest.split_at(k);
        let (t, v) = columns_with(piece, sentinel);
        times.push(t);
        values.push(v);
        rest = tail;
    }
    (
        TimeColumn::join_sorted(times),
        ValueColumn::join(values, sentinel),
    )
}

/// How a random row picks its values.
#[derive(Debug, Clone, Copy)]
enum Values {
    /// At most 8 distinct values: the per-value prefix sums.
    Few(u64),
    /// Values drifting in a window of 5 over a range of 100: many in the row, few per column.
    Drifting,
    /// 20 values in any order: many per block.
    Mixed,
    /// Wide values, nearly all distinct (counters).
    Wide,
}

/// A random row: runs of equal times, nulls, values of the kind given.
fn random_points(rng: &mut Rng, n: usize, kind: Values, sentinel: u64) -> Vec<(u64, u64)> {
    let mut t = rng.range(0, 50);
    let mut base = 0;
    let null_percent = rng.range(0, 30);
    (0..n)
        .map(|i| {
            if !rng.chance(20) {
                t += rng.range(1, 40);
            }
            if i % 300 == 0 {
                base = rng.range(0, 100);
            }
            let v = if rng.chance(null_percent) {
                sentinel
            } else {
                match kind {
                    Values::Few(k) => rng.range(0, k),
                    Values::Drifting => base + rng.range(0, 5),
                    Values::Mixed => rng.range(0, 20),
                    Values::Wide => rng.next_u64() >> 8,
                }
            };
            // Another sentinel keeps its own meaning: a value equal to it is null.
            (t, v)
        })
        .collect()
}

/// Random column edges: repeated edges, edges on points, before and after the data.
fn random_edges(rng: &mut Rng, points: &[(u64, u64)], end: u64) -> Vec<u64> {
    let n = points.len() as u64;
    let mut edges: Vec<u64> = (0..rng.range(1, 300))
        .map(|_| {
            if rng.chance(30) && n > 0 {
                points[rng.range(0, n) as usize].0
            } else {
                rng.range(0, end)
            }
        })
        .collect();
    edges.sort_unstable();
    edges
}

/// The ticks each value (null included) holds in each column over the rows, from the naive
/// facts, with the distinct non-null values holding there.
fn column_ticks(
    rows: &[Vec<(u64, u64)>],
    a: u64,
    b: u64,
    none: u64,
) -> (BTreeMap<u64, u64>, usize) {
    let mut ticks = BTreeMap::new();
    let mut distinct = std::collections::BTreeSet::new();
    for p in rows {
        let f = facts(p, a, b, none);
        for &(v, t) in &f.pieces {
            *ticks.entry(v).or_default() += t;
        }
        distinct.extend(
            std::iter::once(f.start)
                .chain(f.inner.iter().copied())
                .filter(|&v| v != none),
        );
    }
    (ticks, distinct.len())
}

/// Checks a Dominant result against the naive one: equal where the column holds at most K
/// distinct non-null values (or `exact` says the rows are exact), otherwise the stated bound:
/// the value drawn holds at least `T - N / (K + 1)` ticks, and a value holding more than
/// `(K + 2) / (2K + 2)` of the column is drawn.
fn check_dominant(
    got: &[Pixel],
    naive: &[Pixel],
    rows: &[Vec<(u64, u64)>],
    edges: &[u64],
    none: u64,
    exact: bool,
    what: &str,
) -> usize {
    assert_eq!(got.len(), naive.len(), "{what}");
    let mut approximate = 0;
    for (k, ((g, want), w)) in got.iter().zip(naive).zip(edges.windows(2)).enumerate() {
        assert_eq!(g.changes, want.changes, "{what}: column {k} changes");
        let (ticks, distinct) = column_ticks(rows, w[0], w[1], none);
        if exact || distinct as u64 <= K {
            assert_eq!(
                g.value, want.value,
                "{what}: column {k} {w:?} should be exact"
            );
            continue;
        }
        approximate += 1;
        let n: u64 = ticks.values().sum();
        let top = ticks.values().copied().max().unwrap_or(0);
        let held = ticks.get(&g.value).copied().unwrap_or(0);
        assert!(
            u128::from(top - held) * u128::from(K + 1) <= u128::from(n),
            "{what}: column {k} {w:?} drew {} holding {held} of {n}, the best holds {top}",
            g.value
        );
        for (&v, &t) in &ticks {
            if 2 * u128::from(t) * u128::from(K + 1) > u128::from(n) * u128::from(K + 2) {
                assert_eq!(g.value, v, "{what}: column {k} {w:?}: {v} holds {t} of {n}");
            }
        }
    }
    approximate
}

/// Random rows (runs of equal times, nulls, few and many values, segmented columns, two
/// sentinels) against random column edges, in every mode, through `summarize` and both of
/// its paths explicitly.
#[test]
fn summaries_equal_the_naive_per_pixel_computation() {
    let mut rng = Rng::new(7);
    let mut approximate = 0;
    for case in 0..480 {
        let n = match case % 4 {
            0 => rng.range(0, 10) as usize,
            1 => rng.range(10, 200) as usize,
            _ => rng.range(200, 5000) as usize,
        };
        let kind = match (case / 4) % 5 {
            0 => Values::Few(rng.range(1, 9)),
            1 => Values::Few(rng.range(1, 4)),
            2 => Values::Drifting,
            3 => Values::Mixed,
            _ => Values::Wide,
        };
        // Sentinel 7: 7 is null, u64::MAX a value (the largest).
        let sentinel = if case % 7 == 3 { 7 } else { NULL };
        let mut points = random_points(&mut rng, n, kind, sentinel);
        if sentinel != NULL && n > 0 {
            let i = rng.range(0, n as u64) as usize;
            points[i].1 = u64::MAX;
        }
        let (time, value) = if case % 3 == 0 {
            segmented_columns(&points, sentinel, &mut rng)
        } else {
            columns_with(&points, sentinel)
        };
        let steps = Steps {
            time: &time,
            value: &value,
            sentinel,
        };
        let pyramid = Pyramid::build(&steps);
        let end = points.last().map_or(0, |p| p.0) + 60;
        let edges = random_edges(&mut rng, &points, end);
        let rows = [points.clone()];
        let first = time.upper_bound(edges[0]);
        let stop = time.upper_bound(*edges.last().unwrap());
        for mode in DrawMode::ALL {
            let what = format!("case {case} {kind:?} n {n} {mode}");
            let naive = summarize_naive(&steps, &edges, mode);
            let mut auto = Vec::new();
            summarize(&steps, &pyramid, &edges, mode, &mut auto);
            let mut scan = Vec::new();
            summarize_scan(&steps, &edges, first, stop, mode, &mut scan);
            let mut tree = Vec::new();
            summarize_pyramid(&steps, &pyramid, &edges, first, mode, &mut tree);
            // The scan is exact in every mode.
            assert_eq!(scan, naive, "{what}: scan");
            if mode == DrawMode::Dominant {
                let exact = pyramid.dominant_is_exact();
                approximate += check_dominant(&tree, &naive, &rows, &edges, sentinel, exact, &what);
                check_dominant(&auto, &naive, &rows, &edges, sentinel, exact, &what);
            } else {
                assert_eq!(tree, naive, "{what}: pyramid");
                assert_eq!(auto, naive, "{what}");
            }
        }
        // Range maxima and minima of arbitrary ranges too.
        for _ in 0..50 {
            let i = rng.range(0, n as u64 + 1) as usize;
            let j = rng.range(i as u64, n as u64 + 1) as usize;
            let values = || points[i..j].iter().map(|p| p.1);
            let max = values().fold(sentinel, |m, v| null::max_of(m, v, sentinel));
            let min = values().fold(sentinel, |m, v| min_of(m, v, sentinel));
            assert_eq!(pyramid.range_max(&steps, i, j), max, "case {case} {i}..{j}");
            assert_eq!(pyramid.range_min(&steps, i, j), min, "case {case} {i}..{j}");
        }
    }
    // The bound, not only exactness, was put to the test.
    assert!(approximate > 100, "{approximate} approximate columns");
}

/// The rows' columns as step functions, null as [`NULL`].
fn steps_of(built: &[(TimeColumn, ValueColumn)]) -> Vec<Steps<'_>> {
    built
        .iter()
        .map(|(time, value)| Steps {
            time,
            value,
            sentinel: NULL,
        })
        .collect()
}

/// Random column edges over the points of all `rows`, to past their last one.
fn group_edges(rng: &mut Rng, rows: &[Vec<(u64, u64)>]) -> Vec<u64> {
    let all: Vec<(u64, u64)> = rows.iter().flatten().copied().collect();
    let end = all.iter().map(|p| p.0).max().unwrap_or(0) + 60;
    random_edges(rng, &all, end)
}

/// Summary rows of hundreds of threads, most of them quiet in most columns (a frame of
/// 65,536 threads on 900 rows): the average and dominant modes sum the quiet threads by value,
/// which must give the naive group computation's pixels exactly.
#[test]
fn groups_of_many_quiet_threads_equal_the_naive_group_computation() {
    let mut rng = Rng::new(23);
    for case in 0..24 {
        let threads = rng.range(50, 400) as usize;
        let rows: Vec<Vec<(u64, u64)>> = (0..threads)
            .map(|_| {
                // Every other case, the quiet threads' values from 20: more values held than
                // a linear search is kept for.
                let (n, kind) = if rng.chance(10) {
                    (rng.range(20, 200), Values::Few(4))
                } else if case % 2 == 0 {
                    (rng.range(0, 6), Values::Mixed)
                } else {
                    (rng.range(0, 6), Values::Few(4))
                };
                random_points(&mut rng, n as usize, kind, NULL)
            })
            .collect();
        let built: Vec<(TimeColumn, ValueColumn)> = rows.iter().map(|p| columns(p)).collect();
        let steps = steps_of(&built);
        let pyramids: Vec<Pyramid> = steps.iter().map(Pyramid::build).collect();
        let pairs: Vec<(Steps<'_>, &Pyramid)> = steps.iter().copied().zip(&pyramids).collect();
        let edges = group_edges(&mut rng, &rows);
        for mode in [DrawMode::Average, DrawMode::Dominant] {
            let naive = summarize_group_naive(&steps, &edges, mode);
            let mut fast = Vec::new();
            summarize_group(&pairs, &edges, mode, &mut fast);
            assert_eq!(fast, naive, "case {case}: {threads} threads {mode}");
        }
    }
}

/// Collapsed rows: 1 to 5 threads of different kinds against the naive group reference.
#[test]
fn group_summaries_equal_the_naive_group_computation() {
    let mut rng = Rng::new(11);
    let mut approximate = 0;
    for case in 0..160 {
        let threads = rng.range(1, 6) as usize;
        let rows: Vec<Vec<(u64, u64)>> = (0..threads)
            .map(|_| {
                let n = match rng.range(0, 4) {
                    0 => rng.range(0, 10) as usize,
                    1 => rng.range(10, 300) as usize,
                    _ => rng.range(300, 3000) as usize,
                };
                let kind = match case % 4 {
                    0 => Values::Few(rng.range(1, 6)),
                    1 => Values::Drifting,
                    2 if rng.chance(50) => Values::Few(3),
                    _ => Values::Mixed,
                };
                random_points(&mut rng, n, kind, NULL)
            })
            .collect();
        let built: Vec<(TimeColumn, ValueColumn)> = rows
            .iter()
            .map(|p| {
                if rng.chance(30) {
                    segmented_columns(p, NULL, &mut rng)
                } else {
                    columns(p)
                }
            })
            .collect();
        let steps = steps_of(&built);
        let pyramids: Vec<Pyramid> = steps.iter().map(Pyramid::build).collect();
        let pairs: Vec<(Steps<'_>, &Pyramid)> = steps.iter().copied().zip(&pyramids).collect();
        let edges = group_edges(&mut rng, &rows);
        let exact = pyramids.iter().all(Pyramid::dominant_is_exact);
        for mode in DrawMode::ALL {
            let what = format!("case {case} threads {threads} {mode}");
            let naive = summarize_group_naive(&steps, &edges, mode);
            let mut fast = Vec::new();
            summarize_group(&pairs, &edges, mode, &mut fast);
            if mode == DrawMode::Dominant {
                // Exact rows stay exact while the group's column holds at most 32 values; the
                // rows here hold at most 5 or drift, so the distinct-value rule decides.
                let few = exact && case % 4 == 0;
                approximate += check_dominant(&fast, &naive, &rows, &edges, NULL, few, &what);
            } else {
                assert_eq!(fast, naive, "{what}");
            }
            // One thread is the row itself.
            if threads == 1 && mode != DrawMode::Dominant {
                let mut single = Vec::new();
                summarize(&steps[0], &pyramids[0], &edges, mode, &mut single);
                assert_eq!(fast, single, "{what}: one thread");
            }
        }
    }
    assert!(approximate > 50, "{approximate} approximate columns");
    // No thread: no pixels.
    let mut out = vec![Pixel {
        value: 1,
        changes: 0,
    }];
    summarize_group(&[], &[0, 10, 20], DrawMode::Average, &mut out);
    assert!(out.is_empty());
    assert!(summarize_group_naive(&[], &[0, 10, 20], DrawMode::Average).is_empty());
}

/// A thread 98 % in one value with a short burst of another in every column: Dominant draws
/// the value, Maximum the bursts, on both paths.
#[test]
fn dominant_ignores_short_bursts_that_maximum_shows() {
    // Value 2 everywhere, a 20-tick burst of 9 at the middle of every 1000 ticks, over 1000
    // columns of 1000 ticks; then the same with 20 bursts of 2 ticks per column.
    for bursts in [1u64, 20] {
        let mut points = Vec::new();
        for c in 0..1000u64 {
            for k in 0..bursts {
                let at = c * 1000 + 10 + k * (980 / bursts);
                points.push((at, 9));
                points.push((at + 20 / bursts, 2));
            }
        }
        points.insert(0, (0, 2));
        let (time, value) = columns(&points);
        let steps = Steps {
            time: &time,
            value: &value,
            sentinel: NULL,
        };
        let pyramid = Pyramid::build(&steps);
        let edges = Grid {
            span: 1_000_000,
            width: 1000,
        }
        .edges(0, 1000);
        let first = time.upper_bound(0);
        let stop = time.upper_bound(1_000_000);
        for (mode, want) in [(DrawMode::Dominant, 2), (DrawMode::Maximum, 9)] {
            for path in 0..3 {
                let mut px = Vec::new();
                match path {
                    0 => summarize(&steps, &pyramid, &edges, mode, &mut px),
                    1 => summarize_scan(&steps, &edges, first, stop, mode, &mut px),
                    _ => summarize_pyramid(&steps, &pyramid, &edges, first, mode, &mut px),
                }
                assert_eq!(px.len(), 1000);
                assert!(
                    px.iter().all(|p| p.value == want),
                    "{mode} path {path} bursts {bursts}"
                );
                assert!(px.iter().all(|p| p.changes == 2 * bursts as u32));
            }
        }
        // Average: (980 * 2 + 20 * 9) / 1000 = 2.14, floored.
        let mut px = Vec::new();
        summarize(&steps, &pyramid, &edges, DrawMode::Average, &mut px);
        assert!(px.iter().all(|p| p.value == 2));
    }
}

/// Adversarial rows for the heavy-hitter summaries: all values distinct but one that holds a
/// given share of each column in many short pieces; past 5/9 it must be drawn, and whatever
/// the share the value drawn keeps the bound.
#[test]
fn dominant_keeps_its_bound_with_many_distinct_values() {
    let mut rng = Rng::new(5);
    for percent in [20u64, 40, 50, 56, 60, 75] {
        let mut points = Vec::new();
        let mut t = 0;
        let mut fresh = 1001;
        for _ in 0..40_000 {
            // A piece of the heavy value 1 000 000 or of a value never seen again (below or
            // above it), 1 to 9 ticks long.
            let v = if rng.chance(percent) {
                1_000_000
            } else {
                fresh += 1;
                if fresh % 2 == 0 {
                    fresh
                } else {
                    2_000_000 + fresh
                }
            };
            points.push((t, v));
            t += rng.range(1, 10);
        }
        let (time, value) = columns(&points);
        let steps = Steps {
            time: &time,
            value: &value,
            sentinel: NULL,
        };
        let pyramid = Pyramid::build(&steps);
        assert!(!pyramid.dominant_is_exact());
        for width in [7u32, 60, 400] {
            let edges = Grid { span: t, width }.edges(0, width as usize);
            let naive = summarize_naive(&steps, &edges, DrawMode::Dominant);
            let mut px = Vec::new();
            let first = time.upper_bound(edges[0]);
            summarize_pyramid(&steps, &pyramid, &edges, first, DrawMode::Dominant, &mut px);
            let what = format!("{percent} % over {width} columns");
            let rows = [points.clone()];
            check_dominant(&px, &naive, &rows, &edges, NULL, false, &what);
            if percent >= 75 {
                assert!(px.iter().all(|p| p.value == 1_000_000), "{what}");
            }
        }
    }
}

#[test]
fn another_sentinel_keeps_u64_max_as_a_value() {
    // Sentinel 7: the value u64::MAX is real and the largest; 7 is null.
    let points = [(0, 3), (10, u64::MAX), (11, 7), (20, 5), (30, 7)];
    let (time, value) = columns_with(&points, 7);
    let steps = Steps {
        time: &time,
        value: &value,
        sentinel: 7,
    };
    assert!(!value.keys_are_exact());
    let edges = [0, 5, 12, 25, 40];
    let pyramid = Pyramid::build(&steps);
    for mode in DrawMode::ALL {
        let mut px = Vec::new();
        summarize(&steps, &pyramid, &edges, mode, &mut px);
        assert_eq!(px, summarize_naive(&steps, &edges, mode), "{mode}");
    }
    let shown = |mode| {
        let mut px = Vec::new();
        summarize(&steps, &pyramid, &edges, mode, &mut px);
        px.iter().map(|p| p.value).collect::<Vec<u64>>()
    };
    assert_eq!(shown(DrawMode::Maximum), [3, u64::MAX, 5, 5]);
    assert_eq!(shown(DrawMode::Minimum), [3, 3, 5, 5]);
    assert_eq!(shown(DrawMode::Last), [3, 7, 5, 7]);
    // [5, 12): 3 for 5 ticks, u64::MAX for 1, null for 1; [12, 25): null for 8 ticks, 5 for 5.
    assert_eq!(shown(DrawMode::Dominant), [3, 3, 7, 7]);
    // [25, 40): 5 for 5 ticks, null for 10: the mean of what holds is 5.
    assert_eq!(shown(DrawMode::Average)[3], 5);
}

#[test]
fn an_average_on_the_sentinel_is_not_drawn_as_null() {
    // Sentinel 7: half 6, half 8 averages to 7, drawn as 6.
    let (time, value) = columns_with(&[(0, 6), (10, 8)], 7);
    let steps = Steps {
        time: &time,
        value: &value,
        sentinel: 7,
    };
    let pyramid = Pyramid::build(&steps);
    let mut px = Vec::new();
    summarize(&steps, &pyramid, &[0, 20], DrawMode::Average, &mut px);
    assert_eq!(px[0].value, 6);
    assert_eq!(px, summarize_naive(&steps, &[0, 20], DrawMode::Average));
}

#[test]
fn a_burst_shorter_than_a_pixel_stays_visible_in_maximum() {
    // Value 1 everywhere but a 1-tick burst of 5 at 5003, drawn over 10 columns of 1000.
    let (time, value) = columns(&[(0, 1), (5003, 5), (5004, 1)]);
    let steps = Steps {
        time: &time,
        value: &value,
        sentinel: NULL,
    };
    let grid = Grid {
        span: 10_000,
        width: 10,
    };
    let pyramid = Pyramid::build(&steps);
    let shown = |mode| {
        let mut px = Vec::new();
        summarize(&steps, &pyramid, &grid.edges(0, 10), mode, &mut px);
        px
    };
    let px = shown(DrawMode::Maximum);
    let values: Vec<u64> = px.iter().map(|p| p.value).collect();
    assert_eq!(values, [1, 1, 1, 1, 1, 5, 1, 1, 1, 1]);
    assert_eq!(px[5].changes, 2);
    assert_eq!(px[4].changes, 0);
    // Dominant, Average, Minimum and Last keep the value that holds; Random may pick the
    // burst.
    for mode in [
        DrawMode::Dominant,
        DrawMode::Average,
        DrawMode::Minimum,
        DrawMode::Last,
    ] {
        assert!(shown(mode).iter().all(|p| p.value == 1), "{mode}");
    }
}

#[test]
fn random_is_stable_and_picks_each_candidate() {
    // Three values in every column: every one is drawn somewhere, and a repaint (or a pan by
    // whole columns) draws the same.
    let points: Vec<(u64, u64)> = (0..3000u64).map(|i| (i * 10, 1 + i % 3)).collect();
    let (time, value) = columns(&points);
    let steps = Steps {
        time: &time,
        value: &value,
        sentinel: NULL,
    };
    let pyramid = Pyramid::build(&steps);
    let grid = Grid {
        span: 30_000,
        width: 1000,
    };
    let mut a = Vec::new();
    summarize(
        &steps,
        &pyramid,
        &grid.edges(0, 1000),
        DrawMode::Random,
        &mut a,
    );
    let mut b = Vec::new();
    summarize(
        &steps,
        &pyramid,
        &grid.edges(100, 900),
        DrawMode::Random,
        &mut b,
    );
    assert_eq!(a[100..], b[..]);
    for v in 1..=3 {
        assert!(a.iter().filter(|p| p.value == v).count() > 200, "{v}");
    }
}

#[test]
fn modes_parse_and_print_by_name() {
    for mode in DrawMode::ALL {
        assert_eq!(mode.name().parse::<DrawMode>(), Ok(mode));
        assert_eq!(mode.to_string(), mode.name());
        assert!(!mode.description().is_empty());
    }
    assert_eq!(DrawMode::default(), DrawMode::Dominant);
    for (alias, mode) in [
        ("mode", DrawMode::Dominant),
        ("AVG", DrawMode::Average),
        (" max ", DrawMode::Maximum),
        ("min", DrawMode::Minimum),
        ("random-non-null", DrawMode::Random),
    ] {
        assert_eq!(alias.parse::<DrawMode>(), Ok(mode), "{alias}");
    }
    let err = "median".parse::<DrawMode>().unwrap_err();
    assert!(err.contains("median") && err.contains("dominant") && err.contains("random"));
}

#[test]
fn grid_columns_are_fixed_in_absolute_time() {
    let grid = Grid {
        span: 1000,
        width: 7,
    };
    for t in 0..3000 {
        let k = grid.column_of(t);
        assert!(grid.edge(k) <= t && t < grid.edge(k + 1), "t {t} k {k}");
    }
    // Panning by whole columns reuses the same edges.
    assert_eq!(grid.edges(3, 4)[1..], grid.edges(4, 3)[..]);
    // More columns than ticks: empty columns repeat an edge.
    let fine = Grid { span: 3, width: 10 };
    assert_eq!(fine.edges(0, 10), [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
    assert_eq!(fine.column_of(1), 6);
}

/// The same properties as the seeded tests, with shrinking: short rows of 3 or 11 values
/// (past the 8 of the per-value sums), any edges, single rows and groups.
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Rows of up to 300 points, 0 to 29 ticks apart; value 11 is null.
    fn rows() -> impl Strategy<Value = Vec<Vec<(u64, u64)>>> {
        let row = (
            any::<bool>(),
            prop::collection::vec((0u64..30, 0u64..12), 0..300),
        )
            .prop_map(|(few, raw)| {
                let mut t = 0;
                raw.into_iter()
                    .map(|(gap, v)| {
                        t += gap;
                        let v = match v {
                            11 => NULL,
                            v if few => v % 3,
                            v => v * 1000,
                        };
                        (t, v)
                    })
                    .collect::<Vec<_>>()
            });
        prop::collection::vec(row, 1..4)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn every_mode_and_path_agrees_with_the_naive_reference(
            rows in rows(),
            raw_edges in prop::collection::vec(0u64..9000, 1..80),
        ) {
            let built: Vec<(TimeColumn, ValueColumn)> = rows.iter().map(|p| columns(p)).collect();
            let steps: Vec<Steps<'_>> = built
                .iter()
                .map(|(time, value)| Steps { time, value, sentinel: NULL })
                .collect();
            let pyramids: Vec<Pyramid> = steps.iter().map(Pyramid::build).collect();
            let pairs: Vec<(Steps<'_>, &Pyramid)> = steps.iter().copied().zip(&pyramids).collect();
            let mut edges = raw_edges;
            edges.sort_unstable();
            let first = built[0].0.upper_bound(edges[0]);
            let stop = built[0].0.upper_bound(*edges.last().unwrap());
            for mode in DrawMode::ALL {
                let naive = summarize_naive(&steps[0], &edges, mode);
                let mut scan = Vec::new();
                summarize_scan(&steps[0], &edges, first, stop, mode, &mut scan);
                prop_assert_eq!(&scan, &naive, "{} scan", mode);
                let mut tree = Vec::new();
                summarize_pyramid(&steps[0], &pyramids[0], &edges, first, mode, &mut tree);
                let group_naive = summarize_group_naive(&steps, &edges, mode);
                let mut group = Vec::new();
                summarize_group(&pairs, &edges, mode, &mut group);
                if mode == DrawMode::Dominant {
                    let exact = pyramids[0].dominant_is_exact();
                    check_dominant(&tree, &naive, &rows[..1], &edges, NULL, exact, "pyramid");
                    check_dominant(&group, &group_naive, &rows, &edges, NULL, false, "group");
                } else {
                    prop_assert_eq!(&tree, &naive, "{} pyramid", mode);
                    prop_assert_eq!(&group, &group_naive, "{} group", mode);
                }
            }
        }
    }
}

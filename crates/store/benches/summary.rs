//! One frame's pixel summaries in every draw mode: 64 rows of 300 000 points each over 1400
//! columns at full zoom (about 214 points per column), for state-like rows (5 values, a few
//! nulls) and counter-like rows (every value distinct). Rows are summarised one after the
//! other on one thread, so the times compare the modes' costs, not the machine's cores.
//!
//! Before the benches it prints the index's heap bytes per point for both kinds of rows, and
//! each mode's fastest frame over rounds that take the modes in turn, relative to Maximum:
//! on a shared machine the minima of interleaved runs compare modes better than means taken
//! one mode after the other. Run with `cargo bench -p prvscope-store --bench summary`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use prvscope_store::summary::{DrawMode, Grid, Pixel, Pyramid, Steps, summarize};
use prvscope_store::{TimeColumn, ValueColumn};

const ROWS: usize = 64;
const POINTS: usize = 300_000;
const COLUMNS: u32 = 1400;
const NULL: u64 = u64::MAX;
/// Rounds of one frame per mode for the interleaved minima.
const ROUNDS: usize = 12;

/// A reproducible stream of numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 21
    }
}

/// Rows of `POINTS` points, 1 to 2000 ticks apart, with values from `value`.
fn rows(seed: u64, value: impl Fn(&mut Rng) -> u64) -> Vec<(TimeColumn, ValueColumn)> {
    let mut rng = Rng(seed);
    (0..ROWS)
        .map(|_| {
            let mut t = 0;
            let mut times = Vec::with_capacity(POINTS);
            let mut values = Vec::with_capacity(POINTS);
            for _ in 0..POINTS {
                times.push(t);
                values.push(value(&mut rng));
                t += 1 + rng.next() % 2000;
            }
            (
                TimeColumn::from_times(&times),
                ValueColumn::from_values(&values, NULL),
            )
        })
        .collect()
}

fn bench_kind(c: &mut Criterion, name: &str, rows: &[(TimeColumn, ValueColumn)]) {
    let steps: Vec<Steps<'_>> = rows
        .iter()
        .map(|(time, value)| Steps {
            time,
            value,
            sentinel: NULL,
        })
        .collect();
    let pyramids: Vec<Pyramid> = steps.iter().map(Pyramid::build).collect();
    let points: usize = steps.iter().map(Steps::len).sum();
    let index: usize = pyramids.iter().map(Pyramid::heap_bytes).sum();
    let data: usize = rows
        .iter()
        .map(|(t, v)| t.heap_bytes() + v.heap_bytes())
        .sum();
    eprintln!(
        "{name}: {points} points; index {:.2} B/point (the points themselves {:.2} B/point)",
        index as f64 / points as f64,
        data as f64 / points as f64
    );
    let end = rows.iter().filter_map(|(t, _)| t.last()).max().unwrap_or(0) + 1;
    let edges = Grid {
        span: end,
        width: COLUMNS,
    }
    .edges(0, COLUMNS as usize);
    let frame = |mode: DrawMode, out: &mut Vec<Pixel>| {
        let mut drawn = 0usize;
        for (s, p) in steps.iter().zip(&pyramids) {
            summarize(s, p, &edges, mode, out);
            drawn += out.iter().filter(|px| px.value != NULL).count();
        }
        // Something was drawn: the bench cannot measure nothing.
        assert!(drawn > 0);
        black_box(drawn)
    };
    let mut out: Vec<Pixel> = Vec::with_capacity(edges.len());
    let mut fastest = [Duration::MAX; DrawMode::ALL.len()];
    for _ in 0..ROUNDS {
        for (mode, best) in DrawMode::ALL.into_iter().zip(&mut fastest) {
            let start = Instant::now();
            frame(mode, &mut out);
            *best = (*best).min(start.elapsed());
        }
    }
    let max = DrawMode::ALL
        .iter()
        .zip(&fastest)
        .find(|(m, _)| **m == DrawMode::Maximum)
        .map_or(1.0, |(_, t)| t.as_secs_f64());
    let line: Vec<String> = DrawMode::ALL
        .iter()
        .zip(&fastest)
        .map(|(mode, t)| {
            let t = t.as_secs_f64();
            format!("{mode} {:.1} ms ({:.2}x)", t * 1e3, t / max)
        })
        .collect();
    eprintln!(
        "{name}, fastest of {ROUNDS} interleaved frames: {}",
        line.join(", ")
    );
    let mut g = c.benchmark_group(format!("summary_{name}"));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500));
    for mode in DrawMode::ALL {
        g.bench_function(mode.name(), |b| b.iter(|| frame(mode, &mut out)));
    }
    g.finish();
}

fn summaries(c: &mut Criterion) {
    // States: 5 values, 5 % of the points null (a gap between states).
    let states = rows(1, |rng| match rng.next() % 100 {
        0..5 => NULL,
        v => v % 5,
    });
    bench_kind(c, "states", &states);
    drop(states);
    // Counters: every value distinct.
    let counters = rows(2, Rng::next);
    bench_kind(c, "counters", &counters);
}

criterion_group!(benches, summaries);
criterion_main!(benches);

//! One frame's pixel summaries in every draw mode: 64 rows of 300 000 points each over 1400
//! columns at full zoom (about 214 points per column), for state-like rows (5 values, a few
//! nulls) and counter-like rows (every value distinct). Rows are summarised one after the
//! other on one thread, so the times compare the modes' costs, not the machine's cores.
//!
//! Before the benches it prints the index's heap bytes per point for both kinds of rows.
//! Run with `cargo bench -p prvscope-store --bench summary`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use prvscope_store::summary::{DrawMode, Grid, Pixel, Pyramid, Steps, summarize};
use prvscope_store::{TimeColumn, ValueColumn};

const ROWS: usize = 64;
const POINTS: usize = 300_000;
const COLUMNS: u32 = 1400;
const NULL: u64 = u64::MAX;

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
    let mut g = c.benchmark_group(format!("summary_{name}"));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500));
    for mode in DrawMode::ALL {
        let mut out: Vec<Pixel> = Vec::with_capacity(edges.len());
        g.bench_function(mode.name(), |b| {
            b.iter(|| {
                let mut drawn = 0usize;
                for (s, p) in steps.iter().zip(&pyramids) {
                    summarize(s, p, &edges, mode, &mut out);
                    drawn += out.iter().filter(|px| px.value != NULL).count();
                }
                // Something was drawn: the bench cannot measure nothing.
                assert!(drawn > 0);
                black_box(drawn)
            });
        });
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

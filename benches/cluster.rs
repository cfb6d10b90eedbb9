//! DBSCAN on 10^6 generated bursts: points in two features, normalised to [0, 1], drawn
//! from eight dense phases (each a small Gaussian-like cloud, as the bursts of one code
//! region are) with 0.2% of them scattered uniformly (noise), clustered with the Clustering
//! Suite's usual parameters (radius 0.03, 10 points). Beside it, the same points sorted by
//! their first coordinate (a same-run reference for a pass of O(n log n) work over them).
//!
//! Also the whole clustering of 10^6 generated bursts of 16 threads (instructions on a log
//! scale and IPC from their counters, normalised, DBSCAN, numbered, the per-cluster figures
//! and SPMD scores).
//!
//! Run with `cargo bench --bench cluster`.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use prvscope_paraver::cluster::{self, Burst, Bursts, Options, dbscan};
use prvscope_paraver::pop::{CYCLES, INSTRUCTIONS};

/// A small deterministic generator (`SplitMix64`).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` points of 2 coordinates (see the module documentation).
pub fn bursts(n: usize) -> Vec<f64> {
    let mut r = Mix(1);
    let centres: Vec<(f64, f64)> = (0..8)
        .map(|k| (0.08 + 0.12 * f64::from(k), 0.2 + 0.15 * f64::from(k % 4)))
        .collect();
    let mut pts = Vec::with_capacity(n * 2);
    for i in 0..n {
        if i % 500 == 0 {
            pts.extend([r.next(), r.next()]);
        } else {
            let (x, y) = centres[i % 8];
            // A sum of uniforms: a bell of width ~0.02.
            let dx = (r.next() + r.next() + r.next() - 1.5) * 0.02;
            let dy = (r.next() + r.next() + r.next() - 1.5) * 0.02;
            pts.extend([x + dx, y + dy]);
        }
    }
    pts
}

fn cluster(c: &mut Criterion) {
    let n = 1_000_000;
    let pts = bursts(n);
    let mut g = c.benchmark_group("dbscan_1m_bursts");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("core_distances_knee", |b| {
        b.iter(|| {
            let d = cluster::radius::core_distances(&pts, 2, cluster::DEFAULT_MIN_POINTS);
            cluster::radius::knee(&d)
        });
    });
    g.bench_function("grid_dbscan_refined_2_steps", |b| {
        b.iter(|| {
            let r = cluster::radius::refine(&pts, 2, 0.03, cluster::DEFAULT_MIN_POINTS, 2);
            r.labels.len()
        });
    });
    g.bench_function("grid_dbscan", |b| {
        b.iter(|| {
            let labels = dbscan::dbscan(&pts, 2, 0.03, 10);
            let mut sizes = std::collections::HashMap::<u32, usize>::new();
            for &l in labels.iter().filter(|&&l| l != dbscan::NOISE) {
                *sizes.entry(l).or_default() += 1;
            }
            // The eight phases (the scattered points make a few small clusters too).
            let phases = sizes.values().filter(|&&s| s > n / 10).count();
            assert_eq!(phases, 8, "the eight phases");
            labels
        });
    });
    // The same points as bursts: instructions 10^(4 + 5x), IPC 3y, 1 ms each.
    let list: Vec<Burst> = (0..n)
        .map(|i| {
            let (px, py) = (pts[2 * i], pts[2 * i + 1]);
            let instructions = 10f64.powf(4.0 + 5.0 * px);
            Burst {
                thread: (i % 16) as u32,
                begin: (i / 16) as u64 * 2_000_000,
                end: (i / 16) as u64 * 2_000_000 + 1_000_000,
                counters: vec![instructions, instructions / (3.0 * py).max(1e-3)],
            }
        })
        .collect();
    let bursts = Bursts {
        list,
        counters: vec![INSTRUCTIONS, CYCLES],
        missing: Vec::new(),
        filtered: (0, 0),
        cut: (0, 0),
        ns_per_tick: 1.0,
        sequence_rows: (0..16).collect(),
        ipc_types: (INSTRUCTIONS, CYCLES),
        source: "generated",
    };
    let options = Options {
        features: cluster::instructions_and_ipc(INSTRUCTIONS),
        eps: Some(0.03),
        min_points: 10,
        refine: 0,
        min_duration: 0,
    };
    g.bench_function("classify_bursts", |b| {
        b.iter_batched(
            || bursts.clone(),
            |bursts| {
                let c = cluster::classify(bursts, &options);
                assert!(c.clusters() >= 8, "{} clusters", c.clusters());
                c.figures.len()
            },
            criterion::BatchSize::LargeInput,
        );
    });
    g.bench_function("sort_by_x", |b| {
        b.iter(|| {
            let mut xs: Vec<f64> = pts.iter().step_by(2).copied().collect();
            xs.sort_unstable_by(f64::total_cmp);
            xs[n / 2]
        });
    });
    g.finish();
}

criterion_group!(benches, cluster);
criterion_main!(benches);

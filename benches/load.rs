//! Loading throughput, each figure beside a reference measured in the same run:
//! - a generated 1 GB plain `.prv` from the page cache, against `wc -l` on the same file;
//! - `ovni_gen_large_4x16/thread.prv.xz` (282 MB of text), against `xz -dc -T0 > /dev/null`.
//!
//! Run with `cargo bench --bench load`. The generated trace is written once to
//! `target/bench-data/` and reused. Each benchmark checks what it loaded, so that it cannot
//! measure nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prvscope_import::synth::{self, GenOptions};
use prvscope_import::{self as trace, LoadOptions};

/// The generated 1 GB trace (64 threads, seed 1), written on first use.
pub fn generated_1gb() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let path = dir.join("gen_1gb.prv");
    if !path.exists() {
        std::fs::create_dir_all(&dir).expect("bench data folder");
        let opts = GenOptions {
            threads: 64,
            threads_per_task: 4,
            target_bytes: 1_000_000_000,
            seed: 1,
            legacy: false,
            xz: false,
        };
        synth::generate(&path, &opts).expect("generating the bench trace");
    }
    path
}

fn shared_trace(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces")
        .join(rel);
    p.exists().then_some(p)
}

fn run(cmd: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .status()
        .expect("running the reference");
    assert!(ok.success(), "{cmd}");
}

fn plain(c: &mut Criterion) {
    let path = generated_1gb();
    let bytes = std::fs::metadata(&path).expect("bench trace").len();
    // Warm the page cache.
    run(&format!("cat '{}' > /dev/null", path.display()));
    let mut g = c.benchmark_group("plain_1gb");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Bytes(bytes));
    g.bench_function("prvscope_load", |b| {
        b.iter(|| {
            let t = trace::load(&path, &LoadOptions::default(), None).expect("load");
            assert!(t.store.counts().total() > 40_000_000);
            t
        });
    });
    g.bench_function("wc_-l", |b| {
        b.iter(|| run(&format!("wc -l '{}' > /dev/null", path.display())));
    });
    g.finish();
}

fn xz(c: &mut Criterion) {
    let Some(path) = shared_trace("ovni_gen_large_4x16/thread.prv.xz") else {
        eprintln!("../shared/traces not found: skipping the xz benchmark");
        return;
    };
    let mut g = c.benchmark_group("ovni_xz");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(15))
        .throughput(Throughput::Bytes(282_000_000));
    g.bench_function("prvscope_load", |b| {
        b.iter(|| {
            let t = trace::load(&path, &LoadOptions::default(), None).expect("load");
            assert_eq!(t.store.counts().events, 10_327_530);
            t
        });
    });
    g.bench_function("xz_-dc_-T0", |b| {
        b.iter(|| run(&format!("xz -dc -T0 '{}' > /dev/null", path.display())));
    });
    g.finish();
}

criterion_group!(benches, plain, xz);
criterion_main!(benches);

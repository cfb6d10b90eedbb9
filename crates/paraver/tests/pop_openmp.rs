//! pypop's hybrid MPI+OpenMP metrics: the per-thread OpenMP figures against paramedir's
//! outputs of pypop's own cfgs, the metrics of the `ImageMagick` 4-thread run against those
//! pypop published for it, and the per-process formulas on a hand-made 2x2 trace whose
//! figures are known by construction.

#![allow(clippy::unwrap_used, clippy::float_cmp, clippy::unreadable_literal)] // exact figures, as published

mod common;

use std::path::{Path, PathBuf};

use prvscope_paraver::pop;

fn load(path: &Path) -> pop::Figures {
    let t = prvscope_import::load(path, &prvscope_import::LoadOptions::default(), None).unwrap();
    pop::figures(&t).unwrap()
}

/// The per-thread totals of a paramedir histogram output (every column summed), in ns.
fn paramedir_per_thread(path: &Path) -> Vec<f64> {
    common::gunzip(path)
        .lines()
        .filter(|l| l.starts_with("THREAD "))
        .map(|l| {
            l.split('\t')
                .skip(1)
                .filter_map(|v| v.parse::<f64>().ok())
                .sum()
        })
        .collect()
}

fn assert_same_ns(what: &str, ours_us: &[f64], paramedir_ns: &[f64]) {
    assert_eq!(ours_us.len(), paramedir_ns.len(), "{what}");
    for (k, (us, ns)) in ours_us.iter().zip(paramedir_ns).enumerate() {
        assert!(
            (us * 1000.0 - ns).abs() < 0.5,
            "{what}, thread {k}: {} ns against paramedir's {ns}",
            us * 1000.0
        );
    }
}

#[test]
fn openmp_figures_are_paramedirs_on_pypops_cfgs() {
    let Some(shared) = common::shared() else {
        return;
    };
    for (dir, file) in [
        ("pypop_imagemagick_omp4", "omp4.prv.gz"),
        ("extrae_omp_jacobi24", "jacobi-2d-imper_v0.prv"),
    ] {
        let trace = shared.join("traces").join(dir).join(file);
        let f = load(&trace);
        let omp = f.openmp.as_ref().expect("an OpenMP trace");
        let reference = |cfg: &str| {
            paramedir_per_thread(
                &shared
                    .join("reference/paramedir")
                    .join(dir)
                    .join(format!("pypop__{cfg}.txt.gz")),
            )
        };
        assert_same_ns(
            "serial useful",
            &omp.serial_useful_us,
            &reference("serial_useful_computation"),
        );
        assert_same_ns(
            "OpenMP useful",
            &omp.useful_us,
            &reference("omp_useful_computation"),
        );
        assert_same_ns(
            "OpenMP region",
            &omp.region_us,
            &reference("omp_total_runtime"),
        );
        assert_same_ns(
            "useful",
            &f.useful_us,
            &reference("total_useful_computation"),
        );
    }
}

#[test]
fn imagemagick_metrics_are_pypops_published_figures() {
    let Some(shared) = common::shared() else {
        return;
    };
    let f = load(&shared.join("traces/pypop_imagemagick_omp4/omp4.prv.gz"));
    let metrics = pop::metrics(&[f]);
    let value = |name: &str| metrics.iter().find(|m| m.name == name).unwrap().values[0].unwrap();
    // pypop's OpenMP metrics of this run (`examples/openmp/OMP Metrics Example.ipynb`,
    // 4 threads), as fractions to the 6th decimal.
    for (name, pypop) in [
        ("OpenMP region efficiency", 0.995565),
        ("Serial region efficiency", 0.498454),
        ("Parallel efficiency", 0.488539),
    ] {
        let ours = value(name);
        assert!(
            (ours / 100.0 - pypop).abs() <= 5e-7,
            "{name}: {ours} against pypop's {pypop}"
        );
    }
    // The additive split: parallel efficiency's loss is the process level's plus the thread
    // level's.
    let lost = |name: &str| 100.0 - value(name);
    assert!(
        (lost("Parallel efficiency")
            - lost("Process level efficiency")
            - lost("Thread level efficiency"))
        .abs()
            < 1e-9
    );
}

/// A 2-process x 2-thread run of 1000 ns (state 1 is Running, the useful state).
/// Process 1: thread 1 runs throughout, in a parallel region (60000001) from 200 to 600;
/// thread 2 runs a parallel function (60000018) from 200 to 500.
/// Process 2: thread 1 runs until 800 (then waits), in a parallel region from 100 to 300;
/// thread 2 is in a parallel function from 100 to 300 and runs from 100 to 250.
const HYBRID: &str = "\
#Paraver (01/01/2026 at 00:00):1000_ns:1(4):1:2(2:1,2:1)
1:1:1:1:1:0:1000:1
1:2:1:1:2:0:200:0
1:3:1:2:1:0:800:1
1:4:1:2:2:0:100:0
1:4:1:2:2:100:250:1
2:3:1:2:1:100:60000001:1
2:4:1:2:2:100:60000018:5
2:1:1:1:1:200:60000001:1
1:2:1:1:2:200:500:1
2:2:1:1:2:200:60000018:5
1:4:1:2:2:250:1000:0
2:3:1:2:1:300:60000001:0
2:4:1:2:2:300:60000018:0
1:2:1:1:2:500:1000:0
2:2:1:1:2:500:60000018:0
2:1:1:1:1:600:60000001:0
1:3:1:2:1:800:1000:3
";

#[test]
fn hybrid_metrics_follow_pypops_definitions_on_a_known_run() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pop_openmp");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hybrid.prv");
    std::fs::write(&path, HYBRID).unwrap();
    let f = load(&path);
    let omp = f.openmp.clone().unwrap();
    // Thread order: 1.1, 1.2, 2.1, 2.2 (in us).
    assert_eq!(f.useful_us, [1.0, 0.3, 0.8, 0.15]);
    assert_eq!(omp.serial_useful_us, [0.6, 0.0, 0.6, 0.0]);
    assert_eq!(omp.useful_us, [0.4, 0.3, 0.2, 0.15]);
    assert_eq!(omp.region_us[0], 0.4);
    assert_eq!(omp.region_us[2], 0.2);
    let metrics = pop::metrics(&[f]);
    let value = |name: &str| metrics.iter().find(|m| m.name == name).unwrap().values[0];
    // Outside MPI per process (first threads): serial + region = 1000 and 800 ns.
    for (name, want) in [
        ("Parallel efficiency", 56.25), // (1000 + 300 + 800 + 150) / 4 / 1000
        ("Process level efficiency", 90.0), // mean(1000, 800) / 1000
        ("MPI load balance", 90.0),     // 1 - (1000 - 900) / 1000
        ("MPI communication efficiency", 100.0), // 1000 / 1000
        // 1 - (mean region 300 - mean OpenMP useful 262.5 + mean serial 600 x (1 - 1/2)) / 1000
        ("Thread level efficiency", 66.25),
        // 1 - mean(400 - 350, 200 - 175) / 1000
        ("OpenMP region efficiency", 96.25),
        ("Serial region efficiency", 70.0), // 1 - 600 / 1000 x (1 - 1/2)
    ] {
        let got = value(name).unwrap();
        assert!((got - want).abs() < 1e-9, "{name}: {got}, want {want}");
    }
}

//! POP metrics of the EPOCH scaling series (1, 2 and 4 processes) against BSC's
//! modelfactors figures for the same traces, published in pypop's repository beside them
//! (`examples/mpi/epoch_example_traces/modelfactors.csv`); BSC's serialization and transfer
//! come from Dimemas, ours from `prvscope_paraver::replay`.

#![allow(clippy::unwrap_used, clippy::unreadable_literal)] // figures as modelfactors prints them

mod common;

use prvscope_paraver::pop;

/// BSC's modelfactors.csv for 1, 2 and 4 processes (the metrics computed here).
const BSC: &[(&str, [f64; 3])] = &[
    ("Parallel efficiency", [99.925583, 99.378252, 97.349953]),
    ("Load balance", [100.000000, 99.760930, 98.687584]),
    (
        "Communication efficiency",
        [99.925583, 99.616405, 98.644580],
    ),
    (
        "Serialization efficiency",
        [100.000000, 99.842359, 99.203493],
    ),
    ("Transfer efficiency", [99.925583, 99.773690, 99.436599]),
    (
        "Computation scalability",
        [100.000000, 95.500319, 92.390414],
    ),
    ("Global efficiency", [99.925583, 94.906548, 89.942024]),
    ("IPC scalability", [100.000000, 99.916598, 99.745711]),
    (
        "Instruction scalability",
        [100.000000, 96.748633, 95.788940],
    ),
    ("Frequency scalability", [100.000000, 98.792129, 96.697961]),
    ("Speedup", [1.000000, 1.899545, 3.600360]),
    ("Average IPC", [1.871993, 1.870432, 1.867233]),
    ("Average frequency (GHz)", [2.069905, 2.044904, 2.001556]),
];

#[test]
fn epoch_series_metrics_are_bscs_modelfactors_figures() {
    let Some(dir) = common::shared().map(|s| s.join("traces")) else {
        return;
    };
    let runs: Vec<pop::Figures> = ["epoch_1proc", "epoch_2proc", "epoch_4proc"]
        .iter()
        .map(|name| {
            let path = dir.join(format!("pypop_epoch_scaling/{name}.prv.gz"));
            let trace =
                prvscope_import::load(&path, &prvscope_import::LoadOptions::default(), None)
                    .unwrap();
            pop::figures(&trace).unwrap()
        })
        .collect();
    assert_eq!(
        runs.iter().map(|r| r.processes).collect::<Vec<_>>(),
        [1, 2, 4]
    );
    // Raw figures: runtime and useful durations (us) to the printed digit.
    assert!((runs[1].runtime_us - 11_528_373.56).abs() < 0.01);
    assert!(
        (runs[2].useful_max() - 5_999_910.80).abs() < 0.01,
        "{}",
        runs[2].useful_max()
    );
    assert!((runs[2].useful_total() - 23_684_668.07).abs() < 0.01);
    assert_eq!(runs[1].instructions, Some(87_640_358_419.0));
    assert_eq!(runs[1].cycles, Some(46_855_679_955.0));
    let metrics = pop::metrics(&runs);
    for (name, bsc) in BSC {
        let ours = &metrics.iter().find(|m| m.name == *name).unwrap().values;
        for (k, want) in bsc.iter().enumerate() {
            let got = ours[k].unwrap();
            assert!(
                (got - want).abs() <= 0.02,
                "{name}, run {k}: {got} against BSC's {want}"
            );
        }
    }
    // The ideal run: BSC's useful (ideal, max) exactly, its ideal runtime within 0.005%.
    let ideal: Vec<(f64, f64)> = runs.iter().map(|r| r.ideal_us.clone().unwrap()).collect();
    for (k, (runtime, useful)) in [
        (21_884_758.97, 21_884_758.97),
        (11_504_370.09, 11_486_234.50),
        (6_051_059.08, 6_002_862.00),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(
            (ideal[k].1 - useful).abs() < 0.01,
            "run {k}: {:?}",
            ideal[k]
        );
        assert!(
            (ideal[k].0 - runtime).abs() / runtime < 5e-5,
            "run {k}: {:?}",
            ideal[k]
        );
    }
    // MPI only: no OpenMP figures, no hybrid rows; one application, replayed.
    assert!(runs.iter().all(|r| r.openmp.is_none()));
    assert!(runs.iter().all(|r| r.caveats().is_empty()));
    let text = pop::csv(&runs);
    assert!(!text.contains("OpenMP"), "{text}");
    assert!(text.starts_with("Number of processes;1;2;4\nParallel efficiency;99.9255"));
    assert!(
        text.contains("\nSerialization efficiency;100.000000;99.8"),
        "{text}"
    );
}

#[test]
fn a_cut_two_application_trace_says_what_its_metrics_cannot_mean() {
    let Some(dir) = common::shared().map(|s| s.join("traces")) else {
        return;
    };
    let path =
        dir.join("profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv");
    let trace =
        prvscope_import::load(&path, &prvscope_import::LoadOptions::default(), None).unwrap();
    let f = pop::figures(&trace).unwrap();
    assert_eq!(f.applications, 2);
    let caveats = f.caveats();
    assert_eq!(caveats.len(), 2, "{caveats:?}");
    assert!(caveats[0].starts_with("2 applications: their 20 processes are taken together"));
    // A cut trace: messages whose other end was cut away never arrive in the replay.
    assert!(caveats[1].starts_with("no ideal-network figures: the replay cannot go on"));
}

//! The viewer refuses what paramedir refuses, with paramedir's reason: a cfg whose filters
//! match no event of the trace, a cfg Paraver cannot load. Checked on every shared trace
//! against BSC paramedir's own outcomes (`reference/paramedir/INDEX.tsv`), and in the window
//! on an ovni trace opened with an MPI cfg.

use std::path::Path;
use std::sync::Arc;

use egui_kittest::kittest::Queryable;
use prvscope_paraver::cfg::Cfg;
use prvscope_paraver::paramedir::{self, Context, Error};
use prvscope_paraver::window::WindowCache;
use prvscope_viewer::loader::LoadSource;

use crate::common::{load, shared_traces};
use crate::viewer::harness_with;

const TRACES: [(&str, &str); 6] = [
    ("extrae_mpi_prime16", "extrae_mpi_prime16/prime_v0.prv"),
    (
        "extrae_omp_jacobi24",
        "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
    ),
    (
        "profet_lulesh_2appl_comms",
        "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
    ),
    (
        "pypop_imagemagick_omp4",
        "pypop_imagemagick_omp4/omp4.prv.gz",
    ),
    ("epoch_1proc", "pypop_epoch_scaling/epoch_1proc.prv.gz"),
    ("epoch_2proc", "pypop_epoch_scaling/epoch_2proc.prv.gz"),
];

#[test]
fn every_cfg_paramedir_refuses_the_viewer_refuses_with_the_same_reason() {
    let _shared = crate::common::shared();
    let Some(shared) = shared_traces() else {
        return;
    };
    let index = std::fs::read_to_string(shared.join("../reference/paramedir/INDEX.tsv")).unwrap();
    let cfgs = shared.join("../paraver_cfgs");
    let (mut refused, mut read) = (0, 0);
    for (name, file) in TRACES {
        let trace = load(&shared.join(file));
        let ctx = Context::new(&trace);
        for line in index.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            if f[0] != name {
                continue;
            }
            let (cfg, status, message) = (f[1], f[3], f.get(7).copied().unwrap_or(""));
            let path = cfgs.join(cfg);
            let text = std::fs::read_to_string(&path).unwrap();
            let no_events = message.contains("None of the events specified");
            let cannot_load = message.contains("Cannot load");
            let run_cfg = || {
                prvscope_viewer::histogram::run_cfg(
                    &trace,
                    Arc::new(WindowCache::for_machine()),
                    &path,
                )
                .err()
                .unwrap_or_else(|| {
                    panic!("{name} {cfg}: the viewer computed what paramedir refuses")
                })
            };
            let parsed = match Cfg::parse(&path.display().to_string(), &text) {
                Ok(parsed) => parsed,
                Err(e) => {
                    // Not a cfg at all (a Dimemas configuration): Paraver cannot load it.
                    assert!(cannot_load, "{name} {cfg}: {e}, BSC: {status} {message}");
                    assert_eq!(run_cfg(), e.to_string());
                    refused += 1;
                    continue;
                }
            };
            if status == "failed" && (no_events || cannot_load) {
                refused += 1;
                // The command line and the viewer refuse alike, in the same words.
                let cli = paramedir::compute(&trace, &parsed, &paramedir::Options::default())
                    .expect_err(cfg)
                    .to_string();
                let viewer = run_cfg();
                assert_eq!(viewer, cli, "{name} {cfg}");
                let said = if no_events {
                    "None of the events specified in the filter appear in the trace. File \
                     creation aborted."
                } else {
                    "Cannot load"
                };
                assert!(
                    viewer.contains(said),
                    "{name} {cfg}: {viewer} (BSC: {message})"
                );
            } else if status.starts_with("ok") {
                // What paramedir computes the viewer does not refuse as paramedir would.
                read += 1;
                match ctx.check(&parsed) {
                    Ok(_) | Err(Error::Unsupported { .. }) => {}
                    Err(e) => panic!("{name} {cfg}: paramedir computes it, we refuse: {e}"),
                }
            }
        }
    }
    // 1,854 refusals without an event of the filter and 42 cfgs Paraver cannot load.
    assert!(refused > 1800, "{refused}");
    assert!(read > 2000, "{read}");
}

/// An MPI cfg on an ovni trace (no MPI event): no table of one "Unknown" column at 100%, but
/// a window that says why, in paramedir's words.
#[test]
fn an_mpi_cfg_on_an_ovni_trace_opens_a_window_with_paramedirs_refusal() {
    let _shared = crate::common::shared();
    let Some(shared) = shared_traces() else {
        return;
    };
    let trace = shared.join("ovni_nanos6-task-types/thread.prv");
    // The window shows the cfg's path: one that is the same in every checkout, for the
    // snapshot.
    let dir = std::env::temp_dir().join("prvscope-cfg-refused");
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("mpi_stats.cfg");
    std::fs::copy(
        shared.join("../paraver_cfgs/paraver/mpi/analysis/mpi_stats.cfg"),
        &cfg,
    )
    .unwrap();
    // paramedir on the command line refuses it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("paramedir")
        .arg(&trace)
        .arg(&cfg)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("None of the events specified in the filter appear in the trace"),
        "{err}"
    );

    let mut h = harness_with(LoadSource::File(trace), None, (1400.0, 800.0), false);
    h.run_steps(3);
    let ctx = h.ctx.clone();
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    assert!(h.state().histograms().is_empty(), "no table");
    assert!(
        h.state().status().contains("None of the events specified"),
        "{}",
        h.state().status()
    );
    crate::common::window_titled(&h, "Configuration mpi_stats.cfg");
    h.get_by_label("Not computed, as paramedir refuses it:");
    assert!(
        h.query_all_by_label_contains("None of the events specified in the filter appear")
            .count()
            >= 1
    );
    h.snapshot("cfg_refused_mpi_stats_on_ovni");
}

/// A cfg whose filter names some events the trace lacks is computed, and the window says
/// what paramedir warns.
#[test]
fn a_cfg_with_some_filter_events_missing_is_computed_and_the_warning_shown() {
    let _shared = crate::common::shared();
    let Some(shared) = shared_traces() else {
        return;
    };
    let mut h = harness_with(
        LoadSource::File(shared.join("extrae_mpi_prime16/prime_v0.prv")),
        None,
        (1400.0, 800.0),
        false,
    );
    h.run_steps(3);
    let ctx = h.ctx.clone();
    let cfg = Path::new(&shared).join("../paraver_cfgs/paraver/CUDA/views/cuda_views.cfg");
    h.state_mut().open_cfg(&ctx, cfg);
    h.state_mut().wait_for_cfg(&ctx);
    h.run_steps(3);
    h.get_by_label(
        "paramedir: Some of the events specified in the filter doesn't appear in the trace.",
    );
}

//! "Save view as Paraver cfg": the cfg written for a view is computed by BSC's paramedir
//! (paraver-kernel abbc7c3, built with `../shared/tools/build-paramedir.sh`, outputs in
//! `tests/fixtures/saved_view/`) as by prvscope's engine, and gives what the view shows.

#![allow(clippy::unwrap_used)]

use std::path::Path;

mod common;

use prvscope_paraver::cfg::Cfg;
use prvscope_paraver::cfg::Level;
use prvscope_paraver::paramedir::{Context, Options, OutcomeKind};
use prvscope_paraver::save::{View, ViewKind, view_cfg};

/// The views saved: prime's states on its threads over the middle of the run, and its MPI
/// calls on its CPUs over the whole run.
fn views(end: u64) -> Vec<(&'static str, View)> {
    vec![
        (
            "state_threads",
            View {
                name: "State".into(),
                kind: ViewKind::States,
                level: Level::Thread,
                window: (end * 3 / 10, end * 7 / 10),
                end_time: end,
                draw_mode: "draw_last",
                gradient: false,
            },
        ),
        (
            "mpi_cpus",
            View {
                name: "MPI call".into(),
                kind: ViewKind::Events(prvscope_format::catalog::MPI_CALL_TYPES.to_vec()),
                level: Level::Cpu,
                window: (0, end),
                end_time: end,
                draw_mode: "draw_last",
                gradient: false,
            },
        ),
    ]
}

#[test]
fn a_saved_view_is_computed_by_paramedir_as_by_prvscope() {
    let Some(shared) = common::shared() else {
        return;
    };
    let path = shared.join("traces/extrae_mpi_prime16/prime_v0.prv");
    let trace =
        prvscope_import::load(&path, &prvscope_import::LoadOptions::default(), None).unwrap();
    let end = trace.header.end_time;
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("saved_view");
    std::fs::create_dir_all(&out).unwrap();
    // Written where BSC's paramedir read them for the fixtures.
    for (name, view) in views(end) {
        std::fs::write(out.join(format!("{name}.cfg")), view_cfg(&view)).unwrap();
    }
    let ctx = Context::new(&trace);
    for (name, view) in views(end) {
        let text = view_cfg(&view);
        let cfg = Cfg::parse(&format!("{name}.cfg"), &text).unwrap();
        let outcome = ctx.compute(&cfg, &Options::default()).unwrap();
        let OutcomeKind::Timeline { one, .. } = outcome.kind else {
            panic!("{name}: a timeline");
        };
        let theirs = common::gunzip(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/saved_view")
                .join(format!("{name}.csv.gz")),
        );
        assert!(one == theirs, "{name}: differs from BSC's paramedir");
        // The window is the view's.
        let first = one.lines().next().unwrap();
        let begin: f64 = first.split('\t').nth(1).unwrap().parse().unwrap();
        assert!(begin <= view.window.0 as f64 + 1.0, "{first}");
        if name == "state_threads" {
            // Every state interval is the state the store holds there.
            for line in one.lines().take(2000) {
                let f: Vec<&str> = line.split('\t').collect();
                let thread = f[0].split('.').nth(1).unwrap().parse::<usize>().unwrap() - 1;
                let t = f[1].parse::<f64>().unwrap() as u64;
                let value = f[3].parse::<f64>().unwrap() as u64;
                let held = trace
                    .store
                    .states_in(thread, t, t + 1)
                    .last()
                    .map_or(0, |s| s.2);
                assert_eq!(value, held, "{line}");
            }
        }
    }
}

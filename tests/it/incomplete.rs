//! Incomplete input is said where the user looks: a trace without its `.pcf` or `.row`, and
//! a file cut short (its records stop before its header's duration), in `info`, in the
//! notes of every command, in the viewer's side panel, status line and load report; and the
//! time after a cut-short file's last record is in no scope.

use std::path::{Path, PathBuf};
use std::process::Command;

use egui_kittest::kittest::Queryable;
use prvscope_viewer::loader::LoadSource;

use crate::common::{load, shared_traces, temp_dir};
use crate::viewer::harness_with;

/// `prime_v0` cut at a third of its lines, with its `.pcf` and without its `.row`.
fn prime_cut_short(shared: &Path) -> PathBuf {
    let dir = temp_dir("incomplete-prime");
    let prime = shared.join("extrae_mpi_prime16/prime_v0.prv");
    let text = std::fs::read_to_string(&prime).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let kept = lines[..lines.len() / 3].join("\n") + "\n";
    let out = dir.join("prime_cut.prv");
    std::fs::write(&out, kept).unwrap();
    std::fs::copy(prime.with_extension("pcf"), dir.join("prime_cut.pcf")).unwrap();
    out
}

fn prvscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .args(args)
        .arg("--no-cache")
        .output()
        .unwrap()
}

#[test]
fn a_file_cut_short_and_a_missing_row_file_are_said_and_no_call_holds_after_the_cut() {
    let _shared = crate::common::shared();
    let Some(shared) = shared_traces() else {
        return;
    };
    let path = prime_cut_short(&shared);
    let t = load(&path);
    let end = t.header.end_time;
    let last = t.records_cut_short().expect("cut short");
    assert!(last < end / 2, "{last} of {end}");
    let notes = t.incomplete();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].starts_with("no .row beside prime_cut.prv"),
        "{notes:?}"
    );
    assert!(
        notes[1].starts_with(&format!("the records stop at {last} ticks")),
        "{notes:?}"
    );
    // The whole trace is still a complete one.
    let whole = load(&shared.join("extrae_mpi_prime16/prime_v0.prv"));
    assert_eq!(whole.incomplete(), Vec::<String>::new());

    // No scope holds after the last record: every thread's scopes fit before it.
    let (_, a) = crate::common::whole_trace_scopes(&t);
    for s in &a.scopes {
        for &ticks in &s.inclusive_per_thread {
            assert!(ticks <= last, "{}: {ticks} of {last}", s.name);
        }
    }
    let bcast = a.scopes.iter().find(|s| s.name == "MPI_Bcast").unwrap();
    assert!(
        (bcast.inclusive as f64 / a.threads_ticks()) < 0.2,
        "MPI_Bcast {} of {}",
        bcast.inclusive,
        a.threads_ticks()
    );

    // The command line says so.
    let p = path.display().to_string();
    let info = prvscope(&["info", &p]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        text.contains(&format!("records        stop at {last} ticks")),
        "{text}"
    );
    assert!(text.contains(".row missing"), "{text}");
    let scopes = prvscope(&["scopes", &p]);
    assert!(scopes.status.success());
    let err = String::from_utf8_lossy(&scopes.stderr);
    assert!(err.contains("note: the records stop at"), "{err}");
    assert!(err.contains("note: no .row beside"), "{err}");

    // So does the viewer: the side panel, the status line and the load report, opened.
    let mut h = harness_with(LoadSource::File(path.clone()), None, (1400.0, 900.0), false);
    h.run_steps(3);
    assert!(
        h.state().status().contains("the records stop at"),
        "{}",
        h.state().status()
    );
    assert!(
        h.query_all_by_label_contains("no .row beside prime_cut.prv")
            .count()
            >= 2
    );
    crate::common::window_titled(&h, "Load report");
    h.get_by_label("Every record of the file was read.");
}

#[test]
fn a_trace_without_side_files_says_so_in_the_viewer() {
    let _shared = crate::common::shared();
    let Some(shared) = shared_traces() else {
        return;
    };
    let dir = temp_dir("incomplete-bare");
    let bare = dir.join("bare.prv");
    std::fs::copy(shared.join("extrae_mpi_prime16/prime_v0.prv"), &bare).unwrap();
    let t = load(&bare);
    let notes = t.incomplete();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].starts_with("no .pcf beside bare.prv"));
    assert!(notes[1].starts_with("no .row beside bare.prv"));
    let mut h = harness_with(LoadSource::File(bare), None, (1400.0, 900.0), false);
    h.run_steps(3);
    assert!(h.state().status().contains("no .pcf beside bare.prv"));
    // The report is not opened for side files alone; it lists them.
    assert!(
        h.query_by_label("Every record of the file was read.")
            .is_none()
    );
    crate::dialogs::menu(&mut h, "View", "Load report");
    h.get_by_label("Every record of the file was read.");
    assert!(
        h.query_all_by_label_contains("no .pcf beside bare.prv")
            .count()
            >= 2
    );
}

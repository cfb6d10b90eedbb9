//! Records on a CPU that Paraver refuses for their task: prime's records moved, one in seven
//! to a CPU of another node, one in thirteen to CPU 99 (the header has 16). BSC's paramedir
//! (paraver-kernel abbc7c3, built with `../shared/tools/build-paramedir.sh`) printed "Error
//! reading state/event record" for 590 of them and computed the files of
//! `tests/fixtures/misplaced_cpus/` without them; prvscope counts the same 590 in the load
//! report and computes the same files.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

mod common;

use prvscope_import::IssueKind;
use prvscope_paraver::cfg::Cfg;
use prvscope_paraver::paramedir::{Context, Options};

/// Prime with the CPU field of some records changed, as the fixtures were computed from
/// (the `.pcf` and `.row` copied beside it).
fn misplaced_prime(shared: &Path) -> PathBuf {
    let dir = shared.join("traces/extrae_mpi_prime16");
    let text = std::fs::read_to_string(dir.join("prime_v0.prv")).unwrap();
    let mut out = String::with_capacity(text.len());
    let mut n = 0u32;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == 0 || !line.starts_with(['1', '2', '3']) {
            out.push_str(line);
            continue;
        }
        n += 1;
        let mut f: Vec<&str> = line.split(':').collect();
        if n.is_multiple_of(7) {
            // CPU 14 is node 2's; task 14 runs there, so it goes to CPU 1 (node 1) instead.
            f[1] = if f[1] == "14" { "1" } else { "14" };
        } else if n.is_multiple_of(13) {
            f[1] = "99";
        }
        out.push_str(&f.join(":"));
    }
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("misplaced_cpus");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(tmp.join("prime.prv"), out).unwrap();
    for ext in ["pcf", "row"] {
        std::fs::copy(
            dir.join(format!("prime_v0.{ext}")),
            tmp.join(format!("prime.{ext}")),
        )
        .unwrap();
    }
    tmp.join("prime.prv")
}

fn fixture(name: &str) -> String {
    common::gunzip(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/misplaced_cpus")
            .join(format!("{name}.txt.gz")),
    )
}

#[test]
fn records_paraver_refuses_for_their_cpu_are_counted_and_left_out_as_paramedir_does() {
    let Some(shared) = common::shared() else {
        return;
    };
    let path = misplaced_prime(&shared);
    let trace = prvscope_import::load(&path, &prvscope_import::LoadOptions::default(), None)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // paramedir: 292 "Error reading state record", 298 "Error reading event record".
    assert_eq!(
        trace.report.count(IssueKind::CpuOutsideTaskNode),
        590,
        "{:?}",
        trace.report.warnings()
    );
    let c = trace.store.counts();
    // The whole trace has 1407 states; 292 state lines were refused.
    assert_eq!(c.states, 1407 - 292);
    let ctx = Context::new(&trace);
    for (file, name) in [
        ("mpi/analysis/mpi_stats.cfg", "mpi_stats"),
        (
            "General/analysis/2dh_useful_duration.cfg",
            "2dh_useful_duration",
        ),
        ("mpi/views/MPI_call_duration.cfg", "MPI_call_duration"),
    ] {
        let cfg_path = shared.join("paraver_cfgs/paraver").join(file);
        let text = std::fs::read_to_string(&cfg_path).unwrap();
        let cfg = Cfg::parse(&cfg_path.to_string_lossy(), &text).unwrap();
        let out = ctx.compute(&cfg, &Options::default()).unwrap();
        assert!(
            out.text() == fixture(name),
            "{file}: not paramedir's output"
        );
    }
}

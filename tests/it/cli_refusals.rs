//! The command line refuses what it cannot compute as asked, with a non-zero exit and the
//! reason on stderr, rather than printing a number that means nothing.

use std::path::Path;
use std::process::{Command, Output};

fn prvscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .args(args)
        .arg("--no-cache")
        .output()
        .unwrap()
}

fn prime(shared: &Path) -> String {
    shared
        .join("extrae_mpi_prime16/prime_v0.prv")
        .display()
        .to_string()
}

#[test]
fn stats_of_a_type_the_trace_does_not_have_is_refused() {
    let Some(shared) = crate::common::shared_traces() else {
        return;
    };
    let out = prvscope(&["stats", &prime(&shared), "--type", "99999"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "no table printed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no event of type 99999"), "{err}");
    assert!(
        err.contains("50000002"),
        "the types it has are listed: {err}"
    );
    // A type it has is fine.
    let ok = prvscope(&["stats", &prime(&shared), "--type", "50000002"]);
    assert!(ok.status.success());
    // Of several scope types, the absent ones are named in a note and the table holds the
    // rest; only when none is present is the table refused.
    let out = prvscope(&[
        "scopes",
        &prime(&shared),
        "--types",
        "50000001,50000002,99999",
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no event of type 50000001, 99999 in the trace; the table holds the other"),
        "{err}"
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("MPI_"), "{table}");
    let out = prvscope(&["scopes", &prime(&shared), "--types", "99999,99998"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "no table printed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no event of type 99999, 99998"), "{err}");
    let out = prvscope(&["scopes", &prime(&shared), "--types", "50000002:nest"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`stack`, `hold` or `replace`"), "{err}");
}

#[test]
fn paramedir_help_exits_zero() {
    let out = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .args(["paramedir", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("usage: prvscope paramedir"));
}

#[test]
fn pop_of_a_region_is_that_of_the_cut_trace_and_an_empty_region_is_refused() {
    let Some(shared) = crate::common::shared_traces() else {
        return;
    };
    let epoch = shared
        .join("pypop_epoch_scaling/epoch_1proc.prv.gz")
        .display()
        .to_string();
    let out = prvscope(&[
        "pop",
        &epoch,
        "--csv",
        "--from",
        "5000000000",
        "--to",
        "10000000000",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    let trace = prvscope_import::load(
        Path::new(&epoch),
        &prvscope_import::LoadOptions::default(),
        None,
    )
    .unwrap();
    let region =
        prvscope_paraver::pop::figures_in(&trace, Some((5_000_000_000, 10_000_000_000))).unwrap();
    assert_eq!(csv, prvscope_paraver::pop::csv(&[region]));
    assert!(csv.contains("Global efficiency;99.9"), "{csv}");
    let out = prvscope(&["pop", &epoch, "--from", "7", "--to", "7"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
}

#[test]
fn paramedir_says_when_a_trace_has_null_values_paraver_does_not_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = crate::common::temp_dir("paramedir-nulls");
    let cfg = root.join("benches/cfgs/state_histogram.cfg");
    let run = |trace: &Path| {
        Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .arg("paramedir")
            .arg(trace)
            .arg(&cfg)
            .arg(dir.join("out.txt"))
            .output()
            .unwrap()
    };
    // The demo writes `N` where a function ends.
    let out = run(&root.join("assets/demo/demo.prv"));
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("values are `N` (null)"), "{err}");
    let Some(shared) = crate::common::shared_traces() else {
        return;
    };
    let out = run(Path::new(&prime(&shared)));
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("(null)"));
}

/// `prvscope paramedir` on a trace with `N` values computes what BSC's paramedir computes:
/// on the text as BSC reads it, an `N` as 0 and the byte after it as the next field's start
/// (the pairs after it shift; `prvscope_paraver::bsc_reading`). Here against the same trace
/// with each event line written by hand as paraver-kernel's `prv_atoll_v` reads it (checked
/// with BSC's paramedir: its outputs on both files are these), and unlike the trace with its
/// `N` written as 0 in place.
#[test]
fn paramedir_reads_null_values_as_bscs_paramedir_does() {
    let Some(shared) = crate::common::shared_traces() else {
        return;
    };
    let cfgs = shared.join("../paraver_cfgs");
    let dir = crate::common::temp_dir("paramedir-bsc-reading");
    let head = "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:1(2:1)\n\
                1:1:1:1:1:0:400:1\n1:2:1:1:2:0:600:1\n";
    let tail = |a: &str, b: &str, c: &str, d: &str| {
        format!(
            "{head}2:1:1:1:1:100:{a}\n2:2:1:1:2:150:{b}\n1:1:1:1:1:400:1000:2\n\
             2:1:1:1:1:500:{c}\n1:2:1:1:2:600:1000:2\n2:2:1:1:2:700:{d}\n"
        )
    };
    let files = [
        ("n", tail("7:N:8:5:9:1", "7:N:8:N:9:3", "7:N", "7:4:8:N")),
        (
            "bsc",
            tail("7:0:0:8:5:9", "7:0:0:8:0:0:9:3", "7:0", "7:4:8:0"),
        ),
        ("zero", tail("7:0:8:5:9:1", "7:0:8:0:9:3", "7:0", "7:4:8:0")),
    ];
    let pcf = "STATES\n0    Idle\n1    Running\n2    Other\n\nNULL_VALUE N\n";
    for (name, text) in &files {
        std::fs::write(dir.join(format!("{name}.prv")), text).unwrap();
        std::fs::write(dir.join(format!("{name}.pcf")), pcf).unwrap();
    }
    for cfg in [
        "paraver/nanox/general/views/one.cfg",
        "paraver/General/sanity_checks/Events_too_close.cfg",
    ] {
        let output = |name: &str| {
            let out = Command::new(env!("CARGO_BIN_EXE_prvscope"))
                .arg("paramedir")
                .arg(dir.join(format!("{name}.prv")))
                .arg(cfgs.join(cfg))
                .arg(dir.join(format!("{name}.txt")))
                .output()
                .unwrap();
            assert!(out.status.success(), "{name} {cfg}: {out:?}");
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            let text = std::fs::read_to_string(dir.join(format!("{name}.txt.csv"))).unwrap();
            (text, err)
        };
        let (n, err) = output("n");
        assert!(
            err.contains("read as BSC's paramedir reads them")
                && err.contains("4 event lines with an `N` among their pairs, 1 of them losing"),
            "{err}"
        );
        let (bsc, _) = output("bsc");
        let (zero, _) = output("zero");
        assert_eq!(n, bsc, "{cfg}");
        assert_ne!(n, zero, "{cfg}: the shift changes nothing here");
    }
}

/// `prvscope paramedir --cutter` on a trace with `N` values writes what BSC's cutter writes:
/// each record's fields as BSC's cutter reads them (an event's pairs shifted after an `N`,
/// a pair that fails written with the value left from the pair before, a state's `N` as 0).
/// Here against the same trace written by hand as `KTraceCutter` reads it (checked with
/// BSC's paramedir: its cuts of both files are this one), past the cutter's comment line.
#[test]
fn paramedir_cuts_null_values_as_bscs_cutter_does() {
    let dir = crate::common::temp_dir("paramedir-bsc-cutter");
    let text = |a: &str, b: &str, s: &str, c: &str, d: &str| {
        format!(
            "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:1(2:1)\n\
             1:1:1:1:1:0:400:1\n1:2:1:1:2:0:600:1\n2:1:1:1:1:100:{a}\n2:2:1:1:2:150:{b}\n\
             1:1:1:1:1:400:1000:{s}\n2:1:1:1:1:500:{c}\n1:2:1:1:2:600:1000:2\n\
             2:2:1:1:2:700:{d}\n"
        )
    };
    let files = [
        (
            "n",
            text("7:N:8:5:9:1", "7:N:8:N:9:3", "N", "7:N", "7:4:8:N"),
        ),
        (
            "bsc",
            text("7:0:0:8:5:9:1:9", "7:0:0:8:0:0:9:3", "0", "7:0", "7:4:8:0"),
        ),
    ];
    let pcf = "STATES\n0    Idle\n1    Running\n2    Other\n\nNULL_VALUE N\n";
    let xml = dir.join("cut.xml");
    std::fs::write(
        &xml,
        prvscope_paraver::cut::CutterOptions::by_time(50, 900).to_xml(),
    )
    .unwrap();
    let mut cuts = Vec::new();
    for (name, text) in &files {
        let trace = dir.join(format!("{name}.prv"));
        std::fs::write(&trace, text).unwrap();
        std::fs::write(dir.join(format!("{name}.pcf")), pcf).unwrap();
        let out = dir.join(format!("{name}.cut.prv"));
        let _ = std::fs::remove_file(&out);
        let run = Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .args(["paramedir", "--cutter"])
            .arg(&trace)
            .arg(&xml)
            .arg("--output-name")
            .arg(&out)
            .output()
            .unwrap();
        assert!(run.status.success(), "{name}: {run:?}");
        let err = String::from_utf8_lossy(&run.stderr).into_owned();
        if *name == "n" {
            assert!(
                err.contains("written as BSC's cutter reads them")
                    && err.contains("5 lines with an `N`, 1 of them with a pair that fails"),
                "{err}"
            );
            // The comment line names the trace given, not the text read.
            let cut = std::fs::read_to_string(&out).unwrap();
            assert!(cut.contains(&format!("{}\"", trace.display())), "{cut}");
        }
        let cut = std::fs::read_to_string(&out).unwrap();
        cuts.push(cut.lines().skip(2).collect::<Vec<_>>().join("\n"));
    }
    assert_eq!(cuts[0], cuts[1]);
    assert!(
        cuts[0].contains("2:1:1:1:1:50:7:0:0:8:5:9:1:9"),
        "{}",
        cuts[0]
    );
}

//! Writing traces: `prvscope cut` of the middle third and of the whole of the generated 1 GB
//! trace (its legacy form, zeros instead of `N`, which BSC's tools read), beside, in the same
//! run, `cp` of the output, `cp` of the trace, and BSC's cutter (`paramedir --cutter`, when
//! `build-paramedir.sh` built it: one run, with its output compared record for record);
//! and a `.xz` cut of a thirtieth of the trace beside `xz -T0 -6` of the same text.
//!
//! Every command runs as its user runs it, as a process, the trace converted into the store
//! cache once before the timings. Run with `cargo bench --bench cut`; `PARAMEDIR=path` names
//! another BSC paramedir.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::Criterion;

use prvscope_import::synth::{self, GenOptions};

#[path = "load.rs"]
#[allow(dead_code)]
mod load;

const PRVSCOPE: &str = env!("CARGO_BIN_EXE_prvscope");

fn trace() -> PathBuf {
    let path = load::bench_data().join("gen_1gb_legacy.prv");
    if !path.exists() {
        let opts = GenOptions {
            target_bytes: 1_000_000_000,
            legacy: true,
            ..GenOptions::default()
        };
        synth::generate(&path, &opts).expect("generating the bench trace");
    }
    path
}

fn run(program: &str, args: &[&str]) -> Duration {
    let started = Instant::now();
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    started.elapsed()
}

fn duration_of(trace: &Path) -> u64 {
    let text = std::fs::read(trace).expect("the trace");
    let line = text.split(|&b| b == b'\n').next().unwrap_or_default();
    let header = prvscope_format::Header::parse(line).expect("its header");
    header.end_time
}

/// The records of a `.prv` (see `crates/paraver/tests/naive_tools`): states, event pairs,
/// communications, sorted; comment lines left out; `N` read as 0, as BSC's tools read it
/// (the generated trace has a few even in its legacy form).
fn records(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("a cut");
    let mut out: Vec<String> = Vec::new();
    for l in text.lines().skip(1) {
        if l.is_empty() || l.starts_with('#') || l.starts_with('c') {
            continue;
        }
        if l.starts_with('2') {
            let f: Vec<&str> = l.split(':').collect();
            let base = f[..6].join(":");
            for p in f[6..].chunks(2) {
                let v = p.get(1).copied().unwrap_or("");
                out.push(format!(
                    "{base}:{}:{}",
                    p[0],
                    if v == "N" { "0" } else { v }
                ));
            }
        } else {
            out.push(l.to_owned());
        }
    }
    out.sort_unstable();
    out
}

#[allow(clippy::many_single_char_names)]
fn main() {
    let mut c = Criterion::default().configure_from_args().sample_size(10);
    let trace = trace();
    let t = trace.to_string_lossy().into_owned();
    // Converted into the store cache once.
    run(PRVSCOPE, &["info", &t]);
    let d = duration_of(&trace);
    let (a, b) = ((d / 3).to_string(), (d / 3 * 2).to_string());
    let dir = load::bench_data().join("cut");
    std::fs::create_dir_all(&dir).expect("bench folder");
    let out = dir.join("middle.prv").to_string_lossy().into_owned();
    let copy = dir.join("copy.prv").to_string_lossy().into_owned();
    let mut g = c.benchmark_group("cut_1gb_middle_third");
    g.bench_function("prvscope_cut", |bench| {
        bench.iter(|| run(PRVSCOPE, &["cut", &t, "--from", &a, "--to", &b, "-o", &out]));
    });
    g.bench_function("cp_of_the_output", |bench| {
        bench.iter(|| run("cp", &[&out, &copy]));
    });
    g.bench_function("cp_of_the_trace", |bench| {
        bench.iter(|| run("cp", &[&t, &copy]));
    });
    g.bench_function("prvscope_cut_whole", |bench| {
        bench.iter(|| run(PRVSCOPE, &["cut", &t, "-o", &out]));
    });
    g.finish();
    let whole = run(PRVSCOPE, &["cut", &t, "-o", &out]);
    let cp_trace = run("cp", &[&t, &copy]);
    println!(
        "cut of the whole trace: {:.2} s; cp of the trace: {:.2} s ({:.1}x)",
        whole.as_secs_f64(),
        cp_trace.as_secs_f64(),
        whole.as_secs_f64() / cp_trace.as_secs_f64().max(1e-9)
    );
    let ours = run(PRVSCOPE, &["cut", &t, "--from", &a, "--to", &b, "-o", &out]);
    let cp = run("cp", &[&out, &copy]);
    let size = std::fs::metadata(&out).map_or(0, |m| m.len());
    println!(
        "cut of the middle third: {:.2} s for {:.0} MB of text; cp of it: {:.2} s ({:.1}x); \
         of the trace: {:.1}x",
        ours.as_secs_f64(),
        size as f64 / 1e6,
        cp.as_secs_f64(),
        ours.as_secs_f64() / cp.as_secs_f64().max(1e-9),
        ours.as_secs_f64() / cp_trace.as_secs_f64().max(1e-9)
    );
    let paramedir = std::env::var_os("PARAMEDIR").map_or_else(
        || {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default()
                .join(".local/paramedir/bin/paramedir")
        },
        PathBuf::from,
    );
    if paramedir.exists() {
        let xml = dir.join("cutter.xml");
        let opts = prvscope_paraver::cut::CutterOptions::by_time(d / 3, d / 3 * 2);
        std::fs::write(&xml, opts.to_xml()).expect("the cutter xml");
        let bsc_out = dir.join("bsc.prv");
        let bsc = run(
            &paramedir.to_string_lossy(),
            &[
                "--cutter",
                &t,
                &xml.to_string_lossy(),
                "--output-name",
                &bsc_out.to_string_lossy(),
            ],
        );
        let same = records(&bsc_out) == records(Path::new(&out));
        println!(
            "BSC's cutter: {:.2} s ({:.1}x prvscope's); its records {} ours",
            bsc.as_secs_f64(),
            bsc.as_secs_f64() / ours.as_secs_f64().max(1e-9),
            if same { "are" } else { "DIFFER from" }
        );
    } else {
        println!(
            "BSC's paramedir not found ({}): not compared",
            paramedir.display()
        );
    }
    // .xz: a thirtieth of the trace (xz takes a minute on 30 MB on two cores).
    let e = (d / 3 + d / 30).to_string();
    let small = dir.join("small.prv").to_string_lossy().into_owned();
    let small_xz = dir.join("small.prv.xz").to_string_lossy().into_owned();
    run(
        PRVSCOPE,
        &["cut", &t, "--from", &a, "--to", &e, "-o", &small],
    );
    let ours_xz = run(
        PRVSCOPE,
        &["cut", &t, "--from", &a, "--to", &e, "-o", &small_xz],
    );
    let theirs_xz = run("xz", &["-T0", "-6", "-k", "-f", &small]);
    println!(
        ".xz cut of a thirtieth: {:.1} s; xz -T0 -6 of the same text: {:.1} s ({:.2}x)",
        ours_xz.as_secs_f64(),
        theirs_xz.as_secs_f64(),
        ours_xz.as_secs_f64() / theirs_xz.as_secs_f64().max(1e-9)
    );
    c.final_summary();
}

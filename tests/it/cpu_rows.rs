//! CPU and node rows (Paraver's system levels): one row per CPU or node of the header, each
//! CPU showing the thread that ran there; ovni's thread trace on its CPUs is ovni's own CPU
//! trace; a hand-made trace checks who holds a CPU when threads meet there, and that records
//! on CPU 0 are reported, not drawn.

use std::process::Command;

use prvscope_store::placement::{Placement, PlacementSource};
use prvscope_store::signal::SignalSpec;
use prvscope_viewer::render::{self, RenderOptions};
use prvscope_viewer::rows::Level;

use crate::common::{load, shared_traces, temp_dir, temp_file};

fn options(view: SignalSpec, level: Level, width: u32) -> RenderOptions {
    RenderOptions {
        view,
        mode: None,
        level,
        from: None,
        to: None,
        width,
        height: 600,
        comms: false,
        scale: prvscope_viewer::view::Scale::Fit,
        log: false,
    }
}

/// Asserts that a command succeeded, with its standard error if not.
fn succeeded(run: &std::process::Output) {
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// (row label, values per column; `None` for null) of a render.
fn values(t: &prvscope_store::Trace, opts: &RenderOptions) -> Vec<(String, Vec<Option<u64>>)> {
    let r = render::render(t, opts).unwrap();
    r.rows
        .iter()
        .zip(&r.pixels)
        .map(|(item, px)| {
            (
                item.label.clone(),
                px.iter()
                    .map(|p| (!r.coloring.is_null(p.value)).then_some(p.value))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn prime_has_a_row_per_cpu_and_node_of_its_header_and_each_cpu_shows_its_thread() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let prv = root.join("extrae_mpi_prime16/prime_v0.prv");
    let out = temp_dir("cpu_rows");
    let csv = out.join("cpu.csv");
    let run = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("render")
        .arg(&prv)
        .args(["--level", "cpu", "--width", "200", "-o"])
        .arg(out.join("cpu.png"))
        .arg("--values-csv")
        .arg(&csv)
        .output()
        .unwrap();
    succeeded(&run);
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: std::collections::BTreeSet<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(rows.len(), 16, "one row per CPU: 4 nodes of 13, 1, 1 and 1");
    let t = load(&prv);
    let placement = Placement::of(&t).unwrap();
    assert_eq!(placement.source, PlacementSource::Records);
    assert_eq!(placement.cpus.len(), 16);
    assert_eq!(
        placement
            .nodes
            .iter()
            .map(|(_, cpus)| cpus.len())
            .collect::<Vec<_>>(),
        [13, 1, 1, 1]
    );
    // The labels are the .row file's (its CPU names are the node's host name).
    assert!(placement.cpus[0].contains("c7101"), "{}", placement.cpus[0]);
    // Each task ran on a CPU of its own, in order: CPU k shows thread k pixel for pixel.
    let by_cpu = values(&t, &options(SignalSpec::States, Level::Cpu, 300));
    let by_thread = values(&t, &options(SignalSpec::States, Level::Thread, 300));
    for (k, ((_, cpu), (_, thread))) in by_cpu.iter().zip(&by_thread).enumerate() {
        assert_eq!(cpu, thread, "CPU {k}");
    }
    let by_node = values(&t, &options(SignalSpec::States, Level::Node, 300));
    assert_eq!(by_node.len(), 4);
    // A node of one CPU is that CPU.
    assert_eq!(by_node[3].1, by_cpu[15].1);
}

#[test]
fn ovnis_thread_trace_on_its_cpus_is_ovnis_cpu_trace() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    // The channels ovni writes in both traces, as the running thread's value on its CPU.
    // Left out: type 40 (Nanos6 idle state), which ovni keeps on the CPU after its thread
    // has left, and type 1/3 (PID, number of running threads), only in cpu.prv.
    let cases: [(&str, &[u32]); 4] = [
        ("ovni_nanos6-task-types", &[2, 35, 36, 37, 38]),
        ("ovni_nanos6-breakdown-write-zero", &[2, 35, 36, 37, 38]),
        ("ovni_tampi-ss-comm", &[2, 20]),
        ("ovni_nosv-hwc", &[2, 10, 11, 12, 13, 14, 15, 16, 200, 201]),
    ];
    for (dir, types) in cases {
        let threads = load(&root.join(dir).join("thread.prv"));
        let cpus = load(&root.join(dir).join("cpu.prv"));
        let placement = Placement::of(&threads).unwrap();
        assert_eq!(placement.source, PlacementSource::OvniAffinity, "{dir}");
        for &ty in types {
            let ours = values(
                &threads,
                &options(SignalSpec::Events(vec![ty]), Level::Cpu, 500),
            );
            let ovni = values(
                &cpus,
                &options(SignalSpec::Events(vec![ty]), Level::Thread, 500),
            );
            assert_eq!(ours.len(), ovni.len(), "{dir}: one row per CPU");
            // Labelled as ovni's cpu.row names them (leading spaces kept).
            for ((label, a), (ovni_label, b)) in ours.iter().zip(&ovni) {
                assert_eq!(label, ovni_label, "{dir}");
                assert_eq!(a, b, "{dir}, type {ty}, {label}");
            }
        }
    }
}

#[test]
fn render_of_ovnis_thread_trace_on_its_cpus_writes_the_csv_of_its_cpu_trace() {
    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let dir = root.join("ovni_nanos6-task-types");
    let out = temp_dir("cpu_rows_ovni");
    let csv = |trace: &str, level: &str| {
        let path = out.join(format!("{trace}-{level}.csv"));
        let run = Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .arg("render")
            .arg(dir.join(format!("{trace}.prv")))
            .args(["--level", level, "--view", "2", "--width", "400", "-o"])
            .arg(out.join(format!("{trace}.png")))
            .arg("--values-csv")
            .arg(&path)
            .output()
            .unwrap();
        succeeded(&run);
        std::fs::read_to_string(path).unwrap()
    };
    // The TID of the thread running on each CPU, byte for byte, labels included.
    let ours = csv("thread", "cpu");
    assert!(ours.lines().count() > 20 * 400);
    assert_eq!(ours, csv("cpu", "thread"));
}

/// Two CPUs on one node; three threads of one task. Thread 1 runs on CPU 1 (state 1) until
/// 400, then on CPU 2 (state 2); thread 2 arrives on CPU 1 at 200 (state 3 until 600), then
/// moves to CPU 2 at 600 (state 1 until 700); thread 3's records are on CPU 0.
const MEETING: &str = "\
#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:1(3:1)
1:1:1:1:1:0:400:1
1:0:1:1:3:0:1000:1
1:1:1:1:2:200:600:3
1:2:1:1:1:400:1000:2
1:2:1:1:2:600:700:1
";

#[test]
fn a_cpu_shows_the_last_thread_to_arrive_and_cpu_0_is_reported_not_drawn() {
    let path = temp_file("meeting.prv", MEETING.as_bytes());
    let t = load(&path);
    let placement = Placement::of(&t).unwrap();
    assert_eq!(placement.unplaced, [(2, 1000)]);
    let rows = values(&t, &options(SignalSpec::States, Level::Cpu, 10));
    let (n, s1, s2, s3) = (None, Some(1), Some(2), Some(3));
    assert_eq!(rows[0].0, "CPU 1.1");
    assert_eq!(rows[0].1, [s1, s1, s3, s3, s3, s3, n, n, n, n]);
    assert_eq!(rows[1].1, [n, n, n, n, s2, s2, s1, n, n, n]);
    // The command line says where thread 3 went.
    let run = Command::new(env!("CARGO_BIN_EXE_prvscope"))
        .arg("render")
        .arg(&path)
        .args(["--level", "cpu", "-o"])
        .arg(temp_dir("cpu_rows").join("meeting.png"))
        .output()
        .unwrap();
    succeeded(&run);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("1 thread ran on CPU 0 (not assigned)"),
        "{stderr}"
    );
    // Time per state per CPU, and per node (its CPUs added); null: no thread there.
    let stats = |level: &str| {
        let run = Command::new(env!("CARGO_BIN_EXE_prvscope"))
            .arg("stats")
            .arg(&path)
            .args(["--level", level, "--csv"])
            .output()
            .unwrap();
        succeeded(&run);
        String::from_utf8(run.stdout).unwrap()
    };
    assert_eq!(
        stats("cpu"),
        "cpu,1,2,3,null\nCPU 1.1,200,0,400,400\nCPU 1.2,100,200,0,700\n"
    );
    assert_eq!(stats("node"), "node,1,2,3,null\nNODE 1,300,200,400,1100\n");
}

#[test]
fn the_viewer_switches_to_cpu_and_node_rows_and_back_and_says_when_it_cannot() {
    use egui_kittest::kittest::Queryable;
    use prvscope_viewer::loader::LoadSource;
    use prvscope_viewer::rows::RowKind;

    let _shared = crate::common::shared();
    let Some(root) = shared_traces() else { return };
    let prv = root.join("extrae_mpi_prime16/prime_v0.prv");
    let mut h = crate::viewer::harness_with(LoadSource::File(prv), None, (1000.0, 640.0), false);
    let pick = |h: &mut egui_kittest::Harness<'static, prvscope_viewer::app::App>, item: &str| {
        h.get_by_label("View").click();
        h.run_steps(2);
        h.get_by_label(item).click();
        h.run_steps(3);
    };
    pick(&mut h, "Rows: CPUs");
    {
        let t = &h.state().loaded().unwrap().timeline;
        assert_eq!(t.level(), Level::Cpu);
        assert_eq!(t.rows().len(), 16);
        assert_eq!(t.rows()[0].kind, RowKind::Resource(0..1));
    }
    h.snapshot("cpu_view_prime");
    pick(&mut h, "Rows: nodes");
    {
        let t = &h.state().loaded().unwrap().timeline;
        assert_eq!(t.rows().len(), 4);
        assert_eq!(t.rows()[0].kind, RowKind::Resource(0..13));
    }
    pick(&mut h, "Rows: threads");
    {
        let t = &h.state().loaded().unwrap().timeline;
        assert_eq!(t.rows().len(), 16);
        assert_eq!(t.rows()[0].kind, RowKind::Thread(0));
    }
    // ovni's CPU trace declares no CPU and has no affinity channel: the status line says so.
    let mut h = crate::viewer::harness_with(
        LoadSource::File(root.join("ovni_nanos6-task-types/cpu.prv")),
        None,
        (1000.0, 640.0),
        false,
    );
    pick(&mut h, "Rows: CPUs");
    assert_eq!(h.state().loaded().unwrap().timeline.level(), Level::Thread);
    assert!(
        h.query_all_by_label_contains("no CPU rows: the trace declares no CPU")
            .next()
            .is_some()
    );
}

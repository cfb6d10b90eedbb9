//! The ideal-network replay on hand-made MPI traces whose ideal run is known by
//! construction: messages arrive when sent, calls take no time, each process waits only for
//! what it depends on.

#![allow(clippy::unwrap_used, clippy::float_cmp)] // whole nanoseconds, exact

use std::path::{Path, PathBuf};

use prvscope_paraver::pop;

const PCF: &str = "\
EVENT_TYPE
0    50000001    MPI Point-to-point
VALUES
0   Outside MPI
1   MPI_Send
2   MPI_Recv
41  MPI_Sendrecv

EVENT_TYPE
0    50000002    MPI Collective Comm
VALUES
0   Outside MPI
7   MPI_Bcast
10  MPI_Allreduce
11  MPI_Reduce

EVENT_TYPE
0    50100003    Root in MPI Global OP
";

/// Writes `body` as a trace of `processes` one-thread tasks on one node, ending at `end` ns,
/// with the `.pcf` above; returns its path.
fn trace(name: &str, processes: usize, end: u64, body: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("replay");
    std::fs::create_dir_all(&dir).unwrap();
    let tasks = vec!["1:1"; processes].join(",");
    let text = format!(
        "#Paraver (01/01/2026 at 00:00):{end}_ns:1({processes}):1:{processes}({tasks})\n{body}"
    );
    let path = dir.join(format!("{name}.prv"));
    std::fs::write(&path, text).unwrap();
    std::fs::write(dir.join(format!("{name}.pcf")), PCF).unwrap();
    path
}

/// (ideal runtime, largest ideal computation), in ns.
fn ideal(path: &Path) -> (f64, f64) {
    let t = prvscope_import::load(path, &prvscope_import::LoadOptions::default(), None).unwrap();
    let f = pop::figures(&t).unwrap();
    let (runtime, computation) = f.ideal_us.unwrap();
    (runtime * 1000.0, computation * 1000.0)
}

#[test]
fn a_receive_waits_only_until_the_message_is_sent() {
    // Process 1 computes 100 ns, sends (a 10 ns call), computes 90 ns: 200 ns.
    // Process 2 computes 10 ns, receives (its call lasts until 150 ns: the message took 50 ns
    // to arrive), computes 50 ns. On an ideal network the message arrives at 100 ns, so
    // process 2 ends at 150 ns and process 1, unchanged, at 190 ns.
    let path = trace(
        "p2p",
        2,
        200,
        "\
1:1:1:1:1:0:100:1
2:1:1:1:1:100:50000001:1
2:1:1:1:1:110:50000001:0
1:1:1:1:1:110:200:1
1:2:1:2:1:0:10:1
2:2:1:2:1:10:50000001:2
2:2:1:2:1:150:50000001:0
1:2:1:2:1:150:200:1
3:1:1:1:1:100:100:2:1:2:1:140:150:64:1
",
    );
    assert_eq!(ideal(&path), (190.0, 190.0));
}

#[test]
fn sendrecv_exchanges_wait_for_the_later_sender() {
    // Both exchange in one MPI_Sendrecv: process 1 arrives at 30 ns, process 2 at 80 ns; both
    // leave at 80 ns and compute 20 ns more.
    let path = trace(
        "sendrecv",
        2,
        200,
        "\
1:1:1:1:1:0:30:1
2:1:1:1:1:30:50000001:41
2:1:1:1:1:150:50000001:0
1:1:1:1:1:150:170:1
1:2:1:2:1:0:80:1
2:2:1:2:1:80:50000001:41
2:2:1:2:1:150:50000001:0
1:2:1:2:1:150:170:1
3:1:1:1:1:30:30:2:1:2:1:140:150:64:1
3:2:1:2:1:80:80:1:1:1:1:140:150:64:2
",
    );
    assert_eq!(ideal(&path).0, 100.0);
}

/// Three processes reach one collective at 50 ns (process 1, the root), 10 ns and 80 ns,
/// leave it together at 200 ns in the trace, and then compute 20, 100 and 20 ns.
fn collective(name: &str, value: u32) -> PathBuf {
    let body = format!(
        "\
1:1:1:1:1:0:50:1
2:1:1:1:1:50:50000002:{value}:50100003:1
2:1:1:1:1:200:50000002:0
1:1:1:1:1:200:220:1
1:2:1:2:1:0:10:1
2:2:1:2:1:10:50000002:{value}
2:2:1:2:1:200:50000002:0
1:2:1:2:1:200:300:1
1:3:1:3:1:0:80:1
2:3:1:3:1:80:50000002:{value}
2:3:1:3:1:200:50000002:0
1:3:1:3:1:200:220:1
"
    );
    trace(name, 3, 300, &body)
}

#[test]
fn collectives_release_processes_as_their_pattern_says() {
    // Allreduce: everyone leaves when the last arrives (80): 80 + 100 for process 2.
    assert_eq!(ideal(&collective("allreduce", 10)).0, 180.0);
    // Bcast: the others leave when the root arrives (50), process 3 at its own 80:
    // process 2 ends at 150, process 3 at 100.
    assert_eq!(ideal(&collective("bcast", 7)).0, 150.0);
    // Reduce: the root waits for everyone (80, ends 100); the others leave at once:
    // process 2 ends at 110.
    assert_eq!(ideal(&collective("reduce", 11)).0, 110.0);
    // Computation is the time outside MPI: process 2's 10 + 100 ns.
    assert_eq!(ideal(&collective("reduce", 11)).1, 110.0);
}

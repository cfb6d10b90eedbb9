//! Windows at the CPU level, and the thread functions on a record's CPU, on a hand-made trace
//! whose thread 1.1.1 migrates from CPU 1 to CPU 2 and back while thread 1.1.2 goes the other
//! way. The expected texts are BSC paramedir's (paraver-kernel abbc7c3) for the same trace
//! and cfgs, including its quirk at 600 ns: CPU 1's records there are thread 1's state
//! begin and then thread 2's state end (equal times keep thread order), so the CPU's last
//! interval takes thread 2's value there, which began on CPU 2 and so counts 0.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use prvscope_paraver::cfg::Cfg;
use prvscope_paraver::paramedir::{Context, Options};

const TRACE: &str = "\
#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:1(2:1)\n\
1:1:1:1:1:0:300:1\n\
1:2:1:1:1:300:600:2\n\
1:1:1:1:1:600:1000:1\n\
1:2:1:1:2:0:200:3\n\
1:1:1:1:2:300:600:4\n\
1:2:1:1:2:600:1000:5\n\
2:2:1:1:2:250:7:1\n\
";

const CPU_STATE_CFG: &str = r"#ParaverCFG
ConfigFile.Version: 3.4
ConfigFile.NumWindows: 1

################################################################################
< NEW DISPLAYING WINDOW CPU state >
################################################################################
window_name CPU state
window_type single
window_id 1
window_units Nanoseconds
window_level cpu
window_scale_relative 1.000000000000
window_end_time_relative 1.000000000000
window_begin_time_relative 0.000000000000
window_selected_functions { 14, { {cpu, Active Thd}, {appl, Adding}, {task, Adding}, {thread, State As Is}, {node, Adding}, {system, Adding}, {workload, Adding}, {from_obj, All}, {to_obj, All}, {tag_msg, All}, {size_msg, All}, {bw_msg, All}, {evt_type, All}, {evt_value, All} } }
window_compose_functions { 9, { {compose_cpu, As Is}, {compose_appl, As Is}, {compose_task, As Is}, {compose_thread, As Is}, {compose_node, As Is}, {compose_system, As Is}, {compose_workload, As Is}, {topcompose1, As Is}, {topcompose2, As Is} } }
";

/// paramedir's `cpu_state.cfg` dump: object, begin, duration, value (ns).
const CPU_STATE: &str = "\
0\t0.00\t300.00\t1.00\n\
0\t300.00\t300.00\t4.00\n\
0\t600.00\t0.00\t1.00\n\
0\t600.00\t400.00\t0.00\n\
1.1\t0.00\t200.00\t3.00\n\
1.1\t200.00\t100.00\t0.00\n\
1.1\t300.00\t300.00\t2.00\n\
1.1\t600.00\t400.00\t5.00\n\
";

/// paramedir's dump of the same cfg at thread level with the thread function `Cpu ID`.
const THREAD_CPU: &str = "\
1.1.1\t0.00\t300.00\t1.00\n\
1.1.1\t300.00\t0.00\t1.00\n\
1.1.1\t300.00\t300.00\t2.00\n\
1.1.1\t600.00\t0.00\t2.00\n\
1.1.1\t600.00\t400.00\t1.00\n\
1.1.2\t0.00\t200.00\t2.00\n\
1.1.2\t200.00\t50.00\t2.00\n\
1.1.2\t250.00\t50.00\t2.00\n\
1.1.2\t300.00\t300.00\t1.00\n\
1.1.2\t600.00\t0.00\t1.00\n\
1.1.2\t600.00\t400.00\t2.00\n\
";

fn dump(ctx: &Context, text: &str) -> String {
    let cfg = Cfg::parse("test.cfg", text).unwrap();
    ctx.compute(&cfg, &Options::default()).unwrap().text()
}

#[test]
fn a_cpu_shows_the_state_of_the_thread_that_ran_on_it_as_paramedir_does() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cpu_levels");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("migrating.prv");
    std::fs::write(&path, TRACE).unwrap();
    let trace =
        prvscope_import::load(&path, &prvscope_import::LoadOptions::default(), None).unwrap();
    assert!(trace.report.is_empty(), "{:?}", trace.report.warnings());
    // Thread 1.1.1: CPU 1, then 2 from 300 ns, then 1 again from 600 ns.
    let t = &trace.store.threads()[0];
    assert_eq!(t.cpus, vec![(0, 1), (300, 2), (600, 1)]);
    assert_eq!((t.cpu_at(299), t.cpu_at(300), t.cpu_at(999)), (1, 2, 1));
    let ctx = Context::new(&trace);
    assert_eq!(dump(&ctx, CPU_STATE_CFG), CPU_STATE);
    let thread_cpu = CPU_STATE_CFG
        .replace("window_level cpu", "window_level thread")
        .replace("{thread, State As Is}", "{thread, Cpu ID}");
    assert_eq!(dump(&ctx, &thread_cpu), THREAD_CPU);
}

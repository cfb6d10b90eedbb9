//! Events of two types at one timestamp: the store keeps each type's order, not the file's
//! order between the types. A window whose function reads that order ("Last Evt Val" of the
//! MPI call types, as Paraver's `MPI call` window) is refused with the reason where the file
//! gives the types at one time out of type order, and computed where it does not.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use prvscope_paraver::cfg::Cfg;
use prvscope_paraver::paramedir::{Context, Error, Options};

/// A two-thread trace: at 100, thread 1 leaves one MPI call and enters one of another type,
/// exit first as a program writes it; `ascending`: the types in type order (a
/// point-to-point call 50000001 left, a collective 50000002 entered), else the other way.
fn trace(dir: &Path, ascending: bool) -> prvscope_import::Trace {
    let (first, left, entered, value) = if ascending {
        (50_000_001, 50_000_001, 50_000_002, 10)
    } else {
        (50_000_002, 50_000_002, 50_000_001, 3)
    };
    let text = format!(
        "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:2(1:1,1:1)\n\
         1:1:1:1:1:0:1000:1\n1:2:1:2:1:0:1000:1\n\
         2:0:1:1:1:50:{first}:7\n2:0:1:1:1:100:{left}:0\n2:0:1:1:1:100:{entered}:{value}\n\
         2:0:1:1:1:300:{entered}:0\n2:0:1:2:1:60:50000001:3\n2:0:1:2:1:70:50000001:0\n"
    );
    std::fs::create_dir_all(dir).unwrap();
    let prv = dir.join("t.prv");
    std::fs::write(&prv, text).unwrap();
    prvscope_import::load(&prv, &prvscope_import::LoadOptions::default(), None).unwrap()
}

/// A one-window thread-level cfg named `name` with function `thread` and an event type
/// selector `evt_type` (`filter`: its filter line, if any).
fn one_window_cfg(name: &str, thread: &str, evt_type: &str, filter: &str) -> Cfg {
    let text = format!(
        "#ParaverCFG\nConfigFile.Version: 3.4\nConfigFile.NumWindows: 1\n\n\
        < NEW DISPLAYING WINDOW {name} >\nwindow_name {name}\nwindow_type single\n\
        window_id 1\nwindow_units Nanoseconds\nwindow_level thread\n\
        window_scale_relative 1.0\nwindow_end_time_relative 1.0\n\
        window_begin_time_relative 0.0\n\
        window_selected_functions {{ 14, {{ {{cpu, Active Thd}}, {{appl, Adding}}, \
        {{task, Adding}}, {{thread, {thread}}}, {{node, Adding}}, {{system, Adding}}, \
        {{workload, Adding}}, {{from_obj, All}}, {{to_obj, All}}, {{tag_msg, All}}, \
        {{size_msg, All}}, {{bw_msg, All}}, {{evt_type, {evt_type}}}, {{evt_value, All}} }} }}\n\
        {filter}"
    );
    Cfg::parse(&format!("{name}.cfg"), &text).unwrap()
}

fn mpi_call_cfg() -> Cfg {
    one_window_cfg(
        "MPI call",
        "Last Evt Val",
        "[x,y]",
        "window_filter_module evt_type 2 50000001 50000003\n",
    )
}

#[test]
fn a_window_reading_an_order_the_store_does_not_keep_is_refused() {
    let dir = std::env::temp_dir().join(format!("prvscope-tie-order-{}", std::process::id()));
    // The exit first and the types ascending: the store's order is the file's.
    let t = trace(&dir.join("in-order"), true);
    assert_eq!(t.store.inversions(), []);
    let out = Context::new(&t)
        .compute(&mpi_call_cfg(), &Options::default())
        .unwrap();
    // Thread 1 holds the collective from 100 to 300.
    assert!(
        out.text().contains("1.1.1\t100.00\t200.00\t10.00"),
        "{}",
        out.text()
    );
    // 50000002 left before 50000001 entered: at one time, kept by type instead.
    let t = trace(&dir.join("out-of-order"), false);
    assert_eq!(t.store.inversions(), [(50_000_002, 50_000_001)]);
    match Context::new(&t).compute(&mpi_call_cfg(), &Options::default()) {
        Err(Error::Unsupported { what, .. }) => {
            assert!(what.contains("50000002 and 50000001"), "{what}");
        }
        other => panic!("computed: {other:?}"),
    }
    // A function that does not read the order is computed all the same.
    let states = one_window_cfg("State", "State As Is", "All", "");
    let out = Context::new(&t).compute(&states, &Options::default());
    assert!(out.is_ok(), "{out:?}");
}

/// Loads a two-thread trace of `body` (in a folder of `name`), checks its inverted pairs and
/// that its load report says `warning`, and that `cfg` is refused with the reason.
fn refused_going_back(name: &str, body: &str, inversions: &[(u32, u32)], warning: &str, cfg: &Cfg) {
    let dir = std::env::temp_dir().join(format!("prvscope-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prv = dir.join("t.prv");
    let header = "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:2(1:1,1:1)\n";
    std::fs::write(&prv, format!("{header}{body}")).unwrap();
    let t = prvscope_import::load(&prv, &prvscope_import::LoadOptions::default(), None).unwrap();
    assert_eq!(t.store.inversions(), inversions);
    let warnings = t.report.warnings().join("\n");
    assert!(warnings.contains(warning), "{warnings}");
    match Context::new(&t).compute(cfg, &Options::default()) {
        Err(Error::Unsupported { what, .. }) => {
            assert!(what.contains("go back in time on 1 thread"), "{what}");
        }
        other => panic!("computed: {other:?}"),
    }
}

/// A thread whose events go back in time may give one timestamp's events apart: their order
/// there is not followed, so a window reading the order of two of its types is refused (and
/// the load says why), though each line gives its types in type order.
#[test]
fn a_window_reading_the_order_of_a_thread_going_back_in_time_is_refused() {
    // Thread 1 enters a collective at 300, then the file goes back to 100, where it left a
    // point-to-point call and the collective's entry at 100 comes after.
    refused_going_back(
        "events-back",
        "1:1:1:1:1:0:1000:1\n1:2:1:2:1:0:1000:1\n\
         2:0:1:1:1:50:50000001:7\n2:0:1:1:1:300:50000002:0\n2:0:1:1:1:100:50000001:0\n\
         2:0:1:1:1:100:50000002:10\n2:0:1:2:1:60:50000001:3\n",
        &[(50_000_002, 50_000_001)],
        "thread 1.1.1: an event at time 100 comes after one at time 300",
        &mpi_call_cfg(),
    );
}

/// A thread whose states go back in time (its events in order): Paraver reads the records in
/// file order and its windows differ from those of the records sorted, so every cfg is
/// refused with the reason, and the load names the thread.
#[test]
fn a_cfg_over_a_thread_whose_states_go_back_in_time_is_refused() {
    refused_going_back(
        "states-back",
        "1:1:1:1:1:500:1000:1\n1:2:1:2:1:0:1000:1\n1:1:1:1:1:0:500:13\n\
         2:1:1:1:1:50:50000001:7\n",
        &[],
        "thread 1.1.1: a state beginning at time 0 comes after one beginning at time 500",
        &one_window_cfg("State", "State As Is", "All", ""),
    );
}

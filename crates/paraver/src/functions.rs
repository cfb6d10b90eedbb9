//! The names of the functions prvscope computes, by the slot they fill, in Paraver's order
//! of its window properties: what a window editor offers. Each name is the one the cfg
//! writes and the readers of [`thread`](crate::thread), [`levels`](crate::levels),
//! [`compose`](crate::compose), [`filter`](crate::filter) and [`derived`](crate::derived)
//! read (a test holds them to it).

/// A thread's semantic function (`thread` slot).
pub const THREAD: &[&str] = &[
    "State As Is",
    "Useful",
    "State Sign",
    "Given State",
    "In State",
    "Not In State",
    "State Record Dur.",
    "Last Evt Type",
    "Last Evt Val",
    "Next Evt Type",
    "Next Evt Val",
    "Avg Next Evt Val",
    "Avg Last Evt Val",
    "Given Evt Val",
    "In Evt Val",
    "Not In Evt Val",
    "In Evt Range",
    "Int. Between Evt",
    "Event Bytes",
    "Event Sent Bytes",
    "Last Tag",
    "Comm Size",
    "Comm Recv. Partner",
    "Comm Partner",
    "Last Send Dur.",
    "Next Recv Dur.",
    "Last Send Size",
    "Send Bytes in Transit",
    "Send Messages in Transit",
    "Send BandWidth",
    "Recv Bytes in Transit",
    "Recv Messages in Transit",
    "Recv BandWidth",
    "Recv Negative Messages",
    "Recv Negative Bytes",
    "Number Of Sends",
    "Number Of Send Bytes",
    "Number Of Receives",
    "Number Of Receive Bytes",
    "Application ID",
    "TaskID",
    "Thread ID",
    "Node ID",
    "Cpu ID",
    "In Node ID",
    "In Cpu ID",
];

/// The function of a level above threads or CPUs (`task`, `appl`, `workload`, `node`,
/// `system` slots).
pub const LEVEL: &[&str] = &[
    "Adding",
    "AddingSign",
    "Average",
    "Maximum",
    "Minimum",
    "Activity",
    "In Activity",
    "Mode",
    "Thread i",
    "Add Tasks",
    "Changed value",
];

/// A CPU's function of the threads running on it (`cpu` slot).
pub const CPU: &[&str] = &[
    "Active Thd",
    "Active Thd Sign",
    "Active Thd Val",
    "Active Thd Val Sign",
];

/// A compose function (`compose_thread`, ..., `topcompose1`, `topcompose2` slots).
pub const COMPOSE: &[&str] = &[
    "As Is",
    "Sign",
    "1-Sign",
    "Mod",
    "Mod+1",
    "Div",
    "Prod",
    "Add",
    "Subs",
    "Complement",
    "Inverse Div",
    "Select Range",
    "Select Range [)",
    "Is In Range",
    "Is In Range [)",
    "Is Equal",
    "Is Equal (Sign)",
    "Floor",
    "Ceil",
    "Round",
    "Abs",
    "Stacked Val",
    "In Stacked Val",
    "Nesting level",
    "Enumerate",
    "Accumulate",
    "Delta",
    "Burst Time",
    "Divide by Burst Time",
    "Begin Time",
    "End Time",
    "Join Bursts",
    "Translate",
];

/// A filter's function of event types or values (`evt_type`, `evt_value` slots).
pub const FILTER: &[&str] = &["All", "None", "=", "!=", ">", "<", "[x,y]"];

/// A derived window's operation (`window_operation`).
pub const DERIVED: &[&str] = &[
    "add",
    "substract",
    "product",
    "divide",
    "maximum",
    "minimum",
    "different",
];

/// The slots a window of `level` reads, from the thread up, each with the names it takes
/// (the top compose functions last). A derived window reads its parents' functions: of its
/// own, the top compose functions.
pub fn slots(
    level: crate::cfg::Level,
    derived: bool,
) -> Vec<(&'static str, &'static [&'static str])> {
    use crate::cfg::Level;
    let mut out: Vec<(&'static str, &'static [&'static str])> = Vec::new();
    if !derived {
        out.push(("thread", THREAD));
        out.push(("compose_thread", COMPOSE));
        let ups: &[(Level, &'static str, &'static [&'static str])] = if level.is_resource() {
            &[
                (Level::Cpu, "cpu", CPU),
                (Level::Node, "node", LEVEL),
                (Level::System, "system", LEVEL),
            ]
        } else {
            &[
                (Level::Task, "task", LEVEL),
                (Level::Appl, "appl", LEVEL),
                (Level::Workload, "workload", LEVEL),
            ]
        };
        for &(upper, slot, names) in ups.iter().take_while(|_| level != Level::Thread) {
            out.push((slot, names));
            out.push((
                match slot {
                    "cpu" => "compose_cpu",
                    "node" => "compose_node",
                    "system" => "compose_system",
                    "task" => "compose_task",
                    "appl" => "compose_appl",
                    _ => "compose_workload",
                },
                COMPOSE,
            ));
            if upper == level {
                break;
            }
        }
    }
    out.push(("topcompose1", COMPOSE));
    out.push(("topcompose2", COMPOSE));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::TimeUnit;
    use crate::compose::{ComposeFn, Scale};

    #[test]
    fn every_name_offered_is_read_by_its_slots_reader() {
        for n in THREAD {
            assert!(crate::thread::ThreadFn::new(n, &[]).is_some(), "{n}");
        }
        for n in LEVEL {
            assert!(crate::levels::LevelFn::new(n, &[]).is_some(), "{n}");
        }
        for n in CPU {
            assert!(crate::resource::CpuFn::new(n, &[]).is_some(), "{n}");
        }
        let scale = Scale(TimeUnit::Nanoseconds, TimeUnit::Nanoseconds);
        for n in COMPOSE {
            assert!(ComposeFn::new(n, &[], scale).is_some(), "{n}");
        }
        for n in FILTER {
            assert!(crate::filter::FilterFn::parse(n).is_some(), "{n}");
        }
        for n in DERIVED {
            assert!(crate::derived::DerivedFn::parse(n).is_some(), "{n}");
        }
        // Each level's slots, as the engine reads them.
        let names = |l, d| slots(l, d).iter().map(|s| s.0).collect::<Vec<_>>();
        use crate::cfg::Level;
        assert_eq!(
            names(Level::Task, false),
            [
                "thread",
                "compose_thread",
                "task",
                "compose_task",
                "topcompose1",
                "topcompose2"
            ]
        );
        assert_eq!(names(Level::Thread, false).len(), 4);
        assert_eq!(names(Level::Workload, false).len(), 10);
        assert_eq!(names(Level::Cpu, false)[2], "cpu");
        assert_eq!(names(Level::System, false).len(), 10);
        assert_eq!(names(Level::Task, true), ["topcompose1", "topcompose2"]);
        // A name prvscope does not read is offered nowhere.
        assert!(crate::thread::ThreadFn::new("No Such Function", &[]).is_none());
    }

    #[test]
    fn every_function_of_paraver_that_prvscope_reads_is_offered() {
        let scale = Scale(TimeUnit::Nanoseconds, TimeUnit::Nanoseconds);
        for n in &crate::paramedir::PARAVER_FUNCTIONS {
            if crate::thread::ThreadFn::new(n, &[]).is_some() {
                assert!(THREAD.contains(n), "{n}");
            }
            if crate::levels::LevelFn::new(n, &[]).is_some() {
                assert!(LEVEL.contains(n), "{n}");
            }
            if ComposeFn::new(n, &[], scale).is_some() {
                assert!(COMPOSE.contains(n), "{n}");
            }
        }
    }
}

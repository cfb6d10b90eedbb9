//! Paraver's object model, the one every layer uses: the levels of the process model
//! (workload, applications, tasks, threads) and of the resource model (system, nodes, CPUs),
//! and the names objects go by (the `.row` file's, else Paraver's `THREAD 1.2.1`,
//! `TASK 1.2`, `APPL 1`, `NODE 1`, `CPU 1.3`). Which threads make a task, and which CPUs a
//! node, is the header's ([`crate::rows::RowMap`], [`crate::header::Header`]).

use std::fmt;

use crate::row::RowNames;

/// An object level. The order is Paraver's: the process model from the coarsest
/// (workload) to the finest (thread), then the resource model likewise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Workload,
    Appl,
    Task,
    Thread,
    System,
    Node,
    Cpu,
}

impl Level {
    /// From a cfg's `window_level` word (`appl` or `application`, any case).
    pub fn parse(word: &str) -> Option<Level> {
        Some(match word.trim().to_ascii_lowercase().as_str() {
            "workload" => Level::Workload,
            "appl" | "application" => Level::Appl,
            "task" => Level::Task,
            "thread" => Level::Thread,
            "system" => Level::System,
            "node" => Level::Node,
            "cpu" => Level::Cpu,
            _ => return None,
        })
    }

    /// A cfg's word for it.
    pub fn word(self) -> &'static str {
        match self {
            Level::Workload => "workload",
            Level::Appl => "appl",
            Level::Task => "task",
            Level::Thread => "thread",
            Level::System => "system",
            Level::Node => "node",
            Level::Cpu => "cpu",
        }
    }

    /// Its tag in labels and its section of the `.row` file.
    pub fn tag(self) -> &'static str {
        match self {
            Level::Workload => "WORKLOAD",
            Level::Appl => "APPL",
            Level::Task => "TASK",
            Level::Thread => "THREAD",
            Level::System => "SYSTEM",
            Level::Node => "NODE",
            Level::Cpu => "CPU",
        }
    }

    /// True for the resource model (system, nodes, CPUs).
    pub fn is_resource(self) -> bool {
        matches!(self, Level::System | Level::Node | Level::Cpu)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The name of object `index` (0-based, in the level's global order) of `level`: the
/// `.row` file's, else the level's tag and `numbers` (1-based, dotted: `THREAD 1.2.1`;
/// the tag alone without numbers).
pub fn object_name(
    names: Option<&RowNames>,
    level: Level,
    index: usize,
    numbers: &[usize],
) -> String {
    if let Some(name) = names
        .and_then(|r| r.level(level.tag()))
        .and_then(|names| names.get(index))
    {
        return name.clone();
    }
    let mut s = String::from(level.tag());
    for (i, n) in numbers.iter().enumerate() {
        s.push(if i == 0 { ' ' } else { '.' });
        s.push_str(&n.to_string());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_row_file_else_paravers_tags() {
        let mut names = RowNames::default();
        names
            .levels
            .insert("THREAD".into(), vec!["worker 1".into(), "worker 2".into()]);
        assert_eq!(
            object_name(Some(&names), Level::Thread, 1, &[1, 1, 2]),
            "worker 2"
        );
        // Past the `.row` file's names, and at levels it does not name.
        assert_eq!(
            object_name(Some(&names), Level::Thread, 2, &[1, 2, 1]),
            "THREAD 1.2.1"
        );
        assert_eq!(object_name(None, Level::Cpu, 4, &[2, 1]), "CPU 2.1");
        assert_eq!(object_name(None, Level::Appl, 0, &[1]), "APPL 1");
        assert_eq!(object_name(None, Level::System, 0, &[]), "SYSTEM");
        assert_eq!(Level::parse(" Application "), Some(Level::Appl));
        assert!(Level::Node.is_resource() && !Level::Task.is_resource());
        assert!(Level::Workload < Level::Thread && Level::System < Level::Cpu);
    }
}

//! Paraver's object model, the one every layer uses: the levels of the process model
//! (workload, applications, tasks, threads) and of the resource model (system, nodes, CPUs),
//! and the names objects go by (the `.row` file's, else Paraver's `THREAD 1.2.1`,
//! `TASK 1.2`, `APPL 1`, `NODE 1`, `CPU 1.3`), and [`Objects`]: how many objects each level
//! has, which threads and CPUs each holds, as the header says.

use std::fmt;
use std::ops::Range;

use crate::header::Header;
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

/// The objects of a trace.
#[derive(Debug, Clone)]
pub struct Objects {
    /// (application, task, thread), 1-based, one per thread row.
    pub threads: Vec<(u32, u32, u32)>,
    /// (application, task), 1-based, one per task, and the range of its thread rows.
    pub tasks: Vec<(u32, u32, Range<usize>)>,
    /// The range of task indices of each application.
    pub appls: Vec<Range<usize>>,
    /// CPUs per node.
    pub node_cpus: Vec<u32>,
    /// The node (1-based) of each CPU, in global CPU order.
    pub cpu_node: Vec<u32>,
    /// The node (1-based, as the header gives it; 0 without nodes) each thread row runs on.
    pub thread_node: Vec<u32>,
    /// `.row` labels per level name (`THREAD`, `TASK`, `APPL`, `NODE`, `CPU`, ...).
    pub row: Option<RowNames>,
}

impl Objects {
    pub fn new(header: &Header, row: Option<&RowNames>) -> Objects {
        let mut threads = Vec::new();
        let mut thread_node = Vec::new();
        let mut tasks = Vec::new();
        let mut appls = Vec::new();
        for (a, app) in header.applications.iter().enumerate() {
            let first_task = tasks.len();
            for (t, task) in app.tasks.iter().enumerate() {
                let first = threads.len();
                for h in 0..task.threads {
                    threads.push((a as u32 + 1, t as u32 + 1, h + 1));
                    thread_node.push(task.node);
                }
                tasks.push((a as u32 + 1, t as u32 + 1, first..threads.len()));
            }
            appls.push(first_task..tasks.len());
        }
        Objects {
            threads,
            tasks,
            appls,
            node_cpus: header.node_cpus.clone(),
            cpu_node: (1u32..)
                .zip(&header.node_cpus)
                .flat_map(|(n, &c)| std::iter::repeat_n(n, c as usize))
                .collect(),
            thread_node,
            row: row.cloned(),
        }
    }

    /// Number of objects at `level`.
    pub fn count(&self, level: Level) -> usize {
        match level {
            Level::Workload | Level::System => 1,
            Level::Appl => self.appls.len(),
            Level::Task => self.tasks.len(),
            Level::Thread => self.threads.len(),
            Level::Node => self.node_cpus.len(),
            Level::Cpu => self.node_cpus.iter().map(|&c| c as usize).sum(),
        }
    }

    /// The thread rows of object `o` of a process-model `level`.
    pub fn thread_rows(&self, level: Level, o: usize) -> Range<usize> {
        match level {
            Level::Thread => o..o + 1,
            Level::Task => self.tasks.get(o).map_or(0..0, |t| t.2.clone()),
            Level::Appl => {
                let r = self.appls.get(o).cloned().unwrap_or(0..0);
                match (
                    self.tasks.get(r.start),
                    r.end.checked_sub(1).and_then(|l| self.tasks.get(l)),
                ) {
                    (Some(first), Some(last)) if !r.is_empty() => first.2.start..last.2.end,
                    _ => 0..0,
                }
            }
            _ => 0..self.threads.len(),
        }
    }

    /// The objects of `child` level inside object `o` of `parent` level (Paraver's
    /// `getFirst`/`getLast`), both process-model levels, `parent` not below `child`.
    pub fn children(&self, parent: Level, o: usize, child: Level) -> Range<usize> {
        if parent == child {
            return o..o + 1;
        }
        match (parent, child) {
            (Level::System, Level::Node) => return 0..self.node_cpus.len(),
            (Level::System, Level::Cpu) => return 0..self.cpu_node.len(),
            (Level::Node, Level::Cpu) => return self.node_cpu_range(o),
            _ => {}
        }
        let threads = self.thread_rows(parent, o);
        match child {
            Level::Thread => threads,
            Level::Task => {
                let first = self.task_of(threads.start);
                let last = self.task_of(threads.end.saturating_sub(1));
                first..last + 1
            }
            Level::Appl => {
                let first = self.appl_of_task(self.task_of(threads.start));
                let last = self.appl_of_task(self.task_of(threads.end.saturating_sub(1)));
                first..last + 1
            }
            _ => 0..1,
        }
    }

    /// The CPUs (0-based global indices) of node `n` (0-based).
    pub fn node_cpu_range(&self, n: usize) -> Range<usize> {
        let first: usize = self.node_cpus.iter().take(n).map(|&c| c as usize).sum();
        first..first + self.node_cpus.get(n).map_or(0, |&c| c as usize)
    }

    /// The application (0-based) of task `k`.
    fn appl_of_task(&self, k: usize) -> usize {
        self.tasks
            .get(k)
            .map_or(0, |t| t.0 as usize)
            .saturating_sub(1)
    }

    /// The task of thread row `t`.
    pub fn task_of(&self, t: usize) -> usize {
        self.tasks
            .partition_point(|(_, _, r)| r.end <= t)
            .min(self.tasks.len().saturating_sub(1))
    }

    /// The object of `level` that thread row `t` belongs to.
    pub fn object_of_thread(&self, level: Level, t: usize) -> usize {
        match level {
            Level::Thread => t,
            Level::Task => self.task_of(t),
            Level::Appl => self.appl_of_task(self.task_of(t)),
            _ => 0,
        }
    }

    /// The bare numeric id of paramedir's timeline dumps: `1.2.1`, `1.2`, `1`; empty for
    /// the workload and the system.
    pub fn id(&self, level: Level, o: usize) -> String {
        match level {
            Level::Workload | Level::System => String::new(),
            Level::Thread => self
                .threads
                .get(o)
                .map(|(a, t, h)| format!("{a}.{t}.{h}"))
                .unwrap_or_default(),
            Level::Task => self
                .tasks
                .get(o)
                .map(|(a, t, _)| format!("{a}.{t}"))
                .unwrap_or_default(),
            // Paraver's `objectLabel` without the level tag takes a node's 0-based order
            // as its number, and a CPU's as a 1-based one: the first CPU is "0", the
            // second "1.1" (the first's location), and so on.
            Level::Node => format!("{o}"),
            Level::Cpu => match o.checked_sub(1) {
                None => "0".to_string(),
                Some(c) => self.cpu_location(c),
            },
            Level::Appl => format!("{}", o + 1),
        }
    }

    /// `node.cpu` (both 1-based) of CPU `c` (0-based global).
    fn cpu_location(&self, c: usize) -> String {
        let n = self.cpu_numbers(c);
        n.iter().map(usize::to_string).collect::<Vec<_>>().join(".")
    }

    /// [node, cpu] (both 1-based) of CPU `c` (0-based global), or [c + 1] past the nodes.
    fn cpu_numbers(&self, c: usize) -> Vec<usize> {
        let mut left = c;
        for (n, &k) in self.node_cpus.iter().enumerate() {
            if left < k as usize {
                return vec![n + 1, left + 1];
            }
            left -= k as usize;
        }
        vec![c + 1]
    }

    /// A row label of a histogram: the `.row` file's, else `THREAD 1.2.1`, `TASK 1.2`,
    /// `APPL 1`, `NODE 1`, `CPU 1.1`; `Not valid thread: N` past the last object.
    pub fn label(&self, level: Level, o: usize) -> String {
        let numbers: Vec<usize> = match level {
            Level::Thread if let Some(&(a, t, h)) = self.threads.get(o) => {
                vec![a as usize, t as usize, h as usize]
            }
            Level::Task if let Some((a, t, _)) = self.tasks.get(o) => {
                vec![*a as usize, *t as usize]
            }
            Level::Appl if o < self.appls.len() => vec![o + 1],
            Level::Node => vec![o + 1],
            Level::Cpu if o < self.cpu_node.len() => self.cpu_numbers(o),
            Level::Workload | Level::System => Vec::new(),
            // Past the last object, as Paraver labels it (the `.row` file's name first).
            _ => {
                let what = match level {
                    Level::Thread => "thread",
                    Level::Task => "task",
                    Level::Appl => "application",
                    _ => "CPU",
                };
                return self
                    .row
                    .as_ref()
                    .and_then(|r| r.level(level.tag()))
                    .and_then(|names| names.get(o))
                    .cloned()
                    .unwrap_or_else(|| format!("Not valid {what}: {}", o + 1));
            }
        };
        object_name(self.row.as_ref(), level, o, &numbers)
    }
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

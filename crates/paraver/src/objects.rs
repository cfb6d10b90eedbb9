//! Paraver's objects at each level of the process model (workload, applications, tasks,
//! threads) and the resource model (system, nodes, CPUs): how many there are, which threads
//! belong to which, and their labels (`THREAD 1.2.1`, or the `.row` file's).

use std::ops::Range;

use prvscope_format::model::object_name;
use prvscope_format::{Header, RowNames};

use crate::cfg::Level;

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

    /// Number of objects at `level` (`None` for levels not supported).
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
            Level::Task => self.tasks[o].2.clone(),
            Level::Appl => {
                let r = &self.appls[o];
                if r.is_empty() {
                    0..0
                } else {
                    self.tasks[r.start].2.start..self.tasks[r.end - 1].2.end
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
                let first = self.tasks[self.task_of(threads.start)].0 as usize - 1;
                let last = self.tasks[self.task_of(threads.end.saturating_sub(1))].0 as usize - 1;
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
            Level::Appl => self.tasks[self.task_of(t)].0 as usize - 1,
            _ => 0,
        }
    }

    /// The bare numeric id of paramedir's timeline dumps: `1.2.1`, `1.2`, `1`; empty for
    /// the workload and the system.
    pub fn id(&self, level: Level, o: usize) -> String {
        match level {
            Level::Workload | Level::System => String::new(),
            Level::Thread => {
                let (a, t, h) = self.threads[o];
                format!("{a}.{t}.{h}")
            }
            Level::Task => {
                let (a, t, _) = &self.tasks[o];
                format!("{a}.{t}")
            }
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
            Level::Thread if o < self.threads.len() => {
                let (a, t, h) = self.threads[o];
                vec![a as usize, t as usize, h as usize]
            }
            Level::Task if o < self.tasks.len() => {
                let (a, t, _) = &self.tasks[o];
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

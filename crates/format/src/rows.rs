//! The process model as rows: (application, task, thread) to the 0-based row of a thread.

use crate::header::Header;

/// Maps (application, task, thread), all 1-based, to a 0-based row.
#[derive(Debug, Clone)]
pub struct RowMap {
    /// Per application: index of its first task in `tasks`.
    appl_first_task: Vec<u32>,
    /// Per task over all applications: (first row, thread count).
    tasks: Vec<(u32, u32)>,
    /// Per task over all applications: its node as written (1-based; 0 without nodes).
    task_node: Vec<u32>,
    /// Per CPU (global order): its node, 1-based; empty when the header has no nodes.
    cpu_node: Vec<u32>,
    rows: usize,
}

/// Why Paraver leaves out a record of a thread the header has: its CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuMisfit {
    /// The CPU is beyond the header's CPUs (`cpus` of them).
    NotInHeader { cpus: usize },
    /// The CPU lies on `cpu_node` but the record's task runs on `task_node` (both 1-based).
    OtherNode { cpu_node: u32, task_node: u32 },
}

impl RowMap {
    /// Builds the map from the header's application model.
    pub fn new(header: &Header) -> Self {
        let mut appl_first_task = Vec::with_capacity(header.applications.len() + 1);
        let mut tasks = Vec::new();
        let mut task_node = Vec::new();
        let mut row = 0u32;
        for app in &header.applications {
            appl_first_task.push(tasks.len() as u32);
            for t in &app.tasks {
                tasks.push((row, t.threads));
                task_node.push(t.node);
                row += t.threads;
            }
        }
        appl_first_task.push(tasks.len() as u32);
        let cpu_node = (1u32..)
            .zip(&header.node_cpus)
            .flat_map(|(node, &cpus)| std::iter::repeat_n(node, cpus as usize))
            .collect();
        RowMap {
            appl_first_task,
            tasks,
            task_node,
            cpu_node,
            rows: row as usize,
        }
    }

    /// The rows of each application, in order.
    pub fn application_rows(&self) -> Vec<std::ops::Range<usize>> {
        let first = |t: u32| {
            self.tasks
                .get(t as usize)
                .map_or(self.rows, |&(row, _)| row as usize)
        };
        self.appl_first_task
            .iter()
            .zip(self.appl_first_task.iter().skip(1))
            .map(|(&a, &b)| first(a)..first(b))
            .collect()
    }

    /// Whether Paraver keeps a record of (application, task) on `cpu` (1-based, 0 for none),
    /// as its trace reader checks each record's location: CPU 0 always fits; any other CPU
    /// must be one of the header's and lie on the node the task runs on. A header without
    /// nodes has no CPUs, so there every CPU but 0 is refused. Paraver prints "Error reading
    /// state record" for the others and goes on without them.
    ///
    /// `Ok` also when the task is not in the header (that is reported on its own).
    #[inline]
    pub fn cpu_fits(&self, cpu: u64, appl: u64, task: u64) -> Result<(), CpuMisfit> {
        if cpu == 0 {
            return Ok(());
        }
        let Some(&cpu_node) = usize::try_from(cpu - 1)
            .ok()
            .and_then(|c| self.cpu_node.get(c))
        else {
            return Err(CpuMisfit::NotInHeader {
                cpus: self.cpu_node.len(),
            });
        };
        let Some(t) = self.task_index(appl, task) else {
            return Ok(());
        };
        let task_node = self.task_node.get(t).copied().unwrap_or(0);
        if task_node == cpu_node {
            Ok(())
        } else {
            Err(CpuMisfit::OtherNode {
                cpu_node,
                task_node,
            })
        }
    }

    /// Index in `tasks` of a 1-based (application, task).
    #[inline]
    fn task_index(&self, appl: u64, task: u64) -> Option<usize> {
        let a = usize::try_from(appl).ok()?.checked_sub(1)?;
        let first = u64::from(*self.appl_first_task.get(a)?);
        let next = u64::from(*self.appl_first_task.get(a + 1)?);
        let t = first + task.checked_sub(1)?;
        if t >= next {
            return None;
        }
        usize::try_from(t).ok()
    }

    /// Number of rows (threads).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The rows of a 1-based (application, task), if the header has it.
    #[inline]
    pub fn task_rows(&self, appl: u64, task: u64) -> Option<std::ops::Range<u32>> {
        let &(row0, n) = self.tasks.get(self.task_index(appl, task)?)?;
        Some(row0..row0 + n)
    }

    /// The 0-based row of a 1-based (application, task, thread), if the header has it.
    #[inline]
    pub fn row(&self, appl: u64, task: u64, thread: u64) -> Option<u32> {
        let rows = self.task_rows(appl, task)?;
        let th = thread.checked_sub(1)?;
        (th < u64::from(rows.end - rows.start)).then(|| rows.start + th as u32)
    }
}

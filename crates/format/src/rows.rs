//! The process model as rows: (application, task, thread) to the 0-based row of a thread.

use crate::header::Header;

/// Maps (application, task, thread), all 1-based, to a 0-based row.
#[derive(Debug, Clone)]
pub struct RowMap {
    /// Per application: index of its first task in `tasks`.
    appl_first_task: Vec<u32>,
    /// Per task over all applications: (first row, thread count).
    tasks: Vec<(u32, u32)>,
    rows: usize,
}

impl RowMap {
    /// Builds the map from the header's application model.
    pub fn new(header: &Header) -> Self {
        let mut appl_first_task = Vec::with_capacity(header.applications.len() + 1);
        let mut tasks = Vec::new();
        let mut row = 0u32;
        for app in &header.applications {
            appl_first_task.push(tasks.len() as u32);
            for t in &app.tasks {
                tasks.push((row, t.threads));
                row += t.threads;
            }
        }
        appl_first_task.push(tasks.len() as u32);
        RowMap {
            appl_first_task,
            tasks,
            rows: row as usize,
        }
    }

    /// Number of rows (threads).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The rows of a 1-based (application, task), if the header has it.
    #[inline]
    pub fn task_rows(&self, appl: u64, task: u64) -> Option<std::ops::Range<u32>> {
        let a = usize::try_from(appl).ok()?.checked_sub(1)?;
        let first = u64::from(*self.appl_first_task.get(a)?);
        let next = u64::from(*self.appl_first_task.get(a + 1)?);
        let t = first + task.checked_sub(1)?;
        if t >= next {
            return None;
        }
        let &(row0, n) = self.tasks.get(usize::try_from(t).ok()?)?;
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

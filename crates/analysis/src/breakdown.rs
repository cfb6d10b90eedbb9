//! A scope's breakdown: its inclusive time on each thread split by thread state (category),
//! from a [`ScopeAnalysis`]'s blocks and cells, with its totals and a CSV form. What the
//! viewer's breakdown windows plot.
//!
//! A cell counts for the scope when the scope is on its block's path (once, however many times
//! it recurses there), exactly as the analysis counts inclusive time: per thread the sums are
//! [`ScopeStats::inclusive_per_thread`], per category [`ScopeStats::inclusive_per_category`].
//!
//! [`ScopeStats::inclusive_per_thread`]: crate::scopes::ScopeStats::inclusive_per_thread
//! [`ScopeStats::inclusive_per_category`]: crate::scopes::ScopeStats::inclusive_per_category

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::scopes::{Category, ScopeAnalysis, ScopeKey};
use crate::table::csv_field;

/// One scope's inclusive time per thread and category over the analysis's window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakdown {
    pub key: ScopeKey,
    /// The window analysed, `[t0, t1)` in ticks.
    pub t0: u64,
    pub t1: u64,
    /// Per thread (store row): ticks per category (empty for a thread the scope never ran on).
    pub per_thread: Vec<BTreeMap<Category, u64>>,
    /// Per category, summed over the threads.
    pub per_category: BTreeMap<Category, u64>,
    /// The scope's inclusive time, summed over the threads.
    pub total: u64,
}

impl Breakdown {
    /// The breakdown of `key` in `a`; `None` when the analysis has no such scope.
    pub fn of(a: &ScopeAnalysis, key: ScopeKey) -> Option<Self> {
        let scope = a.find(key)?;
        // Which blocks hold the scope, once each.
        let holds: Vec<bool> = a.blocks.iter().map(|b| b.path.contains(&scope)).collect();
        Some(Self::of_blocks(a, key, |block| {
            holds.get(block).copied().unwrap_or(false)
        }))
    }

    /// The breakdown of all the time `a` counts, in scopes and outside them (the time of an
    /// analysis restricted to intervals, as a cluster's bursts), called `key`.
    pub fn all(a: &ScopeAnalysis, key: ScopeKey) -> Self {
        Self::of_blocks(a, key, |_| true)
    }

    /// The time of the cells of `a` whose block `counts`, called `key`.
    fn of_blocks(a: &ScopeAnalysis, key: ScopeKey, counts: impl Fn(usize) -> bool) -> Self {
        let mut per_thread: Vec<BTreeMap<Category, u64>> = vec![BTreeMap::new(); a.threads];
        let mut per_category: BTreeMap<Category, u64> = BTreeMap::new();
        let mut total = 0;
        for c in a.cells.iter().filter(|c| c.ticks > 0 && counts(c.block)) {
            if let Some(t) = per_thread.get_mut(c.thread as usize) {
                *t.entry(c.category).or_insert(0) += c.ticks;
            }
            *per_category.entry(c.category).or_insert(0) += c.ticks;
            total += c.ticks;
        }
        Breakdown {
            key,
            t0: a.t0,
            t1: a.t1,
            per_thread,
            per_category,
            total,
        }
    }

    /// Window length in ticks (the time of each thread), at least 1.
    pub fn span(&self) -> u64 {
        self.t1.saturating_sub(self.t0).max(1)
    }

    /// The categories the scope spent time in, in order.
    pub fn categories(&self) -> Vec<Category> {
        self.per_category.keys().copied().collect()
    }

    /// The scope's time on thread `row`.
    pub fn thread_total(&self, row: usize) -> u64 {
        self.per_thread.get(row).map_or(0, |m| m.values().sum())
    }

    /// The scope's time on thread `row` in category `c`.
    pub fn ticks(&self, row: usize, c: Category) -> u64 {
        self.per_thread
            .get(row)
            .and_then(|m| m.get(&c))
            .copied()
            .unwrap_or(0)
    }

    /// The time of a group of threads (a task, a node) per category.
    pub fn group(&self, rows: &[usize]) -> BTreeMap<Category, u64> {
        let mut out = BTreeMap::new();
        for m in rows.iter().filter_map(|&r| self.per_thread.get(r)) {
            for (&c, &t) in m {
                *out.entry(c).or_insert(0) += t;
            }
        }
        out
    }

    /// `ticks` as a percentage of `threads` threads' time over the window.
    pub fn percent_of_window(&self, ticks: u64, threads: usize) -> f64 {
        100.0 * ticks as f64 / (self.span() as f64 * threads.max(1) as f64)
    }

    /// CSV with a header line, then one line per thread of `threads` (store row and label)
    /// and category the scope spent time in: `thread,state,ticks,percent`, the percentage
    /// being of the thread's time over the window.
    pub fn csv(
        &self,
        threads: &[(usize, String)],
        category_label: impl Fn(Category) -> String,
    ) -> String {
        let mut s = String::from("thread,state,ticks,percent\n");
        for (row, name) in threads {
            let Some(m) = self.per_thread.get(*row) else {
                continue;
            };
            for (&c, &t) in m {
                let _ = writeln!(
                    s,
                    "{},{},{t},{:.4}",
                    csv_field(name),
                    csv_field(&category_label(c)),
                    self.percent_of_window(t, 1)
                );
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scopes::tests::{run, trace_of};

    /// Two threads: main on both, solve and a collective inside it on thread 1, states.
    fn analysis() -> ScopeAnalysis {
        let t = trace_of(
            2,
            100,
            "1:1:1:1:1:0:30:1\n1:1:1:1:1:30:50:5\n1:1:1:1:1:50:100:1\n1:2:1:1:2:0:60:1\n\
2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:60000019:2\n2:1:1:1:1:30:50000002:10\n\
2:1:1:1:1:50:50000002:N\n2:1:1:1:1:60:60000019:N\n2:2:1:1:2:5:60000019:1\n\
2:2:1:1:2:20:60000019:3\n2:2:1:1:2:25:60000019:3\n2:2:1:1:2:35:60000019:N\n\
2:2:1:1:2:40:60000019:N\n",
        );
        run(&t, 0, 100)
    }

    #[test]
    fn the_sums_are_the_scopes_inclusive_time_per_thread_and_category() {
        let a = analysis();
        for s in &a.scopes {
            let b = Breakdown::of(&a, s.key).unwrap();
            let per_thread: Vec<u64> = (0..a.threads).map(|r| b.thread_total(r)).collect();
            assert_eq!(per_thread, s.inclusive_per_thread, "{}", s.name);
            assert_eq!(b.per_category, s.inclusive_per_category, "{}", s.name);
            assert_eq!(b.total, s.inclusive, "{}", s.name);
            let both: u64 = b.group(&[0, 1]).values().sum();
            assert_eq!(both, s.inclusive);
        }
        let main = a.scopes.iter().find(|s| s.name == "main").unwrap();
        let b = Breakdown::of(&a, main.key).unwrap();
        // Thread 1: Running [0,30) and [50,100), Synchronization [30,50); thread 2: main from
        // 5, Running until 60, no state after.
        assert_eq!(b.ticks(0, Category::State(1)), 80);
        assert_eq!(b.ticks(0, Category::State(5)), 20);
        assert_eq!(b.ticks(1, Category::State(1)), 55);
        assert_eq!(b.ticks(1, Category::NoState), 40);
        assert_eq!(
            b.categories(),
            [Category::State(1), Category::State(5), Category::NoState]
        );
        assert!((b.percent_of_window(95, 1) - 95.0).abs() < 1e-9);
        assert!((b.percent_of_window(100, 2) - 50.0).abs() < 1e-9);
        // Recursion is counted once: fib [20, 40) on thread 2, twice nested over [25, 35).
        let fib = a.scopes.iter().find(|s| s.name == "fib").unwrap();
        assert_eq!(Breakdown::of(&a, fib.key).unwrap().thread_total(1), 20);
        assert_eq!(Breakdown::of(&a, ScopeKey { ty: 1, value: 1 }), None);
    }

    #[test]
    fn the_csv_has_a_line_per_thread_and_state_with_its_share_of_the_window() {
        let a = analysis();
        let main = a.scopes.iter().find(|s| s.name == "main").unwrap();
        let b = Breakdown::of(&a, main.key).unwrap();
        let threads = vec![(0, "THREAD 1.1.1".to_owned()), (1, "worker, 2".to_owned())];
        let label = |c: Category| match c {
            Category::State(1) => "Running".to_owned(),
            Category::State(v) => format!("state {v}"),
            Category::NoState => "no state".to_owned(),
        };
        assert_eq!(
            b.csv(&threads, label),
            "thread,state,ticks,percent\n\
THREAD 1.1.1,Running,80,80.0000\n\
THREAD 1.1.1,state 5,20,20.0000\n\
\"worker, 2\",Running,55,55.0000\n\
\"worker, 2\",no state,40,40.0000\n"
        );
    }
}

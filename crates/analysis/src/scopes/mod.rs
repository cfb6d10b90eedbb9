//! Scope analysis, after Carnival (Nunes et al.): where the time goes in the source code.
//!
//! Some event types are "bursts": a non-null value enters a region (a function, an MPI call,
//! an OpenMP outlined function) and a null value leaves it. Each thread keeps one stack of
//! open scopes across the chosen types. A **block** is a distinct stack; time is accumulated
//! per (block, thread, category), the category being the thread's state at that time. From
//! the blocks:
//! - exclusive (non-cumulative) time of a scope = the blocks whose top is that scope;
//! - inclusive (cumulative) time = the blocks whose stack holds it, counted once however many
//!   times it is on the stack (recursion);
//! - entries = how many times it was entered inside the window.
//!
//! Types nest in one of three ways ([`Nesting`]), one semantics in every null mode:
//! Extrae's function types (user, OpenMP, task and pthread functions, Paraver's stacked
//! values) push a frame per value and pop one per null, the trace's end value (0 in legacy
//! traces, `N` in NULL mode) (`Stack`). Every other type holds one value at a time, which
//! each new value replaces and a null ends, as Paraver's "Last Evt Val" reads it: MPI and
//! pthread calls, and any type not known to nest, above the functions (`Leaf`: a call made
//! from the function open at the time, the latest call innermost); sampled functions, callers
//! and state-like types (ovni's subsystem or task type of the running thread) below them
//! (`Replace`, ordered by the type's position in the query, so that a block's path does not
//! depend on which type changed first). In NULL mode 0 is a value like any other: "Outside
//! MPI" is a row of its own, which holds below the functions (time outside a call stays the
//! functions' own) and never nests a call of its type. A held value's change re-links the
//! frames above it under the new path and never closes them; at one time a `Replace` type
//! takes the last of its events there, the value its "last event value" view shows. A null
//! with no open frame of its type, and `Stack` frames left open above a `Stack` frame that
//! is closed, are counted in the [`ScopeReport`], never a failure.
//!
//! Per-line heat comes from line events when the trace has them: sampled lines (30000100..)
//! hold until the next sample of their depth, and caller lines (80000001.., written with an
//! MPI call) hold while the scope entered with them is open; every level's line gets that
//! time. Otherwise a scope's exclusive time heats its first line ([`ScopeAnalysis::heat`]).
//!
//! Any window `[t0, t1)` can be analysed: the stacks at `t0` are rebuilt by replaying the
//! events before it (for the types that hold a value only the last value at `t0` is read), then time is
//! accumulated to `t1`. Threads are analysed in parallel and the work can be cancelled.

use std::collections::BTreeMap;

use crate::source::SourceLoc;

mod merge;
mod naming;
#[cfg(test)]
pub(crate) mod tests;
mod types;
mod walk;

pub use merge::{analyze, analyze_within, scope_instances, scope_intervals, stack_at};
pub use naming::ScopeContext;
pub use types::{Nesting, ScopeType, auto_types, state_type, with_callers};

/// The deepest stack kept: deeper entries are counted in [`ScopeReport::too_deep`] and
/// skipped, so a type that never leaves (a counter chosen as scopes) cannot make the analysis
/// quadratic.
pub const MAX_DEPTH: usize = 256;

pub use prvscope_format::catalog::{
    TYPE_MPI_FIRST, TYPE_MPI_LAST, TYPE_OMP_FUNCTION, TYPE_OMP_TASK_FUNCTION,
    TYPE_SAMPLED_FUNCTION, TYPE_USER_FUNCTION, line_type_of,
};
/// A scope: an event type and one of its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeKey {
    pub ty: u32,
    pub value: u64,
}

/// What a thread was doing: its state, or no state record at that time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    State(u64),
    NoState,
}

/// What to analyse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeQuery {
    pub types: Vec<ScopeType>,
    /// Window start, in ticks.
    pub t0: u64,
    /// Window end (exclusive), in ticks.
    pub t1: u64,
}

/// Irregularities met while building the stacks (inside the window).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScopeReport {
    /// Nulls of a type that had no open frame.
    pub exits_without_entry: u64,
    /// `Stack` frames closed because a frame of their type below them was closed.
    pub unclosed_inner: u64,
    /// `Stack` frames still open at the window's end (a held value is not left open).
    pub open_at_end: u64,
    /// Values not entered because the stack was already [`MAX_DEPTH`] deep (a type whose
    /// values are not bursts, such as a counter, read as scopes).
    pub too_deep: u64,
}

impl ScopeReport {
    pub(super) fn add(&mut self, o: &ScopeReport) {
        self.exits_without_entry += o.exits_without_entry;
        self.unclosed_inner += o.unclosed_inner;
        self.open_at_end += o.open_at_end;
        self.too_deep += o.too_deep;
    }
}

/// Statistics of one scope over the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeStats {
    pub key: ScopeKey,
    pub name: String,
    pub location: Option<SourceLoc>,
    /// Times entered inside the window.
    pub entries: u64,
    /// Per thread (store row).
    pub entries_per_thread: Vec<u64>,
    /// Ticks, summed over threads.
    pub inclusive: u64,
    pub exclusive: u64,
    /// Per thread (store row).
    pub inclusive_per_thread: Vec<u64>,
    pub exclusive_per_thread: Vec<u64>,
    /// Per category, summed over threads.
    pub inclusive_per_category: BTreeMap<Category, u64>,
    pub exclusive_per_category: BTreeMap<Category, u64>,
}

/// A distinct stack of scopes (indices into [`ScopeAnalysis::scopes`], outermost first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub path: Vec<usize>,
}

/// Time of one block on one thread in one category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub block: usize,
    pub thread: u32,
    pub category: Category,
    pub ticks: u64,
}

/// Where line heat comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatSource {
    /// Sampled or caller line events.
    LineEvents,
    /// Exclusive time of the scopes, on their first lines.
    ScopeFirstLines,
}

/// The result of [`analyze`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeAnalysis {
    pub t0: u64,
    pub t1: u64,
    pub threads: usize,
    /// The threads whose records the store holds (all of them unless only some were loaded).
    pub loaded_threads: usize,
    /// Per store row: does its time count? A row left out of a partial load does not, nor a
    /// row that did not run the program ([`counter_only`]: only counters and samples, as
    /// the uncore rows of an Extrae trace): its values are not scopes of the program, and
    /// its time would dilute every share.
    pub counted: Vec<bool>,
    pub types: Vec<ScopeType>,
    /// Every scope with time or entries in the window, by inclusive time (largest first).
    pub scopes: Vec<ScopeStats>,
    /// The block database; block 0 is the empty stack (time outside every scope).
    pub blocks: Vec<Block>,
    pub cells: Vec<Cell>,
    /// Ticks per source line from line events.
    pub line_heat: BTreeMap<SourceLoc, u64>,
    pub report: ScopeReport,
    /// A pair of the scope types whose events share timestamps in an order the store does
    /// not keep (`TraceStore::inversions`): at those instants the walk infers it (a call left
    /// before the next is entered), which Paraver, reading the file's order, may not.
    pub order_inferred: Option<(u32, u32)>,
    /// Of an analysis within intervals ([`analyze_within`]): the blocks (stacks) open where
    /// the intervals end, and how many end in each; empty otherwise.
    pub ends: Vec<(usize, u64)>,
}

impl ScopeAnalysis {
    /// Window length in ticks (the time of each thread).
    pub fn span(&self) -> u64 {
        self.t1 - self.t0
    }

    /// The time of the counted threads over the window (at least 1): what shares of the
    /// threads' time are shares of. A partial load, or rows that did not run the program,
    /// make it fewer than [`Self::threads`] ([`Self::counted`]).
    pub fn threads_ticks(&self) -> f64 {
        self.rows_ticks(&self.counted_rows())
    }

    /// The time of `rows` over the window (at least 1).
    pub fn rows_ticks(&self, rows: &[usize]) -> f64 {
        (self.span() as f64 * rows.len().max(1) as f64).max(1.0)
    }

    /// The rows whose time counts ([`Self::counted`]).
    pub fn counted_rows(&self) -> Vec<usize> {
        (0..self.counted.len())
            .filter(|&r| self.counted.get(r).copied().unwrap_or(false))
            .collect()
    }

    /// The analysis of `rows` only (an application's threads): the same scopes and blocks,
    /// their times, entries and cells those of these rows, the other rows not counted. Line
    /// heat, which is not kept per thread, stays that of every row.
    #[must_use]
    pub fn restricted_to(&self, rows: &[usize]) -> ScopeAnalysis {
        let cells: Vec<Cell> = self
            .cells
            .iter()
            .filter(|c| rows.contains(&(c.thread as usize)))
            .copied()
            .collect();
        let mut scopes: Vec<ScopeStats> = self
            .scopes
            .iter()
            .map(|s| ScopeStats {
                entries: rows
                    .iter()
                    .filter_map(|&r| s.entries_per_thread.get(r))
                    .sum(),
                entries_per_thread: (0..s.entries_per_thread.len())
                    .map(|r| {
                        if rows.contains(&r) {
                            s.entries_per_thread[r]
                        } else {
                            0
                        }
                    })
                    .collect(),
                inclusive: 0,
                exclusive: 0,
                inclusive_per_thread: vec![0; s.inclusive_per_thread.len()],
                exclusive_per_thread: vec![0; s.exclusive_per_thread.len()],
                inclusive_per_category: BTreeMap::new(),
                exclusive_per_category: BTreeMap::new(),
                ..s.clone()
            })
            .collect();
        merge::add_cells(&mut scopes, &self.blocks, &cells);
        ScopeAnalysis {
            scopes,
            cells,
            counted: (0..self.counted.len())
                .map(|r| rows.contains(&r) && self.counted.get(r).copied().unwrap_or(false))
                .collect(),
            ..self.clone()
        }
    }

    /// What to tell about the order of the scope types' events at one timestamp, if
    /// anything.
    pub fn order_note(&self) -> Option<String> {
        self.order_inferred.map(|(x, y)| {
            format!(
                "events of types {x} and {y} share timestamps where the trace gives {x} \
                 first, an order the store does not keep: the nesting there is inferred (a \
                 call left before the next is entered)"
            )
        })
    }

    /// Which rows the analysis counts, in words: `8 of 20 threads (12 rows without states,
    /// only counters or samples, left out)`.
    pub fn counted_text(&self) -> String {
        let counted = self.counted_rows().len();
        let mut s = format!("{counted} of {} threads", self.threads);
        let mut why = Vec::new();
        let other = self.loaded_threads.saturating_sub(counted);
        if other > 0 {
            why.push(format!(
                "{other} rows without states, only counters or samples, left out"
            ));
        }
        if self.loaded_threads < self.threads {
            why.push(format!("{} not loaded", self.threads - self.loaded_threads));
        }
        if !why.is_empty() {
            let _ = std::fmt::Write::write_fmt(&mut s, format_args!(" ({})", why.join("; ")));
        }
        s
    }

    /// The scopes with their times and entries summed over `rows` only (an application's
    /// threads), by inclusive time; scopes with neither left out.
    pub fn scopes_of(&self, rows: &[usize]) -> Vec<ScopeStats> {
        let mut out: Vec<ScopeStats> = self
            .restricted_to(rows)
            .scopes
            .into_iter()
            .filter(|s| s.inclusive > 0 || s.entries > 0)
            .collect();
        out.sort_by(|a, b| {
            b.inclusive
                .cmp(&a.inclusive)
                .then_with(|| a.key.cmp(&b.key))
        });
        out
    }

    /// The index of a scope.
    pub fn find(&self, key: ScopeKey) -> Option<usize> {
        self.scopes.iter().position(|s| s.key == key)
    }

    /// Heat per line of the file named `file_name`: from line events when any reach that
    /// file, else each scope's exclusive time on its first line.
    pub fn heat(&self, file_name: &str) -> (BTreeMap<u32, u64>, HeatSource) {
        let from_lines: BTreeMap<u32, u64> = self
            .line_heat
            .iter()
            .filter(|(loc, _)| loc.file_name() == file_name)
            .map(|(loc, &t)| (loc.line, t))
            .collect();
        if !from_lines.is_empty() {
            return (from_lines, HeatSource::LineEvents);
        }
        let mut heat = BTreeMap::new();
        for s in &self.scopes {
            if let Some(loc) = &s.location
                && loc.file_name() == file_name
                && s.exclusive > 0
            {
                *heat.entry(loc.line).or_insert(0) += s.exclusive;
            }
        }
        (heat, HeatSource::ScopeFirstLines)
    }

    /// The source files the scopes and line events point at, most heated first.
    pub fn files(&self) -> Vec<String> {
        let mut time: BTreeMap<String, u64> = BTreeMap::new();
        for s in &self.scopes {
            if let Some(loc) = &s.location {
                *time.entry(loc.file_name().to_owned()).or_insert(0) += s.inclusive;
            }
        }
        for (loc, &t) in &self.line_heat {
            *time.entry(loc.file_name().to_owned()).or_insert(0) += t;
        }
        let mut files: Vec<(String, u64)> = time.into_iter().collect();
        files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        files.into_iter().map(|f| f.0).collect()
    }
}

/// Did this row not run the program? It holds no state record, and its events (if any)
/// are only hardware counters, samples or Extrae's informational types (`30000000..30000199`,
/// `40000000..49999999`): the uncore-counter rows of lulesh's second application, each
/// holding a sampled function for the whole run.
pub fn counter_only(thread: &prvscope_store::ThreadData) -> bool {
    thread.states.is_empty()
        && thread.events.iter().all(|c| {
            (30_000_000..30_000_200).contains(&c.ty) || (40_000_000..50_000_000).contains(&c.ty)
        })
}

/// The analysis was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

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
//! Types nest in one of two ways ([`Nesting`]): Extrae's function and MPI types push a
//! frame per value and pop one per null (`Stack`); sampled functions and state-like types
//! (ovni's subsystem or task type of the running thread) replace their own frame with each
//! new value (`Replace`). A null with no open frame of its type, and frames left open above
//! a frame that is closed, are counted in the [`ScopeReport`], never a failure.
//!
//! Per-line heat comes from line events when the trace has them: sampled lines (30000100..)
//! hold until the next sample of their depth, and caller lines (80000001.., written with an
//! MPI call) hold while the scope entered with them is open; every level's line gets that
//! time. Otherwise a scope's exclusive time heats its first line ([`ScopeAnalysis::heat`]).
//!
//! Any window `[t0, t1)` can be analysed: the stacks at `t0` are rebuilt by replaying the
//! events before it (for `Replace` types only the last value at `t0` is read), then time is
//! accumulated to `t1`. Threads are analysed in parallel and the work can be cancelled.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::source::{SourceLoc, function_name, parse_location};
use prvscope_format::Pcf;
use prvscope_store::{NullPolicy, ThreadData, TraceStore};

/// The deepest stack kept: deeper entries are counted in [`ScopeReport::too_deep`] and
/// skipped, so a type that never leaves (a counter chosen as scopes) cannot make the analysis
/// quadratic.
pub const MAX_DEPTH: usize = 256;

pub use prvscope_format::catalog::{
    TYPE_MPI_FIRST, TYPE_MPI_LAST, TYPE_OMP_FUNCTION, TYPE_OMP_TASK_FUNCTION,
    TYPE_SAMPLED_FUNCTION, TYPE_USER_FUNCTION, line_type_of,
};

/// How a type's values nest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Nesting {
    /// A value pushes a frame, a null pops the topmost frame of the type.
    Stack,
    /// A value replaces the type's frame (and closes what was above it); a null closes it.
    Replace,
}

/// An event type read as scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeType {
    pub ty: u32,
    pub nesting: Nesting,
}

impl ScopeType {
    /// The type with the nesting its numbers imply (sampled functions replace, the rest stack).
    pub fn new(ty: u32) -> Self {
        let nesting = if (TYPE_SAMPLED_FUNCTION..TYPE_SAMPLED_FUNCTION + 100).contains(&ty) {
            Nesting::Replace
        } else {
            Nesting::Stack
        };
        ScopeType { ty, nesting }
    }
}

/// The scope types to use for a trace whose event types are `present`: Extrae's function,
/// OpenMP, MPI and sampled-function types, and types labelled as user regions; when there is
/// none of those (ovni traces), the state-like "subsystem" and "task type" types, which
/// replace their value.
pub fn auto_types(pcf: Option<&Pcf>, present: &[u32]) -> Vec<ScopeType> {
    let label = |ty: u32| {
        pcf.and_then(|p| p.event_label(ty))
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    let known = |ty: u32| {
        matches!(
            ty,
            TYPE_USER_FUNCTION | TYPE_OMP_FUNCTION | TYPE_OMP_TASK_FUNCTION | TYPE_SAMPLED_FUNCTION
        ) || prvscope_format::catalog::is_mpi_call(ty)
    };
    let mut out: Vec<ScopeType> = present
        .iter()
        .filter(|&&ty| {
            known(ty) || {
                let l = label(ty);
                l.contains("user region") || (l.contains("user function") && !l.contains("line"))
            }
        })
        .map(|&ty| ScopeType::new(ty))
        .collect();
    if out.is_empty() {
        out = present
            .iter()
            .filter(|&&ty| {
                let l = label(ty);
                l.contains("subsystem") || l.contains("task type")
            })
            .map(|&ty| ScopeType {
                ty,
                nesting: Nesting::Replace,
            })
            .collect();
    }
    out
}

/// How a line type's events heat lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// Sampled lines: a sample's line holds until the next sample of the same type.
    Sampled,
    /// Caller lines: the line holds while the scope entered with it is open.
    Caller,
}

fn line_kind(ty: u32) -> Option<LineKind> {
    match ty {
        30_000_100..=30_000_199 => Some(LineKind::Sampled),
        80_000_001..=80_000_099 => Some(LineKind::Caller),
        _ => None,
    }
}

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

/// Names, locations and line labels read once from the `.pcf`.
#[derive(Debug, Clone, Default)]
pub struct ScopeContext {
    pcf: Option<Pcf>,
    /// Line events: (line type, value) -> index into `lines`.
    line_of: HashMap<(u32, u64), u32>,
    lines: Vec<SourceLoc>,
    policy: NullPolicy,
}

impl ScopeContext {
    /// Reads the labels of every line type of `pcf` present in `store`.
    pub fn new(pcf: Option<&Pcf>, store: &TraceStore) -> Self {
        let mut ctx = ScopeContext {
            pcf: pcf.cloned(),
            line_of: HashMap::new(),
            lines: Vec::new(),
            policy: store.null_policy(),
        };
        let mut ids: HashMap<SourceLoc, u32> = HashMap::new();
        if let Some(pcf) = pcf {
            for ty in store.event_types() {
                if line_kind(ty).is_none() {
                    continue;
                }
                let Some(info) = pcf.event_types.get(&ty) else {
                    continue;
                };
                for (&value, label) in &info.values {
                    if let Some(loc) = parse_location(label) {
                        let next = ctx.lines.len() as u32;
                        let id = *ids.entry(loc.clone()).or_insert_with(|| {
                            ctx.lines.push(loc);
                            next
                        });
                        ctx.line_of.insert((ty, value), id);
                    }
                }
            }
        }
        ctx
    }

    /// The name a scope is shown with.
    pub fn scope_name(&self, key: ScopeKey) -> String {
        match self
            .pcf
            .as_ref()
            .and_then(|p| p.value_label(key.ty, key.value))
        {
            Some(label) => function_name(label).to_owned(),
            None => {
                format!("{} {}", self.type_label(key.ty), key.value)
            }
        }
    }

    /// The label of a scope's type.
    pub fn type_label(&self, ty: u32) -> String {
        prvscope_format::label::type_label(self.pcf.as_ref(), ty)
    }

    /// Where a scope starts in the source: its line type's label for the same value, or a
    /// location in its own label.
    pub fn scope_location(&self, key: ScopeKey) -> Option<SourceLoc> {
        let pcf = self.pcf.as_ref()?;
        line_type_of(key.ty)
            .and_then(|lt| pcf.value_label(lt, key.value))
            .and_then(parse_location)
            .or_else(|| pcf.value_label(key.ty, key.value).and_then(parse_location))
    }

    /// True when `value` leaves a scope.
    fn is_null(&self, value: u64) -> bool {
        self.policy.is_null(value)
    }
}

/// Irregularities met while building the stacks (inside the window).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScopeReport {
    /// Nulls of a type that had no open frame.
    pub exits_without_entry: u64,
    /// Frames closed because a frame below them was closed or replaced.
    pub unclosed_inner: u64,
    /// Frames still open at the window's end.
    pub open_at_end: u64,
    /// Values not entered because the stack was already [`MAX_DEPTH`] deep (a type whose
    /// values are not bursts, such as a counter, read as scopes).
    pub too_deep: u64,
}

impl ScopeReport {
    fn add(&mut self, o: &ScopeReport) {
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
    pub types: Vec<ScopeType>,
    /// Every scope with time or entries in the window, by inclusive time (largest first).
    pub scopes: Vec<ScopeStats>,
    /// The block database; block 0 is the empty stack (time outside every scope).
    pub blocks: Vec<Block>,
    pub cells: Vec<Cell>,
    /// Ticks per source line from line events.
    pub line_heat: BTreeMap<SourceLoc, u64>,
    pub report: ScopeReport,
}

impl ScopeAnalysis {
    /// Window length in ticks (the time of each thread).
    pub fn span(&self) -> u64 {
        self.t1 - self.t0
    }

    /// The time of the loaded threads over the window (at least 1): what shares of the
    /// threads' time are shares of. A partial load makes [`Self::loaded_threads`] fewer than
    /// [`Self::threads`].
    pub fn threads_ticks(&self) -> f64 {
        (self.span() as f64 * self.loaded_threads.max(1) as f64).max(1.0)
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

/// The analysis was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// Analyses `query` over `store`; `cancel` stops it early.
pub fn analyze(
    store: &TraceStore,
    ctx: &ScopeContext,
    query: &ScopeQuery,
    cancel: Option<&AtomicBool>,
) -> Result<ScopeAnalysis, Cancelled> {
    let t1 = query.t1.max(query.t0);
    let t0 = query.t0;
    let cancelled = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let outs: Vec<Option<ThreadOut>> = store
        .threads()
        .par_iter()
        .map(|thread| {
            if cancelled() {
                return None;
            }
            // Per node, ticks per category (a node sees few categories: a short list).
            let mut cells: Vec<Vec<(Category, u64)>> = Vec::new();
            let mut line_ticks: Vec<u64> = vec![0; ctx.lines.len()];
            let walk = walk_thread(thread, ctx, &query.types, t0, t1, cancel, |span| {
                let ticks = span.to - span.from;
                let node = span.node as usize;
                if cells.len() <= node {
                    cells.resize_with(node + 1, Vec::new);
                }
                if let Some(list) = cells.get_mut(node) {
                    match list.iter_mut().find(|c| c.0 == span.category) {
                        Some(c) => c.1 += ticks,
                        None => list.push((span.category, ticks)),
                    }
                }
                for &l in span.lines {
                    if let Some(t) = line_ticks.get_mut(l as usize) {
                        *t += ticks;
                    }
                }
            })?;
            Some(ThreadOut {
                walk,
                cells,
                line_ticks,
            })
        })
        .collect();
    if cancelled() {
        return Err(Cancelled);
    }
    let threads = store.threads().len();
    let mut scope_index: BTreeMap<ScopeKey, usize> = BTreeMap::new();
    let mut keys: Vec<ScopeKey> = Vec::new();
    let mut block_index: HashMap<Vec<usize>, usize> = HashMap::from([(Vec::new(), 0)]);
    let mut blocks = vec![Block { path: Vec::new() }];
    let mut cells = Vec::new();
    let mut entries: BTreeMap<ScopeKey, u64> = BTreeMap::new();
    let mut line_heat: BTreeMap<SourceLoc, u64> = BTreeMap::new();
    let mut report = ScopeReport::default();
    for (row, out) in outs.into_iter().enumerate() {
        let Some(out) = out else {
            return Err(Cancelled);
        };
        report.add(&out.walk.report);
        for (k, n) in &out.walk.entries {
            *entries.entry(*k).or_insert(0) += n;
        }
        // Local call-tree nodes to global blocks (parents come before their children).
        let mut global = Vec::with_capacity(out.walk.nodes.len());
        for (i, node) in out.walk.nodes.iter().enumerate() {
            let block = if i == 0 {
                0
            } else {
                let parent = global.get(node.parent as usize).copied().unwrap_or(0);
                let scope = *scope_index.entry(node.key).or_insert_with(|| {
                    keys.push(node.key);
                    keys.len() - 1
                });
                let mut path = blocks
                    .get(parent)
                    .map(|b| b.path.clone())
                    .unwrap_or_default();
                path.push(scope);
                *block_index.entry(path.clone()).or_insert_with(|| {
                    blocks.push(Block { path });
                    blocks.len() - 1
                })
            };
            global.push(block);
        }
        for (node, list) in out.cells.into_iter().enumerate() {
            for (category, ticks) in list {
                cells.push(Cell {
                    block: global.get(node).copied().unwrap_or(0),
                    thread: row as u32,
                    category,
                    ticks,
                });
            }
        }
        for (line, ticks) in out.line_ticks.into_iter().enumerate() {
            if ticks > 0
                && let Some(loc) = ctx.lines.get(line)
            {
                *line_heat.entry(loc.clone()).or_insert(0) += ticks;
            }
        }
    }
    for k in entries.keys() {
        scope_index.entry(*k).or_insert_with(|| {
            keys.push(*k);
            keys.len() - 1
        });
    }
    cells.sort_by_key(|c| (c.block, c.thread, c.category));
    let mut scopes: Vec<ScopeStats> = keys
        .iter()
        .map(|&key| ScopeStats {
            key,
            name: ctx.scope_name(key),
            location: ctx.scope_location(key),
            entries: entries.get(&key).copied().unwrap_or(0),
            inclusive: 0,
            exclusive: 0,
            inclusive_per_thread: vec![0; threads],
            exclusive_per_thread: vec![0; threads],
            inclusive_per_category: BTreeMap::new(),
            exclusive_per_category: BTreeMap::new(),
        })
        .collect();
    let mut distinct: Vec<usize> = Vec::new();
    for c in &cells {
        let Some(block) = blocks.get(c.block) else {
            continue;
        };
        let thread = c.thread as usize;
        if let Some(s) = block.path.last().and_then(|&top| scopes.get_mut(top)) {
            s.exclusive += c.ticks;
            if let Some(t) = s.exclusive_per_thread.get_mut(thread) {
                *t += c.ticks;
            }
            *s.exclusive_per_category.entry(c.category).or_insert(0) += c.ticks;
        }
        // Once per scope however many times it is on the stack.
        distinct.clear();
        distinct.extend(&block.path);
        distinct.sort_unstable();
        distinct.dedup();
        for &i in &distinct {
            if let Some(s) = scopes.get_mut(i) {
                s.inclusive += c.ticks;
                if let Some(t) = s.inclusive_per_thread.get_mut(thread) {
                    *t += c.ticks;
                }
                *s.inclusive_per_category.entry(c.category).or_insert(0) += c.ticks;
            }
        }
    }
    // Sort scopes by inclusive time and renumber the block paths to match.
    let mut order: Vec<usize> = (0..scopes.len()).collect();
    order.sort_by(|&a, &b| {
        scopes[b]
            .inclusive
            .cmp(&scopes[a].inclusive)
            .then_with(|| scopes[a].key.cmp(&scopes[b].key))
    });
    let mut new_index = vec![0; scopes.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    for b in &mut blocks {
        for s in &mut b.path {
            *s = new_index.get(*s).copied().unwrap_or(*s);
        }
    }
    let mut slots: Vec<Option<ScopeStats>> = scopes.into_iter().map(Some).collect();
    let scopes = order
        .iter()
        .filter_map(|&old| slots.get_mut(old).and_then(Option::take))
        .collect();
    Ok(ScopeAnalysis {
        t0,
        t1,
        threads,
        loaded_threads: store.loaded_rows().len(),
        types: query.types.clone(),
        scopes,
        blocks,
        cells,
        line_heat,
        report,
    })
}

/// The intervals of `[t0, t1)` during which `key` is open on each thread (on any level of
/// the stack), adjacent ones merged: what the timeline highlights for a selected scope.
pub fn scope_intervals(
    store: &TraceStore,
    ctx: &ScopeContext,
    types: &[ScopeType],
    key: ScopeKey,
    t0: u64,
    t1: u64,
    cancel: Option<&AtomicBool>,
) -> Result<Vec<Vec<(u64, u64)>>, Cancelled> {
    let out: Vec<Option<Vec<(u64, u64)>>> = store
        .threads()
        .par_iter()
        .map(|thread| {
            let mut spans: Vec<(u64, u64)> = Vec::new();
            let walk = walk_thread(thread, ctx, types, t0, t1.max(t0), cancel, |span| {
                if span.path_holds(key) {
                    match spans.last_mut() {
                        Some(last) if last.1 == span.from => last.1 = span.to,
                        _ => spans.push((span.from, span.to)),
                    }
                }
            });
            walk.map(|_| spans)
        })
        .collect();
    out.into_iter().map(|o| o.ok_or(Cancelled)).collect()
}

/// One call-tree node of a thread: its parent node and the scope it adds (node 0 is the
/// empty stack).
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    key: ScopeKey,
}

/// What a thread walk found besides its spans.
struct Walk {
    nodes: Vec<Node>,
    /// Entries inside the window per scope.
    entries: BTreeMap<ScopeKey, u64>,
    report: ScopeReport,
}

struct ThreadOut {
    walk: Walk,
    /// Per node: ticks per category.
    cells: Vec<Vec<(Category, u64)>>,
    /// Per line id of the context.
    line_ticks: Vec<u64>,
}

/// A stretch of time with one stack and one category.
struct Span<'a> {
    from: u64,
    to: u64,
    node: u32,
    category: Category,
    /// Line ids heated during the span (distinct).
    lines: &'a [u32],
    /// The open scopes, outermost first.
    stack: &'a [(ScopeKey, u32)],
}

impl Span<'_> {
    fn path_holds(&self, key: ScopeKey) -> bool {
        self.stack.iter().any(|f| f.0 == key)
    }
}

/// One event of a thread walk.
#[derive(Debug, Clone, Copy)]
struct Ev {
    time: u64,
    /// 0: a scope's null, 1: a scope's value, 2: a line event (the order at equal times).
    order: u8,
    ty: u32,
    value: u64,
    nesting: Nesting,
    line: Option<LineKind>,
}

/// Walks one thread's scope and line events and its states over `[t0, t1)`, calling `on_span`
/// for each stretch of constant stack, category and lines. `None` when cancelled.
fn walk_thread(
    thread: &ThreadData,
    ctx: &ScopeContext,
    types: &[ScopeType],
    t0: u64,
    t1: u64,
    cancel: Option<&AtomicBool>,
    mut on_span: impl FnMut(&Span<'_>),
) -> Option<Walk> {
    let mut evs: Vec<Ev> = Vec::new();
    let mut buf_t = vec![0u64; 4096];
    let mut buf_v = vec![0u64; 4096];
    // Copies the events `from..` (before `t1`) of a column, each as `template` with its time
    // and value.
    let mut gather = |col: &prvscope_store::EventColumn, from: usize, template: Ev| {
        let stop = col.time.lower_bound(t1);
        let mut i = from;
        while i < stop {
            let want = (stop - i).min(buf_t.len());
            let got = col.time.read(i, buf_t.get_mut(..want).unwrap_or_default());
            col.value.read(i, buf_v.get_mut(..got).unwrap_or_default());
            if got == 0 {
                break;
            }
            for (&time, &value) in buf_t.iter().zip(&buf_v).take(got) {
                let order = if template.line.is_some() {
                    2
                } else {
                    u8::from(!ctx.is_null(value))
                };
                evs.push(Ev {
                    time,
                    order,
                    value,
                    ..template
                });
            }
            i += got;
        }
    };
    for st in types {
        let Some(col) = thread.event_type(st.ty) else {
            continue;
        };
        // A `Replace` type's frame at t0 is its last value: no need to replay further back.
        let from = match st.nesting {
            Nesting::Replace => col.last_at_or_before(t0).unwrap_or(0),
            Nesting::Stack => 0,
        };
        let template = Ev {
            time: 0,
            order: 0,
            ty: st.ty,
            value: 0,
            nesting: st.nesting,
            line: None,
        };
        gather(col, from, template);
    }
    for col in &thread.events {
        let Some(kind) = line_kind(col.ty) else {
            continue;
        };
        let from = col.last_at_or_before(t0).unwrap_or(0);
        let template = Ev {
            time: 0,
            order: 2,
            ty: col.ty,
            value: 0,
            nesting: Nesting::Stack,
            line: Some(kind),
        };
        gather(col, from, template);
    }
    evs.sort_by_key(|e| (e.time, e.order));

    let mut nodes = vec![Node {
        parent: 0,
        key: ScopeKey { ty: 0, value: 0 },
    }];
    // Per node: its children (few per node, so a list beats hashing).
    let mut children: Vec<Vec<(ScopeKey, u32)>> = vec![Vec::new()];
    let mut node_entries: Vec<u64> = vec![0];
    let mut stack: Vec<(ScopeKey, u32)> = Vec::new();
    let mut report = ScopeReport::default();
    let mut sampled: Vec<(u32, u32)> = Vec::new();
    let mut callers: Vec<u32> = Vec::new();
    let mut lines: Vec<u32> = Vec::new();

    let states = &thread.states;
    let state_range = states.overlapping(t0, t1);
    let mut si = state_range.start;
    let sn = state_range.end;
    let mut now = t0;

    let mut i = 0;
    while i <= evs.len() {
        let te = evs.get(i).map_or(t1, |e| e.time.clamp(t0, t1));
        // Time from `now` to the next events, split by states.
        if te > now {
            lines.clear();
            lines.extend(sampled.iter().map(|s| s.1));
            lines.extend(&callers);
            lines.sort_unstable();
            lines.dedup();
            let node = stack.last().map_or(0, |f| f.1);
            while now < te {
                while si < sn && states.end.get(si) <= now {
                    si += 1;
                }
                let (category, until) = if si < sn && states.begin.get(si) <= now {
                    (
                        Category::State(states.value.get(si)),
                        states.end.get(si).min(te),
                    )
                } else if si < sn {
                    (Category::NoState, states.begin.get(si).min(te))
                } else {
                    (Category::NoState, te)
                };
                let until = until.max(now + 1).min(te);
                on_span(&Span {
                    from: now,
                    to: until,
                    node,
                    category,
                    lines: &lines,
                    stack: &stack,
                });
                now = until;
            }
        }
        if i == evs.len() || te >= t1 {
            break;
        }
        if i % 65_536 == 0 && cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return None;
        }
        // All events at this time: scope nulls, then scope values, then lines.
        let time = evs.get(i).map_or(t1, |e| e.time);
        let in_window = time >= t0;
        let mut changed = false;
        while let Some(e) = evs.get(i).filter(|e| e.time == time) {
            i += 1;
            if let Some(kind) = e.line {
                if changed {
                    callers.clear();
                    changed = false;
                }
                let line = (!ctx.is_null(e.value))
                    .then(|| ctx.line_of.get(&(e.ty, e.value)).copied())
                    .flatten();
                match kind {
                    LineKind::Sampled => {
                        sampled.retain(|s| s.0 != e.ty);
                        if let Some(l) = line {
                            sampled.push((e.ty, l));
                        }
                    }
                    LineKind::Caller => callers.extend(line),
                }
                continue;
            }
            changed = true;
            let open = stack.iter().rposition(|f| f.0.ty == e.ty);
            if ctx.is_null(e.value) {
                match open {
                    Some(p) => {
                        if in_window {
                            report.unclosed_inner += (stack.len() - p - 1) as u64;
                        }
                        stack.truncate(p);
                    }
                    None if in_window => report.exits_without_entry += 1,
                    None => {}
                }
                continue;
            }
            if e.nesting == Nesting::Replace
                && let Some(p) = open
            {
                if in_window {
                    report.unclosed_inner += (stack.len() - p - 1) as u64;
                }
                stack.truncate(p);
            }
            let key = ScopeKey {
                ty: e.ty,
                value: e.value,
            };
            if stack.len() >= MAX_DEPTH {
                if in_window {
                    report.too_deep += 1;
                }
                continue;
            }
            let parent = stack.last().map_or(0, |f| f.1);
            let next = nodes.len() as u32;
            let known = children
                .get(parent as usize)
                .and_then(|c| c.iter().find(|c| c.0 == key))
                .map(|c| c.1);
            let node = known.unwrap_or_else(|| {
                nodes.push(Node { parent, key });
                children.push(Vec::new());
                node_entries.push(0);
                if let Some(c) = children.get_mut(parent as usize) {
                    c.push((key, next));
                }
                next
            });
            stack.push((key, node));
            if in_window && let Some(n) = node_entries.get_mut(node as usize) {
                *n += 1;
            }
        }
        if changed {
            callers.clear();
        }
    }
    report.open_at_end = stack.len() as u64;
    let mut entries: BTreeMap<ScopeKey, u64> = BTreeMap::new();
    for (node, &n) in nodes.iter().zip(&node_entries).skip(1) {
        if n > 0 {
            *entries.entry(node.key).or_insert(0) += n;
        }
    }
    Some(Walk {
        nodes,
        entries,
        report,
    })
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use prvscope_import::{self as trace, LoadOptions, Trace};

    /// A one-application trace of `threads` threads from body lines, in the NULL mode
    /// (`N` leaves a scope) with labels for the user functions and their lines.
    fn trace_of(threads: u32, end: u64, body: &str) -> Trace {
        let header =
            format!("#Paraver (01/01/2026 at 00:00):{end}_ns:1({threads}):1:1({threads}:1)\n");
        let text = format!("{header}{body}");
        let pcf = "DEFAULT_OPTIONS\n\nNULL_VALUE N\n\nSTATES\n0 Idle\n1 Running\n5 Synchronization\n\n\
EVENT_TYPE\n0 60000019 User function\nVALUES\n1 main [app.c:3]\n2 solve\n3 fib\n\n\
EVENT_TYPE\n0 60000119 User function line\nVALUES\n2 20 (app.c, app)\n3 40 (app.c, app)\n\n\
EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n10 MPI_Allreduce\n\n";
        let dir = std::env::temp_dir().join(format!(
            "prvscope-scopes-{}-{}",
            std::process::id(),
            std::thread::current()
                .name()
                .unwrap_or("t")
                .replace("::", "_")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let prv = dir.join("t.prv");
        std::fs::write(&prv, text).unwrap();
        std::fs::write(dir.join("t.pcf"), pcf).unwrap();
        trace::load(&prv, &LoadOptions::default(), None).unwrap()
    }

    fn run(trace: &Trace, t0: u64, t1: u64) -> ScopeAnalysis {
        let ctx = ScopeContext::new(trace.pcf.as_ref(), &trace.store);
        let types = auto_types(trace.pcf.as_ref(), &trace.store.event_types());
        analyze(&trace.store, &ctx, &ScopeQuery { types, t0, t1 }, None).unwrap()
    }

    fn scope<'a>(a: &'a ScopeAnalysis, name: &str) -> &'a ScopeStats {
        a.scopes
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no scope {name} in {:?}", a.scopes))
    }

    #[test]
    fn nesting_gives_inclusive_and_exclusive_time_and_categories() {
        // main [0,100) > solve [10,60) > MPI_Allreduce [30,50); Running except a
        // Synchronization state over the collective.
        let t = trace_of(
            1,
            100,
            "1:1:1:1:1:0:30:1\n1:1:1:1:1:30:50:5\n1:1:1:1:1:50:100:1\n\
2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:60000019:2\n2:1:1:1:1:30:50000002:10\n\
2:1:1:1:1:50:50000002:N\n2:1:1:1:1:60:60000019:N\n",
        );
        let a = run(&t, 0, 100);
        let main = scope(&a, "main");
        assert_eq!((main.inclusive, main.exclusive, main.entries), (100, 50, 1));
        assert_eq!(
            main.location.as_ref().map(ToString::to_string).as_deref(),
            Some("app.c:3")
        );
        let solve = scope(&a, "solve");
        assert_eq!((solve.inclusive, solve.exclusive), (50, 30));
        assert_eq!(solve.location.as_ref().map(|l| l.line), Some(20));
        let mpi = scope(&a, "MPI_Allreduce");
        assert_eq!((mpi.inclusive, mpi.exclusive, mpi.entries), (20, 20, 1));
        assert_eq!(
            mpi.exclusive_per_category,
            BTreeMap::from([(Category::State(5), 20)])
        );
        assert_eq!(
            solve.inclusive_per_category,
            BTreeMap::from([(Category::State(1), 30), (Category::State(5), 20)])
        );
        // The scopes are sorted by inclusive time; blocks: [], [main], [main solve], [.. mpi].
        assert_eq!(a.scopes[0].name, "main");
        assert_eq!(a.blocks.len(), 4);
        assert_eq!(
            a.report,
            ScopeReport {
                open_at_end: 1,
                ..ScopeReport::default()
            },
            "main is still open at the end"
        );
        // Heat without line events: exclusive time on first lines.
        let (heat, source) = a.heat("app.c");
        assert_eq!(source, HeatSource::ScopeFirstLines);
        assert_eq!(heat, BTreeMap::from([(3, 50), (20, 30)]));
    }

    #[test]
    fn recursion_is_counted_once_in_inclusive_time() {
        // fib [0,100) > fib [20,80) > fib [40,60).
        let t = trace_of(
            1,
            100,
            "2:1:1:1:1:0:60000019:3\n2:1:1:1:1:20:60000019:3\n2:1:1:1:1:40:60000019:3\n\
2:1:1:1:1:60:60000019:N\n2:1:1:1:1:80:60000019:N\n2:1:1:1:1:100:60000019:N\n",
        );
        let a = run(&t, 0, 100);
        let fib = scope(&a, "fib");
        assert_eq!((fib.inclusive, fib.exclusive, fib.entries), (100, 100, 3));
        assert_eq!(a.blocks.len(), 4, "three distinct stacks of fib");
        assert_eq!(
            fib.inclusive_per_category,
            BTreeMap::from([(Category::NoState, 100)])
        );
    }

    #[test]
    fn scopes_never_left_and_exits_without_entries_are_reported() {
        // Thread 1 enters main and never leaves it; thread 2 leaves a function and an MPI
        // call it never entered, then nests solve in main properly.
        let t = trace_of(
            2,
            100,
            "2:1:1:1:1:10:60000019:1\n\
2:2:1:1:2:5:60000019:N\n2:2:1:1:2:20:60000019:1\n2:2:1:1:2:30:60000019:2\n\
2:2:1:1:2:40:50000002:N\n2:2:1:1:2:50:60000019:N\n2:2:1:1:2:60:60000019:N\n",
        );
        let a = run(&t, 0, 100);
        let main = scope(&a, "main");
        assert_eq!(main.inclusive_per_thread, vec![90, 40]);
        assert_eq!(main.exclusive_per_thread, vec![90, 20]);
        let solve = scope(&a, "solve");
        assert_eq!(solve.inclusive_per_thread, vec![0, 20]);
        assert_eq!(
            a.report,
            ScopeReport {
                exits_without_entry: 2,
                unclosed_inner: 0,
                open_at_end: 1,
                too_deep: 0,
            }
        );
        // Leaving main while an MPI call is open inside it closes the call too.
        let t = trace_of(
            1,
            100,
            "2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:50000002:10\n2:1:1:1:1:20:60000019:N\n",
        );
        let a = run(&t, 0, 100);
        assert_eq!(a.report.unclosed_inner, 1, "MPI closed with main");
        assert_eq!(scope(&a, "MPI_Allreduce").inclusive, 10);
    }

    #[test]
    fn a_type_that_never_leaves_is_capped_at_the_maximum_depth() {
        // 5000 values and no null: a counter read as scopes.
        let mut body = String::new();
        for i in 0..5000 {
            let _ = writeln!(body, "2:1:1:1:1:{i}:60000019:{}", i % 7 + 1);
        }
        let t = trace_of(1, 5000, &body);
        let a = run(&t, 0, 5000);
        assert_eq!(a.report.too_deep, 5000 - MAX_DEPTH as u64);
        assert_eq!(a.report.open_at_end, MAX_DEPTH as u64);
        assert_eq!(a.blocks.len(), MAX_DEPTH + 1);
        let total: u64 = a.cells.iter().map(|c| c.ticks).sum();
        assert_eq!(total, 5000);
    }

    #[test]
    fn a_window_cuts_scopes_and_counts_entries_inside_it() {
        let t = trace_of(
            1,
            100,
            "1:1:1:1:1:0:100:1\n2:1:1:1:1:0:60000019:1\n2:1:1:1:1:10:60000019:2\n\
2:1:1:1:1:30:60000019:N\n2:1:1:1:1:40:60000019:2\n2:1:1:1:1:70:60000019:N\n\
2:1:1:1:1:90:60000019:N\n",
        );
        let a = run(&t, 20, 50);
        assert_eq!((a.t0, a.t1, a.span()), (20, 50, 30));
        let main = scope(&a, "main");
        assert_eq!((main.inclusive, main.exclusive, main.entries), (30, 10, 0));
        let solve = scope(&a, "solve");
        assert_eq!((solve.inclusive, solve.entries), (20, 1));
        // Every thread's time adds up to the window.
        let total: u64 = a.cells.iter().map(|c| c.ticks).sum();
        assert_eq!(total, 30);
        let iv = scope_intervals(
            &t.store,
            &ScopeContext::new(t.pcf.as_ref(), &t.store),
            &a.types,
            solve.key,
            0,
            100,
            None,
        )
        .unwrap();
        assert_eq!(iv, vec![vec![(10, 30), (40, 70)]]);
    }

    #[test]
    fn caller_lines_heat_the_lines_that_made_the_call() {
        let pcf = "EVENT_TYPE\n9 50000002 MPI Collective Comm\nVALUES\n10 MPI_Allreduce\n\n\
EVENT_TYPE\n0 80000001 Caller line at level 1\n0 80000002 Caller line at level 2\nVALUES\n\
5 101 (comm.cc, app)\n6 310 (main.cc, app)\n\n";
        let dir = std::env::temp_dir().join(format!("prvscope-callers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("c.pcf"), pcf).unwrap();
        std::fs::write(
            dir.join("c.prv"),
            "#Paraver (01/01/2026 at 00:00):100_ns:1(1):1:1(1:1)\n\
2:1:1:1:1:10:50000002:10:80000001:5:80000002:6\n2:1:1:1:1:25:50000002:0\n\
2:1:1:1:1:60:50000002:10:80000001:5:80000002:6\n2:1:1:1:1:65:50000002:0\n",
        )
        .unwrap();
        let t = trace::load(&dir.join("c.prv"), &LoadOptions::default(), None).unwrap();
        let a = run(&t, 0, 100);
        assert_eq!(scope(&a, "MPI_Allreduce").inclusive, 20);
        let (heat, source) = a.heat("comm.cc");
        assert_eq!(source, HeatSource::LineEvents);
        assert_eq!(heat, BTreeMap::from([(101, 20)]));
        assert_eq!(a.heat("main.cc").0, BTreeMap::from([(310, 20)]));
        assert_eq!(a.files(), vec!["comm.cc".to_owned(), "main.cc".to_owned()]);
    }
}

//! The parallel passes over the threads: the merge of each thread's walk into one
//! [`ScopeAnalysis`] (scopes, blocks, cells and line heat), and the intervals of one scope.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::source::SourceLoc;
use prvscope_store::TraceStore;

use super::walk::{Walk, walk_thread};
use super::{
    Block, Cancelled, Category, Cell, ScopeAnalysis, ScopeContext, ScopeKey, ScopeQuery,
    ScopeReport, ScopeStats, ScopeType,
};

/// Analyses `query` over `store`; `cancel` stops it early.
pub fn analyze(
    store: &TraceStore,
    ctx: &ScopeContext,
    query: &ScopeQuery,
    cancel: Option<&AtomicBool>,
) -> Result<ScopeAnalysis, Cancelled> {
    analyze_in(store, ctx, query, None, cancel)
}

/// [`analyze`] counting only the time inside `within`: per store row, intervals `[begin,
/// end)` in time order, not overlapping (a cluster's bursts). Scopes, blocks, cells and line
/// heat hold the time of the query's window that falls in them; entries are not counted
/// (0): a call entered outside the intervals may run inside them. [`ScopeAnalysis::ends`]
/// counts the stacks open where the intervals end (for bursts: the call that ends them).
pub fn analyze_within(
    store: &TraceStore,
    ctx: &ScopeContext,
    query: &ScopeQuery,
    within: &[Vec<(u64, u64)>],
    cancel: Option<&AtomicBool>,
) -> Result<ScopeAnalysis, Cancelled> {
    analyze_in(store, ctx, query, Some(within), cancel)
}

/// The ticks of `[from, to)` inside `intervals` (in time order, not overlapping); `k` is the
/// first interval that may still meet a span (the spans of a walk come in time order).
fn overlap(intervals: &[(u64, u64)], k: &mut usize, from: u64, to: u64) -> u64 {
    while intervals.get(*k).is_some_and(|&(_, end)| end <= from) {
        *k += 1;
    }
    intervals
        .get(*k..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&(begin, _)| begin < to)
        .map(|&(begin, end)| end.min(to).saturating_sub(begin.max(from)))
        .sum()
}

fn analyze_in(
    store: &TraceStore,
    ctx: &ScopeContext,
    query: &ScopeQuery,
    within: Option<&[Vec<(u64, u64)>]>,
    cancel: Option<&AtomicBool>,
) -> Result<ScopeAnalysis, Cancelled> {
    let t1 = query.t1.max(query.t0);
    let t0 = query.t0;
    let cancelled = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let counted: Vec<bool> = (0..store.thread_count())
        .map(|r| store.is_row_loaded(r) && store.thread(r).is_some_and(|t| !super::counter_only(t)))
        .collect();
    let outs: Vec<Option<ThreadOut>> = store
        .threads()
        .par_iter()
        .enumerate()
        .map(|(row, thread)| {
            if cancelled() {
                return None;
            }
            let row_within = within.map(|w| w.get(row).map_or(&[][..], Vec::as_slice));
            // A row that does not count is not walked: its values are not the program's
            // scopes, and its time is no one's. Nor is a row without intervals to count.
            if !counted.get(row).copied().unwrap_or(false)
                || row_within.is_some_and(<[_]>::is_empty)
            {
                return Some(ThreadOut {
                    walk: Walk::empty(),
                    cells: Vec::new(),
                    line_ticks: vec![0; ctx.lines.len()],
                    ends: Vec::new(),
                });
            }
            // Per node, ticks per category (a node sees few categories: a short list).
            let mut cells: Vec<Vec<(Category, u64)>> = Vec::new();
            let mut line_ticks: Vec<u64> = vec![0; ctx.lines.len()];
            let mut k = 0;
            // The intervals' ends met so far, and the node open at each.
            let (mut next_end, mut ends) = (0, Vec::new());
            let mut walk = walk_thread(thread, ctx, &query.types, t0, t1, cancel, |span| {
                if let Some(intervals) = row_within {
                    while let Some(&(_, end)) = intervals.get(next_end) {
                        if end >= span.to {
                            break;
                        }
                        if end >= span.from {
                            ends.push(span.node);
                        }
                        next_end += 1;
                    }
                }
                let ticks = match row_within {
                    None => span.to - span.from,
                    Some(intervals) => match overlap(intervals, &mut k, span.from, span.to) {
                        0 => return,
                        ticks => ticks,
                    },
                };
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
            if within.is_some() {
                walk.entries.clear();
            }
            Some(ThreadOut {
                walk,
                cells,
                line_ticks,
                ends,
            })
        })
        .collect();
    if cancelled() {
        return Err(Cancelled);
    }
    let threads = store.thread_count();
    let mut scope_index: BTreeMap<ScopeKey, usize> = BTreeMap::new();
    let mut keys: Vec<ScopeKey> = Vec::new();
    let mut block_index: HashMap<Vec<usize>, usize> = HashMap::from([(Vec::new(), 0)]);
    let mut blocks = vec![Block { path: Vec::new() }];
    let mut cells = Vec::new();
    let mut entries: BTreeMap<ScopeKey, Vec<u64>> = BTreeMap::new();
    let mut line_heat: BTreeMap<SourceLoc, u64> = BTreeMap::new();
    let mut report = ScopeReport::default();
    let mut ends: BTreeMap<usize, u64> = BTreeMap::new();
    for (row, out) in outs.into_iter().enumerate() {
        let Some(out) = out else {
            return Err(Cancelled);
        };
        report.add(&out.walk.report);
        for (k, n) in &out.walk.entries {
            if let Some(e) = entries
                .entry(*k)
                .or_insert_with(|| vec![0; threads])
                .get_mut(row)
            {
                *e += n;
            }
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
        for node in out.ends {
            *ends
                .entry(global.get(node as usize).copied().unwrap_or(0))
                .or_insert(0) += 1;
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
            entries: entries.get(&key).map_or(0, |e| e.iter().sum()),
            entries_per_thread: entries
                .get(&key)
                .cloned()
                .unwrap_or_else(|| vec![0; threads]),
            inclusive: 0,
            exclusive: 0,
            inclusive_per_thread: vec![0; threads],
            exclusive_per_thread: vec![0; threads],
            inclusive_per_category: BTreeMap::new(),
            exclusive_per_category: BTreeMap::new(),
        })
        .collect();
    add_cells(&mut scopes, &blocks, &cells);
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
        counted,
        order_inferred: store.keeps_order_of(|t| query.types.iter().any(|st| st.ty == t)),
        types: query.types.clone(),
        scopes,
        blocks,
        cells,
        line_heat,
        report,
        ends: ends.into_iter().collect(),
    })
}

/// Per thread, the spans of `[t0, t1)` during which `key` is open, joined into intervals:
/// a span that starts where the last interval ends joins it when `joins` says so, given the
/// id of the entry of `key`'s outermost frame in the span and in the last one.
#[allow(clippy::too_many_arguments)]
fn key_intervals(
    store: &TraceStore,
    ctx: &ScopeContext,
    types: &[ScopeType],
    key: ScopeKey,
    (t0, t1): (u64, u64),
    cancel: Option<&AtomicBool>,
    joins: fn(u64, u64) -> bool,
) -> Result<Vec<Vec<(u64, u64)>>, Cancelled> {
    let out: Vec<Option<Vec<(u64, u64)>>> = store
        .threads()
        .par_iter()
        .map(|thread| {
            let mut spans: Vec<(u64, u64)> = Vec::new();
            let mut open: Option<u64> = None;
            let walk = walk_thread(thread, ctx, types, t0, t1.max(t0), cancel, |span| {
                let Some(f) = span.stack.iter().find(|f| f.key == key) else {
                    open = None;
                    return;
                };
                match (spans.last_mut(), open) {
                    (Some(last), Some(was)) if last.1 == span.from && joins(was, f.id) => {
                        last.1 = span.to;
                    }
                    _ => spans.push((span.from, span.to)),
                }
                open = Some(f.id);
            });
            walk.map(|_| spans)
        })
        .collect();
    out.into_iter().map(|o| o.ok_or(Cancelled)).collect()
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
    key_intervals(store, ctx, types, key, (t0, t1), cancel, |_, _| true)
}

/// Each time `key` is open on each thread within `[t0, t1)`, as (begin, end) in time order:
/// an instance from its entry to its exit, cut to the window; the outermost one when the
/// scope is open inside itself; two entries back to back are two instances (what Tracy
/// counts as a zone's calls). Their durations add up to the scope's inclusive time on the
/// thread.
pub fn scope_instances(
    store: &TraceStore,
    ctx: &ScopeContext,
    types: &[ScopeType],
    key: ScopeKey,
    t0: u64,
    t1: u64,
    cancel: Option<&AtomicBool>,
) -> Result<Vec<Vec<(u64, u64)>>, Cancelled> {
    key_intervals(store, ctx, types, key, (t0, t1), cancel, |was, now| {
        was == now
    })
}

/// The scopes open on `thread` (a store row) at tick `t`, outermost first: its events up to
/// and including `t` replayed with the analysis's rules (`Replace` frames first, by their
/// type's position in `types`). Empty for a row the store does not have.
pub fn stack_at(
    store: &TraceStore,
    ctx: &ScopeContext,
    types: &[ScopeType],
    thread: usize,
    t: u64,
) -> Vec<ScopeKey> {
    let Some(data) = store.thread(thread) else {
        return Vec::new();
    };
    let mut stack: Option<Vec<ScopeKey>> = None;
    walk_thread(data, ctx, types, t, t.saturating_add(1), None, |span| {
        if stack.is_none() {
            stack = Some(span.stack.iter().map(|f| f.key).collect());
        }
    });
    stack.unwrap_or_default()
}

struct ThreadOut {
    walk: Walk,
    /// Per node: ticks per category.
    cells: Vec<Vec<(Category, u64)>>,
    /// Per line id of the context.
    line_ticks: Vec<u64>,
    /// Per interval end met (analyses within intervals), the node open there.
    ends: Vec<u32>,
}

/// Adds the time of `cells` to the scopes of their blocks: exclusive to the top one,
/// inclusive to each once however many times it is on the stack; totals, per thread and per
/// category.
pub(super) fn add_cells(scopes: &mut [ScopeStats], blocks: &[Block], cells: &[Cell]) {
    let mut distinct: Vec<usize> = Vec::new();
    for c in cells {
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
}

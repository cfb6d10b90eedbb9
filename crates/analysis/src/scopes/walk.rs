//! The walk of one thread: its scope and line events in time order, the stack of open
//! scopes they build, and the stretches of constant stack, state and lines between them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use prvscope_store::ThreadData;

use super::types::{LineKind, line_kind};
use super::{Category, MAX_DEPTH, Nesting, ScopeContext, ScopeKey, ScopeReport, ScopeType};

/// One call-tree node of a thread: its parent node and the scope it adds (node 0 is the
/// empty stack).
#[derive(Debug, Clone, Copy)]
pub(super) struct Node {
    pub(super) parent: u32,
    pub(super) key: ScopeKey,
}

/// What a thread walk found besides its spans.
pub(super) struct Walk {
    pub(super) nodes: Vec<Node>,
    /// Entries inside the window per scope.
    pub(super) entries: BTreeMap<ScopeKey, u64>,
    pub(super) report: ScopeReport,
}

/// A stretch of time with one stack and one category.
pub(super) struct Span<'a> {
    pub(super) from: u64,
    pub(super) to: u64,
    pub(super) node: u32,
    pub(super) category: Category,
    /// Line ids heated during the span (distinct).
    pub(super) lines: &'a [u32],
    /// The open scopes, outermost first.
    stack: &'a [(ScopeKey, u32)],
}

impl Span<'_> {
    pub(super) fn path_holds(&self, key: ScopeKey) -> bool {
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
pub(super) fn walk_thread(
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

//! The walk of one thread: its scope and line events in time order, the stack of open
//! scopes they build, and the stretches of constant stack, state and lines between them.
//!
//! The stack holds the frames of the `Replace` types first (outermost), at most one per type,
//! ordered by the type's position in the query, then the frames of the `Stack` types in the
//! order they were entered, then the frames of the `Leaf` types (innermost), at most one per
//! type, the latest entered on top. A `Replace` value replaces its own type's frame in place
//! (or inserts it at its type's place) and a `Replace` null removes only that frame: the
//! frames of other types stay open, and those above are re-linked under the new path. A
//! `Leaf` value replaces its type's frame and goes on top of the other `Leaf` frames, a
//! `Leaf` null removes that frame; a `Leaf` value 0 (a call's end in the legacy convention,
//! "Outside MPI", a real value only where the trace's null is another) is held as a `Replace`
//! value, below the functions. A `Stack` value enters below the `Leaf` frames (which are
//! re-linked under it); a `Stack` null closes the topmost `Stack` frame of its type and the
//! `Stack` frames above it, never a `Leaf` frame: a type that holds its value keeps it until
//! its next event. At one time, a `Replace` type takes the last of its events there (the value
//! its event view shows); every event of a `Leaf` type is an entry.

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

impl Walk {
    /// The walk of a thread that is not walked: the empty stack only.
    pub(super) fn empty() -> Walk {
        Walk {
            nodes: Tree::new().nodes,
            entries: BTreeMap::new(),
            report: ScopeReport::default(),
        }
    }
}

/// An open scope on a thread's stack.
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    pub(super) key: ScopeKey,
    /// The call-tree node of the stack up to this frame.
    node: u32,
    /// For a `Replace` type's frame, the type's place in the query (its place in the
    /// stack); 0 for a `Stack` or `Leaf` type's frame.
    rank: u8,
    /// The entry this frame stands for, unique on its thread: two entries of one scope back
    /// to back are two frames (see `scope_instances`).
    pub(super) id: u64,
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
    pub(super) stack: &'a [Frame],
}

/// The call tree of a thread: node 0 is the empty stack, each other node a scope under its
/// parent.
struct Tree {
    nodes: Vec<Node>,
    /// Per node: its children (few per node, so a list beats hashing).
    children: Vec<Vec<(ScopeKey, u32)>>,
    /// Per node: entries inside the window.
    entries: Vec<u64>,
}

impl Tree {
    fn new() -> Self {
        Tree {
            nodes: vec![Node {
                parent: 0,
                key: ScopeKey { ty: 0, value: 0 },
            }],
            children: vec![Vec::new()],
            entries: vec![0],
        }
    }

    /// The node of `key` under `parent`, made when new.
    #[inline]
    fn child(&mut self, parent: u32, key: ScopeKey) -> u32 {
        let known = self
            .children
            .get(parent as usize)
            .and_then(|c| c.iter().find(|c| c.0 == key))
            .map(|c| c.1);
        known.unwrap_or_else(|| {
            let next = self.nodes.len() as u32;
            self.nodes.push(Node { parent, key });
            self.children.push(Vec::new());
            self.entries.push(0);
            if let Some(c) = self.children.get_mut(parent as usize) {
                c.push((key, next));
            }
            next
        })
    }

    /// Recomputes the nodes of `stack[from..]` (after a frame below them changed).
    fn relink(&mut self, stack: &mut [Frame], from: usize) {
        let mut parent = from
            .checked_sub(1)
            .and_then(|i| stack.get(i))
            .map_or(0, |f| f.node);
        for f in stack.iter_mut().skip(from) {
            f.node = self.child(parent, f.key);
            parent = f.node;
        }
    }

    fn enter(&mut self, node: u32, in_window: bool) {
        if in_window && let Some(n) = self.entries.get_mut(node as usize) {
            *n += 1;
        }
    }
}

/// One event of a thread walk.
#[derive(Debug, Clone, Copy)]
struct Ev {
    time: u64,
    /// 0: a scope event, 1: a line event (lines come after the scopes at one time; a
    /// `Replace` type has one event per time, its last there).
    order: u8,
    ty: u32,
    value: u64,
    nesting: Nesting,
    /// A `Replace` type's place among the query's types (its place in the stack; types past
    /// the 255th share the last place). Fits in the padding: the event stays 24 bytes.
    rank: u8,
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
            let times = buf_t.get(..got).unwrap_or_default();
            let values = buf_v.get(..got).unwrap_or_default();
            // A `Replace` type's value at a time is its last event there: an event followed
            // by one at the same time is skipped.
            let collapse = template.nesting == Nesting::Replace && template.line.is_none();
            // The time of the event after this block (`u64::MAX`, never an event's time
            // before `t1`, when there is none).
            let after = if i + got < stop {
                col.time.get(i + got)
            } else {
                u64::MAX
            };
            for (k, (&time, &value)) in times.iter().zip(values).enumerate() {
                if collapse && times.get(k + 1).copied().unwrap_or(after) == time {
                    continue;
                }
                evs.push(Ev {
                    time,
                    value,
                    ..template
                });
            }
            i += got;
        }
    };
    for (i, st) in types.iter().enumerate() {
        // A type named twice is read once.
        if types.iter().take(i).any(|t| t.ty == st.ty) {
            continue;
        }
        let Some(col) = thread.event_type(st.ty) else {
            continue;
        };
        // A `Replace` or `Leaf` type's frame when the window starts is its last value
        // before t0: no need to replay further back (its events at t0 are the window's own).
        let from = match st.nesting {
            Nesting::Replace | Nesting::Leaf => col.time.lower_bound(t0).saturating_sub(1),
            Nesting::Stack => 0,
        };
        let template = Ev {
            time: 0,
            order: 0,
            ty: st.ty,
            value: 0,
            nesting: st.nesting,
            rank: i.min(usize::from(u8::MAX)) as u8,
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
            order: 1,
            ty: col.ty,
            value: 0,
            nesting: Nesting::Stack,
            rank: 0,
            line: Some(kind),
        };
        gather(col, from, template);
    }
    // Stable: at one time, each type's events stay together and in file order (the store
    // keeps them so), scope events before line events.
    evs.sort_by_key(|e| (e.time, e.order));

    let mut st = Stacks {
        tree: Tree::new(),
        stack: Vec::new(),
        replaced: 0,
        leaves: 0,
        report: ScopeReport::default(),
        entered: 0,
    };
    // The runs of one type's events among the events at one time.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut sampled: Vec<(u32, u32)> = Vec::new();
    let mut callers: Vec<u32> = Vec::new();
    let mut lines: Vec<u32> = Vec::new();

    // The categories: the thread's states, or (a trace without state records) the values
    // of its state type as they hold from event to event.
    let from_events = match ctx.state_type {
        Some(ty) if thread.states.is_empty() => thread.event_type(ty).map(|c| held_values(c, ctx)),
        _ => None,
    };
    let states = from_events.as_ref().unwrap_or(&thread.states);
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
            let node = st.stack.last().map_or(0, |f| f.node);
            while now < te {
                // After the trace's last record (a file cut short) nothing holds: no scope,
                // no state, no line.
                let records_end = ctx.records_end.unwrap_or(u64::MAX);
                if now >= records_end {
                    on_span(&Span {
                        from: now,
                        to: te,
                        node: 0,
                        category: Category::NoState,
                        lines: &[],
                        stack: &[],
                    });
                    now = te;
                    break;
                }
                let stop = te.min(records_end);
                while si < sn && states.end.get(si) <= now {
                    si += 1;
                }
                let (category, until) = if si < sn && states.begin.get(si) <= now {
                    (
                        Category::State(states.value.get(si)),
                        states.end.get(si).min(stop),
                    )
                } else if si < sn {
                    (Category::NoState, states.begin.get(si).min(stop))
                } else {
                    (Category::NoState, stop)
                };
                let until = until.max(now + 1).min(stop);
                on_span(&Span {
                    from: now,
                    to: until,
                    node,
                    category,
                    lines: &lines,
                    stack: &st.stack,
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
        // All events at this time: the scope events (each type's in file order, the types
        // interleaved by `next_at_one_time`), then the lines.
        let time = evs.get(i).map_or(t1, |e| e.time);
        let in_window = time >= t0;
        let start = i;
        while evs.get(i).is_some_and(|e| e.time == time && e.order == 0) {
            i += 1;
        }
        let mut changed = false;
        match evs.get(start..i).unwrap_or_default() {
            [] => {}
            [e] => changed |= st.apply(e, ctx, in_window),
            group => {
                runs.clear();
                for (k, e) in group.iter().enumerate() {
                    match runs.last_mut() {
                        Some(r) if group.get(r.0).is_some_and(|f| f.ty == e.ty) => r.1 = k + 1,
                        _ => runs.push((k, k + 1)),
                    }
                }
                while let Some(r) = next_at_one_time(&runs, group, &st.stack, st.leaves, ctx) {
                    let Some(run) = runs.get_mut(r) else { break };
                    let Some(e) = group.get(run.0) else { break };
                    run.0 += 1;
                    changed |= st.apply(e, ctx, in_window);
                }
            }
        }
        while let Some(e) = evs.get(i).filter(|e| e.time == time) {
            i += 1;
            let Some(kind) = e.line else { continue };
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
        }
        if changed {
            callers.clear();
        }
    }
    let Stacks {
        tree,
        stack,
        replaced,
        leaves,
        mut report,
        ..
    } = st;
    // A type that holds its value (`Replace`, `Leaf`) is not left open: only `Stack` frames.
    report.open_at_end = stack.len().saturating_sub(replaced + leaves) as u64;
    let mut entries: BTreeMap<ScopeKey, u64> = BTreeMap::new();
    for (node, &n) in tree.nodes.iter().zip(&tree.entries).skip(1) {
        if n > 0 {
            *entries.entry(node.key).or_insert(0) += n;
        }
    }
    Some(Walk {
        nodes: tree.nodes,
        entries,
        report,
    })
}

/// A thread's open scopes and its call tree, as the walk builds them.
struct Stacks {
    tree: Tree,
    stack: Vec<Frame>,
    /// The `Replace` frames at the bottom of `stack`.
    replaced: usize,
    /// The `Leaf` frames at the top of `stack`.
    leaves: usize,
    report: ScopeReport,
    /// Entries so far: the id of the next frame entered.
    entered: u64,
}

impl Stacks {
    /// Applies one scope event; true when it was a `Stack` or `Leaf` type's (whose caller
    /// lines it ends).
    fn apply(&mut self, e: &Ev, ctx: &ScopeContext, in_window: bool) -> bool {
        let Stacks {
            tree,
            stack,
            replaced,
            leaves,
            report,
            entered,
        } = self;
        // The id of a frame this event enters.
        *entered += 1;
        let fresh = *entered;
        let key = ScopeKey {
            ty: e.ty,
            value: e.value,
        };
        let null = ctx.is_null(e.value);
        let counted = |report: &mut ScopeReport, tree: &mut Tree, r: Replaced| match r {
            Replaced::Entered(node) => tree.enter(node, in_window),
            Replaced::NotOpen if in_window => report.exits_without_entry += 1,
            Replaced::TooDeep if in_window => report.too_deep += 1,
            Replaced::Left | Replaced::NotOpen | Replaced::TooDeep => {}
        };
        match e.nesting {
            Nesting::Replace => {
                // The common case first: the type's frame is the top one, with nothing
                // above it to re-link.
                if *replaced == stack.len()
                    && let Some(top) = stack.last_mut()
                    && top.key.ty == e.ty
                {
                    if null {
                        stack.pop();
                        *replaced -= 1;
                    } else {
                        if top.key != key {
                            let parent = stack
                                .len()
                                .checked_sub(2)
                                .and_then(|i| stack.get(i))
                                .map_or(0, |f| f.node);
                            let node = tree.child(parent, key);
                            if let Some(top) = stack.last_mut() {
                                *top = Frame {
                                    key,
                                    node,
                                    rank: top.rank,
                                    id: fresh,
                                };
                            }
                        }
                        // (The same value again is an entry too.)
                        if let Some(top) = stack.last_mut() {
                            top.id = fresh;
                        }
                        let node = stack.last().map_or(0, |f| f.node);
                        tree.enter(node, in_window);
                    }
                    return false;
                }
                let r = replace(tree, stack, replaced, (key, fresh), e.rank, null);
                counted(report, tree, r);
                false
            }
            Nesting::Leaf => {
                // A value 0 (a call's end in the legacy convention, "Outside MPI": a real
                // value only where the trace's null is another) holds below the functions,
                // as a `Replace` value: time outside a call stays the functions' own.
                let below = !null && e.value == 0;
                let (moved, r) = if below {
                    let moved = hold(tree, stack, leaves, (key, fresh), true);
                    (
                        moved,
                        replace(tree, stack, replaced, (key, fresh), e.rank, false),
                    )
                } else {
                    let moved = replace(tree, stack, replaced, (key, fresh), e.rank, true);
                    (moved, hold(tree, stack, leaves, (key, fresh), null))
                };
                match (moved, r) {
                    (Replaced::Left, Replaced::NotOpen) => {}
                    (_, r) => counted(report, tree, r),
                }
                true
            }
            Nesting::Stack => {
                let top = stack.len() - *leaves;
                let open = stack
                    .get(*replaced..top)
                    .and_then(|s| s.iter().rposition(|f| f.key.ty == e.ty))
                    .map(|p| p + *replaced);
                if null {
                    match open {
                        Some(p) => {
                            if in_window {
                                report.unclosed_inner += (top - p - 1) as u64;
                            }
                            stack.drain(p..top);
                            if *leaves > 0 {
                                tree.relink(stack, p);
                            }
                        }
                        None if in_window => report.exits_without_entry += 1,
                        None => {}
                    }
                    return true;
                }
                if stack.len() >= MAX_DEPTH {
                    if in_window {
                        report.too_deep += 1;
                    }
                    return true;
                }
                let parent = top
                    .checked_sub(1)
                    .and_then(|i| stack.get(i))
                    .map_or(0, |f| f.node);
                let node = tree.child(parent, key);
                stack.insert(
                    top,
                    Frame {
                        key,
                        node,
                        rank: 0,
                        id: fresh,
                    },
                );
                if *leaves > 0 {
                    tree.relink(stack, top + 1);
                }
                tree.enter(node, in_window);
                true
            }
        }
    }
}

/// The run (of one type's events at one time, `runs` ranges into `group`) whose next event
/// goes next. Each type's events keep their file order; the store does not keep the order
/// of different types at one time, so they are interleaved as a well-nested program writes
/// them: a null that closes the top `Stack` frame first, then a value (MPI calls, which nest
/// nothing, after the others), then the other nulls, the highest open frame first (a null
/// with no frame open, which changes nothing, before them); the `Leaf` types last (so that a
/// call is entered under the functions open after this time), the ones whose event here
/// ends with 0 (a call's end in either convention) before the others (so that the call
/// entered here is the innermost).
fn next_at_one_time(
    runs: &[(usize, usize)],
    group: &[Ev],
    stack: &[Frame],
    leaves: usize,
    ctx: &ScopeContext,
) -> Option<usize> {
    let below = stack.get(..stack.len() - leaves).unwrap_or_default();
    let top = below.last().map(|f| f.key.ty);
    let (mut value, mut mpi_value, mut null) = (None, None, None::<(usize, usize)>);
    let (mut leaf_end, mut leaf) = (None, None);
    for (r, &(from, to)) in runs.iter().enumerate() {
        let Some(e) = group.get(from).filter(|_| from < to) else {
            continue;
        };
        if e.nesting == Nesting::Leaf {
            if group.get(to - 1).is_some_and(|l| l.value == 0) {
                leaf_end.get_or_insert(r);
            } else {
                leaf.get_or_insert(r);
            }
        } else if ctx.is_null(e.value) {
            if Some(e.ty) == top {
                return Some(r);
            }
            let height = below
                .iter()
                .rposition(|f| f.key.ty == e.ty)
                .unwrap_or(usize::MAX);
            if null.is_none_or(|(_, h)| height > h) {
                null = Some((r, height));
            }
        } else if prvscope_format::catalog::is_mpi_call(e.ty) {
            mpi_value.get_or_insert(r);
        } else {
            value.get_or_insert(r);
        }
    }
    value
        .or(mpi_value)
        .or(null.map(|n| n.0))
        .or(leaf_end)
        .or(leaf)
}

/// The values of an event column as states: each non-null value from its event to the next
/// event of the type (the last one to the end of time); at one time only the last event.
fn held_values(
    c: &prvscope_store::EventColumn,
    ctx: &ScopeContext,
) -> prvscope_store::StateColumns {
    let (mut begin, mut end, mut value) = (Vec::new(), Vec::new(), Vec::new());
    let n = c.len();
    for i in 0..n {
        let t = c.time.get(i);
        let next = if i + 1 < n {
            c.time.get(i + 1)
        } else {
            u64::MAX
        };
        let v = c.value.get(i);
        if next == t || ctx.is_null(v) {
            continue;
        }
        begin.push(t);
        end.push(next);
        value.push(v);
    }
    prvscope_store::StateColumns {
        begin: prvscope_store::TimeColumn::from_times(&begin),
        end: prvscope_store::TimeColumn::from_times(&end),
        value: prvscope_store::ValueColumn::from_values(&value, ctx.policy.sentinel),
        ends_sorted: true,
    }
}

/// What a `Replace` type's event did.
enum Replaced {
    /// Its value is open, on this node.
    Entered(u32),
    /// Its frame was closed.
    Left,
    /// A null, with no frame of its type open.
    NotOpen,
    /// A value not entered: the stack is [`MAX_DEPTH`] deep.
    TooDeep,
}

/// A `Replace` type's event (`null` when its value leaves): a value replaces the type's frame
/// in place, or enters a frame at the type's place among the `Replace` frames (below every
/// `Stack` frame); a null removes that frame only. The frames above a changed one are
/// re-linked under the new path.
fn replace(
    tree: &mut Tree,
    stack: &mut Vec<Frame>,
    replaced: &mut usize,
    (key, fresh): (ScopeKey, u64),
    rank: u8,
    null: bool,
) -> Replaced {
    let open = stack
        .get(..*replaced)
        .and_then(|r| r.iter().position(|f| f.key.ty == key.ty));
    let at = match (open, null) {
        (Some(p), true) => {
            stack.remove(p);
            *replaced -= 1;
            tree.relink(stack, p);
            return Replaced::Left;
        }
        (None, true) => return Replaced::NotOpen,
        (Some(p), false) => {
            match stack.get_mut(p) {
                // The same value again: a new entry of the same scope, on the same node.
                Some(f) if f.key == key => {
                    f.id = fresh;
                    return Replaced::Entered(f.node);
                }
                Some(f) => {
                    f.key = key;
                    f.id = fresh;
                }
                None => {}
            }
            p
        }
        (None, false) => {
            if stack.len() >= MAX_DEPTH {
                return Replaced::TooDeep;
            }
            let p = stack
                .get(..*replaced)
                .map_or(0, |r| r.partition_point(|f| f.rank < rank));
            stack.insert(
                p,
                Frame {
                    key,
                    node: 0,
                    rank,
                    id: fresh,
                },
            );
            *replaced += 1;
            p
        }
    };
    tree.relink(stack, at);
    Replaced::Entered(stack.get(at).map_or(0, |f| f.node))
}

/// A `Leaf` type's event (`null` when its value leaves), on the `leaves` frames at the top of
/// `stack`: a value replaces the type's frame and goes on top (the latest call is the
/// innermost), a null removes that frame. The frames above a removed one are re-linked.
fn hold(
    tree: &mut Tree,
    stack: &mut Vec<Frame>,
    leaves: &mut usize,
    (key, fresh): (ScopeKey, u64),
    null: bool,
) -> Replaced {
    let lo = stack.len() - *leaves;
    let open = stack
        .get(lo..)
        .and_then(|l| l.iter().position(|f| f.key.ty == key.ty))
        .map(|p| p + lo);
    match (open, null) {
        (Some(p), true) => {
            stack.remove(p);
            *leaves -= 1;
            tree.relink(stack, p);
            Replaced::Left
        }
        (None, true) => Replaced::NotOpen,
        (Some(p), false) if p + 1 == stack.len() => {
            if let Some(f) = stack.last_mut() {
                f.id = fresh;
                if f.key != key {
                    f.key = key;
                    tree.relink(stack, p);
                }
            }
            Replaced::Entered(stack.last().map_or(0, |f| f.node))
        }
        (open, false) => {
            if let Some(p) = open {
                stack.remove(p);
                *leaves -= 1;
                tree.relink(stack, p);
            } else if stack.len() >= MAX_DEPTH {
                return Replaced::TooDeep;
            }
            let parent = stack.last().map_or(0, |f| f.node);
            let node = tree.child(parent, key);
            stack.push(Frame {
                key,
                node,
                rank: 0,
                id: fresh,
            });
            *leaves += 1;
            Replaced::Entered(node)
        }
    }
}

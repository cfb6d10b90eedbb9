//! Find (Ctrl+F): what a query names in the trace (a state, an event type, or one value of a
//! type, by label or number) and its next or previous occurrence on some threads.

use prvscope_store::Trace;

/// What to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A state (its value).
    State(u64),
    /// Any event of a type.
    Type(u32),
    /// An event of a type with one value.
    Value(u32, u64),
}

/// One occurrence: the thread row, and when it begins and ends (an event's end is its time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub row: usize,
    pub begin: u64,
    pub end: u64,
}

/// At most this many targets are offered for a query.
pub const MAX_CANDIDATES: usize = 40;

/// The targets `query` names, with their descriptions: states whose name contains it, event
/// types whose label contains it or whose number it is, values whose label contains it, and
/// `type:value` written out (case is ignored). Only what the trace has is offered.
pub fn candidates(trace: &Trace, query: &str) -> Vec<(Target, String)> {
    let q = query.trim().to_lowercase();
    if q.is_empty() {
        return Vec::new();
    }
    let present = trace.store.event_types();
    let mut out = Vec::new();
    // Written as numbers.
    if let Some((ty, v)) = q.split_once(':')
        && let (Ok(ty), Ok(v)) = (ty.trim().parse::<u32>(), v.trim().parse::<u64>())
        && present.contains(&ty)
    {
        out.push((Target::Value(ty, v), format!("event {ty}:{v}")));
    } else if let Ok(ty) = q.parse::<u32>()
        && present.contains(&ty)
    {
        out.push((Target::Type(ty), format!("event type {ty}")));
    }
    let Some(pcf) = trace.pcf.as_ref() else {
        return out;
    };
    for (&v, name) in &pcf.states {
        if name.to_lowercase().contains(&q) {
            out.push((Target::State(v), format!("state {name} ({v})")));
        }
    }
    for (&ty, info) in &pcf.event_types {
        if !present.contains(&ty) {
            continue;
        }
        if info.label.to_lowercase().contains(&q) {
            out.push((
                Target::Type(ty),
                format!("type {} ({ty})", info.label.trim()),
            ));
        }
        for (&v, label) in &info.values {
            if out.len() >= MAX_CANDIDATES {
                break;
            }
            if label.to_lowercase().contains(&q) {
                out.push((
                    Target::Value(ty, v),
                    format!("{} ({v}) of {}", label.trim(), info.label.trim()),
                ));
            }
        }
    }
    out.truncate(MAX_CANDIDATES);
    out
}

/// The first occurrence of `target` on `rows` that begins after `after` (the earliest
/// among the rows; the lowest row on a tie).
pub fn next(trace: &Trace, target: Target, rows: &[usize], after: u64) -> Option<Occurrence> {
    rows.iter()
        .filter_map(|&row| next_on(trace, target, row, after))
        .min_by_key(|o| (o.begin, o.row))
}

/// The last occurrence of `target` on `rows` that begins before `before`.
pub fn previous(trace: &Trace, target: Target, rows: &[usize], before: u64) -> Option<Occurrence> {
    rows.iter()
        .filter_map(|&row| previous_on(trace, target, row, before))
        .max_by_key(|o| (o.begin, std::cmp::Reverse(o.row)))
}

fn next_on(trace: &Trace, target: Target, row: usize, after: u64) -> Option<Occurrence> {
    let store = &trace.store;
    match target {
        Target::State(v) => store
            .states_in(row, after.saturating_add(1), u64::MAX)
            .find(|&(b, _, value)| b > after && value == v)
            .map(|(begin, end, _)| Occurrence { row, begin, end }),
        Target::Type(ty) | Target::Value(ty, _) => {
            let c = store.thread(row)?.event_type(ty)?;
            let from = c.time.upper_bound(after);
            (from..c.len())
                .find(|&i| matches_value(target, c.value.get(i)))
                .map(|i| held(trace, row, c, i))
        }
    }
}

fn previous_on(trace: &Trace, target: Target, row: usize, before: u64) -> Option<Occurrence> {
    let store = &trace.store;
    match target {
        Target::State(v) => store
            .states_in(row, 0, before)
            .filter(|&(b, _, value)| b < before && value == v)
            .last()
            .map(|(begin, end, _)| Occurrence { row, begin, end }),
        Target::Type(ty) | Target::Value(ty, _) => {
            let c = store.thread(row)?.event_type(ty)?;
            let to = c.time.lower_bound(before);
            (0..to)
                .rev()
                .find(|&i| matches_value(target, c.value.get(i)))
                .map(|i| held(trace, row, c, i))
        }
    }
}

/// The occurrence of event `i` of column `c`: from it to the next event of its type (where
/// its value stops holding, as its view draws it), or the trace's end.
fn held(trace: &Trace, row: usize, c: &prvscope_store::EventColumn, i: usize) -> Occurrence {
    let begin = c.time.get(i);
    let end = if i + 1 < c.len() {
        c.time.get(i + 1)
    } else {
        trace.header.end_time.max(begin)
    };
    Occurrence { row, begin, end }
}

fn matches_value(target: Target, value: u64) -> bool {
    match target {
        Target::Value(_, v) => value == v,
        _ => true,
    }
}

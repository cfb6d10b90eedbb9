//! A view's points on one row, from the store's columns: a thread's states (a null point
//! where a state ends before the next begins) or its events of one or several types (merged
//! by time, with the types' runs at one time put in the order a program runs them).

use super::Source;
use crate::ThreadData;
use crate::columns::{TimeColumn, ValueColumn};

/// The value a view stores for `v`: the sentinel for 0 when 0 is null.
#[inline]
fn view_value(v: u64, sentinel: u64, zero_is_null: bool) -> u64 {
    if zero_is_null && v == 0 { sentinel } else { v }
}

pub(super) fn state_points(thread: &ThreadData, sentinel: u64, zero_is_null: bool) -> Source {
    let s = &thread.states;
    if s.is_empty() {
        return Source::Empty;
    }
    let mut times = Vec::with_capacity(s.len() + 1);
    let mut values = Vec::with_capacity(s.len() + 1);
    let begins: Vec<u64> = s.begin.iter().collect();
    let ends: Vec<u64> = s.end.iter().collect();
    let mut state_values = vec![0; s.value.len()];
    s.value.read(0, &mut state_values);
    for (i, ((&b, &e), &v)) in begins.iter().zip(&ends).zip(&state_values).enumerate() {
        times.push(b);
        values.push(view_value(v, sentinel, zero_is_null));
        let next = begins.get(i + 1).copied();
        if next.is_none_or(|n| e < n) {
            times.push(e);
            values.push(sentinel);
        }
    }
    Source::Owned {
        time: TimeColumn::from_times(&times),
        value: ValueColumn::from_values(&values, sentinel),
    }
}

pub(super) fn event_points(
    thread: &ThreadData,
    types: &[u32],
    sentinel: u64,
    zero_is_null: bool,
) -> Source {
    let columns: Vec<usize> = types
        .iter()
        .filter_map(|&ty| thread.events.binary_search_by_key(&ty, |c| c.ty).ok())
        .collect();
    match columns.as_slice() {
        [] => Source::Empty,
        // The store's column is used as it is unless it is split into many segments (one per
        // parsed chunk), which makes each point read look its segment up: then a one-segment
        // copy is faster to summarise. A copy is also made when 0 must read as null and the
        // column holds a 0.
        [one] => match thread.events.get(*one) {
            Some(c)
                if c.time.segment_count() > 1
                    || (zero_is_null && sentinel != 0 && c.value.iter().any(|v| v == 0)) =>
            {
                let values: Vec<u64> = c
                    .value
                    .iter()
                    .map(|v| view_value(v, sentinel, zero_is_null))
                    .collect();
                Source::Owned {
                    time: TimeColumn::from_times(&c.time.iter().collect::<Vec<u64>>()),
                    value: ValueColumn::from_values(&values, sentinel),
                }
            }
            _ => Source::Event(*one),
        },
        many => {
            let mut points: Vec<TypedPoint> = Vec::new();
            for (k, &i) in many.iter().enumerate() {
                if let Some(c) = thread.events.get(i) {
                    points.extend(
                        c.time
                            .iter()
                            .zip(c.value.iter())
                            .map(|(t, v)| (t, view_value(v, sentinel, zero_is_null), k)),
                    );
                }
            }
            // Stable: at equal times each type's events stay together, in file order.
            points.sort_by_key(|p| p.0);
            order_types_at_equal_times(&mut points, sentinel);
            let points: Vec<(u64, u64)> = points.into_iter().map(|p| (p.0, p.1)).collect();
            Source::Owned {
                time: TimeColumn::from_slice_by(&points, |p| p.0),
                value: ValueColumn::from_slice_by(&points, sentinel, |p| p.1),
            }
        }
    }
}

/// A point of a view of several types: (time, value, the type's place among the view's).
type TypedPoint = (u64, u64, usize);

/// At one time, the runs of each type's events (a stable sort by time leaves each type's
/// events at that time together, in file order) reordered so that the types whose last
/// event there is a null come first. The store does not keep the order of different types
/// at one time, and a program leaves one call before it enters the next: an MPI call view
/// shows the call entered, not the one left, when the exit and the entry are events of two
/// types at one time. Each type's own events keep their order (an entry and an exit of one
/// call at one time leave nothing open).
fn order_types_at_equal_times(points: &mut [TypedPoint], sentinel: u64) {
    let mut i = 0;
    while i < points.len() {
        let Some(&(time, _, ty)) = points.get(i) else {
            break;
        };
        let mut j = i + 1;
        let mut types = false;
        while let Some(p) = points.get(j).filter(|p| p.0 == time) {
            types |= p.2 != ty;
            j += 1;
        }
        if types && let Some(group) = points.get_mut(i..j) {
            // (ends with a value, the run's points); a group holds a few points.
            let mut runs: Vec<(bool, Vec<TypedPoint>)> = Vec::new();
            for &p in group.iter() {
                match runs.last_mut() {
                    Some(r) if r.1.last().is_some_and(|q| q.2 == p.2) => r.1.push(p),
                    _ => runs.push((false, vec![p])),
                }
                if let Some(r) = runs.last_mut() {
                    r.0 = p.1 != sentinel;
                }
            }
            runs.sort_by_key(|r| r.0);
            for (slot, p) in group.iter_mut().zip(runs.into_iter().flat_map(|r| r.1)) {
                *slot = p;
            }
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NULL: u64 = u64::MAX;

    #[test]
    fn runs_ending_with_a_null_go_first_at_one_time() {
        let mut points = vec![(5, 1, 0), (5, NULL, 0), (5, 2, 1), (5, NULL, 1), (5, 9, 2)];
        order_types_at_equal_times(&mut points, NULL);
        assert_eq!(
            points,
            [(5, 1, 0), (5, NULL, 0), (5, 2, 1), (5, NULL, 1), (5, 9, 2)],
            "runs ending alike keep their order"
        );
        let mut points = vec![(5, 9, 2), (5, 1, 0), (5, NULL, 0), (6, 1, 0)];
        order_types_at_equal_times(&mut points, NULL);
        assert_eq!(points, [(5, 1, 0), (5, NULL, 0), (5, 9, 2), (6, 1, 0)]);
    }
}

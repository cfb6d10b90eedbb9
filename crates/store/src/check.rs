//! What a [`TraceStore`] promises, checked: [`TraceStore::try_new`] refuses parts that break
//! its structure (cheap: per thread and event type, and the communications), and
//! [`TraceStore::sanity_check`] walks every record for the order the queries rely on (tests
//! and fuzzers run it after every load; it costs a pass over the whole store).

use super::{Comm, ThreadData, TraceStore};

/// Why parts do not make a store, or a store breaks its promises: which row, column and
/// record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

fn fail<T>(message: String) -> Result<T, StoreError> {
    Err(StoreError(message))
}

/// The structure `try_new` checks: columns of one table have one length, event types are
/// strictly increasing per thread, value columns use the store's null sentinel,
/// communications are sorted by logical send time between existing rows, and the loaded-row
/// marks cover every row.
pub(crate) fn structure(
    threads: &[ThreadData],
    comms: &[Comm],
    sentinel: u64,
    loaded: &[bool],
) -> Result<(), StoreError> {
    for (row, t) in threads.iter().enumerate() {
        let s = &t.states;
        if s.end.len() != s.begin.len() || s.value.len() != s.begin.len() {
            return fail(format!(
                "row {row}: state columns of {} begins, {} ends and {} values",
                s.begin.len(),
                s.end.len(),
                s.value.len()
            ));
        }
        if s.value.sentinel() != sentinel {
            return fail(format!(
                "row {row}: state values with null {} in a store whose null is {sentinel}",
                s.value.sentinel()
            ));
        }
        for (i, c) in t.events.iter().enumerate() {
            if i > 0 && t.events.get(i - 1).is_some_and(|p| p.ty >= c.ty) {
                return fail(format!(
                    "row {row}: event type {} after type {}: types must increase",
                    c.ty,
                    t.events.get(i - 1).map_or(0, |p| p.ty)
                ));
            }
            if c.value.len() != c.time.len() {
                return fail(format!(
                    "row {row}, type {}: {} times and {} values",
                    c.ty,
                    c.time.len(),
                    c.value.len()
                ));
            }
            if c.value.sentinel() != sentinel {
                return fail(format!(
                    "row {row}, type {}: values with null {} in a store whose null is {sentinel}",
                    c.ty,
                    c.value.sentinel()
                ));
            }
        }
    }
    let rows = threads.len();
    for (i, c) in comms.iter().enumerate() {
        if c.send_row as usize >= rows || c.recv_row as usize >= rows {
            return fail(format!(
                "communication {i}: rows {} -> {} in a store of {rows} rows",
                c.send_row, c.recv_row
            ));
        }
        if i > 0 && comms.get(i - 1).is_some_and(|p| p.lsend > c.lsend) {
            return fail(format!(
                "communication {i}: sent at {} after one sent at {}: not sorted by send time",
                c.lsend,
                comms.get(i - 1).map_or(0, |p| p.lsend)
            ));
        }
    }
    if !loaded.is_empty() && loaded.len() != rows {
        return fail(format!("{} loaded-row marks for {rows} rows", loaded.len()));
    }
    Ok(())
}

/// The first place where `times` decreases, as (index, previous, time).
fn first_decrease(times: impl Iterator<Item = u64>) -> Option<(usize, u64, u64)> {
    let mut last = 0;
    for (i, t) in times.enumerate() {
        if i > 0 && t < last {
            return Some((i, last, t));
        }
        last = t;
    }
    None
}

impl TraceStore {
    /// Walks every record and checks the order the window queries rely on: state begins
    /// sorted, each state ending at or after its begin, state ends sorted where the store says
    /// so, and event times sorted per thread and type (plus what [`TraceStore::try_new`]
    /// checks).
    pub fn sanity_check(&self) -> Result<(), StoreError> {
        structure(
            &self.threads,
            &self.comms,
            self.policy.sentinel,
            &self.loaded,
        )?;
        for (row, t) in self.threads.iter().enumerate() {
            let s = &t.states;
            if let Some((i, a, b)) = first_decrease(s.begin.iter()) {
                return fail(format!(
                    "row {row}: state {i} begins at {b}, after one at {a}"
                ));
            }
            if let Some((i, (b, e))) = s
                .begin
                .iter()
                .zip(s.end.iter())
                .enumerate()
                .find(|(_, (b, e))| e < b)
            {
                return fail(format!(
                    "row {row}: state {i} ends at {e}, before its begin {b}"
                ));
            }
            if s.ends_sorted
                && let Some((i, a, b)) = first_decrease(s.end.iter())
            {
                return fail(format!(
                    "row {row}: state {i} ends at {b}, before the one before it ({a}), yet ends are marked sorted"
                ));
            }
            for c in &t.events {
                if let Some((i, a, b)) = first_decrease(c.time.iter()) {
                    return fail(format!(
                        "row {row}, type {}: event {i} at {b}, after one at {a}",
                        c.ty
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EventColumn, NullPolicy, StateColumns, TimeColumn, ValueColumn};

    const NULL: u64 = u64::MAX;

    /// A thread with states over [begins[i], ends[i]) and one event type at `times`.
    fn thread(begins: &[u64], ends: &[u64], times: &[u64]) -> ThreadData {
        ThreadData {
            states: StateColumns {
                begin: TimeColumn::from_times(begins),
                end: TimeColumn::from_times(ends),
                value: ValueColumn::from_values(&vec![1; begins.len()], NULL),
                ends_sorted: true,
            },
            events: vec![EventColumn {
                ty: 7,
                time: TimeColumn::from_times(times),
                value: ValueColumn::from_values(&vec![3; times.len()], NULL),
            }],
        }
    }

    fn comm(send_row: u32, recv_row: u32, lsend: u64) -> Comm {
        Comm {
            send_row,
            recv_row,
            send_cpu: 1,
            recv_cpu: 1,
            lsend,
            psend: lsend,
            lrecv: lsend + 1,
            precv: lsend + 1,
            size: 8,
            tag: 1,
        }
    }

    fn store(
        threads: Vec<ThreadData>,
        comms: Vec<Comm>,
        loaded: Vec<bool>,
    ) -> Result<TraceStore, StoreError> {
        TraceStore::try_new(threads, comms, NullPolicy::sentinel(NULL), 0, 100, loaded)
    }

    #[test]
    fn sound_parts_make_a_store_that_passes_its_sanity_check() {
        let s = store(
            vec![
                thread(&[0, 10], &[10, 20], &[5, 5, 9]),
                thread(&[], &[], &[]),
            ],
            vec![comm(0, 1, 3), comm(1, 0, 3), comm(0, 1, 8)],
            vec![true, true],
        )
        .unwrap();
        assert_eq!(s.sanity_check(), Ok(()));
        // All rows loaded is stored as "every row".
        assert_eq!(s.loaded_rows(), [0, 1]);
        let part = store(
            vec![thread(&[0], &[1], &[]), thread(&[], &[], &[])],
            vec![],
            vec![true, false],
        )
        .unwrap();
        assert_eq!(part.loaded_rows(), [0]);
    }

    #[test]
    fn broken_structure_is_refused_with_where() {
        let err = |r: Result<TraceStore, StoreError>| r.err().map(|e| e.0).unwrap_or_default();
        let mut t = thread(&[0, 10], &[10, 20], &[]);
        t.states.value = ValueColumn::from_values(&[1], NULL);
        assert!(
            err(store(vec![t], vec![], vec![])).starts_with("row 0: state columns of 2 begins")
        );
        let mut t = thread(&[0], &[10], &[1]);
        t.events[0].value = ValueColumn::from_values(&[3], 0);
        assert!(err(store(vec![t], vec![], vec![])).contains("values with null 0"));
        let mut t = thread(&[], &[], &[1]);
        t.events.push(t.events[0].clone());
        assert!(err(store(vec![t], vec![], vec![])).contains("event type 7 after type 7"));
        let threads = || vec![thread(&[], &[], &[]), thread(&[], &[], &[])];
        assert!(
            err(store(threads(), vec![comm(0, 2, 1)], vec![]))
                .starts_with("communication 0: rows 0 -> 2")
        );
        assert!(
            err(store(threads(), vec![comm(0, 1, 5), comm(1, 0, 4)], vec![]))
                .contains("not sorted by send time")
        );
        assert!(
            err(store(threads(), vec![], vec![false])).contains("1 loaded-row marks for 2 rows")
        );
    }

    #[test]
    fn the_sanity_check_finds_records_out_of_order() {
        let check = |t: ThreadData| {
            store(vec![t], vec![], vec![])
                .unwrap()
                .sanity_check()
                .err()
                .map(|e| e.0)
        };
        assert_eq!(check(thread(&[0, 10], &[10, 20], &[1, 2])), None);
        assert_eq!(
            check(thread(&[10, 0], &[20, 10], &[])).as_deref(),
            Some("row 0: state 1 begins at 0, after one at 10")
        );
        assert_eq!(
            check(thread(&[0, 10], &[10, 5], &[])).as_deref(),
            Some("row 0: state 1 ends at 5, before its begin 10")
        );
        let mut overlapping = thread(&[0, 5], &[30, 20], &[]);
        assert!(
            check(overlapping.clone())
                .unwrap()
                .contains("yet ends are marked sorted")
        );
        overlapping.states.ends_sorted = false;
        assert_eq!(check(overlapping), None);
        assert_eq!(
            check(thread(&[], &[], &[4, 9, 2])).as_deref(),
            Some("row 0, type 7: event 2 at 2, after one at 9")
        );
    }
}

//! Paraver's cutter by time (`src/ktracecutter.cpp`, `KTraceCutter::execute`) with its
//! default settings (`break_states` on, `original_time`, `remove_first_states`,
//! `remove_last_states` off, every task kept), on a loaded trace: the trace a region of
//! interest is analysed on, as pypop analyses the traces its `chop_to_roi` cuts.
//!
//! Of the records of a time-sorted trace, the cutter keeps, for a cut `[t0, t1]`:
//! - the states that end after `t0` and begin at or before `t1`, cut at the edges;
//! - the events at `t0..=t1`; the first event of each hardware counter type
//!   (`42000000..50000000` in the `.pcf`) of each thread is written with value 0, since the
//!   counter's value counts from before the cut;
//! - the communications sent and received inside (logical and physical times);
//! - and it closes what is open at `t1`: a 0 at `t1` for each event type still open (a
//!   value not yet followed by its 0, for the types the `.pcf` gives values, or does not
//!   name) and for each counter type seen, on every thread with records in the cut.
//!
//! Times are shifted so that the first record written is at 0, and the header's duration is
//! the time from the first record to the last (`t1 - t0` when a state spans the cut; the
//! closing zeros are not counted).
//!
//! The cutter reads the file in order and stops at the first state or communication past
//! `t1`; on a time-sorted trace that keeps the same records as the time rule above, which is
//! what this cut applies (the store does not keep the file's order across threads).

use std::collections::BTreeMap;
use std::sync::Arc;

use prvscope_format::Pcf;
use prvscope_store::{
    Comm, EventColumn, StateColumns, ThreadData, TimeColumn, Trace, TraceStore, ValueColumn,
};

/// Is `ty` a hardware counter for the cutter (a `.pcf` type of `42000000..50000000`)?
fn is_counter(pcf: Option<&Pcf>, ty: u32) -> bool {
    (42_000_000..50_000_000).contains(&ty) && pcf.is_some_and(|p| p.event_types.contains_key(&ty))
}

/// Does the cutter track `ty` as opened by a value and closed by a 0? Every type but the
/// counters and the `.pcf`'s types without values (a trace without `.pcf`: every type).
fn is_tracked(pcf: Option<&Pcf>, ty: u32) -> bool {
    match pcf {
        None => true,
        Some(p) => {
            !is_counter(Some(p), ty) && p.event_types.get(&ty).is_none_or(|t| !t.values.is_empty())
        }
    }
}

/// One thread's records in the cut, before the shift: states (begin, end, value), events
/// per type (time, value), its first record (time, CPU).
struct Cut {
    states: Vec<(u64, u64, u64)>,
    events: BTreeMap<u32, Vec<(u64, u64)>>,
    first: Option<(u64, u32)>,
}

/// `trace` cut to `[t0, t1]` (ticks) as Paraver's cutter cuts it.
pub fn cut(trace: &Trace, t0: u64, t1: u64) -> Trace {
    let t1 = t1.max(t0);
    let store = &trace.store;
    let pcf = trace.pcf.as_ref();
    let sentinel = store.null_policy().sentinel;
    // Paraver reads `N` as 0.
    let raw = |v: u64| if v == sentinel { 0 } else { v };
    // Per thread: states (begin, end, value), events per type (time, value), the CPU over
    // time; whether the thread has a record in the cut.
    let mut threads: Vec<Cut> = Vec::with_capacity(store.thread_count());
    let (mut first, mut last) = (u64::MAX, 0u64);
    for t in store.threads() {
        let mut states = Vec::new();
        // The thread's first record in the cut: its time there, and the CPU it names.
        let mut first_here: Option<(u64, u32)> = None;
        let mut note = |at: u64, cpu_time: u64| {
            if first_here.is_none_or(|f| at < f.0) {
                first_here = Some((at, t.cpu_at(cpu_time)));
            }
        };
        for i in 0..t.states.len() {
            let (b, e) = (t.states.begin.get(i), t.states.end.get(i));
            if e <= t0 || b > t1 {
                continue;
            }
            note(b.max(t0), b);
            let (b, e) = (b.max(t0), e.min(t1));
            first = first.min(b);
            last = last.max(e);
            states.push((b, e, raw(t.states.value.get(i))));
        }
        let mut events: BTreeMap<u32, Vec<(u64, u64)>> = BTreeMap::new();
        for c in &t.events {
            let range = c.time.lower_bound(t0)..c.time.upper_bound(t1);
            if range.is_empty() {
                continue;
            }
            let counter = is_counter(pcf, c.ty);
            let tracked = is_tracked(pcf, c.ty);
            let mut open = 0u64;
            let mut seen_counter = false;
            let mut out = Vec::with_capacity(range.len() + 1);
            for (k, i) in range.enumerate() {
                let (time, value) = (c.time.get(i), raw(c.value.get(i)));
                first = first.min(time);
                last = last.max(time);
                note(time, time);
                if counter {
                    seen_counter |= value > 0;
                    out.push((time, if k == 0 { 0 } else { value }));
                    continue;
                }
                if tracked {
                    open = if value > 0 {
                        open + 1
                    } else {
                        open.saturating_sub(1)
                    };
                }
                out.push((time, value));
            }
            if open > 0 || seen_counter {
                out.push((t1, 0));
            }
            events.insert(c.ty, out);
        }
        threads.push(Cut {
            states,
            events,
            first: first_here,
        });
    }
    let comms: Vec<Comm> = store
        .comms()
        .iter()
        .filter(|c| c.lsend >= t0 && c.lrecv >= t0 && c.lsend <= t1 && c.psend <= t1)
        .filter(|c| c.precv <= t1)
        .copied()
        .collect();
    for c in &comms {
        first = first.min(c.lsend.min(c.psend).min(c.lrecv).min(c.precv));
        last = last.max(c.lsend.max(c.psend).max(c.lrecv).max(c.precv));
    }
    let shift = if first == u64::MAX { t0 } else { first };
    let data: Vec<ThreadData> = threads
        .into_iter()
        .zip(store.threads())
        .map(
            |(
                Cut {
                    states,
                    events,
                    first,
                },
                orig,
            )| {
                let times = |v: &[(u64, u64, u64)], f: fn(&(u64, u64, u64)) -> u64| {
                    TimeColumn::from_times(&v.iter().map(|s| f(s) - shift).collect::<Vec<u64>>())
                };
                // As a load of the cut finds them: the first record's CPU from time 0, then
                // the changes after it.
                let cpus = match first {
                    Some((at, cpu)) => {
                        let mut cpus = vec![(0, cpu)];
                        for &(t, c) in orig.cpus.iter().filter(|c| c.0 > at && c.0 <= t1) {
                            if cpus.last().is_some_and(|l| l.1 != c) {
                                cpus.push((t - shift, c));
                            }
                        }
                        cpus
                    }
                    None => Vec::new(),
                };
                ThreadData {
                    states: StateColumns {
                        begin: times(&states, |s| s.0),
                        end: times(&states, |s| s.1),
                        value: ValueColumn::from_values(
                            &states.iter().map(|s| s.2).collect::<Vec<u64>>(),
                            sentinel,
                        ),
                        ends_sorted: states.windows(2).all(|w| w[0].1 <= w[1].1),
                    },
                    events: events
                        .into_iter()
                        .map(|(ty, evs)| EventColumn {
                            ty,
                            time: TimeColumn::from_times(
                                &evs.iter().map(|e| e.0 - shift).collect::<Vec<u64>>(),
                            ),
                            value: ValueColumn::from_values(
                                &evs.iter().map(|e| e.1).collect::<Vec<u64>>(),
                                sentinel,
                            ),
                        })
                        .collect(),
                    cpus,
                }
            },
        )
        .collect();
    let comms: Vec<Comm> = comms
        .into_iter()
        .map(|c| Comm {
            lsend: c.lsend - shift,
            psend: c.psend - shift,
            lrecv: c.lrecv - shift,
            precv: c.precv - shift,
            ..c
        })
        .collect();
    // The cutter's duration: from its first record to its last (the closing zeros at `t1`
    // left out), which is `t1 - t0` when a state spans the cut.
    let end = last.saturating_sub(shift);
    let mut header = trace.header.clone();
    header.end_time = end;
    // The cut's events are the trace's: the order the store does not keep stays unknown.
    let cut = TraceStore::new(data, comms, store.null_policy(), 0, end)
        .with_loaded_rows(
            (0..store.thread_count())
                .map(|r| store.is_row_loaded(r))
                .collect(),
        )
        .with_inversions(store.inversions().to_vec());
    Trace {
        header,
        store: Arc::new(cut),
        part: None,
        ..trace.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_and_tracked_types_follow_the_pcf() {
        let mut pcf = Pcf::default();
        pcf.event_types.insert(
            42_000_050,
            prvscope_format::pcf::EventTypeInfo {
                gradient: 7,
                label: "PAPI_TOT_INS".into(),
                values: BTreeMap::new(),
            },
        );
        pcf.event_types.insert(
            50_000_001,
            prvscope_format::pcf::EventTypeInfo {
                gradient: 0,
                label: "MPI".into(),
                values: BTreeMap::from([(3, "MPI_Send".into())]),
            },
        );
        pcf.event_types.insert(
            40_000_018,
            prvscope_format::pcf::EventTypeInfo {
                gradient: 0,
                label: "no values".into(),
                values: BTreeMap::new(),
            },
        );
        let p = Some(&pcf);
        assert!(is_counter(p, 42_000_050));
        assert!(!is_counter(p, 42_000_051), "not in the .pcf");
        assert!(!is_counter(None, 42_000_050));
        assert!(is_tracked(p, 50_000_001));
        assert!(!is_tracked(p, 40_000_018));
        assert!(!is_tracked(p, 42_000_050));
        assert!(is_tracked(p, 42_000_051), "a type the .pcf does not name");
        assert!(is_tracked(None, 42_000_050));
    }
}

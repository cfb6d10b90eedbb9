//! The cut as a trace in memory: the records [`write_cut`](super::write_cut) writes, put
//! into a store instead of lines (the trace a region of interest is analysed on, as pypop
//! analyses the traces its `chop_to_roi` cuts with Paraver's cutter). The cutter's
//! decisions are the same ones ([`ThreadCut`], [`prepare`]); only the sink differs.
//! Paraver reads `N` as 0: so does the region.

use std::collections::BTreeMap;
use std::sync::Arc;

use prvscope_store::{
    Comm, EventColumn, StateColumns, ThreadData, TimeColumn, Trace, TraceStore, ValueColumn,
};
use rayon::prelude::*;

use super::cutter::{Context, Sink, ThreadCut};
use super::{Control, CutterOptions, Prepared, comm_span, pcf_types, prepare};

/// One thread's records as the cutter writes them, before the shift.
#[derive(Default)]
struct Records {
    states: Vec<(u64, u64, u64)>,
    events: BTreeMap<u32, Vec<(u64, u64)>>,
    /// The first record written: its time and CPU.
    first: Option<(u64, u32)>,
    sentinel: u64,
}

impl Records {
    fn raw(&self, v: u64) -> u64 {
        if v == self.sentinel { 0 } else { v }
    }
}

impl Sink for Records {
    fn state(&mut self, cpu: u32, begin: u64, end: u64, value: u64) {
        self.first.get_or_insert((begin, cpu));
        let v = self.raw(value);
        self.states.push((begin, end, v));
    }

    fn events(&mut self, time: u64, cpu: u32, pairs: &[(u32, u64)]) {
        self.first.get_or_insert((time, cpu));
        for &(ty, v) in pairs {
            let v = self.raw(v);
            self.events.entry(ty).or_default().push((time, v));
        }
    }
}

/// `trace` cut to `[t0, t1]` (ticks) as Paraver's cutter cuts it by time with its default
/// settings (states cut at the edges, times shifted to the first record, every task kept).
pub fn cut(trace: &Trace, t0: u64, t1: u64) -> Trace {
    let t1 = t1.max(t0);
    let opts = CutterOptions::by_time(t0, t1);
    let store = &trace.store;
    let (counters, untracked) = pcf_types(trace);
    let sentinel = store.null_policy().sentinel;
    let ctx = Context::new(&opts, (t0, t1), &counters, &untracked, sentinel);
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let control = Control {
        progress: &|_| {},
        cancel: &cancel,
    };
    // Nothing here is cancelled.
    let Ok(p) = prepare(trace, &opts, &ctx, &control) else {
        unreachable!("a cut that cannot be cancelled was cancelled")
    };
    let Prepared {
        ref kept,
        stop,
        first_written,
        shift,
        predicted_last: _,
        comm_from,
    } = p;
    let threads = store.threads();
    let mut cuts: Vec<(Option<ThreadCut>, Records)> = threads
        .par_iter()
        .enumerate()
        .map(|(row, t)| {
            let mut records = Records {
                sentinel,
                ..Records::default()
            };
            let cut = kept[row].then(|| {
                let mut c = ThreadCut::new(&ctx, row, t, first_written.unwrap_or(u64::MAX));
                c.advance(&ctx, t, None, first_written, stop, &mut records);
                c
            });
            (cut, records)
        })
        .collect();
    let comms: Vec<Comm> = store.comms()[comm_from..]
        .iter()
        .take_while(|c| p.before_stop(c.lsend))
        .filter(|c| p.comm_kept(&opts, (t0, t1), c))
        .copied()
        .collect();
    let last = cuts
        .iter()
        .filter_map(|(c, _)| c.as_ref().and_then(|c| c.last))
        .chain(comms.iter().map(|c| comm_span(c).1))
        .max();
    // The closing zeros, at the last record (the cut's end when that is later).
    let final_time = last.map_or(t1, |l| l.max(t1));
    for (c, records) in &mut cuts {
        let Some(c) = c.as_ref().filter(|c| c.init) else {
            continue;
        };
        let (opened, counters_seen) = c.closing();
        for ty in opened.into_iter().chain(counters_seen) {
            records.events.entry(ty).or_default().push((final_time, 0));
        }
    }
    let data: Vec<ThreadData> = cuts
        .into_iter()
        .zip(threads)
        .map(|((_, r), orig)| thread_data(r, orig, shift, t1, sentinel))
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
    // The cutter's duration: from its first record to its last (the closing zeros left
    // out), which is `t1 - t0` when a state spans the cut.
    let end = last.map_or(0, |l| l.saturating_sub(shift));
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
        // (The text that came with the trace is not the cut's, nor is its index.)
        shipped_text: None,
        text_index: None,
        ..trace.clone()
    }
}

/// A thread's records, shifted, as a store's thread (`orig`: the thread cut, for its CPUs).
fn thread_data(r: Records, orig: &ThreadData, shift: u64, t1: u64, sentinel: u64) -> ThreadData {
    let times = |v: &[(u64, u64, u64)], f: fn(&(u64, u64, u64)) -> u64| {
        TimeColumn::from_times(&v.iter().map(|s| f(s) - shift).collect::<Vec<u64>>())
    };
    // As a load of the cut finds them: the first record's CPU from time 0, then the changes
    // after it.
    let cpus = match r.first {
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
    let states = r.states;
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
        events: r
            .events
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
}

//! Paraver's filter (`KTraceFilter::execute`, `src/ktracefilter.cpp`) over the store: each
//! record kept or dropped on its own (states by name and length, event pairs by type and
//! value, communications by size), the header's duration unchanged.

use std::io::Write;

use prvscope_store::{ThreadData, Trace};
use rayon::prelude::*;

use super::options::FilterOptions;
use super::text::{Line, Lines, comm_line, header_text, merge, row_ids};
use super::{Control, Head, WriteError, Written, block_count, blocks};

/// The filter's decisions, record by record.
pub(super) struct Rules<'a> {
    opts: &'a FilterOptions,
    states: Option<Vec<u64>>,
}

impl<'a> Rules<'a> {
    pub(super) fn new(trace: &Trace, opts: &'a FilterOptions) -> Self {
        Self::with_pcf(trace.pcf.as_ref(), opts)
    }

    pub(super) fn with_pcf(pcf: Option<&prvscope_format::Pcf>, opts: &'a FilterOptions) -> Self {
        Self {
            opts,
            states: kept_states(pcf, opts),
        }
    }

    pub(super) fn state(&self, begin: u64, end: u64, value: u64) -> bool {
        self.opts.states.as_ref().is_some_and(|sf| {
            self.states.as_ref().is_none_or(|ids| ids.contains(&value))
                && (sf.min_time == 0 || end - begin >= sf.min_time)
        })
    }

    pub(super) fn pair(&self, ty: u32, value: u64) -> bool {
        self.pair_u64(u64::from(ty), value)
    }

    pub(super) fn pair_u64(&self, ty: u64, value: u64) -> bool {
        self.opts
            .events
            .as_ref()
            .is_some_and(|f| f.keeps(ty, value))
    }

    pub(super) fn comm(&self, size: u64) -> bool {
        self.opts.comms.is_some_and(|min| min == 0 || size >= min)
    }
}

/// One thread's place in its records.
struct Cursor {
    state: usize,
    events: Vec<usize>,
    pairs: Vec<(u32, u64)>,
}

/// The state values the filter keeps: `None` for all of them. A `.pcf` state is kept when
/// its name is part of one of the names given (as Paraver compares them); without a
/// `.pcf`, every state.
fn kept_states(pcf: Option<&prvscope_format::Pcf>, opts: &FilterOptions) -> Option<Vec<u64>> {
    let s = opts.states.as_ref()?;
    if s.all {
        return None;
    }
    let pcf = pcf?;
    Some(
        pcf.states
            .iter()
            .filter(|(_, name)| s.names.iter().any(|n| n.contains(name.as_str())))
            .map(|(&id, _)| id)
            .collect(),
    )
}

/// Writes `trace` filtered as Paraver's filter filters it to `out`: records in time order
/// (equal times in row order; the filter keeps the file's order), a thread's events at one
/// time as one line.
pub fn write_filter(
    trace: &Trace,
    head: &Head,
    opts: &FilterOptions,
    out: &mut (dyn Write + Send),
    control: &Control<'_>,
) -> Result<Written, WriteError> {
    let store = &trace.store;
    let ids = row_ids(&trace.header);
    let sentinel = store.null_policy().sentinel;
    let rules = Rules::new(trace, opts);
    let mut text = header_text(&trace.header, trace.header.end_time, &head.communicators);
    for c in &head.comments {
        text.push_str(c);
        text.push('\n');
    }
    let mut bytes = text.len() as u64;
    out.write_all(text.as_bytes())?;
    let threads = store.threads();
    let mut cursors: Vec<Cursor> = threads
        .iter()
        .map(|t| Cursor {
            state: 0,
            events: vec![0; t.events.len()],
            pairs: Vec::new(),
        })
        .collect();
    let end = trace.header.end_time.max(store.end_time());
    let plan = blocks(0, end, block_count(store.counts().total()));
    let mut bufs: Vec<Lines> = threads.iter().map(|_| Lines::default()).collect();
    let mut comm_buf = Lines::default();
    let mut merged: Vec<u8> = Vec::new();
    let comms = store.comms();
    let mut comm_next = 0;
    for (k, until) in plan.iter().enumerate() {
        control.check()?;
        cursors
            .par_iter_mut()
            .zip(bufs.par_iter_mut())
            .enumerate()
            .for_each(|(row, (c, buf))| {
                buf.clear();
                filter_thread(&threads[row], c, *until, &rules, ids[row], sentinel, buf);
            });
        comm_buf.clear();
        while comm_next < comms.len() {
            let c = &comms[comm_next];
            if until.is_some_and(|u| c.lsend >= u) {
                break;
            }
            if rules.comm(c.size) {
                comm_line(&mut comm_buf.text, c, &ids, 0);
                comm_buf.close(c.lsend);
            }
            comm_next += 1;
        }
        merged.clear();
        bytes += merge(&bufs, &comm_buf, &mut merged);
        out.write_all(&merged)?;
        (control.progress)((k + 1) as f32 / plan.len() as f32);
    }
    out.flush()?;
    Ok(Written {
        bytes,
        range: (0, trace.header.end_time),
        shift: 0,
        duration: trace.header.end_time,
        left_out: 0,
    })
}

fn filter_thread(
    t: &ThreadData,
    c: &mut Cursor,
    until: Option<u64>,
    rules: &Rules<'_>,
    ids: [u32; 3],
    sentinel: u64,
    buf: &mut Lines,
) {
    let before = |time: u64| until.is_none_or(|u| time < u);
    loop {
        let st = (c.state < t.states.len()).then(|| t.states.begin.get(c.state));
        let ev = t
            .events
            .iter()
            .zip(&c.events)
            .filter(|(col, i)| **i < col.len())
            .map(|(col, i)| col.time.get(*i))
            .min();
        let time = match (st, ev) {
            (Some(s), Some(e)) => s.min(e),
            (Some(s), None) => s,
            (None, Some(e)) => e,
            (None, None) => return,
        };
        if !before(time) {
            return;
        }
        if st == Some(time) {
            let i = c.state;
            c.state += 1;
            let (b, e, v) = (
                t.states.begin.get(i),
                t.states.end.get(i),
                t.states.value.get(i),
            );
            if rules.state(b, e, v) {
                let mut l = Line {
                    buf: &mut buf.text,
                    sentinel,
                };
                l.start(b'1', t.cpu_at(b), ids).num(b).num(e).value(v).end();
                buf.close(b);
            }
            continue;
        }
        c.pairs.clear();
        for (col, i) in t.events.iter().zip(c.events.iter_mut()) {
            while *i < col.len() && col.time.get(*i) == time {
                let v = col.value.get(*i);
                if rules.pair(col.ty, v) {
                    c.pairs.push((col.ty, v));
                }
                *i += 1;
            }
        }
        if !c.pairs.is_empty() {
            let mut l = Line {
                buf: &mut buf.text,
                sentinel,
            };
            l.start(b'2', t.cpu_at(time), ids).num(time);
            for &(ty, v) in &c.pairs {
                l.num(u64::from(ty)).value(v);
            }
            l.end();
            buf.close(time);
        }
    }
}

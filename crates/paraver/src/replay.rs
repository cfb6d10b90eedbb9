//! The run of an MPI trace replayed on an ideal network (what BSC computes with Dimemas for
//! the POP serialization and transfer efficiencies): every message arrives the instant it is
//! sent, and MPI calls take no time of their own, so a process waits only for what it
//! depends on.
//!
//! Each process (its first thread) becomes a sequence of computation bursts (the time
//! between MPI calls, as measured) and MPI calls (Extrae's event types 50000001-50000003,
//! value 0 ending the call). A call sends the messages whose logical send lies in it, at the
//! call's start, and completes the receives whose logical receive lies in it, once each
//! message was sent (a receive posted earlier, `MPI_Irecv`, completes in the call that waits
//! for it, where Extrae writes it). Collectives on one communicator (type 50100004) are
//! matched in order: one-to-all ones (`Bcast`, `Scatter`) release the other processes when
//! the root (type 50100003) arrives, all-to-one ones (`Reduce`, `Gather`) release the root
//! when all have arrived, the others release everyone when the last arrives. Sends complete
//! at once (eager).

use std::collections::BTreeMap;

use prvscope_format::Pcf;
use prvscope_store::Comm;

use crate::records::kind::{COMM, EVENT, LOG, RECV, SEND, STATE};
use crate::records::{Events, Rec, Select, Source};

/// MPI point-to-point, collective and other calls.
const MPI_TYPES: [u64; 3] = [50_000_001, 50_000_002, 50_000_003];
const ROOT: u64 = 50_100_003;
const COMMUNICATOR: u64 = 50_100_004;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pattern {
    /// Everyone leaves when the last arrives.
    All,
    /// The root's arrival releases the others (Bcast, Scatter).
    FromRoot,
    /// The last arrival releases the root (Reduce, Gather).
    ToRoot,
}

/// A call being read: messages it sends and receives, its collective pattern, whether this
/// process is its root, its communicator.
type OpenCall = (Vec<usize>, Vec<usize>, Option<Pattern>, bool, u64);

#[derive(Debug, Clone)]
enum Action {
    Compute(u64),
    Call {
        sends: Vec<usize>,
        recvs: Vec<usize>,
        /// A collective: (communicator, pattern, is root).
        collective: Option<(u64, Pattern, bool)>,
    },
}

/// What the replay gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Ideal {
    /// The runtime on the ideal network (ticks).
    pub runtime: u64,
    /// Each process's computation (its time outside MPI calls, ticks): its useful time in the
    /// ideal run, as Dimemas counts its CPU bursts.
    pub computation: Vec<u64>,
}

/// The ideal run of a trace given the thread row of each process (its first thread), or
/// why it cannot be computed.
pub fn ideal_run(rows: &[usize], source: &Source<'_>, pcf: Option<&Pcf>) -> Result<Ideal, String> {
    use rayon::prelude::*;
    let name = |ty: u64, v: i64| -> String {
        pcf.and_then(|p| p.event_types.get(&(ty as u32)))
            .and_then(|t| t.values.get(&(v as u64)))
            .cloned()
            .unwrap_or_default()
    };
    // A process's program reads its states, its messages and its MPI events.
    let mut types: Vec<u32> = MPI_TYPES
        .iter()
        .chain(&[ROOT, COMMUNICATOR])
        .map(|&t| t as u32)
        .collect();
    types.sort_unstable();
    let select = Select {
        states: true,
        events: Some(Events::Types(types)),
        comms: true,
    };
    let programs: Vec<Vec<Action>> = rows
        .par_iter()
        .map(|&row| {
            let cursor = source.cursor(row, &select, 1 << 16);
            let recs: Vec<Rec> = (0..).map_while(|i| cursor.get(i)).collect();
            program(&recs, &name)
        })
        .collect();
    let comms = source.comms();
    let computation = programs
        .iter()
        .map(|p| {
            p.iter()
                .map(|a| if let Action::Compute(d) = a { *d } else { 0 })
                .sum()
        })
        .collect();
    Ok(Ideal {
        runtime: simulate(&programs, comms)?,
        computation,
    })
}

/// One process's bursts and calls.
fn program(recs: &[Rec], name: &dyn Fn(u64, i64) -> String) -> Vec<Action> {
    let mut out = Vec::new();
    let mut last_end = 0u64;
    // The open call: (begin, sends, recvs, collective kind, root, communicator).
    let mut open: Option<OpenCall> = None;
    let mut end_of_activity = 0u64;
    let mut i = 0;
    while i < recs.len() {
        let t = recs[i].time;
        if recs[i].kind & STATE != 0 {
            end_of_activity = end_of_activity.max(t);
        }
        // All the events of one timestamp are read together (a call's begin carries its
        // root and communicator).
        let mut j = i;
        let mut call: Option<(u64, i64)> = None;
        let (mut root, mut communicator) = (false, 0u64);
        while j < recs.len() && recs[j].time == t {
            let r = &recs[j];
            if r.kind == EVENT {
                if MPI_TYPES.contains(&r.a) {
                    call = Some((r.a, r.b));
                } else if r.a == ROOT && r.b != 0 {
                    root = true;
                } else if r.a == COMMUNICATOR {
                    communicator = r.b as u64;
                }
            } else if r.kind & COMM != 0
                && r.kind & LOG != 0
                && let Some(o) = open.as_mut()
            {
                note_message(o, r);
            }
            if r.kind & STATE != 0 {
                end_of_activity = end_of_activity.max(r.time);
            }
            j += 1;
        }
        if let Some((ty, v)) = call {
            if v == 0 {
                if let Some((sends, recvs, pattern, root, communicator)) = open.take() {
                    out.push(Action::Call {
                        sends,
                        recvs,
                        collective: pattern.map(|p| (communicator, p, root)),
                    });
                    last_end = t;
                }
            } else if open.is_none() {
                out.push(Action::Compute(t.saturating_sub(last_end)));
                let pattern = (ty == MPI_TYPES[1]).then(|| {
                    let n = name(ty, v);
                    if n.contains("Bcast") || (n.contains("Scatter") && !n.contains("Reduce")) {
                        Pattern::FromRoot
                    } else if n == "MPI_Reduce" || (n.contains("Gather") && !n.contains("All")) {
                        Pattern::ToRoot
                    } else {
                        Pattern::All
                    }
                });
                open = Some((Vec::new(), Vec::new(), pattern, root, communicator));
                // Messages logged at the call's first instant belong to it.
                for r in &recs[i..j] {
                    if r.kind & COMM != 0
                        && r.kind & LOG != 0
                        && let Some(o) = open.as_mut()
                    {
                        note_message(o, r);
                    }
                }
            }
        }
        i = j;
    }
    out.push(Action::Compute(end_of_activity.saturating_sub(last_end)));
    out
}

/// Per process, when it reached a collective and whether it is the root.
type Arrivals = Vec<Option<(u64, bool)>>;

/// A logical send or receive record of the open call.
fn note_message(o: &mut OpenCall, r: &Rec) {
    if r.kind & SEND != 0 {
        o.0.push(r.a as usize);
    } else if r.kind & RECV != 0 {
        o.1.push(r.a as usize);
    }
}

/// Runs the programs together; the ideal runtime is the latest end.
fn simulate(programs: &[Vec<Action>], comms: &[Comm]) -> Result<u64, String> {
    let n = programs.len();
    let mut clock = vec![0u64; n];
    let mut pc = vec![0usize; n];
    // A call whose sends were made (at its start) and that waits.
    let mut started = vec![false; n];
    let mut sent: Vec<Option<u64>> = vec![None; comms.len()];
    // Per communicator: per process, how many collectives it completed; the arrivals of the
    // current one.
    let mut coll_done: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    let mut arrivals: BTreeMap<(u64, usize), Arrivals> = BTreeMap::new();
    let members: BTreeMap<u64, Vec<usize>> = {
        let mut m: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (p, prog) in programs.iter().enumerate() {
            for a in prog {
                if let Action::Call {
                    collective: Some((c, ..)),
                    ..
                } = a
                {
                    let v = m.entry(*c).or_default();
                    if v.last() != Some(&p) {
                        v.push(p);
                    }
                }
            }
        }
        m
    };
    loop {
        let mut progress = false;
        for p in 0..n {
            while let Some(action) = programs[p].get(pc[p]) {
                match action {
                    Action::Compute(d) => {
                        clock[p] += d;
                        pc[p] += 1;
                        progress = true;
                    }
                    Action::Call {
                        sends,
                        recvs,
                        collective,
                    } => {
                        if !started[p] {
                            for &m in sends {
                                if let Some(s) = sent.get_mut(m) {
                                    *s = Some(clock[p]);
                                }
                            }
                            started[p] = true;
                            progress = true;
                        }
                        // Receives: each message must have been sent.
                        let mut ready = clock[p];
                        let mut waiting = false;
                        for &m in recvs {
                            match sent.get(m).copied().flatten() {
                                Some(s) => ready = ready.max(s),
                                None => waiting = true,
                            }
                        }
                        if waiting {
                            break;
                        }
                        if let Some((c, pattern, root)) = *collective {
                            let k = coll_done.entry(c).or_insert_with(|| vec![0; n])[p];
                            let slot = arrivals.entry((c, k)).or_insert_with(|| vec![None; n]);
                            if slot[p].is_none() {
                                slot[p] = Some((ready, root));
                                progress = true;
                            }
                            let group = &members[&c];
                            if group.iter().any(|&q| slot[q].is_none()) {
                                // A root's one-to-all call and a non-root's all-to-one call
                                // leave at once.
                                let alone = match pattern {
                                    Pattern::FromRoot => root,
                                    Pattern::ToRoot => !root,
                                    Pattern::All => false,
                                };
                                if !alone {
                                    break;
                                }
                            } else {
                                let last = group
                                    .iter()
                                    .filter_map(|&q| slot[q].map(|a| a.0))
                                    .max()
                                    .unwrap_or(ready);
                                let root_time = group
                                    .iter()
                                    .find_map(|&q| slot[q].filter(|a| a.1).map(|a| a.0));
                                ready = match pattern {
                                    Pattern::All => last,
                                    Pattern::FromRoot if !root => {
                                        ready.max(root_time.unwrap_or(last))
                                    }
                                    Pattern::ToRoot if root => last,
                                    _ => ready,
                                };
                            }
                            if let Some(v) = coll_done.get_mut(&c) {
                                v[p] += 1;
                            }
                        }
                        clock[p] = ready;
                        started[p] = false;
                        pc[p] += 1;
                        progress = true;
                    }
                }
            }
        }
        if pc.iter().zip(programs).all(|(&i, prog)| i >= prog.len()) {
            return Ok(clock.into_iter().max().unwrap_or(0));
        }
        if !progress {
            let stuck: Vec<usize> = (0..n).filter(|&p| pc[p] < programs[p].len()).collect();
            return Err(format!(
                "the replay cannot go on: processes {stuck:?} wait for messages or collectives \
                 that never come"
            ));
        }
    }
}

//! Each thread's records in Paraver's order, rebuilt from the store: what Paraver's thread
//! iterators walk. A state is two records (begin, end); a communication is eight, four on
//! each side (`LOG`/`PHY` `SEND`/`RECV` on the thread that does it, and the `RSEND`/`RRECV`
//! "remote" records that tell the partner); events are one record per type:value pair.
//!
//! Within one timestamp Paraver orders records by kind (state ends first, state begins last;
//! [`rank`]) and then as they came in the file. The store keeps each event type in its own
//! column, so events of different types at one timestamp are ordered by type here: where a
//! line held them in another order, a function that looks at several types at once may see
//! them in another order than Paraver does.

use prvscope_format::Header;
use prvscope_store::TraceStore;

/// Record kinds: Paraver's bits (`utils/traceparser/tracetypes.h`).
pub mod kind {
    pub const BEGIN: u16 = 0x0001;
    pub const END: u16 = 0x0002;
    pub const STATE: u16 = 0x0004;
    pub const EVENT: u16 = 0x0008;
    pub const LOG: u16 = 0x0010;
    pub const PHY: u16 = 0x0020;
    pub const SEND: u16 = 0x0040;
    pub const RECV: u16 = 0x0080;
    pub const COMM: u16 = 0x0100;
    pub const GLOBCOMM: u16 = 0x0200;
    pub const RRECV: u16 = 0x0400;
    pub const RSEND: u16 = 0x0800;
    /// The virtual records before the first and after the last record of a thread.
    pub const EMPTYREC: u16 = STATE + EVENT + COMM;
}

/// One record of a thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rec {
    pub time: u64,
    pub kind: u16,
    /// State value, event type, or (communications) the index of the communication.
    pub a: u64,
    /// Event value (as Paraver reads it: a signed 64-bit integer).
    pub b: i64,
    /// The record's CPU (1-based; 0: none).
    pub cpu: u32,
}

impl Rec {
    pub fn is(&self, bits: u16) -> bool {
        self.kind & bits == bits
    }
}

/// Paraver's order of record kinds at one timestamp (`getTypeOrdered`,
/// `include/plaintypes.h`): state ends, physical receives, logical sends, physical sends,
/// events and logical receives, state begins.
pub fn rank(k: u16) -> u8 {
    use kind::{END, EVENT, GLOBCOMM, LOG, PHY, RECV, SEND, STATE};
    if k & EVENT != 0 {
        6
    } else if k & STATE != 0 {
        if k & END != 0 { 0 } else { 8 }
    } else if k & PHY != 0 {
        if k & RECV != 0 { 1 } else { 5 }
    } else if k & LOG != 0 {
        if k & SEND != 0 { 4 } else { 6 }
    } else if k & GLOBCOMM != 0 {
        7
    } else {
        9
    }
}

/// Every thread's records, and the communications they point to.
pub struct Records {
    pub threads: Vec<Vec<Rec>>,
    pub end_time: u64,
}

impl Records {
    /// Rebuilds the records of every loaded thread of `store`.
    pub fn build(header: &Header, store: &TraceStore) -> Records {
        use kind::{BEGIN, COMM, END, EVENT, LOG, PHY, RECV, RRECV, RSEND, SEND, STATE};
        use rayon::prelude::*;
        let n = store.thread_count();
        let sentinel = store.null_policy().sentinel;
        let mut comm_recs: Vec<Vec<Rec>> = vec![Vec::new(); n];
        for (i, c) in store.comms().iter().enumerate() {
            let i = i as u64;
            // Each side's records carry that side's CPU.
            let rec = |time, kind, cpu| Rec {
                time,
                kind,
                a: i,
                b: 0,
                cpu,
            };
            if let Some(v) = comm_recs.get_mut(c.send_row as usize) {
                let cpu = c.send_cpu;
                v.push(rec(c.lsend, COMM + LOG + SEND, cpu));
                v.push(rec(c.psend, COMM + PHY + SEND, cpu));
                v.push(rec(c.lrecv, RRECV + LOG, cpu));
                v.push(rec(c.precv, RRECV + PHY, cpu));
            }
            if let Some(v) = comm_recs.get_mut(c.recv_row as usize) {
                let cpu = c.recv_cpu;
                v.push(rec(c.lrecv, COMM + LOG + RECV, cpu));
                v.push(rec(c.precv, COMM + PHY + RECV, cpu));
                v.push(rec(c.lsend, RSEND + LOG, cpu));
                v.push(rec(c.psend, RSEND + PHY, cpu));
            }
        }
        let threads: Vec<Vec<Rec>> = store
            .threads()
            .par_iter()
            .zip(comm_recs.into_par_iter())
            .map(|(t, comms)| {
                let mut v = Vec::with_capacity(2 * t.states.len() + t.event_count() + comms.len());
                // A state's two records carry the CPU its line names.
                let one_cpu = (t.cpus.len() <= 1).then(|| t.cpu_at(0));
                let cpu_at = |time: u64| one_cpu.unwrap_or_else(|| t.cpu_at(time));
                for i in 0..t.states.len() {
                    let value = t.states.value.get(i);
                    let begin = t.states.begin.get(i);
                    let cpu = cpu_at(begin);
                    v.push(Rec {
                        time: begin,
                        kind: STATE + BEGIN,
                        a: value,
                        b: 0,
                        cpu,
                    });
                    v.push(Rec {
                        time: t.states.end.get(i),
                        kind: STATE + END,
                        a: value,
                        b: 0,
                        cpu,
                    });
                }
                for col in &t.events {
                    let ty = u64::from(col.ty);
                    for (time, value) in col.time.iter().zip(col.value.iter()) {
                        v.push(Rec {
                            time,
                            kind: EVENT,
                            a: ty,
                            // Paraver has no null: its parser reads `N` as 0.
                            b: if value == sentinel { 0 } else { value as i64 },
                            cpu: cpu_at(time),
                        });
                    }
                }
                v.extend(comms);
                // Stable: states in file order, events by type then in file order.
                v.sort_by_key(|r| (r.time, rank(r.kind)));
                v
            })
            .collect();
        // Paraver's end: the header's, or the last state or event when later.
        let end_time = threads
            .iter()
            .filter_map(|v| v.iter().rev().find(|r| r.kind & (STATE | EVENT) != 0))
            .map(|r| r.time)
            .fold(header.end_time, u64::max);
        Records { threads, end_time }
    }
}

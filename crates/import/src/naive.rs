//! A deliberately simple line-by-line `.prv` body parser, the reference the fast parallel
//! parser is checked against (in the way memchr checks its fast paths against naive code).
//!
//! It follows the same rules as [`prv`](crate::prv): comments, communicator lines and empty
//! lines are skipped; CRLF is accepted; `N` is the sentinel; a leading `-` is two's
//! complement; bad lines are skipped, and in an event line the pairs before the first bad
//! field are kept. It builds the same [`TraceStore`] by plain sorting.

use prvscope_store::{NullPolicy, TraceStore};

use crate::prv::{self, RawEvent, RawState};
use prvscope_format::Header;
use prvscope_format::RowMap;

/// The result of the naive parse: the store, the number of lines skipped as bad, and of
/// well-formed lines skipped because they name a thread the header does not have or a CPU
/// Paraver refuses for their task.
pub struct NaiveParse {
    pub store: TraceStore,
    pub bad_lines: u64,
    pub out_of_range: u64,
    /// Threads whose events, or whose states' begins, go back in time.
    pub backward_rows: u64,
}

/// The CPU field of a record whose fields were read.
fn cpu_of(f: &[&str]) -> u64 {
    f.get(1).and_then(|c| number(c)).unwrap_or(0)
}

fn number(field: &str) -> Option<u64> {
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    field.parse().ok()
}

fn value(field: &str, sentinel: u64) -> Option<(u64, bool)> {
    if field == "N" {
        return Some((sentinel, true));
    }
    match field.strip_prefix('-') {
        Some(rest) => number(rest).map(|v| (v.wrapping_neg(), false)),
        None => number(field).map(|v| (v, false)),
    }
}

/// Parses a whole trace text (header line included).
pub fn parse(text: &str, policy: NullPolicy) -> Option<NaiveParse> {
    let mut lines = text.split('\n');
    let header = Header::parse(lines.next()?.as_bytes()).ok()?;
    let rows = RowMap::new(&header);
    let n = rows.rows();
    // Records go straight to their buffers whatever the number of threads: the fast
    // parser's grouping of many threads' records is checked, not shared.
    let mut chunk = prv::ChunkOut::new_direct(n);
    // Per thread, the (time, type) of its events in file order, and its states' begins.
    let mut order: Vec<Vec<(u64, u32)>> = vec![Vec::new(); n];
    let mut begins: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut comms = Vec::new();
    let mut bad_lines = 0;
    let mut out_of_range = 0;
    let mut null_values = 0;
    for line in lines {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty()
            || line.starts_with('#')
            || line.starts_with("c:")
            || line.starts_with("i:")
        {
            continue;
        }
        let f: Vec<&str> = line.split(':').collect();
        let row_of = |i: usize| -> Option<Option<u32>> {
            let appl = number(f.get(i + 1)?)?;
            let task = number(f.get(i + 2)?)?;
            let thread = number(f.get(i + 3)?)?;
            let cpu = number(f.get(i)?)?;
            Some(
                rows.row(appl, task, thread)
                    .filter(|_| rows.cpu_fits(cpu, appl, task).is_ok()),
            )
        };
        match f.first().copied() {
            Some("1") => {
                let parsed = (|| {
                    if f.len() != 8 {
                        return None;
                    }
                    let row = row_of(1)?;
                    let begin = number(f.get(5)?)?;
                    let end = number(f.get(6)?)?;
                    let (v, _) = value(f.get(7)?, policy.sentinel)?;
                    Some((row, begin, end, v))
                })();
                match parsed {
                    Some((Some(row), begin, end, v)) if end >= begin => {
                        chunk.note_cpu(row, begin, cpu_of(&f));
                        if let Some(b) = begins.get_mut(row as usize) {
                            b.push(begin);
                        }
                        null_values += u64::from(v == policy.sentinel);
                        chunk.push_state(
                            row,
                            RawState {
                                begin,
                                end,
                                value: v,
                            },
                        );
                    }
                    Some((None, ..)) => out_of_range += 1,
                    // A state that ends before it begins.
                    Some(_) => {}
                    None => bad_lines += 1,
                }
            }
            Some("2") => {
                let head = (|| {
                    let row = row_of(1)?;
                    let time = number(f.get(5)?)?;
                    Some((row, time))
                })();
                let Some((row, time)) = head else {
                    bad_lines += 1;
                    continue;
                };
                if let Some(row) = row {
                    chunk.note_cpu(row, time, cpu_of(&f));
                }
                let mut i = 6;
                let mut ok = f.len() > 6;
                while i < f.len() {
                    let ty = f
                        .get(i)
                        .and_then(|t| number(t))
                        .and_then(|t| u32::try_from(t).ok());
                    let v = f.get(i + 1).and_then(|v| value(v, policy.sentinel));
                    let (Some(ty), Some((v, _))) = (ty, v) else {
                        ok = false;
                        break;
                    };
                    if let Some(row) = row {
                        null_values += u64::from(v == policy.sentinel);
                        chunk.push_event(row, RawEvent { time, value: v, ty });
                        if let Some(r) = order.get_mut(row as usize) {
                            r.push((time, ty));
                        }
                    }
                    i += 2;
                }
                if !ok {
                    bad_lines += 1;
                } else if row.is_none() {
                    out_of_range += 1;
                }
            }
            Some("3") => {
                let parsed = (|| {
                    if f.len() != 15 {
                        return None;
                    }
                    let send = row_of(1)?;
                    let lsend = number(f.get(5)?)?;
                    let psend = number(f.get(6)?)?;
                    let recv = row_of(7)?;
                    let nums: Option<Vec<u64>> = f.get(11..15)?.iter().map(|x| number(x)).collect();
                    let [lrecv, precv, size, tag] = nums?[..] else {
                        return None;
                    };
                    Some((send, recv, lsend, psend, [lrecv, precv, size, tag]))
                })();
                let cpu = |i: usize| f.get(i).and_then(|c| number(c)).unwrap_or(0);
                match parsed {
                    Some((Some(s), Some(r), lsend, psend, [lrecv, precv, size, tag])) => {
                        comms.push(prv::comm(
                            (cpu(1), s),
                            (cpu(7), r),
                            [lsend, psend, lrecv, precv, size, tag],
                        ));
                    }
                    Some(_) => out_of_range += 1,
                    None => bad_lines += 1,
                }
            }
            _ => bad_lines += 1,
        }
    }
    chunk.comms = comms;
    let assembled = prv::assemble(
        vec![chunk.take_output(policy.sentinel, false)],
        n,
        policy.sentinel,
        2,
    );
    let store = TraceStore::new(
        assembled.threads,
        assembled.comms,
        policy,
        null_values,
        header.end_time,
    )
    .with_inversions(inversions(&order));
    Some(NaiveParse {
        store,
        bad_lines,
        out_of_range,
        backward_rows: order
            .iter()
            .zip(&begins)
            .filter(|(events, begins)| !events.is_sorted_by_key(|e| e.0) || !begins.is_sorted())
            .count() as u64,
    })
}

/// The pairs of event types `(a, b)`, `a > b`, of which a thread's event of `a` comes before
/// one of `b` at one timestamp (`TraceStore::inversions`), from each thread's (time, type)
/// in file order; of a thread whose times go back, every pair of its types.
fn inversions(order: &[Vec<(u64, u32)>]) -> Vec<(u32, u32)> {
    let mut out = std::collections::BTreeSet::new();
    for events in order {
        if events.is_sorted_by_key(|e| e.0) {
            for group in events.chunk_by(|x, y| x.0 == y.0) {
                for (i, &(_, a)) in group.iter().enumerate() {
                    for &(_, b) in group.get(i + 1..).unwrap_or_default() {
                        if a > b {
                            out.insert((a, b));
                        }
                    }
                }
            }
        } else {
            let types: std::collections::BTreeSet<u32> = events.iter().map(|e| e.1).collect();
            for &a in &types {
                for &b in types.range(..a) {
                    out.insert((a, b));
                }
            }
        }
    }
    out.into_iter().collect()
}

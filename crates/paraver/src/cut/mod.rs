//! Writing traces: Paraver's cutter and filter over the store, written as `.prv` text.
//!
//! - [`options`]: the cutter's and filter's options and the XML files that carry them;
//! - [`cutter`]: the cutter's decisions on one thread;
//! - [`write_cut`], [`write_filter`]: a whole trace written, threads in parallel a block of
//!   time at a time, merged in time order (`text`);
//! - [`in_memory`]: the same cut put into a store (the region POP measures);
//! - [`cut_text`], [`filter_text`]: a pass over the trace's own text, each kept line written
//!   as read.
//!
//! Where the result differs from BSC's tools, and why, is said at each function.

pub mod cutter;
mod fields;
mod filter;
mod memory;
pub mod options;
mod save;
mod stream;
mod text;
mod text_cut;
mod text_pass;

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use prvscope_store::{Comm, Trace};
use rayon::prelude::*;

pub use filter::write_filter;
pub use memory::cut as in_memory;
pub use options::{CutterOptions, FilterOptions, StateFilter, TaskRange, ToolOptions};
pub use save::{Job, Saved, check, save};
pub use stream::filter_text;
pub use text::{header_text, row_ids};
pub use text_cut::{Reading, cut_text};
pub use text_pass::{OpenAt, known_span};

use cutter::{Context, Discard, Sink, Stop, ThreadCut};
use text::{Line, Lines, comm_line};

/// What the trace's file holds that the store does not: the communicator lines after the
/// header and the comment lines before the first record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    pub communicators: Vec<String>,
    pub comments: Vec<String>,
}

/// Why a trace could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("cancelled")]
    Cancelled,
    #[error("{0}")]
    Refused(String),
}

/// What a cut or filter wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// Bytes of text.
    pub bytes: u64,
    /// The cut's range in the trace's ticks, and the time subtracted from every record.
    pub range: (u64, u64),
    pub shift: u64,
    /// The header's duration.
    pub duration: u64,
    /// Records inside the cut left out because they come after the point where the cut
    /// stopped reading, as Paraver's cutter stops (in a file not sorted by time); 0 for a
    /// cut read to the end.
    pub left_out: u64,
}

/// Progress (0..=1) and Cancel of a long write.
pub struct Control<'a> {
    pub progress: &'a (dyn Fn(f32) + Sync),
    pub cancel: &'a AtomicBool,
}

impl Control<'_> {
    fn check(&self) -> Result<(), WriteError> {
        if self.cancel.load(Ordering::Relaxed) {
            Err(WriteError::Cancelled)
        } else {
            Ok(())
        }
    }
}

/// The `.pcf`'s counter types (`42000000..50000000`) and its types without values.
fn pcf_types(trace: &Trace) -> (Vec<u32>, Vec<u32>) {
    let (mut counters, mut untracked) = (Vec::new(), Vec::new());
    if let Some(p) = &trace.pcf {
        for (&ty, info) in &p.event_types {
            if (42_000_000..50_000_000).contains(&ty) {
                counters.push(ty);
            } else if info.values.is_empty() {
                untracked.push(ty);
            }
        }
    }
    (counters, untracked)
}

/// A thread's lines, written as the cutter decides.
struct LineSink<'a> {
    out: &'a mut Lines,
    /// A filter applied to what the cutter writes (`paramedir --cutter --filter`).
    rules: Option<&'a filter::Rules<'a>>,
    ids: [u32; 3],
    shift: u64,
    sentinel: u64,
    /// Counts the bytes of Paraver's first pass (only `max_trace_size` needs them).
    count_phase1: bool,
}

impl Sink for LineSink<'_> {
    fn state(&mut self, cpu: u32, begin: u64, end: u64, value: u64) {
        if self.count_phase1 {
            let [a, t, th] = self.ids.map(u64::from);
            self.out.phase1 += text::line_len([u64::from(cpu), a, t, th, begin, end, value]);
        }
        if self.rules.is_some_and(|r| !r.state(begin, end, value)) {
            return;
        }
        self.out.start(b'1', cpu, self.ids);
        let mut l = Line {
            buf: &mut self.out.text,
            sentinel: self.sentinel,
        };
        l.num(begin - self.shift)
            .num(end - self.shift)
            .value(value)
            .end();
        self.out.close(begin);
    }

    fn events(&mut self, time: u64, cpu: u32, pairs: &[(u32, u64)]) {
        if self.count_phase1 {
            let [a, t, th] = self.ids.map(u64::from);
            self.out.phase1 += text::line_len(
                [u64::from(cpu), a, t, th, time]
                    .into_iter()
                    .chain(pairs.iter().flat_map(|&(ty, v)| [u64::from(ty), v])),
            );
        }
        let kept = |&&(ty, v): &&(u32, u64)| self.rules.is_none_or(|r| r.pair(ty, v));
        if !pairs.iter().any(|p| kept(&p)) {
            return;
        }
        self.out.start(b'2', cpu, self.ids);
        let mut l = Line {
            buf: &mut self.out.text,
            sentinel: self.sentinel,
        };
        l.num(time - self.shift);
        for &(ty, v) in pairs.iter().filter(kept) {
            l.num(u64::from(ty)).value(v);
        }
        l.end();
        self.out.close(time);
    }
}

/// The times at which a block ends: `count` equal parts of `[t0, t1]`, the last open.
fn blocks(t0: u64, t1: u64, count: u64) -> Vec<Option<u64>> {
    let span = t1.saturating_sub(t0);
    let mut out: Vec<Option<u64>> = (1..count)
        .map(|k| Some(t0 + (u128::from(span) * u128::from(k) / u128::from(count)) as u64))
        .collect();
    out.dedup();
    out.push(None);
    out
}

/// How many blocks a write of about `records` records takes (a block is about 256k records).
fn block_count(records: u64) -> u64 {
    (records / 262_144).clamp(1, 4096)
}

/// What a cut of the store decides before it writes anything: the threads kept, where
/// Paraver's cutter stops reading, the first record written (the shift) and the last (the
/// header's duration).
struct Prepared {
    kept: Vec<bool>,
    stop: Option<Stop>,
    first_written: Option<u64>,
    shift: u64,
    predicted_last: Option<u64>,
    /// The first message sent at or after the cut's start.
    comm_from: usize,
}

impl Prepared {
    /// Is `time` before the point where the cutter stops reading?
    fn before_stop(&self, time: u64) -> bool {
        self.stop.is_none_or(|s| time < s.time)
    }

    /// Does the cutter write message `c`?
    fn comm_kept(&self, opts: &CutterOptions, (t0, t1): (u64, u64), c: &Comm) -> bool {
        (self.kept[c.send_row as usize] || self.kept[c.recv_row as usize])
            && c.lsend >= t0
            && c.lrecv >= t0
            && self.before_stop(c.lsend)
            && (opts.original_time || c.lsend <= t1)
            && c.psend <= t1
            && c.precv <= t1
    }
}

/// The first and last of a message's four times.
fn comm_span(c: &Comm) -> (u64, u64) {
    let ts = [c.lsend, c.psend, c.lrecv, c.precv];
    (
        ts.iter().copied().min().unwrap_or(0),
        ts.iter().copied().max().unwrap_or(0),
    )
}

/// Decides, on the store, what a cut writes before it writes it (see [`Prepared`]).
fn prepare(
    trace: &Trace,
    opts: &CutterOptions,
    ctx: &Context<'_>,
    control: &Control<'_>,
) -> Result<Prepared, WriteError> {
    let ids = row_ids(&trace.header);
    let (t0, t1) = opts.range(trace.header.end_time);
    let store = &trace.store;
    let kept: Vec<bool> = (0..store.thread_count())
        .map(|row| {
            ids.get(row)
                .is_some_and(|id| opts.keeps_task(u64::from(id[1])))
                && opts
                    .rows
                    .as_ref()
                    .is_none_or(|m| m.get(row).copied().unwrap_or(false))
        })
        .collect();
    let kept = |row: usize| kept[row];
    let threads = store.threads();

    // Where the cutter stops reading: the first state after the cut, or communication sent
    // after it (times not kept); the point where every thread met has finished.
    let mut stop: Option<Stop> = None;
    let mut earlier = |s: Stop| {
        if stop.is_none_or(|o| s.time < o.time) {
            stop = Some(s);
        }
    };
    if !opts.original_time {
        for (_, t) in threads.iter().enumerate().filter(|(r, _)| kept(*r)) {
            let i = t.states.begin.upper_bound(t1);
            if i < t.states.len() {
                earlier(Stop {
                    time: t.states.begin.get(i),
                    row: usize::MAX,
                });
            }
        }
        let comms = store.comms();
        let from = comms.partition_point(|c| c.lsend <= t1);
        if let Some(c) = comms[from..]
            .iter()
            .find(|c| c.lrecv >= t0 && (kept(c.send_row as usize) || kept(c.recv_row as usize)))
        {
            earlier(Stop {
                time: c.lsend,
                row: usize::MAX,
            });
        }
    }
    // The first pass: where each thread is met, finishes, and writes first.
    let needs_finish = opts.remove_last_states || opts.original_time;
    let first_pass: Vec<Option<ThreadCut>> = threads
        .par_iter()
        .enumerate()
        .map(|(row, t)| {
            if !kept(row) {
                return None;
            }
            let mut c = ThreadCut::new(ctx, row, t, u64::MAX);
            if needs_finish {
                c.advance(ctx, t, None, None, None, &mut Discard);
            } else {
                // Only the first record written is needed: read a growing window.
                let mut width = t1.saturating_sub(t0) / 64 + 1;
                let mut until = t0.saturating_add(width);
                while c.first.is_none() && !c.done {
                    c.advance(ctx, t, Some(until), None, None, &mut Discard);
                    width = width.saturating_mul(2);
                    until = until.saturating_add(width);
                }
            }
            Some(c)
        })
        .collect();
    control.check()?;
    if needs_finish {
        let mut marks: Vec<(u64, u8, usize)> = Vec::new();
        for (row, c) in first_pass.iter().enumerate() {
            if let Some(c) = c {
                if let Some(a) = c.init_at {
                    marks.push((a, 0, row));
                }
                if let Some(f) = c.fin_at {
                    marks.push((f, 1, row));
                }
            }
        }
        marks.sort_unstable();
        let mut open = 0i64;
        for (time, kind, row) in marks {
            if kind == 0 {
                open += 1;
            } else {
                open -= 1;
                if open == 0 {
                    earlier(Stop { time, row });
                    break;
                }
            }
        }
    }
    let kept_rows: Vec<bool> = (0..store.thread_count()).map(kept).collect();
    let mut p = Prepared {
        kept: kept_rows,
        stop,
        first_written: None,
        shift: 0,
        predicted_last: None,
        comm_from: 0,
    };
    let before_stop = |time: u64| p.before_stop(time);
    let comm_kept = |c: &Comm| p.comm_kept(opts, (t0, t1), c);
    let comms = store.comms();
    let comm_from = comms.partition_point(|c| c.lsend < t0);
    let first_comm = comms[comm_from..]
        .iter()
        .take_while(|c| before_stop(c.lsend))
        .filter(|c| comm_kept(c))
        .map(|c| comm_span(c).0)
        .min();
    let first_written = first_pass
        .iter()
        .flatten()
        .filter_map(|c| c.first)
        .filter(|&f| stop.is_none_or(|s| f <= s.time))
        .chain(first_comm)
        .min();
    let shift = if opts.original_time {
        0
    } else {
        first_written.unwrap_or(t0)
    };

    // The last time written, for the header. States broken at the cut's end: the end
    // itself when a state kept crosses it (nothing else is written after it); otherwise a
    // pass that writes nothing.
    let crosses_end = |(row, t): (usize, &prvscope_store::ThreadData)| {
        let i = t.states.begin.upper_bound(t1);
        kept(row) && t.states.ends_sorted && i > 0 && {
            let (b, e) = (t.states.begin.get(i - 1), t.states.end.get(i - 1));
            e >= t1 && e > t0 && !(b < t0 && opts.remove_first_states)
        }
    };
    let fast_last = ctx.break_states
        && !opts.remove_last_states
        && stop.is_none_or(|s| s.time > t1)
        && threads.iter().enumerate().any(crosses_end);
    let predicted_last = {
        let last_of_threads = threads
            .par_iter()
            .enumerate()
            .filter(|_| !fast_last)
            .filter(|(row, _)| kept(*row))
            .filter_map(|(row, t)| {
                let mut c = ThreadCut::new(ctx, row, t, first_written.unwrap_or(u64::MAX));
                c.advance(ctx, t, None, first_written, stop, &mut Discard);
                c.last
            })
            .max();
        let last_comm = comms[comm_from..]
            .iter()
            .take_while(|c| before_stop(c.lsend))
            .filter(|c| comm_kept(c))
            .map(|c| comm_span(c).1)
            .max();
        if fast_last {
            Some(t1.max(last_comm.unwrap_or(t1)))
        } else {
            last_of_threads.max(last_comm)
        }
    };
    let (first_written, predicted_last) = (first_written, predicted_last);
    p.first_written = first_written;
    p.shift = shift;
    p.predicted_last = predicted_last;
    p.comm_from = comm_from;
    Ok(p)
}

/// Writes `trace` cut as Paraver's cutter cuts it (`KTraceCutter::execute`) to `out`.
///
/// The records are those the cutter writes, each at the time it writes it; they are
/// written in time order (equal times in row order) where the cutter keeps the file's
/// order, and a thread's events at one time are one line (the store keeps no line). Where
/// the cutter stops reading the file (a state after the cut; every thread finished), what
/// it read before the stopping record at that time is taken as the records of that time of
/// the stopping thread before it, and of no other thread. The header's duration is always
/// the cut's (BSC's cutter writes, for a cut by percentages, the percentages of the cut
/// again); a `_ms` trace stays `_ms` (BSC's tools write `_ns`).
pub fn write_cut(
    trace: &Trace,
    head: &Head,
    opts: &CutterOptions,
    filter: Option<&FilterOptions>,
    (input_name, date): (&str, &str),
    out: &mut (dyn Write + Send),
    control: &Control<'_>,
) -> Result<Written, WriteError> {
    let rules = filter.map(|f| filter::Rules::new(trace, f));
    let store = &trace.store;
    let ids = row_ids(&trace.header);
    let range = opts.range(trace.header.end_time);
    let (counters, untracked) = pcf_types(trace);
    let sentinel = store.null_policy().sentinel;
    let ctx = Context::new(opts, range, &counters, &untracked, sentinel);
    let (t0, t1) = range;
    let p = prepare(trace, opts, &ctx, control)?;
    let threads = store.threads();
    let comms = store.comms();
    let Prepared {
        ref kept,
        stop,
        first_written,
        shift,
        predicted_last,
        comm_from,
    } = p;
    let kept = |row: usize| kept[row];
    let before_stop = |time: u64| p.before_stop(time);
    let comm_kept = |c: &Comm| p.comm_kept(opts, range, c);
    control.check()?;
    let duration = if opts.original_time {
        trace.header.end_time
    } else {
        predicted_last.map_or(0, |l| l - shift)
    };
    let mut out = Counting {
        inner: out,
        bytes: 0,
    };
    let mut headtext = header_text(&trace.header, duration, &head.communicators);
    let offset = if opts.original_time { 0 } else { shift };
    {
        use std::fmt::Write as _;
        let _ = writeln!(
            headtext,
            "#{date}:CUTTER:ORIGINAL:\"{input_name}\":{offset}:{t0}:{t1}"
        );
    }
    for c in &head.comments {
        headtext.push_str(c);
        headtext.push('\n');
    }
    out.write_all(headtext.as_bytes())?;

    // The records written, a block of time at a time.
    let mut cuts: Vec<Option<ThreadCut>> = threads
        .iter()
        .enumerate()
        .map(|(row, t)| {
            kept(row).then(|| ThreadCut::new(&ctx, row, t, first_written.unwrap_or(u64::MAX)))
        })
        .collect();
    let records: u64 = threads
        .iter()
        .map(|t| {
            let s = t.states.overlapping(t0, t1.saturating_add(1));
            let e: usize = t
                .events
                .iter()
                .map(|c| c.in_window(t0, t1.saturating_add(1)).len())
                .sum();
            (s.len() + e) as u64
        })
        .sum();
    let plan = blocks(t0, t1, block_count(records));
    let mut bufs: Vec<Lines> = threads.iter().map(|_| Lines::default()).collect();
    let mut next_bufs: Vec<Lines> = threads.iter().map(|_| Lines::default()).collect();
    let mut comm_buf = Lines::default();
    let mut merged: Vec<u8> = Vec::new();
    let mut comm_next = comm_from;
    let mut last_comm: Option<u64> = None;
    // The size of Paraver's first pass (`max_trace_size` is compared with it): its header,
    // the comment lines, its comment line when it writes the file in one pass, the lines.
    let mut phase1 = header_text(
        &trace.header,
        if opts.original_time {
            trace.header.end_time
        } else {
            t1 - t0
        },
        &head.communicators,
    )
    .len() as u64
        + head
            .comments
            .iter()
            .map(|c| c.len() as u64 + 1)
            .sum::<u64>();
    if opts.original_time && !ctx.break_states {
        phase1 += format!("#{date}:CUTTER:ORIGINAL:\"{input_name}\":0:{t0}:{t1}\n").len() as u64;
    }
    let max = opts.max_trace_size.saturating_mul(1_000_000);
    let count_phase1 = max > 0;
    // Each thread's lines of a block, in parallel.
    let format = |cuts: &mut [Option<ThreadCut>], bufs: &mut [Lines], until: Option<u64>| {
        cuts.par_iter_mut()
            .zip(bufs.par_iter_mut())
            .enumerate()
            .for_each(|(row, (c, buf))| {
                buf.clear();
                if let Some(c) = c {
                    let mut sink = LineSink {
                        out: buf,
                        rules: rules.as_ref(),
                        ids: ids[row],
                        shift,
                        sentinel,
                        count_phase1,
                    };
                    c.advance(&ctx, &threads[row], until, first_written, stop, &mut sink);
                }
            });
    };
    // A block is merged and written while the next one is formatted.
    format(&mut cuts, &mut bufs, plan[0]);
    for (k, until) in plan.iter().enumerate() {
        control.check()?;
        comm_buf.clear();
        while comm_next < comms.len() {
            let c = &comms[comm_next];
            if until.is_some_and(|u| c.lsend >= u) || !before_stop(c.lsend) {
                break;
            }
            if comm_kept(c) {
                if count_phase1 {
                    let [a, t, th] = ids.get(c.send_row as usize).copied().unwrap_or_default();
                    let [a2, t2, th2] = ids.get(c.recv_row as usize).copied().unwrap_or_default();
                    phase1 += text::line_len(
                        [c.send_cpu, a, t, th]
                            .map(u64::from)
                            .into_iter()
                            .chain([c.lsend, c.psend])
                            .chain([c.recv_cpu, a2, t2, th2].map(u64::from))
                            .chain([c.lrecv, c.precv, c.size, c.tag]),
                    );
                }
                let end = comm_span(c).1;
                last_comm = Some(last_comm.map_or(end, |l: u64| l.max(end)));
                if rules.as_ref().is_none_or(|r| r.comm(c.size)) {
                    comm_line(&mut comm_buf.text, c, &ids, shift);
                    comm_buf.close(c.lsend);
                }
            }
            comm_next += 1;
        }
        let next = plan.get(k + 1).copied();
        let ((), written) = rayon::join(
            || {
                if let Some(next) = next {
                    format(&mut cuts, &mut next_bufs, next);
                }
            },
            || {
                merged.clear();
                text::merge(&bufs, &comm_buf, &mut merged);
                out.write_all(&merged)
            },
        );
        written?;
        phase1 += bufs.iter().map(|b| b.phase1).sum::<u64>();
        std::mem::swap(&mut bufs, &mut next_bufs);
        (control.progress)((k + 1) as f32 / plan.len() as f32 * 0.95);
    }
    let last = cuts
        .iter()
        .flatten()
        .filter_map(|c| c.last)
        .chain(last_comm)
        .max();
    // The closing zeros.
    let final_time = match last {
        Some(l) if l > t1 || opts.remove_last_states => l,
        _ => t1,
    };
    let mut closing = Vec::new();
    for (row, c) in cuts.iter().enumerate() {
        let Some(c) = c.as_ref().filter(|c| c.init) else {
            continue;
        };
        let (opened, counters_seen) = c.closing();
        for set in [opened, counters_seen] {
            if set.is_empty() {
                continue;
            }
            if closing.is_empty() {
                closing.extend_from_slice(b"# Appending events with value 0\n");
            }
            let set: Vec<u32> = set
                .into_iter()
                .filter(|&ty| rules.as_ref().is_none_or(|r| r.pair(ty, 0)))
                .collect();
            if set.is_empty() {
                continue;
            }
            let mut l = Line {
                buf: &mut closing,
                sentinel,
            };
            l.start(b'2', c.last_cpu, ids[row]).num(final_time - shift);
            for ty in set {
                l.num(u64::from(ty)).num(0);
            }
            l.end();
        }
    }
    // Paraver's cutter stops after the line that takes its first pass to `max_trace_size`
    // MB, in the file's order, which the store does not keep: a cut that comes within 5% of
    // it is refused (Paraver's lines may be more than these: a thread's events at one time
    // on several lines; 1.3% more on the shared traces); one that stays under is the whole
    // cut, as Paraver writes it.
    if count_phase1 && phase1 >= max / 100 * 95 {
        return Err(WriteError::Refused(format!(
            "the cut comes within 5% of max_trace_size ({} MB; {phase1} bytes in Paraver's \
             first pass), where Paraver's cutter stops after the line that reaches it in the \
             file's order, which prvscope does not keep; cut a shorter range or raise \
             max_trace_size",
            opts.max_trace_size
        )));
    }
    if !opts.original_time && last != predicted_last {
        return Err(WriteError::Refused(format!(
            "internal error: the cut's last record is at {last:?}, its header says \
             {predicted_last:?}; nothing is kept"
        )));
    }
    out.write_all(&closing)?;
    out.flush()?;
    (control.progress)(1.0);
    Ok(Written {
        bytes: out.bytes,
        range,
        shift,
        duration,
        left_out: 0,
    })
}

/// A writer that counts the bytes through it.
struct Counting<'a> {
    inner: &'a mut (dyn Write + Send),
    bytes: u64,
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

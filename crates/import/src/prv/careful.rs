//! The careful parser: any line the fast path declines, field by field, with each problem
//! reported at its line and column.

use prvscope_format::CpuMisfit;
use prvscope_format::error::{IssueKind, issue};

use super::chunk::{ChunkOut, RawEvent, RawState};
use super::{ParseContext, comm};

/// Where a line went wrong: byte column (0-based) and what was expected there.
struct Bad {
    col: usize,
    what: &'static str,
}

/// A cursor over the `:`-separated fields of one line.
struct Fields<'a> {
    /// From the start of the line to the end of the chunk.
    buf: &'a [u8],
    /// Length of the line (without newline and `\r`).
    end: usize,
    pos: usize,
}

impl Fields<'_> {
    /// Parses an unsigned decimal field and the `:` after it (if any).
    #[inline]
    fn num(&mut self, what: &'static str) -> Result<u64, Bad> {
        let v = self.num_raw(what)?;
        self.sep(what)?;
        Ok(v)
    }

    /// Parses an unsigned decimal field that must be followed by `:` or the end of the line,
    /// without consuming the `:`.
    #[inline]
    fn num_raw(&mut self, what: &'static str) -> Result<u64, Bad> {
        let start = self.pos;
        let mut v: u64 = 0;
        let mut n = 0usize;
        while let Some(&b) = self.peek() {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            self.pos += 1;
            n += 1;
        }
        if n == 0 {
            return Err(Bad { col: start, what });
        }
        if n > 19 {
            // Only here can it overflow; redo it carefully (leading zeros are fine).
            v = 0;
            for &b in self.buf.get(start..self.pos).unwrap_or(&[]) {
                v = v
                    .checked_mul(10)
                    .and_then(|x| x.checked_add(u64::from(b - b'0')))
                    .ok_or(Bad {
                        col: start,
                        what: "a number below 2^64",
                    })?;
            }
        }
        self.terminated(what)?;
        Ok(v)
    }

    /// A value field: a number, `N` (null), or a negative number (two's complement). The `:`
    /// after it is not consumed.
    #[inline]
    fn value(&mut self, sentinel: u64, what: &'static str) -> Result<(u64, bool), Bad> {
        match self.peek() {
            Some(b'N') => {
                self.pos += 1;
                self.terminated(what)?;
                Ok((sentinel, true))
            }
            Some(b'-') => {
                self.pos += 1;
                let v = self.num_raw(what)?;
                Ok((v.wrapping_neg(), false))
            }
            _ => Ok((self.num_raw(what)?, false)),
        }
    }

    /// The field must end here: at `:` or the end of the line.
    #[inline]
    fn terminated(&self, what: &'static str) -> Result<(), Bad> {
        match self.peek() {
            None | Some(b':') => Ok(()),
            Some(_) => Err(Bad {
                col: self.pos,
                what,
            }),
        }
    }

    /// After a field: `:` (consumed) or the end of the line.
    #[inline]
    fn sep(&mut self, what: &'static str) -> Result<(), Bad> {
        match self.peek() {
            None => Ok(()),
            Some(b':') if self.pos + 1 == self.end => Err(Bad {
                col: self.pos + 1,
                what: "another field after the last `:`",
            }),
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(Bad {
                col: self.pos,
                what,
            }),
        }
    }

    #[inline]
    fn peek(&self) -> Option<&u8> {
        if self.pos < self.end {
            self.buf.get(self.pos)
        } else {
            None
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    fn expect_end(&self) -> Result<(), Bad> {
        if self.at_end() {
            Ok(())
        } else {
            Err(Bad {
                col: self.pos,
                what: "the end of the line",
            })
        }
    }
}

/// Counts an issue of line `line_no`, building its message only when the report keeps it as
/// an example (the parser may meet millions of bad lines).
#[inline]
fn note(
    ctx: &ParseContext<'_>,
    out: &mut ChunkOut,
    kind: IssueKind,
    line_no: u64,
    column: u64,
    message: impl FnOnce() -> String,
) {
    out.report
        .push_with(kind, || issue(kind, ctx.path, line_no, column, message()));
}

#[inline]
pub(super) fn parse_line(
    ctx: &ParseContext<'_>,
    line: &[u8],
    rest: &[u8],
    line_no: u64,
    out: &mut ChunkOut,
) {
    let kind = match line {
        [] | [b'#', ..] => return,
        [b'c' | b'i', b':', ..] => {
            out.communicator_lines += 1;
            return;
        }
        [k @ (b'1' | b'2' | b'3'), b':', ..] => *k,
        _ => {
            note(ctx, out, IssueKind::UnknownRecordKind, line_no, 1, || {
                let shown = String::from_utf8_lossy(line.get(..line.len().min(20)).unwrap_or(&[]));
                format!("expected a record kind 1, 2, 3 or `#`, found `{shown}`")
            });
            return;
        }
    };
    let mut f = Fields {
        buf: rest,
        end: line.len(),
        pos: 2,
    };
    let result = match kind {
        b'1' => parse_state(ctx, &mut f, line_no, out),
        b'2' => parse_event(ctx, &mut f, line_no, out),
        _ => parse_comm(ctx, &mut f, line_no, out),
    };
    if let Err(bad) = result {
        let kind_name = match kind {
            b'1' => "state",
            b'2' => "event",
            _ => "communication",
        };
        note(
            ctx,
            out,
            IssueKind::MalformedRecord,
            line_no,
            bad.col as u64 + 1,
            || format!("{kind_name} record: expected {}", bad.what),
        );
    }
}

/// The `cpu:appl:task:thread` fields of a record.
struct Object {
    cpu: u64,
    /// Column of the CPU field (0-based).
    cpu_col: usize,
    appl: u64,
    task: u64,
    thread: u64,
    /// Column of the application field (0-based).
    col: usize,
    /// The store row, `None` when the header has no such thread.
    row: Option<u32>,
}

/// Reads `cpu:appl:task:thread` (reports nothing: see [`note_missing_thread`]).
#[inline]
fn read_object(
    ctx: &ParseContext<'_>,
    f: &mut Fields<'_>,
    out: &mut ChunkOut,
) -> Result<Object, Bad> {
    let cpu_col = f.pos;
    let cpu = f.num("a CPU number")?;
    let col = f.pos;
    let appl = f.num("an application number")?;
    let task = f.num("a task number")?;
    let thread = f.num("a thread number")?;
    let (la, lt, lh, lr) = out.last_object;
    let row = if (la, lt, lh) == (appl, task, thread) {
        Some(lr)
    } else {
        let found = ctx.rows.row(appl, task, thread);
        if let Some(row) = found {
            out.last_object = (appl, task, thread, row);
        }
        found
    };
    Ok(Object {
        cpu,
        cpu_col,
        appl,
        task,
        thread,
        col,
        row,
    })
}

/// Records a line skipped because it names a thread the header does not have.
fn note_missing_thread(ctx: &ParseContext<'_>, o: &Object, line_no: u64, out: &mut ChunkOut) {
    note(
        ctx,
        out,
        IssueKind::ThreadOutOfRange,
        line_no,
        o.col as u64 + 1,
        || {
            format!(
                "thread {}.{}.{} is not in the header (numbered from 1, {} rows)",
                o.appl,
                o.task,
                o.thread,
                ctx.rows.rows()
            )
        },
    );
}

/// The row of a record's object when Paraver keeps the record: its thread is in the header
/// and its CPU fits the task's node ([`RowMap::cpu_fits`](prvscope_format::RowMap::cpu_fits));
/// otherwise records why not and returns `None`.
fn kept_row(ctx: &ParseContext<'_>, o: &Object, line_no: u64, out: &mut ChunkOut) -> Option<u32> {
    let Some(row) = o.row else {
        note_missing_thread(ctx, o, line_no, out);
        return None;
    };
    match ctx.rows.cpu_fits(o.cpu, o.appl, o.task) {
        Ok(()) => Some(row),
        Err(misfit) => {
            note(
                ctx,
                out,
                IssueKind::CpuOutsideTaskNode,
                line_no,
                o.cpu_col as u64 + 1,
                || {
                    let why = match misfit {
                        CpuMisfit::NotInHeader { cpus: 0 } => {
                            "the header declares no CPUs".to_string()
                        }
                        CpuMisfit::NotInHeader { cpus } => {
                            format!("the header declares {cpus} CPUs")
                        }
                        CpuMisfit::OtherNode {
                            cpu_node,
                            task_node,
                        } => format!(
                            "CPU {} is on node {cpu_node} but task {}.{} runs on node {task_node}",
                            o.cpu, o.appl, o.task
                        ),
                    };
                    format!(
                        "record of thread {}.{}.{} on CPU {}: {why}; Paraver leaves it out, so \
                         does prvscope",
                        o.appl, o.task, o.thread, o.cpu
                    )
                },
            );
            None
        }
    }
}

/// Reads `cpu:appl:task:thread` and returns (cpu, row), or records why the line is left out.
#[inline]
fn object(
    ctx: &ParseContext<'_>,
    f: &mut Fields<'_>,
    line_no: u64,
    out: &mut ChunkOut,
) -> Result<Option<(u64, u32)>, Bad> {
    let o = read_object(ctx, f, out)?;
    Ok(kept_row(ctx, &o, line_no, out).map(|row| (o.cpu, row)))
}

fn parse_state(
    ctx: &ParseContext<'_>,
    f: &mut Fields<'_>,
    line_no: u64,
    out: &mut ChunkOut,
) -> Result<(), Bad> {
    let Some((cpu, row)) = object(ctx, f, line_no, out)? else {
        return Ok(());
    };
    let begin = f.num("a begin time")?;
    let end_col = f.pos;
    let end = f.num("an end time")?;
    let (value, from_n) = f.value(ctx.sentinel, "a state value")?;
    f.sep("a state value")?;
    f.expect_end()?;
    if end < begin {
        out.report.push(issue(
            IssueKind::NegativeDuration,
            ctx.path,
            line_no,
            end_col as u64 + 1,
            format!("state ends at {end}, before its begin {begin}"),
        ));
        return Ok(());
    }
    note_value(ctx, value, from_n, line_no, out);
    out.keep_state(
        &ctx.filter,
        ctx.sentinel,
        row,
        RawState { begin, end, value },
    );
    out.note_cpu(row, begin, cpu);
    Ok(())
}

fn parse_event(
    ctx: &ParseContext<'_>,
    f: &mut Fields<'_>,
    line_no: u64,
    out: &mut ChunkOut,
) -> Result<(), Bad> {
    let Some((cpu, row)) = object(ctx, f, line_no, out)? else {
        return Ok(());
    };
    let time = f.num("a time")?;
    // Noted before the pairs: those before a bad field are kept.
    out.note_cpu(row, time, cpu);
    loop {
        let ty_col = f.pos;
        let ty = f.num("an event type")?;
        let Ok(ty) = u32::try_from(ty) else {
            return Err(Bad {
                col: ty_col,
                what: "an event type below 2^32",
            });
        };
        let (value, from_n) = f.value(ctx.sentinel, "an event value")?;
        note_value(ctx, value, from_n, line_no, out);
        out.keep_event(&ctx.filter, ctx.sentinel, row, RawEvent { time, value, ty });
        f.sep("an event value")?;
        if f.at_end() {
            return Ok(());
        }
    }
}

fn parse_comm(
    ctx: &ParseContext<'_>,
    f: &mut Fields<'_>,
    line_no: u64,
    out: &mut ChunkOut,
) -> Result<(), Bad> {
    // Both ends are read before either is judged, so that a line is skipped for one reason
    // and counted once.
    let send = read_object(ctx, f, out)?;
    let lsend = f.num("a logical send time")?;
    let psend = f.num("a physical send time")?;
    let recv = read_object(ctx, f, out)?;
    let lrecv = f.num("a logical receive time")?;
    let precv = f.num("a physical receive time")?;
    let size = f.num("a message size")?;
    let tag = f.num("a message tag")?;
    f.expect_end()?;
    // Paraver judges the sender first, then the receiver; the line is counted once.
    let Some(s) = kept_row(ctx, &send, line_no, out) else {
        return Ok(());
    };
    let Some(r) = kept_row(ctx, &recv, line_no, out) else {
        return Ok(());
    };
    out.keep_comm(
        &ctx.filter,
        comm(
            (send.cpu, s),
            (recv.cpu, r),
            [lsend, psend, lrecv, precv, size, tag],
        ),
    );
    Ok(())
}

#[inline]
fn note_value(ctx: &ParseContext<'_>, value: u64, from_n: bool, line_no: u64, out: &mut ChunkOut) {
    if value == ctx.sentinel {
        // Counted as a null value where it is stored (it may be left out of a part).
        if !from_n {
            note(ctx, out, IssueKind::SentinelCollision, line_no, 0, || {
                format!("value {value} equals the null sentinel and is read as null")
            });
        }
    }
}

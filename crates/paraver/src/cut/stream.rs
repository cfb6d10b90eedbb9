//! Trace writing as a pass over the trace's own text: the file read once, in order, a
//! line at a time, each kept line copied as it was read (its grouping, its pairs' order, its
//! CPU, every field) or, for an event line of which some pairs are dropped, the same line
//! with only those pairs left out. This is what BSC's tools do (`KTraceFilter::execute`
//! reads and writes lines), and what the store cannot do: it keeps neither lines nor the CPU
//! field of each record, nor the records on a CPU outside their task's node that the load
//! leaves out of the timelines as Paraver's windows do.

use std::io::{BufRead, Write};

use prvscope_format::{Header, Pcf};

use super::filter::Rules;
use super::options::FilterOptions;
use super::text::header_text;
use super::{Control, WriteError, Written};

/// The lines of a text read in blocks, without their `\n`.
pub(super) struct LineReader<'a> {
    input: &'a mut dyn BufRead,
    /// The line being read, when it spans two blocks.
    carry: Vec<u8>,
    /// Bytes read so far.
    pub read: u64,
}

impl<'a> LineReader<'a> {
    pub(super) fn new(input: &'a mut dyn BufRead) -> Self {
        Self {
            input,
            carry: Vec::new(),
            read: 0,
        }
    }

    /// Calls `each` on every line of the next block (a last line without `\n` included at
    /// the end of the text); `false` at the end of the text.
    pub(super) fn block(
        &mut self,
        each: &mut dyn FnMut(&[u8]) -> Result<(), WriteError>,
    ) -> Result<bool, WriteError> {
        let buf = self.input.fill_buf()?;
        if buf.is_empty() {
            if !self.carry.is_empty() {
                let line = std::mem::take(&mut self.carry);
                each(&line)?;
            }
            return Ok(false);
        }
        let n = buf.len();
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', buf) {
            if self.carry.is_empty() {
                each(&buf[start..nl])?;
            } else {
                self.carry.extend_from_slice(&buf[start..nl]);
                let line = std::mem::take(&mut self.carry);
                each(&line)?;
            }
            start = nl + 1;
        }
        self.carry.extend_from_slice(&buf[start..]);
        self.input.consume(n);
        self.read += n as u64;
        Ok(true)
    }
}

/// Writes `buf` out once it holds a MiB, counting its bytes.
pub(super) fn flush_full(
    buf: &mut Vec<u8>,
    out: &mut dyn Write,
    bytes: &mut u64,
) -> Result<(), WriteError> {
    if buf.len() >= 1 << 20 {
        out.write_all(buf)?;
        *bytes += buf.len() as u64;
        buf.clear();
    }
    Ok(())
}

/// The `:`-separated fields of a line.
fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b':')
}

/// A field as a number (spaces around it allowed, as Paraver's reader skips them); `None`
/// for anything else (`N`, the null of prvscope's NULL mode, among them).
fn number(field: &[u8]) -> Option<u64> {
    let f = field.trim_ascii();
    if f.is_empty() || !f.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(f).ok()?.parse().ok()
}

/// Field `i` of a line as a number (0 when missing or not a number, as Paraver reads it).
fn field(line: &[u8], i: usize) -> u64 {
    fields(line).nth(i).and_then(number).unwrap_or(0)
}

/// Writes the text of `input` (a trace's file, decompressed) filtered as Paraver's filter
/// filters it (`KTraceFilter::execute`) to `out`: the header written again as Paraver's
/// tools write it (`dumpTraceHeader`) with the communicator lines after it; then, in the
/// file's order, each state line kept (by name and length) and each communication line kept
/// (by size) copied as read, each event line either copied as read (every pair kept) or
/// written with only its kept pairs (none: dropped), and comment lines copied. `N` values
/// are copied as written and match no value of the filter. `total` is the input's size
/// for the progress, when known.
pub fn filter_text(
    input: &mut dyn BufRead,
    header: &Header,
    pcf: Option<&Pcf>,
    opts: &FilterOptions,
    out: &mut dyn Write,
    control: &Control<'_>,
    total: Option<u64>,
) -> Result<Written, WriteError> {
    let rules = Rules::with_pcf(pcf, opts);
    let mut reader = LineReader::new(input);
    let mut bytes = 0u64;
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    // The header line, then the communicator lines it announces.
    let mut head: Vec<Vec<u8>> = Vec::new();
    let want = 1 + header.communicator_lines as usize;
    let mut more = true;
    while more {
        control.check()?;
        more = reader.block(&mut |line| {
            if head.len() < want {
                head.push(line.strip_suffix(b"\r").unwrap_or(line).to_vec());
                if head.len() == want {
                    let comms: Vec<String> = head[1..]
                        .iter()
                        .map(|l| String::from_utf8_lossy(l).into_owned())
                        .collect();
                    buf.extend_from_slice(header_text(header, header.end_time, &comms).as_bytes());
                }
                return Ok(());
            }
            filter_line(line, &rules, opts, &mut buf);
            flush_full(&mut buf, out, &mut bytes)
        })?;
        if let Some(total) = total.filter(|&t| t > 0) {
            (control.progress)((reader.read as f64 / total as f64).min(1.0) as f32);
        }
    }
    if head.len() < want {
        return Err(WriteError::Refused(format!(
            "the trace's text ends before its header and its {} communicator lines",
            header.communicator_lines
        )));
    }
    out.write_all(&buf)?;
    bytes += buf.len() as u64;
    out.flush()?;
    Ok(Written {
        bytes,
        range: (0, header.end_time),
        shift: 0,
        duration: header.end_time,
        left_out: 0,
    })
}

/// Appends `line` to `buf` as Paraver's filter writes it: as read when kept, an event line
/// with only its kept pairs (none: dropped), nothing when dropped.
pub(super) fn filter_line(line: &[u8], rules: &Rules<'_>, opts: &FilterOptions, buf: &mut Vec<u8>) {
    let every_pair = opts.events.as_ref().is_some_and(|e| e.types.is_empty());
    let keep_line = match line.first() {
        Some(b'1') => {
            opts.states.is_some()
                && rules.state(field(line, 5), field(line, 6), {
                    fields(line).nth(7).and_then(number).unwrap_or(u64::MAX)
                })
        }
        Some(b'2') if opts.events.is_none() => false,
        Some(b'2') if every_pair => true,
        Some(b'2') => {
            // Only the kept pairs, the line's first six fields as written.
            let at = buf.len();
            let mut f = fields(line);
            for k in 0..6 {
                if k > 0 {
                    buf.push(b':');
                }
                buf.extend_from_slice(f.next().unwrap_or_default());
            }
            let mut any = false;
            while let Some(ty) = f.next() {
                let value = f.next().unwrap_or(b"0");
                let (t, v) = (number(ty).unwrap_or(0), number(value));
                if rules.pair_u64(t, v.unwrap_or(u64::MAX)) {
                    any = true;
                    buf.push(b':');
                    buf.extend_from_slice(ty);
                    buf.push(b':');
                    buf.extend_from_slice(value);
                }
            }
            if any {
                buf.push(b'\n');
            } else {
                buf.truncate(at);
            }
            false
        }
        Some(b'3') => opts
            .comms
            .is_some_and(|min| min == 0 || field(line, 13) >= min),
        Some(b'#') => true,
        _ => false,
    };
    if keep_line {
        buf.extend_from_slice(line);
        buf.push(b'\n');
    }
}

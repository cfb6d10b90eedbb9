//! The `.prv` body: records 1 (state), 2 (event), 3 (communication), comments and
//! communicator lines, parsed in parallel.
//!
//! The body is cut into newline-aligned chunks ([`split_chunks`] for text in memory,
//! [`PlainFile::read_lines`](crate::source::PlainFile::read_lines) for files); each chunk is parsed on its
//! own ([`parse_chunk`]) into per-thread raw vectors, with line numbers local to the chunk.
//! [`assemble`] then concatenates the chunks per thread in file order, sorts each thread
//! stably by time (files are not always sorted: Extrae writes communications at their
//! physical send time and cutters shuffle lines) and encodes the columns of the store.
//!
//! Bad lines never stop the parse: each is counted in the chunk's [`LoadReport`] with its line
//! and column, and skipped. In an event line, the pairs before the first bad field are kept.

use std::path::Path;

use rayon::prelude::*;

use prvscope_format::RowMap;
use prvscope_format::error::{IssueKind, LoadReport, issue};
use prvscope_format::subset::Filter;
use prvscope_store::{Comm, EventColumn, StateColumns, ThreadData, TimeColumn, ValueColumn};

/// A state record before encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawState {
    pub begin: u64,
    pub end: u64,
    pub value: u64,
}

/// One type:value pair of an event record before encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEvent {
    pub time: u64,
    pub value: u64,
    pub ty: u32,
}

/// An event pair and its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEventOf {
    pub row: u32,
    pub e: RawEvent,
}

/// The events of one type on one row of one chunk, already compact: chunks wait for
/// assembly in this form, which holds a fraction of the memory of raw pairs.
#[derive(Debug, Clone, Default)]
pub struct EventPiece {
    pub row: u32,
    pub ty: u32,
    /// Are the times in order?
    pub sorted: bool,
    pub time: TimeColumn,
    pub value: ValueColumn,
}

/// The states of one row of one chunk, already compact.
#[derive(Debug, Clone, Default)]
pub struct StatePiece {
    pub row: u32,
    /// Are the begin times in order? The end times?
    pub begins_sorted: bool,
    pub ends_sorted: bool,
    pub begin: TimeColumn,
    pub end: TimeColumn,
    pub value: ValueColumn,
}

/// The events of one type on one row, as found in one chunk (file order).
#[derive(Debug, Clone, Default)]
pub struct EventBuf {
    pub row: u32,
    pub ty: u32,
    /// (time, value) pairs: one vector, so that adding a pair is one capacity check and
    /// one write.
    pub pairs: Vec<(u64, u64)>,
    /// When part of the trace is loaded: the last pair before its range (it holds when the
    /// range starts).
    pub before: Option<(u64, u64)>,
}

impl ChunkOut {
    /// A chunk output with room for `rows` rows.
    pub fn new(rows: usize) -> Self {
        ChunkOut {
            states: vec![Vec::new(); rows],
            last_object: (0, 0, 0, 0),
            ..ChunkOut::default()
        }
    }

    /// Moves what was parsed into an output of exactly the needed size, and empties `self`
    /// for the next chunk while keeping its buffers' capacity and its (row, type) index.
    /// Parsing into warm, reused buffers and copying out once avoids the reallocations and
    /// first-touch page faults that growing fresh vectors per chunk costs.
    pub(crate) fn take_output(&mut self, sentinel: u64) -> ChunkOut {
        let mut state_pieces = Vec::new();
        for (row, v) in self.states.iter_mut().enumerate() {
            if v.is_empty() {
                continue;
            }
            // One pass for order and the largest value, then one per column.
            let (mut begins_sorted, mut ends_sorted, mut max) = (true, true, 0);
            for w in v.windows(2) {
                if let [a, b] = w {
                    begins_sorted &= a.begin <= b.begin;
                    ends_sorted &= a.end <= b.end;
                }
            }
            for s in v.iter() {
                if s.value != sentinel {
                    max = max.max(s.value);
                }
            }
            let time = |sorted: bool, t: fn(&RawState) -> u64| {
                if sorted {
                    TimeColumn::from_sorted_slice_by(v, t)
                } else {
                    TimeColumn::from_slice_by(v, t)
                }
            };
            state_pieces.push(StatePiece {
                row: row as u32,
                begins_sorted,
                ends_sorted,
                begin: time(begins_sorted, |s| s.begin),
                end: time(ends_sorted, |s| s.end),
                value: ValueColumn::from_slice_with_max(v, sentinel, max, |s| s.value),
            });
            v.clear();
        }
        let mut pieces = Vec::new();
        for b in &mut self.events {
            if let Some((time, value)) = b.before.take() {
                self.befores.push(RawEventOf {
                    row: b.row,
                    e: RawEvent {
                        time,
                        value,
                        ty: b.ty,
                    },
                });
            }
            if b.pairs.is_empty() {
                // Not used by this chunk: give most of its memory back, so the scratch holds
                // about a chunk's worth however many (row, type) pairs the trace has, but
                // keep some, as the pair may come back in the next chunk (ovni writes each
                // thread's events in runs).
                b.pairs.shrink_to(b.pairs.capacity() / 4);
                continue;
            }
            // One pass for order and the largest value, then one per column.
            let (mut sorted, mut last, mut max) = (true, 0, 0);
            for &(t, v) in &b.pairs {
                sorted &= t >= last;
                last = t;
                if v != sentinel {
                    max = max.max(v);
                }
            }
            pieces.push(EventPiece {
                row: b.row,
                ty: b.ty,
                sorted,
                time: if sorted {
                    TimeColumn::from_sorted_slice_by(&b.pairs, |p| p.0)
                } else {
                    TimeColumn::from_slice_by(&b.pairs, |p| p.0)
                },
                value: ValueColumn::from_slice_with_max(&b.pairs, sentinel, max, |p| p.1),
            });
            b.pairs.clear();
        }
        let out = ChunkOut {
            state_pieces,
            pieces,
            befores: std::mem::take(&mut self.befores),
            comms: std::mem::take(&mut self.comms),
            lines: self.lines,
            communicator_lines: self.communicator_lines,
            null_values: self.null_values,
            report: std::mem::take(&mut self.report),
            ..ChunkOut::default()
        };
        self.lines = 0;
        self.communicator_lines = 0;
        self.null_values = 0;
        self.last_line = LastLine::default();
        self.last_object = (0, 0, 0, 0);
        out
    }

    /// Stores a state of `row`, unless the part of the trace loaded leaves it out.
    #[inline]
    fn keep_state(&mut self, filter: &Filter, sentinel: u64, row: u32, s: RawState) {
        if filter.active && !filter.keeps_span(row, s.begin, s.end) {
            return;
        }
        self.null_values += u64::from(s.value == sentinel);
        if let Some(states) = self.states.get_mut(row as usize) {
            states.push(s);
        }
    }

    /// Stores an event pair of `row`, unless the part of the trace loaded leaves it out
    /// (of the pairs before its range, the last of each type is kept).
    #[inline]
    fn keep_event(&mut self, filter: &Filter, sentinel: u64, row: u32, e: RawEvent) {
        if filter.active {
            if e.time > filter.to || !filter.keeps_row(row) {
                return;
            }
            if e.time < filter.from {
                let i = self.buffer_of(row, e.ty);
                if let Some(b) = self.events.get_mut(i)
                    && b.before.is_none_or(|(t, _)| t <= e.time)
                {
                    b.before = Some((e.time, e.value));
                }
                return;
            }
        }
        self.null_values += u64::from(e.value == sentinel);
        self.push_event(row, e);
    }

    /// Stores a communication, unless the part of the trace loaded leaves it out: it stays
    /// when both threads are loaded and it is sent or received in the range.
    #[inline]
    fn keep_comm(&mut self, filter: &Filter, c: Comm) {
        if filter.active {
            let times = [c.lsend, c.psend, c.lrecv, c.precv];
            let first = times.iter().copied().min().unwrap_or(0);
            let last = times.iter().copied().max().unwrap_or(0);
            if !filter.keeps_span(c.send_row, first, last) || !filter.keeps_row(c.recv_row) {
                return;
            }
        }
        self.comms.push(c);
    }

    /// Appends an event pair of `row`.
    #[inline]
    pub fn push_event(&mut self, row: u32, e: RawEvent) {
        let i = self.buffer_of(row, e.ty);
        if let Some(b) = self.events.get_mut(i) {
            b.pairs.push((e.time, e.value));
        }
    }

    fn buffer_of(&mut self, row: u32, ty: u32) -> usize {
        let key = (u64::from(row) << 32) | u64::from(ty);
        let events = &mut self.events;
        self.event_index.get_or_insert(key, || {
            events.push(EventBuf {
                row,
                ty,
                pairs: Vec::new(),
                before: None,
            });
            events.len() - 1
        })
    }
}

/// What the parser needs to know besides the bytes.
#[derive(Debug, Clone)]
pub struct ParseContext<'a> {
    pub rows: &'a RowMap,
    /// What `N` is stored as; literal values equal to it are counted as collisions.
    pub sentinel: u64,
    /// The file, for messages.
    pub path: &'a Path,
    /// What part of the trace is loaded (inactive: all of it).
    pub filter: Filter,
    /// Unique per context: worker threads keep their scratch buffers while it stays the same.
    id: u64,
}

impl<'a> ParseContext<'a> {
    pub fn new(rows: &'a RowMap, sentinel: u64, path: &'a Path) -> Self {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        ParseContext {
            rows,
            sentinel,
            path,
            filter: Filter::default(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }
}

thread_local! {
    /// Per worker thread: the id of the context its scratch belongs to, and the scratch.
    static SCRATCH: std::cell::RefCell<(u64, ChunkOut)> = std::cell::RefCell::new((0, ChunkOut::default()));
}

/// The output of parsing one chunk.
#[derive(Debug, Default)]
pub struct ChunkOut {
    /// While parsing: the states of each row.
    pub(crate) states: Vec<Vec<RawState>>,
    /// Once parsed: the non-empty rows' states, encoded.
    pub state_pieces: Vec<StatePiece>,
    /// While parsing: one buffer per (row, event type) seen, in first-seen order.
    events: Vec<EventBuf>,
    /// Rows of line prefixes seen.
    prefixes: PrefixIndex,
    /// The (type, value) pairs of the line being parsed.
    line_pairs: Vec<(u32, u64)>,
    /// Once parsed: the non-empty buffers, encoded.
    pub pieces: Vec<EventPiece>,
    /// When part of the trace is loaded: per (row, type), the last event of the chunk before
    /// the range ([`assemble`] keeps the last of all chunks).
    pub befores: Vec<RawEventOf>,
    event_index: KeyIndex,
    /// The last (application, task, thread) looked up, and its row.
    last_object: (u64, u64, u64, u32),
    last_line: LastLine,
    pub comms: Vec<Comm>,
    /// Lines in the chunk (newlines, plus one for a last line without newline).
    pub lines: u64,
    /// `c:`/`i:` communicator lines seen.
    pub communicator_lines: u64,
    /// Values stored as the sentinel.
    pub null_values: u64,
    /// Issues, with line numbers local to the chunk (1-based).
    pub report: LoadReport,
}

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

/// Splits `body` into chunks of about `target` bytes that end just after a newline (the last
/// one ends where the body ends).
pub fn split_chunks(body: &[u8], target: usize) -> Vec<std::ops::Range<usize>> {
    let target = target.max(1);
    let mut out = Vec::with_capacity(body.len() / target + 1);
    let mut start = 0;
    while start < body.len() {
        let want = start.saturating_add(target);
        let end = if want >= body.len() {
            body.len()
        } else {
            match memchr::memchr(b'\n', body.get(want..).unwrap_or(&[])) {
                Some(p) => want + p + 1,
                None => body.len(),
            }
        };
        out.push(start..end);
        start = end;
    }
    out
}

/// Frees the scratch buffers of every rayon worker (after a load).
pub fn release_scratch() {
    rayon::broadcast(|_| {
        SCRATCH.with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                *s = (0, ChunkOut::default());
            }
        });
    });
}

/// Parses one chunk of body lines.
pub fn parse_chunk(ctx: &ParseContext<'_>, bytes: &[u8]) -> ChunkOut {
    SCRATCH.with(|scratch| {
        if let Ok(mut scratch) = scratch.try_borrow_mut() {
            if scratch.0 != ctx.id {
                *scratch = (ctx.id, ChunkOut::new(ctx.rows.rows()));
            }
            parse_into(ctx, bytes, &mut scratch.1);
            scratch.1.take_output(ctx.sentinel)
        } else {
            // Re-entered on this thread (a nested rayon job): parse without the scratch.
            let mut out = ChunkOut::new(ctx.rows.rows());
            parse_into(ctx, bytes, &mut out);
            out.take_output(ctx.sentinel)
        }
    })
}

fn parse_into(ctx: &ParseContext<'_>, bytes: &[u8], out: &mut ChunkOut) {
    let mut line_no = 0u64;
    let mut start = 0usize;
    while start < bytes.len() {
        if let Some(next) = fast_line(ctx, bytes, start, out) {
            line_no += 1;
            start = next;
            continue;
        }
        let rest = bytes.get(start..).unwrap_or(&[]);
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(p) => (rest.get(..p).unwrap_or(&[]), start + p + 1),
            None => (rest, bytes.len()),
        };
        line_no += 1;
        start = next;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        parse_line(ctx, line, rest, line_no, out);
    }
    out.lines = line_no;
}

/// A decimal number of 1 to 19 digits (which cannot overflow), or `None`.
///
/// Digits are read 8 bytes at a time: the leading digits of a little-endian word are found
/// with one mask and converted with three multiplications, whatever their number, so a field
/// costs about as much as one digit of a byte loop. Near the end of the chunk, where 8 bytes
/// cannot be read, a byte loop takes over.
#[inline]
#[allow(clippy::many_single_char_names)] // b, q, v, n, d: bytes, position, digits
fn fast_num(b: &[u8], q: &mut usize) -> Option<u64> {
    let start = *q;
    let mut v = 0u64;
    while let Some(bytes) = b.get(*q..).and_then(<[u8]>::first_chunk::<8>) {
        let (n, d) = leading_digits(u64::from_le_bytes(*bytes));
        v = v
            .wrapping_mul(POW10.get(n & 15).copied().unwrap_or(1))
            .wrapping_add(d);
        *q += n;
        if n < 8 {
            let len = *q - start;
            return (len > 0 && len < 20).then_some(v);
        }
    }
    while let Some(&c) = b.get(*q) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v.wrapping_mul(10).wrapping_add(u64::from(d));
        *q += 1;
    }
    let len = *q - start;
    (len > 0 && len < 20).then_some(v)
}

/// Powers of ten for 0 to 8 digits (16 entries, so that `n & 15` needs no bounds check).
const POW10: [u64; 16] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
];

/// The number of leading ASCII digits of a little-endian `word` (0 to 8; the first byte is
/// the lowest) and their value.
#[inline]
fn leading_digits(word: u64) -> (usize, u64) {
    let x = word.wrapping_sub(0x3030_3030_3030_3030);
    // A byte is not a digit when the subtraction wrapped (high bit set) or it is 10 or more
    // (adding 0x76 sets the high bit). Borrows and carries only disturb bytes after the first
    // non-digit, which are not used.
    let non_digit = (x | x.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    let n = (non_digit.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    // The n digits go to the top bytes (zeros below act as leading zeros), then pairs,
    // quads and octets are combined.
    let x = x << (64 - 8 * n);
    let x = (x.wrapping_mul(10) + (x >> 8)) & 0x00FF_00FF_00FF_00FF;
    let x = (x.wrapping_mul(100) + (x >> 16)) & 0x0000_FFFF_0000_FFFF;
    (n, (x.wrapping_mul(10_000) + (x >> 32)) & 0xFFFF_FFFF)
}

#[inline]
fn fast_colon(b: &[u8], q: &mut usize) -> Option<()> {
    (*b.get(*q)? == b':').then(|| *q += 1)
}

/// After the last field: `\n` or `\r\n`; returns the position of the next line.
#[inline]
fn fast_eol(b: &[u8], q: usize) -> Option<usize> {
    match *b.get(q)? {
        b'\n' => Some(q + 1),
        b'\r' if b.get(q + 1) == Some(&b'\n') => Some(q + 2),
        _ => None,
    }
}

/// The optimistic parser: a well-formed state or event line at `p`, ended by a newline,
/// in a thread the header has. Returns the start of the next line, or `None` (having
/// changed nothing) to let the careful parser, which reports what is wrong, take the line.
#[inline]
#[allow(clippy::many_single_char_names)] // b, p, q, v, n: bytes, positions and values
fn fast_line(ctx: &ParseContext<'_>, b: &[u8], p: usize, out: &mut ChunkOut) -> Option<usize> {
    let kind = *b.get(p)?;
    if kind == b'3' {
        return fast_comm(ctx, b, p, out);
    }
    if kind != b'1' && kind != b'2' {
        return None;
    }
    // Consecutive lines usually come from the same thread (ovni: 99.99%), often at the same
    // time: when the bytes of `kind:cpu:appl:task:thread:` (and `time:`) equal the previous
    // line's, its row (and time) are reused without parsing the numbers again.
    let last = out.last_line;
    // Bytes [from, from + len) of this line equal those of the previous line?
    let same = |from: usize, len: usize| match (
        b.get(p + from..p + from + len),
        b.get(last.start + from..last.start + from + len),
    ) {
        (Some(x), Some(y)) => same_bytes(x, y),
        _ => false,
    };
    let (row, time, mut q, object_len) = if last.object_len > 0 && same(0, last.object_len) {
        let at = p + last.object_len;
        if same(last.object_len, last.time_len) {
            (last.row, last.time, at + last.time_len, last.object_len)
        } else {
            let mut q = at;
            let time = fast_num(b, &mut q)?;
            fast_colon(b, &mut q)?;
            (last.row, time, q, last.object_len)
        }
    } else if let Some((row, object_len)) = out.prefixes.find(b, p) {
        let mut q = p + object_len;
        let time = fast_num(b, &mut q)?;
        fast_colon(b, &mut q)?;
        (row, time, q, object_len)
    } else {
        let mut q = p + 1;
        fast_colon(b, &mut q)?;
        fast_num(b, &mut q)?; // cpu
        fast_colon(b, &mut q)?;
        let appl = fast_num(b, &mut q)?;
        fast_colon(b, &mut q)?;
        let task = fast_num(b, &mut q)?;
        fast_colon(b, &mut q)?;
        let thread = fast_num(b, &mut q)?;
        fast_colon(b, &mut q)?;
        let object_len = q - p;
        let time = fast_num(b, &mut q)?;
        fast_colon(b, &mut q)?;
        let row = ctx.rows.row(appl, task, thread)?;
        out.prefixes.insert(b, p, object_len, row);
        (row, time, q, object_len)
    };
    let this_line = LastLine {
        start: p,
        object_len,
        time_len: q - p - object_len,
        row,
        time,
    };
    let sentinel = ctx.sentinel;
    let value = |b: &[u8], q: &mut usize| -> Option<u64> {
        if b.get(*q) == Some(&b'N') {
            *q += 1;
            Some(sentinel)
        } else {
            // A literal sentinel goes to the careful parser, which reports it.
            fast_num(b, q).filter(|&v| v != sentinel)
        }
    };
    if kind == b'1' {
        let end = fast_num(b, &mut q)?;
        fast_colon(b, &mut q)?;
        let v = value(b, &mut q)?;
        let next = fast_eol(b, q)?;
        if end < time {
            return None;
        }
        out.keep_state(
            &ctx.filter,
            sentinel,
            row,
            RawState {
                begin: time,
                end,
                value: v,
            },
        );
        out.last_line = this_line;
        return Some(next);
    }
    // The pairs are only stored once the whole line is known to be good.
    let ty = u32::try_from(fast_num(b, &mut q)?).ok()?;
    fast_colon(b, &mut q)?;
    let v = value(b, &mut q)?;
    if b.get(q) != Some(&b':') {
        // One pair: the common case (ovni writes one per line).
        let next = fast_eol(b, q)?;
        out.keep_event(&ctx.filter, sentinel, row, RawEvent { time, value: v, ty });
        out.last_line = this_line;
        return Some(next);
    }
    q += 1;
    let pairs = &mut out.line_pairs;
    pairs.clear();
    pairs.push((ty, v));
    let next = (|| loop {
        let ty = u32::try_from(fast_num(b, &mut q)?).ok()?;
        fast_colon(b, &mut q)?;
        let v = value(b, &mut q)?;
        pairs.push((ty, v));
        if b.get(q) == Some(&b':') {
            q += 1;
        } else {
            break fast_eol(b, q);
        }
    })();
    if next.is_some() {
        for j in 0..out.line_pairs.len() {
            let Some(&(ty, v)) = out.line_pairs.get(j) else {
                break;
            };
            out.keep_event(&ctx.filter, sentinel, row, RawEvent { time, value: v, ty });
        }
        out.last_line = this_line;
    }
    next
}

/// The optimistic parser for a well-formed communication line between threads the header has.
fn fast_comm(ctx: &ParseContext<'_>, b: &[u8], p: usize, out: &mut ChunkOut) -> Option<usize> {
    let mut q = p + 1;
    let mut f = [0u64; 14];
    for slot in &mut f {
        fast_colon(b, &mut q)?;
        *slot = fast_num(b, &mut q)?;
    }
    let next = fast_eol(b, q)?;
    let [
        send_cpu,
        sa,
        st,
        sh,
        lsend,
        psend,
        recv_cpu,
        ra,
        rt,
        rh,
        times @ ..,
    ] = f;
    let send_row = ctx.rows.row(sa, st, sh)?;
    let recv_row = ctx.rows.row(ra, rt, rh)?;
    let [lrecv, precv, size, tag] = times;
    out.keep_comm(
        &ctx.filter,
        comm(
            (send_cpu, send_row),
            (recv_cpu, recv_row),
            [lsend, psend, lrecv, precv, size, tag],
        ),
    );
    Some(next)
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

/// A communication from its (cpu, row) ends and `[lsend, psend, lrecv, precv, size, tag]`.
pub(crate) fn comm(send: (u64, u32), recv: (u64, u32), f: [u64; 6]) -> Comm {
    let [lsend, psend, lrecv, precv, size, tag] = f;
    Comm {
        send_row: send.1,
        recv_row: recv.1,
        send_cpu: u32::try_from(send.0).unwrap_or(u32::MAX),
        recv_cpu: u32::try_from(recv.0).unwrap_or(u32::MAX),
        lsend,
        psend,
        lrecv,
        precv,
        size,
        tag,
    }
}

/// Rows by the bytes of a line's `kind:cpu:appl:task:thread:` prefix, for prefixes of up to
/// 16 bytes. Lines of many threads interleave in most traces, so the previous line rarely has
/// the same prefix; looking the 16 bytes up here replaces parsing four numbers and finding the
/// row. A small open-addressing table keyed by the prefix bytes (zero-padded).
#[derive(Debug, Default)]
struct PrefixIndex {
    /// (key, row, prefix length); length 0 marks a free slot. Power-of-two size, at most half
    /// full.
    slots: Vec<(u128, u32, u8)>,
    len: usize,
}

impl PrefixIndex {
    /// The 16 bytes at `p` and a mask of the bytes that are `:`, one bit per byte.
    #[inline]
    fn load(bytes: &[u8], at: usize) -> Option<(u128, u32)> {
        const LOW7: u128 = 0x7F7F_7F7F_7F7F_7F7F_7F7F_7F7F_7F7F_7F7F;
        let word = u128::from_le_bytes(*bytes.get(at..)?.first_chunk::<16>()?);
        // Exact zero-byte test on word ^ ':::...': a byte's high bit ends up set iff it was ':'.
        let y = word ^ 0x3A3A_3A3A_3A3A_3A3A_3A3A_3A3A_3A3A_3A3A;
        let t = !(((y & LOW7) + LOW7) | y | LOW7);
        // Gather the 16 high bits into a 16-bit mask (a multiply moves bit 7 of byte i to
        // bit 56 + i).
        let gather = |x: u64| {
            ((((x >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56) as u32
        };
        let mask = gather(t as u64) | (gather((t >> 64) as u64) << 8);
        Some((word, mask))
    }

    /// The key of the prefix at `p`: its bytes up to and including the fifth `:`.
    #[inline]
    fn key(b: &[u8], p: usize) -> Option<(u128, usize)> {
        let (w, mut mask) = Self::load(b, p)?;
        for _ in 0..4 {
            if mask == 0 {
                return None;
            }
            mask &= mask - 1;
        }
        if mask == 0 {
            return None;
        }
        let len = mask.trailing_zeros() as usize + 1;
        let keep = if len >= 16 {
            u128::MAX
        } else {
            (1u128 << (8 * len)) - 1
        };
        Some((w & keep, len))
    }

    #[inline]
    fn slot_of(key: u128, mask: usize) -> usize {
        let h = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 32) as usize & mask
    }

    /// The row and prefix length of the line at `p`, if its prefix was seen before.
    #[inline]
    fn find(&self, b: &[u8], p: usize) -> Option<(u32, usize)> {
        if self.len == 0 {
            return None;
        }
        let (key, len) = Self::key(b, p)?;
        let mask = self.slots.len() - 1;
        let mut slot = Self::slot_of(key, mask);
        loop {
            let &(k, row, l) = self.slots.get(slot)?;
            if l == 0 {
                return None;
            }
            if k == key && usize::from(l) == len {
                return Some((row, len));
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Remembers the row of the prefix of `len` bytes at `p`.
    fn insert(&mut self, b: &[u8], p: usize, len: usize, row: u32) {
        let Some((key, key_len)) = Self::key(b, p) else {
            return;
        };
        if key_len != len || self.len >= 1 << 16 {
            return;
        }
        if (self.len + 1) * 2 > self.slots.len() {
            let size = (self.slots.len() * 2).max(256);
            let old = std::mem::replace(&mut self.slots, vec![(0, 0, 0); size]);
            self.len = 0;
            for (k, r, l) in old {
                if l != 0 {
                    self.put(k, r, l);
                }
            }
        }
        self.put(key, row, len as u8);
    }

    fn put(&mut self, key: u128, row: u32, len: u8) {
        let mask = self.slots.len() - 1;
        let mut slot = Self::slot_of(key, mask);
        while let Some(&(k, _, l)) = self.slots.get(slot) {
            if l == 0 || (k == key && l == len) {
                break;
            }
            slot = (slot + 1) & mask;
        }
        if let Some(s) = self.slots.get_mut(slot) {
            if s.2 == 0 {
                self.len += 1;
            }
            *s = (key, row, len);
        }
    }
}

/// `x == y` for short slices of equal length, compared a word at a time (the last word
/// overlapping) rather than through a call to `memcmp`.
#[inline]
fn same_bytes(x: &[u8], y: &[u8]) -> bool {
    let word = |s: &[u8], i: usize| {
        s.get(i..)
            .and_then(<[u8]>::first_chunk::<8>)
            .map_or(0, |w| u64::from_le_bytes(*w))
    };
    let n = x.len();
    if n != y.len() {
        return false;
    }
    if n < 8 {
        return x == y;
    }
    let mut i = 0;
    while i + 8 < n {
        if word(x, i) != word(y, i) {
            return false;
        }
        i += 8;
    }
    word(x, n - 8) == word(y, n - 8)
}

/// Where the previous fast-parsed line of a chunk started and how long its object and time
/// fields were (with their `:`), with what they meant.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LastLine {
    start: usize,
    /// Length of `kind:cpu:appl:task:thread:`; 0 when there is no previous line.
    object_len: usize,
    /// Length of `time:`.
    time_len: usize,
    row: u32,
    time: u64,
}

#[inline]
fn parse_line(ctx: &ParseContext<'_>, line: &[u8], rest: &[u8], line_no: u64, out: &mut ChunkOut) {
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

/// Reads `cpu:appl:task:thread` and returns (cpu, row), or records an out-of-range thread.
#[inline]
fn object(
    ctx: &ParseContext<'_>,
    f: &mut Fields<'_>,
    line_no: u64,
    out: &mut ChunkOut,
) -> Result<Option<(u64, u32)>, Bad> {
    let o = read_object(ctx, f, out)?;
    if let Some(row) = o.row {
        return Ok(Some((o.cpu, row)));
    }
    note_missing_thread(ctx, &o, line_no, out);
    Ok(None)
}

fn parse_state(
    ctx: &ParseContext<'_>,
    f: &mut Fields<'_>,
    line_no: u64,
    out: &mut ChunkOut,
) -> Result<(), Bad> {
    let Some((_cpu, row)) = object(ctx, f, line_no, out)? else {
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
    Ok(())
}

fn parse_event(
    ctx: &ParseContext<'_>,
    f: &mut Fields<'_>,
    line_no: u64,
    out: &mut ChunkOut,
) -> Result<(), Bad> {
    let Some((_cpu, row)) = object(ctx, f, line_no, out)? else {
        return Ok(());
    };
    let time = f.num("a time")?;
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
    match (send.row, recv.row) {
        (Some(s), Some(r)) => out.keep_comm(
            &ctx.filter,
            comm(
                (send.cpu, s),
                (recv.cpu, r),
                [lsend, psend, lrecv, precv, size, tag],
            ),
        ),
        (None, _) => note_missing_thread(ctx, &send, line_no, out),
        (_, None) => note_missing_thread(ctx, &recv, line_no, out),
    }
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

/// Everything [`assemble`] produces.
pub struct Assembled {
    pub threads: Vec<ThreadData>,
    pub comms: Vec<Comm>,
    pub null_values: u64,
    pub communicator_lines: u64,
    pub report: LoadReport,
}

/// Joins parsed chunks (in file order) into sorted, encoded per-thread columns.
/// `first_line` is the file line number of the first chunk's first line.
pub fn assemble(chunks: Vec<ChunkOut>, rows: usize, sentinel: u64, first_line: u64) -> Assembled {
    let mut report = LoadReport::default();
    let mut null_values = 0;
    let mut communicator_lines = 0;
    let mut comm_pieces = Vec::with_capacity(chunks.len());
    // Transpose: per row, the pieces of every chunk in file order.
    let mut states: Vec<Vec<StatePiece>> = (0..rows).map(|_| Vec::new()).collect();
    let mut events: Vec<Vec<EventPiece>> = (0..rows).map(|_| Vec::new()).collect();
    let mut line_base = first_line.saturating_sub(1);
    // Of the events before a partial load's range, the last per (row, type) holds when the
    // range starts: it goes first, as a piece of its own.
    let mut befores = std::collections::BTreeMap::<(u32, u32), (u64, u64)>::new();
    for b in chunks.iter().flat_map(|c| &c.befores) {
        let slot = befores
            .entry((b.row, b.e.ty))
            .or_insert((b.e.time, b.e.value));
        if b.e.time >= slot.0 {
            *slot = (b.e.time, b.e.value);
        }
    }
    for ((row, ty), pair) in befores {
        null_values += u64::from(pair.1 == sentinel);
        if let Some(r) = events.get_mut(row as usize) {
            r.push(EventPiece {
                row,
                ty,
                sorted: true,
                time: TimeColumn::from_sorted_slice_by(&[pair], |p| p.0),
                value: ValueColumn::from_slice_with_max(
                    &[pair],
                    sentinel,
                    if pair.1 == sentinel { 0 } else { pair.1 },
                    |p| p.1,
                ),
            });
        }
    }
    for mut chunk in chunks {
        for issue in chunk.report.examples_mut().iter_mut() {
            if issue.line > 0 {
                issue.line += line_base;
            }
        }
        line_base += chunk.lines;
        report.merge(chunk.report);
        null_values += chunk.null_values;
        communicator_lines += chunk.communicator_lines;
        comm_pieces.push(std::mem::take(&mut chunk.comms));
        for piece in chunk.state_pieces {
            if let Some(r) = states.get_mut(piece.row as usize) {
                r.push(piece);
            }
        }
        for buf in chunk.pieces {
            if let Some(r) = events.get_mut(buf.row as usize) {
                r.push(buf);
            }
        }
    }
    // The pieces become the store's segments (moved, not copied) when they are in order;
    // meanwhile the communications are joined and sorted.
    let (threads, comms) = rayon::join(
        || {
            states
                .into_par_iter()
                .zip(events.into_par_iter())
                .map(|(s, e)| build_thread(s, e, sentinel))
                .collect()
        },
        || {
            let mut comms = comm_pieces.concat();
            if !comms.is_sorted_by_key(|c| c.lsend) {
                comms.par_sort_by_key(|c| c.lsend); // stable: equal times keep file order
            }
            comms
        },
    );
    Assembled {
        threads,
        comms,
        null_values,
        communicator_lines,
        report,
    }
}

/// Are pieces in order when put one after the other? `first`/`last` give a piece's first and
/// last time; every piece must be sorted itself.
fn in_order<P>(
    pieces: &[P],
    sorted: impl Fn(&P) -> bool,
    first: impl Fn(&P) -> Option<u64>,
    last: impl Fn(&P) -> Option<u64>,
) -> bool {
    pieces.iter().all(&sorted)
        && pieces.windows(2).all(|w| match w {
            [x, y] => match (last(x), first(y)) {
                (Some(a), Some(b)) => a <= b,
                _ => true,
            },
            _ => true,
        })
}

fn build_thread(states: Vec<StatePiece>, mut events: Vec<EventPiece>, sentinel: u64) -> ThreadData {
    let begins_in_order = in_order(
        &states,
        |p| p.begins_sorted,
        |p| p.begin.first(),
        |p| p.begin.last(),
    );
    let state_cols = if begins_in_order {
        let ends_sorted = in_order(
            &states,
            |p| p.ends_sorted,
            |p| p.end.first(),
            |p| p.end.last(),
        );
        let mut begins = Vec::with_capacity(states.len());
        let mut ends = Vec::with_capacity(states.len());
        let mut values = Vec::with_capacity(states.len());
        for p in states {
            begins.push(p.begin);
            ends.push(p.end);
            values.push(p.value);
        }
        StateColumns {
            begin: TimeColumn::join_sorted(begins),
            end: if ends_sorted {
                TimeColumn::join_sorted(ends)
            } else {
                let refs: Vec<&TimeColumn> = ends.iter().collect();
                let all: Vec<u64> = refs.iter().flat_map(|c| c.iter()).collect();
                TimeColumn::from_times(&all)
            },
            value: ValueColumn::join(values, sentinel),
            ends_sorted,
        }
    } else {
        let mut all: Vec<RawState> = states
            .iter()
            .flat_map(|p| {
                p.begin
                    .iter()
                    .zip(p.end.iter())
                    .zip(p.value.iter())
                    .map(|((begin, end), value)| RawState { begin, end, value })
            })
            .collect();
        all.sort_by_key(|s| s.begin); // stable: equal begins keep file order
        StateColumns {
            ends_sorted: all.is_sorted_by_key(|s| s.end),
            begin: TimeColumn::from_slice_by(&all, |s| s.begin),
            end: TimeColumn::from_slice_by(&all, |s| s.end),
            value: ValueColumn::from_slice_by(&all, sentinel, |s| s.value),
        }
    };

    // Pieces of one type, in file order (the sort is stable).
    events.sort_by_key(|b| b.ty);
    let mut columns = Vec::new();
    let mut group: Vec<EventPiece> = Vec::new();
    let mut pieces = events.into_iter().peekable();
    while let Some(piece) = pieces.next() {
        let ty = piece.ty;
        group.push(piece);
        if pieces.peek().is_some_and(|p| p.ty == ty) {
            continue;
        }
        let sorted = in_order(&group, |p| p.sorted, |p| p.time.first(), |p| p.time.last());
        let column = if sorted {
            let mut times = Vec::with_capacity(group.len());
            let mut values = Vec::with_capacity(group.len());
            for p in group.drain(..) {
                times.push(p.time);
                values.push(p.value);
            }
            EventColumn {
                ty,
                time: TimeColumn::join_sorted(times),
                value: ValueColumn::join(values, sentinel),
            }
        } else {
            let mut pairs: Vec<(u64, u64)> = group
                .iter()
                .flat_map(|b| b.time.iter().zip(b.value.iter()))
                .collect();
            group.clear();
            pairs.sort_by_key(|p| p.0); // stable: equal times keep file order
            EventColumn {
                ty,
                time: TimeColumn::from_slice_by(&pairs, |p| p.0),
                value: ValueColumn::from_slice_by(&pairs, sentinel, |p| p.1),
            }
        };
        columns.push(column);
    }
    ThreadData {
        states: state_cols,
        events: columns,
    }
}

/// (row, event type) key -> dense index: a small open-addressing hash table with linear
/// probing and a multiplicative hash. It is looked up once per event pair, so it must cost a
/// few instructions, not a `SipHash` (a direct-mapped cache in front of `HashMap` thrashed on
/// colliding keys).
#[derive(Debug, Default)]
struct KeyIndex {
    /// (key, index); `EMPTY` keys are free. The length is a power of two, at most half full.
    slots: Vec<(u64, u32)>,
    len: usize,
}

impl KeyIndex {
    /// Keys are `row << 32 | type` with rows below 2^24, so this is never a key.
    const EMPTY: u64 = u64::MAX;

    #[inline]
    fn slot_of(key: u64, mask: usize) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
    }

    #[inline]
    fn get_or_insert(&mut self, key: u64, insert: impl FnOnce() -> usize) -> usize {
        // Look up first; the table only grows on the (rare) insertion path.
        let mask = self.slots.len().wrapping_sub(1);
        let mut slot = Self::slot_of(key, mask);
        while let Some(&(k, i)) = self.slots.get(slot) {
            if k == key {
                return i as usize;
            }
            if k == Self::EMPTY {
                break;
            }
            slot = (slot + 1) & mask;
        }
        self.insert(key, insert())
    }

    #[cold]
    fn insert(&mut self, key: u64, i: usize) -> usize {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut slot = Self::slot_of(key, mask);
        while self.slots.get(slot).is_some_and(|e| e.0 != Self::EMPTY) {
            slot = (slot + 1) & mask;
        }
        if let Some(s) = self.slots.get_mut(slot) {
            *s = (key, i as u32);
        }
        self.len += 1;
        i
    }

    #[cold]
    fn grow(&mut self) {
        let new_len = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![(Self::EMPTY, 0); new_len]);
        let mask = new_len - 1;
        for (k, i) in old.into_iter().filter(|e| e.0 != Self::EMPTY) {
            let mut slot = Self::slot_of(k, mask);
            while self.slots.get(slot).is_some_and(|e| e.0 != Self::EMPTY) {
                slot = (slot + 1) & mask;
            }
            if let Some(s) = self.slots.get_mut(slot) {
                *s = (k, i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_keys_end_at_the_fifth_colon() {
        let line = b"2:24:1:6:4:46:60000019:5:60000119:5\n";
        let (_, len) = PrefixIndex::key(line, 0).unwrap();
        assert_eq!(len, 11);
        let mut idx = PrefixIndex::default();
        idx.insert(line, 0, 11, 7);
        let other = b"1:24:1:6:4:99:100:1\n.....";
        assert_eq!(idx.find(line, 0), Some((7, 11)));
        assert_eq!(idx.find(other, 0), None);
        // A prefix longer than 16 bytes is not indexed.
        assert!(PrefixIndex::key(b"2:1234:1:1234:1234:5:6:7:8:9:0", 0).is_none());
    }

    #[test]
    fn swar_numbers_match_a_plain_parse() {
        for text in [
            "0",
            "7",
            "12345678",
            "123456789",
            "18446744073709551615",
            "00000000000002577724",
        ] {
            let mut line = text.as_bytes().to_vec();
            line.extend_from_slice(b":rest of the line, long enough");
            let mut q = 0;
            let v = fast_num(&line, &mut q);
            let expected = if text.len() < 20 {
                text.parse::<u64>().ok()
            } else {
                None
            };
            assert_eq!(v, expected, "{text}");
            if v.is_some() {
                assert_eq!(q, text.len());
            }
        }
    }
}

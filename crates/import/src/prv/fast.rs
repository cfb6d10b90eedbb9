//! The optimistic fast path: well-formed state, event and communication lines parsed from
//! the structural scanner's masks ([`scan`](super::scan)), with the previous line's prefix
//! reused, leaving anything unusual to the careful parser.
//!
//! The scanner marks every non-digit byte, so a line's fields are the digit runs between
//! marks: a cursor pops the marks one by one, each field's end is known before its digits
//! are read, and its digits are converted eight at a time without a test per byte. A mark
//! that is not where a `:` or the newline should be (a sign, a space, a letter) sends the
//! line to the careful parser, which reports what is wrong.

// The per-field and per-record helpers are forced inline: left to itself the compiler
// outlined them once the parse grew, and the calls cost a quarter of the parse time.
#![allow(clippy::inline_always)]

use super::chunk::{ChunkOut, RawEvent, RawState};
use super::scan::{BLOCK, Backend};
use super::{ParseContext, comm};

/// Bytes scanned at a time: the masks of a stretch stay in L1 while its lines are parsed.
const STRETCH: usize = 16 << 10;

/// The non-digit masks of a window of text, a stretch at a time, as the lines ask for them.
pub(super) struct Scanner<'a> {
    text: &'a [u8],
    masks: Masks,
}

/// The masks scanned so far. Kept apart from the text, which the parse holds in registers:
/// behind the same `&mut` as the masks, it was loaded again after every mark.
struct Masks {
    backend: Backend,
    /// Masks of the blocks from `first` on.
    words: Vec<u64>,
    first: usize,
}

impl<'a> Scanner<'a> {
    /// A scanner of `text` with a resolved `backend`.
    pub(super) fn new(text: &'a [u8], backend: Backend) -> Self {
        Scanner {
            text,
            masks: Masks {
                backend,
                words: Vec::with_capacity(STRETCH / BLOCK + 1),
                first: 0,
            },
        }
    }
}

impl Masks {
    /// The mask of block `blk` of `text`, or `None` past its end.
    #[inline(always)]
    fn word(&mut self, text: &[u8], blk: usize) -> Option<u64> {
        // A block before `first` wraps to an index past the masks, as one past them.
        match self.words.get(blk.wrapping_sub(self.first)) {
            Some(&w) => Some(w),
            None => self.scan_from(text, blk),
        }
    }

    /// Scans the stretch of `text` that begins with block `blk` (lines only move forward:
    /// the blocks before it are not needed again).
    #[cold]
    #[inline(never)]
    fn scan_from(&mut self, text: &[u8], blk: usize) -> Option<u64> {
        let from = blk.checked_mul(BLOCK)?;
        let stretch = text.get(from..)?;
        if stretch.is_empty() {
            return None;
        }
        self.first = blk;
        self.words.clear();
        let stretch = stretch.get(..STRETCH).unwrap_or(stretch);
        self.backend.scan(stretch, &mut self.words);
        self.words.first().copied()
    }
}

/// The text and its masks, as the line parser uses them.
struct Text<'s, 'a> {
    b: &'a [u8],
    m: &'s mut Masks,
}

/// The marks (non-digit bytes) of a line, from a position on.
struct Cursor {
    blk: usize,
    bits: u64,
}

impl Cursor {
    /// The marks at and after `p`.
    #[inline(always)]
    fn at(sc: &mut Text<'_, '_>, p: usize) -> Option<Cursor> {
        let blk = p / BLOCK;
        let word = sc.m.word(sc.b, blk)?;
        Some(Cursor {
            blk,
            bits: word & (u64::MAX << (p % BLOCK)),
        })
    }

    /// The position of the next mark.
    #[inline(always)]
    fn next(&mut self, sc: &mut Text<'_, '_>) -> Option<usize> {
        while self.bits == 0 {
            self.blk += 1;
            self.bits = sc.m.word(sc.b, self.blk)?;
        }
        let at = self.blk * BLOCK + self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(at)
    }

    /// The position of the next mark, which must be a `:`.
    #[inline(always)]
    fn colon(&mut self, sc: &mut Text<'_, '_>) -> Option<usize> {
        let at = self.next(sc)?;
        (*sc.b.get(at)? == b':').then_some(at)
    }

    /// The number from `start` to the next mark, which must be a `:`; returns it and the
    /// start of the next field.
    #[inline(always)]
    fn field(&mut self, sc: &mut Text<'_, '_>, start: usize) -> Option<(u64, usize)> {
        let end = self.colon(sc)?;
        Some((digits(sc.b, start, end)?, end + 1))
    }

    /// A value field from `start`: `N` (the sentinel) or a number, which must not be the
    /// sentinel itself (a literal sentinel goes to the careful parser, which reports it).
    /// Returns the value and the position of the mark after it.
    #[inline(always)]
    fn value(
        &mut self,
        sc: &mut Text<'_, '_>,
        start: usize,
        sentinel: u64,
    ) -> Option<(u64, usize)> {
        let end = self.next(sc)?;
        if end == start && sc.b.get(end) == Some(&b'N') {
            let after = self.next(sc)?;
            return (after == end + 1).then_some((sentinel, after));
        }
        let v = digits(sc.b, start, end)?;
        (v != sentinel).then_some((v, end))
    }

    /// The mark at `at` ends the line (`\n`, or `\r\n`): the start of the next line.
    #[inline(always)]
    fn eol(&mut self, sc: &mut Text<'_, '_>, at: usize) -> Option<usize> {
        match *sc.b.get(at)? {
            b'\n' => Some(at + 1),
            b'\r' if self.next(sc)? == at + 1 && sc.b.get(at + 1) == Some(&b'\n') => Some(at + 2),
            _ => None,
        }
    }
}

/// The number written by the digits `b[start..end]` (the scanner found no mark between
/// them): up to 19 significant digits; `None` when empty or when it does not fit (the
/// careful parser checks overflow and reports it). The length is known before the digits
/// are read: up to 8 digits are one word, up to 16 two (measured: converting two words for
/// every field, without the branch on the length, is 60% slower).
#[inline(always)]
fn digits(b: &[u8], start: usize, end: usize) -> Option<u64> {
    // The arms give one `u64` (no number here reaches `NO_NUMBER`), tested once: as an
    // `Option` from each arm, its flag was merged and tested apart from the value.
    let v = digits_or_none(b, start, end);
    (v != NO_NUMBER).then_some(v)
}

/// What [`digits_or_none`] gives for no number: more than any number of up to 19 digits.
const NO_NUMBER: u64 = u64::MAX;

/// [`digits`], with `NO_NUMBER` for `None`.
#[inline(always)]
fn digits_or_none(b: &[u8], start: usize, end: usize) -> u64 {
    // `start` after `end` wraps to a length no arm below takes but the slow one, which
    // checks it.
    let n = end.wrapping_sub(start);
    // Within the first 16 bytes of the text the range's start wraps past its end: `None`.
    match (n, b.get(end.wrapping_sub(16)..end)) {
        (1..=8, Some(words)) => eight(word(words, 8), n),
        (9..=16, Some(words)) => {
            eight(word(words, 0), n - 8) * 100_000_000 + eight(word(words, 8), 8)
        }
        // Times zero-padded to 20 digits (ovni) and other numbers of 16 digits after up to
        // 8 zeros.
        (17..=24, Some(words)) if zeros(b, end - 16 - (n - 16), end - 16) => {
            eight(word(words, 0), 8) * 100_000_000 + eight(word(words, 8), 8)
        }
        _ => digits_slow(b, start, end).unwrap_or(NO_NUMBER),
    }
}

/// Are the up to 8 bytes `b[from..to]` all `0`? (One word compare.)
#[inline(always)]
fn zeros(b: &[u8], from: usize, to: usize) -> bool {
    let n = to - from;
    match to.checked_sub(8).and_then(|s| b.get(s..to)) {
        Some(w) if n <= 8 => {
            let keep = u64::MAX << ((64 - 8 * n) & 63);
            (word(w, 0) ^ 0x3030_3030_3030_3030) & keep == 0
        }
        _ => b
            .get(from..to)
            .is_some_and(|z| z.iter().all(|&c| c == b'0')),
    }
}

/// The little-endian word of `words[at..at + 8]`.
#[inline(always)]
fn word(words: &[u8], at: usize) -> u64 {
    let w = words.get(at..at + 8).and_then(|w| w.try_into().ok());
    u64::from_le_bytes(w.unwrap_or([b'0'; 8]))
}

/// [`digits`] for 17 digits or more, or within the first 16 bytes of the text.
#[cold]
#[inline(never)]
fn digits_slow(b: &[u8], start: usize, end: usize) -> Option<u64> {
    let n = end.checked_sub(start)?;
    if n == 0 {
        return None;
    }
    if n > 19 {
        // ovni and other writers pad times to 20 digits: right when the digits before the
        // last 19 are zeros.
        let zeros = b.get(start..end - 19)?.iter().all(|&c| c == b'0');
        return if zeros {
            digits_slow(b, end - 19, end)
        } else {
            None
        };
    }
    // Up to 19 digits, zero-padded in front to 24, in three words.
    let mut padded = [b'0'; 24];
    let field = b.get(start..end)?;
    padded.get_mut(24 - n..)?.copy_from_slice(field);
    Some(
        eight(word(&padded, 0), 8) * 10_000_000_000_000_000
            + eight(word(&padded, 8), 8) * 100_000_000
            + eight(word(&padded, 16), 8),
    )
}

/// The value of the last `n` (1 to 8) digits of a little-endian `word` (its top bytes): the
/// bytes before them are masked off (they act as leading zeros), then converted with three
/// multiplications.
#[inline(always)]
fn eight(word: u64, n: usize) -> u64 {
    // Digits are 0x30 to 0x39: flipping the bits of 0x30 gives their values, byte by byte
    // (one operation, no borrow), then the bytes before them are masked off.
    let keep = u64::MAX << ((64 - 8 * n) & 63);
    let x = (word ^ 0x3030_3030_3030_3030) & keep;
    // Pairs (in bytes 0, 2, 4, 6), then the four pairs weighted and summed into the high
    // half in two independent multiplications (Lemire's eight-digit parse).
    let x = x.wrapping_mul(10) + (x >> 8);
    let pairs = 0x0000_00FF_0000_00FF;
    ((x & pairs).wrapping_mul(100 + (1_000_000 << 32))
        + ((x >> 16) & pairs).wrapping_mul(1 + (10_000 << 32)))
        >> 32
}

/// The lines from `p` on, as long as the optimistic parser takes them: returns where it
/// stopped (a line it left to the careful parser, or the end of the text) and how many lines
/// it took. One loop around the inlined line parser, without a call per line.
pub(super) fn fast_lines(
    ctx: &ParseContext<'_>,
    sc: &mut Scanner<'_>,
    mut p: usize,
    out: &mut ChunkOut,
) -> (usize, u64) {
    let mut lines = 0;
    let sc = &mut Text {
        b: sc.text,
        m: &mut sc.masks,
    };
    while p < sc.b.len() {
        match fast_line(ctx, sc, p, out) {
            Some(next) => {
                p = next;
                lines += 1;
            }
            None => break,
        }
    }
    (p, lines)
}

/// The optimistic parser: a well-formed state or event line at `p`, ended by a newline,
/// in a thread the header has. Returns the start of the next line, or `None` (having
/// changed nothing) to let the careful parser, which reports what is wrong, take the line.
#[inline(always)]
#[allow(clippy::many_single_char_names)] // b, c, p, q, v: bytes, cursor, positions, values
fn fast_line(
    ctx: &ParseContext<'_>,
    sc: &mut Text<'_, '_>,
    p: usize,
    out: &mut ChunkOut,
) -> Option<usize> {
    let b = sc.b;
    let kind = *b.get(p)?;
    if kind == b'3' {
        let mut c = Cursor::at(sc, p)?;
        if c.next(sc)? != p + 1 || b.get(p + 1) != Some(&b':') {
            return None;
        }
        return fast_comm(ctx, sc, &mut c, p, out);
    }
    if kind != b'1' && kind != b'2' {
        return None;
    }
    // Consecutive lines usually come from the same thread (ovni: 99.99%), often at the same
    // time (a state and the events at its begin): when the bytes of `:cpu:appl:task:thread:`
    // (and `time:`) equal the previous line's, whatever its kind, its row (and time) are
    // reused without parsing the numbers again (nor finding their marks: bytes equal to the
    // previous line's, which were checked, are well formed).
    let last = out.last_line;
    let mut c;
    let same_object = last.object_len > 0 && same_at(b, p + 1, last.start + 1, last.object_len - 1);
    let (row, cpu, time, mut q, object_len) = if same_object {
        let at = p + last.object_len;
        if same_at(b, at, last.start + last.object_len, last.time_len) {
            let q = at + last.time_len;
            c = Cursor::at(sc, q)?;
            (last.row, last.cpu, last.time, q, last.object_len)
        } else {
            c = Cursor::at(sc, at)?;
            let (time, q) = c.field(sc, at)?;
            (last.row, last.cpu, time, q, last.object_len)
        }
    } else {
        c = Cursor::at(sc, p)?;
        if c.next(sc)? != p + 1 || b.get(p + 1) != Some(&b':') {
            return None;
        }
        let mut ends = [0usize; 4];
        for end in &mut ends {
            *end = c.colon(sc)?;
        }
        let [cpu_end, appl_end, task_end, thread_end] = ends;
        let q = thread_end + 1;
        let object_len = q - p;
        let cpu = digits(b, p + 2, cpu_end)?;
        let appl = digits(b, cpu_end + 1, appl_end)?;
        let task = digits(b, appl_end + 1, task_end)?;
        let thread = digits(b, task_end + 1, thread_end)?;
        let row = ctx.rows.row(appl, task, thread)?;
        // A CPU Paraver refuses for this task goes to the careful parser, which
        // reports it. The CPU of the thread's last record in the chunk fitted.
        if !out.was_last_cpu(row, cpu) {
            ctx.rows.cpu_fits(cpu, appl, task).ok()?;
        }
        let (time, q) = c.field(sc, q)?;
        (row, cpu, time, q, object_len)
    };
    let this_line = LastLine {
        start: p,
        object_len,
        time_len: q - p - object_len,
        row,
        cpu,
        time,
    };
    let sentinel = ctx.sentinel;
    if kind == b'1' {
        let (end, at) = c.field(sc, q)?;
        let (value, mark) = c.value(sc, at, sentinel)?;
        let next = c.eol(sc, mark)?;
        if end < time {
            return None;
        }
        out.text.state(time, end);
        out.keep_state(
            &ctx.filter,
            sentinel,
            row,
            RawState {
                begin: time,
                end,
                value,
            },
        );
        out.note_cpu(row, time, cpu);
        out.last_line = this_line;
        return Some(next);
    }
    // The pairs are only stored once the whole line is known to be good.
    let (ty, at) = c.field(sc, q)?;
    let ty = u32::try_from(ty).ok()?;
    let (v, mark) = c.value(sc, at, sentinel)?;
    if b.get(mark) != Some(&b':') {
        // One pair: the common case (ovni writes one per line).
        let next = c.eol(sc, mark)?;
        out.text.event(time);
        out.keep_event(&ctx.filter, sentinel, row, RawEvent { time, value: v, ty });
        end_line(out, same_object, this_line);
        return Some(next);
    }
    q = mark + 1;
    let pairs = &mut out.line_pairs;
    pairs.clear();
    pairs.push((ty, v));
    let next = loop {
        let (ty, at) = c.field(sc, q)?;
        let ty = u32::try_from(ty).ok()?;
        let (v, mark) = c.value(sc, at, sentinel)?;
        pairs.push((ty, v));
        if b.get(mark) == Some(&b':') {
            q = mark + 1;
        } else {
            break c.eol(sc, mark)?;
        }
    };
    out.text.event(time);
    out.keep_line_events(&ctx.filter, sentinel, row, time);
    out.note_cpu(row, time, cpu);
    out.last_line = this_line;
    Some(next)
}

/// After a one-pair event line kept: its CPU noted and the line remembered for the next
/// one. A line whose `:cpu:appl:task:thread:` bytes are the previous line's (`same_object`)
/// has its row and CPU, which that line noted (no other line came between them: the careful
/// parser forgets the previous line), so only where it starts and its time change (ovni: 2%
/// fewer instructions; done for state and many-pair lines as well, the generated trace took
/// 0.9% more).
#[inline(always)]
fn end_line(out: &mut ChunkOut, same_object: bool, line: LastLine) {
    if same_object {
        let last = &mut out.last_line;
        (last.start, last.time_len, last.time) = (line.start, line.time_len, line.time);
    } else {
        out.note_cpu(line.row, line.time, line.cpu);
        out.last_line = line;
    }
}

/// The optimistic parser for a well-formed communication line between threads the header
/// has; `c` is after the kind's `:`.
#[inline(always)]
fn fast_comm(
    ctx: &ParseContext<'_>,
    sc: &mut Text<'_, '_>,
    c: &mut Cursor,
    p: usize,
    out: &mut ChunkOut,
) -> Option<usize> {
    let mut f = [0u64; 14];
    let mut q = p + 2;
    let mut mark = q;
    for (i, slot) in f.iter_mut().enumerate() {
        mark = c.next(sc)?;
        let sep = *sc.b.get(mark)?;
        if (i < 13 && sep != b':') || (i == 13 && sep == b':') {
            return None;
        }
        *slot = digits(sc.b, q, mark)?;
        q = mark + 1;
    }
    let next = c.eol(sc, mark)?;
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
    ctx.rows.cpu_fits(send_cpu, sa, st).ok()?;
    ctx.rows.cpu_fits(recv_cpu, ra, rt).ok()?;
    let [lrecv, precv, size, tag] = times;
    out.text.message([lsend, psend, lrecv, precv]);
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

/// Do the `len` bytes at `x` and at `y` of `b` match?
#[inline(always)]
fn same_at(b: &[u8], x: usize, y: usize, len: usize) -> bool {
    match (b.get(x..x + len), b.get(y..y + len)) {
        (Some(x), Some(y)) => same_bytes(x, y),
        _ => false,
    }
}

/// `x == y` for short slices of equal length, compared a word at a time (the last word
/// overlapping) rather than through a call to `memcmp`.
#[inline(always)]
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
    if n <= 16 {
        // A thread's `:cpu:appl:task:thread:` or a time: two words, the second overlapping
        // the first, compared with one branch.
        return (word(x, 0) == word(y, 0)) & (word(x, n - 8) == word(y, n - 8));
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

/// What this parse's way of reading costs at least, for the load bench: every mark of `text`
/// walked with the cursor and, with `numbers`, every run of digits between two marks turned
/// into a number, nothing checked or stored. Returns the marks and the numbers' sum (the
/// bench asserts on both, so nothing is left out).
#[doc(hidden)]
pub fn walk_marks(text: &[u8], backend: Backend, numbers: bool) -> (u64, u64) {
    let mut scanner = Scanner::new(text, backend);
    let sc = &mut Text {
        b: scanner.text,
        m: &mut scanner.masks,
    };
    let Some(mut c) = Cursor::at(sc, 0) else {
        return (0, 0);
    };
    let (mut marks, mut sum, mut from) = (0u64, 0u64, 0usize);
    // The last block's bytes past the text are marks too: the walk stops at the text's end.
    while let Some(at) = c.next(sc).filter(|&at| at < sc.b.len()) {
        marks += 1;
        if numbers {
            sum = sum.wrapping_add(digits(sc.b, from, at).unwrap_or(0));
        } else {
            sum ^= at as u64;
        }
        from = at + 1;
    }
    (marks, sum)
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
    cpu: u64,
    time: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_known_length_match_a_plain_parse() {
        for text in [
            "0",
            "7",
            "12345678",
            "123456789",
            "1234567890123456",
            "12345678901234567",
            "123456789012345678",
            "000000001234567890123456",
            "000000011234567890123456",
            "0000000000000000000000000",
            "18446744073709551615",
            "9999999999999999999",
            "00000000000002577724",
            "00000000000000000000",
            "000000000000000000000000000000000000000000000000000000000000000000000012",
            "09999999999999999999",
            "00018446744073709551615",
            "99999999999999999999",
            "00000000000000000001",
            "00000018446744073709551615",
            "00000018446744073709551616",
            "00000000000000000000000000000000000000010000000000000000000",
        ] {
            let expected = if text.trim_start_matches('0').len() < 20 {
                text.parse::<u64>().ok()
            } else {
                None
            };
            // At the start of the text (fewer than 8 bytes before the end) and after others.
            for before in ["", "1:", "123456789:"] {
                let line = format!("{before}{text}:rest");
                let start = before.len();
                let v = digits(line.as_bytes(), start, start + text.len());
                assert_eq!(v, expected, "{text} after {before:?}");
            }
        }
        assert_eq!(digits(b"12:", 2, 2), None);
    }

    #[test]
    fn the_walk_of_marks_and_numbers_matches_a_plain_split() {
        let text = b"c:1:2:3:4:\n2:0:1:1:14:249568:15:0\n1:3:1:2:1:100:20000000000:7\n";
        for backend in Backend::available() {
            let (marks, sum) = walk_marks(text, backend, true);
            let fields = text.split(|c| !c.is_ascii_digit());
            let expected: u64 = fields
                .filter_map(|f| std::str::from_utf8(f).ok()?.parse::<u64>().ok())
                .sum();
            let expected_marks = text.iter().filter(|c| !c.is_ascii_digit()).count() as u64;
            assert_eq!((marks, sum), (expected_marks, expected), "{backend:?}");
            let (marks, positions) = walk_marks(text, backend, false);
            let expected = text
                .iter()
                .enumerate()
                .filter(|(_, c)| !c.is_ascii_digit())
                .fold(0u64, |x, (i, _)| x ^ i as u64);
            assert_eq!(
                (marks, positions),
                (expected_marks, expected),
                "{backend:?}"
            );
        }
    }
}

//! The optimistic fast path: well-formed state, event and communication lines parsed with
//! SWAR digit conversion and the previous line's prefix reused, leaving anything unusual to
//! the careful parser.

// The per-field and per-record helpers are forced inline: left to itself the compiler
// outlined them once the parse grew, and the calls cost a quarter of the parse time.
#![allow(clippy::inline_always)]

use super::chunk::{ChunkOut, RawEvent, RawState};
use super::{ParseContext, comm};

/// A decimal number of 1 to 19 significant digits (which cannot overflow; leading zeros
/// may make it longer), or `None`.
///
/// Digits are read 8 bytes at a time: the leading digits of a little-endian word are found
/// with one mask and converted with three multiplications, whatever their number, so a field
/// costs about as much as one digit of a byte loop. Near the end of the chunk, where 8 bytes
/// cannot be read, a byte loop takes over.
#[inline(always)]
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
            if len >= 20 {
                return padded_num(b, start, *q, v);
            }
            return (len > 0).then_some(v);
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
    if len >= 20 {
        return padded_num(b, start, *q, v);
    }
    (len > 0).then_some(v)
}

/// The value `v` read from the 20 digits or more in `b[start..end]`: right when the digits
/// before the last 19 are zeros (ovni and other writers pad times to 20 digits), as the
/// wrapping arithmetic only wraps past 19 significant digits; else `None` (the careful
/// parser checks for overflow).
#[inline(always)]
fn padded_num(b: &[u8], start: usize, end: usize, v: u64) -> Option<u64> {
    b.get(start..end.saturating_sub(19))?
        .iter()
        .all(|&c| c == b'0')
        .then_some(v)
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
#[inline(always)]
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

#[inline(always)]
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
pub(super) fn fast_line(
    ctx: &ParseContext<'_>,
    b: &[u8],
    p: usize,
    out: &mut ChunkOut,
) -> Option<usize> {
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
    let (row, cpu, time, mut q, object_len) =
        if last.object_len > 0 && same_at(b, p, last.start, last.object_len) {
            let at = p + last.object_len;
            if same_at(
                b,
                p + last.object_len,
                last.start + last.object_len,
                last.time_len,
            ) {
                (
                    last.row,
                    last.cpu,
                    last.time,
                    at + last.time_len,
                    last.object_len,
                )
            } else {
                let mut q = at;
                let time = fast_num(b, &mut q)?;
                fast_colon(b, &mut q)?;
                (last.row, last.cpu, time, q, last.object_len)
            }
        } else if let Some((row, object_len)) = out.prefixes.find(b, p) {
            let mut c = p + 2;
            let cpu = fast_num(b, &mut c)?;
            let mut q = p + object_len;
            let time = fast_num(b, &mut q)?;
            fast_colon(b, &mut q)?;
            (row, cpu, time, q, object_len)
        } else {
            let mut q = p + 1;
            fast_colon(b, &mut q)?;
            let cpu = fast_num(b, &mut q)?;
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
            // A CPU Paraver refuses for this task goes to the careful parser, which reports it;
            // only prefixes that fit are remembered.
            ctx.rows.cpu_fits(cpu, appl, task).ok()?;
            out.prefixes.insert(b, p, object_len, row);
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
        let end = fast_num(b, &mut q)?;
        fast_colon(b, &mut q)?;
        let v = fast_value(b, &mut q, sentinel)?;
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
        out.note_cpu(row, time, cpu);
        out.last_line = this_line;
        return Some(next);
    }
    // The pairs are only stored once the whole line is known to be good.
    let ty = u32::try_from(fast_num(b, &mut q)?).ok()?;
    fast_colon(b, &mut q)?;
    let v = fast_value(b, &mut q, sentinel)?;
    if b.get(q) != Some(&b':') {
        // One pair: the common case (ovni writes one per line).
        let next = fast_eol(b, q)?;
        out.keep_event(&ctx.filter, sentinel, row, RawEvent { time, value: v, ty });
        out.note_cpu(row, time, cpu);
        out.last_line = this_line;
        return Some(next);
    }
    q += 1;
    let pairs = &mut out.line_pairs;
    pairs.clear();
    pairs.push((ty, v));
    let next = more_pairs(b, &mut q, sentinel, pairs);
    if next.is_some() {
        out.keep_line_events(&ctx.filter, sentinel, row, time);
        out.note_cpu(row, time, cpu);
        out.last_line = this_line;
    }
    next
}

/// The pairs after the first of an event line, from `q` (just after a `:`) to the line's
/// end, appended to `pairs`; returns the start of the next line, or `None`.
#[inline(always)]
fn more_pairs(
    b: &[u8],
    q: &mut usize,
    sentinel: u64,
    pairs: &mut Vec<(u32, u64)>,
) -> Option<usize> {
    loop {
        let ty = u32::try_from(fast_num(b, q)?).ok()?;
        fast_colon(b, q)?;
        let v = fast_value(b, q, sentinel)?;
        pairs.push((ty, v));
        if b.get(*q) == Some(&b':') {
            *q += 1;
        } else {
            return fast_eol(b, *q);
        }
    }
}

/// The optimistic parser for a well-formed communication line between threads the header has.
#[inline(always)]
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
    ctx.rows.cpu_fits(send_cpu, sa, st).ok()?;
    ctx.rows.cpu_fits(recv_cpu, ra, rt).ok()?;
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

/// Do the `len` bytes at `x` and at `y` of `b` match?
#[inline(always)]
fn same_at(b: &[u8], x: usize, y: usize, len: usize) -> bool {
    match (b.get(x..x + len), b.get(y..y + len)) {
        (Some(x), Some(y)) => same_bytes(x, y),
        _ => false,
    }
}

/// A value field: `N` (the sentinel) or a number, which must not be the sentinel itself (a
/// literal sentinel goes to the careful parser, which reports it).
#[inline(always)]
fn fast_value(b: &[u8], q: &mut usize, sentinel: u64) -> Option<u64> {
    if b.get(*q) == Some(&b'N') {
        *q += 1;
        Some(sentinel)
    } else {
        fast_num(b, q).filter(|&v| v != sentinel)
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
    cpu: u64,
    time: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swar_numbers_match_a_plain_parse() {
        for text in [
            "0",
            "7",
            "12345678",
            "123456789",
            "18446744073709551615",
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
            let mut line = text.as_bytes().to_vec();
            line.extend_from_slice(b":rest of the line, long enough");
            let mut q = 0;
            let v = fast_num(&line, &mut q);
            let expected = if text.trim_start_matches('0').len() < 20 {
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

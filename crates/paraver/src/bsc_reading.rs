//! A trace's text as BSC's paramedir reads it, where the two readings part: `N`, prvscope's
//! null value, which Paraver's format does not have.
//!
//! paraver-kernel reads a record's fields with `prv_atoll_v` (`utils/traceparser/
//! tracebodyio_v1.h`): a field's digits, or 0 where it starts with anything else, and then
//! one byte passed over as the separator. A field `N` is read as 0 and its `N` taken for the
//! separator, so the `:` after it starts the next field: an event line
//! `T1:N:T2:V2:T3:V3` is read as the pairs `(T1, 0)`, `(0, T2)`, `(V2, T3)`, and the last
//! field alone fails the line's last pair ("Error reading event record": the pairs read
//! before it are kept). A state's `N`, its last field, is read as 0, as prvscope's
//! `paramedir` reads every `N`; an event line whose last field alone is `N` reads alike.
//!
//! [`bsc_view`] writes the text with each event line holding a byte that is not a digit, a
//! `:` or a line end among its pairs as BSC reads it, so that `prvscope paramedir` computes
//! on such a trace what BSC's paramedir computes.

use std::io::{self, BufRead, Write};

/// What [`bsc_view`] changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BscView {
    /// Event lines written again as BSC reads them (those with an `N`, or another byte that
    /// is neither a digit nor a `:`, among their pairs).
    pub lines_rewritten: u64,
    /// Of those, lines where BSC's reading fails a pair ("Error reading event record"), the
    /// pairs after it lost.
    pub lines_failed: u64,
    /// Lines where BSC reads no pair at all (left out).
    pub lines_left_out: u64,
}

/// Which of BSC's tools reads the text: each reads an event line's pairs with
/// `prv_atoll_v`, and each does something else where a pair fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The trace reader of paramedir's windows (`TraceBodyIO_v1::readEvent`): a pair that
    /// fails is left out, and the rest of the line with it.
    Trace,
    /// The cutter (`KTraceCutter::execute`): every pair read is written, one that fails too,
    /// with the value its field reader left (0 where it began reading the value, else the
    /// line's value before), and the line read to its end.
    Cutter,
    /// The filter (`KTraceFilter::execute`): as the trace reader, but its first pair is
    /// written even when it fails.
    Filter,
}

/// One `prv_atoll_v` call for a pair at `i` of `pairs`: the type, the value (where the
/// value's reader did not start, `value` as it was), whether it succeeded, and where the
/// next field starts. The trace reader's type is 32 bits and its value signed; the cutter's
/// and the filter's are both `unsigned long long` (a '-' fails them).
fn atoll_pair(
    pairs: &[u8],
    mut i: usize,
    mut value: u64,
    reader: Reader,
) -> (u64, u64, bool, usize) {
    let at = |i: usize| pairs.get(i).copied().unwrap_or(0);
    let len = pairs.len();
    let digits = |i: &mut usize| {
        let mut v = 0u64;
        while at(*i).is_ascii_digit() {
            v = v.wrapping_mul(10).wrapping_add(u64::from(at(*i) - b'0'));
            *i += 1;
        }
        v
    };
    // The type (its field reader sets it to 0 first; unsigned, so a '-' fails it).
    if i >= len || at(i) == b'-' {
        return (0, value, false, i);
    }
    let mut ty = digits(&mut i);
    if reader == Reader::Trace {
        ty &= u64::from(u32::MAX);
    }
    // A value must follow.
    if i >= len {
        return (ty, value, false, i);
    }
    i += 1;
    value = 0;
    if i >= len {
        return (ty, value, false, i);
    }
    let negative = at(i) == b'-';
    if negative {
        if reader != Reader::Trace {
            return (ty, value, false, i);
        }
        i += 1;
    }
    value = digits(&mut i);
    if negative {
        value = value.wrapping_neg();
    }
    if i < len {
        // The byte after the value, whatever it is, is the separator.
        i += 1;
    }
    (ty, value, true, i)
}

/// The event pairs of `pairs` (the text of an event line after its time's `:`) as `reader`
/// reads and writes them (see [`Reader`]): the pairs, and whether a pair failed. `value` is
/// the reader's value variable, which the cutter and the filter keep from line to line.
pub fn bsc_pairs(pairs: &[u8], reader: Reader, value: &mut u64) -> (Vec<(u64, u64)>, bool) {
    let mut out = Vec::new();
    let (mut i, mut failed) = (0, false);
    if reader == Reader::Trace {
        *value = 0;
    }
    while i < pairs.len() {
        let (ty, v, ok, next) = atoll_pair(pairs, i, *value, reader);
        *value = v;
        if !ok {
            failed = true;
            if reader == Reader::Trace || (reader == Reader::Filter && !out.is_empty()) {
                return (out, true);
            }
        }
        out.push((ty, v));
        if next == i || (reader == Reader::Filter && !ok) {
            // (A cutter that reads nothing more would read the same field for ever.)
            break;
        }
        i = next;
    }
    (out, failed)
}

/// The event pairs of `pairs` as paramedir's trace reader reads them ([`Reader::Trace`]):
/// types of 32 bits, signed values.
pub fn bsc_event_pairs(pairs: &[u8]) -> (Vec<(u32, i64)>, bool) {
    let (pairs, failed) = bsc_pairs(pairs, Reader::Trace, &mut 0);
    (
        pairs
            .into_iter()
            .map(|(t, v)| (t as u32, v as i64))
            .collect(),
        failed,
    )
}

/// Where field `k` (0-based) of a line starts, `None` when it has fewer fields.
fn field_start(line: &[u8], k: usize) -> Option<usize> {
    let mut colons = 0;
    for (at, &b) in line.iter().enumerate() {
        if b == b':' {
            colons += 1;
            if colons == k {
                return Some(at + 1);
            }
        }
    }
    None
}

/// Where an event line's pairs start: after its sixth field (`2:cpu:appl:task:thread:time:`),
/// `None` when it has no pairs.
fn pairs_start(line: &[u8]) -> Option<usize> {
    field_start(line, 6)
}

/// Copies the trace text of `input` to `out`, each event line whose pairs hold a byte other
/// than digits and `:` written with the pairs BSC's paramedir reads there (see the module's
/// documentation); every other line as it is.
pub fn bsc_view(input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<BscView> {
    bsc_view_as(input, out, Reader::Trace)
}

/// [`bsc_view`] with the pairs as `reader` reads and writes them.
pub fn bsc_view_as(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    reader: Reader,
) -> io::Result<BscView> {
    let mut view = BscView::default();
    let mut value = 0u64;
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let header = std::mem::take(&mut first);
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if !header && reader != Reader::Trace && body.starts_with(b"1:") {
            // The cutter and the filter write a state's fields as they read them: its
            // value's digits, 0 for an `N` (the trace reader reads it as prvscope does).
            if let Some(s) =
                field_start(body, 7).filter(|&s| !body[s..].iter().all(u8::is_ascii_digit))
            {
                let digits = body[s..].iter().take_while(|b| b.is_ascii_digit());
                let v = digits.fold(0u64, |v, &b| {
                    v.wrapping_mul(10).wrapping_add(u64::from(b - b'0'))
                });
                out.write_all(&body[..s])?;
                writeln!(out, "{v}")?;
                view.lines_rewritten += 1;
                continue;
            }
        }
        let start = (!header && body.starts_with(b"2:"))
            .then(|| pairs_start(body))
            .flatten();
        let Some(start) =
            start.filter(|&s| body[s..].iter().any(|&b| !b.is_ascii_digit() && b != b':'))
        else {
            out.write_all(&line)?;
            continue;
        };
        let (pairs, failed) = bsc_pairs(&body[start..], reader, &mut value);
        view.lines_rewritten += 1;
        view.lines_failed += u64::from(failed);
        if pairs.is_empty() {
            view.lines_left_out += 1;
            continue;
        }
        out.write_all(&body[..start - 1])?;
        for (ty, v) in pairs {
            if reader == Reader::Trace {
                write!(out, ":{ty}:{}", v as i64)?;
            } else {
                write!(out, ":{ty}:{v}")?;
            }
        }
        out.write_all(b"\n")?;
    }
    Ok(view)
}

#[cfg(test)]
mod tests {
    use super::{BscView, Reader, bsc_event_pairs, bsc_pairs, bsc_view};

    /// Each case worked out by hand from `prv_atoll_v` and `readEvent`.
    #[test]
    fn pairs_are_read_as_paraver_kernel_reads_them() {
        // Plain pairs.
        assert_eq!(bsc_event_pairs(b"1:2:3:4"), (vec![(1, 2), (3, 4)], false));
        // A last `N`: 0.
        assert_eq!(bsc_event_pairs(b"7:N"), (vec![(7, 0)], false));
        assert_eq!(bsc_event_pairs(b"7:N:8:0"), (vec![(7, 0), (0, 8)], true));
        // Two `N` before two pairs: the fields shift and come back in line.
        assert_eq!(
            bsc_event_pairs(b"60000019:N:60000119:N:42000050:363690:42000059:535231"),
            (
                vec![
                    (60_000_019, 0),
                    (0, 60_000_119),
                    (0, 0),
                    (42_000_050, 363_690),
                    (42_000_059, 535_231)
                ],
                false
            )
        );
        // One `N`: every pair after it shifted, the last field alone fails.
        assert_eq!(
            bsc_event_pairs(b"1:N:2:3:4:5"),
            (vec![(1, 0), (0, 2), (3, 4)], true)
        );
        // A type without its value fails; a negative value is read, a negative type fails.
        assert_eq!(bsc_event_pairs(b"5"), (vec![], true));
        assert_eq!(bsc_event_pairs(b"5:"), (vec![], true));
        assert_eq!(bsc_event_pairs(b"5:-3"), (vec![(5, -3)], false));
        assert_eq!(bsc_event_pairs(b"-5:3"), (vec![], true));
        // A type past 32 bits wraps, as a uint32_t does.
        assert_eq!(bsc_event_pairs(b"4294967297:1"), (vec![(1, 1)], false));
    }

    /// The cutter writes every pair it reads, one that fails too, with the value left in
    /// its variable (from the line before where the value was not read); the filter writes
    /// the pairs up to the first that fails.
    #[test]
    fn the_cutter_and_the_filter_write_pairs_as_they_read_them() {
        let (mut v, cut, filter) = (9u64, Reader::Cutter, Reader::Filter);
        assert_eq!(
            bsc_pairs(b"1:N:2:3:4:5", cut, &mut v),
            (vec![(1, 0), (0, 2), (3, 4), (5, 4)], true)
        );
        assert_eq!(
            bsc_pairs(b"1:N:2:3:4:5", filter, &mut v),
            (vec![(1, 0), (0, 2), (3, 4)], true)
        );
        v = 9;
        assert_eq!(bsc_pairs(b"5", cut, &mut v), (vec![(5, 9)], true));
        assert_eq!(bsc_pairs(b"5", filter, &mut v), (vec![(5, 9)], true));
        assert_eq!(bsc_pairs(b"5:", cut, &mut v), (vec![(5, 0)], true));
        // Types of 64 bits there.
        assert_eq!(
            bsc_pairs(b"4294967297:1", cut, &mut v),
            (vec![(4_294_967_297, 1)], false)
        );
        assert_eq!(
            bsc_pairs(b"60000019:N:60000119:N:42000050:7", cut, &mut v),
            (
                vec![(60_000_019, 0), (0, 60_000_119), (0, 0), (42_000_050, 7)],
                false
            )
        );
    }

    #[test]
    fn only_event_lines_with_other_bytes_are_rewritten() {
        let text = "#Paraver (01/01/2026 at 00:00):100_ns:1(1):1:1(1:1)\n\
                    1:1:1:1:1:0:10:N\n\
                    2:1:1:1:1:5:7:N\n\
                    2:1:1:1:1:6:7:N:8:0:9:1\n\
                    2:1:1:1:1:7:7:1:8:2\n\
                    2:1:1:1:1:8:N:N\n\
                    3:1:1:1:1:9:9:1:1:1:1:10:10:4:1\n";
        let mut out = Vec::new();
        let view = bsc_view(&mut text.as_bytes(), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "#Paraver (01/01/2026 at 00:00):100_ns:1(1):1:1(1:1)\n\
             1:1:1:1:1:0:10:N\n\
             2:1:1:1:1:5:7:0\n\
             2:1:1:1:1:6:7:0:0:8:0:9\n\
             2:1:1:1:1:7:7:1:8:2\n\
             2:1:1:1:1:8:0:0\n\
             3:1:1:1:1:9:9:1:1:1:1:10:10:4:1\n"
        );
        assert_eq!(
            view,
            BscView {
                lines_rewritten: 3,
                lines_failed: 2,
                lines_left_out: 0,
            }
        );
    }
}

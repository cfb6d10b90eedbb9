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

/// The event pairs of `pairs` (the text of an event line after its time's `:`) as
/// paraver-kernel's `readEvent` reads them: the pairs read, and whether a pair failed (the
/// rest of the line then read no further).
pub fn bsc_event_pairs(pairs: &[u8]) -> (Vec<(u32, i64)>, bool) {
    let at = |i: usize| pairs.get(i).copied().unwrap_or(0);
    let mut out = Vec::new();
    let mut i = 0;
    while i < pairs.len() {
        // The type: unsigned, so a '-' fails it.
        if at(i) == b'-' {
            return (out, true);
        }
        let mut ty = 0u32;
        while at(i).is_ascii_digit() {
            ty = ty.wrapping_mul(10).wrapping_add(u32::from(at(i) - b'0'));
            i += 1;
        }
        // A value must follow.
        if i >= pairs.len() {
            return (out, true);
        }
        i += 1;
        if i >= pairs.len() {
            return (out, true);
        }
        let negative = at(i) == b'-';
        if negative {
            i += 1;
        }
        let mut value = 0i64;
        while at(i).is_ascii_digit() {
            value = value.wrapping_mul(10).wrapping_add(i64::from(at(i) - b'0'));
            i += 1;
        }
        if negative {
            value = value.wrapping_neg();
        }
        if i < pairs.len() {
            // The byte after the value, whatever it is, is the separator.
            i += 1;
        }
        out.push((ty, value));
    }
    (out, false)
}

/// Where an event line's pairs start: after its sixth field (`2:cpu:appl:task:thread:time:`),
/// `None` when it has no pairs.
fn pairs_start(line: &[u8]) -> Option<usize> {
    let mut colons = 0;
    for (k, &b) in line.iter().enumerate() {
        if b == b':' {
            colons += 1;
            if colons == 6 {
                return Some(k + 1);
            }
        }
    }
    None
}

/// Copies the trace text of `input` to `out`, each event line whose pairs hold a byte other
/// than digits and `:` written with the pairs BSC's paramedir reads there (see the module's
/// documentation); every other line as it is.
pub fn bsc_view(input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<BscView> {
    let mut view = BscView::default();
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let header = std::mem::take(&mut first);
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let start = (!header && body.starts_with(b"2:"))
            .then(|| pairs_start(body))
            .flatten();
        let Some(start) =
            start.filter(|&s| body[s..].iter().any(|&b| !b.is_ascii_digit() && b != b':'))
        else {
            out.write_all(&line)?;
            continue;
        };
        let (pairs, failed) = bsc_event_pairs(&body[start..]);
        view.lines_rewritten += 1;
        view.lines_failed += u64::from(failed);
        if pairs.is_empty() {
            view.lines_left_out += 1;
            continue;
        }
        out.write_all(&body[..start - 1])?;
        for (ty, value) in pairs {
            write!(out, ":{ty}:{value}")?;
        }
        out.write_all(b"\n")?;
    }
    Ok(view)
}

#[cfg(test)]
mod tests {
    use super::{BscView, bsc_event_pairs, bsc_view};

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

//! A trace line's `:`-separated fields as numbers, read as Paraver reads them (0 where a
//! field is not a number; spaces around a number allowed), a word of eight bytes at a time:
//! the `:` found in a word without a test per byte, up to 16 digits converted in two words.
// Left to itself the compiler calls the field parse once per field: a fifth of a cut's time.
#![allow(clippy::inline_always)]

use prvscope_import::prv::scan::{BLOCK, Backend};

/// The eight bytes of `b` from `at` as a little-endian word.
#[inline(always)]
fn word(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Where the first `:` of `line` at or after `p` is (`line.len()` when none).
#[inline(always)]
fn next_colon(line: &[u8], mut p: usize) -> usize {
    while p + 8 <= line.len() {
        let x = word(line, p) ^ (ONES * u64::from(b':'));
        // The lowest byte of `x` that is 0 sets its high bit (those above it may be wrong).
        let m = x.wrapping_sub(ONES) & !x & HIGH;
        if m != 0 {
            return p + (m.trailing_zeros() / 8) as usize;
        }
        p += 8;
    }
    p + line[p..]
        .iter()
        .position(|&b| b == b':')
        .unwrap_or(line.len() - p)
}

/// The last `n` (1 to 8) bytes of `w` as digits, `None` when one is not a digit.
#[inline(always)]
fn digits8(w: u64, n: usize) -> Option<u64> {
    let keep = u64::MAX << ((64 - 8 * n) & 63);
    let x = (w ^ (ONES * u64::from(b'0'))) & keep;
    // A byte over 9 sets its high bit here (the lowest one does: the bytes under it carry
    // nothing).
    if (x | x.wrapping_add(ONES * 0x76)) & HIGH & keep != 0 {
        return None;
    }
    // Lemire's eight-digit conversion.
    let x = x.wrapping_mul(10) + (x >> 8);
    let pairs = 0x0000_00FF_0000_00FF;
    Some(
        ((x & pairs).wrapping_mul(100 + (1_000_000 << 32))
            + ((x >> 16) & pairs).wrapping_mul(1 + (10_000 << 32)))
            >> 32,
    )
}

/// The field `line[s..e]` as a number.
#[inline(always)]
fn value(line: &[u8], s: usize, e: usize) -> u64 {
    let n = e - s;
    let fast = match n {
        1 => {
            let d = line[s].wrapping_sub(b'0');
            (d <= 9).then_some(u64::from(d))
        }
        2..=8 if e >= 8 => digits8(word(line, e - 8), n),
        9..=16 if e >= 16 => digits8(word(line, e - 16), n - 8)
            .zip(digits8(word(line, e - 8), 8))
            .map(|(hi, lo)| hi * 100_000_000 + lo),
        _ => None,
    };
    fast.unwrap_or_else(|| number(&line[s..e]))
}

/// A line's fields as numbers.
pub(super) fn numbers(line: &[u8], out: &mut Vec<u64>) {
    out.clear();
    let mut start = 0;
    loop {
        let end = next_colon(line, start);
        out.push(value(line, start, end));
        if end == line.len() {
            return;
        }
        start = end + 1;
    }
}

/// The first fields of a line, read as numbers and no further.
pub(super) struct Fields {
    pub(super) v: [u64; 15],
    /// Where each field begins; `at[n]`: where the field after the last read begins (the
    /// line's length + 1 when the line ends there).
    pub(super) at: [usize; 16],
    /// Fields read: at most the number asked for.
    pub(super) n: usize,
}

impl Fields {
    /// Field `k`'s text (`k < n`).
    pub(super) fn text<'l>(&self, line: &'l [u8], k: usize) -> &'l [u8] {
        &line[self.at[k]..self.at[k + 1] - 1]
    }
}

/// Where the first fields of a line begin, their values not read.
pub(super) struct Split {
    /// Where each field begins; `at[n]`: where the field after the last found begins (the
    /// line's length + 1 when the line ends there).
    pub(super) at: [usize; 16],
    /// Fields found: at most the number asked for.
    pub(super) n: usize,
}

impl Split {
    /// Field `k`'s value (`k < n`).
    #[inline(always)]
    pub(super) fn num(&self, line: &[u8], k: usize) -> u64 {
        value(line, self.at[k], self.at[k + 1] - 1)
    }
}

/// Finds the first `want` (at most 15) fields of `line`.
#[inline(always)]
pub(super) fn split(line: &[u8], want: usize) -> Split {
    let want = want.clamp(1, 15);
    let mut r = Split { at: [0; 16], n: 0 };
    let mut start = 0;
    while r.n < want {
        let end = next_colon(line, start);
        r.n += 1;
        r.at[r.n] = end + 1;
        if end == line.len() {
            break;
        }
        start = end + 1;
    }
    r
}

/// The separators of a text from the structural scanner of `prvscope_import::prv::scan`,
/// one bit a byte: the bytes that are `:` and those that are `\n`. A line is split on them
/// without looking at its bytes one by one.
pub(super) struct Marks {
    colons: Vec<u64>,
    ends: Vec<u64>,
}

/// The first bit set in `words` at or after bit `p`.
#[inline(always)]
fn next_bit(words: &[u64], p: usize) -> Option<usize> {
    let mut k = p / BLOCK;
    let mut bits = words.get(k)? & (u64::MAX << (p % BLOCK));
    while bits == 0 {
        k += 1;
        bits = *words.get(k)?;
    }
    Some(k * BLOCK + bits.trailing_zeros() as usize)
}

impl Marks {
    /// The marks of `text`.
    pub(super) fn of(text: &[u8]) -> Marks {
        let mut marks = Marks {
            colons: Vec::new(),
            ends: Vec::new(),
        };
        marks.scan(text);
        marks
    }

    /// The marks of `text` in place of those held (their room kept).
    pub(super) fn scan(&mut self, text: &[u8]) {
        self.colons.clear();
        self.ends.clear();
        Backend::detect().scan_separators(text, &mut self.colons, &mut self.ends);
    }

    /// Where the first `\n` of the text at or after `p` is.
    #[inline(always)]
    pub(super) fn line_end(&self, p: usize) -> Option<usize> {
        next_bit(&self.ends, p)
    }

    /// The line of `text` (the text the marks are of) that begins at `p`, split as
    /// [`split`] splits it into its first `want` (at most 15) fields, and where it ends (its
    /// `\n`): `None` where the line has no `\n` (the caller reads that line byte-wise).
    #[inline(always)]
    pub(super) fn split_at(
        &self,
        text: &[u8],
        p: usize,
        want: usize,
        r: &mut Split,
    ) -> Option<usize> {
        let want = want.clamp(1, 15);
        let nl = next_bit(&self.ends, p).filter(|&nl| nl < text.len())?;
        // The fields end at the line's `:` before its end, then at its end.
        let mut k = p / BLOCK;
        let mut bits = self.colons.get(k)? & (u64::MAX << (p % BLOCK));
        r.n = 0;
        while r.n < want {
            while bits == 0 && k * BLOCK < nl {
                k += 1;
                bits = self.colons.get(k).copied().unwrap_or(0);
            }
            let c = if bits == 0 {
                nl
            } else {
                (k * BLOCK + bits.trailing_zeros() as usize).min(nl)
            };
            bits &= bits.wrapping_sub(1);
            r.n += 1;
            r.at[r.n] = c - p + 1;
            if c == nl {
                break;
            }
        }
        Some(nl)
    }
}

/// Reads the first `want` (at most 15) fields of `line`.
#[inline(always)]
pub(super) fn head(line: &[u8], want: usize) -> Fields {
    let sp = split(line, want);
    let mut v = [0; 15];
    for (k, v) in v.iter_mut().enumerate().take(sp.n) {
        *v = sp.num(line, k);
    }
    Fields {
        v,
        at: sp.at,
        n: sp.n,
    }
}

/// A field as a number: its digits (the common case, one pass), or a number with spaces
/// around it; 0 for anything else.
fn number(field: &[u8]) -> u64 {
    let mut v = 0u64;
    for &b in field {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            let f = field.trim_ascii();
            return if !f.is_empty() && f.iter().all(u8::is_ascii_digit) {
                f.iter().fold(0u64, |v, &b| {
                    v.wrapping_mul(10).wrapping_add(u64::from(b - b'0'))
                })
            } else {
                0
            };
        }
        v = v.wrapping_mul(10).wrapping_add(u64::from(d));
    }
    v
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// The fields as a plain split reads them.
    fn naive(line: &[u8]) -> Vec<u64> {
        line.split(|&b| b == b':').map(super::number).collect()
    }

    proptest! {
        #[test]
        fn fields_read_as_a_split_reads_them(
            line in proptest::collection::vec(
                prop_oneof![
                    8 => proptest::sample::select(b"0123456789".to_vec()),
                    3 => Just(b':'),
                    1 => proptest::sample::select(b" N-x\r#/".to_vec()),
                ],
                0..90,
            )
        ) {
            let want = naive(&line);
            // The marks split each line of a text that ends as `split` does.
            let mut text = line.clone();
            text.push(b'\n');
            text.extend_from_slice(&line);
            let marks = super::Marks::of(&text);
            let mut p = 0;
            while p < text.len() {
                let nl = text[p..].iter().position(|&b| b == b'\n').map(|i| p + i);
                let l = &text[p..nl.unwrap_or(text.len())];
                for k in 1..=15 {
                    let mut sp = super::Split { at: [0; 16], n: 0 };
                    if let Some(end) = marks.split_at(&text, p, k, &mut sp) {
                        let plain = super::split(l, k);
                        prop_assert_eq!(Some(end), nl);
                        prop_assert_eq!(sp.n, plain.n);
                        prop_assert_eq!(&sp.at[..=sp.n], &plain.at[..=plain.n]);
                    } else if nl.is_some() {
                        prop_assert!(false, "a line with its end left to the byte-wise split");
                    }
                }
                p = nl.map_or(text.len(), |n| n + 1);
            }
            let mut got = Vec::new();
            super::numbers(&line, &mut got);
            prop_assert_eq!(&got, &want);
            for k in 1..=15 {
                let h = super::head(&line, k);
                prop_assert_eq!(h.n, want.len().min(k));
                prop_assert_eq!(&h.v[..h.n], &want[..h.n]);
                let texts: Vec<&[u8]> = line.split(|&b| b == b':').collect();
                for i in 0..h.n {
                    prop_assert_eq!(h.text(&line, i), texts[i]);
                }
            }
        }
    }

    #[test]
    fn long_numbers_and_padded_times() {
        for s in [
            "18446744073709551615",
            "00000000022816294512",
            "9999999999999999",
            "12345678",
            "123456789",
            " 42 ",
            "",
        ] {
            let line = format!("2:{s}:{s}");
            let mut got = Vec::new();
            super::numbers(line.as_bytes(), &mut got);
            assert_eq!(got, naive(line.as_bytes()), "{s}");
        }
    }
}

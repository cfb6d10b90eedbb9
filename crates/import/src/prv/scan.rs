//! The structural scanner: one SIMD pass over the text marks, in a bitmask per 64-byte block,
//! every byte that is not an ASCII digit (in the manner of simdjson's first stage: Langdale
//! and Lemire, "Parsing Gigabytes of JSON per Second"). A Paraver record is digits between
//! `:` and `\n`, so the set bits are exactly its field separators, and anything unusual (a
//! sign, a letter, a space, `N`, `\r`) is a set bit the line parser sees where it expects a
//! `:` or a newline; it then hands the line to the byte-wise parser.
//!
//! Backends: AVX2 and SSE2 on x86-64 (chosen at run time), NEON on aarch64, and a portable
//! scalar one that every build has and the tests run beside the others. All give the same
//! masks ([`Backend::scan`]); bytes past the end of the text count as non-digits.

/// Bytes per mask word.
pub const BLOCK: usize = 64;

/// How a text's non-digit mask is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// The best the machine has ([`Backend::detect`]).
    #[default]
    Auto,
    /// Portable: eight bytes at a time in a `u64`.
    Scalar,
    /// x86-64's baseline: four 16-byte compares per block.
    Sse2,
    /// x86-64 with AVX2 (checked at run time): two 32-byte compares per block.
    Avx2,
    /// aarch64: four 16-byte compares per block.
    Neon,
}

impl Backend {
    /// The backend used for `Auto` on this machine.
    pub fn detect() -> Backend {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                return Backend::Avx2;
            }
            Backend::Sse2
        }
        #[cfg(target_arch = "aarch64")]
        {
            Backend::Neon
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            Backend::Scalar
        }
    }

    /// Every backend this machine can run (the scalar one first).
    pub fn available() -> Vec<Backend> {
        let mut out = vec![Backend::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            out.push(Backend::Sse2);
            if std::is_x86_feature_detected!("avx2") {
                out.push(Backend::Avx2);
            }
        }
        #[cfg(target_arch = "aarch64")]
        out.push(Backend::Neon);
        out
    }

    /// `Auto` made concrete; a backend this machine cannot run becomes the scalar one.
    #[must_use]
    pub fn resolve(self) -> Backend {
        match self {
            Backend::Auto => Backend::detect(),
            b if Backend::available().contains(&b) => b,
            _ => Backend::Scalar,
        }
    }

    /// Appends to `masks` one word per 64-byte block of `text` (the last block padded):
    /// bit `i` of word `k` is set when byte `64 k + i` is not an ASCII digit or lies past
    /// the end. The backend must be resolved ([`Backend::resolve`]).
    pub fn scan(self, text: &[u8], masks: &mut Vec<u64>) {
        masks.reserve(text.len().div_ceil(BLOCK));
        let whole = text.len() / BLOCK * BLOCK;
        let (body, rest) = text.split_at(whole);
        self.blocks(body, masks);
        if !rest.is_empty() {
            let mut last = [b'x'; BLOCK];
            if let Some(head) = last.get_mut(..rest.len()) {
                head.copy_from_slice(rest);
            }
            self.blocks(&last, masks);
        }
    }

    /// Appends to `colons` and `ends` one word per 64-byte block of `text` each: bit `i` of
    /// word `k` is set when byte `64 k + i` is `:` (`colons`), `\n` (`ends`); past the end of
    /// the text none is either. The backend must be resolved.
    pub fn scan_separators(self, text: &[u8], colons: &mut Vec<u64>, ends: &mut Vec<u64>) {
        let blocks = text.len().div_ceil(BLOCK);
        colons.reserve(blocks);
        ends.reserve(blocks);
        let whole = text.len() / BLOCK * BLOCK;
        let (body, rest) = text.split_at(whole);
        self.separator_blocks(body, colons, ends);
        if !rest.is_empty() {
            let mut last = [b'x'; BLOCK];
            if let Some(head) = last.get_mut(..rest.len()) {
                head.copy_from_slice(rest);
            }
            self.separator_blocks(&last, colons, ends);
        }
    }

    /// [`Backend::scan_separators`] of whole blocks.
    #[allow(unsafe_code)]
    fn separator_blocks(self, text: &[u8], colons: &mut Vec<u64>, ends: &mut Vec<u64>) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: SSE2 is part of x86-64's baseline.
            Backend::Sse2 => unsafe { x86::sse2_separator_blocks(text, colons, ends) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only chosen (resolve, detect) where the CPU has AVX2.
            Backend::Avx2 => unsafe { x86::avx2_separator_blocks(text, colons, ends) },
            _ => each_separator_block(text, colons, ends, |b| {
                (scalar_eq(b, b':'), scalar_eq(b, b'\n'))
            }),
        }
    }

    /// The masks of whole blocks (`text.len()` a multiple of [`BLOCK`]), the loop compiled
    /// inside each backend's target features so that its compares are inlined.
    // The SIMD backends call `std::arch` intrinsics, which are `unsafe` where the CPU
    // feature must be present.
    #[allow(unsafe_code)]
    fn blocks(self, text: &[u8], masks: &mut Vec<u64>) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: SSE2 is part of x86-64's baseline.
            Backend::Sse2 => unsafe { x86::sse2_blocks(text, masks) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only chosen (resolve, detect) where the CPU has AVX2.
            Backend::Avx2 => unsafe { x86::avx2_blocks(text, masks) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: NEON is part of aarch64's baseline.
            Backend::Neon => unsafe { arm::neon_blocks(text, masks) },
            _ => each_block(text, masks, scalar),
        }
    }
}

/// Pushes `f` of each whole 64-byte block of `text` (inlined into each backend's features).
#[allow(clippy::inline_always)]
#[inline(always)]
fn each_block(text: &[u8], masks: &mut Vec<u64>, f: impl Fn(&[u8; BLOCK]) -> u64) {
    for block in text.chunks_exact(BLOCK) {
        if let Some(block) = block.first_chunk::<BLOCK>() {
            masks.push(f(block));
        }
    }
}

/// Pushes the two masks `f` gives of each whole 64-byte block of `text`.
#[allow(clippy::inline_always)]
#[inline(always)]
fn each_separator_block(
    text: &[u8],
    colons: &mut Vec<u64>,
    ends: &mut Vec<u64>,
    f: impl Fn(&[u8; BLOCK]) -> (u64, u64),
) {
    for block in text.chunks_exact(BLOCK) {
        if let Some(block) = block.first_chunk::<BLOCK>() {
            let (c, e) = f(block);
            colons.push(c);
            ends.push(e);
        }
    }
}

/// The bytes of a block equal to `b`, eight at a time: a byte of `x ^ b` is zero exactly
/// when its low seven bits plus 0x7F leave its high bit clear and its own high bit is clear.
#[inline(always)]
fn scalar_eq(block: &[u8; BLOCK], b: u8) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        let Some(word) = word.first_chunk::<8>() else {
            break;
        };
        let x = u64::from_le_bytes(*word) ^ (u64::from(b) * 0x0101_0101_0101_0101);
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        let bits = (((zero >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56) & 0xFF;
        mask |= bits << (8 * k);
    }
    mask
}

/// The definition of [`Backend::scan_separators`]'s `:` and `\n` masks, one byte at a time.
pub fn naive_eq(text: &[u8], b: u8) -> Vec<u64> {
    (0..text.len().div_ceil(BLOCK))
        .map(|k| {
            (0..BLOCK).fold(0u64, |m, i| {
                m | (u64::from(text.get(k * BLOCK + i) == Some(&b)) << i)
            })
        })
        .collect()
}

/// The definition, one byte at a time (the tests' reference).
pub fn naive(text: &[u8]) -> Vec<u64> {
    (0..text.len().div_ceil(BLOCK))
        .map(|k| {
            (0..BLOCK).fold(0u64, |m, i| {
                let digit = text.get(k * BLOCK + i).is_some_and(u8::is_ascii_digit);
                m | (u64::from(!digit) << i)
            })
        })
        .collect()
}

/// Eight bytes at a time: a byte is a digit when subtracting `'0'` does not wrap and adding
/// 0x76 to the difference leaves the high bit clear (as in the SWAR number parser), computed
/// without carries between bytes.
#[inline(always)]
fn scalar(block: &[u8; BLOCK]) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        let Some(word) = word.first_chunk::<8>() else {
            break;
        };
        let x = u64::from_le_bytes(*word);
        // Per byte, without carries: high bit of x set, or low 7 bits below '0' (0x30), or
        // above '9' (0x39).
        let low = x & LOW7;
        let below = !(low + (0x80 - 0x30) * 0x0101_0101_0101_0101) & HIGH;
        let above = (low + (0x80 - 0x3A) * 0x0101_0101_0101_0101) & HIGH;
        let non_digit = (x | below | above) & HIGH;
        // Gather the eight high bits (bit 7 of byte i to bit 56 + i).
        let bits = (((non_digit >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56) & 0xFF;
        mask |= bits << (8 * k);
    }
    mask
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
// `_mm_loadu_si128` and `_mm256_loadu_si256` take `__m128i`/`__m256i` pointers but load unaligned.
#[allow(clippy::cast_ptr_alignment)]
mod x86 {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8,
        _mm_set1_epi8, _mm_sub_epi8, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8,
        _mm256_movemask_epi8, _mm256_set1_epi8, _mm256_sub_epi8,
    };

    use super::{BLOCK, each_block, each_separator_block};

    /// [`sse2_separators`] over whole blocks.
    #[target_feature(enable = "sse2")]
    pub(super) fn sse2_separator_blocks(text: &[u8], colons: &mut Vec<u64>, ends: &mut Vec<u64>) {
        each_separator_block(text, colons, ends, |b| sse2_separators(b));
    }

    /// [`avx2_separators`] over whole blocks.
    #[target_feature(enable = "avx2")]
    pub(super) fn avx2_separator_blocks(text: &[u8], colons: &mut Vec<u64>, ends: &mut Vec<u64>) {
        each_separator_block(text, colons, ends, |b| avx2_separators(b));
    }

    /// SSE2: the bytes equal to `:` and to `\n`, on each 16-byte quarter.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn sse2_separators(block: &[u8; BLOCK]) -> (u64, u64) {
        let colon = _mm_set1_epi8(b':'.cast_signed());
        let nl = _mm_set1_epi8(b'\n'.cast_signed());
        let (mut colons, mut ends) = (0u64, 0u64);
        for k in 0..4 {
            // SAFETY: bytes 16 k .. 16 k + 16 lie in the 64-byte block; unaligned loads.
            let x = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>()) };
            colons |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(x, colon)) as u16) << (16 * k);
            ends |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(x, nl)) as u16) << (16 * k);
        }
        (colons, ends)
    }

    /// AVX2: the same compares on two 32-byte halves.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn avx2_separators(block: &[u8; BLOCK]) -> (u64, u64) {
        let colon = _mm256_set1_epi8(b':'.cast_signed());
        let nl = _mm256_set1_epi8(b'\n'.cast_signed());
        let (mut colons, mut ends) = (0u64, 0u64);
        for k in 0..2 {
            // SAFETY: bytes 32 k .. 32 k + 32 lie in the 64-byte block; unaligned loads.
            let x = unsafe { _mm256_loadu_si256(block.as_ptr().add(32 * k).cast::<__m256i>()) };
            colons |=
                u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, colon)) as u32) << (32 * k);
            ends |= u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, nl)) as u32) << (32 * k);
        }
        (colons, ends)
    }

    /// [`sse2`] over whole blocks.
    #[target_feature(enable = "sse2")]
    pub(super) fn sse2_blocks(text: &[u8], masks: &mut Vec<u64>) {
        each_block(text, masks, |b| sse2(b));
    }

    /// [`avx2`] over whole blocks.
    #[target_feature(enable = "avx2")]
    pub(super) fn avx2_blocks(text: &[u8], masks: &mut Vec<u64>) {
        each_block(text, masks, |b| avx2(b));
    }

    /// SSE2: `x - '0'` is a digit's value when at most 9 (unsigned: `max(d, 9) == 9`).
    #[target_feature(enable = "sse2")]
    #[inline]
    fn sse2(block: &[u8; BLOCK]) -> u64 {
        let zero = _mm_set1_epi8(b'0'.cast_signed());
        let nine = _mm_set1_epi8(9);
        let mut digits = 0u64;
        for k in 0..4 {
            // SAFETY: bytes 16 k .. 16 k + 16 lie in the 64-byte block; unaligned loads.
            let x = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>()) };
            let d = _mm_sub_epi8(x, zero);
            let is = _mm_cmpeq_epi8(_mm_max_epu8(d, nine), nine);
            digits |= u64::from(_mm_movemask_epi8(is) as u16) << (16 * k);
        }
        !digits
    }

    /// AVX2: the same test on two 32-byte halves.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn avx2(block: &[u8; BLOCK]) -> u64 {
        let zero = _mm256_set1_epi8(b'0'.cast_signed());
        let nine = _mm256_set1_epi8(9);
        let mut digits = 0u64;
        for k in 0..2 {
            // SAFETY: bytes 32 k .. 32 k + 32 lie in the 64-byte block; unaligned loads.
            let x = unsafe { _mm256_loadu_si256(block.as_ptr().add(32 * k).cast::<__m256i>()) };
            let d = _mm256_sub_epi8(x, zero);
            let is = _mm256_cmpeq_epi8(_mm256_max_epu8(d, nine), nine);
            digits |= u64::from(_mm256_movemask_epi8(is) as u32) << (32 * k);
        }
        !digits
    }
}

#[cfg(target_arch = "aarch64")]
#[allow(unsafe_code)]
mod arm {
    use std::arch::aarch64::{
        uint8x16_t, vandq_u8, vcgtq_u8, vdupq_n_u8, vgetq_lane_u64, vld1q_u8, vpaddq_u8,
        vreinterpretq_u64_u8, vsubq_u8,
    };

    use super::{BLOCK, each_block};

    /// [`neon`] over whole blocks.
    #[target_feature(enable = "neon")]
    pub(super) fn neon_blocks(text: &[u8], masks: &mut Vec<u64>) {
        each_block(text, masks, |b| neon(b));
    }

    /// NEON: `x - '0' > 9` (unsigned) marks non-digits; the four 16-byte masks are packed to
    /// 64 bits by weighting each byte with its bit and adding neighbours three times.
    #[target_feature(enable = "neon")]
    #[inline]
    fn neon(block: &[u8; BLOCK]) -> u64 {
        const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        // SAFETY: every load reads 16 bytes inside the 64-byte block or the weights.
        unsafe {
            let weights = vld1q_u8(WEIGHTS.as_ptr());
            let zero = vdupq_n_u8(b'0');
            let nine = vdupq_n_u8(9);
            let part = |k: usize| -> uint8x16_t {
                let x = vld1q_u8(block.as_ptr().add(16 * k));
                vandq_u8(vcgtq_u8(vsubq_u8(x, zero), nine), weights)
            };
            let (a, b, c, d) = (part(0), part(1), part(2), part(3));
            let ab = vpaddq_u8(a, b);
            let cd = vpaddq_u8(c, d);
            let abcd = vpaddq_u8(ab, cd);
            let all = vpaddq_u8(abcd, abcd);
            vgetq_lane_u64::<0>(vreinterpretq_u64_u8(all))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &[u8]) {
        let want = naive(text);
        for backend in Backend::available() {
            let (mut colons, mut ends) = (Vec::new(), Vec::new());
            backend.scan_separators(text, &mut colons, &mut ends);
            let shown = String::from_utf8_lossy(text);
            assert_eq!(colons, naive_eq(text, b':'), "{backend:?} on {shown:?}");
            assert_eq!(ends, naive_eq(text, b'\n'), "{backend:?} on {shown:?}");
            let mut got = Vec::new();
            backend.scan(text, &mut got);
            assert_eq!(
                got,
                want,
                "{backend:?} on {:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn every_byte_value_in_every_position() {
        // Each of the 256 byte values at each of the 64 positions of a block, among digits.
        for value in 0..=255u8 {
            let mut text = vec![b'5'; 3 * BLOCK + 17];
            for i in 0..BLOCK {
                text.fill(b'5');
                text[BLOCK + i] = value;
                check(&text);
            }
        }
    }

    #[test]
    fn any_length_and_paraver_lines() {
        let line =
            b"2:24:1:6:4:46:60000019:5:60000119:N:42000050:113785\r\n1:9:1:3:1:1230:127280:1\n";
        for len in 0..line.len() {
            check(&line[..len]);
        }
        // Bytes around '0' and '9', and the high half, where the wrapping tricks could slip.
        let edges: Vec<u8> = (0..=255u8).chain((b'/'..=b':').rev()).collect();
        for start in 0..8 {
            check(&edges[start..]);
        }
    }

    #[test]
    fn random_bytes_match_the_definition() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for len in [1usize, 63, 64, 65, 127, 128, 1000, 4099] {
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Mostly digits and separators, with any byte now and then.
                    match x % 8 {
                        0 => b':',
                        1 => b'\n',
                        2 => (x >> 8) as u8,
                        _ => b'0' + (x >> 16) as u8 % 10,
                    }
                })
                .collect();
            check(&text);
        }
    }

    #[test]
    fn auto_resolves_to_a_backend_this_machine_runs() {
        let b = Backend::Auto.resolve();
        assert!(Backend::available().contains(&b), "{b:?}");
        assert_ne!(b, Backend::Auto);
    }
}

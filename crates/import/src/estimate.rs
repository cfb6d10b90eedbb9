//! Before loading: how much memory will the load need, and does the machine have it?
//!
//! The estimate comes from the size of the trace text (for `.xz`/`.gz`, from the ratio of a
//! decoded sample), the number of threads in the header and the number of workers, with
//! factors measured on generated and real traces (release build, peak resident size of
//! `prvscope info`):
//!
//! | trace | text | threads | peak, 2 workers | peak, 16 workers |
//! |---|---|---|---|---|
//! | generated | 1000 MB | 64 | 434 MB | 479 MB |
//! | generated | 1000 MB | 4096 | 581 MB | 1135 MB |
//! | `ovni_gen_large_4x16` (`.xz`) | 282 MB | 64 | 145 MB | 209 MB |
//! | `ovni_gen_large_4x16` unpacked, times padded to 20 digits | 392 MB | 64 | 108 MB | 172 MB |
//!
//! (16 workers: `RAYON_NUM_THREADS=16` on 2 cores; measured with 512 kB reads and the
//! messages joined chunk by chunk.) Each worker holds a read window, its grouping scratch
//! and the runs of the chunk it parses (a piece per thread and type), so the peak is taken as
//!
//! `0.45 x text + workers x (4 MB + 9 kB x threads) + 20 kB x threads + 16 MB`
//!
//! (a worker's share at most its share of the text), from 6% to 14% above each measurement
//! but the padded one: longer lines need less per byte of text (108 MB against 204 MB
//! estimated). The memory available is Linux's `MemAvailable`, or less when a control group
//! limits the process.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::source::{Compression, PlainFile};
use prvscope_format::Header;
use prvscope_format::Subset;

/// Peak memory of a load per byte of trace text.
const PEAK_PER_TEXT_BYTE: f64 = 0.45;
/// Peak memory of a load per thread (its share of the pieces' overhead and assembly).
const PEAK_PER_THREAD: u64 = 20 << 10;
/// Peak memory per worker (its read window and scratch), and per worker and thread (the
/// runs of each thread in the chunk a worker parses).
const PEAK_PER_WORKER: u64 = 4 << 20;
const PEAK_PER_WORKER_THREAD: u64 = 9 << 10;
/// What any load needs besides (tables, threads, the side files).
const PEAK_BASE: u64 = 16 << 20;
/// The largest `.xz` index believed: 64 MB is some 4 million blocks.
const MAX_XZ_INDEX: u64 = 64 << 20;

/// What a load of a trace (or of part of it) is expected to need.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryEstimate {
    /// Size of the file.
    pub file_bytes: u64,
    pub compression: Compression,
    /// Size of the trace text (exact for plain files, from a sample for compressed ones).
    pub text_bytes: u64,
    /// The header, when it could be read (for the trace's duration and threads).
    pub header: Option<Header>,
    /// Peak memory a load of the whole trace is expected to take.
    pub whole_bytes: u64,
    /// Memory the machine has available now, when known.
    pub available_bytes: Option<u64>,
}

impl MemoryEstimate {
    /// Expected peak memory of loading `subset`, supposing records spread evenly over time
    /// and threads.
    pub fn bytes_for(&self, subset: &Subset) -> u64 {
        let Some(h) = &self.header else {
            return self.whole_bytes;
        };
        let mut share = 1.0;
        if h.end_time > 0 {
            let from = subset.from.unwrap_or(0).min(h.end_time);
            let to = subset.to.unwrap_or(h.end_time).min(h.end_time);
            share *= to.saturating_sub(from) as f64 / h.end_time as f64;
        }
        let threads = h.thread_count();
        let loaded = subset
            .threads
            .as_ref()
            .and_then(|spec| {
                spec.resolve(&prvscope_format::RowMap::new(h))
                    .ok()
                    .map(|k| k.iter().filter(|&&x| x).count())
            })
            .unwrap_or(threads);
        if loaded < threads {
            share *= loaded as f64 / threads as f64;
        }
        peak((self.text_bytes as f64 * share) as u64, loaded as u64)
    }

    /// True when loading the whole trace is expected to need more than is available.
    pub fn too_large(&self) -> bool {
        self.available_bytes.is_some_and(|a| self.whole_bytes > a)
    }

    /// A time range from the start that is expected to fit in `budget` bytes (the whole
    /// trace when it fits, at least 1 tick).
    pub fn range_that_fits(&self, budget: u64) -> Option<(u64, u64)> {
        let h = self.header.as_ref()?;
        // The workers' share is at most their full windows, whatever the range.
        let workers = rayon::current_num_threads().max(1) as u64;
        let threads = h.thread_count() as u64;
        let per_worker =
            PEAK_PER_WORKER.saturating_add(threads.saturating_mul(PEAK_PER_WORKER_THREAD));
        let fixed = peak(0, threads).saturating_add(workers.saturating_mul(per_worker));
        let text_budget = budget.saturating_sub(fixed) as f64 / PEAK_PER_TEXT_BYTE;
        let share = (text_budget / self.text_bytes.max(1) as f64).clamp(0.0, 1.0);
        // f64 rounds up near 2^64: the range stays within the trace.
        Some((
            0,
            ((h.end_time as f64 * share) as u64).min(h.end_time).max(1),
        ))
    }

    /// The message shown when the whole trace does not fit, with what can be done instead.
    pub fn advice(&self, path: &Path) -> String {
        let mut s = format!(
            "{}: loading it needs about {} of memory ({} of trace text), and this machine has {} available.",
            path.display(),
            human_bytes(self.whole_bytes),
            human_bytes(self.text_bytes),
            self.available_bytes
                .map_or_else(|| "less".into(), human_bytes),
        );
        if let Some(h) = &self.header {
            let _ = write!(
                s,
                " Load part of it: a time range (it lasts {} {}",
                h.end_time, h.time_unit
            );
            if let Some((from, to)) = self
                .available_bytes
                .and_then(|a| self.range_that_fits(a / 10 * 8))
            {
                let _ = write!(s, "; about {from} to {to} fits");
            }
            let _ = write!(s, ") or some of its {} threads.", h.thread_count());
        }
        s
    }
}

/// Peak memory of loading `text` bytes of `threads` threads with the loader's workers.
fn peak(text: u64, threads: u64) -> u64 {
    peak_with(text, threads, rayon::current_num_threads() as u64)
}

/// Peak memory of loading `text` bytes of `threads` threads with `workers` workers.
fn peak_with(text: u64, threads: u64, workers: u64) -> u64 {
    let workers = workers.max(1);
    // A worker holds no more than its share of the text (so the estimate of a small trace
    // does not depend on the machine).
    let per_worker = PEAK_PER_WORKER
        .saturating_add(threads.saturating_mul(PEAK_PER_WORKER_THREAD))
        .min(text / workers);
    (text as f64 * PEAK_PER_TEXT_BYTE) as u64
        + workers.saturating_mul(per_worker)
        + threads.saturating_mul(PEAK_PER_THREAD)
        + PEAK_BASE
}

/// The most trace text of `threads` threads a batch of a conversion ([`crate::convert`])
/// may hold for its parse to peak at no more than `budget` bytes (at least 8 MB).
pub fn batch_that_fits(budget: u64, threads: u64) -> u64 {
    let workers = rayon::current_num_threads().max(1) as u64;
    let fixed = workers
        .saturating_mul(
            PEAK_PER_WORKER.saturating_add(threads.saturating_mul(PEAK_PER_WORKER_THREAD)),
        )
        .saturating_add(threads.saturating_mul(PEAK_PER_THREAD))
        .saturating_add(PEAK_BASE);
    let text = (budget.saturating_sub(fixed) as f64 / PEAK_PER_TEXT_BYTE) as u64;
    text.max(8 << 20)
}

use prvscope_format::units::human_bytes;

/// Estimates the memory loading `path` takes, reading its header (and, for a compressed
/// file without an index of sizes, decoding a sample of up to 16 MB).
pub fn estimate(path: &Path) -> io::Result<MemoryEstimate> {
    let file = File::open(path)?;
    let file_bytes = file.metadata()?.len();
    let mut head = [0u8; 6];
    let n = (&file).take(6).read(&mut head)?;
    let compression = Compression::sniff(head.get(..n).unwrap_or(&[]));
    let available_bytes = available_memory();
    let (text_bytes, first_line) = match compression {
        Compression::None => {
            let plain = PlainFile::new(file, file_bytes);
            let (line, _) = plain.read_first_line_up_to(1 << 20)?;
            (file_bytes, line)
        }
        Compression::Xz | Compression::Gzip => {
            let exact = match compression {
                // The index at the end of each stream holds the exact size.
                Compression::Xz => xz_text_size(&File::open(path)?, file_bytes),
                _ => None,
            };
            // Otherwise the ratio of a decoded sample (and, for gzip, the size modulo 2^32
            // its last member ends with) gives it.
            let sample = decode_sample(File::open(path)?, compression, exact.is_none());
            let text = if let Some(n) = exact {
                n
            } else if sample.complete {
                sample.output.len() as u64
            } else {
                let n = (file_bytes as f64 * sample.output.len() as f64
                    / sample.input.max(1) as f64) as u64;
                match compression {
                    Compression::Gzip => {
                        gzip_text_size(&File::open(path)?, file_bytes, n).unwrap_or(n)
                    }
                    _ => n,
                }
            };
            let line = match memchr::memchr(b'\n', &sample.output) {
                Some(p) => sample.output.get(..p).unwrap_or(&[]).to_vec(),
                None => sample.output,
            };
            (text, line)
        }
    };
    let header = Header::parse(&first_line).ok();
    let threads = header.as_ref().map_or(0, |h| h.thread_count() as u64);
    Ok(MemoryEstimate {
        file_bytes,
        compression,
        text_bytes,
        whole_bytes: peak(text_bytes, threads),
        header,
        available_bytes,
    })
}

/// The text size of an `.xz` file from the indexes of its streams (read from the end;
/// concatenated streams and stream padding included), or `None` when they cannot be read.
fn xz_text_size(file: &File, len: u64) -> Option<u64> {
    let read = |at: u64, n: usize| -> Option<Vec<u8>> {
        let mut buf = vec![0u8; n];
        let plain = PlainFile::new(file.try_clone().ok()?, len);
        (plain.read_at(at, &mut buf).ok()? == n).then_some(buf)
    };
    let varint = |b: &[u8], pos: &mut usize| -> Option<u64> {
        let mut v = 0u64;
        for i in 0..9 {
            let byte = *b.get(*pos)?;
            *pos += 1;
            v |= u64::from(byte & 0x7F) << (7 * i);
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    let mut end = len;
    let mut total = 0u64;
    while end > 0 {
        // Stream padding: zeros in multiples of four bytes.
        let tail = read(end.checked_sub(4)?, 4)?;
        if tail == [0, 0, 0, 0] {
            end -= 4;
            continue;
        }
        let footer = read(end.checked_sub(12)?, 12)?;
        if footer.get(10..12)? != b"YZ" {
            return None;
        }
        let backward = u64::from(u32::from_le_bytes(footer.get(4..8)?.try_into().ok()?));
        let index_size = (backward + 1) * 4;
        // An index takes a few bytes per block: a footer promising more is not believed
        // (it could ask for gigabytes).
        if index_size > MAX_XZ_INDEX {
            return None;
        }
        let index_start = end.checked_sub(12 + index_size)?;
        let index = read(index_start, usize::try_from(index_size).ok()?)?;
        let mut pos = 0;
        if *index.first()? != 0 {
            return None;
        }
        pos += 1;
        let records = varint(&index, &mut pos)?;
        let mut blocks = 0u64;
        for _ in 0..records {
            let unpadded = varint(&index, &mut pos)?;
            total = total.checked_add(varint(&index, &mut pos)?)?;
            blocks = blocks.checked_add(unpadded.div_ceil(4) * 4)?;
        }
        // Back over the blocks and the 12-byte stream header to the previous stream.
        end = index_start.checked_sub(blocks + 12)?;
    }
    Some(total)
}

/// The text size of a `.gz` file: the size modulo 2^32 its last member ends with, plus the
/// multiple of 2^32 that brings it closest to `guess`. Only when that is near the guess:
/// a file of many members (`bgzip`, or files joined with `cat`) ends with the size of its
/// last member alone.
fn gzip_text_size(file: &File, len: u64, guess: u64) -> Option<u64> {
    let mut buf = [0u8; 4];
    let plain = PlainFile::new(file.try_clone().ok()?, len);
    if plain.read_at(len.checked_sub(4)?, &mut buf).ok()? != 4 {
        return None;
    }
    let low = u64::from(u32::from_le_bytes(buf));
    let k = (guess.saturating_sub(low) as f64 / 4_294_967_296.0).round() as u64;
    let size = low.checked_add(k.checked_mul(1 << 32)?)?;
    (size >= guess / 2 && size / 2 <= guess).then_some(size)
}

struct Sample {
    /// Compressed bytes consumed.
    input: u64,
    output: Vec<u8>,
    /// The whole stream was decoded.
    complete: bool,
}

/// Decodes the start of a compressed file: its first line only, or (`big`) up to 16 MB of
/// text to measure the compression ratio.
fn decode_sample(file: File, compression: Compression, big: bool) -> Sample {
    struct Counted<R> {
        inner: R,
        n: u64,
    }
    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let k = self.inner.read(buf)?;
            self.n += k as u64;
            Ok(k)
        }
    }
    let limit: usize = if big { 16 << 20 } else { 1 << 20 };
    let counted = Counted {
        inner: io::BufReader::with_capacity(64 << 10, file),
        n: 0,
    };
    let mut output = vec![0u8; limit];
    let mut filled = 0;
    let (complete, input) = if compression == Compression::Xz {
        let mut r = liblzma::read::XzDecoder::new_multi_decoder(counted);
        let complete = fill(&mut r, &mut output, &mut filled, big);
        (complete, r.get_ref().n)
    } else {
        let mut r = flate2::read::MultiGzDecoder::new(counted);
        let complete = fill(&mut r, &mut output, &mut filled, big);
        (complete, r.get_ref().n)
    };
    output.truncate(filled);
    Sample {
        input,
        output,
        complete,
    }
}

/// The first line of the trace at `path` (decoding only its start when compressed), without
/// its newline.
pub fn first_line(path: &Path, compression: Compression) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let mut line = match compression {
        Compression::None => {
            let len = file.metadata()?.len();
            PlainFile::new(file, len).read_first_line_up_to(1 << 20)?.0
        }
        Compression::Xz | Compression::Gzip => decode_sample(file, compression, false).output,
    };
    if let Some(p) = memchr::memchr(b'\n', &line) {
        line.truncate(p);
    }
    Ok(line)
}

/// Reads into `out` until it is full (or, unless `whole`, a newline arrived); true when the
/// stream ended. A decoding error ends the sample.
fn fill(r: &mut impl Read, out: &mut [u8], filled: &mut usize, whole: bool) -> bool {
    while *filled < out.len() {
        match r.read(out.get_mut(*filled..).unwrap_or(&mut [])) {
            Ok(0) => return true,
            Ok(k) => {
                let new = out.get(*filled..*filled + k).unwrap_or(&[]);
                *filled += k;
                if !whole && memchr::memchr(b'\n', new).is_some() {
                    return false;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    false
}

/// Memory available to this process now: `MemAvailable`, or what the limits of the process's
/// own control group and those above it leave when that is less ([`crate::cgroup`]). `None`
/// where it is not known.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb = meminfo.lines().find_map(|l| {
        l.strip_prefix("MemAvailable:")?
            .trim()
            .strip_suffix("kB")?
            .trim()
            .parse::<u64>()
            .ok()
    })?;
    let available = kb * 1024;
    Some(crate::cgroup::headroom().map_or(available, |h| available.min(h)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_grows_with_text_threads_and_workers() {
        assert_eq!(peak_with(0, 0, 1), 16 << 20);
        assert_eq!(peak_with(1 << 30, 0, 2) - peak_with(1 << 30, 0, 1), 4 << 20);
        // The measured cases of the module documentation, estimated a little above.
        for (text, threads, workers, measured) in [
            (1_000_000_000, 64, 2, 434e6),
            (1_000_000_000, 64, 16, 479e6),
            (1_000_000_000, 4096, 2, 581e6),
            (1_000_000_000, 4096, 16, 1135e6),
            (282_396_914, 64, 2, 145e6),
            (282_396_914, 64, 16, 209e6),
        ] {
            let ratio = peak_with(text, threads, workers) as f64 / measured;
            assert!(
                (1.0..1.2).contains(&ratio),
                "{text} {threads} {workers}: {ratio}"
            );
        }
        assert_eq!(human_bytes(3 << 30), "3.22 GB");
        assert_eq!(human_bytes(5 << 20), "5.2 MB");
    }

    /// Found by fuzzing: a header whose only task has no thread made the estimate of the
    /// whole trace as a part (one thread counted) larger than the estimate of the whole.
    #[test]
    fn a_trace_without_threads_needs_no_more_as_a_part_than_whole() {
        let text = "#Paraver (19/01/38 at 03:14):1674880_ns:0:1:1(0:1)\n2:0:1:1:1:0:6:1\n";
        let path = std::env::temp_dir().join(format!(
            "prvscope-estimate-no-threads-{}.prv",
            std::process::id()
        ));
        std::fs::write(&path, text).unwrap();
        let e = estimate(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(e.header.as_ref().unwrap().thread_count(), 0);
        assert_eq!(e.bytes_for(&Subset::default()), e.whole_bytes);
        let half = Subset {
            from: Some(0),
            to: Some(837_440),
            threads: None,
        };
        assert!(e.bytes_for(&half) <= e.whole_bytes);
    }
}

//! The parallel parse of a plain file's chunks, each read by the worker that parses it.

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use crate::{LoadOptions, LoadProgress, prv, source};

thread_local! {
    /// Per worker thread: the buffer its pieces of a plain file are read into.
    static PIECE: std::cell::RefCell<source::Piece> = std::cell::RefCell::new(source::Piece::default());
}

/// The text read at a time, and the text whose records are encoded at once (a multiple of
/// reads), for a trace of `rows` threads parsed by `workers`.
///
/// Reads are `base` (`LoadOptions::read_window_bytes`, 512 kB): the positioned read copies
/// the text into a buffer that stays in L2 and the parse reads it from there. Measured on 2
/// cores (three or four alternating runs of `info --no-cache`): the generated 1 GB trace of
/// 64 threads 1.14-1.20 s with 512 kB or 1 MB windows against 1.18-1.28 s with 8 MB ones;
/// the ovni trace 0.25-0.30 s against 0.28-0.33 s.
///
/// With up to [`prv::DIRECT_MAX_ROWS`] threads, each read's records are encoded. With more,
/// records are grouped by (thread, type) before they are encoded, a cost per (thread, type)
/// and window that would otherwise be paid every few records: 16 times `base`, times the
/// thousands of threads, up to 4, while the workers' windows stay within 128 MB together (a
/// worker's scratch is a few times its window). Measured on a generated 1 GB trace of 4096
/// threads on 2 cores (one chunk per worker, reads as large as the windows then): 8 MB
/// windows loaded in 2.77-2.94 s with a peak of 729 MB, 32 MB windows in 2.28-2.42 s and
/// 702 MB, 64 MB windows in 2.25-2.38 s and 814 MB; with 16 workers, 32 MB windows peaked
/// at 2.2 GB.
pub(crate) fn windows(base: usize, rows: usize, workers: usize) -> (u64, u64) {
    let base = base.max(1) as u64;
    if rows <= prv::DIRECT_MAX_ROWS {
        return (base, base);
    }
    let grouped = base.saturating_mul(16);
    let scaled = grouped.saturating_mul((rows as u64 / 1024).clamp(1, 4));
    (
        base,
        scaled.min(grouped.max((128 << 20) / workers.max(1) as u64)),
    )
}

/// Parses the chunks of `file` that start at `starts` (byte offsets; each `chunk` bytes long,
/// the last one up to the file's end), in parallel, in file order. `None` when the load was
/// cancelled; an error when the file could not be read.
pub(crate) fn parse_chunks(
    file: &source::PlainFile,
    ctx: &prv::ParseContext<'_>,
    body_start: u64,
    starts: &[u64],
    chunk: u64,
    options: &LoadOptions,
    progress: &LoadProgress,
) -> std::io::Result<Option<Vec<prv::ChunkOut>>> {
    let read_error = std::sync::Mutex::new(None);
    let (window, encode) = windows(
        options.read_window_bytes,
        ctx.rows.rows(),
        rayon::current_num_threads(),
    );
    let encode = usize::try_from(encode).unwrap_or(usize::MAX);
    let unclaimed = prv::Unclaimed::new(starts.len());
    let chunks: Vec<prv::ChunkOut> = starts
        .par_iter()
        .map(|&start| {
            if progress.is_cancelled() {
                return prv::ChunkOut::default();
            }
            let end = start.saturating_add(chunk).min(file.len());
            PIECE.with(|piece| {
                let mut own = source::Piece::default();
                let mut borrowed = piece.try_borrow_mut();
                let piece = borrowed.as_deref_mut().unwrap_or(&mut own);
                // The chunk is read and parsed a window at a time (see
                // `LoadOptions::read_window_bytes`).
                let parsed =
                    prv::parse_chunk_windows(ctx, end - start, encode, &unclaimed, |parse| {
                        let mut from = start;
                        while from < end && !progress.is_cancelled() {
                            let to = from.saturating_add(window).min(end);
                            file.read_lines(body_start, from, to, piece)?;
                            parse(piece.text());
                            progress.bytes_done.fetch_add(to - from, Ordering::Relaxed);
                            from = to;
                        }
                        Ok::<(), std::io::Error>(())
                    });
                parsed.unwrap_or_else(|e| {
                    if let Ok(mut slot) = read_error.lock() {
                        slot.get_or_insert(e);
                    }
                    progress.cancel.store(true, Ordering::Relaxed);
                    prv::ChunkOut::default()
                })
            })
        })
        .collect();
    rayon::broadcast(|_| {
        PIECE.with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                *p = source::Piece::default();
            }
        });
    });
    if let Some(e) = read_error.into_inner().ok().flatten() {
        return Err(e);
    }
    Ok((!progress.is_cancelled()).then_some(chunks))
}

#[cfg(test)]
mod tests {
    use super::windows;

    #[test]
    fn windows_grow_with_threads_within_the_workers_budget() {
        const MB: u64 = 1 << 20;
        const KB: usize = 1 << 10;
        let read = 512 << 10;
        // Few threads: each read encoded, in L2.
        assert_eq!(windows(512 * KB, 64, 2), (read, read));
        assert_eq!(windows(512 * KB, 256, 2), (read, read));
        // More: records grouped and encoded over several reads.
        assert_eq!(windows(512 * KB, 257, 2), (read, 8 * MB));
        assert_eq!(windows(512 * KB, 2048, 2), (read, 16 * MB));
        assert_eq!(windows(512 * KB, 4096, 2), (read, 32 * MB));
        assert_eq!(windows(512 * KB, 100_000, 2), (read, 32 * MB));
        // 16 workers: 8 MB each is the budget.
        assert_eq!(windows(512 * KB, 4096, 16), (read, 8 * MB));
        assert_eq!(windows(512 * KB, 4096, 8), (read, 16 * MB));
        // A tiny window (tests) stays tiny with few threads.
        assert_eq!(windows(7, 16, 2), (7, 7));
    }
}

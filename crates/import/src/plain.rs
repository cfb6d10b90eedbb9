//! The parallel parse of a plain file's chunks, each read by the worker that parses it.

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use crate::{LoadOptions, LoadProgress, prv, source};

thread_local! {
    /// Per worker thread: the buffer its pieces of a plain file are read into.
    static PIECE: std::cell::RefCell<source::Piece> = std::cell::RefCell::new(source::Piece::default());
}

/// The text read and parsed at a time: `base` (`LoadOptions::read_window_bytes`), times the
/// thousands of threads, up to 4, while the workers' windows stay within 128 MB together: a
/// window's records are grouped by (thread, type) and appended to each one's run, a cost per
/// (thread, type) and window that many threads would otherwise pay every few records, and a
/// worker's scratch is a few times its window. Measured on a generated 1 GB trace of 4096
/// threads on 2 cores (one chunk per worker): 8 MB windows loaded in 2.77-2.94 s with a peak
/// of 729 MB, 32 MB windows in 2.28-2.42 s and 702 MB, 64 MB windows in 2.25-2.38 s and
/// 814 MB; with 16 workers, 32 MB windows peaked at 2.2 GB.
pub(crate) fn read_window(base: usize, rows: usize, workers: usize) -> u64 {
    let base = base.max(1) as u64;
    let scaled = base.saturating_mul((rows as u64 / 1024).clamp(1, 4));
    scaled.min(base.max((128 << 20) / workers.max(1) as u64))
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
    let window = read_window(
        options.read_window_bytes,
        ctx.rows.rows(),
        rayon::current_num_threads(),
    );
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
                let parsed = prv::parse_chunk_windows(ctx, |parse| {
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
    use super::read_window;

    #[test]
    fn windows_grow_with_threads_within_the_workers_budget() {
        const MB: u64 = 1 << 20;
        assert_eq!(read_window(8 << 20, 64, 2), 8 * MB);
        assert_eq!(read_window(8 << 20, 2048, 2), 16 * MB);
        assert_eq!(read_window(8 << 20, 4096, 2), 32 * MB);
        assert_eq!(read_window(8 << 20, 100_000, 2), 32 * MB);
        // 16 workers: 8 MB each is the budget.
        assert_eq!(read_window(8 << 20, 4096, 16), 8 * MB);
        assert_eq!(read_window(8 << 20, 4096, 8), 16 * MB);
        // A tiny window (tests) stays tiny with few threads.
        assert_eq!(read_window(7, 16, 2), 7);
    }
}

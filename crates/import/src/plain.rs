//! The parallel parse of a plain file's chunks, each read by the worker that parses it.

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use crate::{LoadOptions, LoadProgress, prv, source};

thread_local! {
    /// Per worker thread: the buffer its pieces of a plain file are read into.
    static PIECE: std::cell::RefCell<source::Piece> = std::cell::RefCell::new(source::Piece::default());
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
    let window = options.read_window_bytes.max(1) as u64;
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

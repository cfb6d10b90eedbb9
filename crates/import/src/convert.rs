//! Converting a trace whose store does not fit in memory: the body is parsed in batches that
//! do, each batch's threads and messages go straight into the store cache file, and then every
//! thread's parts are joined (read back from the file, a few threads at a time) and the
//! messages' runs merged (see [`prvscope_store::cache::Converter`]). The trace is then opened
//! from the cache file, as any cached trace is: its columns read the file in place.
//!
//! Peak memory is a batch's parse ([`estimate::batch_that_fits`]) or a few threads being
//! joined, plus the page cache of the file, which the kernel can drop. A thread whose records
//! are out of time order across batches (not so in Paraver's traces, which are sorted by
//! time) is sorted in memory, as a load sorts it.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

use prvscope_format::RowMap;
use prvscope_format::error;
use prvscope_store::cache::Converter;
use prvscope_store::{NullPolicy, ThreadData};

use crate::source::{self, Compression, LoadProgress};
use crate::{IssueKind, LoadError, LoadOptions, LoadReport, Trace, cache, estimate, prv};

/// Converts the trace at `path` into the store cache (`options.cache`) a batch at a time,
/// then opens it from there; a trace already converted (or cached) is opened at once.
/// `batch_bytes` is the trace text parsed at a time (by default what fits in half the memory
/// available). Only whole traces are converted.
pub fn convert(
    path: &Path,
    options: &LoadOptions,
    batch_bytes: Option<u64>,
    progress: Option<Arc<LoadProgress>>,
) -> Result<Trace, LoadError> {
    let started = Instant::now();
    let progress = progress.unwrap_or_default();
    let io_err = crate::io_error(path);
    let other = |why: String| io_err(std::io::Error::other(why));
    if !options.subset.is_whole() {
        return Err(LoadError::Subset {
            path: path.to_path_buf(),
            message: "a conversion reads the whole trace; a part is loaded without converting"
                .into(),
        });
    }
    if options.cache.is_none() {
        return Err(other(
            "converting writes the store cache, which is turned off (--no-cache)".into(),
        ));
    }
    let crate::Begun {
        meta,
        compression,
        side,
        policy,
        mut cached,
    } = match crate::begin(path, options, &progress, started)? {
        Ok(begun) => begun,
        Err(from_cache) => return Ok(*from_cache),
    };
    let Some((opts, file, key)) = cached.target().cloned() else {
        return Err(other("its store cache file cannot be named".into()));
    };
    let cache_err = |e: std::io::Error| other(format!("converting into {}: {e}", file.display()));
    std::fs::create_dir_all(&opts.dir).map_err(cache_err)?;
    let conv = Converter::create(&file).map_err(cache_err)?;
    let budget = estimate::available_memory().unwrap_or(4 << 30) / 2;
    let mut batches = Batches {
        conv,
        sentinel: policy.sentinel,
        rows: 0,
        line: 2,
        report: LoadReport::default(),
        null_values: 0,
        communicator_lines: 0,
        bytes: 0,
        bounds: Vec::new(),
    };
    let header = match compression {
        Compression::None => {
            let plain =
                source::PlainFile::new(std::fs::File::open(path).map_err(io_err)?, meta.len());
            let header = plain_batches(
                path,
                &plain,
                policy,
                options,
                batch_bytes,
                budget,
                &progress,
                &mut batches,
            )?;
            progress.bytes_done.store(meta.len(), Ordering::Relaxed);
            crate::note_changed_file(path, &plain, &meta, &mut batches.report);
            header
        }
        Compression::Xz | Compression::Gzip => {
            let decoder = source::spawn_decoder(
                std::fs::File::open(path).map_err(io_err)?,
                compression,
                Arc::clone(&progress),
                options.stream_block_bytes,
            );
            stream_batches(
                path,
                decoder,
                compression,
                policy,
                batch_bytes,
                budget,
                &progress,
                &mut batches,
            )?
        }
    };
    if batches.communicator_lines < u64::from(header.communicator_lines) {
        batches.report.push(error::issue(
            IssueKind::MissingCommunicators,
            path,
            1,
            0,
            format!(
                "the header announces {} communicator lines, found {}",
                header.communicator_lines, batches.communicator_lines
            ),
        ));
    }
    let Batches {
        mut conv,
        rows,
        report,
        null_values,
        bytes,
        bounds,
        ..
    } = batches;
    let threads =
        join_threads(&mut conv, rows, bounds, policy.sentinel, &progress).map_err(cache_err)?;
    if progress.is_cancelled() {
        return Err(LoadError::Cancelled {
            path: path.to_path_buf(),
        });
    }
    let extra = cache::Extra {
        key: key.clone(),
        compression,
        bytes_read: progress.bytes_done.load(Ordering::Relaxed).max(meta.len()),
        bytes_decoded: bytes,
        report: cache::body_report(&report),
    };
    conv.finish(
        threads,
        policy,
        null_values,
        header.end_time,
        &extra.encode(),
    )
    .map_err(cache_err)?;
    cache::remove_family(&opts.dir, &file);
    cache::evict(&opts.dir, opts.limit_bytes, &file);
    let hit = match cache::open(&file, &key) {
        Ok(Some(hit)) => hit,
        Ok(None) => return Err(other(format!("{} vanished once written", file.display()))),
        Err(why) => return Err(other(why)),
    };
    cached.converted();
    cache::from_cache(path, hit, side, compression, options, started, cached)
}

/// The batches parsed so far, and what they reported.
struct Batches {
    conv: Converter,
    sentinel: u64,
    rows: usize,
    /// The file line of the next batch's first line.
    line: u64,
    report: LoadReport,
    null_values: u64,
    communicator_lines: u64,
    /// Text bytes parsed.
    bytes: u64,
    /// Per batch, per thread: the bounds of its part.
    bounds: Vec<Vec<prv::PartBounds>>,
}

impl Batches {
    /// Assembles a batch's chunks (in file order) and writes them into the cache file.
    fn add(&mut self, path: &Path, chunks: Vec<prv::ChunkOut>) -> Result<(), LoadError> {
        let lines: u64 = chunks.iter().map(|c| c.lines).sum();
        prv::release_scratch();
        let prv::Assembled {
            threads,
            comms,
            null_values,
            communicator_lines,
            report,
        } = prv::assemble_batch(chunks, self.rows, self.sentinel, self.line);
        self.line += lines;
        self.report.merge(report);
        self.null_values += null_values;
        self.communicator_lines += communicator_lines;
        self.bounds
            .push(threads.iter().map(prv::PartBounds::of).collect());
        self.conv.put(&threads, &comms).map_err(|e| LoadError::Io {
            path: path.to_path_buf(),
            reason: std::io::Error::other(format!("writing the store cache: {e}")),
        })?;
        drop((threads, comms));
        crate::release_free_memory();
        Ok(())
    }
}

/// Parses a plain file in batches of chunks; returns its header.
#[allow(clippy::too_many_arguments)]
fn plain_batches(
    path: &Path,
    file: &source::PlainFile,
    policy: NullPolicy,
    options: &LoadOptions,
    batch_bytes: Option<u64>,
    budget: u64,
    progress: &LoadProgress,
    out: &mut Batches,
) -> Result<prvscope_format::Header, LoadError> {
    let io_err = crate::io_error(path);
    let (first_line, body_start) = file.read_first_line().map_err(io_err)?;
    let (header, _) = crate::split_header(path, &first_line)?;
    let rows = RowMap::new(&header);
    out.rows = rows.rows();
    let ctx = prv::ParseContext::new(&rows, policy.sentinel, path);
    let body_len = file.len().saturating_sub(body_start);
    let batch = batch_bytes
        .unwrap_or_else(|| estimate::batch_that_fits(budget, rows.rows() as u64))
        .max(1);
    let workers = rayon::current_num_threads().max(1) as u64;
    let chunk = crate::chunk_size(body_len, rows.rows(), options)
        .min(batch.div_ceil(workers))
        .max(1);
    let per_batch = usize::try_from(batch.div_ceil(chunk))
        .unwrap_or(usize::MAX)
        .max(1);
    let starts: Vec<u64> = (0..body_len.div_ceil(chunk))
        .map(|i| body_start + i * chunk)
        .collect();
    let groups: Vec<&[u64]> = starts.chunks(per_batch).collect();
    let last = groups.len().saturating_sub(1);
    for (k, group) in groups.into_iter().enumerate() {
        let Some(mut chunks) =
            crate::plain::parse_chunks(file, &ctx, body_start, group, chunk, options, progress)
                .map_err(io_err)?
        else {
            return Err(LoadError::Cancelled {
                path: path.to_path_buf(),
            });
        };
        if k == last {
            let end = file.shrunk_to().unwrap_or(file.len());
            let unterminated =
                end > body_start && crate::last_byte(file, end).map_err(io_err)? != Some(b'\n');
            crate::note_unterminated_last_line(unterminated, &mut chunks);
        }
        out.add(path, chunks)?;
        if let (Some(&from), Some(&last)) = (group.first(), group.last()) {
            file.will_not_read_again(from, last.saturating_add(chunk));
        }
    }
    out.bytes = file.shrunk_to().unwrap_or(file.len());
    Ok(header)
}

/// Parses a compressed trace's decoded blocks in batches; returns its header.
#[allow(clippy::too_many_arguments)]
fn stream_batches(
    path: &Path,
    decoder: source::Decoder,
    compression: Compression,
    policy: NullPolicy,
    batch_bytes: Option<u64>,
    budget: u64,
    progress: &LoadProgress,
    out: &mut Batches,
) -> Result<prvscope_format::Header, LoadError> {
    let source::Decoder {
        blocks: rx,
        recycle,
    } = decoder;
    let first = crate::first_block(path, &rx, compression, progress)?;
    let (header, first_body) = crate::split_header(path, &first)?;
    let rows = RowMap::new(&header);
    out.rows = rows.rows();
    let ctx = prv::ParseContext::new(&rows, policy.sentinel, path);
    let batch = batch_bytes
        .unwrap_or_else(|| estimate::batch_that_fits(budget, rows.rows() as u64))
        .max(1);
    let mut pending = vec![prv::parse_chunk(&ctx, first_body)];
    let mut size = first.len() as u64;
    let mut bytes = size;
    let mut unterminated = !first_body.is_empty() && !first_body.ends_with(b"\n");
    let mut stream_error = None;
    loop {
        let mut blocks = Vec::new();
        let mut done = false;
        while size < batch {
            match rx.recv() {
                Ok(source::StreamItem::Block(b)) => {
                    size += b.len as u64;
                    bytes += b.len as u64;
                    unterminated = !b.text().ends_with(b"\n");
                    blocks.push(b);
                }
                Ok(source::StreamItem::Error { decoded, message }) => {
                    stream_error = Some((decoded, message));
                }
                Err(_) => {
                    done = true;
                    break;
                }
            }
        }
        let parsed: Vec<prv::ChunkOut> = blocks
            .into_par_iter()
            .map(|b| {
                let parsed = prv::parse_chunk(&ctx, b.text());
                let _ = recycle.send(b.bytes);
                parsed
            })
            .collect();
        pending.extend(parsed);
        if progress.is_cancelled() {
            return Err(LoadError::Cancelled {
                path: path.to_path_buf(),
            });
        }
        if done {
            crate::note_unterminated_last_line(unterminated, &mut pending);
            out.add(path, pending)?;
            break;
        }
        out.add(path, std::mem::take(&mut pending))?;
        size = 0;
    }
    if let Some((decoded, message)) = stream_error {
        out.report.push(error::issue(
            IssueKind::CorruptStream,
            path,
            0,
            0,
            format!(
                "the {} stream is truncated or corrupt after {decoded} decoded bytes ({message}); the records before it were kept",
                compression.name()
            ),
        ));
    }
    out.bytes = bytes;
    Ok(header)
}

/// Joins every thread's parts, a few threads at a time, each group written into the file and
/// dropped; gives the threads back reading the file.
fn join_threads(
    conv: &mut Converter,
    rows: usize,
    bounds: Vec<Vec<prv::PartBounds>>,
    sentinel: u64,
    progress: &LoadProgress,
) -> std::io::Result<Vec<ThreadData>> {
    let batches = conv.read_back()?;
    let mut parts: Vec<Vec<(ThreadData, prv::PartBounds)>> = (0..rows)
        .map(|_| Vec::with_capacity(batches.len()))
        .collect();
    for (batch, bounds) in batches.into_iter().zip(bounds) {
        for ((slot, t), b) in parts.iter_mut().zip(batch).zip(bounds) {
            slot.push((t, b));
        }
    }
    let step = 4 * rayon::current_num_threads().max(1);
    let mut left = parts.into_iter();
    loop {
        let group: Vec<Vec<(ThreadData, prv::PartBounds)>> = left.by_ref().take(step).collect();
        if group.is_empty() || progress.is_cancelled() {
            break;
        }
        let joined: Vec<ThreadData> = group
            .into_par_iter()
            .map(|p| prv::join_parts(p, sentinel))
            .collect();
        conv.put(&joined, &[])?;
    }
    Ok(conv.read_back()?.into_iter().flatten().collect())
}

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

use prvscope_store::cache::Converter;
use prvscope_store::columns::Buf;
use prvscope_store::{Comm, ThreadData};

use crate::batches::BatchSink;
use crate::source::LoadProgress;
use crate::{LoadError, LoadOptions, Trace, cache, prv};

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
    let mut sink = ConvertSink {
        conv: Converter::create(&file).map_err(cache_err)?,
        bounds: Vec::new(),
    };
    let parsed = crate::batches::parse_in_batches(
        path,
        &meta,
        compression,
        policy,
        options,
        batch_bytes,
        &progress,
        &mut sink,
    )?;
    let ConvertSink { mut conv, bounds } = sink;
    let rows = prvscope_format::RowMap::new(&parsed.header).rows();
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
        bytes_decoded: parsed.bytes,
        report: cache::body_report(&parsed.report),
        text_index: parsed
            .text_index
            .clone()
            .filter(|_| parsed.report.count(crate::IssueKind::FileChanged) == 0),
    };
    conv.finish(
        threads,
        policy,
        parsed.null_values,
        parsed.header.end_time,
        parsed.inversions,
        &extra.encode(),
    )
    .map_err(cache_err)?;
    cache::remove_family(&opts.dir, &file);
    cache::evict(&opts.dir, opts.limit_bytes, &file);
    let hit = match cache::open(&file, &key, options.read_once, options.cache_check) {
        Ok(Some(hit)) => hit,
        Ok(None) => return Err(other(format!("{} vanished once written", file.display()))),
        Err(why) => return Err(other(why)),
    };
    cached.converted();
    cache::from_cache(path, hit, side, compression, options, started, cached)
}

/// Writes each batch into the cache file, noting its threads' bounds.
struct ConvertSink {
    conv: Converter,
    /// Per batch, per thread: the bounds of its part.
    bounds: Vec<Vec<prv::PartBounds>>,
}

impl BatchSink for ConvertSink {
    fn batch(&mut self, threads: Vec<ThreadData>, comms: Buf<Comm>) -> std::io::Result<()> {
        self.bounds
            .push(threads.iter().map(prv::PartBounds::of).collect());
        self.conv
            .put(&threads, &comms)
            .map_err(|e| std::io::Error::other(format!("writing the store cache: {e}")))
    }
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

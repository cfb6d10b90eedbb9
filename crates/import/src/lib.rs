//! Reading Paraver traces: the `.prv` (plain, `.xz` or `.gz`) with its `.pcf` and `.row`.
//!
//! [`load`] is the entry point: it sniffs the compression, parses the header, parses the body
//! in parallel (overlapping decoding for compressed files), reads the side files and builds
//! the [`TraceStore`]. Anything wrong that is not fatal ends up in the [`LoadReport`].

// The parsers read untrusted bytes: no indexing that could panic.
#![deny(clippy::indexing_slicing)]

mod batches;
pub mod cache;
pub mod cgroup;
pub mod convert;
pub mod estimate;
#[cfg(any(test, feature = "testing"))]
pub mod naive;
pub mod output;
mod plain;
pub mod prv;
pub mod source;
mod start;
pub mod synth;

pub use batches::{BatchSink, Streamed, read_in_batches};
pub(crate) use start::{Begun, begin};

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

pub use prv::scan::Backend as ScanBackend;
use prvscope_format::RowMap;
use prvscope_format::error;
use prvscope_format::subset;
use prvscope_store::null::resolve_policy;
use prvscope_store::{LoadStats, LoadedPart, NullPolicy, TraceStore};
pub use source::{Compression, LoadProgress};

// The types of this crate's signatures, so that a caller of `load` needs no other import.
pub use prvscope_format::{Header, Issue, IssueKind, LoadError, LoadReport, Pcf, RowNames};
pub use prvscope_format::{Subset, ThreadSpec};
pub use prvscope_store::{NullOverride, Trace};

/// Options of a load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub null: NullOverride,
    /// Largest size of the chunks parsed in parallel (plain files); see [`chunk_size`] for
    /// the size chosen below it.
    pub chunk_bytes: usize,
    /// How much of a chunk of a plain file is read and parsed at a time (the text of a
    /// window is still in cache when it is parsed, and a worker holds one window, not a whole
    /// chunk).
    pub read_window_bytes: usize,
    /// Size of the decoded blocks of compressed files.
    pub stream_block_bytes: usize,
    /// The part of the trace to load (default: all of it).
    pub subset: Subset,
    /// The store cache to read the store from and write it to ([`cache`]); none by default.
    pub cache: Option<cache::CacheOptions>,
    /// The store will be read once, in order (an export): a store cache file is not read
    /// into memory at open, and each section's pages are let go once checked, so that the
    /// resident size stays that of what is being read.
    pub read_once: bool,
    /// When a store cache file's sections are checked (before the load returns, by default).
    pub cache_check: cache::CacheCheck,
    /// Leave the writing of a parsed store to the caller ([`cache::write_later`], for a
    /// viewer that shows the trace first): the trace says [`cache::CacheState::Pending`].
    pub defer_cache_write: bool,
    /// The structural scanner's backend (the best the machine has by default; the tests
    /// run each).
    pub scan: ScanBackend,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            null: NullOverride::Auto,
            chunk_bytes: 1 << 30,
            read_window_bytes: 8 << 20,
            stream_block_bytes: source::STREAM_BLOCK,
            subset: Subset::default(),
            cache: None,
            read_once: false,
            cache_check: cache::CacheCheck::AtOpen,
            defer_cache_write: false,
            scan: ScanBackend::Auto,
        }
    }
}

/// Loads a trace file and its side files.
pub fn load(
    path: &Path,
    options: &LoadOptions,
    progress: Option<Arc<LoadProgress>>,
) -> Result<Trace, LoadError> {
    let started = Instant::now();
    let progress = progress.unwrap_or_default();
    let io_err = crate::io_error(path);
    let Begun {
        meta,
        compression,
        side,
        policy,
        cached,
    } = match begin(path, options, &progress, started)? {
        Ok(begun) => begun,
        Err(from_cache) => return Ok(*from_cache),
    };

    let body = match compression {
        Compression::None => {
            let plain = source::PlainFile::new(File::open(path).map_err(io_err)?, meta.len());
            let parsed = parse_file(path, &plain, policy, options, &progress).map_err(io_err)?;
            progress.bytes_done.store(meta.len(), Ordering::Relaxed);
            let mut parsed = parsed?;
            note_changed_file(path, &plain, &meta, &mut parsed.report);
            parsed
        }
        Compression::Xz | Compression::Gzip => {
            let file = File::open(path).map_err(io_err)?;
            let decoder = source::spawn_decoder(
                file,
                compression,
                Arc::clone(&progress),
                options.stream_block_bytes,
            );
            parse_stream(path, decoder, compression, policy, options, &progress)?
        }
    };
    let bytes_read = progress.bytes_done.load(Ordering::Relaxed).max(meta.len());
    let mut trace = into_trace(
        path,
        body,
        side,
        policy,
        options,
        (compression, bytes_read),
        started,
    );
    cached.finish(
        &mut trace,
        compression,
        bytes_read,
        options.defer_cache_write,
    );
    Ok(trace)
}

/// The error of reading the trace at `path`, for `map_err`.
pub(crate) fn io_error(path: &Path) -> impl Fn(std::io::Error) -> LoadError + Copy + '_ {
    move |reason| LoadError::Io {
        path: path.to_path_buf(),
        reason,
    }
}

/// What was read beside the body: the side files and the problems found in them.
pub(crate) struct SideFiles {
    pub(crate) pcf: Option<Pcf>,
    pub(crate) row: Option<RowNames>,
    pub(crate) report: LoadReport,
    /// Read from beside the trace on disk (so they may belong to another trace: checked).
    pub(crate) from_disk: bool,
}

/// The one assembly of a [`Trace`] from a parsed body, for every input.
fn into_trace(
    path: &Path,
    body: Body,
    side: SideFiles,
    policy: NullPolicy,
    options: &LoadOptions,
    (compression, bytes_read): (Compression, u64),
    started: Instant,
) -> Trace {
    let SideFiles {
        pcf,
        row,
        mut report,
        from_disk,
    } = side;
    report.merge(body.report);
    release_free_memory();
    let part = loaded_part(&options.subset, &body.header);
    let mut store = TraceStore::new(
        body.threads,
        body.comms,
        policy,
        body.null_values,
        body.header.end_time,
    )
    .with_inversions(body.inversions);
    if let Some(rows) = part.as_ref().and_then(|p| p.filter.rows.clone()) {
        store = store.with_loaded_rows(rows);
    }
    if from_disk {
        let (types, rows) = (store.event_types(), store.thread_count());
        check_side_files(path, &types, rows, pcf.as_ref(), row.as_ref(), &mut report);
    }
    report.sort_examples();
    Trace {
        path: path.to_path_buf(),
        part,
        header: body.header,
        pcf,
        row,
        store: Arc::new(store),
        report,
        stats: LoadStats {
            compression,
            bytes_read,
            bytes_decoded: body.bytes,
            load_seconds: started.elapsed().as_secs_f64(),
        },
        shipped_sources: Vec::new(),
        cache: cache::CacheReport::default(),
    }
}

/// Gives the memory freed by loading (parsed chunks, decode buffers) back to the operating
/// system: glibc keeps freed heap pages in its arenas otherwise, and the resident size after a
/// load would count them.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: malloc_trim only releases free memory of the allocator's arenas; it takes no
    // pointers and is safe to call at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Loads a trace from bytes already in memory (plain, `.xz` or `.gz`), without side files
/// on disk (`pcf` is given). `name` is used in messages. Compressed bytes go through the
/// same decoder as compressed files.
pub fn load_bytes(
    name: &Path,
    bytes: &[u8],
    pcf: Option<Pcf>,
    options: &LoadOptions,
) -> Result<Trace, LoadError> {
    let started = Instant::now();
    let progress = Arc::new(LoadProgress::default());
    let compression = Compression::sniff(bytes);
    let policy = resolve_policy(options.null, pcf.as_ref());
    let body = if compression == Compression::None {
        parse_text(name, bytes, policy, options, &progress)?
    } else {
        let decoder = source::spawn_decoder(
            std::io::Cursor::new(bytes.to_vec()),
            compression,
            Arc::clone(&progress),
            options.stream_block_bytes,
        );
        parse_stream(name, decoder, compression, policy, options, &progress)?
    };
    let side = SideFiles {
        pcf,
        row: None,
        report: LoadReport::default(),
        from_disk: false,
    };
    Ok(into_trace(
        name,
        body,
        side,
        policy,
        options,
        (compression, bytes.len() as u64),
        started,
    ))
}

/// Warns when the `.pcf` describes fewer than half of the trace's event types, and more than
/// three are missing (it may come from another run; a few undescribed types are common, ovni's
/// CPU traces have some), or the
/// `.row` names fewer threads than the header has. Nothing is lost: labels fall
/// back to numbers and names to `THREAD a.t.h`.
pub(crate) fn check_side_files(
    path: &Path,
    types: &[u32],
    rows: usize,
    pcf: Option<&Pcf>,
    row: Option<&RowNames>,
    report: &mut LoadReport,
) {
    if let Some(pcf) = pcf {
        let described = types
            .iter()
            .filter(|ty| pcf.event_types.contains_key(ty))
            .count();
        if described * 2 < types.len() && types.len() - described > 3 {
            let missing: Vec<String> = types
                .iter()
                .filter(|ty| !pcf.event_types.contains_key(ty))
                .take(4)
                .map(ToString::to_string)
                .collect();
            report.push(error::issue(
                IssueKind::SideFileMismatch,
                &source::side_file(path, "pcf"),
                0,
                0,
                format!(
                    "describes only {described} of the trace's {} event types (not {}, ...): it may belong to another trace; those types show their numbers",
                    types.len(),
                    missing.join(", ")
                ),
            ));
        }
    }
    if let Some(names) = row.and_then(|r| r.level("THREAD"))
        && names.len() < rows
    {
        report.push(error::issue(
            IssueKind::SideFileMismatch,
            &source::side_file(path, "row"),
            0,
            0,
            format!(
                "names {} threads but the trace has {rows}: the others are named THREAD a.t.h",
                names.len()
            ),
        ));
    }
}

/// The body as parsed, before it becomes a store.
struct Body {
    header: Header,
    threads: Vec<prvscope_store::ThreadData>,
    comms: Vec<prvscope_store::Comm>,
    null_values: u64,
    report: LoadReport,
    bytes: u64,
    inversions: Vec<(u32, u32)>,
}

/// Splits the header line off `bytes` and parses it.
pub(crate) fn split_header<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> Result<(Header, &'a [u8]), LoadError> {
    let (line, rest) = match memchr::memchr(b'\n', bytes) {
        Some(p) => (
            bytes.get(..p).unwrap_or(&[]),
            bytes.get(p + 1..).unwrap_or(&[]),
        ),
        None => (bytes, &[][..]),
    };
    if bytes.is_empty() {
        return Err(LoadError::Header {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: "the file is empty; expected a `#Paraver` header".into(),
        });
    }
    let header = Header::parse(line).map_err(|e| LoadError::Header {
        path: path.to_path_buf(),
        line: 1,
        column: e.column,
        message: e.message,
    })?;
    Ok((header, rest))
}

/// Parses a plain file in parallel pieces, each read by the worker that parses it. The outer
/// error is a read error, the inner one a parse error.
fn parse_file(
    path: &Path,
    file: &source::PlainFile,
    policy: NullPolicy,
    options: &LoadOptions,
    progress: &LoadProgress,
) -> std::io::Result<Result<Body, LoadError>> {
    let (first_line, body_start) = file.read_first_line()?;
    let header = match split_header(path, &first_line) {
        Ok((header, _)) => header,
        Err(e) => return Ok(Err(e)),
    };
    let rows = RowMap::new(&header);
    let mut ctx = prv::ParseContext::new(&rows, policy.sentinel, path);
    ctx.scan = options.scan.resolve();
    ctx.filter = match subset_filter(path, &options.subset, &rows) {
        Ok(f) => f,
        Err(e) => return Ok(Err(e)),
    };
    let body_len = file.len().saturating_sub(body_start);
    let chunk = chunk_size(body_len, rows.rows(), options);
    let starts: Vec<u64> = (0..body_len.div_ceil(chunk))
        .map(|i| body_start + i * chunk)
        .collect();
    let Some(mut chunks) =
        plain::parse_chunks(file, &ctx, body_start, &starts, chunk, options, progress)?
    else {
        return Ok(Err(LoadError::Cancelled {
            path: path.to_path_buf(),
        }));
    };
    let end = file.shrunk_to().unwrap_or(file.len());
    let unterminated = end > body_start && last_byte(file, end)? != Some(b'\n');
    note_unterminated_last_line(unterminated, &mut chunks);
    Ok(Ok(finish(
        header,
        chunks,
        rows.rows(),
        policy,
        end,
        path,
        LoadReport::default(),
    )))
}

/// The byte before `end`.
fn last_byte(file: &source::PlainFile, end: u64) -> std::io::Result<Option<u8>> {
    let mut byte = [0u8];
    let got = file.read_at(end.saturating_sub(1), &mut byte)?;
    Ok((got == 1).then_some(byte[0]))
}

/// Reports a file that changed while it was read: shorter than when the load started (reads
/// found its end early), or of another size or modification time once the load finished.
fn note_changed_file(
    path: &Path,
    file: &source::PlainFile,
    before: &std::fs::Metadata,
    report: &mut LoadReport,
) {
    let now = std::fs::metadata(path).ok();
    let message = if let Some(end) = file.shrunk_to() {
        format!(
            "the file shrank from {} to {end} bytes while it was read (another program truncated or rewrote it); the records after byte {end} are missing",
            file.len()
        )
    } else if let Some(now) =
        now.filter(|now| now.len() != before.len() || now.modified().ok() != before.modified().ok())
    {
        format!(
            "the file changed while it was read ({} bytes before, {} after); the records read may mix both versions: open it again once it is finished",
            before.len(),
            now.len()
        )
    } else {
        return;
    };
    report.push(error::issue(IssueKind::FileChanged, path, 0, 0, message));
}

/// The size of the chunks a body of `body` bytes and `rows` threads is parsed in.
///
/// Large chunks become large store segments, but every core needs several of them: a
/// quarter of a worker's share, from 1 to 32 MB. A chunk gives a piece per (thread, type) it
/// holds, and pieces shorter than [`MOVE_MIN`](prvscope_store::columns::MOVE_MIN) records
/// are copied at assembly, each with allocations that workers free across threads, so
/// traces of many threads get at least 128 kB of text per thread in a chunk, up to a
/// worker's share (one chunk per worker; a worker's scratch is a read window whatever the
/// chunk size). Measured on a generated 1 GB trace of 4096 threads on 2 cores: 128 MB
/// chunks loaded in 3.9-5.0 s with a peak of 800-834 MB (their assembly 1.2 s), 512 MB
/// chunks (one per worker) in 2.8-3.2 s and 730 MB (0.5 s); earlier, 64 MB chunks 4.8 s
/// and 917 MB, 32 MB chunks 6.0 s and 1.22 GB. `options.chunk_bytes` caps it.
fn chunk_size(body: u64, rows: usize, options: &LoadOptions) -> u64 {
    let workers = rayon::current_num_threads().max(1) as u64;
    let per_thread = (rows as u64).saturating_mul(128 << 10);
    (body / (4 * workers))
        .clamp(1 << 20, 32 << 20)
        .max(per_thread.min(body.div_ceil(workers)))
        .min(options.chunk_bytes.max(1) as u64)
}

/// What [`Trace::part`] says for a load of `subset`.
pub(crate) fn loaded_part(subset: &Subset, header: &Header) -> Option<LoadedPart> {
    if subset.is_whole() {
        return None;
    }
    let filter = subset.filter(&RowMap::new(header)).ok()?;
    Some(LoadedPart {
        subset: subset.clone(),
        filter,
    })
}

/// The parser's filter for the part of the trace to load.
fn subset_filter(path: &Path, subset: &Subset, rows: &RowMap) -> Result<subset::Filter, LoadError> {
    subset.filter(rows).map_err(|message| LoadError::Subset {
        path: path.to_path_buf(),
        message,
    })
}

/// Parses a whole trace text held in memory in parallel chunks.
fn parse_text(
    path: &Path,
    bytes: &[u8],
    policy: NullPolicy,
    options: &LoadOptions,
    progress: &LoadProgress,
) -> Result<Body, LoadError> {
    let (header, body) = split_header(path, bytes)?;
    let rows = RowMap::new(&header);
    let mut ctx = prv::ParseContext::new(&rows, policy.sentinel, path);
    ctx.scan = options.scan.resolve();
    ctx.filter = subset_filter(path, &options.subset, &rows)?;
    let chunk =
        usize::try_from(chunk_size(body.len() as u64, rows.rows(), options)).unwrap_or(usize::MAX);
    let ranges = prv::split_chunks(body, chunk);
    let mut chunks: Vec<prv::ChunkOut> = ranges
        .into_par_iter()
        .map(|r| {
            if progress.is_cancelled() {
                return prv::ChunkOut::default();
            }
            let out = prv::parse_chunk(&ctx, body.get(r.clone()).unwrap_or(&[]));
            progress
                .bytes_done
                .fetch_add(r.len() as u64, Ordering::Relaxed);
            out
        })
        .collect();
    if progress.is_cancelled() {
        return Err(LoadError::Cancelled {
            path: path.to_path_buf(),
        });
    }
    let report = LoadReport::default();
    note_unterminated_last_line(!body.is_empty() && !body.ends_with(b"\n"), &mut chunks);
    Ok(finish(
        header,
        chunks,
        rows.rows(),
        policy,
        bytes.len() as u64,
        path,
        report,
    ))
}

/// A last line without newline that failed to parse was most likely cut short: its issue is
/// filed as a truncated line (once, not also as a malformed record).
fn note_unterminated_last_line(unterminated: bool, chunks: &mut [prv::ChunkOut]) {
    if !unterminated {
        return;
    }
    if let Some(last) = chunks.iter_mut().rev().find(|c| c.lines > 0) {
        let line = last.lines;
        last.report.reclassify(
            line,
            IssueKind::MalformedRecord,
            IssueKind::TruncatedLine,
            "the text ends in the middle of this line (no newline); it was skipped",
        );
    }
}

fn finish(
    header: Header,
    chunks: Vec<prv::ChunkOut>,
    rows: usize,
    policy: NullPolicy,
    bytes: u64,
    path: &Path,
    mut report: LoadReport,
) -> Body {
    // The parse's scratch is not needed any more: freed before assembly, which holds the
    // pieces and the columns built from them at once.
    prv::release_scratch();
    release_free_memory();
    let assembled = prv::assemble(chunks, rows, policy.sentinel, 2);
    report.merge(assembled.report);
    if assembled.communicator_lines < u64::from(header.communicator_lines) {
        report.push(error::issue(
            IssueKind::MissingCommunicators,
            path,
            1,
            0,
            format!(
                "the header announces {} communicator lines, found {}",
                header.communicator_lines, assembled.communicator_lines
            ),
        ));
    }
    Body {
        header,
        threads: assembled.threads,
        comms: assembled.comms,
        null_values: assembled.null_values,
        report,
        bytes,
        inversions: assembled.inversions,
    }
}

/// The first decoded block of a compressed trace (it carries the header).
pub(crate) fn first_block(
    path: &Path,
    rx: &std::sync::mpsc::Receiver<source::StreamItem>,
    compression: Compression,
    progress: &LoadProgress,
) -> Result<Vec<u8>, LoadError> {
    let cancelled = || LoadError::Cancelled {
        path: path.to_path_buf(),
    };
    Ok(match rx.recv() {
        Ok(source::StreamItem::Block(b)) => {
            let mut bytes = b.bytes;
            bytes.truncate(b.len);
            bytes
        }
        Ok(source::StreamItem::Error { decoded, message }) => {
            if progress.is_cancelled() {
                return Err(cancelled());
            }
            return Err(LoadError::Header {
                path: path.to_path_buf(),
                line: 1,
                column: 1,
                message: format!(
                    "could not decode the {} stream (after {decoded} bytes): {message}",
                    compression.name()
                ),
            });
        }
        Err(_) => Vec::new(),
    })
}

fn parse_stream(
    path: &Path,
    decoder: source::Decoder,
    compression: Compression,
    policy: NullPolicy,
    options: &LoadOptions,
    progress: &LoadProgress,
) -> Result<Body, LoadError> {
    let cancelled = || LoadError::Cancelled {
        path: path.to_path_buf(),
    };
    let mut report = LoadReport::default();
    let mut stream_error = None;
    let source::Decoder {
        blocks: rx,
        recycle,
    } = decoder;
    let first = first_block(path, &rx, compression, progress)?;
    let (header, first_body) = split_header(path, &first)?;
    let rows = RowMap::new(&header);
    let mut ctx = prv::ParseContext::new(&rows, policy.sentinel, path);
    ctx.scan = options.scan.resolve();
    ctx.filter = subset_filter(path, &options.subset, &rows)?;
    let mut bytes = first.len() as u64;
    let head_chunk = prv::parse_chunk(&ctx, first_body);
    let mut last_block_unterminated = !first_body.ends_with(b"\n") && !first_body.is_empty();
    // Blocks are parsed by the rayon pool while the decoder thread goes on.
    let rest: Vec<(usize, prv::ChunkOut)> = rx
        .into_iter()
        .filter_map(|item| match item {
            source::StreamItem::Block(b) => Some(b),
            source::StreamItem::Error { decoded, message } => {
                stream_error = Some((decoded, message));
                None
            }
        })
        .inspect(|b| {
            bytes += b.len as u64;
            last_block_unterminated = !b.text().ends_with(b"\n");
        })
        .par_bridge()
        .map(|b| {
            let out = prv::parse_chunk(&ctx, b.text());
            let _ = recycle.send(b.bytes);
            (b.seq, out)
        })
        .collect();
    if progress.is_cancelled() {
        return Err(cancelled());
    }
    let mut rest = rest;
    rest.sort_by_key(|(seq, _)| *seq);
    let mut chunks = Vec::with_capacity(rest.len() + 1);
    chunks.push(head_chunk);
    chunks.extend(rest.into_iter().map(|(_, c)| c));
    if let Some((decoded, message)) = stream_error {
        report.push(error::issue(
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
    note_unterminated_last_line(last_block_unterminated, &mut chunks);
    Ok(finish(
        header,
        chunks,
        rows.rows(),
        policy,
        bytes,
        path,
        report,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_of_many_threads_are_parsed_in_larger_chunks() {
        let gb = 1u64 << 30;
        let workers = rayon::current_num_threads().max(1) as u64;
        let default = LoadOptions::default();
        assert!(chunk_size(gb, 64, &default) <= 32 << 20);
        assert!(chunk_size(gb, 64, &default) >= 1 << 20);
        assert_eq!(
            chunk_size(gb, 4096, &default),
            (512u64 << 20)
                .min(gb.div_ceil(workers))
                .max(chunk_size(gb, 64, &default))
        );
        // The cap wins, so tests can cut bodies into tiny chunks.
        let tiny = LoadOptions {
            chunk_bytes: 7,
            ..LoadOptions::default()
        };
        assert_eq!(chunk_size(gb, 4096, &tiny), 7);
    }
}

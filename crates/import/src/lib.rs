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
mod driver;
pub mod estimate;
#[cfg(any(test, feature = "testing"))]
pub mod naive;
pub mod output;
mod plain;
pub mod prv;
pub mod source;
mod stages;
mod start;
pub mod synth;

pub use batches::{BatchSink, Streamed, read_in_batches};
pub(crate) use start::{Begun, begin};

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

pub use prv::scan::Backend as ScanBackend;
use prvscope_format::RowMap;
use prvscope_format::error;
use prvscope_store::null::resolve_policy;
use prvscope_store::{LoadStats, LoadedPart, NullPolicy, TextIndex, TextPiece, TraceStore};
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
    /// chunk); traces of many threads use larger windows (see `plain::read_window`).
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
            read_window_bytes: 512 << 10,
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
    stages::mark("load");
    let progress = progress.unwrap_or_default();
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

    stages::mark("open, side files");
    let body = parse_whole(
        path,
        driver::Input::File {
            meta: &meta,
            compression,
        },
        policy,
        options,
        &progress,
    )?;
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
    stages::mark("store");
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
    stages::mark("memory released");
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
    // (The index of a whole trace's text, as it was when read.)
    let text_index = body
        .text_index
        .filter(|_| part.is_none() && report.count(IssueKind::FileChanged) == 0);
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
        shipped_text: None,
        cache: cache::CacheReport::default(),
        text_index,
    }
}

/// Gives the memory freed by loading (parsed chunks, decode buffers) back to the operating
/// system: glibc keeps freed heap pages in its arenas otherwise, and the resident size after a
/// load would count them; so does the pool of dropped slabs (the slabs of the load's chunks
/// were taken from it already).
fn release_free_memory() {
    release_free_memory_but(None);
}

/// [`release_free_memory`], except the pool's mapping that a slab of `slab` bytes about to be
/// made would take.
fn release_free_memory_but(slab: Option<usize>) {
    match slab {
        Some(bytes) => prvscope_store::columns::release_slab_pool_but_one(bytes),
        None => prvscope_store::columns::release_slab_pool(),
    }
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
    let body = parse_whole(
        name,
        driver::Input::Memory(bytes),
        policy,
        options,
        &progress,
    )?;
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

/// Reports what only the whole body tells (of a load, or of a read in batches): fewer
/// communicator lines than the header announces, given the `communicator_lines` found, and
/// the threads whose events go back in time (the trace is not sorted by time): their records
/// are sorted, and every pair of their event types counts as inverted
/// (`TraceStore::inversions`), so that an analysis reading their order at one timestamp
/// refuses it.
pub(crate) fn note_body_end(
    path: &Path,
    header: &Header,
    (communicator_lines, backward): (u64, &[prv::Backward]),
    report: &mut LoadReport,
) {
    if communicator_lines < u64::from(header.communicator_lines) {
        report.push(error::issue(
            IssueKind::MissingCommunicators,
            path,
            1,
            0,
            format!(
                "the header announces {} communicator lines, found {communicator_lines}",
                header.communicator_lines
            ),
        ));
    }
    if backward.is_empty() {
        return;
    }
    let objects = prvscope_format::model::Objects::new(header, None);
    // One issue a thread: its events' place when both its events and its states go back.
    let mut named = std::collections::BTreeSet::new();
    for b in backward
        .iter()
        .filter(|b| !b.state)
        .chain(backward.iter().filter(|b| b.state))
    {
        if !named.insert(b.row) {
            continue;
        }
        report.push_with(IssueKind::EventsOutOfOrder, || {
            let thread = objects.id(prvscope_format::model::Level::Thread, b.row as usize);
            let what = if b.state {
                "a state beginning at time {} comes after one beginning at time {}"
            } else {
                "an event at time {} comes after one at time {}"
            };
            let place =
                what.replacen("{}", &b.time.to_string(), 1)
                    .replacen("{}", &b.after.to_string(), 1);
            error::issue(
                IssueKind::EventsOutOfOrder,
                path,
                0,
                0,
                format!(
                    "thread {thread}: {place} (expected records sorted by time); its records \
                     are read sorted, which Paraver does not do: Paraver's windows (cfgs) are \
                     refused on this trace{}",
                    if b.state {
                        ""
                    } else {
                        ", and as the order of its events at one timestamp is not known, \
                         analyses reading the order of two of its event types are refused"
                    }
                ),
            )
        });
    }
}

/// The body as parsed, before it becomes a store.
struct Body {
    header: Header,
    threads: Vec<prvscope_store::ThreadData>,
    comms: prvscope_store::columns::Buf<prvscope_store::Comm>,
    null_values: u64,
    report: LoadReport,
    bytes: u64,
    inversions: Vec<(u32, u32)>,
    /// What each piece of the text holds, when the parse read all of it.
    text_index: Option<Arc<TextIndex>>,
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

/// The chunks of a body, kept for one assembly.
#[derive(Default)]
struct Whole {
    chunks: Vec<prv::ChunkOut>,
    rows: usize,
    /// What each window of the text holds, in order.
    text: Vec<TextPiece>,
}

/// The index of a text whose body starts at `start` and whose windows held `pieces`, when
/// they tile the whole text of `bytes` bytes (a load that read all of it). Its pieces are
/// merged up to twice the read window ([`LoadOptions::read_window_bytes`]: 1 MB).
pub(crate) fn text_index(
    start: u64,
    pieces: &[TextPiece],
    bytes: u64,
    options: &LoadOptions,
) -> Option<Arc<TextIndex>> {
    let mut index = TextIndex::new(start, (options.read_window_bytes as u64 * 2).max(1));
    for &p in pieces {
        index.push(p);
    }
    (index.end() == bytes).then(|| Arc::new(index))
}

impl driver::ChunkSink for Whole {
    fn begin(&mut self, _: &Path, _: &Header, rows: &RowMap) -> Result<(), LoadError> {
        self.rows = rows.rows();
        Ok(())
    }

    fn group(&mut self, _: &Path, mut chunks: Vec<prv::ChunkOut>) -> Result<(), LoadError> {
        for c in &mut chunks {
            self.text.append(&mut c.text_pieces);
        }
        self.chunks.extend(chunks);
        Ok(())
    }
}

/// A whole body parsed by the import driver as one group and assembled.
fn parse_whole(
    path: &Path,
    input: driver::Input<'_>,
    policy: NullPolicy,
    options: &LoadOptions,
    progress: &Arc<LoadProgress>,
) -> Result<Body, LoadError> {
    let mut whole = Whole::default();
    let read = driver::read_body(
        path,
        input,
        policy,
        options,
        driver::Grouping::WHOLE,
        progress,
        &mut whole,
    )?;
    stages::mark("parse");
    let index = text_index(read.body_start, &whole.text, read.bytes, options);
    let mut body = finish(
        read.header,
        whole.chunks,
        whole.rows,
        policy,
        read.bytes,
        path,
        read.report,
    );
    body.text_index = index;
    Ok(body)
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
    // The messages are joined into a slab next: the pool's mapping for it is kept.
    let messages = chunks.iter().map(|c| c.comms.len()).sum();
    let list = prvscope_store::columns::slab_bytes::<prvscope_store::Comm>(messages);
    release_free_memory_but(Some(list));
    stages::mark("scratch released");
    let assembled = prv::assemble(chunks, rows, policy.sentinel, 2);
    stages::mark("assembly");
    report.merge(assembled.report);
    note_body_end(
        path,
        &header,
        (assembled.communicator_lines, &assembled.backward),
        &mut report,
    );
    Body {
        header,
        threads: assembled.threads,
        comms: assembled.comms,
        null_values: assembled.null_values,
        report,
        bytes,
        inversions: assembled.inversions,
        text_index: None,
    }
}

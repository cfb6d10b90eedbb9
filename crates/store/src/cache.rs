//! The store cache file: a [`TraceStore`] written once after a load, then mapped read-only and
//! used in place (its columns' arrays are slices of the map: no parse, no copy; pages are read
//! when touched).
//!
//! Layout (little-endian):
//! - a fixed header of 64 bytes: magic `PRVSCACH`, [`FORMAT_VERSION`], the directory's offset,
//!   length and CRC-32, and the file's length;
//! - the data sections, contiguous from byte 64: one per thread (its columns' arrays, each
//!   aligned to 8 bytes), one for the communications, and one for the State view (its rows'
//!   points and pyramids) and the messages' index, so that a re-opened trace draws its first
//!   frame without walking its records;
//! - the `meta` section (each column's segments: where their arrays are, escapes, widths,
//!   sentinels; the store's counts and null policy) and the caller's `extra` section;
//! - the directory: each section's offset, length and CRC-32.
//!
//! Opening checks the magic, the version, the length, the directory's CRC and then every
//! section's CRC (in parallel) before anything is used, so a stale, truncated or corrupt file
//! is refused with the reason, never trusted. Writing goes to a new file that is renamed over
//! the final name only once complete, so a failed write leaves no file that is used, and a
//! file that may be mapped is never truncated. The file is not synced to disk (that took a
//! fifth of a second of every first load of a 1 GB trace): after a system crash, a file whose
//! pages were not all written fails its CRCs at the next open and is rebuilt.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::columns::persist::Sink;
use crate::columns::{Buf, Mapped};
use crate::comm_index::CommIndex;
use crate::{
    Comm, EventColumn, NullPolicy, RecordCounts, StateColumns, ThreadData, TimeColumn, TraceStore,
    ValueColumn,
};

/// The first bytes of every cache file.
pub const MAGIC: &[u8; 8] = b"PRVSCACH";
/// The layout version; a file of another version is stale and rebuilt.
pub const FORMAT_VERSION: u32 = 3;
const HEADER: usize = 64;

/// What the cache did for a load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CacheState {
    /// No cache was asked for.
    #[default]
    Off,
    /// The store was read from the cache file.
    Hit,
    /// The trace was parsed and its store written to the cache file.
    Built,
    /// The trace was parsed; its store is being written (by the caller, after the load).
    Pending,
    /// The trace was parsed; its store is being written by a process of its own that goes on
    /// after the command that loaded it has returned.
    Writing,
    /// The trace was parsed; the store could not be written (the reason).
    NotWritten(String),
}

impl CacheState {
    /// `off`, `hit`, `built`, `pending`, `writing` or `not written`, as `info --json` says it.
    pub fn name(&self) -> &'static str {
        match self {
            CacheState::Off => "off",
            CacheState::Hit => "hit",
            CacheState::Built => "built",
            CacheState::Pending => "pending",
            CacheState::Writing => "writing",
            CacheState::NotWritten(_) => "not written",
        }
    }
}

/// What the cache did for one load, with the file and why a file there was not used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheReport {
    pub state: CacheState,
    pub file: Option<PathBuf>,
    /// A cache file that was there and refused (stale, truncated, corrupt), and why; it was
    /// rebuilt.
    pub refused: Option<String>,
}

/// Why a cache file was not used.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("could not read the cache: {0}")]
    Io(#[from] io::Error),
    #[error("stale cache: {0}")]
    Stale(String),
    #[error("corrupt cache: {0}")]
    Corrupt(String),
}

mod codec;
mod convert;

pub use codec::{Dec, Enc};
pub use convert::Converter;

fn corrupt(why: impl Into<String>) -> CacheError {
    CacheError::Corrupt(why.into())
}

/// Maps `file` read-only, its pages read at once.
pub fn map_file(file: &File) -> io::Result<Mapped> {
    map_file_with(file, true)
}

/// Maps `file` read-only; with `populate`, its pages are read at once (in one pass, instead
/// of a fault per page), which is only worth it when they all stay in memory.
pub fn map_file_with(file: &File, populate: bool) -> io::Result<Mapped> {
    #[allow(unsafe_code)]
    // SAFETY: the map is read-only and the bytes are only read through checked casts of Pod
    // types. Cache files are written under a new name and renamed into place, never changed or
    // truncated after; a file truncated by someone else would fault on access (SIGBUS), which
    // is the documented risk of any memory map (the trace itself is read, not mapped, for
    // that reason).
    let map = unsafe {
        let mut options = memmap2::MmapOptions::new();
        if populate {
            options.populate();
        }
        options.map(file)?
    };
    Ok(Arc::new(map))
}

/// The file being written: arrays aligned to 8, each section's CRC computed as it goes.
pub(crate) struct Writer {
    out: BufWriter<File>,
    pos: u64,
    section_start: u64,
    crc: crc32fast::Hasher,
    sections: Vec<(u64, u64, u32)>,
    /// Maps of what is already written of this file (see [`convert`]): an array read from
    /// one of them is in the file already and is referenced where it is, not written again.
    own: Vec<Mapped>,
}

impl Writer {
    /// A new file at `tmp` (readable too, so that what is written can be mapped), its header
    /// left blank until [`Writer::finish`].
    fn create(tmp: &Path) -> io::Result<Self> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(tmp)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&[0u8; HEADER])?;
        Ok(Writer {
            out,
            pos: HEADER as u64,
            section_start: HEADER as u64,
            crc: crc32fast::Hasher::new(),
            sections: Vec::new(),
            own: Vec::new(),
        })
    }

    fn write(&mut self, b: &[u8]) -> io::Result<()> {
        self.out.write_all(b)?;
        self.crc.update(b);
        self.pos += b.len() as u64;
        Ok(())
    }

    fn close_section(&mut self) {
        let crc = std::mem::take(&mut self.crc).finalize();
        self.sections
            .push((self.section_start, self.pos - self.section_start, crc));
        self.section_start = self.pos;
    }

    /// Pads to 8 bytes: where the next array starts.
    fn align(&mut self) -> io::Result<u64> {
        let pad = self.pos.next_multiple_of(8) - self.pos;
        self.write(&[0u8; 8][..pad as usize])?;
        Ok(self.pos)
    }

    /// The offset of `bytes` in this file, when they are read from a map of it.
    fn in_place(&self, bytes: &[u8]) -> Option<u64> {
        if bytes.is_empty() {
            return None;
        }
        let p = bytes.as_ptr() as usize;
        self.own.iter().find_map(|m| {
            let base = m.as_ptr() as usize;
            (p >= base && p + bytes.len() <= base + m.len()).then(|| (p - base) as u64)
        })
    }

    /// Maps what is written so far (whole sections: call after [`Writer::close_section`]).
    fn map_written(&mut self) -> io::Result<Mapped> {
        self.out.flush()?;
        #[allow(unsafe_code)]
        // SAFETY: read-only map of bytes this writer wrote and never changes: the file only
        // grows past them, and it is private to this writer until it is renamed into place.
        let map = unsafe {
            memmap2::MmapOptions::new()
                .len(usize::try_from(self.pos).map_err(io::Error::other)?)
                .map(self.out.get_ref())?
        };
        let map = Arc::new(map);
        self.own.push(Arc::clone(&map));
        Ok(map)
    }

    /// Writes the `meta` and `extra` sections, the directory and the header (not synced:
    /// see the module's comment). Returns the file's length.
    fn finish(mut self, meta: &Enc, extra: &[u8]) -> io::Result<u64> {
        self.write(&meta.0)?;
        self.close_section();
        self.write(extra)?;
        self.close_section();
        let mut dir = Enc::default();
        dir.u32(self.sections.len() as u32);
        for &(at, len, crc) in &self.sections {
            dir.u64(at);
            dir.u64(len);
            dir.u32(crc);
        }
        let dir_at = self.pos;
        self.out.write_all(&dir.0)?;
        let file_len = dir_at + dir.0.len() as u64;
        let mut head = Enc::default();
        head.0.extend_from_slice(MAGIC);
        head.u32(FORMAT_VERSION);
        head.u32(0);
        head.u64(dir_at);
        head.u64(dir.0.len() as u64);
        head.u32(crc32fast::hash(&dir.0));
        head.u32(0);
        head.u64(file_len);
        head.0.resize(HEADER, 0);
        self.own.clear();
        let mut file = self
            .out
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&head.0)?;
        Ok(file_len)
    }
}

impl Sink for Writer {
    fn end_section(&mut self) {
        self.close_section();
    }

    fn array(&mut self, bytes: &[u8]) -> io::Result<u64> {
        if let Some(at) = self.in_place(bytes) {
            return Ok(at);
        }
        let at = self.align()?;
        self.write(bytes)?;
        Ok(at)
    }
}

/// The temporary name a cache file is written under before it is renamed to `path`.
/// Unique within the process (a viewer may write a trace's cache on a background job while
/// it converts the same trace), and across processes by the process id.
fn temporary(path: &Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    path.with_extension(format!("tmp{}-{n}", std::process::id()))
}

/// The process ids of the writes of `path` under way or abandoned: its [`temporary`] files.
pub fn writers(path: &Path) -> Vec<u32> {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem().and_then(|s| s.to_str())) else {
        return Vec::new();
    };
    let prefix = format!("{stem}.tmp");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let rest = name.to_str()?.strip_prefix(&prefix)?;
            rest.split_once('-')?.0.parse().ok()
        })
        .collect()
}

/// Writes `store` and the caller's `extra` bytes to `path`: to a new file beside it first,
/// then renamed over `path`. Returns the file's size.
pub fn write(store: &Arc<TraceStore>, extra: &[u8], path: &Path) -> io::Result<u64> {
    write_on(store, extra, path, None)
}

/// [`write`], with the parallel work (the first view, the messages' index) on `pool` instead
/// of rayon's global pool: a process forked to write the store has a global pool whose
/// threads stayed in its parent.
pub fn write_on(
    store: &Arc<TraceStore>,
    extra: &[u8],
    path: &Path,
    pool: Option<&rayon::ThreadPool>,
) -> io::Result<u64> {
    let tmp = temporary(path);
    let result = write_new(store, extra, &tmp, pool).and_then(|n| {
        std::fs::rename(&tmp, path)?;
        Ok(n)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_new(
    store: &Arc<TraceStore>,
    extra: &[u8],
    tmp: &Path,
    pool: Option<&rayon::ThreadPool>,
) -> io::Result<u64> {
    let mut w = Writer::create(tmp)?;
    let mut meta = Enc::default();
    write_body(store, &mut w, &mut meta, pool)?;
    w.finish(&meta, extra)
}

/// How many groups of rows of the first view are built ahead of the writing.
const VIEW_AHEAD: usize = 4;

/// One thread's arrays (a section) and their description.
fn persist_thread(t: &ThreadData, w: &mut Writer, meta: &mut Enc) -> io::Result<()> {
    let s = &t.states;
    s.begin.persist(w, meta)?;
    s.end.persist(w, meta)?;
    s.value.persist(w, meta)?;
    meta.u8(u8::from(s.ends_sorted));
    meta.u32(t.events.len() as u32);
    for e in &t.events {
        meta.u32(e.ty);
        e.time.persist(w, meta)?;
        e.value.persist(w, meta)?;
    }
    meta.u32(t.cpus.len() as u32);
    for &(time, cpu) in &t.cpus {
        meta.u64(time);
        meta.u32(cpu);
    }
    w.close_section();
    Ok(())
}

/// Everything of `store` but the tail of `meta` ([`write_tail`]'s part is written last).
fn write_body(
    store: &Arc<TraceStore>,
    w: &mut Writer,
    meta: &mut Enc,
    pool: Option<&rayon::ThreadPool>,
) -> io::Result<()> {
    // The first view and the messages' index, so that a re-opened trace draws at once, are
    // built while the threads' arrays are written (a few rows of the view at a time, a
    // bounded number of them ahead of the writing: its memory is that of those rows).
    let view = store.counts.states > 0;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel(VIEW_AHEAD);
        let build = move || {
            if view {
                crate::signal::build_states_view(store, store.policy.zero_is_null, |group| {
                    tx.send(group).is_ok()
                });
            }
            drop(tx);
            (!store.comms.is_empty()).then(|| CommIndex::build(&store.comms))
        };
        let builder = s.spawn(move || match pool {
            Some(pool) => pool.install(build),
            None => build(),
        });
        meta.u32(store.threads.len() as u32);
        for t in &store.threads {
            persist_thread(t, w, meta)?;
        }
        let at = w.array(bytemuck::cast_slice(&store.comms))?;
        meta.u64(at);
        meta.u64(store.comms.len() as u64);
        w.close_section();
        meta.u8(u8::from(view));
        let written = if view {
            crate::signal::persist_states_view(
                store.policy.zero_is_null,
                rx,
                store.threads.len(),
                w,
                meta,
            )
        } else {
            Ok(())
        };
        // The builder stops at its next group once the receiver is gone (an error above).
        let index = builder
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        written?;
        meta.u8(u8::from(index.is_some()));
        if let Some(i) = &index {
            i.persist(w, meta)?;
        }
        w.close_section();
        Ok::<(), io::Error>(())
    })?;
    meta.u64(store.policy.sentinel);
    meta.u8(u8::from(store.policy.zero_is_null));
    let c = store.counts;
    for n in [c.states, c.events, c.comms, c.null_values, store.end_time] {
        meta.u64(n);
    }
    meta.bytes(
        &store
            .loaded
            .iter()
            .map(|&l| u8::from(l))
            .collect::<Vec<_>>(),
    );
    meta.u32(store.inversions.len() as u32);
    for &(a, b) in &store.inversions {
        meta.u32(a);
        meta.u32(b);
    }
    Ok(())
}

/// A store read back from a cache file, with the caller's extra bytes.
#[derive(Debug)]
pub struct Opened {
    pub store: TraceStore,
    pub extra: Vec<u8>,
    /// Size of the file mapped.
    pub bytes: u64,
}

/// Opens the cache file at `path`: maps it, checks it whole (see the module documentation)
/// and gives the store whose columns read the map in place. The file's pages are read in
/// one pass when it is at most `populate_below` bytes (a file larger than the memory that
/// can hold it is read as it is checked, a page at a time, instead of twice).
pub fn open(path: &Path, populate_below: u64) -> Result<Opened, CacheError> {
    open_checked(path, populate_below, None)
}

/// Called with the reason when a check after the open finds a section corrupt.
pub type OnCorrupt = Box<dyn FnOnce(&str) + Send>;

/// [`open`], with the records' sections (the threads' and the messages') checked after it
/// returns when `later` is given: the other sections (the first view, the messages' index,
/// the description) are checked before, so that a first frame is drawn from checked bytes
/// at once, while the records are checked in the background, their pages let go of as they
/// are checked when the file is not read at once. A use of the records waits for the check;
/// a corrupt section makes them empty and calls `later` (see [`TraceStore::integrity`]).
pub fn open_checked(
    path: &Path,
    populate_below: u64,
    later: Option<OnCorrupt>,
) -> Result<Opened, CacheError> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    if len < HEADER as u64 {
        return Err(corrupt("truncated header"));
    }
    let populate = len <= populate_below;
    let map = map_file_with(&file, populate)?;
    let bytes: &[u8] = &map;
    let mut head = Dec(bytes
        .get(..HEADER)
        .ok_or_else(|| corrupt("truncated header"))?);
    if head.take(8) != Some(MAGIC.as_slice()) {
        return Err(corrupt("not a prvscope cache file"));
    }
    let version = head.u32().unwrap_or(0);
    if version != FORMAT_VERSION {
        return Err(CacheError::Stale(format!(
            "written in layout version {version}, this prvscope reads {FORMAT_VERSION}"
        )));
    }
    head.u32();
    let (dir_at, dir_len) = (head.u64().unwrap_or(0), head.u64().unwrap_or(0));
    let dir_crc = head.u32().unwrap_or(0);
    head.u32();
    let file_len = head.u64().unwrap_or(0);
    if file_len != bytes.len() as u64 {
        return Err(corrupt(format!(
            "truncated: {} bytes of the {file_len} written",
            bytes.len()
        )));
    }
    let range = |at: u64, len: u64| -> Option<&[u8]> {
        bytes.get(usize::try_from(at).ok()?..usize::try_from(at.checked_add(len)?).ok()?)
    };
    let dir = range(dir_at, dir_len).ok_or_else(|| corrupt("directory outside the file"))?;
    if crc32fast::hash(dir) != dir_crc {
        return Err(corrupt("directory checksum differs"));
    }
    let mut d = Dec(dir);
    let n = d.u32().ok_or_else(|| corrupt("empty directory"))?;
    let mut sections = Vec::new();
    let mut next = HEADER as u64;
    for _ in 0..n {
        let (at, len, crc) = (d.u64(), d.u64(), d.u32());
        let (Some(at), Some(len), Some(crc)) = (at, len, crc) else {
            return Err(corrupt("short directory"));
        };
        // Sections tile the file from the header to the directory: every byte is checked.
        if at != next {
            return Err(corrupt("sections do not tile the file"));
        }
        next = at + len;
        let s = range(at, len).ok_or_else(|| corrupt("section outside the file"))?;
        sections.push((s, crc));
    }
    if next != dir_at || sections.len() < 3 {
        return Err(corrupt("sections do not tile the file"));
    }
    let base = bytes.as_ptr() as usize;
    let ranges: Vec<(usize, usize, u32)> = sections
        .iter()
        .map(|&(s, crc)| (s.as_ptr() as usize - base, s.len(), crc))
        .collect();
    // The description and the extra bytes (the last two sections) are checked first: they
    // say where everything is. Then, unless the records are checked later, every section.
    let tail = ranges.len() - 2;
    let check_now = |from: usize, to: usize| match first_corrupt(
        &map,
        ranges.get(from..to).unwrap_or_default(),
        // The sections checked at the open when the records are checked later are those
        // the first frames draw from: they stay mapped (let go of, they were read from the
        // disk again by the first frame).
        populate || later.is_some(),
    ) {
        Some(i) => Err(corrupt(format!("section {} checksum differs", from + i))),
        None => Ok(()),
    };
    check_now(if later.is_some() { tail } else { 0 }, ranges.len())?;
    let (meta, extra) = match sections.as_slice() {
        [.., (meta, _), (extra, _)] => (*meta, extra.to_vec()),
        _ => return Err(corrupt("no directory sections")),
    };
    let (mut store, records_end) =
        restore(&mut Dec(meta), &map).ok_or_else(|| corrupt("inconsistent directory"))?;
    // The records (threads, then messages) come first in the file; the first view and the
    // messages' index after them, in sections of their own.
    let split = ranges.partition_point(|&(at, _, _)| at < records_end);
    if later.is_some() {
        check_now(split, tail)?;
    }
    if let Some(on_corrupt) = later {
        let deferred = Arc::new(crate::checked::Deferred::new(store.threads.len()));
        store.mapped.deferred = Some(Arc::clone(&deferred));
        let records = ranges.get(..split).unwrap_or_default().to_vec();
        let map = Arc::clone(&map);
        std::thread::Builder::new()
            .name("cache-check".into())
            .spawn(move || {
                let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    check_on_own_threads(&map, &records, populate)
                }));
                let found = match checked {
                    Ok(found) => {
                        found.map(|i| format!("corrupt cache: section {i} checksum differs"))
                    }
                    Err(_) => Some("corrupt cache: its check failed".to_owned()),
                };
                if let Some(why) = &found {
                    on_corrupt(why);
                }
                deferred.finish(found);
            })?;
    }
    Ok(Opened {
        store,
        extra,
        bytes: file_len,
    })
}

/// The first of `sections` (offset, length, CRC-32) of `map` whose checksum differs, checked
/// in parallel. A file not read at once is read here, as it is checked: its pages are let go
/// again (they stay in the page cache), or the resident size would grow to the file's.
fn first_corrupt(map: &Mapped, sections: &[(usize, usize, u32)], populated: bool) -> Option<usize> {
    sections
        .par_iter()
        .position_any(|&section| differs(map, section, populated))
}

/// Whether a section (offset, length, CRC-32) of `map` differs from its checksum; its pages
/// are let go of once read when the file was not read at once.
fn differs(map: &Mapped, (at, len, crc): (usize, usize, u32), populated: bool) -> bool {
    let bytes = map.get(at..at + len).unwrap_or_default();
    let differs = crc32fast::hash(bytes) != crc;
    if !populated {
        release_range(map, at, len);
    }
    differs
}

/// [`first_corrupt`] on threads of its own, not rayon's: a rayon task waiting for the records
/// (see [`TraceStore::integrity`]) must not hold up the check it waits for.
fn check_on_own_threads(
    map: &Mapped,
    sections: &[(usize, usize, u32)],
    populated: bool,
) -> Option<usize> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let found = AtomicUsize::new(usize::MAX);
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    std::thread::scope(|s| {
        for _ in 0..workers.min(sections.len()) {
            s.spawn(|| {
                while found.load(Ordering::Relaxed) == usize::MAX {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&section) = sections.get(i) else {
                        break;
                    };
                    if differs(map, section, populated) {
                        found.fetch_min(i, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let i = found.load(Ordering::Relaxed);
    (i != usize::MAX).then_some(i)
}

/// Lets go of the pages of `len` bytes of `map` from `at` (see
/// [`crate::TraceStore::release_mapped_pages`]).
fn release_range(map: &Mapped, at: usize, len: usize) {
    #[cfg(unix)]
    #[allow(unsafe_code)]
    // SAFETY: the map is a read-only, shared map of a file that is never changed (see
    // `map_file_with`): after MADV_DONTNEED its pages read the file's contents again, the same
    // bytes, so no slice borrowed from it sees anything change.
    let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, at, len) };
    #[cfg(not(unix))]
    let _ = (map, at, len);
}

/// A thread as [`persist_thread`] described it.
fn restore_thread(d: &mut Dec<'_>, map: &Mapped) -> Option<ThreadData> {
    let begin = TimeColumn::restore(d, map)?;
    let end = TimeColumn::restore(d, map)?;
    let value = ValueColumn::restore(d, map)?;
    let ends_sorted = d.u8()? != 0;
    if begin.len() != end.len() || begin.len() != value.len() {
        return None;
    }
    let k = d.u32()? as usize;
    let mut events = Vec::with_capacity(k.min(d.remaining()));
    for _ in 0..k {
        let ty = d.u32()?;
        let time = TimeColumn::restore(d, map)?;
        let value = ValueColumn::restore(d, map)?;
        if time.len() != value.len() {
            return None;
        }
        events.push(EventColumn { ty, time, value });
    }
    if !events.windows(2).all(|w| w[0].ty < w[1].ty) {
        return None;
    }
    let c = d.u32()? as usize;
    let mut cpus = Vec::with_capacity(c.min(d.remaining()));
    for _ in 0..c {
        cpus.push((d.u64()?, d.u32()?));
    }
    Some(ThreadData {
        states: StateColumns {
            begin,
            end,
            value,
            ends_sorted,
        },
        events,
        cpus,
    })
}

/// The store the description `d` gives, with where its records end in the file (its first
/// view and messages' index are after them).
fn restore(d: &mut Dec<'_>, map: &Mapped) -> Option<(TraceStore, usize)> {
    let n = d.u32()? as usize;
    let mut threads = Vec::with_capacity(n.min(d.remaining()));
    for _ in 0..n {
        threads.push(restore_thread(d, map)?);
    }
    let at = usize::try_from(d.u64()?).ok()?;
    let len = usize::try_from(d.u64()?).ok()?;
    let comms: Buf<Comm> = Buf::mapped(map, at, len)?;
    let records_end = at.checked_add(len.checked_mul(std::mem::size_of::<Comm>())?)?;
    let mut views = Vec::new();
    if d.u8()? != 0 {
        views.push(crate::signal::restore_view(d, map, threads.len())?);
    }
    let comm_index = if d.u8()? != 0 {
        Some(Arc::new(CommIndex::restore(d, map, comms.len())?))
    } else {
        None
    };
    let policy = NullPolicy {
        sentinel: d.u64()?,
        zero_is_null: d.u8()? != 0,
    };
    let counts = RecordCounts {
        states: d.u64()?,
        events: d.u64()?,
        comms: d.u64()?,
        null_values: d.u64()?,
    };
    let end_time = d.u64()?;
    let loaded: Vec<bool> = d.bytes()?.iter().map(|&b| b != 0).collect();
    if !loaded.is_empty() && loaded.len() != threads.len() {
        return None;
    }
    let k = d.u32()? as usize;
    let mut inversions = Vec::with_capacity(k.min(d.remaining()));
    for _ in 0..k {
        inversions.push((d.u32()?, d.u32()?));
    }
    let store = TraceStore {
        threads,
        comms,
        policy,
        counts,
        end_time,
        loaded,
        inversions,
        mapped: crate::Backing {
            map: Some(Arc::clone(map)),
            views,
            comm_index,
            deferred: None,
        },
    };
    Some((store, records_end))
}

/// Is the file at `path` a cache file of this layout, as long as its header says? (A quick
/// look: [`open`] checks everything.)
pub fn looks_whole(path: &Path) -> bool {
    let Ok(mut f) = File::open(path) else {
        return false;
    };
    let mut head = [0u8; HEADER];
    if std::io::Read::read_exact(&mut f, &mut head).is_err() {
        return false;
    }
    let len = f.metadata().map_or(0, |m| m.len());
    let mut d = Dec(&head);
    d.take(8) == Some(MAGIC.as_slice()) && d.u32() == Some(FORMAT_VERSION) && {
        d.u32();
        d.u64();
        d.u64();
        d.u32();
        d.u32();
        d.u64() == Some(len)
    }
}

#[cfg(test)]
mod tests;

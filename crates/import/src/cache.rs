//! The store cache of loaded traces (the file layout is [`prvscope_store::cache`]'s).
//!
//! After a load, the store is written under the cache folder (`$XDG_CACHE_HOME/prvscope`, else
//! `~/.cache/prvscope`, or the folder given) in a file named after its key: the trace's
//! canonical path, size and modification time, the `.pcf`'s size and modification time (it
//! decides the null sentinel), the load options that change the store (null handling, the
//! part loaded) and the program's version, size and modification time (a rebuilt prvscope
//! parses again). Re-opening the same trace maps that file and uses its
//! columns in place. The key is stored in the file and compared too, so a name collision is a
//! miss, never a wrong store.
//!
//! The file is named after what is loaded and after the whole key, so that writing a store
//! removes the files of older versions of the same trace (or of another prvscope build).
//!
//! Side files are read again on every open (they are small, and may have been edited); the
//! body's load report comes from the cache. The folder is kept under a size limit: after a
//! write, the files used least recently (a hit touches its file) are removed until the rest
//! fit, and files left by a write that did not finish are removed once an hour old.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use prvscope_format::{Issue, IssueKind, LoadReport};
use prvscope_store::NullPolicy;
use prvscope_store::cache::{self as layout, CacheError, Dec, Enc};
pub use prvscope_store::cache::{CacheReport, CacheState};

use std::sync::Arc;
use std::time::Instant;

use prvscope_format::LoadError;
use prvscope_store::{LoadStats, TextIndex, TextPiece, Trace};

use crate::{Compression, LoadOptions};

/// File name ending of cache files.
pub const EXTENSION: &str = "prvc";
/// The default size limit of the cache folder.
pub const DEFAULT_LIMIT: u64 = 20 << 30;

/// Where the cache is and how large it may grow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheOptions {
    pub dir: PathBuf,
    /// Bytes the folder's cache files may take together.
    pub limit_bytes: u64,
}

impl CacheOptions {
    /// `$XDG_CACHE_HOME/prvscope`, else `$HOME/.cache/prvscope`; `None` when neither is set.
    pub fn default_dir() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".cache"))
            })?;
        Some(base.join("prvscope"))
    }

    /// The default folder and limit, if there is a default folder.
    pub fn standard() -> Option<Self> {
        Some(CacheOptions {
            dir: Self::default_dir()?,
            limit_bytes: DEFAULT_LIMIT,
        })
    }
}

/// The key of a load of `path` with `options` (see the module documentation).
pub(crate) fn key(path: &Path, policy: NullPolicy, options: &LoadOptions) -> Option<String> {
    let canonical = std::fs::canonicalize(path).ok()?;
    let stamp = |p: &Path| {
        std::fs::metadata(p).ok().map(|m| {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}@{mtime}", m.len())
        })
    };
    let trace = stamp(&canonical)?;
    let pcf = stamp(&crate::source::side_file(&canonical, "pcf")).unwrap_or_default();
    // The program that parsed: a rebuilt or upgraded prvscope parses again.
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| stamp(&p))
        .unwrap_or_default();
    // What is loaded first (it names the file's family), then what it was loaded from.
    Some(format!(
        "trace {}\nnull {:?} {}\nsubset {:?}\nprvscope {} {program} layout {}\nstamp {trace}\npcf {pcf}\n",
        canonical.display(),
        options.null,
        policy.sentinel,
        options.subset,
        env!("CARGO_PKG_VERSION"),
        layout::FORMAT_VERSION,
    ))
}

fn fnv(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The file of `key` in `dir`: `FAMILY-KEY.prvc`, 64-bit FNV-1a hashes of what is loaded
/// (trace, null option, part) and of the whole key. A store written for a trace replaces the
/// files of its family: those of an older version of the trace or of another prvscope.
pub(crate) fn file_for(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!(
        "{:016x}-{:016x}.{EXTENSION}",
        family(key),
        fnv(key)
    ))
}

fn family(key: &str) -> u64 {
    fnv(key.split("\nprvscope ").next().unwrap_or(key))
}

/// Removes the other files of `file`'s family (see [`file_for`]).
pub(crate) fn remove_family(dir: &Path, file: &Path) {
    let Some(prefix) = file
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split_once('-'))
        .map(|(f, _)| format!("{f}-"))
    else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p != file && name.starts_with(&prefix) && name.ends_with(EXTENSION) {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// The cache's part in a load: what it did, and where a parsed store goes.
#[derive(Default)]
pub(crate) struct CachedLoad {
    report: CacheReport,
    target: Option<(CacheOptions, PathBuf, String)>,
}

impl CachedLoad {
    /// Looks for the store of this load in the cache: the store when it is there and sound;
    /// otherwise remembers where the parsed store goes (and why a file there was refused).
    pub(crate) fn look_up(
        &mut self,
        path: &Path,
        policy: NullPolicy,
        options: &LoadOptions,
    ) -> Option<Hit> {
        let opts = options.cache.as_ref()?;
        let key = key(path, policy, options)?;
        let file = file_for(&opts.dir, &key);
        remove_abandoned(&opts.dir);
        self.report.file = Some(file.clone());
        let mut opened = open(&file, &key, options.read_once, options.cache_check);
        if matches!(opened, Ok(None)) && wait_for_writers(&file) {
            opened = open(&file, &key, options.read_once, options.cache_check);
        }
        match opened {
            Ok(Some(hit)) => return Some(hit),
            Ok(None) => {}
            Err(why) => self.report.refused = Some(why),
        }
        self.target = Some((opts.clone(), file, key));
        None
    }

    /// Where a store that was not found goes: the folder's options, the file and its key.
    pub(crate) fn target(&self) -> Option<&(CacheOptions, PathBuf, String)> {
        self.target.as_ref()
    }

    /// Says that the store was converted into the cache file ([`crate::convert`]).
    pub(crate) fn converted(&mut self) {
        self.report.state = CacheState::Built;
    }

    /// Writes the parsed store (unless the trace changed while it was read, or the caller
    /// writes it later) and says so.
    pub(crate) fn finish(
        self,
        trace: &mut Trace,
        compression: Compression,
        bytes_read: u64,
        defer: bool,
    ) {
        trace.cache = self.report;
        let Some((opts, file, key)) = self.target else {
            return;
        };
        trace.cache.state = if defer {
            CacheState::Pending
        } else {
            write_store(trace, &opts, &file, key, (compression, bytes_read), None)
        };
    }
}

/// The kinds of issues found in the side files, which are read again on every open (the
/// cache keeps the body's).
const SIDE_KINDS: [IssueKind; 4] = [
    IssueKind::PcfLine,
    IssueKind::RowLine,
    IssueKind::SideFile,
    IssueKind::SideFileMismatch,
];

/// What a load reported of the trace's body (its side files' issues left out).
pub(crate) fn body_report(report: &LoadReport) -> LoadReport {
    let mut out = LoadReport::default();
    let examples: Vec<&Issue> = report
        .examples()
        .iter()
        .filter(|i| !SIDE_KINDS.contains(&i.kind))
        .collect();
    for (kind, n) in report.counts().filter(|(k, _)| !SIDE_KINDS.contains(k)) {
        let shown = examples.iter().filter(|i| i.kind == kind).count() as u64;
        out.add_count(kind, n.saturating_sub(shown));
    }
    for issue in examples {
        out.push(issue.clone());
    }
    out
}

fn write_store(
    trace: &Trace,
    opts: &CacheOptions,
    file: &Path,
    key: String,
    (compression, bytes_read): (Compression, u64),
    pool: Option<&rayon::ThreadPool>,
) -> CacheState {
    if trace.report.count(IssueKind::FileChanged) > 0 {
        return CacheState::NotWritten("the trace changed while it was read".into());
    }
    let extra = Extra {
        key,
        compression,
        bytes_read,
        bytes_decoded: trace.stats.bytes_decoded,
        report: body_report(&trace.report),
        text_index: trace.text_index.clone(),
    };
    match write(opts, file, &trace.store, &extra, pool) {
        Ok(()) => CacheState::Built,
        Err(why) => CacheState::NotWritten(why),
    }
}

/// How long a load waits for another process that writes the store it looks for.
const WAIT_FOR_WRITER: Duration = Duration::from_mins(2);

/// Waits while another live process writes `file` (a command that went on writing its
/// store after it returned, see [`write_later_on`]), for at most [`WAIT_FOR_WRITER`]: opening
/// the store it writes costs less than parsing the trace again. Whether there was one.
fn wait_for_writers(file: &Path) -> bool {
    let me = std::process::id();
    let live = || {
        layout::writers(file)
            .into_iter()
            .any(|pid| pid != me && process_alive(pid))
    };
    if !live() {
        return false;
    }
    let start = Instant::now();
    while live() && !file.exists() && start.elapsed() < WAIT_FOR_WRITER {
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Removes from the cache folder `dir` the temporary files of store writes whose process is
/// gone (a viewer or a command stopped in the middle of a write): an interrupted write leaves
/// nothing behind past the next load that uses the cache. The writes of live processes are
/// left alone. Returns how many files were removed.
pub fn remove_abandoned(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let me = std::process::id();
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(writer_of) else {
            continue;
        };
        if pid != me && !process_alive(pid) && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The process id in a cache file's temporary name (`STEM.tmpPID-N`), if it is one.
fn writer_of(name: &str) -> Option<u32> {
    let (stem, rest) = name.rsplit_once(".tmp")?;
    let (pid, n) = rest.split_once('-')?;
    (!stem.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty())
        .then(|| pid.parse().ok())
        .flatten()
}

/// Whether process `pid` is running (a zombie, finished, counts as not).
fn process_alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            // The state follows the command name's closing parenthesis.
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next())
                .is_some_and(|state| state != 'Z' && state != 'X')
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        false
    }
}

/// Writes the store of `trace`, loaded (and parsed) with `options`, to the cache, as a load
/// with [`LoadOptions::defer_cache_write`] left to its caller: what the cache now holds.
pub fn write_later(trace: &Trace, options: &LoadOptions) -> CacheState {
    write_later_on(trace, options, None)
}

/// [`write_later`], its parallel work on `pool` when given (rather than rayon's global pool:
/// a process forked to write the store after its parent returns has no threads in that pool).
pub fn write_later_on(
    trace: &Trace,
    options: &LoadOptions,
    pool: Option<&rayon::ThreadPool>,
) -> CacheState {
    let Some(opts) = &options.cache else {
        return CacheState::Off;
    };
    let Some(key) = key(&trace.path, trace.store.null_policy(), options) else {
        return CacheState::NotWritten(format!("{} cannot be read", trace.path.display()));
    };
    let file = file_for(&opts.dir, &key);
    write_store(
        trace,
        opts,
        &file,
        key,
        (trace.stats.compression, trace.stats.bytes_read),
        pool,
    )
}

/// A trace whose store comes from the cache: the header is read again from the trace's first
/// line, the side files were just read, the body's report is the cached one.
pub(crate) fn from_cache(
    path: &Path,
    hit: Hit,
    side: crate::SideFiles,
    compression: Compression,
    options: &LoadOptions,
    started: Instant,
    mut cached: CachedLoad,
) -> Result<Trace, LoadError> {
    let line = crate::estimate::first_line(path, compression).map_err(|reason| LoadError::Io {
        path: path.to_path_buf(),
        reason,
    })?;
    let (header, _) = crate::split_header(path, &line)?;
    let crate::SideFiles {
        pcf,
        row,
        mut report,
        ..
    } = side;
    report.merge(hit.extra.report);
    let store = hit.store;
    let (types, rows) = (store.event_types(), store.thread_count());
    crate::check_side_files(path, &types, rows, pcf.as_ref(), row.as_ref(), &mut report);
    report.sort_examples();
    if cached.report.state != CacheState::Built {
        cached.report.state = CacheState::Hit;
    }
    Ok(Trace {
        path: path.to_path_buf(),
        part: crate::loaded_part(&options.subset, &header),
        header,
        pcf,
        row,
        store: Arc::new(store),
        report,
        stats: LoadStats {
            compression: hit.extra.compression,
            bytes_read: hit.extra.bytes_read,
            bytes_decoded: hit.extra.bytes_decoded,
            load_seconds: started.elapsed().as_secs_f64(),
        },
        shipped_sources: Vec::new(),
        shipped_text: None,
        cache: cached.report,
        text_index: hit.extra.text_index,
    })
}

/// What the cache holds beside the store.
#[derive(Debug)]
pub(crate) struct Extra {
    pub key: String,
    pub compression: Compression,
    pub bytes_read: u64,
    pub bytes_decoded: u64,
    /// The body's report (the side files' is made again on every open).
    pub report: LoadReport,
    /// What each piece of the text holds ([`Trace::text_index`]).
    pub text_index: Option<Arc<TextIndex>>,
}

fn compression_code(c: Compression) -> u8 {
    match c {
        Compression::None => 0,
        Compression::Xz => 1,
        Compression::Gzip => 2,
    }
}

impl Extra {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.str(&self.key);
        e.u8(compression_code(self.compression));
        e.u64(self.bytes_read);
        e.u64(self.bytes_decoded);
        let counts: Vec<(IssueKind, u64)> = self.report.counts().collect();
        e.u32(counts.len() as u32);
        for (kind, n) in counts {
            e.u32(kind_code(kind));
            e.u64(n);
        }
        e.u32(self.report.examples().len() as u32);
        for i in self.report.examples() {
            e.u32(kind_code(i.kind));
            e.str(&i.file.to_string_lossy());
            e.u64(i.line);
            e.u64(i.column);
            e.str(&i.message);
        }
        e.u8(u8::from(self.text_index.is_some()));
        if let Some(index) = &self.text_index {
            e.u64(index.start);
            e.u64(index.pieces.len() as u64);
            for p in &index.pieces {
                e.u64(p.len);
                e.u8(p.holds);
                for v in [
                    p.state_begin,
                    p.state_end,
                    p.event_first,
                    p.event_last,
                    p.message_send,
                    p.message_reach,
                    p.first,
                    p.last,
                ] {
                    e.u64(v);
                }
            }
        }
        e.0
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let mut d = Dec(bytes);
        let key = d.str()?.to_string();
        let compression = match d.u8()? {
            0 => Compression::None,
            1 => Compression::Xz,
            2 => Compression::Gzip,
            _ => return None,
        };
        let bytes_read = d.u64()?;
        let bytes_decoded = d.u64()?;
        let mut counts = Vec::new();
        for _ in 0..d.u32()? {
            counts.push((kind_of(d.u32()?)?, d.u64()?));
        }
        let mut report = LoadReport::default();
        let mut examples = Vec::new();
        for _ in 0..d.u32()? {
            let kind = kind_of(d.u32()?)?;
            let file = PathBuf::from(d.str()?);
            let (line, column) = (d.u64()?, d.u64()?);
            let message = d.str()?.to_string();
            examples.push(Issue {
                kind,
                file,
                line,
                column,
                message,
            });
        }
        // Examples count once each; the rest of each kind's count has no example.
        for (kind, n) in counts {
            let shown = examples.iter().filter(|i| i.kind == kind).count() as u64;
            report.add_count(kind, n.saturating_sub(shown));
        }
        for issue in examples {
            report.push(issue);
        }
        let text_index = if d.u8()? == 0 {
            None
        } else {
            let mut index = TextIndex::new(d.u64()?, TextIndex::PIECE);
            for _ in 0..d.u64()? {
                let (len, holds) = (d.u64()?, d.u8()?);
                let mut v = [0u64; 8];
                for x in &mut v {
                    *x = d.u64()?;
                }
                index.pieces.push(TextPiece {
                    len,
                    holds,
                    state_begin: v[0],
                    state_end: v[1],
                    event_first: v[2],
                    event_last: v[3],
                    message_send: v[4],
                    message_reach: v[5],
                    first: v[6],
                    last: v[7],
                });
            }
            Some(Arc::new(index))
        };
        Some(Extra {
            key,
            compression,
            bytes_read,
            bytes_decoded,
            report,
            text_index,
        })
    }
}

fn kind_code(kind: IssueKind) -> u32 {
    IssueKind::ALL
        .iter()
        .position(|&k| k == kind)
        .map_or(u32::MAX, |i| i as u32)
}

fn kind_of(code: u32) -> Option<IssueKind> {
    IssueKind::ALL.get(code as usize).copied()
}

/// A store read from the cache.
pub(crate) struct Hit {
    pub store: prvscope_store::TraceStore,
    pub extra: Extra,
}

/// Opens the cache file for `key`: `Ok(None)` when there is none, `Err` with the reason when
/// there is one that cannot be used (it is removed). `read_once` and `check`: see
/// [`LoadOptions::read_once`](crate::LoadOptions::read_once) and [`CacheCheck`].
pub(crate) fn open(
    file: &Path,
    key: &str,
    read_once: bool,
    check: CacheCheck,
) -> Result<Option<Hit>, String> {
    let Ok(meta) = std::fs::metadata(file) else {
        return Ok(None);
    };
    let refuse = |why: String| {
        let _ = std::fs::remove_file(file);
        Err(format!("{}: {why}", file.display()))
    };
    // Read in one pass only what can stay in memory beside the rest of the load.
    let populate_below = if read_once {
        0
    } else {
        crate::estimate::available_memory().map_or(u64::MAX, |a| a / 2)
    };
    let later = match check {
        CacheCheck::AtOpen => false,
        CacheCheck::LaterWhenLarge => meta.len() > populate_below,
        CacheCheck::Later => true,
    };
    let later = later.then(|| remove_if_corrupt(file, &meta));
    let opened = match layout::open_checked(file, populate_below, later) {
        Ok(o) => o,
        Err(CacheError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return refuse(e.to_string()),
    };
    let Some(extra) = Extra::decode(&opened.extra) else {
        return refuse("corrupt cache: unreadable load facts".into());
    };
    if extra.key != key {
        return refuse("stale cache: written for another trace or version".into());
    }
    // Used now: the least recently used files are evicted first.
    if let Ok(f) = File::options().append(true).open(file) {
        let _ = f.set_modified(SystemTime::now());
    }
    Ok(Some(Hit {
        store: opened.store,
        extra,
    }))
}

/// When a cache file's sections are checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheCheck {
    /// Every section before the load returns.
    #[default]
    AtOpen,
    /// A file larger than half the memory available (one that cannot stay in memory, so
    /// that checking it first would read it all from the disk before the first frame) has
    /// its records' sections checked after the load returns, in the background; the other
    /// sections, the first view's among them, before. A use of the records waits for the
    /// check; a corrupt section empties them and removes the file (see
    /// [`prvscope_store::TraceStore::integrity`]).
    LaterWhenLarge,
    /// Every file's records checked after the load returns (tests).
    Later,
}

/// What a check after the open does with a corrupt file: removes it, unless it was replaced
/// meanwhile (a rebuilt file at the same path is not this one).
fn remove_if_corrupt(file: &Path, opened: &std::fs::Metadata) -> layout::OnCorrupt {
    use std::os::unix::fs::MetadataExt as _;
    let (file, id) = (file.to_path_buf(), (opened.dev(), opened.ino()));
    Box::new(move |_why: &str| {
        if std::fs::metadata(&file).is_ok_and(|m| (m.dev(), m.ino()) == id) {
            let _ = std::fs::remove_file(&file);
        }
    })
}

/// Writes the cache file of a load, then keeps the folder under its limit.
pub(crate) fn write(
    options: &CacheOptions,
    file: &Path,
    store: &Arc<prvscope_store::TraceStore>,
    extra: &Extra,
    pool: Option<&rayon::ThreadPool>,
) -> Result<(), String> {
    std::fs::create_dir_all(&options.dir)
        .map_err(|e| format!("could not create {}: {e}", options.dir.display()))?;
    layout::write_on(store, &extra.encode(), file, pool)
        .map_err(|e| format!("could not write {}: {e}", file.display()))?;
    remove_family(&options.dir, file);
    evict(&options.dir, options.limit_bytes, file);
    Ok(())
}

/// Removes the least recently used cache files of `dir` until the others take at most
/// `limit` bytes (never `keep`, just written), and unfinished writes older than an hour.
pub fn evict(dir: &Path, limit: u64, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    let mut files = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        let Ok(meta) = e.metadata() else { continue };
        let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        let ext = path.extension().and_then(|x| x.to_str()).unwrap_or("");
        if ext == EXTENSION {
            files.push((used, meta.len(), path));
        } else if ext.starts_with("tmp")
            && now.duration_since(used).unwrap_or_default() > Duration::from_hours(1)
        {
            let _ = std::fs::remove_file(&path);
        }
    }
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut total = 0u64;
    for (_, len, path) in files {
        total = total.saturating_add(len);
        if total > limit && path != keep {
            let _ = std::fs::remove_file(&path);
            total -= len;
        }
    }
}

/// Does the cache hold a store for loading `subset` of `path` (a file of the right key whose
/// header is sound)? Reads the `.pcf` for the null sentinel, not the trace; for deciding
/// whether a memory check is needed (opening still checks the whole file).
pub fn is_cached(path: &Path, subset: &prvscope_format::Subset, options: &CacheOptions) -> bool {
    let mut report = LoadReport::default();
    let pcf = std::fs::read(crate::source::side_file(path, "pcf"))
        .ok()
        .map(|text| prvscope_format::Pcf::parse(&text, path, &mut report));
    let load = LoadOptions {
        subset: subset.clone(),
        ..LoadOptions::default()
    };
    let policy = prvscope_store::null::resolve_policy(load.null, pcf.as_ref());
    key(path, policy, &load).is_some_and(|k| layout::looks_whole(&file_for(&options.dir, &k)))
}

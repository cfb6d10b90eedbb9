//! The subcommands other than the viewer, one file each, and what they share: loading a
//! trace (whole or a part, after a memory check) and the options for it.

mod background;
pub mod cluster;
pub mod compare;
pub mod cut;
pub mod export;
pub mod generate;
pub mod info;
pub mod paramedir;
pub mod pop;
pub mod render;
pub mod scopes;
pub mod stats;

use std::path::Path;

use prvscope_format::units::parse_size;
use prvscope_format::{Subset, ThreadSpec};
use prvscope_import::cache::{CacheCheck, CacheOptions, CacheState};
use prvscope_import::{self as trace, LoadOptions};
use prvscope_store::{NullOverride, Trace};

/// Loading part of a trace, for traces too large for the machine's memory.
#[derive(clap::Args)]
pub struct PartArgs {
    /// Load only the records from this time on (trace ticks), plus the value each event
    /// type has at that time; for `stats` and `scopes`, the window's start (default 0).
    #[arg(long)]
    pub from: Option<u64>,
    /// Load only the records up to this time (trace ticks); for `stats` and `scopes`, the
    /// window's end (default: the trace's duration).
    #[arg(long)]
    pub to: Option<u64>,
    /// Load only these threads: rows `1-8,12` (1-based, in timeline order), threads `1.2.1`
    /// (application.task.thread), tasks `1.2`.
    #[arg(long)]
    pub threads: Option<ThreadSpec>,
    /// Load even when the estimate says the machine lacks the memory.
    #[arg(long)]
    pub skip_memory_check: bool,
    /// Memory to count on instead of what the machine has available, e.g. 8GB (on a shared
    /// node).
    #[arg(long, value_parser = parse_size)]
    pub memory_budget: Option<u64>,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// The store cache: a loaded trace's store is written once and re-opened from the file.
#[derive(clap::Args, Clone, Default)]
pub struct CacheArgs {
    /// Neither read nor write the store cache (parse the trace every time).
    #[arg(long)]
    pub no_cache: bool,
    /// The store cache folder (default: $XDG_CACHE_HOME/prvscope, else ~/.cache/prvscope).
    #[allow(clippy::doc_markdown)] // the command-line help shows it as written
    #[arg(long)]
    pub cache_dir: Option<std::path::PathBuf>,
    /// Size limit of the store cache folder, e.g. 20GB (the least recently used stores are
    /// removed first).
    #[arg(long, value_parser = parse_size)]
    pub cache_limit: Option<u64>,
    /// Convert the trace into the store cache in batches that fit in memory, then open it
    /// from there (done without asking when the whole trace does not fit in memory).
    #[arg(long)]
    pub convert: bool,
}

impl CacheArgs {
    /// The cache these options ask for; `None` with `--no-cache` or without a cache folder.
    pub fn options(&self) -> Option<CacheOptions> {
        if self.no_cache {
            return None;
        }
        Some(CacheOptions {
            dir: self.cache_dir.clone().or_else(CacheOptions::default_dir)?,
            limit_bytes: self.cache_limit.unwrap_or(trace::cache::DEFAULT_LIMIT),
        })
    }
}

impl PartArgs {
    /// Loads `subset` of `trace` through the store cache these options ask for, after the
    /// memory check (unless skipped).
    pub fn load(&self, trace: &Path, null: NullOverride, subset: &Subset) -> anyhow::Result<Trace> {
        self.load_with(trace, null, subset, CacheCheck::AtOpen)
    }

    /// [`PartArgs::load`], with a cache file's sections checked as `check` says.
    pub fn load_with(
        &self,
        trace: &Path,
        null: NullOverride,
        subset: &Subset,
        check: CacheCheck,
    ) -> anyhow::Result<Trace> {
        let budget = (!self.skip_memory_check).then_some(self.memory_budget);
        load_checked(trace, null, subset, &self.cache, budget, check)
    }

    pub fn subset(&self) -> Subset {
        Subset {
            from: self.from,
            to: self.to,
            threads: self.threads.clone(),
        }
    }
}

/// The loading, window and output options that `stats` and `scopes` share.
#[derive(clap::Args)]
pub struct WindowArgs {
    #[command(flatten)]
    pub part: PartArgs,
    /// Print CSV.
    #[arg(long)]
    pub csv: bool,
    /// How to read nulls (see `info`).
    #[arg(long, default_value = "auto")]
    pub null: NullOverride,
}

impl WindowArgs {
    /// Loads the trace (only the window when `window_only`) and checks the window against
    /// it: (trace, t0, t1).
    pub fn load(
        &self,
        trace: &std::path::Path,
        window_only: bool,
    ) -> anyhow::Result<(Trace, u64, u64)> {
        let part = &self.part;
        let mut subset = part.subset();
        if !window_only {
            (subset.from, subset.to) = (None, None);
        }
        let t = part.load(trace, self.null, &subset)?;
        let t0 = part.from.unwrap_or(0);
        let t1 = part.to.unwrap_or(t.header.end_time);
        anyhow::ensure!(t1 >= t0, "--to ({t1}) is before --from ({t0})");
        Ok((t, t0, t1))
    }
}

/// Refuses a load that is expected to need more memory than the machine has, with what can
/// be loaded instead (the operating system would otherwise kill the process mid-way).
/// `budget` replaces the memory the machine has available. A trace whose store the cache
/// holds needs no check: it is mapped, not parsed.
/// Loads `subset` of `path` through the store cache `cache` asks for, after the memory check
/// unless `check` is `None` (`Some(budget)`: check, against `budget` instead of the memory
/// available when given); converts it instead when asked to or when the whole trace does not
/// fit. `cache_check` says when a cache file's sections are checked (only a command that does
/// not use the records may leave them to later: a use of records found corrupt finds them
/// empty).
pub fn load_checked(
    path: &Path,
    null: NullOverride,
    subset: &Subset,
    cache: &CacheArgs,
    check: Option<Option<u64>>,
    cache_check: CacheCheck,
) -> anyhow::Result<Trace> {
    background::let_go();
    let options = cache.options();
    let fit = match check {
        Some(budget) => check_memory(path, subset, budget, options.as_ref())?,
        None => Fit::Load,
    };
    // One set of options for both ways in: a converted trace is opened from its new cache
    // file as a cached one is (it was checked whole after the conversion otherwise).
    let mut opts = LoadOptions {
        null,
        subset: subset.clone(),
        cache: options,
        cache_check,
        ..LoadOptions::default()
    };
    if cache.convert || fit == Fit::Convert {
        return Ok(trace::convert::convert(path, &opts, None, None)?);
    }
    // A parsed store is written to the cache while the command works with it.
    opts.defer_cache_write = true;
    let mut t = trace::load(path, &opts, None)?;
    if t.cache.state == CacheState::Pending {
        // Written by a process of its own where the system allows it: the command returns
        // when its own work is done.
        if let Some(state) = background::detach(&t, &opts) {
            t.cache.state = state;
            return Ok(t);
        }
        let (writing, options) = (t.clone(), opts);
        let handle = std::thread::spawn(move || trace::cache::write_later(&writing, &options));
        let mut pending = PENDING_CACHE_WRITE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // One load per command; a second one waits for the first's write.
        if let Some(earlier) = pending.replace(handle) {
            report_cache_write(earlier.join());
        }
    }
    Ok(t)
}

/// The store cache write of the command's load, running beside the command.
static PENDING_CACHE_WRITE: std::sync::Mutex<Option<std::thread::JoinHandle<CacheState>>> =
    std::sync::Mutex::new(None);

/// Waits for the store cache write started by the command's load, if any: what the cache
/// now holds (`None`: no write was started).
pub fn finish_cache_write() -> Option<CacheState> {
    let handle = PENDING_CACHE_WRITE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()?;
    Some(
        handle
            .join()
            .unwrap_or_else(|_| CacheState::NotWritten("the cache write failed".into())),
    )
}

/// Says on stderr why a store cache write failed (a command's output does not say it).
fn report_cache_write(result: std::thread::Result<CacheState>) {
    match result {
        Ok(CacheState::NotWritten(why)) => eprintln!("warning: store cache not written: {why}"),
        Err(_) => eprintln!("warning: store cache not written: the write failed"),
        Ok(_) => {}
    }
}

/// Lets a command's trace go without freeing it, when nothing follows but the process's exit:
/// the system takes the memory back at once, instead of the store's allocations being freed
/// one by one (0.04 s for the generated 1 GB trace of 4096 threads, 0.01 s with 64).
pub fn let_go_at_exit(t: Trace) {
    std::mem::forget(t);
}

/// At the end of a command: waits for its store cache write and says if it failed.
pub fn end_command() {
    if let Some(state) = finish_cache_write() {
        report_cache_write(Ok(state));
    }
}

/// What the memory check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Load it (it fits, or it is in the store cache already).
    Load,
    /// Convert it into the store cache a batch at a time: the whole trace does not fit.
    Convert,
}

/// Checks that `subset` of `path` fits in memory (in `budget` bytes when given). A whole
/// trace that does not fit is converted when there is a store cache to convert it into;
/// otherwise (and for a part that does not fit) the error says what can be done.
pub fn check_memory(
    path: &Path,
    subset: &Subset,
    budget: Option<u64>,
    cache: Option<&CacheOptions>,
) -> anyhow::Result<Fit> {
    if let Some(c) = cache
        && trace::cache::is_cached(path, subset, c)
    {
        return Ok(Fit::Load);
    }
    let Ok(mut e) = trace::estimate::estimate(path) else {
        // The load reports why the file cannot be read.
        return Ok(Fit::Load);
    };
    if budget.is_some() {
        e.available_bytes = budget;
    }
    let Some(available) = e.available_bytes else {
        return Ok(Fit::Load);
    };
    if subset.is_whole() {
        if e.too_large() && cache.is_some() {
            eprintln!(
                "prvscope: {}: the whole trace needs about {} of memory and {} is available: converting it into the store cache a batch at a time (once; later opens read the cache)",
                path.display(),
                prvscope_format::units::human_bytes(e.whole_bytes),
                prvscope_format::units::human_bytes(available)
            );
            return Ok(Fit::Convert);
        }
        anyhow::ensure!(
            !e.too_large(),
            "{} Use --from/--to and --threads for that, leave out --no-cache to convert it into the store cache a batch at a time, or --skip-memory-check to load it all anyway.",
            e.advice(path)
        );
    } else {
        let need = e.bytes_for(subset);
        anyhow::ensure!(
            need <= available,
            "{}: loading {subset} needs about {}, and this machine has {} available; choose a smaller part (or --skip-memory-check).",
            path.display(),
            prvscope_format::units::human_bytes(need),
            prvscope_format::units::human_bytes(available)
        );
    }
    Ok(Fit::Load)
}

/// Prints the load report's warnings on standard error.
fn print_warnings(t: &Trace) {
    print_warnings_of(t, None);
}

/// [`print_warnings`], each line naming `name` when several traces are read.
fn print_warnings_of(t: &Trace, name: Option<&Path>) {
    let of = name.map_or_else(String::new, |n| format!("{}: ", n.display()));
    for w in t.report.warnings() {
        eprintln!("warning: {of}{w}");
    }
    for note in t.incomplete() {
        eprintln!("note: {of}{note}");
    }
}

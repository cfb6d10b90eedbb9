//! Loading traces off the UI thread: progress (bytes, MB/s), cancel, and the result handed
//! back to the app. The embedded demo trace loads the same way.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::jobs::Job;
use super::timeline::Timeline;
use prvscope_analysis::source::SourceFinder;
use prvscope_format::Pcf;
use prvscope_format::RowNames;
use prvscope_format::{LoadError, LoadReport, Subset};
use prvscope_import::estimate::MemoryEstimate;
use prvscope_import::{self as trace, LoadOptions, LoadProgress};
use prvscope_store::{NullOverride, Trace};

/// The embedded demo trace (written by `prvscope gen`, see `assets/demo`).
pub const DEMO_PRV: &[u8] = include_bytes!("../../../assets/demo/demo.prv");
const DEMO_PCF: &[u8] = include_bytes!("../../../assets/demo/demo.pcf");
const DEMO_ROW: &[u8] = include_bytes!("../../../assets/demo/demo.row");
/// The demo's source file, which its user functions point at.
pub const DEMO_SOURCE: (&str, &str) = ("demo.c", include_str!("../../../assets/demo/demo.c"));
/// The name the demo trace is shown under.
pub const DEMO_NAME: &str = "demo.prv";

/// What to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadSource {
    File(PathBuf),
    Demo,
}

impl LoadSource {
    /// The name shown while loading and in titles.
    pub fn display_name(&self) -> String {
        match self {
            LoadSource::File(p) => p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            LoadSource::Demo => DEMO_NAME.to_owned(),
        }
    }
}

/// What to load of a file, and whether to check first that the machine has the memory.
#[derive(Debug, Clone)]
pub struct LoadRequest {
    /// The part of the trace to load (default: all of it).
    pub subset: Subset,
    /// Load without estimating the memory first.
    pub skip_memory_check: bool,
    /// The memory to count on instead of what the machine has available (tests).
    pub available_override: Option<u64>,
    /// The store cache to re-open the trace from and write it to (none by default).
    pub cache: Option<trace::cache::CacheOptions>,
    /// Convert the whole trace into the store cache a batch at a time and open it from
    /// there ([`trace::convert`]): for a trace that does not fit in memory.
    pub convert: bool,
    /// When a store cache file's sections are checked (by default, a file that cannot stay
    /// in memory after the first frame).
    pub cache_check: trace::cache::CacheCheck,
}

impl Default for LoadRequest {
    fn default() -> Self {
        LoadRequest {
            subset: Subset::default(),
            skip_memory_check: false,
            available_override: None,
            cache: None,
            convert: false,
            cache_check: trace::cache::CacheCheck::LaterWhenLarge,
        }
    }
}

/// How a load ended.
pub enum LoadOutcome {
    Loaded(Box<(Trace, Timeline, crate::reports::LoadReport)>),
    Failed(LoadError),
    /// Not started: the whole trace is expected to need more memory than is available.
    TooLarge(PathBuf, Box<MemoryEstimate>),
}

/// A load running on its own thread.
pub struct Loading {
    pub source: LoadSource,
    pub progress: Arc<LoadProgress>,
    started: Instant,
    job: Job<LoadOutcome>,
}

impl Loading {
    /// Starts loading; `ctx` is repainted when the result is ready.
    pub fn start(
        ctx: &egui::Context,
        source: LoadSource,
        null: NullOverride,
        request: LoadRequest,
    ) -> Self {
        let progress = Arc::new(LoadProgress::default());
        let job_progress = Arc::clone(&progress);
        let job_source = source.clone();
        // The memory check runs on the loader's thread, the load on the background pool.
        let job = Job::try_spawn_outside_pool(ctx, "trace-loader", move |_| {
            load_job(&job_source, null, request, job_progress)
        })
        .unwrap_or_else(|e| {
            Job::ready(LoadOutcome::Failed(LoadError::Io {
                path: PathBuf::from(source.display_name()),
                reason: e,
            }))
        });
        Loading {
            source,
            progress,
            started: Instant::now(),
            job,
        }
    }

    /// How the load ended, once it has.
    pub fn poll(&mut self) -> Option<LoadOutcome> {
        self.job.poll()
    }

    /// Asks the loader to stop; [`Self::poll`] then returns [`LoadError::Cancelled`].
    pub fn cancel(&self) {
        self.progress.cancel.store(true, Ordering::Relaxed);
    }

    /// Bytes read so far, of how many.
    pub fn bytes(&self) -> (u64, u64) {
        (
            self.progress.bytes_done.load(Ordering::Relaxed),
            self.progress.bytes_total.load(Ordering::Relaxed),
        )
    }

    /// Read rate so far, in MB/s (of the file's bytes).
    pub fn mb_per_s(&self) -> f64 {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        self.bytes().0 as f64 / 1e6 / secs
    }

    /// Seconds since the load started.
    pub fn elapsed(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

/// The work of the loader thread: the memory check, the load, the first timeline.
fn load_job(
    source: &LoadSource,
    null: NullOverride,
    request: LoadRequest,
    progress: Arc<LoadProgress>,
) -> LoadOutcome {
    if let LoadSource::File(path) = source
        && !request.skip_memory_check
        // A conversion holds a batch at a time, whatever the trace's size.
        && !request.convert
        && request.subset.is_whole()
        // A trace the cache holds is mapped, not parsed: no memory check.
        && !request
            .cache
            .as_ref()
            .is_some_and(|c| trace::cache::is_cached(path, &request.subset, c))
        && let Ok(mut e) = trace::estimate::estimate(path)
    {
        if request.available_override.is_some() {
            e.available_bytes = request.available_override;
        }
        if e.too_large() {
            return LoadOutcome::TooLarge(path.clone(), Box::new(e));
        }
    }
    let options = LoadOptions {
        null,
        subset: request.subset,
        // The store is written once the trace is shown (App::write_cache_later), unless it
        // is converted into it.
        defer_cache_write: request.cache.is_some() && !request.convert,
        cache: request.cache,
        // A cache file that cannot stay in memory is drawn from at once and its records
        // checked meanwhile (App::poll_integrity).
        cache_check: request.cache_check,
        ..LoadOptions::default()
    };
    // The load is what the user waits for: it runs at the frames' priority, on the
    // interactive pool (nothing else asks for it before the trace is shown).
    let result = in_interactive(|| {
        let result = match source {
            LoadSource::File(path) if request.convert => {
                trace::convert::convert(path, &options, None, Some(progress))
            }
            LoadSource::File(path) => trace::load(path, &options, Some(progress)),
            LoadSource::Demo => load_demo(&options),
        };
        // The first view and the load report are made here too: on a big trace they take a
        // moment (65,536 threads: 44 ms for the report), which no frame should wait for.
        result.map(|t| {
            let timeline = Timeline::new(&t);
            let report = crate::reports::LoadReport::new(&t);
            (t, timeline, report)
        })
    });
    match result {
        Ok(pair) => LoadOutcome::Loaded(Box::new(pair)),
        Err(e) => LoadOutcome::Failed(e),
    }
}

pub use crate::jobs::{in_background, in_interactive};

/// Loads the embedded demo trace.
pub fn load_demo(options: &LoadOptions) -> Result<Trace, LoadError> {
    let name = Path::new(DEMO_NAME);
    let mut report = LoadReport::default();
    let pcf = Pcf::parse(DEMO_PCF, &name.with_extension("pcf"), &mut report);
    let row = RowNames::parse(DEMO_ROW, &name.with_extension("row"), &mut report);
    let mut trace = trace::load_bytes(name, DEMO_PRV, Some(pcf), options)?;
    trace.row = Some(row);
    trace.report.merge(report);
    trace.shipped_sources.push(DEMO_SOURCE);
    trace.shipped_text = Some(DEMO_PRV);
    Ok(trace)
}

/// Where the source files of `trace` are searched: beside it, in its parent, in `extra`
/// (the user's folders); a trace that ships its sources (the demo) is searched there only.
pub fn source_finder(trace: &Trace, extra: &[PathBuf]) -> SourceFinder {
    let mut finder = SourceFinder::for_trace(&trace.path, extra);
    if !trace.shipped_sources.is_empty() {
        finder.dirs.clear();
        finder
            .embedded
            .extend(trace.shipped_sources.iter().copied());
    }
    finder
}

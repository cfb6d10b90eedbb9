//! The store cache write of a command's load, done by a process of its own so that the command
//! returns as soon as its own work is done (as `git gc --auto` detaches, or Redis's `BGSAVE`
//! forks to write a snapshot): the forked process shares the parsed store's pages with the
//! command (copy-on-write), writes the cache file under a temporary name, renames it and exits.
//! A load of the same trace meanwhile waits for it rather than parsing again.
//!
//! The process keeps the command's standard error, so that a write that fails says why where
//! the command's warnings go (a caller that reads the command's standard error through a pipe
//! reads to its end, after the write); its standard output goes to `/dev/null`, so that a
//! pipe reading the command's output ends with the command.

use prvscope_import::LoadOptions;
use prvscope_import::cache::CacheState;
use prvscope_store::Trace;

/// A write still going after an hour is stopped (its temporary file is removed by a later
/// write's clean-up): a process of its own must never linger.
#[cfg(target_os = "linux")]
const LIMIT_SECONDS: u32 = 3600;

/// Starts the write of `trace`'s store in a process of its own: [`CacheState::Writing`], or
/// `None` when no process could be started (the caller writes it then).
#[cfg(target_os = "linux")]
pub fn detach(trace: &Trace, options: &LoadOptions) -> Option<CacheState> {
    use std::io::Write;
    // Output buffered so far is the command's: the forked process must not write it again.
    let _ = std::io::stdout().flush();
    // SAFETY: the forked process runs only the cache write (allocation, files, threads of its
    // own, a thread pool of its own: rayon's global pool has no threads there) and then
    // `_exit`s without running the command's exit handlers. No lock it takes is held across
    // the fork: the command's threads are idle workers of rayon's global pool.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => None,
        0 => {
            write_and_exit(trace, options);
        }
        _ => {
            keep(trace);
            Some(CacheState::Writing)
        }
    }
}

/// The store of the last trace whose write was detached, kept to the end of the command.
static KEPT: std::sync::Mutex<Option<std::sync::Arc<prvscope_store::TraceStore>>> =
    std::sync::Mutex::new(None);

/// Keeps `trace`'s store to the end of the command (statics are not dropped at exit): its
/// pages are shared with the writing process, and freeing them writes the allocator's
/// bookkeeping into them, a copy-on-write fault per page (80 ms for the store of a 1 GB trace,
/// against 6 ms unshared), work that the exit does at no cost.
#[cfg(target_os = "linux")]
fn keep(trace: &Trace) {
    *KEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(trace.store.clone());
}

/// Lets go of a store kept by [`keep`]: before a command's next load, so that no more than
/// the stores it uses are held.
pub fn let_go() {
    drop(
        KEPT.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take(),
    );
}

/// Not on this system: the caller writes the store itself.
#[cfg(not(target_os = "linux"))]
pub fn detach(_trace: &Trace, _options: &LoadOptions) -> Option<CacheState> {
    None
}

/// The forked process: writes the store, says on stderr if that failed, exits.
#[cfg(target_os = "linux")]
fn write_and_exit(trace: &Trace, options: &LoadOptions) -> ! {
    // SAFETY: plain system calls on this process's own descriptors and session.
    #[allow(unsafe_code)]
    unsafe {
        // Out of the command's process group: an interrupt meant for the command's next
        // command does not stop the write half-way (nothing is lost if it did).
        libc::setsid();
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
        if null >= 0 {
            libc::dup2(null, libc::STDOUT_FILENO);
            libc::close(null);
        }
        libc::alarm(LIMIT_SECONDS);
        // Behind the command's own last work (its output, its exit) on a busy machine.
        libc::nice(10);
    }
    // Never rayon's global pool: its threads stayed in the command's process.
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let state = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(2))
        .build()
        .map_err(|e| format!("no threads to write it with: {e}"))
        .and_then(|pool| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| prvscope_import::cache::write_later_on(trace, options, Some(&pool)))
            }))
            .map_err(|_| "the write failed".to_owned())
        })
        .unwrap_or_else(CacheState::NotWritten);
    let status = i32::from(matches!(state, CacheState::NotWritten(_)));
    super::report_cache_write(Ok(state));
    // SAFETY: ends this process at once, as a forked child must.
    #[allow(unsafe_code)]
    unsafe {
        libc::_exit(status)
    }
}

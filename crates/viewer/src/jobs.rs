//! Background work: a [`Job`] runs a closure on a named thread and hands its result to the UI
//! thread, which polls for it once a frame. Every job wakes the UI (requests a repaint) when
//! its result is ready, so that a finished job does not wait for the next input to be shown.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};

/// The threads that background work (loads, scope analyses) runs its parallel parts on.
/// Frames are built on rayon's global pool; if a load's long chunk tasks ran there too, a
/// frame would wait for them (a 160 ms stall was measured while a 150 MB trace loaded).
static BACKGROUND: std::sync::LazyLock<Option<rayon::ThreadPool>> =
    std::sync::LazyLock::new(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("prvscope-background-{i}"))
            .start_handler(|_| lower_priority())
            .build()
            .ok()
    });

/// The nice value of the background pool's threads where Linux refuses them its idle
/// policy (see [`lower_priority`]).
const BACKGROUND_NICE: i32 = 10;

/// Lowers the calling thread's priority: the operating system runs the frames (the UI
/// thread, rayon's global pool, the renderer's threads) and the interactive pool first, and
/// the long work (the scope analysis, the cache write, other views) on the time they leave,
/// which is all of it while the viewer waits for input. Linux's idle policy (`SCHED_IDLE`);
/// where refused, a nice value of [`BACKGROUND_NICE`] (a thread's own on Linux). Measured on
/// the 1 GB trace's `--bench-ui` (2 cores, software OpenGL), while its scope analysis runs:
/// the same priority as the frames 150-215 ms at most, nice 10 p95 43-49 ms, idle 36-38 ms.
/// Elsewhere the thread keeps its priority.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: sched_setscheduler reads the parameter we pass; gettid and setpriority take
    // plain integers; none keeps a pointer.
    #[allow(unsafe_code)]
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        if libc::sched_setscheduler(0, libc::SCHED_IDLE, &raw const param) != 0 {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, BACKGROUND_NICE);
        }
    }
}

/// Runs `work` with its rayon parallelism on the background pool (the global pool when that
/// pool could not be made).
pub fn in_background<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    match &*BACKGROUND {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Short work that answers what the user just did (a histogram following the timeline,
/// read from its kept windows in milliseconds) runs on a pool of its own: on the background
/// pool it queued behind the scope analysis of the same zoom (83-227 ms measured on the
/// 1 GB trace, for 4-13 ms of work). The operating system shares the cores among the pools'
/// threads, so it neither waits for the long work nor holds the frames' pool.
static INTERACTIVE: std::sync::LazyLock<Option<rayon::ThreadPool>> =
    std::sync::LazyLock::new(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("prvscope-interactive-{i}"))
            .build()
            .ok()
    });

/// Runs `work` with its rayon parallelism on the interactive pool (the background pool when
/// that pool could not be made).
pub fn in_interactive<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    match &*INTERACTIVE {
        Some(pool) => pool.install(work),
        None => in_background(work),
    }
}

/// Work running on its own thread, and its result once it is ready.
pub struct Job<T> {
    cancel: Arc<AtomicBool>,
    rx: Receiver<T>,
    /// The result was taken, or the work ended without one (it panicked).
    finished: bool,
}

/// Where a job's parallel parts run.
#[derive(Clone, Copy)]
enum Pool {
    Background,
    Interactive,
    /// Rayon's global pool (the frames'): for work that waits rather than computes.
    None,
}

/// Requests a repaint of its context when dropped: after the work's result was sent, or when
/// the work panicked.
struct Wake(egui::Context);

impl Drop for Wake {
    fn drop(&mut self) {
        self.0.request_repaint();
    }
}

impl<T: Send + 'static> Job<T> {
    /// Starts `work` on a thread named `name`, with its parallel parts on the background pool
    /// (see [`in_background`]); `ctx` is repainted when the result is ready. `work` is given
    /// the cancel flag, which [`Self::cancel`] sets. Panics if no thread can be started, as
    /// `std::thread::spawn` does.
    pub fn spawn(
        ctx: &egui::Context,
        name: &str,
        work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
    ) -> Self {
        Self::start_or_panic(ctx, name, Pool::Background, work)
    }

    /// [`Self::spawn`] for short work that answers a user's action, its parallel parts on
    /// the interactive pool (see [`in_interactive`]), so that it never queues behind the
    /// background pool's long work.
    pub fn spawn_interactive(
        ctx: &egui::Context,
        name: &str,
        work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
    ) -> Self {
        Self::start_or_panic(ctx, name, Pool::Interactive, work)
    }

    /// [`Self::spawn`] on a thread of its own, outside the background pool: for work that
    /// waits rather than computes (a file dialog would hold one of the pool's threads for as
    /// long as it is open), or that must not queue behind the pool's work.
    pub fn spawn_outside_pool(
        ctx: &egui::Context,
        name: &str,
        work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
    ) -> Self {
        Self::start_or_panic(ctx, name, Pool::None, work)
    }

    /// [`Self::spawn_outside_pool`], which returns the error when no thread can be started.
    pub fn try_spawn_outside_pool(
        ctx: &egui::Context,
        name: &str,
        work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
    ) -> std::io::Result<Self> {
        Self::start(ctx, name, Pool::None, work)
    }

    fn start_or_panic(
        ctx: &egui::Context,
        name: &str,
        pool: Pool,
        work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
    ) -> Self {
        Self::start(ctx, name, pool, work)
            .unwrap_or_else(|e| panic!("could not start the {name} thread: {e}"))
    }

    fn start(
        ctx: &egui::Context,
        name: &str,
        pool: Pool,
        work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
    ) -> std::io::Result<Self> {
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let flag = Arc::clone(&cancel);
        let wake = Wake(ctx.clone());
        std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                // Dropped in reverse order: the sender first (the result is in, or the job
                // reads as ended), then the repaint request.
                let _wake = wake;
                let tx = tx;
                let result = match pool {
                    Pool::Background => in_background(|| work(&flag)),
                    Pool::Interactive => in_interactive(|| work(&flag)),
                    Pool::None => work(&flag),
                };
                // The receiver is gone only when the job was dropped.
                let _ = tx.send(result);
            })?;
        Ok(Job {
            cancel,
            rx,
            finished: false,
        })
    }
}

impl<T> Job<T> {
    /// A job whose result is already there.
    pub fn ready(result: T) -> Self {
        let (tx, rx) = mpsc::channel();
        let _ = tx.send(result);
        Job {
            cancel: Arc::default(),
            rx,
            finished: false,
        }
    }

    /// The result, once it is ready; it is returned once, then `None`.
    pub fn poll(&mut self) -> Option<T> {
        if self.finished {
            return None;
        }
        match self.rx.try_recv() {
            Ok(result) => {
                self.finished = true;
                Some(result)
            }
            Err(TryRecvError::Disconnected) => {
                self.finished = true;
                None
            }
            Err(TryRecvError::Empty) => None,
        }
    }

    /// Asks the work to stop: sets the flag it was given.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// True until [`Self::poll`] has returned the result, or found that the work ended
    /// without one (it panicked).
    pub fn is_running(&self) -> bool {
        !self.finished
    }
}

/// Work that must finish even when the window closes first (the store cache's write): the
/// count of such work under way, and a wake-up when it changes.
static LINGERING: (std::sync::Mutex<usize>, std::sync::Condvar) =
    (std::sync::Mutex::new(0), std::sync::Condvar::new());

/// Held by work that outlives the window ([`lingering`]): the viewer's process, its window
/// closed, waits until every guard is dropped ([`wait_for_lingering`]).
pub struct Lingering(());

/// Marks the calling work as work the viewer finishes before its process exits.
pub fn lingering() -> Lingering {
    *LINGERING
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
    Lingering(())
}

impl Drop for Lingering {
    fn drop(&mut self) {
        let mut n = LINGERING
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *n = n.saturating_sub(1);
        LINGERING.1.notify_all();
    }
}

/// Waits, at most `limit`, until no [`Lingering`] work is under way: whether it all ended.
pub fn wait_for_lingering(limit: std::time::Duration) -> bool {
    let n = LINGERING
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (n, _) = LINGERING
        .1
        .wait_timeout_while(n, limit, |n| *n > 0)
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Polls `job` until it has its result (or a few seconds passed).
    fn wait<T>(job: &mut Job<T>) -> Option<T> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Some(result) = job.poll() {
                return Some(result);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        None
    }

    #[test]
    fn the_process_waits_for_lingering_work_and_no_longer_than_asked() {
        let guard = lingering();
        let started = Instant::now();
        let worker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(80));
            drop(guard);
        });
        assert!(wait_for_lingering(Duration::from_secs(10)));
        assert!(started.elapsed() >= Duration::from_millis(70));
        worker.join().unwrap();
        let held = lingering();
        let started = Instant::now();
        assert!(!wait_for_lingering(Duration::from_millis(50)));
        assert!(started.elapsed() >= Duration::from_millis(45));
        drop(held);
        assert!(wait_for_lingering(Duration::ZERO));
    }

    #[test]
    fn the_result_arrives_once_and_wakes_the_ui() {
        let ctx = egui::Context::default();
        let mut job = Job::spawn(&ctx, "test-job", |_| 6 * 7);
        assert!(job.is_running());
        assert_eq!(wait(&mut job), Some(42));
        assert!(!job.is_running());
        assert_eq!(job.poll(), None);
        assert!(ctx.has_requested_repaint());
    }

    #[test]
    fn cancel_sets_the_flag_the_work_reads() {
        let ctx = egui::Context::default();
        let mut job = Job::spawn_outside_pool(&ctx, "test-cancel", |cancel| {
            let started = Instant::now();
            while !cancel.load(Ordering::Relaxed) {
                if started.elapsed() > Duration::from_secs(10) {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            true
        });
        assert_eq!(job.poll(), None);
        job.cancel();
        assert_eq!(wait(&mut job), Some(true));
    }

    #[test]
    fn a_panicking_job_ends_without_a_result() {
        let ctx = egui::Context::default();
        let mut job: Job<u32> = Job::spawn_outside_pool(&ctx, "test-panic", |_| panic!("boom"));
        let started = Instant::now();
        while job.is_running() && started.elapsed() < Duration::from_secs(10) {
            assert_eq!(job.poll(), None);
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(!job.is_running());
    }

    #[test]
    fn a_ready_job_has_its_result() {
        let mut job = Job::ready("done");
        assert_eq!(job.poll(), Some("done"));
        assert_eq!(job.poll(), None);
    }
}

//! The wall time of each stage of a load, written to stderr when the environment variable
//! `PRVSCOPE_LOAD_STAGES` is set (to see which stages keep many workers waiting).

use std::sync::Mutex;
use std::time::Instant;

static LAST: Mutex<Option<Instant>> = Mutex::new(None);

/// Ends the stage called `name`: prints the time since the previous mark (or since the first
/// mark of the process, which starts the clock).
pub(crate) fn mark(name: &str) {
    if std::env::var_os("PRVSCOPE_LOAD_STAGES").is_none() {
        return;
    }
    let now = Instant::now();
    let Ok(mut last) = LAST.lock() else { return };
    match last.replace(now) {
        Some(t) => eprintln!("stage {name}: {:.3} s", (now - t).as_secs_f64()),
        None => eprintln!("stage {name}: (clock started)"),
    }
}

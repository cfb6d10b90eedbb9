//! The check of a store cache file's record sections after it was opened (see
//! [`crate::cache::Check::Later`]): a file larger than the memory that could hold it would be
//! read whole before the first frame otherwise. Until the check ends, a use of the records
//! waits for it; once it found a section corrupt, the records are empty (every row, no
//! message) and [`crate::TraceStore::integrity`] says why, so that nothing of the file is
//! trusted.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Condvar, Mutex};

use crate::ThreadData;

/// What is known of a store's records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Integrity {
    /// Every section was checked (or the store was not read from a file).
    Checked,
    /// Being checked; a use of the records waits.
    Checking,
    /// A section's checksum differs (the reason): the records are empty.
    Corrupt(String),
}

const CHECKING: u8 = 0;
const CHECKED: u8 = 1;
const CORRUPT: u8 = 2;

/// The state of a check running after the open.
#[derive(Debug)]
pub(crate) struct Deferred {
    state: AtomicU8,
    why: Mutex<Option<String>>,
    done: Condvar,
    /// What the records are once found corrupt: as many rows, none with records.
    pub(crate) empty: Vec<ThreadData>,
}

impl Deferred {
    pub(crate) fn new(rows: usize) -> Deferred {
        Deferred {
            state: AtomicU8::new(CHECKING),
            why: Mutex::new(None),
            done: Condvar::new(),
            empty: vec![ThreadData::default(); rows],
        }
    }

    /// Ends the check: `None` when every section matched its checksum.
    pub(crate) fn finish(&self, corrupt: Option<String>) {
        let mut why = self
            .why
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let state = if corrupt.is_some() { CORRUPT } else { CHECKED };
        *why = corrupt;
        self.state.store(state, Ordering::Release);
        self.done.notify_all();
    }

    /// Whether the records may be used, once the check is over (waits for it).
    pub(crate) fn wait_ok(&self) -> bool {
        match self.state.load(Ordering::Acquire) {
            CHECKED => return true,
            CORRUPT => return false,
            _ => {}
        }
        let mut why = self
            .why
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while self.state.load(Ordering::Acquire) == CHECKING {
            why = self
                .done
                .wait(why)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        self.state.load(Ordering::Acquire) == CHECKED
    }

    /// What is known now (never waits).
    pub(crate) fn integrity(&self) -> Integrity {
        match self.state.load(Ordering::Acquire) {
            CHECKED => Integrity::Checked,
            CHECKING => Integrity::Checking,
            _ => Integrity::Corrupt(
                self.why
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone()
                    .unwrap_or_default(),
            ),
        }
    }
}

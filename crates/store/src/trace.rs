//! A loaded trace: its header and side files, its store, and how the load went.

use std::path::PathBuf;
use std::sync::Arc;

use prvscope_format::files::Compression;
use prvscope_format::model::{Level, object_name};
use prvscope_format::subset;
use prvscope_format::{Header, LoadReport, Pcf, RowNames, Subset};

use crate::TraceStore;

/// Facts about how a load went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadStats {
    pub compression: Compression,
    /// Bytes of the file read (compressed size for compressed files).
    pub bytes_read: u64,
    /// Bytes of trace text parsed (after decompression).
    pub bytes_decoded: u64,
    pub load_seconds: f64,
}

/// A loaded trace: header, side files, store and the report of what was skipped.
#[derive(Debug, Clone)]
pub struct Trace {
    pub path: PathBuf,
    pub header: Header,
    pub pcf: Option<Pcf>,
    pub row: Option<RowNames>,
    pub store: Arc<TraceStore>,
    pub report: LoadReport,
    pub stats: LoadStats,
    /// When only part of the trace was loaded: which.
    pub part: Option<LoadedPart>,
    /// Source files that come with the trace (file name, text), searched instead of the
    /// disk: the embedded demo ships its `demo.c`. Empty for traces read from files.
    pub shipped_sources: Vec<(&'static str, &'static str)>,
    /// The trace's text when it comes with the program instead of a file (the embedded
    /// demo): cut and filter read their lines from it as from a file.
    pub shipped_text: Option<&'static [u8]>,
    /// Whether the store came from the store cache, was written to it, or neither.
    pub cache: crate::cache::CacheReport,
    /// What each piece of the trace's text holds (a whole trace's, read from its file):
    /// what a cut passes over unread.
    pub text_index: Option<Arc<crate::TextIndex>>,
}

/// The part of a trace that was loaded (see [`subset`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedPart {
    pub subset: Subset,
    pub filter: subset::Filter,
}

impl Trace {
    /// Are row `row`'s records loaded? (The store knows: [`TraceStore::is_row_loaded`].)
    pub fn is_row_loaded(&self, row: usize) -> bool {
        self.store.is_row_loaded(row)
    }

    /// The rows whose records are loaded: [`TraceStore::loaded_rows`].
    pub fn loaded_rows(&self) -> Vec<usize> {
        self.store.loaded_rows()
    }

    /// What was loaded, if only part of the trace was: `threads 1.3 (4 of 16 threads)`.
    pub fn part_description(&self) -> Option<String> {
        let part = self.part.as_ref()?;
        let rows = self.store.thread_count();
        let loaded = self.loaded_rows().len();
        Some(format!("{} ({loaded} of {rows} threads)", part.subset))
    }

    /// The time range loaded, if only part of the trace was.
    pub fn loaded_range(&self) -> Option<(u64, u64)> {
        let p = self.part.as_ref()?;
        (p.subset.from.is_some() || p.subset.to.is_some())
            .then(|| (p.filter.from, p.filter.to.min(self.header.end_time)))
    }

    /// What the trace lacks, one sentence each, for the load report and the status line:
    /// its `.pcf` or `.row` not found beside it, records that stop before the header's
    /// duration (a file cut short; the time after the last record holds no value: no state,
    /// no scope). Empty for a complete trace.
    pub fn incomplete(&self) -> Vec<String> {
        let name = self
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let mut out = Vec::new();
        if self.pcf.is_none() {
            out.push(format!(
                "no .pcf beside {name}: states, event types and values show their numbers, in \
                 Paraver's default colours, and 0 is null (legacy values)"
            ));
        }
        if self.row.is_none() {
            out.push(format!(
                "no .row beside {name}: threads, CPUs and nodes are named by their numbers"
            ));
        }
        if let Some(last) = self.records_cut_short() {
            let end = self.header.end_time;
            out.push(format!(
                "the records stop at {last} ticks, {:.1}% of the header's duration {end}: the \
                 file looks cut short; the time after its last record holds no value (no state, \
                 no scope)",
                last as f64 / end as f64 * 100.0
            ));
        }
        out
    }

    /// The time of the last record when the records stop well before the header's duration
    /// ([`TraceStore::records_cut_short`]; a whole trace loaded: a part's records stop where
    /// the part does).
    pub fn records_cut_short(&self) -> Option<u64> {
        self.store
            .records_cut_short()
            .filter(|_| self.part.is_none())
    }

    /// The name of row `i`: from the `.row` THREAD level, else `THREAD a.t.h`.
    pub fn thread_name(&self, row: usize) -> String {
        thread_name(&self.header, self.row.as_ref(), row)
    }
}

/// The name of row `row` of a trace of header `header`: from the `.row` file's THREAD level,
/// else `THREAD a.t.h`.
pub fn thread_name(header: &Header, names: Option<&RowNames>, row: usize) -> String {
    let mut left = row;
    for (a, app) in header.applications.iter().enumerate() {
        for (t, task) in app.tasks.iter().enumerate() {
            let n = task.threads as usize;
            if left < n {
                return object_name(names, Level::Thread, row, &[a + 1, t + 1, left + 1]);
            }
            left -= n;
        }
    }
    names
        .and_then(|r| r.level(Level::Thread.tag()))
        .and_then(|names| names.get(row))
        .cloned()
        .unwrap_or_else(|| format!("row {row}"))
}

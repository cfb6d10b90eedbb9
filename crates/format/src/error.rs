//! Errors and the load report.
//!
//! Two kinds of trouble exist when reading a trace. A [`LoadError`] stops the load: the file
//! cannot be read, or its header is unusable, so there is nothing sensible to show. Everything
//! else (a malformed record, an unknown record kind, a thread outside the header, a truncated
//! `.xz`) is an [`Issue`]: the bad part is skipped, everything good is kept, and the
//! [`LoadReport`] counts what was skipped with the first few places where it happened, the way
//! Perfetto's import stats do.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A failure that stops loading a trace.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be opened or read. The reason is part of the message (not a
    /// separate source), so that error chains do not print it twice.
    #[error("{}: {reason}", path.display())]
    Io {
        path: PathBuf,
        reason: std::io::Error,
    },
    /// The header (first line) could not be understood.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Header {
        path: PathBuf,
        line: u64,
        column: u64,
        message: String,
    },
    /// The part of the trace asked for does not fit it (threads it does not have, a range
    /// that ends before it starts).
    #[error("{}: cannot load that part of it: {message}", path.display())]
    Subset { path: PathBuf, message: String },
    /// The load was cancelled through its progress flag.
    #[error("loading {} was cancelled", path.display())]
    Cancelled { path: PathBuf },
}

/// What went wrong with one part of a trace that was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IssueKind {
    /// A record line whose fields could not be parsed.
    MalformedRecord,
    /// A line starting with a record kind other than 1, 2, 3 or `#`.
    UnknownRecordKind,
    /// A record naming an application, task or thread the header does not have.
    ThreadOutOfRange,
    /// A record on a CPU that the header does not have or that lies on another node than
    /// the record's task: Paraver leaves such records out, and so does prvscope.
    CpuOutsideTaskNode,
    /// A state record whose end is before its begin.
    NegativeDuration,
    /// A literal value equal to the null sentinel (it is read as null).
    SentinelCollision,
    /// The compressed stream ended early or was corrupt; the data before it was kept.
    CorruptStream,
    /// The last line of the file had no newline and could not be parsed.
    TruncatedLine,
    /// A line of the `.pcf` that could not be understood.
    PcfLine,
    /// A line of the `.row` that could not be understood.
    RowLine,
    /// A side file (`.pcf` or `.row`) that exists but could not be read.
    SideFile,
    /// The header announced communicator lines that were not there.
    MissingCommunicators,
    /// A `.pcf` or `.row` that does not describe this trace (from another run, or short).
    SideFileMismatch,
    /// The trace file changed (shrank, grew or was rewritten) while it was read.
    FileChanged,
    /// A thread whose events, or whose states' begins, go back in time (Paraver's traces are
    /// sorted by time): its records are read sorted, Paraver's windows are refused on the
    /// trace, and the order of its events at one timestamp is taken as unknown.
    EventsOutOfOrder,
}

impl IssueKind {
    /// Every kind, in declaration order (a kind's index here names it in the store cache).
    pub const ALL: [IssueKind; 15] = [
        Self::MalformedRecord,
        Self::UnknownRecordKind,
        Self::ThreadOutOfRange,
        Self::CpuOutsideTaskNode,
        Self::NegativeDuration,
        Self::SentinelCollision,
        Self::CorruptStream,
        Self::TruncatedLine,
        Self::PcfLine,
        Self::RowLine,
        Self::SideFile,
        Self::MissingCommunicators,
        Self::SideFileMismatch,
        Self::FileChanged,
        Self::EventsOutOfOrder,
    ];

    /// A short description, used in summaries.
    pub fn describe(self) -> &'static str {
        match self {
            Self::MalformedRecord => "malformed records skipped",
            Self::UnknownRecordKind => "records of an unknown kind skipped",
            Self::ThreadOutOfRange => "records for a thread outside the header skipped",
            Self::CpuOutsideTaskNode => {
                "records on a CPU outside their task's node skipped (Paraver skips them too)"
            }
            Self::NegativeDuration => "state records ending before they begin skipped",
            Self::SentinelCollision => "literal values equal to the null sentinel read as null",
            Self::CorruptStream => "compressed stream errors (data up to the error was kept)",
            Self::TruncatedLine => "truncated last lines skipped",
            Self::PcfLine => ".pcf lines not understood",
            Self::RowLine => ".row lines not understood",
            Self::SideFile => "side files that could not be read",
            Self::MissingCommunicators => "announced communicator lines missing",
            Self::SideFileMismatch => "side files that do not match the trace",
            Self::FileChanged => "trace files that changed while they were read",
            Self::EventsOutOfOrder => {
                "threads whose records go back in time (read sorted by time, which Paraver \
                 does not do)"
            }
        }
    }

    /// True when the issue means data was lost (as opposed to a note about how it was read).
    pub fn loses_data(self) -> bool {
        !matches!(
            self,
            Self::SentinelCollision
                | Self::MissingCommunicators
                | Self::SideFileMismatch
                | Self::EventsOutOfOrder
        )
    }
}

/// One located issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub kind: IssueKind,
    /// The file the issue is in.
    pub file: PathBuf,
    /// 1-based line number, 0 when it does not apply (for example a stream error).
    pub line: u64,
    /// 1-based column, 0 when it does not apply.
    pub column: u64,
    /// What was expected, or what happened.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

/// How many located examples of each kind the report keeps.
pub const EXAMPLES_PER_KIND: usize = 5;

/// What was skipped or noted while loading, counted by kind with the first few locations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    counts: BTreeMap<IssueKind, u64>,
    examples: Vec<Issue>,
}

impl LoadReport {
    /// Adds one issue: counted always, kept as an example while there are few of its kind.
    pub fn push(&mut self, issue: Issue) {
        self.push_with(issue.kind, || issue);
    }

    /// Adds one issue of `kind`, building it only when it will be kept as an example (the
    /// parser calls this per bad line, so counting must stay cheap).
    #[inline]
    pub fn push_with(&mut self, kind: IssueKind, make: impl FnOnce() -> Issue) {
        let count = self.counts.entry(kind).or_insert(0);
        *count += 1;
        if *count <= EXAMPLES_PER_KIND as u64 {
            self.examples.push(make());
        }
    }

    pub fn examples_mut(&mut self) -> &mut [Issue] {
        &mut self.examples
    }

    /// Files the issue of `kind` kept at `line` as `to` instead, with `note` added to its
    /// message: one line skipped for two reasons counts once. False when no such example
    /// was kept.
    pub fn reclassify(&mut self, line: u64, kind: IssueKind, to: IssueKind, note: &str) -> bool {
        let Some(issue) = self
            .examples
            .iter_mut()
            .find(|i| i.line == line && i.kind == kind)
        else {
            return false;
        };
        issue.kind = to;
        issue.message = format!("{}; {note}", issue.message);
        if let Some(n) = self.counts.get_mut(&kind) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.counts.remove(&kind);
            }
        }
        *self.counts.entry(to).or_insert(0) += 1;
        true
    }

    /// Counts `n` issues of a kind without locations (their examples were pushed elsewhere).
    pub fn add_count(&mut self, kind: IssueKind, n: u64) {
        if n > 0 {
            *self.counts.entry(kind).or_insert(0) += n;
        }
    }

    /// Merges another report into this one; `other`'s examples come after ours.
    pub fn merge(&mut self, other: LoadReport) {
        for issue in other.examples {
            let kept = self
                .examples
                .iter()
                .filter(|i| i.kind == issue.kind)
                .count();
            if kept < EXAMPLES_PER_KIND {
                self.examples.push(issue);
            }
        }
        for (kind, n) in other.counts {
            *self.counts.entry(kind).or_insert(0) += n;
        }
    }

    /// How many issues of a kind were seen.
    pub fn count(&self, kind: IssueKind) -> u64 {
        self.counts.get(&kind).copied().unwrap_or(0)
    }

    /// Issues of every kind, those that lost data and the notes.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Lines of the body that were skipped (each counted once, whatever the reason).
    pub fn skipped_lines(&self) -> u64 {
        [
            IssueKind::MalformedRecord,
            IssueKind::UnknownRecordKind,
            IssueKind::ThreadOutOfRange,
            IssueKind::CpuOutsideTaskNode,
            IssueKind::TruncatedLine,
        ]
        .into_iter()
        .map(|k| self.count(k))
        .sum()
    }

    /// Total number of issues that lost data.
    pub fn skipped(&self) -> u64 {
        self.counts
            .iter()
            .filter(|(k, _)| k.loses_data())
            .map(|(_, n)| n)
            .sum()
    }

    /// True when nothing was noted.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The located examples kept, in the order they were found.
    pub fn examples(&self) -> &[Issue] {
        &self.examples
    }

    /// Counts by kind.
    pub fn counts(&self) -> impl Iterator<Item = (IssueKind, u64)> + '_ {
        self.counts.iter().map(|(k, n)| (*k, *n))
    }

    /// Human-readable lines: one summary per kind, followed by its located examples.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (kind, n) in &self.counts {
            out.push(format!("{n} {}", kind.describe()));
            for issue in self.examples.iter().filter(|i| i.kind == *kind) {
                out.push(format!("  {issue}"));
            }
        }
        out
    }

    /// Sorts the examples by file and line, so the report reads in file order.
    pub fn sort_examples(&mut self) {
        self.examples
            .sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    }
}

/// Builds an issue for `path`.
pub fn issue(
    kind: IssueKind,
    path: &Path,
    line: u64,
    column: u64,
    message: impl Into<String>,
) -> Issue {
    Issue {
        kind,
        file: path.to_path_buf(),
        line,
        column,
        message: message.into(),
    }
}

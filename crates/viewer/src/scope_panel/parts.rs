//! The parts of the scope panel's state, each what one concern keeps: what is analysed and
//! the analysis shown, the scope selected, the source file shown, the table's order, the
//! scope types as the user edits them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use prvscope_analysis::panel::{Prepared, SortBy};
use prvscope_analysis::scopes::{ScopeAnalysis, ScopeContext, ScopeKey, ScopeType};
use prvscope_analysis::source::{Found, SourceFinder};
use prvscope_store::TraceStore;

use super::{IntervalJob, Intervals, WindowJob};
use crate::settings::RecentFiles;

/// What is analysed (the store, the scope types, the window or the whole trace, the
/// application) and the analysis shown.
pub(crate) struct Analysing {
    pub store: Arc<TraceStore>,
    pub ctx: Arc<ScopeContext>,
    /// The scope types read.
    pub types: Vec<ScopeType>,
    /// The types chosen from the trace (what an empty edit goes back to).
    pub auto_types: Vec<ScopeType>,
    /// Statistics over the whole trace instead of the visible window.
    pub whole_trace: bool,
    pub end_time: u64,
    /// The length of the window analysed (ticks): its times are shown with the digits it
    /// needs.
    pub span: u64,
    /// The analysis shown: the whole one, or one application's part of it.
    pub analysis: Option<Arc<ScopeAnalysis>>,
    /// The whole analysis, of every counted row.
    pub full: Option<Arc<ScopeAnalysis>>,
    /// The rows of each application of the trace.
    pub application_rows: Vec<std::ops::Range<usize>>,
    /// The application shown when several ran (1-based), each with its own shares.
    pub application: usize,
    pub job: Option<WindowJob<ScopeAnalysis>>,
    /// The window whose analysis the user cancelled: not restarted until the window changes.
    pub cancelled: Option<prvscope_draw::frame::TimeWindow>,
}

/// The selected scope and its intervals (what the timeline outlines).
pub(crate) struct Selection {
    pub selected: Option<ScopeKey>,
    pub highlight: Option<(ScopeKey, Intervals)>,
    pub highlight_job: Option<(ScopeKey, IntervalJob)>,
}

/// The source file shown, how sources are found, where the view of it stands.
pub(crate) struct Source {
    /// The source file shown (its name).
    pub file: Option<String>,
    pub sources: HashMap<String, Arc<Found>>,
    /// The shown file's text, heat and scope lanes for the current analysis (built when the
    /// analysis or the file changes, not per frame).
    pub prepared: Option<Arc<Prepared>>,
    pub finder: SourceFinder,
    /// Folders the user added to the source search (remembered).
    pub folders: RecentFiles,
    pub folder_dialog: Option<crate::file_dialog::FileDialog>,
    /// What the last "Add source folder…" did.
    pub folder_note: Option<String>,
    pub scroll_to_line: Option<u32>,
    /// The first source line in view (1-based), after the last frame.
    pub first_visible_line: u32,
    /// Source lines of the file shown.
    pub line_count: usize,
    pub trace_path: PathBuf,
    /// The trace carries its sources (a `.sources` folder beside it).
    pub ships_sources: bool,
}

/// The table's sort and the order of its rows it gives.
pub(crate) struct Table {
    pub sort: (SortBy, bool),
    /// The table's order for (analysis, sort).
    pub table_order: Option<(usize, (SortBy, bool), Vec<usize>)>,
}

/// Another run the table is compared with (the Compare window's B): its figure of each scope
/// beside this run's, when the panel analyses the region compared.
pub(crate) struct Against {
    pub comparison: Arc<prvscope_compare::Comparison>,
    /// B's name, as the column's header says it.
    pub name: String,
    /// B's figure (ns) and the delta of each scope of the comparison, by (type, name).
    pub rows: HashMap<(String, String), (u64, i128)>,
}

/// The scope types as the user edits them.
pub(crate) struct TypesEdit {
    /// Comma-separated numbers (with their nesting).
    pub types_text: String,
    /// What the last edit of the types could not read, or the types it named that the trace
    /// lacks.
    pub types_note: Option<String>,
}

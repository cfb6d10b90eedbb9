//! What the panels and windows share, below all of them (so that none imports another for
//! a type): the intervals a selection outlines on the timeline, a trace's name as titles
//! show it.

use std::sync::Arc;

use prvscope_store::Trace;

/// Per-thread intervals `[begin, end)` in ticks (a selected scope's, a cluster's bursts, a
/// histogram cell's): what the timeline outlines, and what a breakdown is taken within.
pub type Intervals = Arc<Vec<Vec<(u64, u64)>>>;

/// The file name of a trace (its path when it has none).
pub fn trace_file_name(trace: &Trace) -> String {
    trace.path.file_name().map_or_else(
        || trace.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

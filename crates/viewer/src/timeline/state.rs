//! The parts of a timeline's state, each what one concern keeps: the view's values and
//! colours, the navigation, the rows' layout, the last frame drawn, the communications, the
//! pointer, the markers.

use std::sync::Arc;

use egui::Rect;
use prvscope_store::comm_index::{Bundle, CommIndex};
use prvscope_store::placement::Placement;
use prvscope_store::signal::ViewSignals;

use super::{Comms, Details, FrameKey, Lane, Marker, Pinned, lanes};
use crate::frame::{Frame, TimeWindow};
use crate::jobs::Job;
use crate::rows::{Grouping, Level, RowItem};
use crate::view::{Coloring, ViewConfig};

/// The view's values and colours, and what is being built for it.
pub(crate) struct Shown {
    pub signals: Arc<ViewSignals>,
    pub coloring: Coloring,
    /// A view being built off the UI thread, to show once ready.
    pub pending: Option<(ViewConfig, Job<Arc<ViewSignals>>)>,
    /// Changes with each view shown (a frame of another view is not reused).
    pub generation: u64,
    /// One lane per type of a view of several event types (and lanes being built).
    pub lanes: Vec<Lane>,
    pub lanes_job: Option<lanes::LanesJob>,
}

/// Where the window can go: Home, undo and redo, the trace's end and time unit.
pub(crate) struct Nav {
    /// What Home shows: the whole trace, or the time range loaded.
    pub home: TimeWindow,
    pub undo: Vec<TimeWindow>,
    pub redo: Vec<TimeWindow>,
    pub end_time: u64,
    pub ns_per_tick: u64,
    /// Where the ruler counts from (a region's start, two runs aligned): times from it
    /// are written `+t`; `None`: from the trace's start.
    pub origin: Option<u64>,
}

/// The rows: which objects, grouped how, from which one down.
pub(crate) struct Layout {
    pub grouping: Grouping,
    /// Every row of the grouping or level (threads, tasks, applications, CPUs, nodes).
    pub all: Vec<RowItem>,
    /// The rows of `all` shown: zoomed and scrolled along the objects as the window is
    /// along time.
    pub shown: std::ops::Range<usize>,
    /// The drawn rows: `all[shown]`, or, when they fit in the area only thinner than a
    /// point and `fit_rows` is on, one summary row per point ([`crate::rows::fit`]).
    pub rows: Vec<RowItem>,
    /// The point rows the drawn rows were fitted to (0 before the first frame).
    pub fit_height: usize,
    /// Changes with each layout of the rows.
    pub generation: u64,
    /// First drawn row at the top of the area.
    pub first_row: usize,
    /// Make rows as thin as needed (down to [`super::MIN_FIT_ROW_HEIGHT`]) to show them all.
    pub fit_rows: bool,
    /// Threads, tasks, applications, CPUs or nodes.
    pub level: Level,
    /// Where the threads ran (computed when CPU or node rows are first asked for).
    pub placement: Option<Arc<Placement>>,
}

/// A frame's rows drawn into one texture, and where it is shown.
pub(crate) type RowsImage = (egui::TextureHandle, Rect);

/// The last frame drawn: where, how high its rows, and how long it took to build.
pub(crate) struct Drawn {
    /// The frame built, its rows as one image when they were many quads (then the frame
    /// keeps no mesh), and its communications.
    pub(super) cache: Option<(FrameKey, Frame, Option<RowsImage>, Option<Comms>)>,
    /// Heavy frames built on a worker ([`super::deferred`]).
    pub(super) deferred: super::deferred::Deferred,
    /// Milliseconds the last frame build took.
    pub last_build_ms: f64,
    /// Where the rows were drawn in the last frame, and their height.
    pub area: Rect,
    pub row_height: f32,
}

/// The trace's communications (by pair, built once with the timeline), and the line under
/// the pointer or clicked.
pub(crate) struct CommState {
    pub index: Arc<CommIndex>,
    pub hovered: Option<Bundle>,
    pub pinned: Option<Bundle>,
    /// Draw only the pinned thread's messages (the toolbar's "pinned thread's only").
    pub pinned_only: bool,
}

/// What the pointer points at, pinned, selects or asks for.
#[derive(Default)]
pub(crate) struct Pointer {
    /// Tick where a range selection started.
    pub selecting: Option<f64>,
    pub pinned: Option<Pinned>,
    pub hovered: Option<Details>,
    pub hovered_row: Option<usize>,
    /// Intervals to outline per thread (the scope selected in the scope panel).
    pub highlight: Option<crate::shared::Intervals>,
    /// Classes to paint over the rows instead of their values (the Clusters view).
    pub classes: Option<std::sync::Arc<ClassFill>>,
    /// The classes last painted per visible row, and what they were computed for (the
    /// fill, the window, the width and the rows' threads): a frame that changes none of
    /// them paints them again without walking the intervals.
    pub classes_painted: std::cell::RefCell<Option<(ClassKey, PaintedClasses)>>,
    /// The tick under the pointer over the rows in the last frame.
    pub hover_time: Option<u64>,
    /// The tick under the pointer in another window of this one's synchronize group, drawn
    /// as a cursor here.
    pub group_cursor: Option<u64>,
    /// The keys go to another timeline window (the one under the pointer).
    pub ignores_keys: bool,
}

/// Per visible row, per pixel column, the class painted.
pub type PaintedClasses = Vec<Vec<Option<u16>>>;

/// What the classes painted were computed for.
pub type ClassKey = (u64, u64, u64, usize, Vec<std::ops::Range<usize>>);

/// Intervals of classes painted over the rows (the Clusters view of the burst clustering):
/// per thread its intervals (begin, end, class) in time order, and each class's colour. A
/// pixel shows the class with the most time in it, black where no interval is.
#[derive(Debug, Clone, Default)]
pub struct ClassFill {
    pub rows: Vec<Vec<(u64, u64, u16)>>,
    pub colors: Vec<egui::Color32>,
    /// Unique per fill made ([`ClassFill::new`]): what the painted classes are kept for.
    pub id: u64,
}

impl ClassFill {
    /// A fill of `rows` in `colors`, with an id of its own.
    pub fn new(rows: Vec<Vec<(u64, u64, u16)>>, colors: Vec<egui::Color32>) -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        ClassFill {
            rows,
            colors,
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }
}

/// Markers in time order, how many were ever added (for their default labels), and the last
/// range selected.
#[derive(Default)]
pub(crate) struct Marks {
    pub markers: Vec<Marker>,
    pub count: usize,
    pub measured: Option<TimeWindow>,
}

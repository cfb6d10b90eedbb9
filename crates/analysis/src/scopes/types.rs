//! The scope types: how a type's values nest, which types a trace is analysed with by
//! default, and which types are line events.

use prvscope_format::Pcf;

use super::{TYPE_OMP_FUNCTION, TYPE_OMP_TASK_FUNCTION, TYPE_SAMPLED_FUNCTION, TYPE_USER_FUNCTION};

/// How a type's values nest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Nesting {
    /// A value pushes a frame, a null pops the topmost frame of the type.
    Stack,
    /// The type holds one value at a time: a value replaces the type's own frame (the
    /// frames of other types stay open), a null closes it. Its frame sits below the `Stack`
    /// frames, among the other `Replace` frames by the type's position in the query.
    Replace,
}

/// An event type read as scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeType {
    pub ty: u32,
    pub nesting: Nesting,
}

impl ScopeType {
    /// The type with the nesting its numbers imply (sampled functions replace, the rest stack).
    pub fn new(ty: u32) -> Self {
        let nesting = if (TYPE_SAMPLED_FUNCTION..TYPE_SAMPLED_FUNCTION + 100).contains(&ty) {
            Nesting::Replace
        } else {
            Nesting::Stack
        };
        ScopeType { ty, nesting }
    }
}

/// The scope types to use for a trace whose event types are `present`: Extrae's function,
/// OpenMP, MPI, pthread (the function a thread runs and the pthread calls) and
/// sampled-function types, and types labelled as user regions; when there is
/// none of those (ovni traces), the state-like "subsystem" and "task type" types, which
/// replace their value.
pub fn auto_types(pcf: Option<&Pcf>, present: &[u32]) -> Vec<ScopeType> {
    let label = |ty: u32| {
        pcf.and_then(|p| p.event_label(ty))
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    let known = |ty: u32| {
        use prvscope_format::catalog::{TYPE_PTHREAD_CALL, TYPE_PTHREAD_FUNCTION};
        matches!(
            ty,
            TYPE_USER_FUNCTION
                | TYPE_OMP_FUNCTION
                | TYPE_OMP_TASK_FUNCTION
                | TYPE_SAMPLED_FUNCTION
                | TYPE_PTHREAD_FUNCTION
                | TYPE_PTHREAD_CALL
        ) || prvscope_format::catalog::is_mpi_call(ty)
    };
    let mut out: Vec<ScopeType> = present
        .iter()
        .filter(|&&ty| {
            known(ty) || {
                let l = label(ty);
                l.contains("user region") || (l.contains("user function") && !l.contains("line"))
            }
        })
        .map(|&ty| ScopeType::new(ty))
        .collect();
    if out.is_empty() {
        out = present
            .iter()
            .filter(|&&ty| {
                let l = label(ty);
                l.contains("subsystem") || l.contains("task type")
            })
            .map(|&ty| ScopeType {
                ty,
                nesting: Nesting::Replace,
            })
            .collect();
    }
    out
}
/// `types` with Extrae's caller types that are `present` (the functions that made each MPI
/// call, 70000001 on), which replace their value at each call: the outermost caller level
/// first, so that a stack reads caller's caller, caller, call. What the end of a burst is
/// told by (BSC's Clustering Suite links its clusters to the code the same way): the call
/// that ends it and where it was made from.
pub fn with_callers(mut types: Vec<ScopeType>, present: &[u32]) -> Vec<ScopeType> {
    let mut callers: Vec<u32> = present
        .iter()
        .copied()
        .filter(|ty| (70_000_001..=70_000_099).contains(ty) && !types.iter().any(|t| t.ty == *ty))
        .collect();
    callers.sort_unstable_by(|a, b| b.cmp(a));
    types.extend(callers.into_iter().map(|ty| ScopeType {
        ty,
        nesting: Nesting::Replace,
    }));
    types
}

/// How a line type's events heat lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineKind {
    /// Sampled lines: a sample's line holds until the next sample of the same type.
    Sampled,
    /// Caller lines: the line holds while the scope entered with it is open.
    Caller,
}

pub(super) fn line_kind(ty: u32) -> Option<LineKind> {
    match ty {
        30_000_100..=30_000_199 => Some(LineKind::Sampled),
        80_000_001..=80_000_099 => Some(LineKind::Caller),
        _ => None,
    }
}

/// The event type that holds the threads' state in a trace without state records (ovni's
/// `Thread: thread state`, else a type labelled as a state): what the scope analysis takes
/// as the category of time, as Paraver users read it on the timeline. `None` when the trace
/// has state records.
pub fn state_type(pcf: Option<&Pcf>, store: &prvscope_store::TraceStore) -> Option<u32> {
    if store.counts().states > 0 {
        return None;
    }
    let types = store.event_types();
    let label = |ty: u32| {
        pcf.and_then(|p| p.event_label(ty))
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    types
        .iter()
        .find(|&&ty| label(ty).contains("thread state"))
        .or_else(|| types.iter().find(|&&ty| label(ty).contains("state")))
        .copied()
}

//! The scope types: how a type's values nest, which types a trace is analysed with by
//! default, and which types are line events.

use prvscope_format::Pcf;

use super::{TYPE_OMP_FUNCTION, TYPE_OMP_TASK_FUNCTION, TYPE_SAMPLED_FUNCTION, TYPE_USER_FUNCTION};

/// How a type's values nest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Nesting {
    /// A value pushes a frame, a null (the trace's end value) pops the topmost frame of the
    /// type: user functions, Paraver's stacked values.
    Stack,
    /// The type holds one value at a time: a value replaces the type's own frame (the
    /// frames of other types stay open), a null closes it. Its frame sits below the `Stack`
    /// frames, among the other `Replace` frames by the type's position in the query:
    /// sampled functions and callers, state-like types.
    Replace,
    /// The type holds one value at a time, as `Replace` (Paraver's "Last Evt Val"), but its
    /// frame sits above the `Stack` frames: a call made from the function open at the time,
    /// which nests nothing. MPI and pthread calls, and any type not known to nest.
    Leaf,
}

impl Nesting {
    /// The name of the nesting in a list of types (`T:stack`).
    pub fn name(self) -> &'static str {
        match self {
            Nesting::Stack => "stack",
            Nesting::Replace => "replace",
            Nesting::Leaf => "hold",
        }
    }

    /// The nesting named `name` (as [`Nesting::name`] writes it).
    pub fn from_name(name: &str) -> Option<Nesting> {
        match name.trim().to_ascii_lowercase().as_str() {
            "stack" => Some(Nesting::Stack),
            "replace" => Some(Nesting::Replace),
            "hold" | "leaf" => Some(Nesting::Leaf),
            _ => None,
        }
    }
}

/// An event type read as scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeType {
    pub ty: u32,
    pub nesting: Nesting,
}

impl ScopeType {
    /// The type with the nesting its number implies: Extrae's function types (user,
    /// OpenMP, task and pthread functions) stack; sampled functions and callers replace
    /// their value below them; every other type (MPI and pthread calls among them) holds
    /// its last value above them, as Paraver's "Last Evt Val" reads it.
    pub fn new(ty: u32) -> Self {
        use prvscope_format::catalog::TYPE_PTHREAD_FUNCTION;
        let nesting = match ty {
            _ if (TYPE_SAMPLED_FUNCTION..TYPE_SAMPLED_FUNCTION + 100).contains(&ty) => {
                Nesting::Replace
            }
            70_000_001..=70_000_099 => Nesting::Replace,
            TYPE_USER_FUNCTION
            | TYPE_OMP_FUNCTION
            | TYPE_OMP_TASK_FUNCTION
            | TYPE_PTHREAD_FUNCTION => Nesting::Stack,
            _ => Nesting::Leaf,
        };
        ScopeType { ty, nesting }
    }

    /// The type with the nesting its number or its label implies: a type labelled as a
    /// user region or user function stacks, a state-like one (ovni's subsystem or task type
    /// of the running thread) replaces its value below the others.
    pub fn for_trace(ty: u32, pcf: Option<&Pcf>) -> Self {
        let st = ScopeType::new(ty);
        let nesting = match st.nesting {
            Nesting::Leaf if labelled_user_region(pcf, ty) => Nesting::Stack,
            Nesting::Leaf if labelled_state_like(pcf, ty) => Nesting::Replace,
            n => n,
        };
        ScopeType { ty, nesting }
    }

    /// Reads `T` or `T:nesting` (`60000019:stack`, `50000001:hold`, `36:replace`); `T`
    /// alone takes the nesting of [`ScopeType::for_trace`].
    pub fn parse(text: &str, pcf: Option<&Pcf>) -> Result<Self, String> {
        let (ty, nesting) = match text.split_once(':') {
            Some((t, n)) => (t, Some(n)),
            None => (text, None),
        };
        let ty: u32 = ty
            .trim()
            .parse()
            .map_err(|_| format!("`{}` is not an event type", text.trim()))?;
        match nesting {
            None => Ok(ScopeType::for_trace(ty, pcf)),
            Some(n) => Nesting::from_name(n)
                .map(|nesting| ScopeType { ty, nesting })
                .ok_or_else(|| {
                    format!(
                        "`{}`: the nesting is `stack`, `hold` or `replace`, not `{}`",
                        text.trim(),
                        n.trim()
                    )
                }),
        }
    }

    /// The type as [`ScopeType::parse`] reads it back: the nesting is written only where
    /// it is not the one the type's number and label imply.
    pub fn text(&self, pcf: Option<&Pcf>) -> String {
        if ScopeType::for_trace(self.ty, pcf).nesting == self.nesting {
            self.ty.to_string()
        } else {
            format!("{}:{}", self.ty, self.nesting.name())
        }
    }
}

/// Whether `ty` is labelled as a subsystem or task type (ovni's state-like types).
fn labelled_state_like(pcf: Option<&Pcf>, ty: u32) -> bool {
    let l = pcf
        .and_then(|p| p.event_label(ty))
        .unwrap_or("")
        .to_ascii_lowercase();
    l.contains("subsystem") || l.contains("task type")
}

/// Whether `ty` is labelled as a user region or user function (not its line).
fn labelled_user_region(pcf: Option<&Pcf>, ty: u32) -> bool {
    let l = pcf
        .and_then(|p| p.event_label(ty))
        .unwrap_or("")
        .to_ascii_lowercase();
    l.contains("user region") || (l.contains("user function") && !l.contains("line"))
}

/// The scope types to use for a trace whose event types are `present`: Extrae's function,
/// OpenMP, MPI, pthread (the function a thread runs and the pthread calls) and
/// sampled-function types, and types labelled as user regions; when there is
/// none of those (ovni traces), the state-like "subsystem" and "task type" types, which
/// replace their value.
pub fn auto_types(pcf: Option<&Pcf>, present: &[u32]) -> Vec<ScopeType> {
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
        .filter(|&&ty| known(ty) || labelled_user_region(pcf, ty))
        .map(|&ty| ScopeType::for_trace(ty, pcf))
        .collect();
    if out.is_empty() {
        out = present
            .iter()
            .filter(|&&ty| labelled_state_like(pcf, ty))
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

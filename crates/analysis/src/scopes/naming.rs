//! Naming: the names, source locations and type labels of scopes, and the source lines of
//! line events, read once from the `.pcf`.

use std::collections::HashMap;

use crate::source::{SourceLoc, function_name, parse_location};
use prvscope_format::Pcf;
use prvscope_store::{NullPolicy, TraceStore};

use super::ScopeKey;
use super::line_type_of;
use super::types::line_kind;

/// Names, locations and line labels read once from the `.pcf`.
#[derive(Debug, Clone, Default)]
pub struct ScopeContext {
    pub(super) pcf: Option<Pcf>,
    /// Line events: (line type, value) -> index into `lines`.
    pub(super) line_of: HashMap<(u32, u64), u32>,
    pub(super) lines: Vec<SourceLoc>,
    pub(super) policy: NullPolicy,
    /// The event type whose values are the categories of threads without state records
    /// ([`super::types::state_type`]).
    pub(super) state_type: Option<u32>,
    /// The time of the trace's last record when it stops before the header's duration (a
    /// file cut short): no scope holds after it. `None` for a complete trace.
    pub(super) records_end: Option<u64>,
}

impl ScopeContext {
    /// Reads the labels of every line type of `pcf` present in `store`.
    pub fn new(pcf: Option<&Pcf>, store: &TraceStore) -> Self {
        let mut ctx = ScopeContext {
            pcf: pcf.cloned(),
            line_of: HashMap::new(),
            lines: Vec::new(),
            policy: store.null_policy(),
            state_type: super::types::state_type(pcf, store),
            records_end: records_end(store),
        };
        let mut ids: HashMap<SourceLoc, u32> = HashMap::new();
        if let Some(pcf) = pcf {
            for ty in store.event_types() {
                if line_kind(ty).is_none() {
                    continue;
                }
                let Some(info) = pcf.event_types.get(&ty) else {
                    continue;
                };
                for (&value, label) in &info.values {
                    if let Some(loc) = parse_location(label) {
                        let next = ctx.lines.len() as u32;
                        let id = *ids.entry(loc.clone()).or_insert_with(|| {
                            ctx.lines.push(loc);
                            next
                        });
                        ctx.line_of.insert((ty, value), id);
                    }
                }
            }
        }
        ctx
    }

    /// The same context reading 0 as null or not (the viewer's "Zero is null"): the scopes of
    /// the legacy convention, or of the NULL mode where 0 is a value.
    #[must_use]
    pub fn with_zero_is_null(&self, zero_is_null: bool) -> ScopeContext {
        let mut ctx = self.clone();
        ctx.policy.zero_is_null = zero_is_null;
        ctx
    }

    /// Whether 0 is read as null.
    pub fn zero_is_null(&self) -> bool {
        self.policy.zero_is_null
    }

    /// The `.pcf` the names come from.
    pub fn pcf(&self) -> Option<&Pcf> {
        self.pcf.as_ref()
    }

    /// The time of the trace's last record when it stops before the header's duration:
    /// after it no scope holds.
    pub fn records_end(&self) -> Option<u64> {
        self.records_end
    }

    /// The event type whose values are the categories of threads without state records
    /// (ovni's `Thread: thread state`), if the trace has no state records.
    pub fn state_type(&self) -> Option<u32> {
        self.state_type
    }

    /// The name a scope is shown with.
    pub fn scope_name(&self, key: ScopeKey) -> String {
        match self
            .pcf
            .as_ref()
            .and_then(|p| p.value_label(key.ty, key.value))
        {
            Some(label) => function_name(label).to_owned(),
            None => {
                format!("{} {}", self.type_label(key.ty), key.value)
            }
        }
    }

    /// The label of a scope's type.
    pub fn type_label(&self, ty: u32) -> String {
        prvscope_format::label::type_label(self.pcf.as_ref(), ty)
    }

    /// Where a scope starts in the source: its line type's label for the same value, or a
    /// location in its own label.
    pub fn scope_location(&self, key: ScopeKey) -> Option<SourceLoc> {
        let pcf = self.pcf.as_ref()?;
        line_type_of(key.ty)
            .and_then(|lt| pcf.value_label(lt, key.value))
            .and_then(parse_location)
            .or_else(|| pcf.value_label(key.ty, key.value).and_then(parse_location))
    }

    /// True when `value` leaves a scope.
    pub(super) fn is_null(&self, value: u64) -> bool {
        self.policy.is_null(value)
    }
}

/// The time of the last record of a store of every row whose records stop well before its
/// header's duration ([`TraceStore::records_cut_short`]). Not of a part of the rows, whose records may stop
/// where the others' go on.
fn records_end(store: &TraceStore) -> Option<u64> {
    if store.loaded_rows().len() < store.thread_count() {
        return None;
    }
    store.records_cut_short()
}

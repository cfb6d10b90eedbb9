//! The first view of a trace kept in its store cache file: the State view's rows (their
//! points and pyramids, mapped in place) and values, so that a trace re-opened from the cache
//! draws its first frame without walking its records.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{RowSignal, SignalSpec, Source, ViewSignals};
use crate::TraceStore;
use crate::cache::{Dec, Enc};
use crate::columns::persist::Sink;
use crate::columns::{Mapped, TimeColumn, ValueColumn};
use crate::summary::Pyramid;

/// A view read back from a cache file (the State view, with zero as null or not).
#[derive(Clone)]
pub(crate) struct PrebuiltView {
    zero_is_null: bool,
    rows: Vec<RowSignal>,
    values: BTreeSet<u64>,
}

impl std::fmt::Debug for PrebuiltView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PrebuiltView(State, {} rows, zero is null: {})",
            self.rows.len(),
            self.zero_is_null
        )
    }
}

impl ViewSignals {
    /// The view `spec` of `store` as its cache file holds it, if it does.
    pub(super) fn prebuilt(
        store: &Arc<TraceStore>,
        spec: &SignalSpec,
        zero_is_null: bool,
    ) -> Option<Self> {
        if *spec != SignalSpec::States {
            return None;
        }
        let view = store
            .prebuilt_views()
            .iter()
            .find(|v| v.zero_is_null == zero_is_null && v.rows.len() == store.threads().len())?;
        Some(ViewSignals {
            store: Arc::clone(store),
            spec: spec.clone(),
            rows: view.rows.clone(),
            groups: Vec::new(),
            resources: Vec::new(),
            values: view.values.clone(),
            zero_is_null,
        })
    }

    /// Writes a State view for the cache file.
    pub(crate) fn persist(&self, sink: &mut impl Sink, enc: &mut Enc) -> std::io::Result<()> {
        enc.u8(u8::from(self.zero_is_null));
        enc.u64(self.values.len() as u64);
        for &v in &self.values {
            enc.u64(v);
        }
        enc.u32(self.rows.len() as u32);
        for row in &self.rows {
            match &row.source {
                Source::Empty => enc.u8(0),
                Source::Event(i) => {
                    enc.u8(1);
                    enc.u32(*i as u32);
                }
                Source::Owned { time, value } => {
                    enc.u8(2);
                    time.persist(sink, enc)?;
                    value.persist(sink, enc)?;
                }
            }
            row.pyramid.persist(sink, enc)?;
            sink.end_section();
        }
        Ok(())
    }
}

/// Reads a view back for a store of `threads` rows whose sentinel is `sentinel`; `None` when
/// the directory does not describe one that fits it.
pub(crate) fn restore(dec: &mut Dec<'_>, map: &Mapped, threads: usize) -> Option<PrebuiltView> {
    let zero_is_null = dec.u8()? != 0;
    let n = usize::try_from(dec.u64()?).ok()?;
    let mut values = BTreeSet::new();
    for _ in 0..n {
        values.insert(dec.u64()?);
    }
    let rows_n = dec.u32()? as usize;
    if rows_n != threads {
        return None;
    }
    let mut rows = Vec::with_capacity(rows_n);
    for _ in 0..rows_n {
        let source = match dec.u8()? {
            0 => Source::Empty,
            1 => Source::Event(dec.u32()? as usize),
            2 => {
                let time = TimeColumn::restore(dec, map)?;
                let value = ValueColumn::restore(dec, map)?;
                if time.len() != value.len() {
                    return None;
                }
                Source::Owned { time, value }
            }
            _ => return None,
        };
        let pyramid = Pyramid::restore(dec, map)?;
        rows.push(RowSignal { source, pyramid });
    }
    Some(PrebuiltView {
        zero_is_null,
        rows,
        values,
    })
}

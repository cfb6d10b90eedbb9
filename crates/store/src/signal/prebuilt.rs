//! The first view of a trace kept in its store cache file: the State view's rows (their
//! points and pyramids, mapped in place) and values, so that a trace re-opened from the cache
//! draws its first frame without walking its records.

use std::collections::BTreeSet;
use std::sync::Arc;

use rayon::prelude::*;

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
            .find(|v| v.zero_is_null == zero_is_null && v.rows.len() == store.thread_count())?;
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
}

/// The rows of the State view built for the cache file, a group at a time.
pub(crate) type ViewGroup = Vec<(RowSignal, BTreeSet<u64>)>;

/// Builds the State view of `store` a few rows at a time (each group in parallel), handing
/// each group to `send` in row order; stops when `send` says false. See
/// [`persist_states_view`].
pub(crate) fn build_states_view(
    store: &Arc<TraceStore>,
    zero_is_null: bool,
    mut send: impl FnMut(ViewGroup) -> bool,
) {
    let sentinel = store.null_policy().sentinel;
    let spec = SignalSpec::States;
    let step = 4 * rayon::current_num_threads().max(1);
    for (k, group) in store.threads().chunks(step).enumerate() {
        let built: ViewGroup = group
            .par_iter()
            .enumerate()
            .map(|(i, t)| super::build_row(k * step + i, t, &spec, sentinel, zero_is_null))
            .collect();
        if !send(built) {
            return;
        }
    }
}

/// Writes the State view for the cache file from its groups of rows as
/// [`build_states_view`] builds them (on another thread, a few groups ahead), so that its
/// memory is that of a few rows, not of the view. A view whose groups stop short of every
/// row is an error.
pub(crate) fn persist_states_view(
    zero_is_null: bool,
    groups: std::sync::mpsc::Receiver<ViewGroup>,
    threads: usize,
    sink: &mut impl Sink,
    enc: &mut Enc,
) -> std::io::Result<()> {
    let mut values = BTreeSet::new();
    let mut rows = Enc::default();
    let mut n = 0usize;
    for built in groups {
        for (row, v) in built {
            n += 1;
            values.extend(v);
            match &row.source {
                Source::Empty => rows.u8(0),
                Source::Event(i) => {
                    rows.u8(1);
                    rows.u32(*i as u32);
                }
                Source::Owned { time, value } => {
                    rows.u8(2);
                    time.persist(sink, &mut rows)?;
                    value.persist(sink, &mut rows)?;
                }
            }
            row.pyramid.persist(sink, &mut rows)?;
            sink.end_section();
        }
    }
    if n != threads {
        return Err(std::io::Error::other(format!(
            "the first view was built for {n} rows of {threads}"
        )));
    }
    enc.u8(u8::from(zero_is_null));
    enc.u64(values.len() as u64);
    for &v in &values {
        enc.u64(v);
    }
    enc.u32(threads as u32);
    enc.0.extend_from_slice(&rows.0);
    Ok(())
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

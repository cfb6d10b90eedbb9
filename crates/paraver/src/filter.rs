//! A window's filter (Paraver's `KFilter`, `src/kfilter.cpp`): which events and which
//! communications its thread function sees. Each part is a filter function (`All`, `None`,
//! `=`, `!=`, `>`, `<`, `[x,y]`) over a list of values, run as Paraver runs it: the list is
//! walked until the function says stop, and the last result counts.

use std::collections::BTreeSet;

use prvscope_format::Pcf;
use prvscope_store::Comm;

use crate::cfg::WindowCfg;
use crate::records::{Rec, kind};

/// A filter function of Paraver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterFn {
    All,
    None,
    Equal,
    NotEqual,
    Greater,
    Fewer,
    Range,
}

impl FilterFn {
    pub fn parse(name: &str) -> Option<FilterFn> {
        Some(match name {
            "All" => FilterFn::All,
            "None" => FilterFn::None,
            "=" => FilterFn::Equal,
            "!=" => FilterFn::NotEqual,
            ">" => FilterFn::Greater,
            "<" => FilterFn::Fewer,
            "[x,y]" => FilterFn::Range,
            _ => return None,
        })
    }

    fn default_value(self) -> bool {
        self == FilterFn::All
    }

    /// Paraver's `execute`: (stop, result) for parameter number `i`.
    fn step(self, param: f64, i: usize, data: f64) -> (bool, bool) {
        match self {
            FilterFn::All => (true, true),
            FilterFn::None => (true, false),
            FilterFn::Equal => {
                let r = data == param;
                (r, r)
            }
            FilterFn::NotEqual => {
                let r = data != param;
                (!r, r)
            }
            FilterFn::Greater => {
                let r = data > param;
                (!r, r)
            }
            FilterFn::Fewer => {
                let r = data < param;
                (!r, r)
            }
            FilterFn::Range => match i {
                0 => {
                    let r = data >= param;
                    (!r, r)
                }
                _ => (true, data <= param),
            },
        }
    }

    /// Runs the function over `params` for `data`, as `KFilter` does; `exists` is whether
    /// the cfg gave any value.
    pub fn pass(self, params: &[f64], data: f64) -> bool {
        let mut result = self.default_value();
        for (i, &p) in params.iter().enumerate() {
            let (stop, r) = self.step(p, i, data);
            result = r;
            if stop {
                break;
            }
        }
        result
    }
}

/// One part of a filter: a function and its values.
#[derive(Debug, Clone)]
pub struct Part {
    pub function: FilterFn,
    pub values: Vec<f64>,
}

impl Part {
    fn pass(&self, data: f64) -> bool {
        self.function.pass(&self.values, data)
    }
}

/// A window's filter.
#[derive(Debug, Clone)]
pub struct Filter {
    pub logical: bool,
    pub physical: bool,
    pub from: Part,
    pub to: Part,
    pub tag: Part,
    pub size: Part,
    pub bandwidth: Part,
    pub types: Part,
    pub values: Part,
    /// `window_comm_fromto`, `window_comm_tagsize`, `window_comm_typeval`: AND when true.
    pub and_from_to: bool,
    pub and_tag_size: bool,
    pub and_type_value: bool,
}

/// What reading a filter found about its event types (Paraver's `someEventsExist`).
#[derive(Debug, Clone, Copy, Default)]
pub struct TypesFound {
    /// Some type of the filter is in the trace, or the type function is `All`/`None`.
    pub some: bool,
    /// Some type of the filter is not in the trace.
    pub missing: bool,
}

impl Filter {
    /// The filter of window `w`; `present` holds the event types of the trace.
    pub fn new(
        w: &WindowCfg,
        pcf: Option<&Pcf>,
        present: &BTreeSet<u32>,
        found: &mut TypesFound,
    ) -> Result<Filter, String> {
        let part = |slot: &str| -> Result<Part, String> {
            let function = match w.function(slot) {
                Some(name) => FilterFn::parse(name)
                    .ok_or_else(|| format!("filter function `{name}` ({slot})"))?,
                None => FilterFn::All,
            };
            let values = w
                .filter_values(slot)
                .map(<[f64]>::to_vec)
                .unwrap_or_default();
            Ok(Part { function, values })
        };
        let mut types = part("evt_type")?;
        if matches!(w.function("evt_type"), Some("All" | "None")) {
            found.some = true;
        }
        // Labels name the trace's own types: a label found in the pcf replaces the number.
        if let Some(f) = w.filters.iter().find(|f| f.kind == "evt_type")
            && f.labels.len() == f.values.len()
            && !f.labels.is_empty()
        {
            let mut picked = Vec::new();
            for (v, label) in f.values.iter().zip(&f.labels) {
                let by_label: Vec<u32> = pcf
                    .map(|p| {
                        p.event_types
                            .iter()
                            .filter(|(_, info)| info.label == *label)
                            .map(|(&t, _)| t)
                            .collect()
                    })
                    .unwrap_or_default();
                if label.is_empty() || by_label.is_empty() {
                    picked.push(*v);
                } else {
                    picked.extend(by_label.iter().map(|&t| f64::from(t)));
                }
            }
            types.values = picked;
        }
        for &t in &types.values {
            if present.contains(&(t as u32)) {
                found.some = true;
            } else {
                found.missing = true;
            }
        }
        if types.function == FilterFn::Range
            && types.values.len() >= 2
            && present
                .range(types.values[0] as u32..=types.values[1] as u32)
                .next()
                .is_some()
        {
            found.some = true;
            found.missing = false;
        }
        let mut values = part("evt_value")?;
        if let Some(f) = w.filters.iter().find(|f| f.kind == "evt_value")
            && f.labels.len() == f.values.len()
            && !f.labels.is_empty()
        {
            let mut picked = BTreeSet::new();
            let mut out = Vec::new();
            for (v, label) in f.values.iter().zip(&f.labels) {
                picked.clear();
                if let Some(p) = pcf {
                    for info in p.event_types.values() {
                        for (&val, l) in &info.values {
                            if l == label {
                                picked.insert(val as i64);
                            }
                        }
                    }
                }
                if label.is_empty() || picked.is_empty() {
                    out.push(*v);
                } else {
                    out.extend(picked.iter().map(|&x| x as f64));
                }
            }
            values.values = out;
        }
        Ok(Filter {
            logical: w.logical_filtered,
            physical: w.physical_filtered,
            from: part("from_obj")?,
            to: part("to_obj")?,
            tag: part("tag_msg")?,
            size: part("size_msg")?,
            bandwidth: part("bw_msg")?,
            types,
            values,
            and_from_to: w.comm_fromto,
            and_tag_size: w.comm_tagsize,
            and_type_value: w.comm_typeval,
        })
    }

    /// May an event of type `ty` pass (its type does, or its value may decide)?
    pub fn type_may_pass(&self, ty: u32) -> bool {
        self.types.pass(f64::from(ty)) || (!self.and_type_value && !self.values.values.is_empty())
    }

    /// Does event record `r` pass?
    pub fn pass_event(&self, r: &Rec) -> bool {
        let mut result = self.types.pass(r.a as f64);
        if self.and_type_value && !result {
            return false;
        }
        if !self.and_type_value && result {
            return true;
        }
        if !self.values.values.is_empty() {
            result = self.values.pass(r.b as f64);
        }
        result
    }

    /// Does communication record `r` (of communication `c`) pass? `object` maps a thread
    /// row to the window's object (0-based); `units` converts ticks to window units.
    pub fn pass_comm(
        &self,
        r: &Rec,
        c: &Comm,
        object: &dyn Fn(usize) -> usize,
        units: &dyn Fn(f64) -> f64,
    ) -> bool {
        use kind::{LOG, PHY, RECV, RRECV};
        if !(self.logical && self.physical) {
            if !self.logical && !self.physical {
                return false;
            }
            if r.kind & LOG != 0 {
                if !self.logical {
                    return false;
                }
            } else if r.kind & PHY != 0
                && !self.physical
                && !(self.logical && (r.kind & (RECV | RRECV) != 0) && c.lrecv <= c.precv)
            {
                return false;
            }
        }
        if !self.from.pass_objects(object(c.send_row as usize)) {
            if self.and_from_to {
                return false;
            }
        } else if !self.and_from_to {
            return true;
        }
        if !self.to.pass_objects(object(c.recv_row as usize)) {
            return false;
        }
        if !self.tag.pass(c.tag as f64) {
            if self.and_tag_size {
                return false;
            }
        } else if !self.and_tag_size {
            return true;
        }
        if !self.size.pass(c.size as i64 as f64) {
            return false;
        }
        if self.bandwidth.values.is_empty() {
            return self.bandwidth.function.default_value();
        }
        let time = if self.logical && c.lrecv > c.precv {
            c.lrecv as i64 - c.lsend as i64
        } else if self.physical {
            c.precv as i64 - c.psend as i64
        } else {
            c.precv as i64 - c.lsend as i64
        };
        let bw = c.size as f64 / units(time as f64);
        self.bandwidth.pass(bw)
    }
}

impl Part {
    /// From/to filters hold 1-based objects in the cfg, 0-based in Paraver's filter.
    fn pass_objects(&self, object: usize) -> bool {
        let params: Vec<f64> = self.values.iter().map(|v| v - 1.0).collect();
        self.function.pass(&params, object as f64)
    }
}

/// Paraver's `passFilter`: events by the event part, communications by the comm part, the
/// rest passes.
pub fn passes(
    f: &Filter,
    r: &Rec,
    comms: &[Comm],
    object: &dyn Fn(usize) -> usize,
    units: &dyn Fn(f64) -> f64,
) -> bool {
    if r.kind & kind::EVENT != 0 && r.kind != kind::EMPTYREC {
        f.pass_event(r)
    } else if r.kind & (kind::COMM | kind::RSEND | kind::RRECV) != 0 && r.kind != kind::EMPTYREC {
        f.pass_comm(r, &comms[r.a as usize], object, units)
    } else {
        true
    }
}

//! Timeline windows: each object's intervals through time, from the thread function up
//! through the compose functions, the levels and the derived windows, as Paraver's
//! `KWindow` computes them. Windows are computed whole (from time 0 to the trace's end) into
//! interval lists; histograms and the timeline dump read those.

use std::collections::BTreeSet;

use prvscope_format::Pcf;
use prvscope_store::Comm;

use crate::cfg::{Cfg, Level, TimeUnit, WindowCfg};
use crate::compose::{ComposeFn, Scale, apply_compose};
use crate::filter::{Filter, TypesFound};
use crate::levels::{LevelFn, aggregate};
use crate::objects::Objects;
use crate::records::Records;
use crate::thread::{ThreadCtx, ThreadFn, intervals};

/// One interval of a window's object: [begin, end) in trace ticks, and its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub begin: u64,
    pub end: u64,
    pub value: f64,
}

/// What kind of value a window shows, for labels (Paraver's semantic info type).
#[derive(Debug, Clone, PartialEq)]
pub enum ValueKind {
    Number,
    State,
    EventType,
    /// Event values of these types (those of the filter).
    EventValue(Vec<u32>),
    /// A thread/task/... number, 1-based.
    Object(Level),
    Time,
    /// Bytes (`N bytes`).
    CommSize,
    /// Bytes per window time unit (`N MB/sec` for microseconds, ...).
    Bandwidth,
}

/// A computed window.
#[derive(Debug, Clone)]
pub struct Computed {
    pub name: String,
    pub level: Level,
    pub units: TimeUnit,
    /// Per object of `level`: intervals in time order, covering [0, end], and a last
    /// zero-length interval at the end.
    pub rows: Vec<Vec<Interval>>,
    pub kind: ValueKind,
    /// Drawn with colours per value (code colour), not a gradient.
    pub code_colour: bool,
    /// Drawn as a function line (`window_noncolor_mode false`): the value plotted in each
    /// row rather than coloured.
    pub function_line: bool,
    /// The communication records the window's filter lets through, per object (for the
    /// communication statistics of histograms): (time, is send, partner thread row, size).
    pub comms: Vec<Vec<CommSeen>>,
    /// The window's own time range, from its `window_begin_time_relative` and end.
    pub begin_time: u64,
    pub end_time: u64,
}

/// A communication as a window's filter lets it through.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CommSeen {
    pub time: u64,
    pub send: bool,
    pub partner_thread: usize,
    pub size: f64,
    pub tag: f64,
}

/// Why a window cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum WindowError {
    /// Something prvscope does not compute: (window name, what).
    Unsupported(String, String),
    /// A window refers to a window the cfg does not have.
    Missing(String, u32),
}

/// Everything a window needs from the trace.
pub struct Engine<'a> {
    pub records: &'a Records,
    pub comms: &'a [Comm],
    pub objects: &'a Objects,
    pub pcf: Option<&'a Pcf>,
    /// Event types present in the trace.
    pub present: &'a BTreeSet<u32>,
    /// The trace's time unit as a window unit (ticks are nanoseconds unless the header says
    /// otherwise).
    pub trace_unit: TimeUnit,
    /// Pairs of event types whose order at one timestamp the records do not keep
    /// (`TraceStore::inversions`).
    pub inversions: &'a [(u32, u32)],
}

impl Engine<'_> {
    /// Ticks to `unit`, as Paraver's `traceUnitsToWindowUnits`.
    pub fn to_units(&self, unit: TimeUnit, ticks: f64) -> f64 {
        convert(self.trace_unit, unit, ticks)
    }

    /// Computes window `w` of `cfg` (recursively its parents).
    pub fn compute(
        &self,
        cfg: &Cfg,
        w: &WindowCfg,
        found: &mut TypesFound,
    ) -> Result<Computed, WindowError> {
        self.compute_at(cfg, w, w.level, found)
    }

    /// Computes window `w` at `level` (a derived window reads its parents at its own
    /// level; the top compose functions apply only at the window's own level).
    pub fn compute_at(
        &self,
        cfg: &Cfg,
        w: &WindowCfg,
        level: Level,
        found: &mut TypesFound,
    ) -> Result<Computed, WindowError> {
        let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
        let end = self.records.end_time;
        let (begin_time, end_time) = window_range(w, end);
        if w.derived.is_some() {
            return self.derived(cfg, w, found);
        }
        let resource = matches!(level, Level::System | Level::Node | Level::Cpu);
        let filter = Filter::new(w, self.pcf, self.present, found).map_err(&unsupported)?;
        let name = w.function("thread").unwrap_or("State As Is");
        let params = w.params_of("thread", name).unwrap_or(&[]);
        let f = ThreadFn::new(name, params)
            .ok_or_else(|| unsupported(format!("thread function `{name}`")))?;
        // At one timestamp the records give a thread's events by type; where the file gave
        // two of the window's types the other way, a function reading their order would
        // differ from Paraver's.
        if f.reads_event_order()
            && let Some(&(a, b)) = self
                .inversions
                .iter()
                .find(|&&(a, b)| filter.type_may_pass(a) && filter.type_may_pass(b))
        {
            return Err(unsupported(format!(
                "`{name}` of event types {a} and {b} (their events share timestamps where the \
                 trace gives {a} first, an order the store does not keep)"
            )));
        }
        let compose_thread = self.compose(w, "compose_thread")?;
        let objects = self.objects;
        let units = |t: f64| self.to_units(w.units, t);
        // Communication filters on objects use threads at the resource levels.
        let object_level = if resource { Level::Thread } else { level };
        let object = |t: usize| objects.object_of_thread(object_level, t);
        let mut thread_rows = Vec::with_capacity(objects.threads.len());
        let mut comms_seen = vec![Vec::new(); objects.count(level)];
        let contexts: Vec<ThreadCtx> = self
            .records
            .threads
            .iter()
            .enumerate()
            .map(|(row, recs)| ThreadCtx {
                recs,
                comms: self.comms,
                filter: &filter,
                units: &units,
                object: &object,
                row,
                appl: objects.threads[row].0 as usize - 1,
                task: objects.task_of(row),
                end,
                cpu_node: &objects.cpu_node,
            })
            .collect();
        let rows = if resource {
            crate::resource::rows(self, w, level, &f, &contexts)?
        } else {
            for ctx in &contexts {
                let mut iv = intervals(&f, ctx);
                apply_compose(&compose_thread, &mut iv);
                thread_rows.push(iv);
                collect_comms(ctx, &mut comms_seen[object(ctx.row)]);
            }
            self.process_rows(w, level, thread_rows)?
        };
        let mut rows = rows;
        if level == w.level {
            for slot in ["topcompose2", "topcompose1"] {
                let c = self.compose(w, slot)?;
                for r in &mut rows {
                    apply_compose(&c, r);
                }
            }
        }
        Ok(Computed {
            name: w.name.clone(),
            level,
            units: w.units,
            rows,
            kind: value_kind(w, &f, &filter, level, self.present),
            code_colour: code_colour(w),
            function_line: function_line(w),
            comms: comms_seen,
            begin_time,
            end_time,
        })
    }

    /// A derived window as Paraver's `KDerivedWindow` computes it: each parent is read at its
    /// own level (with its top compose functions); the two are combined at the finer of
    /// their levels (the window's minimum acceptable level), each object of that level with
    /// the object of the coarser parent that holds it; the window's compose function of that
    /// level follows, then its level functions up to its own level (never below the
    /// combined one), then its top compose functions. When the second parent is the finer,
    /// Paraver takes it first: its values come first and the factors go by that order.
    fn derived(
        &self,
        cfg: &Cfg,
        w: &WindowCfg,
        found: &mut TypesFound,
    ) -> Result<Computed, WindowError> {
        let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
        let Some(d) = &w.derived else {
            return Err(unsupported("a derived window without parents".into()));
        };
        let end = self.records.end_time;
        let (begin_time, end_time) = window_range(w, end);
        // Paraver walks `controlled: clear by` as a plain derived window.
        let controlled = d.operation.trim().starts_with("controlled:")
            && d.operation.trim() != "controlled: clear by";
        let parents: Vec<Computed> = d
            .parents
            .iter()
            .map(|&id| {
                let p = cfg
                    .window(id)
                    .ok_or_else(|| WindowError::Missing(w.name.clone(), id))?;
                self.compute(cfg, p, found)
            })
            .collect::<Result<_, _>>()?;
        let [p0, p1]: [Computed; 2] = parents
            .try_into()
            .map_err(|_| unsupported("a derived window needs two parents".into()))?;
        let resource = |l: Level| matches!(l, Level::System | Level::Node | Level::Cpu);
        if resource(p0.level) != resource(p1.level) {
            return Err(unsupported(format!(
                "parents at the {} and {} levels (one of the process model, one of the \
                 resource model)",
                p0.level, p1.level
            )));
        }
        let combined = p0.level.max(p1.level);
        let objects = self.objects;
        // The object of `to` (coarser or equal) holding object `o` of `from`.
        let holder = |from: Level, o: usize, to: Level| -> usize {
            match (from, to) {
                _ if from == to => o,
                (Level::Cpu, Level::Node) => objects
                    .cpu_node
                    .get(o)
                    .map_or(0, |&n| n as usize)
                    .saturating_sub(1),
                (Level::Cpu | Level::Node, _) => 0,
                _ => {
                    let t = objects.thread_rows(from, o).start;
                    objects.object_of_thread(to, t)
                }
            }
        };
        // The finer parent first (the first parent when both are at one level).
        let swapped = p1.level > p0.level;
        let (fine, coarse) = if swapped { (&p1, &p0) } else { (&p0, &p1) };
        // The row of `c` for object `o` of the combined level.
        fn pick<'c>(
            c: &'c Computed,
            o: usize,
            holder: &dyn Fn(usize, Level) -> usize,
        ) -> Result<&'c [Interval], String> {
            c.rows
                .get(holder(o, c.level))
                .map(Vec::as_slice)
                .ok_or_else(|| "parents with different objects".to_string())
        }
        let holder = |o: usize, to: Level| holder(combined, o, to);
        let pick = |c, o| pick(c, o, &holder).map_err(&unsupported);
        let rows: Vec<Vec<Interval>> = if controlled {
            if swapped {
                return Err(unsupported(
                    "a controlled window whose control parent is finer than its data".into(),
                ));
            }
            let control = Computed {
                rows: (0..fine.rows.len())
                    .map(|o| pick(coarse, o).map(<[Interval]>::to_vec))
                    .collect::<Result<_, _>>()?,
                ..coarse.clone()
            };
            crate::derived::controlled(w, vec![fine.clone(), control], end)
                .map_err(&unsupported)?
                .rows
        } else {
            let pairs = (0..fine.rows.len())
                .map(|o| Ok((pick(fine, o)?, pick(coarse, o)?)))
                .collect::<Result<Vec<_>, WindowError>>()?;
            crate::derived::combine(w, &pairs, end).map_err(&unsupported)?
        };
        if resource(w.level) != resource(combined) {
            return Err(unsupported(format!(
                "a window at the {} level over parents at the {} level",
                w.level, combined
            )));
        }
        let level = w.level.min(combined);
        let mut rows = rows;
        let compose = self.compose(w, &format!("compose_{}", combined.word()))?;
        for r in &mut rows {
            apply_compose(&compose, r);
        }
        let mut rows = self.aggregate_up(w, combined, level, rows)?;
        for slot in ["topcompose2", "topcompose1"] {
            let f = self.compose(w, slot)?;
            for r in &mut rows {
                apply_compose(&f, r);
            }
        }
        // The first parent's kind, unless a compose function of this window says.
        let kind = compose_kind(w, level, false).unwrap_or_else(|| p0.kind.clone());
        Ok(Computed {
            name: w.name.clone(),
            level,
            units: w.units,
            rows,
            kind,
            code_colour: code_colour(w),
            function_line: function_line(w),
            comms: if level == p0.level {
                p0.comms
            } else {
                vec![Vec::new(); objects.count(level)]
            },
            begin_time,
            end_time,
        })
    }

    /// Rows of level `from` aggregated up to `to` with the window's level and compose
    /// functions (the process model: thread, task, application, workload; the resource
    /// model: CPU, node, system).
    fn aggregate_up(
        &self,
        w: &WindowCfg,
        from: Level,
        to: Level,
        mut rows: Vec<Vec<Interval>>,
    ) -> Result<Vec<Vec<Interval>>, WindowError> {
        let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
        let (objects, end) = (self.objects, self.records.end_time);
        let steps: &[(Level, Level, &str)] =
            if matches!(from, Level::Cpu | Level::Node | Level::System) {
                &[
                    (Level::Cpu, Level::Node, "node"),
                    (Level::Node, Level::System, "system"),
                ]
            } else {
                &[
                    (Level::Thread, Level::Task, "task"),
                    (Level::Task, Level::Appl, "appl"),
                    (Level::Appl, Level::Workload, "workload"),
                ]
            };
        let mut at = from;
        for &(lower, upper, slot) in steps {
            if at == to {
                break;
            }
            if lower != at {
                continue;
            }
            let fname = w.function(slot).unwrap_or("Adding");
            let params = w.params_of(slot, fname).unwrap_or(&[]);
            let lf = LevelFn::new(fname, params)
                .ok_or_else(|| unsupported(format!("{slot} function `{fname}`")))?;
            let compose = self.compose(w, &format!("compose_{slot}"))?;
            rows = (0..objects.count(upper))
                .map(|o| {
                    let kids = objects.children(upper, o, lower);
                    let mut iv = aggregate(&lf, rows.get(kids).unwrap_or_default(), end);
                    apply_compose(&compose, &mut iv);
                    iv
                })
                .collect();
            at = upper;
        }
        Ok(rows)
    }

    /// Thread rows aggregated up the process model to `level` (task, application,
    /// workload), with the window's level functions and compose functions.
    fn process_rows(
        &self,
        w: &WindowCfg,
        level: Level,
        thread_rows: Vec<Vec<Interval>>,
    ) -> Result<Vec<Vec<Interval>>, WindowError> {
        if level == Level::Thread {
            return Ok(thread_rows);
        }
        let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
        let (objects, end) = (self.objects, self.records.end_time);
        let mut rows = thread_rows;
        for (lower, upper, slot) in [
            (Level::Thread, Level::Task, "task"),
            (Level::Task, Level::Appl, "appl"),
            (Level::Appl, Level::Workload, "workload"),
        ] {
            if lower == level {
                break;
            }
            let fname = w.function(slot).unwrap_or("Adding");
            let params = w.params_of(slot, fname).unwrap_or(&[]);
            let lf = LevelFn::new(fname, params)
                .ok_or_else(|| unsupported(format!("{slot} function `{fname}`")))?;
            let n = objects.count(upper);
            let compose = self.compose(w, &format!("compose_{slot}"))?;
            rows = (0..n)
                .map(|o| {
                    let kids = objects.children(upper, o, lower);
                    let mut iv = aggregate(&lf, &rows[kids], end);
                    apply_compose(&compose, &mut iv);
                    iv
                })
                .collect();
        }
        Ok(rows)
    }

    /// The compose function of `slot`.
    pub fn compose(&self, w: &WindowCfg, slot: &str) -> Result<ComposeFn, WindowError> {
        let name = w.function(slot).unwrap_or("As Is");
        let params = w.params_of(slot, name).unwrap_or(&[]);
        ComposeFn::new(name, params, Scale(self.trace_unit, w.units)).ok_or_else(|| {
            WindowError::Unsupported(w.name.clone(), format!("{slot} function `{name}`"))
        })
    }
}

/// A window's time range in a trace ending at `end`: from its relative begin and end, or
/// from an old cfg's absolute begin (0 when not before the end) and stop (at most the end).
pub fn window_range(w: &WindowCfg, end: u64) -> (u64, u64) {
    let begin = match w.begin_time {
        Some(t) if t < end as f64 => t as u64,
        Some(_) => 0,
        None => (w.begin_time_relative * end as f64) as u64,
    };
    let stop = match w.stop_time {
        Some(t) => t.min(end as f64) as u64,
        None => (w.end_time_relative * end as f64) as u64,
    };
    (begin, stop)
}

/// Paraver's `traceUnitsToWindowUnits` between two units.
pub fn convert(from: TimeUnit, to: TimeUnit, t: f64) -> f64 {
    if from == to {
        return t;
    }
    let (a, b) = (from.nanos(), to.nanos());
    if a > b { t * (a / b) } else { t / (b / a) }
}

/// The communications window filter lets through on a thread, as the histogram's
/// communication statistics count them: sends at their logical send, receives at the later
/// of the logical and physical receive (Paraver's record list).
fn collect_comms(ctx: &ThreadCtx, out: &mut Vec<CommSeen>) {
    use crate::records::kind::{COMM, LOG, PHY, SEND};
    for (i, r) in ctx.recs.iter().enumerate() {
        if r.kind & COMM == 0 {
            continue;
        }
        if !crate::filter::passes(ctx.filter, r, ctx.comms, ctx.object, ctx.units) {
            continue;
        }
        let c = &ctx.comms[r.a as usize];
        let send = r.kind & SEND != 0;
        // One record per message and side: the logical send; the effective receive.
        let keep = if send {
            r.kind & LOG != 0 || (!ctx.filter.logical && r.kind & PHY != 0)
        } else if ctx.filter.logical {
            (r.kind & LOG != 0 && c.lrecv > c.precv) || (r.kind & PHY != 0 && c.precv >= c.lrecv)
        } else {
            r.kind & PHY != 0
        };
        let _ = i;
        if keep {
            out.push(CommSeen {
                time: r.time,
                send,
                partner_thread: if send { c.recv_row } else { c.send_row } as usize,
                size: c.size as i64 as f64,
                tag: c.tag as f64,
            });
        }
    }
}

/// The kind of values a window shows (for labels), Paraver's semantic info type: that of
/// the first function, from the top compose functions down to the thread function, that
/// does not keep its input's type.
fn value_kind(
    w: &WindowCfg,
    f: &ThreadFn,
    filter: &Filter,
    level: Level,
    present: &BTreeSet<u32>,
) -> ValueKind {
    #[allow(clippy::enum_glob_use)]
    use ThreadFn::*;
    if let Some(k) = compose_kind(w, level, true) {
        return k;
    }
    match f {
        StateAsIs | GivenState(_) | Useful => ValueKind::State,
        LastEventType | NextEventType => ValueKind::EventType,
        LastEventValue | NextEventValue | GivenEventValue(_) => {
            // Paraver's `getValidEvents`: the trace's types the filter's type list accepts.
            let types = if filter.types.values.is_empty() {
                Vec::new()
            } else {
                present
                    .iter()
                    .copied()
                    .filter(|&t| {
                        filter
                            .types
                            .function
                            .pass(&filter.types.values, f64::from(t))
                    })
                    .collect()
            };
            ValueKind::EventValue(types)
        }
        CommPartner | CommRecvPartner | ThreadId => ValueKind::Object(Level::Thread),
        ApplicationId => ValueKind::Object(Level::Appl),
        TaskId => ValueKind::Object(Level::Task),
        IntervalBetweenEvents | StateRecordDuration(_) | LastSendDuration | NextRecvDuration => {
            ValueKind::Time
        }
        CommSize | EventBytes | EventSentBytes | LastSendSize | NumberReceiveBytes
        | NumberSendBytes | RecvBytesInTransit | RecvNegativeBytes | SendBytesInTransit => {
            ValueKind::CommSize
        }
        SendBandWidth(_) | RecvBandWidth(_) => ValueKind::Bandwidth,
        _ => ValueKind::Number,
    }
}

/// The kind set by the compose functions (and, with `level_functions`, the level
/// functions) of `w` from the top down to `level`, if one of them does not keep its input's.
fn compose_kind(w: &WindowCfg, level: Level, level_functions: bool) -> Option<ValueKind> {
    let mut slots: Vec<(String, bool)> =
        vec![("topcompose1".into(), true), ("topcompose2".into(), true)];
    for (l, name) in [
        (Level::Workload, "workload"),
        (Level::Appl, "appl"),
        (Level::Task, "task"),
    ] {
        if level <= l {
            slots.push((format!("compose_{name}"), true));
            if level_functions {
                slots.push((name.into(), false));
            }
        }
    }
    slots.push(("compose_thread".into(), true));
    for (slot, compose) in &slots {
        let Some(name) = w.function(slot) else {
            continue;
        };
        if *compose {
            match name {
                "As Is" | "Abs" | "Ceil" | "Floor" | "Is Equal" | "Join Bursts" | "Round"
                | "Select Range" | "Select Range [)" | "Stacked Val" | "Timer" | "Translate" => {}
                "Begin Time" | "Burst Time" | "End Time" => return Some(ValueKind::Time),
                _ => return Some(ValueKind::Number),
            }
        } else if !matches!(
            name,
            "Changed value" | "Maximum" | "Minimum" | "Mode" | "Thread i"
        ) {
            return Some(ValueKind::Number);
        }
    }
    None
}

/// Paraver windows are code-coloured unless the cfg says otherwise.
/// Paraver reads `window_noncolor_mode false` as its function-line mode (the "non colour"
/// flag is inverted there), which then ignores the colour mode.
fn function_line(w: &WindowCfg) -> bool {
    w.raw("window_noncolor_mode").map(str::trim) == Some("false")
}

fn code_colour(w: &WindowCfg) -> bool {
    match w.raw("window_color_mode") {
        None => true,
        Some(m) => !matches!(
            m.trim(),
            "window_in_gradient_mode"
                | "window_in_null_gradient_mode"
                | "window_in_alternative_gradient_mode"
                | "window_in_punctual_mode"
                | "window_in_fused_lines_mode"
        ),
    }
}

//! Timeline windows: each object's intervals through time, from the thread function up
//! through the compose functions, the levels and the derived windows, as Paraver's
//! `KWindow` computes them. A [`Window`] walks one object at a time from the store: its
//! threads' records are read a block at a time, their intervals flow through the compose
//! and level functions as streams, and whoever reads the stream (a histogram, a dump, the
//! viewer) keeps what it needs. [`Window::compute`] keeps every object's intervals.

use std::collections::BTreeSet;
use std::sync::Arc;

use prvscope_format::Pcf;
use prvscope_store::Comm;

use crate::cfg::{Cfg, Level, TimeUnit, WindowCfg};
use crate::compose::{ComposeFn, Composed, Scale};
use crate::derived::DerivedFn;
use crate::filter::{Filter, TypesFound};
use crate::levels::{Aggregate, LevelFn, Stream};
use crate::objects::Objects;
use crate::records::{Select, Source};
use crate::thread::{ThreadCtx, ThreadFn, ThreadIntervals};

mod cache;
mod index;
mod kind;
pub use cache::{CacheUse, WindowCache, window_key};
pub use index::{MAX_VALUES, RowIndex, RowSums, ValueSums, YScale};
use kind::{compose_kind, value_kind};

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

/// What a window is, apart from its values.
#[derive(Debug, Clone)]
pub struct WindowInfo {
    pub name: String,
    pub level: Level,
    pub units: TimeUnit,
    pub kind: ValueKind,
    /// Drawn with colours per value (code colour), not a gradient.
    pub code_colour: bool,
    /// Drawn as a function line (`window_noncolor_mode false`): the value plotted in each
    /// row rather than coloured.
    pub function_line: bool,
    /// The window's own time range, from its `window_begin_time_relative` and end.
    pub begin_time: u64,
    pub end_time: u64,
}

/// A window computed whole: every object's intervals.
#[derive(Debug, Clone)]
pub struct Computed {
    pub info: WindowInfo,
    /// Per object of the window's level: intervals in time order, covering [0, end], and a
    /// last zero-length interval at the end.
    pub rows: Vec<Vec<Interval>>,
    /// Its rows by value ([`Computed::index`]), built when first asked.
    index: std::sync::OnceLock<Vec<Option<RowIndex>>>,
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

/// Records a walk reads at a time (a few hundred kilobytes); a walk over several objects
/// at once shares it among them.
pub const BLOCK: usize = 1 << 14;

/// Everything a window needs from the trace.
pub struct Engine<'a> {
    pub source: &'a Source<'a>,
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
    /// Windows computed before, to read instead of the store ([`Engine::window_kept`]).
    pub cache: Option<&'a WindowCache>,
}

/// A window ready to walk: each object's intervals are read from the store when asked
/// for ([`Window::row`]), never kept.
pub struct Window<'e> {
    pub info: WindowInfo,
    engine: &'e Engine<'e>,
    node: Node<'e>,
    /// `topcompose2` then `topcompose1`.
    top: Vec<ComposeFn>,
    /// The window whose communications the histograms count (a derived window's first
    /// parent's, at its level), if any.
    comms_of: CommsOf,
    /// Its intervals, when computed before: read instead of the store.
    kept: Option<Arc<Computed>>,
}

enum CommsOf {
    None,
    Own,
    FirstParent,
}

/// How a window's rows are made.
enum Node<'e> {
    /// A thread function on each thread, up the process model to the window's level.
    Process { thread: ThreadPart, ups: Vec<Up> },
    /// A thread function on each thread, seen from the CPUs (and up to nodes, the system).
    Resource {
        thread: ThreadPart,
        cpu: crate::resource::CpuPart,
        ups: Vec<Up>,
    },
    /// Two windows combined at the finer of their levels, then up to the window's level.
    Derived {
        parents: Box<[Window<'e>; 2]>,
        /// The finer parent is the second (it is taken first).
        swapped: bool,
        combined: Level,
        how: Derive,
        compose: ComposeFn,
        ups: Vec<Up>,
    },
}

/// The thread part of a window: its function, filter, records read and compose function.
pub(crate) struct ThreadPart {
    pub(crate) f: ThreadFn,
    pub(crate) filter: Filter,
    pub(crate) select: Select,
    pub(crate) compose: ComposeFn,
    pub(crate) scale: Scale,
    /// The level communication filters name objects at.
    pub(crate) object_level: Level,
}

/// One step up a model: the objects of `upper` from those of `lower` they hold.
pub(crate) struct Up {
    pub(crate) lower: Level,
    pub(crate) upper: Level,
    pub(crate) f: LevelFn,
    pub(crate) compose: ComposeFn,
}

enum Derive {
    Combine(DerivedFn, [f64; 2]),
    Controlled(fn(f64, f64) -> f64, f64),
}

impl<'a> Engine<'a> {
    /// Ticks to `unit`, as Paraver's `traceUnitsToWindowUnits`.
    pub fn to_units(&self, unit: TimeUnit, ticks: f64) -> f64 {
        convert(self.trace_unit, unit, ticks)
    }

    /// Paraver's end of the trace.
    pub fn end_time(&self) -> u64 {
        self.source.end_time
    }

    pub fn comms(&self) -> &'a [Comm] {
        self.source.comms()
    }

    /// Window `w` of `cfg` (recursively its parents), ready to walk: its rows come from the
    /// cache when it holds them, else from the store.
    pub fn window(
        &'a self,
        cfg: &Cfg,
        w: &WindowCfg,
        found: &mut TypesFound,
    ) -> Result<Window<'a>, WindowError> {
        let mut win = self.build(cfg, w, found)?;
        if let Some(cache) = self.cache {
            win.kept = cache.get(&window_key(cfg, w));
        }
        Ok(win)
    }

    /// [`Engine::window`], computed whole and kept in the cache when the engine has one
    /// (and not yet there): later windows over any time range read it.
    pub fn window_kept(
        &'a self,
        cfg: &Cfg,
        w: &WindowCfg,
        found: &mut TypesFound,
    ) -> Result<Window<'a>, WindowError> {
        let mut win = self.window(cfg, w, found)?;
        if let Some(cache) = self.cache
            && win.kept.is_none()
        {
            let computed = Arc::new(win.compute());
            cache.insert(window_key(cfg, w), Arc::clone(&computed));
            win.kept = Some(computed);
        }
        Ok(win)
    }

    fn build(
        &'a self,
        cfg: &Cfg,
        w: &WindowCfg,
        found: &mut TypesFound,
    ) -> Result<Window<'a>, WindowError> {
        if w.derived.is_some() {
            return self.derived(cfg, w, found);
        }
        let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
        let level = w.level;
        let (begin_time, end_time) = window_range(w, self.end_time());
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
                 trace gives {a} first, or a thread's events go back in time: an order the \
                 store does not keep)"
            )));
        }
        let kind = value_kind(w, &f, &filter, level, self.present);
        let thread = ThreadPart {
            select: f.select(&filter, self.present),
            f,
            filter,
            compose: self.compose(w, "compose_thread")?,
            scale: Scale(self.trace_unit, w.units),
            // Communication filters on objects use threads at the resource levels.
            object_level: if resource { Level::Thread } else { level },
        };
        let node = if resource {
            if self.objects.cpu_node.is_empty() {
                return Err(unsupported(format!(
                    "the {level} level of a trace whose header declares no CPUs"
                )));
            }
            let cpu = crate::resource::CpuPart::new(self, w, &thread)?;
            Node::Resource {
                thread,
                cpu,
                ups: self.ups(w, Level::Cpu, level)?,
            }
        } else {
            Node::Process {
                thread,
                ups: self.ups(w, Level::Thread, level)?,
            }
        };
        Ok(Window {
            info: WindowInfo::of(w, level, kind, (begin_time, end_time)),
            engine: self,
            node,
            top: self.top(w)?,
            comms_of: if resource {
                CommsOf::None
            } else {
                CommsOf::Own
            },
            kept: None,
        })
    }

    /// Computes window `w` of `cfg` whole: every object's intervals.
    pub fn compute(
        &'a self,
        cfg: &Cfg,
        w: &WindowCfg,
        found: &mut TypesFound,
    ) -> Result<Computed, WindowError> {
        Ok(self.window(cfg, w, found)?.compute())
    }

    /// A derived window as Paraver's `KDerivedWindow` computes it: each parent is read at its
    /// own level (with its top compose functions); the two are combined at the finer of
    /// their levels (the window's minimum acceptable level), each object of that level with
    /// the object of the coarser parent that holds it; the window's compose function of that
    /// level follows, then its level functions up to its own level (never below the
    /// combined one), then its top compose functions. When the second parent is the finer,
    /// Paraver takes it first: its values come first and the factors go by that order.
    fn derived(
        &'a self,
        cfg: &Cfg,
        w: &WindowCfg,
        found: &mut TypesFound,
    ) -> Result<Window<'a>, WindowError> {
        let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
        let Some(d) = &w.derived else {
            return Err(unsupported("a derived window without parents".into()));
        };
        let (begin_time, end_time) = window_range(w, self.end_time());
        // Paraver walks `controlled: clear by` as a plain derived window.
        let controlled = d.operation.trim().starts_with("controlled:")
            && d.operation.trim() != "controlled: clear by";
        let parents: Vec<Window<'a>> = d
            .parents
            .iter()
            .map(|&id| {
                let p = cfg
                    .window(id)
                    .ok_or_else(|| WindowError::Missing(w.name.clone(), id))?;
                self.window(cfg, p, found)
            })
            .collect::<Result<_, _>>()?;
        let [p0, p1]: [Window<'a>; 2] = parents
            .try_into()
            .map_err(|_| unsupported("a derived window needs two parents".into()))?;
        let resource = |l: Level| matches!(l, Level::System | Level::Node | Level::Cpu);
        let (l0, l1) = (p0.info.level, p1.info.level);
        if resource(l0) != resource(l1) {
            return Err(unsupported(format!(
                "parents at the {l0} and {l1} levels (one of the process model, one of the \
                 resource model)"
            )));
        }
        let combined = l0.max(l1);
        // The finer parent first (the first parent when both are at one level).
        let swapped = l1 > l0;
        let how = if controlled {
            if swapped {
                return Err(unsupported(
                    "a controlled window whose control parent is finer than its data".into(),
                ));
            }
            let (fold, factor) = crate::derived::controlled_fold(w).map_err(&unsupported)?;
            Derive::Controlled(fold, factor)
        } else {
            let (op, factors) = crate::derived::operation(w).map_err(&unsupported)?;
            Derive::Combine(op, factors)
        };
        // Every object of the combined level has its object in each parent.
        for o in 0..self.objects.count(combined) {
            for p in [&p0, &p1] {
                if self.holder(combined, o, p.info.level) >= self.objects.count(p.info.level) {
                    return Err(unsupported("parents with different objects".into()));
                }
            }
        }
        if resource(w.level) != resource(combined) {
            return Err(unsupported(format!(
                "a window at the {} level over parents at the {} level",
                w.level, combined
            )));
        }
        let level = w.level.min(combined);
        let compose = self.compose(w, &format!("compose_{}", combined.word()))?;
        let ups = self.ups(w, combined, level)?;
        // The first parent's kind, unless a compose function of this window says.
        let kind = compose_kind(w, level, false).unwrap_or_else(|| p0.info.kind.clone());
        let comms_of = if level == l0 {
            CommsOf::FirstParent
        } else {
            CommsOf::None
        };
        Ok(Window {
            info: WindowInfo::of(w, level, kind, (begin_time, end_time)),
            engine: self,
            node: Node::Derived {
                parents: Box::new([p0, p1]),
                swapped,
                combined,
                how,
                compose,
                ups,
            },
            top: self.top(w)?,
            comms_of,
            kept: None,
        })
    }

    /// The object of `to` (coarser or equal) holding object `o` of `from`.
    fn holder(&self, from: Level, o: usize, to: Level) -> usize {
        let objects = self.objects;
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
    }

    /// The steps from `from` up to `to` (the process model: thread, task, application,
    /// workload; the resource model: CPU, node, system), with the window's level and
    /// compose functions.
    fn ups(&self, w: &WindowCfg, from: Level, to: Level) -> Result<Vec<Up>, WindowError> {
        let unsupported = |what: String| WindowError::Unsupported(w.name.clone(), what);
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
        let mut out = Vec::new();
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
            let f = LevelFn::new(fname, params)
                .ok_or_else(|| unsupported(format!("{slot} function `{fname}`")))?;
            out.push(Up {
                lower,
                upper,
                f,
                compose: self.compose(w, &format!("compose_{slot}"))?,
            });
            at = upper;
        }
        Ok(out)
    }

    fn top(&self, w: &WindowCfg) -> Result<Vec<ComposeFn>, WindowError> {
        ["topcompose2", "topcompose1"]
            .iter()
            .map(|slot| self.compose(w, slot))
            .collect()
    }

    /// The compose function of `slot`.
    pub fn compose(&self, w: &WindowCfg, slot: &str) -> Result<ComposeFn, WindowError> {
        let name = w.function(slot).unwrap_or("As Is");
        let params = w.params_of(slot, name).unwrap_or(&[]);
        ComposeFn::new(name, params, Scale(self.trace_unit, w.units)).ok_or_else(|| {
            WindowError::Unsupported(w.name.clone(), format!("{slot} function `{name}`"))
        })
    }

    /// The walk of `part`'s function on thread `row`, composed, reading `block` records at a
    /// time.
    pub(crate) fn thread_walk<'w>(
        &'w self,
        part: &'w ThreadPart,
        row: usize,
        block: usize,
    ) -> ThreadIntervals<'w> {
        ThreadIntervals::new(&part.f, self.thread_ctx(part, row, &part.select, block))
    }

    /// The context of `part`'s function on thread `row`, reading the records `select` names.
    pub(crate) fn thread_ctx<'w>(
        &'w self,
        part: &'w ThreadPart,
        row: usize,
        select: &Select,
        block: usize,
    ) -> ThreadCtx<'w> {
        let objects = self.objects;
        ThreadCtx {
            recs: self.source.cursor(row, select, block),
            comms: self.comms(),
            filter: &part.filter,
            scale: part.scale,
            objects,
            object_level: part.object_level,
            row,
            appl: objects.threads.get(row).map_or(0, |t| t.0 as usize - 1),
            task: objects.task_of(row),
            end: self.end_time(),
            cpu_node: &objects.cpu_node,
        }
    }
}

impl Window<'_> {
    /// Number of objects (rows).
    pub fn rows(&self) -> usize {
        self.engine.objects.count(self.info.level)
    }

    /// The intervals of object `o`, in time order, covering [0, end], and a last
    /// zero-length interval at the end.
    pub fn row(&self, o: usize) -> Stream<'_> {
        self.row_block(o, BLOCK)
    }

    /// [`Window::row`] from its first interval ending after `from` (its last when none
    /// does): read straight there from kept rows, else walked from the start.
    pub fn row_from(&self, o: usize, from: u64) -> Stream<'_> {
        match &self.kept {
            Some(k) => {
                let row = k.rows.get(o).map_or(&[][..], Vec::as_slice);
                let first = row
                    .partition_point(|i| i.end <= from)
                    .min(row.len().saturating_sub(1));
                Box::new(row[first..].iter().copied())
            }
            None => self.row(o),
        }
    }

    /// Its rows computed whole, when they were kept.
    pub fn kept(&self) -> Option<&Arc<Computed>> {
        self.kept.as_ref()
    }

    /// [`Window::row`], its walks sharing `block` records at a time.
    fn row_block(&self, o: usize, block: usize) -> Stream<'_> {
        if let Some(k) = &self.kept {
            return Box::new(k.rows.get(o).into_iter().flatten().copied());
        }
        let mut s = self.below_top(o, block);
        for c in &self.top {
            s = composed(c, s);
        }
        s
    }

    /// Object `o`'s intervals before the top compose functions.
    fn below_top(&self, o: usize, block: usize) -> Stream<'_> {
        let level = self.info.level;
        match &self.node {
            Node::Process { thread, ups } => self.up(ups, level, o, block, &|t, block| {
                composed(
                    &thread.compose,
                    Box::new(self.engine.thread_walk(thread, t, block)),
                )
            }),
            Node::Resource { thread, cpu, ups } => self.up(ups, level, o, block, &|k, block| {
                composed(
                    &cpu.compose,
                    Box::new(cpu.walk(self.engine, thread, k, block)),
                )
            }),
            Node::Derived {
                parents,
                swapped,
                combined,
                how,
                compose,
                ups,
            } => self.up(ups, level, o, block, &|o, block| {
                let (fine, coarse) = if *swapped {
                    (&parents[1], &parents[0])
                } else {
                    (&parents[0], &parents[1])
                };
                let engine = self.engine;
                let a = fine.row_block(engine.holder(*combined, o, fine.info.level), block / 2);
                let b = coarse.row_block(engine.holder(*combined, o, coarse.info.level), block / 2);
                let end = engine.end_time();
                let s: Stream<'_> = match how {
                    Derive::Combine(op, factors) => {
                        match crate::derived::Combined::new(*op, *factors, [a, b], end) {
                            Some(c) => Box::new(c),
                            None => Box::new(std::iter::empty()),
                        }
                    }
                    Derive::Controlled(fold, factor) => {
                        match crate::derived::Controlled::new(*fold, *factor, a, b, end) {
                            Some(c) => Box::new(c),
                            None => Box::new(std::iter::empty()),
                        }
                    }
                };
                composed(compose, s)
            }),
        }
    }

    /// Object `o` of `level` from the objects of the level below, step by step down to the
    /// first level of `ups`, whose objects `first` walks.
    fn up<'s>(
        &'s self,
        ups: &'s [Up],
        level: Level,
        o: usize,
        block: usize,
        first: &dyn Fn(usize, usize) -> Stream<'s>,
    ) -> Stream<'s> {
        let Some((step, below)) = ups.split_last().filter(|(u, _)| u.upper == level) else {
            return first(o, block);
        };
        let kids = self.engine.objects.children(step.upper, o, step.lower);
        let share = (block / kids.len().max(1)).max(256);
        let streams: Vec<Stream<'s>> = kids
            .map(|k| self.up(below, step.lower, k, share, first))
            .collect();
        composed(
            &step.compose,
            Box::new(Aggregate::new(
                step.f.clone(),
                streams,
                self.engine.end_time(),
            )),
        )
    }

    /// The communications the window's filter lets through on object `o`'s threads, as the
    /// histogram's communication statistics count them (none at the resource levels).
    pub fn comms(&self, o: usize) -> Vec<CommSeen> {
        match (&self.comms_of, &self.node) {
            (CommsOf::Own, Node::Process { thread, .. }) => {
                let mut out = Vec::new();
                for row in self.engine.objects.thread_rows(self.info.level, o) {
                    let select = Select {
                        comms: true,
                        ..Select::default()
                    };
                    let ctx = self.engine.thread_ctx(thread, row, &select, BLOCK);
                    collect_comms(&ctx, &mut out);
                }
                out
            }
            (CommsOf::FirstParent, Node::Derived { parents, .. }) => parents[0].comms(o),
            _ => Vec::new(),
        }
    }

    /// Every object's intervals (objects in parallel).
    pub fn compute(&self) -> Computed {
        use rayon::prelude::*;
        let rows = (0..self.rows())
            .into_par_iter()
            .map(|o| self.row(o).collect())
            .collect();
        Computed::new(self.info.clone(), rows)
    }
}

/// `s` with compose function `f` applied (as is when `f` is `As Is`).
fn composed<'s>(f: &ComposeFn, s: Stream<'s>) -> Stream<'s> {
    match f {
        ComposeFn::AsIs => s,
        f => Box::new(Composed::new(f.clone(), s)),
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

/// The communications the window's filter lets through on a thread, as the histogram's
/// communication statistics count them: sends at their logical send, receives at the later
/// of the logical and physical receive (Paraver's record list).
fn collect_comms(ctx: &ThreadCtx, out: &mut Vec<CommSeen>) {
    use crate::records::kind::{COMM, LOG, PHY, SEND};
    let mut i = 0;
    while let Some(r) = ctx.recs.get(i) {
        if i % BLOCK == 0 {
            ctx.recs.release(i);
        }
        i += 1;
        if r.kind & COMM == 0 || !ctx.pass(i - 1) {
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

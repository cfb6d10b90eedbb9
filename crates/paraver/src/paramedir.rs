//! paramedir's behaviour: a cfg run over a trace gives one result, the last analyzer of
//! the cfg (a histogram) or, without analyzers, its last timeline window, written as
//! paramedir writes it (`api/paramedir.cpp`, `api/textoutput.cpp`).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;

use prvscope_store::Trace;

use crate::cfg::{Cfg, TimeUnit};
use crate::filter::TypesFound;
use crate::histogram::{self, Histogram};
use crate::number::fixed;
use crate::objects::Objects;
use crate::records::Source;
use crate::window::{Computed, Engine, Window, WindowCache, WindowError, convert};

/// paramedir's options that change its output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `-e`: hide empty histogram columns.
    pub hide_empty_columns: bool,
    /// `-m`: a timeline as one file per object.
    pub many_files: bool,
    /// `-p`: only the selected plane of a 3D histogram.
    pub print_plane: bool,
    /// `-tu`: timelines in the trace's time unit.
    pub trace_units: bool,
    /// Histograms over this time range (ticks) instead of the cfg's analysis limits (the
    /// viewer's visible window).
    pub window: Option<(u64, u64)>,
    /// Histograms walk their windows twice, as Paraver does, never in one walk (the tests
    /// compare the two).
    pub two_walks: bool,
}

/// Every semantic function Paraver knows (`src/semanticmanagement.cpp`): a window naming
/// another one in its functions makes Paraver refuse the whole cfg.
pub const PARAVER_FUNCTIONS: [&str; 118] = [
    "1-Sign",
    "Abs",
    "Accumulate",
    "Active Thd",
    "Active Thd Sign",
    "Active Thd Val",
    "Active Thd Val Sign",
    "Activity",
    "Add",
    "Add Tasks",
    "Adding",
    "AddingSign",
    "Application ID",
    "As Is",
    "Average",
    "Avg Last Evt Val",
    "Avg Next Evt Val",
    "Begin Time",
    "Burst Time",
    "Ceil",
    "Changed value",
    "Comm Partner",
    "Comm Recv. Partner",
    "Comm Size",
    "Complement",
    "Cpu ID",
    "Delta",
    "Div",
    "Divide by Burst Time",
    "End Time",
    "Enumerate",
    "Event Bytes",
    "Event Sent Bytes",
    "Floor",
    "Given Evt Val",
    "Given State",
    "In Activity",
    "In Appl ID",
    "In Cpu ID",
    "In Evt Range",
    "In Evt Val",
    "In Node ID",
    "In Stacked Val",
    "In State",
    "In Task ID",
    "In Thread ID",
    "Int. Between Evt",
    "Inverse Div",
    "Is Equal",
    "Is Equal (Sign)",
    "Is In Range",
    "Is In Range [)",
    "Join Bursts",
    "LRU Depth",
    "Last Evt Type",
    "Last Evt Val",
    "Last Evt Val w/o Bursts",
    "Last Send Dur.",
    "Last Send Size",
    "Last Tag",
    "Maximum",
    "Minimum",
    "Mod",
    "Mod+1",
    "Mode",
    "Nesting level",
    "Next Evt Type",
    "Next Evt Val",
    "Next Recv Dur.",
    "Node ID",
    "Not In Evt Val",
    "Not In State",
    "Number Of Receive Bytes",
    "Number Of Receives",
    "Number Of Send Bytes",
    "Number Of Sends",
    "Prod",
    "Recv BandWidth",
    "Recv Bytes in Transit",
    "Recv Messages in Transit",
    "Recv Negative Bytes",
    "Recv Negative Messages",
    "Round",
    "Select Range",
    "Select Range [)",
    "Send BandWidth",
    "Send Bytes in Transit",
    "Send Messages in Transit",
    "Sign",
    "Stacked Val",
    "State As Is",
    "State Record Dur.",
    "State Sign",
    "Subs",
    "TaskID",
    "Thread ID",
    "Thread i",
    "Timer",
    "Translate",
    "Useful",
    "add",
    "arc tan",
    "controlled: add",
    "controlled: average",
    "controlled: clear by",
    "controlled: enumerate",
    "controlled: maximum",
    "cos",
    "different",
    "divide",
    "exp",
    "log N",
    "maximum",
    "minimum",
    "product",
    "sin",
    "sqrt (abs)",
    "substract",
];

/// The slots of `window_selected_functions` that are filters, not semantic functions.
const FILTER_SLOTS: [&str; 7] = [
    "from_obj",
    "to_obj",
    "tag_msg",
    "size_msg",
    "bw_msg",
    "evt_type",
    "evt_value",
];

/// Paraver's reading of a cfg stops at a window's function it does not know, and the cfg
/// is not loaded (`CFGLoader::loadCFG`: paramedir says "Cannot load" and writes nothing).
pub fn check_loadable(cfg: &Cfg) -> Result<(), Error> {
    for w in &cfg.windows {
        for (slot, name) in &w.functions {
            if FILTER_SLOTS.contains(&slot.as_str()) {
                continue;
            }
            if !PARAVER_FUNCTIONS.contains(&name.trim()) {
                return Err(Error::CannotLoad(
                    cfg.file.clone(),
                    format!(
                        "window `{}`: `{name}` ({slot}) is not a Paraver function",
                        w.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Why a cfg gives no output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// As paramedir: no event type of the cfg's filters is in the trace.
    #[error(
        "{0}: None of the events specified in the filter appear in the trace. File creation aborted."
    )]
    NoEvents(String),
    #[error("{cfg}: window `{window}`: {what} is not computed by prvscope")]
    Unsupported {
        cfg: String,
        window: String,
        what: String,
    },
    #[error("{0}")]
    Invalid(String),
    /// As paramedir: Paraver cannot load the cfg (why, in prvscope's words).
    #[error("[Warning] Cannot load '{0}' file: Paraver refuses it ({1})")]
    CannotLoad(String, String),
}

/// What Paraver reads of a cfg that paramedir computes ([`Context::check`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// Messages paramedir prints and goes on.
    pub warnings: Vec<String>,
    /// The analyzers before the first Paraver cannot read (it stops reading the cfg there).
    pub readable: usize,
    /// The index of the last window Paraver reads.
    pub last: usize,
    /// Why Paraver drops analyzer `readable` and stops reading the cfg there, if it does.
    pub dropped: Option<String>,
}

/// What a cfg gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub kind: OutcomeKind,
    /// Messages paramedir prints and goes on (e.g. some filter events are not in the trace).
    pub warnings: Vec<String>,
    /// Where the output differs from paramedir's in what is not a figure, and why (prvscope's
    /// words, not paramedir's).
    pub notes: Vec<String>,
    /// How long each phase took, and how many records the walks read.
    pub profile: Profile,
}

/// Where a cfg's time went.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    pub phases: Vec<(&'static str, std::time::Duration)>,
    /// Records read from the store by the walks (a record read by two walks counts twice).
    pub records: u64,
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (name, d) in &self.phases {
            write!(f, "{name} {:.3} s, ", d.as_secs_f64())?;
        }
        let total: f64 = self.phases.iter().map(|p| p.1.as_secs_f64()).sum();
        write!(
            f,
            "{:.1} M records read ({:.0} M/s)",
            self.records as f64 / 1e6,
            self.records as f64 / 1e6 / total.max(1e-9)
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum OutcomeKind {
    /// A histogram's text.
    Histogram(String),
    /// A timeline dump: one text per object (with `-m`), or one for all.
    Timeline { many: Vec<String>, one: String },
}

impl Outcome {
    /// The whole output as one text (a timeline's objects one after the other).
    pub fn text(&self) -> String {
        match &self.kind {
            OutcomeKind::Histogram(t) => t.clone(),
            OutcomeKind::Timeline { one, .. } => one.clone(),
        }
    }

    /// (suffix of the output name, text) of each file paramedir writes.
    pub fn files(&self) -> Vec<(String, String)> {
        match &self.kind {
            OutcomeKind::Histogram(t) => vec![(String::new(), t.clone())],
            OutcomeKind::Timeline { many, one } if many.is_empty() => {
                vec![(".csv".to_string(), one.clone())]
            }
            OutcomeKind::Timeline { many, .. } => many
                .iter()
                .enumerate()
                .map(|(i, t)| (format!(".csv_{:05}", i + 1), t.clone()))
                .collect(),
        }
    }
}

/// A trace prepared for cfgs: where its records are read from, and its objects.
pub struct Context<'a> {
    pub trace: &'a Trace,
    pub source: Source<'a>,
    pub objects: Objects,
    pub present: BTreeSet<u32>,
    /// The `.pcf` as Paraver reads it ([`paraver_labels`]).
    pub pcf: Option<prvscope_format::Pcf>,
    /// Windows computed before (the viewer's), read instead of the store.
    pub cache: Option<Arc<WindowCache>>,
}

/// `pcf` with its labels as Paraver reads them (`PCFFileParser`): each line trimmed of
/// spaces and tabs, tabs made spaces, the label the text after the spaces that follow the
/// value. prvscope's own reading keeps the spaces around labels (ovni writes them).
pub fn paraver_labels(pcf: &prvscope_format::Pcf) -> prvscope_format::Pcf {
    let clean = |s: &mut String| {
        let t = s.replace('\t', " ");
        t.trim_matches(' ').clone_into(s);
    };
    let mut p = pcf.clone();
    p.states.values_mut().for_each(clean);
    for t in p.event_types.values_mut() {
        clean(&mut t.label);
        t.values.values_mut().for_each(clean);
    }
    p
}

impl<'a> Context<'a> {
    pub fn new(trace: &'a Trace) -> Context<'a> {
        Context {
            trace,
            source: Source::new(&trace.header, &trace.store),
            objects: Objects::new(&trace.header, trace.row.as_ref()),
            present: trace.store.event_types().into_iter().collect(),
            pcf: trace.pcf.as_ref().map(paraver_labels),
            cache: None,
        }
    }

    /// [`Context::new`], its analyses keeping their windows in `cache` and reading those
    /// kept there before.
    pub fn with_cache(trace: &'a Trace, cache: Arc<WindowCache>) -> Context<'a> {
        Context {
            cache: Some(cache),
            ..Context::new(trace)
        }
    }

    pub fn engine(&self) -> Engine<'_> {
        Engine {
            source: &self.source,
            objects: &self.objects,
            pcf: self.pcf.as_ref(),
            present: &self.present,
            trace_unit: trace_unit(self.trace),
            inversions: self.trace.store.inversions(),
            cache: self.cache.as_deref(),
        }
    }

    /// Whether paramedir computes `cfg` over this trace, and what of it Paraver reads: its
    /// refusal (a window's function Paraver does not know, no event of its filters in the
    /// trace, records that go back in time), else its warnings, the analyzers Paraver reads
    /// (it stops at one it cannot read) and the last window it reads. The viewer and the
    /// command line refuse alike.
    pub fn check(&self, cfg: &Cfg) -> Result<Checked, Error> {
        let engine = self.engine();
        let Some(mut last) = cfg.windows.len().checked_sub(1) else {
            return Err(Error::Invalid(format!("{}: no window", cfg.file)));
        };
        check_loadable(cfg)?;
        // Every window's filter is read (and can make the run fail), as paramedir does.
        let mut found = TypesFound::default();
        for w in cfg.windows.iter().filter(|w| w.derived.is_none()) {
            crate::filter::Filter::new(w, engine.pcf, engine.present, &mut found).map_err(
                |what| Error::Unsupported {
                    cfg: cfg.file.clone(),
                    window: w.name.clone(),
                    what,
                },
            )?;
        }
        if !found.some {
            return Err(Error::NoEvents(cfg.file.clone()));
        }
        // Paraver reads a trace in file order: where a thread's records go back in time its
        // windows are not those of the records sorted, which is what prvscope reads.
        let back = self
            .trace
            .report
            .count(prvscope_import::IssueKind::EventsOutOfOrder);
        if back > 0 {
            return Err(Error::Unsupported {
                cfg: cfg.file.clone(),
                window: cfg.windows[last].name.clone(),
                what: format!(
                    "a trace whose records go back in time on {back} thread{} (see the load \
                     report): Paraver reads them in file order, prvscope sorted, and their \
                     figures differ; this window",
                    if back == 1 { "" } else { "s" }
                ),
            });
        }
        let mut warnings = Vec::new();
        if found.missing {
            warnings.push(
                "Some of the events specified in the filter doesn't appear in the trace."
                    .to_string(),
            );
        }
        // Paraver drops an analyzer with a value it cannot read, or with windows it does not
        // accept together, and stops reading the cfg there: the analyzer before it, if any,
        // is the result, else the last window.
        let readable = cfg
            .analyzers
            .iter()
            .position(|a| !histogram::readable(a) || histogram::invalid_windows(cfg, a).is_some())
            .unwrap_or(cfg.analyzers.len());
        let cut_line = cfg.analyzers.get(readable).map_or(usize::MAX, |a| a.line);
        if let Some(i) = cfg.windows.iter().rposition(|w| w.line < cut_line) {
            last = i;
        }
        let dropped = cfg.analyzers.get(readable).map(|a| {
            histogram::invalid_windows(cfg, a)
                .unwrap_or_else(|| "a value Paraver cannot read".to_string())
        });
        Ok(Checked {
            warnings,
            readable,
            last,
            dropped,
        })
    }

    /// Runs `cfg` as paramedir does.
    pub fn compute(&self, cfg: &Cfg, options: &Options) -> Result<Outcome, Error> {
        let engine = self.engine();
        let unsupported = |e: WindowError| match e {
            WindowError::Unsupported(window, what) => Error::Unsupported {
                cfg: cfg.file.clone(),
                window,
                what,
            },
            WindowError::Missing(window, id) => Error::Invalid(format!(
                "{}: window `{window}` uses window {id}, which the cfg does not have",
                cfg.file
            )),
        };
        let Checked {
            warnings,
            readable,
            last,
            ..
        } = self.check(cfg)?;
        let last = &cfg.windows[last];
        let mut scratch = TypesFound::default();
        let read_before = crate::records::records_read();
        let mut profile = Profile::default();
        if let Some(a) = cfg.analyzers[..readable].last() {
            let h =
                histogram::run_timed(&engine, cfg, a, options, &mut scratch, &mut profile.phases)
                    .map_err(|e| match e {
                    histogram::HistogramError::Window(w) => unsupported(w),
                    histogram::HistogramError::Unsupported(what) => Error::Unsupported {
                        cfg: cfg.file.clone(),
                        window: "analyzer".into(),
                        what,
                    },
                })?;
            let started = std::time::Instant::now();
            let text = h.text();
            profile.phases.push(("text", started.elapsed()));
            profile.records = crate::records::records_read() - read_before;
            return Ok(Outcome {
                kind: OutcomeKind::Histogram(text),
                warnings,
                notes: h.notes,
                profile,
            });
        }
        let started = std::time::Instant::now();
        let w = engine
            .window(cfg, last, &mut scratch)
            .map_err(unsupported)?;
        let (many, one) = dump(&engine, &w, &self.objects, options);
        profile
            .phases
            .push(("timeline walk and text", started.elapsed()));
        profile.records = crate::records::records_read() - read_before;
        Ok(Outcome {
            kind: OutcomeKind::Timeline { many, one },
            warnings,
            notes: Vec::new(),
            profile,
        })
    }
}

/// One analyzer of a cfg, computed for the viewer.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The analyzer's `Analyzer2D.Name`, or its control window's name.
    pub name: String,
    pub histogram: Histogram,
    /// Its control window: where each object holds each value.
    pub control: Arc<Computed>,
}

impl Context<'_> {
    /// Every analyzer of `cfg` (each computed whole, its failures named), and the names of
    /// its timeline windows.
    pub fn analyses(&self, cfg: &Cfg) -> (Vec<Result<Analysis, Error>>, Vec<String>) {
        let results = (0..cfg.analyzers.len())
            .map(|i| self.analysis(cfg, i, None))
            .collect();
        let windows = cfg.windows.iter().map(|w| w.name.clone()).collect();
        (results, windows)
    }

    /// Analyzer `index` of `cfg`, over `window` (ticks) or the cfg's analysis limits.
    pub fn analysis(
        &self,
        cfg: &Cfg,
        index: usize,
        window: Option<(u64, u64)>,
    ) -> Result<Analysis, Error> {
        let engine = self.engine();
        let options = Options {
            window,
            ..Options::default()
        };
        check_loadable(cfg)?;
        let a = cfg
            .analyzers
            .get(index)
            .ok_or_else(|| Error::Invalid(format!("{}: no analyzer {index}", cfg.file)))?;
        let mut found = TypesFound::default();
        let (histogram, control) = histogram::run_with_control(
            &engine, cfg, a, &options, &mut found,
        )
        .map_err(|e| match e {
            histogram::HistogramError::Window(WindowError::Unsupported(window, what)) => {
                Error::Unsupported {
                    cfg: cfg.file.clone(),
                    window,
                    what,
                }
            }
            histogram::HistogramError::Window(WindowError::Missing(window, id)) => {
                Error::Invalid(format!(
                    "{}: window `{window}` uses window {id}, which the cfg does not have",
                    cfg.file
                ))
            }
            histogram::HistogramError::Unsupported(what) => Error::Unsupported {
                cfg: cfg.file.clone(),
                window: "analyzer".into(),
                what,
            },
        })?;
        let name = a
            .get("Analyzer2D.Name")
            .map_or_else(|| control.info.name.clone(), str::to_string);
        Ok(Analysis {
            name,
            histogram,
            control,
        })
    }
}

/// The trace's time unit as a window unit.
fn trace_unit(t: &Trace) -> TimeUnit {
    match t.header.time_unit.as_str() {
        "us" => TimeUnit::Microseconds,
        "ms" => TimeUnit::Milliseconds,
        "s" => TimeUnit::Seconds,
        _ => TimeUnit::Nanoseconds,
    }
}

/// A timeline dump (`TextOutput::dumpWindow`): per object, every interval from the window's
/// begin while it ends before the window's end, then the one that reaches it (objects in
/// parallel, each walked once).
fn dump(
    engine: &Engine,
    w: &Window,
    objects: &Objects,
    options: &Options,
) -> (Vec<String>, String) {
    use rayon::prelude::*;
    let c = &w.info;
    let end = c.end_time.min(engine.end_time());
    let time = |t: u64| -> String {
        if options.trace_units {
            t.to_string()
        } else {
            fixed(convert(engine.trace_unit, c.units, t as f64), 2)
        }
    };
    let texts: Vec<String> = (0..w.rows())
        .into_par_iter()
        .map(|o| {
            let mut text = String::new();
            let label = objects.id(c.level, o);
            let mut row = w.row(o);
            // From the first interval ending after the window's begin (the last when none
            // does).
            let mut last = None;
            let first = loop {
                match row.next() {
                    Some(iv) if iv.end > c.begin_time => break Some(iv),
                    Some(iv) => last = Some(iv),
                    None => break last,
                }
            };
            for iv in first.into_iter().chain(row) {
                if !options.many_files {
                    text.push_str(&label);
                    text.push('\t');
                }
                let _ = writeln!(
                    text,
                    "{}\t{}\t{}",
                    time(iv.begin),
                    time(iv.end - iv.begin),
                    fixed(iv.value, 2)
                );
                if iv.end >= end {
                    break;
                }
            }
            text
        })
        .collect();
    if options.many_files {
        (texts, String::new())
    } else {
        (Vec::new(), texts.concat())
    }
}

/// Runs `cfg` over `trace` (the trace prepared once per call; use [`Context`] for many).
pub fn compute(trace: &Trace, cfg: &Cfg, options: &Options) -> Result<Outcome, Error> {
    Context::new(trace).compute(cfg, options)
}

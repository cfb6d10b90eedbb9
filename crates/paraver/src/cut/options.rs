//! The options of Paraver's cutter and filter, and the XML files that carry them
//! (`KTraceOptions::parseDoc`, `src/ktraceoptions.cpp`): `<config>` holding a `<cutter>`
//! and/or a `<filter>` section, each option an element. What an element leaves out takes
//! Paraver's default (its `ParaverConfig` defaults, and `original_time` on, as `parseDoc`
//! sets it before reading the file).
//!
//! Where Paraver reads a malformed value as 0 (`atoi`), this reader says which element and
//! what was expected instead; files Paraver writes read the same.

use std::fmt::Write as _;

/// One entry of the cutter's task list: a task number or a range of them (1-based, any
/// application).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRange {
    pub min: u64,
    pub max: u64,
}

/// The cutter's options (`KTraceCutter::read_cutter_params`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutterOptions {
    /// The tasks kept; empty: all.
    pub tasks: Vec<TaskRange>,
    /// Stop once this many MB (10^6 bytes) are written; 0: no limit.
    pub max_trace_size: u64,
    /// The cut is `[min_time, max_time]` (ticks) when true, else the percentages of the
    /// header's duration.
    pub by_time: bool,
    pub min_time: u64,
    pub max_time: u64,
    pub min_percentage: u64,
    pub max_percentage: u64,
    /// Keep the trace's times (no shift to 0, states not cut at the edges).
    pub original_time: bool,
    /// Cut the states that cross the edges to the edges.
    pub break_states: bool,
    /// Drop the states that begin before the cut (`remove_first_states`).
    pub remove_first_states: bool,
    /// Drop the states that end after the cut (`remove_last_states`).
    pub remove_last_states: bool,
    /// Keep the events at the edges of the states kept (`keep_events`).
    pub keep_events: bool,
    /// The rows kept, on top of the tasks (not in Paraver's files: the viewer's visible
    /// rows, the command line's `--threads`); `None`: all.
    pub rows: Option<Vec<bool>>,
}

impl Default for CutterOptions {
    fn default() -> Self {
        Self {
            tasks: Vec::new(),
            max_trace_size: 0,
            by_time: false,
            min_time: 0,
            max_time: 0,
            min_percentage: 0,
            max_percentage: 100,
            original_time: true,
            break_states: true,
            remove_first_states: false,
            remove_last_states: false,
            keep_events: false,
            rows: None,
        }
    }
}

impl CutterOptions {
    /// A cut by time of `[t0, t1]` (ticks) with the settings of Paraver's cutter dialog:
    /// states broken at the edges, times shifted to start at 0.
    pub fn by_time(t0: u64, t1: u64) -> Self {
        Self {
            by_time: true,
            min_time: t0,
            max_time: t1,
            original_time: false,
            ..Self::default()
        }
    }

    /// The cut's `[min, max]` in ticks for a trace of `duration` ticks: the times given, or
    /// the percentages as Paraver computes them (`duration / 100 * percentage`).
    pub fn range(&self, duration: u64) -> (u64, u64) {
        if self.by_time {
            (self.min_time, self.max_time)
        } else {
            let unit = (duration / 100) as f64;
            (
                (unit * self.min_percentage as f64) as u64,
                (unit * self.max_percentage as f64) as u64,
            )
        }
    }

    /// Is task `task` (1-based) kept? (`is_selected_task`: the list ends at a 0.)
    pub fn keeps_task(&self, task: u64) -> bool {
        if self.tasks.is_empty() {
            return true;
        }
        self.tasks
            .iter()
            .take_while(|r| r.min != 0)
            .any(|r| (r.min..=r.max).contains(&task))
    }

    /// The cutter section of an XML file with these options, as Paraver writes it.
    pub fn to_xml(&self) -> String {
        let mut s =
            String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<config>\n  <cutter>\n");
        if !self.tasks.is_empty() {
            let list: Vec<String> = self
                .tasks
                .iter()
                .map(|r| {
                    if r.min == r.max {
                        r.min.to_string()
                    } else {
                        format!("{}-{}", r.min, r.max)
                    }
                })
                .collect();
            let _ = writeln!(s, "    <tasks>{}</tasks>", list.join(","));
        }
        let b = |v: bool| u8::from(v);
        let _ = write!(
            s,
            "    <max_trace_size>{}</max_trace_size>\n    <by_time>{}</by_time>\n    \
             <minimum_time>{}</minimum_time>\n    <maximum_time>{}</maximum_time>\n    \
             <minimum_time_percentage>{}</minimum_time_percentage>\n    \
             <maximum_time_percentage>{}</maximum_time_percentage>\n    \
             <original_time>{}</original_time>\n    <break_states>{}</break_states>\n    \
             <remove_first_states>{}</remove_first_states>\n    \
             <remove_last_states>{}</remove_last_states>\n    <keep_events>{}</keep_events>\n  \
             </cutter>\n</config>\n",
            self.max_trace_size,
            b(self.by_time),
            self.min_time,
            self.max_time,
            self.min_percentage,
            self.max_percentage,
            b(self.original_time),
            b(self.break_states),
            b(self.remove_first_states),
            b(self.remove_last_states),
            b(self.keep_events)
        );
        s
    }
}

/// The states a filter keeps.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StateFilter {
    /// Every state (`All`).
    pub all: bool,
    /// The names given (a `.pcf` state is kept when its name is part of one of them, as
    /// Paraver matches them).
    pub names: Vec<String>,
    /// States shorter than this (ticks) are dropped; 0: none.
    pub min_time: u64,
}

/// One event type (or range of types) of a filter, with the values it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeFilter {
    pub ty: u64,
    /// The last type of a range `ty-max` (0: a single type).
    pub max: u64,
    /// The values named (empty: any value). Only for a single type.
    pub values: Vec<u64>,
}

/// The events a filter keeps.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EventFilter {
    /// The types listed are dropped and the others kept (`<types use="discard">`).
    pub discard_given: bool,
    /// Empty: every event.
    pub types: Vec<TypeFilter>,
}

impl EventFilter {
    /// Is the pair kept? (`KTraceFilter::filter_allowed_type`.)
    pub fn keeps(&self, ty: u64, value: u64) -> bool {
        if self.types.is_empty() {
            return true;
        }
        for t in &self.types {
            if t.max != 0 && (t.ty..=t.max).contains(&ty) {
                return !self.discard_given;
            }
            if t.ty == ty && (t.values.is_empty() || t.values.contains(&value)) {
                return !self.discard_given;
            }
        }
        self.discard_given
    }
}

/// The filter's options (`KTraceFilter::read_params`). `None`: that kind of record is
/// dropped (`discard_states`, `discard_events`, `discard_communications`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterOptions {
    pub states: Option<StateFilter>,
    pub events: Option<EventFilter>,
    /// The communications kept: those of at least this size.
    pub comms: Option<u64>,
}

impl Default for FilterOptions {
    /// Paraver's defaults: states, events and communications filtered, no state named (so
    /// none kept), every event, every communication.
    fn default() -> Self {
        Self {
            states: Some(StateFilter::default()),
            events: Some(EventFilter::default()),
            comms: Some(0),
        }
    }
}

/// What an options file holds, in the file's order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolOptions {
    pub cutter: Option<CutterOptions>,
    pub filter: Option<FilterOptions>,
    /// What the file says that Paraver reads otherwise than it looks (said on stderr).
    pub warnings: Vec<String>,
}

/// Why an options file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct XmlError {
    pub line: u32,
    pub message: String,
}

fn line_of(doc: &roxmltree::Document<'_>, node: roxmltree::Node<'_, '_>) -> u32 {
    doc.text_pos_at(node.range().start).row
}

/// The text of `node`'s own text children (libxml2's `xmlNodeListGetString` of its
/// children: nested elements left out).
fn own_text(node: roxmltree::Node<'_, '_>) -> String {
    node.children()
        .filter(roxmltree::Node::is_text)
        .filter_map(|n| n.text())
        .collect()
}

fn number(doc: &roxmltree::Document<'_>, node: roxmltree::Node<'_, '_>) -> Result<u64, XmlError> {
    let text = own_text(node);
    text.trim().parse::<u64>().map_err(|_| XmlError {
        line: line_of(doc, node),
        message: format!(
            "<{}> holds {:?}; expected a whole number",
            node.tag_name().name(),
            text.trim()
        ),
    })
}

fn flag(doc: &roxmltree::Document<'_>, node: roxmltree::Node<'_, '_>) -> Result<bool, XmlError> {
    Ok(number(doc, node)? != 0)
}

impl ToolOptions {
    /// Reads a Paraver cutter/filter options file.
    pub fn parse(text: &str) -> Result<ToolOptions, XmlError> {
        let doc = roxmltree::Document::parse(text).map_err(|e| XmlError {
            line: e.pos().row,
            message: format!("not an XML file: {e}"),
        })?;
        let root = doc.root_element();
        if root.tag_name().name() != "config" {
            return Err(XmlError {
                line: line_of(&doc, root),
                message: format!(
                    "the root element is <{}>; Paraver's cutter and filter files hold <config>",
                    root.tag_name().name()
                ),
            });
        }
        let mut out = ToolOptions::default();
        for section in root.children().filter(roxmltree::Node::is_element) {
            match section.tag_name().name() {
                "cutter" => out.cutter = Some(parse_cutter(&doc, section)?),
                "filter" => out.filter = Some(parse_filter(&doc, section, &mut out.warnings)?),
                _ => {}
            }
        }
        if out.cutter.is_none() && out.filter.is_none() {
            return Err(XmlError {
                line: line_of(&doc, root),
                message: "<config> holds neither a <cutter> nor a <filter> section".into(),
            });
        }
        Ok(out)
    }
}

fn parse_cutter(
    doc: &roxmltree::Document<'_>,
    section: roxmltree::Node<'_, '_>,
) -> Result<CutterOptions, XmlError> {
    let mut o = CutterOptions::default();
    for n in section.children().filter(roxmltree::Node::is_element) {
        match n.tag_name().name() {
            "tasks" => o.tasks = parse_tasks(doc, n)?,
            "original_time" => o.original_time = flag(doc, n)?,
            "max_trace_size" => o.max_trace_size = number(doc, n)?,
            "by_time" => o.by_time = flag(doc, n)?,
            "minimum_time" => o.min_time = number(doc, n)?,
            "maximum_time" => o.max_time = number(doc, n)?,
            "minimum_time_percentage" => o.min_percentage = number(doc, n)?,
            "maximum_time_percentage" => o.max_percentage = number(doc, n)?,
            "break_states" => o.break_states = flag(doc, n)?,
            "remove_first_states" => o.remove_first_states = flag(doc, n)?,
            "remove_last_states" => o.remove_last_states = flag(doc, n)?,
            "keep_events" => o.keep_events = flag(doc, n)?,
            _ => {}
        }
    }
    Ok(o)
}

fn parse_tasks(
    doc: &roxmltree::Document<'_>,
    n: roxmltree::Node<'_, '_>,
) -> Result<Vec<TaskRange>, XmlError> {
    let text = own_text(n);
    let bad = |w: &str| XmlError {
        line: line_of(doc, n),
        message: format!("<tasks> holds {w:?}; expected task numbers or ranges like 1-4,7"),
    };
    let mut out = Vec::new();
    for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let (a, b) = word.split_once('-').unwrap_or((word, word));
        let a = a.trim().parse::<u64>().map_err(|_| bad(word))?;
        let b = b.trim().parse::<u64>().map_err(|_| bad(word))?;
        out.push(TaskRange { min: a, max: b });
    }
    Ok(out)
}

fn parse_filter(
    doc: &roxmltree::Document<'_>,
    section: roxmltree::Node<'_, '_>,
    warnings: &mut Vec<String>,
) -> Result<FilterOptions, XmlError> {
    let mut o = FilterOptions::default();
    let (mut discard_states, mut discard_events, mut discard_comms) = (None, None, None);
    for n in section.children().filter(roxmltree::Node::is_element) {
        match n.tag_name().name() {
            "types" => {
                let mut ev = EventFilter {
                    discard_given: n.attribute("use") == Some("discard"),
                    types: Vec::new(),
                };
                // Paraver starts reading at the second child of <types> (the first is
                // taken for the whitespace before the first <type>).
                let mut children = n.children();
                if let Some(first) = children.next().filter(roxmltree::Node::is_element) {
                    warnings.push(format!(
                        "line {}: <{}> right after <types> is skipped, as Paraver skips the \
                         first node of <types> (put a line break before it)",
                        line_of(doc, first),
                        first.tag_name().name()
                    ));
                }
                for t in children.filter(|c| c.tag_name().name() == "type") {
                    ev.types.push(parse_type(doc, t)?);
                }
                o.events = Some(ev);
            }
            "comms" => {
                let text = own_text(n);
                o.comms = Some(if text.trim().is_empty() {
                    0
                } else {
                    number(doc, n)?
                });
            }
            "states" => o.states = Some(parse_states(doc, n)?),
            "discard_states" => discard_states = Some(flag(doc, n)?),
            "discard_events" => discard_events = Some(flag(doc, n)?),
            "discard_communications" => discard_comms = Some(flag(doc, n)?),
            _ => {}
        }
    }
    if discard_states == Some(true) {
        o.states = None;
    }
    if discard_events == Some(true) {
        o.events = None;
    }
    if discard_comms == Some(true) {
        o.comms = None;
    }
    // A state filter left at Paraver's default names no state, and so keeps none.
    if o.states
        .as_ref()
        .is_some_and(|s| !s.all && s.names.is_empty())
    {
        warnings.push(
            "the filter names no state (no <states>): Paraver's filter then keeps no state".into(),
        );
    }
    Ok(o)
}

fn parse_type(
    doc: &roxmltree::Document<'_>,
    t: roxmltree::Node<'_, '_>,
) -> Result<TypeFilter, XmlError> {
    let text = own_text(t);
    let bad = || XmlError {
        line: line_of(doc, t),
        message: format!(
            "<type> holds {:?}; expected a type or a range like 1-9",
            text.trim()
        ),
    };
    if let Some((a, b)) = text.split_once('-') {
        let a = a.trim().parse::<u64>().map_err(|_| bad())?;
        let b = b.trim().parse::<u64>().map_err(|_| bad())?;
        return Ok(TypeFilter {
            ty: a,
            max: b,
            values: Vec::new(),
        });
    }
    let ty = text.trim().parse::<u64>().map_err(|_| bad())?;
    let mut values = Vec::new();
    for v in t.children().filter(|c| c.tag_name().name() == "value") {
        values.push(number(doc, v)?);
    }
    Ok(TypeFilter { ty, max: 0, values })
}

fn parse_states(
    doc: &roxmltree::Document<'_>,
    n: roxmltree::Node<'_, '_>,
) -> Result<StateFilter, XmlError> {
    let mut s = StateFilter::default();
    let text = own_text(n);
    let mut words = text.split(',');
    let first = words.next().unwrap_or("");
    if first.contains("All") {
        s.all = true;
    } else if !first.chars().any(char::is_alphanumeric) {
        s.names.push("Running".into());
    } else {
        s.names.push(first.to_owned());
        for w in words {
            if w == "All" {
                s.all = true;
            } else {
                s.names.push(w.to_owned());
            }
        }
    }
    if let Some(m) = n
        .children()
        .find(|c| c.is_element() && c.tag_name().name() == "min_state_time")
    {
        s.min_time = number(doc, m)?;
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pypop_files_read_as_paraver_reads_them() {
        let cutter = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<config>\n  <cutter>\n    \
            <max_trace_size>0</max_trace_size>\n    <by_time>1</by_time>\n    \
            <minimum_time>100</minimum_time>\n    <maximum_time>900</maximum_time>\n    \
            <minimum_time_percentage>0</minimum_time_percentage>\n    \
            <maximum_time_percentage>100</maximum_time_percentage>\n    \
            <original_time>0</original_time>\n    <break_states>0</break_states>\n    \
            <remove_first_states>1</remove_first_states>\n    \
            <remove_last_states>1</remove_last_states>\n    <keep_events>1</keep_events>\n  \
            </cutter>\n</config>\n";
        let o = ToolOptions::parse(cutter).unwrap().cutter.unwrap();
        assert!(o.by_time && !o.original_time && !o.break_states);
        assert!(o.remove_first_states && o.remove_last_states && o.keep_events);
        assert_eq!(o.range(5000), (100, 900));
        assert_eq!(ToolOptions::parse(&o.to_xml()).unwrap().cutter.unwrap(), o);

        let filter = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<config>\n  <filter>\n    \
            <discard_states>1</discard_states>\n    <discard_events>0</discard_events>\n    \
            <discard_communications>1</discard_communications>\n    <states>Running\n      \
            <min_state_time>0</min_state_time>\n    </states>\n    <types>\n      \
            <type>40000012</type>\n    </types>\n    <comms>0</comms>\n  </filter>\n</config>\n";
        let f = ToolOptions::parse(filter).unwrap().filter.unwrap();
        assert_eq!(f.states, None);
        assert_eq!(f.comms, None);
        let ev = f.events.unwrap();
        assert!(ev.keeps(40_000_012, 1) && ev.keeps(40_000_012, 0));
        assert!(!ev.keeps(50_000_001, 1));
    }

    #[test]
    fn paraver_example_filter() {
        let filter = "<config>\n  <filter>\n    <states>Running\n      \
            <min_state_time>10000</min_state_time>\n    </states>\n    \
            <discard_states>0</discard_states>\n    <discard_events>1</discard_events>\n    \
            <discard_communications>1</discard_communications>\n    <types>\n      \
            <type>50000001        <value>34</value>\n      </type>\n      \
            <type>50000002-50000003</type>\n    </types>\n    <comms>100</comms>\n  \
            </filter>\n</config>\n";
        let o = ToolOptions::parse(filter).unwrap();
        let f = o.filter.unwrap();
        let s = f.states.unwrap();
        assert!(!s.all);
        assert!(s.names[0].contains("Running"));
        assert_eq!(s.min_time, 10_000);
        assert_eq!(f.events, None, "discard_events wins over <types>");
        assert_eq!(f.comms, None);
    }

    #[test]
    fn types_select_values_ranges_and_discards() {
        let f = |xml: &str| {
            ToolOptions::parse(xml)
                .unwrap()
                .filter
                .unwrap()
                .events
                .unwrap()
        };
        let ev = f(
            "<config><filter><types>\n<type>7<value>3</value><value>4</value></type>\
                    <type>10-20</type></types></filter></config>",
        );
        assert!(ev.keeps(7, 3) && ev.keeps(7, 4) && !ev.keeps(7, 5));
        assert!(ev.keeps(10, 0) && ev.keeps(20, 1) && !ev.keeps(21, 1));
        let ev =
            f("<config><filter><types use=\"discard\">\n<type>7</type></types></filter></config>");
        assert!(!ev.keeps(7, 1) && ev.keeps(8, 1));
        // Paraver skips the first node of <types>: written without a line break, the first
        // type is not read, and the reader says so.
        let o = ToolOptions::parse(
            "<config><filter><types><type>7</type><type>8</type></types></filter></config>",
        )
        .unwrap();
        assert_eq!(o.filter.unwrap().events.unwrap().types.len(), 1);
        assert_eq!(o.warnings.len(), 2, "{:?}", o.warnings);
    }

    #[test]
    fn bad_files_say_where_and_what() {
        let e = ToolOptions::parse("<config><cutter><by_time>yes</by_time></cutter></config>")
            .unwrap_err();
        assert!(
            e.message.contains("<by_time>") && e.message.contains("whole number"),
            "{e}"
        );
        let e = ToolOptions::parse("<cfg></cfg>").unwrap_err();
        assert!(e.message.contains("<config>"), "{e}");
        let e = ToolOptions::parse("not xml").unwrap_err();
        assert!(e.message.contains("not an XML file"), "{e}");
        let e = ToolOptions::parse("<config>\n<other/></config>").unwrap_err();
        assert!(e.message.contains("neither"), "{e}");
        let e = ToolOptions::parse("<config><cutter>\n<tasks>1-x</tasks></cutter></config>")
            .unwrap_err();
        assert_eq!(e.line, 2);
        let o = ToolOptions::parse("<config><cutter><tasks>1-4, 7</tasks></cutter></config>")
            .unwrap()
            .cutter
            .unwrap();
        assert!(o.keeps_task(3) && o.keeps_task(7) && !o.keeps_task(5));
    }
}

//! Paraver configuration files (`.cfg`): the text as Paraver writes it, parsed into windows and
//! analyzers.
//!
//! Both formats Paraver reads are accepted: `#ParaverCFG` / `ConfigFile.Version: 3.x` and the
//! older `version 3.x` / `number_of_windows` (most of the nanox library), whose windows have no
//! `window_level` (thread) and name compose slots by level (`{thread, As Is}`). Unknown keys are
//! ignored, as Paraver does; a line that cannot be read where a value is needed is an error
//! naming the line.

use std::collections::BTreeMap;

/// Why a cfg cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct CfgError {
    pub file: String,
    /// 1-based line, 0 for the file as a whole.
    pub line: usize,
    pub message: String,
}

/// The object level a window computes at: the object model's.
pub use prvscope_format::model::Level;

/// Time units of a window (`window_units`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Nanoseconds,
    Microseconds,
    Milliseconds,
    Seconds,
    Minutes,
    Hours,
    Days,
}

impl TimeUnit {
    /// Every unit, the smallest first.
    pub const ALL: [TimeUnit; 7] = [
        TimeUnit::Nanoseconds,
        TimeUnit::Microseconds,
        TimeUnit::Milliseconds,
        TimeUnit::Seconds,
        TimeUnit::Minutes,
        TimeUnit::Hours,
        TimeUnit::Days,
    ];

    /// From the cfg's word.
    pub fn parse(word: &str) -> Option<TimeUnit> {
        Some(match word.trim() {
            "Nanoseconds" => TimeUnit::Nanoseconds,
            "Microseconds" => TimeUnit::Microseconds,
            "Milliseconds" => TimeUnit::Milliseconds,
            "Seconds" => TimeUnit::Seconds,
            "Minutes" => TimeUnit::Minutes,
            "Hours" => TimeUnit::Hours,
            "Days" => TimeUnit::Days,
            _ => return None,
        })
    }

    /// Nanoseconds in one unit.
    pub fn nanos(self) -> f64 {
        match self {
            TimeUnit::Nanoseconds => 1.0,
            TimeUnit::Microseconds => 1e3,
            TimeUnit::Milliseconds => 1e6,
            TimeUnit::Seconds => 1e9,
            TimeUnit::Minutes => 60e9,
            TimeUnit::Hours => 3600e9,
            TimeUnit::Days => 86400e9,
        }
    }
}

/// One `window_semantic_module SLOT FUNCTION { n, { k v... } }` line: parameters of a function.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionParams {
    pub slot: String,
    pub function: String,
    /// Each parameter is a list of numbers.
    pub params: Vec<Vec<f64>>,
}

/// One `window_filter_module KIND n v...` line.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterValues {
    pub kind: String,
    pub values: Vec<f64>,
    /// The pcf labels of the values (`evt_type_label`, `evt_value_label`), when given: the
    /// trace's own numbers for these labels replace the values.
    pub labels: Vec<String>,
}

/// A derived (`window_type composed`) window's parents and operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    /// `window_identifiers`: the ids of the two parent windows.
    pub parents: [u32; 2],
    pub factors: [f64; 2],
    /// `window_operation`, as written (`product`, `divide`, `controlled: maximum`, ...).
    pub operation: String,
    /// `window_shift` of each parent, if any.
    pub shifts: [i64; 2],
}

/// One timeline window of a cfg.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowCfg {
    pub name: String,
    /// `window_id` (1-based; analyzers name windows by it).
    pub id: u32,
    /// Line of the window's header in the file.
    pub line: usize,
    pub derived: Option<Derived>,
    pub level: Level,
    pub units: TimeUnit,
    /// Functions by slot: `thread`, `task`, `compose_thread`, `topcompose1`, `evt_type`, ...
    /// Old-format compose slots (`{thread, As Is}` in `window_compose_functions`) are stored
    /// under the new names (`compose_thread`, `topcompose` stays).
    pub functions: BTreeMap<String, String>,
    pub params: Vec<FunctionParams>,
    pub filters: Vec<FilterValues>,
    pub logical_filtered: bool,
    pub physical_filtered: bool,
    /// `window_comm_fromto`, `window_comm_tagsize`, `window_comm_typeval`: how the filter's
    /// parts combine (true: and).
    pub comm_fromto: bool,
    pub comm_tagsize: bool,
    pub comm_typeval: bool,
    pub begin_time_relative: f64,
    pub end_time_relative: f64,
    /// Old cfgs' absolute `window_begin_time` and `window_stop_time` (trace ticks), which
    /// replace the relative ones (`window_end_time` is read and ignored, as Paraver does).
    pub begin_time: Option<f64>,
    pub stop_time: Option<f64>,
    /// Every line of the window, as (key, rest), for the keys not read above.
    pub lines: Vec<(String, String)>,
}

impl WindowCfg {
    /// The function in `slot`, if the cfg names one.
    pub fn function(&self, slot: &str) -> Option<&str> {
        self.functions.get(slot).map(String::as_str)
    }

    /// Parameters of `function` in `slot` (empty when the cfg gives none).
    pub fn params_of(&self, slot: &str, function: &str) -> Option<&[Vec<f64>]> {
        self.params
            .iter()
            .rev()
            .find(|p| p.slot == slot && p.function == function)
            .map(|p| p.params.as_slice())
    }

    /// The values of filter `kind` (`evt_type`, `evt_value`, `tag_msg`, ...).
    pub fn filter_values(&self, kind: &str) -> Option<&[f64]> {
        self.filters
            .iter()
            .rev()
            .find(|f| f.kind == kind)
            .map(|f| f.values.as_slice())
    }

    /// The raw text of another key.
    pub fn raw(&self, key: &str) -> Option<&str> {
        self.lines
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// One `< NEW ANALYZER2D >` section: `Analyzer2D.KEY: value` lines.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalyzerCfg {
    /// Line of the section's header.
    pub line: usize,
    /// Keys (`Analyzer2D.Statistic`, `Analyzer3D.ComputeYScale`), in file order (later lines
    /// win).
    pub keys: Vec<(String, String)>,
}

impl AnalyzerCfg {
    /// The value of `key` (`Analyzer2D.ControlWindow`, `Analyzer2D.Statistic`, ...).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A numeric key.
    pub fn number(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(|v| v.trim().parse().ok())
    }

    /// A `True`/`False` key.
    pub fn flag(&self, key: &str) -> Option<bool> {
        self.get(key).map(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Is it a 3D analyzer?
    pub fn is_3d(&self) -> bool {
        self.get("Analyzer2D.3D_ControlWindow").is_some()
    }
}

/// A parsed cfg.
#[derive(Debug, Clone, PartialEq)]
pub struct Cfg {
    /// The file's name as given (for messages).
    pub file: String,
    pub windows: Vec<WindowCfg>,
    pub analyzers: Vec<AnalyzerCfg>,
    /// `version 3.x` / `number_of_windows` format.
    pub old_format: bool,
}

impl Cfg {
    /// The window with `window_id` `id`.
    pub fn window(&self, id: u32) -> Option<&WindowCfg> {
        self.windows.iter().find(|w| w.id == id)
    }

    /// Parses a cfg's text. `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Cfg, CfgError> {
        Parser {
            file,
            cfg: Cfg {
                file: file.to_string(),
                windows: Vec::new(),
                analyzers: Vec::new(),
                old_format: false,
            },
        }
        .run(text)
    }
}

enum Section {
    None,
    Window(usize),
    Analyzer(usize),
}

struct Parser<'a> {
    file: &'a str,
    cfg: Cfg,
}

impl Parser<'_> {
    fn err(&self, line: usize, message: impl Into<String>) -> CfgError {
        CfgError {
            file: self.file.to_string(),
            line,
            message: message.into(),
        }
    }

    fn run(mut self, text: &str) -> Result<Cfg, CfgError> {
        let mut section = Section::None;
        let mut first = true;
        let mut in_description = false;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim_end_matches('\r');
            let trimmed = line.trim();
            if first && !trimmed.is_empty() {
                first = false;
                if trimmed.starts_with("version ") {
                    self.cfg.old_format = true;
                } else if trimmed.starts_with("ConfigFile.") {
                    // Some cfgs start without the `#ParaverCFG` line; Paraver reads them.
                } else if trimmed != "#ParaverCFG" {
                    return Err(self.err(n, "not a Paraver cfg: expected `#ParaverCFG`"));
                }
                continue;
            }
            if trimmed == "ConfigFile.BeginDescription" {
                in_description = true;
                continue;
            }
            if in_description {
                in_description = trimmed != "ConfigFile.EndDescription";
                continue;
            }
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix("< NEW DISPLAYING WINDOW ") {
                let name = rest.trim_end_matches('>').trim().to_string();
                self.cfg.windows.push(new_window(name, n));
                section = Section::Window(self.cfg.windows.len() - 1);
                continue;
            }
            if trimmed.starts_with("< NEW ANALYZER2D") {
                self.cfg.analyzers.push(AnalyzerCfg {
                    line: n,
                    keys: Vec::new(),
                });
                section = Section::Analyzer(self.cfg.analyzers.len() - 1);
                continue;
            }
            match section {
                Section::Window(w) => self.window_line(w, n, trimmed)?,
                Section::Analyzer(a) => {
                    if trimmed.starts_with("Analyzer2D.") || trimmed.starts_with("Analyzer3D.") {
                        let (k, v) = trimmed.split_once(':').unwrap_or((trimmed, ""));
                        self.cfg.analyzers[a]
                            .keys
                            .push((k.trim().to_string(), v.trim().to_string()));
                    }
                }
                Section::None => {}
            }
        }
        if first {
            return Err(self.err(0, "empty file: expected `#ParaverCFG`"));
        }
        Ok(self.cfg)
    }

    fn window_line(&mut self, w: usize, n: usize, line: &str) -> Result<(), CfgError> {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        let file = self.file.to_string();
        let bad = |what: &str| CfgError {
            file: file.clone(),
            line: n,
            message: format!("`{key}`: expected {what}, found `{rest}`"),
        };
        match key {
            "window_name" => self.cfg.windows[w].name = rest.to_string(),
            "window_type" => {
                if rest == "composed" {
                    self.cfg.windows[w].derived.get_or_insert(Derived {
                        parents: [0, 0],
                        factors: [1.0, 1.0],
                        operation: String::new(),
                        shifts: [0, 0],
                    });
                }
            }
            "window_id" => self.cfg.windows[w].id = rest.parse().map_err(|_| bad("a number"))?,
            "window_level" => {
                self.cfg.windows[w].level = Level::parse(rest).ok_or_else(|| bad("a level"))?;
            }
            "window_units" => {
                self.cfg.windows[w].units = TimeUnit::parse(rest).ok_or_else(|| bad("a unit"))?;
            }
            "window_identifiers" | "window_factors" | "window_operation" | "window_shift" => {
                let d = self.cfg.windows[w].derived.get_or_insert(Derived {
                    parents: [0, 0],
                    factors: [1.0, 1.0],
                    operation: String::new(),
                    shifts: [0, 0],
                });
                let nums: Vec<&str> = rest.split_whitespace().collect();
                match key {
                    "window_identifiers" => {
                        let p: Vec<u32> = nums.iter().filter_map(|s| s.parse().ok()).collect();
                        if p.len() != 2 {
                            return Err(bad("two window ids"));
                        }
                        d.parents = [p[0], p[1]];
                    }
                    "window_factors" => {
                        let f: Vec<f64> = nums.iter().filter_map(|s| s.parse().ok()).collect();
                        if f.len() == 2 {
                            d.factors = [f[0], f[1]];
                        }
                    }
                    "window_shift" => {
                        let f: Vec<i64> = nums.iter().filter_map(|s| s.parse().ok()).collect();
                        if f.len() == 2 {
                            d.shifts = [f[0], f[1]];
                        }
                    }
                    _ => d.operation = rest.to_string(),
                }
            }
            "window_selected_functions" | "window_compose_functions" => {
                let pairs =
                    parse_pairs(rest).ok_or_else(|| bad("`{ n, { {slot, name}, ... } }`"))?;
                let compose = key == "window_compose_functions";
                let win = &mut self.cfg.windows[w];
                for (slot, name) in pairs {
                    let slot =
                        if compose && !slot.starts_with("compose") && !slot.starts_with("top") {
                            format!("compose_{slot}")
                        } else {
                            slot
                        };
                    win.functions.insert(normal_slot(&slot), name);
                }
            }
            "window_semantic_module" => {
                let p = parse_semantic_module(rest)
                    .ok_or_else(|| bad("`SLOT FUNCTION { n, { k v... } }`"))?;
                self.cfg.windows[w].params.push(p);
            }
            "window_filter_module" => {
                let mut words = rest.split_whitespace();
                let kind = words.next().unwrap_or_default().to_string();
                if let Some(kind) = kind.strip_suffix("_label") {
                    // `evt_type_label 2 "MPI Point-to-point" "MPI Collective Comm"`
                    let labels: Vec<String> = rest
                        .split('"')
                        .skip(1)
                        .step_by(2)
                        .map(str::to_string)
                        .collect();
                    if let Some(f) = self.cfg.windows[w]
                        .filters
                        .iter_mut()
                        .rfind(|f| f.kind == kind)
                    {
                        f.labels = labels;
                    }
                } else {
                    let count: usize = words.next().and_then(|c| c.parse().ok()).unwrap_or(0);
                    let values: Vec<f64> =
                        words.take(count).filter_map(|v| v.parse().ok()).collect();
                    self.cfg.windows[w].filters.push(FilterValues {
                        kind,
                        values,
                        labels: Vec::new(),
                    });
                }
            }
            "window_logical_filtered" => self.cfg.windows[w].logical_filtered = rest == "true",
            "window_physical_filtered" => self.cfg.windows[w].physical_filtered = rest == "true",
            "window_comm_fromto" => self.cfg.windows[w].comm_fromto = rest == "true",
            "window_comm_tagsize" => self.cfg.windows[w].comm_tagsize = rest == "true",
            "window_comm_typeval" => self.cfg.windows[w].comm_typeval = rest == "true",
            "window_begin_time_relative" => {
                self.cfg.windows[w].begin_time_relative = rest.parse().unwrap_or(0.0);
            }
            // Old cfgs give the window's end as `window_scale_relative`.
            "window_end_time_relative" | "window_scale_relative" => {
                self.cfg.windows[w].end_time_relative = rest.parse().unwrap_or(1.0);
            }
            "window_begin_time" => self.cfg.windows[w].begin_time = rest.parse().ok(),
            "window_stop_time" => self.cfg.windows[w].stop_time = rest.parse().ok(),
            "window_end_time" => {}
            _ => self.cfg.windows[w]
                .lines
                .push((key.to_string(), rest.to_string())),
        }
        Ok(())
    }
}

/// A window as Paraver reads one that says nothing but its name: Paraver's defaults.
pub fn new_window(name: String, line: usize) -> WindowCfg {
    WindowCfg {
        name,
        id: 0,
        line,
        derived: None,
        level: Level::Thread,
        // Paraver's default when the cfg says nothing (old-format cfgs).
        units: TimeUnit::Microseconds,
        functions: BTreeMap::new(),
        params: Vec::new(),
        filters: Vec::new(),
        logical_filtered: true,
        physical_filtered: false,
        comm_fromto: true,
        comm_tagsize: true,
        comm_typeval: true,
        begin_time_relative: 0.0,
        end_time_relative: 1.0,
        begin_time: None,
        stop_time: None,
        lines: Vec::new(),
    }
}

/// `{ 14, { {cpu, Active Thd}, {appl, Adding}, ... } }` as (slot, name) pairs.
fn parse_pairs(text: &str) -> Option<Vec<(String, String)>> {
    let inner = text
        .trim()
        .strip_prefix('{')?
        .trim_end()
        .strip_suffix('}')?;
    let (_, list) = inner.split_once(',')?;
    let list = list
        .trim()
        .strip_prefix('{')?
        .trim_end()
        .strip_suffix('}')?;
    let mut out = Vec::new();
    for item in list.split('}') {
        let item = item.trim().trim_start_matches(',').trim();
        let Some(item) = item.strip_prefix('{') else {
            continue;
        };
        let (slot, name) = item.split_once(',')?;
        out.push((slot.trim().to_string(), name.trim().to_string()));
    }
    Some(out)
}

/// `thread State Record Dur. { 1, { 49 1.0 0.0 ... } }`.
/// Old cfgs name the top compose slots `compose1` and `compose2`, or `topcompose` (the
/// second, as Paraver's `stringToLevel` reads it).
fn normal_slot(slot: &str) -> String {
    match slot {
        "compose1" => "topcompose1".to_string(),
        "topcompose" | "compose2" => "topcompose2".to_string(),
        _ => slot.to_string(),
    }
}

fn parse_semantic_module(text: &str) -> Option<FunctionParams> {
    let (head, body) = text.split_once('{')?;
    let head = head.trim();
    let (slot, function) = head.split_once(' ')?;
    let body = body.trim_end().strip_suffix('}')?.trim();
    let (count, list) = body.split_once(',')?;
    let count: usize = count.trim().parse().ok()?;
    let list = list
        .trim()
        .strip_prefix('{')?
        .trim_end()
        .strip_suffix('}')?;
    let mut words = list.split([' ', ',']).filter(|w| !w.is_empty());
    let mut params = Vec::with_capacity(count);
    for _ in 0..count {
        let n: usize = words.next()?.parse().ok()?;
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            values.push(words.next()?.parse().ok()?);
        }
        params.push(values);
    }
    Some(FunctionParams {
        slot: normal_slot(slot.trim()),
        function: function.trim().to_string(),
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_and_modules_are_read() {
        let p =
            parse_pairs("{ 3, { {cpu, Active Thd}, {appl, Adding}, {evt_type, [x,y]} } }").unwrap();
        assert_eq!(p[0], ("cpu".into(), "Active Thd".into()));
        assert_eq!(p[2], ("evt_type".into(), "[x,y]".into()));
        let m = parse_semantic_module("thread State Record Dur. { 1, { 3 1.0 0.0 2.5 } }").unwrap();
        assert_eq!(m.function, "State Record Dur.");
        assert_eq!(m.params, vec![vec![1.0, 0.0, 2.5]]);
        let e = parse_semantic_module("compose2 Is In Range { 2, { 1 1.0, 1 5.0 } }").unwrap();
        assert_eq!(e.params, vec![vec![1.0], vec![5.0]]);
    }
}

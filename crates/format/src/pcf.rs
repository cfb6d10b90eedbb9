//! The `.pcf` configuration: state names and colours, event types with value labels,
//! gradient colours, default options, and prvscope's `NULL_VALUE` extension.
//!
//! Labels are kept as written, including spaces at either end. Writers align the label
//! column differently: Extrae separates value and label by a run of spaces, ovni prints
//! values with `%-4d ` (and types with `0 %-10d `) and its labels may begin with a space of
//! their own (` CPU 0.0` under `vCPU 0.*`). For files in ovni's layout the label starts at
//! that printf column, otherwise after the first run of blanks.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{IssueKind, LoadReport, issue};

/// An RGB colour from the `.pcf`.
pub type Rgb = [u8; 3];

/// One event type's description.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventTypeInfo {
    /// The gradient flag written before the type (0 for most types).
    pub gradient: i64,
    pub label: String,
    /// Value labels, shared by all types of the `EVENT_TYPE` block they came from.
    pub values: BTreeMap<u64, String>,
}

/// The null setting of `DEFAULT_OPTIONS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullValue {
    /// `NULL_VALUE N`: the NULL mode with the default sentinel.
    N,
    /// `NULL_VALUE <number>`: the NULL mode with that sentinel.
    Number(u64),
}

/// A parsed `.pcf`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pcf {
    /// `DEFAULT_OPTIONS` key/value lines, in file order.
    pub default_options: Vec<(String, String)>,
    /// `DEFAULT_SEMANTIC` key/value lines, in file order.
    pub default_semantic: Vec<(String, String)>,
    pub states: BTreeMap<u64, String>,
    pub state_colors: BTreeMap<u64, Rgb>,
    pub event_types: BTreeMap<u32, EventTypeInfo>,
    pub gradient_colors: BTreeMap<u64, Rgb>,
    pub gradient_names: BTreeMap<u64, String>,
    /// `NULL_VALUE` under `DEFAULT_OPTIONS`, if present.
    pub null_value: Option<NullValue>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    DefaultOptions,
    DefaultSemantic,
    States,
    StatesColor,
    EventType,
    EventValues,
    GradientColor,
    GradientNames,
    Unknown,
}

impl Pcf {
    /// The label of a state value.
    pub fn state_label(&self, value: u64) -> Option<&str> {
        self.states.get(&value).map(String::as_str)
    }

    /// The label of an event type.
    pub fn event_label(&self, ty: u32) -> Option<&str> {
        self.event_types.get(&ty).map(|t| t.label.as_str())
    }

    /// The label of a value of an event type.
    pub fn value_label(&self, ty: u32, value: u64) -> Option<&str> {
        self.event_types
            .get(&ty)
            .and_then(|t| t.values.get(&value))
            .map(String::as_str)
    }

    /// Parses a `.pcf`; lines that cannot be understood are reported and skipped.
    pub fn parse(text: &[u8], path: &Path, report: &mut LoadReport) -> Pcf {
        let text = String::from_utf8_lossy(text);
        let ovni_layout = is_ovni_layout(&text);
        let mut pcf = Pcf::default();
        let mut section = Section::None;
        // Types of the current EVENT_TYPE block (VALUES apply to all of them).
        let mut block_types: Vec<u32> = Vec::new();
        for (i, raw) in text.split('\n').enumerate() {
            let line_no = i as u64 + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if line.trim().is_empty() {
                continue;
            }
            let mut bad = |col: usize, what: &str| {
                report.push(issue(
                    IssueKind::PcfLine,
                    path,
                    line_no,
                    col as u64 + 1,
                    format!("expected {what}"),
                ));
            };
            let keyword = line.trim_end();
            let next = match keyword {
                "DEFAULT_OPTIONS" => Some(Section::DefaultOptions),
                "DEFAULT_SEMANTIC" => Some(Section::DefaultSemantic),
                "STATES" => Some(Section::States),
                "STATES_COLOR" => Some(Section::StatesColor),
                "EVENT_TYPE" => Some(Section::EventType),
                "VALUES" => Some(Section::EventValues),
                "GRADIENT_COLOR" => Some(Section::GradientColor),
                "GRADIENT_NAMES" => Some(Section::GradientNames),
                _ if keyword.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
                    && !line.starts_with(' ') =>
                {
                    Some(Section::Unknown)
                }
                _ => None,
            };
            if let Some(next) = next {
                if next == Section::EventType {
                    block_types.clear();
                }
                if next == Section::EventValues && section != Section::EventType {
                    bad(0, "`VALUES` right after an `EVENT_TYPE` block");
                }
                section = next;
                continue;
            }
            match section {
                Section::DefaultOptions | Section::DefaultSemantic => {
                    let (key, value) = split_key(line);
                    if section == Section::DefaultOptions && key == "NULL_VALUE" {
                        let v = value.trim();
                        if v == "N" {
                            pcf.null_value = Some(NullValue::N);
                        } else if let Ok(n) = v.parse::<u64>() {
                            pcf.null_value = Some(NullValue::Number(n));
                        } else {
                            bad(line.len() - value.len(), "`N` or a number after NULL_VALUE");
                        }
                    }
                    let target = if section == Section::DefaultOptions {
                        &mut pcf.default_options
                    } else {
                        &mut pcf.default_semantic
                    };
                    target.push((key.to_string(), value.trim().to_string()));
                }
                Section::States | Section::GradientNames => match value_label(line, false) {
                    Some((v, label)) => {
                        let map = if section == Section::States {
                            &mut pcf.states
                        } else {
                            &mut pcf.gradient_names
                        };
                        map.insert(v, label.to_string());
                    }
                    None => bad(0, "`<value> <label>`"),
                },
                Section::StatesColor | Section::GradientColor => match color_line(line) {
                    Ok((v, rgb)) => {
                        let map = if section == Section::StatesColor {
                            &mut pcf.state_colors
                        } else {
                            &mut pcf.gradient_colors
                        };
                        map.insert(v, rgb);
                    }
                    Err(col) => bad(col, "`<value> {r,g,b}` with components 0-255"),
                },
                Section::EventType => match type_line(line, ovni_layout) {
                    Some((gradient, ty, label)) => {
                        block_types.push(ty);
                        pcf.event_types.insert(
                            ty,
                            EventTypeInfo {
                                gradient,
                                label: label.to_string(),
                                values: BTreeMap::new(),
                            },
                        );
                    }
                    None => bad(0, "`<gradient> <type> <label>` with a type below 2^32"),
                },
                Section::EventValues => match value_label(line, ovni_layout) {
                    Some((v, label)) => {
                        for ty in &block_types {
                            if let Some(info) = pcf.event_types.get_mut(ty) {
                                info.values.insert(v, label.to_string());
                            }
                        }
                    }
                    None => bad(0, "`<value> <label>`"),
                },
                Section::None => bad(0, "a section name such as `STATES` or `EVENT_TYPE`"),
                Section::Unknown => {}
            }
        }
        pcf
    }
}

/// ovni writes event types as `0 %-10d %s`: one space after the gradient and the label at
/// column 13 for types of up to ten digits.
fn is_ovni_layout(text: &str) -> bool {
    let mut seen = false;
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l.trim_end() == "EVENT_TYPE" {
            let Some(t) = lines.next() else { break };
            let b = t.as_bytes();
            let ok = b.len() > 13
                && b.first() == Some(&b'0')
                && b.get(1) == Some(&b' ')
                && b.get(12) == Some(&b' ')
                && b.get(2..12).is_some_and(|f| {
                    let digits = f.iter().take_while(|c| c.is_ascii_digit()).count();
                    digits > 0 && f.iter().skip(digits).all(|&c| c == b' ')
                });
            if !ok {
                return false;
            }
            seen = true;
        }
    }
    seen
}

/// `KEY   value`.
fn split_key(line: &str) -> (&str, &str) {
    let line = line.trim_start();
    match line.find([' ', '\t']) {
        Some(p) => (&line[..p], line[p..].trim_start()),
        None => (line, ""),
    }
}

/// Parses a leading (possibly negative) integer and returns it with the rest of the line.
fn leading_number(line: &str) -> Option<(u64, &str)> {
    let t = line.trim_start();
    let (neg, digits_from) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let n = digits_from.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let v: u64 = digits_from.get(..n)?.parse().ok()?;
    let rest = digits_from.get(n..)?;
    Some((if neg { v.wrapping_neg() } else { v }, rest))
}

/// `<value><blanks><label>`. In ovni's layout the label starts at column max(4, len) + 1.
fn value_label(line: &str, ovni_layout: bool) -> Option<(u64, &str)> {
    let (v, rest) = leading_number(line)?;
    if !rest.starts_with([' ', '\t']) {
        return if rest.is_empty() { Some((v, "")) } else { None };
    }
    let label = if ovni_layout {
        let value_len = line.len() - rest.len();
        let col = value_len.max(4) + 1;
        let skip = (col - value_len).min(rest.len() - rest.trim_start_matches(' ').len());
        rest.get(skip..)?
    } else {
        rest.trim_start_matches([' ', '\t'])
    };
    Some((v, label))
}

/// `<gradient> <type> <label>`.
fn type_line(line: &str, ovni_layout: bool) -> Option<(i64, u32, &str)> {
    let (gradient, rest) = leading_number(line)?;
    let (ty, after) = leading_number(rest)?;
    let ty = u32::try_from(ty).ok()?;
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    let label = if ovni_layout && line.len() > 13 && line.is_char_boundary(13) {
        line.get(13..)?
    } else {
        after.trim_start_matches([' ', '\t'])
    };
    Some((gradient.cast_signed(), ty, label))
}

/// `<value> {r,g,b}`; the error is the column that is wrong.
fn color_line(line: &str) -> Result<(u64, Rgb), usize> {
    let (v, rest) = leading_number(line).ok_or(0usize)?;
    let rest_at = line.len() - rest.len();
    let open = rest.find('{').ok_or(rest_at)?;
    let close = rest.find('}').ok_or(rest_at + open)?;
    let inner = rest.get(open + 1..close).ok_or(rest_at + open)?;
    let mut rgb = [0u8; 3];
    let mut parts = inner.split(',');
    for c in &mut rgb {
        let p = parts.next().ok_or(rest_at + open + 1)?;
        *c = p.trim().parse().map_err(|_| rest_at + open + 1)?;
    }
    if parts.next().is_some() || !rest.get(close + 1..).unwrap_or("").trim().is_empty() {
        return Err(rest_at + close);
    }
    Ok((v, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Pcf, LoadReport) {
        let mut r = LoadReport::default();
        let p = Pcf::parse(text.as_bytes(), Path::new("t.pcf"), &mut r);
        (p, r)
    }

    #[test]
    fn sections_and_null_value() {
        let (p, r) = parse(
            "DEFAULT_OPTIONS\r\n\r\nLEVEL  THREAD\r\nNULL_VALUE   N\r\n\r\nSTATES\r\n0    Idle\r\n1    Running \r\n\r\nSTATES_COLOR\r\n0    {117,195,255}\r\n\r\nEVENT_TYPE\r\n0    7    Ready tasks\r\n9    8    Other\r\nVALUES\r\n0      empty queue\r\n18446744073709551614 big\r\n\r\nGRADIENT_NAMES\r\n0    Gradient 0\r\n",
        );
        assert!(r.is_empty(), "{:?}", r.warnings());
        assert_eq!(p.null_value, Some(NullValue::N));
        assert_eq!(p.state_label(1), Some("Running "));
        assert_eq!(p.state_colors[&0], [117, 195, 255]);
        assert_eq!(p.event_label(7), Some("Ready tasks"));
        assert_eq!(p.event_types[&8].gradient, 9);
        assert_eq!(p.value_label(8, 0), Some("empty queue"));
        assert_eq!(p.value_label(7, u64::MAX - 1), Some("big"));
        assert_eq!(p.gradient_names[&0], "Gradient 0");
    }

    #[test]
    fn ovni_labels_keep_their_leading_space() {
        let (p, r) = parse(
            "EVENT_TYPE\n0 6          Thread: CPU affinity\nVALUES\n1     CPU 0.0\n2    vCPU 0.*\n21471 long\n\n\nEVENT_TYPE\n0 7          Flushing ovni buffer \nVALUES\n0    Not flushing\n",
        );
        assert!(r.is_empty());
        assert_eq!(p.value_label(6, 1), Some(" CPU 0.0"));
        assert_eq!(p.value_label(6, 2), Some("vCPU 0.*"));
        assert_eq!(p.value_label(6, 21471), Some("long"));
        assert_eq!(p.event_label(7), Some("Flushing ovni buffer "));
    }

    #[test]
    fn broken_colours_are_reported_with_line_and_column() {
        let (p, r) = parse("STATES_COLOR\n0 {1,2,3}\n1 {1,2}\n2 {300,0,0}\n3 1,2,3\n");
        assert_eq!(p.state_colors.len(), 1);
        assert_eq!(r.count(IssueKind::PcfLine), 3);
        assert_eq!(r.examples()[0].line, 3);
    }

    #[test]
    fn null_value_number() {
        let (p, _) = parse("DEFAULT_OPTIONS\nNULL_VALUE 42\n");
        assert_eq!(p.null_value, Some(NullValue::Number(42)));
    }
}

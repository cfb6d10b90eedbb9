//! The `#Paraver` header line: duration, time unit, resources and the application model.
//!
//! `#Paraver (<date>):<ftime>[_ns|_us|_ms]:<resources>:<nAppl>:<appl>[,<appl>...][,<nComm>]`.
//! The date contains `:`, so the line is split at `):` first. Resources are `0` (ovni: no
//! nodes), `N` or `N(c1,...,cN)`. Each application is `ntasks(threads:node,...)`, separated by
//! `:` or `,`; a trailing number without parentheses counts the communicator lines that follow.

use std::fmt;

/// Unit of the trace's time stamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Nanoseconds,
    Microseconds,
    Milliseconds,
}

impl TimeUnit {
    /// The suffix used in headers and by `info`: `ns`, `us` or `ms`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Nanoseconds => "ns",
            Self::Microseconds => "us",
            Self::Milliseconds => "ms",
        }
    }

    /// How many nanoseconds one tick is.
    pub fn ns_per_tick(self) -> u64 {
        match self {
            Self::Nanoseconds => 1,
            Self::Microseconds => 1_000,
            Self::Milliseconds => 1_000_000,
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One task of an application: how many threads it has and the node it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskInfo {
    pub threads: u32,
    /// 1-based node number as written (0 when the trace has no nodes).
    pub node: u32,
}

/// One application: its tasks in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Application {
    pub tasks: Vec<TaskInfo>,
}

/// The parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The date text between the parentheses, as written.
    pub date: String,
    /// Duration of the trace in ticks.
    pub end_time: u64,
    pub time_unit: TimeUnit,
    /// CPUs per node; empty when the trace has no nodes (`0`).
    pub node_cpus: Vec<u32>,
    pub applications: Vec<Application>,
    /// Communicator lines (`c:`, `i:`) announced after the header.
    pub communicator_lines: u32,
}

/// The most threads (rows) a header may declare; larger headers are refused rather than
/// allocating tables for them.
pub const MAX_THREADS: u64 = 1 << 24;

/// Why a header could not be parsed: a column (1-based, in bytes) and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderError {
    pub column: u64,
    pub message: String,
}

impl Header {
    /// Total number of threads (rows) over all applications.
    pub fn thread_count(&self) -> usize {
        self.applications
            .iter()
            .flat_map(|a| &a.tasks)
            .map(|t| t.threads as usize)
            .sum()
    }

    /// Total number of CPUs over all nodes.
    pub fn cpu_count(&self) -> u64 {
        self.node_cpus.iter().map(|&c| u64::from(c)).sum()
    }

    /// Parses the header line (without its newline; a trailing `\r` is accepted).
    pub fn parse(line: &[u8]) -> Result<Header, HeaderError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let err = |pos: usize, message: String| HeaderError {
            column: pos as u64 + 1,
            message,
        };
        let Some(rest) = line.strip_prefix(b"#Paraver") else {
            return Err(err(
                0,
                "expected the header to start with `#Paraver`".into(),
            ));
        };
        let mut pos = line.len() - rest.len();
        let Some(open) = at(line, pos..).iter().position(|&b| b == b'(') else {
            return Err(err(pos, "expected `(` before the date".into()));
        };
        let date_start = pos + open + 1;
        let Some(close) = memchr::memmem::find(at(line, date_start..), b"):") else {
            return Err(err(date_start, "expected `):` after the date".into()));
        };
        let date = String::from_utf8_lossy(at(line, date_start..date_start + close)).into_owned();
        pos = date_start + close + 2;

        // Duration with its optional unit suffix.
        let field_end = |from: usize| {
            at(line, from..)
                .iter()
                .position(|&b| b == b':')
                .map_or(line.len(), |p| from + p)
        };
        let end = field_end(pos);
        let ftime = at(line, pos..end);
        let (digits, time_unit) = if let Some(d) = ftime.strip_suffix(b"_ns") {
            (d, TimeUnit::Nanoseconds)
        } else if let Some(d) = ftime.strip_suffix(b"_us") {
            (d, TimeUnit::Microseconds)
        } else if let Some(d) = ftime.strip_suffix(b"_ms") {
            (d, TimeUnit::Milliseconds)
        } else {
            (ftime, TimeUnit::Microseconds)
        };
        let end_time = parse_number(digits)
            .ok_or_else(|| err(pos, "expected the trace duration, e.g. `1000_ns`".into()))?;
        if end >= line.len() {
            return Err(err(
                end,
                "expected `:` and the resources after the duration".into(),
            ));
        }
        pos = end + 1;

        // Resources: `0`, `N` or `N(c1,...)`.
        let res_end = field_end(pos);
        let resources = at(line, pos..res_end);
        let node_cpus = parse_resources(resources).map_err(|message| err(pos, message))?;
        if res_end >= line.len() {
            return Err(err(
                res_end,
                "expected `:` and the number of applications".into(),
            ));
        }
        pos = res_end + 1;

        let n_end = field_end(pos);
        let n_appl = parse_number(at(line, pos..n_end))
            .ok_or_else(|| err(pos, "expected the number of applications".into()))?;
        if n_appl == 0 || n_appl > MAX_THREADS {
            return Err(err(
                pos,
                format!("expected 1 or more applications, found {n_appl}"),
            ));
        }
        pos = (n_end + 1).min(line.len());

        // Applications and the optional communicator count, split at depth 0.
        let mut applications = Vec::new();
        let mut communicator_lines = 0u32;
        let mut total_threads = 0u64;
        for (item_pos, item) in split_top_level(at(line, pos..)) {
            let at = pos + item_pos;
            if item.is_empty() {
                continue;
            }
            if let Some(paren) = item.iter().position(|&b| b == b'(') {
                if applications.len() as u64 == n_appl {
                    return Err(err(
                        at,
                        format!("found more than the {n_appl} applications announced"),
                    ));
                }
                let app = parse_application(item, paren).map_err(|(off, m)| err(at + off, m))?;
                total_threads += app.tasks.iter().map(|t| u64::from(t.threads)).sum::<u64>();
                if total_threads > MAX_THREADS {
                    return Err(err(
                        at,
                        format!("the header declares more than {MAX_THREADS} threads"),
                    ));
                }
                applications.push(app);
            } else if applications.len() as u64 == n_appl {
                let n = parse_number(item)
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| err(at, "expected the number of communicator lines".into()))?;
                communicator_lines = n;
            } else {
                return Err(err(
                    at,
                    "expected an application `ntasks(threads:node,...)`".into(),
                ));
            }
        }
        if applications.len() as u64 != n_appl {
            return Err(err(
                line.len(),
                format!(
                    "expected {n_appl} applications, found {}",
                    applications.len()
                ),
            ));
        }
        Ok(Header {
            date,
            end_time,
            time_unit,
            node_cpus,
            applications,
            communicator_lines,
        })
    }
}

/// `bytes[range]`, or nothing when the range is outside: the header parser never panics on
/// the positions it computes.
fn at<R: std::slice::SliceIndex<[u8], Output = [u8]>>(bytes: &[u8], range: R) -> &[u8] {
    bytes.get(range).unwrap_or_default()
}

fn parse_number(bytes: &[u8]) -> Option<u64> {
    let bytes = bytes.trim_ascii();
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

/// The nodes and their CPU counts, refusing counts that would mean a giant allocation.
fn parse_resources(bytes: &[u8]) -> Result<Vec<u32>, String> {
    let expected = || "expected the resources: `0`, a node count, or `N(cpus,...)`".to_owned();
    let too_many = |what: &str| format!("the header declares more than {MAX_THREADS} {what}");
    // Digits that overflow are still a count, and a huge one.
    let count = |b: &[u8]| -> Result<u64, String> {
        let b = b.trim_ascii();
        if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
            return Err(expected());
        }
        Ok(parse_number(b).unwrap_or(u64::MAX))
    };
    match bytes.iter().position(|&b| b == b'(') {
        None => {
            let nodes = count(bytes)?;
            // A bare node count without CPU counts: one CPU per node, as Paraver assumes.
            if nodes > MAX_THREADS {
                return Err(too_many("nodes"));
            }
            Ok(vec![1; nodes as usize])
        }
        Some(p) => {
            let nodes = count(bytes.get(..p).unwrap_or_default())?;
            if nodes > MAX_THREADS {
                return Err(too_many("nodes"));
            }
            let inner = bytes
                .get(p + 1..)
                .and_then(|b| b.strip_suffix(b")"))
                .ok_or_else(expected)?;
            let mut cpus = Vec::new();
            let mut total = 0u64;
            for c in inner.split(|&b| b == b',') {
                let n = count(c)?;
                total = total.saturating_add(n);
                if total > MAX_THREADS {
                    return Err(too_many("CPUs"));
                }
                cpus.push(n as u32);
            }
            if cpus.len() as u64 != nodes {
                return Err(format!(
                    "the header declares {nodes} nodes but gives the CPUs of {}",
                    cpus.len()
                ));
            }
            Ok(cpus)
        }
    }
}

fn parse_application(item: &[u8], paren: usize) -> Result<Application, (usize, String)> {
    let ntasks = parse_number(at(item, ..paren))
        .ok_or((0, "expected the number of tasks before `(`".to_string()))?;
    let Some(inner) = at(item, paren + 1..).strip_suffix(b")") else {
        return Err((item.len(), "expected `)` closing the task list".into()));
    };
    if ntasks > MAX_THREADS {
        return Err((
            0,
            format!("the header declares more than {MAX_THREADS} tasks"),
        ));
    }
    let mut tasks = Vec::with_capacity(ntasks as usize);
    let mut off = paren + 1;
    for part in inner.split(|&b| b == b',') {
        let (threads, node) = match part.iter().position(|&b| b == b':') {
            Some(c) => (parse_number(at(part, ..c)), parse_number(at(part, c + 1..))),
            None => (parse_number(part), Some(0)),
        };
        let (Some(threads), Some(node)) = (threads, node) else {
            return Err((off, "expected a task as `threads:node`".into()));
        };
        if threads > MAX_THREADS || node > u64::from(u32::MAX) {
            return Err((
                off,
                format!("the header declares more than {MAX_THREADS} threads"),
            ));
        }
        tasks.push(TaskInfo {
            threads: threads as u32,
            node: node as u32,
        });
        off += part.len() + 1;
    }
    if tasks.len() as u64 != ntasks {
        return Err((
            0,
            format!(
                "expected {ntasks} tasks in the application, found {}",
                tasks.len()
            ),
        ));
    }
    Ok(Application { tasks })
}

/// Splits at `:` or `,` outside parentheses, with each item's offset.
fn split_top_level(bytes: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b':' | b',' if depth == 0 => {
                out.push((start, at(bytes, start..i)));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, at(bytes, start..)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extrae_mpi_header_with_nodes_and_communicators() {
        let h = Header::parse(b"#Paraver (25/10/2018 at 14:04):1871482775_ns:4(13,1,1,1):1:16(1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:2,1:3,1:4),17").unwrap();
        assert_eq!(h.end_time, 1_871_482_775);
        assert_eq!(h.time_unit, TimeUnit::Nanoseconds);
        assert_eq!(h.node_cpus, vec![13, 1, 1, 1]);
        assert_eq!(h.thread_count(), 16);
        assert_eq!(h.communicator_lines, 17);
        assert_eq!(
            h.applications[0].tasks[15],
            TaskInfo {
                threads: 1,
                node: 4
            }
        );
    }

    #[test]
    fn two_applications_separated_by_comma() {
        let h = Header::parse(b"#Paraver (21/01/2022 at 16:37):1616378951_ns:1(20):2:8(1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1),12(1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1),14\r").unwrap();
        assert_eq!(h.applications.len(), 2);
        assert_eq!(h.thread_count(), 20);
        assert_eq!(h.communicator_lines, 14);
    }

    #[test]
    fn applications_separated_by_colon_and_default_unit() {
        let h = Header::parse(b"#Paraver (x):1000:2(2,2):2:1(2:1):2(1:1,1:2)").unwrap();
        assert_eq!(h.time_unit, TimeUnit::Microseconds);
        assert_eq!(h.thread_count(), 4);
        assert_eq!(h.communicator_lines, 0);
    }

    #[test]
    fn ovni_header_without_nodes() {
        let h = Header::parse(b"#Paraver (19/01/38 at 03:14):00000000000002577724_ns:0:1:1(20:1)")
            .unwrap();
        assert_eq!(h.end_time, 2_577_724);
        assert!(h.node_cpus.is_empty());
        assert_eq!(h.thread_count(), 20);
    }

    #[test]
    fn errors_name_the_column() {
        let e = Header::parse(b"#Paraver (x):12x_ns:0:1:1(1:1)").unwrap_err();
        assert_eq!(e.column, 14);
        assert!(e.message.contains("duration"));
        let e = Header::parse(b"hello").unwrap_err();
        assert_eq!(e.column, 1);
        let e = Header::parse(b"#Paraver (x):10_ns:0:2:1(1:1)").unwrap_err();
        assert!(
            e.message.contains("expected 2 applications"),
            "{}",
            e.message
        );
        let e = Header::parse(b"#Paraver (x):10_ns:0:1:1(1000000000:1)").unwrap_err();
        assert!(e.message.contains("more than"), "{}", e.message);
    }
}

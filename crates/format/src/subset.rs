//! Loading part of a trace: a time range and/or some threads, for traces too large for the
//! machine's memory (`--from`, `--to`, `--threads`, and the open dialog).
//!
//! What a part keeps, so that the views and statistics of the range stay right:
//! - states that overlap the range (not clipped: a state running at `from` shows whole);
//! - events inside the range, plus, per thread and event type, the last event before `from`
//!   (the value in effect when the range starts: a "last event value" view and the
//!   statistics of the range read the same as with the whole trace);
//! - communications between loaded threads whose send or receive falls in the range.
//!
//! Records of threads left out are not stored (their rows stay, empty, and the viewer hides
//! them). Lines left out are not checked beyond what finding their thread and time takes.

use std::fmt;
use std::str::FromStr;

use crate::rows::RowMap;

/// What part of a trace to load. The default is the whole trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subset {
    /// First time to load, in trace ticks.
    pub from: Option<u64>,
    /// Last time to load, in trace ticks.
    pub to: Option<u64>,
    /// The threads to load.
    pub threads: Option<ThreadSpec>,
}

impl Subset {
    /// True when nothing is left out.
    pub fn is_whole(&self) -> bool {
        self.from.is_none() && self.to.is_none() && self.threads.is_none()
    }

    /// The filter the parser applies, with the threads resolved against `header`.
    pub fn filter(&self, rows: &RowMap) -> Result<Filter, String> {
        if self.is_whole() {
            return Ok(Filter::default());
        }
        let from = self.from.unwrap_or(0);
        let to = self.to.unwrap_or(u64::MAX);
        if to < from {
            return Err(format!("the range ends ({to}) before it starts ({from})"));
        }
        let rows = match &self.threads {
            Some(spec) => Some(spec.resolve(rows)?),
            None => None,
        };
        Ok(Filter {
            active: true,
            from,
            to,
            rows,
        })
    }
}

impl fmt::Display for Subset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        match (self.from, self.to) {
            (None, None) => {}
            (from, to) => parts.push(format!(
                "time {} to {}",
                from.unwrap_or(0),
                to.map_or_else(|| "the end".to_string(), |t| t.to_string())
            )),
        }
        if let Some(t) = &self.threads {
            parts.push(format!("threads {t}"));
        }
        if parts.is_empty() {
            write!(f, "the whole trace")
        } else {
            write!(f, "{}", parts.join(", "))
        }
    }
}

/// What the parser keeps (see the module documentation). Inactive by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// False when everything is kept (the parser then does no check at all).
    pub active: bool,
    pub from: u64,
    pub to: u64,
    /// Per row: is it loaded? `None`: all are.
    pub rows: Option<Vec<bool>>,
}

impl Filter {
    /// Is row `row` loaded?
    #[inline]
    pub fn keeps_row(&self, row: u32) -> bool {
        self.rows
            .as_ref()
            .is_none_or(|r| r.get(row as usize).copied().unwrap_or(false))
    }

    /// Does something spanning `[begin, end]` on `row` stay?
    #[inline]
    pub fn keeps_span(&self, row: u32, begin: u64, end: u64) -> bool {
        end >= self.from && begin <= self.to && self.keeps_row(row)
    }
}

/// Threads as a user names them: a comma-separated list of rows (`5`, `1-8`, 1-based in
/// the header's order, as the timeline lists them), threads (`1.2.3`: application, task,
/// thread) and tasks (`1.2`: every thread of task 2 of application 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSpec {
    items: Vec<Item>,
    text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Rows(u64, u64),
    Thread(u64, u64, u64),
    Task(u64, u64),
}

impl FromStr for ThreadSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let number = |t: &str| -> Result<u64, String> {
            t.trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("`{t}` is not a number from 1 up"))
        };
        let mut items = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let item = if let Some((a, b)) = part.split_once('-') {
                let (a, b) = (number(a)?, number(b)?);
                if b < a {
                    return Err(format!("`{part}`: the range ends before it starts"));
                }
                Item::Rows(a, b)
            } else {
                let dotted: Vec<&str> = part.split('.').collect();
                match dotted.as_slice() {
                    [row] => {
                        let r = number(row)?;
                        Item::Rows(r, r)
                    }
                    [a, t] => Item::Task(number(a)?, number(t)?),
                    [a, t, h] => Item::Thread(number(a)?, number(t)?, number(h)?),
                    _ => return Err(format!("`{part}`: expected N, N-M, A.T or A.T.H")),
                }
            };
            items.push(item);
        }
        if items.is_empty() {
            return Err("no threads named (expected e.g. `1-8,12` or `1.2.1`)".into());
        }
        Ok(ThreadSpec {
            items,
            text: s.trim().to_string(),
        })
    }
}

impl fmt::Display for ThreadSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl ThreadSpec {
    /// Per row: is it named? An item naming nothing the header has is an error.
    pub fn resolve(&self, rows: &RowMap) -> Result<Vec<bool>, String> {
        let n = rows.rows();
        let mut keep = vec![false; n];
        for item in &self.items {
            let range = match *item {
                Item::Rows(a, b) => {
                    if a > n as u64 {
                        return Err(format!("row {a}: the trace has {n} threads"));
                    }
                    (a - 1) as u32..(b.min(n as u64)) as u32
                }
                Item::Thread(appl, task, thread) => {
                    let r = rows.row(appl, task, thread).ok_or_else(|| {
                        format!("thread {appl}.{task}.{thread} is not in the header")
                    })?;
                    r..r + 1
                }
                Item::Task(a, t) => rows
                    .task_rows(a, t)
                    .ok_or_else(|| format!("task {a}.{t} is not in the header"))?,
            };
            for r in range {
                if let Some(k) = keep.get_mut(r as usize) {
                    *k = true;
                }
            }
        }
        Ok(keep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::Header;

    fn header() -> Header {
        Header::parse(b"#Paraver (01/01/2026 at 00:00):1000_ns:1(4):2:2(2:1,3:1):1(4:1)").unwrap()
    }

    fn resolve(spec: &str) -> Result<Vec<usize>, String> {
        let h = header();
        let rows = RowMap::new(&h);
        let keep = spec.parse::<ThreadSpec>()?.resolve(&rows)?;
        Ok(keep
            .iter()
            .enumerate()
            .filter(|(_, k)| **k)
            .map(|(i, _)| i)
            .collect())
    }

    #[test]
    fn thread_specs_name_rows_threads_and_tasks() {
        assert_eq!(resolve("1-3").unwrap(), [0, 1, 2]);
        assert_eq!(resolve("2, 9").unwrap(), [1, 8]);
        assert_eq!(resolve("1.2").unwrap(), [2, 3, 4]);
        assert_eq!(resolve("1.2.3,2.1.4").unwrap(), [4, 8]);
        // A range past the end stops at the last thread.
        assert_eq!(resolve("8-100").unwrap(), [7, 8]);
        assert!(resolve("10").unwrap_err().contains("9 threads"));
        assert!(resolve("1.3.1").unwrap_err().contains("1.3.1 is not in"));
        assert!(resolve("2.2").unwrap_err().contains("task 2.2"));
        assert!(resolve("0").unwrap_err().contains("from 1 up"));
        assert!(resolve("3-2").unwrap_err().contains("ends before"));
        assert!(resolve("1.2.3.4").unwrap_err().contains("expected N"));
        assert!(resolve(" , ").unwrap_err().contains("no threads"));
    }

    #[test]
    fn filters_keep_spans_that_touch_the_range() {
        let s = Subset {
            from: Some(100),
            to: Some(200),
            threads: None,
        };
        let h = header();
        let f = s.filter(&RowMap::new(&h)).unwrap();
        assert!(f.keeps_span(0, 50, 100) && f.keeps_span(0, 200, 300));
        assert!(f.keeps_span(0, 0, u64::MAX));
        assert!(!f.keeps_span(0, 0, 99) && !f.keeps_span(0, 201, 300));
        assert!(Subset::default().filter(&RowMap::new(&h)).unwrap() == Filter::default());
        let bad = Subset {
            from: Some(5),
            to: Some(4),
            threads: None,
        };
        assert!(bad.filter(&RowMap::new(&h)).is_err());
        assert_eq!(s.to_string(), "time 100 to 200");
    }
}

//! The `.row` file: names of CPUs, nodes, threads and the other levels.
//!
//! `LEVEL <NAME> SIZE <n>` followed by `n` names, one a line.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{IssueKind, LoadReport, issue};

/// Names per level (`CPU`, `NODE`, `THREAD`, `TASK`, `APPL`, ...), as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowNames {
    pub levels: BTreeMap<String, Vec<String>>,
}

impl RowNames {
    /// The names of one level (upper case), if present.
    pub fn level(&self, name: &str) -> Option<&[String]> {
        self.levels.get(name).map(Vec::as_slice)
    }

    /// Parses a `.row`; lines that cannot be understood are reported and skipped.
    pub fn parse(text: &[u8], path: &Path, report: &mut LoadReport) -> RowNames {
        let text = String::from_utf8_lossy(text);
        let mut names = RowNames::default();
        let mut current: Option<(String, usize)> = None;
        for (i, raw) in text.split('\n').enumerate() {
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if let Some(rest) = line.strip_prefix("LEVEL ") {
                let mut parts = rest.split_whitespace();
                let level = parts.next();
                let size = match (parts.next(), parts.next()) {
                    (Some("SIZE"), Some(n)) => n.parse::<usize>().ok(),
                    _ => None,
                };
                if let (Some(level), Some(size)) = (level, size) {
                    let level = level.to_ascii_uppercase();
                    names
                        .levels
                        .insert(level.clone(), Vec::with_capacity(size.min(1 << 20)));
                    current = Some((level, size));
                } else {
                    report.push(issue(
                        IssueKind::RowLine,
                        path,
                        i as u64 + 1,
                        1,
                        "expected `LEVEL <name> SIZE <count>`",
                    ));
                    current = None;
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            match &current {
                Some((level, size)) => {
                    if let Some(list) = names.levels.get_mut(level)
                        && list.len() < *size
                    {
                        list.push(line.to_string());
                        continue;
                    }
                    report.push(issue(
                        IssueKind::RowLine,
                        path,
                        i as u64 + 1,
                        1,
                        format!("expected at most {size} names for level {level}"),
                    ));
                }
                None => report.push(issue(
                    IssueKind::RowLine,
                    path,
                    i as u64 + 1,
                    1,
                    "expected a `LEVEL` line before names",
                )),
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_names() {
        let mut r = LoadReport::default();
        let n = RowNames::parse(
            b"LEVEL CPU SIZE 2\r\ncpu 1\r\ncpu 2\r\n\r\nLEVEL THREAD SIZE 2\nworker 1.1.1\nworker 1.1.2\n",
            Path::new("t.row"),
            &mut r,
        );
        assert!(r.is_empty());
        assert_eq!(n.level("THREAD").unwrap(), ["worker 1.1.1", "worker 1.1.2"]);
        assert_eq!(n.level("CPU").unwrap().len(), 2);
    }
}

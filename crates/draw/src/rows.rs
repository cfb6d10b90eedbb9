//! The rows of the timeline: one per thread, grouped by application and task, where a task or
//! a whole application can be collapsed into one row.

use std::collections::BTreeSet;
use std::ops::Range;

use prvscope_store::Trace;

/// What a timeline row stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKind {
    /// One thread (a row of the store).
    Thread(usize),
    /// A collapsed task: application and task (0-based) and its threads.
    Task { appl: usize, task: usize },
    /// A collapsed application.
    Appl { appl: usize },
    /// CPUs, a node or the system (the indices of the view's resource rows it shows: one
    /// for a CPU, or the CPUs of a node together); it shows no thread.
    Resource(Range<usize>),
    /// Rows of threads, tasks or applications summarised on one pixel row, where there are
    /// more rows than pixels ([`fit`]): its threads together, as a collapsed row's.
    Span,
}

/// One drawn row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowItem {
    pub label: String,
    pub kind: RowKind,
    /// The store rows (threads) it shows; one for a thread row.
    pub threads: Range<usize>,
    /// 0-based application and task of its threads.
    pub appl: usize,
    pub task: usize,
}

/// The collapse level of every row (threads, tasks, applications), or the resources shown
/// instead of threads (CPUs: the thread on each, see [`prvscope_store::placement`]; nodes:
/// their CPUs together): the object model's levels. The workload and the system are not
/// row levels of the timeline.
pub use prvscope_format::model::Level;
use prvscope_format::model::object_name;

/// The rows of the CPU or node level of `placement` (no rows at other levels).
pub fn resource_layout(
    placement: &prvscope_store::placement::Placement,
    level: Level,
) -> Vec<RowItem> {
    let item = |label: &str, cpus: Range<usize>| RowItem {
        label: label.to_string(),
        kind: RowKind::Resource(cpus),
        threads: 0..0,
        appl: 0,
        task: 0,
    };
    match level {
        Level::Cpu => placement
            .cpus
            .iter()
            .enumerate()
            .map(|(k, l)| item(l, k..k + 1))
            .collect(),
        Level::Node => placement
            .nodes
            .iter()
            .map(|(l, cpus)| item(l, cpus.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Which tasks and applications are collapsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grouping {
    pub tasks: BTreeSet<(usize, usize)>,
    pub apps: BTreeSet<usize>,
}

impl Grouping {
    /// Collapses (or expands) everything to one level.
    pub fn set_level(&mut self, trace: &Trace, level: Level) {
        self.tasks.clear();
        self.apps.clear();
        for (a, app) in trace.header.applications.iter().enumerate() {
            match level {
                Level::Thread | Level::Cpu | Level::Node | Level::System | Level::Workload => {}
                Level::Task => self.tasks.extend((0..app.tasks.len()).map(|t| (a, t))),
                Level::Appl => {
                    self.apps.insert(a);
                }
            }
        }
    }

    /// Collapses the task of a thread row, or expands a collapsed row one level.
    pub fn toggle(&mut self, item: &RowItem) {
        match item.kind {
            RowKind::Thread(_) => {
                self.tasks.insert((item.appl, item.task));
            }
            RowKind::Task { appl, task } => {
                self.tasks.remove(&(appl, task));
            }
            RowKind::Appl { appl } => {
                self.apps.remove(&appl);
            }
            RowKind::Resource(_) | RowKind::Span => {}
        }
    }

    /// The rows to draw.
    pub fn layout(&self, trace: &Trace) -> Vec<RowItem> {
        let names = trace.row.as_ref();
        let mut rows = Vec::new();
        let mut thread = 0;
        let mut task_index = 0;
        let total = trace.store.thread_count();
        for (a, app) in trace.header.applications.iter().enumerate() {
            let app_threads: usize = app.tasks.iter().map(|t| t.threads as usize).sum();
            let any_loaded =
                |range: std::ops::Range<usize>| range.into_iter().any(|r| trace.is_row_loaded(r));
            if self.apps.contains(&a) {
                let end = (thread + app_threads).min(total);
                if !any_loaded(thread.min(end)..end) {
                    thread += app_threads;
                    task_index += app.tasks.len();
                    continue;
                }
                rows.push(RowItem {
                    label: object_name(names, Level::Appl, a, &[a + 1]),
                    kind: RowKind::Appl { appl: a },
                    threads: thread.min(end)..end,
                    appl: a,
                    task: 0,
                });
                thread += app_threads;
                task_index += app.tasks.len();
                continue;
            }
            for (t, task) in app.tasks.iter().enumerate() {
                let n = task.threads as usize;
                let end = (thread + n).min(total);
                if !any_loaded(thread.min(end)..end) {
                    // Threads left out of a partial load are not shown.
                } else if self.tasks.contains(&(a, t)) {
                    rows.push(RowItem {
                        label: object_name(names, Level::Task, task_index, &[a + 1, t + 1]),
                        kind: RowKind::Task { appl: a, task: t },
                        threads: thread.min(end)..end,
                        appl: a,
                        task: t,
                    });
                } else {
                    for row in (thread.min(end)..end).filter(|&r| trace.is_row_loaded(r)) {
                        rows.push(RowItem {
                            label: trace.thread_name(row),
                            kind: RowKind::Thread(row),
                            threads: row..row + 1,
                            appl: a,
                            task: t,
                        });
                    }
                }
                thread += n;
                task_index += 1;
            }
        }
        rows
    }
}

/// For each store row, the index of the drawn row that shows it.
pub fn drawn_row_of_thread(rows: &[RowItem], threads: usize) -> Vec<Option<u32>> {
    let mut out = vec![None; threads];
    for (i, item) in rows.iter().enumerate() {
        for t in item.threads.clone() {
            if let Some(slot) = out.get_mut(t) {
                *slot = Some(i as u32);
            }
        }
    }
    out
}

/// Row labels that fit in `max_chars` characters: as they are when every one fits; else,
/// when they share a long beginning (EAR's GPU rows all start "(25335297.1.3574..."), that
/// beginning cut to "…" and two of its characters, so that the part that tells them apart
/// shows. The whole label stays on hover.
pub fn distinct_labels(labels: &[&str], max_chars: usize) -> Vec<String> {
    let fits = labels.iter().all(|l| l.chars().count() <= max_chars);
    let shared = match labels.split_first() {
        Some((first, rest)) if !rest.is_empty() => {
            rest.iter().fold(first.chars().count(), |n, l| {
                first
                    .chars()
                    .zip(l.chars())
                    .take(n)
                    .take_while(|(a, b)| a == b)
                    .count()
            })
        }
        _ => 0,
    };
    if fits || shared < 8 {
        return labels.iter().map(|l| (*l).to_owned()).collect();
    }
    // Cut at the start of a word, never in one: the word that differs, and the word before
    // it too when the labels then fit ("… GPU 0 power", not "…U 0 power").
    let first: Vec<char> = labels[0].chars().collect();
    let mut cut = shared.min(first.len());
    while cut > 0 && first[cut - 1] != ' ' {
        cut -= 1;
    }
    let mut before = cut;
    while before > 0 && first[before - 1] == ' ' {
        before -= 1;
    }
    while before > 0 && first[before - 1] != ' ' {
        before -= 1;
    }
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    if before > 0 && longest - before < max_chars {
        cut = before;
    }
    if cut == 0 {
        return labels.iter().map(|l| (*l).to_owned()).collect();
    }
    labels
        .iter()
        .map(|l| format!("…{}", l.chars().skip(cut).collect::<String>()))
        .collect()
}

/// `rows` on `height` pixel rows: as they are when they fit; else pixel row `y` summarises
/// the rows `y * n / height ..` to the next one's (every row on exactly one pixel row, at most
/// one more on some than on others), their threads together as a collapsed row's (the draw
/// mode over every thread's time in the column), labelled with their first and last rows.
/// Resource rows are not summarised: `None` when they do not fit.
pub fn fit(rows: &[RowItem], height: usize) -> Option<Vec<RowItem>> {
    if rows.len() <= height {
        return Some(rows.to_vec());
    }
    if height == 0 || rows.iter().any(|r| matches!(r.kind, RowKind::Resource(_))) {
        return None;
    }
    let n = rows.len();
    let out: Vec<RowItem> = (0..height)
        .map(|y| {
            let (a, b) = (y * n / height, (y + 1) * n / height);
            let (first, last) = (&rows[a], &rows[b - 1]);
            RowItem {
                label: if b - a == 1 {
                    first.label.clone()
                } else {
                    format!("{} – {}", first.label, last.label)
                },
                kind: if b - a == 1 {
                    first.kind.clone()
                } else {
                    RowKind::Span
                },
                threads: first.threads.start..last.threads.end,
                appl: first.appl,
                task: first.task,
            }
        })
        .collect();
    // The rows' threads follow each other: the summaries hold exactly them.
    let contiguous = rows
        .windows(2)
        .all(|w| w[0].threads.end == w[1].threads.start);
    contiguous.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::distinct_labels;

    #[test]
    fn labels_that_share_a_long_beginning_show_the_part_that_differs() {
        let gpus = [
            "(25335297.1.3574) GPU 0 power",
            "(25335297.1.3574) GPU 1 power",
            "(25335297.1.3574) GPU 12 power",
        ];
        assert_eq!(
            distinct_labels(&gpus, 16),
            ["…GPU 0 power", "…GPU 1 power", "…GPU 12 power"]
        );
        // Labels that fit, or share only a short beginning, are left as they are (cut at
        // their end, as any label).
        assert_eq!(distinct_labels(&gpus, 40), gpus);
        let threads = ["THREAD 1.1.1", "THREAD 1.2.1"];
        assert_eq!(distinct_labels(&threads, 20), threads);
        assert_eq!(distinct_labels(&threads, 4), ["…1.1.1", "…1.2.1"]);
        let short = ["APPL 1", "APPL 2"];
        assert_eq!(distinct_labels(&short, 4), short);
        // One label has nothing to share.
        assert_eq!(distinct_labels(&gpus[..1], 4), gpus[..1]);
        // Characters, not bytes.
        let accents = ["ééééééééééé 1", "ééééééééééé 2"];
        assert_eq!(distinct_labels(&accents, 5), ["…1", "…2"]);
    }
}

#[cfg(test)]
mod fit_tests {
    use super::{RowItem, RowKind, fit};

    fn thread(k: usize) -> RowItem {
        RowItem {
            label: format!("T{k}"),
            kind: RowKind::Thread(k),
            threads: k..k + 1,
            appl: 0,
            task: k,
        }
    }

    #[test]
    fn rows_beyond_the_pixels_share_pixel_rows_in_order() {
        let rows: Vec<RowItem> = (0..10).map(thread).collect();
        assert_eq!(fit(&rows, 10).unwrap(), rows);
        let three = fit(&rows, 3).unwrap();
        let spans: Vec<_> = three.iter().map(|r| r.threads.clone()).collect();
        assert_eq!(spans, [0..3, 3..6, 6..10]);
        assert_eq!(three[2].label, "T6 – T9");
        assert!(three.iter().all(|r| r.kind == RowKind::Span));
        // One row a pixel row keeps its own kind and label.
        let nine = fit(&rows, 9).unwrap();
        assert_eq!(nine[0], rows[0]);
        assert_eq!(nine[8].threads, 8..10);
        assert!(fit(&rows, 0).is_none());
        let mut cpus = rows.clone();
        cpus[0].kind = RowKind::Resource(0..1);
        assert!(fit(&cpus, 3).is_none());
    }
}

//! The tables `prvscope stats` and `prvscope scopes` print and the viewer exports: aligned
//! text or CSV.

use std::fmt::Write as _;

use prvscope_format::label::{ValuesOf, value_label};
use prvscope_store::Trace;

use crate::stats::{Column, Semantic};

/// The label of a statistics column: [`prvscope_format::label::value_label`], or `null`.
pub fn column_label(t: &Trace, semantic: Semantic, column: Column) -> String {
    let Column::Value(v) = column else {
        return "null".to_string();
    };
    let types;
    let of = match semantic {
        Semantic::StateAsIs => ValuesOf::States,
        Semantic::LastEventValue(ty) => {
            types = [ty];
            ValuesOf::Events(&types)
        }
    };
    value_label(t.pcf.as_ref(), of, v)
}

/// `prvscope stats`: time per value per thread, as text (aligned) or CSV.
pub fn stats_text(
    t: &Trace,
    semantic: Semantic,
    table: &crate::stats::TimeTable,
    csv: bool,
) -> String {
    table_text(t, table, csv, &|c| column_label(t, semantic, c))
}

/// A time-per-value table as text (aligned) or CSV, with `label` naming each column.
pub fn table_text(
    t: &Trace,
    table: &crate::stats::TimeTable,
    csv: bool,
    label: &dyn Fn(Column) -> String,
) -> String {
    // Threads left out of a partial load are not listed (they would read as idle).
    let names: Vec<(usize, String)> = (0..table.rows.len())
        .filter(|&r| t.is_row_loaded(r))
        .map(|r| (r, t.thread_name(r)))
        .collect();
    named_table_text(t, table, csv, label, "thread", &names)
}

/// A time-per-value table of the rows `names` (index into the table, name), the first
/// column headed `what`.
pub fn named_table_text(
    t: &Trace,
    table: &crate::stats::TimeTable,
    csv: bool,
    label: &dyn Fn(Column) -> String,
    what: &str,
    names: &[(usize, String)],
) -> String {
    let shown: Vec<usize> = names.iter().map(|(r, _)| *r).collect();
    let columns: Vec<_> = table
        .columns()
        .into_iter()
        .filter(|&c| shown.iter().any(|&r| table.get(r, c) > 0))
        .collect();
    let labels: Vec<String> = columns.iter().map(|&c| label(c)).collect();
    let mut s = String::new();
    if csv {
        let header: Vec<String> = std::iter::once(what.to_string())
            .chain(labels.iter().map(|l| csv_field(l)))
            .collect();
        let _ = writeln!(s, "{}", header.join(","));
        for (r, name) in names {
            let cells: Vec<String> = std::iter::once(csv_field(name))
                .chain(columns.iter().map(|&c| table.get(*r, c).to_string()))
                .collect();
            let _ = writeln!(s, "{}", cells.join(","));
        }
        return s;
    }
    let unit = t.header.time_unit.as_str();
    let _ = writeln!(
        s,
        "time per value in {unit}, window [{}, {})",
        table.t0, table.t1
    );
    let name_w = names.iter().map(|(_, n)| n.len()).max().unwrap_or(6).max(6);
    let widths: Vec<usize> = columns
        .iter()
        .zip(&labels)
        .map(|(&c, l)| {
            shown
                .iter()
                .map(|&r| table.get(r, c).to_string().len())
                .max()
                .unwrap_or(1)
                .max(l.len())
        })
        .collect();
    let _ = write!(s, "{what:name_w$}");
    for (l, w) in labels.iter().zip(&widths) {
        let _ = write!(s, "  {l:>w$}");
    }
    s.push('\n');
    for (r, name) in names {
        let _ = write!(s, "{name:name_w$}");
        for (&c, w) in columns.iter().zip(&widths) {
            let _ = write!(s, "  {:>w$}", table.get(*r, c));
        }
        s.push('\n');
    }
    s
}

/// Quotes a CSV field when it needs it.
pub(crate) fn csv_field(x: &str) -> String {
    if x.contains([',', '"', '\n']) {
        format!("\"{}\"", x.replace('"', "\"\""))
    } else {
        x.to_string()
    }
}

/// The applications of `t` whose rows count in `a`, each with those rows (the rows that did
/// not run the program and those not loaded are left out; applications without a counted
/// row too).
pub fn counted_applications(
    t: &Trace,
    a: &crate::scopes::ScopeAnalysis,
) -> Vec<(usize, Vec<usize>)> {
    prvscope_format::RowMap::new(&t.header)
        .application_rows()
        .into_iter()
        .enumerate()
        .map(|(i, rows)| {
            let counted: Vec<usize> = rows
                .filter(|&r| a.counted.get(r).copied().unwrap_or(false))
                .collect();
            (i + 1, counted)
        })
        .filter(|(_, rows)| !rows.is_empty())
        .collect()
}

/// `prvscope scopes`: the scope table (name, type, location, inclusive, exclusive, share of
/// the threads' time, entries) as text or CSV; with `per_thread`, each scope's inclusive time
/// on every thread as well. Only the rows that ran the program count (`ScopeAnalysis::
/// counted`); when several applications ran, each has its own table, its shares of its own
/// threads' time (CSV: an `application` column first).
pub fn scopes_text(
    t: &Trace,
    ctx: &crate::scopes::ScopeContext,
    a: &crate::scopes::ScopeAnalysis,
    csv: bool,
    per_thread: bool,
) -> String {
    let apps = counted_applications(t, a);
    let several = apps.len() > 1;
    let sections: Vec<(Option<usize>, Vec<usize>)> = if several {
        apps.into_iter().map(|(i, rows)| (Some(i), rows)).collect()
    } else {
        vec![(None, a.counted_rows())]
    };
    let mut header: Vec<String> = [
        "scope",
        "type",
        "location",
        "inclusive",
        "exclusive",
        "inclusive %",
        "entries",
    ]
    .map(str::to_string)
    .to_vec();
    if several && csv {
        header.insert(0, "application".to_owned());
    }
    let mut s = String::new();
    if csv {
        let names: Vec<String> = t.loaded_rows().iter().map(|&r| t.thread_name(r)).collect();
        if per_thread {
            header.extend(names.iter().cloned());
        }
        let cells: Vec<String> = header.iter().map(|c| csv_field(c)).collect();
        let _ = writeln!(s, "{}", cells.join(","));
    } else {
        let unit = t.header.time_unit.as_str();
        let types: Vec<String> = a.types.iter().map(|st| st.ty.to_string()).collect();
        let _ = writeln!(
            s,
            "scopes of types {} in {unit}, window [{}, {}), {}",
            types.join(","),
            a.t0,
            a.t1,
            a.counted_text()
        );
    }
    for (app, rows) in &sections {
        let scopes = if app.is_none() {
            a.scopes.clone()
        } else {
            a.scopes_of(rows)
        };
        let total = a.rows_ticks(rows);
        let table_rows: Vec<Vec<String>> = scopes
            .iter()
            .map(|sc| {
                let mut row = vec![
                    sc.name.clone(),
                    ctx.type_label(sc.key.ty),
                    sc.location
                        .as_ref()
                        .map_or_else(String::new, ToString::to_string),
                    sc.inclusive.to_string(),
                    sc.exclusive.to_string(),
                    format!("{:.2}", 100.0 * sc.inclusive as f64 / total),
                    sc.entries.to_string(),
                ];
                if let Some(i) = app.filter(|_| csv) {
                    row.insert(0, i.to_string());
                }
                if per_thread && csv {
                    row.extend(t.loaded_rows().iter().map(|&r| {
                        sc.inclusive_per_thread
                            .get(r)
                            .copied()
                            .unwrap_or(0)
                            .to_string()
                    }));
                }
                row
            })
            .collect();
        if csv {
            for row in &table_rows {
                let cells: Vec<String> = row.iter().map(|c| csv_field(c)).collect();
                let _ = writeln!(s, "{}", cells.join(","));
            }
            continue;
        }
        if let Some(i) = app {
            let _ = writeln!(
                s,
                "\napplication {i} ({} threads; shares of their time)",
                rows.len()
            );
        }
        // Per thread: a column per counted row of the section.
        let mut head = header.clone();
        let mut body = table_rows;
        if per_thread {
            head.extend(rows.iter().map(|&r| t.thread_name(r)));
            for (row, sc) in body.iter_mut().zip(&scopes) {
                row.extend(rows.iter().map(|&r| {
                    sc.inclusive_per_thread
                        .get(r)
                        .copied()
                        .unwrap_or(0)
                        .to_string()
                }));
            }
        }
        let widths: Vec<usize> = (0..head.len())
            .map(|i| {
                std::iter::once(&head)
                    .chain(&body)
                    .map(|r| r.get(i).map_or(0, String::len))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&head).chain(&body) {
            for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
                // Text columns to the left, numbers to the right.
                if i < 3 {
                    let _ = write!(s, "{cell:w$}  ");
                } else {
                    let _ = write!(s, "{cell:>w$}  ");
                }
            }
            s.truncate(s.trim_end().len());
            s.push('\n');
        }
    }
    if csv {
        return s;
    }
    if let Some(note) = a.order_note() {
        let _ = writeln!(s, "note: {note}");
    }
    let r = a.report;
    if r.exits_without_entry + r.unclosed_inner + r.open_at_end + r.too_deep > 0 {
        let _ = writeln!(
            s,
            "stacks: {} exits without entry, {} scopes closed by an outer exit, {} open at the end, {} entries beyond depth {}",
            r.exits_without_entry,
            r.unclosed_inner,
            r.open_at_end,
            r.too_deep,
            crate::scopes::MAX_DEPTH
        );
    }
    s
}

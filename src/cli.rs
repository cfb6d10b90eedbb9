//! Command-line subcommands other than the viewer: `info` and `gen`.

use std::fmt::Write as _;
use std::path::Path;

use crate::trace::{self, LoadOptions, NullOverride, Trace};

/// The facts `prvscope info` prints, as a JSON object (the field list of DESIGN.md).
pub fn info_json(t: &Trace) -> serde_json::Value {
    let c = t.store.counts();
    let policy = t.store.null_policy();
    serde_json::json!({
        "path": t.path.display().to_string(),
        "compression": t.stats.compression.name(),
        "rows": t.header.thread_count(),
        "applications": t.header.applications.len(),
        "tasks": t.header.applications.iter().map(|a| a.tasks.len()).sum::<usize>(),
        "cpus": t.header.cpu_count(),
        "state_records": c.states,
        "event_records": c.events,
        "comm_records": c.comms,
        "event_types": t.store.event_types().len(),
        "end_time": t.header.end_time,
        "time_unit": t.header.time_unit.as_str(),
        "null_mode": policy.mode_name(),
        "null_sentinel": policy.sentinel.to_string(),
        "null_values": c.null_values,
        "skipped": t.report.skipped(),
        "warnings": t.report.warnings(),
        "load_seconds": t.stats.load_seconds,
        "bytes_read": t.stats.bytes_read,
        "bytes_decoded": t.stats.bytes_decoded,
        "store_bytes": t.store.heap_bytes(),
        "resident_bytes": resident_bytes(),
        "bytes_per_record": t.store.bytes_per_record(),
        "pcf": t.pcf.is_some(),
        "row": t.row.is_some(),
        "part": t.part_description(),
    })
}

/// The human-readable form of `info`.
pub fn info_text(t: &Trace) -> String {
    let c = t.store.counts();
    let policy = t.store.null_policy();
    let mut s = String::new();
    let mb = t.stats.bytes_decoded as f64 / 1e6;
    let _ = writeln!(s, "trace          {}", t.path.display());
    let _ = writeln!(
        s,
        "file           {} ({}, {:.1} MB of text)",
        human_bytes(t.stats.bytes_read),
        t.stats.compression.name(),
        mb
    );
    let _ = writeln!(
        s,
        "rows           {} threads in {} application(s), {} task(s); {} CPUs",
        t.header.thread_count(),
        t.header.applications.len(),
        t.header
            .applications
            .iter()
            .map(|a| a.tasks.len())
            .sum::<usize>(),
        t.header.cpu_count()
    );
    let _ = writeln!(
        s,
        "duration       {} {}",
        t.header.end_time, t.header.time_unit
    );
    if let Some(part) = t.part_description() {
        let _ = writeln!(s, "part loaded    {part}");
    }
    let _ = writeln!(s, "states         {}", c.states);
    let _ = writeln!(
        s,
        "events         {} type:value pairs of {} types",
        c.events,
        t.store.event_types().len()
    );
    let _ = writeln!(s, "communications {}", c.comms);
    let _ = writeln!(
        s,
        "null           {} mode (sentinel {}), {} null values",
        policy.mode_name(),
        policy.sentinel,
        c.null_values
    );
    let _ = writeln!(
        s,
        "side files     .pcf {}, .row {}",
        if t.pcf.is_some() { "read" } else { "missing" },
        if t.row.is_some() { "read" } else { "missing" }
    );
    let _ = writeln!(
        s,
        "store          {} ({:.2} bytes/record)",
        human_bytes(t.store.heap_bytes() as u64),
        t.store.bytes_per_record()
    );
    let _ = writeln!(
        s,
        "resident       {} after loading ({:.2} bytes/record)",
        human_bytes(resident_bytes()),
        resident_bytes() as f64 / c.total().max(1) as f64
    );
    let secs = t.stats.load_seconds.max(1e-9);
    let _ = writeln!(
        s,
        "loaded in      {:.3} s ({:.0} MB/s of text)",
        secs,
        mb / secs
    );
    if t.report.is_empty() {
        let _ = writeln!(s, "warnings       none");
    } else {
        let _ = writeln!(s, "warnings:");
        for w in t.report.warnings() {
            let _ = writeln!(s, "  {w}");
        }
    }
    s
}

/// The resident set size of this process (Linux; 0 where it cannot be read).
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{b} B")
    }
}

/// Parses sizes like `100MB`, `1GB`, `512k`, `4096`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let (num, unit) = t.split_at(digits);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("expected a size like 100MB, found `{s}`"))?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1_048_576.0,
        "gib" => 1_073_741_824.0,
        _ => return Err(format!("unknown size unit in `{s}`")),
    };
    if n.is_sign_negative() {
        return Err(format!("expected a positive size, found `{s}`"));
    }
    #[allow(clippy::cast_sign_loss)] // checked just above
    Ok((n * mult) as u64)
}

/// Loads a trace for `info`.
pub fn load_for_info(
    path: &Path,
    null: NullOverride,
    subset: &trace::Subset,
) -> Result<Trace, trace::LoadError> {
    trace::load(
        path,
        &LoadOptions {
            null,
            subset: subset.clone(),
            ..LoadOptions::default()
        },
        None,
    )
}

/// Refuses a load that is expected to need more memory than the machine has, with what can
/// be loaded instead (the operating system would otherwise kill the process mid-way).
/// `budget` replaces the memory the machine has available.
pub fn check_memory(
    path: &Path,
    subset: &trace::Subset,
    budget: Option<u64>,
) -> anyhow::Result<()> {
    let Ok(mut e) = trace::estimate::estimate(path) else {
        // The load reports why the file cannot be read.
        return Ok(());
    };
    if budget.is_some() {
        e.available_bytes = budget;
    }
    let Some(available) = e.available_bytes else {
        return Ok(());
    };
    if subset.is_whole() {
        anyhow::ensure!(
            !e.too_large(),
            "{} Use --from/--to and --threads for that, or --skip-memory-check to load it all anyway.",
            e.advice(path)
        );
    } else {
        let need = e.bytes_for(subset);
        anyhow::ensure!(
            need <= available,
            "{}: loading {subset} needs about {}, and this machine has {} available; choose a smaller part (or --skip-memory-check).",
            path.display(),
            trace::estimate::human(need),
            trace::estimate::human(available)
        );
    }
    Ok(())
}

/// The label of a statistics column: the `.pcf` state or value label, else the number.
pub fn column_label(
    t: &Trace,
    semantic: crate::analysis::stats::Semantic,
    column: crate::analysis::stats::Column,
) -> String {
    use crate::analysis::stats::{Column, Semantic};
    let Column::Value(v) = column else {
        return "null".to_string();
    };
    let label = t.pcf.as_ref().and_then(|p| match semantic {
        Semantic::StateAsIs => p.state_label(v),
        Semantic::LastEventValue(ty) => p.value_label(ty, v),
    });
    label.map_or_else(|| v.to_string(), str::to_string)
}

/// `prvscope stats`: time per value per thread, as text (aligned) or CSV.
pub fn stats_text(
    t: &Trace,
    semantic: crate::analysis::stats::Semantic,
    table: &crate::analysis::stats::TimeTable,
    csv: bool,
) -> String {
    table_text(t, table, csv, &|c| column_label(t, semantic, c))
}

/// A time-per-value table as text (aligned) or CSV, with `label` naming each column.
pub fn table_text(
    t: &Trace,
    table: &crate::analysis::stats::TimeTable,
    csv: bool,
    label: &dyn Fn(crate::analysis::stats::Column) -> String,
) -> String {
    // Threads left out of a partial load are not listed (they would read as idle).
    let shown: Vec<usize> = (0..table.rows.len())
        .filter(|&r| t.is_row_loaded(r))
        .collect();
    let columns: Vec<_> = table
        .columns()
        .into_iter()
        .filter(|&c| shown.iter().any(|&r| table.get(r, c) > 0))
        .collect();
    let labels: Vec<String> = columns.iter().map(|&c| label(c)).collect();
    let names: Vec<(usize, String)> = shown.iter().map(|&r| (r, t.thread_name(r))).collect();
    let mut s = String::new();
    if csv {
        let header: Vec<String> = std::iter::once("thread".to_string())
            .chain(labels.iter().map(|l| csv_field(l)))
            .collect();
        let _ = writeln!(s, "{}", header.join(","));
        for (r, name) in &names {
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
    let _ = write!(s, "{:name_w$}", "thread");
    for (l, w) in labels.iter().zip(&widths) {
        let _ = write!(s, "  {l:>w$}");
    }
    s.push('\n');
    for (r, name) in &names {
        let _ = write!(s, "{name:name_w$}");
        for (&c, w) in columns.iter().zip(&widths) {
            let _ = write!(s, "  {:>w$}", table.get(*r, c));
        }
        s.push('\n');
    }
    s
}

/// Quotes a CSV field when it needs it.
fn csv_field(x: &str) -> String {
    if x.contains([',', '"', '\n']) {
        format!("\"{}\"", x.replace('"', "\"\""))
    } else {
        x.to_string()
    }
}

/// `prvscope scopes`: the scope table (name, type, location, inclusive, exclusive, share of
/// the threads' time, entries) as text or CSV; with `per_thread`, each scope's inclusive time
/// on every thread as well.
pub fn scopes_text(
    t: &Trace,
    ctx: &crate::analysis::scopes::ScopeContext,
    a: &crate::analysis::scopes::ScopeAnalysis,
    csv: bool,
    per_thread: bool,
) -> String {
    // Threads left out of a partial load have no time: their share is not counted, and
    // they get no column.
    let loaded = t.loaded_rows();
    let total = a.threads_ticks(loaded.len());
    let names: Vec<String> = loaded.iter().map(|&r| t.thread_name(r)).collect();
    let rows: Vec<Vec<String>> = a
        .scopes
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
            if per_thread {
                row.extend(loaded.iter().map(|&r| {
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
    if per_thread {
        header.extend(names.iter().cloned());
    }
    let mut s = String::new();
    if csv {
        for row in std::iter::once(&header).chain(&rows) {
            let cells: Vec<String> = row.iter().map(|c| csv_field(c)).collect();
            let _ = writeln!(s, "{}", cells.join(","));
        }
        return s;
    }
    let unit = t.header.time_unit.as_str();
    let types: Vec<String> = a.types.iter().map(|st| st.ty.to_string()).collect();
    let _ = writeln!(
        s,
        "scopes of types {} in {unit}, window [{}, {}), {} threads",
        types.join(","),
        a.t0,
        a.t1,
        loaded.len()
    );
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            std::iter::once(&header)
                .chain(&rows)
                .map(|r| r.get(i).map_or(0, String::len))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&header).chain(&rows) {
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
    let r = a.report;
    if r.exits_without_entry + r.unclosed_inner + r.open_at_end + r.too_deep > 0 {
        let _ = writeln!(
            s,
            "stacks: {} exits without entry, {} scopes closed by an outer exit, {} open at the end, {} entries beyond depth {}",
            r.exits_without_entry,
            r.unclosed_inner,
            r.open_at_end,
            r.too_deep,
            crate::analysis::scopes::MAX_DEPTH
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100MB"), Ok(100_000_000));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("2k"), Ok(2000));
        assert_eq!(parse_size("1.5MiB"), Ok(1_572_864));
        assert!(parse_size("x").is_err());
    }
}

//! `prvscope info`: load a trace and print what it holds, as text or one JSON object.

use std::fmt::Write as _;
use std::path::PathBuf;

use prvscope_format::units::human_bytes;
use prvscope_import::cache::CacheCheck;
use prvscope_store::{Integrity, NullOverride, Trace};

use super::PartArgs;

/// Load a trace and print what it holds.
#[derive(clap::Args)]
pub struct Args {
    /// The trace: x.prv, x.prv.xz or x.prv.gz (x.pcf and x.row are read beside it).
    pub trace: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// How to read nulls: auto (from the .pcf), zero (0 is null), N (NULL mode) or a
    /// number (NULL mode with that sentinel).
    #[arg(long, default_value = "auto")]
    pub null: NullOverride,
    #[command(flatten)]
    pub part: PartArgs,
}

/// Runs `info`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let subset = args.part.subset();
    // `info` uses no record: a cache file that cannot stay in memory is not read whole to
    // check the records' sections first (their counts are in its checked description). The
    // records are checked by the command that uses them.
    let mut t = args
        .part
        .load_with(&args.trace, args.null, &subset, CacheCheck::LaterWhenLarge)?;
    // `info` says what the cache holds: it waits for a write its load started beside it (a
    // write in a process of its own goes on after it).
    if let Some(state) = super::finish_cache_write() {
        t.cache.state = state;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info_json(&t))?);
    } else {
        print!("{}", info_text(&t));
    }
    super::let_go_at_exit(t);
    Ok(())
}

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
        "store_bytes": t.store.heap_bytes() as u64 + t.store.mapped_bytes(),
        "mapped_bytes": t.store.mapped_bytes(),
        "cache": t.cache.state.name(),
        "cache_file": t.cache.file.as_ref().map(|f| f.display().to_string()),
        "cache_note": cache_note(t),
        "cache_records_checked": t.store.integrity() == Integrity::Checked,
        "resident_bytes": resident_bytes(),
        "bytes_per_record": t.store.bytes_per_record(),
        "pcf": t.pcf.is_some(),
        "row": t.row.is_some(),
        "part": t.part_description(),
    })
}

/// Why the cache was not used or written, if it was not; whether the records of a cache file
/// that cannot stay in memory were checked.
fn cache_note(t: &Trace) -> Option<String> {
    let written = match &t.cache.state {
        prvscope_store::cache::CacheState::NotWritten(why) => Some(why.clone()),
        prvscope_store::cache::CacheState::Writing => {
            Some("written by a process of its own after this command; the next load maps it".into())
        }
        _ => None,
    };
    let note = match (&t.cache.refused, written) {
        (Some(r), Some(w)) => Some(format!("{r}; {w}")),
        (Some(r), None) => Some(format!("{r} (rebuilt)")),
        (None, w) => w,
    };
    let checked = match t.store.integrity() {
        Integrity::Checked => None,
        Integrity::Checking => Some(
            "the file is larger than half the memory available: its records' sections are checked by the first command that uses them"
                .to_owned(),
        ),
        Integrity::Corrupt(why) => Some(format!(
            "{why}: the file was removed, and the next load reads the trace again"
        )),
    };
    match (note, checked) {
        (Some(n), Some(c)) => Some(format!("{n}; {c}")),
        (n, c) => n.or(c),
    }
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
    let cache = t.cache.state.name();
    match cache_note(t) {
        Some(note) => {
            let _ = writeln!(s, "store cache    {cache} ({note})");
        }
        None => {
            let _ = writeln!(s, "store cache    {cache}");
        }
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
    if t.cache.state == prvscope_store::cache::CacheState::Hit {
        // No text was read: a rate of text would measure nothing.
        let _ = writeln!(s, "loaded in      {secs:.3} s from the store cache");
    } else {
        let _ = writeln!(
            s,
            "loaded in      {:.3} s ({:.0} MB/s of text)",
            secs,
            mb / secs
        );
    }
    if let Some(last) = t.records_cut_short() {
        let _ = writeln!(
            s,
            "records        stop at {last} ticks, before the header's duration: the file looks \
             cut short"
        );
    }
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

//! A clustered trace, as the Clustering Suite writes one: the trace's own lines, unchanged
//! and in their order, with one cluster event (type [`CLUSTER_EVENT`]) at each burst's
//! start, its class's value, and one of value 0 (`End`) at its end; each new line goes
//! before the first line of the trace that is later (after those of its own time). The
//! `.pcf` is the trace's with the cluster event's labels added; the `.row` is copied.
//! Bursts shorter than the minimum duration get no event.

use std::io::{self, BufRead, Write};
use std::path::Path;

use prvscope_import::output::{OutputFile, copy_side_files, open_text};
use prvscope_store::Trace;

use super::{CLUSTER_EVENT, Clustering, event_labels};

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Lines of the trace copied (its header included) and cluster events added.
    pub lines: u64,
    pub events: u64,
}

/// The `.pcf` block of the cluster event, clusters 1 to `clusters`.
pub fn pcf_block(clusters: u32) -> String {
    use std::fmt::Write as _;
    let mut s = format!("EVENT_TYPE\n0    {CLUSTER_EVENT}    Cluster ID\nVALUES\n");
    for (v, label) in event_labels(clusters) {
        let _ = writeln!(s, "{v}      {label}");
    }
    s
}

/// Writes `trace` (read again from its file at `input`) with the cluster events of
/// `clustering` to `output` (`.xz`/`.gz` by its name), with its `.pcf` and `.row`.
pub fn write_clustered(
    input: &Path,
    trace: &Trace,
    clustering: &Clustering,
    output: &Path,
) -> io::Result<Written> {
    if input == output {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the output would replace the trace it is written from",
        ));
    }
    // The events, in time order (then thread order): (time, row, value).
    let mut events: Vec<(u64, u32, u64)> = Vec::with_capacity(clustering.class.len() * 2);
    for (b, c) in clustering.bursts.list.iter().zip(&clustering.class) {
        events.push((b.begin, b.thread, c.event_value()));
        events.push((b.end, b.thread, 0));
    }
    events.sort_unstable();
    let ids = crate::cut::row_ids(&trace.header);
    let threads = trace.store.threads();
    let cpu_at = |row: u32, time: u64| -> u32 {
        let cpus = &threads[row as usize].cpus;
        let k = cpus.partition_point(|&(t, _)| t <= time);
        cpus.get(k.saturating_sub(1)).map_or(0, |&(_, c)| c)
    };
    let mut out = OutputFile::create(output)?;
    let mut reader = open_text(input)?;
    let mut line = Vec::new();
    let mut next = 0usize;
    let mut lines = 0u64;
    let emit = |out: &mut OutputFile, upto: Option<u64>, next: &mut usize| -> io::Result<()> {
        while let Some(&(time, row, value)) = events.get(*next) {
            if upto.is_some_and(|t| time >= t) {
                break;
            }
            let [a, t, h] = ids[row as usize];
            writeln!(
                out,
                "2:{}:{a}:{t}:{h}:{time}:{CLUSTER_EVENT}:{value}",
                cpu_at(row, time)
            )?;
            *next += 1;
        }
        Ok(())
    };
    let mut header = true;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if !header && let Some(t) = record_time(&line) {
            emit(&mut out, Some(t), &mut next)?;
        }
        header = false;
        out.write_all(&line)?;
        if !line.ends_with(b"\n") {
            out.write_all(b"\n")?;
        }
        lines += 1;
    }
    emit(&mut out, None, &mut next)?;
    out.finish()?;
    copy_side_files(input, output)?;
    let pcf = prvscope_format::files::side_file(output, "pcf");
    let mut text = std::fs::read_to_string(&pcf).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push('\n');
    text.push_str(&pcf_block(clustering.clusters()));
    std::fs::write(&pcf, text)?;
    Ok(Written {
        lines,
        events: events.len() as u64,
    })
}

/// The time of a state, event or communication line (its sixth field), if it is one.
fn record_time(line: &[u8]) -> Option<u64> {
    if !matches!(line.first(), Some(b'1' | b'2' | b'3')) || line.get(1) != Some(&b':') {
        return None;
    }
    let field = line.split(|&b| b == b':').nth(5)?;
    let field = field.strip_suffix(b"\n").unwrap_or(field);
    std::str::from_utf8(field).ok()?.trim().parse().ok()
}

//! A cut or filter written to a file: checked first (a range inside the trace, an output
//! that is not the input), written under a temporary name and renamed at the end, the
//! `.pcf` and `.row` copied beside it.

use std::path::{Path, PathBuf};

use prvscope_import::output::{
    OutputFile, compression_of, copy_side_files, head_lines_of, open_text,
};
use prvscope_store::Trace;

use super::{
    Control, CutterOptions, FilterOptions, Head, Reading, WriteError, Written, cut_text,
    filter_text, write_cut, write_filter,
};

/// What to write.
#[derive(Debug, Clone, Default)]
pub struct Job {
    pub cutter: Option<CutterOptions>,
    pub filter: Option<FilterOptions>,
    /// The cut stops reading where Paraver's cutter stops (`paramedir --cutter`, the
    /// drop-in): its output exactly, which leaves out what an unsorted file holds inside the
    /// cut after the first record past it. Otherwise (`prvscope cut`, the viewer) the whole
    /// file is read and every record inside the cut kept.
    pub stop_as_paraver: bool,
    /// The source the cutter's comment line names, when not the trace's own file (a trace
    /// read from a text written again as BSC's tools read it).
    pub source_name: Option<PathBuf>,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct Saved {
    pub written: Written,
    /// The trace and the side files written beside it.
    pub files: Vec<PathBuf>,
}

/// The date of the cutter's comment line (`YYYYMMDDhhmmss`, UTC).
fn now_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Checks what a cut would write before anything is written: the range is inside the trace
/// and not empty.
pub fn check(trace: &Trace, job: &Job) -> Result<(), WriteError> {
    if let Some(c) = &job.cutter {
        let end = trace.header.end_time;
        if !c.by_time && (c.min_percentage > 100 || c.max_percentage > 100) {
            return Err(WriteError::Refused(format!(
                "the cut's percentages ({}%-{}%) go beyond 100%",
                c.min_percentage, c.max_percentage
            )));
        }
        let (t0, t1) = c.range(end);
        if t1 <= t0 {
            return Err(WriteError::Refused(format!(
                "the cut [{t0}, {t1}] is empty: its end is not after its start"
            )));
        }
        if t0 >= end {
            return Err(WriteError::Refused(format!(
                "the cut starts at {t0}, at or after the trace's end ({end})"
            )));
        }
        if c.rows.as_ref().is_some_and(|r| !r.iter().any(|&k| k)) {
            return Err(WriteError::Refused("the cut keeps no thread".into()));
        }
    }
    if job.cutter.is_none() && job.filter.is_none() {
        return Err(WriteError::Refused(
            "nothing to do: neither a cut nor a filter".into(),
        ));
    }
    Ok(())
}

/// Writes `job` on `trace` to `output` (plain, `.xz` or `.gz` by its name).
pub fn save(
    trace: &Trace,
    job: &Job,
    output: &Path,
    control: &Control<'_>,
) -> Result<Saved, WriteError> {
    check(trace, job)?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(&trace.path, output) {
        return Err(WriteError::Refused(format!(
            "{}: the output is the trace itself",
            output.display()
        )));
    }
    // The trace's text: the one that came with it (the embedded demo's), else its file's.
    // The communicator lines are read again from it (the store does not keep them): a text
    // that cannot be read then is an error, not a header without them; a trace without
    // them needs nothing from it.
    let text = || -> std::io::Result<Box<dyn std::io::BufRead + Send>> {
        match trace.shipped_text {
            Some(t) => Ok(Box::new(t)),
            None => open_text(&trace.path),
        }
    };
    let head = text().and_then(|t| head_lines_of(t, trace.header.communicator_lines));
    let (communicators, comments) = match head {
        Ok(head) => head,
        Err(_) if trace.header.communicator_lines == 0 => Default::default(),
        Err(e) => {
            return Err(WriteError::Refused(format!(
                "{}: its {} communicator lines cannot be read again ({e})",
                trace.path.display(),
                trace.header.communicator_lines
            )));
        }
    };
    if communicators.len() != trace.header.communicator_lines as usize {
        return Err(WriteError::Refused(format!(
            "{}: the header announces {} communicator lines, {} were read again",
            trace.path.display(),
            trace.header.communicator_lines,
            communicators.len()
        )));
    }
    let head = Head {
        communicators,
        comments,
    };
    let mut file = OutputFile::create(output)?;
    let opts = job.filter.clone().unwrap_or_default();
    let has_text = trace.shipped_text.is_some() || trace.path.is_file();
    let total = match trace.shipped_text {
        Some(t) => Some(t.len() as u64),
        None => (compression_of(&trace.path) == prvscope_import::Compression::None)
            .then(|| std::fs::metadata(&trace.path).map(|m| m.len()).ok())
            .flatten(),
    };
    let source = job.source_name.as_ref().unwrap_or(&trace.path);
    let name = std::path::absolute(source).unwrap_or_else(|_| source.clone());
    // A part of a trace is cut from the text too when the part holds all the cut keeps:
    // its range, and each thread it keeps (as the viewer's cut of a part keeps only the
    // threads loaded); otherwise from the store, which holds what was loaded.
    let part_holds = |c: &CutterOptions| {
        let Some(part) = &trace.part else {
            return true;
        };
        let (t0, t1) = c.range(trace.header.end_time);
        let kept = |r: usize| {
            c.rows
                .as_ref()
                .is_none_or(|rows| rows.get(r) == Some(&true))
        };
        part.subset.from.is_none_or(|from| from <= t0)
            && part.subset.to.is_none_or(|to| to >= t1)
            && (0..trace.store.thread_count()).all(|r| !kept(r) || trace.is_row_loaded(r))
    };
    // The index of the text's pieces, when it is the text read (same length, plain), and
    // how the cut opens the text past the pieces it does not read.
    let index = trace.text_index.as_deref().filter(|index| {
        trace.part.is_none()
            && match trace.shipped_text {
                Some(t) => t.len() as u64 == index.end(),
                None => total == Some(index.end()),
            }
    });
    let open_at = |at: u64| -> std::io::Result<Box<dyn std::io::BufRead + Send>> {
        use std::io::{Seek, SeekFrom};
        if let Some(t) = trace.shipped_text {
            return Ok(Box::new(t.get(at as usize..).unwrap_or_default()));
        }
        let mut file = std::fs::File::open(&trace.path)?;
        file.seek(SeekFrom::Start(at))?;
        Ok(Box::new(std::io::BufReader::with_capacity(1 << 20, file)))
    };
    let written = if let Some(c) = job.cutter.as_ref().filter(|c| has_text && part_holds(c)) {
        // The cut reads the file's text and writes its lines as the cutter does (the
        // store keeps no lines, nor each record's CPU field).
        cut_text(
            &text,
            &trace.header,
            trace.pcf.as_ref(),
            c,
            job.filter.as_ref(),
            (&name.to_string_lossy(), &now_stamp()),
            Reading {
                stop_as_paraver: job.stop_as_paraver,
                known: (!job.stop_as_paraver)
                    .then(|| super::known_span(trace, c))
                    .flatten(),
                index,
                open_at: Some(&open_at),
                ..Reading::default()
            },
            &mut file,
            control,
            total,
        )?
    } else if let Some(c) = &job.cutter {
        write_cut(
            trace,
            &head,
            c,
            job.filter.as_ref(),
            (&name.to_string_lossy(), &now_stamp()),
            &mut file,
            control,
        )?
    } else if has_text && trace.part.is_none() {
        // The filter reads the text again and copies its lines, as the cut does; a part of
        // a trace, or a trace without a text, is written from the store.
        let mut input = text()?;
        filter_text(
            &mut *input,
            &trace.header,
            trace.pcf.as_ref(),
            &opts,
            &mut file,
            control,
            total,
        )?
    } else {
        write_filter(trace, &head, &opts, &mut file, control)?
    };
    file.finish()?;
    let mut files = vec![output.to_path_buf()];
    files.extend(copy_side_files(&trace.path, output)?);
    Ok(Saved { written, files })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stamp_is_a_date() {
        let s = super::now_stamp();
        assert_eq!(s.len(), 14);
        assert!(s.starts_with("20"), "{s}");
        let month: u32 = s[4..6].parse().unwrap();
        assert!((1..=12).contains(&month));
    }
}

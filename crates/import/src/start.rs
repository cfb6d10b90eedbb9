//! The start of every load of a file: its compression, its side files (`.pcf`, `.row`) and
//! the null policy they give, and the store cache's answer.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use prvscope_format::error;
use prvscope_store::NullPolicy;
use prvscope_store::null::resolve_policy;

use crate::{
    Compression, IssueKind, LoadError, LoadOptions, LoadProgress, LoadReport, Pcf, RowNames,
    SideFiles, Trace, cache, source,
};

/// A load that was not answered by the store cache: what it starts from.
pub(crate) struct Begun {
    pub(crate) meta: std::fs::Metadata,
    pub(crate) compression: Compression,
    pub(crate) side: SideFiles,
    pub(crate) policy: NullPolicy,
    pub(crate) cached: cache::CachedLoad,
}

/// The start of every load of a file: its compression, its side files and null policy, and
/// the store cache's answer (`Err`: the trace, from the cache).
pub(crate) fn begin(
    path: &Path,
    options: &LoadOptions,
    progress: &LoadProgress,
    started: Instant,
) -> Result<Result<Begun, Box<Trace>>, LoadError> {
    let (meta, compression) = sniff(path)?;
    progress.bytes_total.store(meta.len(), Ordering::Relaxed);
    let (side, policy) = read_sides(path, options);
    let mut cached = cache::CachedLoad::default();
    if let Some(hit) = cached.look_up(path, policy, options) {
        let trace = cache::from_cache(path, hit, side, compression, options, started, cached)?;
        return Ok(Err(Box::new(trace)));
    }
    Ok(Ok(Begun {
        meta,
        compression,
        side,
        policy,
        cached,
    }))
}

/// The trace file's metadata and compression (from its first bytes).
pub(crate) fn sniff(path: &Path) -> Result<(std::fs::Metadata, Compression), LoadError> {
    let io_err = crate::io_error(path);
    let mut file = File::open(path).map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if meta.is_dir() {
        return Err(io_err(std::io::Error::other(
            "is a directory, not a trace file",
        )));
    }
    let mut head = [0u8; 6];
    let n = read_up_to(&mut file, &mut head).map_err(io_err)?;
    Ok((meta, Compression::sniff(head.get(..n).unwrap_or(&[]))))
}

/// The side files of the trace at `path`, and the null policy they and `options` give.
pub(crate) fn read_sides(path: &Path, options: &LoadOptions) -> (SideFiles, NullPolicy) {
    let mut report = LoadReport::default();
    let pcf =
        read_side(path, "pcf", &mut report).map(|(p, text)| Pcf::parse(&text, &p, &mut report));
    let row = read_side(path, "row", &mut report)
        .map(|(p, text)| RowNames::parse(&text, &p, &mut report));
    let policy = resolve_policy(options.null, pcf.as_ref());
    let side = SideFiles {
        pcf,
        row,
        report,
        from_disk: true,
    };
    (side, policy)
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(buf.get_mut(n..).unwrap_or(&mut []))? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

fn read_side(trace: &Path, ext: &str, report: &mut LoadReport) -> Option<(PathBuf, Vec<u8>)> {
    let p = source::side_file(trace, ext);
    match std::fs::read(&p) {
        Ok(bytes) => Some((p, bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            report.push(error::issue(
                IssueKind::SideFile,
                &p,
                0,
                0,
                format!("could not read: {e}"),
            ));
            None
        }
    }
}

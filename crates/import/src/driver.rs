//! The one import driver: a trace's body is cut into chunks parsed in parallel (a plain
//! file's chunks read by the workers that parse them, a compressed trace's decoded blocks as
//! they come, text in memory split at newlines) and handed on in file order, a group of
//! chunks at a time, to a [`ChunkSink`]. A load takes the whole body as one group and
//! assembles it into its store; a batched read (the conversion into the store cache, a
//! streamed export, a cut) assembles each group as a batch and lets it go.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rayon::prelude::*;

use prvscope_format::subset;
use prvscope_format::{RowMap, error};
use prvscope_store::NullPolicy;

use crate::source::{self, Compression, LoadProgress};
use crate::{Header, IssueKind, LoadError, LoadOptions, LoadReport, Subset, estimate, prv};

/// Where a body comes from.
#[derive(Clone, Copy)]
pub(crate) enum Input<'a> {
    /// The file at the path, of this size and compression.
    File {
        meta: &'a std::fs::Metadata,
        compression: Compression,
    },
    /// Bytes in memory (plain, or compressed: decoded as a file is).
    Memory(&'a [u8]),
}

/// Receives a body's chunks.
pub(crate) trait ChunkSink {
    /// The header, before any chunk.
    fn begin(&mut self, path: &Path, header: &Header, rows: &RowMap) -> Result<(), LoadError>;

    /// The next chunks, in file order (line numbers local to each chunk).
    fn group(&mut self, path: &Path, chunks: Vec<prv::ChunkOut>) -> Result<(), LoadError>;
}

/// How much text a group of chunks holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grouping {
    /// At most this much text (none: the whole body).
    pub(crate) at_most: Option<u64>,
    /// The memory a group may take (none: no bound).
    pub(crate) budget: Option<u64>,
    /// Whether the trace's pages are let go of once parsed (a trace larger than the memory
    /// a group may take would crowd out of the page cache the pages still needed).
    pub(crate) drop_read_pages: bool,
}

impl Grouping {
    /// The whole body in one group.
    pub(crate) const WHOLE: Grouping = Grouping {
        at_most: None,
        budget: None,
        drop_read_pages: false,
    };

    /// Text bytes per group for a trace of `rows` threads (`u64::MAX`: one group).
    fn bytes(self, rows: usize) -> u64 {
        let fits = self
            .budget
            .map_or(u64::MAX, |b| estimate::batch_that_fits(b, rows as u64));
        self.at_most.map_or(fits, |b| b.min(fits)).max(1)
    }
}

/// What reading a body found besides its chunks.
pub(crate) struct Read {
    pub(crate) header: Header,
    /// Text bytes (header included).
    pub(crate) bytes: u64,
    /// Where the body starts in the text (the byte after the header's line).
    pub(crate) body_start: u64,
    /// The problems of the input itself: a corrupt stream, a file that changed while read.
    pub(crate) report: LoadReport,
}

/// Parses the body of the trace at `path` from `input` into `sink`, a group at a time.
pub(crate) fn read_body(
    path: &Path,
    input: Input<'_>,
    policy: NullPolicy,
    options: &LoadOptions,
    grouping: Grouping,
    progress: &Arc<LoadProgress>,
    sink: &mut impl ChunkSink,
) -> Result<Read, LoadError> {
    let io_err = crate::io_error(path);
    let parse = Parse {
        path,
        policy,
        options,
        grouping,
        progress,
    };
    match input {
        Input::File {
            meta,
            compression: Compression::None,
        } => {
            let plain =
                source::PlainFile::new(std::fs::File::open(path).map_err(io_err)?, meta.len());
            let mut read = parse.plain(&plain, sink)?;
            progress.bytes_done.store(meta.len(), Ordering::Relaxed);
            note_changed_file(path, &plain, meta, &mut read.report);
            Ok(read)
        }
        Input::File { compression, .. } => {
            let decoder = source::spawn_decoder(
                std::fs::File::open(path).map_err(io_err)?,
                compression,
                Arc::clone(progress),
                options.stream_block_bytes,
            );
            parse.stream(decoder, compression, sink)
        }
        Input::Memory(bytes) => match Compression::sniff(bytes) {
            Compression::None => parse.memory(bytes, sink),
            compression => {
                let decoder = source::spawn_decoder(
                    std::io::Cursor::new(bytes.to_vec()),
                    compression,
                    Arc::clone(progress),
                    options.stream_block_bytes,
                );
                parse.stream(decoder, compression, sink)
            }
        },
    }
}

/// One body's parse: what every input needs.
struct Parse<'a> {
    path: &'a Path,
    policy: NullPolicy,
    options: &'a LoadOptions,
    grouping: Grouping,
    progress: &'a Arc<LoadProgress>,
}

impl Parse<'_> {
    /// The header's rows, told to the sink.
    fn begin(&self, header: &Header, sink: &mut impl ChunkSink) -> Result<RowMap, LoadError> {
        let rows = RowMap::new(header);
        sink.begin(self.path, header, &rows)?;
        Ok(rows)
    }

    /// The parser's context over `rows`: the part to load and the scanner's backend.
    fn context<'r>(&self, rows: &'r RowMap) -> Result<prv::ParseContext<'r>, LoadError>
    where
        Self: 'r,
    {
        let mut ctx = prv::ParseContext::new(rows, self.policy.sentinel, self.path);
        ctx.filter = subset_filter(self.path, &self.options.subset, rows)?;
        ctx.scan = self.options.scan.resolve();
        Ok(ctx)
    }

    fn cancelled(&self) -> LoadError {
        LoadError::Cancelled {
            path: self.path.to_path_buf(),
        }
    }

    /// A plain file: chunks read by the workers that parse them.
    fn plain(
        &self,
        file: &source::PlainFile,
        sink: &mut impl ChunkSink,
    ) -> Result<Read, LoadError> {
        let io_err = crate::io_error(self.path);
        let (first_line, body_start) = file.read_first_line().map_err(io_err)?;
        let (header, _) = crate::split_header(self.path, &first_line)?;
        let rows = self.begin(&header, sink)?;
        let ctx = self.context(&rows)?;
        let body_len = file.len().saturating_sub(body_start);
        let group = self.grouping.bytes(rows.rows());
        let workers = rayon::current_num_threads().max(1) as u64;
        let chunk = chunk_size(body_len, rows.rows(), self.options)
            .min(group.div_ceil(workers))
            .max(1);
        let per_group = usize::try_from(group.div_ceil(chunk))
            .unwrap_or(usize::MAX)
            .max(1);
        let starts: Vec<u64> = (0..body_len.div_ceil(chunk))
            .map(|i| body_start + i * chunk)
            .collect();
        let groups: Vec<&[u64]> = starts.chunks(per_group).collect();
        let last = groups.len().saturating_sub(1);
        for (k, starts) in groups.into_iter().enumerate() {
            let Some(mut chunks) = crate::plain::parse_chunks(
                file,
                &ctx,
                body_start,
                starts,
                chunk,
                self.options,
                self.progress,
            )
            .map_err(io_err)?
            else {
                return Err(self.cancelled());
            };
            if k == last {
                let end = file.shrunk_to().unwrap_or(file.len());
                let unterminated =
                    end > body_start && last_byte(file, end).map_err(io_err)? != Some(b'\n');
                note_unterminated_last_line(unterminated, &mut chunks);
            }
            sink.group(self.path, chunks)?;
            if let (true, Some(&from), Some(&to)) =
                (self.grouping.drop_read_pages, starts.first(), starts.last())
            {
                file.will_not_read_again(from, to.saturating_add(chunk));
            }
        }
        Ok(Read {
            header,
            bytes: file.shrunk_to().unwrap_or(file.len()),
            body_start,
            report: LoadReport::default(),
        })
    }

    /// Text in memory: chunks split at newlines.
    fn memory(&self, bytes: &[u8], sink: &mut impl ChunkSink) -> Result<Read, LoadError> {
        let (header, body) = crate::split_header(self.path, bytes)?;
        let rows = self.begin(&header, sink)?;
        let ctx = self.context(&rows)?;
        let group = self.grouping.bytes(rows.rows());
        let chunk = chunk_size(body.len() as u64, rows.rows(), self.options)
            .min(group)
            .max(1);
        let ranges = prv::split_chunks(body, usize::try_from(chunk).unwrap_or(usize::MAX));
        let per_group = usize::try_from(group.div_ceil(chunk))
            .unwrap_or(usize::MAX)
            .max(1);
        let groups: Vec<_> = ranges.chunks(per_group).collect();
        let last = groups.len().saturating_sub(1);
        for (k, ranges) in groups.into_iter().enumerate() {
            let unclaimed = prv::Unclaimed::new(ranges.len());
            let mut chunks: Vec<prv::ChunkOut> = ranges
                .par_iter()
                .map(|r| {
                    if self.progress.is_cancelled() {
                        return prv::ChunkOut::default();
                    }
                    let out =
                        prv::parse_chunk(&ctx, body.get(r.clone()).unwrap_or(&[]), &unclaimed);
                    self.progress
                        .bytes_done
                        .fetch_add(r.len() as u64, Ordering::Relaxed);
                    out
                })
                .collect();
            if self.progress.is_cancelled() {
                return Err(self.cancelled());
            }
            if k == last {
                let unterminated = !body.is_empty() && !body.ends_with(b"\n");
                note_unterminated_last_line(unterminated, &mut chunks);
            }
            sink.group(self.path, chunks)?;
        }
        Ok(Read {
            header,
            bytes: bytes.len() as u64,
            body_start: (bytes.len() - body.len()) as u64,
            report: LoadReport::default(),
        })
    }

    /// A compressed trace: its decoded blocks parsed by the workers while the decoder thread
    /// goes on.
    fn stream(
        &self,
        decoder: source::Decoder,
        compression: Compression,
        sink: &mut impl ChunkSink,
    ) -> Result<Read, LoadError> {
        let source::Decoder {
            blocks: rx,
            recycle,
        } = decoder;
        let first = first_block(self.path, &rx, compression, self.progress)?;
        let (header, first_body) = crate::split_header(self.path, &first)?;
        let body_start = (first.len() - first_body.len()) as u64;
        let rows = self.begin(&header, sink)?;
        let ctx = self.context(&rows)?;
        let group = self.grouping.bytes(rows.rows());
        let unclaimed = prv::Unclaimed::unknown();
        let mut pending = vec![prv::parse_chunk(&ctx, first_body, &unclaimed)];
        let mut blocks = Blocks {
            rx,
            size: first.len() as u64,
            bytes: first.len() as u64,
            unterminated: !first_body.is_empty() && !first_body.ends_with(b"\n"),
            error: None,
            done: false,
        };
        while !blocks.done {
            // The blocks of this group, pulled by the workers one at a time.
            let mut parsed: Vec<(usize, prv::ChunkOut)> =
                std::iter::from_fn(|| blocks.next_of(group))
                    .par_bridge()
                    .map(|b| {
                        let out = prv::parse_chunk(&ctx, b.text(), &unclaimed);
                        let _ = recycle.send(b.bytes);
                        (b.seq, out)
                    })
                    .collect();
            if self.progress.is_cancelled() {
                return Err(self.cancelled());
            }
            parsed.sort_by_key(|(seq, _)| *seq);
            pending.extend(parsed.into_iter().map(|(_, c)| c));
            if blocks.done {
                note_unterminated_last_line(blocks.unterminated, &mut pending);
                sink.group(self.path, std::mem::take(&mut pending))?;
            } else {
                // The group's last chunk waits for the next group: when the stream ends
                // there, its last line can still be found cut short.
                let last = pending.pop();
                if !pending.is_empty() {
                    sink.group(self.path, std::mem::take(&mut pending))?;
                }
                pending.extend(last);
            }
            blocks.size = 0;
        }
        let Blocks {
            bytes,
            error: stream_error,
            ..
        } = blocks;
        let mut report = LoadReport::default();
        if let Some((decoded, message)) = stream_error {
            report.push(error::issue(
                IssueKind::CorruptStream,
                self.path,
                0,
                0,
                format!(
                    "the {} stream is truncated or corrupt after {decoded} decoded bytes ({message}); the records before it were kept",
                    compression.name()
                ),
            ));
        }
        Ok(Read {
            header,
            bytes,
            body_start,
            report,
        })
    }
}

/// A compressed trace's decoded blocks, counted as they are taken.
struct Blocks {
    rx: std::sync::mpsc::Receiver<source::StreamItem>,
    /// Text bytes of the group so far.
    size: u64,
    /// Text bytes so far.
    bytes: u64,
    /// Does the last block so far end inside a line?
    unterminated: bool,
    /// Where and why the stream ended early.
    error: Option<(u64, String)>,
    /// The stream has ended.
    done: bool,
}

impl Blocks {
    /// The next block, while the group holds fewer than `group` bytes.
    fn next_of(&mut self, group: u64) -> Option<source::Block> {
        while self.size < group {
            match self.rx.recv() {
                Ok(source::StreamItem::Block(b)) => {
                    self.size += b.len as u64;
                    self.bytes += b.len as u64;
                    self.unterminated = !b.text().ends_with(b"\n");
                    return Some(b);
                }
                Ok(source::StreamItem::Error { decoded, message }) => {
                    self.error = Some((decoded, message));
                }
                Err(_) => {
                    self.done = true;
                    return None;
                }
            }
        }
        None
    }
}

/// The size of the chunks a body of `body` bytes and `rows` threads is parsed in.
///
/// Large chunks become large store segments, but every core needs several of them: a
/// quarter of a worker's share, from 1 to 32 MB. A chunk gives a piece per (thread, type) it
/// holds, and pieces shorter than [`MOVE_MIN`](prvscope_store::columns::MOVE_MIN) records
/// are copied at assembly, each with allocations that workers free across threads, so
/// traces of many threads get at least 128 kB of text per thread in a chunk, up to a
/// worker's share (one chunk per worker; a worker's scratch is a read window whatever the
/// chunk size). Measured on a generated 1 GB trace of 4096 threads on 2 cores: 128 MB
/// chunks loaded in 3.9-5.0 s with a peak of 800-834 MB (their assembly 1.2 s), 512 MB
/// chunks (one per worker) in 2.8-3.2 s and 730 MB (0.5 s); earlier, 64 MB chunks 4.8 s
/// and 917 MB, 32 MB chunks 6.0 s and 1.22 GB. `options.chunk_bytes` caps it.
pub(crate) fn chunk_size(body: u64, rows: usize, options: &LoadOptions) -> u64 {
    let workers = rayon::current_num_threads().max(1) as u64;
    let per_thread = (rows as u64).saturating_mul(128 << 10);
    (body / (4 * workers))
        .clamp(1 << 20, 32 << 20)
        .max(per_thread.min(body.div_ceil(workers)))
        .min(options.chunk_bytes.max(1) as u64)
}

/// The parser's filter for the part of the trace to load.
fn subset_filter(path: &Path, subset: &Subset, rows: &RowMap) -> Result<subset::Filter, LoadError> {
    subset.filter(rows).map_err(|message| LoadError::Subset {
        path: path.to_path_buf(),
        message,
    })
}

/// The byte before `end`.
fn last_byte(file: &source::PlainFile, end: u64) -> std::io::Result<Option<u8>> {
    let mut byte = [0u8];
    let got = file.read_at(end.saturating_sub(1), &mut byte)?;
    Ok((got == 1).then_some(byte[0]))
}

/// A last line without newline that failed to parse was most likely cut short: its issue is
/// filed as a truncated line (once, not also as a malformed record).
fn note_unterminated_last_line(unterminated: bool, chunks: &mut [prv::ChunkOut]) {
    if !unterminated {
        return;
    }
    if let Some(last) = chunks.iter_mut().rev().find(|c| c.lines > 0) {
        let line = last.lines;
        last.report.reclassify(
            line,
            IssueKind::MalformedRecord,
            IssueKind::TruncatedLine,
            "the text ends in the middle of this line (no newline); it was skipped",
        );
    }
}

/// Reports a file that changed while it was read: shorter than when the load started (reads
/// found its end early), or of another size or modification time once the load finished.
fn note_changed_file(
    path: &Path,
    file: &source::PlainFile,
    before: &std::fs::Metadata,
    report: &mut LoadReport,
) {
    let now = std::fs::metadata(path).ok();
    let message = if let Some(end) = file.shrunk_to() {
        format!(
            "the file shrank from {} to {end} bytes while it was read (another program truncated or rewrote it); the records after byte {end} are missing",
            file.len()
        )
    } else if let Some(now) =
        now.filter(|now| now.len() != before.len() || now.modified().ok() != before.modified().ok())
    {
        format!(
            "the file changed while it was read ({} bytes before, {} after); the records read may mix both versions: open it again once it is finished",
            before.len(),
            now.len()
        )
    } else {
        return;
    };
    report.push(error::issue(IssueKind::FileChanged, path, 0, 0, message));
}

/// The first decoded block of a compressed trace (it carries the header).
fn first_block(
    path: &Path,
    rx: &std::sync::mpsc::Receiver<source::StreamItem>,
    compression: Compression,
    progress: &LoadProgress,
) -> Result<Vec<u8>, LoadError> {
    Ok(match rx.recv() {
        Ok(source::StreamItem::Block(b)) => {
            let mut bytes = b.bytes;
            bytes.truncate(b.len);
            bytes
        }
        Ok(source::StreamItem::Error { decoded, message }) => {
            if progress.is_cancelled() {
                return Err(LoadError::Cancelled {
                    path: path.to_path_buf(),
                });
            }
            return Err(LoadError::Header {
                path: path.to_path_buf(),
                line: 1,
                column: 1,
                message: format!(
                    "could not decode the {} stream (after {decoded} bytes): {message}",
                    compression.name()
                ),
            });
        }
        Err(_) => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_of_many_threads_are_parsed_in_larger_chunks() {
        let gb = 1u64 << 30;
        let workers = rayon::current_num_threads().max(1) as u64;
        let default = LoadOptions::default();
        assert!(chunk_size(gb, 64, &default) <= 32 << 20);
        assert!(chunk_size(gb, 64, &default) >= 1 << 20);
        assert_eq!(
            chunk_size(gb, 4096, &default),
            (512u64 << 20)
                .min(gb.div_ceil(workers))
                .max(chunk_size(gb, 64, &default))
        );
        // The cap wins, so tests can cut bodies into tiny chunks.
        let tiny = LoadOptions {
            chunk_bytes: 7,
            ..LoadOptions::default()
        };
        assert_eq!(chunk_size(gb, 4096, &tiny), 7);
    }

    #[test]
    fn a_whole_body_is_one_group_and_a_budget_bounds_a_group() {
        assert_eq!(Grouping::WHOLE.bytes(64), u64::MAX);
        let at_most = Grouping {
            at_most: Some(1000),
            ..Grouping::WHOLE
        };
        assert_eq!(at_most.bytes(64), 1000);
        let budget = Grouping {
            budget: Some(1 << 30),
            ..Grouping::WHOLE
        };
        assert_eq!(
            budget.bytes(64),
            estimate::batch_that_fits(1 << 30, 64).max(1)
        );
    }
}

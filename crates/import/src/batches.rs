//! A trace's body read a batch at a time: a batch is a stretch of the file (plain) or of its
//! decoded blocks (`.xz`, `.gz`) small enough to parse in memory; it is parsed in parallel,
//! assembled into per-thread columns, as a load does, and handed to a [`BatchSink`], then
//! dropped. The conversion into the store cache ([`crate::convert`]) writes the batches into
//! the cache file; a streamed export ([`read_in_batches`]) writes them out as they come, in
//! the memory of one batch whatever the trace's size.
//!
//! Within a batch, each thread's records are sorted by time and its messages by logical send
//! time, as in a loaded store. Paraver's traces are sorted by time, so a batch's records come
//! after those of the batches before; a trace that is not has its records out of order only
//! across the edges of batches (the conversion sorts those; an export keeps them where they
//! are).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use prvscope_format::RowMap;
use prvscope_store::columns::Buf;
use prvscope_store::{Comm, NullPolicy, ThreadData};

use crate::source::{Compression, LoadProgress};
use crate::{Header, LoadError, LoadOptions, LoadReport, Pcf, RowNames, driver, estimate, prv};

/// Receives a trace's batches, in file order.
pub trait BatchSink {
    /// Called once, before the first batch, with the trace's header and the value that
    /// stands for null.
    fn begin(&mut self, header: &Header, null: u64) -> std::io::Result<()> {
        let _ = (header, null);
        Ok(())
    }

    /// One batch: every thread's records of a stretch of the file (one entry per timeline
    /// row, empty for a thread without records there) and its messages.
    fn batch(&mut self, threads: Vec<ThreadData>, comms: Buf<Comm>) -> std::io::Result<()>;

    /// Whether the memory a batch used is given back to the system before the next
    /// (`malloc_trim`): worth it when memory is short, a cost when the next batch takes it
    /// again at once.
    fn trim_between_batches(&self) -> bool {
        true
    }
}

/// What reading the body in batches found besides the batches.
pub(crate) struct Parsed {
    pub(crate) header: Header,
    pub(crate) report: LoadReport,
    pub(crate) null_values: u64,
    /// Text bytes parsed.
    pub(crate) bytes: u64,
    /// The event types seen, for the check of the `.pcf`.
    pub(crate) event_types: Vec<u32>,
    /// The inverted pairs of event types (`TraceStore::inversions`).
    pub(crate) inversions: Vec<(u32, u32)>,
    /// What each piece of the text holds, when all of it was read.
    pub(crate) text_index: Option<Arc<prvscope_store::TextIndex>>,
}

/// Reads the body of the trace at `path` in batches of at most `batch_bytes` of text (and
/// at most what fits in half the memory available) into `sink`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse_in_batches<S: BatchSink>(
    path: &Path,
    meta: &std::fs::Metadata,
    compression: Compression,
    policy: NullPolicy,
    options: &LoadOptions,
    batch_bytes: Option<u64>,
    progress: &Arc<LoadProgress>,
    sink: &mut S,
) -> Result<Parsed, LoadError> {
    let budget = estimate::available_memory().unwrap_or(4 << 30) / 2;
    let mut batches = Batches {
        sink,
        sentinel: policy.sentinel,
        rows: 0,
        line: 2,
        report: LoadReport::default(),
        null_values: 0,
        communicator_lines: 0,
        bytes: 0,
        event_types: BTreeSet::new(),
        row_types: Vec::new(),
        last_begins: Vec::new(),
        order: prv::OrderJoin::new(0),
        text: Vec::new(),
    };
    let grouping = driver::Grouping {
        at_most: batch_bytes,
        budget: Some(budget),
        // A trace that fits stays in the page cache: the next command on it (the viewer
        // after an export) reads it from memory, not from the disk again.
        drop_read_pages: meta.len() > budget,
    };
    let read = driver::read_body(
        path,
        driver::Input::File { meta, compression },
        policy,
        options,
        grouping,
        progress,
        &mut batches,
    )?;
    let header = read.header;
    batches.report.merge(read.report);
    batches.bytes = read.bytes;
    let (_, mut inversions, backward) = batches.order.finish();
    crate::note_body_end(
        path,
        &header,
        (batches.communicator_lines, &backward),
        &mut batches.report,
    );
    let row_types = &batches.row_types;
    prv::add_backward_pairs(&mut inversions, &backward, |row| {
        row_types.get(row as usize).into_iter().flatten().copied()
    });
    let text_index = crate::text_index(read.body_start, &batches.text, read.bytes, options)
        .filter(|_| options.subset.is_whole());
    Ok(Parsed {
        header,
        report: batches.report,
        null_values: batches.null_values,
        bytes: batches.bytes,
        event_types: batches.event_types.into_iter().collect(),
        inversions,
        text_index,
    })
}

/// A whole trace read for a streamed export: its side files, and what the load would report.
pub struct Streamed {
    pub header: Header,
    pub pcf: Option<Pcf>,
    pub row: Option<RowNames>,
    /// What was skipped, with file and line, as a load reports it.
    pub report: LoadReport,
    pub null_policy: NullPolicy,
    pub compression: Compression,
    /// Text bytes parsed.
    pub bytes_decoded: u64,
}

/// Reads the whole trace at `path` (plain, `.xz` or `.gz`) and its side files, handing its
/// body to `sink` a batch at a time: batches of at most `batch_bytes` of text, and at most
/// what fits in half the memory available. The store cache is neither read nor written.
///
/// Each thread's CPU runs ([`ThreadData::cpus`]) are those a load of the whole trace gives
/// over the batch's times: the first starts at time 0, carrying the CPU of the thread's last
/// record in the batches before.
pub fn read_in_batches(
    path: &Path,
    options: &LoadOptions,
    batch_bytes: Option<u64>,
    progress: Option<Arc<LoadProgress>>,
    sink: &mut impl BatchSink,
) -> Result<Streamed, LoadError> {
    let progress = progress.unwrap_or_default();
    if !options.subset.is_whole() {
        return Err(LoadError::Subset {
            path: path.to_path_buf(),
            message: "a trace is read in batches whole; a part is loaded".into(),
        });
    }
    let (meta, compression) = crate::start::sniff(path)?;
    progress.bytes_total.store(meta.len(), Ordering::Relaxed);
    let (side, policy) = crate::start::read_sides(path, options);
    let mut carried = CarryCpus {
        sink,
        last: Vec::new(),
    };
    let parsed = parse_in_batches(
        path,
        &meta,
        compression,
        policy,
        options,
        batch_bytes,
        &progress,
        &mut carried,
    )?;
    let crate::SideFiles {
        pcf,
        row,
        mut report,
        ..
    } = side;
    report.merge(parsed.report);
    crate::check_side_files(
        path,
        &parsed.event_types,
        crate::RowMap::new(&parsed.header).rows(),
        pcf.as_ref(),
        row.as_ref(),
        &mut report,
    );
    report.sort_examples();
    Ok(Streamed {
        header: parsed.header,
        pcf,
        row,
        report,
        null_policy: policy,
        compression,
        bytes_decoded: parsed.bytes,
    })
}

/// Gives each batch's threads the CPU runs of a whole load (see [`read_in_batches`]).
struct CarryCpus<'s, S> {
    sink: &'s mut S,
    /// Per thread, the CPU of its last record so far.
    last: Vec<Option<u32>>,
}

impl<S: BatchSink> BatchSink for CarryCpus<'_, S> {
    fn batch(&mut self, mut threads: Vec<ThreadData>, comms: Buf<Comm>) -> std::io::Result<()> {
        self.last.resize(threads.len(), None);
        for (t, last) in threads.iter_mut().zip(&mut self.last) {
            match *last {
                Some(cpu) => {
                    t.cpus.insert(0, (0, cpu));
                    t.cpus.dedup_by_key(|c| c.1);
                }
                None => {
                    if let Some(first) = t.cpus.first_mut() {
                        first.0 = 0;
                    }
                }
            }
            if let Some(&(_, cpu)) = t.cpus.last() {
                *last = Some(cpu);
            }
        }
        self.sink.batch(threads, comms)
    }

    fn begin(&mut self, header: &Header, null: u64) -> std::io::Result<()> {
        self.sink.begin(header, null)
    }

    fn trim_between_batches(&self) -> bool {
        self.sink.trim_between_batches()
    }
}

/// The batches parsed so far, and what they reported.
struct Batches<'s, S> {
    sink: &'s mut S,
    sentinel: u64,
    rows: usize,
    /// The file line of the next batch's first line.
    line: u64,
    report: LoadReport,
    null_values: u64,
    communicator_lines: u64,
    /// Text bytes parsed.
    bytes: u64,
    event_types: BTreeSet<u32>,
    /// Per row, its event types so far (for a row that goes back in time).
    row_types: Vec<BTreeSet<u32>>,
    /// Per row, the latest begin of its states so far.
    last_begins: Vec<Option<u64>>,
    /// The order of events at one timestamp across batches.
    order: prv::OrderJoin,
    /// What each window of the text held, in order.
    text: Vec<prvscope_store::TextPiece>,
}

impl<S: BatchSink> driver::ChunkSink for Batches<'_, S> {
    /// Tells the sink the trace's header.
    fn begin(&mut self, path: &Path, header: &Header, rows: &RowMap) -> Result<(), LoadError> {
        self.rows = rows.rows();
        self.order = prv::OrderJoin::new(self.rows);
        self.sink
            .begin(header, self.sentinel)
            .map_err(crate::io_error(path))
    }

    fn group(&mut self, path: &Path, chunks: Vec<prv::ChunkOut>) -> Result<(), LoadError> {
        self.add(path, chunks)
    }
}

impl<S: BatchSink> Batches<'_, S> {
    /// Assembles a batch's chunks (in file order) and hands them to the sink.
    fn add(&mut self, path: &Path, mut chunks: Vec<prv::ChunkOut>) -> Result<(), LoadError> {
        for c in &mut chunks {
            self.text.append(&mut c.text_pieces);
        }
        let lines: u64 = chunks.iter().map(|c| c.lines).sum();
        prv::release_scratch();
        let prv::Assembled {
            threads,
            comms,
            null_values,
            communicator_lines,
            report,
            inversions,
            order_edges,
            backward,
        } = prv::assemble_batch(chunks, self.rows, self.sentinel, self.line);
        self.order.add_inversions(inversions);
        self.order.push(order_edges);
        self.order.add_backward(backward);
        self.row_types.resize_with(threads.len(), BTreeSet::new);
        self.last_begins.resize(threads.len(), None);
        for (row, (types, t)) in self.row_types.iter_mut().zip(&threads).enumerate() {
            types.extend(t.events.iter().map(|c| c.ty));
            // A batch's states beginning before the last one of the batches before go back.
            let last = self.last_begins.get_mut(row);
            if let (Some(last), Some(first)) = (last, t.states.begin.first()) {
                if let Some(after) = *last
                    && first < after
                {
                    self.order.add_backward([prv::Backward {
                        row: row as u32,
                        time: first,
                        after,
                        state: true,
                    }]);
                }
                *last = (*last).max(t.states.begin.last());
            }
        }
        self.line += lines;
        self.report.merge(report);
        self.null_values += null_values;
        self.communicator_lines += communicator_lines;
        self.event_types
            .extend(threads.iter().flat_map(|t| t.events.iter().map(|c| c.ty)));
        self.sink
            .batch(threads, comms)
            .map_err(crate::io_error(path))?;
        if self.sink.trim_between_batches() {
            crate::release_free_memory();
        }
        Ok(())
    }
}

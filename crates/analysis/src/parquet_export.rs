//! A loaded trace as Parquet tables, for `DuckDB`, Polars, `DataFusion` or Spark.
//!
//! `DIR/states/`, `DIR/events/`, `DIR/comms/`, `DIR/objects/`, `DIR/labels/` and `DIR/trace/`
//! (its duration and time unit) each hold one or more `part-NNNNN.parquet` files (data pages
//! v2; times and event values delta-packed, other columns under Snappy). States and events
//! are cut into row groups by time: the trace's duration is split into slices of about
//! [`ParquetOptions::rows_per_group`] records each, and a slice's records (ordered by thread,
//! then event type, then time) make one row group, so that a query on a time range reads only
//! the row groups whose `time`/`begin` statistics overlap it. Files hold
//! [`ParquetOptions::groups_per_file`] row groups and are written in parallel; messages are
//! in logical send order. Memory stays at a row group per worker whatever the trace.
//!
//! Values are unsigned 64-bit (`UBIGINT` in `DuckDB`) as written in the trace; the null value
//! (`N`, the `.pcf`'s `NULL_VALUE` sentinel) is SQL `NULL`; 0 stays 0. Objects are numbered
//! as Paraver does (application, task, thread from 1); `row` is the 0-based timeline row.

// Parquet has no unsigned physical types: u64 values are written as their bit pattern under
// an unsigned logical type (readers give them back unsigned), and object numbers and CPUs as
// INT32 (headers cap threads at 2^24; CPUs are numbered from 1).
#![allow(clippy::cast_possible_wrap)]

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::{Compression, Encoding};
use parquet::data_type::{ByteArray, ByteArrayType, Int32Type, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use parquet::schema::types::Type;
use rayon::prelude::*;

use prvscope_format::{Header, Pcf};
use prvscope_store::{Comm, ThreadData, Trace};

/// How the tables are cut.
#[derive(Debug, Clone, Copy)]
pub struct ParquetOptions {
    /// About this many records per row group (states and events).
    pub rows_per_group: u64,
    /// Row groups per file.
    pub groups_per_file: usize,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            rows_per_group: 1 << 20,
            groups_per_file: 4,
        }
    }
}

/// What was written: per table, its rows and files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exported {
    pub tables: Vec<(&'static str, u64, usize)>,
}

const STATES: &str = "message states {
  required int32 appl; required int32 task; required int32 thread; required int32 cpu;
  required int64 begin (INTEGER(64,false)); required int64 end (INTEGER(64,false));
  optional int64 state (INTEGER(64,false));
}";
const EVENTS: &str = "message events {
  required int32 appl; required int32 task; required int32 thread; required int32 cpu;
  required int64 time (INTEGER(64,false)); required int64 type (INTEGER(64,false));
  optional int64 value (INTEGER(64,false));
}";
const COMMS: &str = "message comms {
  required int32 send_appl; required int32 send_task; required int32 send_thread;
  required int32 send_cpu;
  required int32 recv_appl; required int32 recv_task; required int32 recv_thread;
  required int32 recv_cpu;
  required int64 logical_send (INTEGER(64,false)); required int64 physical_send (INTEGER(64,false));
  required int64 logical_recv (INTEGER(64,false)); required int64 physical_recv (INTEGER(64,false));
  required int64 size (INTEGER(64,false)); required int64 tag (INTEGER(64,false));
}";
const OBJECTS: &str = "message objects {
  required int32 row; required int32 appl; required int32 task; required int32 thread;
  required binary name (STRING); required boolean loaded;
}";
const TRACE: &str = "message trace {
  required binary name (STRING); required int64 end_time (INTEGER(64,false));
  required binary time_unit (STRING); required int32 threads;
}";
const LABELS: &str = "message labels {
  required binary kind (STRING); optional int64 type (INTEGER(64,false));
  optional int64 value (INTEGER(64,false)); required binary label (STRING);
}";

/// The columns written delta-packed: the times of every table, and event values (the
/// `labels` table's `value` column too: a column is named by its path in its table).
const DELTA_COLUMNS: &[&str] = &[
    "begin",
    "end",
    "time",
    "logical_send",
    "physical_send",
    "logical_recv",
    "physical_recv",
    "value",
];

/// Columns of long runs of one value (the objects and CPUs, in thread order; event types,
/// in type order within a thread): written plain and left to Snappy, which shrinks a run to a
/// few bytes. A dictionary would hash every value and delta encoding pack every zero (half
/// of the export's time, either way); the files are 15% larger for it.
const RUN_COLUMNS: &[&str] = &[
    "appl",
    "task",
    "thread",
    "cpu",
    "type",
    "send_appl",
    "send_task",
    "send_thread",
    "send_cpu",
    "recv_appl",
    "recv_task",
    "recv_thread",
    "recv_cpu",
];

/// One column of a row group.
enum Col {
    I32(Vec<i32>),
    U64(Vec<u64>),
    /// An optional field: the null sentinel is written as null.
    Opt(Vec<u64>),
    Bool(Vec<bool>),
    Text(Vec<String>),
}

/// A row group's columns, in schema order.
type Group = Vec<Col>;

fn io_err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// Writes `groups` (produced one at a time by `next`, `None` when done) to `path`.
fn write_file(
    path: &Path,
    schema: &Arc<Type>,
    null: u64,
    mut next: impl FnMut() -> Option<Group>,
) -> io::Result<u64> {
    // Data pages v2: Snappy compresses a page's values where they are, where a v1 page copies
    // them behind its levels first (the export took 2.0 s instead of 2.3 s with the events'
    // values delta-packed; DuckDB, Polars, DataFusion and Spark 3.3 or later read them).
    let mut props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_compression(Compression::SNAPPY);
    // Times are mostly distinct: a dictionary would be built and dropped for every page (a
    // third of the export's time); they are delta-encoded instead (sorted per thread), and
    // not compressed again (Snappy finds little left in packed deltas). So are event values:
    // each row group's dictionary filled up with a counter's values before it gave up (the
    // export took 2.3 s instead of 2.7 s without it, and its events 178 MB instead of 230).
    for column in DELTA_COLUMNS {
        let path = ColumnPath::from(*column);
        props = props
            .set_column_dictionary_enabled(path.clone(), false)
            .set_column_encoding(path.clone(), Encoding::DELTA_BINARY_PACKED)
            .set_column_compression(path, Compression::UNCOMPRESSED);
    }
    // Their statistics are left out too: every row group holds every thread and type, so
    // none could be skipped for them (their min/max took 2% of the export's time).
    for run in RUN_COLUMNS {
        let path = ColumnPath::from(*run);
        props = props
            .set_column_dictionary_enabled(path.clone(), false)
            .set_column_encoding(path.clone(), Encoding::PLAIN)
            .set_column_statistics_enabled(path, EnabledStatistics::None);
    }
    let props = Arc::new(props.build());
    let file = File::create(path)?;
    let mut w = SerializedFileWriter::new(file, Arc::clone(schema), props).map_err(io_err)?;
    let mut rows = 0u64;
    while let Some(group) = next() {
        let n = match group.first() {
            Some(Col::I32(v)) => v.len(),
            Some(Col::U64(v) | Col::Opt(v)) => v.len(),
            Some(Col::Bool(v)) => v.len(),
            Some(Col::Text(v)) => v.len(),
            None => 0,
        };
        if n == 0 {
            continue;
        }
        rows += n as u64;
        let mut rg = w.next_row_group().map_err(io_err)?;
        let mut cols = group.into_iter();
        while let Some(mut cw) = rg.next_column().map_err(io_err)? {
            match cols.next() {
                Some(Col::I32(v)) => cw.typed::<Int32Type>().write_batch(&v, None, None),
                Some(Col::Opt(v)) => {
                    let mut def = Vec::with_capacity(v.len());
                    let mut present = Vec::with_capacity(v.len());
                    for &x in &v {
                        def.push(i16::from(x != null));
                        if x != null {
                            present.push(x as i64);
                        }
                    }
                    cw.typed::<Int64Type>()
                        .write_batch(&present, Some(&def), None)
                }
                Some(Col::U64(v)) => {
                    cw.typed::<Int64Type>()
                        .write_batch(bytemuck::cast_slice(&v), None, None)
                }
                Some(Col::Bool(v)) => cw
                    .typed::<parquet::data_type::BoolType>()
                    .write_batch(&v, None, None),
                Some(Col::Text(v)) => {
                    let bytes: Vec<ByteArray> =
                        v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                    cw.typed::<ByteArrayType>().write_batch(&bytes, None, None)
                }
                None => Err(parquet::errors::ParquetError::General(
                    "fewer columns than the schema".into(),
                )),
            }
            .map_err(io_err)?;
            cw.close().map_err(io_err)?;
        }
        rg.close().map_err(io_err)?;
    }
    w.close().map_err(io_err)?;
    Ok(rows)
}

/// (appl, task, thread), 1-based, of every row.
fn objects(header: &Header) -> Vec<(i32, i32, i32)> {
    let mut out = Vec::with_capacity(header.thread_count());
    for (a, app) in header.applications.iter().enumerate() {
        for (t, task) in app.tasks.iter().enumerate() {
            for h in 0..task.threads {
                out.push((a as i32 + 1, t as i32 + 1, h as i32 + 1));
            }
        }
    }
    out
}

/// The CPU a thread's records name at `time`.
fn cpu_at(cpus: &[(u64, u32)], time: u64) -> i32 {
    let k = cpus.partition_point(|&(t, _)| t <= time);
    k.checked_sub(1)
        .and_then(|k| cpus.get(k))
        .map_or(0, |&(_, c)| c as i32)
}

/// The time slices of a table of `records` records whose times are in `[lo, hi]`: `n`
/// slices of equal span that together cover every time (the first from 0, the last to the
/// end of time).
fn slices(records: u64, (lo, hi): (u64, u64), per_group: u64) -> Vec<(u64, u64)> {
    let n = records.div_ceil(per_group.max(1)).max(1);
    let span = u128::from(hi.saturating_sub(lo)) + 1;
    let at = |k: u64| lo + (span * u128::from(k) / u128::from(n)) as u64;
    (0..n)
        .map(|k| {
            let t0 = if k == 0 { 0 } else { at(k) };
            let t1 = if k + 1 == n { u64::MAX } else { at(k + 1) };
            (t0, t1)
        })
        .collect()
}

/// The first and last times of columns (`None` when all are empty).
fn span<'a>(columns: impl Iterator<Item = &'a prvscope_store::TimeColumn>) -> Option<(u64, u64)> {
    columns
        .filter_map(|c| Some((c.first()?, c.last()?)))
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
}

/// Appends records `from..to` of a column, decoded by `read` (block by block).
fn decode(read: impl Fn(usize, &mut [u64]) -> usize, from: usize, to: usize, out: &mut Vec<u64>) {
    let start = out.len();
    out.resize(start + (to - from), 0);
    let mut done = 0;
    while from + done < to {
        let got = read(from + done, out.get_mut(start + done..).unwrap_or_default());
        if got == 0 {
            break;
        }
        done += got;
    }
    out.truncate(start + done);
}

/// The object and CPU columns of a table's rows.
#[derive(Default)]
struct Owners {
    appl: Vec<i32>,
    task: Vec<i32>,
    thread: Vec<i32>,
    cpu: Vec<i32>,
}

impl Owners {
    fn with_capacity(n: usize) -> Owners {
        Owners {
            appl: Vec::with_capacity(n),
            task: Vec::with_capacity(n),
            thread: Vec::with_capacity(n),
            cpu: Vec::with_capacity(n),
        }
    }

    /// Rows of `object` at `times`, on the CPU its records name then (a thread rarely
    /// migrates: one lookup then).
    fn extend(&mut self, object: (i32, i32, i32), cpus: &[(u64, u32)], times: &[u64]) {
        let n = times.len();
        self.appl.extend(std::iter::repeat_n(object.0, n));
        self.task.extend(std::iter::repeat_n(object.1, n));
        self.thread.extend(std::iter::repeat_n(object.2, n));
        if cpus.len() <= 1 {
            let only = cpus.first().map_or(0, |&(_, cpu)| cpu as i32);
            self.cpu.extend(std::iter::repeat_n(only, n));
        } else {
            self.cpu.extend(times.iter().map(|&at| cpu_at(cpus, at)));
        }
    }

    fn columns(self) -> Group {
        vec![
            Col::I32(self.appl),
            Col::I32(self.task),
            Col::I32(self.thread),
            Col::I32(self.cpu),
        ]
    }
}

/// Records of a trace, or of a part of it, with what a row group lets go of once read.
#[derive(Clone, Copy)]
struct Records<'a> {
    threads: &'a [ThreadData],
    objs: &'a [(i32, i32, i32)],
    release: &'a (dyn Fn() + Sync),
}

/// States that begin in `[t0, t1)`, by thread.
fn states_group(r: Records<'_>, (t0, t1): (u64, u64)) -> Group {
    let objs = r.objs;
    // Sized first: grown as they fill, the columns were copied again and again.
    let ranges: Vec<(usize, usize)> = r
        .threads
        .iter()
        .map(|t| {
            (
                t.states.begin.lower_bound(t0),
                t.states.begin.lower_bound(t1),
            )
        })
        .collect();
    let n = ranges.iter().map(|&(from, to)| to - from).sum();
    let mut owners = Owners::with_capacity(n);
    let [mut begin, mut end, mut value] = [(); 3].map(|()| Vec::with_capacity(n));
    for ((row, thread), &(from, to)) in r.threads.iter().enumerate().zip(&ranges) {
        let states = &thread.states;
        let at = begin.len();
        decode(|i, out| states.begin.read(i, out), from, to, &mut begin);
        decode(|i, out| states.end.read(i, out), from, to, &mut end);
        decode(|i, out| states.value.read(i, out), from, to, &mut value);
        let object = objs.get(row).copied().unwrap_or_default();
        owners.extend(object, &thread.cpus, begin.get(at..).unwrap_or_default());
    }
    // What this group read of a mapped store is not needed again (see
    // `TraceStore::release_mapped_pages`).
    (r.release)();
    let mut group = owners.columns();
    group.extend([Col::U64(begin), Col::U64(end), Col::Opt(value)]);
    group
}

/// Events in `[t0, t1)`, by thread and type.
fn events_group(r: Records<'_>, (t0, t1): (u64, u64)) -> Group {
    let objs = r.objs;
    let n = r
        .threads
        .iter()
        .flat_map(|t| &t.events)
        .map(|c| c.in_window(t0, t1).len())
        .sum();
    let mut owners = Owners::with_capacity(n);
    let [mut time, mut types, mut value] = [(); 3].map(|()| Vec::with_capacity(n));
    for (row, thread) in r.threads.iter().enumerate() {
        let object = objs.get(row).copied().unwrap_or_default();
        for col in &thread.events {
            let range = col.in_window(t0, t1);
            let at = time.len();
            let (from, to) = (range.start, range.end);
            decode(|i, out| col.time.read(i, out), from, to, &mut time);
            decode(|i, out| col.value.read(i, out), from, to, &mut value);
            let times = time.get(at..).unwrap_or_default();
            types.extend(std::iter::repeat_n(u64::from(col.ty), times.len()));
            owners.extend(object, &thread.cpus, times);
        }
    }
    // What this group read of a mapped store is not needed again (see
    // `TraceStore::release_mapped_pages`).
    (r.release)();
    let mut group = owners.columns();
    group.extend([Col::U64(time), Col::U64(types), Col::Opt(value)]);
    group
}

/// Writes the slices of one table into files of `groups_per_file` row groups, in parallel,
/// numbered from `first`; gives the rows and files written.
fn sliced_table(
    dir: &Path,
    schema: &str,
    null: u64,
    (slices, first): (&[(u64, u64)], usize),
    options: ParquetOptions,
    group: &(dyn Fn((u64, u64)) -> Group + Sync),
) -> io::Result<(u64, usize)> {
    let schema = Arc::new(parse_message_type(schema).map_err(io_err)?);
    let files: Vec<&[(u64, u64)]> = slices.chunks(options.groups_per_file.max(1)).collect();
    let rows: Vec<u64> = files
        .par_iter()
        .enumerate()
        .map(|(f, slices)| {
            let mut it = slices.iter();
            write_file(&part(dir, first + f), &schema, null, || {
                it.next().map(|&s| group(s))
            })
        })
        .collect::<io::Result<_>>()?;
    Ok((rows.iter().sum(), files.len()))
}

fn part(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("part-{k:05}.parquet"))
}

/// A folder for a table's files, without the files of an earlier export (they would be
/// read with these).
fn table_dir(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for e in std::fs::read_dir(dir)?.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "parquet") {
            std::fs::remove_file(&p)?;
        }
    }
    Ok(())
}

/// The three tables of records (`states`, `events`, `comms`).
const RECORD_TABLES: [&str; 3] = ["states", "events", "comms"];

/// The tables of a trace being written: its records come a part at a time
/// ([`Tables::records`]: the whole store, or the batches of a trace read in batches), each
/// part's row groups in files of their own; the small tables come last ([`Tables::finish`]).
pub struct Tables {
    dir: PathBuf,
    options: ParquetOptions,
    null: u64,
    objs: Vec<(i32, i32, i32)>,
    /// Per record table: rows and files written so far.
    written: [(u64, usize); 3],
}

/// What the small tables say of the trace.
pub struct About<'a> {
    pub path: &'a Path,
    pub header: &'a Header,
    pub pcf: Option<&'a Pcf>,
    /// Per timeline row: its name, and whether its records were loaded.
    pub rows: Vec<(String, bool)>,
}

impl Tables {
    /// Starts the tables of a trace of header `header` under `dir` (earlier Parquet files of
    /// the record tables there are removed); `null` is the value written as SQL `NULL`.
    pub fn create(
        dir: &Path,
        header: &Header,
        null: u64,
        options: ParquetOptions,
    ) -> io::Result<Tables> {
        for table in RECORD_TABLES {
            table_dir(&dir.join(table))?;
        }
        Ok(Tables {
            dir: dir.to_path_buf(),
            options,
            null,
            objs: objects(header),
            written: [(0, 0); 3],
        })
    }

    /// Writes records: `threads` (one per timeline row) and `comms` (in logical send order).
    /// `release` is called after each row group is read (a mapped store lets go of its
    /// pages there).
    pub fn records(
        &mut self,
        threads: &[ThreadData],
        comms: &[Comm],
        release: &(dyn Fn() + Sync),
    ) -> io::Result<()> {
        let (null, options, objs) = (self.null, self.options, self.objs.as_slice());
        let r = Records {
            threads,
            objs,
            release,
        };
        let states_span = span(threads.iter().map(|t| &t.states.begin));
        let events_span = span(
            threads
                .iter()
                .flat_map(|t| t.events.iter().map(|c| &c.time)),
        );
        let count_states: u64 = threads.iter().map(|t| t.states.begin.len() as u64).sum();
        let count_events: u64 = threads
            .iter()
            .flat_map(|t| &t.events)
            .map(|c| c.time.len() as u64)
            .sum();
        let state_slices = states_span.map_or_else(Vec::new, |s| {
            slices(count_states, s, options.rows_per_group)
        });
        let event_slices = events_span.map_or_else(Vec::new, |s| {
            slices(count_events, s, options.rows_per_group)
        });
        let per = usize::try_from(options.rows_per_group)
            .unwrap_or(usize::MAX)
            .max(1);
        let chunks: Vec<(u64, u64)> = (0..comms.len().div_ceil(per))
            .map(|k| ((k * per) as u64, ((k + 1) * per).min(comms.len()) as u64))
            .collect();
        let obj = |row: u32| objs.get(row as usize).copied().unwrap_or((0, 0, 0));
        let comms_group = |(from, to): (u64, u64)| {
            let part = comms.get(from as usize..to as usize).unwrap_or_default();
            let i32s = |f: &dyn Fn(&Comm) -> i32| Col::I32(part.iter().map(f).collect());
            let u64s = |f: &dyn Fn(&Comm) -> u64| Col::U64(part.iter().map(f).collect());
            let group = vec![
                i32s(&|c| obj(c.send_row).0),
                i32s(&|c| obj(c.send_row).1),
                i32s(&|c| obj(c.send_row).2),
                i32s(&|c| c.send_cpu as i32),
                i32s(&|c| obj(c.recv_row).0),
                i32s(&|c| obj(c.recv_row).1),
                i32s(&|c| obj(c.recv_row).2),
                i32s(&|c| c.recv_cpu as i32),
                u64s(&|c| c.lsend),
                u64s(&|c| c.psend),
                u64s(&|c| c.lrecv),
                u64s(&|c| c.precv),
                u64s(&|c| c.size),
                u64s(&|c| c.tag),
            ];
            release();
            group
        };
        let [dir_s, dir_e, dir_c] = RECORD_TABLES.map(|t| self.dir.join(t));
        let [(_, first_s), (_, first_e), (_, first_c)] = self.written;
        // The three tables are written at once (their files in parallel too).
        let (states, (events, comms)) = rayon::join(
            || {
                sliced_table(
                    &dir_s,
                    STATES,
                    null,
                    (&state_slices, first_s),
                    options,
                    &|sl| states_group(r, sl),
                )
            },
            || {
                rayon::join(
                    || {
                        sliced_table(
                            &dir_e,
                            EVENTS,
                            null,
                            (&event_slices, first_e),
                            options,
                            &|sl| events_group(r, sl),
                        )
                    },
                    || {
                        sliced_table(
                            &dir_c,
                            COMMS,
                            null,
                            (&chunks, first_c),
                            options,
                            &comms_group,
                        )
                    },
                )
            },
        );
        for (slot, result) in self.written.iter_mut().zip([states, events, comms]) {
            let (rows, files) = result?;
            slot.0 += rows;
            slot.1 += files;
        }
        Ok(())
    }

    /// Writes the small tables (`objects`, `labels`, `trace`) and gives what was written.
    pub fn finish(self, about: &About<'_>) -> io::Result<Exported> {
        let (null, options, objs) = (self.null, self.options, &self.objs);
        let mut out = Exported::default();
        let schemas = [STATES, EVENTS, COMMS];
        for ((name, schema), (rows, mut files)) in
            RECORD_TABLES.into_iter().zip(schemas).zip(self.written)
        {
            if files == 0 {
                // A table without rows is still a file, with its columns: a query of
                // `DIR/comms/*.parquet` finds no messages rather than no files.
                let schema = Arc::new(parse_message_type(schema).map_err(io_err)?);
                write_file(&part(&self.dir.join(name), 0), &schema, null, || None)?;
                files = 1;
            }
            out.tables.push((name, rows, files));
        }
        let one = [(0, 0)];
        let small = |name: &'static str,
                     schema: &str,
                     group: &(dyn Fn((u64, u64)) -> Group + Sync),
                     out: &mut Exported|
         -> io::Result<()> {
            let dir = self.dir.join(name);
            table_dir(&dir)?;
            let (rows, files) = sliced_table(&dir, schema, null, (&one, 0), options, group)?;
            out.tables.push((name, rows, files));
            Ok(())
        };
        small(
            "objects",
            OBJECTS,
            &|_| {
                let rows = 0..objs.len();
                let name = |r: usize| about.rows.get(r).map(|x| x.0.clone()).unwrap_or_default();
                let loaded = |r: usize| about.rows.get(r).is_some_and(|x| x.1);
                vec![
                    Col::I32(rows.clone().map(|r| r as i32).collect()),
                    Col::I32(objs.iter().map(|o| o.0).collect()),
                    Col::I32(objs.iter().map(|o| o.1).collect()),
                    Col::I32(objs.iter().map(|o| o.2).collect()),
                    Col::Text(rows.clone().map(name).collect()),
                    Col::Bool(rows.map(loaded).collect()),
                ]
            },
            &mut out,
        )?;
        small(
            "labels",
            LABELS,
            &|_| {
                let (mut kind, mut ty, mut value, mut label) = (vec![], vec![], vec![], vec![]);
                if let Some(pcf) = about.pcf {
                    for (&v, name) in &pcf.states {
                        kind.push("state".to_owned());
                        ty.push(null);
                        value.push(v);
                        label.push(name.clone());
                    }
                    for (&t, info) in &pcf.event_types {
                        kind.push("event_type".to_owned());
                        ty.push(u64::from(t));
                        value.push(null);
                        label.push(info.label.clone());
                        for (&v, name) in &info.values {
                            kind.push("event_value".to_owned());
                            ty.push(u64::from(t));
                            value.push(v);
                            label.push(name.clone());
                        }
                    }
                }
                vec![
                    Col::Text(kind),
                    Col::Opt(ty),
                    Col::Opt(value),
                    Col::Text(label),
                ]
            },
            &mut out,
        )?;
        small(
            "trace",
            TRACE,
            &|_| {
                vec![
                    Col::Text(vec![about.path.display().to_string()]),
                    Col::U64(vec![about.header.end_time]),
                    Col::Text(vec![about.header.time_unit.as_str().to_owned()]),
                    Col::I32(vec![objs.len() as i32]),
                ]
            },
            &mut out,
        )?;
        Ok(out)
    }
}

/// Writes `trace` (what was loaded of it) as Parquet tables under `dir` (see the module
/// documentation).
pub fn export(trace: &Trace, dir: &Path, options: ParquetOptions) -> io::Result<Exported> {
    let store = &*trace.store;
    let mut tables = Tables::create(dir, &trace.header, store.null_policy().sentinel, options)?;
    tables.records(store.threads(), store.comms(), &|| {
        store.release_mapped_pages();
    })?;
    let rows = (0..store.thread_count())
        .map(|r| (trace.thread_name(r), store.is_row_loaded(r)))
        .collect();
    tables.finish(&About {
        path: &trace.path,
        header: &trace.header,
        pcf: trace.pcf.as_ref(),
        rows,
    })
}

//! `prvscope export`: the trace's records as Parquet tables.

use std::path::{Path, PathBuf};
use std::time::Instant;

use prvscope_analysis::parquet_export::{self, About, Exported, ParquetOptions, Tables};
use prvscope_import as trace;
use prvscope_store::columns::Buf;
use prvscope_store::{Comm, NullOverride, ThreadData};

use super::PartArgs;

/// Write the trace's records as Parquet tables (states, events, comms, objects, labels), one
/// folder each, for DuckDB, Polars, DataFusion or Spark.
///
/// A whole trace that is not in the store cache is read a batch at a time, each batch
/// written out as it is read: memory stays that of a batch, whatever the trace's size, and
/// no cache is written. A trace in the cache is exported from it; a part (--from, --to,
/// --threads) is loaded first.
#[derive(clap::Args)]
pub struct Args {
    /// The trace: x.prv, x.prv.xz or x.prv.gz.
    pub trace: PathBuf,
    /// The folder to write the tables to (earlier Parquet files there are replaced).
    #[arg(long, value_name = "DIR")]
    pub parquet: PathBuf,
    /// Records per row group of the states and events tables (row groups are time slices).
    #[arg(long, default_value_t = 1 << 20)]
    pub rows_per_group: u64,
    #[command(flatten)]
    pub part: PartArgs,
}

/// Trace text read per batch and worker thread when a trace is exported as it is read.
pub const BATCH_PER_WORKER: u64 = 64 << 20;

/// Runs `export`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    keep_freed_memory();
    let subset = args.part.subset();
    let started = Instant::now();
    let options = ParquetOptions {
        rows_per_group: args.rows_per_group.max(1),
        ..ParquetOptions::default()
    };
    let cache = args.part.cache.options();
    let cached = cache
        .as_ref()
        .is_some_and(|c| trace::cache::is_cached(&args.trace, &subset, c));
    let could_not = |e: std::io::Error| {
        anyhow::anyhow!("could not write Parquet to {}: {e}", args.parquet.display())
    };
    let out = if subset.is_whole() && !cached && !args.part.cache.convert {
        let workers = rayon::current_num_threads().max(1) as u64;
        let batch = BATCH_PER_WORKER.saturating_mul(workers);
        let load = trace::LoadOptions::default();
        let out = streamed(&args.trace, &load, &args.parquet, batch, options)?;
        eprintln!(
            "read and written in {:.2} s, a batch of at most {} MB of the trace at a time",
            started.elapsed().as_secs_f64(),
            batch >> 20
        );
        out
    } else {
        let t = if cached {
            // Mapped, read once in order: the file's pages are not kept resident.
            let load = trace::LoadOptions {
                subset: subset.clone(),
                cache,
                read_once: true,
                ..trace::LoadOptions::default()
            };
            trace::load(&args.trace, &load, None)?
        } else {
            args.part.load(&args.trace, NullOverride::Auto, &subset)?
        };
        super::print_warnings(&t);
        let written = Instant::now();
        let out = parquet_export::export(&t, &args.parquet, options).map_err(could_not)?;
        eprintln!(
            "loaded in {:.2} s, written in {:.2} s",
            t.stats.load_seconds,
            written.elapsed().as_secs_f64()
        );
        out
    };
    for (table, rows, files) in &out.tables {
        println!(
            "{}: {rows} rows in {files} file{}",
            args.parquet.join(table).display(),
            if *files == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

/// Exports the whole trace at `path` to `dir` as it is read (with `load`'s options), `batch`
/// bytes of text at a time.
pub fn streamed(
    path: &Path,
    load: &trace::LoadOptions,
    dir: &Path,
    batch: u64,
    options: ParquetOptions,
) -> anyhow::Result<Exported> {
    // The header (for the objects) and the null value come before the first batch. A batch
    // is written while the next is read (both in parallel themselves): either alone leaves
    // a core idle at times.
    struct Sink<'a> {
        dir: &'a Path,
        options: ParquetOptions,
        tables: Option<Tables>,
        writing: Option<std::thread::JoinHandle<std::io::Result<Tables>>>,
    }
    impl Sink<'_> {
        /// An error of the writing, as the read reports it (after the trace's name): it says
        /// it was the writing, and where.
        fn writing_error(&self, e: &std::io::Error) -> std::io::Error {
            std::io::Error::other(format!(
                "could not write Parquet to {}: {e}",
                self.dir.display()
            ))
        }

        /// The tables, once the batch being written is.
        fn written(&mut self) -> std::io::Result<Option<Tables>> {
            if let Some(w) = self.writing.take() {
                let tables = w
                    .join()
                    .map_err(|_| std::io::Error::other("the writing of a batch failed"))??;
                self.tables = Some(tables);
            }
            Ok(self.tables.take())
        }
    }
    impl trace::BatchSink for Sink<'_> {
        fn begin(&mut self, header: &trace::Header, null: u64) -> std::io::Result<()> {
            let tables = Tables::create(self.dir, header, null, self.options);
            self.tables = Some(tables.map_err(|e| self.writing_error(&e))?);
            Ok(())
        }
        fn batch(&mut self, threads: Vec<ThreadData>, comms: Buf<Comm>) -> std::io::Result<()> {
            let written = self.written().map_err(|e| self.writing_error(&e))?;
            let Some(mut tables) = written else {
                return Err(std::io::Error::other("a batch came before the header"));
            };
            self.writing = Some(std::thread::spawn(move || {
                tables.records(&threads, &comms, &|| ())?;
                Ok(tables)
            }));
            Ok(())
        }
        fn trim_between_batches(&self) -> bool {
            false
        }
    }
    let mut sink = Sink {
        dir,
        options,
        tables: None,
        writing: None,
    };
    let read = trace::read_in_batches(path, load, Some(batch), None, &mut sink)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    for w in read.report.warnings() {
        eprintln!("warning: {w}");
    }
    let could_not =
        |e: std::io::Error| anyhow::anyhow!("could not write Parquet to {}: {e}", dir.display());
    let Some(tables) = sink.written().map_err(could_not)? else {
        anyhow::bail!("{}: no header was read", path.display());
    };
    let rows = (0..read.header.thread_count())
        .map(|r| {
            let name = prvscope_store::trace::thread_name(&read.header, read.row.as_ref(), r);
            (name, true)
        })
        .collect();
    tables
        .finish(&About {
            path,
            header: &read.header,
            pcf: read.pcf.as_ref(),
            rows,
        })
        .map_err(could_not)
}

/// The export allocates and frees the columns of a row group again and again (megabytes
/// each). By default glibc gives each back to the kernel (`munmap`, heap trimming), which
/// zeroes and faults it in again for the next: a third of the export's time went to the
/// kernel. Freed memory is kept for reuse instead; the peak is the same.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: mallopt only sets two thresholds of the allocator, which it reads under its
    // own lock; no pointer is passed.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

//! `prvscope export --parquet` of a trace read a batch at a time: the tables hold the rows
//! the export of the loaded trace holds, every column of every table, whatever the batches
//! cut, and the warnings name the lines a load names.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use prvscope::cli::export::streamed;
use prvscope_analysis::parquet_export::{self, ParquetOptions};
use prvscope_import::{self as trace, BatchSink, LoadOptions};
use prvscope_store::columns::Buf;
use prvscope_store::{Comm, ThreadData};

use crate::common;

const TABLES: [&str; 6] = ["states", "events", "comms", "objects", "labels", "trace"];

/// Every row of a table, each as its fields written out, sorted (the order of rows across
/// files and row groups is not part of what is compared).
fn table(dir: &Path) -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no files", dir.display());
    let mut out = Vec::new();
    for f in files {
        let reader = SerializedFileReader::new(std::fs::File::open(&f).unwrap()).unwrap();
        for row in reader.get_row_iter(None).unwrap() {
            out.push(row.unwrap().to_string());
        }
    }
    out.sort_unstable();
    out
}

/// Exports `path` loaded, and streamed in batches of `batch` bytes; asserts the tables hold
/// the same rows. Gives the number of files of the streamed `events` table.
fn assert_same_tables(path: &Path, batch: u64, options: ParquetOptions) -> usize {
    let load = small_blocks();
    let name = path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace('.', "_");
    let loaded_dir = common::temp_dir(&format!("pq-stream-loaded-{name}"));
    let streamed_dir = common::temp_dir(&format!("pq-stream-streamed-{name}"));
    let t = common::load(path);
    let loaded = parquet_export::export(&t, &loaded_dir, options).unwrap();
    let got = streamed(path, &load, &streamed_dir, batch, options).unwrap();
    let rows = |e: &parquet_export::Exported| -> Vec<(&str, u64)> {
        e.tables.iter().map(|x| (x.0, x.1)).collect()
    };
    assert_eq!(rows(&got), rows(&loaded), "{}", path.display());
    for name in TABLES {
        let (a, b) = (
            table(&loaded_dir.join(name)),
            table(&streamed_dir.join(name)),
        );
        assert_eq!(a.len(), b.len(), "{}: {name}", path.display());
        if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
            panic!(
                "{}: {name} differs first at sorted row {i}:\n loaded   {}\n streamed {}",
                path.display(),
                a[i],
                b[i]
            );
        }
    }
    got.tables.iter().find(|x| x.0 == "events").unwrap().2
}

/// Decoded blocks of compressed traces small enough for a small trace to make many batches.
fn small_blocks() -> LoadOptions {
    LoadOptions {
        stream_block_bytes: 16 << 10,
        ..LoadOptions::default()
    }
}

/// A sink that keeps nothing (for the report of a read in batches).
struct Nothing(usize);

impl BatchSink for Nothing {
    fn batch(&mut self, _: Vec<ThreadData>, _: Buf<Comm>) -> std::io::Result<()> {
        self.0 += 1;
        Ok(())
    }
}

/// A sink that checks each batch's CPU runs against the loaded trace's: just before a
/// thread's first record in the batch, it is on the CPU the whole load says (carried from
/// the batches before, or its first CPU from time 0).
struct CpusAsLoaded<'a> {
    loaded: &'a [ThreadData],
    /// Threads checked with records in a batch after their first.
    carried: usize,
    seen: Vec<bool>,
}

impl BatchSink for CpusAsLoaded<'_> {
    fn batch(&mut self, threads: Vec<ThreadData>, _: Buf<Comm>) -> std::io::Result<()> {
        self.seen.resize(threads.len(), false);
        for (row, t) in threads.iter().enumerate() {
            let first = std::iter::once(t.states.begin.first())
                .chain(t.events.iter().map(|c| c.time.first()))
                .flatten()
                .min();
            let Some(first) = first else { continue };
            let before = first.saturating_sub(1);
            assert_eq!(t.cpus.first().map(|c| c.0), Some(0), "row {row}");
            assert_eq!(
                t.cpu_at(before),
                self.loaded[row].cpu_at(before),
                "row {row} at {before}"
            );
            self.carried += usize::from(self.seen[row]);
            self.seen[row] = true;
        }
        Ok(())
    }
}

/// Real traces of every kind (plain, `.gz`, `.xz`; MPI, OpenMP, ovni, two applications),
/// exported as they are read in about ten batches, give the rows of the export of the loaded
/// trace: states, events and messages with their objects and CPUs, objects, labels.
#[test]
fn real_traces_exported_in_batches_hold_the_rows_of_the_loaded_export() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    // A `.xz` trace small enough to compare row by row: prime, compressed here.
    let xz_dir = common::temp_dir("pq-stream-xz");
    let xz = xz_dir.join("prime_v0.prv.xz");
    let prime = root.join("extrae_mpi_prime16/prime_v0.prv");
    let mut enc = liblzma::write::XzEncoder::new(std::fs::File::create(&xz).unwrap(), 1);
    enc.write_all(&std::fs::read(&prime).unwrap()).unwrap();
    enc.finish().unwrap();
    for ext in ["pcf", "row"] {
        std::fs::copy(
            prime.with_extension(ext),
            xz_dir.join(format!("prime_v0.{ext}")),
        )
        .unwrap();
    }
    let options = ParquetOptions {
        rows_per_group: 2_000,
        groups_per_file: 2,
    };
    for path in [
        prime.clone(),
        xz,
        root.join("ovni_tampi-ss-comm/thread.prv"),
        root.join("profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv"),
        root.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv"),
        root.join("pypop_epoch_scaling/epoch_4proc.prv.gz"),
    ] {
        let loaded = common::load(&path);
        let batch = (loaded.stats.bytes_decoded / 10).max(16 << 10);
        let mut counted = Nothing(0);
        let read = trace::read_in_batches(&path, &small_blocks(), Some(batch), None, &mut counted)
            .unwrap();
        assert!(counted.0 >= 5, "{}: {} batches", path.display(), counted.0);
        assert_eq!(
            read.report.warnings(),
            loaded.report.warnings(),
            "{}",
            path.display()
        );
        let mut cpus = CpusAsLoaded {
            loaded: loaded.store.threads(),
            carried: 0,
            seen: Vec::new(),
        };
        trace::read_in_batches(&path, &small_blocks(), Some(batch), None, &mut cpus).unwrap();
        assert!(cpus.carried > 0, "{}", path.display());
        let files = assert_same_tables(&path, batch, options);
        assert!(files >= counted.0, "{}: {files} files", path.display());
    }
}

/// A hand-made trace whose thread 2 moves between CPUs and has its states written late (out
/// of time order across batches), with bad lines in several batches: the same rows (thread 2
/// on the CPU its records name, across batches) and warnings naming the same lines as a load,
/// from one-line batches up.
#[test]
fn records_out_of_order_and_migrations_across_batches_are_exported_as_loaded() {
    let dir = common::temp_dir("pq-stream-disorder");
    let path = dir.join("t.prv");
    let mut text = String::from("#Paraver (01/01/2024 at 00:00):100000_ns:1(4):1:2(2:1,2:1)\n");
    for i in 0..300u64 {
        let t = 1000 + i * 100;
        writeln!(text, "1:1:1:1:1:{t}:{}:{}", t + 60, i % 7).unwrap();
        // Thread 2 migrates every 50 records.
        let cpu = 2 + (i / 50) % 2;
        writeln!(text, "2:{cpu}:1:2:1:{t}:50000001:{}:50000002:{i}", i % 3).unwrap();
        writeln!(
            text,
            "3:1:1:1:1:{t}:{t}:2:1:2:1:{}:{}:64:{i}",
            t + 40,
            t + 45
        )
        .unwrap();
        if i % 97 == 5 {
            text.push_str("1:1:1:1:1:not-a-time\n");
        }
    }
    // Thread 2's states, late in the file, on the CPU of its events then.
    for i in 0..300u64 {
        let t = 1000 + i * 100;
        let cpu = 2 + (i / 50) % 2;
        writeln!(text, "1:{cpu}:1:2:1:{t}:{}:1", t + 30).unwrap();
    }
    std::fs::write(&path, &text).unwrap();
    let options = ParquetOptions {
        rows_per_group: 64,
        groups_per_file: 3,
    };
    for batch in [1, 4 << 10, 1 << 30] {
        assert_same_tables(&path, batch, options);
        let read =
            trace::read_in_batches(&path, &small_blocks(), Some(batch), None, &mut Nothing(0))
                .unwrap();
        let warnings = read.report.warnings();
        assert!(!warnings.is_empty());
        assert_eq!(
            warnings,
            common::load(&path).report.warnings(),
            "batch {batch}"
        );
    }
}

/// The command line exports a trace that is not in the store cache as it reads it (and
/// writes no cache), and one that is from the cache; a table without rows is still a file.
/// How many of the file's pages are not in the page cache (`mincore` of a map of it).
#[allow(unsafe_code)]
fn pages_not_in_memory(path: &Path) -> usize {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap();
    let len = usize::try_from(file.metadata().unwrap().len()).unwrap();
    // SAFETY: sysconf reads a constant of the system.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap();
    let mut resident = vec![0u8; len.div_ceil(page)];
    // SAFETY: a private read-only map of an open file, of its length, is only passed to
    // mincore (which writes one byte per page into `resident`, sized for them) and unmapped.
    unsafe {
        let at = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        );
        assert_ne!(at, libc::MAP_FAILED);
        assert_eq!(libc::mincore(at, len, resident.as_mut_ptr()), 0);
        libc::munmap(at, len);
    }
    resident.iter().filter(|&&r| r & 1 == 0).count()
}

#[test]
fn the_command_streams_a_trace_not_in_the_cache_and_maps_one_that_is() {
    let path = common::generated_16_threads_of("pq-stream-cli", 2 << 20);
    let cache = common::temp_dir("pq-stream-cli-cache");
    let out = common::temp_dir("pq-stream-cli-out");
    let bin = env!("CARGO_BIN_EXE_prvscope");
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(bin)
            .args(["export", "--parquet"])
            .arg(&out)
            .arg("--cache-dir")
            .arg(&cache)
            .args(extra)
            .arg(&path)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    // Written back to the disk first: the page cache keeps a file's unwritten pages whatever
    // it is told.
    std::fs::File::open(&path).unwrap().sync_all().unwrap();
    let (first, how) = run(&[]);
    assert!(how.contains("read and written in"), "{how}");
    // A trace that fits in memory is left in the page cache for the next command on it (a
    // trace larger than memory has its pages let go of as it is read).
    assert_eq!(
        pages_not_in_memory(&path),
        0,
        "the trace left the page cache"
    );
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        0,
        "a cache was written"
    );
    let streamed_rows = table(&out.join("events"));
    // Loaded (and cached), then exported from the cache: the same rows.
    common::stdout_of(
        std::process::Command::new(bin)
            .arg("info")
            .arg("--cache-dir")
            .arg(&cache)
            .arg(&path),
    );
    let (second, how) = run(&[]);
    assert!(how.contains("loaded in"), "{how}");
    assert_eq!(first, second);
    assert_eq!(table(&out.join("events")), streamed_rows);

    // A folder that cannot be made: the command fails, naming it.
    let blocker = common::temp_dir("pq-stream-cli-blocked").join("a-file");
    std::fs::write(&blocker, "").unwrap();
    let o = std::process::Command::new(bin)
        .args(["export", "--no-cache", "--parquet"])
        .arg(blocker.join("tables"))
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("could not write Parquet to") && err.contains("a-file/tables"),
        "{err}"
    );

    // No messages: the comms table is one file without rows, which a query reads as empty.
    let quiet = common::temp_dir("pq-stream-quiet").join("q.prv");
    std::fs::write(
        &quiet,
        "#Paraver (01/01/2024 at 00:00):1000_ns:1(1):1:1(1:1)\n1:1:1:1:1:0:500:1\n2:1:1:1:1:10:7:3\n",
    )
    .unwrap();
    let dir = common::temp_dir("pq-stream-quiet-out");
    let got = streamed(
        &quiet,
        &LoadOptions::default(),
        &dir,
        1 << 20,
        ParquetOptions::default(),
    )
    .unwrap();
    let comms = got.tables.iter().find(|x| x.0 == "comms").unwrap();
    assert_eq!((comms.1, comms.2), (0, 1));
    assert!(table(&dir.join("comms")).is_empty());
    assert_eq!(table(&dir.join("states")).len(), 1);
}

/// A compressed trace whose text ends inside a line, read in batches of one decoded block
/// each (so the stream ends where a batch is full): its last line is reported cut short, as
/// a load reports it, not as a malformed record.
#[test]
fn a_compressed_trace_cut_inside_its_last_line_reads_in_batches_as_it_loads() {
    let _shared = common::shared();
    let Some(root) = common::shared_traces() else {
        return;
    };
    let text = std::fs::read(root.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv")).unwrap();
    let start = text.iter().rposition(|&b| b == b'\n').unwrap();
    let start = text[..start].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let dir = common::temp_dir("batches-cut-line");
    let xz = dir.join("cut.prv.xz");
    let mut enc = liblzma::write::XzEncoder::new(std::fs::File::create(&xz).unwrap(), 1);
    enc.write_all(&text[..start + 7]).unwrap();
    enc.finish().unwrap();
    let loaded = trace::load(&xz, &small_blocks(), None).unwrap();
    assert_eq!(
        loaded.report.count(trace::IssueKind::TruncatedLine),
        1,
        "{:?}",
        loaded.report.warnings()
    );
    let mut counted = Nothing(0);
    let read = trace::read_in_batches(&xz, &small_blocks(), Some(1), None, &mut counted).unwrap();
    assert!(counted.0 >= 3, "{} batches", counted.0);
    assert_eq!(read.report.warnings(), loaded.report.warnings());
}

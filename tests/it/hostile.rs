//! Files users open by mistake or that broke on the way: not traces at all, headers that
//! promise the impossible, giant lines, limits of the number range, side files of other
//! traces, and compressed files cut or followed by garbage. Each gives a clear message and
//! keeps what was good; none panics or allocates without bound.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use prvscope_import::synth::{self, GenOptions};
use prvscope_import::{self as trace, IssueKind, LoadError, LoadOptions, Trace};

use crate::common::{load, shared_traces, temp_dir};

fn open(path: &Path) -> Result<Trace, LoadError> {
    trace::load(path, &LoadOptions::default(), None)
}

fn header_error(path: &Path) -> String {
    match open(path) {
        Err(e @ LoadError::Header { .. }) => e.to_string(),
        Err(e) => panic!("{}: not a header error: {e}", path.display()),
        Ok(_) => panic!("{} loaded", path.display()),
    }
}

const HEADER: &str = "#Paraver (01/01/2026 at 00:00):1000_ns:1(1):1:1(1:1)\n";

#[test]
fn files_that_are_not_traces_are_refused_with_the_reason() {
    let _shared = crate::common::shared();
    let dir = temp_dir("hostile-not-traces");
    let png = dir.join("picture.prv");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01").unwrap();
    let message = header_error(&png);
    assert!(message.contains("picture.prv:1:1"), "{message}");
    assert!(message.contains("#Paraver"), "{message}");
    // An executable: this very test binary.
    let elf: PathBuf = std::env::current_exe().unwrap();
    assert!(header_error(&elf).contains("#Paraver"));
    let empty = dir.join("empty.prv");
    std::fs::write(&empty, b"").unwrap();
    assert!(header_error(&empty).contains("empty"));
    // A directory: an I/O error that says what it is, once.
    let folder = dir.join("folder.prv");
    std::fs::create_dir_all(&folder).unwrap();
    match open(&folder) {
        Err(e @ LoadError::Io { .. }) => {
            let text = format!("{:#}", anyhow::Error::from(e));
            assert_eq!(text.matches("is a directory").count(), 1, "{text}");
        }
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn headers_promising_giant_resources_are_refused_at_once() {
    let _shared = crate::common::shared();
    let dir = temp_dir("hostile-headers");
    for (name, header, says) in [
        (
            "threads.prv",
            "#Paraver (01/01/2026 at 00:00):1000_ns:1(1):1:1(1000000000:1)\n",
            "more than 16777216 threads",
        ),
        (
            "cpus.prv",
            "#Paraver (01/01/2026 at 00:00):1000_ns:1(1000000000000):1:1(1:1)\n",
            "more than 16777216 CPUs",
        ),
        (
            "nodes.prv",
            "#Paraver (01/01/2026 at 00:00):1000_ns:1000000000000:1:1(1:1)\n",
            "more than 16777216 nodes",
        ),
        (
            "tasks.prv",
            "#Paraver (01/01/2026 at 00:00):1000_ns:1(1):1:99999999999(1:1)\n",
            "more than 16777216 tasks",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, format!("{header}1:1:1:1:1:0:10:1\n")).unwrap();
        let started = Instant::now();
        let message = header_error(&path);
        assert!(message.contains(says), "{name}: {message}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{name} took a while"
        );
    }
}

#[test]
fn a_line_of_100_mb_without_newline_is_one_skipped_line() {
    let _shared = crate::common::shared();
    let dir = temp_dir("hostile-long-line");
    let path = dir.join("long.prv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(HEADER.as_bytes()).unwrap();
    f.write_all(b"1:1:1:1:1:0:10:1\n2:1:1:1:1:5:7:").unwrap();
    let digits = vec![b'9'; 1 << 20];
    for _ in 0..100 {
        f.write_all(&digits).unwrap();
    }
    drop(f);
    let t = load(&path);
    assert_eq!(t.store.counts().states, 1, "the good line before it");
    assert_eq!(t.report.count(IssueKind::TruncatedLine), 1);
    assert_eq!(t.report.skipped(), 1);
    let issue = &t.report.examples()[0];
    assert_eq!((issue.line, issue.column), (3, 15));
    assert!(issue.message.contains("below 2^64"), "{}", issue.message);
}

#[test]
fn values_at_the_limits_of_u64() {
    let _shared = crate::common::shared();
    let dir = temp_dir("hostile-limits");
    let path = dir.join("limits.prv");
    let max = u64::MAX;
    let text = format!(
        "{HEADER}1:1:1:1:1:0:{max}:{}\n2:1:1:1:1:{max}:4294967295:{}\n2:1:1:1:1:7:7:18446744073709551616\n2:1:1:1:1:8:4294967296:1\n2:1:1:1:1:9:7:-1\n",
        max - 1,
        max - 1
    );
    std::fs::write(&path, text).unwrap();
    let t = load(&path);
    let c = t.store.counts();
    assert_eq!(c.states, 1);
    // u32::MAX as a type and u64::MAX - 1 as a value are kept; 2^64 and a type beyond
    // u32 are malformed; -1 is two's complement: u64::MAX, the null sentinel.
    assert_eq!(c.events, 2);
    assert_eq!(t.report.count(IssueKind::MalformedRecord), 2);
    let col = t.store.thread(0).unwrap().event_type(u32::MAX).unwrap();
    assert_eq!((col.time.get(0), col.value.get(0)), (max, max - 1));
    let state = &t.store.thread(0).unwrap().states;
    assert_eq!((state.begin.get(0), state.end.get(0)), (0, max));
    assert_eq!(t.store.events_in(0, 7, 0, max).count(), 1);
    assert_eq!(t.report.count(IssueKind::SentinelCollision), 1);
}

#[test]
fn side_files_of_another_trace_or_too_short_are_reported_and_fall_back() {
    let _shared = crate::common::shared();
    let Some(shared) = shared_traces() else {
        return;
    };
    let dir = temp_dir("hostile-side-files");
    let prv = dir.join("prime.prv");
    std::fs::copy(shared.join("extrae_mpi_prime16/prime_v0.prv"), &prv).unwrap();
    // A .pcf from an ovni trace and a .row naming 2 of the 16 threads.
    std::fs::copy(
        shared.join("ovni_tampi-ss-comm/thread.pcf"),
        dir.join("prime.pcf"),
    )
    .unwrap();
    std::fs::write(
        dir.join("prime.row"),
        "LEVEL THREAD SIZE 2\nrank 0\nrank 1\n",
    )
    .unwrap();
    let t = load(&prv);
    assert_eq!(t.report.count(IssueKind::SideFileMismatch), 2);
    let warnings = t.report.warnings().join("\n");
    assert!(
        warnings.contains("prime.pcf: describes only 0 of the trace's"),
        "{warnings}"
    );
    assert!(
        warnings.contains("prime.row: names 2 threads but the trace has 16"),
        "{warnings}"
    );
    assert_eq!(t.report.skipped(), 0, "nothing of the trace is lost");
    assert_eq!(t.store.counts().events, 18482);
    assert_eq!(t.thread_name(1), "rank 1");
    assert_eq!(t.thread_name(2), "THREAD 1.3.1");
    // An MPI call keeps its number where the .pcf has no label.
    let pcf = t.pcf.as_ref().unwrap();
    assert_eq!(pcf.value_label(50_000_002, 7), None);
}

#[test]
fn a_real_trace_cut_in_the_middle_of_a_line_keeps_every_line_before() {
    let _shared = crate::common::shared();
    let Some(shared) = shared_traces() else {
        return;
    };
    let text = std::fs::read(shared.join("extrae_omp_jacobi24/jacobi-2d-imper_v0.prv")).unwrap();
    let dir = temp_dir("hostile-cut-line");
    let cut = text.len() * 2 / 3;
    // Cut inside a line: back up to a line start, then keep 7 bytes of that line.
    let start = text[..cut].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let whole = dir.join("whole.prv");
    let part = dir.join("part.prv");
    std::fs::write(&whole, &text[..start]).unwrap();
    std::fs::write(&part, &text[..start + 7]).unwrap();
    let (a, b) = (load(&whole), load(&part));
    assert_eq!(a.store, b.store, "the same records before the cut");
    assert!(a.report.is_empty());
    assert_eq!(b.report.count(IssueKind::TruncatedLine), 1);
    assert_eq!(b.report.skipped(), 1);
}

/// A generated trace's text, and its store loaded from plain text.
fn generated(dir: &Path, mb: u64) -> (Vec<u8>, Trace) {
    let path = dir.join("g.prv");
    synth::generate(
        &path,
        &GenOptions {
            threads: 8,
            target_bytes: mb << 20,
            ..GenOptions::default()
        },
    )
    .unwrap();
    (std::fs::read(&path).unwrap(), load(&path))
}

#[test]
fn an_xz_cut_in_the_middle_of_a_block_keeps_the_blocks_before() {
    let _shared = crate::common::shared();
    let dir = temp_dir("hostile-xz");
    let (text, plain) = generated(&dir, 4);
    // Blocks of 256 kB, so that a cut falls inside a block after several whole ones.
    let stream = liblzma::stream::MtStreamBuilder::new()
        .threads(2)
        .preset(1)
        .block_size(256 << 10)
        .encoder()
        .unwrap();
    let mut enc = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
    enc.write_all(&text).unwrap();
    let xz = enc.finish().unwrap();
    let path = dir.join("cut.prv.xz");
    std::fs::write(&path, &xz[..xz.len() / 2]).unwrap();
    let t = load(&path);
    let (kept, all) = (t.store.counts().events, plain.store.counts().events);
    assert!(kept > all / 4 && kept < all, "{kept} of {all} events kept");
    assert_eq!(t.report.count(IssueKind::CorruptStream), 1);
    let warnings = t.report.warnings().join("\n");
    assert!(
        warnings.contains("cut.prv.xz: the xz stream is truncated"),
        "{warnings}"
    );
    // The same bytes from memory go through the same decoder: the same records are kept
    // (the in-memory path once decoded with `XzDecoder`, which drops the output decoded
    // before the corrupt block).
    let m = prvscope_import::load_bytes(&path, &xz[..xz.len() / 2], None, &LoadOptions::default())
        .unwrap();
    assert_eq!(m.store, t.store, "loaded from memory as from the file");
    assert_eq!(m.report.count(IssueKind::CorruptStream), 1);
}

#[test]
fn a_gz_with_trailing_garbage_keeps_every_record() {
    let _shared = crate::common::shared();
    let dir = temp_dir("hostile-gz");
    let (text, plain) = generated(&dir, 2);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).unwrap();
    let mut bytes = gz.finish().unwrap();
    bytes.extend_from_slice(b"\nthis is not gzip data at all\n");
    let path = dir.join("g.prv.gz");
    std::fs::write(&path, &bytes).unwrap();
    let t = load(&path);
    assert_eq!(t.store, plain.store, "every record of the stream");
    assert_eq!(t.report.count(IssueKind::CorruptStream), 1);
    assert!(
        t.report
            .warnings()
            .join("\n")
            .contains("g.prv.gz: the gzip stream")
    );
}

/// A file that another program truncates while it is read: it was memory-mapped once, and a
/// read of a page past the new end killed the viewer with SIGBUS. Plain files are now read
/// with positioned reads, which return fewer bytes instead; the load keeps what it read and
/// says that the file changed.
#[test]
fn a_file_that_shrinks_while_it_is_read_keeps_what_was_read_and_says_so() {
    let _shared = crate::common::shared();
    let dir = temp_dir("hostile-shrink");
    let (text, whole) = generated(&dir, 16);
    let all = whole.store.counts().total();
    let path = dir.join("g.prv");
    let mut shrank_during_the_load = 0;
    for round in 0..3 {
        std::fs::write(&path, &text).unwrap();
        let progress = std::sync::Arc::new(trace::LoadProgress::default());
        let watcher = {
            let progress = std::sync::Arc::clone(&progress);
            let path = path.clone();
            let cut = text.len() as u64 / (3 + round);
            std::thread::spawn(move || {
                let started = Instant::now();
                // Truncate as soon as the first piece is parsed.
                while progress
                    .bytes_done
                    .load(std::sync::atomic::Ordering::Relaxed)
                    == 0
                    && started.elapsed() < Duration::from_secs(20)
                {
                    std::hint::spin_loop();
                }
                let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                f.set_len(cut).unwrap();
            })
        };
        let opts = LoadOptions {
            chunk_bytes: 64 << 10,
            ..LoadOptions::default()
        };
        let t = trace::load(&path, &opts, Some(progress)).unwrap();
        watcher.join().unwrap();
        assert_eq!(t.report.count(IssueKind::FileChanged), 1, "round {round}");
        let warnings = t.report.warnings().join("\n");
        assert!(warnings.contains("g.prv: the file"), "{warnings}");
        let kept = t.store.counts().total();
        if warnings.contains("shrank") {
            shrank_during_the_load += 1;
            assert!(kept < all, "{kept} of {all} records");
            assert!(warnings.contains("the records after byte"), "{warnings}");
        } else {
            assert!(warnings.contains("changed while it was read"), "{warnings}");
        }
    }
    // Pieces are read as they are parsed, so a truncation after the first one is met by later
    // reads (the check above accepts a truncation after the last read too).
    assert!(shrank_during_the_load >= 1, "no read met the new end");
}

/// A file shorter than when the load started, deterministically: every read stops at the
/// new end, and the lines before it are whole.
#[test]
fn reads_stop_at_the_end_of_a_file_that_shrank() {
    let _shared = crate::common::shared();
    let dir = temp_dir("hostile-shrunk-reads");
    let path = dir.join("s.prv");
    let text = format!("{HEADER}{}", "1:1:1:1:1:0:10:1\n".repeat(1000));
    std::fs::write(&path, &text).unwrap();
    let file =
        trace::source::PlainFile::new(std::fs::File::open(&path).unwrap(), text.len() as u64);
    let (header, body) = file.read_first_line().unwrap();
    assert_eq!(header, HEADER.trim_end().as_bytes());
    assert_eq!(body, HEADER.len() as u64);
    // Cut 5 bytes into line 501 of the body (each line is 17 bytes long).
    let new_len = HEADER.len() + 500 * 17 + 5;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(new_len as u64)
        .unwrap();
    let mut piece = trace::source::Piece::default();
    let mut got = Vec::new();
    let mut start = body;
    while start < text.len() as u64 {
        file.read_lines(body, start, start + 1000, &mut piece)
            .unwrap();
        got.extend_from_slice(piece.text());
        start += 1000;
    }
    assert_eq!(got, text.as_bytes()[HEADER.len()..new_len]);
    assert_eq!(file.shrunk_to(), Some(new_len as u64));
}

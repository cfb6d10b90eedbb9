//! A deterministic generator of realistic Paraver traces, for tests, benchmarks and the demo.
//!
//! Each thread alternates back-to-back states (Running, then Synchronization, Waiting a
//! message or Idle); a Running burst enters a user function (type 60000019 with its line type
//! 60000119), sometimes a nested one, and leaves it with `N` (or 0 for legacy traces); entries
//! and exits carry hardware counter deltas (multi-pair events); a "Ready tasks" event has real
//! zeros and occasional nulls; some bursts end with a message to another thread, and about one
//! message in a hundred is written late (out of time order), as Extrae does. With
//! [`GenOptions::mpi`] the waits are MPI calls (Extrae's types: a Synchronization is an
//! `MPI_Allreduce`, a wait for a message an `MPI_Sendrecv` that sends it), as an MPI
//! program's trace has them. Lines come out in
//! time order across threads otherwise. The same seed always gives the same bytes: the random
//! numbers come from a fixed splitmix64, not from a crate whose streams may change.

// The generator writes traces and reads no input: its indexes are its own.
#![allow(clippy::indexing_slicing)]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenOptions {
    pub threads: u32,
    /// Threads per task (the last task may have fewer).
    pub threads_per_task: u32,
    /// Stop after about this many bytes of `.prv` text.
    pub target_bytes: u64,
    pub seed: u64,
    /// Write legacy values (0 ends a function, no `NULL_VALUE` in the `.pcf`).
    pub legacy: bool,
    /// Also write `<out>.xz` (multi-block, like `xz -T0`).
    pub xz: bool,
    /// Write MPI call events around the waits.
    pub mpi: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            threads: 16,
            threads_per_task: 4,
            target_bytes: 1 << 20,
            seed: 1,
            legacy: false,
            xz: false,
            mpi: false,
        }
    }
}

impl GenOptions {
    /// The options of the demo trace in `assets/demo/` (`prvscope gen --threads 8
    /// --threads-per-task 4 --size 400KB --seed 42 assets/demo/demo.prv`).
    pub fn demo() -> Self {
        GenOptions {
            threads: 8,
            threads_per_task: 4,
            target_bytes: 400_000,
            seed: 42,
            legacy: false,
            xz: false,
            mpi: false,
        }
    }
}

/// What was generated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenSummary {
    pub prv: PathBuf,
    pub bytes: u64,
    pub state_records: u64,
    pub event_records: u64,
    pub comm_records: u64,
    pub null_values: u64,
    pub end_time: u64,
}

/// splitmix64: tiny, fast and fixed forever.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi` (`hi > lo`).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo).max(1)
    }

    /// True with probability `p_percent` %.
    pub fn chance(&mut self, p_percent: u64) -> bool {
        self.next_u64() % 100 < p_percent
    }
}

/// User functions of the demo source: (name, first line).
pub const FUNCTIONS: [(&str, u32); 6] = [
    ("main", 10),
    ("solve", 24),
    ("exchange_halo", 41),
    ("compute_flux", 58),
    ("reduce_residual", 77),
    ("write_checkpoint", 93),
];
/// The source file the generated functions live in.
pub const SOURCE_FILE: &str = "demo.c";

pub use prvscope_format::catalog::{TYPE_USER_FUNCTION, TYPE_USER_FUNCTION_LINE};
pub const TYPE_INSTRUCTIONS: u32 = 42_000_050;
pub const TYPE_CYCLES: u32 = 42_000_059;
pub const TYPE_READY_TASKS: u32 = 7_000;
pub const TYPE_MPI_P2P: u32 = 50_000_001;
pub const TYPE_MPI_COLLECTIVE: u32 = 50_000_002;
const MPI_SENDRECV: u64 = 41;
const MPI_ALLREDUCE: u64 = 10;

const RUNNING: u64 = 1;
const WAITING_MESSAGE: u64 = 3;
const SYNCHRONIZATION: u64 = 5;
const IDLE: u64 = 0;

enum Rec {
    State {
        begin: u64,
        end: u64,
        value: u64,
    },
    Enter {
        f: u64,
        ins: u64,
        cyc: u64,
    },
    Exit {
        ins: u64,
        cyc: u64,
    },
    Ready {
        value: Option<u64>,
    },
    /// An MPI call event: its type and value (0 leaves the call).
    Mpi {
        ty: u32,
        value: u64,
    },
    Send {
        to: u32,
        recv: u64,
        size: u64,
        tag: u64,
        sent: u64,
    },
}

struct ThreadGen {
    /// (emit time, record), in emit order.
    pending: VecDeque<(u64, Rec)>,
    clock: u64,
}

/// Writes `<out>` (`.prv`), its `.pcf` and `.row`, and `<out>.xz` when asked.
pub fn generate(out: &Path, opts: &GenOptions) -> io::Result<GenSummary> {
    let threads = opts.threads.max(1);
    let per_task = opts.threads_per_task.clamp(1, threads);
    let tasks = threads.div_ceil(per_task);
    let mut rng = Rng::new(opts.seed);
    let mut w = BufWriter::with_capacity(1 << 20, File::create(out)?);
    let mut line = Vec::with_capacity(256);

    // The duration is patched in at the end: a fixed-width, zero-padded field (as ovni does).
    let task_list: Vec<String> = (0..tasks)
        .map(|t| format!("{}:1", (threads - t * per_task).min(per_task)))
        .collect();
    let header_prefix = "#Paraver (01/01/2026 at 00:00):";
    let header = format!(
        "{header_prefix}{:020}_ns:1({threads}):1:{tasks}({}),0\n",
        0,
        task_list.join(",")
    );
    w.write_all(header.as_bytes())?;
    let mut summary = GenSummary {
        prv: out.to_path_buf(),
        ..GenSummary::default()
    };
    // Bytes of the whole file, header included.
    let mut bytes = header.len() as u64;

    let mut gens: Vec<ThreadGen> = (0..threads)
        .map(|_| ThreadGen {
            pending: VecDeque::new(),
            clock: rng.range(0, 5_000),
        })
        .collect();
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = (0..threads)
        .map(|r| Reverse((gens[r as usize].clock, r)))
        .collect();
    let null_text: &[u8] = if opts.legacy { b"0" } else { b"N" };
    let mut end_time = 0u64;

    // New bursts until the target size. An MPI trace then finishes the bursts under way, as
    // a program ends after `MPI_Finalize` with every call closed; otherwise the file stops
    // there, functions and waits left open.
    while let Some(Reverse((_, r))) = heap.pop() {
        let g = &mut gens[r as usize];
        if bytes >= opts.target_bytes {
            if !opts.mpi {
                break;
            }
            if g.pending.is_empty() {
                continue;
            }
        }
        if g.pending.is_empty() {
            burst(g, r, threads, &mut rng, opts.mpi);
        }
        let Some((emit, rec)) = g.pending.pop_front() else {
            continue;
        };
        let task = r / per_task + 1;
        let th = r % per_task + 1;
        let cpu = r + 1;
        line.clear();
        // `kind:cpu:appl:task:thread`, the same for every record of this thread.
        let kind = match rec {
            Rec::State { .. } => 1,
            Rec::Send { .. } => 3,
            _ => 2,
        };
        push_fields(
            &mut line,
            &[kind, u64::from(cpu), 1, u64::from(task), u64::from(th)],
        );
        match rec {
            Rec::State { begin, end, value } => {
                push_fields_cont(&mut line, &[begin, end, value]);
                summary.state_records += 1;
                end_time = end_time.max(end);
            }
            Rec::Enter { f, ins, cyc } => {
                push_fields_cont(&mut line, &[emit]);
                for (ty, v) in [
                    (TYPE_USER_FUNCTION, f),
                    (TYPE_USER_FUNCTION_LINE, f),
                    (TYPE_INSTRUCTIONS, ins),
                    (TYPE_CYCLES, cyc),
                ] {
                    push_fields_cont(&mut line, &[u64::from(ty), v]);
                }
                summary.event_records += 4;
            }
            Rec::Exit { ins, cyc } => {
                push_fields_cont(&mut line, &[emit]);
                for ty in [TYPE_USER_FUNCTION, TYPE_USER_FUNCTION_LINE] {
                    push_fields_cont(&mut line, &[u64::from(ty)]);
                    line.push(b':');
                    line.extend_from_slice(null_text);
                }
                push_fields_cont(
                    &mut line,
                    &[
                        u64::from(TYPE_INSTRUCTIONS),
                        ins,
                        u64::from(TYPE_CYCLES),
                        cyc,
                    ],
                );
                summary.event_records += 4;
                summary.null_values += if opts.legacy { 0 } else { 2 };
            }
            Rec::Ready { value } => {
                push_fields_cont(&mut line, &[emit]);
                push_fields_cont(&mut line, &[u64::from(TYPE_READY_TASKS)]);
                line.push(b':');
                if let Some(v) = value {
                    line.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
                } else {
                    // The legacy form writes 0, its null, as it does for the other types.
                    line.extend_from_slice(null_text);
                    summary.null_values += u64::from(!opts.legacy);
                }
                summary.event_records += 1;
            }
            Rec::Mpi { ty, value } => {
                push_fields_cont(&mut line, &[emit, u64::from(ty), value]);
                summary.event_records += 1;
            }
            Rec::Send {
                to,
                recv,
                size,
                tag,
                sent,
            } => {
                let rtask = to / per_task + 1;
                let rth = to % per_task + 1;
                push_fields_cont(&mut line, &[sent, sent]);
                push_fields_cont(
                    &mut line,
                    &[
                        u64::from(to + 1),
                        1,
                        u64::from(rtask),
                        u64::from(rth),
                        recv,
                        recv,
                        size,
                        tag,
                    ],
                );
                summary.comm_records += 1;
                end_time = end_time.max(recv);
            }
        }
        line.push(b'\n');
        w.write_all(&line)?;
        bytes += line.len() as u64;
        let next = g.pending.front().map_or(g.clock, |(t, _)| *t);
        heap.push(Reverse((next, r)));
    }
    let end_time = end_time + 1;
    w.flush()?;
    let mut f = w.into_inner().map_err(io::IntoInnerError::into_error)?;
    f.seek(SeekFrom::Start(header_prefix.len() as u64))?;
    write!(f, "{end_time:020}")?;
    drop(f);
    summary.bytes = bytes;
    summary.end_time = end_time;

    std::fs::write(
        crate::source::side_file(out, "pcf"),
        pcf_text(opts.legacy, opts.mpi),
    )?;
    std::fs::write(
        crate::source::side_file(out, "row"),
        row_text(threads, per_task),
    )?;
    if opts.xz {
        compress_xz(out, &xz_path(out))?;
    }
    Ok(summary)
}

/// `text` (a trace) with the times of its state, event and communication lines zero-padded
/// to `width` digits, as ovni writes them (times already as long are left alone); the
/// header and other lines are kept as they are.
pub fn pad_times(text: &[u8], width: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 2);
    for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        // Time fields: 6 (and 7) of states and events, 6, 7, 12 and 13 of communications.
        let times: &[usize] = match line.first() {
            _ if i == 0 => &[],
            Some(b'1') => &[5, 6],
            Some(b'2') => &[5],
            Some(b'3') => &[5, 6, 11, 12],
            _ => &[],
        };
        for (f, field) in line.split(|&b| b == b':').enumerate() {
            if f > 0 {
                out.push(b':');
            }
            if times.contains(&f) && !field.is_empty() && field.iter().all(u8::is_ascii_digit) {
                out.resize(out.len() + width.saturating_sub(field.len()), b'0');
            }
            out.extend_from_slice(field);
        }
    }
    out
}

/// `<out>.xz`.
pub fn xz_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".xz");
    PathBuf::from(s)
}

/// Compresses a file with liblzma's multithreaded encoder (several blocks, as `xz -T0`).
pub fn compress_xz(src: &Path, dst: &Path) -> io::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let stream = liblzma::stream::MtStreamBuilder::new()
        .threads(u32::try_from(threads).unwrap_or(1))
        .preset(3)
        .block_size(8 << 20)
        .check(liblzma::stream::Check::Crc64)
        .encoder()
        .map_err(io::Error::other)?;
    let mut enc = liblzma::write::XzEncoder::new_stream(BufWriter::new(File::create(dst)?), stream);
    io::copy(&mut File::open(src)?, &mut enc)?;
    enc.finish()?.flush()
}

/// One burst of a thread: a Running interval in a function, then a waiting state.
#[allow(clippy::many_single_char_names)] // t, t1, f, r, g, b: times and indexes of one burst
fn burst(g: &mut ThreadGen, r: u32, threads: u32, rng: &mut Rng, mpi: bool) {
    let t = g.clock;
    let run = rng.range(2_000, 200_000);
    let mut recs: Vec<(u64, Rec)> = Vec::with_capacity(8);
    let f = rng.range(1, FUNCTIONS.len() as u64 + 1);
    recs.push((
        t,
        Rec::Enter {
            f,
            ins: rng.range(1_000, 5_000_000),
            cyc: rng.range(1_000, 9_000_000),
        },
    ));
    recs.push((
        t,
        Rec::State {
            begin: t,
            end: t + run,
            value: RUNNING,
        },
    ));
    if rng.chance(30) {
        // A nested call inside the burst.
        let a = t + run / 3;
        let b = t + 2 * run / 3;
        let inner = rng.range(1, FUNCTIONS.len() as u64 + 1);
        recs.push((
            a,
            Rec::Enter {
                f: inner,
                ins: rng.range(1_000, 900_000),
                cyc: rng.range(1_000, 2_000_000),
            },
        ));
        recs.push((
            b,
            Rec::Exit {
                ins: rng.range(1_000, 900_000),
                cyc: rng.range(1_000, 2_000_000),
            },
        ));
    }
    let t1 = t + run;
    let leave = Rec::Exit {
        ins: rng.range(1_000, 5_000_000),
        cyc: rng.range(1_000, 9_000_000),
    };
    let wait = rng.range(500, 60_000);
    let kind = rng.next_u64() % 10;
    let state = match kind {
        0..=4 => SYNCHRONIZATION,
        5..=7 => WAITING_MESSAGE,
        _ => IDLE,
    };
    // The communication functions (exchange_halo, reduce_residual) return only after the
    // wait that follows their computation, so their time splits between thread states.
    let communicates = matches!(FUNCTIONS.get(f as usize - 1), Some((name, _)) if name.contains("halo") || name.contains("reduce"));
    recs.push((if communicates { t1 + wait } else { t1 }, leave));
    recs.push((
        t1,
        Rec::State {
            begin: t1,
            end: t1 + wait,
            value: state,
        },
    ));
    let call = match state {
        SYNCHRONIZATION => Some((TYPE_MPI_COLLECTIVE, MPI_ALLREDUCE)),
        WAITING_MESSAGE => Some((TYPE_MPI_P2P, MPI_SENDRECV)),
        _ => None,
    };
    if let Some((ty, value)) = call.filter(|_| mpi) {
        recs.push((t1, Rec::Mpi { ty, value }));
        recs.push((t1 + wait, Rec::Mpi { ty, value: 0 }));
    }
    if rng.chance(40) {
        let value = if rng.chance(10) {
            None
        } else {
            Some(rng.range(0, 5))
        };
        recs.push((t1, Rec::Ready { value }));
    }
    if state == WAITING_MESSAGE && threads > 1 {
        let to = (r + 1 + (rng.next_u64() % u64::from(threads - 1)) as u32) % threads;
        let send = Rec::Send {
            to,
            recv: t1 + rng.range(100, 20_000),
            size: rng.range(8, 1 << 20),
            tag: rng.range(0, 100),
            sent: t1,
        };
        // About one message in a hundred is written late, out of time order.
        let emit = if rng.chance(1) { t1 + wait } else { t1 };
        recs.push((emit, send));
    }
    recs.sort_by_key(|(e, _)| *e);
    g.pending.extend(recs);
    g.clock = t1 + wait;
}

fn push_fields(line: &mut Vec<u8>, fields: &[u64]) {
    let mut buf = itoa::Buffer::new();
    for (i, &v) in fields.iter().enumerate() {
        if i > 0 {
            line.push(b':');
        }
        line.extend_from_slice(buf.format(v).as_bytes());
    }
}

fn push_fields_cont(line: &mut Vec<u8>, fields: &[u64]) {
    let mut buf = itoa::Buffer::new();
    for &v in fields {
        line.push(b':');
        line.extend_from_slice(buf.format(v).as_bytes());
    }
}

fn pcf_text(legacy: bool, mpi: bool) -> String {
    let mut s = String::from(
        "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n",
    );
    if !legacy {
        s.push_str("NULL_VALUE          N\n");
    }
    s.push_str(
        "\n\nSTATES\n0    Idle\n1    Running\n3    Waiting a message\n5    Synchronization\n\n\n",
    );
    s.push_str(
        "STATES_COLOR\n0    {117,195,255}\n1    {0,0,255}\n3    {255,0,0}\n5    {179,0,0}\n\n\n",
    );
    s.push_str("EVENT_TYPE\n0    60000019    User function\nVALUES\n0      End\n");
    for (i, (name, line)) in FUNCTIONS.iter().enumerate() {
        let _ = writeln!(s, "{}      {name} [{SOURCE_FILE}:{line}]", i + 1);
    }
    s.push_str("\n\nEVENT_TYPE\n0    60000119    User function line\nVALUES\n0      End\n");
    for (i, (_, line)) in FUNCTIONS.iter().enumerate() {
        let _ = writeln!(s, "{}      {line} ({SOURCE_FILE}, demo)", i + 1);
    }
    s.push_str("\n\nEVENT_TYPE\n7    42000050    PAPI_TOT_INS [Instr completed]\n7    42000059    PAPI_TOT_CYC [Total cycles]\n\n\n");
    s.push_str("EVENT_TYPE\n0    7000    Ready tasks in queue\nVALUES\n0      empty queue\n\n\n");
    if mpi {
        s.push_str(
            "EVENT_TYPE\n0    50000001    MPI Point-to-point\nVALUES\n0   Outside MPI\n\
             41   MPI_Sendrecv\n\n\nEVENT_TYPE\n0    50000002    MPI Collective Comm\n\
             VALUES\n0   Outside MPI\n10   MPI_Allreduce\n\n\n",
        );
    }
    s
}

fn row_text(threads: u32, per_task: u32) -> String {
    let mut s = format!("LEVEL CPU SIZE {threads}\n");
    for c in 1..=threads {
        let _ = writeln!(s, "cpu {c}");
    }
    s.push_str("\nLEVEL NODE SIZE 1\nnode-1\n\n");
    let _ = writeln!(s, "LEVEL THREAD SIZE {threads}");
    for r in 0..threads {
        let _ = writeln!(s, "THREAD 1.{}.{}", r / per_task + 1, r % per_task + 1);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_padded_in_their_fields_only() {
        let text = b"#Paraver (x):1000_ns:1(2):1:1(2:1)\n1:1:1:1:1:5:17:3\n2:1:1:1:2:42:6:7:8:9\n3:1:1:1:1:1:2:1:1:1:2:3:4:64:7\nc:1:1\n2:1:1:1:1:9\n";
        let padded = String::from_utf8(pad_times(text, 6)).unwrap();
        assert_eq!(
            padded,
            "#Paraver (x):1000_ns:1(2):1:1(2:1)\n1:1:1:1:1:000005:000017:3\n2:1:1:1:2:000042:6:7:8:9\n3:1:1:1:1:000001:000002:1:1:1:2:000003:000004:64:7\nc:1:1\n2:1:1:1:1:9\n"
        );
    }
}

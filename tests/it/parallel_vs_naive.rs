//! The parallel chunked parser builds the same store as the simple line-by-line parser, on
//! random traces: mixes of records, shuffled lines, comments, communicator lines, CRLF, `N`,
//! negative values, multi-pair events and malformed lines, records on CPUs Paraver refuses
//! (another node's, or beyond the header's), cut into chunks of any size.

use std::path::Path;

use proptest::prelude::*;
use prvscope_import::{self as trace, IssueKind, LoadOptions, NullOverride, ScanBackend, naive};
use prvscope_store::NullPolicy;

#[derive(Debug, Clone)]
enum Line {
    State {
        cpu: u64,
        th: u32,
        begin: u64,
        dur: u64,
        value: u64,
    },
    Event {
        cpu: u64,
        th: u32,
        time: u64,
        pairs: Vec<(u32, Val)>,
    },
    Comm {
        cpu: u64,
        from: u32,
        to: u32,
        send: u64,
        lat: u64,
    },
    /// Event lines of one thread at one time, one after the other (a timestamp's events
    /// over several lines, as Extrae writes a call and then its counters).
    Burst {
        cpu: u64,
        th: u32,
        time: u64,
        lines: Vec<Vec<(u32, Val)>>,
    },
    Comment,
    Communicator,
    Garbage(String),
}

#[derive(Debug, Clone)]
enum Val {
    Num(u64),
    Null,
    Neg(u64),
}

fn val() -> impl Strategy<Value = Val> {
    prop_oneof![
        6 => (0u64..10).prop_map(Val::Num),
        2 => any::<u64>().prop_map(Val::Num),
        2 => Just(Val::Null),
        1 => (1u64..1000).prop_map(Val::Neg),
    ]
}

/// A record's CPU: mostly one of the task's node (0 is "none"), sometimes one of the other
/// node (3) or beyond the header's three (4), which Paraver refuses.
fn cpu() -> impl Strategy<Value = u64> {
    prop_oneof![8 => 0u64..3, 1 => 3u64..5]
}

/// An event type: mostly one of a few, sometimes one of many (a thread with more types than
/// the parser keeps at hand per thread).
fn ty() -> impl Strategy<Value = u32> {
    prop_oneof![6 => 1u32..6, 1 => 6u32..40]
}

/// A time: often one of a few, so that records of one thread and type share times (their
/// file order must be kept).
fn time() -> impl Strategy<Value = u64> {
    prop_oneof![3 => 0u64..1_000_000, 1 => 0u64..8]
}

fn line(threads: u32) -> impl Strategy<Value = Line> {
    // Thread numbers go one past the header to exercise out-of-range records.
    let th = 0..=threads + 1;
    prop_oneof![
        4 => (cpu(), th.clone(), time(), 0u64..5000, 0u64..20).prop_map(|(cpu, th, begin, dur, value)| Line::State { cpu, th, begin, dur, value }),
        6 => (cpu(), th.clone(), time(), prop::collection::vec((ty(), val()), 1..5)).prop_map(|(cpu, th, time, pairs)| Line::Event { cpu, th, time, pairs }),
        2 => (cpu(), th.clone(), 0u64..4, prop::collection::vec(prop::collection::vec((ty(), val()), 1..4), 2..4)).prop_map(|(cpu, th, time, lines)| Line::Burst { cpu, th, time, lines }),
        1 => (cpu(), th.clone(), th, 0u64..1_000_000, 0u64..5000).prop_map(|(cpu, from, to, send, lat)| Line::Comm { cpu, from, to, send, lat }),
        1 => Just(Line::Comment),
        1 => Just(Line::Communicator),
        1 => "[0-9a-zN:x-]{0,24}".prop_map(Line::Garbage),
    ]
}

fn render(l: &Line) -> String {
    let v = |v: &Val| match v {
        Val::Num(n) => n.to_string(),
        Val::Null => "N".into(),
        Val::Neg(n) => format!("-{n}"),
    };
    match l {
        Line::State {
            cpu,
            th,
            begin,
            dur,
            value,
        } => format!("1:{cpu}:1:1:{th}:{begin}:{}:{value}", begin + dur),
        Line::Event {
            cpu,
            th,
            time,
            pairs,
        } => {
            let p: Vec<String> = pairs.iter().map(|(t, x)| format!("{t}:{}", v(x))).collect();
            format!("2:{cpu}:1:1:{th}:{time}:{}", p.join(":"))
        }
        Line::Comm {
            cpu,
            from,
            to,
            send,
            lat,
        } => {
            // The receiver's CPU is the sender's, or one of the other node's.
            let recv_cpu = (cpu + u64::from(*from)) % 4;
            format!(
                "3:{cpu}:1:1:{from}:{send}:{send}:{recv_cpu}:1:1:{to}:{}:{}:64:7",
                send + lat,
                send + lat
            )
        }
        Line::Burst {
            cpu,
            th,
            time,
            lines,
        } => lines
            .iter()
            .map(|pairs| {
                render(&Line::Event {
                    cpu: *cpu,
                    th: *th,
                    time: *time,
                    pairs: pairs.clone(),
                })
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Line::Comment => "# a cutter comment".into(),
        Line::Communicator => "c:1:1:2:1:2".into(),
        Line::Garbage(g) => g.clone(),
    }
}

/// The trace of `lines` with a header of `threads` threads.
fn trace_text(threads: u32, lines: &[Line], crlf: bool, final_newline: bool) -> String {
    let nl = if crlf { "\r\n" } else { "\n" };
    // Two nodes: CPUs 1 and 2 on node 1, where the task runs, CPU 3 on node 2.
    let mut s = format!("#Paraver (x):1000000_ns:2(2,1):1:1({threads}:1){nl}");
    for (i, l) in lines.iter().enumerate() {
        // A burst's lines are rendered one a line.
        s.push_str(&render(l).replace('\n', nl));
        if i + 1 < lines.len() || final_newline {
            s.push_str(nl);
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// With `many_threads`, the header declares hundreds of threads more than the lines
    /// use: traces of many threads are parsed in line order and grouped per thread at the
    /// end of each chunk, those of few straight into per-thread buffers; both are checked.
    #[test]
    fn parallel_parser_equals_line_by_line_parser(
        threads in 1u32..6,
        lines in prop::collection::vec(line(6), 0..200),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
        chunk in 1usize..300,
        null_mode in any::<bool>(),
        many_threads in any::<bool>(),
        padded in prop::option::of(20usize..24),
        backend in 0usize..4,
    ) {
        let declared = if many_threads { threads + 400 } else { threads };
        let mut text = trace_text(declared, &lines, crlf, final_newline);
        if let Some(width) = padded {
            // Zero-padded to 20 digits or more, as ovni writes them (the fast path reads a
            // number of 20 digits or more when its leading zeros leave at most 19).
            text = String::from_utf8(prvscope_import::synth::pad_times(text.as_bytes(), width)).unwrap();
        }
        let policy = if null_mode { NullPolicy::sentinel(u64::MAX) } else { NullPolicy::default() };
        let reference = naive::parse(&text, policy).expect("header is valid");
        // Every structural scanner backend this machine runs (the scalar one included).
        let backends = ScanBackend::available();
        let opts = LoadOptions {
            chunk_bytes: chunk,
            null: if null_mode { NullOverride::Sentinel(u64::MAX) } else { NullOverride::Zero },
            scan: backends[backend % backends.len()],
            ..LoadOptions::default()
        };
        let fast = trace::load_bytes(Path::new("p.prv"), text.as_bytes(), None, &opts).unwrap();
        prop_assert_eq!(&*fast.store, &reference.store);
        // A bad last line without its line end is reported as truncated (a file cut short).
        let bad = fast.report.count(IssueKind::MalformedRecord)
            + fast.report.count(IssueKind::UnknownRecordKind)
            + fast.report.count(IssueKind::TruncatedLine);
        prop_assert_eq!(bad, reference.bad_lines);
        let refused = fast.report.count(IssueKind::ThreadOutOfRange)
            + fast.report.count(IssueKind::CpuOutsideTaskNode);
        prop_assert_eq!(refused, reference.out_of_range);
        prop_assert_eq!(fast.report.count(IssueKind::EventsOutOfOrder), reference.backward_rows);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// A plain file is read in pieces by positioned reads, each piece taking the lines that
    /// start in its byte range: whatever the piece and window sizes, the store and the report
    /// (line numbers included) equal those of parsing the same text in memory.
    #[test]
    fn a_file_read_in_pieces_equals_the_text_parsed_in_memory(
        threads in 1u32..6,
        lines in prop::collection::vec(line(6), 0..120),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
        chunk in 1usize..300,
        window in 1usize..400,
        many_threads in any::<bool>(),
    ) {
        let _shared = crate::common::shared();
        let declared = if many_threads { threads + 400 } else { threads };
        let text = trace_text(declared, &lines, crlf, final_newline);
        let path = crate::common::temp_file("pieces.prv", text.as_bytes());
        // Chunks are read a window at a time: windows of any size, smaller or larger than
        // the chunks and than a line, give the same store and report.
        let opts = LoadOptions {
            chunk_bytes: chunk,
            read_window_bytes: window,
            ..LoadOptions::default()
        };
        let from_file = trace::load(&path, &opts, None).unwrap();
        let in_memory = trace::load_bytes(&path, text.as_bytes(), None, &opts).unwrap();
        prop_assert_eq!(&*from_file.store, &*in_memory.store);
        prop_assert_eq!(&from_file.report, &in_memory.report);
        prop_assert_eq!(from_file.stats.bytes_decoded, in_memory.stats.bytes_decoded);
    }
}

#[test]
fn shuffled_lines_give_the_same_store_as_sorted_ones() {
    let _shared = crate::common::shared();
    // Same records in two orders: per thread, equal times keep file order, so only lines
    // with distinct times per thread are shuffled here.
    let mut lines = Vec::new();
    for i in 0..500u64 {
        let th = (i % 3) as u32 + 1;
        lines.push(Line::Event {
            cpu: 1,
            th,
            time: i * 10,
            pairs: vec![(1, Val::Num(i)), (2, Val::Null)],
        });
        lines.push(Line::State {
            cpu: 1,
            th,
            begin: i * 10,
            dur: 10,
            value: i % 4,
        });
    }
    let sorted = trace_text(3, &lines, false, true);
    let mut rng = prvscope_import::synth::Rng::new(3);
    let mut shuffled = lines.clone();
    for i in (1..shuffled.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        shuffled.swap(i, j);
    }
    let shuffled = trace_text(3, &shuffled, true, false);
    let opts = LoadOptions {
        chunk_bytes: 1000,
        ..LoadOptions::default()
    };
    let a = trace::load_bytes(Path::new("a.prv"), sorted.as_bytes(), None, &opts).unwrap();
    let b = trace::load_bytes(Path::new("b.prv"), shuffled.as_bytes(), None, &opts).unwrap();
    assert_eq!(a.store.threads(), b.store.threads());
    assert_eq!(a.store.counts(), b.store.counts());
    assert_eq!(a.store.counts().events, 1000);
    assert!(a.report.is_empty(), "{:?}", a.report.warnings());
    // The shuffled threads go back in time: said, and the order of their two types at one
    // timestamp is taken as unknown (the sorted trace gives them in order).
    assert_eq!(a.store.inversions(), []);
    assert_eq!(b.store.inversions(), [(2, 1)]);
    assert_eq!(b.report.count(IssueKind::EventsOutOfOrder), 3);
    assert_eq!(b.report.skipped(), 0, "{:?}", b.report.warnings());
}

/// Consecutive lines of one thread share `:cpu:appl:task:thread:`, and often the time,
/// whatever their kind (a state and the events at its begin): the fast path then reuses the
/// previous line's fields. States after events and events after states, at the same time,
/// at a time written with more digits or fewer, on another CPU or thread, give the store
/// the line-by-line parser builds.
#[test]
fn lines_of_another_kind_at_the_same_thread_and_time_parse_as_the_naive_parser() {
    let _shared = crate::common::shared();
    let mut lines = Vec::new();
    for i in 0..400u64 {
        let th = (i % 3) as u32 + 1;
        let t = 10 * (i / 6) + 4;
        let cpu = 1 + (i / 7) % 2;
        let event = |time, v| Line::Event {
            cpu,
            th,
            time,
            pairs: vec![(1 + (i % 5) as u32, Val::Num(v)), (2, Val::Null)],
        };
        let state = |cpu, begin, value| Line::State {
            cpu,
            th,
            begin,
            dur: 3,
            value,
        };
        match i % 4 {
            0 => lines.extend([event(t, i), state(cpu, t, i % 7), event(t + 1, i)]),
            1 => lines.extend([state(cpu, t, i % 5), event(t, i), event(t * 10, i)]),
            2 => lines.extend([event(t * 10, i), state(cpu, t, 1), state(3 - cpu, t, 2)]),
            _ => lines.extend([state(cpu, t, 3), event(t, i), state(cpu, t / 10, 4)]),
        }
        // The same thread and CPU at a time of as many digits.
        if i % 3 == 0 {
            lines.extend([state(cpu, t + 2, 5), state(cpu, t + 3, 6)]);
        }
    }
    let text = trace_text(3, &lines, false, true);
    let reference = naive::parse(&text, NullPolicy::default()).unwrap();
    assert_eq!(reference.store.counts().states, 868);
    // Events at `t * 10` come before others at `t`: each thread goes back in time.
    assert_eq!(reference.backward_rows, 3);
    assert_parse_equals(&text, &reference, &[64, 1000, 1 << 20]);
}

/// `text`, a trace without bad lines, loaded in chunks of each of `chunks` bytes with every
/// structural scanner backend this machine runs, gives the naive parser's store, and a report
/// of nothing but the threads whose events go back in time, as many as the naive parser finds.
/// A line whose bytes after its kind repeat the previous line's thread (and time) reuses
/// them without looking at their marks again: a line that breaks at or after those bytes, or
/// whose kind or kind's `:` differs, is still refused, as the line-by-line parser refuses it,
/// and the good lines around it are kept.
#[test]
fn lines_repeating_the_previous_threads_bytes_are_checked_as_the_naive_parser_checks_them() {
    let bad_after_a_good_line = [
        "2;1:1:1:1:100:4:1",
        "4:1:1:1:1:100:4:1",
        "21:1:1:1:100:4:1",
        "2:1:1:1:1:100:4:x",
        "2:1:1:1:1:100:-4:1",
        "2:1:1:1:1:100:4:1:",
        "2:1:1:1:1:100:4",
        "2:1:1:1:1:100:4:1 ",
        "2:1:1:1:1:10x:4:1",
        "2:1:1:1:1:100:",
        "1:1:1:1:1:100:50",
        "1:1:1:1:1:100:99:N:",
        "2:1:1:1:1:",
        "2:1:1:1:1",
    ];
    let mut text = trace_text(3, &[], false, true);
    let mut time = 100u64;
    for (i, bad) in bad_after_a_good_line.iter().enumerate() {
        // The good line has the bad one's thread bytes (and time), with a time of as many
        // digits before it and after it.
        let good = format!("2:1:1:1:1:{time}:4:{i}\n");
        text.push_str(&good);
        text.push_str(&bad.replace("100", &time.to_string()));
        text.push('\n');
        let state = format!("1:1:1:1:1:{time}:{}:{i}\n", time + 5);
        text.push_str(&state);
        time += 10;
    }
    let reference = naive::parse(&text, NullPolicy::default()).unwrap();
    assert_eq!(reference.bad_lines, bad_after_a_good_line.len() as u64);
    assert_eq!(
        reference.store.counts().states,
        bad_after_a_good_line.len() as u64
    );
    assert_parse_equals(&text, &reference, &[16, 1 << 20]);
}

/// A line the careful parser takes may note another CPU for a thread (an event line's CPU is
/// noted before its pairs, so even a line bad after its time does): the next fast line with
/// the bytes of that thread's previous fast line is not taken as already noted. The store's
/// CPUs are the line-by-line parser's.
#[test]
fn a_careful_line_between_two_fast_lines_of_a_thread_keeps_its_cpu_change() {
    let mut text = trace_text(3, &[], false, true);
    for (i, time) in (100u64..160).step_by(20).enumerate() {
        // CPU 1 fast, CPU 2 on a line bad in its value, CPU 1 fast again.
        let fast = format!("2:1:1:1:1:{time}:4:{i}\n");
        let careful = format!("2:2:1:1:1:{}:4:x\n", time + 1);
        let fast_again = format!("2:1:1:1:1:{}:4:{i}\n", time + 2);
        for line in [fast, careful, fast_again] {
            text.push_str(&line);
        }
    }
    let reference = naive::parse(&text, NullPolicy::default()).unwrap();
    assert_eq!(reference.bad_lines, 3);
    assert_eq!(reference.store.counts().events, 6);
    assert_parse_equals(&text, &reference, &[16, 1 << 20]);
}

/// Loads `text` with each chunk size and every scanner backend: the store equals the
/// line-by-line parser's, and so do the report's counts (threads going back in time, bad
/// lines, records refused), which are all the report holds.
fn assert_parse_equals(text: &str, reference: &naive::NaiveParse, chunks: &[usize]) {
    for &chunk in chunks {
        for scan in ScanBackend::available() {
            let opts = LoadOptions {
                chunk_bytes: chunk,
                null: NullOverride::Zero,
                scan,
                ..LoadOptions::default()
            };
            let fast = trace::load_bytes(Path::new("k.prv"), text.as_bytes(), None, &opts).unwrap();
            assert_eq!(&*fast.store, &reference.store, "chunk {chunk}, {scan:?}");
            let count = |kinds: &[IssueKind]| kinds.iter().map(|&k| fast.report.count(k)).sum();
            let back: u64 = count(&[IssueKind::EventsOutOfOrder]);
            assert_eq!(back, reference.backward_rows, "chunk {chunk}, {scan:?}");
            let bad: u64 = count(&[
                IssueKind::MalformedRecord,
                IssueKind::UnknownRecordKind,
                IssueKind::TruncatedLine,
            ]);
            assert_eq!(bad, reference.bad_lines, "{:?}", fast.report.warnings());
            let refused: u64 = count(&[IssueKind::ThreadOutOfRange, IssueKind::CpuOutsideTaskNode]);
            assert_eq!(
                refused,
                reference.out_of_range,
                "{:?}",
                fast.report.warnings()
            );
            let all: u64 = count(&IssueKind::ALL);
            assert_eq!(all, back + bad + refused, "{:?}", fast.report.warnings());
        }
    }
}

/// Traces of many threads are grouped per (thread, type) at the end of each window, a
/// block of records at a time: a thread and type with thousands of records in one window
/// (sorted, out of order, with nulls and values of every width) give the store the
/// line-by-line parser builds. So do the same lines under a header of few threads, whose
/// buffers are encoded every few hundred records of a thread or type within a window.
#[test]
fn many_records_of_one_thread_in_a_window_of_a_many_thread_trace_parse_as_the_naive_one() {
    let _shared = crate::common::shared();
    let mut lines = Vec::new();
    for i in 0..3000u64 {
        let th = if i % 10 == 0 { (i % 5) as u32 + 2 } else { 1 };
        // Mostly increasing times, every 7th going back.
        let time = if i % 7 == 0 {
            i * 10 - i % 3 * 25
        } else {
            i * 10
        };
        let value = match i % 11 {
            0 => Val::Null,
            1 => Val::Num(u64::from(u32::MAX) + i),
            2 => Val::Num(70_000 + i),
            _ => Val::Num(i % 250),
        };
        lines.push(Line::Event {
            cpu: 1,
            th,
            time,
            pairs: vec![(1, value), (2 + (i % 2) as u32, Val::Num(i))],
        });
        if i % 3 == 0 {
            lines.push(Line::State {
                cpu: 2,
                th,
                begin: time,
                dur: 5,
                value: i % 300,
            });
        }
    }
    // 400 threads declared: the fast parser groups them in line order; the naive one keeps
    // each thread's records in its own buffers, as it does under a header of the 6 threads
    // used (both references are checked).
    let text = trace_text(400, &lines, false, true);
    let few = trace_text(6, &lines, false, true);
    let reference = naive::parse(&few, NullPolicy::sentinel(u64::MAX)).unwrap();
    assert_eq!(reference.store.counts().events, 6000);
    let naive_many = naive::parse(&text, NullPolicy::sentinel(u64::MAX)).unwrap();
    assert_eq!(
        naive_many.store.threads().get(..6),
        reference.store.threads().get(..6)
    );
    for chunk in [1 << 12, 1 << 20] {
        let opts = LoadOptions {
            chunk_bytes: chunk,
            null: NullOverride::Sentinel(u64::MAX),
            ..LoadOptions::default()
        };
        let fast = trace::load_bytes(Path::new("m.prv"), text.as_bytes(), None, &opts).unwrap();
        assert_eq!(fast.store.threads().len(), 400);
        assert_eq!(
            fast.store.threads().get(..6),
            reference.store.threads().get(..6),
            "chunk {chunk}"
        );
        assert_eq!(&*fast.store, &naive_many.store, "chunk {chunk}");
        // Every 7th line goes back in time: thread 1 does (thread 2's lines are 100 apart,
        // never more than 50 back), and only it is reported.
        assert_eq!(naive_many.backward_rows, 1);
        assert_eq!(fast.report.count(IssueKind::EventsOutOfOrder), 1);
        assert_eq!(fast.report.skipped(), 0, "{:?}", fast.report.warnings());
        let direct = trace::load_bytes(Path::new("f.prv"), few.as_bytes(), None, &opts).unwrap();
        assert_eq!(&*direct.store, &reference.store, "6 threads, chunk {chunk}");
        assert_eq!(direct.report.count(IssueKind::EventsOutOfOrder), 1);
    }
}

/// Found by fuzzing: the fast parser reported a line both malformed and naming a missing
/// thread as out of range (a communication line as both), the naive one as malformed, and the
/// naive one did not count well-formed lines of missing threads at all. Each skipped line now
/// counts once in both.
#[test]
fn lines_naming_missing_threads_are_skipped_once_by_both_parsers() {
    let _shared = crate::common::shared();
    let header = "#Paraver (01/01/2026 at 00:00):1000000_ns:1(4):2:2(1:1,2:1):1(1:1)\n";
    for (body, skipped) in [
        // Fuzz case 1: no time, and thread 5.5.5 is not in the header.
        ("2:6:5:5:5", 1),
        // Fuzz case 2: well-formed states of thread 1.1.2 (task 1 has one thread).
        (
            "1:1:1:1:1:0:500:1\n1:2:1:1:2:0:1000:1\n2:1:1:1:1:100:7:3\n2:2:1:1:2:200:7:0:8:5\n",
            2,
        ),
        // A communication to a missing thread.
        ("3:1:1:1:1:10:10:2:1:9:1:20:20:8:1\n", 1),
        // Fuzz case 3: a communication cut short whose receiver is missing too (it was
        // counted as both malformed and out of range).
        ("3:1:1:1:1:10:10:2:1:1:2\n", 1),
        // Both ends missing: one line, one count.
        ("3:1:1:7:1:10:10:2:1:9:1:20:20:8:1\n", 1),
    ] {
        let text = format!("{header}{body}");
        let opts = LoadOptions {
            chunk_bytes: 16,
            null: NullOverride::Zero,
            ..LoadOptions::default()
        };
        let fast = trace::load_bytes(Path::new("f.prv"), text.as_bytes(), None, &opts).unwrap();
        let naive = naive::parse(&text, NullPolicy::default()).unwrap();
        assert_eq!(&*fast.store, &naive.store, "{body}");
        assert_eq!(fast.report.skipped_lines(), skipped, "fast: {body}");
        assert_eq!(
            naive.bad_lines + naive.out_of_range,
            skipped,
            "naive: {body}"
        );
    }
}

/// Every structural scanner backend the machine runs parses every shared trace (plain and
/// gzip; the large ovni `.xz` is compared by the tests of every compression) into the store
/// the line-by-line parser builds, skipping nothing.
#[test]
fn every_scanner_backend_parses_the_shared_traces_like_the_naive_parser() {
    let _shared = crate::common::shared();
    let Some(root) = crate::common::shared_traces() else {
        return;
    };
    let backends = ScanBackend::available();
    assert!(
        backends.contains(&ScanBackend::Scalar) && backends.len() >= 2,
        "{backends:?}"
    );
    let mut seen = 0;
    for f in crate::common::shared_trace_files(&root) {
        let name = f.to_string_lossy().to_string();
        let text = if f.extension().is_some_and(|e| e == "prv") {
            std::fs::read_to_string(&f).unwrap()
        } else if f.extension().is_some_and(|e| e == "gz") {
            crate::common::gunzip_text(&f)
        } else {
            continue;
        };
        let mut reference = None;
        for &scan in &backends {
            let opts = LoadOptions {
                scan,
                // Small chunks, so that chunk and window edges fall inside lines.
                chunk_bytes: 4096,
                ..LoadOptions::default()
            };
            let t = trace::load(&f, &opts, None).unwrap();
            assert_eq!(t.report.skipped(), 0, "{name} {scan:?}");
            let naive = reference
                .get_or_insert_with(|| naive::parse(&text, t.store.null_policy()).unwrap());
            assert_eq!(naive.bad_lines + naive.out_of_range, 0, "{name}");
            assert!(
                *t.store == naive.store,
                "{name}: {scan:?} differs from the naive parser"
            );
        }
        seen += 1;
    }
    assert!(seen >= 13, "only {seen} traces");
}

/// The ovni trace's threads write long runs of lines (a thread's events one after another):
/// with the load's own chunks and windows, each (thread, type) buffer fills and is encoded
/// several times within a window. Its first 24 MB give the store the naive parser builds.
#[test]
fn ovni_runs_of_one_thread_parse_as_the_naive_parser_with_the_loads_own_windows() {
    use std::io::Read;
    let _shared = crate::common::shared();
    let Some(root) = crate::common::shared_traces() else {
        return;
    };
    let src = root.join("ovni_gen_large_4x16/thread.prv.xz");
    let mut text = Vec::new();
    liblzma::read::XzDecoder::new_multi_decoder(std::fs::File::open(&src).unwrap())
        .take(24 << 20)
        .read_to_end(&mut text)
        .unwrap();
    let end = text.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    text.truncate(end);
    let text = String::from_utf8(text).unwrap();
    for workers in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        let fast = pool.install(|| {
            trace::load_bytes(
                Path::new("ovni.prv"),
                text.as_bytes(),
                None,
                &LoadOptions::default(),
            )
            .unwrap()
        });
        assert_eq!(fast.report.skipped(), 0, "{:?}", fast.report.warnings());
        assert!(fast.store.counts().events > 800_000);
        let naive = naive::parse(&text, fast.store.null_policy()).unwrap();
        assert!(*fast.store == naive.store, "{workers} workers");
    }
}

/// A timestamp whose first line holds its types in order and whose next line (other
/// threads' lines between) brings a smaller type: each such timestamp gives its own
/// inversions, as the line-by-line parser finds them, whatever the chunks (the same pattern
/// of a later type after an ordered line at another timestamp does not stand for it).
#[test]
fn ordered_lines_continued_by_a_smaller_type_give_each_timestamp_its_inversions() {
    let text = trace_text(2, &[], false, true)
        + "2:1:1:1:1:10:1:0:5:0\n\
         2:1:1:1:2:10:4:0:2:0\n\
         2:1:1:1:1:10:3:0\n\
         2:1:1:1:1:20:1:0:7:0\n\
         2:1:1:1:1:20:3:0\n\
         2:1:1:1:2:30:2:0:9:0\n\
         2:1:1:1:2:30:3:0:8:0\n";
    let reference = naive::parse(&text, NullPolicy::default()).unwrap();
    assert_eq!(
        reference.store.inversions(),
        [(4, 2), (5, 3), (7, 3), (9, 3), (9, 8)]
    );
    assert_parse_equals(&text, &reference, &[16, 40, 1 << 20]);
}

/// A thread whose events go back in time (a trace not sorted by time) may give the events of
/// one timestamp apart, others between: their order there is not followed, so every pair of
/// the thread's event types counts as inverted, and the load names the thread and where it
/// goes back, whatever the chunks; threads in time order keep their own inversions only.
#[test]
fn a_thread_going_back_in_time_counts_every_pair_of_its_types_and_is_reported() {
    let text = trace_text(3, &[], false, true)
        + "2:1:1:1:1:20:5:0\n\
         2:1:1:1:2:10:4:0:2:0\n\
         2:1:1:1:1:10:3:0\n\
         2:1:1:1:3:10:9:0:8:0\n\
         2:1:1:1:1:20:1:0\n\
         2:1:1:1:2:30:6:0\n";
    let reference = naive::parse(&text, NullPolicy::default()).unwrap();
    // Thread 1: 5 and 1 at time 20, apart, and every other pair of {1, 3, 5}; thread 2 in
    // order: (4, 2) of its line; thread 3 in order: (9, 8).
    assert_eq!(
        reference.store.inversions(),
        [(3, 1), (4, 2), (5, 1), (5, 3), (9, 8)]
    );
    assert_eq!(reference.backward_rows, 1);
    for chunk in [16, 40, 70, 1 << 20] {
        for scan in ScanBackend::available() {
            let opts = LoadOptions {
                chunk_bytes: chunk,
                scan,
                ..LoadOptions::default()
            };
            let fast = trace::load_bytes(Path::new("b.prv"), text.as_bytes(), None, &opts).unwrap();
            assert_eq!(&*fast.store, &reference.store, "chunk {chunk}, {scan:?}");
            assert_eq!(fast.report.count(IssueKind::EventsOutOfOrder), 1);
            let warnings = fast.report.warnings().join("\n");
            assert!(
                warnings.contains("thread 1.1.1: an event at time 10 comes after one at time 20"),
                "{warnings}"
            );
        }
    }
}

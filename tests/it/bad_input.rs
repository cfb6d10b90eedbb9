//! The malformed-input corpus of `tests/fixtures/bad/`: each file gives either a clear error
//! naming file, line and column, or a partial load with a warning; none panics.

use std::path::Path;

use prvscope_import::{self as trace, IssueKind, LoadError, LoadOptions};

use crate::common::fixture;

enum Want {
    /// The load fails with a header error at this column, whose message contains the text.
    HeaderError(u64, &'static str),
    /// The load succeeds: good records kept, this issue counted, and a warning naming the line.
    Partial {
        kind: IssueKind,
        line: u64,
        states: u64,
        events: u64,
        comms: u64,
    },
}

use Want::{HeaderError, Partial};

fn partial(kind: IssueKind, line: u64, states: u64, events: u64) -> Want {
    Partial {
        kind,
        line,
        states,
        events,
        comms: 0,
    }
}

/// The good part of every text fixture: 2 states and 3 event pairs on lines 2-5.
const CASES: &[(&str, fn() -> Want)] = &[
    ("truncated_line.prv", || {
        partial(IssueKind::TruncatedLine, 6, 2, 3)
    }),
    ("letters_in_number.prv", || {
        partial(IssueKind::MalformedRecord, 6, 2, 3)
    }),
    ("overflowing_number.prv", || {
        partial(IssueKind::MalformedRecord, 6, 2, 3)
    }),
    ("thread_zero.prv", || {
        partial(IssueKind::ThreadOutOfRange, 6, 2, 3)
    }),
    ("thread_beyond_header.prv", || {
        partial(IssueKind::ThreadOutOfRange, 6, 2, 3)
    }),
    ("task_beyond_header.prv", || {
        partial(IssueKind::ThreadOutOfRange, 6, 2, 3)
    }),
    ("application_beyond_header.prv", || {
        partial(IssueKind::ThreadOutOfRange, 6, 2, 3)
    }),
    ("unknown_kinds.prv", || {
        partial(IssueKind::UnknownRecordKind, 6, 2, 3)
    }),
    ("empty.prv", || HeaderError(1, "empty")),
    ("header_only.prv", || {
        partial(IssueKind::MalformedRecord, 0, 0, 0)
    }),
    ("header_only_no_newline.prv", || {
        partial(IssueKind::MalformedRecord, 0, 0, 0)
    }),
    ("bad_header_duration.prv", || HeaderError(32, "duration")),
    ("bad_header_application.prv", || HeaderError(52, "`)`")),
    ("bad_header_not_paraver.prv", || HeaderError(1, "#Paraver")),
    ("header_giant_thread_count.prv", || {
        HeaderError(49, "more than")
    }),
    ("binary_garbage.prv", || HeaderError(1, "#Paraver")),
    ("garbage_body.prv", || {
        partial(IssueKind::UnknownRecordKind, 6, 2, 3)
    }),
    ("event_missing_value.prv", || {
        partial(IssueKind::MalformedRecord, 6, 2, 3)
    }),
    // The pair before the trailing `:` is good and kept.
    ("event_trailing_colon.prv", || {
        partial(IssueKind::MalformedRecord, 6, 2, 4)
    }),
    ("event_type_too_big.prv", || {
        partial(IssueKind::MalformedRecord, 6, 2, 3)
    }),
    ("state_ends_before_begin.prv", || {
        partial(IssueKind::NegativeDuration, 6, 2, 3)
    }),
    ("comm_too_short.prv", || {
        partial(IssueKind::MalformedRecord, 6, 2, 3)
    }),
    ("comm_to_missing_thread.prv", || {
        partial(IssueKind::ThreadOutOfRange, 6, 2, 3)
    }),
    // Paraver's reader refuses records on a CPU of another node than their task's, or on a
    // CPU the header does not have; CPU 0 (line 4) is always accepted.
    ("cpu_on_another_node.prv", || {
        partial(IssueKind::CpuOutsideTaskNode, 6, 2, 3)
    }),
    ("cpu_beyond_header.prv", || {
        partial(IssueKind::CpuOutsideTaskNode, 6, 2, 3)
    }),
    ("comm_cpu_on_another_node.prv", || {
        partial(IssueKind::CpuOutsideTaskNode, 6, 2, 3)
    }),
    ("empty_fields.prv", || {
        partial(IssueKind::MalformedRecord, 6, 2, 3)
    }),
    ("sentinel_literal.prv", || {
        partial(IssueKind::SentinelCollision, 6, 2, 4)
    }),
    ("nul_bytes.prv", || {
        partial(IssueKind::MalformedRecord, 6, 2, 3)
    }),
    ("missing_communicators.prv", || {
        partial(IssueKind::MissingCommunicators, 1, 2, 3)
    }),
    ("broken_colors.prv", || partial(IssueKind::PcfLine, 7, 2, 3)),
    // 20000 events were compressed; the first half of the file decodes to a prefix of them.
    ("truncated.prv.xz", || {
        partial(IssueKind::CorruptStream, 0, 0, 0)
    }),
    ("bad_crc.prv.gz", || {
        partial(IssueKind::CorruptStream, 0, 0, 20_000)
    }),
];

#[test]
fn malformed_corpus_gives_clear_errors_or_partial_loads() {
    let _shared = crate::common::shared();
    assert!(CASES.len() >= 25);
    for (name, want) in CASES {
        let path = fixture(&format!("bad/{name}"));
        let result = trace::load(&path, &LoadOptions::default(), None);
        match (want(), result) {
            (HeaderError(column, text), Err(e)) => {
                let LoadError::Header {
                    path: p,
                    line,
                    column: c,
                    message,
                } = &e
                else {
                    panic!("{name}: expected a header error, got {e}");
                };
                assert_eq!(p, &path, "{name}");
                assert_eq!((*line, *c), (1, column), "{name}: {e}");
                assert!(message.contains(text), "{name}: {e}");
                let shown = e.to_string();
                assert!(
                    shown.contains(&format!("{name}:1:{column}:")),
                    "{name}: {shown}"
                );
            }
            (
                Partial {
                    kind,
                    line,
                    states,
                    events,
                    comms,
                },
                Ok(t),
            ) => {
                let c = t.store.counts();
                if Path::new(name).extension().is_some_and(|e| e == "xz") {
                    // Everything decoded before the damage is kept (about 40% of the file).
                    assert!(c.events > 8000 && c.events < 20_000, "{name}: {}", c.events);
                } else {
                    assert_eq!(
                        (c.states, c.events, c.comms),
                        (states, events, comms),
                        "{name}"
                    );
                }
                if line == 0 && states == 0 && events == 0 && kind == IssueKind::MalformedRecord {
                    // Header only: nothing to skip, nothing to load.
                    assert!(t.report.is_empty(), "{name}: {:?}", t.report.warnings());
                    continue;
                }
                assert!(
                    t.report.count(kind) >= 1,
                    "{name}: {:?}",
                    t.report.warnings()
                );
                let ex = t.report.examples().iter().find(|i| i.kind == kind).unwrap();
                assert_eq!(ex.line, line, "{name}: {ex}");
                let warnings = t.report.warnings().join("\n");
                assert!(
                    warnings.contains(name.split('.').next().unwrap()),
                    "{name}: {warnings}"
                );
            }
            (_, Err(e)) => panic!("{name}: expected a partial load, got {e}"),
            (_, Ok(t)) => panic!("{name}: expected an error, loaded {:?}", t.store.counts()),
        }
    }
}

#[test]
fn messages_name_line_column_and_what_was_expected() {
    let _shared = crate::common::shared();
    let t = crate::common::load(&fixture("bad/letters_in_number.prv"));
    let ex = &t.report.examples()[0];
    assert_eq!((ex.line, ex.column), (6, 14));
    assert_eq!(ex.message, "state record: expected an end time");
    assert!(
        ex.to_string()
            .ends_with("letters_in_number.prv:6:14: state record: expected an end time")
    );
    let t = crate::common::load(&fixture("bad/thread_beyond_header.prv"));
    assert!(t.report.warnings()[1].contains("thread 1.1.3 is not in the header"));
    let t = crate::common::load(&fixture("bad/cpu_on_another_node.prv"));
    let ex = &t.report.examples()[0];
    assert_eq!((ex.line, ex.column), (6, 3), "{ex}");
    assert_eq!(
        ex.message,
        "record of thread 1.1.1 on CPU 2: CPU 2 is on node 2 but task 1.1 runs on node 1; \
         Paraver leaves it out, so does prvscope"
    );
    let t = crate::common::load(&fixture("bad/cpu_beyond_header.prv"));
    assert!(
        t.report.examples()[0]
            .message
            .contains("on CPU 3: the header declares 2 CPUs"),
        "{:?}",
        t.report.warnings()
    );
    let t = crate::common::load(&fixture("bad/broken_colors.prv"));
    assert_eq!(t.report.count(IssueKind::PcfLine), 4);
    assert_eq!(t.pcf.as_ref().unwrap().state_colors.len(), 1);
}

#[test]
fn every_file_of_the_corpus_loads_or_fails_without_panicking() {
    let _shared = crate::common::shared();
    let dir = fixture("bad");
    let (mut n, mut compared) = (0, 0);
    for f in std::fs::read_dir(&dir).unwrap() {
        let f = f.unwrap().path();
        let _ = trace::load(&f, &LoadOptions::default(), None);
        let bytes = std::fs::read(&f).unwrap();
        for chunk in [1, 7, 64] {
            let opts = LoadOptions {
                chunk_bytes: chunk,
                ..LoadOptions::default()
            };
            let _ = trace::load_bytes(&f, &bytes, None, &opts);
            // Read from the file in pieces of the same size: the same records and skipped
            // lines as in memory (the null mode is fixed, as side files are not read there).
            let opts = LoadOptions {
                null: trace::NullOverride::Zero,
                ..opts
            };
            let plain = trace::Compression::sniff(&bytes) == trace::Compression::None;
            if let (true, Ok(a), Ok(b)) = (
                plain,
                trace::load(&f, &opts, None),
                trace::load_bytes(&f, &bytes, None, &opts),
            ) {
                assert_eq!(a.store, b.store, "{} in pieces of {chunk}", f.display());
                assert_eq!(a.report.skipped_lines(), b.report.skipped_lines());
                compared += 1;
            }
        }
        n += 1;
    }
    assert!(n >= 25);
    assert!(compared >= 3 * 15, "{compared} loads compared");
    // A directory is not a trace.
    let e = trace::load(&dir, &LoadOptions::default(), None).unwrap_err();
    assert!(e.to_string().contains("directory"), "{e}");
    // A missing file names the path.
    let e = trace::load(&dir.join("nope.prv"), &LoadOptions::default(), None).unwrap_err();
    assert!(e.to_string().contains("nope.prv"), "{e}");
}

#[test]
fn missing_side_files_are_fine() {
    let _shared = crate::common::shared();
    let t = crate::common::load(&fixture("bad/thread_zero.prv"));
    assert!(t.pcf.is_none() && t.row.is_none());
    assert_eq!(t.thread_name(1), "THREAD 1.1.2");
}

/// Found by fuzzing: a last line cut short was counted twice, as a malformed record and as a
/// truncated line. It is one skipped line, filed as truncated, keeping the column and what
/// was expected.
#[test]
fn a_truncated_last_line_is_counted_once() {
    let _shared = crate::common::shared();
    let header = "#Paraver (01/01/2026 at 00:00):1000_ns:1(1):1:1(1:1)\n";
    for (body, column) in [
        ("2:1:1:1:1:10", 13),
        ("1:1:1:1:1:0:500:1\n2:1:1:1:1:5:7:12", 0),
    ] {
        let text = format!("{header}{body}");
        let opts = LoadOptions {
            chunk_bytes: 8,
            ..LoadOptions::default()
        };
        let t = trace::load_bytes(Path::new("cut.prv"), text.as_bytes(), None, &opts).unwrap();
        if column == 0 {
            // A complete last line without newline is a record, not an issue.
            assert!(t.report.is_empty(), "{:?}", t.report.warnings());
            assert_eq!(t.store.counts().events, 1);
            continue;
        }
        assert_eq!(t.report.count(IssueKind::TruncatedLine), 1);
        assert_eq!(t.report.count(IssueKind::MalformedRecord), 0);
        assert_eq!(t.report.skipped(), 1);
        let issue = &t.report.examples()[0];
        assert_eq!((issue.line, issue.column), (2, column));
        assert!(
            issue.message.contains("expected an event type"),
            "{}",
            issue.message
        );
    }
}

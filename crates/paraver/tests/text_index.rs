//! The index of a trace's text (`Trace::text_index`, made by the parse) against a naive
//! walk of the text's lines: its pieces tile the text from the byte after the header, each
//! starts a line, and what a piece says of its lines holds for each of them (a piece that
//! holds a line the walk cannot read as a state, event or message says so); where a piece
//! holds only such lines, its times are exactly theirs. On every shared trace (plain and
//! compressed, NULL-mode and legacy, one node and several), generated ones, and a text with
//! comments, bad lines and records out of order; read in small windows, so that pieces are
//! many.

#![allow(clippy::unwrap_used)]

mod common;

use std::fmt::Write as _;
use std::path::Path;

use prvscope_import::LoadOptions;
use prvscope_import::synth::{self, GenOptions};
use prvscope_store::{TextIndex, TextPiece};

/// A line as the walk reads it: a state, an event or a message and its times, or none.
enum Line {
    State(u64, u64),
    Event(u64),
    Message([u64; 4]),
    Other,
}

fn read(line: &[u8]) -> Line {
    let line = std::str::from_utf8(line).unwrap_or("");
    let f: Vec<&str> = line.split(':').collect();
    let num = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok());
    match f.first().copied() {
        Some("1") if f.len() == 8 => match (num(5), num(6)) {
            (Some(b), Some(e)) => Line::State(b, e),
            _ => Line::Other,
        },
        Some("2") if f.len() >= 8 => num(5).map_or(Line::Other, Line::Event),
        Some("3") if f.len() == 15 => match (num(5), num(6), num(11), num(12)) {
            (Some(s), Some(ps), Some(r), Some(pr)) => Line::Message([s, ps, r, pr]),
            _ => Line::Other,
        },
        _ => Line::Other,
    }
}

/// Checks `index` against `text`; returns how many pieces hold no other line.
fn check(name: &str, text: &[u8], index: &TextIndex) -> usize {
    let header_end = memchr::memchr(b'\n', text).map_or(text.len(), |p| p + 1) as u64;
    assert_eq!(index.start, header_end, "{name}: where the pieces start");
    assert_eq!(index.end(), text.len() as u64, "{name}: where they end");
    let mut at = index.start as usize;
    let mut exact = 0;
    for (k, p) in index.pieces.iter().enumerate() {
        assert!(p.len > 0, "{name}: piece {k} is empty");
        assert_eq!(
            text[at - 1],
            b'\n',
            "{name}: piece {k} at {at} does not start a line"
        );
        let body = &text[at..at + p.len as usize];
        at += p.len as usize;
        let mut naive = TextPiece::empty(p.len);
        for line in body.split_inclusive(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            match read(line.strip_suffix(b"\r").unwrap_or(line)) {
                Line::State(b, e) => naive.state(b, e),
                Line::Event(t) => naive.event(t),
                Line::Message(times) => naive.message(times),
                Line::Other => naive.other(),
            }
        }
        if p.has(TextPiece::OTHER) {
            // A piece with a line read with care is read by every pass: what it says of
            // its other lines is not used.
            continue;
        }
        assert!(
            !naive.has(TextPiece::OTHER),
            "{name}: piece {k} holds a line the walk cannot read, and does not say so"
        );
        assert_eq!(*p, naive, "{name}: piece {k}");
        exact += 1;
    }
    exact
}

fn load_small(path: &Path) -> prvscope_store::Trace {
    let options = LoadOptions {
        read_window_bytes: 4 << 10,
        stream_block_bytes: 64 << 10,
        ..LoadOptions::default()
    };
    prvscope_import::load(path, &options, None).unwrap()
}

fn check_file(path: &Path) -> (usize, usize) {
    let trace = load_small(path);
    let text = common::text_of(path).into_bytes();
    let index = trace
        .text_index
        .as_deref()
        .unwrap_or_else(|| panic!("{}: no index", path.display()));
    let exact = check(&path.display().to_string(), &text, index);
    (exact, index.pieces.len())
}

#[test]
fn the_index_of_every_shared_trace_matches_a_walk_of_its_lines() {
    let Some(shared) = common::shared() else {
        return;
    };
    let mut paths = common::text_traces(&shared);
    paths.sort();
    let (mut exact, mut pieces) = (0, 0);
    for path in &paths {
        let (e, n) = check_file(path);
        exact += e;
        pieces += n;
    }
    // Most pieces hold only lines read fast: their times are checked exactly.
    assert!(exact * 2 > pieces, "{exact} of {pieces} pieces exact");
}

#[test]
fn the_index_of_generated_and_odd_texts_matches_a_walk_of_their_lines() {
    let dir = std::env::temp_dir().join(format!("prvscope-text-index-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, legacy, mpi) in [("legacy", true, false), ("null", false, true)] {
        let path = dir.join(format!("{name}.prv"));
        let opts = GenOptions {
            target_bytes: 600 << 10,
            legacy,
            mpi,
            ..GenOptions::default()
        };
        synth::generate(&path, &opts).unwrap();
        let (exact, pieces) = check_file(&path);
        assert!(
            pieces > 50 && exact == pieces,
            "{name}: {exact} of {pieces}"
        );
    }
    // Comments, an empty line, a bad line, a thread the header lacks, a state that ends
    // before it begins, records out of order, a last line without its newline.
    let header = "#Paraver (01/01/2026 at 00:00):1000_ns:1(2):1:1(2:1)\n";
    let mut body = String::new();
    for i in 0..4000u64 {
        let t = (i * 7919) % 1000;
        let _ = writeln!(body, "1:1:1:1:{}:{t}:{}:{}", 1 + i % 2, t + 5, i % 3);
        let _ = writeln!(body, "2:2:1:1:{}:{t}:50000001:{}", 1 + i % 2, i % 5);
        if i % 997 == 0 {
            body.push_str("# a comment\n\n");
        }
        if i % 1499 == 0 {
            body.push_str("1:1:1:1:9:10:20:1\n1:1:1:1:1:30:20:1\n2:1:1:1:1:x:1:1\n");
        }
        if i % 13 == 0 {
            let _ = writeln!(body, "3:1:1:1:1:{t}:{t}:2:1:1:2:{}:{}:8:1", t + 3, t + 4);
        }
    }
    body.push_str("2:1:1:1:1:999:50000001:7");
    let path = dir.join("odd.prv");
    std::fs::write(&path, format!("{header}{body}")).unwrap();
    let (exact, pieces) = check_file(&path);
    assert!(
        pieces > 10 && exact > 0 && exact < pieces,
        "odd: {exact} of {pieces}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

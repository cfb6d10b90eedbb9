//! A plain trace read from a file in pieces (positioned reads, each piece taking the lines
//! that start in its byte range) against the same bytes parsed in memory, whole and as a
//! part (a time range and some threads): same store, same skipped lines.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use prvscope_import::{self as trace, Compression, LoadOptions, NullOverride, Subset};

fn temp_file() -> PathBuf {
    std::env::temp_dir().join(format!("prvscope-fuzz-{}.prv", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, text)) = data.split_first() else {
        return;
    };
    if Compression::sniff(text) != Compression::None {
        return;
    }
    let path = temp_file();
    if std::fs::write(&path, text).is_err() {
        return;
    }
    let chunk = usize::from(knobs & 0x3F) + 1;
    let whole = LoadOptions {
        chunk_bytes: chunk,
        null: NullOverride::Zero,
        ..LoadOptions::default()
    };
    let Ok(from_file) = trace::load(&path, &whole, None) else {
        return;
    };
    let in_memory = trace::load_bytes(&path, text, None, &whole).expect("the file loaded");
    assert_eq!(from_file.store, in_memory.store);
    assert_eq!(
        from_file.report.skipped_lines(),
        in_memory.report.skipped_lines()
    );
    // A part: a range of the trace's times and every other thread.
    let end = from_file.store.end_time().max(1);
    let rows = from_file.store.threads().len();
    let threads = (0..rows)
        .step_by(2)
        .map(|r| (r + 1).to_string())
        .collect::<Vec<_>>()
        .join(",");
    let subset = Subset {
        from: Some(end / 4 * u64::from(knobs >> 6 & 1)),
        to: Some(end / 2 + end / 4 * u64::from(knobs >> 7)),
        threads: (rows > 1).then(|| threads.parse().expect("a thread list")),
    };
    let part = LoadOptions {
        subset,
        ..whole
    };
    let a = trace::load(&path, &part, None).expect("the part loaded");
    let b = trace::load_bytes(&path, text, None, &part).expect("the part loaded in memory");
    assert_eq!(a.store, b.store);
    let (from, to) = (part.subset.from.unwrap_or(0), part.subset.to.unwrap_or(u64::MAX));
    for row in 0..rows {
        for (begin, stop, _) in a.store.states_in(row, 0, u64::MAX) {
            assert!(stop >= from && begin <= to, "state {begin}-{stop} outside {from}-{to}");
        }
        if row % 2 == 1 {
            assert!(a.store.states_in(row, 0, u64::MAX).next().is_none());
        }
    }
});

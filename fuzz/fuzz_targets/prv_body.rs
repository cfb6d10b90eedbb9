//! The `.prv` body parser: fuzzed bytes after a fixed, valid header, parsed in small chunks so
//! that chunk boundaries fall everywhere. Besides never panicking, the parallel parser must
//! build the same store, and skip the same number of lines, as the naive line-by-line one.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use prvscope_store::NullPolicy;
use prvscope_import::{self as trace, LoadOptions, NullOverride};

const HEADER: &str = "#Paraver (01/01/2026 at 00:00):1000000_ns:1(4):2:2(1:1,2:1):1(1:1)\n";

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let text = format!("{HEADER}{body}");
    let options = LoadOptions {
        chunk_bytes: 64,
        null: NullOverride::Zero,
        ..LoadOptions::default()
    };
    let fast = trace::load_bytes(Path::new("fuzz.prv"), text.as_bytes(), None, &options)
        .expect("the header is valid");
    let naive = trace::naive::parse(&text, NullPolicy::default()).expect("the header is valid");
    assert!(*fast.store == naive.store, "stores differ");
    // A line both malformed and naming a missing thread may be classed either way, but it
    // is skipped once.
    let bad = fast.report.skipped_lines();
    assert_eq!(bad, naive.bad_lines + naive.out_of_range, "skipped lines");
});

//! The shared body of the `scan_*` targets, one per structural scanner backend: the
//! backend's non-digit masks equal the byte-at-a-time definition, and a `.prv` body parsed
//! with it (after a fixed, valid header, in small chunks so that chunk edges fall everywhere)
//! builds the store, and skips the lines, the naive line-by-line parser does. A backend the
//! machine cannot run returns at once.

use std::path::Path;

use prvscope_import::{self as trace, LoadOptions, NullOverride, ScanBackend};
use prvscope_store::NullPolicy;

const HEADER: &str = "#Paraver (01/01/2026 at 00:00):1000000_ns:1(4):2:2(1:1,2:1):1(1:1)\n";

pub fn check(backend: ScanBackend, data: &[u8]) {
    if !ScanBackend::available().contains(&backend) {
        return;
    }
    let mut masks = Vec::new();
    backend.scan(data, &mut masks);
    assert_eq!(masks, trace::prv::scan::naive(data), "masks of {backend:?}");
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let text = format!("{HEADER}{body}");
    let options = LoadOptions {
        chunk_bytes: 64,
        read_window_bytes: 48,
        null: NullOverride::Zero,
        scan: backend,
        ..LoadOptions::default()
    };
    let fast = trace::load_bytes(Path::new("fuzz.prv"), text.as_bytes(), None, &options)
        .expect("the header is valid");
    let naive = trace::naive::parse(&text, NullPolicy::default()).expect("the header is valid");
    assert!(*fast.store == naive.store, "stores differ ({backend:?})");
    assert_eq!(
        fast.report.skipped_lines(),
        naive.bad_lines + naive.out_of_range,
        "skipped lines ({backend:?})"
    );
}

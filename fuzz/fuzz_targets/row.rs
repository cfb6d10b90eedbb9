//! The `.row` parser: any bytes give names (bad lines are reported), never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use prvscope_format::{LoadReport, RowNames};

fuzz_target!(|data: &[u8]| {
    let mut report = LoadReport::default();
    let row = RowNames::parse(data, Path::new("fuzz.row"), &mut report);
    std::hint::black_box(row.level("THREAD"));
});

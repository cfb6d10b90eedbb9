//! The `.pcf` parser: any bytes give a `Pcf` (bad lines are reported), never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use prvscope_format::{LoadReport, Pcf};

fuzz_target!(|data: &[u8]| {
    let mut report = LoadReport::default();
    let pcf = Pcf::parse(data, Path::new("fuzz.pcf"), &mut report);
    for (&ty, info) in &pcf.event_types {
        for &v in info.values.keys() {
            std::hint::black_box(pcf.value_label(ty, v));
        }
    }
    std::hint::black_box(report.warnings());
});

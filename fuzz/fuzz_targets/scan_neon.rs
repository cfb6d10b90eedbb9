//! The structural scanner's Neon backend: see `scan_common.rs`.
#![no_main]

#[path = "scan_common.rs"]
mod scan_common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| scan_common::check(prvscope_import::ScanBackend::Neon, data));

//! The `#Paraver` header line: any bytes give a header or an error, never a panic or a giant
//! allocation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prvscope_format::Header;

fuzz_target!(|data: &[u8]| {
    let line = data.split(|&b| b == b'\n').next().unwrap_or(data);
    if let Ok(h) = Header::parse(line) {
        // What the loader does with a header: count its rows.
        let rows: u64 = h
            .applications
            .iter()
            .flat_map(|a| &a.tasks)
            .map(|t| u64::from(t.threads))
            .sum();
        std::hint::black_box(rows);
    }
});

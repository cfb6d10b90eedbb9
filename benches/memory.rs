//! Memory per record after loading: the store's own count of its bytes, and the growth of the
//! process's resident set (what the operating system sees), for the generated 1 GB trace and
//! the large ovni trace. Run with `cargo bench --bench memory`; it prints one line per trace.

use std::path::{Path, PathBuf};

use prvscope_import::{self as trace, LoadOptions};

#[path = "load.rs"]
#[allow(dead_code)]
mod load;

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn measure(path: &Path) {
    let before = rss_bytes();
    let t = trace::load(path, &LoadOptions::default(), None).expect("load");
    let after = rss_bytes();
    let n = t.store.counts().total();
    println!(
        "{}: {n} records, store {:.2} bytes/record, resident growth {:.2} bytes/record ({:.0} MB)",
        path.display(),
        t.store.bytes_per_record(),
        after.saturating_sub(before) as f64 / n as f64,
        after.saturating_sub(before) as f64 / 1e6
    );
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let xz: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces/ovni_gen_large_4x16/thread.prv.xz");
    if xz.exists() {
        measure(&xz);
    }
    measure(&load::generated_1gb());
}

//! What the crate's integration tests share.

#![allow(dead_code, clippy::unwrap_used)] // each test file uses part of it

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// `../shared` beside the repository; without it the test is skipped, except under
/// `CI=true`, where it fails (CI always has it).
pub fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if p.join("traces").is_dir() {
        Some(p)
    } else if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} not found: CI must run the tests on the real traces",
            p.display()
        );
    } else {
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

/// The six shared traces of paramedir's reference outputs (`../shared/reference/paramedir`),
/// under `../shared/traces`.
pub const REFERENCE_TRACES: [&str; 6] = [
    "extrae_mpi_prime16/prime_v0.prv",
    "extrae_omp_jacobi24/jacobi-2d-imper_v0.prv",
    "profet_lulesh_2appl_comms/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv",
    "pypop_imagemagick_omp4/omp4.prv.gz",
    "pypop_epoch_scaling/epoch_1proc.prv.gz",
    "pypop_epoch_scaling/epoch_2proc.prv.gz",
];

/// The text of a gzip file.
pub fn gunzip(path: &Path) -> String {
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    s
}

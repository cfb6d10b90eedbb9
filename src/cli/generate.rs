//! `prvscope gen`: write a deterministic synthetic trace.

use std::path::PathBuf;

use anyhow::Context as _;
use prvscope_format::units::parse_size;
use prvscope_import::synth::{self, GenOptions};

/// Write a deterministic synthetic trace (.prv, .pcf, .row; .prv.xz with --xz).
#[derive(clap::Args)]
pub struct Args {
    /// Output .prv path.
    pub out: PathBuf,
    #[arg(long, default_value_t = 16)]
    pub threads: u32,
    #[arg(long, default_value_t = 4)]
    pub threads_per_task: u32,
    /// Approximate size of the .prv, e.g. 100MB or 1GB.
    #[arg(long, default_value = "10MB", value_parser = parse_size)]
    pub size: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Legacy values: functions end with 0 and the .pcf has no `NULL_VALUE`.
    #[arg(long)]
    pub legacy: bool,
    /// Also write OUT.xz.
    #[arg(long)]
    pub xz: bool,
    /// MPI calls around the waits (Extrae's MPI event types), as an MPI program's trace.
    #[arg(long)]
    pub mpi: bool,
}

/// Runs `gen`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let s = synth::generate(
        &args.out,
        &GenOptions {
            threads: args.threads,
            threads_per_task: args.threads_per_task,
            target_bytes: args.size,
            seed: args.seed,
            legacy: args.legacy,
            xz: args.xz,
            mpi: args.mpi,
        },
    )
    .with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "{}: {} bytes, {} states, {} events, {} communications",
        s.prv.display(),
        s.bytes,
        s.state_records,
        s.event_records,
        s.comm_records
    );
    Ok(())
}

//! `prvscope export`: the trace's records as Parquet tables.

use std::path::PathBuf;
use std::time::Instant;

use prvscope_analysis::parquet_export::{self, ParquetOptions};
use prvscope_store::NullOverride;

use super::PartArgs;

/// Write the trace's records as Parquet tables (states, events, comms, objects, labels), one
/// folder each, for DuckDB, Polars, DataFusion or Spark.
#[derive(clap::Args)]
pub struct Args {
    /// The trace: x.prv, x.prv.xz or x.prv.gz.
    pub trace: PathBuf,
    /// The folder to write the tables to (earlier Parquet files there are replaced).
    #[arg(long, value_name = "DIR")]
    pub parquet: PathBuf,
    /// Records per row group of the states and events tables (row groups are time slices).
    #[arg(long, default_value_t = 1 << 20)]
    pub rows_per_group: u64,
    #[command(flatten)]
    pub part: PartArgs,
}

/// Runs `export`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let subset = args.part.subset();
    let t = args.part.load(&args.trace, NullOverride::Auto, &subset)?;
    super::print_warnings(&t);
    let started = Instant::now();
    let options = ParquetOptions {
        rows_per_group: args.rows_per_group.max(1),
        ..ParquetOptions::default()
    };
    let out = parquet_export::export(&t, &args.parquet, options).map_err(|e| {
        anyhow::anyhow!("could not write Parquet to {}: {e}", args.parquet.display())
    })?;
    for (table, rows, files) in &out.tables {
        println!(
            "{}: {rows} rows in {files} file{}",
            args.parquet.join(table).display(),
            if *files == 1 { "" } else { "s" }
        );
    }
    eprintln!(
        "loaded in {:.2} s, written in {:.2} s",
        t.stats.load_seconds,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

//! Integration tests: one binary made of modules (see ripgrep's layout).
#![allow(clippy::unwrap_used)] // test helpers fail loudly by design
#![allow(clippy::many_single_char_names, clippy::type_complexity)]

mod bad_input;
mod breakdown;
mod cache_check;
mod cli_refusals;
mod comm_lines;
mod common;
mod consistency;
mod convert;
mod cpu_rows;
mod demo;
mod dialogs;
mod differential;
mod generated;
mod histogram_table;
mod histogram_window;
mod hostile;
mod legend;
mod navigation;
mod one_engine;
mod parallel_vs_naive;
mod parquet_export;
mod parquet_stream;
mod part_dialog;
mod real_traces;
mod render;
mod replay;
mod same_time;
mod scope_panel;
mod scopes;
mod soak;
mod store_cache;
mod subset;
mod viewer;
mod widgets;

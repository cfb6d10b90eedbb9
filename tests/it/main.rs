//! Integration tests: one binary made of modules (see ripgrep's layout).

mod bad_input;
mod common;
mod generated;
mod parallel_vs_naive;
mod real_traces;

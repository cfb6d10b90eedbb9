//! Paraver's analyses, as Paraver computes them: configuration files (`.cfg`), the semantic
//! functions of its timeline windows evaluated over the store, its 2D/3D histograms, and
//! `paramedir`'s output text.

// The functions follow Paraver's own, names and all (a record `r`, intervals `i`, `j`); a
// window's cfg has Paraver's many boolean switches; values are compared exactly and sizes
// read as signed 64-bit numbers, as Paraver does, so that the results are Paraver's.
#![allow(
    clippy::many_single_char_names,
    clippy::struct_excessive_bools,
    clippy::float_cmp,
    clippy::cast_possible_wrap,
    clippy::match_same_arms,
    clippy::needless_range_loop,
    clippy::items_after_statements
)]

pub mod bsc_reading;
mod bursts;
pub mod cfg;
pub mod cfg_write;
pub mod cluster;
pub mod compose;
pub mod cut;
pub mod derived;
pub mod filter;
pub mod functions;
pub mod histogram;
pub mod labels;
pub mod levels;
pub mod number;
pub mod objects;
pub mod paramedir;
pub mod pop;
pub mod records;
pub mod replay;
mod resource;
pub mod save;
pub mod table;
pub mod thread;
pub mod window;

//! prvscope: a fast viewer for Paraver performance traces.
//!
//! The crate follows the data:
//! - [`trace`] reads bytes (plain, `.xz`, `.gz`) and parses the `.prv`, `.pcf` and `.row`,
//!   in parallel, into
//! - [`store`], the immutable columnar [`store::TraceStore`] shared by everything after it;
//! - [`analysis`] computes statistics over the store (Paraver's 2D analyzer) and the scopes
//!   of the source code (Carnival's blocks, inclusive and exclusive time, line heat);
//! - [`synth`] writes realistic synthetic traces for tests and benchmarks;
//! - [`cli`] holds the command-line subcommands that are not the viewer;
//! - [`ui`] is the eframe/egui viewer: timelines drawn from per-pixel summaries
//!   ([`store::summary`]) of the rows of a view ([`store::signal`]).
//!
//! `ARCHITECTURE.md` at the top of the repository maps the modules in more detail.

pub mod analysis;
pub mod cli;
pub mod store;
pub mod synth;
pub mod trace;
pub mod ui;

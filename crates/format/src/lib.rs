//! The Paraver trace format, without threads or GUI: the `#Paraver` header and its process
//! model ([`header`], [`rows`]; levels and object names in [`model`]), the `.pcf` ([`pcf`]) and `.row` ([`row`]) side files, the
//! part of a trace to load ([`subset`]), and what a load reports ([`error`]).

// The parsers read untrusted bytes: no indexing that could panic.
#![deny(clippy::indexing_slicing)]

pub mod catalog;
pub mod error;
pub mod files;
pub mod header;
pub mod label;
pub mod model;
pub mod pcf;
pub mod row;
pub mod rows;
pub mod subset;
pub mod units;

pub use error::{Issue, IssueKind, LoadError, LoadReport};
pub use header::{Header, TimeUnit};
pub use pcf::{NullValue, Pcf};
pub use row::RowNames;
pub use rows::{CpuMisfit, RowMap};
pub use subset::{Subset, ThreadSpec};

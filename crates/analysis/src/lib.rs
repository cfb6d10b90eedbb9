//! Analyses over a loaded store, independent of the UI: statistics (Paraver's 2D analyzer)
//! and scopes (Carnival's blocks, inclusive and exclusive time, line heat) with their source
//! locations; a scope's time per thread and state (its breakdown); the scope panel's layout
//! model.

pub mod breakdown;
pub mod panel;
pub mod parquet_export;
pub mod scopes;
pub mod source;
pub mod stats;
pub mod table;

//! Analyses over a loaded store, independent of the UI: statistics (Paraver's 2D analyzer).

pub mod stats;

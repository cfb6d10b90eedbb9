//! What prvscope draws, without a window or a GPU (no GUI crate: the meshes, colours and
//! images are `epaint`'s, egui's painting types): the viewer shows it, `prvscope render`
//! writes it.
//!
//! - [`frame`]: building one frame of the timeline from per-pixel summaries (benched);
//! - [`view`]: what a view reads and how its values become colours and labels;
//! - [`rows`]: rows grouped by application and task, collapsible;
//! - [`find`]: Find's queries over the trace;
//! - [`cfg_view`]: a Paraver cfg's timeline window as a view;
//! - [`render`]: the timeline drawn headless as PNG and CSV (`prvscope render`);
//! - [`theme`]: every colour.

pub mod cfg_view;
pub mod find;
pub mod frame;
pub mod render;
pub mod rows;
pub mod theme;
pub mod view;

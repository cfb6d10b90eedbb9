//! Compact columns: times as per-block bases plus 32-bit deltas, values in the narrowest width.
//!
//! A Paraver time is a `u64` tick count, but consecutive records of one thread are close in
//! time, so each block of [`BLOCK`] records keeps one 64-bit base and every record a 32-bit delta
//! from it (as `LTTng` does). A delta that does not fit (a gap of more than 2^32 - 1 ticks, or a
//! time before the base in a column that is not sorted) is stored as [`ESCAPE`] and its full
//! value goes to a small sorted side table, so random access stays O(1) in the common case and
//! O(log escapes) otherwise.
//!
//! Values keep the width of the largest value in the column (8, 16, 32 or 64 bits). The null
//! sentinel is stored as the all-ones value of the narrow width, so a column of small values
//! with a few nulls stays narrow.
//!
//! A column is a list of segments, like Arrow's chunked arrays: the loader parses a trace in
//! chunks, encodes each chunk's records of one thread and type as a segment, and joins the
//! segments of consecutive chunks by moving them instead of copying. Short pieces are appended
//! to the previous segment instead, so that a rare event type does not pay a segment per
//! record. Finding a record by index or time first finds its segment by binary search.

mod buf;
pub(crate) mod persist;
mod segments;
mod slab;
#[cfg(test)]
mod tests;
mod time;
mod value;

pub use buf::{Buf, Mapped};
pub use segments::{MOVE_MIN, Segment, Segments};
pub use slab::{
    POOL_MAX, Placed, Slab, SlabWriter, release_slab_pool, release_slab_pool_but_one, slab_bytes,
};
pub use time::{BLOCK, ESCAPE, PlacedTime, TimeColumn, TimeSeg};
pub use value::{PlacedValue, ValueColumn, ValueSeg};

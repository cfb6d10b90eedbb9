//! [`SlabWriter`]: one block of fresh memory that the arrays of a chunk's pieces are copied
//! into at their exact sizes, then shared read-only between them ([`Buf::Shared`]).
//!
//! A load writes its whole store into memory the process has not touched before, and every
//! 4 kB page of it costs a page fault at first touch. A slab is one anonymous mapping per
//! chunk, advised for transparent huge pages on Linux (where the system allows them: a
//! hint, the pages are 4 kB otherwise), so that its pages mostly come 2 MB at a time. Its
//! memory goes back to the system when the last array in it is dropped.

use std::marker::PhantomData;
use std::sync::Arc;

use bytemuck::Pod;

use super::{Buf, Mapped};

/// Arrays start on multiples of this many bytes (the widest element).
const ALIGN: usize = 8;

/// The bytes an array of `len` elements of `T` takes in a slab.
pub fn slab_bytes<T>(len: usize) -> usize {
    len.saturating_mul(size_of::<T>()).next_multiple_of(ALIGN)
}

/// Where an array was copied in a slab: made an array of the slab once it is filled.
#[derive(Debug)]
pub struct Placed<T> {
    start: usize,
    len: usize,
    of: PhantomData<T>,
}

impl<T: Pod> Placed<T> {
    /// The array in the filled slab `map` (`None` if it does not lie inside `map`).
    pub fn buf(&self, map: &Mapped) -> Option<Buf<T>> {
        Buf::shared(map, self.start, self.len)
    }
}

/// A huge page (x86-64 and aarch64 with 4 kB pages).
const HUGE: usize = 2 << 20;

/// A slab being filled.
pub struct SlabWriter {
    map: memmap2::MmapMut,
    at: usize,
}

impl SlabWriter {
    /// A slab of `bytes`; `None` when `bytes` is 0 or the memory could not be mapped.
    ///
    /// Of at least a huge page, it is mapped a huge page longer, and its arrays start at
    /// the first huge page boundary in it (the system aligns only mappings whose length is
    /// a multiple of a huge page); its whole huge pages are advised to be huge, not its
    /// last part, which would make a whole huge page resident for a few bytes. The part
    /// before the boundary is never touched, so it takes no memory.
    pub fn new(bytes: usize) -> Option<Self> {
        if bytes == 0 {
            return None;
        }
        let huge = bytes >= HUGE;
        let len = if huge {
            bytes.checked_add(HUGE)?
        } else {
            bytes
        };
        let map = memmap2::MmapOptions::new().len(len).map_anon().ok()?;
        let at = if huge {
            (HUGE - map.as_ptr() as usize % HUGE) % HUGE
        } else {
            0
        };
        // A hint only: where transparent huge pages are off, the pages are 4 kB.
        #[cfg(target_os = "linux")]
        if huge {
            let _ = map.advise_range(memmap2::Advice::HugePage, at, bytes / HUGE * HUGE);
        }
        Some(SlabWriter { map, at })
    }

    /// Copies `xs` into the slab; `None` when it has no room left for them.
    pub fn put<T: Pod>(&mut self, xs: &[T]) -> Option<Placed<T>> {
        let bytes: &[u8] = bytemuck::cast_slice(xs);
        let start = self.at;
        let end = start.checked_add(bytes.len())?;
        self.map.get_mut(start..end)?.copy_from_slice(bytes);
        self.at = end.next_multiple_of(ALIGN);
        Some(Placed {
            start,
            len: xs.len(),
            of: PhantomData,
        })
    }

    /// The filled slab, read-only from now on.
    pub fn finish(self) -> Option<Mapped> {
        self.map.make_read_only().ok().map(Arc::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_put_in_a_slab_read_back_as_shared_heap_arrays() {
        let wide: Vec<u64> = (0..1000).map(|i| i * 7).collect();
        let deltas: Vec<u32> = (0..333).collect();
        let bytes: Vec<u8> = (0..5).collect();
        let halves: Vec<u16> = (0..9).map(|i| i * 1000).collect();
        let need = slab_bytes::<u64>(wide.len())
            + slab_bytes::<u32>(deltas.len())
            + slab_bytes::<u8>(bytes.len())
            + slab_bytes::<u16>(halves.len());
        assert_eq!(need, 8000 + 1336 + 8 + 24);
        let mut slab = SlabWriter::new(need).unwrap();
        let placed_wide = slab.put(&wide).unwrap();
        let placed_deltas = slab.put(&deltas).unwrap();
        let placed_bytes = slab.put(&bytes).unwrap();
        let placed_halves = slab.put(&halves).unwrap();
        // Full: nothing more fits.
        assert!(slab.put(&[1u8]).is_none());
        let map = slab.finish().unwrap();
        let in_slab_wide = placed_wide.buf(&map).unwrap();
        assert_eq!(&in_slab_wide[..], &wide[..]);
        assert_eq!(&placed_deltas.buf(&map).unwrap()[..], &deltas[..]);
        assert_eq!(&placed_halves.buf(&map).unwrap()[..], &halves[..]);
        assert_eq!(in_slab_wide.heap_bytes(), 8000);
        assert_eq!(placed_deltas.buf(&map).unwrap().heap_bytes(), 1332);
        assert_eq!(in_slab_wide.mapped_bytes(), 0);
        assert!(!in_slab_wide.is_mapped());
        // Changed: copied out first, the slab unchanged.
        let mut changed = placed_bytes.buf(&map).unwrap();
        changed.push(9);
        assert_eq!(&changed[..], &[0, 1, 2, 3, 4, 9]);
        assert_eq!(&placed_bytes.buf(&map).unwrap()[..], &bytes[..]);
        let mut cleared = placed_halves.buf(&map).unwrap();
        cleared.clear();
        assert!(cleared.is_empty());
        // Not inside a smaller slab.
        let mut small = SlabWriter::new(8).unwrap();
        small.put(&[1u64]).unwrap();
        assert!(placed_wide.buf(&small.finish().unwrap()).is_none());
        assert!(SlabWriter::new(0).is_none());
    }

    #[test]
    fn a_slab_of_huge_pages_starts_its_arrays_on_a_huge_page_boundary() {
        let times: Vec<u32> = (0..(3 * HUGE / 4 + 5) as u32).collect();
        let mut slab = SlabWriter::new(slab_bytes::<u32>(times.len())).unwrap();
        let placed = slab.put(&times).unwrap();
        let map = slab.finish().unwrap();
        assert_eq!((map.as_ptr() as usize + placed.start) % HUGE, 0);
        assert_eq!(&placed.buf(&map).unwrap()[..], &times[..]);
    }
}

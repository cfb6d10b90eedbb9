//! [`SlabWriter`]: one block of fresh memory that the arrays of a chunk's pieces are copied
//! into at their exact sizes, then shared read-only between them ([`Buf::Shared`]).
//!
//! A load writes its whole store into memory the process has not touched before, and every
//! 4 kB page of it costs a page fault at first touch. A slab is one anonymous mapping per
//! chunk, advised for transparent huge pages on Linux (where the system allows them: a
//! hint, the pages are 4 kB otherwise), so that its pages mostly come 2 MB at a time, except
//! in a virtual machine that gives free memory back to its host ([`huge_pages_pay`]). When
//! the last array in a slab is dropped, its memory is kept for the slabs of the next load
//! ([`POOL_MAX`]), as an allocator keeps freed memory: a load after another in one process
//! then writes into pages already touched instead of having fresh ones zeroed and faulted
//! in.

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::{Arc, Mutex};

use bytemuck::Pod;

use super::Buf;

/// Arrays start on multiples of this many bytes (the widest element).
const ALIGN: usize = 8;

/// A huge page (x86-64 and aarch64 with 4 kB pages).
const HUGE: usize = 2 << 20;

/// The memory of dropped slabs kept for new ones, at most this many bytes; more is given
/// back to the system.
pub const POOL_MAX: usize = 512 << 20;

/// The memory of dropped slabs, for new ones, with the bytes each one's arrays took
/// (touched: resident).
static POOL: Mutex<Vec<(memmap2::MmapMut, usize)>> = Mutex::new(Vec::new());

/// The bytes an array of `len` elements of `T` takes in a slab.
pub fn slab_bytes<T>(len: usize) -> usize {
    len.saturating_mul(size_of::<T>()).next_multiple_of(ALIGN)
}

/// Where the arrays of a slab mapped as `map` start: the first huge page boundary in it
/// when it is longer than a huge page (it was mapped a huge page longer than needed, see
/// [`SlabWriter::new`]), else its start.
fn first_byte(map: &[u8]) -> usize {
    if map.len() > HUGE {
        (HUGE - map.as_ptr() as usize % HUGE) % HUGE
    } else {
        0
    }
}

/// A mapping of the pool with room for `bytes` whose arrays took at most a quarter more
/// (pages touched and not used again: resident for nothing), the one that took the fewest.
fn from_pool(bytes: usize) -> Option<memmap2::MmapMut> {
    let mut pool = POOL.lock().ok()?;
    let best = best_fit(&pool, bytes)?;
    Some(pool.swap_remove(best).0)
}

/// The index in `pool` of the mapping [`from_pool`] takes for `bytes`.
fn best_fit(pool: &[(memmap2::MmapMut, usize)], bytes: usize) -> Option<usize> {
    pool.iter()
        .enumerate()
        .filter(|(_, (m, took))| m.len() - first_byte(m) >= bytes && *took <= bytes + bytes / 4)
        .min_by_key(|(_, (_, took))| *took)
        .map(|(i, _)| i)
}

/// Keeps `map`, whose arrays took `took` bytes, for new slabs, unless the pool holds
/// [`POOL_MAX`] bytes with it (it is unmapped then).
fn to_pool(map: memmap2::MmapMut, took: usize) {
    if let Ok(mut pool) = POOL.lock()
        && pool.iter().map(|(m, _)| m.len()).sum::<usize>() + map.len() <= POOL_MAX
    {
        pool.push((map, took));
    }
}

/// Gives the memory the pool keeps back to the system (where the allocator's free memory
/// is given back too: between the batches of a conversion when memory is short, and once a
/// load's chunks are parsed, when the slabs the parse did not take will not be taken).
pub fn release_slab_pool() {
    let kept = POOL.lock().map(|mut pool| std::mem::take(&mut *pool));
    drop(kept);
}

/// [`release_slab_pool`], except the mapping a slab of `bytes` about to be made would take
/// from it: a load's messages are joined into a slab after its chunks are parsed, when the
/// rest of the pool is given back (the 1 GB, 64-thread trace's 62 MB list, loaded again in
/// one process, then had its pages faulted in afresh every time).
pub fn release_slab_pool_but_one(bytes: usize) {
    let kept = POOL.lock().map(|mut pool| {
        let one = best_fit(&pool, bytes).map(|i| pool.swap_remove(i));
        let rest = std::mem::take(&mut *pool);
        pool.extend(one);
        rest
    });
    drop(kept);
}

/// A filled slab, read-only: shared by its arrays ([`Buf::Shared`]); its memory goes back
/// to the pool when the last of them is dropped.
pub struct Slab {
    map: Option<memmap2::MmapMut>,
    /// The bytes its arrays took.
    took: usize,
}

impl Deref for Slab {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or_default()
    }
}

impl Drop for Slab {
    fn drop(&mut self) {
        if let Some(map) = self.map.take() {
            to_pool(map, self.took);
        }
    }
}

/// Where an array was copied in a slab: made an array of the slab once it is filled.
#[derive(Debug)]
pub struct Placed<T> {
    start: usize,
    len: usize,
    of: PhantomData<T>,
}

impl<T: Pod> Placed<T> {
    /// The array in the filled slab `slab` (`None` if it does not lie inside `slab`).
    pub fn buf(&self, slab: &Arc<Slab>) -> Option<Buf<T>> {
        Buf::shared(slab, self.start, self.len)
    }
}

/// Are fresh slabs worth advising for transparent huge pages? Not in a virtual machine whose
/// free memory is reported to its host (a virtio balloon with free page reporting): the
/// host takes back free blocks of a huge page and more, so a huge page made of such a block
/// is faulted in again on the host 4 kB at a time while the kernel zeroes it, where 4 kB
/// pages come mostly from smaller free blocks, which stay in the guest.
///
/// Measured in such a VM (2 cores): 354 MB of fresh memory (the 64-thread 1 GB trace's
/// store) touched once took 0.41-0.53 s as huge pages after 3 s idle, 0.03 s when it had
/// been freed under a second before, and 0.14 s as 4 kB pages either way. `prvscope info
/// --no-cache`, 3 s idle before each run, eight runs alternating with the build that always
/// advised huge pages (medians): the 64-thread trace 0.860 s wall and 1.64 s of CPU against
/// 0.940 s and 1.78 s, the ovni trace 0.220 s against 0.235 s, the 4096-thread one (its
/// store mostly on the heap) the same within the noise. Loads back to back, as the benches
/// run them, take the same time either way (the 64-thread trace 0.74-0.76 s in one process).
#[cfg(target_os = "linux")]
fn huge_pages_pay() -> bool {
    static PAY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PAY.get_or_init(|| !free_pages_reported())
}

/// Does a virtio device of this system report free memory to the host?
#[cfg(target_os = "linux")]
fn free_pages_reported() -> bool {
    let Ok(devices) = std::fs::read_dir("/sys/bus/virtio/devices") else {
        return false;
    };
    devices.flatten().any(|d| {
        let read = |f: &str| std::fs::read_to_string(d.path().join(f)).unwrap_or_default();
        reports_free_pages(&read("device"), &read("features"))
    })
}

/// From a virtio device's `device` and `features` files (sysfs; `features` has one `0` or
/// `1` per feature bit, bit 0 first): is it a memory balloon (device 5) that negotiated
/// free page reporting (`VIRTIO_BALLOON_F_REPORTING`, bit 5)?
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn reports_free_pages(device: &str, features: &str) -> bool {
    device.trim() == "0x0005" && features.as_bytes().get(5) == Some(&b'1')
}

/// A slab being filled.
pub struct SlabWriter {
    map: memmap2::MmapMut,
    at: usize,
}

impl SlabWriter {
    /// A slab of `bytes`, from the pool or freshly mapped; `None` when `bytes` is 0 or the
    /// memory could not be mapped.
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
        if let Some(map) = from_pool(bytes) {
            let at = first_byte(&map);
            return Some(SlabWriter { map, at });
        }
        let huge = bytes >= HUGE;
        let len = if huge {
            bytes.checked_add(HUGE)?
        } else {
            bytes
        };
        let map = memmap2::MmapOptions::new().len(len).map_anon().ok()?;
        let at = first_byte(&map);
        // A hint only: where transparent huge pages are off, the pages are 4 kB.
        #[cfg(target_os = "linux")]
        if huge && huge_pages_pay() {
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

    /// Room for an array of `len` elements, to be filled in place (by several threads, in
    /// parts): it holds zeros, or what an earlier slab of the pool left there (any bytes
    /// are a valid `T`: it is `Pod`). `None` when the slab has no room left for it, or when
    /// `T` needs a wider alignment than the slab's arrays have.
    pub fn array_mut<T: Pod>(&mut self, len: usize) -> Option<(Placed<T>, &mut [T])> {
        let start = self.at;
        let end = start.checked_add(len.checked_mul(size_of::<T>())?)?;
        let bytes = self.map.get_mut(start..end)?;
        let array = bytemuck::try_cast_slice_mut(bytes).ok()?;
        self.at = end.next_multiple_of(ALIGN);
        Some((
            Placed {
                start,
                len,
                of: PhantomData,
            },
            array,
        ))
    }

    /// The filled slab, read-only from now on.
    pub fn finish(self) -> Arc<Slab> {
        let took = self.at - first_byte(&self.map);
        Arc::new(Slab {
            map: Some(self.map),
            took,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_page_reporting_is_read_from_a_balloon_s_feature_bits() {
        // A balloon with statistics, deflate on OOM and free page reporting.
        let balloon = "0110010100000000000000000000000010000000000000000000000000000000\n";
        assert!(reports_free_pages("0x0005\n", balloon));
        // The same balloon without reporting (bit 5).
        let no_reporting = "0110000100000000000000000000000010000000000000000000000000000000\n";
        assert!(!reports_free_pages("0x0005\n", no_reporting));
        // A block device with the same bits set is not a balloon.
        assert!(!reports_free_pages("0x0002\n", balloon));
        // Files that could not be read.
        assert!(!reports_free_pages("", ""));
        assert!(!reports_free_pages("0x0005", "01100"));
    }

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
        let map = slab.finish();
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
        assert!(placed_wide.buf(&small.finish()).is_none());
        assert!(SlabWriter::new(0).is_none());
    }

    #[test]
    fn an_array_filled_in_place_reads_back_after_the_arrays_put_before_it() {
        let before: Vec<u16> = vec![3, 1, 4];
        let len = 1000;
        let mut slab =
            SlabWriter::new(slab_bytes::<u16>(before.len()) + slab_bytes::<u64>(len)).unwrap();
        let placed_before = slab.put(&before).unwrap();
        let (placed, array) = slab.array_mut::<u64>(len).unwrap();
        assert_eq!(array.len(), len);
        for (i, x) in array.iter_mut().enumerate() {
            *x = i as u64 * 11;
        }
        // No room left for one more element.
        assert!(slab.array_mut::<u64>(1).is_none());
        let map = slab.finish();
        let filled = placed.buf(&map).unwrap();
        assert_eq!(filled.len(), len);
        assert!(filled.iter().enumerate().all(|(i, &x)| x == i as u64 * 11));
        assert_eq!(&placed_before.buf(&map).unwrap()[..], &before[..]);
        // The second array starts at the alignment after the first's 6 bytes.
        assert_eq!(placed.start - placed_before.start, 8);
    }

    #[test]
    fn a_slab_of_huge_pages_starts_its_arrays_on_a_huge_page_boundary() {
        let times: Vec<u32> = (0..(3 * HUGE / 4 + 5) as u32).collect();
        let mut slab = SlabWriter::new(slab_bytes::<u32>(times.len())).unwrap();
        let placed = slab.put(&times).unwrap();
        let map = slab.finish();
        assert_eq!((map.as_ptr() as usize + placed.start) % HUGE, 0);
        assert_eq!(&placed.buf(&map).unwrap()[..], &times[..]);
    }

    #[test]
    fn a_dropped_slabs_memory_is_taken_again_by_a_slab_of_about_its_size() {
        // A size no other test asks for, nor takes from the pool.
        let bytes = 9 * HUGE + 12_344;
        let mut slab = SlabWriter::new(bytes).unwrap();
        slab.put(&vec![1u8; bytes]).unwrap();
        let slab = slab.finish();
        let first = slab.as_ptr();
        let array = {
            let mut again = SlabWriter::new(bytes).unwrap();
            // Not while an array of it lives.
            assert_ne!(again.map.as_ptr(), first);
            again.put(&[7u64]).unwrap().buf(&again.finish()).unwrap()
        };
        drop(slab);
        // A fifth smaller: the same memory; its arrays start on the huge page again.
        let mut reused = SlabWriter::new(bytes - bytes / 5).unwrap();
        assert_eq!(reused.map.as_ptr(), first);
        assert_eq!((first as usize + reused.at) % HUGE, 0);
        // Its arrays read back as written, not as the bytes the slab held before (all 1).
        let wide: Vec<u64> = (0..(bytes - bytes / 5) as u64 / 8 - 2)
            .map(|i| i * 3)
            .collect();
        let halves: Vec<u16> = (0..5).collect();
        let (placed_wide, placed_halves) =
            (reused.put(&wide).unwrap(), reused.put(&halves).unwrap());
        let reused = reused.finish();
        assert_eq!(&placed_wide.buf(&reused).unwrap()[..], &wide[..]);
        assert_eq!(&placed_halves.buf(&reused).unwrap()[..], &halves[..]);
        drop(reused);
        // Half the size: not that memory (most of what its arrays took would be resident
        // for nothing), which stays in the pool.
        let smaller = SlabWriter::new(bytes / 2).unwrap();
        assert_ne!(smaller.map.as_ptr(), first);
        let mut again = SlabWriter::new(bytes).unwrap();
        assert_eq!(again.map.as_ptr(), first);
        again.put(&vec![2u8; bytes]).unwrap();
        drop(again.finish());
        // The pool given back but the mapping a slab of `bytes` would take: that one is
        // taken again, another size's is not.
        let other = 5 * HUGE + 4_321;
        let mut o = SlabWriter::new(other).unwrap();
        o.put(&vec![3u8; other]).unwrap();
        drop(o.finish());
        release_slab_pool_but_one(bytes);
        // Fresh memory (zeros), not the pooled one (its bytes were 3).
        let mut fresh = SlabWriter::new(other).unwrap();
        assert!(
            fresh
                .array_mut::<u8>(other)
                .unwrap()
                .1
                .iter()
                .all(|&b| b == 0)
        );
        drop(fresh);
        let mut kept = SlabWriter::new(bytes).unwrap();
        assert_eq!(kept.map.as_ptr(), first);
        assert!(
            kept.array_mut::<u8>(bytes)
                .unwrap()
                .1
                .iter()
                .all(|&b| b == 2)
        );
        // Given back: not taken again.
        drop(kept.finish());
        release_slab_pool();
        assert!(from_pool(bytes).is_none());
        // The array of the other slab is still there.
        assert_eq!(&array[..], &[7]);
    }
}

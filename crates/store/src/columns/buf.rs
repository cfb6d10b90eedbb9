//! [`Buf`]: the array under a column segment, either a vector the loader built, a slice of
//! a memory-mapped store cache read in place (see [`crate::cache`]), or a slice of a slab
//! of memory the loader filled with a chunk's arrays (see [`super::slab`]).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use bytemuck::Pod;

use super::Slab;

/// A read-only mapped file, shared by every array read from it.
pub type Mapped = Arc<memmap2::Mmap>;

/// An array of `T`: owned, or `len` elements at byte `start` of a mapping. Reading is the
/// same in every case (it derefs to `&[T]`); changing an array that is not owned copies it
/// first (only the loader changes arrays, and it builds owned ones).
#[derive(Clone)]
pub enum Buf<T> {
    Owned(Vec<T>),
    /// In a mapped file: its pages belong to the file.
    Mapped {
        map: Mapped,
        start: usize,
        len: usize,
    },
    /// In a slab the loader filled: process memory, counted as heap.
    Shared {
        map: Arc<Slab>,
        start: usize,
        len: usize,
    },
}

impl<T> Default for Buf<T> {
    fn default() -> Self {
        Buf::Owned(Vec::new())
    }
}

impl<T: Pod> Buf<T> {
    /// An empty owned array with room for `n` elements.
    pub fn with_capacity(n: usize) -> Self {
        Buf::Owned(Vec::with_capacity(n))
    }

    /// `len` elements at byte `start` of the mapped file `map`, if they lie inside it and are
    /// aligned for `T`.
    pub fn mapped(map: &Mapped, start: usize, len: usize) -> Option<Self> {
        Self::fits(map.as_ref(), start, len)?;
        Some(Buf::Mapped {
            map: Arc::clone(map),
            start,
            len,
        })
    }

    /// `len` elements at byte `start` of the slab `map`, if they lie inside it and are
    /// aligned for `T`.
    pub fn shared(map: &Arc<Slab>, start: usize, len: usize) -> Option<Self> {
        Self::fits(map.as_ref(), start, len)?;
        Some(Buf::Shared {
            map: Arc::clone(map),
            start,
            len,
        })
    }

    /// Do `len` elements at byte `start` of `map` lie inside it, aligned for `T`?
    fn fits(map: &[u8], start: usize, len: usize) -> Option<()> {
        let bytes = map.get(start..start.checked_add(len.checked_mul(size_of::<T>())?)?)?;
        bytemuck::try_cast_slice::<u8, T>(bytes).ok().map(|_| ())
    }

    /// The elements.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match self {
            Buf::Owned(v) => v,
            Buf::Mapped { map, start, len } => Self::elements(map, *start, *len),
            Buf::Shared { map, start, len } => Self::elements(map, *start, *len),
        }
    }

    /// The `len` elements at byte `start` of `bytes` (checked when the array was made).
    #[inline]
    fn elements(bytes: &[u8], start: usize, len: usize) -> &[T] {
        bytes
            .get(start..start + len * size_of::<T>())
            .and_then(|b| bytemuck::try_cast_slice(b).ok())
            .unwrap_or_default()
    }

    /// The vector to change: an array that is not owned is copied into one first.
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if !matches!(self, Buf::Owned(_)) {
            *self = Buf::Owned(self.as_slice().to_vec());
        }
        match self {
            Buf::Owned(v) => v,
            Buf::Mapped { .. } | Buf::Shared { .. } => unreachable!("made owned above"),
        }
    }

    #[inline]
    pub fn push(&mut self, x: T) {
        self.to_mut().push(x);
    }

    pub fn extend_from_slice(&mut self, xs: &[T]) {
        self.to_mut().extend_from_slice(xs);
    }

    pub fn reserve(&mut self, additional: usize) {
        self.to_mut().reserve(additional);
    }

    /// Makes room for exactly `total` elements in all (nothing when there is room).
    pub fn reserve_total(&mut self, total: usize) {
        let v = self.to_mut();
        if total > v.capacity() {
            v.reserve_exact(total - v.len());
        }
    }

    /// Elements the array holds room for (its length when not owned).
    pub fn capacity(&self) -> usize {
        match self {
            Buf::Owned(v) => v.capacity(),
            Buf::Mapped { len, .. } | Buf::Shared { len, .. } => *len,
        }
    }

    /// Empties the array, keeping an owned array's room.
    pub fn clear(&mut self) {
        match self {
            Buf::Owned(v) => v.clear(),
            Buf::Mapped { .. } | Buf::Shared { .. } => *self = Buf::default(),
        }
    }

    pub fn shrink_to_fit(&mut self) {
        if let Buf::Owned(v) = self {
            v.shrink_to_fit();
        }
    }

    /// Heap bytes held (none for an array in a mapped file: its pages belong to the file;
    /// its own elements for one in a slab).
    pub fn heap_bytes(&self) -> usize {
        match self {
            Buf::Owned(v) => v.capacity() * size_of::<T>(),
            Buf::Mapped { .. } => 0,
            Buf::Shared { len, .. } => len * size_of::<T>(),
        }
    }

    /// Bytes of the mapped file this array reads (none for any other).
    pub fn mapped_bytes(&self) -> usize {
        match self {
            Buf::Owned(_) | Buf::Shared { .. } => 0,
            Buf::Mapped { len, .. } => len * size_of::<T>(),
        }
    }

    /// Bytes of a slab this array reads (none for any other).
    pub fn shared_bytes(&self) -> usize {
        match self {
            Buf::Shared { len, .. } => len * size_of::<T>(),
            Buf::Owned(_) | Buf::Mapped { .. } => 0,
        }
    }

    /// Is this array read from a mapped file?
    pub fn is_mapped(&self) -> bool {
        matches!(self, Buf::Mapped { .. })
    }
}

impl<T: Pod> Deref for Buf<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<'a, T: Pod> IntoIterator for &'a Buf<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T> From<Vec<T>> for Buf<T> {
    fn from(v: Vec<T>) -> Self {
        Buf::Owned(v)
    }
}

impl<T: Pod> FromIterator<T> for Buf<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Buf::Owned(iter.into_iter().collect())
    }
}

impl<T: Pod> Extend<T> for Buf<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.to_mut().extend(iter);
    }
}

impl<T: Pod + PartialEq> PartialEq for Buf<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Pod + Eq> Eq for Buf<T> {}

impl<T: Pod + fmt::Debug> fmt::Debug for Buf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_of(bytes: &[u8]) -> Mapped {
        let path = std::env::temp_dir().join(format!(
            "prvscope-buf-{}-{}",
            std::process::id(),
            bytes.len()
        ));
        std::fs::write(&path, bytes).unwrap();
        let map = crate::cache::map_file(&std::fs::File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        map
    }

    #[test]
    fn mapped_arrays_read_in_place_and_copy_on_change() {
        let values: Vec<u64> = (0..100).map(|i| i * 3).collect();
        let map = map_of(bytemuck::cast_slice(&values));
        let mut b = Buf::<u64>::mapped(&map, 8, 99).unwrap();
        assert!(b.is_mapped());
        assert_eq!(&b[..], &values[1..]);
        assert_eq!(b.heap_bytes(), 0);
        assert_eq!(b.mapped_bytes(), 99 * 8);
        b.push(7);
        assert!(!b.is_mapped());
        assert_eq!(b.len(), 100);
        assert_eq!(b.last(), Some(&7));
        // Out of the file, or misaligned: refused.
        assert!(Buf::<u64>::mapped(&map, 8, 100).is_none());
        assert!(Buf::<u64>::mapped(&map, 4, 2).is_none());
        assert!(Buf::<u32>::mapped(&map, 4, 2).is_some());
        assert!(Buf::<u64>::mapped(&map, usize::MAX - 3, 1).is_none());
    }
}

//! The generic list of segments a column is made of, and what it needs from a segment.

use super::{TimeSeg, ValueSeg};

/// Pieces at least this long are moved into a column as segments; shorter ones are copied
/// onto the end of the last segment. A generated 1 GB trace of 4096 threads parsed by two
/// workers gives two pieces of about 800 records per (thread, type): with 1024 they were
/// all copied, 0.21 s of the load's 1.3 s on two cores (0.40 s on one); with 256 they are
/// moved (0.07 s), its resident size after loading 447 MB instead of 491 MB.
pub const MOVE_MIN: usize = 256;

/// What a column needs from its segments.
pub trait Segment {
    /// Number of records.
    fn seg_len(&self) -> usize;
    /// Heap bytes held.
    fn seg_heap_bytes(&self) -> usize;
    /// Makes room for `additional` more records.
    fn seg_reserve(&mut self, additional: usize);
    /// Gives back the room not used.
    fn seg_shrink(&mut self);
}

impl Segment for TimeSeg {
    fn seg_len(&self) -> usize {
        self.len()
    }
    fn seg_heap_bytes(&self) -> usize {
        self.heap_bytes()
    }
    fn seg_reserve(&mut self, additional: usize) {
        self.reserve(additional);
    }
    fn seg_shrink(&mut self) {
        self.shrink_to_fit();
    }
}

impl Segment for ValueSeg {
    fn seg_len(&self) -> usize {
        self.len()
    }
    fn seg_heap_bytes(&self) -> usize {
        self.heap_bytes()
    }
    fn seg_reserve(&mut self, additional: usize) {
        self.reserve(additional);
    }
    fn seg_shrink(&mut self) {
        self.shrink_to_fit();
    }
}

/// A list of segments with the index of each one's first record: the part that
/// [`TimeColumn`](super::TimeColumn) and [`ValueColumn`](super::ValueColumn) share.
#[derive(Debug, Clone)]
pub struct Segments<S> {
    pub(super) segs: Vec<S>,
    /// Index of the first record of each segment; same length as `segs`.
    pub(super) starts: Vec<usize>,
    pub(super) len: usize,
}

impl<S> Default for Segments<S> {
    fn default() -> Self {
        Segments {
            segs: Vec::new(),
            starts: Vec::new(),
            len: 0,
        }
    }
}

impl<S: Segment> Segments<S> {
    pub(super) fn single(seg: S) -> Self {
        let mut out = Segments::default();
        out.push(seg);
        out
    }

    /// Adds a segment at the end (empty ones are dropped).
    pub(super) fn push(&mut self, seg: S) {
        let n = seg.seg_len();
        if n > 0 {
            self.starts.push(self.len);
            self.len += n;
            self.segs.push(seg);
        }
    }

    /// Joins pieces: a piece shorter than [`MOVE_MIN`] records whose segments the last
    /// segment `can` take is appended to it by `append`; other pieces have their segments
    /// moved in. The last segment makes room at once for the short pieces that follow it
    /// (thousands of threads give many short pieces: growing by doubling copied each
    /// segment several times), and gives back what it did not use.
    pub(super) fn join(
        pieces: Vec<Segments<S>>,
        can: impl Fn(&S, &S) -> bool,
        mut append: impl FnMut(&mut S, &S),
    ) -> Self {
        // Per piece: the records of the short pieces right after it.
        let mut short_after = vec![0; pieces.len()];
        let mut run = 0;
        for (i, p) in pieces.iter().enumerate().rev() {
            if let Some(slot) = short_after.get_mut(i) {
                *slot = run;
            }
            run = if p.len < MOVE_MIN { run + p.len } else { 0 };
        }
        let mut out = Segments::default();
        for (p, after) in pieces.into_iter().zip(short_after) {
            if p.len < MOVE_MIN
                && let Some(last) = out.segs.last_mut()
                && p.segs.iter().all(|s| can(last, s))
            {
                for seg in &p.segs {
                    append(last, seg);
                }
                out.len += p.len;
                continue;
            }
            if let Some(last) = out.segs.last_mut() {
                last.seg_shrink();
            }
            for seg in p.segs {
                out.push(seg);
            }
            if let Some(last) = out.segs.last_mut()
                && after > 0
            {
                last.seg_reserve(after);
            }
        }
        if let Some(last) = out.segs.last_mut() {
            last.seg_shrink();
        }
        out
    }

    /// Decodes records `start..` into `out` with `read` (a segment's decoder), crossing
    /// segments; returns how many.
    pub(super) fn read(
        &self,
        start: usize,
        out: &mut [u64],
        read: impl Fn(&S, usize, &mut [u64]) -> usize,
    ) -> usize {
        let mut done = 0;
        while done < out.len() && start + done < self.len {
            let (k, j) = self.locate(start + done);
            let (Some(seg), Some(rest)) = (self.segs.get(k), out.get_mut(done..)) else {
                break;
            };
            let got = read(seg, j, rest);
            if got == 0 {
                break;
            }
            done += got;
        }
        done
    }

    /// The segment holding record `i` and the index inside it.
    #[inline]
    pub(super) fn locate(&self, i: usize) -> (usize, usize) {
        if self.segs.len() == 1 {
            return (0, i);
        }
        let k = self.starts.partition_point(|&s| s <= i).saturating_sub(1);
        (k, i - self.starts.get(k).copied().unwrap_or(0))
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.segs.capacity() * std::mem::size_of::<S>()
            + self.starts.capacity() * 8
            + self.segs.iter().map(Segment::seg_heap_bytes).sum::<usize>()
    }
}

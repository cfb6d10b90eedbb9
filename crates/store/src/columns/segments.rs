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
    /// Bytes per record of its encoding (0 when all segments share one).
    fn seg_width(&self) -> usize;
    /// An empty segment whose encoding is `width` bytes per record ([`Self::seg_width`]).
    fn seg_empty(width: usize) -> Self;
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
    fn seg_width(&self) -> usize {
        0
    }
    fn seg_empty(_: usize) -> Self {
        TimeSeg::default()
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
    fn seg_width(&self) -> usize {
        self.width()
    }
    fn seg_empty(width: usize) -> Self {
        match width {
            0 | 1 => ValueSeg::U8(super::Buf::default()),
            2 => ValueSeg::U16(super::Buf::default()),
            3 | 4 => ValueSeg::U32(super::Buf::default()),
            _ => ValueSeg::U64(super::Buf::default()),
        }
    }
}

/// A list of segments with the index of each one's first record: the part that
/// [`TimeColumn`](super::TimeColumn) and [`ValueColumn`](super::ValueColumn) share.
#[derive(Debug, Clone)]
pub struct Segments<S> {
    pub(super) segs: Vec<S>,
    /// Index of the first record of each segment after the first (the first starts at 0):
    /// one fewer than `segs`, so that a column of one segment holds no list.
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
        // Exactly one slot: a column is a segment or two, and the lists' spare room (four
        // slots by default) cost 400 bytes a column, more than the records of most threads
        // of a trace of 65,536.
        let mut out = Segments {
            segs: Vec::with_capacity(1),
            starts: Vec::new(),
            len: 0,
        };
        out.push(seg);
        out
    }

    /// Adds a segment at the end (empty ones are dropped).
    pub(super) fn push(&mut self, seg: S) {
        let n = seg.seg_len();
        if n > 0 {
            if !self.segs.is_empty() {
                self.starts.push(self.len);
            }
            self.len += n;
            self.segs.push(seg);
        }
    }

    /// Joins pieces: pieces of [`MOVE_MIN`] records or more have their segments moved in; a
    /// run of shorter ones is copied into a segment of its own, made here with room for the
    /// whole run and the widest encoding among them (`can` says whether a segment takes
    /// another by `append`). A moved segment is left as it is: growing it would move its
    /// memory, which the worker that built it allocated, and with many workers the threads
    /// joining columns then contend for the workers' allocator arenas (a generated 1 GB
    /// trace of 4096 threads parsed by 16 workers on 2 cores: its columns joined in 0.93 s
    /// when the short pieces were appended to the first one, grown in place).
    pub(super) fn join(
        pieces: Vec<Segments<S>>,
        can: impl Fn(&S, &S) -> bool,
        mut append: impl FnMut(&mut S, &S),
    ) -> Self {
        // Per piece: the records of the short pieces from it on, and their widest encoding.
        let mut runs = vec![(0, 0); pieces.len()];
        let mut run = (0, 0);
        for (i, p) in pieces.iter().enumerate().rev() {
            run = if p.len < MOVE_MIN {
                let width = p.segs.iter().map(S::seg_width).max().unwrap_or(0);
                (run.0 + p.len, run.1.max(width))
            } else {
                (0, 0)
            };
            if let Some(slot) = runs.get_mut(i) {
                *slot = run;
            }
        }
        let mut out = Segments::default();
        // Whether the last segment was made here, for a run of short pieces.
        let mut own = false;
        for (p, (records, width)) in pieces.into_iter().zip(runs) {
            if p.len < MOVE_MIN {
                if !own {
                    out.push_segment(S::seg_empty(width), records);
                    own = true;
                }
                if let Some(last) = out.segs.last_mut()
                    && p.segs.iter().all(|s| can(last, s))
                {
                    for seg in &p.segs {
                        append(last, seg);
                    }
                    out.len += p.len;
                    continue;
                }
            }
            if own {
                out.end_own();
            }
            own = false;
            for seg in p.segs {
                out.push(seg);
            }
        }
        if own {
            out.end_own();
        }
        out.segs.shrink_to_fit();
        out.starts.shrink_to_fit();
        out
    }

    /// Ends the run of short pieces copied into the last segment: gives back the room it did
    /// not use, or drops it if it took none.
    fn end_own(&mut self) {
        if self.segs.last().is_some_and(|s| s.seg_len() == 0) {
            self.segs.pop();
            if !self.segs.is_empty() {
                self.starts.pop();
            }
        } else if let Some(last) = self.segs.last_mut() {
            last.seg_shrink();
        }
    }

    /// Pushes `seg` (empty) with room for `records`, as the last segment, even empty.
    fn push_segment(&mut self, mut seg: S, records: usize) {
        seg.seg_reserve(records);
        if !self.segs.is_empty() {
            self.starts.push(self.len);
        }
        self.segs.push(seg);
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
        let k = self.starts.partition_point(|&s| s <= i);
        (k, i - self.seg_start(k))
    }

    /// The index of segment `k`'s first record.
    #[inline]
    pub(super) fn seg_start(&self, k: usize) -> usize {
        match k.checked_sub(1) {
            Some(j) => self.starts.get(j).copied().unwrap_or(0),
            None => 0,
        }
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.segs.capacity() * std::mem::size_of::<S>()
            + self.starts.capacity() * 8
            + self.segs.iter().map(Segment::seg_heap_bytes).sum::<usize>()
    }
}

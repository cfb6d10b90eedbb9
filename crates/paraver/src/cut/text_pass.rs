//! The cut's pass over a trace's text, read in blocks of whole lines: while the cut
//! decides on the lines of one block (in order, on this thread), the next block is read and
//! its lines that no decision can keep are set aside on the other cores. A line is set
//! aside on its first fields alone (a state ended before the cut, an event after it, a
//! thread not kept), only where the cut would leave it without a trace of having read it:
//! the lines the cut sees, and what it does with each, are the same as in a pass over every
//! line.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, BufRead};
use std::ops::Range;

use prvscope_store::{TextIndex, TextPiece};
use rayon::prelude::*;

use super::fields::{Marks, Split, head, split};
use super::options::CutterOptions;
use super::text::row_ids;
use super::{Control, WriteError};

/// The most bytes of a block looked at by one core.
const PIECE: usize = 1 << 20;

/// What tells, from a line alone, that the cut does nothing with it.
pub(super) struct Pre<'a> {
    pub opts: &'a CutterOptions,
    pub rows: Option<&'a HashMap<[u64; 3], bool>>,
    pub t0: u64,
    pub t1: u64,
    /// The cut's times are the trace's (no shift, states whole).
    pub original: bool,
    /// Events outside the cut are kept for a thread (`keep_events` with states whole).
    pub keep: bool,
    /// The cut stops at the first state or message after its end: those are seen.
    pub stop: bool,
    /// No event before this time is written (a bound of the first time written, at every
    /// point of the pass).
    pub floor: u64,
    /// No line is set aside.
    pub all: bool,
    /// The size of a block read (it is cut after its last whole line).
    pub block: usize,
    /// What each piece of the text holds, when known: the pieces none of whose lines the
    /// pass sees are not read.
    pub index: Option<&'a TextIndex>,
    /// Where in the text the pass's input starts (after the header and its communicator
    /// lines).
    pub start: u64,
    /// Opens the text at a byte offset: a piece not read is passed over without reading
    /// it (otherwise read and dropped).
    pub open_at: Option<&'a OpenAt<'a>>,
}

/// Opens a trace's text at a byte offset.
pub type OpenAt<'a> = dyn Fn(u64) -> io::Result<Box<dyn BufRead + Send>> + Sync + 'a;

impl Pre<'_> {
    fn selected(&self, key: [u64; 3]) -> bool {
        self.opts.keeps_task(key[1])
            && self
                .rows
                .is_none_or(|r| r.get(&key).copied().unwrap_or(false))
    }

    /// Whether the cut does something with `line` (see `Cut::line`; it does nothing with a
    /// line it returns on, or one it reads into an empty branch): `None` when not, else the
    /// line's thread for a state or an event (0 for the rest).
    fn sees(&self, line: &[u8]) -> Option<u64> {
        if self.all {
            return Some(match line.first() {
                Some(b'1' | b'2') => {
                    let v = head(line, 5).v;
                    (v[2] << 42) ^ (v[3] << 21) ^ v[4]
                }
                _ => 0,
            });
        }
        match line.first() {
            Some(&kind @ (b'1' | b'2' | b'3')) => self.decide(line, kind, &split(line, want(kind))),
            Some(b'#') => Some(0),
            _ => None,
        }
    }

    /// [`Pre::sees`] of a state, event or message line (`kind`) split by [`split`] into
    /// its first [`want`]`(kind)` fields.
    #[inline]
    fn decide(&self, line: &[u8], kind: u8, sp: &Split) -> Option<u64> {
        // The times first: most lines are dropped on them alone.
        let key =
            |sp: &Split, at: usize| [sp.num(line, at), sp.num(line, at + 1), sp.num(line, at + 2)];
        // The line's thread, when kept.
        let thread = |sp: &Split| {
            let k = key(sp, 2);
            self.selected(k).then(|| (k[0] << 42) ^ (k[1] << 21) ^ k[2])
        };
        if sp.n < want(kind) {
            return None;
        }
        match kind {
            b'1' => {
                let (b, e) = (sp.num(line, 5), sp.num(line, 6));
                if e <= self.t0 || (!self.original && !self.stop && b > self.t1) {
                    return None;
                }
                thread(sp)
            }
            b'2' => {
                let t = sp.num(line, 5);
                if (t > self.t1 && (!self.keep || self.opts.remove_last_states))
                    || (t < self.t0 && !self.keep && t < self.floor)
                {
                    return None;
                }
                thread(sp)
            }
            _ => {
                let (ts, tr) = (sp.num(line, 5), sp.num(line, 11));
                if ts < self.t0 || tr < self.t0 || (!self.original && !self.stop && ts > self.t1) {
                    return None;
                }
                (self.selected(key(sp, 2)) || self.selected(key(sp, 8))).then_some(0)
            }
        }
    }

    /// The first and last times the line writes in a cut with states cut at the edges,
    /// times shifted, none removed, read to the end, provided no message written holds a
    /// time before the cut (then an event before it may be written too): a state over the
    /// cut, from its start or to its end; an event inside it; a message inside it.
    fn span(&self, line: &[u8]) -> Option<(u64, u64)> {
        match line.first() {
            Some(&kind @ (b'1' | b'2' | b'3')) => {
                self.span_of(line, kind, &split(line, want(kind)))
            }
            _ => None,
        }
    }

    /// [`Pre::span`] of a state, event or message line (`kind`) split by [`split`] into
    /// its first [`want`]`(kind)` fields.
    #[inline]
    fn span_of(&self, line: &[u8], kind: u8, sp: &Split) -> Option<(u64, u64)> {
        let key =
            |sp: &Split, at: usize| [sp.num(line, at), sp.num(line, at + 1), sp.num(line, at + 2)];
        if sp.n < want(kind) {
            return None;
        }
        match kind {
            b'1' => {
                let (b, e) = (sp.num(line, 5), sp.num(line, 6));
                (e > self.t0 && b <= self.t1 && self.selected(key(sp, 2)))
                    .then(|| (b.max(self.t0), e.min(self.t1)))
            }
            b'2' => {
                let t = sp.num(line, 5);
                ((self.t0..=self.t1).contains(&t) && self.selected(key(sp, 2))).then_some((t, t))
            }
            _ => {
                let (from, to) = (key(sp, 2), key(sp, 8));
                let all = [5, 6, 11, 12].map(|k| sp.num(line, k));
                ((self.selected(from) || self.selected(to))
                    && all[0] >= self.t0
                    && all[2] >= self.t0
                    && all[0] <= self.t1
                    && all[1] <= self.t1
                    && all[3] <= self.t1)
                    .then(|| {
                        let lo = all.iter().copied().min().unwrap_or(0);
                        (lo, all.iter().copied().max().unwrap_or(0))
                    })
            }
        }
    }

    /// Whether the cut sees none of the lines of piece `p` (see [`Pre::sees`]): each kind
    /// of its lines all dropped on its times alone, and no other line there.
    fn skips(&self, p: &TextPiece) -> bool {
        if self.all || p.has(TextPiece::OTHER) {
            return false;
        }
        let (t0, t1) = (self.t0, self.t1);
        let after = !self.original && !self.stop;
        let states =
            !p.has(TextPiece::STATES) || p.state_end <= t0 || (after && p.state_begin > t1);
        let events = !p.has(TextPiece::EVENTS)
            || (p.event_first > t1 && (!self.keep || self.opts.remove_last_states))
            || (p.event_last < t0 && !self.keep && p.event_last < self.floor);
        let messages =
            !p.has(TextPiece::MESSAGES) || p.message_reach < t0 || (after && p.message_send > t1);
        states && events && messages
    }

    /// Whether no line of piece `p` adds to the span (see [`Pre::span`]).
    fn skips_span(&self, p: &TextPiece) -> bool {
        if p.has(TextPiece::OTHER) {
            return false;
        }
        let (t0, t1) = (self.t0, self.t1);
        (!p.has(TextPiece::STATES) || p.state_end <= t0 || p.state_begin > t1)
            && (!p.has(TextPiece::EVENTS) || p.event_last < t0 || p.event_first > t1)
            && (!p.has(TextPiece::MESSAGES) || p.message_reach < t0 || p.message_send > t1)
    }

    /// Whether a cut with states cut at the edges, read to the end and nothing removed,
    /// writes every line of piece `p` with its own times (see [`Pre::span`]): it holds
    /// states, events and messages alone, every thread is kept, and its times all come
    /// after the cut's start, none after its end. Its first and last times are then those
    /// it adds to the span.
    fn inside(&self, p: &TextPiece) -> bool {
        p.holds != 0
            && !p.has(TextPiece::OTHER)
            && self.rows.is_none()
            && self.opts.tasks.is_empty()
            && p.first > self.t0
            && p.last <= self.t1
    }

    /// The ranges of the text a pass leaves unread: the pieces `skips` passes over, from
    /// where the pass starts on.
    fn skipped(&self, skips: impl Fn(&TextPiece) -> bool) -> Vec<Range<u64>> {
        self.index
            .map(|index| index.skipped(skips))
            .unwrap_or_default()
            .into_iter()
            .filter(|r| r.start >= self.start)
            .collect()
    }

    /// The lines of `block` the cut must see, as ranges of it with the worker deciding on
    /// each, in order.
    fn candidates(&self, block: &[u8], workers: usize) -> Vec<(usize, usize, usize)> {
        pieces(block, (self.block / 8).clamp(1, PIECE))
            .par_iter()
            .map(|&(a, z)| {
                let mut kept = Vec::new();
                let mut keep = |s: usize, e: usize, seen: Option<u64>| {
                    // Each thread's lines go to one worker (the first has the rest).
                    if let Some(thread) = seen {
                        let w = (thread.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % workers as u64;
                        kept.push((s, e, w as usize));
                    }
                };
                if self.all {
                    each_line(block, a, z, |s, e| keep(s, e, self.sees(&block[s..e])));
                } else {
                    each_split_line(block, a, z, |s, e, split| {
                        let line = &block[s..e];
                        keep(
                            s,
                            e,
                            split.map_or_else(
                                || self.sees(line),
                                |(kind, sp)| self.decide(line, kind, sp),
                            ),
                        );
                    });
                }
                kept
            })
            .collect::<Vec<_>>()
            .concat()
    }

    /// The first and last times written by the lines of `block` (see [`Pre::span`]).
    fn block_span(&self, block: &[u8]) -> Option<(u64, u64)> {
        pieces(block, (self.block / 8).clamp(1, PIECE))
            .par_iter()
            .map(|&(a, z)| {
                let mut span: Option<(u64, u64)> = None;
                each_split_line(block, a, z, |s, e, split| {
                    let line = &block[s..e];
                    let here = split.map_or_else(
                        || self.span(line),
                        |(kind, sp)| self.span_of(line, kind, sp),
                    );
                    if let Some((lo, hi)) = here {
                        span = Some(span.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
                    }
                });
                span
            })
            .reduce(
                || None,
                |a, b| match (a, b) {
                    (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
                    (a, b) => a.or(b),
                },
            )
    }
}

/// The fields of a line of `kind` (`1`, `2` or `3`) that [`Pre::sees`] reads.
#[inline]
fn want(kind: u8) -> usize {
    match kind {
        b'1' => 8,
        b'2' => 6,
        _ => 15,
    }
}

/// `block` in pieces of whole lines of about `size` bytes, as ranges of it.
fn pieces(block: &[u8], size: usize) -> Vec<(usize, usize)> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < block.len() {
        let end = (start + size).min(block.len());
        let end = memchr::memchr(b'\n', &block[end..]).map_or(block.len(), |i| end + i + 1);
        pieces.push((start, end));
        start = end;
    }
    pieces
}

/// Calls `f` with the range of each line of `block[a..z]` (without its `\n`; a last line
/// of the block without one included).
fn each_line(block: &[u8], a: usize, z: usize, mut f: impl FnMut(usize, usize)) {
    let mut s = a;
    for nl in memchr::memchr_iter(b'\n', &block[a..z]).map(|i| a + i) {
        f(s, nl);
        s = nl + 1;
    }
    if s < z {
        f(s, z);
    }
}

/// Calls `f` with the range of each line of `block[a..z]` as [`each_line`] does, and with
/// the line's kind and fields when they were split on the marks of the piece (the state,
/// event and message lines that end with a `\n`; see [`Marks::split_at`]): `None` for the
/// others, which `f` reads byte-wise.
fn each_split_line(
    block: &[u8],
    a: usize,
    z: usize,
    mut f: impl FnMut(usize, usize, Option<(u8, &Split)>),
) {
    thread_local! {
        // A piece's marks, their room kept from piece to piece (a fresh one each time
        // faulted its pages in again).
        static MARKS: RefCell<Marks> = RefCell::new(Marks::of(&[]));
    }
    let piece = &block[a..z];
    MARKS.with(|kept| {
        let mut own = None;
        let mut borrowed = kept.try_borrow_mut();
        let marks = match borrowed.as_deref_mut() {
            Ok(marks) => marks,
            Err(_) => own.insert(Marks::of(&[])),
        };
        marks.scan(piece);
        split_lines(piece, a, marks, &mut f);
    });
}

/// [`each_split_line`] of the lines of `piece`, which begins at `a` of its block, whose
/// marks are `marks`.
fn split_lines(
    piece: &[u8],
    a: usize,
    marks: &Marks,
    f: &mut impl FnMut(usize, usize, Option<(u8, &Split)>),
) {
    let mut sp = Split { at: [0; 16], n: 0 };
    let mut p = 0;
    while p < piece.len() {
        let kind = piece[p];
        let marked = matches!(kind, b'1' | b'2' | b'3')
            .then(|| marks.split_at(piece, p, want(kind), &mut sp))
            .flatten();
        let e = if let Some(nl) = marked {
            f(a + p, a + nl, Some((kind, &sp)));
            nl
        } else {
            let e = marks
                .line_end(p)
                .map_or(piece.len(), |e| e.min(piece.len()));
            f(a + p, a + e, None);
            e
        };
        p = e + 1;
    }
}

/// Whole lines of a text: the first `len` bytes of `buf` (kept at its full length, so that
/// a buffer read into again is not cleared first).
struct Block {
    buf: Vec<u8>,
    len: usize,
}

impl std::ops::Deref for Block {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// The text a pass reads: its input from `pos` on, less the ranges it leaves unread.
struct Source<'i, 'a> {
    input: &'i mut (dyn BufRead + Send),
    /// The text opened again past a range left unread.
    reopened: Option<Box<dyn BufRead + Send>>,
    /// Where the next byte read lies in the text.
    pos: u64,
    /// The ranges left unread, in order, from the next one on (each starts a line).
    skips: &'a [Range<u64>],
    open_at: Option<&'a OpenAt<'a>>,
}

impl Source<'_, '_> {
    fn reader(&mut self) -> &mut (dyn BufRead + Send) {
        match &mut self.reopened {
            Some(r) => &mut **r,
            None => &mut *self.input,
        }
    }

    /// Reads into `buf`, up to the next range left unread; at that range's start (the end
    /// of a line), passes over it first.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while let Some(r) = self.skips.first() {
            if r.end <= self.pos {
                self.skips = &self.skips[1..];
            } else if r.start <= self.pos {
                let to = r.end;
                self.pass_to(to)?;
            } else {
                break;
            }
        }
        let room = self.skips.first().map_or(buf.len() as u64, |r| {
            (r.start - self.pos).min(buf.len() as u64)
        }) as usize;
        let n = loop {
            match self.reader().read(&mut buf[..room]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        self.pos += n as u64;
        Ok(n)
    }

    /// Passes over the text up to `to`: opens it again there (checking that a line ends
    /// right before: an index of another text is an error, not a cut of the wrong lines),
    /// or reads it and drops it.
    fn pass_to(&mut self, to: u64) -> io::Result<()> {
        let changed = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the trace's text changed since it was read: no line ends at byte {to}"),
            )
        };
        if let Some(open) = self.open_at {
            let mut text = open(to.saturating_sub(1))?;
            let mut last = [0u8; 1];
            if to > 0 && (text.read(&mut last)? != 1 || last[0] != b'\n') {
                return Err(changed());
            }
            self.reopened = Some(text);
        } else {
            let want = to - self.pos;
            let got = io::copy(&mut io::Read::take(self.reader(), want), &mut io::sink())?;
            if got != want {
                return Err(changed());
            }
        }
        self.pos = to;
        Ok(())
    }
}

/// The next block of whole lines of `input`, read into `buf` (`carry`: the start of a line
/// read with the block before); at the end of the text, what is left, a last line without
/// `\n` included.
fn next_block(
    input: &mut Source<'_, '_>,
    carry: &mut Vec<u8>,
    mut buf: Vec<u8>,
    block: usize,
) -> io::Result<Option<Block>> {
    let size = (block + (1 << 16)).max(carry.len() + (1 << 16));
    if buf.len() < size {
        buf.resize(size, 0);
    }
    let mut len = carry.len();
    buf[..len].copy_from_slice(carry);
    carry.clear();
    loop {
        if len >= block
            && let Some(nl) = memchr::memrchr(b'\n', &buf[..len])
        {
            carry.extend_from_slice(&buf[nl + 1..len]);
            return Ok(Some(Block { buf, len: nl + 1 }));
        }
        if len == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = input.read(&mut buf[len..])?;
        if n == 0 {
            return Ok((len > 0).then_some(Block { buf, len }));
        }
        len += n;
    }
}

/// The first `lines` lines of `input` (the header and its communicator lines), without
/// their line ends.
pub(super) fn read_head(input: &mut dyn BufRead, lines: usize) -> io::Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for _ in 0..lines {
        let mut line = Vec::new();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        out.push(line);
    }
    Ok(out)
}

/// What a pass does with a block and what was made of it (see [`in_blocks`]): `true` to stop.
type Handle<'a, T> = dyn FnMut(&[u8], T) -> Result<bool, WriteError> + 'a;

/// Reads the rest of `input` (from `pre.start` in the text) in blocks of whole lines of
/// `pre.block` bytes, less the ranges `skips` (see [`Pre::open_at`]): `prepare` is made of
/// each block on another thread while the block before it is handled (`handle`, given the
/// block and what `prepare` made of it, in the file's order) until `handle` answers `true`
/// (stop); `read` is told the bytes read or passed over so far. The reading pipeline of
/// every pass.
fn in_blocks<T: Send>(
    input: &mut (dyn BufRead + Send),
    (pre, skips): (&Pre<'_>, &[Range<u64>]),
    control: &Control<'_>,
    read: &dyn Fn(u64),
    prepare: &(dyn Fn(&[u8]) -> T + Sync),
    handle: &mut Handle<'_, T>,
) -> Result<(), WriteError> {
    let size = pre.block;
    let mut input = Source {
        input,
        reopened: None,
        pos: pre.start,
        skips,
        open_at: pre.open_at,
    };
    let mut carry = Vec::new();
    let mut spare = Vec::new();
    let mut current = next_block(&mut input, &mut carry, Vec::new(), size)?.map(|b| {
        let made = prepare(&b);
        (b, made)
    });
    while let Some((block, made)) = current.take() {
        control.check()?;
        let reuse = std::mem::take(&mut spare);
        let (next, stop) = std::thread::scope(|s| {
            let reader = s.spawn(|| -> io::Result<_> {
                Ok(next_block(&mut input, &mut carry, reuse, size)?.map(|b| {
                    let made = prepare(&b);
                    (b, made)
                }))
            });
            let stop = handle(&block, made);
            let next = reader
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (next, stop)
        });
        if stop? {
            return Ok(());
        }
        read(input.pos - pre.start - carry.len() as u64);
        spare = block.buf;
        current = next?;
    }
    Ok(())
}

/// Calls `each` on every line of the rest of `input` that `pre` does not set aside, in the
/// file's order, until it answers `true` (stop); `read` is told the bytes read so far.
pub(super) fn pass(
    input: &mut (dyn BufRead + Send),
    pre: &Pre<'_>,
    control: &Control<'_>,
    read: &dyn Fn(u64),
    each: &mut dyn FnMut(&[u8]) -> Result<bool, WriteError>,
) -> Result<(), WriteError> {
    in_blocks(
        input,
        (pre, &pre.skipped(|p| pre.skips(p))),
        control,
        read,
        &|b| pre.candidates(b, 1),
        &mut |block, lines| {
            for &(a, z, _) in &lines {
                if each(&block[a..z])? {
                    return Ok(true);
                }
            }
            Ok(false)
        },
    )
}

/// The first and last times written by the rest of `input` (see [`Pre::span`]); `read` is
/// told the bytes read so far.
pub(super) fn span_pass(
    input: &mut (dyn BufRead + Send),
    pre: &Pre<'_>,
    control: &Control<'_>,
    read: &dyn Fn(u64),
) -> Result<Option<(u64, u64)>, WriteError> {
    // The pieces whose lines are all written with their own times add their first and
    // last times unread.
    let mut span = pre.index.and_then(|index| {
        index
            .pieces
            .iter()
            .filter(|p| pre.inside(p))
            .map(|p| (p.first, p.last))
            .reduce(|(l, h), (lo, hi)| (l.min(lo), h.max(hi)))
    });
    in_blocks(
        input,
        (pre, &pre.skipped(|p| pre.skips_span(p) || pre.inside(p))),
        control,
        read,
        // (Found while the next block is read.)
        &|_| (),
        &mut |block, ()| {
            if let Some((lo, hi)) = pre.block_span(block) {
                span = Some(span.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
            }
            Ok(false)
        },
    )?;
    Ok(span)
}

/// What a worker writes for a line (see [`pass_by_thread`]).
pub(super) type Decide<'a, W> = dyn Fn(&mut W, &[u8], &mut Vec<u8>) + Sync + 'a;

/// Like [`pass`], each thread's lines decided by one of `workers` (its state: a thread's
/// lines are decided in order, apart from the other threads'), `decide` writing what a
/// worker writes for a line, in parallel; `write` is given what is written, in the file's
/// order. For a cut whose decisions on a thread's lines depend on that thread alone.
pub(super) fn pass_by_thread<W: Send>(
    input: &mut (dyn BufRead + Send),
    pre: &Pre<'_>,
    control: &Control<'_>,
    read: &dyn Fn(u64),
    workers: &mut [W],
    decide: &Decide<'_, W>,
    write: &mut dyn FnMut(&[u8]) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let n = workers.len();
    // Each worker's text of a block, and where each of its lines ends there (their room
    // kept from block to block).
    let mut outs: Vec<(Vec<u8>, Vec<usize>)> = (0..n).map(|_| Default::default()).collect();
    in_blocks(
        input,
        (pre, &pre.skipped(|p| pre.skips(p))),
        control,
        read,
        &|b| pre.candidates(b, n),
        &mut |block, lines| {
            // Each worker's text and where each of its lines' ends there.
            workers
                .par_iter_mut()
                .zip(outs.par_iter_mut())
                .enumerate()
                .for_each(|(w, (worker, (text, ends)))| {
                    text.clear();
                    ends.clear();
                    for &(a, z, o) in &lines {
                        if o == w {
                            decide(worker, &block[a..z], text);
                            ends.push(text.len());
                        }
                    }
                });
            let mut at = vec![(0usize, 0usize); n];
            for &(_, _, o) in &lines {
                let (text, ends) = &outs[o];
                let (line, start) = at[o];
                let end = ends[line];
                if end > start {
                    write(&text[start..end])?;
                }
                at[o] = (line + 1, end);
            }
            Ok(false)
        },
    )
}

/// The first and last times a cut that reads the whole file (`stop_as_paraver` off) writes,
/// when the store tells them without a first pass: with states cut at the edges, times
/// shifted and no state removed, a state of a kept thread over the cut's start is written
/// from the start itself (nothing is written before it), and one that reaches its end (or
/// goes past it) up to the end (nothing after it), provided no message written holds a time
/// outside the cut. The store holds fewer states than the file (not those on a CPU outside
/// their task's node), never more: a state it holds is one the file has; it may hold fewer
/// messages only where the load reported lines it left out, and then nothing is known.
pub fn known_span(trace: &prvscope_store::Trace, opts: &CutterOptions) -> Option<(u64, u64)> {
    use prvscope_format::IssueKind as K;
    if opts.original_time
        || !opts.break_states
        || opts.remove_first_states
        || opts.remove_last_states
        || trace.part.is_some()
    {
        return None;
    }
    let (t0, t1) = opts.range(trace.header.end_time);
    let ids = row_ids(&trace.header);
    let kept = |row: usize| {
        ids.get(row)
            .is_some_and(|id| opts.keeps_task(u64::from(id[1])))
            && opts
                .rows
                .as_ref()
                .is_none_or(|r| r.get(row).copied().unwrap_or(false))
    };
    let (mut over_start, mut to_end) = (false, false);
    for (row, t) in trace.store.threads().iter().enumerate() {
        if !kept(row) || !t.states.ends_sorted {
            continue;
        }
        // The state begun last at or before a time (with their ends sorted, the one that
        // ends last of those), when it ends after `after`.
        let reaches = |at: u64, after: u64| -> bool {
            let i = t.states.begin.upper_bound(at);
            i > 0 && t.states.end.get(i - 1) > after
        };
        over_start |= reaches(t0, t0);
        // (Written up to `t1` when it ends at `t1` or later, and after `t0`.)
        to_end |= reaches(t1, t1.saturating_sub(1).max(t0));
        if over_start && to_end {
            break;
        }
    }
    if !(over_start && to_end) {
        return None;
    }
    let dropped = [
        K::MalformedRecord,
        K::UnknownRecordKind,
        K::ThreadOutOfRange,
        K::CpuOutsideTaskNode,
        K::TruncatedLine,
    ];
    if dropped.iter().any(|&k| trace.report.count(k) > 0) {
        return None;
    }
    // A message the cut writes (sent inside it, received after its start, both ends
    // before its end), with a time outside it, writes that time.
    let outside = trace
        .store
        .comms_sent_in(t0, t1.saturating_add(1))
        .iter()
        .any(|c| {
            (kept(c.send_row as usize) || kept(c.recv_row as usize))
                && c.lrecv >= t0
                && c.psend <= t1
                && c.precv <= t1
                && (c.psend < t0 || c.precv < t0 || c.lrecv > t1)
        });
    (!outside).then_some((t0, t1))
}

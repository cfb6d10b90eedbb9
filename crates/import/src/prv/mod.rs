//! The `.prv` body: records 1 (state), 2 (event), 3 (communication), comments and
//! communicator lines, parsed in parallel.
//!
//! The body is cut into newline-aligned chunks ([`split_chunks`] for text in memory,
//! [`PlainFile::read_lines`](crate::source::PlainFile::read_lines) for files); each chunk is parsed on its
//! own ([`parse_chunk`]) into per-thread raw vectors, with line numbers local to the chunk.
//! [`assemble`] then concatenates the chunks per thread in file order, sorts each thread
//! stably by time (files are not always sorted: Extrae writes communications at their
//! physical send time and cutters shuffle lines) and encodes the columns of the store.
//!
//! Bad lines never stop the parse: each is counted in the chunk's [`LoadReport`] with its line
//! and column, and skipped. In an event line, the pairs before the first bad field are kept.
//!
//! [`LoadReport`]: prvscope_format::error::LoadReport

mod assemble;
mod careful;
mod chunk;
mod fast;
mod index;
mod line_order;
mod order;
mod runs;
pub mod scan;

use std::path::Path;

use prvscope_format::RowMap;
use prvscope_format::subset::Filter;
use prvscope_store::Comm;

pub use assemble::{Assembled, PartBounds, assemble, assemble_batch, join_parts};
pub(crate) use chunk::DIRECT_MAX_ROWS;
pub use chunk::{ChunkOut, EventBuf, EventPiece, RawEvent, RawEventOf, RawState, StatePiece};
pub use order::{Backward, OrderEdge, OrderJoin, OrderTracker, add_backward_pairs, pairs_of};

use careful::parse_line;
use fast::fast_lines;
#[doc(hidden)]
pub use fast::walk_marks;

/// What the parser needs to know besides the bytes.
#[derive(Debug, Clone)]
pub struct ParseContext<'a> {
    pub rows: &'a RowMap,
    /// What `N` is stored as; literal values equal to it are counted as collisions.
    pub sentinel: u64,
    /// The file, for messages.
    pub path: &'a Path,
    /// What part of the trace is loaded (inactive: all of it).
    pub filter: Filter,
    /// The structural scanner's backend (resolved).
    pub scan: scan::Backend,
    /// Unique per context: worker threads keep their scratch buffers while it stays the same.
    id: u64,
}

impl<'a> ParseContext<'a> {
    pub fn new(rows: &'a RowMap, sentinel: u64, path: &'a Path) -> Self {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        ParseContext {
            rows,
            sentinel,
            path,
            filter: Filter::default(),
            scan: scan::Backend::detect(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }
}

/// The chunks of a parse not yet started. A worker that finishes a chunk while some remain
/// keeps its buffers' room for the next one ([`ChunkOut`]'s `take_output`); the last
/// chunks give theirs up, so that nothing is kept once the parse ends.
#[derive(Debug)]
pub struct Unclaimed(std::sync::atomic::AtomicUsize);

impl Unclaimed {
    /// `chunks` chunks to parse.
    pub fn new(chunks: usize) -> Self {
        Unclaimed(std::sync::atomic::AtomicUsize::new(chunks))
    }

    /// Chunks of a stream, whose number is not known: room is kept after every chunk (the
    /// workers' scratch is released when the load ends).
    pub fn unknown() -> Self {
        Self::new(usize::MAX)
    }

    /// A chunk starts.
    fn claim(&self) {
        let _ = self.0.fetch_update(
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
            |n| n.checked_sub(1),
        );
    }

    /// Do chunks remain that no worker started?
    fn any(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed) > 0
    }
}

thread_local! {
    /// Per worker thread: the id of the context its scratch belongs to, and the scratch.
    static SCRATCH: std::cell::RefCell<(u64, ChunkOut)> = std::cell::RefCell::new((0, ChunkOut::default()));
}

/// Splits `body` into chunks of about `target` bytes that end just after a newline (the last
/// one ends where the body ends).
pub fn split_chunks(body: &[u8], target: usize) -> Vec<std::ops::Range<usize>> {
    let target = target.max(1);
    let mut out = Vec::with_capacity(body.len() / target + 1);
    let mut start = 0;
    while start < body.len() {
        let want = start.saturating_add(target);
        let end = if want >= body.len() {
            body.len()
        } else {
            match memchr::memchr(b'\n', body.get(want..).unwrap_or(&[])) {
                Some(p) => want + p + 1,
                None => body.len(),
            }
        };
        out.push(start..end);
        start = end;
    }
    out
}

/// Frees the scratch buffers of every rayon worker (after a load).
pub fn release_scratch() {
    rayon::broadcast(|_| {
        SCRATCH.with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                *s = (0, ChunkOut::default());
            }
        });
    });
}

/// The text whose records are encoded at once, for a trace of `rows` threads: with up to
/// [`DIRECT_MAX_ROWS`] threads, 512 kB (the records of a window stay in L2 until encoded);
/// with more, records are grouped by (thread, type) at the end of each window, a cost per
/// (thread, type) and window, so 8 MB (the plain-file reader scales it further with the
/// number of threads: `plain::windows`).
pub fn encode_window(rows: usize) -> usize {
    if rows <= DIRECT_MAX_ROWS {
        512 << 10
    } else {
        8 << 20
    }
}

/// Parses one chunk of body lines, one of the chunks `unclaimed` counts.
pub fn parse_chunk(ctx: &ParseContext<'_>, bytes: &[u8], unclaimed: &Unclaimed) -> ChunkOut {
    let window = encode_window(ctx.rows.rows());
    parse_chunk_windows(
        ctx,
        bytes.len() as u64,
        0,
        unclaimed,
        |parse| -> Result<(), std::convert::Infallible> {
            for window in split_chunks(bytes, window) {
                parse(bytes.get(window).unwrap_or_default());
            }
            Ok(())
        },
    )
    .unwrap_or_else(|e| match e {})
}

/// Parses one chunk given as consecutive windows of whole lines: `windows` calls `parse` on
/// each window in order (so that a chunk need not be held in memory at once: it is read a
/// window at a time into a buffer that stays in cache). Line numbers go on from window to
/// window. The records parsed are encoded once `encode_every` bytes of text or more have
/// been parsed since the last time (0: after every window), and at the end. The chunk is
/// one of those `unclaimed` counts, of `chunk_len` bytes of text (0: not known). An error
/// of `windows` is passed on.
pub fn parse_chunk_windows<E>(
    ctx: &ParseContext<'_>,
    chunk_len: u64,
    encode_every: usize,
    unclaimed: &Unclaimed,
    windows: impl FnOnce(&mut dyn FnMut(&[u8])) -> Result<(), E>,
) -> Result<ChunkOut, E> {
    SCRATCH.with(|scratch| {
        let mut own = None;
        let mut borrowed = scratch.try_borrow_mut();
        let out = match borrowed.as_deref_mut() {
            Ok(scratch) => {
                if scratch.0 != ctx.id {
                    *scratch = (ctx.id, ChunkOut::new(ctx.rows.rows()));
                }
                &mut scratch.1
            }
            // Re-entered on this thread (a nested rayon job): parse without the scratch.
            Err(_) => own.insert(ChunkOut::new(ctx.rows.rows())),
        };
        unclaimed.claim();
        (out.chunk_text, out.parsed_text) = (chunk_len, 0);
        out.spill = Some(ctx.sentinel);
        let mut pending = 0usize;
        let result = windows(&mut |bytes| {
            parse_into(ctx, bytes, out);
            out.parsed_text += bytes.len() as u64;
            pending += bytes.len();
            if pending >= encode_every {
                out.end_window(ctx.sentinel);
                pending = 0;
            }
        });
        // Taken even after an error, so that the scratch is left empty for the next chunk.
        let taken = out.take_output(ctx.sentinel, unclaimed.any());
        result.map(|()| taken)
    })
}

/// Parses `bytes` (whole lines) into `out`, numbering lines on from those `out` holds.
fn parse_into(ctx: &ParseContext<'_>, bytes: &[u8], out: &mut ChunkOut) {
    // The previous line of the fast path lies in another buffer.
    out.last_line = fast::LastLine::default();
    out.text = prvscope_store::TextPiece::empty(0);
    let mut line_no = out.lines;
    let mut start = 0usize;
    let mut scanner = fast::Scanner::new(bytes, ctx.scan);
    while start < bytes.len() {
        let (stopped, lines) = fast_lines(ctx, &mut scanner, start, out);
        line_no += lines;
        start = stopped;
        if start >= bytes.len() {
            break;
        }
        let rest = bytes.get(start..).unwrap_or(&[]);
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(p) => (rest.get(..p).unwrap_or(&[]), start + p + 1),
            None => (rest, bytes.len()),
        };
        line_no += 1;
        start = next;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // (A line read with care: any pass over the text reads its piece.)
        out.text.other();
        parse_line(ctx, line, rest, line_no, out);
        // The careful parser may have noted another CPU for the previous fast line's thread:
        // the next line cannot take that line's row and CPU as noted.
        out.last_line = fast::LastLine::default();
    }
    out.lines = line_no;
    out.text.len = bytes.len() as u64;
    out.text_pieces.push(out.text);
}

/// A communication from its (cpu, row) ends and `[lsend, psend, lrecv, precv, size, tag]`.
pub(crate) fn comm(send: (u64, u32), recv: (u64, u32), f: [u64; 6]) -> Comm {
    let [lsend, psend, lrecv, precv, size, tag] = f;
    Comm {
        send_row: send.1,
        recv_row: recv.1,
        send_cpu: u32::try_from(send.0).unwrap_or(u32::MAX),
        recv_cpu: u32::try_from(recv.0).unwrap_or(u32::MAX),
        lsend,
        psend,
        lrecv,
        precv,
        size,
        tag,
    }
}

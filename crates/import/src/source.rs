//! Where the bytes of a trace come from: a plain file read in pieces by positioned reads, or
//! an `.xz`/`.gz` stream decoded on a background thread.
//!
//! The compression is recognised by the magic bytes, not by the file name. A compressed
//! stream is decoded into blocks that end on a newline and handed over through a bounded
//! channel, so that parsing one block overlaps decoding the next. Multi-block `.xz` files
//! (what `xz -T0` writes) are decoded by liblzma's multithreaded decoder.

use std::fs::File;
use std::io::{self, Read};

use std::sync::Arc;

pub use prvscope_format::files::{Compression, side_file};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};

/// A plain trace file read in pieces with positioned reads, so that every parsing worker
/// reads its own piece (the copy out of the page cache is spread over the cores, like the
/// parsing) and only a piece per worker is held in memory at a time.
///
/// The file is not memory-mapped: a file that another process truncates while it is mapped
/// kills the reader with `SIGBUS` on the next access, and there is no portable way to
/// prevent that (locks are advisory; leases need ownership and expire). A read past the new
/// end simply returns fewer bytes, which [`PlainFile::shrunk_to`] reports.
#[derive(Debug)]
pub struct PlainFile {
    file: File,
    /// The size when the load started: bytes written after it are not read.
    len: u64,
    /// The smallest end of file a read met before `len`, or `u64::MAX`.
    short_end: AtomicU64,
}

/// A piece of a plain file: the complete lines that start in a byte range.
#[derive(Debug, Default)]
pub struct Piece {
    /// The buffer; `text` is a range of it. Kept between pieces to reuse its pages.
    pub buf: Vec<u8>,
    pub text: std::ops::Range<usize>,
}

impl Piece {
    /// The lines of the piece.
    pub fn text(&self) -> &[u8] {
        self.buf.get(self.text.clone()).unwrap_or(&[])
    }
}

/// How much more is read at a time past the end of a range to finish its last line.
const LINE_TAIL: usize = 64 << 10;

impl PlainFile {
    /// Opens a plain file of `len` bytes (its size now).
    pub fn new(file: File, len: u64) -> Self {
        PlainFile {
            file,
            len,
            short_end: AtomicU64::new(u64::MAX),
        }
    }

    /// Tells the kernel that `[from, to)` will not be read again, so that its pages leave the
    /// page cache (a conversion reads a trace larger than memory once: its pages would only
    /// crowd out the ones still needed). Advice only: nothing is lost if it is not taken.
    pub fn will_not_read_again(&self, from: u64, to: u64) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let (Ok(at), Ok(len)) = (
                libc::off_t::try_from(from),
                libc::off_t::try_from(to.saturating_sub(from)),
            ) else {
                return;
            };
            #[allow(unsafe_code)]
            // SAFETY: posix_fadvise only advises the kernel about the open descriptor's pages;
            // it reads and writes no memory of this process.
            unsafe {
                libc::posix_fadvise(self.file.as_raw_fd(), at, len, libc::POSIX_FADV_DONTNEED);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (from, to);
    }

    /// The size when the load started.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// When a read found the file shorter than it was when the load started: the size it
    /// found (the smallest, when several reads did).
    pub fn shrunk_to(&self) -> Option<u64> {
        let end = self.short_end.load(Ordering::Relaxed);
        (end < self.len).then_some(end)
    }

    /// Reads `[at, at + buf.len())`, or less when the file ends (or shrank) first; returns
    /// the number of bytes read.
    pub fn read_at(&self, mut at: u64, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf.len();
        let mut done = 0;
        while done < want {
            let Some(rest) = buf.get_mut(done..) else {
                break;
            };
            match positioned_read(&self.file, rest, at) {
                Ok(0) => {
                    if at < self.len {
                        self.short_end.fetch_min(at, Ordering::Relaxed);
                    }
                    break;
                }
                Ok(n) => {
                    done += n;
                    at += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }

    /// Reads the first line (the header) and returns it with the offset of the body. A first
    /// line without newline is the whole file.
    pub fn read_first_line(&self) -> io::Result<(Vec<u8>, u64)> {
        self.read_first_line_up_to(u64::MAX)
    }

    /// [`read_first_line`](Self::read_first_line), reading at most about `limit` bytes.
    pub fn read_first_line_up_to(&self, limit: u64) -> io::Result<(Vec<u8>, u64)> {
        let mut line = Vec::new();
        let mut at = 0u64;
        let mut block = vec![0u8; LINE_TAIL];
        while at < self.len.min(limit) {
            let want = usize::try_from(self.len - at).map_or(LINE_TAIL, |r| r.min(LINE_TAIL));
            let got = self.read_at(at, block.get_mut(..want).unwrap_or(&mut []))?;
            let read = block.get(..got).unwrap_or(&[]);
            if let Some(p) = memchr::memchr(b'\n', read) {
                line.extend_from_slice(read.get(..p).unwrap_or(&[]));
                return Ok((line, at + p as u64 + 1));
            }
            line.extend_from_slice(read);
            at += got as u64;
            if got < want {
                break;
            }
        }
        Ok((line, at))
    }

    /// Reads into `piece` the lines that start in `[start, end)`: a line belongs to the
    /// range its first byte is in, so ranges that tile the body give every line exactly
    /// once, wherever they cut. `body` is where the first line of the body starts (a line
    /// start whatever the byte before it). Reads stop at the size the file had when the load
    /// started.
    pub fn read_lines(&self, body: u64, start: u64, end: u64, piece: &mut Piece) -> io::Result<()> {
        piece.text = 0..0;
        let end = end.min(self.len);
        if start >= end {
            return Ok(());
        }
        // One byte before the range says whether the range starts a line.
        let from = if start > body { start - 1 } else { start };
        let want = usize::try_from(end - from)
            .map_err(|_| io::Error::other("a piece larger than the address space"))?;
        if piece.buf.len() < want {
            // Only growth is zeroed; the buffer keeps its length between pieces.
            piece.buf.resize(want, 0);
        }
        let got = self.read_at(from, piece.buf.get_mut(..want).unwrap_or(&mut []))?;
        let read = piece.buf.get(..got).unwrap_or(&[]);
        let first = if start > body {
            // The first line starting in the range follows the first newline from the byte
            // before the range up to the byte before `end`.
            match memchr::memchr(b'\n', read.get(..got.min(want - 1)).unwrap_or(&[])) {
                Some(p) => p + 1,
                None => return Ok(()),
            }
        } else {
            0
        };
        let mut filled = got;
        // The last line goes on to its newline, which may lie past the range.
        if got == want && !read.ends_with(b"\n") {
            let mut at = end;
            while at < self.len {
                let tail = usize::try_from(self.len - at).map_or(LINE_TAIL, |r| r.min(LINE_TAIL));
                if piece.buf.len() < filled + tail {
                    piece.buf.resize(filled + tail, 0);
                }
                let got = self.read_at(
                    at,
                    piece.buf.get_mut(filled..filled + tail).unwrap_or(&mut []),
                )?;
                let new = piece.buf.get(filled..filled + got).unwrap_or(&[]);
                if let Some(p) = memchr::memchr(b'\n', new) {
                    filled += p + 1;
                    break;
                }
                filled += got;
                at += got as u64;
                if got < tail {
                    break;
                }
            }
        }
        piece.text = first..filled.max(first);
        Ok(())
    }
}

/// `pread`: reads at an offset without moving a shared file position, so that workers can
/// read one file at the same time.
#[cfg(unix)]
fn positioned_read(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn positioned_read(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

/// Shared progress of a load: bytes of the file read so far, its size, and a cancel flag.
/// The UI polls it from another thread.
#[derive(Debug, Default)]
pub struct LoadProgress {
    /// Bytes of the file (compressed, for compressed files) consumed so far.
    pub bytes_done: AtomicU64,
    /// Size of the file in bytes.
    pub bytes_total: AtomicU64,
    /// Set to stop the load; the loader returns [`LoadError::Cancelled`](prvscope_format::LoadError).
    pub cancel: AtomicBool,
}

impl LoadProgress {
    /// True once cancel was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Fraction done, 0..=1.
    pub fn fraction(&self) -> f64 {
        let total = self.bytes_total.load(Ordering::Relaxed).max(1);
        (self.bytes_done.load(Ordering::Relaxed) as f64 / total as f64).min(1.0)
    }
}

/// A block of decoded text: complete lines, except for the very last block of a stream.
pub struct Block {
    pub seq: usize,
    /// The buffer; only `..len` holds text. The rest stays allocated and initialised so that
    /// the buffer can be recycled without being zeroed again.
    pub bytes: Vec<u8>,
    pub len: usize,
}

impl Block {
    /// The decoded text of the block.
    pub fn text(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&self.bytes)
    }
}

/// What the decoder thread sends: blocks, then at most one error, then the channel closes.
pub enum StreamItem {
    Block(Block),
    /// The stream ended early or was corrupt after `decoded` bytes.
    Error {
        decoded: u64,
        message: String,
    },
}

/// A reader that counts the bytes it reads into the progress.
struct Counting<R> {
    inner: R,
    progress: Arc<LoadProgress>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.progress.is_cancelled() {
            return Err(io::Error::other("load cancelled"));
        }
        let n = self.inner.read(buf)?;
        self.progress
            .bytes_done
            .fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Size of the decoded blocks handed to the parser.
pub const STREAM_BLOCK: usize = 8 << 20;

/// A running decoder: blocks arrive in order on `blocks` (at most a few wait there, which
/// bounds memory); parsed blocks' buffers go back through `recycle`, so the decoder reuses
/// memory that is already mapped instead of faulting in fresh pages for every block.
pub struct Decoder {
    pub blocks: Receiver<StreamItem>,
    pub recycle: Sender<Vec<u8>>,
}

/// Starts decoding a compressed input (a file, or bytes in memory) on a background thread.
pub fn spawn_decoder<R: Read + Send + 'static>(
    file: R,
    compression: Compression,
    progress: Arc<LoadProgress>,
    block_size: usize,
) -> Decoder {
    let (tx, rx) = sync_channel(4);
    let (recycle, reuse) = channel::<Vec<u8>>();
    std::thread::Builder::new()
        .name("prvscope-decode".into())
        .spawn(move || {
            let counted = Counting {
                inner: io::BufReader::with_capacity(1 << 20, file),
                progress,
            };
            match compression {
                Compression::Xz => {
                    match XzReader::new(io::BufReader::with_capacity(1 << 20, counted)) {
                        Ok(r) => pump(r, &tx, &reuse, block_size),
                        Err(e) => {
                            let _ = tx.send(StreamItem::Error {
                                decoded: 0,
                                message: e.to_string(),
                            });
                        }
                    }
                }
                Compression::Gzip => {
                    pump(
                        flate2::read::MultiGzDecoder::new(counted),
                        &tx,
                        &reuse,
                        block_size,
                    );
                }
                Compression::None => pump(counted, &tx, &reuse, block_size),
            }
        })
        .map_or_else(
            |e| {
                let (tx2, rx2) = sync_channel(1);
                let _ = tx2.send(StreamItem::Error {
                    decoded: 0,
                    message: format!("could not start the decoder thread: {e}"),
                });
                Decoder {
                    blocks: rx2,
                    recycle: recycle.clone(),
                }
            },
            |_| Decoder {
                blocks: rx,
                recycle: recycle.clone(),
            },
        )
}

fn xz_stream() -> io::Result<liblzma::stream::Stream> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    // memlimit_threading defaults to 0, which silently means one thread.
    liblzma::stream::MtStreamBuilder::new()
        .threads(u32::try_from(threads).unwrap_or(1).max(1))
        .memlimit_stop(u64::MAX)
        .memlimit_threading(u64::MAX)
        .decoder()
        .or_else(|_| liblzma::stream::Stream::new_stream_decoder(u64::MAX, 0))
        .map_err(io::Error::other)
}

/// An `.xz` reader over liblzma's multithreaded decoder that loses nothing before an error:
/// the output decoded in the call that meets a corrupt block is returned first and the error
/// on the next call (`liblzma::read::XzDecoder` drops that output), and concatenated streams
/// (`cat a.xz b.xz`) are all decoded, as `xz -dc` does.
struct XzReader<R> {
    inner: R,
    stream: liblzma::stream::Stream,
    pending_error: Option<io::Error>,
    done: bool,
}

impl<R: io::BufRead> XzReader<R> {
    fn new(inner: R) -> io::Result<Self> {
        Ok(XzReader {
            inner,
            stream: xz_stream()?,
            pending_error: None,
            done: false,
        })
    }

    /// After a stream ends: is another one next (after any zero padding)?
    fn next_stream(&mut self) -> io::Result<bool> {
        loop {
            let input = self.inner.fill_buf()?;
            if input.is_empty() {
                return Ok(false);
            }
            let zeros = input.iter().take_while(|&&b| b == 0).count();
            if zeros == 0 {
                self.stream = xz_stream()?;
                return Ok(true);
            }
            self.inner.consume(zeros);
        }
    }
}

impl<R: io::BufRead> Read for XzReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = self.pending_error.take() {
            return Err(e);
        }
        if buf.is_empty() || self.done {
            return Ok(0);
        }
        loop {
            let input = self.inner.fill_buf()?;
            let eof = input.is_empty();
            let (in0, out0) = (self.stream.total_in(), self.stream.total_out());
            let action = if eof {
                liblzma::stream::Action::Finish
            } else {
                liblzma::stream::Action::Run
            };
            let ret = self.stream.process(input, buf, action);
            let consumed = (self.stream.total_in() - in0) as usize;
            let written = (self.stream.total_out() - out0) as usize;
            self.inner.consume(consumed);
            match ret {
                Err(e) => {
                    let e = io::Error::new(io::ErrorKind::InvalidData, e);
                    if written > 0 {
                        self.pending_error = Some(e);
                        return Ok(written);
                    }
                    return Err(e);
                }
                Ok(liblzma::stream::Status::StreamEnd) => {
                    if !self.next_stream()? {
                        self.done = true;
                    }
                    if written > 0 || self.done {
                        return Ok(written);
                    }
                }
                Ok(_) => {
                    if written > 0 {
                        return Ok(written);
                    }
                    if eof {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "the xz stream ends early (truncated file)",
                        ));
                    }
                    if consumed == 0 {
                        // liblzma made no progress with input and room for output.
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "corrupt xz stream (the decoder made no progress)",
                        ));
                    }
                }
            }
        }
    }
}

/// Reads `reader` into newline-aligned blocks and sends them.
fn pump<R: Read>(
    mut reader: R,
    tx: &SyncSender<StreamItem>,
    reuse: &Receiver<Vec<u8>>,
    block_size: usize,
) {
    let mut seq = 0usize;
    let mut carry: Vec<u8> = Vec::new();
    let mut decoded = 0u64;
    loop {
        let mut buf = reuse.try_recv().unwrap_or_default();
        // Recycled buffers keep their length: only growth is zeroed.
        let need = block_size + carry.len();
        if buf.len() < need {
            buf.resize(need, 0);
        }
        let mut filled = carry.len();
        if let Some(head) = buf.get_mut(..filled) {
            head.copy_from_slice(&carry);
        }
        carry.clear();
        let mut error = None;
        while filled < block_size {
            match reader.read(buf.get_mut(filled..block_size).unwrap_or(&mut [])) {
                Ok(0) => break,
                Ok(n) => {
                    filled += n;
                    decoded += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        let full = filled >= block_size && error.is_none();
        if full {
            // Keep the partial last line for the next block.
            if let Some(p) = memchr::memrchr(b'\n', buf.get(..filled).unwrap_or(&[])) {
                carry.extend_from_slice(buf.get(p + 1..filled).unwrap_or(&[]));
                filled = p + 1;
            }
        }
        if filled > 0
            && tx
                .send(StreamItem::Block(Block {
                    seq,
                    bytes: buf,
                    len: filled,
                }))
                .is_err()
        {
            return;
        }
        seq += 1;
        if let Some(e) = error {
            let _ = tx.send(StreamItem::Error {
                decoded,
                message: e.to_string(),
            });
            return;
        }
        if !full {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_uses_magic_bytes() {
        assert_eq!(
            Compression::sniff(&[0xFD, b'7', b'z', b'X', b'Z', 0, 1]),
            Compression::Xz
        );
        assert_eq!(Compression::sniff(&[0x1F, 0x8B, 8]), Compression::Gzip);
        assert_eq!(Compression::sniff(b"#Paraver"), Compression::None);
    }
}

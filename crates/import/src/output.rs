//! Writing a trace file: plain, `.xz` (liblzma's multithreaded encoder, preset 6 as `xz`)
//! or `.gz` (flate2, level 6 as `gzip`) by the output's name; written under a temporary
//! name beside it and renamed at the end, so that nothing half-written is ever left under
//! the name asked for (a write that fails or is dropped removes its temporary file). The
//! `.pcf` and `.row` are copied beside it, as Paraver's tools do.
//!
//! Also the lines of a trace's file the store does not keep: the communicator lines after
//! the header and the comment lines before the first record.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use prvscope_format::files::{Compression, side_file};

/// How the output is compressed, by its name.
pub fn compression_of(path: &Path) -> Compression {
    match path.extension().and_then(|e| e.to_str()) {
        Some("xz") => Compression::Xz,
        Some("gz") => Compression::Gzip,
        _ => Compression::None,
    }
}

enum Encoder {
    Plain(BufWriter<File>),
    Xz(liblzma::write::XzEncoder<BufWriter<File>>),
    Gz(flate2::write::GzEncoder<BufWriter<File>>),
}

/// A trace file being written (see the module's documentation).
pub struct OutputFile {
    path: PathBuf,
    temp: PathBuf,
    enc: Option<Encoder>,
}

fn with_path(path: &Path, e: &io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

impl OutputFile {
    /// Starts writing `path` (its folder must exist).
    pub fn create(path: &Path) -> io::Result<OutputFile> {
        let name = path
            .file_name()
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: not a file name", path.display()),
                )
            })?
            .to_string_lossy()
            .into_owned();
        let temp = path.with_file_name(format!(".{name}.part-{}", std::process::id()));
        let file = File::create(&temp).map_err(|e| with_path(path, &e))?;
        let buf = BufWriter::with_capacity(1 << 20, file);
        let enc = match compression_of(path) {
            Compression::None => Encoder::Plain(buf),
            Compression::Gzip => Encoder::Gz(flate2::write::GzEncoder::new(
                buf,
                flate2::Compression::new(6),
            )),
            Compression::Xz => {
                let threads =
                    std::thread::available_parallelism().map_or(1, std::num::NonZero::get) as u32;
                let stream = liblzma::stream::MtStreamBuilder::new()
                    .threads(threads)
                    .preset(6)
                    .check(liblzma::stream::Check::Crc64)
                    .encoder()
                    .map_err(|e| {
                        let _ = std::fs::remove_file(&temp);
                        io::Error::other(format!("{}: xz encoder: {e}", path.display()))
                    })?;
                Encoder::Xz(liblzma::write::XzEncoder::new_stream(buf, stream))
            }
        };
        Ok(OutputFile {
            path: path.to_path_buf(),
            temp,
            enc: Some(enc),
        })
    }

    /// Finishes the file (compression flushed) and gives it its name.
    pub fn finish(mut self) -> io::Result<()> {
        let path = self.path.clone();
        let file = match self.enc.take() {
            Some(Encoder::Plain(w)) => w.into_inner().map_err(io::IntoInnerError::into_error),
            Some(Encoder::Xz(w)) => w
                .finish()
                .and_then(|b| b.into_inner().map_err(io::IntoInnerError::into_error)),
            Some(Encoder::Gz(w)) => w
                .finish()
                .and_then(|b| b.into_inner().map_err(io::IntoInnerError::into_error)),
            None => return Ok(()),
        }
        .map_err(|e| with_path(&path, &e))?;
        drop(file);
        std::fs::rename(&self.temp, &self.path).map_err(|e| with_path(&path, &e))
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.enc.as_mut() {
            Some(Encoder::Plain(w)) => w.write(buf),
            Some(Encoder::Xz(w)) => w.write(buf),
            Some(Encoder::Gz(w)) => w.write(buf),
            None => Err(io::Error::other("the output is finished")),
        }
        .map_err(|e| with_path(&self.path, &e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self.enc.as_mut() {
            Some(Encoder::Plain(w)) => w.write_all(buf),
            Some(Encoder::Xz(w)) => w.write_all(buf),
            Some(Encoder::Gz(w)) => w.write_all(buf),
            None => Err(io::Error::other("the output is finished")),
        }
        .map_err(|e| with_path(&self.path, &e))
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.enc.as_mut() {
            Some(Encoder::Plain(w)) => w.flush(),
            Some(Encoder::Xz(w)) => w.flush(),
            Some(Encoder::Gz(w)) => w.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.enc.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Copies the `.pcf` and `.row` of `input` beside `output` (those `input` has); returns the
/// files written.
pub fn copy_side_files(input: &Path, output: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for ext in ["pcf", "row"] {
        let (from, to) = (side_file(input, ext), side_file(output, ext));
        if from.exists() && from != to {
            std::fs::copy(&from, &to).map_err(|e| with_path(&to, &e))?;
            out.push(to);
        }
    }
    Ok(out)
}

/// The text of a trace's file, decompressed (`.xz` or `.gz`, by its first bytes) as read.
pub fn open_text(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    let mut file = File::open(path).map_err(|e| with_path(path, &e))?;
    let mut magic = [0u8; 6];
    let n = file.read(&mut magic)?;
    drop(file);
    let file = File::open(path).map_err(|e| with_path(path, &e))?;
    let reader: Box<dyn Read + Send> = match Compression::sniff(magic.get(..n).unwrap_or_default())
    {
        Compression::None => Box::new(file),
        Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(file)),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(file)),
    };
    Ok(Box::new(BufReader::with_capacity(1 << 20, reader)))
}

/// The lines of a trace's file after its header that the store does not keep: the
/// `communicators` lines the header announces, and the comment lines (`#`) right after them.
pub fn head_lines(path: &Path, communicators: u32) -> io::Result<(Vec<String>, Vec<String>)> {
    head_lines_of(open_text(path)?, communicators)
}

/// [`head_lines`] of a trace's text.
pub fn head_lines_of(
    text: impl BufRead,
    communicators: u32,
) -> io::Result<(Vec<String>, Vec<String>)> {
    let mut lines = text.lines();
    let _header = lines.next().transpose()?;
    let mut comms = Vec::new();
    for _ in 0..communicators {
        match lines.next().transpose()? {
            Some(l) => comms.push(l.trim_end_matches('\r').to_owned()),
            None => break,
        }
    }
    let mut comments = Vec::new();
    for line in lines {
        let line = line?;
        if !line.starts_with('#') || comments.len() >= 10_000 {
            break;
        }
        comments.push(line.trim_end_matches('\r').to_owned());
    }
    Ok((comms, comments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_under_a_temporary_name_then_renamed() {
        let dir = std::env::temp_dir().join(format!("prvscope-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["a.prv", "a.prv.xz", "a.prv.gz"] {
            let path = dir.join(name);
            let mut out = OutputFile::create(&path).unwrap();
            out.write_all(b"#Paraver (x):10_ns:0:1:1(1:0)\n1:0:1:1:1:0:10:1\n")
                .unwrap();
            assert!(!path.exists(), "{name}: not under its name before the end");
            out.finish().unwrap();
            assert!(path.exists());
            let (comms, comments) = head_lines(&path, 0).unwrap();
            assert!(comms.is_empty() && comments.is_empty());
            // Dropped without finishing: nothing left.
            let out = OutputFile::create(&dir.join(format!("b{name}"))).unwrap();
            drop(out);
            assert!(!dir.join(format!("b{name}")).exists());
        }
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().contains(".part-"))
            .collect();
        assert!(leftovers.is_empty());
        let err = OutputFile::create(&dir.join("missing/x.prv"))
            .err()
            .unwrap();
        assert!(err.to_string().contains("missing/x.prv"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

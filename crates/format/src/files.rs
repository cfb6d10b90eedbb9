//! How a trace is kept on disk: its compression, recognised by its first bytes (never by its
//! name), and the side files beside it.

use std::path::{Path, PathBuf};

/// How the file is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Xz,
    Gzip,
}

impl Compression {
    /// Recognises the compression from the first bytes of a file.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else if head.starts_with(&[0x1F, 0x8B]) {
            Compression::Gzip
        } else {
            Compression::None
        }
    }

    /// `plain`, `xz` or `gzip`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Xz => "xz",
            Compression::Gzip => "gzip",
        }
    }
}

/// The `.pcf` and `.row` beside a trace: `x.prv`, `x.prv.xz` and `x.prv.gz` all use
/// `x.pcf` and `x.row`.
pub fn side_file(trace: &Path, ext: &str) -> PathBuf {
    let name = trace
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut stem = name.as_str();
    for suffix in [".xz", ".gz"] {
        if let Some(s) = stem.strip_suffix(suffix) {
            stem = s;
            break;
        }
    }
    if let Some(s) = stem.strip_suffix(".prv") {
        stem = s;
    }
    trace.with_file_name(format!("{stem}.{ext}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_files_strip_compression_and_prv() {
        assert_eq!(
            side_file(Path::new("/a/x.prv.xz"), "pcf"),
            Path::new("/a/x.pcf")
        );
        assert_eq!(
            side_file(Path::new("/a/x.prv.gz"), "row"),
            Path::new("/a/x.row")
        );
        assert_eq!(side_file(Path::new("x.prv"), "pcf"), Path::new("x.pcf"));
        assert_eq!(
            side_file(Path::new("x.trace"), "pcf"),
            Path::new("x.trace.pcf")
        );
    }
}

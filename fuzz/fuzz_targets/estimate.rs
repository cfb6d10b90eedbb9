//! The memory check before a load, on any file: the header and the text size are read from
//! untrusted bytes (the first line, an `.xz` index walked back from the end, a `.gz`
//! trailer, a decoded sample). Never a panic or a giant allocation; the text size of an
//! `.xz` that decodes cleanly is its decoded size exactly; a part never needs more than the
//! whole.
#![no_main]

use std::io::Read;
use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use prvscope_import::estimate::estimate;
use prvscope_import::{Compression, Subset};

fn temp_file() -> PathBuf {
    std::env::temp_dir().join(format!("prvscope-fuzz-estimate-{}", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let path = temp_file();
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let Ok(e) = estimate(&path) else {
        return;
    };
    match e.compression {
        Compression::None => assert_eq!(e.text_bytes, data.len() as u64),
        Compression::Xz => {
            let mut text = Vec::new();
            if liblzma::read::XzDecoder::new_multi_decoder(data)
                .read_to_end(&mut text)
                .is_ok()
            {
                assert_eq!(e.text_bytes, text.len() as u64, "xz index");
            }
        }
        Compression::Gzip => {}
    }
    let _ = e.advice(&path);
    let _ = e.too_large();
    let Some(h) = e.header.clone() else {
        return;
    };
    let end = h.end_time;
    let rows = h.thread_count();
    let parts = [
        Subset::default(),
        Subset {
            from: Some(end / 3),
            to: Some(end / 2),
            threads: None,
        },
        Subset {
            from: None,
            to: Some(u64::MAX),
            threads: (rows > 0).then(|| "1".parse().expect("a thread list")),
        },
        Subset {
            from: Some(u64::MAX),
            to: None,
            threads: (rows > 1).then(|| format!("2-{rows}").parse().expect("a thread list")),
        },
    ];
    for part in &parts {
        assert!(e.bytes_for(part) <= e.whole_bytes, "{part}");
    }
    for budget in [0, 1 << 20, e.whole_bytes / 2, e.whole_bytes, u64::MAX] {
        if let Some((from, to)) = e.range_that_fits(budget) {
            assert!(from <= to && to <= end.max(1), "{from}-{to} of {end}");
        }
    }
});

//! Files of the tests: scratch directories, reading and writing, gzip, the
//! lines of a text.

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A fresh, empty directory for one test: `NAME` under the test binary's
/// own directory of Cargo's scratch space (`target/tmp/`), emptied first;
/// left in place afterwards to look at.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(env!("CARGO_CRATE_NAME"))
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

/// A scratch directory removed when it goes out of scope, passed or
/// failed: for a test that writes much (one hostile case writes 100 MiB;
/// left behind, runs fill the disk). Like [`scratch`] otherwise.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// [`scratch`], removed when the returned guard is dropped.
pub fn scratch_removed(name: &str) -> Scratch {
    Scratch(scratch(name))
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Writes a file, making its directory.
pub fn write(p: &Path, contents: impl AsRef<[u8]>) {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    }
    std::fs::write(p, contents).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
}

pub fn gzip(text: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::fast());
    e.write_all(text).expect("gzip");
    e.finish().expect("gzip")
}

pub fn gunzip(raw: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    MultiGzDecoder::new(raw).read_to_end(&mut v).expect("gzip");
    v
}

/// The lines of a text with their terminators (a last line without one
/// gets none).
pub fn lines(text: &[u8]) -> Vec<(&[u8], &[u8])> {
    text.split_inclusive(|&b| b == b'\n')
        .map(|l| {
            if let Some(c) = l.strip_suffix(b"\r\n") {
                (c, &b"\r\n"[..])
            } else if let Some(c) = l.strip_suffix(b"\n") {
                (c, &b"\n"[..])
            } else {
                (l, &b""[..])
            }
        })
        .collect()
}

/// The lines of a file, each with its line ending.
pub fn lines_of(path: &Path) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    data.split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

//! Inputs: files, directories, stdin; gzip detected by its magic bytes.

pub mod families;
pub mod scan;
pub mod unwrap;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One thing to read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Input {
    Stdin,
    File(PathBuf),
    /// Text already in memory (tests, the simulator), with a display name.
    Bytes {
        name: String,
        data: Arc<[u8]>,
    },
}

impl Input {
    /// An in-memory input.
    pub fn bytes(name: impl Into<String>, data: impl Into<Vec<u8>>) -> Input {
        Input::Bytes {
            name: name.into(),
            data: Arc::from(data.into()),
        }
    }

    pub fn display(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) => p.display().to_string(),
            Input::Bytes { name, .. } => name.clone(),
        }
    }
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A reader that decompresses gzip (all members) when the first bytes are
/// gzip's magic number, whatever the file is called.
pub fn decoded<R: Read + Send + 'static>(inner: R) -> io::Result<(Box<dyn Read + Send>, bool)> {
    let mut r = BufReader::with_capacity(64 * 1024, inner);
    let head = {
        use std::io::BufRead;
        let buf = loop {
            match r.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        buf.len() >= 2 && buf[..2] == GZIP_MAGIC
    };
    if head {
        Ok((Box::new(flate2::bufread::MultiGzDecoder::new(r)), true))
    } else {
        Ok((Box::new(r), false))
    }
}

/// What the head of a segment showed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Head {
    /// A terminal copy wrapped at this many characters: the reader rejoins
    /// its records ([`unwrap`]).
    pub wrap_width: Option<usize>,
    /// The layout prints no logger ([`crate::layout::bare`]).
    pub bare: bool,
}

/// Reads the head of a segment once, before the scan: a terminal copy's
/// wrapped records are rejoined, and the head tells whether the layout
/// prints a logger. Streams that are neither pay one copy of their head.
pub fn prepare(reader: Box<dyn Read + Send>) -> (Box<dyn Read + Send>, Head) {
    let mut bare = false;
    let (reader, wrap_width) = unwrap::reader(reader, |head| {
        bare = crate::layout::bare::head_is_bare(head);
    });
    (reader, Head { wrap_width, bare })
}

/// Opens an input for reading.
pub fn open(input: &Input) -> io::Result<(Box<dyn Read + Send>, bool)> {
    match input {
        Input::Stdin => decoded(io::stdin()),
        Input::File(p) => decoded(File::open(p)?),
        Input::Bytes { data, .. } => decoded(io::Cursor::new(data.clone())),
    }
}

/// Expands directories (recursively, in name order) into their files.
/// Errors (unreadable directories, symlink loops) are returned with the
/// path they concern; the walk goes on.
pub fn expand(paths: &[PathBuf]) -> (Vec<Input>, Vec<(String, String)>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(Input::Stdin);
            continue;
        }
        walk(p, &mut out, &mut errors, &mut Vec::new());
    }
    (out, errors)
}

fn walk(
    p: &Path,
    out: &mut Vec<Input>,
    errors: &mut Vec<(String, String)>,
    seen: &mut Vec<PathBuf>,
) {
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) => {
            errors.push((p.display().to_string(), describe(&e)));
            return;
        }
    };
    if !meta.is_dir() {
        out.push(Input::File(p.to_path_buf()));
        return;
    }
    let canon = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if seen.contains(&canon) {
        errors.push((
            p.display().to_string(),
            "directory loop (a symlink points back to an enclosing directory); skipped".to_string(),
        ));
        return;
    }
    seen.push(canon);
    let entries = match std::fs::read_dir(p) {
        Ok(rd) => rd,
        Err(e) => {
            errors.push((p.display().to_string(), describe(&e)));
            seen.pop();
            return;
        }
    };
    let mut children: Vec<PathBuf> = Vec::new();
    for entry in entries {
        match entry {
            Ok(e) => children.push(e.path()),
            Err(e) => errors.push((p.display().to_string(), describe(&e))),
        }
    }
    children.sort();
    for c in children {
        walk(&c, out, errors, seen);
    }
    seen.pop();
}

/// An I/O error in words, without Rust's debug formatting.
pub fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let s = e.to_string();
            // Strip the "(os error N)" suffix; lower-case like the rest.
            let s = match s.find(" (os error") {
                Some(i) => &s[..i],
                None => &s,
            };
            let mut c = s.chars();
            match c.next() {
                Some(f) => f.to_lowercase().chain(c).collect(),
                None => String::new(),
            }
        }
    }
}

//! Inputs: files, directories, stdin; gzip detected by its magic bytes.

pub mod gzip;
pub mod head;
pub mod live;
pub mod rotation;
pub mod scan;
pub mod segment;
pub mod sources;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

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
    /// A file read under another name (`herder-audit map --segment
    /// NAME=PATH`: a copy of a remote file, named as the original). The
    /// name is what reports show and what groups rotated segments.
    Named {
        name: String,
        path: PathBuf,
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
            Input::Bytes { name, .. } | Input::Named { name, .. } => name.clone(),
        }
    }

    /// The path its name stands for (what rotated segments are grouped
    /// by), for files.
    pub fn named_path(&self) -> Option<PathBuf> {
        match self {
            Input::File(p) => Some(p.clone()),
            Input::Named { name, .. } => Some(PathBuf::from(name)),
            Input::Stdin | Input::Bytes { .. } => None,
        }
    }

    /// The file to read, for inputs on disk.
    pub fn disk_path(&self) -> Option<&Path> {
        match self {
            Input::File(p) | Input::Named { path: p, .. } => Some(p),
            Input::Stdin | Input::Bytes { .. } => None,
        }
    }
}

/// The canonical order of a run's inputs: by name, compared as paths
/// (component by component), standard input first. Output never depends
/// on the order inputs were given in, and a run over parts of a tree
/// (`map`) agrees with a run over the whole.
pub fn canonical_order(a: &Input, b: &Input) -> std::cmp::Ordering {
    let key = |i: &Input| (!matches!(i, Input::Stdin), PathBuf::from(i.display()));
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
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
        Ok((Box::new(gzip::MultiGz::new(r)), true))
    } else {
        Ok((Box::new(r), false))
    }
}

/// A segment being read: plain text or gzip from a [`segment::Segment`]
/// that can be released between reads, or live input.
pub enum Reader {
    Plain(segment::Segment),
    Gzip(Box<gzip::MultiGz<segment::Segment>>),
    Live(Box<dyn Read + Send>),
}

impl Reader {
    /// Buffer memory held by the reader itself (the decoder's state is
    /// counted as its window).
    pub fn buffer_bytes(&self) -> usize {
        match self {
            Reader::Plain(s) => s.buffer_bytes(),
            Reader::Gzip(d) => d.get_ref().buffer_bytes() + GZIP_STATE,
            Reader::Live(_) => 0,
        }
    }
}

/// What a gzip decoder keeps between reads (the inflate window and
/// tables), for the memory budget of paused streams.
pub const GZIP_STATE: usize = 48 * 1024;

impl Read for Reader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Reader::Plain(s) => s.read(buf),
            Reader::Gzip(d) => d.read(buf),
            Reader::Live(r) => r.read(buf),
        }
    }
}

impl scan::Release for Reader {
    fn release(&mut self, unread: usize, keep_buffers: bool, keep_fd: bool) -> bool {
        match self {
            Reader::Plain(s) => {
                let taken = !keep_buffers;
                if taken {
                    s.unread(unread);
                }
                s.release(keep_buffers, keep_fd);
                taken
            }
            Reader::Gzip(d) => {
                d.get_mut().release(keep_buffers, keep_fd);
                false
            }
            Reader::Live(_) => false,
        }
    }
}

/// Opens a file or in-memory input as a segment that can be released
/// between reads (standard input cannot be: it is read as it comes);
/// `count` adds up the (compressed) bytes read. Also says whether it is
/// gzip.
pub fn open_segment(input: &Input, count: Arc<AtomicU64>) -> io::Result<(Reader, bool)> {
    let mut src = match input {
        Input::File(p) | Input::Named { path: p, .. } => segment::Segment::file(p.clone(), count)?,
        Input::Bytes { data, .. } => segment::Segment::bytes(data.clone(), count),
        Input::Stdin => {
            let (r, gzip) = open(input)?;
            return Ok((Reader::Live(r), gzip));
        }
    };
    if src.is_gzip()? {
        src.set_compressed();
        let dec = gzip::MultiGz::new(src);
        Ok((Reader::Gzip(Box::new(dec)), true))
    } else {
        src.set_direct();
        Ok((Reader::Plain(src), false))
    }
}

/// What the head of a segment showed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    /// A terminal copy wrapped at this many characters: the reader rejoins
    /// its records ([`sources::terminal`]).
    pub wrap_width: Option<usize>,
    /// The layout prints no logger ([`crate::layout::bare`]).
    pub bare: bool,
    /// The log lines came in an envelope the reader took off (a container
    /// runtime's file, a log store's export: [`sources`]).
    pub source: Option<sources::Decoded>,
}

/// Reads the head of a segment once, before the scan: an envelope (a
/// container runtime's file, an export) is taken off, a terminal copy's
/// wrapped records are rejoined, and the head tells whether the layout
/// prints a logger. Streams that are none of these pay two copies of their
/// head.
pub fn prepare(reader: Box<dyn Read + Send>) -> (Box<dyn Read + Send>, Head) {
    prepare_after(reader, None)
}

/// [`prepare`] for a segment of a stream whose earlier segment was a
/// terminal copy wrapped at `earlier` characters: the segment is read as
/// wrapped at that width too unless its head shows otherwise
/// ([`sources::terminal::detect_after`]).
pub fn prepare_after(
    reader: Box<dyn Read + Send>,
    earlier: Option<usize>,
) -> (Box<dyn Read + Send>, Head) {
    let (reader, source) = sources::reader(reader);
    if source.is_some() {
        // An envelope's records are whole (no terminal cut them); its
        // layout is judged on the records without the empty lines that
        // keep the line numbers of rejoined parts.
        let (head, error, rest) = head::read_head(reader);
        let records: Vec<u8> = head
            .split_inclusive(|&b| b == b'\n')
            .filter(|l| !l.iter().all(|b| matches!(b, b'\n' | b'\r')))
            .flatten()
            .copied()
            .collect();
        let bare = crate::layout::bare::head_is_bare(&records);
        let reader = Box::new(head::HeadThen::new(head, error, rest));
        let head = Head {
            wrap_width: None,
            bare,
            source,
        };
        return (reader, head);
    }
    let mut bare = false;
    let (reader, wrap_width) = sources::terminal::reader_after(
        reader,
        |head, ends| {
            bare = crate::layout::bare::head_is_bare_at(head, ends);
        },
        earlier,
    );
    (
        reader,
        Head {
            wrap_width,
            bare,
            source,
        },
    )
}

/// Opens a segment of a file (or bytes) for the scan, with what its head
/// shows. The head is read apart, and the scan reads the segment from its
/// start through a reader that can be released between reads; a terminal
/// copy wrapped at a fixed width is read through the rejoining reader
/// instead, as is an envelope's (readers that cannot be released: they
/// keep their file and buffers while paused). `earlier` is the wrap width
/// of the stream's earlier segment, if it was a terminal copy.
pub fn open_probed(
    input: &Input,
    count: Arc<AtomicU64>,
    earlier: Option<usize>,
) -> io::Result<(Reader, bool, Head)> {
    let (head, error) = probe_read(input)?;
    let enveloped = sources::detect_head(&head, error.is_some()).is_some();
    if enveloped {
        let (r, gzip) = open(input)?;
        let counted: Box<dyn Read + Send> = Box::new(Counted { inner: r, count });
        let (reader, head) = prepare(counted);
        return Ok((Reader::Live(reader), gzip, head));
    }
    // A plain stream: its head is probed where it lies (what
    // [`prepare_after`] would find reading it again: no envelope).
    let mut bare = false;
    let wrap_width = sources::terminal::probe_head(
        &head,
        error.is_some(),
        |h, ends| bare = crate::layout::bare::head_is_bare_at(h, ends),
        earlier,
    );
    let probed = Head {
        wrap_width,
        bare,
        source: None,
    };
    if probed.wrap_width.is_some() {
        let (r, gzip) = open(input)?;
        let counted: Box<dyn Read + Send> = Box::new(Counted { inner: r, count });
        let (reader, head) = prepare_after(counted, earlier);
        return Ok((Reader::Live(reader), gzip, head));
    }
    let (reader, gzip) = open_segment(input, count)?;
    Ok((reader, gzip, probed))
}

/// The head of an input as [`open`] would read it (gzip decoded), and
/// the error that ended it early if one did. A file's head is read
/// straight into the head's buffer, not through [`decoded`]'s buffer
/// (a copy of up to 64 KiB per file), unless it turns out to be gzip.
fn probe_read(input: &Input) -> io::Result<(Vec<u8>, Option<io::Error>)> {
    if let Input::File(p) | Input::Named { path: p, .. } = input {
        let (head, error, _) = head::read_head(File::open(p)?);
        match error {
            // What opening it would have said.
            Some(e) if head.is_empty() => return Err(e),
            _ if head.starts_with(&GZIP_MAGIC) => {}
            _ => return Ok((head, error)),
        }
    }
    let (reader, _) = open(input)?;
    let (head, error, _) = head::read_head(reader);
    Ok((head, error))
}

/// Counts the bytes read from a reader.
struct Counted<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens an input for reading.
pub fn open(input: &Input) -> io::Result<(Box<dyn Read + Send>, bool)> {
    match input {
        Input::Stdin => decoded(io::stdin()),
        Input::File(p) => decoded(File::open(p)?),
        Input::Bytes { data, .. } => decoded(io::Cursor::new(data.clone())),
        Input::Named { path, .. } => decoded(File::open(path)?),
    }
}

/// Opens an input for reading, live where asked: standard input through
/// a reader thread (never blocking the run), and the last segment of a
/// stream followed at its end when `follow` is set.
pub fn open_live(
    input: &Input,
    live: Option<&live::LiveOpen>,
    last_segment: bool,
) -> io::Result<(Box<dyn Read + Send>, bool)> {
    match (input, live) {
        (Input::Stdin, Some(l)) => Ok((Box::new(live::StdinPump::start(l.wake.clone())), false)),
        (Input::File(p), Some(l)) if l.follow && last_segment => {
            let mut head = [0u8; 2];
            let n = File::open(p)?.read(&mut head)?;
            if n == 2 && head == GZIP_MAGIC {
                // A compressed segment is complete: nothing to follow.
                return open(input);
            }
            Ok((Box::new(live::Follow::open_with(p.clone(), l)?), false))
        }
        _ => open(input),
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
    // One order whatever the order of the arguments: the run's output does
    // not depend on it (and `map` over parts of a tree agrees with a run
    // over the whole).
    out.sort_by(canonical_order);
    out.dedup();
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

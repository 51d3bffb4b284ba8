//! Segments read in steps that may let go of their file and buffers
//! between steps, so that any number of streams can be audited within the
//! open-file limit and in memory that does not grow with their number.
//!
//! A [`Segment`] is a buffered reader over a file (or bytes in memory) that
//! can be *released*: its descriptor closed, its buffer freed, and its
//! position kept. The next read reopens the file (checking it is still the
//! same file) and goes on where it stopped. A reader above it that has not
//! consumed some bytes can hand them back ([`Segment::unread`]) and get
//! them again after reopening, so a paused plain-text stream holds no
//! buffer at all. A gzip decoder above a released segment keeps its state
//! (the inflate window) and reads on from the compressed offset where it
//! stopped.
//!
//! Two budgets say what a paused stream may keep: descriptors
//! ([`FdPermit`]: the soft open-file limit, raised to the hard limit once,
//! less a reserve for everything else the process opens and one descriptor
//! per thread for the streams being read right now) and buffer memory
//! ([`MemPermit`]). A stream without a permit releases what it holds when
//! it pauses; which streams get permits depends on scheduling, but only
//! the cost of reading does, never the bytes read.

use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Descriptors left to everything but paused streams: standard streams,
/// output and baseline files, directory walks, the time-stamp peeks of
/// rotated segments.
const FD_RESERVE: usize = 24;
/// Descriptors paused streams may keep at least (a limit that leaves
/// fewer than this plus the reserve is taken as it is).
const FD_MIN: usize = 8;
/// Paused streams keep descriptors up to this many even where the limit
/// is higher (a descriptor costs the kernel memory too).
const FD_MAX: usize = 1 << 16;
/// Buffer memory all paused streams together may keep. Above it a paused
/// stream frees its buffers and reads the bytes it had not consumed again
/// when it resumes. 4 MiB: 32 streams' 128 KiB buffers; with 200 streams
/// (one group of 200 workers) 8 MiB was an eighth of the peak
/// (docs/performance.md, "Round 8").
pub const PARKED_BYTES: usize = 4 << 20;

/// Read size of a segment's own buffer for compressed input: at gzip's
/// usual ratios a chunk of it inflates to more than the scanner's buffer
/// holds, so that one call of the decoder fills that buffer (each call
/// also copies up to 32 KiB into the inflate window).
const SOURCE_BUF: usize = 128 * 1024;
/// Read size of the head of a file, for the gzip check: plain text is then
/// read straight into the scanner's buffer.
const HEAD_BUF: usize = 4 * 1024;

/// A budget of things paused streams may keep.
struct Budget {
    used: AtomicUsize,
    limit: usize,
}

impl Budget {
    fn try_take(&self, n: usize, limit: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                (u + n <= limit).then_some(u + n)
            })
            .is_ok()
    }

    fn give(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::AcqRel);
    }
}

/// The soft open-file limit, raised to the hard limit where the OS allows
/// (once per process); `None` where there is no such limit.
fn open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        rlimit::increase_nofile_limit(u64::MAX).ok()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

fn fd_budget() -> &'static Budget {
    static B: OnceLock<Budget> = OnceLock::new();
    B.get_or_init(|| {
        let limit = match open_file_limit() {
            Some(n) => (n.min(FD_MAX as u64) as usize)
                .saturating_sub(FD_RESERVE)
                .max(FD_MIN),
            None => FD_MAX,
        };
        Budget {
            used: AtomicUsize::new(0),
            limit,
        }
    })
}

fn mem_budget() -> &'static Budget {
    static B: Budget = Budget {
        used: AtomicUsize::new(0),
        limit: PARKED_BYTES,
    };
    &B
}

/// How many descriptors paused streams may keep in this process now: the
/// budget less one for each thread that may be reading a stream whose
/// descriptor is not kept (the pool's, or this thread outside a pool).
pub fn fd_limit() -> usize {
    fd_budget().limit.saturating_sub(reading_threads()).max(1)
}

/// The threads that may read streams at once: the pool's when this thread
/// is one of them, else this one. (Not `rayon::current_num_threads()`
/// outside a pool: that starts rayon's global pool, a thread per core, in
/// a `-j 1` run that builds no pool.)
fn reading_threads() -> usize {
    if rayon::current_thread_index().is_some() {
        rayon::current_num_threads()
    } else {
        1
    }
}

/// Leave to keep one descriptor open while the stream is paused.
#[derive(Debug)]
pub struct FdPermit(());

impl FdPermit {
    pub fn try_new() -> Option<FdPermit> {
        // The thread reserve is applied here, not stored: the pool size
        // can differ between runs of one process.
        fd_budget().try_take(1, fd_limit()).then(|| FdPermit(()))
    }
}

impl Drop for FdPermit {
    fn drop(&mut self) {
        fd_budget().give(1);
    }
}

/// Leave to keep this many bytes of buffers while the stream is paused.
#[derive(Debug)]
pub struct MemPermit(usize);

impl MemPermit {
    pub fn try_new(bytes: usize) -> Option<MemPermit> {
        mem_budget()
            .try_take(bytes, PARKED_BYTES)
            .then(|| MemPermit(bytes))
    }

    /// Holds `bytes` instead; false (and the permit unchanged) when the
    /// budget has no room for the growth.
    pub fn resize(&mut self, bytes: usize) -> bool {
        if bytes > self.0 {
            if !mem_budget().try_take(bytes - self.0, PARKED_BYTES) {
                return false;
            }
        } else {
            mem_budget().give(self.0 - bytes);
        }
        self.0 = bytes;
        true
    }
}

impl Drop for MemPermit {
    fn drop(&mut self) {
        mem_budget().give(self.0);
    }
}

/// What a segment reads.
enum Origin {
    File {
        path: PathBuf,
        file: Option<File>,
        /// Device and inode of the file first opened (unix), to tell it
        /// from a file put in its place while it was closed.
        id: Option<(u64, u64)>,
        /// The open file's position differs from where reading goes on.
        needs_seek: bool,
    },
    Bytes(Arc<[u8]>),
}

/// A buffered reader over a file or bytes that can be released between
/// reads and goes on where it stopped.
pub struct Segment {
    origin: Origin,
    buf: Vec<u8>,
    /// Bytes not yet handed out are `buf[pos..filled]`.
    pos: usize,
    filled: usize,
    /// Offset in the input of the next byte handed out.
    offset: u64,
    /// Highest offset read from the input so far (bytes read again after
    /// a release are not counted twice).
    high: u64,
    /// Reads bypass the buffer once it is drained (plain text).
    direct: bool,
    /// Read size of the buffer.
    buf_size: usize,
    /// Input bytes read, for the progress bar.
    count: Arc<AtomicU64>,
}

#[cfg(unix)]
fn file_id(f: &File) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    f.metadata().ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &File) -> Option<(u64, u64)> {
    None
}

impl Segment {
    /// Opens a file (now, so that an unreadable file is reported at once).
    pub fn file(path: PathBuf, count: Arc<AtomicU64>) -> io::Result<Segment> {
        let file = File::open(&path)?;
        let id = file_id(&file);
        Ok(Segment {
            origin: Origin::File {
                path,
                file: Some(file),
                id,
                needs_seek: false,
            },
            buf: Vec::new(),
            pos: 0,
            filled: 0,
            offset: 0,
            high: 0,
            direct: false,
            buf_size: HEAD_BUF,
            count,
        })
    }

    /// Bytes in memory.
    pub fn bytes(data: Arc<[u8]>, count: Arc<AtomicU64>) -> Segment {
        Segment {
            origin: Origin::Bytes(data),
            buf: Vec::new(),
            pos: 0,
            filled: 0,
            offset: 0,
            high: 0,
            direct: false,
            buf_size: HEAD_BUF,
            count,
        }
    }

    /// Does the input start with gzip's magic number?
    pub fn is_gzip(&mut self) -> io::Result<bool> {
        let head = loop {
            match self.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        Ok(head.len() >= 2 && head[..2] == super::GZIP_MAGIC)
    }

    /// Plain text: once the head is handed out, reads go straight from the
    /// file into the caller's buffer.
    pub fn set_direct(&mut self) {
        self.direct = true;
    }

    /// Compressed input: read in bigger chunks for the decoder.
    pub fn set_compressed(&mut self) {
        self.buf_size = SOURCE_BUF;
    }

    /// Whether the file is open now.
    pub fn is_open(&self) -> bool {
        match &self.origin {
            Origin::File { file, .. } => file.is_some(),
            Origin::Bytes(_) => false,
        }
    }

    /// Bytes of buffer held now.
    pub fn buffer_bytes(&self) -> usize {
        self.buf.capacity()
    }

    /// Gives back the last `n` bytes handed out: they are read again.
    pub fn unread(&mut self, n: usize) {
        let n = (n as u64).min(self.offset);
        if n == 0 {
            return;
        }
        let back = n as usize;
        if back <= self.pos {
            self.pos -= back;
        } else {
            self.pos = 0;
            self.filled = 0;
            if let Origin::File { needs_seek, .. } = &mut self.origin {
                *needs_seek = true;
            }
        }
        self.offset -= n;
    }

    /// Lets go of the buffer (unless `keep_buffer`) and the descriptor
    /// (unless `keep_fd`); the next read reopens the file where reading
    /// stopped.
    pub fn release(&mut self, keep_buffer: bool, keep_fd: bool) {
        let Origin::File {
            file, needs_seek, ..
        } = &mut self.origin
        else {
            return;
        };
        if !keep_buffer && self.filled > 0 {
            self.pos = 0;
            self.filled = 0;
            *needs_seek = true;
        }
        if !keep_buffer {
            self.buf = Vec::new();
        }
        if !keep_fd && file.take().is_some() {
            *needs_seek = true;
        }
    }

    /// The open file, reopened and positioned where reading goes on.
    fn open_file(&mut self) -> io::Result<&mut File> {
        let Origin::File {
            path,
            file,
            id,
            needs_seek,
        } = &mut self.origin
        else {
            unreachable!("only file segments have a file")
        };
        // The input offset the next read from the file is for.
        let at = self.offset + (self.filled - self.pos) as u64;
        if file.is_none() {
            let f = File::open(&*path)?;
            let same = match (*id, file_id(&f)) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            let long_enough = f.metadata().map(|m| m.len() >= at).unwrap_or(true);
            if !same || !long_enough {
                return Err(io::Error::other(
                    "the file was replaced or truncated while it was closed between reads \
                     (to stay within the open-file limit)",
                ));
            }
            *file = Some(f);
            *needs_seek = true;
        }
        let f = file.as_mut().expect("opened above");
        if *needs_seek {
            f.seek(SeekFrom::Start(at))?;
            *needs_seek = false;
        }
        Ok(f)
    }

    fn counted(&mut self, end: u64) {
        if end > self.high {
            self.count.fetch_add(end - self.high, Ordering::Relaxed);
            self.high = end;
        }
    }
}

impl Read for Segment {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if let Origin::Bytes(data) = &self.origin {
            let start = (self.offset as usize).min(data.len());
            let n = out.len().min(data.len() - start);
            out[..n].copy_from_slice(&data[start..start + n]);
            self.offset += n as u64;
            let end = self.offset;
            self.counted(end);
            return Ok(n);
        }
        if self.pos == self.filled && (self.direct || out.len() >= self.buf_size) {
            if self.direct && self.buf.capacity() > 0 {
                self.buf = Vec::new();
                self.pos = 0;
                self.filled = 0;
            }
            let n = self.open_file()?.read(out)?;
            self.offset += n as u64;
            let end = self.offset;
            self.counted(end);
            return Ok(n);
        }
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Segment {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let is_file = matches!(self.origin, Origin::File { .. });
        if is_file && self.pos == self.filled {
            let mut buf = std::mem::take(&mut self.buf);
            if buf.len() != self.buf_size {
                buf.resize(self.buf_size, 0);
                buf.shrink_to_fit();
            }
            self.pos = 0;
            self.filled = 0;
            let read = self.open_file().and_then(|f| f.read(&mut buf));
            self.buf = buf;
            let n = read?;
            self.filled = n;
            let end = self.offset + n as u64;
            self.counted(end);
        }
        match &self.origin {
            Origin::Bytes(data) => {
                let start = (self.offset as usize).min(data.len());
                Ok(&data[start..])
            }
            Origin::File { .. } => Ok(&self.buf[self.pos..self.filled]),
        }
    }

    fn consume(&mut self, n: usize) {
        if let Origin::Bytes(data) = &self.origin {
            let end = (self.offset + n as u64).min(data.len() as u64);
            self.offset = end;
            self.counted(end);
            return;
        }
        let n = n.min(self.filled - self.pos);
        self.pos += n;
        self.offset += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, data: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("herder-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, data).unwrap();
        p
    }

    fn data() -> Vec<u8> {
        (0..200_000u32).map(|i| (i % 251) as u8).collect()
    }

    /// Reads everything, releasing (and handing back some bytes) between
    /// reads in every way.
    fn read_with_releases(mut s: Segment, step: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = vec![0; step];
        let mut round = 0usize;
        loop {
            let n = s.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
            round += 1;
            let back = (round * 37) % (n + 1);
            if round.is_multiple_of(2) {
                s.unread(back);
                out.truncate(out.len() - back);
            }
            s.release(round.is_multiple_of(3), round.is_multiple_of(5));
        }
        out
    }

    #[test]
    fn released_file_reads_on_where_it_stopped() {
        let d = data();
        let p = temp("plain", &d);
        for step in [100, 4096, SOURCE_BUF + 1, 70_000] {
            for direct in [false, true] {
                let count = Arc::new(AtomicU64::new(0));
                let mut s = Segment::file(p.clone(), count.clone()).unwrap();
                if direct {
                    s.set_direct();
                }
                assert_eq!(read_with_releases(s, step), d, "step {step}");
                assert_eq!(count.load(Ordering::Relaxed), d.len() as u64);
            }
        }
    }

    #[test]
    fn bytes_segment_unreads() {
        let d = data();
        let count = Arc::new(AtomicU64::new(0));
        let s = Segment::bytes(Arc::from(d.clone()), count.clone());
        assert_eq!(read_with_releases(s, 999), d);
        assert_eq!(count.load(Ordering::Relaxed), d.len() as u64);
    }

    #[test]
    fn gzip_decoder_survives_releases() {
        use std::io::Write;
        let d = data();
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&d).unwrap();
        let gz = enc.finish().unwrap();
        let p = temp("gz", &gz);
        let mut s = Segment::file(p, Arc::new(AtomicU64::new(0))).unwrap();
        assert!(s.is_gzip().unwrap());
        let mut dec = crate::input::gzip::MultiGz::new(s);
        let mut out = Vec::new();
        let mut buf = vec![0; 3000];
        loop {
            let n = dec.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
            dec.get_mut().release(false, false);
        }
        assert_eq!(out, d);
    }

    #[test]
    fn a_replaced_file_is_an_error_not_other_bytes() {
        let p = temp("replaced", &data());
        let mut s = Segment::file(p.clone(), Arc::new(AtomicU64::new(0))).unwrap();
        let mut buf = vec![0; 1000];
        s.read_exact(&mut buf).unwrap();
        s.release(false, false);
        std::fs::remove_file(&p).unwrap();
        std::fs::write(&p, b"short").unwrap();
        assert!(s.read(&mut buf).is_err());
    }

    #[test]
    fn permits_are_bounded_and_returned() {
        let limit = fd_limit();
        let held: Vec<FdPermit> = std::iter::from_fn(FdPermit::try_new)
            .take(limit + 10)
            .collect();
        assert!(held.len() <= limit);
        drop(held);
        assert!(FdPermit::try_new().is_some());
        let mut m = MemPermit::try_new(1000).unwrap();
        assert!(!m.resize(PARKED_BYTES + 1));
        assert!(m.resize(10));
    }
}

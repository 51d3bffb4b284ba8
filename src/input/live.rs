//! Live input: standard input read by a thread of its own, and files
//! followed like `tail -F` (read at their end as they grow; a file replaced
//! or truncated by rotation is read again from its start). Both readers
//! answer [`io::ErrorKind::WouldBlock`] when they have nothing for now, so
//! the scan can pause without blocking the run; a [`Wake`] tells the run
//! when stdin has more.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};

/// Something to call when live data arrives.
pub trait Notify: Send + Sync {
    fn notify(&self);
}

/// What happened to a followed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowEvent {
    /// Replaced at its path (renamed away and created again): read anew.
    Rotated,
    /// Truncated (and perhaps written again): read anew from its start.
    Truncated,
    /// A kubelet container log handed over to the container's next log
    /// (`0.log` → `1.log`: the container restarted).
    NextContainerLog,
    /// Gone from its path (its pod directory deleted): the stream ends.
    Gone,
}

/// Told what happens to followed files (`herder-audit watch`).
pub trait FollowEvents: Send + Sync + std::fmt::Debug {
    fn follow_event(&self, path: &std::path::Path, event: FollowEvent);
}

/// How live inputs are opened.
#[derive(Clone)]
pub struct LiveOpen {
    /// Follow files at their end (`--follow`).
    pub follow: bool,
    pub wake: Arc<dyn Notify>,
    /// End a followed file's stream once its path has been gone this long
    /// (and at once when its directory is gone too); `None`: follow it
    /// forever, like `tail -F`.
    pub gone_after: Option<std::time::Duration>,
    /// Told of rotations, truncations, and files gone.
    pub events: Option<Arc<dyn FollowEvents>>,
}

impl std::fmt::Debug for LiveOpen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveOpen")
            .field("follow", &self.follow)
            .field("gone_after", &self.gone_after)
            .finish()
    }
}

/// Chunks of standard input as a thread reads them (decompressed when
/// they are gzip: the thread looks at the first bytes, like
/// [`super::decoded`] does for files).
pub struct StdinPump {
    rx: Receiver<io::Result<Vec<u8>>>,
    /// The chunk being handed out, and how much of it is handed out.
    chunk: Vec<u8>,
    at: usize,
    done: bool,
}

/// How much one read of stdin takes at most.
const PUMP_CHUNK: usize = 64 * 1024;
/// Chunks read ahead at most (bounds memory when the audit lags: 1 MiB;
/// the writer then waits on the pipe).
const PUMP_DEPTH: usize = 16;

/// Reads until `buf` holds at least `want` bytes or the input ends;
/// returns how many it holds.
fn read_at_least<R: Read>(r: &mut R, buf: &mut [u8], want: usize) -> io::Result<usize> {
    let mut n = 0;
    while n < want {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A read error of a gzip stream in the words batch reading uses.
fn gzip_error(e: io::Error) -> io::Error {
    let what = match e.kind() {
        io::ErrorKind::UnexpectedEof => "gzip stream is truncated".to_string(),
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData => {
            format!("gzip stream is corrupt ({})", super::describe(&e))
        }
        _ => return e,
    };
    io::Error::new(e.kind(), what)
}

/// Hands every chunk `r` yields to `tx` (waking the run after each),
/// until the input ends, fails or the run is gone.
fn pump<R: Read>(mut r: R, tx: &SyncSender<io::Result<Vec<u8>>>, wake: &dyn Notify, gzip: bool) {
    loop {
        let mut buf = vec![0u8; PUMP_CHUNK];
        match r.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                buf.truncate(n);
                if tx.send(Ok(buf)).is_err() {
                    return;
                }
                wake.notify();
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                let e = if gzip { gzip_error(e) } else { e };
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
}

impl StdinPump {
    /// Starts the reader thread; `wake` is called after every chunk and at
    /// the end.
    pub fn start(wake: Arc<dyn Notify>) -> StdinPump {
        StdinPump::from_reader(io::stdin(), wake)
    }

    /// The same over any reader (tests).
    pub fn from_reader<R: Read + Send + 'static>(mut r: R, wake: Arc<dyn Notify>) -> StdinPump {
        let (tx, rx) = sync_channel(PUMP_DEPTH);
        let failed = tx.clone();
        let spawned = std::thread::Builder::new()
            .name("stdin".into())
            .spawn(move || {
                let mut head = vec![0u8; PUMP_CHUNK];
                match read_at_least(&mut r, &mut head, super::GZIP_MAGIC.len()) {
                    Ok(n) => {
                        head.truncate(n);
                        if head.starts_with(&super::GZIP_MAGIC) {
                            let gz = super::gzip::MultiGz::new(io::BufReader::with_capacity(
                                PUMP_CHUNK,
                                io::Cursor::new(head).chain(r),
                            ));
                            pump(gz, &tx, &*wake, true);
                        } else if head.is_empty() || tx.send(Ok(head)).is_ok() {
                            wake.notify();
                            pump(r, &tx, &*wake, false);
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
                drop(tx);
                wake.notify();
            });
        if let Err(e) = spawned {
            let _ = failed.send(Err(e));
        }
        drop(failed);
        StdinPump {
            rx,
            chunk: Vec::new(),
            at: 0,
            done: false,
        }
    }
}

impl Read for StdinPump {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.at < self.chunk.len() {
                let n = buf.len().min(self.chunk.len() - self.at);
                buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            if self.done {
                return Ok(0);
            }
            match self.rx.try_recv() {
                Ok(Ok(c)) => {
                    self.chunk = c;
                    self.at = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(TryRecvError::Empty) => return Err(io::ErrorKind::WouldBlock.into()),
                Err(TryRecvError::Disconnected) => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
    }
}

/// The identity of a file on disk (device, inode), where the OS has one.
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

/// Bytes at the start of a followed file kept to tell a truncated and
/// rewritten file from one that only grew.
const HEAD: usize = 256;

/// What to do at the end of what a followed file holds.
enum Turn {
    /// Read on (another file, or the same from its start).
    Again,
    /// Nothing more for now.
    Wait,
    /// The file is gone for good: the stream ends.
    End,
}

/// A file followed at its end, across rotation (`tail -F`).
pub struct Follow {
    path: PathBuf,
    file: File,
    id: Option<(u64, u64)>,
    pos: u64,
    /// The first bytes read from the file (up to [`HEAD`]).
    head: Vec<u8>,
    /// The last byte handed out.
    last: Option<u8>,
    /// A newline is owed before the next file's first byte (the previous
    /// one ended in the middle of a line).
    owe_newline: bool,
    /// The last read found the end of the file: before reading on, see
    /// whether it was truncated and written again meanwhile.
    at_end: bool,
    /// See [`LiveOpen::gone_after`].
    gone_after: Option<std::time::Duration>,
    /// Since when the path has been missing.
    missing_since: Option<std::time::Instant>,
    events: Option<Arc<dyn FollowEvents>>,
    /// When the container's directory was last looked at for its next log.
    looked_for_next: Option<std::time::Instant>,
}

impl Follow {
    pub fn open(path: PathBuf) -> io::Result<Follow> {
        let file = File::open(&path)?;
        let id = file.metadata().ok().as_ref().and_then(file_id);
        Ok(Follow {
            path,
            file,
            id,
            pos: 0,
            head: Vec::new(),
            last: None,
            owe_newline: false,
            at_end: false,
            gone_after: None,
            missing_since: None,
            events: None,
            looked_for_next: None,
        })
    }

    /// Opens `path` to be followed as `live` says (files gone, events).
    pub fn open_with(path: PathBuf, live: &LiveOpen) -> io::Result<Follow> {
        let mut f = Follow::open(path)?;
        f.gone_after = live.gone_after;
        f.events = live.events.clone();
        Ok(f)
    }

    fn tell(&self, event: FollowEvent) {
        if let Some(e) = &self.events {
            e.follow_event(&self.path, event);
        }
    }

    /// A kubelet container log whose container has restarted: the
    /// container's next log (`<N+k>.log`, the lowest there is), if any.
    fn next_container_log(&mut self) -> Option<PathBuf> {
        let (dir, _) = super::rotation::kubelet_container(&self.path)?;
        // Once a second at most: a container restarts seldom.
        if self
            .looked_for_next
            .is_some_and(|t| t.elapsed() < std::time::Duration::from_secs(1))
        {
            return None;
        }
        self.looked_for_next = Some(std::time::Instant::now());
        let n: u64 = self
            .path
            .file_name()?
            .to_str()?
            .strip_suffix(".log")?
            .parse()
            .ok()?;
        std::fs::read_dir(&dir)
            .ok()?
            .filter_map(|e| {
                let name = e.ok()?.file_name();
                let m: u64 = name.to_str()?.strip_suffix(".log")?.parse().ok()?;
                (m > n).then_some(m)
            })
            .min()
            .map(|m| dir.join(format!("{m}.log")))
    }

    /// The path is missing: has it been gone long enough (or its
    /// directory with it) for the stream to end?
    fn gone(&mut self) -> bool {
        let Some(after) = self.gone_after else {
            return false;
        };
        let since = *self
            .missing_since
            .get_or_insert_with(std::time::Instant::now);
        let dir_gone = self.path.parent().is_some_and(|d| !d.exists());
        dir_gone || since.elapsed() >= after
    }

    /// Has the file at the path been truncated and written again since its
    /// head was read (its length alone may not tell)?
    fn rewritten(&mut self) -> bool {
        if self.head.is_empty() {
            return false;
        }
        let mut now = vec![0u8; self.head.len()];
        let read = self
            .file
            .seek(SeekFrom::Start(0))
            .and_then(|_| read_at_least(&mut self.file, &mut now, self.head.len()));
        // Back to where reading stopped; if that fails, read it all again.
        if self.file.seek(SeekFrom::Start(self.pos)).is_err() {
            return true;
        }
        // When it cannot be read, only a shorter length tells (below).
        read.is_ok_and(|n| now[..n] != self.head[..])
    }

    /// Reads the file now at the path from its start.
    fn restart(&mut self) {
        self.pos = 0;
        self.head.clear();
        self.owe_newline = self.last.is_some_and(|b| b != b'\n');
    }

    /// Has the open file been truncated (and perhaps written again) since
    /// it was read?
    fn truncated(&mut self) -> bool {
        let shorter = self.file.metadata().is_ok_and(|m| m.len() < self.pos);
        shorter || self.rewritten()
    }

    /// At the end of what the open file holds: has the file at the path
    /// been replaced (rotation) or truncated? Then read on from the start
    /// of the file now there.
    fn rotated(&mut self) -> io::Result<Turn> {
        if let Some(next) = self.next_container_log() {
            // Read to its end already: the restarted container's log is
            // the continuation.
            self.file = File::open(&next)?;
            self.path = next;
            self.id = self.file.metadata().ok().as_ref().and_then(file_id);
            self.restart();
            self.tell(FollowEvent::NextContainerLog);
            return Ok(Turn::Again);
        }
        let Ok(now) = std::fs::metadata(&self.path) else {
            // Between a rename and the new file's creation, or gone.
            if self.gone() {
                self.tell(FollowEvent::Gone);
                return Ok(Turn::End);
            }
            return Ok(Turn::Wait);
        };
        self.missing_since = None;
        if file_id(&now) != self.id {
            self.file = File::open(&self.path)?;
            self.id = self.file.metadata().ok().as_ref().and_then(file_id);
            self.restart();
            self.tell(FollowEvent::Rotated);
            return Ok(Turn::Again);
        }
        if self.truncated() {
            self.file.seek(SeekFrom::Start(0))?;
            self.restart();
            self.tell(FollowEvent::Truncated);
            return Ok(Turn::Again);
        }
        Ok(Turn::Wait)
    }
}

impl Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.owe_newline {
                self.owe_newline = false;
                buf[0] = b'\n';
                self.last = Some(b'\n');
                return Ok(1);
            }
            // Truncated and grown past where reading stopped since the last
            // look: what is there now is not a continuation. (A replaced
            // file is switched to only at the end of the old one, below,
            // so that the old one is read to its end.)
            if std::mem::take(&mut self.at_end) && self.truncated() {
                self.file.seek(SeekFrom::Start(0))?;
                self.restart();
                self.tell(FollowEvent::Truncated);
                continue;
            }
            let n = self.file.read(buf)?;
            if n > 0 {
                if (self.pos as usize) < HEAD {
                    let keep = (HEAD - self.pos as usize).min(n);
                    self.head.extend_from_slice(&buf[..keep]);
                }
                self.pos += n as u64;
                self.last = Some(buf[n - 1]);
                return Ok(n);
            }
            match self.rotated()? {
                Turn::Again => {}
                Turn::Wait => {
                    self.at_end = true;
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                // The end of the stream (after an unfinished line, its end).
                Turn::End if self.last.is_some_and(|b| b != b'\n') => {
                    self.last = Some(b'\n');
                    buf[0] = b'\n';
                    return Ok(1);
                }
                Turn::End => return Ok(0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Everything the follower has for now.
    fn drain(f: &mut Follow) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            match f.read(&mut buf) {
                Ok(0) => panic!("a followed file never ends"),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return out,
                Err(e) => panic!("{e}"),
            }
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("herder-audit-live-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn rewrite(p: &PathBuf, data: &[u8]) {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(p)
            .unwrap();
        f.write_all(data).unwrap();
    }

    #[test]
    fn follows_growth_truncation_and_replacement() {
        let d = dir("follow");
        let p = d.join("a.log");
        std::fs::write(&p, b"one\ntwo\n").unwrap();
        let mut f = Follow::open(p.clone()).unwrap();
        assert_eq!(drain(&mut f), b"one\ntwo\n");
        assert_eq!(drain(&mut f), b"");
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"thr")
            .unwrap();
        assert_eq!(drain(&mut f), b"thr");
        // Truncated, shorter: an unfinished line is ended first.
        rewrite(&p, b"x\n");
        assert_eq!(drain(&mut f), b"\nx\n");
        // Truncated and longer at once: the first bytes differ.
        rewrite(&p, b"a much longer first line\nand more\n");
        assert_eq!(drain(&mut f), b"a much longer first line\nand more\n");
        assert_eq!(drain(&mut f), b"");
        // Renamed away and created again.
        std::fs::rename(&p, d.join("a.log.1")).unwrap();
        assert_eq!(drain(&mut f), b"");
        std::fs::write(&p, b"new\n").unwrap();
        assert_eq!(drain(&mut f), b"new\n");
        assert_eq!(drain(&mut f), b"");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[derive(Default)]
    struct Count(std::sync::atomic::AtomicUsize);
    impl Notify for Count {
        fn notify(&self) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Reads a pump to its end (spinning over `WouldBlock`).
    fn pumped(mut p: StdinPump) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = [0u8; 1000];
        loop {
            match p.read(&mut buf) {
                Ok(0) => return Ok(out),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => return Err(e),
            }
        }
    }

    #[test]
    fn the_pump_hands_on_plain_and_gzip_input() {
        let text: Vec<u8> = (0..5000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let wake = Arc::new(Count::default());
        let p = StdinPump::from_reader(io::Cursor::new(text.clone()), wake.clone());
        assert_eq!(pumped(p).unwrap(), text);
        assert!(wake.0.load(std::sync::atomic::Ordering::Relaxed) >= 1);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        let p = StdinPump::from_reader(io::Cursor::new(gz.clone()), wake.clone());
        assert_eq!(pumped(p).unwrap(), text);
        // Cut short: the lines before the cut, then the error.
        let p = StdinPump::from_reader(io::Cursor::new(gz[..gz.len() / 2].to_vec()), wake);
        let e = pumped(p).unwrap_err();
        assert_eq!(e.to_string(), "gzip stream is truncated");
        // Empty.
        let p = StdinPump::from_reader(io::empty(), Arc::new(Count::default()));
        assert_eq!(pumped(p).unwrap(), b"");
    }
}

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
use std::sync::mpsc::{Receiver, TryRecvError, sync_channel};

/// Something to call when live data arrives.
pub trait Notify: Send + Sync {
    fn notify(&self);
}

/// How live inputs are opened.
#[derive(Clone)]
pub struct LiveOpen {
    /// Follow files at their end (`--follow`).
    pub follow: bool,
    pub wake: Arc<dyn Notify>,
}

impl std::fmt::Debug for LiveOpen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveOpen")
            .field("follow", &self.follow)
            .finish()
    }
}

/// Chunks of standard input as a thread reads them.
pub struct StdinPump {
    rx: Receiver<io::Result<Vec<u8>>>,
    /// The chunk being handed out, and how much of it is handed out.
    chunk: Vec<u8>,
    at: usize,
    done: bool,
}

/// How much one read of stdin takes at most.
const PUMP_CHUNK: usize = 64 * 1024;
/// Chunks read ahead at most (bounds memory when the audit lags).
const PUMP_DEPTH: usize = 64;

impl StdinPump {
    /// Starts the reader thread; `wake` is called after every chunk and at
    /// the end.
    pub fn start(wake: Arc<dyn Notify>) -> StdinPump {
        StdinPump::from_reader(io::stdin(), wake)
    }

    /// The same over any reader (tests).
    pub fn from_reader<R: Read + Send + 'static>(mut r: R, wake: Arc<dyn Notify>) -> StdinPump {
        let (tx, rx) = sync_channel(PUMP_DEPTH);
        std::thread::Builder::new()
            .name("stdin".into())
            .spawn(move || {
                loop {
                    let mut buf = vec![0u8; PUMP_CHUNK];
                    match r.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            buf.truncate(n);
                            if tx.send(Ok(buf)).is_err() {
                                break;
                            }
                            wake.notify();
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            break;
                        }
                    }
                }
                drop(tx);
                wake.notify();
            })
            .ok();
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

/// A file followed at its end, across rotation (`tail -F`).
pub struct Follow {
    path: PathBuf,
    file: File,
    id: Option<(u64, u64)>,
    pos: u64,
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
        })
    }

    /// At the end of what the open file holds: has the file at the path
    /// been replaced (rotation) or truncated? Then read on from the start
    /// of the file now there.
    fn rotated(&mut self) -> io::Result<bool> {
        let Ok(now) = std::fs::metadata(&self.path) else {
            // Between a rename and the new file's creation.
            return Ok(false);
        };
        if file_id(&now) != self.id {
            self.file = File::open(&self.path)?;
            self.id = self.file.metadata().ok().as_ref().and_then(file_id);
            self.pos = 0;
            return Ok(true);
        }
        if now.len() < self.pos {
            self.file.seek(SeekFrom::Start(0))?;
            self.pos = 0;
            return Ok(true);
        }
        Ok(false)
    }
}

impl Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            if n > 0 {
                self.pos += n as u64;
                return Ok(n);
            }
            if !self.rotated()? {
                return Err(io::ErrorKind::WouldBlock.into());
            }
        }
    }
}

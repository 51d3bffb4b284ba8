//! Logs that appear in followed directories, told at once (Linux inotify):
//! a run that follows directories checks for them after each read and
//! before it releases what it read, so a worker's log created while the
//! run goes on joins before the others' later lines are final (a periodic
//! look alone would let them through for up to its period, and the
//! cross-worker checks would meet the new worker's earlier lines late).
//!
//! The check reads the kernel's queue itself (no thread between): an
//! event of a file created before the check is in it. Every directory
//! under the roots is watched (inotify is not recursive); a directory
//! that appears is watched before it is walked, so that a log created in
//! it is either found by the walk or told by its own event. Without
//! inotify (another system, or no watch left), the periodic look is all
//! there is; that is said once on standard error.

use std::path::{Path, PathBuf};

/// Watches the directories under the roots for entries created or moved in.
pub struct Appear {
    #[cfg(target_os = "linux")]
    inotify: Option<inotify::Inotify>,
    watched: std::collections::HashSet<PathBuf>,
    buf: Vec<u8>,
    said: bool,
}

impl std::fmt::Debug for Appear {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Appear({} directories)", self.watched.len())
    }
}

impl Appear {
    pub fn new() -> Appear {
        Appear {
            #[cfg(target_os = "linux")]
            inotify: inotify::Inotify::init().ok(),
            watched: Default::default(),
            buf: vec![0; 4096],
            said: false,
        }
    }

    /// Watches every directory under `roots` not watched yet.
    pub fn watch(&mut self, roots: &[PathBuf]) {
        for r in roots {
            self.watch_tree(r);
        }
    }

    fn watch_tree(&mut self, dir: &Path) {
        if !dir.is_dir() {
            return;
        }
        if !self.watched.contains(dir) {
            if !self.add(dir) {
                return;
            }
            self.watched.insert(dir.to_path_buf());
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let subdirs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        for d in subdirs {
            self.watch_tree(&d);
        }
    }

    #[cfg(target_os = "linux")]
    fn add(&mut self, dir: &Path) -> bool {
        use inotify::WatchMask;
        let Some(ino) = &mut self.inotify else {
            return false;
        };
        let mask = WatchMask::CREATE | WatchMask::MOVED_TO | WatchMask::ONLYDIR;
        match ino.watches().add(dir, mask) {
            Ok(_) => true,
            Err(e) => {
                if !self.said {
                    self.said = true;
                    eprintln!(
                        "herder-audit: cannot watch {} for new logs ({}): looking for them every second",
                        dir.display(),
                        crate::input::describe(&e)
                    );
                }
                false
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn add(&mut self, _: &Path) -> bool {
        let _ = self.said;
        false
    }

    /// Was anything created in a watched directory since the last call
    /// (or did the kernel's queue overflow)? Forgets directories gone.
    pub fn appeared(&mut self) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(ino) = &mut self.inotify {
            let (mut any, mut gone) = (false, false);
            // Until the queue is empty (`WouldBlock`), or it fails.
            while let Ok(events) = ino.read_events(&mut self.buf) {
                let mut n = 0;
                for e in events {
                    n += 1;
                    if e.mask.contains(inotify::EventMask::IGNORED) {
                        // A watched directory was deleted.
                        gone = true;
                    } else {
                        any = true;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            if any || gone {
                self.watched.retain(|d| d.is_dir());
            }
            return any;
        }
        false
    }
}

impl Default for Appear {
    fn default() -> Appear {
        Appear::new()
    }
}

//! What the watcher keeps while it runs, behind one lock shared by the
//! audit's thread and the HTTP server's: the metrics, the book of emitted
//! findings and read positions, and the output. [`Watcher`] is the audit's
//! sink (each new finding written as a JSON line) and its observer (facts,
//! streams, input problems), and says on standard error what happened to
//! the inputs.

use super::metrics::Metrics;
use super::state::{Book, Position, key_of};
use crate::audit::{Item, Names, Observe, Sink, StreamStat};
use crate::finding::Finding;
use crate::input::live::{FollowEvent, FollowEvents};
use crate::stream::StreamEnd;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A step that reads this many lines from one stream is said on stderr.
const BURST_LINES: u64 = 100_000;

/// Where the findings go.
pub enum Output {
    Stdout(io::Stdout),
    /// Appended to (the journal of emitted findings across restarts).
    File {
        path: PathBuf,
        file: std::fs::File,
        len: u64,
    },
}

impl Output {
    pub fn file(path: &Path) -> io::Result<Output> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                io::Error::other(format!(
                    "cannot open output file {}: {}",
                    path.display(),
                    crate::input::describe(&e)
                ))
            })?;
        let len = file.metadata()?.len();
        Ok(Output::File {
            path: path.to_path_buf(),
            file,
            len,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(s) => {
                let mut s = s.lock();
                s.write_all(bytes)?;
                s.flush()
            }
            Output::File { file, len, .. } => {
                file.write_all(bytes)?;
                *len += bytes.len() as u64;
                Ok(())
            }
        }
    }

    /// The output file and its length, for the state file.
    fn journal(&self) -> Option<(&Path, u64)> {
        match self {
            Output::File { path, len, .. } => Some((path, *len)),
            _ => None,
        }
    }
}

/// Everything behind the lock.
pub struct Core {
    pub metrics: Metrics,
    pub book: Book,
    pub output: Output,
    /// Findings of the current batch, as JSON lines.
    pending: Vec<u8>,
    /// Emitted in the current batch: (identity, trigger time).
    pending_keys: Vec<(u64, Option<i64>)>,
    last_save: Instant,
    /// How often the state is saved at most.
    save_every: Duration,
    /// The state file could not be written: said once until it can.
    save_failing: bool,
    /// Findings emitted and found again (not emitted) in this run.
    pub emitted: u64,
    pub suppressed: u64,
    /// The audit's thread has ended (the run is over or failed).
    pub finished: bool,
    /// Only logs whose path holds one of these are read (none: all).
    pub include: Vec<String>,
    /// Set when the watcher is asked to end (SIGTERM): streams then end
    /// without being gone.
    pub stopping: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// The interruptions counted in the metrics.
    pub interruptions: super::isolation::Counting,
}

impl Core {
    pub fn new(metrics: Metrics, book: Book, output: Output, save_every: Duration) -> Core {
        Core {
            metrics,
            book,
            output,
            pending: Vec::new(),
            pending_keys: Vec::new(),
            last_save: Instant::now(),
            save_every,
            save_failing: false,
            emitted: 0,
            suppressed: 0,
            finished: false,
            include: Vec::new(),
            stopping: None,
            interruptions: Default::default(),
        }
    }

    /// Saves the state if it changed and `force` or the interval passed.
    pub fn save(&mut self, force: bool) {
        if !self.book.is_dirty() || (!force && self.last_save.elapsed() < self.save_every) {
            return;
        }
        self.last_save = Instant::now();
        let journal = self.output.journal().map(|(p, n)| (p.to_path_buf(), n));
        match self
            .book
            .save(journal.as_ref().map(|(p, n)| (p.as_path(), *n)))
        {
            Ok(()) => {
                self.metrics.state_write(true);
                if std::mem::take(&mut self.save_failing) {
                    eprintln!("herder-audit watch: the state file is written again");
                }
            }
            Err(e) => {
                self.metrics.state_write(false);
                if !self.save_failing {
                    eprintln!(
                        "herder-audit watch: {e}; a restart may repeat findings until it can be written"
                    );
                    self.save_failing = true;
                }
            }
        }
    }
}

/// The audit's sink and observer, over the shared [`Core`].
#[derive(Clone)]
pub struct Watcher {
    pub core: Arc<Mutex<Core>>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watcher")
    }
}

impl Watcher {
    pub fn new(core: Core) -> Watcher {
        Watcher {
            core: Arc::new(Mutex::new(core)),
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Sink for Watcher {
    fn finding(&mut self, names: &dyn Names, f: Finding) -> io::Result<()> {
        let k = key_of(&f);
        let ts = f.trigger.ts.map(|t| t.0);
        let mut core = self.lock();
        if core.book.emitted(k, ts) || core.pending_keys.iter().any(|(p, _)| *p == k) {
            core.metrics.suppressed();
            core.suppressed += 1;
            return Ok(());
        }
        let mut line = std::mem::take(&mut core.pending);
        crate::report::json::push_jsonl_finding(names, &f, &mut line);
        core.pending = line;
        core.pending_keys.push((k, ts));
        core.metrics.finding(&f);
        core.emitted += 1;
        Ok(())
    }

    /// The batch's findings are written (flushed), then recorded as
    /// emitted; the state is saved when its interval has passed.
    fn batch_end(&mut self) -> io::Result<()> {
        let mut core = self.lock();
        if !core.pending.is_empty() {
            let pending = std::mem::take(&mut core.pending);
            core.output.write(&pending)?;
            for (k, ts) in std::mem::take(&mut core.pending_keys) {
                core.book.record(k, ts);
            }
        }
        core.save(false);
        Ok(())
    }
}

impl Core {
    /// Is `input` one of the logs to read (`--include`)?
    pub fn accepts(&self, input: &crate::input::Input) -> bool {
        match input.named_path() {
            // Standard input is read whatever it holds.
            None => true,
            Some(p) => {
                let p = p.to_string_lossy();
                self.include.is_empty() || self.include.iter().any(|s| p.contains(s.as_str()))
            }
        }
    }
}

impl Observe for Watcher {
    fn accept(&self, input: &crate::input::Input) -> bool {
        self.lock().accepts(input)
    }

    fn item(&self, item: &Item) {
        self.lock()
            .metrics
            .fact(&item.worker, item.fact.group.as_ref(), &item.fact.kind);
    }

    fn streams(&self, now: Instant, streams: &[StreamStat<'_>]) {
        let mut core = self.lock();
        for s in streams {
            let before = core.book.streams.get(s.name).map_or(0, |p| p.lines);
            if s.lines >= before + BURST_LINES {
                eprintln!(
                    "herder-audit watch: {}: {} lines read in one step (a burst, or catching up)",
                    s.name,
                    s.lines - before
                );
            }
            core.metrics.stream(s.name, s.bytes, s.lines, s.idle, now);
            core.book.position(
                s.name,
                Position {
                    bytes: s.bytes,
                    lines: s.lines,
                },
            );
        }
        core.metrics.readiness.looked();
        core.save(false);
    }

    fn isolation(&self, tracker: &crate::interruptions::Tracker, now_ms: i64) {
        let mut core = self.lock();
        let Core {
            interruptions,
            metrics,
            book,
            ..
        } = &mut *core;
        interruptions.step(tracker, now_ms, metrics, book);
    }

    fn unordered(&self, stream: &str, lines: usize) {
        self.lock().metrics.unordered(stream, lines);
    }

    fn too_long(&self, stream: &str, lines: &[(u64, u64)]) {
        for (line, len) in lines {
            eprintln!(
                "herder-audit watch: {stream}:{line}: warning: a line of {len} bytes was skipped (longer than the {} byte limit)",
                crate::input::scan::MAX_LINE
            );
        }
        self.lock()
            .metrics
            .input_error("too-long-line", lines.len() as u64);
    }

    fn ended(&self, stream: &str, end: &StreamEnd) {
        for e in &end.errors {
            eprintln!("herder-audit watch: {}: {}", e.input, e.message);
        }
        for i in &end.inputs {
            for (line, len) in &i.too_long {
                eprintln!(
                    "herder-audit watch: {}:{line}: warning: a line of {len} bytes was skipped",
                    i.name
                );
            }
        }
        let mut core = self.lock();
        let stopping = core
            .stopping
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
        if stopping {
            // Ending with the watcher: where it stood is kept for the restart.
            return;
        }
        eprintln!("herder-audit watch: {stream}: stream ended; its series are dropped");
        for e in &end.errors {
            let reason = if e.message.starts_with("internal error") {
                "internal"
            } else {
                "read"
            };
            core.metrics.input_error(reason, 1);
        }
        let long: usize = end.inputs.iter().map(|i| i.too_long.len()).sum();
        if long > 0 {
            core.metrics.input_error("too-long-line", long as u64);
        }
        core.metrics.stream_ended(stream);
        core.book.forget_stream(stream);
    }
}

impl FollowEvents for Watcher {
    fn follow_event(&self, path: &Path, event: FollowEvent) {
        let (name, says) = match event {
            FollowEvent::Rotated => ("rotated", "replaced (rotated): reading the new file"),
            FollowEvent::Truncated => ("truncated", "truncated: reading it again from its start"),
            FollowEvent::NextContainerLog => (
                "next-container-log",
                "the container restarted: reading its next log as the same stream",
            ),
            FollowEvent::Gone => ("gone", "gone (deleted): its stream ends"),
        };
        eprintln!("herder-audit watch: {}: {says}", path.display());
        self.lock().metrics.follow_event(name);
    }
}

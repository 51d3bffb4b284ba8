//! Reading one stream (a file, its rotated segments in time order, or
//! stdin) in steps: a [`StreamReader`] pauses at a given log time so many
//! streams can advance together, and says when live input has nothing more
//! for now.
//!
//! A paused stream keeps its open file and its buffers only while the
//! budgets of [`crate::input::segment`] allow: beyond them it closes the
//! file and frees the buffers, and the next step reopens the file where it
//! stopped. So any number of streams is read within the open-file limit,
//! in memory of the order of threads × buffer + streams × replay state.

use super::decoder::{Decoder, Until};
use super::{InputError, InputReport, Item};
use crate::input::scan::{Outcome, Scanner};
use crate::input::segment::{FdPermit, MemPermit};
use crate::input::{self, Input, Reader};
use crate::model::Key;
use crate::model::{SourceId, Timestamp};
use crate::replay::WorkerReport;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Counts the bytes read from an input (compressed bytes for gzip), for
/// the progress bar.
pub struct Counting<R> {
    inner: R,
    pub count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The segment being read: its id, its scanner, whether it is gzip.
type Current = (SourceId, Scanner<Reader>, bool);

/// The head of a live segment, gathered without blocking before the
/// segment is prepared: the layout and the wrapping are judged from it
/// ([`input::prepare`]), so a pipe is judged on what a file would be.
struct PendingHead {
    id: SourceId,
    reader: Box<dyn Read + Send>,
    gzip: bool,
    buf: Vec<u8>,
    /// When the last bytes came (standard input only: a pipe's head is
    /// whole once the writer pauses).
    last: Option<Instant>,
    stdin: bool,
    /// The error that ended the head.
    error: Option<std::io::Error>,
}

/// A live head is judged once it holds this many lines…
const LIVE_HEAD_LINES: usize = 512;
/// …or once standard input has paused this long after its first bytes.
pub const LIVE_HEAD_QUIET: Duration = Duration::from_millis(20);

impl PendingHead {
    /// Reads what is there: is the head complete?
    fn poll(&mut self) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if self.error.is_some()
                || self.buf.len() >= input::head::HEAD_BYTES
                || memchr::memchr_iter(b'\n', &self.buf).count() >= LIVE_HEAD_LINES
            {
                return true;
            }
            match self.reader.read(&mut chunk) {
                Ok(0) => return true,
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    self.last = Some(Instant::now());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    // A followed file's present content is all there; a
                    // pipe's head is complete when its writer pauses.
                    return match self.last {
                        Some(t) => !self.stdin || t.elapsed() >= LIVE_HEAD_QUIET,
                        None => false,
                    };
                }
                Err(e) => self.error = Some(e),
            }
        }
    }

    /// The head read, then the error that ended it (if one did), then the
    /// rest, counted from here.
    fn take(&mut self, count: Arc<AtomicU64>) -> Box<dyn Read + Send> {
        let reader = std::mem::replace(&mut self.reader, Box::new(std::io::empty()));
        let head = std::mem::take(&mut self.buf);
        count.fetch_add(head.len() as u64, Ordering::Relaxed);
        let rest = Counting {
            inner: reader,
            count,
        };
        Box::new(input::head::HeadThen::new(head, self.error.take(), rest))
    }
}

/// Where a stream stands after [`StreamReader::advance`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advance {
    /// Paused before a line stamped this (later than the bound).
    Paused(Timestamp),
    /// Live input has nothing more for now.
    Idle,
    /// Read to its end (or given up after an error).
    Done,
}

/// What a finished stream leaves.
pub struct StreamEnd {
    pub workers: Vec<WorkerReport>,
    /// One report per segment, in reading order.
    pub inputs: Vec<InputReport>,
    pub errors: Vec<InputError>,
    /// Events skipped as repeats of overlapping segments.
    pub repeats_skipped: u64,
}

/// Reads one stream — a file, its rotated segments, or stdin — in steps.
pub struct StreamReader {
    /// The stream's name (its file, or `dir/base` of a rotation).
    pub name: String,
    /// (source id, input) per segment, in reading order.
    segments: Vec<(SourceId, Input)>,
    next: usize,
    current: Option<Current>,
    decoder: Decoder,
    inputs: Vec<InputReport>,
    errors: Vec<InputError>,
    /// Compressed bytes read, for the progress bar.
    pub bytes_read: Arc<AtomicU64>,
    state: Advance,
    live: Option<input::live::LiveOpen>,
    /// The current segment is read as it comes (stdin, a followed file):
    /// never released.
    current_live: bool,
    /// The wrap width of the stream's last segment read as a terminal
    /// copy: a later segment is cut at the same width.
    wrap_width: Option<usize>,
    /// Leave to keep the file open while paused.
    fd: Option<FdPermit>,
    /// Leave to keep the buffers while paused.
    mem: Option<MemPermit>,
    /// A live segment whose head is still arriving.
    pending: Option<PendingHead>,
}

impl StreamReader {
    /// `rank`: the stream's place in the run; `facts`: hand on items for
    /// the cross-worker stage.
    pub fn new(
        name: String,
        rank: u32,
        segments: Vec<(SourceId, Input)>,
        keep_generations: bool,
        facts: bool,
    ) -> StreamReader {
        let first = segments.first().map_or(SourceId(0), |s| s.0);
        let decoder = Decoder::new(first, name.clone(), keep_generations);
        StreamReader {
            name,
            segments,
            next: 0,
            current: None,
            decoder: if facts {
                decoder.with_facts(rank)
            } else {
                decoder
            },
            inputs: Vec::new(),
            errors: Vec::new(),
            bytes_read: Arc::new(AtomicU64::new(0)),
            state: Advance::Paused(Timestamp(i64::MIN)),
            live: None,
            current_live: false,
            wrap_width: None,
            fd: None,
            mem: None,
            pending: None,
        }
    }

    /// Have the replays record their timelines (for the HTML report).
    pub fn with_timeline(mut self, on: bool) -> StreamReader {
        if on {
            self.decoder = std::mem::replace(
                &mut self.decoder,
                Decoder::new(SourceId(0), String::new(), false),
            )
            .with_timeline();
        }
        self
    }

    /// Read standard input and (with `follow`) the last segment as live
    /// input.
    pub fn with_live(mut self, live: Option<input::live::LiveOpen>) -> StreamReader {
        self.live = live;
        self
    }

    /// The stream's rank in the run.
    pub fn rank(&self) -> u32 {
        self.decoder.rank()
    }

    /// Its segments' source ids and names, in reading order.
    pub fn segment_names(&self) -> Vec<(SourceId, String)> {
        self.segments
            .iter()
            .map(|(id, i)| (*id, i.display()))
            .collect()
    }

    /// Its segments' source ids, in reading order.
    pub fn segment_ids(&self) -> Vec<SourceId> {
        self.segments.iter().map(|(id, _)| *id).collect()
    }

    /// Is the head of a live segment still arriving?
    pub fn head_pending(&self) -> bool {
        self.pending.is_some()
    }

    pub fn state(&self) -> Advance {
        self.state
    }

    /// No item this stream hands on later sorts before this key.
    pub fn frontier(&self) -> Key {
        self.decoder.frontier()
    }

    /// No item this stream hands on later sorts before this key, paused
    /// before a line stamped `t`.
    pub fn frontier_paused(&self, t: Timestamp) -> Key {
        self.decoder.frontier_paused(t)
    }

    /// The items made since the last call, in key order.
    pub fn take_items(&mut self) -> Vec<Item> {
        self.decoder.take_items()
    }

    /// Lines read so far.
    pub fn lines_read(&self) -> u64 {
        self.inputs.iter().map(|i| i.lines).sum::<u64>()
            + self.current.as_ref().map_or(0, |(_, s, _)| s.stats.lines)
    }

    /// The latest generation a worker of the stream is in.
    pub fn generation(&self) -> Option<i32> {
        self.decoder.generation()
    }

    /// Lines (source, line as stored) whose order is unknown, found since
    /// the last call.
    pub fn take_unordered(&mut self) -> Vec<(SourceId, u64)> {
        self.decoder.take_unordered()
    }

    /// Lines skipped for their length since the last call ((line, bytes)
    /// each); they are then not in the segment's [`InputReport`].
    pub fn take_too_long(&mut self) -> Vec<(u64, u64)> {
        self.decoder.take_too_long()
    }

    /// Live input went quiet: hand on what waits for lines that may follow.
    pub fn flush_held(&mut self) {
        self.decoder.flush_held();
    }

    fn open_next(&mut self) -> bool {
        while let Some((id, input)) = self.segments.get(self.next).cloned() {
            self.next += 1;
            let name = input.display();
            let last = self.next == self.segments.len();
            let live = match (&input, &self.live) {
                (Input::Stdin, _) => true,
                (Input::File(_), Some(l)) => l.follow && last,
                _ => false,
            };
            if live {
                match input::open_live(&input, self.live.as_ref(), last) {
                    Ok((reader, gzip)) => {
                        // Its bytes are counted once the head is scanned:
                        // a stream counts as quiet only once what it sent
                        // was read.
                        self.pending = Some(PendingHead {
                            id,
                            reader,
                            gzip,
                            buf: Vec::new(),
                            last: None,
                            stdin: input == Input::Stdin,
                            error: None,
                        });
                        return true;
                    }
                    Err(e) => {
                        self.open_failed(id, name, &e);
                        continue;
                    }
                }
            }
            match input::open_probed(&input, self.bytes_read.clone(), self.wrap_width) {
                Ok((reader, gzip, head)) => {
                    self.start_segment(id, reader, gzip, head, false);
                    return true;
                }
                Err(e) => self.open_failed(id, name, &e),
            }
        }
        false
    }

    /// A segment could not be opened: an empty input and an error naming it.
    fn open_failed(&mut self, id: SourceId, name: String, e: &std::io::Error) {
        self.inputs.push(InputReport::empty(id, name.clone()));
        self.errors.push(InputError {
            input: name,
            message: input::describe(e),
        });
    }

    /// Scans a segment from its start (its head judged already).
    fn start_segment(
        &mut self,
        id: SourceId,
        reader: Reader,
        gzip: bool,
        head: input::Head,
        live: bool,
    ) {
        let first = self.segments.first().is_some_and(|s| s.0 == id);
        let last = self.segments.last().is_some_and(|s| s.0 == id);
        self.decoder.next_segment(id, first, last);
        if head.wrap_width.is_some() {
            self.wrap_width = head.wrap_width;
        }
        let mut scanner = Scanner::new(reader);
        if self.decoder.segment_head(&head) {
            scanner.follow(usize::MAX);
        }
        self.current = Some((id, scanner, gzip));
        self.current_live = live;
    }

    fn close_current(&mut self) {
        self.fd = None;
        self.mem = None;
        let Some((id, mut scanner, gzip)) = self.current.take() else {
            return;
        };
        let name = self.name_of(id);
        let stats = scanner.stats;
        if let Some((number, bytes)) = scanner.tail() {
            self.decoder.log_tail(id, number, bytes);
        }
        if let Some(e) = scanner.take_error() {
            self.errors.push(InputError {
                input: name.clone(),
                message: format!(
                    "{} after line {}; the lines before it were audited",
                    super::read_error(&e, gzip),
                    stats.lines
                ),
            });
        }
        self.inputs.push(InputReport {
            id,
            name,
            gzip,
            bytes: stats.bytes,
            lines: stats.lines,
            candidates: stats.candidates,
            events: 0,
            too_long: self.decoder.take_too_long(),
        });
    }

    /// Reads until the stream ends, live input has nothing more for now,
    /// or a line stamped after `until` comes next.
    pub fn advance(&mut self, until: Until) -> Advance {
        if self.state == Advance::Done {
            return Advance::Done;
        }
        self.state = match crate::guard::guarded(|| self.advance_inner(until)) {
            Ok(next) => next,
            Err(msg) => {
                // A bug met on this input: report it, keep what was read,
                // and go on with the other inputs.
                let (name, line) = match &self.current {
                    Some((id, scanner, _)) => (self.name_of(*id), scanner.stats.lines),
                    None => (String::from("<stream>"), 0),
                };
                self.errors.push(InputError {
                    input: name,
                    message: format!(
                        "internal error near line {}: {msg}; the rest of this input was skipped (please report this)",
                        line + 1
                    ),
                });
                self.current = None;
                self.next = self.segments.len();
                Advance::Done
            }
        };
        self.state
    }

    fn name_of(&self, id: SourceId) -> String {
        self.segments
            .iter()
            .find(|(s, _)| *s == id)
            .map_or_else(String::new, |(_, i)| i.display())
    }

    fn advance_inner(&mut self, until: Until) -> Advance {
        self.decoder.set_until(until);
        loop {
            if let Some(p) = self.pending.as_mut() {
                if !p.poll() {
                    return Advance::Idle;
                }
                let (id, gzip) = (p.id, p.gzip);
                let reader = p.take(self.bytes_read.clone());
                self.pending = None;
                let (reader, head) = input::prepare(reader);
                self.start_segment(id, Reader::Live(reader), gzip, head, true);
            }
            if self.current.is_none() && !self.open_next() {
                return Advance::Done;
            }
            if self.pending.is_some() {
                continue;
            }
            let Some((_, scanner, _)) = self.current.as_mut() else {
                continue;
            };
            match scanner.run(&mut self.decoder) {
                Outcome::Paused => {
                    self.release();
                    return Advance::Paused(self.decoder.paused_at.unwrap_or(Timestamp(i64::MIN)));
                }
                Outcome::Idle => return Advance::Idle,
                Outcome::Done => self.close_current(),
            }
        }
    }

    /// Paused: keeps the file open and the buffers while the budgets allow
    /// it, else lets go of them.
    fn release(&mut self) {
        let Some((_, scanner, _)) = self.current.as_mut() else {
            return;
        };
        if self.current_live {
            return;
        }
        let reader = scanner.get_ref();
        let keep_fd = !matches!(reader, Reader::Plain(s) if !s.is_open())
            && (self.fd.is_some() || {
                self.fd = FdPermit::try_new();
                self.fd.is_some()
            });
        let bytes = scanner.buffer_bytes() + reader.buffer_bytes();
        let keep_buffers = match &mut self.mem {
            Some(m) => m.resize(bytes),
            None => {
                self.mem = MemPermit::try_new(bytes);
                self.mem.is_some()
            }
        };
        if !keep_buffers {
            self.mem = None;
        }
        if !keep_fd {
            self.fd = None;
        }
        if !(keep_fd && keep_buffers) {
            scanner.release(keep_buffers, keep_fd);
        }
    }

    /// Ends the stream: its replays end (their last items are added to
    /// [`StreamReader::take_items`]), with the per-segment reports and
    /// errors.
    pub fn finish(&mut self) -> StreamEnd {
        self.close_current();
        self.state = Advance::Done;
        let mut errors = std::mem::take(&mut self.errors);
        let mut workers = Vec::new();
        for r in self.decoder.finish_replays() {
            match r {
                Ok(w) => workers.push(w),
                Err(message) => errors.push(InputError {
                    input: self.name.clone(),
                    message,
                }),
            }
        }
        let mut inputs = std::mem::take(&mut self.inputs);
        // Attribute events to the segments (the per-line split is not kept).
        if let Some(first) = inputs.first_mut() {
            first.events = self.decoder.events;
        }
        StreamEnd {
            workers,
            inputs,
            errors,
            repeats_skipped: self.decoder.repeats_skipped(),
        }
    }
}

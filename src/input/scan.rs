//! The hot path: find the few lifecycle lines in a stream of bytes without
//! looking at every line. A multi-literal search (Aho-Corasick, SIMD-packed)
//! runs over whole buffers; only lines holding a literal, and the lines a
//! handler asks to follow them, are handed on. Line numbers come from a SIMD
//! newline count over the bytes skipped.

use aho_corasick::packed::{self, Searcher};
use std::io::{self, Read};
use std::sync::OnceLock;

/// Literals one of which every line the auditor reads contains. They name
/// the loggers whose lines it reads, not the whole Connect runtime package:
/// most runtime lines are offset commits, REST access lines and plugin
/// scanning, and a line the search skips costs nothing. Loggers with only a
/// few lifecycle messages among much chatter (the task classes, the REST
/// server) are found by those messages instead.
///
/// The SIMD (Teddy) search fingerprints each literal by its first four
/// bytes and verifies every position where a fingerprint occurs, so each
/// literal is cut to start where Kafka logs are rare: `distributed.`, not
/// `org.apache.kafka.connect.runtime.distributed.` (whose `org.` starts
/// every logger and every stack frame) nor `t.runtime.distributed.` (whose
/// `t.ru` starts every runtime logger). A cut literal matches a few more
/// lines (`broker:` holds `ker:`); the handler rejects those from their logger.
/// The order decides which literals share one of the search's eight
/// fingerprint buckets; this one verifies least on the benchmark archive
/// and on the real samples (2.9 ms per 45 MB against 5.5 ms for the same
/// literals uncut).
pub const LITERALS: [&str; 16] = [
    // `…runtime.Worker` in the `(%c)` layout (`:L)`, Debezium `]` and JSON
    // `"` below).
    "ker)",
    // Task classes: `{} Task threw …`, `… Task failed initialization …`
    // (and `{} Source|Sink task finished initialization and start` below).
    "} Task ",
    // `AbstractCoordinator`: coordinator lines up to 2.8, and the
    // unprefixed ones before 2.0.
    "tCoordinator",
    // `KafkaConfigBackingStore`.
    "gBackingStore",
    "ker:",
    // `AbstractHerder`.
    "tHerder",
    // The herder's LogContext prefix.
    "[Worker clientId=",
    // `DistributedHerder`, `WorkerCoordinator`, `WorkerGroupMember`, the
    // assignors.
    "distributed.",
    // RestServer: the worker's advertised URL.
    "Advertised URI: ",
    // `Kafka cluster ID: …`.
    "a cluster ID: ",
    "ker\"",
    "k finished init",
    // `…runtime.Connect`.
    "e.Connect",
    // `WorkerConnector`.
    "rConnector",
    "ker]",
    // The `DistributedConfig values:` dump.
    "dConfig values",
];

/// Lines longer than this are skipped (with a report); the buffer never
/// grows past it.
pub const MAX_LINE: usize = 1 << 20;

/// Read size once a stream proves large; small inputs start with
/// [`FIRST_CHUNK`] and the buffer doubles up to this.
const CHUNK: usize = 256 * 1024;
const FIRST_CHUNK: usize = 16 * 1024;

/// The literal search: a packed (SIMD Teddy) searcher, which the
/// automaton wrapper would only delegate to.
fn searcher() -> &'static Searcher {
    static S: OnceLock<Searcher> = OnceLock::new();
    S.get_or_init(|| {
        let mut b = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder();
        b.extend(LITERALS);
        b.build().expect("the literals fit a packed searcher")
    })
}

/// How a line reached the handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// It holds one of `LITERALS`.
    Candidate,
    /// It follows a line whose handler asked to see what comes next; it holds
    /// none of the literals.
    Follow,
}

/// What the handler wants after a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Go on; hand over this many of the following lines whatever they hold.
    Next(usize),
    /// Stop before this line: it was not consumed and will be handed over
    /// again when the scan resumes.
    Pause,
}

/// Receives the lines the scanner selects.
pub trait LineHandler {
    /// `number` is 1-based; `line` has no line ending (`\r\n` and `\n`
    /// removed).
    fn line(&mut self, number: u64, line: &[u8], how: Delivery) -> Step;

    /// A line longer than `MAX_LINE` was skipped.
    fn too_long(&mut self, number: u64, len: u64);
}

/// What the scan saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub bytes: u64,
    pub lines: u64,
    pub candidates: u64,
    pub too_long: u64,
}

fn trim_eol(l: &[u8]) -> &[u8] {
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Whether a scan ended or paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The handler paused; [`Scanner::run`] resumes at the paused line.
    Paused,
    /// The input is exhausted (or a read failed: see [`Scanner::take_error`]).
    Done,
    /// The reader has nothing more for now (it returned
    /// [`io::ErrorKind::WouldBlock`]: live input); an unfinished last line
    /// is kept until the rest of it comes. [`Scanner::run`] goes on where
    /// it stopped.
    Idle,
}

/// A reader that can let go of its descriptor and buffers while its scan
/// is paused.
pub trait Release {
    /// The scan pauses with the last `unread` bytes it read not consumed.
    /// The reader frees its buffers (unless `keep_buffers`) and closes its
    /// file (unless `keep_fd`); it returns true when it took the unread
    /// bytes back (they will be read again), false when the scanner must
    /// keep them.
    fn release(&mut self, unread: usize, keep_buffers: bool, keep_fd: bool) -> bool;
}

/// A resumable scan of one reader.
pub struct Scanner<R> {
    reader: R,
    buf: Vec<u8>,
    /// The buffer's working size, restored when a released scan resumes.
    cap: usize,
    /// Unprocessed data is `buf[start..filled]`.
    start: usize,
    filled: usize,
    follow: usize,
    /// Skipping the rest of an over-long line: (its number, bytes so far).
    skipping: Option<(u64, u64)>,
    eof: bool,
    /// The last read would have blocked.
    blocked: bool,
    error: Option<io::Error>,
    pub stats: ScanStats,
    /// The last complete line scanned and its number (the log's last
    /// line once the scan is done), whether or not it was a candidate.
    tail: (u64, Vec<u8>),
}

/// A tail line longer than this is not kept (its time stamp is at its
/// start; the evidence quoting it is cut anyway).
const TAIL_MAX: usize = 4096;

impl<R: Read> Scanner<R> {
    pub fn new(reader: R) -> Scanner<R> {
        Scanner {
            reader,
            buf: vec![0; FIRST_CHUNK],
            cap: FIRST_CHUNK,
            start: 0,
            filled: 0,
            follow: 0,
            skipping: None,
            eof: false,
            blocked: false,
            error: None,
            stats: ScanStats::default(),
            tail: (0, Vec::new()),
        }
    }

    /// Hands over the next `lines` lines whatever they hold, as if the
    /// handler had asked for them: a stream whose lines the literals cannot
    /// find is read line by line from its first line.
    pub fn follow(&mut self, lines: usize) {
        self.follow = lines;
    }

    /// The read error that ended the scan, if one did.
    /// The last line scanned so far (its number and bytes), if any.
    pub fn tail(&self) -> Option<(u64, &[u8])> {
        (self.tail.0 > 0).then_some((self.tail.0, &self.tail.1[..]))
    }

    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    /// The reader.
    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// Bytes of buffer the scan holds.
    pub fn buffer_bytes(&self) -> usize {
        self.buf.capacity()
    }

    /// Reads more data after the unprocessed part (which is moved to the
    /// front of the buffer first).
    fn refill(&mut self) {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.start = 0;
        }
        if self.buf.len() < CHUNK && self.stats.bytes >= 4 * self.buf.len() as u64 {
            // No small input: read bigger chunks.
            let n = (self.buf.len() * 2).min(CHUNK);
            self.buf.resize(n, 0);
        }
        let target = self.buf.len();
        while self.filled < self.buf.len() {
            match self.reader.read(&mut self.buf[self.filled..]) {
                Ok(0) => {
                    self.eof = true;
                    return;
                }
                Ok(n) => {
                    self.filled += n;
                    self.stats.bytes += n as u64;
                    if self.filled >= target {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.blocked = true;
                    return;
                }
                Err(e) => {
                    self.eof = true;
                    self.error = Some(e);
                    return;
                }
            }
        }
    }

    /// Scans until the input ends or the handler pauses: region by region
    /// of complete lines, each handed over line by line.
    pub fn run(&mut self, handler: &mut dyn LineHandler) -> Outcome {
        if self.buf.len() < self.cap {
            // Resuming after a release.
            self.buf.resize(self.cap, 0);
        }
        loop {
            let end = match self.complete_lines() {
                Ok(end) => end,
                Err(Some(outcome)) => return outcome,
                Err(None) => continue,
            };
            if end == 0 {
                if let Some((number, len)) = self.skipping.take() {
                    self.stats.lines += 1;
                    self.stats.too_long += 1;
                    handler.too_long(number, len);
                }
                return Outcome::Done;
            }
            let region = &self.buf[self.start..self.start + end];
            let pos = end_skipped(&mut self.skipping, &mut self.stats, region, handler);
            let lines = Lines {
                stats: &mut self.stats,
                follow: &mut self.follow,
            };
            if let Some(at) = lines.deliver(region, pos, handler) {
                self.start += at;
                return Outcome::Paused;
            }
            remember_tail(region, self.stats.lines, &mut self.tail);
            self.start += end;
            if self.start == self.filled && self.eof {
                return Outcome::Done;
            }
            if self.blocked {
                self.blocked = false;
                return Outcome::Idle;
            }
            self.refill();
        }
    }

    /// The end of the complete lines in the buffer (of all of it at the
    /// end of the input). When there are none, the buffer grows (or an
    /// over-long line is skipped) and more is read: `Err(None)` to look
    /// again, `Err(Some(Idle))` when live input has nothing more for now.
    #[inline]
    fn complete_lines(&mut self) -> Result<usize, Option<Outcome>> {
        let data = &self.buf[self.start..self.filled];
        match memchr::memrchr(b'\n', data) {
            Some(i) => return Ok(i + 1),
            None if self.eof => return Ok(data.len()),
            None => {}
        }
        if self.start == 0 && self.filled == self.buf.len() {
            if self.buf.len() < MAX_LINE {
                let n = (self.buf.len() * 2).min(MAX_LINE);
                self.buf.resize(n, 0);
            } else {
                // A full buffer without a newline: too long.
                let (_, len) = self.skipping.get_or_insert((self.stats.lines + 1, 0));
                *len += self.filled as u64;
                self.filled = 0;
            }
        }
        if self.blocked {
            self.blocked = false;
            return Err(Some(Outcome::Idle));
        }
        self.refill();
        Err(None)
    }
}

/// An over-long line being skipped ends at the region's first newline:
/// reported; where the region's lines begin.
#[inline]
fn end_skipped(
    skipping: &mut Option<(u64, u64)>,
    stats: &mut ScanStats,
    region: &[u8],
    handler: &mut dyn LineHandler,
) -> usize {
    let Some((number, len)) = skipping.take() else {
        return 0;
    };
    let (body, nl) = match memchr::memchr(b'\n', region) {
        Some(i) => (i, i + 1),
        None => (region.len(), region.len()),
    };
    stats.lines += 1;
    stats.too_long += 1;
    handler.too_long(number, len + body as u64);
    nl
}

/// The counts of a scan and the lines its handler asked to follow, while
/// a region's lines are handed over.
struct Lines<'s> {
    stats: &'s mut ScanStats,
    follow: &'s mut usize,
}

impl Lines<'_> {
    /// Hands over the lines of `region` from `pos` on: the lines the
    /// handler asked to follow, each, and of the others only those holding
    /// a literal (found by one search over the region). `Some(at)`: the
    /// handler paused at the line starting at `at`.
    #[inline]
    fn deliver(
        self,
        region: &[u8],
        mut pos: usize,
        handler: &mut dyn LineHandler,
    ) -> Option<usize> {
        let ac = searcher();
        while pos < region.len() {
            let rest = &region[pos..];
            if *self.follow > 0 {
                let nl = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                let line = trim_eol(&rest[..nl]);
                let how = if ac.find(line).is_some() {
                    Delivery::Candidate
                } else {
                    Delivery::Follow
                };
                match handler.line(self.stats.lines + 1, line, how) {
                    Step::Pause => return Some(pos),
                    Step::Next(f) => *self.follow = f,
                }
                self.stats.lines += 1;
                if how == Delivery::Candidate {
                    self.stats.candidates += 1;
                }
                pos += (nl + 1).min(rest.len());
                continue;
            }
            let Some(m) = ac.find(rest) else {
                self.stats.lines += count_lines(rest);
                break;
            };
            let line_start = memchr::memrchr(b'\n', &rest[..m.start()]).map_or(0, |i| i + 1);
            self.stats.lines += bytecount::count(&rest[..line_start], b'\n') as u64;
            pos += line_start;
            let rest = &region[pos..];
            let nl = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
            match handler.line(
                self.stats.lines + 1,
                trim_eol(&rest[..nl]),
                Delivery::Candidate,
            ) {
                Step::Pause => return Some(pos),
                Step::Next(f) => *self.follow = f,
            }
            self.stats.lines += 1;
            self.stats.candidates += 1;
            pos += (nl + 1).min(rest.len());
        }
        None
    }
}

/// Remembers the region's last non-empty line and its number (one search
/// per region; a rejoined terminal copy ends its records with the empty
/// lines that keep line numbers); `lines`: the lines scanned through the
/// region's end.
#[inline]
fn remember_tail(region: &[u8], lines: u64, tail: &mut (u64, Vec<u8>)) {
    let blank = region
        .iter()
        .rev()
        .take_while(|b| matches!(b, b'\n' | b'\r'))
        .count();
    let body = &region[..region.len() - blank];
    let last = &body[memchr::memrchr(b'\n', body).map_or(0, |i| i + 1)..];
    if !last.is_empty() && last.len() <= TAIL_MAX {
        let newlines = bytecount::count(&region[body.len()..], b'\n') as u64;
        let after = newlines.saturating_sub(u64::from(region.ends_with(b"\n")));
        tail.0 = lines.saturating_sub(after);
        tail.1.clear();
        tail.1.extend_from_slice(last);
    }
}

impl<R: Read + Release> Scanner<R> {
    /// While the scan is paused: frees the buffer (unless `keep_buffers`)
    /// and closes the file (unless `keep_fd`). The bytes read but not
    /// consumed are handed back to the reader, or kept in a buffer of
    /// their size where the reader cannot read them again (gzip). The
    /// next [`Scanner::run`] goes on where the scan paused.
    pub fn release(&mut self, keep_buffers: bool, keep_fd: bool) {
        if self.error.is_some() {
            return;
        }
        let rest = self.filled - self.start;
        self.cap = self.cap.max(self.buf.len());
        if self.reader.release(rest, keep_buffers, keep_fd) {
            self.stats.bytes -= rest as u64;
            self.eof = false;
            self.buf = Vec::new();
            self.start = 0;
            self.filled = 0;
        } else if !keep_buffers {
            self.buf.copy_within(self.start..self.filled, 0);
            self.buf.truncate(rest);
            self.buf.shrink_to_fit();
            self.start = 0;
            self.filled = rest;
        }
    }
}

/// Scans `reader` to its end (or to its first read error, returned after
/// the lines read so far have been delivered). A handler that pauses is
/// resumed at once.
pub fn scan<R: Read>(reader: R, handler: &mut dyn LineHandler) -> (ScanStats, Option<io::Error>) {
    let mut s = Scanner::new(reader);
    while s.run(handler) != Outcome::Done {}
    let err = s.take_error();
    (s.stats, err)
}

/// Newlines in `region`, plus one for a final line without a newline.
fn count_lines(region: &[u8]) -> u64 {
    let n = bytecount::count(region, b'\n') as u64;
    if region.last().is_some_and(|&b| b != b'\n') {
        n + 1
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Recorded {
        lines: Vec<(u64, String, Delivery)>,
        follow_after: Option<&'static str>,
        remaining: usize,
        long: Vec<(u64, u64)>,
    }

    impl LineHandler for Recorded {
        fn line(&mut self, number: u64, line: &[u8], how: Delivery) -> Step {
            let s = String::from_utf8_lossy(line).into_owned();
            match self.follow_after {
                Some(k) if s.contains(k) => self.remaining = 2,
                _ => self.remaining = self.remaining.saturating_sub(1),
            }
            self.lines.push((number, s, how));
            Step::Next(self.remaining)
        }
        fn too_long(&mut self, number: u64, len: u64) {
            self.long.push((number, len));
        }
    }

    fn run(input: &[u8], follow_after: Option<&'static str>) -> (Recorded, ScanStats) {
        let mut c = Recorded {
            follow_after,
            ..Default::default()
        };
        let (stats, err) = scan(input, &mut c);
        assert!(err.is_none());
        (c, stats)
    }

    #[test]
    fn finds_candidates_with_line_numbers() {
        let text = "a\nb (org.apache.kafka.connect.runtime.Worker)\nc\n[Worker clientId=x, groupId=y] d\r\ne";
        let (c, stats) = run(text.as_bytes(), None);
        assert_eq!(
            c.lines
                .iter()
                .map(|(n, s, _)| (*n, s.as_str()))
                .collect::<Vec<_>>(),
            vec![
                (2, "b (org.apache.kafka.connect.runtime.Worker)"),
                (4, "[Worker clientId=x, groupId=y] d"),
            ]
        );
        assert_eq!(stats.lines, 5);
        assert_eq!(stats.candidates, 2);
        assert_eq!(stats.bytes, text.len() as u64);
    }

    #[test]
    fn follows_on_request() {
        let text = "x DistributedConfig values: \n\tconnect.protocol = eager\n\tgroup.id = g\n\tthird = 3\nnext\n";
        let (c, _) = run(text.as_bytes(), Some("DistributedConfig"));
        let got: Vec<_> = c.lines.iter().map(|(n, _, h)| (*n, *h)).collect();
        assert_eq!(
            got,
            vec![
                (1, Delivery::Candidate),
                (2, Delivery::Follow),
                (3, Delivery::Follow)
            ]
        );
    }

    #[test]
    fn counts_lines_across_buffer_refills() {
        let mut text = String::new();
        for i in 0..50_000 {
            if i % 997 == 0 {
                text.push_str(&format!(
                    "{i} (org.apache.kafka.connect.runtime.Worker:1)\n"
                ));
            } else {
                text.push_str(&format!("{i} noise noise noise noise noise\n"));
            }
        }
        let (c, stats) = run(text.as_bytes(), None);
        assert_eq!(stats.lines, 50_000);
        for (n, s, _) in &c.lines {
            let i: u64 = s.split(' ').next().unwrap().parse().unwrap();
            assert_eq!(*n, i + 1);
        }
        assert_eq!(c.lines.len(), 51);
    }

    #[test]
    fn skips_over_long_lines() {
        let mut text = Vec::new();
        text.extend_from_slice(b"first (org.apache.kafka.connect.runtime.Worker:1)\n");
        text.extend(std::iter::repeat_n(b'x', MAX_LINE * 2 + 7));
        text.extend_from_slice(
            b" (org.apache.kafka.connect.runtime.Worker:1)\nlast (org.apache.kafka.connect.runtime.Worker:1)\n",
        );
        let (c, stats) = run(&text, None);
        assert_eq!(c.lines.len(), 2);
        assert_eq!(c.lines[0].0, 1);
        assert_eq!(c.lines[1].0, 3);
        assert_eq!(c.long.len(), 1);
        assert_eq!(c.long[0].0, 2);
        assert_eq!(stats.lines, 3);
        assert_eq!(stats.too_long, 1);
    }

    /// Pauses once before every candidate line.
    struct Pauser {
        inner: Recorded,
        paused_at: Vec<u64>,
    }

    impl LineHandler for Pauser {
        fn line(&mut self, number: u64, line: &[u8], how: Delivery) -> Step {
            if self.paused_at.last() != Some(&number) {
                self.paused_at.push(number);
                return Step::Pause;
            }
            self.inner.line(number, line, how)
        }
        fn too_long(&mut self, number: u64, len: u64) {
            self.inner.too_long(number, len);
        }
    }

    #[test]
    fn pausing_resumes_at_the_same_line() {
        let mut text = String::new();
        for i in 0..20_000 {
            if i % 331 == 0 {
                text.push_str(&format!("{i} DistributedConfig values\n"));
            } else if i % 97 == 0 {
                text.push_str(&format!(
                    "{i} (org.apache.kafka.connect.runtime.Worker:1)\n"
                ));
            } else {
                text.push_str(&format!("{i} noise noise noise noise noise\n"));
            }
        }
        let (plain, plain_stats) = run(text.as_bytes(), Some("DistributedConfig"));
        let mut p = Pauser {
            inner: Recorded {
                follow_after: Some("DistributedConfig"),
                ..Default::default()
            },
            paused_at: Vec::new(),
        };
        let mut s = Scanner::new(text.as_bytes());
        let mut pauses = 0;
        while s.run(&mut p) == Outcome::Paused {
            pauses += 1;
        }
        assert_eq!(p.inner.lines, plain.lines);
        assert_eq!(s.stats, plain_stats);
        assert_eq!(pauses, plain.lines.len());
    }

    #[test]
    fn empty_and_unterminated() {
        let (c, stats) = run(b"", None);
        assert!(c.lines.is_empty());
        assert_eq!(stats.lines, 0);
        let (c, stats) = run(b"(org.apache.kafka.connect.runtime.Worker:1)", None);
        assert_eq!(c.lines.len(), 1);
        assert_eq!(stats.lines, 1);
    }

    #[test]
    fn the_tail_is_the_last_non_empty_line_read_or_skipped() {
        let tail = |input: &[u8]| {
            let mut s = Scanner::new(input);
            let mut c = Recorded::default();
            while s.run(&mut c) != Outcome::Done {}
            s.tail()
                .map(|(n, l)| (n, String::from_utf8(l.to_vec()).unwrap()))
        };
        assert_eq!(tail(b""), None);
        assert_eq!(tail(b"a\nb (x.Y)\n"), Some((2, "b (x.Y)".into())));
        assert_eq!(tail(b"a\r\nb\r\n\n\n"), Some((2, "b".into())));
        assert_eq!(tail(b"a\nb"), Some((2, "b".into())));
        // Across buffer refills.
        let mut big = Vec::new();
        for i in 0..100_000 {
            big.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        assert_eq!(tail(&big), Some((100_000, "line 99999".into())));
    }
}

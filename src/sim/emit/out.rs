//! Writing log records: one simulated clock shared by every worker, the
//! layouts, and a per-worker streaming writer that counts lines (so that the
//! ground truth can name them) and never holds more than a buffer's worth of
//! output in memory.

use crate::sim::version::Version;
use std::io::{self, Write};

/// The simulated wall clock, in epoch milliseconds, shared by all workers.
#[derive(Debug)]
pub struct Clock {
    now: i64,
    cached_sec: i64,
    text: [u8; 23],
}

impl Clock {
    pub fn new(start_ms: i64) -> Clock {
        let mut c = Clock {
            now: start_ms,
            cached_sec: i64::MIN,
            text: *b"1970-01-01 00:00:00,000",
        };
        c.refresh();
        c
    }

    pub fn now(&self) -> i64 {
        self.now
    }

    /// Moves the clock forward (never back).
    pub fn advance(&mut self, ms: i64) {
        if ms > 0 {
            self.now += ms;
        }
    }

    pub fn set_at_least(&mut self, t: i64) {
        if t > self.now {
            self.now = t;
        }
    }

    fn refresh(&mut self) {
        let sec = self.now.div_euclid(1000);
        if sec != self.cached_sec {
            self.cached_sec = sec;
            let days = sec.div_euclid(86_400);
            let sod = sec.rem_euclid(86_400);
            let (y, m, d) = crate::model::civil_from_days(days);
            let mut w = |pos: usize, v: i64, n: usize| {
                let mut v = v;
                for i in (0..n).rev() {
                    self.text[pos + i] = b'0' + (v % 10) as u8;
                    v /= 10;
                }
            };
            w(0, y, 4);
            w(5, i64::from(m), 2);
            w(8, i64::from(d), 2);
            w(11, sod / 3600, 2);
            w(14, (sod / 60) % 60, 2);
            w(17, sod % 60, 2);
        }
        let ms = self.now.rem_euclid(1000);
        self.text[20] = b'0' + (ms / 100) as u8;
        self.text[21] = b'0' + ((ms / 10) % 10) as u8;
        self.text[22] = b'0' + (ms % 10) as u8;
    }

    /// `yyyy-MM-dd HH:mm:ss,SSS` of the current instant.
    pub fn stamp(&mut self) -> [u8; 23] {
        self.refresh();
        self.text
    }

    /// The current instant as log4j prints it.
    pub fn text(&mut self) -> String {
        String::from_utf8_lossy(&self.stamp()).into_owned()
    }
}

/// The log4j pattern a worker's log is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `[%d] %p %m (%c:%L)%n` — the shipped pattern up to 2.8.
    Apache,
    /// `[%d] %p %X{connector.context}%m (%c:%L)%n` — shipped from 3.0.
    ApacheMdc,
    /// Debezium images: `%d %-5p  %X{dbz.connectorType}|%X{dbz.connectorName}|%X{dbz.connectorContext}  %m   [%c]%n`.
    Debezium,
    /// Strimzi: `%d{ISO8601} %p %X{connector.context}%m (%c) [%t]%n`.
    Strimzi,
}

impl Layout {
    pub fn parse(s: &str) -> Option<Layout> {
        Some(match s {
            "apache" => Layout::Apache,
            "apache-mdc" | "mdc" => Layout::ApacheMdc,
            "debezium" => Layout::Debezium,
            "strimzi" => Layout::Strimzi,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Layout::Apache => "apache",
            Layout::ApacheMdc => "apache-mdc",
            Layout::Debezium => "debezium",
            Layout::Strimzi => "strimzi",
        }
    }
    pub fn pattern(self) -> &'static str {
        match self {
            Layout::Apache => "[%d] %p %m (%c:%L)%n",
            Layout::ApacheMdc => "[%d] %p %X{connector.context}%m (%c:%L)%n",
            Layout::Debezium => {
                "%d %-5p  %X{dbz.connectorType}|%X{dbz.connectorName}|%X{dbz.connectorContext}  %m   [%c]%n"
            }
            Layout::Strimzi => "%d{ISO8601} %p %X{connector.context}%m (%c) [%t]%n",
        }
    }
    fn prints_mdc(self) -> bool {
        matches!(self, Layout::ApacheMdc | Layout::Strimzi)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lvl {
    Info,
    Warn,
    Error,
}

impl Lvl {
    fn text(self, padded: bool) -> &'static str {
        match (self, padded) {
            (Lvl::Info, false) => "INFO",
            (Lvl::Warn, false) => "WARN",
            (Lvl::Error, false) => "ERROR",
            (Lvl::Info, true) => "INFO ",
            (Lvl::Warn, true) => "WARN ",
            (Lvl::Error, true) => "ERROR",
        }
    }
}

/// `%X{connector.context}` of a record.
#[derive(Debug, Clone, Copy)]
pub enum Mdc<'a> {
    None,
    /// `[<conn>|worker] `
    Worker(&'a str),
    /// `[<conn>|task-<n>] `
    Task(&'a str, u16),
    /// `[<conn>|task-<n>|offsets] `
    Offsets(&'a str, u16),
    /// Debezium's own triple, e.g. `mysql|inventory|binlog` (Debezium layout only).
    Dbz(&'a str),
}

/// The thread a record is logged from (`%t`, Strimzi only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Th {
    Herder,
    Main,
    ConfigLog,
    Task,
    Rest,
    Heartbeat,
    /// The herder's executor that starts and stops connectors and tasks.
    Pool,
}

const FLUSH_AT: usize = 256 * 1024;

/// Opens segment `k` (0: the first) of a rotated log.
pub type OpenSegment = Box<dyn FnMut(usize) -> io::Result<Box<dyn Write>>>;

/// Size-based rotation, as log4j's RollingFileAppender does it: once a
/// segment has reached `limit` bytes, the next record starts a new one (a
/// record and its continuation lines never straddle two segments).
pub struct Rotation {
    pub limit: u64,
    pub open: OpenSegment,
}

/// One segment of a worker's log: its first line's number in the whole
/// log, its line and byte counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub first_line: u64,
    pub lines: u64,
    pub bytes: u64,
}

struct Rotating {
    rot: Rotation,
    /// (lines, bytes) written before each segment began.
    starts: Vec<(u64, u64)>,
}

/// One worker's log file, written as it is simulated.
pub struct WorkerLog {
    out: Box<dyn Write>,
    rotating: Option<Rotating>,
    buf: Vec<u8>,
    layout: Layout,
    mdc_enabled: bool,
    /// `[Worker clientId=…, groupId=…] `
    ctx: Vec<u8>,
    herder_thread: Vec<u8>,
    heartbeat_thread: Vec<u8>,
    /// Lines written so far (the number of the last complete line).
    lines: u64,
    bytes: u64,
    error: Option<io::Error>,
    /// The current record's MDC, for the Strimzi thread name.
    cur_task: Option<(Vec<u8>, u16)>,
    cur_th: Th,
    /// The time stamp of the last record started (epoch ms).
    pub last_ms: i64,
}

impl WorkerLog {
    pub fn new(
        out: Box<dyn Write>,
        layout: Layout,
        version: Version,
        client_id: &str,
        group: &str,
    ) -> WorkerLog {
        let ctx = format!("[Worker clientId={client_id}, groupId={group}] ").into_bytes();
        WorkerLog {
            out,
            rotating: None,
            buf: Vec::with_capacity(FLUSH_AT + 64 * 1024),
            layout,
            mdc_enabled: layout.prints_mdc() && version.mdc(),
            ctx,
            herder_thread: format!("DistributedHerder-{client_id}-1").into_bytes(),
            heartbeat_thread: format!("kafka-coordinator-heartbeat-thread | {group}").into_bytes(),
            lines: 0,
            bytes: 0,
            error: None,
            cur_task: None,
            cur_th: Th::Herder,
            last_ms: i64::MIN,
        }
    }

    /// Rotates the log by size from now on: `rot.open(0)` replaces the
    /// output given to [`WorkerLog::new`] (nothing has been written yet).
    pub fn rotate_by_size(&mut self, mut rot: Rotation) -> io::Result<()> {
        self.out = (rot.open)(0)?;
        self.rotating = Some(Rotating {
            rot,
            starts: vec![(self.lines, self.bytes())],
        });
        Ok(())
    }

    /// Starts the next segment if the current one is full.
    fn maybe_rotate(&mut self) {
        let Some(r) = &self.rotating else { return };
        let (_, at) = r.starts[r.starts.len() - 1];
        if self.bytes() - at < r.rot.limit {
            return;
        }
        self.flush_buf();
        if self.error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.error = Some(e);
        }
        let Some(r) = &mut self.rotating else { return };
        let k = r.starts.len();
        r.starts.push((self.lines, self.bytes));
        match (r.rot.open)(k) {
            Ok(out) => self.out = out,
            Err(e) => {
                self.error.get_or_insert(e);
                self.out = Box::new(io::sink());
            }
        }
    }

    /// The segments written (one when the log is not rotated).
    pub fn segments(&self) -> Vec<Segment> {
        let starts = match &self.rotating {
            Some(r) => r.starts.clone(),
            None => vec![(0, 0)],
        };
        let ends = starts
            .iter()
            .skip(1)
            .copied()
            .chain(std::iter::once((self.lines, self.bytes())));
        starts
            .iter()
            .zip(ends)
            .map(|(&(l0, b0), (l1, b1))| Segment {
                first_line: l0 + 1,
                lines: l1 - l0,
                bytes: b1 - b0,
            })
            .collect()
    }

    /// The number the next line will have.
    pub fn next_line(&self) -> u64 {
        self.lines + 1
    }
    pub fn lines(&self) -> u64 {
        self.lines
    }
    pub fn bytes(&self) -> u64 {
        self.bytes + self.buf.len() as u64
    }

    fn push(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Starts a record: time stamp, level and MDC. Returns the record's line number.
    pub fn head(&mut self, clock: &mut Clock, lvl: Lvl, mdc: Mdc, th: Th) -> u64 {
        self.maybe_rotate();
        let stamp = clock.stamp();
        self.last_ms = clock.now();
        self.cur_th = th;
        self.cur_task = None;
        match self.layout {
            Layout::Apache | Layout::ApacheMdc => {
                self.buf.push(b'[');
                self.push(&stamp);
                self.push(b"] ");
                self.push(lvl.text(false).as_bytes());
                self.buf.push(b' ');
            }
            Layout::Strimzi => {
                self.push(&stamp);
                self.buf.push(b' ');
                self.push(lvl.text(false).as_bytes());
                self.buf.push(b' ');
            }
            Layout::Debezium => {
                self.push(&stamp);
                self.buf.push(b' ');
                self.push(lvl.text(true).as_bytes());
                self.push(b"  ");
                match mdc {
                    Mdc::Dbz(t) => self.push(t.as_bytes()),
                    _ => self.push(b"||"),
                }
                self.push(b"  ");
            }
        }
        if let Mdc::Task(c, n) | Mdc::Offsets(c, n) = mdc {
            self.cur_task = Some((c.as_bytes().to_vec(), n));
        }
        if self.mdc_enabled {
            match mdc {
                Mdc::None | Mdc::Dbz(_) => {}
                Mdc::Worker(c) => {
                    self.buf.push(b'[');
                    self.push(c.as_bytes());
                    self.push(b"|worker] ");
                }
                Mdc::Task(c, n) => {
                    self.buf.push(b'[');
                    self.push(c.as_bytes());
                    self.push(b"|task-");
                    self.num(i64::from(n));
                    self.push(b"] ");
                }
                Mdc::Offsets(c, n) => {
                    self.buf.push(b'[');
                    self.push(c.as_bytes());
                    self.push(b"|task-");
                    self.num(i64::from(n));
                    self.push(b"|offsets] ");
                }
            }
        }
        self.lines + 1
    }

    /// The herder's LogContext prefix.
    pub fn ctx(&mut self) {
        let ctx = std::mem::take(&mut self.ctx);
        self.push(&ctx);
        self.ctx = ctx;
    }

    pub fn s(&mut self, s: &str) {
        self.push(s.as_bytes());
    }

    pub fn num(&mut self, v: i64) {
        let mut tmp = [0u8; 20];
        let mut i = tmp.len();
        let neg = v < 0;
        let mut u = v.unsigned_abs();
        loop {
            i -= 1;
            tmp[i] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 {
                break;
            }
        }
        if neg {
            self.buf.push(b'-');
        }
        self.buf.extend_from_slice(&tmp[i..]);
    }

    /// Ends a single-line record with the logger (and, for Strimzi, the thread).
    pub fn tail(&mut self, logger: &str, line: u32) {
        self.suffix(logger, line);
        self.buf.push(b'\n');
        self.lines += 1;
        self.maybe_flush();
    }

    fn suffix(&mut self, logger: &str, line: u32) {
        match self.layout {
            Layout::Apache | Layout::ApacheMdc => {
                self.push(b" (");
                self.push(logger.as_bytes());
                self.buf.push(b':');
                self.num(i64::from(line));
                self.buf.push(b')');
            }
            Layout::Strimzi => {
                self.push(b" (");
                self.push(logger.as_bytes());
                self.push(b") [");
                self.thread();
                self.buf.push(b']');
            }
            Layout::Debezium => {
                self.push(b"   [");
                self.push(logger.as_bytes());
                self.buf.push(b']');
            }
        }
    }

    fn thread(&mut self) {
        match self.cur_th {
            Th::Herder => {
                let t = std::mem::take(&mut self.herder_thread);
                self.push(&t);
                self.herder_thread = t;
            }
            Th::Main => self.push(b"main"),
            Th::ConfigLog => self.push(b"KafkaBasedLog Work Thread - connect-configs"),
            Th::Rest => self.push(b"qtp1604839423-27"),
            Th::Heartbeat => {
                let t = std::mem::take(&mut self.heartbeat_thread);
                self.push(&t);
                self.heartbeat_thread = t;
            }
            Th::Pool => self.push(b"StartAndStopExecutor-connect-1-2"),
            Th::Task => match self.cur_task.take() {
                Some((c, n)) => {
                    self.push(b"task-thread-");
                    self.push(&c);
                    self.buf.push(b'-');
                    self.num(i64::from(n));
                }
                None => self.push(b"pool-5-thread-1"),
            },
        }
    }

    /// Ends the first line of a multi-line message (the rest follows with
    /// [`WorkerLog::cont`] and [`WorkerLog::end_multi`]).
    pub fn newline(&mut self) {
        self.buf.push(b'\n');
        self.lines += 1;
    }

    /// A continuation line (stack frame, config value): written as is.
    pub fn cont(&mut self, text: &str) {
        self.push(text.as_bytes());
        self.buf.push(b'\n');
        self.lines += 1;
    }

    /// Ends a multi-line message: the logger suffix on a line of its own.
    pub fn end_multi(&mut self, logger: &str, line: u32) {
        self.suffix(logger, line);
        self.buf.push(b'\n');
        self.lines += 1;
        self.maybe_flush();
    }

    /// Continuation lines after a complete record (a stack trace).
    pub fn trace(&mut self, frames: &[&str]) {
        for f in frames {
            self.cont(f);
        }
        self.maybe_flush();
    }

    fn maybe_flush(&mut self) {
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf();
        }
    }

    fn flush_buf(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(&self.buf)
        {
            self.error = Some(e);
        }
        self.bytes += self.buf.len() as u64;
        self.buf.clear();
    }

    /// Writes everything out; the first write error, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        self.flush_buf();
        if self.error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.error = Some(e);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared_buf::SharedBuf as Shared;

    #[test]
    fn clock_formats_like_log4j() {
        let mut c = Clock::new(1_556_708_400_123);
        assert_eq!(c.text(), "2019-05-01 11:00:00,123");
        c.advance(59_877);
        assert_eq!(c.text(), "2019-05-01 11:01:00,000");
    }

    #[test]
    fn layouts() {
        let cases = [
            (
                Layout::ApacheMdc,
                "[2019-05-01 11:00:00,123] INFO [c|task-0] Stopping task c-0 (org.apache.kafka.connect.runtime.Worker:1)\n",
            ),
            (
                Layout::Apache,
                "[2019-05-01 11:00:00,123] INFO Stopping task c-0 (org.apache.kafka.connect.runtime.Worker:1)\n",
            ),
            (
                Layout::Debezium,
                "2019-05-01 11:00:00,123 INFO   ||  Stopping task c-0   [org.apache.kafka.connect.runtime.Worker]\n",
            ),
            (
                Layout::Strimzi,
                "2019-05-01 11:00:00,123 INFO [c|task-0] Stopping task c-0 (org.apache.kafka.connect.runtime.Worker) [task-thread-c-0]\n",
            ),
        ];
        for (layout, want) in cases {
            let sink = Shared::default();
            let mut log = WorkerLog::new(
                Box::new(sink.clone()),
                layout,
                Version::V3_6,
                "connect-1",
                "g",
            );
            let mut clock = Clock::new(1_556_708_400_123);
            let n = log.head(&mut clock, Lvl::Info, Mdc::Task("c", 0), Th::Task);
            assert_eq!(n, 1);
            log.s("Stopping task c-0");
            log.tail("org.apache.kafka.connect.runtime.Worker", 1);
            log.finish().unwrap();
            assert_eq!(
                String::from_utf8(sink.0.lock().unwrap().clone()).unwrap(),
                want
            );
            assert_eq!(log.lines(), 1);
        }
    }
}

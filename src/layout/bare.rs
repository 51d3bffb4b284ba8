//! Layouts that print no logger (`%d %p %m%n`).
//!
//! The prefilter finds most lines the auditor reads by their logger
//! (`…runtime.Worker)`); a layout without one hides them from it. Herder and
//! coordinator lines still carry the worker's `[Worker clientId=…]` prefix,
//! but the Worker's `Stopping task …` carries nothing. A stream whose
//! layout prints no logger is therefore read line by line, and its lines are
//! attributed to their class by their wording
//! ([`crate::event::attribute`]).
//!
//! [`head_is_bare`] decides from the head of a segment, before any line is
//! read. [`BareLayout`] keeps the decision for a stream and, where the head
//! did not show it, notices the layout from the first line of the herder
//! or coordinator without a logger; the lines before that one were not all
//! read, and the replay is told so.

use super::{split_stream, starts_record, starts_record_text, trailing_logger};

/// Records of a head looked at: enough to judge a layout, few enough to
/// cost nothing (the head of every segment is looked at).
const HEAD_RECORDS: usize = 256;

/// Single-line records a stream needs before its layout is judged.
const MIN_RECORDS: usize = 3;

/// Does the head of a segment (complete lines) come from a layout that
/// prints no logger? It does when, in one of its streams (a multiplexed
/// file holds several), at least nine in ten records that stand on one line
/// have no logger. (Records followed by other lines are not counted: the
/// logger of a multi-line message, a config dump, is on its last line.)
pub fn head_is_bare(head: &[u8]) -> bool {
    let ends: Vec<u32> = memchr::memchr_iter(b'\n', head).map(|i| i as u32).collect();
    head_is_bare_at(head, &ends)
}

/// [`head_is_bare`] of a head whose newlines are at `ends` (found once for
/// every test of the head).
pub fn head_is_bare_at(head: &[u8], ends: &[u32]) -> bool {
    let mut counts = Counts::default();
    // The record before the current line: its stream and whether it
    // ends with a logger (`None` for JSON records, which are not judged,
    // and for records of a stream whose answer is already certain).
    let mut prev: Option<(Option<String>, Option<bool>)> = None;
    let mut records = 0;
    // Where the head's lines were last skipped from, once every stream
    // met is certainly not bare (see below).
    let mut settled: Option<usize> = None;
    let mut start = 0;
    let ends = ends.iter().map(|&e| e as usize);
    for end in ends.chain(std::iter::once(head.len())) {
        if start >= head.len() {
            break;
        }
        let at = start;
        let line = &head[start..end];
        start = end + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let cut = &line[..line.len().min(512)];
        if let Some(from) = settled {
            // Every stream counted is certainly not bare, and its records
            // are no longer judged: only a record of another stream can
            // change the answer. A line that cannot carry a stream prefix
            // is of the unprefixed stream; the records skipped since
            // `from` are counted only when another stream's record shows
            // up (the head ends at the 256th).
            let met = if may_carry_prefix(cut) {
                let decoded = std::str::from_utf8(cut).ok();
                counts.has(split_stream(&text_of(decoded, cut)).0)
            } else {
                counts.has(None)
            };
            if met || !is_record(line, std::str::from_utf8(cut).ok()) {
                continue;
            }
            records += count_records(&head[from..at]);
            if records >= HEAD_RECORDS {
                break;
            }
            settled = None;
            prev = None;
        }
        // The line's first 512 bytes decoded once: for the record test (its
        // first 320) and for the stream and logger.
        let decoded = std::str::from_utf8(cut).ok();
        if !is_record(line, decoded) {
            prev = None;
            continue;
        }
        if let Some((key, Some(logger))) = prev.take() {
            counts.count(key, logger);
        }
        records += 1;
        if records > HEAD_RECORDS {
            break;
        }
        // Records still to be counted: this one and those after it.
        let left = HEAD_RECORDS + 1 - records;
        if counts.certainly_bare(left) {
            return true;
        }
        let text = text_of(decoded, cut);
        let (key, rest) = split_stream(&text);
        let json = rest.trim_start().starts_with('{');
        // A whole line decoded: its logger read from the text.
        let logger = || match decoded {
            Some(s) if s.len() == line.len() => {
                super::trailing_logger_kept(&RECENT, s, |_| ()).is_some()
            }
            _ => trailing_logger(line).is_some(),
        };
        // A stream that cannot reach the share whatever its records left
        // show is not counted further (its logger not read).
        let judged = !json && !counts.certainly_not_bare(key, left);
        prev = Some((key.map(str::to_string), judged.then(logger)));
        // The records of a stream certainly not bare stay uncounted, and
        // a stream's count only grows when its record is judged: once
        // every stream met is certainly not bare (and this record is not
        // judged), nothing met so far can change the answer.
        if !judged && counts.all_certainly_not_bare(left) {
            settled = Some(start.min(head.len()));
        }
    }
    if let Some((key, Some(logger))) = prev {
        counts.count(key, logger);
    }
    counts.any_bare()
}

thread_local! {
    /// The loggers the heads' records ended with last.
    static RECENT: std::cell::RefCell<super::RecentNames<()>> =
        const { std::cell::RefCell::new(super::RecentNames::new(())) };
}

/// The largest char boundary of `s` at most `n`.
fn char_floor(s: &str, n: usize) -> usize {
    let mut k = n.min(s.len());
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    k
}

/// Does a line start a record? `decoded` is its first 512 bytes as text,
/// if they are UTF-8 (the record test reads the first 320).
fn is_record(line: &[u8], decoded: Option<&str>) -> bool {
    match decoded {
        Some(s) => starts_record_text(&s[..char_floor(s, 320)]),
        None => starts_record(line),
    }
}

/// A line's first 512 bytes (`cut`) as text.
fn text_of<'a>(decoded: Option<&'a str>, cut: &'a [u8]) -> std::borrow::Cow<'a, str> {
    // (`from_utf8_lossy` walks the bytes one by one even when they are
    // valid.)
    match decoded {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => String::from_utf8_lossy(cut),
    }
}

/// Records among the lines of `lines` (complete lines), as [`head_is_bare`]
/// counts them.
fn count_records(lines: &[u8]) -> usize {
    let mut n = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', lines) {
        let line = &lines[start..end];
        start = end + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let cut = &line[..line.len().min(512)];
        n += usize::from(is_record(line, std::str::from_utf8(cut).ok()));
    }
    n
}

/// May the text of `cut` (a line's first 512 bytes) begin with a stream
/// prefix ([`split_stream`]: a compose service's `name  | ` or kubectl's
/// `[pod/name/container] ` after blanks)? `false` only when neither can
/// parse: no name bytes, blanks and `|` at its start, no `[`, name bytes
/// and `/` after its leading white space (a line whose first other byte
/// is not ASCII may).
fn may_carry_prefix(cut: &[u8]) -> bool {
    let name_byte = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-');
    let name = cut.iter().take_while(|c| name_byte(c)).count();
    if name > 0 {
        let blanks = cut[name..].iter().take_while(|&&c| c == b' ').count();
        if blanks > 0 && cut.get(name + blanks) == Some(&b'|') {
            return true;
        }
    }
    // `str::trim_start`'s ASCII white space: tab to carriage return, blank.
    let lead = cut
        .iter()
        .take_while(|&&c| matches!(c, b'\t'..=b'\r' | b' '))
        .count();
    match cut.get(lead) {
        Some(c) if !c.is_ascii() => true,
        Some(b'[') => {
            let pod = cut[lead + 1..].iter().take_while(|c| name_byte(c)).count();
            pod > 0 && cut.get(lead + 1 + pod) == Some(&b'/')
        }
        _ => false,
    }
}

/// Per stream key of a head: (single-line records, of which without a
/// logger).
#[derive(Default)]
struct Counts(Vec<(Option<String>, usize, usize)>);

impl Counts {
    fn count(&mut self, key: Option<String>, logger: bool) {
        let i = match self.0.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                self.0.push((key, 0, 0));
                self.0.len() - 1
            }
        };
        self.0[i].1 += 1;
        if !logger {
            self.0[i].2 += 1;
        }
    }

    /// Is a stream's layout bare: at least nine in ten of its (at least
    /// [`MIN_RECORDS`]) records without a logger?
    fn bare(n: usize, bare: usize) -> bool {
        n >= MIN_RECORDS && bare * 10 >= n * 9
    }

    /// Has stream `key` been counted?
    fn has(&self, key: Option<&str>) -> bool {
        self.0.iter().any(|(k, _, _)| k.as_deref() == key)
    }

    /// Is every stream counted certainly not bare ([`Counts::certainly_not_bare`])?
    fn all_certainly_not_bare(&self, left: usize) -> bool {
        self.0
            .iter()
            .all(|&(_, n, bare)| (bare + left) * 10 < (n + left) * 9)
    }

    fn any_bare(&self) -> bool {
        self.0.iter().any(|&(_, n, bare)| Counts::bare(n, bare))
    }

    /// Is some stream bare even if the `left` records still to be counted
    /// all were its own and all had a logger?
    fn certainly_bare(&self, left: usize) -> bool {
        self.0
            .iter()
            .any(|&(_, n, bare)| n >= MIN_RECORDS && bare * 10 >= (n + left) * 9)
    }

    /// Is stream `key` not bare even if the `left` records still to be
    /// counted all were its own and all had no logger?
    fn certainly_not_bare(&self, key: Option<&str>, left: usize) -> bool {
        self.0
            .iter()
            .find(|(k, _, _)| k.as_deref() == key)
            .is_some_and(|&(_, n, bare)| (bare + left) * 10 < (n + left) * 9)
    }
}

/// What a stream's layout shows of its loggers, as far as the stream has
/// been read.
#[derive(Debug, Default)]
pub struct BareLayout {
    /// Every line is read: the layout hides the logger the prefilter looks
    /// for.
    all: bool,
    /// The layout was noticed only after the start of the stream (not from
    /// a head): lines before were skipped unread.
    late: bool,
    /// Streams (of a multiplexed file) already told about the layout.
    told: Vec<Option<String>>,
}

/// What a worker's replay is to be told about the layout, once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Lines before this one may have been skipped unread: what the worker
    /// ran is unknown from here on.
    pub lines_missed: bool,
    /// The note for the worker's summary.
    pub text: String,
}

impl BareLayout {
    /// A segment begins whose head is (`true`) or is not bare; once every
    /// line is read, it stays so for the stream.
    pub fn segment(&mut self, head_bare: bool) {
        self.all |= head_bare;
    }

    /// Must every line be read (and handed over as a candidate)?
    pub fn reads_all(&self) -> bool {
        self.all
    }

    /// A record line was read: does it carry the worker's prefix, a
    /// logger? A prefixed line without a logger shows the layout.
    pub fn record(&mut self, prefixed: bool, logger: bool) {
        if prefixed && !logger && !self.all {
            self.all = true;
            self.late = true;
        }
    }

    /// An event was read from a line without a logger, in stream `stream`
    /// of the file, whose worker has (`had_events`) or has not read events
    /// before: what to tell its replay, the first time. Nothing while the
    /// stream is not known to be bare (a config dump's first line has no
    /// logger in any layout).
    pub fn notice(&mut self, stream: Option<&str>, had_events: bool) -> Option<Notice> {
        if !self.all || self.told.iter().any(|s| s.as_deref() == stream) {
            return None;
        }
        self.told.push(stream.map(str::to_string));
        let text = if self.late {
            "the layout prints no logger (noticed only here): lines without a logger before this one were not read, so what the worker ran before it is unknown; from here every line is read and attributed by its wording and the [Worker …] prefix"
        } else {
            "the layout prints no logger: every line is read and attributed by its wording and the [Worker …] prefix (each lifecycle wording is printed by one Connect class), so the verdicts stand as with a logger"
        };
        Some(Notice {
            lines_missed: self.late && had_events,
            text: text.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::trailing_logger_text;

    const BARE: &str = "2024-05-01 10:00:00,000 INFO Kafka Connect starting
2024-05-01 10:00:00,100 INFO [Worker clientId=connect-1, groupId=g] Herder starting
2024-05-01 10:00:00,200 INFO Stopping task a-0
2024-05-01 10:00:00,300 ERROR Failed to start task a-1
org.apache.kafka.connect.errors.ConnectException: boom
\tat a.B.c(B.java:1)
2024-05-01 10:00:00,400 INFO Creating task a-1
";

    const FULL: &str = "[2024-05-01 10:00:00,000] INFO Kafka Connect starting (org.apache.kafka.connect.runtime.Connect:50)
[2024-05-01 10:00:00,050] INFO ProducerConfig values: 
\tacks = -1
\tbatch.size = 16384
 (org.apache.kafka.common.config.AbstractConfig:376)
[2024-05-01 10:00:00,060] INFO DistributedConfig values: 
\tgroup.id = g
 (org.apache.kafka.common.config.AbstractConfig:376)
[2024-05-01 10:00:00,100] INFO [Worker clientId=connect-1, groupId=g] Herder starting (org.apache.kafka.connect.runtime.distributed.DistributedHerder:370)
[2024-05-01 10:00:00,200] INFO [a|task-0] Stopping task a-0 (org.apache.kafka.connect.runtime.Worker:1017)
[2024-05-01 10:00:00,400] INFO [a|task-1] Creating task a-1 (org.apache.kafka.connect.runtime.Worker:574)
";

    #[test]
    fn heads_without_loggers_are_bare() {
        assert!(head_is_bare(BARE.as_bytes()));
        assert!(head_is_bare(BARE.replace('\n', "\r\n").as_bytes()));
    }

    #[test]
    fn heads_with_loggers_and_dumps_are_not() {
        assert!(!head_is_bare(FULL.as_bytes()));
        // Only dumps: nothing stands on one line.
        let dumps: String = FULL
            .lines()
            .skip(1)
            .take(7)
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(!head_is_bare(dumps.as_bytes()));
        assert!(!head_is_bare(b""));
        // Too few records to tell.
        let two: String = BARE.lines().take(2).map(|l| format!("{l}\n")).collect();
        assert!(!head_is_bare(two.as_bytes()));
    }

    #[test]
    fn one_bare_stream_of_a_multiplexed_file_is_enough() {
        let mut s = String::new();
        for (b, f) in BARE
            .lines()
            .zip(FULL.lines().filter(|l| l.starts_with('[')))
        {
            s.push_str(&format!("connect-1  | {b}\nkafka-1    | {f}\n"));
        }
        assert!(head_is_bare(s.as_bytes()));
    }

    #[test]
    fn the_layout_is_noticed_from_a_prefixed_line_without_logger() {
        let mut b = BareLayout::default();
        b.segment(false);
        b.record(false, false); // a dump head: not a sign
        b.record(true, true);
        assert!(!b.reads_all());
        assert_eq!(b.notice(None, true), None);
        b.record(true, false);
        assert!(b.reads_all());
        let n = b.notice(None, true).unwrap();
        assert!(n.lines_missed && n.text.contains("noticed only here"));
        assert_eq!(b.notice(None, true), None, "told once");
        let other = b.notice(Some("connect-2"), false).unwrap();
        assert!(!other.lines_missed);
    }

    #[test]
    fn a_bare_head_reads_everything_from_the_start() {
        let mut b = BareLayout::default();
        b.segment(true);
        assert!(b.reads_all());
        b.segment(false);
        assert!(b.reads_all(), "sticky");
        let n = b.notice(None, true).unwrap();
        assert!(!n.lines_missed);
    }

    /// [`head_is_bare`] as it was before it skipped the lines of settled
    /// streams: every line walked and tested as a record.
    fn head_is_bare_walked(head: &[u8]) -> bool {
        // The largest char boundary of `s` at most `n`.
        let char_floor = |s: &str, n: usize| {
            let mut k = n.min(s.len());
            while !s.is_char_boundary(k) {
                k -= 1;
            }
            k
        };
        let mut counts = Counts::default();
        // The record before the current line: its stream and whether it
        // ends with a logger (`None` for JSON records, which are not judged,
        // and for records of a stream whose answer is already certain).
        let mut prev: Option<(Option<String>, Option<bool>)> = None;
        let mut records = 0;
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', head).chain(std::iter::once(head.len())) {
            if start >= head.len() {
                break;
            }
            let line = &head[start..end];
            start = end + 1;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            // The line's first 512 bytes decoded once: for the record test (its
            // first 320) and for the stream and logger.
            let cut = &line[..line.len().min(512)];
            let decoded = std::str::from_utf8(cut).ok();
            let record = match decoded {
                Some(s) => starts_record_text(&s[..char_floor(s, 320)]),
                None => starts_record(line),
            };
            if !record {
                prev = None;
                continue;
            }
            if let Some((key, Some(logger))) = prev.take() {
                counts.count(key, logger);
            }
            records += 1;
            if records > HEAD_RECORDS {
                break;
            }
            // Records still to be counted: this one and those after it.
            let left = HEAD_RECORDS + 1 - records;
            if counts.certainly_bare(left) {
                return true;
            }
            // (`from_utf8_lossy` walks the bytes one by one even when they
            // are valid.)
            let text = match decoded {
                Some(s) => std::borrow::Cow::Borrowed(s),
                None => String::from_utf8_lossy(cut),
            };
            let (key, rest) = split_stream(&text);
            let json = rest.trim_start().starts_with('{');
            // A whole line decoded: its logger read from the text.
            let logger = || match decoded {
                Some(s) if s.len() == line.len() => trailing_logger_text(s).is_some(),
                _ => trailing_logger(line).is_some(),
            };
            // A stream that cannot reach the share whatever its records left
            // show is not counted further (its logger not read).
            let judged = !json && !counts.certainly_not_bare(key, left);
            prev = Some((key.map(str::to_string), judged.then(logger)));
        }
        if let Some((key, Some(logger))) = prev {
            counts.count(key, logger);
        }
        counts.any_bare()
    }

    /// Heads of up to four streams (unprefixed, compose, kubectl), bare or
    /// with loggers, with dumps, JSON records and blank lines, in random
    /// mixtures: the settled walk answers as the full one.
    #[test]
    fn skipping_settled_streams_answers_as_walking_every_line() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let prefixes = ["", "connect-1  | ", "kafka-1    | ", "[pod/c-0/connect] "];
        let bodies = [
            "2024-05-01 10:00:00,100 INFO Stopping task a-0",
            "[2024-05-01 10:00:00,100] INFO [a|task-0] Stopping task a-0 (org.apache.kafka.connect.runtime.Worker:1017)",
            "[2024-05-01 10:00:00,100] INFO ProducerConfig values: ",
            "\tacks = -1",
            " (org.apache.kafka.common.config.AbstractConfig:376)",
            "{\"@timestamp\":\"2024-05-01T10:00:00.123Z\",\"message\":\"x\"}",
            "",
            "\tat a.B.c(B.java:1)",
            "2024-05-01 10:00:00,300 ERROR Failed http://x/y",
        ];
        let mut bare_heads = 0;
        for case in 0..400 {
            let streams = 1 + next(4) as usize;
            let lines = [5, 40, 300, 700][case % 4];
            // Each stream leans to some bodies.
            let lean: Vec<u64> = (0..streams).map(|_| next(3)).collect();
            let mut head = String::new();
            for i in 0..lines {
                let mut s = next(streams as u64) as usize;
                // Some heads meet their other streams late (after the
                // first has settled), some near the 256th record.
                if case % 3 > 0 && i * streams < s * lines * (case % 3) / 3 {
                    s = 0;
                }
                let b = match (lean[s], next(10)) {
                    (0, 0..=8) => 0,
                    (1, 0..=8) => 1,
                    (2, 0..=5) => 0,
                    _ => next(bodies.len() as u64) as usize,
                };
                head.push_str(prefixes[s]);
                head.push_str(bodies[b]);
                head.push_str(if next(20) == 0 { "\r\n" } else { "\n" });
            }
            let want = head_is_bare_walked(head.as_bytes());
            bare_heads += usize::from(want);
            assert_eq!(head_is_bare(head.as_bytes()), want, "case {case}:\n{head}");
        }
        assert!(
            (50..350).contains(&bare_heads),
            "{bare_heads} bare heads of 400"
        );
    }
}

//! The hot path: find the few lifecycle lines in a stream of bytes without
//! looking at every line. A multi-literal search (Aho-Corasick, SIMD-packed)
//! runs over whole buffers; only lines holding a literal, and the lines a
//! sink asks to follow them, are handed on. Line numbers come from a SIMD
//! newline count over the bytes skipped.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::io::{self, Read};
use std::sync::OnceLock;

/// Literals one of which every line the auditor reads contains: the logger
/// package of the Connect runtime, the herder's LogContext prefix, the group
/// coordinator (whose lines carried no prefix before Kafka 2.0), the config
/// backing store, and the head of the worker's config dump.
pub const LITERALS: [&str; 5] = [
    "org.apache.kafka.connect.runtime",
    "[Worker clientId=",
    "internals.AbstractCoordinator",
    "KafkaConfigBackingStore",
    "DistributedConfig values",
];

/// Lines longer than this are skipped (with a report); the buffer never
/// grows past it.
pub const MAX_LINE: usize = 1 << 20;

const CHUNK: usize = 256 * 1024;

fn automaton() -> &'static AhoCorasick {
    static AC: OnceLock<AhoCorasick> = OnceLock::new();
    AC.get_or_init(|| {
        AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostFirst)
            .build(LITERALS)
            .expect("static literals build")
    })
}

/// How a line reached the sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// It holds one of [`LITERALS`].
    Candidate,
    /// It follows a line whose sink asked to see what comes next; it holds
    /// none of the literals.
    Follow,
}

/// Receives the lines the scanner selects.
pub trait LineSink {
    /// `number` is 1-based; `line` has no line ending (`\r\n` and `\n`
    /// removed). Returns how many of the following lines the sink wants to
    /// see regardless of the prefilter (0: none).
    fn line(&mut self, number: u64, line: &[u8], how: Delivery) -> usize;

    /// A line longer than [`MAX_LINE`] was skipped.
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

/// Scans `reader` to its end (or to its first read error, returned after the
/// lines read so far have been delivered).
pub fn scan<R: Read + ?Sized>(
    reader: &mut R,
    sink: &mut dyn LineSink,
) -> (ScanStats, Option<io::Error>) {
    let ac = automaton();
    let mut stats = ScanStats::default();
    let mut buf: Vec<u8> = vec![0; CHUNK];
    let mut filled = 0usize;
    let mut follow = 0usize;
    // Skipping the rest of an over-long line.
    let mut skipping: Option<(u64, u64)> = None;
    let mut eof = false;
    let mut error = None;
    while !eof {
        // Fill the buffer.
        while filled < buf.len() {
            match reader.read(&mut buf[filled..]) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(n) => {
                    filled += n;
                    stats.bytes += n as u64;
                    if filled >= CHUNK.min(buf.len()) {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    eof = true;
                    error = Some(e);
                    break;
                }
            }
        }
        let data = &buf[..filled];
        // The region of complete lines.
        let end = if eof {
            filled
        } else {
            match memchr::memrchr(b'\n', data) {
                Some(i) => i + 1,
                None if filled < buf.len() => continue,
                None if buf.len() < MAX_LINE => {
                    let n = (buf.len() * 2).min(MAX_LINE);
                    buf.resize(n, 0);
                    continue;
                }
                None => {
                    // A full buffer without a newline: the line is too long.
                    let (_, len) = skipping.get_or_insert((stats.lines + 1, 0));
                    *len += filled as u64;
                    filled = 0;
                    continue;
                }
            }
        };
        let mut pos = 0usize;
        if let Some((number, len)) = skipping.take() {
            // The over-long line ends at the first newline of this region.
            let nl = memchr::memchr(b'\n', &data[..end]).map_or(end, |i| i + 1);
            stats.lines += 1;
            stats.too_long += 1;
            sink.too_long(number, len + nl as u64);
            pos = nl;
        }
        while pos < end {
            let region = &data[pos..end];
            if follow > 0 {
                let nl = memchr::memchr(b'\n', region).unwrap_or(region.len());
                stats.lines += 1;
                let line = trim_eol(&region[..nl]);
                let how = if ac.is_match(line) {
                    stats.candidates += 1;
                    Delivery::Candidate
                } else {
                    Delivery::Follow
                };
                follow = sink.line(stats.lines, line, how);
                pos += (nl + 1).min(region.len());
                continue;
            }
            let Some(m) = ac.find(region) else {
                stats.lines += count_lines(region);
                break;
            };
            let line_start = memchr::memrchr(b'\n', &region[..m.start()]).map_or(0, |i| i + 1);
            stats.lines += bytecount::count(&region[..line_start], b'\n') as u64;
            let nl =
                memchr::memchr(b'\n', &region[m.start()..]).map_or(region.len(), |i| m.start() + i);
            stats.lines += 1;
            stats.candidates += 1;
            follow = sink.line(
                stats.lines,
                trim_eol(&region[line_start..nl]),
                Delivery::Candidate,
            );
            pos += (nl + 1).min(region.len());
        }
        // Keep the incomplete tail.
        buf.copy_within(end..filled, 0);
        filled -= end;
    }
    if let Some((number, len)) = skipping {
        stats.lines += 1;
        stats.too_long += 1;
        sink.too_long(number, len);
    }
    (stats, error)
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
    struct Collect {
        lines: Vec<(u64, String, Delivery)>,
        follow_after: Option<&'static str>,
        remaining: usize,
        long: Vec<(u64, u64)>,
    }

    impl LineSink for Collect {
        fn line(&mut self, number: u64, line: &[u8], how: Delivery) -> usize {
            let s = String::from_utf8_lossy(line).into_owned();
            match self.follow_after {
                Some(k) if s.contains(k) => self.remaining = 2,
                _ => self.remaining = self.remaining.saturating_sub(1),
            }
            self.lines.push((number, s, how));
            self.remaining
        }
        fn too_long(&mut self, number: u64, len: u64) {
            self.long.push((number, len));
        }
    }

    fn run(input: &[u8], follow_after: Option<&'static str>) -> (Collect, ScanStats) {
        let mut c = Collect {
            follow_after,
            ..Default::default()
        };
        let (stats, err) = scan(&mut &input[..], &mut c);
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
                text.push_str(&format!("{i} org.apache.kafka.connect.runtime.X\n"));
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
        text.extend_from_slice(b"first org.apache.kafka.connect.runtime\n");
        text.extend(std::iter::repeat_n(b'x', MAX_LINE * 2 + 7));
        text.extend_from_slice(
            b" org.apache.kafka.connect.runtime\nlast org.apache.kafka.connect.runtime\n",
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

    #[test]
    fn empty_and_unterminated() {
        let (c, stats) = run(b"", None);
        assert!(c.lines.is_empty());
        assert_eq!(stats.lines, 0);
        let (c, stats) = run(b"org.apache.kafka.connect.runtime", None);
        assert_eq!(c.lines.len(), 1);
        assert_eq!(stats.lines, 1);
    }
}

//! Where logs really live: the envelopes the same log4j lines come in when
//! they are read off a node, out of a log store or off a terminal, not from
//! the worker's own file. This is the one place a log source is added.
//! Each is detected from the head of a stream ([`super::head`]) and taken
//! off by the reader, so the layout and event parsers see the log lines
//! alone:
//!
//! * container-runtime files, read line by line ([`runtime`]): the CRI
//!   format (`/var/log/pods/<ns>_<pod>_<uid>/<container>/0.log`) and
//!   Docker's json-file driver, their split records rejoined;
//! * exports of log stores and collectors, read whole ([`exports`]):
//!   journald (`journalctl -o json`, `-o export`), Loki (`logcli query`),
//!   Elasticsearch/OpenSearch hits, documents and search responses,
//!   Vector, Fluent Bit, CloudWatch Logs; their records are put back in
//!   the order they were written where the record says it (an offset, a
//!   sequence number, a fine time stamp), several sources in one export
//!   are told apart by a stream prefix, and a newest-first copy of plain
//!   lines is read oldest first ([`order`]);
//! * terminal copies wrapped at a fixed width ([`terminal`]): their cut
//!   records rejoined.
//!
//! What the reader did is told once to each worker read from the stream
//! ([`RejoinNote`]). Line numbers stay those of the input as stored: a
//! runtime file's and a terminal copy's records keep their lines (a
//! rejoined record is read on the line of its first part), and an export's
//! lines carry a [`LineMap`] from the lines read to the lines stored.
//!
//! Two wrappers belong to single lines rather than to a stream, because
//! one file interleaves lines with and without them: a Docker json-file
//! line found on its own (a log store keeps Docker's lines as they were)
//! is unwrapped with the same grammar ([`runtime`]) when the line is read;
//! and the prefixes multiplexing tools put on each line (docker compose
//! `name  | `, `kubectl logs --prefix` `[pod/name/container] `) are read
//! together with the record head that follows them, by the layout
//! (`src/layout/prefix.rs`), which names the line's stream after them.

pub mod exports;
mod notes;
pub mod order;
pub mod runtime;
pub mod terminal;

pub use notes::RejoinNote;

use std::io::Read;
use std::sync::Arc;

/// An envelope detected at the head of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Cri,
    Docker,
    Export(exports::Kind),
    /// Plain lines, newest first (`logcli query --output=raw` without
    /// `--forward`).
    NewestFirst,
}

impl Format {
    /// The format in words, for the summary.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Cri => "a CRI container log (containerd, CRI-O)",
            Format::Docker => "a Docker json-file log",
            Format::Export(k) => k.describe(),
            Format::NewestFirst => "a newest-first copy of the log",
        }
    }
}

/// Line numbers of the lines read (1-based, by index) in the input as
/// stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineMap(pub Vec<u64>);

impl LineMap {
    /// The stored line of line `n` read (lines past the map are taken as
    /// they are).
    pub fn stored(&self, n: u64) -> u64 {
        match n.checked_sub(1).and_then(|i| self.0.get(i as usize)) {
            Some(&s) => s,
            None => n,
        }
    }
}

/// What the reader did to a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub format: Format,
    /// For the summary of every worker read from the stream.
    pub note: String,
    /// Lines read → lines stored, when they differ.
    pub lines: Option<Arc<LineMap>>,
    /// Order: the streams (stream prefixes; `None` for an export of one
    /// source) whose lines sharing a time stamp could not be put back in
    /// the order they were written, with the lines read (numbers as read)
    /// that share a time stamp with another line of theirs.
    pub unordered: Arc<order::Unordered>,
    /// The last line (number as read, text) of each stream of an export of
    /// several: where each worker's log ends, not only the last one's.
    pub tails: Arc<[(u64, String)]>,
}

/// Lines of the head looked at to tell the format.
const HEAD_LINES: usize = 64;

fn head_lines(head: &[u8]) -> impl Iterator<Item = &[u8]> {
    // `head.split(|&b| b == b'\n')`, its line ends found by memchr (the
    // head of every segment is looked at: a byte at a time cost more than
    // the rest of the test).
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', head);
    std::iter::from_fn(move || {
        if start > head.len() {
            return None;
        }
        let end = ends.next().unwrap_or(head.len());
        let line = &head[start..end];
        start = end + 1;
        Some(line)
    })
    .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
    .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
    .take(HEAD_LINES)
}

/// The envelope of a stream whose head is `head` (complete lines), if it
/// has one. Most lines of the head must read as the format.
pub fn detect(head: &[u8]) -> Option<Format> {
    let lines: Vec<&[u8]> = head_lines(head).collect();
    if lines.is_empty() {
        return None;
    }
    let most = |f: &dyn Fn(&[u8]) -> bool| most(&lines, f);
    if most(&|l| runtime::Runtime::Cri.matches(l)) {
        return Some(Format::Cri);
    }
    if let Some(kind) = exports::detect(head, &lines) {
        return Some(Format::Export(kind));
    }
    if most(&|l| runtime::Runtime::Docker.matches(l)) {
        return Some(Format::Docker);
    }
    if order::newest_first(&lines) {
        return Some(Format::NewestFirst);
    }
    None
}

/// Do at least three in four of `lines` read as `f` says? Answered as soon
/// as the lines that do not are more than a quarter (the head of every
/// segment is tested for each format: most are none after a few lines).
pub(super) fn most(lines: &[&[u8]], f: &dyn Fn(&[u8]) -> bool) -> bool {
    // `n * 4 >= len * 3` for `n` lines that do: at most `len / 4` that do not.
    let allowed = lines.len() / 4;
    let mut misses = 0;
    for l in lines {
        if !f(l) {
            misses += 1;
            if misses > allowed {
                return false;
            }
        }
    }
    true
}

/// The envelope shown by a head read with [`super::head::read_head`]
/// (`ended`: the input ended within it, by an error or not).
pub fn detect_head(head: &[u8], ended: bool) -> Option<Format> {
    let complete = if ended || head.len() < super::head::HEAD_BYTES {
        head.len()
    } else {
        memchr::memrchr(b'\n', head).map_or(0, |i| i + 1)
    };
    detect(&head[..complete])
}

/// Reads the head of `inner` and, when it shows an envelope, returns a
/// reader of the log lines inside it and what was done; else the stream
/// as it is.
pub fn reader(inner: Box<dyn Read + Send>) -> (Box<dyn Read + Send>, Option<Decoded>) {
    let (head, error, inner) = super::head::read_head(inner);
    let format = detect_head(&head, error.is_some());
    let attrs = match format {
        Some(Format::Docker) => docker_attrs(&head),
        _ => String::new(),
    };
    let whole = super::head::HeadThen::new(head, error, inner);
    let Some(format) = format else {
        return (Box::new(whole), None);
    };
    let unordered = Arc::new(order::Unordered::default());
    match format {
        Format::Cri | Format::Docker => {
            let rt = if format == Format::Cri {
                runtime::Runtime::Cri
            } else {
                runtime::Runtime::Docker
            };
            let decoded = Decoded {
                format,
                note: format!(
                    "read as {}{attrs}: records the runtime split were rejoined, each quoted on the line of its first part",
                    format.describe()
                ),
                lines: None,
                unordered,
                tails: Arc::from(Vec::new()),
            };
            (Box::new(runtime::Restream::new(whole, rt)), Some(decoded))
        }
        Format::Export(kind) => exports::reader(whole, kind),
        Format::NewestFirst => order::reversed(whole),
    }
}

/// The `attrs` of a Docker json-file log's first line (the `tag` and
/// `labels` log options), as ` (attrs k=v, …)`, or nothing.
fn docker_attrs(head: &[u8]) -> String {
    let attrs = head_lines(head)
        .find_map(runtime::docker_line)
        .and_then(|(_, a)| a)
        .unwrap_or_default();
    if attrs.is_empty() {
        return String::new();
    }
    let kv: Vec<String> = attrs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(" (attrs {})", kv.join(", "))
}

/// The classic record line a JSON line (after any stream prefix) stands
/// for: the line a Docker json-file line holds, or a JSON layout's record
/// ([`crate::layout::json`]); `None` when it is neither.
pub fn json_record(line: &str) -> Option<String> {
    let start = line.find('{')?;
    let json = line[start..].trim_end();
    if memchr::memmem::find(json.as_bytes(), b"\"log\"").is_some()
        && let Some(inner) = runtime::docker_log(json)
    {
        return Some(format!("{}{inner}", &line[..start]));
    }
    crate::layout::json::to_classic(line)
}

/// The time stamp of a line in any layout, classic or JSON, or held by a
/// Docker json-file line.
pub fn timestamp_of(line: &str) -> Option<crate::model::Timestamp> {
    // The record head's stamp: the envelope's, without reading the rest.
    if crate::layout::is_json(line) {
        let classic = json_record(line)?;
        crate::layout::record_ts(&classic)?
    } else {
        crate::layout::record_ts(line)?
    }
}

/// The decoded text of a whole input (for peeks such as the first time
/// stamp of a rotated segment): the stream read through [`reader`].
pub fn decoded_head(inner: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    reader(inner).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_runtime_files() {
        let cri = b"2025-03-04T10:15:00.1Z stdout F [2025-03-04 10:15:00,100] INFO x (a.B)\n\
                    2025-03-04T10:15:00.1Z stdout P [2025-03-04 10:15:00,100] INFO y\n";
        assert_eq!(detect(cri), Some(Format::Cri));
        let docker = br#"{"log":"[2025-03-04 10:15:00,100] INFO x (a.B)\n","stream":"stdout","time":"2025-03-04T10:15:00.1Z"}"#;
        assert_eq!(detect(docker), Some(Format::Docker));
        let tagged = br#"{"log":"x\n","stream":"stdout","attrs":{"tag":"w1"},"time":"2025-03-04T10:15:00.1Z"}"#;
        assert_eq!(docker_attrs(tagged), " (attrs tag=w1)");
        assert_eq!(docker_attrs(docker), "");
        let plain =
            b"[2025-03-04 10:15:00,100] INFO x (a.B)\n[2025-03-04 10:15:00,200] INFO y (a.B)\n";
        assert_eq!(detect(plain), None);
        let ecs_layout = br#"{"@timestamp":"2024-05-01T10:00:00.123Z","log.level":"INFO","message":"x","log.logger":"a.B"}"#;
        assert_eq!(detect(ecs_layout), None, "a JSON layout is the log itself");
        assert_eq!(detect(b""), None);
    }

    #[test]
    fn docker_lines_on_their_own() {
        let l = r#"{"log":"[2024-05-01 10:00:00,123] INFO [Worker clientId=connect-1, groupId=g] Starting task a-0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1289)\n","stream":"stdout","time":"2024-05-01T10:00:00.124Z"}"#;
        let c = json_record(l).unwrap();
        let e = crate::layout::envelope(&c).unwrap();
        let (ts, logger, msg) = (e.ts.unwrap().to_string(), e.logger, e.message);
        assert_eq!(ts, "2024-05-01 10:00:00,123");
        assert_eq!(
            logger,
            Some("org.apache.kafka.connect.runtime.distributed.DistributedHerder")
        );
        assert_eq!(msg, "Starting task a-0");
    }

    #[test]
    fn json_layouts_and_prefixes_on_json_lines() {
        let l = r#"[pod/c-0/connect] {"log":"[2024-05-01 10:00:00,123] INFO x (a.B)\r\n","stream":"stdout"}"#;
        assert_eq!(
            json_record(l).as_deref(),
            Some("[pod/c-0/connect] [2024-05-01 10:00:00,123] INFO x (a.B)")
        );
        let ecs = r#"{"@timestamp":"2024-05-01T10:00:00.123Z","log.level":"INFO","message":"x","log.logger":"a.B"}"#;
        assert_eq!(
            json_record(ecs).as_deref(),
            Some("[2024-05-01 10:00:00,123] INFO x (a.B)")
        );
        assert_eq!(
            timestamp_of(ecs).map(|t| t.to_string()).as_deref(),
            Some("2024-05-01 10:00:00,123")
        );
        assert_eq!(json_record(r#"{"a":1}"#), None);
    }

    /// Every pattern of lines that read as a format and lines that do not,
    /// up to 12 lines: answered early as when all are counted.
    #[test]
    fn most_answers_as_counting_every_line() {
        for len in 0..=12usize {
            for bits in 0..1u32 << len {
                let lines: Vec<&[u8]> = (0..len)
                    .map(|i| if bits >> i & 1 == 1 { &b"y"[..] } else { b"n" })
                    .collect();
                let n = lines.iter().filter(|l| l[0] == b'y').count();
                assert_eq!(
                    most(&lines, &|l| l[0] == b'y'),
                    n * 4 >= len * 3,
                    "{len} lines, {bits:b}"
                );
            }
        }
    }

    #[test]
    fn line_maps() {
        let m = LineMap(vec![5, 3]);
        assert_eq!(
            (m.stored(1), m.stored(2), m.stored(3), m.stored(0)),
            (5, 3, 3, 0)
        );
    }
}

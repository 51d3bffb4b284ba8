//! Exports of log stores and collectors, read whole: each record's log
//! line, its time stamp and sequence (for the order, [`super::order`]) and
//! the fields that name its source (pod and container, host and unit, file
//! path, log stream, labels). An export of several sources hands on each
//! line behind a `[<kind>/<name>] ` prefix, as `kubectl logs --prefix`
//! does, so that each source is read as a worker of its own.

use super::order::{self, Place, Unordered};
use super::runtime::rfc3339;
use super::{Decoded, Format, LineMap};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeSet;
use std::io::Read;
use std::sync::Arc;

mod fields;
mod text;

pub use fields::Record;

/// The exports read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `journalctl -o json` (one object per line).
    JournaldJson,
    /// `journalctl -o export` (`KEY=value` lines, entries apart by an
    /// empty line).
    JournaldExport,
    /// `logcli query --output=jsonl`.
    LokiJsonl,
    /// `logcli query` (`--output=default`): `<RFC3339Nano> {labels} <line>`.
    LokiDefault,
    /// Elasticsearch/OpenSearch: `_source` documents or hits as JSON lines,
    /// whole search responses (`hits.hits[]`), arrays of hits.
    Elastic,
    /// Vector's JSON encoding (`message`, `timestamp`, `host`, `file`,
    /// `kubernetes.*`).
    Vector,
    /// Fluent Bit's `json_lines` (`date`, `log`, `kubernetes.*`) and its file
    /// output (`<tag>: [<time>, {…}]`).
    FluentBit,
    /// `aws logs filter-log-events --output json` (`events[]`), also
    /// `get-log-events`.
    CloudWatchJson,
    /// `aws logs tail`: `<RFC3339> <log stream> <message>`.
    CloudWatchTail,
}

impl Kind {
    pub fn describe(self) -> &'static str {
        match self {
            Kind::JournaldJson => "a journald export (journalctl -o json)",
            Kind::JournaldExport => "a journald export (journalctl -o export)",
            Kind::LokiJsonl => "a Loki export (logcli --output=jsonl)",
            Kind::LokiDefault => "a Loki export (logcli --output=default)",
            Kind::Elastic => "an Elasticsearch/OpenSearch export",
            Kind::Vector => "a Vector JSON export",
            Kind::FluentBit => "a Fluent Bit JSON export",
            Kind::CloudWatchJson => "a CloudWatch Logs export (aws logs filter-log-events)",
            Kind::CloudWatchTail => "a CloudWatch Logs copy (aws logs tail)",
        }
    }

    /// Time stamps of the kind are milliseconds at best, whatever digits
    /// they print.
    fn millis_only(self) -> bool {
        matches!(self, Kind::CloudWatchJson | Kind::CloudWatchTail)
    }
}

/// The kind of an export whose head (complete lines) is `head`; `lines`
/// are its first non-blank lines.
pub fn detect(head: &[u8], lines: &[&[u8]]) -> Option<Kind> {
    let first = lines.first()?;
    let most = |f: &dyn Fn(&[u8]) -> bool| super::most(lines, f);
    if first.starts_with(b"__CURSOR=")
        || (most(&text::export_field)
            && memchr::memmem::find(head, b"\n__REALTIME_TIMESTAMP=").is_some())
    {
        return Some(Kind::JournaldExport);
    }
    if most(&|l| text::loki_line(l).is_some()) {
        return Some(Kind::LokiDefault);
    }
    if most(&|l| text::tail_line(l).is_some()) && lines.iter().any(|l| text::tail_starts_record(l))
    {
        return Some(Kind::CloudWatchTail);
    }
    if most(&|l| text::fluent_file_line(l).is_some()) {
        return Some(Kind::FluentBit);
    }
    let trimmed = first.trim_ascii_start();
    if !(trimmed.starts_with(b"{") || trimmed.starts_with(b"[")) {
        return None;
    }
    match serde_json::from_slice::<Value>(trimmed) {
        Ok(v) => {
            let kind = json_kind(&v)?;
            // Every line an object of the kind (a whole document on one
            // line counts once).
            most(&|l| {
                serde_json::from_slice::<Value>(l.trim_ascii())
                    .ok()
                    .and_then(|v| json_kind(&v))
                    .is_some()
            })
            .then_some(kind)
        }
        // A document over many lines: a search response or a CloudWatch
        // answer, whose first line is the start of a JSON text that ends
        // later. A first line that is none (a classic record head,
        // `[2024-05-02 …`) is no such document: the head is not searched
        // (three searches of the whole head, the dearest part of probing
        // a plain log's head).
        Err(e) if e.is_eof() => {
            let has = |s: &[u8]| memchr::memmem::find(head, s).is_some();
            if has(b"\"events\"") && has(b"\"timestamp\"") && has(b"\"message\"") {
                Some(Kind::CloudWatchJson)
            } else if has(b"\"_source\"") || (has(b"\"hits\"") && has(b"\"@timestamp\"")) {
                Some(Kind::Elastic)
            } else {
                None
            }
        }
        Err(_) => None,
    }
}

/// The kind of one JSON value, or `None` when it is no export record (a
/// JSON layout's own line is the log, not an export of it).
fn json_kind(v: &Value) -> Option<Kind> {
    if let Value::Array(a) = v {
        return a
            .first()
            .and_then(json_kind)
            .filter(|k| *k == Kind::Elastic);
    }
    let o = v.as_object()?;
    let has = |k: &str| o.contains_key(k);
    if has("__REALTIME_TIMESTAMP") && has("MESSAGE") {
        Some(Kind::JournaldJson)
    } else if has("line") && has("timestamp") && has("labels") {
        Some(Kind::LokiJsonl)
    } else if has("_source") || o.get("hits").is_some_and(|h| h.get("hits").is_some()) {
        Some(Kind::Elastic)
    } else if (has("events") && o["events"].is_array())
        || (has("logStreamName") && has("message") && has("timestamp"))
    {
        Some(Kind::CloudWatchJson)
    } else if has("date") && (has("log") || has("message")) {
        Some(Kind::FluentBit)
    } else if has("message")
        && has("timestamp")
        && (has("source_type") || has("file") || has("host") || has("kubernetes"))
    {
        Some(Kind::Vector)
    } else if has("log") && has("kubernetes") {
        Some(Kind::FluentBit)
    } else if has("message")
        && has("@timestamp")
        && (has("agent")
            || has("host")
            || has("kubernetes")
            || has("input")
            || has("log.file.path")
            || o.get("log")
                .is_some_and(|l| l.get("file").is_some() || l.get("offset").is_some()))
    {
        Some(Kind::Elastic)
    } else {
        None
    }
}

/// Top-level shapes of a JSON export value.
#[derive(Deserialize)]
struct Response<'a> {
    #[serde(borrow, default)]
    hits: Option<Hits<'a>>,
    #[serde(borrow, default)]
    events: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct Hits<'a> {
    #[serde(borrow)]
    hits: Vec<&'a RawValue>,
}

/// Byte offsets of line starts, to give an offset its line number.
struct Lines(Vec<usize>);

impl Lines {
    fn of(text: &str) -> Lines {
        let mut v = vec![0];
        v.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Lines(v)
    }

    /// The 1-based line of byte `off`.
    fn at(&self, off: usize) -> u64 {
        match self.0.binary_search(&off) {
            Ok(i) => i as u64 + 1,
            Err(i) => i as u64,
        }
    }
}

fn offset_in(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// The records of a JSON export (JSON lines, or documents over many
/// lines), each with its stored line.
fn json_records(text: &str) -> Vec<(u64, Record)> {
    let lines = Lines::of(text);
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        let skip = rest.len() - rest.trim_start().len();
        if skip == rest.len() {
            break;
        }
        let mut it = serde_json::Deserializer::from_str(rest).into_iter::<&RawValue>();
        match it.next() {
            Some(Ok(raw)) => {
                pos += it.byte_offset();
                let mut push = |raw: &RawValue| {
                    let line = lines.at(offset_in(text, raw.get()));
                    if let Ok(v) = serde_json::from_str::<Value>(raw.get())
                        && let Some(r) = fields::record(&v)
                    {
                        out.push((line, r));
                    }
                };
                let s = raw.get();
                if s.starts_with('[') {
                    if let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(s) {
                        items.into_iter().for_each(&mut push);
                    }
                } else if let Ok(resp) = serde_json::from_str::<Response>(s)
                    && (resp.hits.is_some() || resp.events.is_some())
                {
                    for r in resp.hits.map(|h| h.hits).into_iter().flatten() {
                        push(r);
                    }
                    for r in resp.events.into_iter().flatten() {
                        push(r);
                    }
                } else {
                    push(raw);
                }
            }
            // Not JSON here: skip the line.
            _ => {
                pos += rest.find('\n').map_or(rest.len(), |i| i + 1);
            }
        }
    }
    out
}

/// Reads an export whole and hands on its log lines in the order they were
/// written, with the map to the lines stored.
pub fn reader<R: Read + Send + 'static>(
    mut inner: R,
    kind: Kind,
) -> (Box<dyn Read + Send>, Option<Decoded>) {
    let mut data = Vec::new();
    let error = inner.read_to_end(&mut data).err();
    let text = String::from_utf8_lossy(&data);
    let records = match kind {
        Kind::JournaldExport => text::journal_export(&data),
        Kind::LokiDefault | Kind::CloudWatchTail => text::line_records(&text, kind),
        Kind::FluentBit
            if text::fluent_file_line(
                text.trim_start()
                    .as_bytes()
                    .split(|&b| b == b'\n')
                    .next()
                    .unwrap_or_default(),
            )
            .is_some() =>
        {
            text::line_records(&text, kind)
        }
        _ => json_records(&text),
    };
    let (out, map, unordered, note, tails) = assemble(records, kind);
    let decoded = Decoded {
        format: Format::Export(kind),
        note,
        lines: Some(Arc::new(map)),
        unordered: Arc::new(unordered),
        tails: Arc::from(tails),
    };
    let reader: Box<dyn Read + Send> = Box::new(crate::input::head::HeadThen::new(
        out,
        error,
        std::io::empty(),
    ));
    (reader, Some(decoded))
}

/// A stream prefix from a source name: no blanks or brackets.
fn prefix_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_whitespace() || c == '[' || c == ']' {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// What [`assemble`] lays out: the text, the map to the stored lines, the
/// lines whose order is unknown, the note, and each stream's last line.
type Assembled = (Vec<u8>, LineMap, Unordered, String, Vec<(u64, String)>);

/// Orders the records, prefixes the lines of an export of several sources,
/// and lays the lines out.
fn assemble(mut records: Vec<(u64, Record)>, kind: Kind) -> Assembled {
    if kind.millis_only() {
        for (_, r) in &mut records {
            r.place.ts = r.place.ts.map(|t| t - t.rem_euclid(1_000_000));
        }
    }
    let sources: Vec<Option<String>> = records.iter().map(|(_, r)| r.source.clone()).collect();
    let distinct: BTreeSet<&String> = sources.iter().flatten().collect();
    let prefixed = distinct.len() > 1;
    let places: Vec<Place> = records.iter().map(|(_, r)| r.place).collect();
    let (idx, unknown) = order::sort(&places, &sources);
    let by = if places.iter().any(|p| p.seq.is_some()) {
        "by their offsets or sequence numbers"
    } else if places.iter().any(|p| p.fine) {
        "by their fine time stamps"
    } else {
        "by their time stamps"
    };
    let mut out = Vec::new();
    let mut map = Vec::new();
    let mut unordered = Unordered::default();
    let mut groups: std::collections::BTreeMap<Option<String>, (usize, Option<i128>)> =
        Default::default();
    let mut tails: std::collections::BTreeMap<Option<String>, (u64, String)> = Default::default();
    for &i in &idx {
        let (line, r) = &records[i];
        let stream = if prefixed {
            r.source.as_deref().map(prefix_name)
        } else {
            None
        };
        if unknown[i] {
            let g = groups.entry(stream.clone()).or_insert((0, None));
            let key = r.place.ts;
            if g.1 != key || g.0 == 0 {
                g.0 += 1;
                g.1 = key;
            }
        }
        for part in r.text.split('\n') {
            let part = part.strip_suffix('\r').unwrap_or(part);
            let start = out.len();
            if let Some(s) = &stream {
                out.extend_from_slice(format!("[{s}] ").as_bytes());
            }
            out.extend_from_slice(part.as_bytes());
            if !part.trim().is_empty() {
                let text = String::from_utf8_lossy(&out[start..]).into_owned();
                tails.insert(stream.clone(), (map.len() as u64 + 1, text));
            }
            out.push(b'\n');
            map.push(*line);
            if unknown[i] {
                unordered.lines.push(map.len() as u64);
            }
        }
    }
    unordered.streams = groups.into_iter().map(|(s, (n, _))| (s, n)).collect();
    let sources_note = if prefixed {
        format!(", {} sources told apart by a stream prefix", distinct.len())
    } else {
        String::new()
    };
    let note = format!(
        "read as {}: {} records put in the order they were written {by}{sources_note}, each quoted on the line it is stored on",
        kind.describe(),
        records.len()
    );
    let tails = if prefixed {
        tails.into_values().collect()
    } else {
        Vec::new()
    };
    (out, LineMap(map), unordered, note, tails)
}

#[cfg(test)]
mod tests;

//! Dumps of the internal topics: their shape told from their content, their
//! records read; a record that cannot be read is named (file:line) and
//! skipped, never fatal (docs/topics.md, "Dumps").
//!
//! * console consumer: `[CreateTime:<ms>|LogAppendTime:<ms>|NO_TIMESTAMP]
//!   [Partition:<p>] [Offset:<o>] [NO_HEADERS|<headers>] <key> <value>`,
//!   the columns present those its `print.*` properties asked for, the
//!   separator (`key.separator`, a tab unless set) taken from the dump;
//!   a tombstone's value is the literal `null`;
//! * kcat with the documented format `topic=%t partition=%p offset=%o
//!   timestamp=%T key=%K:%k value=%S:%s\n`: key and value are
//!   length-prefixed (`-1:` for null), so any bytes read back exactly;
//! * JSON lines: `{"topic", "partition", "offset", "timestamp", "key",
//!   "value"}` (ours) or kcat's `-J` envelope (`ts`, `payload`).

use super::{RawRecord, RecordRef, Shape, Skipped};
use crate::input::{self, Input};
use crate::model::{SourceId, SourceLine};
use std::io::Read;
use std::sync::Arc;

/// What a dump held.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dump {
    /// `None` when nothing in it looked like a record.
    pub shape: Option<Shape>,
    pub records: Vec<RawRecord>,
    pub skipped: Vec<Skipped>,
    pub bytes: u64,
    pub lines: u64,
    pub gzip: bool,
}

/// Reads a dump (gzip is read transparently).
pub fn read_input(source: SourceId, input: &Input) -> std::io::Result<Dump> {
    let (mut r, gzip) = input::open(input)?;
    let mut data = Vec::new();
    r.read_to_end(&mut data)?;
    let mut d = read(source, &data);
    d.gzip = gzip;
    Ok(d)
}

/// Reads a dump held in memory.
pub fn read(source: SourceId, data: &[u8]) -> Dump {
    let mut d = Dump {
        bytes: data.len() as u64,
        lines: bytecount::count(data, b'\n') as u64
            + u64::from(!data.is_empty() && !data.ends_with(b"\n")),
        ..Dump::default()
    };
    d.shape = shape_of(data);
    let mut r = Reader {
        source,
        dump: &mut d,
    };
    match r.dump.shape {
        Some(Shape::Kcat) => r.kcat(data),
        Some(Shape::JsonLines) => r.json_lines(data),
        Some(Shape::Console) => r.console(data),
        Some(Shape::Live) | None => {}
    }
    d
}

/// The shape of a dump, from its first line that is not blank.
pub fn shape_of(data: &[u8]) -> Option<Shape> {
    let first = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))?;
    if first.starts_with(b"topic=") {
        return Some(Shape::Kcat);
    }
    if first.starts_with(b"{")
        && serde_json::from_slice::<serde_json::Value>(first)
            .is_ok_and(|v| v.get("offset").is_some() && v.get("key").is_some())
    {
        return Some(Shape::JsonLines);
    }
    Some(Shape::Console)
}

struct Reader<'a> {
    source: SourceId,
    dump: &'a mut Dump,
}

/// The start of every key Connect writes to its internal topics (and the
/// `null` of a null key), after which a console dump's columns end.
const KEY_STARTS: [&str; 11] = [
    "connector-",
    "task-",
    "commit-",
    "target-state-",
    "session-key",
    "restart-connector-",
    "tasks-fencing-",
    "logger-cluster-",
    "status-",
    "[",
    "null",
];

/// Separators tried, in order, between key and value when a console dump
/// prints no metadata column to take its separator from.
const SEPARATORS: [&str; 12] = [
    "\t", " : ", " | ", " => ", " -> ", ": ", " = ", "|", ",", ";", "=", " ",
];

impl Reader<'_> {
    fn skip(&mut self, line: u64, message: impl Into<String>) {
        self.dump.skipped.push(Skipped {
            source: self.source,
            line,
            message: message.into(),
        });
    }

    fn push(&mut self, at: RecordRef, ts: Option<i64>, kv: KeyValue, n: u64, text: &str) {
        let (a, b) = kv.span;
        self.dump.records.push(RawRecord {
            at,
            timestamp: ts,
            key: kv.key,
            value: kv.value,
            line: SourceLine {
                source: self.source,
                line: n,
                seq: self.dump.records.len() as u64 + 1,
                ts: super::record_time(ts),
                text: Arc::from(text),
                msg: (a as u32, b as u32),
            },
        });
    }

    // ------------------------------------------------------------ console

    fn console(&mut self, data: &[u8]) {
        let mut sep: Option<String> = None;
        let mut keyless = 0u64;
        for (n, text) in text_lines(data) {
            // what the console consumer prints on standard error at its end
            if text.starts_with("Processed a total of ") {
                continue;
            }
            match console_line(&text, &mut sep) {
                Ok((_, _, kv)) if kv.keyless => {
                    keyless += 1;
                    if keyless == 1 {
                        self.skip(
                            n,
                            "a record without its key (dumped without print.key=true): the key tells what a record is",
                        );
                    }
                }
                Ok((at, ts, kv)) => self.push(at, ts, kv, n, &text),
                Err(e) => self.skip(n, e),
            }
        }
        if keyless > 1 {
            self.skip(
                0,
                format!(
                    "{keyless} records without their key in all (dumped without print.key=true)"
                ),
            );
        }
    }

    // ------------------------------------------------------------ kcat

    fn kcat(&mut self, data: &[u8]) {
        let mut pos = 0usize;
        let mut line = 1u64;
        while pos < data.len() {
            if data[pos] == b'\n' {
                pos += 1;
                line += 1;
                continue;
            }
            match kcat_record(&data[pos..]) {
                Ok((rec, used)) => {
                    let text = String::from_utf8_lossy(&data[pos..pos + used]);
                    let text = text.strip_suffix('\n').unwrap_or(&text).to_string();
                    let kv = KeyValue {
                        key: rec.key,
                        value: rec.value,
                        span: (rec.key_at.min(text.len()), text.len()),
                        keyless: false,
                    };
                    self.push(rec.at, rec.ts, kv, line, &text);
                    line += bytecount::count(&data[pos..pos + used], b'\n') as u64;
                    pos += used;
                }
                Err(e) => {
                    self.skip(line, e);
                    // on to the next line that starts a record
                    match memchr::memchr(b'\n', &data[pos..]) {
                        Some(k) => {
                            pos += k + 1;
                            line += 1;
                        }
                        None => break,
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------ JSON lines

    fn json_lines(&mut self, data: &[u8]) {
        for (n, text) in text_lines(data) {
            match json_line(&text) {
                Ok((at, ts, kv)) => self.push(at, ts, kv, n, &text),
                Err(e) => self.skip(n, e),
            }
        }
    }
}

/// The lines that are not blank, numbered from 1, without their line end.
fn text_lines(data: &[u8]) -> impl Iterator<Item = (u64, std::borrow::Cow<'_, str>)> {
    data.split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, raw)| (i as u64 + 1, raw.strip_suffix(b"\r").unwrap_or(raw)))
        .filter(|(_, raw)| !raw.iter().all(u8::is_ascii_whitespace))
        .map(|(n, raw)| (n, String::from_utf8_lossy(raw)))
}

/// A record's key and value, and the byte span of both in its line.
struct KeyValue {
    key: Option<String>,
    value: Option<String>,
    span: (usize, usize),
    /// A console dump made without `print.key`.
    keyless: bool,
}

type Parsed = (RecordRef, Option<i64>, KeyValue);

fn console_line(text: &str, sep: &mut Option<String>) -> Result<Parsed, String> {
    let mut rest = text;
    let mut at = RecordRef {
        topic: None,
        partition: None,
        offset: None,
    };
    let mut ts = None;
    // The metadata columns, in the order DefaultMessageFormatter prints them.
    if let Some(r) = strip_any(rest, &["CreateTime:", "LogAppendTime:"]) {
        let (v, r) = number(r).ok_or("a time stamp column without a number")?;
        ts = Some(v);
        rest = column_end(r, sep)?;
    } else if let Some(r) = rest.strip_prefix("NO_TIMESTAMP") {
        rest = column_end(r, sep)?;
    }
    if let Some(r) = rest.strip_prefix("Partition:") {
        let (v, r) = number(r).ok_or("a Partition column without a number")?;
        at.partition = Some(i32::try_from(v).map_err(|_| "a partition out of range")?);
        rest = column_end(r, sep)?;
    }
    if let Some(r) = rest.strip_prefix("Offset:") {
        let (v, r) = number(r).ok_or("an Offset column without a number")?;
        at.offset = Some(v);
        rest = column_end(r, sep)?;
    }
    if let Some(r) = rest.strip_prefix("NO_HEADERS") {
        rest = column_end(r, sep)?;
    }
    let base = text.len() - rest.len();
    let kv = key_value(rest, sep.as_deref())?;
    Ok((
        at,
        ts,
        KeyValue {
            span: (kv.span.0 + base, kv.span.1 + base),
            ..kv
        },
    ))
}

fn strip_any<'a>(s: &'a str, prefixes: &[&str]) -> Option<&'a str> {
    prefixes.iter().find_map(|p| s.strip_prefix(p))
}

/// A decimal integer (maybe negative) at the start of `s`.
fn number(s: &str) -> Option<(i64, &str)> {
    let neg = s.starts_with('-');
    let digits = s[usize::from(neg)..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return None;
    }
    let end = usize::from(neg) + digits;
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// Past the separator that ends a metadata column: the first time, the
/// separator is learnt (the text up to the next column or key).
fn column_end<'a>(s: &'a str, sep: &mut Option<String>) -> Result<&'a str, String> {
    if let Some(known) = sep.as_deref() {
        return s
            .strip_prefix(known)
            .ok_or_else(|| format!("a column not followed by the separator {known:?}"));
    }
    let next = ["Partition:", "Offset:", "NO_HEADERS"]
        .iter()
        .chain(KEY_STARTS.iter())
        .filter_map(|t| s.get(1..).and_then(|x| x.find(t)).map(|i| i + 1))
        .min()
        .filter(|&i| i <= 16)
        .ok_or("no separator after a metadata column")?;
    *sep = Some(s[..next].to_string());
    Ok(&s[next..])
}

/// Splits `key SEP value` where the value is `null` or a whole JSON
/// document. The separator is the one a metadata column showed, else the
/// first of [`SEPARATORS`] that ends the text before the value.
fn key_value(s: &str, sep: Option<&str>) -> Result<KeyValue, String> {
    let value_at = |p: usize| -> bool {
        let v = &s[p..];
        v == "null" || ((v.starts_with('{') || v.starts_with('[')) && json_ok(v))
    };
    // the key cannot be empty: a value at 0 is a record dumped without keys
    if value_at(0) && !KEY_STARTS[..9].iter().any(|k| s.starts_with(k)) {
        return Ok(KeyValue {
            key: None,
            value: value_of(s),
            span: (0, s.len()),
            keyless: true,
        });
    }
    for (p, _) in s
        .char_indices()
        .filter(|&(p, c)| p > 0 && (c == '{' || c == '[' || (c == 'n' && s.len() - p == 4)))
    {
        let prefix = &s[..p];
        let key = match sep {
            Some(sep) => match prefix.strip_suffix(sep) {
                Some(k) => k,
                None => continue,
            },
            None => match SEPARATORS.iter().find_map(|c| prefix.strip_suffix(c)) {
                Some(k) => k,
                None => continue,
            },
        };
        if key.is_empty() || !value_at(p) {
            continue;
        }
        return Ok(KeyValue {
            key: (key != "null").then(|| key.to_string()),
            value: value_of(&s[p..]),
            span: (0, s.len()),
            keyless: false,
        });
    }
    Err(match sep {
        Some(sep) => format!(
            "no `<key>{}<value>` with a JSON or null value",
            sep.escape_debug()
        ),
        None => "no key and JSON (or null) value".to_string(),
    })
}

fn json_ok(s: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()
}

fn value_of(v: &str) -> Option<String> {
    (v != "null").then(|| v.to_string())
}

struct KcatRecord {
    at: RecordRef,
    ts: Option<i64>,
    key: Option<String>,
    value: Option<String>,
    /// Byte offset of `key=` in the record's text.
    key_at: usize,
}

/// One record of kcat's documented format at the start of `d`, and the
/// bytes it took (its newline included).
fn kcat_record(d: &[u8]) -> Result<(KcatRecord, usize), String> {
    let mut p = 0usize;
    let field = |p: &mut usize, name: &str| -> Result<i64, String> {
        let rest = &d[*p..];
        let Some(r) = rest.strip_prefix(name.as_bytes()) else {
            return Err(format!("expected `{name}` (kcat's documented format)"));
        };
        let end = r
            .iter()
            .position(|&b| b == b' ')
            .ok_or_else(|| format!("no space after `{name}`"))?;
        let v = std::str::from_utf8(&r[..end])
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| format!("`{name}` is not a number"))?;
        *p += name.len() + end + 1;
        Ok(v)
    };
    let rest = d
        .strip_prefix(b"topic=")
        .ok_or("expected `topic=` (kcat's documented format)")?;
    let end = rest
        .iter()
        .position(|&b| b == b' ' || b == b'\n')
        .ok_or("no space after the topic")?;
    let topic = String::from_utf8_lossy(&rest[..end]).into_owned();
    p += 6 + end + 1;
    let partition = field(&mut p, "partition=")?;
    let offset = field(&mut p, "offset=")?;
    let ts = field(&mut p, "timestamp=")?;
    let key_at = p;
    let bytes = |p: &mut usize, name: &str| -> Result<Option<String>, String> {
        let rest = d[*p..]
            .strip_prefix(name.as_bytes())
            .ok_or_else(|| format!("expected `{name}<length>:`"))?;
        let colon = rest
            .iter()
            .take(12)
            .position(|&b| b == b':')
            .ok_or_else(|| format!("no `:` after the length of `{name}`"))?;
        let len: i64 = std::str::from_utf8(&rest[..colon])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("the length of `{name}` is not a number"))?;
        let start = *p + name.len() + colon + 1;
        let n = usize::try_from(len.max(0)).map_err(|_| "a length out of range")?;
        if start + n > d.len() {
            return Err(format!("`{name}` is shorter than its length {len}"));
        }
        *p = start + n;
        Ok((len >= 0).then(|| String::from_utf8_lossy(&d[start..start + n]).into_owned()))
    };
    let key = bytes(&mut p, "key=")?;
    let value = bytes(&mut p, " value=")?;
    match d.get(p) {
        Some(b'\n') => p += 1,
        None => {}
        Some(_) => {
            return Err("text after the value's length (not kcat's documented format)".into());
        }
    }
    Ok((
        KcatRecord {
            at: RecordRef {
                topic: Some(Arc::from(topic)),
                partition: Some(i32::try_from(partition).map_err(|_| "partition out of range")?),
                offset: Some(offset),
            },
            ts: (ts >= 0).then_some(ts),
            key,
            value,
            key_at,
        },
        p,
    ))
}

fn json_line(text: &str) -> Result<Parsed, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))?;
    let o = v.as_object().ok_or("not a JSON object")?;
    let int = |k: &str| o.get(k).and_then(serde_json::Value::as_i64);
    let text_of = |k: &str| -> Result<Option<String>, String> {
        match o.get(k) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(x @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => {
                Ok(Some(x.to_string()))
            }
            Some(_) => Err(format!("`{k}` is neither a string, JSON nor null")),
        }
    };
    if !o.contains_key("key") {
        return Err("no `key`".into());
    }
    let value_field = if o.contains_key("value") {
        "value"
    } else if o.contains_key("payload") {
        "payload"
    } else {
        return Err("no `value` (nor kcat's `payload`)".into());
    };
    let at = RecordRef {
        topic: o.get("topic").and_then(|t| t.as_str()).map(Arc::from),
        partition: int("partition").and_then(|p| i32::try_from(p).ok()),
        offset: int("offset"),
    };
    let ts = int("timestamp").or_else(|| int("ts")).filter(|&t| t >= 0);
    Ok((
        at,
        ts,
        KeyValue {
            key: text_of("key")?,
            value: text_of(value_field)?,
            span: (0, text.len()),
            keyless: false,
        },
    ))
}

#[cfg(test)]
mod tests;

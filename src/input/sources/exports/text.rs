//! Exports that are not JSON documents: `logcli query` default output,
//! `aws logs tail`, `journalctl -o export`, Fluent Bit's file output.

use super::fields::{self, Record};
use super::{Kind, rfc3339};
use nom::bytes::complete::{take_till1, take_while1};
use nom::character::complete::char;
use nom::multi::separated_list0;
use nom::sequence::delimited;
use nom::{IResult, Parser};
use serde_json::{Map, Value};

type Res<'a, T> = IResult<&'a [u8], T>;

/// A quoted label value (`"…"`, with `\"` and `\\` escapes).
fn quoted(i: &[u8]) -> Res<'_, String> {
    let (mut i, _) = char('"').parse(i)?;
    let mut out = Vec::new();
    loop {
        match i.first() {
            Some(b'"') => return Ok((&i[1..], String::from_utf8_lossy(&out).into_owned())),
            Some(b'\\') if i.len() > 1 => {
                out.push(i[1]);
                i = &i[2..];
            }
            Some(&c) => {
                out.push(c);
                i = &i[1..];
            }
            None => {
                return Err(nom::Err::Error(nom::error::Error::new(
                    i,
                    nom::error::ErrorKind::Char,
                )));
            }
        }
    }
}

fn label(i: &[u8]) -> Res<'_, (String, String)> {
    let (i, k) = take_while1(|b: u8| b.is_ascii_alphanumeric() || b == b'_').parse(i)?;
    let (i, _) = char('=').parse(i)?;
    let (i, v) = quoted(i)?;
    Ok((i, (String::from_utf8_lossy(k).into_owned(), v)))
}

/// `{a="b", c="d"}`.
pub fn labels(i: &[u8]) -> Res<'_, Vec<(String, String)>> {
    delimited(
        char('{'),
        separated_list0((char(','), nom::character::complete::space0), label),
        char('}'),
    )
    .parse(i)
}

/// A line of `logcli query` output: time stamp, labels, the log line.
pub type LokiLine<'a> = (&'a [u8], Vec<(String, String)>, &'a [u8]);

/// `<RFC3339Nano> {labels} <line>` (logcli pads the labels with blanks).
pub fn loki_line(l: &[u8]) -> Option<LokiLine<'_>> {
    // Blanks only: a line's own leading tab (a config dump's, a stack
    // frame's) is the line's.
    let (i, (ts, _, lbls, _)) = (rfc3339, char(' '), labels, take_while1(|b| b == b' '))
        .parse(l)
        .ok()?;
    Some((ts, lbls, i))
}

/// `<RFC3339> <log stream> <message>` (`aws logs tail`).
pub fn tail_line(l: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let (i, (ts, _, stream, _)) = (rfc3339, char(' '), take_till1(|b| b == b' '), char(' '))
        .parse(l)
        .ok()?;
    // `docker logs -t` and `kubectl logs --timestamps` put the record right
    // after the stamp: there the second word starts the record.
    let s = stream.first()?;
    if *s == b'[' || s.is_ascii_digit() || *s == b'{' {
        return None;
    }
    Some((ts, stream, i))
}

/// Does the message of an `aws logs tail` line start a log record?
pub fn tail_starts_record(l: &[u8]) -> bool {
    tail_line(l).is_some_and(|(_, _, m)| crate::layout::starts_record(m))
}

/// A `journalctl -o export` field line: `KEY=value`, or a binary field's
/// `KEY` alone.
pub fn export_field(l: &[u8]) -> bool {
    let key_end = memchr::memchr(b'=', l).unwrap_or(l.len());
    key_end > 0
        && l[..key_end]
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
}

/// Fluent Bit's file output: `<tag>: [<time>, {record}]`.
pub fn fluent_file_line(l: &[u8]) -> Option<(String, Value)> {
    let at = memchr::memmem::find(l, b": [")?;
    let tag = &l[..at];
    if tag.is_empty()
        || tag
            .iter()
            .any(|b| b.is_ascii_whitespace() || *b == b'{' || *b == b'"')
    {
        return None;
    }
    let v: Value = serde_json::from_slice(&l[at + 2..]).ok()?;
    let a = v.as_array()?;
    let (time, rec) = (a.first()?, a.get(1)?.as_object()?);
    // Fluent Bit 2.1+ prints `[[time, {metadata}], {record}]`.
    let time = match time {
        Value::Array(t) => t.first()?.clone(),
        t => t.clone(),
    };
    let mut rec = rec.clone();
    rec.insert("date".to_string(), time);
    rec.insert(
        "__tag".to_string(),
        Value::String(String::from_utf8_lossy(tag).into_owned()),
    );
    Some((
        String::from_utf8_lossy(tag).into_owned(),
        Value::Object(rec),
    ))
}

/// The records of a line-per-record text export; a line that is not a
/// record continues the message of the record before it (a multi-line
/// message printed as it is).
pub fn line_records(text: &str, kind: Kind) -> Vec<(u64, Record)> {
    let mut out: Vec<(u64, Record)> = Vec::new();
    for (n, l) in text.split('\n').enumerate() {
        let l = l.strip_suffix('\r').unwrap_or(l);
        let b = l.as_bytes();
        let value = match kind {
            Kind::LokiDefault => loki_line(b).map(|(ts, lbls, line)| {
                let labels: Map<String, Value> = lbls
                    .into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect();
                serde_json::json!({
                    "timestamp": String::from_utf8_lossy(ts),
                    "line": String::from_utf8_lossy(line),
                    "labels": labels,
                })
            }),
            Kind::CloudWatchTail => tail_line(b).map(|(ts, stream, msg)| {
                serde_json::json!({
                    "timestamp": String::from_utf8_lossy(ts),
                    "logStreamName": String::from_utf8_lossy(stream),
                    "message": String::from_utf8_lossy(msg),
                })
            }),
            _ => fluent_file_line(b).map(|(_, v)| v),
        };
        match value.and_then(|v| fields::record(&v)) {
            Some(r) => out.push((n as u64 + 1, r)),
            None if l.is_empty() => {}
            None => {
                if let Some((_, prev)) = out.last_mut() {
                    prev.text.push('\n');
                    prev.text.push_str(l);
                }
            }
        }
    }
    out
}

/// The entries of `journalctl -o export`: fields `KEY=value` or binary
/// (`KEY`, a little-endian 64-bit length, the bytes, a newline), entries
/// apart by an empty line.
pub fn journal_export(data: &[u8]) -> Vec<(u64, Record)> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut line = 1u64;
    let mut entry = Map::new();
    let mut entry_line = 1u64;
    let flush = |entry: &mut Map<String, Value>, at: u64, out: &mut Vec<(u64, Record)>| {
        if !entry.is_empty() {
            let v = Value::Object(std::mem::take(entry));
            if let Some(r) = fields::record(&v) {
                out.push((at, r));
            }
        }
    };
    while pos < data.len() {
        let end = memchr::memchr(b'\n', &data[pos..]).map_or(data.len(), |i| pos + i);
        let l = &data[pos..end];
        if l.is_empty() {
            flush(&mut entry, entry_line, &mut out);
            pos = end + 1;
            line += 1;
            continue;
        }
        if entry.is_empty() {
            entry_line = line;
        }
        if let Some(eq) = memchr::memchr(b'=', l) {
            let key = String::from_utf8_lossy(&l[..eq]).into_owned();
            let value = String::from_utf8_lossy(&l[eq + 1..]).into_owned();
            entry.insert(key, Value::String(value));
            pos = end + 1;
            line += 1;
            continue;
        }
        // A binary field.
        let key = String::from_utf8_lossy(l).into_owned();
        let at = end + 1;
        let Some(len_bytes) = data.get(at..at + 8) else {
            break;
        };
        let len = u64::from_le_bytes(len_bytes.try_into().expect("eight bytes")) as usize;
        let Some(value) = data.get(at + 8..(at + 8).saturating_add(len)) else {
            break;
        };
        line +=
            1 + bytecount::count(len_bytes, b'\n') as u64 + bytecount::count(value, b'\n') as u64;
        entry.insert(
            key,
            Value::String(String::from_utf8_lossy(value).into_owned()),
        );
        pos = at + 8 + len;
        if data.get(pos) == Some(&b'\n') {
            pos += 1;
            line += 1;
        }
    }
    flush(&mut entry, entry_line, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loki_default_lines() {
        let (ts, l, line) = loki_line(
            br#"2025-03-04T10:15:00.123456789Z {container="connect", pod="c-0"}   [x] INFO y"#,
        )
        .unwrap();
        assert_eq!(ts, b"2025-03-04T10:15:00.123456789Z");
        assert_eq!(
            l,
            vec![
                ("container".into(), "connect".into()),
                ("pod".into(), "c-0".into())
            ]
        );
        assert_eq!(line, b"[x] INFO y");
        assert!(loki_line(b"2025-03-04T10:15:00Z [x] INFO y").is_none());
        let (_, _, line) = loki_line(b"2025-03-04T10:15:00Z {a=\"b\"}  \tkey = v").unwrap();
        assert_eq!(line, b"\tkey = v");
        assert_eq!(labels(br#"{a="q\"x"}"#).unwrap().1[0].1, "q\"x");
    }

    #[test]
    fn tail_lines() {
        let l =
            b"2025-03-04T10:15:00.123000+00:00 connect/c/1 [2025-03-04 10:15:00,123] INFO x (a.B)";
        assert_eq!(tail_line(l).unwrap().1, b"connect/c/1");
        assert!(tail_starts_record(l));
        assert!(tail_line(b"2025-03-04T10:15:00.1Z [2025-03-04 10:15:00,123] INFO x").is_none());
    }

    #[test]
    fn fluent_file_lines() {
        let (tag, v) =
            fluent_file_line(br#"kube.connect: [1709547300.25, {"log":"x\n"}]"#).unwrap();
        assert_eq!(tag, "kube.connect");
        assert_eq!(v["date"], serde_json::json!(1709547300.25));
        assert!(fluent_file_line(br#"{"a": [1]}"#).is_none());
        assert!(fluent_file_line(br#"x: [[1.5, {}], {"log":"y"}]"#).is_some());
    }

    #[test]
    fn journal_export_entries() {
        let mut d =
            b"__CURSOR=s=1;i=2\n__REALTIME_TIMESTAMP=1709547300000001\nMESSAGE=one\n\n".to_vec();
        d.extend_from_slice(b"__CURSOR=s=1;i=3\n__REALTIME_TIMESTAMP=1709547300000002\nMESSAGE\n");
        d.extend_from_slice(&8u64.to_le_bytes());
        d.extend_from_slice(b"two\nmore\n_HOSTNAME=h\n");
        let r = journal_export(&d);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].0, r[0].1.text.as_str()), (1, "one"));
        assert_eq!((r[1].0, r[1].1.text.as_str()), (5, "two\nmore"));
        assert_eq!(r[1].1.place.seq, Some(3));
        assert!(
            export_field(b"_SYSTEMD_UNIT=x")
                && export_field(b"MESSAGE")
                && !export_field(b"[x] INFO")
        );
    }

    #[test]
    fn continuation_lines_join_their_record() {
        let t =
            "2025-03-04T10:15:00.123000+00:00 s [2025-03-04 10:15:00,123] ERROR x (a.B)\n\tat y\n";
        let r = line_records(t, Kind::CloudWatchTail);
        assert_eq!(r.len(), 1);
        assert_eq!(
            r[0].1.text,
            "[2025-03-04 10:15:00,123] ERROR x (a.B)\n\tat y"
        );
    }
}

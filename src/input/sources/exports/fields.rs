//! The fields of an export record, by the names each store and collector
//! gives them (flat dotted keys or nested objects alike).

use super::super::order::Place;
use crate::model::Timestamp;
use crate::time::iso_nanos;
use serde_json::Value;

/// One record of an export.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub place: Place,
    /// What names the record's source (`pod/<pod>/<container>`,
    /// `host/<host>/<unit>`, `stream/<log stream>`, `file/<path>`, …).
    pub source: Option<String>,
    /// The log line (a record head, a stack frame, a JSON layout's line).
    pub text: String,
}

/// The field at a dotted path: a flat `a.b.c` key or nested objects, in
/// any mix.
pub fn get<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    if let Some(x) = v.get(path) {
        return Some(x);
    }
    for (i, _) in path.match_indices('.') {
        if let Some(sub) = v.get(&path[..i])
            && let Some(x) = get(sub, &path[i + 1..])
        {
            return Some(x);
        }
    }
    None
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        // journald's non-UTF-8 or binary MESSAGE: an array of bytes.
        Value::Array(a) if a.iter().all(|x| x.as_u64().is_some_and(|b| b < 256)) => {
            let bytes: Vec<u8> = a
                .iter()
                .filter_map(|x| x.as_u64())
                .map(|b| b as u8)
                .collect();
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
        _ => None,
    }
}

fn first_text(v: &Value, paths: &[&str]) -> Option<String> {
    paths
        .iter()
        .find_map(|p| get(v, p).and_then(text_of))
        .filter(|s| !s.is_empty())
}

/// A number of seconds, milliseconds, microseconds or nanoseconds since the
/// epoch, told by its size.
fn epoch_nanos(v: &Value) -> Option<(i128, bool)> {
    if let Some(s) = v.as_str() {
        if let Some(t) = iso_nanos(s) {
            return Some(t);
        }
        let n: i128 = s.parse().ok()?;
        return Some(scale(n));
    }
    if let Some(n) = v.as_i64() {
        return Some(scale(i128::from(n)));
    }
    let f = v.as_f64()?;
    // Fractional seconds (Fluent Bit's `date`).
    let ns = (f * 1e9).round() as i128;
    Some((ns, f.fract() != 0.0))
}

fn scale(n: i128) -> (i128, bool) {
    if n > 100_000_000_000_000_000 {
        (n, true)
    } else if n > 100_000_000_000_000 {
        (n * 1_000, true)
    } else if n > 100_000_000_000 {
        (n * 1_000_000, false)
    } else {
        (n * 1_000_000_000, false)
    }
}

/// journald's cursor `s=…;i=<seqnum hex>;…`.
fn cursor_seq(c: &str) -> Option<u64> {
    c.split(';')
        .find_map(|kv| kv.strip_prefix("i="))
        .and_then(|h| u64::from_str_radix(h, 16).ok())
}

fn seq_of(v: &Value) -> Option<u64> {
    if let Some(s) = get(v, "__SEQNUM").and_then(text_of) {
        return s.parse().ok();
    }
    if let Some(c) = v.get("__CURSOR").and_then(Value::as_str) {
        return cursor_seq(c);
    }
    let off = get(v, "log.offset").or_else(|| v.get("offset"))?;
    off.as_u64().or_else(|| off.as_str()?.parse().ok())
}

/// The fields that name a record's source, most telling first.
fn source_of(v: &Value) -> Option<String> {
    let t = |paths: &[&str]| first_text(v, paths);
    let pod = t(&[
        "kubernetes.pod.name",
        "kubernetes.pod_name",
        "labels.pod",
        "labels.pod_name",
    ]);
    let container = t(&[
        "kubernetes.container.name",
        "kubernetes.container_name",
        "labels.container",
        "labels.container_name",
    ]);
    if let Some(p) = pod {
        return Some(match container {
            Some(c) => format!("pod/{p}/{c}"),
            None => format!("pod/{p}"),
        });
    }
    let host = t(&[
        "host.name",
        "host.hostname",
        "_HOSTNAME",
        "kubernetes.host",
        "labels.host",
        "labels.hostname",
        "labels.instance",
    ])
    .or_else(|| v.get("host").and_then(Value::as_str).map(str::to_string));
    let unit = t(&[
        "CONTAINER_NAME",
        "_SYSTEMD_UNIT",
        "SYSLOG_IDENTIFIER",
        "container.name",
    ]);
    if let Some(u) = unit {
        return Some(match host {
            Some(h) => format!("host/{h}/{u}"),
            None => format!("unit/{u}"),
        });
    }
    if let Some(s) = t(&["logStreamName"]) {
        return Some(format!("stream/{s}"));
    }
    if let Some(f) = t(&["log.file.path", "labels.filename", "file"]) {
        return Some(format!("file/{f}"));
    }
    if let Some(tag) = t(&["__tag"]) {
        return Some(format!("tag/{tag}"));
    }
    if let Some(h) = host {
        return Some(format!("host/{h}"));
    }
    let labels = v.get("labels")?.as_object()?;
    let joined: Vec<String> = labels
        .iter()
        .filter_map(|(k, x)| Some(format!("{k}={}", x.as_str()?)))
        .collect();
    (!joined.is_empty()).then(|| format!("labels/{}", joined.join(",")))
}

/// 9999-12-31T23:59:59.999999999Z in nanoseconds since the epoch.
const MAX_NANOS: i128 = 253_402_300_799_999_999_999;

/// A record of a JSON export, or `None` when the value carries no log line.
pub fn record(v: &Value) -> Option<Record> {
    // A hit: the document is its `_source` (`sort` and `_id` aside).
    if let Some(src) = v.get("_source") {
        return record(src);
    }
    let raw = first_text(v, &["MESSAGE", "line", "message", "log", "msg", "@message"])?;
    let raw = match raw.strip_suffix('\n') {
        Some(t) => t.strip_suffix('\r').unwrap_or(t).to_string(),
        None => raw,
    };
    let (ts, fine) = [
        "__REALTIME_TIMESTAMP",
        "@timestamp",
        "timestamp",
        "date",
        "time",
        "ts",
    ]
    .iter()
    .find_map(|p| get(v, p).and_then(epoch_nanos))
    // From the epoch to the year 9999: other numbers are no time stamp.
    .filter(|(t, _)| (0..=MAX_NANOS).contains(t))
    .map_or((None, false), |(t, f)| (Some(t), f));
    let place = Place {
        ts,
        fine,
        seq: seq_of(v),
    };
    Some(Record {
        place,
        source: source_of(v),
        text: line_of(v, raw, ts),
    })
}

/// The log line of a record: the message itself when it is a whole line
/// (a record head, a JSON layout's line, a stack frame, a line without a
/// level); a structured record (level and logger in fields of their own,
/// as a log4j JSON layout ships them) is written as a classic line.
fn line_of(v: &Value, message: String, ts: Option<i128>) -> String {
    let first = message.split('\n').next().unwrap_or_default();
    if crate::layout::starts_record(first.as_bytes()) {
        return message;
    }
    let level = first_text(v, &["log.level", "level", "severity", "levelname"]);
    let logger = first_text(
        v,
        &[
            "log.logger",
            "logger_name",
            "loggerName",
            "logger",
            "logger.name",
        ],
    );
    let (Some(level), Some(ts)) = (level, ts) else {
        return message;
    };
    let ms = Timestamp((ts.div_euclid(1_000_000)) as i64);
    let logger = logger.map(|l| format!(" ({l})")).unwrap_or_default();
    let (head, rest) = match message.split_once('\n') {
        Some((h, r)) => (h, Some(r)),
        None => (message.as_str(), None),
    };
    let mut line = format!("[{ms}] {} {head}{logger}", level.to_ascii_uppercase());
    if let Some(r) = rest {
        line.push('\n');
        line.push_str(r);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dotted_or_nested() {
        let v = json!({"a": {"b.c": 1}, "x.y": 2, "p": {"q": {"r": 3}}});
        assert_eq!(get(&v, "a.b.c"), Some(&json!(1)));
        assert_eq!(get(&v, "x.y"), Some(&json!(2)));
        assert_eq!(get(&v, "p.q.r"), Some(&json!(3)));
        assert_eq!(get(&v, "p.z"), None);
    }

    #[test]
    fn epoch_numbers() {
        assert_eq!(scale(1_709_547_300_123).0, 1_709_547_300_123_000_000);
        assert_eq!(scale(1_709_547_300_123_456).0, 1_709_547_300_123_456_000);
        assert_eq!(
            epoch_nanos(&json!(1709547300.5)).unwrap(),
            (1_709_547_300_500_000_000, true)
        );
        assert_eq!(
            epoch_nanos(&json!("1709547300123456")).unwrap().0,
            1_709_547_300_123_456_000
        );
    }

    #[test]
    fn sources() {
        let v = json!({"kubernetes": {"pod": {"name": "c-0"}, "container": {"name": "connect"}}, "host": {"name": "n1"}});
        assert_eq!(source_of(&v).as_deref(), Some("pod/c-0/connect"));
        let v = json!({"_HOSTNAME": "n1", "_SYSTEMD_UNIT": "connect.service"});
        assert_eq!(source_of(&v).as_deref(), Some("host/n1/connect.service"));
        let v = json!({"logStreamName": "connect/a/1"});
        assert_eq!(source_of(&v).as_deref(), Some("stream/connect/a/1"));
        let v = json!({"labels": {"job": "connect"}});
        assert_eq!(source_of(&v).as_deref(), Some("labels/job=connect"));
        assert_eq!(source_of(&json!({})), None);
    }

    #[test]
    fn records() {
        let v = json!({"__CURSOR": "s=1;i=1f;b=2", "__REALTIME_TIMESTAMP": "1709547300123456", "MESSAGE": "[2024-03-04 10:15:00,123] INFO x (a.B)", "_HOSTNAME": "n"});
        let r = record(&v).unwrap();
        assert_eq!(r.place.seq, Some(31));
        assert!(r.place.fine);
        assert_eq!(r.text, "[2024-03-04 10:15:00,123] INFO x (a.B)");
        let v = json!({"_source": {"@timestamp": "2024-03-04T10:15:00.123Z", "message": "Stopping task a-0", "log": {"level": "info", "logger": "org.apache.kafka.connect.runtime.Worker", "offset": 7}}});
        let r = record(&v).unwrap();
        assert_eq!(
            r.text,
            "[2024-03-04 10:15:00,123] INFO Stopping task a-0 (org.apache.kafka.connect.runtime.Worker)"
        );
        assert_eq!(r.place.seq, Some(7));
        let v = json!({"log": "\tat x.Y(Y.java:1)\n", "date": 1.5});
        assert_eq!(record(&v).unwrap().text, "\tat x.Y(Y.java:1)");
        assert!(record(&json!({"a": 1})).is_none());
        // Absurd stamps are none (and never printed).
        let v = json!({"@timestamp": 1e300, "message": "x", "level": "INFO"});
        assert_eq!(record(&v).unwrap().place.ts, None);
        let v = json!({"@timestamp": -5, "message": "x", "level": "INFO"});
        assert_eq!(record(&v).unwrap().text, "x");
    }
}

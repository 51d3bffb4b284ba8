//! JSON-lines layouts, normalised to a classic log4j line that
//! [`super::envelope`] then reads: JSON layouts carrying a message, a logger, a level and a time stamp:
//!   log4j2 `JsonTemplateLayout`/ECS (`@timestamp`, `log.level`, `log.logger`,
//!   `message`), logstash-style (`@timestamp`, `level`, `logger_name`,
//!   `message`), log4j2 `JsonLayout` (`instant`/`timeMillis`, `level`,
//!   `loggerName`, `message`).
//!
//! Other JSON lines (no message) are not log records. (A Docker json-file
//! line, `{"log":…}`, is no layout but an envelope: see
//! `src/input/sources/`.)

use crate::model::Timestamp;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

#[derive(Deserialize)]
struct Instant {
    #[serde(rename = "epochSecond")]
    epoch_second: i64,
    #[serde(rename = "nanoOfSecond", default)]
    nano_of_second: i64,
}

#[derive(Deserialize)]
struct JsonLine<'a> {
    #[serde(
        borrow,
        default,
        alias = "msg",
        alias = "@message",
        alias = "short_message"
    )]
    message: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        default,
        alias = "logger_name",
        alias = "loggerName",
        alias = "log.logger",
        alias = "logger.name",
        alias = "_logger"
    )]
    logger: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        default,
        alias = "log.level",
        alias = "severity",
        alias = "levelname"
    )]
    level: Option<Cow<'a, str>>,
    #[serde(
        default,
        rename = "@timestamp",
        alias = "timestamp",
        alias = "time",
        alias = "ts"
    )]
    timestamp: Option<Value>,
    #[serde(default)]
    instant: Option<Instant>,
    #[serde(default, rename = "timeMillis")]
    time_millis: Option<i64>,
}

/// A time stamp field: an ISO-8601/log4j string (zone ignored) or epoch
/// milliseconds.
fn timestamp_value(v: &Value) -> Option<Timestamp> {
    match v {
        Value::String(s) => {
            if let Some((ts, _)) = crate::time::log4j(s.as_bytes()) {
                return ts;
            }
            // Second precision: `2024-05-01T10:00:00Z`.
            let s19 = s.get(..19)?;
            crate::time::log4j(format!("{s19}.000").as_bytes()).and_then(|(t, _)| t)
        }
        Value::Number(n) => {
            let ms = n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| (f * 1000.0) as i64))?;
            // Seconds or milliseconds since the epoch.
            Some(Timestamp(if ms < 100_000_000_000 { ms * 1000 } else { ms }))
        }
        _ => None,
    }
}

/// The classic line a JSON line stands for, or `None` when it is not JSON
/// or not a log record.
pub fn to_classic(line: &str) -> Option<String> {
    let start = line.find('{')?;
    let json = line[start..].trim_end();
    let rec: JsonLine = serde_json::from_str(json).ok()?;
    let message = rec.message?;
    let message = message.lines().next().unwrap_or("");
    let ts = rec
        .timestamp
        .as_ref()
        .and_then(timestamp_value)
        .or_else(|| {
            rec.instant
                .as_ref()
                .map(|i| Timestamp(i.epoch_second * 1000 + i.nano_of_second / 1_000_000))
        })
        .or(rec.time_millis.map(Timestamp))?;
    let level = rec.level.as_deref().unwrap_or("INFO").to_ascii_uppercase();
    let logger = rec.logger.map(|l| format!(" ({l})")).unwrap_or_default();
    Some(format!(
        "{}[{ts}] {level} {message}{logger}",
        &line[..start]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Level, envelope};

    fn env_of(line: &str) -> (String, Option<String>, String, Level) {
        let c = to_classic(line).unwrap_or_else(|| panic!("not a record: {line}"));
        let e = envelope(&c).unwrap_or_else(|| panic!("no envelope: {c}"));
        (
            e.ts.map(|t| t.to_string()).unwrap_or_default(),
            e.logger.map(str::to_string),
            e.message.to_string(),
            e.level,
        )
    }

    #[test]
    fn ecs_layout() {
        let l = r#"{"@timestamp":"2024-05-01T10:00:00.123Z","ecs.version":"1.2.0","log.level":"INFO","message":"[Worker clientId=connect-1, groupId=g] Joined group at generation 3 with protocol version 2 and got assignment: Assignment{error=0, leader='l', leaderUrl='http://l:8083/', offset=5, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0} with rebalance delay: 0","process.thread.name":"DistributedHerder-connect-1-1","log.logger":"org.apache.kafka.connect.runtime.distributed.DistributedHerder"}"#;
        let (ts, logger, msg, lvl) = env_of(l);
        assert_eq!(ts, "2024-05-01 10:00:00,123");
        assert_eq!(lvl, Level::Info);
        assert!(logger.unwrap().ends_with("DistributedHerder"));
        assert!(msg.starts_with("Joined group at generation 3"), "{msg}");
    }

    #[test]
    fn logstash_and_log4j2_layouts() {
        let l = r#"{"@timestamp":"2024-05-01T10:00:00.123+02:00","@version":"1","message":"Stopping task a-0","logger_name":"org.apache.kafka.connect.runtime.Worker","thread_name":"pool-1","level":"INFO","level_value":20000}"#;
        let (ts, logger, msg, _) = env_of(l);
        assert_eq!(ts, "2024-05-01 10:00:00,123");
        assert_eq!(
            logger.as_deref(),
            Some("org.apache.kafka.connect.runtime.Worker")
        );
        assert_eq!(msg, "Stopping task a-0");

        let l = r#"{"instant":{"epochSecond":1714557600,"nanoOfSecond":123000000},"thread":"main","level":"WARN","loggerName":"org.apache.kafka.connect.runtime.distributed.DistributedHerder","message":"Catching up to assignment's config offset.","endOfBatch":false}"#;
        let (ts, _, msg, lvl) = env_of(l);
        assert_eq!(ts, "2024-05-01 10:00:00,123");
        assert_eq!(lvl, Level::Warn);
        assert_eq!(msg, "Catching up to assignment's config offset.");

        let l = r#"{"timeMillis":1714557600123,"level":"info","loggerName":"org.apache.kafka.connect.runtime.Worker","message":"Creating task a-0"}"#;
        let (ts, _, msg, _) = env_of(l);
        assert_eq!(ts, "2024-05-01 10:00:00,123");
        assert_eq!(msg, "Creating task a-0");
    }

    #[test]
    fn second_precision_and_prefixes() {
        let l = r#"[pod/connect-0/connect] {"@timestamp":"2024-05-01T10:00:00Z","level":"INFO","message":"Herder starting","logger":"org.apache.kafka.connect.runtime.distributed.DistributedHerder"}"#;
        let c = to_classic(l).unwrap();
        let e = envelope(&c).unwrap();
        assert_eq!(e.stream, Some("pod/connect-0/connect"));
        assert_eq!(e.ts.unwrap().to_string(), "2024-05-01 10:00:00,000");
    }

    #[test]
    fn other_json_is_not_a_record() {
        assert!(to_classic(r#"{"a":1}"#).is_none());
        assert!(to_classic(r#"{"message":"x"}"#).is_none(), "no time stamp");
        assert!(to_classic("{not json").is_none());
        assert!(to_classic("plain").is_none());
        assert!(to_classic(r#"{"message":"x","@timestamp":[1]}"#).is_none());
    }
}

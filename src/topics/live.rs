//! The internal topics read from a running cluster: every partition from
//! its earliest offset to its end, by offset, with `rskafka` (a pure-Rust
//! client: no consumer group is joined, no offset is committed, nothing is
//! written). docs/topics.md, "Reading a running cluster", says which
//! security protocols work.
//!
//! [`LiveReader`] keeps its position in every partition it has read, so a
//! long-running user (`herder-audit watch`) calls [`LiveReader::poll`]
//! again for what was written since.

use super::{RawRecord, RecordRef};
use crate::model::{SourceId, SourceLine};
use rskafka::client::partition::{OffsetAt, UnknownTopicHandling};
use rskafka::client::{Client, ClientBuilder, Credentials, SaslConfig};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How to reach the cluster.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Connection {
    /// `host:port` of one or more brokers.
    pub bootstrap: Vec<String>,
    pub security: Security,
}

/// The security protocols this reader speaks.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum Security {
    /// PLAINTEXT.
    #[default]
    Plaintext,
    /// SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
    SaslPlaintext {
        mechanism: Mechanism,
        username: String,
        password: String,
    },
}

impl std::fmt::Debug for Security {
    /// Never prints the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Security::Plaintext => f.write_str("Plaintext"),
            Security::SaslPlaintext {
                mechanism,
                username,
                ..
            } => write!(f, "SaslPlaintext({mechanism:?}, user {username:?})"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    Plain,
    ScramSha256,
    ScramSha512,
}

impl Security {
    /// From `security.protocol`, `sasl.mechanism`, `sasl.username` and
    /// `sasl.password` (or the username and password of a
    /// `sasl.jaas.config` line), as a Kafka client properties file or
    /// the environment gives them (docs/topics.md).
    pub fn from_properties(get: impl Fn(&str) -> Option<String>) -> Result<Security, String> {
        let protocol = get("security.protocol").unwrap_or_else(|| "PLAINTEXT".into());
        match protocol.trim().to_ascii_uppercase().as_str() {
            "PLAINTEXT" => Ok(Security::Plaintext),
            "SASL_PLAINTEXT" => {
                let mech = get("sasl.mechanism").unwrap_or_else(|| "PLAIN".into());
                let mechanism = match mech.trim().to_ascii_uppercase().as_str() {
                    "PLAIN" => Mechanism::Plain,
                    "SCRAM-SHA-256" => Mechanism::ScramSha256,
                    "SCRAM-SHA-512" => Mechanism::ScramSha512,
                    other => {
                        return Err(format!(
                            "sasl.mechanism {other} is not supported (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 are)"
                        ));
                    }
                };
                let jaas = get("sasl.jaas.config").unwrap_or_default();
                let username = get("sasl.username")
                    .or_else(|| jaas_field(&jaas, "username"))
                    .ok_or("SASL_PLAINTEXT needs sasl.username (or a sasl.jaas.config with username=\"…\")")?;
                let password = get("sasl.password")
                    .or_else(|| jaas_field(&jaas, "password"))
                    .ok_or("SASL_PLAINTEXT needs sasl.password (or a sasl.jaas.config with password=\"…\")")?;
                Ok(Security::SaslPlaintext {
                    mechanism,
                    username,
                    password,
                })
            }
            other => Err(format!(
                "security.protocol {other} is not supported yet (PLAINTEXT and SASL_PLAINTEXT are; SSL and SASL_SSL are not)"
            )),
        }
    }
}

/// `name="value"` in a JAAS line.
fn jaas_field(jaas: &str, name: &str) -> Option<String> {
    let at = jaas.find(&format!("{name}=\""))? + name.len() + 2;
    let end = jaas[at..].find('"')?;
    Some(jaas[at..at + end].to_string())
}

/// Reads a Java properties file's `key=value` (or `key: value`) lines.
/// A key given twice keeps its last value.
pub fn read_properties(text: &str) -> BTreeMap<String, String> {
    // `insert`, not `collect`: collecting into a `BTreeMap` compiles a
    // sort of its own for this one place.
    let mut out = BTreeMap::new();
    for l in text.lines().map(str::trim) {
        if l.is_empty() || l.starts_with('#') || l.starts_with('!') {
            continue;
        }
        if let Some(i) = l.find(['=', ':']) {
            out.insert(l[..i].trim().to_string(), l[i + 1..].trim().to_string());
        }
    }
    out
}

/// A connection to a cluster and the position reached in each partition.
pub struct LiveReader {
    rt: tokio::runtime::Runtime,
    client: Client,
    /// (topic, partition) → next offset to read.
    positions: BTreeMap<(String, i32), i64>,
    /// Records read so far per topic (their line numbers).
    counts: BTreeMap<String, u64>,
    /// How long one fetch waits for records.
    pub max_wait: Duration,
}

/// What went wrong talking to the cluster, in words.
fn err(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

impl LiveReader {
    /// Connects (nothing is read yet).
    pub fn connect(c: &Connection) -> Result<LiveReader, String> {
        if c.bootstrap.is_empty() {
            return Err("no bootstrap broker given".into());
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| err("cannot start the I/O runtime", e))?;
        // A broker that is down or goes away: each request gives up after
        // a while (rskafka's default retries for ever), so that a caller
        // can say so and try again (`herder-audit watch`).
        let backoff = rskafka::BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 3.0,
            deadline: Some(Duration::from_secs(10)),
        };
        let mut b = ClientBuilder::new(c.bootstrap.clone())
            .client_id("herder-audit")
            .backoff_config(backoff);
        if let Security::SaslPlaintext {
            mechanism,
            username,
            password,
        } = &c.security
        {
            let cred = Credentials::new(username.clone(), password.clone());
            b = b.sasl_config(match mechanism {
                Mechanism::Plain => SaslConfig::Plain(cred),
                Mechanism::ScramSha256 => SaslConfig::ScramSha256(cred),
                Mechanism::ScramSha512 => SaslConfig::ScramSha512(cred),
            });
        }
        let bootstrap = c.bootstrap.join(",");
        let client = rt
            .block_on(async { tokio::time::timeout(Duration::from_secs(30), b.build()).await })
            .map_err(|_| format!("{bootstrap}: no answer from the cluster in 30 s"))?
            .map_err(|e| err(&bootstrap, e))?;
        Ok(LiveReader {
            rt,
            client,
            positions: BTreeMap::new(),
            counts: BTreeMap::new(),
            max_wait: Duration::from_millis(200),
        })
    }

    /// The partitions of a topic; an error when the cluster has no such
    /// topic.
    pub fn partitions(&self, topic: &str) -> Result<Vec<i32>, String> {
        let topics = self
            .rt
            .block_on(self.client.list_topics())
            .map_err(|e| err("cannot list the topics", e))?;
        topics
            .into_iter()
            .find(|t| t.name == topic)
            .map(|t| t.partitions.into_iter().collect())
            .ok_or_else(|| format!("the cluster has no topic {topic}"))
    }

    /// Every record of `topic` from where the last call stopped (the first
    /// time: each partition's earliest offset) up to each partition's end
    /// as it is now; `source` names the records' input.
    pub fn poll(&mut self, topic: &str, source: SourceId) -> Result<Vec<RawRecord>, String> {
        let mut out = Vec::new();
        let topic_name: Arc<str> = Arc::from(topic);
        for p in self.partitions(topic)? {
            let pc = self
                .rt
                .block_on(
                    self.client
                        .partition_client(topic, p, UnknownTopicHandling::Error),
                )
                .map_err(|e| err(&format!("{topic}[{p}]"), e))?;
            let end = self
                .rt
                .block_on(pc.get_offset(OffsetAt::Latest))
                .map_err(|e| err(&format!("{topic}[{p}]: end offset"), e))?;
            let key = (topic.to_string(), p);
            let mut next = match self.positions.get(&key) {
                Some(&o) => o,
                None => self
                    .rt
                    .block_on(pc.get_offset(OffsetAt::Earliest))
                    .map_err(|e| err(&format!("{topic}[{p}]: earliest offset"), e))?,
            };
            let wait = i32::try_from(self.max_wait.as_millis()).unwrap_or(i32::MAX);
            while next < end {
                let (records, _high) = self
                    .rt
                    .block_on(pc.fetch_records(next, 1..4 * 1024 * 1024, wait))
                    .map_err(|e| err(&format!("{topic}[{p}]@{next}"), e))?;
                if records.is_empty() {
                    // past the records (transaction markers, compacted gaps)
                    break;
                }
                for r in records {
                    if r.offset < next {
                        continue;
                    }
                    next = r.offset + 1;
                    let n = self.counts.entry(topic.to_string()).or_default();
                    *n += 1;
                    out.push(raw(
                        &topic_name,
                        p,
                        r.offset,
                        r.record.timestamp.timestamp_millis(),
                        r.record.key.as_deref(),
                        r.record.value.as_deref(),
                        source,
                        *n,
                    ));
                }
            }
            self.positions.insert(key, next.max(end));
        }
        Ok(out)
    }
}

/// A record read live, its line the record in kcat's documented shape.
#[allow(clippy::too_many_arguments)]
fn raw(
    topic: &Arc<str>,
    partition: i32,
    offset: i64,
    ts: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    source: SourceId,
    n: u64,
) -> RawRecord {
    let text_of = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
    let (key, value) = (text_of(key), text_of(value));
    let len = |s: &Option<String>| s.as_ref().map_or(-1, |s| s.len() as i64);
    let head = format!("topic={topic} partition={partition} offset={offset} timestamp={ts} ");
    let text = format!(
        "{head}key={}:{} value={}:{}",
        len(&key),
        key.as_deref().unwrap_or(""),
        len(&value),
        value.as_deref().unwrap_or("")
    );
    let ts = (ts >= 0).then_some(ts);
    RawRecord {
        at: RecordRef {
            topic: Some(topic.clone()),
            partition: Some(partition),
            offset: Some(offset),
        },
        timestamp: ts,
        line: SourceLine {
            source,
            line: n,
            seq: n,
            ts: super::record_time(ts),
            msg: (head.len() as u32, text.len() as u32),
            text: Arc::from(text),
        },
        key,
        value,
    }
}

/// The environment variable of a client property
/// (`sasl.username` → `HERDER_AUDIT_KAFKA_SASL_USERNAME`).
fn env_name(property: &str) -> String {
    format!(
        "HERDER_AUDIT_KAFKA_{}",
        property.replace('.', "_").to_ascii_uppercase()
    )
}

/// How to reach the brokers of `bootstrap` (`host:port`, comma-separated),
/// the security settings from the environment (`HERDER_AUDIT_KAFKA_…`)
/// or else a client properties file: never from the command line.
pub fn connect_to(
    bootstrap: &str,
    kafka_config: Option<&std::path::Path>,
) -> Result<Connection, String> {
    let file = match kafka_config {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("{}: {}", p.display(), crate::input::describe(&e)))?;
            read_properties(&text)
        }
        None => Default::default(),
    };
    let security = Security::from_properties(|k| {
        std::env::var(env_name(k))
            .ok()
            .or_else(|| file.get(k).cloned())
    })
    .map_err(|e| match kafka_config {
        Some(p) => format!("{}: {e}", p.display()),
        None => e,
    })?;
    Ok(Connection {
        bootstrap: bootstrap
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        security,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_from_properties() {
        let props = |pairs: &[(&str, &str)]| {
            let m: BTreeMap<String, String> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Security::from_properties(move |k| m.get(k).cloned())
        };
        assert_eq!(props(&[]), Ok(Security::Plaintext));
        assert_eq!(
            props(&[
                ("security.protocol", "SASL_PLAINTEXT"),
                ("sasl.mechanism", "SCRAM-SHA-512"),
                (
                    "sasl.jaas.config",
                    r#"org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p w";"#
                ),
            ]),
            Ok(Security::SaslPlaintext {
                mechanism: Mechanism::ScramSha512,
                username: "u".into(),
                password: "p w".into()
            })
        );
        let e = props(&[("security.protocol", "SASL_SSL")]).unwrap_err();
        assert!(e.contains("not supported yet"), "{e}");
        assert!(props(&[("security.protocol", "SASL_PLAINTEXT")]).is_err());
        let shown = format!(
            "{:?}",
            Security::SaslPlaintext {
                mechanism: Mechanism::Plain,
                username: "u".into(),
                password: "secret".into()
            }
        );
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn properties_files() {
        let p = read_properties("# c\nsecurity.protocol = SASL_PLAINTEXT\nsasl.username: me\n\n");
        assert_eq!(p["security.protocol"], "SASL_PLAINTEXT");
        assert_eq!(p["sasl.username"], "me");
    }

    #[test]
    fn a_live_record_reads_back_as_a_kcat_line() {
        let r = raw(
            &Arc::from("connect-status"),
            0,
            7,
            1_700_000_000_000,
            Some(b"status-task-c-0"),
            None,
            SourceId(3),
            1,
        );
        let d = super::super::dump::read(SourceId(3), r.line.text.as_bytes());
        assert_eq!(d.records.len(), 1, "{:?}", d.skipped);
        assert_eq!(d.records[0].at, r.at);
        assert_eq!(d.records[0].key, r.key);
        assert_eq!(d.records[0].value, None);
        assert_eq!(r.line.message(), "key=15:status-task-c-0 value=-1:");
    }
}

//! The records of the internal topics, typed by their keys, as the tags'
//! `KafkaConfigBackingStore`, `KafkaStatusBackingStore` and
//! `KafkaOffsetBackingStore` write and read them (2.x–4.x; docs/topics.md,
//! "Record shapes"). Values are JSON (Connect's internal JsonConverter,
//! schemas off); a tombstone is a null value.

use super::{RawRecord, Role, Skipped};
use crate::model::{Name, TaskId};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A connector's or task's configuration: its `properties`.
pub type Properties = BTreeMap<String, Option<String>>;

/// A typed record.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Config(Config),
    Status(Status),
    /// `["<connector>", {<source partition>}]` → `{<source offset>}`: the
    /// connector and the value (`None`: a tombstone, offsets reset).
    Offset {
        connector: Name,
        partition: String,
        offset: Option<String>,
    },
}

/// A config-topic record (`KafkaConfigBackingStore`).
#[derive(Debug, Clone, PartialEq)]
pub enum Config {
    /// `connector-<name>` → `{"properties": {…}}`; `None`: deleted.
    Connector {
        name: Name,
        config: Option<Properties>,
    },
    /// `task-<name>-<n>` → `{"properties": {…}}`: waits for a commit
    /// (a null value is ignored by every release).
    Task {
        task: TaskId,
        config: Option<Properties>,
    },
    /// `commit-<name>` → `{"tasks": N}`: makes the task configs written
    /// since the last commit live.
    Commit { connector: Name, tasks: u32 },
    /// `target-state-<name>` → `{"state": …, "state.v2": …}` (`state.v2`,
    /// 3.5+, carries STOPPED; `state` then says PAUSED for older
    /// workers); `None`: removed with the connector.
    TargetState {
        connector: Name,
        state: Option<TargetState>,
    },
    /// `tasks-fencing-<name>` → `{"task-count": N}` (exactly-once source,
    /// 3.3+).
    TaskCount { connector: Name, count: i64 },
    /// `session-key` → `{"key", "algorithm", "creation-timestamp"}`
    /// (sessioned protocol, 2.4+).
    SessionKey { created: Option<i64> },
    /// `restart-connector-<name>` → `{"include-tasks", "only-failed"}`
    /// (3.0+).
    Restart {
        connector: Name,
        include_tasks: bool,
        only_failed: bool,
    },
    /// `logger-cluster-<namespace>` → `{"level": …}` (3.7+).
    LoggerLevel {
        namespace: String,
        level: Option<String>,
    },
}

/// A connector's target state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TargetState {
    Started,
    Paused,
    Stopped,
}

impl TargetState {
    fn parse(s: &str) -> Option<TargetState> {
        match s {
            "STARTED" => Some(TargetState::Started),
            "PAUSED" => Some(TargetState::Paused),
            "STOPPED" => Some(TargetState::Stopped),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            TargetState::Started => "STARTED",
            TargetState::Paused => "PAUSED",
            TargetState::Stopped => "STOPPED",
        }
    }
}

/// A status-topic record (`KafkaStatusBackingStore`).
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// `status-connector-<name>`; `None`: removed (DESTROYED is written
    /// as a tombstone).
    Connector { name: Name, state: Option<State> },
    /// `status-task-<name>-<n>`.
    Task { task: TaskId, state: Option<State> },
    /// `status-topic-<topic>:connector-<name>` → `{"topic": {"name",
    /// "connector", "task", "discoverTimestamp"}}` (2.5+); `None`: reset.
    Topic {
        topic: String,
        connector: Name,
        task: Option<i64>,
    },
}

/// A connector's or task's state as one worker wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub state: StateKind,
    /// The worker id (its advertised REST host:port).
    pub worker: Arc<str>,
    /// The group generation the worker was in when it wrote this.
    pub generation: i32,
    /// Whether a stack trace came with it (FAILED).
    pub trace: bool,
}

/// `AbstractStatus.State`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StateKind {
    Unassigned,
    Running,
    Paused,
    Failed,
    Restarting,
    Stopped,
    Destroyed,
}

impl StateKind {
    fn parse(s: &str) -> Option<StateKind> {
        Some(match s {
            "UNASSIGNED" => StateKind::Unassigned,
            "RUNNING" => StateKind::Running,
            "PAUSED" => StateKind::Paused,
            "FAILED" => StateKind::Failed,
            "RESTARTING" => StateKind::Restarting,
            "STOPPED" => StateKind::Stopped,
            "DESTROYED" => StateKind::Destroyed,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            StateKind::Unassigned => "UNASSIGNED",
            StateKind::Running => "RUNNING",
            StateKind::Paused => "PAUSED",
            StateKind::Failed => "FAILED",
            StateKind::Restarting => "RESTARTING",
            StateKind::Stopped => "STOPPED",
            StateKind::Destroyed => "DESTROYED",
        }
    }
}

/// A record with its type.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub raw: RawRecord,
    pub body: Body,
}

impl Record {
    pub fn role(&self) -> Role {
        match self.body {
            Body::Config(_) => Role::Config,
            Body::Status(_) => Role::Status,
            Body::Offset { .. } => Role::Offsets,
        }
    }
}

/// Types a record by its key; `Err` says where it is and why it cannot be
/// read (what Connect would log and discard).
pub fn classify(raw: RawRecord) -> Result<Record, Skipped> {
    match body(&raw) {
        Ok(body) => Ok(Record { raw, body }),
        Err(message) => Err(Skipped {
            source: raw.line.source,
            line: raw.line.line,
            message,
        }),
    }
}

fn body(raw: &RawRecord) -> Result<Body, String> {
    let key = raw.key.as_deref().ok_or("a record without a key")?;
    let value = match raw.value.as_deref() {
        None => None,
        Some(v) => Some(
            serde_json::from_str::<Value>(v)
                .map_err(|e| format!("the value of `{key}` is not JSON: {e}"))?,
        ),
    };
    if key.starts_with('[') {
        return offset(key, raw.value.as_deref());
    }
    if let Some(r) = key.strip_prefix("status-") {
        return status(key, r, value.as_ref()).map(Body::Status);
    }
    config(key, value.as_ref()).map(Body::Config)
}

fn name(s: &str) -> Name {
    Name::new(s)
}

/// `<name>-<n>`: the last dash separates the index, as Connect parses it.
fn task_id(s: &str) -> Option<TaskId> {
    let (c, n) = s.rsplit_once('-')?;
    if c.is_empty() {
        return None;
    }
    Some(TaskId::new(c, n.parse().ok()?))
}

fn object<'a>(key: &str, v: Option<&'a Value>) -> Result<Option<&'a Map<String, Value>>, String> {
    match v {
        None => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(_) => Err(format!("the value of `{key}` is not a JSON object")),
    }
}

fn properties(key: &str, o: &Map<String, Value>) -> Result<Properties, String> {
    let p = o
        .get("properties")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("`{key}` has no `properties` object"))?;
    Ok(p.iter()
        .map(|(k, v)| {
            let v = match v {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            };
            (k.clone(), v)
        })
        .collect())
}

fn config(key: &str, v: Option<&Value>) -> Result<Config, String> {
    let o = object(key, v)?;
    if let Some(n) = key.strip_prefix("target-state-") {
        let state = match o {
            None => None,
            Some(o) => {
                // state.v2 first (3.5+), as the reader does
                let s = o
                    .get("state.v2")
                    .and_then(Value::as_str)
                    .or_else(|| o.get("state").and_then(Value::as_str))
                    .ok_or_else(|| format!("`{key}` has no `state`"))?;
                Some(
                    TargetState::parse(s)
                        .ok_or_else(|| format!("`{key}`: unknown target state {s}"))?,
                )
            }
        };
        return Ok(Config::TargetState {
            connector: name(n),
            state,
        });
    }
    if let Some(n) = key.strip_prefix("connector-") {
        let config = o.map(|o| properties(key, o)).transpose()?;
        return Ok(Config::Connector {
            name: name(n),
            config,
        });
    }
    if let Some(n) = key.strip_prefix("tasks-fencing-") {
        let o = o.ok_or_else(|| format!("`{key}` is a tombstone"))?;
        let count = o
            .get("task-count")
            .and_then(Value::as_i64)
            .ok_or_else(|| format!("`{key}` has no `task-count`"))?;
        return Ok(Config::TaskCount {
            connector: name(n),
            count,
        });
    }
    if let Some(n) = key.strip_prefix("task-") {
        let task = task_id(n).ok_or_else(|| format!("`{key}` is not a task config key"))?;
        let config = o.map(|o| properties(key, o)).transpose()?;
        return Ok(Config::Task { task, config });
    }
    if let Some(n) = key.strip_prefix("commit-") {
        let o = o.ok_or_else(|| format!("`{key}` is a tombstone"))?;
        let tasks = o
            .get("tasks")
            .and_then(Value::as_u64)
            .and_then(|t| u32::try_from(t).ok())
            .ok_or_else(|| format!("`{key}` has no `tasks` count"))?;
        return Ok(Config::Commit {
            connector: name(n),
            tasks,
        });
    }
    if let Some(n) = key.strip_prefix("restart-connector-") {
        let o = o.ok_or_else(|| format!("`{key}` is a tombstone"))?;
        let flag = |k: &str, default: bool| o.get(k).and_then(Value::as_bool).unwrap_or(default);
        return Ok(Config::Restart {
            connector: name(n),
            include_tasks: flag("include-tasks", false),
            only_failed: flag("only-failed", false),
        });
    }
    if key == "session-key" {
        let o = o.ok_or("`session-key` is a tombstone")?;
        return Ok(Config::SessionKey {
            created: o.get("creation-timestamp").and_then(Value::as_i64),
        });
    }
    if let Some(n) = key.strip_prefix("logger-cluster-") {
        return Ok(Config::LoggerLevel {
            namespace: n.to_string(),
            level: o
                .and_then(|o| o.get("level"))
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    }
    Err(format!(
        "`{key}` is no config, status or offsets key Connect writes"
    ))
}

fn status(key: &str, rest: &str, v: Option<&Value>) -> Result<Status, String> {
    let o = object(key, v)?;
    let state = |o: Option<&Map<String, Value>>| -> Result<Option<State>, String> {
        let Some(o) = o else { return Ok(None) };
        let s = o
            .get("state")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`{key}` has no `state`"))?;
        let state = StateKind::parse(s).ok_or_else(|| format!("`{key}`: unknown state {s}"))?;
        let worker = o
            .get("worker_id")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`{key}` has no `worker_id`"))?;
        let generation = o
            .get("generation")
            .and_then(Value::as_i64)
            .and_then(|g| i32::try_from(g).ok())
            .ok_or_else(|| format!("`{key}` has no `generation`"))?;
        Ok(Some(State {
            state,
            worker: Arc::from(worker),
            generation,
            trace: o.get("trace").is_some_and(|t| !t.is_null()),
        }))
    };
    if let Some(n) = rest.strip_prefix("connector-") {
        if n.is_empty() {
            return Err(format!("`{key}` names no connector"));
        }
        return Ok(Status::Connector {
            name: name(n),
            state: state(o)?,
        });
    }
    if let Some(n) = rest.strip_prefix("task-") {
        let task = task_id(n).ok_or_else(|| format!("`{key}` is not a task status key"))?;
        return Ok(Status::Task {
            task,
            state: state(o)?,
        });
    }
    if let Some(n) = rest.strip_prefix("topic-") {
        let (topic, connector) = n
            .split_once(":connector-")
            .filter(|(t, c)| !t.is_empty() && !c.is_empty())
            .ok_or_else(|| format!("`{key}` is not a topic status key"))?;
        let task = o
            .and_then(|o| o.get("topic"))
            .and_then(|t| t.get("task"))
            .and_then(Value::as_i64);
        return Ok(Status::Topic {
            topic: topic.to_string(),
            connector: name(connector),
            task,
        });
    }
    Err(format!("`{key}` is no status key Connect writes"))
}

fn offset(key: &str, value: Option<&str>) -> Result<Body, String> {
    let k: Value =
        serde_json::from_str(key).map_err(|e| format!("offsets key is not JSON: {e}"))?;
    let (connector, partition) = match k.as_array().map(Vec::as_slice) {
        Some([Value::String(c), p]) => (name(c), p.to_string()),
        _ => return Err("offsets key is not [\"<connector>\", {…}]".into()),
    };
    Ok(Body::Offset {
        connector,
        partition,
        offset: value.map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SourceId, SourceLine};
    use crate::topics::RecordRef;

    fn raw(key: &str, value: Option<&str>) -> RawRecord {
        RawRecord {
            at: RecordRef {
                topic: None,
                partition: Some(0),
                offset: Some(0),
            },
            timestamp: None,
            key: Some(key.into()),
            value: value.map(str::to_string),
            line: SourceLine {
                source: SourceId(0),
                line: 1,
                seq: 1,
                ts: None,
                text: Arc::from(""),
                msg: (0, 0),
            },
        }
    }

    fn typed(key: &str, value: Option<&str>) -> Body {
        classify(raw(key, value))
            .map_err(|e| e.message)
            .unwrap()
            .body
    }

    #[test]
    fn config_records_of_every_release() {
        assert_eq!(
            typed("task-my-conn-12", Some(r#"{"properties":{"a":"1"}}"#)),
            Body::Config(Config::Task {
                task: TaskId::new("my-conn", 12),
                config: Some([("a".to_string(), Some("1".to_string()))].into()),
            })
        );
        assert_eq!(
            typed("commit-my-conn", Some(r#"{"tasks":3}"#)),
            Body::Config(Config::Commit {
                connector: name("my-conn"),
                tasks: 3
            })
        );
        assert_eq!(
            typed("connector-c", None),
            Body::Config(Config::Connector {
                name: name("c"),
                config: None
            })
        );
        // 3.5+: STOPPED in state.v2, PAUSED in state for older workers
        assert_eq!(
            typed(
                "target-state-c",
                Some(r#"{"state":"PAUSED","state.v2":"STOPPED"}"#)
            ),
            Body::Config(Config::TargetState {
                connector: name("c"),
                state: Some(TargetState::Stopped)
            })
        );
        assert_eq!(
            typed("target-state-c", Some(r#"{"state":"PAUSED"}"#)),
            Body::Config(Config::TargetState {
                connector: name("c"),
                state: Some(TargetState::Paused)
            })
        );
        assert_eq!(
            typed(
                "restart-connector-c",
                Some(r#"{"include-tasks":true,"only-failed":false}"#)
            ),
            Body::Config(Config::Restart {
                connector: name("c"),
                include_tasks: true,
                only_failed: false
            })
        );
        assert_eq!(
            typed("tasks-fencing-c", Some(r#"{"task-count":2}"#)),
            Body::Config(Config::TaskCount {
                connector: name("c"),
                count: 2
            })
        );
        assert!(matches!(
            typed(
                "session-key",
                Some(r#"{"key":"x","algorithm":"HmacSHA256","creation-timestamp":5}"#)
            ),
            Body::Config(Config::SessionKey { created: Some(5) })
        ));
    }

    #[test]
    fn status_and_offset_records() {
        assert_eq!(
            typed(
                "status-task-a-b-0",
                Some(r#"{"state":"RUNNING","trace":null,"worker_id":"w:8083","generation":7}"#)
            ),
            Body::Status(Status::Task {
                task: TaskId::new("a-b", 0),
                state: Some(State {
                    state: StateKind::Running,
                    worker: Arc::from("w:8083"),
                    generation: 7,
                    trace: false
                })
            })
        );
        assert_eq!(
            typed("status-connector-c", None),
            Body::Status(Status::Connector {
                name: name("c"),
                state: None
            })
        );
        assert_eq!(
            typed(
                "status-topic-orders:connector-c",
                Some(
                    r#"{"topic":{"name":"orders","connector":"c","task":1,"discoverTimestamp":9}}"#
                )
            ),
            Body::Status(Status::Topic {
                topic: "orders".into(),
                connector: name("c"),
                task: Some(1)
            })
        );
        assert_eq!(
            typed(
                r#"["src",{"filename":"/in.txt"}]"#,
                Some(r#"{"position":42}"#)
            ),
            Body::Offset {
                connector: name("src"),
                partition: r#"{"filename":"/in.txt"}"#.into(),
                offset: Some(r#"{"position":42}"#.into())
            }
        );
    }

    #[test]
    fn what_connect_discards_is_named() {
        for (k, v) in [
            ("task-nodash", Some(r#"{"properties":{}}"#)),
            ("commit-c", Some(r#"{"tasks":"x"}"#)),
            ("status-task-c-0", Some(r#"{"state":"RUNNING"}"#)),
            ("status-topic-orders", Some("{}")),
            ("bogus", Some("{}")),
            ("connector-c", Some("not json")),
            ("target-state-c", Some(r#"{"state":"SLEEPING"}"#)),
        ] {
            assert!(classify(raw(k, v)).is_err(), "{k}");
        }
    }
}

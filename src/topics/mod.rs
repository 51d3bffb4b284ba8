//! The second witness: Connect's own internal topics (config, status,
//! offsets), read from dumps or live, typed, replayed and checked
//! (docs/topics.md).
//!
//! * [`dump`] tells a dump's shape from its content (the console
//!   consumer's, kcat's documented format, JSON lines) and reads its
//!   records; a malformed record is named and skipped.
//! * [`live`] reads the topics from a running cluster by partition and
//!   offset, joining no group and writing nothing.
//! * [`record`] types each record by its key: the config topic's
//!   connector, task, commit, target-state, session-key, restart and
//!   fencing records, the status topic's connector, task and topic
//!   statuses, the offsets topic's source offsets; tombstones included.
//! * [`config`] replays the config topic as a worker's
//!   `KafkaConfigBackingStore` does: the snapshot (`ClusterConfigState`) a
//!   worker holds after reading up to any offset, per release family.
//! * [`status`] replays the status topic: per connector and task, who
//!   wrote which state at which generation.
//! * [`check`] turns what the records prove by themselves into findings
//!   whose evidence names each record (topic, partition, offset).
//! * [`cross`] meets them with the logs' facts in the cross-worker stage;
//!   [`disagree`] reports the status topic keeping a state the logs prove
//!   wrong; [`stale`] backs a log's stale start with the config records
//!   at the offset it started with.
//! * [`compact`] keeps a long-running audit's status records bounded: past
//!   an hour of log time, only the state they leave.
//!
//! Every record keeps its place in the input it came from (a dump's file
//! and line, or a live read's position) as a [`SourceLine`], so findings
//! quote records as they quote log lines, and records can be merged with
//! log items by their time stamps.

pub mod check;
pub mod compact;
pub mod config;
pub mod cross;
pub mod disagree;
pub mod dump;
pub mod live;
pub mod record;
pub mod stale;
pub mod status;

pub use crate::model::RecordRef;
use crate::model::{SourceId, SourceLine, Timestamp};
use serde::{Deserialize, Serialize};

/// Which internal topic a record belongs to, told from its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Config,
    Status,
    Offsets,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Config => "config",
            Role::Status => "status",
            Role::Offsets => "offsets",
        }
    }
}

/// One record as read: where it is, its time stamp, key and value (the
/// bytes as text; `None` for a null key or a tombstone), and the line of
/// the input that holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct RawRecord {
    pub at: RecordRef,
    /// The record's time stamp (ms since the epoch, UTC), as the producer
    /// (CreateTime) or the broker (LogAppendTime) set it.
    pub timestamp: Option<i64>,
    pub key: Option<String>,
    pub value: Option<String>,
    /// The input line holding the record (for a live read: the record in
    /// kcat's documented shape); `line.msg` spans its key and value.
    pub line: SourceLine,
}

/// A record that could not be read: where, and what was wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub source: SourceId,
    pub line: u64,
    pub message: String,
}

/// A dump's shape (docs/topics.md, "Dumps").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// `kafka-console-consumer` with any of `print.timestamp`,
    /// `print.partition`, `print.offset`, `print.headers` and `print.key`.
    Console,
    /// `kcat -C -e -f 'topic=%t partition=%p offset=%o timestamp=%T key=%K:%k value=%S:%s\n'`.
    Kcat,
    /// One JSON object a line: ours (`value`, `timestamp`) or kcat's `-J`
    /// envelope (`payload`, `ts`).
    JsonLines,
    /// Records read from a running cluster.
    Live,
}

impl Shape {
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Console => "console consumer",
            Shape::Kcat => "kcat",
            Shape::JsonLines => "JSON lines",
            Shape::Live => "live",
        }
    }
}

/// The record time stamp as a [`Timestamp`] (UTC).
pub fn record_time(ms: Option<i64>) -> Option<Timestamp> {
    ms.filter(|&t| t >= 0).map(Timestamp)
}

/// Puts a finding's evidence from the topics in time order (then source,
/// then line): one function, so the sort is compiled once, not once per
/// place that sorts evidence.
pub(crate) fn sort_evidence(v: &mut [crate::finding::Evidence]) {
    v.sort_by_key(|e| (e.line.ts, e.line.source, e.line.line));
}

//! The ground truth a simulation writes next to the logs (`truth.json`):
//! the scenario, the fault with its injection point, and every finding the
//! auditor must report, each on a named line of a named file.

use serde::Serialize;
use std::fmt;

/// The faults the simulator can inject (one per scenario).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// A task-config commit reported as updating every task of every
    /// connector (Kafka 2.3.0): unrelated tasks are bounced.
    #[serde(rename = "kafka-8676")]
    Kafka8676,
    /// A task stopped for a task-config update is restarted although the
    /// rebalance revoked it (it moves to another worker).
    RestartMovedTask,
    /// Work is started although the config snapshot does not match the
    /// assignment's offset (no catch-up, no forced rebalance).
    OffsetMismatchStart,
    /// A revoked resource is not stopped (cooperative).
    SkipRevokedStop,
    /// An assigned resource is not started.
    SkipStart,
    /// A running task is started again.
    DoubleStart,
    /// A retained resource is stopped during a cooperative rebalance for no
    /// reason (and restarted by the start phase).
    SpuriousStop,
    /// A worker's poll timeout expires: it leaves the group without
    /// revoking (Kafka 3.x, KAFKA-16056); its tasks keep running while the
    /// leader hands them to other workers.
    PollTimeoutLeave,
    /// A connector deleted and created again under the same name starts its
    /// tasks from the deleted incarnation's task configs (up to 2.5.0,
    /// KAFKA-8869).
    StaleConfigStart,
}

pub const ALL_FAULTS: [FaultKind; 9] = [
    FaultKind::Kafka8676,
    FaultKind::RestartMovedTask,
    FaultKind::OffsetMismatchStart,
    FaultKind::SkipRevokedStop,
    FaultKind::SkipStart,
    FaultKind::DoubleStart,
    FaultKind::SpuriousStop,
    FaultKind::PollTimeoutLeave,
    FaultKind::StaleConfigStart,
];

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Kafka8676 => "kafka-8676",
            FaultKind::RestartMovedTask => "restart-moved-task",
            FaultKind::OffsetMismatchStart => "offset-mismatch-start",
            FaultKind::SkipRevokedStop => "skip-revoked-stop",
            FaultKind::SkipStart => "skip-start",
            FaultKind::DoubleStart => "double-start",
            FaultKind::SpuriousStop => "spurious-stop",
            FaultKind::PollTimeoutLeave => "poll-timeout-leave",
            FaultKind::StaleConfigStart => "stale-config-start",
        }
    }
    /// The upstream issue the fault reproduces, if any.
    pub fn upstream(self) -> Option<&'static str> {
        match self {
            FaultKind::Kafka8676 => Some("KAFKA-8676"),
            FaultKind::PollTimeoutLeave => Some("KAFKA-16056"),
            FaultKind::StaleConfigStart => Some("KAFKA-8869"),
            _ => None,
        }
    }
    /// Can the fault happen in this release? (`Err`: why not.)
    pub fn exists_in(self, v: super::Version) -> Result<(), String> {
        use super::Version;
        match self {
            FaultKind::PollTimeoutLeave if v < Version::V3_0 => Err(format!(
                "fault {self} is simulated with the Kafka 3.x wording only, not {v}"
            )),
            FaultKind::StaleConfigStart if v > Version::V2_4 => Err(format!(
                "fault {self} exists up to Kafka 2.5.0 (fixed in 2.5.1), not in {v}"
            )),
            _ => Ok(()),
        }
    }
    pub fn parse(s: &str) -> Option<FaultKind> {
        ALL_FAULTS.into_iter().find(|f| f.name() == s)
    }
    /// Faults that only exist under a cooperative protocol.
    pub fn cooperative_only(self) -> bool {
        matches!(
            self,
            FaultKind::Kafka8676
                | FaultKind::RestartMovedTask
                | FaultKind::SkipRevokedStop
                | FaultKind::SpuriousStop
        )
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a finding is made from one worker's log or needs several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Provable from the worker's own log.
    Worker,
    /// Needs the logs of several workers of the group (cross-worker rules).
    Cluster,
}

/// One finding the auditor must report.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Expected {
    /// In an archive of several clusters: the cluster (its directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// The log file holding the trigger line, relative to the output
    /// directory (`connect-1.log`; in an archive, the segment's path).
    pub file: String,
    /// 1-based line number of the trigger line.
    pub line: u64,
    /// Finding kind, as the auditor names it (`unnecessary-stop`, …).
    pub kind: &'static str,
    /// `connector-name`, `connector-name-N` for a task, or `-`.
    pub resource: String,
    pub scope: Scope,
    /// The generation the worker was in (the group's generation of its last assignment line).
    pub generation: i32,
    /// Why: a short note from the simulator.
    pub why: String,
    /// The worker's index in its cluster.
    #[serde(skip)]
    pub worker: usize,
}

/// Where the fault was injected.
#[derive(Debug, Clone, Serialize)]
pub struct FaultInfo {
    pub kind: FaultKind,
    /// Armed before this scenario event (0-based index into the random events).
    pub armed_at_event: usize,
    /// It fired (an opportunity came up); false when it never could.
    pub injected: bool,
    /// The event during which it fired (`events` + k when forced after the
    /// random events).
    pub event: Option<usize>,
    pub worker: Option<String>,
    pub file: Option<String>,
    pub line: Option<u64>,
    pub time: Option<String>,
    pub generation: Option<i32>,
    pub resource: Option<String>,
    pub detail: String,
    /// The worker's index in its cluster.
    #[serde(skip)]
    pub worker_index: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
    pub seed: u64,
    pub workers: usize,
    pub connectors: usize,
    pub events: usize,
    pub protocol: &'static str,
    pub kafka_version: &'static str,
    pub layout: &'static str,
    pub log_pattern: &'static str,
    pub noise: f64,
    pub group: String,
    pub kafka_cluster_id: String,
    pub max_tasks: u16,
    pub rebalance_delay_ms: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    /// In an archive of several clusters: the cluster (its directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// The worker's host name.
    pub worker: String,
    /// Path relative to the output directory.
    pub file: String,
    pub lines: u64,
    /// Bytes of text (before gzip).
    pub bytes: u64,
    /// A rotated segment written gzipped.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub gzip: bool,
    /// The worker's advertised REST URL (what identifies it across restarts).
    pub rest_url: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub generations: i32,
    pub rounds: u64,
    pub config_records: usize,
    pub starts: u64,
    pub stops: u64,
    pub events: std::collections::BTreeMap<&'static str, u64>,
    pub lines: u64,
    pub bytes: u64,
    pub first_time: String,
    pub last_time: String,
}

/// Everything `truth.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct Truth {
    pub schema: &'static str,
    pub scenario: Scenario,
    pub files: Vec<FileInfo>,
    pub fault: Option<FaultInfo>,
    /// Findings the auditor must report, sorted by file and line.
    pub expected: Vec<Expected>,
    pub stats: Stats,
    /// Line numbers of every lifecycle line, per file (in `files` order);
    /// kept only when asked for (tests), never serialised.
    #[serde(skip)]
    pub lifecycle_lines: Vec<Vec<u64>>,
}

pub const SCHEMA: &str = "herder-audit-sim/1";

/// What `truth.json` holds for an archive of several clusters.
#[derive(Debug, Clone, Serialize)]
pub struct ArchiveTruth {
    pub schema: &'static str,
    pub archive: ArchiveInfo,
    pub clusters: Vec<ClusterTruth>,
    /// Every file, segment by segment, each with its cluster.
    pub files: Vec<FileInfo>,
    /// The findings the auditor must report over the whole archive, each
    /// with its cluster, sorted by cluster, file and line.
    pub expected: Vec<Expected>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArchiveInfo {
    pub clusters: usize,
    /// Size at which logs are rotated (none: one file per worker).
    pub rotate_bytes: Option<u64>,
    pub gzip_rotated: bool,
    pub bytes: u64,
    pub lines: u64,
}

/// One cluster of an archive.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterTruth {
    /// Its directory under the output directory.
    pub name: String,
    pub group: String,
    pub kafka_cluster_id: String,
    pub scenario: Scenario,
    pub fault: Option<FaultInfo>,
    pub stats: Stats,
}

pub const ARCHIVE_SCHEMA: &str = "herder-audit-sim-archive/1";

//! Kafka versions the simulator can speak, as wording profiles taken from
//! the release tags' sources (the formats are in `docs/log-formats.md`).
//! Behaviour is always the correct herder's, only the lines (wording,
//! loggers, order where a release changed it) differ.

use std::fmt;

/// A catalogued release. Ordered by age.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// 2.0.1: eager only, no MDC, herder lines without LogContext prefix.
    V2_0,
    /// 2.2.2: as 2.0.1, plus `Successfully processed removal…`, LeaveGroup line.
    V2_2,
    /// 2.3.1: cooperative (`compatible` default), extended assignment without
    /// a protocol version, coordinator lines from AbstractCoordinator.
    V2_3,
    /// 2.4.1: `with protocol version P … with rebalance delay`, `sessioned`.
    V2_4,
    /// 2.8.2: `Generation{…}`, synced line, WorkerConnector shutdown lines.
    V2_8,
    /// 3.0.2: coordinator lines from WorkerCoordinator, MDC in the default layout.
    V3_0,
    /// 3.6.2: `Handling task config update by stopping tasks …`, STOPPED.
    V3_6,
    /// 3.9.1: `Herder started` after the first assignment, client ids
    /// `connect-<host>:<port>`, no `Handling connector-only config update by
    /// stopping connector X` (the rebalance revokes a deleted connector),
    /// the herder's own poll-timeout warning.
    V3_9,
    /// 4.4.0 (log4j2): as 3.9.1, plus the coordinator printed as
    /// `(id: +1 rack: null isFenced: false)` and AppInfoParser under
    /// `common.utils.internals`.
    V4_4,
}

pub const ALL: [Version; 9] = [
    Version::V2_0,
    Version::V2_2,
    Version::V2_3,
    Version::V2_4,
    Version::V2_8,
    Version::V3_0,
    Version::V3_6,
    Version::V3_9,
    Version::V4_4,
];

/// Which wording the cooperative task-config stop line uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskUpdateLine {
    /// No such line (eager-only releases).
    None,
    /// `Handling task config update by restarting tasks [..]` (2.3.0–3.2.x),
    /// printed even when empty.
    Restarting,
    /// `Handling task config update by stopping tasks [..], which will be
    /// restarted after rebalance if still assigned to this worker` (3.3.0+),
    /// suppressed when empty.
    Stopping,
}

/// Where the program's own code logs from; used for `%L`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    // DistributedHerder
    HerderStarting,
    HerderStarted,
    HerderStopping,
    HerderStopped,
    Halt,
    Assignment,
    StartingWork,
    FinishedStarting,
    StartingConnector,
    StartingTask,
    CatchingUp,
    Behind,
    FinishedReading,
    Mismatch,
    ConnUpdated,
    ConnRemoved,
    TasksUpdated,
    TargetChange,
    HandlingConn,
    HandlingTask,
    FinishedStopping,
    FinishedFlushing,
    SkipStopping,
    HerderRebalanceStarted,
    CouldNotInstantiate,
    SessionKey,
    // coordinator
    RebalanceStarted,
    Rejoining,
    Joined,
    Synced,
    Heartbeat,
    LeaveGroup,
    Discovered,
    Unreachable,
    CoordinatorDead,
    // Worker
    WorkerStarting,
    WorkerStarted,
    WorkerStopping,
    WorkerStopped,
    CreatingConnector,
    InstantiatedConnector,
    FinishedCreating,
    StoppingConnector,
    StoppedConnector,
    IgnoringStopConnector,
    IgnoringAwaitConnector,
    CreatingTask,
    InstantiatedTask,
    Converter,
    StoppingTask,
    IgnoringStopTask,
    IgnoringAwaitTask,
    SettingState,
    ScheduledShutdown,
    CompletedShutdown,
    // other
    Connect,
    ConfigStore,
    ConfigStoreRemoval,
    TaskInit,
    Dump,
    AppInfo,
    AppInfoCommit,
    RestartRequest,
    RestartPlan,
    RestServer,
    KafkaBasedLog,
    ClusterId,
    FailedToStartTask,
    FailedToStartConnector,
    HerderConnectorFailed,
    UnknownConnectorType,
    PollTimeout,
    ResettingGeneration,
}

impl Version {
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.trim();
        Some(match s {
            "2.0" | "2.0.1" | "2.1" | "2.1.1" => Version::V2_0,
            "2.2" | "2.2.2" => Version::V2_2,
            "2.3" | "2.3.1" => Version::V2_3,
            "2.4" | "2.4.1" => Version::V2_4,
            "2.8" | "2.8.2" => Version::V2_8,
            "3.0" | "3.0.2" => Version::V3_0,
            "3.6" | "3.6.2" | "3" | "3.x" => Version::V3_6,
            "3.9" | "3.9.1" => Version::V3_9,
            "4.4" | "4.4.0" | "4" | "4.x" => Version::V4_4,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Version::V2_0 => "2.0.1",
            Version::V2_2 => "2.2.2",
            Version::V2_3 => "2.3.1",
            Version::V2_4 => "2.4.1",
            Version::V2_8 => "2.8.2",
            Version::V3_0 => "3.0.2",
            Version::V3_6 => "3.6.2",
            Version::V3_9 => "3.9.1",
            Version::V4_4 => "4.4.0",
        }
    }

    /// Epoch milliseconds of a plausible date for a cluster on this release.
    pub fn start_epoch_ms(self) -> i64 {
        // Days since 1970-01-01 of a date a few months after the release.
        let days: i64 = match self {
            Version::V2_0 => 17_840, // 2018-11-05
            Version::V2_2 => 18_200, // 2019-10-31
            Version::V2_3 => 18_210, // 2019-11-10
            Version::V2_4 => 18_340, // 2020-03-19
            Version::V2_8 => 18_920, // 2021-10-20
            Version::V3_0 => 19_080, // 2022-03-29
            Version::V3_6 => 19_845, // 2024-05-02
            Version::V3_9 => 20_305, // 2025-08-05
            Version::V4_4 => 20_790, // 2026-12-03
        };
        days * 86_400_000 + 9 * 3_600_000
    }

    /// Only the eager protocol exists.
    pub fn eager_only(self) -> bool {
        self <= Version::V2_2
    }
    /// `%X{connector.context}` is set (2.3.0+).
    pub fn mdc(self) -> bool {
        self >= Version::V2_3
    }
    /// Herder lines carry `[Worker clientId=…, groupId=…] ` (2.3.0+).
    pub fn herder_prefix(self) -> bool {
        self >= Version::V2_3
    }
    /// Coordinator join lines print `Generation{…}` (2.6.1+).
    pub fn generation_object(self) -> bool {
        self >= Version::V2_8
    }
    /// The sink-task consumers' coordinator logger.
    pub fn consumer_coordinator_logger(self) -> &'static str {
        if self >= Version::V3_0 {
            "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
        } else {
            "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"
        }
    }
    pub fn task_update_line(self) -> TaskUpdateLine {
        if self <= Version::V2_2 {
            TaskUpdateLine::None
        } else if self <= Version::V3_0 {
            TaskUpdateLine::Restarting
        } else {
            TaskUpdateLine::Stopping
        }
    }
    /// AC `Attempt to heartbeat failed since group is rebalancing` (≤ 2.8).
    pub fn heartbeat_line(self) -> bool {
        self <= Version::V2_8
    }
    /// `Broker coordinator was unreachable … Revoking previous assignment …` (2.4.1+).
    pub fn self_revocation(self) -> bool {
        self >= Version::V2_4
    }
    /// `Tasks [..] configs updated` names every task of every connector
    /// (2.0.1–2.3.0, KAFKA-8676); from 2.3.1 only the committed connector's.
    pub fn tasks_line_names_all(self) -> bool {
        self <= Version::V2_2
    }
    /// The herder's startConnector is asynchronous and logs a failure in
    /// its callback: `Failed to start connector 'X'` (2.6.3+).
    pub fn async_connector_start(self) -> bool {
        self >= Version::V2_8
    }
    /// The herder's startTask checks the connector's type first and
    /// throws for an unknown one (3.3.0+, KIP-618).
    pub fn task_start_checks_type(self) -> bool {
        self >= Version::V3_6
    }
    /// KIP-745 restarts (`POST …/restart?includeTasks=true`, 3.0.0+).
    pub fn kip745(self) -> bool {
        self >= Version::V3_0
    }
    /// A worker's default client id: `connect-1` for every worker up to
    /// 3.6, `connect-<advertised host>:<port>` in the 3.9.1 and 4.4.0
    /// captures (member ids begin with it).
    pub fn client_id(self, host: &str) -> String {
        if self >= Version::V3_9 {
            format!("connect-{host}:8083")
        } else {
            "connect-1".to_string()
        }
    }
    /// `Herder started` comes after the worker's first assignment line
    /// (3.9.1, 4.4.0), not before its first join.
    pub fn herder_started_after_join(self) -> bool {
        self >= Version::V3_9
    }
    /// The cooperative herder stops a deleted connector as it reads the
    /// removal (`Handling connector-only config update by stopping
    /// connector X`); from 3.9 the rebalance's revocation stops it.
    pub fn removal_stops_in_tick(self) -> bool {
        self <= Version::V3_6
    }
    /// A worker cut off from the brokers logs `Group coordinator … is
    /// unavailable or invalid due to cause: session timed out …` (2.7.0+;
    /// real 2.8.2 and 3.6.2 `chaos-s*`, 3.9.1 and 4.4.0 `partition`), which
    /// the auditor reads as a departure; up to 2.6 the line says only `…
    /// will attempt rediscovery`.
    pub fn session_timeout_line(self) -> bool {
        self >= Version::V2_8
    }
    /// Target state STOPPED and the zero-task commit (3.5.2+).
    pub fn stop_connector(self) -> bool {
        self >= Version::V3_6
    }
    /// The cooperative protocol version the release prefers.
    pub fn default_cooperative(self) -> &'static str {
        if self >= Version::V2_4 {
            "sessioned"
        } else {
            "compatible"
        }
    }
    /// The shipped layout of the release (MDC printed from 3.0.0).
    pub fn default_mdc_layout(self) -> bool {
        self >= Version::V3_0
    }
    pub fn kafka_build(self) -> &'static str {
        match self {
            Version::V2_0 => "2.0.1",
            Version::V2_2 => "2.2.2",
            Version::V2_3 => "2.3.1",
            Version::V2_4 => "2.4.1",
            Version::V2_8 => "2.8.2",
            Version::V3_0 => "3.0.2",
            Version::V3_6 => "3.6.2",
            Version::V3_9 => "3.9.1",
            Version::V4_4 => "4.4.0",
        }
    }
    pub fn commit_id(self) -> &'static str {
        match self {
            Version::V2_0 => "fa14705e51bd2ce5",
            Version::V2_2 => "1cce3ca5ad32ef50",
            Version::V2_3 => "18a913733fb71c01",
            Version::V2_4 => "c57222ae8cd7866b",
            Version::V2_8 => "c3b6ad5a69cbcc17",
            Version::V3_0 => "25b1aea02e37da14",
            Version::V3_6 => "35a5d2ad9e5b3b2a",
            Version::V3_9 => "f745dfdcee2b9851",
            Version::V4_4 => "1156b2752aaa28ea",
        }
    }
    /// A plausible `%L` for a log site in this release.
    pub fn line(self, site: Site) -> u32 {
        if site == Site::ClusterId {
            // ConnectUtils.lookupKafkaClusterId, WorkerConfig.lookupKafkaClusterId.
            return match self {
                Version::V2_0 | Version::V2_2 | Version::V2_3 | Version::V2_4 => 59,
                Version::V2_8 | Version::V3_0 => 65,
                Version::V3_6 | Version::V3_9 => 300,
                Version::V4_4 => 322,
            };
        }
        // Line numbers as of 3.6; older files were shorter.
        let (base, grows) = site_base(site);
        if !grows {
            return base;
        }
        let pct: u32 = match self {
            Version::V2_0 => 52,
            Version::V2_2 => 55,
            Version::V2_3 => 63,
            Version::V2_4 => 70,
            Version::V2_8 => 82,
            Version::V3_0 => 88,
            Version::V3_6 | Version::V3_9 | Version::V4_4 => 100,
        };
        base * pct / 100
    }
}

fn site_base(site: Site) -> (u32, bool) {
    use Site::*;
    match site {
        HerderStarting => (358, true),
        HerderStarted => (364, true),
        HerderStopping => (834, true),
        HerderStopped => (384, true),
        Halt => (802, true),
        Assignment => (2442, true),
        StartingWork => (1857, true),
        FinishedStarting => (1886, true),
        StartingConnector => (2017, true),
        StartingTask => (1928, true),
        CatchingUp => (1618, true),
        Behind => (1694, true),
        FinishedReading => (1703, true),
        Mismatch => (1662, true),
        ConnUpdated => (2368, true),
        ConnRemoved => (2380, true),
        TasksUpdated => (2397, true),
        TargetChange => (2408, true),
        HandlingConn => (716, true),
        HandlingTask => (783, true),
        FinishedStopping => (2492, true),
        FinishedFlushing => (2511, true),
        SkipStopping => (2481, true),
        HerderRebalanceStarted => (1117, true),
        CouldNotInstantiate => (1944, true),
        SessionKey => (2419, true),
        RebalanceStarted => (225, false),
        Rejoining => (566, false),
        Joined => (627, false),
        Synced => (802, false),
        Heartbeat => (1175, false),
        LeaveGroup => (1133, false),
        Discovered => (906, false),
        Unreachable => (138, false),
        CoordinatorDead => (997, false),
        WorkerStarting => (215, true),
        WorkerStarted => (225, true),
        WorkerStopping => (232, true),
        WorkerStopped => (263, true),
        CreatingConnector => (300, true),
        InstantiatedConnector => (322, true),
        FinishedCreating => (341, true),
        StoppingConnector => (449, true),
        StoppedConnector => (471, true),
        IgnoringStopConnector => (452, true),
        IgnoringAwaitConnector => (488, true),
        CreatingTask => (600, true),
        InstantiatedTask => (623, true),
        Converter => (1013, true),
        StoppingTask => (1040, true),
        IgnoringStopTask => (1036, true),
        IgnoringAwaitTask => (1064, true),
        SettingState => (1315, true),
        ScheduledShutdown => (265, true),
        CompletedShutdown => (285, true),
        Connect => (50, false),
        ConfigStore => (375, true),
        ConfigStoreRemoval => (1024, true),
        TaskInit => (280, true),
        Dump => (370, false),
        AppInfo => (119, false),
        RestartRequest => (2431, true),
        RestartPlan => (1511, true),
        AppInfoCommit => (120, false),
        RestServer => (241, true),
        KafkaBasedLog => (307, false),
        ClusterId => (65, false),
        FailedToStartTask => (667, true),
        FailedToStartConnector => (333, true),
        HerderConnectorFailed => (1983, true),
        UnknownConnectorType => (722, false),
        PollTimeout => (1481, false),
        ResettingGeneration => (1025, false),
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in ALL {
            assert_eq!(Version::parse(v.name()), Some(v));
        }
        assert_eq!(Version::parse("9.9"), None);
        assert!(Version::V2_2.eager_only() && !Version::V2_3.eager_only());
        assert!(Version::V3_6.line(Site::Assignment) > Version::V2_3.line(Site::Assignment));
    }
}

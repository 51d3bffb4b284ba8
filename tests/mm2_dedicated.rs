//! MirrorMaker 2 in dedicated mode writes the lines of several herders (one
//! per replication flow, each in its own group) to one log. Each herder is
//! a worker of its own; unprefixed Worker lines go to a herder only when
//! that is provable: its start of what they name is under way, it alone
//! holds it, its assignment revokes what a rebalance stopped, or its
//! prefixed lines alone named it (src/stream/route.rs).

mod support;

use herder_audit::Report;

const H: &str = "org.apache.kafka.connect.runtime.distributed.DistributedHerder";
const W: &str = "org.apache.kafka.connect.runtime.Worker";

/// The replication flows: each one's herder is in group `<src>-mm2`.
const AB: (&str, &str) = ("A", "B");
const BA: (&str, &str) = ("B", "A");

/// A MirrorMaker 2 log, written line by line, and its audit.
#[derive(Default)]
struct Mm2Log(String);

impl Mm2Log {
    /// MirrorMaker starting two herders, A->B with MirrorSourceConnector
    /// and B->A with MirrorSourceConnector and MirrorHeartbeatConnector,
    /// each joining generation 1 and starting its connectors and tasks.
    fn both_started() -> Mm2Log {
        let mut log = Mm2Log::default();
        log.0 += "[2026-12-01 10:00:00,001] INFO Kafka MirrorMaker initializing ... (org.apache.kafka.connect.mirror.MirrorMaker:342)\n";
        log.0 += "[2026-12-01 10:00:00,002] INFO creating herder for A->B (org.apache.kafka.connect.mirror.MirrorMaker:237)\n";
        log.0 += "[2026-12-01 10:00:00,003] INFO Kafka cluster ID: bbbbbbbbbbbbbbbbbbbbbb (org.apache.kafka.connect.runtime.WorkerConfig:298)\n";
        log.0 += "[2026-12-01 10:00:00,004] INFO creating herder for B->A (org.apache.kafka.connect.mirror.MirrorMaker:237)\n";
        log.0 += "[2026-12-01 10:00:00,005] INFO Kafka cluster ID: aaaaaaaaaaaaaaaaaaaaaa (org.apache.kafka.connect.runtime.WorkerConfig:298)\n";
        log.0 += "[2026-12-01 10:00:00,006] INFO Kafka MirrorMaker starting with 2 herders. (org.apache.kafka.connect.mirror.MirrorMaker:182)\n";
        log.herders_start()
            .joins("01,000", AB, 1, &["MirrorSourceConnector"], true)
            .joins(
                "01,100",
                BA,
                1,
                &["MirrorSourceConnector", "MirrorHeartbeatConnector"],
                true,
            )
    }

    /// Both herders log `Herder starting`.
    fn herders_start(self) -> Mm2Log {
        self.herder("00,010", AB, "Herder starting", 377).herder(
            "00,011",
            BA,
            "Herder starting",
            377,
        )
    }

    /// A herder line of group `<src>-mm2` (client id `<src>-><dst>`).
    fn herder(mut self, ts: &str, flow: (&str, &str), msg: &str, line: u32) -> Mm2Log {
        self.0 += &format!(
            "[2026-12-01 10:00:{ts}] INFO [Worker clientId={}->{}, groupId={}-mm2] {msg} ({H}:{line})\n",
            flow.0, flow.1, flow.0
        );
        self
    }

    /// A Worker line with the connector MDC `mdc`, no herder prefix.
    fn worker(mut self, ts: &str, mdc: &str, msg: &str) -> Mm2Log {
        self.0 += &format!("[2026-12-01 10:00:{ts}] INFO [{mdc}] {msg} ({W}:646)\n");
        self
    }

    /// The Worker stopping task `task` (`conn-0`): the line names no herder.
    fn worker_stops(self, ts: &str, task: &str) -> Mm2Log {
        let mdc = format!("{}|task-0", task.strip_suffix("-0").unwrap_or(task));
        self.worker(ts, &mdc, &format!("Stopping task {task}"))
    }

    /// The herder of `flow` starting task `task`.
    fn herder_starts(self, ts: &str, flow: (&str, &str), task: &str) -> Mm2Log {
        self.herder(ts, flow, &format!("Starting task {task}"), 2024)
    }

    /// The herder of `flow` joins generation `generation` owning `conns` and
    /// their task 0, and starts them (`start`).
    fn joins(
        mut self,
        ts: &str,
        flow: (&str, &str),
        generation: u32,
        conns: &[&str],
        start: bool,
    ) -> Mm2Log {
        let tasks: Vec<String> = conns.iter().map(|c| format!("{c}-0")).collect();
        let member = format!("{}->{}-0f0e", flow.0, flow.1);
        self = self.herder(
            ts,
            flow,
            &format!(
                "Joined group at generation {generation} with protocol version 2 and got assignment: Assignment{{error=0, leader='{member}', leaderUrl='NOTUSED', offset=-1, connectorIds=[{}], taskIds=[{}], revokedConnectorIds=[], revokedTaskIds=[], delay=0}} with rebalance delay: 0",
                conns.join(", "),
                tasks.join(", ")
            ),
            2452,
        );
        self = self.herder(
            ts,
            flow,
            "Starting connectors and tasks using config offset -1",
            1981,
        );
        if start {
            for c in conns {
                self = self
                    .herder(ts, flow, &format!("Starting connector {c}"), 2099)
                    .worker(
                        ts,
                        &format!("{c}|worker"),
                        &format!(
                            "Creating connector {c} of type org.apache.kafka.connect.mirror.{c}"
                        ),
                    );
            }
            for c in conns {
                self = self
                    .herder(ts, flow, &format!("Starting task {c}-0"), 2024)
                    .worker(ts, &format!("{c}|task-0"), &format!("Creating task {c}-0"));
            }
        }
        self.herder(ts, flow, "Finished starting connectors and tasks", 2010)
    }

    /// The audit of the log (named `mm2.log`).
    fn audit(&self) -> Report {
        support::audit_bytes("mm2.log", self.0.as_str())
    }
}

/// Each herder's group and the stops its summary counts, in report order.
fn stops_per_group(r: &Report) -> Vec<(&str, u64)> {
    r.workers
        .iter()
        .map(|w| {
            (
                w.summary.group.as_deref().unwrap_or("-"),
                w.summary.stops.values().sum::<u64>(),
            )
        })
        .collect()
}

fn assert_no_finding(r: &Report) {
    let found: Vec<_> = r.findings().collect();
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn each_herder_is_a_worker_of_its_own_group() {
    let r = Mm2Log::both_started().audit();
    assert_no_finding(&r);
    let groups: Vec<_> = r.workers.iter().map(|w| w.summary.group.clone()).collect();
    assert_eq!(
        groups,
        [Some("A-mm2".to_string()), Some("B-mm2".to_string())]
    );
    let labels: Vec<_> = r.workers.iter().map(|w| w.summary.worker.clone()).collect();
    assert_eq!(labels, ["mm2.log@A-mm2", "mm2.log@B-mm2"]);
    // The cluster IDs printed while MirrorMaker built its herders are
    // nobody's provably.
    assert!(r.workers.iter().all(|w| w.summary.kafka_cluster.is_none()));
}

#[test]
fn an_unattributable_stop_leaves_the_herders_that_may_own_it_unknowing() {
    // One of the herders stops its MirrorSourceConnector-0: which one, the
    // line does not say. Then A starts it again.
    let r = Mm2Log::both_started()
        .worker_stops("02,000", "MirrorSourceConnector-0")
        .herder_starts("02,100", AB, "MirrorSourceConnector-0")
        .audit();
    assert_no_finding(&r);
}

#[test]
fn a_double_start_of_one_herders_own_task_is_still_caught() {
    // Only B runs the heartbeat connector: its Worker lines are B's, and B
    // starting its task again without a stop is a double start.
    let r = Mm2Log::both_started()
        .worker(
            "02,000",
            "MirrorHeartbeatConnector|task-0",
            "Instantiated task MirrorHeartbeatConnector-0 with version 3.9.1 of type org.apache.kafka.connect.mirror.MirrorHeartbeatTask",
        )
        .herder_starts("02,100", BA, "MirrorHeartbeatConnector-0")
        .audit();
    let kinds: Vec<_> = r
        .findings()
        .map(|f| (f.kind.to_string(), f.worker.to_string()))
        .collect();
    assert_eq!(
        kinds,
        [("double-start".to_string(), "mm2.log@B-mm2".to_string())]
    );
}

#[test]
fn a_stop_of_one_herders_own_task_is_read_as_its_stop() {
    let r = Mm2Log::both_started()
        .worker_stops("02,000", "MirrorHeartbeatConnector-0")
        .herder_starts("02,100", BA, "MirrorHeartbeatConnector-0")
        .audit();
    assert_no_finding(&r);
    let stops: Vec<u64> = r
        .workers
        .iter()
        .map(|w| w.summary.stops.values().sum())
        .collect();
    assert_eq!(stops, [0, 1]);
}

/// The lines of `text` in a layout without logger (`[%d] %p %X{…}%m%n`).
fn without_loggers(text: &str) -> String {
    text.lines()
        .map(|l| match l.rfind(" (org.apache.kafka.") {
            Some(i) => format!("{}\n", &l[..i]),
            None => format!("{l}\n"),
        })
        .collect()
}

#[test]
fn a_layout_without_loggers_is_split_the_same_way() {
    let log = Mm2Log::both_started()
        .worker_stops("02,000", "MirrorHeartbeatConnector-0")
        .worker_stops("02,050", "MirrorSourceConnector-0")
        .herder_starts("02,100", BA, "MirrorHeartbeatConnector-0")
        .herder_starts("02,200", AB, "MirrorSourceConnector-0");
    let bare = Mm2Log(without_loggers(&log.0));
    assert!(!bare.0.contains("(org.apache"));
    for log in [log, bare] {
        let r = log.audit();
        assert_no_finding(&r);
        assert_eq!(stops_per_group(&r), [("A-mm2", 0), ("B-mm2", 1)]);
    }
}

impl Mm2Log {
    /// Herders A->B and B->A start (no MirrorMaker line) and join
    /// generation 1 running `a` and `b` (each connector with its task 0).
    fn both_run(a: &[&str], b: &[&str]) -> Mm2Log {
        Mm2Log::default()
            .herders_start()
            .joins("01,000", AB, 1, a, true)
            .joins("01,100", BA, 1, b, true)
    }
}

#[test]
fn two_groups_in_one_log_without_mirror_maker_lines_attribute_by_what_each_holds() {
    // Two herders' lines in one stream, nothing saying how many there are
    // (a log that starts mid-life, a reused path): the unprefixed stop of
    // solo-0 is A's, the one herder holding it while B's assignment lacks
    // it; A's start of it after that is a restart.
    let r = Mm2Log::both_run(&["solo"], &["other"])
        .worker_stops("02,000", "solo-0")
        .herder_starts("02,100", AB, "solo-0")
        .audit();
    assert_no_finding(&r);
    assert_eq!(stops_per_group(&r), [("A-mm2", 1), ("B-mm2", 0)]);
}

#[test]
fn a_stop_of_what_both_herders_hold_goes_to_the_one_whose_assignment_revokes_it() {
    // Both flows run task X-0. In a rebalance of both, the Worker stops
    // X-0 once: B's next assignment keeps X-0, A's revokes it, so the stop
    // is A's (a revocation: no finding), and B's X-0 still runs (B's later
    // start of it is a double start).
    let r = Mm2Log::both_run(&["X"], &["X"])
        .herder("02,000", AB, "Rebalance started", 231)
        .herder("02,001", BA, "Rebalance started", 231)
        .worker_stops("02,010", "X-0")
        .herder(
            "02,100",
            BA,
            "Joined group at generation 2 with protocol version 2 and got assignment: Assignment{error=0, leader='B->A-0f0e', leaderUrl='NOTUSED', offset=-1, connectorIds=[X], taskIds=[X-0], revokedConnectorIds=[], revokedTaskIds=[], delay=0} with rebalance delay: 0",
            2452,
        )
        .herder(
            "02,200",
            AB,
            "Joined group at generation 2 with protocol version 2 and got assignment: Assignment{error=0, leader='A->B-0f0e', leaderUrl='NOTUSED', offset=-1, connectorIds=[X], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[X-0], delay=0} with rebalance delay: 0",
            2452,
        )
        .herder_starts("03,000", BA, "X-0")
        .audit();
    let found: Vec<(String, String)> = r
        .findings()
        .map(|f| (f.kind.to_string(), f.worker.to_string()))
        .collect();
    assert_eq!(
        found,
        [("double-start".to_string(), "mm2.log@B-mm2".to_string())],
        "{:#?}",
        r.findings
    );
    assert_eq!(stops_per_group(&r), [("A-mm2", 1), ("B-mm2", 0)]);
}

#[test]
fn a_line_naming_what_two_herders_hold_outside_a_rebalance_is_nobodys() {
    let r = Mm2Log::both_run(&["X"], &["X"])
        .worker_stops("02,000", "X-0")
        .herder_starts("02,100", AB, "X-0")
        .audit();
    assert_no_finding(&r);
    assert!(r.workers.iter().all(|w| w.summary.stops.is_empty()));
}

/// Real MirrorMaker 2 captures kept beside the corpus (the corpus keeps one
/// copy of a run; these are the other copy of a corpus run: the whole logs,
/// or the logs cut to start mid-life), each with its reviewed `expect`.
#[test]
fn the_other_copies_of_the_frozen_node_runs_find_their_zombies() {
    use herder_audit::testing::check::{self, CheckOptions, Status};
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/captures");
    let (outcomes, errors) = check::check_paths(&[dir], CheckOptions::default(), Some(1));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(outcomes.len(), 2);
    for o in &outcomes {
        assert_eq!(
            o.status,
            Status::Ok,
            "{}: missing {:?}, unexpected {}",
            o.trace.name,
            o.missing,
            o.unexpected.len()
        );
        assert!(o.expected >= 2, "{}", o.trace.name);
    }
}

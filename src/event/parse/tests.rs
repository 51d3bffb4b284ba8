//! Cross-family tests of [`parse_message`]: dispatch by logger, the
//! `Unknown` fallback, the no-allocation rejection path, robustness on
//! arbitrary input, and every lifecycle line of the real sample logs.

use super::*;
use crate::event::{Milestone, StartFailure};
use crate::model::{Name, Resource, TaskId};

fn conn(s: &str) -> Resource {
    Resource::Connector(Name::from(s))
}

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

#[test]
fn families_only_see_their_own_formats() {
    // DH format under the Worker logger, W format under the Herder logger.
    assert_eq!(
        parse_message(LoggerKind::Worker, "Starting connector a"),
        None
    );
    assert_eq!(
        parse_message(LoggerKind::Herder, "Stopping connector a"),
        None
    );
    assert_eq!(
        parse_message(LoggerKind::Herder, "(Re-)joining group"),
        None
    );
    assert_eq!(
        parse_message(
            LoggerKind::WorkerCoordinator,
            "Finished starting connectors and tasks"
        ),
        None
    );
    assert_eq!(parse_message(LoggerKind::Connect, "Herder started"), None);
    assert_eq!(
        parse_message(LoggerKind::WorkerTask, "Worker started"),
        None
    );
}

#[test]
fn shared_formats_are_accepted_from_each_logger() {
    for kind in [
        LoggerKind::WorkerCoordinator,
        LoggerKind::AbstractCoordinator,
    ] {
        assert_eq!(
            parse_message(kind, "(Re-)joining group"),
            Some(Event::Rejoining { group: None })
        );
        assert_eq!(
            parse_message(kind, "Rebalance started"),
            Some(Event::RebalanceStarted { by_herder: false })
        );
    }
    assert_eq!(
        parse_message(LoggerKind::Herder, "Rebalance started"),
        Some(Event::RebalanceStarted { by_herder: true })
    );
    let selected = "Was selected to perform assignments, but do not have latest config found in sync request. Returning an empty configuration to trigger re-sync.";
    for kind in [
        LoggerKind::Assignor,
        LoggerKind::WorkerCoordinator,
        LoggerKind::Unknown,
    ] {
        assert_eq!(
            parse_message(kind, selected),
            Some(Event::LeaderLacksConfig),
            "{kind:?}"
        );
    }
}

#[test]
fn unknown_logger_tries_every_family() {
    let cases = [
        (
            "Rebalance started",
            Event::RebalanceStarted { by_herder: false },
        ),
        ("Herder started", Event::Milestone(Milestone::HerderStarted)),
        ("Worker stopped", Event::Milestone(Milestone::WorkerStopped)),
        (
            "Kafka Connect stopping",
            Event::Milestone(Milestone::ConnectStopping),
        ),
        (
            "Starting KafkaConfigBackingStore",
            Event::Milestone(Milestone::ConfigStore),
        ),
        (
            "The Connect group member has stopped.",
            Event::Milestone(Milestone::GroupMemberStopped),
        ),
        ("DistributedConfig values: ", Event::DistributedConfigDump),
        ("Starting connector x", Event::Starting(conn("x"))),
        ("Stopping connector x", Event::Stopping(conn("x"))),
        (
            "Completed shutdown for WorkerConnector{id=x}",
            Event::Stopped(conn("x")),
        ),
        (
            "WorkerSinkTask{id=x-1} Task failed initialization and will not be started.",
            Event::StartFailed {
                resource: Resource::Task(TaskId::new("x", 1)),
                how: StartFailure::Initialization,
            },
        ),
        (
            "Connector x task count changed from 1 to 3",
            Event::TaskCountChanged {
                connector: Some(Name::from("x")),
                from: 1,
                to: 3,
            },
        ),
        // DH's quoted callback form wins over W's unquoted one.
        (
            "Failed to start connector 'x'",
            Event::StartFailed {
                resource: conn("x"),
                how: StartFailure::HerderCallback,
            },
        ),
        (
            "Failed to start connector x",
            Event::StartFailed {
                resource: conn("x"),
                how: StartFailure::Worker,
            },
        ),
    ];
    for (msg, want) in cases {
        assert_eq!(parse_message(LoggerKind::Unknown, msg), Some(want), "{msg}");
    }
}

#[test]
fn look_alikes_are_rejected_everywhere() {
    for msg in [
        "Stopping HttpSinkTask",
        "Rebalance failed. again",
        "Starting connectors and tasks",
        "Set up the value converter class io.confluent.connect.avro.AvroConverter for task a-0 using the worker config",
        "WorkerSourceTask{id=x-0} Committing offsets",
        "[Consumer clientId=c, groupId=g] (Re-)joining group",
        "Creating connector",
        "",
        " ",
        "S",
    ] {
        for kind in LoggerKind::ALL {
            assert_eq!(parse_message(kind, msg), None, "{kind:?}: {msg:?}");
        }
    }
}

#[test]
fn public_building_blocks_are_reachable() {
    assert_eq!(task_id("a-b-3"), Some(TaskId::new("a-b", 3)));
    assert_eq!(task_list("[]").map(|(r, v)| (r, v.len())), Ok(("", 0)));
    assert_eq!(name_list("[a]").map(|(r, v)| (r, v.len())), Ok(("", 1)));
    assert!(
        assignment(
            "Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[]}"
        )
        .is_ok()
    );
    assert_eq!(generation("3").map(|(_, g)| g.id), Ok(3));
}

// ---------------------------------------------------------------------------
// Hot path: rejection does not allocate
// ---------------------------------------------------------------------------

mod alloc_count {
    //! A pass-through global allocator for this test binary that counts the
    //! allocations of the current thread.
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static COUNT: Cell<usize> = const { Cell::new(0) };
    }

    pub struct Counting;

    fn bump() {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }

    // SAFETY: every call is forwarded unchanged to the system allocator.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            bump();
            // SAFETY: same contract as our caller's.
            unsafe { System.alloc(layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            bump();
            // SAFETY: same contract as our caller's.
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            bump();
            // SAFETY: same contract as our caller's.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: same contract as our caller's.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    /// Allocations made by this thread while running `f`.
    pub fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
        let before = COUNT.with(Cell::get);
        let r = f();
        (r, COUNT.with(Cell::get) - before)
    }
}

#[test]
fn non_lifecycle_lines_are_rejected_without_allocating() {
    let noise = [
        (
            LoggerKind::WorkerTask,
            "WorkerSourceTask{id=x-0} Committing offsets",
        ),
        (
            LoggerKind::WorkerTask,
            "WorkerSourceTask{id=replicate-europe-to-us-0} flushing 3 outstanding messages for offset commit",
        ),
        (
            LoggerKind::WorkerTask,
            "WorkerSourceTask{id=x-0} Failed to flush, timed out while waiting for producer to flush outstanding 3 messages",
        ),
        (
            LoggerKind::Worker,
            "Set up the key converter class org.apache.kafka.connect.storage.StringConverter for task kinesis-source-local-0 using the worker config",
        ),
        (
            LoggerKind::Worker,
            "Initializing: org.apache.kafka.connect.runtime.TransformationChain{}",
        ),
        (LoggerKind::Worker, "Stopping HttpSinkTask"),
        (
            LoggerKind::AbstractCoordinator,
            "Discovered group coordinator broker:9092 (id: 2147483646 rack: null)",
        ),
        (LoggerKind::AbstractCoordinator, "Rebalance failed. again"),
        (
            LoggerKind::Herder,
            "Received target state change for unknown connector: x",
        ),
        (
            LoggerKind::Herder,
            "Starting connectors and tasks using config offset x",
        ),
        (
            LoggerKind::ConfigBackingStore,
            "Ignoring task configuration for task http-sink-0 because it is unexpectedly null",
        ),
        (LoggerKind::Unknown, "Committing offsets for 3 partitions"),
        (
            LoggerKind::Unknown,
            "WorkerSinkTask{id=x-0} Executing sink task",
        ),
    ];
    // Warm up thread-locals and lazily initialised state first.
    for (kind, msg) in noise {
        let _ = parse_message(kind, msg);
    }
    for (kind, msg) in noise {
        let (event, n) = alloc_count::allocations(|| parse_message(kind, msg));
        assert_eq!(event, None, "{msg}");
        assert_eq!(n, 0, "{kind:?} allocated {n} times rejecting {msg:?}");
    }
    // And a lifecycle line does allocate (sanity check of the counter).
    let (event, n) = alloc_count::allocations(|| {
        parse_message(LoggerKind::Herder, "Connector a config updated")
    });
    assert!(event.is_some());
    assert!(n > 0);
}

// ---------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------

mod robustness {
    use super::*;
    use proptest::prelude::*;

    /// Prefixes of real formats, so that the generated inputs reach deep into
    /// the parsers instead of failing on the first byte.
    const STEMS: [&str; 24] = [
        "Joined group at generation ",
        "Joined group and got assignment: Assignment{error=",
        "Assignment{error=0, leader='",
        "Successfully joined group ",
        "Successfully synced group in generation Generation{generationId=",
        "Member ",
        "Broker coordinator was unreachable for ",
        "Starting ",
        "Stopping task ",
        "Connector ",
        "Connector \u{2018}",
        "Tasks [",
        "Handling task config update by stopping tasks [",
        "Creating connector ",
        "Instantiated task ",
        "Graceful stop of task ",
        "Setting connector ",
        "WorkerSinkTask{id=",
        "WorkerConnector{id=",
        "Received and enqueuing restart request for {connectorName='",
        "Executing plan to restart ",
        "Task '",
        "Revoking current running assignment ",
        "Couldn't instantiate task ",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn never_panics_on_arbitrary_text(s in "\\PC*") {
            for kind in LoggerKind::ALL {
                let _ = parse_message(kind, &s);
            }
            let _ = parse_already_exists(&s);
            let _ = parse_config_value(&s);
            let _ = task_id(&s);
            let _ = assignment(&s);
            let _ = task_list(&s);
            let _ = name_list(&s);
        }

        #[test]
        fn never_panics_on_format_prefixes(stem in 0..STEMS.len(), tail in ".{0,80}") {
            let s = format!("{}{}", STEMS[stem], tail);
            for kind in LoggerKind::ALL {
                let _ = parse_message(kind, &s);
            }
            let _ = assignment(&s[s.find("Assignment{").unwrap_or(0)..]);
        }

        #[test]
        fn task_ids_round_trip(name in "[a-zA-Z0-9 ._-]{1,20}", index in any::<u32>()) {
            let id = TaskId::new(&name, index);
            prop_assert_eq!(task_id(&id.to_string()), Some(id));
        }

        #[test]
        fn starting_and_stopping_round_trip(name in "[a-zA-Z0-9._][a-zA-Z0-9 ._-]{0,20}", index in 0u32..1000) {
            let task = TaskId::new(&name, index);
            prop_assert_eq!(
                parse_message(LoggerKind::Herder, &format!("Starting task {task}")),
                Some(Event::Starting(Resource::Task(task.clone())))
            );
            prop_assert_eq!(
                parse_message(LoggerKind::Worker, &format!("Stopping task {task}")),
                Some(Event::Stopping(Resource::Task(task)))
            );
            prop_assert_eq!(
                parse_message(LoggerKind::Herder, &format!("Connector {name} config updated")),
                Some(Event::ConnectorConfigUpdated(Name::from(name.as_str())))
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Real sample logs
// ---------------------------------------------------------------------------

mod samples {
    use super::*;
    use std::path::PathBuf;

    /// The directory of real worker logs named by `HERDER_AUDIT_REAL_SAMPLES`
    /// (never part of the repository); `None`, said on stderr, when unset.
    fn samples_dir() -> Option<PathBuf> {
        let Some(dir) = std::env::var_os("HERDER_AUDIT_REAL_SAMPLES") else {
            // Straight to stderr: the test harness captures `eprintln!`, and
            // a skipped check must be visible.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "real samples: HERDER_AUDIT_REAL_SAMPLES is not set, the real-log parser test is skipped"
            );
            return None;
        };
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "HERDER_AUDIT_REAL_SAMPLES={} is not a directory",
            dir.display()
        );
        Some(dir)
    }

    /// A crude line splitter for the test: logger from a trailing
    /// `(logger[:line])` or `[logger]`, message between the level and it, with
    /// `|| `, MDC and the `[Worker …] ` prefix removed.
    fn split(line: &str) -> Option<(&str, &str)> {
        let line = line.trim_end();
        let (body, logger) = if line.ends_with(')') {
            let k = line.rfind(" (")?;
            (&line[..k], &line[k + 2..line.len() - 1])
        } else if line.ends_with(']') {
            let k = line.rfind('[')?;
            (&line[..k], &line[k + 1..line.len() - 1])
        } else {
            return None;
        };
        let logger = logger.split(':').next()?;
        if !logger.starts_with("org.apache.kafka.") {
            return None;
        }
        let level_at = [" INFO ", " WARN ", " ERROR ", " DEBUG ", " TRACE "]
            .iter()
            .filter_map(|l| body.find(l).map(|k| k + l.len()))
            .min()?;
        let mut msg = body[level_at..].trim_start();
        msg = msg.strip_prefix("||").unwrap_or(msg).trim_start();
        // MDC `[conn|task-0] ` / `[conn|worker] ` / `[conn|task-0|offsets] `.
        if let Some(end) = msg.find("] ")
            && msg.starts_with('[')
            && msg[..end].contains('|')
        {
            msg = &msg[end + 2..];
        }
        if let Some(rest) = msg.strip_prefix("[Worker clientId=") {
            msg = rest.split_once("] ").map_or(msg, |(_, m)| m);
        }
        Some((logger, msg.trim_end()))
    }

    /// Messages of the classified loggers that are not lifecycle lines.
    fn ignorable(msg: &str) -> bool {
        const PREFIXES: [&str; 8] = [
            "Discovered coordinator ",
            "Discovered group coordinator ",
            "Join group failed with ",
            "[Consumer clientId=",
            "Ignoring connector tasks configuration commit ",
            "Ignoring task configuration for task ",
            "Initializing: ",
            "Set up the ",
        ];
        const TASK_NOISE: [&str; 4] = [
            "} Committing offsets",
            "} flushing ",
            "} Failed to flush,",
            "} failed to send record ",
        ];
        PREFIXES.iter().any(|p| msg.starts_with(p)) || TASK_NOISE.iter().any(|p| msg.contains(p))
    }

    #[test]
    fn every_lifecycle_line_of_the_real_samples_parses() {
        let Some(dir) = samples_dir() else {
            return;
        };
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no sample logs in {}", dir.display());

        let mut parsed = 0usize;
        let mut failures = Vec::new();
        let mut assignments = 0usize;
        let mut config_values = Vec::new();
        for path in &files {
            let bytes = std::fs::read(path).expect("readable sample");
            let text = String::from_utf8_lossy(&bytes);
            let mut in_dump = false;
            for (no, raw) in text.lines().enumerate() {
                let raw = raw.trim_end_matches('\r');
                if in_dump {
                    if let Some(kv) = parse_config_value(raw) {
                        config_values.push(kv);
                        continue;
                    }
                    in_dump = raw.contains(" = ");
                }
                if raw.contains("DistributedConfig values:") {
                    let msg = raw[raw.find("DistributedConfig").unwrap_or(0)..].trim_end();
                    assert_eq!(
                        parse_message(LoggerKind::Unknown, msg),
                        Some(Event::DistributedConfigDump)
                    );
                    in_dump = true;
                    continue;
                }
                let Some((logger, msg)) = split(raw) else {
                    continue;
                };
                let Some(kind) = LoggerKind::classify(logger) else {
                    continue;
                };
                // The REST server's only line of interest is its identity.
                if kind == LoggerKind::RestServer && !msg.starts_with("Advertised URI: ") {
                    continue;
                }
                // From ConnectUtils and WorkerConfig only the Kafka cluster
                // id is read.
                if (logger.ends_with(".util.ConnectUtils") || logger.ends_with(".WorkerConfig"))
                    && !msg.starts_with("Kafka cluster ID: ")
                {
                    continue;
                }
                if msg.is_empty() {
                    continue;
                }
                let event = parse_message(kind, msg);
                let where_ = format!("{}:{}", path.display(), no + 1);
                if ignorable(msg) {
                    assert_eq!(event, None, "{where_}: {msg}");
                    continue;
                }
                match event {
                    Some(e) => {
                        parsed += 1;
                        if msg.contains("got assignment: ") {
                            assert!(matches!(e, Event::Assignment { .. }), "{where_}: {e:?}");
                            assignments += 1;
                        }
                        // The same line parses with no logger known, too.
                        assert!(
                            parse_message(LoggerKind::Unknown, msg).is_some(),
                            "{where_} (Unknown): {msg}"
                        );
                    }
                    None => failures.push(format!("{where_} [{kind:?}] {msg}")),
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} lifecycle lines did not parse:\n{}",
            failures.len(),
            failures.join("\n")
        );
        assert!(parsed > 150, "only {parsed} lifecycle lines parsed");
        assert_eq!(assignments, 14, "assignment lines");
        eprintln!(
            "{parsed} lifecycle lines parsed in {} sample logs",
            files.len()
        );
        assert!(
            config_values
                .iter()
                .any(|(k, v)| *k == crate::event::ConfigKey::ConnectProtocol && v == "sessioned"),
            "{config_values:?}"
        );
    }

    #[test]
    fn sample_lines_in_every_shape() {
        // One line per layout style of the samples, split by the same crude
        // splitter, with the event expected.
        let cases: [(&str, Event); 8] = [
            (
                "[2021-07-17 15:59:46,657] INFO Kafka cluster ID: UI3GwUYnTQaPDsdk3RmKKg (org.apache.kafka.connect.util.ConnectUtils)",
                Event::KafkaClusterId("UI3GwUYnTQaPDsdk3RmKKg".into()),
            ),
            // From 3.4.0 WorkerConfig logs it (WorkerConfig.lookupKafkaClusterId).
            (
                "[2023-06-02 08:14:03,118] INFO Kafka cluster ID: 9Qk2xV7bRZeLw1n3Hc5TdA (org.apache.kafka.connect.runtime.WorkerConfig:342)",
                Event::KafkaClusterId("9Qk2xV7bRZeLw1n3Hc5TdA".into()),
            ),
            (
                "# [2022-03-13 10:50:46,213] INFO [http-sink|worker] Stopping connector http-sink (org.apache.kafka.connect.runtime.Worker:411)",
                Event::Stopping(conn("http-sink")),
            ),
            (
                "kafka-connect-2  | [2025-01-22 19:33:50,012] INFO [Worker clientId=connect-1, groupId=exam-cluster] Starting task cdc-exam-0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder)",
                Event::Starting(Resource::Task(TaskId::new("cdc-exam", 0))),
            ),
            (
                "2017-09-21 10:01:01,123 INFO   ||  Successfully joined group 1 with generation 1   [org.apache.kafka.clients.consumer.internals.AbstractCoordinator]",
                Event::JoinedGeneration {
                    generation: 1,
                    member_id: None,
                    protocol: None,
                    group: Some("1".into()),
                },
            ),
            (
                "\t\t[2018-11-04 10:00:00,000] INFO [Worker clientId=connect-1, groupId=default] Successfully joined group with generation 1 (org.apache.kafka.clients.consumer.internals.AbstractCoordinator:455)\r",
                Event::JoinedGeneration {
                    generation: 1,
                    member_id: None,
                    protocol: None,
                    group: None,
                },
            ),
            (
                "# [2021-02-04 10:47:25,098] ERROR WorkerSourceTask{id=kinesis-source-local-0} Task threw an uncaught and unrecoverable exception (org.apache.kafka.connect.runtime.WorkerTask)",
                Event::TaskKilled(TaskId::new("kinesis-source-local", 0)),
            ),
            (
                "# [2022-03-13 10:50:46,220] INFO [http-sink|worker] Completed shutdown for WorkerConnector{id=http-sink} (org.apache.kafka.connect.runtime.WorkerConnector:270)",
                Event::Stopped(conn("http-sink")),
            ),
        ];
        for (line, want) in cases {
            let (logger, msg) = split(line).expect("splittable");
            let kind = LoggerKind::classify(logger).expect("classified");
            assert_eq!(parse_message(kind, msg), Some(want), "{line}");
        }
    }
}

/// From 3.4.0 `Kafka cluster ID: …` comes from WorkerConfig: the whole
/// pipeline (prefilter, logger test, parser, replay) reads it from there as
/// it does from ConnectUtils, so twin clusters stay apart on 3.4+ logs.
#[test]
fn the_kafka_cluster_id_is_read_from_every_class_that_logs_it() {
    assert_eq!(
        LoggerKind::classify("org.apache.kafka.connect.runtime.WorkerConfig"),
        Some(LoggerKind::Connect)
    );
    // WorkerConfig's other lines are no lifecycle lines.
    assert_eq!(
        parse_message(
            LoggerKind::Connect,
            "Worker configuration property 'internal.key.converter' is deprecated and may be removed in an upcoming release."
        ),
        None
    );
    for (logger, id) in [
        (
            "org.apache.kafka.connect.util.ConnectUtils:80",
            "hT4mW8qZR2yC0vN6bK1dXg",
        ),
        (
            "org.apache.kafka.connect.runtime.WorkerConfig:342",
            "9Qk2xV7bRZeLw1n3Hc5TdA",
        ),
    ] {
        let log = format!(
            "[2023-06-02 08:14:02,990] INFO Kafka Connect starting (org.apache.kafka.connect.runtime.Connect:50)\n\
             [2023-06-02 08:14:03,118] INFO Kafka cluster ID: {id} ({logger})\n\
             [2023-06-02 08:14:04,001] INFO [Worker clientId=connect-1, groupId=connect-cluster] Herder started (org.apache.kafka.connect.runtime.distributed.DistributedHerder:374)\n"
        );
        let inputs = [crate::input::Input::bytes("w.log", log.into_bytes())];
        let report = crate::audit::audit(&inputs, &crate::audit::Options::default());
        let clusters: Vec<_> = report
            .workers
            .iter()
            .map(|w| w.summary.kafka_cluster.as_deref())
            .collect();
        assert_eq!(clusters, vec![Some(id)], "{logger}");
    }
}

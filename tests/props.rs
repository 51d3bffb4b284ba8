//! Properties over arbitrary input: no bytes make the auditor fail, and
//! whatever it reports quotes lines that are really in the input, at the
//! line numbers it gives.

mod support;

use herder_audit::Report;
use proptest::prelude::*;
use support::audit_bytes;

/// Every quoted line is the input's line at that number.
fn quotes_are_real(data: &[u8], r: &Report) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(data);
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    for f in r.findings() {
        prop_assert!(
            f.evidence.iter().any(|e| e.line == f.trigger),
            "trigger among evidence"
        );
        for e in f
            .evidence
            .iter()
            .map(|e| &e.line)
            .chain(std::iter::once(&f.trigger))
        {
            let n = e.line as usize;
            prop_assert!(n >= 1 && n <= lines.len(), "line {n} out of range");
            prop_assert_eq!(lines[n - 1], &*e.text);
        }
    }
    Ok(())
}

const RES: [&str; 4] = ["a", "b", "my conn.x", "a-b"];

fn resource() -> impl Strategy<Value = String> {
    (0..RES.len(), proptest::option::of(0u32..3)).prop_map(|(i, t)| match t {
        Some(n) => format!("task {}-{n}", RES[i]),
        None => format!("connector {}", RES[i]),
    })
}

fn list() -> impl Strategy<Value = String> {
    proptest::collection::vec((0..RES.len(), 0u32..3), 0..4).prop_map(|v| {
        v.iter()
            .map(|(i, n)| format!("{}-{n}", RES[*i]))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

fn names() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..RES.len(), 0..3)
        .prop_map(|v| v.iter().map(|i| RES[*i]).collect::<Vec<_>>().join(", "))
}

/// One lifecycle message (in any order, with any values).
fn message() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Kafka Connect starting".to_string()),
        Just("Herder starting".to_string()),
        Just("Herder stopping".to_string()),
        Just("Rebalance started".to_string()),
        Just("(Re-)joining group".to_string()),
        (1i32..6).prop_map(|g| format!("Successfully joined group with generation {g}")),
        (1i32..6, 0i64..3, -1i64..6, names(), list(), names(), list()).prop_map(|(g, p, o, c, t, rc, rt)| format!(
            "Joined group at generation {g} with protocol version {p} and got assignment: Assignment{{error=0, leader='l', leaderUrl='http://l:8083/', offset={o}, connectorIds=[{c}], taskIds=[{t}], revokedConnectorIds=[{rc}], revokedTaskIds=[{rt}], delay=0}} with rebalance delay: 0"
        )),
        (-1i64..6, names(), list()).prop_map(|(o, c, t)| format!(
            "Joined group and got assignment: Assignment{{error=0, leader='l', leaderUrl='http://l:8083/', offset={o}, connectorIds=[{c}], taskIds=[{t}]}}"
        )),
        (-1i64..6).prop_map(|o| format!("Starting connectors and tasks using config offset {o}")),
        Just("Finished starting connectors and tasks".to_string()),
        resource().prop_map(|r| format!("Starting {r}")),
        resource().prop_map(|r| format!("Stopping {r}")),
        resource().prop_map(|r| format!("Ignoring stop request for unowned {r}")),
        list().prop_map(|t| format!("Tasks [{t}] configs updated")),
        list().prop_map(|t| format!("Handling task config update by restarting tasks [{t}]")),
        (0..RES.len()).prop_map(|i| format!("Connector {} config updated", RES[i])),
        (0..RES.len()).prop_map(|i| format!("Handling connector-only config update by restarting connector {}", RES[i])),
        (-1i64..6, -1i64..6).prop_map(|(a, b)| format!("Current config state offset {a} is behind group assignment {b}, reading to end of config log")),
        (-1i64..6).prop_map(|o| format!("Finished reading to end of log and updated config snapshot, new config log offset: {o}")),
        (-1i64..6, -1i64..6).prop_map(|(a, b)| format!("Current config state offset {a} does not match group assignment {b}. Forcing rebalance.")),
        Just("Wasn't able to resume work after last rebalance, can skip stopping connectors and tasks".to_string()),
        Just("Finished stopping tasks in preparation for rebalance".to_string()),
        Just("Didn't reach end of config log quickly enough".to_string()),
        Just("Broker coordinator was unreachable for 3000ms. Revoking previous assignment Assignment{error=0, leader='l', leaderUrl='u', offset=1, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0} to avoid running tasks while not being a member the group".to_string()),
        Just("Executing plan to restart connector and 1 of 1 tasks for restart request for {connectorName='a', onlyFailed=false, includeTasks=true}".to_string()),
        Just("Completed plan to restart connector and 1 of 1 tasks for restart request for {connectorName='a', onlyFailed=false, includeTasks=true}".to_string()),
        Just("org.apache.kafka.connect.errors.ConnectException: Task already exists in this worker: a-0".to_string()),
        Just("\tat org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:1)".to_string()),
    ]
}

/// A line in one of the layouts, with the logger the message belongs to.
fn line() -> impl Strategy<Value = String> {
    (message(), 0u8..4, 0u32..86_400_000, any::<bool>()).prop_map(|(m, layout, ms, worker)| {
        let logger = if m.starts_with("Stopping ") || m.starts_with("Ignoring ") {
            "org.apache.kafka.connect.runtime.Worker"
        } else if m.contains("joining") || m.starts_with("Successfully") || m == "Rebalance started"
        {
            "org.apache.kafka.connect.runtime.distributed.WorkerCoordinator"
        } else if m.starts_with("Kafka Connect") {
            "org.apache.kafka.connect.runtime.Connect"
        } else {
            "org.apache.kafka.connect.runtime.distributed.DistributedHerder"
        };
        if m.starts_with("org.") || m.starts_with('\t') {
            return m;
        }
        let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
        let ts = format!(
            "2024-05-01 {:02}:{:02}:{:02},{:03}",
            h,
            rest / 60_000,
            (rest / 1000) % 60,
            rest % 1000
        );
        let prefix = if worker {
            "[Worker clientId=connect-1, groupId=g] "
        } else {
            ""
        };
        match layout {
            0 => format!("[{ts}] INFO {prefix}{m} ({logger}:42)"),
            1 => format!("{ts} INFO   ||  {prefix}{m}   [{logger}]"),
            2 => format!("connect-1  | [{ts}] INFO {prefix}{m} ({logger})"),
            _ => format!("# [{ts}] WARN {prefix}{m} ({logger}:7)\r"),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_fail(data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let r = audit_bytes("prop.log", data.as_slice());
        // Bytes that start like gzip are read as gzip: a corrupt stream is
        // an input error, not a failure.
        prop_assert!(r.errors.is_empty() || data.starts_with(&[0x1f, 0x8b]), "{:?}", r.errors);
        quotes_are_real(&data, &r)?;
    }

    #[test]
    fn arbitrary_line_sequences_quote_real_lines(lines in proptest::collection::vec(line(), 0..80)) {
        let data = lines.join("\n");
        let r = audit_bytes("prop.log", data.as_bytes());
        prop_assert!(r.errors.is_empty(), "{:?}", r.errors);
        quotes_are_real(data.as_bytes(), &r)?;
    }

    #[test]
    fn lifecycle_lines_mixed_with_garbage(
        lines in proptest::collection::vec(line(), 0..40),
        junk in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..120), 0..40),
    ) {
        let mut data = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            data.extend_from_slice(l.as_bytes());
            data.push(b'\n');
            if let Some(j) = junk.get(i) {
                data.extend(j.iter().map(|&b| if b == b'\n' { b' ' } else { b }));
                data.push(b'\n');
            }
        }
        let r = audit_bytes("prop.log", data.as_slice());
        // Bytes that start like gzip are read as gzip: a corrupt stream is
        // an input error, not a failure.
        prop_assert!(r.errors.is_empty() || data.starts_with(&[0x1f, 0x8b]), "{:?}", r.errors);
        quotes_are_real(&data, &r)?;
    }

    /// The same lines in the envelope of a container runtime or a log
    /// store, split or stored out of order (`harness::sources`).
    #[test]
    fn lifecycle_lines_in_every_envelope(
        kind in 0u8..10,
        how in any::<u8>(),
        lines in proptest::collection::vec(line(), 0..60),
    ) {
        let mut data = vec![kind, how];
        data.extend_from_slice(lines.join("\n").as_bytes());
        let internal = herder_audit::testing::harness::sources(&data);
        prop_assert!(internal.is_empty(), "{:?}", internal);
    }
}

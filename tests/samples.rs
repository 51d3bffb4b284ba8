//! The reality check: real worker logs from public repositories, kept
//! outside the project (never copied into it). Every lifecycle line in them
//! must be recognised and none may produce an error-level finding. The
//! directory is named by the environment variable `HERDER_AUDIT_REAL_SAMPLES`
//! (its `*.log` files are read); without it the tests say so and pass.

use herder_audit::Input;
use herder_audit::Severity;
use herder_audit::testing::harness;
use herder_audit::{Options, audit};
use std::io::Write;
use std::path::PathBuf;

const VAR: &str = "HERDER_AUDIT_REAL_SAMPLES";

fn samples() -> Option<Vec<PathBuf>> {
    let Some(dir) = std::env::var_os(VAR) else {
        // Straight to stderr: the test harness captures `eprintln!`, and
        // a skipped check must be visible.
        let _ = writeln!(
            std::io::stderr(),
            "real samples: {VAR} is not set, the real-log tests are skipped"
        );
        return None;
    };
    let dir = PathBuf::from(dir);
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{VAR}={}: {e}", dir.display()));
    let mut v: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{VAR}={}: no *.log file", dir.display());
    Some(v)
}

/// Message fragments of the lifecycle lines of docs/log-formats.md (herder, coordinator,
/// worker, startup/shutdown).
const LIFECYCLE: &[&str] = &[
    "Joined group and got assignment",
    "Joined group at generation",
    "Successfully joined group",
    "Successfully synced group",
    "(Re-)joining group",
    "Rebalance started",
    "Starting connectors and tasks using config offset",
    "Finished starting connectors and tasks",
    "] Starting connector ",
    "] Starting task ",
    "Stopping connector ",
    "Stopping task ",
    "Ignoring stop request",
    "Ignoring await stop request",
    "config updated",
    "configs updated",
    "config removed",
    "Handling task config update",
    "Handling connector-only config update",
    "Catching up to assignment",
    "is behind group assignment",
    "Finished reading to end of log",
    "does not match group assignment",
    "Herder starting",
    "Herder started",
    "Herder stopping",
    "Herder stopped",
    "Kafka Connect starting",
    "Kafka Connect started",
    "Kafka Connect stopping",
    "Kafka Connect stopped",
    "Finished stopping tasks in preparation for rebalance",
    "Creating task ",
    "Creating connector ",
    "Finished creating connector",
    "Session key updated",
    "Stopping connectors and tasks that are still assigned",
    "Scheduled shutdown for WorkerConnector",
    "Completed shutdown for WorkerConnector",
];

fn is_lifecycle(line: &str) -> bool {
    let client = [
        "[Consumer clientId=",
        "[Producer clientId=",
        "[AdminClient clientId=",
    ]
    .iter()
    .any(|c| line.contains(c));
    let connect_logger =
        line.contains("org.apache.kafka.connect.") || line.contains("AbstractCoordinator");
    !client && connect_logger && LIFECYCLE.iter().any(|p| line.contains(p))
}

#[test]
fn every_lifecycle_line_of_the_real_samples_is_recognised() {
    let Some(files) = samples() else { return };
    let mut missed = Vec::new();
    let mut total = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let hit = harness::event_lines(&bytes);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        for (i, line) in text.lines().enumerate() {
            if is_lifecycle(line) {
                total += 1;
                if !hit.contains(&(i as u64 + 1)) {
                    missed.push(format!("{}:{}: {line}", f.display(), i + 1));
                }
            }
        }
    }
    assert!(
        total > 100,
        "only {total} lifecycle lines found in the samples"
    );
    assert!(
        missed.is_empty(),
        "unrecognised lifecycle lines:\n{}",
        missed.join("\n")
    );
}

#[test]
fn real_samples_have_no_error_level_finding() {
    let Some(files) = samples() else { return };
    for f in &files {
        let report = audit(&[Input::File(f.clone())], &Options::default());
        assert!(
            report.errors.is_empty(),
            "{}: {:?}",
            f.display(),
            report.errors
        );
        let errors: Vec<String> = report
            .findings()
            .filter(|x| x.severity() == Severity::Error)
            .map(|x| {
                format!(
                    "{} {:?} line {}: {}",
                    x.kind, x.resource, x.trigger.line, x.reason
                )
            })
            .collect();
        assert!(errors.is_empty(), "{}:\n{}", f.display(), errors.join("\n"));
        assert!(
            report.workers.iter().map(|w| w.summary.events).sum::<u64>() > 0,
            "{}: no lifecycle event read",
            f.display()
        );
    }
}

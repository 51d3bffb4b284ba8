//! A deterministic simulator of a Kafka Connect cluster in distributed
//! mode: it prints exactly the lines real workers print (one log per worker,
//! in a chosen Kafka version's wording and a chosen layout, with noise), and
//! writes down the ground truth: what a correct cluster did (nothing to
//! report) or what one injected fault implies (the findings, on their lines).
//!
//! `herder-audit simulate --workers N --connectors M --events K --seed S
//! [--protocol eager|cooperative] [--kafka-version V] [--layout L]
//! [--fault F] [--noise R] --out DIR`

mod archive;
mod data;
mod emit;
mod model;
mod oracle;
mod rng;
pub mod truth;
pub mod version;

pub use archive::{Archive, write_archive, write_cluster_flat};
pub use data::Proto;
pub use emit::out::Layout;
pub use truth::{ALL_FAULTS, ArchiveTruth, Expected, FaultKind, Scope, Truth};
pub use version::Version;

use emit::out::{Rotation, Segment};
use std::io::{self, Write};

/// The Kafka cluster id of a single simulated cluster.
pub const DEFAULT_KAFKA_CLUSTER_ID: &str = "kRqWt5d6TX2QvG3yJx1mRw";

/// The default probability that a start fails.
pub const DEFAULT_FAIL_RATE: f64 = 0.02;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct Params {
    pub workers: usize,
    /// Connectors created once the cluster is up.
    pub connectors: usize,
    /// Random events after that.
    pub events: usize,
    pub seed: u64,
    pub protocol: Proto,
    pub version: Version,
    pub layout: Layout,
    pub fault: Option<FaultKind>,
    /// The event before which the fault is armed (it fires at the first
    /// opportunity from there).
    pub fault_at: Option<usize>,
    /// Probability that another noise record follows a record.
    pub noise: f64,
    pub group: String,
    pub max_tasks: u16,
    /// `scheduled.rebalance.max.delay.ms`
    pub delay_ms: i64,
    /// Probability that a worker reads a batch of config records late.
    pub lag: f64,
    /// Probability that a config record lands while the group syncs.
    pub concurrent: f64,
    /// The Kafka cluster's id the workers log (`Kafka cluster ID: …`).
    pub kafka_cluster_id: String,
    /// Worker host names are `connect-N`, or `connect-N.<domain>`.
    pub host_domain: Option<String>,
    /// Probability that a start of a connector or task fails (a missing
    /// plugin on the worker, an invalid config): normal behaviour, which
    /// implies no finding.
    pub fail_rate: f64,
}

impl Params {
    /// Defaults for a version and protocol.
    pub fn new(seed: u64, version: Version, protocol: Proto) -> Params {
        Params {
            workers: 3,
            connectors: 4,
            events: 40,
            seed,
            protocol,
            version,
            layout: if version.default_mdc_layout() {
                Layout::ApacheMdc
            } else {
                Layout::Apache
            },
            fault: None,
            fault_at: None,
            noise: 0.8,
            group: "connect-cluster".to_string(),
            max_tasks: 4,
            delay_ms: 300_000,
            lag: 0.25,
            concurrent: 0.05,
            kafka_cluster_id: DEFAULT_KAFKA_CLUSTER_ID.to_string(),
            host_domain: None,
            fail_rate: DEFAULT_FAIL_RATE,
        }
    }

    /// Checks the combination; the message says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.workers == 0 || self.workers > 256 {
            return Err("--workers must be between 1 and 256".into());
        }
        if !(0..=86_400_000).contains(&self.delay_ms) {
            return Err("--rebalance-delay-ms must be between 0 and 86400000".into());
        }
        if self.max_tasks == 0 {
            return Err("--max-tasks must be at least 1".into());
        }
        if !(0.0..1.0).contains(&self.noise) {
            return Err("--noise must be in [0, 1)".into());
        }
        if !(0.0..1.0).contains(&self.fail_rate) {
            return Err("--fail-rate must be in [0, 1)".into());
        }
        if self.version.eager_only() && self.protocol != Proto::Eager {
            return Err(format!(
                "Kafka {} has only the eager protocol",
                self.version.name()
            ));
        }
        if self.protocol == Proto::Sessioned && self.version < Version::V2_4 {
            return Err(format!(
                "the sessioned protocol needs Kafka 2.4 or later, not {}",
                self.version.name()
            ));
        }
        if let Some(f @ (FaultKind::RestartMovedTask | FaultKind::PollTimeoutLeave)) = self.fault
            && self.workers < 2
        {
            return Err(format!("fault {f} needs at least 2 workers"));
        }
        if let Some(f) = self.fault {
            f.exists_in(self.version)?;
        }
        if let Some(f) = self.fault
            && f.cooperative_only()
            && !self.protocol.cooperative()
        {
            return Err(format!(
                "fault {f} exists only under a cooperative protocol"
            ));
        }
        Ok(())
    }

    /// The event the fault is armed at: the chosen one, else one drawn from the seed.
    pub fn fault_event(&self) -> usize {
        match self.fault_at {
            Some(e) => e,
            None => {
                let mut r = rng::Rng::new(self.seed ^ 0x5EED_FA17);
                r.below(self.events.max(1) as u64) as usize
            }
        }
    }
}

/// The log file name of worker `i` (0-based).
pub fn worker_file(i: usize) -> String {
    format!("connect-{}.log", i + 1)
}

/// Runs a simulation, writing worker `i`'s log to `outs[i]`. With
/// `record_lifecycle`, the truth lists every lifecycle line number (tests).
pub fn simulate(
    p: &Params,
    outs: Vec<Box<dyn Write>>,
    record_lifecycle: bool,
) -> io::Result<Truth> {
    let sinks = outs.into_iter().map(Sink::One).collect();
    run_cluster(p, sinks, record_lifecycle).map(|(t, _)| t)
}

/// Where a worker's log goes.
pub(crate) enum Sink {
    /// One writer.
    One(Box<dyn Write>),
    /// Segment files, rotated by size.
    Rotated(Rotation),
}

/// Runs one cluster: its truth (one file per worker, named by
/// [`worker_file`]) and each worker's segments.
pub(crate) fn run_cluster(
    p: &Params,
    sinks: Vec<Sink>,
    record_lifecycle: bool,
) -> io::Result<(Truth, Vec<Vec<Segment>>)> {
    p.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    if sinks.len() != p.workers {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "one output per worker",
        ));
    }
    let mut p = p.clone();
    if p.fault.is_some() {
        p.fault_at = Some(p.fault_event());
    }
    let mut outs: Vec<Box<dyn Write>> = Vec::with_capacity(sinks.len());
    let mut rotations = Vec::new();
    for (w, s) in sinks.into_iter().enumerate() {
        match s {
            Sink::One(out) => outs.push(out),
            Sink::Rotated(rot) => {
                outs.push(Box::new(io::sink()));
                rotations.push((w, rot));
            }
        }
    }
    let mut cl = model::Cluster::new(p.clone(), outs, record_lifecycle);
    for (w, rot) in rotations {
        cl.em.rotate(w, rot)?;
    }
    let first = cl.em.clock.text();
    cl.run();
    let mut files = Vec::new();
    let mut lifecycle = Vec::new();
    let mut segments = Vec::new();
    let mut total_lines = 0;
    let mut total_bytes = 0;
    // The logs end: a leaver's last line may prove what its log had not.
    {
        let em = &cl.em;
        cl.oracle.finish(|w| em.last_ms(w));
    }
    for (i, out) in cl.em.finish()?.into_iter().enumerate() {
        let wk = &cl.workers[i];
        total_lines += out.lines;
        total_bytes += out.bytes;
        files.push(truth::FileInfo {
            cluster: None,
            worker: wk.host.clone(),
            file: worker_file(i),
            lines: out.lines,
            bytes: out.bytes,
            gzip: false,
            rest_url: wk.url.clone(),
        });
        lifecycle.push(out.lifecycle);
        segments.push(out.segments);
    }
    let mut stats = std::mem::take(&mut cl.stats);
    stats.lines = total_lines;
    stats.bytes = total_bytes;
    stats.config_records = cl.log.len();
    stats.first_time = first;
    stats.last_time = cl.em.clock.text();
    let mut expected = std::mem::take(&mut cl.oracle.expected);
    expected.sort_unstable();
    let fault = p.fault.map(|kind| {
        cl.fault.info.clone().unwrap_or(truth::FaultInfo {
            kind,
            armed_at_event: p.fault_event(),
            injected: false,
            event: None,
            worker: None,
            file: None,
            line: None,
            time: None,
            generation: None,
            resource: None,
            detail: "no opportunity for the fault came up".into(),
            worker_index: None,
        })
    });
    let truth = Truth {
        schema: truth::SCHEMA,
        scenario: truth::Scenario {
            seed: p.seed,
            workers: p.workers,
            connectors: p.connectors,
            events: p.events,
            protocol: p.protocol.config_name(),
            kafka_version: p.version.name(),
            layout: p.layout.name(),
            log_pattern: p.layout.pattern(),
            noise: p.noise,
            group: p.group.clone(),
            kafka_cluster_id: p.kafka_cluster_id.clone(),
            max_tasks: p.max_tasks,
            rebalance_delay_ms: p.delay_ms,
        },
        files,
        fault,
        expected,
        stats,
        lifecycle_lines: lifecycle,
    };
    Ok((truth, segments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared_buf::SharedBuf as Buf;

    fn sim(p: &Params) -> (Truth, Vec<Vec<u8>>) {
        let bufs: Vec<Buf> = (0..p.workers).map(|_| Buf::default()).collect();
        let outs = bufs
            .iter()
            .map(|b| Box::new(b.clone()) as Box<dyn Write>)
            .collect();
        let t = simulate(p, outs, false).unwrap();
        let logs = bufs.iter().map(|b| b.0.lock().unwrap().clone()).collect();
        (t, logs)
    }

    fn params(seed: u64) -> Params {
        let mut p = Params::new(seed, Version::V3_6, Proto::Sessioned);
        p.events = 25;
        p
    }

    #[test]
    fn a_seed_names_the_same_logs_byte_for_byte() {
        let p = params(42);
        let (t1, l1) = sim(&p);
        let (t2, l2) = sim(&p);
        assert_eq!(l1, l2);
        assert_eq!(
            serde_json::to_string(&t1).unwrap(),
            serde_json::to_string(&t2).unwrap()
        );
        let (_, l3) = sim(&params(43));
        assert_ne!(l1, l3);
    }

    #[test]
    fn noise_never_changes_what_happens() {
        for (seed, fault) in [
            (1, None),
            (2, Some(FaultKind::SkipRevokedStop)),
            (3, Some(FaultKind::Kafka8676)),
        ] {
            let mut quiet = params(seed);
            quiet.noise = 0.0;
            quiet.fault = fault;
            let mut loud = quiet.clone();
            loud.noise = 0.7;
            let (a, la) = sim(&quiet);
            let (b, lb) = sim(&loud);
            assert_eq!(a.stats.generations, b.stats.generations);
            assert_eq!(a.stats.starts, b.stats.starts);
            assert_eq!(a.stats.stops, b.stats.stops);
            assert_eq!(a.stats.config_records, b.stats.config_records);
            let key = |t: &Truth| -> Vec<(String, &'static str, String)> {
                t.expected
                    .iter()
                    .map(|e| (e.file.clone(), e.kind, e.resource.clone()))
                    .collect()
            };
            assert_eq!(key(&a), key(&b));
            let bytes = |l: &[Vec<u8>]| l.iter().map(Vec::len).sum::<usize>();
            assert!(bytes(&lb) > 2 * bytes(&la));
        }
    }

    #[test]
    fn every_version_layout_and_protocol_runs() {
        for v in version::ALL {
            for layout in [
                Layout::Apache,
                Layout::ApacheMdc,
                Layout::Debezium,
                Layout::Strimzi,
            ] {
                let protos: &[Proto] = if v.eager_only() {
                    &[Proto::Eager]
                } else if v < Version::V2_4 {
                    &[Proto::Eager, Proto::Compatible]
                } else {
                    &[Proto::Eager, Proto::Compatible, Proto::Sessioned]
                };
                for &proto in protos {
                    let mut p = Params::new(7, v, proto);
                    p.layout = layout;
                    p.events = 10;
                    let (t, logs) = sim(&p);
                    assert!(t.expected.is_empty(), "{v} {layout:?} {proto:?}");
                    let text = String::from_utf8(logs[0].clone()).unwrap();
                    assert!(text.contains("DistributedConfig values: "));
                    assert!(text.contains("Starting connectors and tasks using config offset"));
                    if v >= Version::V2_3 {
                        let want = format!("\tconnect.protocol = {}", proto.config_name());
                        assert!(text.contains(&want), "{v}: {want}");
                    }
                }
            }
        }
    }

    #[test]
    fn failed_starts_print_as_their_version_does_and_imply_nothing() {
        let count = |logs: &[Vec<u8>], needle: &str| -> usize {
            logs.iter()
                .map(|l| String::from_utf8_lossy(l).matches(needle).count())
                .sum()
        };
        for (v, proto) in [
            (Version::V2_2, Proto::Eager),
            (Version::V2_4, Proto::Sessioned),
            (Version::V2_8, Proto::Compatible),
            (Version::V3_6, Proto::Sessioned),
        ] {
            let mut p = Params::new(9, v, proto);
            p.events = 60;
            p.fail_rate = 0.3;
            let (t, logs) = sim(&p);
            assert!(t.expected.is_empty(), "{v}: {:?}", t.expected);
            assert!(t.stats.events.get("failed-start").is_some_and(|&n| n > 5));
            assert!(count(&logs, "Failed to start task ") > 0, "{v}");
            assert!(count(&logs, "Failed to start connector ") > 0, "{v}");
            // The herder's callback line exists from 2.6.3, the type check from 3.3.0.
            assert_eq!(
                count(&logs, "Failed to start connector '") > 0,
                v >= Version::V2_8
            );
            assert_eq!(
                count(&logs, "Unable to retrieve connector type") > 0,
                v >= Version::V3_6
            );
            assert_eq!(count(&logs, "' restart failed") > 0, v >= Version::V3_6);
            // A failed task is not retried while it stays assigned: its next
            // start follows a stop of it (revocation, reconfiguration,
            // restart) or a new process.
            for log in &logs {
                let text = String::from_utf8_lossy(log);
                let mut failed: Vec<String> = Vec::new();
                for line in text.lines() {
                    if let Some(i) = line.find("Failed to start task ") {
                        let id = line[i + 21..].split(' ').next().unwrap().to_string();
                        failed.push(id);
                    } else if line.contains("Kafka Connect starting") {
                        failed.clear();
                    } else if let Some(i) = line.find("Ignoring stop request for unowned task ") {
                        let id = line[i + 39..].split(' ').next().unwrap();
                        failed.retain(|f| f != id);
                    } else if let Some(i) = line.find("Starting task ") {
                        let id = line[i + 14..].split(' ').next().unwrap();
                        assert!(!failed.iter().any(|f| f == id), "{v}: {id} retried: {line}");
                    }
                }
            }
            // Without failures, the same scenario.
            p.fail_rate = 0.0;
            let (quiet, _) = sim(&p);
            assert!(!quiet.stats.events.contains_key("failed-start"));
        }
    }

    /// The lines of `logs[file]`.
    fn lines_of<'a>(t: &Truth, logs: &'a [Vec<u8>], file: &str) -> Vec<&'a str> {
        let i = t.files.iter().position(|f| f.file == file).unwrap();
        std::str::from_utf8(&logs[i]).unwrap().lines().collect()
    }

    #[test]
    fn a_poll_timeout_leave_keeps_the_leavers_work_running_elsewhere_too() {
        for (v, seed) in [(Version::V3_0, 2), (Version::V3_6, 3)] {
            let mut p = Params::new(seed, v, Proto::Sessioned);
            p.fault = Some(FaultKind::PollTimeoutLeave);
            p.fail_rate = 0.0;
            let (t, logs) = sim(&p);
            let f = t.fault.as_ref().unwrap();
            assert!(f.injected);
            let leaver = lines_of(&t, &logs, f.file.as_deref().unwrap());
            let at = f.line.unwrap() as usize - 1;
            assert!(leaver[at].contains("sending LeaveGroup request to coordinator"));
            // The worker's own records around it (noise aside).
            let own = |l: &str| l.contains("[Worker clientId=connect-1, groupId=");
            let before = leaver[..at].iter().rev().find(|l| own(l)).unwrap();
            assert!(before.contains("consumer poll timeout has expired. This means"));
            let after = leaver[at + 1..].iter().find(|l| own(l)).unwrap();
            let reset = if v >= Version::V3_6 {
                "Resetting generation and member id due to: consumer pro-actively leaving the group"
            } else {
                "Resetting generation due to: consumer pro-actively leaving the group"
            };
            assert!(after.contains(reset), "{after}");
            // Nothing stopped on leaving: the next stop comes after it rejoins.
            let rejoin = (at..leaver.len())
                .find(|&k| leaver[k].contains("Rebalance started"))
                .unwrap();
            assert!(!leaver[at..rejoin].iter().any(|l| l.contains("Stopping ")));
            assert!(!t.expected.is_empty());
            for e in &t.expected {
                assert_eq!((e.kind, e.scope), ("zombie", Scope::Cluster));
                assert_ne!(Some(&e.file), f.file.as_ref());
                let line = lines_of(&t, &logs, &e.file)[e.line as usize - 1];
                assert!(line.contains("Starting ") && line.contains(&e.resource));
                // The leaver stops it only once back.
                let kind = if e.resource.ends_with(|c: char| c.is_ascii_digit()) {
                    "task"
                } else {
                    "connector"
                };
                let stopping = format!("Stopping {kind} {} (", e.resource);
                let stop = (at..leaver.len()).find(|&k| leaver[k].contains(&stopping));
                assert!(stop.is_none_or(|k| k > rejoin), "{v}: {e:?}");
            }
        }
    }

    #[test]
    fn a_connector_created_again_starts_stale_tasks_up_to_2_5_0() {
        for v in [Version::V2_0, Version::V2_3, Version::V2_4] {
            let proto = if v.eager_only() {
                Proto::Eager
            } else {
                Proto::Compatible
            };
            let mut p = Params::new(3, v, proto);
            p.fault = Some(FaultKind::StaleConfigStart);
            let (t, logs) = sim(&p);
            assert!(t.fault.as_ref().unwrap().injected);
            assert!(!t.expected.is_empty(), "{v}");
            for e in &t.expected {
                assert_eq!((e.kind, e.scope), ("stale-config-start", Scope::Worker));
                let lines = lines_of(&t, &logs, &e.file);
                let at = e.line as usize - 1;
                assert!(lines[at].contains(&format!("Starting task {}", e.resource)));
                let conn = e.resource.rsplit_once('-').unwrap().0;
                // Removed, created again, no task configs of its own since.
                let updated = (0..at)
                    .rev()
                    .find(|&k| lines[k].contains(&format!("Connector {conn} config updated")))
                    .unwrap();
                assert!(
                    (0..updated)
                        .rev()
                        .find(|&k| lines[k].contains(&format!("Connector {conn} config ")))
                        .is_some_and(|k| lines[k].contains("config removed"))
                );
                assert!(
                    !lines[updated..at]
                        .iter()
                        .any(|l| l.contains("configs updated") && l.contains(&format!("{conn}-")))
                );
            }
        }
        let mut p = Params::new(3, Version::V2_8, Proto::Compatible);
        p.fault = Some(FaultKind::StaleConfigStart);
        assert!(p.validate().is_err(), "fixed in 2.5.1");
        p.fault = Some(FaultKind::PollTimeoutLeave);
        p.version = Version::V2_4;
        assert!(p.validate().is_err(), "3.x wording only");
    }

    #[test]
    fn invalid_combinations_are_refused() {
        let mut p = Params::new(1, Version::V2_2, Proto::Compatible);
        assert!(p.validate().is_err());
        p.protocol = Proto::Eager;
        assert!(p.validate().is_ok());
        p.fault = Some(FaultKind::SpuriousStop);
        assert!(p.validate().is_err());
        let mut q = Params::new(1, Version::V2_3, Proto::Sessioned);
        assert!(q.validate().is_err());
        q.protocol = Proto::Compatible;
        q.fault = Some(FaultKind::RestartMovedTask);
        q.workers = 1;
        assert!(q.validate().is_err());
        q.workers = 2;
        assert!(q.validate().is_ok());
    }

    #[test]
    fn truth_names_the_fault_and_its_findings() {
        let mut p = params(5);
        p.fault = Some(FaultKind::DoubleStart);
        let (t, logs) = sim(&p);
        let f = t.fault.as_ref().unwrap();
        assert!(f.injected);
        let e = t
            .expected
            .iter()
            .find(|e| e.kind == "double-start")
            .unwrap();
        assert_eq!(Some(e.line), f.line);
        let i = t.files.iter().position(|x| x.file == e.file).unwrap();
        let text = String::from_utf8_lossy(&logs[i]);
        let line = text.lines().nth(e.line as usize - 1).unwrap();
        assert!(
            line.contains(&format!("Starting task {}", e.resource)),
            "{line}"
        );
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["schema"], truth::SCHEMA);
        assert_eq!(json["fault"]["kind"], "double-start");
        assert!(json.get("lifecycle_lines").is_none());
    }
}

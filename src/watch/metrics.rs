//! The metrics `herder-audit watch` serves, in the Prometheus and
//! OpenMetrics text formats (`prometheus-client`), and the small model of
//! the cluster they are read from: per group its generation, per worker
//! what it runs and when it last wrote a line. docs/watch.md lists every
//! series.
//!
//! Cardinality is bounded by design: labels are groups, workers (one per
//! stream being read; a stream's series go when it ends), finding kinds and
//! connectors, at most [`Limits::connectors`] distinct connector values
//! (past that, `connector="_other"`). No line numbers, member ids or task
//! indexes.

use crate::finding::{Finding, Kind};
use crate::model::Resource;
use crate::replay::FactKind;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::{Registry, Unit};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Instant, SystemTime};

/// The value of the `connector` label once the cap is reached.
pub const OTHER: &str = "_other";

/// Bounds of the label values.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Distinct `connector` label values at most.
    pub connectors: usize,
}

/// A series' labels, in the order they are written. One type for every
/// family, so that `prometheus-client`'s generic code (a family's map, its
/// encoding) is compiled once per metric type, not once per label set.
type Labels = Vec<(&'static str, String)>;

/// A one-label set.
fn label(key: &'static str, value: &str) -> Labels {
    vec![(key, value.to_string())]
}

/// `kind`, `severity`, `group`, `connector`: a finding's labels.
fn finding_labels(kind: &str, severity: &str, group: &str, connector: String) -> Labels {
    vec![
        ("kind", kind.to_string()),
        ("severity", severity.to_string()),
        ("group", group.to_string()),
        ("connector", connector),
    ]
}

type FloatGauge = Gauge<f64, AtomicU64>;

/// One worker as its facts show it.
#[derive(Debug, Default)]
struct WorkerModel {
    group: Option<Arc<str>>,
    running: BTreeSet<Resource>,
}

/// One stream being read.
#[derive(Debug)]
struct StreamModel {
    bytes: u64,
    lines: u64,
    /// When it last read something, and that moment in Unix time.
    last: Instant,
    last_unix: f64,
    idle: bool,
    /// It has been idle (read what was there) at least once.
    caught_up: bool,
}

/// The registry, its series, and what they are computed from.
pub struct Metrics {
    registry: Registry,
    limits: Limits,
    findings: Family<Labels, Counter>,
    rebalances: Family<Labels, Counter>,
    generation: Family<Labels, Gauge>,
    workers: Family<Labels, Gauge>,
    last_line: Family<Labels, FloatGauge>,
    silent: Family<Labels, FloatGauge>,
    running: Family<Labels, Gauge>,
    lines: Family<Labels, Counter>,
    bytes: Family<Labels, Counter>,
    unordered: Family<Labels, Counter>,
    input_errors: Family<Labels, Counter>,
    follow_events: Family<Labels, Counter>,
    streams: Family<Labels, Gauge>,
    suppressed: Counter,
    state_writes: Family<Labels, Counter>,
    ready: Gauge,
    last_finding: Family<Labels, FloatGauge>,
    interruptions: Family<Labels, Counter>,
    downtime: Family<Labels, Counter<f64, AtomicU64>>,
    topic_records: Family<Labels, Counter>,
    topics_up: Family<Labels, Gauge>,
    /// Connector label values handed out.
    connectors: HashSet<String>,
    groups: HashMap<Arc<str>, i32>,
    worker_models: HashMap<Arc<str>, WorkerModel>,
    stream_models: HashMap<String, StreamModel>,
    /// What readiness waits for besides the streams.
    pub readiness: super::ready::Readiness,
    started: Instant,
}

/// Registers `metric` under `name` (with the unit's suffix, if any).
fn add(
    r: &mut Registry,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    metric: impl prometheus_client::registry::Metric,
) {
    match unit {
        Some(u) => r.register_with_unit(name, help, u, metric),
        None => r.register(name, help, metric),
    }
}

/// The git commit the binary was built from (`--version` names it), or
/// `unknown`.
fn commit() -> &'static str {
    env!("HERDER_AUDIT_VERSION")
        .split_once("(git ")
        .and_then(|(_, c)| c.strip_suffix(')'))
        .unwrap_or("unknown")
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Metrics {
    pub fn new(limits: Limits) -> Metrics {
        let mut r = Registry::with_prefix("herder_audit");
        let m = Metrics {
            registry: Registry::default(),
            limits,
            findings: Family::default(),
            rebalances: Family::default(),
            generation: Family::default(),
            workers: Family::default(),
            last_line: Family::default(),
            silent: Family::default(),
            running: Family::default(),
            lines: Family::default(),
            bytes: Family::default(),
            unordered: Family::default(),
            input_errors: Family::default(),
            follow_events: Family::default(),
            streams: Family::default(),
            suppressed: Counter::default(),
            state_writes: Family::default(),
            ready: Gauge::default(),
            last_finding: Family::default(),
            interruptions: Family::default(),
            downtime: Family::default(),
            topic_records: Family::default(),
            topics_up: Family::default(),
            connectors: HashSet::new(),
            groups: HashMap::new(),
            worker_models: HashMap::new(),
            stream_models: HashMap::new(),
            readiness: Default::default(),
            started: Instant::now(),
        };
        add(
            &mut r,
            "findings",
            "Findings emitted, by kind, severity, group and connector (capped: _other)",
            None,
            m.findings.clone(),
        );
        add(
            &mut r,
            "rebalances",
            "Rebalances seen per group: each new generation (or epoch) of the group",
            None,
            m.rebalances.clone(),
        );
        add(
            &mut r,
            "generation",
            "The latest generation an assignment line of the group named",
            None,
            m.generation.clone(),
        );
        add(
            &mut r,
            "workers",
            "Workers of the group being read",
            None,
            m.workers.clone(),
        );
        add(
            &mut r,
            "worker_last_line_timestamp",
            "Unix time when the worker's log last gave a line",
            Some(Unit::Seconds),
            m.last_line.clone(),
        );
        add(
            &mut r,
            "worker_silence",
            "Seconds since the worker's log last gave a line",
            Some(Unit::Seconds),
            m.silent.clone(),
        );
        add(
            &mut r,
            "running",
            "Connectors and tasks the worker runs, as its log shows (type: connector or task)",
            None,
            m.running.clone(),
        );
        add(
            &mut r,
            "lines_read",
            "Lines read from the worker's log",
            None,
            m.lines.clone(),
        );
        add(
            &mut r,
            "read",
            "Bytes read from the worker's log (compressed bytes of gzip segments)",
            Some(Unit::Bytes),
            m.bytes.clone(),
        );
        add(
            &mut r,
            "unordered_lines",
            "Lines whose order within their time stamp the input does not say (findings quoting them are withheld)",
            None,
            m.unordered.clone(),
        );
        add(
            &mut r,
            "input_errors",
            "Input problems: read errors, lines skipped for their length, internal errors",
            None,
            m.input_errors.clone(),
        );
        add(
            &mut r,
            "follow_events",
            "Followed files rotated, truncated, handed to a restarted container's next log, or gone",
            None,
            m.follow_events.clone(),
        );
        add(
            &mut r,
            "streams",
            "Streams being read (state: reading or idle)",
            None,
            m.streams.clone(),
        );
        add(
            &mut r,
            "findings_suppressed",
            "Findings found again after a restart and not emitted (already emitted before it)",
            None,
            m.suppressed.clone(),
        );
        add(
            &mut r,
            "state_writes",
            "State file writes (reason: ok or failed)",
            None,
            m.state_writes.clone(),
        );
        add(
            &mut r,
            "ready",
            "1 once ready (as /readyz): every stream read up to its end once, and the internal topics to theirs",
            None,
            m.ready.clone(),
        );
        add(
            &mut r,
            "last_finding_timestamp",
            "Unix time when the last finding of the kind, group and connector was emitted",
            Some(Unit::Seconds),
            m.last_finding.clone(),
        );
        add(
            &mut r,
            "interruptions",
            "Interruptions of a connector's connector and task instances that ended (its next start), by cause, each counted once",
            None,
            m.interruptions.clone(),
        );
        add(
            &mut r,
            "downtime",
            "Seconds the connector's instances were down over the interruptions counted, by cause",
            Some(Unit::Seconds),
            m.downtime.clone(),
        );
        add(
            &mut r,
            "topic_records_read",
            "Records read live from Connect's internal topics (watch --bootstrap), per topic",
            None,
            m.topic_records.clone(),
        );
        add(
            &mut r,
            "topics_up",
            "1 while the internal topic is read (watch --bootstrap), 0 while the cluster cannot be reached",
            None,
            m.topics_up.clone(),
        );
        r.register(
            "build",
            "The build",
            Info::new(vec![
                ("version".to_string(), env!("CARGO_PKG_VERSION").to_string()),
                ("commit".to_string(), commit().to_string()),
            ]),
        );
        Metrics { registry: r, ..m }
    }

    /// The `connector` label of a resource (capped).
    fn connector_label(&mut self, r: Option<&Resource>) -> String {
        let name: &str = match r {
            Some(Resource::Connector(n)) => n,
            Some(Resource::Task(t)) => &t.connector,
            None => return String::new(),
        };
        if self.connectors.contains(name) {
            return name.to_string();
        }
        if self.connectors.len() >= self.limits.connectors {
            return OTHER.to_string();
        }
        self.connectors.insert(name.to_string());
        name.to_string()
    }

    /// A finding was emitted.
    pub fn finding(&mut self, f: &Finding) {
        let labels = finding_labels(
            f.kind.as_str(),
            f.kind.severity().as_str(),
            f.group.as_deref().unwrap_or(""),
            self.connector_label(f.resource.as_ref()),
        );
        self.findings.get_or_create(&labels).inc();
        self.last_finding.get_or_create(&labels).set(unix_now());
    }

    /// An interruption of `resource` ended (counted once): its cause
    /// and its length, when both ends had time stamps.
    pub fn interruption(&mut self, resource: &Resource, cause: &str, ms: Option<i64>) {
        let labels: Labels = vec![
            ("connector", self.connector_label(Some(resource))),
            ("cause", cause.to_string()),
        ];
        self.interruptions.get_or_create(&labels).inc();
        let secs = ms.unwrap_or(0).max(0) as f64 / 1000.0;
        // Created with the count, so both series appear together.
        self.downtime.get_or_create(&labels).inc_by(secs);
    }

    /// Records read live from `topic` in one poll.
    pub fn topic_records(&mut self, topic: &str, n: u64) {
        self.topic_records
            .get_or_create(&label("topic", topic))
            .inc_by(n);
    }

    /// Whether the internal topic could be read at the last try.
    pub fn topics_up(&mut self, topic: &str, up: bool) {
        self.topics_up
            .get_or_create(&label("topic", topic))
            .set(i64::from(up));
    }

    /// A finding found again after a restart, not emitted.
    pub fn suppressed(&mut self) {
        self.suppressed.inc();
    }

    /// A fact of a worker, in key order.
    pub fn fact(&mut self, worker: &Arc<str>, group: Option<&Arc<str>>, kind: &FactKind) {
        if matches!(kind, FactKind::End) {
            // Its stream ended: the worker's series go.
            self.worker_models.remove(worker);
            return;
        }
        let w = self.worker_models.entry(worker.clone()).or_default();
        if let Some(g) = group {
            w.group = Some(g.clone());
        }
        match kind {
            FactKind::Assignment {
                generation, live, ..
            } => {
                w.running = live.iter().map(|(r, _)| r.clone()).collect();
                if let Some(g) = group {
                    self.generation_seen(g, *generation);
                }
            }
            FactKind::Held { resources, .. } => w.running.extend(resources.iter().cloned()),
            FactKind::Start { resource, .. } => {
                w.running.insert(resource.clone());
            }
            FactKind::StartFailed { resource } | FactKind::Stop { resource, .. } => {
                w.running.remove(resource);
            }
            FactKind::Reset => w.running.clear(),
            // An instance kept from before the log began, stopped by the
            // time its fact comes (its stop was a fact of its own).
            FactKind::Left
            | FactKind::End
            | FactKind::Finding(_)
            | FactKind::ForeignStart { .. }
            | FactKind::KeptFromBefore { .. }
            | FactKind::Record { .. }
            | FactKind::Judged { .. }
            | FactKind::Signal(_) => {}
        }
    }

    /// An assignment line of `generation` in `group`: a new generation (or
    /// a lower one: the group started over) is a rebalance.
    fn generation_seen(&mut self, group: &Arc<str>, generation: i32) {
        let labels = label("group", group);
        match self.groups.get_mut(group) {
            Some(g) if *g == generation => return,
            // A worker's lagging view of the generation before.
            Some(g) if generation == *g - 1 => return,
            Some(g) => *g = generation,
            None => {
                self.groups.insert(group.clone(), generation);
            }
        }
        self.rebalances.get_or_create(&labels).inc();
        self.generation
            .get_or_create(&labels)
            .set(i64::from(generation));
    }

    /// What a stream has read by now.
    pub fn stream(&mut self, name: &str, bytes: u64, lines: u64, idle: bool, now: Instant) {
        let labels = label("worker", name);
        let s = self
            .stream_models
            .entry(name.to_string())
            .or_insert_with(|| StreamModel {
                bytes: 0,
                lines: 0,
                last: now,
                last_unix: unix_now(),
                idle,
                caught_up: false,
            });
        if lines > s.lines || bytes > s.bytes {
            self.lines
                .get_or_create(&labels)
                .inc_by(lines.saturating_sub(s.lines));
            self.bytes
                .get_or_create(&labels)
                .inc_by(bytes.saturating_sub(s.bytes));
            s.lines = lines;
            s.bytes = bytes;
            s.last = now;
            s.last_unix = unix_now();
        }
        s.idle = idle;
        s.caught_up |= idle;
    }

    /// Lines of unknown order in a stream.
    pub fn unordered(&mut self, stream: &str, n: usize) {
        self.unordered
            .get_or_create(&label("worker", stream))
            .inc_by(n as u64);
    }

    /// An input problem (`read`, `too-long-line`, `internal`).
    pub fn input_error(&mut self, reason: &str, n: u64) {
        self.input_errors
            .get_or_create(&label("reason", reason))
            .inc_by(n);
    }

    /// What happened to a followed file.
    pub fn follow_event(&mut self, event: &str) {
        self.follow_events
            .get_or_create(&label("event", event))
            .inc();
    }

    /// A state file write, `ok` or `failed`.
    pub fn state_write(&mut self, ok: bool) {
        let reason = if ok { "ok" } else { "failed" };
        self.state_writes
            .get_or_create(&label("reason", reason))
            .inc();
    }

    /// A stream ended: its series and its workers go.
    pub fn stream_ended(&mut self, name: &str) {
        self.stream_models.remove(name);
        let labels = label("worker", name);
        self.lines.remove(&labels);
        self.bytes.remove(&labels);
        self.unordered.remove(&labels);
        self.worker_models
            .retain(|w, _| !(&**w == name || in_stream(w, name)));
    }

    /// Ready: see [`super::ready`].
    pub fn caught_up(&self) -> bool {
        self.not_ready().is_none()
    }

    /// Why the watcher is not ready yet (`None`: it is).
    pub fn not_ready(&self) -> Option<String> {
        let mut behind: Vec<&str> = self
            .stream_models
            .iter()
            .filter(|(_, s)| !s.caught_up)
            .map(|(n, _)| n.as_str())
            .collect();
        behind.sort_unstable();
        self.readiness.why_not(&behind, self.stream_models.len())
    }

    /// The group of a stream's worker(s), as their facts named it.
    fn group_of_stream(&self, name: &str) -> String {
        if let Some(g) = self
            .worker_models
            .get(name)
            .and_then(|w| w.group.as_deref())
        {
            return g.to_string();
        }
        self.worker_models
            .iter()
            .find(|(w, m)| in_stream(w, name) && m.group.is_some())
            .and_then(|(_, m)| m.group.as_deref())
            .unwrap_or("")
            .to_string()
    }

    /// Sets the series computed from the model (current workers, what
    /// they run, their silence at `now`) and encodes every series;
    /// `openmetrics`: the OpenMetrics format, else Prometheus text 0.0.4.
    pub fn encode(&mut self, now: Instant, openmetrics: bool) -> String {
        self.last_line.clear();
        self.silent.clear();
        self.running.clear();
        self.workers.clear();
        self.streams.clear();
        let mut per_group: HashMap<String, i64> = HashMap::new();
        let (mut reading, mut idle) = (0, 0);
        let names: Vec<String> = self.stream_models.keys().cloned().collect();
        for name in names {
            let group = self.group_of_stream(&name);
            let s = &self.stream_models[&name];
            let labels: Labels = vec![("group", group.clone()), ("worker", name.clone())];
            self.last_line.get_or_create(&labels).set(s.last_unix);
            self.silent
                .get_or_create(&labels)
                .set(now.saturating_duration_since(s.last).as_secs_f64());
            if s.idle {
                idle += 1;
            } else {
                reading += 1;
            }
        }
        for (w, m) in &self.worker_models {
            let group = m.group.as_deref().unwrap_or("").to_string();
            *per_group.entry(group.clone()).or_default() += 1;
            let tasks = m
                .running
                .iter()
                .filter(|r| matches!(r, Resource::Task(_)))
                .count();
            for (ty, n) in [("connector", m.running.len() - tasks), ("task", tasks)] {
                self.running
                    .get_or_create(&vec![
                        ("group", group.clone()),
                        ("worker", w.to_string()),
                        ("type", ty.to_string()),
                    ])
                    .set(n as i64);
            }
        }
        for (group, n) in per_group {
            self.workers.get_or_create(&vec![("group", group)]).set(n);
        }
        for (state, n) in [("reading", reading), ("idle", idle)] {
            self.streams.get_or_create(&label("state", state)).set(n);
        }
        self.ready.set(i64::from(self.caught_up()));
        let mut out = String::new();
        let encoded = if openmetrics {
            prometheus_client::encoding::text::encode(&mut out, &self.registry)
        } else {
            prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)
        };
        if encoded.is_err() {
            out.clear();
        }
        out
    }

    /// How long the watcher has been up.
    pub fn uptime(&self) -> std::time::Duration {
        self.started.elapsed()
    }

    /// The name of every series the watcher exports (each family touched
    /// once, then encoded): what the dashboard, the rules and the
    /// documentation may name.
    pub fn series_names() -> BTreeSet<String> {
        let mut m = Metrics::new(Limits { connectors: 1 });
        let f = finding_labels("x", "x", "x", "x".to_string());
        let _ = m.findings.get_or_create(&f);
        let _ = m.last_finding.get_or_create(&f);
        let g = label("group", "x");
        let _ = m.rebalances.get_or_create(&g);
        let _ = m.generation.get_or_create(&g);
        let s = label("worker", "x");
        let _ = m.lines.get_or_create(&s);
        let _ = m.bytes.get_or_create(&s);
        let _ = m.unordered.get_or_create(&s);
        m.input_error("read", 1);
        m.follow_event("rotated");
        m.state_write(true);
        let w: Arc<str> = Arc::from("w");
        let g: Arc<str> = Arc::from("g");
        m.fact(
            &w,
            Some(&g),
            &FactKind::Stop {
                resource: Resource::Connector("c".into()),
                task_config: None,
            },
        );
        m.stream("w", 1, 1, true, Instant::now());
        m.interruption(&Resource::Connector("c".into()), "balance", Some(1));
        m.topic_records("t", 1);
        m.topics_up("t", true);
        m.encode(Instant::now(), false)
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| l.split(['{', ' ']).next())
            .map(str::to_string)
            .collect()
    }

    /// The finding kinds a `kind` label may carry.
    pub fn kinds() -> impl Iterator<Item = Kind> {
        Kind::ALL.iter().copied()
    }
}

/// Is `worker` one of the workers of the multiplexed stream `stream`
/// (`stream#prefix`)?
fn in_stream(worker: &str, stream: &str) -> bool {
    worker
        .strip_prefix(stream)
        .is_some_and(|rest| rest.starts_with('#'))
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics")
            .field("streams", &self.stream_models.len())
            .field("workers", &self.worker_models.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SourceId, SourceLine, TaskId};

    fn line() -> SourceLine {
        SourceLine {
            source: SourceId(0),
            line: 1,
            seq: 1,
            ts: None,
            text: Arc::from(""),
            msg: (0, 0),
        }
    }

    /// The interruption series share the findings' connector cap; the
    /// cause is one of the fixed kinds; a length is never negative.
    #[test]
    fn interruptions_share_the_connector_cap() {
        let mut m = Metrics::new(Limits { connectors: 2 });
        for c in ["a", "b", "c", "d"] {
            m.interruption(&Resource::Connector(c.into()), "balance", Some(1500));
        }
        m.interruption(
            &Resource::Connector("a".into()),
            "other-connector",
            Some(-5),
        );
        let text = m.encode(Instant::now(), false);
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("herder_audit_interruptions_total{"))
            .collect();
        assert_eq!(rows.len(), 4, "{text}");
        assert!(text.contains(
            "herder_audit_interruptions_total{connector=\"_other\",cause=\"balance\"} 2"
        ));
        assert!(text.contains(
            "herder_audit_downtime_seconds_total{connector=\"_other\",cause=\"balance\"} 3.0"
        ));
        assert!(text.contains(
            "herder_audit_downtime_seconds_total{connector=\"a\",cause=\"other-connector\"} 0.0"
        ));
    }

    /// docs/watch.md's count: a clean 200-worker cluster running 2,000
    /// tasks of 300 connectors is about 1,220 series, and the task count
    /// does not matter.
    #[test]
    fn a_200_worker_cluster_costs_about_1220_series() {
        let series = |tasks_per_worker: u32| {
            let mut m = Metrics::new(Limits { connectors: 200 });
            let g: Arc<str> = Arc::from("connect-cluster");
            let now = Instant::now();
            for w in 0..200u32 {
                let name = format!("kafka/connect-{w}/connect");
                let label: Arc<str> = Arc::from(name.as_str());
                let live: Vec<(Resource, SourceLine)> = (0..tasks_per_worker)
                    .map(|i| {
                        let id = TaskId {
                            connector: format!("c{}", (w * tasks_per_worker + i) % 300).into(),
                            index: i,
                        };
                        (Resource::Task(id), line())
                    })
                    .collect();
                m.fact(
                    &label,
                    Some(&g),
                    &FactKind::Assignment {
                        generation: 7,
                        assigned: Arc::from(Vec::new()),
                        revoked: Arc::from(Vec::new()),
                        leader: String::new(),
                        leader_url: String::new(),
                        offset: 1,
                        error: 0,
                        live,
                    },
                );
                m.stream(&name, 100, 10, true, now);
            }
            m.state_write(true);
            m.encode(now, false)
                .lines()
                .filter(|l| !l.starts_with('#') && !l.is_empty())
                .count()
        };
        let n = series(10);
        assert_eq!(n, series(100), "tasks do not add series");
        assert!((1_200..=1_220).contains(&n), "{n} series");
    }

    #[test]
    fn connector_values_are_capped() {
        let mut m = Metrics::new(Limits { connectors: 2 });
        let labels: Vec<String> = ["a", "b", "c", "a"]
            .iter()
            .map(|c| m.connector_label(Some(&Resource::Connector((*c).into()))))
            .collect();
        assert_eq!(labels, ["a", "b", OTHER, "a"]);
    }
}

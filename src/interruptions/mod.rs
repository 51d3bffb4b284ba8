//! Interruptions, their causes and their price (issue 26): per connector
//! and task of a group, each stretch of time no worker ran it, from its
//! stop (or its worker's last line before it went silent or died) to its
//! next start anywhere in the group; what caused it; what each rebalance
//! and each change cost.
//!
//! A stage of its own on top of the facts the replays hand on
//! ([`crate::replay::Fact`]), fed in key order beside the cross-worker
//! checker (`audit::merge::Reducer`), so a run, `map | reduce` and a live
//! run see the same sequence and give the same numbers. [`Tracker`] follows
//! the facts (`tracker.rs`); [`Isolation`] is what it gives at the end,
//! priced per rebalance, change and connector (`price.rs`).

pub mod compare;
mod price;
mod sparse;
#[cfg(test)]
mod tests;
mod tracker;

pub use tracker::Tracker;

use crate::model::{Name, Resource, SourceLine};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Everything the run showed of interruptions.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Isolation {
    /// In the order they began (log time of their first line, then group,
    /// resource).
    pub interruptions: Vec<Interruption>,
    /// Per group and generation, in order.
    pub rebalances: Vec<Rebalance>,
    /// Config updates, creations, deletions, target-state and task-count
    /// changes, restart requests, in the order they were first logged.
    pub changes: Vec<Change>,
    /// Per group and connector, sorted.
    pub connectors: Vec<ConnectorDowntime>,
}

/// One end of an interruption: a line of one worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub worker: Arc<str>,
    pub line: SourceLine,
}

/// How an interruption's length was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Clock {
    /// Both ends on one worker's clock: exact (to the log's precision).
    OneWorker,
    /// Ends on two workers' clocks, the skew taken out using a generation
    /// both logged joining (`ms` = time from the stop to that join on the
    /// first worker's clock plus from the join to the start on the
    /// second's; `raw_ms` the plain difference).
    TwoWorkers { generation: i32, raw_ms: i64 },
    /// Two workers' clocks and no generation both joined: `ms` is the plain
    /// difference, unbounded by anything.
    Unanchored,
}

/// One interruption of one resource in one group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interruption {
    pub group: Arc<str>,
    pub resource: Resource,
    /// Its stop, or the last line of its worker before that worker went
    /// silent or died.
    pub from: Edge,
    /// Was `from` a stop line (`false`: the last proof of running)?
    pub stopped: bool,
    /// Its next start anywhere in the group; `None`: still down when the
    /// logs end.
    pub to: Option<Edge>,
    /// A task's `… task finished initialization and start` on `to`'s worker
    /// after that start: it works again from here, and the length is
    /// measured to this line.
    pub running: Option<SourceLine>,
    /// For a worker that fell silent or died: the first rebalance another
    /// worker began after its last line, and its session timeout. The
    /// interruption began at most that long before the rebalance (the
    /// group noticed the member gone a session timeout after it stopped
    /// heartbeating), and the length is bounded so.
    pub noticed: Option<(Edge, i64)>,
    /// Length in ms (`None` while still down or without time stamps).
    pub ms: Option<i64>,
    pub clock: Clock,
    pub cause: Cause,
    /// The rebalance (generation) that stopped it, when a rebalance did.
    pub generation: Option<i32>,
    /// Index into [`Isolation::changes`] of the change that caused it.
    pub change: Option<usize>,
}

impl Interruption {
    /// Was it caused by another connector's change (its team did nothing)?
    pub fn by_others(&self) -> bool {
        self.cause
            .connector
            .as_ref()
            .is_some_and(|c| c != self.resource.connector_name())
    }

    /// Same worker at both ends?
    pub fn moved(&self) -> bool {
        self.to
            .as_ref()
            .is_some_and(|t| t.worker != self.from.worker)
    }
}

/// Why an interruption happened, with the lines that prove it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cause {
    pub kind: CauseKind,
    /// How the protocol carried the cause out, when a rebalance did:
    /// `eager-rebalance`, `revocation`, `unnecessary-stop`.
    pub via: Option<String>,
    /// The connector whose change it was (its own, or another's).
    pub connector: Option<Name>,
    /// The worker named (joined, left, crashed, frozen, cut off).
    pub worker: Option<Arc<str>>,
    /// The `unnecessary-stop` finding's trigger, when the stop was one.
    pub finding: Option<SourceLine>,
    pub upstream: Option<String>,
    /// The lines that prove it, each with its role.
    pub lines: Vec<(String, SourceLine)>,
}

impl Cause {
    pub(crate) fn of(kind: CauseKind) -> Cause {
        Cause {
            kind,
            via: None,
            connector: None,
            worker: None,
            finding: None,
            upstream: None,
            lines: Vec::new(),
        }
    }
}

/// The kinds of cause (docs/json-schema.md, `interruptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CauseKind {
    /// Its own connector's config update.
    ConfigUpdate,
    /// Its own connector's task count changed (`tasks.max`).
    TasksMax,
    /// A REST restart of it (or of its connector with its tasks).
    Restart,
    /// Its connector paused or stopped (target state).
    PauseStop,
    /// Another connector's change, named.
    OtherChange,
    WorkerJoined,
    WorkerLeft,
    WorkerCrashed,
    WorkerFrozen,
    WorkerCutOff,
    /// Eager protocol: every rebalance stops everything.
    EagerRebalance,
    /// A cooperative revocation that moved it for balance.
    Balance,
    /// A stop nothing justified (the `unnecessary-stop` finding).
    UnnecessaryStop,
    /// Its start failed, or it failed later.
    Failed,
    /// Nothing in the logs says why.
    Unknown,
}

impl CauseKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CauseKind::ConfigUpdate => "config-update",
            CauseKind::TasksMax => "tasks-max",
            CauseKind::Restart => "restart",
            CauseKind::PauseStop => "pause-stop",
            CauseKind::OtherChange => "other-connector",
            CauseKind::WorkerJoined => "worker-joined",
            CauseKind::WorkerLeft => "worker-left",
            CauseKind::WorkerCrashed => "worker-crashed",
            CauseKind::WorkerFrozen => "worker-frozen",
            CauseKind::WorkerCutOff => "worker-cut-off",
            CauseKind::EagerRebalance => "eager-rebalance",
            CauseKind::Balance => "balance",
            CauseKind::UnnecessaryStop => "unnecessary-stop",
            CauseKind::Failed => "failed",
            CauseKind::Unknown => "unknown",
        }
    }
}

/// What set a rebalance off, as far as the logs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trigger {
    /// `worker-joined`, `worker-left`, `worker-crashed`, `worker-cut-off`,
    /// `config-update`, `creation`, `deletion`, … (a [`ChangeKind`]'s
    /// name), `forced` (a config offset behind the assignment, a failed
    /// assignment), `unknown`.
    pub kind: String,
    /// How a member left: `shutdown`, `poll-timeout`, `session-timeout`.
    pub how: Option<String>,
    pub worker: Option<Arc<str>>,
    pub connector: Option<Name>,
    /// The reason string the client logged, when it did.
    pub reason: Option<String>,
    pub line: Option<SourceLine>,
    /// Index into [`Isolation::changes`] when a change set it off.
    pub change: Option<usize>,
}

/// One rebalance (generation) of a group and what it did to the work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rebalance {
    pub group: Arc<str>,
    pub generation: i32,
    /// Its first assignment line in the group.
    pub line: SourceLine,
    pub trigger: Trigger,
    /// Resources running in the group when it began.
    pub running_before: u64,
    /// Of those, kept running throughout.
    pub retained: u64,
    /// Stopped on one worker, started on another.
    pub moved: u64,
    /// Stopped and started again on the same worker.
    pub restarted: u64,
    /// Started, not running before.
    pub started: u64,
    /// Stopped, not started again (by the end of the logs).
    pub stopped: u64,
    /// Downtime of what it moved and restarted, ms.
    pub downtime_ms: i64,
    /// Tasks among `running_before` (the effect counted on tasks alone).
    pub tasks_before: u64,
    pub tasks_retained: u64,
}

/// What a change was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ChangeKind {
    Creation,
    ConfigUpdate,
    TasksMax,
    Deletion,
    TargetState,
    RestartRequest,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Creation => "creation",
            ChangeKind::ConfigUpdate => "config-update",
            ChangeKind::TasksMax => "tasks-max",
            ChangeKind::Deletion => "deletion",
            ChangeKind::TargetState => "target-state",
            ChangeKind::RestartRequest => "restart-request",
        }
    }
}

/// One change of one connector, and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub group: Arc<str>,
    pub connector: Name,
    pub kind: ChangeKind,
    /// The first line that logged it (every worker logs a config record).
    pub line: SourceLine,
    pub worker: Arc<str>,
    /// Interruptions of its own connector's resources it caused.
    pub own: Cost,
    /// Interruptions of other connectors' resources: its blast radius.
    pub others: Cost,
    /// The other connectors it interrupted.
    pub other_connectors: Vec<Name>,
    /// A known upstream pattern behind the blast radius (`KAFKA-8676`).
    pub upstream: Option<String>,
}

/// Interruptions counted and their downtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Cost {
    pub interruptions: u64,
    /// Tasks among them.
    pub tasks: u64,
    pub ms: i64,
    /// Still down when the logs end (not in `ms`).
    pub still_down: u64,
}

impl Cost {
    pub(crate) fn add(&mut self, i: &Interruption) {
        self.interruptions += 1;
        if matches!(i.resource, Resource::Task(_)) {
            self.tasks += 1;
        }
        match (i.to.is_some(), i.ms) {
            (true, Some(ms)) => self.ms += ms,
            (false, _) => self.still_down += 1,
            _ => {}
        }
    }
}

/// One connector's isolation over the whole input.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ConnectorDowntime {
    pub group: Arc<str>,
    pub connector: Name,
    /// All its resources' interruptions.
    pub total: Cost,
    pub longest_ms: i64,
    /// Split by cause.
    pub by_cause: BTreeMap<CauseKind, Cost>,
    /// Caused by other connectors' changes.
    pub by_others: Cost,
}

impl Tracker {
    /// No fact follows: what is still open is still down; the causes are
    /// settled and everything priced.
    ///
    /// A tracker that forgot as it went (`herder-audit watch`, whose
    /// metrics counted each interruption as it became final) prices
    /// nothing: its report would be the few still open, not the run's.
    pub fn finish(self) -> Isolation {
        if self.forgetful {
            return Isolation::default();
        }
        price::settle(self)
    }

    #[cfg(test)]
    /// What the facts fed so far show, priced (open interruptions still
    /// down): for a long-running service that reports as it goes
    /// (`herder-audit watch`'s metrics can call it at each scrape).
    pub fn snapshot(&self) -> Isolation {
        self.clone().finish()
    }
}

impl Isolation {
    /// Puts everything in the order every run prints (a run, `map |
    /// reduce`, partial reduces put together): by log time, then group;
    /// the changes' indices follow them.
    pub(crate) fn canonical(&mut self) {
        let mut order: Vec<usize> = (0..self.changes.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.changes[a], &self.changes[b]);
            (x.line.ts, &x.group).cmp(&(y.line.ts, &y.group))
        });
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        let mut old: Vec<Option<Change>> = std::mem::take(&mut self.changes)
            .into_iter()
            .map(Some)
            .collect();
        self.changes = order.iter().filter_map(|&i| old[i].take()).collect();
        for i in &mut self.interruptions {
            i.change = i.change.map(|c| new_index[c]);
        }
        for r in &mut self.rebalances {
            r.trigger.change = r.trigger.change.map(|c| new_index[c]);
        }
        self.interruptions.sort_by(|a, b| {
            (a.from.line.ts, &a.group, &a.resource).cmp(&(b.from.line.ts, &b.group, &b.resource))
        });
        self.rebalances.sort_by(|a, b| {
            (a.line.ts, &a.group, a.generation).cmp(&(b.line.ts, &b.group, b.generation))
        });
        self.connectors
            .sort_by(|a, b| (&a.group, &a.connector).cmp(&(&b.group, &b.connector)));
    }

    /// The isolation of parts that share no group (partial reduces), as
    /// one run gives it.
    pub fn merge(parts: Vec<Isolation>) -> Isolation {
        let mut out = Isolation::default();
        for mut p in parts {
            let base = out.changes.len();
            for i in &mut p.interruptions {
                i.change = i.change.map(|c| c + base);
            }
            for r in &mut p.rebalances {
                r.trigger.change = r.trigger.change.map(|c| c + base);
            }
            out.interruptions.extend(p.interruptions);
            out.rebalances.extend(p.rebalances);
            out.changes.extend(p.changes);
            out.connectors.extend(p.connectors);
        }
        out.canonical();
        out
    }

    /// Every line it quotes (to rewrite their source ids).
    pub fn lines_mut(&mut self, f: &mut dyn FnMut(&mut SourceLine)) {
        for i in &mut self.interruptions {
            f(&mut i.from.line);
            if let Some(t) = &mut i.to {
                f(&mut t.line);
            }
            if let Some(l) = &mut i.running {
                f(l);
            }
            if let Some((e, _)) = &mut i.noticed {
                f(&mut e.line);
            }
            if let Some(l) = &mut i.cause.finding {
                f(l);
            }
            for (_, l) in &mut i.cause.lines {
                f(l);
            }
        }
        for r in &mut self.rebalances {
            f(&mut r.line);
            if let Some(l) = &mut r.trigger.line {
                f(l);
            }
        }
        for c in &mut self.changes {
            f(&mut c.line);
        }
    }

    /// Per connector and cause: interruptions and their downtime in
    /// seconds (closed ones), for the metrics
    /// `herder_audit_interruptions_total{connector,cause}` and
    /// `herder_audit_downtime_seconds_total{connector,cause}`.
    pub fn downtime_by_cause(&self) -> BTreeMap<(String, &'static str), (u64, f64)> {
        let mut m = BTreeMap::new();
        for d in &self.connectors {
            for (k, c) in &d.by_cause {
                let e: &mut (u64, f64) =
                    m.entry((d.connector.to_string(), k.as_str())).or_default();
                e.0 += c.interruptions;
                e.1 += c.ms as f64 / 1000.0;
            }
        }
        m
    }

    pub fn is_empty(&self) -> bool {
        self.interruptions.is_empty() && self.rebalances.is_empty() && self.changes.is_empty()
    }
}

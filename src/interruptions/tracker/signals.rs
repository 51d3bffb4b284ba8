//! The tracker's signals: what may set off the next rebalance (joins,
//! departures, cut-offs, forced rebalances, config changes and the reasons
//! logged), a worker's silences and session timeout, and a task's first
//! proof of running again.

use super::{REBALANCE_STARTS_KEPT, Seen, Tracker, length, same_line, ts};
use crate::interruptions::{CauseKind, Change, ChangeKind, Edge};
use crate::model::{Name, Resource, SourceLine};
use crate::replay::{Departure, Signal};
use std::sync::Arc;

/// A config record logged by another worker this long (log time) after the
/// first sighting of the same change is the same change.
const SAME_CHANGE_MS: i64 = 30_000;

impl Tracker {
    pub(super) fn signal(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        s: &Signal,
        line: &SourceLine,
    ) {
        let seen = match s {
            Signal::Silence { last } => {
                self.silence(group, worker, last, line);
                return;
            }
            Signal::ConfigUpdated { connector } => {
                self.config_updated(group, worker, connector, line)
            }
            Signal::ConfigRemoved { connector } => {
                self.change(group, worker, connector, ChangeKind::Deletion, line)
            }
            Signal::TargetState { connector } => {
                self.change(group, worker, connector, ChangeKind::TargetState, line)
            }
            Signal::RestartRequested { connector } => {
                self.change(group, worker, connector, ChangeKind::RestartRequest, line)
            }
            Signal::TaskCount {
                connector: Some(c), ..
            } => {
                if let Some(&i) = self.group(group).changes.get(c).and_then(|v| v.last())
                    && let Some(ch) = self.changes.get_mut(i)
                    && ch.kind == ChangeKind::ConfigUpdate
                {
                    ch.kind = ChangeKind::TasksMax;
                }
                None
            }
            Signal::TaskCount { .. } | Signal::TaskConfigs { .. } => None,
            Signal::RebalanceStarted => {
                let g = self.group(group);
                if g.rebalance_starts.len() == REBALANCE_STARTS_KEPT {
                    g.rebalance_starts.pop_front();
                }
                g.rebalance_starts.push_back(Edge {
                    worker: worker.clone(),
                    line: line.clone(),
                });
                None
            }
            Signal::SessionTimeout { ms } => {
                self.workers
                    .entry(worker.clone())
                    .or_default()
                    .session_timeout_ms = Some(*ms);
                None
            }
            Signal::TaskRunning { resource } => {
                self.task_running(group, worker, resource, line);
                None
            }
            Signal::WorkerStarting => Some(Seen::Joined(worker.clone(), line.clone())),
            Signal::WorkerStopping => {
                self.workers
                    .entry(worker.clone())
                    .or_default()
                    .shutting_down = true;
                Some(Seen::Left(worker.clone(), "shutdown", line.clone()))
            }
            Signal::Departed { how } => {
                if *how == Departure::SessionTimeout {
                    self.workers.entry(worker.clone()).or_default().cut_off = true;
                }
                let how = match how {
                    Departure::PollTimeout => "poll-timeout",
                    Departure::SessionTimeout => "session-timeout",
                    Departure::Fenced => "fenced",
                };
                Some(Seen::Left(worker.clone(), how, line.clone()))
            }
            Signal::CutOff => {
                self.cut_off(worker);
                Some(Seen::CutOff(worker.clone(), line.clone()))
            }
            Signal::Reason { text } => {
                self.group(group).reasons.push((text.clone(), line.clone()));
                None
            }
            Signal::ForcedRebalance => Some(Seen::Forced(worker.clone(), line.clone())),
        };
        if let Some(s) = seen {
            self.group(group).seen.push(s);
        }
    }

    /// `worker` was silent from `last` (a restart, or a worker heard again
    /// after a freeze or a cut): what others took over meanwhile is
    /// resolved.
    fn silence(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        last: &SourceLine,
        line: &SourceLine,
    ) {
        let ws = self.workers.entry(worker.clone()).or_default();
        // The same silence seen again (a restarted process's preamble,
        // then its `Kafka Connect starting`): what it already took over
        // stays its.
        let again = ws.silence.as_ref().is_some_and(|(l, _)| same_line(l, last));
        ws.silence = Some((last.clone(), line.clone()));
        if !again {
            ws.fell_silent.clear();
        }
        self.resolve_takeovers(group, worker, last, false);
    }

    /// A connector's config written: its creation, or an update of one
    /// the group knows.
    fn config_updated(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        connector: &Name,
        line: &SourceLine,
    ) -> Option<Seen> {
        let g = self.group(group);
        let known = g.changes.contains_key(connector)
            || g.running.keys().any(|r| r.connector_name() == connector);
        let kind = if known {
            ChangeKind::ConfigUpdate
        } else {
            ChangeKind::Creation
        };
        self.change(group, worker, connector, kind, line)
    }

    /// A task's first proof of running on `worker`: the interruption that
    /// waited for it ends here.
    fn task_running(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        resource: &Resource,
        line: &SourceLine,
    ) {
        let key = (resource.clone(), worker.clone());
        let generation = self.workers.get(worker).and_then(|w| w.generation);
        let g = self.group(group);
        if let Some(i) = g.awaiting.remove(&key)
            && self.interruptions.get(i).is_some()
        {
            let edge = Edge {
                worker: worker.clone(),
                line: line.clone(),
            };
            let g = &self.groups[group];
            let it = &mut self.interruptions[i];
            (it.ms, it.clock) = length(g, it, &edge, generation);
            it.running = Some(line.clone());
        }
    }

    /// `worker` was cut off from the group: the work it fell silent on is
    /// down for that reason.
    fn cut_off(&mut self, worker: &Arc<str>) {
        let ws = self.workers.entry(worker.clone()).or_default();
        ws.cut_off = true;
        for &i in &ws.fell_silent {
            if let Some(p) = self.pending.get_mut(i) {
                p.fate = Some(CauseKind::WorkerCutOff);
            }
        }
    }

    /// A change logged by `worker`: the same change as one another worker
    /// logged shortly before, or a new one.
    fn change(
        &mut self,
        group: &Arc<str>,
        worker: &Arc<str>,
        connector: &Name,
        kind: ChangeKind,
        line: &SourceLine,
    ) -> Option<Seen> {
        let t = ts(line);
        // The latest of the connector's changes in the group that matches.
        let mine = self
            .groups
            .get(group)
            .and_then(|g| g.changes.get(connector));
        let same = mine.into_iter().flatten().rev().copied().find(|&i| {
            let Some(c) = self.changes.get(i) else {
                return false;
            };
            (c.kind == kind
                || matches!(
                    (c.kind, kind),
                    (
                        ChangeKind::Creation | ChangeKind::TasksMax,
                        ChangeKind::ConfigUpdate
                    )
                ))
                && !self.change_seen_by[i].contains(worker)
                && matches!((ts(&c.line), t), (Some(a), Some(b)) if (b - a).abs() <= SAME_CHANGE_MS)
        });
        if let Some(i) = same {
            self.change_seen_by[i].push(worker.clone());
            return None;
        }
        let i = self.changes.len();
        self.changes.push(Change {
            group: group.clone(),
            connector: connector.clone(),
            kind,
            line: line.clone(),
            worker: worker.clone(),
            own: Default::default(),
            others: Default::default(),
            other_connectors: Vec::new(),
            upstream: None,
        });
        self.change_seen_by.push(vec![worker.clone()]);
        self.group(group)
            .changes
            .entry(connector.clone())
            .or_default()
            .push(i);
        Some(Seen::Change(i))
    }
}

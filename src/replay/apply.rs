//! How each event changes the replay's state, by what it is about: who the
//! worker is, its place in the group, the config offset and the start
//! phase, connector and task instances, config records. Each returns
//! whether the event was its kind (an event is one kind only).

use super::*;

impl WorkerReplay {
    /// Who the worker is and how far its process got: milestones, its
    /// advertised URL, its Kafka cluster.
    pub(super) fn identity_event(&mut self, ev: &Event, line: &Line) -> bool {
        match ev {
            Event::Milestone(m) => self.milestone(*m, line),
            Event::AdvertisedUrl(u) => {
                self.advertised_url = Some(u.clone());
                self.who_changed = true;
            }
            Event::KafkaClusterId(id) => self.kafka_cluster = Some(Arc::from(id.as_str())),
            _ => return false,
        }
        true
    }

    /// The worker's place in the group: rebalances, joins, departures, its
    /// assignment lines.
    pub(super) fn membership_event(&mut self, ev: &Event, line: &Line) -> bool {
        match ev {
            Event::RebalanceStarted { by_herder } => {
                self.open_window(line);
                if *by_herder {
                    // ≤ 2.2.2: logged by the herder inside onRevoked, eager only.
                    self.set_observed(Protocol::Eager);
                }
            }
            Event::Rejoining { .. } => {
                self.open_window(line);
                if let Some(w) = &mut self.inc.window {
                    w.joined = true;
                }
            }
            Event::JoinedGeneration {
                generation,
                member_id,
                protocol,
                ..
            }
            | Event::SyncedGeneration {
                generation,
                member_id,
                protocol,
            } => {
                self.open_window(line);
                if let Some(w) = &mut self.inc.window {
                    w.joined = true;
                    if protocol.is_some() {
                        w.protocol = *protocol;
                    }
                }
                self.inc.joined = Some((*generation, *protocol));
                if let Some(m) = member_id {
                    self.member_id = Some(m.clone());
                    self.who_changed = true;
                }
                if let Some(p) = protocol {
                    self.set_observed(*p);
                }
            }
            Event::PollTimeoutExpired => self.inc.poll_timeout = Some(line.keep()),
            // Fenced out of the generation (session expired, or a rebalance
            // completed without it): a departure that revokes nothing, like
            // a poll-timeout leave.
            Event::HeartbeatFenced { generation, .. } if self.inc.ctx.shutdown.is_none() => {
                self.note_blind_departure(line, *generation);
                self.fact(line, FactKind::Left);
            }
            // Its session expired unseen (cut off from the broker): the
            // broker drops it while its work runs on until it revokes (a
            // real 3.9.1 worker cut off 35 s ran its source task 2 s past
            // another worker's start of it: 39 duplicate records).
            Event::SessionTimedOut if self.inc.ctx.shutdown.is_none() => {
                self.note_blind_departure(line, None);
                self.fact(line, FactKind::Left);
            }
            Event::LeaveGroup { reason, .. } => {
                // A departure that revokes nothing (KAFKA-16056; also
                // KAFKA-9849's read timeout up to 2.5.0): what the worker
                // runs keeps running while the leader hands it to others.
                // A shutdown's LeaveGroup comes after its stops.
                let why = reason.as_deref().unwrap_or("");
                let departs = why.contains("poll timeout has expired")
                    || why.contains("taking too long to read the log")
                    || (reason.is_none() && self.inc.poll_timeout.is_some());
                if departs && self.inc.ctx.shutdown.is_none() {
                    self.fact(line, FactKind::Left);
                }
                self.inc.poll_timeout = None;
            }
            Event::RevokingPreviousAssignment => {
                self.open_window(line);
                self.set_observed(Protocol::Eager);
            }
            Event::CooperativeRebalanceTriggered => {
                self.open_window(line);
                if self.inc.protocol.is_none() {
                    self.inc.protocol = Some(Protocol::Compatible);
                }
            }
            Event::CoordinatorUnreachable { .. } | Event::RevokingAfterRetries { .. } => {
                self.inc.ctx.self_revocation = Some(line.keep());
                if self.inc.protocol.is_none() {
                    self.inc.protocol = Some(Protocol::Compatible);
                }
            }
            Event::Assignment {
                generation,
                protocol_version,
                assignment,
                rebalance_delay: _,
            } => self.assignment(*generation, *protocol_version, assignment, line),
            Event::SkipStoppingUnresolved => {
                self.open_window(line);
                if let Some(w) = &mut self.inc.window {
                    w.skip_stopping = Some(line.keep());
                }
            }
            _ => return false,
        }
        true
    }

    /// The herder's config snapshot against the assignment's offset, and
    /// the start phase that follows.
    pub(super) fn offset_event(&mut self, ev: &Event, line: &Line) -> bool {
        match ev {
            Event::AssignmentFailed(_) => {
                self.inc.trouble = Some((Trouble::AssignmentFailed, line.keep()));
            }
            Event::ReadToEndTimedOut => {
                self.inc.trouble = Some((Trouble::ReadTimedOut, line.keep()));
            }
            Event::ConfigMismatch { current, .. } => {
                self.inc.trouble = Some((Trouble::Mismatch, line.keep()));
                self.inc.offset = Some((*current, line.keep()));
            }
            Event::ConfigBehind { current, .. } | Event::ReadingToEnd { current } => {
                self.inc.offset = Some((*current, line.keep()));
            }
            Event::FinishedReadingToEnd { offset } => {
                self.inc.offset = Some((*offset, line.keep()));
            }
            Event::StartingWork { offset } => self.start_phase(*offset, line),
            Event::FinishedStartingWork => self.close_phase(Some(line)),
            _ => return false,
        }
        true
    }

    /// Connector and task instances: starts and their outcomes, stops.
    pub(super) fn instance_event(&mut self, ev: &Event, line: &Line) -> bool {
        match ev {
            Event::Starting(r) => self.start(r, line),
            Event::StartFailed { resource, how } => self.start_failed(resource, *how, line),
            // Outside a start phase (its tasks start on several threads and
            // name themselves in `Couldn't instantiate task X`), right after
            // the herder's `Starting task X` that no Worker line answered:
            // that start threw (a REST restart of the task, 3.3.0+).
            Event::ConnectorTypeUnknown if self.inc.start_phase.is_none() => {
                if let Some(r) = self.inc.last_task_start.take()
                    && self.inc.last_start.get(&r).is_some_and(|a| !a.answered)
                {
                    self.start_failed(&r, StartFailure::UnknownType, line);
                }
            }
            Event::RestartOutcome {
                resource,
                ok: false,
            } => self.start_failed(resource, StartFailure::RestartPlan, line),
            Event::Creating(r) | Event::Instantiated(r) => self.answered(r),
            Event::FinishedCreatingConnector(c) => {
                self.answered(&Resource::Connector(c.clone()));
            }
            Event::AlreadyExists(r) => self.already_exists(r, line),
            Event::Stopping(r) => match r {
                Resource::Connector(_) => self.inc.unconfirmed.push((r.clone(), line.keep())),
                Resource::Task(_) => self.stop(r, line),
            },
            Event::IgnoringStop(r) => {
                // The Worker owns no such instance: not a stop, but now
                // known not to run.
                self.inc.unconfirmed.retain(|(u, _)| u != r);
                // A task-config update stops the connector's assigned tasks,
                // failed ones included, and restarts them all after the
                // rebalance.
                if let (Resource::Task(t), Some(tu)) = (r, &self.inc.ctx.task_update)
                    && tu.tasks.contains(t)
                {
                    self.inc.tasks_to_restart.insert(t.clone(), line.keep());
                }
                let prev = self.mark_stopped(r, line);
                if prev.as_ref().is_some_and(ResState::is_live) {
                    self.fact(
                        line,
                        FactKind::Stop {
                            resource: r.clone(),
                            task_config: None,
                        },
                    );
                }
            }
            Event::IgnoringAwaitStop(r) => {
                if let Some(w) = &mut self.inc.window {
                    w.stop_attempts.insert(r.clone());
                }
            }
            Event::Stopped(r) => self.confirm(r),
            Event::ScheduledShutdown(n) => self.confirm(&Resource::Connector(n.clone())),
            Event::GracefulStop { resource, .. } => self.confirm(resource),
            _ => return false,
        }
        true
    }

    /// Config records the herder read and how it handles them.
    pub(super) fn config_event(&mut self, ev: &Event, line: &Line) -> bool {
        match ev {
            Event::ConnectorConfigUpdated(c) => {
                let facts = self.config.entry(c.clone()).or_default();
                facts.updated = Some(line.keep());
                if facts.removed.is_some() && facts.recreated.is_none() {
                    facts.recreated = Some(Box::new(line.keep()));
                }
                self.inc.offset = None;
            }
            Event::ConnectorConfigRemoved(c) => {
                let facts = self.config.entry(c.clone()).or_default();
                facts.removed = Some(Box::new(line.keep()));
                facts.recreated = None;
                self.inc.offset = None;
            }
            Event::TargetStateChange(c) => {
                self.config.entry(c.clone()).or_default().target_change = Some(line.seq);
                self.inc.offset = None;
                // The target state moved again: a stop it excused is over
                // (a worker that runs none of the connector's work may log
                // no `Setting connector X state to …` of the resume; a new
                // stop logs its `Setting … STOPPED` right after this line).
                self.inc.ctx.target_stopped.remove(c);
            }
            Event::TaskConfigsUpdated(tasks) => self.task_claim(tasks, line),
            Event::HandlingConnectorUpdate { connector, action } => {
                self.inc.ctx.connector.insert(
                    connector.clone(),
                    ConnectorCtx {
                        action: *action,
                        line: line.keep(),
                    },
                );
            }
            Event::HandlingTaskUpdate { tasks, .. } => {
                if self.inc.protocol.is_none() {
                    // Only the cooperative path handles task configs this way.
                    self.inc.protocol = Some(Protocol::Compatible);
                }
                self.inc.ctx.task_update = Some(TaskUpdateCtx {
                    line: line.keep(),
                    tasks: tasks.iter().cloned().collect(),
                });
            }
            Event::SettingTargetState { connector, state } => {
                if *state == TargetState::Stopped {
                    let at = line.keep();
                    self.inc.ctx.target_stopped.insert(connector.clone(), at);
                } else {
                    // Resumed or paused: stops are no longer excused.
                    self.inc.ctx.target_stopped.remove(connector);
                }
            }
            // Config records without a connector: the snapshot may move past
            // the last known offset without a catch-up.
            Event::SessionKeyUpdated | Event::RestartRequested { .. } => self.inc.offset = None,
            Event::ExecutingPlan { .. } => self.inc.ctx.restart_plan = Some(line.keep()),
            Event::CompletedPlan { .. } => self.inc.ctx.restart_plan = None,
            Event::ConfigValue { key, value } => self.config_value(*key, value),
            _ => return false,
        }
        true
    }
}

//! Starts: the post-rebalance start phase (`offset-mismatch-start`,
//! `lost-assignment`), each start (`foreign-start`, `double-start`), and
//! failed starts.

use super::*;

impl WorkerReplay {
    pub(super) fn start_phase(&mut self, offset: i64, line: &Line) {
        self.boundary(line);
        let judgeable = self.inc.received.is_some() && self.inc.window.is_none();
        if !judgeable {
            let why = format!(
                "generation {}: assignment line not seen",
                fmt_gen(self.inc.joined.map(|(g, _)| g))
            );
            if let Some(t) = &mut self.timeline {
                let opened = self.inc.window.as_ref().and_then(|w| w.opened.as_ref());
                t.unknown(opened.map(SourceLine::as_line).as_ref(), line, why.clone());
            }
            self.note(Some(line), format!("{why}; starts not judged"));
        }
        // A start phase ends any rebalance whose assignment line was lost.
        if let Some(w) = self.inc.window.take() {
            for s in &w.stops {
                self.count_stop(StopReason::NotJudged, s);
            }
        }
        let known = match &self.inc.offset {
            Some((x, l)) => KnownOffset::Known(*x, l.clone()),
            None => KnownOffset::Unknown,
        };
        let mismatch = if judgeable {
            offset_mismatch::check(
                self.inc.received.as_ref(),
                self.inc.trouble.as_ref().map(|(t, l)| (*t, l)),
                &known,
                offset,
            )
        } else {
            None
        };
        if let Some(g) = self.generations.last_mut() {
            g.start_offset = Some(offset);
            g.config_offset = match known {
                KnownOffset::Known(x, _) => Some(x),
                KnownOffset::Unknown => None,
            };
        }
        self.inc.start_phase = Some(PhaseState {
            phase: StartPhase {
                line: line.keep(),
                offset,
                started: Vec::new(),
                failed: HashSet::default(),
                mismatch,
            },
            judgeable,
        });
    }

    /// Ends the start phase; `finished` is the `Finished starting…` line
    /// (`None`: it ended without one, so nothing is judged lost).
    pub(super) fn close_phase(&mut self, finished: Option<&Line>) {
        let Some(ps) = self.inc.start_phase.take() else {
            return;
        };
        if let Some(f) = offset_mismatch::finding(&self.who(), &ps.phase) {
            self.push(f);
        }
        // Taken out while the phase is judged (nothing below reads it),
        // put back after.
        let received = self.inc.received.take();
        if let (Some(fin), Some(rec), true) = (finished, received.as_ref(), ps.judgeable)
            && !rec.assignment.failed()
        {
            // The assignment's resources, sorted and without repeats,
            // each looked up once: judged lost, else held.
            let mut started: Vec<&Resource> = ps.phase.started.iter().map(|(r, _)| r).collect();
            started.sort_unstable();
            let failed = &ps.phase.failed;
            // The herder now counts the whole assignment as running
            // (cooperative); what the log never showed is held from here.
            let holds = rec.protocol.is_none_or(Protocol::is_cooperative);
            let mut held = Vec::new();
            for r in rec.assigned.iter() {
                let st = self.inc.res.get(r);
                let known = st.is_some();
                let judged = started.binary_search(&r).is_err()
                    && (failed.is_empty() || !failed.contains(r))
                    && !rec.assignment.revokes(r);
                let lost = judged
                    .then(|| lost_assignment::check(st, self.inc.baseline.is_some()))
                    .flatten();
                if let Some(not_running) = lost {
                    let upstream = self.inc.self_revoked.contains(r).then_some("KAFKA-9851");
                    let f = lost_assignment::finding(
                        &self.who(),
                        r,
                        &rec.line,
                        &fin.keep(),
                        not_running.as_ref(),
                        self.inc.baseline.as_ref(),
                        upstream,
                    );
                    self.push(f);
                    // Reported once: the episode lasts until it starts or stops again.
                    let at = not_running.unwrap_or_else(|| fin.keep());
                    self.inc.res.insert(r.clone(), ResState::Lost { at });
                    continue;
                }
                if holds && !known {
                    let since = rec.line.clone();
                    self.inc.res.insert(r.clone(), ResState::Held { since });
                    held.push(r.clone());
                }
            }
            if !held.is_empty() {
                if let Some(t) = &mut self.timeline {
                    t.held(&held, &rec.line.as_line());
                }
                let since = rec.line.clone();
                self.fact(
                    fin,
                    FactKind::Held {
                        resources: held,
                        since,
                    },
                );
            }
        }
        self.inc.received = received;
        self.inc.tasks_to_restart.clear();
        // The running set of a generation is taken when its start phase ends.
        if let Some(g) = self.generations.last_mut() {
            g.running = None;
        }
        self.close_generation();
    }

    pub(super) fn start(&mut self, r: &Resource, line: &Line) {
        // A pending unexplained stop of the same resource was a restart.
        let mut restarted = false;
        if let Some(i) = self.inc.pending_stops.iter().position(|s| &s.resource == r) {
            let s = self.inc.pending_stops.remove(i);
            self.count_stop(StopReason::Restart, &s);
            restarted = true;
        }
        if let Some(t) = &mut self.timeline {
            t.start(r, line);
        }
        let prev = self.inc.res.get(r).cloned();
        let in_phase = self.inc.start_phase.as_ref().map(|p| p.judgeable);
        let reconfigured = match r {
            Resource::Task(t) => self.inc.tasks_to_restart.get(t).cloned(),
            _ => None,
        };
        let origin = if in_phase.is_some() {
            match &reconfigured {
                Some(stop) => foreign_start::Origin::Reconfigured(stop.clone()),
                None => foreign_start::Origin::StartPhase,
            }
        } else if let Some(plan) = &self.inc.ctx.restart_plan {
            foreign_start::Origin::RestartPlan(plan.clone())
        } else {
            foreign_start::Origin::Other
        };
        let reason = match (&origin, restarted) {
            (foreign_start::Origin::StartPhase | foreign_start::Origin::Reconfigured(_), _) => {
                StartReason::Rebalance
            }
            (foreign_start::Origin::RestartPlan(_), _) => StartReason::RestartPlan,
            (_, true) => StartReason::Restart,
            _ if self.inc.ctx.connector.contains_key(r.connector_name()) => StartReason::Restart,
            _ => StartReason::Other,
        };
        *self.summary.starts.entry(reason).or_default() += 1;
        if let Some(g) = self.generations.last_mut() {
            g.started.push(r.clone());
        }

        let generation = self.inc.generation;
        let config_offset = self.inc.start_phase.as_ref().map(|p| p.phase.offset);
        // The start's outcome comes on the next lines: the facts wait for it.
        self.hold_facts();
        self.fact(
            line,
            FactKind::Start {
                resource: r.clone(),
                generation,
                config_offset,
            },
        );
        let judgeable = in_phase != Some(false);
        if judgeable
            && let Some(why) =
                foreign_start::check(self.inc.owned.as_ref(), self.inc.received.as_ref(), r)
        {
            let f = foreign_start::finding(&self.who(), r, &line.keep(), &why, &origin);
            self.push(f);
        }
        let mut stale_finding = None;
        if let Resource::Task(t) = r {
            let facts = self.config.get(&t.connector).map(|f| &**f);
            let process_start = self.inc.process_start.as_ref();
            if let Some(stale) = stale_config::check(facts, process_start) {
                let f = stale_config::finding(&self.who(), r, &line.keep(), &stale);
                stale_finding = Some(self.push(f));
            } else if let Some(s) = stale_config::superseded(facts, process_start, t.index) {
                let f = stale_config::superseded_finding(&self.who(), r, &line.keep(), &s);
                stale_finding = Some(self.push(f));
            }
        }
        let mut double = None;
        if double_start::check(prev.as_ref()) {
            let f = double_start::finding(&self.who(), r, &line.keep(), prev.as_ref());
            double = Some(self.push(f));
        }
        self.inc.last_task_start = matches!(r, Resource::Task(_)).then(|| r.clone());
        self.inc.last_start.insert(
            r.clone(),
            Attempt {
                line: line.keep(),
                prev,
                double,
                answered: false,
                refused: false,
                stale: stale_finding,
            },
        );
        self.inc
            .res
            .insert(r.clone(), ResState::Starting { since: line.keep() });
        if !self.inc.starting.contains(r) {
            self.inc.starting.push(r.clone());
        }
        if let Some(ps) = &mut self.inc.start_phase {
            ps.phase.started.push((r.clone(), line.keep()));
        }
        if let Resource::Task(t) = r {
            self.inc.tasks_to_restart.remove(t);
        }
        if let Resource::Connector(c) = r {
            self.inc.ctx.connector.remove(c);
            self.inc.ctx.target_stopped.remove(c);
        }
        self.inc.self_revoked.remove(r);
    }

    /// The Worker logged a line of `r`'s start (`Creating …`,
    /// `Instantiated …`, `Finished creating connector …`): it did not hold
    /// the resource already.
    pub(super) fn answered(&mut self, r: &Resource) {
        if let Some(a) = self.inc.last_start.get_mut(r) {
            a.answered = true;
        }
    }

    /// A start of `r` failed (any path: docs/rules.md, "Failed starts").
    /// No instance runs; where the Worker refused the start because it
    /// already held the resource, the old instance runs on.
    pub(super) fn start_failed(&mut self, r: &Resource, how: StartFailure, line: &Line) {
        if let Some(t) = &mut self.timeline {
            t.start_failed(r, line, how == StartFailure::Initialization);
        }
        if let Some(ps) = &mut self.inc.start_phase {
            ps.phase.failed.insert(r.clone());
        }
        let attempt = self.inc.last_start.get(r).cloned();
        // A failed start handled no data with the old configuration.
        if let Some(i) = attempt.as_ref().and_then(|a| a.stale)
            && attempt.as_ref().is_some_and(|a| !a.refused)
        {
            self.withdraw(i);
            if let Some(a) = self.inc.last_start.get_mut(r) {
                a.stale = None;
            }
        }
        if let Some(a) = &attempt {
            if a.refused {
                // The refusal was read already (`… already exists`): the
                // old instance runs on, whatever the herder adds.
                return;
            }
            // 2.6.0+: `Failed to start connector 'X'` for a start the Worker
            // answered with no line of its own is the refusal of a
            // connector it already holds (up to 2.7.x the stack does not
            // say so). Only where the old instance is known to run.
            if how == StartFailure::HerderCallback
                && matches!(r, Resource::Connector(_))
                && !a.answered
                && a.prev.as_ref().is_some_and(ResState::is_live)
                && self.inc.res.get(r).and_then(ResState::live_since) == Some(&a.line)
            {
                return self.already_exists(r, line);
            }
        }
        if matches!(how, StartFailure::Worker | StartFailure::ConnectorStart)
            && let Some(a) = self.inc.last_start.get_mut(r)
        {
            a.answered = true;
        }
        let prev = self.inc.res.get(r).cloned();
        // Which attempt failed: the latest start, unless the resource was
        // stopped since (then the failure is of an instance the log did not
        // show starting).
        let start = match &prev {
            Some(ResState::Starting { since } | ResState::Running { since, .. })
                if attempt.as_ref().is_some_and(|a| &a.line == since) =>
            {
                Some(since.clone())
            }
            Some(ResState::Failed { start, .. }) => start.clone(),
            _ => None,
        };
        // A failure line after another for the same attempt (the Worker's,
        // then the herder's) keeps what the first said of the instance.
        let registered = match (&prev, how.registered()) {
            (_, Some(true)) => true,
            (Some(ResState::Failed { registered, .. }), _) => *registered,
            (_, _) => false,
        };
        if prev.as_ref().is_some_and(ResState::is_live) {
            // The cross-worker checks must not count it: withdraw the start
            // if it is still held back, else say that it failed. An
            // instance from before the start (a double start) is on their
            // books too: it goes as well, unless the refusal puts it back.
            let withdrawn = start.is_some() && self.withdraw_start(r);
            let before = start.is_some()
                && attempt
                    .as_ref()
                    .is_some_and(|a| a.prev.as_ref().is_some_and(ResState::is_live));
            if !withdrawn || before {
                self.fact(
                    line,
                    FactKind::StartFailed {
                        resource: r.clone(),
                    },
                );
            }
        }
        self.inc.res.insert(
            r.clone(),
            ResState::Failed {
                at: line.keep(),
                start,
                registered,
            },
        );
    }

    /// The Worker refused the latest start of `r`: it already holds an
    /// instance (`Task already exists in this worker`, `Connector with name
    /// X already exists`). That instance runs on.
    pub(super) fn already_exists(&mut self, r: &Resource, line: &Line) {
        let Some(a) = self.inc.last_start.get(r).cloned() else {
            return;
        };
        if a.refused {
            return;
        }
        if let Some(t) = &mut self.timeline {
            t.refused(r, line);
        }
        match a.double {
            Some(i) => {
                if let Some(f) = self.finding_mut(i) {
                    f.evidence.push(Evidence::new(
                        "the Worker refuses: an instance already exists",
                        &line.keep(),
                    ));
                    f.normalise();
                }
            }
            None => {
                let f =
                    double_start::refused(&self.who(), r, &a.line, &line.keep(), a.prev.as_ref());
                let i = self.push(f);
                if let Some(e) = self.inc.last_start.get_mut(r) {
                    e.double = Some(i);
                }
            }
        }
        if let Some(e) = self.inc.last_start.get_mut(r) {
            e.refused = true;
            e.answered = true;
        }
        // The old instance is still running.
        let old = a.prev.as_ref().and_then(ResState::live_since).cloned();
        self.withdraw_start(r);
        if let Some(since) = &old {
            // The failed start took it off the cross-worker checks' books.
            self.fact(
                line,
                FactKind::Held {
                    resources: vec![r.clone()],
                    since: since.clone(),
                },
            );
        }
        let since = old.unwrap_or(a.line);
        self.inc.starting.retain(|x| x != r);
        self.inc.res.insert(
            r.clone(),
            ResState::Running {
                since,
                zombie_reported: true,
            },
        );
    }
}

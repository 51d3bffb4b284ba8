//! Stops: what justifies each (docs/rules.md, "Stops the protocol
//! justifies"), and the `unnecessary-stop` findings when nothing does.

use super::*;

impl WorkerReplay {
    pub(super) fn flush_unconfirmed(&mut self) {
        if self.inc.unconfirmed.is_empty() {
            return;
        }
        for (r, l) in std::mem::take(&mut self.inc.unconfirmed) {
            self.stop(&r, &l.as_line());
        }
    }

    pub(super) fn confirm(&mut self, r: &Resource) {
        if let Some(i) = self.inc.unconfirmed.iter().position(|(u, _)| u == r) {
            let (r, l) = self.inc.unconfirmed.remove(i);
            self.stop(&r, &l.as_line());
        }
    }

    /// A real stop of `r` at `line`.
    /// Records a stop attempt of `r` at `line` (for the rebalance's zombie
    /// check) and that it no longer runs; returns what was known before.
    pub(super) fn mark_stopped(&mut self, r: &Resource, line: &Line) -> Option<ResState> {
        if let Some(w) = &mut self.inc.window {
            w.stop_attempts.insert(r.clone());
        }
        self.inc
            .res
            .insert(r.clone(), ResState::Stopped { at: line.keep() })
    }

    pub(super) fn stop(&mut self, r: &Resource, line: &Line) {
        if let Some(t) = &mut self.timeline {
            t.stop(r, line);
        }
        let prev = self.mark_stopped(r, line);
        let stop = Stop {
            resource: r.clone(),
            line: line.keep(),
            prev,
        };
        // a task stopped for a task-config update: judged before the fact,
        // which carries the update's line when the stop is excused by it
        let task_update = self.task_update_verdict(&stop);
        let excused_by = match &task_update {
            Some((handling, None)) => Some(handling.clone()),
            _ => None,
        };
        self.fact(
            line,
            FactKind::Stop {
                resource: r.clone(),
                task_config: excused_by,
            },
        );
        if let Some(g) = self.generations.last_mut() {
            g.stopped.push(r.clone());
        }
        let conn = r.connector_name().clone();
        if let (Resource::Task(t), Some((_, finding))) = (r, task_update) {
            self.inc.tasks_to_restart.insert(t.clone(), line.keep());
            return match finding {
                Some(f) => {
                    self.push(f);
                    self.count_stop(StopReason::Unnecessary, &stop)
                }
                None => self.count_stop(StopReason::TaskConfig, &stop),
            };
        }
        let ctx = &self.inc.ctx;
        if ctx.shutdown.is_some() {
            return self.count_stop(StopReason::Shutdown, &stop);
        }
        if ctx.self_revocation.is_some() {
            self.inc.self_revoked.insert(r.clone());
            return self.count_stop(StopReason::SelfRevocation, &stop);
        }
        if ctx.restart_plan.is_some() {
            return self.count_stop(StopReason::RestartPlan, &stop);
        }
        if let (Resource::Connector(_), Some(cc)) = (r, ctx.connector.get(&conn)) {
            let handling = cc.line.clone();
            return match cc.action {
                ConnectorUpdateAction::Stopping => {
                    self.count_stop(StopReason::ConnectorRemoved, &stop)
                }
                ConnectorUpdateAction::Restarting => {
                    let start = stop.prev.as_ref().and_then(ResState::started_at);
                    let verdict = unnecessary_stop::connector_config_change(
                        self.config.get(&conn).map(|f| &**f),
                        start,
                    );
                    match unnecessary_stop::connector_config(
                        &self.who(),
                        &stop,
                        &verdict,
                        &handling,
                    ) {
                        Some(f) => {
                            self.push(f);
                            self.count_stop(StopReason::Unnecessary, &stop)
                        }
                        None => self.count_stop(StopReason::ConnectorConfig, &stop),
                    }
                }
            };
        }
        if ctx.target_stopped.contains_key(&conn) {
            return self.count_stop(StopReason::TargetStopped, &stop);
        }
        if let Some(w) = &mut self.inc.window {
            if !w.joined {
                w.stopped_before_join = true;
            }
            w.stops.push(stop);
            return;
        }
        self.inc.pending_stops.push(stop);
    }

    /// A task stopped for a task-config update (no shutdown, revocation of
    /// its own or restart plan explains it first): the line handling the
    /// update, and the `unnecessary-stop` finding when no task config of
    /// its connector changed since it started.
    fn task_update_verdict(&self, stop: &Stop) -> Option<(SourceLine, Option<Finding>)> {
        let ctx = &self.inc.ctx;
        if ctx.shutdown.is_some() || ctx.self_revocation.is_some() || ctx.restart_plan.is_some() {
            return None;
        }
        let r = &stop.resource;
        let (Resource::Task(t), Some(tu)) = (r, &ctx.task_update) else {
            return None;
        };
        if !tu.tasks.contains(t) {
            return None;
        }
        let handling = tu.line.clone();
        let start = stop.prev.as_ref().and_then(ResState::started_at);
        let conn = r.connector_name();
        let verdict =
            unnecessary_stop::task_config_change(self.config.get(conn).map(|f| &**f), start);
        let owned_line = self
            .inc
            .owned
            .as_ref()
            .filter(|o| o.holds(r))
            .map(|o| o.line.clone());
        let finding = owned_line.as_ref().and_then(|ol| {
            unnecessary_stop::task_config(&self.who(), stop, &verdict, &handling, Some(ol))
        });
        Some((handling, finding))
    }

    /// Judges stops outside any rebalance that no start has explained.
    /// `boundary` is the line that ends the wait (`None`: the log ended).
    pub(super) fn resolve_pending(&mut self, boundary: Option<&Line>) {
        for stop in std::mem::take(&mut self.inc.pending_stops) {
            let Some(b) = boundary else {
                self.count_stop(StopReason::NotJudged, &stop);
                continue;
            };
            let owned = self.inc.owned.as_ref();
            match (self.protocol(), owned) {
                (Some(p), Some(o)) if p.is_cooperative() && o.holds(&stop.resource) => {
                    let f = unnecessary_stop::unexplained(&self.who(), &stop, &o.line, &b.keep());
                    self.push(f);
                    self.count_stop(StopReason::Unnecessary, &stop);
                }
                (_, Some(o)) if !o.holds(&stop.resource) => {
                    self.count_stop(StopReason::NotAssigned, &stop)
                }
                (None, _) => self.count_stop(StopReason::ProtocolUnknown, &stop),
                _ => self.count_stop(StopReason::NotJudged, &stop),
            }
        }
    }
}

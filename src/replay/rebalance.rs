//! Rebalances: the window from their first line to the assignment line,
//! judging the stops in it, revocations (`zombie`), and the task-config
//! claims the stops are judged by.

use super::*;

impl WorkerReplay {
    /// A rebalance begins (if one is not already in progress).
    pub(super) fn open_window(&mut self, line: &Line) {
        if self.inc.window.is_some() {
            return;
        }
        self.boundary(line);
        self.inc.window = Some(Window {
            opened: Some(line.keep()),
            ..Window::default()
        });
    }

    /// Something that ends the stable phase: unexplained stops are judged
    /// now, an unfinished start phase is closed, config contexts end.
    pub(super) fn boundary(&mut self, line: &Line) {
        self.close_phase(None);
        self.resolve_pending(Some(line));
        self.inc.ctx.task_update = None;
        self.inc.ctx.connector.clear();
    }

    /// An assignment line ends the rebalance: the stops in it are judged
    /// against it, its revocations checked, and it becomes what the worker
    /// received.
    pub(super) fn assignment(
        &mut self,
        generation: Option<i32>,
        version: Option<i64>,
        a: &crate::model::Assignment,
        line: &Line,
    ) {
        let window = self.take_window(line);
        let generation = generation.or_else(|| self.inc.joined.map(|(g, _)| g));
        let (protocol, eager_signature) = self.assignment_protocol(generation, version, a, &window);
        self.inc.generation = generation;
        let judged =
            self.judge_window_stops(&window, a, (generation, protocol, eager_signature), line);
        let cooperative = protocol.is_some_and(Protocol::is_cooperative);
        if cooperative && window.opened.is_some() && judged {
            self.check_revocations(&window, a, line);
        }
        if protocol == Some(Protocol::Eager) && window.opened.is_some() {
            self.eager_rebalance_stopped_all(&window);
        }
        self.receive(a, generation, protocol, line);
        // After the assignment's fact: it makes the worker a peer of the
        // others of its generation.
        if cooperative {
            self.kept_from_before(&window, a, line);
        }
        self.inc.blind_left = None;
    }

    /// A departure without revocation: blind when the log has shown no
    /// assignment of this worker yet (it starts mid-life), so what the
    /// worker keeps running is unknown here; the generation it was fenced
    /// out of, where a line names it.
    pub(super) fn note_blind_departure(&mut self, line: &Line, generation: Option<i32>) {
        if self.inc.received.is_some() || self.inc.baseline.is_some() {
            return;
        }
        match &mut self.inc.blind_left {
            Some((_, g)) => *g = g.or(generation),
            None => self.inc.blind_left = Some((line.keep(), generation)),
        }
    }

    /// After a blind departure, the first assignment revokes what the
    /// worker reported owning when it rejoined (a cooperative member sends
    /// its last assignment): each such resource stopped in this rebalance,
    /// never started in the log and unknown before its stop, ran from
    /// before the log began until that stop ([`FactKind::KeptFromBefore`]).
    fn kept_from_before(&mut self, window: &Window, a: &crate::model::Assignment, line: &Line) {
        let Some((left, Some(generation))) = self.inc.blind_left.clone() else {
            return;
        };
        for s in &window.stops {
            if s.prev.is_none()
                && a.revokes(&s.resource)
                && !self.started_names.contains(&s.resource)
                && s.line.ts >= left.ts
            {
                self.fact(
                    line,
                    FactKind::KeptFromBefore {
                        resource: s.resource.clone(),
                        generation,
                        left: left.clone(),
                        stop: s.line.clone(),
                    },
                );
            }
        }
    }

    /// The rebalance window the log saw open; `opened: None` when the
    /// assignment line is the first sign of the rebalance (the log starts
    /// mid-rebalance).
    fn take_window(&mut self, line: &Line) -> Window {
        match self.inc.window.take() {
            Some(w) => w,
            None => {
                self.boundary(line);
                Window::default()
            }
        }
    }

    /// The protocol of an assignment: what the line or the rebalance says
    /// (kept as the worker's), else the eager signature (everything stopped
    /// before the join), else what the worker's protocol was; and whether
    /// the window has the eager signature.
    fn assignment_protocol(
        &mut self,
        generation: Option<i32>,
        version: Option<i64>,
        a: &crate::model::Assignment,
        window: &Window,
    ) -> (Option<Protocol>, bool) {
        let joined_protocol = self
            .inc
            .joined
            .filter(|(g, _)| Some(*g) == generation)
            .and_then(|(_, p)| p);
        let explicit = version
            .and_then(Protocol::from_version)
            .or_else(|| (!a.is_extended()).then_some(Protocol::Eager))
            .or(window.protocol)
            .or(joined_protocol)
            .or_else(|| a.has_revocations().then_some(Protocol::Compatible));
        if let Some(p) = explicit {
            self.inc.protocol = Some(p);
        }
        let eager_signature = window.stopped_before_join && window.opened.is_some();
        let protocol = if eager_signature && explicit.is_none() {
            Some(Protocol::Eager)
        } else {
            explicit.or(self.protocol())
        };
        (protocol, eager_signature)
    }

    /// Stops logged during the rebalance, judged against this assignment,
    /// unless the log jumps inside it (lines may be missing): then none is,
    /// and the summary says so. Were they judged?
    fn judge_window_stops(
        &mut self,
        window: &Window,
        a: &crate::model::Assignment,
        (generation, protocol, eager_signature): (Option<i32>, Option<Protocol>, bool),
        line: &Line,
    ) -> bool {
        if let Some((a, b)) = &window.gap {
            let mins = match (a.ts, b.ts) {
                (Some(x), Some(y)) => (y.0 - x.0) / 60_000,
                _ => 0,
            };
            self.note(
                Some(&b.as_line()),
                format!(
                    "generation {}: the log jumps {mins} min inside the rebalance (lines {} to {}); lines may be missing, so its stops and revocations are not judged",
                    fmt_gen(generation),
                    a.line,
                    b.line
                ),
            );
            for s in &window.stops {
                self.count_stop(StopReason::NotJudged, s);
            }
            if let Some(t) = &mut self.timeline {
                let why = format!("the log jumps {mins} min inside a rebalance");
                t.unknown(Some(&a.as_line()), &b.as_line(), why);
            }
        }
        let judge_window = window.gap.is_none();
        // Stops logged during the rebalance, judged against this assignment.
        for stop in window.stops.iter().filter(|_| judge_window) {
            let why =
                unnecessary_stop::rebalance_stop(protocol, eager_signature, a, &stop.resource);
            if why == StopReason::Unnecessary {
                let mut who = self.who();
                who.generation = generation;
                let f = unnecessary_stop::in_rebalance(&who, stop, &line.keep());
                self.push(f);
            }
            self.count_stop_because(why, stop, Some(line.keep()));
        }
        if protocol.is_none() && !window.stops.is_empty() {
            self.note(
                Some(line),
                format!(
                    "generation {}: protocol unknown; {} rebalance stop(s) not judged",
                    fmt_gen(generation),
                    window.stops.len()
                ),
            );
        }
        judge_window
    }

    /// Revoked work must have been stopped before this line (cooperative
    /// protocols): a resource still running is a zombie.
    fn check_revocations(&mut self, window: &Window, a: &crate::model::Assignment, line: &Line) {
        for r in a.revoked().collect::<Vec<_>>() {
            let st = self.inc.res.get(&r).cloned();
            if zombie::check(st.as_ref(), window.stop_attempts.contains(&r)) {
                let f = zombie::finding(
                    &self.who(),
                    &r,
                    &line.keep(),
                    st.as_ref(),
                    window.skip_stopping.as_ref(),
                    window.opened.as_ref(),
                );
                self.push(f);
                let since = st
                    .as_ref()
                    .and_then(ResState::live_since)
                    .cloned()
                    .unwrap_or_else(|| line.keep());
                self.inc.res.insert(
                    r,
                    ResState::Running {
                        since,
                        zombie_reported: true,
                    },
                );
            }
        }
    }

    /// Eager: the rebalance stopped everything; what the log never showed
    /// running is not running now, and a failed start is retried (the
    /// start phase starts the whole assignment).
    fn eager_rebalance_stopped_all(&mut self, window: &Window) {
        self.inc
            .res
            .retain(|_, s| !matches!(s, ResState::Held { .. } | ResState::Failed { .. }));
        if self.inc.baseline.is_none() {
            self.inc.baseline = window.opened.clone();
        }
        if let (Some(t), Some(at)) = (&mut self.timeline, &window.opened) {
            t.known_from(&at.as_line(), false);
        }
    }

    /// The assignment becomes what the worker received (and owns, unless
    /// it failed): the fact for the cross-worker checks, the summary, the
    /// timeline and the generation records.
    fn receive(
        &mut self,
        a: &crate::model::Assignment,
        generation: Option<i32>,
        protocol: Option<Protocol>,
        line: &Line,
    ) {
        let received = Received::after(self.inc.received.as_ref(), a, protocol, line.keep());
        if !a.failed() {
            self.inc.owned = Some(Owned::from(&received));
        }
        // MirrorMaker 2 in dedicated mode without its internal REST server
        // advertises the placeholder `NOTUSED`: every such herder would
        // share it, so it identifies none.
        if self.member_id.as_deref() == Some(a.leader.as_str())
            && a.leader_url != "null"
            && a.leader_url != "NOTUSED"
        {
            self.leader_self_url = Some(a.leader_url.clone());
            self.who_changed = true;
        }
        if let Some(g) = generation
            && self.facts.is_some()
        {
            let live = self.inc.res.live();
            let kind = FactKind::Assignment {
                generation: g,
                assigned: received.assigned.clone(),
                revoked: if a.has_revocations() {
                    state::sorted_set(a.revoked())
                } else {
                    self.no_resources.clone()
                },
                leader: a.leader.clone(),
                leader_url: a.leader_url.clone(),
                offset: a.offset,
                error: a.error,
                live,
            };
            self.fact(line, kind);
        }
        self.inc.received = Some(received);
        self.inc.trouble = None;
        self.inc.ctx.self_revocation = None;
        self.summary.generations += 1;
        self.summary.first_generation = self.summary.first_generation.or(generation);
        if let Some(g) = generation {
            self.summary.last_generation = generation;
            self.summary.generation_numbers.insert(g);
        }
        if let Some(t) = &mut self.timeline {
            t.generation(generation, protocol, a, line);
        }
        self.close_generation();
        // The records are the replay view's (`keep_generations`); no
        // report shows them otherwise.
        if self.keep_generations {
            self.generations
                .push(GenerationRecord::new(generation, protocol, a, line));
        }
    }

    /// Takes the running set of the latest generation record, unless it
    /// has one (none is kept unless `keep_generations`).
    pub(super) fn close_generation(&mut self) {
        if self.generations.last().is_none_or(|g| g.running.is_some()) {
            return;
        }
        let running: Vec<Resource> = {
            let mut v: Vec<Resource> = self
                .inc
                .res
                .iter()
                .filter(|(_, s)| s.is_live())
                .map(|(r, _)| r.clone())
                .collect();
            v.sort();
            v
        };
        let complete = self.inc.baseline.is_some();
        if let Some(g) = self.generations.last_mut()
            && g.running.is_none()
        {
            g.running = Some(running);
            g.running_complete = complete;
        }
    }

    pub(super) fn task_claim(&mut self, tasks: &[TaskId], line: &Line) {
        self.inc.offset = None;
        let mut by_conn: BTreeMap<&crate::model::Name, BTreeSet<u32>> = BTreeMap::new();
        for t in tasks {
            by_conn.entry(&t.connector).or_default().insert(t.index);
        }
        let multi = by_conn.len() > 1;
        for (c, set) in by_conn {
            let facts = self.config.entry(c.clone()).or_default();
            if multi {
                facts.multi_claim = Some(Box::new(line.keep()));
            } else {
                facts.single_claim = Some(line.keep());
            }
            let set: Box<[u32]> = set.into_iter().collect();
            if facts.task_set.as_ref().is_some_and(|old| *old != set) {
                facts.count_change = Some(line.seq);
            }
            facts.task_set = Some(set);
        }
    }
}

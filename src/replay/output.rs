//! What the replay hands on, and when: facts for the cross-worker checks
//! and its findings once they are final (facts mode), with the machinery
//! that holds them back while a start's outcome is unknown (a start that
//! fails while its lines are coming is withdrawn, never handed on); and the
//! end of the replay, which hands back the [`WorkerReport`].

use super::*;

impl WorkerReplay {
    /// The facts collected since the last call, except those waiting for
    /// the outcome of a start (see [`WorkerReplay::flush_findings`]).
    pub fn take_facts(&mut self) -> Vec<Fact> {
        let Some(facts) = self.facts.as_mut() else {
            return Vec::new();
        };
        match &mut self.facts_held_from {
            Some(from) => {
                let ready: Vec<Fact> = facts.drain(..*from).collect();
                *from = 0;
                ready
            }
            None => std::mem::take(facts),
        }
    }

    /// Like [`WorkerReplay::take_facts`], drained out of the replay's own
    /// vector (which keeps its buffer for the facts that follow); `None`
    /// unless facts are collected.
    pub fn drain_facts(&mut self) -> Option<std::vec::Drain<'_, Fact>> {
        let facts = self.facts.as_mut()?;
        let ready = match &mut self.facts_held_from {
            Some(from) => std::mem::take(from),
            None => facts.len(),
        };
        Some(facts.drain(..ready))
    }

    /// Are facts held until the outcome of the starts under way is known?
    pub fn holds_facts(&self) -> bool {
        self.facts_held_from.is_some()
    }

    /// Holds the facts made from now on until the outcome of the starts
    /// under way is known.
    pub(super) fn hold_facts(&mut self) {
        if let (Some(f), None) = (&self.facts, self.facts_held_from) {
            self.facts_held_from = Some(f.len());
        }
    }

    /// Withdraws the `Start` fact of `r`'s latest start if it is still
    /// held; returns whether it was.
    pub(super) fn withdraw_start(&mut self, r: &Resource) -> bool {
        let (Some(facts), Some(from)) = (self.facts.as_mut(), self.facts_held_from) else {
            return false;
        };
        let found = facts[from..]
            .iter()
            .rposition(|f| matches!(&f.kind, FactKind::Start { resource, .. } if resource == r));
        match found {
            Some(i) => {
                facts.remove(from + i);
                true
            }
            None => false,
        }
    }

    /// The lines of the starts under way are past: what did not fail runs.
    fn settle_starts(&mut self) {
        if self.inc.starting.is_empty() {
            return;
        }
        for r in std::mem::take(&mut self.inc.starting) {
            if let Some(st) = self.inc.res.get_mut(&r)
                && let ResState::Starting { since } = st
            {
                *st = ResState::Running {
                    since: since.clone(),
                    zombie_reported: false,
                };
            }
        }
    }

    pub(super) fn fact(&mut self, line: &Line, kind: FactKind) {
        if self.facts.is_none() {
            return;
        }
        if self.who_changed {
            self.who_changed = false;
            self.refresh_who();
        }
        let fact = Fact {
            group: self.group_arc.clone(),
            cluster: self.kafka_cluster.clone(),
            identity: self.identity_arc.clone(),
            line: line.keep(),
            kind,
        };
        if let Some(f) = &mut self.facts {
            f.push(fact);
        }
    }

    /// The group and identity the facts carry, after one of the fields
    /// they are made of changed.
    fn refresh_who(&mut self) {
        if self.group_arc.as_deref() != self.group.as_deref() {
            self.group_arc = self.group.as_deref().map(Arc::from);
        }
        // `kind:value`, built only when it changed.
        let mut v = std::mem::take(&mut self.identity_buf);
        v.clear();
        let id_kind = self.write_identity(&mut v);
        let prefix = identity_prefix(id_kind);
        let same = match (&self.identity_arc, id_kind) {
            (None, Identity::FilePath) => true,
            (Some(a), k) if k != Identity::FilePath => {
                a.strip_prefix(prefix)
                    .and_then(|rest| rest.strip_prefix(':'))
                    == Some(v.as_str())
            }
            _ => false,
        };
        if !same {
            self.identity_arc =
                (id_kind != Identity::FilePath).then(|| Arc::from(format!("{prefix}:{v}")));
        }
        self.identity_buf = v;
    }

    /// Live input went quiet: a connector stop no `Ignoring stop request`
    /// line followed (the Worker logs both at once) is a stop, and the
    /// findings pushed so far are final.
    pub fn settle(&mut self) {
        self.flush_unconfirmed();
        self.flush_findings();
    }

    /// The outcome of the starts under way is known (a line that is not
    /// part of a start came, live input went quiet, or the log ended): what
    /// did not fail runs, and the facts held for them are released. Facts
    /// mode: hands the findings pushed so far on as facts (they are final:
    /// nothing later amends them) and forgets them.
    pub fn flush_findings(&mut self) {
        self.settle_starts();
        self.facts_held_from = None;
        if self.facts.is_none() || self.held_from == self.findings.len() {
            return;
        }
        let first = self.handed_on + self.held_from;
        let fresh: Vec<Finding> = self.findings.drain(self.held_from..).collect();
        self.handed_on += fresh.len();
        self.held_from = self.findings.len();
        let withdrawn = std::mem::take(&mut self.withdrawn);
        for (k, f) in fresh.into_iter().enumerate() {
            if withdrawn.contains(&(first + k)) {
                continue;
            }
            let line = f.trigger.clone();
            match &f.kind {
                crate::finding::Kind::ForeignStart => {
                    let resource = f.resource.clone();
                    let generation = f.generation;
                    if let Some(resource) = resource {
                        self.fact(
                            &line.as_line(),
                            FactKind::ForeignStart {
                                resource,
                                generation,
                                finding: Box::new(f),
                            },
                        );
                        continue;
                    }
                    self.fact(&line.as_line(), FactKind::Finding(Box::new(f)));
                }
                _ => self.fact(&line.as_line(), FactKind::Finding(Box::new(f))),
            }
        }
        // Nothing before `held_from` is kept in facts mode.
        self.findings.clear();
        self.held_from = 0;
    }

    /// Withdraws the finding at absolute index `i` if it was not handed on.
    pub(super) fn withdraw(&mut self, i: usize) {
        if self.finding_mut(i).is_none() || self.withdrawn.contains(&i) {
            return;
        }
        if let Some(k) = self.finding_mut(i).map(|f| f.kind)
            && let Some(n) = self.summary.findings.get_mut(&k)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.summary.findings.remove(&k);
            }
        }
        self.withdrawn.push(i);
    }

    /// The finding at absolute index `i` (see [`WorkerReplay::push`]),
    /// while it may still be amended.
    pub(super) fn finding_mut(&mut self, i: usize) -> Option<&mut Finding> {
        i.checked_sub(self.handed_on)
            .and_then(|j| self.findings.get_mut(j))
    }

    /// Records a finding; returns its absolute index (stable while it may
    /// be amended: see [`WorkerReplay::finding_mut`]).
    pub(super) fn push(&mut self, f: Finding) -> usize {
        *self.summary.findings.entry(f.kind).or_default() += 1;
        self.findings.push(f);
        self.handed_on + self.findings.len() - 1
    }

    #[cfg(test)]
    /// Ends the replay.
    pub fn finish(self) -> WorkerReport {
        self.finish_with_facts().0
    }

    /// Ends the replay; also returns the facts its end produced (facts mode).
    pub fn finish_with_facts(mut self) -> (WorkerReport, Vec<Fact>) {
        self.settle_starts();
        if let Some(l) = self.last_line.as_mut().map(super::last::LastLine::keep) {
            self.end_incarnation(&l.as_line(), "the log ends");
            // No `Reset`: the log ending stops nothing; what ran may run on
            // (the cross-worker checks learn of the end from `End`).
            self.flush_findings();
            // The `End` fact is stamped with the log's last line where it is
            // later than the last line read: the worker's instances that no
            // line stopped ran at least until then.
            let end = match self.tail_line.take() {
                Some(t) if t.ts > l.ts && t.seq > 0 => t,
                _ => l,
            };
            self.fact(&end.as_line(), FactKind::End);
        }
        self.flush_findings();
        let facts = self.take_facts();
        self.summary.group = self.group.clone();
        self.summary.client_id = self.client_id.clone();
        self.summary.member_id = self.member_id.as_deref().map(str::to_string);
        self.summary.protocol = self.protocol();
        self.summary.rest_url = self.rest_url();
        self.summary.kafka_cluster = self.kafka_cluster.as_deref().map(str::to_string);
        self.summary.identified_by = self.identity().0;
        if self.summary.time_reversals > 0 {
            let n = self.summary.time_reversals;
            self.note(None, format!("timestamps go backwards {n} time(s)"));
        }
        let report = WorkerReport {
            summary: self.summary,
            findings: {
                let (base, withdrawn) = (self.handed_on, &self.withdrawn);
                self.findings
                    .into_iter()
                    .enumerate()
                    .filter(|(k, _)| !withdrawn.contains(&(base + k)))
                    .map(|(_, f)| f)
                    .collect()
            },
            generations: if self.keep_generations {
                self.generations
            } else {
                Vec::new()
            },
            timeline: self.timeline.map(|t| t.finish()),
        };
        (report, facts)
    }
}

/// How a fact names the kind of a worker's identity (`rest:URL`, …).
fn identity_prefix(kind: Identity) -> &'static str {
    match kind {
        Identity::RestUrl => "rest",
        Identity::MemberId => "member",
        Identity::ClientId => "client",
        Identity::FilePath => "file",
    }
}

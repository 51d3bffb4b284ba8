//! Rebalances: every live member prepares (eager: stops everything), the
//! leader assigns (eager round-robin, or incremental cooperative with
//! revocation before reassignment and the scheduled rebalance delay), and
//! every member completes: cooperative revocation stops, the assignment line,
//! the config-offset checks and the start of work.

use super::{Cluster, Rec, Target, Timer, Why, off};
use crate::sim::data::{Assign, Res};
use crate::sim::truth::FaultKind;
use std::collections::BTreeSet;

impl Cluster {
    /// Rounds until no member asks to rejoin.
    pub fn rebalance(&mut self) {
        for _ in 0..12 {
            let members = self.live();
            if members.is_empty() {
                self.group.needs_round = false;
                return;
            }
            self.round(&members);
            self.rounds_in_settle += 1;
            let again = self.group.needs_round || members.iter().any(|&w| self.workers[w].rejoin);
            if !again {
                break;
            }
            if self.rounds_in_settle > 60 {
                break;
            }
        }
    }

    fn round(&mut self, members: &[usize]) {
        self.group.needs_round = false;
        self.stats.rounds += 1;
        // The leader keeps its role while it stays; else the oldest member.
        let leader = match self.group.leader {
            Some(l) if members.contains(&l) => l,
            _ => members
                .iter()
                .copied()
                .min_by_key(|&w| self.workers[w].join_seq)
                .unwrap_or(members[0]),
        };
        if self.group.leader != Some(leader) {
            self.group.memory = None;
            self.group.held_lost.clear();
            self.group.deadline = None;
        }
        self.group.leader = Some(leader);
        // The leader assigns from the config it has read: all of it.
        self.read_all(leader);
        let mut order = members.to_vec();
        self.rng.shuffle(&mut order);
        for &w in &order {
            self.prepare(w);
        }
        self.group.generation += 1;
        let g = self.group.generation;
        self.stats.generations = g;
        let mut assigns = if self.proto.cooperative() {
            self.assign_cooperative(members, leader)
        } else {
            self.assign_eager(members, leader)
        };
        // Sometimes a config record lands while the group syncs: members
        // that must catch up read past the assignment and force a rebalance.
        if self.rng.chance(self.p.concurrent) {
            self.concurrent_record();
        }
        self.rng.shuffle(&mut order);
        for &w in &order {
            let a = assigns.remove(&w).unwrap_or_default();
            self.complete(w, g, a);
        }
        self.ensure_session_key();
    }

    /// A pause/resume flip written while the group is syncing.
    fn concurrent_record(&mut self) {
        let cands: Vec<u16> = (0..self.conns.len() as u16)
            .filter(|&c| {
                self.conns[usize::from(c)].exists
                    && self.conns[usize::from(c)].target != Target::Stopped
            })
            .collect();
        let Some(&c) = self.rng.pick(&cands) else {
            return;
        };
        let x = &mut self.conns[usize::from(c)];
        let t = if x.target == Target::Paused {
            Target::Started
        } else {
            Target::Paused
        };
        x.target = t;
        self.append(Rec::Target(c, t));
    }

    /// Before the join request: `Rebalance started`; eager stops everything.
    fn prepare(&mut self, w: usize) {
        self.workers[w].rejoin = false;
        self.workers[w].resuming = false;
        let eager = !self.proto.cooperative();
        let had = self.workers[w].had_assignment;
        if self.v.heartbeat_line() && had && self.rng.chance(0.4) {
            self.say(w).heartbeat_failed();
        }
        self.oracle.rebalance_begins(w);
        self.say(w).rebalance_started(had);
        if eager && had {
            self.eager_revoke(w);
        }
        self.say(w).rejoining();
    }

    /// Eager onRevoked: stop the whole previous assignment.
    fn eager_revoke(&mut self, w: usize) {
        if self.workers[w].resolved {
            let prev: Vec<Res> = self.workers[w].assigned.iter().copied().collect();
            for r in prev.iter().filter(|r| !r.is_task()) {
                self.stop(w, *r, Why::Eager);
            }
            for r in prev.iter().filter(|r| r.is_task()) {
                self.stop(w, *r, Why::Eager);
            }
            self.say(w).finished_stopping();
        } else {
            self.say(w).skip_stopping();
        }
        self.workers[w].running_assignment.clear();
    }

    /// After the join: coordinator lines, cooperative revocation stops, the
    /// assignment line, the offset checks and the start of work.
    fn complete(&mut self, w: usize, g: i32, a: Assign) {
        let proto = self.proto;
        let member = self.workers[w].member_id.clone();
        self.say(w).joined(g, &member, proto);
        let revoked = a.revoked();
        let skipped = if proto.cooperative() {
            self.cooperative_revoke(w, &a, &revoked)
        } else {
            None
        };
        let line = self.say(w).assignment(g, &a, proto);
        if !self.workers[w].herder_started {
            self.workers[w].herder_started = true;
            self.say(w).herder_started();
        }
        {
            let wk = &mut self.workers[w];
            wk.cur_gen = g;
            wk.assigned = a.resources().into_iter().collect();
            wk.had_assignment = true;
            wk.last_received = Some(a.clone());
        }
        if let Some(r) = skipped {
            let detail = format!("the revoked {} is not stopped", self.res_name(r));
            self.fired(w, line, Some(r), detail);
        }
        {
            let (oracle, names) = self.judge();
            oracle.assignment(&names, w, line, &revoked, proto.cooperative());
        }
        if a.delay > 0 {
            let at = self.lnow + a.delay;
            self.schedule(at, Timer::Scheduled);
        }
        // handleRebalanceCompleted: the config offset must match.
        let snap = self.workers[w].snapshot;
        let skip_checks = self.fault.ready(FaultKind::OffsetMismatchStart)
            && snap != a.offset
            && self.oracle.known(w).is_some_and(|k| k != a.offset);
        if !skip_checks {
            if snap < a.offset {
                self.say(w).catching_up();
                self.read_to_end(w, a.offset);
            }
            let snap = self.workers[w].snapshot;
            if snap != a.offset {
                self.say(w).offset_mismatch(snap, a.offset);
                self.oracle.config_known(w, snap);
                let wk = &mut self.workers[w];
                wk.rejoin = true;
                wk.resolved = false;
                return;
            }
        }
        self.start_work(w, &a, skip_checks);
        if proto.cooperative() && !revoked.is_empty() {
            self.workers[w].rejoin = true;
        }
    }

    /// Cooperative onRevoked (before the assignment line): stop the revoked
    /// work (faults: skip one stop, or stop a retained one).
    fn cooperative_revoke(&mut self, w: usize, a: &Assign, revoked: &[Res]) -> Option<Res> {
        let mut skip = None;
        if self.fault.ready(FaultKind::SkipRevokedStop) {
            let cands: Vec<Res> = revoked
                .iter()
                .copied()
                .filter(|r| self.workers[w].running.contains_key(r))
                .collect();
            skip = self.rng.pick(&cands).copied();
        }
        let mut spurious = None;
        if self.fault.ready(FaultKind::SpuriousStop) {
            let wk = &self.workers[w];
            // Not a resource of a connector whose target state is STOPPED or
            // PAUSED: the rules excuse stops under a STOPPED target
            // (docs/rules.md).
            let started = |r: &Res| {
                self.conns
                    .get(usize::from(r.conn()))
                    .is_some_and(|x| x.target == Target::Started)
            };
            let mut cands: Vec<Res> = a
                .resources()
                .into_iter()
                .filter(|r| {
                    wk.running.contains_key(r) && wk.running_assignment.contains(r) && started(r)
                })
                .collect();
            if cands.iter().any(|r| r.is_task()) {
                cands.retain(|r| r.is_task());
            }
            spurious = self.rng.pick(&cands).copied();
        }
        if revoked.is_empty() && spurious.is_none() {
            return None;
        }
        for r in revoked {
            if Some(*r) != skip {
                self.stop(w, *r, Why::Revoked);
            }
        }
        if let Some(r) = spurious {
            let line = self.em.next_line(w);
            let detail = format!("the retained {} is stopped in onRevoked", self.res_name(r));
            self.fired(w, line, Some(r), detail);
            self.stop(w, r, Why::Spurious);
            self.workers[w].running_assignment.remove(&r);
        }
        self.say(w).finished_stopping();
        let wk = &mut self.workers[w];
        for r in revoked {
            wk.running_assignment.remove(r);
        }
        skip
    }

    /// readConfigToEnd after `Catching up…`.
    fn read_to_end(&mut self, w: usize, assignment: i64) {
        let snap = self.workers[w].snapshot;
        self.say(w).behind(snap, assignment);
        self.oracle.config_known(w, snap);
        self.read_all(w);
        let z = off(self.workers[w].read_upto);
        self.workers[w].snapshot = z;
        self.say(w).finished_reading(z);
        self.oracle.config_known(w, z);
    }

    /// startWork: assignment − running; reconfigured tasks only if still assigned.
    fn start_work(&mut self, w: usize, a: &Assign, offset_fault: bool) {
        let o = a.offset;
        let line = self.say(w).starting_work(o);
        if offset_fault {
            let known = self.oracle.known(w).unwrap_or(-1);
            self.fired(
                w,
                line,
                None,
                format!("work started at offset {o} while the config snapshot is at {known}"),
            );
        }
        {
            let (oracle, names) = self.judge();
            oracle.start_phase(&names, w, line, o);
        }
        let eager = !self.proto.cooperative();
        let restarting: BTreeSet<Res> = std::mem::take(&mut self.workers[w].to_restart);
        let mut starts: Vec<Res> = Vec::new();
        {
            let wk = &mut self.workers[w];
            for r in &restarting {
                wk.running_assignment.remove(r);
            }
            for r in a.resources() {
                if !wk.running_assignment.contains(&r) {
                    starts.push(r);
                }
            }
        }
        // Faults that change what is started.
        let mut faulty: Vec<(Res, String)> = Vec::new();
        if self.fault.ready(FaultKind::RestartMovedTask) {
            let extra: Vec<Res> = restarting
                .iter()
                .copied()
                .filter(|r| !a.holds(*r) && self.configured_now(*r))
                .collect();
            if let Some(&r) = extra.first() {
                let d = format!(
                    "the reconfigured {} is restarted although the rebalance moved it away",
                    self.res_name(r)
                );
                faulty.push((r, d));
                starts.push(r);
            }
        }
        let mut skipped = None;
        if self.fault.ready(FaultKind::SkipStart) && !starts.is_empty() {
            let i = self.rng.index(starts.len());
            skipped = Some(starts.remove(i));
        }
        if self.fault.ready(FaultKind::DoubleStart) && !eager {
            let wk = &self.workers[w];
            let cands: Vec<Res> = wk
                .running_assignment
                .iter()
                .copied()
                .filter(|r| r.is_task() && wk.running.contains_key(r) && a.holds(*r))
                .collect();
            if let Some(&r) = self.rng.pick(&cands) {
                let d = format!("the running {} is started again", self.res_name(r));
                faulty.push((r, d));
                starts.push(r);
            }
        }
        let mut started = BTreeSet::new();
        for r in starts {
            let line = self.start(w, r, Why::StartPhase).line;
            started.insert(r);
            if let Some(i) = faulty.iter().position(|(x, _)| *x == r) {
                let (_, d) = faulty.remove(i);
                self.fired(w, line, Some(r), d);
            }
        }
        let fin = self.say(w).finished_starting();
        if let Some(r) = skipped {
            let d = format!("the assigned {} is not started", self.res_name(r));
            self.fired(w, fin, Some(r), d);
        }
        {
            let (oracle, names) = self.judge();
            oracle.start_phase_done(&names, w, fin, a, &started);
        }
        let wk = &mut self.workers[w];
        wk.running_assignment = if eager {
            BTreeSet::new()
        } else {
            a.resources().into_iter().collect()
        };
        wk.resolved = true;
    }
}

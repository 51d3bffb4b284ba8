//! Rebalances: every live member prepares (eager: stops everything), the
//! leader assigns (eager round-robin, or incremental cooperative with
//! revocation before reassignment and the scheduled rebalance delay), and
//! every member completes: cooperative revocation stops, the assignment line,
//! the config-offset checks and the start of work.

use super::cluster::{Cluster, Lg, M, Timer, Why, off, put_assign};
use super::model::{Assign, Res};
use super::out::Lvl;
use super::truth::{FaultKind, Scope};
use super::version::Site;
use std::collections::{BTreeMap, BTreeSet};

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
                    && self.conns[usize::from(c)].target != super::cluster::Target::Stopped
            })
            .collect();
        let Some(&c) = self.rng.pick(&cands) else {
            return;
        };
        let x = &mut self.conns[usize::from(c)];
        let t = if x.target == super::cluster::Target::Paused {
            super::cluster::Target::Started
        } else {
            super::cluster::Target::Paused
        };
        x.target = t;
        self.append(super::cluster::Rec::Target(c, t));
    }

    /// Before the join request: `Rebalance started`; eager stops everything.
    fn prepare(&mut self, w: usize) {
        {
            let wk = &mut self.workers[w];
            wk.rejoin = false;
            wk.window_attempts.clear();
        }
        let eager = !self.proto.cooperative();
        let had = self.workers[w].had_assignment;
        if self.v.heartbeat_line() && had && self.rng.chance(0.4) {
            self.coord(
                w,
                Site::Heartbeat,
                "Attempt to heartbeat failed since group is rebalancing",
            );
        }
        self.workers[w].in_window = true;
        if self.v.herder_rebalance_started() {
            // ≤ 2.2.2: the herder's onRevoked, only with a previous assignment.
            if had {
                self.dh(
                    w,
                    Lvl::Info,
                    Site::HerderRebalanceStarted,
                    "Rebalance started",
                );
                self.eager_revoke(w);
            }
        } else {
            self.emit(
                w,
                Lvl::Info,
                M::None,
                Lg::WCoord,
                Site::RebalanceStarted,
                |l, _| l.s("Rebalance started"),
            );
            if eager && had {
                self.eager_revoke(w);
            }
        }
        self.coord(w, Site::Rejoining, "(Re-)joining group");
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
            self.finished_stopping(w);
        } else {
            let msg = self.v.skip_stopping_wording();
            self.dh(w, Lvl::Info, Site::SkipStopping, msg);
        }
        self.workers[w].running_assignment.clear();
    }

    /// Is `r` in the current configuration (its connector exists and, for a
    /// task, its index is below the committed task count)?
    fn configured_now(&self, r: Res) -> bool {
        let Some(x) = self.conns.get(usize::from(r.conn())) else {
            return false;
        };
        x.exists
            && match r {
                Res::Conn(_) => true,
                Res::Task(_, i) => i < x.tasks,
            }
    }

    fn configured(&self) -> (Vec<u16>, Vec<(u16, u16)>) {
        let mut cs = Vec::new();
        let mut ts = Vec::new();
        for (c, x) in self.conns.iter().enumerate() {
            if x.exists {
                cs.push(c as u16);
                for i in 0..x.tasks {
                    ts.push((c as u16, i));
                }
            }
        }
        (cs, ts)
    }

    fn base_assign(&self, leader: usize) -> Assign {
        let lw = &self.workers[leader];
        Assign {
            error: 0,
            leader: lw.member_id.clone(),
            leader_url: lw.url.clone(),
            offset: off(lw.read_upto),
            ..Assign::default()
        }
    }

    /// EagerAssignor: round-robin over members sorted by member id.
    fn assign_eager(&mut self, members: &[usize], leader: usize) -> BTreeMap<usize, Assign> {
        let mut ms = members.to_vec();
        ms.sort_by(|a, b| self.workers[*a].member_id.cmp(&self.workers[*b].member_id));
        let base = self.base_assign(leader);
        let mut out: BTreeMap<usize, Assign> = ms.iter().map(|&m| (m, base.clone())).collect();
        let (cs, ts) = self.configured();
        let mut k = 0usize;
        for c in cs {
            let m = ms[k % ms.len()];
            k += 1;
            if let Some(a) = out.get_mut(&m) {
                a.conns.push(c);
            }
            for &(tc, ti) in ts.iter().filter(|(tc, _)| *tc == c) {
                let m = ms[k % ms.len()];
                k += 1;
                if let Some(a) = out.get_mut(&m) {
                    a.tasks.push((tc, ti));
                }
            }
        }
        out
    }

    /// IncrementalCooperativeAssignor, in its essentials.
    fn assign_cooperative(&mut self, members: &[usize], leader: usize) -> BTreeMap<usize, Assign> {
        let (cs, ts) = self.configured();
        let configured: BTreeSet<Res> = cs
            .iter()
            .map(|&c| Res::Conn(c))
            .chain(ts.iter().map(|&(c, i)| Res::Task(c, i)))
            .collect();
        let owned: BTreeMap<usize, BTreeSet<Res>> = members
            .iter()
            .map(|&m| (m, self.workers[m].assigned.clone()))
            .collect();
        let mut revoke: BTreeMap<usize, BTreeSet<Res>> =
            members.iter().map(|&m| (m, BTreeSet::new())).collect();
        // Deleted work, and work two members report (revoke from both).
        let mut count: BTreeMap<Res, usize> = BTreeMap::new();
        for set in owned.values() {
            for r in set {
                *count.entry(*r).or_default() += 1;
            }
        }
        for (&m, set) in &owned {
            for r in set {
                if !configured.contains(r) || count.get(r).copied().unwrap_or(0) > 1 {
                    revoke.entry(m).or_default().insert(*r);
                }
            }
        }
        let mut kept: BTreeMap<usize, BTreeSet<Res>> = owned
            .iter()
            .map(|(&m, set)| (m, set.difference(&revoke[&m]).copied().collect()))
            .collect();
        let all_owned: BTreeSet<Res> = owned.values().flatten().copied().collect();
        let all_kept: BTreeSet<Res> = kept.values().flatten().copied().collect();
        // Lost work (members gone): held back for the scheduled delay.
        let mut delay = 0i64;
        if let Some((l, mem)) = &self.group.memory
            && *l == leader
        {
            // Work of members that left (or rejoined as new members).
            let present: BTreeSet<&str> = members
                .iter()
                .map(|&m| self.workers[m].member_id.as_str())
                .collect();
            let lost: BTreeSet<Res> = mem
                .iter()
                .filter(|(id, _)| !present.contains(id.as_str()))
                .flat_map(|(_, set)| set.iter())
                .chain(self.group.held_lost.iter())
                .filter(|r| configured.contains(r) && !all_owned.contains(r))
                .copied()
                .collect();
            if lost.is_empty() {
                self.group.deadline = None;
                self.group.held_lost.clear();
            } else if self.p.delay_ms <= 0 {
                self.group.held_lost.clear();
                self.group.deadline = None;
            } else {
                match self.group.deadline {
                    None => {
                        self.group.deadline = Some(self.lnow + self.p.delay_ms);
                        delay = self.p.delay_ms;
                        self.group.held_lost = lost;
                    }
                    Some(d) if self.lnow >= d => {
                        self.group.held_lost.clear();
                        self.group.deadline = None;
                    }
                    Some(d) => {
                        delay = d - self.lnow;
                        self.group.held_lost = lost;
                    }
                }
            }
        } else {
            self.group.held_lost.clear();
            self.group.deadline = None;
        }
        let revoked_now: BTreeSet<Res> = revoke.values().flatten().copied().collect();
        let unassigned: BTreeSet<Res> = configured
            .iter()
            .filter(|r| {
                !all_kept.contains(r)
                    && !self.group.held_lost.contains(r)
                    && !revoked_now.contains(r)
            })
            .copied()
            .collect();
        // restart-moved-task: move a task its owner is about to restart.
        if self.fault.ready(FaultKind::RestartMovedTask)
            && self.fault.moved.is_none()
            && members.len() > 1
        {
            let mut cands: Vec<(usize, Res)> = Vec::new();
            for &m in members {
                for r in &self.workers[m].to_restart {
                    if kept[&m].contains(r) && configured.contains(r) {
                        cands.push((m, *r));
                    }
                }
            }
            if let Some(&(m, r)) = self.rng.pick(&cands) {
                revoke.entry(m).or_default().insert(r);
                if let Some(k) = kept.get_mut(&m) {
                    k.remove(&r);
                }
                self.fault.moved = Some((m, r));
            }
        }
        // Balance: revoke from members above their share (never in two
        // consecutive rounds, nor while lost work is held).
        let mut balance_revoked = false;
        if self.group.held_lost.is_empty() && !self.group.prev_balance_revoked && members.len() > 1
        {
            for tasks in [false, true] {
                let total = kept
                    .values()
                    .flatten()
                    .chain(unassigned.iter())
                    .filter(|r| r.is_task() == tasks)
                    .count();
                let n = members.len();
                let floor = total / n;
                let ceil = floor + usize::from(total % n != 0);
                let load = |k: &BTreeMap<usize, BTreeSet<Res>>, m: usize| {
                    k[&m].iter().filter(|r| r.is_task() == tasks).count()
                };
                let mut loads: BTreeMap<usize, usize> =
                    members.iter().map(|&m| (m, load(&kept, m))).collect();
                // Project the unassigned work onto the least loaded.
                let mut proj = loads.clone();
                for _ in unassigned.iter().filter(|r| r.is_task() == tasks) {
                    if let Some((&m, _)) = proj.iter().min_by_key(|(m, l)| (**l, **m)) {
                        *proj.entry(m).or_default() += 1;
                    }
                }
                let mut to_take: BTreeMap<usize, usize> = BTreeMap::new();
                for &m in members {
                    if proj[&m] > ceil && loads[&m] > 0 {
                        let k = (proj[&m] - ceil).min(loads[&m]);
                        to_take.insert(m, k);
                        *proj.entry(m).or_default() -= k;
                    }
                }
                let mut deficit: usize =
                    members.iter().map(|m| floor.saturating_sub(proj[m])).sum();
                let freed: usize = to_take.values().sum();
                deficit = deficit.saturating_sub(freed);
                while deficit > 0 {
                    let donor = members
                        .iter()
                        .copied()
                        .filter(|m| {
                            proj[m] > floor && loads[m] > to_take.get(m).copied().unwrap_or(0)
                        })
                        .max_by_key(|m| (proj[m], usize::MAX - *m));
                    let Some(d) = donor else { break };
                    *to_take.entry(d).or_default() += 1;
                    *proj.entry(d).or_default() -= 1;
                    deficit -= 1;
                }
                for (m, k) in to_take {
                    let mut items: Vec<Res> = kept[&m]
                        .iter()
                        .copied()
                        .filter(|r| r.is_task() == tasks)
                        .collect();
                    self.rng.shuffle(&mut items);
                    for r in items.into_iter().take(k) {
                        revoke.entry(m).or_default().insert(r);
                        if let Some(x) = kept.get_mut(&m) {
                            x.remove(&r);
                        }
                        if let Some(l) = loads.get_mut(&m) {
                            *l -= 1;
                        }
                        balance_revoked = true;
                    }
                }
            }
        }
        self.group.prev_balance_revoked = balance_revoked;
        // Assign the unassigned work to the least loaded members.
        let mut new: BTreeMap<usize, Vec<Res>> = members.iter().map(|&m| (m, Vec::new())).collect();
        for tasks in [false, true] {
            for r in unassigned.iter().filter(|r| r.is_task() == tasks) {
                let load = |m: usize| {
                    kept[&m].iter().filter(|x| x.is_task() == tasks).count()
                        + new[&m].iter().filter(|x| x.is_task() == tasks).count()
                };
                let banned = match self.fault.moved {
                    Some((bw, br)) if br == *r => Some(bw),
                    _ => None,
                };
                let target = members
                    .iter()
                    .copied()
                    .filter(|&m| Some(m) != banned || members.len() == 1)
                    .min_by_key(|&m| (load(m), self.workers[m].join_seq));
                if let Some(m) = target
                    && let Some(v) = new.get_mut(&m)
                {
                    v.push(*r);
                }
            }
        }
        let base = self.base_assign(leader);
        let mut out = BTreeMap::new();
        let mut memory = BTreeMap::new();
        for &m in members {
            let mut a = base.clone();
            a.delay = delay;
            for r in new[&m].iter().chain(kept[&m].iter()) {
                match *r {
                    Res::Conn(c) => a.conns.push(c),
                    Res::Task(c, i) => a.tasks.push((c, i)),
                }
            }
            for r in &revoke[&m] {
                match *r {
                    Res::Conn(c) => a.rconns.push(c),
                    Res::Task(c, i) => a.rtasks.push((c, i)),
                }
            }
            memory.insert(
                self.workers[m].member_id.clone(),
                a.resources().into_iter().collect::<BTreeSet<Res>>(),
            );
            out.insert(m, a);
        }
        self.group.memory = Some((leader, memory));
        out
    }

    /// After the join: coordinator lines, cooperative revocation stops, the
    /// assignment line, the offset checks and the start of work.
    fn complete(&mut self, w: usize, g: i32, a: Assign) {
        let proto = self.proto;
        let gen_obj = self.v.generation_object();
        let member = self.workers[w].member_id.clone();
        self.emit(w, Lvl::Info, M::None, Lg::Coord, Site::Joined, |l, _| {
            l.s("Successfully joined group with generation ");
            if gen_obj {
                l.s("Generation{generationId=");
                l.num(i64::from(g));
                l.s(", memberId='");
                l.s(&member);
                l.s("', protocol='");
                l.s(proto.generation_name());
                l.s("'}");
            } else {
                l.num(i64::from(g));
            }
        });
        if self.v.synced_line() {
            self.emit(w, Lvl::Info, M::None, Lg::Coord, Site::Synced, |l, _| {
                l.s("Successfully synced group in generation Generation{generationId=");
                l.num(i64::from(g));
                l.s(", memberId='");
                l.s(&member);
                l.s("', protocol='");
                l.s(proto.generation_name());
                l.s("'}");
            });
        }
        let revoked = a.revoked();
        let skipped = if proto.cooperative() {
            self.cooperative_revoke(w, &a, &revoked)
        } else {
            None
        };
        // The assignment line.
        let v0 = self.v.v0_assignment();
        let with_version = self.v.joined_with_version();
        let pv = proto.version();
        let line = self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::Assignment,
            |l, names| {
                if v0 {
                    l.s("Joined group and got assignment: ");
                    put_assign(l, names, &a, true);
                } else if with_version {
                    l.s("Joined group at generation ");
                    l.num(i64::from(g));
                    l.s(" with protocol version ");
                    l.num(pv);
                    l.s(" and got assignment: ");
                    put_assign(l, names, &a, false);
                    l.s(" with rebalance delay: ");
                    l.num(a.delay);
                } else {
                    l.s("Joined group at generation ");
                    l.num(i64::from(g));
                    l.s(" and got assignment: ");
                    put_assign(l, names, &a, false);
                }
            },
        );
        {
            let wk = &mut self.workers[w];
            wk.in_window = false;
            wk.cur_gen = g;
            wk.assigned = a.resources().into_iter().collect();
            wk.owned = Some(wk.assigned.clone());
            wk.had_assignment = true;
            wk.last_received = Some(a.clone());
        }
        if let Some(r) = skipped {
            let detail = format!("the revoked {} is not stopped", self.res_name(r));
            self.fired(w, line, Some(r), detail);
        }
        // Oracle: revoked work still running, with no stop in this rebalance.
        if proto.cooperative() {
            for r in &revoked {
                let wk = &self.workers[w];
                let zombie = wk.running.get(r).is_some_and(|i| !i.zombie_reported)
                    && !wk.window_attempts.contains(r);
                if zombie {
                    if let Some(i) = self.workers[w].running.get_mut(r) {
                        i.zombie_reported = true;
                    }
                    self.expect(
                        w,
                        line,
                        "zombie",
                        Some(*r),
                        Scope::Worker,
                        "revoked but never stopped".into(),
                    );
                }
            }
        }
        self.cross_on_assignment(w, line);
        if a.delay > 0 {
            let at = self.lnow + a.delay;
            self.schedule(at, Timer::Scheduled);
        }
        // handleRebalanceCompleted: the config offset must match.
        let snap = self.workers[w].snapshot;
        let skip_checks = self.fault.ready(FaultKind::OffsetMismatchStart)
            && snap != a.offset
            && self.workers[w].known.is_some_and(|k| k != a.offset);
        if !skip_checks {
            if snap < a.offset {
                self.dh(
                    w,
                    Lvl::Warn,
                    Site::CatchingUp,
                    "Catching up to assignment's config offset.",
                );
                self.read_to_end(w, a.offset);
            }
            let snap = self.workers[w].snapshot;
            if snap != a.offset {
                let ao = a.offset;
                self.emit(w, Lvl::Info, M::None, Lg::Herder, Site::Mismatch, |l, _| {
                    l.s("Current config state offset ");
                    l.num(snap);
                    l.s(" does not match group assignment ");
                    l.num(ao);
                    l.s(". Forcing rebalance.");
                });
                let wk = &mut self.workers[w];
                wk.known = Some(snap);
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
            // PAUSED: the rules excuse stops under a STOPPED target.
            let started = |r: &Res| {
                self.conns
                    .get(usize::from(r.conn()))
                    .is_some_and(|x| x.target == super::cluster::Target::Started)
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
            let line = self.workers[w].log.next_line();
            let detail = format!("the retained {} is stopped in onRevoked", self.res_name(r));
            self.fired(w, line, Some(r), detail);
            self.stop(w, r, Why::Spurious);
            self.workers[w].running_assignment.remove(&r);
        }
        self.finished_stopping(w);
        let wk = &mut self.workers[w];
        for r in revoked {
            wk.running_assignment.remove(r);
        }
        skip
    }

    /// readConfigToEnd after `Catching up…`.
    fn read_to_end(&mut self, w: usize, assignment: i64) {
        let snap = self.workers[w].snapshot;
        self.emit(w, Lvl::Info, M::None, Lg::Herder, Site::Behind, |l, _| {
            l.s("Current config state offset ");
            l.num(snap);
            l.s(" is behind group assignment ");
            l.num(assignment);
            l.s(", reading to end of config log");
        });
        self.workers[w].known = Some(snap);
        self.read_all(w);
        let z = off(self.workers[w].read_upto);
        self.workers[w].snapshot = z;
        self.emit(w, Lvl::Info, M::None, Lg::Herder, Site::FinishedReading, |l, _| {
            l.s("Finished reading to end of log and updated config snapshot, new config log offset: ");
            l.num(z);
        });
        self.workers[w].known = Some(z);
    }

    /// startWork: assignment − running; reconfigured tasks only if still assigned.
    fn start_work(&mut self, w: usize, a: &Assign, offset_fault: bool) {
        let o = a.offset;
        let line = self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::StartingWork,
            |l, _| {
                l.s("Starting connectors and tasks using config offset ");
                l.num(o);
            },
        );
        if offset_fault {
            let known = self.workers[w].known.unwrap_or(-1);
            self.fired(
                w,
                line,
                None,
                format!("work started at offset {o} while the config snapshot is at {known}"),
            );
        }
        // Oracle (mirrors docs/rules.md, `offset-mismatch-start`): a known
        // snapshot that differs.
        if let Some(k) = self.workers[w].known
            && k != o
        {
            self.expect(
                w,
                line,
                "offset-mismatch-start",
                None,
                Scope::Worker,
                format!("started with config offset {o} while the log shows the snapshot at {k}"),
            );
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
            let line = self.start(w, r, Why::StartPhase);
            started.insert(r);
            if let Some(i) = faulty.iter().position(|(x, _)| *x == r) {
                let (_, d) = faulty.remove(i);
                self.fired(w, line, Some(r), d);
            }
        }
        let fin = self.dh(
            w,
            Lvl::Info,
            Site::FinishedStarting,
            "Finished starting connectors and tasks",
        );
        if let Some(r) = skipped {
            let d = format!("the assigned {} is not started", self.res_name(r));
            self.fired(w, fin, Some(r), d);
        }
        // Oracle: assigned, not revoked, not running, not started.
        for r in a.resources() {
            let wk = &self.workers[w];
            if started.contains(&r) || wk.running.contains_key(&r) || wk.lost_reported.contains(&r)
            {
                continue;
            }
            self.workers[w].lost_reported.insert(r);
            self.expect(
                w,
                fin,
                "lost-assignment",
                Some(r),
                Scope::Worker,
                "assigned, not running, and not started by the rebalance".into(),
            );
        }
        let wk = &mut self.workers[w];
        wk.lost_reported.retain(|r| a.holds(*r));
        wk.running_assignment = if eager {
            BTreeSet::new()
        } else {
            a.resources().into_iter().collect()
        };
        wk.resolved = true;
    }
}

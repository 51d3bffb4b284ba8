//! The scenario: cluster start-up, the initial connectors, random events
//! (users, connectors and workers), the fault's arming and, when no
//! opportunity for it came up, events that create one.

use super::{Cluster, Connector, Rec, Status, Target, Why};
use crate::sim::data::{Proto, Res};
use crate::sim::truth::FaultKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ev {
    Create,
    Reconfigure(u16),
    Delete(u16),
    Pause(u16),
    Resume(u16),
    Stop(u16),
    TaskCount(u16),
    RestartConnector(u16),
    RestartTask(u16, u16),
    /// KIP-745: restart the connector and its tasks.
    RestartAll(u16),
    Leave(usize),
    Crash(usize),
    Start(usize),
    /// A rolling restart of one worker: graceful stop, then start.
    Bounce(usize),
    SlowLeave(usize),
    /// The worker's herder stalls past its poll timeout (fault
    /// poll-timeout-leave).
    PollTimeout(usize),
    /// A deleted connector is created again under the same name.
    Recreate(u16),
    KeyRotation,
    Idle,
}

impl Cluster {
    pub fn run(&mut self) {
        let n = self.workers.len();
        for w in 0..n {
            let gap = if w == 0 {
                0
            } else {
                self.rng.range(2_000, 20_000)
            };
            self.advance_to(self.lnow + gap);
            self.start_worker(w);
            self.settle();
        }
        for _ in 0..self.p.connectors {
            let gap = self.rng.log_range(3_000, 60_000);
            self.advance_to(self.lnow + gap);
            self.apply(Ev::Create);
            self.settle();
        }
        for k in 0..self.p.events {
            self.event_index = k;
            if self.fault.kind.is_some() && k >= self.fault.at {
                self.fault.armed = true;
            }
            let gap = self.rng.log_range(2_000, 600_000);
            self.advance_to(self.lnow + gap);
            let ev = self.pick_event();
            self.apply(ev);
            self.settle();
        }
        if self.fault.kind.is_some() {
            self.fault.armed = true;
        }
        let mut k = self.p.events;
        while self.fault.kind.is_some() && self.fault.info.is_none() && k < self.p.events + 60 {
            self.event_index = k;
            let gap = self.rng.log_range(2_000, 60_000);
            self.advance_to(self.lnow + gap);
            let ev = self.forcing_event();
            self.apply(ev);
            self.settle();
            k += 1;
        }
        // Let pending timers (held-back work, returning workers) play out.
        for _ in 0..4 {
            let until = self.lnow + self.p.delay_ms + 180_000;
            self.advance_to(until);
        }
        self.settle();
    }

    fn running_conns(&self) -> Vec<(usize, u16)> {
        let mut v = Vec::new();
        for (w, wk) in self.workers.iter().enumerate() {
            if wk.status != Status::Live {
                continue;
            }
            for r in wk.running.keys() {
                if let Res::Conn(c) = r {
                    v.push((w, *c));
                }
            }
        }
        v
    }

    fn running_tasks(&self) -> Vec<(usize, u16, u16)> {
        let mut v = Vec::new();
        for (w, wk) in self.workers.iter().enumerate() {
            if wk.status != Status::Live {
                continue;
            }
            for r in wk.running.keys() {
                if let Res::Task(c, i) = r
                    && wk.assigned.contains(r)
                {
                    v.push((w, *c, *i));
                }
            }
        }
        v
    }

    /// Assigned resources of live workers whose start failed.
    fn failed_resources(&self) -> Vec<Res> {
        self.workers
            .iter()
            .filter(|wk| wk.status == Status::Live)
            .flat_map(|wk| wk.failed.iter().filter(|r| wk.assigned.contains(r)))
            .copied()
            .collect()
    }

    fn existing(&self, pred: impl Fn(&Connector) -> bool) -> Vec<u16> {
        (0..self.conns.len())
            .filter(|&c| self.conns[c].exists && pred(&self.conns[c]))
            .map(|c| c as u16)
            .collect()
    }

    /// A live worker running tasks that another live worker can take
    /// over (poll-timeout-leave).
    fn stall_candidate(&mut self) -> Option<usize> {
        let live = self.live();
        if live.len() < 2 {
            return None;
        }
        let cands: Vec<usize> = live
            .into_iter()
            .filter(|&w| self.workers[w].running.keys().any(|r| r.is_task()))
            .collect();
        self.rng.pick(&cands).copied()
    }

    /// Deleted connectors whose deleted incarnation had tasks and whose
    /// removal every live worker's log shows (so that a stale start is
    /// provable from any log).
    fn deleted_with_tasks(&self) -> Vec<u16> {
        (0..self.conns.len() as u16)
            .filter(|&c| {
                let x = &self.conns[usize::from(c)];
                !x.exists && x.tasks > 0 && self.removal_shown(c)
            })
            .collect()
    }

    fn removal_shown(&self, c: u16) -> bool {
        let live = self.live();
        !live.is_empty() && live.iter().all(|&w| self.oracle.shows_removal(w, c))
    }

    fn pick_event(&mut self) -> Ev {
        if self.fault.ready(FaultKind::PollTimeoutLeave)
            && let Some(w) = self.stall_candidate()
        {
            return Ev::PollTimeout(w);
        }
        let started = self.existing(|x| x.target == Target::Started);
        let paused = self.existing(|x| x.target != Target::Started);
        let all = self.existing(|_| true);
        let rconns: Vec<(usize, u16)> = self
            .running_conns()
            .into_iter()
            .filter(|(_, c)| {
                let x = &self.conns[usize::from(*c)];
                x.exists && x.target == Target::Started && !x.stale
            })
            .collect();
        let rtasks = self.running_tasks();
        let live = self.live();
        let offline: Vec<usize> = (0..self.workers.len())
            .filter(|&w| self.workers[w].status == Status::Offline)
            .collect();
        let cap = self.p.connectors * 2 + 2;
        let coop = self.proto.cooperative();
        let mut table: Vec<(u32, Ev)> = Vec::new();
        table.push((if all.len() < cap { 8 } else { 1 }, Ev::Create));
        if let Some(&c) = self.rng.pick(&started) {
            table.push((14, Ev::Reconfigure(c)));
            table.push((5, Ev::Pause(c)));
            if self.v.stop_connector() {
                table.push((3, Ev::Stop(c)));
            }
        }
        if all.len() > 1
            && let Some(&c) = self.rng.pick(&all)
        {
            table.push((4, Ev::Delete(c)));
        }
        if let Some(&c) = self.rng.pick(&paused) {
            table.push((6, Ev::Resume(c)));
        }
        let deleted: Vec<u16> = (0..self.conns.len() as u16)
            .filter(|&c| !self.conns[usize::from(c)].exists)
            .collect();
        if let Some(&c) = self.rng.pick(&deleted) {
            table.push((3, Ev::Recreate(c)));
        }
        if let Some(&(_, c)) = self.rng.pick(&rconns) {
            table.push((10, Ev::TaskCount(c)));
            table.push((5, Ev::RestartConnector(c)));
            if self.v.kip745() {
                table.push((4, Ev::RestartAll(c)));
            }
        }
        if let Some(&(_, c, i)) = self.rng.pick(&rtasks) {
            table.push((7, Ev::RestartTask(c, i)));
        }
        // What failed to start: what an operator restarts.
        let failed = self.failed_resources();
        if let Some(&r) = self.rng.pick(&failed) {
            table.push((
                8,
                match r {
                    Res::Conn(c) => Ev::RestartConnector(c),
                    Res::Task(c, i) => Ev::RestartTask(c, i),
                },
            ));
            if self.v.kip745() {
                table.push((4, Ev::RestartAll(r.conn())));
            }
        }
        if live.len() > 1 {
            let w = live[self.rng.index(live.len())];
            table.push((4, Ev::Leave(w)));
            table.push((4, Ev::Crash(w)));
            if coop && self.v.self_revocation() {
                table.push((3, Ev::SlowLeave(w)));
            }
        }
        if let Some(&w) = self.rng.pick(&offline) {
            table.push((10, Ev::Start(w)));
        }
        if let Some(&w) = self.rng.pick(&live) {
            table.push((2, Ev::Bounce(w)));
        }
        if self.proto == Proto::Sessioned {
            table.push((2, Ev::KeyRotation));
        }
        table.push((3, Ev::Idle));
        let total: u32 = table.iter().map(|(w, _)| w).sum();
        let mut x = self.rng.below(u64::from(total)) as u32;
        for (wt, ev) in table {
            if x < wt {
                return ev;
            }
            x -= wt;
        }
        Ev::Idle
    }

    /// An event that gives the armed fault an opportunity.
    fn forcing_event(&mut self) -> Ev {
        let Some(kind) = self.fault.kind else {
            return Ev::Idle;
        };
        let live = self.live();
        let offline: Vec<usize> = (0..self.workers.len())
            .filter(|&w| self.workers[w].status == Status::Offline)
            .collect();
        let with_tasks: Vec<u16> = self
            .running_tasks()
            .iter()
            .map(|&(_, c, _)| c)
            .filter(|&c| {
                let x = &self.conns[usize::from(c)];
                x.exists && x.target == Target::Started && !x.stale
            })
            .collect();
        let distinct: std::collections::BTreeSet<u16> = with_tasks.iter().copied().collect();
        let grow_or_join = |cl: &mut Cluster| -> Ev {
            if let Some(&w) = cl.rng.pick(&offline) {
                Ev::Start(w)
            } else if let Some(&w) = cl.rng.pick(&live) {
                Ev::Bounce(w)
            } else {
                Ev::Create
            }
        };
        match kind {
            FaultKind::Kafka8676 => {
                if distinct.len() < 2 {
                    Ev::Create
                } else {
                    let c = with_tasks[self.rng.index(with_tasks.len())];
                    Ev::Reconfigure(c)
                }
            }
            FaultKind::RestartMovedTask => {
                if live.len() < 2 {
                    grow_or_join(self)
                } else if let Some(&c) = self.rng.pick(&with_tasks) {
                    Ev::Reconfigure(c)
                } else {
                    Ev::Create
                }
            }
            FaultKind::OffsetMismatchStart => grow_or_join(self),
            FaultKind::SkipRevokedStop => {
                if self.rng.chance(0.5) && !offline.is_empty() {
                    grow_or_join(self)
                } else if let Some(&c) = self.rng.pick(&with_tasks) {
                    Ev::Delete(c)
                } else if offline.is_empty() {
                    // Nothing runs tasks (every connector stopped, say):
                    // bouncing workers revokes nothing; a new connector will.
                    Ev::Create
                } else {
                    grow_or_join(self)
                }
            }
            FaultKind::SkipStart => Ev::Create,
            FaultKind::DoubleStart => {
                if self.proto.cooperative() {
                    Ev::Create
                } else if let Some(&(_, c, i)) = self.rng.pick(&self.running_tasks()) {
                    Ev::RestartTask(c, i)
                } else {
                    Ev::Create
                }
            }
            FaultKind::SpuriousStop => {
                if with_tasks.is_empty() {
                    Ev::Create
                } else {
                    Ev::Reconfigure(with_tasks[0])
                }
            }
            FaultKind::PollTimeoutLeave => match self.stall_candidate() {
                Some(w) => Ev::PollTimeout(w),
                None if live.len() < 2 => grow_or_join(self),
                None => Ev::Create,
            },
            FaultKind::StaleConfigStart => {
                let deleted = self.deleted_with_tasks();
                if let Some(&c) = self.rng.pick(&deleted) {
                    Ev::Recreate(c)
                } else if let Some(&c) = self.rng.pick(&with_tasks) {
                    Ev::Delete(c)
                } else {
                    Ev::Create
                }
            }
        }
    }

    /// The live worker that runs `r` (or whose start of it failed).
    fn owner_of(&self, r: Res) -> Option<usize> {
        (0..self.workers.len()).find(|&w| {
            let wk = &self.workers[w];
            wk.status == Status::Live
                && (wk.running.contains_key(&r) || wk.failed.contains(&r))
                && wk.assigned.contains(&r)
        })
    }

    pub(super) fn apply(&mut self, ev: Ev) {
        match ev {
            Ev::RestartConnector(_) | Ev::RestartTask(..) => self.rest_restart(ev),
            Ev::Leave(_)
            | Ev::Crash(_)
            | Ev::Start(_)
            | Ev::Bounce(_)
            | Ev::SlowLeave(_)
            | Ev::PollTimeout(_) => self.worker_event(ev),
            Ev::Idle => self.count_event("idle"),
            _ => self.config_event(ev),
        }
    }

    /// A user's (or a connector's) change of the config: a record.
    fn config_event(&mut self, ev: Ev) {
        let max = self.p.max_tasks.max(1);
        match ev {
            Ev::Create => {
                let t = self.rng.range(1, i64::from(max)) as u16;
                let c = self.new_connector(t);
                self.count_event("create");
                self.append(Rec::ConnConfig(c));
            }
            Ev::Reconfigure(c) => {
                self.count_event("reconfigure");
                let n = if self.rng.chance(0.3) {
                    self.rng.range(1, i64::from(max)) as u16
                } else {
                    self.conns[usize::from(c)].tasks.max(1)
                };
                let x = &mut self.conns[usize::from(c)];
                x.stale = true;
                x.reconfigured = true;
                x.next_tasks = n;
                self.append(Rec::ConnConfig(c));
            }
            Ev::Delete(c) => {
                self.count_event("delete");
                self.conns[usize::from(c)].exists = false;
                self.pending_gen.retain(|&x| x != c);
                self.append(Rec::Tombstone(c));
            }
            Ev::Pause(c) => {
                self.count_event("pause");
                self.conns[usize::from(c)].target = Target::Paused;
                self.append(Rec::Target(c, Target::Paused));
            }
            Ev::Resume(c) => {
                self.count_event("resume");
                let n = self.rng.range(1, i64::from(max)) as u16;
                let x = &mut self.conns[usize::from(c)];
                if x.target == Target::Stopped {
                    x.stale = true;
                    x.next_tasks = n;
                }
                x.target = Target::Started;
                self.append(Rec::Target(c, Target::Started));
            }
            Ev::Stop(c) => {
                self.count_event("stop");
                self.commit_tasks(c, 0, false);
                self.conns[usize::from(c)].target = Target::Stopped;
                self.append(Rec::Target(c, Target::Stopped));
            }
            Ev::TaskCount(c) => {
                self.count_event("task-count-change");
                let cur = self.conns[usize::from(c)].tasks;
                let mut n = self.rng.range(1, i64::from(max)) as u16;
                if n == cur {
                    n = if cur > 1 { cur - 1 } else { cur + 1 };
                }
                self.commit_tasks(c, n, false);
            }
            Ev::RestartAll(c) => {
                self.count_event("restart-connector-and-tasks");
                self.append(Rec::Restart(c));
            }
            Ev::Recreate(c) => self.recreate(c),
            Ev::KeyRotation if self.group.leader.is_some() => {
                self.count_event("session-key");
                self.group.key_at = Some(self.lnow);
                self.append(Rec::SessionKey);
            }
            _ => {}
        }
    }

    /// A plain REST restart of a connector or a task, on its owner.
    fn rest_restart(&mut self, ev: Ev) {
        match ev {
            Ev::RestartConnector(c) => {
                self.count_event("restart-connector");
                if let Some(w) = self.owner_of(Res::Conn(c)) {
                    self.stop(w, Res::Conn(c), Why::Restart);
                    self.start(w, Res::Conn(c), Why::Restart);
                }
            }
            Ev::RestartTask(c, i) => {
                self.count_event("restart-task");
                let r = Res::Task(c, i);
                if let Some(w) = self.owner_of(r) {
                    let fault = self.fault.ready(FaultKind::DoubleStart)
                        && self.workers[w].running.contains_key(&r);
                    if !fault {
                        self.stop(w, r, Why::Restart);
                    }
                    let line = self.start(w, r, Why::Restart).line;
                    if fault {
                        let d = format!(
                            "a REST restart of {} starts it without stopping it",
                            self.res_name(r)
                        );
                        self.fired(w, line, Some(r), d);
                    }
                }
            }
            _ => {}
        }
    }

    /// A worker process's event.
    fn worker_event(&mut self, ev: Ev) {
        let alone = self.live().len() <= 1;
        let live = |cl: &Cluster, w: usize| cl.workers[w].status == Status::Live;
        match ev {
            Ev::Leave(w) if !alone && live(self, w) => self.shutdown_worker(w),
            Ev::Crash(w) if !alone && live(self, w) => self.crash_worker(w),
            Ev::Start(w) if self.workers[w].status == Status::Offline => self.start_worker(w),
            Ev::Bounce(w) if live(self, w) => {
                self.count_event("rolling-restart");
                self.shutdown_worker(w);
                self.settle();
                let back = self.lnow + self.rng.range(5_000, 40_000);
                self.advance_to(back);
                if self.workers[w].status == Status::Offline {
                    self.start_worker(w);
                }
            }
            Ev::SlowLeave(w) if !alone && live(self, w) => self.partition_worker(w),
            Ev::PollTimeout(w) if !alone && live(self, w) => self.poll_timeout_leave(w),
            _ => {}
        }
    }

    /// A deleted connector is created again under the same name. Up to
    /// 2.5.0 the config snapshot keeps the deleted incarnation's task count
    /// and task configs (KAFKA-8869): with the fault armed, the leader
    /// assigns those tasks at once and workers start them from the old
    /// configs, before the new connector has written any; from 2.5.1 the
    /// deletion dropped them, and the tasks wait for the new configs.
    fn recreate(&mut self, c: u16) {
        let Some(old) = self
            .conns
            .get(usize::from(c))
            .filter(|x| !x.exists)
            .map(|x| x.tasks)
        else {
            return;
        };
        self.count_event("recreate");
        let stale =
            self.fault.ready(FaultKind::StaleConfigStart) && old > 0 && self.removal_shown(c);
        let n = self.rng.range(1, i64::from(self.p.max_tasks.max(1))) as u16;
        let created_at = self.log.len();
        let x = &mut self.conns[usize::from(c)];
        x.exists = true;
        x.target = Target::Started;
        x.stale = true;
        x.reconfigured = false;
        x.next_tasks = n;
        x.created_at = created_at;
        if !stale {
            x.tasks = 0;
        }
        if stale {
            let leader = self.group.leader.unwrap_or(0);
            let line = self.em.next_line(leader);
            let detail = format!(
                "{} is created again; the snapshot keeps the deleted incarnation's {old} task config(s)",
                self.cname(c)
            );
            self.fired(leader, line, Some(Res::Conn(c)), detail);
            if let Some(info) = &mut self.fault.info {
                info.worker = None;
                info.file = None;
                info.line = None;
                info.worker_index = None;
            }
        }
        self.append(Rec::ConnConfig(c));
    }
}

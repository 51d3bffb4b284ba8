//! The config topic: records appended by users and the leader, read by each
//! worker (with lag), the herder's listener queues and its tick that
//! handles them (connector and task-config updates, target states, KIP-745
//! restart plans), and the leader's task-config writes.

use super::{Cluster, Rec, Status, Target, Why, off};
use crate::sim::data::Res;
use crate::sim::truth::FaultKind;
use std::collections::{BTreeMap, BTreeSet};

impl Cluster {
    pub fn append(&mut self, r: Rec) {
        self.log.push(r);
    }

    /// Every live worker reads the records it has not read yet; a worker
    /// other than the leader may lag once (it then reads them during its
    /// next catch-up or in the next pass). A stalled herder's config log
    /// still reads (its listener logs), it handles nothing.
    pub fn deliver_reads(&mut self) {
        let leader = self.group.leader;
        for w in 0..self.workers.len() {
            let reads = matches!(self.workers[w].status, Status::Live | Status::Stalled);
            if !reads || self.workers[w].read_upto >= self.log.len() {
                self.workers[w].lagged = false;
                continue;
            }
            if Some(w) != leader && !self.workers[w].lagged && self.rng.chance(self.p.lag) {
                self.workers[w].lagged = true;
                continue;
            }
            self.workers[w].lagged = false;
            self.read_all(w);
        }
    }

    /// Worker `w` reads to the end of the config topic, logging each record.
    pub fn read_all(&mut self, w: usize) {
        while self.workers[w].read_upto < self.log.len() {
            let k = self.workers[w].read_upto;
            self.workers[w].read_upto += 1;
            let rec = self.log[k].clone();
            self.on_record(w, &rec);
        }
    }

    /// Is connector `c` in worker `w`'s herder snapshot?
    fn in_snapshot(&self, w: usize, c: u16) -> bool {
        let n = self.workers[w].snapshot.max(0) as usize;
        self.conns
            .get(usize::from(c))
            .is_some_and(|x| x.created_at < n)
    }

    /// The herder's config listener: logs the record and queues its handling.
    fn on_record(&mut self, w: usize, rec: &Rec) {
        let proto = self.proto;
        let line = self.say(w).record(rec, proto);
        match rec {
            Rec::ConnConfig(c) => {
                let c = *c;
                self.oracle.connector_updated(w, c, line);
                if self.in_snapshot(w, c) {
                    self.workers[w].q_conn.push((c, line));
                } else {
                    // A new connector: a rebalance assigns it.
                    self.workers[w].needs_reconfig = true;
                }
            }
            Rec::Tombstone(c) => {
                let c = *c;
                self.oracle.connector_removed(w, c);
                if self.in_snapshot(w, c) {
                    self.workers[w].needs_reconfig = true;
                    self.workers[w].q_removed.push(c);
                }
            }
            Rec::TaskConfig => {}
            Rec::Commit(listed) => {
                self.oracle.tasks_updated(w, listed, line);
                let mut by_conn: BTreeMap<u16, u64> = BTreeMap::new();
                for &(c, _) in listed {
                    by_conn.insert(c, line);
                }
                let wk = &mut self.workers[w];
                wk.needs_reconfig = true;
                wk.q_tasks.extend(by_conn);
            }
            Rec::Target(c, t) => {
                self.oracle.target_changed(w, *c, line);
                self.workers[w].q_target.push((*c, *t));
            }
            Rec::Restart(c) => {
                // A config-topic record without a listener line the
                // auditor reads (docs/log-formats.md).
                self.oracle.record_read(w);
                self.workers[w].q_restart.push(*c);
            }
            Rec::SessionKey => {
                if self.proto == crate::sim::data::Proto::Sessioned {
                    // A config-topic record like any other: the herder's next
                    // snapshot includes it, so the log no longer pins the
                    // offset down.
                    self.oracle.record_read(w);
                }
            }
        }
    }

    /// The herder's tick: handles the config updates its listener queued.
    pub fn tick(&mut self, w: usize) {
        // A resumed herder first makes sure of its membership (rejoins).
        if self.workers[w].resuming {
            return;
        }
        if self.workers[w].status == Status::Live && !self.workers[w].q_restart.is_empty() {
            let q = std::mem::take(&mut self.workers[w].q_restart);
            for c in q {
                self.restart_plan(w, c);
            }
        }
        let wk = &self.workers[w];
        if wk.status != Status::Live
            || (wk.q_conn.is_empty()
                && wk.q_removed.is_empty()
                && wk.q_tasks.is_empty()
                && wk.q_target.is_empty()
                && !wk.needs_reconfig)
        {
            return;
        }
        let snap = off(self.workers[w].read_upto);
        self.workers[w].snapshot = snap;
        let q_conn = std::mem::take(&mut self.workers[w].q_conn);
        let q_removed = std::mem::take(&mut self.workers[w].q_removed);
        let q_tasks = std::mem::take(&mut self.workers[w].q_tasks);
        let q_target = std::mem::take(&mut self.workers[w].q_target);
        let reconfig = std::mem::take(&mut self.workers[w].needs_reconfig);
        if !self.proto.cooperative() {
            if reconfig {
                // Eager: rebalance; queued connector and target updates are dropped.
                self.workers[w].rejoin = true;
                return;
            }
            self.connector_updates(w, &q_conn);
            self.target_changes(w, &q_target);
            return;
        }
        if reconfig {
            self.workers[w].rejoin = true;
        }
        self.connector_updates(w, &q_conn);
        // (From 3.9 the rebalance the removal causes revokes it.)
        for c in q_removed {
            if self.v.removal_stops_in_tick() && self.workers[w].assigned.contains(&Res::Conn(c)) {
                self.say(w).handling_removal(c);
                self.stop(w, Res::Conn(c), Why::Removed);
            }
        }
        self.target_changes(w, &q_target);
        if !q_tasks.is_empty() {
            self.task_updates(w, &q_tasks);
        }
    }

    /// KIP-745: restart the connector and all its tasks, where assigned here.
    fn restart_plan(&mut self, w: usize, c: u16) {
        let Some(x) = self.conns.get(usize::from(c)).cloned() else {
            return;
        };
        if !x.exists {
            return;
        }
        self.say(w).restart_plan(c, x.tasks, false);
        let conn = Res::Conn(c);
        let restart_conn = self.workers[w].assigned.contains(&conn);
        let tasks: Vec<Res> = self.workers[w]
            .assigned
            .iter()
            .copied()
            .filter(|r| r.is_task() && r.conn() == c)
            .collect();
        if restart_conn {
            self.stop(w, conn, Why::Restart);
        }
        for &t in &tasks {
            self.stop(w, t, Why::Restart);
        }
        let conn_ok = restart_conn && self.start(w, conn, Why::RestartPlan).ok;
        // A connector's success is logged by its start callback (its failure
        // was logged as it happened): for a STARTED one, by the herder's
        // thread once the plan is done; otherwise by the connector's own
        // thread as it takes its paused or stopped state.
        let on_tick = x.target == Target::Started;
        if conn_ok && !on_tick {
            self.say(w).restart_successful(conn, false);
        }
        for &t in &tasks {
            let s = self.start(w, t, Why::RestartPlan);
            if s.ok {
                self.say(w).restart_successful(t, true);
            } else {
                self.say(w).restart_failed(t, s.thrown);
            }
        }
        self.say(w).restart_plan(c, x.tasks, true);
        if conn_ok && on_tick {
            self.say(w).restart_successful(conn, true);
        }
    }

    fn connector_updates(&mut self, w: usize, q: &[(u16, u64)]) {
        let mut done = BTreeSet::new();
        for &(c, line) in q {
            if !done.insert(c) {
                continue;
            }
            let r = Res::Conn(c);
            if !self.workers[w].assigned.contains(&r) {
                continue;
            }
            let exists = self.conns.get(usize::from(c)).is_some_and(|x| x.exists);
            if !exists {
                continue;
            }
            // Restart only an instance that has not seen this update (or
            // one that failed to start: the herder restarts what is assigned).
            let failed = self.workers[w].failed.contains(&r);
            let Some(start) = self.workers[w].running.get(&r).map(|i| i.start_line) else {
                if failed {
                    self.say(w).handling_connector_update(c);
                    self.stop(w, r, Why::ConnectorConfig);
                    self.start(w, r, Why::ConnectorConfig);
                }
                continue;
            };
            let latest = q
                .iter()
                .filter(|(x, _)| *x == c)
                .map(|(_, l)| *l)
                .max()
                .unwrap_or(line);
            if start > latest {
                continue;
            }
            self.say(w).handling_connector_update(c);
            self.stop(w, r, Why::ConnectorConfig);
            self.start(w, r, Why::ConnectorConfig);
        }
    }

    /// The herder hands every target change of a connector it knows to its
    /// Worker, which logs `Setting connector X state to S` whether or not it
    /// runs the connector (its tasks follow the state): every worker of the
    /// 2.3.1 to 4.4.0 `clean` captures logs each one. Only the connector's
    /// owner then has its task configs regenerated.
    fn target_changes(&mut self, w: usize, q: &[(u16, Target)]) {
        for &(c, t) in q {
            let Some(x) = self.conns.get(usize::from(c)) else {
                continue;
            };
            if !x.exists {
                continue;
            }
            let stale = x.stale;
            self.say(w).setting_state(c, t);
            if t == Target::Started && stale && self.workers[w].running.contains_key(&Res::Conn(c))
            {
                self.pending_gen.push(c);
            }
        }
    }

    /// Cooperative task-config handling: stop the local tasks of the
    /// connectors named, to be restarted after the rebalance if still assigned.
    fn task_updates(&mut self, w: usize, q: &[(u16, u64)]) {
        let mut claim: BTreeMap<u16, u64> = BTreeMap::new();
        for &(c, line) in q {
            let e = claim.entry(c).or_insert(line);
            *e = (*e).max(line);
        }
        let wk = &self.workers[w];
        let list: Vec<Res> = wk
            .assigned
            .iter()
            .copied()
            .filter(|r| match r {
                Res::Task(c, _) => claim
                    .get(c)
                    .is_some_and(|&cl| wk.running.get(r).is_none_or(|i| i.start_line < cl)),
                Res::Conn(_) => false,
            })
            .collect();
        if self.v.task_update_line() == crate::sim::version::TaskUpdateLine::None {
            return;
        }
        self.say(w).handling_task_update(&list);
        for r in list {
            self.stop(w, r, Why::TaskConfig);
            self.workers[w].to_restart.insert(r);
        }
    }

    /// The leader writes the task configs of connectors that (re)started
    /// with stale task configs.
    pub fn write_task_configs(&mut self) {
        let pending = std::mem::take(&mut self.pending_gen);
        let mut seen = BTreeSet::new();
        for c in pending {
            if !seen.insert(c) {
                continue;
            }
            let Some(x) = self.conns.get(usize::from(c)).cloned() else {
                continue;
            };
            if !x.exists || !x.stale || x.target == Target::Stopped {
                continue;
            }
            self.commit_tasks(c, x.next_tasks, x.reconfigured);
        }
    }

    /// Appends `n` task configs and the commit for connector `c`.
    pub fn commit_tasks(&mut self, c: u16, n: u16, reconfigured: bool) {
        for _ in 0..n {
            self.append(Rec::TaskConfig);
        }
        if let Some(x) = self.conns.get_mut(usize::from(c)) {
            x.tasks = n;
            x.stale = false;
            x.reconfigured = false;
        }
        let mut listed: Vec<(u16, u16)> = (0..n).map(|i| (c, i)).collect();
        let all = self.v.tasks_line_names_all();
        let fault =
            self.fault.ready(FaultKind::Kafka8676) && reconfigured && self.kafka8676_useful(c);
        if all || fault {
            listed = self.all_tasks();
        }
        self.rng.shuffle(&mut listed);
        if fault {
            let leader = self.group.leader.unwrap_or(0);
            let line = self.em.next_line(leader);
            self.fired(
                leader,
                line,
                Some(Res::Conn(c)),
                format!(
                    "the task-config commit of {} is reported by every worker as updating every task of every connector",
                    self.cname(c)
                ),
            );
            if let Some(info) = &mut self.fault.info {
                info.worker = None;
                info.file = None;
                info.line = None;
            }
        }
        self.append(Rec::Commit(listed));
    }

    fn all_tasks(&self) -> Vec<(u16, u16)> {
        let mut v = Vec::new();
        for (c, x) in self.conns.iter().enumerate() {
            if x.exists {
                for i in 0..x.tasks {
                    v.push((c as u16, i));
                }
            }
        }
        v
    }

    /// Would a KAFKA-8676 claim now stop a task of another connector somewhere?
    fn kafka8676_useful(&self, c: u16) -> bool {
        self.workers.iter().any(|wk| {
            wk.status == Status::Live
                && wk
                    .running
                    .keys()
                    .any(|r| matches!(r, Res::Task(x, _) if *x != c))
        })
    }
}

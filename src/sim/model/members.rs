//! Worker processes: start (and restart), graceful shutdown, crash, and the
//! slow leave (cut off from the brokers, self-revocation, return).

use super::{Cluster, SESSION_TIMEOUT_MS, Status, Timer, Why};
use crate::sim::data::Res;
use crate::sim::emit::startup::Identity;

impl Cluster {
    /// Starts a worker process (first start or restart).
    pub fn start_worker(&mut self, w: usize) {
        self.count_event("worker-start");
        {
            let wk = &mut self.workers[w];
            wk.status = Status::Live;
            wk.started_once = true;
            wk.cur_gen = -1;
            wk.read_upto = self.log.len();
            wk.snapshot = -1;
            wk.assigned.clear();
            wk.last_received = None;
            wk.resolved = true;
            wk.had_assignment = false;
            wk.running_assignment.clear();
            wk.running.clear();
            wk.run_tasks.clear();
            wk.to_restart.clear();
            wk.q_conn.clear();
            wk.q_removed.clear();
            wk.q_tasks.clear();
            wk.q_target.clear();
            wk.q_restart.clear();
            wk.needs_reconfig = false;
            wk.rejoin = false;
            wk.lagged = false;
            wk.resuming = false;
            wk.failed.clear();
            wk.herder_started = !self.v.herder_started_after_join();
        }
        self.oracle.worker_started(w);
        self.group.join_counter += 1;
        self.workers[w].join_seq = self.group.join_counter;
        self.new_member_id(w);
        let host = self.workers[w].host.clone();
        let group = self.p.group.clone();
        let id = Identity {
            index: w,
            host: &host,
            group: &group,
            proto: self.proto,
            delay_ms: self.p.delay_ms,
        };
        self.say(w).startup(&id);
        self.oracle.config_known(w, -1);
        self.group.needs_round = true;
    }

    /// Worker `w` joins as a new member: `<client id>-<uuid>`.
    fn new_member_id(&mut self, w: usize) {
        let uuid = self.rng.uuid();
        let wk = &mut self.workers[w];
        wk.member_id = format!("{}-{uuid}", wk.client_id);
    }

    /// Graceful shutdown: stops everything, leaves the group.
    pub fn shutdown_worker(&mut self, w: usize) {
        self.count_event("worker-leave");
        self.say(w).shutdown_begins();
        let running: Vec<Res> = self.workers[w].running.keys().copied().collect();
        for r in running.iter().filter(|r| !r.is_task()) {
            self.stop(w, *r, Why::Shutdown);
        }
        for r in running.iter().filter(|r| r.is_task()) {
            self.stop(w, *r, Why::Shutdown);
        }
        let member = self.workers[w].member_id.clone();
        self.say(w).shutdown_ends(&member);
        self.go_offline(w);
        self.group.needs_round = true;
    }

    fn go_offline(&mut self, w: usize) {
        let wk = &mut self.workers[w];
        wk.status = Status::Offline;
        wk.running.clear();
        wk.run_tasks.clear();
        wk.assigned.clear();
        wk.failed.clear();
    }

    /// The process dies: the log just ends.
    pub fn crash_worker(&mut self, w: usize) {
        self.count_event("worker-crash");
        // Its instances die with it, but its log still shows them running.
        self.workers[w].status = Status::Offline;
        self.workers[w].assigned.clear();
        self.workers[w].run_tasks.clear();
        let at = self.lnow + SESSION_TIMEOUT_MS;
        self.schedule(at, Timer::Evict);
        if self.rng.chance(0.7) {
            let back = self.lnow + self.rng.log_range(20_000, 900_000);
            self.schedule(back, Timer::Restart(w));
        }
    }

    /// A slow leave: cut off from the brokers for longer than the
    /// rebalance delay (usually).
    pub fn partition_worker(&mut self, w: usize) {
        self.count_event("worker-slow-leave");
        self.workers[w].status = Status::Partitioned;
        let line = self.say(w).coordinator_lost();
        if self.v.session_timeout_line() {
            // 2.7+: `… is unavailable or invalid due to cause: session
            // timed out …`, a departure the auditor reads: the work it
            // runs until it revokes it may start elsewhere meanwhile.
            self.oracle.departed(w, line, true);
        }
        let t = self.lnow;
        self.schedule(t + 3_000, Timer::SelfRevoke(w));
        self.schedule(t + SESSION_TIMEOUT_MS, Timer::Evict);
        let gone = if self.rng.chance(0.8) {
            self.p.delay_ms + SESSION_TIMEOUT_MS + self.rng.range(5_000, 120_000)
        } else {
            self.rng.range(15_000, (self.p.delay_ms).max(20_000))
        };
        self.schedule(t + gone, Timer::Return(w));
    }

    /// The partitioned worker revokes its own assignment.
    pub(super) fn self_revoke(&mut self, w: usize) {
        let a = self.workers[w].last_received.clone().unwrap_or_default();
        self.say(w).revoking_unreachable(&a);
        let running: Vec<Res> = self.workers[w].assigned.iter().copied().collect();
        for r in running {
            self.stop(w, r, Why::SelfRevocation);
        }
        self.say(w).finished_stopping();
        let wk = &mut self.workers[w];
        wk.running_assignment.clear();
        wk.assigned.clear();
        wk.had_assignment = false;
    }

    /// The herder thread of `w` stalls (a slow connector start or stop)
    /// past the poll timeout: the heartbeat thread leaves the group without
    /// revoking anything (Kafka 3.x, KAFKA-16056). Its connectors and tasks
    /// keep running while the leader hands them to the other workers; it
    /// comes back well after that, rejoins as a new member reporting its
    /// old assignment, and the leader revokes what two workers now run.
    pub fn poll_timeout_leave(&mut self, w: usize) {
        self.count_event("worker-poll-timeout");
        self.workers[w].status = Status::Stalled;
        let member = self.workers[w].member_id.clone();
        let line = self.say(w).poll_timeout_leave(&member);
        self.oracle.departed(w, line, false);
        let detail = format!(
            "{} leaves the group on its poll timeout without revoking its {} connector(s) and task(s)",
            self.workers[w].host,
            self.workers[w].running.len()
        );
        self.fired(w, line, None, detail);
        self.group.needs_round = true;
        // Back once the leader has handed its work to others (after the
        // scheduled rebalance delay), and a good while after that.
        let back = self.lnow + self.p.delay_ms.max(0) + self.rng.range(60_000, 240_000);
        self.schedule(back, Timer::Resume(w));
    }

    /// The stalled herder runs again: it rejoins as a new member.
    pub(super) fn resume(&mut self, w: usize) {
        self.count_event("worker-resume");
        self.workers[w].status = Status::Live;
        self.workers[w].resuming = true;
        self.group.join_counter += 1;
        self.workers[w].join_seq = self.group.join_counter;
        self.new_member_id(w);
        self.group.needs_round = true;
    }

    /// The partitioned worker reaches the brokers again and rejoins as a
    /// new member.
    pub(super) fn partition_ends(&mut self, w: usize) {
        self.workers[w].status = Status::Live;
        self.say(w).coordinator_found();
        self.group.join_counter += 1;
        self.workers[w].join_seq = self.group.join_counter;
        self.new_member_id(w);
        self.group.needs_round = true;
    }
}

//! The model: the protocol state machine of a Connect cluster. Workers
//! (each a correct 2.3.1-style DistributedHerder unless a fault is armed),
//! the config topic read with lag, the group coordinator and its leader,
//! users' events and the timers that drive them.
//!
//! The model decides what happens; it tells the emitter (`super::emit`)
//! each step so that the step's lines are written, and the oracle
//! (`super::oracle`) so that the findings it implies are written down.
//!
//! Time: `lnow` is the logical time that orders events and timers; the
//! printed clock follows it and moves forward with every line, so that the
//! number of noise lines never changes what happens.

mod assignor;
mod events;
mod lifecycle;
mod members;
mod rebalance;
mod topic;

use super::Params;
use super::data::{Assign, Proto, Res, connector_name};
pub(super) use super::data::{Rec, Target, Why};
use super::emit::{Emitter, Say, Setup};
use super::oracle::{Oracle, World};
use super::rng::Rng;
use super::truth::{FaultInfo, FaultKind, Stats};
use super::version::Version;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// `off(n)`: the config offset after reading `n` records (-1 when none).
pub(super) fn off(n: usize) -> i64 {
    if n == 0 { -1 } else { n as i64 }
}

#[derive(Debug, Clone)]
pub(super) struct Connector {
    pub exists: bool,
    /// Committed task count.
    pub tasks: u16,
    /// Task count its next task-config generation will write.
    pub next_tasks: u16,
    /// Its task configs must be (re)generated when it next starts.
    pub stale: bool,
    pub target: Target,
    /// Record index of its creation.
    pub created_at: usize,
    /// A connector-config update is behind the stale flag (vs. a count change).
    pub reconfigured: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Offline,
    Live,
    /// Cut off from the brokers (a slow leave); the process runs.
    Partitioned,
    /// Its herder thread is stalled; it left the group on its poll timeout
    /// without revoking: its connectors and tasks keep running.
    Stalled,
}

/// A running instance on a worker.
#[derive(Debug, Clone)]
pub(super) struct Inst {
    /// The line of its `Starting …`: it orders the instance against the
    /// config records the worker has logged.
    pub start_line: u64,
}

pub(super) struct Worker {
    pub host: String,
    /// Its herder's client id (`[Worker clientId=…`).
    pub client_id: String,
    pub url: String,
    pub status: Status,
    pub started_once: bool,
    pub join_seq: u64,
    pub member_id: String,
    /// Generation of the last assignment line (-1: none in this incarnation).
    pub cur_gen: i32,
    pub read_upto: usize,
    pub snapshot: i64,
    /// The coordinator's snapshot: the last assignment's lists.
    pub assigned: BTreeSet<Res>,
    pub last_received: Option<Assign>,
    pub resolved: bool,
    pub had_assignment: bool,
    pub running_assignment: BTreeSet<Res>,
    pub running: BTreeMap<Res, Inst>,
    pub run_tasks: Vec<(u16, u16)>,
    pub to_restart: BTreeSet<Res>,
    pub q_conn: Vec<(u16, u64)>,
    pub q_removed: Vec<u16>,
    pub q_tasks: Vec<(u16, u64)>,
    pub q_target: Vec<(u16, Target)>,
    pub q_restart: Vec<u16>,
    pub needs_reconfig: bool,
    pub rejoin: bool,
    pub lagged: bool,
    /// Assigned resources whose last start failed (FAILED, not running;
    /// later rebalances do not retry them).
    pub failed: BTreeSet<Res>,
    /// Its herder runs again after a stall: it rejoins before it handles
    /// anything else.
    pub resuming: bool,
    /// This incarnation's herder has logged `Herder started` (3.9+: after
    /// its first assignment line).
    pub herder_started: bool,
}

impl Worker {
    fn new(host: String, url: String, client_id: String) -> Worker {
        Worker {
            host,
            client_id,
            url,
            status: Status::Offline,
            started_once: false,
            join_seq: 0,
            member_id: String::new(),
            cur_gen: -1,
            read_upto: 0,
            snapshot: -1,
            assigned: BTreeSet::new(),
            last_received: None,
            resolved: true,
            had_assignment: false,
            running_assignment: BTreeSet::new(),
            running: BTreeMap::new(),
            run_tasks: Vec::new(),
            to_restart: BTreeSet::new(),
            q_conn: Vec::new(),
            q_removed: Vec::new(),
            q_tasks: Vec::new(),
            q_target: Vec::new(),
            q_restart: Vec::new(),
            needs_reconfig: false,
            rejoin: false,
            lagged: false,
            failed: BTreeSet::new(),
            resuming: false,
            herder_started: false,
        }
    }
}

/// Timers: things that happen at a logical time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Timer {
    /// The coordinator drops a member that stopped heartbeating.
    Evict,
    /// A partitioned worker revokes its own assignment.
    SelfRevoke(usize),
    /// A partitioned worker reaches the brokers again.
    Return(usize),
    /// A crashed worker is started again.
    Restart(usize),
    /// A stalled worker's herder thread runs again.
    Resume(usize),
    /// The leader's scheduled rebalance (lost work held back) is due.
    Scheduled,
}

pub(super) struct Group {
    pub generation: i32,
    pub leader: Option<usize>,
    /// The leader that computed `memory` and its assignment per member id.
    pub memory: Option<(usize, BTreeMap<String, BTreeSet<Res>>)>,
    pub held_lost: BTreeSet<Res>,
    pub deadline: Option<i64>,
    pub prev_balance_revoked: bool,
    pub needs_round: bool,
    pub key_at: Option<i64>,
    pub join_counter: u64,
}

#[derive(Debug, Default)]
pub(super) struct FaultState {
    pub kind: Option<FaultKind>,
    pub at: usize,
    pub armed: bool,
    pub info: Option<FaultInfo>,
    /// restart-moved-task: (worker, task) revoked for the fault; not given back to it.
    pub moved: Option<(usize, Res)>,
}

impl FaultState {
    pub fn ready(&self, k: FaultKind) -> bool {
        self.kind == Some(k) && self.armed && self.info.is_none()
    }
}

pub(super) struct Cluster {
    pub p: Params,
    pub v: Version,
    pub proto: Proto,
    pub rng: Rng,
    /// Draws the failed starts (its own stream: with no failures the
    /// scenario is the one without them).
    pub fail_rng: Rng,
    pub lnow: i64,
    pub conns: Vec<Connector>,
    pub names: Vec<String>,
    pub types: Vec<usize>,
    pub log: Vec<Rec>,
    pub workers: Vec<Worker>,
    pub group: Group,
    pub timers: Vec<(i64, u64, Timer)>,
    pub timer_seq: u64,
    pub pending_gen: Vec<u16>,
    pub fault: FaultState,
    pub event_index: usize,
    pub stats: Stats,
    pub rounds_in_settle: u32,
    /// The lines.
    pub em: Emitter,
    /// The findings.
    pub oracle: Oracle,
}

/// The cluster as the oracle reads it at a step.
pub(super) struct Names<'a> {
    workers: &'a [Worker],
    names: &'a [String],
    /// The logs written so far (their records' time stamps).
    em: &'a Emitter,
}

impl World for Names<'_> {
    fn workers(&self) -> usize {
        self.workers.len()
    }
    fn host(&self, w: usize) -> &str {
        &self.workers[w].host
    }
    fn generation(&self, w: usize) -> i32 {
        self.workers[w].cur_gen
    }
    fn last_received(&self, w: usize) -> Option<&Assign> {
        self.workers[w].last_received.as_ref()
    }
    fn instance(&self, w: usize, r: Res) -> Option<u64> {
        self.workers[w].running.get(&r).map(|i| i.start_line)
    }
    fn running(&self, w: usize) -> Vec<Res> {
        self.workers[w].running.keys().copied().collect()
    }
    fn assigned(&self, w: usize) -> &BTreeSet<Res> {
        &self.workers[w].assigned
    }
    fn failed(&self, w: usize, r: Res) -> bool {
        self.workers[w].failed.contains(&r)
    }
    fn name(&self, c: u16) -> &str {
        self.names.get(usize::from(c)).map_or("?", String::as_str)
    }
    fn last_ms(&self, w: usize) -> i64 {
        self.em.last_ms(w)
    }
}

pub(super) const SESSION_TIMEOUT_MS: i64 = 10_000;
const KEY_TTL_MS: i64 = 3_600_000;

impl Cluster {
    pub fn new(p: Params, outs: Vec<Box<dyn Write>>, record_lifecycle: bool) -> Cluster {
        let v = p.version;
        let proto = p.protocol;
        let mut rng = Rng::new(p.seed);
        let noise = rng.fork(1);
        let jitter = rng.fork(2);
        let start = v.start_epoch_ms() + rng.range(0, 6 * 3_600_000);
        let n = outs.len();
        let workers = (0..n)
            .map(|i| {
                let host = match &p.host_domain {
                    Some(d) => format!("connect-{}.{d}", i + 1),
                    None => format!("connect-{}", i + 1),
                };
                let url = format!("http://{host}:8083/");
                let client_id = v.client_id(&host);
                Worker::new(host, url, client_id)
            })
            .collect::<Vec<Worker>>();
        let client_ids: Vec<&str> = workers.iter().map(|w| w.client_id.as_str()).collect();
        let em = Emitter::new(
            Setup {
                version: v,
                layout: p.layout,
                client_ids: &client_ids,
                group: &p.group,
                cluster_id: &p.kafka_cluster_id,
                start_ms: start,
                noise: (noise, p.noise),
                jitter,
                record_lifecycle,
            },
            outs,
        );
        let fault = FaultState {
            kind: p.fault,
            at: p.fault_at.unwrap_or(0),
            ..FaultState::default()
        };
        Cluster {
            v,
            proto,
            rng,
            fail_rng: Rng::new(p.seed ^ 0x0FA1_1ED5_7A27_5EED),
            lnow: start,
            conns: Vec::new(),
            names: Vec::new(),
            types: Vec::new(),
            log: Vec::new(),
            workers,
            group: Group {
                generation: 0,
                leader: None,
                memory: None,
                held_lost: BTreeSet::new(),
                deadline: None,
                prev_balance_revoked: false,
                needs_round: false,
                key_at: None,
                join_counter: 0,
            },
            timers: Vec::new(),
            timer_seq: 0,
            pending_gen: Vec::new(),
            fault,
            event_index: 0,
            stats: Stats::default(),
            rounds_in_settle: 0,
            em,
            oracle: Oracle::new(n),
            p,
        }
    }

    pub fn res_name(&self, r: Res) -> String {
        match r {
            Res::Conn(c) => self.cname(c).to_string(),
            Res::Task(c, i) => format!("{}-{i}", self.cname(c)),
        }
    }

    pub fn cname(&self, c: u16) -> &str {
        self.names.get(usize::from(c)).map_or("?", String::as_str)
    }

    /// Worker `w`'s voice for the next step's lines.
    pub fn say(&mut self, w: usize) -> Say<'_> {
        Say {
            em: &mut self.em,
            w,
            lnow: self.lnow,
            names: &self.names,
            types: &self.types,
            tasks: self
                .workers
                .get(w)
                .map_or(&[], |wk| wk.run_tasks.as_slice()),
        }
    }

    /// The oracle and what it reads of the cluster.
    pub fn judge(&mut self) -> (&mut Oracle, Names<'_>) {
        (
            &mut self.oracle,
            Names {
                workers: &self.workers,
                names: &self.names,
                em: &self.em,
            },
        )
    }

    /// Idle noise on the workers whose process runs, until logical time `t`.
    fn idle_until(&mut self, t: i64) {
        let live: Vec<(usize, &[(u16, u16)])> = self
            .workers
            .iter()
            .enumerate()
            .filter(|(_, wk)| wk.status != Status::Offline)
            .map(|(w, wk)| (w, wk.run_tasks.as_slice()))
            .collect();
        self.em.idle_until(t, &live, &self.names, &self.types);
    }

    /// Records that the armed fault fired.
    pub fn fired(&mut self, w: usize, line: u64, r: Option<Res>, detail: String) {
        let Some(kind) = self.fault.kind else { return };
        let resource = r.map(|r| self.res_name(r));
        let time = self.em.clock.text();
        let wk = &self.workers[w];
        self.fault.info = Some(FaultInfo {
            kind,
            armed_at_event: self.fault.at,
            injected: true,
            event: Some(self.event_index),
            worker: Some(wk.host.clone()),
            file: Some(super::worker_file(w)),
            line: Some(line),
            time: Some(time),
            generation: Some(wk.cur_gen),
            resource,
            detail,
            worker_index: Some(w),
        });
    }

    // ---------------------------------------------------------------- time

    pub fn schedule(&mut self, at: i64, t: Timer) {
        if t == Timer::Scheduled {
            self.timers.retain(|(_, _, x)| *x != Timer::Scheduled);
        }
        self.timer_seq += 1;
        self.timers.push((at, self.timer_seq, t));
    }

    fn next_timer(&self) -> Option<(usize, i64)> {
        self.timers
            .iter()
            .enumerate()
            .min_by_key(|(_, (at, seq, _))| (*at, *seq))
            .map(|(i, (at, _, _))| (i, *at))
    }

    /// Runs timers due before `t`, then moves logical time to `t`.
    pub fn advance_to(&mut self, t: i64) {
        while let Some((i, at)) = self.next_timer() {
            if at > t {
                break;
            }
            let (_, _, timer) = self.timers.remove(i);
            self.idle_until(at);
            self.lnow = self.lnow.max(at);
            self.fire_timer(timer);
            self.settle();
        }
        self.idle_until(t);
        self.lnow = self.lnow.max(t);
    }

    fn fire_timer(&mut self, t: Timer) {
        match t {
            Timer::Evict | Timer::Scheduled => self.group.needs_round = true,
            Timer::SelfRevoke(w) => {
                if self.workers[w].status == Status::Partitioned {
                    self.self_revoke(w);
                }
            }
            Timer::Return(w) => {
                if self.workers[w].status == Status::Partitioned {
                    self.partition_ends(w);
                }
            }
            Timer::Restart(w) => {
                if self.workers[w].status == Status::Offline {
                    self.start_worker(w);
                }
            }
            Timer::Resume(w) => {
                if self.workers[w].status == Status::Stalled {
                    self.resume(w);
                }
            }
        }
    }

    pub fn live(&self) -> Vec<usize> {
        (0..self.workers.len())
            .filter(|&w| self.workers[w].status == Status::Live)
            .collect()
    }

    pub fn count_event(&mut self, name: &'static str) {
        *self.stats.events.entry(name).or_default() += 1;
    }

    // ---------------------------------------------------------------- settle

    /// Lets the cluster react until it is quiet: reads, herder ticks, task
    /// config writes, rebalances.
    pub fn settle(&mut self) {
        self.rounds_in_settle = 0;
        for _ in 0..400 {
            self.deliver_reads();
            for w in 0..self.workers.len() {
                self.tick(w);
            }
            if !self.pending_gen.is_empty() {
                self.write_task_configs();
                continue;
            }
            let rejoin = self.live().iter().any(|&w| self.workers[w].rejoin);
            if self.group.needs_round || rejoin {
                self.rebalance();
                continue;
            }
            let unread = self
                .live()
                .iter()
                .any(|&w| self.workers[w].read_upto < self.log.len());
            if unread {
                continue;
            }
            break;
        }
    }

    pub fn ensure_session_key(&mut self) {
        if self.proto != Proto::Sessioned {
            return;
        }
        let due = match self.group.key_at {
            None => true,
            Some(t) => self.lnow >= t + KEY_TTL_MS,
        };
        if due && self.group.leader.is_some() {
            self.group.key_at = Some(self.lnow);
            self.append(Rec::SessionKey);
        }
    }

    /// Adds a connector to the tables; returns its index.
    pub fn new_connector(&mut self, tasks: u16) -> u16 {
        let n = self.names.len();
        let (name, ty) = connector_name(n);
        self.names.push(name);
        self.types.push(ty);
        self.conns.push(Connector {
            exists: true,
            tasks: 0,
            next_tasks: tasks,
            stale: true,
            target: Target::Started,
            created_at: self.log.len(),
            reconfigured: false,
        });
        n as u16
    }
}

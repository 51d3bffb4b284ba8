//! The simulated cluster: workers (each a correct 2.3.1-style
//! DistributedHerder unless a fault is armed), the config topic read with
//! lag, the group coordinator and its leader, users' events, and the
//! oracle that writes down every finding a fault implies.
//!
//! Time: `lnow` is the logical time that orders events and timers; the
//! printed clock follows it and moves forward with every line, so that the
//! number of noise lines never changes what happens.

use super::Params;
use super::model::{Assign, Proto, Res, TYPES, connector_name};
use super::noise::{Noise, NoiseCtx};
use super::out::{Clock, Layout, Lvl, Mdc, Th, WorkerLog};
use super::rng::Rng;
use super::truth::{Expected, FaultInfo, FaultKind, Scope, Stats};
use super::version::{Site, Version};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// `off(n)`: the config offset after reading `n` records (-1 when none).
pub(super) fn off(n: usize) -> i64 {
    if n == 0 { -1 } else { n as i64 }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Started,
    Paused,
    Stopped,
}

impl Target {
    pub(super) fn name(self) -> &'static str {
        match self {
            Target::Started => "STARTED",
            Target::Paused => "PAUSED",
            Target::Stopped => "STOPPED",
        }
    }
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

/// A config-topic record.
#[derive(Debug, Clone)]
pub(super) enum Rec {
    ConnConfig(u16),
    Tombstone(u16),
    TaskConfig,
    /// A task-config commit: the tasks the `Tasks [..] configs updated` line names.
    Commit(Vec<(u16, u16)>),
    Target(u16, Target),
    SessionKey,
    /// A KIP-745 restart request (`includeTasks=true`, `onlyFailed=false`).
    Restart(u16),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Offline,
    Live,
    /// Cut off from the brokers (a slow leave); the process runs.
    Partitioned,
}

/// A running instance on a worker.
#[derive(Debug, Clone)]
pub(super) struct Inst {
    pub start_line: u64,
    pub zombie_reported: bool,
}

/// The auditor's per-connector config facts, mirrored (seq = line numbers).
#[derive(Debug, Clone, Default)]
pub(super) struct Facts {
    pub updated: Option<u64>,
    pub single: Option<u64>,
    pub multi: Option<u64>,
    pub count_change: Option<u64>,
    pub target_change: Option<u64>,
    pub task_set: Option<BTreeSet<u16>>,
}

pub(super) struct Worker {
    pub host: String,
    pub url: String,
    pub log: WorkerLog,
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
    /// The lists of the last successful assignment line (the auditor's "owned").
    pub owned: Option<BTreeSet<Res>>,
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
    /// The config offset the auditor can know from this log (docs/rules.md,
    /// "Known config offset").
    pub known: Option<i64>,
    pub in_window: bool,
    pub window_attempts: BTreeSet<Res>,
    pub lost_reported: BTreeSet<Res>,
    pub facts: BTreeMap<u16, Facts>,
    pub lagged: bool,
    pub lifecycle: Vec<u64>,
}

/// One instance of a resource: (worker, line of its start).
pub(super) type Instance = (usize, u64);

/// A cross-worker duplicate: the resource and its two instances (ordered).
pub(super) type Episode = (Res, Instance, Instance);

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

/// What a start or stop is for (the oracle judges with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Why {
    StartPhase,
    Restart,
    ConnectorConfig,
    Revoked,
    Eager,
    TaskConfig,
    Removed,
    Shutdown,
    SelfRevocation,
    Spurious,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum M {
    None,
    Worker(u16),
    Task(u16, u16),
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Lg {
    Herder,
    /// AbstractCoordinator's statements: under AbstractCoordinator up to
    /// 2.8, under WorkerCoordinator (the subclass) from 3.0.
    Coord,
    /// WorkerCoordinator's own statements (`Rebalance started`, …).
    WCoord,
    Worker,
    WConn,
    Connect,
    Kcbs,
    KbLog,
    Rest,
    Custom(&'static str),
}

pub(super) struct Cluster {
    pub p: Params,
    pub v: Version,
    pub proto: Proto,
    pub rng: Rng,
    pub jit: Rng,
    pub noise: Noise,
    pub clock: Clock,
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
    pub expected: Vec<Expected>,
    pub stats: Stats,
    pub record_lifecycle: bool,
    /// Cross-worker duplicate episodes already reported: the resource and
    /// its two instances, each as (worker, start line).
    pub episodes: BTreeSet<Episode>,
    pub rounds_in_settle: u32,
    /// The next emitted line is not a lifecycle line (not recorded).
    pub plain: bool,
    /// Continuation lines (a stack trace) the next emitted record carries.
    pub trace: Vec<String>,
}

pub(super) const SESSION_TIMEOUT_MS: i64 = 10_000;
const KEY_TTL_MS: i64 = 3_600_000;

impl Cluster {
    pub fn new(p: Params, outs: Vec<Box<dyn Write>>, record_lifecycle: bool) -> Cluster {
        let v = p.version;
        let proto = p.protocol;
        let mut rng = Rng::new(p.seed);
        let noise = Noise::new(rng.fork(1), p.noise);
        let jit = rng.fork(2);
        let start = v.start_epoch_ms() + rng.range(0, 6 * 3_600_000);
        let workers = outs
            .into_iter()
            .enumerate()
            .map(|(i, out)| {
                let host = format!("connect-{}", i + 1);
                // Every worker is `connect-1` with the default client.id up to 3.6.
                let client_id = "connect-1".to_string();
                let url = format!("http://{host}:8083/");
                Worker {
                    log: WorkerLog::new(out, p.layout, v, &client_id, &p.group),
                    host,
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
                    owned: None,
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
                    known: None,
                    in_window: false,
                    window_attempts: BTreeSet::new(),
                    lost_reported: BTreeSet::new(),
                    facts: BTreeMap::new(),
                    lagged: false,
                    lifecycle: Vec::new(),
                }
            })
            .collect();
        let fault = FaultState {
            kind: p.fault,
            at: p.fault_at.unwrap_or(0),
            ..FaultState::default()
        };
        Cluster {
            v,
            proto,
            rng,
            jit,
            noise,
            clock: Clock::new(start),
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
            expected: Vec::new(),
            stats: Stats::default(),
            record_lifecycle,
            episodes: BTreeSet::new(),
            rounds_in_settle: 0,
            plain: false,
            trace: Vec::new(),
            p,
        }
    }

    // ---------------------------------------------------------------- lines

    pub fn res_name(&self, r: Res) -> String {
        match r {
            Res::Conn(c) => self.cname(c).to_string(),
            Res::Task(c, i) => format!("{}-{i}", self.cname(c)),
        }
    }

    pub fn cname(&self, c: u16) -> &str {
        self.names.get(usize::from(c)).map_or("?", String::as_str)
    }

    fn logger(&self, lg: Lg) -> &'static str {
        match lg {
            Lg::Herder => "org.apache.kafka.connect.runtime.distributed.DistributedHerder",
            Lg::Coord => self.v.coordinator_logger(),
            Lg::WCoord => "org.apache.kafka.connect.runtime.distributed.WorkerCoordinator",
            Lg::Worker => "org.apache.kafka.connect.runtime.Worker",
            Lg::WConn => "org.apache.kafka.connect.runtime.WorkerConnector",
            Lg::Connect => "org.apache.kafka.connect.runtime.Connect",
            Lg::Kcbs => "org.apache.kafka.connect.storage.KafkaConfigBackingStore",
            Lg::KbLog => "org.apache.kafka.connect.util.KafkaBasedLog",
            Lg::Rest => "org.apache.kafka.connect.runtime.rest.RestServer",
            Lg::Custom(s) => s,
        }
    }

    /// Writes one lifecycle record on worker `w` and the noise after it;
    /// returns its line number.
    pub fn emit(
        &mut self,
        w: usize,
        lvl: Lvl,
        mdc: M,
        lg: Lg,
        site: Site,
        body: impl FnOnce(&mut WorkerLog, &[String]),
    ) -> u64 {
        let ctx = match lg {
            Lg::Herder => self.v.herder_prefix(),
            Lg::Coord | Lg::WCoord => true,
            _ => false,
        };
        let th = match (lg, mdc) {
            (Lg::Worker | Lg::WConn, M::Task(..) | M::Worker(_)) => Th::Pool,
            (_, M::Task(..)) => Th::Task,
            (Lg::Connect | Lg::Rest, _) => Th::Main,
            (Lg::Kcbs | Lg::KbLog, _) => Th::ConfigLog,
            _ => Th::Herder,
        };
        let logger = self.logger(lg);
        let l_no = self.v.line(site);
        let dt = self.jit.range(1, 3);
        self.clock.set_at_least(self.lnow);
        self.clock.advance(dt);
        let Cluster {
            workers,
            clock,
            names,
            noise,
            types,
            v,
            p,
            record_lifecycle,
            plain,
            trace,
            ..
        } = self;
        let Some(wk) = workers.get_mut(w) else {
            return 0;
        };
        let mdc = match mdc {
            M::None => Mdc::None,
            M::Worker(c) => Mdc::Worker(names.get(usize::from(c)).map_or("?", String::as_str)),
            M::Task(c, i) => Mdc::Task(names.get(usize::from(c)).map_or("?", String::as_str), i),
        };
        let line = wk.log.head(clock, lvl, mdc, th);
        if ctx {
            wk.log.ctx();
        }
        body(&mut wk.log, names);
        wk.log.tail(logger, l_no);
        for frame in trace.drain(..) {
            wk.log.cont(&frame);
        }
        if *record_lifecycle && !std::mem::take(plain) {
            wk.lifecycle.push(line);
        }
        let cx = NoiseCtx {
            version: *v,
            tasks: &wk.run_tasks,
            names,
            types,
            debezium: p.layout == Layout::Debezium,
        };
        noise.after(&mut wk.log, clock, &cx);
        line
    }

    /// A herder (DH) line with a fixed message.
    pub fn dh(&mut self, w: usize, lvl: Lvl, site: Site, msg: &'static str) -> u64 {
        self.emit(w, lvl, M::None, Lg::Herder, site, |l, _| l.s(msg))
    }

    /// Like [`Cluster::emit`], for a line that states no lifecycle fact.
    pub fn emit_plain(
        &mut self,
        w: usize,
        lvl: Lvl,
        mdc: M,
        lg: Lg,
        site: Site,
        body: impl FnOnce(&mut WorkerLog, &[String]),
    ) -> u64 {
        self.plain = true;
        let l = self.emit(w, lvl, mdc, lg, site, body);
        self.plain = false;
        l
    }

    /// A coordinator line with a fixed message.
    pub fn coord(&mut self, w: usize, site: Site, msg: &'static str) -> u64 {
        self.emit(w, Lvl::Info, M::None, Lg::Coord, site, |l, _| l.s(msg))
    }

    /// Idle noise on live workers until logical time `t`.
    fn idle_until(&mut self, t: i64) {
        let live: Vec<usize> = (0..self.workers.len())
            .filter(|&w| self.workers[w].status != Status::Offline)
            .collect();
        if live.is_empty() || t <= self.clock.now() {
            self.clock.set_at_least(t);
            return;
        }
        let span = t - self.clock.now();
        let base = (span / 2_000).clamp(1, 40) as u32 * live.len() as u32;
        let n = self.noise.count_for(base);
        if n > 0 {
            let step = (span / i64::from(n + 1)).max(0);
            for _ in 0..n {
                self.clock.advance(step);
                let w = live[self.noise.rng().index(live.len())];
                let Cluster {
                    workers,
                    clock,
                    names,
                    noise,
                    types,
                    v,
                    p,
                    ..
                } = self;
                let wk = &mut workers[w];
                let cx = NoiseCtx {
                    version: *v,
                    tasks: &wk.run_tasks,
                    names,
                    types,
                    debezium: p.layout == Layout::Debezium,
                };
                noise.one(&mut wk.log, clock, &cx);
            }
        }
        self.clock.set_at_least(t);
    }

    // ---------------------------------------------------------------- oracle

    pub fn expect(
        &mut self,
        w: usize,
        line: u64,
        kind: &'static str,
        r: Option<Res>,
        scope: Scope,
        why: String,
    ) {
        let resource = r.map_or_else(|| "-".to_string(), |r| self.res_name(r));
        let file = format!("{}.log", self.workers[w].host);
        let generation = self.workers[w].cur_gen;
        self.expected.push(Expected {
            file,
            line,
            kind,
            resource,
            scope,
            generation,
            why,
        });
    }

    /// Records that the armed fault fired.
    pub fn fired(&mut self, w: usize, line: u64, r: Option<Res>, detail: String) {
        let Some(kind) = self.fault.kind else { return };
        let resource = r.map(|r| self.res_name(r));
        let time = self.clock.text();
        let wk = &self.workers[w];
        self.fault.info = Some(FaultInfo {
            kind,
            armed_at_event: self.fault.at,
            injected: true,
            event: Some(self.event_index),
            worker: Some(wk.host.clone()),
            file: Some(format!("{}.log", wk.host)),
            line: Some(line),
            time: Some(time),
            generation: Some(wk.cur_gen),
            resource,
            detail,
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
        }
    }

    // ---------------------------------------------------------------- members

    pub fn live(&self) -> Vec<usize> {
        (0..self.workers.len())
            .filter(|&w| self.workers[w].status == Status::Live)
            .collect()
    }

    fn count_event(&mut self, name: &'static str) {
        *self.stats.events.entry(name).or_default() += 1;
    }

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
            wk.owned = None;
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
            wk.known = None;
            wk.in_window = false;
            wk.lost_reported.clear();
            wk.lagged = false;
        }
        self.group.join_counter += 1;
        self.workers[w].join_seq = self.group.join_counter;
        self.workers[w].member_id = format!("connect-1-{}", self.rng.uuid());
        self.startup_lines(w);
        self.workers[w].known = Some(-1);
        self.group.needs_round = true;
    }

    /// Graceful shutdown: stops everything, leaves the group.
    pub fn shutdown_worker(&mut self, w: usize) {
        self.count_event("worker-leave");
        self.emit(w, Lvl::Info, M::None, Lg::Connect, Site::Connect, |l, _| {
            l.s("Kafka Connect stopping")
        });
        self.dh(w, Lvl::Info, Site::HerderStopping, "Herder stopping");
        self.dh(
            w,
            Lvl::Info,
            Site::Halt,
            "Stopping connectors and tasks that are still assigned to this worker.",
        );
        let running: Vec<Res> = self.workers[w].running.keys().copied().collect();
        for r in running.iter().filter(|r| !r.is_task()) {
            self.stop(w, *r, Why::Shutdown);
        }
        for r in running.iter().filter(|r| r.is_task()) {
            self.stop(w, *r, Why::Shutdown);
        }
        if self.v.leave_group_line() {
            let member = self.workers[w].member_id.clone();
            let reason = self.v.leave_group_reason();
            self.emit(w, Lvl::Info, M::None, Lg::Coord, Site::LeaveGroup, |l, _| {
                l.s("Member ");
                l.s(&member);
                l.s(" sending LeaveGroup request to coordinator broker-1:9092 (id: 2147483646 rack: null)");
                if reason {
                    l.s(" due to the consumer is being closed");
                }
            });
        }
        self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Kcbs,
            Site::ConfigStore,
            |l, _| l.s("Closing KafkaConfigBackingStore"),
        );
        self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Kcbs,
            Site::ConfigStore,
            |l, _| l.s("Closed KafkaConfigBackingStore"),
        );
        self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Worker,
            Site::WorkerStopping,
            |l, _| l.s("Worker stopping"),
        );
        self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Worker,
            Site::WorkerStopped,
            |l, _| l.s("Worker stopped"),
        );
        self.dh(w, Lvl::Info, Site::HerderStopped, "Herder stopped");
        self.dh(w, Lvl::Info, Site::HerderStopped, "Herder stopped");
        self.emit(w, Lvl::Info, M::None, Lg::Connect, Site::Connect, |l, _| {
            l.s("Kafka Connect stopped")
        });
        self.go_offline(w);
        self.group.needs_round = true;
    }

    fn go_offline(&mut self, w: usize) {
        let wk = &mut self.workers[w];
        wk.status = Status::Offline;
        wk.running.clear();
        wk.run_tasks.clear();
        wk.assigned.clear();
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
        self.plain = true;
        self.coord(
            w,
            Site::CoordinatorDead,
            "Group coordinator broker-1:9092 (id: 2147483646 rack: null) is unavailable or invalid, will attempt rediscovery",
        );
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

    fn self_revoke(&mut self, w: usize) {
        let a = self.workers[w].last_received.clone().unwrap_or_default();
        let mut snap = a.clone();
        snap.rconns.clear();
        snap.rtasks.clear();
        let v0 = false;
        self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Coord,
            Site::Unreachable,
            |l, names| {
                l.s("Broker coordinator was unreachable for 3000ms. Revoking previous assignment ");
                put_assign(l, names, &snap, v0);
                l.s(" to avoid running tasks while not being a member the group");
            },
        );
        let running: Vec<Res> = self.workers[w].assigned.iter().copied().collect();
        for r in running {
            self.stop(w, r, Why::SelfRevocation);
        }
        self.finished_stopping(w);
        let wk = &mut self.workers[w];
        wk.running_assignment.clear();
        wk.assigned.clear();
        wk.had_assignment = false;
    }

    fn partition_ends(&mut self, w: usize) {
        self.workers[w].status = Status::Live;
        self.plain = true;
        self.coord(
            w,
            Site::Discovered,
            "Discovered group coordinator broker-1:9092 (id: 2147483646 rack: null)",
        );
        self.group.join_counter += 1;
        self.workers[w].join_seq = self.group.join_counter;
        self.workers[w].member_id = format!("connect-1-{}", self.rng.uuid());
        self.group.needs_round = true;
    }

    // ---------------------------------------------------------------- config log

    pub fn append(&mut self, r: Rec) {
        self.log.push(r);
    }

    /// Every live worker reads the records it has not read yet; a worker
    /// other than the leader may lag once (it then reads them during its
    /// next catch-up or in the next pass).
    pub fn deliver_reads(&mut self) {
        let leader = self.group.leader;
        for w in 0..self.workers.len() {
            if self.workers[w].status != Status::Live || self.workers[w].read_upto >= self.log.len()
            {
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

    fn on_record(&mut self, w: usize, rec: &Rec) {
        match rec {
            Rec::ConnConfig(c) => {
                let c = *c;
                let line = self.emit(
                    w,
                    Lvl::Info,
                    M::None,
                    Lg::Herder,
                    Site::ConnUpdated,
                    about("Connector ", c, " config updated"),
                );
                let wk = &mut self.workers[w];
                wk.known = None;
                wk.facts.entry(c).or_default().updated = Some(line);
                if self.in_snapshot(w, c) {
                    self.workers[w].q_conn.push((c, line));
                } else {
                    // A new connector: a rebalance assigns it.
                    self.workers[w].needs_reconfig = true;
                }
            }
            Rec::Tombstone(c) => {
                let c = *c;
                if self.v.removal_line_new() {
                    self.emit(
                        w,
                        Lvl::Info,
                        M::None,
                        Lg::Kcbs,
                        Site::ConfigStoreRemoval,
                        about("Successfully processed removal of connector '", c, "'"),
                    );
                } else {
                    self.emit(w, Lvl::Info, M::None, Lg::Kcbs, Site::ConfigStoreRemoval, about("Removed connector ", c, " due to null configuration. This is usually intentional and does not indicate an issue."));
                }
                self.emit(
                    w,
                    Lvl::Info,
                    M::None,
                    Lg::Herder,
                    Site::ConnRemoved,
                    about("Connector ", c, " config removed"),
                );
                self.workers[w].known = None;
                if self.in_snapshot(w, c) {
                    self.workers[w].needs_reconfig = true;
                    self.workers[w].q_removed.push(c);
                }
            }
            Rec::TaskConfig => {}
            Rec::Commit(listed) => {
                let listed = listed.clone();
                let line = self.emit(
                    w,
                    Lvl::Info,
                    M::None,
                    Lg::Herder,
                    Site::TasksUpdated,
                    |l, n| {
                        l.s("Tasks [");
                        for (k, &(c, i)) in listed.iter().enumerate() {
                            if k > 0 {
                                l.s(", ");
                            }
                            l.s(name(n, c));
                            l.s("-");
                            l.num(i64::from(i));
                        }
                        l.s("] configs updated");
                    },
                );
                let mut by_conn: BTreeMap<u16, BTreeSet<u16>> = BTreeMap::new();
                for &(c, i) in &listed {
                    by_conn.entry(c).or_default().insert(i);
                }
                let multi = by_conn.len() > 1;
                let wk = &mut self.workers[w];
                wk.known = None;
                wk.needs_reconfig = true;
                for (c, set) in by_conn {
                    let f = wk.facts.entry(c).or_default();
                    if multi {
                        f.multi = Some(line);
                    } else {
                        f.single = Some(line);
                    }
                    if f.task_set.as_ref().is_some_and(|old| *old != set) {
                        f.count_change = Some(line);
                    }
                    f.task_set = Some(set);
                    wk.q_tasks.push((c, line));
                }
            }
            Rec::Target(c, t) => {
                let (c, t) = (*c, *t);
                let line = self.emit(
                    w,
                    Lvl::Info,
                    M::None,
                    Lg::Herder,
                    Site::TargetChange,
                    about("Connector ", c, " target state change"),
                );
                let wk = &mut self.workers[w];
                wk.known = None;
                wk.facts.entry(c).or_default().target_change = Some(line);
                wk.q_target.push((c, t));
            }
            Rec::Restart(c) => {
                let c = *c;
                self.emit(
                    w,
                    Lvl::Info,
                    M::None,
                    Lg::Herder,
                    Site::RestartRequest,
                    about(
                        "Received and enqueuing restart request for {connectorName='",
                        c,
                        "', onlyFailed=false, includeTasks=true}",
                    ),
                );
                // A config-topic record: the known offset becomes unknown
                // (docs/rules.md, "Known config offset").
                self.workers[w].known = None;
                self.workers[w].q_restart.push(c);
            }
            Rec::SessionKey => {
                if self.proto == Proto::Sessioned {
                    self.dh(w, Lvl::Info, Site::SessionKey, "Session key updated");
                    // A config-topic record like any other: the herder's next
                    // snapshot includes it, so the log no longer pins the
                    // offset down (docs/rules.md, "Known config offset").
                    self.workers[w].known = None;
                }
            }
        }
    }

    /// The herder's tick: handles the config updates its listener queued.
    pub fn tick(&mut self, w: usize) {
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
        for c in q_removed {
            if self.workers[w].assigned.contains(&Res::Conn(c)) {
                self.emit(
                    w,
                    Lvl::Info,
                    M::None,
                    Lg::Herder,
                    Site::HandlingConn,
                    about(
                        "Handling connector-only config update by stopping connector ",
                        c,
                        "",
                    ),
                );
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
        let n = i64::from(x.tasks);
        let plan = move |l: &mut WorkerLog, names: &[String]| {
            l.s("plan to restart connector and ");
            l.num(n);
            l.s(" of ");
            l.num(n);
            l.s(" tasks for restart request for {connectorName='");
            l.s(name(names, c));
            l.s("', onlyFailed=false, includeTasks=true}");
        };
        self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::RestartPlan,
            |l, names| {
                l.s("Executing ");
                plan(l, names);
            },
        );
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
        if restart_conn {
            self.start(w, conn, Why::Restart);
        }
        for &t in &tasks {
            self.start(w, t, Why::Restart);
            let id = self.res_name(t);
            self.emit(
                w,
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::RestartPlan,
                |l, _| {
                    l.s("Task '");
                    l.s(&id);
                    l.s("' restart successful");
                },
            );
        }
        self.emit(
            w,
            Lvl::Info,
            M::None,
            Lg::Herder,
            Site::RestartPlan,
            |l, names| {
                l.s("Completed ");
                plan(l, names);
            },
        );
        if restart_conn {
            self.emit(
                w,
                Lvl::Info,
                M::Worker(c),
                Lg::Herder,
                Site::RestartPlan,
                |l, names| {
                    l.s("Connector '");
                    l.s(name(names, c));
                    l.s("' restart successful");
                },
            );
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
            // Restart only an instance that has not seen this update.
            let Some(inst) = self.workers[w].running.get(&r) else {
                continue;
            };
            let latest = q
                .iter()
                .filter(|(x, _)| *x == c)
                .map(|(_, l)| *l)
                .max()
                .unwrap_or(line);
            if inst.start_line > latest {
                continue;
            }
            self.emit(
                w,
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::HandlingConn,
                about(
                    "Handling connector-only config update by restarting connector ",
                    c,
                    "",
                ),
            );
            self.stop(w, r, Why::ConnectorConfig);
            self.start(w, r, Why::ConnectorConfig);
        }
    }

    fn target_changes(&mut self, w: usize, q: &[(u16, Target)]) {
        for &(c, t) in q {
            let r = Res::Conn(c);
            if !self.workers[w].running.contains_key(&r) {
                continue;
            }
            self.emit(
                w,
                Lvl::Info,
                M::Worker(c),
                Lg::Worker,
                Site::SettingState,
                |l, n| {
                    l.s("Setting connector ");
                    l.s(name(n, c));
                    l.s(" state to ");
                    l.s(t.name());
                },
            );
            if t == Target::Started
                && let Some(x) = self.conns.get(usize::from(c))
                && x.stale
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
        let wording = self.v.task_update_line();
        use super::version::TaskUpdateLine;
        match wording {
            TaskUpdateLine::None => return,
            TaskUpdateLine::Stopping if list.is_empty() => return,
            _ => {}
        }
        let l2 = list.clone();
        self.emit(w, Lvl::Info, M::None, Lg::Herder, Site::HandlingTask, |l, n| {
            if wording == TaskUpdateLine::Stopping {
                l.s("Handling task config update by stopping tasks ");
                put_list(l, n, &l2);
                l.s(", which will be restarted after rebalance if still assigned to this worker");
            } else {
                l.s("Handling task config update by restarting tasks ");
                put_list(l, n, &l2);
            }
        });
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
            let line = self.workers[leader].log.next_line();
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

    // ---------------------------------------------------------------- worker lines

    /// `Finished stopping tasks in preparation for rebalance` (+ the status
    /// flush line from 2.4.1).
    pub fn finished_stopping(&mut self, w: usize) {
        self.dh(
            w,
            Lvl::Info,
            Site::FinishedStopping,
            "Finished stopping tasks in preparation for rebalance",
        );
        if self.v.flush_line() {
            self.dh(
                w,
                Lvl::Info,
                Site::FinishedFlushing,
                "Finished flushing status backing store in preparation for rebalance",
            );
        }
    }

    /// Stops `r` on worker `w` (logs an ignored stop if it does not run).
    pub fn stop(&mut self, w: usize, r: Res, why: Why) {
        if self.workers[w].in_window {
            self.workers[w].window_attempts.insert(r);
        }
        let running = self.workers[w].running.contains_key(&r);
        match r {
            Res::Conn(c) => {
                let line = self.emit(
                    w,
                    Lvl::Info,
                    M::Worker(c),
                    Lg::Worker,
                    Site::StoppingConnector,
                    about("Stopping connector ", c, ""),
                );
                if running {
                    self.judge_stop(w, r, line, why);
                    self.remove_running(w, r);
                    if self.v.stopped_connector_line() {
                        self.emit(
                            w,
                            Lvl::Info,
                            M::Worker(c),
                            Lg::Worker,
                            Site::StoppedConnector,
                            about("Stopped connector ", c, ""),
                        );
                    }
                    if self.v.connector_shutdown_lines() {
                        self.emit(
                            w,
                            Lvl::Info,
                            M::Worker(c),
                            Lg::WConn,
                            Site::ScheduledShutdown,
                            about("Scheduled shutdown for WorkerConnector{id=", c, "}"),
                        );
                        self.emit(
                            w,
                            Lvl::Info,
                            M::Worker(c),
                            Lg::WConn,
                            Site::CompletedShutdown,
                            about("Completed shutdown for WorkerConnector{id=", c, "}"),
                        );
                    }
                } else {
                    self.emit(
                        w,
                        Lvl::Warn,
                        M::Worker(c),
                        Lg::Worker,
                        Site::IgnoringStopConnector,
                        about("Ignoring stop request for unowned connector ", c, ""),
                    );
                    if self.v.await_stop_connector_line() {
                        self.emit(
                            w,
                            Lvl::Warn,
                            M::Worker(c),
                            Lg::Worker,
                            Site::IgnoringAwaitConnector,
                            about(
                                "Ignoring await stop request for non-present connector ",
                                c,
                                "",
                            ),
                        );
                    }
                }
            }
            Res::Task(c, i) => {
                if running {
                    let line = self.emit(
                        w,
                        Lvl::Info,
                        M::Task(c, i),
                        Lg::Worker,
                        Site::StoppingTask,
                        |l, n| {
                            l.s("Stopping task ");
                            l.s(name(n, c));
                            l.s("-");
                            l.num(i64::from(i));
                        },
                    );
                    self.judge_stop(w, r, line, why);
                    self.remove_running(w, r);
                } else {
                    self.emit(
                        w,
                        Lvl::Warn,
                        M::Task(c, i),
                        Lg::Worker,
                        Site::IgnoringStopTask,
                        |l, n| {
                            l.s("Ignoring stop request for unowned task ");
                            l.s(name(n, c));
                            l.s("-");
                            l.num(i64::from(i));
                        },
                    );
                    self.emit(
                        w,
                        Lvl::Warn,
                        M::Task(c, i),
                        Lg::Worker,
                        Site::IgnoringAwaitTask,
                        |l, n| {
                            l.s("Ignoring await stop request for non-present task ");
                            l.s(name(n, c));
                            l.s("-");
                            l.num(i64::from(i));
                        },
                    );
                }
            }
        }
    }

    fn remove_running(&mut self, w: usize, r: Res) {
        let wk = &mut self.workers[w];
        wk.running.remove(&r);
        if let Res::Task(c, i) = r {
            wk.run_tasks.retain(|&x| x != (c, i));
        }
        self.stats.stops += 1;
    }

    /// The oracle's judgement of a real stop.
    fn judge_stop(&mut self, w: usize, r: Res, line: u64, why: Why) {
        match why {
            Why::Spurious => self.expect(
                w,
                line,
                "unnecessary-stop",
                Some(r),
                Scope::Worker,
                "stopped during a cooperative rebalance although retained and not revoked".into(),
            ),
            Why::TaskConfig => {
                let start = self.workers[w].running.get(&r).map(|i| i.start_line);
                if let Some(reason) = self.task_config_verdict(w, r, start) {
                    self.expect(w, line, "unnecessary-stop", Some(r), Scope::Worker, reason);
                }
            }
            Why::ConnectorConfig => {
                let start = self.workers[w].running.get(&r).map(|i| i.start_line);
                let updated = self.workers[w].facts.get(&r.conn()).and_then(|f| f.updated);
                let changed = matches!((updated, start), (Some(u), Some(s)) if u > s);
                if !changed && start.is_some() {
                    self.expect(
                        w,
                        line,
                        "unnecessary-stop",
                        Some(r),
                        Scope::Worker,
                        "connector restarted for a config update it had already seen".into(),
                    );
                }
            }
            _ => {}
        }
    }

    /// The config-freshness rule of docs/rules.md for a task-config stop; `Some(reason)`
    /// when the stop is unnecessary.
    fn task_config_verdict(&self, w: usize, r: Res, start: Option<u64>) -> Option<String> {
        let s = start?;
        let Some(f) = self.workers[w].facts.get(&r.conn()) else {
            return Some("no task-config change of its connector in this log".into());
        };
        let after = |x: Option<u64>| x.is_some_and(|l| l > s);
        if after(f.single) {
            return None;
        }
        if after(f.multi) {
            if after(f.updated) || after(f.count_change) || after(f.target_change) {
                return None;
            }
            return Some(format!(
                "KAFKA-8676: the only task-config claim naming {} also names other connectors' tasks",
                self.cname(r.conn())
            ));
        }
        Some("no task-config change of its connector after the instance started".into())
    }

    /// Starts `r` on worker `w` (the herder's `Starting …` and the Worker's lines).
    pub fn start(&mut self, w: usize, r: Res, why: Why) -> u64 {
        self.stats.starts += 1;
        let line = match r {
            Res::Conn(c) => self.emit(
                w,
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::StartingConnector,
                about("Starting connector ", c, ""),
            ),
            Res::Task(c, i) => self.emit(
                w,
                Lvl::Info,
                M::None,
                Lg::Herder,
                Site::StartingTask,
                |l, n| {
                    l.s("Starting task ");
                    l.s(name(n, c));
                    l.s("-");
                    l.num(i64::from(i));
                },
            ),
        };
        // Oracle: a second instance, or work this worker does not own.
        let already = self.workers[w].running.contains_key(&r);
        if already {
            self.expect(
                w,
                line,
                "double-start",
                Some(r),
                Scope::Worker,
                "started while an instance already runs on this worker".into(),
            );
        }
        let wk = &self.workers[w];
        let foreign = wk.last_received.as_ref().is_some_and(|a| a.revokes(r))
            || wk.owned.as_ref().is_some_and(|o| !o.contains(&r));
        if foreign {
            self.expect(
                w,
                line,
                "foreign-start",
                Some(r),
                Scope::Worker,
                "started although not in this worker's assignment".into(),
            );
        }
        let _ = why;
        let ty = &TYPES[self.types.get(usize::from(r.conn())).copied().unwrap_or(0) % TYPES.len()];
        match r {
            Res::Conn(c) => {
                let (class, ver) = (ty.class, plugin_version(ty.plugin_version, self.v));
                self.emit(
                    w,
                    Lvl::Info,
                    M::Worker(c),
                    Lg::Worker,
                    Site::CreatingConnector,
                    |l, n| {
                        l.s("Creating connector ");
                        l.s(name(n, c));
                        l.s(" of type ");
                        l.s(class);
                    },
                );
                self.emit(
                    w,
                    Lvl::Info,
                    M::Worker(c),
                    Lg::Worker,
                    Site::InstantiatedConnector,
                    |l, n| {
                        l.s("Instantiated connector ");
                        l.s(name(n, c));
                        l.s(" with version ");
                        l.s(ver);
                        l.s(" of type class ");
                        l.s(class);
                    },
                );
                self.emit(
                    w,
                    Lvl::Info,
                    M::Worker(c),
                    Lg::Worker,
                    Site::FinishedCreating,
                    about("Finished creating connector ", c, ""),
                );
                if !already {
                    self.workers[w].running.insert(
                        r,
                        Inst {
                            start_line: line,
                            zombie_reported: false,
                        },
                    );
                }
                if self
                    .conns
                    .get(usize::from(c))
                    .is_some_and(|x| x.stale && x.target == Target::Started)
                {
                    self.pending_gen.push(c);
                }
            }
            Res::Task(c, i) => {
                self.emit(
                    w,
                    Lvl::Info,
                    M::Task(c, i),
                    Lg::Worker,
                    Site::CreatingTask,
                    |l, n| {
                        l.s("Creating task ");
                        l.s(name(n, c));
                        l.s("-");
                        l.num(i64::from(i));
                    },
                );
                if already {
                    let id = self.res_name(r);
                    self.trace = [
                        format!("org.apache.kafka.connect.errors.ConnectException: Task already exists in this worker: {id}"),
                        "\tat org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:434)".into(),
                        "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.startTask(DistributedHerder.java:1035)".into(),
                        "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.access$1700(DistributedHerder.java:105)".into(),
                        "\tat org.apache.kafka.connect.runtime.distributed.DistributedHerder$11.call(DistributedHerder.java:1050)".into(),
                        "\tat java.util.concurrent.FutureTask.run(FutureTask.java:266)".into(),
                        "\tat java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1149)".into(),
                        "\tat java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:624)".into(),
                        "\tat java.lang.Thread.run(Thread.java:748)".into(),
                    ]
                    .to_vec();
                    self.emit(w, Lvl::Error, M::None, Lg::Herder, Site::CouldNotInstantiate, |l, _| {
                        l.s("Couldn't instantiate task ");
                        l.s(&id);
                        l.s(" because it has an invalid task configuration. This task will not execute until reconfigured.");
                    });
                    return line;
                }
                let source = ty.source;
                let (tclass, ver) = (ty.task_class, plugin_version(ty.plugin_version, self.v));
                {
                    let Cluster {
                        workers,
                        clock,
                        names,
                        noise,
                        ..
                    } = self;
                    let nm = names.get(usize::from(c)).map_or("?", String::as_str);
                    noise.task_start_dump(&mut workers[w].log, clock, nm, i, source);
                }
                self.emit(
                    w,
                    Lvl::Info,
                    M::Task(c, i),
                    Lg::Worker,
                    Site::InstantiatedTask,
                    |l, n| {
                        l.s("Instantiated task ");
                        l.s(name(n, c));
                        l.s("-");
                        l.num(i64::from(i));
                        l.s(" with version ");
                        l.s(ver);
                        l.s(" of type ");
                        l.s(tclass);
                    },
                );
                for (kind, class, from) in [
                    (
                        "key",
                        "class org.apache.kafka.connect.json.JsonConverter",
                        "worker",
                    ),
                    (
                        "value",
                        "class io.confluent.connect.avro.AvroConverter",
                        "connector",
                    ),
                    (
                        "header",
                        "class org.apache.kafka.connect.storage.SimpleHeaderConverter",
                        "worker",
                    ),
                ] {
                    self.emit_plain(
                        w,
                        Lvl::Info,
                        M::Task(c, i),
                        Lg::Worker,
                        Site::Converter,
                        |l, n| {
                            l.s("Set up the ");
                            l.s(kind);
                            l.s(" converter ");
                            l.s(class);
                            l.s(" for task ");
                            l.s(name(n, c));
                            l.s("-");
                            l.num(i64::from(i));
                            l.s(" using the ");
                            l.s(from);
                            l.s(" config");
                        },
                    );
                }
                self.workers[w].running.insert(
                    r,
                    Inst {
                        start_line: line,
                        zombie_reported: false,
                    },
                );
                self.workers[w].run_tasks.push((c, i));
                let (tl, cls) = if source {
                    (self.v.source_task_logger(), "WorkerSourceTask{id=")
                } else {
                    (
                        "org.apache.kafka.connect.runtime.WorkerSinkTask",
                        "WorkerSinkTask{id=",
                    )
                };
                let kind = if source {
                    "} Source task finished initialization and start"
                } else {
                    "} Sink task finished initialization and start"
                };
                self.emit(
                    w,
                    Lvl::Info,
                    M::Task(c, i),
                    Lg::Custom(tl),
                    Site::TaskInit,
                    |l, n| {
                        l.s(cls);
                        l.s(name(n, c));
                        l.s("-");
                        l.num(i64::from(i));
                        l.s(kind);
                    },
                );
            }
        }
        self.lost_reported_clear(w, r);
        self.cross_on_start(w, r, line);
        line
    }

    fn lost_reported_clear(&mut self, w: usize, r: Res) {
        self.workers[w].lost_reported.remove(&r);
    }

    // ---------------------------------------------------------------- cross-worker oracle

    /// A duplicate of `r` on `w` and another worker of the same generation,
    /// not reported yet for this pair of instances: (other worker, pair key).
    fn new_duplicate(&self, w: usize, r: Res) -> Option<(usize, Episode)> {
        let g = self.workers[w].cur_gen;
        let mine = self.workers[w].running.get(&r)?.start_line;
        if g < 0 {
            return None;
        }
        (0..self.workers.len()).find_map(|v| {
            let theirs = self.workers[v].running.get(&r)?.start_line;
            if v == w || self.workers[v].cur_gen != g || !self.shows_running(v) {
                return None;
            }
            let (a, b) = if w < v {
                ((w, mine), (v, theirs))
            } else {
                ((v, theirs), (w, mine))
            };
            let key = (r, a, b);
            (!self.episodes.contains(&key)).then_some((v, key))
        })
    }

    /// A start of `r` on `w`: a second live instance in the same generation
    /// is provable here.
    fn cross_on_start(&mut self, w: usize, r: Res, line: u64) {
        if let Some((v, key)) = self.new_duplicate(w, r) {
            let g = self.workers[w].cur_gen;
            let why = format!("also running on {} in generation {g}", self.workers[v].host);
            self.expect(w, line, "zombie", Some(r), Scope::Cluster, why);
            self.episodes.insert(key);
        }
    }

    /// An assignment line of generation `g` on `w`: duplicates with workers
    /// already in `g` become provable here; and two claims of one resource.
    pub fn cross_on_assignment(&mut self, w: usize, line: u64) {
        let g = self.workers[w].cur_gen;
        let mine: Vec<Res> = self.workers[w].running.keys().copied().collect();
        for r in mine {
            if let Some((v, key)) = self.new_duplicate(w, r) {
                let why = format!("also running on {} in generation {g}", self.workers[v].host);
                self.expect(w, line, "zombie", Some(r), Scope::Cluster, why);
                self.episodes.insert(key);
            }
        }
        let claimed: Vec<Res> = self.workers[w]
            .last_received
            .as_ref()
            .map(|a| a.resources())
            .unwrap_or_default();
        for r in claimed {
            let other = (0..self.workers.len()).find(|&v| {
                v != w
                    && self.workers[v].cur_gen == g
                    && self.workers[v]
                        .last_received
                        .as_ref()
                        .is_some_and(|a| a.holds(r))
            });
            if let Some(v) = other {
                let why = format!(
                    "also assigned to {} in generation {g}",
                    self.workers[v].host
                );
                self.expect(
                    w,
                    line,
                    "conflicting-assignment",
                    Some(r),
                    Scope::Cluster,
                    why,
                );
            }
        }
    }

    /// Does `v`'s log still show its instances? A crashed worker's log just
    /// ends: the instances it shows running stay so until it restarts
    /// (which clears them); a graceful shutdown logs their stops.
    fn shows_running(&self, v: usize) -> bool {
        self.workers.get(v).is_some()
    }
}

/// The name of connector `c` in a names table.
/// The body of a line that is `before`, connector `c`'s name, `after`.
fn about(
    before: &'static str,
    c: u16,
    after: &'static str,
) -> impl FnOnce(&mut WorkerLog, &[String]) {
    move |l, n| {
        l.s(before);
        l.s(name(n, c));
        l.s(after);
    }
}

pub(super) fn name(names: &[String], c: u16) -> &str {
    names.get(usize::from(c)).map_or("?", String::as_str)
}

pub(super) fn put_res(l: &mut WorkerLog, names: &[String], r: Res) {
    match r {
        Res::Conn(c) => l.s(name(names, c)),
        Res::Task(c, i) => {
            l.s(name(names, c));
            l.s("-");
            l.num(i64::from(i));
        }
    }
}

pub(super) fn put_list(l: &mut WorkerLog, names: &[String], items: &[Res]) {
    l.s("[");
    for (k, r) in items.iter().enumerate() {
        if k > 0 {
            l.s(", ");
        }
        put_res(l, names, *r);
    }
    l.s("]");
}

/// `Assignment{…}` as `ConnectProtocol.Assignment` (V0) or `ExtendedAssignment` prints it.
pub(super) fn put_assign(l: &mut WorkerLog, names: &[String], a: &Assign, v0: bool) {
    l.s("Assignment{error=");
    l.num(i64::from(a.error));
    l.s(", leader='");
    l.s(&a.leader);
    l.s("', leaderUrl='");
    l.s(&a.leader_url);
    l.s("', offset=");
    l.num(a.offset);
    l.s(", connectorIds=");
    let conns: Vec<Res> = a.conns.iter().map(|&c| Res::Conn(c)).collect();
    put_list(l, names, &conns);
    l.s(", taskIds=");
    let tasks: Vec<Res> = a.tasks.iter().map(|&(c, i)| Res::Task(c, i)).collect();
    put_list(l, names, &tasks);
    if !v0 {
        l.s(", revokedConnectorIds=");
        let rc: Vec<Res> = a.rconns.iter().map(|&c| Res::Conn(c)).collect();
        put_list(l, names, &rc);
        l.s(", revokedTaskIds=");
        let rt: Vec<Res> = a.rtasks.iter().map(|&(c, i)| Res::Task(c, i)).collect();
        put_list(l, names, &rt);
        l.s(", delay=");
        l.num(a.delay);
    }
    l.s("}");
}

fn plugin_version(v: &'static str, kafka: Version) -> &'static str {
    if v.is_empty() { kafka.kafka_build() } else { v }
}

/// Adds a connector to the tables; returns its index.
pub(super) fn new_connector(cl: &mut Cluster, tasks: u16) -> u16 {
    let n = cl.names.len();
    let (name, ty) = connector_name(n);
    cl.names.push(name);
    cl.types.push(ty);
    cl.conns.push(Connector {
        exists: true,
        tasks: 0,
        next_tasks: tasks,
        stale: true,
        target: Target::Started,
        created_at: cl.log.len(),
        reconfigured: false,
    });
    n as u16
}

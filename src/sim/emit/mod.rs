//! Emission: how the model's actions read in the workers' logs. One
//! [`WorkerLog`] per worker, the printed clock they share, the noise records
//! between lifecycle records, and (in `lines.rs` and `startup.rs`) the lines
//! each action prints in the chosen Kafka version's wording and layout.
//!
//! The model decides what happens and in which order; it calls one
//! [`Say`] method per step (`Starting task …`, the Worker's creation lines,
//! …) with the facts the lines name. Nothing here changes the model, and
//! nothing here draws from the model's random stream: the printed clock's
//! jitter and the noise have streams of their own, so that the amount of
//! noise never changes what happens.

mod lifecycle;
mod lines;
pub(super) mod noise;
pub(super) mod out;
pub(super) mod startup;
mod wording;

use super::data::{Assign, Res};
use super::rng::Rng;
use super::version::{Site, Version};
use noise::{Noise, NoiseCtx};
use out::{Clock, Layout, Lvl, Mdc, Rotation, Segment, Th, WorkerLog};
use std::io::{self, Write};
pub(super) use wording::{Arg, Ln};
use wording::{Ctx, Kind, Row};

/// The MDC a record carries (`%X{connector.context}`): none, a connector's
/// worker thread, or a task's thread.
#[derive(Debug, Clone, Copy)]
pub(super) enum M {
    None,
    Worker(u16),
    Task(u16, u16),
}

/// The logger (class) of a record.
#[derive(Debug, Clone, Copy)]
pub(super) enum Lg {
    Herder,
    /// The herder's statements from the coordinator's heartbeat thread
    /// (its poll-timeout warning, 3.8+).
    HerderHeartbeat,
    /// AbstractCoordinator's statements: under AbstractCoordinator up to
    /// 2.8, under WorkerCoordinator (the subclass) from 3.0.
    Coord,
    /// WorkerCoordinator's own statements (`Rebalance started`, …).
    WCoord,
    /// The coordinator's statements from its heartbeat thread.
    CoordHeartbeat,
    Worker,
    WConn,
    Connect,
    Kcbs,
    KbLog,
    Rest,
    Custom(&'static str),
}

/// Every worker's log, the printed clock and the noise.
pub(super) struct Emitter {
    v: Version,
    /// Each line's template in this release (`wording.rs`).
    rows: Vec<Option<&'static Row>>,
    layout: Layout,
    group: String,
    cluster_id: String,
    /// The printed clock: follows the model's logical time and moves forward
    /// with every record.
    pub clock: Clock,
    jit: Rng,
    noise: Noise,
    logs: Vec<WorkerLog>,
    record_lifecycle: bool,
    /// Per worker: the line numbers of its lifecycle records (when recorded).
    lifecycle: Vec<Vec<u64>>,
    /// The next record states no lifecycle fact (not recorded).
    plain: bool,
    /// Continuation lines (a stack trace) the next record carries.
    trace: Vec<String>,
}

/// What one worker's log holds once written.
pub(super) struct Written {
    pub lines: u64,
    pub bytes: u64,
    /// The line numbers of its lifecycle records (when recorded).
    pub lifecycle: Vec<u64>,
    pub segments: Vec<Segment>,
}

/// The setting every worker's log shares.
pub(super) struct Setup<'a> {
    pub version: Version,
    pub layout: Layout,
    /// Each worker's herder client id.
    pub client_ids: &'a [&'a str],
    pub group: &'a str,
    /// The Kafka cluster's id (`Kafka cluster ID: …`).
    pub cluster_id: &'a str,
    /// First instant of the printed clock (epoch ms).
    pub start_ms: i64,
    pub noise: (Rng, f64),
    pub jitter: Rng,
    pub record_lifecycle: bool,
}

impl Emitter {
    pub fn new(s: Setup, outs: Vec<Box<dyn Write>>) -> Emitter {
        let logs: Vec<WorkerLog> = outs
            .into_iter()
            .enumerate()
            .map(|(w, out)| {
                let client_id = s.client_ids.get(w).copied().unwrap_or("connect-1");
                WorkerLog::new(out, s.layout, s.version, client_id, s.group)
            })
            .collect();
        Emitter {
            v: s.version,
            rows: wording::rows_for(s.version),
            layout: s.layout,
            group: s.group.to_string(),
            cluster_id: s.cluster_id.to_string(),
            clock: Clock::new(s.start_ms),
            jit: s.jitter,
            noise: Noise::new(s.noise.0, s.noise.1),
            lifecycle: vec![Vec::new(); logs.len()],
            logs,
            record_lifecycle: s.record_lifecycle,
            plain: false,
            trace: Vec::new(),
        }
    }

    /// The number the next line of worker `w`'s log will have.
    pub fn next_line(&self, w: usize) -> u64 {
        self.logs.get(w).map_or(0, WorkerLog::next_line)
    }

    /// Rotates worker `w`'s log by size from now on.
    pub fn rotate(&mut self, w: usize, rot: Rotation) -> io::Result<()> {
        match self.logs.get_mut(w) {
            Some(log) => log.rotate_by_size(rot),
            None => Ok(()),
        }
    }

    /// Writes every log out: what each worker's log holds, or the first
    /// write error.
    /// The time stamp of worker `w`'s last record (epoch ms; `i64::MIN`
    /// before its first).
    pub fn last_ms(&self, w: usize) -> i64 {
        self.logs.get(w).map_or(i64::MIN, |l| l.last_ms)
    }

    pub fn finish(&mut self) -> io::Result<Vec<Written>> {
        let mut err = None;
        let mut out = Vec::with_capacity(self.logs.len());
        for (log, lc) in self.logs.iter_mut().zip(&mut self.lifecycle) {
            if let Err(e) = log.finish() {
                err.get_or_insert(e);
            }
            out.push(Written {
                lines: log.lines(),
                bytes: log.bytes(),
                lifecycle: std::mem::take(lc),
                segments: log.segments(),
            });
        }
        match err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Idle noise on the workers `live` (each with its running tasks, for
    /// what the noise may mention) until logical time `t`.
    pub fn idle_until(
        &mut self,
        t: i64,
        live: &[(usize, &[(u16, u16)])],
        names: &[String],
        types: &[usize],
    ) {
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
                let (w, tasks) = live[self.noise.rng().index(live.len())];
                let cx = NoiseCtx {
                    version: self.v,
                    tasks,
                    names,
                    types,
                    debezium: self.layout == Layout::Debezium,
                    group: &self.group,
                    cluster_id: &self.cluster_id,
                };
                self.noise.one(&mut self.logs[w], &mut self.clock, &cx);
            }
        }
        self.clock.set_at_least(t);
    }
}

/// One worker's voice at one moment: the emitter and the model's tables the
/// lines may name (connector names and types, the worker's running tasks
/// for the noise that follows).
pub(super) struct Say<'a> {
    pub em: &'a mut Emitter,
    pub w: usize,
    /// The model's logical time: the printed clock is never behind it.
    pub lnow: i64,
    pub names: &'a [String],
    pub types: &'a [usize],
    pub tasks: &'a [(u16, u16)],
}

impl Say<'_> {
    /// The version whose wording is printed.
    fn v(&self) -> Version {
        self.em.v
    }

    /// Writes one record and the noise after it; returns its line number.
    pub fn emit(
        &mut self,
        lvl: Lvl,
        mdc: M,
        lg: Lg,
        site: Site,
        body: impl FnOnce(&mut WorkerLog, &[String]),
    ) -> u64 {
        let em = &mut *self.em;
        let ctx = match lg {
            Lg::Herder | Lg::HerderHeartbeat => em.v.herder_prefix(),
            Lg::Coord | Lg::WCoord | Lg::CoordHeartbeat => true,
            _ => false,
        };
        let th = match (lg, mdc) {
            (Lg::Worker | Lg::WConn, M::Task(..) | M::Worker(_)) => Th::Pool,
            (_, M::Task(..)) => Th::Task,
            (Lg::Connect | Lg::Rest, _) => Th::Main,
            (Lg::Kcbs | Lg::KbLog, _) => Th::ConfigLog,
            (Lg::CoordHeartbeat | Lg::HerderHeartbeat, _) => Th::Heartbeat,
            _ => Th::Herder,
        };
        let logger = wording::logger(em.v, lg);
        let l_no = em.v.line(site);
        let dt = em.jit.range(1, 3);
        em.clock.set_at_least(self.lnow);
        em.clock.advance(dt);
        let names = self.names;
        let Some(log) = em.logs.get_mut(self.w) else {
            return 0;
        };
        let mdc = match mdc {
            M::None => Mdc::None,
            M::Worker(c) => Mdc::Worker(name(names, c)),
            M::Task(c, i) => Mdc::Task(name(names, c), i),
        };
        let line = log.head(&mut em.clock, lvl, mdc, th);
        if ctx {
            log.ctx();
        }
        body(log, names);
        log.tail(logger, l_no);
        for frame in em.trace.drain(..) {
            log.cont(&frame);
        }
        if em.record_lifecycle && !std::mem::take(&mut em.plain) {
            em.lifecycle[self.w].push(line);
        }
        let cx = NoiseCtx {
            version: em.v,
            tasks: self.tasks,
            names,
            types: self.types,
            debezium: em.layout == Layout::Debezium,
            group: &em.group,
            cluster_id: &em.cluster_id,
        };
        em.noise.after(log, &mut em.clock, &cx);
        line
    }

    /// Like [`Say::emit`], for a record that states no lifecycle fact.
    pub fn emit_plain(
        &mut self,
        lvl: Lvl,
        mdc: M,
        lg: Lg,
        site: Site,
        body: impl FnOnce(&mut WorkerLog, &[String]),
    ) -> u64 {
        self.em.plain = true;
        let l = self.emit(lvl, mdc, lg, site, body);
        self.em.plain = false;
        l
    }

    /// Writes line `ln` as this release prints it (its row in the table
    /// of templates), its placeholders filled from `args`; its line number,
    /// or 0 when the release does not print it.
    pub fn line(&mut self, ln: Ln, args: &[Arg]) -> u64 {
        let Some(row) = self.em.rows[ln as usize] else {
            return 0;
        };
        let conn = args.iter().find_map(|a| match *a {
            Arg::Conn(c) | Arg::Task(c, _) => Some(c),
            _ => None,
        });
        let task = args.iter().find_map(|a| match *a {
            Arg::Task(c, i) => Some(M::Task(c, i)),
            _ => None,
        });
        let mdc = match row.ctx {
            Ctx::None => M::None,
            Ctx::Conn => conn.map_or(M::None, M::Worker),
            Ctx::Task => task.unwrap_or(M::None),
        };
        let body = |l: &mut WorkerLog, names: &[String]| wording::render(row.text, args, l, names);
        match row.kind {
            Kind::Fact => self.emit(row.lvl, mdc, row.lg, row.site, body),
            Kind::Plain => self.emit_plain(row.lvl, mdc, row.lg, row.site, body),
        }
    }
}

/// The name of connector `c` in a names table.
pub(super) fn name(names: &[String], c: u16) -> &str {
    names.get(usize::from(c)).map_or("?", String::as_str)
}

fn put_res(l: &mut WorkerLog, names: &[String], r: Res) {
    match r {
        Res::Conn(c) => l.s(name(names, c)),
        Res::Task(c, i) => {
            l.s(name(names, c));
            l.s("-");
            l.num(i64::from(i));
        }
    }
}

fn put_list(l: &mut WorkerLog, names: &[String], items: &[Res]) {
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
fn put_assign(l: &mut WorkerLog, names: &[String], a: &Assign, v0: bool) {
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

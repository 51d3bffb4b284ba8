//! The oracle: which findings what happened implies. It watches the model's
//! steps through hooks (a record read, a start, a stop, an assignment line,
//! the start phase) and keeps what the auditor can know from each worker's
//! log: the config facts with their lines, the config offset the log pins
//! down, the rebalance window's stop attempts, the lost work already
//! reported. Judgements follow the decision rules of the auditor's design
//! (docs/rules.md), so a correct cluster expects nothing and one injected
//! fault expects exactly what it implies, each on its trigger line.

use super::data::{Assign, Res, Why};
use super::truth::{Expected, Scope};
use std::collections::{BTreeMap, BTreeSet};

/// One instance of a resource: (worker, line of its start).
type Instance = (usize, u64);

/// A cross-worker duplicate: the resource and its two instances (ordered).
type Episode = (Res, Instance, Instance);

/// The auditor's per-connector config facts (line numbers).
#[derive(Debug, Clone, Default)]
struct Facts {
    updated: Option<u64>,
    single: Option<u64>,
    multi: Option<u64>,
    count_change: Option<u64>,
    target_change: Option<u64>,
    task_set: Option<BTreeSet<u16>>,
}

/// What the auditor can know from one worker's log.
#[derive(Debug, Clone, Default)]
struct View {
    /// The config offset the log pins down (docs/rules.md, offset checks).
    known: Option<i64>,
    /// The lists of the last successful assignment line.
    owned: Option<BTreeSet<Res>>,
    /// Between `Rebalance started` and the assignment line.
    in_window: bool,
    /// Stops attempted in that window.
    window_attempts: BTreeSet<Res>,
    lost_reported: BTreeSet<Res>,
    facts: BTreeMap<u16, Facts>,
    /// Instances (resource, start line) already reported as zombies.
    zombie_reported: BTreeSet<(Res, u64)>,
    /// The line where the worker left the group without revoking (poll
    /// timeout, or cut off from the brokers): its instances keep running
    /// in every later generation until it logs their stops.
    departed: Option<u64>,
    /// It departed cut off from the brokers (not on a poll timeout).
    cut_off: bool,
    /// Connectors whose removal the log showed (not created again since).
    removed: BTreeSet<u16>,
    /// Connectors created again after a removal, with no task-config line
    /// naming them since: their tasks have no configs of their own yet.
    recreated: BTreeSet<u16>,
    /// The last `Starting …` line's resource and time stamp (epoch ms).
    starting_ms: Option<(Res, i64)>,
}

/// What the oracle reads of the cluster at a step: each worker's state as
/// the model has it, the names, and the time stamps of the logs written so
/// far. The model provides it; the oracle knows nothing else of the model.
pub(super) trait World {
    /// The number of workers.
    fn workers(&self) -> usize;
    fn host(&self, w: usize) -> &str;
    /// The generation of worker `w`'s last assignment line (-1: none).
    fn generation(&self, w: usize) -> i32;
    /// The last assignment worker `w` received.
    fn last_received(&self, w: usize) -> Option<&Assign>;
    /// The line of the `Starting …` of `r`'s instance running on `w`.
    fn instance(&self, w: usize, r: Res) -> Option<u64>;
    /// What runs on `w`, in order.
    fn running(&self, w: usize) -> Vec<Res>;
    /// The lists of `w`'s last assignment.
    fn assigned(&self, w: usize) -> &BTreeSet<Res>;
    /// The last start of `r` on `w` failed (it stays FAILED).
    fn failed(&self, w: usize, r: Res) -> bool;
    /// Connector `c`'s name.
    fn name(&self, c: u16) -> &str;
    /// The time stamp of `w`'s last record (epoch ms).
    fn last_ms(&self, w: usize) -> i64;

    fn res(&self, r: Res) -> String {
        match r {
            Res::Conn(c) => self.name(c).to_string(),
            Res::Task(c, i) => format!("{}-{i}", self.name(c)),
        }
    }
}

/// A duplicate with a leaver's kept instance, not provable yet.
struct Deferred {
    leaver: usize,
    resource: Res,
    /// The pair of instances.
    key: Episode,
    /// The other worker's start (epoch ms).
    start_ms: i64,
    expected: Expected,
}

/// The auditor's margin for two hosts' clocks (`cluster::leavers::SKEW_MS`,
/// kept apart so that the simulator depends on none of the auditor): an
/// overlap shorter than it proves nothing.
const SKEW_MS: i64 = 100;

#[derive(Default)]
pub(super) struct Oracle {
    pub expected: Vec<Expected>,
    /// Duplicates with a worker that left without revoking, provable only
    /// once that worker's log goes on past the other start by more than the
    /// auditor's clock margin.
    deferred: Vec<Deferred>,
    /// Cross-worker duplicate episodes already reported.
    episodes: BTreeSet<Episode>,
    view: Vec<View>,
}

impl Oracle {
    pub fn new(workers: usize) -> Oracle {
        Oracle {
            view: vec![View::default(); workers],
            ..Oracle::default()
        }
    }

    /// A worker that left without revoking logs a lifecycle line at
    /// `now_ms`: the duplicates with its kept instances whose other start
    /// lies more than the clock margin before it are provable now (its log
    /// shows it still ran them after the other start).
    fn leaver_goes_on(&mut self, u: usize, now_ms: i64) {
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|d| d.leaver == u && now_ms > d.start_ms + SKEW_MS);
        self.deferred = later;
        self.expected.extend(now.into_iter().map(|d| d.expected));
    }

    /// The logs end: a leaver's last line past the margin proves what its
    /// log had not proved yet (`last_ms`: each worker's last record).
    pub fn finish(&mut self, last_ms: impl Fn(usize) -> i64) {
        for d in std::mem::take(&mut self.deferred) {
            if last_ms(d.leaver) > d.start_ms + SKEW_MS {
                self.expected.push(d.expected);
            }
        }
    }

    fn expect(
        &mut self,
        n: &dyn World,
        (w, line): (usize, u64),
        kind: &'static str,
        r: Option<Res>,
        scope: Scope,
        why: String,
    ) {
        let resource = r.map_or_else(|| "-".to_string(), |r| n.res(r));
        self.expected.push(Expected {
            cluster: None,
            file: super::worker_file(w),
            line,
            kind,
            resource,
            scope,
            generation: n.generation(w),
            why,
            worker: w,
        });
    }

    // ------------------------------------------------------------ the config the log shows

    /// The config offset worker `w`'s log pins down, if any.
    pub fn known(&self, w: usize) -> Option<i64> {
        self.view[w].known
    }

    /// The log now pins the config offset down at `offset`.
    pub fn config_known(&mut self, w: usize, offset: i64) {
        self.view[w].known = Some(offset);
    }

    /// A config record the log shows (so the offset is no longer pinned down).
    pub fn record_read(&mut self, w: usize) {
        self.view[w].known = None;
    }

    pub fn connector_updated(&mut self, w: usize, c: u16, line: u64) {
        let v = &mut self.view[w];
        v.known = None;
        v.facts.entry(c).or_default().updated = Some(line);
        if v.removed.remove(&c) {
            v.recreated.insert(c);
        }
    }

    /// Has worker `w`'s log shown the removal of `c` (since it started)?
    pub fn shows_removal(&self, w: usize, c: u16) -> bool {
        self.view[w].removed.contains(&c)
    }

    /// `Connector X config removed`.
    pub fn connector_removed(&mut self, w: usize, c: u16) {
        let v = &mut self.view[w];
        v.known = None;
        v.recreated.remove(&c);
        v.removed.insert(c);
    }

    pub fn target_changed(&mut self, w: usize, c: u16, line: u64) {
        let v = &mut self.view[w];
        v.known = None;
        v.facts.entry(c).or_default().target_change = Some(line);
    }

    /// `Tasks [..] configs updated` naming `listed`.
    pub fn tasks_updated(&mut self, w: usize, listed: &[(u16, u16)], line: u64) {
        let mut by_conn: BTreeMap<u16, BTreeSet<u16>> = BTreeMap::new();
        for &(c, i) in listed {
            by_conn.entry(c).or_default().insert(i);
        }
        let multi = by_conn.len() > 1;
        let v = &mut self.view[w];
        v.known = None;
        for (c, set) in by_conn {
            v.recreated.remove(&c);
            let f = v.facts.entry(c).or_default();
            if multi {
                f.multi = Some(line);
            } else {
                f.single = Some(line);
            }
            if f.task_set.as_ref().is_some_and(|old| *old != set) {
                f.count_change = Some(line);
            }
            f.task_set = Some(set);
        }
    }

    // ------------------------------------------------------------ worker processes

    /// A worker process starts: its log shows a fresh worker.
    pub fn worker_started(&mut self, w: usize) {
        // Kept instances died at an unknown moment before this restart:
        // their duplicates are not provable.
        self.deferred.retain(|d| d.leaver != w);
        let v = &mut self.view[w];
        v.owned = None;
        v.known = None;
        v.in_window = false;
        v.lost_reported.clear();
        v.departed = None;
        v.removed.clear();
        v.recreated.clear();
    }

    /// The worker left the group without revoking (line `line`): a poll
    /// timeout, or (2.7+) its session timed out while cut off from the
    /// brokers, until it revokes its own work.
    pub fn departed(&mut self, w: usize, line: u64, cut_off: bool) {
        self.view[w].departed = Some(line);
        self.view[w].cut_off = cut_off;
    }

    // ------------------------------------------------------------ stops

    /// A stop attempt (logged, whether or not the resource runs).
    pub fn stop_attempt(&mut self, w: usize, r: Res) {
        let v = &mut self.view[w];
        if v.in_window {
            v.window_attempts.insert(r);
        }
    }

    /// The judgement of a real stop of the instance started on `start`.
    pub fn stopped(&mut self, n: &dyn World, w: usize, r: Res, line: u64, why: Why, start: u64) {
        self.leaver_goes_on(w, n.last_ms(w));
        // The leaver stopped it within the margin of the other start:
        // nothing is provable.
        self.deferred.retain(|d| d.leaver != w || d.resource != r);
        match why {
            Why::Spurious => self.expect(
                n,
                (w, line),
                "unnecessary-stop",
                Some(r),
                Scope::Worker,
                "stopped during a cooperative rebalance although retained and not revoked".into(),
            ),
            Why::TaskConfig => {
                if let Some(reason) = self.task_config_verdict(n, w, r, start) {
                    self.expect(
                        n,
                        (w, line),
                        "unnecessary-stop",
                        Some(r),
                        Scope::Worker,
                        reason,
                    );
                }
            }
            Why::ConnectorConfig => {
                let updated = self.view[w].facts.get(&r.conn()).and_then(|f| f.updated);
                let changed = updated.is_some_and(|u| u > start);
                if !changed {
                    self.expect(
                        n,
                        (w, line),
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

    /// The config-freshness rule for a task-config stop; `Some(reason)`
    /// when the stop is unnecessary.
    fn task_config_verdict(&self, n: &dyn World, w: usize, r: Res, s: u64) -> Option<String> {
        let Some(f) = self.view[w].facts.get(&r.conn()) else {
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
            let cname = n.name(r.conn());
            return Some(format!(
                "KAFKA-8676: the only task-config claim naming {cname} also names other connectors' tasks"
            ));
        }
        Some("no task-config change of its connector after the instance started".into())
    }

    // ------------------------------------------------------------ starts

    /// A `Starting …` line: a second instance on this worker, or work the
    /// worker does not own (`already`: an instance runs here).
    pub fn starting(&mut self, n: &dyn World, w: usize, r: Res, line: u64, already: bool) {
        self.view[w].starting_ms = Some((r, n.last_ms(w)));
        if already {
            self.expect(
                n,
                (w, line),
                "double-start",
                Some(r),
                Scope::Worker,
                "started while an instance already runs on this worker".into(),
            );
        }
        let last = n.last_received(w);
        let foreign = last.is_some_and(|a| a.revokes(r))
            || self.view[w].owned.as_ref().is_some_and(|o| !o.contains(&r));
        if foreign {
            self.expect(
                n,
                (w, line),
                "foreign-start",
                Some(r),
                Scope::Worker,
                "started although not in this worker's assignment".into(),
            );
        }
    }

    /// A start that left an instance running on `w` (started on `line`).
    pub fn started(&mut self, n: &dyn World, w: usize, r: Res, line: u64) {
        self.leaver_goes_on(w, n.last_ms(w));
        self.view[w].lost_reported.remove(&r);
        if let Res::Task(c, _) = r
            && self.view[w].recreated.contains(&c)
        {
            self.expect(
                n,
                (w, line),
                "stale-config-start",
                Some(r),
                Scope::Worker,
                "started after its connector was removed and created again, before any task config of the new connector".into(),
            );
        }
        if let Some((v, key)) = self.new_duplicate(n, w, r) {
            self.deferred.retain(|d| d.key != key);
            let g = n.generation(w);
            let why = format!("also running on {} in generation {g}", n.host(v));
            self.expect(n, (w, line), "zombie", Some(r), Scope::Cluster, why);
            self.episodes.insert(key);
        }
        // Instances of workers that left without revoking run on, whatever
        // the generation.
        let mine = (w, line);
        let start_ms = match self.view[w].starting_ms {
            Some((s, ms)) if s == r => ms,
            _ => n.last_ms(w),
        };
        for u in 0..n.workers() {
            let Some(left) = self.view[u].departed else {
                continue;
            };
            let Some(theirs) = n.instance(u, r).map(|start| (u, start)) else {
                continue;
            };
            if u == w || theirs.1 > left {
                continue;
            }
            let key = if u < w {
                (r, theirs, mine)
            } else {
                (r, mine, theirs)
            };
            if self.episodes.insert(key) {
                let how = if self.view[u].cut_off {
                    "was cut off from the brokers"
                } else {
                    "left the group without revoking"
                };
                let why = format!("{} {how} (line {left}) and still runs it", n.host(u));
                self.expect(n, (w, line), "zombie", Some(r), Scope::Cluster, why);
                // Provable once the leaver's log goes on (not if it
                // restarts or its log ends first).
                if let Some(expected) = self.expected.pop() {
                    self.deferred.push(Deferred {
                        leaver: u,
                        resource: r,
                        key,
                        start_ms,
                        expected,
                    });
                }
            }
        }
    }

    /// A start that failed: no instance; a new episode of lost work.
    pub fn start_failed(&mut self, w: usize, r: Res) {
        self.view[w].lost_reported.remove(&r);
    }

    // ------------------------------------------------------------ rebalances

    /// A rebalance begins: the window of stops for revoked work opens.
    pub fn rebalance_begins(&mut self, w: usize) {
        let v = &mut self.view[w];
        v.window_attempts.clear();
        v.in_window = true;
    }

    /// The assignment line `line` of `w` (the model has taken it in):
    /// revoked work still running with no stop in this rebalance, and the
    /// duplicates and double claims it makes provable across workers.
    pub fn assignment(&mut self, n: &dyn World, w: usize, line: u64, revoked: &[Res], coop: bool) {
        self.leaver_goes_on(w, n.last_ms(w));
        {
            let v = &mut self.view[w];
            v.in_window = false;
            v.owned = Some(n.assigned(w).clone());
        }
        if coop {
            for r in revoked {
                let Some(start) = n.instance(w, *r) else {
                    continue;
                };
                let key = (*r, start);
                let v = &self.view[w];
                if !v.zombie_reported.contains(&key) && !v.window_attempts.contains(r) {
                    self.view[w].zombie_reported.insert(key);
                    self.expect(
                        n,
                        (w, line),
                        "zombie",
                        Some(*r),
                        Scope::Worker,
                        "revoked but never stopped".into(),
                    );
                }
            }
        }
        self.cross_on_assignment(n, w, line);
    }

    /// `Starting connectors and tasks using config offset O`: a config
    /// snapshot the log pins down and that differs.
    pub fn start_phase(&mut self, n: &dyn World, w: usize, line: u64, o: i64) {
        if let Some(k) = self.view[w].known
            && k != o
        {
            self.expect(
                n,
                (w, line),
                "offset-mismatch-start",
                None,
                Scope::Worker,
                format!("started with config offset {o} while the log shows the snapshot at {k}"),
            );
        }
    }

    /// `Finished starting connectors and tasks` (`fin`): assigned, not
    /// revoked, not running, not started is lost (not one whose last start
    /// failed: Kafka does not retry it, it stays FAILED).
    pub fn start_phase_done(
        &mut self,
        n: &dyn World,
        w: usize,
        fin: u64,
        a: &Assign,
        started: &BTreeSet<Res>,
    ) {
        for r in a.resources() {
            if started.contains(&r)
                || n.instance(w, r).is_some()
                || n.failed(w, r)
                || self.view[w].lost_reported.contains(&r)
            {
                continue;
            }
            self.view[w].lost_reported.insert(r);
            self.expect(
                n,
                (w, fin),
                "lost-assignment",
                Some(r),
                Scope::Worker,
                "assigned, not running, and not started by the rebalance".into(),
            );
        }
        self.view[w].lost_reported.retain(|r| a.holds(*r));
    }

    // ------------------------------------------------------------ across workers

    /// A duplicate of `r` on `w` and another worker of the same generation,
    /// not reported yet for this pair of instances: (other worker, pair key).
    fn new_duplicate(&self, n: &dyn World, w: usize, r: Res) -> Option<(usize, Episode)> {
        let g = n.generation(w);
        let mine = n.instance(w, r)?;
        if g < 0 {
            return None;
        }
        (0..n.workers()).find_map(|v| {
            let theirs = n.instance(v, r)?;
            if v == w || n.generation(v) != g || !shows_running(n, v) {
                return None;
            }
            let (a, b) = if w < v {
                ((w, mine), (v, theirs))
            } else {
                ((v, theirs), (w, mine))
            };
            let key = (r, a, b);
            // A duplicate only deferred (a leaver's, not provable by the
            // clocks yet) is proven here first.
            let open = !self.episodes.contains(&key) || self.deferred.iter().any(|d| d.key == key);
            open.then_some((v, key))
        })
    }

    /// An assignment line of generation `g` on `w`: duplicates with workers
    /// already in `g` become provable here; and two claims of one resource.
    fn cross_on_assignment(&mut self, n: &dyn World, w: usize, line: u64) {
        let g = n.generation(w);
        for r in n.running(w) {
            if let Some((v, key)) = self.new_duplicate(n, w, r) {
                self.deferred.retain(|d| d.key != key);
                let why = format!("also running on {} in generation {g}", n.host(v));
                self.expect(n, (w, line), "zombie", Some(r), Scope::Cluster, why);
                self.episodes.insert(key);
            }
        }
        let claimed: Vec<Res> = n
            .last_received(w)
            .map(|a| a.resources())
            .unwrap_or_default();
        for r in claimed {
            let other = (0..n.workers()).find(|&v| {
                v != w && n.generation(v) == g && n.last_received(v).is_some_and(|a| a.holds(r))
            });
            if let Some(v) = other {
                let why = format!("also assigned to {} in generation {g}", n.host(v));
                self.expect(
                    n,
                    (w, line),
                    "conflicting-assignment",
                    Some(r),
                    Scope::Cluster,
                    why,
                );
            }
        }
    }
}

/// Does `v`'s log still show its instances? A crashed worker's log just
/// ends: the instances it shows running stay so until it restarts (which
/// clears them); a graceful shutdown logs their stops.
fn shows_running(n: &dyn World, v: usize) -> bool {
    v < n.workers()
}

#[cfg(test)]
mod margin {
    #[test]
    fn the_oracle_uses_the_auditors_clock_margin() {
        assert_eq!(super::SKEW_MS, crate::cluster::leavers::SKEW_MS);
    }
}

//! The timeline of one worker, recorded by its replay when asked
//! ([`super::WorkerReplay::with_timeline`]): every connector and task
//! instance from its start to its end, the generations with their
//! assignment lines, revocations, config-offset changes, config records, and
//! the spans whose state the log does not show. The HTML report draws it;
//! the replay's decisions do not depend on it.
//!
//! Memory is bounded: a worker keeps at most [`MAX_ITEMS`] items; later
//! ones are counted in [`Timeline::dropped`] and the report says so.

use crate::event::Event;
use crate::model::{Assignment, Line, Name, Protocol, Resource, SourceId, Timestamp};
use crate::rules::StopReason;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// Items (instances, generations, marks, spans) one worker keeps at most.
pub const MAX_ITEMS: usize = 20_000;

/// A line of the worker's stream, without its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    pub source: SourceId,
    pub line: u64,
    /// Position in the worker's stream (orders stitched segments).
    pub seq: u64,
    /// The line's time stamp, or the latest one before it in the stream
    /// (continuation lines carry none).
    pub ts: Option<Timestamp>,
}

/// How an instance is known to have begun.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Begin {
    /// The herder's `Starting …` line.
    Started,
    /// Assigned and counted as running by the herder at the end of a start
    /// phase that did not start it: it ran from before; the start is not in
    /// the log.
    Held,
    /// First seen when it stopped: it ran from some time before, at the
    /// latest from the point recorded; the start is not in the log.
    Unseen,
}

impl Begin {
    pub fn as_str(self) -> &'static str {
        match self {
            Begin::Started => "started",
            Begin::Held => "held",
            Begin::Unseen => "unseen",
        }
    }
}

/// How an instance ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum End {
    /// Still running when the log ends (no end point).
    Running,
    /// Stopped; the justification once the replay has judged it.
    Stopped(Option<StopReason>),
    /// The start failed.
    StartFailed,
    /// The Worker refused the start: an instance already existed.
    Refused,
    /// Started again while running (a double start): replaced in the
    /// replay's state by the new instance.
    Replaced,
    /// The Worker said it owns no such instance (`Ignoring stop request …`),
    /// or an eager rebalance showed that it was not running.
    NotRunning,
    /// The worker restarted: everything it ran is gone.
    WorkerRestart,
}

impl End {
    pub fn as_str(self) -> &'static str {
        match self {
            End::Running => "running",
            End::Stopped(_) => "stopped",
            End::StartFailed => "start-failed",
            End::Refused => "refused",
            End::Replaced => "replaced",
            End::NotRunning => "not-running",
            End::WorkerRestart => "worker-restart",
        }
    }
}

/// One connector or task instance on this worker.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Instance {
    pub resource: Resource,
    pub begin: Begin,
    pub start: Point,
    /// `None`: still running at the end of the log.
    pub end: Option<Point>,
    pub how: End,
    /// The start was reported failed but the task stays registered with
    /// the Worker (`Task failed initialization and will not be started`).
    pub failed_registered: bool,
}

/// One assignment line.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GenerationMark {
    pub generation: Option<i32>,
    pub at: Point,
    pub protocol: Option<Protocol>,
    pub offset: i64,
    pub error: i32,
    pub leader: Arc<str>,
    pub assigned: u32,
    pub revoked: Vec<Resource>,
}

/// Where a config offset was learnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OffsetSource {
    /// The assignment's offset differs from the previous assignment's.
    Assignment,
    /// The worker read the config topic to a new offset.
    Read,
    /// The worker found its snapshot behind the assignment.
    Behind,
    /// The worker found its snapshot mismatched and forced a rebalance.
    Mismatch,
    /// The start phase used this offset.
    StartPhase,
}

impl OffsetSource {
    pub fn as_str(self) -> &'static str {
        match self {
            OffsetSource::Assignment => "assignment",
            OffsetSource::Read => "read",
            OffsetSource::Behind => "behind",
            OffsetSource::Mismatch => "mismatch",
            OffsetSource::StartPhase => "start-phase",
        }
    }
}

/// A config offset change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OffsetMark {
    pub at: Point,
    pub offset: i64,
    pub source: OffsetSource,
}

/// A config-topic record the worker logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ConfigRecord {
    ConnectorUpdated,
    ConnectorRemoved,
    TargetState,
    TaskConfigs,
    SessionKey,
    RestartRequest,
}

impl ConfigRecord {
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigRecord::ConnectorUpdated => "connector-config-updated",
            ConfigRecord::ConnectorRemoved => "connector-config-removed",
            ConfigRecord::TargetState => "target-state-change",
            ConfigRecord::TaskConfigs => "task-configs-updated",
            ConfigRecord::SessionKey => "session-key-updated",
            ConfigRecord::RestartRequest => "restart-requested",
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ConfigMark {
    pub at: Point,
    pub record: ConfigRecord,
    /// The connectors the record names (several for a task-config claim).
    pub connectors: Vec<Name>,
}

/// A span whose state the log does not show.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UnknownSpan {
    pub from: Point,
    pub to: Point,
    pub why: String,
}

impl Timeline {
    /// Every line the timeline points at, to rewrite their source ids
    /// (`herder-audit reduce` ties files together).
    pub fn points_mut(&mut self) -> impl Iterator<Item = &mut Point> {
        self.first
            .iter_mut()
            .chain(self.last.iter_mut())
            .chain(
                self.instances
                    .iter_mut()
                    .flat_map(|i| std::iter::once(&mut i.start).chain(i.end.iter_mut())),
            )
            .chain(self.generations.iter_mut().map(|g| &mut g.at))
            .chain(self.offsets.iter_mut().map(|o| &mut o.at))
            .chain(self.configs.iter_mut().map(|c| &mut c.at))
            .chain(
                self.unknown
                    .iter_mut()
                    .flat_map(|u| [&mut u.from, &mut u.to]),
            )
            .chain(self.known_from.iter_mut())
            .chain(self.truncated.iter_mut())
    }
}

/// Everything recorded for one worker.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Timeline {
    /// First and last lifecycle lines of the worker's stream.
    pub first: Option<Point>,
    pub last: Option<Point>,
    /// In order of their start lines.
    pub instances: Vec<Instance>,
    pub generations: Vec<GenerationMark>,
    pub offsets: Vec<OffsetMark>,
    pub configs: Vec<ConfigMark>,
    pub unknown: Vec<UnknownSpan>,
    /// Lines from which the whole running set is known (the worker's start
    /// in the log, or an eager rebalance): before the first of them, work
    /// the log never mentions may have been running.
    pub known_from: Vec<Point>,
    /// Items left out past [`MAX_ITEMS`].
    pub dropped: u64,
    /// The line of the first item left out: from there on the timeline is
    /// incomplete.
    pub truncated: Option<Point>,
}

/// Builds a [`Timeline`] from the replay's hooks.
#[derive(Debug, Default)]
pub struct Recorder {
    tl: Timeline,
    items: usize,
    last_ts: Option<Timestamp>,
    /// The open instance of each resource (index into `instances`).
    open: HashMap<Resource, usize>,
    /// Where each resource was last known not to run.
    known_stopped: HashMap<Resource, Point>,
    /// Stopped instances whose justification is still to come.
    awaiting: Vec<usize>,
    /// The instance a double start replaced, per resource, until the
    /// Worker accepts or refuses the new one.
    replaced: HashMap<Resource, usize>,
    /// Since the incarnation began (or the log's first line).
    incarnation: Option<Point>,
    last_offset: Option<i64>,
    leader: Option<Arc<str>>,
}

impl Recorder {
    #[cfg(test)]
    pub fn new() -> Recorder {
        Recorder::default()
    }

    fn point(&self, l: &Line) -> Point {
        Point {
            source: l.source,
            line: l.line,
            seq: l.seq,
            ts: l.ts.or(self.last_ts),
        }
    }

    /// Room for one more item at `at`?
    fn room(&mut self, at: Point) -> bool {
        if self.items >= MAX_ITEMS {
            self.tl.dropped += 1;
            self.tl.truncated.get_or_insert(at);
            return false;
        }
        self.items += 1;
        true
    }

    /// Every event's line, before the replay applies it.
    pub fn event(&mut self, ev: &Event, line: &Line) {
        if line.ts.is_some() {
            self.last_ts = line.ts;
        }
        let p = self.point(line);
        if self.tl.first.is_none() {
            self.tl.first = Some(p);
            self.incarnation = Some(p);
        }
        self.tl.last = Some(p);
        let config = |record, connectors: Vec<Name>| Some((record, connectors));
        let rec = match ev {
            Event::ConfigBehind { current, .. } => {
                self.offset(p, *current, OffsetSource::Behind);
                None
            }
            Event::ConfigMismatch { current, .. } => {
                self.offset(p, *current, OffsetSource::Mismatch);
                None
            }
            Event::ReadingToEnd { current } => {
                self.offset(p, *current, OffsetSource::Read);
                None
            }
            Event::FinishedReadingToEnd { offset } => {
                self.offset(p, *offset, OffsetSource::Read);
                None
            }
            Event::StartingWork { offset } => {
                self.offset(p, *offset, OffsetSource::StartPhase);
                None
            }
            Event::IgnoringStop(r) => {
                self.close(r, p, End::NotRunning);
                None
            }
            Event::ConnectorConfigUpdated(c) => {
                config(ConfigRecord::ConnectorUpdated, vec![c.clone()])
            }
            Event::ConnectorConfigRemoved(c) => {
                config(ConfigRecord::ConnectorRemoved, vec![c.clone()])
            }
            Event::TargetStateChange(c) => config(ConfigRecord::TargetState, vec![c.clone()]),
            Event::TaskConfigsUpdated(tasks) => {
                let mut cs: Vec<Name> = tasks.iter().map(|t| t.connector.clone()).collect();
                cs.sort();
                cs.dedup();
                config(ConfigRecord::TaskConfigs, cs)
            }
            Event::SessionKeyUpdated => config(ConfigRecord::SessionKey, Vec::new()),
            Event::RestartRequested { connector, .. } => {
                config(ConfigRecord::RestartRequest, vec![connector.clone()])
            }
            _ => None,
        };
        if let Some((record, connectors)) = rec
            && self.room(p)
        {
            self.tl.configs.push(ConfigMark {
                at: p,
                record,
                connectors,
            });
        }
    }

    fn offset(&mut self, at: Point, offset: i64, source: OffsetSource) {
        if self.last_offset == Some(offset) {
            return;
        }
        self.last_offset = Some(offset);
        if self.room(at) {
            self.tl.offsets.push(OffsetMark { at, offset, source });
        }
    }

    fn open(&mut self, r: &Resource, begin: Begin, start: Point) {
        if !self.room(start) {
            return;
        }
        self.tl.instances.push(Instance {
            resource: r.clone(),
            begin,
            start,
            end: None,
            how: End::Running,
            failed_registered: false,
        });
        self.open.insert(r.clone(), self.tl.instances.len() - 1);
    }

    /// Ends the open instance of `r`, if any; returns its index.
    fn close(&mut self, r: &Resource, at: Point, how: End) -> Option<usize> {
        self.known_stopped.insert(r.clone(), at);
        let i = self.open.remove(r)?;
        let inst = &mut self.tl.instances[i];
        inst.end = Some(at);
        inst.how = how;
        Some(i)
    }

    /// `Starting connector|task …`
    pub fn start(&mut self, r: &Resource, line: &Line) {
        let p = self.point(line);
        match self.close(r, p, End::Replaced) {
            Some(old) => {
                self.replaced.insert(r.clone(), old);
            }
            None => {
                self.replaced.remove(r);
            }
        }
        self.open(r, Begin::Started, p);
    }

    /// A failed start; `registered`: the task stays registered (FAILED).
    pub fn start_failed(&mut self, r: &Resource, line: &Line, registered: bool) {
        if registered {
            if let Some(&i) = self.open.get(r) {
                self.tl.instances[i].failed_registered = true;
            }
            return;
        }
        let p = self.point(line);
        if self.close(r, p, End::StartFailed).is_none() && self.room(p) {
            // A failed start with no start line: a zero-length instance.
            self.tl.instances.push(Instance {
                resource: r.clone(),
                begin: Begin::Started,
                start: p,
                end: Some(p),
                how: End::StartFailed,
                failed_registered: false,
            });
        }
    }

    /// The Worker refused the latest start: the instance it replaced runs on.
    pub fn refused(&mut self, r: &Resource, line: &Line) {
        let p = self.point(line);
        self.close(r, p, End::Refused);
        if let Some(old) = self.replaced.remove(r) {
            let inst = &mut self.tl.instances[old];
            inst.end = None;
            inst.how = End::Running;
            self.open.insert(r.clone(), old);
            self.known_stopped.remove(r);
        }
    }

    /// A real stop; its justification comes with [`Recorder::judged`].
    pub fn stop(&mut self, r: &Resource, line: &Line) {
        let p = self.point(line);
        self.replaced.remove(r);
        let i = match self.close(r, p, End::Stopped(None)) {
            Some(i) => Some(i),
            None => {
                // Running since before anything the log shows about it.
                let since = self
                    .known_stopped
                    .get(r)
                    .filter(|k| k.seq < p.seq)
                    .copied()
                    .or(self.incarnation)
                    .unwrap_or(p);
                self.open(r, Begin::Unseen, since);
                self.close(r, p, End::Stopped(None))
            }
        };
        if let Some(i) = i {
            self.awaiting.push(i);
        }
    }

    /// The replay judged the stop of `r` at `line`.
    pub fn judged(&mut self, r: &Resource, line: &Line, why: StopReason) {
        let found = self.awaiting.iter().position(|&i| {
            let inst = &self.tl.instances[i];
            inst.resource == *r && inst.end.is_some_and(|e| e.seq == line.seq)
        });
        if let Some(k) = found {
            let i = self.awaiting.swap_remove(k);
            self.tl.instances[i].how = End::Stopped(Some(why));
        }
    }

    /// Assigned resources the herder now counts as running from before.
    pub fn held(&mut self, resources: &[Resource], since: &Line) {
        let p = self.point(since);
        for r in resources {
            if !self.open.contains_key(r) {
                self.open(r, Begin::Held, p);
            }
        }
    }

    /// An assignment line.
    pub fn generation(
        &mut self,
        generation: Option<i32>,
        protocol: Option<Protocol>,
        a: &Assignment,
        line: &Line,
    ) {
        let p = self.point(line);
        if !a.failed() {
            self.offset(p, a.offset, OffsetSource::Assignment);
        }
        if !self.room(p) {
            return;
        }
        let leader = match &self.leader {
            Some(l) if **l == *a.leader => l.clone(),
            _ => {
                let l: Arc<str> = Arc::from(a.leader.as_str());
                self.leader = Some(l.clone());
                l
            }
        };
        let mut revoked: Vec<Resource> = a.revoked().collect();
        revoked.sort();
        self.tl.generations.push(GenerationMark {
            generation,
            at: p,
            protocol,
            offset: a.offset,
            error: a.error,
            leader,
            assigned: (a.connectors.len() + a.tasks.len()) as u32,
            revoked,
        });
    }

    /// The whole running set is known from `line` on: the worker started
    /// (everything it ran before is gone) or an eager rebalance stopped
    /// everything (`held`: instances the replay no longer counts).
    pub fn known_from(&mut self, line: &Line, restart: bool) {
        let p = self.point(line);
        let how = if restart {
            End::WorkerRestart
        } else {
            End::NotRunning
        };
        let mut open: Vec<(Resource, usize)> = self.open.drain().collect();
        open.sort_by_key(|(_, i)| *i);
        for (r, i) in open {
            let inst = &self.tl.instances[i];
            if restart || inst.begin == Begin::Held {
                let inst = &mut self.tl.instances[i];
                inst.end = Some(p);
                inst.how = how;
                self.known_stopped.insert(r, p);
            } else {
                self.open.insert(r, i);
            }
        }
        if restart {
            self.incarnation = Some(p);
            self.replaced.clear();
        }
        // One point per incarnation: the first from which all is known.
        let since = self.incarnation.map_or(0, |i| i.seq);
        if self.tl.known_from.last().is_none_or(|k| k.seq < since) && self.room(p) {
            self.tl.known_from.push(p);
        }
    }

    /// The log does not show the state between two lines (`from: None`:
    /// since the incarnation began).
    pub fn unknown(&mut self, from: Option<&Line>, to: &Line, why: String) {
        let to = self.point(to);
        let from = from
            .map(|l| self.point(l))
            .or(self.incarnation)
            .unwrap_or(to);
        if self.room(to) {
            self.tl.unknown.push(UnknownSpan { from, to, why });
        }
    }

    /// The log ends: what still runs stays open.
    pub fn finish(mut self) -> Timeline {
        // Stops never judged keep `Stopped(None)`.
        self.awaiting.clear();
        self.tl
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TaskId;

    fn line(n: u64, ts: Option<i64>) -> Line<'static> {
        Line::new(SourceId(0), n, n, ts.map(Timestamp), "", (0, 0))
    }

    fn task(i: u32) -> Resource {
        Resource::Task(TaskId::new("c", i))
    }

    #[test]
    fn start_stop_and_judgement() {
        let mut r = Recorder::new();
        r.event(&Event::FinishedStartingWork, &line(1, Some(1000)));
        // The replay shows the recorder every line before acting on it.
        r.event(&Event::Starting(task(0)), &line(2, Some(2000)));
        r.start(&task(0), &line(2, Some(2000)));
        r.event(&Event::Stopping(task(0)), &line(3, None));
        r.stop(&task(0), &line(3, None));
        r.judged(&task(0), &line(3, None), StopReason::Revoked);
        let tl = r.finish();
        assert_eq!(tl.instances.len(), 1);
        let i = &tl.instances[0];
        assert_eq!(i.begin, Begin::Started);
        assert_eq!(i.how, End::Stopped(Some(StopReason::Revoked)));
        // A line without a time stamp takes the latest one before it.
        assert_eq!(i.end.unwrap().ts, Some(Timestamp(2000)));
    }

    #[test]
    fn a_stop_without_a_start_ran_since_the_log_began() {
        let mut r = Recorder::new();
        r.event(&Event::FinishedStartingWork, &line(1, Some(1000)));
        r.stop(&task(1), &line(5, Some(5000)));
        let tl = r.finish();
        assert_eq!(tl.instances[0].begin, Begin::Unseen);
        assert_eq!(tl.instances[0].start.line, 1);
        assert_eq!(tl.instances[0].how, End::Stopped(None));
    }

    #[test]
    fn refused_double_start_keeps_the_old_instance() {
        let mut r = Recorder::new();
        r.start(&task(0), &line(1, Some(1)));
        r.start(&task(0), &line(2, Some(2)));
        r.refused(&task(0), &line(3, None));
        let tl = r.finish();
        assert_eq!(tl.instances.len(), 2);
        assert_eq!(tl.instances[0].how, End::Running);
        assert!(tl.instances[0].end.is_none());
        assert_eq!(tl.instances[1].how, End::Refused);
    }

    #[test]
    fn restart_ends_everything() {
        let mut r = Recorder::new();
        r.start(&task(0), &line(1, Some(1)));
        r.held(&[task(1)], &line(2, Some(2)));
        r.known_from(&line(3, Some(3)), true);
        let tl = r.finish();
        assert!(tl.instances.iter().all(|i| i.how == End::WorkerRestart));
        assert_eq!(tl.known_from.len(), 1);
    }

    #[test]
    fn eager_baseline_ends_only_held_instances() {
        let mut r = Recorder::new();
        r.start(&task(0), &line(1, Some(1)));
        r.held(&[task(1)], &line(2, Some(2)));
        r.known_from(&line(3, Some(3)), false);
        let tl = r.finish();
        assert_eq!(tl.instances[0].how, End::Running);
        assert_eq!(tl.instances[1].how, End::NotRunning);
    }

    #[test]
    fn memory_is_bounded() {
        let mut r = Recorder::new();
        for i in 0..(MAX_ITEMS as u64 + 10) {
            r.start(&task(0), &line(i + 1, Some(i as i64)));
        }
        let tl = r.finish();
        assert_eq!(tl.instances.len(), MAX_ITEMS);
        assert_eq!(tl.dropped, 10);
        assert_eq!(tl.truncated.map(|p| p.line), Some(MAX_ITEMS as u64 + 1));
    }

    #[test]
    fn offsets_are_recorded_when_they_change() {
        let mut r = Recorder::new();
        let a = Assignment {
            offset: 5,
            leader: "l".into(),
            ..Default::default()
        };
        r.generation(Some(1), None, &a, &line(1, Some(1)));
        r.event(
            &Event::FinishedReadingToEnd { offset: 5 },
            &line(2, Some(2)),
        );
        r.event(
            &Event::FinishedReadingToEnd { offset: 7 },
            &line(3, Some(3)),
        );
        r.generation(Some(2), None, &a, &line(4, Some(4)));
        let tl = r.finish();
        let offs: Vec<(i64, OffsetSource)> =
            tl.offsets.iter().map(|o| (o.offset, o.source)).collect();
        assert_eq!(
            offs,
            vec![
                (5, OffsetSource::Assignment),
                (7, OffsetSource::Read),
                (5, OffsetSource::Assignment)
            ]
        );
    }
}

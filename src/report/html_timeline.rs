//! The timeline part of the HTML report: the workers' recorded timelines
//! ([`crate::replay::timeline`]) laid out per group on one x axis, plus the
//! position of every finding and of its evidence lines. It is embedded in
//! the page beside the document `--format json` prints, and the page's
//! script draws both.
//!
//! Layout (`schema` 1); positions are `P = [source, line, x]`, where
//! `source` indexes the document's `inputs` and `x` is the line's log time
//! in milliseconds (`axis: "time"`) or its position in the worker's stream
//! (`axis: "line"`, when some worker of the group has no time stamps):
//!
//! ```text
//! groups[]    {name, kafka_cluster, axis, from, to, lanes: [worker index],
//!              generations: [[generation, x of its first assignment line]]}
//! lanes[]     one per document `workers[]` entry, same order:
//!             {worker, group, recorded, first: P, last: P, dropped, truncated: P|null,
//!              resources: [[id, connector, is_task]],
//!              instances: [[resource, begin, P, end, P|null, stop reason|null, failed_registered]],
//!              leaders: [member id],
//!              generations: [[generation|null, P, protocol|null, offset, error, leader, assigned, [revoked resource]]],
//!              offsets: [[P, offset, source]], configs: [[P, record, [connector]]],
//!              unknown: [[P, P, why]], known_from: [P]}
//! findings[]  one per document `findings[]` entry, same order:
//!             [worker index, x, [[worker index, x] per evidence line]]
//! interruptions[]  one per document `interruptions[]` entry, same order:
//!             [group|null, from: W, end: W|null, noticed: W|null], W = [worker index, x];
//!             `end` is its `running` line, else its `to` line (null: still down)
//! changes[]   one per document `changes[]` entry, same order:
//!             [group|null, worker index|null, x, sentence]
//!             (the sentence is the text summary's, `isolation::change_sentence`)
//! ```
//!
//! The interruptions and changes (issue 26) are placed here and nowhere
//! else computed: their causes, lengths and blast radius are the document's.

use super::isolation;
use crate::audit::Report;
use crate::interruptions::Edge;
use crate::model::{Resource, SourceLine};
use crate::replay::timeline::{End, MAX_ITEMS, Point, Timeline};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

pub const SCHEMA: u32 = 2;

/// Whether a group's x axis is log time or stream position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axis {
    Time,
    Line,
}

/// Positions on one lane's axis.
struct LaneAxis {
    axis: Axis,
    /// (seq, x) of every recorded point, sorted: places lines the timeline
    /// did not record (a finding's trigger without a time stamp).
    known: Vec<(u64, i64)>,
    fallback: i64,
}

impl LaneAxis {
    fn new(axis: Axis, tl: Option<&Timeline>) -> LaneAxis {
        let mut known: Vec<(u64, i64)> = Vec::new();
        if let Some(tl) = tl {
            for_each_point(tl, |p| {
                let x = match axis {
                    Axis::Time => p.ts.map(|t| t.0),
                    Axis::Line => Some(p.seq as i64),
                };
                if let Some(x) = x {
                    known.push((p.seq, x));
                }
            });
        }
        known.sort_unstable();
        known.dedup_by_key(|k| k.0);
        let fallback = known.first().map_or(0, |k| k.1);
        LaneAxis {
            axis,
            known,
            fallback,
        }
    }

    /// The x of a line of this lane's stream.
    fn at(&self, seq: u64, ts: Option<crate::model::Timestamp>) -> i64 {
        match (self.axis, ts) {
            (Axis::Time, Some(t)) => t.0,
            (Axis::Line, _) => seq as i64,
            (Axis::Time, None) => {
                let i = self.known.partition_point(|k| k.0 <= seq);
                match i {
                    0 => self.fallback,
                    i => self.known[i - 1].1,
                }
            }
        }
    }

    fn point(&self, p: &Point) -> P {
        (p.source.0, p.line, self.at(p.seq, p.ts))
    }

    fn line(&self, l: &SourceLine) -> i64 {
        self.at(l.seq, l.ts)
    }
}

fn for_each_point(tl: &Timeline, mut f: impl FnMut(&Point)) {
    tl.first.iter().chain(tl.last.iter()).for_each(&mut f);
    for i in &tl.instances {
        f(&i.start);
        if let Some(e) = &i.end {
            f(e);
        }
    }
    tl.generations.iter().for_each(|g| f(&g.at));
    tl.offsets.iter().for_each(|o| f(&o.at));
    tl.configs.iter().for_each(|c| f(&c.at));
    for u in &tl.unknown {
        f(&u.from);
        f(&u.to);
    }
    tl.known_from.iter().for_each(&mut f);
    tl.truncated.iter().for_each(&mut f);
}

/// `connect-2` before `connect-10`.
fn natural_key(s: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            if !digits.is_empty() {
                out.push((
                    std::mem::take(&mut text),
                    digits.parse().unwrap_or(u64::MAX),
                ));
                digits.clear();
            }
            text.push(c);
        }
    }
    let n = if digits.is_empty() {
        0
    } else {
        digits.parse().unwrap_or(u64::MAX)
    };
    out.push((text, n));
    out
}

/// A group: its id and the Kafka cluster id, when the logs name them.
type GroupKey<'a> = (Option<&'a str>, Option<&'a str>);

/// The workers of each group, in natural order of their labels; groups in
/// order of their first worker.
fn groups(report: &Report) -> Vec<(GroupKey<'_>, Vec<usize>)> {
    let mut order: Vec<GroupKey> = Vec::new();
    let mut members: HashMap<GroupKey, Vec<usize>> = HashMap::new();
    for (i, w) in report.workers.iter().enumerate() {
        let key = (
            w.summary.group.as_deref(),
            w.summary.kafka_cluster.as_deref(),
        );
        if !members.contains_key(&key) {
            order.push(key);
        }
        members.entry(key).or_default().push(i);
    }
    order
        .into_iter()
        .map(|k| {
            let mut v = members.remove(&k).unwrap_or_default();
            v.sort_by_cached_key(|&i| natural_key(&report.workers[i].summary.worker));
            (k, v)
        })
        .collect()
}

/// `[source, line, x]`
type P = (u32, u64, i64);
/// `[resource, begin, start, end kind, end|null, stop reason|null, failed_registered]`
type InstanceRow = (
    usize,
    &'static str,
    P,
    &'static str,
    Option<P>,
    Option<&'static str>,
    u8,
);
/// `[generation|null, assignment line, protocol|null, offset, error, leader, assigned, [revoked]]`
type GenerationRow = (
    Option<i32>,
    P,
    Option<&'static str>,
    i64,
    i32,
    usize,
    u32,
    Vec<usize>,
);

/// `[worker, x, [[worker, x] per evidence line]]`
pub(crate) type FindingRow = (usize, i64, Vec<(usize, i64)>);

/// `[worker, x]` of a line an interruption or change quotes.
type At = (usize, i64);
/// `[group|null, from, end|null, noticed|null]`
pub(crate) type InterruptionRow = (Option<usize>, Option<At>, Option<At>, Option<At>);
/// `[group|null, worker|null, x, sentence]`
pub(crate) type ChangeRow = (Option<usize>, Option<usize>, i64, String);

/// The timeline document (see the module's documentation for its layout).
#[derive(Serialize)]
pub struct TimelineDoc<'a> {
    pub(crate) schema: u32,
    pub(crate) max_items: usize,
    pub(crate) groups: Vec<GroupDoc<'a>>,
    pub(crate) lanes: Vec<LaneDoc<'a>>,
    pub(crate) findings: Vec<FindingRow>,
    pub(crate) interruptions: Vec<InterruptionRow>,
    pub(crate) changes: Vec<ChangeRow>,
}

#[derive(Serialize)]
pub(crate) struct GroupDoc<'a> {
    pub(crate) name: Option<&'a str>,
    pub(crate) kafka_cluster: Option<&'a str>,
    axis: &'static str,
    from: Option<i64>,
    to: Option<i64>,
    pub(crate) lanes: Vec<usize>,
    generations: Vec<(i32, i64)>,
}

#[derive(Serialize)]
pub(crate) struct LaneDoc<'a> {
    worker: &'a str,
    pub(crate) group: usize,
    recorded: bool,
    #[serde(flatten)]
    detail: Option<LaneDetail<'a>>,
}

#[derive(Serialize)]
struct LaneDetail<'a> {
    first: Option<P>,
    last: Option<P>,
    dropped: u64,
    truncated: Option<P>,
    resources: Vec<(String, &'a str, u8)>,
    instances: Vec<InstanceRow>,
    leaders: Vec<&'a str>,
    generations: Vec<GenerationRow>,
    offsets: Vec<(P, i64, &'static str)>,
    configs: Vec<(P, &'static str, Vec<&'a str>)>,
    unknown: Vec<(P, P, &'a str)>,
    known_from: Vec<P>,
}

/// A lane's table of resources: each is written once, then referred to
/// by its index (first-use order).
#[derive(Default)]
struct Resources<'a> {
    index: HashMap<&'a Resource, usize>,
    rows: Vec<(String, &'a str, u8)>,
}

impl<'a> Resources<'a> {
    fn index(&mut self, r: &'a Resource) -> usize {
        let n = self.rows.len();
        let i = *self.index.entry(r).or_insert(n);
        if i == n {
            self.rows.push((
                r.id(),
                r.connector_name(),
                u8::from(matches!(r, Resource::Task(_))),
            ));
        }
        i
    }
}

fn lane_detail<'a>(tl: &'a Timeline, ax: &LaneAxis) -> LaneDetail<'a> {
    let p = |p: &Point| ax.point(p);
    let mut table = Resources::default();
    let mut order: Vec<usize> = (0..tl.instances.len()).collect();
    order.sort_unstable_by_key(|&i| {
        (
            ax.at(tl.instances[i].start.seq, tl.instances[i].start.ts),
            i,
        )
    });
    let instances = order
        .iter()
        .map(|&i| {
            let inst = &tl.instances[i];
            let reason = match inst.how {
                End::Stopped(Some(why)) => Some(why.as_str()),
                _ => None,
            };
            (
                table.index(&inst.resource),
                inst.begin.as_str(),
                p(&inst.start),
                inst.how.as_str(),
                inst.end.as_ref().map(p),
                reason,
                u8::from(inst.failed_registered),
            )
        })
        .collect();
    let mut leaders: Vec<&str> = Vec::new();
    let generations = tl
        .generations
        .iter()
        .map(|g| {
            let leader = match leaders.iter().position(|l| **l == *g.leader) {
                Some(i) => i,
                None => {
                    leaders.push(&g.leader);
                    leaders.len() - 1
                }
            };
            (
                g.generation,
                p(&g.at),
                g.protocol.map(|p| p.as_str()),
                g.offset,
                g.error,
                leader,
                g.assigned,
                g.revoked.iter().map(|r| table.index(r)).collect(),
            )
        })
        .collect();
    LaneDetail {
        first: tl.first.as_ref().map(p),
        last: tl.last.as_ref().map(p),
        dropped: tl.dropped,
        truncated: tl.truncated.as_ref().map(p),
        instances,
        generations,
        resources: table.rows,
        leaders,
        offsets: tl
            .offsets
            .iter()
            .map(|o| (p(&o.at), o.offset, o.source.as_str()))
            .collect(),
        configs: tl
            .configs
            .iter()
            .map(|c| {
                let names = c.connectors.iter().map(|n| &**n).collect();
                (p(&c.at), c.record.as_str(), names)
            })
            .collect(),
        unknown: tl
            .unknown
            .iter()
            .map(|u| (p(&u.from), p(&u.to), u.why.as_str()))
            .collect(),
        known_from: tl.known_from.iter().map(p).collect(),
    }
}

/// The timeline document embedded in the HTML report.
pub fn timeline_doc(report: &Report) -> TimelineDoc<'_> {
    let layout = Layout::of(report);
    let lanes = report
        .workers
        .iter()
        .enumerate()
        .map(|(i, w)| LaneDoc {
            worker: &w.summary.worker,
            group: layout.lane_group[i],
            recorded: w.timeline.is_some(),
            detail: w
                .timeline
                .as_ref()
                .map(|tl| lane_detail(tl, layout.axis_of(i))),
        })
        .collect();
    let places = Places::new(report, &layout);
    TimelineDoc {
        schema: SCHEMA,
        max_items: MAX_ITEMS,
        lanes,
        findings: places.findings(),
        interruptions: places.interruptions(),
        changes: places.changes(),
        groups: layout.groups,
    }
}

/// The groups' documents, and each lane's group and axis.
struct Layout<'a> {
    groups: Vec<GroupDoc<'a>>,
    lane_group: Vec<usize>,
    axes: Vec<Option<LaneAxis>>,
    fallback: LaneAxis,
}

impl<'a> Layout<'a> {
    fn of(report: &'a Report) -> Layout<'a> {
        let n = report.workers.len();
        let mut layout = Layout {
            groups: Vec::new(),
            lane_group: vec![0usize; n],
            axes: (0..n).map(|_| None).collect(),
            fallback: LaneAxis::new(Axis::Line, None),
        };
        for (gi, ((name, cluster), members)) in groups(report).into_iter().enumerate() {
            let doc = layout.group(report, gi, name, cluster, members);
            layout.groups.push(doc);
        }
        layout
    }

    /// One group: its lanes' axes (time when every lane has time stamps),
    /// its extent and where each generation first appears.
    fn group(
        &mut self,
        report: &Report,
        gi: usize,
        name: Option<&'a str>,
        kafka_cluster: Option<&'a str>,
        members: Vec<usize>,
    ) -> GroupDoc<'a> {
        let timed = members.iter().all(|&i| {
            report.workers[i]
                .timeline
                .as_ref()
                .is_some_and(|t| t.first.is_some_and(|p| p.ts.is_some()))
        });
        let axis = if timed { Axis::Time } else { Axis::Line };
        let mut from: Option<i64> = None;
        let mut to: Option<i64> = None;
        let mut gens: BTreeMap<i32, i64> = BTreeMap::new();
        for &i in &members {
            self.lane_group[i] = gi;
            let tl = report.workers[i].timeline.as_ref();
            let ax = LaneAxis::new(axis, tl);
            if let Some(tl) = tl {
                for p in tl.first.iter().chain(tl.last.iter()) {
                    let x = ax.at(p.seq, p.ts);
                    from = Some(from.map_or(x, |f| f.min(x)));
                    to = Some(to.map_or(x, |t| t.max(x)));
                }
                for g in &tl.generations {
                    if let Some(n) = g.generation {
                        let x = ax.at(g.at.seq, g.at.ts);
                        gens.entry(n).and_modify(|e| *e = (*e).min(x)).or_insert(x);
                    }
                }
            }
            self.axes[i] = Some(ax);
        }
        let mut generations: Vec<(i32, i64)> = gens.into_iter().collect();
        generations.sort_by_key(|&(g, x)| (x, g));
        GroupDoc {
            name,
            kafka_cluster,
            axis: match axis {
                Axis::Time => "time",
                Axis::Line => "line",
            },
            from,
            to,
            lanes: members,
            generations,
        }
    }

    fn axis_of(&self, i: usize) -> &LaneAxis {
        self.axes
            .get(i)
            .and_then(Option::as_ref)
            .unwrap_or(&self.fallback)
    }
}

/// Places a worker's line on its lane's axis.
struct Places<'r> {
    report: &'r Report,
    layout: &'r Layout<'r>,
    by_label: HashMap<&'r str, usize>,
}

impl<'r> Places<'r> {
    fn new(report: &'r Report, layout: &'r Layout<'r>) -> Places<'r> {
        let by_label = report
            .workers
            .iter()
            .enumerate()
            .map(|(i, w)| (w.summary.worker.as_str(), i))
            .collect();
        Places {
            report,
            layout,
            by_label,
        }
    }

    fn at(&self, worker: &str, l: &SourceLine) -> Option<At> {
        let wi = self.by_label.get(worker).copied()?;
        Some((wi, self.layout.axis_of(wi).line(l)))
    }

    fn edge(&self, e: &Edge) -> Option<At> {
        self.at(&e.worker, &e.line)
    }

    fn group_of(&self, a: Option<At>) -> Option<usize> {
        a.and_then(|(wi, _)| self.layout.lane_group.get(wi).copied())
    }

    /// Each finding's trigger and evidence; a line of a worker not in the
    /// report is placed on the finding's own lane.
    fn findings(&self) -> Vec<FindingRow> {
        self.report
            .findings()
            .map(|f| (self.by_label.get(&*f.worker).copied().unwrap_or(0), f))
            .map(|(wi, f)| {
                let ev = f
                    .evidence
                    .iter()
                    .map(|e| {
                        let ewi = e
                            .worker
                            .as_deref()
                            .and_then(|l| self.by_label.get(l).copied())
                            .unwrap_or(wi);
                        (ewi, self.layout.axis_of(ewi).line(&e.line))
                    })
                    .collect();
                (wi, self.layout.axis_of(wi).line(&f.trigger), ev)
            })
            .collect()
    }

    fn interruptions(&self) -> Vec<InterruptionRow> {
        self.report
            .isolation
            .interruptions
            .iter()
            .map(|i| {
                let from = self.edge(&i.from);
                let end = i.to.as_ref().and_then(|to| match &i.running {
                    Some(l) => self.at(&to.worker, l),
                    None => self.edge(to),
                });
                let noticed = i.noticed.as_ref().and_then(|(e, _)| self.edge(e));
                (self.group_of(from), from, end, noticed)
            })
            .collect()
    }

    fn changes(&self) -> Vec<ChangeRow> {
        self.report
            .isolation
            .changes
            .iter()
            .map(|c| {
                let place = self.at(&c.worker, &c.line);
                (
                    self.group_of(place),
                    place.map(|p| p.0),
                    place.map_or(0, |p| p.1),
                    isolation::change_sentence(c),
                )
            })
            .collect()
    }
}

#[cfg(test)]
/// [`timeline_doc`] as a JSON value.
pub fn timeline_json(report: &Report) -> serde_json::Value {
    serde_json::to_value(timeline_doc(report)).unwrap_or(serde_json::Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{self, Options};
    use crate::rules::StopReason;

    /// The timeline and the summary come from the same replay: every start
    /// is an instance that began with it, every counted stop an instance
    /// that ended with it, with the same justification. Returns the
    /// number of instances.
    fn agree(report: &Report) -> usize {
        let mut instances = 0;
        for w in &report.workers {
            let tl = w.timeline.as_ref().expect("recorded");
            assert_eq!(tl.dropped, 0);
            let started = tl
                .instances
                .iter()
                .filter(|i| i.begin == crate::replay::timeline::Begin::Started)
                .filter(|i| i.how != End::StartFailed || Some(i.start) != i.end)
                .count() as u64;
            let who = &w.summary.worker;
            assert_eq!(started, w.summary.starts.values().sum::<u64>(), "{who}");
            let mut stops: BTreeMap<StopReason, u64> = BTreeMap::new();
            for i in &tl.instances {
                match i.how {
                    End::Stopped(Some(why)) => *stops.entry(why).or_default() += 1,
                    End::Stopped(None) => panic!("{who}: a stop never judged"),
                    _ => {}
                }
            }
            assert_eq!(stops, w.summary.stops, "{who}");
            instances += tl.instances.len();
        }
        let v = timeline_json(report);
        assert_eq!(v["lanes"].as_array().unwrap().len(), report.workers.len());
        let findings = v["findings"].as_array().unwrap();
        assert_eq!(findings.len(), report.findings().count());
        instances
    }

    fn opts() -> Options {
        Options {
            jobs: Some(1),
            timeline: true,
            ..Options::default()
        }
    }

    #[test]
    fn timelines_agree_with_the_summaries_on_the_corpus() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "log"))
            .collect();
        paths.sort();
        assert!(paths.len() > 20);
        let mut instances = 0;
        for p in paths {
            let (inputs, _) = crate::input::expand(std::slice::from_ref(&p));
            instances += agree(&audit::audit(&inputs, &opts()));
        }
        assert!(instances > 100, "{instances}");
    }

    /// A jump of log time inside a rebalance is drawn as unknown.
    #[test]
    fn a_gap_inside_a_rebalance_is_an_unknown_span() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let text = std::fs::read_to_string(dir.join("clean-coop-3.6-worker-joins.log")).unwrap();
        let cut: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| match i + 1 {
                n if n >= 45 => l.replace("2024-03-11 09:14:", "2024-03-11 09:44:"),
                _ => l.to_string(),
            })
            .collect();
        let input = crate::input::Input::bytes("gap.log", cut.join("\n").into_bytes());
        let report = audit::audit(&[input], &opts());
        agree(&report);
        let tl = report.workers[0].timeline.as_ref().unwrap();
        assert_eq!(tl.unknown.len(), 1, "{:?}", tl.unknown);
        let u = &tl.unknown[0];
        assert_eq!((u.from.line, u.to.line), (44, 45));
        assert!(u.why.contains("jumps 30 min"), "{}", u.why);
        // The log starts mid-life: nothing makes the whole running set known.
        assert!(tl.known_from.is_empty());
        let v = timeline_json(&report);
        assert_eq!(v["lanes"][0]["unknown"][0][0][1], 44);
    }

    #[derive(Clone, Default)]
    struct Buf(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn timelines_agree_with_the_summaries_on_simulated_faults() {
        use crate::sim::{self, ALL_FAULTS, Params, Proto, version};
        let (mut instances, mut restarts) = (0, 0);
        let faults = std::iter::once(None).chain(ALL_FAULTS.into_iter().map(Some));
        for (n, fault) in faults.enumerate() {
            for (k, &v) in version::ALL.iter().enumerate() {
                if v.eager_only() && fault.is_some_and(|f| f.cooperative_only())
                    || fault.is_some_and(|f| f.exists_in(v).is_err())
                {
                    continue;
                }
                let proto = if v.eager_only() {
                    Proto::Eager
                } else {
                    Proto::Compatible
                };
                let mut p = Params::new((n * 31 + k) as u64, v, proto);
                p.workers = 3;
                p.connectors = 3;
                p.events = 30;
                p.noise = 0.0;
                p.fault = fault;
                let bufs: Vec<Buf> = (0..p.workers).map(|_| Buf::default()).collect();
                let outs = bufs
                    .iter()
                    .map(|b| Box::new(b.clone()) as Box<dyn std::io::Write>)
                    .collect();
                let truth = sim::simulate(&p, outs, false).unwrap();
                let inputs: Vec<crate::input::Input> = truth
                    .files
                    .iter()
                    .zip(&bufs)
                    .map(|(f, b)| {
                        crate::input::Input::bytes(f.file.clone(), b.0.lock().unwrap().clone())
                    })
                    .collect();
                let report = audit::audit(&inputs, &opts());
                instances += agree(&report);
                for w in &report.workers {
                    let tl = w.timeline.as_ref().unwrap();
                    // Simulated workers start in their logs.
                    assert!(!tl.known_from.is_empty(), "{}", w.summary.worker);
                    restarts += tl
                        .instances
                        .iter()
                        .filter(|i| i.how == End::WorkerRestart)
                        .count();
                }
            }
        }
        assert!(instances > 1000, "{instances}");
        assert!(restarts > 0);
    }

    /// One row per interruption and change of the document, in its
    /// order, placed on the lines it quotes (log time: the axis is time);
    /// a change carries the text summary's sentence.
    #[test]
    fn interruptions_and_changes_are_placed_on_their_lines() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/real-kafka/2.3.0/isolation");
        let (inputs, _) = crate::input::expand(&[dir]);
        let report = audit::audit(&inputs, &opts());
        let iso = &report.isolation;
        let v = timeline_json(&report);
        assert_eq!(v["groups"][0]["axis"], "time");
        let rows = v["interruptions"].as_array().unwrap();
        assert_eq!(rows.len(), iso.interruptions.len());
        assert!(rows.len() > 40, "{}", rows.len());
        let ms = |l: &SourceLine| serde_json::json!(l.ts.unwrap().0);
        let mut still = 0;
        for (r, i) in rows.iter().zip(&iso.interruptions) {
            assert_eq!(r[0], 0);
            let lane =
                |w: &serde_json::Value| &v["lanes"][w[0].as_u64().unwrap() as usize]["worker"];
            assert_eq!(*lane(&r[1]), *i.from.worker);
            assert_eq!(r[1][1], ms(&i.from.line));
            match &i.to {
                None => {
                    assert!(r[2].is_null());
                    still += 1;
                }
                Some(to) => {
                    assert_eq!(*lane(&r[2]), *to.worker);
                    assert_eq!(r[2][1], ms(i.running.as_ref().unwrap_or(&to.line)));
                }
            }
            assert_eq!(r[3].is_null(), i.noticed.is_none());
        }
        assert!(still > 0, "{still}");
        let changes = v["changes"].as_array().unwrap();
        assert_eq!(changes.len(), iso.changes.len());
        for (r, c) in changes.iter().zip(&iso.changes) {
            assert_eq!(r[2], ms(&c.line));
            assert_eq!(r[3], isolation::change_sentence(c));
        }
        assert!(
            changes
                .iter()
                .any(|c| c[3].as_str().unwrap().contains("(KAFKA-8676)"))
        );
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["connect-10", "connect-2", "connect-1", "a"];
        v.sort_by_cached_key(|s| natural_key(s));
        assert_eq!(v, vec!["a", "connect-1", "connect-2", "connect-10"]);
    }
}

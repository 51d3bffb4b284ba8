use super::*;
use crate::finding::Kind;
use crate::model::{SourceId, TaskId, Timestamp};

fn line(src: u32, n: u64, secs: i64) -> SourceLine {
    SourceLine {
        source: SourceId(src),
        line: n,
        seq: n,
        ts: Some(Timestamp(secs * 1000)),
        text: Arc::from(format!("w{src} line {n}")),
        msg: (0, 0),
    }
}

fn task(i: u32) -> Resource {
    Resource::Task(TaskId::new("src", i))
}

fn fact(line: SourceLine, kind: FactKind) -> Fact {
    Fact {
        group: Some(Arc::from("g")),
        cluster: None,
        identity: None,
        line,
        kind,
    }
}

fn assignment(
    g: i32,
    l: SourceLine,
    assigned: &[Resource],
    live: &[(Resource, SourceLine)],
) -> Fact {
    fact(
        l,
        FactKind::Assignment {
            generation: g,
            assigned: {
                let mut v = assigned.to_vec();
                v.sort();
                v.dedup();
                Arc::from(v)
            },
            revoked: Arc::from(Vec::new()),
            leader: "leader".into(),
            leader_url: "http://l/".into(),
            offset: 40,
            error: 0,
            live: live.to_vec(),
        },
    )
}

/// A checker with two workers of group `g`, `w1` and `w2`.
fn two_workers() -> (Checker, usize, usize) {
    let mut c = Checker::new();
    let (w1, w2) = (c.worker("w1".into()), c.worker("w2".into()));
    (c, w1, w2)
}

/// A start of `r` in generation `g`.
fn start(l: SourceLine, r: Resource, g: i32) -> Fact {
    fact(
        l,
        FactKind::Start {
            resource: r,
            generation: Some(g),
            config_offset: None,
        },
    )
}

fn stop(l: SourceLine, r: Resource) -> Fact {
    fact(
        l,
        FactKind::Stop {
            resource: r,
            task_config: None,
        },
    )
}

/// A foreign start of `r` in generation `g`, the replay's finding with it.
fn foreign_start(l: SourceLine, r: Resource, g: i32) -> Fact {
    let finding = finding(Kind::ForeignStart, &l, &r);
    fact(
        l,
        FactKind::ForeignStart {
            resource: r,
            generation: Some(g),
            finding,
        },
    )
}

/// What an assignment fact says, changed field by field.
trait AssignmentFact {
    fn offset(self, offset: i64) -> Fact;
    /// The Kafka cluster and the leader it names.
    fn on(self, cluster: Option<&str>, leader: &str) -> Fact;
    fn identity(self, url: &str) -> Fact;
    fn group(self, group: &str) -> Fact;
}

impl AssignmentFact for Fact {
    fn offset(mut self, o: i64) -> Fact {
        if let FactKind::Assignment { offset, .. } = &mut self.kind {
            *offset = o;
        }
        self
    }
    fn on(mut self, cluster: Option<&str>, leader: &str) -> Fact {
        self.cluster = cluster.map(Arc::from);
        if let FactKind::Assignment { leader: l, .. } = &mut self.kind {
            *l = leader.to_string();
        }
        self
    }
    fn identity(mut self, url: &str) -> Fact {
        self.identity = Some(Arc::from(url));
        self
    }
    fn group(mut self, group: &str) -> Fact {
        self.group = Some(Arc::from(group));
        self
    }
}

fn kinds(c: &Checker) -> Vec<(Kind, String, u64, usize)> {
    c.out
        .iter()
        .map(|f| {
            (
                f.finding.kind,
                f.finding
                    .resource
                    .as_ref()
                    .map(Resource::id)
                    .unwrap_or_default(),
                f.finding.trigger.line,
                f.worker,
            )
        })
        .collect()
}

#[test]
fn held_on_both_at_the_same_generation_kafka_9841() {
    let (mut c, w1, w2) = two_workers();
    let s1 = line(0, 5, 10);
    c.feed(
        w1,
        assignment(9, line(0, 20, 100), &[task(0)], &[(task(0), s1)]),
    );
    c.feed(
        w2,
        assignment(
            9,
            line(1, 30, 101),
            &[task(0)],
            &[(task(0), line(1, 8, 50))],
        ),
    );
    let k = kinds(&c);
    assert!(
        k.contains(&(Kind::ConflictingAssignment, "src-0".into(), 30, w2)),
        "{k:?}"
    );
    assert!(k.contains(&(Kind::Zombie, "src-0".into(), 30, w2)), "{k:?}");
    assert_eq!(k.len(), 2);
}

#[test]
fn revoked_but_running_zombie_then_started_elsewhere() {
    let (mut c, w1, w2) = two_workers();
    // w1 keeps running src-2 though its generation-6 assignment does not hold it.
    c.feed(
        w1,
        assignment(
            6,
            line(0, 20, 100),
            &[task(0)],
            &[(task(0), line(0, 5, 10)), (task(2), line(0, 6, 10))],
        ),
    );
    c.feed(w2, assignment(6, line(1, 30, 100), &[task(2)], &[]));
    c.feed(w2, start(line(1, 31, 101), task(2), 6));
    assert_eq!(kinds(&c), vec![(Kind::Zombie, "src-2".into(), 31, w2)]);
    // The duplicate persists into generation 7: the same episode.
    c.feed(
        w1,
        assignment(
            7,
            line(0, 40, 200),
            &[task(0)],
            &[(task(0), line(0, 5, 10)), (task(2), line(0, 6, 10))],
        ),
    );
    c.feed(
        w2,
        assignment(
            7,
            line(1, 50, 200),
            &[task(2)],
            &[(task(2), line(1, 31, 101))],
        ),
    );
    assert_eq!(c.out.len(), 1);
}

#[test]
fn a_handover_is_no_duplicate() {
    let (mut c, w1, w2) = two_workers();
    c.feed(
        w1,
        assignment(
            6,
            line(0, 20, 100),
            &[task(0), task(1)],
            &[(task(0), line(0, 5, 10)), (task(1), line(0, 6, 10))],
        ),
    );
    c.feed(w2, assignment(6, line(1, 30, 100), &[], &[]));
    // w1 stops src-1 (a task-config restart, say) before w2 starts it.
    c.feed(w1, stop(line(0, 21, 110), task(1)));
    c.feed(w2, start(line(1, 31, 111), task(1), 6));
    assert!(c.out.is_empty(), "{:?}", kinds(&c));
}

#[test]
fn different_offsets_in_one_generation() {
    let (mut c, w1, w2) = two_workers();
    c.feed(w1, assignment(3, line(0, 20, 100), &[task(0)], &[]));
    c.feed(
        w2,
        assignment(3, line(1, 30, 101), &[task(1)], &[]).offset(41),
    );
    assert_eq!(
        kinds(&c),
        vec![(Kind::ConflictingAssignment, String::new(), 30, w2)]
    );
}

#[test]
fn same_group_id_on_two_kafka_clusters_is_not_compared() {
    let (mut c, w1, w2) = two_workers();
    let a = assignment(3, line(0, 20, 100), &[task(0)], &[(task(0), line(0, 1, 1))]);
    let b = assignment(3, line(1, 30, 101), &[task(0)], &[(task(0), line(1, 1, 1))]);
    // Different leaders, cluster unknown: maybe two clusters; no finding.
    c.feed(w1, a.clone().on(None, "l1"));
    c.feed(w2, b.clone().on(None, "l2"));
    assert!(c.out.is_empty(), "{:?}", kinds(&c));
    // Different cluster ids: never compared.
    let (mut c, w1, w2) = two_workers();
    c.feed(w1, a.clone().on(Some("A"), "l1"));
    c.feed(w2, b.clone().on(Some("B"), "l1"));
    assert!(c.out.is_empty(), "{:?}", kinds(&c));
    // Same cluster, different leaders: a conflict.
    let (mut c, w1, w2) = two_workers();
    c.feed(w1, a.on(Some("A"), "l1"));
    c.feed(w2, b.on(Some("A"), "l2"));
    assert!(
        kinds(&c).contains(&(Kind::ConflictingAssignment, String::new(), 30, w2)),
        "{:?}",
        kinds(&c)
    );
}

#[test]
fn groups_never_mix() {
    let (mut c, w1, w2) = two_workers();
    c.feed(
        w1,
        assignment(3, line(0, 20, 100), &[task(0)], &[(task(0), line(0, 1, 1))]),
    );
    let f = assignment(3, line(1, 30, 101), &[task(0)], &[(task(0), line(1, 1, 1))]);
    c.feed(w2, f.group("other-cluster"));
    assert!(c.out.is_empty());
}

fn finding(kind: Kind, l: &SourceLine, r: &Resource) -> Box<Finding> {
    Box::new(Finding {
        kind,
        worker: "w1".into(),
        group: Some("g".into()),
        generation: Some(4),
        resource: Some(r.clone()),
        started: Vec::new(),
        trigger: l.clone(),
        evidence: vec![Evidence::new("started here", l)],
        reason: format!("{r} is started but not assigned here."),
        upstream: None,
        fingerprint: None,
    })
}

#[test]
fn foreign_start_owner_named_when_the_owner_reported_before() {
    let (mut c, w1, w2) = two_workers();
    c.feed(w1, assignment(4, line(0, 20, 100), &[], &[]));
    c.feed(w2, assignment(4, line(1, 30, 100), &[task(1)], &[]));
    c.feed(w1, foreign_start(line(0, 22, 101), task(1), 4));
    assert_eq!(c.out.len(), 1);
    let e = &c.out[0];
    assert_eq!((e.worker, e.cross), (w1, false));
    assert!(
        e.finding.reason.contains("generation 4 assigns it to w2"),
        "{}",
        e.finding.reason
    );
    assert_eq!(e.finding.evidence.len(), 2);
    assert_eq!(e.finding.evidence[1].worker.as_deref(), Some("w2"));
}

#[test]
fn foreign_start_without_owner_passes_through() {
    let mut c = Checker::new();
    let w1 = c.worker("w1".into());
    c.feed(w1, assignment(4, line(0, 20, 100), &[], &[]));
    let l = line(0, 22, 101);
    let expected = *finding(Kind::ForeignStart, &l, &task(1));
    c.feed(w1, foreign_start(l, task(1), 4));
    // It waits a little log time for the owner's assignment line.
    assert!(c.out.is_empty());
    c.advance_to(101_000 + OWNER_WAIT_MS - 1);
    assert!(c.out.is_empty());
    c.advance_to(101_000 + OWNER_WAIT_MS + 1);
    assert_eq!(c.out.len(), 1);
    let mut got = c.out[0].finding.clone();
    assert!(got.fingerprint.take().is_some());
    assert_eq!(got, expected);
}

#[test]
fn foreign_start_owner_named_when_the_owner_reports_moments_later() {
    let (mut c, w1, w2) = two_workers();
    c.feed(w1, assignment(4, line(0, 20, 100), &[], &[]));
    c.feed(w1, foreign_start(line(0, 22, 101), task(1), 4));
    assert!(c.out.is_empty());
    c.advance_to(102_000);
    c.feed(w2, assignment(4, line(1, 30, 102), &[task(1)], &[]));
    assert_eq!(c.out.len(), 1);
    assert!(c.out[0].finding.reason.contains("assigns it to w2"));
}

#[test]
fn same_worker_twice_is_not_compared() {
    let mut c = Checker::new();
    let (w1, w2) = (c.worker("a.log".into()), c.worker("copy.log".into()));
    let s1 = line(0, 5, 10);
    c.feed(
        w1,
        assignment(9, line(0, 20, 100), &[task(0)], &[(task(0), s1)]).identity("http://w:8083/"),
    );
    let s2 = line(1, 5, 10);
    c.feed(
        w2,
        assignment(9, line(1, 20, 100), &[task(0)], &[(task(0), s2)]).identity("http://w:8083/"),
    );
    assert!(c.out.is_empty(), "{:?}", kinds(&c));
    assert_eq!(
        c.same_worker.iter().cloned().collect::<Vec<_>>(),
        vec![("a.log".to_string(), "copy.log".to_string())]
    );
}

#[test]
fn failed_start_is_no_instance() {
    let (mut c, w1, w2) = two_workers();
    c.feed(w1, assignment(5, line(0, 20, 100), &[], &[]));
    c.feed(w2, assignment(5, line(1, 20, 100), &[task(0)], &[]));
    c.feed(w1, start(line(0, 21, 101), task(0), 5));
    c.feed(
        w1,
        fact(
            line(0, 22, 101),
            FactKind::StartFailed { resource: task(0) },
        ),
    );
    c.feed(w2, start(line(1, 21, 102), task(0), 5));
    assert!(c.out.is_empty(), "{:?}", kinds(&c));
}

#[test]
fn generations_are_retired_once_every_worker_moved_on() {
    let (mut c, w1, w2) = two_workers();
    for g in 1..=50 {
        c.feed(
            w1,
            assignment(g, line(0, g as u64, g as i64 * 60), &[task(0)], &[]),
        );
        c.feed(
            w2,
            assignment(g, line(1, g as u64, g as i64 * 60), &[task(1)], &[]),
        );
        c.retire();
    }
    assert!(c.held_generations() <= 1, "{}", c.held_generations());
    // A silent worker holds back only its own generation.
    let w3 = c.worker("w3".into());
    c.feed(w3, assignment(50, line(2, 1, 50 * 60), &[], &[]));
    for g in 51..=60 {
        c.feed(
            w1,
            assignment(g, line(0, g as u64, g as i64 * 60), &[task(0)], &[]),
        );
        c.retire();
    }
    // w2 and w3 (generation 50) are laggards: the generations w1 alone
    // went through are retired past them.
    assert!(c.held_generations() <= 2, "{}", c.held_generations());
    let end = || fact(line(9, 1, 61 * 60), FactKind::End);
    c.feed(w3, end());
    c.feed(w2, end());
    c.retire();
    assert!(c.held_generations() <= 1, "{}", c.held_generations());
}

#[test]
fn an_episode_is_forgotten_once_one_of_its_instances_stopped() {
    let (mut c, w1, w2) = two_workers();
    let both = |c: &mut Checker,
                g: i32,
                live1: &[(Resource, SourceLine)],
                live2: &[(Resource, SourceLine)]| {
        let t = g as i64 * 60;
        c.feed(
            w1,
            assignment(g, line(0, g as u64 * 10, t), &[task(0)], live1),
        );
        c.feed(
            w2,
            assignment(g, line(1, g as u64 * 10, t), &[task(2)], live2),
        );
        c.retire();
    };
    // src-2 runs on both in generation 6: one episode, reported once.
    let on_w1 = [(task(2), line(0, 6, 10))];
    let on_w2 = [(task(2), line(1, 7, 10))];
    both(&mut c, 6, &on_w1, &on_w2);
    both(&mut c, 7, &on_w1, &on_w2);
    assert_eq!(c.out.len(), 1);
    assert_eq!(c.held_episodes(), 1);
    // w1 stops it: the episode cannot recur and is forgotten.
    both(&mut c, 8, &[], &on_w2);
    both(&mut c, 9, &[], &on_w2);
    assert_eq!(c.held_episodes(), 0);
    assert_eq!(c.out.len(), 1);
}

/// A worker frozen past its session timeout (SIGSTOP, a long GC pause)
/// logs its fencing only when it resumes: the others already started its
/// task in a generation formed without it, and it stops its own instance
/// only after that (real 3.9.1: 296 duplicate records in that second).
fn frozen_worker(stopped_before_the_freeze: bool) -> Checker {
    frozen_worker_through(stopped_before_the_freeze, 0)
}

/// The same, with `more` generations (and retirements) after the others'
/// start while w1 is frozen.
fn frozen_worker_through(stopped_before_the_freeze: bool, more: i32) -> Checker {
    let (mut c, w1, w2) = two_workers();
    c.feed(
        w1,
        assignment(7, line(0, 20, 10), &[task(0)], &[(task(0), line(0, 5, 5))]),
    );
    c.feed(w2, assignment(7, line(1, 20, 10), &[], &[]));
    if stopped_before_the_freeze {
        c.feed(w1, stop(line(0, 21, 11), task(0)));
    }
    // w1 frozen from t=12; gen 8 (t=40) gives src-0 to w2
    c.feed(w2, assignment(8, line(1, 30, 40), &[task(0)], &[]));
    c.feed(w2, start(line(1, 31, 40), task(0), 8));
    let instance = line(1, 31, 40);
    for g in 9..9 + more {
        let l = line(1, 40 + g as u64, 41 + i64::from(g - 9) / 10);
        c.feed(
            w2,
            assignment(g, l, &[task(0)], &[(task(0), instance.clone())]),
        );
        c.retire();
    }
    // w1 resumes at t=52: its heartbeat is fenced, then it stops src-0
    c.feed(w1, fact(line(0, 30, 52), FactKind::Left));
    c.feed(w1, stop(line(0, 31, 53), task(0)));
    c
}

#[test]
fn a_frozen_worker_is_compared_with_generations_retired_past_it() {
    let c = frozen_worker_through(false, 100);
    assert_eq!(kinds(&c), vec![(Kind::Zombie, "src-0".into(), 31, 1)]);
    // What it ran is compared once its departure comes, from what was
    // kept of the generations every other worker left: w2's instance.
    assert!(c.out[0].finding.reason.contains("w1 left the group"));
    let c = frozen_worker_through(true, 100);
    assert!(kinds(&c).is_empty(), "{:?}", kinds(&c));
}

#[test]
fn a_laggard_holds_one_instance_per_start_not_its_generations() {
    let mut c = frozen_worker_through(false, 0);
    let w2 = 1;
    let instance = line(1, 31, 40);
    for g in 9..300 {
        let l = line(1, 40 + g as u64, 41 + i64::from(g - 9) / 10);
        c.feed(
            w2,
            assignment(g, l, &[task(0)], &[(task(0), instance.clone())]),
        );
        c.retire();
    }
    // The frozen w1 (generation 7) pins only its own generation and the
    // current one; of the rest, w2's one instance of src-0 is kept.
    assert!(c.held_generations() <= 3, "{}", c.held_generations());
    assert_eq!(c.held_for_laggards(), 1);
}

#[test]
fn a_frozen_worker_resumes_after_its_task_started_elsewhere() {
    let c = frozen_worker(false);
    assert_eq!(kinds(&c), vec![(Kind::Zombie, "src-0".into(), 31, 1)]);
    // no poll timeout: not KAFKA-16056
    assert_eq!(c.out[0].finding.upstream, None);
}

#[test]
fn a_frozen_worker_that_had_stopped_its_task_is_no_zombie() {
    let c = frozen_worker(true);
    assert!(kinds(&c).is_empty(), "{:?}", kinds(&c));
}

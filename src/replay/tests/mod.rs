//! The state machine on hand-built event sequences (no parsing involved).
//!
//! This file holds the harness ([`Run`] feeds events to a [`WorkerReplay`]
//! and lists the findings) and the event builders the tests share; the
//! tests are split by topic:
//!
//! * `lifecycle` — rebalances, stops, starts and restarts over a worker's
//!   life;
//! * `failed_starts` — the instance life cycle when starts fail, and the
//!   facts held back until a start's outcome is known;
//! * `stale_config` — `stale-config-start` (KAFKA-8869);
//! * `missed_lines` — what the reader could not read is never judged.

mod failed_starts;
mod lifecycle;
mod missed_lines;
mod stale_config;

use super::*;
use crate::event::{Milestone, StartFailure, TaskUpdateWording};
use crate::finding::Kind;
use crate::model::{Assignment, Name, SourceId, TaskId};

struct Run {
    r: WorkerReplay,
    seq: u64,
    /// Findings handed on as facts (facts mode).
    found: Vec<crate::finding::Finding>,
}

impl Run {
    fn new() -> Run {
        Run {
            r: WorkerReplay::new("w", true),
            seq: 0,
            found: Vec::new(),
        }
    }
    fn ev(&mut self, e: Event) -> &mut Run {
        self.ev_at(e, None)
    }
    fn ev_at(&mut self, e: Event, secs: Option<i64>) -> &mut Run {
        self.seq += 1;
        let text = format!("{e:?}");
        let ts = secs.map(|s| crate::model::Timestamp(s * 1000));
        let l = Line::new(SourceId(0), self.seq, self.seq, ts, &text, (0, 0));
        self.r.apply(&e, &l, LineCtx::default());
        self
    }
    fn finish(mut self) -> Vec<(u64, Kind, String)> {
        let (rep, facts) = self.r.finish_with_facts();
        self.found.extend(rep.findings);
        for f in facts {
            if let FactKind::Finding(x) | FactKind::ForeignStart { finding: x, .. } = f.kind {
                self.found.push(*x);
            }
        }
        self.found
            .iter()
            .map(|f| {
                (
                    f.trigger.line,
                    f.kind,
                    f.resource.as_ref().map_or("-".into(), |r| r.id()),
                )
            })
            .collect()
    }
}

fn n(s: &str) -> Name {
    Name::from(s)
}
fn t(c: &str, i: u32) -> TaskId {
    TaskId::new(c, i)
}
fn task(c: &str, i: u32) -> Resource {
    Resource::Task(t(c, i))
}
fn conn(c: &str) -> Resource {
    Resource::Connector(n(c))
}

fn coop(
    generation: i32,
    offset: i64,
    conns: &[&str],
    tasks: &[TaskId],
    revoked: &[TaskId],
) -> Event {
    Event::Assignment {
        generation: Some(generation),
        protocol_version: Some(2),
        assignment: Assignment {
            error: 0,
            leader: "l".into(),
            leader_url: "http://l:8083/".into(),
            offset,
            connectors: conns.iter().map(|c| n(c)).collect(),
            tasks: tasks.into(),
            revoked_connectors: Some(vec![].into()),
            revoked_tasks: Some(revoked.into()),
            delay: Some(0),
        },
        rebalance_delay: Some(0),
    }
}

fn eager_v0(offset: i64, conns: &[&str], tasks: &[TaskId]) -> Event {
    Event::Assignment {
        generation: None,
        protocol_version: None,
        assignment: Assignment {
            offset,
            connectors: conns.iter().map(|c| n(c)).collect(),
            tasks: tasks.into(),
            ..Assignment::default()
        },
        rebalance_delay: None,
    }
}

/// Worker start, first rebalance at `offset` starting `tasks`.
fn started(tasks: &[TaskId]) -> Run {
    let mut r = Run::new();
    r.ev(Event::Milestone(Milestone::HerderStarting))
        .ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(coop(1, 5, &[], tasks, &[]))
        .ev(Event::CatchingUp)
        .ev(Event::FinishedReadingToEnd { offset: 5 })
        .ev(Event::StartingWork { offset: 5 });
    for x in tasks {
        r.ev(Event::Starting(Resource::Task(x.clone())));
    }
    r.ev(Event::FinishedStartingWork);
    r
}

fn rebalance(r: &mut Run) -> &mut Run {
    r.ev(Event::RebalanceStarted { by_herder: false })
        .ev(Event::Rejoining { group: None })
        .ev(Event::JoinedGeneration {
            generation: 2,
            member_id: None,
            protocol: None,
            group: None,
        })
}

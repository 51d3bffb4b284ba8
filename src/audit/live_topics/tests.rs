//! Days of a status topic read live, poll by poll: compacted as a watcher
//! compacts it, the run hands on the same findings as one that keeps every
//! record, and keeps a fraction of the records.

use super::*;
use crate::audit::sink::{Collect, SourceTable};
use crate::model::Key;
use crate::topics::{dump, record};

/// A cluster of six workers and ten tasks rebalancing every 70 s for
/// `days`, two tasks moving each time; every 200th rebalance a worker back
/// from a freeze writes RUNNING for a task at a generation three behind
/// (a zombie by the status topic). Polls of `per_poll` rebalances, each a
/// console dump's text.
fn polls(days: i64, per_poll: usize) -> Vec<String> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let worker = |w: u64| format!("10.0.0.{w}:8083");
    let mut owner: Vec<u64> = (0..10).map(|t| t % 6).collect();
    let (mut ts, mut generation, mut offset) = (1_800_000_000_000i64, 1i32, 0u64);
    let mut text = String::new();
    let mut out = Vec::new();
    let mut line = |text: &mut String, ts: i64, task: usize, state: &str, w: u64, g: i32| {
        text.push_str(&format!(
            "CreateTime:{ts}\tPartition:0\tOffset:{offset}\tstatus-task-c-{task}\t{{\"state\":\"{state}\",\"trace\":null,\"worker_id\":\"{}\",\"generation\":{g}}}\n",
            worker(w)
        ));
        offset += 1;
    };
    let rebalances = days * 86_400 / 70;
    for r in 0..rebalances {
        ts += 70_000;
        generation += 1;
        for _ in 0..2 {
            let task = next(10) as usize;
            let to = (owner[task] + 1 + next(5)) % 6;
            line(&mut text, ts, task, "UNASSIGNED", owner[task], generation);
            line(&mut text, ts + 300, task, "RUNNING", to, generation);
            owner[task] = to;
        }
        if r % 200 == 199 {
            let task = next(10) as usize;
            let frozen = (owner[task] + 1) % 6;
            line(&mut text, ts + 900, task, "RUNNING", frozen, generation - 3);
        }
        if (r as usize + 1).is_multiple_of(per_poll) {
            out.push(std::mem::take(&mut text));
        }
    }
    out.push(text);
    out
}

/// Reads the polls live; the findings handed on (as JSON) and the records
/// kept at the end.
fn run(polls: &[String], floor: usize, logs_at: Option<i64>) -> (Vec<String>, usize) {
    let feed = RecordFeed::new(vec![(
        "connect-status".into(),
        "kafka://x/connect-status".into(),
    )]);
    let mut live = LiveTopics {
        floor,
        ..LiveTopics::default()
    };
    live.source(SourceId(0));
    let (mut merger, mut reducer) = (Merger::default(), Reducer::new());
    let names = SourceTable(vec!["kafka://x/connect-status".into()]);
    let mut sink = Collect::default();
    if let Some(ts) = logs_at {
        // the logs already read up to `ts` when the topics' first poll comes
        let at = Key {
            ts,
            stream: 0,
            seq: 0,
        };
        reducer.advance_to(at, &names, &mut sink).unwrap();
    }
    let mut n = 0u64;
    for text in polls {
        let d = dump::read(SourceId(0), text.as_bytes());
        assert!(d.skipped.is_empty());
        let records = d
            .records
            .into_iter()
            .map(|mut raw| {
                // a live read numbers its records on, across polls
                n += 1;
                raw.line.line = n;
                raw.line.seq = n;
                raw.at.topic = Some(Arc::from("connect-status"));
                record::classify(raw).unwrap()
            })
            .collect();
        feed.push(records, Vec::new());
        live.take(&feed, &mut merger, &mut reducer);
        let all = Key {
            ts: i64::MAX,
            stream: u32::MAX,
            seq: u64::MAX,
        };
        for item in merger.release(all) {
            reducer.push(item, &names, &mut sink).unwrap();
        }
    }
    reducer.finish(&names, &mut sink).unwrap();
    let found = sink
        .findings
        .iter()
        .map(|f| serde_json::to_string(f).unwrap())
        .collect();
    (found, live.records.len())
}

#[test]
fn compacted_days_hand_on_what_a_whole_read_does() {
    let polls = polls(2, 40);
    let (whole, all) = run(&polls, usize::MAX, None);
    let (compacted, kept) = run(&polls, 256, None);
    assert!(whole.len() >= 4, "{} findings", whole.len());
    assert_eq!(whole, compacted);
    // the last hour (about 200 records) and each task's open run and
    // latest record, each worker's highest: a few hundred of 10,000
    assert!(kept * 10 < all, "kept {kept} of {all}");
}

#[test]
fn the_history_read_at_the_start_is_audited_whole() {
    // the topics' two days come in one poll, the logs already past them,
    // then a day more poll by poll
    let mut polls = polls(3, 40);
    let rest = polls.split_off(polls.len() * 2 / 3);
    let mut all = vec![polls.concat()];
    all.extend(rest);
    let today = 1_800_000_000_000 + 3 * 86_400_000;
    let (whole, _) = run(&all, usize::MAX, Some(today));
    let (compacted, kept) = run(&all, 256, Some(today));
    assert!(whole.len() >= 6, "{} findings", whole.len());
    assert_eq!(whole, compacted);
    assert!(kept < 2_000, "kept {kept}");
}

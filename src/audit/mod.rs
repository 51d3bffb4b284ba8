//! The library's entry point: inputs in, findings out as they become
//! final, one [`Report`] at the end.
//!
//! The audit is two stages joined by a stream of facts (see
//! `docs/design.md`, "Orchestration"):
//!
//! 1. per stream (a file with its rotated segments, or stdin): lines →
//!    events → the replay of each worker in it, which hands on [`Item`]s:
//!    its facts for the cross-worker checks and its findings once final,
//!    each keyed by log time ([`Key`]); this stage is [`crate::stream`]'s;
//! 2. per group: the items of all streams merged in key order, up to a
//!    watermark no stream can still go below ([`merge`]), feed the
//!    cross-worker checker, whose output is the run's findings in the
//!    order they became final.
//!
//! Streams advance together in rounds of log time, in parallel; the merged
//! order depends only on the items, not on the rounds or the threads, so
//! the output is the same for any `-j`, and the same when the two stages
//! run apart (`herder-audit map | herder-audit reduce`). Memory stays
//! bounded by workers × resources: nothing is kept per line, findings are
//! handed to the [`Sink`] as they become final, and the checker forgets
//! generations every worker has left behind.

mod appear;
mod driver;
mod live_topics;
pub mod mapred;
pub mod merge;
pub mod observe;
pub mod plan;
mod quiet;
mod report;
pub mod sink;

pub use crate::model::Key;
pub use crate::stream::{InputError, InputReport, Item};
pub use driver::{Live, Wake, audit, audit_to, map_to};
pub use observe::{Observe, RecordFeed, StreamStat};
pub use report::Report;
pub use sink::{Collect, Names, Sink};

/// How to audit.
#[derive(Debug, Clone)]
pub struct Options {
    /// Keep the per-generation state (for the replay view).
    pub keep_generations: bool,
    /// Worker threads; `None` = rayon's default (one per core).
    pub jobs: Option<usize>,
    /// Run the cross-worker checks.
    pub cross: bool,
    /// Show a progress bar on stderr (when it is a terminal and the run is
    /// long).
    pub progress: bool,
    /// Live input (stdin, `--follow`): how to wait for more.
    pub live: Option<Live>,
    /// Record each worker's timeline (for the HTML report).
    pub timeline: bool,
    /// The internal topics as a second witness (docs/topics.md): their
    /// records join the items, their inputs numbered after the logs'.
    pub witness: Option<Witness>,
}

/// The internal topics handed to an audit: their records, and the inputs
/// (dumps, live topics) that held them, numbered after the logs' inputs.
#[derive(Debug, Clone)]
pub struct Witness {
    pub records: std::sync::Arc<crate::topics::cross::Witness>,
    pub inputs: Vec<InputReport>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            keep_generations: false,
            jobs: None,
            cross: true,
            progress: false,
            live: None,
            timeline: false,
            witness: None,
        }
    }
}

/// The records of the internal topics as items: keyed by their time
/// stamps, ranked after every log stream (docs/topics.md, "Checks with
/// the logs").
pub(crate) fn witness_items(w: &Witness) -> Vec<Item> {
    let label: std::sync::Arc<str> = std::sync::Arc::from("topics");
    w.records
        .keyed()
        .into_iter()
        .enumerate()
        .map(|(n, k)| record_item(&label, &k, n as u64 + 1))
        .collect()
}

/// One record as an item, `seq` its place among the records.
pub(crate) fn record_item(
    label: &std::sync::Arc<str>,
    k: &crate::topics::cross::Keyed<'_>,
    seq: u64,
) -> Item {
    use crate::replay::{Fact, FactKind};
    Item {
        key: Key {
            ts: k.ts,
            stream: u32::MAX,
            seq,
        },
        worker: label.clone(),
        fact: Fact {
            group: None,
            cluster: None,
            identity: None,
            line: k.line.clone(),
            kind: FactKind::Record {
                cluster: k.cluster,
                record: k.record,
            },
        },
    }
}

/// The worker ids (`host:port`) of the logs read, from their REST URLs.
fn log_ids(report: &Report) -> std::collections::BTreeSet<String> {
    ids_of(
        report
            .workers
            .iter()
            .filter_map(|w| w.summary.rest_url.as_deref()),
    )
}

/// REST URLs as worker ids (`http://h:8083/` → `h:8083`).
pub(crate) fn ids_of<'a>(
    urls: impl IntoIterator<Item = &'a str>,
) -> std::collections::BTreeSet<String> {
    urls.into_iter()
        .filter_map(|u| crate::topics::cross::worker_id(&format!("rest:{u}")).map(str::to_string))
        .collect()
}

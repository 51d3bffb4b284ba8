//! Connect's internal topics read live beside the logs (`herder-audit
//! watch --bootstrap HOST:PORT --config-topic T --status-topic T`): a
//! thread polls them with the same reader as `herder-audit --bootstrap`
//! ([`LiveReader::poll`]: by offset, no group, nothing written) and hands
//! the records to the audit's [`RecordFeed`], which adds them to the
//! witness and their items to the merge as they come (one model, the
//! audit's; docs/watch.md, "The internal topics, live").
//!
//! A broker that is down or goes away never ends the watcher: the reader
//! says so on standard error once per outage, counts each failed attempt in
//! `herder_audit_input_errors_total{reason="kafka"}`, shows
//! `herder_audit_topics_up{topic} 0`, and tries again with a backoff (1 s,
//! doubling, at most 30 s); it goes on from the offsets it had reached.

use super::core::Watcher;
use crate::audit::{RecordFeed, Wake};
use crate::model::SourceId;
use crate::topics::live::{Connection, LiveReader};
use crate::topics::record;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const BACKOFF_MIN: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// Where the topics are (the flags of `herder-audit watch`).
#[derive(Debug, Clone)]
pub struct TopicsSource {
    pub bootstrap: String,
    /// The config and status topics to read.
    pub topics: Vec<String>,
    /// A Kafka client properties file (credentials: there or in the
    /// environment).
    pub kafka_config: Option<PathBuf>,
    /// Seconds between two polls.
    pub interval: f64,
}

impl TopicsSource {
    /// Each topic's input name, as the findings quote its records.
    pub fn inputs(&self) -> Vec<(String, String)> {
        self.topics
            .iter()
            .map(|t| (t.clone(), format!("kafka://{}/{t}", self.bootstrap)))
            .collect()
    }

    /// The connection (security from the environment or the properties
    /// file); an error names what is wrong with them.
    pub fn connection(&self) -> Result<Connection, String> {
        if self.topics.is_empty() {
            return Err("--bootstrap needs --config-topic and/or --status-topic".into());
        }
        crate::topics::live::connect_to(&self.bootstrap, self.kafka_config.as_deref())
    }
}

/// The reading thread's state.
struct Poller {
    src: TopicsSource,
    conn: Connection,
    feed: Arc<RecordFeed>,
    wake: Arc<Wake>,
    watcher: Watcher,
    stop: Arc<AtomicBool>,
    /// The outage being told, if any.
    down: bool,
    backoff: Duration,
}

/// Starts reading the topics on a thread of its own; it ends with the
/// watcher (`stop`).
pub fn start(
    src: &TopicsSource,
    conn: Connection,
    feed: Arc<RecordFeed>,
    wake: Arc<Wake>,
    watcher: Watcher,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    let mut p = Poller {
        src: src.clone(),
        conn,
        feed,
        wake,
        watcher,
        stop,
        down: false,
        backoff: BACKOFF_MIN,
    };
    std::thread::Builder::new()
        .name("topics".into())
        .spawn(move || p.run())
        .map(|_| ())
}

impl Poller {
    fn run(&mut self) {
        let mut reader: Option<LiveReader> = None;
        while !self.stop.load(Ordering::Relaxed) {
            let r = match &mut reader {
                Some(r) => r,
                None => match LiveReader::connect(&self.conn) {
                    Ok(r) => reader.insert(r),
                    Err(e) => {
                        self.trouble(&e);
                        continue;
                    }
                },
            };
            let (records, skipped, error) = poll(r, &self.src.topics);
            let mut per_topic: Vec<u64> = vec![0; self.src.topics.len()];
            for rec in &records {
                if let Some(n) = per_topic.get_mut(rec.raw.line.source.0 as usize) {
                    *n += 1;
                }
            }
            if !records.is_empty() || !skipped.is_empty() {
                let names = self.src.inputs();
                for s in &skipped {
                    let name = names.get(s.source.0 as usize).map_or("", |(_, n)| n);
                    eprintln!(
                        "herder-audit watch: {name}:{}: warning: record skipped: {}",
                        s.line, s.message
                    );
                }
                self.feed.push(records, skipped);
                self.wake.notify();
            }
            {
                let mut core = self.watcher.lock();
                for (t, n) in self.src.topics.iter().zip(&per_topic) {
                    core.metrics.topic_records(t, *n);
                }
            }
            match error {
                Some(e) => self.trouble(&e),
                None => {
                    if std::mem::take(&mut self.down) {
                        eprintln!(
                            "herder-audit watch: {}: the topics are read again",
                            self.src.bootstrap
                        );
                    }
                    let mut core = self.watcher.lock();
                    for t in &self.src.topics {
                        core.metrics.topics_up(t, true);
                    }
                    drop(core);
                    self.backoff = BACKOFF_MIN;
                    self.sleep(Duration::from_secs_f64(
                        self.src.interval.clamp(0.01, 3600.0),
                    ));
                }
            }
        }
    }

    /// The cluster cannot be reached or read: said once per outage,
    /// counted each time; then a wait before the next try.
    fn trouble(&mut self, e: &str) {
        if !std::mem::replace(&mut self.down, true) {
            eprintln!(
                "herder-audit watch: {}: cannot read the topics: {e}; trying again (every {} to {} s)",
                self.src.bootstrap,
                BACKOFF_MIN.as_secs(),
                BACKOFF_MAX.as_secs()
            );
        }
        {
            let mut core = self.watcher.lock();
            core.metrics.input_error("kafka", 1);
            for t in &self.src.topics {
                core.metrics.topics_up(t, false);
            }
        }
        self.sleep(self.backoff);
        self.backoff = (self.backoff * 2).min(BACKOFF_MAX);
    }

    /// Sleeps, waking early when the watcher ends.
    fn sleep(&self, d: Duration) {
        let until = Instant::now() + d;
        while !self.stop.load(Ordering::Relaxed) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            std::thread::sleep(left.min(Duration::from_millis(100)));
        }
    }
}

/// One poll of every topic: the typed records (each record's source: its
/// topic's place), the records that cannot be read, and the error that
/// ended the poll early, if one did (what was read before it is kept: the
/// reader goes on from there).
fn poll(
    r: &mut LiveReader,
    topics: &[String],
) -> (
    Vec<record::Record>,
    Vec<crate::topics::Skipped>,
    Option<String>,
) {
    let (mut records, mut skipped) = (Vec::new(), Vec::new());
    for (k, t) in topics.iter().enumerate() {
        match r.poll(t, SourceId(k as u32)) {
            Ok(raws) => {
                for raw in raws {
                    match record::classify(raw) {
                        Ok(x) => records.push(x),
                        Err(s) => skipped.push(s),
                    }
                }
            }
            Err(e) => return (records, skipped, Some(format!("{t}: {e}"))),
        }
    }
    (records, skipped, None)
}

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
use crate::topics::{RawRecord, record};
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

/// What reads the topics: the live reader (a stand-in in tests).
pub trait TopicReader: Send {
    /// Every record of `topic` from where the last call stopped up to its
    /// end as it is now (see [`LiveReader::poll`]).
    fn poll(&mut self, topic: &str, source: SourceId) -> Result<Vec<RawRecord>, String>;
}

impl TopicReader for LiveReader {
    fn poll(&mut self, topic: &str, source: SourceId) -> Result<Vec<RawRecord>, String> {
        LiveReader::poll(self, topic, source)
    }
}

/// Makes a reader (connects to the cluster); called again after a failure.
pub type Connect = Box<dyn FnMut() -> Result<Box<dyn TopicReader>, String> + Send>;

/// The reading thread's state.
struct Poller {
    src: TopicsSource,
    connect: Connect,
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
    let connect: Connect =
        Box::new(move || LiveReader::connect(&conn).map(|r| Box::new(r) as Box<dyn TopicReader>));
    start_with(src, connect, feed, wake, watcher, stop)
}

/// [`start`] with the reader `connect` makes.
pub fn start_with(
    src: &TopicsSource,
    connect: Connect,
    feed: Arc<RecordFeed>,
    wake: Arc<Wake>,
    watcher: Watcher,
    stop: Arc<AtomicBool>,
) -> std::io::Result<()> {
    let mut p = Poller {
        src: src.clone(),
        connect,
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
        let mut reader: Option<Box<dyn TopicReader>> = None;
        while !self.stop.load(Ordering::Relaxed) {
            let r = match &mut reader {
                Some(r) => r,
                None => match (self.connect)() {
                    Ok(r) => reader.insert(r),
                    Err(e) => {
                        self.trouble(&e);
                        continue;
                    }
                },
            };
            let (records, skipped, error) = poll(&mut **r, &self.src.topics);
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
                    // Every topic read to its end, the records handed on.
                    core.metrics.readiness.topics_read();
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
            core.metrics.readiness.topics_failed(e);
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
    r: &mut dyn TopicReader,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::{core, metrics, state};
    use std::sync::Mutex;

    /// A cluster that cannot be read at first, then can (and has no
    /// records): each poll answers the next of `answers`, then `Ok`.
    struct Stand {
        answers: Arc<Mutex<Vec<Result<(), String>>>>,
    }

    impl TopicReader for Stand {
        fn poll(&mut self, _topic: &str, _source: SourceId) -> Result<Vec<RawRecord>, String> {
            let mut a = self.answers.lock().unwrap();
            if a.is_empty() {
                Ok(Vec::new())
            } else {
                a.remove(0).map(|()| Vec::new())
            }
        }
    }

    fn watcher() -> Watcher {
        let (book, _) = state::Book::open(None, None, state::Retention::default()).unwrap();
        let metrics = metrics::Metrics::new(metrics::Limits { connectors: 10 });
        let w = Watcher::new(core::Core::new(
            metrics,
            book,
            core::Output::Stdout(std::io::stdout()),
            Duration::from_secs(1),
        ));
        w.lock().metrics.readiness.looked();
        w
    }

    /// Waits (at most 20 s) until `cond` holds of the watcher's readiness.
    fn until(w: &Watcher, cond: impl Fn(Option<String>) -> bool) -> Option<String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let why = w.lock().metrics.not_ready();
            if cond(why.clone()) || Instant::now() > deadline {
                return why;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn ready_only_once_the_topics_were_read_to_their_end() {
        let src = TopicsSource {
            bootstrap: "127.0.0.1:9".into(),
            topics: vec!["connect-status".into(), "connect-configs".into()],
            kafka_config: None,
            interval: 0.01,
        };
        let w = watcher();
        w.lock().metrics.readiness.expect_topics(&src.topics);
        let why = w.lock().metrics.not_ready().unwrap();
        assert!(why.contains("connect-status, connect-configs"), "{why}");
        // The first connection fails, then the first poll of the status
        // topic: not ready until a poll reads every topic to its end.
        let answers = Arc::new(Mutex::new(vec![Err("the leader moved".to_string())]));
        let mut first = true;
        let given = answers.clone();
        let connect: Connect = Box::new(move || {
            if std::mem::take(&mut first) {
                return Err("connection refused".into());
            }
            Ok(Box::new(Stand {
                answers: given.clone(),
            }) as Box<dyn TopicReader>)
        });
        let stop = Arc::new(AtomicBool::new(false));
        let feed = Arc::new(RecordFeed::new(src.inputs()));
        let wake = Arc::new(Wake::default());
        start_with(&src, connect, feed, wake, w.clone(), stop.clone()).unwrap();
        let why = until(&w, |why| why.is_some_and(|y| y.contains("the last try")));
        assert!(
            why.as_deref()
                .is_some_and(|y| y.contains("connection refused")),
            "{why:?}"
        );
        let why = until(&w, |why| why.is_some_and(|y| y.contains("leader moved")));
        assert!(why.is_some(), "not ready after a failed poll");
        assert_eq!(until(&w, |why| why.is_none()), None, "ready once read");
        assert!(answers.lock().unwrap().is_empty());
        stop.store(true, Ordering::Relaxed);
    }
}

//! `herder-audit watch`: the audit as a long-running service beside a
//! Connect cluster. It follows the workers' logs (files, directories, a
//! node's `/var/log/pods`, standard input) as `--follow` does, emits each
//! finding once, as soon as it is provable, as a JSON line (stdout or
//! `-o FILE`), serves Prometheus metrics, health, readiness and the HTML
//! timeline of a recent window over HTTP, and keeps what a restart needs
//! in a state file. docs/watch.md tells how to deploy it.
//!
//! The audit is the library's ([`crate::audit::audit_to`] with live
//! options); this module is its sink and observer ([`core`]), the metrics
//! ([`metrics`]), the state file ([`state`]), the server ([`server`]) and
//! the page ([`window`]).
//!
//! With `--bootstrap`, Connect's internal topics are read live by a thread
//! of their own ([`topics`]) and their records join the same audit
//! ([`crate::audit::RecordFeed`]); the interruptions the audit tracks are
//! counted in the metrics once each ([`isolation`]).

pub mod core;
pub mod isolation;
pub mod metrics;
pub mod ready;
pub mod server;
pub mod state;
pub mod topics;
pub mod window;

use crate::audit::{self, Live, Options};
use crate::exit::{EXIT_ERROR, EXIT_OK};
use crate::input;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What `herder-audit watch` follows, where it listens and writes, and its
/// limits (the command line's flags, `src/cli/flags/watch.rs`, say what
/// each means).
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// Log files or directories to follow; `-` or none: standard input.
    pub paths: Vec<PathBuf>,
    /// Address of the metrics, health and timeline endpoint.
    pub listen: String,
    /// The state file (emitted findings' identities, read positions).
    pub state: Option<PathBuf>,
    /// The findings' file (JSON lines) instead of standard output.
    pub output: Option<PathBuf>,
    /// Seconds a silent log holds back the others' cross-worker findings.
    pub idle_timeout: f64,
    /// Seconds a line may take from its time stamp to its file (0: quiet
    /// logs are not bounded by their clocks).
    pub quiet_bound: f64,
    /// Seconds a followed file may be gone before its stream ends.
    pub gone_after: f64,
    /// Distinct `connector` label values at most.
    pub max_connector_labels: usize,
    /// Hours of log time an emitted finding is remembered.
    pub state_retention: f64,
    /// Seconds between saves of the state.
    pub state_interval: f64,
    /// Only the logs whose path holds one of these texts.
    pub include: Vec<String>,
    /// Worker threads (`None`: one per core).
    pub jobs: Option<usize>,
    /// The internal topics read live beside the logs.
    pub topics: Option<topics::TopicsSource>,
}

/// A non-negative, finite number of seconds (else `default`), capped at a day.
fn seconds(v: f64, default: f64) -> Duration {
    let v = if v.is_finite() && v >= 0.0 {
        v
    } else {
        default
    };
    Duration::from_secs_f64(v.min(86_400.0))
}

/// Runs `herder-audit watch`; returns the exit status.
pub fn run(args: &WatchOptions) -> i32 {
    match watch(args) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("herder-audit watch: {e}");
            EXIT_ERROR
        }
    }
}

/// The state file opened (and the output's tail read back), saying on
/// standard error what a restart found there.
fn open_book(args: &WatchOptions) -> std::io::Result<state::Book> {
    let retention = state::Retention {
        window_ms: (args.state_retention.clamp(0.0, 24.0 * 366.0) * 3_600_000.0) as i64,
        ..state::Retention::default()
    };
    let (book, restored) =
        state::Book::open(args.state.as_deref(), args.output.as_deref(), retention)?;
    if args.state.is_some() {
        eprintln!(
            "herder-audit watch: state: {} finding(s) already emitted, {} stream position(s){}{}",
            restored.findings,
            restored.streams,
            if restored.from_output > 0 {
                format!(
                    ", {} more read back from the output's tail",
                    restored.from_output
                )
            } else {
                String::new()
            },
            if restored.cut > 0 {
                format!(
                    ", a partial last line of {} bytes cut off the output",
                    restored.cut
                )
            } else {
                String::new()
            }
        );
    }
    Ok(book)
}

fn watch(args: &WatchOptions) -> std::io::Result<()> {
    let paths = if args.paths.is_empty() && args.topics.is_none() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    // Bad security settings end the run at once; an unreachable broker
    // does not (the reader tries again).
    let connection = match &args.topics {
        Some(t) => Some(t.connection().map_err(std::io::Error::other)?),
        None => None,
    };
    let book = open_book(args)?;
    let output = match &args.output {
        Some(p) => core::Output::file(p)?,
        None => core::Output::Stdout(std::io::stdout()),
    };
    let mut metrics = metrics::Metrics::new(metrics::Limits {
        connectors: args.max_connector_labels,
    });
    if let Some(t) = &args.topics {
        // Not ready before the topics were read to their end once.
        metrics.readiness.expect_topics(&t.topics);
    }
    let watcher = core::Watcher::new(core::Core::new(
        metrics,
        book,
        output,
        seconds(args.state_interval, 1.0),
    ));
    let server = server::Server::start(&args.listen, watcher.clone(), paths.clone())?;
    eprintln!(
        "herder-audit watch: serving http://{}/metrics, /healthz, /readyz and / (the timeline)",
        server.addr
    );
    watcher.lock().include = args.include.clone();
    let (inputs, walk_errors) = input::expand(&paths);
    let inputs: Vec<_> = {
        let core = watcher.lock();
        inputs.into_iter().filter(|i| core.accepts(i)).collect()
    };
    for (input, message) in &walk_errors {
        eprintln!("herder-audit watch: {input}: {message}");
    }
    if !walk_errors.is_empty() {
        watcher
            .lock()
            .metrics
            .input_error("read", walk_errors.len() as u64);
    }
    let mut live = Live::new(seconds(args.idle_timeout, 1.0));
    live.follow = true;
    live.roots = paths.iter().filter(|p| p.is_dir()).cloned().collect();
    live.observer = Some(Arc::new(watcher.clone()));
    live.events = Some(Arc::new(watcher.clone()));
    live.forget_ended = Some(seconds(args.gone_after, 30.0));
    live.settle_early = true;
    live.quiet_bound = (args.quiet_bound.is_finite() && args.quiet_bound > 0.0)
        .then(|| seconds(args.quiet_bound, 0.25));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second signal while the first is handled ends the process.
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, live.stop.clone());
        let _ = signal_hook::flag::register(sig, live.stop.clone());
    }
    watcher.lock().stopping = Some(live.stop.clone());
    if let (Some(src), Some(conn)) = (&args.topics, connection) {
        let feed = Arc::new(audit::RecordFeed::new(src.inputs()));
        live.records = Some(feed.clone());
        topics::start(
            src,
            conn,
            feed,
            live.wake.clone(),
            watcher.clone(),
            live.stop.clone(),
        )?;
        eprintln!(
            "herder-audit watch: reading {} live from {}",
            src.topics.join(" and "),
            src.bootstrap
        );
    }
    let opts = Options {
        jobs: args.jobs,
        live: Some(live),
        ..Options::default()
    };
    let mut sink = watcher.clone();
    let audited = audit::audit_to(&inputs, &opts, &mut sink);
    let ended = audit::Sink::batch_end(&mut sink);
    {
        let mut core = watcher.lock();
        core.finished = true;
        core.save(true);
        eprintln!(
            "herder-audit watch: ended: {} finding(s) emitted, {} found again and not repeated; {} interruption(s) counted, {} found again and not counted",
            core.emitted, core.suppressed, core.interruptions.counted, core.interruptions.repeated
        );
    }
    server.stop();
    audited.and(ended).map(|_| ())
}

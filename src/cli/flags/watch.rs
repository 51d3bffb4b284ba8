//! The flags of `herder-audit watch`, the audit as a service
//! (docs/watch.md), and the service's options they give.

use crate::watch::WatchOptions;
use clap::Args;
use std::path::PathBuf;

/// `herder-audit watch`'s flags.
#[derive(Args, Debug, Clone)]
pub struct WatchArgs {
    /// Log files or directories to follow (directories recursively, new
    /// logs picked up as they appear: a node's /var/log/pods). `-` or no
    /// path reads standard input.
    pub paths: Vec<PathBuf>,
    /// Address of the metrics, health and timeline endpoint.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9464")]
    pub listen: String,
    /// Keep the emitted findings' identities and the read positions in this
    /// file (written atomically), so that a restart repeats nothing.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Append the findings (JSON lines) to this file instead of standard
    /// output; with --state, a restart reads back its tail and repeats
    /// nothing even after kill -9.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A worker's log silent this long (seconds) no longer holds back the
    /// cross-worker findings of the others.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub idle_timeout: f64,
    /// How long (seconds) a worker's line may take from its time stamp to
    /// its file: a quiet log at its end no longer holds back the others'
    /// cross-worker findings past the time its own clock says it has
    /// written up to, minus this (docs/watch.md). 0 turns it off (only
    /// --idle-timeout then lets the others go on).
    #[arg(long, value_name = "SECONDS", default_value_t = 0.25)]
    pub quiet_bound: f64,
    /// A followed file gone from its path this long (seconds; at once when
    /// its directory is gone, as a deleted pod's) ends its stream.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub gone_after: f64,
    /// Distinct `connector` label values at most; further connectors are
    /// counted as `_other`.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_connector_labels: usize,
    /// Forget emitted findings this many hours of log time old (a restart
    /// then never emits a finding older than what was forgotten).
    #[arg(long, value_name = "HOURS", default_value_t = 72.0)]
    pub state_retention: f64,
    /// Save the state at most this often (seconds), and when the watcher
    /// ends.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub state_interval: f64,
    /// Read only the logs whose path holds this text (repeatable; e.g. the
    /// `namespace_pod` prefix of the Connect workers' pod directories).
    #[arg(long, value_name = "TEXT")]
    pub include: Vec<String>,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub live: super::topics::LiveTopicsArgs,
    /// Seconds between two reads of the topics' new records.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 0.2,
        requires = "bootstrap"
    )]
    pub topics_interval: f64,
}

impl WatchArgs {
    /// The flags as the watch service's options.
    pub fn options(&self) -> WatchOptions {
        WatchOptions {
            paths: self.paths.clone(),
            listen: self.listen.clone(),
            state: self.state.clone(),
            output: self.output.clone(),
            idle_timeout: self.idle_timeout,
            quiet_bound: self.quiet_bound,
            gone_after: self.gone_after,
            max_connector_labels: self.max_connector_labels,
            state_retention: self.state_retention,
            state_interval: self.state_interval,
            include: self.include.clone(),
            jobs: self.jobs,
            topics: self
                .live
                .bootstrap
                .as_ref()
                .map(|b| crate::watch::topics::TopicsSource {
                    bootstrap: b.clone(),
                    topics: [&self.live.config_topic, &self.live.status_topic]
                        .into_iter()
                        .flatten()
                        .cloned()
                        .collect(),
                    kafka_config: self.live.kafka_config.clone(),
                    interval: self.topics_interval,
                }),
        }
    }
}

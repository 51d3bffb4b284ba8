//! The flags of the internal topics as a witness (`--topics`,
//! `--bootstrap` and the topics and client config it reads): see
//! docs/topics.md.

use clap::Args;
use std::path::PathBuf;

/// The flags of the internal topics' witness.
#[derive(Args, Debug, Clone, Default)]
pub struct TopicsArgs {
    /// Dumps of Connect's config, status and offsets topics (console
    /// consumer, kcat with the documented format, JSON lines; gzip read
    /// transparently; directories read recursively): see docs/topics.md.
    /// Without a log path, only the topics are audited (standard input is
    /// not read).
    #[arg(long = "topics", value_name = "DUMP", num_args = 1..)]
    pub dumps: Vec<PathBuf>,
    #[command(flatten)]
    pub live: LiveTopicsArgs,
}

impl TopicsArgs {
    pub fn given(&self) -> bool {
        !self.dumps.is_empty() || self.live.bootstrap.is_some()
    }
}

/// The flags of the internal topics read live (the audit's `--bootstrap`
/// and `herder-audit watch`'s).
#[derive(Args, Debug, Clone, Default)]
pub struct LiveTopicsArgs {
    /// Read Connect's internal topics live from this cluster (`host:port`,
    /// more brokers comma-separated), by offset, joining no group, writing
    /// nothing: a second witness beside the logs (docs/topics.md). Without
    /// a log path, only the topics are read.
    #[arg(long, value_name = "HOST:PORT")]
    pub bootstrap: Option<String>,
    /// The config topic to read with --bootstrap (`config.storage.topic`).
    #[arg(long, value_name = "TOPIC", requires = "bootstrap")]
    pub config_topic: Option<String>,
    /// The status topic to read with --bootstrap (`status.storage.topic`).
    #[arg(long, value_name = "TOPIC", requires = "bootstrap")]
    pub status_topic: Option<String>,
    /// A Kafka client properties file for --bootstrap
    /// (`security.protocol`, `sasl.mechanism`, `sasl.username`,
    /// `sasl.password` or `sasl.jaas.config`); credentials are also read
    /// from HERDER_AUDIT_KAFKA_* variables, never from the command line.
    #[arg(long, value_name = "FILE", requires = "bootstrap")]
    pub kafka_config: Option<PathBuf>,
}

//! The flags of the audit commands (`herder-audit [PATHS]`, `replay`, and
//! `reduce`'s printing): what to read, how to print it, the baseline, and
//! the `--color` values every command shares.

use super::TopicsArgs;
use crate::baseline::BaselineFiles;
use crate::finding::Severity;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// How the report is printed (every audit command).
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format (`html`: one self-contained page with the timeline).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the output to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit with status 1 when a finding of this severity or higher is found.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// When to colour text output (NO_COLOR is honoured in `auto`).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Print only findings, no summary (text output).
    #[arg(long)]
    pub no_summary: bool,
    /// The isolation section of the text summary: interruptions per
    /// connector and the changes that interrupted other connectors
    /// (`short`), or every interruption, rebalance and change (`full`).
    #[arg(long, value_enum, default_value_t = IsolationDetail::Short)]
    pub isolation: IsolationDetail,
    /// Print per-input statistics and timing on stderr.
    #[arg(short, long)]
    pub verbose: bool,
    #[command(flatten)]
    pub baseline: BaselineArgs,
}

#[derive(Args, Debug, Clone)]
pub struct AuditArgs {
    /// Log files or directories (read recursively; .gz is read
    /// transparently). `-` or no path reads standard input.
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Keep reading files at their end as they grow, across rotation, and
    /// look for new logs in the directories given (like `tail -F`); end
    /// with Ctrl-C or SIGTERM, which print the summary.
    #[arg(short, long)]
    pub follow: bool,
    /// Live input: a stream silent this long (seconds) no longer holds
    /// back the cross-worker findings of the others.
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    pub idle_timeout: f64,
    #[command(flatten)]
    pub topics: TopicsArgs,
}

/// The audit's `--baseline` / `--write-baseline` flags.
#[derive(Args, Debug, Clone, Default)]
pub struct BaselineArgs {
    /// A JSON report of an earlier run (`--format json` or `--write-baseline`):
    /// findings already in it are counted but not reported and do not
    /// affect the exit status.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Also write this run's JSON report, every finding included, to FILE
    /// (a baseline for later runs; it may be the `--baseline` file).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
}

impl BaselineArgs {
    /// The files the baseline reads and writes.
    pub fn files(&self) -> BaselineFiles {
        BaselineFiles {
            read: self.baseline.clone(),
            write: self.write_baseline.clone(),
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Jsonl,
    Html,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsolationDetail {
    Short,
    Full,
    Off,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    Error,
    Warning,
    Never,
}

impl FailOn {
    /// The lowest severity that fails the run (`None`: nothing does).
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Never => None,
        }
    }
}

/// When to colour text output (`--color` of every command that prints).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    pub fn choice(self) -> anstream::ColorChoice {
        match self {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        }
    }
}

//! The flags of the commands that test Connect itself: `check` (traces
//! against their expectation files) and `diff` (two JSON reports).

use super::ColorWhen;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// `herder-audit check` flags.
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// Traces, or directories to search for them: a log with `NAME.expect`
    /// beside it, or a directory with an `expect` file in it.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Write (or rewrite) each trace's expectation file from what the audit
    /// finds, keeping the comments of findings that stay.
    #[arg(long)]
    pub bless: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// When to colour text output (NO_COLOR is honoured in `auto`).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Threads (default: one per core); traces are checked in parallel.
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFormat {
    Text,
    Json,
    /// JUnit XML: one test case per trace.
    Junit,
}

/// `herder-audit diff` flags.
#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// The earlier run's JSON report (`--format json` or `jsonl`).
    pub old: PathBuf,
    /// The later run's JSON report.
    pub new: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// When to colour text output (NO_COLOR is honoured in `auto`).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    Text,
    Json,
}

//! The flags of the stages of a split audit: `plan`, `map`, `reduce`.

use super::OutputArgs;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct PlanArgs {
    /// Log files or directories (read recursively).
    pub paths: Vec<PathBuf>,
    /// Take the files' names from this file, one per line (`-`: standard
    /// input), instead of walking PATHS: nothing is opened (for names
    /// listed on a remote file system).
    #[arg(long, value_name = "FILE")]
    pub names: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct MapArgs {
    /// Log files or directories (read recursively); `-` reads standard
    /// input.
    pub paths: Vec<PathBuf>,
    /// Read the file PATH under the name NAME (a local copy of a remote
    /// file, named as the original so that reports and rotated segments
    /// agree with a run over the originals). Repeatable.
    #[arg(long = "segment", value_name = "NAME=PATH")]
    pub segments: Vec<String>,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Record the workers' timelines (for `reduce --format html`).
    #[arg(long)]
    pub timeline: bool,
}

#[derive(Args, Debug, Clone)]
pub struct ReduceArgs {
    /// Outputs of `map` and of `reduce --partial`, in any number and any
    /// order; `-` or nothing reads standard input.
    pub files: Vec<PathBuf>,
    /// Write a partial (findings with their place in the run's order) for
    /// a later reduce to combine with other partials, instead of the
    /// report; one machine can so check some groups and others the rest.
    #[arg(long)]
    pub partial: bool,
    #[command(flatten)]
    pub out: OutputArgs,
    /// The internal topics beside the map outputs (docs/topics.md): read
    /// here, in the cross-worker stage, so that `map | reduce --topics`
    /// reports what one audit with `--topics` does.
    #[command(flatten)]
    pub topics: super::TopicsArgs,
}

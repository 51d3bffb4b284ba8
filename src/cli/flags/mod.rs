//! Every flag of the command line, under one roof: the clap definitions of
//! the commands and their arguments ([`audit`], [`topics`], [`stages`],
//! [`check`], [`simulate`], [`watch`], and the small ones here), the shell completions
//! ([`complete`]) and the manual page ([`man`]), both generated from the
//! same definition the parser uses so that they can never disagree with
//! it. Nothing outside this module sees clap: the commands take the
//! parsed arguments and hand the library plain option structs.

pub mod audit;
pub mod check;
pub mod complete;
pub mod man;
pub mod simulate;
pub mod stages;
pub mod topics;
pub mod watch;

use crate::exit::{EXIT_ERROR, EXIT_OK};
use clap::{Args, CommandFactory, Parser, Subcommand};
use clap_complete::Shell;

pub use audit::{AuditArgs, ColorWhen, FailOn, Format, IsolationDetail, OutputArgs};
pub use check::{CheckArgs, CheckFormat, DiffArgs, DiffFormat};
pub use simulate::SimArgs;
pub use stages::{MapArgs, PlanArgs, ReduceArgs};
pub use topics::TopicsArgs;
pub use watch::WatchArgs;

#[derive(Parser, Debug)]
#[command(
    name = "herder-audit",
    version = env!("HERDER_AUDIT_VERSION"),
    about = "Replays Kafka Connect distributed-worker logs and proves whether every connector/task start and stop was justified.",
    after_help = DOCS,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub audit: AuditArgs,
}

/// The footer of `--help`: the documentation pages of the source tree.
const DOCS: &str = "\
Documentation (docs/ in the source tree; README.md is the front page):
  docs/guide.md            user guide: install, every command and flag, the logs read, completions, man page
  docs/live.md             live use: kubectl logs -f, docker compose logs -f, --follow
  docs/watch.md            watch: the audit as a service (metrics, alerts, dashboard, Kubernetes)
  docs/html-report.md      the HTML report (--format html)
  docs/testing-connect.md  testing Connect itself: check, --bless, baselines, diff
  docs/spark.md            split runs (plan, map, reduce) and Spark
  docs/simulator.md        the simulator (simulate)
  docs/json-schema.md      the JSON output (--format json, jsonl)
  docs/topics.md           Connect's internal topics as a witness (--topics, --bootstrap)
  docs/performance.md      benchmarks and their figures
  docs/real-kafka.md       traces captured from real Kafka clusters
  docs/log-sources.md      where worker logs come from
  docs/design.md, docs/rules.md, docs/log-formats.md: the design, the rules, the lines read per Kafka version
  docs/contributing.md     adding a log source, a release's wordings, a finding kind, a real-Kafka scenario";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the rebuilt state of every worker per generation: assigned,
    /// revoked, running, started, stopped, config offset.
    Replay(AuditArgs),
    /// Simulate a Connect cluster (or an archive of several): write one log
    /// per worker and the ground truth (`truth.json`) to a directory.
    Simulate(Box<SimArgs>),
    /// Explain a finding kind: what it means, why it matters, the protocol
    /// rule behind it, the upstream issues it matches, what to do.
    Explain(ExplainArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the manual page (roff) to standard output.
    Man,
    /// Audit every trace that has an expectation file and compare its
    /// findings with the expected ones, like a test run.
    Check(CheckArgs),
    /// Compare two JSON reports: findings that appeared and disappeared,
    /// and how the counts changed.
    Diff(DiffArgs),
    /// List the streams of a tree of logs (a log with its rotated
    /// segments) as JSON, by name only, so that a cluster can hand whole
    /// streams to `map`.
    Plan(PlanArgs),
    /// First stage of a split audit: read streams, write their facts and
    /// findings as JSON lines for `reduce`.
    Map(MapArgs),
    /// Second stage: combine `map` outputs (and partial reduces) from any
    /// number of machines into the report a single run prints.
    Reduce(ReduceArgs),
    /// Run beside a Connect cluster: follow its workers' logs, emit each
    /// finding once as a JSON line as soon as it is provable, serve
    /// Prometheus metrics, health and the timeline over HTTP.
    Watch(Box<WatchArgs>),
}

/// Arguments of `herder-audit explain`.
#[derive(Args, Debug, Clone)]
pub struct ExplainArgs {
    /// The finding kind to explain (e.g. `zombie`); without it, the list of
    /// kinds.
    pub kind: Option<String>,
}

/// Arguments of `herder-audit completions`.
#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The clap definition of the command line (completions, man page).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the process's arguments. `--help`, `--version` and usage errors
/// are printed here; the error is then the exit status (0 for the first
/// two, 2 for a usage error).
pub fn parse() -> Result<Cli, i32> {
    Cli::try_parse().map_err(|e| {
        let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
        let _ = e.print();
        code
    })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// The command line's crates (clap and its completion and man page
    /// generators) are named in this module only.
    #[test]
    fn only_the_flags_module_sees_clap() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let flags = root.join("src/cli/flags");
        let mut files = Vec::new();
        rust_files(&root.join("src"), &mut files);
        let mut seen = Vec::new();
        for f in files.iter().filter(|f| !f.starts_with(&flags)) {
            let text = std::fs::read_to_string(f).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if [
                    "clap::",
                    "clap_complete",
                    "clap_mangen",
                    "derive(Parser",
                    "derive(Args",
                ]
                .iter()
                .any(|w| code.contains(w))
                {
                    seen.push(format!("{}:{}: {line}", f.display(), i + 1));
                }
            }
        }
        assert!(
            seen.is_empty(),
            "clap outside src/cli/flags/:\n{}",
            seen.join("\n")
        );
        assert!(
            files.iter().any(|f| f.starts_with(&flags)),
            "no src/cli/flags/"
        );
    }
}

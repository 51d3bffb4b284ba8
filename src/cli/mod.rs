//! Command line: flags → options → run → exit code. The audit commands
//! (`herder-audit`, `replay`, `reduce`) share one output path
//! ([`report`]); the stages of a split run (`plan`, `map`, `reduce`) are
//! in [`stages`].

mod report;
mod stages;
mod topics;

use crate::audit::{self, Live, Options};
use crate::exit::{EXIT_ERROR, EXIT_OK};
use crate::input::{self, Input};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "herder-audit",
    version = env!("HERDER_AUDIT_VERSION"),
    about = "Replays Kafka Connect distributed-worker logs and proves whether every connector/task start and stop was justified.",
    after_help = DOCS,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    audit: AuditArgs,
}

/// The footer of `--help`: the documentation pages of the source tree.
const DOCS: &str = "\
Documentation (docs/ in the source tree; README.md is the front page):
  docs/guide.md            user guide: install, every command and flag, the logs read, completions, man page
  docs/live.md             live use: kubectl logs -f, docker compose logs -f, --follow
  docs/html-report.md      the HTML report (--format html)
  docs/testing-connect.md  testing Connect itself: check, --bless, baselines, diff
  docs/spark.md            split runs (plan, map, reduce) and Spark
  docs/simulator.md        the simulator (simulate)
  docs/json-schema.md      the JSON output (--format json, jsonl)
  docs/topics.md           Connect's internal topics as a witness (--topics, --bootstrap)
  docs/performance.md      benchmarks and their figures
  docs/real-kafka.md       traces captured from real Kafka clusters
  docs/log-sources.md      where worker logs come from
  docs/design.md, docs/rules.md, docs/log-formats.md: the design, the rules, the lines read per Kafka version";

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the rebuilt state of every worker per generation: assigned,
    /// revoked, running, started, stopped, config offset.
    Replay(AuditArgs),
    /// Simulate a Connect cluster (or an archive of several): write one log
    /// per worker and the ground truth (`truth.json`) to a directory.
    Simulate(Box<crate::sim::SimArgs>),
    /// Explain a finding kind: what it means, why it matters, the protocol
    /// rule behind it, the upstream issues it matches, what to do.
    Explain(crate::explain::ExplainArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(crate::generate::CompletionsArgs),
    /// Print the manual page (roff) to standard output.
    Man,
    /// Audit every trace that has an expectation file and compare its
    /// findings with the expected ones, like a test run.
    Check(crate::check::CheckArgs),
    /// Compare two JSON reports: findings that appeared and disappeared,
    /// and how the counts changed.
    Diff(crate::baseline::diff::DiffArgs),
    /// List the streams of a tree of logs (a log with its rotated
    /// segments) as JSON, by name only, so that a cluster can hand whole
    /// streams to `map`.
    Plan(stages::PlanArgs),
    /// First stage of a split audit: read streams, write their facts and
    /// findings as JSON lines for `reduce`.
    Map(stages::MapArgs),
    /// Second stage: combine `map` outputs (and partial reduces) from any
    /// number of machines into the report a single run prints.
    Reduce(stages::ReduceArgs),
}

/// How the report is printed (every audit command).
#[derive(Args, Debug, Clone)]
struct OutputArgs {
    /// Output format (`html`: one self-contained page with the timeline).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the output to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Exit with status 1 when a finding of this severity or higher is found.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    fail_on: FailOn,
    /// When to colour text output (NO_COLOR is honoured in `auto`).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    /// Print only findings, no summary (text output).
    #[arg(long)]
    no_summary: bool,
    /// The isolation section of the text summary: interruptions per
    /// connector and the changes that interrupted other connectors
    /// (`short`), or every interruption, rebalance and change (`full`).
    #[arg(long, value_enum, default_value_t = IsolationDetail::Short)]
    isolation: IsolationDetail,
    /// Print per-input statistics and timing on stderr.
    #[arg(short, long)]
    verbose: bool,
    #[command(flatten)]
    baseline: crate::baseline::BaselineArgs,
}

#[derive(Args, Debug, Clone)]
struct AuditArgs {
    /// Log files or directories (read recursively; .gz is read
    /// transparently). `-` or no path reads standard input.
    paths: Vec<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    /// Keep reading files at their end as they grow, across rotation, and
    /// look for new logs in the directories given (like `tail -F`); end
    /// with Ctrl-C or SIGTERM, which print the summary.
    #[arg(short, long)]
    follow: bool,
    /// Live input: a stream silent this long (seconds) no longer holds
    /// back the cross-worker findings of the others.
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    idle_timeout: f64,
    #[command(flatten)]
    topics: topics::TopicsArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Jsonl,
    Html,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum IsolationDetail {
    Short,
    Full,
    Off,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FailOn {
    Error,
    Warning,
    Never,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// The clap definition of the command line (completions, man page).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Runs the command line; returns the exit status.
pub fn run() -> i32 {
    crate::guard::install_hook();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Some(Command::Simulate(a)) => crate::sim::run_cli(&a),
        Some(Command::Explain(a)) => crate::explain::run(&a),
        Some(Command::Completions(a)) => crate::generate::run_completions(&a, command()),
        Some(Command::Man) => crate::generate::run_man(command()),
        Some(Command::Check(a)) => crate::check::run_cli(&a),
        Some(Command::Diff(a)) => crate::baseline::diff::run_cli(&a),
        Some(Command::Plan(a)) => stages::plan(&a),
        Some(Command::Map(a)) => stages::map(&a),
        Some(Command::Reduce(a)) => stages::reduce(&a),
        Some(Command::Replay(a)) => audit_command(&a, true),
        None => audit_command(&cli.audit, false),
    }
}

/// Live input: stdin is read as it comes; `--follow` keeps files open.
/// SIGINT and SIGTERM end the run cleanly (a second SIGINT kills it).
fn live_options(args: &AuditArgs, inputs: &[Input]) -> Option<Live> {
    if !args.follow && (!inputs.contains(&Input::Stdin) || stdin_is_file()) {
        return None;
    }
    let secs = if args.idle_timeout.is_finite() && args.idle_timeout >= 0.0 {
        args.idle_timeout.min(86_400.0)
    } else {
        3.0
    };
    let mut live = Live::new(Duration::from_secs_f64(secs));
    live.follow = args.follow;
    live.roots = args.paths.iter().filter(|p| p.is_dir()).cloned().collect();
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second signal while the first is handled ends the process.
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, live.stop.clone());
        let _ = signal_hook::flag::register(sig, live.stop.clone());
    }
    Some(live)
}

/// Standard input redirected from a file (`< FILE`): finite, read like a
/// file argument.
fn stdin_is_file() -> bool {
    cfg!(unix) && std::fs::metadata("/dev/stdin").is_ok_and(|m| m.is_file())
}

fn audit_command(args: &AuditArgs, replay: bool) -> i32 {
    if args.topics.given() {
        if replay {
            eprintln!(
                "herder-audit replay: the internal topics (--topics, --bootstrap) are not replayed yet"
            );
            return EXIT_ERROR;
        }
        if args.paths.is_empty() {
            // the topics alone: standard input is not read
            return report::run(&args.out, false, |sink| topics::run(&args.topics, sink));
        }
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    let (inputs, mut walk_errors) = input::expand(&paths);
    walk_errors.sort();
    let opts = Options {
        keep_generations: replay,
        jobs: args.jobs,
        cross: true,
        progress: true,
        live: live_options(args, &inputs),
        timeline: args.out.format == Format::Html,
    };
    report::run(&args.out, replay, |sink| {
        let mut r = audit::audit_to(&inputs, &opts, sink)?;
        for (input, message) in walk_errors {
            r.errors.push(audit::InputError { input, message });
        }
        if args.topics.given() {
            topics::join(&args.topics, &mut r, sink)?;
        }
        Ok(r)
    })
}

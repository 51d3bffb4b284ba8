//! Command line: flags → options → run → exit code.

use crate::audit::{self, Options, Report};
use crate::finding::Severity;
use crate::input;
use crate::report::{json, text};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::{self, Write};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "herder-audit",
    version,
    about = "Replays Kafka Connect distributed-worker logs and proves whether every connector/task start and stop was justified.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    audit: AuditArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the rebuilt state of every worker per generation: assigned,
    /// revoked, running, started, stopped, config offset.
    Replay(AuditArgs),
    /// Simulate a Connect cluster (or an archive of several): write one log
    /// per worker and the ground truth (`truth.json`) to a directory.
    Simulate(Box<crate::sim::SimArgs>),
}

#[derive(Args, Debug, Clone)]
struct AuditArgs {
    /// Log files or directories (read recursively; .gz is read
    /// transparently). `-` or no path reads standard input.
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Exit with status 1 when a finding of this severity or higher is found.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    fail_on: FailOn,
    /// When to colour text output (NO_COLOR is honoured in `auto`).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    /// Print only findings, no summary (text output).
    #[arg(long)]
    no_summary: bool,
    /// Print per-input statistics and timing on stderr.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Jsonl,
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

/// Exit statuses (SPEC §5).
pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

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
    let (args, replay) = match cli.command {
        Some(Command::Simulate(a)) => return crate::sim::run_cli(&a),
        Some(Command::Replay(a)) => (a, true),
        None => (cli.audit, false),
    };
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    let (inputs, walk_errors) = input::expand(&paths);
    let opts = Options {
        keep_generations: replay,
        jobs: args.jobs,
        cross: true,
        progress: true,
    };
    let started = std::time::Instant::now();
    let mut report = audit::audit(&inputs, &opts);
    for (input, message) in walk_errors {
        report.errors.push(audit::InputError { input, message });
    }
    for e in &report.errors {
        eprintln!("herder-audit: {}: {}", e.input, e.message);
    }
    for i in &report.inputs {
        for (line, len) in &i.too_long {
            eprintln!(
                "herder-audit: {}:{line}: warning: a line of {len} bytes was skipped (longer than the {} byte limit)",
                i.name,
                crate::input::scan::MAX_LINE
            );
        }
    }
    if args.verbose {
        for i in &report.inputs {
            eprintln!(
                "herder-audit: {}: {} bytes{}, {} lines, {} candidate lines, {} lifecycle events",
                i.name,
                i.bytes,
                if i.gzip { " (gzip, uncompressed)" } else { "" },
                i.lines,
                i.candidates,
                i.events
            );
        }
        eprintln!(
            "herder-audit: {} input(s), {} worker(s) in {:.3} s",
            report.inputs.len(),
            report.workers.len(),
            started.elapsed().as_secs_f64()
        );
    }
    match write(&report, &args, replay) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return EXIT_OK,
        Err(e) => {
            eprintln!("herder-audit: writing output: {}", input::describe(&e));
            return EXIT_ERROR;
        }
    }
    exit_status(&report, args.fail_on)
}

fn exit_status(report: &Report, fail_on: FailOn) -> i32 {
    if !report.errors.is_empty() {
        return EXIT_ERROR;
    }
    let threshold = match fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Never => None,
    };
    match threshold {
        Some(s) if report.count_at_least(s) > 0 => EXIT_FINDINGS,
        _ => EXIT_OK,
    }
}

fn write(report: &Report, args: &AuditArgs, replay: bool) -> io::Result<()> {
    let choice = match args.color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(anstream::AutoStream::new(stdout.lock(), choice));
    match (args.format, replay) {
        (Format::Text, true) => text::write_replay(report, &mut out)?,
        (_, true) => json::write_replay_json(report, &mut out)?,
        (Format::Text, false) => {
            for f in report.findings() {
                text::write_finding(report, f, &mut out)?;
            }
            if !args.no_summary {
                text::write_summary(report, &mut out)?;
            }
        }
        (Format::Json, false) => json::write_json(report, &mut out)?,
        (Format::Jsonl, false) => json::write_jsonl(report, &mut out)?,
    }
    out.flush()
}

//! Command line: flags → options → run → exit code.

use crate::audit::{self, Collect, Live, Options, Report, Sink};
use crate::finding::Severity;
use crate::input::{self, Input};
use crate::report::sinks::{JsonlSink, TextSink};
use crate::report::{json, text};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

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
    /// Simulate a Connect cluster: write one log per worker and the ground
    /// truth (`truth.json`) to a directory.
    Simulate(crate::sim::SimArgs),
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
}

#[derive(Args, Debug, Clone)]
struct AuditArgs {
    /// Log files or directories (read recursively; .gz is read
    /// transparently). `-` or no path reads standard input.
    paths: Vec<PathBuf>,
    /// Output format.
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
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    /// Print only findings, no summary (text output).
    #[arg(long)]
    no_summary: bool,
    /// Keep reading files at their end as they grow, across rotation, and
    /// look for new logs in the directories given (like `tail -F`); end
    /// with Ctrl-C or SIGTERM, which print the summary.
    #[arg(short, long)]
    follow: bool,
    /// Live input: a stream silent this long (seconds) no longer holds
    /// back the cross-worker findings of the others.
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    idle_timeout: f64,
    /// Print per-input statistics and timing on stderr.
    #[arg(short, long)]
    verbose: bool,
    #[command(flatten)]
    baseline: crate::baseline::BaselineArgs,
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

/// Exit statuses: no finding at or above `--fail-on`; findings; usage or
/// input error.
pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

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
    let (args, replay) = match cli.command {
        Some(Command::Simulate(a)) => return crate::sim::run_cli(&a),
        Some(Command::Explain(a)) => return crate::explain::run(&a),
        Some(Command::Completions(a)) => return crate::generate::run_completions(&a, command()),
        Some(Command::Man) => return crate::generate::run_man(command()),
        Some(Command::Check(a)) => return crate::check::run_cli(&a),
        Some(Command::Diff(a)) => return crate::baseline::diff::run_cli(&a),
        Some(Command::Replay(a)) => (a, true),
        None => (cli.audit, false),
    };
    audit_command(&args, replay)
}

/// Where the output goes: standard output (coloured on a terminal as
/// asked) or a file.
fn output(args: &AuditArgs) -> io::Result<Box<dyn Write + Send>> {
    match &args.output {
        Some(p) => Ok(Box::new(io::BufWriter::new(std::fs::File::create(p)?))),
        // JSON escapes every control character: nothing to strip.
        None if args.format != Format::Text => Ok(Box::new(io::BufWriter::new(io::stdout()))),
        None => {
            let choice = match args.color {
                ColorWhen::Auto => anstream::ColorChoice::Auto,
                ColorWhen::Always => anstream::ColorChoice::Always,
                ColorWhen::Never => anstream::ColorChoice::Never,
            };
            Ok(Box::new(io::BufWriter::new(anstream::AutoStream::new(
                io::stdout(),
                choice,
            ))))
        }
    }
}

/// Live input: stdin is read as it comes; `--follow` keeps files open.
/// SIGINT and SIGTERM end the run cleanly (a second SIGINT kills it).
fn live_options(args: &AuditArgs, inputs: &[Input]) -> Option<Live> {
    if !args.follow && !inputs.contains(&Input::Stdin) {
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

fn audit_command(args: &AuditArgs, replay: bool) -> i32 {
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
        live: live_options(args, &inputs),
    };
    let out = match output(args) {
        Ok(o) => o,
        Err(e) => {
            let name = args
                .output
                .as_ref()
                .map_or_else(String::new, |p| p.display().to_string());
            eprintln!("herder-audit: {name}: {}", input::describe(&e));
            return EXIT_ERROR;
        }
    };
    let started = std::time::Instant::now();
    let streaming = !replay && matches!(args.format, Format::Text | Format::Jsonl);
    let mut printer: Box<dyn PrintSink> = match (streaming, args.format) {
        (true, Format::Jsonl) => Box::new(JsonlSink::new(out)),
        (true, _) => Box::new(TextSink::new(out)),
        (false, _) => Box::new(Collected(Collect::default(), out)),
    };
    let mut filtered = match crate::baseline::Filtered::new(&args.baseline, printer.as_sink()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("herder-audit: {e}");
            return EXIT_ERROR;
        }
    };
    let result = audit::audit_to(&inputs, &opts, &mut filtered);
    let mut report = match result {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return EXIT_OK,
        Err(e) => {
            eprintln!("herder-audit: writing output: {}", input::describe(&e));
            return EXIT_ERROR;
        }
    };
    for (input, message) in walk_errors {
        report.errors.push(audit::InputError { input, message });
    }
    let known = match filtered.finish(&args.baseline, &mut report) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("herder-audit: {e}");
            return EXIT_ERROR;
        }
    };
    let mut out = printer.into_output();
    report_errors(&report);
    if args.verbose {
        verbose(&report, started);
    }
    match finish_output(&report, args, replay, known.as_ref(), &mut *out).and_then(|()| out.flush())
    {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return EXIT_OK,
        Err(e) => {
            eprintln!("herder-audit: writing output: {}", input::describe(&e));
            return EXIT_ERROR;
        }
    }
    exit_status(&report, args.fail_on)
}

fn report_errors(report: &Report) {
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
}

fn verbose(report: &Report, started: std::time::Instant) {
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

/// What is written once the run is over: the summary (text), the tail of
/// JSON lines, the whole document (JSON), or the replay view; with a
/// baseline, what it kept back.
fn finish_output(
    report: &Report,
    args: &AuditArgs,
    replay: bool,
    known: Option<&crate::baseline::Known>,
    out: &mut dyn Write,
) -> io::Result<()> {
    use crate::baseline as b;
    match (args.format, replay, known) {
        (Format::Text, true, _) => text::write_replay(report, out),
        (_, true, _) => json::write_replay_json(report, out),
        (Format::Text, false, _) if args.no_summary => Ok(()),
        (Format::Text, false, k) => {
            text::write_summary(report, out)?;
            match k {
                Some(k) => b::write_text(k, out),
                None => Ok(()),
            }
        }
        (Format::Json, false, Some(k)) => b::write_json(report, k, out),
        (Format::Json, false, None) => json::write_json(report, out),
        (Format::Jsonl, false, Some(k)) => b::write_jsonl_tail(report, k, out),
        (Format::Jsonl, false, None) => json::write_jsonl_tail(report, out),
    }
}

/// A printer's sink that hands its output back once the run is over.
trait PrintSink {
    fn as_sink(&mut self) -> &mut dyn Sink;
    fn into_output(self: Box<Self>) -> Box<dyn Write + Send>;
}

/// Keeps the findings for a printer that needs the whole run.
struct Collected(Collect, Box<dyn Write + Send>);

impl PrintSink for Collected {
    fn as_sink(&mut self) -> &mut dyn Sink {
        &mut self.0
    }
    fn into_output(self: Box<Self>) -> Box<dyn Write + Send> {
        self.1
    }
}

impl PrintSink for TextSink<Box<dyn Write + Send>> {
    fn as_sink(&mut self) -> &mut dyn Sink {
        self
    }
    fn into_output(self: Box<Self>) -> Box<dyn Write + Send> {
        self.out
    }
}

impl PrintSink for JsonlSink<Box<dyn Write + Send>> {
    fn as_sink(&mut self) -> &mut dyn Sink {
        self
    }
    fn into_output(self: Box<Self>) -> Box<dyn Write + Send> {
        self.out
    }
}

//! The printing of every audit command (`herder-audit`, `replay`,
//! `reduce`): the printer (streaming for text and JSON lines, whole-run for
//! JSON and HTML), the baseline in front of it, the summary at the end, the
//! exit status; written through [`super::output`].

use super::flags::{FailOn, Format, IsolationDetail, OutputArgs};
use super::output::{self, Dest};
use crate::audit::{Collect, Report, Sink};
use crate::baseline::{Filtered, Known};
use crate::exit::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::report::sinks::{JsonlSink, TextSink};
use crate::report::{html, isolation, json, text};
use serde_json::{Value, json};
use std::io::{self, Write};

/// Where the output goes: standard output or a file, coloured as asked
/// (JSON is written as it is).
fn dest(args: &OutputArgs) -> Dest<'_> {
    let plain = matches!(args.format, Format::Json | Format::Jsonl);
    Dest {
        file: args.output.as_deref(),
        color: (!plain).then(|| args.color.choice()),
    }
}

/// The audit [`run`] prints: boxed, not `impl FnOnce`, so that `run` (and
/// the baseline's `finish`, whose closure it names) is compiled once, not
/// once per caller.
pub(super) type Audit<'a> = Box<dyn FnOnce(&mut dyn Sink) -> io::Result<Report> + 'a>;

/// Runs `audit` with the printer `args` ask for, prints what comes at the
/// end, and returns the exit status.
pub(super) fn run(args: &OutputArgs, replay: bool, audit: Audit<'_>) -> i32 {
    let out = match output::open_or_say("herder-audit", dest(args)) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let started = std::time::Instant::now();
    let streaming = !replay && matches!(args.format, Format::Text | Format::Jsonl);
    let mut printer: Box<dyn PrintSink> = match (streaming, args.format) {
        (true, Format::Jsonl) => Box::new(JsonlSink::new(out)),
        (true, _) => Box::new(TextSink::new(out)),
        (false, _) => Box::new(Collected(Collect::default(), out)),
    };
    let files = args.baseline.files();
    let mut filtered = match Filtered::new(&files, printer.as_sink()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("herder-audit: {e}");
            return EXIT_ERROR;
        }
    };
    // The printer's last lines are written before anything that follows,
    // and before the run's error is told.
    let audited = audit(&mut filtered);
    let ended = filtered.batch_end();
    let mut report = match audited.and_then(|r| ended.map(|()| r)) {
        Ok(r) => r,
        Err(e) => return output::failed("herder-audit", Err(e)).unwrap_or(EXIT_ERROR),
    };
    let known = match filtered.finish(&files, &mut report, |r, w| json::write_json(r, w)) {
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
    let written =
        finish_output(&report, args, replay, known.as_ref(), &mut *out).and_then(|()| out.flush());
    if let Some(code) = output::failed("herder-audit", written) {
        return code;
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
    match fail_on.threshold() {
        Some(s) if report.count_at_least(s) > 0 => EXIT_FINDINGS,
        _ => EXIT_OK,
    }
}

/// What is written once the run is over: the summary (text), the tail of
/// JSON lines, the whole document (JSON, HTML), or the replay view; with a
/// baseline, what it kept back.
fn finish_output(
    report: &Report,
    args: &OutputArgs,
    replay: bool,
    known: Option<&Known>,
    out: &mut dyn Write,
) -> io::Result<()> {
    match (args.format, replay, known) {
        (Format::Html, _, _) => html::write_html(report, out),
        (Format::Text, true, _) => text::write_replay(report, out),
        (_, true, _) => json::write_replay_json(report, out),
        (Format::Text, false, _) if args.no_summary => Ok(()),
        (Format::Text, false, k) => {
            text::write_summary(report, out)?;
            if let Some(k) = k {
                write_baseline_text(k, out)?;
            }
            let detail = match args.isolation {
                IsolationDetail::Short => isolation::Detail::Short,
                IsolationDetail::Full => isolation::Detail::Full,
                IsolationDetail::Off => return Ok(()),
            };
            isolation::write_text(&report.isolation, detail, out)
        }
        (Format::Json, false, Some(k)) => write_baseline_json(report, k, out),
        (Format::Json, false, None) => json::write_json(report, out),
        (Format::Jsonl, false, Some(k)) => write_baseline_jsonl_tail(report, k, out),
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

fn kinds(k: &Known) -> String {
    let parts: Vec<String> = k.by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// The summary line of a baseline run (text output).
fn write_baseline_text(k: &Known, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "  baseline {}: {} known finding(s) not reported{}; {} of its {} finding(s) no longer found",
        k.baseline,
        k.known,
        kinds(k),
        k.gone,
        k.baseline_findings
    )
}

/// The `baseline` object of JSON output.
fn known_json(k: &Known) -> Value {
    // Built by `insert`: collecting compiles a sort for this place alone.
    let mut by_kind = serde_json::Map::new();
    for (kind, n) in &k.by_kind {
        by_kind.insert(kind.as_str().to_string(), json!(n));
    }
    json!({
        "file": k.baseline,
        "baseline_findings": k.baseline_findings,
        "known": k.known,
        "known_by_kind": by_kind,
        "no_longer_found": k.gone,
    })
}

/// `--format json` with a `baseline` object beside `summary`.
fn write_baseline_json(report: &Report, k: &Known, out: &mut dyn Write) -> io::Result<()> {
    json::write_json_with(report, &[("baseline", known_json(k))], out)
}

/// What follows the findings in `--format jsonl`, with a `baseline`
/// object in the summary line.
fn write_baseline_jsonl_tail(report: &Report, k: &Known, out: &mut dyn Write) -> io::Result<()> {
    json::write_jsonl_tail_with(report, &[("baseline", known_json(k))], out)
}

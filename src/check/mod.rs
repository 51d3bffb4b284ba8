//! `herder-audit check`: every trace that has an expectation file is
//! audited and its findings compared with the expectations, exactly; the
//! result is printed like a test run (text, JSON or JUnit XML). `--bless`
//! writes the expectation files from what the audit finds.
//!
//! The pieces: [`discover`] finds traces, [`expect`] reads and writes
//! expectation files, [`matching`] pairs expectations with findings,
//! [`bless`] rewrites a file, and the printers ([`text`], [`json`],
//! [`junit`]) render the [`Outcome`]s.

pub mod bless;
pub mod discover;
pub mod expect;
pub mod json;
pub mod junit;
pub mod matching;
pub mod text;

use crate::audit::{self, Options, Report};
use bless::BlessChange;
use discover::Trace;
use expect::Entry;
use matching::Found;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How to check.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOptions {
    pub bless: bool,
    /// Threads for one trace's audit (`None`: one per core). `check_all`
    /// audits one trace per thread when there are several.
    pub audit_jobs: Option<usize>,
}

/// A trace's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The findings are exactly the expected ones.
    Ok,
    /// Some expected finding is missing or some finding is unexpected.
    Failed,
    /// No expectation file yet (and no `--bless`).
    New,
    /// `--bless` wrote the expectation file.
    Blessed,
    /// The trace could not be checked: unreadable input or expectation file.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "FAILED",
            Status::New => "new",
            Status::Blessed => "blessed",
            Status::Error => "error",
        }
    }

    /// Counts as passed in the totals.
    pub fn passed(self) -> bool {
        matches!(self, Status::Ok | Status::Blessed)
    }
}

/// An unexpected finding: where it is in the report, and the expectation
/// line that would stand for it.
#[derive(Debug, Clone)]
pub struct Unexpected {
    pub found: Found,
    pub entry: Entry,
}

/// What checking one trace gave.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub trace: Trace,
    pub status: Status,
    /// Expectations read.
    pub expected: usize,
    /// Findings the audit produced.
    pub found: usize,
    pub missing: Vec<Entry>,
    pub unexpected: Vec<Unexpected>,
    /// The audit, for rendering the unexpected findings (absent when the
    /// expectation file could not be read).
    pub report: Option<Report>,
    /// Why the trace could not be checked.
    pub error: Option<String>,
    /// What `--bless` changed (when it ran).
    pub bless: Option<BlessChange>,
    pub elapsed: Duration,
}

impl Outcome {
    fn new(trace: &Trace) -> Outcome {
        Outcome {
            trace: trace.clone(),
            status: Status::Ok,
            expected: 0,
            found: 0,
            missing: Vec::new(),
            unexpected: Vec::new(),
            report: None,
            error: None,
            bless: None,
            elapsed: Duration::ZERO,
        }
    }

    fn error(mut self, message: String) -> Outcome {
        self.status = Status::Error;
        self.error = Some(message);
        self
    }

    /// The unexpected findings with the report they belong to.
    pub fn unexpected_findings(&self) -> Vec<(&Unexpected, &crate::finding::Finding)> {
        let Some(report) = &self.report else {
            return Vec::new();
        };
        let all: Vec<_> = report.findings().collect();
        self.unexpected
            .iter()
            .filter_map(|u| all.get(u.found.index).map(|f| (u, *f)))
            .collect()
    }
}

/// Totals over a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub new: usize,
    pub errors: usize,
    pub blessed: usize,
}

impl Totals {
    pub fn of(outcomes: &[Outcome]) -> Totals {
        let mut t = Totals::default();
        for o in outcomes {
            match o.status {
                Status::Ok => t.passed += 1,
                Status::Blessed => {
                    t.passed += 1;
                    t.blessed += 1
                }
                Status::Failed => t.failed += 1,
                Status::New => t.new += 1,
                Status::Error => t.errors += 1,
            }
        }
        t
    }

    /// Not passed: failed, new or not checkable.
    pub fn not_passed(&self) -> usize {
        self.failed + self.new + self.errors
    }
}

/// Audits one trace and compares (or blesses).
pub fn check_trace(trace: &Trace, opts: CheckOptions) -> Outcome {
    let started = Instant::now();
    let mut out = check_inner(trace, opts);
    out.elapsed = started.elapsed();
    out
}

fn check_inner(trace: &Trace, opts: CheckOptions) -> Outcome {
    let out = Outcome::new(trace);
    let old = match read_expectation(trace) {
        Ok(old) => old,
        Err(e) => return out.error(e),
    };
    let report = match audit_trace(trace, opts) {
        Ok(r) => r,
        Err(e) => return out.error(e),
    };
    let found = matching::found(&report, trace);
    let out = Outcome {
        report: Some(report),
        found: found.len(),
        ..out
    };
    match old {
        _ if opts.bless => bless_trace(out, old.as_ref(), &found),
        None => new_trace(out, found),
        Some(old) => compare(out, &old, &found),
    }
}

/// The trace's expectation file, `None` when it has none yet; the error
/// names the file (and the line that cannot be read).
fn read_expectation(trace: &Trace) -> Result<Option<expect::ExpectFile>, String> {
    if !trace.has_expectation() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&trace.expect)
        .map_err(|e| format!("{}: {}", trace.expect.display(), crate::input::describe(&e)))?;
    expect::parse(&text, trace.default_file.as_deref())
        .map(Some)
        .map_err(|e| format!("{}:{}: {}", trace.expect.display(), e.line, e.message))
}

/// The audit of the trace's logs; the error names every input that could
/// not be read.
fn audit_trace(trace: &Trace, opts: CheckOptions) -> Result<Report, String> {
    if trace.files.is_empty() {
        return Err(format!("{}: no log file in this trace", trace.name));
    }
    let inputs: Vec<crate::input::Input> = trace
        .files
        .iter()
        .cloned()
        .map(crate::input::Input::File)
        .collect();
    let report = audit::audit(
        &inputs,
        &Options {
            keep_generations: false,
            jobs: opts.audit_jobs,
            cross: true,
            progress: false,
            live: None,
            timeline: false,
            witness: None,
        },
    );
    if !report.errors.is_empty() {
        let msgs: Vec<String> = report
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.input, e.message))
            .collect();
        return Err(msgs.join("; "));
    }
    Ok(report)
}

/// `--bless`: the expectation file written from what was found (when it
/// changes or is new).
fn bless_trace(mut out: Outcome, old: Option<&expect::ExpectFile>, found: &[Found]) -> Outcome {
    let trace = &out.trace;
    let (file, change) = bless::bless(old, found, trace);
    if !change.is_empty() || old.is_none() {
        if let Err(e) = std::fs::write(&trace.expect, file.render()) {
            let message = format!("{}: {}", trace.expect.display(), crate::input::describe(&e));
            return out.error(message);
        }
        out.status = Status::Blessed;
    }
    out.expected = file.items.len();
    out.bless = Some(change);
    out
}

/// No expectation file: every finding is unexpected.
fn new_trace(mut out: Outcome, found: Vec<Found>) -> Outcome {
    out.status = Status::New;
    out.unexpected = found
        .into_iter()
        .map(|f| Unexpected {
            entry: f.entry(&out.trace),
            found: f,
        })
        .collect();
    out
}

/// The findings against the expectations, one for one.
fn compare(mut out: Outcome, old: &expect::ExpectFile, found: &[Found]) -> Outcome {
    let entries: Vec<&Entry> = old.entries().collect();
    out.expected = entries.len();
    let cmp = matching::compare(&entries, found);
    out.missing = cmp.missing.iter().map(|&i| entries[i].clone()).collect();
    out.unexpected = cmp
        .unexpected
        .iter()
        .map(|&j| Unexpected {
            entry: found[j].entry(&out.trace),
            found: found[j].clone(),
        })
        .collect();
    if !cmp.passed() {
        out.status = Status::Failed;
    }
    out
}

/// Checks the traces, in parallel on `jobs` threads; outcomes in trace
/// order.
pub fn check_all(traces: &[Trace], opts: CheckOptions, jobs: Option<usize>) -> Vec<Outcome> {
    if let [one] = traces {
        // One trace (an archive, say): its streams in parallel instead.
        let opts = CheckOptions {
            audit_jobs: jobs,
            ..opts
        };
        return vec![check_trace(one, opts)];
    }
    let opts = CheckOptions {
        audit_jobs: Some(1),
        ..opts
    };
    let go = || {
        traces
            .par_iter()
            .map(|t| check_trace(t, opts))
            .collect::<Vec<_>>()
    };
    match jobs {
        Some(0 | 1) => traces.iter().map(|t| check_trace(t, opts)).collect(),
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(go),
            Err(_) => go(),
        },
        None => go(),
    }
}

/// Discovers and checks: what `herder-audit check PATHS` computes.
/// Discovery problems come back beside the outcomes.
pub fn check_paths(
    paths: &[PathBuf],
    opts: CheckOptions,
    jobs: Option<usize>,
) -> (Vec<Outcome>, Vec<(String, String)>) {
    let (traces, errors) = discover::discover(paths);
    (check_all(&traces, opts, jobs), errors)
}

/// Exit status of a run: 0 all passed, 1 a trace failed or is new, 2 a
/// trace or path could not be checked (or there was nothing to check).
pub fn exit_status(outcomes: &[Outcome], discovery_errors: usize) -> i32 {
    let t = Totals::of(outcomes);
    if discovery_errors > 0 || t.errors > 0 || outcomes.is_empty() {
        crate::exit::EXIT_ERROR
    } else if t.failed + t.new > 0 {
        crate::exit::EXIT_FINDINGS
    } else {
        crate::exit::EXIT_OK
    }
}

/// A diagnostic as plain text (no colour), for JSON and JUnit.
pub(crate) fn plain_diagnostic(report: &Report, f: &crate::finding::Finding) -> String {
    let mut buf = Vec::new();
    let _ = crate::report::text::write_finding(report, f, &mut buf);
    anstream::adapter::strip_str(&String::from_utf8_lossy(&buf)).to_string()
}

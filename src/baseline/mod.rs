//! Baselines: findings an earlier run already reported are counted but not
//! reported again, and do not affect the exit status; `diff` compares two
//! runs. Both match findings by [`Fingerprint`], which survives unrelated
//! lines being added or removed.
//!
//! A baseline is a JSON report (`--format json`, or `--format jsonl`) of an
//! earlier run; `--write-baseline FILE` writes one. Each baseline finding
//! excuses one finding with its fingerprint.
//!
//! The decision is per finding ([`Baseline::take`] with the finding's
//! [`fingerprint`]), so a streaming printer can make it as findings come.
//! It must then use the worker's identity as the JSON report will state it
//! ([`WorkerIdentity::of`] the final summary): a worker's REST URL normally
//! comes from its startup lines, before any finding, but a log that starts
//! mid-life may reveal it only later (its own URL as the group leader), and
//! a fingerprint taken before that would name the worker by its file.
//! [`filter`] is the batch form: it drops the known findings from a report.

pub mod diff;
pub mod fingerprint;
pub mod load;

use crate::audit::Report;
use crate::finding::Kind;
use clap::Args;
pub use fingerprint::{Fingerprint, WorkerIdentity, fingerprint};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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

/// The fingerprints of a baseline, with how often each occurs.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    pub path: String,
    counts: HashMap<Fingerprint, usize>,
    total: usize,
}

impl Baseline {
    /// Reads a baseline report; the error names the file.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let r = load::read_report(path)?;
        Ok(Baseline::from_fingerprints(
            &r.path,
            r.findings.into_iter().map(|f| f.fingerprint),
        ))
    }

    pub fn from_fingerprints(path: &str, fps: impl IntoIterator<Item = Fingerprint>) -> Baseline {
        let mut b = Baseline {
            path: path.to_string(),
            ..Baseline::default()
        };
        for fp in fps {
            *b.counts.entry(fp).or_default() += 1;
            b.total += 1;
        }
        b
    }

    /// The baseline from a run's own report.
    pub fn of_report(path: &str, report: &Report) -> Baseline {
        let mut fps = Vec::new();
        for w in &report.workers {
            let who = WorkerIdentity::of(&w.summary);
            fps.extend(w.findings.iter().map(|f| fingerprint(f, &who)));
        }
        Baseline::from_fingerprints(path, fps)
    }

    /// Does the baseline hold (another) finding with this fingerprint?
    pub fn contains(&self, fp: &Fingerprint) -> bool {
        self.counts.get(fp).is_some_and(|n| *n > 0)
    }

    /// Uses up one baseline finding with this fingerprint: `true` when the
    /// finding is known (not to be reported).
    pub fn take(&mut self, fp: &Fingerprint) -> bool {
        match self.counts.get_mut(fp) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// Findings in the baseline file.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Baseline findings no finding has used up (no longer found).
    pub fn unused(&self) -> usize {
        self.counts.values().sum()
    }
}

/// What a baseline kept from being reported.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Known {
    pub baseline: String,
    /// Findings in the baseline.
    pub baseline_findings: usize,
    /// Findings of this run found in the baseline (not reported).
    pub known: usize,
    pub by_kind: BTreeMap<Kind, usize>,
    /// Baseline findings this run no longer produced.
    pub gone: usize,
}

/// Drops the findings the baseline knows from the report (and from its
/// workers' counts), so printers and the exit status see only new ones.
pub fn filter(report: &mut Report, baseline: &mut Baseline) -> Known {
    let mut known = Known {
        baseline: baseline.path.clone(),
        baseline_findings: baseline.total(),
        ..Known::default()
    };
    for w in &mut report.workers {
        let who = WorkerIdentity::of(&w.summary);
        let mut dropped = Vec::new();
        w.findings.retain(|f| {
            let old = baseline.take(&fingerprint(f, &who));
            if old {
                dropped.push(f.kind);
            }
            !old
        });
        for k in dropped {
            known.known += 1;
            *known.by_kind.entry(k).or_default() += 1;
            if let Some(n) = w.summary.findings.get_mut(&k) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    w.summary.findings.remove(&k);
                }
            }
        }
    }
    known.gone = baseline.unused();
    known
}

/// `--baseline` and `--write-baseline`, for the audit command: reads the
/// baseline, writes the full report (so both may name one file: the
/// baseline moves on to this run), then filters the report. On error, the
/// message is printed and the exit status returned.
pub fn apply(args: &BaselineArgs, report: &mut Report) -> Result<Option<Known>, i32> {
    let baseline = match args.baseline.as_deref().map(Baseline::load) {
        None => None,
        Some(Ok(b)) => Some(b),
        Some(Err(e)) => {
            eprintln!("herder-audit: baseline {e}");
            return Err(crate::cli::EXIT_ERROR);
        }
    };
    if let Some(path) = &args.write_baseline {
        let written = std::fs::File::create(path).and_then(|f| {
            let mut w = io::BufWriter::new(f);
            crate::report::json::write_json(report, &mut w)?;
            w.flush()
        });
        if let Err(e) = written {
            eprintln!(
                "herder-audit: {}: {}",
                path.display(),
                crate::input::describe(&e)
            );
            return Err(crate::cli::EXIT_ERROR);
        }
    }
    Ok(baseline.map(|mut b| filter(report, &mut b)))
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
pub fn write_text(k: &Known, out: &mut dyn Write) -> io::Result<()> {
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
pub fn known_json(k: &Known) -> Value {
    json!({
        "file": k.baseline,
        "baseline_findings": k.baseline_findings,
        "known": k.known,
        "known_by_kind": k.by_kind.iter().map(|(k, n)| (k.as_str().to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
        "no_longer_found": k.gone,
    })
}

/// `--format json` with a `baseline` object beside `summary`.
pub fn write_json(report: &Report, k: &Known, out: &mut dyn Write) -> io::Result<()> {
    let mut doc = crate::report::json::document(report);
    doc["baseline"] = known_json(k);
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// `--format jsonl` with a `baseline` object in the summary line.
pub fn write_jsonl(report: &Report, k: &Known, out: &mut dyn Write) -> io::Result<()> {
    let mut buf = Vec::new();
    crate::report::json::write_jsonl(report, &mut buf)?;
    let text = String::from_utf8_lossy(&buf);
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines.pop().unwrap_or("{}");
    for l in lines {
        writeln!(out, "{l}")?;
    }
    let mut summary: Value = serde_json::from_str(last).map_err(io::Error::other)?;
    summary["baseline"] = known_json(k);
    serde_json::to_writer(&mut *out, &summary)?;
    writeln!(out)
}

//! Baselines: findings an earlier run already reported are counted but not
//! reported again, and do not affect the exit status; `diff` compares two
//! runs. Both match findings by [`Fingerprint`], which survives unrelated
//! lines being added or removed.
//!
//! A baseline is a JSON report (`--format json`, or `--format jsonl`) of an
//! earlier run; `--write-baseline FILE` writes one. Each baseline finding
//! excuses one finding with its fingerprint.
//!
//! The audit gives every finding its fingerprint when the finding becomes
//! final (the worker's identity as known then), and JSON reports carry it,
//! so the decision is one look-up per finding ([`Filtered`], a sink in
//! front of the printer): a live audit decides as findings come, and a
//! baseline compares exactly what the earlier run computed. Reports
//! without fingerprints (older ones) have them computed from their fields.

pub mod diff;
pub mod load;

use crate::audit::{Names, Report, Sink};
use crate::finding::{Finding, Fingerprint, Kind};
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The files of a baseline run (the audit's `--baseline` and
/// `--write-baseline`).
#[derive(Debug, Clone, Default)]
pub struct BaselineFiles {
    /// A JSON report of an earlier run: findings already in it are counted
    /// but not reported and do not affect the exit status.
    pub read: Option<PathBuf>,
    /// Where this run's JSON report, every finding included, is also
    /// written (a baseline for later runs; it may be the `read` file).
    pub write: Option<PathBuf>,
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

/// A sink in front of the printer: findings the baseline knows are
/// counted, not handed on; with `--write-baseline`, every finding is also
/// kept for the report written at the end.
pub struct Filtered<'a> {
    inner: &'a mut dyn Sink,
    baseline: Option<Baseline>,
    known: Known,
    /// Known findings per worker label and kind.
    known_by_worker: BTreeMap<String, BTreeMap<Kind, u64>>,
    all: Option<Vec<Finding>>,
}

impl Sink for Filtered<'_> {
    fn finding(&mut self, names: &dyn Names, f: Finding) -> io::Result<()> {
        if let Some(all) = &mut self.all {
            all.push(f.clone());
        }
        if let (Some(b), Some(fp)) = (&mut self.baseline, &f.fingerprint)
            && b.take(fp)
        {
            self.known.known += 1;
            *self.known.by_kind.entry(f.kind).or_default() += 1;
            *self
                .known_by_worker
                .entry(f.worker.to_string())
                .or_default()
                .entry(f.kind)
                .or_default() += 1;
            return Ok(());
        }
        self.inner.finding(names, f)
    }

    fn batch_end(&mut self) -> io::Result<()> {
        self.inner.batch_end()
    }

    fn take_kept(&mut self) -> Vec<Finding> {
        self.inner.take_kept()
    }
}

impl<'a> Filtered<'a> {
    /// Reads the `--baseline` file (before anything is written, so that
    /// `--write-baseline` may name the same file). The error names it.
    pub fn new(files: &BaselineFiles, inner: &'a mut dyn Sink) -> Result<Filtered<'a>, String> {
        let baseline = match files.read.as_deref().map(Baseline::load) {
            None => None,
            Some(Ok(b)) => Some(b),
            Some(Err(e)) => return Err(format!("baseline {e}")),
        };
        let known = Known {
            baseline: baseline
                .as_ref()
                .map(|b| b.path.clone())
                .unwrap_or_default(),
            baseline_findings: baseline.as_ref().map_or(0, Baseline::total),
            ..Known::default()
        };
        Ok(Filtered {
            inner,
            baseline,
            known,
            known_by_worker: BTreeMap::new(),
            all: files.write.is_some().then(Vec::new),
        })
    }

    /// After the run: hands `--write-baseline` the report with every
    /// finding (`write` prints it to the file: the baseline knows no
    /// printer), then takes the known findings out of the report's counts,
    /// so printers and the exit status see only new ones. Returns what the
    /// baseline kept back (`None` without `--baseline`); the error names
    /// the file that could not be written.
    pub fn finish(
        self,
        files: &BaselineFiles,
        report: &mut Report,
        write: impl FnOnce(&Report, &mut dyn Write) -> io::Result<()>,
    ) -> Result<Option<Known>, String> {
        if let (Some(path), Some(all)) = (&files.write, self.all) {
            let kept = std::mem::replace(&mut report.findings, all);
            let written = std::fs::File::create(path).and_then(|f| {
                let mut w = io::BufWriter::new(f);
                write(report, &mut w)?;
                w.flush()
            });
            report.findings = kept;
            if let Err(e) = written {
                return Err(format!(
                    "{}: {}",
                    path.display(),
                    crate::input::describe(&e)
                ));
            }
        }
        let Some(baseline) = self.baseline else {
            return Ok(None);
        };
        for (k, n) in &self.known.by_kind {
            if let Some(c) = report.counts.get_mut(k) {
                *c = c.saturating_sub(*n as u64);
                if *c == 0 {
                    report.counts.remove(k);
                }
            }
        }
        for w in &mut report.workers {
            if let Some(known) = self.known_by_worker.get(&w.summary.worker) {
                for (k, n) in known {
                    if let Some(c) = w.summary.findings.get_mut(k) {
                        *c = c.saturating_sub(*n);
                        if *c == 0 {
                            w.summary.findings.remove(k);
                        }
                    }
                }
            }
        }
        let mut known = self.known;
        known.gone = baseline.unused();
        Ok(Some(known))
    }
}

//! Expected against found: what the audit found, in expectation terms, and
//! the largest one-to-one pairing of expectations with findings.

use super::discover::Trace;
use super::expect::Entry;
use crate::audit::Report;
use crate::finding::{Kind, resource_spec};

/// A finding, in the terms of an expectation file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Position in `report.findings()`.
    pub index: usize,
    /// The trigger line's file, relative to the trace's directory.
    pub file: String,
    pub line: u64,
    pub kind: Kind,
    /// `connector:<name>`, `task:<id>` or `-`.
    pub resource: String,
    /// The worker label, relative to the trace's directory.
    pub worker: String,
    pub rest_url: Option<String>,
    pub generation: Option<i32>,
}

impl Found {
    /// The entry `--bless` writes for this finding.
    pub fn entry(&self, trace: &Trace) -> Entry {
        Entry::new(
            &self.file,
            trace.default_file.as_deref(),
            self.line,
            self.kind,
            &self.resource,
        )
    }
}

/// The report's findings, in report order.
pub fn found(report: &Report, trace: &Trace) -> Vec<Found> {
    report
        .findings()
        .enumerate()
        .map(|(index, f)| {
            let rest_url = report
                .workers
                .iter()
                .find(|w| *w.summary.worker == *f.worker)
                .and_then(|w| w.summary.rest_url.clone());
            Found {
                index,
                file: trace.relative(report.source_name(f.trigger.source)),
                line: f.trigger.line,
                kind: f.kind,
                resource: resource_spec(f.resource.as_ref()),
                worker: trace.relative(&f.worker),
                rest_url,
                generation: f.generation,
            }
        })
        .collect()
}

/// Can this expectation stand for this finding? Location, kind and
/// resource must be equal; a worker or generation qualifier must hold.
pub fn compatible(e: &Entry, f: &Found) -> bool {
    e.file == f.file
        && e.line == f.line
        && e.kind == f.kind
        && e.resource == f.resource
        && e.generation.is_none_or(|g| f.generation == Some(g))
        && e.worker
            .as_ref()
            .is_none_or(|w| *w == f.worker || f.rest_url.as_ref() == Some(w))
}

/// The outcome of a comparison, as indices into the two lists.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Comparison {
    /// (entry, finding) pairs.
    pub pairs: Vec<(usize, usize)>,
    /// Expectations no finding stands for, in file order.
    pub missing: Vec<usize>,
    /// Findings no expectation stands for, in report order.
    pub unexpected: Vec<usize>,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.missing.is_empty() && self.unexpected.is_empty()
    }
}

/// Pairs expectations with findings, one to one, as many as possible
/// (augmenting paths: an unqualified expectation never takes the finding
/// that only a qualified one could stand for).
pub fn compare(entries: &[&Entry], found: &[Found]) -> Comparison {
    let edges: Vec<Vec<usize>> = entries
        .iter()
        .map(|e| {
            (0..found.len())
                .filter(|&j| compatible(e, &found[j]))
                .collect()
        })
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; found.len()];
    for i in 0..entries.len() {
        let mut visited = vec![false; found.len()];
        augment(i, &edges, &mut owner, &mut visited);
    }
    let mut pairs: Vec<(usize, usize)> = owner
        .iter()
        .enumerate()
        .filter_map(|(j, o)| o.map(|i| (i, j)))
        .collect();
    pairs.sort_unstable();
    let missing = (0..entries.len())
        .filter(|i| !pairs.iter().any(|p| p.0 == *i))
        .collect();
    let unexpected = (0..found.len()).filter(|j| owner[*j].is_none()).collect();
    Comparison {
        pairs,
        missing,
        unexpected,
    }
}

fn augment(
    i: usize,
    edges: &[Vec<usize>],
    owner: &mut [Option<usize>],
    visited: &mut [bool],
) -> bool {
    for &j in &edges[i] {
        if visited[j] {
            continue;
        }
        visited[j] = true;
        if owner[j].is_none_or(|k| augment(k, edges, owner, visited)) {
            owner[j] = Some(i);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::expect::parse_entry;

    fn found(line: u64, resource: &str, worker: &str, generation: Option<i32>) -> Found {
        Found {
            index: 0,
            file: "t.log".into(),
            line,
            kind: Kind::Zombie,
            resource: resource.into(),
            worker: worker.into(),
            rest_url: Some("http://w1:8083/".into()),
            generation,
        }
    }

    #[test]
    fn qualifiers_narrow_the_match() {
        let f = found(5, "task:a-0", "t.log#w1", Some(7));
        let e = |s: &str| parse_entry(s, Some("t.log")).unwrap();
        assert!(compatible(&e("5 zombie task:a-0"), &f));
        assert!(compatible(&e("5 zombie task:a-0 generation=7"), &f));
        assert!(!compatible(&e("5 zombie task:a-0 generation=8"), &f));
        assert!(compatible(&e("5 zombie task:a-0 worker=t.log#w1"), &f));
        assert!(compatible(
            &e("5 zombie task:a-0 worker=http://w1:8083/"),
            &f
        ));
        assert!(!compatible(&e("5 zombie task:a-0 worker=t.log#w2"), &f));
        assert!(!compatible(&e("6 zombie task:a-0"), &f));
        assert!(!compatible(&e("5 double-start task:a-0"), &f));
        assert!(!compatible(&e("5 zombie task:a-1"), &f));
    }

    #[test]
    fn pairing_is_one_to_one_and_maximal() {
        // Two findings on one line, differing only by generation; the
        // unqualified expectation comes first but must not take the
        // finding only the qualified one fits.
        let all = [found(5, "-", "w", Some(7)), found(5, "-", "w", Some(8))];
        let a = parse_entry("5 zombie -", Some("t.log")).unwrap();
        let b = parse_entry("5 zombie - generation=7", Some("t.log")).unwrap();
        let c = compare(&[&a, &b], &all);
        assert!(c.passed(), "{c:?}");
        assert_eq!(c.pairs, vec![(0, 1), (1, 0)]);
        // Three expectations for two findings: one missing.
        let c = compare(&[&a, &a, &b], &all);
        assert_eq!(c.missing.len(), 1);
        assert!(c.unexpected.is_empty());
        // One expectation for two findings: one unexpected.
        let c = compare(&[&b], &all);
        assert_eq!((c.missing.len(), c.unexpected.clone()), (0, vec![1]));
    }
}

//! `--bless`: the expectation file rewritten from what the audit found.
//!
//! Entries that still match stay as written (comments, qualifiers and
//! spacing included). An entry whose finding moved to another line (same
//! file, kind and resource) gets the new line number and keeps its
//! comments. Entries nothing stands for any more are removed with the
//! comment lines above them; new findings are inserted in line order,
//! without comments. The header and the trailer are always kept. A file
//! that already matches is left as it is, byte for byte.

use super::discover::Trace;
use super::expect::{ExpectFile, Item};
use super::matching::{Found, compare};

/// What blessing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlessChange {
    pub added: usize,
    pub removed: usize,
    /// Entries whose line number changed.
    pub moved: usize,
}

impl BlessChange {
    pub fn is_empty(&self) -> bool {
        self.added == 0 && self.removed == 0 && self.moved == 0
    }
}

/// The expectation file `old` (or a new one) made to match `found`.
pub fn bless(
    old: Option<&ExpectFile>,
    found: &[Found],
    trace: &Trace,
) -> (ExpectFile, BlessChange) {
    let empty = ExpectFile::default();
    let old = old.unwrap_or(&empty);
    let entries: Vec<_> = old.entries().collect();
    let cmp = compare(&entries, found);
    let mut change = BlessChange::default();

    // Moved: a lost entry and a new finding with the same file, kind and
    // resource; the nearest line first.
    let mut unused: Vec<usize> = cmp.unexpected.clone();
    let mut moved: Vec<(usize, usize)> = Vec::new();
    for &i in &cmp.missing {
        let e = entries[i];
        let best = unused
            .iter()
            .enumerate()
            .filter(|(_, j)| {
                let f = &found[**j];
                f.file == e.file && f.kind == e.kind && f.resource == e.resource
            })
            .min_by_key(|(_, j)| found[**j].line.abs_diff(e.line))
            .map(|(k, _)| k);
        if let Some(k) = best {
            moved.push((i, unused.remove(k)));
        }
    }
    change.moved = moved.len();
    change.removed = cmp.missing.len() - moved.len();
    change.added = unused.len();
    if change.is_empty() {
        return (old.clone(), change);
    }

    let mut items: Vec<Item> = Vec::new();
    for (i, item) in old.items.iter().enumerate() {
        if cmp.pairs.iter().any(|p| p.0 == i) {
            items.push(item.clone());
        } else if let Some(&(_, j)) = moved.iter().find(|m| m.0 == i) {
            let f = &found[j];
            let mut entry = item.entry.clone();
            entry.line = f.line;
            if entry.generation.is_some() && entry.generation != f.generation {
                entry.generation = None;
            }
            if let Some(w) = &entry.worker
                && *w != f.worker
                && f.rest_url.as_ref() != Some(w)
            {
                entry.worker = None;
            }
            entry.raw = entry.render();
            items.push(Item {
                before: item.before.clone(),
                entry,
            });
        }
    }
    let mut added: Vec<&Found> = unused.iter().map(|&j| &found[j]).collect();
    added.sort_by(|a, b| {
        (&a.file, a.line, a.kind, &a.resource).cmp(&(&b.file, b.line, b.kind, &b.resource))
    });
    for f in added {
        let at = items
            .iter()
            .position(|it| (&it.entry.file, it.entry.line) > (&f.file, f.line))
            .unwrap_or(items.len());
        items.insert(
            at,
            Item {
                before: Vec::new(),
                entry: f.entry(trace),
            },
        );
    }
    let file = ExpectFile {
        header: old.header.clone(),
        items,
        trailer: old.trailer.clone(),
    };
    (file, change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::discover::TraceKind;
    use crate::check::expect::parse;
    use crate::finding::Kind;
    use std::path::PathBuf;

    fn trace() -> Trace {
        Trace {
            name: "t.log".into(),
            kind: TraceKind::File,
            base: PathBuf::new(),
            files: vec![PathBuf::from("t.log")],
            expect: PathBuf::from("t.expect"),
            default_file: Some("t.log".into()),
        }
    }

    fn f(line: u64, kind: Kind, resource: &str) -> Found {
        Found {
            index: 0,
            file: "t.log".into(),
            line,
            kind,
            resource: resource.into(),
            worker: "t.log".into(),
            rest_url: None,
            generation: Some(3),
        }
    }

    const OLD: &str = "# header\n\n# why a\n10 zombie task:a-0  # trailing\n# why b\n20 zombie task:b-0\n\n# why c\n30 double-start task:c-0 generation=9\n# trailer\n";

    #[test]
    fn unchanged_files_stay_byte_for_byte() {
        let old = parse("#h\n10   zombie task:a-0\n", Some("t.log")).unwrap();
        let (new, change) = bless(Some(&old), &[f(10, Kind::Zombie, "task:a-0")], &trace());
        assert!(change.is_empty());
        assert_eq!(new.render(), "#h\n10   zombie task:a-0\n");
    }

    #[test]
    fn keeps_comments_of_findings_that_stay() {
        let old = parse(OLD, Some("t.log")).unwrap();
        let found = [
            f(5, Kind::LostAssignment, "connector:n"),
            f(12, Kind::Zombie, "task:a-0"),
            f(25, Kind::Zombie, "-"),
            f(33, Kind::DoubleStart, "task:c-0"),
        ];
        let (new, change) = bless(Some(&old), &found, &trace());
        assert_eq!(
            change,
            BlessChange {
                added: 2,
                removed: 1,
                moved: 2
            }
        );
        assert_eq!(
            new.render(),
            "# header\n\
             \n\
             5 lost-assignment connector:n\n\
             # why a\n\
             12 zombie task:a-0  # trailing\n\
             25 zombie -\n\
             \n\
             # why c\n\
             33 double-start task:c-0\n\
             # trailer\n"
        );
        // And blessing again changes nothing.
        let again = parse(&new.render(), Some("t.log")).unwrap();
        assert!(bless(Some(&again), &found, &trace()).1.is_empty());
    }

    #[test]
    fn new_files_list_findings_in_line_order() {
        let found = [
            f(9, Kind::Zombie, "task:b-0"),
            f(3, Kind::Zombie, "task:a-0"),
        ];
        let (new, change) = bless(None, &found, &trace());
        assert_eq!(change.added, 2);
        assert_eq!(new.render(), "3 zombie task:a-0\n9 zombie task:b-0\n");
        let (clean, change) = bless(None, &[], &trace());
        assert!(change.is_empty());
        assert_eq!(clean.render(), "");
    }
}

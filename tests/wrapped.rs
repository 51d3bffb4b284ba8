//! Terminal copies of the corpus: every trace (single-worker traces and
//! multi-worker directories, gzipped segments included) is wrapped at
//! several widths, as a terminal pane cuts long lines, and must audit
//! exactly like the original: the same findings (kind, resource, reason,
//! trigger and evidence lines mapped back to the wrapped copy, quoted
//! text), the same counts in every worker's summary, the same notes plus
//! one saying the copy was rejoined.

mod support;

use herder_audit::Report;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::sources::summary_line;
use support::{audit_path, cases, gunzip, gzip, logs, scratch, write};

const WIDTHS: [usize; 4] = [80, 120, 194, 250];

/// A terminal copy: lines longer than `width` characters are cut into
/// pieces of exactly `width` characters, each with the line's terminator.
/// Also returns, per original line, the number of its first piece.
fn wrap(text: &[u8], width: usize) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut first = Vec::new();
    let mut line_no = 1u64;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let (content, term): (&[u8], &[u8]) = if let Some(c) = line.strip_suffix(b"\r\n") {
            (c, b"\r\n")
        } else if let Some(c) = line.strip_suffix(b"\n") {
            (c, b"\n")
        } else {
            (line, b"\n")
        };
        first.push(line_no);
        let chars: Vec<char> = String::from_utf8_lossy(content).chars().collect();
        if chars.is_empty() {
            out.extend_from_slice(term);
            line_no += 1;
            continue;
        }
        for piece in chars.chunks(width) {
            out.extend(piece.iter().collect::<String>().bytes());
            out.extend_from_slice(term);
            line_no += 1;
        }
    }
    (out, first)
}

/// Copies a corpus case (a file or a directory) into `dst`, wrapping every
/// log (gzipped ones are unpacked, wrapped and packed again). Returns the
/// line maps of the wrapped files by path relative to `dst`.
fn copy_case(src: &Path, dst: &Path, width: usize) -> BTreeMap<PathBuf, Vec<u64>> {
    let mut maps = BTreeMap::new();
    for l in logs(src) {
        let d = if l.rel.as_os_str().is_empty() {
            dst.to_path_buf()
        } else {
            dst.join(&l.rel)
        };
        let (wrapped, map) = wrap(&l.text, width);
        write(&d, if l.gz { gzip(&wrapped) } else { wrapped });
        maps.insert(d, map);
    }
    maps
}

/// Line number `n` of source `src` of the original, in the wrapped copy.
fn mapped(
    report: &Report,
    maps: &BTreeMap<PathBuf, Vec<u64>>,
    src: herder_audit::SourceId,
    n: u64,
) -> u64 {
    let name = PathBuf::from(report.source_name(src));
    let map = maps
        .get(&name)
        .unwrap_or_else(|| panic!("no map for {name:?}"));
    map[(n - 1) as usize]
}

/// What must not change, with line numbers mapped into the copy and the
/// copy's directory in place of the original's.
fn comparable(
    r: &Report,
    maps: Option<(&Report, &BTreeMap<PathBuf, Vec<u64>>)>,
    from: &str,
    to: &str,
) -> Vec<String> {
    let line = |src, n| match maps {
        Some((rep, m)) => mapped(rep, m, src, n),
        None => n,
    };
    let mut out = Vec::new();
    for w in &r.workers {
        let s = &w.summary;
        out.push(summary_line(s, &s.worker.replace(from, to)));
        for n in &s.notes {
            if n.text.starts_with("a terminal copy wrapped at") {
                continue;
            }
            let at = n.line.map(|(src, l)| (src, line(src, l)));
            out.push(format!("  note {at:?} {}", n.text.replace(from, to)));
        }
        for f in &w.findings {
            out.push(format!(
                "  {} {:?} gen {:?} at {}:{} {:?} — {}",
                f.kind.as_str(),
                f.resource,
                f.generation,
                f.trigger.source.0,
                line(f.trigger.source, f.trigger.line),
                &*f.trigger.text,
                f.reason.replace(from, to)
            ));
            for e in &f.evidence {
                out.push(format!(
                    "    {} {:?} {}:{} {:?}",
                    e.role.replace(from, to),
                    e.worker.as_deref().map(|x| x.replace(from, to)),
                    e.line.source.0,
                    line(e.line.source, e.line.line),
                    &*e.line.text
                ));
            }
        }
    }
    out
}

#[test]
fn wrapped_copies_of_the_corpus_audit_like_the_originals() {
    let root = scratch("corpus");
    let mut failures = Vec::new();
    let mut compared = 0;
    // The real-cluster captures (corpus/real-kafka) are among the cases:
    // their records cut just before a word ` at` (`Joined group` | ` at
    // generation 1 …`) must not be read as stack frames, and their rotated
    // segments whose long records all come after the head keep the width
    // of the segment before.
    let cases = cases();
    assert!(cases.iter().any(|c| c.ends_with("real-kafka")));
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        // The original, copied unwrapped (width beyond every line) so both
        // sides are read from the same kind of path.
        let orig_dir = root.join("orig");
        let orig_path = orig_dir.join(&name);
        copy_case(&case, &orig_path, usize::MAX);
        let orig = audit_path(&orig_path);
        let want_orig = comparable(&orig, None, "", "");
        for w in WIDTHS {
            let dir = root.join(format!("w{w}"));
            let path = dir.join(&name);
            let maps = copy_case(&case, &path, w);
            let got = audit_path(&path);
            // Map the original's line numbers into the copy, by name.
            let orig_maps: BTreeMap<PathBuf, Vec<u64>> = maps
                .iter()
                .map(|(p, m)| {
                    let rel = p.strip_prefix(&dir).expect("under dir");
                    (orig_dir.join(rel), m.clone())
                })
                .collect();
            let from = orig_dir.to_string_lossy().to_string();
            let to = dir.to_string_lossy().to_string();
            let want = comparable(&orig, Some((&orig, &orig_maps)), &from, &to);
            let have = comparable(&got, None, "", "");
            assert!(!want_orig.is_empty());
            if want != have {
                let missing: Vec<&String> = want.iter().filter(|l| !have.contains(l)).collect();
                let extra: Vec<&String> = have.iter().filter(|l| !want.contains(l)).collect();
                failures.push(format!(
                    "{name} at {w} columns:\n  missing:\n    {}\n  extra:\n    {}",
                    missing
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join("\n    "),
                    extra
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join("\n    ")
                ));
            }
            // Every worker of the copy says it was rejoined.
            for wk in got.workers.iter() {
                if !wk.summary.notes.iter().any(|n| {
                    n.text
                        .starts_with(&format!("a terminal copy wrapped at {w} characters"))
                }) {
                    failures.push(format!(
                        "{name} at {w} columns: no rejoin note for {}",
                        wk.summary.worker
                    ));
                }
            }
            compared += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(compared >= 4 * 30, "only {compared} copies compared");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_corpus_itself_is_not_wrapped() {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = cases();
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .expect("dir")
                    .map(|e| e.expect("entry").path()),
            );
        } else if !p.to_string_lossy().ends_with("expect")
            // a real capture's provenance note, not a log
            && !p.ends_with("PROVENANCE.txt")
            // a real capture's records topic dump (conformance/checker.py's
            // input: lines of one width) and its internal topics' dumps
            // (topics/), not logs
            && !p.ends_with("records.txt.gz")
            // the checker's verdict on a capture (conformance/checker.py's
            // output: JSON of even width), not a log
            && !p.ends_with("checker.json")
            && !p.parent().is_some_and(|d| d.ends_with("topics"))
        {
            files.push(p);
        }
    }
    assert!(files.len() > 30);
    for f in files {
        let raw = std::fs::read(&f).expect("readable");
        let text = if raw.starts_with(&[0x1f, 0x8b]) {
            gunzip(&raw)
        } else {
            raw
        };
        assert_eq!(
            herder_audit::testing::parse::detect_terminal(&text),
            None,
            "{}",
            f.display()
        );
    }
}

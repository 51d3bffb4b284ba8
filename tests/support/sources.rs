//! Shared by the tests that convert the corpus into the envelopes logs are
//! read in (container-runtime files, log-store exports, hard-wrapped
//! lines): the conversion's bookkeeping, and what must not change between
//! the original and its copy.

use super::cases::{LogFile, audit_path, logs};
use super::files::{gzip, write};
use herder_audit::Report;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a case went: files written, and how to find the original's
/// sources, lines and worker labels in the copy.
#[derive(Default)]
pub struct Copy {
    /// Original source name → copy's source name.
    pub sources: BTreeMap<String, String>,
    /// Original source name → line in the copy, per original line.
    pub lines: BTreeMap<String, Vec<u64>>,
    /// Original worker labels (or their stem) → the copy's.
    pub labels: Vec<(String, String)>,
}

impl Copy {
    pub fn relabel(&self, s: &str) -> String {
        let mut pairs: Vec<&(String, String)> = self.labels.iter().collect();
        pairs.sort_by_key(|(a, _)| std::cmp::Reverse(a.len()));
        // Whole labels first, then stems (`label#stream`).
        for (a, b) in pairs {
            if s == a {
                return b.clone();
            }
            if let Some(rest) = s.strip_prefix(a.as_str())
                && rest.starts_with('#')
            {
                return format!("{b}{rest}");
            }
        }
        s.to_string()
    }
}

/// Notes the copy adds, left out of the comparison.
pub fn reading_note(text: &str) -> bool {
    text.starts_with("read as ") || text.starts_with("the order of lines sharing")
}

/// What must not change, with the original's sources, lines and labels
/// given in the copy's terms when `copy` is set.
pub fn comparable(r: &Report, copy: Option<&Copy>) -> Vec<String> {
    comparable_unprefixed(r, copy, &[])
}

/// [`comparable`], the stream prefixes `[p] ` of an export of several
/// sources taken off the quoted lines.
pub fn comparable_unprefixed(r: &Report, copy: Option<&Copy>, prefixes: &[String]) -> Vec<String> {
    let quote = |t: &str| -> String {
        for p in prefixes {
            if let Some(rest) = t.strip_prefix(&format!("[{p}] ")) {
                return rest.to_string();
            }
        }
        t.to_string()
    };
    let src = |id: herder_audit::SourceId| -> String {
        let name = r.source_name(id).to_string();
        match copy {
            Some(c) => c
                .sources
                .get(&name)
                .cloned()
                .unwrap_or_else(|| panic!("no source for {name}")),
            None => name,
        }
    };
    let line = |id: herder_audit::SourceId, n: u64| -> u64 {
        match copy {
            Some(c) => {
                let name = r.source_name(id);
                let map = c
                    .lines
                    .get(name)
                    .unwrap_or_else(|| panic!("no map for {name}"));
                map[(n - 1) as usize]
            }
            None => n,
        }
    };
    let label = |s: &str| match copy {
        Some(c) => c.relabel(s),
        None => s.to_string(),
    };
    let text = |s: &str| match copy {
        Some(c) => {
            let mut out = s.to_string();
            let mut pairs: Vec<&(String, String)> = c.labels.iter().collect();
            pairs.sort_by_key(|(a, _)| std::cmp::Reverse(a.len()));
            for (a, b) in pairs {
                out = out.replace(a.as_str(), b);
            }
            out
        }
        None => s.to_string(),
    };
    let mut out = Vec::new();
    // The run's findings as reported, in order.
    for f in r.findings() {
        out.push(finding_line(f, &src, &line, &label, &text, &quote));
    }
    for w in &r.workers {
        let s = &w.summary;
        out.push(summary_line(s, &label(&s.worker)));
        for n in &s.notes {
            if reading_note(&n.text) || n.text.starts_with("stitched from") {
                continue;
            }
            let at = n.line.map(|(id, l)| (src(id), line(id, l)));
            out.push(format!("  note {at:?} {}", text(&n.text)));
        }
        for f in &w.findings {
            out.push(format!(
                "  {} {:?} gen {:?} at {}:{} {:?} — {}",
                f.kind.as_str(),
                f.resource,
                f.generation,
                src(f.trigger.source),
                line(f.trigger.source, f.trigger.line),
                quote(&f.trigger.text),
                text(&f.reason)
            ));
            for e in &f.evidence {
                out.push(format!(
                    "    {} {:?} {}:{} {:?}",
                    text(&e.role),
                    e.worker.as_deref().map(label),
                    src(e.line.source),
                    line(e.line.source, e.line.line),
                    quote(&e.line.text)
                ));
            }
        }
    }
    out
}

/// One finding, its lines and labels given by the closures.
pub fn finding_line(
    f: &herder_audit::Finding,
    src: &dyn Fn(herder_audit::SourceId) -> String,
    line: &dyn Fn(herder_audit::SourceId, u64) -> u64,
    label: &dyn Fn(&str) -> String,
    text: &dyn Fn(&str) -> String,
    quote: &dyn Fn(&str) -> String,
) -> String {
    let mut out = format!(
        "finding {} {} {:?} gen {:?} at {}:{} {:?} — {}",
        label(&f.worker),
        f.kind.as_str(),
        f.resource,
        f.generation,
        src(f.trigger.source),
        line(f.trigger.source, f.trigger.line),
        quote(&f.trigger.text),
        text(&f.reason)
    );
    for e in &f.evidence {
        out.push_str(&format!(
            "\n    {} {:?} {}:{} {:?}",
            text(&e.role),
            e.worker.as_deref().map(label),
            src(e.line.source),
            line(e.line.source, e.line.line),
            quote(&e.line.text)
        ));
    }
    out
}

/// The differences, for a failure message.
pub fn diff(name: &str, want: &[String], have: &[String]) -> Option<String> {
    if want == have {
        return None;
    }
    let missing: Vec<&str> = want
        .iter()
        .filter(|l| !have.contains(l))
        .map(|s| s.as_str())
        .collect();
    let extra: Vec<&str> = have
        .iter()
        .filter(|l| !want.contains(l))
        .map(|s| s.as_str())
        .collect();
    Some(format!(
        "{name}:\n  missing:\n    {}\n  extra:\n    {}",
        missing.join("\n    "),
        extra.join("\n    ")
    ))
}

/// A family's directory, base name, and segments (log index, rotation
/// number).
pub type Family = (PathBuf, String, Vec<(usize, u32)>);

/// A family of rotated segments (one log) of a case: its directory and
/// base, and its files (index into the case's logs) with their rotation
/// number (0 for the live file, n for `.n`).
pub fn families(logs: &[LogFile]) -> Vec<Family> {
    let mut out: Vec<Family> = Vec::new();
    for (i, l) in logs.iter().enumerate() {
        let dir = l.rel.parent().map(Path::to_path_buf).unwrap_or_default();
        let file = l
            .rel
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default();
        let base = herder_audit::testing::parse::rotation_base(&file).to_string();
        let rest = file
            .strip_prefix(&base)
            .unwrap_or("")
            .trim_end_matches(".gz");
        let n: u32 = rest.trim_start_matches('.').parse().unwrap_or(0);
        match out.iter_mut().find(|(d, b, _)| *d == dir && *b == base) {
            Some(f) => f.2.push((i, n)),
            None => out.push((dir, base, vec![(i, n)])),
        }
    }
    out
}

/// A name fit for a pod or container id: lower-case letters, digits, `-`.
pub fn dns_name(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    out.trim_matches('-').to_string()
}

/// Pieces of at most `n` bytes (cut at character boundaries); an empty
/// text is one empty piece.
pub fn pieces(text: &[u8], n: usize) -> Vec<&[u8]> {
    if text.is_empty() {
        return vec![text];
    }
    let s = std::str::from_utf8(text);
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + n).min(text.len());
        if let Ok(s) = s {
            while end < text.len() && !s.is_char_boundary(end) {
                end += 1;
            }
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// The original's label of a family and its source names, given where
/// the case was copied to: `orig` is the case's path in the original copy.
pub fn family_label(
    orig: &Path,
    dir: &Path,
    base: &str,
    segments: usize,
    rel_of_first: &Path,
) -> String {
    if rel_of_first.as_os_str().is_empty() {
        return orig.display().to_string();
    }
    if segments == 1 {
        orig.join(rel_of_first).display().to_string()
    } else {
        orig.join(dir).join(base).display().to_string()
    }
}

/// Copies a case as it is (the original, read from a path like the copy's).
/// A case copied plain under `root/orig/` and audited: its name, the copy's
/// path, and the copy's report (what every conversion is compared with).
pub fn original(case: &Path, root: &Path) -> (String, PathBuf, Report) {
    let name = case.file_name().unwrap().to_string_lossy().to_string();
    let orig = root.join("orig").join(&name);
    copy_plain(case, &orig);
    let report = audit_path(&orig);
    (name, orig, report)
}

/// A worker's summary as one comparable line, the worker named `worker`.
pub fn summary_line(s: &herder_audit::WorkerSummary, worker: &str) -> String {
    format!(
        "worker {} group {:?} client {:?} member {:?} url {:?} protocol {:?} events {} restarts {} generations {:?} starts {:?} stops {:?} findings {:?}",
        worker,
        s.group,
        s.client_id,
        s.member_id,
        s.rest_url,
        s.protocol,
        s.events,
        s.restarts,
        s.generation_numbers,
        s.starts,
        s.stops,
        s.findings
    )
}

pub fn copy_plain(case: &Path, dst: &Path) {
    for l in logs(case) {
        let p = if l.rel.as_os_str().is_empty() {
            dst.to_path_buf()
        } else {
            dst.join(&l.rel)
        };
        write(&p, &if l.gz { gzip(&l.text) } else { l.text.clone() });
    }
}

//! The documentation holds together: every relative link of README.md and
//! docs/*.md resolves (the file, and the heading an `#anchor` names), the
//! README keeps its first two commands first and stays a front page, and
//! `herder-audit --help` names every page the README links.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir("docs")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The lines of a page outside fenced code blocks, with their numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// A line without its inline code spans.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut code = false;
    for c in line.chars() {
        if c == '`' {
            code = !code;
        } else if !code {
            out.push(c);
        }
    }
    out
}

/// The targets of the `[text](target)` links (images included) of a line.
fn links(line: &str) -> Vec<String> {
    let line = without_code(line);
    let mut out = Vec::new();
    let mut rest = line.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.to_string());
        rest = &after[end.min(after.len())..];
    }
    out
}

/// The anchors of a page's headings, as GitHub makes them: lower case,
/// punctuation dropped (not `-` or `_`), blanks turned into `-`; a
/// repeated anchor gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose(text) {
        let Some(title) = line
            .strip_prefix('#')
            .map(|t| t.trim_start_matches('#'))
            .filter(|t| t.starts_with(' '))
        else {
            continue;
        };
        let base: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// `a/b/../c` → `a/c`.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap_or(Path::new(""));
        for (n, line) in prose(&text) {
            for target in links(line) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target.as_str(), None),
                };
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    normalise(&dir.join(path))
                };
                let name = file.to_string_lossy().replace('\\', "/");
                checked += 1;
                let at = format!("{}:{n}: {target}", page.display());
                if !file.exists() {
                    broken.push(format!("{at}: no file {name}"));
                    continue;
                }
                if let Some(a) = anchor {
                    let heads = anchors(&std::fs::read_to_string(&file).unwrap_or_default());
                    if !heads.contains(a) {
                        broken.push(format!("{at}: {name} has no heading #{a}"));
                    }
                }
            }
        }
    }
    assert!(checked >= 40, "only {checked} links checked");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    assert_eq!(lines[0], "# herder-audit");
    assert_eq!(lines[2], "```sh");
    assert!(
        lines[3].starts_with("cargo run --release -- corpus/ "),
        "{}",
        lines[3]
    );
    assert!(lines[4].starts_with("cargo test --locked "), "{}", lines[4]);
    assert!(lines.len() <= 300, "README.md has {} lines", lines.len());
    for section in [
        "## Example",
        "## Finding kinds",
        "## HTML report",
        "## Supported logs",
        "## Documentation",
    ] {
        assert!(lines.contains(&section), "README.md lacks {section}");
    }
}

#[test]
fn help_names_every_page_the_readme_links() {
    let out = support::bin().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let readme = std::fs::read_to_string("README.md").unwrap();
    let mut named = 0;
    for (_, line) in prose(&readme) {
        for target in links(line) {
            let path = target.split('#').next().unwrap_or("");
            if path.starts_with("docs/") && path.ends_with(".md") {
                assert!(help.contains(path), "--help does not name {path}:\n{help}");
                named += 1;
            }
        }
    }
    assert!(named >= 10, "{named}");
}

#[test]
fn anchors_and_links_are_read_like_github() {
    let page = "# Title\n## `--bless`\n```\n# not a heading\n```\n## JSON output (schema version 1)\n## Title\n";
    let a = anchors(page);
    for want in [
        "title",
        "--bless",
        "json-output-schema-version-1",
        "title-1",
    ] {
        assert!(a.contains(want), "{want} not in {a:?}");
    }
    assert!(!a.contains("not-a-heading"));
    assert_eq!(
        links("see [a](docs/a.md#x) and ![p](p.png), not `[c](code.md)`"),
        ["docs/a.md#x", "p.png"]
    );
}

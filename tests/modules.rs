//! The import graph of `src/` between top-level modules is a tree-like
//! graph without cycles, and so is the graph between the modules one level
//! below (the children of each top-level module); docs/design.md shows
//! both as they are.
//!
//! An edge `a → b` is any `crate::b…` path in the code of module `a`
//! (`use crate::b::…;`, `use crate::{b, …}` groups across lines, and paths
//! written inline). One level below, an edge `m::a → m::b` is a path in
//! the code of `a` (its file and the files below it) that names its
//! sibling `b`: `crate::m::b…`, `super::b…` from `a`'s own file
//! (`super::super::b…` from a file below it, and so on), or `b::…` in a
//! file that imports `super::*`. Comments and doc comments are not code.
//! Test code is not part of the graph: files named `tests.rs`, files under
//! a `tests/` directory of `src/`, and an inline `#[cfg(test)] mod … {`
//! block to the end of its file (a low module's tests may run the whole
//! pipeline).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `file:line` of each use, per edge.
type Graph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn ident(s: &str) -> &str {
    let end = s.bytes().position(|b| !is_ident(b)).unwrap_or(s.len());
    &s[..end]
}

/// The first path segment of each item of a `{…}` group starting at
/// `s[0] == '{'`.
fn group_heads(s: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item_start = 1;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' | ',' if depth == 1 => {
                heads.push(ident(s[item_start..i].trim_start()));
                item_start = i + 1;
                if c == '}' {
                    break;
                }
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    heads.into_iter().filter(|h| !h.is_empty()).collect()
}

/// The code of a file (comments and test code blanked), line by line.
fn code_lines(text: &str, test_file: bool) -> Vec<String> {
    if test_file {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let next = lines.get(i + 1).map_or("", |l| l.trim());
        if t.trim_end() == "#[cfg(test)]"
            && (next.starts_with("mod ") || next.starts_with("pub mod "))
            && next.ends_with('{')
        {
            break;
        }
        out.push(if t.starts_with("//") {
            String::new()
        } else {
            line.to_string()
        });
    }
    out
}

fn module_graph() -> (BTreeSet<String>, Graph) {
    let root = Path::new("src");
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let top = |p: &Path| -> String {
        let rel = p.strip_prefix(root).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.strip_suffix(".rs").unwrap_or(&first).to_string()
    };
    let modules: BTreeSet<String> = files
        .iter()
        .map(|p| top(p))
        .filter(|m| m != "lib" && m != "main")
        .collect();
    let mut graph: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeMap::new()))
        .collect();
    for p in &files {
        let from = top(p);
        if !modules.contains(&from) {
            continue;
        }
        let rel = p.strip_prefix(root).unwrap();
        let test_file = p.file_name().is_some_and(|n| n == "tests.rs")
            || rel
                .parent()
                .is_some_and(|d| d.components().any(|c| c.as_os_str() == "tests"));
        let text = std::fs::read_to_string(p).unwrap();
        let lines = code_lines(&text, test_file);
        // The code as one string, and where each line starts in it.
        let mut code = String::new();
        let mut starts = Vec::new();
        for l in &lines {
            starts.push(code.len());
            code.push_str(l);
            code.push('\n');
        }
        let bytes = code.as_bytes();
        let mut at = 0;
        while let Some(i) = code[at..].find("crate::").map(|i| i + at) {
            at = i + "crate::".len();
            if i > 0 && is_ident(bytes[i - 1]) {
                continue;
            }
            let rest = &code[at..];
            let heads = if rest.starts_with('{') {
                group_heads(rest)
            } else {
                vec![ident(rest)]
            };
            let line = starts.partition_point(|&s| s <= i);
            for h in heads {
                if h != from && modules.contains(h) {
                    graph
                        .get_mut(&from)
                        .unwrap()
                        .entry(h.to_string())
                        .or_default()
                        .push(format!("src/{}:{line}", rel.display()));
                }
            }
        }
    }
    (modules, graph)
}

/// The module path of a file of `src/` (`m/a.rs`, `m/a/mod.rs`: `[m, a]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    if last != "mod.rs" {
        parts.push(last.strip_suffix(".rs").unwrap_or(&last).to_string());
    }
    parts
}

/// Is `rel` (under `src/`) test code as a whole?
fn is_test_file(rel: &Path) -> bool {
    rel.file_name().is_some_and(|n| n == "tests.rs")
        || rel
            .parent()
            .is_some_and(|d| d.components().any(|c| c.as_os_str() == "tests"))
}

/// Per top-level module with children: its children and the graph
/// between them.
fn child_graphs() -> BTreeMap<String, Graph> {
    let root = Path::new("src");
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let mut children: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &files {
        let path = module_path(p.strip_prefix(root).unwrap());
        if path.len() >= 2 {
            children
                .entry(path[0].clone())
                .or_default()
                .insert(path[1].clone());
        }
    }
    let mut graphs: BTreeMap<String, Graph> = children
        .iter()
        .map(|(m, cs)| {
            let g = cs.iter().map(|c| (c.clone(), BTreeMap::new())).collect();
            (m.clone(), g)
        })
        .collect();
    for p in &files {
        let rel = p.strip_prefix(root).unwrap();
        let path = module_path(rel);
        if path.len() < 2 {
            continue;
        }
        let (top, from) = (&path[0], &path[1]);
        let siblings = &children[top];
        let text = std::fs::read_to_string(p).unwrap();
        let code = code_lines(&text, is_test_file(rel)).join("\n");
        let mut found: Vec<(usize, &str)> = Vec::new();
        // `crate::m::b`.
        let own = format!("crate::{top}::");
        let mut at = 0;
        while let Some(i) = code[at..].find(&own).map(|i| i + at) {
            at = i + own.len();
            if i == 0 || !is_ident(code.as_bytes()[i - 1]) {
                found.extend(heads_at(&code[at..]).into_iter().map(|h| (i, h)));
            }
        }
        // `super::…::b`, as many `super::` as lead from the file to `m`.
        let supers = "super::".repeat(path.len() - 1);
        let mut at = 0;
        while let Some(i) = code[at..].find(&supers).map(|i| i + at) {
            at = i + supers.len();
            let b = code.as_bytes();
            if (i > 0 && (is_ident(b[i - 1]) || b[i - 1] == b':'))
                || code[at..].starts_with("super::")
            {
                continue;
            }
            found.extend(heads_at(&code[at..]).into_iter().map(|h| (i, h)));
        }
        // `b::` after `use super::*;` (in a child's own file).
        if path.len() == 2 && code.contains("use super::*;") {
            for sib in siblings {
                let pat = format!("{sib}::");
                let mut at = 0;
                while let Some(i) = code[at..].find(&pat).map(|i| i + at) {
                    at = i + pat.len();
                    let b = code.as_bytes();
                    if i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b':') {
                        found.push((i, sib.as_str()));
                    }
                }
            }
        }
        for (i, h) in found {
            if h != from && siblings.contains(h) {
                let line = code[..i].matches('\n').count() + 1;
                graphs
                    .get_mut(top)
                    .unwrap()
                    .get_mut(from)
                    .unwrap()
                    .entry(h.to_string())
                    .or_default()
                    .push(format!("src/{}:{line}", rel.display()));
            }
        }
    }
    graphs
}

/// The first segment of the path, or of each item of the group, at the
/// start of `rest`.
fn heads_at(rest: &str) -> Vec<&str> {
    if rest.starts_with('{') {
        group_heads(rest)
    } else {
        vec![ident(rest)]
    }
}

/// A cycle of the graph, if any (depth-first search).
fn cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        g: &Graph,
        m: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut c = path[i..].to_vec();
            c.push(m.to_string());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in g[m].keys() {
            if let Some(c) = visit(g, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(graph, m, &mut Vec::new(), &mut done))
}

/// The graph as docs/design.md shows it: one line per module, `module →
/// what it imports`, modules nothing imports first and, below each, the
/// modules it rests on (ordered by the length of the longest import chain
/// below them, then by name).
fn render(graph: &Graph) -> String {
    fn height(g: &Graph, m: &str, memo: &mut BTreeMap<String, usize>) -> usize {
        if let Some(h) = memo.get(m) {
            return *h;
        }
        // Within a cycle (reported by the cycle test) a module counts 0.
        memo.insert(m.to_string(), 0);
        let h = g[m]
            .keys()
            .map(|n| height(g, n, memo) + 1)
            .max()
            .unwrap_or(0);
        memo.insert(m.to_string(), h);
        h
    }
    let mut memo = BTreeMap::new();
    let mut order: Vec<&String> = graph.keys().collect();
    order.sort_by_key(|m| (std::cmp::Reverse(height(graph, m, &mut memo)), m.as_str()));
    let width = order.iter().map(|m| m.len()).max().unwrap_or(0);
    let mut out = String::new();
    for m in order {
        let deps: Vec<&str> = graph[m].keys().map(String::as_str).collect();
        let deps = if deps.is_empty() {
            "(nothing)".to_string()
        } else {
            deps.join(", ")
        };
        out.push_str(&format!("{m:<width$} → {deps}\n"));
    }
    out
}

/// The graphs one level below as docs/design.md shows them: per top-level
/// module, a line `module::child → the siblings it imports` for each child
/// that imports one, in [`render`]'s order.
fn render_children(graphs: &BTreeMap<String, Graph>) -> String {
    let mut lines: Vec<(String, String)> = Vec::new();
    for (m, graph) in graphs {
        for line in render(graph).lines() {
            let (child, deps) = line.split_once(" → ").unwrap();
            if deps != "(nothing)" {
                lines.push((format!("{m}::{}", child.trim_end()), deps.to_string()));
            }
        }
    }
    let width = lines.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    lines
        .iter()
        .map(|(c, d)| format!("{c:<width$} → {d}\n"))
        .collect()
}

/// The block of docs/design.md between `<!-- NAME -->` and `<!-- /NAME -->`.
fn design_block(name: &str) -> String {
    let doc = std::fs::read_to_string("docs/design.md").unwrap();
    let (start, end) = (
        format!("<!-- {name} -->\n```\n"),
        format!("```\n<!-- /{name} -->"),
    );
    doc.split_once(&start)
        .and_then(|(_, rest)| rest.split_once(&end))
        .map(|(block, _)| block.to_string())
        .unwrap_or_else(|| panic!("docs/design.md has no {start:?} … {end:?} block"))
}

#[test]
fn design_md_shows_the_graph_one_level_below() {
    let want = render_children(&child_graphs());
    assert_eq!(
        design_block("module-graph-children"),
        want,
        "docs/design.md's graph one level below is out of date; the graph of src/ is:\n{want}"
    );
}

#[test]
fn no_cycle_between_top_level_modules() {
    let (modules, graph) = module_graph();
    assert!(modules.len() >= 10, "{modules:?}");
    for m in ["finding", "baseline", "cli", "exit", "report", "replay"] {
        assert!(modules.contains(m), "{m} not found among {modules:?}");
    }
    if let Some(c) = cycle(&graph) {
        let edges: Vec<String> = c
            .windows(2)
            .map(|w| format!("  {} → {}: {}", w[0], w[1], graph[&w[0]][&w[1]].join(", ")))
            .collect();
        panic!(
            "cycle between modules: {}\n{}",
            c.join(" → "),
            edges.join("\n")
        );
    }
}

#[test]
fn no_cycle_between_the_modules_one_level_below() {
    let graphs = child_graphs();
    for m in ["audit", "stream", "input", "replay", "cluster"] {
        assert!(
            graphs.contains_key(m),
            "{m} not found among {:?}",
            graphs.keys()
        );
    }
    assert!(
        graphs["stream"]["decoder"].contains_key("workers"),
        "{:?}",
        graphs["stream"]
    );
    let mut cycles = Vec::new();
    for (m, graph) in &graphs {
        if let Some(c) = cycle(graph) {
            let edges: Vec<String> = c
                .windows(2)
                .map(|w| format!("  {} → {}: {}", w[0], w[1], graph[&w[0]][&w[1]].join(", ")))
                .collect();
            cycles.push(format!("in {m}: {}\n{}", c.join(" → "), edges.join("\n")));
        }
    }
    assert!(
        cycles.is_empty(),
        "cycles between modules:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_rules_the_graph_must_keep() {
    let (_, graph) = module_graph();
    let imports = |a: &str, b: &str| graph[a].contains_key(b);
    // A finding's identity is the finding's: the core type imports no
    // baseline; the baseline knows no printer and printers no baseline.
    assert!(!imports("finding", "baseline"));
    assert!(!imports("report", "baseline"));
    // No subcommand imports the command line; the exit statuses sit
    // below every one of them.
    for m in graph.keys().filter(|m| *m != "cli") {
        assert!(
            !imports(m, "cli"),
            "{m} imports cli: {:?}",
            graph[m].get("cli")
        );
    }
    assert!(
        graph["exit"].keys().all(|m| m == "input"),
        "{:?}",
        graph["exit"]
    );
}

#[test]
fn design_md_shows_the_graph() {
    let (_, graph) = module_graph();
    let want = render(&graph);
    assert_eq!(
        design_block("module-graph"),
        want,
        "docs/design.md's module graph is out of date; the graph of src/ is:\n{want}"
    );
}

#[test]
fn use_groups_are_read_across_lines() {
    assert_eq!(
        group_heads("{\n    audit::{self, Report},\n    finding, model::Resource,\n};"),
        ["audit", "finding", "model"]
    );
    let lines = code_lines(
        "use crate::a;\n/// [`crate::b`]\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\n",
        false,
    );
    assert_eq!(lines.join("\n"), "use crate::a;\n");
    assert!(code_lines("use crate::a;\n", true).is_empty());
}

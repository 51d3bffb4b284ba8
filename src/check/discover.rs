//! Finding the traces under the paths given to `check`.
//!
//! * A directory holding a file named `expect` is one trace: every file in
//!   it (recursively, rotated and gzipped segments included) is audited in
//!   one run, except expectation files.
//! * Any other directory is searched: its subdirectories by the same rules,
//!   its files grouped into logs (a file with its rotated segments:
//!   `name.log`, `name.log.1`, `name.log.2.gz`, …). A log is a trace when
//!   its base name ends in `.log` or when an expectation file is beside it;
//!   the expectation of `name.log` (or `name.txt`, `name.json`,
//!   `name.jsonl`, `name`) is `name.expect`.
//! * A file given by name is the trace of its log (or, without an
//!   expectation of its own in a directory trace, that directory's); an
//!   expectation file given by name is the trace it describes.
//!
//! A trace whose expectation file does not exist yet is `new`.

use crate::input::rotation::rotation_base;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Extensions a log's base name may end in, dropped to name its
/// expectation file (`name.log` → `name.expect`).
const LOG_EXTENSIONS: [&str; 4] = [".log", ".txt", ".jsonl", ".json"];

/// What a trace is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceKind {
    /// One log (a file and its rotated segments), `name.expect` beside it.
    File,
    /// A directory of logs with `expect` inside.
    Directory,
}

/// One trace to audit and compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// How the trace is named in output: the log's path (without rotation
    /// suffix) or the directory's.
    pub name: String,
    pub kind: TraceKind,
    /// File names in expectations and worker labels are relative to this.
    pub base: PathBuf,
    /// The files to audit, in name order.
    pub files: Vec<PathBuf>,
    /// The expectation file (it may not exist yet).
    pub expect: PathBuf,
    /// What a bare `<line>` location refers to (file traces).
    pub default_file: Option<String>,
}

impl Trace {
    pub fn has_expectation(&self) -> bool {
        self.expect.is_file()
    }

    /// A name relative to the trace's directory.
    pub fn relative(&self, name: &str) -> String {
        let base = self.base.to_string_lossy();
        if base.is_empty() || base == "." {
            return name.strip_prefix("./").unwrap_or(name).to_string();
        }
        let base = base.trim_end_matches('/');
        match name.strip_prefix(base) {
            Some(rest) if rest.starts_with('/') => rest[1..].to_string(),
            _ => name.to_string(),
        }
    }
}

/// Is this file an expectation file?
pub fn is_expectation(path: &Path) -> bool {
    path.file_name()
        .map(|n| {
            let n = n.to_string_lossy();
            n == "expect" || n.ends_with(".expect")
        })
        .unwrap_or(false)
}

/// The expectation file name of a log whose rotation base name is `base`.
pub fn expect_name(base: &str) -> String {
    let stem = LOG_EXTENSIONS
        .iter()
        .find_map(|ext| base.strip_suffix(ext).filter(|s| !s.is_empty()))
        .unwrap_or(base);
    format!("{stem}.expect")
}

/// Finds the traces under `roots`, in the order given (directories in name
/// order). Problems (missing paths, an expectation file without a log) come
/// back as `(path, message)`; the search goes on.
pub fn discover(roots: &[PathBuf]) -> (Vec<Trace>, Vec<(String, String)>) {
    let mut d = Discovery::default();
    for root in roots {
        d.root(root);
    }
    // The same trace reached twice (a directory and a file in it) is one.
    let mut seen = std::collections::HashSet::new();
    d.traces.retain(|t| seen.insert(t.expect.clone()));
    (d.traces, d.errors)
}

#[derive(Default)]
struct Discovery {
    traces: Vec<Trace>,
    errors: Vec<(String, String)>,
    visited: Vec<PathBuf>,
}

impl Discovery {
    fn error(&mut self, p: &Path, msg: impl Into<String>) {
        self.errors.push((p.display().to_string(), msg.into()));
    }

    fn root(&mut self, p: &Path) {
        let meta = match std::fs::metadata(p) {
            Ok(m) => m,
            Err(e) => return self.error(p, crate::input::describe(&e)),
        };
        if meta.is_dir() {
            return self.dir(p);
        }
        let dir = p.parent().unwrap_or(Path::new("")).to_path_buf();
        // The directory as a directory trace is named.
        let here = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir.clone()
        };
        let name = file_name(p);
        if name == "expect" {
            return self.directory_trace(&here);
        }
        let Some(logs) = self.logs_in(&dir) else {
            return;
        };
        let found = if name.ends_with(".expect") {
            logs.into_iter().find(|l| expect_name(&l.base) == name)
        } else {
            let base = rotation_base(&name).to_string();
            logs.into_iter().find(|l| l.base == base)
        };
        match found {
            // A log of a directory trace, without an expectation of its own.
            Some(log)
                if !name.ends_with(".expect")
                    && !dir.join(expect_name(&log.base)).is_file()
                    && here.join("expect").is_file() =>
            {
                self.directory_trace(&here)
            }
            Some(log) => self.traces.push(file_trace(&dir, log)),
            None if name.ends_with(".expect") => self.error(p, no_log_message(&name)),
            None => self.error(p, "not found among the files of its directory"),
        }
    }

    fn dir(&mut self, p: &Path) {
        if p.join("expect").is_file() {
            return self.directory_trace(p);
        }
        let canon = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if self.visited.contains(&canon) {
            return self.error(
                p,
                "directory loop (a symlink points back to an enclosing directory); skipped",
            );
        }
        self.visited.push(canon);
        let Some(entries) = self.entries(p) else {
            self.visited.pop();
            return;
        };
        let logs = group_logs(entries.iter().filter(|e| !e.is_dir()).cloned());
        let expectations: Vec<String> = entries
            .iter()
            .filter(|e| !e.is_dir() && file_name(e).ends_with(".expect"))
            .map(|e| file_name(e))
            .collect();
        for log in &logs {
            let expect = expect_name(&log.base);
            if log.base.ends_with(".log") || expectations.contains(&expect) {
                self.traces.push(file_trace(p, log.clone()));
            }
        }
        for e in &expectations {
            if !logs.iter().any(|l| &expect_name(&l.base) == e) {
                self.error(&p.join(e), no_log_message(e));
            }
        }
        for sub in entries.iter().filter(|e| e.is_dir()) {
            self.dir(sub);
        }
        self.visited.pop();
    }

    fn directory_trace(&mut self, dir: &Path) {
        let (inputs, errors) = crate::input::expand(&[dir.to_path_buf()]);
        self.errors.extend(errors);
        let files = inputs
            .into_iter()
            .filter_map(|i| match i {
                crate::input::Input::File(f) if !is_expectation(&f) => Some(f),
                _ => None,
            })
            .collect();
        self.traces.push(Trace {
            name: dir.display().to_string(),
            kind: TraceKind::Directory,
            base: dir.to_path_buf(),
            files,
            expect: dir.join("expect"),
            default_file: None,
        });
    }

    fn entries(&mut self, p: &Path) -> Option<Vec<PathBuf>> {
        match std::fs::read_dir(p) {
            Ok(rd) => {
                let mut v = Vec::new();
                for e in rd {
                    match e {
                        Ok(e) => v.push(e.path()),
                        Err(e) => self.error(p, crate::input::describe(&e)),
                    }
                }
                v.sort_unstable();
                Some(v)
            }
            Err(e) => {
                self.error(p, crate::input::describe(&e));
                None
            }
        }
    }

    fn logs_in(&mut self, dir: &Path) -> Option<Vec<Log>> {
        let listed = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let entries = self.entries(listed)?;
        // Keep the directory as the user wrote it (`x.log`, not `./x.log`).
        let entries = entries.into_iter().filter(|e| !e.is_dir()).map(|e| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(file_name(&e))
            } else {
                e
            }
        });
        Some(group_logs(entries))
    }
}

fn no_log_message(expect: &str) -> String {
    let stem = expect.strip_suffix(".expect").unwrap_or(expect);
    format!(
        "expectation file without a log beside it (looked for {stem}.log, {stem}.log.gz, {stem}.txt, …)"
    )
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// A log: the files of one rotation in one directory.
#[derive(Debug, Clone)]
struct Log {
    base: String,
    files: Vec<PathBuf>,
}

fn group_logs(files: impl Iterator<Item = PathBuf>) -> Vec<Log> {
    let mut by_base: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in files {
        if is_expectation(&f) {
            continue;
        }
        by_base
            .entry(rotation_base(&file_name(&f)).to_string())
            .or_default()
            .push(f);
    }
    by_base
        .into_iter()
        .map(|(base, files)| Log { base, files })
        .collect()
}

fn file_trace(dir: &Path, log: Log) -> Trace {
    let default_file = match log.files.as_slice() {
        [one] => file_name(one),
        _ => log.base.clone(),
    };
    Trace {
        name: dir.join(&log.base).display().to_string(),
        kind: TraceKind::File,
        base: dir.to_path_buf(),
        expect: dir.join(expect_name(&log.base)),
        files: log.files,
        default_file: Some(default_file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectation_names() {
        assert_eq!(expect_name("fault-x-2.3.0.log"), "fault-x-2.3.0.expect");
        assert_eq!(expect_name("dump.txt"), "dump.expect");
        assert_eq!(expect_name("pods.jsonl"), "pods.expect");
        assert_eq!(expect_name("connect"), "connect.expect");
        assert_eq!(expect_name(".log"), ".log.expect");
        assert!(is_expectation(Path::new("a/expect")));
        assert!(is_expectation(Path::new("a/b.expect")));
        assert!(!is_expectation(Path::new("a/expected.log")));
    }

    #[test]
    fn relative_names() {
        let t = Trace {
            name: "c/m".into(),
            kind: TraceKind::Directory,
            base: PathBuf::from("c/m"),
            files: vec![],
            expect: PathBuf::from("c/m/expect"),
            default_file: None,
        };
        assert_eq!(t.relative("c/m/w2/connect.log"), "w2/connect.log");
        assert_eq!(
            t.relative("c/m/d.log#pod/c-0/connect"),
            "d.log#pod/c-0/connect"
        );
        assert_eq!(t.relative("c/mx/a.log"), "c/mx/a.log");
        let here = Trace {
            base: PathBuf::new(),
            ..t
        };
        assert_eq!(here.relative("a.log"), "a.log");
    }
}

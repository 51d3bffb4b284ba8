//! The corpus's traces: where they are, their logs, copies of them, and
//! the in-process audit of paths or bytes.

use super::files::{gunzip, write};
use herder_audit::{Input, Options, Report, audit, expand};
use std::path::{Path, PathBuf};

/// A single-file fault trace (KAFKA-8676) and a clean one, by name.
pub const K8676: &str = "fault-kafka-8676-2.3.0";
pub const CLEAN: &str = "clean-coop-3.6-worker-joins";

/// A path under the repository's `corpus/`.
pub fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

/// Every trace of the corpus: its `.log` files and its directories
/// (`corpus/real-kafka` is one), in name order.
pub fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir("corpus")
        .expect("corpus/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "log"))
        .collect();
    v.sort();
    v
}

/// The hand-written traces of the corpus: `cases()` without
/// `corpus/real-kafka`. Open gaps of the conversions, not of the reader:
/// the 56 real captures (~410 k lines) make every export conversion of a
/// debug build take minutes; their threads' lines are not always in time
/// order within one file, so a newest-first copy of them is not read back
/// line for line; the copies' labels do not map a MirrorMaker herder's
/// `@group`; and a container file per log4j rotation segment (4.x
/// `connect-YYYY-MM-DD-HH.log`) is no shape a container runtime writes.
pub fn hand_written_cases() -> Vec<PathBuf> {
    cases()
        .into_iter()
        .filter(|c| !c.ends_with("real-kafka"))
        .collect()
}

/// One log file of a case: its path relative to the case (empty for a
/// single-file case), its text, and whether it was gzipped.
pub struct LogFile {
    pub rel: PathBuf,
    pub text: Vec<u8>,
    pub gz: bool,
}

/// The logs of a case, in path order.
pub fn logs(case: &Path) -> Vec<LogFile> {
    let mut out = Vec::new();
    let mut stack = vec![case.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p).expect("dir") {
                stack.push(e.expect("entry").path());
            }
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name == "expect" || name.ends_with(".expect") {
            continue;
        }
        let raw = std::fs::read(&p).expect("readable");
        let gz = raw.starts_with(&[0x1f, 0x8b]);
        let text = if gz { gunzip(&raw) } else { raw };
        let rel = p.strip_prefix(case).unwrap_or(Path::new("")).to_path_buf();
        out.push(LogFile { rel, text, gz });
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// Copies a corpus log (without its expectation) into `dir`.
pub fn copy_log(name: &str, dir: &Path) -> PathBuf {
    let to = dir.join(format!("{name}.log"));
    std::fs::copy(format!("corpus/{name}.log"), &to).unwrap();
    to
}

/// Copies a corpus directory trace, renaming its log files by `rename`
/// (its `expect` file keeps its name).
pub fn copy_dir(name: &str, to: &Path, rename: impl Fn(&str) -> String) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(format!("corpus/{name}")).unwrap() {
        let p = e.unwrap().path();
        let f = p.file_name().unwrap().to_string_lossy().to_string();
        let target = if f == "expect" { f } else { rename(&f) };
        write(&to.join(target), std::fs::read(&p).unwrap());
    }
}

/// The audit of files and directories (read recursively), on `jobs`
/// threads (`None`: one per core); every path must exist.
pub fn audit_paths(paths: &[PathBuf], jobs: Option<usize>) -> Report {
    let (inputs, errors) = expand(paths);
    assert!(errors.is_empty(), "{errors:?}");
    audit(
        &inputs,
        &Options {
            jobs,
            ..Options::default()
        },
    )
}

/// The audit of one file or directory.
pub fn audit_path(p: &Path) -> Report {
    audit_paths(&[p.to_path_buf()], None)
}

/// The audit of a text in memory, named `name`, on one thread.
pub fn audit_bytes(name: &str, data: impl Into<Vec<u8>>) -> Report {
    let opts = Options {
        jobs: Some(1),
        ..Options::default()
    };
    audit(&[Input::bytes(name, data)], &opts)
}

//! Helpers shared by the integration tests of the regression workflow.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_herder-audit"));
    c.env_remove("NO_COLOR");
    c
}

pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("herder-audit-check-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn run(c: &mut Command) -> (i32, String, String) {
    let out = c.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub fn check_cmd(args: &[&str], paths: &[&Path]) -> (i32, String, String) {
    run(bin()
        .arg("check")
        .args(["--color", "never"])
        .args(args)
        .args(paths))
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn write(p: &Path, s: &str) {
    std::fs::write(p, s).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
}

pub const K8676: &str = "fault-kafka-8676-2.3.0";
pub const CLEAN: &str = "clean-coop-3.6-worker-joins";

/// Copies a corpus log (without its expectation) into `dir`.
pub fn copy_log(name: &str, dir: &Path) -> PathBuf {
    let to = dir.join(format!("{name}.log"));
    std::fs::copy(format!("corpus/{name}.log"), &to).unwrap();
    to
}

/// Copies a corpus directory trace, optionally renaming its files.
pub fn copy_dir(name: &str, to: &Path, rename: impl Fn(&str) -> String) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(format!("corpus/{name}")).unwrap() {
        let p = e.unwrap().path();
        let f = p.file_name().unwrap().to_string_lossy().to_string();
        let target = if f == "expect" { f } else { rename(&f) };
        std::fs::copy(&p, to.join(target)).unwrap();
    }
}

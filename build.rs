//! Names the git commit the binary is built from in `--version`
//! (`HERDER_AUDIT_VERSION`: `0.1.0 (git 1a2b3c4d5e6f)`, `-dirty` when
//! tracked files differ from it). Built outside a git checkout (a packaged
//! crate), or without git, it is the plain package version.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    for path in ["build.rs", "Cargo.toml", "src", "html"] {
        println!("cargo:rerun-if-changed={path}");
    }
    // Only the crate's own checkout: a packaged copy inside another
    // repository (target/package/…) must not take that repository's commit.
    let checkout = Path::new(".git").exists();
    let commit = checkout
        .then(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .flatten();
    let full = match commit {
        Some(c) => {
            // A new commit or a change of the index (git add, commit,
            // checkout) asks for the commit again.
            for file in ["HEAD", "index", "packed-refs"] {
                if let Some(p) = git(&["rev-parse", "--git-path", file]) {
                    println!("cargo:rerun-if-changed={p}");
                }
            }
            if let Some(p) = git(&["symbolic-ref", "-q", "HEAD"])
                .and_then(|r| git(&["rev-parse", "--git-path", &r]))
            {
                println!("cargo:rerun-if-changed={p}");
            }
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            format!("{version} (git {c}{})", if dirty { "-dirty" } else { "" })
        }
        None => version.to_string(),
    };
    println!("cargo:rustc-env=HERDER_AUDIT_VERSION={full}");
}

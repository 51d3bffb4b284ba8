//! The binary's contract: exit statuses, error messages that name the input,
//! the rest of the run unaffected, quiet broken pipes.

mod support;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Stdio;
use support::{bin, bin_no_color, gzip, run, scratch};

const FAULTY: &str = "corpus/fault-kafka-17105-3.8.0.log";
const CLEAN: &str = "corpus/clean-coop-3.6-worker-joins.log";

#[test]
fn exit_statuses() {
    let (code, out, err) = run(bin_no_color().arg(CLEAN));
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.is_empty(), "{err}");
    let (code, out, _) = run(bin_no_color().arg(FAULTY));
    assert_eq!(code, 1);
    assert!(out.contains("error[unnecessary-stop]"), "{out}");
    let (code, _, _) = run(bin_no_color().arg(FAULTY).args(["--fail-on", "never"]));
    assert_eq!(code, 0);
    // A warning-only trace fails only with --fail-on warning.
    let warn = "corpus/fault-lost-eager-task-2.2.0.log";
    assert_eq!(run(bin_no_color().arg(warn)).0, 0);
    assert_eq!(
        run(bin_no_color().arg(warn).args(["--fail-on", "warning"])).0,
        1
    );
    // Usage errors.
    let (code, _, err) = run(bin_no_color().arg("--format").arg("yaml"));
    assert_eq!(code, 2);
    assert!(err.contains("yaml"), "{err}");
}

#[test]
fn a_missing_file_is_named_and_the_rest_is_audited() {
    let (code, out, err) = run(bin_no_color().arg("no/such/file.log").arg(FAULTY));
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "herder-audit: no/such/file.log: no such file or directory"
    );
    assert!(
        out.contains("error[unnecessary-stop]"),
        "the other input is still audited: {out}"
    );
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"));
}

#[test]
fn an_unreadable_file_is_named() {
    let d = scratch("unreadable");
    let p = d.join("locked.log");
    std::fs::write(&p, "x\n").unwrap();
    let mut perms = std::fs::metadata(&p).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o000);
    std::fs::set_permissions(&p, perms).unwrap();
    // Root reads anything: then use a file whose read fails.
    let target: PathBuf = if std::fs::File::open(&p).is_ok() {
        PathBuf::from("/proc/self/mem")
    } else {
        p.clone()
    };
    let (code, out, err) = run(bin_no_color().arg(&target).arg(CLEAN));
    assert_eq!(code, 2, "{out}{err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!("herder-audit: {}: ", target.display())),
        "{err}"
    );
    assert!(
        first.len() > format!("herder-audit: {}: ", target.display()).len(),
        "{err}"
    );
    assert!(out.contains("summary"), "{out}");
}

#[test]
fn a_truncated_gzip_is_audited_up_to_the_cut() {
    let d = scratch("gzip");
    let text = std::fs::read(FAULTY).unwrap();
    let gz = gzip(&text);
    // Whole (named without .gz: detected by its magic bytes).
    let whole = d.join("whole.log");
    std::fs::write(&whole, &gz).unwrap();
    let (code, out, err) = run(bin_no_color().arg(&whole));
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("error[unnecessary-stop]"));
    // Truncated after most of the data: the finding (line 27 of 53) is in
    // the readable part.
    let cut = d.join("cut.log.gz");
    std::fs::write(&cut, &gz[..gz.len() * 9 / 10]).unwrap();
    let (code, out, err) = run(bin_no_color().arg(&cut));
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.starts_with(&format!(
            "herder-audit: {}: gzip stream is truncated after line ",
            cut.display()
        )),
        "{err}"
    );
    assert!(err.contains("the lines before it were audited"), "{err}");
    assert!(out.contains("error[unnecessary-stop]"), "{out}");
    // Corrupt in the middle.
    let mut bad = gz.clone();
    let mid = bad.len() / 2;
    for b in &mut bad[mid..mid + 16] {
        *b ^= 0x5a;
    }
    let corrupt = d.join("corrupt.gz");
    std::fs::write(&corrupt, &bad).unwrap();
    let (code, _, err) = run(bin_no_color().arg(&corrupt).arg(CLEAN));
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{}: gzip stream", corrupt.display())),
        "{err}"
    );
}

#[test]
fn concatenated_gzip_members_are_one_log() {
    // `logrotate` and `cat` make one file of several gzip members: it is
    // audited as the text of all of them, as the plain log is.
    let d = scratch("gzip-members");
    let text = std::fs::read(FAULTY).unwrap();
    let cut = text.len() / 3;
    let cut = cut + text[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let members = [gzip(&text[..cut]), gzip(b""), gzip(&text[cut..])].concat();
    // The same file name (a worker is named after its file when its log
    // does not say), in two directories.
    let (plain, joined) = (d.join("plain/connect.log"), d.join("joined/connect.log"));
    std::fs::create_dir_all(d.join("plain")).unwrap();
    std::fs::create_dir_all(d.join("joined")).unwrap();
    std::fs::write(&plain, &text).unwrap();
    std::fs::write(&joined, &members).unwrap();
    let (code, expected, err) = run(bin_no_color().arg(&plain).args(["--format", "jsonl"]));
    assert_eq!(code, 1, "{err}");
    let (code, out, err) = run(bin_no_color().arg(&joined).args(["--format", "jsonl"]));
    assert_eq!(code, 1, "{err}");
    let named = |s: &str, p: &PathBuf| s.replace(&p.display().to_string(), "LOG");
    assert_eq!(named(&out, &joined), named(&expected, &plain));
}

#[test]
fn empty_and_binary_files_are_harmless() {
    let d = scratch("odd");
    std::fs::write(d.join("empty.log"), b"").unwrap();
    let bin_data: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(d.join("binary.dat"), &bin_data).unwrap();
    let (code, out, err) = run(bin_no_color().arg(&d));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("run: 2 inputs"), "{out}");
}

#[test]
fn stdin_is_read_when_no_path_is_given() {
    let mut child = bin_no_color()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let data = std::fs::read(FAULTY).unwrap();
    child.stdin.take().unwrap().write_all(&data).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--> <stdin>:27"), "{text}");
}

#[test]
fn broken_pipe_exits_quietly() {
    let mut child = bin_no_color()
        .arg("corpus")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        matches!(out.status.code(), Some(0) | Some(1)),
        "{:?}",
        out.status
    );
}

#[test]
fn json_and_jsonl_are_well_formed() {
    let (code, out, _) = run(bin_no_color().arg(FAULTY).args(["--format", "json"]));
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["findings"][0]["kind"], "unnecessary-stop");
    assert_eq!(v["findings"][0]["trigger"]["line"], 27);
    let (_, out, _) = run(bin_no_color().arg(FAULTY).args(["--format", "jsonl"]));
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.first().unwrap()["type"], "finding");
    assert_eq!(lines.last().unwrap()["type"], "summary");
    let (code, out, _) = run(bin().args(["replay", "--format", "json", FAULTY]));
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["workers"][0]["generations"]
            .as_array()
            .is_some_and(|g| g.len() == 2),
        "{v}"
    );
}

/// `--version` names the commit the binary was built from when it was
/// built from a git checkout (with git at hand), else the plain version.
#[test]
fn version_names_the_commit() {
    let (code, out, _) = run(bin().arg("--version"));
    assert_eq!(code, 0);
    let plain = format!("herder-audit {}", env!("CARGO_PKG_VERSION"));
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success() && std::path::Path::new(".git").exists())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        Some(commit) => assert!(
            out.starts_with(&format!("{plain} (git {commit}")),
            "{out:?} does not name commit {commit}"
        ),
        None => assert_eq!(out.trim_end(), plain),
    }
}

//! Hostile input: any bytes, odd files, odd directories. Each case: no
//! panic, a message naming the input, the rest of the run unaffected, the
//! documented exit status.

mod support;

use std::io::Write;
use std::path::Path;
use support::{bin_no_color, run, scratch_removed as scratch};

const FAULTY: &str = "corpus/fault-kafka-17105-3.8.0.log";

fn faulty_findings(out: &str) -> usize {
    out.matches("error[unnecessary-stop]").count()
}

#[test]
fn invalid_utf8_and_nul_bytes_in_and_around_lifecycle_lines() {
    let d = scratch("bytes");
    let text = std::fs::read(FAULTY).unwrap();
    let mut mangled = Vec::new();
    for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        mangled.extend_from_slice(line);
        // Garbage after every line, some of it lifecycle-looking.
        match i % 4 {
            0 => mangled.extend_from_slice(b"\xff\xfe\x00\x00 noise \xc3\x28\n"),
            1 => mangled.extend_from_slice(b"[2024-07-10 14:00:00,000] INFO \xff Starting task \xfe\xff-0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1)\n"),
            2 => mangled.extend_from_slice(b"\x00\x00\x00org.apache.kafka.connect.runtime\x00\n"),
            _ => mangled.extend_from_slice(b"[Worker clientId=\xff, groupId=\x00] Joined group at generation \xff\n"),
        }
    }
    let p = d.join("mangled.log");
    std::fs::write(&p, &mangled).unwrap();
    let (code, out, err) = run(bin_no_color().arg(&p));
    // The foreign starts of the odd task are findings of their own; the
    // original finding is still there.
    assert!(code == 1, "{out}{err}");
    assert!(faulty_findings(&out) >= 1, "{out}");
}

#[test]
fn a_fifty_megabyte_line_is_skipped_with_a_warning() {
    let d = scratch("long");
    let p = d.join("long.log");
    let mut f = std::fs::File::create(&p).unwrap();
    let text = std::fs::read(FAULTY).unwrap();
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    f.write_all(&lines[..5].concat()).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..50 {
        f.write_all(&chunk).unwrap();
    }
    f.write_all(b" org.apache.kafka.connect.runtime\n").unwrap();
    f.write_all(&lines[5..].concat()).unwrap();
    // And a last 50 MiB line without a newline.
    for _ in 0..50 {
        f.write_all(&chunk).unwrap();
    }
    drop(f);
    let (code, out, err) = run(bin_no_color().arg(&p));
    assert_eq!(code, 1, "{err}");
    assert!(faulty_findings(&out) == 1, "{out}");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("warning: a line of"))
        .collect();
    assert_eq!(warnings.len(), 2, "{err}");
    assert!(
        warnings[0].starts_with(&format!(
            "herder-audit: {}:6: warning: a line of 52428833 bytes",
            p.display()
        )),
        "{err}"
    );
    assert!(
        warnings[1].contains(&format!("{}:{}:", p.display(), lines.len() + 2)),
        "{err}"
    );
}

#[test]
fn crlf_and_no_final_newline() {
    let d = scratch("crlf");
    let text = std::fs::read_to_string(FAULTY).unwrap();
    let crlf = text.trim_end().replace('\n', "\r\n");
    std::fs::write(d.join("crlf.log"), crlf.as_bytes()).unwrap();
    let (code, out, _) = run(bin_no_color().arg(d.join("crlf.log")));
    assert_eq!(code, 1);
    assert_eq!(faulty_findings(&out), 1);
    assert!(out.contains("crlf.log:27"), "{out}");
}

#[test]
fn odd_directories() {
    let d = scratch("dirs");
    std::fs::copy(FAULTY, d.join("good.log")).unwrap();
    std::fs::write(d.join("empty.log"), b"").unwrap();
    // A symlink loop and a dangling link.
    std::os::unix::fs::symlink(&d, d.join("loop")).unwrap();
    std::os::unix::fs::symlink(d.join("self"), d.join("self")).unwrap();
    std::os::unix::fs::symlink(d.join("nowhere"), d.join("dangling.log")).unwrap();
    // An unreadable file (root reads anything: then a file whose read fails).
    let locked = d.join("locked.log");
    std::fs::write(&locked, b"x\n").unwrap();
    let mut perms = std::fs::metadata(&locked).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o000);
    std::fs::set_permissions(&locked, perms).unwrap();
    if std::fs::File::open(&locked).is_ok() {
        std::fs::remove_file(&locked).unwrap();
        std::os::unix::fs::symlink("/proc/self/mem", &locked).unwrap();
    }
    let (code, out, err) = run(bin_no_color().arg(&d));
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(faulty_findings(&out), 1, "the good file is audited: {out}");
    let named = |p: &Path| {
        err.lines()
            .any(|l| l.starts_with(&format!("herder-audit: {}: ", p.display())))
    };
    assert!(named(&d.join("loop")), "{err}");
    assert!(named(&d.join("self")), "{err}");
    assert!(named(&d.join("dangling.log")), "{err}");
    assert!(named(&locked), "{err}");
    assert_eq!(err.lines().count(), 4, "one line per problem: {err}");
}

#[test]
fn a_path_that_does_not_exist() {
    let (code, _, err) = run(bin_no_color().arg("/no/such/dir/at/all"));
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "herder-audit: /no/such/dir/at/all: no such file or directory"
    );
}

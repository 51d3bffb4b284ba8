//! Container-runtime copies of the corpus: every trace (single-worker
//! traces and multi-worker directories, rotated and gzipped segments
//! included) as the kubelet's CRI files under `/var/log/pods` and as
//! Docker json-file logs, every record split into parts as the runtimes
//! split records past 16 KiB (here: past a few dozen bytes, so that every
//! record is split), stderr lines between the parts. Each copy must audit
//! exactly like the original: the same findings (kind, resource, reason,
//! trigger and evidence, their lines mapped to the first part of the
//! record in the copy), the same counts in every worker's summary, the
//! same notes, plus one saying how the copy was read.

mod support;

use std::path::Path;
use support::sources::*;
use support::*;

const PART: usize = 48;

/// Lines of a copy within which the other pipe writes (a worker logs to
/// stdout; the JVM's warnings at start-up go to stderr).
const STDERR_UNTIL: u64 = 12;

/// The physical lines of one record split into parts: `(line, partial)`.
fn cri_record(content: &[u8], n: &mut u64, out: &mut Vec<u8>, parts_since_stderr: &mut usize) {
    let parts = pieces(content, PART);
    let last = parts.len() - 1;
    for (i, p) in parts.into_iter().enumerate() {
        *n += 1;
        let ts = format!(
            "2025-03-04T10:15:{:02}.{:09}Z",
            (*n / 1_000_000) % 60,
            *n % 1_000_000_000
        );
        let tag = if i == last { "F" } else { "P" };
        out.extend_from_slice(format!("{ts} stdout {tag} ").as_bytes());
        out.extend_from_slice(p);
        out.push(b'\n');
        *parts_since_stderr += 1;
        if i < last && *parts_since_stderr >= 5 && *n < STDERR_UNTIL {
            // The other pipe writes between the parts (the JVM's warnings
            // at start-up).
            *parts_since_stderr = 0;
            *n += 1;
            out.extend_from_slice(format!("{ts} stderr F OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot loader classes\n").as_bytes());
        }
    }
}

fn docker_record(
    content: &[u8],
    n: &mut u64,
    out: &mut Vec<u8>,
    parts_since_stderr: &mut usize,
    tag: &str,
) {
    let parts = pieces(content, PART);
    let last = parts.len() - 1;
    for (i, p) in parts.into_iter().enumerate() {
        *n += 1;
        let mut log = String::from_utf8_lossy(p).to_string();
        if i == last {
            log.push('\n');
        }
        let rec = serde_json::json!({"log": log, "stream": "stdout", "attrs": {"tag": tag}, "time": format!("2025-03-04T10:15:00.{:09}Z", *n)});
        out.extend_from_slice(rec.to_string().as_bytes());
        out.push(b'\n');
        *parts_since_stderr += 1;
        if i < last && *parts_since_stderr >= 5 && *n < STDERR_UNTIL {
            *parts_since_stderr = 0;
            *n += 1;
            let rec = serde_json::json!({"log": "OpenJDK 64-Bit Server VM warning: x\n", "stream": "stderr", "time": "2025-03-04T10:15:00Z"});
            out.extend_from_slice(rec.to_string().as_bytes());
            out.push(b'\n');
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Rt {
    Cri,
    Docker,
}

/// Converts a case into the runtime's files under `dst`.
fn convert(case: &Path, orig: &Path, dst: &Path, rt: Rt) -> Copy {
    let logs = logs(case);
    let mut copy = Copy::default();
    for (fi, (dir, base, segs)) in families(&logs).into_iter().enumerate() {
        let first_rel = &logs[segs[0].0].rel;
        let stem = if first_rel.as_os_str().is_empty() {
            case.file_name().unwrap().to_string_lossy().to_string()
        } else {
            dir.join(&base).display().to_string()
        };
        let pod = dns_name(&stem);
        let id = format!("{:012x}{fi:04}", 0xc0ffee_u64);
        let (folder, new_label) = match rt {
            Rt::Cri => {
                let f = dst
                    .join("pods")
                    .join(format!("corpus_{pod}_0f1e2d3c-0000-4000-8000-{id}"))
                    .join("connect");
                (f, format!("corpus/{pod}/connect"))
            }
            Rt::Docker => {
                let f = dst.join("containers").join(&id);
                let label = f.join(format!("{id}-json.log")).display().to_string();
                (f, label)
            }
        };
        let old_label = family_label(orig, &dir, &base, segs.len(), first_rel);
        let new_label = if rt == Rt::Docker && segs.len() == 1 {
            // A single segment is named by its path.
            let (i, n) = segs[0];
            folder
                .join(docker_name(&id, n, logs[i].gz))
                .display()
                .to_string()
        } else {
            new_label
        };
        copy.labels.push((old_label, new_label));
        for (i, n) in segs {
            let l = &logs[i];
            let name = match rt {
                Rt::Cri => {
                    let mut s = "0.log".to_string();
                    if n > 0 {
                        s.push_str(&format!(".20250304-{:02}1500", 10 - n));
                    }
                    if l.gz {
                        s.push_str(".gz");
                    }
                    s
                }
                Rt::Docker => docker_name(&id, n, l.gz),
            };
            let path = folder.join(name);
            let mut out = Vec::new();
            let mut map = Vec::new();
            let mut phys = 0u64;
            let mut since = 0usize;
            for (content, term) in lines(&l.text) {
                map.push(phys + 1);
                let content = if term == b"\r\n" {
                    // The runtime keeps a carriage return in the record.
                    let mut c = content.to_vec();
                    c.push(b'\r');
                    c
                } else {
                    content.to_vec()
                };
                match rt {
                    Rt::Cri => cri_record(&content, &mut phys, &mut out, &mut since),
                    Rt::Docker => docker_record(&content, &mut phys, &mut out, &mut since, &pod),
                }
            }
            write(&path, &if l.gz { gzip(&out) } else { out });
            let orig_src = if l.rel.as_os_str().is_empty() {
                orig.to_path_buf()
            } else {
                orig.join(&l.rel)
            };
            let orig_src = orig_src.display().to_string();
            copy.sources
                .insert(orig_src.clone(), path.display().to_string());
            copy.lines.insert(orig_src, map);
        }
    }
    copy
}

fn docker_name(id: &str, n: u32, gz: bool) -> String {
    let mut s = format!("{id}-json.log");
    if n > 0 {
        s.push_str(&format!(".{n}"));
    }
    if gz {
        s.push_str(".gz");
    }
    s
}

fn run(rt: Rt, tag: &str, note: &str) {
    let root = scratch(tag);
    let mut failures = Vec::new();
    let mut compared = 0;
    for case in hand_written_cases() {
        let (name, orig, original) = original(&case, &root);
        let dst = root.join("copy").join(&name);
        let copy = convert(&case, &orig, &dst, rt);
        let got = audit_path(&dst);
        let want = comparable(&original, Some(&copy));
        let have = comparable(&got, None);
        assert!(!want.is_empty());
        if let Some(d) = diff(&name, &want, &have) {
            failures.push(d);
        }
        for w in &got.workers {
            if !w.summary.notes.iter().any(|n| n.text.starts_with(note)) {
                failures.push(format!("{name}: no note for {}", w.summary.worker));
            }
        }
        compared += 1;
    }
    if std::env::var_os("HERDER_AUDIT_KEEP_COPIES").is_none() {
        let _ = std::fs::remove_dir_all(&root);
    }
    assert!(compared >= 30, "only {compared} cases compared");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn cri_copies_of_the_corpus_audit_like_the_originals() {
    run(Rt::Cri, "cri", "read as a CRI container log");
}

#[test]
fn docker_json_file_copies_of_the_corpus_audit_like_the_originals() {
    run(Rt::Docker, "docker", "read as a Docker json-file log");
}

#[test]
fn a_split_assignment_keeps_its_findings() {
    // The case: the assignment line split by the runtime; the
    // copy finds the original's findings.
    let case = Path::new("corpus/fault-kafka-10763-2.7.0.log");
    let root = scratch("split-assignment");
    let orig = root.join("orig").join("t.log");
    copy_plain(case, &orig);
    let original = audit_path(&orig);
    assert!(original.findings().count() > 0);
    let dst = root.join("copy");
    let copy = convert(case, &orig, &dst, Rt::Cri);
    let got = audit_path(&dst);
    assert_eq!(comparable(&original, Some(&copy)), comparable(&got, None));
    let _ = std::fs::remove_dir_all(&root);
}

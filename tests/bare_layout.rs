//! Layouts that print no logger (`%d %p %m%n`): every corpus trace in an
//! Apache-style layout (`[%d] %p [%X{connector.context}]%m (%c[:%L])`),
//! rewritten line by line into the bare layout (no brackets round the date,
//! no MDC, no logger; a multi-line message ends with an empty line), must
//! audit like the original: the same findings on the same lines, the same
//! counts, the same notes plus one saying how the layout was read. And a
//! bare stream that the head of its file does not show is read from the
//! first line that shows it, without a finding on what came before.

mod support;

use herder_audit::Input;
use herder_audit::{Options, Report, audit};
use std::path::Path;
use support::{audit_path, cases, gunzip, gzip, scratch};

/// `2024-05-01 10:00:00,123` at the start of `s`.
fn is_stamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 23
        && b.iter().take(23).enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b' ',
            13 | 16 => *c == b':',
            19 => *c == b',',
            _ => c.is_ascii_digit(),
        })
}

/// `(a.b.C)` / `(a.b.C:123)`: a logger suffix.
fn is_logger(s: &str) -> bool {
    let Some(inner) = s.strip_prefix('(').and_then(|s| s.strip_suffix(')')) else {
        return false;
    };
    let (name, line) = inner.split_once(':').unwrap_or((inner, "0"));
    name.contains('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'$')
        && (line == "?" || line.bytes().all(|b| b.is_ascii_digit()))
}

/// One line of an Apache-style layout in the bare layout; `None` when the
/// line is in another layout.
fn bare_line(line: &str) -> Option<String> {
    // The closing line of a multi-line message: ` (logger)`.
    let t = line.trim_start_matches("# ");
    if t.starts_with(' ') && is_logger(t.trim()) {
        return Some(line[..line.len() - t.len()].to_string());
    }
    let open = line
        .char_indices()
        .find(|(i, c)| *c == '[' && is_stamp(&line[i + 1..]) && line[i + 24..].starts_with("] "))?
        .0;
    let (pre, rest) = line.split_at(open);
    let stamp = &rest[1..24];
    let rest = &rest[26..];
    let (level, mut msg) = rest.split_once(' ').unwrap_or((rest, ""));
    // `%X{connector.context}`: `[name|worker] `, `[name|task-0] `, `[name|task-0|offsets] `.
    if let Some(end) = msg.find("] ")
        && msg.starts_with('[')
        && msg[..end].contains('|')
        && !msg.starts_with("[Worker ")
    {
        msg = &msg[end + 2..];
    }
    let msg = match msg.rfind(" (") {
        Some(i) if is_logger(&msg[i + 1..]) => &msg[..i],
        _ => msg,
    };
    Some(format!("{pre}{stamp} {level} {msg}"))
}

/// The whole text in the bare layout, or `None` if a record line is in
/// another layout (Debezium's).
fn bare_text(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut records = 0;
    for line in text.split_inclusive('\n') {
        let (content, eol) = match line.strip_suffix("\r\n") {
            Some(c) => (c, "\r\n"),
            None => match line.strip_suffix('\n') {
                Some(c) => (c, "\n"),
                None => (line, ""),
            },
        };
        if herder_audit::testing::parse::starts_record(content.as_bytes()) {
            records += 1;
            out.push_str(&bare_line(content)?);
        } else {
            out.push_str(&bare_line(content).unwrap_or_else(|| content.to_string()));
        }
        out.push_str(eol);
    }
    (records > 0).then_some(out)
}

/// Copies a corpus case into `dst` in the bare layout; `false` when the
/// case is in a layout that cannot be rewritten.
fn copy_bare(src: &Path, dst: &Path) -> bool {
    if src.is_dir() {
        std::fs::create_dir_all(dst).expect("mkdir");
        for e in std::fs::read_dir(src).expect("dir") {
            let p = e.expect("entry").path();
            if !copy_bare(&p, &dst.join(p.file_name().unwrap())) {
                return false;
            }
        }
        return true;
    }
    let name = src.file_name().unwrap().to_string_lossy();
    if name == "expect" || name.ends_with(".expect") {
        // Audited too (as a file without a record): keep the source ids.
        std::fs::copy(src, dst).expect("copy");
        return true;
    }
    let raw = std::fs::read(src).expect("readable");
    let gz = raw.starts_with(&[0x1f, 0x8b]);
    let text = if gz { gunzip(&raw) } else { raw };
    let Some(bare) = bare_text(&String::from_utf8(text).expect("utf-8 trace")) else {
        return false;
    };
    let bytes = if gz {
        gzip(bare.as_bytes())
    } else {
        bare.into_bytes()
    };
    std::fs::write(dst, bytes).expect("write");
    true
}

/// Findings and summaries without the quoted text (which differs by layout)
/// and with `from` in paths replaced by `to`.
fn comparable(r: &Report, from: &str, to: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in &r.workers {
        let s = &w.summary;
        out.push(format!(
            "worker {} group {:?} client {:?} member {:?} url {:?} cluster {:?} protocol {:?} events {} restarts {} generations {:?} starts {:?} stops {:?} findings {:?}",
            s.worker.replace(from, to),
            s.group,
            s.client_id,
            s.member_id,
            s.rest_url,
            s.kafka_cluster,
            s.protocol,
            s.events,
            s.restarts,
            s.generation_numbers,
            s.starts,
            s.stops,
            s.findings
        ));
        for n in s
            .notes
            .iter()
            .filter(|n| !n.text.starts_with("the layout prints no logger"))
        {
            out.push(format!("  note {:?} {}", n.line, n.text.replace(from, to)));
        }
        for f in &w.findings {
            out.push(format!(
                "  {} {:?} gen {:?} at {}:{} — {}",
                f.kind.as_str(),
                f.resource,
                f.generation,
                f.trigger.source.0,
                f.trigger.line,
                f.reason.replace(from, to)
            ));
            for e in &f.evidence {
                out.push(format!(
                    "    {} {:?} {}:{}",
                    e.role.replace(from, to),
                    e.worker.as_deref().map(|x| x.replace(from, to)),
                    e.line.source.0,
                    e.line.line
                ));
            }
        }
    }
    out
}

#[test]
fn bare_copies_of_the_corpus_audit_like_the_originals() {
    let root = scratch("corpus");
    let (mut compared, mut skipped) = (Vec::new(), Vec::new());
    let mut failures = Vec::new();
    for case in cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let dst = root.join(&name);
        if !copy_bare(&case, &dst) {
            skipped.push(name);
            continue;
        }
        let from = case.to_string_lossy().to_string();
        let to = dst.to_string_lossy().to_string();
        let want = comparable(&audit_path(&case), &from, &to);
        let got_report = audit_path(&dst);
        let got = comparable(&got_report, "", "");
        if want != got {
            let missing: Vec<&str> = want
                .iter()
                .filter(|l| !got.contains(l))
                .map(String::as_str)
                .collect();
            let extra: Vec<&str> = got
                .iter()
                .filter(|l| !want.contains(l))
                .map(String::as_str)
                .collect();
            failures.push(format!(
                "{name}:\n  missing:\n    {}\n  extra:\n    {}",
                missing.join("\n    "),
                extra.join("\n    ")
            ));
        }
        // Every worker is told how its layout was read.
        for w in got_report.findings().map(|f| &*f.worker).chain(
            got_report
                .workers
                .iter()
                .filter(|w| w.summary.events > 0)
                .map(|w| w.summary.worker.as_str()),
        ) {
            let wk = got_report
                .workers
                .iter()
                .find(|x| x.summary.worker == w)
                .expect("worker");
            if !wk.summary.notes.iter().any(|n| {
                n.text
                    .starts_with("the layout prints no logger: every line is read")
            }) {
                failures.push(format!("{name}: no layout note for {w}"));
            }
        }
        compared.push(name);
    }
    let _ = std::fs::remove_dir_all(&root);
    eprintln!(
        "{} cases compared; skipped (not in an Apache-style layout): {skipped:?}",
        compared.len()
    );
    assert!(
        compared.len() >= 28,
        "compared {compared:?}, skipped {skipped:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A compose file whose head holds only a worker with loggers; the second
/// worker, in the bare layout, starts later. Its `Stopping task` lines come
/// after its first prefixed line, from which every line is read.
#[test]
fn a_bare_stream_the_head_does_not_show_is_read_from_its_first_prefixed_line() {
    let mut log = String::new();
    for i in 0..400 {
        log.push_str(&format!(
            "connect-1  | [2024-06-01 10:{:02}:{:02},000] INFO [pg-sink|task-0] WorkerSinkTask{{id=pg-sink-0}} Committing offsets asynchronously using sequence number {i}: {{orders-0=OffsetAndMetadata{{offset={i}, leaderEpoch=null, metadata=''}}}} (org.apache.kafka.connect.runtime.WorkerSinkTask:362)\n",
            i / 60,
            i % 60
        ));
    }
    let w = "[Worker clientId=connect-1, groupId=connect-late] ";
    let a = "Assignment{error=0, leader='connect-1-7d0c', leaderUrl='http://connect-2:8083/', offset=9, connectorIds=[es-sink], taskIds=[es-sink-0], revokedConnectorIds=[], revokedTaskIds=[], delay=0}";
    let bare = [
        // Hidden from the prefilter: nothing reads it until the next line.
        "2024-06-01 10:07:00,001 INFO Stopping task es-sink-0".to_string(),
        format!(
            "2024-06-01 10:07:00,100 INFO {w}Joined group at generation 4 with protocol version 2 and got assignment: {a} with rebalance delay: 0"
        ),
        format!(
            "2024-06-01 10:07:00,101 INFO {w}Starting connectors and tasks using config offset 9"
        ),
        format!("2024-06-01 10:07:00,102 INFO {w}Starting task es-sink-0"),
        "2024-06-01 10:07:00,103 INFO Creating task es-sink-0".to_string(),
        format!("2024-06-01 10:07:00,120 INFO {w}Finished starting connectors and tasks"),
        "2024-06-01 10:09:00,000 INFO Stopping task es-sink-0".to_string(),
        format!("2024-06-01 10:09:00,010 INFO {w}Starting task es-sink-0"),
        "2024-06-01 10:09:00,011 INFO Creating task es-sink-0".to_string(),
    ];
    for l in &bare {
        log.push_str(&format!("connect-2  | {l}\n"));
    }
    let report = audit(
        &[Input::bytes("docker-compose.log", log)],
        &Options::default(),
    );
    let findings: Vec<_> = report.findings().collect();
    assert!(findings.is_empty(), "{findings:#?}");
    let w2 = report
        .workers
        .iter()
        .find(|w| w.summary.worker.ends_with("#connect-2"))
        .expect("connect-2 is a worker");
    let note = w2
        .summary
        .notes
        .iter()
        .find(|n| {
            n.text
                .starts_with("the layout prints no logger (noticed only here)")
        })
        .expect("the late note");
    assert_eq!(note.line.map(|(_, l)| l), Some(402));
    // The restart after it was read: a stop and a start.
    assert_eq!(
        w2.summary.stops.values().sum::<u64>(),
        1,
        "{:?}",
        w2.summary.stops
    );
}

//! Log lines put in the envelopes they are read in off a node or out of a
//! log store, for the `sources` fuzz target: the fuzzer writes the lines,
//! the first two bytes choose the envelope and how its records are split
//! (container runtimes) or stored out of order (exports), so that the
//! envelope parsers, the rejoining of split records and the reordering of
//! exports all see well-formed envelopes around arbitrary lines.

use crate::input::sources::{self, exports, order, runtime};
use serde_json::json;

/// The envelopes, chosen by the first byte.
const ENVELOPES: u8 = 10;

/// The raw bytes against each envelope's own parsers.
pub fn raw(data: &[u8]) {
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    let _ = sources::detect(data);
    let _ = sources::detect_head(data, true);
    let _ = exports::detect(data, &lines);
    let _ = order::newest_first(&lines);
    for l in &lines {
        let _ = runtime::cri_line(l);
        let _ = runtime::docker_line(l);
    }
}

/// `data[0]` picks the envelope, `data[1]` the split width (runtimes:
/// records cut into parts of 1 + `data[1]` % 64 bytes when its high bit is
/// set) or the store order (exports: stored in reverse or interleaved when
/// its low bits say so); the rest is the log, line by line.
pub fn frame(data: &[u8]) -> Vec<u8> {
    let (kind, how, body) = match data {
        [k, h, rest @ ..] => (k % ENVELOPES, *h, rest),
        [k] => (k % ENVELOPES, 0, &[][..]),
        [] => (0, 0, &[][..]),
    };
    let text = String::from_utf8_lossy(body);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    match kind {
        0 => cri(&lines, how, &mut out),
        1 => docker(&lines, how, &mut out),
        9 => {
            // Newest first, as `logcli --output=raw` prints without
            // `--forward`.
            for l in lines.iter().rev() {
                out.extend_from_slice(l.as_bytes());
                out.push(b'\n');
            }
        }
        k => export(k, &lines, how, &mut out),
    }
    out
}

/// The time stamp of the `n`th record, nanoseconds apart.
fn rfc3339_ns(n: usize) -> String {
    format!(
        "2025-03-04T10:{:02}:{:02}.{:09}Z",
        (n / 60_000) % 60,
        (n / 1000) % 60,
        (n % 1000) * 1_000_000 + n % 997
    )
}

/// The parts a runtime writes a record in.
fn parts(line: &str, how: u8) -> Vec<&str> {
    if how & 0x80 == 0 || line.is_empty() {
        return vec![line];
    }
    let width = 1 + usize::from(how % 64);
    let mut v = Vec::new();
    let mut rest = line;
    while !rest.is_empty() {
        let mut cut = width.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        v.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    v
}

/// Each part of each line, numbered from 1 as a runtime writes them, with
/// whether it ends its record; `f` may take more numbers (lines of its own
/// between the parts) by moving the counter it is given.
fn each_part(lines: &[&str], how: u8, mut f: impl FnMut(&mut usize, &str, bool)) {
    let mut n = 0;
    for l in lines {
        let ps = parts(l, how);
        let last = ps.len() - 1;
        for (i, p) in ps.into_iter().enumerate() {
            n += 1;
            f(&mut n, p, i == last);
        }
    }
}

fn cri(lines: &[&str], how: u8, out: &mut Vec<u8>) {
    each_part(lines, how, |n, p, last| {
        // The other pipe writes between the parts now and then.
        if how & 0x40 != 0 && !last && *n % 7 == 0 {
            runtime::write_cri(out, &rfc3339_ns(*n), true, false, "warning");
            *n += 1;
        }
        runtime::write_cri(out, &rfc3339_ns(*n), false, !last, p);
    });
}

fn docker(lines: &[&str], how: u8, out: &mut Vec<u8>) {
    each_part(lines, how, |n, p, last| {
        runtime::write_docker(out, &rfc3339_ns(*n), false, !last, p);
    });
}

/// Exports 2–8: each record's line, time stamp and sequence; stored in
/// order, reversed, or odd records after even ones.
fn export(kind: u8, lines: &[&str], how: u8, out: &mut Vec<u8>) {
    let mut order: Vec<usize> = (0..lines.len()).collect();
    match how & 3 {
        1 => order.reverse(),
        2 => order.sort_unstable_by_key(|&i| (i % 2, i)),
        _ => {}
    }
    for i in order {
        let l = lines[i];
        let ts = rfc3339_ns(i + 1);
        let us = 1_741_083_300_000_000u64 + i as u64 * 1000 + u64::from(how >> 2);
        let rec = match kind {
            2 => json!({
                "__CURSOR": format!("s=1;i={i:x}"), "__REALTIME_TIMESTAMP": us.to_string(),
                "_HOSTNAME": "w1", "MESSAGE": l,
            }),
            3 => {
                out.extend_from_slice(
                    format!("__CURSOR=s=1;i={i:x}\n__REALTIME_TIMESTAMP={us}\n_HOSTNAME=w1\n")
                        .as_bytes(),
                );
                if how & 4 != 0 {
                    // A binary field: the name, the length, the bytes.
                    out.extend_from_slice(b"MESSAGE\n");
                    out.extend_from_slice(&(l.len() as u64).to_le_bytes());
                    out.extend_from_slice(l.as_bytes());
                    out.extend_from_slice(b"\n\n");
                } else {
                    out.extend_from_slice(format!("MESSAGE={l}\n\n").as_bytes());
                }
                continue;
            }
            4 => json!({"labels": {"pod": "w1"}, "line": l, "timestamp": ts}),
            5 => {
                out.extend_from_slice(format!("{ts} {{pod=\"w1\"}} {l}\n").as_bytes());
                continue;
            }
            6 => json!({
                "file": "/var/log/pods/ns_w1_0/connect/0.log", "message": l,
                "kubernetes": {"pod_name": "w1"}, "timestamp": ts,
            }),
            7 => {
                let ms = ts.replace('Z', "+00:00");
                out.extend_from_slice(format!("{ms} w1/connect {l}\n").as_bytes());
                continue;
            }
            _ => {
                json!({"date": us as f64 / 1e6, "log": format!("{l}\n"), "kubernetes": {"pod_name": "w1"}})
            }
        };
        out.extend_from_slice(rec.to_string().as_bytes());
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Newest first is told from at least three time stamps going down.
    const LOG: &[u8] = b"[2024-01-01 00:00:00,000] INFO Kafka version: 3.9.1 (org.apache.kafka.common.utils.AppInfoParser:124)\n\
[2024-01-01 00:00:01,000] INFO [Worker clientId=connect-1, groupId=g] Starting connector c (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1234)\n\
[2024-01-01 00:00:02,000] INFO [Worker clientId=connect-1, groupId=g] Starting task c-0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1235)\n\
[2024-01-01 00:00:03,000] INFO [Worker clientId=connect-1, groupId=g] Finished starting connectors and tasks (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1236)\n";

    /// Each envelope is detected as what it is meant to be.
    #[test]
    fn every_envelope_is_read_as_such() {
        let want = [
            Some(sources::Format::Cri),
            Some(sources::Format::Docker),
            Some(sources::Format::Export(exports::Kind::JournaldJson)),
            Some(sources::Format::Export(exports::Kind::JournaldExport)),
            Some(sources::Format::Export(exports::Kind::LokiJsonl)),
            Some(sources::Format::Export(exports::Kind::LokiDefault)),
            Some(sources::Format::Export(exports::Kind::Vector)),
            Some(sources::Format::Export(exports::Kind::CloudWatchTail)),
            Some(sources::Format::Export(exports::Kind::FluentBit)),
            Some(sources::Format::NewestFirst),
        ];
        for (k, w) in want.iter().enumerate() {
            let mut data = vec![k as u8, 0];
            data.extend_from_slice(LOG);
            let framed = frame(&data);
            assert_eq!(
                sources::detect_head(&framed, true),
                *w,
                "envelope {k}:\n{}",
                String::from_utf8_lossy(&framed)
            );
        }
    }

    /// Split records come back whole: the framed log audits as the plain
    /// one, whatever the envelope and the split.
    #[test]
    fn the_framed_log_reads_as_the_plain_one() {
        use crate::audit::{self, Options};
        use crate::input::Input;
        let opts = Options {
            jobs: Some(1),
            ..Options::default()
        };
        let plain = audit::audit(&[Input::bytes("w.log", LOG.to_vec())], &opts);
        assert!(plain.inputs[0].events > 0);
        for k in 0..ENVELOPES {
            for how in [0u8, 0x85, 0xc3, 1, 2] {
                let mut data = vec![k, how];
                data.extend_from_slice(LOG);
                let r = audit::audit(&[Input::bytes("w.log", frame(&data))], &opts);
                assert_eq!(r.inputs[0].events, plain.inputs[0].events, "{k} {how:#x}");
                assert_eq!(r.workers.len(), plain.workers.len(), "{k} {how:#x}");
                assert!(r.errors.is_empty(), "{k} {how:#x}: {:?}", r.errors);
            }
        }
    }
}

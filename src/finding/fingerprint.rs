//! Fingerprints: what identifies a finding across runs, whatever lines were
//! added or removed around it (docs/testing-connect.md, "Baselines").
//! The audit computes a finding's fingerprint when the finding becomes
//! final; baselines and `diff` compare them.
//!
//! * the kind;
//! * the worker's identity: `rest:<advertised REST URL>`, else
//!   `client:<client id>` when an explicit client id identifies the worker,
//!   else `file:<file name>[#<stream>]` (the worker label without its
//!   directory; never the member id, which changes at every restart);
//! * the group;
//! * the resource (`connector:<name>`, `task:<id>`, `-`);
//! * the generation distance: the finding's generation minus the first
//!   generation that worker's log showed (so a log starting at another
//!   generation still matches);
//! * the trigger line's message: without time stamp, level, logger, MDC
//!   and `[Worker clientId=…]` prefix, numbers and hexadecimal ids (member
//!   ids, generations, offsets, task numbers) replaced by `#`, blanks
//!   collapsed.
//!
//! Not the line number, the time stamp, the file's directory or the
//! evidence.

use super::Finding;
use crate::layout;
use crate::model::Resource;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A finding's identity across runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fingerprint {
    pub kind: String,
    pub worker: String,
    pub group: Option<String>,
    pub resource: String,
    /// Generation minus the worker's first generation.
    pub generation_distance: Option<i64>,
    pub message: String,
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} @ {}", self.kind, self.resource, self.worker)?;
        if let Some(g) = &self.group {
            write!(f, " group {g}")?;
        }
        match self.generation_distance {
            Some(d) => write!(f, " generation first+{d}")?,
            None => write!(f, " generation ?")?,
        }
        write!(f, " \"{}\"", self.message)
    }
}

/// What a fingerprint takes from the finding's worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerIdentity {
    /// `rest:…`, `client:…` or `file:…`.
    pub id: String,
    pub first_generation: Option<i32>,
}

impl WorkerIdentity {
    /// From the parts a JSON report keeps: the label, the REST URL, the
    /// client id when it identifies the worker, the first generation.
    pub fn from_parts(
        label: &str,
        rest_url: Option<&str>,
        client_id: Option<&str>,
        first_generation: Option<i32>,
    ) -> WorkerIdentity {
        let id = match (rest_url, client_id) {
            (Some(u), _) => format!("rest:{u}"),
            (None, Some(c)) => format!("client:{c}"),
            (None, None) => format!("file:{}", label_without_directory(label)),
        };
        WorkerIdentity {
            id,
            first_generation,
        }
    }

    /// From what the audit knows when a finding becomes final: the worker's
    /// label, its identity (`rest:URL`, `member:ID`, `client:ID`) and first
    /// generation so far.
    pub fn from_fact(
        label: &str,
        identity: Option<&str>,
        first_generation: Option<i32>,
    ) -> WorkerIdentity {
        let rest = identity.and_then(|i| i.strip_prefix("rest:"));
        let client = identity.and_then(|i| i.strip_prefix("client:"));
        WorkerIdentity::from_parts(label, rest, client, first_generation)
    }

    /// For a worker the report does not describe: its label only.
    pub fn label_only(label: &str) -> WorkerIdentity {
        WorkerIdentity::from_parts(label, None, None, None)
    }
}

/// `dir/connect.log#connect-1` → `connect.log#connect-1`.
pub fn label_without_directory(label: &str) -> &str {
    let path_end = label.find('#').unwrap_or(label.len());
    let start = label[..path_end].rfind(['/', '\\']).map_or(0, |i| i + 1);
    &label[start..]
}

/// The fingerprint of a finding of the worker `who`.
pub fn fingerprint(f: &Finding, who: &WorkerIdentity) -> Fingerprint {
    Fingerprint {
        kind: f.kind.as_str().to_string(),
        worker: who.id.clone(),
        group: f.group.clone(),
        resource: resource_spec(f.resource.as_ref()),
        generation_distance: distance(f.generation, who.first_generation),
        message: message_text(&f.trigger.text),
    }
}

/// `connector:<name>`, `task:<connector>-<n>`, or `-` for none.
pub fn resource_spec(r: Option<&Resource>) -> String {
    match r {
        None => "-".to_string(),
        Some(Resource::Connector(n)) => format!("connector:{n}"),
        Some(Resource::Task(t)) => format!("task:{t}"),
    }
}

pub fn distance(generation: Option<i32>, first: Option<i32>) -> Option<i64> {
    Some(i64::from(generation?) - i64::from(first?))
}

/// The normalised message of a log line (any layout, JSON included):
/// decoration stripped, numbers and hexadecimal ids masked, blanks
/// collapsed. Lines that are not log records (stack-trace lines) keep all
/// their text after any stream prefix.
pub fn message_text(line: &str) -> String {
    let line = line.trim_end_matches(['\r', '\n']);
    let message = if layout::is_json(line) {
        layout::json::to_classic(line)
            .and_then(|c| layout::envelope(&c).map(|e| e.message.to_string()))
    } else {
        layout::envelope(line).map(|e| e.message.to_string())
    };
    let message = message.unwrap_or_else(|| layout::split_stream(line).1.trim().to_string());
    mask(&message)
}

/// Replaces every run of hexadecimal characters that holds a digit by `#`
/// and collapses blanks. (Walks the bytes and copies the text between
/// replacements in one piece: runs of hexadecimal characters are ASCII.)
fn mask(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    // `s[copied..i]` is kept as it is, not yet copied.
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        match CLASS[usize::from(b[i])] {
            PLAIN => i += 1,
            HEX => {
                let start = i;
                let mut digit = false;
                while i < b.len() && CLASS[usize::from(b[i])] == HEX {
                    digit |= b[i].is_ascii_digit();
                    i += 1;
                }
                if digit {
                    out.push_str(&s[copied..start]);
                    out.push('#');
                    copied = i;
                }
            }
            _ => {
                // A blank, or a byte of a non-ASCII character.
                let c = s[i..].chars().next().unwrap_or(' ');
                if c.is_whitespace() {
                    out.push_str(&s[copied..i]);
                    while let Some(w) = s[i..].chars().next().filter(|w| w.is_whitespace()) {
                        i += w.len_utf8();
                    }
                    out.push(' ');
                    copied = i;
                } else {
                    i += c.len_utf8();
                }
            }
        }
    }
    out.push_str(&s[copied..]);
    out.trim().to_string()
}

/// What [`mask`] does with a byte: keep it, read a run of hexadecimal
/// characters, or look at the character (ASCII blanks, the lead bytes of
/// non-ASCII characters).
const PLAIN: u8 = 0;
const HEX: u8 = 1;
const OTHER: u8 = 2;
static CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if b.is_ascii_hexdigit() {
            HEX
        } else if b >= 0x80 || matches!(b, b' ' | b'\t'..=b'\r') {
            // `char::is_whitespace` holds for these ASCII blanks only.
            OTHER
        } else {
            PLAIN
        };
        c += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The mask as it was first written, char by char.
    fn mask_by_chars(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_hexdigit() {
                let mut run = String::from(c);
                while let Some(&n) = chars.peek().filter(|n| n.is_ascii_hexdigit()) {
                    run.push(n);
                    chars.next();
                }
                if run.bytes().any(|b| b.is_ascii_digit()) {
                    out.push('#');
                } else {
                    out.push_str(&run);
                }
            } else if c.is_whitespace() {
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                out.push(' ');
            } else {
                out.push(c);
            }
        }
        out.trim().to_string()
    }

    proptest! {
        #[test]
        fn mask_is_the_char_by_char_mask(s in "[ -~\t\n\r\x0b\x0c\x1c\u{85}\u{a0}\u{2003}é0-9a-fA-F]{0,60}") {
            prop_assert_eq!(mask(&s), mask_by_chars(&s));
        }
    }

    #[test]
    fn masks_numbers_and_ids() {
        assert_eq!(
            mask("Stopping task clicks-sink-0"),
            "Stopping task clicks-sink-#"
        );
        assert_eq!(
            mask("leader='connect-1-2f0e6c1a-8f1b-4c7e', offset=52,  delay=0"),
            "leader='connect-#-#-#-#', offset=#, delay=#"
        );
        assert_eq!(mask("Rebalance started"), "Rebalance started");
    }

    #[test]
    fn messages_lose_their_decoration() {
        let apache = "[2019-08-20 11:00:00,216] INFO [Worker clientId=connect-1, groupId=connect-cluster] Stopping task clicks-sink-0 (org.apache.kafka.connect.runtime.Worker:123)";
        let strimzi = "2024-05-01 10:00:00,001 INFO [clicks-sink|task-0] Stopping task clicks-sink-0 (org.apache.kafka.connect.runtime.Worker) [DistributedHerder-connect-1]";
        let compose = "connect-2  | [2019-08-20 11:00:07,001] INFO Stopping task clicks-sink-0 (org.apache.kafka.connect.runtime.Worker)";
        let json = r#"{"log":"[2019-08-20 11:00:00,216] INFO Stopping task clicks-sink-0 (org.apache.kafka.connect.runtime.Worker)\n","stream":"stdout"}"#;
        for l in [apache, strimzi, compose, json] {
            assert_eq!(message_text(l), "Stopping task clicks-sink-#", "{l}");
        }
        assert_eq!(
            message_text("connect-1  | \tat org.apache.kafka.Foo.bar(Foo.java:12)"),
            "at org.apache.kafka.Foo.bar(Foo.java:#)"
        );
    }

    #[test]
    fn identities() {
        let id = |l, u, c| WorkerIdentity::from_parts(l, u, c, Some(3)).id;
        assert_eq!(
            id("a/b.log", Some("http://w:8083/"), Some("x")),
            "rest:http://w:8083/"
        );
        assert_eq!(
            id("a/b.log", None, Some("connect-10.0.0.1:8083")),
            "client:connect-10.0.0.1:8083"
        );
        assert_eq!(
            id("/x/y/compose.log#connect-1", None, None),
            "file:compose.log#connect-1"
        );
        assert_eq!(
            id("k.log#pod/connect-0/connect", None, None),
            "file:k.log#pod/connect-0/connect"
        );
        assert_eq!(distance(Some(9), Some(7)), Some(2));
        assert_eq!(distance(Some(9), None), None);
    }
}

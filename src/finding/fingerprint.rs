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
use crate::model::{Resource, SourceLine};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A finding's identity across runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fingerprint {
    pub kind: Cow<'static, str>,
    /// Shared with the worker's identity ([`WorkerIdentity`]).
    pub worker: Arc<str>,
    /// Shared with the finding's.
    pub group: Option<Arc<str>>,
    pub resource: String,
    /// Generation minus the worker's first generation.
    pub generation_distance: Option<i64>,
    /// Shared with the findings of the same trigger line.
    pub message: Arc<str>,
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
    /// `rest:…`, `client:…` or `file:…` (shared by the fingerprints of
    /// the worker's findings).
    pub id: Arc<str>,
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
            (Some(u), _) => joined("rest:", u),
            (None, Some(c)) => joined("client:", c),
            (None, None) => joined("file:", label_without_directory(label)),
        };
        WorkerIdentity {
            id: id.into(),
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
        kind: Cow::Borrowed(f.kind.as_str()),
        worker: who.id.clone(),
        group: f.group.clone(),
        resource: resource_spec(f.resource.as_ref()),
        generation_distance: distance(f.generation, who.first_generation),
        message: line_message(&f.trigger),
    }
}

/// `a` then `b`, in one allocation (no formatting machinery).
fn joined(a: &str, b: &str) -> String {
    let mut s = String::with_capacity(a.len() + b.len());
    s.push_str(a);
    s.push_str(b);
    s
}

/// `connector:<name>`, `task:<connector>-<n>`, or `-` for none.
pub fn resource_spec(r: Option<&Resource>) -> String {
    match r {
        None => "-".to_string(),
        Some(Resource::Connector(n)) => joined("connector:", n),
        Some(Resource::Task(t)) => {
            let mut s = String::with_capacity(16 + t.connector.len());
            s.push_str("task:");
            s.push_str(&t.connector);
            s.push('-');
            let mut digits = [0u8; 10];
            let mut n = t.index;
            let mut p = digits.len();
            loop {
                p -= 1;
                digits[p] = b'0' + (n % 10) as u8;
                n /= 10;
                if n == 0 {
                    break;
                }
            }
            for &d in &digits[p..] {
                s.push(char::from(d));
            }
            s
        }
    }
}

/// [`message_text`] of a line the audit read, from the message's place in
/// the line that reading recorded (`SourceLine::msg`: the envelope's
/// message of a classic line, found again verbatim in a JSON record's
/// text) instead of parsing the line again. Lines without one
/// (continuation lines, lines read back without it) and JSON records are
/// parsed as [`message_text`] parses them.
pub fn line_message(l: &SourceLine) -> Arc<str> {
    // The last line's message, kept and shared: the findings of one line
    // (one per resource an assignment shares with another worker's)
    // follow each other. Compared by text, which is all the message
    // depends on.
    thread_local! {
        static LAST: std::cell::RefCell<Option<(Arc<str>, Arc<str>)>> =
            const { std::cell::RefCell::new(None) };
    }
    LAST.with_borrow_mut(|last| {
        if let Some((text, message)) = last.as_ref()
            && (Arc::ptr_eq(text, &l.text) || **text == *l.text)
        {
            return message.clone();
        }
        let message = match recorded_message(l) {
            Some(m) => mask(m),
            None => message_text(&l.text),
        };
        debug_assert_eq!(message, message_text(&l.text), "{:?}", l.text);
        let message: Arc<str> = message.into();
        *last = Some((l.text.clone(), message.clone()));
        message
    })
}

/// The message range `reading` recorded, when it is the envelope's own:
/// a record's message never starts at the line's first byte (the time
/// stamp comes first), so a range from 0 is a continuation line's whole
/// text or no range at all. JSON records: their envelope comes from the
/// decoded record, which a range in the raw text may not match.
fn recorded_message(l: &SourceLine) -> Option<&str> {
    let (a, b) = l.msg;
    if a == 0 || layout::is_json(&l.text) {
        return None;
    }
    l.text.get(a as usize..b as usize)
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
        crate::input::sources::json_record(line)
            .and_then(|c| layout::envelope(&c).map(|e| e.message.to_string()))
    } else {
        layout::envelope(line).map(|e| e.message.to_string())
    };
    let message = message.unwrap_or_else(|| layout::split_stream(line).1.trim().to_string());
    mask(&message)
}

/// Replaces every run of hexadecimal characters that holds a digit by `#`
/// and collapses blanks. Only digits, blanks other than a single space,
/// and non-ASCII characters change anything: the text up to the next of
/// them ([`next_special`]) is copied in one piece. A digit takes back the
/// hexadecimal letters just before it (they are the start of its run:
/// what was written before them is not hexadecimal) and skips the rest of
/// its run; a blank after a copied space continues that space's run.
/// Runs of hexadecimal characters and ASCII blanks are ASCII, so the cuts
/// fall between characters.
fn mask(s: &str) -> String {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let next = next_special(b, i);
        out.extend_from_slice(&b[i..next]);
        i = next;
        let Some(&c) = b.get(i) else { break };
        if c.is_ascii_digit() {
            while out.last().is_some_and(u8::is_ascii_hexdigit) {
                out.pop();
            }
            while b.get(i).is_some_and(u8::is_ascii_hexdigit) {
                i += 1;
            }
            out.push(b'#');
            continue;
        }
        // An ASCII blank, or the first byte of a non-ASCII character.
        let n = if c < 0x80 {
            0
        } else {
            let ch = s[i..].chars().next().unwrap_or(' ');
            if !ch.is_whitespace() {
                out.extend_from_slice(&b[i..i + ch.len_utf8()]);
                i += ch.len_utf8();
                continue;
            }
            ch.len_utf8()
        };
        i = after_blanks(s, i + n.max(1));
        // A space just copied is this run's start: its byte before in `s`.
        if out.last() != Some(&b' ') {
            out.push(b' ');
        }
    }
    let out = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let trimmed = out.trim();
    if trimmed.len() == out.len() {
        out
    } else {
        trimmed.to_string()
    }
}

/// The first byte from `i` on that [`mask`] does not copy as it is (a
/// digit, an ASCII blank other than a space after a non-space, a
/// non-ASCII byte), or `b.len()`. Eight bytes at a time: a word holds
/// none of them when none of its bytes is below a space (blanks, and
/// control characters, which are then looked at one by one), none has its
/// high bit set, none is between `/` and `:`, and no space follows a
/// space (the word one byte before, compared byte by byte).
fn next_special(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH: u64 = ONES * 0x80;
    const LOW7: u64 = ONES * 0x7f;
    const SPACES: u64 = ONES * 0x20;
    let word = |at: usize| {
        b.get(at..at + 8)
            .and_then(|w| w.try_into().ok())
            .map(u64::from_le_bytes)
    };
    // The high bit of each byte of `x` that is a space (exact, byte by
    // byte: no carry crosses a byte).
    let spaces = |x: u64| {
        let z = x ^ SPACES;
        !(((z & LOW7).wrapping_add(LOW7)) | z | LOW7)
    };
    while let Some(x) = word(i) {
        // Bytes below a space (exact in whether any is: Bit Twiddling
        // Hacks, "determine if a word has a byte less than n").
        let below = x.wrapping_sub(SPACES) & !x & HIGH;
        // Bytes between `/` and `:` among those whose high bit is clear
        // (exact, byte by byte: "determine if a word has a byte between
        // m and n").
        let low = x & LOW7;
        let digit = (ONES * (127 + 0x3a)).wrapping_sub(low)
            & !x
            & low.wrapping_add(ONES * (127 - 0x2f))
            & HIGH;
        let before = match i.checked_sub(1) {
            Some(p) => word(p).unwrap_or(0),
            None => x << 8,
        };
        let doubled = spaces(x) & spaces(before);
        if below | digit | (x & HIGH) | doubled != 0 {
            break;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if SPECIAL[usize::from(c)] || (c == b' ' && i > 0 && b[i - 1] == b' ') {
            break;
        }
        i += 1;
    }
    i
}

/// The bytes [`mask`] does not copy as they are, but for a space, which
/// it copies unless a space comes before it.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_digit() || b >= 0x80 || matches!(b, b'\t'..=b'\r');
        c += 1;
    }
    t
};

/// Where the run of blanks (`char::is_whitespace`) at `i` of `s` ends
/// (`i` itself when there is none).
fn after_blanks(s: &str, mut i: usize) -> usize {
    let b = s.as_bytes();
    while let Some(&c) = b.get(i) {
        if c < 0x80 {
            if CLASS[usize::from(c)] != OTHER {
                break;
            }
            i += 1;
        } else {
            match s[i..].chars().next() {
                Some(w) if w.is_whitespace() => i += w.len_utf8(),
                _ => break,
            }
        }
    }
    i
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
        fn mask_is_the_char_by_char_mask(s in "[ -~\t\n\r\x0b\x0c\x1c\u{85}\u{a0}\u{2003}é0-9a-fA-F]{0,60}|([ a-fA-F0-9xz.:\t\u{a0}]{0,4}[ ]{0,3}){0,30}") {
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
    fn resource_specs() {
        use crate::model::TaskId;
        let t = Resource::Task(TaskId::new("a-b", 10));
        assert_eq!(resource_spec(Some(&t)), "task:a-b-10");
        let t = Resource::Task(TaskId::new("c", 0));
        assert_eq!(resource_spec(Some(&t)), "task:c-0");
        let c = Resource::Connector("c 1".into());
        assert_eq!(resource_spec(Some(&c)), "connector:c 1");
        assert_eq!(resource_spec(None), "-");
    }

    #[test]
    fn messages_from_the_recorded_range_are_the_parsed_ones() {
        use crate::model::SourceId;
        let lines = [
            "[2019-08-20 11:00:00,216] INFO [Worker clientId=connect-1, groupId=connect-cluster] Stopping task clicks-sink-0 (org.apache.kafka.connect.runtime.Worker:123)",
            "2024-05-01 10:00:00,001 INFO [clicks-sink|task-0] Stopping  task\tclicks-sink-0   (org.apache.kafka.connect.runtime.Worker) [DistributedHerder-connect-1]\r",
            "connect-2  | [2019-08-20 11:00:07,001] INFO   Stopping task é clicks-sink-0 (org.apache.kafka.connect.runtime.Worker)",
        ];
        for text in lines {
            let env = layout::envelope(text).unwrap();
            let mut l = SourceLine {
                source: SourceId(0),
                line: 1,
                seq: 1,
                ts: None,
                text: text.into(),
                msg: (env.msg_start as u32, env.msg_end as u32),
            };
            assert_eq!(*line_message(&l), message_text(text), "{text}");
            // No range: the line is parsed.
            l.msg = (0, 0);
            assert_eq!(*line_message(&l), message_text(text), "{text}");
        }
    }

    #[test]
    fn identities() {
        let id = |l, u, c| WorkerIdentity::from_parts(l, u, c, Some(3)).id.to_string();
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

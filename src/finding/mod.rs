//! Typed findings: what the replay proved wrong, with the lines that prove
//! it, and each finding's identity across runs ([`fingerprint`]).

pub mod fingerprint;

pub use fingerprint::{Fingerprint, WorkerIdentity, fingerprint, resource_spec};

use crate::model::{RecordRef, Resource, SourceLine};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// The kinds of finding (docs/rules.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    UnnecessaryStop,
    ForeignStart,
    OffsetMismatchStart,
    StaleConfigStart,
    DoubleStart,
    LostAssignment,
    Zombie,
    ConflictingAssignment,
    WitnessesDisagree,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::UnnecessaryStop,
        Kind::ForeignStart,
        Kind::OffsetMismatchStart,
        Kind::StaleConfigStart,
        Kind::DoubleStart,
        Kind::LostAssignment,
        Kind::Zombie,
        Kind::ConflictingAssignment,
        Kind::WitnessesDisagree,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::UnnecessaryStop => "unnecessary-stop",
            Kind::ForeignStart => "foreign-start",
            Kind::OffsetMismatchStart => "offset-mismatch-start",
            Kind::StaleConfigStart => "stale-config-start",
            Kind::DoubleStart => "double-start",
            Kind::LostAssignment => "lost-assignment",
            Kind::Zombie => "zombie",
            Kind::ConflictingAssignment => "conflicting-assignment",
            Kind::WitnessesDisagree => "witnesses-disagree",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    pub fn severity(self) -> Severity {
        match self {
            Kind::DoubleStart | Kind::LostAssignment | Kind::WitnessesDisagree => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One line of the argument: a quoted log line and what it shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Short label, e.g. "assigned here", "stopped here", "still running since".
    pub role: String,
    /// The worker whose log holds the line, when it is not the finding's own
    /// worker (cross-worker findings).
    pub worker: Option<Arc<str>>,
    pub line: SourceLine,
    /// The internal-topic record the line holds (topic, partition,
    /// offset), when the evidence is a record of a topic dump or a live
    /// read rather than a log line (docs/topics.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordRef>,
}

impl Evidence {
    pub fn new(role: impl Into<String>, line: &SourceLine) -> Evidence {
        Evidence {
            role: role.into(),
            worker: None,
            line: line.clone(),
            record: None,
        }
    }
}

/// A lifecycle operation the protocol did not justify.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub kind: Kind,
    /// The worker's label (shared with the checker's and the report's).
    pub worker: Arc<str>,
    pub group: Option<Arc<str>>,
    pub generation: Option<i32>,
    /// The connector or task concerned; `None` for an `offset-mismatch-start`,
    /// which concerns a whole start phase (see `started`).
    pub resource: Option<Resource>,
    /// For `offset-mismatch-start`: the resources started in that phase.
    pub started: Vec<Resource>,
    /// The line where the violation became provable.
    pub trigger: SourceLine,
    /// The lines that prove it, in log order; the trigger is among them.
    pub evidence: Vec<Evidence>,
    /// One sentence.
    pub reason: String,
    /// Upstream issue whose signature this is.
    pub upstream: Option<&'static str>,
    /// Its identity across runs (set when the audit hands it on: see
    /// [`fingerprint()`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
}

impl Finding {
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }

    /// Sorts evidence by position in each worker's stream (the worker's own
    /// lines first) and merges repeated lines (their roles joined).
    pub fn normalise(&mut self) {
        self.evidence.sort_by(|a, b| {
            let key = |e: &Evidence| (e.line.seq, e.line.source, e.line.line);
            a.worker.cmp(&b.worker).then(key(a).cmp(&key(b)))
        });
        // One line, several things it shows: one entry, roles joined.
        self.evidence.dedup_by(|b, a| {
            let same = a.worker == b.worker && a.line == b.line;
            if same && !a.role.split("; ").any(|r| r == b.role) {
                a.role = format!("{}; {}", a.role, b.role);
            }
            same
        });
    }
}

/// A reason or role sentence built from pieces in one allocation: what
/// `format!` prints for them, without its machinery (a storm writes three
/// such sentences per finding).
#[derive(Debug, Default)]
pub struct Sentence(String);

impl Sentence {
    pub fn with_capacity(n: usize) -> Sentence {
        Sentence(String::with_capacity(n))
    }
    pub fn s(mut self, piece: &str) -> Sentence {
        self.0.push_str(piece);
        self
    }
    /// A resource as `Display` prints it: `connector <name>`, `task <id>`.
    pub fn resource(self, r: &Resource) -> Sentence {
        match r {
            Resource::Connector(n) => self.s("connector ").s(n),
            Resource::Task(t) => self
                .s("task ")
                .s(&t.connector)
                .s("-")
                .int(i64::from(t.index)),
        }
    }
    pub fn int(mut self, n: i64) -> Sentence {
        let mut digits = [0u8; 20];
        let mut m = n.unsigned_abs();
        let mut p = digits.len();
        loop {
            p -= 1;
            digits[p] = b'0' + (m % 10) as u8;
            m /= 10;
            if m == 0 {
                break;
            }
        }
        if n < 0 {
            self.0.push('-');
        }
        for &d in &digits[p..] {
            self.0.push(char::from(d));
        }
        self
    }
    pub fn done(self) -> String {
        self.0
    }
    /// At most the bytes [`Sentence::resource`] appends for `r`.
    pub fn resource_len(r: &Resource) -> usize {
        match r {
            Resource::Connector(n) => 10 + n.len(),
            Resource::Task(t) => 16 + t.connector.len(),
        }
    }
}

/// [`Finding`] as read back (map output): the upstream id is owned.
#[derive(Deserialize)]
struct FindingWire {
    kind: Kind,
    worker: Arc<str>,
    group: Option<Arc<str>>,
    generation: Option<i32>,
    resource: Option<Resource>,
    started: Vec<Resource>,
    trigger: SourceLine,
    evidence: Vec<Evidence>,
    reason: String,
    upstream: Option<String>,
    #[serde(default)]
    fingerprint: Option<Fingerprint>,
}

impl<'de> Deserialize<'de> for Finding {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Finding, D::Error> {
        FindingWire::deserialize(d).map(Finding::from)
    }
}

impl From<FindingWire> for Finding {
    fn from(w: FindingWire) -> Finding {
        Finding {
            kind: w.kind,
            worker: w.worker,
            group: w.group,
            generation: w.generation,
            resource: w.resource,
            started: w.started,
            trigger: w.trigger,
            evidence: w.evidence,
            reason: w.reason,
            upstream: w.upstream.as_deref().map(upstream_id),
            fingerprint: w.fingerprint,
        }
    }
}

/// An upstream issue id read back: each distinct id is interned once for
/// the life of the process (ids are few: the known regressions).
fn upstream_id(s: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static IDS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut ids = IDS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&known) = ids.get(s) {
        return known;
    }
    if ids.len() >= 1024 || s.len() > 64 {
        return "unknown";
    }
    let leaked: &'static str = Box::leak(s.to_string().into_boxed_str());
    ids.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TaskId;

    #[test]
    fn sentences_print_as_format_does() {
        let t = Resource::Task(TaskId::new("a-b", 10));
        let c = Resource::Connector("c 1".into());
        for r in [&t, &c] {
            for g in [0i64, 7, -3, 1234567, i64::MIN, i64::MAX] {
                let s = Sentence::default()
                    .resource(r)
                    .s(" in ")
                    .int(g)
                    .s(".")
                    .done();
                assert_eq!(s, format!("{r} in {g}."));
            }
        }
    }
}

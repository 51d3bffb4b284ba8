//! Typed findings: what the replay proved wrong, with the lines that prove it.

use crate::model::{Resource, SourceLine};
use serde::Serialize;
use std::fmt;

/// The kinds of finding (SPEC §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    UnnecessaryStop,
    ForeignStart,
    OffsetMismatchStart,
    DoubleStart,
    LostAssignment,
    Zombie,
    ConflictingAssignment,
    StaleConfigStart,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::UnnecessaryStop,
        Kind::ForeignStart,
        Kind::OffsetMismatchStart,
        Kind::DoubleStart,
        Kind::LostAssignment,
        Kind::Zombie,
        Kind::ConflictingAssignment,
        Kind::StaleConfigStart,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::UnnecessaryStop => "unnecessary-stop",
            Kind::ForeignStart => "foreign-start",
            Kind::OffsetMismatchStart => "offset-mismatch-start",
            Kind::DoubleStart => "double-start",
            Kind::LostAssignment => "lost-assignment",
            Kind::Zombie => "zombie",
            Kind::ConflictingAssignment => "conflicting-assignment",
            Kind::StaleConfigStart => "stale-config-start",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    pub fn severity(self) -> Severity {
        match self {
            Kind::DoubleStart | Kind::LostAssignment => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// Short label, e.g. "assigned here", "stopped here", "still running since".
    pub role: String,
    /// The worker whose log holds the line, when it is not the finding's own
    /// worker (cross-worker findings).
    pub worker: Option<String>,
    pub line: SourceLine,
}

impl Evidence {
    pub fn new(role: impl Into<String>, line: &SourceLine) -> Evidence {
        Evidence {
            role: role.into(),
            worker: None,
            line: line.clone(),
        }
    }
}

/// A lifecycle operation the protocol did not justify.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub kind: Kind,
    pub worker: String,
    pub group: Option<String>,
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

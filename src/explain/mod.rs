//! `herder-audit explain [KIND]`, in the manner of `rustc --explain`: what a
//! finding kind means, why it matters, the protocol rule behind it, the
//! upstream issues it matches and what to do. One text per kind, beside this
//! file; they are the long form of the kinds' sections in `docs/rules.md`
//! (a test keeps the two in step).

use crate::finding::Kind;

/// The full text for `kind`: its first line is `<kind> (<severity>)`.
pub fn text(kind: Kind) -> &'static str {
    match kind {
        Kind::UnnecessaryStop => include_str!("unnecessary-stop.txt"),
        Kind::ForeignStart => include_str!("foreign-start.txt"),
        Kind::OffsetMismatchStart => include_str!("offset-mismatch-start.txt"),
        Kind::StaleConfigStart => include_str!("stale-config-start.txt"),
        Kind::DoubleStart => include_str!("double-start.txt"),
        Kind::LostAssignment => include_str!("lost-assignment.txt"),
        Kind::Zombie => include_str!("zombie.txt"),
        Kind::ConflictingAssignment => include_str!("conflicting-assignment.txt"),
        Kind::WitnessesDisagree => include_str!("witnesses-disagree.txt"),
    }
}

/// One line: what the kind is about (the list of `explain` without an
/// argument, the man page).
pub fn summary(kind: Kind) -> &'static str {
    match kind {
        Kind::UnnecessaryStop => {
            "a retained connector or task stopped with no reason the protocol accepts"
        }
        Kind::ForeignStart => {
            "a connector or task started that the worker's assignment does not hold"
        }
        Kind::OffsetMismatchStart => {
            "work started after a rebalance from a config snapshot that does not match"
        }
        Kind::StaleConfigStart => {
            "a re-created connector's tasks started from the deleted connector's configs"
        }
        Kind::DoubleStart => "a connector or task started again where an instance already runs",
        Kind::LostAssignment => "an assigned connector or task left unstarted after a rebalance",
        Kind::Zombie => "a connector or task running where the group no longer wants it, or twice",
        Kind::ConflictingAssignment => {
            "two workers' assignments of one generation contradict each other"
        }
        Kind::WitnessesDisagree => "the status topic keeps a state the workers' logs prove wrong",
    }
}

/// The text `explain` prints for `name`, or the list of kinds when `name`
/// is `None`. An unknown name is an error naming the valid kinds.
pub fn render(name: Option<&str>) -> Result<String, String> {
    let Some(name) = name else {
        return Ok(list());
    };
    match Kind::parse(name.trim()) {
        Some(k) => Ok(text(k).to_string()),
        None => Err(format!(
            "unknown finding kind `{name}`; valid kinds: {}",
            Kind::ALL.map(Kind::as_str).join(", ")
        )),
    }
}

/// The kinds, one a line: name, severity, summary.
fn list() -> String {
    let width = Kind::ALL
        .iter()
        .map(|k| k.as_str().len())
        .max()
        .unwrap_or(0);
    let mut s = String::from("Finding kinds (`herder-audit explain KIND` tells more):\n\n");
    for k in Kind::ALL {
        s.push_str(&format!(
            "  {:width$}  {:7}  {}\n",
            k.as_str(),
            k.severity().as_str(),
            summary(k)
        ));
    }
    s
}

#[cfg(test)]
mod tests;

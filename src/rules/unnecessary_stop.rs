//! `unnecessary-stop`: under a cooperative protocol, a connector or task is
//! stopped while it stays in the worker's assignment, is not revoked, and no
//! justification applies (docs/rules.md, `unnecessary-stop`, "Config
//! freshness").

use super::{StopReason, Who, instance_evidence};
use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Assignment, Protocol, Resource, SourceLine};
use crate::state::{ConfigFacts, Stop};

/// Did the connector's config really change since the instance started?
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigVerdict {
    /// Yes: this line shows the change.
    Changed(SourceLine),
    /// Only a `Tasks [..] configs updated` line naming several connectors'
    /// tasks claims a change, and the connector shows no other sign of one:
    /// the KAFKA-8676 signature.
    Kafka8676(SourceLine),
    /// No change was logged after the instance started; the line, if any, is
    /// the latest change, which the instance had already seen.
    Unchanged(Option<SourceLine>),
    /// The instance's start is not in the log and no change line either:
    /// nothing can be proved.
    Unknown,
}

fn after(line: Option<&SourceLine>, start: Option<&SourceLine>) -> Option<SourceLine> {
    let l = line?;
    match start {
        Some(s) if !s.before(l) => None,
        _ => Some(l.clone()),
    }
}

/// Task-config restart of a task of the connector `facts` describes; the
/// instance started at `start` (when the log shows it).
pub fn task_config_change(
    facts: Option<&ConfigFacts>,
    start: Option<&SourceLine>,
) -> ConfigVerdict {
    let Some(f) = facts else {
        return if start.is_some() {
            ConfigVerdict::Unchanged(None)
        } else {
            ConfigVerdict::Unknown
        };
    };
    if let Some(l) = after(f.single_claim.as_ref(), start) {
        return ConfigVerdict::Changed(l);
    }
    if let Some(claim) = after(f.multi_claim.as_deref(), start) {
        // A claim that names several connectors proves nothing by itself.
        let later = |seq: u64| start.is_none_or(|s| s.seq < seq);
        let sign = after(f.updated.as_ref(), start).is_some()
            || [f.count_change, f.target_change]
                .into_iter()
                .flatten()
                .any(later);
        return if sign {
            ConfigVerdict::Changed(claim)
        } else {
            ConfigVerdict::Kafka8676(claim)
        };
    }
    match start {
        Some(_) => {
            let last = match (f.single_claim.as_ref(), f.multi_claim.as_deref()) {
                (Some(a), Some(b)) => Some(if a.before(b) { b.clone() } else { a.clone() }),
                (a, b) => a.or(b).cloned(),
            };
            ConfigVerdict::Unchanged(last)
        }
        None => ConfigVerdict::Unknown,
    }
}

/// Connector-config restart of the connector `facts` describes.
pub fn connector_config_change(
    facts: Option<&ConfigFacts>,
    start: Option<&SourceLine>,
) -> ConfigVerdict {
    let updated = facts.and_then(|f| f.updated.clone());
    if let Some(l) = after(updated.as_ref(), start) {
        return ConfigVerdict::Changed(l);
    }
    match start {
        Some(_) => ConfigVerdict::Unchanged(updated),
        None => ConfigVerdict::Unknown,
    }
}

/// A stop logged during a rebalance, judged against the assignment that
/// ends it. `eager` is true when the protocol is eager or the worker stopped
/// work before sending its join request (eager `onJoinPrepare`).
pub fn rebalance_stop(
    protocol: Option<Protocol>,
    eager: bool,
    assignment: &Assignment,
    r: &Resource,
) -> StopReason {
    if eager || protocol == Some(Protocol::Eager) {
        return StopReason::EagerRebalance;
    }
    if protocol.is_none() {
        return StopReason::ProtocolUnknown;
    }
    if assignment.revokes(r) {
        StopReason::Revoked
    } else if assignment.failed() {
        StopReason::NotJudged
    } else if !assignment.holds(r) {
        StopReason::NotAssigned
    } else {
        StopReason::Unnecessary
    }
}

/// The finding for a rebalance stop of a resource the assignment keeps.
pub fn in_rebalance(who: &Who, stop: &Stop, assignment_line: &SourceLine) -> Finding {
    let mut ev = vec![
        Evidence::new("stopped here, during the rebalance", &stop.line),
        Evidence::new(
            "the rebalance's assignment still holds it and does not revoke it",
            assignment_line,
        ),
    ];
    ev.extend(instance_evidence(stop.prev.as_ref()));
    who.finding(
        Kind::UnnecessaryStop,
        Some(stop.resource.clone()),
        &stop.line,
        ev,
        format!(
            "{} was stopped during a cooperative rebalance although the assignment that ended it keeps it on this worker and does not revoke it",
            stop.resource
        ),
        None,
    )
}

/// The finding for a stop outside any rebalance that no restart, config
/// change, shutdown or revocation explains.
pub fn unexplained(
    who: &Who,
    stop: &Stop,
    owned_line: &SourceLine,
    boundary: &SourceLine,
) -> Finding {
    let mut ev = vec![
        Evidence::new("assigned here", owned_line),
        Evidence::new("stopped here, outside any rebalance", &stop.line),
        Evidence::new("no restart before this line", boundary),
    ];
    ev.extend(instance_evidence(stop.prev.as_ref()));
    who.finding(
        Kind::UnnecessaryStop,
        Some(stop.resource.clone()),
        &stop.line,
        ev,
        format!(
            "{} was stopped while assigned to this worker, with no revocation, config change, restart or shutdown to justify it",
            stop.resource
        ),
        None,
    )
}

/// The finding for a task-config stop whose connector's task configs did not
/// really change since the task started.
pub fn task_config(
    who: &Who,
    stop: &Stop,
    verdict: &ConfigVerdict,
    handling: &SourceLine,
    owned_line: Option<&SourceLine>,
) -> Option<Finding> {
    let conn = stop.resource.connector_name().clone();
    let mut ev = vec![
        Evidence::new("stop announced for a task-config update", handling),
        Evidence::new("stopped here", &stop.line),
    ];
    if let Some(l) = owned_line {
        ev.push(Evidence::new("assigned here", l));
    }
    ev.extend(instance_evidence(stop.prev.as_ref()));
    let (reason, upstream) = match verdict {
        ConfigVerdict::Kafka8676(claim) => {
            ev.push(Evidence::new(
                "claims task configs of several connectors changed in one commit",
                claim,
            ));
            (
                format!(
                    "{} was stopped for a task-config update, but the only update naming connector {conn} also names other connectors' tasks, and {conn} shows no config change of its own",
                    stop.resource
                ),
                Some("KAFKA-8676"),
            )
        }
        ConfigVerdict::Unchanged(last) => {
            if let Some(l) = last {
                ev.push(Evidence::new(
                    "latest task-config update of the connector, before the instance started",
                    l,
                ));
            }
            (
                format!(
                    "{} was stopped for a task-config update, but no task config of connector {conn} changed after this instance started",
                    stop.resource
                ),
                None,
            )
        }
        ConfigVerdict::Changed(_) | ConfigVerdict::Unknown => return None,
    };
    Some(who.finding(
        Kind::UnnecessaryStop,
        Some(stop.resource.clone()),
        &stop.line,
        ev,
        reason,
        upstream,
    ))
}

/// The finding for a connector-config restart driven by a config record the
/// instance had already started from (KAFKA-17105).
pub fn connector_config(
    who: &Who,
    stop: &Stop,
    verdict: &ConfigVerdict,
    handling: &SourceLine,
) -> Option<Finding> {
    let ConfigVerdict::Unchanged(last) = verdict else {
        return None;
    };
    let mut ev = vec![
        Evidence::new("restart announced for a connector-config update", handling),
        Evidence::new("stopped here", &stop.line),
    ];
    ev.extend(instance_evidence(stop.prev.as_ref()));
    let upstream = if let Some(l) = last {
        ev.push(Evidence::new(
            "the only config update, logged before the instance started",
            l,
        ));
        Some("KAFKA-17105")
    } else {
        None
    };
    Some(who.finding(
        Kind::UnnecessaryStop,
        Some(stop.resource.clone()),
        &stop.line,
        ev,
        format!(
            "{} was restarted for a config update, but no config update for it was logged after this instance started",
            stop.resource
        ),
        upstream,
    ))
}

//! The decision rules of docs/rules.md, one file per finding kind: small pure
//! functions over the replay's facts. They never parse and never mutate.

pub mod double_start;
pub mod foreign_start;
pub mod lost_assignment;
pub mod offset_mismatch;
pub mod stale_config;
pub mod unnecessary_stop;
pub mod zombie;

use crate::finding::{Evidence, Finding, Kind};
use crate::model::{Resource, SourceLine};
use serde::{Deserialize, Serialize};

/// Who a finding is about.
#[derive(Debug, Clone, Copy)]
pub struct Who<'a> {
    pub worker: &'a str,
    pub group: Option<&'a str>,
    pub generation: Option<i32>,
}

impl Who<'_> {
    pub fn finding(
        &self,
        kind: Kind,
        resource: Option<Resource>,
        trigger: &SourceLine,
        evidence: Vec<Evidence>,
        reason: String,
        upstream: Option<&'static str>,
    ) -> Finding {
        let mut f = Finding {
            kind,
            worker: self.worker.into(),
            group: self.group.map(Into::into),
            generation: self.generation,
            resource,
            started: Vec::new(),
            trigger: trigger.clone(),
            evidence,
            reason,
            upstream,
            fingerprint: None,
        };
        f.normalise();
        f
    }
}

/// Why a stop happened, as far as the log shows (summary categories).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// In the revoked sets of the rebalance's assignment.
    Revoked,
    /// Eager protocol: every rebalance stops everything (protocol-mandated).
    EagerRebalance,
    /// Task-config update of the task's own connector.
    TaskConfig,
    /// Connector-config update: restart of the connector.
    ConnectorConfig,
    /// Connector removed or stopped through its config.
    ConnectorRemoved,
    /// Target state STOPPED.
    TargetStopped,
    /// Stop followed by a start of the same resource (REST restart).
    Restart,
    /// Inside a KIP-745 restart plan.
    RestartPlan,
    /// Worker shutdown.
    Shutdown,
    /// The worker revoked its own assignment (coordinator unreachable,
    /// config log unreadable).
    SelfRevocation,
    /// Not in the worker's assignment any more.
    NotAssigned,
    /// No justification: an `unnecessary-stop` finding.
    Unnecessary,
    /// The protocol is not known, so a rebalance stop cannot be judged.
    ProtocolUnknown,
    /// The state the judgement needs is not in the log (e.g. the log ends
    /// before the stop can be told from a restart).
    NotJudged,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Revoked => "revoked",
            StopReason::EagerRebalance => "eager-rebalance",
            StopReason::TaskConfig => "task-config",
            StopReason::ConnectorConfig => "connector-config",
            StopReason::ConnectorRemoved => "connector-removed",
            StopReason::TargetStopped => "target-stopped",
            StopReason::Restart => "restart",
            StopReason::RestartPlan => "restart-plan",
            StopReason::Shutdown => "shutdown",
            StopReason::SelfRevocation => "self-revocation",
            StopReason::NotAssigned => "not-assigned",
            StopReason::Unnecessary => "unnecessary",
            StopReason::ProtocolUnknown => "protocol-unknown",
            StopReason::NotJudged => "not-judged",
        }
    }
}

/// How a start happened (summary categories).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartReason {
    /// In a post-rebalance start phase.
    Rebalance,
    /// Restart after a stop (REST restart, connector-config restart).
    Restart,
    /// Inside a KIP-745 restart plan.
    RestartPlan,
    /// Any other start.
    Other,
}

impl StartReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StartReason::Rebalance => "rebalance",
            StartReason::Restart => "restart",
            StartReason::RestartPlan => "restart-plan",
            StartReason::Other => "other",
        }
    }
}

/// Evidence for the running instance of a resource: its start line, or the
/// assignment line it has been held since.
pub(crate) fn instance_evidence(state: Option<&crate::state::ResState>) -> Option<Evidence> {
    use crate::state::ResState;
    match state? {
        ResState::Starting { since } | ResState::Running { since, .. } => {
            Some(Evidence::new("started here", since))
        }
        ResState::Held { since } => Some(Evidence::new(
            "held from this assignment (running from before)",
            since,
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests;

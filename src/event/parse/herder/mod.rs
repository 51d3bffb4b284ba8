//! `DistributedHerder` lines (docs/log-formats.md §1.2–§1.4, §1.7–§1.9),
//! including those of its RebalanceListener and ConfigUpdateListener.
//!
//! This module holds the dispatcher ([`parse`]); the parsers are split by
//! what the lines are about:
//!
//! * `rebalance` — joining the group and the assignment, the rebalance
//!   housekeeping lines and the config-offset checks (§1.2–§1.3);
//! * `work` — starting work and failed starts, config updates, REST
//!   restarts, and the herder's startup and shutdown (§1.4, §1.7–§1.9);
//! * `tests` — the parsers' tests, through the dispatcher.

mod rebalance;
mod work;

#[cfg(test)]
mod tests;

use nom::branch::alt;

use super::run;
use crate::event::Event;
use rebalance::{
    assignment_failed, catching_up, config_behind, config_mismatch, finished_flushing_status,
    finished_reading_to_end, finished_stopping_for_rebalance, joined_at_generation, joined_v0,
    joined_with_protocol, poll_timeout_expired, read_to_end_timed_out, reading_to_end,
    rebalance_started, reconfig_rebalance_requested, revoking_after_retries, scheduled_rebalance,
    scheduled_rebalance_reached, skip_stopping_unresolved, unresolved_rebalance,
};
use work::{
    completed_plan, connector_config_removed, connector_config_updated, connector_restart_outcome,
    connector_target_state_change, couldnt_instantiate, executing_plan, failed_to_shut_down,
    failed_to_start_connector, finished_starting_work, halt_stopping_assigned,
    handling_connector_update, handling_task_update, herder_crashed, herder_milestone,
    restart_requested, session_key_updated, skipping_reconfiguration, starting, starting_work,
    task_configs_updated, task_count_change, task_restart_outcome, unexpected_start_error,
};

/// Dispatches a DH message on its first byte.
pub(super) fn parse(msg: &str) -> Option<Event> {
    match msg.as_bytes().first()? {
        b'J' => run(
            alt((
                joined_v0,
                joined_at_generation,
                joined_with_protocol,
                assignment_failed,
            )),
            msg,
        ),
        b'S' => run(
            alt((
                starting_work,
                starting,
                skipping_reconfiguration,
                session_key_updated,
                halt_stopping_assigned,
                scheduled_rebalance,
            )),
            msg,
        ),
        b'F' => run(
            alt((
                finished_starting_work,
                finished_stopping_for_rebalance,
                finished_flushing_status,
                finished_reading_to_end,
                failed_to_start_connector,
                failed_to_shut_down,
            )),
            msg,
        ),
        b'C' => run(
            alt((
                connector_config_updated,
                connector_config_removed,
                connector_target_state_change,
                connector_restart_outcome,
                couldnt_instantiate,
                config_behind,
                config_mismatch,
                catching_up,
                task_count_change,
                completed_plan,
            )),
            msg,
        ),
        b'T' => run(alt((task_configs_updated, task_restart_outcome)), msg),
        b'H' => run(
            alt((
                herder_milestone,
                handling_connector_update,
                handling_task_update,
                unresolved_rebalance,
            )),
            msg,
        ),
        b'R' => run(
            alt((
                reading_to_end,
                revoking_after_retries,
                reconfig_rebalance_requested,
                scheduled_rebalance_reached,
                restart_requested,
                rebalance_started,
            )),
            msg,
        ),
        b'W' => run(skip_stopping_unresolved, msg),
        b'D' => run(read_to_end_timed_out, msg),
        b'E' => run(executing_plan, msg),
        b'U' => run(alt((unexpected_start_error, herder_crashed)), msg),
        b'w' => run(poll_timeout_expired, msg),
        _ => None,
    }
}

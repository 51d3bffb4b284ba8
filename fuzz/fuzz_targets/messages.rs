//! One message against every parser family, and the continuation parsers.
#![no_main]

use herder_audit::event::parse::{assignment, task_id, task_list};
use herder_audit::event::{LoggerKind, parse_already_exists, parse_config_value, parse_message};
use libfuzzer_sys::fuzz_target;

const KINDS: [LoggerKind; 14] = [
    LoggerKind::Herder,
    LoggerKind::WorkerCoordinator,
    LoggerKind::AbstractCoordinator,
    LoggerKind::WorkerGroupMember,
    LoggerKind::Assignor,
    LoggerKind::Worker,
    LoggerKind::WorkerConnector,
    LoggerKind::WorkerTask,
    LoggerKind::AbstractHerder,
    LoggerKind::Connect,
    LoggerKind::ConfigBackingStore,
    LoggerKind::AbstractConfig,
    LoggerKind::RestServer,
    LoggerKind::Unknown,
];

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for k in KINDS {
        let _ = parse_message(k, &text);
    }
    let _ = parse_already_exists(&text);
    let _ = parse_config_value(&text);
    let _ = assignment(&text);
    let _ = task_list(&text);
    let _ = task_id(&text);
});

//! Cheap tests that choose the lines worth decoding and the worker an
//! unprefixed line belongs to.

use crate::event::{Event, LoggerKind};

/// [`LoggerKind::keywords`] as prebuilt substring searchers.
pub(super) fn keyword_finders(
    kind: LoggerKind,
) -> Option<&'static [memchr::memmem::Finder<'static>]> {
    use std::sync::OnceLock;
    type Finders = Vec<(LoggerKind, Vec<memchr::memmem::Finder<'static>>)>;
    static FINDERS: OnceLock<Finders> = OnceLock::new();
    let all = FINDERS.get_or_init(|| {
        LoggerKind::ALL
            .iter()
            .filter_map(|&k| {
                let words = k.keywords()?;
                Some((
                    k,
                    words
                        .iter()
                        .map(|w| memchr::memmem::Finder::new(*w))
                        .collect(),
                ))
            })
            .collect()
    });
    all.iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, f)| f.as_slice())
}

/// Is a coordinator line without the herder's LogContext prefix the
/// worker's own? (Kafka before 2.0 printed no prefix, and its consumers'
/// coordinator lines look the same.) It is when it names the worker's group,
/// or, while the group is unknown, a group that is not a sink connector's
/// consumer group (`connect-<name>`).
pub(super) fn unprefixed_coordinator_line_is_workers(
    ev: &Event,
    worker_group: Option<&str>,
) -> bool {
    let group = match ev {
        Event::Rejoining { group } | Event::JoinedGeneration { group, .. } => group.as_deref(),
        _ => None,
    };
    match (group, worker_group) {
        (Some(g), Some(w)) => g == w,
        (Some(g), None) => !g.starts_with("connect-"),
        (None, _) => false,
    }
}

/// Where the message of a JSON line is in the raw text (it is quoted there
/// verbatim unless it needed escapes); else the whole line.
pub(super) fn json_message_range(raw: &str, message: &str) -> (usize, usize) {
    match raw.find(message) {
        Some(i) if !message.is_empty() => (i, i + message.len()),
        _ => (0, raw.len()),
    }
}

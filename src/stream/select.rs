//! Cheap tests that choose the lines worth decoding and the worker an
//! unprefixed line belongs to.

use crate::event::{Event, LoggerKind};
use crate::layout;

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

/// The logger a candidate line ends with and its class: what
/// [`layout::trailing_logger_text`] reads and [`LoggerKind::classify`]
/// makes of it, the same answer, the names read last kept with their
/// class ([`layout::trailing_logger_kept`]).
pub(super) fn trailing_logger_kind(text: &str) -> Option<(&str, Option<LoggerKind>)> {
    layout::trailing_logger_kept(&RECENT, text, LoggerKind::classify)
}

thread_local! {
    static RECENT: std::cell::RefCell<layout::RecentNames<Option<LoggerKind>>> =
        const { std::cell::RefCell::new(layout::RecentNames::new(None)) };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines ending in every way a logger can (and cannot) end one.
    fn lines() -> Vec<String> {
        let heads = [
            "[2024-05-01 10:00:00,000] INFO x ",
            "x (",
            "x ((",
            "y:",
            "",
            "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}",
        ];
        let names = [
            "org.apache.kafka.connect.runtime.Worker",
            "org.apache.kafka.connect.runtime.distributed.DistributedHerder",
            "org.apache.kafka.connect.runtime.distributed.WorkerCoordinator",
            "org.apache.kafka.connect.runtime.WorkerSourceTask",
            "org.apache.kafka.connect.runtime.WorkerException",
            "org.apache.kafka.clients.NetworkClient",
            "a.B",
            "abcdefgh",
            "x.Worker2",
            "r.s.Worker",
            "ab cdefghij",
            "x)y.abcdefgh",
            &"z".repeat(120),
            "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}",
        ];
        let numbers = ["", ":12", ":?", ":", ":1x", "?", "x?", ":12:3", "0"];
        let ends = [")", ")  \r", ") [t]", "", "))"];
        let mut out = Vec::new();
        for h in heads {
            for n in names {
                for l in numbers {
                    for e in ends {
                        out.push(format!("{h}({n}{l}{e}"));
                        out.push(format!("{h}{n}{l}{e}"));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn kept_loggers_answer_as_reading_the_line_would() {
        // Three rounds: the later ones meet the names the first kept, in
        // other orders.
        let mut all = lines();
        for round in 0..3 {
            for l in &all {
                let plain = layout::trailing_logger_text(l).map(|n| (n, LoggerKind::classify(n)));
                let got = trailing_logger_kind(l);
                assert_eq!(got, plain, "{l:?} round {round}");
                if let Some((n, _)) = got {
                    // The same slice of the line.
                    let at = n.as_ptr() as usize - l.as_ptr() as usize;
                    assert_eq!(&l[at..at + n.len()], n);
                }
            }
            all.reverse();
            all.rotate_left(7);
        }
    }
}

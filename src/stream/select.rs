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
/// makes of it, the same answer. A log names a few loggers over and over:
/// the `(a.b.C:NN)` names read last are kept with their class, and a line
/// that ends with one of them (a `(`, the name, then nothing, `:` and
/// digits, or `:?` before the `)`) is answered by one comparison, without
/// the searches for the `(`, the `:` and blanks, nor the classifying.
pub(super) fn trailing_logger_kind(text: &str) -> Option<(&str, Option<LoggerKind>)> {
    let b = text.as_bytes();
    let end = layout::paren_name_end(b);
    if let Some(e) = end
        && let Some(found) = RECENT.with_borrow(|r| r.find(text, e))
    {
        return Some(found);
    }
    let name = layout::trailing_logger_text(text)?;
    let kind = LoggerKind::classify(name);
    // Kept when it is the name a `(` opens and `end` ends: it holds no
    // `(` (the search took the last), no `:` (its first ends the name)
    // and no blank, and names no throwable, so a line that ends the same
    // way has it as its logger.
    if let Some(e) = end
        && name.as_ptr() as usize + name.len() == b.as_ptr() as usize + e
    {
        RECENT.with_borrow_mut(|r| r.keep(name.as_bytes(), kind));
    }
    Some((name, kind))
}

/// The longest name [`trailing_logger_kind`] keeps, and the shortest (its
/// last eight bytes are compared first, as one word).
const NAME_MAX: usize = 96;
const NAME_MIN: usize = 8;

/// Names kept at once (a worker's lines end with a dozen loggers at most).
const SLOTS: usize = 8;

/// [`trailing_logger_kind`]'s names, replaced in turn.
struct Recent {
    /// Each name's last eight bytes (0 for an empty slot: a name of name
    /// bytes is never eight zero bytes).
    tail: [u64; SLOTS],
    len: [u8; SLOTS],
    kind: [Option<LoggerKind>; SLOTS],
    names: [[u8; NAME_MAX]; SLOTS],
    next: usize,
}

impl Recent {
    /// The kept name that ends at `e` in `text` right after a `(`.
    #[inline]
    fn find<'t>(&self, text: &'t str, e: usize) -> Option<(&'t str, Option<LoggerKind>)> {
        let b = text.as_bytes();
        let last = u64::from_le_bytes(b.get(e.checked_sub(NAME_MIN)?..e)?.try_into().ok()?);
        (0..SLOTS).find_map(|i| {
            let n = usize::from(self.len[i]);
            if self.tail[i] != last
                || n >= e
                || b[e - n - 1] != b'('
                || b[e - n..e] != self.names[i][..n]
            {
                return None;
            }
            // A `(` before and a `:` or `)` after: char boundaries.
            Some((text.get(e - n..e)?, self.kind[i]))
        })
    }

    fn keep(&mut self, name: &[u8], kind: Option<LoggerKind>) {
        let n = name.len();
        if !(NAME_MIN..=NAME_MAX).contains(&n) {
            return;
        }
        let i = self.next;
        self.next = (i + 1) % SLOTS;
        self.names[i][..n].copy_from_slice(name);
        self.len[i] = n as u8;
        self.kind[i] = kind;
        self.tail[i] = u64::from_le_bytes(name[n - NAME_MIN..].try_into().unwrap_or_default());
    }
}

thread_local! {
    static RECENT: std::cell::RefCell<Recent> = const {
        std::cell::RefCell::new(Recent {
            tail: [0; SLOTS],
            len: [0; SLOTS],
            kind: [None; SLOTS],
            names: [[0; NAME_MAX]; SLOTS],
            next: 0,
        })
    };
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

//! Continuation lines: a config dump's values, a failed start's stack
//! trace and a failed rebalance's exception follow their record on lines
//! of their own; a stream follows one
//! at a time, and those of other streams of a multiplexed file or export
//! wait parked until their stream's next line.

use super::workers::SlotKey;
use crate::event::{Continuation, Event, parse_already_exists, parse_config_value};
use crate::layout::split_stream;

/// Continuation lines to look at after a config-dump head.
pub(super) const DUMP_LINES: usize = 2000;
/// Continuation lines to look at after a failed start (its stack trace).
pub(super) const TRACE_LINES: usize = 60;

/// Continuation lines to look at after `Rebalance failed.`: its exception.
pub(super) const CAUSE_LINES: usize = 1;

/// The exception of a rejoin the coordinator refused: it no longer knows
/// the member id the worker sent (AbstractCoordinator's JoinGroup and
/// SyncGroup response handlers raise UNKNOWN_MEMBER_ID's exception, which
/// `Rebalance failed.` prints).
const UNKNOWN_MEMBER: &str = "org.apache.kafka.common.errors.UnknownMemberIdException: The coordinator is not aware of this member.";

/// Continuations of other streams kept under way at most.
const PARKED: usize = 64;

#[derive(Debug, Clone, PartialEq)]
enum Follow {
    None,
    Dump(SlotKey),
    Trace(SlotKey),
    Cause(SlotKey),
}

impl Follow {
    /// The stream a continuation under way belongs to.
    fn stream(&self) -> Option<Option<&str>> {
        match self {
            Follow::Dump(s) | Follow::Trace(s) | Follow::Cause(s) => Some(s.0.as_deref()),
            Follow::None => None,
        }
    }
}

/// The continuations a stream follows: its own under way, and those of
/// other streams (a multiplexed file or an export of several sources
/// interleaves their lines) parked until their stream's next line.
#[derive(Debug)]
pub(super) struct Continuations {
    follow: Follow,
    parked: Vec<Follow>,
}

impl Default for Continuations {
    fn default() -> Continuations {
        Continuations {
            follow: Follow::None,
            parked: Vec::new(),
        }
    }
}

impl Continuations {
    /// Is none under way?
    #[inline]
    pub(super) fn idle(&self) -> bool {
        self.follow == Follow::None && self.parked.is_empty()
    }

    /// The lines the scan must hand on after a line whatever they hold,
    /// for the continuations under way.
    #[inline]
    pub(super) fn lines_wanted(&self) -> usize {
        match (&self.follow, self.parked.is_empty()) {
            (Follow::None, true) => 0,
            (Follow::Trace(_), true) => TRACE_LINES,
            (Follow::Cause(_), true) => CAUSE_LINES,
            _ => DUMP_LINES,
        }
    }

    /// A new segment: what was under way ends.
    pub(super) fn clear(&mut self) {
        self.follow = Follow::None;
        self.parked.clear();
    }

    /// A record of `stream` begins: it ends the continuation of its stream
    /// (a record of another stream of a multiplexed file or export may
    /// come between a config dump's lines).
    #[inline]
    pub(super) fn record(&mut self, stream: Option<&str>) {
        let others = match &self.follow {
            Follow::Dump(s) | Follow::Trace(s) | Follow::Cause(s) => {
                s.0.is_some() && stream != s.0.as_deref()
            }
            Follow::None => false,
        };
        if !others {
            self.follow = Follow::None;
        }
        if !self.parked.is_empty() {
            self.parked.retain(|f| f.stream() != Some(stream));
        }
    }

    /// The record of the replay at `key` asks for its continuation (one of
    /// another stream under way is parked; a stream's own ends): the lines
    /// the scan must hand on after it.
    #[inline]
    pub(super) fn begin(&mut self, key: SlotKey, asked: Continuation) -> usize {
        let (follow, lines) = match asked {
            Continuation::None => return 0,
            Continuation::ConfigDump => (Follow::Dump(key), DUMP_LINES),
            Continuation::StartFailure => (Follow::Trace(key), TRACE_LINES),
            Continuation::RebalanceFailure => (Follow::Cause(key), CAUSE_LINES),
        };
        let f = std::mem::replace(&mut self.follow, follow);
        if f != Follow::None && self.parked.len() < PARKED {
            self.parked.push(f);
        }
        lines
    }

    /// A line without a record head (`text`, whole): the event it holds
    /// for the replay whose continuation it is, if any, and the lines the
    /// scan must hand on after it.
    pub(super) fn line(&mut self, text: &str) -> (Option<(SlotKey, Event)>, usize) {
        let (stream, rest) = split_stream(text);
        if let Some(k) = stream
            && self.follow.stream() != Some(Some(k))
            && let Some(i) = self.parked.iter().position(|f| f.stream() == Some(Some(k)))
        {
            // A line of a continuation of another stream under way.
            let theirs = self.parked.swap_remove(i);
            let ours = std::mem::replace(&mut self.follow, theirs);
            if ours != Follow::None {
                self.parked.push(ours);
            }
        }
        match std::mem::replace(&mut self.follow, Follow::None) {
            Follow::None => (None, 0),
            Follow::Dump(s) => {
                if stream.is_some() && stream != s.0.as_deref() {
                    self.follow = Follow::Dump(s);
                    return (None, DUMP_LINES);
                }
                let ev = parse_config_value(rest)
                    .map(|(key, value)| (s.clone(), Event::ConfigValue { key, value }));
                self.follow = Follow::Dump(s);
                (ev, DUMP_LINES)
            }
            Follow::Trace(s) => {
                if stream.is_some() && stream != s.0.as_deref() {
                    self.follow = Follow::Trace(s);
                    return (None, TRACE_LINES);
                }
                if let Some(r) = parse_already_exists(rest) {
                    return (Some((s, Event::AlreadyExists(r))), 0);
                }
                self.follow = Follow::Trace(s);
                (None, TRACE_LINES)
            }
            Follow::Cause(s) => {
                if stream.is_some() && stream != s.0.as_deref() {
                    self.follow = Follow::Cause(s);
                    return (None, CAUSE_LINES);
                }
                // A rejoined terminal copy (or a runtime's rejoined partial
                // records) keeps line numbers with empty lines after the
                // record: they hold nothing of it, and a log never puts one
                // between the record and its exception.
                if rest.trim().is_empty() {
                    self.follow = Follow::Cause(s);
                    return (None, CAUSE_LINES);
                }
                // The one line after it: the exception, or nothing of it.
                let fenced = rest.trim_end().ends_with(UNKNOWN_MEMBER);
                let ev = fenced.then(|| {
                    (
                        s,
                        Event::HeartbeatFenced {
                            error: "UNKNOWN_MEMBER_ID".to_string(),
                            generation: None,
                        },
                    )
                });
                (ev, 0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after_rebalance_failed(line: &str) -> (Option<(SlotKey, Event)>, usize) {
        let mut c = Continuations::default();
        let key: SlotKey = (None, 0);
        assert_eq!(c.begin(key, Continuation::RebalanceFailure), CAUSE_LINES);
        let out = c.line(line);
        assert!(c.idle(), "one line only");
        out
    }

    #[test]
    fn a_refused_rejoin_is_a_fencing() {
        // 2.6.3 (and up): `Rebalance failed.`, then the exception.
        let (ev, more) = after_rebalance_failed(
            "org.apache.kafka.common.errors.UnknownMemberIdException: The coordinator is not aware of this member.",
        );
        assert_eq!(more, 0);
        assert_eq!(
            ev.map(|(_, e)| e),
            Some(Event::HeartbeatFenced {
                error: "UNKNOWN_MEMBER_ID".into(),
                generation: None
            })
        );
    }

    #[test]
    fn other_causes_of_a_failed_rebalance_are_nothing() {
        // Real 2.6.3 chaos lines: the member is still one.
        for cause in [
            "org.apache.kafka.common.errors.NotCoordinatorException: This is not the correct coordinator.",
            "org.apache.kafka.common.errors.RebalanceInProgressException: The group is rebalancing, so a rejoin is needed.",
        ] {
            assert_eq!(after_rebalance_failed(cause), (None, 0), "{cause}");
        }
    }

    #[test]
    fn the_empty_lines_of_a_rejoined_record_do_not_end_the_wait() {
        // A terminal copy rejoined keeps line numbers: the record's cut
        // fragments become empty lines after it, before the exception.
        let mut c = Continuations::default();
        let key: SlotKey = (None, 0);
        c.begin(key, Continuation::RebalanceFailure);
        assert_eq!(c.line(""), (None, CAUSE_LINES));
        assert_eq!(c.line("  "), (None, CAUSE_LINES));
        let (ev, more) = c.line(
            "org.apache.kafka.common.errors.UnknownMemberIdException: The coordinator is not aware of this member.",
        );
        assert_eq!(more, 0);
        assert!(matches!(ev, Some((_, Event::HeartbeatFenced { .. }))));
        assert!(c.idle());
    }
}

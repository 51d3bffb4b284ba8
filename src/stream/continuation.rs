//! Continuation lines: a config dump's values and a failed start's stack
//! trace follow their record on lines of their own; a stream follows one
//! at a time, and those of other streams of a multiplexed file or export
//! wait parked until their stream's next line.

use super::workers::SlotKey;
use crate::event::{Continuation, Event, parse_already_exists, parse_config_value};
use crate::layout::split_stream;

/// Continuation lines to look at after a config-dump head.
pub(super) const DUMP_LINES: usize = 2000;
/// Continuation lines to look at after a failed start (its stack trace).
pub(super) const TRACE_LINES: usize = 60;

/// Continuations of other streams kept under way at most.
const PARKED: usize = 64;

#[derive(Debug, Clone, PartialEq)]
enum Follow {
    None,
    Dump(SlotKey),
    Trace(SlotKey),
}

impl Follow {
    /// The stream a continuation under way belongs to.
    fn stream(&self) -> Option<Option<&str>> {
        match self {
            Follow::Dump(s) | Follow::Trace(s) => Some(s.0.as_deref()),
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
            Follow::Dump(s) | Follow::Trace(s) => s.0.is_some() && stream != s.0.as_deref(),
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
        }
    }
}

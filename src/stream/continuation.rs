//! Continuation lines: a config dump's values and a failed start's stack
//! trace follow their record on lines of their own; a stream follows one
//! at a time, and those of other streams of a multiplexed file or export
//! wait parked until their stream's next line.

use super::decoder::{Decoder, Raw, SlotKey};
use crate::event::{Event, parse_already_exists, parse_config_value};
use crate::layout::split_stream;
use crate::replay::LineCtx;

/// Continuation lines to look at after a config-dump head.
pub(super) const DUMP_LINES: usize = 2000;
/// Continuation lines to look at after a failed start (its stack trace).
pub(super) const TRACE_LINES: usize = 60;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Follow {
    None,
    Dump(SlotKey),
    Trace(SlotKey),
}

impl Decoder {
    pub(super) fn continuation(&mut self, number: u64, text: &str) -> usize {
        let (stream, rest) = split_stream(text);
        if let Some(k) = stream
            && follow_stream(&self.follow) != Some(Some(k))
            && let Some(i) = self
                .parked
                .iter()
                .position(|f| follow_stream(f) == Some(Some(k)))
        {
            // A line of a continuation of another stream under way.
            let theirs = self.parked.swap_remove(i);
            let ours = std::mem::replace(&mut self.follow, theirs);
            if ours != Follow::None {
                self.parked.push(ours);
            }
        }
        match std::mem::replace(&mut self.follow, Follow::None) {
            Follow::None => 0,
            Follow::Dump(s) => {
                if stream.is_some() && stream != s.0.as_deref() {
                    self.follow = Follow::Dump(s);
                    return DUMP_LINES;
                }
                if let Some((key, value)) = parse_config_value(rest) {
                    let ev = Event::ConfigValue { key, value };
                    self.apply(&s, &ev, Raw::continuation(number, text), LineCtx::default());
                }
                self.follow = Follow::Dump(s);
                DUMP_LINES
            }
            Follow::Trace(s) => {
                if stream.is_some() && stream != s.0.as_deref() {
                    self.follow = Follow::Trace(s);
                    return TRACE_LINES;
                }
                if let Some(r) = parse_already_exists(rest) {
                    let ev = Event::AlreadyExists(r);
                    self.apply(&s, &ev, Raw::continuation(number, text), LineCtx::default());
                    return 0;
                }
                self.follow = Follow::Trace(s);
                TRACE_LINES
            }
        }
    }
}

/// The stream a continuation under way belongs to.
pub(super) fn follow_stream(f: &Follow) -> Option<Option<&str>> {
    match f {
        Follow::Dump(s) | Follow::Trace(s) => Some(s.0.as_deref()),
        Follow::None => None,
    }
}

/// Continuations of other streams kept under way at most.
const PARKED: usize = 64;

impl Decoder {
    /// A continuation of a stream begins: one of another stream under
    /// way is kept (a stream's own ends).
    pub(super) fn park(&mut self) {
        let f = std::mem::replace(&mut self.follow, Follow::None);
        if f != Follow::None && self.parked.len() < PARKED {
            self.parked.push(f);
        }
    }
}

//! Stage 1 of the audit: what happens to one stream's lines. A stream is
//! a file with its rotated segments in time order, or standard input; its
//! lines go, one by one, through a short chain of steps:
//!
//! 1. the scan's prefilter ([`crate::input::scan`]) hands on candidate
//!    lines; a line whose logger the auditor does not read is dropped
//!    (`select.rs`);
//! 2. a JSON line is unwrapped to a classic one, and the envelope read
//!    ([`crate::layout`]): stream label, time stamp, level, logger, MDC,
//!    LogContext prefix, message; a line without one is a continuation
//!    (`continuation.rs`);
//! 3. the stream pauses there when the line is later than the round's
//!    bound;
//! 4. MirrorMaker's own lines tell how many herders the JVM runs, and the
//!    message is parsed into an [`crate::event::Event`];
//! 5. the line goes to the replay of the herder that provably wrote it
//!    (`route.rs`), unless it repeats an overlapping segment (`repeats.rs`);
//! 6. the replay's facts and final findings are handed on as [`Item`]s,
//!    keyed by log time, to the second stage ([`crate::audit`]).
//!
//! [`Decoder`] does steps 1 to 6 for the lines the scan delivers;
//! [`StreamReader`] reads one stream in steps (its segments, their
//! heads, the pauses, the memory and open-file budgets) and says what it
//! leaves at the end.

mod continuation;
mod decoder;
mod reader;
mod repeats;
mod route;
mod select;
mod vecmap;
mod workers;

pub use decoder::{Decoder, Until};
pub use reader::{Advance, LIVE_HEAD_QUIET, StreamEnd, StreamReader};

use crate::input;
use crate::model::{Key, SourceId};
use crate::replay::Fact;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A fact of one worker, keyed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub key: Key,
    /// The worker's label (its stream, or `stream#name` in a multiplexed file).
    pub worker: Arc<str>,
    pub fact: Fact,
}

#[cfg(test)]
impl Item {
    /// An item of `worker` at `key` whose fact says nothing (a reset at an
    /// empty line numbered `key.seq`): for tests of what orders items.
    pub(crate) fn bare(key: Key, worker: &str) -> Item {
        Item {
            key,
            worker: Arc::from(worker),
            fact: crate::replay::Fact {
                group: None,
                cluster: None,
                identity: None,
                line: crate::model::SourceLine {
                    source: crate::model::SourceId(0),
                    line: key.seq,
                    seq: key.seq,
                    ts: None,
                    text: Arc::from(""),
                    msg: (0, 0),
                },
                kind: crate::replay::FactKind::Reset,
            },
        }
    }
}

/// What was read from one input.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InputReport {
    pub id: SourceId,
    pub name: String,
    pub gzip: bool,
    pub bytes: u64,
    pub lines: u64,
    /// Lines holding one of the prefilter literals.
    pub candidates: u64,
    /// Lifecycle events read (per stream: on its first segment).
    pub events: u64,
    /// Lines skipped for their length: (line number, length in bytes).
    pub too_long: Vec<(u64, u64)>,
}

impl InputReport {
    pub fn empty(id: SourceId, name: String) -> InputReport {
        InputReport {
            id,
            name,
            gzip: false,
            bytes: 0,
            lines: 0,
            candidates: 0,
            events: 0,
            too_long: Vec::new(),
        }
    }
}

/// An input that could not be (fully) read.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InputError {
    pub input: String,
    pub message: String,
}

pub(crate) fn read_error(e: &std::io::Error, gzip: bool) -> String {
    if gzip {
        match e.kind() {
            std::io::ErrorKind::UnexpectedEof => "gzip stream is truncated".to_string(),
            std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
                format!("gzip stream is corrupt ({})", input::describe(e))
            }
            _ => format!("read failed: {}", input::describe(e)),
        }
    } else {
        format!("read failed: {}", input::describe(e))
    }
}

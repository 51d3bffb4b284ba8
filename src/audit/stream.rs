//! From selected lines to worker replays: envelope, logger, message parser,
//! then the replay of the worker the line belongs to (one per stream label
//! in multiplexed files).

use crate::event::{
    Continuation, Event, LoggerKind, parse_already_exists, parse_config_value, parse_message,
};
use crate::input::scan::{Delivery, LineSink, Step};
use crate::layout::{envelope, split_stream};
use crate::model::{SourceId, SourceLine, Timestamp};
use crate::replay::{LineCtx, WorkerReplay};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Continuation lines to look at after a config-dump head.
const DUMP_LINES: usize = 2000;
/// Continuation lines to look at after a failed start (its stack trace).
const TRACE_LINES: usize = 60;

/// Where an event's line is.
struct Raw<'a> {
    number: u64,
    text: &'a str,
    ts: Option<Timestamp>,
    msg: (usize, usize),
}

impl<'a> Raw<'a> {
    fn continuation(number: u64, text: &'a str) -> Raw<'a> {
        Raw {
            number,
            text,
            ts: None,
            msg: (0, text.len()),
        }
    }
}

struct Slot {
    replay: WorkerReplay,
    seq: u64,
}

#[derive(Debug, Clone, PartialEq)]
enum Follow {
    None,
    Dump(Option<String>),
    Trace(Option<String>),
}

/// Feeds the lines of one input to the replays of the workers in it.
pub struct StreamSink {
    source: SourceId,
    label: String,
    keep_generations: bool,
    slots: BTreeMap<Option<String>, Slot>,
    follow: Follow,
    /// Lifecycle events read.
    pub events: u64,
    /// Lines skipped for their length: (line number, length).
    pub too_long: Vec<(u64, u64)>,
}

impl StreamSink {
    pub fn new(source: SourceId, label: String, keep_generations: bool) -> StreamSink {
        StreamSink {
            source,
            label,
            keep_generations,
            slots: BTreeMap::new(),
            follow: Follow::None,
            events: 0,
            too_long: Vec::new(),
        }
    }

    fn slot(&mut self, stream: Option<&str>) -> &mut Slot {
        let key = stream.map(str::to_string);
        let label = match stream {
            Some(s) => format!("{}#{s}", self.label),
            None => self.label.clone(),
        };
        let keep = self.keep_generations;
        self.slots.entry(key).or_insert_with(|| Slot {
            replay: WorkerReplay::new(label, keep),
            seq: 0,
        })
    }

    fn apply(&mut self, stream: Option<&str>, ev: &Event, raw: Raw, ctx: LineCtx) {
        let source = self.source;
        self.events += 1;
        let slot = self.slot(stream);
        slot.seq += 1;
        let line = SourceLine {
            source,
            line: raw.number,
            seq: slot.seq,
            ts: raw.ts,
            text: Arc::from(raw.text),
            msg: (raw.msg.0 as u32, raw.msg.1 as u32),
        };
        slot.replay.apply(ev, &line, ctx);
    }

    /// The replays, in stream order; streams without a lifecycle event
    /// (e.g. a broker's lines in a compose log) are left out.
    pub fn into_replays(self) -> Vec<WorkerReplay> {
        self.slots
            .into_values()
            .map(|s| s.replay)
            .filter(|r| r.events() > 0)
            .collect()
    }

    fn continuation(&mut self, number: u64, text: &str) -> usize {
        let (stream, rest) = split_stream(text);
        match std::mem::replace(&mut self.follow, Follow::None) {
            Follow::None => 0,
            Follow::Dump(s) => {
                if stream.is_some() && stream != s.as_deref() {
                    self.follow = Follow::Dump(s);
                    return DUMP_LINES;
                }
                if let Some((key, value)) = parse_config_value(rest) {
                    let ev = Event::ConfigValue { key, value };
                    self.apply(
                        s.as_deref(),
                        &ev,
                        Raw::continuation(number, text),
                        LineCtx::default(),
                    );
                }
                self.follow = Follow::Dump(s);
                DUMP_LINES
            }
            Follow::Trace(s) => {
                if stream.is_some() && stream != s.as_deref() {
                    self.follow = Follow::Trace(s);
                    return TRACE_LINES;
                }
                if let Some(r) = parse_already_exists(rest) {
                    let ev = Event::AlreadyExists(r);
                    self.apply(
                        s.as_deref(),
                        &ev,
                        Raw::continuation(number, text),
                        LineCtx::default(),
                    );
                    return 0;
                }
                self.follow = Follow::Trace(s);
                TRACE_LINES
            }
        }
    }
}

/// Is a coordinator line without the herder's LogContext prefix the
/// worker's own? (Kafka before 2.0 printed no prefix, and its consumers'
/// coordinator lines look the same.) It is when it names the worker's group,
/// or, while the group is unknown, a group that is not a sink connector's
/// consumer group (`connect-<name>`).
fn unprefixed_coordinator_line_is_workers(ev: &Event, worker_group: Option<&str>) -> bool {
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

impl LineSink for StreamSink {
    fn line(&mut self, number: u64, bytes: &[u8], how: Delivery) -> Step {
        Step::Next(self.line_inner(number, bytes, how))
    }

    fn too_long(&mut self, number: u64, len: u64) {
        self.too_long.push((number, len));
    }
}

impl StreamSink {
    fn line_inner(&mut self, number: u64, bytes: &[u8], how: Delivery) -> usize {
        let text = String::from_utf8_lossy(bytes);
        let Some(env) = envelope(&text) else {
            return self.continuation(number, &text);
        };
        // A new record ends any continuation.
        self.follow = Follow::None;
        if how == Delivery::Follow || env.client {
            return 0;
        }
        let kind = match env.logger {
            Some(l) => match LoggerKind::classify(l) {
                Some(k) => k,
                None => return 0,
            },
            None => LoggerKind::Unknown,
        };
        let Some(ev) = parse_message(kind, env.message) else {
            return 0;
        };
        if kind == LoggerKind::AbstractCoordinator && env.worker.is_none() {
            let group = self
                .slots
                .get(&env.stream.map(str::to_string))
                .and_then(|s| s.replay.group());
            if !unprefixed_coordinator_line_is_workers(&ev, group) {
                return 0;
            }
        }
        let ctx = LineCtx {
            client_id: env.worker.map(|w| w.client_id),
            group_id: env.worker.map(|w| w.group_id),
        };
        let stream = env.stream;
        let raw = Raw {
            number,
            text: &text,
            ts: env.ts,
            msg: (env.msg_start, env.msg_end),
        };
        self.apply(stream, &ev, raw, ctx);
        match ev.continuation() {
            Continuation::None => 0,
            Continuation::ConfigDump => {
                self.follow = Follow::Dump(stream.map(str::to_string));
                DUMP_LINES
            }
            Continuation::StartFailure => {
                self.follow = Follow::Trace(stream.map(str::to_string));
                TRACE_LINES
            }
        }
    }
}

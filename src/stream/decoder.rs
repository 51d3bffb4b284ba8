//! The lines of one stream, as the scan delivers them, to the replays of
//! the workers in it: the logger read first (lines of loggers the auditor
//! does not read are dropped), the envelope (classic or JSON), the message
//! parsed into an event, then the replay of the worker the line belongs to
//! (one per stream label of a multiplexed file, one per herder of a
//! MirrorMaker JVM), whose facts are handed on as keyed items.

use crate::event::{Continuation, Event, LoggerKind, attribute, parse_message};
use crate::input;
use crate::input::scan::{Delivery, LineHandler, Step};
use crate::layout;
use crate::layout::bare::BareLayout;
use crate::model::{SourceId, SourceLine, Timestamp};
use crate::replay::{LineCtx, WorkerReplay};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::Item;
use super::continuation::{DUMP_LINES, Follow, TRACE_LINES, follow_stream};
use super::repeats::Dedupe;
use super::route::{self as herders, Herders, Route};
use super::select::{json_message_range, keyword_finders, unprefixed_coordinator_line_is_workers};
use crate::model::Key;

/// A replay's place: the stream label of a multiplexed file, and the
/// herder's index among the stream's herders (MirrorMaker 2 runs several
/// in one JVM; see [`super::route`]).
pub(super) type SlotKey = (Option<String>, u32);

/// Where an event's line is.
pub(super) struct Raw<'a> {
    number: u64,
    text: &'a str,
    ts: Option<Timestamp>,
    msg: (usize, usize),
    /// The line has no logger in a layout that prints none.
    bare: bool,
}

impl<'a> Raw<'a> {
    pub(super) fn continuation(number: u64, text: &'a str) -> Raw<'a> {
        Raw {
            number,
            text,
            ts: None,
            msg: (0, text.len()),
            bare: false,
        }
    }
}

struct Slot {
    replay: WorkerReplay,
    /// The replay's label, shared by its items.
    worker: Arc<str>,
    seq: u64,
    /// The stream's log time when the replay began holding facts back
    /// (the outcome of a start under way): they are keyed at it.
    held_since: Option<i64>,
}

/// When to pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// Never: read to the end.
    End,
    /// Before the first line with a time stamp.
    FirstStamp,
    /// Before the first line stamped later than this.
    After(Timestamp),
}

/// The replays of a stream holding facts back, and the time of the last
/// item handed on (item times never go back).
#[derive(Debug)]
struct Holds {
    /// (worker, the stream's log time when it began holding).
    held: Vec<(Arc<str>, i64)>,
    last_item_ts: i64,
}

impl Default for Holds {
    fn default() -> Holds {
        Holds {
            held: Vec::new(),
            last_item_ts: i64::MIN,
        }
    }
}

impl Holds {
    /// The earliest time at which a replay began holding facts it still
    /// holds.
    fn floor(&self) -> Option<i64> {
        self.held.iter().map(|(_, t)| *t).min()
    }

    /// The time of the next item of a stream at log time `stream_ts`.
    fn item_ts(&self, stream_ts: i64) -> i64 {
        self.floor().unwrap_or(stream_ts).max(self.last_item_ts)
    }
}

/// Feeds the lines of one stream to the replays of the workers in it.
pub struct Decoder {
    source: SourceId,
    label: String,
    /// The stream's place in the run (orders items of equal time).
    rank: u32,
    /// The latest time stamp read in the stream (log time only moves
    /// forward here, whatever the lines say): the time of its items.
    stream_ts: i64,
    /// Items handed on so far.
    item_seq: u64,
    /// Items not yet taken, in key order.
    items: Vec<Item>,
    /// How items are keyed while replays hold facts back.
    holds: Holds,
    keep_generations: bool,
    facts: bool,
    timeline: bool,
    slots: BTreeMap<SlotKey, Slot>,
    /// The herders of each stream label.
    herders: BTreeMap<Option<String>, Herders>,
    pub(super) follow: Follow,
    /// Continuations of other streams under way (a multiplexed file or an
    /// export of several sources interleaves their lines).
    pub(super) parked: Vec<Follow>,
    /// Lines of the segments opened whose order is unknown, not yet taken.
    unordered: Vec<(SourceId, u64)>,
    until: Until,
    /// The time stamp of the line the decoder paused before.
    pub paused_at: Option<Timestamp>,
    dedupe: Dedupe,
    /// Lifecycle events read.
    pub events: u64,
    /// Lines skipped for their length: (line number, length).
    pub too_long: Vec<(u64, u64)>,
    /// Whether the layout prints a logger (else every line is read).
    bare: BareLayout,
    /// Tells the workers of a rejoined segment so.
    wrapped: input::sources::RejoinNote,
}

impl Decoder {
    pub fn new(source: SourceId, label: String, keep_generations: bool) -> Decoder {
        Decoder {
            source,
            label,
            rank: 0,
            stream_ts: i64::MIN,
            item_seq: 0,
            items: Vec::new(),
            holds: Holds::default(),
            keep_generations,
            facts: false,
            timeline: false,
            slots: BTreeMap::new(),
            herders: BTreeMap::new(),
            follow: Follow::None,
            parked: Vec::new(),
            unordered: Vec::new(),
            until: Until::End,
            paused_at: None,
            dedupe: Dedupe::default(),
            events: 0,
            too_long: Vec::new(),
            bare: BareLayout::default(),
            wrapped: input::sources::RejoinNote::default(),
        }
    }

    /// Have the replays hand on facts and findings as items (the audit
    /// pipeline); `rank` is the stream's place in the run.
    pub fn with_facts(mut self, rank: u32) -> Decoder {
        self.facts = true;
        self.rank = rank;
        self
    }

    /// The stream's rank in the run.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// The key the next item will have; items of this stream handed on
    /// later never sort before it.
    pub fn frontier(&self) -> Key {
        Key {
            ts: self.holds.item_ts(self.stream_ts),
            stream: self.rank,
            seq: self.item_seq + 1,
        }
    }

    /// The frontier of a stream paused before a line stamped `t`: past
    /// `t` unless a replay holds facts made before.
    pub fn frontier_paused(&self, t: Timestamp) -> Key {
        let f = self.frontier();
        if self.holds.floor().is_some() {
            return f;
        }
        f.max(Key {
            ts: t.0,
            stream: 0,
            seq: 0,
        })
    }

    fn key_facts(&mut self, slot_key: &SlotKey) {
        let Some(slot) = self.slots.get_mut(slot_key) else {
            return;
        };
        Self::push_facts(
            slot,
            &mut self.items,
            &mut self.item_seq,
            &mut self.holds,
            (self.stream_ts, self.rank),
        );
    }

    /// Hands on the facts a replay made, keyed: at the stream's log time,
    /// or, while the replay holds facts back, at the time it began to
    /// (a start is ordered among the other workers' facts by when it was
    /// logged, not by when its outcome became known).
    fn push_facts(
        slot: &mut Slot,
        items: &mut Vec<Item>,
        item_seq: &mut u64,
        holds: &mut Holds,
        (stream_ts, rank): (i64, u32),
    ) {
        let made_at = if slot.replay.holds_facts() {
            *slot.held_since.get_or_insert_with(|| {
                holds.held.push((slot.worker.clone(), stream_ts));
                stream_ts
            })
        } else {
            match slot.held_since.take() {
                Some(t) => {
                    holds.held.retain(|(w, _)| *w != slot.worker);
                    t
                }
                None => stream_ts,
            }
        };
        let Some(facts) = slot.replay.drain_facts() else {
            return;
        };
        if facts.as_slice().is_empty() {
            return;
        }
        items.reserve(facts.len());
        let ts = holds
            .floor()
            .map_or(made_at, |f| f.min(made_at))
            .max(holds.last_item_ts);
        holds.last_item_ts = ts;
        for fact in facts {
            *item_seq += 1;
            items.push(Item {
                key: Key {
                    ts,
                    stream: rank,
                    seq: *item_seq,
                },
                worker: slot.worker.clone(),
                fact,
            });
        }
    }

    /// The latest generation a worker of the stream is in.
    pub fn generation(&self) -> Option<i32> {
        self.slots
            .values()
            .filter_map(|s| s.replay.generation())
            .max()
    }

    /// Have the replays record their timelines (for the HTML report).
    pub fn with_timeline(mut self) -> Decoder {
        self.timeline = true;
        self
    }

    /// Pause before the first line stamped later than this bound.
    pub fn set_until(&mut self, until: Until) {
        self.until = until;
    }

    /// Lines (source, line as stored) whose order is unknown, found since
    /// the last call.
    pub fn take_unordered(&mut self) -> Vec<(SourceId, u64)> {
        std::mem::take(&mut self.unordered)
    }

    /// The over-long lines skipped since the last call.
    pub fn take_too_long(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.too_long)
    }

    /// Events skipped as repeats of overlapping segments.
    pub fn repeats_skipped(&self) -> u64 {
        self.dedupe.skipped
    }

    /// The items made since the last call, in key order.
    pub fn take_items(&mut self) -> Vec<Item> {
        std::mem::take(&mut self.items)
    }

    /// Live input went quiet: what the replays hold back for lines that
    /// may still follow (a start's failure, a connector stop's
    /// `Ignoring stop request`) is handed on now.
    pub fn flush_held(&mut self) {
        let keys: Vec<SlotKey> = self.slots.keys().cloned().collect();
        for k in keys {
            if let Some(slot) = self.slots.get_mut(&k) {
                slot.replay.settle();
            }
            self.key_facts(&k);
        }
    }

    /// A segment ended on this line (read or skipped): the log went on to
    /// it. Its worker's replay learns how far its log reaches, whatever the
    /// line says, and the stream's log time moves to it.
    pub(super) fn log_tail(&mut self, source: SourceId, number: u64, bytes: &[u8]) {
        // An export of several sources: each stream's own last line.
        for (n, text) in self.wrapped.tails() {
            self.stream_tail(source, n, text.as_bytes());
        }
        self.stream_tail(source, number, bytes);
    }

    fn stream_tail(&mut self, source: SourceId, number: u64, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let Some(env) = layout::envelope(&text) else {
            return;
        };
        let Some(ts) = env.ts else {
            return;
        };
        if !self.slots.keys().any(|k| k.0.as_deref() == env.stream) {
            return;
        }
        let msg = (env.message.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        let shared: Arc<str> = Arc::from(text.as_ref());
        let stored = self.wrapped.stored_line(number);
        // Every herder of the stream was still logging then.
        for (_, slot) in self
            .slots
            .iter_mut()
            .filter(|(k, _)| k.0.as_deref() == env.stream)
        {
            let line = SourceLine {
                source,
                line: stored,
                seq: slot.seq + 1,
                ts: Some(ts),
                text: shared.clone(),
                msg: (msg as u32, (msg + env.message.len()) as u32),
            };
            slot.replay.log_goes_on(line);
        }
        self.stream_ts = self.stream_ts.max(ts.0);
    }

    /// The next lines come from another segment of the same stream
    /// (`last`: no segment follows it).
    pub(super) fn next_segment(&mut self, source: SourceId, first: bool, last: bool) {
        self.source = source;
        self.follow = Follow::None;
        self.parked.clear();
        self.dedupe.armed = !first && self.dedupe.last_ts.is_some();
        self.dedupe.record = !last;
    }

    /// The replay of a herder of a stream of the file, made on its first
    /// event (found without allocating: a file holds one stream, or a few).
    /// The stream's first herder is named after the stream; each further
    /// one (`group`: its group), and every herder of a MirrorMaker JVM
    /// (`mirror`), `<stream>@<group>`.
    fn slot<'s>(
        slots: &'s mut BTreeMap<SlotKey, Slot>,
        label: &str,
        (keep, facts, timeline): (bool, bool, bool),
        (stream, herder, group, mirror): (Option<&str>, u32, Option<&str>, bool),
    ) -> &'s mut Slot {
        let found = |k: &SlotKey| k.0.as_deref() == stream && k.1 == herder;
        if !slots.keys().any(found) {
            let mut label = match stream {
                Some(s) => format!("{label}#{s}"),
                None => label.to_string(),
            };
            match group {
                Some(g) if herder > 0 || mirror => label = format!("{label}@{g}"),
                _ => {}
            }
            let replay = WorkerReplay::new(label.clone(), keep);
            let replay = if timeline {
                replay.with_timeline()
            } else {
                replay
            };
            slots.insert(
                (stream.map(str::to_string), herder),
                Slot {
                    replay: if facts { replay.with_facts() } else { replay },
                    worker: Arc::from(label),
                    seq: 0,
                    held_since: None,
                },
            );
        }
        slots
            .iter_mut()
            .find(|(k, _)| found(k))
            .map(|(_, s)| s)
            .expect("the slot was made above")
    }

    /// The replay a line goes to: its stream's herder that provably wrote
    /// it (`None`: no herder provably did; the line is not read, and the
    /// herders it may belong to no longer know what they run, as after
    /// lines missed: no finding rests on its absence either).
    fn route(
        &mut self,
        stream: Option<&str>,
        ev: &Event,
        ctx: LineCtx,
        (mdc, raw): (Option<(&str, layout::MdcScope)>, &Raw),
    ) -> Option<SlotKey> {
        let key = stream.map(str::to_string);
        let herders = match self.herders.get_mut(&key) {
            Some(h) => h,
            None => self.herders.entry(key.clone()).or_default(),
        };
        let suspects = match herders.route(ev, ctx.group_id, mdc) {
            Route::Herder(i) => return Some((key, i)),
            Route::Unattributed { suspects } => suspects,
        };
        if self.dedupe.repeat(raw.ts, raw.text) {
            return None;
        }
        for i in suspects {
            let k = (key.clone(), i);
            let Some(slot) = self.slots.get_mut(&k) else {
                continue;
            };
            slot.seq += 1;
            let line = SourceLine {
                source: self.source,
                line: raw.number,
                seq: slot.seq,
                ts: raw.ts,
                text: Arc::from(raw.text),
                msg: (raw.msg.0 as u32, raw.msg.1 as u32),
            };
            slot.replay.lines_missed_before(&line);
            self.key_facts(&k);
        }
        None
    }

    pub(super) fn apply(&mut self, key: &SlotKey, ev: &Event, raw: Raw, ctx: LineCtx) {
        let stream = key.0.as_deref();
        if self.dedupe.repeat(raw.ts, raw.text) {
            return;
        }
        let source = self.source;
        self.events += 1;
        let notice = if raw.bare {
            let had = self.slots.get(key).is_some_and(|s| s.seq > 0);
            self.bare.notice(stream, had)
        } else {
            None
        };
        // Each herder of a rejoined stream is told (a further herder under
        // a name no stream label has).
        let wrapped = match key.1 {
            0 => self.wrapped.take(stream),
            i => self
                .wrapped
                .take(Some(&format!("{}\u{0}{i}", stream.unwrap_or_default()))),
        };
        let herders = self.herders.get(&key.0);
        let group = herders.and_then(|h| h.group(key.1));
        let mirror = herders.is_some_and(Herders::mirror);
        let number = self.wrapped.stored_line(raw.number);
        let slot = Self::slot(
            &mut self.slots,
            &self.label,
            (self.keep_generations, self.facts, self.timeline),
            (stream, key.1, group, mirror),
        );
        slot.seq += 1;
        let line = SourceLine {
            source,
            line: number,
            seq: slot.seq,
            ts: raw.ts,
            text: Arc::from(raw.text),
            msg: (raw.msg.0 as u32, raw.msg.1 as u32),
        };
        if let Some(n) = notice {
            if n.lines_missed {
                slot.replay.lines_missed_before(&line);
            }
            slot.replay.note_reading(&line, n.text);
        }
        for note in wrapped {
            slot.replay.note_reading(&line, note);
        }
        slot.replay.apply(ev, &line, ctx);
        if self.facts {
            Self::push_facts(
                slot,
                &mut self.items,
                &mut self.item_seq,
                &mut self.holds,
                (self.stream_ts, self.rank),
            );
        }
    }

    /// Ends the replays, in stream order (streams without a lifecycle
    /// event, e.g. a broker's lines in a compose log, are left out); the
    /// items their ends made (the last an `End`) are added to
    /// [`Decoder::take_items`].
    pub fn finish_replays(&mut self) -> Vec<Result<crate::replay::WorkerReport, String>> {
        let mut slots = std::mem::take(&mut self.slots);
        for ((stream, _), s) in slots.iter_mut() {
            if let Some(h) = self.herders.get(stream)
                && h.unattributed > 0
            {
                s.replay.note_unread(format!(
                    "{} unprefixed line(s) of this log could not be told to one herder of the JVM (they name no connector or task that one herder alone runs): not read",
                    h.unattributed
                ));
            }
        }
        let mut out = Vec::new();
        for (_, s) in slots {
            let label: Arc<str> = Arc::from(s.replay.label());
            let events = s.replay.events();
            let finished = crate::guard::guarded(|| s.replay.finish_with_facts());
            let (report, facts) = match finished {
                Ok(r) => (Ok(r.0), r.1),
                Err(msg) => (
                    Err(format!(
                        "internal error ending the replay of {label}: {msg} (please report this)"
                    )),
                    Vec::new(),
                ),
            };
            if self.facts {
                let ts = self.stream_ts.max(self.holds.last_item_ts);
                for fact in facts {
                    self.item_seq += 1;
                    self.items.push(Item {
                        key: Key {
                            ts,
                            stream: self.rank,
                            seq: self.item_seq,
                        },
                        worker: label.clone(),
                        fact,
                    });
                }
            }
            if events > 0 {
                out.push(report);
            }
        }
        out
    }
}

impl LineHandler for Decoder {
    fn line(&mut self, number: u64, bytes: &[u8], how: Delivery) -> Step {
        // A layout without a logger hides lines from the prefilter: then
        // every line is read as a candidate.
        let how = if self.bare.reads_all() {
            Delivery::Candidate
        } else {
            how
        };
        match self.read_line(number, bytes, how) {
            Step::Next(_) if self.bare.reads_all() => Step::Next(usize::MAX),
            // A continuation under way goes on past other streams' lines.
            Step::Next(n) => Step::Next(n.max(match (&self.follow, self.parked.is_empty()) {
                (Follow::None, true) => 0,
                (Follow::Trace(_), true) => TRACE_LINES,
                _ => DUMP_LINES,
            })),
            step => step,
        }
    }

    fn too_long(&mut self, number: u64, len: u64) {
        self.too_long.push((self.wrapped.stored_line(number), len));
    }
}

impl Decoder {
    /// A new segment begins: its head told whether its layout prints a
    /// logger and whether it was wrapped; the scan must hand on every line
    /// when the layout hides the loggers.
    pub(super) fn segment_head(&mut self, head: &input::Head) -> bool {
        if let Some(d) = &head.source {
            let map = |n: u64| d.lines.as_ref().map_or(n, |m| m.stored(n));
            self.unordered
                .extend(d.unordered.lines.iter().map(|&n| (self.source, map(n))));
        }
        self.bare.segment(head.bare);
        self.wrapped.segment(head.wrap_width, head.source.as_ref());
        self.bare.reads_all()
    }

    fn read_line(&mut self, number: u64, bytes: &[u8], how: Delivery) -> Step {
        // Nearly every candidate line is decoded below: decode it first, so
        // that the logger it ends with is read from the text.
        let text = match std::str::from_utf8(bytes) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        // Hot path: some candidate lines come from runtime loggers the
        // auditor does not read (plugin scanning, offset commits, configs);
        // reject them by their logger before parsing anything.
        // The logger classified here, kept for the envelope's (the same
        // bytes of the same text are the same logger).
        let mut classified: Option<(&str, Option<LoggerKind>)> = None;
        if how == Delivery::Candidate
            && self.follow == Follow::None
            && self.parked.is_empty()
            && let Some(l) = match &text {
                std::borrow::Cow::Borrowed(s) => layout::trailing_logger_text(s),
                std::borrow::Cow::Owned(_) => layout::trailing_logger(bytes),
            }
        {
            let kind = LoggerKind::classify(l);
            match kind {
                None if l != herders::MIRROR_MAKER_LOGGER => return Step::Next(0),
                None => {}
                Some(k) => {
                    if let Some(finders) = keyword_finders(k)
                        && !finders.iter().any(|f| f.find(bytes).is_some())
                    {
                        return Step::Next(0);
                    }
                }
            }
            classified = Some((l, kind));
        }
        let classic;
        let (line, json) = if how == Delivery::Candidate && layout::is_json(&text) {
            match input::sources::json_record(&text) {
                Some(c) => {
                    classic = c;
                    (classic.as_str(), true)
                }
                None => return Step::Next(0),
            }
        } else {
            (&*text, false)
        };
        // The logger the reject read and knows, where it found it: the
        // envelope checks it there instead of finding it again.
        let known = match classified {
            Some((l, Some(_))) if !json => Some(l),
            _ => None,
        };
        let Some(env) = layout::envelope_with(line, known) else {
            return Step::Next(self.continuation(number, &text));
        };
        // A new record ends the continuation of its stream (a record of
        // another stream of a multiplexed file or export may come between
        // a config dump's lines).
        let others = match &self.follow {
            Follow::Dump(s) | Follow::Trace(s) => s.0.is_some() && env.stream != s.0.as_deref(),
            Follow::None => false,
        };
        if !others {
            self.follow = Follow::None;
        }
        if !self.parked.is_empty() {
            self.parked.retain(|f| follow_stream(f) != Some(env.stream));
        }
        if how == Delivery::Follow {
            return Step::Next(0);
        }
        let pause = match (self.until, env.ts) {
            (Until::FirstStamp, Some(_)) => true,
            (Until::After(t), Some(ts)) => ts > t,
            _ => false,
        };
        if pause {
            self.paused_at = env.ts;
            return Step::Pause;
        }
        if let Some(ts) = env.ts {
            self.stream_ts = self.stream_ts.max(ts.0);
        }
        if env.client {
            return Step::Next(0);
        }
        let mirror = match env.logger {
            Some(l) => l == herders::MIRROR_MAKER_LOGGER,
            None => env.worker.is_none() && herders::is_mirror_wording(env.message),
        };
        if mirror {
            self.herders
                .entry(env.stream.map(str::to_string))
                .or_default()
                .mirror_maker(herders::mirror_line(env.message));
            return Step::Next(0);
        }
        self.bare.record(env.worker.is_some(), env.logger.is_some());
        let (kind, ev) = match env.logger {
            Some(l) => {
                let kind = match classified {
                    Some((c, kind)) if std::ptr::eq(c, l) => kind,
                    _ => LoggerKind::classify(l),
                };
                let Some(kind) = kind else {
                    return Step::Next(0);
                };
                match parse_message(kind, env.message) {
                    Some(ev) => (kind, ev),
                    None => return Step::Next(0),
                }
            }
            // No logger: the class is told from the wording and prefix.
            None => match attribute(env.message, env.worker.is_some()) {
                Some(attributed) => attributed,
                None => return Step::Next(0),
            },
        };
        if kind == LoggerKind::AbstractCoordinator && env.worker.is_none() {
            let group = self
                .slots
                .get(&(env.stream.map(str::to_string), 0))
                .and_then(|s| s.replay.group());
            if !unprefixed_coordinator_line_is_workers(&ev, group) {
                return Step::Next(0);
            }
        }
        let ctx = LineCtx {
            client_id: env.worker.map(|w| w.client_id),
            group_id: env.worker.map(|w| w.group_id),
        };
        let msg = if json {
            json_message_range(&text, env.message)
        } else {
            (env.msg_start, env.msg_end)
        };
        let raw = Raw {
            number,
            text: &text,
            ts: env.ts,
            msg,
            bare: env.logger.is_none() && ev.continuation() != Continuation::ConfigDump,
        };
        let Some(key) = self.route(
            env.stream,
            &ev,
            ctx,
            (env.mdc.map(|m| (m.connector, m.scope)), &raw),
        ) else {
            return Step::Next(0);
        };
        self.apply(&key, &ev, raw, ctx);
        Step::Next(match ev.continuation() {
            Continuation::None => 0,
            Continuation::ConfigDump => {
                self.park();
                self.follow = Follow::Dump(key);
                DUMP_LINES
            }
            Continuation::StartFailure => {
                self.park();
                self.follow = Follow::Trace(key);
                TRACE_LINES
            }
        })
    }
}

//! The lines of one stream, as the scan delivers them, to the replays of
//! the workers in it. [`Decoder::read_line`] takes each line through the
//! steps of stage 1 in order: the logger read first (lines of loggers the
//! auditor does not read are dropped), the envelope (classic or JSON), the
//! pause at the round's bound, the event, the herder the line belongs to,
//! its replay, and the continuation lines its record asks for.

use super::Item;
use super::continuation::Continuations;
use super::repeats::Dedupe;
use super::route::{self, Route};
use super::select::{
    json_message_range, keyword_finders, trailing_logger_kind,
    unprefixed_coordinator_line_is_workers,
};
use super::workers::{Before, SlotKey, Workers};
use crate::event::{Continuation, Event, LoggerKind, attribute, parse_message};
use crate::input::scan::{Delivery, LineHandler, Step};
use crate::input::{self, sources::RejoinNote};
use crate::layout::{self, Envelope, bare::BareLayout};
use crate::model::{Key, Line, SourceId, SourceLine, Timestamp};
use crate::replay::{LineCtx, WorkerReport};
use std::borrow::Cow;
use std::sync::Arc;

/// Where an event's line is.
struct Raw<'a> {
    number: u64,
    text: &'a str,
    ts: Option<Timestamp>,
    msg: (usize, usize),
    /// The line has no logger in a layout that prints none.
    bare: bool,
}

impl<'a> Raw<'a> {
    /// A record's line (`json`: `env` was read from the record the JSON
    /// line stands for, not from `text`).
    #[inline(always)]
    fn record(number: u64, text: &'a str, env: &Envelope, json: bool, ev: &Event) -> Raw<'a> {
        let msg = if json {
            json_message_range(text, env.message)
        } else {
            (env.msg_start, env.msg_end)
        };
        Raw {
            number,
            text,
            ts: env.ts,
            msg,
            bare: env.logger.is_none() && ev.continuation() != Continuation::ConfigDump,
        }
    }

    /// A continuation line's: no time stamp, all of it the message.
    fn continuation(number: u64, text: &'a str) -> Raw<'a> {
        Raw {
            number,
            text,
            ts: None,
            msg: (0, text.len()),
            bare: false,
        }
    }

    /// The line, stored on line `number` of `source`, as the `seq`th of
    /// its worker (its text borrowed: copied only if the replay keeps it).
    #[inline]
    fn line(&self, source: SourceId, number: u64, seq: u64) -> Line<'a> {
        let msg = (self.msg.0 as u32, self.msg.1 as u32);
        Line::new(source, number, seq, self.ts, self.text, msg)
    }
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

/// The logger a line ends with, read before anything else, and its class
/// (`None`: a logger the auditor does not read, MirrorMaker's).
type Logger<'b> = Option<(&'b str, Option<LoggerKind>)>;

/// Feeds the lines of one stream to the replays of the workers in it.
pub struct Decoder {
    source: SourceId,
    workers: Workers,
    conts: Continuations,
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
    wrapped: RejoinNote,
}

impl Decoder {
    pub fn new(source: SourceId, label: String, keep_generations: bool) -> Decoder {
        Decoder {
            source,
            workers: Workers::new(label, keep_generations),
            conts: Continuations::default(),
            unordered: Vec::new(),
            until: Until::End,
            paused_at: None,
            dedupe: Dedupe::default(),
            events: 0,
            too_long: Vec::new(),
            bare: BareLayout::default(),
            wrapped: RejoinNote::default(),
        }
    }

    /// Have the replays hand on facts and findings as items (the audit
    /// pipeline); `rank` is the stream's place in the run.
    pub fn with_facts(mut self, rank: u32) -> Decoder {
        self.workers.hand_on_facts(rank);
        self
    }

    /// Have the replays record their timelines (for the HTML report).
    pub fn with_timeline(mut self) -> Decoder {
        self.workers.timeline = true;
        self
    }

    /// The stream's rank in the run.
    pub fn rank(&self) -> u32 {
        self.workers.rank()
    }

    /// The key the next item will have; items of this stream handed on
    /// later never sort before it.
    pub fn frontier(&self) -> Key {
        self.workers.frontier()
    }

    /// The frontier of a stream paused before a line stamped `t`: past
    /// `t` unless a replay holds facts made before.
    pub fn frontier_paused(&self, t: Timestamp) -> Key {
        self.workers.frontier_paused(t)
    }

    /// The latest generation a worker of the stream is in.
    pub fn generation(&self) -> Option<i32> {
        self.workers.generation()
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
        self.workers.take_items()
    }

    /// Live input went quiet: what the replays hold back for lines that
    /// may still follow (a start's failure, a connector stop's
    /// `Ignoring stop request`) is handed on now.
    pub fn flush_held(&mut self) {
        self.workers.flush_held();
    }

    /// Ends the replays, in stream order (streams without a lifecycle
    /// event, e.g. a broker's lines in a compose log, are left out); the
    /// items their ends made (the last an `End`) are added to
    /// [`Decoder::take_items`].
    pub fn finish_replays(&mut self) -> Vec<Result<WorkerReport, String>> {
        self.workers.finish()
    }

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

    /// The next lines come from another segment of the same stream
    /// (`last`: no segment follows it).
    pub(super) fn next_segment(&mut self, source: SourceId, first: bool, last: bool) {
        self.source = source;
        self.conts.clear();
        self.dedupe.armed = !first && self.dedupe.last_ts.is_some();
        self.dedupe.record = !last;
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
        if !self.workers.has_stream(env.stream) {
            return;
        }
        let msg = (env.message.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        let shared: Arc<str> = Arc::from(text.as_ref());
        let stored = self.wrapped.stored_line(number);
        // Every herder of the stream was still logging then.
        self.workers.log_goes_on(env.stream, |seq| SourceLine {
            source,
            line: stored,
            seq,
            ts: Some(ts),
            text: shared.clone(),
            msg: (msg as u32, (msg + env.message.len()) as u32),
        });
        self.workers.reach(ts);
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
            Step::Next(n) => Step::Next(n.max(self.conts.lines_wanted())),
            step => step,
        }
    }

    fn too_long(&mut self, number: u64, len: u64) {
        self.too_long.push((self.wrapped.stored_line(number), len));
    }
}

/// A line's bytes as text (nearly every candidate line is decoded: decode
/// it first, so that the logger it ends with is read from the text).
/// Validated by `simdutf8` (32 bytes a step where the processor has AVX2,
/// against the standard library's 16 of ASCII), the same answer; only an
/// invalid line is decoded again, lossily.
#[inline]
fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The classic line a JSON line stands for (`Some(None)`: the line is no
/// JSON line; `None`: a JSON line that is no log record, dropped).
#[inline]
fn unwrap_json(text: &str, how: Delivery) -> Option<Option<String>> {
    if how == Delivery::Candidate && layout::is_json(text) {
        return input::sources::json_record(text).map(Some);
    }
    Some(None)
}

/// The logger the reject read and knows, where it found it (the envelope
/// checks it there instead of finding it again); none on a JSON line,
/// whose envelope is read from another text.
#[inline]
fn known<'b>(logger: Logger<'b>, json: bool) -> Option<&'b str> {
    match logger {
        Some((l, Some(_))) if !json => Some(l),
        _ => None,
    }
}

// The steps of the per-line path are inlined into it (`#[inline(always)]`
// where the compiler would otherwise call them: a step's event returned
// by value is copied, a few hundred thousand instructions on a worker's
// log of 8 MiB).
impl Decoder {
    /// One line through the steps of stage 1 (see `mod.rs`).
    fn read_line(&mut self, number: u64, bytes: &[u8], how: Delivery) -> Step {
        let text = text_of(bytes);
        let Some(logger) = self.select(&text, bytes, how) else {
            return Step::Next(0);
        };
        let Some(classic) = unwrap_json(&text, how) else {
            return Step::Next(0);
        };
        let line = classic.as_deref().unwrap_or(&text);
        let Some(env) = layout::envelope_with(line, known(logger, classic.is_some())) else {
            return Step::Next(self.continuation(number, &text));
        };
        self.conts.record(env.stream);
        if how == Delivery::Follow {
            return Step::Next(0);
        }
        if self.pause_before(env.ts) {
            return Step::Pause;
        }
        if env.client || self.mirror_maker_line(&env) {
            return Step::Next(0);
        }
        let Some((kind, ev)) = self.event(&env, logger) else {
            return Step::Next(0);
        };
        if !self.workers_line(kind, &env, &ev) {
            return Step::Next(0);
        }
        let raw = Raw::record(number, &text, &env, classic.is_some(), &ev);
        let ctx = LineCtx {
            client_id: env.worker.map(|w| w.client_id),
            group_id: env.worker.map(|w| w.group_id),
        };
        let mdc = env.mdc.map(|m| (m.connector, m.scope));
        let Some(key) = self.route(env.stream, &ev, ctx, mdc, &raw) else {
            return Step::Next(0);
        };
        self.events += self.workers.before_assignment(&key, &ev);
        self.apply(&key, &ev, raw, ctx);
        self.workers.after_line(&key);
        Step::Next(self.conts.begin(key, ev.continuation()))
    }

    /// Hot path: some candidate lines come from runtime loggers the auditor
    /// does not read (plugin scanning, offset commits, configs); reject them
    /// by their logger before parsing anything (`None`: rejected). The
    /// logger classified is kept for the envelope's (the same bytes of the
    /// same text are the same logger).
    #[inline(always)]
    fn select<'b>(
        &self,
        text: &Cow<'b, str>,
        bytes: &'b [u8],
        how: Delivery,
    ) -> Option<Logger<'b>> {
        if how != Delivery::Candidate || !self.conts.idle() {
            return Some(None);
        }
        let found = match text {
            Cow::Borrowed(s) => trailing_logger_kind(s),
            Cow::Owned(_) => layout::trailing_logger(bytes).map(|l| (l, LoggerKind::classify(l))),
        };
        let Some((l, kind)) = found else {
            return Some(None);
        };
        match kind {
            None if l != route::MIRROR_MAKER_LOGGER => return None,
            None => {}
            Some(k) => {
                if let Some(finders) = keyword_finders(k)
                    && !finders.iter().any(|f| f.find(bytes).is_some())
                {
                    return None;
                }
            }
        }
        Some(Some((l, kind)))
    }

    /// A line without a record head: the continuation of a record under
    /// way, if any; the lines the scan must hand on after it.
    fn continuation(&mut self, number: u64, text: &str) -> usize {
        let (ev, lines) = self.conts.line(text);
        if let Some((key, ev)) = ev {
            self.apply(
                &key,
                &ev,
                Raw::continuation(number, text),
                LineCtx::default(),
            );
        }
        lines
    }

    /// Should the stream pause before a line stamped `ts` (later than the
    /// round's bound)? If not, the stream's log time moves to it.
    #[inline(always)]
    fn pause_before(&mut self, ts: Option<Timestamp>) -> bool {
        let pause = match (self.until, ts) {
            (Until::FirstStamp, Some(_)) => true,
            (Until::After(t), Some(ts)) => ts > t,
            _ => false,
        };
        if pause {
            self.paused_at = ts;
            return true;
        }
        if let Some(ts) = ts {
            self.workers.reach(ts);
        }
        false
    }

    /// Is this one of MirrorMaker's own lines? They tell how many herders
    /// its JVM runs, and are read for nothing else.
    #[inline(always)]
    fn mirror_maker_line(&mut self, env: &Envelope) -> bool {
        let mirror = match env.logger {
            Some(l) => l == route::MIRROR_MAKER_LOGGER,
            None => env.worker.is_none() && route::is_mirror_wording(env.message),
        };
        if mirror {
            self.workers
                .mirror_maker(env.stream, route::mirror_line(env.message));
        }
        mirror
    }

    /// The event a record's message says: parsed by the logger's family,
    /// or, without a logger, told by the wording and prefix.
    #[inline(always)]
    fn event(&mut self, env: &Envelope, logger: Logger) -> Option<(LoggerKind, Event)> {
        self.bare.record(env.worker.is_some(), env.logger.is_some());
        match env.logger {
            Some(l) => {
                let kind = match logger {
                    Some((c, kind)) if std::ptr::eq(c, l) => kind,
                    _ => LoggerKind::classify(l),
                }?;
                parse_message(kind, env.message).map(|ev| (kind, ev))
            }
            None => attribute(env.message, env.worker.is_some()),
        }
    }

    /// Is the line the worker's? A coordinator line without the worker's
    /// prefix is only when it names the worker's group.
    #[inline(always)]
    fn workers_line(&self, kind: LoggerKind, env: &Envelope, ev: &Event) -> bool {
        kind != LoggerKind::AbstractCoordinator
            || env.worker.is_some()
            || unprefixed_coordinator_line_is_workers(ev, self.workers.group(env.stream))
    }

    /// The replay a line goes to: its stream's herder that provably wrote
    /// it (`None`: no herder provably did; the line is not read, and the
    /// herders it may belong to no longer know what they run, as after
    /// lines missed: no finding rests on its absence either).
    #[inline(always)]
    fn route(
        &mut self,
        stream: Option<&str>,
        ev: &Event,
        ctx: LineCtx,
        mdc: Option<(&str, layout::MdcScope)>,
        raw: &Raw,
    ) -> Option<SlotKey> {
        let key = stream.map(str::to_string);
        let suspects = match self.workers.route(&key, ev, ctx.group_id, mdc) {
            Route::Herder(i) => return Some((key, i)),
            Route::Unattributed { suspects } => suspects,
            Route::Jvm => {
                if !self.dedupe.repeat(raw.ts, raw.text) {
                    let line = raw.line(self.source, self.wrapped.stored_line(raw.number), 0);
                    self.workers.jvm_line(&key, ev, line.keep());
                }
                return None;
            }
            Route::Park {
                resource,
                candidates,
                suspects,
            } => {
                if !self.dedupe.repeat(raw.ts, raw.text) {
                    let line = raw.line(self.source, self.wrapped.stored_line(raw.number), 0);
                    self.workers
                        .park(&key, ev, (resource, candidates, suspects), line.keep());
                }
                return None;
            }
        };
        if self.dedupe.repeat(raw.ts, raw.text) {
            return None;
        }
        let source = self.source;
        self.workers
            .unattributed(&key, suspects, |seq| raw.line(source, raw.number, seq));
        None
    }

    /// The event of a line to the replay at `key`, unless the line repeats
    /// an overlapping segment, with what the replay must be told first.
    #[inline]
    fn apply(&mut self, key: &SlotKey, ev: &Event, raw: Raw, ctx: LineCtx) {
        let stream = key.0.as_deref();
        if self.dedupe.repeat(raw.ts, raw.text) {
            return;
        }
        self.events += u64::from(ev.counted());
        let notice = if raw.bare {
            self.bare.notice(stream, self.workers.has_read(key))
        } else {
            None
        };
        // Each herder of a rejoined stream is told (a further herder under
        // a name no stream label has).
        let mut notes = match key.1 {
            _ if self.wrapped.quiet() => Vec::new(),
            0 => self.wrapped.take(stream),
            i => self
                .wrapped
                .take(Some(&format!("{}\u{0}{i}", stream.unwrap_or_default()))),
        };
        let lines_missed = notice.as_ref().is_some_and(|n| n.lines_missed);
        if let Some(n) = notice {
            notes.insert(0, n.text);
        }
        let before = Before {
            lines_missed,
            notes,
        };
        let (source, number) = (self.source, self.wrapped.stored_line(raw.number));
        self.workers
            .apply(key, ev, ctx, |seq| raw.line(source, number, seq), before);
    }
}

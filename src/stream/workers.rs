//! The replays of the workers of one stream (one per stream label of a
//! multiplexed file, one per herder of a MirrorMaker JVM), made on their
//! first event, and the items they hand on, keyed by the stream's log time.

use super::Item;
use super::route::{Herders, Holdings, MirrorLine, Route};
use super::vecmap::{self, VecMap};
use crate::event::Event;
use crate::layout::MdcScope;
use crate::model::{Key, Line, Resource, SourceLine, Timestamp};
use crate::replay::{LineCtx, WorkerReplay, WorkerReport};
use std::sync::Arc;

/// A replay's place: the stream label of a multiplexed file, and the
/// herder's index among the stream's herders (MirrorMaker 2 runs several
/// in one JVM; see `route.rs`).
pub(super) type SlotKey = (Option<String>, u32);

struct Slot {
    replay: WorkerReplay,
    /// The replay's label, shared by its items.
    worker: Arc<str>,
    seq: u64,
    /// The stream's log time when the replay began holding facts back
    /// (the outcome of a start under way): they are keyed at it.
    held_since: Option<i64>,
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

/// What the decoder tells a replay before a line: the lines before it
/// seem missing, and notes on how the stream was read.
#[derive(Default)]
pub(super) struct Before {
    pub lines_missed: bool,
    pub notes: Vec<String>,
}

/// A Worker's stop of a resource several herders of a stream hold, each
/// inside a rebalance, waiting for the one whose assignment line revokes
/// it (see `route.rs`).
struct Parked {
    stream: Option<String>,
    ev: Event,
    resource: Resource,
    /// The herders that may have stopped it and have not yet shown that
    /// they did not.
    candidates: Vec<u32>,
    /// Those that lose track of what they run if nobody takes it.
    suspects: Vec<u32>,
    /// Its line (numbered for a herder when one takes it).
    line: SourceLine,
}

/// What the replays of one stream's herders say of what they hold.
struct Holders<'a> {
    slots: &'a VecMap<SlotKey, Slot>,
    stream: Option<&'a str>,
}

impl Holders<'_> {
    fn replay(&self, herder: u32) -> Option<&WorkerReplay> {
        self.slots
            .get(vecmap::slot(self.stream, herder))
            .map(|s| &s.replay)
    }
}

impl Holdings for Holders<'_> {
    fn holds(&self, herder: u32, r: &Resource) -> Option<bool> {
        self.replay(herder)?.holds_now(r)
    }

    fn starting(&self, herder: u32, r: &Resource) -> bool {
        self.replay(herder).is_some_and(|w| w.is_starting(r))
    }

    fn in_rebalance(&self, herder: u32) -> bool {
        self.replay(herder).is_some_and(WorkerReplay::in_rebalance)
    }
}

/// The items a stream's replays made, and how they are keyed.
#[derive(Debug, Default)]
struct Outgoing {
    /// The stream's place in the run (orders items of equal time).
    rank: u32,
    /// Items handed on so far.
    seq: u64,
    /// Items not yet taken, in key order.
    items: Vec<Item>,
    /// How many items the last round took: the room the next round's
    /// vector is given when its first item comes (not before: a round's
    /// items are handed on and fed while no new ones are made, and an
    /// empty vector of that room for every stream would then double
    /// them).
    room: usize,
    /// How items are keyed while replays hold facts back.
    holds: Holds,
}

/// The least room a round's vector of items is given when its first item
/// comes: grown from a few, a small log's round (most of its items in one
/// or two rounds) moved its items through four or five reallocations.
/// Doubling gives a round of 33 to 64 items this room anyway (peak RSS of
/// 2,000 small logs unchanged, measured).
const FIRST_ROOM: usize = 64;

impl Outgoing {
    /// Room for `n` more items; a round's first items bring the room the
    /// last round took.
    fn reserve(&mut self, n: usize) {
        let room = if self.items.capacity() == 0 {
            self.room.max(FIRST_ROOM)
        } else {
            0
        };
        self.items.reserve(n.max(room));
    }

    /// An item of `worker`, made at log time `ts`.
    fn push(&mut self, ts: i64, worker: &Arc<str>, fact: crate::replay::Fact) {
        if self.items.len() == self.items.capacity() {
            self.reserve(1);
        }
        self.seq += 1;
        self.items.push(Item {
            key: Key {
                ts,
                stream: self.rank,
                seq: self.seq,
            },
            worker: worker.clone(),
            fact,
        });
    }

    /// Hands on the facts a replay made, keyed: at the stream's log time
    /// `stream_ts`, or, while the replay holds facts back, at the time it
    /// began to (a start is ordered among the other workers' facts by when
    /// it was logged, not by when its outcome became known).
    fn push_facts(&mut self, slot: &mut Slot, stream_ts: i64) {
        let holds = &mut self.holds;
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
        let ts = holds
            .floor()
            .map_or(made_at, |f| f.min(made_at))
            .max(holds.last_item_ts);
        holds.last_item_ts = ts;
        self.reserve(facts.len());
        for fact in facts {
            self.push(ts, &slot.worker, fact);
        }
    }
}

/// The replays of one stream and the items they made.
pub(super) struct Workers {
    /// The stream's name: its first worker's label.
    label: String,
    /// The latest time stamp read in the stream (log time only moves
    /// forward here, whatever the lines say): the time of its items.
    stream_ts: i64,
    out: Outgoing,
    keep_generations: bool,
    facts: bool,
    pub(super) timeline: bool,
    slots: VecMap<SlotKey, Slot>,
    /// The herders of each stream label.
    herders: VecMap<Option<String>, Herders>,
    /// Stops waiting for the herder that made them, in line order.
    parked: Vec<Parked>,
    /// Lines about a whole MirrorMaker JVM, per stream label: every
    /// herder's, those made later too.
    jvm: Vec<(Option<String>, Event, SourceLine)>,
}

impl Workers {
    pub(super) fn new(label: String, keep_generations: bool) -> Workers {
        Workers {
            label,
            stream_ts: i64::MIN,
            out: Outgoing::default(),
            keep_generations,
            facts: false,
            timeline: false,
            slots: VecMap::default(),
            herders: VecMap::default(),
            parked: Vec::new(),
            jvm: Vec::new(),
        }
    }

    /// Have the replays hand on facts and findings as items, ranked so.
    pub(super) fn hand_on_facts(&mut self, rank: u32) {
        self.facts = true;
        self.out.rank = rank;
    }

    pub(super) fn rank(&self) -> u32 {
        self.out.rank
    }

    /// The stream's log time moves to `ts` (never back).
    pub(super) fn reach(&mut self, ts: Timestamp) {
        self.stream_ts = self.stream_ts.max(ts.0);
    }

    /// The key the next item will have; items of this stream handed on
    /// later never sort before it.
    pub(super) fn frontier(&self) -> Key {
        Key {
            ts: self.out.holds.item_ts(self.stream_ts),
            stream: self.out.rank,
            seq: self.out.seq + 1,
        }
    }

    /// The frontier of a stream paused before a line stamped `t`: past
    /// `t` unless a replay holds facts made before.
    pub(super) fn frontier_paused(&self, t: Timestamp) -> Key {
        let f = self.frontier();
        if self.out.holds.floor().is_some() {
            return f;
        }
        f.max(Key {
            ts: t.0,
            stream: 0,
            seq: 0,
        })
    }

    fn key_facts(&mut self, stream: Option<&str>, herder: u32) {
        if let Some(slot) = self.slots.get_mut(vecmap::slot(stream, herder)) {
            self.out.push_facts(slot, self.stream_ts);
        }
    }

    /// The latest generation a worker of the stream is in.
    pub(super) fn generation(&self) -> Option<i32> {
        self.slots
            .values()
            .filter_map(|s| s.replay.generation())
            .max()
    }

    /// The items made since the last call, in key order.
    /// The next items go to a vector with the room this round's took
    /// (given when the first comes): grown from empty, each growth moved
    /// every item (≈ 300 bytes) again.
    pub(super) fn take_items(&mut self) -> Vec<Item> {
        self.out.room = self.out.items.len();
        std::mem::take(&mut self.out.items)
    }

    /// What the replays hold back for lines that may still follow is
    /// handed on now.
    pub(super) fn flush_held(&mut self) {
        for (_, slot) in self.slots.iter_mut() {
            slot.replay.settle();
            self.out.push_facts(slot, self.stream_ts);
        }
    }

    /// Does stream `stream` have a replay?
    pub(super) fn has_stream(&self, stream: Option<&str>) -> bool {
        self.slots.keys().any(|k| k.0.as_deref() == stream)
    }

    /// Has the replay at `key` read a line?
    pub(super) fn has_read(&self, key: &SlotKey) -> bool {
        self.slots
            .get(vecmap::slot_of(key))
            .is_some_and(|s| s.seq > 0)
    }

    /// The group of the first herder of stream `stream`, if known.
    pub(super) fn group(&self, stream: Option<&str>) -> Option<&str> {
        self.slots
            .get(vecmap::slot(stream, 0))
            .and_then(|s| s.replay.group())
    }

    /// The log of stream `stream` went on to the line `line(seq)` builds
    /// (the end of a segment): every herder of the stream was still
    /// logging then.
    pub(super) fn log_goes_on(&mut self, stream: Option<&str>, line: impl Fn(u64) -> SourceLine) {
        for (_, slot) in self
            .slots
            .iter_mut()
            .filter(|(k, _)| k.0.as_deref() == stream)
        {
            slot.replay.log_goes_on(line(slot.seq + 1));
        }
    }

    /// A MirrorMaker line of stream `stream`.
    pub(super) fn mirror_maker(&mut self, stream: Option<&str>, line: MirrorLine) {
        self.herders
            .get_or_insert_with(vecmap::label(stream), || {
                (stream.map(str::to_string), Herders::default())
            })
            .mirror_maker(line);
    }

    /// The herder of stream `stream` a line belongs to ([`Route`]).
    #[inline]
    pub(super) fn route(
        &mut self,
        stream: &Option<String>,
        ev: &Event,
        group_id: Option<&str>,
        mdc: Option<(&str, MdcScope)>,
    ) -> Route {
        let herders = self
            .herders
            .get_or_insert_with(vecmap::label(stream.as_deref()), || {
                (stream.clone(), Herders::default())
            });
        let holders = Holders {
            slots: &self.slots,
            stream: stream.as_deref(),
        };
        herders.route(ev, group_id, mdc, &holders)
    }

    /// A line about the whole MirrorMaker JVM of stream `stream`: read by
    /// every herder of it, now and when one is made later.
    pub(super) fn jvm_line(&mut self, stream: &Option<String>, ev: &Event, line: SourceLine) {
        let keys: Vec<SlotKey> = self
            .slots
            .keys()
            .filter(|k| k.0 == *stream)
            .cloned()
            .collect();
        for k in keys {
            self.apply(
                &k,
                ev,
                LineCtx::default(),
                |seq| line.as_line().with_seq(seq),
                Before::default(),
            );
        }
        self.jvm.push((stream.clone(), ev.clone(), line));
    }

    /// Parks a stop of `resource` (`line`: numbered when a herder takes
    /// it) until one of `candidates` shows it made it.
    pub(super) fn park(
        &mut self,
        stream: &Option<String>,
        ev: &Event,
        (resource, candidates, suspects): (Resource, Vec<u32>, Vec<u32>),
        line: SourceLine,
    ) {
        self.parked.push(Parked {
            stream: stream.clone(),
            ev: ev.clone(),
            resource,
            candidates,
            suspects,
            line,
        });
    }

    /// Before the assignment line `ev` of the herder at `key`: the stops
    /// parked for it that the assignment revokes are its own, read now,
    /// before the line that judges them. Returns how many.
    pub(super) fn before_assignment(&mut self, key: &SlotKey, ev: &Event) -> u64 {
        let Event::Assignment { assignment: a, .. } = ev else {
            return 0;
        };
        if self.parked.is_empty() {
            return 0;
        }
        // A herder stops a resource once in a rebalance: of the parked
        // lines of one kind about one resource (two herders may both have
        // stopped a connector of the same name), it takes the first.
        let mut taken: Vec<(Resource, std::mem::Discriminant<Event>)> = Vec::new();
        let (mine, rest): (Vec<Parked>, Vec<Parked>) =
            std::mem::take(&mut self.parked).into_iter().partition(|p| {
                let kind = (p.resource.clone(), std::mem::discriminant(&p.ev));
                let mine = p.stream == key.0
                    && p.candidates.contains(&key.1)
                    && a.revokes(&p.resource)
                    && !taken.contains(&kind);
                if mine {
                    taken.push(kind);
                }
                mine
            });
        self.parked = rest;
        let n = mine.len() as u64;
        for p in mine {
            if let Some(h) = self.herders.get_mut(vecmap::label(p.stream.as_deref())) {
                h.unattributed -= 1;
            }
            self.apply(
                key,
                &p.ev,
                LineCtx::default(),
                |seq| p.line.as_line().with_seq(seq),
                Before::default(),
            );
        }
        n
    }

    /// After a line of the herder at `key`: once it is out of its
    /// rebalance, it stopped none of the stops still parked for it; a
    /// stop no herder may have made any more is nobody's.
    pub(super) fn after_line(&mut self, key: &SlotKey) {
        if self.parked.is_empty()
            || self
                .slots
                .get(vecmap::slot_of(key))
                .is_some_and(|s| s.replay.in_rebalance())
        {
            return;
        }
        for p in &mut self.parked {
            if p.stream == key.0 {
                p.candidates.retain(|&c| c != key.1);
            }
        }
        let (gone, rest): (Vec<Parked>, Vec<Parked>) = std::mem::take(&mut self.parked)
            .into_iter()
            .partition(|p| p.candidates.is_empty());
        self.parked = rest;
        for p in gone {
            self.give_up(p);
        }
    }

    /// A parked stop nobody took: unattributed.
    fn give_up(&mut self, p: Parked) {
        self.unattributed(&p.stream, p.suspects, |seq| p.line.as_line().with_seq(seq));
    }

    /// A line of stream `stream` no herder provably wrote: the herders it
    /// may belong to (`suspects`) no longer know what they run, as after
    /// lines missed (`line(seq)`: the line, numbered for each).
    pub(super) fn unattributed<'l>(
        &mut self,
        stream: &Option<String>,
        suspects: Vec<u32>,
        line: impl Fn(u64) -> Line<'l>,
    ) {
        for i in suspects {
            let Some(slot) = self.slots.get_mut(vecmap::slot(stream.as_deref(), i)) else {
                continue;
            };
            slot.seq += 1;
            slot.replay.lines_missed_before(&line(slot.seq));
            self.key_facts(stream.as_deref(), i);
        }
    }

    /// The replay of a herder of a stream of the file, made on its first
    /// event (found without allocating: a file holds one stream, or a few).
    /// The stream's first herder is named after the stream; each further
    /// one (`group`: its group), and every herder of a MirrorMaker JVM
    /// (`mirror`), `<stream>@<group>`.
    fn slot<'s>(
        slots: &'s mut VecMap<SlotKey, Slot>,
        label: &str,
        (keep, facts, timeline): (bool, bool, bool),
        (stream, herder, group, mirror): (Option<&str>, u32, Option<&str>, bool),
    ) -> &'s mut Slot {
        slots.get_or_insert_with(vecmap::slot(stream, herder), || {
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
            let slot = Slot {
                replay: if facts { replay.with_facts() } else { replay },
                worker: Arc::from(label),
                seq: 0,
                held_since: None,
            };
            ((stream.map(str::to_string), herder), slot)
        })
    }

    /// Applies an event to the replay at `key` (made now if it is the
    /// first), its line built by `line(seq)`, after what `before` says;
    /// then hands on the facts it made.
    pub(super) fn apply<'l>(
        &mut self,
        key: &SlotKey,
        ev: &Event,
        ctx: LineCtx,
        line: impl FnOnce(u64) -> Line<'l>,
        before: Before,
    ) {
        let herders = self.herders.get(vecmap::label(key.0.as_deref()));
        let group = herders.and_then(|h| h.group(key.1));
        let mirror = herders.is_some_and(Herders::mirror);
        let new = !self.slots.contains(vecmap::slot_of(key));
        let slot = Self::slot(
            &mut self.slots,
            &self.label,
            (self.keep_generations, self.facts, self.timeline),
            (key.0.as_deref(), key.1, group, mirror),
        );
        // A herder made after lines about its whole JVM reads them first.
        if new {
            for (_, jev, jline) in self.jvm.iter().filter(|(s, _, _)| *s == key.0) {
                slot.seq += 1;
                let l = jline.as_line().with_seq(slot.seq);
                slot.replay.apply(jev, &l, LineCtx::default());
            }
        }
        slot.seq += 1;
        let line = line(slot.seq);
        if before.lines_missed {
            slot.replay.lines_missed_before(&line);
        }
        // (Nearly always none: no iterator made and dropped for them.)
        if !before.notes.is_empty() {
            for note in before.notes {
                slot.replay.note_reading(&line, note);
            }
        }
        slot.replay.apply(ev, &line, ctx);
        if self.facts {
            self.out.push_facts(slot, self.stream_ts);
        }
    }

    /// Ends the replays, in stream order (streams without a lifecycle
    /// event, e.g. a broker's lines in a compose log, are left out); the
    /// items their ends made (the last an `End`) are added to
    /// [`Workers::take_items`].
    pub(super) fn finish(&mut self) -> Vec<Result<WorkerReport, String>> {
        for p in std::mem::take(&mut self.parked) {
            self.give_up(p);
        }
        let mut slots = std::mem::take(&mut self.slots);
        for ((stream, _), s) in slots.iter_mut() {
            if let Some(h) = self.herders.get(vecmap::label(stream.as_deref()))
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
                let ts = self.stream_ts.max(self.out.holds.last_item_ts);
                for fact in facts {
                    self.out.push(ts, &label, fact);
                }
            }
            if events > 0 {
                out.push(report);
            }
        }
        out
    }
}

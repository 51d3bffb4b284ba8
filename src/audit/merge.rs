//! The second stage of the audit: the items of all streams merged in the
//! order of their keys, fed to the cross-worker checker; its output, the
//! findings of the run, goes to the sink.
//!
//! An item's [`Key`] is (log time of its stream when it was made, the
//! stream's rank, its position in the stream). A stream's log time only
//! moves forward (the latest time stamp it has read), so each stream hands
//! on items in key order, and a stream that paused before a line stamped
//! `t` (or went quiet at `t`) can only hand on items keyed from `t` on.
//! Items below the least such frontier over all streams (the watermark) are
//! final in position: releasing them in key order gives the same sequence
//! however reading was scheduled.

use super::sink::{Names, Sink};
use crate::cluster::Checker;
use crate::finding::Kind;
use crate::interruptions::Tracker;
use crate::model::Key;
use crate::stream::Item;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;

/// The worker of a finding of the topics alone (no log worker's).
const WITNESS: usize = usize::MAX;

/// Items waiting for the watermark, as runs in key order: what one
/// stream handed on at a time is such a run already (a batch that is not,
/// such as the topics' records, is sorted when added).
#[derive(Debug, Default)]
pub struct Merger {
    runs: Vec<Vec<Item>>,
}

impl Merger {
    pub fn add(&mut self, items: impl IntoIterator<Item = Item>) {
        let mut run: Vec<Item> = items.into_iter().collect();
        if run.is_empty() {
            return;
        }
        if !run.is_sorted_by_key(|i| i.key) {
            run.sort_unstable_by_key(|i| i.key);
        }
        self.runs.push(run);
    }

    /// Would [`Merger::release`] take any item below `watermark`?
    pub fn ready(&self, watermark: Key) -> bool {
        self.runs
            .iter()
            .any(|r| r.first().is_some_and(|i| i.key < watermark))
    }

    /// Are no items waiting for the watermark?
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Takes, in key order, the items keyed below `watermark`: the order
    /// found on the runs' keys alone (a heap of the runs' next keys); the
    /// items stay in the runs' own vectors and are moved out one at a time
    /// as the batch is read, so a round's items are never held twice (a
    /// merged copy beside the runs doubled the peak of a round of many
    /// items). What stays (keyed from the watermark on) is split off.
    pub fn release(&mut self, watermark: Key) -> Batch {
        let mut runs: Vec<Vec<Item>> = Vec::new();
        for run in &mut self.runs {
            let cut = run.partition_point(|i| i.key < watermark);
            if cut == 0 {
                continue;
            }
            runs.push(if cut == run.len() {
                std::mem::take(run)
            } else {
                let rest = run.split_off(cut);
                std::mem::replace(run, rest)
            });
        }
        self.runs.retain(|r| !r.is_empty());
        let len = runs.iter().map(Vec::len).sum();
        let order = match runs.len() {
            0 => Vec::new(),
            1 => vec![(0, len)],
            _ => merge_order(&runs.iter().map(Vec::as_slice).collect::<Vec<_>>()),
        };
        Batch {
            runs: runs.into_iter().map(Vec::into_iter).collect(),
            order,
            at: 0,
            run: 0,
            left: 0,
            len,
        }
    }
}

/// Items released by [`Merger::release`], in key order: each taken out of
/// the run it was handed on in; a run's vector is freed once it has been
/// read (while the next round is being read, with `-j 2` or more).
#[derive(Debug, Default)]
pub struct Batch {
    runs: Vec<std::vec::IntoIter<Item>>,
    /// Stretches of (run, how many of its next items), in key order.
    order: Vec<(usize, usize)>,
    /// The next stretch.
    at: usize,
    /// The run of the stretch under way and its items left.
    run: usize,
    left: usize,
    /// Items left in all.
    len: usize,
}

impl Iterator for Batch {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        while self.left == 0 {
            if let Some(done) = self.runs.get_mut(self.run)
                && done.as_slice().is_empty()
            {
                // Read to its end: its vector goes now.
                *done = Vec::new().into_iter();
            }
            let &(run, n) = self.order.get(self.at)?;
            self.at += 1;
            self.run = run;
            self.left = n;
        }
        self.left -= 1;
        self.len -= 1;
        self.runs[self.run].next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl ExactSizeIterator for Batch {}

/// The order in which sorted runs merge in key order (a key met in two
/// runs comes from the earlier run first): stretches of (run, how many of
/// its next items), read from the keys alone.
fn merge_order(runs: &[&[Item]]) -> Vec<(usize, usize)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut at = vec![0usize; runs.len()];
    let mut heap: BinaryHeap<Reverse<(Key, usize)>> = runs
        .iter()
        .enumerate()
        .filter_map(|(k, r)| r.first().map(|i| Reverse((i.key, k))))
        .collect();
    let mut order = Vec::new();
    while let Some(Reverse((_, k))) = heap.pop() {
        let run = runs[k];
        let from = at[k];
        // The same run's next items while they stay below the others'
        // least.
        let least = heap.peek().map(|Reverse(l)| *l);
        let mut to = from + 1;
        while to < run.len() && least.is_none_or(|l| (run[to].key, k) < l) {
            to += 1;
        }
        order.push((k, to - from));
        at[k] = to;
        if let Some(i) = run.get(to) {
            heap.push(Reverse((i.key, k)));
        }
    }
    order
}

/// The cross-worker stage: items in key order in, findings out.
#[derive(Debug, Default)]
pub struct Reducer {
    checker: Checker,
    workers: HashMap<Arc<str>, usize>,
    /// The same workers by the address of the label kept in `workers`
    /// (kept alive there, so never reused): a stream's items share its
    /// label, found without hashing its text.
    by_address: HashMap<usize, usize>,
    /// Findings per kind over the run.
    pub counts: BTreeMap<Kind, u64>,
    /// Cross-worker findings per worker label and kind (the replays count
    /// their own).
    pub cross_counts: BTreeMap<String, BTreeMap<Kind, u64>>,
    /// Lines (source, line) whose order is unknown (an export that keeps
    /// no order within a time stamp): a finding that quotes one is not
    /// reported, as a reordering could have made it.
    withheld_lines: std::collections::HashSet<(crate::model::SourceId, u64)>,
    /// Findings withheld, per worker label, kind, and whether the replay
    /// counted it (its own finding) or not (a cross-worker one).
    pub withheld: BTreeMap<String, BTreeMap<(Kind, bool), u64>>,
    /// The internal topics beside the logs (docs/topics.md): their records
    /// come as items among the logs' facts.
    pub witness: Option<crate::topics::cross::Cross>,
    /// Log time reached (the latest item's key or watermark).
    now: i64,
    /// Told of every item fed (`herder-audit watch`).
    pub observer: Option<Arc<dyn super::observe::Observe>>,
    /// The interruptions, fed the same facts in the same order.
    pub isolation: Tracker,
    /// The workers each stream's items named, by the stream's rank.
    stream_workers: HashMap<u32, Vec<usize>>,
    /// With [`Live::settle_early`](super::Live::settle_early): the ranks
    /// of the run's streams, among which what waits for log time is
    /// settled as soon as it is final.
    settle: Option<Vec<u32>>,
}

impl Reducer {
    pub fn new() -> Reducer {
        Reducer::default()
    }

    /// Feeds one item (in key order) and hands the findings it made final
    /// to `sink`.
    pub fn push(&mut self, item: Item, names: &dyn Names, sink: &mut dyn Sink) -> io::Result<()> {
        if let Some(x) = &mut self.witness {
            if let crate::replay::FactKind::Record { .. } = item.fact.kind {
                x.record(&item.fact.line, item.key);
                self.now = self.now.max(item.key.ts);
                self.checker.advance_to(item.key.ts);
                return self.drain(names, sink);
            }
            x.note_worker(&item.worker, item.fact.identity.as_ref());
        }
        let disagree = match &mut self.witness {
            Some(x) => x.log_fact(
                &item.worker,
                item.fact.group.as_ref(),
                &item.fact.kind,
                &item.fact.line,
            ),
            None => Vec::new(),
        };
        let witnessed = match (&self.witness, &item.fact.kind) {
            (
                Some(x),
                crate::replay::FactKind::Stop {
                    resource,
                    task_config: Some(handling),
                },
            ) => x.task_config_stop(
                &item.worker,
                item.fact.group.as_ref(),
                resource,
                &item.fact.line,
                handling,
            ),
            _ => None,
        };
        if let Some(o) = &self.observer {
            o.item(&item);
        }
        let w = self.worker(&item.worker);
        if self.settle.is_some() {
            let ws = self.stream_workers.entry(item.key.stream).or_default();
            if !ws.contains(&w) {
                ws.push(w);
            }
        }
        self.now = self.now.max(item.key.ts);
        self.checker.advance_to(item.key.ts);
        self.checker.clock(item.key);
        self.isolation.feed(&item.worker, &item.fact);
        self.checker.feed(w, item.fact);
        if let Some(f) = witnessed {
            self.checker.emit_witnessed(w, f);
        }
        for f in disagree {
            self.checker.emit_witnessed(w, f);
        }
        self.drain(names, sink)
    }

    /// The checker's index of the worker labelled `label`.
    fn worker(&mut self, label: &Arc<str>) -> usize {
        let address = Arc::as_ptr(label).cast::<u8>() as usize;
        if let Some(&w) = self.by_address.get(&address) {
            return w;
        }
        match self.workers.get(label) {
            Some(&w) => w,
            None => {
                let w = self.checker.worker(label.to_string());
                self.workers.insert(label.clone(), w);
                self.by_address.insert(address, w);
                w
            }
        }
    }

    /// The log time reached: the latest item's key or watermark.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// The internal topics' witness, renewed with the records read live
    /// since (see [`crate::topics::cross::Cross::renewed`]).
    pub fn renew_witness(&mut self, w: Arc<crate::topics::cross::Witness>) {
        self.witness = Some(match self.witness.take() {
            Some(x) => x.renewed(w),
            None => crate::topics::cross::Cross::new(w),
        });
    }

    /// Lines whose order is unknown: no finding that quotes one is
    /// reported.
    pub fn withhold(&mut self, lines: Vec<(crate::model::SourceId, u64)>) {
        self.withheld_lines.extend(lines);
    }

    fn withholds(&self, f: &crate::finding::Finding) -> bool {
        !self.withheld_lines.is_empty()
            && std::iter::once(&f.trigger)
                .chain(f.evidence.iter().map(|e| &e.line))
                .any(|l| self.withheld_lines.contains(&(l.source, l.line)))
    }

    fn drain(&mut self, names: &dyn Names, sink: &mut dyn Sink) -> io::Result<()> {
        if let Some(x) = &mut self.witness {
            let due = x.due(self.now);
            self.witness_due(due);
        }
        if self.checker.out.is_empty() {
            return Ok(());
        }
        // The checker's vector is given back (its capacity kept).
        let mut out = std::mem::take(&mut self.checker.out);
        for e in out.drain(..) {
            if self.withholds(&e.finding) {
                *self
                    .withheld
                    .entry(e.finding.worker.to_string())
                    .or_default()
                    .entry((e.finding.kind, !e.cross))
                    .or_default() += 1;
                continue;
            }
            *self.counts.entry(e.finding.kind).or_default() += 1;
            if e.cross {
                // The label is copied only the first time.
                let label = self.checker.label(e.worker);
                let by_kind = match self.cross_counts.get_mut(label) {
                    Some(m) => m,
                    None => self.cross_counts.entry(label.to_string()).or_default(),
                };
                *by_kind.entry(e.finding.kind).or_default() += 1;
            }
            let mut f = e.finding;
            if let Some(x) = &mut self.witness
                && e.worker != WITNESS
            {
                x.absorb(&mut f);
            }
            sink.finding_at(names, f, e.order)?;
        }
        if self.checker.out.is_empty() {
            self.checker.out = out;
        }
        sink.batch_end()
    }

    /// Everything up to `watermark` has been fed: what waited for log time
    /// to pass it is final.
    pub fn advance_to(
        &mut self,
        watermark: Key,
        names: &dyn Names,
        sink: &mut dyn Sink,
    ) -> io::Result<()> {
        self.now = self.now.max(watermark.ts);
        self.checker.advance_to(watermark.ts);
        if let Some(ranks) = &self.settle {
            let streams: Vec<&[usize]> = ranks
                .iter()
                .map(|r| self.stream_workers.get(r).map_or(&[][..], Vec::as_slice))
                .collect();
            self.checker.settle_foreign(&streams);
        }
        if let Some(o) = &self.observer {
            o.isolation(&self.isolation, self.now);
        }
        // What the observer just counted, and what nothing can reach now.
        self.isolation.forget(self.now);
        self.drain(names, sink)
    }

    /// Settles what waits for log time as soon as it is final, among the
    /// streams of these ranks (those of the run now; a stream that named
    /// no worker yet holds it back).
    pub fn settle_among(&mut self, ranks: impl Iterator<Item = u32>) {
        let ranks: Vec<u32> = ranks.collect();
        self.stream_workers.retain(|r, _| ranks.contains(r));
        self.settle = Some(ranks);
        self.isolation.forget_as_it_goes();
    }

    /// No item follows: everything still waiting is final.
    pub fn finish(&mut self, names: &dyn Names, sink: &mut dyn Sink) -> io::Result<()> {
        self.checker.finish();
        if let Some(x) = &mut self.witness {
            let due = x.finish();
            self.witness_due(due);
        }
        self.drain(names, sink)
    }

    /// Findings of the topics alone, final: past their hold, each placed
    /// just after the log time its hold ended, among the checker's.
    fn witness_due(&mut self, due: Vec<crate::topics::cross::Due>) {
        if due.is_empty() {
            return;
        }
        for d in due {
            let at = Key {
                ts: d.deadline.saturating_add(1),
                stream: 0,
                seq: 0,
            };
            self.checker.out.push(crate::cluster::Emitted {
                worker: WITNESS,
                finding: d.finding,
                cross: false,
                order: (at, d.origin),
            });
        }
        // the checker's findings are in order already: a stable sort
        self.checker.out.sort_by_key(|e| e.order);
    }

    /// Pairs of streams found to be one worker, by label.
    pub fn same_worker(&self) -> Vec<(String, String)> {
        self.checker.same_worker.iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(ts: i64, stream: u32, seq: u64) -> Item {
        Item::bare(Key { ts, stream, seq }, "w")
    }

    /// Rounds of streams' runs (and an unsorted batch, as the topics'
    /// records come), released at rising watermarks: the same items in
    /// the same order as sorting all that waits.
    #[test]
    fn merging_runs_releases_what_sorting_would() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for streams in [1u32, 2, 5, 40] {
            let mut merger = Merger::default();
            let mut waiting: Vec<Key> = Vec::new();
            let mut clock = vec![(0i64, 0u64); streams as usize];
            let mut released = Vec::new();
            let mut expected = Vec::new();
            for round in 0..30 {
                for (s, (ts, seq)) in clock.iter_mut().enumerate() {
                    let run: Vec<Item> = (0..rand(6))
                        .map(|_| {
                            *ts += rand(3) as i64;
                            *seq += 1;
                            item(*ts, s as u32, *seq)
                        })
                        .collect();
                    waiting.extend(run.iter().map(|i| i.key));
                    merger.add(run);
                }
                if round % 7 == 3 {
                    let batch: Vec<Item> = (0..rand(5))
                        .map(|k| item(rand(60) as i64, u32::MAX, round * 10 + k))
                        .collect();
                    waiting.extend(batch.iter().map(|i| i.key));
                    merger.add(batch);
                }
                let wm = Key {
                    ts: round as i64 * 2 + rand(3) as i64,
                    stream: rand(u64::from(streams)) as u32,
                    seq: rand(20),
                };
                waiting.sort_unstable();
                let cut = waiting.partition_point(|k| *k < wm);
                expected.extend(waiting.drain(..cut));
                assert_eq!(merger.ready(wm), cut > 0);
                let batch = merger.release(wm);
                assert_eq!(batch.len(), cut);
                released.extend(batch.map(|i| i.key));
                assert_eq!(merger.is_empty(), waiting.is_empty());
            }
            waiting.sort_unstable();
            expected.append(&mut waiting);
            released.extend(merger.release(Key::MAX).map(|i| i.key));
            assert_eq!(released, expected);
            assert!(merger.is_empty());
        }
    }
}

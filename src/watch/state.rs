//! What survives a restart of `herder-audit watch`: the identities of the
//! findings already emitted and how far each stream had been read, in a
//! state file replaced atomically (written beside it, synced, renamed).
//!
//! A restarted watcher reads its logs again from their start (the replays
//! need the past to judge what follows) and emits only findings whose
//! identity the state does not hold. The identity ([`key`]) is the kind,
//! the worker label, the group, the resource and the trigger line's whole
//! text (its time stamp included): the same in every run over the same
//! lines, whatever rotation removed before them. With `-o FILE` the output
//! file is the journal: the findings written after the state's last save
//! are read back from its tail, so a `kill -9` between a write and a save
//! repeats nothing.

use crate::finding::Finding;
use crate::model::Resource;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The state file's format version.
const VERSION: u32 = 1;

/// FNV-1a, 64 bits: a hash that never changes between builds.
fn fnv(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.as_bytes().iter().chain(std::iter::once(&0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A finding's identity across restarts (see the module's text).
pub fn key(kind: &str, worker: &str, group: Option<&str>, resource: &str, trigger: &str) -> u64 {
    fnv(&[kind, worker, group.unwrap_or("\u{0}"), resource, trigger])
}

/// `connector:NAME`, `task:ID`, or empty.
pub(crate) fn resource_text(r: Option<&Resource>) -> String {
    match r {
        Some(Resource::Connector(n)) => format!("connector:{n}"),
        Some(Resource::Task(t)) => format!("task:{t}"),
        None => String::new(),
    }
}

/// The identity of a finding as the audit hands it on.
pub fn key_of(f: &Finding) -> u64 {
    key(
        f.kind.as_str(),
        &f.worker,
        f.group.as_deref(),
        &resource_text(f.resource.as_ref()),
        &f.trigger.text,
    )
}

/// The identity of a finding as a JSON line of `--format jsonl` shows it.
pub fn key_of_json(v: &serde_json::Value) -> Option<u64> {
    if v["type"] != "finding" {
        return None;
    }
    let resource = match (&v["resource"]["type"], &v["resource"]["id"]) {
        (serde_json::Value::String(t), serde_json::Value::String(id)) => format!("{t}:{id}"),
        _ => String::new(),
    };
    Some(key(
        v["kind"].as_str()?,
        v["worker"].as_str()?,
        v["group"].as_str(),
        &resource,
        v["trigger"]["text"].as_str()?,
    ))
}

/// How far a stream had been read when the state was saved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub bytes: u64,
    pub lines: u64,
}

/// The state file's content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Saved {
    version: u32,
    /// Findings whose trigger is at or before this log time (ms) were all
    /// dealt with; their identities were dropped.
    horizon: Option<i64>,
    /// The output file and its length when the state was saved.
    output: Option<(PathBuf, u64)>,
    streams: BTreeMap<String, Position>,
    /// Emitted findings: (trigger log time in ms or `null`, identity as
    /// 16 hexadecimal digits).
    emitted: Vec<(Option<i64>, String)>,
}

/// How many identities are kept at most, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct Retention {
    /// Log time after which a finding's identity is dropped (ms).
    pub window_ms: i64,
    /// At most this many identities (the oldest go first).
    pub max: usize,
}

impl Default for Retention {
    fn default() -> Retention {
        Retention {
            window_ms: 72 * 3600 * 1000,
            max: 200_000,
        }
    }
}

/// The emitted findings and read positions, in memory.
#[derive(Debug, Default)]
pub struct Book {
    path: Option<PathBuf>,
    retention: Retention,
    keys: HashSet<u64>,
    /// (trigger log time or `i64::MAX` when unknown, key): oldest first.
    by_time: BTreeSet<(i64, u64)>,
    horizon: Option<i64>,
    /// The latest trigger time recorded.
    latest: Option<i64>,
    /// Positions of the previous run (restored) and of this one.
    pub previous: BTreeMap<String, Position>,
    pub streams: BTreeMap<String, Position>,
    /// Something changed since the last save.
    dirty: bool,
}

/// What [`Book::open`] found.
#[derive(Debug, Default)]
pub struct Restored {
    pub findings: usize,
    pub streams: usize,
    /// Findings read back from the output file's tail.
    pub from_output: usize,
    /// A partial last line cut off the output file (a write killed
    /// midway), in bytes.
    pub cut: u64,
}

impl Book {
    /// A book kept in `path` (`None`: in memory only), restored from it if
    /// it exists; with `output`, the findings written to that file after
    /// the last save are read back from its tail.
    pub fn open(
        path: Option<&Path>,
        output: Option<&Path>,
        retention: Retention,
    ) -> io::Result<(Book, Restored)> {
        let mut book = Book {
            path: path.map(Path::to_path_buf),
            retention,
            ..Book::default()
        };
        let mut restored = Restored::default();
        let mut output_from = 0;
        if let Some(p) = path {
            match std::fs::read(p) {
                Ok(bytes) => {
                    let saved: Saved = serde_json::from_slice(&bytes).map_err(|e| {
                        io::Error::other(format!(
                            "state file {} is not a herder-audit watch state: {e}",
                            p.display()
                        ))
                    })?;
                    if saved.version != VERSION {
                        return Err(io::Error::other(format!(
                            "state file {} has version {}, this build reads {VERSION}",
                            p.display(),
                            saved.version
                        )));
                    }
                    book.horizon = saved.horizon;
                    for (ts, hex) in &saved.emitted {
                        if let Ok(k) = u64::from_str_radix(hex, 16) {
                            book.insert(k, *ts);
                        }
                    }
                    restored.findings = book.keys.len();
                    restored.streams = saved.streams.len();
                    book.previous = saved.streams;
                    if let (Some((was, len)), Some(out)) = (saved.output, output)
                        && same_file(&was, out)
                    {
                        output_from = len;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(io::Error::other(format!(
                        "cannot read state file {}: {}",
                        p.display(),
                        crate::input::describe(&e)
                    )));
                }
            }
        }
        if let Some(out) = output {
            let (n, cut) = book.read_back(out, output_from)?;
            restored.from_output = n;
            restored.cut = cut;
        }
        book.dirty = false;
        Ok((book, restored))
    }

    /// Reads the findings written to `out` from byte `from` on; cuts off a
    /// partial last line. Returns (findings read, bytes cut).
    fn read_back(&mut self, out: &Path, from: u64) -> io::Result<(usize, u64)> {
        let mut file = match std::fs::OpenOptions::new().read(true).write(true).open(out) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((0, 0)),
            Err(e) => {
                return Err(io::Error::other(format!(
                    "cannot open output file {}: {}",
                    out.display(),
                    crate::input::describe(&e)
                )));
            }
        };
        let len = file.metadata()?.len();
        // A file shorter than the state says was replaced: read it all.
        let from = if from > len { 0 } else { from };
        file.seek(SeekFrom::Start(from))?;
        let mut tail = Vec::new();
        file.read_to_end(&mut tail)?;
        let complete = tail.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut n = 0;
        for line in tail[..complete].split(|&b| b == b'\n') {
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
                continue;
            };
            if let Some(k) = key_of_json(&v) {
                let ts = v["trigger"]["timestamp"].as_str().and_then(parse_iso);
                if self.insert(k, ts) {
                    n += 1;
                }
            }
        }
        let cut = (tail.len() - complete) as u64;
        if cut > 0 {
            file.set_len(from + complete as u64)?;
        }
        if n > 0 || cut > 0 {
            self.dirty = true;
        }
        Ok((n, cut))
    }

    fn insert(&mut self, k: u64, ts: Option<i64>) -> bool {
        if !self.keys.insert(k) {
            return false;
        }
        let t = ts.unwrap_or(i64::MAX);
        self.by_time.insert((t, k));
        if let Some(ts) = ts {
            self.latest = Some(self.latest.map_or(ts, |l| l.max(ts)));
        }
        true
    }

    /// Has a finding with this identity (triggered at `ts`) been emitted,
    /// or does it lie before the horizon?
    pub fn emitted(&self, k: u64, ts: Option<i64>) -> bool {
        self.keys.contains(&k) || matches!((ts, self.horizon), (Some(t), Some(h)) if t <= h)
    }

    /// Records an emitted finding, and drops the identities past
    /// retention.
    pub fn record(&mut self, k: u64, ts: Option<i64>) {
        if self.insert(k, ts) {
            self.dirty = true;
            self.prune();
        }
    }

    fn prune(&mut self) {
        let cutoff = self
            .latest
            .map_or(i64::MIN, |l| l.saturating_sub(self.retention.window_ms));
        while let Some(&(t, k)) = self.by_time.first() {
            if t >= cutoff && self.by_time.len() <= self.retention.max {
                break;
            }
            self.by_time.pop_first();
            self.keys.remove(&k);
            if t != i64::MAX {
                self.horizon = Some(self.horizon.map_or(t, |h| h.max(t)));
            }
        }
    }

    #[cfg(test)]
    /// Identities held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Where a stream has been read to.
    pub fn position(&mut self, stream: &str, at: Position) {
        // A stream that ended says 0 lines: what it read stands.
        let at = match self.streams.get(stream) {
            Some(p) => Position {
                bytes: at.bytes.max(p.bytes),
                lines: at.lines.max(p.lines),
            },
            None => at,
        };
        match self.streams.get_mut(stream) {
            Some(p) if *p == at => {}
            Some(p) => {
                *p = at;
                self.dirty = true;
            }
            None => {
                self.streams.insert(stream.to_string(), at);
                self.dirty = true;
            }
        }
    }

    /// A stream that ended is no longer kept.
    pub fn forget_stream(&mut self, stream: &str) {
        self.dirty |= self.streams.remove(stream).is_some();
        self.dirty |= self.previous.remove(stream).is_some();
    }

    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Writes the state file (if there is one) atomically: a temporary file
    /// beside it, synced, renamed over it. `output`: the output file and
    /// its length now.
    pub fn save(&mut self, output: Option<(&Path, u64)>) -> io::Result<()> {
        let Some(path) = self.path.clone() else {
            self.dirty = false;
            return Ok(());
        };
        let mut streams = self.previous.clone();
        streams.extend(self.streams.iter().map(|(k, v)| (k.clone(), *v)));
        let saved = Saved {
            version: VERSION,
            horizon: self.horizon,
            output: output.map(|(p, n)| (absolute(p), n)),
            streams,
            emitted: self
                .by_time
                .iter()
                .map(|&(t, k)| ((t != i64::MAX).then_some(t), format!("{k:016x}")))
                .collect(),
        };
        let tmp = temp_beside(&path);
        let written = (|| {
            let mut f = std::fs::File::create(&tmp)?;
            serde_json::to_writer(&mut io::BufWriter::new(&mut f), &saved)?;
            f.flush()?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                // The rename itself survives a crash of the machine.
                let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
            }
            Ok::<(), io::Error>(())
        })();
        match written {
            Ok(()) => {
                self.dirty = false;
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(io::Error::other(format!(
                    "cannot write state file {}: {}",
                    path.display(),
                    crate::input::describe(&e)
                )))
            }
        }
    }
}

/// `2019-08-20T11:00:00.216` (what [`crate::model::Timestamp::iso`]
/// writes) as milliseconds.
fn parse_iso(s: &str) -> Option<i64> {
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<u32>().ok();
    if s.len() != 23 {
        return None;
    }
    let year = s.get(0..4)?.parse::<i64>().ok()?;
    crate::model::Timestamp::from_parts(
        year,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
        num(20..23)?,
    )
    .map(|t| t.0)
}

/// `dir/.name.tmp`.
fn temp_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "state".into(), |n| n.to_string_lossy().to_string());
    path.with_file_name(format!(".{name}.tmp"))
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn same_file(a: &Path, b: &Path) -> bool {
    absolute(a) == absolute(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("herder-watch-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn iso_time_stamps_read_back() {
        let t = crate::model::Timestamp::from_parts(2019, 8, 20, 11, 0, 0, 216).unwrap();
        assert_eq!(parse_iso(&t.iso()), Some(t.0));
        assert_eq!(parse_iso("2019-08-20"), None);
    }

    #[test]
    fn saves_and_restores_identities_and_positions() {
        let d = dir("roundtrip");
        let st = d.join("state.json");
        let (mut b, r) = Book::open(Some(&st), None, Retention::default()).unwrap();
        assert_eq!(r.findings, 0);
        b.record(7, Some(1000));
        b.record(9, None);
        b.position(
            "ns/pod/c",
            Position {
                bytes: 10,
                lines: 2,
            },
        );
        b.save(None).unwrap();
        assert!(!b.is_dirty());
        let (b2, r) = Book::open(Some(&st), None, Retention::default()).unwrap();
        assert_eq!((r.findings, r.streams), (2, 1));
        assert!(b2.emitted(7, Some(1000)) && b2.emitted(9, None) && !b2.emitted(8, Some(5)));
        assert_eq!(
            b2.previous["ns/pod/c"],
            Position {
                bytes: 10,
                lines: 2
            }
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn old_identities_go_and_the_horizon_covers_them() {
        let mut b = Book {
            retention: Retention {
                window_ms: 100,
                max: 3,
            },
            ..Book::default()
        };
        b.record(1, Some(0));
        b.record(2, Some(50));
        b.record(3, Some(200));
        assert_eq!(b.len(), 1, "0 and 50 are past 200 - 100");
        assert!(
            b.emitted(1, Some(0)) && b.emitted(2, Some(50)),
            "behind the horizon"
        );
        assert!(!b.emitted(4, Some(150)));
        for k in 10..20 {
            b.record(k, Some(200));
        }
        assert_eq!(b.len(), 3);
    }

    #[test]
    fn the_output_tail_is_read_back_and_a_partial_line_cut() {
        let d = dir("tail");
        let st = d.join("state.json");
        let out = d.join("out.jsonl");
        let line = |k: &str, text: &str| {
            format!(
                "{{\"type\":\"finding\",\"kind\":\"{k}\",\"worker\":\"w\",\"group\":\"g\",\"resource\":{{\"type\":\"task\",\"id\":\"a-0\"}},\"trigger\":{{\"text\":\"{text}\",\"timestamp\":\"2024-01-01T00:00:00.000\"}}}}\n"
            )
        };
        let first = line("zombie", "one");
        std::fs::write(&out, &first).unwrap();
        let (mut b, _) = Book::open(Some(&st), Some(&out), Retention::default()).unwrap();
        assert_eq!(b.len(), 1);
        b.save(Some((&out, first.len() as u64))).unwrap();
        // Written after the save, then a line cut by a kill.
        let second = line("zombie", "two");
        let mut all = first.clone() + &second;
        all.push_str("{\"type\":\"finding\",\"ki");
        std::fs::write(&out, &all).unwrap();
        let (b, r) = Book::open(Some(&st), Some(&out), Retention::default()).unwrap();
        assert_eq!((r.findings, r.from_output, r.cut), (1, 1, 21));
        assert_eq!(b.len(), 2);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            first + &second,
            "the partial line is cut off"
        );
        let k = key("zombie", "w", Some("g"), "task:a-0", "two");
        assert!(b.emitted(k, None));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_findings_key_is_the_same_from_the_finding_and_its_json_line() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let input = crate::input::Input::File(dir.join("fault-kafka-8676-2.3.0.log"));
        let report = crate::audit::audit(
            &[input],
            &crate::audit::Options {
                jobs: Some(1),
                ..Default::default()
            },
        );
        assert!(report.findings().count() >= 2);
        for f in report.findings() {
            let mut buf = Vec::new();
            crate::report::json::push_jsonl_finding(&report, f, &mut buf);
            let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
            assert_eq!(key_of_json(&v), Some(key_of(f)));
        }
    }
}

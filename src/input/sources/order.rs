//! The order of an export's records. Log stores sort by time stamp, and a
//! millisecond stamp does not keep the order of the lines a worker wrote
//! within one millisecond (a herder logs its revocation stops, `Joined
//! group` and the first starts within one or two). Records are put back in
//! order by what they carry: the byte offset in the file they were read
//! from, a sequence number, a time stamp finer than a millisecond. Where
//! nothing does, the lines sharing a time stamp keep the order they were
//! exported in, and are listed as [`Unordered`]: no finding may rest on
//! them.

use super::{Decoded, Format, LineMap};
use std::io::Read;
use std::sync::Arc;

/// What puts an export's records in order: the record's time stamp
/// (nanoseconds since the epoch), whether it is finer than a millisecond,
/// and a sequence within the source (an offset or sequence number).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Place {
    pub ts: Option<i128>,
    pub fine: bool,
    pub seq: Option<u64>,
}

/// The lines of a stream whose order is unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unordered {
    /// The streams (stream prefix, `None` for the stream without one) and
    /// how many groups of lines sharing a time stamp each has.
    pub streams: Vec<(Option<String>, usize)>,
    /// Lines (numbers as read, ascending) that share a time stamp with
    /// another line of their stream and whose order is unknown.
    pub lines: Vec<u64>,
}

impl Unordered {
    #[cfg(test)]
    /// Is line `n` (as read) one whose order is unknown?
    pub fn contains(&self, n: u64) -> bool {
        self.lines.binary_search(&n).is_ok()
    }

    /// The note for the summary of stream `stream`, when its order is
    /// unknown.
    pub fn note(&self, stream: Option<&str>) -> Option<String> {
        let (_, groups) = self.streams.iter().find(|(s, _)| s.as_deref() == stream)?;
        Some(format!(
            "the order of lines sharing a time stamp is unknown in this export ({groups} groups of lines with one time stamp and nothing that orders them: no offset, sequence number or finer time stamp); no finding is reported that rests on one of these lines"
        ))
    }
}

/// Sorts records (given by their place and source, in stored order) into
/// the order they were written: by time stamp, then source (the lines of
/// one source within one time stamp stay together: a record and the
/// continuation lines a store holds as records of their own, a config
/// dump's, a stack trace's), then sequence, then stored order. Records
/// without a time stamp keep their place after the record before them. Returns the indices in reading order and, per index, whether
/// its order among the records of its source sharing its time stamp is
/// unknown.
pub fn sort(places: &[Place], sources: &[Option<String>]) -> (Vec<usize>, Vec<bool>) {
    let mut last = None;
    let keys: Vec<(Option<i128>, u64, usize)> = places
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.ts.is_some() {
                last = p.ts;
            }
            (last, p.seq.unwrap_or(0), i)
        })
        .collect();
    let mut idx: Vec<usize> = (0..places.len()).collect();
    idx.sort_by(|&a, &b| {
        (keys[a].0, &sources[a], keys[a].1, a).cmp(&(keys[b].0, &sources[b], keys[b].1, b))
    });
    let mut unknown = vec![false; places.len()];
    // Per source, runs of one time stamp in reading order.
    let mut by_source: std::collections::BTreeMap<&Option<String>, Vec<usize>> = Default::default();
    for &i in &idx {
        by_source.entry(&sources[i]).or_default().push(i);
    }
    for run_of in by_source.values() {
        let mut start = 0;
        while start < run_of.len() {
            let ts = keys[run_of[start]].0;
            let mut end = start + 1;
            while end < run_of.len() && keys[run_of[end]].0 == ts {
                end += 1;
            }
            let group = &run_of[start..end];
            let seqs_order = group.iter().all(|&i| places[i].seq.is_some()) && {
                let mut s: Vec<u64> = group.iter().map(|&i| keys[i].1).collect();
                s.dedup();
                s.len() == group.len()
            };
            if group.len() > 1 && !seqs_order && ts.is_some() {
                for &i in group {
                    unknown[i] = true;
                }
            }
            start = end;
        }
    }
    (idx, unknown)
}

/// Is the head a copy of a log newest first? Its record lines' time stamps
/// go down, and (almost) never up.
pub fn newest_first(lines: &[&[u8]]) -> bool {
    let (mut down, mut up) = (0usize, 0usize);
    let mut last: Option<crate::model::Timestamp> = None;
    for (i, l) in lines.iter().enumerate() {
        // (`from_utf8_lossy` walks the bytes one by one even when they
        // are valid.)
        let text = match std::str::from_utf8(l) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(l),
        };
        let Some(ts) = super::timestamp_of(&text) else {
            continue;
        };
        if let Some(before) = last {
            match ts.cmp(&before) {
                std::cmp::Ordering::Less => down += 1,
                std::cmp::Ordering::Greater => up += 1,
                std::cmp::Ordering::Equal => {}
            }
        }
        last = Some(ts);
        // Each line left adds one step down at most: once the steps up
        // are more than a tenth of all the steps down there can be, the
        // answer is no.
        if up * 10 > down + (lines.len() - i - 1) {
            return false;
        }
    }
    down >= 3 && up * 10 <= down
}

/// Reads a newest-first copy whole and hands on its lines oldest first,
/// with the map to the lines as stored.
pub fn reversed<R: Read + Send + 'static>(mut inner: R) -> (Box<dyn Read + Send>, Option<Decoded>) {
    let mut data = Vec::new();
    let error = inner.read_to_end(&mut data).err();
    let mut lines: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
    let n = lines.len() as u64;
    lines.reverse();
    let mut out = Vec::with_capacity(data.len() + 1);
    for l in &lines {
        out.extend_from_slice(l);
        if !l.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    let map = LineMap((0..n).map(|i| n - i).collect());
    let decoded = Decoded {
        format: Format::NewestFirst,
        note: "read as a newest-first copy of the log (its time stamps go back): its lines were read oldest first, each quoted on the line it is stored on".to_string(),
        lines: Some(Arc::new(map)),
        unordered: Arc::new(Unordered::default()),
        tails: Arc::from(Vec::new()),
    };
    let reader = std::io::Cursor::new(out);
    let boxed: Box<dyn Read + Send> = match error {
        None => Box::new(reader),
        Some(e) => Box::new(crate::input::head::HeadThen::new(
            reader.into_inner(),
            Some(e),
            std::io::empty(),
        )),
    };
    (boxed, Some(decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ts: i128, seq: Option<u64>) -> Place {
        Place {
            ts: Some(ts),
            fine: false,
            seq,
        }
    }

    #[test]
    fn offsets_restore_the_order_within_a_millisecond() {
        let places = [
            p(2, Some(30)),
            p(1, Some(20)),
            p(1, Some(10)),
            p(2, Some(40)),
        ];
        let src = vec![None; 4];
        let (idx, unknown) = sort(&places, &src);
        assert_eq!(idx, vec![2, 1, 0, 3]);
        assert!(unknown.iter().all(|u| !u));
    }

    #[test]
    fn ties_without_a_sequence_are_unknown_per_source() {
        let places = [p(1, None), p(1, None), p(1, None), p(2, None)];
        let src = vec![
            Some("a".to_string()),
            Some("a".into()),
            Some("b".into()),
            Some("a".into()),
        ];
        let (idx, unknown) = sort(&places, &src);
        assert_eq!(idx, vec![0, 1, 2, 3], "ties keep the stored order");
        let (idx, _) = sort(
            &places,
            &[Some("b".into()), Some("a".into()), Some("b".into()), None],
        );
        assert_eq!(
            idx,
            vec![1, 0, 2, 3],
            "a source's lines of one stamp stay together"
        );
        assert_eq!(unknown, vec![true, true, false, false]);
    }

    #[test]
    fn records_without_a_stamp_follow_the_one_before() {
        let places = [p(5, None), Place::default(), p(3, None)];
        let (idx, _) = sort(&places, &[None, None, None]);
        assert_eq!(idx, vec![2, 0, 1]);
    }

    #[test]
    fn newest_first_copies() {
        let l = [
            &b"[2024-05-01 10:00:03,000] INFO c (a.B)"[..],
            b"\tat x",
            b"[2024-05-01 10:00:02,000] INFO b (a.B)",
            b"[2024-05-01 10:00:01,000] INFO a (a.B)",
            b"[2024-05-01 10:00:00,000] INFO a (a.B)",
        ];
        assert!(newest_first(&l));
        let mut fwd = l.to_vec();
        fwd.reverse();
        assert!(!newest_first(&fwd));
        let (mut r, d) = reversed(&b"c\nb\na"[..]);
        let mut s = String::new();
        r.read_to_string(&mut s).unwrap();
        assert_eq!(s, "a\nb\nc\n");
        assert_eq!(d.unwrap().lines.unwrap().0, vec![3, 2, 1]);
    }

    /// `newest_first` as it was before it stopped early: every line's
    /// stamp read, then the steps counted.
    fn newest_first_counted(lines: &[&[u8]]) -> bool {
        let stamps: Vec<crate::model::Timestamp> = lines
            .iter()
            .filter_map(|l| super::super::timestamp_of(&String::from_utf8_lossy(l)))
            .collect();
        let (mut down, mut up) = (0usize, 0usize);
        for w in stamps.windows(2) {
            match w[1].cmp(&w[0]) {
                std::cmp::Ordering::Less => down += 1,
                std::cmp::Ordering::Greater => up += 1,
                std::cmp::Ordering::Equal => {}
            }
        }
        down >= 3 && up * 10 <= down
    }

    /// Heads whose stamps go down with a few steps up (or up with a few
    /// down), equal stamps and lines without one: stopping early answers
    /// as counting every step.
    #[test]
    fn newest_first_stops_early_with_the_same_answer() {
        let mut seed: u64 = 7;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let mut yes = 0;
        for case in 0..300 {
            let len = 1 + next(64) as usize;
            let mut sec: i64 = 3000;
            let texts: Vec<String> = (0..len)
                .map(|_| {
                    let r = next(100);
                    // Mostly down, some up, some equal, some unstamped.
                    let step = match (case % 3, r) {
                        (_, 0..=9) => return "\tat x.Y(Y.java:1)".to_string(),
                        (_, 10..=19) => 0,
                        (0, 20..=23) | (1, 20..=40) => 1,
                        (2, _) => 1,
                        _ => -1,
                    };
                    sec += step;
                    format!(
                        "[2024-05-01 10:{:02}:{:02},000] INFO m (a.B)",
                        sec / 60 % 60,
                        sec % 60
                    )
                })
                .collect();
            let lines: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
            let want = newest_first_counted(&lines);
            yes += usize::from(want);
            assert_eq!(newest_first(&lines), want, "case {case}: {texts:?}");
        }
        assert!((20..280).contains(&yes), "{yes} newest-first heads of 300");
    }

    #[test]
    fn notes_name_the_unordered_stream() {
        let u = Unordered {
            streams: vec![(Some("pod/a".into()), 2)],
            lines: vec![3, 4],
        };
        assert!(u.note(Some("pod/a")).unwrap().contains("2 groups"));
        assert!(u.note(None).is_none());
        assert!(u.contains(4) && !u.contains(5));
    }
}

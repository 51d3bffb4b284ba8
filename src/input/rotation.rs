//! Rotated segments of one log (`connect.log`, `connect.log.1`,
//! `connect.log.2024-05-01-10`, `connect.log.3.gz`, `connect.log-20240501`,
//! and log4j2's `connect-2024-05-01-10.log` of Kafka 4.x) form one stream. A stream's segments are read in time order: by the
//! first timestamp each holds, not by name alone.

use super::Input;
use crate::model::Timestamp;
use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

/// One logical log: the segments of one file's rotation, or stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// `dir/base` of the rotation (or `<stdin>`).
    pub name: String,
    /// Indices into the run's input list, in reading order.
    pub segments: Vec<usize>,
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `2024-05-01`, `2024-05-01-10`, `20240501`, `2024-05-01-10-30`.
fn is_date(s: &str) -> bool {
    let digits = s.bytes().filter(u8::is_ascii_digit).count();
    s.len() >= 8
        && digits >= 8
        && s.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        && s.as_bytes()[0].is_ascii_digit()
}

/// The name a rotated segment had before rotation: `.gz` and rotation
/// suffixes (`.N`, `.DATE`, `-DATE`) removed, and a date before the
/// extension (`connect-2024-05-01-10.log`, Kafka 4.x's log4j2
/// `filePattern` `connect-%d{yyyy-MM-dd-HH}.log`) taken out.
pub fn rotation_base(file_name: &str) -> Cow<'_, str> {
    let base = suffix_base(file_name);
    match dated_stem(base) {
        Some((stem, ext)) => Cow::Owned(format!("{stem}.{ext}")),
        None => Cow::Borrowed(base),
    }
}

/// `connect-2024-05-01-10.log` → (`connect`, `log`): a stem, `-`, a date of
/// eight digits or more (dashes allowed, a log4j2 `%i` index too), then an
/// extension that is not a number.
fn dated_stem(name: &str) -> Option<(&str, &str)> {
    let (stem, ext) = name.rsplit_once('.')?;
    if ext.is_empty() || is_digits(ext) || is_date(ext) {
        return None;
    }
    let (i, _) = stem
        .char_indices()
        .find(|&(i, c)| c == '-' && i > 0 && is_date(&stem[i + 1..]))?;
    Some((&stem[..i], ext))
}

fn suffix_base(file_name: &str) -> &str {
    let mut base = file_name;
    for ext in [".gz", ".gzip"] {
        if let Some(b) = base.strip_suffix(ext) {
            base = b;
            break;
        }
    }
    loop {
        let before = base;
        if let Some((head, tail)) = base.rsplit_once('.')
            && !head.is_empty()
            && (is_digits(tail) || is_date(tail))
        {
            base = head;
        }
        if base == before
            && let Some((head, tail)) = base.rsplit_once('-')
            && !head.is_empty()
            && is_date(tail)
            && tail.len() >= 8
            && !tail.contains('-')
        {
            base = head;
        }
        if base == before {
            return base;
        }
    }
}

/// A kubelet's container log `…/<namespace>_<pod>_<uid>/<container>/<N>.log`
/// (`N` counts the container's restarts; rotated as `<N>.log.<date>`,
/// `<N>.log.<date>.gz`): the container's directory and its label
/// `<namespace>/<pod>/<container>`. Namespace and pod names hold no `_`.
pub fn kubelet_container(path: &std::path::Path) -> Option<(PathBuf, String)> {
    let file = path.file_name()?.to_str()?;
    let base = rotation_base(file);
    let n = base.strip_suffix(".log")?;
    if !is_digits(n) {
        return None;
    }
    let dir = path.parent()?;
    let container = dir.file_name()?.to_str()?;
    let pod_dir = dir.parent()?.file_name()?.to_str()?;
    let mut parts = pod_dir.splitn(3, '_');
    let (ns, pod, uid) = (parts.next()?, parts.next()?, parts.next()?);
    if ns.is_empty() || pod.is_empty() || uid.len() < 8 || uid.contains('_') {
        return None;
    }
    Some((dir.to_path_buf(), format!("{ns}/{pod}/{container}")))
}

/// The name of a stream made of a family's segments: a kubelet
/// container's label, the input's name for a single segment, else the
/// family's name.
pub fn stream_name(inputs: &[Input], family: &Family) -> String {
    let first = &inputs[family.segments[0]];
    if let Some((_, label)) = first.named_path().and_then(|p| kubelet_container(&p)) {
        return label;
    }
    if family.segments.len() == 1 {
        first.display()
    } else {
        family.name.clone()
    }
}

/// Groups inputs into families (rotation sets in one directory; a kubelet
/// container's logs across its restarts). Stdin is a family of its own.
/// Families come in the order of their first input.
pub fn group(inputs: &[Input]) -> Vec<Family> {
    // (Looked up once per input: a hash of the path, not an ordered map's
    // comparisons of paths component by component.)
    let mut by_key: HashMap<(PathBuf, String), usize> = HashMap::new();
    let mut out: Vec<Family> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        match input {
            Input::Stdin | Input::Bytes { .. } => out.push(Family {
                name: input.display(),
                segments: vec![i],
            }),
            Input::File(_) | Input::Named { .. } => {
                let p = input.named_path().unwrap_or_default();
                let dir = p.parent().map(|d| d.to_path_buf()).unwrap_or_default();
                let file = p
                    .file_name()
                    .map(|f| f.to_string_lossy().to_string())
                    .unwrap_or_default();
                let base = match kubelet_container(&p) {
                    Some(_) => "<N>.log".to_string(),
                    None => rotation_base(&file).to_string(),
                };
                match by_key.entry((dir, base)) {
                    Entry::Occupied(f) => out[*f.get()].segments.push(i),
                    Entry::Vacant(v) => {
                        let (dir, base) = v.key();
                        let name = dir.join(base).display().to_string();
                        v.insert(out.len());
                        out.push(Family {
                            name,
                            segments: vec![i],
                        });
                    }
                }
            }
        }
    }
    out
}

/// How far into a segment to look for its first timestamp.
const PEEK_LINES: usize = 2000;

/// The first log-record timestamp of a reader's text, if its first lines
/// hold one.
pub fn first_timestamp<R: Read + Send + 'static>(reader: R) -> Option<Timestamp> {
    // Inside any envelope (a container runtime's file, an export).
    let mut r = BufReader::new(super::sources::decoded_head(Box::new(reader)));
    let mut line = Vec::new();
    for _ in 0..PEEK_LINES {
        line.clear();
        match r.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if let Some(ts) = super::sources::timestamp_of(text) {
            return Some(ts);
        }
    }
    None
}

/// Rotation number of a segment for ordering ties: `connect.log` (0, the
/// live file) is newest, `.1` older than it, `.2` older still; dated
/// segments sort by their date text.
fn rotation_rank(file_name: &str) -> (i64, String) {
    let name = file_name.trim_end_matches(".gz");
    match name.rsplit_once('.') {
        Some((_, n)) if is_digits(n) => (-(n.parse::<i64>().unwrap_or(0)), String::new()),
        Some((_, d)) if is_date(d) => (i64::MIN / 2, d.to_string()),
        _ => (0, String::new()),
    }
}

/// Orders a family's segments: by first timestamp (segments without one
/// keep their rotation order after the others), ties by rotation order.
pub fn order_segments(inputs: &[Input], family: &mut Family, first_ts: &[Option<Timestamp>]) {
    family.segments.sort_by(|&a, &b| {
        let name = |i: usize| {
            inputs[i]
                .named_path()
                .and_then(|p| p.file_name().map(|f| f.to_string_lossy().to_string()))
                .unwrap_or_default()
        };
        let ka = (
            first_ts[a].is_none(),
            first_ts[a],
            rotation_rank(&name(a)),
            name(a),
        );
        let kb = (
            first_ts[b].is_none(),
            first_ts[b],
            rotation_rank(&name(b)),
            name(b),
        );
        ka.cmp(&kb)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_bases() {
        for (name, base) in [
            ("connect.log", "connect.log"),
            ("connect.log.1", "connect.log"),
            ("connect.log.12.gz", "connect.log"),
            ("connect.log.2024-05-01-10", "connect.log"),
            ("connect.log.2024-05-01-10.gz", "connect.log"),
            ("connect.log.2024-05-01.3", "connect.log"),
            ("connect.log-20240501", "connect.log"),
            ("connect.log-20240501.gz", "connect.log"),
            ("connect-1.log", "connect-1.log"),
            // Kafka 4.x: log4j2 `connect-%d{yyyy-MM-dd-HH}.log`
            ("connect-2026-12-01-23.log", "connect.log"),
            ("connect-2026-12-01-23.log.gz", "connect.log"),
            ("connect-2026-12-01-23-2.log", "connect.log"),
            ("my-worker-2026-12-01-23.log", "my-worker.log"),
            ("connect-20261201.log", "connect.log"),
            ("connect-1234.log", "connect-1234.log"),
            ("-2026-12-01-23.log", "-2026-12-01-23.log"),
            ("connect-2026-12-01-23.1", "connect-2026-12-01-23"),
            ("worker.2.log", "worker.2.log"),
            ("w1.log.gz", "w1.log"),
            ("12", "12"),
            (".1", ".1"),
        ] {
            assert_eq!(rotation_base(name), base, "{name}");
        }
    }

    #[test]
    fn groups_by_directory_and_base() {
        let inputs: Vec<Input> = [
            "a/connect.log",
            "a/connect.log.1",
            "b/connect.log",
            "a/connect.log.2.gz",
            "a/other.log",
        ]
        .iter()
        .map(|p| Input::File(PathBuf::from(p)))
        .chain(std::iter::once(Input::Stdin))
        .collect();
        let fams = group(&inputs);
        let segs: Vec<Vec<usize>> = fams.iter().map(|f| f.segments.clone()).collect();
        assert_eq!(segs, vec![vec![0, 1, 3], vec![2], vec![4], vec![5]]);
        assert_eq!(fams[0].name, "a/connect.log");
    }

    #[test]
    fn groups_log4j2_dated_segments_with_the_live_file() {
        // Kafka 4.x rotates connect.log to connect-YYYY-MM-DD-HH.log
        let inputs: Vec<Input> = [
            "w1/connect-2026-12-01-23.log",
            "w1/connect.log",
            "w2/connect.log",
        ]
        .iter()
        .map(|p| Input::File(PathBuf::from(p)))
        .collect();
        let mut fams = group(&inputs);
        assert_eq!(fams.len(), 2);
        assert_eq!(fams[0].name, "w1/connect.log");
        assert_eq!(fams[0].segments, vec![0, 1]);
        // without timestamps the dated segment is read first
        order_segments(&inputs, &mut fams[0], &[None, None, None]);
        assert_eq!(fams[0].segments, vec![0, 1]);
    }

    #[test]
    fn orders_by_first_timestamp_then_rotation() {
        let inputs: Vec<Input> = ["d/connect.log", "d/connect.log.1", "d/connect.log.2"]
            .iter()
            .map(|p| Input::File(PathBuf::from(p)))
            .collect();
        let mut fam = group(&inputs).remove(0);
        let ts = |s| Some(Timestamp(s));
        order_segments(&inputs, &mut fam, &[ts(300), ts(200), ts(100)]);
        assert_eq!(fam.segments, vec![2, 1, 0]);
        // Without timestamps: rotation order (.2 oldest, live file newest).
        order_segments(&inputs, &mut fam, &[None, None, None]);
        assert_eq!(fam.segments, vec![2, 1, 0]);
    }

    #[test]
    fn kubelet_containers() {
        let p = |s: &str| std::path::Path::new(s).to_path_buf();
        let (dir, label) =
            kubelet_container(&p("/var/log/pods/kafka_connect-0_0f1e2d3c-aaaa-bbbb-cccc-1234567890ab/connect/0.log.20250304-091500.gz"))
                .unwrap();
        assert_eq!(label, "kafka/connect-0/connect");
        assert!(dir.ends_with("connect"));
        assert!(
            kubelet_container(&p(
                "/var/log/pods/kafka_connect-0_0f1e2d3c-aaaa/connect/1.log"
            ))
            .is_some()
        );
        assert!(kubelet_container(&p("/logs/w1/connect.log")).is_none());
        assert!(kubelet_container(&p("/logs/w1/0.log")).is_none());
        let inputs: Vec<Input> = [
            "pods/ns_c-0_0f1e2d3c-aaaa/connect/0.log",
            "pods/ns_c-0_0f1e2d3c-aaaa/connect/0.log.20250304-101500",
            "pods/ns_c-0_0f1e2d3c-aaaa/connect/1.log",
            "pods/ns_c-1_99999999-aaaa/connect/0.log",
        ]
        .iter()
        .map(|p| Input::File(PathBuf::from(p)))
        .collect();
        let fams = group(&inputs);
        assert_eq!(fams.len(), 2);
        assert_eq!(stream_name(&inputs, &fams[0]), "ns/c-0/connect");
        assert_eq!(stream_name(&inputs, &fams[1]), "ns/c-1/connect");
    }

    #[test]
    fn peeks_the_first_timestamp_inside_an_envelope() {
        let text = "2025-03-04T10:15:00.1Z stdout P [2024-05-01 10:00:00,123] INFO hel\n2025-03-04T10:15:00.1Z stdout F lo (a.B)\n";
        assert_eq!(
            first_timestamp(std::io::Cursor::new(text.as_bytes().to_vec())),
            Timestamp::from_parts(2024, 5, 1, 10, 0, 0, 123)
        );
    }

    #[test]
    fn peeks_the_first_timestamp() {
        let text = "noise\n\tat x\n[2024-05-01 10:00:00,123] INFO hello (a.B)\n[2024-05-01 11:00:00,000] INFO later (a.B)\n";
        assert_eq!(
            first_timestamp(text.as_bytes()),
            Timestamp::from_parts(2024, 5, 1, 10, 0, 0, 123)
        );
        assert_eq!(first_timestamp("no stamp\n".as_bytes()), None);
    }
}

use super::*;
use crate::shared_buf::SharedBuf;
use crate::sim::{self, Layout, Params, Proto, Version};
use std::io::Write;

/// A terminal copy of `text`: every line longer than `width` characters is
/// cut into pieces of exactly `width` characters, each ending with the
/// line's own terminator.
fn wrap(text: &[u8], width: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text.split_inclusive(|&b| b == b'\n') {
        let (content, term) = split_eol(line);
        let s = String::from_utf8_lossy(content);
        let chars: Vec<char> = s.chars().collect();
        if chars.is_empty() {
            out.extend_from_slice(term);
            continue;
        }
        for piece in chars.chunks(width) {
            out.extend(piece.iter().collect::<String>().bytes());
            out.extend_from_slice(if term.is_empty() { b"\n" } else { term });
        }
    }
    out
}

/// The text a rejoined copy must read as: each record on the line number of
/// its first piece, followed by one empty line per further piece.
fn rejoined(text: &[u8], width: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text.split_inclusive(|&b| b == b'\n') {
        let (content, term) = split_eol(line);
        let pieces = String::from_utf8_lossy(content)
            .chars()
            .count()
            .div_ceil(width)
            .max(1);
        out.extend_from_slice(content);
        let term: &[u8] = if term.is_empty() { b"\n" } else { term };
        for _ in 0..pieces {
            out.extend_from_slice(term);
        }
    }
    out
}

/// One simulated worker log (noise: client lines, stack traces, config
/// dumps, REST access lines).
fn simulated(seed: u64, version: Version, layout: Layout, events: usize) -> Vec<u8> {
    let mut p = Params::new(
        seed,
        version,
        if version == Version::V2_0 || version == Version::V2_2 {
            Proto::Eager
        } else {
            Proto::Compatible
        },
    );
    p.workers = 1;
    p.events = events;
    p.layout = layout;
    let buf = SharedBuf::default();
    sim::simulate(&p, vec![Box::new(buf.clone()) as Box<dyn Write>], false).expect("simulates");
    buf.contents()
}

fn read_all(mut r: Box<dyn Read + Send>) -> Vec<u8> {
    let mut v = Vec::new();
    r.read_to_end(&mut v).expect("reads");
    v
}

const WIDTHS: [usize; 5] = [80, 120, 194, 250, 333];

#[test]
fn simulated_logs_are_not_wrapped() {
    for (seed, version, layout) in [
        (1, Version::V3_6, Layout::ApacheMdc),
        (2, Version::V2_3, Layout::Apache),
        (3, Version::V2_0, Layout::Debezium),
        (4, Version::V2_8, Layout::Strimzi),
    ] {
        let log = simulated(seed, version, layout, 30);
        assert_eq!(detect(&log), None, "seed {seed}");
    }
}

#[test]
fn wrapped_simulated_logs_are_detected_and_rejoined() {
    for (seed, version, layout) in [
        (5, Version::V3_6, Layout::ApacheMdc),
        (6, Version::V2_4, Layout::Apache),
        (7, Version::V2_2, Layout::Debezium),
    ] {
        let log = simulated(seed, version, layout, 30);
        for w in WIDTHS {
            let wrapped = wrap(&log, w);
            assert_eq!(detect(&wrapped), Some(w), "seed {seed}, width {w}");
            let (r, width) = reader(io::Cursor::new(wrapped.clone()), |_, _| {});
            assert_eq!(width, Some(w));
            let got = read_all(r);
            assert_eq!(got.len(), wrapped.len(), "bytes are kept");
            let want = rejoined(&log, w);
            if got != want {
                let g = String::from_utf8_lossy(&got);
                let x = String::from_utf8_lossy(&want);
                let (i, (a, b)) = g
                    .lines()
                    .zip(x.lines())
                    .enumerate()
                    .find(|(_, (a, b))| a != b)
                    .unwrap_or((0, ("", "")));
                panic!("seed {seed}, width {w}: line {} differs:\n{a}\n{b}", i + 1);
            }
        }
    }
}

#[test]
fn the_probe_sees_the_rejoined_head() {
    let log = simulated(8, Version::V3_6, Layout::ApacheMdc, 10);
    let wrapped = wrap(&log, 100);
    let mut seen = Vec::new();
    let (_, width) = reader(io::Cursor::new(wrapped), |h, _| seen = h.to_vec());
    assert_eq!(width, Some(100));
    let want = rejoined(&log, 100);
    // Up to its last record, which may go on past the head.
    let last = memchr::memrchr(b'\n', &seen[..seen.len() - 1]).unwrap();
    assert!(want.starts_with(&seen[..last]));
}

/// A log that is not wrapped and whose longest lines are one record
/// repeated, each with its stack trace.
fn repeated_failure(times: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..times {
        s.push_str(&format!(
            "[2024-05-01 10:00:{:02},123] INFO [Worker clientId=connect-1, groupId=g] Starting task a-0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1777)\n",
            i % 60
        ));
        s.push_str(&format!(
            "[2024-05-01 10:00:{:02},456] ERROR [a|task-0] WorkerSinkTask{{id=a-0}} Task threw an uncaught and unrecoverable exception. Task is being killed and will not recover until manually restarted (org.apache.kafka.connect.runtime.WorkerTask:212)\n",
            i % 60
        ));
        s.push_str("org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.\n");
        s.push_str("\tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:618)\n");
        s.push_str("\tat org.apache.kafka.connect.runtime.WorkerTask.run(WorkerTask.java:257)\n");
        s.push_str("Caused by: java.lang.IllegalStateException: boom\n\t... 10 more\n");
    }
    s.into_bytes()
}

#[test]
fn repeated_records_with_stack_traces_are_not_wrapped() {
    assert_eq!(detect(&repeated_failure(40)), None);
}

#[test]
fn records_cut_at_a_width_but_not_wrapped_are_not_wrapped() {
    // `cut -c1-120`: many lines of the maximal length, each followed by a
    // record.
    let log = simulated(9, Version::V3_6, Layout::ApacheMdc, 20);
    let text = String::from_utf8(log).unwrap();
    let cut: String = text
        .lines()
        .map(|l| l.chars().take(120).collect::<String>() + "\n")
        .collect();
    assert_eq!(detect(cut.as_bytes()), None);
}

#[test]
fn short_logs_are_not_wrapped() {
    let short = b"[2024-05-01 10:00:00,000] INFO Kafka Connect starting (org.apache.kafka.connect.runtime.Connect:50)\n\
[2024-05-01 10:00:00,100] ERROR Stopping due to error (org.apache.kafka.connect.cli.ConnectDistributed:86)\n\
org.apache.kafka.connect.errors.ConnectException: Failed to connect to and describe Kafka cluster. Check worker's broker connection and security properties.\n\
\tat org.apache.kafka.connect.util.ConnectUtils.lookupKafkaClusterId(ConnectUtils.java:77)\n";
    assert_eq!(detect(short), None);
    assert_eq!(detect(b""), None);
    assert_eq!(detect(b"x\n"), None);
    // One long record and its fragment: too little to tell.
    let one = wrap(&short[..101], 60);
    assert_eq!(detect(&one), None);
    let (r, width) = reader(io::Cursor::new(short.to_vec()), |_, _| {});
    assert_eq!(width, None);
    assert_eq!(read_all(r), short.to_vec());
}

#[test]
fn widths_are_counted_in_characters() {
    // Connector names with non-ASCII letters: the pane cuts characters.
    let mut s = String::new();
    for i in 0..30 {
        s.push_str(&format!(
            "[2024-05-01 10:00:{:02},000] INFO [Worker clientId=connect-1, groupId=g] Starting connector café-€{i} with a message long enough to be wrapped at eighty columns (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1842)\n",
            i % 60
        ));
    }
    let wrapped = wrap(s.as_bytes(), 80);
    assert_eq!(detect(&wrapped), Some(80));
    let (r, _) = reader(io::Cursor::new(wrapped), |_, _| {});
    assert_eq!(read_all(r), rejoined(s.as_bytes(), 80));
}

#[test]
fn crlf_copies_keep_their_terminators() {
    let log = simulated(10, Version::V2_3, Layout::Apache, 10);
    let crlf: Vec<u8> = String::from_utf8(log)
        .unwrap()
        .replace('\n', "\r\n")
        .into_bytes();
    let wrapped = wrap(&crlf, 120);
    assert_eq!(detect(&wrapped), Some(120));
    let (r, _) = reader(io::Cursor::new(wrapped.clone()), |_, _| {});
    let got = read_all(r);
    assert_eq!(got.len(), wrapped.len());
    assert!(got == rejoined(&crlf, 120));
}

#[test]
fn stack_frames_after_a_record_of_exactly_the_width_stay_apart() {
    let mut s = repeated_failure(3);
    s.extend(simulated(11, Version::V3_6, Layout::ApacheMdc, 10));
    let wrapped = wrap(&s, 90);
    let (r, w) = reader(io::Cursor::new(wrapped), |_, _| {});
    assert_eq!(w, Some(90));
    assert!(read_all(r) == rejoined(&s, 90));
    // A record of exactly 90 characters, then a stack frame and a record.
    let rec = format!("[2024-05-01 10:00:00,000] ERROR {}", "x".repeat(90 - 32));
    assert_eq!(rec.chars().count(), 90);
    let text = format!("{rec}\n\tat a.B.c(B.java:1)\n{rec}\njava.lang.IllegalStateException\n");
    let mut out = Vec::new();
    Rejoin::new(text.as_bytes(), 90)
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, text.as_bytes());
}

#[test]
fn read_errors_come_after_the_lines_read_before_them() {
    /// Hands on its bytes, then fails.
    struct Failing(Vec<u8>, usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.1 == self.0.len() {
                return Err(io::Error::other("disk on fire"));
            }
            let n = (self.0.len() - self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }
    for wrapped in [false, true] {
        let log = simulated(12, Version::V3_6, Layout::ApacheMdc, 3);
        let data = if wrapped { wrap(&log, 100) } else { log };
        // Within the head, and past it.
        for cut in [60_000, 300_000] {
            let data = data[..data.len().min(cut)].to_vec();
            let (mut r, _) = reader(Failing(data.clone(), 0), |_, _| {});
            let mut got = Vec::new();
            let err = r.read_to_end(&mut got).expect_err("the error is passed on");
            assert_eq!(err.to_string(), "disk on fire");
            assert_eq!(got.len(), data.len(), "wrapped: {wrapped}");
        }
    }
}

#[test]
fn trace_and_exception_lines_are_told_from_fragments() {
    for l in [
        &b"\tat a.b.C.d(C.java:1)"[..],
        b"    at a.b.C.d(C.java:1)",
        b"\t... 12 more",
        b"Caused by: java.io.IOException: x",
        b"java.lang.NullPointerException",
        b"org.apache.kafka.connect.errors.ConnectException: Exiting",
        b"\tacks = -1",
    ] {
        assert!(continues_by_itself(l), "{}", String::from_utf8_lossy(l));
        assert!(!is_fragment(l));
    }
    for l in [
        &b"org.apache.kafka.connect.runtime.Worker:574)"[..],
        b"ignment: Assignment{error=0, leader='x'}",
        b"Exception handling made simple",
        b"ectorIds=[a], taskIds=[a-0]}",
    ] {
        assert!(is_fragment(l), "{}", String::from_utf8_lossy(l));
    }
    assert!(!is_fragment(b""));
    assert!(!is_fragment(
        b"[2024-05-01 10:00:00,000] INFO Kafka Connect starting"
    ));
}

#[test]
fn stack_frames_are_told_by_their_shape() {
    for l in [
        &b"    at a.b.C.d(C.java:1)"[..],
        b" at org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:574)",
        b"  at java.base/java.lang.Thread.run(Thread.java:829) [?:?]",
        b"    at jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
        b"    at a.B$$Lambda$12/0x0000000800c2b440.run(Unknown Source)",
        b"    at a.B.<init>(B.java:3)",
        // a frame cut at the wrap width after its name or its `(`
        b"    at org.apache.kafka.connect.runtime.WorkerSinkTask",
        b"    at org.apache.kafka.connect.runtime.WorkerSinkTask.poll(",
    ] {
        assert!(stack_frame(l).is_ok(), "{}", String::from_utf8_lossy(l));
        assert!(continues_by_itself(l));
    }
    for l in [
        // cut fragments of `Joined group at generation …` and of messages
        &b" at generation 1 and got assignment: Assignment{error=0, leader='connect-1'}"[..],
        b" at generation 12 with protocol version 2 and got assignment: Assignment{",
        b" at offset 5",
        b" at http://connect-1:8083/",
        b" at ",
        b"at a.b.C.d(C.java:1)",
        b"    at a.b.C d(C.java:1)",
        b"    atx a.b.C.d(C.java:1)",
    ] {
        assert!(stack_frame(l).is_err(), "{}", String::from_utf8_lossy(l));
        assert!(is_fragment(l), "{}", String::from_utf8_lossy(l));
    }
}

#[test]
fn omitted_frames_are_told_by_their_count() {
    for l in [&b"    ... 12 more"[..], b" ... 3 common frames omitted"] {
        assert!(frames_omitted(l).is_ok(), "{}", String::from_utf8_lossy(l));
        assert!(!is_fragment(l));
    }
    for l in [&b" ... and more"[..], b"... 12 more", b" ...12 more"] {
        assert!(frames_omitted(l).is_err(), "{}", String::from_utf8_lossy(l));
        assert!(is_fragment(l), "{}", String::from_utf8_lossy(l));
    }
}

#[test]
fn a_record_cut_before_at_is_rejoined() {
    // `Joined group at generation …` cut at the width just before ` at`.
    let head = "[2024-05-01 10:00:00,000] INFO [Worker clientId=connect-1, groupId=connect-cluster] Joined group";
    let width = head.chars().count();
    let rest = " at generation 1 and got assignment: Assignment{error=0, leader='connect-1', leaderUrl='http://w1:8083/', offset=-1, connectorIds=[], taskIds=[]}";
    let text = format!("{head}\n{rest}\n");
    let mut out = Vec::new();
    Rejoin::new(text.as_bytes(), width)
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, format!("{head}{rest}\n\n").into_bytes());
}

#[test]
fn a_later_segment_keeps_the_width_of_an_earlier_one() {
    // A head whose lines are all shorter than 120: no width of its own.
    let short = simulated(13, Version::V3_6, Layout::ApacheMdc, 2);
    let narrow: Vec<u8> = short
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| l.len() <= 100)
        .flatten()
        .copied()
        .collect();
    assert!(narrow.len() > 1000);
    assert_eq!(detect(&narrow), None);
    assert_eq!(detect_after(&narrow, None), None);
    assert_eq!(detect_after(&narrow, Some(120)), Some(120));
    // A line wider than the earlier width contradicts it.
    let wide = format!("{}{}\n", String::from_utf8_lossy(&narrow), "x".repeat(130));
    assert_eq!(detect_after(wide.as_bytes(), Some(120)), None);
    // Its own width wins.
    let wrapped = wrap(&simulated(14, Version::V3_6, Layout::ApacheMdc, 10), 90);
    assert_eq!(detect_after(&wrapped, Some(120)), Some(90));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Rejoining moves terminators, never adds or drops a byte.
        #[test]
        fn rejoining_keeps_every_byte(
            data in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'x'), Just(b'\t'), Just(0xc3u8), Just(0xa9u8), any::<u8>()],
                0..2000,
            ),
            width in 1usize..120,
        ) {
            let mut out = Vec::new();
            Rejoin::new(&data[..], width).read_to_end(&mut out).unwrap();
            prop_assert_eq!(out.len(), data.len());
            let count = |v: &[u8], b: u8| v.iter().filter(|&&x| x == b).count();
            prop_assert_eq!(count(&out, b'\n'), count(&data, b'\n'));
            let mut a = out.clone();
            let mut b = data.clone();
            a.sort_unstable();
            b.sort_unstable();
            prop_assert_eq!(a, b);
            // Whatever the bytes, the reader hands them all on.
            let (r, _) = reader(io::Cursor::new(data.clone()), |_, _| {});
            prop_assert_eq!(read_all(r).len(), data.len());
        }
    }
}

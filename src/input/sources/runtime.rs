//! Container-runtime log files, read line by line: the CRI format the
//! kubelet's runtimes (containerd, CRI-O) write under `/var/log/pods`, and
//! Docker's json-file driver. Both split long records (16 KiB by default)
//! into parts; [`Restream`] hands on each record whole, on the line of its
//! first part, followed by one empty line per further part, so that bytes
//! past the envelope and line numbers stay those of the file as stored.

use crate::input::scan::MAX_LINE;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1, take_while_m_n};
use nom::character::complete::char;
use nom::combinator::{opt, recognize, rest, verify};
use nom::{IResult, Parser};
use serde::Deserialize;
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, BufRead, BufReader, Read};

/// Which output stream of the container a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pipe {
    Stdout,
    Stderr,
    Other,
}

/// One physical line of a container-runtime log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part<'a> {
    pub pipe: Pipe,
    /// A part of a record that the next part of the same pipe continues.
    pub partial: bool,
    pub text: std::borrow::Cow<'a, [u8]>,
}

type Res<'a, T> = IResult<&'a [u8], T>;

/// An RFC 3339 time stamp as the runtimes print it
/// (`2025-03-04T10:15:00.123456789Z`, `…+01:00`): four digits, `-`, and
/// a `T` at the tenth place, up to the next blank.
pub fn rfc3339(i: &[u8]) -> Res<'_, &[u8]> {
    verify(
        recognize((
            take_while_m_n(4, 4, |b: u8| b.is_ascii_digit()),
            char('-'),
            take_till1(|b| b == b' '),
        )),
        |s: &[u8]| s.len() >= 19 && s[10] == b'T' && s[13] == b':',
    )
    .parse(i)
}

fn pipe(i: &[u8]) -> Res<'_, Pipe> {
    alt((
        tag(&b"stdout"[..]).map(|_| Pipe::Stdout),
        tag(&b"stderr"[..]).map(|_| Pipe::Stderr),
    ))
    .parse(i)
}

/// `<RFC3339Nano> stdout|stderr <tags> <message>`; the tags are `F`
/// (full, the last part) or `P` (partial), `:`-separated.
pub fn cri_line(i: &[u8]) -> Res<'_, Part<'_>> {
    let (i, (_, _, pipe, _, tags, _, text)) = (
        rfc3339,
        char(' '),
        pipe,
        char(' '),
        take_till1(|b| b == b' '),
        opt(char(' ')),
        rest,
    )
        .parse(i)?;
    let partial = tags.split(|&b| b == b':').any(|t| t == b"P");
    if !tags.split(|&b| b == b':').all(|t| t == b"P" || t == b"F") {
        return Err(nom::Err::Error(nom::error::Error::new(
            tags,
            nom::error::ErrorKind::Tag,
        )));
    }
    Ok((
        i,
        Part {
            pipe,
            partial,
            text: std::borrow::Cow::Borrowed(text),
        },
    ))
}

#[derive(Deserialize)]
struct DockerLine<'a> {
    #[serde(borrow)]
    log: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    stream: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    attrs: Option<BTreeMap<String, String>>,
    #[allow(dead_code)]
    time: Option<serde::de::IgnoredAny>,
}

/// A Docker json-file line `{"log":"…\n","stream":"stdout","time":"…"}`
/// (optionally `"attrs":{…}`); a `log` without its trailing newline is a
/// part that the next entry of the stream continues. Also returns the
/// attrs.
pub fn docker_line(line: &[u8]) -> Option<(Part<'static>, Option<BTreeMap<String, String>>)> {
    // Only an object (or an array, which serde also reads as a struct)
    // after JSON's blanks can be one: other lines are turned away before
    // the parser is set up (every line of every segment's head is tried).
    let first = line
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if !matches!(first, Some(b'{' | b'[')) {
        return None;
    }
    let d: DockerLine = serde_json::from_slice(line).ok()?;
    d.time.as_ref()?;
    let pipe = match d.stream.as_deref() {
        Some("stdout") => Pipe::Stdout,
        Some("stderr") => Pipe::Stderr,
        _ => Pipe::Other,
    };
    let (text, partial) = match d.log.strip_suffix('\n') {
        Some(t) => (t.strip_suffix('\r').unwrap_or(t), false),
        None => (&*d.log, true),
    };
    Some((
        Part {
            pipe,
            partial,
            text: std::borrow::Cow::Owned(text.as_bytes().to_vec()),
        },
        d.attrs,
    ))
}

/// Writes one part of a record as the runtime does, `<time> stdout|stderr
/// F|P <text>` (what [`cri_line`] reads): the fuzz targets and the tests
/// put logs in this envelope.
pub fn write_cri(out: &mut Vec<u8>, time: &str, stderr: bool, partial: bool, text: &str) {
    let pipe = if stderr { "stderr" } else { "stdout" };
    let tag = if partial { 'P' } else { 'F' };
    out.extend_from_slice(format!("{time} {pipe} {tag} {text}\n").as_bytes());
}

/// Writes one part of a record as Docker's json-file driver does (what
/// [`docker_line`] reads): `log` ends with a newline unless a further part
/// continues it.
pub fn write_docker(out: &mut Vec<u8>, time: &str, stderr: bool, partial: bool, text: &str) {
    let log = if partial {
        text.to_string()
    } else {
        format!("{text}\n")
    };
    let stream = if stderr { "stderr" } else { "stdout" };
    let rec = serde_json::json!({"log": log, "stream": stream, "time": time});
    out.extend_from_slice(rec.to_string().as_bytes());
    out.push(b'\n');
}

/// The line a Docker json-file line holds, when the line comes on its own
/// (`json`: the JSON object; a log store keeps Docker's lines as they
/// were, `time` or not): its `log` without the line end.
pub fn docker_log(json: &str) -> Option<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    let d: DockerLine = serde_json::from_str(json).ok()?;
    Some(match d.log {
        Cow::Borrowed(s) => Cow::Borrowed(s.trim_end_matches(['\n', '\r'])),
        Cow::Owned(s) => Cow::Owned(s.trim_end_matches(['\n', '\r']).to_string()),
    })
}

/// The runtime formats read line by line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    Cri,
    Docker,
}

impl Runtime {
    fn part<'a>(self, line: &'a [u8]) -> Option<Part<'a>> {
        match self {
            Runtime::Cri => cri_line(line).ok().map(|(_, p)| p),
            Runtime::Docker => docker_line(line).map(|(p, _)| p),
        }
    }

    /// Does this line read as the format?
    pub fn matches(self, line: &[u8]) -> bool {
        self.part(line).is_some()
    }
}

/// An output line: its bytes, its terminator, and whether it is complete
/// (a record whose last part has not come yet is not).
struct Slot {
    text: Vec<u8>,
    term: &'static [u8],
    done: bool,
}

/// Parts queued at most before an unfinished record is handed on as it is
/// (a part whose last part never comes).
const MAX_QUEUED: usize = 4096;

/// The records being joined and the output ready.
struct Joiner {
    runtime: Runtime,
    queue: VecDeque<Slot>,
    /// Index (counted from the first line ever queued) of the open record
    /// of each pipe.
    open: BTreeMap<Pipe, u64>,
    /// Lines handed on (popped from the queue) so far.
    popped: u64,
    out: Vec<u8>,
}

impl Joiner {
    fn slot(&mut self, index: u64) -> &mut Slot {
        &mut self.queue[(index - self.popped) as usize]
    }

    /// Takes one physical line (with its terminator).
    fn push_line(&mut self, line: &[u8]) {
        let (content, term): (&[u8], &'static [u8]) = if let Some(c) = line.strip_suffix(b"\r\n") {
            (c, b"\r\n")
        } else if let Some(c) = line.strip_suffix(b"\n") {
            (c, b"\n")
        } else {
            (line, b"")
        };
        let index = self.popped + self.queue.len() as u64;
        let part = self.runtime.part(content);
        // The common case: a whole record (or a line not of the format)
        // while no record is open: straight to the output.
        if self.queue.is_empty() && part.as_ref().is_none_or(|p| !p.partial) {
            match part {
                Some(p) => self.out.extend_from_slice(&p.text),
                None => self.out.extend_from_slice(content),
            }
            self.out.extend_from_slice(term);
            self.popped += 1;
            return;
        }
        let Some(part) = part else {
            let text = content.to_vec();
            self.queue.push_back(Slot {
                text,
                term,
                done: true,
            });
            return;
        };
        let (pipe, partial, text) = (part.pipe, part.partial, part.text.into_owned());
        match self.open.get(&pipe).copied() {
            Some(at) if self.slot(at).text.len() + text.len() <= MAX_LINE => {
                let s = self.slot(at);
                s.text.extend_from_slice(&text);
                s.done = !partial;
                self.queue.push_back(Slot {
                    text: Vec::new(),
                    term,
                    done: true,
                });
                if partial {
                    return;
                }
                self.open.remove(&pipe);
            }
            open => {
                if let Some(at) = open {
                    // Too long to join: the record so far is handed on.
                    self.slot(at).done = true;
                }
                self.queue.push_back(Slot {
                    text,
                    term,
                    done: !partial,
                });
                if partial {
                    self.open.insert(pipe, index);
                } else {
                    self.open.remove(&pipe);
                }
            }
        }
    }

    /// Moves the finished lines at the front of the queue to the output.
    fn drain(&mut self, all: bool) {
        if self.queue.len() > MAX_QUEUED || all {
            for s in self.queue.iter_mut() {
                s.done = true;
            }
            self.open.clear();
        }
        while self.queue.front().is_some_and(|s| s.done) {
            let s = self.queue.pop_front().expect("a front slot");
            self.popped += 1;
            self.out.extend_from_slice(&s.text);
            self.out.extend_from_slice(s.term);
        }
    }
}

/// Reads a container-runtime log and hands on its records: each record's
/// parts joined on the line of its first part, followed by one empty line
/// for every further part. Lines that are not of the format are handed on
/// as they are.
pub struct Restream<R> {
    src: BufReader<R>,
    /// A line begun in an earlier buffer.
    line: Vec<u8>,
    j: Joiner,
    pos: usize,
    done: bool,
    /// Live input had nothing more for now.
    blocked: bool,
    error: Option<io::Error>,
}

impl<R: Read> Restream<R> {
    pub fn new(inner: R, runtime: Runtime) -> Restream<R> {
        Restream {
            src: BufReader::with_capacity(64 * 1024, inner),
            line: Vec::new(),
            j: Joiner {
                runtime,
                queue: VecDeque::new(),
                open: BTreeMap::new(),
                popped: 0,
                out: Vec::new(),
            },
            pos: 0,
            done: false,
            blocked: false,
            error: None,
        }
    }

    /// The input ended (or failed): the line begun is taken, and every
    /// record queued is handed on.
    fn end(&mut self) {
        if !self.line.is_empty() {
            self.j.push_line(&self.line);
            self.line.clear();
        }
        self.done = true;
        self.j.drain(true);
    }

    /// Reads physical lines (whole buffers at a time) until some output is
    /// ready, the input ends (or fails), or live input has nothing more for
    /// now (`blocked`: an unfinished line is kept until the rest of it
    /// comes).
    fn fill(&mut self) {
        self.j.out.clear();
        self.pos = 0;
        self.blocked = false;
        while self.j.out.len() < 64 * 1024 && !self.done {
            let buf = match self.src.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.blocked = true;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.error = Some(e);
                    self.end();
                    break;
                }
            };
            if buf.is_empty() {
                self.end();
                break;
            }
            let n = buf.len();
            let mut start = 0;
            if !self.line.is_empty() {
                // The rest of a line begun in an earlier buffer.
                match memchr::memchr(b'\n', buf) {
                    Some(i) => {
                        self.line.extend_from_slice(&buf[..=i]);
                        self.j.push_line(&self.line);
                        self.line.clear();
                        start = i + 1;
                    }
                    None => {
                        self.line.extend_from_slice(buf);
                        self.src.consume(n);
                        continue;
                    }
                }
            }
            let mut from = start;
            for nl in memchr::memchr_iter(b'\n', &buf[start..]) {
                let end = start + nl + 1;
                self.j.push_line(&buf[from..end]);
                from = end;
            }
            self.line.extend_from_slice(&buf[from..]);
            self.src.consume(n);
            self.j.drain(false);
        }
    }
}

impl<R: Read> Read for Restream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.j.out.len() {
            if self.done {
                return self.error.take().map_or(Ok(0), Err);
            }
            self.fill();
            if self.pos == self.j.out.len() {
                if std::mem::take(&mut self.blocked) {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                return self.error.take().map_or(Ok(0), Err);
            }
        }
        let n = buf.len().min(self.j.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.j.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn restream(text: &str, rt: Runtime) -> String {
        let mut out = String::new();
        Restream::new(text.as_bytes(), rt)
            .read_to_string(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn rfc3339_stamps() {
        assert!(rfc3339(b"2025-03-04T10:15:00.123456789Z x").is_ok());
        assert!(rfc3339(b"2025-03-04T10:15:00+01:00 x").is_ok());
        assert!(rfc3339(b"2025-03-04 10:15:00 x").is_err());
        assert!(rfc3339(b"[2025-03-04T10:15:00Z] x").is_err());
    }

    #[test]
    fn written_parts_read_back() {
        type Write = fn(&mut Vec<u8>, &str, bool, bool, &str);
        type Parse = fn(&[u8]) -> Option<Part<'_>>;
        let cri: Parse = |l| cri_line(l).ok().map(|(_, p)| p);
        let docker: Parse = |l| docker_line(l).map(|(p, _)| p);
        let formats: [(Write, Parse); 2] = [(write_cri, cri), (write_docker, docker)];
        for (write, read) in formats {
            let mut out = Vec::new();
            write(
                &mut out,
                "2025-03-04T10:15:00.1Z",
                false,
                true,
                "[x] INFO \"q\"",
            );
            write(&mut out, "2025-03-04T10:15:00.2Z", true, false, "b");
            let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
            let p = read(lines[0]).unwrap();
            let want: (Pipe, bool, &[u8]) = (Pipe::Stdout, true, b"[x] INFO \"q\"");
            assert_eq!((p.pipe, p.partial, &*p.text), want);
            let p = read(lines[1]).unwrap();
            assert_eq!(
                (p.pipe, p.partial, &*p.text),
                (Pipe::Stderr, false, &b"b"[..])
            );
        }
        let mut out = Vec::new();
        write_docker(&mut out, "2025-03-04T10:15:00.2Z", true, false, "b");
        let line = std::str::from_utf8(&out).unwrap().trim_end();
        assert_eq!(docker_log(line).as_deref(), Some("b"));
    }

    #[test]
    fn cri_lines() {
        let (_, p) = cri_line(b"2025-03-04T10:15:00.1Z stdout F [x] INFO a (b.C)").unwrap();
        assert_eq!((p.pipe, p.partial), (Pipe::Stdout, false));
        assert_eq!(&*p.text, b"[x] INFO a (b.C)");
        let (_, p) = cri_line(b"2025-03-04T10:15:00.1Z stderr P part").unwrap();
        assert_eq!(
            (p.pipe, p.partial, &*p.text),
            (Pipe::Stderr, true, &b"part"[..])
        );
        let (_, p) = cri_line(b"2025-03-04T10:15:00.1Z stdout F").unwrap();
        assert!(p.text.is_empty());
        assert!(cri_line(b"2025-03-04T10:15:00.1Z stdin F x").is_err());
        assert!(cri_line(b"2025-03-04T10:15:00.1Z stdout X x").is_err());
        assert!(cri_line(b"[2025-03-04 10:15:00,123] INFO x").is_err());
    }

    #[test]
    fn docker_lines() {
        let (p, attrs) =
            docker_line(br#"{"log":"a \"b\"\n","stream":"stderr","attrs":{"tag":"w1"},"time":"2025-03-04T10:15:00.1Z"}"#)
                .unwrap();
        assert_eq!(
            (p.pipe, p.partial, &*p.text),
            (Pipe::Stderr, false, &br#"a "b""#[..])
        );
        assert_eq!(attrs.unwrap()["tag"], "w1");
        let (p, _) = docker_line(br#"{"log":"part","stream":"stdout","time":"t"}"#).unwrap();
        assert!(p.partial);
        assert!(docker_line(br#"{"log":"x"}"#).is_none(), "no time");
        assert!(docker_line(b"plain").is_none());
    }

    #[test]
    fn partial_records_are_rejoined_on_their_first_line() {
        let t = "2025-03-04T10:15:00.1Z stdout P [a] INFO one \n\
                 2025-03-04T10:15:00.1Z stderr F err line\n\
                 2025-03-04T10:15:00.1Z stdout P two \n\
                 2025-03-04T10:15:00.1Z stdout F three\n\
                 2025-03-04T10:15:00.2Z stdout F next\n";
        assert_eq!(
            restream(t, Runtime::Cri),
            "[a] INFO one two three\nerr line\n\n\nnext\n"
        );
        let d = "{\"log\":\"[a] INFO on\",\"stream\":\"stdout\",\"time\":\"t\"}\n\
                 {\"log\":\"e\",\"stream\":\"stdout\",\"time\":\"t\"}\n\
                 {\"log\":\"\\n\",\"stream\":\"stdout\",\"time\":\"t\"}\r\n\
                 not json\n";
        assert_eq!(
            restream(d, Runtime::Docker),
            "[a] INFO one\n\n\r\nnot json\n"
        );
    }

    /// Live input: two reads, then nothing for now, then the rest.
    struct Live(Vec<&'static [u8]>);

    impl Read for Live {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.first().copied() {
                None => Ok(0),
                Some([]) => {
                    self.0.remove(0);
                    Err(io::ErrorKind::WouldBlock.into())
                }
                Some(chunk) => {
                    let n = chunk.len().min(buf.len());
                    buf[..n].copy_from_slice(&chunk[..n]);
                    self.0.remove(0);
                    Ok(n)
                }
            }
        }
    }

    #[test]
    fn live_input_that_pauses_goes_on() {
        let live = Live(vec![
            b"",
            b"2025-03-04T10:15:00.1Z stdout F one\n2025-03-04T10:15:00.1Z stdout P t",
            b"",
            b"w\n2025-03-04T10:15:00.1Z stdout F o\n",
        ]);
        let mut r = Restream::new(live, Runtime::Cri);
        let mut buf = [0u8; 64];
        assert_eq!(
            r.read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        let n = r.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"one\n", "the unfinished line waits");
        let n = r.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"two\n\n");
        assert_eq!(r.read(&mut buf).unwrap(), 0);
    }

    #[test]
    fn an_unfinished_record_is_handed_on_at_the_end() {
        let t = "2025-03-04T10:15:00.1Z stdout P a\n2025-03-04T10:15:00.1Z stdout P b";
        assert_eq!(restream(t, Runtime::Cri), "ab\n");
    }
}

//! Terminal copies wrapped at a fixed width: a log pasted from a terminal
//! (or `kubectl logs` in a narrow pane) has every record longer than the
//! pane cut into physical lines of exactly the pane's width, and the
//! fragments after the first start with no time stamp.
//!
//! [`detect`] finds the width from the head of a stream; [`reader`] hands
//! on the stream with the fragments rejoined. Rejoining keeps line numbers:
//! the line terminators that separated a record's fragments are moved after
//! the record, so the record is read on the line number of its first
//! physical line and is followed by one empty line per fragment. Bytes and
//! line counts do not change, and the prefilter skips empty lines for free.
//! A stream whose head shows no wrapping is handed on as it is, after its
//! head was read once.

use crate::input::head::{HEAD_BYTES, HeadThen, line_ends, read_head};
use crate::input::scan::MAX_LINE;
use crate::layout::starts_record;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::{digit1, space1};
use nom::combinator::{eof, verify};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};
use std::io::{self, BufRead, BufReader, Read};

/// No terminal pane is narrower than this: shorter maximal lengths are not
/// a wrap width.
const MIN_WIDTH: usize = 40;

/// Fewest records cut at the width before it counts as wrapped: a wrapped
/// log with fewer long records gains little from being rejoined, and a
/// single line of maximal length followed by a continuation is common in
/// logs that are not wrapped at all.
const MIN_CUTS: usize = 2;

/// Cuts needed per line of maximal length followed by anything else (a
/// record start, a stack-trace line, an empty line): in a wrapped copy,
/// those are the records whose length is a multiple of the width.
const CUTS_PER_MISS: usize = 2;

/// Characters (not bytes) in a line without its terminator.
fn width_of(line: &[u8]) -> usize {
    bytecount::num_chars(line)
}

/// Splits a physical line into its content and terminator (`\n`, `\r\n`,
/// or nothing at the end of the stream).
fn split_eol(line: &[u8]) -> (&[u8], &[u8]) {
    let n = if line.ends_with(b"\r\n") {
        2
    } else if line.ends_with(b"\n") {
        1
    } else {
        0
    };
    line.split_at(line.len() - n)
}

/// A line that continues a record on its own terms rather than as a cut
/// fragment: a tab-indented line (a stack frame `\tat …`, `\t... N more`,
/// a config-dump entry), an indented [`stack_frame`] or [`frames_omitted`]
/// line, `Caused by:`, or an exception header
/// (`java.lang.IllegalStateException: …`).
///
/// Only the shape of a frame counts, not its indent: a record cut just
/// before a word `at` leaves a fragment such as ` at generation 1 and got
/// assignment: …`, which is no frame.
fn continues_by_itself(line: &[u8]) -> bool {
    line.first() == Some(&b'\t')
        || line.starts_with(b"Caused by: ")
        || stack_frame(line).is_ok()
        || frames_omitted(line).is_ok()
        || exception_header(line)
}

/// A Java class or method name as a stack frame prints it: identifier
/// characters, `.`, `$`, `/` (a module or class loader, `java.base/`),
/// `<` and `>` (`<init>`), with at least one `.` (a package).
fn frame_name(input: &[u8]) -> IResult<&[u8], &[u8]> {
    verify(
        take_while1(|b: u8| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'$' | b'/' | b'<' | b'>')
        }),
        |name: &[u8]| name.contains(&b'.'),
    )
    .parse(input)
}

/// An indented stack frame: `    at a.b.C.d(C.java:12)` and what a layout
/// prints after it (` ~[jar:?]`). The frame may itself be cut at the wrap
/// width after its name: the name then ends the line, or its `(` does.
fn stack_frame(input: &[u8]) -> IResult<&[u8], &[u8]> {
    preceded(
        (space1, tag(&b"at "[..])),
        terminated(frame_name, alt((tag(&b"("[..]), eof))),
    )
    .parse(input)
}

/// An indented `... 12 more` (or logback's `... 12 common frames omitted`).
fn frames_omitted(input: &[u8]) -> IResult<&[u8], &[u8]> {
    preceded((space1, tag(&b"... "[..])), digit1).parse(input)
}

/// `a.b.SomeException`, `a.b.SomeError: message`: a dotted Java class name
/// ending in `Exception`/`Error`, then the end or `: `.
fn exception_header(line: &[u8]) -> bool {
    let end = line
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'$'))
        .unwrap_or(line.len());
    let (class, rest) = line.split_at(end);
    class.contains(&b'.')
        && class.first().is_some_and(u8::is_ascii_lowercase)
        && (class.ends_with(b"Exception") || class.ends_with(b"Error"))
        && (rest.is_empty() || rest.starts_with(b": ") || rest == b":")
}

/// May `next` be a cut fragment of the line before it (whose width is the
/// wrap width)?
fn is_fragment(next: &[u8]) -> bool {
    !next.is_empty() && !starts_record(next) && !continues_by_itself(next)
}

/// The wrap width of a stream whose head is `head` (complete lines; the
/// last line may lack its terminator), or `None` when it is not a wrapped
/// copy.
///
/// A wrapped copy has many lines of exactly one length, the maximal one,
/// each followed by a fragment: a line that starts no record and is no
/// stack-trace or config-dump line. Logs that are not wrapped have few
/// lines of their maximal length, and what follows them is a record, a
/// stack trace or a dump (a record repeated with its stack trace has many).
pub fn detect(head: &[u8]) -> Option<usize> {
    let widest = Widest::of(head, &line_ends(head));
    if widest.width < MIN_WIDTH {
        return None;
    }
    let (cuts, misses) = widest.cuts(head);
    (cuts >= MIN_CUTS && cuts >= CUTS_PER_MISS * misses).then_some(widest.width)
}

/// The widest lines of a head, found in one pass: the width in characters
/// and, for each line of exactly that width, where the line after it lies
/// (what [`cuts_at`] would look at for that width).
struct Widest {
    width: usize,
    /// The range of the line after each line of `width` characters
    /// (`None` after the last line).
    next: Vec<Option<(usize, usize)>>,
}

impl Widest {
    /// The widest lines of `head`, whose newlines are at `ends`.
    fn of(head: &[u8], ends: &[u32]) -> Widest {
        // Characters never outnumber bytes: only lines at least as long in
        // bytes as the widest so far are counted.
        let mut w = Widest {
            width: 0,
            next: Vec::new(),
        };
        // Is the line just seen one of the widest (its follower pending)?
        let mut pending = false;
        for (start, end) in ranges_at(head, ends) {
            if pending {
                w.next.push(Some((start, end)));
                pending = false;
            }
            if end - start < w.width {
                continue;
            }
            let chars = width_of(&head[start..end]);
            if chars > w.width {
                w.width = chars;
                w.next.clear();
            }
            pending = chars == w.width;
        }
        if pending {
            w.next.push(None);
        }
        w
    }

    /// Lines of the widest width followed by a fragment (cuts) and by
    /// anything else (misses).
    fn cuts(&self, head: &[u8]) -> (usize, usize) {
        let (mut cuts, mut misses) = (0usize, 0usize);
        for &(start, end) in self.next.iter().flatten() {
            if is_fragment(&head[start..end]) {
                cuts += 1;
            } else {
                misses += 1;
            }
        }
        (cuts, misses)
    }
}

/// The wrap width of a segment whose head is `head`, when an earlier
/// segment of the same stream was wrapped at `earlier`: its own width if
/// its head shows one, else `earlier` unless the head contradicts it (a
/// line wider than `earlier`, or lines of exactly that width followed by
/// too few fragments). A terminal copy of a rotated log is cut at one
/// width, and a segment whose long records all come after its head shows
/// no width of its own.
#[cfg(test)]
pub fn detect_after(head: &[u8], earlier: Option<usize>) -> Option<usize> {
    detect_after_at(head, &line_ends(head), earlier)
}

/// [`detect_after`] of a head whose newlines are at `ends`.
fn detect_after_at(head: &[u8], ends: &[u32], earlier: Option<usize>) -> Option<usize> {
    let widest = Widest::of(head, ends);
    if widest.width >= MIN_WIDTH {
        let (cuts, misses) = widest.cuts(head);
        if cuts >= MIN_CUTS && cuts >= CUTS_PER_MISS * misses {
            return Some(widest.width);
        }
    }
    let w = earlier?;
    if widest.width > w {
        return None;
    }
    let (cuts, misses) = if widest.width == w {
        widest.cuts(head)
    } else {
        cuts_at(head, w)
    };
    (cuts >= CUTS_PER_MISS * misses).then_some(w)
}

/// Lines of exactly `width` characters in `head` followed by a fragment
/// (cuts) and by anything else (misses).
fn cuts_at(head: &[u8], width: usize) -> (usize, usize) {
    let (mut cuts, mut misses) = (0usize, 0usize);
    let mut iter = lines(head).peekable();
    while let Some(line) = iter.next() {
        if line.len() < width || width_of(line) != width {
            continue;
        }
        match iter.peek() {
            Some(next) if is_fragment(next) => cuts += 1,
            Some(_) => misses += 1,
            None => {}
        }
    }
    (cuts, misses)
}

/// The lines of `text`, without terminators.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    line_ranges(text).map(|(start, end)| &text[start..end])
}

/// Where the lines of `text` lie, without terminators.
fn line_ranges(text: &[u8]) -> impl Iterator<Item = (usize, usize)> {
    let ends = memchr::memchr_iter(b'\n', text);
    ranges(text, ends)
}

/// [`line_ranges`] of a text whose newlines are at `ends`.
fn ranges_at<'a>(text: &'a [u8], ends: &'a [u32]) -> impl Iterator<Item = (usize, usize)> + 'a {
    ranges(text, ends.iter().map(|&e| e as usize))
}

/// Where the lines of `text` lie, without terminators, its newlines at
/// `ends`.
fn ranges(
    text: &[u8],
    mut ends: impl Iterator<Item = usize>,
) -> impl Iterator<Item = (usize, usize)> {
    let mut start = 0;
    std::iter::from_fn(move || {
        let end = match ends.next() {
            Some(e) => e,
            None if start < text.len() => text.len(),
            None => return None,
        };
        let line = (
            start,
            end - usize::from(end > start && text[end - 1] == b'\r'),
        );
        start = end + 1;
        Some(line)
    })
}

#[cfg(test)]
/// Reads the head of `inner` (up to [`HEAD_BYTES`], ending at a line end),
/// shows it to `probe`, and returns a reader of the whole stream, with
/// wrapped records rejoined when the head shows a wrap width, and that
/// width. `probe` sees the head as the returned reader will deliver it.
///
/// A read error met in the head is returned by the reader once the bytes
/// read before it are consumed.
pub fn reader<R: Read + Send + 'static>(
    inner: R,
    probe: impl FnOnce(&[u8], &[u32]),
) -> (Box<dyn Read + Send>, Option<usize>) {
    reader_after(inner, probe, None)
}

/// [`reader`] for a segment of a stream whose earlier segment was wrapped
/// at `earlier` (`detect_after`).
pub fn reader_after<R: Read + Send + 'static>(
    inner: R,
    probe: impl FnOnce(&[u8], &[u32]),
    earlier: Option<usize>,
) -> (Box<dyn Read + Send>, Option<usize>) {
    let (head, error, inner) = read_head(inner);
    let width = probe_head(&head, error.is_some(), probe, earlier);
    let whole = HeadThen::new(head, error, inner);
    match width {
        None => (Box::new(whole), None),
        Some(w) => (Box::new(Rejoin::new(whole, w)), Some(w)),
    }
}

/// What [`reader_after`] finds in a head read by [`read_head`] (`ended`:
/// a read error ended it): the wrap width, and `probe` shown the head as
/// the reader would deliver it (rejoined when wrapped). For a caller that
/// has the head already and reads the stream again from its start.
pub fn probe_head(
    head: &[u8],
    ended: bool,
    probe: impl FnOnce(&[u8], &[u32]),
    earlier: Option<usize>,
) -> Option<usize> {
    let eof = ended || head.len() < HEAD_BYTES;
    // Detect over complete lines only.
    let complete = if eof {
        head.len()
    } else {
        memchr::memrchr(b'\n', head).map_or(0, |i| i + 1)
    };
    let ends = line_ends(&head[..complete]);
    let width = detect_after_at(&head[..complete], &ends, earlier);
    match width {
        None => probe(&head[..complete], &ends),
        Some(w) => {
            let mut joined = Vec::with_capacity(complete);
            // The head alone, rejoined, for the probe.
            let _ = Rejoin::new(&head[..complete], w).read_to_end(&mut joined);
            probe(&joined, &line_ends(&joined));
        }
    }
    width
}

/// Rejoins the fragments of records cut at `width` characters: a line of
/// exactly `width` characters and the [`is_fragment`] line after it are one
/// record. The terminators between fragments follow the record.
pub struct Rejoin<R> {
    src: BufReader<R>,
    width: usize,
    /// The physical line being read.
    line: Vec<u8>,
    /// The record being built: content, terminators of its fragments, and
    /// whether its last fragment had exactly `width` characters.
    record: Vec<u8>,
    terms: Vec<u8>,
    open: bool,
    /// Output ready to be read: `out[pos..]`.
    out: Vec<u8>,
    pos: usize,
    done: bool,
    /// A read error, returned once the output read before it is consumed.
    error: Option<io::Error>,
}

impl<R: Read> Rejoin<R> {
    pub fn new(inner: R, width: usize) -> Rejoin<R> {
        Rejoin {
            src: BufReader::with_capacity(64 * 1024, inner),
            width,
            line: Vec::new(),
            record: Vec::new(),
            terms: Vec::new(),
            open: false,
            out: Vec::new(),
            pos: 0,
            done: false,
            error: None,
        }
    }

    /// Moves the record built so far to the output.
    fn flush(&mut self) {
        self.out.extend_from_slice(&self.record);
        self.out.extend_from_slice(&self.terms);
        self.record.clear();
        self.terms.clear();
        self.open = false;
    }

    /// Reads physical lines until some output is ready or the input ends
    /// (or fails: the lines read before the failure are output first).
    fn fill(&mut self) {
        self.out.clear();
        self.pos = 0;
        while self.out.len() < 64 * 1024 && !self.done {
            self.line.clear();
            if let Err(e) = self.src.read_until(b'\n', &mut self.line) {
                // Keep what was read of the line; end after it.
                self.error = Some(e);
                self.done = true;
            }
            if self.line.is_empty() {
                self.flush();
                self.done = true;
                break;
            }
            let (content, term) = split_eol(&self.line);
            let join =
                self.open && is_fragment(content) && self.record.len() + content.len() <= MAX_LINE;
            if !join {
                self.out.extend_from_slice(&self.record);
                self.out.extend_from_slice(&self.terms);
                self.record.clear();
                self.terms.clear();
            }
            self.record.extend_from_slice(content);
            self.terms.extend_from_slice(term);
            // A fragment follows only a line cut at exactly the width (and
            // characters never outnumber bytes).
            self.open = content.len() >= self.width && width_of(content) == self.width;
            if self.done {
                self.flush();
            }
        }
    }
}

impl<R: Read> Read for Rejoin<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.out.len() {
            if self.done {
                return self.error.take().map_or(Ok(0), Err);
            }
            self.fill();
            if self.pos == self.out.len() {
                return self.error.take().map_or(Ok(0), Err);
            }
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests;

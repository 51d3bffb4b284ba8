//! One line → envelope: stream prefix, timestamp, level, logger, MDC context,
//! LogContext prefix and the message. Layouts are detected per line:
//!
//! * Apache `[%d] %p %X{connector.context}%m (%c:%L)` / `(%c)`, optionally
//!   followed by ` [%t]` (Strimzi prints `%d %p … (%c) [%t]` without brackets
//!   round the date);
//! * Debezium `%d %-5p  %X{…}|%X{…}|%X{…}  %m   [%c]` (`INFO   ||  msg   [logger]`);
//! * anything constant before the record: `# `, indentation, a docker-compose
//!   `name  | ` prefix, a kubectl `[pod/name/container] ` prefix (both name
//!   the line's stream: `prefix.rs`), an RFC 3339 or Docker Desktop time
//!   stamp.
//!
//! Lines without a record start (stack traces, config dumps, wrapped
//! messages) are continuations: [`envelope`] returns `None` for them.

pub mod bare;
pub mod json;
mod logger;
mod prefix;

#[cfg(test)]
use logger::{LOGGER_BYTES, logger_span, name_run};
pub use logger::{RecentNames, trailing_logger, trailing_logger_kept, trailing_logger_text};
use logger::{bracket_logger_suffix, paren_logger_suffix};
pub use prefix::{split_stream, stream_key};

use crate::model::Timestamp;
use nom::character::complete::char;
use nom::combinator::opt;
use nom::{IResult, Parser};

/// Log level as printed by `%p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

/// The `%X{connector.context}` MDC value: `[<conn>|worker] `, `[<conn>|task-<n>] `.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mdc<'a> {
    pub connector: &'a str,
    pub scope: MdcScope,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MdcScope {
    Worker,
    Task(u32),
    /// `task-<n>|offsets`
    TaskOffsets(u32),
    /// Any other scope text (`validate`, …).
    Other,
}

/// The LogContext prefix `[Worker clientId=<id>, groupId=<group>] `.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerCtx<'a> {
    pub client_id: &'a str,
    pub group_id: &'a str,
}

/// A parsed log record line.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope<'a> {
    /// The stream a multiplexed file labels the line with (`kafka-connect-1`
    /// for compose, `pod/connect-0/connect` for kubectl), when there is one.
    pub stream: Option<&'a str>,
    pub ts: Option<Timestamp>,
    pub level: Level,
    /// `%c` without the `:%L` suffix; `None` when the layout prints none
    /// (or the message continues on later lines).
    pub logger: Option<&'a str>,
    pub mdc: Option<Mdc<'a>>,
    pub worker: Option<WorkerCtx<'a>>,
    /// The line carries a Kafka client LogContext of another kind
    /// (`[Consumer clientId=…]`, `[Producer clientId=…]`, `[AdminClient clientId=…]`):
    /// it is a client's line, never the herder's.
    pub client: bool,
    /// `%m` without the prefixes above; trailing blanks trimmed.
    pub message: &'a str,
    /// Byte offsets of `message` within the line.
    pub msg_start: usize,
    pub msg_end: usize,
}

type Res<'a, T> = IResult<&'a str, T>;

fn fail<T>(i: &str, kind: nom::error::ErrorKind) -> Res<'_, T> {
    Err(nom::Err::Error(nom::error::Error::new(i, kind)))
}

/// The literal `t` at the start of the input, like nom's `tag` (the same
/// result and error), compared as one slice, not byte by byte (every
/// worker line opens its `[Worker clientId=` prefix with one).
fn tag<'a>(t: &'static str) -> impl Fn(&'a str) -> Res<'a, &'a str> {
    move |i: &'a str| match i.strip_prefix(t) {
        // `t.len()` ends the literal just matched: a char boundary.
        Some(rest) => Ok((rest, &i[..t.len()])),
        None => fail(i, nom::error::ErrorKind::Tag),
    }
}

/// Everything up to the first of two ASCII delimiters (or the end), at
/// least one byte.
fn until2<'a>(a: u8, b: u8) -> impl Fn(&'a str) -> Res<'a, &'a str> {
    move |i: &'a str| {
        let n = memchr::memchr2(a, b, i.as_bytes()).unwrap_or(i.len());
        if n == 0 {
            return fail(i, nom::error::ErrorKind::TakeUntil);
        }
        Ok((&i[n..], &i[..n]))
    }
}

/// `yyyy-MM-dd HH:mm:ss,SSS` (also `T` and `.` as separators), then any
/// sub-millisecond digits: [`crate::time::log4j`] as a parser.
fn log4j_timestamp(i: &str) -> Res<'_, Option<Timestamp>> {
    match crate::time::log4j(i.as_bytes()) {
        // The stamp's bytes are ASCII: a char boundary.
        Some((ts, n)) => Ok((&i[n..], ts)),
        None => fail(i, nom::error::ErrorKind::Digit),
    }
}

fn level(i: &str) -> Res<'_, Level> {
    let n = i.bytes().take_while(u8::is_ascii_uppercase).count();
    let lvl = match &i.as_bytes()[..n] {
        b"INFO" => Level::Info,
        b"DEBUG" => Level::Debug,
        b"WARN" | b"WARNING" => Level::Warn,
        b"ERROR" => Level::Error,
        b"TRACE" => Level::Trace,
        b"FATAL" => Level::Fatal,
        _ if n == 0 => return fail(i, nom::error::ErrorKind::TakeWhile1),
        _ => return fail(i, nom::error::ErrorKind::Tag),
    };
    // The level's bytes are ASCII: a char boundary.
    Ok((&i[n..], lvl))
}

/// The head of a log record: `%d` and `%p`.
#[derive(Debug, Clone, Copy)]
struct Head {
    ts: Option<Timestamp>,
    level: Level,
}

/// The record head: `[ts] LEVEL ` or `ts LEVEL `, returning the rest.
/// Read by hand at fixed places (it is tried on every line): the same
/// answer as `alt(([ts], ts))`, blanks, the level and a blank after it.
fn record_head(i: &str) -> Res<'_, Head> {
    let bracketed = i
        .strip_prefix('[')
        .and_then(|r| log4j_timestamp(r).ok())
        .and_then(|(r, t)| r.strip_prefix(']').map(|r| (r, t)));
    let (i, ts) = match bracketed {
        Some(found) => found,
        None => log4j_timestamp(i)?,
    };
    let blanks = i.bytes().take_while(|&b| b == b' ').count();
    if blanks == 0 {
        return fail(i, nom::error::ErrorKind::TakeWhile1);
    }
    // The blanks are ASCII: a char boundary.
    let i = &i[blanks..];
    let (i, lvl) = level(i)?;
    // `%p` then a blank (Debezium pads with `%-5p`); end of line is allowed
    // for an empty message.
    if !(i.is_empty() || i.starts_with(' ') || i.starts_with('\t')) {
        return Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Space,
        )));
    }
    Ok((i, Head { ts, level: lvl }))
}

/// Finds where the log record starts: the first position whose text parses as
/// a record head. Only the first 256 bytes are searched.
fn find_record(line: &str) -> Option<(usize, &str, Head)> {
    let limit = line.len().min(256);
    let bytes = line.as_bytes();
    let at = |pos: usize| {
        let b = bytes[pos];
        // A record starts with `[` + digit or with a digit that begins a
        // number (not in the middle of one).
        let candidate = (b == b'[' && bytes.get(pos + 1).is_some_and(u8::is_ascii_digit))
            || (b.is_ascii_digit() && (pos == 0 || !bytes[pos - 1].is_ascii_digit()));
        if candidate && line.is_char_boundary(pos) {
            record_head(&line[pos..])
                .ok()
                .map(|(rest, head)| (pos, rest, head))
        } else {
            None
        }
    };
    if limit == 0 {
        return None;
    }
    // Most records start the line.
    if let Some(found) = at(0) {
        return Some(found);
    }
    // Every record head starts with a time stamp, whose `-` after the year
    // is 4 bytes after where the record starts (5 after a `[`): only those
    // places are tried, in order (the `-` found by memchr, not every byte).
    let window = &bytes[..line.len().min(limit + 5)];
    for dash in memchr::memchr_iter(b'-', window) {
        for pos in [dash.checked_sub(5), dash.checked_sub(4)]
            .into_iter()
            .flatten()
        {
            if pos > 0
                && pos < limit
                && let Some(found) = at(pos)
            {
                return Some(found);
            }
        }
    }
    None
}

/// The time stamp of a line's record head: `envelope(line).map(|e| e.ts)`
/// without reading the rest of the envelope (the head alone decides
/// whether a line has one).
pub fn record_ts(line: &str) -> Option<Option<Timestamp>> {
    record_of(line).map(|(_, (_, _, head))| head.ts)
}

/// The line without a trailing `\r`, and where its record starts
/// ([`find_record`]): the first step of [`envelope_with`], and all of
/// [`record_ts`].
fn record_of(line: &str) -> Option<(&str, (usize, &str, Head))> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    Some((line, find_record(line)?))
}

/// Parses one line (without its line ending; a trailing `\r` is tolerated).
pub fn envelope(line: &str) -> Option<Envelope<'_>> {
    envelope_with(line, None)
}

/// [`envelope`] of a line whose trailing logger the caller has already
/// read ([`trailing_logger_text`] of this very `line`) and classified as
/// one it reads: `known` is that name, a slice of `line`, a Java class
/// name of name bytes with a `.`, naming no throwable. The logger's `(`
/// and `)` are then checked where the name says they are, not searched
/// for again, and the name is not read again. Any other `known` (not a
/// slice of `line`, or not where a `(…)` suffix would put it) is ignored:
/// the answer is always [`envelope`]'s.
pub fn envelope_with<'a>(line: &'a str, known: Option<&str>) -> Option<Envelope<'a>> {
    // (Nothing after the record head fails: [`record_ts`] relies on it.)
    let (line, (start, rest, Head { ts, level })) = record_of(line)?;
    let stream = stream_key(&line[..start]);
    let body = &rest[rest
        .bytes()
        .take_while(|&b| b == b' ' || b == b'\t')
        .count()..];
    let mut off = line.len() - body.len();

    // Debezium: `||  msg   [logger]` or `type|name|context  msg   [logger]`.
    let (mut msg, logger) = if let Some(after) = debezium_mdc(body) {
        off += body.len() - after.len();
        let trimmed = after.trim_end();
        match bracket_logger_suffix(trimmed) {
            Some((m, lg)) => (m.trim_end(), Some(lg)),
            None => (trimmed, None),
        }
    } else {
        let trimmed = body.trim_end();
        let found = known
            .and_then(|name| known_paren_suffix(line, body.len(), trimmed.len(), name))
            .or_else(|| paren_logger_suffix(trimmed));
        match found {
            Some((m, lg)) => (m.trim_end(), Some(lg)),
            None => (trimmed, None),
        }
    };

    // `%X{connector.context}` then the LogContext prefix.
    // The first `|` or `]` tells them apart: an MDC has its `|` first, and
    // the first `]` of a LogContext prefix closes it.
    let mut mdc = None;
    let mut close = None;
    if msg.starts_with('[') {
        match memchr::memchr2(b'|', b']', msg.as_bytes()) {
            Some(k) if msg.as_bytes()[k] == b']' => close = Some(k),
            Some(_) => {
                if let Ok((r, m)) = mdc_ctx(msg) {
                    mdc = Some(m);
                    off += msg.len() - r.len();
                    msg = r;
                }
            }
            None => {}
        }
    }
    let mut worker = None;
    let mut client = false;
    if msg.starts_with('[') {
        let known = match close {
            Some(k) => worker_ctx_closed_at(msg, k),
            None => worker_ctx(msg).ok(),
        };
        if let Some((r, w)) = known {
            worker = Some(w);
            off += msg.len() - r.len();
            msg = r;
        } else if let Ok((r, _)) = client_ctx(msg) {
            client = true;
            off += msg.len() - r.len();
            msg = r;
        }
    }
    Some(Envelope {
        stream,
        ts,
        level,
        logger,
        mdc,
        worker,
        client,
        message: msg,
        msg_start: off,
        msg_end: off + msg.len(),
    })
}

/// [`paren_logger_suffix`] of the `trimmed` body (its first `trimmed`
/// bytes of the last `body` bytes of `line`) when the logger is `name`, a
/// slice of `line` with [`envelope_with`]'s promises: `Some` only when
/// that search would find this very name, `None` when it must search.
fn known_paren_suffix<'a>(
    line: &'a str,
    body: usize,
    trimmed: usize,
    name: &str,
) -> Option<(&'a str, &'a str)> {
    let b = line.as_bytes();
    // Where the name is in `line` (it may be a slice of other text).
    let at = (name.as_ptr() as usize).checked_sub(b.as_ptr() as usize)?;
    let start = line.len() - body;
    let end = start + trimmed;
    // ` (` before the name, inside the body; `)` ends the trimmed body.
    if at < start + 2 || at + name.len() >= end || b[at - 1] != b'(' || b[at - 2] != b' ' {
        return None;
    }
    if b[end - 1] != b')' {
        return None;
    }
    // Between the name and the `)`: nothing, `:` and digits, or `:?` (what
    // `logger_name` takes whole; no `(` there, so the search's last `(` is
    // the name's).
    let line_no = &b[at + name.len()..end - 1];
    let numbered = match line_no {
        [] | [b':', b'?'] => true,
        [b':', digits @ ..] => !digits.is_empty() && digits.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !numbered {
        return None;
    }
    debug_assert!(name.bytes().all(|c| logger::LOGGER_BYTES[usize::from(c)]) && name.contains('.'));
    // Both ends are ASCII bytes of `line`: char boundaries.
    Some((&line[start..at - 2], &line[at..at + name.len()]))
}

/// Does this raw line start a log record (a record head in one of the
/// layouts, or a JSON object: `{"`)? Lines that do not continue the record before
/// them: stack traces, config dumps, multi-line messages, the fragments of
/// a wrapped line. Invalid UTF-8 after the record head does not matter.
pub fn starts_record(line: &[u8]) -> bool {
    // The head is searched in the first 256 bytes; its time stamp and level
    // fit in the bytes after that.
    let head = &line[..line.len().min(320)];
    let text = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    starts_record_text(text)
}

/// [`starts_record`] of the decoded first 320 bytes of a line (up to a
/// character boundary, or to its first byte that is not UTF-8).
pub fn starts_record_text(text: &str) -> bool {
    // Most lines of a log are records: the head first.
    find_record(text).is_some() || split_stream(text).1.trim_start().starts_with("{\"")
}

/// Is this (after any stream prefix) a JSON line?
pub fn is_json(line: &str) -> bool {
    // A classic line's first bytes already tell, before its whole length
    // is searched for the quote every JSON record has (it quotes its keys).
    if !prefix::may_open_json(line.as_bytes()) {
        return false;
    }
    if memchr::memchr(b'"', line.as_bytes()).is_none() {
        return false;
    }
    let (_, rest) = split_stream(line);
    rest.trim_start().starts_with('{')
}

/// Debezium's MDC triple `a|b|c` (usually `||`) followed by blanks.
fn debezium_mdc(body: &str) -> Option<&str> {
    // A triple holds no `[`: most bodies open with a `[` context.
    if body.starts_with('[') {
        return None;
    }
    let end = memchr::memchr(b' ', body.as_bytes())?;
    let token = &body[..end];
    if token.bytes().filter(|&b| b == b'|').count() != 2 || token.contains('[') {
        return None;
    }
    let after = &body[end..];
    // Debezium pads with two blanks after the MDC triple.
    if !after.starts_with("  ") && (token != "||") {
        return None;
    }
    Some(after.trim_start_matches(' '))
}

/// `[<conn>|worker] `, `[<conn>|task-3] `, `[<conn>|task-3|offsets] `.
fn mdc_ctx(i: &str) -> Res<'_, Mdc<'_>> {
    let (i, _) = char('[')(i)?;
    let (i, connector) = until2(b'|', b']')(i)?;
    let (i, _) = char('|')(i)?;
    let (i, scope_text) = until2(b']', b']')(i)?;
    let (i, _) = tag("] ")(i)?;
    let scope = match scope_text {
        "worker" => MdcScope::Worker,
        s => match s.strip_prefix("task-") {
            Some(n) => {
                let (num, offsets) = match n.split_once('|') {
                    Some((num, "offsets")) => (num, true),
                    Some(_) => ("", false),
                    None => (n, false),
                };
                match num.parse::<u32>() {
                    Ok(k) if offsets => MdcScope::TaskOffsets(k),
                    Ok(k) => MdcScope::Task(k),
                    Err(_) => MdcScope::Other,
                }
            }
            None => MdcScope::Other,
        },
    };
    Ok((i, Mdc { connector, scope }))
}

/// `[Worker clientId=connect-1, groupId=connect-cluster] `
fn worker_ctx(i: &str) -> Res<'_, WorkerCtx<'_>> {
    let (i, _) = tag("[Worker clientId=")(i)?;
    let (i, client_id) = opt(until2(b',', b']')).parse(i)?;
    let client_id = client_id.unwrap_or("");
    let (i, _) = tag(", groupId=")(i)?;
    let (i, group_id) = opt(until2(b']', b']')).parse(i)?;
    let group_id = group_id.unwrap_or("");
    let (i, _) = char(']')(i)?;
    let (i, _) = opt(char(' ')).parse(i)?;
    Ok((
        i,
        WorkerCtx {
            client_id,
            group_id,
        },
    ))
}

/// [`worker_ctx`] of a `msg` whose first `]` is at `close` (and no `|`
/// before it): the same answer, its ends found without searching again.
fn worker_ctx_closed_at(msg: &str, close: usize) -> Option<(&str, WorkerCtx<'_>)> {
    const OPEN: &str = "[Worker clientId=";
    const GROUP: &str = ", groupId=";
    let b = msg.as_bytes();
    if !msg.starts_with(OPEN) || close < OPEN.len() {
        return None;
    }
    // The client id runs to the first `,` (or `]`: then no `, groupId=`
    // follows and the prefix is none).
    let comma = OPEN.len() + b[OPEN.len()..close].iter().position(|&c| c == b',')?;
    if !msg[comma..].starts_with(GROUP) {
        return None;
    }
    // `, groupId=` holds no `]`: the group id runs to `close`.
    let group = comma + GROUP.len();
    let rest = &msg[close + 1..];
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    Some((
        rest,
        WorkerCtx {
            client_id: &msg[OPEN.len()..comma],
            group_id: &msg[group..close],
        },
    ))
}

/// `[Consumer clientId=…, groupId=…] `, `[Producer clientId=…] `, `[AdminClient clientId=…] `.
fn client_ctx(i: &str) -> Res<'_, &str> {
    let (i, _) = char('[')(i)?;
    let (i, kind) =
        nom::branch::alt((tag("Consumer"), tag("Producer"), tag("AdminClient"))).parse(i)?;
    let (i, _) = tag(" clientId=")(i)?;
    let (i, _) = opt(until2(b']', b']')).parse(i)?;
    let (i, _) = char(']')(i)?;
    let (i, _) = opt(char(' ')).parse(i)?;
    Ok((i, kind))
}

#[cfg(test)]
mod tests;

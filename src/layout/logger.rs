//! Loggers (`%c`): the logger a line ends with, read cheaply before the
//! line is parsed, and the logger suffixes of the envelope (`(a.b.C:NN)`,
//! Debezium's `[a.b.C]`), with the run of name bytes they share.

use super::{Res, fail};

/// The logger a line ends with, read from its raw bytes without decoding
/// the line: `… (a.b.C)`, `… (a.b.C:123)`, `… (a.b.C) [thread]`,
/// Debezium's `…   [a.b.C]`. `None` when the line does not end with one
/// (other layouts, JSON, continuation lines): the caller must then parse
/// the line in full. A cheap first test for the hot path.
pub fn trailing_logger(line: &[u8]) -> Option<&str> {
    trailing_logger_with(line, |a, b| std::str::from_utf8(&line[a..b]).ok())
}

/// [`trailing_logger`] of a line already decoded: the same answer, the
/// name's bytes not validated again (they are `text`'s, cut at ASCII
/// bytes).
pub fn trailing_logger_text(text: &str) -> Option<&str> {
    trailing_logger_with(text.as_bytes(), |a, b| text.get(a..b))
}

/// [`trailing_logger`]'s walk; `as_str` turns the byte range of a
/// candidate name into text (`None`: not text, no name there).
fn trailing_logger_with<'a>(
    line: &'a [u8],
    as_str: impl Fn(usize, usize) -> Option<&'a str>,
) -> Option<&'a str> {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b' ' | b'\t' | b'\r') {
        end -= 1;
    }
    let mut s = &line[..end];
    for _ in 0..2 {
        match s.last()? {
            b')' => {
                let open = memchr::memrchr(b'(', s)?;
                return logger_span(&s[open + 1..s.len() - 1])
                    .and_then(|(a, b)| as_str(open + 1 + a, open + 1 + b))
                    .filter(|name| !names_a_throwable(name));
            }
            b']' => {
                let open = memchr::memrchr(b'[', s)?;
                if let Some(l) = logger_span(&s[open + 1..s.len() - 1])
                    .and_then(|(a, b)| as_str(open + 1 + a, open + 1 + b))
                    && l.contains('.')
                {
                    return Some(l);
                }
                // A thread name: the logger is before it.
                let mut e = open;
                while e > 0 && s[e - 1] == b' ' {
                    e -= 1;
                }
                s = &s[..e];
            }
            _ => return None,
        }
    }
    None
}

/// Where the name of the `(a.b.C)`, `(a.b.C:123)` or `(a.b.C:?)` a line
/// ends with (trailing blanks aside) would end: the index of the `:` or
/// the `)` after it. `None` when the line does not end with `)`. Nothing
/// before that end is read: what [`trailing_logger`] would find there is
/// for the caller to check (`stream::select` compares the bytes before it
/// with the names it read there before).
pub fn paren_name_end(line: &[u8]) -> Option<usize> {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b' ' | b'\t' | b'\r') {
        end -= 1;
    }
    let close = end.checked_sub(1)?;
    if line[close] != b')' {
        return None;
    }
    let mut i = close;
    while i > 0 && line[i - 1].is_ascii_digit() {
        i -= 1;
    }
    if i > 0 && line[i - 1] == b':' {
        return Some(i - 1);
    }
    if i == close && i >= 2 && line[i - 1] == b'?' && line[i - 2] == b':' {
        return Some(i - 2);
    }
    Some(close)
}

/// The logger a line ends with, as [`trailing_logger_text`] reads it,
/// with what `classify` makes of it. A log names a few loggers over and
/// over: the `(a.b.C:NN)` names read last are kept in `table` with their
/// class, and a line that ends with one of them (a `(`, the name, then
/// nothing, `:` and digits, or `:?` before the `)`) is answered by one
/// comparison, without the searches for the `(`, the `:` and blanks, nor
/// the classifying.
pub fn trailing_logger_kept<'t, K: Copy + 'static>(
    table: &'static std::thread::LocalKey<std::cell::RefCell<RecentNames<K>>>,
    text: &'t str,
    classify: impl Fn(&str) -> K,
) -> Option<(&'t str, K)> {
    let b = text.as_bytes();
    let end = paren_name_end(b);
    if let Some(e) = end
        && let Some(found) = table.with_borrow(|r| r.find(text, e))
    {
        return Some(found);
    }
    let name = trailing_logger_text(text)?;
    let kind = classify(name);
    // Kept when it is the name a `(` opens and `end` ends: it holds no
    // `(` (the search took the last), no `:` (its first ends the name)
    // and no blank, and names no throwable, so a line that ends the same
    // way has it as its logger.
    if let Some(e) = end
        && name.as_ptr() as usize + name.len() == b.as_ptr() as usize + e
    {
        table.with_borrow_mut(|r| r.keep(name.as_bytes(), kind));
    }
    Some((name, kind))
}

/// The longest name [`RecentNames`] keeps, and the shortest (its last
/// eight bytes are compared first, as one word).
const NAME_MAX: usize = 96;
const NAME_MIN: usize = 8;

/// Names kept at once (a worker's lines end with a dozen loggers at most).
const SLOTS: usize = 8;

/// [`trailing_logger_kept`]'s names and their classes, replaced in turn
/// (≈ 1 KiB: one per thread and user).
pub struct RecentNames<K> {
    /// Each name's last eight bytes (0 for an empty slot: a name of name
    /// bytes is never eight zero bytes).
    tail: [u64; SLOTS],
    len: [u8; SLOTS],
    kind: [K; SLOTS],
    names: [[u8; NAME_MAX]; SLOTS],
    next: usize,
}

impl<K: Copy> RecentNames<K> {
    /// An empty table (`empty`: the class of an empty slot, never read).
    pub const fn new(empty: K) -> RecentNames<K> {
        RecentNames {
            tail: [0; SLOTS],
            len: [0; SLOTS],
            kind: [empty; SLOTS],
            names: [[0; NAME_MAX]; SLOTS],
            next: 0,
        }
    }

    /// The kept name that ends at `e` in `text` right after a `(`.
    #[inline]
    fn find<'t>(&self, text: &'t str, e: usize) -> Option<(&'t str, K)> {
        let b = text.as_bytes();
        let last = u64::from_le_bytes(b.get(e.checked_sub(NAME_MIN)?..e)?.try_into().ok()?);
        (0..SLOTS).find_map(|i| {
            let n = usize::from(self.len[i]);
            if self.tail[i] != last
                || n >= e
                || b[e - n - 1] != b'('
                || b[e - n..e] != self.names[i][..n]
            {
                return None;
            }
            // A `(` before and a `:` or `)` after: char boundaries.
            Some((text.get(e - n..e)?, self.kind[i]))
        })
    }

    fn keep(&mut self, name: &[u8], kind: K) {
        let n = name.len();
        if !(NAME_MIN..=NAME_MAX).contains(&n) {
            return;
        }
        let i = self.next;
        self.next = (i + 1) % SLOTS;
        self.names[i][..n].copy_from_slice(name);
        self.len[i] = n as u8;
        self.kind[i] = kind;
        self.tail[i] = u64::from_le_bytes(name[n - NAME_MIN..].try_into().unwrap_or_default());
    }
}

/// `a.b.C` or `a.b.C:123` → the range of `a.b.C`, when the bytes can be a
/// Java class name: not empty, no blank, a line number only of digits.
/// (Cheap on purpose: the caller classifies the name against known
/// loggers.)
pub(super) fn logger_span(b: &[u8]) -> Option<(usize, usize)> {
    let name_end = memchr::memchr(b':', b).unwrap_or(b.len());
    let (name, line_no) = b.split_at(name_end);
    if name.is_empty()
        || memchr::memchr2(b' ', b'\t', name).is_some()
        || !(line_no.is_empty() || line_no[1..].iter().all(u8::is_ascii_digit) || line_no == b":?")
    {
        return None;
    }
    Some((0, name_end))
}

/// The bytes of a Java logger name (ASCII letters, digits, `.`, `_`, `$`),
/// looked up: logger names are read on every candidate line.
pub(super) static LOGGER_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || c == b'$';
        b += 1;
    }
    t
};

/// The length of the run of [`LOGGER_BYTES`] `b` starts with. A log
/// names a few loggers over and over: the last runs read are kept, and a
/// run of the same bytes (then a byte that ends it) is found by one
/// comparison instead of a test of every byte.
pub(super) fn name_run(b: &[u8]) -> usize {
    if let Some(n) = known_run(b) {
        return n;
    }
    let n = b
        .iter()
        .position(|&c| !LOGGER_BYTES[usize::from(c)])
        .unwrap_or(b.len());
    if n <= RUN_BYTES {
        KNOWN_RUNS.with_borrow_mut(|k| {
            let slot = &mut k.runs[k.next];
            slot.bytes[..n].copy_from_slice(&b[..n]);
            slot.len = n as u8;
            k.next = (k.next + 1) % k.runs.len();
        });
    }
    n
}

/// The length of a run [`name_run`] kept that `b` starts with, when a
/// byte that is no name byte (or the end) follows it there.
fn known_run(b: &[u8]) -> Option<usize> {
    let ends = |n: usize| b.get(n).is_none_or(|&c| !LOGGER_BYTES[usize::from(c)]);
    KNOWN_RUNS.with_borrow(|k| {
        k.runs
            .iter()
            .map(|r| &r.bytes[..usize::from(r.len)])
            .find(|r| !r.is_empty() && b.starts_with(r) && ends(r.len()))
            .map(<[u8]>::len)
    })
}

/// The longest run [`name_run`] keeps.
const RUN_BYTES: usize = 120;

/// A run of name bytes read before.
struct KnownRun {
    bytes: [u8; RUN_BYTES],
    len: u8,
}

/// [`name_run`]'s last runs, replaced in turn.
struct KnownRuns {
    runs: [KnownRun; 4],
    next: usize,
}

thread_local! {
    static KNOWN_RUNS: std::cell::RefCell<KnownRuns> = const {
        std::cell::RefCell::new(KnownRuns {
            runs: [const {
                KnownRun {
                    bytes: [0; RUN_BYTES],
                    len: 0,
                }
            }; 4],
            next: 0,
        })
    };
}

/// A Java logger name, optionally with `:%L` (digits or `?`).
fn logger_name(i: &str) -> Res<'_, &str> {
    let n = name_run(i.as_bytes());
    if n == 0 {
        return fail(i, nom::error::ErrorKind::TakeWhile1);
    }
    let (name, rest) = i.split_at(n);
    let rest = match rest.strip_prefix(':') {
        Some(r) => {
            let digits = r.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 {
                &r[digits..]
            } else {
                r.strip_prefix('?').unwrap_or(rest)
            }
        }
        None => rest,
    };
    Ok((rest, name))
}

/// Splits `msg (logger:NN)` or `msg (logger) [thread]` at the logger.
pub(super) fn paren_logger_suffix(s: &str) -> Option<(&str, &str)> {
    let mut candidate = s;
    // Strimzi's ` [%t]` after the logger: try with and without it.
    for _ in 0..2 {
        // The last ` (` (memrchr is faster than a substring search).
        let b = candidate.as_bytes();
        let open = memchr::memrchr(b'(', b)
            .filter(|&i| i > 0 && b[i - 1] == b' ')
            .map(|i| i - 1)
            .or_else(|| candidate.rfind(" ("));
        if let Some(open) = open {
            let inner = &candidate[open + 2..];
            if let Some(inner) = inner.strip_suffix(')')
                && let Ok(("", name)) = logger_name(inner)
                && (name.contains('.') || name.chars().next().is_some_and(char::is_uppercase))
                && !names_a_throwable(name)
            {
                return Some((&s[..open], name));
            }
        } else if let Some(inner) = candidate.strip_prefix('(') {
            // The whole text is `(logger)`: the last line of a multi-line message.
            if let Some(inner) = inner.strip_suffix(')')
                && let Ok(("", name)) = logger_name(inner)
            {
                return Some(("", name));
            }
        }
        // Drop a trailing ` [thread]` and retry once.
        if candidate.ends_with(']') {
            let open = candidate.rfind(" [")?;
            candidate = candidate[..open].trim_end();
        } else {
            return None;
        }
    }
    None
}

/// Does `name` name an exception or error class? Messages end with one in
/// parentheses (`Request joining group due to: … (MemberIdRequiredException)`);
/// no Connect class logs under such a name, so it is never the logger of a
/// layout that prints none.
pub(super) fn names_a_throwable(name: &str) -> bool {
    // The simple name (after the last `.`) ends with a suffix that holds no
    // `.` exactly when the whole name does.
    name.ends_with("Exception") || name.ends_with("Error")
}

/// Splits Debezium's `msg   [logger]`.
pub(super) fn bracket_logger_suffix(s: &str) -> Option<(&str, &str)> {
    let inner = s.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    let name = &inner[open + 1..];
    match logger_name(name) {
        Ok(("", n)) => Some((&s[..open], n)),
        _ => None,
    }
}

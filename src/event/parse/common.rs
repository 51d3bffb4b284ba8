//! Building blocks shared by the message parsers: ids, Java collection
//! `toString`s, the assignment and generation shapes, and small combinators
//! for names that run up to a fixed literal.
//!
//! Every parser here works on `&str` and only ever slices at the start of an
//! ASCII literal it found (or at an index returned by `find`/`rfind`), so it
//! never splits a multi-byte character.

use rustc_hash::FxHashSet;
use std::cell::RefCell;
use std::sync::Arc;

use nom::branch::alt;
use nom::character::complete::{alphanumeric1, i32 as int32, i64 as int64};
use nom::combinator::{map, map_opt, opt, rest, value, verify};
use nom::error::{Error, ErrorKind};
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Parser};

use crate::model::{Assignment, Name, Protocol, Resource, TaskId};

/// Result of the parsers in this module tree.
pub(crate) type PResult<'a, T> = IResult<&'a str, T>;

/// A recoverable nom error at `i`.
pub(crate) fn reject<T>(i: &str, kind: ErrorKind) -> PResult<'_, T> {
    Err(nom::Err::Error(Error::new(i, kind)))
}

/// The literal `t` at the start of the input, like nom's `tag` (the same
/// result and error), compared as one slice: nom's compares byte by byte,
/// and every parser opens with a literal (`Generation{generationId=`,
/// `, connectorIds=`).
pub(crate) fn tag<'a>(t: &'static str) -> impl Fn(&'a str) -> PResult<'a, &'a str> {
    move |i: &'a str| match i.strip_prefix(t) {
        // `t.len()` ends the literal just matched: a char boundary.
        Some(rest) => Ok((rest, &i[..t.len()])),
        None => reject(i, ErrorKind::Tag),
    }
}

/// Everything before the first `pat` (possibly nothing), like nom's
/// `take_until`, without building a substring searcher at every call.
pub(crate) fn take_until<'a>(pat: &'static str) -> impl Fn(&'a str) -> PResult<'a, &'a str> {
    move |i: &'a str| match find_literal(i.as_bytes(), pat.as_bytes()) {
        Some(n) => Ok((&i[n..], &i[..n])),
        None => reject(i, ErrorKind::TakeUntil),
    }
}

/// The first place `pat` occurs in `hay`: its first byte found by memchr,
/// the rest compared (the literals start with a byte rare in their lines,
/// and building a substring searcher would cost more than the search).
fn find_literal(hay: &[u8], pat: &[u8]) -> Option<usize> {
    let (&first, _) = pat.split_first()?;
    let mut at = 0;
    while let Some(k) = memchr::memchr(first, &hay[at..]) {
        let p = at + k;
        if hay[p..].starts_with(pat) {
            return Some(p);
        }
        at = p + 1;
    }
    None
}

/// Names interned per thread: a cluster has a few hundred at most, and the
/// same names come back in every assignment line. Bounded, so a log of
/// ever-new names cannot grow it without limit.
const INTERNED_MAX: usize = 4096;

thread_local! {
    static NAMES: RefCell<Interner> = RefCell::new(Interner::default());
}

/// How many names [`Interner`] keeps at hand.
const RECENT: usize = 64;

/// The interned names, and in front of them the names met last, each in
/// the place a cheap hash of its ends gives it: an assignment line names
/// the same connectors and tasks as the one before, and such a name is
/// found with one comparison instead of a hash-set lookup.
struct Interner {
    names: FxHashSet<Name>,
    recent: [Option<Name>; RECENT],
}

impl Default for Interner {
    fn default() -> Interner {
        Interner {
            names: FxHashSet::default(),
            recent: [const { None }; RECENT],
        }
    }
}

/// The place of `s` in [`Interner::recent`]: from its length and its first
/// and last (up to) eight bytes.
fn recent_slot(s: &[u8]) -> usize {
    let h = match (s.first_chunk::<8>(), s.last_chunk::<8>()) {
        (Some(first), Some(last)) => {
            u64::from_le_bytes(*first) ^ u64::from_le_bytes(*last).rotate_left(29)
        }
        _ => s.iter().fold(0, |h, &b| (h << 8) | u64::from(b)),
    };
    let h = h.wrapping_add(s.len() as u64);
    (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT.trailing_zeros())) as usize
}

/// A connector name as the shared [`Name`] (one allocation per distinct
/// name, and equal names share it, which makes comparing them cheap).
pub(crate) fn name(s: &str) -> Name {
    NAMES.with_borrow_mut(|t| {
        let slot = recent_slot(s.as_bytes());
        if let Some(n) = &t.recent[slot]
            && **n == *s
        {
            return n.clone();
        }
        let n = match t.names.get(s) {
            Some(n) => n.clone(),
            None => {
                if t.names.len() >= INTERNED_MAX {
                    t.names.clear();
                    t.recent = [const { None }; RECENT];
                }
                let n: Name = Arc::from(s);
                t.names.insert(n.clone());
                n
            }
        };
        t.recent[slot] = Some(n.clone());
        n
    })
}

/// `ConnectorTaskId#toString`: the whole string is `<connector>-<index>`.
/// Split at the **last** `-`, so connector names may contain `-`; the index
/// must be plain ASCII digits that fit a `u32` and the name must be non-empty.
pub fn task_id(s: &str) -> Option<TaskId> {
    let (connector, index) = split_task_id(s)?;
    Some(TaskId {
        connector: name(connector),
        index,
    })
}

/// [`task_id`]'s connector name and index, the name not yet interned.
/// The digits are walked back from the end to the `-` before them (a
/// byte other than a digit or `-` there means the last `-` is further
/// left, so the index would not be all digits), then read forward with
/// checked arithmetic (an index past `u32` is no task id).
fn split_task_id(s: &str) -> Option<(&str, u32)> {
    let b = s.as_bytes();
    let start = b.iter().rposition(|c| !c.is_ascii_digit())? + 1;
    if start == b.len() || start < 2 || b[start - 1] != b'-' {
        return None;
    }
    let index = b[start..].iter().try_fold(0u32, |n, &c| {
        n.checked_mul(10)?.checked_add(u32::from(c - b'0'))
    })?;
    // `start - 1` is the index of the ASCII `-`.
    Some((&s[..start - 1], index))
}

// ---------------------------------------------------------------------------
// Combinators for free text bounded by literals
// ---------------------------------------------------------------------------

/// The rest of the input, which must be non-empty.
pub(crate) fn rest1(i: &str) -> PResult<'_, &str> {
    if i.is_empty() {
        reject(i, ErrorKind::NonEmpty)
    } else {
        Ok(("", i))
    }
}

/// The rest of the input must end with `suffix`; yields the non-empty text
/// before it and consumes everything. This is how names that may contain
/// spaces are read when a fixed literal ends the message.
pub(crate) fn before_suffix<'a>(suffix: &'static str) -> impl Fn(&'a str) -> PResult<'a, &'a str> {
    move |i: &'a str| match i.strip_suffix(suffix) {
        Some(s) if !s.is_empty() => Ok(("", s)),
        _ => reject(i, ErrorKind::Tag),
    }
}

/// Non-empty text up to the **last** occurrence of `sep`; consumes the
/// separator too. Used where a free-form name is followed by a literal and a
/// short value (`Creating connector <name> of type <class>`).
pub(crate) fn until_last<'a>(sep: &'static str) -> impl Fn(&'a str) -> PResult<'a, &'a str> {
    move |i: &'a str| match i.rfind(sep) {
        Some(k) if k > 0 => Ok((&i[k + sep.len()..], &i[..k])),
        _ => reject(i, ErrorKind::TakeUntil),
    }
}

/// A connector name running to the end of the input.
pub(crate) fn connector_rest(i: &str) -> PResult<'_, Name> {
    map(rest1, name).parse(i)
}

/// A task id running to the end of the input.
pub(crate) fn task_rest(i: &str) -> PResult<'_, TaskId> {
    map_opt(rest1, task_id).parse(i)
}

/// `connector <name>` or `task <name>-<n>`, running to the end of the input.
pub(crate) fn resource_rest(i: &str) -> PResult<'_, Resource> {
    alt((
        preceded(tag("connector "), map(connector_rest, Resource::Connector)),
        preceded(tag("task "), map(task_rest, Resource::Task)),
    ))
    .parse(i)
}

/// `true` / `false`.
pub(crate) fn boolean(i: &str) -> PResult<'_, bool> {
    alt((value(true, tag("true")), value(false, tag("false")))).parse(i)
}

// ---------------------------------------------------------------------------
// Java collections
// ---------------------------------------------------------------------------

/// The body of `AbstractCollection#toString` (`[a, b]`, `[]`): the text
/// up to the first `]`. Yields the input after the `]` and the body.
fn list_body(input: &str) -> PResult<'_, &str> {
    let Some(body) = input.strip_prefix('[') else {
        return reject(input, ErrorKind::Tag);
    };
    let Some(end) = memchr::memchr(b']', body.as_bytes()) else {
        return reject(input, ErrorKind::Tag);
    };
    // `end` is the index of an ASCII byte.
    Ok((&body[end + 1..], &body[..end]))
}

/// The elements of a [`list_body`], split at `", "` (none for an empty
/// body). An element may be empty: the lists reject that (`[a, ]` and
/// `[, a]` are no lists).
struct Items<'a> {
    rest: Option<&'a str>,
}

impl<'a> Items<'a> {
    fn of(body: &'a str) -> Items<'a> {
        Items {
            rest: (!body.is_empty()).then_some(body),
        }
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        let r = self.rest?;
        let b = r.as_bytes();
        let mut at = 0;
        while let Some(k) = memchr::memchr(b',', &b[at..]) {
            let p = at + k;
            if b.get(p + 1) == Some(&b' ') {
                // `p` and `p + 1` are ASCII bytes.
                self.rest = Some(&r[p + 2..]);
                return Some(&r[..p]);
            }
            at = p + 1;
        }
        self.rest = None;
        Some(r)
    }
}

/// Room for the elements of a list body: one more than its commas.
fn list_room<T>(body: &str) -> Vec<T> {
    if body.is_empty() {
        return Vec::new();
    }
    Vec::with_capacity(body.bytes().filter(|&b| b == b',').count() + 1)
}

/// `[a, b]` / `[]` of connector names.
pub fn name_list(input: &str) -> IResult<&str, Vec<Name>> {
    let (rest, body) = list_body(input)?;
    let mut names = list_room(body);
    for item in Items::of(body) {
        if item.is_empty() {
            return reject(input, ErrorKind::TakeTill1);
        }
        names.push(name(item));
    }
    Ok((rest, names))
}

/// `[a-0, b-1]` / `[]` of task ids; every element must be a valid task id.
/// The tasks of one connector come in a row: its name is looked up once.
pub fn task_list(input: &str) -> IResult<&str, Vec<TaskId>> {
    let (rest, body) = list_body(input)?;
    let mut tasks = list_room(body);
    let mut last: Option<Name> = None;
    for item in Items::of(body) {
        let Some((connector, index)) = split_task_id(item) else {
            return reject(input, ErrorKind::MapOpt);
        };
        let connector = match &last {
            Some(n) if **n == *connector => n.clone(),
            _ => {
                let n = name(connector);
                last = Some(n.clone());
                n
            }
        };
        tasks.push(TaskId { connector, index });
    }
    Ok((rest, tasks))
}

// ---------------------------------------------------------------------------
// Assignment and Generation
// ---------------------------------------------------------------------------

/// `ConnectProtocol.Assignment#toString` (V0, six fields) or
/// `ExtendedAssignment#toString` (nine fields):
///
/// `Assignment{error=0, leader='…', leaderUrl='…', offset=5, connectorIds=[…], taskIds=[…]}`
/// `Assignment{…, taskIds=[…], revokedConnectorIds=[…], revokedTaskIds=[…], delay=0}`
///
/// The quoted fields are read up to the literal that follows them, so any
/// text (including `null`) survives. Read field by field in one pass (the
/// same answer as the sequence of nom parsers in the tests, which is what
/// it replaced: every assignment line goes through here).
pub fn assignment(input: &str) -> IResult<&str, Assignment> {
    let broken = || reject(input, ErrorKind::Tag);
    let Some(i) = input.strip_prefix("Assignment{error=") else {
        return broken();
    };
    let Some((error, i)) = int::<i32>(i) else {
        return broken();
    };
    let Some(i) = i.strip_prefix(", leader='") else {
        return broken();
    };
    let Some(k) = find_literal(i.as_bytes(), b"', leaderUrl='") else {
        return broken();
    };
    let (leader, i) = (&i[..k], &i[k + 1..]);
    let Some(i) = i.strip_prefix(", leaderUrl='") else {
        return broken();
    };
    let Some(k) = find_literal(i.as_bytes(), b"', offset=") else {
        return broken();
    };
    let (leader_url, i) = (&i[..k], &i[k + 1..]);
    let Some(i) = i.strip_prefix(", offset=") else {
        return broken();
    };
    let Some((offset, i)) = int::<i64>(i) else {
        return broken();
    };
    let Some(i) = i.strip_prefix(", connectorIds=") else {
        return broken();
    };
    let Ok((i, connectors)) = name_list(i) else {
        return broken();
    };
    let Some(i) = i.strip_prefix(", taskIds=") else {
        return broken();
    };
    let Ok((i, tasks)) = task_list(i) else {
        return broken();
    };
    // The extension is all three fields or none.
    let extension = || -> Option<(&str, Vec<Name>, Vec<TaskId>, i64)> {
        let e = i.strip_prefix(", revokedConnectorIds=")?;
        let (e, c) = name_list(e).ok()?;
        let e = e.strip_prefix(", revokedTaskIds=")?;
        let (e, t) = task_list(e).ok()?;
        let e = e.strip_prefix(", delay=")?;
        let (d, e) = int::<i64>(e)?;
        Some((e, c, t, d))
    };
    let (i, revoked_connectors, revoked_tasks, delay) = match extension() {
        Some((e, c, t, d)) => (e, Some(c), Some(t), Some(d)),
        None => (i, None, None, None),
    };
    let Some(i) = i.strip_prefix('}') else {
        return broken();
    };
    Ok((
        i,
        Assignment {
            error,
            leader: leader.to_string(),
            leader_url: leader_url.to_string(),
            offset,
            connectors,
            tasks,
            revoked_connectors,
            revoked_tasks,
            delay,
        },
    ))
}

/// A decimal integer as nom's `i32`/`i64` read it: an optional `+` or
/// `-`, then at least one ASCII digit, no overflow; the value and the rest.
fn int<T: Int>(i: &str) -> Option<(T, &str)> {
    let b = i.as_bytes();
    let (negative, from) = match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let digits = b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut v = T::ZERO;
    for &c in &b[from..from + digits] {
        v = v.step(c - b'0', negative)?;
    }
    // The digits are ASCII: a char boundary.
    Some((v, &i[from + digits..]))
}

/// The integer types [`int`] reads.
trait Int: Copy {
    const ZERO: Self;
    /// `self * 10 + d` (`- d` when negative), `None` on overflow.
    fn step(self, d: u8, negative: bool) -> Option<Self>;
}

impl Int for i32 {
    const ZERO: i32 = 0;
    fn step(self, d: u8, negative: bool) -> Option<i32> {
        let t = self.checked_mul(10)?;
        if negative {
            t.checked_sub(i32::from(d))
        } else {
            t.checked_add(i32::from(d))
        }
    }
}

impl Int for i64 {
    const ZERO: i64 = 0;
    fn step(self, d: u8, negative: bool) -> Option<i64> {
        let t = self.checked_mul(10)?;
        if negative {
            t.checked_sub(i64::from(d))
        } else {
            t.checked_add(i64::from(d))
        }
    }
}

/// A generation as the coordinator prints it: a bare int (≤ 2.6.0) or
/// `Generation{generationId=7, memberId='…', protocol='sessioned'}` (2.6.1+).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenerationText<'a> {
    pub id: i32,
    pub member_id: Option<&'a str>,
    /// `None` for the bare form and for protocol names that are not Connect's
    /// (`null` in `Generation.NO_GENERATION`).
    pub protocol: Option<Protocol>,
}

/// `Generation{generationId=<int>, memberId='<id>', protocol='<name>'}` or a bare int.
pub fn generation(input: &str) -> IResult<&str, GenerationText<'_>> {
    let full = map(
        (
            preceded(tag("Generation{generationId="), int32),
            delimited(tag(", memberId='"), take_until("', protocol='"), tag("'")),
            delimited(tag(", protocol='"), take_until("'}"), tag("'}")),
        ),
        |(id, member, protocol)| GenerationText {
            id,
            member_id: Some(member),
            protocol: Protocol::from_name(protocol),
        },
    );
    let bare = map(int32, |id| GenerationText {
        id,
        member_id: None,
        protocol: None,
    });
    alt((full, bare)).parse(input)
}

/// The `toString` of a task class: `WorkerSinkTask{id=`, `WorkerSourceTask{id=`,
/// `ExactlyOnceWorkerSourceTask{id=` (any identifier ending in `Task`), then the
/// task id and a closing `}` that ends the input.
pub(crate) fn worker_task_ref(i: &str) -> PResult<'_, TaskId> {
    preceded(
        terminated(
            verify(alphanumeric1, |s: &str| s.ends_with("Task")),
            tag("{id="),
        ),
        map_opt(before_suffix("}"), task_id),
    )
    .parse(i)
}

/// `WorkerConnector{id=<name>}`, ending the input.
pub(crate) fn worker_connector_ref(i: &str) -> PResult<'_, Name> {
    preceded(tag("WorkerConnector{id="), map(before_suffix("}"), name)).parse(i)
}

/// `restart request for {connectorName='X', onlyFailed=B, includeTasks=B}`
/// (`RestartRequest#toString`, 3.0+); yields `(connector, onlyFailed, includeTasks)`.
pub(crate) fn restart_request(i: &str) -> PResult<'_, (Name, bool, bool)> {
    map(
        (
            preceded(
                tag("restart request for {connectorName='"),
                until_last("', onlyFailed="),
            ),
            boolean,
            preceded(tag(", includeTasks="), boolean),
            tag("}"),
        ),
        |(c, only_failed, include_tasks, _)| (name(c), only_failed, include_tasks),
    )
    .parse(i)
}

/// `plan to restart connector and N of M tasks for <request>` /
/// `plan to restart N of M tasks for <request>` (`RestartPlan#toString`).
pub(crate) fn restart_plan(i: &str) -> PResult<'_, Name> {
    let counts = (int64, tag(" of "), int64, tag(" tasks"));
    map(
        preceded(
            tag("plan to restart "),
            (
                opt(tag("connector and ")),
                counts,
                preceded(tag(" for "), restart_request),
            ),
        ),
        |(_, _, (connector, _, _))| connector,
    )
    .parse(i)
}

/// The unparsed remainder, used where trailing prose may be cut short.
pub(crate) fn any_rest(i: &str) -> PResult<'_, &str> {
    rest(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(c: &str, i: u32) -> TaskId {
        TaskId::new(c, i)
    }

    #[test]
    fn names_are_shared_and_the_table_bounded() {
        let a = task_id("orders-sink-3").unwrap().connector;
        let b = name("orders-sink");
        assert!(Arc::ptr_eq(&a, &b));
        for k in 0..INTERNED_MAX + 10 {
            assert_eq!(&*name(&format!("c{k}")), format!("c{k}"));
        }
        assert!(NAMES.with_borrow(|t| t.names.len()) <= INTERNED_MAX);
        // Still right after the table was cleared.
        assert_eq!(&*name("orders-sink"), "orders-sink");
    }

    #[test]
    fn task_ids_split_at_the_last_dash() {
        assert_eq!(task_id("my-conn-0"), Some(t("my-conn", 0)));
        assert_eq!(task_id("a-b-c-12"), Some(t("a-b-c", 12)));
        assert_eq!(task_id("my conn.v2_x-3"), Some(t("my conn.v2_x", 3)));
        assert_eq!(task_id("123-4"), Some(t("123", 4)));
        assert_eq!(task_id("x-4294967295"), Some(t("x", u32::MAX)));
    }

    #[test]
    fn task_ids_reject_malformed() {
        for bad in [
            "",
            "conn",
            "-0",
            "conn-",
            "conn-a",
            "conn-+1",
            "conn-1 ",
            "conn-1x",
            "conn-4294967296",
            "conn-١",
            "conn-0-",
        ] {
            assert_eq!(task_id(bad), None, "{bad:?}");
        }
        // Only the last '-' separates: the name keeps any trailing '-'.
        assert_eq!(task_id("conn--1"), Some(t("conn-", 1)));
        // A one-byte name, leading zeros and the largest index still are.
        assert_eq!(task_id("0-1"), Some(t("0", 1)));
        assert_eq!(task_id("a-007"), Some(t("a", 7)));
        assert_eq!(task_id("a-4294967295"), Some(t("a", u32::MAX)));
    }

    #[test]
    fn lists() {
        assert_eq!(name_list("[]"), Ok(("", vec![])));
        assert_eq!(
            name_list("[a, my conn, b-c.d_e]rest"),
            Ok(("rest", vec![name("a"), name("my conn"), name("b-c.d_e")]))
        );
        assert_eq!(name_list("[a,b]"), Ok(("", vec![name("a,b")])));
        assert_eq!(
            task_list("[a-0, b-c-12, my conn-1]"),
            Ok(("", vec![t("a", 0), t("b-c", 12), t("my conn", 1)]))
        );
        assert_eq!(task_list("[]"), Ok(("", vec![])));
        assert!(task_list("[a-0, b]").is_err());
        assert!(task_list("[a-0, ]").is_err());
        assert!(task_list("[a-0").is_err());
        assert!(name_list("a, b").is_err());
        assert_eq!(
            task_list("[a-0, a-1, b-2, a-3]"),
            Ok(("", vec![t("a", 0), t("a", 1), t("b", 2), t("a", 3)]))
        );
    }

    /// The lists as nom's `separated_list0` of elements up to `", "` or
    /// `]` read them (the reference the hand-written lists must match).
    fn nom_list<'a, T>(
        input: &'a str,
        item: impl Fn(&'a str) -> Option<T>,
    ) -> Option<(&'a str, Vec<T>)> {
        use nom::multi::separated_list0;
        fn list_item(i: &str) -> PResult<'_, &str> {
            let b = i.as_bytes();
            let mut k = 0;
            while k < b.len() && b[k] != b']' && !(b[k] == b',' && b.get(k + 1) == Some(&b' ')) {
                k += 1;
            }
            if k == 0 {
                return reject(i, ErrorKind::TakeTill1);
            }
            Ok((&i[k..], &i[..k]))
        }
        delimited(
            tag("["),
            separated_list0(tag(", "), map_opt(list_item, item)),
            tag("]"),
        )
        .parse(input)
        .ok()
    }

    #[test]
    fn lists_read_as_nom_reads_them() {
        // Every string of up to 6 bytes over the bytes that matter.
        let alphabet = ["[", "]", ",", " ", "a", "-", "1"];
        let mut cases = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..6 {
            let mut next = Vec::new();
            for p in &frontier {
                for c in alphabet {
                    next.push(format!("{p}{c}"));
                }
            }
            cases.extend(next.iter().cloned());
            frontier = next;
        }
        for s in cases.iter().map(|c| format!("[{c}")).chain(cases.clone()) {
            assert_eq!(name_list(&s).ok(), nom_list(&s, |x| Some(name(x))), "{s:?}");
            assert_eq!(task_list(&s).ok(), nom_list(&s, task_id), "{s:?}");
        }
    }

    /// `assignment` as nom combinators (what the hand-written one replaced).
    fn nom_assignment(input: &str) -> PResult<'_, Assignment> {
        let extension = (
            preceded(tag(", revokedConnectorIds="), name_list),
            preceded(tag(", revokedTaskIds="), task_list),
            preceded(tag(", delay="), int64),
        );
        let (i, (error, leader, leader_url, offset, connectors, tasks, ext, _)) = (
            preceded(tag("Assignment{error="), int32),
            delimited(tag(", leader='"), take_until("', leaderUrl='"), tag("'")),
            delimited(tag(", leaderUrl='"), take_until("', offset="), tag("'")),
            preceded(tag(", offset="), int64),
            preceded(tag(", connectorIds="), name_list),
            preceded(tag(", taskIds="), task_list),
            opt(extension),
            tag("}"),
        )
            .parse(input)?;
        let (revoked_connectors, revoked_tasks, delay) = match ext {
            Some((c, t, d)) => (Some(c), Some(t), Some(d)),
            None => (None, None, None),
        };
        Ok((
            i,
            Assignment {
                error,
                leader: leader.to_string(),
                leader_url: leader_url.to_string(),
                offset,
                connectors,
                tasks,
                revoked_connectors,
                revoked_tasks,
                delay,
            },
        ))
    }

    #[test]
    fn assignments_read_as_nom_reads_them() {
        let shapes = [
            "Assignment{error=0, leader='connect-1-6c8f', leaderUrl='http://localhost:8082/', offset=-1, connectorIds=[], taskIds=[]}",
            "Assignment{error=1, leader='l', leaderUrl='u', offset=45, connectorIds=[a, my conn], taskIds=[a-0, b-c-1], revokedConnectorIds=[x.y], revokedTaskIds=[x.y-3], delay=300000} with rebalance delay: 300000",
            "Assignment{error=+2, leader='', leaderUrl='', offset=+0, connectorIds=[a], taskIds=[a-1], revokedConnectorIds=[], revokedTaskIds=[], delay=-9223372036854775808}",
            "Assignment{error=-2147483648, leader='a', leaderUrl='b', offset=9223372036854775807, connectorIds=[], taskIds=[]}}",
            "Assignment{error=2147483648, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[]}",
            "Assignment{error=0, leader='a', leaderUrl='b', offset=9223372036854775808, connectorIds=[], taskIds=[]}",
            "Assignment{error=0, leader='a', leader', leaderUrl='b', offset=1', offset=2, connectorIds=[], taskIds=[]}",
            "Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[], revokedConnectorIds=[], delay=0}",
            "Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=}",
            "Assignment{error=0, leader='é', leaderUrl='ü', offset=1, connectorIds=[é], taskIds=[é-0]}",
        ];
        for s in shapes {
            // Every prefix, and each with one byte dropped.
            let mut cases: Vec<String> = (0..=s.len())
                .filter(|&k| s.is_char_boundary(k))
                .map(|k| s[..k].to_string())
                .collect();
            for k in (0..s.len()).filter(|&k| s.is_char_boundary(k)) {
                let mut c = s.to_string();
                c.remove(k);
                cases.push(c);
            }
            for c in &cases {
                let want = nom_assignment(c).ok();
                assert_eq!(assignment(c).ok(), want, "{c:?}");
            }
        }
    }

    #[test]
    fn v0_assignment() {
        let s = "Assignment{error=0, leader='connect-1-6c8f', leaderUrl='http://localhost:8082/', offset=-1, connectorIds=[], taskIds=[]}";
        let (rest, a) = assignment(s).unwrap();
        assert_eq!(rest, "");
        assert_eq!(a.error, 0);
        assert_eq!(a.leader, "connect-1-6c8f");
        assert_eq!(a.leader_url, "http://localhost:8082/");
        assert_eq!(a.offset, -1);
        assert!(a.connectors.is_empty() && a.tasks.is_empty());
        assert_eq!(a.revoked_connectors, None);
        assert_eq!(a.revoked_tasks, None);
        assert_eq!(a.delay, None);
        assert!(!a.is_extended());
    }

    #[test]
    fn extended_assignment() {
        let s = "Assignment{error=1, leader='connect-1-3a9d', leaderUrl='http://10.244.3.7:8083/', offset=45, connectorIds=[a, my conn], taskIds=[a-0, b-c-1], revokedConnectorIds=[x.y], revokedTaskIds=[x.y-3], delay=300000} with rebalance delay: 300000";
        let (rest, a) = assignment(s).unwrap();
        assert_eq!(rest, " with rebalance delay: 300000");
        assert!(a.failed());
        assert_eq!(a.leader_url, "http://10.244.3.7:8083/");
        assert_eq!(a.offset, 45);
        assert_eq!(a.connectors, vec![name("a"), name("my conn")]);
        assert_eq!(a.tasks, vec![t("a", 0), t("b-c", 1)]);
        assert_eq!(a.revoked_connectors, Some(vec![name("x.y")]));
        assert_eq!(a.revoked_tasks, Some(vec![t("x.y", 3)]));
        assert_eq!(a.delay, Some(300000));
    }

    #[test]
    fn empty_extended_assignment_keeps_null() {
        let s = "Assignment{error=0, leader='null', leaderUrl='null', offset=-1, connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0}";
        let (_, a) = assignment(s).unwrap();
        assert_eq!(a.leader, "null");
        assert_eq!(a.leader_url, "null");
        assert_eq!(a.revoked_connectors, Some(vec![]));
        assert_eq!(a.revoked_tasks, Some(vec![]));
        assert_eq!(a.delay, Some(0));
        assert!(a.is_extended());
    }

    #[test]
    fn assignment_rejects_broken_shapes() {
        assert!(assignment("Assignment{error=0}").is_err());
        assert!(
            assignment("Assignment{error=0, leader='a', leaderUrl='b', offset=x, connectorIds=[], taskIds=[]}")
                .is_err()
        );
        assert!(
            assignment("Assignment{error=0, leader='a', leaderUrl='b', offset=1, connectorIds=[], taskIds=[bad]}")
                .is_err()
        );
    }

    #[test]
    fn generations() {
        assert_eq!(
            generation("7"),
            Ok((
                "",
                GenerationText {
                    id: 7,
                    member_id: None,
                    protocol: None
                }
            ))
        );
        let (_, g) = generation(
            "Generation{generationId=5, memberId='connect-1-d24c', protocol='sessioned'}",
        )
        .unwrap();
        assert_eq!(g.id, 5);
        assert_eq!(g.member_id, Some("connect-1-d24c"));
        assert_eq!(g.protocol, Some(Protocol::Sessioned));
        let (_, g) =
            generation("Generation{generationId=-1, memberId='', protocol='null'}").unwrap();
        assert_eq!((g.id, g.member_id, g.protocol), (-1, Some(""), None));
        let (_, g) =
            generation("Generation{generationId=2, memberId='m', protocol='default'}").unwrap();
        assert_eq!(g.protocol, Some(Protocol::Eager));
    }

    #[test]
    fn worker_refs() {
        assert_eq!(
            worker_task_ref("WorkerSinkTask{id=my-sink-0}"),
            Ok(("", t("my-sink", 0)))
        );
        assert_eq!(
            worker_task_ref("ExactlyOnceWorkerSourceTask{id=a b-2}"),
            Ok(("", t("a b", 2)))
        );
        assert!(worker_task_ref("WorkerSinkTask{id=nope}").is_err());
        assert!(worker_task_ref("Worker{id=x-0}").is_err());
        assert_eq!(
            worker_connector_ref("WorkerConnector{id=a}b}"),
            Ok(("", name("a}b")))
        );
    }

    #[test]
    fn restart_shapes() {
        let (_, (c, f, i)) = restart_request(
            "restart request for {connectorName='my conn', onlyFailed=false, includeTasks=true}",
        )
        .unwrap();
        assert_eq!((&*c, f, i), ("my conn", false, true));
        let (rest, c) = restart_plan(
            "plan to restart connector and 2 of 2 tasks for restart request for {connectorName='src', onlyFailed=true, includeTasks=true}",
        )
        .unwrap();
        assert_eq!((rest, &*c), ("", "src"));
        let (_, c) = restart_plan(
            "plan to restart 1 of 2 tasks for restart request for {connectorName='a-b', onlyFailed=true, includeTasks=true}",
        )
        .unwrap();
        assert_eq!(&*c, "a-b");
    }

    #[test]
    fn tag_reads_as_nom_reads_it() {
        for t in ["Assignment{error=", "'", "é, x"] {
            for i in [
                "",
                "Assignment{error=0",
                "Assignment{error",
                "'x",
                "é, xy",
                "é,",
                "x",
            ] {
                let nom_tag = nom::bytes::complete::tag::<_, _, Error<&str>>(t)(i);
                assert_eq!(tag(t)(i), nom_tag, "{t:?} {i:?}");
            }
        }
    }

    #[test]
    fn suffix_helpers() {
        assert_eq!(
            before_suffix(" config updated")("my conn config updated"),
            Ok(("", "my conn"))
        );
        assert!(before_suffix(" config updated")(" config updated").is_err());
        assert_eq!(
            until_last(" of type ")("a of type b of type c"),
            Ok(("c", "a of type b"))
        );
        assert!(until_last(" x")(" x").is_err());
    }
}

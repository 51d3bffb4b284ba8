//! Building blocks shared by the message parsers: ids, Java collection
//! `toString`s, the assignment and generation shapes, and small combinators
//! for names that run up to a fixed literal.
//!
//! Every parser here works on `&str` and only ever slices at the start of an
//! ASCII literal it found (or at an index returned by `find`/`rfind`), so it
//! never splits a multi-byte character.

use rustc_hash::FxHashMap;
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
/// The table is keyed by the name's hash ([`Name::hash_of`]); a text whose
/// hash is another's (not met in practice) gets a name of its own, equal
/// to every other name of the same text all the same.
struct Interner {
    names: FxHashMap<u64, Name>,
    recent: [Option<Name>; RECENT],
}

impl Default for Interner {
    fn default() -> Interner {
        Interner {
            names: FxHashMap::default(),
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
        let hash = Name::hash_of(s);
        let n = match t.names.get(&hash) {
            Some(n) if **n == *s => n.clone(),
            Some(_) => Name::new(s),
            None => {
                if t.names.len() >= INTERNED_MAX {
                    t.names.clear();
                    t.recent = [const { None }; RECENT];
                }
                let n = Name::new(s);
                t.names.insert(hash, n.clone());
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

/// `[a, b]` / `[]` of connector names (the assignment reads
/// [`shared_names`]).
#[cfg(test)]
pub fn name_list(input: &str) -> IResult<&str, Vec<Name>> {
    map(shared_names, |n| n.to_vec()).parse(input)
}

/// [`name_list`], the list shared with the other lists of the same text
/// read lately.
fn shared_names(input: &str) -> IResult<&str, Arc<[Name]>> {
    let (rest, body) = list_body(input)?;
    match LISTS.with_borrow_mut(|m| m.names.get_or_parse(body, names_of)) {
        Some(names) => Ok((rest, names)),
        None => reject(input, ErrorKind::TakeTill1),
    }
}

/// The names of a non-empty list body (`None`: an element is empty).
fn names_of(body: &str) -> Option<Vec<Name>> {
    let mut names = list_room(body);
    for item in Items::of(body) {
        if item.is_empty() {
            return None;
        }
        names.push(name(item));
    }
    Some(names)
}

/// `[a-0, b-1]` / `[]` of task ids; every element must be a valid task id.
pub fn task_list(input: &str) -> IResult<&str, Vec<TaskId>> {
    map(shared_tasks, |t| t.to_vec()).parse(input)
}

/// [`task_list`], the list shared with the other lists of the same text
/// read lately.
fn shared_tasks(input: &str) -> IResult<&str, Arc<[TaskId]>> {
    let (rest, body) = list_body(input)?;
    match LISTS.with_borrow_mut(|m| m.tasks.get_or_parse(body, tasks_of)) {
        Some(tasks) => Ok((rest, tasks)),
        None => reject(input, ErrorKind::MapOpt),
    }
}

/// The task ids of a non-empty list body (`None`: an element is no task
/// id). The tasks of one connector come in a row: its name is looked up
/// once.
fn tasks_of(body: &str) -> Option<Vec<TaskId>> {
    let mut tasks = list_room(body);
    let mut last: Option<Name> = None;
    for item in Items::of(body) {
        let (connector, index) = split_task_id(item)?;
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
    Some(tasks)
}

thread_local! {
    static LISTS: RefCell<Lists> = RefCell::new(Lists::default());
}

/// The lists of connectors and of tasks read lately, by their text.
#[derive(Default)]
struct Lists {
    names: ListMemo<Name>,
    tasks: ListMemo<TaskId>,
}

/// Lists read lately, each kept with its text in the slot a cheap hash of
/// the text gives it (as [`Interner::recent`]; bounded). A worker's
/// assignment line nearly always lists the connectors and tasks of its line
/// before (nine lines in ten on the simulated archives, and on a cluster
/// whose membership moves little): such a list is compared, not parsed
/// again, and its elements cloned. Only lists that parsed are kept, so the
/// answer is the parser's for every text.
struct ListMemo<T> {
    slots: [Option<Kept<T>>; RECENT],
    /// The empty list (most revoked lists), shared too.
    empty: Arc<[T]>,
}

/// A list kept, with its text.
type Kept<T> = (Box<str>, Arc<[T]>);

impl<T> Default for ListMemo<T> {
    fn default() -> ListMemo<T> {
        ListMemo {
            slots: [const { None }; RECENT],
            empty: Arc::from([]),
        }
    }
}

impl<T> ListMemo<T> {
    /// The list `body` says: the one kept for the same text, else
    /// `parse`'s (kept when it parsed).
    fn get_or_parse(&mut self, body: &str, parse: fn(&str) -> Option<Vec<T>>) -> Option<Arc<[T]>> {
        if body.is_empty() {
            return Some(self.empty.clone());
        }
        let slot = &mut self.slots[recent_slot(body.as_bytes())];
        if let Some((text, list)) = slot
            && **text == *body
        {
            return Some(list.clone());
        }
        let list: Arc<[T]> = Arc::from(parse(body)?);
        *slot = Some((Box::from(body), list.clone()));
        Some(list)
    }
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
    let Ok((i, connectors)) = shared_names(i) else {
        return broken();
    };
    let Some(i) = i.strip_prefix(", taskIds=") else {
        return broken();
    };
    let Ok((i, tasks)) = shared_tasks(i) else {
        return broken();
    };
    // The extension is all three fields or none.
    type Revoked = (Arc<[Name]>, Arc<[TaskId]>);
    let extension = || -> Option<(&str, Revoked, i64)> {
        let e = i.strip_prefix(", revokedConnectorIds=")?;
        let (e, c) = shared_names(e).ok()?;
        let e = e.strip_prefix(", revokedTaskIds=")?;
        let (e, t) = shared_tasks(e).ok()?;
        let e = e.strip_prefix(", delay=")?;
        let (d, e) = int::<i64>(e)?;
        Some((e, (c, t), d))
    };
    let (i, revoked_connectors, revoked_tasks, delay) = match extension() {
        Some((e, (c, t), d)) => (e, Some(c), Some(t), Some(d)),
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
mod tests;

//! Plain data shared by every stage: resources, assignments, time stamps
//! ([`crate::time`]) and references to the log lines that prove things.

pub use crate::time::Timestamp;
pub(crate) use crate::time::civil_from_days;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::OnceCell;
use std::fmt;
use std::sync::Arc;

/// A connector name. Shared, because the same name is held by many states,
/// and carrying a hash of its text made once, when the name is made: a
/// table keyed by names or resources hashes that number instead of the
/// text, and two names compare as the same allocation, else by their
/// hashes, and only when those agree by their text. Equal names made apart
/// (on two threads, or after the parser's table of names was cleared) are
/// still equal; the allocation and the hash are only shortcuts.
#[derive(Clone)]
pub struct Name(Arc<NameInner>);

/// A name's one shared part: its hash and its text (the text an `Arc` of
/// its own, which the JSON writers key their quoted copies by).
struct NameInner {
    hash: u64,
    text: Arc<str>,
}

impl Name {
    /// The name of `text`, its hash computed.
    pub fn new(text: &str) -> Name {
        Name::from(Arc::<str>::from(text))
    }
    /// The hash of the text (the same for equal texts, in every run).
    #[inline]
    pub fn hash_value(&self) -> u64 {
        self.0.hash
    }
    /// The shared text.
    pub fn as_arc(&self) -> &Arc<str> {
        &self.0.text
    }
    /// Are both the same allocation (then they are equal)?
    #[inline]
    pub fn ptr_eq(a: &Name, b: &Name) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
    /// The hash [`Name`] keeps for `text`.
    pub fn hash_of(text: &str) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(text)
    }
}

/// The empty name.
impl Default for Name {
    fn default() -> Name {
        Name::new("")
    }
}

impl From<Arc<str>> for Name {
    fn from(text: Arc<str>) -> Name {
        let hash = Name::hash_of(&text);
        Name(Arc::new(NameInner { hash, text }))
    }
}
impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}
impl From<String> for Name {
    fn from(text: String) -> Name {
        Name::from(Arc::<str>::from(text))
    }
}
impl From<Name> for Arc<str> {
    fn from(n: Name) -> Arc<str> {
        n.0.text.clone()
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        &self.0.text
    }
}
impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0.text
    }
}

impl PartialEq for Name {
    #[inline]
    fn eq(&self, other: &Name) -> bool {
        Name::ptr_eq(self, other) || (self.0.hash == other.0.hash && *self.0.text == *other.0.text)
    }
}
impl Eq for Name {}

/// The kept hash only (equal names have equal hashes).
impl std::hash::Hash for Name {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}

/// By text, the same allocation at once.
impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        cmp_names(self, other)
    }
}
impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0.text, f)
    }
}
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0.text, f)
    }
}

/// As the text.
impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.text)
    }
}
impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        Arc::<str>::deserialize(d).map(Name::from)
    }
}

/// `ConnectorTaskId`: connector name and task index (`my-conn-0`).
#[derive(Debug, Clone)]
pub struct TaskId {
    pub connector: Name,
    pub index: u32,
}

/// The index first (one comparison), then the name.
impl PartialEq for TaskId {
    #[inline]
    fn eq(&self, other: &TaskId) -> bool {
        self.index == other.index && self.connector == other.connector
    }
}
impl Eq for TaskId {}

/// One number: the name's hash mixed with the index.
impl std::hash::Hash for TaskId {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash_value());
    }
}

/// Names in order, the same name (interned: one allocation) at once.
fn cmp_names(a: &Name, b: &Name) -> std::cmp::Ordering {
    if Name::ptr_eq(a, b) {
        std::cmp::Ordering::Equal
    } else {
        (*a.0.text).cmp(&*b.0.text)
    }
}

/// By connector, then index (the derived order, with a shortcut for
/// interned names).
impl Ord for TaskId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        cmp_names(&self.connector, &other.connector).then(self.index.cmp(&other.index))
    }
}
impl PartialOrd for TaskId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl TaskId {
    pub fn new(connector: &str, index: u32) -> Self {
        TaskId {
            connector: Name::new(connector),
            index,
        }
    }
    /// The hash of the task: its name's, mixed with the index (never the
    /// name's alone, which is its connector's).
    #[inline]
    pub fn hash_value(&self) -> u64 {
        self.connector.0.hash ^ (u64::from(self.index) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.connector, self.index)
    }
}

/// A unit of work the group assigns: a connector or one of its tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    Connector(Name),
    Task(TaskId),
}

/// One number: the name's hash for a connector, the task's for a task.
impl std::hash::Hash for Resource {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash_value());
    }
}

/// Connectors before tasks, then by name (and index): the derived order.
impl Ord for Resource {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        use std::cmp::Ordering::{Greater, Less};
        match (self, other) {
            (Resource::Connector(a), Resource::Connector(b)) => cmp_names(a, b),
            (Resource::Task(a), Resource::Task(b)) => a.cmp(b),
            (Resource::Connector(_), Resource::Task(_)) => Less,
            (Resource::Task(_), Resource::Connector(_)) => Greater,
        }
    }
}
impl PartialOrd for Resource {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Resource {
    /// The number [`Resource`]'s `Hash` writes.
    #[inline]
    pub fn hash_value(&self) -> u64 {
        match self {
            Resource::Connector(n) => n.0.hash,
            Resource::Task(t) => t.hash_value(),
        }
    }
    pub fn connector_name(&self) -> &Name {
        match self {
            Resource::Connector(n) => n,
            Resource::Task(t) => &t.connector,
        }
    }
    /// The id as Connect prints it (`name` or `name-N`).
    pub fn id(&self) -> String {
        match self {
            Resource::Connector(n) => n.to_string(),
            Resource::Task(t) => t.to_string(),
        }
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resource::Connector(n) => write!(f, "connector {n}"),
            Resource::Task(t) => write!(f, "task {t}"),
        }
    }
}

impl Serialize for Resource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match self {
            Resource::Connector(n) => {
                let mut st = s.serialize_struct("Resource", 3)?;
                st.serialize_field("type", "connector")?;
                st.serialize_field("id", &**n)?;
                st.serialize_field("connector", &**n)?;
                st.end()
            }
            Resource::Task(t) => {
                let mut st = s.serialize_struct("Resource", 4)?;
                st.serialize_field("type", "task")?;
                st.serialize_field("id", &t.to_string())?;
                st.serialize_field("connector", &*t.connector)?;
                st.serialize_field("task", &t.index)?;
                st.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Resource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Resource, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            #[serde(rename = "type")]
            kind: String,
            connector: String,
            task: Option<u32>,
        }
        let w = Wire::deserialize(d)?;
        match (w.kind.as_str(), w.task) {
            ("connector", None) => Ok(Resource::Connector(Name::from(w.connector))),
            ("task", Some(i)) => Ok(Resource::Task(TaskId::new(&w.connector, i))),
            _ => Err(serde::de::Error::custom(format!(
                "not a resource: type {:?} with task {:?}",
                w.kind, w.task
            ))),
        }
    }
}

/// The assignment a worker received from the group leader, as printed by
/// `ConnectProtocol.Assignment#toString` (V0, six fields) or
/// `ExtendedAssignment#toString` (nine fields, 2.3.0 and later).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Assignment {
    /// 0 = NO_ERROR, 1 = CONFIG_MISMATCH.
    pub error: i32,
    pub leader: String,
    pub leader_url: String,
    pub offset: i64,
    /// The lists are shared: the parser hands on the same lists for the
    /// same text (`event::parse::common`'s list memo), and the replay keeps
    /// them.
    pub connectors: Arc<[Name]>,
    pub tasks: Arc<[TaskId]>,
    /// `None` for the V0 shape, which has no revoked sets.
    pub revoked_connectors: Option<Arc<[Name]>>,
    pub revoked_tasks: Option<Arc<[TaskId]>>,
    pub delay: Option<i64>,
}

impl Assignment {
    pub fn failed(&self) -> bool {
        self.error != 0
    }
    pub fn is_extended(&self) -> bool {
        self.revoked_connectors.is_some()
    }
    pub fn resources(&self) -> impl Iterator<Item = Resource> + '_ {
        self.connectors
            .iter()
            .map(|c| Resource::Connector(c.clone()))
            .chain(self.tasks.iter().map(|t| Resource::Task(t.clone())))
    }
    pub fn revoked(&self) -> impl Iterator<Item = Resource> + '_ {
        self.revoked_connectors
            .iter()
            .flat_map(|v| v.iter())
            .map(|c| Resource::Connector(c.clone()))
            .chain(
                self.revoked_tasks
                    .iter()
                    .flat_map(|v| v.iter())
                    .map(|t| Resource::Task(t.clone())),
            )
    }
    pub fn has_revocations(&self) -> bool {
        self.revoked_connectors
            .as_ref()
            .is_some_and(|v| !v.is_empty())
            || self.revoked_tasks.as_ref().is_some_and(|v| !v.is_empty())
    }
    pub fn holds(&self, r: &Resource) -> bool {
        match r {
            Resource::Connector(n) => self.connectors.iter().any(|c| c == n),
            Resource::Task(t) => self.tasks.iter().any(|x| x == t),
        }
    }
    pub fn revokes(&self, r: &Resource) -> bool {
        match r {
            Resource::Connector(n) => self
                .revoked_connectors
                .as_ref()
                .is_some_and(|v| v.iter().any(|c| c == n)),
            Resource::Task(t) => self
                .revoked_tasks
                .as_ref()
                .is_some_and(|v| v.iter().any(|x| x == t)),
        }
    }
}

/// The group protocol a worker runs (docs/rules.md, "Protocols").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Version 0: every rebalance stops everything.
    Eager,
    /// Version 1 (KIP-415).
    Compatible,
    /// Version 2 (KIP-507).
    Sessioned,
}

impl Protocol {
    pub fn from_version(v: i64) -> Option<Protocol> {
        match v {
            0 => Some(Protocol::Eager),
            1 => Some(Protocol::Compatible),
            2 => Some(Protocol::Sessioned),
            _ => None,
        }
    }
    /// `Generation{… protocol='…'}` and `connect.protocol = …` names.
    pub fn from_name(name: &str) -> Option<Protocol> {
        match name {
            "default" | "eager" => Some(Protocol::Eager),
            "compatible" => Some(Protocol::Compatible),
            "sessioned" => Some(Protocol::Sessioned),
            _ => None,
        }
    }
    pub fn is_cooperative(self) -> bool {
        !matches!(self, Protocol::Eager)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Eager => "eager",
            Protocol::Compatible => "compatible",
            Protocol::Sessioned => "sessioned",
        }
    }
}

/// The place of an item in the merged order.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Key {
    /// Log time (ms) of the stream when the item was made; `i64::MIN`
    /// before its first time stamp.
    pub ts: i64,
    /// The stream's rank in the run.
    pub stream: u32,
    /// Position among the stream's items (from 1).
    pub seq: u64,
}

impl Key {
    /// Below every item's key.
    pub const MIN: Key = Key {
        ts: i64::MIN,
        stream: 0,
        seq: 0,
    };
    /// Above every item's key.
    pub const MAX: Key = Key {
        ts: i64::MAX,
        stream: u32::MAX,
        seq: u64::MAX,
    };
}

/// Index of an input in the run's table of sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SourceId(pub u32);

/// One physical log line that an event came from: where it is, when it was
/// logged, and its text (kept so findings can quote it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLine {
    pub source: SourceId,
    /// 1-based line number within the source.
    pub line: u64,
    /// Position in the worker's stream (stitched segments included): orders
    /// the lines of one worker in time.
    pub seq: u64,
    pub ts: Option<Timestamp>,
    /// The whole line as read (lossily decoded, without the line ending).
    pub text: Arc<str>,
    /// Byte range of the log message within `text` (for compact quoting).
    pub msg: (u32, u32),
}

impl SourceLine {
    /// Was this line read before `other` in the same worker's stream?
    pub fn before(&self, other: &SourceLine) -> bool {
        self.seq < other.seq
    }
    pub fn message(&self) -> &str {
        let (a, b) = self.msg;
        self.text.get(a as usize..b as usize).unwrap_or(&self.text)
    }
}

impl SourceLine {
    /// The line as the replay reads it (its text already kept).
    pub fn as_line(&self) -> Line<'_> {
        Line {
            source: self.source,
            line: self.line,
            seq: self.seq,
            ts: self.ts,
            msg: self.msg,
            text: &self.text,
            kept: OnceCell::from(self.text.clone()),
        }
    }
}

/// A line as the replay reads it: its place, and its text borrowed from
/// the reader's buffer. The text is copied into the `Arc<str>` of a
/// [`SourceLine`] only when something keeps the line ([`Line::keep`]),
/// once however many keep it.
#[derive(Debug)]
pub struct Line<'a> {
    pub source: SourceId,
    /// 1-based line number within the source.
    pub line: u64,
    /// Position in the worker's stream ([`SourceLine::seq`]).
    pub seq: u64,
    pub ts: Option<Timestamp>,
    /// Byte range of the log message within the text.
    pub msg: (u32, u32),
    text: &'a str,
    kept: OnceCell<Arc<str>>,
}

impl<'a> Line<'a> {
    pub fn new(
        source: SourceId,
        line: u64,
        seq: u64,
        ts: Option<Timestamp>,
        text: &'a str,
        msg: (u32, u32),
    ) -> Line<'a> {
        Line {
            source,
            line,
            seq,
            ts,
            msg,
            text,
            kept: OnceCell::new(),
        }
    }

    /// The same line as the `seq`th of a worker.
    pub fn with_seq(mut self, seq: u64) -> Line<'a> {
        self.seq = seq;
        self
    }

    /// The whole line as read.
    pub fn text(&self) -> &'a str {
        self.text
    }

    pub fn message(&self) -> &'a str {
        let (a, b) = self.msg;
        self.text.get(a as usize..b as usize).unwrap_or(self.text)
    }

    /// The line, kept: its text copied on the first call, shared after.
    pub fn keep(&self) -> SourceLine {
        SourceLine {
            source: self.source,
            line: self.line,
            seq: self.seq,
            ts: self.ts,
            text: self.kept.get_or_init(|| Arc::from(self.text)).clone(),
            msg: self.msg,
        }
    }

    /// The text's copy, if something kept the line.
    pub fn kept(&self) -> Option<&Arc<str>> {
        self.kept.get()
    }

    /// Was this line read before `other` in the same worker's stream?
    pub fn before(&self, other: &SourceLine) -> bool {
        self.seq < other.seq
    }
}

/// Position of a line in the run, used to order lines of one stream.
impl PartialOrd for SourceLine {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for SourceLine {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.source, self.line).cmp(&(other.source, other.line))
    }
}

/// Where a record is in Kafka: its topic (when the dump names it: the
/// console consumer prints no topic), partition and offset (absent from a
/// console dump made without `print.partition` / `print.offset`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RecordRef {
    pub topic: Option<Arc<str>>,
    pub partition: Option<i32>,
    pub offset: Option<i64>,
}

impl fmt::Display for RecordRef {
    /// `connect-status[0]@57`; `?` for what the dump did not print.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.topic {
            Some(t) => f.write_str(t)?,
            None => f.write_str("?")?,
        }
        match self.partition {
            Some(p) => write!(f, "[{p}]")?,
            None => f.write_str("[?]")?,
        }
        match self.offset {
            Some(o) => write!(f, "@{o}"),
            None => f.write_str("@?"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_order_connectors_first_then_by_name_and_index() {
        let c = |n: &str| Resource::Connector(Name::new(n));
        let t = |n: &str, i| Resource::Task(TaskId::new(n, i));
        let shared: Name = Name::new("b");
        let mut v = [
            t("b", 10),
            Resource::Task(TaskId {
                connector: shared.clone(),
                index: 2,
            }),
            c("b"),
            t("a-b", 0),
            Resource::Connector(shared.clone()),
            t("b", 2),
            c("a"),
            t("a", 1),
        ];
        v.sort();
        let ids: Vec<String> = v.iter().map(ToString::to_string).collect();
        assert_eq!(
            ids,
            [
                "connector a",
                "connector b",
                "connector b",
                "task a-1",
                "task a-b-0",
                "task b-2",
                "task b-2",
                "task b-10"
            ]
        );
        assert_eq!(
            Resource::Connector(shared.clone()).cmp(&c("b")),
            std::cmp::Ordering::Equal
        );
    }

    #[test]
    fn names_made_apart_are_equal_and_hash_alike() {
        use std::hash::BuildHasher;
        let h = |r: &Resource| rustc_hash::FxBuildHasher.hash_one(r);
        let (a, b) = (Name::new("orders"), Name::from(String::from("orders")));
        assert!(!Name::ptr_eq(&a, &b));
        assert_eq!(a, b);
        assert_eq!(a.hash_value(), b.hash_value());
        assert_ne!(a, Name::new("orders2"));
        let (ta, tb) = (
            Resource::Task(TaskId {
                connector: a.clone(),
                index: 3,
            }),
            Resource::Task(TaskId {
                connector: b.clone(),
                index: 3,
            }),
        );
        assert_eq!(ta, tb);
        assert_eq!(h(&ta), h(&tb));
        assert_eq!(
            h(&Resource::Connector(a.clone())),
            h(&Resource::Connector(b))
        );
        // A task's hash is not its connector's.
        assert_ne!(h(&ta), h(&Resource::Connector(a.clone())));
        // The text's order, its text shown and written.
        assert!(Name::new("a-b") < Name::new("a0"));
        assert_eq!(format!("{a} {a:?}"), "orders \"orders\"");
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"orders\"");
        let back: Name = serde_json::from_str("\"orders\"").unwrap();
        assert_eq!(back, a);
        assert_eq!(Name::default(), Name::new(""));
    }

    #[test]
    fn assignment_queries() {
        let a = Assignment {
            connectors: Arc::from([Name::new("a")]),
            tasks: Arc::from([TaskId::new("a", 0)]),
            revoked_connectors: Some(Arc::from([])),
            revoked_tasks: Some(Arc::from([TaskId::new("b", 1)])),
            ..Default::default()
        };
        assert!(a.holds(&Resource::Task(TaskId::new("a", 0))));
        assert!(!a.holds(&Resource::Task(TaskId::new("b", 1))));
        assert!(a.revokes(&Resource::Task(TaskId::new("b", 1))));
        assert!(a.has_revocations());
        assert_eq!(a.resources().count(), 2);
    }
}

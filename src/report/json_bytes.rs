//! Compact JSON written straight into a byte buffer, byte for byte as
//! `serde_json::to_writer` writes it: the findings of a storm quote
//! megabytes of log lines, and serde_json's string escape (a table lookup
//! per byte, a call into the writer per run) was most of their cost.
//! Strings are scanned a block of bytes at a time for the bytes JSON
//! escapes.

/// Does any byte of the block need escaping in a JSON string (`"`, `\` or
/// a control byte below 0x20)? Branch-free over a fixed-size block, which
/// the compiler turns into a few vector compares. `c ^ 2 <= 0x20` holds
/// for the control bytes and `"` (0x22) alone: one compare for both.
#[inline]
fn block_needs_escape(block: &[u8; BLOCK]) -> bool {
    block.iter().fold(0u8, |acc, &c| {
        acc | u8::from(c ^ 2 <= 0x20) | u8::from(c == b'\\')
    }) != 0
}

/// The bytes a string is scanned by at a time.
const BLOCK: usize = 32;

/// How serde_json escapes a byte: `Some(b"")` for `\u00XX`, `None` when
/// the byte is kept.
#[inline]
fn escape_of(b: u8) -> Option<&'static [u8]> {
    match b {
        b'"' => Some(b"\\\""),
        b'\\' => Some(b"\\\\"),
        0x08 => Some(b"\\b"),
        0x0c => Some(b"\\f"),
        b'\n' => Some(b"\\n"),
        b'\r' => Some(b"\\r"),
        b'\t' => Some(b"\\t"),
        0x00..=0x1f => Some(b""),
        _ => None,
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a JSON string (quotes included).
pub fn string(s: &str, out: &mut Vec<u8>) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    escaped(s.as_bytes(), out);
    out.push(b'"');
}

/// Appends the bytes of a string as JSON quotes them, without the quotes.
fn escaped(b: &[u8], out: &mut Vec<u8>) {
    if clean(b) {
        // The usual case: nothing to escape, one copy.
        out.extend_from_slice(b);
        return;
    }
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        // Clean blocks are skipped whole; the first block holding a byte to
        // escape goes byte by byte.
        while let Some(block) = b.get(i..i + BLOCK) {
            let block: &[u8; BLOCK] = block.try_into().unwrap_or(&[0; BLOCK]);
            if block_needs_escape(block) {
                break;
            }
            i += BLOCK;
        }
        let end = (i + BLOCK).min(b.len());
        if end - i < BLOCK {
            // The tail, tested as one block padded with a plain byte.
            let mut tail = [b'a'; BLOCK];
            tail[..end - i].copy_from_slice(&b[i..end]);
            if !block_needs_escape(&tail) {
                break;
            }
        }
        while i < end {
            let c = b[i];
            if let Some(esc) = escape_of(c) {
                out.extend_from_slice(&b[copied..i]);
                if esc.is_empty() {
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[usize::from(c >> 4)]);
                    out.push(HEX[usize::from(c & 0xf)]);
                } else {
                    out.extend_from_slice(esc);
                }
                copied = i + 1;
            }
            i += 1;
        }
    }
    out.extend_from_slice(&b[copied..]);
}

/// Does no byte of `b` need an escape? Blocks from the start, then the
/// last block (which may overlap the one before it); a string shorter
/// than a block is tested as one block padded with a plain byte.
#[inline]
fn clean(b: &[u8]) -> bool {
    if b.len() < BLOCK {
        let mut block = [b'a'; BLOCK];
        block[..b.len()].copy_from_slice(b);
        return !block_needs_escape(&block);
    }
    let mut blocks = b.chunks_exact(BLOCK);
    if blocks.any(|c| block_needs_escape(c.try_into().unwrap_or(&[0; BLOCK]))) {
        return false;
    }
    let last: &[u8; BLOCK] = b[b.len() - BLOCK..].try_into().unwrap_or(&[0; BLOCK]);
    !block_needs_escape(last)
}

/// Appends `"` + `s` + `"` for a string known to need no escape (ASCII
/// names, digits, time stamps).
pub fn plain(s: &[u8], out: &mut Vec<u8>) {
    debug_assert!(!s.iter().any(|&c| c ^ 2 <= 0x20 || c == b'\\'));
    out.push(b'"');
    out.extend_from_slice(s);
    out.push(b'"');
}

/// Appends `s` as a JSON string, reusing the quoted bytes when the same
/// text was already quoted into `out` (a finding quotes its trigger line
/// among its evidence, and a storm's evidence repeats one line from
/// several workers' logs) or is the carried one ([`Carried`]: the
/// previous finding's trigger): the text is compared, not escaped again.
#[derive(Default)]
pub struct Quoted<'a> {
    seen: [(&'a str, usize, usize); 4],
    n: usize,
}

impl<'a> Quoted<'a> {
    /// Appends `s` quoted; returns where in `out` the quoted form is.
    pub fn string(&mut self, s: &'a str, carried: &Carried, out: &mut Vec<u8>) -> (usize, usize) {
        let a = out.len();
        // The same line (one `Arc`) is found by its address.
        let same = |t: &&str| (t.as_ptr() == s.as_ptr() && t.len() == s.len()) || *t == s;
        if let Some(&(_, from, to)) = self.seen[..self.n].iter().find(|(t, _, _)| same(t)) {
            out.extend_from_within(from..to);
        } else if let Some((_, quoted)) = carried.0.as_ref().filter(|(t, _)| **t == *s) {
            out.extend_from_slice(quoted);
        } else {
            string(s, out);
        }
        if self.n < self.seen.len() {
            self.seen[self.n] = (s, a, out.len());
            self.n += 1;
        }
        (a, out.len())
    }
}

/// A text and its quoted form, kept from one finding to the next.
#[derive(Default)]
pub struct Carried(Option<(std::sync::Arc<str>, Vec<u8>)>);

impl Carried {
    /// Keeps `text`, quoted as `quoted`, unless it is kept already.
    pub fn keep(&mut self, text: &std::sync::Arc<str>, quoted: &[u8]) {
        match &mut self.0 {
            Some((t, _)) if std::sync::Arc::ptr_eq(t, text) => {}
            Some((t, q)) => {
                *t = text.clone();
                q.clear();
                q.extend_from_slice(quoted);
            }
            None => self.0 = Some((text.clone(), quoted.to_vec())),
        }
    }
}

/// The quoted forms of shared strings (`Arc<str>`: worker labels, groups,
/// fingerprint ids and messages, which a storm's findings repeat), each
/// found by the string's address: a kept `Arc` holds its address, so no
/// other string has it while it is kept. At most [`Shared::MAX`] are kept.
#[derive(Default)]
pub struct Shared {
    quoted: rustc_hash::FxHashMap<usize, (std::sync::Arc<str>, Box<[u8]>)>,
}

impl Shared {
    const MAX: usize = 256;

    /// Appends `s` as a JSON string.
    pub fn string(&mut self, s: &std::sync::Arc<str>, out: &mut Vec<u8>) {
        let at = std::sync::Arc::as_ptr(s).cast::<u8>() as usize;
        if let Some((_, q)) = self.quoted.get(&at) {
            out.extend_from_slice(q);
            return;
        }
        let from = out.len();
        string(s, out);
        if self.quoted.len() >= Self::MAX {
            self.quoted.clear();
        }
        self.quoted
            .insert(at, (s.clone(), out[from..].to_vec().into_boxed_slice()));
    }

    /// [`Shared::string`] or `null`.
    pub fn opt_string(&mut self, s: Option<&std::sync::Arc<str>>, out: &mut Vec<u8>) {
        match s {
            Some(s) => self.string(s, out),
            None => out.extend_from_slice(b"null"),
        }
    }
}

/// The quoted forms of the run's source names, by source number: each
/// finding quotes the source of each of its lines. A name is compared
/// with the one kept before its quoted form is used (the names of one
/// run do not change, but the writer outlives a run).
#[derive(Default)]
pub struct Sources {
    /// Per source number: the name and its quoted form.
    quoted: Vec<Option<Kept>>,
}

/// A name and its quoted form.
type Kept = (Box<str>, Box<[u8]>);

impl Sources {
    /// Appends the name `name` of source `id` as a JSON string.
    pub fn string(&mut self, id: u32, name: &str, out: &mut Vec<u8>) {
        let i = id as usize;
        if let Some(Some((kept, q))) = self.quoted.get(i)
            && **kept == *name
        {
            out.extend_from_slice(q);
            return;
        }
        let from = out.len();
        string(name, out);
        if i < 1 << 16 {
            if self.quoted.len() <= i {
                self.quoted.resize(i + 1, None);
            }
            self.quoted[i] = Some((name.into(), out[from..].into()));
        }
    }
}

/// Appends an integer.
pub fn integer(i: impl Into<i64>, out: &mut Vec<u8>) {
    let i: i64 = i.into();
    if i < 0 {
        out.push(b'-');
    }
    unsigned(i.unsigned_abs(), out);
}

/// Appends an integer or `null`.
pub fn opt_integer(i: Option<impl Into<i64>>, out: &mut Vec<u8>) {
    match i {
        Some(i) => integer(i, out),
        None => out.extend_from_slice(b"null"),
    }
}

/// Appends an unsigned integer: its digits counted first, then written
/// in place from the last (into room made in one fixed-size piece, cut to
/// their number).
pub fn unsigned(n: u64, out: &mut Vec<u8>) {
    let mut digits = 1;
    let mut m = n;
    while m >= 10 {
        m /= 10;
        digits += 1;
    }
    let at = out.len();
    out.extend_from_slice(&[b'0'; 20]);
    out.truncate(at + digits);
    let mut n = n;
    for d in out[at..].iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// Appends a string or `null`.
pub fn opt_string(s: Option<&str>, out: &mut Vec<u8>) {
    match s {
        Some(s) => string(s, out),
        None => out.extend_from_slice(b"null"),
    }
}

/// `ResourceOut` (`json_out.rs`) as serde_json's compact form writes it: the
/// connector's quoted name (shared) written once and copied for the id.
pub fn resource_line(r: &crate::model::Resource, shared: &mut Shared, out: &mut Vec<u8>) {
    use crate::model::Resource;
    out.extend_from_slice(b"{\"connector\":");
    let from = out.len();
    shared.string(
        match r {
            Resource::Connector(n) => n.as_arc(),
            Resource::Task(t) => t.connector.as_arc(),
        },
        out,
    );
    let to = out.len();
    out.extend_from_slice(b",\"id\":");
    out.extend_from_within(from..to);
    match r {
        Resource::Connector(_) => out.extend_from_slice(b",\"type\":\"connector\"}"),
        Resource::Task(t) => {
            // `<connector>-<n>`: the connector's quoted form, then `-<n>`
            // inside the quotes (neither needs an escape).
            out.pop();
            out.push(b'-');
            unsigned(u64::from(t.index), out);
            out.extend_from_slice(b"\",\"task\":");
            unsigned(u64::from(t.index), out);
            out.extend_from_slice(b",\"type\":\"task\"}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ours(s: &str) -> String {
        let mut v = Vec::new();
        string(s, &mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn every_byte_escapes_as_serde_json_does() {
        for c in 0u32..0x300 {
            let Some(ch) = char::from_u32(c) else {
                continue;
            };
            // Alone, and at every place of a word.
            for pad in 0..10 {
                let s = format!("{}{ch}{}", "a".repeat(pad), "b".repeat(9 - pad));
                assert_eq!(
                    ours(&s),
                    serde_json::to_string(&s).unwrap(),
                    "{c:#x} at {pad}"
                );
            }
        }
    }

    #[test]
    fn numbers_write_as_serde_json_does() {
        for n in [0i64, 7, -7, 10, 99, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            integer(n, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
        let mut out = Vec::new();
        unsigned(u64::MAX, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), u64::MAX.to_string());
    }

    #[test]
    fn escapes_at_every_place_of_long_strings() {
        // Every byte to escape at every offset of strings longer than a
        // block, so that each lands in a clean block's place, a block
        // with an escape, and the tail.
        for c in [
            '"', '\\', '\n', '\u{1}', '\u{1f}', ' ', '!', '#', '\u{7f}', 'é',
        ] {
            for len in [31, 32, 33, 63, 64, 65, 100] {
                for at in 0..len {
                    let s: String = (0..len).map(|k| if k == at { c } else { 'x' }).collect();
                    assert_eq!(
                        ours(&s),
                        serde_json::to_string(&s).unwrap(),
                        "{c:?} {len} {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn quoted_texts_are_reused_byte_for_byte() {
        let (a, b) = ("a \"quoted\" line", String::from("a \"quoted\" line"));
        let mut q = Quoted::default();
        let mut out = Vec::new();
        let mut carried = Carried::default();
        let kept: std::sync::Arc<str> = "kept \"\\\" text".into();
        carried.keep(&kept, serde_json::to_string(&*kept).unwrap().as_bytes());
        for s in [a, "other", &b, "x", "y", &kept, "z", "w", a, &kept] {
            q.string(s, &carried, &mut out);
            out.push(b',');
        }
        let want: String = [a, "other", &b, "x", "y", &kept, "z", "w", a, &kept]
            .iter()
            .map(|s| serde_json::to_string(s).unwrap() + ",")
            .collect();
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn shared_and_source_names_quote_as_serde_json_does() {
        let names: Vec<std::sync::Arc<str>> = vec!["a\"b".into(), "c".into(), "a\"b".into()];
        let mut shared = Shared::default();
        let mut sources = Sources::default();
        let mut out = Vec::new();
        for round in 0..2 {
            for (k, n) in names.iter().enumerate() {
                shared.string(n, &mut out);
                // The same source number under another name in round 1.
                let name = if round == 0 { &**n } else { "other\n" };
                sources.string(k as u32, name, &mut out);
            }
        }
        shared.opt_string(None, &mut out);
        let want: String = ["a\"b", "a\"b", "c", "c", "a\"b", "a\"b"]
            .iter()
            .chain(&["a\"b", "other\n", "c", "other\n", "a\"b", "other\n"])
            .map(|s| serde_json::to_string(s).unwrap())
            .collect::<String>()
            + "null";
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    proptest! {
        #[test]
        fn strings_write_as_serde_json_does(s in "\\PC*|[\\x00-\\x7f]{0,40}|[\\x00-\\x7f]{30,140}") {
            prop_assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
        }
    }
}

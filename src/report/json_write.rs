//! Compact JSON written straight into a byte buffer, byte for byte as
//! `serde_json::to_writer` writes it: the findings of a storm quote
//! megabytes of log lines, and serde_json's string escape (a table lookup
//! per byte, a call into the writer per run) was most of their cost.
//! Strings are scanned a block of bytes at a time for the bytes JSON
//! escapes.

use serde_json::Value;

/// Does any byte of the block need escaping in a JSON string (`"`, `\` or
/// a control byte below 0x20)? Branch-free over a fixed-size block, which
/// the compiler turns into a few vector compares.
#[inline]
fn block_needs_escape(block: &[u8; BLOCK]) -> bool {
    block.iter().fold(0u8, |acc, &c| {
        acc | u8::from(c < 0x20) | u8::from(c == b'"') | u8::from(c == b'\\')
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
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        // Clean blocks are skipped whole; the first block holding a byte to
        // escape, and the tail, go byte by byte.
        while let Some(block) = b.get(i..i + BLOCK) {
            let block: &[u8; BLOCK] = block.try_into().unwrap_or(&[0; BLOCK]);
            if block_needs_escape(block) {
                break;
            }
            i += BLOCK;
        }
        let end = (i + BLOCK).min(b.len());
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
    out.push(b'"');
}

/// Appends `v` as serde_json's compact form writes it (object keys in the
/// map's order: sorted, serde_json being built without `preserve_order`).
pub fn value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                integer(i, out);
            } else {
                // Floats (none in findings): serde_json's own writer.
                let _ = serde_json::to_writer(&mut *out, n);
            }
        }
        Value::String(s) => string(s, out),
        Value::Array(a) => {
            out.push(b'[');
            for (k, x) in a.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                value(x, out);
            }
            out.push(b']');
        }
        Value::Object(m) => {
            out.push(b'{');
            for (k, (key, x)) in m.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                string(key, out);
                out.push(b':');
                value(x, out);
            }
            out.push(b'}');
        }
    }
}

/// Appends an integer.
pub fn integer(i: impl Into<i64>, out: &mut Vec<u8>) {
    let i: i64 = i.into();
    let mut buf = [0u8; 20];
    let mut n = i.unsigned_abs();
    let mut p = buf.len();
    loop {
        p -= 1;
        buf[p] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if i < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&buf[p..]);
}

/// Appends an unsigned integer.
pub fn unsigned(n: u64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut n = n;
    let mut p = buf.len();
    loop {
        p -= 1;
        buf[p] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[p..]);
}

/// Appends a string or `null`.
pub fn opt_string(s: Option<&str>, out: &mut Vec<u8>) {
    match s {
        Some(s) => string(s, out),
        None => out.extend_from_slice(b"null"),
    }
}

/// Appends `"key":` (keys are plain ASCII: no escape).
pub fn key(k: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    out.extend_from_slice(k.as_bytes());
    out.extend_from_slice(b"\":");
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
    fn values_write_as_serde_json_does() {
        let v = serde_json::json!({
            "b": [1, -2, null, true, false, "x\"y", {"z": "\u{1}\n"}],
            "a": i64::MIN,
            "c": u64::MAX,
            "d": 1.5,
            "e": {},
            "f": [],
        });
        let mut out = Vec::new();
        value(&v, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&v).unwrap()
        );
        for n in [0i64, 7, -7, 10, 99, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            integer(n, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
        let mut out = Vec::new();
        unsigned(u64::MAX, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), u64::MAX.to_string());
    }

    proptest! {
        #[test]
        fn strings_write_as_serde_json_does(s in "\\PC*|[\\x00-\\x7f]{0,40}") {
            prop_assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
        }
    }
}

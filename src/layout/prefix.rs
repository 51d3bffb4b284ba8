//! The prefixes multiplexing tools put on every line of several streams
//! written to one file: docker compose `name  | ` and `kubectl logs
//! --prefix` `[pod/name/container] `. They are read with the record head
//! that follows them ([`super::envelope`]), and name the line's stream.
//! (Envelopes of whole streams are the input's: `src/input/sources/`.)

use super::{Res, fail};

/// Identifies the stream a multiplexing tool labelled a line with: docker
/// compose `name  | ` or kubectl `--prefix` `[pod/name/container] `. Time
/// stamps (kubectl `--timestamps`, Docker Desktop) and decorations (`# `,
/// indentation) are not streams.
pub fn stream_key(prefix: &str) -> Option<&str> {
    let p = prefix.trim();
    if p.is_empty() {
        return None;
    }
    if let Ok((_, name)) = compose_prefix(p) {
        return Some(name);
    }
    if let Ok((_, name)) = kubectl_prefix(p) {
        return Some(name);
    }
    None
}

/// Splits a raw line into its stream key (if any) and the text after the
/// stream prefix; used for continuation lines of multiplexed files.
pub fn split_stream(line: &str) -> (Option<&str>, &str) {
    if let Ok((rest, name)) = compose_prefix(line) {
        return (Some(name), rest);
    }
    let trimmed = line.trim_start();
    if let Ok((rest, name)) = kubectl_prefix(trimmed) {
        return (Some(name), rest);
    }
    (None, line)
}

/// Is `c` a byte of a compose service or kubectl pod name?
pub(super) fn stream_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-')
}

/// `kafka-connect-1  | ` (compose pads names to a common width). Read by
/// hand (it is tried on every record head of a segment's first lines).
pub(super) fn compose_prefix(i: &str) -> Res<'_, &str> {
    let b = i.as_bytes();
    let name = b.iter().take_while(|&&c| stream_name_byte(c)).count();
    if name == 0 {
        return fail(i, nom::error::ErrorKind::TakeWhile1);
    }
    let blanks = b[name..].iter().take_while(|&&c| c == b' ').count();
    if blanks == 0 {
        return fail(&i[name..], nom::error::ErrorKind::TakeWhile1);
    }
    let bar = name + blanks;
    if b.get(bar) != Some(&b'|') {
        return fail(&i[bar..], nom::error::ErrorKind::Char);
    }
    // Every byte read is ASCII: char boundaries.
    let rest = &i[bar + 1..];
    Ok((rest.strip_prefix(' ').unwrap_or(rest), &i[..name]))
}

/// `[pod/connect-0/connect] ` (kubectl logs --prefix). Read by hand, like
/// [`compose_prefix`].
pub(super) fn kubectl_prefix(i: &str) -> Res<'_, &str> {
    let b = i.as_bytes();
    if b.first() != Some(&b'[') {
        return fail(i, nom::error::ErrorKind::Char);
    }
    let pod = b[1..].iter().take_while(|&&c| stream_name_byte(c)).count();
    if pod == 0 {
        return fail(&i[1..], nom::error::ErrorKind::TakeWhile1);
    }
    let slash = 1 + pod;
    if b.get(slash) != Some(&b'/') {
        return fail(&i[slash..], nom::error::ErrorKind::Char);
    }
    // The rest of the name runs to a `]` or a blank (ASCII bytes: a
    // multi-byte character is taken whole).
    let tail = b[slash + 1..]
        .iter()
        .take_while(|&&c| c != b']' && c != b' ')
        .count();
    if tail == 0 {
        return fail(&i[slash + 1..], nom::error::ErrorKind::TakeWhile1);
    }
    let close = slash + 1 + tail;
    if b.get(close) != Some(&b']') {
        return fail(&i[close..], nom::error::ErrorKind::Char);
    }
    let rest = &i[close + 1..];
    Ok((rest.strip_prefix(' ').unwrap_or(rest), &i[1..close]))
}

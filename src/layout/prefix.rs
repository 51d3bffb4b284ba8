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
fn stream_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-')
}

/// Can the line be `{` after a stream prefix ([`split_stream`]) and
/// blanks? Not when it opens with a `[` that opens no kubectl prefix
/// (`[pod/`: a record head's `[2024-05-01 ` does not), nor when it opens
/// with a name byte that opens no compose prefix (`name  |`: a record
/// head's `2024-05-01 10:` does not). Other lines may. Read from the first
/// bytes only, by the prefixes' own openings.
pub(super) fn may_open_json(b: &[u8]) -> bool {
    match b.first() {
        Some(b'[') => kubectl_slash(b).is_some(),
        Some(&c) if stream_name_byte(c) => compose_bar(b).is_some(),
        _ => true,
    }
}

/// A compose prefix's opening: a name, blanks and the `|`, as (the name's
/// length, the `|`'s index).
fn compose_bar(b: &[u8]) -> Option<(usize, usize)> {
    let name = b.iter().take_while(|&&c| stream_name_byte(c)).count();
    let blanks = b[name..].iter().take_while(|&&c| c == b' ').count();
    let bar = name + blanks;
    (name > 0 && blanks > 0 && b.get(bar) == Some(&b'|')).then_some((name, bar))
}

/// A kubectl prefix's opening: `[`, the pod's name and the `/`, as the
/// `/`'s index.
fn kubectl_slash(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&b'[') {
        return None;
    }
    let pod = b[1..].iter().take_while(|&&c| stream_name_byte(c)).count();
    let slash = 1 + pod;
    (pod > 0 && b.get(slash) == Some(&b'/')).then_some(slash)
}

/// `kafka-connect-1  | ` (compose pads names to a common width). Read by
/// hand (it is tried on every record head of a segment's first lines).
pub(super) fn compose_prefix(i: &str) -> Res<'_, &str> {
    let Some((name, bar)) = compose_bar(i.as_bytes()) else {
        return fail(i, nom::error::ErrorKind::Char);
    };
    // Every byte read is ASCII: char boundaries.
    let rest = &i[bar + 1..];
    Ok((rest.strip_prefix(' ').unwrap_or(rest), &i[..name]))
}

/// `[pod/connect-0/connect] ` (kubectl logs --prefix). Read by hand, like
/// [`compose_prefix`].
pub(super) fn kubectl_prefix(i: &str) -> Res<'_, &str> {
    let b = i.as_bytes();
    let Some(slash) = kubectl_slash(b) else {
        return fail(i, nom::error::ErrorKind::Char);
    };
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

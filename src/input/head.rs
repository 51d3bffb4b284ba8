//! The head of a stream: its first bytes, read once before the scan to
//! tell what the stream is (a log source's envelope, a terminal copy, a
//! layout without loggers), then handed on again in front of the rest, so
//! that the stream is read from its start as if nothing had been read.

use std::io::{self, Read};

/// Bytes of a stream's head that are looked at: some 700 lines, enough to
/// see records cut at a terminal's width (a worker's start-up alone prints
/// lines of many hundred characters: the JVM class path, the assignment).
pub const HEAD_BYTES: usize = 128 * 1024;

/// Reads up to [`HEAD_BYTES`] of `inner`: the head, the error that ended
/// it early if one did, and the reader of the rest.
pub fn read_head<R: Read>(mut inner: R) -> (Vec<u8>, Option<io::Error>, R) {
    let mut head = Vec::with_capacity(HEAD_BYTES);
    let mut error = None;
    loop {
        match (&mut inner)
            .take((HEAD_BYTES - head.len()) as u64)
            .read_to_end(&mut head)
        {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    (head, error, inner)
}

/// Where the lines of a head end: its newlines, found once for every test
/// of the head (the wrap width, the layout) instead of once by each.
pub fn line_ends(head: &[u8]) -> Vec<u32> {
    // A head is at most `HEAD_BYTES` long (a rejoined one no longer). Room
    // for lines of 64 bytes on average (a Connect log's are ≈ 150): the
    // vector is allocated once instead of growing by doubling from empty.
    let mut ends = Vec::with_capacity(head.len() / 64 + 1);
    ends.extend(memchr::memchr_iter(b'\n', head).map(|i| i as u32));
    ends
}

/// A stream read again from its start: the head already read (freed once
/// handed on), the error that ended it if one did, then the rest.
pub struct HeadThen<R> {
    head: Vec<u8>,
    pos: usize,
    error: Option<io::Error>,
    inner: R,
}

impl<R> HeadThen<R> {
    /// `head` (already read from `inner`), then `error` once if reading
    /// the head ended with one, then the rest of `inner`.
    pub fn new(head: Vec<u8>, error: Option<io::Error>, inner: R) -> HeadThen<R> {
        HeadThen {
            head,
            pos: 0,
            error,
            inner,
        }
    }
}

impl<R: Read> Read for HeadThen<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.head.len() {
            let n = buf.len().min(self.head.len() - self.pos);
            buf[..n].copy_from_slice(&self.head[self.pos..self.pos + n]);
            self.pos += n;
            if self.pos == self.head.len() {
                self.head = Vec::new();
                self.pos = 0;
            }
            return Ok(n);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ends_are_every_newline() {
        let every = |h: &[u8]| -> Vec<u32> {
            (0..h.len() as u32)
                .filter(|&i| h[i as usize] == b'\n')
                .collect()
        };
        let mut long = Vec::new();
        for i in 0..3_000 {
            long.extend(std::iter::repeat_n(b'x', i % 200));
            long.push(b'\n');
        }
        for head in [&b""[..], b"\n", b"no newline", b"a\nb\r\n\nc", &long[..]] {
            assert_eq!(line_ends(head), every(head));
        }
    }
}

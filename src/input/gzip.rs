//! gzip decoding of every member of a file, the gzip wrapper (header,
//! CRC-32 and length check) handled by zlib-rs itself.
//!
//! flate2's own gzip decoders parse the header in Rust and check the
//! CRC-32 of the output with `crc32fast` in a second pass over every
//! decoded byte. zlib-rs in gzip mode (window bits 16 + 15) folds the
//! CRC-32 into the copy of the output it makes into its window anyway, so
//! the bytes the window keeps are not read a second time, and it reads the
//! header as part of the stream. Members follow one another as
//! `logrotate` and `cat` make them: when one ends and more bytes follow,
//! they are read as the next member (trailing bytes that are not one are
//! an error, as they were with flate2's `MultiGzDecoder`).
//!
//! Errors are worded as flate2's decoders worded them, so that a report
//! says the same of the same file: "invalid gzip header", "corrupt deflate
//! stream", "corrupt gzip stream does not have a matching checksum"
//! (`InvalidInput`), and a stream cut short is `UnexpectedEof`.

use std::io::{self, BufRead, Read};

use flate2::{Decompress, FlushDecompress, Status};

/// The inflate window of gzip as `gzip` writes it (32 KiB).
const WINDOW_BITS: u8 = 15;

/// A reader of all the members of a gzip file read from `R`'s buffer.
pub struct MultiGz<R> {
    inner: R,
    inflate: Decompress,
    /// The last member ended with the input: nothing more to read.
    done: bool,
}

impl<R: BufRead> MultiGz<R> {
    pub fn new(inner: R) -> MultiGz<R> {
        MultiGz {
            inner,
            inflate: Decompress::new_gzip(WINDOW_BITS),
            done: false,
        }
    }

    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// At the end of a member: the next begins if bytes follow.
    fn next_member(&mut self) -> io::Result<()> {
        if self.inner.fill_buf()?.is_empty() {
            self.done = true;
        } else {
            self.inflate.reset(true);
        }
        Ok(())
    }
}

impl<R: BufRead> Read for MultiGz<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        while !self.done {
            let input = self.inner.fill_buf()?;
            let eof = input.is_empty();
            let flush = if eof {
                FlushDecompress::Finish
            } else {
                FlushDecompress::None
            };
            let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
            let status = self.inflate.decompress(input, out, flush);
            let consumed = (self.inflate.total_in() - in0) as usize;
            let written = (self.inflate.total_out() - out0) as usize;
            self.inner.consume(consumed);
            match status {
                Ok(Status::StreamEnd) => self.next_member()?,
                Ok(_) if written == 0 && eof => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "incomplete gzip stream",
                    ));
                }
                Ok(_) => {}
                Err(e) => return Err(corrupt(e.message())),
            }
            if written > 0 {
                return Ok(written);
            }
        }
        Ok(0)
    }
}

/// The error of a stream zlib-rs found corrupt, named by what was wrong.
fn corrupt(zlib_message: Option<&str>) -> io::Error {
    let what = match zlib_message {
        Some(
            "incorrect header check"
            | "unknown compression method"
            | "unknown header flags set"
            | "header crc mismatch",
        ) => "invalid gzip header",
        Some("incorrect data check" | "incorrect length check") => {
            "corrupt gzip stream does not have a matching checksum"
        }
        _ => "corrupt deflate stream",
    };
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn text(n: u32) -> Vec<u8> {
        (0..n)
            .flat_map(|i| {
                format!("[2024-05-01 10:00:00,{:03}] INFO line {i} (x)\n", i % 1000).into_bytes()
            })
            .collect()
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Reads everything with reads of `step` bytes from a buffer of
    /// `buf` bytes.
    fn decode(gz: &[u8], buf: usize, step: usize) -> io::Result<Vec<u8>> {
        let mut d = MultiGz::new(io::BufReader::with_capacity(buf, gz));
        let mut out = Vec::new();
        let mut chunk = vec![0; step];
        loop {
            let n = d.read(&mut chunk)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&chunk[..n]);
        }
    }

    #[test]
    fn one_member_in_any_steps() {
        let t = text(20_000);
        let gz = gzip(&t);
        for (buf, step) in [(1, 1), (7, 100), (4096, 3000), (1 << 17, 1 << 18)] {
            assert_eq!(decode(&gz, buf, step).unwrap(), t, "{buf} {step}");
        }
    }

    #[test]
    fn members_follow_one_another() {
        let (a, b) = (text(5_000), text(300));
        let mut gz = gzip(&a);
        gz.extend(gzip(b""));
        gz.extend(gzip(&b));
        for (buf, step) in [(3, 5), (4096, 1 << 18)] {
            assert_eq!(
                decode(&gz, buf, step).unwrap(),
                [a.clone(), b.clone()].concat()
            );
        }
        // flate2's own decoder agrees.
        let mut all = Vec::new();
        flate2::read::MultiGzDecoder::new(&gz[..])
            .read_to_end(&mut all)
            .unwrap();
        assert_eq!(all, [a, b].concat());
    }

    #[test]
    fn header_fields_are_skipped() {
        let t = text(100);
        let mut e = flate2::GzBuilder::new()
            .filename("connect.log")
            .comment("rotated")
            .extra(vec![1, 2, 3])
            .write(Vec::new(), flate2::Compression::fast());
        e.write_all(&t).unwrap();
        let gz = e.finish().unwrap();
        assert_eq!(decode(&gz, 2, 10).unwrap(), t);
    }

    #[test]
    fn damage_is_named_as_flate2_named_it() {
        let t = text(20_000);
        let gz = gzip(&t);
        let ours = |gz: &[u8]| {
            let e = decode(gz, 4096, 1 << 16).unwrap_err();
            (e.kind(), e.to_string())
        };
        let flate2s = |gz: &[u8]| {
            let e = flate2::bufread::MultiGzDecoder::new(gz)
                .read_to_end(&mut Vec::new())
                .unwrap_err();
            (e.kind(), e.to_string())
        };
        // Cut in the header, the body and the trailer.
        for cut in [5, gz.len() / 2, gz.len() - 3] {
            assert_eq!(ours(&gz[..cut]).0, io::ErrorKind::UnexpectedEof, "{cut}");
            assert_eq!(flate2s(&gz[..cut]).0, io::ErrorKind::UnexpectedEof, "{cut}");
        }
        let damaged = |at: usize, len: usize| {
            let mut bad = gz.clone();
            bad[at..at + len].iter_mut().for_each(|b| *b ^= 0x5a);
            bad
        };
        // The compression method, the first block's code tables, the
        // middle of the body, the CRC-32 in the trailer.
        let cases = [
            (damaged(2, 1), "invalid gzip header"),
            (damaged(10, 16), "corrupt deflate stream"),
            (damaged(gz.len() / 2, 16), ""),
            (
                damaged(gz.len() - 8, 1),
                "corrupt gzip stream does not have a matching checksum",
            ),
            (
                [gz.clone(), b"not a gzip member".to_vec()].concat(),
                "invalid gzip header",
            ),
        ];
        for (bad, message) in cases {
            let (kind, text) = ours(&bad);
            assert_eq!((kind, &text), (flate2s(&bad).0, &flate2s(&bad).1));
            assert_eq!(kind, io::ErrorKind::InvalidInput);
            assert!(text.starts_with(message), "{text}");
        }
    }
}

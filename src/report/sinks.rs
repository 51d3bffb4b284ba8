//! Printers that write each finding as it becomes final (text, JSON
//! lines). The lines of one batch (what the reducer hands on at once) are
//! kept and written and flushed together at its end, or sooner when they
//! fill [`FLUSH_AT`] bytes, so that a live audit shows them at once.

use super::{json, text};
use crate::audit::{Names, Sink};
use crate::finding::Finding;
use std::io::{self, Write};

/// Pending output past this many bytes is written before its batch ends.
pub const FLUSH_AT: usize = 64 * 1024;

/// Text diagnostics, one per finding.
pub struct TextSink<W: Write + Send> {
    pub out: W,
    /// Findings written.
    pub written: u64,
    pending: Vec<u8>,
}

impl<W: Write + Send> TextSink<W> {
    pub fn new(out: W) -> TextSink<W> {
        TextSink {
            out,
            written: 0,
            pending: Vec::new(),
        }
    }
}

/// Writes `pending` to `out` and empties it; with `flush`, flushes `out`.
fn hand_on(pending: &mut Vec<u8>, out: &mut dyn Write, flush: bool) -> io::Result<()> {
    if !pending.is_empty() {
        let r = out.write_all(pending);
        pending.clear();
        if pending.capacity() > 1 << 20 {
            // One huge batch does not keep its buffer.
            *pending = Vec::new();
        }
        r?;
    }
    if flush { out.flush() } else { Ok(()) }
}

impl<W: Write + Send> Sink for TextSink<W> {
    fn finding(&mut self, names: &dyn Names, f: Finding) -> io::Result<()> {
        text::write_finding(names, &f, &mut self.pending)?;
        self.written += 1;
        if self.pending.len() >= FLUSH_AT {
            hand_on(&mut self.pending, &mut self.out, false)?;
        }
        Ok(())
    }

    fn batch_end(&mut self) -> io::Result<()> {
        hand_on(&mut self.pending, &mut self.out, true)
    }
}

/// One JSON object per finding and line.
pub struct JsonlSink<W: Write + Send> {
    pub out: W,
    pending: Vec<u8>,
}

impl<W: Write + Send> JsonlSink<W> {
    pub fn new(out: W) -> JsonlSink<W> {
        JsonlSink {
            out,
            pending: Vec::new(),
        }
    }
}

impl<W: Write + Send> Sink for JsonlSink<W> {
    fn finding(&mut self, names: &dyn Names, f: Finding) -> io::Result<()> {
        json::push_jsonl_finding(names, &f, &mut self.pending);
        if self.pending.len() >= FLUSH_AT {
            hand_on(&mut self.pending, &mut self.out, false)?;
        }
        Ok(())
    }

    fn batch_end(&mut self) -> io::Result<()> {
        hand_on(&mut self.pending, &mut self.out, true)
    }
}

//! Printers that write each finding as it becomes final (text, JSON
//! lines), flushed at once so that a live audit shows it at once.

use super::{json, text};
use crate::audit::{Names, Sink};
use crate::finding::Finding;
use std::io::{self, Write};

/// Text diagnostics, one per finding.
pub struct TextSink<W: Write + Send> {
    pub out: W,
    /// Findings written.
    pub written: u64,
}

impl<W: Write + Send> TextSink<W> {
    pub fn new(out: W) -> TextSink<W> {
        TextSink { out, written: 0 }
    }
}

impl<W: Write + Send> Sink for TextSink<W> {
    fn finding(&mut self, names: &dyn Names, f: Finding) -> io::Result<()> {
        text::write_finding(names, &f, &mut self.out)?;
        self.written += 1;
        self.out.flush()
    }
}

/// One JSON object per finding and line.
pub struct JsonlSink<W: Write + Send> {
    pub out: W,
}

impl<W: Write + Send> JsonlSink<W> {
    pub fn new(out: W) -> JsonlSink<W> {
        JsonlSink { out }
    }
}

impl<W: Write + Send> Sink for JsonlSink<W> {
    fn finding(&mut self, names: &dyn Names, f: Finding) -> io::Result<()> {
        json::write_jsonl_finding(names, &f, &mut self.out)?;
        self.out.flush()
    }
}

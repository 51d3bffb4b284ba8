//! The last line a replay read: its place, and its text in a buffer
//! reused from line to line, copied into an `Arc<str>` only when a fact
//! names the line (a silence, a restart's preamble, the log's end).

use crate::model::{Line, SourceId, SourceLine, Timestamp};
use std::sync::Arc;

#[derive(Debug)]
pub(super) struct LastLine {
    source: SourceId,
    line: u64,
    seq: u64,
    pub ts: Option<Timestamp>,
    msg: (u32, u32),
    /// The text, unless `kept` holds it.
    text: String,
    /// The text's shared copy, when the line was kept.
    kept: Option<Arc<str>>,
}

impl LastLine {
    pub fn new(l: &Line) -> LastLine {
        let mut last = LastLine {
            source: l.source,
            line: l.line,
            seq: l.seq,
            ts: l.ts,
            msg: l.msg,
            text: String::new(),
            kept: None,
        };
        last.set(l);
        last
    }

    /// `l` is the last line now: its text shared if something kept it,
    /// else copied into the buffer.
    pub fn set(&mut self, l: &Line) {
        self.source = l.source;
        self.line = l.line;
        self.seq = l.seq;
        self.ts = l.ts;
        self.msg = l.msg;
        match l.kept() {
            Some(a) => self.kept = Some(a.clone()),
            None => {
                self.kept = None;
                self.text.clear();
                self.text.push_str(l.text());
            }
        }
    }

    /// The line, kept: its text copied on the first call, shared after.
    pub fn keep(&mut self) -> SourceLine {
        let text = match &self.kept {
            Some(a) => a.clone(),
            None => {
                let a: Arc<str> = Arc::from(self.text.as_str());
                self.kept = Some(a.clone());
                a
            }
        };
        SourceLine {
            source: self.source,
            line: self.line,
            seq: self.seq,
            ts: self.ts,
            text,
            msg: self.msg,
        }
    }
}

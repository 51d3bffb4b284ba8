//! What the reader did to a segment, told to the workers read from it:
//! the envelope it took off ([`super::Decoded`]) and the wrap width of a
//! terminal copy it rejoined, each once per worker, and the lines as
//! stored that the lines read stand for.

/// Tells each worker of a rejoined segment (a multiplexed file holds
/// several), once, that its records were rejoined, and of any envelope the
/// reader took off the segment ([`super`]).
#[derive(Debug, Default)]
pub struct RejoinNote {
    /// The wrap width of the segment being read.
    width: Option<usize>,
    /// The width the workers in `told` were told of.
    told_width: Option<usize>,
    told: Vec<Option<String>>,
    /// The envelope of the segment being read.
    source: Option<super::Decoded>,
    /// The envelope note the workers in `told_source` were told of.
    told_note: Option<String>,
    told_source: Vec<Option<String>>,
}

impl RejoinNote {
    /// A segment begins, wrapped at `width` or not wrapped (workers told
    /// of the same width in an earlier segment are not told again), in an
    /// envelope or not.
    pub fn segment(&mut self, width: Option<usize>, source: Option<&super::Decoded>) {
        self.width = width;
        if width.is_some() && width != self.told_width {
            self.told.clear();
            self.told_width = width;
        }
        self.source = source.cloned();
        if let Some(d) = source
            && self.told_note.as_ref() != Some(&d.note)
        {
            self.told_source.clear();
            self.told_note = Some(d.note.clone());
        }
    }

    /// Is there nothing to tell (a plain segment: no envelope, not
    /// rejoined)? Then [`RejoinNote::take`] says nothing for any worker.
    #[inline]
    pub fn quiet(&self) -> bool {
        self.source.is_none() && self.width.is_none()
    }

    /// The notes for the summary of the worker of stream `stream`, the
    /// first time one of its events is read from a rejoined segment or an
    /// envelope.
    pub fn take(&mut self, stream: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(d) = &self.source
            && !self.told_source.iter().any(|s| s.as_deref() == stream)
        {
            self.told_source.push(stream.map(str::to_string));
            out.push(d.note.clone());
            out.extend(d.unordered.note(stream));
        }
        if let Some(width) = self.width
            && !self.told.iter().any(|s| s.as_deref() == stream)
        {
            self.told.push(stream.map(str::to_string));
            out.push(format!(
                "a terminal copy wrapped at {width} characters: its records were rejoined, and each is quoted on the line of its first part"
            ));
        }
        out
    }

    /// The last lines of the streams of the segment being read (an export
    /// of several sources): numbers as read, texts.
    pub fn tails(&self) -> Vec<(u64, String)> {
        self.source
            .as_ref()
            .map(|d| d.tails.to_vec())
            .unwrap_or_default()
    }

    /// The line a line read is stored on, in the segment being read.
    pub fn stored_line(&self, n: u64) -> u64 {
        match self.source.as_ref().and_then(|d| d.lines.as_ref()) {
            Some(m) => m.stored(n),
            None => n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Arc;

    #[test]
    fn each_worker_of_a_rejoined_segment_is_told_once() {
        let mut n = RejoinNote::default();
        n.segment(None, None);
        assert!(n.take(None).is_empty());
        n.segment(Some(120), None);
        assert!(n.take(None)[0].contains("wrapped at 120 characters"));
        assert!(n.take(None).is_empty());
        assert_eq!(n.take(Some("connect-2")).len(), 1);
        // A later segment of the same stream, same width: not again.
        n.segment(None, None);
        n.segment(Some(120), None);
        assert!(n.take(None).is_empty());
        n.segment(Some(80), None);
        assert!(n.take(None)[0].contains("wrapped at 80 characters"));
    }

    #[test]
    fn each_worker_of_an_envelope_is_told_once_and_lines_are_mapped() {
        use crate::input::sources::{Decoded, Format, LineMap, order::Unordered};
        let d = Decoded {
            format: Format::Cri,
            note: "read as x".to_string(),
            lines: Some(Arc::new(LineMap(vec![4, 2]))),
            unordered: Arc::new(Unordered {
                streams: vec![(Some("a/b".to_string()), 1)],
                lines: vec![1, 2],
            }),
            tails: Arc::from(Vec::new()),
        };
        let mut n = RejoinNote::default();
        n.segment(None, Some(&d));
        assert_eq!(n.take(None), vec!["read as x".to_string()]);
        let a = n.take(Some("a/b"));
        assert_eq!(a.len(), 2, "{a:?}");
        assert!(a[1].contains("order of lines sharing a time stamp is unknown"));
        assert!(n.take(Some("a/b")).is_empty());
        assert_eq!(
            (n.stored_line(1), n.stored_line(2), n.stored_line(3)),
            (4, 2, 3)
        );
        // The next segment with the same envelope: not again.
        n.segment(None, Some(&d));
        assert!(n.take(None).is_empty());
        n.segment(None, None);
        assert_eq!(n.stored_line(1), 1);
    }
}

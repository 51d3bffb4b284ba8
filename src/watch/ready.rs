//! Readiness (`/readyz`, `herder_audit_ready`): the watcher is ready once
//! the audit has looked at its inputs, every log stream has read what its
//! file held at least once, and the internal topics (with `--bootstrap`)
//! have been read to their end once. Until then the reason says which of
//! these is missing.
//!
//! Before the audit's first look no stream is known yet: "every stream
//! caught up" would hold of none, and a reader of `/readyz` would take
//! files the watcher has not opened for files it has read.

/// What readiness waits for besides the streams (those are the metrics').
#[derive(Debug, Default)]
pub struct Readiness {
    /// The audit has told where its streams stand at least once.
    looked: bool,
    /// The topics to read (with `--bootstrap`), and whether they still
    /// wait to be read to their end once.
    topics: Vec<String>,
    topics_pending: bool,
    /// Why the last attempt to read the topics failed, while none has
    /// succeeded.
    topics_error: Option<String>,
}

impl Readiness {
    /// The audit told where its streams stand.
    pub fn looked(&mut self) {
        self.looked = true;
    }

    /// These topics are to be read before the watcher is ready.
    pub fn expect_topics(&mut self, topics: &[String]) {
        self.topics = topics.to_vec();
        self.topics_pending = !topics.is_empty();
    }

    /// Every topic was read to its end (once is enough).
    pub fn topics_read(&mut self) {
        self.topics_pending = false;
        self.topics_error = None;
    }

    /// An attempt to read the topics failed.
    pub fn topics_failed(&mut self, error: &str) {
        if self.topics_pending {
            self.topics_error = Some(error.to_string());
        }
    }

    /// Why the watcher is not ready, or `None` when it is; `behind` are
    /// the streams that have not yet read what their file held, of
    /// `streams`.
    pub fn why_not(&self, behind: &[&str], streams: usize) -> Option<String> {
        let mut why = Vec::new();
        if !self.looked {
            why.push("the logs have not been looked at yet".to_string());
        } else if let Some(first) = behind.first() {
            why.push(format!(
                "catching up with the logs on disk: {} of {streams} stream(s) not yet read to their end (such as {first})",
                behind.len()
            ));
        }
        if self.topics_pending {
            let mut t = format!(
                "the topics ({}) not yet read to their end",
                self.topics.join(", ")
            );
            if let Some(e) = &self.topics_error {
                t.push_str(&format!(" (the last try: {e})"));
            }
            why.push(t);
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_only_once_looked_caught_up_and_the_topics_read() {
        let mut r = Readiness::default();
        let why = r.why_not(&[], 0).unwrap();
        assert!(why.contains("not been looked at"), "{why}");
        r.looked();
        assert_eq!(r.why_not(&[], 0), None, "no inputs: nothing to wait for");
        let why = r.why_not(&["kafka/connect-1/connect"], 3).unwrap();
        assert!(
            why.contains("1 of 3 stream(s)") && why.contains("connect-1"),
            "{why}"
        );
        r.expect_topics(&["connect-status".into(), "connect-configs".into()]);
        r.topics_failed("connection refused");
        let why = r.why_not(&[], 3).unwrap();
        assert!(
            why.contains("connect-status, connect-configs")
                && why.contains("the last try: connection refused"),
            "{why}"
        );
        r.topics_read();
        assert_eq!(r.why_not(&[], 3), None);
        // Read once is enough: a later outage is the topics_up gauge's.
        r.topics_failed("gone");
        assert_eq!(r.why_not(&[], 3), None);
    }
}

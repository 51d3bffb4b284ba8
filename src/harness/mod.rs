//! Entry points shared by the fuzz targets (`fuzz/`) and the tests that
//! replay their findings (`tests/fuzz_regressions.rs`): each runs one piece
//! of the pipeline on arbitrary bytes and checks what must always hold.

use crate::audit::{self, Options};
use crate::event::parse::{assignment, task_id, task_list};
use crate::event::{LoggerKind, parse_already_exists, parse_config_value, parse_message};
use crate::input::{Input, sources};
use crate::layout::{self, envelope, json, split_stream, trailing_logger};
use crate::report::{json as json_out, text};

mod framed;

/// One line in any layout. Panics if an invariant breaks.
pub fn line(data: &[u8]) {
    let raw = trailing_logger(data);
    if let Ok(t) = std::str::from_utf8(data) {
        assert_eq!(layout::trailing_logger_text(t), raw);
    }
    let text = String::from_utf8_lossy(data);
    let _ = split_stream(&text);
    let _ = sources::timestamp_of(&text);
    if let Some(c) = json::to_classic(&text) {
        let _ = envelope(&c);
    }
    if let Some(c) = sources::json_record(&text) {
        let _ = envelope(&c);
    }
    if let Some(e) = envelope(&text) {
        // The message range lies inside the line, on char boundaries.
        assert!(text.get(e.msg_start..e.msg_end).is_some());
    }
}

/// One message against every parser family and the continuation parsers.
pub fn message(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for k in LoggerKind::ALL {
        let _ = parse_message(k, &text);
    }
    let _ = parse_already_exists(&text);
    let _ = parse_config_value(&text);
    let _ = assignment(&text);
    let _ = task_list(&text);
    let _ = task_id(&text);
}

/// The whole pipeline, printers included, on one or two workers' logs (the
/// first byte, when odd, splits the rest in two). Returns the internal
/// errors (contained panics) met; input errors (bytes that start like gzip
/// are read as gzip) are not internal.
pub fn pipeline(data: &[u8]) -> Vec<String> {
    let inputs = match data.split_first() {
        Some((&b, rest)) if b & 1 == 1 && !rest.is_empty() => {
            let cut = usize::from(b) * rest.len() / 256;
            vec![
                Input::bytes("w1.log", rest[..cut].to_vec()),
                Input::bytes("w2.log", rest[cut..].to_vec()),
            ]
        }
        _ => vec![Input::bytes("w.log", data.to_vec())],
    };
    audit_and_print(&inputs)
}

/// The pipeline with printers on `inputs`; the internal errors met.
fn audit_and_print(inputs: &[Input]) -> Vec<String> {
    let opts = Options {
        jobs: Some(1),
        keep_generations: true,
        timeline: true,
        ..Options::default()
    };
    let report = audit::audit(inputs, &opts);
    let mut out = Vec::new();
    let printed = text::write_report(&report, &mut out)
        .and_then(|_| text::write_replay(&report, &mut out))
        .and_then(|_| json_out::write_jsonl(&report, &mut out))
        .and_then(|_| crate::report::html::write_html(&report, &mut out));
    let mut internal: Vec<String> = report
        .errors
        .into_iter()
        .filter(|e| e.message.contains("internal error"))
        .map(|e| format!("{}: {}", e.input, e.message))
        .collect();
    if let Err(e) = printed {
        internal.push(format!("printing failed: {e}"));
    }
    internal
}

/// Lines in the envelope of a container runtime or a log store (the first
/// byte chooses which, the second how records are split or shuffled: see
/// `framed::frame`), through the whole pipeline; the envelopes' own
/// parsers also get the raw bytes. Returns the internal errors met.
pub fn sources(data: &[u8]) -> Vec<String> {
    framed::raw(data);
    let framed = framed::frame(data);
    audit_and_print(&[Input::bytes("framed.log", framed)])
}

/// The numbers of the lines of `data` that produced a lifecycle event (the
/// tests check that every lifecycle line of real and simulated logs does).
pub fn event_lines(data: &[u8]) -> std::collections::BTreeSet<u64> {
    use crate::input::scan::{self, Delivery, LineHandler, Step};
    use crate::model::SourceId;
    use crate::stream::Decoder;

    struct Recorder {
        inner: Decoder,
        hit: std::collections::BTreeSet<u64>,
    }
    impl LineHandler for Recorder {
        fn line(&mut self, number: u64, line: &[u8], how: Delivery) -> Step {
            let before = self.inner.events;
            let step = self.inner.line(number, line, how);
            if self.inner.events > before {
                self.hit.insert(number);
            }
            step
        }
        fn too_long(&mut self, number: u64, len: u64) {
            self.inner.too_long(number, len);
        }
    }
    let mut rec = Recorder {
        inner: Decoder::new(SourceId(0), String::new(), false),
        hit: std::collections::BTreeSet::new(),
    };
    let _ = scan::scan(data, &mut rec);
    rec.hit
}

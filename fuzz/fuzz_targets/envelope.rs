//! One line in any layout: the raw-bytes logger test, JSON normalisation,
//! the envelope, stream prefixes, time stamps.
#![no_main]

use herder_audit::layout::{self, envelope, json, split_stream, trailing_logger};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = trailing_logger(data);
    let text = String::from_utf8_lossy(data);
    let _ = split_stream(&text);
    let _ = layout::timestamp_of(&text);
    if let Some(c) = json::to_classic(&text) {
        let _ = envelope(&c);
    }
    if let Some(e) = envelope(&text) {
        // The message range must lie inside the line, on char boundaries.
        assert!(text.get(e.msg_start..e.msg_end).is_some());
    }
});

//! The whole pipeline on arbitrary bytes: scan, envelope, parse, replay of
//! one or two workers (cross-worker checks included), printers.
#![no_main]

use herder_audit::audit::{self, Options};
use herder_audit::input::Input;
use herder_audit::report::{json, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte splits the input into two workers' logs.
    let (inputs, rest) = match data.split_first() {
        Some((&b, rest)) if b & 1 == 1 && !rest.is_empty() => {
            let cut = usize::from(b) * rest.len() / 256;
            (
                vec![
                    Input::bytes("w1.log", rest[..cut].to_vec()),
                    Input::bytes("w2.log", rest[cut..].to_vec()),
                ],
                rest,
            )
        }
        _ => (vec![Input::bytes("w.log", data.to_vec())], data),
    };
    let _ = rest;
    let opts = Options {
        jobs: Some(1),
        keep_generations: true,
        ..Options::default()
    };
    let report = audit::audit(&inputs, &opts);
    // Internal errors are contained and reported; none may happen.
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let mut out = Vec::new();
    text::write_report(&report, &mut out).unwrap();
    text::write_replay(&report, &mut out).unwrap();
    json::write_jsonl(&report, &mut out).unwrap();
});

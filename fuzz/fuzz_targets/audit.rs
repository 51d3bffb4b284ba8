//! The whole pipeline on arbitrary bytes: scan, envelope, parse, replay of
//! one or two workers (cross-worker checks included), printers.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let internal = herder_audit::testing::harness::pipeline(data);
    assert!(internal.is_empty(), "{internal:?}");
});

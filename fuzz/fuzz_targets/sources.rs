//! Log lines in the envelopes of container runtimes and log stores (CRI,
//! Docker json-file, journald, Loki, Vector, CloudWatch, Fluent Bit, a
//! newest-first copy), split and stored out of order, through the whole
//! pipeline; and the raw bytes against the envelopes' own parsers.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let internal = herder_audit::testing::harness::sources(data);
    assert!(internal.is_empty(), "{internal:?}");
});

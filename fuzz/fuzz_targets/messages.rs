//! One message against every parser family, and the continuation parsers.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| herder_audit::testing::harness::message(data));

//! One line in any layout: the raw-bytes logger test, JSON normalisation,
//! the envelope, stream prefixes, time stamps.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| herder_audit::testing::harness::line(data));

//! Arbitrary bytes through every reader, the trace renderers and the oracle record; the
//! cheap walks agree with the recorded ones. See `tests/support/fuzz_checks.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/fuzz_checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::target::readers(data));

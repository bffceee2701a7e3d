//! The trace renderer (`bracewalk explain`): no raw control character in the text for a
//! terminal, and the JSON is JSON. See `tests/support/fuzz_checks.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/fuzz_checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::target::explain(data));

//! `js::parse` (`JSON.parse`) against serde_json: the same value where both accept, nothing
//! serde_json accepts refused, and only real JavaScript differences accepted alone. See
//! `tests/support/fuzz_checks.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/fuzz_checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::target::json_parse(data));

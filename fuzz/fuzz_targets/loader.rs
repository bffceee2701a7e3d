//! The run-log loader on arbitrary files (names, directories and bytes from the input): no
//! panic, loaded whole or followed as it grows. See `tests/support/fuzz_checks.rs` for how
//! the input becomes files.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/fuzz_checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::target::loader(data));

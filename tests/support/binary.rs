//! The binary under test, run as a user runs it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

/// The path of the `bracewalk` binary Cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_bracewalk");

/// Runs `bracewalk ARGS` to the end, uncoloured (`NO_COLOR`), whatever the terminal.
pub fn bracewalk(args: &[&str]) -> Output {
    Command::new(BIN).args(args).env("NO_COLOR", "1").output().unwrap()
}

/// What a command printed on its standard output.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

//! The binary under test, run as a user runs it.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The path of the `bracewalk` binary Cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_bracewalk");

/// Runs `bracewalk ARGS` to the end, uncoloured (`NO_COLOR`), whatever the terminal, with a
/// state directory of the test run's own (where readers of one's own log their stderr), not
/// the user's.
pub fn bracewalk(args: &[&str]) -> Output {
    Command::new(BIN).args(args).env("NO_COLOR", "1").env("BRACEWALK_STATE_DIR", state_dir()).output().unwrap()
}

/// The state directory of this test binary's run, removed when it ends.
pub fn state_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// What a command printed on its standard output.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

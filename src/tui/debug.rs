//! The debug hooks, read from the environment in this one place. They are for tests and
//! benchmarks, not features, so none is in `--help`:
//!
//! | variable | what it does |
//! | --- | --- |
//! | `BRACEWALK_DEBUG_PANIC` | a key press panics on the event loop (`=thread`: on a thread of its own), with the terminal raw, on the alternate screen and reporting the mouse, so `tests/tui/terminal_restore.rs` can check that a panic gives the terminal back |
//! | `BRACEWALK_DEBUG_HANG` | a key press stalls the event loop for a minute, so `tests/tui/terminal_restore.rs` can check that a second signal ends an inspector whose loop cannot see the first; any value but `1` names a file made as the stall begins, which such a test waits for before it signals |
//! | `BRACEWALK_TIMINGS` | a file to append latency figures to (`first-frame`, `key`, `loaded`, `summarized`, in microseconds), for benchmarking the inspector on a large campaign; never written beside the logs unless asked |
//!
//! (`BRACEWALK_STATE_DIR`, where triage marks are kept, is a setting, not a hook: see
//! [`crate::state_dir`].)

use std::io::{self, Write};
use std::time::{Duration, Instant};

/// The hooks asked for.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    /// `BRACEWALK_DEBUG_PANIC`: where a key press panics (`thread`, or the event loop).
    pub panic: Option<String>,
    /// `BRACEWALK_DEBUG_HANG`: `1`, or the file to make when the stall begins.
    pub hang: Option<std::ffi::OsString>,
}

impl Hooks {
    pub fn from_env() -> Hooks {
        Hooks { panic: std::env::var("BRACEWALK_DEBUG_PANIC").ok(), hang: std::env::var_os("BRACEWALK_DEBUG_HANG") }
    }

    /// What a key press sets off, if anything.
    pub fn on_key(&self) -> io::Result<()> {
        if let Some(place) = &self.panic {
            panic_now(place)?;
        }
        if let Some(hang) = &self.hang {
            // A test that signals a stalled loop waits for this: a signal sent before the
            // key is read would find the loop free and end it at once.
            if hang != "1" {
                std::fs::write(hang, b"")?;
            }
            std::thread::sleep(Duration::from_secs(60));
        }
        Ok(())
    }
}

#[allow(clippy::panic, reason = "the panic is the point of this test hook")]
fn panic_now(place: &str) -> io::Result<()> {
    if place == "thread" {
        std::thread::Builder::new()
            .name("bracewalk-debug-panic".into())
            .spawn(|| panic!("BRACEWALK_DEBUG_PANIC: a deliberate panic on a thread"))?;
        return Ok(());
    }
    panic!("BRACEWALK_DEBUG_PANIC: a deliberate panic on the event loop")
}

/// Latency measurements, written where `BRACEWALK_TIMINGS` names (for benchmarking the
/// inspector on a large campaign; never beside the logs unless asked).
pub struct Timings {
    out: Option<std::fs::File>,
    pub pending_summaries: bool,
}

impl Timings {
    pub fn from_env() -> Timings {
        let out = std::env::var_os("BRACEWALK_TIMINGS")
            .and_then(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).ok());
        Timings { pending_summaries: out.is_some(), out }
    }

    pub fn note(&mut self, what: &str, since: Instant) {
        if let Some(f) = &mut self.out {
            let _ = writeln!(f, "{what} {}", since.elapsed().as_micros());
        }
    }
}

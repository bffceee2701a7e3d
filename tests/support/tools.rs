//! The programs some tests need beside the binary: tmux for the inspector in a real
//! terminal, node and python3 (and a package of each) for the ready-made reader commands.
//!
//! Where one is missing a test cannot do its part. On a developer's machine it says so and
//! goes on without it; under CI (`CI` set, as CI services set it and `.ci/run` does) it
//! fails, naming what is missing, so a machine without the tools is never green without
//! having run their tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A program a test needs, and how to tell that it is here: a command that exits 0.
pub struct Tool {
    /// What the messages call it.
    pub name: &'static str,
    program: &'static str,
    args: &'static [&'static str],
}

pub const TMUX: Tool = Tool { name: "tmux", program: "tmux", args: &["-V"] };
pub const NODE: Tool = Tool { name: "node", program: "node", args: &["--version"] };
pub const PYTHON3: Tool = Tool { name: "python3", program: "python3", args: &["--version"] };
/// The npm package `examples/readers/jsonrepair.mjs` wraps, found as that reader finds it.
pub const JSONREPAIR: Tool =
    Tool { name: "the npm package jsonrepair", program: "node", args: &["examples/readers/jsonrepair.mjs"] };
/// Dask's distributed scheduler, which `examples/cluster/dask_scan.py` runs its tasks on.
pub const DASK: Tool =
    Tool { name: "the Python package dask.distributed", program: "python3", args: &["-c", "import dask.distributed"] };
/// The Python package `examples/readers/json-repair.py` wraps.
pub const JSON_REPAIR: Tool =
    Tool { name: "the Python package json_repair", program: "python3", args: &["-c", "import json_repair"] };

impl Tool {
    /// Whether it runs here, from the project's root.
    pub fn present(&self) -> bool {
        Command::new(self.program)
            .args(self.args)
            .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Whether `part` of a test can run: true when the tool is here. When it is not, fails
    /// the test under CI, and elsewhere says that `part` is skipped and returns false.
    #[track_caller]
    pub fn needed_by(&self, part: &str) -> bool {
        self.present() || missing(self.name, part)
    }
}

/// Says that `part` of a test cannot run for want of `what`: fails the test under CI, and
/// elsewhere says that `part` is skipped. Returns false, for `if !… { return }`.
#[track_caller]
pub fn missing(what: &str, part: &str) -> bool {
    assert!(!under_ci(), "{what} is not installed, and {part} needs it (CI is set: .ci/run installs it)");
    // Straight to the standard error, which the test harness does not capture, so the
    // skip is seen in an ordinary `cargo test`.
    let _ =
        writeln!(std::io::stderr(), "skipped: {part}, which needs {what}, not installed here (.ci/run installs it)");
    false
}

/// Whether the tests run under CI: `CI` set to anything but nothing, `0` or `false`.
pub fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !(v.is_empty() || v == "0" || v == "false"))
}

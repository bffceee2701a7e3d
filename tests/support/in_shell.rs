//! The inspector in a shell in tmux, on a copy of `sample-logs/` (`logs`), started through a
//! script that leaves its pid (`pid`) and, once it has ended, its exit status (`status`) in
//! files beside the logs, never in them: what the tests of the ways the inspector ends share.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::tmux::Tmux;
use super::tree;

/// Generous: the machine running the tests may be small and busy.
pub const DEADLINE: Duration = Duration::from_secs(20);

pub struct InShell {
    pub tmux: Tmux,
    pub dir: tempfile::TempDir,
}

impl InShell {
    /// Lets `prepare` write beside the logs, then runs at a shell whose prompt is `prompt`
    /// the line `before` (empty, or commands ending in `;`) and the inspector with `env`
    /// (`NAME=value` words) and `args` (shell words before the logs). Returns once the
    /// command line is entered, not once the inspector draws.
    pub fn start(prompt: &str, env: &str, args: &str, before: &str, prepare: impl FnOnce(&Path)) -> InShell {
        let dir = tempfile::tempdir().unwrap();
        tree::copy_samples(&dir.path().join("logs"));
        prepare(dir.path());
        // The pid is the inspector's own (`exec`).
        let script = format!(
            "echo $$ > pid\nexec env BRACEWALK_STATE_DIR=state RUST_BACKTRACE=0 {env} {} {args} logs\n",
            env!("CARGO_BIN_EXE_bracewalk")
        );
        std::fs::write(dir.path().join("run.sh"), script).unwrap();
        let tmux = Tmux::start(dir.path(), 120, 40, dir.path(), &format!("env PS1='{prompt}' sh"));
        tmux.wait_text(prompt.trim_end(), DEADLINE);
        tmux.text(&format!("{before} sh run.sh; echo $? > status"));
        tmux.keys(&["Enter"]);
        InShell { tmux, dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Waits until the inspector, started with `BRACEWALK_DEBUG_HANG=stalled`, has read the
    /// key that stalls its loop (it makes `stalled` as it stalls): a signal sent sooner finds
    /// the loop free to end at once.
    pub fn wait_for_stall(&self) {
        let start = std::time::Instant::now();
        while !self.path("stalled").exists() {
            assert!(start.elapsed() < DEADLINE, "the loop never stalled on the key");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> String {
        std::fs::read_to_string(self.path("pid")).unwrap().trim().to_owned()
    }

    pub fn signal(&self, signal: &str) {
        let sent = Command::new("kill").args([signal, &self.pid()]).status().unwrap();
        assert!(sent.success(), "kill {signal}");
    }

    /// Waits for the inspector to end; its exit status.
    pub fn status(&self) -> i32 {
        let status = self.tmux.wait_until(
            "the inspector to exit",
            DEADLINE,
            || std::fs::read_to_string(self.path("status")).unwrap_or_default(),
            |s| s.ends_with('\n'),
        );
        status.trim().parse().unwrap()
    }
}

//! The real binary in a real terminal: a tmux server of the test's own (its socket in the
//! test's temporary directory, no user configuration), so a test neither sees nor disturbs
//! anyone else's sessions, and its server dies with it. The test types at the pane
//! (`send-keys`), reads the screen (`capture-pane`) and asks tmux about the pane's modes
//! (`display-message`). Waiting is always for a condition, with a deadline.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// One tmux server with one session, killed when dropped.
pub struct Tmux {
    socket: PathBuf,
    /// The session's pane, as `-t` names it.
    pub target: String,
}

impl Tmux {
    /// Starts a `width`×`height` session running `command` (a shell command line) in `cwd`,
    /// its server's socket in `dir`.
    pub fn start(dir: &Path, width: u16, height: u16, cwd: &Path, command: &str) -> Tmux {
        let tmux = Tmux { socket: dir.join("tmux.sock"), target: "test".to_owned() };
        let (w, h) = (width.to_string(), height.to_string());
        let started = tmux.run(&[
            "new-session",
            "-d",
            "-x",
            &w,
            "-y",
            &h,
            "-s",
            &tmux.target,
            "-c",
            cwd.to_str().unwrap(),
            command,
        ]);
        assert!(started.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&started.stderr));
        tmux
    }

    /// Runs a tmux command against this server.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Sends keys by tmux's names (`Enter`, `C-c`, `q`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.target];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    /// Types text literally.
    pub fn text(&self, text: &str) {
        assert!(self.run(&["send-keys", "-t", &self.target, "-l", text]).status.success());
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", &self.target]).stdout).into_owned()
    }

    /// The scrollback and the visible screen, joined where lines wrapped.
    pub fn history(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", &self.target]).stdout)
            .into_owned()
    }

    /// A tmux format (`#{alternate_on}`) expanded for the pane.
    pub fn display(&self, format: &str) -> String {
        let out = self.run(&["display-message", "-p", "-t", &self.target, format]);
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }

    /// Waits until `ok` holds for what `look` sees, or fails with what it saw last.
    pub fn wait_until<T: std::fmt::Debug>(
        &self,
        what: &str,
        within: Duration,
        look: impl Fn() -> T,
        ok: impl Fn(&T) -> bool,
    ) -> T {
        let start = Instant::now();
        loop {
            let seen = look();
            if ok(&seen) {
                return seen;
            }
            if start.elapsed() > within {
                panic!("waited {within:?} for {what}; saw {seen:?}; the screen was:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Waits until the screen satisfies `ok`, or fails with the screen as it was.
    pub fn wait_for(&self, what: &str, within: Duration, ok: impl Fn(&str) -> bool) -> Duration {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return start.elapsed();
            }
            if start.elapsed() > within {
                panic!("waited {within:?} for {what}; the screen was:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    pub fn wait_text(&self, text: &str, within: Duration) -> Duration {
        self.wait_for(&format!("{text:?}"), within, |s| s.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

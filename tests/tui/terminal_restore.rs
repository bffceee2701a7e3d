//! However the inspector ends, the terminal comes back as it was: cooked, the cursor shown,
//! mouse reporting off, the alternate screen left. Each way of ending runs the real binary in
//! a shell in tmux, on a copy of `sample-logs/`: `q`, Ctrl-C typed (a key in raw mode, not a
//! signal), SIGTERM, SIGINT, and a panic on the event loop and on another thread (the
//! `BRACEWALK_DEBUG_PANIC` test hook). Afterwards tmux itself is asked for the pane's modes,
//! the shell's `stty -g` must match what it printed before the inspector started, and a
//! command typed at the prompt must run. A quit exits with 0, a signal with 128 + its number
//! (143, 130), a panic with 101, leaving its message on the restored screen.
//!
//! Also: a second SIGTERM or SIGINT ends an inspector whose loop is stuck (the
//! `BRACEWALK_DEBUG_HANG` test hook), with 143 or 130, the terminal then left as it is; and
//! Ctrl-C pressed in a pager the inspector opened is the pager's alone.
//!
//! Needs tmux; without it the tests say so and pass, or fail under CI (`.ci/run` installs it).

use crate::support::in_shell::{DEADLINE, InShell};
use crate::support::tools::TMUX;

use std::process::Command;
use std::time::Duration;

/// The pane's modes that the inspector changes, as tmux keeps them.
const MODES: &str = "#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{mouse_standard_flag} #{mouse_button_flag} \
                     #{mouse_sgr_flag} #{mouse_all_flag} #{mouse_utf8_flag}";
/// Normal screen, cursor visible, no mouse mode of any kind.
const RESTORED: &str = "0 1 0 0 0 0 0 0";

/// The inspector in a shell in tmux, its terminal's settings (`stty -g`) saved before it
/// starts, in `before`.
struct Inspector(InShell);

impl std::ops::Deref for Inspector {
    type Target = InShell;
    fn deref(&self) -> &InShell {
        &self.0
    }
}

impl Inspector {
    /// Starts the inspector with `env` (`NAME=value` words) and waits for its first frame.
    fn start(env: &str) -> Inspector {
        let this = Inspector(InShell::start("tr$ ", env, "", "stty -g > before;", |_| {}));

        // The first frame shows the top of the list.
        this.tmux.wait_for("the first frame", DEADLINE, |s| s.contains("replies") && s.contains("msg_bad_1"));
        // The checks afterwards mean something only if the inspector changed all of it.
        let modes = this.tmux.wait_until(
            "the alternate screen and mouse reporting",
            DEADLINE,
            || this.tmux.display(MODES),
            |m| m.starts_with("1 0 1"),
        );
        assert_eq!(modes.split(' ').nth(5), Some("1"), "SGR mouse reporting is on while running: {modes}");
        let tty = this.tmux.display("#{pane_tty}");
        let raw = Command::new("stty").args(["-F", &tty, "-a"]).output().unwrap();
        let raw = String::from_utf8_lossy(&raw.stdout).into_owned();
        assert!(has_words(&raw, &["-icanon", "-echo"]), "the tty is raw while running:\n{raw}");
        this
    }

    /// Asserts that the terminal is as the shell left it, and the shell usable.
    fn assert_restored(&self) {
        let modes = self.tmux.display(MODES);
        assert_eq!(modes, RESTORED, "alternate_on cursor_flag mouse_* after the inspector ended");

        // Typed at the prompt: it runs only if the tty is cooked again (Enter is a newline
        // to the shell only with icrnl and icanon).
        let marker = std::process::id() % 1000 + 1000;
        self.tmux.text(&format!("stty -g > after; stty -a > after-a; echo ok-$(({marker}+1))"));
        self.tmux.keys(&["Enter"]);
        self.tmux.wait_text(&format!("ok-{}", marker + 1), DEADLINE);
        let before = std::fs::read_to_string(self.path("before")).unwrap();
        let after = std::fs::read_to_string(self.path("after")).unwrap();
        assert_eq!(after, before, "stty -g after the inspector differs from before it");
        let settings = std::fs::read_to_string(self.path("after-a")).unwrap();
        assert!(has_words(&settings, &["icanon", "echo", "isig", "icrnl", "opost"]), "not cooked:\n{settings}");
        let screen = self.tmux.screen();
        assert!(!screen.contains("msg_"), "the inspector's screen is gone:\n{screen}");
    }
}

/// Whether `stty -a` output holds every one of `words` (`echo`, `-icanon`) as a setting.
fn has_words(stty: &str, words: &[&str]) -> bool {
    words.iter().all(|w| stty.split(|c: char| c.is_whitespace() || c == ';').any(|t| t == *w))
}

/// Starts the inspector unless tmux is missing.
fn inspector(env: &str) -> Option<Inspector> {
    if !TMUX.needed_by("the terminal restore test") {
        return None;
    }
    Some(Inspector::start(env))
}

#[test]
fn quitting_with_q_restores_the_terminal() {
    let Some(ins) = inspector("") else { return };
    ins.tmux.keys(&["q"]);
    assert_eq!(ins.status(), 0);
    ins.assert_restored();
}

#[test]
fn ctrl_c_typed_quits_and_restores_the_terminal() {
    // In raw mode the terminal sends Ctrl-C as a byte, not as SIGINT: it is a key to bind.
    let Some(ins) = inspector("") else { return };
    ins.tmux.keys(&["C-c"]);
    assert_eq!(ins.status(), 0);
    ins.assert_restored();
}

#[test]
fn sigterm_restores_the_terminal_and_exits_with_143() {
    let Some(ins) = inspector("") else { return };
    ins.signal("-TERM");
    // The loop saw the signal and ended, restoring the terminal, then reported it as a shell
    // reports a process a signal ended: 128 + 15.
    assert_eq!(ins.status(), 143);
    ins.assert_restored();
}

#[test]
fn sigint_restores_the_terminal_and_exits_with_130() {
    let Some(ins) = inspector("") else { return };
    ins.signal("-INT");
    assert_eq!(ins.status(), 130);
    ins.assert_restored();
}

/// Stalls the inspector's loop (the test hook), sends `signal` twice, and returns the exit
/// status. The first signal must leave the process running: the loop cannot look, and the
/// signal only asks.
fn stuck_then_signalled_twice(signal: &str) -> Option<i32> {
    let ins = inspector("BRACEWALK_DEBUG_HANG=stalled")?;
    ins.tmux.keys(&["j"]);
    ins.wait_for_stall();
    ins.signal(signal);
    std::thread::sleep(Duration::from_millis(300));
    let alive = Command::new("kill").args(["-0", &ins.pid()]).status().unwrap();
    assert!(alive.success(), "the first {signal} ended the process outright");
    assert!(!ins.path("status").exists(), "the first {signal} ended the process outright");
    ins.signal(signal);
    Some(ins.status())
}

#[test]
fn a_second_sigterm_ends_a_stuck_inspector_at_once() {
    if let Some(status) = stuck_then_signalled_twice("-TERM") {
        assert_eq!(status, 143);
    }
}

#[test]
fn a_second_sigint_ends_a_stuck_inspector_at_once() {
    if let Some(status) = stuck_then_signalled_twice("-INT") {
        assert_eq!(status, 130);
    }
}

#[test]
fn ctrl_c_in_a_pager_the_inspector_opened_is_the_pagers() {
    // Regression guard: the inspector's SIGINT handler caught the Ctrl-C meant for `less`
    // (which cancels a search with it), quit once the pager was left, and with a second
    // signal ending the process at once would have ended it under the pager.
    let Some(ins) = inspector("EDITOR='sh pager.sh'") else { return };
    // A pager that notes each Ctrl-C and carries on until told to stop, then ends well (a
    // loop's status is its last `sleep`'s, which a Ctrl-C just before the stop ended).
    let pager = "trap 'echo interrupted >> pager.log' INT\necho started >> pager.log\n\
                 while [ ! -e pager.done ]; do sleep 0.1; done\nexit 0\n";
    std::fs::write(ins.path("pager.sh"), pager).unwrap();
    let log = || std::fs::read_to_string(ins.path("pager.log")).unwrap_or_default();
    ins.tmux.keys(&["o"]);
    ins.tmux.wait_until("the pager to start", DEADLINE, log, |l| l.contains("started"));
    ins.tmux.keys(&["C-c"]);
    ins.tmux.wait_until("the pager's first Ctrl-C", DEADLINE, log, |l| l.matches("interrupted").count() == 1);
    ins.tmux.keys(&["C-c"]);
    ins.tmux.wait_until("the pager's second Ctrl-C", DEADLINE, log, |l| l.matches("interrupted").count() == 2);
    std::fs::write(ins.path("pager.done"), "").unwrap();
    ins.tmux.wait_for("the inspector back", DEADLINE, |s| s.contains("back from sh"));
    assert!(!ins.path("status").exists(), "the inspector ended while the pager ran");
    ins.tmux.keys(&["q"]);
    assert_eq!(ins.status(), 0, "quit with q after the pager: not a signal");
    ins.assert_restored();
}

/// Asserts that a panic exited with 101, gave the terminal back, and left its report, first
/// line whole, on the screen, where the shell's next output did not overwrite it.
fn assert_panic_reported(ins: &Inspector, thread: &str, message: &str) {
    assert_eq!(ins.status(), 101, "a panic exits with 101");
    ins.assert_restored();
    let history = ins.tmux.history();
    assert!(history.contains(message), "the panic's message is on the screen:\n{history}");
    assert!(
        history.lines().any(|l| l.starts_with(&format!("thread '{thread}'")) && l.contains("panicked at")),
        "the report's first line (where it panicked) is whole on the screen:\n{history}"
    );
}

#[test]
fn a_panic_on_the_event_loop_restores_the_terminal_and_shows_its_report() {
    let Some(ins) = inspector("BRACEWALK_DEBUG_PANIC=main") else { return };
    ins.tmux.keys(&["j"]);
    assert_panic_reported(&ins, "main", "BRACEWALK_DEBUG_PANIC: a deliberate panic on the event loop");
}

#[test]
fn a_panic_on_another_thread_ends_the_process_and_restores_the_terminal() {
    // A thread that died alone would leave the loop drawing on a terminal given back, and
    // waiting for work that never comes: the whole process must end, as a panicking main does.
    let Some(ins) = inspector("BRACEWALK_DEBUG_PANIC=thread") else { return };
    ins.tmux.keys(&["j"]);
    assert_panic_reported(&ins, "bracewalk-debug-panic", "BRACEWALK_DEBUG_PANIC: a deliberate panic on a thread");
}

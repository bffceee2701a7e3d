//! No reader of one's own outlives the inspector, whichever way it ends: `q`, Ctrl-C typed,
//! SIGTERM, its terminal going away (SIGHUP), a panic on one of its threads; nor does a
//! reader the inspector drops because it failed, while the inspector runs on. The real
//! binary runs in tmux on a copy of `sample-logs/`, with a reader that never answers and
//! writes the process group it runs in (each run of it: the inspector runs a reader twice,
//! once for the corpus and once for the reply looked at); afterwards no process of any of
//! those groups may be left.
//!
//! Needs tmux, and python3 for the ways out that run an extractor function; without them
//! the tests say so and pass, or fail under CI (`.ci/run` installs them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use crate::support::groups::{self, assert_gone, assert_running, groups_in};
use crate::support::in_shell::{DEADLINE, InShell};
use crate::support::tools::{PYTHON3, TMUX};

/// How long a group may take to go once the inspector has.
const GONE: Duration = Duration::from_secs(5);

/// An extractor function that, as its module loads, adds its group's id to `group` beside
/// it and starts a process of its own, and then sleeps on every reply.
const SLEEPY: &str = "import os, subprocess, time\n\
                      with open(os.path.join(os.path.dirname(__file__), 'group'), 'a') as f:\n    f.write(f'{os.getpgid(0)}\\n')\n\
                      subprocess.Popen(['sleep', '1000'])\n\
                      def extract(text):\n    time.sleep(1000)\n";

/// The inspector in a shell in tmux, with one reader of one's own.
struct Inspector(InShell);

impl std::ops::Deref for Inspector {
    type Target = InShell;
    fn deref(&self) -> &InShell {
        &self.0
    }
}

/// The reader an inspector runs.
enum Reader {
    /// `slow=py:sleepy.py`, the extractor that sleeps.
    Sleepy,
    /// A command: what [`groups`] makes of the file the groups go to.
    Command(fn(&std::path::Path) -> String),
    /// A command that fails at its first reply, so that it may be dropped and ended before
    /// the test looks: that it ran is the group it wrote.
    Failing(fn(&std::path::Path) -> String),
}

impl Inspector {
    /// Starts the inspector with `reader` and `env` (`NAME=value` words), and waits until
    /// the reader runs.
    fn start(reader: Reader, env: &str) -> Inspector {
        let may_have_ended = matches!(reader, Reader::Failing(_));
        let this = Inspector(InShell::start("re$ ", env, "--reader \"$(cat reader)\"", "", |dir| {
            let definition = match reader {
                Reader::Sleepy => {
                    std::fs::write(dir.join("sleepy.py"), SLEEPY).unwrap();
                    format!("slow=py:{}", dir.join("sleepy.py").display())
                }
                Reader::Command(make) | Reader::Failing(make) => format!("slow={}", make(&dir.join("group"))),
            };
            std::fs::write(dir.join("reader"), definition).unwrap();
        }));
        this.tmux.wait_for("the first frame", DEADLINE, |s| s.contains("replies") && s.contains("slow"));
        let group = this.group();
        if !may_have_ended {
            assert_running(group);
        }
        this
    }

    /// The first group the reader ran in, once it runs.
    fn group(&self) -> i32 {
        groups::group_in(&self.path("group"), DEADLINE)
    }

    /// Asserts that no process of any group the reader ran in is left.
    fn assert_readers_gone(&self, way: &str) {
        let all = groups_in(&self.path("group"));
        assert!(!all.is_empty(), "{way}: the reader never ran");
        for group in all {
            assert_gone(group, GONE, way);
        }
    }
}

/// Whether the process `pid` has ended (or waits only to be reaped).
fn ended(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rfind(')').is_none_or(|i| matches!(stat[i + 1..].split_whitespace().next(), Some("Z" | "X")))
}

fn needs(python: bool, part: &str) -> bool {
    TMUX.needed_by(part) && (!python || PYTHON3.needed_by(part))
}

#[test]
fn q_ends_the_inspector_and_its_readers() {
    if !needs(true, "the inspector's readers after q") {
        return;
    }
    let i = Inspector::start(Reader::Sleepy, "");
    i.tmux.keys(&["q"]);
    assert_eq!(i.status(), 0);
    i.assert_readers_gone("q");
}

#[test]
fn ctrl_c_ends_the_inspector_and_its_readers() {
    if !needs(true, "the inspector's readers after Ctrl-C") {
        return;
    }
    let i = Inspector::start(Reader::Sleepy, "");
    i.tmux.keys(&["C-c"]);
    assert_eq!(i.status(), 0);
    i.assert_readers_gone("Ctrl-C");
}

#[test]
fn sigterm_ends_the_inspector_and_its_readers() {
    if !needs(true, "the inspector's readers after SIGTERM") {
        return;
    }
    let i = Inspector::start(Reader::Sleepy, "");
    i.signal("-TERM");
    assert_eq!(i.status(), 143);
    i.assert_readers_gone("SIGTERM");
}

#[test]
fn a_second_sigterm_ends_a_stuck_inspector_and_its_readers() {
    if !needs(false, "the readers of an inspector ended by a second SIGTERM") {
        return;
    }
    let i = Inspector::start(Reader::Command(groups::stuck_reader), "BRACEWALK_DEBUG_HANG=stalled");
    // The loop stalls on a key; the first signal is noted and never looked at.
    i.tmux.keys(&["j"]);
    i.wait_for_stall();
    i.signal("-TERM");
    std::thread::sleep(Duration::from_millis(300));
    i.signal("-TERM");
    assert_eq!(i.status(), 143);
    i.assert_readers_gone("a second SIGTERM");
}

#[test]
fn the_terminal_going_away_ends_the_inspector_and_its_readers() {
    if !needs(false, "the inspector's readers after its terminal went away") {
        return;
    }
    let i = Inspector::start(Reader::Command(groups::stuck_reader), "");
    let pid = i.pid();
    // The session, its shell and the pane's terminal all go: SIGHUP, and no terminal.
    let _ = i.tmux.run(&["kill-server"]);
    let start = Instant::now();
    while !ended(&pid) {
        assert!(start.elapsed() < DEADLINE, "the inspector outlived its terminal");
        std::thread::sleep(Duration::from_millis(50));
    }
    i.assert_readers_gone("the terminal gone");
}

#[test]
fn a_panic_ends_the_inspector_and_its_readers() {
    if !needs(false, "the inspector's readers after a panic") {
        return;
    }
    let i = Inspector::start(Reader::Command(groups::stuck_reader), "BRACEWALK_DEBUG_PANIC=thread");
    i.tmux.keys(&["j"]);
    assert_eq!(i.status(), 101);
    i.assert_readers_gone("a panic");
}

/// A reader that fails (it prints what is not an answer) is dropped and stopped whole, its
/// process of its own with it, while the inspector runs on.
#[test]
fn a_reader_dropped_for_failing_is_ended_while_the_inspector_runs() {
    if !needs(false, "a failed reader's group in the inspector") {
        return;
    }
    let failing = |file: &std::path::Path| {
        format!("echo $$ >> '{}'; sleep 1000 & IFS= read -r l; echo hello; sleep 1000", file.display())
    };
    let i = Inspector::start(Reader::Failing(failing), "");
    i.tmux.wait_for("the reader's failure", DEADLINE, |s| s.contains("reader slow"));
    i.assert_readers_gone("a reader dropped");
    assert!(!ended(&i.pid()), "the inspector runs on");
    i.tmux.keys(&["q"]);
    assert_eq!(i.status(), 0);
}

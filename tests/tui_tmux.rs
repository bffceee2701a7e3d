//! The real binary in a real terminal: tmux runs the inspector on a copy of `sample-logs/`,
//! the test types at it (`send-keys`) and reads the screen (`capture-pane`). It opens the
//! logs, moves, searches, opens the help, sees a reply dropped into the watched directory
//! appear, opens the summary and goes from a comparison's count to its replies, quits, and
//! finds the shell usable again.
//!
//! Needs tmux; without it the test says so and passes (`.ci/run` installs it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

struct Session {
    name: String,
}

impl Session {
    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux").args(args).output().expect("tmux runs")
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.name];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success());
    }

    /// Types text literally.
    fn text(&self, text: &str) {
        assert!(self.tmux(&["send-keys", "-t", &self.name, "-l", text]).status.success());
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", &self.name]).stdout).into_owned()
    }

    /// Waits until the screen satisfies `ok`, or fails with the screen as it was.
    fn wait_for(&self, what: &str, within: Duration, ok: impl Fn(&str) -> bool) -> Duration {
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

    fn wait_text(&self, text: &str, within: Duration) -> Duration {
        self.wait_for(&format!("{text:?}"), within, |s| s.contains(text))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["kill-session", "-t", &self.name]).output();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let dest = to.join(entry.file_name());
        if kind.is_dir() {
            copy_dir(&entry.path(), &dest);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), dest).unwrap();
        }
        // Symlinks (the broken and looping ones in `bad/`) are left out of the copy.
    }
}

#[test]
fn the_inspector_in_a_real_terminal() {
    if Command::new("tmux").arg("-V").output().map(|o| !o.status.success()).unwrap_or(true) {
        println!("tmux is not installed: the end-to-end terminal test is skipped (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    assert!(samples.is_dir(), "sample-logs/ is missing");
    copy_dir(&samples, &logs);
    let state = dir.path().join("state");
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let session = Session { name: format!("bracewalk-e2e-{}-{nanos}", std::process::id()) };
    let shell = "env PS1='e2e$ ' sh";
    let started = session.tmux(&[
        "new-session",
        "-d",
        "-x",
        "120",
        "-y",
        "40",
        "-s",
        &session.name,
        "-c",
        dir.path().to_str().unwrap(),
        shell,
    ]);
    assert!(started.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&started.stderr));
    session.wait_text("e2e$", Duration::from_secs(5));
    session.text(&format!("BRACEWALK_STATE_DIR={} {bin} logs", state.display()));
    session.keys(&["Enter"]);

    // Open: the list fills, and every reply is read.
    let shown =
        session.wait_for("the list", Duration::from_secs(20), |s| s.contains("replies 1") && s.contains("msg_"));
    println!("first replies on screen after {shown:?}");
    session
        .wait_for("loading to finish", Duration::from_secs(30), |s| !s.contains("loading") && !s.contains("reading "));

    // Move: sort by size, go to the top: the 62 kB correction, its seventh candidate kept.
    session.keys(&["s"]);
    session.wait_text("sort: size", Duration::from_secs(5));
    session.keys(&["g"]);
    session.wait_text("62,017 B", Duration::from_secs(5));
    session.wait_text("#7/7 kept", Duration::from_secs(10));
    session.keys(&["j"]);
    session.wait_text("3f1c9a0e7b2d4c58:135", Duration::from_secs(5));

    // Search the reply text.
    session.keys(&["/"]);
    session.text("Table 3");
    session.keys(&["Enter"]);
    session.wait_for("a match", Duration::from_secs(5), |s| s.contains("match ") && s.contains(" of "));
    session.keys(&["n"]);

    // The help, generated from the key table.
    session.keys(&["?"]);
    session.wait_text("search the reply text (regex)", Duration::from_secs(5));
    session.keys(&["Escape"]);
    session.wait_for("the help to close", Duration::from_secs(5), |s| !s.contains("search the reply text (regex)"));

    // Watching: follow new replies, drop one in (written aside, renamed into place).
    session.keys(&["F"]);
    session.wait_text("following", Duration::from_secs(5));
    let aside = logs.join(".incoming.tmp");
    std::fs::write(&aside, "Here it is:\n{\"html\": \"<p>dropped in while watching</p>\", \"log\": \"e2e\"}\n")
        .unwrap();
    let dropped_at = Instant::now();
    std::fs::rename(&aside, logs.join("dropped-reply.txt")).unwrap();
    session.wait_text("dropped-reply.txt", Duration::from_secs(2));
    println!("a dropped reply was listed {:?} after it appeared", dropped_at.elapsed());
    session.wait_text("new", Duration::from_secs(2));

    // The summary: the corpus scan's counts, then one Enter from a comparison's count to the
    // replies behind it, beside the what-if's verdict.
    session.keys(&["S"]);
    session.wait_text("how last-wins decided", Duration::from_secs(5));
    session.wait_for("every reply read for the scan", Duration::from_secs(30), |s| {
        s.contains("143 replies, ") && !s.contains("for the scan…")
    });
    session.wait_text("outcomes by agent", Duration::from_secs(5));
    for _ in 0..6 {
        session.keys(&["Tab"]);
    }
    session.keys(&["j", "j"]);
    session.wait_text("narrow-everywhere → last-wins: the narrow colon rule", Duration::from_secs(5));
    session.wait_text("10 replies · Enter lists them", Duration::from_secs(5));
    session.keys(&["Enter"]);
    session.wait_text("filter: scan: narrow-everywhere differs", Duration::from_secs(5));
    session.wait_text("1/10 ·", Duration::from_secs(5));
    session.wait_text("narrow-everywhere → last-wins", Duration::from_secs(5));
    session.wait_text("≠ html: 315 chars → 210 chars", Duration::from_secs(5));
    // The filter menu's c clears it.
    session.keys(&["f", "c", "Escape"]);
    session.wait_for("the filter to clear", Duration::from_secs(5), |s| !s.contains("filter: scan"));

    // Quit, and the shell is back and usable.
    session.keys(&["q"]);
    session.wait_text("e2e$", Duration::from_secs(5));
    session.text("echo restored-$((40+2))");
    session.keys(&["Enter"]);
    session.wait_text("restored-42", Duration::from_secs(5));
    let screen = session.screen();
    assert!(!screen.contains("replies "), "the inspector's screen is gone:\n{screen}");
    assert!(!state.join("marks.jsonl").exists() || state.is_dir());
}

#[test]
fn the_inspector_exits_when_its_terminal_goes_away() {
    // Regression: with its terminal closed (a tmux session killed, an ssh connection
    // dropped) the inspector read endless end-of-file and spun at full CPU, forever.
    if Command::new("tmux").arg("-V").output().map(|o| !o.status.success()).unwrap_or(true) {
        println!("tmux is not installed: skipped (.ci/run installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("hangup-logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("reply.txt"), "Draft {\"a\": 1} then {\"a\": 2}").unwrap();
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let session = Session { name: format!("bracewalk-hup-{}-{nanos}", std::process::id()) };
    let command = format!("BRACEWALK_STATE_DIR={} {bin} {}", dir.path().join("state").display(), logs.display());
    let started =
        session.tmux(&["new-session", "-d", "-x", "100", "-y", "30", "-s", &session.name, "sh", "-c", &command]);
    assert!(started.status.success());
    session.wait_text("reply.txt", Duration::from_secs(10));
    let running = || {
        Command::new("pgrep")
            .args(["-f", &logs.display().to_string()])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    assert!(running(), "the inspector is running");
    session.tmux(&["kill-session", "-t", &session.name]);
    let start = Instant::now();
    while running() {
        assert!(start.elapsed() < Duration::from_secs(5), "the inspector outlived its terminal");
        std::thread::sleep(Duration::from_millis(50));
    }
}

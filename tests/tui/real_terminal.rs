//! The real binary in a real terminal: tmux (a server of the test's own, `support/tmux.rs`)
//! runs the inspector on a copy of `sample-logs/`, the test types at it (`send-keys`) and
//! reads the screen (`capture-pane`). It opens the logs, moves, searches, opens the help, sees
//! a reply dropped into the watched directory appear, opens the summary and goes from a
//! comparison's count to its replies, quits, and finds the shell usable again.
//!
//! Needs tmux; without it the tests say so and pass, or fail under CI (`.ci/run` installs it).

use crate::support::tools::TMUX;
use crate::support::{tmux, tree};

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use tmux::Tmux;

#[test]
fn the_inspector_in_a_real_terminal() {
    if !TMUX.needed_by("the end-to-end terminal test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    tree::copy_samples(&logs);
    let state = dir.path().join("state");
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let session = Tmux::start(dir.path(), 120, 40, dir.path(), "env PS1='e2e$ ' sh");
    session.wait_text("e2e$", Duration::from_secs(5));
    session.text(&format!("BRACEWALK_STATE_DIR={} {bin} logs", state.display()));
    session.keys(&["Enter"]);

    // Open: the list fills, at its top, and every reply is read.
    let shown =
        session.wait_for("the list", Duration::from_secs(20), |s| s.contains("replies 1") && s.contains("msg_bad_1"));
    println!("first replies on screen after {shown:?}");
    session
        .wait_for("loading to finish", Duration::from_secs(30), |s| !s.contains("loading") && !s.contains("reading "));
    // The problems it counts are the diagnostics `scan` counts (an empty file among them).
    let scanned = Command::new(bin).args(["scan", "--json"]).arg(&logs).output().unwrap();
    let scanned: serde_json::Value = serde_json::from_slice(&scanned.stdout).unwrap();
    let diagnostics = scanned["diagnostics"].as_u64().unwrap();
    assert!(diagnostics > 10, "sample-logs/bad/ has its diagnostics: {scanned}");
    session.wait_text(&format!("⚠ {diagnostics} problems, last: "), Duration::from_secs(5));

    // Move: sort by size, which keeps the list at its top: the 62 kB correction, its
    // seventh candidate kept.
    session.keys(&["s"]);
    session.wait_text("sort: size", Duration::from_secs(5));
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
        s.contains("187 replies, ") && !s.contains("for the scan…")
    });
    session.wait_text(&format!(", {diagnostics} diagnostics"), Duration::from_secs(5));
    session.wait_text("by agent", Duration::from_secs(5));
    // Past the groups, the repair, the truncation and the risk flags.
    for _ in 0..8 {
        session.keys(&["Tab"]);
    }
    session.keys(&["j", "j"]);
    session.wait_text(
        "narrow-everywhere → last-wins: 16 read differently: 0 gained, 0 lost, 16 changed",
        Duration::from_secs(5),
    );
    session.wait_text("the narrow colon rule in every candidate", Duration::from_secs(5));
    session.wait_text("16 replies · Enter lists them", Duration::from_secs(5));
    session.keys(&["Enter"]);
    session.wait_text("filter: narrow-everywhere differs", Duration::from_secs(5));
    session.wait_text("1/16 ·", Duration::from_secs(5));
    session.wait_text("narrow-everywhere → last-wins", Duration::from_secs(5));
    session.wait_text("≠ html: 315 chars → 210 chars", Duration::from_secs(5));
    // The filter menu's c clears it.
    session.keys(&["f", "c", "Escape"]);
    session.wait_for("the filter to clear", Duration::from_secs(5), |s| !s.contains("filter: "));

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

/// The README's walkthrough, literally: its first command's inspector on a copy of
/// `sample-logs/`, in a terminal of the size its screen was taken at, `s` then `j`, shows
/// that screen exactly.
#[test]
fn the_readmes_walkthrough_shows_what_it_says() {
    if !TMUX.needed_by("the README's walkthrough") {
        return;
    }
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let keys = "sorted by size (`s`), on the 62 kB correction (`j`)";
    let at = readme.find(keys).unwrap_or_else(|| panic!("the README's walkthrough names its keys: {keys}"));
    let screen: Vec<&str> =
        readme[at..].lines().skip_while(|l| *l != "```text").skip(1).take_while(|l| *l != "```").collect();
    let width = screen.iter().map(|l| l.chars().count()).max().unwrap();
    assert!(width >= 80 && screen.len() >= 24, "a screen of {width}×{}", screen.len());

    let dir = tempfile::tempdir().unwrap();
    tree::copy_samples(&dir.path().join("sample-logs"));
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let command = format!("env BRACEWALK_STATE_DIR={} {bin} sample-logs", dir.path().join("state").display());
    let session = Tmux::start(dir.path(), width as u16, screen.len() as u16, dir.path(), &command);
    session.wait_for("the first screen, loaded", Duration::from_secs(30), |s| {
        s.contains("msg_bad_1") && !s.contains("loading") && !s.contains("reading ")
    });
    session.keys(&["s"]);
    session.wait_text("sort: size", Duration::from_secs(5));
    session.keys(&["j"]);
    let want = screen.join("\n");
    let start = Instant::now();
    loop {
        let seen = session.screen();
        if seen.lines().collect::<Vec<_>>() == screen {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the README's screen:\n{want}\n\nthe inspector's, after s and j:\n{seen}"
        );
        std::thread::sleep(Duration::from_millis(40));
    }
    session.keys(&["q"]);
}

#[test]
fn page_17_through_the_documents_screen_and_through_the_query_line() {
    if !TMUX.needed_by("page 17 in the inspector") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    tree::copy_samples(&logs);
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let command = format!("BRACEWALK_STATE_DIR={} {bin} --no-watch logs", dir.path().join("state").display());
    let session = Tmux::start(dir.path(), 140, 40, dir.path(), &command);
    // The first screen is the top of the list.
    session.wait_text("msg_bad_1 ", Duration::from_secs(20));
    session
        .wait_for("loading to finish", Duration::from_secs(30), |s| !s.contains("loading") && !s.contains("reading "));

    // The documents screen opens on its first document (the reply selected is of none);
    // page 17 is 17 rows down.
    session.keys(&["d"]);
    session.wait_text("documents · ", Duration::from_secs(5));
    for _ in 0..17 {
        session.keys(&["j"]);
    }
    session.wait_text("html 7,121 chars", Duration::from_secs(5));
    session.wait_text("✗ rejected", Duration::from_secs(5));
    session.keys(&["Enter"]);
    session.wait_text("query: doc=3f1c9a0e7b2d4c58 round=round-4 page=17 · 3 replies", Duration::from_secs(5));
    for line in ["3f1c9a0e7b2d4c58:116", "3f1c9a0e7b2d4c58:125", "3f1c9a0e7b2d4c58:135"] {
        session.wait_text(line, Duration::from_secs(5));
    }

    // The query line: both rounds' page 17.
    session.keys(&[":", "C-u"]);
    session.wait_text("query: ", Duration::from_secs(5));
    session.text("doc=3f1c page=17");
    session.keys(&["Enter"]);
    session.wait_text("query: doc=3f1c page=17 · 5 replies", Duration::from_secs(5));
    session.wait_text("3f1c9a0e7b2d4c58:124", Duration::from_secs(5));
    // A text regex over every reply, searched off the event loop, its matches counted.
    session.keys(&[":", "C-u"]);
    session.text("doc=3f1c /Table 3 continues/");
    session.keys(&["Enter"]);
    session.wait_for("the search", Duration::from_secs(10), |s| s.contains(" matches") && !s.contains("searching"));
    session.keys(&["q"]);
}

#[test]
fn the_inspector_exits_when_its_terminal_goes_away() {
    // Regression: with its terminal closed (a tmux session killed, an ssh connection
    // dropped) the inspector read endless end-of-file and spun at full CPU, forever.
    if !TMUX.needed_by("the inspector losing its terminal") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("hangup-logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("reply.txt"), "Draft {\"a\": 1} then {\"a\": 2}").unwrap();
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let command = format!("BRACEWALK_STATE_DIR={} {bin} {}", dir.path().join("state").display(), logs.display());
    let session = Tmux::start(dir.path(), 100, 30, dir.path(), &command);
    session.wait_text("reply.txt", Duration::from_secs(10));
    let running = || {
        Command::new("pgrep")
            .args(["-f", &logs.display().to_string()])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    assert!(running(), "the inspector is running");
    session.run(&["kill-session", "-t", &session.target]);
    let start = Instant::now();
    while running() {
        assert!(start.elapsed() < Duration::from_secs(5), "the inspector outlived its terminal");
        std::thread::sleep(Duration::from_millis(50));
    }
}

//! A reply is text a model (or an adversary) wrote, and bracewalk shows it in the user's
//! terminal. Escape sequences in it must be shown, never obeyed: no window title set, nothing
//! put on the clipboard, no colours or cursor moves, no bidi reordering.
//!
//! The inspector runs in tmux with `set-clipboard on`, so an OSC 52 that leaked would land in
//! tmux's paste buffer, and an OSC 0/2 would change the pane title; both are checked, and the
//! screen must show the visible stand-ins instead. `explain` (text meant for a terminal) must
//! carry no raw control character; `extract` (JSON, data) must keep the text faithfully.

use std::process::Command;
use std::time::Duration;

use crate::support::tmux::Tmux;
use crate::support::tools::TMUX;

/// Generous: the machine running the tests may be small and busy.
const DEADLINE: Duration = Duration::from_secs(20);

const HOSTILE: &str = "Reading page 3. \u{1b}]0;PWNED-TITLE\u{7}\u{1b}]2;PWNED-TITLE2\u{1b}\\\u{1b}]52;c;UFdORUQtQ0xJUA==\u{7}\
\u{1b}[2J\u{1b}[31mred\u{1b}[0m \u{9b}1m \u{1b}]8;;http://example.invalid\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{7}\u{7f} \
\u{202e}desrever\u{202c} zero\u{200b}width\n{\"html\": \"<p>ok \\u001b]0;PWNED-IN-VALUE\\u0007</p>\", \"log\": \"p3\"}";

#[test]
fn explain_shows_control_characters_and_extract_keeps_them_as_data() {
    let dir = tempfile::tempdir().unwrap();
    let reply = dir.path().join("hostile.txt");
    std::fs::write(&reply, HOSTILE).unwrap();
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let explained = Command::new(bin).args(["explain", reply.to_str().unwrap()]).env("NO_COLOR", "1").output().unwrap();
    assert!(explained.status.success());
    let text = String::from_utf8(explained.stdout).unwrap();
    let raw: Vec<char> = text
        .chars()
        .filter(|&c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c) || c == '\u{200b}')
        .collect();
    assert!(raw.is_empty(), "raw control characters reached the terminal output: {raw:?}");
    assert!(text.contains('␛'), "ESC is shown as a stand-in");

    let extracted = Command::new(bin).args(["extract", reply.to_str().unwrap()]).output().unwrap();
    let json = String::from_utf8(extracted.stdout).unwrap();
    // The value holds a real ESC (the reply wrote it as a JSON escape; a raw one inside a
    // string is a control character JSON.parse refuses). Printed as JSON it is escaped again:
    // faithful data, inert on a terminal.
    assert!(json.contains("\\u001b]0;PWNED-IN-VALUE\\u0007"), "{json}");
    assert!(!json.contains('\u{1b}'));
}

#[test]
fn the_inspector_neither_sets_the_title_nor_the_clipboard() {
    if !TMUX.needed_by("the inspector's part") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("hostile.txt"), HOSTILE).unwrap();
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    // A server of its own, so the buffer and options checked are this test's alone; a shell
    // first, so the options hold before the inspector draws anything.
    let session = Tmux::start(dir.path(), 120, 40, dir.path(), "env PS1='inject$ ' sh");
    for option in ["set-clipboard", "allow-rename"] {
        assert!(session.run(&["set-option", "-g", option, "on"]).status.success(), "{option}");
    }
    session.wait_text("inject$", DEADLINE);
    session.text(&format!("BRACEWALK_STATE_DIR={} {bin} logs", dir.path().join("state").display()));
    session.keys(&["Enter"]);
    session.wait_text("hostile.txt", DEADLINE);
    // The text pane, the value pane and the text pane again, each drawn with the reply's
    // sequences in it.
    for (key, pane, drawn) in [
        ("2", "┏ 2 reply text", "␛]52;c;UFdORUQtQ0xJUA==␇"),
        ("5", "┏ 5 value", "␛]0;PWNED-IN-VALUE␇"),
        ("2", "┏ 2 reply text", "␛]0;PWNED-TITLE␇"),
    ] {
        session.keys(&[key]);
        session.wait_for(&format!("{pane} showing {drawn}"), DEADLINE, |s| s.contains(pane) && s.contains(drawn));
    }
    let shown = session.screen();
    session.keys(&["q"]);
    session.wait_for("the shell back", DEADLINE, |s| s.matches("inject$").count() == 2);
    let title = session.display("#{pane_title}");
    let buffers = String::from_utf8_lossy(&session.run(&["list-buffers"]).stdout).into_owned();

    assert!(!title.contains("PWNED"), "the pane title was set by the reply: {title:?}");
    assert!(!buffers.contains("PWNED"), "the reply reached the clipboard: {buffers:?}");
    assert!(shown.contains('␛'), "the escape is shown as a stand-in:\n{shown}");
    assert!(shown.contains("PWNED-TITLE"), "the sequence's text is visible, inert:\n{shown}");
}

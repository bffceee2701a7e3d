//! A path that cannot be read is an error, never an empty corpus: every command names it and
//! why on stderr and exits 2, reading nothing. `explain` and `extract` read a file as `list`
//! does, so one it skips (binary, empty, out of reach) is an error there too, in its words.
//! `scan` says what it could not read on stderr, as the report counts it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::binary::{BIN, bracewalk, state_dir, stdout};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `out` failed as it should on `path`: nothing on stdout, exit 2, and stderr naming it.
fn refused(what: &str, out: &Output, said: &str) {
    assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(out));
    assert_eq!(stdout(out), "", "{what} reads nothing");
    assert_eq!(stderr(out), format!("bracewalk: {said}\n"), "{what}");
}

#[test]
fn a_path_that_does_not_exist_is_an_error_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("smaple-logs");
    let m = missing.to_str().unwrap();
    let said = format!("{m}: no such file or directory");
    for args in [
        vec!["scan", m],
        vec!["scan", "--json", m],
        vec!["list", m],
        vec!["list", "--json", m],
        vec!["rounds", m],
        vec!["rounds", "--json", m],
        vec!["explain", m],
        vec!["extract", m],
        vec!["extract", &format!("{m}:3")],
        // The inspector says so before it takes the terminal, and does not open on nothing.
        vec![m],
        vec!["--no-watch", m],
    ] {
        refused(&args.join(" "), &bracewalk(&args), &said.replace(m, args.last().unwrap()));
    }
    // With a good path beside it, it is still an error: a typo is not a smaller corpus.
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs/formats/replies");
    refused("scan GOOD BAD", &bracewalk(&["scan", samples.to_str().unwrap(), m]), &said);
}

#[test]
fn a_path_out_of_reach_is_permission_denied_not_missing() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let locked = dir.path().join("locked");
        fs::create_dir(&locked).unwrap();
        fs::write(locked.join("reply.txt"), "{\"a\": 1}").unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        // Root reads everything: as root, the commands run as `nobody`.
        let is_root = fs::read("/proc/self/status").is_ok_and(|s| s.windows(7).any(|w| w == b"Uid:\t0\t"));
        let run = |args: &[&str]| -> Output {
            let mut cmd = if is_root {
                let mut c = Command::new("setpriv");
                c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
                c
            } else {
                Command::new(BIN)
            };
            cmd.args(args).env("NO_COLOR", "1").env("BRACEWALK_STATE_DIR", state_dir()).output().unwrap()
        };
        let (d, f) = (locked.to_str().unwrap().to_owned(), locked.join("reply.txt").to_str().unwrap().to_owned());
        refused("scan DIR", &run(&["scan", &d]), &format!("{d}: permission denied"));
        refused("list DIR", &run(&["list", &d]), &format!("{d}: permission denied"));
        refused("the inspector", &run(&[&d]), &format!("{d}: permission denied"));
        refused("explain FILE", &run(&["explain", &f]), &format!("{f}: permission denied"));
        refused("extract FILE", &run(&["extract", &f]), &format!("{f}: permission denied"));
    }
}

#[test]
fn explain_and_extract_read_a_file_as_list_does() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("reply.txt");
    fs::write(&binary, b"Final: {\"a\": 1}\0\0\0").unwrap();
    let empty = dir.path().join("empty.txt");
    fs::write(&empty, b"").unwrap();
    for (file, problem) in [(&binary, "binary file (it contains NUL bytes); skipped"), (&empty, "empty file")] {
        let f = file.to_str().unwrap();
        let listed = bracewalk(&["list", f]);
        assert!(stdout(&listed).contains(&format!("{f}: {problem}")), "list: {}", stdout(&listed));
        for command in ["explain", "extract"] {
            refused(command, &bracewalk(&[command, f]), &format!("{f}: {problem}"));
        }
    }
}

#[test]
fn scan_says_on_stderr_what_it_could_not_read_and_keeps_its_report() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    let s = samples.to_str().unwrap();
    let listed = bracewalk(&["list", "--json", s]);
    let diagnostics: Vec<String> = stdout(&listed)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["kind"].is_string())
        .map(|v| v["diagnostic"].as_str().unwrap().to_owned())
        .collect();
    assert!(diagnostics.len() > 10, "sample-logs/bad/ gives diagnostics");

    let json = bracewalk(&["scan", "--json", s]);
    assert_eq!(json.status.code(), Some(1), "some inputs had diagnostics");
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["diagnostics"].as_u64(), Some(diagnostics.len() as u64));
    let err = stderr(&json);
    let told: Vec<&str> = err.lines().map(|l| l.strip_prefix("bracewalk: ").unwrap()).collect();
    assert_eq!(told.len(), diagnostics.len(), "one line each:\n{}", stderr(&json));
    for (line, message) in told.iter().zip(&diagnostics) {
        assert!(line.starts_with(s) && line.ends_with(message.as_str()), "{line} says {message}");
    }
    // The table says the same on stderr; its report on stdout is the one it always printed.
    let table = bracewalk(&["scan", s]);
    assert_eq!(stderr(&table), stderr(&json));
    assert!(stdout(&table).starts_with("186 replies, "), "{}", stdout(&table));
}

#[test]
fn scan_tells_the_first_twenty_diagnostics_and_counts_the_rest_unless_listing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("good.txt"), "{\"a\": 1}").unwrap();
    for i in 0..25 {
        fs::write(dir.path().join(format!("empty-{i:02}.txt")), "").unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let short = bracewalk(&["scan", d]);
    let lines: Vec<String> = stderr(&short).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 21, "{lines:#?}");
    assert_eq!(lines[0], format!("bracewalk: {}: empty file", dir.path().join("empty-00.txt").display()));
    assert_eq!(lines[20], "bracewalk: … and 5 more diagnostics (--list prints every one)");
    let all = bracewalk(&["scan", "--list", d]);
    assert_eq!(stderr(&all).lines().count(), 25);
    assert!(stderr(&all).lines().all(|l| l.ends_with(": empty file")));
}

/// On a terminal, `extract` and `explain` given no reply do not wait for one unasked: they
/// say what to give and exit 2. `-` reads the terminal, and says how to end it.
#[test]
fn no_reply_named_on_a_terminal_is_an_error_that_says_what_to_give() {
    use crate::support::tmux::Tmux;
    use crate::support::tools::TMUX;
    use std::time::Duration;
    if !TMUX.needed_by("extract on a terminal") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = Tmux::start(dir.path(), 120, 20, dir.path(), "env PS1='t$ ' sh");
    session.wait_text("t$", Duration::from_secs(5));
    for command in ["extract", "explain"] {
        // Each command's own end marker: the one before is on the screen until `clear` runs.
        session.text(&format!("clear; {BIN} {command}; echo \"{command} status $?\""));
        session.keys(&["Enter"]);
        session.wait_text(&format!("{command} status 2"), Duration::from_secs(10));
        let screen = session.screen();
        assert!(
            screen.contains(
                "bracewalk: no reply given: name a file or PATH:LINE, or pipe the reply in (`-` reads it from the terminal)"
            ),
            "{command}:\n{screen}"
        );
    }
    session.text(&format!("clear; {BIN} extract -; echo \"status $?\""));
    session.keys(&["Enter"]);
    session.wait_text("bracewalk: reading the reply from the terminal; end it with Ctrl-D", Duration::from_secs(10));
    session.text("Draft: {\"a\":1}  Final: {\"a\":2}");
    session.keys(&["Enter", "C-d"]);
    session.wait_text("status 0", Duration::from_secs(10));
    assert!(session.screen().lines().any(|l| l == "{\"a\":2}"), "{}", session.screen());
    // Piped in, as ever, it reads standard input without a word.
    let piped = Command::new(BIN)
        .arg("extract")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"Final: {\"b\": 2}")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!((stdout(&piped), stderr(&piped)), ("{\"b\":2}\n".to_owned(), String::new()));
}

//! bracewalk never writes into the directories it inspects: every command, and the inspector
//! with a mark made in it, runs over a copy of `sample-logs/`, and the copy is byte-for-byte
//! what it was (same entries, same contents, same symlinks). Its own state goes to the state
//! directory given to it, which is checked to be where the mark landed.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::tree;

/// Every entry under `root`: a file's bytes, a symlink's target, or a directory marker.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("link {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_owned()
            } else {
                format!("file {:?}", std::fs::read(&path).unwrap())
            };
            out.insert(rel, what);
        }
    }
    out
}

#[test]
fn no_command_writes_into_the_logs_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    let state = dir.path().join("state");
    tree::copy_samples(&logs);
    let before = snapshot(&logs);
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let reply = logs.join("round-4/3f1c9a0e7b2d4c58/log.jsonl:135");
    let reply = reply.to_str().unwrap();
    let l = logs.to_str().unwrap();
    for args in [
        vec!["list", l],
        vec!["list", "--json", l],
        vec!["scan", l],
        vec!["scan", "--json", "--list", l],
        vec!["scan", "--markdown", l],
        vec!["explain", reply],
        vec!["explain", "--json", reply],
        vec!["extract", reply],
        vec!["extract", "--reader", "first-wins", reply],
        vec!["marks"],
        vec!["marks", "--json"],
    ] {
        let out = Command::new(bin).args(&args).env("BRACEWALK_STATE_DIR", &state).current_dir(&logs).output().unwrap();
        assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    // The inspector, with a mark made (which is written, to the state directory).
    if Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success()) {
        let name = format!("bracewalk-nowrite-{}", std::process::id());
        let command = format!("BRACEWALK_STATE_DIR={} {bin} {l}", state.display());
        let tmux = |args: &[&str]| Command::new("tmux").args(args).output().unwrap();
        assert!(
            tmux(&["new-session", "-d", "-x", "120", "-y", "40", "-s", &name, "sh", "-c", &command]).status.success()
        );
        let screen = || String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &name]).stdout).into_owned();
        let start = Instant::now();
        while !screen().contains("replies") {
            assert!(start.elapsed() < Duration::from_secs(15), "the inspector did not start:\n{}", screen());
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(500));
        for keys in [&["j", "j"][..], &["m"], &["-l", "check this one"], &["Enter"], &["S"], &["Escape"], &["q"]] {
            let mut args = vec!["send-keys", "-t", name.as_str()];
            args.extend_from_slice(keys);
            tmux(&args);
            std::thread::sleep(Duration::from_millis(200));
        }
        let start = Instant::now();
        while tmux(&["has-session", "-t", &name]).status.success() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        tmux(&["kill-session", "-t", &name]);
        let marks = std::fs::read_dir(&state).map(|d| d.count()).unwrap_or(0);
        assert!(marks > 0, "the mark went to the state directory");
    } else {
        println!("tmux is not installed: the inspector part is skipped (.ci/run installs it)");
    }

    let after = snapshot(&logs);
    assert_eq!(before.len(), after.len(), "entries were added or removed");
    for (path, what) in &before {
        assert!(after.get(path) == Some(what), "{} changed", path.display());
    }
}

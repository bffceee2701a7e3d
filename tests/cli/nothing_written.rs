//! bracewalk never writes into the directories it inspects: every command, and the inspector
//! with a mark made in it, runs over a copy of `sample-logs/`, and the copy is byte-for-byte
//! what it was (same entries, same contents, same symlinks). Its own state goes to the state
//! directory given to it, which is checked to be where the mark landed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::tmux::Tmux;
use crate::support::tools::TMUX;
use crate::support::tree;

/// Generous: the machine running the tests may be small and busy.
const DEADLINE: Duration = Duration::from_secs(20);

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
    if TMUX.needed_by("the inspector's part") {
        let session = Tmux::start(dir.path(), 120, 40, &logs, "env PS1='nowrite$ ' sh");
        session.wait_text("nowrite$", DEADLINE);
        session.text(&format!("BRACEWALK_STATE_DIR={} {bin} {l}", state.display()));
        session.keys(&["Enter"]);
        session.wait_for("loading to finish", DEADLINE, |s| {
            s.contains("replies") && !s.contains("loading") && !s.contains("reading ")
        });
        session.keys(&["j", "j", "m"]);
        session.wait_text("note for", DEADLINE);
        session.text("check this one");
        session.keys(&["Enter"]);
        session.wait_text("marked (1 marks)", DEADLINE);
        session.keys(&["S"]);
        session.wait_text("summary · row", DEADLINE);
        session.keys(&["Escape"]);
        session.wait_for("the list back", DEADLINE, |s| !s.contains("summary · row"));
        session.keys(&["q"]);
        session.wait_for("the shell back", DEADLINE, |s| s.matches("nowrite$").count() == 2);
        let marks = std::fs::read_dir(&state).map(|d| d.count()).unwrap_or(0);
        assert!(marks > 0, "the mark went to the state directory");
    }

    let after = snapshot(&logs);
    assert_eq!(before.len(), after.len(), "entries were added or removed");
    for (path, what) in &before {
        assert!(after.get(path) == Some(what), "{} changed", path.display());
    }
}

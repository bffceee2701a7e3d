//! Process groups, as the tests of a reader's lifetime look at them: a reader that never
//! answers and says which group it runs in, and whether any process of that group is left.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

/// A reader command that never answers: it adds its process group's id (its shell's pid:
/// the group's leader) to `file`, a line per run, starts a second process in its group, and
/// sleeps.
pub fn stuck_reader(file: &Path) -> String {
    format!("echo $$ >> '{}'; sleep 1000 & sleep 1000", file.display())
}

/// A reader command that answers every reply with nothing and leaves a process of its own
/// behind in its group, adding the group's id to `file` first.
pub fn lingering_reader(file: &Path) -> String {
    format!(
        r#"echo $$ >> '{}'; sleep 1000 & while IFS= read -r l; do id=${{l#\{{\"id\":\"}}; printf '{{"id":"%s"}}\n' "${{id%%\"*}}"; done"#,
        file.display()
    )
}

/// The group ids written to `file` so far, a line each.
pub fn groups_in(file: &Path) -> Vec<i32> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// The first group id written to `file`, once it is there.
pub fn group_in(file: &Path, within: Duration) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(&group) = groups_in(file).first() {
            return group;
        }
        assert!(start.elapsed() < within, "no group id in {} after {within:?}", file.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The processes of `group` that have not ended (a zombie has ended: it waits only to be
/// reaped), by pid, from /proc.
pub fn alive_in(group: i32) -> Vec<i32> {
    let mut alive = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == group.to_string() && fields[0] != "Z" && fields[0] != "X" {
            alive.push(pid);
        }
    }
    alive
}

/// Asserts that `group` has processes now (the reader runs).
pub fn assert_running(group: i32) {
    assert!(!alive_in(group).is_empty(), "group {group} has no process: the reader never ran");
}

/// Asserts that no process of `group` is left, waiting up to `within` for the ones a signal
/// is ending.
#[track_caller]
pub fn assert_gone(group: i32, within: Duration, way: &str) {
    let start = Instant::now();
    loop {
        let alive = alive_in(group);
        if alive.is_empty() {
            return;
        }
        if start.elapsed() > within {
            let shown: Vec<String> = alive
                .iter()
                .map(|p| std::fs::read_to_string(format!("/proc/{p}/cmdline")).unwrap_or_default().replace('\0', " "))
                .collect();
            // Not left for the next test either.
            let _ = std::process::Command::new("kill").args(["-9", &format!("-{group}")]).status();
            panic!("{way}: the reader's group {group} outlived bracewalk: {alive:?} {shown:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

//! `scan --accept` and `scan --accepted` end to end on a copy of the sample campaign: accept,
//! rescan (exit 0, nothing new), change one reply, rescan (that reply reported, exit 3), and
//! the exit statuses apart from a diagnostic's.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value as Json;

use crate::support::binary::stdout;
use crate::support::tree;

const BIN: &str = env!("CARGO_BIN_EXE_bracewalk");
const CORRECTION: &str = "logs/round-4/3f1c9a0e7b2d4c58/log.jsonl:135";

fn scan(cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(cwd)
        .arg("scan")
        .args(args)
        .args(["logs/round-4", "logs/round-5"])
        .env("BRACEWALK_STATE_DIR", cwd.join("state"))
        .output()
        .unwrap()
}

#[test]
fn accept_rescan_change_one_reply_rescan() {
    let dir = tempfile::tempdir().unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    for round in ["round-4", "round-5"] {
        tree::copy(&samples.join(round), &dir.path().join("logs").join(round));
    }
    let cwd = dir.path();

    // Accept what the scan finds.
    let out = scan(cwd, &["--accept", "accepted.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let file = std::fs::read_to_string(cwd.join("accepted.jsonl")).unwrap();
    let accepted: Vec<Json> = file.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(stdout(&out).contains(&format!("accepted {} differences", accepted.len())), "{}", stdout(&out));
    let correction: Vec<&Json> = accepted.iter().filter(|e| e["id"] == CORRECTION).collect();
    assert!(
        correction.iter().any(|e| e["comparison"] == "fence-first"
            && e["account"] == "html: 3 chars → 7,121 chars; log: 3 chars → 43 chars")
    );

    // Rescan: nothing new.
    let out = scan(cwd, &["--accepted", "accepted.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("nothing new"), "{}", stdout(&out));
    assert!(!stdout(&out).contains(CORRECTION));

    // Change one reply: the correction's template grows a character.
    let log = cwd.join("logs/round-4/3f1c9a0e7b2d4c58/log.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let template = r#"\"html\": \"...\""#;
    assert!(lines[134].contains(template));
    lines[134] = lines[134].replacen(template, r#"\"html\": \"....\""#, 1);
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();

    let out = scan(cwd, &["--accepted", "accepted.jsonl"]);
    assert_eq!(out.status.code(), Some(3), "a difference not accepted: {}", stdout(&out));
    let printed = stdout(&out);
    assert!(printed.contains(&format!("{CORRECTION}  html: 4 chars → 7,121 chars")), "{printed}");
    assert!(printed.contains("accepted as: html: 3 chars → 7,121 chars"), "{printed}");
    let out = scan(cwd, &["--accepted", "accepted.jsonl", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let check: Json = serde_json::from_slice(&out.stdout).unwrap();
    let changed = check["changed"].as_array().unwrap();
    assert!(!changed.is_empty() && changed.iter().all(|e| e["id"] == CORRECTION), "{check}");
    assert_eq!(check["new"], serde_json::json!([]));
    assert_eq!(check["still"].as_u64().unwrap() as usize + changed.len(), accepted.len());

    // A diagnostic alone is 1; with a difference not accepted, 3 still.
    std::fs::write(cwd.join("logs/round-5/empty.txt"), "").unwrap();
    assert_eq!(scan(cwd, &["--accepted", "accepted.jsonl"]).status.code(), Some(3));
    std::fs::write(&log, text).unwrap();
    let out = scan(cwd, &["--accepted", "accepted.jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("nothing new") && stdout(&out).contains("empty file"), "{}", stdout(&out));

    // A file that does not read is an error, and says where.
    std::fs::write(cwd.join("bad.jsonl"), "{\"id\": 1}\n").unwrap();
    let out = scan(cwd, &["--accepted", "bad.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.jsonl: line 1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

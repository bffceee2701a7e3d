//! The pipeline's original reader (`fence-first`) beside the seed on the sample logs: the
//! #170 story. It binds the long correction's 62-character scratch template (`html: 3 chars →
//! 7,121 chars`) and the first of four fenced drafts (`html: 2,253 chars → 13,182 chars`), in
//! `bracewalk scan` and in the inspector's what-if column and readers pane.

use crate::support::tmux;
use crate::support::tools::TMUX;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value as Json;

const BIN: &str = env!("CARGO_BIN_EXE_bracewalk");
const TEMPLATE: &str = "html: 3 chars → 7,121 chars; log: 3 chars → 43 chars";
const DRAFTS: &str = "html: 2,253 chars → 13,182 chars; log: 80 chars → 95 chars";

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-logs")
}

#[test]
fn scan_tells_the_170_story() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["scan", "--json", "--compare", "fence-first,last-wins", "sample-logs"])
        .env("BRACEWALK_STATE_DIR", dir.path())
        .output()
        .unwrap();
    let scan: Json = serde_json::from_slice(&out.stdout).unwrap();
    let c = &scan["comparisons"]["fence-first"];
    assert_eq!((c["from"].as_str(), c["to"].as_str()), (Some("fence-first"), Some("last-wins")));
    let account = |id: &str| {
        let r = c["replies"].as_array().unwrap().iter().find(|r| r["id"] == id || r["reference"] == id);
        r.map(|r| r["account"].as_str().unwrap().to_owned()).unwrap_or_else(|| panic!("{id} does not differ: {c}"))
    };
    // The correction, in the campaign and as a reply file; the four fenced drafts, likewise.
    assert_eq!(account("sample-logs/round-4/3f1c9a0e7b2d4c58/log.jsonl:135"), TEMPLATE);
    assert_eq!(account("sample-logs/formats/replies/page-017-correction.txt"), TEMPLATE);
    assert_eq!(account("sample-logs/round-4/3f1c9a0e7b2d4c58/log.jsonl:57"), DRAFTS);
    assert_eq!(account("msg_04Ridership"), DRAFTS);
}

#[test]
fn the_inspector_tells_the_170_story() {
    if !TMUX.needed_by("the inspector's part") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let replies =
        [samples().join("formats/replies/page-017-correction.txt"), samples().join("formats/anthropic/page-009.json")];
    let command = format!(
        "env BRACEWALK_STATE_DIR={} {BIN} --no-watch {} {}; sleep 30",
        dir.path().display(),
        replies[0].display(),
        replies[1].display()
    );
    let session = tmux::Tmux::start(dir.path(), 100, 30, dir.path(), &command);
    session.wait_text("msg_04Ridership", Duration::from_secs(20));
    // The what-if column, cycled to the pipeline's original reader.
    for _ in 0..10 {
        session.keys(&["w"]);
    }
    session.wait_text("what-if: fence-first", Duration::from_secs(5));
    session.wait_for("both accounts", Duration::from_secs(20), |s| {
        s.contains("≠ html: 3 chars → 7,121 chars") && s.contains("≠ html: 2,253 chars → 13,182 chars")
    });
    // The readers pane says it of the selected reply: the drafts, then the correction.
    session.keys(&["6"]);
    session.wait_text(
        "what-if fence-first → last-wins: differs: html: 2,253 chars → 13,182 chars",
        Duration::from_secs(10),
    );
    session.keys(&["1", "j", "6"]);
    session.wait_text("what-if fence-first → last-wins: differs: html: 3 chars → 7,121 chars", Duration::from_secs(10));
}

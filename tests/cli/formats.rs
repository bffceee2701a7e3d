//! The command line over the formats: `--format` names every one, `list` and `scan` read
//! bracewalk's own records without flags and count a response with no text as a call
//! without a reply; and what an installed tool offers: completions and a man page.

use std::fs;

use bracewalk::logs::Format;
use clap::ValueEnum;
use serde_json::{Value, json};

use crate::support::binary::{bracewalk, stdout};

#[test]
fn format_lists_and_forces_every_format() {
    let help = stdout(&bracewalk(&["list", "--help"]));
    for f in Format::value_variants() {
        assert!(help.contains(&format!("- {}:", f.name())), "{} missing from\n{help}", f.name());
        assert_eq!(f.to_possible_value().unwrap().get_name(), f.name());
    }
    // Forced: a Gemini response named and shaped like nothing in particular.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reply.data");
    fs::write(
        &path,
        json!({"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}).to_string(),
    )
    .unwrap();
    let o = bracewalk(&["list", "--json", "--format", "gemini", path.to_str().unwrap()]);
    let row: Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(
        (row["format"].as_str(), row["bytes"].as_u64(), row["stop_reason"].as_str()),
        (Some("gemini"), Some(2), Some("finished"))
    );
}

/// The guide's table of what bracewalk reads names every format, once each, and no other:
/// the list of formats is `Format`, and the table is held to it.
#[test]
fn the_guides_table_names_every_format_and_no_other() {
    let guide = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/GUIDE.md")).unwrap();
    let start = guide.find("## What it reads").expect("the guide says what it reads");
    let section = &guide[start..];
    let rows = section.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|'));
    // Each format is named in its row as (`name`); the first two rows are the head.
    let mut named: Vec<&str> = Vec::new();
    for row in rows.skip(2) {
        let mut rest = row;
        while let Some(at) = rest.find("(`") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find('`') else { break };
            if rest[end..].starts_with("`)") {
                named.push(&rest[..end]);
            }
            rest = &rest[end..];
        }
    }
    let mut want: Vec<&str> = Format::value_variants().iter().map(|f| f.name()).collect();
    want.sort_unstable();
    let mut got = named.clone();
    got.sort_unstable();
    assert_eq!(got, want, "the guide's table names {named:?}");
}

#[test]
fn list_and_scan_read_bracewalks_records_and_count_calls_without_text() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("corpus.jsonl");
    fs::write(&records, "{\"id\": \"a\", \"text\": \"Final: {\\\"a\\\": 2}\"}\n{\"id\": \"b\", \"text\": \"{\\\"edits\\\": [\", \"fields\": [\"edits\"]}\n").unwrap();
    let tool = dir.path().join("tool-call.json");
    let response = json!({"id": "msg_t", "type": "message", "role": "assistant", "model": "c", "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "t", "name": "get_weather", "input": {}}]});
    fs::write(&tool, serde_json::to_string_pretty(&response).unwrap()).unwrap();
    let d = dir.path().to_str().unwrap();

    let o = bracewalk(&["list", d]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("no reply: tool call: get_weather"), "{out}");
    assert!(out.contains("2 replies, 1 call with no reply, 0 diagnostics"), "{out}");
    let o = bracewalk(&["list", "--json", d]);
    let rows: Vec<Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let summary: Vec<_> =
        rows.iter().map(|r| (r["id"].as_str().unwrap(), r["format"].as_str().unwrap(), r["event"].as_str())).collect();
    assert_eq!(summary, [("a", "records", None), ("b", "records", None), ("msg_t", "anthropic", Some("tool-call"))]);

    let o = bracewalk(&["scan", "--json", d]);
    let scan: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (scan["replies"].as_u64(), scan["calls_without_reply"].as_u64(), scan["diagnostics"].as_u64()),
        (Some(2), Some(1), Some(0))
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn completions_for_each_shell_and_a_man_page() {
    for shell in ["bash", "zsh", "fish"] {
        let o = bracewalk(&["completions", shell]);
        let script = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert!(
            script.contains("bracewalk") && script.contains("openai-responses-stream") && script.contains("explain"),
            "{shell}"
        );
    }
    let o = bracewalk(&["man"]);
    let page = stdout(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(page.contains(".TH bracewalk 1") && page.contains("completions") && page.contains("list"), "{page}");
    assert_ne!(bracewalk(&["completions", "tcsh"]).status.code(), Some(0));
}

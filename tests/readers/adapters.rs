//! The ready-made reader commands of `examples/readers/`, each run where its runtime and
//! library are present (where they are not: skipped, saying so, or failed under CI): the ES
//! module adapter around a stand-in extractor (`tests/readers/whole_text.mjs`), npm's
//! `jsonrepair`, and Python's `json_repair`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value as Json;

use crate::support::tools::{JSON_REPAIR, JSONREPAIR, NODE, PYTHON3};

const BIN: &str = env!("CARGO_BIN_EXE_bracewalk");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Scans `texts` (ids `r1`…) with reader `name` running `command` from the project's root,
/// compared with the seed; the JSON result.
fn scan(dir: &Path, texts: &[&str], name: &str, command: &str) -> (Json, Output) {
    // Beside the state directory, not above it: a reader's log never goes inside what is read.
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    let corpus = dir.join("logs").join("corpus.jsonl");
    let lines: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}\n", serde_json::json!({"id": format!("r{}", i + 1), "text": t})))
        .collect();
    std::fs::write(&corpus, lines).unwrap();
    let out = Command::new(BIN)
        .current_dir(root())
        .args(["scan", "--json", "--list", "--text-path", "/text", "--meta", "id=/id"])
        .args(["--reader", &format!("{name}={command}"), "--compare", &format!("{name},last-wins")])
        .arg(&corpus)
        .env("BRACEWALK_STATE_DIR", dir.join("state"))
        .output()
        .unwrap();
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, out)
}

fn accounts(scan: &Json, key: &str) -> Vec<(String, String)> {
    scan["comparisons"][key]["replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_owned(), r["account"].as_str().unwrap().to_owned()))
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

#[test]
fn the_module_adapter_runs_any_extractor_and_agrees_with_json_text() {
    if !NODE.needed_by("examples/readers/module.mjs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let texts = [
        r#"{"a": 1}"#,
        r#"Here: {"b": 2}"#,
        // Infinity to the seed, `null` once JSON.stringify has printed it: the same answer.
        "1e400",
        // A lone surrogate survives JSON text as its escape.
        r#" "\ud800" "#,
        "throw me {\"c\": 1}",
        "{\"é\": \"ü 😀\", \"2\": 0, \"1\": 1}",
    ];
    let command = "node examples/readers/module.mjs tests/readers/whole_text.mjs extractJson";
    let (v, out) = scan(dir.path(), &texts, "whole", command);
    // A throw (an `error` answer) is nothing read, as the extractor's caller, who catches it,
    // holds: it differs where the seed reads, and the reader has not failed.
    assert_eq!(accounts(&v, "whole"), pairs(&[("r2", "null → value {b}"), ("r5", "null → value {c}")]), "{v}");
    assert_eq!(v["ids"]["reader_failed"]["whole"], serde_json::json!([]));
    assert_eq!(v["ids"]["diagnostics"], serde_json::json!([]));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn the_jsonrepair_adapter() {
    let part = "examples/readers/jsonrepair.mjs";
    if !(NODE.needed_by(part) && JSONREPAIR.needed_by(part)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let texts = [r#"{"a": 1}"#, r#"{"a": 'b', c: [1, 2,],}"#, r#"x {"a": 1} y"#];
    let (v, out) = scan(dir.path(), &texts, "jsonrepair", "node examples/readers/jsonrepair.mjs");
    // It repairs JSON5-ish text the seed leaves; it throws on prose around an object.
    assert_eq!(accounts(&v, "jsonrepair"), pairs(&[("r2", "value {a, c} → null"), ("r3", "null → value {a}")]), "{v}");
    assert_eq!(v["reader_failed"]["jsonrepair"], 0);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_json_repair_adapter() {
    let part = "examples/readers/json-repair.py";
    if !(PYTHON3.needed_by(part) && JSON_REPAIR.needed_by(part)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let texts = [r#"{"a": 1}"#, r#"{"a": 'b', c: [1, 2,],}"#, r#"x {"a": 1} y"#, "[NaN]"];
    let (v, out) = scan(dir.path(), &texts, "json_repair", "python3 examples/readers/json-repair.py");
    // It reads what the seed reads around prose, repairs what the seed leaves, and a NaN it
    // makes is JSON's null (not Python's `NaN`, which is no JSON).
    assert_eq!(
        accounts(&v, "json_repair"),
        pairs(&[("r2", "value {a, c} → null"), ("r4", "value [1 item] → null")]),
        "{v}"
    );
    assert_eq!(v["reader_failed"]["json_repair"], 0);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

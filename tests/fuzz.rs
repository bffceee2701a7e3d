//! Fuzz targets on stable Rust (proptest), run briefly by `cargo test` and for as long as
//! wanted with `BRACEWALK_FUZZ_SCALE` (a multiplier on the case counts):
//!
//! ```text
//! BRACEWALK_FUZZ_SCALE=200 cargo test --release --test fuzz
//! ```
//!
//! - every reader, the trace renderers and the oracle record on arbitrary text and on
//!   mutations of the golden corpus: no panic, and the cheap walk agrees with the recorded one;
//! - the JavaScript-exact JSON parse against serde_json on inputs both accept: same value;
//! - the run-log loader on arbitrary files: no panic, and every file yields a reply or a
//!   diagnostic.
//!
//! A per-input time limit is not needed: the readers are linear (see `tests/linear.rs`), so
//! an input that hung would show here as a test that does not finish.

use std::path::PathBuf;

use proptest::prelude::*;

use bracewalk::cli::explain;
use bracewalk::cli::record::{self, Input, Offsets};
use bracewalk::cli::style::Style;
use bracewalk::read::value::{JsString, Value};
use bracewalk::read::walk::{WalkOptions, run};
use bracewalk::read::{first, js, served, walk};

fn cases(base: u32) -> u32 {
    let scale: u32 = std::env::var("BRACEWALK_FUZZ_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    base.saturating_mul(scale)
}

const GOLDEN: &str = include_str!("golden/replies.jsonl");

fn golden_texts() -> Vec<String> {
    GOLDEN
        .lines()
        .step_by(3)
        .filter_map(|l| Input::parse(l).ok())
        .map(|i| i.text)
        .filter(|t| t.len() < 20_000)
        .collect()
}

/// A golden reply with a few byte-level edits, kept valid UTF-8.
fn mutated_golden() -> impl Strategy<Value = String> {
    let texts = golden_texts();
    (prop::sample::select(texts), prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..6))
        .prop_map(|(text, edits)| {
            let mut bytes = text.into_bytes();
            for (at, op, b) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                match op {
                    0 => {
                        bytes.remove(i);
                    }
                    1 => bytes.insert(i, b"{}[]\":,\\\n \x1b"[usize::from(b) % 11]),
                    2 => bytes.truncate(i),
                    _ => {
                        let end = (i + usize::from(b)).min(bytes.len());
                        let chunk = bytes[i..end].to_vec();
                        bytes.splice(i..i, chunk);
                    }
                }
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
}

/// Everything bracewalk does with one reply's text.
fn exercise(text: &str) {
    let slow = walk::trace(text);
    let fast = run(text, &WalkOptions::SEED, false);
    assert_eq!(slow.value.as_ref().map(Value::to_json), fast.value.as_ref().map(Value::to_json));
    assert_eq!(slow.decided_by, fast.decided_by);
    assert_eq!(slow.whole_reply.name(), fast.whole_reply.name());
    let _ = explain::render_text(text, &slow, &Style::plain());
    let json = explain::render_json(text, &slow);
    // Checked with our own parse: the trace nests as deep as the reply, past serde_json's limit.
    assert!(js::parse(&json).is_ok(), "trace JSON is JSON");
    let _ = first::extract_json_object(text);
    let _ = served::leading_json_values(text);
    let _ = served::json_prefix_of(text);
    let _ = walk::read_array_prefix(text, "edits");
    let input = Input { id: Value::Null, text: text.to_owned(), fields: vec!["edits".into(), "0".into()] };
    let line = record::render(&input, Offsets::Utf16, None);
    assert!(js::parse(&line).is_ok(), "the record is JSON");
}

/// Our value as serde_json would hold it (numbers as doubles, keys sorted by serde).
fn to_serde(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => serde_json::Number::from_f64(*n).map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::String(s) => serde_json::Value::String(s.to_string_lossy().into_owned()),
        Value::Array(a) => serde_json::Value::Array(a.iter().map(to_serde).collect()),
        Value::Object(o) => {
            serde_json::Value::Object(o.iter().map(|(k, v)| (k.to_string_lossy().into_owned(), to_serde(v))).collect())
        }
    }
}

fn normalize_numbers(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Number(n) => {
            n.as_f64().and_then(serde_json::Number::from_f64).map_or(serde_json::Value::Null, serde_json::Value::Number)
        }
        serde_json::Value::Array(a) => serde_json::Value::Array(a.into_iter().map(normalize_numbers).collect()),
        serde_json::Value::Object(o) => {
            serde_json::Value::Object(o.into_iter().map(|(k, v)| (k, normalize_numbers(v))).collect())
        }
        other => other,
    }
}

fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
        any::<i64>().prop_map(|i| i.to_string()),
        "[ -~é😀\\\\\"]{0,12}".prop_map(|s| {
            let mut out = String::new();
            bracewalk::read::value::write_json_string(&mut out, &JsString::from(s.as_str()));
            out
        }),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec(("[a-c0-2]{1,2}", inner), 0..5).prop_map(|v| {
                let fields: Vec<String> = v.into_iter().map(|(k, v)| format!("\"{k}\" : {v}")).collect();
                format!("{{ {} }}", fields.join(", "))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), ..ProptestConfig::default() })]

    #[test]
    fn readers_survive_arbitrary_text(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn readers_survive_brace_soup(text in "[{}\\[\\]\":,\\\\ a\n\u{feff}\u{85}]{0,300}") {
        exercise(&text);
    }

    #[test]
    fn readers_survive_mutated_golden_replies(text in mutated_golden()) {
        exercise(&text);
    }

    #[test]
    fn the_parse_agrees_with_serde_json_where_both_accept(text in json_text()) {
        let ours = js::parse(&text);
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        match (ours, theirs) {
            (Ok(a), Ok(b)) => prop_assert_eq!(to_serde(&a), normalize_numbers(b), "{}", text),
            (Err(e), Ok(_)) => prop_assert!(false, "we refuse what serde_json accepts: {} ({})", text, e),
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(40), ..ProptestConfig::default() })]

    #[test]
    fn the_loader_survives_arbitrary_files(
        files in prop::collection::vec(
            (prop::sample::select(vec!["log.jsonl", "a.json", "b.txt", "c.jsonl", "ledger.jsonl", "d.md"]),
             prop_oneof![
                 prop::collection::vec(any::<u8>(), 0..300),
                 "(\\{\"type\":\"agent_call\",\"ts\":\"t\",\"agent\":\"page.md\",\"output\":\"[{}a]{0,20}\"\\}\n){0,4}"
                     .prop_map(String::into_bytes),
                 "(\\{\"content\":\\[\\{\"type\":\"text\",\"text\":\"x\"\\}\\],\"role\":\"assistant\"\\}\n?){0,3}"
                     .prop_map(String::into_bytes),
             ]),
            1..5,
        )
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (i, (name, bytes)) in files.iter().enumerate() {
            let sub = dir.path().join(format!("d{i}"));
            std::fs::create_dir_all(&sub).expect("mkdir");
            std::fs::write(sub.join(name), bytes).expect("write");
        }
        let mut items = 0usize;
        bracewalk::runlog::load(&[PathBuf::from(dir.path())], &Default::default(), &mut |_| items += 1);
        // Every file says something (a reply, an event or a diagnostic; an empty file is a
        // diagnostic too), except a JSONL file whose only line is unterminated and not yet a
        // whole record: that is held back as still being written, as specified.
        let held_back = |(name, bytes): &(&str, Vec<u8>)| {
            name.ends_with(".jsonl") && !bytes.is_empty() && !bytes.contains(&b'\n')
        };
        if !files.iter().all(held_back) {
            prop_assert!(items >= 1, "no item from {} files", files.len());
        }
    }
}

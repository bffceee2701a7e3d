//! Fuzz targets on stable Rust (proptest), run briefly by `cargo test` and for as long as
//! wanted with `BRACEWALK_FUZZ_SCALE` (a multiplier on the case counts):
//!
//! ```text
//! BRACEWALK_FUZZ_SCALE=200 cargo test --release --test readers fuzz::
//! ```
//!
//! - every reader, the trace renderers and the oracle record on arbitrary text and on
//!   mutations of the golden corpus: no panic, and the cheap walk agrees with the recorded one;
//! - the JavaScript-exact JSON parse against serde_json on inputs both accept: same value;
//! - the run-log loader on arbitrary files: no panic, and every file yields a reply or a
//!   diagnostic;
//! - every what-if reader of `scan`: its cheap walk agrees with its recorded walk;
//! - the `explain` text: no raw control character reaches the terminal.
//!
//! The checks live in `support/fuzz_checks.rs`, shared with the coverage-guided libFuzzer
//! targets in `fuzz/` (nightly, `cargo fuzz`), which run the same checks for longer.
//!
//! A per-input time limit is not needed: the readers are linear (see `tests/readers/linear.rs`), so
//! an input that hung would show here as a test that does not finish.

use proptest::prelude::*;

use bracewalk::cli::record::Input;
use bracewalk::exact::value::JsString;

use crate::support::fuzz_checks as checks;
use checks::{exercise, exercise_variants, explain_renders, parse_agrees};

fn cases(base: u32) -> u32 {
    let scale: u32 = std::env::var("BRACEWALK_FUZZ_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    base.saturating_mul(scale)
}

const GOLDEN: &str = include_str!("../golden/replies.jsonl");

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

/// Replies nested deep (past the depth where the validator keeps the containers that fail
/// together as a group), failing or closing in each way a reading can, with candidates inside.
fn deep_text() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        (1usize..150).prop_map(|n| "{\"a\":".repeat(n)),
        (1usize..150).prop_map(|n| "}".repeat(n)),
        (1usize..40).prop_map(|n| "{\"a\":[".repeat(n)),
        (1usize..40).prop_map(|n| "]}".repeat(n)),
        prop::sample::select(vec!["\"x\"", "1", "\"s\\q\"", "x", "\"{\"", " ", ",", "]", "\"a\nb\"", "{}", "\"k\":"])
            .prop_map(str::to_owned),
    ];
    prop::collection::vec(part, 1..10).prop_map(|v| v.concat())
}

fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
        any::<i64>().prop_map(|i| i.to_string()),
        "[ -~é😀\\\\\"]{0,12}".prop_map(|s| {
            let mut out = String::new();
            bracewalk::exact::value::write_json_string(&mut out, &JsString::from(s.as_str()));
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
    fn readers_survive_deep_nesting(text in deep_text()) {
        exercise(&text);
    }

    #[test]
    fn explain_shows_no_raw_control_character(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        explain_renders(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn the_parse_agrees_with_serde_json_where_both_accept(text in json_text()) {
        if let Err(e) = parse_agrees(&text) {
            prop_assert!(false, "{}", e);
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
        let written: Vec<(String, String, Vec<u8>)> =
            files.iter().enumerate().map(|(i, (name, bytes))| (format!("d{i}"), (*name).to_owned(), bytes.clone())).collect();
        let items = checks::load_files(dir.path(), &written, &Default::default());
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

/// Every committed seed of the libFuzzer targets (`fuzz/seeds/<target>/`), minimized findings
/// (`regression-*`) among them, through the same target body on stable: the short, bounded
/// pass of the coverage-guided targets that `cargo test` (and so CI) runs.
#[test]
fn the_fuzz_seeds_pass_their_targets() {
    for (name, body) in checks::target::ALL {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(name);
        let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("seed dir").map(|e| e.expect("entry").path()).collect();
        paths.sort();
        assert!(!paths.is_empty(), "no seeds in {}", dir.display());
        for path in paths {
            let data = std::fs::read(&path).expect("seed");
            if std::panic::catch_unwind(|| body(&data)).is_err() {
                panic!("{name}: seed {} fails", path.display());
            }
        }
    }
}

/// Every what-if walk of the catalogue, recorded and not, on brace soup, mutated goldens, deep
/// replies and replies that are one object: the suite tries a third of the cases of its full sweep (see `sweep`).
fn what_if_text() -> impl Strategy<Value = String> {
    prop_oneof!["[{}\\[\\]\":,\\\\ a\n]{0,200}", mutated_golden(), deep_text(), one_object()]
}

/// A reply that is one object from first to last character (whitespace aside), whose
/// strings hold what the repair decides on: unescaped quotes before every kind of byte, a
/// value string's `"` followed by `:`, braces, escapes and raw newlines. The walks read it
/// first whole, by whichever reading reads it, or descend into it; the whole-reply attempt
/// reads it narrowly.
fn one_object() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a",
        " ",
        "\"",
        "\":",
        "\": ",
        "\", \"",
        "\"}",
        "\"]",
        "{",
        "}",
        "[",
        "\\\"",
        "\\n",
        "\n",
        "<p class=\"x\">",
        "{\"k\": \"v\"}",
        "\"edits\": [",
    ]);
    let string = prop::collection::vec(piece, 0..24).prop_map(|p| p.concat());
    (string.clone(), string, prop::sample::select(vec!["", " ", "\n"]))
        .prop_map(|(html, log, ws)| format!("{ws}{{\"html\": \"{html}\", \"log\": \"{log}\"}}{ws}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(100), ..ProptestConfig::default() })]

    #[test]
    fn what_if_readers_agree_with_their_recorded_walks(text in what_if_text()) {
        exercise_variants(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), ..ProptestConfig::default() })]

    #[test]
    #[ignore = "the full sweep: .ci/run runs it"]
    fn what_if_readers_agree_with_their_recorded_walks_in_full(text in what_if_text()) {
        exercise_variants(&text);
    }
}

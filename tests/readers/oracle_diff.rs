//! Differential fuzzing against the reference oracle, for a developer with node and the
//! oracle at hand (it is `#[ignore]`d, so `cargo test` never needs them, and `.ci/run` leaves
//! it out: the oracle is not part of the repository). Where either is missing it says so
//! and passes, or fails under CI, as `tests/support/tools.rs` has every such test do:
//!
//! ```text
//! BRACEWALK_ORACLE=../shared/oracle BRACEWALK_FUZZ_CASES=20000 \
//!     cargo test --release --test readers oracle_diff -- --ignored --nocapture
//! ```
//!
//! Replies are drawn from the tokens the readers treat specially (braces, quotes, colons,
//! backslashes, JavaScript whitespace and its near misses, surrogate escapes, envelope
//! fragments), run through the oracle in one node process, and compared record by record.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

use crate::support::tools::{self, NODE};

use bracewalk::cli::record::{self, Input, Offsets};
use bracewalk::exact::value::{JsString, write_json_string};

const TOKENS: &[&str] = &[
    "{",
    "}",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\"",
    ":",
    ",",
    "\\",
    "\n",
    "\r",
    "\t",
    " ",
    "a",
    "é",
    "😀",
    "\"html\"",
    "\"edits\"",
    "\"log\"",
    ": ",
    "\"x\"",
    "1",
    "-0",
    "1e400",
    "0.1",
    "true",
    "null",
    "\\u00e9",
    "\\ud800",
    "\\n",
    "\\'",
    "\u{FEFF}",
    "\u{A0}",
    "\u{2028}",
    "\u{85}",
    "\u{200B}",
    "```json\n",
    "```",
    "'",
    "/",
    "}}",
    "{\"html\": \"",
    "\", \"log\": \"ok\"}",
    "{\"a\":1}",
    "[{",
    "}]",
    "\\\"",
];

fn reply() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..48).prop_map(|t| t.concat())
}

fn oracle_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("BRACEWALK_ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/oracle"));
    dir.join("run.mjs").exists().then_some(dir)
}

#[test]
#[ignore = "needs node and the reference oracle; run by hand"]
fn random_replies_read_as_the_oracle_reads_them() {
    let part = "the differential fuzz against the oracle";
    let Some(dir) = oracle_dir() else {
        tools::missing("the reference oracle (BRACEWALK_ORACLE, by default ../shared/oracle)", part);
        return;
    };
    if !NODE.needed_by(part) {
        return;
    }
    let cases: usize = std::env::var("BRACEWALK_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(2_000);
    let mut runner = TestRunner::new(Config::default());
    let strategy = reply();
    let mut jsonl = String::new();
    let mut texts = Vec::new();
    for i in 0..cases {
        let text = strategy.new_tree(&mut runner).expect("generate").current();
        jsonl.push_str(&format!("{{\"id\":{i},\"text\":"));
        write_json_string(&mut jsonl, &JsString::from(text.as_str()));
        jsonl.push_str(",\"fields\":[\"edits\",\"html\"]}\n");
        texts.push(text);
    }
    let mut child = Command::new("node")
        .arg(dir.join("run.mjs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || stdin.write_all(jsonl.as_bytes()));
    let output = child.wait_with_output().expect("oracle output");
    feeder.join().expect("feeder").expect("write to oracle");
    assert!(output.status.success(), "oracle failed");
    let expected = String::from_utf8(output.stdout).expect("utf-8");

    let mut failures = 0;
    for (line, (i, text)) in expected.lines().zip(texts.iter().enumerate()) {
        let mut record = format!("{{\"id\":{i},\"text\":");
        write_json_string(&mut record, &JsString::from(text.as_str()));
        record.push_str(",\"fields\":[\"edits\",\"html\"]}");
        let input = Input::parse(&record).expect("input");
        let got = record::render(&input, Offsets::Utf16, None);
        if got != line {
            failures += 1;
            if failures <= 10 {
                eprintln!("MISMATCH {i}: text {:?}\n  oracle {line}\n  ours   {got}", text);
            }
        }
    }
    eprintln!("{cases} random replies, {failures} differ");
    assert_eq!(failures, 0);
}

/// The memoized walk (what `extract` runs) against the recorded, seed-literal walk (what
/// `explain` shows), for the seed and every what-if variant, on random replies. Needs
/// nothing outside the project, so it runs in the ordinary suite.
mod fast_path {
    use super::reply;
    use bracewalk::exact::walk::{self, Keep, OnFailure, Readings, WalkOptions, WholeReplyPolicy, run};
    use proptest::prelude::*;

    pub fn variants() -> Vec<WalkOptions> {
        let seed = WalkOptions::SEED;
        let mut v = vec![seed];
        for readings in [Readings::StrictOnly, Readings::StrictThenNarrow, Readings::StrictThenWideThenNarrow] {
            v.push(WalkOptions { readings, ..seed });
        }
        v.push(WalkOptions { on_failure: OnFailure::Resume, ..seed });
        v.push(WalkOptions { keep: Keep::First, ..seed });
        for (enabled, walk_closed_gate, self_contained_gate) in
            [(false, true, true), (true, false, true), (true, true, false)]
        {
            v.push(WalkOptions {
                whole_reply: WholeReplyPolicy { enabled, walk_closed_gate, self_contained_gate },
                ..seed
            });
        }
        v
    }

    pub fn same(text: &str) -> Result<(), String> {
        for opts in variants() {
            let fast = run(text, &opts, false);
            let slow = run(text, &opts, true);
            let fv = fast.value.as_ref().map(|v| v.to_json());
            let sv = slow.value.as_ref().map(|v| v.to_json());
            // What `extract` runs: the answer alone, with the whole-reply reading made only
            // where it can change the answer.
            if walk::answer(text, &opts).map(|v| v.to_json()) != fv {
                return Err(format!("{opts:?}: the answer alone differs on {text:?}"));
            }
            if (fv, fast.walk_end, fast.decided_by, fast.whole_reply.name())
                != (sv, slow.walk_end, slow.decided_by, slow.whole_reply.name())
            {
                return Err(format!("{opts:?} differs on {text:?}"));
            }
        }
        Ok(())
    }

    /// A repaired key that never closes (`"{"{"{`…) is read once, and the candidates whose
    /// first key lies inside it are passed by the walk without a reading: every one of them
    /// fails, and every other is still read (`{}`, `{ }`, a key after the string fails).
    #[test]
    fn candidates_inside_a_failing_key_are_passed_as_the_recorded_walk_reads_them() {
        let run = "\"{".repeat(40);
        for text in [
            run.clone(),
            format!("{run}{{}}{run}{{ }}{run}"),
            format!("{run}{{ \"a\": 1}}{run}"),
            format!("{run}\u{1}{{\"a\": 1}} {{\"b\": {run}"),
            format!("{run}\u{1}{run}\u{1}{{\"a\": 1}}"),
            format!("{{\"k\": \"v\"}} {run}{{\\\"{run}}}"),
            format!("{{\"a\":\"{}\"}}", "{\"a\":\"".repeat(20)),
            format!("x {{\"a\": \"{}\": 1 {run}", "\"{".repeat(20)),
        ] {
            if let Err(e) = same(&text) {
                panic!("{e}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn memoized_and_recorded_walks_agree(text in reply()) {
            prop_assert!(same(&text).is_ok(), "{}", same(&text).unwrap_err());
        }
    }
}

//! The readers against the reference oracle's recorded output.
//!
//! `tests/golden/replies.jsonl` holds the generated corpus and `tests/golden/expected.jsonl`
//! what the seed code printed for each record under node (`scripts/regen-goldens`). Every
//! key of every record must match exactly: the value, the decision, every candidate. The
//! `fence-first` reader is held to `original.jsonl` and `fences.original.jsonl`, what the
//! pipeline's original reader (`original.mjs`) returned.

use bracewalk::cli::record::{self, Input, KEYS, Offsets};
use bracewalk::exact::js;
use bracewalk::exact::value::Value;

use crate::sweep::Sweep;

const REPLIES: &str = include_str!("../golden/replies.jsonl");
const EXPECTED: &str = include_str!("../golden/expected.jsonl");

fn lines(s: &str) -> Vec<&str> {
    s.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// Which keys of two records differ.
fn differing_keys(ours: &str, theirs: &str) -> Vec<String> {
    let (Ok(a), Ok(b)) = (js::parse(ours), js::parse(theirs)) else {
        return vec!["(unparseable record)".to_owned()];
    };
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return vec!["(not an object)".to_owned()];
    };
    KEYS.iter()
        .filter(|k| a.get(k).map(Value::to_json) != b.get(k).map(Value::to_json))
        .map(|k| (*k).to_owned())
        .collect()
}

#[test]
fn every_reader_matches_the_oracle_on_every_golden_reply() {
    let replies = lines(REPLIES);
    let expected = lines(EXPECTED);
    assert_eq!(replies.len(), expected.len(), "one oracle line per reply");
    assert!(replies.len() >= 5_000, "the corpus has {} replies", replies.len());

    let mut failures = Vec::new();
    for (line, want) in replies.iter().zip(&expected) {
        let input = Input::parse(line).expect("golden inputs are well-formed");
        let got = record::render(&input, Offsets::Utf16, None);
        if got != *want {
            failures.push(format!("{}: {}", input.id.to_json(), differing_keys(&got, want).join(", ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} replies differ from the oracle; first ones:\n{}",
        failures.len(),
        replies.len(),
        failures.iter().take(25).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_corpus_exercises_every_decision_and_verdict() {
    let mut decided = std::collections::BTreeMap::new();
    let mut verdicts = std::collections::BTreeMap::new();
    for want in lines(EXPECTED) {
        let v = js::parse(want).unwrap();
        let o = v.as_object().unwrap();
        let name = |k: &str| o.get(k).and_then(|v| v.as_js_string()).map(|s| s.to_string()).unwrap();
        *decided.entry(name("decided_by")).or_insert(0) += 1;
        *verdicts.entry(name("whole_reply")).or_insert(0) += 1;
    }
    for d in ["whole-text", "last-wins", "whole-reply", "none"] {
        assert!(decided.get(d).copied().unwrap_or(0) >= 20, "decided_by {d}: {decided:?}");
    }
    for w in ["not-tried", "no-reading", "refused-walk-closed", "refused-not-self-contained", "taken"] {
        assert!(verdicts.get(w).copied().unwrap_or(0) >= 20, "whole_reply {w}: {verdicts:?}");
    }
}

#[test]
fn byte_offsets_are_the_utf16_offsets_mapped() {
    // The default output counts bytes; it must describe the same positions.
    for line in lines(REPLIES).iter().step_by(7) {
        let input = Input::parse(line).unwrap();
        let keys = ["walk_end".to_owned(), "candidates".to_owned()];
        let bytes = record::render(&input, Offsets::Bytes, Some(&keys));
        let utf16 = record::render(&input, Offsets::Utf16, Some(&keys));
        if input.text.is_ascii() {
            assert_eq!(bytes, utf16);
        } else {
            let b = js::parse(&bytes).unwrap();
            let u = js::parse(&utf16).unwrap();
            let count = |v: &Value| v.as_object().unwrap().get("candidates").unwrap().as_array().unwrap().len();
            assert_eq!(count(&b), count(&u));
        }
    }
}

#[test]
fn the_memoized_walk_answers_as_the_recorded_walk_on_every_golden_reply() {
    memoized_against_recorded(Sweep::Suite);
}

#[test]
#[ignore = "the full sweep: .ci/run runs it"]
fn the_memoized_walk_answers_as_the_recorded_walk_on_every_golden_reply_in_full() {
    memoized_against_recorded(Sweep::Full);
}

fn memoized_against_recorded(sweep: Sweep) {
    use bracewalk::exact::walk::{self, WalkOptions, run};
    let mut failures = Vec::new();
    for line in lines(REPLIES) {
        let input = Input::parse(line).unwrap();
        if !sweep.takes(&input.id) {
            continue;
        }
        let fast = run(&input.text, &WalkOptions::SEED, false);
        // What explain shows: bounded, but no golden reply comes near the bound.
        let slow = bracewalk::exact::walk::trace(&input.text);
        let same = fast.value.as_ref().map(Value::to_json) == slow.value.as_ref().map(Value::to_json)
            && fast.walk_end == slow.walk_end
            && fast.decided_by == slow.decided_by
            && fast.whole_reply.name() == slow.whole_reply.name()
            && slow.unrecorded.is_none()
            // `extract`'s answer-only walk.
            && walk::extract_json(&input.text).map(|v| v.to_json()) == slow.value.as_ref().map(Value::to_json);
        if !same {
            failures.push(input.id.to_json());
        }
    }
    assert!(failures.is_empty(), "{} differ: {:?}", failures.len(), &failures[..failures.len().min(20)]);
}

/// The fence-first reader (the pipeline's original `extractJson`) against what
/// `shared/oracle/original.mjs` printed: over the golden corpus, and over the fence regex's
/// edge cases (`tests/golden/fences.jsonl`).
#[test]
fn fence_first_matches_the_original_reader_on_every_golden_reply() {
    use bracewalk::readers::Catalogue;
    let catalogue = Catalogue::builtin();
    let fence_first = catalogue.find("fence-first").unwrap();
    for (replies, original, at_least) in [
        (REPLIES, include_str!("../golden/original.jsonl"), 5_000),
        (include_str!("../golden/fences.jsonl"), include_str!("../golden/fences.original.jsonl"), 1_000),
    ] {
        let (replies, original) = (lines(replies), lines(original));
        assert_eq!(replies.len(), original.len(), "one oracle line per reply");
        assert!(replies.len() >= at_least, "{} replies", replies.len());
        let mut failures = Vec::new();
        for (line, want) in replies.iter().zip(&original) {
            let input = Input::parse(line).unwrap();
            let want = js::parse(want).unwrap();
            let want = want.as_object().unwrap();
            assert_eq!(want.get("id").map(Value::to_json), Some(input.id.to_json()), "the same record");
            let want = want.get("original_extract_json").map(Value::to_json).unwrap();
            // What the caller holds: the oracle prints `null` for nothing.
            let got = catalogue.read(fence_first, &input.text).map_or_else(|| "null".to_owned(), |v| v.to_json());
            if got != want {
                failures.push(input.id.to_json());
            }
        }
        assert!(
            failures.is_empty(),
            "{} differ from the oracle: {:?}",
            failures.len(),
            &failures[..failures.len().min(20)]
        );
    }
}

/// A reader command's answer is compared with a built-in's as JSON text carries that one
/// (`JSON.parse(JSON.stringify(v))`), which the comparison skips where it would change
/// nothing: where no number is non-finite. On every answer of every built-in reader over the
/// corpus, the view is the answer exactly when that holds.
#[test]
fn json_text_carries_every_answer_as_it_is_but_non_finite_numbers() {
    use bracewalk::readers::{Catalogue, changes_in_json, json_view};
    let catalogue = Catalogue::builtin();
    let mut changed = 0;
    for line in lines(REPLIES) {
        let input = Input::parse(line).unwrap();
        for (id, d) in catalogue.iter() {
            let Some(v) = catalogue.read(id, &input.text) else { continue };
            let same = json_view(&v).as_ref() == Some(&v);
            assert_eq!(same, !changes_in_json(&v), "{} by {}: {}", input.id.to_json(), d.name, v.to_json());
            changed += usize::from(!same);
        }
    }
    assert!(changed > 0, "the corpus holds non-finite numbers (1e400)");
}

/// A cut-off array is counted by its brackets where the seed read JSON as it stands around
/// it, and entry by entry where not: the two counts agree on every golden reply, for the
/// corpus's `edits` and for a field most replies do not have.
#[test]
fn an_array_in_json_as_it_stands_is_counted_as_its_entries_are_read() {
    use bracewalk::exact::walk::{count_array_prefix, count_array_prefix_within};
    use bracewalk::readers::{Answers, Catalogue};
    let catalogue = Catalogue::builtin();
    let mut within = 0;
    for line in lines(REPLIES) {
        let input = Input::parse(line).unwrap();
        let (answers, _) = Answers::with_seed(&catalogue, &input.text);
        let Some(json) = answers.json_span() else { continue };
        for field in ["edits", "items"] {
            let read = count_array_prefix(&input.text, field);
            let counted = count_array_prefix_within(&input.text, field, json.clone());
            assert_eq!(counted, read, "{} ({field}): {:?}", input.id.to_json(), json);
            within += usize::from(read.is_some() && input.text[json.clone()].contains(&format!("\"{field}\"")));
        }
    }
    assert!(within > 50, "the corpus has arrays in JSON as it stands: {within}");
}

//! The record of candidates `extract --jsonl` prints (`walk::visits`, linear) against the
//! recorded walk it stands in for (`walk::run(.., true)`, the seed's own reading of every
//! candidate): the same candidates, offsets and outcomes, and the same decision, on every
//! golden reply, on every adversarial family at sizes the recorded walk finishes, and on
//! random replies (`tests/readers/fuzz.rs` runs the same check, `visits_agree`, on everything it
//! generates). `tests/readers/golden.rs` checks the record itself against the oracle's.

use crate::support::corpus;
use crate::support::fuzz_checks as checks;
use crate::sweep::Sweep;

use proptest::prelude::*;

use bracewalk::cli::record::{self, Input, Offsets};
use bracewalk::exact::js;
use bracewalk::exact::value::Value;
use bracewalk::exact::walk::{self, WalkOptions, run};

const REPLIES: &str = include_str!("../golden/replies.jsonl");

fn golden() -> Vec<Input<'static>> {
    REPLIES.lines().filter(|l| !l.trim().is_empty()).map(|l| Input::parse(l).unwrap()).collect()
}

#[test]
fn the_visits_are_the_recorded_walks_candidates_on_every_golden_reply() {
    visits_on_the_goldens(Sweep::Suite);
}

#[test]
#[ignore = "the full sweep: .ci/run runs it"]
fn the_visits_are_the_recorded_walks_candidates_on_every_golden_reply_in_full() {
    visits_on_the_goldens(Sweep::Full);
}

fn visits_on_the_goldens(sweep: Sweep) {
    let mut candidates = 0;
    for input in golden().into_iter().filter(|i| sweep.takes(&i.id)) {
        let slow = run(&input.text, &WalkOptions::SEED, true);
        checks::visits_agree(&input.text, &slow);
        candidates += slow.candidates.len();
    }
    // Not a vacuous sweep: the suite's part holds a third of the goldens' candidates.
    let least = match sweep {
        Sweep::Suite => 20_000,
        Sweep::Full => 60_000,
    };
    assert!(candidates > least, "the goldens read hold {candidates} candidates");
}

#[test]
fn the_visits_are_the_recorded_walks_candidates_on_every_adversarial_family() {
    visits_on_the_families(Sweep::Suite);
}

#[test]
#[ignore = "the full sweep: .ci/run runs it"]
fn the_visits_are_the_recorded_walks_candidates_on_every_adversarial_family_in_full() {
    visits_on_the_families(Sweep::Full);
}

fn visits_on_the_families(sweep: Sweep) {
    for family in corpus::ADVERSARIAL_FAMILIES {
        for &size in sweep.adversarial_sizes() {
            let text = corpus::adversarial(family, size);
            checks::visits_agree(&text, &run(&text, &WalkOptions::SEED, true));
        }
    }
}

#[test]
fn the_record_counts_utf16_units_or_bytes() {
    // Two bytes and one unit for `é`, four and two for the emoji.
    let text = "é {\"a\": 1} 😀 {\"b\": \"x\"}";
    let input = Input::new(Value::Number(1.0), text.to_owned(), vec!["edits".to_owned()]);
    let keys = ["walk_end".to_owned(), "candidates".to_owned()];
    let bytes = record::render(&input, Offsets::Bytes, Some(&keys));
    let utf16 = record::render(&input, Offsets::Utf16, Some(&keys));
    assert_eq!(
        bytes,
        r#"{"walk_end":27,"candidates":[{"start":3,"strict":{"end":11},"strict_ok":true,"repaired":{"end":11},"repaired_ok":true,"read_end":11},{"start":17,"strict":{"end":27},"strict_ok":true,"repaired":{"end":27},"repaired_ok":true,"read_end":27}]}"#
    );
    assert_eq!(
        utf16,
        r#"{"walk_end":24,"candidates":[{"start":2,"strict":{"end":10},"strict_ok":true,"repaired":{"end":10},"repaired_ok":true,"read_end":10},{"start":14,"strict":{"end":24},"strict_ok":true,"repaired":{"end":24},"repaired_ok":true,"read_end":24}]}"#
    );
}

#[test]
fn each_key_takes_the_walk_it_needs_and_prints_what_the_full_record_does() {
    // The answer alone, the decision, the candidates: three walks, one record.
    let keys = |ks: &[&str]| ks.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>();
    for input in golden().iter().step_by(11) {
        let full = record::render(input, Offsets::Utf16, None);
        let full = bracewalk::exact::js::parse(&full).unwrap();
        let full = full.as_object().unwrap();
        for k in ["extract_json", "decided_by", "whole_reply", "walk_end", "candidates"] {
            let one = record::render(input, Offsets::Utf16, Some(&keys(&["id", k])));
            let want = format!("{{\"id\":{},\"{k}\":{}}}", input.id.to_json(), full.get(k).unwrap().to_json());
            assert_eq!(one, want, "{k} of {}", input.id.to_json());
        }
    }
}

#[test]
fn the_answer_copied_from_where_the_line_wrote_it_is_the_answer_escaped_again() {
    // The golden replies, and the adversarial families written as lines: the same record
    // whether the answer's text is copied from the line or escaped again.
    let keys = ["id".to_owned(), "extract_json".to_owned()];
    let mut lines: Vec<String> = REPLIES.lines().filter(|l| !l.trim().is_empty()).map(str::to_owned).collect();
    for family in corpus::ADVERSARIAL_FAMILIES {
        for size in [4 << 10, 64 << 10] {
            let text = corpus::adversarial(family, size);
            lines.push(format!("{{\"id\":1,\"text\":{}}}", serde_json::to_string(&text).unwrap()));
        }
    }
    let mut marked = 0;
    for line in &lines {
        let input = Input::parse(line).unwrap();
        marked += usize::from(input.escaped.is_some());
        let copied = record::render(&input, Offsets::Utf16, Some(&keys));
        let alone = Input::new(input.id.clone(), input.text.clone(), input.fields.clone());
        assert!(copied == record::render(&alone, Offsets::Utf16, Some(&keys)), "{}", input.id.to_json());
    }
    assert!(marked > 2 * corpus::ADVERSARIAL_FAMILIES.len(), "{marked} texts marked where their lines wrote them");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn the_visits_are_the_recorded_walks_candidates_on_brace_soup(text in "[{}\\[\\]\":,\\\\ an1\n\t]{0,400}") {
        checks::visits_agree(&text, &run(&text, &WalkOptions::SEED, true));
    }

    #[test]
    fn the_visits_are_the_recorded_walks_candidates_on_json_made_ragged(
        text in "(\\{\"[a-z\"{]{0,4}\": ?(\"[a-z{}\\\\\"\n]{0,6}\"|[0-9]|\\[|\\{|\\}|\\]|,)){0,40}[ }\\]x]{0,3}"
    ) {
        checks::visits_agree(&text, &run(&text, &WalkOptions::SEED, true));
    }
}

#[test]
fn the_answer_printed_straight_from_the_reply_is_its_value_on_every_golden_reply() {
    let (mut reprinted, mut repaired, mut printed) = (0, 0, 0);
    for input in golden() {
        let value = walk::answer(&input.text, &WalkOptions::SEED);
        checks::answer_in_agrees(&input.text, value.as_ref());
        match walk::answer_in(&input.text, &WalkOptions::SEED) {
            Some(walk::Answer::Json(_)) => reprinted += 1,
            Some(walk::Answer::Repaired(span, rule)) => {
                repaired += 1;
                printed += usize::from(
                    js::print_repaired_at(&input.text, span.start, rule, input.escaped.as_ref(), &mut String::new())
                        .is_some(),
                );
            }
            _ => {}
        }
    }
    assert!(reprinted > 2_000, "{reprinted} answers left in the reply");
    // A repaired reading is printed from the reply, not built, nearly always.
    assert!(repaired > 100 && printed * 10 > repaired * 9, "{printed} of {repaired} repaired answers printed");
}

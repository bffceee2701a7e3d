//! The corpus scan counts what it says it counts: every number over `sample-logs/` against a
//! count made here by plain code over the same replies (the readers called directly, no
//! scanner helper), and each what-if on a constructed reply of the shape the seed's comments
//! say it gets wrong.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use bracewalk::analysis::{Config, Pair};
use bracewalk::exact::first::{FirstOutcome, first_wins};
use bracewalk::exact::js;
use bracewalk::exact::trace::Verdict;
use bracewalk::exact::value::Value;
use bracewalk::exact::walk::{self, Keep, OnFailure, Readings, WalkOptions, WholeReplyPolicy};
use bracewalk::logs::{self, Format, Item, LoadOptions, Meta, Reply};
use bracewalk::readers::Catalogue;
use bracewalk::scan::{Scan, Scanner, scan_paths};

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs");

// ---------------------------------------------------------------------------------------------
// The readers, written out here as the seed comments define them.

const SEED: WalkOptions = WalkOptions::SEED;
const GATES: WholeReplyPolicy = WholeReplyPolicy { enabled: true, walk_closed_gate: true, self_contained_gate: true };

fn walk_with(text: &str, opts: WalkOptions) -> Option<Value> {
    walk::run(text, &opts, false).value.filter(|v| !matches!(v, Value::Null))
}

/// What seed 001's caller parses: the candidate, or the raw reply.
fn first_wins_value(text: &str) -> Option<Value> {
    let parsed = match first_wins(text).outcome {
        FirstOutcome::Found(s) => js::parse(&text[s.start..s.end]).ok(),
        _ => js::parse(text).ok(),
    };
    parsed.filter(|v| !matches!(v, Value::Null))
}

/// Each what-if by its key, as this test reads it.
fn what_if(key: &str, text: &str) -> Option<Value> {
    let w = |whole_reply| WalkOptions { whole_reply, ..SEED };
    match key {
        "first-wins" => first_wins_value(text),
        "strict-only" => walk_with(
            text,
            WalkOptions {
                readings: Readings::StrictOnly,
                whole_reply: WholeReplyPolicy { enabled: false, ..GATES },
                ..SEED
            },
        ),
        "narrow-everywhere" => walk_with(text, WalkOptions { readings: Readings::StrictThenNarrow, ..SEED }),
        "narrow-fallback" => walk_with(text, WalkOptions { readings: Readings::StrictThenWideThenNarrow, ..SEED }),
        "resume-after-fail" => walk_with(text, WalkOptions { on_failure: OnFailure::Resume, ..SEED }),
        "first-readable" => walk_with(text, WalkOptions { keep: Keep::First, ..SEED }),
        "no-whole-reply" => walk_with(text, w(WholeReplyPolicy { enabled: false, ..GATES })),
        "no-walk-closed-gate" => walk_with(text, w(WholeReplyPolicy { walk_closed_gate: false, ..GATES })),
        "no-self-contained-gate" => walk_with(text, w(WholeReplyPolicy { self_contained_gate: false, ..GATES })),
        "fence-first" => bracewalk::exact::fence::fence_first(text).filter(|v| !matches!(v, Value::Null)),
        other => panic!("no what-if {other}"),
    }
}

const WHAT_IFS: [&str; 10] = [
    "first-wins",
    "strict-only",
    "narrow-everywhere",
    "narrow-fallback",
    "resume-after-fail",
    "first-readable",
    "no-whole-reply",
    "no-walk-closed-gate",
    "no-self-contained-gate",
    "fence-first",
];

// ---------------------------------------------------------------------------------------------
// sample-logs, counted by hand.

fn sample_paths() -> Vec<PathBuf> {
    vec![PathBuf::from(SAMPLES)]
}

struct Loaded {
    replies: Vec<Reply>,
    calls: usize,
    diagnostics: usize,
}

fn load_samples() -> Loaded {
    let mut l = Loaded { replies: Vec::new(), calls: 0, diagnostics: 0 };
    logs::load(&sample_paths(), &LoadOptions::default(), &mut |item| match item {
        Item::Reply(r) => l.replies.push(r),
        Item::Event(_) => l.calls += 1,
        Item::Diagnostic(_) => l.diagnostics += 1,
    });
    l
}

fn ids(scan: &Scan, v: &[usize]) -> Vec<String> {
    v.iter().map(|&i| scan.id(i).to_owned()).collect()
}

fn group_counts(scan_groups: &BTreeMap<String, bracewalk::scan::Group>) -> BTreeMap<String, (usize, u64)> {
    scan_groups.iter().map(|(k, g)| (k.clone(), (g.replies.len(), g.bytes))).collect()
}

#[test]
fn every_number_over_sample_logs_matches_a_count_made_here() {
    let loaded = load_samples();
    let scan = scan_paths(&sample_paths(), &LoadOptions::default(), Config::default(), &mut |_| {});
    let replies = &loaded.replies;
    assert!(replies.len() > 100, "sample-logs has {} replies", replies.len());

    // Totals.
    assert_eq!(scan.replies.len(), replies.len());
    assert_eq!(
        ids(&scan, &(0..scan.replies.len()).collect::<Vec<_>>()),
        replies.iter().map(|r| r.id.clone()).collect::<Vec<_>>()
    );
    assert_eq!(scan.bytes, replies.iter().map(|r| r.text.len() as u64).sum::<u64>());
    assert_eq!(scan.calls_without_reply.len(), loaded.calls);
    assert_eq!(scan.diagnostic_count(), loaded.diagnostics);

    // Groups.
    let mut agents: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    let mut rounds: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    let mut formats: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for r in replies {
        let add = |m: &mut BTreeMap<String, (usize, u64)>, k: String| {
            let e = m.entry(k).or_default();
            e.0 += 1;
            e.1 += r.text.len() as u64;
        };
        add(&mut agents, r.meta.agent.as_deref().unwrap_or("(none)").to_owned());
        add(&mut rounds, r.meta.round.as_deref().unwrap_or("(none)").to_owned());
        add(&mut formats, r.meta.format.name().into());
    }
    assert_eq!(group_counts(&scan.by_agent), agents);
    assert_eq!(group_counts(&scan.by_round), rounds);
    assert_eq!(group_counts(&scan.by_format), formats);

    // How the seed decided, and the whole-reply verdicts.
    let mut decided: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut verdicts: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut by_agent_decided: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for r in replies {
        let t = walk::trace(&r.text);
        decided.entry(t.decided_by.name()).or_default().push(r.id.clone());
        verdicts.entry(t.whole_reply.name()).or_default().push(r.id.clone());
        *by_agent_decided
            .entry((r.meta.agent.as_deref().unwrap_or("(none)").to_owned(), t.decided_by.name()))
            .or_default() += 1;
    }
    for d in bracewalk::exact::DecidedBy::ALL {
        assert_eq!(ids(&scan, scan.decided(d)), decided.get(d.name()).cloned().unwrap_or_default(), "{}", d.name());
    }
    for (agent, g) in &scan.by_agent {
        for (i, d) in bracewalk::exact::DecidedBy::ALL.iter().enumerate() {
            assert_eq!(g.decided_by[i], by_agent_decided.get(&(agent.clone(), d.name())).copied().unwrap_or(0));
        }
    }
    for v in Verdict::ALL {
        let name = v.name();
        assert_eq!(ids(&scan, scan.verdict(v)), verdicts.get(name).cloned().unwrap_or_default(), "{name}");
    }
    // The sample logs hold every decision and every verdict (the README says where).
    assert_eq!(decided.len(), 4, "{decided:?}");
    assert_eq!(verdicts.len(), 5, "{verdicts:?}");

    // Repair.
    let (mut unreadable, mut rescued, mut changed) = (Vec::new(), Vec::new(), Vec::new());
    for r in replies {
        let strict = what_if("strict-only", &r.text);
        let seed = walk_with(&r.text, SEED);
        match (&strict, &seed) {
            (None, Some(_)) => {
                unreadable.push(r.id.clone());
                rescued.push(r.id.clone());
            }
            (None, None) => unreadable.push(r.id.clone()),
            (Some(a), b) if Some(a) != b.as_ref() => changed.push(r.id.clone()),
            _ => {}
        }
    }
    assert_eq!(ids(&scan, &scan.repair.strict_unreadable), unreadable);
    assert_eq!(ids(&scan, &scan.repair.rescued), rescued);
    assert_eq!(ids(&scan, &scan.repair.changed), changed);
    assert!(!rescued.is_empty() && !changed.is_empty());

    // Truncation: `"edits": [` arrays that never close, and the entries that arrived.
    let mut cut = Vec::new();
    for r in replies {
        if let Some(p) = walk::read_array_prefix(&r.text, "edits").filter(|p| !p.closed) {
            cut.push((r.id.clone(), p.entries.len()));
        }
    }
    let t = &scan.truncation[0];
    assert_eq!(t.field, "edits");
    assert_eq!(t.replies.iter().map(|&(i, n)| (scan.id(i).to_owned(), n)).collect::<Vec<_>>(), cut);
    assert_eq!(t.entries, cut.iter().map(|(_, n)| n).sum::<usize>());
    assert!(t.entries > 0);

    // Every comparison: which replies differ from the seed.
    assert_eq!(scan.comparisons.len(), WHAT_IFS.len());
    for key in WHAT_IFS {
        let expected: Vec<String> = replies
            .iter()
            .filter(|r| what_if(key, &r.text) != walk_with(&r.text, SEED))
            .map(|r| r.id.clone())
            .collect();
        let c = scan.comparison(key).unwrap();
        assert_eq!(c.differ.iter().map(|d| scan.id(d.reply).to_owned()).collect::<Vec<_>>(), expected, "{key}");
        assert!(c.differ.iter().all(|d| !d.account.is_empty() && !d.account.contains('\n')), "{key}");
    }
}

#[test]
fn a_scan_is_the_same_in_parallel_one_by_one_and_twice() {
    let loaded = load_samples();
    let mut a = scan_paths(&sample_paths(), &LoadOptions::default(), Config::default(), &mut |_| {});
    let mut b = scan_paths(&sample_paths(), &LoadOptions::default(), Config::default(), &mut |_| {});
    let mut one = Scanner::new(Config::default());
    for r in &loaded.replies {
        one.add_reply(r);
    }
    let mut batch = Scanner::new(Config::default());
    for chunk in loaded.replies.chunks(7) {
        batch.add_replies(chunk);
    }
    a.elapsed = None;
    b.elapsed = None;
    assert_eq!(a, b);
    let (one, batch) = (one.finish(), batch.finish());
    assert_eq!(one, batch);
    // The file scan also counts calls and diagnostics; the replies' numbers are the same.
    assert_eq!(one.replies, a.replies);
    assert_eq!(one.decided_by, a.decided_by);
    assert_eq!(one.comparisons, a.comparisons);
    assert_eq!(one.by_agent, a.by_agent);
}

#[test]
fn progress_reaches_the_total() {
    let mut last = None;
    let scan = scan_paths(&sample_paths(), &LoadOptions::default(), Config::default(), &mut |p| last = Some(*p));
    let p = last.unwrap();
    assert_eq!(p.bytes_done, p.bytes_total);
    assert_eq!(p.replies, scan.replies.len());
    assert!(scan.elapsed.is_some());
}

// ---------------------------------------------------------------------------------------------
// Constructed replies: each what-if on the shape the seed comments say it gets wrong.

fn reply(id: &str, text: &str) -> Reply {
    Reply {
        id: id.into(),
        source: PathBuf::from(id),
        line: None,
        offset: 0,
        text: text.into(),
        meta: Meta::new(Format::Text),
    }
}

/// Scans the replies with every comparison; for each what-if, the ids it differs on with
/// their accounts.
fn differences(replies: &[Reply]) -> BTreeMap<String, Vec<(String, String)>> {
    let mut s = Scanner::new(Config::default());
    s.add_replies(replies);
    let scan = s.finish();
    scan.comparisons
        .iter()
        .map(|c| {
            (
                scan.config.key(&c.pair),
                c.differ.iter().map(|d| (scan.id(d.reply).to_owned(), d.account.to_string())).collect(),
            )
        })
        .collect()
}

fn differing(d: &BTreeMap<String, Vec<(String, String)>>, id: &str) -> BTreeSet<String> {
    d.iter().filter(|(_, v)| v.iter().any(|(i, _)| i == id)).map(|(k, _)| k.clone()).collect()
}

fn account<'a>(d: &'a BTreeMap<String, Vec<(String, String)>>, key: &str, id: &str) -> &'a str {
    d[key]
        .iter()
        .find(|(i, _)| i == id)
        .map(|(_, a)| a.as_str())
        .unwrap_or_else(|| panic!("{key} does not differ on {id}"))
}

fn five_issues() -> String {
    let issues: Vec<String> =
        (1..=5).map(|i| format!(r#"{{"row": {i}, "text": "row {i} is missing its total"}}"#)).collect();
    format!(r#"{{"issues": [{}]}}"#, issues.join(", "))
}

/// Seed 000: "each is a Reader verdict whose prose quotes `{"html":"…`, `"log": "…"`,
/// `"suggested_agent": null}` ahead of the answer, and under the narrow rule that value-string
/// never closes, so the prose candidate swallows the real envelope behind it and the walk
/// comes back with the LAST issue of the verdict in place of all of them".
#[test]
fn the_narrow_rule_in_the_walk_loses_the_fourteen_replies_verdicts() {
    let text = format!(
        "The page agent answers {{\"html\":\"… with \"log\": \"…\" and \"suggested_agent\": null}} as its \
         contract says, and this page does not.\n\n{}",
        five_issues()
    );
    let seed = walk_with(&text, SEED).unwrap();
    assert_eq!(seed.as_object().unwrap().get("issues").unwrap().as_array().unwrap().len(), 5);
    let narrow = what_if("narrow-everywhere", &text).unwrap();
    assert_eq!(narrow.to_json(), r#"{"row":5,"text":"row 5 is missing its total"}"#, "the last issue alone");
    // The fallback is the version that looked safe: the same reply, the same loss.
    assert_eq!(what_if("narrow-fallback", &text), Some(narrow));

    let d = differences(&[reply("reader-verdict", &text), reply("plain", &five_issues())]);
    assert_eq!(account(&d, "narrow-everywhere", "reader-verdict"), "{row, text} → {issues}");
    assert_eq!(account(&d, "narrow-fallback", "reader-verdict"), "{row, text} → {issues}");
    assert!(differing(&d, "plain").is_empty(), "{d:?}");
    // Descending is the seed's own rule; the whole-reply attempt is not tried on prose.
    assert!(!differing(&d, "reader-verdict").contains("no-whole-reply"));
}

/// Seed 000: "Resuming after it returns null on fifteen replies …: a `{"html":"` quoted in the
/// Reader's own prose balances against a brace beyond the answer and hides the whole reply."
#[test]
fn resuming_after_a_failed_candidate_hides_the_reply() {
    let text = format!("Each page comes back as {{\"html\":\" and the rest of it.\n{}\nThat is all.", five_issues());
    assert!(walk_with(&text, SEED).is_some());
    assert_eq!(what_if("resume-after-fail", &text), None);
    let d = differences(&[reply("hidden", &text)]);
    assert_eq!(account(&d, "resume-after-fail", "hidden"), "null → value {issues}");
    // Resuming is the only rule that loses it whole (the narrow rule loses it its own way).
    assert!(differing(&d, "hidden").iter().all(|k| !k.starts_with("no-") && k != "first-wins"), "{d:?}");
}

/// Seed 000, issue #170: the scratch template before the answer binds a reader that takes
/// the first candidate; `html` was 3 characters where the page is 7,121.
#[test]
fn the_first_candidate_is_the_scratch_template() {
    let template = "{ \"html\": \"...\", \"log\": \"...\", \"suggested_agent\": null }";
    let table = format!("<table>{}</table>", "x".repeat(7121 - 15));
    let text = format!(
        "I'll carefully re-read the image for all the flagged values. The envelope is\n\n{template}\n\n\
         and here is the page:\n\n{{\"html\": \"{table}\", \"log\": \"Page 17. Table 3 continues beyond this page\", \
         \"suggested_agent\": null}}"
    );
    let d = differences(&[reply("correction", &text)]);
    let expected = "html: 3 chars → 7,121 chars; log: 3 chars → 43 chars";
    assert_eq!(account(&d, "first-wins", "correction"), expected);
    assert_eq!(account(&d, "first-readable", "correction"), expected);
    // The pipeline's original reader, with no fence to prefer, takes the first `{` too.
    assert_eq!(account(&d, "fence-first", "correction"), expected);
    let binders = ["first-wins", "first-readable", "fence-first"].map(str::to_owned);
    assert_eq!(differing(&d, "correction"), BTreeSet::from(binders));
}

/// Seed 000, issue #339: a verdict whose `notes` quote the contract back, with no string
/// values in the quotation. Without the whole-reply attempt the quotation is the answer: a
/// pass on a page the verifier rejected.
#[test]
fn without_the_whole_reply_attempt_a_quoted_contract_reads_as_a_pass() {
    let text = r#"{"faithful": false, "problems": [{"row": 3}], "notes": "I first read it as { "faithful": true, "problems": [] }; it is not."}"#;
    let d = differences(&[reply("verdict-339", text)]);
    assert_eq!(
        account(&d, "no-whole-reply", "verdict-339"),
        "faithful: true → false; notes: new, 67 chars; problems: 0 items → 1 item"
    );
    assert!(differing(&d, "verdict-339").contains("strict-only"));
    assert!(!differing(&d, "verdict-339").contains("no-walk-closed-gate"));
    assert!(!differing(&d, "verdict-339").contains("no-self-contained-gate"));
}

/// Seed 000: "one `}` in the restarted page content rebalances the abandoned string and the
/// envelope reaches the page again" — what the walk-closed gate is for.
#[test]
fn without_the_walk_closed_gate_a_restart_with_a_brace_glues_the_draft_on() {
    let text = "{\"html\": \"<p>draft continues\n{\"html\": \"<p>use the } token</p>\", \"log\": \"ok\"}";
    let seed = walk_with(text, SEED).unwrap();
    assert_eq!(seed.to_json(), r#"{"html":"<p>use the } token</p>","log":"ok"}"#);
    let d = differences(&[reply("restart-brace", text)]);
    assert_eq!(account(&d, "no-walk-closed-gate", "restart-brace"), "html: 51 chars → 22 chars");
    assert!(!differing(&d, "restart-brace").contains("no-self-contained-gate"));
}

/// Seed 000: "a restart whose own object does not parse leaves the walk on a fragment mid-reply,
/// which only the brace test refuses".
#[test]
fn without_the_self_contained_gate_an_abandoned_draft_is_the_page() {
    let text = std::fs::read_to_string(format!("{SAMPLES}/formats/replies/restart-unreadable.txt")).unwrap();
    let text = text.trim_end();
    // The walk stops on the restart's one readable fragment.
    assert_eq!(walk_with(text, SEED).unwrap().to_json(), r#"{"name":"table-agent","reason":"merged header cells"}"#);
    let d = differences(&[reply("restart-unreadable", text)]);
    assert_eq!(
        account(&d, "no-self-contained-gate", "restart-unreadable"),
        "{html, log, suggested_agent} → {name, reason}"
    );
    assert!(!differing(&d, "restart-unreadable").contains("no-walk-closed-gate"));
}

#[test]
fn a_reply_that_is_its_json_differs_nowhere_and_null_is_nothing_read() {
    let d = differences(&[reply("plain", r#"{"html": "<p>x</p>", "log": "ok"}"#), reply("null", "null")]);
    assert!(differing(&d, "plain").is_empty(), "{d:?}");
    assert!(differing(&d, "null").is_empty(), "{d:?}");
}

#[test]
fn one_pair_or_any_two_readers() {
    let text = format!("Each page comes back as {{\"html\":\" and the rest of it.\n{}", five_issues());
    let c = Catalogue::builtin();
    let config = Config {
        pairs: vec![
            Pair::parse(&c, "resume-after-fail").unwrap(),
            Pair::parse(&c, "last-wins,resume-after-fail").unwrap(),
        ],
        fields: vec![],
        ..Config::default()
    };
    let mut s = Scanner::new(config);
    s.add_reply(&reply("hidden", &text));
    let scan = s.finish();
    assert_eq!(scan.comparisons.len(), 2);
    assert_eq!(&*scan.comparison("resume-after-fail").unwrap().differ[0].account, "null → value {issues}");
    assert_eq!(&*scan.comparison("last-wins,resume-after-fail").unwrap().differ[0].account, "value {issues} → null");
    assert!(scan.truncation.is_empty());
}

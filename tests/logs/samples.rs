//! `sample-logs/` reads the way its README says: every reply found with its agent, page and
//! round, and each reply shape from the seed comments decided as the comments describe.

use bracewalk::exact::trace::{DecidedBy, Fate, Trace};
use bracewalk::exact::value::Value;
use bracewalk::exact::walk;
use bracewalk::logs::{self, Diagnostic, Event, EventKind, Item, LoadOptions, Reply, StopReason};

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs");
const BUDGET_4: &str = "round-4/3f1c9a0e7b2d4c58/log.jsonl";
const MEASURES_4: &str = "round-4/8a0d54e1c3b97f26/log.jsonl";
const BUDGET_5: &str = "round-5/3f1c9a0e7b2d4c58/log.jsonl";
const ANNUAL_5: &str = "round-5/5be7f03a21c6d9e4/log.jsonl";

fn load(paths: &[&str]) -> (Vec<Reply>, Vec<Event>, Vec<Diagnostic>) {
    let paths: Vec<_> = paths.iter().map(|p| std::path::Path::new(SAMPLES).join(p)).collect();
    let (mut r, mut e, mut d) = (Vec::new(), Vec::new(), Vec::new());
    logs::load(&paths, &LoadOptions::default(), &mut |item| match item {
        Item::Reply(x) => r.push(x),
        Item::Event(x) => e.push(x),
        Item::Diagnostic(x) => d.push(x),
    });
    (r, e, d)
}

fn reply(file: &str, line: usize) -> Reply {
    logs::resolve(&format!("{SAMPLES}/{file}:{line}"), &LoadOptions::default()).unwrap().reply
}

fn traced(file: &str, line: usize) -> (Reply, Trace) {
    let r = reply(file, line);
    let t = walk::trace(&r.text);
    (r, t)
}

fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.as_object().and_then(|o| o.get(key))
}

fn chars(v: &Value, key: &str) -> usize {
    field(v, key).and_then(Value::as_js_string).map_or(0, |s| s.char_len())
}

fn fates(t: &Trace) -> Vec<Fate> {
    (0..t.candidates.len()).filter_map(|i| t.fate(i)).collect()
}

fn is_pass(v: &Value) -> bool {
    field(v, "faithful").map(Value::to_json).as_deref() == Some("true")
}

#[test]
fn the_campaign_lists_every_reply_with_its_agent_page_and_round() {
    let (replies, events, diags) = load(&["round-4", "round-5"]);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!((replies.len(), events.len()), (128, 2));
    for r in &replies {
        let m = &r.meta;
        let agent = m.agent.as_deref().unwrap_or_else(|| panic!("{} has no agent", r.id));
        assert!(m.round.as_deref().is_some_and(|x| x.starts_with("round-")), "{}", r.id);
        assert!(m.document_outcome.is_some() && m.run_outcome.is_some() && m.model.is_some(), "{}", r.id);
        match agent {
            "page" | "feedback" => assert!(m.page.is_some() && m.phase.as_deref() == Some("extraction"), "{}", r.id),
            "reader" | "copy_editor" => {
                assert!(m.iteration.is_some() && m.phase.as_deref() == Some("review"), "{}", r.id)
            }
            other => panic!("unexpected agent {other}"),
        }
    }
    let truncated: Vec<_> = events.iter().filter(|e| e.kind == EventKind::Truncated).collect();
    assert_eq!(truncated.len(), 1);
    assert_eq!((truncated[0].line, truncated[0].meta.iteration), (Some(151), Some(1)));
    let failed = replies.iter().find(|r| r.meta.document_outcome.as_deref() == Some("failed")).unwrap();
    assert!(failed.meta.run_outcome.as_deref().unwrap().starts_with("failed: page 4: bedrock: the model stopped"));
}

#[test]
fn the_long_correction_keeps_its_seventh_envelope_not_the_template() {
    let (r, t) = traced(BUDGET_4, 135);
    assert_eq!((r.meta.agent.as_deref(), r.meta.page, r.text.len()), (Some("page"), Some(17), 62_017));
    assert!(r.text.starts_with("I'll carefully re-read the image for all the flagged values"));
    let starts: Vec<_> = t.candidates.iter().map(|c| c.start).collect();
    assert_eq!((starts.len(), starts[0], starts[6]), (7, 33_748, 53_207));
    let template = &r.text[33_748..33_748 + 62];
    assert_eq!(template, "{\n  \"html\": \"...\",\n  \"log\": \"...\",\n  \"suggested_agent\": null\n}");
    assert_eq!(fates(&t), [vec![Fate::Superseded; 6], vec![Fate::Kept]].concat());
    let v = t.value.as_ref().unwrap();
    assert_eq!(chars(v, "html"), 7_121);
    assert_eq!(field(v, "log").unwrap().to_json(), "\"Page 17. Table 3 continues beyond this page\"");
}

#[test]
fn four_fenced_envelopes_keep_the_fourth() {
    let (_, t) = traced(BUDGET_4, 57);
    assert_eq!(fates(&t), [Fate::Superseded, Fate::Superseded, Fate::Superseded, Fate::Kept]);
    let first = t.candidates[0].strict.value().unwrap();
    assert_eq!(chars(first, "html"), 2_253);
    assert_eq!(chars(t.value.as_ref().unwrap(), "html"), 13_182);
    let logs: Vec<_> =
        t.candidates[1..3].iter().map(|c| field(c.strict.value().unwrap(), "log").unwrap().to_json()).collect();
    assert_eq!(
        logs,
        ["\"RESTART\"", "\"Intermediate attempt abandoned — column count in the Southeast row does not match\""]
    );
}

#[test]
fn a_verdict_whose_first_brace_is_a_quoted_decoy_reads_the_verdict() {
    for (file, line) in [(BUDGET_4, 18), (BUDGET_4, 49), (BUDGET_4, 91), (MEASURES_4, 46)] {
        let (r, t) = traced(file, line);
        assert!(r.text.contains("The contract is {html, log, suggested_agent}"));
        assert_eq!(fates(&t), [Fate::Unreadable, Fate::Kept], "{file}:{line}");
        assert!(field(t.value.as_ref().unwrap(), "faithful").is_some());
    }
}

#[test]
fn the_339_verdict_is_read_whole_and_rejects_the_page() {
    let (r, t) = traced(MEASURES_4, 23);
    assert_eq!((r.meta.agent.as_deref(), r.meta.page_verified), (Some("feedback"), Some(false)));
    assert_eq!((t.decided_by, t.whole_reply.name()), (DecidedBy::WholeReply, "taken"));
    let v = t.value.as_ref().unwrap();
    assert!(!is_pass(v));
    assert_eq!(field(v, "problems").and_then(Value::as_array).map(<[Value]>::len), Some(1));
}

#[test]
fn the_residual_shapes_still_read_as_the_quoted_pass() {
    // Fenced, after preamble, `"faithful",`, a decoy with a string value: each verdict
    // rejected its page, and each reads as the decoy's pass.
    for (line, whole_reply) in [(17, "not-tried"), (51, "not-tried"), (133, "no-reading"), (114, "no-reading")] {
        let (r, t) = traced(BUDGET_5, line);
        assert_eq!(r.meta.page_verified, Some(false), "line {line}");
        assert_eq!((t.decided_by, t.whole_reply.name()), (DecidedBy::LastWins, whole_reply), "line {line}");
        assert!(is_pass(t.value.as_ref().unwrap()), "line {line}");
    }
}

#[test]
fn a_brace_where_a_bracket_belongs_reads_as_nothing_to_say() {
    let (_, t) = traced(BUDGET_5, 100);
    let v = t.value.as_ref().unwrap();
    assert!(field(v, "faithful").is_none() && field(v, "problems").is_none() && field(v, "issue").is_some());
}

#[test]
fn the_page_that_dropped_its_inline_handler_keeps_the_shorter_correction() {
    let (r, t) = traced(MEASURES_4, 27);
    assert_eq!(fates(&t), [Fate::Superseded, Fate::Kept]);
    let spans: Vec<usize> = t.candidates.iter().map(|c| c.strict.span().unwrap().len()).collect();
    assert_eq!(spans[0] - spans[1], 85);
    assert!(r.text[t.candidates[0].start..].contains("onclick"));
    assert!(!t.value.as_ref().unwrap().to_json().contains("onclick"));
}

#[test]
fn a_printed_backslash_and_an_unescaped_blockquote_are_read_by_the_repair() {
    for line in [13, 6] {
        let (_, t) = traced(MEASURES_4, line);
        let c = &t.candidates[0];
        assert!(!c.strict.parses() && c.wide.parses(), "line {line}");
        assert_eq!(t.decided_by, DecidedBy::LastWins);
    }
    let (_, t) = traced(MEASURES_4, 13);
    assert!(t.value.as_ref().unwrap().to_json().contains(r"visible as '\\' before 'MEASURES'"));
}

#[test]
fn restarts_mid_string_are_refused_by_a_gate() {
    for line in [9, 27] {
        let (_, t) = traced(ANNUAL_5, line);
        assert_eq!((t.decided_by, t.whole_reply.name()), (DecidedBy::LastWins, "refused-walk-closed"), "line {line}");
        let html = field(t.value.as_ref().unwrap(), "html").unwrap().to_json();
        assert!(!html.contains("{\\\"html\\\""), "the abandoned draft is not delivered: {html}");
    }
    let r =
        logs::resolve(&format!("{SAMPLES}/formats/replies/restart-unreadable.txt"), &LoadOptions::default()).unwrap();
    assert_eq!(walk::trace(&r.reply.text).whole_reply.name(), "refused-not-self-contained");
}

#[test]
fn bare_html_has_nothing_to_read() {
    let (r, t) = traced(ANNUAL_5, 33);
    assert!(!r.text.contains('{') && !r.text.contains('}'));
    assert_eq!((t.decided_by, r.meta.tokens.output, r.meta.stop), (DecidedBy::None, Some(3189), StopReason::Finished));
}

#[test]
fn a_reader_verdict_quoting_an_envelope_keeps_all_five_issues() {
    let (r, t) = traced(ANNUAL_5, 41);
    assert!(r.text.contains("{\"html\":\""));
    assert_eq!(fates(&t), [Fate::Unreadable, Fate::Kept]);
    assert_eq!(field(t.value.as_ref().unwrap(), "issues").and_then(Value::as_array).map(<[Value]>::len), Some(5));
}

#[test]
fn the_other_formats_load_without_complaint_except_the_custom_one() {
    let first = ["formats/anthropic", "formats/bedrock", "formats/openai", "formats/replies", "formats/custom"];
    let (replies, events, diags) = load(&first);
    assert_eq!((replies.len(), events.len()), (19, 1));
    assert_eq!(diags.len(), 2);
    assert!(
        diags
            .iter()
            .all(|d| d.source.ends_with("formats/custom/eval-export.jsonl") && d.problem.kind() == "unknown-shape")
    );
    let truncated: Vec<_> =
        replies.iter().filter(|r| r.meta.stop == StopReason::Truncated).map(|r| r.id.as_str()).collect();
    assert_eq!(truncated, ["msg_05EditsCut", "chatcmpl-CutAtLength", "resp_Incomplete"]);
    let cut = replies.iter().find(|r| r.id == "msg_05EditsCut").unwrap();
    let prefix = walk::read_array_prefix(&cut.text, "edits").unwrap();
    assert_eq!((prefix.entries.len(), prefix.closed), (3, false));
}

#[test]
fn the_bad_directory_gives_one_diagnostic_per_problem_and_keeps_the_rest() {
    let (replies, _, diags) = load(&["bad"]);
    let kinds: Vec<_> = diags
        .iter()
        .map(|d| (d.source.strip_prefix(SAMPLES).unwrap().to_string_lossy().into_owned(), d.line, d.problem.kind()))
        .collect();
    let want = [
        ("bad/broken-lines.jsonl", Some(2), "malformed-json"),
        ("bad/broken-lines.jsonl", Some(3), "unknown-shape"),
        ("bad/broken-lines.jsonl", Some(5), "invalid-utf8"),
        ("bad/dangling.txt", None, "broken-symlink"),
        ("bad/empty.txt", None, "empty"),
        ("bad/invalid-utf8.txt", None, "invalid-utf8"),
        ("bad/loop", None, "symlink-loop"),
        ("bad/page-017.png", None, "binary"),
        ("bad/unknown-shape.json", None, "unknown-shape"),
        ("bad/up", None, "symlink-loop"),
    ];
    let want: Vec<_> = want.iter().map(|(p, l, k)| (p.to_string(), *l, *k)).collect();
    assert_eq!(kinds, want);
    let ids: Vec<_> = replies.iter().map(|r| r.id.rsplit('/').next().unwrap().to_owned()).collect();
    assert_eq!(ids, ["msg_bad_1", "msg_bad_4", "msg_bad_5", "msg_bad_6", "good-reply.txt", "invalid-utf8.txt"]);
}

#[test]
fn the_formats_added_later_read_as_the_readme_says() {
    let dirs = ["gemini", "streams", "local", "cohere", "no-text", "inspect", "otel", "promptfoo", "records"];
    let mut counts = Vec::new();
    for dir in dirs {
        let (replies, events, diags) = load(&[&format!("formats/{dir}")]);
        assert!(diags.is_empty(), "{dir}: {diags:?}");
        let cut = replies.iter().filter(|r| r.meta.stop == StopReason::Truncated).count();
        counts.push((dir, replies.len(), cut, events.iter().map(|e| e.kind.name()).collect::<Vec<_>>()));
    }
    assert_eq!(
        counts,
        [
            ("gemini", 6, 2, vec!["failed-call", "blocked", "failed-call"]),
            ("streams", 6, 1, vec![]),
            ("local", 4, 2, vec![]),
            ("cohere", 1, 0, vec!["tool-call"]),
            ("no-text", 0, 0, vec!["tool-call", "refusal", "tool-call"]),
            ("inspect", 9, 3, vec![]),
            ("otel", 2, 1, vec![]),
            ("promptfoo", 2, 1, vec!["failed-call"]),
            ("records", 3, 0, vec![]),
        ]
    );
    // The same replies, whichever way they were saved.
    let (streamed, _, _) = load(&["formats/streams/anthropic-messages.sse"]);
    assert_eq!(
        streamed[0].text,
        std::fs::read_to_string(format!("{SAMPLES}/formats/replies/restart-with-brace.txt")).unwrap()
    );
    let (inspect, _, _) = load(&["formats/inspect"]);
    let texts = |ext: &str| -> Vec<String> {
        inspect.iter().filter(|r| r.source.extension().is_some_and(|e| e == ext)).map(|r| r.text.clone()).collect()
    };
    assert_eq!(texts("json"), texts("eval")[..3]);
    assert!(inspect.iter().all(|r| r.meta.round.as_deref() == Some("page_transcription")));
}

const CAPITAL_5: &str = "round-5/9d42b7e0c5a13f68/log.jsonl";

/// `scan --json --list sample-logs`: the ids behind each risk flag, and what raised each.
fn flagged() -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bracewalk"))
        .args(["scan", "--json", "--list", SAMPLES])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["ids"]["flags"].clone()
}

fn ids(v: &serde_json::Value) -> Vec<String> {
    let mut ids: Vec<String> = v.as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap().to_owned()).collect();
    ids.sort();
    ids
}

fn at(file: &str, line: usize) -> String {
    format!("{SAMPLES}/{file}:{line}")
}

#[test]
fn the_risk_flags_name_exactly_the_samples_of_their_shapes() {
    let flags = flagged();
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    let expected = [
        (
            "inside-unreadable",
            sorted(
                [
                    // The residuals, and the `}`-for-`]` verdict's lone problem.
                    at(BUDGET_5, 17),
                    at(BUDGET_5, 51),
                    at(BUDGET_5, 100),
                    at(BUDGET_5, 114),
                    at(BUDGET_5, 133),
                    // The page that stopped after its `suggested_agent`.
                    at(CAPITAL_5, 30),
                    format!("{SAMPLES}/formats/replies/restart-unreadable.txt"),
                    // The same shapes in the other formats: the quoted-string decoy (Cohere), the
                    // `}`-for-`]` verdict (Vertex batch, twice), the cut `edits` and the cut page.
                    "c14c80c3-18eb-4519-9460-6c92edd8cfb4".to_owned(),
                    "v1".to_owned(),
                    "verify/budget-p14".to_owned(),
                    "msg_05EditsCut".to_owned(),
                    "budget-p17-cut".to_owned(),
                ]
                .to_vec(),
            ),
        ),
        ("smaller-than-superseded", vec![at(CAPITAL_5, 23)]),
        ("placeholder", vec![at(CAPITAL_5, 6)]),
        ("read-from-truncated", vec!["msg_05EditsCut".to_owned()]),
        // The budget's pages 9 and 17 a week later: 13,182 and 7,121 characters of page in
        // round-4, 1,049 and 1,015 in round-5.
        ("page-shrank", vec![at(BUDGET_5, 124), at(BUDGET_5, 59)]),
    ];
    let names: Vec<&str> = flags.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "inside-unreadable",
            "page-shrank",
            "placeholder",
            "read-from-truncated",
            "readers-disagree",
            "smaller-than-superseded"
        ]
    );
    for (name, want) in expected {
        let got: Vec<String> = ids(&flags[name]);
        assert_eq!(got, want, "{name}");
    }
    // Each says why, with its offsets.
    let why = |name: &str, id: &str| -> String {
        flags[name].as_array().unwrap().iter().find(|x| x["id"].as_str().unwrap().ends_with(id)).unwrap()["why"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        why("inside-unreadable", "3f1c9a0e7b2d4c58/log.jsonl:17"),
        "kept #3 at byte 156 lies inside #1, 8..207, which no reading could read; it ends at byte 192, before the \
         reply does"
    );
    assert_eq!(
        why("smaller-than-superseded", "9d42b7e0c5a13f68/log.jsonl:23"),
        "kept #2 at byte 1,400 (48 bytes) has the 3 keys of #1 at byte 0 (1,371 bytes), which it superseded: under a \
         quarter of its length"
    );
    assert_eq!(
        why("placeholder", "9d42b7e0c5a13f68/log.jsonl:6"),
        "`html` is \"<page html>\", a template's placeholder (the answer is at 76..138)"
    );
}

#[test]
fn no_sample_the_readme_calls_right_carries_a_shape_flag() {
    let flags = flagged();
    let right = [
        at(BUDGET_4, 135),
        at(BUDGET_4, 116),
        at(BUDGET_4, 125),
        at(BUDGET_4, 57),
        at(BUDGET_4, 18),
        at(BUDGET_4, 49),
        at(BUDGET_4, 91),
        at(BUDGET_4, 109),
        at(BUDGET_4, 140),
        at(BUDGET_4, 145),
        at(BUDGET_4, 149),
        at(MEASURES_4, 13),
        at(MEASURES_4, 6),
        // #339's verdict, which the whole-reply reading takes, and its corrected page.
        at(MEASURES_4, 23),
        at(MEASURES_4, 34),
        // The inline-handler correction, 85 characters shorter than what it replaced.
        at(MEASURES_4, 27),
        at(MEASURES_4, 46),
        at(ANNUAL_5, 9),
        at(ANNUAL_5, 27),
        at(ANNUAL_5, 41),
        format!("{SAMPLES}/formats/replies/page-017-correction.txt"),
        format!("{SAMPLES}/formats/replies/verdict-339.md"),
    ];
    for name in ["inside-unreadable", "smaller-than-superseded", "placeholder", "read-from-truncated"] {
        let got: Vec<String> = ids(&flags[name]);
        for r in &right {
            assert!(!got.contains(r), "{name} on {r}");
        }
    }
    // The campaign's right replies carry none at all but the disagreement.
    let (replies, _, _) = load(&["round-4"]);
    let config = bracewalk::analysis::Config::default();
    for r in &replies {
        let f = bracewalk::analysis::Facts::of(r, &config, &[]);
        assert!(
            f.flags.iter().all(|x| x.flag() == bracewalk::analysis::Flag::ReadersDisagree),
            "{}: {:?}",
            r.id,
            f.flags
        );
    }
}

#[test]
fn readers_disagree_is_the_first_wins_comparison() {
    let flags = flagged();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bracewalk"))
        .args(["scan", "--json", "--list", SAMPLES])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ids(&flags["readers-disagree"]), ids(&v["comparisons"]["first-wins"]["replies"]));
}

#[test]
fn explain_json_names_each_flag_with_the_words_the_scan_lists() {
    let flags = flagged();
    for (file, line, name) in [(CAPITAL_5, 6, "placeholder"), (CAPITAL_5, 23, "smaller-than-superseded")] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bracewalk"))
            .args(["explain", "--json", &at(file, line)])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let listed = flags[name].as_array().unwrap().iter().find(|x| x["id"] == at(file, line)).unwrap();
        let raised = v["flags"].as_array().unwrap();
        let named = raised.iter().find(|f| f["flag"] == name).unwrap_or_else(|| panic!("{name}: {raised:?}"));
        assert_eq!(named["why"], listed["why"]);
    }
    // A reply that reads as the samples' README says raises none.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bracewalk"))
        .args(["explain", "--json", &at(MEASURES_4, 9)])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["flags"], serde_json::json!([]));
}

#[test]
fn explain_ends_with_each_flag_in_the_words_the_scan_lists() {
    let explain = |file: &str, line: usize| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bracewalk"))
            .args(["explain", &at(file, line)])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let flags = flagged();
    for (file, line, name) in [
        (BUDGET_5, 17, "inside-unreadable"),
        (CAPITAL_5, 6, "placeholder"),
        (CAPITAL_5, 23, "smaller-than-superseded"),
        (CAPITAL_5, 30, "inside-unreadable"),
    ] {
        let why = flags[name].as_array().unwrap().iter().find(|x| x["id"] == at(file, line)).unwrap()["why"].clone();
        let printed = explain(file, line);
        assert!(printed.contains(&format!("⚑ {name}  {}\n", why.as_str().unwrap())), "{printed}");
    }
    // The near misses: #339's verdict and the inline-handler correction carry the ≠ alone.
    for line in [23, 27] {
        let printed = explain(MEASURES_4, line);
        let raised: Vec<&str> = printed.lines().filter(|l| l.starts_with('⚑')).collect();
        assert_eq!(raised.len(), 1, "{printed}");
        assert!(raised[0].starts_with("⚑ readers-disagree  first-wins reads it otherwise"), "{printed}");
    }
}

//! `bracewalk scan` through the binary: the table, `--json` and its keys, `--markdown`,
//! `--compare`, `--list`.

// Helpers outside `#[test]` fns fail the test the same way an assertion does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;

use crate::support::binary::{bracewalk, stdout};

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs");

fn json(args: &[&str]) -> Value {
    let o = bracewalk(args);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)))
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

const COMPARISONS: [&str; 10] = [
    "fence-first",
    "first-readable",
    "first-wins",
    "narrow-everywhere",
    "narrow-fallback",
    "no-self-contained-gate",
    "no-walk-closed-gate",
    "no-whole-reply",
    "resume-after-fail",
    "strict-only",
];

#[test]
fn json_has_the_documented_keys_and_the_oracles_names() {
    let v = json(&["scan", SAMPLES, "--json"]);
    assert_eq!(
        keys(&v),
        [
            "by_agent",
            "by_format",
            "by_round",
            "bytes",
            "bytes_per_second",
            "calls_without_reply",
            "comparisons",
            "cut_off",
            "decided_by",
            "diagnostics",
            "elapsed_seconds",
            "flags",
            "reader_failed",
            "reader_not_json",
            "reader_threw",
            "readers",
            "repair",
            "replies",
            "replies_per_second",
            "truncation",
            "whole_reply"
        ]
    );
    assert_eq!(keys(&v["decided_by"]), ["last-wins", "none", "whole-reply", "whole-text"]);
    assert_eq!(
        keys(&v["whole_reply"]),
        ["no-reading", "not-tried", "refused-not-self-contained", "refused-walk-closed", "taken"]
    );
    assert_eq!(keys(&v["repair"]), ["changed", "rescued", "strict_unreadable"]);
    assert_eq!(
        keys(&v["flags"]),
        [
            "inside-unreadable",
            "page-shrank",
            "placeholder",
            "read-from-truncated",
            "readers-disagree",
            "smaller-than-superseded"
        ]
    );
    assert_eq!(keys(&v["truncation"]), ["edits"]);
    assert_eq!(keys(&v["truncation"]["edits"]), ["entries", "replies"]);
    assert_eq!(keys(&v["comparisons"]), COMPARISONS);
    assert_eq!(keys(&v["by_agent"]["page"]), ["bytes", "decided_by", "replies"]);

    // The numbers add up.
    let n = v["replies"].as_u64().unwrap();
    assert!(n > 100);
    let sum = |o: &Value| o.as_object().unwrap().values().map(|x| x.as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum(&v["decided_by"]), n);
    assert_eq!(sum(&v["whole_reply"]), n);
    let groups = |k: &str| v[k].as_object().unwrap().values().map(|g| g["replies"].as_u64().unwrap()).sum::<u64>();
    assert_eq!((groups("by_agent"), groups("by_round"), groups("by_format")), (n, n, n));

    // A comparison: its count, and an id and a one-line account per differing reply.
    let c = &v["comparisons"]["first-wins"];
    assert_eq!((c["from"].as_str(), c["to"].as_str()), (Some("first-wins"), Some("last-wins")));
    let replies = c["replies"].as_array().unwrap();
    assert_eq!(c["differ"].as_u64().unwrap(), replies.len() as u64);
    let correction =
        replies.iter().find(|r| r["id"].as_str().unwrap().ends_with("round-4/3f1c9a0e7b2d4c58/log.jsonl:135")).unwrap();
    assert_eq!(correction["account"], "html: 3 chars → 7,121 chars; log: 3 chars → 43 chars");
    // A record with its own id says where it is.
    assert!(replies.iter().any(|r| r["reference"].as_str().is_some_and(|p| p.contains("formats/"))));
    assert!(v.get("ids").is_none());
}

#[test]
fn list_adds_the_ids_behind_every_count() {
    let v = json(&["scan", SAMPLES, "--json", "--list"]);
    let ids = &v["ids"];
    let n = |k: &str| v[k].as_u64().unwrap() as usize;
    assert_eq!(ids["replies"].as_array().unwrap().len(), n("replies"));
    assert_eq!(ids["calls_without_reply"].as_array().unwrap().len(), n("calls_without_reply"));
    assert_eq!(ids["diagnostics"].as_array().unwrap().len(), n("diagnostics"));
    // Each input's diagnostic whole, as printed and by its parts (no reader of one's own here).
    let unread = ids["unread"].as_array().unwrap();
    assert!(!unread.is_empty());
    assert_eq!(
        unread.iter().map(|d| &d["message"]).collect::<Vec<_>>(),
        ids["diagnostics"].as_array().unwrap().iter().collect::<Vec<_>>()
    );
    for d in unread {
        let (source, message) = (d["source"].as_str().unwrap(), d["message"].as_str().unwrap());
        let at = match d["line"].as_u64() {
            Some(line) => format!("{source}:{line}: "),
            None => source.to_owned(),
        };
        assert!(message.starts_with(&at) && d["problem"]["kind"].is_string(), "{d}");
    }
    for (k, count) in v["decided_by"].as_object().unwrap() {
        assert_eq!(ids["decided_by"][k].as_array().unwrap().len() as u64, count.as_u64().unwrap(), "{k}");
    }
    for (k, count) in v["repair"].as_object().unwrap() {
        assert_eq!(ids["repair"][k].as_array().unwrap().len() as u64, count.as_u64().unwrap(), "{k}");
    }
    assert_eq!(ids["cut_off"].as_array().unwrap().len(), n("cut_off"));
    assert_eq!(
        ids["truncation"]["edits"].as_array().unwrap().len() as u64,
        v["truncation"]["edits"]["replies"].as_u64().unwrap()
    );

    for (k, count) in v["flags"].as_object().unwrap() {
        let listed = ids["flags"][k].as_array().unwrap();
        assert_eq!(listed.len() as u64, count.as_u64().unwrap(), "{k}");
        assert!(listed.iter().all(|x| x["id"].is_string() && !x["why"].as_str().unwrap().is_empty()), "{k}");
    }

    let text = stdout(&bracewalk(&["scan", SAMPLES, "--list"]));
    assert!(!text.contains("--list shows all"), "{text}");
    // A flag's replies say what raised it.
    assert!(text.contains("\nrisk flags\n") && text.contains("is \"<page html>\", a template's placeholder"), "{text}");
    assert!(text.contains("\ndiagnostics\n"), "{text}");
}

#[test]
fn compare_restricts_to_one_pair() {
    let v = json(&["scan", SAMPLES, "--json", "--compare", "no-whole-reply"]);
    assert_eq!(keys(&v["comparisons"]), ["no-whole-reply"]);
    let v = json(&["scan", SAMPLES, "--json", "--compare", "last-wins,first-wins", "--compare", "strict-only"]);
    assert_eq!(keys(&v["comparisons"]), ["last-wins,first-wins", "strict-only"]);
    let o = bracewalk(&["scan", SAMPLES, "--compare", "biggest-wins"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("narrow-everywhere"));
}

#[test]
fn the_table_and_the_report() {
    let o = bracewalk(&["scan", SAMPLES]);
    let text = stdout(&o);
    // Diagnostics in sample-logs/bad: the rest is counted, and the status says so.
    assert_eq!(o.status.code(), Some(1));
    assert!(!text.contains('\x1b'), "NO_COLOR");
    for heading in
        ["by agent", "how last-wins decided", "the whole-reply attempt", "repair", "truncation", "reader comparison"]
    {
        assert!(text.contains(&format!("\n{heading}")), "{heading}: {text}");
    }
    assert!(text.contains("html: 3 chars → 7,121 chars"), "{text}");
    assert!(text.lines().last().unwrap().starts_with("scanned in "), "{text}");

    let md = stdout(&bracewalk(&["scan", SAMPLES, "--markdown"]));
    assert!(md.starts_with("# bracewalk scan\n"), "{md}");
    assert!(md.contains("\n## Reader comparison\n"), "{md}");
    assert!(md.contains("| `first-wins` | `last-wins` |"), "{md}");
}

#[test]
fn nothing_to_read_is_status_two() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.txt"), "").unwrap();
    let o = bracewalk(&["scan", dir.path().to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["replies"], 0);
    assert_eq!(v["diagnostics"], 1);
}

//! Rounds side by side, through the binary: the `page-shrank` flag in `scan`, `bracewalk
//! rounds` (its table, `--json`, `--markdown`, `--fail-on-shrink`), natural order of round
//! names, and the rounds' counts held to `scan --json`'s `by_round`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::support::binary::{bracewalk, stdout};
use crate::support::campaign::{SHRINKING, Shape, write_campaign, write_shrinking};

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs");

fn json(args: &[&str]) -> Value {
    let o = bracewalk(args);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)))
}

fn shrinking() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_shrinking(dir.path()).unwrap();
    dir
}

/// The `log.jsonl:LINE` of a document's reply in a round, as an id ends.
fn at(dir: &Path, round: &str, doc: &str) -> String {
    format!("{}/{round}/{doc}/log.jsonl:", dir.display())
}

/// The two pages the fixture loses in its last round, by the ids of their final answers:
/// page 17 of the first document (8,334 → 3) and page 5 of the second (→ nothing).
fn lost_ids(dir: &Path) -> Vec<String> {
    let (first, second) = SHRINKING;
    // Page 17's correction is line 36 of its log (a line a call, after `run_start`: 16 pages
    // of two calls, then its render, verdict and correction); page 5's render, line 10.
    vec![format!("{}36", at(dir, "round-10", first)), format!("{}10", at(dir, "round-10", second))]
}

#[test]
fn the_flag_names_exactly_the_pages_lost_in_the_last_round() {
    let dir = shrinking();
    let path = dir.path().to_str().unwrap();
    let scan = json(&["scan", path, "--json", "--list"]);
    assert_eq!(scan["flags"]["page-shrank"], 2, "{}", scan["flags"]);
    let flagged: Vec<&str> =
        scan["ids"]["flags"]["page-shrank"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    let mut want = lost_ids(dir.path());
    // In scan order: the rounds' directories in natural order, so the first document first.
    want.sort();
    assert_eq!(flagged, want);
    let why: Vec<&str> =
        scan["ids"]["flags"]["page-shrank"].as_array().unwrap().iter().map(|f| f["why"].as_str().unwrap()).collect();
    assert_eq!(
        why,
        [
            "page 17 of 3f1c9a0e7b2d4c58: 8,334 chars in round-2, 3 chars now",
            "page 5 of 9d42b7e0c5a13f68: 1,085 chars in round-2, no page now: it vanished",
        ]
    );
    // The table and the Markdown count it with the other flags.
    let table = stdout(&bracewalk(&["scan", path]));
    assert!(table.lines().any(|l| l.trim_start().starts_with("page-shrank") && l.contains(" 2 ")), "{table}");
    let md = stdout(&bracewalk(&["scan", path, "--markdown"]));
    assert!(md.contains("| page-shrank | 2 |"), "{md}");
    // The query selects them, on the command line as in the inspector.
    let listed = stdout(&bracewalk(&["list", path, "--json", "--filter", "flag=page-shrank"]));
    let ids: Vec<String> =
        listed.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_owned()).collect();
    assert_eq!(ids, want);
}

#[test]
fn rounds_json_names_the_lost_pages_with_both_replies() {
    let dir = shrinking();
    let v = json(&["rounds", dir.path().to_str().unwrap(), "--json"]);
    let names: Vec<&str> = v["rounds"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["round-1", "round-2", "round-10"]);
    assert_eq!(v["latest"], "round-10");
    assert_eq!(v["lost_in_latest"], 2);
    let pages: Vec<(String, u64, &str, u64, Value, String, String)> = v["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["document"].as_str().unwrap().to_owned(),
                p["page"].as_u64().unwrap(),
                p["how"].as_str().unwrap(),
                p["before"].as_u64().unwrap(),
                p["after"].clone(),
                p["reply"]["id"].as_str().unwrap().to_owned(),
                p["earlier"]["id"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let (first, second) = SHRINKING;
    let now = lost_ids(dir.path());
    assert_eq!(
        pages,
        [
            (
                first.to_owned(),
                17,
                "shrank",
                8_334,
                Value::from(3),
                now[0].clone(),
                format!("{}36", at(dir.path(), "round-2", first))
            ),
            (
                second.to_owned(),
                5,
                "vanished",
                1_085,
                Value::Null,
                now[1].clone(),
                format!("{}10", at(dir.path(), "round-2", second))
            ),
        ]
    );
    assert!(v["pages"].as_array().unwrap().iter().all(|p| p["round"] == "round-10" && p["since"] == "round-2"));
    // The flag's count, round by round.
    let shrank: Vec<u64> =
        v["rounds"].as_array().unwrap().iter().map(|r| r["flags"]["page-shrank"].as_u64().unwrap()).collect();
    assert_eq!(shrank, [0, 0, 2]);
    let delivered: Vec<u64> =
        v["rounds"].as_array().unwrap().iter().map(|r| r["pages_delivered"].as_u64().unwrap()).collect();
    assert_eq!(delivered, [24, 24, 23]);
}

#[test]
fn fail_on_shrink_exits_4_when_the_latest_round_lost_a_page() {
    let dir = shrinking();
    let path = dir.path().to_str().unwrap();
    let o = bracewalk(&["rounds", path, "--fail-on-shrink"]);
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    let table = stdout(&o);
    assert!(
        table.contains("round-10: page 17 of 3f1c9a0e7b2d4c58: 8,334 chars in round-2 → 3 chars (shrank)"),
        "{table}"
    );
    assert!(
        table.contains("round-10: page 5 of 9d42b7e0c5a13f68: 1,085 chars in round-2 → no page (vanished)"),
        "{table}"
    );
    assert_eq!(bracewalk(&["rounds", path]).status.code(), Some(0));
    // Without the last round nothing was lost, and the gate passes.
    std::fs::remove_dir_all(dir.path().join("round-10")).unwrap();
    let o = bracewalk(&["rounds", path, "--fail-on-shrink", "--markdown"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("None."));
    // A lower bar keeps what a half would flag.
    let dir = shrinking();
    let v = json(&["rounds", dir.path().to_str().unwrap(), "--json", "--shrink-below", "0%"]);
    assert_eq!(v["lost_in_latest"], 1, "only the page that vanished: {}", v["pages"]);
}

#[test]
fn the_markdown_is_a_table_a_ci_summary_shows() {
    let dir = shrinking();
    let md = stdout(&bracewalk(&["rounds", dir.path().to_str().unwrap(), "--markdown"]));
    assert!(md.starts_with("# bracewalk rounds\n"), "{md}");
    assert!(md.contains("| | round-1 | round-2 | round-10 | trend |"), "{md}");
    assert!(md.contains("| flag page-shrank | 0 | 0 = | 2 +2 |"), "{md}");
    assert!(md.contains("| round-10 | 17 | `3f1c9a0e7b2d4c58` | 8,334 in round-2 | 3 | shrank |"), "{md}");
}

/// Every count `rounds` and `scan --json`'s `by_round` share is the same, round by round:
/// replies, bytes, and how the seed decided.
fn agrees_with_by_round(path: &str) {
    let scan = json(&["scan", path, "--json"]);
    let rounds = json(&["rounds", path, "--json"]);
    let by_round = scan["by_round"].as_object().unwrap();
    let listed: BTreeSet<&str> =
        rounds["rounds"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(listed, by_round.keys().map(String::as_str).collect::<BTreeSet<_>>());
    for r in rounds["rounds"].as_array().unwrap() {
        let g = &by_round[r["name"].as_str().unwrap()];
        assert_eq!(r["replies"], g["replies"], "{}", r["name"]);
        assert_eq!(r["bytes"], g["bytes"], "{}", r["name"]);
        assert_eq!(r["decided_by"], g["decided_by"], "{}", r["name"]);
    }
    // And the whole's counts are the rounds' added up: the replies cut off, each flag.
    let cut: u64 = rounds["rounds"].as_array().unwrap().iter().map(|r| r["cut_off"].as_u64().unwrap()).sum();
    assert_eq!(Value::from(cut), scan["cut_off"]);
    for flag in scan["flags"].as_object().unwrap().keys() {
        let sum: u64 = rounds["rounds"].as_array().unwrap().iter().map(|r| r["flags"][flag].as_u64().unwrap()).sum();
        assert_eq!(Value::from(sum), scan["flags"][flag], "{flag}");
    }
}

#[test]
fn rounds_agree_with_scan_by_round_on_the_samples_and_a_generated_campaign() {
    agrees_with_by_round(&format!("{SAMPLES}/round-4"));
    agrees_with_by_round(SAMPLES);
    let dir = tempfile::tempdir().unwrap();
    let shape = Shape { rounds: 11, documents: 2, replies: 12, sizes: (500, 3_000), ..Shape::default() };
    write_campaign(dir.path(), &shape).unwrap();
    agrees_with_by_round(dir.path().to_str().unwrap());
}

#[test]
fn rounds_are_in_natural_order_in_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let shape = Shape { rounds: 11, documents: 1, replies: 4, sizes: (300, 600), ..Shape::default() };
    write_campaign(dir.path(), &shape).unwrap();
    let path = dir.path().to_str().unwrap();
    let natural: Vec<String> = (1..=11).map(|r| format!("round-{r}")).collect();
    // `scan --json`: by_round's keys, as printed.
    let text = stdout(&bracewalk(&["scan", path, "--json"]));
    let found: Vec<usize> = natural.iter().map(|r| text.find(&format!("\"{r}\":{{")).unwrap()).collect();
    assert!(found.windows(2).all(|w| w[0] < w[1]), "{text}");
    // The table's rows.
    let table = stdout(&bracewalk(&["scan", path]));
    let rows: Vec<&str> =
        table.lines().filter_map(|l| l.split_whitespace().next()).filter(|w| w.starts_with("round-")).collect();
    assert_eq!(rows, natural);
    // `list`, in load order: round-2's replies before round-10's.
    let listed = stdout(&bracewalk(&["list", path, "--json"]));
    let rounds: Vec<String> = listed
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["round"].as_str().unwrap().to_owned())
        .fold(Vec::new(), |mut v, r| {
            if v.last() != Some(&r) {
                v.push(r);
            }
            v
        });
    assert_eq!(rounds, natural);
    // `rounds`.
    let v = json(&["rounds", path, "--json"]);
    let names: Vec<&str> = v["rounds"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, natural);
}

#[test]
fn a_merge_of_rounds_scanned_apart_finds_the_pages_one_scan_finds() {
    let dir = shrinking();
    let shards = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for round in ["round-1", "round-2", "round-10"] {
        let o = bracewalk(&["scan", dir.path().join(round).to_str().unwrap(), "--json", "--list"]);
        let f = shards.path().join(format!("{round}.json"));
        std::fs::write(&f, &o.stdout).unwrap();
        files.push(f.to_str().unwrap().to_owned());
    }
    let mut args = vec!["scan", "--merge"];
    args.extend(files.iter().map(String::as_str));
    args.push("--json");
    let merged = json(&args);
    let whole = json(&["scan", dir.path().to_str().unwrap(), "--json"]);
    assert_eq!(merged["flags"], whole["flags"]);
    assert_eq!(merged["flags"]["page-shrank"], 2);
}

#[test]
fn explain_says_a_final_answer_lost_its_page_since_an_earlier_round() {
    let dir = shrinking();
    let (first, _) = SHRINKING;
    let now = lost_ids(dir.path())[0].clone();
    let text = stdout(&bracewalk(&["explain", &now]));
    assert!(text.contains("page-shrank  page 17 of 3f1c9a0e7b2d4c58: 8,334 chars in round-2, 3 chars now"), "{text}");
    let v = json(&["explain", &now, "--json"]);
    let flags: Vec<&str> = v["flags"].as_array().unwrap().iter().map(|f| f["flag"].as_str().unwrap()).collect();
    assert_eq!(flags, ["placeholder", "page-shrank"]);
    // The same page a round before lost nothing.
    let before = format!("{}36", at(dir.path(), "round-2", first));
    assert!(!stdout(&bracewalk(&["explain", &before])).contains("page-shrank"));
}

#[test]
fn a_merge_of_a_cut_that_lists_nothing_finds_the_pages_one_scan_finds() {
    let dir = shrinking();
    let root = dir.path().to_str().unwrap();
    let shards = tempfile::tempdir().unwrap();
    let whole = json(&["scan", "--root", root, root, "--json"]);
    assert_eq!(whole["flags"]["page-shrank"], 2);
    for n in [1, 2, 3, 5] {
        let mut files = Vec::new();
        for i in 1..=n {
            let o = bracewalk(&["scan", "--shard", &format!("{i}/{n}"), "--root", root, root, "--json", "--list"]);
            let f = shards.path().join(format!("{i}-of-{n}.json"));
            std::fs::write(&f, &o.stdout).unwrap();
            files.push(f.to_str().unwrap().to_owned());
        }
        let mut args = vec!["scan", "--merge"];
        args.extend(files.iter().map(String::as_str));
        args.push("--json");
        let merged = json(&args);
        assert_eq!(merged["flags"], whole["flags"], "{n}");
        assert_eq!(merged["by_round"], whole["by_round"], "{n}");
    }
}

//! `bracewalk scan --merge`: a corpus scanned in parts, each part's `scan --json --list`
//! merged, prints what one scan of the whole prints, in every output format, timing aside.

// Helpers outside `#[test]` fns fail the test the same way an assertion does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::binary::bracewalk;

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs");
const GOLDEN: &str = include_str!("../golden/replies.jsonl");

/// What a command printed, without the lines and keys that say how long it took.
fn untimed(o: &Output) -> String {
    let text = String::from_utf8_lossy(&o.stdout);
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(mut json) => {
            for k in ["elapsed_seconds", "replies_per_second", "bytes_per_second"] {
                assert!(json.as_object_mut().unwrap().remove(k).is_some(), "{k}");
            }
            if let Some(m) = json.get_mut("manifest") {
                assert!(m.as_object_mut().unwrap().remove("started").is_some());
            }
            json.to_string()
        }
        Err(_) => text.lines().filter(|l| !l.to_lowercase().starts_with("scanned in")).collect::<Vec<_>>().join("\n"),
    }
}

/// Each part scanned on its own into `out`, in order.
fn shards(parts: &[&str], options: &[&str], out: &Path) -> Vec<PathBuf> {
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let o = bracewalk(&[&["scan", part, "--json", "--list"], options].concat());
            let path = out.join(format!("shard-{i}.json"));
            std::fs::write(&path, &o.stdout).unwrap();
            path
        })
        .collect()
}

/// The merge of the parts' shards prints what the scan of all the parts prints, in every
/// format, with and without the ids, and exits as it does.
fn merges_to_the_whole(parts: &[&str], options: &[&str], formats: &[&[&str]]) {
    let dir = tempfile::tempdir().unwrap();
    let shards = shards(parts, options, dir.path());
    let shards: Vec<&str> = shards.iter().map(|p| p.to_str().unwrap()).collect();
    for &format in formats {
        let whole = bracewalk(&[&["scan"], parts, options, format].concat());
        let merged = bracewalk(&[&["scan", "--merge"], &shards[..], options, format].concat());
        assert_eq!(
            merged.status.code(),
            whole.status.code(),
            "{format:?}: {}",
            String::from_utf8_lossy(&merged.stderr)
        );
        let (whole, merged) = (untimed(&whole), untimed(&merged));
        assert!(whole.len() > 1000, "{format:?}: {whole}");
        assert_eq!(merged, whole, "{format:?}");
    }
}

#[test]
fn the_sample_logs_scanned_by_directory_merge_to_their_scan() {
    let parts = ["bad", "formats", "round-4", "round-5"].map(|d| format!("{SAMPLES}/{d}"));
    let every: [&[&str]; 6] =
        [&["--json"], &["--json", "--list"], &["--markdown"], &["--markdown", "--list"], &[], &["--list"]];
    merges_to_the_whole(&parts.iter().map(String::as_str).collect::<Vec<_>>(), &[], &every);
}

#[test]
fn the_risk_flags_of_shards_merge_with_what_raised_them() {
    // Inside-unreadable falls in two shards (formats, round-5), placeholder in one: each
    // merged flag lists both shards' replies, in order, each with its why.
    let parts = ["formats", "round-5"].map(|d| format!("{SAMPLES}/{d}"));
    let dir = tempfile::tempdir().unwrap();
    let shards = shards(&parts.iter().map(String::as_str).collect::<Vec<_>>(), &[], dir.path());
    let shards: Vec<&str> = shards.iter().map(|p| p.to_str().unwrap()).collect();
    let merged = bracewalk(&[&["scan", "--merge"], &shards[..], &["--json", "--list"]].concat());
    let json: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    let listed = |name: &str| json["ids"]["flags"][name].as_array().unwrap().clone();
    let inside = listed("inside-unreadable");
    assert_eq!(json["flags"]["inside-unreadable"].as_u64(), Some(inside.len() as u64));
    let from_round_5 = inside.iter().position(|x| x["id"].as_str().unwrap().contains("round-5")).unwrap();
    assert!(from_round_5 > 0, "the formats shard's come first: {inside:?}");
    assert!(inside.iter().all(|x| x["why"].as_str().unwrap().starts_with("kept #")), "{inside:?}");
    assert_eq!(listed("placeholder").len(), 1);
    assert_eq!(json["flags"]["smaller-than-superseded"].as_u64(), Some(1));
}

#[test]
fn the_goldens_in_four_files_merge_to_their_scan_with_other_options_too() {
    // Four quarters of the golden corpus, the first opening with records under the ids of
    // some of its own that readers disagree on, holding no JSON: one id read in two places,
    // the second listed where the first is not.
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<&str> = GOLDEN.lines().collect();
    let quarter = lines.len().div_ceil(4);
    let mut parts = Vec::new();
    for (i, chunk) in lines.chunks(quarter).enumerate() {
        let mut body = String::new();
        if i == 0 {
            for line in &lines[640..700] {
                let mut record: serde_json::Value = serde_json::from_str(line).unwrap();
                record["text"] = "no JSON here".into();
                body.push_str(&format!("{record}\n"));
            }
        }
        body.push_str(&chunk.join("\n"));
        let path = dir.path().join(format!("part-{i}.jsonl"));
        std::fs::write(&path, body + "\n").unwrap();
        parts.push(path.to_str().unwrap().to_owned());
    }
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let read = ["--text-path", "/text", "--meta", "id=/id"];
    let formats: [&[&str]; 2] = [&["--json", "--list"], &["--list"]];
    merges_to_the_whole(&parts, &read, &formats);
    let other = [
        &read[..],
        &["--compare", "first-wins", "--compare", "strict-only,no-whole-reply", "--field", "html", "--field", "edits"],
    ]
    .concat();
    merges_to_the_whole(&parts, &other, &formats[..1]);
}

#[test]
fn a_merge_refuses_shards_it_cannot_put_back_together() {
    let dir = tempfile::tempdir().unwrap();
    let part = format!("{SAMPLES}/round-4");
    let counts_only = dir.path().join("counts.json");
    std::fs::write(&counts_only, bracewalk(&["scan", &part, "--json"]).stdout).unwrap();
    let o = bracewalk(&["scan", "--merge", counts_only.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("counts.json") && err.contains("--list"), "{err}");

    let shard = &shards(&[&part], &[], dir.path())[0];
    let o = bracewalk(&["scan", "--merge", shard.to_str().unwrap(), "--compare", "first-wins"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("was scanned with --compare first-wins, strict-only") && err.contains("(it has first-wins)"),
        "{err}"
    );

    let o = bracewalk(&["scan", "--merge", &format!("{SAMPLES}/README.md")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("README.md: not JSON"));
}

/// A reader of one's own, in `sh`, that answers by what the reply says: `THROW` it throws,
/// `TEXT` it returns text that is not JSON, `FAIL` it cannot carry, `NONE` nothing, `OTHER`
/// another value; else `{"a": 1}`.
const MINE: &str = r#"mine=while IFS= read -r l; do id=${l#\{\"id\":\"}; id=${id%%\"*}; case "$l" in *THROW*) printf '{"id":"%s","error":"Error: no JSON"}\n' "$id";; *TEXT*) printf '{"id":"%s","json":"not json"}\n' "$id";; *FAIL*) printf '{"id":"%s","fail":"cannot carry it"}\n' "$id";; *NONE*) printf '{"id":"%s"}\n' "$id";; *OTHER*) printf '{"id":"%s","value":[1]}\n' "$id";; *) printf '{"id":"%s","value":{"a":1}}\n' "$id";; esac; done"#;

#[test]
fn a_reader_of_ones_own_merges_with_its_classes_and_what_it_threw() {
    let dir = tempfile::tempdir().unwrap();
    let texts = [
        ["{\"a\": 1}", "THROW {\"b\": 2}", "TEXT {\"c\": 3}", "FAIL {\"d\": 4}", "NONE {\"e\": 5}"],
        ["OTHER {\"f\": 6}", "THROW and nothing", "plain words", "TEXT {\"g\": 7}", "{\"a\": 1}"],
    ];
    let mut parts = Vec::new();
    for (i, part) in texts.iter().enumerate() {
        let body: String = part
            .iter()
            .enumerate()
            .map(|(j, t)| format!("{}\n", serde_json::json!({"id": format!("p{i}r{j}"), "text": t})))
            .collect();
        let path = dir.path().join(format!("part-{i}.jsonl"));
        std::fs::write(&path, body).unwrap();
        parts.push(path.to_str().unwrap().to_owned());
    }
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let options = ["--text-path", "/text", "--meta", "id=/id", "--reader", MINE, "--compare", "first-wins"];
    let every: [&[&str]; 6] =
        [&["--json"], &["--json", "--list"], &["--markdown"], &["--markdown", "--list"], &[], &["--list"]];
    merges_to_the_whole(&parts, &options, &every);
    // What it merged to: the seed reads every reply with an object in it.
    let whole = bracewalk(&[&["scan"], &parts[..], &options, &["--json", "--list"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
    let mine = &v["comparisons"]["mine"];
    let ids = |class: &str| -> Vec<String> {
        let replies = mine["replies"].as_array().unwrap();
        replies.iter().filter(|r| r["class"] == class).map(|r| r["id"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(ids("gained"), ["p0r1", "p0r2", "p0r4", "p1r3"]);
    assert_eq!(ids("lost"), ["p1r2"]);
    assert_eq!(ids("changed"), ["p1r0"]);
    assert_eq!((mine["differ"].as_u64(), mine["gained"].as_u64()), (Some(6), Some(4)));
    assert_eq!((mine["lost"].as_u64(), mine["changed"].as_u64()), (Some(1), Some(1)));
    assert_eq!(v["reader_threw"]["mine"], 2);
    assert_eq!(v["reader_not_json"]["mine"], 2);
    assert_eq!(v["reader_failed"]["mine"], 1);
    let why = |key: &str| {
        v["ids"][key]["mine"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["why"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(why("reader_threw"), ["Error: no JSON", "Error: no JSON"]);
    assert_eq!(why("reader_not_json"), ["not json", "not json"]);
}

/// A reader's problems travel with it through the shards' JSON: each shard's reader exits
/// with status 3 after its last answer, and the merge prints both problems under the
/// reader, as what they are (`stopped`), with the inputs' diagnostics apart.
#[test]
fn a_readers_problems_merge_under_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let mut parts = Vec::new();
    for i in 0..2 {
        let path = dir.path().join(format!("part-{i}.jsonl"));
        std::fs::write(&path, format!("{}\nnot json\n", serde_json::json!({"id": format!("p{i}"), "text": "{}"})))
            .unwrap();
        parts.push(path.to_str().unwrap().to_owned());
    }
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let exits =
        r#"mine=while IFS= read -r l; do id=${l#\{\"id\":\"}; printf '{"id":"%s"}\n' "${id%%\"*}"; done; exit 3"#;
    let options = ["--text-path", "/text", "--meta", "id=/id", "--reader", exits];
    let shards = shards(&parts, &options, dir.path());
    let shards: Vec<&str> = shards.iter().map(|p| p.to_str().unwrap()).collect();
    let merged = bracewalk(&[&["scan", "--merge", "--json", "--list"], &shards[..], &options].concat());
    assert_eq!(merged.status.code(), Some(1), "{}", String::from_utf8_lossy(&merged.stderr));
    let v: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(v["diagnostics"], 4, "a line that is not JSON, and the reader's exit, in each part");
    let problems = v["readers"]["mine"]["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 2, "{problems:?}");
    for p in problems {
        assert_eq!(p["fault"], "stopped");
        assert_eq!(p["why"], "exited with status 3 after its last answer");
        assert!(p["message"].as_str().unwrap().starts_with("reader mine: exited with status 3"), "{p}");
    }
    let diagnostics = v["ids"]["diagnostics"].as_array().unwrap();
    assert!(diagnostics[..2].iter().all(|d| d.as_str().unwrap().contains(".jsonl:2: not JSON")), "{diagnostics:?}");
    assert_eq!(diagnostics[2..], problems.iter().map(|p| p["message"].clone()).collect::<Vec<_>>()[..]);
    // The table puts both under the reader, and the inputs' lines under the diagnostics.
    let table = bracewalk(&[&["scan", "--merge", "--list"], &shards[..], &options].concat());
    let table = String::from_utf8_lossy(&table.stdout);
    let under_reader = table.split("\nreader mine\n").nth(1).unwrap_or_default();
    let under_reader = under_reader.split("\n\n").next().unwrap_or_default();
    assert_eq!(under_reader.matches("exited with status 3 after its last answer").count(), 2, "{table}");
    let listed = table.split("\ndiagnostics\n").nth(1).unwrap_or_default();
    assert_eq!(listed.lines().filter(|l| l.contains(":2: ")).count(), 2, "{table}");
    assert!(!listed.contains("reader mine"), "{table}");
}

//! `bracewalk list`, and `extract` / `explain` given a reply reference, through the binary.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::binary::{bracewalk, stdout};

fn run_log(dir: &Path) -> std::path::PathBuf {
    let campaign = dir.join("round-7");
    fs::create_dir_all(campaign.join("doc-1")).unwrap();
    fs::write(
        campaign.join("ledger.jsonl"),
        json!({"id": "doc-1", "session_id": "s", "outcome": "ready_for_review", "round_trip_ms": 9, "at": "t"})
            .to_string()
            + "\n",
    )
    .unwrap();
    let events = [
        json!({"ts": "t0", "type": "model_call", "agent": "page", "model": "claude-z", "provider": "bedrock", "ok": true, "output_tokens": 12}),
        json!({"ts": "t1", "type": "agent_call", "agent": "page.md", "phase": "extraction", "image": "doc-1-p4.png",
               "output": "Draft first.\n{\"html\": \"...\"}\nThen the page:\n{\"html\": \"<p>four</p>\", \"log\": \"Page 4.\"}"}),
        json!({"ts": "t2", "type": "model_call", "agent": "copy_editor", "ok": false, "error": "bedrock: response hit the 32000-token output ceiling and was truncated (9 chars returned)."}),
        json!({"ts": "t3", "type": "editor", "iteration": 1}),
    ];
    let log = campaign.join("doc-1/log.jsonl");
    fs::write(&log, events.iter().map(|e| format!("{e}\n")).collect::<String>()).unwrap();
    log
}

#[test]
fn list_prints_one_line_per_reply_then_the_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    run_log(dir.path());
    fs::write(dir.path().join("empty.txt"), "").unwrap();
    let o = bracewalk(&["list", dir.path().to_str().unwrap()]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("log.jsonl:2") && lines[0].contains("page") && lines[0].contains("p4"), "{out}");
    assert!(lines[0].contains("round-7") && lines[0].contains("85 B") && lines[0].ends_with("finished"), "{out}");
    assert!(
        lines[1].contains("log.jsonl:3") && lines[1].contains("copy_editor") && lines[1].contains("round-7 it1"),
        "{out}"
    );
    assert!(lines[1].contains("truncated") && lines[1].contains("no reply: bedrock: response hit"), "{out}");
    assert!(out.contains("1 reply, 1 call with no reply, 1 diagnostic"), "{out}");
    assert!(out.trim_end().ends_with(&format!("{}: empty file", dir.path().join("empty.txt").display())), "{out}");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn list_json_prints_every_field_with_absent_facts_as_null() {
    let dir = tempfile::tempdir().unwrap();
    let log = run_log(dir.path());
    fs::write(dir.path().join("broken.jsonl"), "{\"a\": \n").unwrap();
    let o = bracewalk(&["list", "--json", dir.path().to_str().unwrap()]);
    let rows: Vec<Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    // The diagnostic comes first: broken.jsonl sorts before round-7/.
    assert_eq!(rows[0]["diagnostic"], "not JSON: EOF while parsing a value at column 6");
    assert_eq!((rows[0]["line"].as_u64(), rows[0]["offset"].as_u64()), (Some(1), Some(0)));
    let r = &rows[1];
    for key in ["id", "source", "line", "format", "agent", "phase", "page", "round", "model", "stop_reason", "bytes"] {
        assert!(r.get(key).is_some(), "{key} missing from {r}");
    }
    assert_eq!(r["id"], format!("{}:2", log.display()));
    assert_eq!((r["source"].as_str(), r["line"].as_u64()), (log.to_str(), Some(2)));
    assert_eq!(
        (&r["format"], &r["agent"], &r["phase"], &r["page"]),
        (&json!("run-log"), &json!("page"), &json!("extraction"), &json!(4))
    );
    assert_eq!(
        (&r["round"], &r["document"], &r["document_outcome"]),
        (&json!("round-7"), &json!("doc-1"), &json!("ready_for_review"))
    );
    assert_eq!(
        (&r["model"], &r["stop_reason"], &r["bytes"], &r["output_tokens"]),
        (&json!("claude-z"), &json!("finished"), &json!(85), &json!(12))
    );
    assert_eq!(
        (&r["iteration"], &r["run_outcome"], &r["cache_read_tokens"]),
        (&Value::Null, &Value::Null, &Value::Null)
    );
    assert_eq!(r["inferred"], json!(["model", "provider", "tokens", "duration_ms", "stop"]));
    let e = &rows[2];
    assert_eq!((&e["event"], &e["bytes"], &e["iteration"]), (&json!("truncated-call"), &Value::Null, &json!(1)));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn the_exit_status_says_whether_everything_loaded() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "reply").unwrap();
    assert_eq!(bracewalk(&["list", dir.path().to_str().unwrap()]).status.code(), Some(0));
    fs::write(dir.path().join("b.txt"), "").unwrap();
    assert_eq!(bracewalk(&["list", dir.path().to_str().unwrap()]).status.code(), Some(1));
    let nothing = bracewalk(&["list", dir.path().join("b.txt").to_str().unwrap()]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(stdout(&nothing).contains("b.txt: empty file"));
}

#[test]
fn extract_and_explain_take_a_reply_reference() {
    let dir = tempfile::tempdir().unwrap();
    let log = run_log(dir.path());
    let reference = format!("{}:2", log.display());
    let o = bracewalk(&["extract", &reference]);
    assert_eq!((stdout(&o).trim(), o.status.code()), ("{\"html\":\"<p>four</p>\",\"log\":\"Page 4.\"}", Some(0)));
    let o = bracewalk(&["explain", &reference]);
    assert!(stdout(&o).contains("walk 2 `{` visited"), "{}", stdout(&o));
    let o = bracewalk(&["explain", &format!("{}:3", log.display())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no reply on that line: it is a truncated-call"), "{o:?}");
    // A plain file is still read as it is.
    let plain = dir.path().join("reply.json");
    fs::write(&plain, "{\"html\": \"<p>plain</p>\"}").unwrap();
    assert_eq!(stdout(&bracewalk(&["extract", plain.to_str().unwrap()])).trim(), "{\"html\":\"<p>plain</p>\"}");
}

#[test]
fn custom_json_needs_a_pointer_and_reads_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.jsonl");
    fs::write(&path, "{\"out\": {\"text\": \"hi\"}, \"who\": \"reader.md\"}\n").unwrap();
    let p = path.to_str().unwrap();
    let o = bracewalk(&["list", "--format", "json", p]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--format json needs --text-path"));
    let o = bracewalk(&["list", "--json", "--text-path", "/out/text", "--meta", "agent=/who", p]);
    let row: Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!((&row["format"], &row["agent"], &row["bytes"]), (&json!("json"), &json!("reader"), &json!(2)));
    let o = bracewalk(&["list", "--meta", "agent", p]);
    assert_eq!(o.status.code(), Some(2), "a NAME=POINTER without a pointer is refused");
}

/// A filter on what the readers make of a reply reads the replies a batch at a time on every
/// core; what it prints is in the order of the files, as read one by one, across batches.
#[test]
fn a_filter_on_the_readings_prints_in_load_order_across_batches() {
    use bracewalk::analysis::{Config, Facts};
    use bracewalk::logs::{Item, LoadOptions, load};
    use bracewalk::query::Query;

    let dir = tempfile::tempdir().unwrap();
    let shapes = [
        "{\"page\": 1}",
        "Draft: {\"page\": 0}\nFinal: {\"page\": 2, \"html\": \"<p>x</p>\"}",
        "nothing here",
        "Thinking { about it }. {\"ok\": true}",
    ];
    for f in ["a.jsonl", "b.jsonl"] {
        let lines: String = (0..400)
            .map(|i| {
                json!({"id": format!("{f}-{i}"), "text": shapes[(i * 7 + i / 3) % shapes.len()]}).to_string() + "\n"
            })
            .collect();
        fs::write(dir.path().join(f), lines).unwrap();
    }
    let query = "decided=last-wins";
    let o = bracewalk(&["list", "--json", "--filter", query, dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let printed: Vec<String> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_owned())
        .collect();

    let (q, config) = (Query::parse(query).unwrap(), Config::default());
    let mut read_one_by_one = Vec::new();
    load(&[dir.path().to_path_buf()], &LoadOptions::default(), &mut |item| {
        if let Item::Reply(r) = item
            && q.matches_reply(&r, Some(&Facts::of(&r, &config, &[])))
        {
            read_one_by_one.push(r.id.clone());
        }
    });
    assert!(read_one_by_one.len() > 200, "{}", read_one_by_one.len());
    assert_eq!(printed, read_one_by_one);
}

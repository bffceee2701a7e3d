//! Following a file as it grows: only what is new, nothing twice, a restart when the file
//! shrinks or is replaced, late context as amendments.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use bracewalk::logs::{Change, Item, LoadOptions, Loader, Restart, Tail};
use serde_json::json;

fn read(tail: &mut Tail) -> Vec<Change> {
    let mut got = Vec::new();
    tail.read_new(&mut |c| got.push(c));
    got
}

fn replies(changes: &[Change]) -> Vec<(Option<usize>, String)> {
    changes
        .iter()
        .filter_map(|c| match c {
            Change::Item(Item::Reply(r)) => Some((r.line, r.text.clone())),
            _ => None,
        })
        .collect()
}

fn append(path: &Path, text: &str) {
    let mut f = OpenOptions::new().create(true).append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn msg(text: &str) -> String {
    format!("{}\n", json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]}))
}

fn tail(path: &Path) -> Tail {
    Tail::new(path, Arc::new(Loader::new(LoadOptions::default())))
}

#[test]
fn a_growing_file_gives_only_its_new_replies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.jsonl");
    let mut t = tail(&path);
    assert!(read(&mut t).is_empty(), "nothing there yet");
    append(&path, &msg("one"));
    assert_eq!(replies(&read(&mut t)), [(Some(1), "one".to_owned())]);
    assert!(read(&mut t).is_empty(), "nothing new");
    // A line still being written is held back, then read whole once it ends.
    let two = msg("two");
    append(&path, &two[..20]);
    assert!(read(&mut t).is_empty());
    append(&path, &two[20..]);
    append(&path, &msg("three"));
    assert_eq!(replies(&read(&mut t)), [(Some(2), "two".to_owned()), (Some(3), "three".to_owned())]);
    assert_eq!(t.offset(), fs::metadata(&path).unwrap().len());
}

#[test]
fn a_last_record_without_its_newline_is_not_read_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.jsonl");
    let one = msg("one");
    append(&path, one.trim_end());
    let mut t = tail(&path);
    assert_eq!(replies(&read(&mut t)), [(Some(1), "one".to_owned())]);
    append(&path, "\n");
    append(&path, &msg("two"));
    assert_eq!(replies(&read(&mut t)), [(Some(2), "two".to_owned())]);
}

#[test]
fn a_file_that_shrinks_or_is_replaced_is_read_again_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.jsonl");
    append(&path, &msg("one"));
    append(&path, &msg("two"));
    let mut t = tail(&path);
    assert_eq!(replies(&read(&mut t)).len(), 2);

    // Truncated in place, then rewritten shorter.
    let f = OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(0).unwrap();
    append(&path, &msg("new"));
    let got = read(&mut t);
    assert!(matches!(&got[0], Change::Restarted { why: Restart::Truncated, .. }), "{got:?}");
    assert_eq!(replies(&got), [(Some(1), "new".to_owned())]);

    // Replaced by a rename, as an atomic writer does.
    let tmp = dir.path().join("out.jsonl.tmp");
    fs::write(&tmp, msg("a").to_string() + &msg("b") + &msg("c")).unwrap();
    fs::rename(&tmp, &path).unwrap();
    let got = read(&mut t);
    assert!(matches!(&got[0], Change::Restarted { why: Restart::Replaced, .. }), "{got:?}");
    assert_eq!(replies(&got).len(), 3);

    assert!(!t.is_gone());
    fs::remove_file(&path).unwrap();
    assert!(matches!(read(&mut t).as_slice(), [Change::Removed { .. }]));
    assert!(t.is_gone());
    // And when it comes back, it is new.
    append(&path, &msg("back"));
    assert_eq!(replies(&read(&mut t)), [(Some(1), "back".to_owned())]);
    assert!(!t.is_gone());
}

#[test]
fn a_file_rewritten_longer_than_what_was_read_is_read_again() {
    // Regression: a log truncated and written again past the old offset before the next
    // read (a re-run writing its log afresh) was read on from the old offset: the old
    // replies stayed, the new ones were lost or read from the middle of a line.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.jsonl");
    append(&path, &(msg("one") + &msg("two")));
    let mut t = tail(&path);
    assert_eq!(replies(&read(&mut t)).len(), 2);
    fs::write(&path, msg("first of a new run") + &msg("second") + &msg("third")).unwrap();
    let got = read(&mut t);
    assert!(matches!(&got[0], Change::Restarted { why: Restart::Overwritten, .. }), "{got:?}");
    assert_eq!(
        replies(&got),
        [(Some(1), "first of a new run".to_owned()), (Some(2), "second".to_owned()), (Some(3), "third".to_owned())]
    );
    assert!(read(&mut t).is_empty(), "and then only what is new");
    append(&path, &msg("fourth"));
    assert_eq!(replies(&read(&mut t)), [(Some(4), "fourth".to_owned())]);

    // Deleted and written again between two reads: the new file may be given the old one's
    // inode number; it is still another file.
    fs::remove_file(&path).unwrap();
    fs::write(&path, msg("a").repeat(5)).unwrap();
    let got = read(&mut t);
    assert!(matches!(&got[0], Change::Restarted { .. }), "{got:?}");
    assert_eq!(replies(&got).len(), 5);
}

#[test]
fn a_reply_file_that_changes_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("page.txt");
    fs::write(&path, "draft").unwrap();
    let mut t = tail(&path);
    assert_eq!(replies(&read(&mut t)), [(None, "draft".to_owned())]);
    assert!(read(&mut t).is_empty());
    fs::write(&path, "final answer").unwrap();
    let got = read(&mut t);
    assert!(matches!(&got[0], Change::Restarted { why: Restart::Rewritten, .. }), "{got:?}");
    assert_eq!(replies(&got), [(None, "final answer".to_owned())]);
}

#[test]
fn context_logged_after_a_reply_arrives_as_an_amendment() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let event = |v: serde_json::Value| format!("{v}\n");
    append(&path, &event(json!({"ts": "t1", "type": "model_call", "agent": "page", "model": "m", "ok": true})));
    append(
        &path,
        &event(
            json!({"ts": "t2", "type": "agent_call", "agent": "page.md", "phase": "extraction", "image": "d-p3.png", "output": "P"}),
        ),
    );
    append(
        &path,
        &event(json!({"ts": "t3", "type": "agent_call", "agent": "reader.md", "phase": "review", "output": "R"})),
    );
    let mut t = tail(&path);
    let got = read(&mut t);
    assert_eq!(replies(&got).len(), 2);
    let Change::Item(Item::Reply(page)) = &got[0] else { panic!("{got:?}") };
    assert_eq!((page.meta.model.as_deref(), page.meta.page, page.meta.page_verified), (Some("m"), Some(3), None));

    append(&path, &event(json!({"ts": "t4", "type": "reader", "iteration": 0, "issues": 1})));
    append(&path, &event(json!({"ts": "t5", "type": "page_verify_failed", "image": "d-p3.png", "problems": []})));
    append(&path, &event(json!({"ts": "t6", "type": "run_complete", "iterations": 0})));
    let got = read(&mut t);
    let amended: Vec<_> = got
        .iter()
        .map(|c| match c {
            Change::Amended { line, meta, .. } => {
                (*line, meta.iteration, meta.page_verified, meta.run_outcome.as_deref().map(str::to_owned))
            }
            other => panic!("only amendments, got {other:?}"),
        })
        .collect();
    assert_eq!(
        amended,
        [
            (3, Some(0), None, None),
            (2, None, Some(false), None),
            (2, None, Some(false), Some("complete".to_owned())),
            (3, Some(0), None, Some("complete".to_owned())),
        ]
    );
}

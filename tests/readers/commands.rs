//! Readers supplied as commands (`--reader NAME=COMMAND`), through the binary: shell
//! one-liners that answer, that answer only once their input has ended, and that fail in
//! each way a reader can (exit mid-corpus, hang, answer out of order, answer about a reply
//! they were not asked about, print what is not JSON, fail one reply), and one that says its
//! extractor threw, which is nothing read, not a failure. Each
//! failure is one diagnostic naming the reader and the reply; the answers before it stand;
//! the rest count as "reader failed"; and no other reader loses a reply. The inspector stays
//! responsive while a reader hangs (tmux).
//!
//! The readers are POSIX `sh`: the test needs nothing but a shell.

use crate::support::tmux;
use crate::support::tools::TMUX;

use crate::support::tui_fixture as fixture;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value as Json;

const BIN: &str = env!("CARGO_BIN_EXE_bracewalk");

/// The corpus, `r1`…`r8`; the seed reads all but `r3` and `r6`, and reads `r8` as Infinity,
/// which JSON text carries as `null`.
const TEXTS: [&str; 8] = [
    r#"{"a": 1}"#,
    r#"Here it is: {"b": 2}"#,
    "nothing here",
    "Template:\n{ \"html\": \"...\" }\nAnswer:\n{\"html\": \"<p>the page</p>\"}",
    r#"{"c": "x"}"#,
    "plain words",
    r#"{"d": [1, 2]}"#,
    "1e400",
];

/// The replies a reader that answers `null` to everything reads differently from the seed.
const SEED_READS: [&str; 5] = ["r1", "r2", "r4", "r5", "r7"];

/// Answers `$1` with no value, as the protocol has it.
const ANSWER: &str = r#"answer() { printf '{"id":"%s"}\n' "$1"; }"#;
/// The id of request `$l` (ids here hold no quote).
const ID: &str = r#"id=${l#\{\"id\":\"}; id=${id%%\"*}"#;

/// A reader that answers every reply, running `special` first for the `n`-th (`$n`).
fn reader(special: &str) -> String {
    format!("{ANSWER}; n=0; while IFS= read -r l; do n=$((n+1)); {ID}; {special} answer \"$id\"; done")
}

struct Corpus {
    dir: tempfile::TempDir,
}

impl Corpus {
    fn new() -> Corpus {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        std::fs::create_dir_all(&logs).unwrap();
        let mut jsonl = String::new();
        for (i, t) in TEXTS.iter().enumerate() {
            jsonl.push_str(&serde_json::json!({"id": format!("r{}", i + 1), "text": t}).to_string());
            jsonl.push('\n');
        }
        std::fs::write(logs.join("corpus.jsonl"), jsonl).unwrap();
        Corpus { dir }
    }

    fn logs(&self) -> PathBuf {
        self.dir.path().join("logs")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn scan(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .arg("scan")
            .args(args)
            .args(["--text-path", "/text", "--meta", "id=/id"])
            .arg(self.logs().join("corpus.jsonl"))
            .env("BRACEWALK_STATE_DIR", self.state())
            .output()
            .unwrap()
    }
}

fn json(out: &Output) -> Json {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn ids(v: &Json) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect()
}

/// The ids of a `reader_failed` listing, each `{id, why}`.
fn failed_ids(v: &Json) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap().to_owned()).collect()
}

fn differing(scan: &Json, key: &str) -> Vec<String> {
    let replies = scan["comparisons"][key]["replies"].as_array().unwrap_or_else(|| panic!("no comparison {key}"));
    replies.iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
}

fn names(range: std::ops::RangeInclusive<usize>) -> Vec<String> {
    range.map(|i| format!("r{i}")).collect()
}

#[test]
fn every_failure_is_one_diagnostic_and_no_other_reader_loses_a_reply() {
    let corpus = Corpus::new();
    let readers = [
        ("ok", reader("")),
        // Takes all its input, then answers: it works too.
        (
            "buffered",
            format!(
                "{ANSWER}; all=$(cat); printf '%s\\n' \"$all\" | while IFS= read -r l; do {ID}; answer \"$id\"; done"
            ),
        ),
        ("exits", reader(r#"[ $n -eq 4 ] && { echo "boom at $id" >&2; exit 3; };"#)),
        ("hangs", reader("[ $n -eq 4 ] && sleep 60;")),
        (
            "swaps",
            reader(r#"if [ $n -eq 3 ]; then held=$id; continue; fi; [ $n -eq 4 ] && { answer "$id"; id=$held; };"#),
        ),
        ("stranger", reader("[ $n -eq 3 ] && id=nope;")),
        ("prose", reader("[ $n -eq 3 ] && { echo hello; continue; };")),
        // A throw is nothing read, not a failure.
        (
            "errs",
            reader(r#"[ $n -eq 3 ] && { printf '{"id":"%s","error":"cannot read this one"}\n' "$id"; continue; };"#),
        ),
        // What the extractor returned could not be carried: that reply alone fails.
        ("uncarried", reader(r#"[ $n -eq 3 ] && { printf '{"id":"%s","fail":"a cycle"}\n' "$id"; continue; };"#)),
    ];
    let mut args: Vec<String> = vec!["--json".into(), "--list".into(), "--reader-timeout".into(), "1".into()];
    for (name, command) in &readers {
        args.push("--reader".into());
        args.push(format!("{name}={command}"));
        args.push("--compare".into());
        args.push(format!("{name},last-wins"));
    }
    args.extend(["--compare".into(), "first-wins".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = corpus.scan(&args);
    assert_eq!(out.status.code(), Some(1), "a failed reader is a diagnostic: {}", String::from_utf8_lossy(&out.stderr));
    let scan = json(&out);
    assert_eq!(scan["replies"], 8);

    // One diagnostic per failing reader (and one per reply that failed alone), naming reader
    // and reply.
    let diagnostics = ids(&scan["ids"]["diagnostics"]);
    let expect = [
        ("exits", "exited with status 3 before it answered reply r4"),
        (
            "hangs",
            "stopped after 1.0 s without taking input or answering (--reader-timeout) before it answered reply r4",
        ),
        ("swaps", "answered reply \"r4\" where reply r3 was next (answers come in the order asked)"),
        ("stranger", "answered for \"nope\", a reply it was not asked about, where reply r3 was next"),
        ("prose", "printed a line that is not JSON"),
        ("uncarried", "reply r3: a cycle"),
    ];
    for (name, says) in expect {
        let mine: Vec<&String> = diagnostics.iter().filter(|d| d.starts_with(&format!("reader {name}: "))).collect();
        assert_eq!(mine.len(), 1, "{name}: {diagnostics:#?}");
        assert!(mine[0].contains(says), "{name}: {}", mine[0]);
    }
    assert!(
        diagnostics.iter().any(|d| d.contains("\"hello\" where the answer for reply r3 was next")),
        "{diagnostics:#?}"
    );
    assert_eq!(diagnostics.len(), expect.len(), "the healthy readers report nothing: {diagnostics:#?}");

    // What failed is "reader failed", from the failure on; the answers before it stand.
    let failed = |name: &str| failed_ids(&scan["ids"]["reader_failed"][name]);
    assert_eq!(failed("ok"), Vec::<String>::new());
    assert_eq!(failed("buffered"), Vec::<String>::new());
    assert_eq!(failed("exits"), names(4..=8));
    assert_eq!(failed("hangs"), names(4..=8));
    assert_eq!(failed("swaps"), names(3..=8));
    assert_eq!(failed("stranger"), names(3..=8));
    assert_eq!(failed("prose"), names(3..=8));
    assert_eq!(failed("errs"), Vec::<String>::new());
    assert_eq!(failed("uncarried"), ["r3"]);
    assert_eq!(scan["reader_failed"]["exits"], 5);
    // Answers are compared as JSON text carries them: r8 (Infinity) is the seed's `null`.
    assert_eq!(differing(&scan, "ok"), SEED_READS);
    assert_eq!(differing(&scan, "buffered"), SEED_READS);
    assert_eq!(differing(&scan, "exits"), ["r1", "r2"]);
    assert_eq!(differing(&scan, "swaps"), ["r1", "r2"]);
    assert_eq!(differing(&scan, "errs"), ["r1", "r2", "r4", "r5", "r7"]);

    // The built-in comparison is the one a scan without any reader command makes.
    let alone = json(&corpus.scan(&["--json", "--compare", "first-wins"]));
    assert_eq!(scan["comparisons"]["first-wins"], alone["comparisons"]["first-wins"]);
    assert_eq!(scan["decided_by"], alone["decided_by"]);

    // A reader's stderr is in its log, in the state directory, not among the logs.
    let log = corpus.state().join("readers").join("exits.log");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "boom at r4\n");
    assert!(diagnostics.iter().any(|d| d.contains(&log.display().to_string())), "the diagnostic says where");
    assert_eq!(std::fs::read_dir(corpus.logs()).unwrap().count(), 1, "nothing written beside the corpus");
}

#[test]
fn a_reader_that_cannot_start_or_exits_early_fails_at_once() {
    let corpus = Corpus::new();
    let out = corpus.scan(&["--json", "--list", "--reader", "gone=exit 0", "--compare", "gone,last-wins"]);
    let scan = json(&out);
    assert_eq!(failed_ids(&scan["ids"]["reader_failed"]["gone"]), names(1..=8));
    let diagnostics = ids(&scan["ids"]["diagnostics"]);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert!(
        diagnostics[0].starts_with("reader gone: exited with status 0 before it answered reply r1"),
        "{diagnostics:?}"
    );

    // A name that is not a word, a name taken, a reader with no command: errors.
    for bad in ["a,b=cat", "last-wins=cat", "x="] {
        let out = corpus.scan(&["--reader", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--reader"), "{bad}");
    }
}

#[test]
fn extract_and_explain_run_a_reader_command_on_one_reply() {
    let dir = tempfile::tempdir().unwrap();
    let reply = dir.path().join("reply.txt");
    std::fs::write(&reply, "Here it is: {\"b\": 2}").unwrap();
    let echo = format!(
        "{ANSWER}; while IFS= read -r l; do {ID}; printf '{{\"id\":\"%s\",\"value\":{{\"b\":3}}}}\\n' \"$id\"; done"
    );
    let run = |args: &[&str]| {
        Command::new(BIN).args(args).arg(&reply).env("BRACEWALK_STATE_DIR", dir.path().join("state")).output().unwrap()
    };
    let out = run(&["extract", "--reader", &format!("three={echo}")]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"b\":3}\n");
    assert_eq!(out.status.code(), Some(0));

    let out = run(&["explain", "--reader", &format!("three={echo}"), "--reader", "fence-first"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("decided by last-wins"), "{text}");
    assert!(text.contains("three {b: 3}") && text.contains("→ last-wins: b: 3 → 2"), "{text}");
    assert!(text.contains("fence-first {b: 2}") && text.contains("the same answer as last-wins"), "{text}");
    let out = run(&["explain", "--json", "--reader", &format!("three={echo}")]);
    let v: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decided_by"], "last-wins");
    assert_eq!(
        v["readers"]["three"],
        serde_json::json!({"value": {"b": 3}, "outcome": "read", "note": null, "class": "changed", "account": "b: 3 → 2"})
    );

    let out = run(&["extract", "--reader", "broken=echo oops >&2; exit 4"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("reader broken: exited with status 4 before it answered reply"), "{err}");
}

/// The inspector keeps moving while the reader it shows hangs, and says when the watchdog
/// has given up on it.
#[test]
fn the_inspector_stays_responsive_while_a_reader_hangs() {
    if !TMUX.needed_by("the inspector's part") {
        return;
    }
    let corpus = Corpus::new();
    let hangs = reader("[ $n -eq 2 ] && sleep 60;");
    let command = format!(
        "env BRACEWALK_STATE_DIR={} {BIN} --no-watch --reader-timeout 6 --reader 'hangs={}' --text-path /text --meta id=/id {}; sleep 30",
        corpus.state().display(),
        hangs.replace('\'', r"'\''"),
        corpus.logs().join("corpus.jsonl").display()
    );
    let session = tmux::Tmux::start(corpus.dir.path(), 120, 30, corpus.dir.path(), &command);
    session.wait_for("the list", Duration::from_secs(20), |s| s.contains("hangs → last-wins") && s.contains("r8"));
    // r1 is answered; from r2 on the reader hangs, and the list moves all the same.
    session.wait_text("1/8", Duration::from_secs(5));
    for (keys, at) in [("j", "2/8"), ("G", "8/8"), ("g", "1/8"), ("jjj", "4/8")] {
        session.keys(&[keys]);
        session.wait_text(at, Duration::from_millis(1500));
    }
    // The reply it answered is compared; the one it hangs on waits.
    let screen = session.screen();
    let line = |id: &str| screen.lines().find(|l| l.contains(&format!("┃  {id} "))).unwrap_or_default().to_owned();
    assert!(line("r1").contains("≠ null → value {a}"), "{screen}");
    assert!(line("r2").contains("…"), "{screen}");
    let screen = session.screen();
    assert!(!screen.contains("reader failed"), "the watchdog waits its timeout:\n{screen}");
    session.wait_for("the watchdog", Duration::from_secs(20), |s| {
        s.contains("reader failed") && s.contains("reader hangs: stopped after 6.0 s")
    });
    session.keys(&["k"]);
    session.wait_text("3/8", Duration::from_secs(2));
}

/// In the inspector a reader command is a catalogue name like any other: the what-if column
/// and the `≠` badge start on it, the filter offers "NAME differs", and a reply it failed on
/// says so (the update function, fed the readings thread's own messages).
#[test]
fn in_the_inspector_a_reader_command_is_a_reader_like_any_other() {
    use std::sync::Arc;

    use bracewalk::analysis::Config;
    use bracewalk::readers::own::Outside;
    use bracewalk::readers::{Catalogue, Fault, Given, ReaderProblem};
    use bracewalk::tui::entry::Entry;
    use bracewalk::tui::message::Incoming;
    use bracewalk::tui::message::Read;
    use bracewalk::tui::{Msg, State};

    let mut catalogue = Catalogue::builtin();
    let mine = catalogue.add_command("mine", Outside::command("true")).unwrap();
    let mut s = State::new(vec![PathBuf::from("logs")], Default::default(), (140, 30));
    s.set_config(Config::new(catalogue));
    assert_eq!((s.compared, s.what_if), (mine, Some(mine)));
    let items = vec![
        fixture::reply(10, "page", 1, TEXTS[0]),
        fixture::reply(20, "page", 2, TEXTS[1]),
        fixture::reply(30, "page", 3, TEXTS[3]),
    ];
    let entries: Vec<Entry> = items.into_iter().enumerate().map(|(i, it)| Entry::from_item(i as u64 + 1, it)).collect();
    let config = s.config.clone();
    let early: Vec<Read> = entries.iter().map(|e| Read::early(e.key, e.held_text().unwrap(), false, &config)).collect();
    let texts: Vec<(u64, String)> = entries.iter().map(|e| (e.key, e.held_text().unwrap().to_string())).collect();
    fixture::drive(&mut s, Msg::Incoming { batch: entries.into_iter().map(Incoming::Entry).collect(), initial: true });
    fixture::drive(
        &mut s,
        Msg::Facts(
            early
                .iter()
                .map(|r| Read { key: r.key, facts: r.facts.clone(), sketch: r.sketch.clone(), html: r.html })
                .collect(),
        ),
    );
    let drawn = fixture::screen(&s);
    assert!(drawn.contains("mine → last-wins"), "{drawn}");
    // Its answers: the same as the seed's, another one, none (it failed).
    let value = |t: &str| Given::Read(bracewalk::exact::js::parse(t).unwrap());
    let given = [value(r#"{"a": 1}"#), value(r#"{"b": 3}"#), Given::Failed(Arc::from("reader failed: exited"))];
    let done: Vec<Read> = early
        .into_iter()
        .zip(&texts)
        .zip(given)
        .map(|((r, (key, text)), g)| Read::complete(*key, text, r.facts, &config, &[(mine, g)]))
        .collect();
    fixture::drive(&mut s, Msg::Facts(done));
    let why = "exited with status 1 before it answered reply r3".to_owned();
    let problem = ReaderProblem::new(mine, "mine", Fault::Stopped { why, fix: None, log: None });
    fixture::drive(&mut s, Msg::Problem(problem));
    let drawn = fixture::screen(&s);
    let line = |n: &str| drawn.lines().find(|l| l.contains(&format!("run-1:{n} "))).unwrap_or_default().to_owned();
    assert!(line("10").contains("same"), "{drawn}");
    assert!(line("20").contains("≠ b: 3 → 2"), "{drawn}");
    assert!(line("30").contains("reader failed"), "{drawn}");
    assert!(drawn.contains("reader mine: exited with status 1"), "the status line: {drawn}");
    assert_eq!(s.loading.diagnostics, 1);
    // The filter offers it by name, and admits the reply it reads otherwise.
    fixture::typed(&mut s, "f");
    let drawn = fixture::screen(&s);
    assert!(drawn.contains("mine differs"), "{drawn}");
    let p = s.config.pair_with_seed(mine).unwrap();
    let badge = bracewalk::tui::badges::Badge::Report(bracewalk::scan::report::Row::Differs(p));
    let admitted: Vec<usize> =
        s.list.entries().iter().filter(|e| badge.admits(e, false, &s.config)).filter_map(|e| e.line).collect();
    assert_eq!(admitted, [20]);
}

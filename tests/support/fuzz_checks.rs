//! What a fuzz input must satisfy, shared by the proptest harness on stable
//! (`tests/readers/fuzz.rs`) and the libFuzzer targets (`fuzz/fuzz_targets/`), which
//! `#[path]`-include this file. Each check panics (an assertion) on a finding; both harnesses
//! treat a panic as a failure.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bracewalk::cli::explain;
use bracewalk::cli::record::{self, Input, Offsets};
use bracewalk::cli::style::Style;
use bracewalk::exact::reprint::reprint;
use bracewalk::exact::trace::Trace;
use bracewalk::exact::value::Value;
use bracewalk::exact::walk::{Visit, WalkOptions, run};
use bracewalk::exact::{first, js, served, walk};
use bracewalk::logs::{LoadOptions, Loader, Tail};
use bracewalk::readers::{Catalogue, Run};
use bracewalk::visible::stand_in;

/// Everything bracewalk does with one reply's text: every reader, the trace renderers and the
/// oracle record. No panic, and the cheap walk agrees with the recorded one.
pub fn exercise(text: &str) {
    let slow = walk::trace(text);
    let fast = run(text, &WalkOptions::SEED, false);
    assert_eq!(slow.value.as_ref().map(Value::to_json), fast.value.as_ref().map(Value::to_json));
    assert_eq!(slow.decided_by, fast.decided_by);
    assert_eq!(slow.whole_reply.name(), fast.whole_reply.name());
    assert_eq!(walk::extract_json(text).as_ref().map(Value::to_json), fast.value.as_ref().map(Value::to_json));
    visits_agree(text, &slow);
    answer_in_agrees(text, fast.value.as_ref());
    let _ = explain::render_text(text, &slow, &Style::plain());
    let json = explain::render_json(text, &slow, &[]);
    // Checked with our own parse: the trace nests as deep as the reply, past serde_json's limit.
    assert!(js::parse(&json).is_ok(), "trace JSON is JSON");
    let _ = first::extract_json_object(text);
    let _ = served::leading_json_values(text);
    let _ = served::json_prefix_of(text);
    let prefix = walk::read_array_prefix(text, "edits");
    assert_eq!(
        walk::count_array_prefix(text, "edits"),
        prefix.map(|p| (p.entries.len(), p.closed)),
        "counting a cut array's entries reads them as building them does"
    );
    let input = Input::new(Value::Null, text.to_owned(), vec!["edits".into(), "0".into()]);
    let line = record::render(&input, Offsets::Utf16, None);
    assert!(js::parse(&line).is_ok(), "the record is JSON");
}

/// Where `text[start..end]` is JSON, what `reprint` writes straight from it (when it does)
/// is what `JSON.stringify` prints of its value.
pub fn reprint_agrees(text: &str, start: usize, end: usize) {
    let Ok(value) = js::parse(&text[start..end]) else { return };
    let mut out = String::new();
    if reprint(text, start, end, &mut out) {
        assert_eq!(out, value.to_json(), "reprinted {:?}", &text[start..end]);
    } else {
        assert!(out.is_empty(), "nothing written where the value is needed");
    }
}

/// The answer as `extract --jsonl` prints it: left in the reply where it is a strict reading,
/// it is the answer's value; printed straight from the reply, it is the value's JSON.
pub fn answer_in_agrees(text: &str, value: Option<&Value>) {
    let mut printed = String::from("{\"extract_json\":");
    walk::print_answer(text, None, &WalkOptions::SEED, &mut printed);
    assert_eq!(printed, format!("{{\"extract_json\":{}", value.map_or("null".to_owned(), Value::to_json)));
    match walk::answer_in(text, &WalkOptions::SEED) {
        Some(walk::Answer::Json(span)) => {
            let json = &text[span.start..span.end];
            assert_eq!(js::parse(json).ok().map(|v| v.to_json()), value.map(Value::to_json));
            reprint_agrees(text, span.start, span.end);
        }
        Some(walk::Answer::Repaired(span, rule)) => {
            let built = js::parse_repaired_at(text, span.start, rule).ok();
            assert_eq!(built.as_ref().map(|(v, _)| v.to_json()), value.map(Value::to_json));
            assert_eq!(built.map(|(_, end)| end), Some(span.end), "the reading ends where the walk said");
            let mut out = String::new();
            if let Some(printed) = js::print_repaired_at(text, span.start, rule, None, &mut out) {
                assert_eq!(Some(out), value.map(Value::to_json), "printed straight from the reply");
                assert_eq!(printed.end, span.end);
            }
        }
        Some(walk::Answer::Value(v)) => assert_eq!(Some(v.to_json()), value.map(Value::to_json)),
        None => assert!(value.is_none()),
    }
}

/// The record of candidates (`walk::visits`, what `extract --jsonl` prints) is the recorded
/// walk's: every candidate `slow` recorded, and where it stopped recording, the kept one at
/// its number. The decision beside it is the recorded walk's too.
pub fn visits_agree(text: &str, slow: &Trace) {
    let (trace, mut visited) = walk::visits(text);
    let recorded: Vec<Visit> = slow.candidates.iter().map(Visit::of).collect();
    // Each visit's strict and repaired span ends.
    let ends: Vec<_> = visited.strict_ends().into_iter().zip(walk::repaired_ends(text, &visited.visits)).collect();
    let recorded_ends: Vec<_> =
        slow.candidates.iter().map(|c| (c.strict.span().map(|s| s.end), c.wide.span().map(|s| s.end))).collect();
    let visits = visited.visits;
    match slow.unrecorded {
        None => {
            assert_eq!(visits, recorded, "the visits are the recorded candidates");
            assert_eq!(ends, recorded_ends, "the spans are the recorded ones");
        }
        Some(u) => {
            assert_eq!(visits.len(), slow.visited(), "one visit per candidate visited");
            let before = recorded.len() - usize::from(u.kept.is_some());
            assert_eq!(visits[..before], recorded[..before], "the visits are the recorded candidates");
            assert_eq!(ends[..before], recorded_ends[..before], "the spans are the recorded ones");
            if let Some(k) = u.kept {
                assert_eq!(visits[k], recorded[before], "the kept candidate at its number");
                assert_eq!(ends[k], recorded_ends[before], "the kept candidate's spans");
            }
        }
    }
    assert_eq!(trace.walk_end, slow.walk_end);
    assert_eq!(trace.reads, slow.reads);
    assert_eq!(trace.decided_by, slow.decided_by);
    assert_eq!(trace.whole_reply.name(), slow.whole_reply.name());
    assert_eq!(trace.value.as_ref().map(Value::to_json), slow.value.as_ref().map(Value::to_json));
}

/// Every reader of the catalogue: each walk variant's memoized run agrees with its recorded
/// run, and the others read without panicking.
pub fn exercise_variants(text: &str) {
    let catalogue = Catalogue::builtin();
    // The walks of a scan share one walker, in catalogue order, each seeing what the ones
    // before it learned: each must still be its own walk.
    let mut shared = walk::Walker::new(text);
    for (id, def) in catalogue.iter() {
        let Run::Walk(opts) = &def.run else { continue };
        let fresh = run(text, opts, false);
        let walked = shared.run(opts);
        assert_eq!(walked.value.as_ref().map(Value::to_json), fresh.value.as_ref().map(Value::to_json));
        assert_eq!((walked.decided_by, walked.place), (fresh.decided_by, fresh.place), "{}", catalogue.name(id));
        let located = shared.locate(opts);
        assert_eq!(located.place, walk::locate(text, opts).place, "{}", catalogue.name(id));
        assert_eq!(
            located.into_value(text).as_ref().map(Value::to_json),
            fresh.value.as_ref().map(Value::to_json),
            "{}: shared",
            catalogue.name(id)
        );
    }
    for (id, def) in catalogue.iter() {
        let name = || catalogue.name(id);
        match &def.run {
            Run::Walk(opts) => {
                let opts = *opts;
                let slow = run(text, &opts, true);
                let fast = run(text, &opts, false);
                assert_eq!(
                    slow.value.as_ref().map(Value::to_json),
                    fast.value.as_ref().map(Value::to_json),
                    "{}",
                    name()
                );
                assert_eq!(slow.decided_by, fast.decided_by, "{}", name());
                assert_eq!(slow.whole_reply.name(), fast.whole_reply.name(), "{}", name());
                let answer = walk::answer(text, &opts);
                assert_eq!(
                    walk::locate(text, &opts).into_value(text).as_ref().map(Value::to_json),
                    answer.as_ref().map(Value::to_json),
                    "{}: the answer found lazily",
                    name()
                );
                assert_eq!(answer.as_ref().map(Value::to_json), fast.value.as_ref().map(Value::to_json), "{}", name());
            }
            _ => {
                let _ = catalogue.read(id, text);
            }
        }
    }
}

/// The trace renderers: the text for a terminal carries no raw control, bidi or zero-width
/// character (each is shown by a stand-in), and the JSON is JSON.
pub fn explain_renders(text: &str) {
    let trace = walk::trace(text);
    let shown = explain::render_text(text, &trace, &Style::plain());
    if let Some(c) = shown.chars().find(|&c| stand_in(c, true).is_some()) {
        panic!("raw {c:?} in the explain text");
    }
    let json = explain::render_json(text, &trace, &[]);
    assert!(js::parse(&json).is_ok(), "trace JSON is JSON");
}

/// Our value as serde_json would hold it (numbers as doubles, keys sorted by serde).
pub fn to_serde(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => serde_json::Number::from_f64(*n).map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::String(s) => serde_json::Value::String(s.to_string_lossy().into_owned()),
        Value::Array(a) => serde_json::Value::Array(a.iter().map(to_serde).collect()),
        Value::Object(o) => {
            serde_json::Value::Object(o.iter().map(|(k, v)| (k.to_string_lossy().into_owned(), to_serde(v))).collect())
        }
    }
}

pub fn normalize_numbers(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Number(n) => {
            n.as_f64().and_then(serde_json::Number::from_f64).map_or(serde_json::Value::Null, serde_json::Value::Number)
        }
        serde_json::Value::Array(a) => serde_json::Value::Array(a.into_iter().map(normalize_numbers).collect()),
        serde_json::Value::Object(o) => {
            serde_json::Value::Object(o.into_iter().map(|(k, v)| (k, normalize_numbers(v))).collect())
        }
        other => other,
    }
}

/// Why serde_json may refuse a text that `JSON.parse` (and so `js::parse`) accepts: the
/// real differences between the two, and nothing else.
///
/// - serde_json stops at 128 levels of nesting; JavaScript has no such limit, and our parse
///   keeps its own stack;
/// - serde_json refuses a `\u` escape of a lone surrogate; a JavaScript string holds one;
/// - serde_json refuses a number past the largest double (`1e400`); JavaScript reads it as
///   `Infinity`.
const JS_ONLY: [&str; 5] = [
    "recursion limit exceeded",
    "lone leading surrogate in hex escape",
    "unexpected end of hex escape",
    "invalid unicode code point",
    "number out of range",
];

/// `js::parse` against serde_json (with `float_roundtrip`): where both accept, the same
/// value; we accept everything serde_json accepts; and where only we accept, the reason is
/// one of the real JavaScript differences ([`JS_ONLY`]). `Err` describes a disagreement.
pub fn parse_agrees(text: &str) -> Result<(), String> {
    reprint_agrees(text, 0, text.len());
    let ours = js::parse(text);
    let theirs = serde_json::from_str::<serde_json::Value>(text);
    match (ours, theirs) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (to_serde(&a), normalize_numbers(b));
            if a == b { Ok(()) } else { Err(format!("different values for {text:?}: ours {a}, serde_json {b}")) }
        }
        (Err(e), Ok(_)) => Err(format!("we refuse what serde_json accepts: {text:?} ({e})")),
        (Ok(_), Err(e)) => {
            let why = e.to_string();
            if JS_ONLY.iter().any(|d| why.starts_with(d)) {
                Ok(())
            } else {
                Err(format!("we accept what serde_json refuses: {text:?} ({why})"))
            }
        }
        (Err(_), Err(_)) => Ok(()),
    }
}

/// The names a loader input's files get: every kind the loader tells apart by name or
/// content, and the names of a campaign's ledger and per-document files.
pub const FILE_NAMES: [&str; 16] = [
    "log.jsonl",
    "a.json",
    "b.txt",
    "c.jsonl",
    "ledger.jsonl",
    "d.md",
    "meta.json",
    "status.json",
    "diagnostics.json",
    "output.html",
    "reply.html",
    "page.png",
    "README.md",
    ".hidden.jsonl",
    "noext",
    "e.JSONL",
];

/// Writes `files` (`(directory, name, bytes)`, the directory relative, possibly empty) under
/// `root` and loads `root`. Returns the number of items pushed.
pub fn load_files(root: &Path, files: &[(String, String, Vec<u8>)], opts: &LoadOptions) -> usize {
    for (dir, name, bytes) in files {
        let sub = root.join(dir);
        std::fs::create_dir_all(&sub).expect("mkdir");
        std::fs::write(sub.join(name), bytes).expect("write");
    }
    let mut items = 0usize;
    bracewalk::logs::load(&[PathBuf::from(root)], opts, &mut |_| items += 1);
    items
}

/// The libFuzzer targets' bodies, one per target, taking the fuzzer's bytes.
/// `tests/readers/fuzz.rs` replays the committed seeds (`fuzz/seeds/<target>/`, minimized
/// findings among them) through the same functions on stable.
pub mod target {
    use super::*;

    /// A target's body.
    pub type Body = fn(&[u8]);

    /// Every target, by its name in `fuzz/Cargo.toml` (and its seed directory).
    pub const ALL: [(&str, Body); 4] =
        [("readers", readers), ("explain", explain), ("json_parse", json_parse), ("loader", loader)];

    /// `readers`: arbitrary bytes, read as the loader reads a reply (lossy UTF-8), through
    /// every reader.
    pub fn readers(data: &[u8]) {
        let text = String::from_utf8_lossy(data);
        exercise(&text);
        exercise_variants(&text);
    }

    /// `explain`: the trace renderers on arbitrary replies.
    pub fn explain(data: &[u8]) {
        explain_renders(&String::from_utf8_lossy(data));
    }

    /// `json_parse`: text only (both parsers take `&str`, and the readers only ever see text).
    pub fn json_parse(data: &[u8]) {
        if let Ok(text) = std::str::from_utf8(data)
            && let Err(finding) = parse_agrees(text)
        {
            panic!("{finding}");
        }
    }

    const DIRS: [&str; 4] = ["", "run", "8a0d54e1c3b97f26", "run/3f1c9a0e7b2d4c58"];

    /// `loader`: up to six files separated by `0xFF` (a byte no UTF-8 text holds, so a file's
    /// text is never cut by it, while invalid UTF-8 still reaches the loader through every
    /// other byte). A file's first byte picks its name (low four bits, from [`FILE_NAMES`])
    /// and its directory (next two bits: the root, `run/`, a campaign document's directory,
    /// or one below `run/`), so a ledger, a run's context files and replies meet as in real
    /// logs. The top bit of the input's first byte selects small limits (a short longest
    /// line, a small whole file, one listed problem per file), so the limits are fuzzed too.
    /// The first file is then followed as it grows, shrinks and goes ([`follow`]).
    pub fn loader(data: &[u8]) {
        let mut opts = LoadOptions::default();
        if data.first().is_some_and(|b| b & 0x80 != 0) {
            opts.max_line = 64;
            opts.max_whole = 256;
            opts.max_problems_per_file = 1;
        }
        let files: Vec<(String, String, Vec<u8>)> = data
            .split(|&b| b == 0xFF)
            .take(6)
            .filter_map(|chunk| {
                let (&head, bytes) = chunk.split_first()?;
                let name = FILE_NAMES[usize::from(head & 0x0F)];
                let dir = DIRS[usize::from((head >> 4) & 0x03)];
                Some((dir.to_owned(), name.to_owned(), bytes.to_vec()))
            })
            .collect();
        let root = tempfile::tempdir().expect("tempdir");
        load_files(root.path(), &files, &opts);
        if let Some((dir, name, bytes)) = files.first() {
            follow(&root.path().join(dir).join(name), bytes, opts);
        }
    }

    /// A [`Tail`] following a file as it is written in two parts, then cut short (a
    /// restart), then removed: no panic at any step.
    fn follow(path: &Path, bytes: &[u8], opts: LoadOptions) {
        use std::io::Write;
        let (first, rest) = bytes.split_at(bytes.len() / 2);
        std::fs::write(path, first).expect("write");
        let mut tail = Tail::new(path, Arc::new(Loader::new(opts)));
        tail.read_new(&mut |_| {});
        std::fs::OpenOptions::new().append(true).open(path).expect("open").write_all(rest).expect("append");
        tail.read_new(&mut |_| {});
        std::fs::write(path, &first[..first.len() / 2]).expect("cut");
        tail.read_new(&mut |_| {});
        std::fs::remove_file(path).expect("remove");
        tail.read_new(&mut |_| {});
    }
}

//! Extractor functions plugged in as they are (`--reader NAME=js:FILE#EXPORT`,
//! `NAME=py:TARGET:ATTR`): a fixture of each shape in `tests/readers/` (ES module, named and
//! default; CommonJS, `module.exports = fn` and `exports.fn`; async; TypeScript; a wrapper read
//! with `?unwrap`; a `{}` sentinel read with `?nothing`; one returning JSON text; one returning
//! the reply unchanged; one that throws; Python functions, methods, printing, raising,
//! returning text, returning NaN), each run over the same replies, with what its caller holds
//! of each reply: a value, nothing, a throw, text that is not JSON; and, through the binary,
//! what a scan of the same replies says of it against the seed (the replies it gains, loses
//! and changes, and those it threw on, returned text that is not JSON for, or failed on),
//! counted here from those values. Then what a scan compares, and a bad spec as one error
//! before any reply is read.
//!
//! They run where node and python3 are (and say so where they are not); with `CI` set a tool
//! that is missing fails the test instead. TypeScript needs node ≥ 22.6 or tsx.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use bracewalk::exact::js;
use bracewalk::readers::own::{RunOptions, Spec};
use bracewalk::readers::supervisor::Commands;
use bracewalk::readers::{Catalogue, Given, Outcome, ReaderId, json_view, resolve};
use serde_json::Value as Json;

use crate::support::binary::BIN;
use crate::support::tools::{self, NODE, PYTHON3};

/// The replies every fixture reads, `r1`…`r8`.
const REPLIES: [&str; 8] = [
    r#"{"a": 1}"#,
    "Here it is: {\"b\": 2} done",
    "nothing here",
    "```json\n{\"c\": [1, 2]}\n```",
    r#"{"d": NaN}"#,
    "1e400",
    "null",
    "{\"e\": \"x\"} and {\"f\": 1}",
];

/// What a caller holds of one reply.
#[derive(Debug, Clone, Copy)]
enum Held {
    /// This value (JSON).
    V(&'static str),
    /// Nothing.
    N,
    /// A throw whose message starts so.
    T(&'static str),
    /// This text, which is not JSON.
    X(&'static str),
    /// No answer (what was returned cannot be carried), for a reason that starts so.
    F(&'static str),
}

use Held::{F, N, T, V, X};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/readers").join(name)
}

fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn node() -> bool {
    NODE.needed_by("the js: readers' tests")
}

fn python() -> bool {
    PYTHON3.needed_by("the py: readers' tests")
}

/// What runs TypeScript here, if anything: node ≥ 22.6 itself, or tsx (on PATH, or in a
/// `node_modules/.bin` above the fixtures).
fn typescript() -> Option<String> {
    let out = Command::new("node").arg("--version").output().ok()?;
    let version = String::from_utf8_lossy(&out.stdout).trim().trim_start_matches('v').to_owned();
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    if (parts.next()?, parts.next()?) >= (22, 6) {
        return Some(format!("node {version}"));
    }
    let local = fixture("").ancestors().map(|d| d.join("node_modules/.bin/tsx")).find(|p| p.exists());
    local.map(|p| p.display().to_string()).or_else(|| runs("tsx", &["--version"]).then(|| "tsx".to_owned()))
}

/// What reader `definition` gives for each of `texts`, run as a scan runs it, and the
/// diagnostics it left.
fn given(definition: &str, texts: &[&str]) -> (Vec<Given>, Vec<String>) {
    let mut catalogue = Catalogue::builtin();
    let spec = Spec::parse("mine", definition).unwrap_or_else(|e| panic!("{definition}: {e}"));
    let outside = resolve("mine", spec, RunOptions::default()).unwrap_or_else(|e| panic!("{definition}: {e}"));
    let id = catalogue.add_command("mine", outside).unwrap();
    let mut commands = Commands::start(&catalogue.outside(&[id]));
    let ids: Vec<String> = (1..=texts.len()).map(|i| format!("r{i}")).collect();
    let replies: Vec<(&str, &str)> = ids.iter().map(String::as_str).zip(texts.iter().copied()).collect();
    commands.send(&replies);
    commands.close();
    assert_eq!(commands.ready(texts.len()), texts.len(), "{definition}");
    let given = (0..texts.len()).map(|_| commands.take().pop().unwrap().1).collect();
    (given, commands.finish().iter().map(ToString::to_string).collect())
}

/// Asserts that `definition` holds `expected` of `texts`, reply by reply, and that it read,
/// read nothing, threw, returned text that is not JSON and failed `counts` times.
fn holds(definition: &str, texts: &[&str], expected: &[Held], counts: [usize; 5]) {
    let (given, diagnostics) = given(definition, texts);
    // A reply with no answer is said, each once; nothing else is.
    let failed: Vec<String> = texts
        .iter()
        .zip(expected)
        .enumerate()
        .filter(|(_, (_, h))| matches!(h, F(_)))
        .map(|(i, _)| format!("reply r{}", i + 1))
        .collect();
    assert_eq!(diagnostics.len(), failed.len(), "{definition}: {diagnostics:?}");
    for (d, reply) in diagnostics.iter().zip(&failed) {
        assert!(d.starts_with(&format!("reader mine: {reply}: ")), "{definition}: {d}");
    }
    for ((g, want), text) in given.iter().zip(expected).zip(texts) {
        let ok = match (*want, g) {
            (V(json), Given::Read(v)) => *v == js::parse(json).unwrap(),
            (N, Given::Nothing) => true,
            (T(start), Given::Threw(message)) => message.starts_with(start),
            (X(kept), Given::NotJson(t)) => &**t == kept,
            (F(start), Given::Failed(why)) => why.starts_with(start),
            _ => false,
        };
        assert!(ok, "{definition} on {text:?}: {g:?}, not {want:?}");
    }
    let count = |o: Outcome| given.iter().filter(|g| g.outcome() == o).count();
    assert_eq!(Outcome::ALL.map(count), counts, "{definition}: read, nothing, threw, not JSON, failed");
    scanned_as_held(definition, texts, expected);
}

/// What the seed's caller holds of `text`, as JSON text carries it (a number that is not
/// finite is `null`, so nothing): the library's reader, which the golden tests hold to the
/// seed under node.
fn seed(text: &str) -> Option<Json> {
    let value = Catalogue::builtin().read(ReaderId::LAST_WINS, text)?;
    json_view(&value).map(|v| serde_json::from_str(&v.to_json()).unwrap())
}

/// `bracewalk scan --json` of `texts` with reader `definition` says of it against the seed
/// what its values, `expected`, make of each reply beside the seed's, counted here: a reply
/// the seed reads where it holds nothing is gained, the reverse lost, two values that differ
/// changed; and it threw, returned text that is not JSON, and failed where it did.
fn scanned_as_held(definition: &str, texts: &[&str], expected: &[Held]) {
    let mut classes = [0usize; 3];
    for (text, held) in texts.iter().zip(expected) {
        let mine = match held {
            V(json) => Some(serde_json::from_str::<Json>(json).unwrap()),
            N | T(_) | X(_) | F(_) => None,
        };
        match (mine, seed(text)) {
            (None, Some(_)) => classes[0] += 1,
            (Some(_), None) => classes[1] += 1,
            (Some(a), Some(b)) if a != b => classes[2] += 1,
            _ => {}
        }
    }
    let threw = expected.iter().filter(|h| matches!(h, T(_))).count();
    let not_json = expected.iter().filter(|h| matches!(h, X(_))).count();
    let failed = expected.iter().filter(|h| matches!(h, F(_))).count();
    let dir = tempfile::tempdir().unwrap();
    let out = scan(dir.path(), texts, &["--json", "--reader", &format!("mine={definition}")]);
    let v: Json = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["comparisons"]["mine"];
    let said = ["gained", "lost", "changed"].map(|k| c[k].as_u64().unwrap() as usize);
    assert_eq!(said, classes, "{definition}: gained, lost, changed against last-wins");
    assert_eq!(c["differ"].as_u64().unwrap() as usize, classes.iter().sum::<usize>(), "{definition}");
    let noted = |key: &str| v[key]["mine"].as_u64().unwrap() as usize;
    let noted = [noted("reader_threw"), noted("reader_not_json"), noted("reader_failed")];
    assert_eq!(noted, [threw, not_json, failed], "{definition}: threw, not JSON, failed");
    // A reply with no answer is a diagnostic, which the exit status says.
    let code = if failed == 0 { 0 } else { 1 };
    assert_eq!(out.status.code(), Some(code), "{definition}: {}", String::from_utf8_lossy(&out.stderr));
}

fn js_spec(file: &str, rest: &str) -> String {
    format!("js:{}{rest}", fixture(file).display())
}

fn py_spec(file: &str, rest: &str) -> String {
    format!("py:{}{rest}", fixture(file).display())
}

/// The first `{` to the last `}`, parsed, nothing otherwise: what several fixtures hold.
const FIRST_TO_LAST: [Held; 8] = [V(r#"{"a":1}"#), V(r#"{"b":2}"#), N, V(r#"{"c":[1,2]}"#), N, N, N, N];

#[test]
fn es_modules_commonjs_and_async_functions() {
    if !node() {
        return;
    }
    // A named export, beside a value that is not a function: the one function is taken.
    holds(&js_spec("esm_named.mjs", ""), &REPLIES, &FIRST_TO_LAST, [3, 5, 0, 0, 0]);
    holds(&js_spec("esm_named.mjs", "#extractJson"), &REPLIES, &FIRST_TO_LAST, [3, 5, 0, 0, 0]);
    // The default export, beside another function; `undefined` is nothing, and Infinity
    // (`1e400` parsed), which JSON cannot carry, no answer, said so.
    let whole = [V(r#"{"a":1}"#), N, N, N, N, F("returned Infinity, which JSON cannot carry"), N, N];
    holds(&js_spec("esm_default.mjs", ""), &REPLIES, &whole, [1, 6, 0, 0, 1]);
    // CommonJS, both ways.
    let fenced = [V(r#"{"a":1}"#), N, N, V(r#"{"c":[1,2]}"#), N, F("returned Infinity, "), N, N];
    holds(&js_spec("cjs_module_exports.cjs", ""), &REPLIES, &fenced, [2, 5, 0, 0, 1]);
    holds(&js_spec("cjs_exports.cjs", ""), &REPLIES, &FIRST_TO_LAST, [3, 5, 0, 0, 0]);
    // An async function is awaited; a rejection is a throw, and the runner carries on.
    let awaited = [
        V(r#"{"a":1}"#),
        V(r#"{"b":2}"#),
        T("Error: no JSON object"),
        V(r#"{"c":[1,2]}"#),
        T("SyntaxError: "),
        T("Error: no JSON object"),
        T("Error: no JSON object"),
        T("SyntaxError: "),
    ];
    holds(&js_spec("async.mjs", ""), &REPLIES, &awaited, [3, 0, 5, 0, 0]);
}

#[test]
fn what_a_caller_that_reads_otherwise_holds() {
    if !node() {
        return;
    }
    // A wrapper: `?unwrap=/data` reads inside it, and where `data` is absent reads nothing.
    let wrapped = [V(r#"{"a":1}"#), V(r#"{"b":2}"#), N, V(r#"{"c":[1,2]}"#), N, N, N, N];
    holds(&js_spec("wrapper.mjs", "?unwrap=/data"), &REPLIES, &wrapped, [3, 5, 0, 0, 0]);
    holds(&js_spec("wrapper.mjs", ""), &REPLIES[2..3], &[V(r#"{"ok":false,"error":"no object"}"#)], [1, 0, 0, 0, 0]);
    // `{}` for nothing: `?nothing={}`.
    let sentinel = [V(r#"{"a":1}"#), V(r#"{"b":2}"#), N, V(r#"{"c":[1,2]}"#), N, N, N, N];
    holds(&js_spec("sentinel.mjs", "?nothing={}"), &REPLIES, &sentinel, [3, 5, 0, 0, 0]);
    holds(&js_spec("sentinel.mjs", ""), &REPLIES[2..3], &[V("{}")], [1, 0, 0, 0, 0]);
    // JSON text returned is parsed as the caller's JSON.parse parses it; "" and the rest
    // are text that is not JSON.
    let text = [
        V(r#"{"a":1}"#),
        V(r#"{"b":2}"#),
        X(""),
        V(r#"{"c":[1,2]}"#),
        X(r#"{"d": NaN}"#),
        X(""),
        X(""),
        X("{\"e\": \"x\"} and {\"f\": 1}"),
    ];
    holds(&js_spec("string_returning.mjs", ""), &REPLIES, &text, [3, 0, 0, 5, 0]);
    holds(&js_spec("string_returning.mjs", "?strings=value"), &REPLIES[..1], &[V(r#""{\"a\": 1}""#)], [1, 0, 0, 0, 0]);
    // Seed 001's habit: the reply handed back unchanged, which the caller's JSON.parse
    // reads only where it is JSON (`1e400`: Infinity, which JSON text cannot carry).
    let unchanged = [
        V(r#"{"a":1}"#),
        V(r#"{"b":2}"#),
        X("nothing here"),
        V(r#"{"c":[1,2]}"#),
        X(r#"{"d": NaN}"#),
        F("its answer is Infinity, which JSON cannot carry"),
        N,
        V(r#"{"e":"x"}"#),
    ];
    holds(&js_spec("unchanged.mjs", ""), &REPLIES, &unchanged, [4, 1, 0, 2, 1]);
    // A throw is what it threw, nothing read; `?throws=fail` makes it a failure.
    let throwing = [
        V(r#"{"a":1}"#),
        V(r#"{"b":2}"#),
        T("SyntaxError: No JSON object found in the reply"),
        V(r#"{"c":[1,2]}"#),
        T("SyntaxError: "),
        T("SyntaxError: No JSON object found"),
        T("SyntaxError: No JSON object found"),
        T("SyntaxError: "),
    ];
    holds(&js_spec("throwing.mjs", ""), &REPLIES, &throwing, [3, 0, 5, 0, 0]);
    let (failed, diagnostics) = given(&js_spec("throwing.mjs", "?throws=fail"), &REPLIES[2..3]);
    assert_eq!(failed, [Given::Failed("threw: SyntaxError: No JSON object found in the reply".into())]);
    assert_eq!(diagnostics, ["reader mine: reply r1: threw: SyntaxError: No JSON object found in the reply"]);
}

#[test]
fn typescript_runs_through_what_is_there() {
    if !node() {
        return;
    }
    let Some(how) = typescript() else {
        tools::missing("node ≥ 22.6 or tsx (npm install --global tsx)", "the TypeScript reader's test");
        return;
    };
    eprintln!("TypeScript through {how}");
    holds(&js_spec("typescript.ts", ""), &REPLIES, &FIRST_TO_LAST, [3, 5, 0, 0, 0]);
}

#[test]
fn python_functions_methods_and_what_they_print_raise_and_return() {
    if !python() {
        return;
    }
    // Python's json reads NaN: {"d": nan} is {"d": null} as JSON text carries it.
    let found = [V(r#"{"a":1}"#), V(r#"{"b":2}"#), N, V(r#"{"c":[1,2]}"#), V(r#"{"d":null}"#), N, N, N];
    // The only public function defined in the module (not `loads`, which it imports).
    holds(&py_spec("py_function.py", ""), &REPLIES, &found, [4, 4, 0, 0, 0]);
    holds(&py_spec("py_function.py", ":extract_json"), &REPLIES, &found, [4, 4, 0, 0, 0]);
    // A staticmethod, and an instance method of a class made with no arguments.
    holds(&py_spec("py_method.py", ":Extractor.parse"), &REPLIES, &found, [4, 4, 0, 0, 0]);
    let whole = [V(r#"{"a":1}"#), N, N, N, V(r#"{"d":null}"#), F("returned Infinity, which JSON cannot carry"), N, N];
    holds(&py_spec("py_method.py", ":Lenient.extract"), &REPLIES, &whole, [2, 5, 0, 0, 1]);
    // What it prints never reaches the protocol, not even a line that looks like an answer.
    let printed = [
        V(r#"{"a":1}"#),
        V(r#"{"b":2}"#),
        N,
        V(r#"{"c":[1,2]}"#),
        V(r#"{"d":null}"#),
        N,
        N,
        T("JSONDecodeError: Extra data"),
    ];
    holds(&py_spec("py_printing.py", ""), &REPLIES, &printed, [4, 3, 1, 0, 0]);
    let raised = [
        V(r#"{"a":1}"#),
        V(r#"{"b":2}"#),
        T("NoJsonError: no JSON object in the reply"),
        V(r#"{"c":[1,2]}"#),
        V(r#"{"d":null}"#),
        T("NoJsonError: "),
        T("NoJsonError: "),
        T("JSONDecodeError: "),
    ];
    holds(&py_spec("py_raising.py", ""), &REPLIES, &raised, [4, 0, 4, 0, 0]);
    // Returned text is read by JSON.parse's rules in Python too: NaN is not JSON.
    let text = [
        V(r#"{"a":1}"#),
        V(r#"{"b":2}"#),
        X(""),
        V(r#"{"c":[1,2]}"#),
        X(r#"{"d": NaN}"#),
        X(""),
        X(""),
        X("{\"e\": \"x\"} and {\"f\": 1}"),
    ];
    holds(&py_spec("py_string_returning.py", ""), &REPLIES, &text, [3, 0, 0, 5, 0]);
    // Numbers that are not finite are `null` inside a value, as JSON.stringify prints them;
    // returned alone, JSON cannot carry them, and the reply says so.
    let texts = ["[NaN, 1]", "nan", "-Infinity", r#"{"x": [1e400, {"y": NaN}]}"#, "1.5"];
    let held = [
        V("[null,1]"),
        F("returned NaN, which JSON cannot carry"),
        F("returned -Infinity, which JSON cannot carry"),
        V(r#"{"x":[null,{"y":null}]}"#),
        V("1.5"),
    ];
    holds(&py_spec("py_nan.py", ""), &texts, &held, [3, 0, 0, 0, 2]);
}

#[test]
fn a_python_module_is_imported_by_its_name_from_the_working_directory() {
    if !python() {
        return;
    }
    let out = Command::new(BIN)
        .current_dir(fixture(""))
        .args(["extract", "--reader", "mine=py:py_method:Extractor.parse", "-"])
        .env("BRACEWALK_STATE_DIR", tempfile::tempdir().unwrap().path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(b"Sure: {\"a\": [1]}")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"a\":[1]}\n");
}

/// A corpus of `texts` (ids `r1`…) in `dir/logs`, scanned with `args`.
fn scan(dir: &Path, texts: &[&str], args: &[&str]) -> Output {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let lines: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}\n", serde_json::json!({"id": format!("r{}", i + 1), "text": t})))
        .collect();
    std::fs::write(logs.join("corpus.jsonl"), lines).unwrap();
    Command::new(BIN)
        .args(["scan", "--text-path", "/text", "--meta", "id=/id"])
        .args(args)
        .arg(logs.join("corpus.jsonl"))
        .env("BRACEWALK_STATE_DIR", dir.join("state"))
        .output()
        .unwrap()
}

fn differing(scan: &Json, key: &str) -> Vec<String> {
    let replies = scan["comparisons"][key]["replies"].as_array().unwrap_or_else(|| panic!("no comparison {key}"));
    replies.iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_scan_compares_what_the_callers_hold_and_runs_every_reader_given() {
    if !node() || !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let throwing = format!("throwing={}", js_spec("throwing.mjs", ""));
    let raising = format!("raising={}", py_spec("py_raising.py", ""));
    // Neither reader is named by --compare: both are run, each against the seed.
    let out = scan(
        dir.path(),
        &REPLIES,
        &["--json", "--list", "--reader", &throwing, "--reader", &raising, "--compare", "first-wins"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Json = serde_json::from_slice(&out.stdout).unwrap();
    // A throw is nothing read, as the caller that catches it holds: the readers differ
    // from the seed where it reads and they threw (r8, which the seed reads as its last
    // object), and where Python read NaN as null (r5: the seed reads nothing there).
    assert_eq!(differing(&v, "throwing"), ["r8"]);
    assert_eq!(differing(&v, "raising"), ["r5", "r8"]);
    assert_eq!((v["reader_failed"]["throwing"].clone(), v["reader_failed"]["raising"].clone()), (0.into(), 0.into()));
    assert_eq!(v["diagnostics"], 0);
    assert!(v["comparisons"]["first-wins"].is_object());
    // Nothing was written beside the corpus, and the Python module left no __pycache__.
    assert_eq!(std::fs::read_dir(dir.path().join("logs")).unwrap().count(), 1);
    assert!(!fixture("__pycache__").exists());
}

#[test]
fn what_an_extractor_prints_goes_to_its_log() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let printing = format!("printing={}", py_spec("py_printing.py", ""));
    let out = scan(dir.path(), &REPLIES[..3], &["--json", "--reader", &printing]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let log = std::fs::read_to_string(dir.path().join("state/readers/printing.log")).unwrap();
    assert!(log.contains("extracting from 8 characters\n") && log.contains("nothing found\n"), "{log}");
    assert!(log.contains(r#"{"id": "r1", "value": "not an answer"}"#), "{log}");
}

#[test]
fn extract_says_what_an_extractor_threw() {
    if !node() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |text: &str| {
        let reply = dir.path().join("reply.txt");
        std::fs::write(&reply, text).unwrap();
        Command::new(BIN)
            .args(["extract", "--reader", &format!("mine={}", js_spec("throwing.mjs", ""))])
            .arg(&reply)
            .env("BRACEWALK_STATE_DIR", dir.path().join("state"))
            .output()
            .unwrap()
    };
    let out = run("Here: {\"b\": 2}");
    assert_eq!((String::from_utf8_lossy(&out.stdout).as_ref(), out.status.code()), ("{\"b\":2}\n", Some(0)));
    let out = run("no JSON at all");
    assert_eq!((out.stdout.as_slice(), out.status.code()), (&b""[..], Some(1)), "nothing read");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err, "bracewalk: reader mine threw: SyntaxError: No JSON object found in the reply\n");
}

/// Runs `bracewalk extract --reader mine=SPEC -` with its input held open: an error that
/// comes at all comes before any reply is read. The error, and the exit status.
fn bad_spec(dir: &Path, spec: &str, env: &[(&str, &str)]) -> (String, Option<i32>) {
    let mut child = Command::new(BIN)
        .args(["extract", "--reader", &format!("mine={spec}"), "-"])
        .env("BRACEWALK_STATE_DIR", dir.join("state"))
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = child.stdin.take();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "{spec}: still waiting for its input");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(out.stdout.is_empty(), "{spec}");
    (String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code())
}

#[test]
fn a_bad_spec_is_one_error_naming_the_reader_the_file_and_the_cause_before_any_reply() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = dir.path().join("src");
    std::fs::create_dir_all(&scratch).unwrap();
    let file = |name: &str, text: &str| {
        let path = scratch.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let missing = scratch.join("missing.mjs").display().to_string();
    let mut cases: Vec<Case> = vec![
        (format!("js:{missing}"), vec![], format!("reader mine: {missing}: no such file")),
        (format!("py:{missing}.py"), vec![], format!("reader mine: {missing}.py: no such file")),
        (
            format!("py:{}", fixture("py_function.py").display()),
            vec![("BRACEWALK_PYTHON", "/nonexistent/python3")],
            "py_function.py: /nonexistent/python3 ($BRACEWALK_PYTHON) is not a program here".to_owned(),
        ),
    ];
    if runs("node", &["--version"]) {
        let syntax = file("syntax.mjs", "export function f(t) { return t +; }\n");
        let throws = file("throws.mjs", "throw new Error(\"boom at import\");\n");
        let imports = file("imports.mjs", "import x from \"no-such-package-here\";\nexport const f = () => x;\n");
        cases.extend([
            (
                format!("js:{syntax}"),
                vec![],
                format!(
                    "reader mine: {syntax}: SyntaxError: Unexpected token ';' (at {syntax}:1: export function f(t)"
                ),
            ),
            (format!("js:{throws}"), vec![], format!("reader mine: {throws}: Error: boom at import (at {throws}:1:7)")),
            (
                format!("js:{imports}"),
                vec![],
                "(node cannot find the package no-such-package-here: install it where the extractor is".to_owned(),
            ),
            (
                format!("{}#nope", js_spec("esm_named.mjs", "")),
                vec![],
                "esm_named.mjs: no function \"nope\"; its functions: extractJson".to_owned(),
            ),
            (
                js_spec("esm_default.mjs", "?unwrap=data"),
                vec![],
                "esm_default.mjs?unwrap=data: unwrap=data: not a JSON pointer (they start with /)".to_owned(),
            ),
        ]);
        // node missing: a PATH with a shell and nothing else.
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/bin/sh", bin.join("sh")).unwrap();
        let path = bin.display().to_string();
        cases.push((
            js_spec("esm_named.mjs", ""),
            vec![("PATH", path.as_str())],
            "esm_named.mjs: node is not on PATH: js: readers run with node".to_owned(),
        ));
        check_all(dir.path(), &cases);
        if typescript().is_none() {
            let ts = file("x.ts", "export const f = (t: string) => t;\n");
            let says = format!("reader mine: {ts}: node ");
            let (err, code) = bad_spec(dir.path(), &format!("js:{ts}"), &[]);
            assert_eq!(code, Some(2), "{err}");
            assert!(
                err.starts_with(&format!("bracewalk: {says}"))
                    && err.contains("use node ≥ 22.6")
                    && err.contains("install tsx"),
                "{err}"
            );
        }
    } else {
        check_all(dir.path(), &cases);
    }
    if runs("python3", &["--version"]) {
        let syntax = file("syntax.py", "def f(t):\n    return t +\n");
        let raises = file("raises.py", "raise RuntimeError('no config')\n");
        let none = file("none.py", "X = 1\n");
        let two = file("two.py", "def a(t):\n    return 1\n\ndef b(t):\n    return 2\n");
        check_all(
            dir.path(),
            &[
                (format!("py:{syntax}"), vec![], format!("reader mine: {syntax}: SyntaxError: invalid syntax")),
                (
                    format!("py:{raises}"),
                    vec![],
                    format!("reader mine: {raises}: RuntimeError: no config (at {raises}:1)"),
                ),
                (format!("py:{none}"), vec![], format!("reader mine: {none}: offers no function to call")),
                (
                    format!("py:{two}"),
                    vec![],
                    format!(
                        "reader mine: {two}: no default function and more than one: a, b; name one, as in py:{two}:a"
                    ),
                ),
                (format!("py:{two}:c"), vec![], format!("reader mine: {two}: no function \"c\"; its functions: a, b")),
                (
                    "py:no_such_module_here".to_owned(),
                    vec![],
                    "reader mine: no_such_module_here: ModuleNotFoundError: No module named 'no_such_module_here'"
                        .to_owned(),
                ),
            ],
        );
    }
}

/// A bad spec, the environment it is run in, and what its error says.
type Case<'a> = (String, Vec<(&'a str, &'a str)>, String);

/// Each bad spec exits 2 with one line that holds what it says.
fn check_all(dir: &Path, cases: &[Case]) {
    for (spec, env, says) in cases {
        let (err, code) = bad_spec(dir, spec, env);
        assert_eq!(code, Some(2), "{spec}: {err}");
        assert_eq!(err.lines().count(), 1, "{spec}: one line: {err}");
        assert!(
            err.starts_with("bracewalk: reader mine: ") && err.contains(says.as_str()),
            "{spec}: {err}\nnot: {says}"
        );
    }
}

/// What a reader of `uncarried.*` is to give of one reply.
enum Carried {
    /// This value, as `JSON.parse` reads this text.
    Value(&'static str),
    /// A value 1,500 arrays deep around `1`.
    Deep,
    /// No answer, for a reason that starts so.
    None(&'static str),
}

fn deep(v: &bracewalk::exact::value::Value, depth: usize) -> bool {
    use bracewalk::exact::value::Value;
    let mut v = v;
    for _ in 0..depth {
        match v {
            Value::Array(a) if a.len() == 1 => v = &a[0],
            _ => return false,
        }
    }
    *v == js::parse("1").unwrap()
}

/// What `definition` gives for each of `texts` is `expected`, and each reply with no answer
/// is a diagnostic.
fn carried_or_said(definition: &str, texts: &[&str], expected: &[Carried]) {
    let (given, diagnostics) = given(definition, texts);
    for ((g, want), text) in given.iter().zip(expected).zip(texts) {
        let ok = match (want, g) {
            (Carried::Value(json), Given::Read(v)) => *v == js::parse(json).unwrap(),
            (Carried::Deep, Given::Read(v)) => deep(v, 1500),
            (Carried::None(start), Given::Failed(why)) => why.starts_with(start),
            _ => false,
        };
        let shown: String = format!("{g:?}").chars().take(200).collect();
        assert!(ok, "{definition} on {text:?}: {shown}");
    }
    let failed = expected.iter().filter(|h| matches!(h, Carried::None(_))).count();
    assert_eq!(diagnostics.len(), failed, "{definition}: {diagnostics:?}");
}

/// Answers that JSON cannot carry as they are: a value 1,500 deep (as a value, and as JSON
/// text its caller parses) is carried whole; NaN and Infinity inside a
/// value are `null`, as JSON.stringify prints them; alone, a BigInt, a Map, a symbol key, a
/// key that is not a string, a cycle and an object that is not JSON are no answer, said so.
#[test]
fn every_answer_is_carried_or_said_to_be_none() {
    use Carried::{Deep, None as Said, Value as Is};
    if node() {
        let texts = ["deep", "deep text", "nan", "infinity", "inner nan", "bigint", "map", "symbol key", "cycle"];
        let expected = [
            Deep,
            Deep,
            Said("returned NaN, which JSON cannot carry"),
            Said("returned -Infinity, which JSON cannot carry"),
            Is(r#"{"a":null,"b":[null]}"#),
            Said("returned a value JSON cannot carry (TypeError: Do not know how to serialize a BigInt"),
            Said("returned a Map, which JSON cannot carry"),
            Said("returned an object with a key that is a symbol, which JSON cannot carry"),
            Said("returned a value JSON cannot carry (TypeError: Converting circular structure to JSON"),
        ];
        carried_or_said(&js_spec("uncarried.mjs", ""), &texts, &expected);
    }
    if python() {
        let texts = ["deep", "deep text", "nan", "infinity", "inner nan", "key", "big", "cycle", "object"];
        let expected = [
            Deep,
            Deep,
            Said("returned NaN, which JSON cannot carry"),
            Said("returned -Infinity, which JSON cannot carry"),
            Is(r#"{"a":null,"b":[null]}"#),
            Said("returned a key that is not a string (int 1), which JSON cannot carry"),
            Is(r#"{"n":1180591620717411303424}"#),
            Said("returned a value that holds itself, which JSON cannot carry"),
            Said("returned an object of type object, which is not JSON, which JSON cannot carry"),
        ];
        carried_or_said(&py_spec("uncarried.py", ""), &texts, &expected);
    }
}

/// Which function of which file each reader calls, and how it was found, is in the scan's
/// `--json` (`readers.NAME.calls`) and its table: a CommonJS module that exports a function
/// that is not the extractor is called, and named.
#[test]
fn the_function_a_reader_calls_is_named() {
    let mut cases = Vec::new();
    if node() {
        cases.extend([
            (js_spec("cjs_other_function.cjs", ""), "cjs_other_function.cjs", "js", "verifyReport", "default"),
            (js_spec("esm_default.mjs", ""), "esm_default.mjs", "js", "parseReply", "default"),
            (js_spec("esm_named.mjs", ""), "esm_named.mjs", "js", "extractJson", "only"),
            (js_spec("esm_named.mjs", "#extractJson"), "esm_named.mjs", "js", "extractJson", "named"),
        ]);
    }
    if python() {
        cases.extend([
            (py_spec("py_function.py", ""), "py_function.py", "py", "extract_json", "only"),
            (py_spec("py_method.py", ":Extractor.parse"), "py_method.py", "py", "Extractor.parse", "named"),
        ]);
    }
    let found = |how: &str| match how {
        "default" => "the default export (module.exports in CommonJS)",
        "only" => "the only function it offers",
        _ => "named in the spec",
    };
    for (definition, file, language, function, how) in cases {
        let dir = tempfile::tempdir().unwrap();
        let out = scan(dir.path(), &REPLIES[..1], &["--json", "--reader", &format!("mine={definition}")]);
        let v: Json = serde_json::from_slice(&out.stdout).unwrap();
        let file = fixture(file).canonicalize().unwrap().display().to_string();
        let calls = serde_json::json!({"language": language, "file": file, "function": function, "found": how});
        assert_eq!(v["readers"]["mine"]["calls"], calls, "{definition}");
        let out = scan(dir.path(), &REPLIES[..1], &["--reader", &format!("mine={definition}")]);
        let table = String::from_utf8_lossy(&out.stdout);
        let language = if language == "js" { "JavaScript" } else { "Python" };
        let target = definition.split_once(':').unwrap().1;
        let target = target.split(['#']).next().unwrap();
        let target = if language == "Python" { target.rsplit_once(':').map_or(target, |(t, _)| t) } else { target };
        let said = format!("mine calls the {language} function {function} of {target}, {}", found(how));
        assert!(table.contains(&said), "{definition}: no {said:?} in\n{table}");
    }
}

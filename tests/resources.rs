//! Bad files and resources: a reply of 200 MB on one line, a reply nested a million deep, a
//! reader's answer of 300 MiB, a file that grows while it is read. Each is read through the
//! binary and the library.
//!
//! Memory is the peak resident set the kernel counted for the command (`getrusage` of its
//! children in a fresh copy of this test binary, whose one child the command is), held to a
//! small multiple of the input. The command's allocator is told to hand freed memory back at
//! once (`MIMALLOC_PURGE_DELAY=0`): by default it keeps it a few milliseconds, which on a busy
//! machine adds up to a fifth to a peak, by chance; the test holds what the program holds.
//! Time is measured and printed, never asserted: machines that run tests are slow and busy.
//!
//! The measurements take a minute or more, so `cargo test` leaves them out (`#[ignore]`);
//! `.ci/run` runs them on the test build (the `test` profile optimizes the crate), as a step
//! of its own that prints each command's time and peak:
//!
//! ```text
//! cargo test --test resources -- --ignored --nocapture
//! ```

// Helpers outside `#[test]` fns fail the test the same way an assertion does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bracewalk::cli::explain;
use bracewalk::cli::style::Style;
use bracewalk::exact::{js, walk};
use bracewalk::logs::{self, Change, Item, LoadOptions, Loader, Reply, Tail};

const BIN: &str = env!("CARGO_BIN_EXE_bracewalk");
const MB: u64 = 1_000_000;

// ---- measuring one command -----------------------------------------------------------

/// Set in a copy of this binary that runs one command and reports on it.
const RUNNER: &str = "BRACEWALK_RESOURCES_RUN";

/// What the copy of this binary does (see [`run`]); nothing in an ordinary run.
#[test]
#[ignore = "run by the measurements, in a copy of this binary"]
fn measure_one_command() {
    let Ok(spec) = std::env::var(RUNNER) else { return };
    let spec: serde_json::Value = serde_json::from_str(&spec).unwrap();
    let path = |k: &str| PathBuf::from(spec[k].as_str().unwrap());
    let args: Vec<&str> = spec["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    let started = Instant::now();
    let status = Command::new(BIN)
        .args(&args)
        .env("MIMALLOC_PURGE_DELAY", "0")
        .stdin(Stdio::null())
        .stdout(File::create(path("out")).unwrap())
        .stderr(File::create(path("err")).unwrap())
        .status()
        .unwrap();
    let secs = started.elapsed().as_secs_f64();
    println!("MEASURED {}", serde_json::json!({"code": status.code(), "secs": secs, "peak_kb": children_peak_kb()}));
}

/// The largest resident set of this process's children that have been waited for, in KB.
#[cfg(target_os = "linux")]
fn children_peak_kb() -> Option<u64> {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_CHILDREN).ok().and_then(|u| u64::try_from(u.max_rss()).ok())
}

#[cfg(not(target_os = "linux"))]
fn children_peak_kb() -> Option<u64> {
    None
}

/// What one command did.
struct Run {
    label: String,
    code: Option<i32>,
    /// Its standard output, in a file.
    out: PathBuf,
    err: String,
    /// Its peak resident set in bytes, where the platform says.
    peak: Option<u64>,
    secs: f64,
}

impl Run {
    fn stdout(&self) -> String {
        fs::read_to_string(&self.out).unwrap()
    }

    /// Holds the peak to `times` the input plus a fixed base (the program, its tables).
    fn within(&self, times: u64, input: u64) -> &Run {
        if let Some(peak) = self.peak {
            let bound = times * input + 64 * MB;
            assert!(
                peak <= bound,
                "{}: peak {} MB over {} MB ({times}x {} MB + 64 MB)",
                self.label,
                peak / MB,
                bound / MB,
                input / MB
            );
        }
        self
    }
}

/// Runs `bracewalk ARGS` with its output in `outs`, and measures it.
fn run(outs: &Path, label: &str, args: &[&str]) -> Run {
    let out = outs.join(format!("{label}.out"));
    let err = outs.join(format!("{label}.err"));
    let spec = serde_json::json!({"args": args, "out": out, "err": err});
    let runner = Command::new(std::env::current_exe().unwrap())
        .args(["measure_one_command", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(RUNNER, spec.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&runner.stdout);
    // The harness may print the test's name on the same line first.
    let line = stdout.lines().find_map(|l| l.split_once("MEASURED ")).unwrap_or_else(|| panic!("{label}: {stdout}")).1;
    let m: serde_json::Value = serde_json::from_str(line).unwrap();
    let run = Run {
        label: label.to_owned(),
        code: m["code"].as_i64().map(|c| c as i32),
        out,
        err: fs::read_to_string(&err).unwrap(),
        peak: m["peak_kb"].as_u64().map(|kb| kb * 1024),
        secs: m["secs"].as_f64().unwrap(),
    };
    let peak = run.peak.map_or_else(|| "?".to_owned(), |p| format!("{} MB", p / MB));
    eprintln!("{label:<40} {:>7.2} s  peak {peak:>8}  exit {:?}", run.secs, run.code);
    run
}

/// A scratch directory with `in/`, where a measurement's inputs go, and `out/`, where its
/// commands' outputs go ([`run`]); both gone when the first of the three is dropped, so a
/// test keeps it bound (`_dir`) to its end.
fn workspace() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (input, outs) = (dir.path().join("in"), dir.path().join("out"));
    fs::create_dir(&input).unwrap();
    fs::create_dir(&outs).unwrap();
    (dir, input, outs)
}

// ---- a reply of 200 MB on one line ---------------------------------------------------

const BIG: usize = 200_000_000;

/// A reply of `size` bytes or a little more, on one line: the JSON envelope a pipeline asks
/// for, its `html` a page of escaped quotes, tabs and newlines, braces and accents.
fn envelope(size: usize) -> String {
    let unit = r#"<p class=\"x\">Lorem ipsum {dolor} sit amet, café — naïve\tline \"q\"</p>\n"#;
    let (head, tail) = (r#"{"html":""#, r#"","log":"ok"}"#);
    let n = (size - head.len() - tail.len()).div_ceil(unit.len());
    let mut s = String::with_capacity(head.len() + n * unit.len() + tail.len());
    s.push_str(head);
    s.push_str(&unit.repeat(n));
    s.push_str(tail);
    s
}

fn agent_call(image: &str, output: &str) -> String {
    let mut line = format!(
        r#"{{"ts":"2025-06-01T10:00:00Z","type":"agent_call","agent":"page.md","phase":"extraction","image":"{image}","output":"#
    );
    line.push_str(&serde_json::to_string(output).unwrap());
    line.push_str("}\n");
    line
}

/// Whether two files hold the same bytes, compared a megabyte at a time.
fn same_bytes(a: &Path, b: &Path) -> bool {
    let (mut a, mut b) = (BufReader::with_capacity(1 << 20, File::open(a).unwrap()), File::open(b).unwrap());
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let n = {
            let buf = a.fill_buf().unwrap();
            if buf.is_empty() {
                return b.read(&mut chunk).unwrap() == 0;
            }
            if b.read_exact(&mut chunk[..buf.len()]).is_err() || chunk[..buf.len()] != *buf {
                return false;
            }
            buf.len()
        };
        a.consume(n);
    }
}

/// A 200 MB reply on one line, twice: as a file of its own (the JSON envelope, read whole),
/// and on a line of a run log between two small ones, after a few words of prose (so the walk
/// reads it, its one candidate three ways). Every command loads it and reads it, in a small
/// multiple of its size.
#[test]
#[ignore = "a minute or more: cargo test --test resources -- --ignored --nocapture"]
fn a_reply_of_200_mb_on_one_line_is_read_in_a_small_multiple_of_its_size() {
    let (_dir, input, outs) = workspace();
    fs::create_dir(input.join("run")).unwrap();
    let text = envelope(BIG);
    let size = text.len() as u64;
    let reply = input.join("reply.txt");
    fs::write(&reply, &text).unwrap();
    let log = input.join("run/log.jsonl");
    let mut w = std::io::BufWriter::new(File::create(&log).unwrap());
    w.write_all(agent_call("d-p1.png", "{\"html\": \"<p>one</p>\"}").as_bytes()).unwrap();
    w.write_all(agent_call("d-p2.png", &format!("Here is the page: {text} Done.")).as_bytes()).unwrap();
    w.write_all(agent_call("d-p3.png", "{\"html\": \"<p>three</p>\"}").as_bytes()).unwrap();
    w.into_inner().unwrap().sync_all().unwrap();
    // What extract prints is the envelope as JSON.stringify writes it: the reply itself.
    let expected = outs.join("expected.json");
    fs::write(&expected, format!("{text}\n")).unwrap();
    let tail_of_text = text[text.len() - 200..].to_owned();
    drop(text);
    let (reply_s, input_s, line2) = (reply.to_str().unwrap(), input.to_str().unwrap(), format!("{}:2", log.display()));

    let r = run(&outs, "list --json (200 MB twice)", &["list", "--json", input_s]);
    r.within(5, size);
    assert_eq!(r.code, Some(0), "{}", r.err);
    let listed: Vec<(String, u64)> = r
        .stdout()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let source = PathBuf::from(v["source"].as_str().unwrap());
            (format!("{}:{}", source.strip_prefix(&input).unwrap().display(), v["line"]), v["bytes"].as_u64().unwrap())
        })
        .collect();
    let prose = size + "Here is the page:  Done.".len() as u64;
    let expected_list =
        [("reply.txt:null", size), ("run/log.jsonl:1", 22), ("run/log.jsonl:2", prose), ("run/log.jsonl:3", 24)];
    assert_eq!(listed, expected_list.map(|(a, b)| (a.to_owned(), b)));

    let r = run(&outs, "extract log.jsonl:2 (200 MB)", &["extract", &line2]);
    r.within(5, size);
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(same_bytes(&r.out, &expected), "the value printed is the envelope");
    fs::remove_file(&r.out).unwrap();

    let r = run(&outs, "explain log.jsonl:2 (200 MB)", &["explain", &line2]);
    r.within(5, size);
    let printed = r.stdout();
    assert!(printed.contains("walk 1 `{` visited") && printed.contains("decided by last-wins"), "{printed}");
    assert!(printed.contains("value {html: ") && printed.contains("log: \"ok\"}"), "{printed}");

    let r = run(&outs, "explain --json reply.txt (200 MB)", &["explain", "--json", reply_s]);
    r.within(5, size);
    assert_eq!(r.code, Some(0), "{}", r.err);
    let mut head = vec![0u8; 4096];
    let n = File::open(&r.out).unwrap().read(&mut head).unwrap();
    let head = String::from_utf8_lossy(&head[..n]).into_owned();
    let (decision, _) = head.split_once(",\"value\":").unwrap();
    let decision: serde_json::Value = serde_json::from_str(&format!("{decision}}}")).unwrap();
    assert_eq!(
        (decision["reply"]["bytes"].as_u64(), decision["decided_by"].as_str()),
        (Some(size), Some("whole-text"))
    );
    let mut end = vec![0u8; 202];
    let mut f = File::open(&r.out).unwrap();
    std::io::Seek::seek(&mut f, std::io::SeekFrom::End(-202)).unwrap();
    f.read_exact(&mut end).unwrap();
    assert_eq!(String::from_utf8(end).unwrap(), format!("{tail_of_text}}}\n"), "the value closes the trace");
    fs::remove_file(&r.out).unwrap();

    // Every reader on both; the loader reads the second while the first is being scanned.
    let r = run(&outs, "scan --json (200 MB twice)", &["scan", "--json", input_s]);
    r.within(5, 2 * size);
    let scan: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!((scan["replies"].as_u64(), scan["diagnostics"].as_u64()), (Some(4), Some(0)));
    assert_eq!(
        (scan["decided_by"]["whole-text"].as_u64(), scan["decided_by"]["last-wins"].as_u64()),
        (Some(3), Some(1))
    );

    // A reader that goes away after the first bytes of a 200 MB answer ends it quietly.
    let mut child =
        Command::new(BIN).args(["extract", reply_s]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = [0u8; 9];
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    assert_eq!((&first, done.status.code()), (b"{\"html\":\"", Some(0)), "{}", String::from_utf8_lossy(&done.stderr));
    assert!(done.stderr.is_empty(), "{}", String::from_utf8_lossy(&done.stderr));

    // The library, as the inspector and a program use it.
    let started = Instant::now();
    let mut replies: Vec<Reply> = Vec::new();
    logs::load(std::slice::from_ref(&input), &LoadOptions::default(), &mut |item| match item {
        Item::Reply(r) => replies.push(r),
        other => panic!("{other:?}"),
    });
    assert_eq!(replies.iter().map(|r| r.text.len() as u64).collect::<Vec<_>>(), [size, 22, prose, 24]);
    let trace = walk::trace(&replies[2].text);
    assert_eq!((trace.decided_by.name(), trace.candidates.len()), ("last-wins", 1));
    assert!(explain::render_text(&replies[2].text, &trace, &Style::plain()).contains("decided by last-wins"));
    drop(trace);
    let value = walk::extract_json(&replies[0].text).unwrap();
    assert_eq!(value.as_object().unwrap().get("log").unwrap().to_json(), "\"ok\"");
    eprintln!("{:<40} {:>7.2} s", "library: load, trace, extract (200 MB)", started.elapsed().as_secs_f64());
}

// ---- a reply nested a million deep ---------------------------------------------------

const DEPTH: usize = 1_000_000;

fn message(text: &str) -> String {
    let text = serde_json::to_string(text).unwrap();
    format!(r#"{{"type":"message","role":"assistant","content":[{{"type":"text","text":{text}}}]}}"#) + "\n"
}

/// `{"a":` a million times, closed or not, and `[` a million times: as reply files, as JSON
/// documents, as the text of a reply on a line of a log, and as the lines of a log
/// themselves. Nothing overflows its stack; every command says what it made of them, in
/// memory linear in the reply (a value nested deep costs a container and a key per level,
/// some 40 bytes for each 6 of `{"a":…}`).
#[test]
#[ignore = "a minute or more: cargo test --test resources -- --ignored --nocapture"]
fn a_reply_nested_a_million_deep_is_read_by_every_command_without_overflowing() {
    let (_dir, input, outs) = workspace();
    let open = "{\"a\":".repeat(DEPTH);
    let closed = format!("{open}1{}", "}".repeat(DEPTH));
    let arrays = "[".repeat(DEPTH);
    let write = |name: &str, text: &str| fs::write(input.join(name), text).unwrap();
    write("open.txt", &open);
    write("closed.txt", &closed);
    write("arrays.txt", &arrays);
    write("closed.json", &closed);
    write("arrays.json", &arrays);
    write("texts.jsonl", &[message(&open), message(&arrays), message(&closed)].concat());
    write("lines.jsonl", &format!("{open}\n{arrays}\n{}", message("after them")));
    let p = |name: &str| input.join(name).display().to_string();
    let size = closed.len() as u64;
    let bounded = |label: &str, args: &[&str]| {
        let r = run(&outs, label, args);
        r.within(64, size);
        r
    };

    // Loaded: each deep reply file and text, and a diagnostic for each deep JSON document or
    // line, which serde_json's recursion limit refuses.
    let r = bounded("list --json (deep)", &["list", "--json", input.to_str().unwrap()]);
    assert_eq!(r.code, Some(1), "{}", r.err);
    let mut seen: Vec<String> = r
        .stdout()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let at = format!(
                "{}:{}",
                Path::new(v["source"].as_str().unwrap()).file_name().unwrap().to_str().unwrap(),
                v["line"]
            );
            match v["diagnostic"].as_str() {
                Some(d) => format!("{at} {d}"),
                None => format!("{at} {} bytes", v["bytes"]),
            }
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            "arrays.json:1 not JSON: recursion limit exceeded at column 128",
            "arrays.txt:null 1000000 bytes",
            "closed.json:1 not JSON: recursion limit exceeded at column 636",
            "closed.txt:null 6000001 bytes",
            "lines.jsonl:1 not JSON: recursion limit exceeded at column 636",
            "lines.jsonl:2 not JSON: recursion limit exceeded at column 128",
            "lines.jsonl:3 10 bytes",
            "open.txt:null 5000000 bytes",
            "texts.jsonl:1 5000000 bytes",
            "texts.jsonl:2 1000000 bytes",
            "texts.jsonl:3 6000001 bytes",
        ]
    );

    // extract: nothing reads in an unclosed one; the closed one is its own answer.
    for (label, reply, code) in [
        ("extract open.txt", p("open.txt"), 1),
        ("extract arrays.txt", p("arrays.txt"), 1),
        ("extract closed.txt", p("closed.txt"), 0),
        ("extract texts.jsonl:3", format!("{}:3", p("texts.jsonl")), 0),
        ("extract closed.json", p("closed.json"), 0),
    ] {
        let r = bounded(label, &["extract", &reply]);
        assert_eq!(r.code, Some(code), "{label}: {}", r.err);
        if code == 0 {
            assert_eq!(r.stdout(), format!("{closed}\n"), "{label}");
        }
    }
    let r = bounded("extract lines.jsonl:1", &["extract", &format!("{}:1", p("lines.jsonl"))]);
    assert_eq!(r.code, Some(2));
    assert!(
        r.err.trim_end().ends_with("no reply on that line: not JSON: recursion limit exceeded at column 636"),
        "{}",
        r.err
    );

    // explain: the walk visits every `{` and records the first few; its JSON nests as deep as
    // the answer, so it is read back with bracewalk's own parser.
    let r = bounded("explain open.txt", &["explain", &p("open.txt")]);
    let printed = r.stdout();
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(printed.contains("walk 1,000,000 `{` visited"), "{printed}");
    assert!(printed.contains("walked but not recorded") && printed.contains("decided by none"), "{printed}");
    let r = bounded("explain --json open.txt", &["explain", "--json", &p("open.txt")]);
    let trace = js::parse(r.stdout().trim_end()).unwrap();
    let trace = trace.as_object().unwrap();
    let recorded = trace.get("candidates").unwrap().as_array().unwrap().len();
    let unrecorded = trace.get("unrecorded").unwrap().as_object().unwrap().get("count").unwrap().to_json();
    assert_eq!(recorded + unrecorded.parse::<usize>().unwrap(), DEPTH);
    assert_eq!(trace.get("decided_by").unwrap().to_json(), "\"none\"");
    for (label, reply, decided) in
        [("explain closed.txt", p("closed.txt"), "whole-text"), ("explain arrays.txt", p("arrays.txt"), "none")]
    {
        let r = bounded(label, &["explain", &reply]);
        assert!(r.stdout().contains(&format!("decided by {decided}")), "{label}: {}", r.stdout());
        let r = bounded(&format!("{label} --json"), &["explain", "--json", &reply]);
        let trace = js::parse(r.stdout().trim_end()).unwrap();
        assert_eq!(
            trace.as_object().unwrap().get("decided_by").unwrap().to_json(),
            format!("\"{decided}\""),
            "{label}"
        );
        if decided == "whole-text" {
            assert_eq!(trace.as_object().unwrap().get("value").unwrap().to_json(), closed, "{label}");
        }
    }

    // scan: every reader, every what-if, on each kind of deep reply (the lines of the logs
    // hold the same texts).
    let files = ["open.txt", "closed.txt", "arrays.txt", "closed.json"].map(p);
    let args = [&["scan", "--json"], files.each_ref().map(String::as_str).as_slice()].concat();
    // Replies are scanned in parallel: as many at once as there are cores.
    let scanned: u64 = files.iter().map(|f| fs::metadata(f).unwrap().len()).sum();
    let r = run(&outs, "scan --json (deep)", &args);
    r.within(64, scanned);
    assert_eq!(r.code, Some(1), "{}", r.err);
    let scan: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!((scan["replies"].as_u64(), scan["diagnostics"].as_u64()), (Some(3), Some(1)));
    assert_eq!((scan["decided_by"]["whole-text"].as_u64(), scan["decided_by"]["none"].as_u64()), (Some(1), Some(2)));

    // The library: the inspector's analysis of the deepest walk and the deepest value (the
    // value dropped without recursing).
    let started = Instant::now();
    for text in [&open, &closed] {
        let detail =
            bracewalk::analysis::detail::detail(text.as_str().into(), false, &bracewalk::analysis::Config::default());
        assert!(detail.trace.visited() == DEPTH || detail.trace.value.is_some());
    }
    eprintln!("{:<40} {:>7.2} s", "library: inspector analysis (deep)", started.elapsed().as_secs_f64());
}

// ---- large documents, read a record at a time --------------------------------------

const RECORDS: usize = 12_000;

/// A Gemini response of some 4 kB, the `n`-th.
fn gemini(n: usize) -> serde_json::Value {
    let text =
        format!("{{\"html\": \"<p>{}</p>\"}}", format!("row {n} with \\\"quotes\\\" and {{braces}} ").repeat(90));
    serde_json::json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "plan", "thought": true}, {"text": text}]},
                       "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 3000, "candidatesTokenCount": 900},
                       "modelVersion": "gemini-2.5-flash", "responseId": format!("r{n}")})
}

/// Some 50 MB of responses three ways: a pretty-printed JSON array of them (`jq .` of a
/// list), a JSONL file (batch output lines), and an Inspect `.json` log whose samples hold
/// them. Each is read a record at a time: the peak is the program and a few records, not the
/// file.
#[test]
#[ignore = "a minute or more: cargo test --test resources -- --ignored --nocapture"]
fn a_large_document_or_jsonl_file_is_read_in_the_memory_of_a_few_records() {
    let (_dir, input, outs) = workspace();
    let largest = serde_json::to_string_pretty(&gemini(RECORDS)).unwrap().len() as u64;

    let array = input.join("responses.json");
    let mut w = std::io::BufWriter::new(File::create(&array).unwrap());
    w.write_all(b"[\n").unwrap();
    for n in 0..RECORDS {
        let sep = if n + 1 == RECORDS { "\n" } else { ",\n" };
        w.write_all(serde_json::to_string_pretty(&gemini(n)).unwrap().as_bytes()).unwrap();
        w.write_all(sep.as_bytes()).unwrap();
    }
    w.write_all(b"]\n").unwrap();
    w.into_inner().unwrap().sync_all().unwrap();

    let lines = input.join("batch.jsonl");
    let mut w = std::io::BufWriter::new(File::create(&lines).unwrap());
    for n in 0..RECORDS {
        let line = serde_json::json!({"key": format!("k{n}"), "response": gemini(n)});
        writeln!(w, "{line}").unwrap();
    }
    w.into_inner().unwrap().sync_all().unwrap();

    let log = input.join("eval-log.json");
    let mut w = std::io::BufWriter::new(File::create(&log).unwrap());
    // Indented as Inspect writes it: the header on lines of its own, then the samples.
    write!(w, "{{\n  \"version\": 2,\n  \"status\": \"success\", \"eval\": {{\"task\": \"t\", \"model\": \"m\"}}, \"results\": {{\"stderr\": NaN}}, \"samples\": [").unwrap();
    for n in 0..RECORDS {
        let text = gemini(n)["candidates"][0]["content"]["parts"][1]["text"].clone();
        let sample = serde_json::json!({"id": n, "epoch": 1, "output": {"completion": text, "choices": [{"stop_reason": "stop"}]}});
        write!(w, "{}{sample}", if n == 0 { "" } else { "," }).unwrap();
    }
    write!(w, "]}}").unwrap();
    w.into_inner().unwrap().sync_all().unwrap();

    for (label, path) in [
        ("list --json (a 50 MB JSON array)", &array),
        ("list --json (50 MB of JSONL)", &lines),
        ("list --json (a 50 MB Inspect log)", &log),
    ] {
        let size = fs::metadata(path).unwrap().len();
        assert!(size > 40 * MB, "{size}");
        let r = run(&outs, label, &["list", "--json", path.to_str().unwrap()]);
        // The program and its tables, and a few records: nothing that grows with the file.
        r.within(64, largest);
        assert_eq!(r.code, Some(0), "{label}: {}", r.err);
        let listed = r.stdout().lines().count();
        assert_eq!(listed, RECORDS, "{label}");
        fs::remove_file(&r.out).unwrap();
    }
}

// ---- a reader's answer of 300 MiB ---------------------------------------------------

/// An extractor in JavaScript and one in Python that return, for the reply `huge`, an object
/// whose one string is 300 MiB (`tests/readers/uncarried.*`): the answer is carried across
/// whole, its string's length what the extractor made, never dropped as if it read nothing.
/// Node and Python must be there: CI installs them, and a missing one fails this test.
#[test]
#[ignore = "a minute or more: cargo test --test resources -- --ignored --nocapture"]
fn a_readers_answer_holding_a_300_mib_string_is_carried_whole() {
    let (_dir, input, outs) = workspace();
    let reply = input.join("huge.txt");
    fs::write(&reply, "huge").unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/readers");
    let size: u64 = 300 << 20;
    for (language, file) in [("js", "uncarried.mjs"), ("py", "uncarried.py")] {
        let reader = format!("big={language}:{}", fixtures.join(file).display());
        let run = run(
            &outs,
            &format!("explain, {language}: reader of 300 MiB"),
            &["explain", "--reader", &reader, reply.to_str().unwrap()],
        );
        assert_eq!(run.code, Some(0), "{language}: {}", run.err);
        let out = run.stdout();
        assert!(
            out.lines().any(|l| l.trim() == "big {s: 314,572,800 chars}"),
            "{language}: the answer, its string whole:\n{out}"
        );
        assert!(out.contains("value {s} → null (lost)"), "{language}: compared with the seed:\n{out}");
        // The answer's text, the value made of it, and the reader's own copy in flight.
        run.within(5, size);
    }
}

// ---- a file that grows while it is read ------------------------------------------------

/// A run log the pipeline is still writing: a writer appends whole lines (each in one write,
/// which a reader may still see half done) while the loader, `list` and a tail read it.
/// No read reports a torn line, as a reply or a problem; each sees the lines in order, from
/// the first, with none missing; the tail, read once more after the writer stops, has had
/// every line exactly once.
#[test]
fn a_run_log_that_grows_while_it_is_read_loses_no_line_and_tears_none() {
    const LINES: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    fs::create_dir(&run_dir).unwrap();
    let log = run_dir.join("log.jsonl");
    let line = |i: usize| agent_call(&format!("d-p{i}.png"), &format!("reply {i} {}", "ab\"c\n".repeat(i * 37 % 1500)));
    let first = 50;
    fs::write(&log, (0..first).map(line).collect::<String>()).unwrap();
    let number = |text: &str| -> usize {
        let n = text.strip_prefix("reply ").and_then(|t| t.split(' ').next()).and_then(|n| n.parse().ok());
        let n = n.unwrap_or_else(|| panic!("not a reply this test wrote: {:?}", &text[..text.len().min(40)]));
        assert_eq!(text, format!("reply {n} {}", "ab\"c\n".repeat(n * 37 % 1500)), "reply {n} whole");
        n
    };

    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (log, done) = (log.clone(), done.clone());
        std::thread::spawn(move || {
            let mut f = fs::OpenOptions::new().append(true).open(&log).unwrap();
            for i in first..LINES {
                f.write_all(line(i).as_bytes()).unwrap();
                if i % 4 == 0 {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            done.store(true, Ordering::SeqCst);
        })
    };

    let loader = Arc::new(Loader::new(LoadOptions::default()));
    let mut tail = Tail::new(&log, loader.clone());
    let mut tailed = Vec::new();
    let mut read_tail = |tail: &mut Tail| {
        tail.read_new(&mut |c| match c {
            Change::Item(Item::Reply(r)) => tailed.push(number(&r.text)),
            Change::Amended { .. } => {}
            other => panic!("the tail: {other:?}"),
        })
    };
    let (mut loads, mut lists) = (0, 0);
    while !done.load(Ordering::SeqCst) {
        read_tail(&mut tail);
        // The library: a prefix of the lines, in order.
        let mut got = Vec::new();
        loader.load_file(&log, &mut |item| match item {
            Item::Reply(r) => got.push(number(&r.text)),
            other => panic!("the loader: {other:?}"),
        });
        assert_eq!(got, (0..got.len()).collect::<Vec<_>>(), "the loader reads the lines in order");
        assert!(got.len() >= first);
        loads += 1;
        // The binary, likewise, and with nothing to complain of.
        let out = Command::new(BIN).args(["list", "--json"]).arg(&log).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
        let lines: Vec<u64> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["line"].as_u64().unwrap())
            .collect();
        assert_eq!(lines, (1..=lines.len() as u64).collect::<Vec<_>>(), "list reads the lines in order");
        lists += 1;
    }
    writer.join().unwrap();
    read_tail(&mut tail);
    assert_eq!(tailed, (0..LINES).collect::<Vec<_>>(), "the tail has had every line once, in order");
    eprintln!("grown to {LINES} lines while read: {loads} loads, {lists} lists, the tail throughout");
}

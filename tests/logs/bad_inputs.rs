//! Every kind of bad input: each gives a diagnostic that says where and what, and the good
//! reply beside it still loads.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use bracewalk::logs::{self, Diagnostic, Item, LoadOptions, Reply};

use crate::support::tools;
use crate::support::tree;

const GOOD: &str = "{\"html\": \"<p>the reply beside it</p>\", \"log\": \"ok\"}";

fn load(paths: &[&Path], opts: &LoadOptions) -> (Vec<Reply>, Vec<Diagnostic>) {
    let paths: Vec<PathBuf> = paths.iter().map(|p| p.to_path_buf()).collect();
    let (mut replies, mut diagnostics) = (Vec::new(), Vec::new());
    logs::load(&paths, opts, &mut |item| match item {
        Item::Reply(r) => replies.push(r),
        Item::Diagnostic(d) => diagnostics.push(d),
        Item::Event(_) => {}
    });
    (replies, diagnostics)
}

/// A directory holding the good reply and the bad input `name`.
fn beside(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("good.txt"), GOOD).unwrap();
    let bad = dir.path().join(name);
    fs::write(&bad, bytes).unwrap();
    (dir, bad)
}

fn good_survives(replies: &[Reply], dir: &Path) {
    let good: Vec<_> = replies.iter().filter(|r| r.source == dir.join("good.txt")).collect();
    assert_eq!(good.len(), 1, "the good reply still loads");
    assert_eq!(good[0].text, GOOD);
}

fn one(diagnostics: &[Diagnostic], kind: &str) -> Diagnostic {
    let found: Vec<_> = diagnostics.iter().filter(|d| d.problem.kind() == kind).collect();
    assert_eq!(found.len(), 1, "one {kind} diagnostic in {diagnostics:?}");
    found[0].clone()
}

#[test]
fn invalid_utf8_in_a_reply_file_is_decoded_lossily_and_said_so() {
    let (dir, bad) = beside("latin1.txt", b"{\"html\": \"<p>Caf\xe9 and na\xefve</p>\"}");
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    let d = one(&diags, "invalid-utf8");
    assert_eq!((d.source.clone(), d.offset, d.line), (bad.clone(), Some(16), None));
    assert_eq!(
        d.to_string(),
        format!(
            "{}: invalid UTF-8 at byte 16 (2 bad sequences in all); read with U+FFFD in place of the bad bytes",
            bad.display()
        )
    );
    let r = replies.iter().find(|r| r.source == bad).unwrap();
    assert_eq!(r.text, "{\"html\": \"<p>Caf\u{fffd} and na\u{fffd}ve</p>\"}");
}

#[test]
fn invalid_utf8_on_a_jsonl_line_keeps_the_record_and_its_byte_offset() {
    let line1 = "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"one\"}]}\n";
    let mut bytes = line1.as_bytes().to_vec();
    bytes.extend_from_slice(
        b"{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Fa\xe7ade\"}]}\n",
    );
    bytes.extend_from_slice(line1.as_bytes());
    let (dir, bad) = beside("responses.jsonl", &bytes);
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    let d = one(&diags, "invalid-utf8");
    let at = line1.len() + line1.find("one").unwrap() + 2;
    assert_eq!((d.line, d.offset), (Some(2), Some(at as u64)));
    let texts: Vec<_> =
        replies.iter().filter(|r| r.source == bad).map(|r| (r.line, r.text.as_str(), r.offset)).collect();
    assert_eq!(
        texts,
        [
            (Some(1), "one", 0),
            (Some(2), "Fa\u{fffd}ade", line1.len() as u64),
            (Some(3), "one", (bytes.len() - line1.len()) as u64)
        ]
    );
}

#[test]
fn a_binary_file_is_skipped_and_listed() {
    let (dir, bad) = beside("page-017.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    fs::write(dir.path().join("core.bin"), b"ELF?\0\0\0\x01").unwrap();
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    assert_eq!(replies.len(), 1);
    let png = diags.iter().find(|d| d.source == bad).unwrap();
    assert_eq!(png.message(), "binary file (a PNG image); skipped");
    let nul = diags.iter().find(|d| d.source.ends_with("core.bin")).unwrap();
    assert_eq!(nul.message(), "binary file (it contains NUL bytes); skipped");
}

#[test]
fn a_malformed_json_line_costs_that_line_only() {
    let good = "{\"ts\":\"t\",\"type\":\"agent_call\",\"agent\":\"page.md\",\"phase\":\"extraction\",\"image\":\"d-p1.png\",\"output\":\"ok\"}\n";
    let text = format!("{good}{{\"ts\":\"t\",\"type\":\"agent_call\",\"output\":\"cut sho\n{good}");
    let (dir, bad) = beside("log.jsonl", text.as_bytes());
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    let d = one(&diags, "malformed-json");
    assert_eq!((d.source.clone(), d.line, d.offset), (bad.clone(), Some(2), Some(good.len() as u64)));
    assert_eq!(d.message(), "not JSON: EOF while parsing a string at column 47");
    let lines: Vec<_> = replies.iter().filter(|r| r.source == bad).map(|r| r.line).collect();
    assert_eq!(lines, [Some(1), Some(3)]);
}

#[test]
fn a_json_record_of_an_unknown_shape_is_named_by_its_keys() {
    let (dir, bad) = beside("export.json", b"{\"prompt\": \"p\", \"completion_text\": \"c\"}");
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    let d = one(&diags, "unknown-shape");
    assert_eq!(d.source, bad);
    assert_eq!(
        d.message(),
        "a JSON record of an unknown shape (keys completion_text, prompt); pass --text-path to read it"
    );
}

#[test]
fn an_empty_file_is_reported() {
    let (dir, bad) = beside("empty.txt", b"");
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    assert_eq!(one(&diags, "empty").source, bad);
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_broken_links_are_reported_not_followed_forever() {
    let (dir, _) = beside("x.txt", GOOD.as_bytes());
    std::os::unix::fs::symlink("self", dir.path().join("self")).unwrap();
    std::os::unix::fs::symlink(".", dir.path().join("up")).unwrap();
    std::os::unix::fs::symlink("missing", dir.path().join("dangling")).unwrap();
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    assert_eq!(replies.len(), 2);
    let kinds: Vec<_> =
        diags.iter().map(|d| (d.source.file_name().unwrap().to_str().unwrap().to_owned(), d.problem.kind())).collect();
    assert_eq!(
        kinds,
        [("dangling".into(), "broken-symlink"), ("self".into(), "symlink-loop"), ("up".into(), "symlink-loop")]
    );
    assert!(diags[2].message().contains("leads back to"), "{}", diags[2]);
}

#[test]
fn a_file_that_vanishes_between_listing_and_reading_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), GOOD).unwrap();
    fs::write(dir.path().join("b.txt"), "soon gone").unwrap();
    fs::write(dir.path().join("good.txt"), GOOD).unwrap();
    let doomed = dir.path().join("b.txt");
    let mut replies = Vec::new();
    let mut diags = Vec::new();
    // The directory is listed; b.txt goes before it is read (the files are read side by
    // side, so the reading of one cannot be told to come before another's).
    let mut found = Vec::new();
    logs::discover(&[dir.path().to_path_buf()], &mut |f| found.push(f));
    fs::remove_file(&doomed).unwrap();
    logs::Loader::new(LoadOptions::default()).load_found(&found, &mut |_, item| match item {
        Item::Reply(r) => replies.push(r),
        Item::Diagnostic(d) => diags.push(d),
        Item::Event(_) => {}
    });
    good_survives(&replies, dir.path());
    assert_eq!(replies.len(), 2);
    let d = one(&diags, "vanished");
    assert_eq!((d.source.clone(), d.message()), (doomed, "vanished between listing and reading".to_owned()));
}

#[test]
fn a_path_that_does_not_exist_is_reported_and_the_rest_loads() {
    let (dir, _) = beside("x.txt", b"x");
    let missing = dir.path().join("nope");
    let (replies, diags) = load(&[&missing, dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    assert_eq!(one(&diags, "not-found").source, missing);
}

#[test]
fn a_line_over_the_limit_is_skipped_with_its_size() {
    let msg = |t: &str| {
        format!(
            "{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{t}\"}}]}}\n"
        )
    };
    let text = format!("{}{}{}", msg("a"), msg(&"x".repeat(5000)), msg("c"));
    let (dir, bad) = beside("big.jsonl", text.as_bytes());
    let opts = LoadOptions { max_line: 1000, ..LoadOptions::default() };
    let (replies, diags) = load(&[dir.path()], &opts);
    good_survives(&replies, dir.path());
    let d = one(&diags, "line-too-long");
    assert_eq!((d.line, d.message()), (Some(2), "a line of 5075 bytes, over the 1000-byte limit; skipped".to_owned()));
    let texts: Vec<_> = replies.iter().filter(|r| r.source == bad).map(|r| (r.line, r.text.as_str())).collect();
    assert_eq!(texts, [(Some(1), "a"), (Some(3), "c")]);
}

#[test]
fn a_half_written_last_line_is_held_back_without_complaint() {
    let msg = "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}";
    let text = format!("{msg}\n{}", &msg[..40]);
    let (dir, bad) = beside("growing.jsonl", text.as_bytes());
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(replies.iter().filter(|r| r.source == bad).count(), 1);
    // A last line that is already a whole record is read though its newline is missing.
    fs::write(&bad, format!("{msg}\n{msg}")).unwrap();
    let (replies, _) = load(&[&bad], &LoadOptions::default());
    assert_eq!(replies.len(), 2);
}

#[test]
fn a_last_line_no_more_bytes_could_make_json_is_reported_not_held_back() {
    let msg = "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}";
    let (dir, bad) = beside("garbage.jsonl", format!("{msg}\nnot json").as_bytes());
    // Nested past serde_json's recursion limit, with no newline: the file was once lost whole.
    let deep = format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200));
    fs::write(dir.path().join("deep.json"), &deep).unwrap();
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    let found: Vec<_> = diags.iter().map(|d| (d.source.file_name().unwrap().to_owned(), d.line, d.message())).collect();
    assert_eq!(
        found,
        [
            ("deep.json".into(), Some(1), "not JSON: recursion limit exceeded at column 636".to_owned()),
            ("garbage.jsonl".into(), Some(2), "not JSON: expected ident at column 2".to_owned()),
        ]
    );
    assert_eq!(replies.iter().filter(|r| r.source == bad).count(), 1);
}

#[test]
fn a_flood_of_bad_lines_is_listed_up_to_a_limit_then_counted() {
    let text = "not json\n".repeat(80);
    let (dir, bad) = beside("junk.jsonl", text.as_bytes());
    let (replies, diags) = load(&[dir.path()], &LoadOptions::default());
    good_survives(&replies, dir.path());
    let lines: Vec<_> = diags.iter().filter(|d| d.source == bad && d.problem.kind() == "malformed-json").collect();
    assert_eq!(lines.len(), 50);
    assert_eq!(
        one(&diags, "too-many-problems").message(),
        "30 more problems like these in this file, not listed one by one"
    );
}

#[test]
fn a_directory_of_10000_files_lists_them_all_in_order() {
    a_directory_of_many_files_lists_them_all_in_order(10_000);
}

/// The same at ten times the size: its cost is the file system's, creating, reading and
/// removing each file, so the suite leaves it to `.ci/run`.
#[test]
#[ignore = "the full sweep: .ci/run runs it"]
fn a_directory_of_100000_files_lists_them_all_in_order_in_full() {
    a_directory_of_many_files_lists_them_all_in_order(100_000);
}

fn a_directory_of_many_files_lists_them_all_in_order(files: usize) {
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many");
    fs::create_dir(&many).unwrap();
    for i in 0..files {
        fs::write(many.join(format!("{i:06}.txt")), format!("reply {i}")).unwrap();
    }
    fs::write(dir.path().join("good.txt"), GOOD).unwrap();
    let mut count = 0usize;
    let mut last = String::new();
    let mut in_order = true;
    let mut diags = 0;
    let mut good = 0;
    logs::load(&[dir.path().to_path_buf()], &LoadOptions::default(), &mut |item| match item {
        Item::Reply(r) if r.source.starts_with(&many) => {
            let name = r.source.file_name().unwrap().to_string_lossy().into_owned();
            in_order &= name > last;
            last = name;
            count += 1;
        }
        Item::Reply(r) => good += usize::from(r.text == GOOD),
        _ => diags += 1,
    });
    assert_eq!((count, good, diags, in_order), (files, 1, 0, true));
}

/// Root reads every file, so the denied read is made as `nobody` through the binary.
#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_read_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(dir.path().join("good.txt"), GOOD).unwrap();
    let secret = dir.path().join("secret.txt");
    fs::write(&secret, "{}").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let is_root = fs::read(&secret).is_ok();
    let output = if is_root {
        match Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", bin, "list", "--json"])
            .arg(dir.path())
            .output()
        {
            Ok(o) if o.status.code().is_some() && !String::from_utf8_lossy(&o.stderr).contains("setpriv") => o,
            _ => {
                // The unit test of the loader's permission problem still runs.
                tools::missing(
                    "setpriv (util-linux), to read as nobody when run as root",
                    "the unreadable file's part",
                );
                return;
            }
        }
    } else {
        Command::new(bin).args(["list", "--json"]).arg(dir.path()).output().unwrap()
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let denied: Vec<_> = lines.iter().filter(|l| l["kind"] == "permission-denied").collect();
    assert_eq!(denied.len(), 1, "{stdout}");
    assert_eq!(denied[0]["diagnostic"], "permission denied");
    assert_eq!(denied[0]["source"], secret.display().to_string());
    assert!(lines.iter().any(|l| l["id"].as_str().is_some_and(|id| id.ends_with("good.txt"))), "{stdout}");
    assert_eq!(output.status.code(), Some(1));
}

// ---- every bad case in one tree -------------------------------------------------------

/// Good replies of every format the samples hold: a bench campaign (ledger, run logs, the
/// files a run leaves beside its log), API responses of each provider, plain reply files.
fn good_tree(root: &Path) {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    for part in ["round-4", "formats/anthropic", "formats/bedrock", "formats/openai", "formats/replies"] {
        tree::copy(&samples.join(part), &root.join(part));
    }
}

/// What was loaded from each file (relative to `root`), one line per item, as the library
/// pushed it and as `list --json` prints it.
#[derive(Default, Debug)]
struct Seen {
    /// Replies and events in full (text and metadata), the root written `<root>`.
    full: std::collections::BTreeMap<String, Vec<String>>,
    /// Per item: `reply ID BYTES` or `event ID KIND`, and each diagnostic's kind, by file
    /// and line: what the library and the binary are compared on.
    short: Vec<(String, Option<usize>, String)>,
    /// Diagnostics as printed.
    printed: Vec<String>,
}

fn rel(p: &Path, root: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).to_string_lossy().into_owned()
}

impl Seen {
    fn push(&mut self, item: Item, root: &Path) {
        let root_str = root.to_string_lossy().into_owned();
        match item {
            Item::Reply(r) => {
                let file = rel(&r.source, root);
                self.short.push((file.clone(), r.line, format!("reply {} {}", r.id, r.text.len())));
                self.full.entry(file).or_default().push(format!("{r:?}").replace(&root_str, "<root>"));
            }
            Item::Event(e) => {
                let file = rel(&e.source, root);
                self.short.push((file.clone(), e.line, format!("event {} {}", e.id, e.kind.name())));
                self.full.entry(file).or_default().push(format!("{e:?}").replace(&root_str, "<root>"));
            }
            Item::Diagnostic(d) => {
                self.short.push((rel(&d.source, root), d.line, d.problem.kind().to_owned()));
                self.printed.push(d.to_string());
            }
        }
    }

    fn replies(&self, file: &str) -> usize {
        self.short.iter().filter(|(f, _, w)| f == file && w.starts_with("reply ")).count()
    }

    fn kinds(&self, file: &str) -> Vec<&str> {
        let mut kinds: Vec<&str> = self
            .short
            .iter()
            .filter(|(f, _, w)| f == file && !w.starts_with("reply ") && !w.starts_with("event "))
            .map(|(_, _, w)| w.as_str())
            .collect();
        kinds.sort_unstable();
        kinds
    }
}

fn message_line(text: &str) -> String {
    format!("{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}}\n")
}

/// The bad inputs, written into `root`; returns (file, replies it still gives, its diagnostics'
/// kinds) for each, `nope` being a path that does not exist.
fn bad_cases(root: &Path, run_dir: &Path, is_root: bool) -> Vec<(String, usize, Vec<&'static str>)> {
    let w = |name: &str, bytes: &[u8]| fs::write(root.join(name), bytes).unwrap();
    w("latin1.txt", b"{\"html\": \"<p>Caf\xe9 and na\xefve</p>\"}");
    let one = message_line("one");
    let mut responses = one.as_bytes().to_vec();
    responses.extend_from_slice(
        b"{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Fa\xe7ade\"}]}\n",
    );
    responses.extend_from_slice(one.as_bytes());
    w("responses.jsonl", &responses);
    w("page-017.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    w("core.bin", b"ELF?\0\0\0\x01");
    let call = "{\"ts\":\"t\",\"type\":\"agent_call\",\"agent\":\"page.md\",\"phase\":\"extraction\",\"image\":\"d-p1.png\",\"output\":\"ok\"}\n";
    fs::create_dir(root.join("run")).unwrap();
    fs::write(
        root.join("run/log.jsonl"),
        format!("{call}{{\"ts\":\"t\",\"type\":\"agent_call\",\"output\":\"cut sho\n{call}"),
    )
    .unwrap();
    w("export.json", b"{\"prompt\": \"p\", \"completion_text\": \"c\"}");
    w("empty.txt", b"");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("self", root.join("self")).unwrap();
        std::os::unix::fs::symlink(".", root.join("up")).unwrap();
        std::os::unix::fs::symlink("missing", root.join("dangling")).unwrap();
    }
    // One line longer than the default limit, between two that load.
    let max = LoadOptions::default().max_line;
    let mut long = fs::File::create(root.join("long-line.jsonl")).unwrap();
    {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(&mut long);
        out.write_all(message_line("a").as_bytes()).unwrap();
        out.write_all(b"{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"")
            .unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..=max >> 20 {
            out.write_all(&chunk).unwrap();
        }
        out.write_all(b"\"}]}\n").unwrap();
        out.write_all(message_line("c").as_bytes()).unwrap();
    }
    let done = message_line("done");
    w("growing.jsonl", format!("{done}{}", &done[..40]).as_bytes());
    w("junk.jsonl", "not json\n".repeat(80).as_bytes());
    w("secret.txt", b"{}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(root.join("secret.txt"), fs::Permissions::from_mode(0o000)).unwrap();
    }
    fs::create_dir(root.join("vanish")).unwrap();
    w("vanish/a.txt", GOOD.as_bytes());
    w("vanish/b.txt", b"soon gone");
    // Bad files inside a campaign, beside its ledger and inside a run's directory.
    w("round-4/empty.txt", b"");
    fs::write(run_dir.join("page-017.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    fs::write(run_dir.join("notes.jsonl"), format!("{}{{\"cut\n", message_line("note"))).unwrap();
    let run_rel = rel(run_dir, root);

    let mut junk = vec!["malformed-json"; 50];
    junk.push("too-many-problems");
    vec![
        ("latin1.txt".into(), 1, vec!["invalid-utf8"]),
        ("responses.jsonl".into(), 3, vec!["invalid-utf8"]),
        ("page-017.png".into(), 0, vec!["binary"]),
        ("core.bin".into(), 0, vec!["binary"]),
        ("run/log.jsonl".into(), 2, vec!["malformed-json"]),
        ("export.json".into(), 0, vec!["unknown-shape"]),
        ("empty.txt".into(), 0, vec!["empty"]),
        ("self".into(), 0, vec!["symlink-loop"]),
        ("up".into(), 0, vec!["symlink-loop"]),
        ("dangling".into(), 0, vec!["broken-symlink"]),
        ("nope".into(), 0, vec!["not-found"]),
        ("long-line.jsonl".into(), 2, vec!["line-too-long"]),
        ("growing.jsonl".into(), 1, vec![]),
        ("junk.jsonl".into(), 0, junk),
        ("secret.txt".into(), usize::from(is_root), if is_root { vec![] } else { vec!["permission-denied"] }),
        ("vanish/a.txt".into(), 1, vec![]),
        ("vanish/b.txt".into(), 0, vec!["vanished"]),
        ("round-4/empty.txt".into(), 0, vec!["empty"]),
        (format!("{run_rel}/page-017.png"), 0, vec!["binary"]),
        (format!("{run_rel}/notes.jsonl"), 1, vec!["malformed-json"]),
    ]
}

/// Every bad case above in one tree, side by side with good replies of every format (some
/// of the bad files inside a bench campaign's directories): every good reply loads exactly as
/// it does alone, and every bad file has its diagnostics and nothing else, through the library,
/// `list --json` and `scan --json`.
#[test]
fn a_tree_of_every_bad_case_beside_good_replies_loses_no_good_reply_and_names_every_bad_file() {
    let alone = tempfile::tempdir().unwrap();
    good_tree(alone.path());
    let mut good = Seen::default();
    logs::load(&[alone.path().to_path_buf()], &LoadOptions::default(), &mut |i| good.push(i, alone.path()));
    assert!(good.printed.is_empty(), "the good replies load cleanly: {:?}", good.printed);
    assert!(good.full.len() >= 15 && good.replies("round-4/3f1c9a0e7b2d4c58/log.jsonl") > 10, "{:?}", good.full.keys());

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    good_tree(root);
    let is_root = fs::read("/proc/self/status").is_ok_and(|s| s.windows(7).any(|w| w == b"Uid:\t0\t"));
    let expected = bad_cases(root, &root.join("round-4/3f1c9a0e7b2d4c58"), is_root);
    let paths = [root.to_path_buf(), root.join("nope")];

    // The library, with a file vanishing between the listing of its directory and its reading.
    let mut seen = Seen::default();
    let mut found = Vec::new();
    logs::discover(&paths, &mut |f| found.push(f));
    fs::remove_file(root.join("vanish/b.txt")).unwrap();
    logs::Loader::new(LoadOptions::default()).load_found(&found, &mut |_, item| seen.push(item, root));
    for (file, items) in &good.full {
        assert_eq!(seen.full.get(file), Some(items), "{file} loads as it does alone");
    }
    for (file, replies, kinds) in &expected {
        assert_eq!((seen.replies(file), seen.kinds(file)), (*replies, kinds.clone()), "{file}");
    }
    let known = |f: &str| good.full.contains_key(f) || expected.iter().any(|(e, _, _)| e == f);
    let strays: Vec<_> = seen.short.iter().filter(|(f, _, _)| !known(f)).collect();
    assert!(strays.is_empty(), "items from no file the test made: {strays:?}");

    // The binary sees the same tree (without the file that vanished), as a user who cannot
    // read secret.txt: root reads every file, so as root it runs as `nobody`.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for d in [root.to_path_buf(), root.join("run"), root.join("vanish")] {
            fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    let bin = env!("CARGO_BIN_EXE_bracewalk");
    let as_user = |args: &[&str]| {
        let mut cmd = if is_root {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
            c
        } else {
            Command::new(bin)
        };
        // A path given that does not exist stops a command (below): the binary reads the tree.
        let out = cmd.args(args).arg(root).output().unwrap();
        assert!(!String::from_utf8_lossy(&out.stderr).contains("setpriv"), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let skip_in_binary = |f: &str| f.starts_with("vanish/") || f == "secret.txt" || f == "nope";
    let mut from_library: Vec<_> =
        seen.short.iter().filter(|(f, _, _)| !skip_in_binary(f)).map(|(f, l, w)| (f.clone(), *l, w.clone())).collect();
    from_library.sort();

    let list = as_user(&["list", "--json"]);
    assert_eq!(list.status.code(), Some(1), "some inputs had diagnostics");
    let mut from_list = Vec::new();
    let mut list_ids = Vec::new();
    let mut secret = Vec::new();
    for line in String::from_utf8(list.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = rel(Path::new(v["source"].as_str().unwrap()), root);
        let what = match (&v["kind"], &v["event"]) {
            (serde_json::Value::String(kind), _) => kind.clone(),
            (_, serde_json::Value::String(event)) => format!("event {} {event}", v["id"].as_str().unwrap()),
            _ => {
                list_ids.push(v["id"].as_str().unwrap().to_owned());
                format!("reply {} {}", v["id"].as_str().unwrap(), v["bytes"])
            }
        };
        if file == "secret.txt" {
            secret.push(what);
        } else if !skip_in_binary(&file) {
            from_list.push((file, v["line"].as_u64().map(|n| n as usize), what));
        }
    }
    from_list.sort();
    assert_eq!(from_list, from_library, "list --json reads the tree as the library does");
    assert_eq!(secret, ["permission-denied"]);
    assert!(list_ids.iter().any(|id| id.ends_with("vanish/a.txt")));

    let scan = as_user(&["scan", "--json", "--list"]);
    assert_eq!(scan.status.code(), Some(1), "some inputs had diagnostics");
    let scan: serde_json::Value = serde_json::from_slice(&scan.stdout).unwrap();
    let mut scan_ids: Vec<String> =
        scan["ids"]["replies"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
    scan_ids.sort();
    list_ids.sort();
    assert_eq!(scan_ids, list_ids, "scan reads the replies list does");
    let mut scan_diags: Vec<String> =
        scan["ids"]["diagnostics"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
    let in_binary = |d: &&String| !d.contains("/vanish/b.txt") && !d.contains("/nope:");
    let mut printed: Vec<String> = seen
        .printed
        .iter()
        .filter(in_binary)
        .cloned()
        .chain([format!("{}: permission denied", root.join("secret.txt").display())])
        .collect();
    scan_diags.sort();
    printed.sort();
    assert_eq!(scan_diags, printed, "scan names the same diagnostics");
    assert_eq!(scan["diagnostics"].as_u64(), Some(printed.len() as u64));

    // The inspector, as this user (who may read secret.txt), on the tree: its status line
    // and its summary count what the library found there.
    let found_here = seen.printed.iter().filter(in_binary).count();
    inspector_counts(root, found_here);

    // A path given that does not exist is an error: nothing is read, and stderr says why.
    for command in ["list", "scan"] {
        let out = Command::new(bin).args([command, root.to_str().unwrap(), "nope"]).current_dir(root).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(out.stdout.is_empty(), "{command} reads nothing: {}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "bracewalk: nope: no such file or directory\n", "{command}");
    }
}

/// The inspector's follower and state on `root`, every reply read: the status line and the
/// summary screen's headline give `expected` diagnostics, as `scan` counts them.
fn inspector_counts(root: &Path, expected: usize) {
    use crate::support::follower::Follower;
    use crate::support::tui_fixture::{screen, typed};
    use bracewalk::tui::watch::WatchMode;

    let mut f = Follower::with_readings(root, WatchMode::Native);
    f.until("every reply read", |s| s.list.entries().iter().all(|e| !e.is_reply() || e.complete()));
    assert_eq!(f.state.list.problems(), expected, "the problems listed");
    let status = screen(&f.state);
    let said = format!("⚠ {expected} problems, last: ");
    assert!(status.lines().any(|l| l.contains(&said)), "the status line says {said:?}:\n{status}");
    typed(&mut f.state, "S");
    let summary = screen(&f.state);
    assert!(summary.contains(&format!(", {expected} diagnostics")), "the summary's headline:\n{summary}");
}

fn fixtures(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats").join(name)
}

/// A record of no known shape offers the path of its likeliest text, the first of a file.
#[test]
fn a_record_of_no_known_shape_offers_the_path_of_its_likeliest_text_once_a_file() {
    let path = fixtures("unknown/eval-export.jsonl");
    let (replies, diags) = load(&[&path], &LoadOptions::default());
    assert!(replies.is_empty());
    let messages: Vec<_> = diags.iter().map(|d| (d.line, d.message())).collect();
    assert_eq!(
        messages,
        [
            (
                Some(1),
                "a JSON record of an unknown shape (keys note, result, run); pass --text-path /result/message/content/0/text (6,640 chars) to read it"
                    .to_owned()
            ),
            (Some(2), "a JSON record of an unknown shape (keys note, result, run); pass --text-path to read it".to_owned()),
        ]
    );
    // The path offered reads it.
    let opts = LoadOptions { text_path: Some("/result/message/content/0/text".to_owned()), ..Default::default() };
    let (read, diags) = load(&[&path], &opts);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(read.iter().map(|r| r.text.chars().count()).collect::<Vec<_>>(), [6640, 34]);
}

/// A file of no known shape that holds no reply (OpenAI's count of a request's input tokens,
/// an eval's configuration saved without its results) says so, rather than offer a pointer to
/// a type name or a prompt.
#[test]
fn a_record_with_no_reply_in_it_says_so() {
    for (name, keys) in [
        ("unknown/openai-input-tokens.json", "keys input_tokens, object"),
        ("unknown/promptfoo-without-results.json", "keys config, evalId, metadata, shareableUrl"),
    ] {
        let (replies, diags) = load(&[&fixtures(name)], &LoadOptions::default());
        assert!(replies.is_empty());
        let messages: Vec<_> = diags.iter().map(|d| (d.problem.kind(), d.message())).collect();
        assert_eq!(
            messages,
            [(
                "unknown-shape",
                format!(
                    "a JSON record of an unknown shape ({keys}); no reply in it, only ids, type names, settings or the prompt"
                )
            )],
            "{name}"
        );
    }
}

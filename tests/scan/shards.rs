//! Scanning in shards: `scan --shard I/N` covers every file once, in the walk's order, the
//! merge of the parts is one scan of the corpus (in every format, with `--accepted`, `--filter`,
//! merged again), and a merge refuses shards that would not add up to one: a shard given twice,
//! two that overlap, a gap, other options, other roots, another format or version.

// Helpers outside `#[test]` fns fail the test the same way an assertion does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value as Json;

use crate::support::binary::{BIN, state_dir};
use crate::support::campaign::{Shape, write_campaign};

/// `bracewalk ARGS` run in `cwd`.
fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("BRACEWALK_STATE_DIR", state_dir())
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A small campaign of files of uneven sizes (run logs of 1 to 9 replies of 0.2 to 9 kB, a
/// ledger and the harness's files per document), beside a long reply of its own, an empty
/// file and a file that reads nothing.
fn corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("corpus");
    for (round, replies) in [(1, 2), (2, 9), (3, 1)] {
        let shape = Shape { rounds: 1, documents: 3, replies, sizes: (200, 9_000), seed: 7 + round as u64 };
        write_campaign(&corpus.join(format!("r{round}")), &shape).unwrap();
    }
    std::fs::create_dir_all(corpus.join("loose")).unwrap();
    std::fs::write(corpus.join("loose/long-reply.txt"), format!("{{\"html\": \"{}\"}}", "x".repeat(60_000))).unwrap();
    std::fs::write(corpus.join("loose/empty.txt"), "").unwrap();
    std::fs::write(corpus.join("loose/noise.bin"), [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
    corpus
}

/// The JSON a command printed, without what says how long it took.
fn untimed(o: &Output) -> Json {
    let mut json: Json = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(o)));
    for k in ["elapsed_seconds", "replies_per_second", "bytes_per_second"] {
        json.as_object_mut().unwrap().remove(k);
    }
    // The command's own whole time, which a merge of shards made by several has not.
    for k in ["wall_seconds", "readers_seconds"] {
        json.as_object_mut().unwrap().remove(k);
    }
    if let Some(m) = json.get_mut("manifest") {
        m.as_object_mut().unwrap().remove("started");
        m.as_object_mut().unwrap().remove("root_path");
    }
    json
}

/// The text a command printed, without its line of timing.
fn untimed_text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.to_lowercase().starts_with("scanned in"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Scans every part of a cut in `n` into `out`, each with `options`; the shards' paths.
fn cut(cwd: &Path, n: usize, inputs: &[&str], options: &[&str], out: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(out).unwrap();
    (1..=n)
        .map(|i| {
            let part = format!("{i}/{n}");
            let o = run(cwd, &[&["scan", "--shard", &part, "--json", "--list"], inputs, options].concat());
            assert!(matches!(o.status.code(), Some(0 | 1)), "{part}: {}", stderr(&o));
            let path = out.join(format!("shard-{i}-of-{n}.json"));
            std::fs::write(&path, &o.stdout).unwrap();
            path
        })
        .collect()
}

fn manifest(path: &Path) -> Json {
    let json: Json = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    json["manifest"].clone()
}

fn strs(paths: &[PathBuf]) -> Vec<&str> {
    paths.iter().map(|p| p.to_str().unwrap()).collect()
}

/// A merge that must be refused: exit status 2, and a message that holds each of `said`.
fn refused(cwd: &Path, args: &[&str], said: &[&str]) {
    let o = run(cwd, &[&["scan", "--merge"], args].concat());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "a refusal prints no scan");
    for s in said {
        assert!(err.contains(s), "{s:?} not in: {err}");
    }
}

#[test]
fn every_cut_reads_every_file_once_in_walk_order_and_merges_to_one_scan() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let whole = run(dir.path(), &["scan", "--root", "corpus", "corpus", "--json", "--list"]);
    assert_eq!(whole.status.code(), Some(1), "{}", stderr(&whole));
    let listing: Vec<(String, u64)> = untimed(&whole)["manifest"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_owned(), f["size"].as_u64().unwrap()))
        .collect();
    assert!(listing.len() > 30 && listing.iter().any(|(p, _)| p == "loose/long-reply.txt"), "{listing:?}");
    let total: u64 = listing.iter().map(|(_, s)| s).sum();
    let largest = listing.iter().map(|(_, s)| *s).max().unwrap();
    for n in [1, 2, 7, 64] {
        let shards = cut(dir.path(), n, &["corpus"], &[], &dir.path().join(format!("cut-{n}")));
        let mut read = Vec::new();
        for (i, s) in shards.iter().enumerate() {
            let m = manifest(s);
            assert_eq!(m["shard"], serde_json::json!({"parts": [i + 1], "of": n}));
            let files: Vec<(String, u64)> = m["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f["path"].as_str().unwrap().to_owned(), f["size"].as_u64().unwrap()))
                .collect();
            // Balanced by bytes: no part holds more than its share and the file across its edge.
            let bytes: u64 = files.iter().map(|(_, s)| s).sum();
            assert!(bytes <= total / n as u64 + largest, "{n}: part {} holds {bytes} of {total}", i + 1);
            read.extend(files);
        }
        // Every file once, in the walk's order.
        assert_eq!(read, listing, "cut in {n}");
        // Merged in any order given, the scan of the whole.
        let mut given = strs(&shards);
        given.reverse();
        let merged = run(dir.path(), &[&["scan", "--merge"], &given[..], &["--json", "--list"]].concat());
        assert_eq!(merged.status.code(), whole.status.code(), "{n}: {}", stderr(&merged));
        assert_eq!(untimed(&merged), untimed(&whole), "cut in {n}");
        if n == 7 {
            for format in [&["--json"][..], &[], &["--markdown", "--list"]] {
                let one = run(dir.path(), &[&["scan", "--root", "corpus", "corpus"], format].concat());
                let merged = run(dir.path(), &[&["scan", "--merge"], &given[..], format].concat());
                if format == ["--json"] {
                    assert_eq!(untimed(&merged), untimed(&one));
                } else {
                    assert_eq!(untimed_text(&merged), untimed_text(&one), "{format:?}");
                }
            }
        }
    }
}

#[test]
fn a_part_of_a_cut_that_holds_no_reply_has_not_failed() {
    // 64 parts of a few files: most hold none, some only the file that reads nothing.
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    for i in 1..=64 {
        let o = run(dir.path(), &["scan", "--shard", &format!("{i}/64"), "corpus", "--json", "--list"]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{i}/64: {}", stderr(&o));
    }
    // A cut of a corpus that is not there reads nothing: every part says so.
    let o = run(dir.path(), &["scan", "--shard", "2/3", "--root", ".", "nowhere", "--json", "--list"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn ids_name_files_from_the_root_so_that_nodes_may_hold_the_corpus_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let a = corpus(&dir.path().join("node-a"));
    // The same corpus elsewhere, as another node mounts it.
    let b = dir.path().join("mnt/elsewhere/corpus");
    std::fs::create_dir_all(b.parent().unwrap()).unwrap();
    crate::support::tree::copy(&a, &b);
    let one = cut(&dir.path().join("node-a"), 2, &["corpus"], &[], &dir.path().join("a"))[0].clone();
    let two = cut(&dir.path().join("mnt/elsewhere"), 2, &["corpus"], &[], &dir.path().join("b"))[1].clone();
    let merged =
        run(dir.path(), &["scan", "--merge", one.to_str().unwrap(), two.to_str().unwrap(), "--json", "--list"]);
    let whole = run(&dir.path().join("node-a"), &["scan", "--root", "corpus", "corpus", "--json", "--list"]);
    // The copy's files were written later: all else is the same.
    let unmodified = |o: &Output| {
        let mut json = untimed(o);
        for f in json["manifest"]["files"].as_array_mut().unwrap() {
            f.as_object_mut().unwrap().remove("modified");
        }
        json
    };
    assert_eq!(unmodified(&merged), unmodified(&whole), "{}", stderr(&merged));
    let ids = untimed(&whole)["ids"]["replies"].to_string();
    assert!(ids.contains("\"loose/long-reply.txt\"") && !ids.contains("node-a"), "{ids}");
}

#[test]
fn a_merge_refuses_a_shard_given_twice_an_overlap_and_a_gap() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let cwd = dir.path();
    let three = cut(cwd, 3, &["corpus"], &[], &cwd.join("three"));
    let [one, two, last] = [0, 1, 2].map(|i| three[i].to_str().unwrap());
    refused(cwd, &[one, two, two, last], &["given twice", two, "part 2/3"]);
    let copy = cwd.join("copy-of-two.json");
    std::fs::copy(two, &copy).unwrap();
    refused(cwd, &[one, two, copy.to_str().unwrap(), last], &["given twice", two, copy.to_str().unwrap()]);
    refused(cwd, &[one, last], &["a gap", "part 2/3 missing", one, last]);
    // Some parts merged apart: with --partial only, and then merged again with the rest.
    let partial = cwd.join("partial.json");
    let o = run(cwd, &["scan", "--merge", "--partial", one, last, "--json", "--list"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(manifest_of(&o)["shard"], serde_json::json!({"parts": [1, 3], "of": 3}));
    std::fs::write(&partial, &o.stdout).unwrap();
    refused(cwd, &[partial.to_str().unwrap(), last], &["overlap", "part 3/3"]);

    // Two shards of their own inputs that read the same files.
    let round = run(cwd, &["scan", "--root", "corpus", "corpus/r2", "--json", "--list"]);
    let all = run(cwd, &["scan", "--root", "corpus", "corpus", "--json", "--list"]);
    let (round_path, all_path) = (cwd.join("r2.json"), cwd.join("all.json"));
    std::fs::write(&round_path, &round.stdout).unwrap();
    std::fs::write(&all_path, &all.stdout).unwrap();
    refused(
        cwd,
        &[round_path.to_str().unwrap(), all_path.to_str().unwrap()],
        &["overlap", "both read r2/", "more files"],
    );

    // A list of the files expected: those no shard read are a gap.
    let r1 = run(cwd, &["scan", "--root", "corpus", "corpus/r1", "--json", "--list"]);
    let r1_path = cwd.join("r1.json");
    std::fs::write(&r1_path, &r1.stdout).unwrap();
    let listed = |m: &Json| -> Vec<String> {
        m["files"].as_array().unwrap().iter().map(|f| format!("corpus/{}", f["path"].as_str().unwrap())).collect()
    };
    let list = cwd.join("expected.txt");
    std::fs::write(&list, listed(&manifest_of(&all)).join("\n")).unwrap();
    let (r1s, r2s) = (r1_path.to_str().unwrap(), round_path.to_str().unwrap());
    refused(
        cwd,
        &[r1s, r2s, "--expect-files", list.to_str().unwrap()],
        &["a gap", "read by no shard", "r3/", "loose/"],
    );
    let mut both = listed(&manifest_of(&r1));
    both.extend(listed(&manifest_of(&round)));
    std::fs::write(&list, both.join("\n")).unwrap();
    let o = run(cwd, &["scan", "--merge", r2s, r1s, "--expect-files", list.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let one = run(cwd, &["scan", "--root", "corpus", "corpus/r1", "corpus/r2", "--json"]);
    assert_eq!(untimed(&o), untimed(&one), "ordered by the walk, whatever the order given");
}

fn manifest_of(o: &Output) -> Json {
    untimed(o)["manifest"].clone()
}

#[test]
fn a_merge_refuses_shards_of_other_options_roots_formats_or_versions() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let cwd = dir.path();
    let edits = cut(cwd, 2, &["corpus"], &[], &cwd.join("edits"));
    let html = cut(cwd, 2, &["corpus"], &["--field", "html"], &cwd.join("html"));
    let (e1, h2) = (edits[0].to_str().unwrap(), html[1].to_str().unwrap());
    refused(cwd, &[e1, h2], &["different options", "--field", "edits", "html", e1, h2]);
    let e2 = edits[1].to_str().unwrap();
    refused(cwd, &[e1, e2, "--field", "html"], &["--field edits", "give --merge the same", "(it has html)"]);
    refused(cwd, &[e1, e2, "--filter", "decided=none"], &["--filter none", "(it has decided=none)"]);

    // The parts of one cut, each from another root: the names differ, and so does the corpus.
    let from_above = cut(cwd, 2, &["corpus"], &["--root", "."], &cwd.join("above"));
    refused(cwd, &[e1, from_above[1].to_str().unwrap()], &["different corpus roots", "corpus (at", ". (at"]);
    // A task that ran elsewhere and found no corpus fails, and prints no shard.
    let nowhere = tempfile::tempdir().unwrap();
    let lost = run(nowhere.path(), &["scan", "--shard", "2/2", "corpus", "--root", ".", "--json", "--list"]);
    assert_eq!(lost.status.code(), Some(2));
    assert!(lost.stdout.is_empty() && stderr(&lost).contains("corpus: no such file"), "{}", stderr(&lost));
    // One that found another corpus there: its cut is of other files.
    corpus(nowhere.path());
    std::fs::remove_file(nowhere.path().join("corpus/loose/empty.txt")).unwrap();
    let lost = run(nowhere.path(), &["scan", "--shard", "2/2", "corpus", "--root", ".", "--json", "--list"]);
    let lost_path = cwd.join("lost.json");
    std::fs::write(&lost_path, &lost.stdout).unwrap();
    let at_root = cut(cwd, 2, &["corpus"], &["--root", "."], &cwd.join("at-root"));
    refused(cwd, &[at_root[0].to_str().unwrap(), lost_path.to_str().unwrap()], &["saw different corpora", "32 files"]);
    // Names as given, from two working directories.
    let here = run(cwd, &["scan", "corpus/r1", "--json", "--list"]);
    let there = run(&cwd.join("corpus"), &["scan", "r2", "--json", "--list"]);
    let (here_path, there_path) = (cwd.join("here.json"), cwd.join("there.json"));
    std::fs::write(&here_path, &here.stdout).unwrap();
    std::fs::write(&there_path, &there.stdout).unwrap();
    refused(
        cwd,
        &[here_path.to_str().unwrap(), there_path.to_str().unwrap()],
        &["different corpus roots", "names as given"],
    );

    // Another manifest format, another version, no manifest.
    let edit = |from: &Path, to: &str, change: &dyn Fn(&mut Json)| -> PathBuf {
        let mut json: Json = serde_json::from_slice(&std::fs::read(from).unwrap()).unwrap();
        change(&mut json);
        let path = cwd.join(to);
        std::fs::write(&path, json.to_string()).unwrap();
        path
    };
    let future = edit(&edits[1], "future.json", &|j| j["manifest"]["format"] = 2.into());
    refused(cwd, &[e1, future.to_str().unwrap()], &["manifest format 2", "merges format 1", "future.json"]);
    let older = edit(&edits[1], "older.json", &|j| j["manifest"]["bracewalk"] = "0.0.9".into());
    refused(cwd, &[e1, older.to_str().unwrap()], &["different versions of bracewalk", "0.1.0", "0.0.9"]);
    let bare = edit(&edits[1], "bare.json", &|j| {
        j.as_object_mut().unwrap().remove("manifest");
    });
    refused(cwd, &[e1, bare.to_str().unwrap()], &["bare.json: no manifest"]);
}

#[test]
fn merges_of_merges_are_one_scan() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let cwd = dir.path();
    let four = cut(cwd, 4, &["corpus"], &[], &cwd.join("four"));
    let merge = |parts: &[&str], name: &str| -> PathBuf {
        let o = run(cwd, &[&["scan", "--merge", "--partial"], parts, &["--json", "--list"]].concat());
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        let path = cwd.join(name);
        std::fs::write(&path, &o.stdout).unwrap();
        path
    };
    let s = strs(&four);
    let (low, high) = (merge(&[s[1], s[0]], "low.json"), merge(&[s[3], s[2]], "high.json"));
    let whole = run(cwd, &["scan", "--root", "corpus", "corpus", "--json", "--list"]);
    for list in [&["--json", "--list"][..], &["--json"]] {
        let o = run(cwd, &[&["scan", "--merge", high.to_str().unwrap(), low.to_str().unwrap()], list].concat());
        assert_eq!(o.status.code(), whole.status.code(), "{}", stderr(&o));
        let whole = run(cwd, &[&["scan", "--root", "corpus", "corpus"], list].concat());
        assert_eq!(untimed(&o), untimed(&whole), "{list:?}");
    }
    // Rounds scanned apart, each cut of its own, merged: the scan of all of them.
    let r1 = cut(cwd, 2, &["corpus/r1"], &["--root", "corpus"], &cwd.join("r1"));
    let r2 = cut(cwd, 3, &["corpus/r2"], &["--root", "corpus"], &cwd.join("r2"));
    let rest = run(cwd, &["scan", "--root", "corpus", "corpus/r3", "corpus/loose", "--json", "--list"]);
    let rest_path = cwd.join("rest.json");
    std::fs::write(&rest_path, &rest.stdout).unwrap();
    let mut given = strs(&r2);
    given.push(rest_path.to_str().unwrap());
    given.extend(strs(&r1));
    let o = run(cwd, &[&["scan", "--merge"], &given[..], &["--json", "--list"]].concat());
    let one = run(
        cwd,
        &["scan", "--root", "corpus", "corpus/r1", "corpus/r2", "corpus/r3", "corpus/loose", "--json", "--list"],
    );
    assert_eq!(untimed(&o), untimed(&one), "{}", stderr(&o));
    // The corpus of all of them: its files, in the order of the inputs.
    for key in ["files", "bytes"] {
        assert_eq!(untimed(&o)["manifest"]["corpus"][key], untimed(&whole)["manifest"]["corpus"][key]);
    }
}

#[test]
fn accepted_differences_and_filters_merge_as_one_scan_checks_them() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let cwd = dir.path();
    let whole = ["scan", "--root", "corpus", "corpus"];
    // Accepted: what one round reads differently, and a difference no scan finds.
    let accepted = cwd.join("accepted.jsonl");
    let o = run(cwd, &["scan", "--root", "corpus", "corpus/r2", "--accept", accepted.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut text = std::fs::read_to_string(&accepted).unwrap();
    assert!(text.lines().count() > 3, "{text}");
    text.push_str("{\"comparison\":\"first-wins\",\"id\":\"gone/nowhere.txt\",\"account\":\"null → value {a}\"}\n");
    // And one of a reply both readers read alike: gone, where it is read.
    let listed = untimed(&run(cwd, &[&whole[..], &["--json", "--list"]].concat()));
    let differing = listed["comparisons"]["first-wins"]["replies"].to_string();
    let ids = listed["ids"]["replies"].as_array().unwrap();
    let alike = ids.iter().position(|id| !differing.contains(&format!("\"{}\"", id.as_str().unwrap()))).unwrap();
    let entry = serde_json::json!({"comparison": "first-wins", "id": ids[alike], "reference": listed["ids"]["references"][alike], "account": "null → value {a}"});
    text.push_str(&format!("{entry}\n"));
    std::fs::write(&accepted, text).unwrap();
    let shards = cut(cwd, 5, &["corpus"], &[], &cwd.join("five"));
    let s = strs(&shards);
    for json in [&[][..], &["--json"]] {
        let one = run(cwd, &[&whole[..], &["--accepted", accepted.to_str().unwrap()], json].concat());
        let merged =
            run(cwd, &[&["scan", "--merge"], &s[..], &["--accepted", accepted.to_str().unwrap()], json].concat());
        assert_eq!(one.status.code(), Some(3), "new differences: {}", stderr(&one));
        assert_eq!(merged.status.code(), one.status.code(), "{}", stderr(&merged));
        assert_eq!(merged.stdout, one.stdout, "{json:?}");
        if json == ["--json"] {
            let check: Json = serde_json::from_slice(&one.stdout).unwrap();
            assert_eq!((check["gone"].as_array().unwrap().len(), check["unchecked"].as_array().unwrap().len()), (1, 1));
        }
    }
    // Accepting from the shards writes what accepting from one scan writes.
    let (from_one, from_shards) = (cwd.join("one.jsonl"), cwd.join("shards.jsonl"));
    let one = run(cwd, &[&whole[..], &["--accept", from_one.to_str().unwrap()]].concat());
    let merged = run(cwd, &[&["scan", "--merge"], &s[..], &["--accept", from_shards.to_str().unwrap()]].concat());
    assert_eq!((one.status.code(), merged.status.code()), (Some(1), Some(1)));
    assert_eq!(std::fs::read(&from_one).unwrap(), std::fs::read(&from_shards).unwrap());

    // A filter: the shards scanned with it merge to the scan with it.
    let query = ["--filter", "decided=last-wins"];
    let filtered = cut(cwd, 3, &["corpus"], &query, &cwd.join("filtered"));
    let f = strs(&filtered);
    let one = run(cwd, &[&whole[..], &query, &["--json"]].concat());
    for given in [&query[..], &[]] {
        let merged = run(cwd, &[&["scan", "--merge"], &f[..], given, &["--json"]].concat());
        assert_eq!(untimed(&merged), untimed(&one), "{}", stderr(&merged));
    }
    assert!(
        untimed(&one)["replies"].as_u64().unwrap()
            < untimed(&run(cwd, &[&whole[..], &["--json"]].concat()))["replies"].as_u64().unwrap()
    );
}

#[test]
fn a_shard_that_read_nothing_makes_the_merge_exit_as_it_did() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let cwd = dir.path();
    // A directory of nothing but a file that reads nothing.
    std::fs::create_dir_all(cwd.join("void")).unwrap();
    std::fs::copy(cwd.join("corpus/loose/noise.bin"), cwd.join("void/noise.bin")).unwrap();
    let good = run(cwd, &["scan", "corpus/r1", "--json", "--list"]);
    let lost = run(cwd, &["scan", "void", "--json", "--list"]);
    assert_eq!((good.status.code(), lost.status.code()), (Some(0), Some(2)));
    let (good_path, lost_path) = (cwd.join("good.json"), cwd.join("lost.json"));
    std::fs::write(&good_path, &good.stdout).unwrap();
    std::fs::write(&lost_path, &lost.stdout).unwrap();
    let o = run(cwd, &["scan", "--merge", good_path.to_str().unwrap(), lost_path.to_str().unwrap(), "--list"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("lost.json read nothing"), "{}", stderr(&o));
    assert!(untimed_text(&o).contains("void/noise.bin: binary file"), "the merge still prints what it has");
}

#[test]
fn a_merge_that_lists_nothing_holds_the_differences_not_the_replies() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let shard = &cut(dir.path(), 1, &["corpus"], &[], &dir.path().join("one"))[0];
    let config = bracewalk::analysis::Config::default();
    let counted = bracewalk::scan::Scan::from_counts(std::fs::File::open(shard).unwrap(), config.clone()).unwrap();
    let json: Json = serde_json::from_slice(&std::fs::read(shard).unwrap()).unwrap();
    let listed = bracewalk::scan::Scan::from_json(&json, config).unwrap();
    let differing: std::collections::BTreeSet<usize> =
        listed.comparisons.iter().flat_map(|c| c.differ.iter().map(|d| d.reply)).collect();
    assert!(listed.replies.len() > differing.len() + 10, "a corpus of replies the readers mostly agree on");
    // Named: only the replies a difference lists, or a page's history may take as its final
    // answer in a round; every other reply a count.
    let key = |s: &bracewalk::scan::Scan, i: usize| (s.replies[i].id.clone(), s.replies[i].reference.clone());
    let mut named: std::collections::BTreeSet<_> = differing.iter().map(|&i| key(&listed, i)).collect();
    named.extend(counted.pages.calls.iter().filter_map(|c| c.reply).map(|i| key(&counted, i)));
    let held: std::collections::BTreeSet<_> = (0..counted.replies.len()).map(|i| key(&counted, i)).collect();
    assert_eq!(held, named);
    assert!(counted.replies.len() < listed.replies.len(), "{} of {}", counted.replies.len(), listed.replies.len());
    assert!(counted.pages.calls.len() < listed.pages.calls.len(), "one call a page, not every call");
    assert_eq!(counted.reply_count(), listed.replies.len());
    assert!(counted.decided_by.iter().all(Vec::is_empty) && counted.by_round.values().all(|g| g.replies.is_empty()));
    assert!(counted.flags.iter().all(Vec::is_empty) && counted.cut_off.is_empty());
}

/// Whether process `pid` has ended (gone, or a zombie no one has reaped yet).
#[cfg(target_os = "linux")]
fn ended(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_or(true, |stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')))
}

#[cfg(target_os = "linux")]
#[test]
fn a_scan_that_dies_with_its_parent_ends_when_a_worker_is_killed() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("replies.jsonl");
    std::fs::write(&file, "{\"id\": \"a\", \"text\": \"{}\"}\n").unwrap();
    let aside = tempfile::tempdir().unwrap();
    let (reader_pid, shard) = (aside.path().join("reader.pid"), aside.path().join("shard.json"));
    // A worker that started a scan, its shard written aside, held up by a reader that says
    // who it is and answers nothing for 4 s: without its parent the scan would write its
    // shard then.
    let script = format!(
        "\"{BIN}\" scan --die-with-parent --reader 'slow=echo $$ > {}; exec sleep 4' --text-path /text {} --json --list >{} 2>/dev/null & echo $!; wait",
        reader_pid.display(),
        file.display(),
        shard.display()
    );
    let started = Instant::now();
    let mut worker = Command::new("sh")
        .args(["-c", &script])
        .stdout(std::process::Stdio::piped())
        .env("BRACEWALK_STATE_DIR", state_dir())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(worker.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let pid = line.trim().to_owned();
    // The shell creates the file before it writes the pid: wait for the whole line.
    let written = || std::fs::read_to_string(&reader_pid).ok().filter(|t| t.ends_with('\n'));
    while written().is_none() && started.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let reader = written().unwrap().trim().to_owned();
    assert!(reader.parse::<u32>().is_ok(), "the reader's pid: {reader:?}");
    assert!(!ended(&pid) && !ended(&reader), "the scan and its reader are running");
    worker.kill().unwrap();
    worker.wait().unwrap();
    let killed = Instant::now();
    while !(ended(&pid) && ended(&reader)) && killed.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(ended(&pid), "the scan still runs {:?} after its worker was killed", killed.elapsed());
    assert!(ended(&reader), "its reader still runs {:?} after its worker was killed", killed.elapsed());
    assert!(started.elapsed() < Duration::from_secs(4), "all ended before the reader would have answered");
    // Past the time the reader would have answered, no late shard.
    std::thread::sleep(Duration::from_secs(5).saturating_sub(started.elapsed()));
    assert_eq!(std::fs::read(&shard).unwrap(), b"", "a shard written late");
}

#[test]
fn a_broken_ledger_read_by_several_parts_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let ledger = corpus.join("r2/round-1/ledger.jsonl");
    let mut text = std::fs::read_to_string(&ledger).unwrap();
    text.push_str("{broken\n");
    std::fs::write(&ledger, text).unwrap();
    let shards = cut(dir.path(), 7, &["corpus"], &[], &dir.path().join("seven"));
    let asked = shards
        .iter()
        .filter(|s| String::from_utf8_lossy(&std::fs::read(s).unwrap()).contains("ledger.jsonl:4"))
        .count();
    assert!(asked > 1, "the ledger's problem is said by each part with a run of it: {asked}");
    let whole = run(dir.path(), &["scan", "--root", "corpus", "corpus", "--json", "--list"]);
    for list in [&["--json", "--list"][..], &["--json"]] {
        let merged = run(dir.path(), &[&["scan", "--merge"], &strs(&shards)[..], list].concat());
        let whole = run(dir.path(), &[&["scan", "--root", "corpus", "corpus"], list].concat());
        assert_eq!(untimed(&merged), untimed(&whole), "{list:?}");
    }
    assert_eq!(untimed(&whole)["ids"]["diagnostics"].to_string().matches("ledger.jsonl:4").count(), 1);
}

#[test]
fn a_shard_whose_differences_do_not_add_up_is_refused_by_every_merge() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let shards = cut(dir.path(), 2, &["corpus"], &[], &dir.path().join("two"));
    let json: Json = serde_json::from_slice(&std::fs::read(&shards[0]).unwrap()).unwrap();
    let key = json["comparisons"].as_object().unwrap().iter().find(|(_, c)| c["differ"].as_u64() > Some(1)).unwrap().0;
    let key = key.clone();
    // One difference left out of its comparison's list, and one of another class than any.
    let mut short = json.clone();
    short["comparisons"][&key]["replies"].as_array_mut().unwrap().pop();
    let mut classless = json.clone();
    classless["comparisons"][&key]["replies"][0]["class"] = Json::from("sideways");
    for (tampered, said) in [(short, format!("{key} differs: ")), (classless, "with no class".to_owned())] {
        std::fs::write(&shards[0], serde_json::to_vec(&tampered).unwrap()).unwrap();
        for list in [&[][..], &["--list"], &["--json"]] {
            let o = run(dir.path(), &[&["scan", "--merge"], &strs(&shards)[..], list].concat());
            assert_eq!(o.status.code(), Some(2), "{list:?}: {}", stderr(&o));
            assert!(stderr(&o).contains(&said) && stderr(&o).contains("shard-1-of-2.json"), "{said}: {}", stderr(&o));
            assert!(o.stdout.is_empty());
        }
    }
}

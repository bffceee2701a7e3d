//! Every surface reads a reply the same way: for every reader of the catalogue, over every
//! golden reply and the sample logs, the answer `extract --reader NAME` prints, what `scan
//! --json --list` says of the reply, and what the inspector shows of it (the what-if
//! column, the `≠` badge, every badge and filter count, every summary row) agree, reply by
//! reply. The inspector is driven through its update function, its facts made by the
//! worker's own functions.

use crate::support::tui_fixture as fixture;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;

use serde_json::Value as Json;

use bracewalk::analysis::{Config, Pair, account};
use bracewalk::cli::extract::{Extract, extract_text};
use bracewalk::cli::scan::render_json;
use bracewalk::exact::value::Value;
use bracewalk::logs::{self, Format, Item, LoadOptions, Meta, Reply};
use bracewalk::readers::{Catalogue, ReaderId};
use bracewalk::scan::Scanner;
use bracewalk::tui::badges::{self, Badge};
use bracewalk::tui::entry::Entry;
use bracewalk::tui::message::Read;
use bracewalk::tui::message::{Incoming, LoadProgress};
use bracewalk::tui::state::Mode;
use bracewalk::tui::{Msg, State};
use fixture::{drive, typed};

const REPLIES: &str = include_str!("../golden/replies.jsonl");
const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs");

/// The two replies the surfaces used to read differently: a byte-order mark before an array
/// (JavaScript's `trim` strips it, `JSON.parse` does not), and a reply that is `null`.
const NAMED: [(&str, &str); 2] = [("bom-array", "\u{feff}[1,2]"), ("null", "null")];

fn reply(id: &str, text: &str) -> Reply {
    Reply {
        id: id.to_owned(),
        source: PathBuf::from("tests/golden/replies.jsonl"),
        line: None,
        offset: 0,
        text: text.to_owned(),
        meta: Meta::new(Format::Text),
    }
}

/// The golden replies, the named ones, then everything in the sample logs.
fn corpus() -> Vec<Item> {
    let mut items: Vec<Item> = REPLIES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Json = serde_json::from_str(l).unwrap();
            Item::Reply(reply(v["id"].as_str().unwrap(), v["text"].as_str().unwrap()))
        })
        .collect();
    items.extend(NAMED.iter().map(|(id, t)| Item::Reply(reply(id, t))));
    logs::load(&[PathBuf::from(SAMPLES)], &LoadOptions::default(), &mut |item| items.push(item));
    items
}

/// Every reader of the catalogue beside the seed, so each is compared with it.
fn config() -> Config {
    let catalogue = Catalogue::builtin();
    let pairs = catalogue
        .iter()
        .filter(|(id, _)| *id != ReaderId::LAST_WINS)
        .map(|(from, _)| Pair { from, to: ReaderId::LAST_WINS })
        .collect();
    Config { pairs, ..Config::new(catalogue) }
}

/// What `extract --reader NAME` prints for `text` (`None` when it exits 1, printing nothing).
fn extracted(catalogue: &Catalogue, name: &str, text: &str) -> Option<String> {
    let mut out = Vec::new();
    let code = extract_text(text, &Extract { catalogue, reader: name, pretty: false }, &mut out).unwrap();
    match code {
        0 => Some(String::from_utf8(out).unwrap().trim_end().to_owned()),
        1 => {
            assert!(out.is_empty());
            None
        }
        other => panic!("extract exited {other}"),
    }
}

/// The count `scan --json` prints at a row's key.
fn count_at(json: &Json, (top, key): (&str, Option<String>)) -> u64 {
    let v = match key {
        Some(k) => &json[top][k.as_str()],
        None => &json[top],
    };
    v.as_u64().or_else(|| v["replies"].as_u64()).or_else(|| v["differ"].as_u64()).unwrap_or(0)
}

/// The ids `scan --json --list` prints under a row's key (a comparison lists its replies
/// where it is).
fn ids_at(json: &Json, (top, key): (&str, Option<String>)) -> Vec<String> {
    let v = match key {
        Some(k) if top == "comparisons" => &json[top][k.as_str()]["replies"],
        Some(k) => &json["ids"][top][k.as_str()],
        None => &json["ids"][top],
    };
    v.as_array()
        .unwrap_or_else(|| panic!("ids of {top}: {v}"))
        .iter()
        .map(|x| x.as_str().or(x["id"].as_str()).unwrap().to_owned())
        .collect()
}

#[test]
fn extract_scan_and_the_inspector_read_every_reply_alike() {
    let config = config();
    let catalogue = &config.catalogue;
    let items = corpus();
    let replies: Vec<&Reply> = items
        .iter()
        .filter_map(|i| match i {
            Item::Reply(r) => Some(r),
            _ => None,
        })
        .collect();
    let ids: Vec<&str> = replies.iter().map(|r| r.id.as_str()).collect();
    let unique: std::collections::HashSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "reply ids are unique, so a reply is found by its id");

    // `scan --json --list`, as the command prints it.
    let mut scanner = Scanner::new(config.clone());
    scanner.add_items(&items, Vec::new());
    let scan = scanner.finish();
    let json = render_json(&scan, true);
    let mut said: HashMap<(String, String), String> = HashMap::new();
    for (key, c) in json["comparisons"].as_object().unwrap() {
        for r in c["replies"].as_array().unwrap() {
            said.insert((key.clone(), r["id"].as_str().unwrap().to_owned()), r["account"].as_str().unwrap().to_owned());
        }
    }

    // `extract --reader NAME`, for every reader and every reply: it prints the catalogue's
    // answer (as JSON prints it: a non-finite number is `null`), and the scan's account of
    // the reply is the account of those same answers.
    for r in &replies {
        let seed = catalogue.read(ReaderId::LAST_WINS, &r.text);
        assert_eq!(extracted(catalogue, "last-wins", &r.text), seed.as_ref().map(Value::to_json), "{}", r.id);
        for p in &config.pairs {
            let name = catalogue.name(p.from);
            let answer = catalogue.read(p.from, &r.text);
            assert_eq!(extracted(catalogue, name, &r.text), answer.as_ref().map(Value::to_json), "{name} on {}", r.id);
            let expected = account(answer.as_ref(), seed.as_ref());
            let scanned = said.get(&(config.key(p), r.id.clone())).cloned();
            assert_eq!(scanned, expected, "{name} on {}", r.id);
        }
    }

    // The inspector: the same replies, read by its worker's functions through its update.
    let mut s = State::new(vec![PathBuf::from(SAMPLES)], Default::default(), (160, 50));
    s.config = Arc::new(config.clone());
    let entries: Vec<Entry> =
        items.iter().cloned().enumerate().map(|(i, it)| Entry::from_item(i as u64 + 1, it)).collect();
    let early: Vec<Read> =
        entries.iter().filter_map(|e| e.held_text().map(|t| Read::early(e.key, t, e.cut(), &config))).collect();
    drive(&mut s, Msg::Incoming { batch: entries.into_iter().map(Incoming::Entry).collect(), initial: true });
    drive(&mut s, Msg::Progress(LoadProgress { files: 1, items: 0, bytes: 0, done: true }));
    drive(&mut s, Msg::Facts(early));
    // The `≠` badge comes with the early facts: the first-wins comparison, as the scan made it.
    for e in s.list.entries().iter().filter(|e| e.is_reply()) {
        let scanned = said.get(&("first-wins".to_owned(), e.id.to_string())).map(String::as_str);
        assert_eq!(e.against_seed(&config, ReaderId::FIRST_WINS), Some(scanned), "≠ on {}", e.id);
    }
    fixture::complete(&mut s);
    // The what-if column, for every reader.
    for e in s.list.entries().iter().filter(|e| e.is_reply()) {
        for p in &config.pairs {
            let scanned = said.get(&(config.key(p), e.id.to_string())).map(String::as_str);
            assert_eq!(e.against_seed(&config, p.from), Some(scanned), "{} on {}", config.key(p), e.id);
        }
    }

    // Every badge of the table, as a filter chosen in the filter menu, lists as many
    // replies as the scan counts under its row.
    typed(&mut s, "f");
    let table = badges::table(&config, ReaderId::FIRST_WINS);
    for look in &table {
        let Badge::Report(row) = &look.badge else { continue };
        let at = s.choices.iter().position(|c| *c == look.badge).unwrap_or_else(|| panic!("{:?} offered", look.badge));
        let Mode::Filter { cursor } = s.mode else { panic!("the filter menu is open") };
        let keys = if at > cursor { "j".repeat(at - cursor) } else { "k".repeat(cursor - at) };
        typed(&mut s, &format!("{keys} "));
        let shown: Vec<&str> = s.list.view().iter().map(|&i| &*s.list.entries()[i].id).collect();
        let listed = ids_at(&json, row.json_key(&config));
        let mut shown_sorted = shown.clone();
        shown_sorted.sort_unstable();
        let mut listed_sorted: Vec<&str> = listed.iter().map(String::as_str).collect();
        listed_sorted.sort_unstable();
        assert_eq!(shown_sorted, listed_sorted, "{}", look.badge.name(&config));
        assert_eq!(shown.len() as u64, count_at(&json, row.json_key(&config)), "{}", look.badge.name(&config));
        typed(&mut s, " ");
    }
    typed(&mut s, "\x1b");

    // The summary screen: every row names the replies the command lists under it, found
    // among the entries as its panel finds them.
    typed(&mut s, "S");
    let mut corpus = s.corpus.clone().unwrap();
    assert_eq!(corpus.pending, 0);
    for block in bracewalk::tui::summary::blocks(&corpus.scan) {
        for line in &block.lines {
            let key = line.target.json_key(&config);
            assert_eq!(line.count as u64, count_at(&json, key.clone()), "{}", line.label);
            corpus.find_behind(&s.list, &line.target, usize::MAX);
            let found = corpus.behind(&line.target).unwrap();
            let mut behind: Vec<&str> = found.replies().map(|(i, _)| corpus.id(&s.list, *i)).collect();
            behind.sort_unstable();
            let mut listed = ids_at(&json, key);
            listed.sort_unstable();
            assert_eq!(behind, listed, "{}", line.label);
        }
    }
}

/// The binary itself, on the two replies that surfaces used to read differently.
#[test]
fn the_named_replies_through_the_binary() {
    let extract = |reader: &str, text: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bracewalk"))
            .args(["extract", "--reader", reader, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), text.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    // The seed trims with JavaScript's whitespace; seed 001's caller parses the raw reply.
    assert_eq!(extract("last-wins", "\u{feff}[1,2]"), (Some(0), "[1,2]".to_owned()));
    assert_eq!(extract("first-wins", "\u{feff}[1,2]"), (Some(1), String::new()));
    assert_eq!(extract("first-wins", "[1, 2]"), (Some(0), "[1,2]".to_owned()));
    for reader in ["last-wins", "first-wins", "strict-only"] {
        assert_eq!(extract(reader, "null"), (Some(1), String::new()), "{reader}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_bracewalk")).args(["extract", "--reader", "nope", "-"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("narrow-everywhere"), "the error lists the readers");
}

//! The query line and the documents screen, driven through the inspector's update function
//! over the sample campaign: what the query line shows is what the loader's replies,
//! filtered by the same query directly, are; the documents screen reaches page 17 of
//! document 3f1c… and lists its calls in time order.

use crate::support::tui_fixture as fixture;

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use bracewalk::analysis::{Config, Facts};
use bracewalk::logs::{Item, LoadOptions, load};
use bracewalk::query::Query;
use bracewalk::tui::documents::{self, DocumentRow};
use bracewalk::tui::entry::Entry;
use bracewalk::tui::list::SortKey;
use bracewalk::tui::message::Read;
use bracewalk::tui::message::{Incoming, LoadProgress};
use bracewalk::tui::state::Mode;
use bracewalk::tui::{Msg, State};
use fixture::{drive, key, screen, typed};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs")
}

fn items() -> Vec<Item> {
    let mut items = Vec::new();
    load(&[samples()], &LoadOptions::default(), &mut |i| items.push(i));
    items
}

/// The inspector over every sample, its entries loaded as from files (texts not held: the
/// search reads them again by their locators), every reply's facts complete.
fn inspector(items: &[Item]) -> State {
    let mut s = State::new(vec![samples()], Default::default(), (140, 40));
    let config = s.config.clone();
    let mut reads = Vec::new();
    let mut entries = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let key = i as u64 + 1;
        if let Item::Reply(r) = item {
            let stopped = r.meta.stop == bracewalk::logs::StopReason::Truncated;
            let early = Read::early(key, &r.text, stopped, &config);
            reads.push(Read::complete(key, &r.text, early.facts.clone(), &config, &[]));
            reads.insert(reads.len() - 1, early);
        }
        entries.push(Entry::loaded(key, item.clone()));
    }
    drive(&mut s, Msg::Incoming { batch: entries.into_iter().map(Incoming::Entry).collect(), initial: true });
    drive(&mut s, Msg::Progress(LoadProgress { files: 1, items: 0, bytes: 0, done: true }));
    drive(&mut s, Msg::Facts(reads));
    s
}

/// Applies `query` on the query line, as typed.
fn query(s: &mut State, query: &str) {
    typed(s, ":");
    drive(s, Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)));
    typed(s, query);
    typed(s, "\n");
    assert_eq!(s.mode, Mode::Normal, "{query}: {:?}", s.flash);
}

/// Ids of the replies and calls shown, sorted.
fn shown(s: &State) -> Vec<String> {
    let mut ids: Vec<String> = s
        .list
        .view()
        .iter()
        .map(|&i| &s.list.entries()[i])
        .filter(|e| e.meta().is_some())
        .map(|e| e.id.to_string())
        .collect();
    ids.sort();
    ids
}

/// The loader's replies and calls that `query` selects, read directly.
fn direct(items: &[Item], query: &str) -> (Vec<String>, usize) {
    let q = Query::parse(query).unwrap();
    let config = Config::default();
    let mut ids = Vec::new();
    let mut matches = 0;
    for item in items {
        match item {
            Item::Reply(r) if q.matches_reply(r, Some(&Facts::of(r, &config, &[]))) => {
                ids.push(r.id.clone());
                matches += q.text(Some(&r.text)).matches;
            }
            Item::Event(e) if q.matches_event(e) => ids.push(e.id.clone()),
            _ => {}
        }
    }
    ids.sort();
    (ids, matches)
}

const QUERIES: &[&str] = &[
    "doc=3f1c page=17",
    "doc=3f1c page=17 round=round-4",
    "doc=3f1c9a0e7b2d4c58 agent=page,feedback page>=15 page<=17",
    "agent=page,feedback decided!=last-wins",
    "size>10k",
    "size<100 !agent=feedback",
    "table",
    "/Table 3 continues/ !draft",
    "text~restart agent=page",
    "flag=readers-disagree",
    "flag=placeholder",
    "verdict=taken",
    "verdict!=not-tried",
    "decided=none",
    "stop=truncated",
    "it=1",
    "iteration=none doc=5be7",
    "model=sonnet verified=no",
    "format=anthropic,openai-chat",
    "path=formats/ faithful",
    "id=sample-logs/round-5",
    "doc=none page=none",
];

#[test]
fn the_query_line_shows_what_the_query_selects_of_the_loaded_replies() {
    let items = items();
    let mut s = inspector(&items);
    assert!(s.list.entries().iter().all(|e| e.held_text().is_none()));
    for q in QUERIES {
        query(&mut s, q);
        let (want, matches) = direct(&items, q);
        assert_eq!(shown(&s), want, "{q}");
        let applied = s.list.filter().query.as_ref().unwrap();
        assert!(applied.searched(), "{q}");
        let counted: usize =
            s.list.view().iter().filter_map(|&i| applied.hits.get(&s.list.entries()[i].key)).map(|h| h.matches).sum();
        assert_eq!(counted, matches, "{q}: matches");
    }
    // Not every query selects nothing, nor everything.
    let sizes: Vec<usize> = QUERIES.iter().map(|q| direct(&items, q).0.len()).collect();
    let all = items.iter().filter(|i| !matches!(i, Item::Diagnostic(_))).count();
    assert!(sizes.iter().all(|&n| n < all), "{sizes:?}");
    assert!(sizes.iter().filter(|&&n| n > 0).count() >= QUERIES.len() - 3, "{sizes:?}");
    assert_eq!(direct(&items, "doc=3f1c page=17").0.len(), 5);
}

#[test]
fn the_query_line_edits_recalls_and_says_where_a_query_is_wrong() {
    let items = items();
    let mut s = inspector(&items);
    typed(&mut s, ":doc=3f1c pgae=17\n");
    let Mode::Query(line) = &s.mode else { panic!("the line stays open on an error: {:?}", s.mode) };
    let error = line.error.clone().unwrap();
    assert_eq!(error.column, 10);
    assert_eq!(line.input.cursor(), 9, "the cursor goes where the error is");
    assert!(screen(&s).contains("column 10: no field `pgae`"), "{}", screen(&s));
    // Fix it where the cursor is: delete `pgae`, write `page`.
    for _ in 0..4 {
        drive(&mut s, key(KeyCode::Delete));
    }
    typed(&mut s, "page");
    typed(&mut s, "\n");
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.list.filter().query.as_ref().unwrap().query.source(), "doc=3f1c page=17");
    let status = screen(&s);
    assert!(status.contains("query: doc=3f1c page=17 · 5 replies"), "{status}");
    // A second query, then Up twice recalls the first; Esc leaves the second applied.
    query(&mut s, "agent=reader");
    typed(&mut s, ":");
    drive(&mut s, key(KeyCode::Up));
    drive(&mut s, key(KeyCode::Up));
    let Mode::Query(line) = &s.mode else { panic!() };
    assert_eq!(line.input.text(), "doc=3f1c page=17");
    typed(&mut s, "\x1b");
    assert_eq!(s.list.filter().query.as_ref().unwrap().query.source(), "agent=reader");
    // A text regex counts its matches; an empty line clears the query.
    query(&mut s, "Table\\s3");
    assert!(screen(&s).contains("matches"), "{}", screen(&s));
    query(&mut s, "");
    assert!(s.list.filter().query.is_none());
    assert_eq!(s.list.view().len(), s.list.entries().len());
}

#[test]
fn the_documents_screen_reaches_page_17_and_lists_its_calls_in_time_order() {
    let items = items();
    let mut s = inspector(&items);
    // The list opens at its top, on its first reply.
    let first = s.list.view().iter().position(|&i| s.list.entries()[i].is_reply()).unwrap();
    assert_eq!((s.list.top(), s.list.cursor()), (0, first));

    typed(&mut s, "d");
    assert_eq!(s.mode, Mode::Documents);
    let docs = documents::documents(&s);
    let rows = documents::rows(&docs);
    let target = rows
        .iter()
        .position(|r| match *r {
            DocumentRow::Page(d, p) => {
                docs[d].id.starts_with("3f1c")
                    && docs[d].round.as_deref() == Some("round-4")
                    && docs[d].pages[p].number == Some(17)
            }
            DocumentRow::Document(_) => false,
        })
        .unwrap();
    let page = match rows[target] {
        DocumentRow::Page(d, p) => &docs[d].pages[p],
        DocumentRow::Document(_) => unreachable!(),
    };
    assert_eq!(page.agents, vec![("page".to_owned(), 2), ("feedback".to_owned(), 1)]);
    assert_eq!(page.verified, Some(false), "rejected, and no verdict logged after the correction");
    let last = s.list.entry(page.last.unwrap()).unwrap();
    assert!(last.id.ends_with("log.jsonl:135"), "the final answer is the correction: {}", last.id);
    assert_eq!(last.html, Some(7_121));
    while s.documents.cursor < target {
        typed(&mut s, "j");
    }
    while s.documents.cursor > target {
        typed(&mut s, "k");
    }
    let drawn = screen(&s);
    assert!(drawn.contains("html 7,121 chars"), "{drawn}");
    typed(&mut s, "\n");
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.list.sort(), SortKey::Time);
    let lines: Vec<usize> = s.list.view().iter().map(|&i| s.list.entries()[i].line.unwrap()).collect();
    assert_eq!(lines, vec![116, 125, 135], "page 17's calls, in time order");
    assert_eq!(s.list.filter().query.as_ref().unwrap().query.source(), "doc=3f1c9a0e7b2d4c58 round=round-4 page=17");
}

#[test]
fn a_missing_page_and_a_tiny_one_stand_out() {
    use fixture::reply;
    let doc = |item: Item, page: u32| match item {
        Item::Reply(mut r) => {
            r.meta.document = Some("d0c".into());
            r.meta.page = Some(page);
            Item::Reply(r)
        }
        other => other,
    };
    let items = vec![
        doc(
            reply(
                1,
                "page",
                1,
                "{\"html\": \"<table><tr><td>a long enough page of table rows and more rows and still more rows and the totals at the end of it all, enough to be a page</td></tr></table>\"}",
            ),
            1,
        ),
        doc(reply(2, "page", 3, "{\"html\": \"...\", \"log\": \"template\"}"), 3),
    ];
    let mut s = fixture::state(items, 140, 30);
    typed(&mut s, "d");
    let drawn = screen(&s);
    assert!(drawn.contains("1 missing"), "{drawn}");
    assert!(drawn.contains("missing: no call names this page"), "{drawn}");
    assert!(drawn.contains("html 3 chars (tiny)"), "{drawn}");
}

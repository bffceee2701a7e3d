//! The inspector's rounds: the `page-shrank` flag on the pages' final answers, the rounds
//! screen (`R`) and a document's pages across the rounds (`a` on the documents screen),
//! driven through the update function over the three-round campaign where page 17 shrinks
//! and page 5 vanishes, and held to what `bracewalk scan` and `rounds` count.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bracewalk::analysis::{Config, Flag};
use bracewalk::logs::{self, Item, LoadOptions};
use bracewalk::scan::Scanner;
use bracewalk::scan::rounds::{Count, Fraction, Rounds};
use bracewalk::tui::State;
use bracewalk::tui::state::Mode;

use crate::support::campaign::{SHRINKING, write_shrinking};
use crate::support::tui_fixture::{self as fixture, screen, typed};

fn loaded(dir: &std::path::Path) -> Vec<Item> {
    let mut items = Vec::new();
    logs::load(&[dir.to_path_buf()], &LoadOptions::default(), &mut |i| items.push(i));
    items
}

/// The inspector over the fixture, every reply read.
fn opened(dir: &std::path::Path, w: u16, h: u16) -> State {
    let mut s = fixture::state(loaded(dir), w, h);
    fixture::complete(&mut s);
    s
}

/// `(round, document, page)` of each entry the flag is on.
fn flagged(s: &State) -> Vec<(String, String, u32)> {
    let mut v: Vec<(String, String, u32)> = s
        .list
        .entries()
        .iter()
        .filter(|e| e.facts.as_deref().is_some_and(|f| f.has(Flag::PageShrank)))
        .map(|e| {
            let m = e.meta().unwrap();
            (m.round.as_deref().unwrap().to_owned(), m.document.as_deref().unwrap().to_owned(), m.page.unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_flag_the_screen_and_the_page_history_name_the_pages_lost() {
    let dir = tempfile::tempdir().unwrap();
    write_shrinking(dir.path()).unwrap();
    let (first, second) = SHRINKING;
    let mut s = opened(dir.path(), 160, 50);
    let lost = vec![("round-10".to_owned(), first.to_owned(), 17), ("round-10".to_owned(), second.to_owned(), 5)];
    assert_eq!(flagged(&s), lost);

    // The filter's entry for the flag lists them, and the scan of the same files agrees.
    typed(&mut s, ":flag=page-shrank\n");
    assert_eq!(s.list.view().len(), 2);
    typed(&mut s, ":\n");
    let mut scanner = Scanner::new(Config::default());
    scanner.add_items(&loaded(dir.path()), Vec::new());
    let scan = scanner.finish();
    assert_eq!(scan.flagged(Flag::PageShrank).len(), 2);

    // The rounds screen: the flag's line, and the replies behind its cell in round-10.
    typed(&mut s, "R");
    assert_eq!(s.mode, Mode::Rounds);
    let drawn = screen(&s);
    assert!(drawn.contains("round-1") && drawn.contains("round-2") && drawn.contains("round-10"), "{drawn}");
    let on_screen = bracewalk::tui::rounds::screen(&s).unwrap();
    let from_scan = Rounds::of(&scan, Fraction::HALF);
    assert_eq!(on_screen.rounds.names, from_scan.names);
    for (a, b) in on_screen.rounds.lines.iter().zip(&from_scan.lines) {
        assert_eq!((&a.label, &a.values), (&b.label, &b.values), "{:?}", a.count);
    }
    let line = on_screen
        .rounds
        .lines
        .iter()
        .position(|l| l.count == Count::Report(bracewalk::scan::report::Row::Flag(Flag::PageShrank)))
        .unwrap();
    assert_eq!(on_screen.rounds.lines[line].values, [0, 0, 2]);
    for _ in 0..line {
        typed(&mut s, "j");
    }
    // round-10's value: the third round, past round-1's value, round-2's value and change.
    typed(&mut s, "lll");
    typed(&mut s, "\n");
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.list.view().len(), 2, "{:?}", s.flash);
    // Its change from round-2: the same two, which came in round-10.
    typed(&mut s, "fc\x1bR");
    typed(&mut s, "l\n");
    assert_eq!(s.list.view().len(), 2, "{:?}", s.flash);

    // The documents screen, on the first document of round-10, its pages across the rounds.
    typed(&mut s, "fc\x1bd");
    assert_eq!(s.mode, Mode::Documents);
    let history = bracewalk::tui::rounds::page_history(&s, first);
    let lost_pages: Vec<(u32, &str, &str, usize, Option<usize>)> =
        history.losses.iter().map(|l| (l.page, l.round.as_str(), l.since.as_str(), l.before, l.after)).collect();
    assert_eq!(lost_pages, [(17, "round-10", "round-2", 8_334, Some(3))]);
    let history = bracewalk::tui::rounds::page_history(&s, second);
    assert_eq!(history.losses.iter().map(|l| (l.page, l.after)).collect::<Vec<_>>(), [(5, None)]);
    typed(&mut s, "a");
    let Mode::PageHistory { document, .. } = &s.mode else { panic!("{:?}", s.mode) };
    assert_eq!(document, first);
    let drawn = screen(&s);
    let p17 = drawn.lines().find(|l| l.contains("p17 ")).unwrap();
    assert!(p17.contains("⚑ 3 ") && p17.contains("(was 8,334)"), "{drawn}");
    let lost_rows = drawn.lines().filter(|l| l.contains("⚑ ") && l.contains(" p")).count();
    assert_eq!(lost_rows, 1, "one page lost in this document: {drawn}");
    insta::assert_snapshot!("page_history_160x50", drawn);
    // Page 17 in round-10 beside round-2, with their decisions.
    let pages: Vec<u32> = (1..=18).collect();
    let at = pages.iter().position(|&p| p == 17).unwrap();
    typed(&mut s, "g");
    for _ in 0..at {
        typed(&mut s, "j");
    }
    typed(&mut s, "lll\n");
    let drawn = screen(&s);
    assert!(drawn.contains("round-10 · page 17") && drawn.contains("round-2 · the earlier round"), "{drawn}");
    assert!(drawn.contains("3 chars") && drawn.contains("8,334 chars"), "{drawn}");
    let flat: String = drawn.split('┃').collect::<Vec<_>>().join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("page-shrank: page 17 of 3f1c9a0e7b2d4c58: 8,334 chars in round-2,"), "{drawn}");
    insta::assert_snapshot!("page_history_side_by_side_160x50", drawn);
}

/// The flag follows the replies: a later correction of the page in the last round takes it
/// off, a round still being written shows as such (and its pages are judged as they come), and
/// a file that goes takes its flags with it.
#[test]
fn the_flag_follows_replies_as_they_come_and_go() {
    use bracewalk::tui::Msg;
    use bracewalk::tui::entry::Entry;
    use bracewalk::tui::message::{Incoming, Read};

    let dir = tempfile::tempdir().unwrap();
    write_shrinking(dir.path()).unwrap();
    let (first, _) = SHRINKING;
    let mut s = opened(dir.path(), 120, 40);
    assert_eq!(flagged(&s).len(), 2);
    // A correction of page 17 in round-10, later than the template: its final answer now.
    let log = dir.path().join("round-10").join(first).join("log.jsonl");
    let mut meta = s.list.entries().iter().find(|e| *e.source == *log).unwrap().meta().unwrap().clone();
    meta.page = Some(17);
    meta.agent = Some("page".into());
    meta.ts = Some("2025-05-03T23:59:59.000Z".into());
    let text = format!("{{\"html\": \"{}\", \"log\": \"Page 17.\"}}", "x".repeat(8_000));
    let reply = bracewalk::logs::Reply {
        id: format!("{}:99", log.display()),
        source: log.clone(),
        line: Some(99),
        offset: 0,
        text: text.clone(),
        meta,
    };
    let e = Entry::from_item(10_000, Item::Reply(reply));
    fixture::drive(&mut s, Msg::Incoming { batch: vec![Incoming::Entry(e)], initial: false });
    // Not judged again until the new reply is read.
    assert_eq!(flagged(&s).len(), 2);
    let read = Read::whole(10_000, &text, false, &s.config);
    fixture::drive(&mut s, Msg::Facts(vec![read]));
    assert_eq!(flagged(&s), [("round-10".to_owned(), SHRINKING.1.to_owned(), 5)]);
    // Its record amended to name another page: page 17's final answer is the template again,
    // and once amended back, the correction again.
    let amend = |s: &mut State, page: u32| {
        let mut meta = s.list.entry(10_000).unwrap().meta().unwrap().clone();
        meta.page = Some(page);
        let amended = Incoming::Amended { source: log.clone(), line: 99, meta: Box::new(meta) };
        fixture::drive(s, Msg::Incoming { batch: vec![amended], initial: false });
    };
    amend(&mut s, 18);
    assert_eq!(flagged(&s).len(), 2, "{:?}", flagged(&s));
    assert!(flagged(&s).contains(&("round-10".to_owned(), first.to_owned(), 17)));
    amend(&mut s, 17);
    assert_eq!(flagged(&s), [("round-10".to_owned(), SHRINKING.1.to_owned(), 5)]);
    // A round still being written: a reply of round-11 whose run has no outcome yet.
    let mut meta = s.list.entries().iter().find(|e| *e.source == *log).unwrap().meta().unwrap().clone();
    meta.round = Some("round-11".into());
    (meta.document_outcome, meta.run_outcome, meta.page) = (None, None, Some(1));
    let source = dir.path().join("round-11").join(first).join("log.jsonl");
    let text = format!("{{\"html\": \"{}\"}}", "y".repeat(40));
    let reply = bracewalk::logs::Reply {
        id: format!("{}:2", source.display()),
        source,
        line: Some(2),
        offset: 0,
        text: text.clone(),
        meta,
    };
    fixture::drive(
        &mut s,
        Msg::Incoming { batch: vec![Incoming::Entry(Entry::from_item(10_001, Item::Reply(reply)))], initial: false },
    );
    let read = Read::whole(10_001, &text, false, &s.config);
    fixture::drive(&mut s, Msg::Facts(vec![read]));
    fixture::complete(&mut s);
    typed(&mut s, "R");
    let on_screen = s.rounds_screen.clone().unwrap().1;
    assert_eq!(on_screen.rounds.names.last().map(String::as_str), Some("round-11"));
    assert_eq!(on_screen.rounds.open, [false, false, false, true]);
    let drawn = screen(&s);
    assert!(drawn.contains("still being written: round-11"), "{drawn}");
    // Page 1 went from 937 characters to 40 in it, and is flagged while the round is written.
    assert!(flagged(&s).contains(&("round-11".to_owned(), first.to_owned(), 1)));
    typed(&mut s, "\x1b");
    // The second document's round-10 log goes: nothing is lost any more.
    let gone = dir.path().join("round-10").join(SHRINKING.1).join("log.jsonl");
    fixture::drive(&mut s, Msg::Incoming { batch: vec![Incoming::Removed { source: gone }], initial: false });
    assert_eq!(flagged(&s), [("round-11".to_owned(), first.to_owned(), 1)]);
}

/// The rounds screen lays out what a scan of the same replies counts, round by round, on the
/// sample campaign and on a generated one.
#[test]
fn the_rounds_screen_agrees_with_the_scan_on_the_samples_and_a_generated_campaign() {
    use crate::support::campaign::{Shape, write_campaign};
    let generated = tempfile::tempdir().unwrap();
    let shape = Shape { rounds: 11, documents: 2, replies: 10, sizes: (400, 2_000), ..Shape::default() };
    write_campaign(generated.path(), &shape).unwrap();
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    for dir in [samples.as_path(), generated.path()] {
        let mut s = opened(dir, 160, 50);
        typed(&mut s, "R");
        let on_screen = s.rounds_screen.clone().unwrap().1;
        let mut scanner = Scanner::new(Config::default());
        scanner.add_items(&loaded(dir), Vec::new());
        let scan = scanner.finish();
        let from_scan = Rounds::of(&scan, Fraction::HALF);
        assert_eq!(on_screen.rounds.names, from_scan.names, "{}", dir.display());
        for (a, b) in on_screen.rounds.lines.iter().zip(&from_scan.lines) {
            assert_eq!((&a.label, &a.values), (&b.label, &b.values), "{}", dir.display());
        }
        assert_eq!(on_screen.rounds.lines.len(), from_scan.lines.len());
        // `by_round`'s counts, for every round.
        for (r, name) in from_scan.names.iter().enumerate() {
            let g = &scan.by_round[name];
            assert_eq!(on_screen.rounds.lines[0].values[r], g.replies.len() as u64, "{name}");
            assert_eq!(on_screen.rounds.lines[1].values[r], g.bytes, "{name}");
        }
        assert_eq!(on_screen.rounds.history.losses.len(), from_scan.history.losses.len());
    }
}

//! The inspector's update function without a terminal: key sequences in, state out.

use crate::support::replies::{REFUSED_NOT_SELF_CONTAINED, REFUSED_WALK_CLOSED, TRUNCATED_ARRAY, WHOLE_REPLY_TAKEN};
use crate::support::tui_fixture as fixture;

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use bracewalk::analysis::Config;
use bracewalk::exact::trace::{DecidedBy, Verdict};
use bracewalk::logs::Item;
use bracewalk::readers::ReaderId;
use bracewalk::scan::report::Row;
use bracewalk::scan::{Scan, Scanner};
use bracewalk::tui::badges::Badge;
use bracewalk::tui::entry::Entry;
use bracewalk::tui::list::{SortKey, arrival};
use bracewalk::tui::message::Incoming;
use bracewalk::tui::message::{Read, Unread};
use bracewalk::tui::reply::ValueSource;
use bracewalk::tui::state::{Mode, Pane};
use bracewalk::tui::summary;
use bracewalk::tui::{Effect, Msg, State};
use fixture::{bad_file, cut_reply, drive, key, pane, reply, screen, state, typed};

const TEMPLATE_THEN_ANSWER: &str = "template:\n{ \"html\": \"...\", \"log\": \"...\" }\nanswer:\n{\"html\": \"<table><tr><td>Fuel</td></tr></table>\", \"log\": \"Page 17.\"}";
const NOTHING_READS: &str = "I could not produce the page: {html, log} is the contract";
const BIG: &str =
    "{\"html\": \"<p>a long page</p><p>with more text than the others, and more again</p>\", \"log\": \"ok\"}";

fn three() -> Vec<Item> {
    vec![reply(10, "page", 1, TEMPLATE_THEN_ANSWER), reply(20, "feedback", 1, NOTHING_READS), reply(30, "page", 2, BIG)]
}

fn selected_line(s: &bracewalk::tui::State) -> Option<usize> {
    s.selected().and_then(|e| e.line)
}

#[test]
fn j_k_g_and_shift_g_move_through_the_list() {
    let mut s = state(three(), 100, 30);
    assert_eq!(selected_line(&s), Some(10));
    typed(&mut s, "j");
    assert_eq!(selected_line(&s), Some(20));
    typed(&mut s, "G");
    assert_eq!(selected_line(&s), Some(30));
    typed(&mut s, "jjj");
    assert_eq!(selected_line(&s), Some(30), "the list's end holds");
    typed(&mut s, "kg");
    assert_eq!(selected_line(&s), Some(10));
    drive(&mut s, key(KeyCode::Down));
    assert_eq!(selected_line(&s), Some(20));
    drive(&mut s, key(KeyCode::PageDown));
    assert_eq!(selected_line(&s), Some(30));
}

#[test]
fn selecting_a_reply_asks_for_its_record_once() {
    let mut s = state(three(), 100, 30);
    let fx = bracewalk::tui::update(&mut s, key(KeyCode::Char('j')));
    assert!(matches!(fx.as_slice(), [Effect::Detail { .. }]), "{fx:?}");
    let again = bracewalk::tui::update(&mut s, key(KeyCode::Char('k')));
    assert!(again.is_empty(), "the first reply's record is cached: {again:?}");
}

#[test]
fn tab_moves_focus_and_enter_and_esc_drill_in_and_out() {
    let mut s = state(three(), 100, 30);
    assert_eq!(s.focus, Pane::List);
    typed(&mut s, "\t");
    assert_eq!(s.focus, Pane::Text);
    drive(&mut s, Msg::Key(crossterm::event::KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)));
    assert_eq!(s.focus, Pane::List);
    typed(&mut s, "\n\n");
    assert_eq!(s.focus, Pane::Readings);
    typed(&mut s, "\x1b");
    assert_eq!(s.focus, Pane::Text);
    typed(&mut s, "\x1b");
    assert_eq!(s.focus, Pane::List);
    typed(&mut s, "5");
    assert_eq!(s.focus, Pane::Value);
}

#[test]
fn brackets_walk_the_candidates_and_the_answer_is_selected_first() {
    let mut s = state(three(), 100, 30);
    let d = s.detail().expect("record made").clone();
    assert_eq!(d.trace.candidates.len(), 2);
    assert_eq!(s.reply.candidate, 1, "the kept candidate is selected when the record arrives");
    typed(&mut s, "[");
    assert_eq!(s.reply.candidate, 0);
    typed(&mut s, "[[");
    assert_eq!(s.reply.candidate, 0, "the first candidate holds");
    typed(&mut s, "]]]");
    assert_eq!(s.reply.candidate, 1);
}

#[test]
fn search_finds_matches_and_n_cycles_them() {
    let mut s = state(three(), 100, 30);
    typed(&mut s, "/html\n");
    let search = s.reply.search.as_ref().expect("a search");
    assert_eq!(search.matches.len(), 2);
    assert_eq!(search.current, Some(0));
    assert_eq!(s.mode, Mode::Normal);
    typed(&mut s, "n");
    assert_eq!(s.reply.search.as_ref().unwrap().current, Some(1));
    assert_eq!(s.reply.candidate, 1, "the match's candidate is selected");
    typed(&mut s, "n");
    assert_eq!(s.reply.search.as_ref().unwrap().current, Some(0), "n wraps around");
    typed(&mut s, "N");
    assert_eq!(s.reply.search.as_ref().unwrap().current, Some(1));
    // Another reply: the matches are its own.
    typed(&mut s, "j");
    assert_eq!(s.reply.search.as_ref().unwrap().matches.len(), 1);
    typed(&mut s, "/(unclosed\n");
    assert!(s.flash.as_deref().unwrap_or("").starts_with("not a regex"), "{:?}", s.flash);
}

#[test]
fn the_filter_combines_choices_and_says_so() {
    let mut items = three();
    items.push(bad_file());
    let mut s = state(items, 100, 30);
    assert_eq!(s.list.view().len(), 4);
    typed(&mut s, "f");
    let none = s.choices.iter().position(|c| *c == Badge::Report(Row::Decided(bracewalk::exact::DecidedBy::None)));
    let none = none.expect("decided by none is offered");
    for _ in 0..none {
        typed(&mut s, "j");
    }
    typed(&mut s, " ");
    assert_eq!(s.list.view().len(), 1);
    assert_eq!(selected_line(&s), Some(20));
    let problem = s.choices.iter().position(|c| *c == Badge::Diagnostic).unwrap();
    if let Mode::Filter { cursor } = s.mode {
        let keys = if problem > cursor { "j".repeat(problem - cursor) } else { "k".repeat(cursor - problem) };
        typed(&mut s, &keys);
    }
    typed(&mut s, " ");
    assert_eq!(s.list.view().len(), 2, "a decided-by choice and a kind-of-entry choice are alternatives");
    typed(&mut s, "\x1b");
    assert!(screen(&s).contains("filter: "), "the status line shows the filter");
    typed(&mut s, "fc\x1b");
    assert_eq!(s.list.view().len(), 4);
}

#[test]
fn s_cycles_the_sort_and_size_puts_the_biggest_first() {
    let mut s = state(three(), 100, 30);
    typed(&mut s, "s");
    assert_eq!(s.list.sort(), SortKey::Size);
    let sizes: Vec<usize> = s.list.view().iter().map(|&i| s.list.entries()[i].size()).collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
    typed(&mut s, "sss");
    assert_eq!(s.list.sort(), SortKey::Document);
    typed(&mut s, "s");
    assert_eq!(s.list.sort(), SortKey::Source);
}

#[test]
fn marks_are_saved_jumped_to_and_removed() {
    let mut s = state(three(), 100, 30);
    typed(&mut s, "j");
    let fx = typed(&mut s, "mhtml is 3 chars\n");
    let [Effect::SaveMarks(marks)] = fx.as_slice() else { panic!("{fx:?}") };
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].note, "html is 3 chars");
    assert_eq!(marks[0].id, "logs/run-1/log.jsonl:20");
    typed(&mut s, "G'");
    assert_eq!(selected_line(&s), Some(20), "' goes to the next mark, round the end");
    let fx = typed(&mut s, "M");
    assert!(matches!(fx.as_slice(), [Effect::SaveMarks(m)] if m.is_empty()), "{fx:?}");
    typed(&mut s, "'");
    assert_eq!(s.flash.as_deref(), Some("no marks yet: press m to mark a reply"));
}

#[test]
fn y_yanks_the_value_and_v_switches_to_the_candidate() {
    let mut s = state(three(), 100, 30);
    let fx = typed(&mut s, "y");
    let [Effect::Yank(json)] = fx.as_slice() else { panic!("{fx:?}") };
    assert!(json.contains("<table>"), "{json}");
    typed(&mut s, "v[");
    assert_eq!(s.reply.tree.source, ValueSource::Candidate);
    let fx = typed(&mut s, "y");
    let [Effect::Yank(json)] = fx.as_slice() else { panic!("{fx:?}") };
    assert!(json.contains("\"...\""), "the template's value: {json}");
}

#[test]
fn o_opens_the_log_at_the_reply_line() {
    let mut s = state(three(), 100, 30);
    let fx = typed(&mut s, "jo");
    assert_eq!(fx, vec![Effect::Open { path: PathBuf::from("logs/run-1/log.jsonl"), line: 20 }]);
}

fn later(key: u64, item: Item) -> Msg {
    Msg::Incoming { batch: vec![Incoming::Entry(Entry::from_item(key, item))], initial: false }
}

#[test]
fn new_replies_are_marked_new_and_followed_and_pause_holds_them() {
    let mut s = state(three(), 100, 30);
    drive(&mut s, later(100, reply(40, "page", 3, BIG)));
    assert!(s.list.entries().last().unwrap().new);
    assert_eq!(selected_line(&s), Some(10), "not following: the selection stays");
    typed(&mut s, "F");
    assert!(s.loading.follow);
    drive(&mut s, later(101, reply(50, "page", 4, BIG)));
    assert_eq!(selected_line(&s), Some(50), "following: the new reply is selected");
    typed(&mut s, "p");
    drive(&mut s, later(102, reply(60, "page", 5, BIG)));
    assert_eq!(s.list.entries().len(), 5, "paused: held, not shown");
    assert_eq!(s.loading.held(), 1);
    typed(&mut s, "p");
    assert_eq!(s.list.entries().len(), 6);
    assert_eq!(selected_line(&s), Some(60));
}

#[test]
fn a_restarted_file_is_read_again_and_a_deleted_one_leaves_the_list() {
    let mut s = state(three(), 100, 30);
    let source = PathBuf::from("logs/run-1/log.jsonl");
    drive(&mut s, Msg::Incoming { batch: vec![Incoming::Restarted { source: source.clone() }], initial: false });
    assert!(s.list.entries().is_empty());
    let again: Vec<Incoming> =
        three().into_iter().enumerate().map(|(i, it)| Incoming::Entry(Entry::from_item(200 + i as u64, it))).collect();
    drive(&mut s, Msg::Incoming { batch: again, initial: false });
    assert_eq!(s.list.entries().len(), 3);
    assert!(s.list.entries().iter().all(|e| !e.new), "what was there before is not new");
    drive(&mut s, Msg::Incoming { batch: vec![Incoming::Removed { source: source.clone() }], initial: false });
    // The list lists what is on disk, as `bracewalk list` does; the status line says what went.
    assert!(s.list.entries().is_empty());
    assert_eq!(s.flash.as_deref(), Some("deleted: logs/run-1/log.jsonl, 3 replies left the list"));
}

/// A reply at `file:line`, `size` bytes long.
fn reply_in(file: &str, line: usize, size: usize) -> Item {
    match reply(line, "page", 1, &format!("{{\"a\": \"{}\"}}", "x".repeat(size))) {
        Item::Reply(mut r) => {
            r.source = PathBuf::from(file);
            r.id = format!("{file}:{line}");
            Item::Reply(r)
        }
        other => other,
    }
}

fn batch(from_key: u64, items: Vec<Item>) -> Msg {
    let batch = items
        .into_iter()
        .enumerate()
        .map(|(i, it)| Incoming::Entry(Entry::from_item(from_key + i as u64, it)))
        .collect();
    Msg::Incoming { batch, initial: false }
}

#[test]
fn replies_arriving_above_leave_the_rows_shown_and_the_selection_in_place() {
    let items = (1..=60).map(|i| reply_in("logs/a.jsonl", i, 100 + i)).collect();
    let mut s = state(items, 100, 30);
    typed(&mut s, "s");
    assert_eq!(s.list.sort(), SortKey::Size);
    // Scrolled down, then up a little: the selection is mid-screen.
    typed(&mut s, &format!("{}kkkk", "j".repeat(30)));
    let (top, cursor) = (s.list.top(), s.list.cursor());
    assert!(top > 0 && cursor > top, "scrolled");
    let shown =
        |s: &State| s.list.view()[s.list.top()..].iter().take(5).map(|&i| s.list.entries()[i].key).collect::<Vec<_>>();
    let (rows, selected) = (shown(&s), s.selected().unwrap().key);
    // Five bigger replies sort above everything shown.
    drive(&mut s, batch(1000, (1..=5).map(|i| reply_in("logs/b.jsonl", i, 1000 + i)).collect()));
    assert_eq!(s.selected().unwrap().key, selected);
    assert_eq!((s.list.top(), s.list.cursor()), (top + 5, cursor + 5));
    assert_eq!(shown(&s), rows, "the rows on screen stay where they were");
    // Smaller ones sort below: nothing moves.
    drive(&mut s, batch(2000, (1..=5).map(|i| reply_in("logs/c.jsonl", i, i)).collect()));
    assert_eq!((s.list.top(), s.list.cursor()), (top + 5, cursor + 5));
    assert_eq!(shown(&s), rows);
}

#[test]
fn a_restarted_file_leaves_the_selection_in_another_where_it_was() {
    // Regression: the entries of a file that restarted were taken out from under the list's
    // positions, and the selection jumped to whatever then sat at the old position.
    let mut items: Vec<Item> = (1..=3).map(|i| reply_in("logs/a.jsonl", i, 10)).collect();
    items.extend((1..=3).map(|i| reply_in("logs/b.jsonl", i, 10)));
    let mut s = state(items, 100, 30);
    typed(&mut s, "G");
    assert_eq!(s.selected().unwrap().reference(), "logs/b.jsonl:3");
    let source = PathBuf::from("logs/a.jsonl");
    drive(&mut s, Msg::Incoming { batch: vec![Incoming::Restarted { source }], initial: false });
    assert_eq!(s.list.view().len(), 3);
    assert_eq!(s.selected().unwrap().reference(), "logs/b.jsonl:3");
}

#[test]
fn a_reply_renamed_with_its_file_keeps_its_mark_and_place_and_what_was_asked_under_the_old_name_is_let_go() {
    let mut items: Vec<Item> = (1..=3).map(|i| reply_in("logs/a.jsonl", i, 10)).collect();
    items.extend((1..=3).map(|i| reply_in("logs/b.jsonl", i, 10 + i)));
    let mut s = state(items, 100, 30);
    // Sorted by size, where a rename moves nothing.
    typed(&mut s, "s");
    let at = s.list.view().iter().position(|&i| *s.list.entries()[i].id == *"logs/a.jsonl:2").unwrap();
    s.list.set_cursor(at);
    typed(&mut s, "mlook at this\n");
    let before = s.selected().unwrap().clone();
    let view = |s: &State| s.list.shown().map(|e| e.id.to_string()).collect::<Vec<_>>();
    let order = view(&s);

    let moves = vec![(PathBuf::from("logs/a.jsonl"), PathBuf::from("logs/a.1.jsonl"))];
    let fx = drive(&mut s, Msg::Incoming { batch: vec![Incoming::Moved { moves }], initial: false });
    let renamed: Vec<String> = order.iter().map(|id| id.replace("logs/a.jsonl", "logs/a.1.jsonl")).collect();
    assert_eq!(view(&s), renamed, "every reply in its place, under its new name");
    let e = s.selected().unwrap();
    assert_eq!((&*e.id, &*e.source), ("logs/a.1.jsonl:2", std::path::Path::new("logs/a.1.jsonl")));
    assert_eq!(
        e.facts,
        before.facts.map(|mut f| {
            f.id = e.id.clone();
            f
        })
    );
    assert!(s.list.is_marked(e) && !s.list.marks().contains_key("logs/a.jsonl:2"), "the mark moved with it");
    let saved = fx.iter().find_map(|f| match f {
        Effect::SaveMarks(m) => Some(m.iter().map(|m| m.id.clone()).collect::<Vec<_>>()),
        _ => None,
    });
    assert_eq!(saved, Some(vec!["logs/a.1.jsonl:2".to_owned()]));
    assert_eq!(arrival(e.key), arrival(before.key), "the same entry");
    assert_ne!(e.key, before.key, "under a new key");
    assert_eq!(s.reply.key(), Some(e.key), "the reply panes stay on it");
    // Its facts are not complete yet: read again, from the new name.
    let reread: Vec<_> = fx
        .iter()
        .filter_map(|f| match f {
            Effect::Reread { key, locator, .. } => Some((*key, locator.source.to_path_buf())),
            _ => None,
        })
        .collect();
    assert_eq!(reread.len(), 3);
    assert!(reread.contains(&(e.key, PathBuf::from("logs/a.1.jsonl"))), "{reread:?}");

    // What was asked under the old key and answers late, perhaps from another file now at
    // the old name, is let go.
    let (key, facts) = (e.key, e.facts.clone());
    let wrong = Read::early(before.key, "{\"another\": \"file\"}", false, &s.config);
    drive(&mut s, Msg::Facts(vec![wrong]));
    drive(&mut s, Msg::Lost(vec![(before.key, Unread::NotAReply)]));
    let e = s.selected().unwrap();
    assert_eq!((e.key, &e.facts, e.gone), (key, &facts, false));

    // Deleted: its replies leave, the status line says so, the mark is kept for its return.
    let source = PathBuf::from("logs/a.1.jsonl");
    drive(&mut s, Msg::Incoming { batch: vec![Incoming::Removed { source }], initial: false });
    assert_eq!(view(&s), ["logs/b.jsonl:3", "logs/b.jsonl:2", "logs/b.jsonl:1"]);
    assert_eq!(
        s.flash.as_deref(),
        Some("deleted: logs/a.1.jsonl, 3 replies left the list (1 marked; its mark is kept)")
    );
    assert!(s.list.marks().contains_key("logs/a.1.jsonl:2"));
    assert!(s.selected().is_some_and(|e| *e.source == *std::path::Path::new("logs/b.jsonl")));
}

#[test]
fn a_click_selects_a_reply_and_the_wheel_scrolls() {
    let mut s = state(three(), 80, 24);
    // Small terminal: the tab bar, then the list's border and header; the third reply is on
    // row 5.
    let click = |row| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 10,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    drive(&mut s, click(5));
    assert_eq!(selected_line(&s), Some(30));
    drive(&mut s, click(0));
    assert_eq!(s.focus, Pane::List);
    let wheel =
        Msg::Mouse(MouseEvent { kind: MouseEventKind::ScrollUp, column: 10, row: 4, modifiers: KeyModifiers::NONE });
    drive(&mut s, wheel);
    assert_eq!(selected_line(&s), Some(10));
}

#[test]
fn any_size_draws_without_panicking() {
    let mut s = state(
        vec![reply(1, "page", 1, TEMPLATE_THEN_ANSWER), cut_reply(2, "{\"edits\":[{\"a\":1},{\"b\""), bad_file()],
        80,
        24,
    );
    scanned(&mut s);
    for (w, h) in [(1, 1), (10, 5), (20, 8), (80, 24), (139, 33), (140, 34), (300, 100)] {
        drive(&mut s, Msg::Resize(w, h));
        for keys in ["", "\t", "\t", "\t", "\t", "\t", "?", "\x1b", "jj", "w", "S", "jG", "\t", "\n", "S\x1b"] {
            typed(&mut s, keys);
            let _ = screen(&s);
        }
    }
}

#[test]
fn q_quits() {
    let mut s = state(three(), 100, 30);
    typed(&mut s, "q");
    assert!(s.quit);
    let mut s = state(three(), 100, 30);
    drive(&mut s, Msg::Key(crossterm::event::KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)));
    assert!(s.quit);
}

// ---- the summary screen and the what-if column ---------------------------------------------

/// A scratch template, then the answer: first-wins keeps the template.
const TEMPLATE_BEFORE_ANSWER: &str = "I'll fill in the template first:\n{ \"html\": \"...\", \"log\": \"...\" }\nNow the page itself:\n{\"html\": \"<table><tr><td>Fuel</td><td>3,891,986</td></tr></table>\", \"log\": \"Page 17. Table 3 continues beyond this page\"}";
const WHOLE_TEXT: &str = "{\"issues\": []}";

/// Replies of every outcome, over two rounds and four agents, with a load problem.
fn corpus() -> Vec<Item> {
    vec![
        bad_file(),
        reply(11, "page", 17, TEMPLATE_BEFORE_ANSWER),
        reply(12, "feedback", 3, WHOLE_REPLY_TAKEN),
        reply(13, "page", 9, REFUSED_WALK_CLOSED),
        reply(14, "page", 4, REFUSED_NOT_SELF_CONTAINED),
        cut_reply(15, TRUNCATED_ARRAY),
        fixture::in_round(reply(16, "page", 18, TEMPLATE_BEFORE_ANSWER), "round-5"),
        fixture::in_round(reply(17, "feedback", 18, WHOLE_REPLY_TAKEN), "round-5"),
        fixture::in_round(reply(18, "page", 19, NOTHING_READS), "round-5"),
        fixture::in_round(reply(19, "reader", 6, WHOLE_TEXT), "round-5"),
        fixture::in_round(reply(20, "page", 20, REFUSED_WALK_CLOSED), "round-5"),
    ]
}

/// Reads every reply not yet read for the scan, as the worker does: the early facts, then
/// the rest.
fn scanned(s: &mut State) {
    let config = s.config.clone();
    let read: Vec<Read> = s
        .list
        .entries()
        .iter()
        .filter(|e| !e.complete())
        .filter_map(|e| {
            let text = e.held_text()?;
            let facts = match e.facts.as_deref() {
                Some(f) => f.clone(),
                None => Read::early(e.key, text, e.cut(), &config).facts,
            };
            Some(Read::complete(e.key, text, facts, &config, &[]))
        })
        .collect();
    drive(s, Msg::Facts(read));
}

/// The row of the comparison of the reader named `name` with the seed.
fn differs(s: &State, name: &str) -> Row {
    Row::Differs(s.config.pair_with_seed(reader(s, name)).unwrap())
}

fn reader(s: &State, name: &str) -> ReaderId {
    s.config.catalogue.find(name).unwrap()
}

fn scanned_state(w: u16, h: u16) -> State {
    let mut s = state(corpus(), w, h);
    scanned(&mut s);
    s
}

/// `bracewalk::scan` run directly over the same replies, in the same order.
fn scan_directly(items: &[Item]) -> Scan {
    let mut scanner = Scanner::new(Config::default());
    scanner.add_items(items, Vec::new());
    scanner.finish()
}

/// The row the cursor must be on for `target`, counted through the sections.
fn row_index(s: &State, target: &Row) -> usize {
    let sections = summary::blocks(&s.corpus.as_ref().unwrap().scan);
    sections.iter().flat_map(|x| x.lines.iter()).position(|r| r.target == *target).unwrap()
}

fn shown_ids(s: &State) -> Vec<String> {
    s.list.view().iter().map(|&i| s.list.entries()[i].id.to_string()).collect()
}

#[test]
fn shift_s_opens_the_summary_j_k_move_and_esc_s_q_come_back() {
    let mut s = scanned_state(100, 30);
    typed(&mut s, "S");
    assert_eq!(s.mode, Mode::Summary);
    assert!(s.corpus.is_some(), "the scan is folded when the screen opens");
    assert_eq!(s.summary.cursor, 0);
    typed(&mut s, "jjj");
    assert_eq!(s.summary.cursor, 3);
    typed(&mut s, "k");
    assert_eq!(s.summary.cursor, 2);
    typed(&mut s, "\t");
    assert_eq!(s.summary.cursor, 4, "Tab: the whole-reply section's first row");
    typed(&mut s, "G");
    let rows = summary::row_count(&summary::blocks(&s.corpus.as_ref().unwrap().scan));
    assert_eq!(s.summary.cursor, rows - 1);
    typed(&mut s, "j");
    assert_eq!(s.summary.cursor, rows - 1, "the last row holds");
    assert!(screen(&s).contains("no-self-contained-gate"), "scrolled to the last row:\n{}", screen(&s));
    typed(&mut s, "g");
    assert_eq!(s.summary.cursor, 0);
    assert!(screen(&s).contains("how last-wins decided"), "scrolled back to the top");
    typed(&mut s, "\x1b");
    assert_eq!(s.mode, Mode::Normal);
    typed(&mut s, "SS");
    assert_eq!(s.mode, Mode::Normal);
    typed(&mut s, "Sq");
    assert_eq!(s.mode, Mode::Normal);
    assert!(!s.quit, "q in the summary goes back, it does not quit");
    typed(&mut s, "S");
    assert_eq!(s.summary.cursor, 0, "the screen opens where it was left");
}

#[test]
fn enter_on_a_comparison_row_lists_exactly_its_replies_and_selects_the_first() {
    let mut s = scanned_state(100, 30);
    typed(&mut s, "j");
    let target = differs(&s, "narrow-everywhere");
    typed(&mut s, "S");
    let row = row_index(&s, &target);
    typed(&mut s, &"j".repeat(row));
    assert_eq!(s.summary.cursor, row);
    typed(&mut s, "\n");
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.focus, Pane::List);
    assert_eq!(s.list.filter().on.iter().collect::<Vec<_>>(), vec![&Badge::Report(target.clone())]);
    // Independently: the replies `bracewalk::scan` finds narrow-everywhere reads differently.
    let direct = scan_directly(&corpus());
    let expected: Vec<String> =
        direct.comparison("narrow-everywhere").unwrap().differ.iter().map(|d| direct.id(d.reply).to_owned()).collect();
    assert_eq!(expected, ["logs/run-1/log.jsonl:13", "logs/run-1/log.jsonl:14", "logs/run-1/log.jsonl:20"]);
    assert_eq!(shown_ids(&s), expected);
    assert_eq!(s.list.cursor(), 0);
    assert_eq!(*s.selected().unwrap().id, *expected[0], "the first of them is selected");
    assert_eq!(s.what_if, Some(reader(&s, "narrow-everywhere")), "the column shows the what-if's verdict");
    let drawn = screen(&s);
    assert!(drawn.contains("filter: narrow-everywhere differs"), "{drawn}");
    assert!(drawn.contains("what-if: narrow-everywhere"), "{drawn}");
    // The readers pane gives the scan's account for the selected reply.
    let readers = pane(&s, Pane::Compare, 100, 12);
    assert!(readers.contains("what-if narrow-everywhere → last-wins: differs: html: 53 chars → 34 chars"), "{readers}");
    // The filter menu shows the row, and c clears it.
    typed(&mut s, "f");
    assert_eq!(s.choices.first(), Some(&Badge::Report(target)));
    typed(&mut s, "c\x1b");
    assert!(s.list.filter().is_empty());
    assert_eq!(s.list.view().len(), corpus().len());
}

#[test]
fn every_row_filters_to_the_replies_the_scan_puts_behind_it() {
    let mut s = scanned_state(100, 30);
    typed(&mut s, "S");
    let direct = scan_directly(&corpus());
    let sections = summary::blocks(&s.corpus.as_ref().unwrap().scan);
    for (i, row) in sections.iter().flat_map(|x| x.lines.iter()).enumerate() {
        s.summary.cursor = i;
        typed(&mut s, "\n");
        let expected: Vec<String> = row.target.replies(&direct).iter().map(|(r, _)| direct.id(*r).to_owned()).collect();
        assert_eq!(expected.len(), row.count, "{:?}", row.target);
        if row.count == 0 {
            assert_eq!(s.mode, Mode::Summary, "nothing behind {:?}: the screen stays", row.target);
            assert!(s.flash.as_deref().unwrap_or("").starts_with("no replies behind"), "{:?}", s.flash);
            continue;
        }
        assert_eq!(shown_ids(&s), expected, "{:?}", row.target);
        typed(&mut s, "fc\x1bS");
    }
}

#[test]
fn w_cycles_the_what_if_and_the_list_shows_its_column() {
    let mut s = scanned_state(120, 40);
    assert!(!screen(&s).contains("last-wins  flags"));
    typed(&mut s, "w");
    assert_eq!(s.what_if, Some(ReaderId::FIRST_WINS));
    let drawn = screen(&s);
    assert!(drawn.contains("first-wins → last-wins"), "the column's header:\n{drawn}");
    assert!(drawn.contains("what-if: first-wins"), "the status line names it:\n{drawn}");
    // The template reply: first-wins keeps the template, so its line says how they differ.
    let line = drawn.lines().find(|l| l.contains("run-1:11 ")).unwrap();
    assert!(line.contains("≠ html: 3 chars → 55 chars"), "{line}");
    let line = drawn.lines().find(|l| l.contains("run-1:19 ")).unwrap();
    assert!(line.contains("whole-text  same"), "{line}");
    typed(&mut s, "w");
    assert_eq!(s.what_if, Some(ReaderId::STRICT_ONLY));
    assert!(screen(&s).contains("strict-only → last-wins"));
    typed(&mut s, "wwwwwww");
    assert_eq!(s.what_if, Some(reader(&s, "no-self-contained-gate")));
    typed(&mut s, "w");
    assert_eq!(s.what_if, Some(reader(&s, "fence-first")));
    typed(&mut s, "w");
    assert_eq!(s.what_if, None);
    let drawn = screen(&s);
    assert!(!drawn.contains("→ last-wins") && !drawn.contains("what-if:"), "{drawn}");
}

/// A large campaign's summary is folded on as the facts come, each reply once, not folded
/// anew for each batch of them (which took the event loop tens of milliseconds a batch); once
/// every reply is read it is the scan of them all, as `bracewalk scan` counts them. Its
/// panel's replies are looked for among the entries as the fold goes on.
#[test]
fn a_large_summary_folded_on_as_the_facts_come_is_the_scan_of_them_all() {
    let texts =
        [TEMPLATE_BEFORE_ANSWER, WHOLE_REPLY_TAKEN, REFUSED_WALK_CLOSED, REFUSED_NOT_SELF_CONTAINED, WHOLE_TEXT];
    // An array cut short only in the last batch's replies, which no reading of the whole reply
    // reads: the panel under that row finds them only once it has looked past every reply
    // before. (A row above the groups, which grow as replies are counted.)
    let items: Vec<Item> = (0..4500)
        .map(|i| {
            let text = if i >= 4480 { TRUNCATED_ARRAY } else { texts[i % texts.len()] };
            let item = reply(i + 1, ["page", "feedback", "reader"][i % 3], (i % 40) as u32, text);
            if i % 4 == 0 { fixture::in_round(item, "round-5") } else { item }
        })
        .collect();
    let mut s = state(items.clone(), 120, 60);
    typed(&mut s, "S");
    let no_reading = Row::Verdict(Verdict::NoReading);
    s.summary.cursor = row_index(&s, &no_reading);
    typed(&mut s, "");
    let direct = scan_directly(&items);
    let behind_row = no_reading.replies(&direct);
    assert_eq!(behind_row.first().map(|(i, _)| *i), Some(4480), "only the last batch's");
    assert!(s.corpus.as_ref().unwrap().folds_on());
    assert_eq!(s.corpus.as_ref().unwrap().scan.reply_count(), 0, "nothing is read yet");
    let config = s.config.clone();
    let mut reads: Vec<Read> = s
        .list
        .entries()
        .iter()
        .filter_map(|e| Some(Read::complete(e.key, e.held_text()?, e.facts.as_deref()?.clone(), &config, &[])))
        .collect();
    // In batches in order, each batch the other way round, as the readings thread's come.
    let mut counted = Vec::new();
    while !reads.is_empty() {
        let mut batch: Vec<Read> = reads.drain(..reads.len().min(700)).collect();
        batch.reverse();
        drive(&mut s, Msg::Facts(batch));
        let corpus = s.corpus.as_ref().unwrap();
        counted.push(corpus.scan.reply_count());
        // What is not counted yet is still being read, and said to be.
        assert_eq!(corpus.scan.reply_count() + corpus.pending, items.len());
        // The panel: the first of the replies behind the row among those counted so far.
        let found: Vec<(String, String)> = corpus
            .behind(&no_reading)
            .unwrap()
            .replies()
            .map(|(i, said)| (corpus.id(&s.list, *i).to_owned(), said.clone()))
            .collect();
        let expected: Vec<(String, String)> = behind_row
            .iter()
            .filter(|(i, _)| *i < corpus.scan.reply_count())
            .take(7)
            .map(|(i, said)| (direct.id(*i).to_owned(), said.clone()))
            .collect();
        assert_eq!(found, expected, "{} pending", corpus.pending);
    }
    // And on screen: the first of the 20.
    let drawn = screen(&s);
    assert!(drawn.contains("20 replies · Enter lists them"), "{drawn}");
    assert!(drawn.contains("  logs/run-1/log.jsonl:4481  "), "{drawn}");
    assert!(counted.windows(2).all(|w| w[0] < w[1]), "counted as they come: {counted:?}");
    let corpus = s.corpus.as_ref().unwrap();
    // Counted, as the scan's lists count.
    assert!(!corpus.listed);
    assert_eq!(corpus.scan, scan_directly(&items).into_counts());
    assert_eq!(corpus.pending, 0);
    assert_eq!(corpus.scan, summary::Corpus::of(s.list.entries(), &s.config, false).scan);
    let listed = summary::Corpus::of(s.list.entries(), &s.config, true).scan;
    assert_eq!(listed, scan_directly(&items));
}

#[test]
fn the_summary_shows_the_numbers_bracewalk_scan_counts() {
    let mut s = scanned_state(120, 60);
    typed(&mut s, "S");
    let direct = scan_directly(&corpus());
    assert_eq!(s.corpus.as_ref().unwrap().scan, direct.clone().into_counts(), "the folded scan is the scanner's");
    // And the screen says so: each count, found by its label, read off the screen.
    let drawn = screen(&s);
    let count = |label: &str| -> usize {
        let line = drawn
            .lines()
            .find(|l| {
                let l = l.trim_start_matches('"').trim_start_matches('┃');
                let row = l.strip_prefix("  ").or_else(|| l.strip_prefix("▸ "));
                let rest = row.and_then(|r| r.trim_start().strip_prefix(label));
                rest.is_some_and(|r| r.starts_with(' ') && r.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            })
            .unwrap_or_else(|| panic!("no row {label:?}:\n{drawn}"));
        let after = &line[line.find(label).unwrap() + label.len()..];
        after
            .split_whitespace()
            .next()
            .unwrap()
            .replace(",", "")
            .parse()
            .unwrap_or_else(|e| panic!("{label:?} in {line:?}: {e}"))
    };
    assert!(drawn.contains(&format!("{} replies, ", direct.replies.len())), "{drawn}");
    assert!(drawn.contains("1 call with no reply") || direct.calls_without_reply.is_empty());
    for d in DecidedBy::ALL {
        assert_eq!(count(d.name()), direct.decided(d).len(), "{}", d.name());
    }
    for v in Verdict::ALL {
        assert_eq!(count(v.name()), direct.verdict(v).len(), "{}", v.name());
    }
    for (name, g) in direct.by_agent.iter().chain(direct.by_round.iter()) {
        assert_eq!(count(name), g.replies.len(), "{name}");
    }
    assert_eq!(count("strict-only reads nothing"), direct.repair.strict_unreadable.len());
    assert_eq!(count("of which the repair reads"), direct.repair.rescued.len());
    assert_eq!(count("repair changes a strict reading"), direct.repair.changed.len());
    assert_eq!(count("\"edits\": [ never closed"), direct.truncation[0].replies.len());
    let names = &direct.config.catalogue;
    for c in &direct.comparisons {
        let label = format!("{} → {}", names.name(c.pair.from), names.name(c.pair.to));
        assert_eq!(count(&label), c.differ.len(), "{label}");
    }
}

#[test]
fn the_summary_follows_replies_as_they_arrive_and_go() {
    let mut s = scanned_state(100, 30);
    typed(&mut s, "S");
    let before = s.corpus.as_ref().unwrap().scan.reply_count();
    drive(&mut s, later(100, fixture::in_round(reply(40, "page", 21, TEMPLATE_BEFORE_ANSWER), "round-6")));
    let corpus = s.corpus.as_ref().unwrap();
    assert_eq!(corpus.scan.reply_count(), before, "not counted before it is read");
    assert_eq!(corpus.pending, 1);
    assert!(screen(&s).contains("reading 1 reply for the scan"), "{}", screen(&s));
    scanned(&mut s);
    let corpus = s.corpus.as_ref().unwrap();
    assert_eq!(corpus.scan.reply_count(), before + 1);
    assert_eq!(Row::Round("round-6".to_owned()).count(&corpus.scan), 1);
    // A filter chosen on the screen takes in what arrives after.
    let row = row_index(&s, &differs(&s, "first-wins"));
    s.summary.cursor = row;
    typed(&mut s, "\n");
    let n = s.list.view().len();
    drive(&mut s, later(101, reply(41, "page", 22, TEMPLATE_BEFORE_ANSWER)));
    assert_eq!(s.list.view().len(), n, "not yet read for the scan");
    scanned(&mut s);
    assert_eq!(s.list.view().len(), n + 1);
    // A deleted file's replies leave the counts, as they leave the list.
    let source = PathBuf::from("logs/run-1/log.jsonl");
    drive(&mut s, Msg::Incoming { batch: vec![Incoming::Removed { source }], initial: false });
    typed(&mut s, "S");
    let corpus = s.corpus.as_ref().unwrap();
    assert_eq!(corpus.scan.reply_count(), 0);
    assert_eq!(s.list.reply_count(), 0);
}

/// A config whose readers of one's own are `mine` and `theirs` (commands never run here: their
/// answers are given as the readings thread would hand them over).
fn with_readers_of_ones_own() -> (Config, ReaderId, ReaderId) {
    use bracewalk::readers::Catalogue;
    use bracewalk::readers::own::Outside;
    let mut catalogue = Catalogue::builtin();
    let mine = catalogue.add_command("mine", Outside::command("true")).unwrap();
    let theirs = catalogue.add_command("theirs", Outside::command("true")).unwrap();
    (Config::new(catalogue), mine, theirs)
}

#[test]
fn w_starts_on_ones_own_readers_and_shift_w_goes_back() {
    let (config, mine, theirs) = with_readers_of_ones_own();
    let mut s = fixture::state_with(config, three(), 120, 30);
    assert_eq!(s.what_if, Some(mine), "the first reader of one's own is shown at once");
    let fence = reader(&s, "fence-first");
    let steps = [
        ("w", Some(theirs)),
        ("w", Some(ReaderId::FIRST_WINS)),
        ("W", Some(theirs)),
        ("W", Some(mine)),
        ("W", None),
        ("W", Some(fence)),
        ("w", None),
        ("w", Some(mine)),
    ];
    for (k, want) in steps {
        typed(&mut s, k);
        assert_eq!(s.what_if, want, "after {k}");
    }
    assert_eq!(s.flash.as_deref(), Some("what-if: mine against last-wins (the command `true`)"));
    // The built-in what-ifs follow in the config's order: first-wins, strict-only, …
    let order = s.what_ifs();
    assert_eq!(&order[..4], [mine, theirs, ReaderId::FIRST_WINS, ReaderId::STRICT_ONLY]);
    assert_eq!(order.len(), 12);
    // Without readers of one's own, the round is the built-in one, from none.
    let mut s = state(three(), 120, 30);
    typed(&mut s, "W");
    assert_eq!(s.what_if, Some(reader(&s, "fence-first")));
    typed(&mut s, "ww");
    assert_eq!(s.what_if, Some(ReaderId::FIRST_WINS));
    // On the summary screen too.
    typed(&mut s, "SW");
    assert_eq!((s.mode.clone(), s.what_if), (Mode::Summary, None));
}

#[test]
fn the_readers_menu_picks_the_what_if() {
    let (config, mine, theirs) = with_readers_of_ones_own();
    let mut s = fixture::state_with(config, three(), 120, 30);
    typed(&mut s, "r");
    assert_eq!(s.mode, Mode::Readers { cursor: 1 }, "on the what-if set: none is row 0, mine row 1");
    let drawn = screen(&s);
    assert!(drawn.contains("readers beside the seed"), "{drawn}");
    for name in ["none", "mine", "theirs", "first-wins", "no-self-contained-gate"] {
        assert!(drawn.contains(&format!(" {name} ")), "{name}:\n{drawn}");
    }
    // Down to first-wins, Enter: set, and the menu closes.
    typed(&mut s, "jj\n");
    assert_eq!((s.mode.clone(), s.what_if), (Mode::Normal, Some(ReaderId::FIRST_WINS)));
    // Esc leaves the what-if as it was; g and Enter pick none; G the last.
    typed(&mut s, "rk\x1b");
    assert_eq!((s.mode.clone(), s.what_if), (Mode::Normal, Some(ReaderId::FIRST_WINS)));
    typed(&mut s, "rg ");
    assert_eq!(s.what_if, None);
    typed(&mut s, "rG\n");
    assert_eq!(s.what_if, Some(reader(&s, "fence-first")));
    typed(&mut s, "rgj\n");
    assert_eq!(s.what_if, Some(mine));
    typed(&mut s, "rjj\x1b");
    assert_ne!(s.what_if, Some(theirs), "moving in the menu sets nothing");
    // Every key of the menu, and w, W and r, are in the help, from the key table.
    let help = bracewalk::tui::view::help_lines(&s.config, s.compared);
    let text: Vec<String> = help.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect();
    assert!(text.iter().any(|l| l == "In the readers menu (r)"), "{text:?}");
    for binding in bracewalk::tui::keymap::READERS.iter().chain(bracewalk::tui::keymap::NORMAL) {
        assert!(text.iter().any(|l| l.contains(binding.what)), "{}", binding.what);
    }
}

//! The inspector's update function without a terminal: key sequences in, state out.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/tui_fixture.rs"]
mod fixture;

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use bracewalk::runlog::Item;
use bracewalk::tui::state::{Badge, Choice, Entry, Incoming, Mode, Pane, SortKey, ValueSource};
use bracewalk::tui::{Effect, Msg};
use fixture::{bad_file, cut_reply, drive, key, reply, screen, state, typed};

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
    let search = s.search.as_ref().expect("a search");
    assert_eq!(search.matches.len(), 2);
    assert_eq!(search.current, Some(0));
    assert_eq!(s.mode, Mode::Normal);
    typed(&mut s, "n");
    assert_eq!(s.search.as_ref().unwrap().current, Some(1));
    assert_eq!(s.reply.candidate, 1, "the match's candidate is selected");
    typed(&mut s, "n");
    assert_eq!(s.search.as_ref().unwrap().current, Some(0), "n wraps around");
    typed(&mut s, "N");
    assert_eq!(s.search.as_ref().unwrap().current, Some(1));
    // Another reply: the matches are its own.
    typed(&mut s, "j");
    assert_eq!(s.search.as_ref().unwrap().matches.len(), 1);
    typed(&mut s, "/(unclosed\n");
    assert!(s.flash.as_deref().unwrap_or("").starts_with("not a regex"), "{:?}", s.flash);
}

#[test]
fn the_filter_combines_choices_and_says_so() {
    let mut items = three();
    items.push(bad_file());
    let mut s = state(items, 100, 30);
    assert_eq!(s.view.len(), 4);
    typed(&mut s, "f");
    let none = s.choices.iter().position(|c| *c == Choice::Badge(Badge::Decided(bracewalk::read::DecidedBy::None)));
    let none = none.expect("decided by none is offered");
    for _ in 0..none {
        typed(&mut s, "j");
    }
    typed(&mut s, " ");
    assert_eq!(s.view.len(), 1);
    assert_eq!(selected_line(&s), Some(20));
    let problem = s.choices.iter().position(|c| *c == Choice::Badge(Badge::Diagnostic)).unwrap();
    if let Mode::Filter { cursor } = s.mode {
        let keys = if problem > cursor { "j".repeat(problem - cursor) } else { "k".repeat(cursor - problem) };
        typed(&mut s, &keys);
    }
    typed(&mut s, " ");
    assert_eq!(s.view.len(), 2, "a decided-by choice and a kind-of-entry choice are alternatives");
    typed(&mut s, "\x1b");
    assert!(screen(&s).contains("filter: "), "the status line shows the filter");
    typed(&mut s, "fc\x1b");
    assert_eq!(s.view.len(), 4);
}

#[test]
fn s_cycles_the_sort_and_size_puts_the_biggest_first() {
    let mut s = state(three(), 100, 30);
    typed(&mut s, "s");
    assert_eq!(s.sort, SortKey::Size);
    let sizes: Vec<usize> = s.view.iter().map(|&i| s.entries[i].size()).collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
    typed(&mut s, "sss");
    assert_eq!(s.sort, SortKey::Source);
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
    assert!(s.entries.last().unwrap().new);
    assert_eq!(selected_line(&s), Some(10), "not following: the selection stays");
    typed(&mut s, "F");
    assert!(s.follow);
    drive(&mut s, later(101, reply(50, "page", 4, BIG)));
    assert_eq!(selected_line(&s), Some(50), "following: the new reply is selected");
    typed(&mut s, "p");
    drive(&mut s, later(102, reply(60, "page", 5, BIG)));
    assert_eq!(s.entries.len(), 5, "paused: held, not shown");
    assert_eq!(s.held.len(), 1);
    typed(&mut s, "p");
    assert_eq!(s.entries.len(), 6);
    assert_eq!(selected_line(&s), Some(60));
}

#[test]
fn a_restarted_file_is_read_again_and_a_deleted_one_is_gone() {
    let mut s = state(three(), 100, 30);
    let source = PathBuf::from("logs/run-1/log.jsonl");
    drive(&mut s, Msg::Incoming { batch: vec![Incoming::Restarted { source: source.clone() }], initial: false });
    assert!(s.entries.is_empty());
    let again: Vec<Incoming> =
        three().into_iter().enumerate().map(|(i, it)| Incoming::Entry(Entry::from_item(200 + i as u64, it))).collect();
    drive(&mut s, Msg::Incoming { batch: again, initial: false });
    assert_eq!(s.entries.len(), 3);
    assert!(s.entries.iter().all(|e| !e.new), "what was there before is not new");
    drive(&mut s, Msg::Incoming { batch: vec![Incoming::Removed { source }], initial: false });
    assert!(s.entries.iter().all(|e| e.gone));
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
    for (w, h) in [(1, 1), (10, 5), (20, 8), (80, 24), (139, 33), (140, 34), (300, 100)] {
        drive(&mut s, Msg::Resize(w, h));
        for keys in ["", "\t", "\t", "\t", "\t", "\t", "?", "\x1b", "jj"] {
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

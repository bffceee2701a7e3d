//! Every pane of the inspector, drawn into ratatui's `TestBackend` and compared with a
//! snapshot, for each shape of reply a person opens it for. The fixtures are written here,
//! not read from `sample-logs/`, so the snapshots change only when the view does.

use crate::support::replies::{REFUSED_NOT_SELF_CONTAINED, REFUSED_WALK_CLOSED, TRUNCATED_ARRAY, WHOLE_REPLY_TAKEN};
use crate::support::tui_fixture as fixture;

use bracewalk::logs::{EventKind, Item};
use bracewalk::tui::State;
use bracewalk::tui::state::Pane;
use fixture::{bad_file, cut_reply, pane, reply, screen, state, typed};

/// Reads every reply for the scan, as the worker does after the badges.
fn scanned(s: &mut State) {
    fixture::complete(s);
}

/// A call the model was cut off in, logged without its text.
fn no_reply(line: usize) -> Item {
    let Item::Reply(r) = reply(line, "page", 20, "") else { unreachable!() };
    Item::Event(bracewalk::logs::Event {
        id: r.id,
        source: r.source,
        line: r.line,
        offset: 0,
        kind: EventKind::Truncated,
        message: "max_tokens reached".to_owned(),
        meta: r.meta,
    })
}

/// A scratch template, then the real answer: last-wins keeps the answer, first-wins the
/// template.
const TEMPLATE_BEFORE_ANSWER: &str = "I'll fill in the template first:\n{ \"html\": \"...\", \"log\": \"...\" }\nNow the page itself:\n{\"html\": \"<table><tr><th>Department</th><th>Adopted</th></tr><tr><td>Fuel</td><td>3,891,986</td></tr></table>\", \"log\": \"Page 17. Table 3 continues beyond this page\"}";

/// Control characters in a reply: an escape sequence that would set the window title, a
/// bell, a bidi override, a C1 control. All must show as symbols.
const HOSTILE: &str = "Here \u{1b}]0;pwned\u{7} is \u{202e}txet\u{202c} and \u{9b}31m:\n{\"html\": \"<p>\u{1b}[2J</p>\", \"log\": \"ok\u{7f}\"}";

fn shapes() -> Vec<(&'static str, Item)> {
    vec![
        ("template_before_answer", reply(135, "page", 17, TEMPLATE_BEFORE_ANSWER)),
        ("whole_reply_taken", reply(23, "feedback", 3, WHOLE_REPLY_TAKEN)),
        ("refused_walk_closed", reply(57, "page", 9, REFUSED_WALK_CLOSED)),
        ("refused_not_self_contained", reply(61, "page", 4, REFUSED_NOT_SELF_CONTAINED)),
        ("truncated_array", cut_reply(140, TRUNCATED_ARRAY)),
        ("bad_file", bad_file()),
        ("control_characters", reply(7, "page", 2, HOSTILE)),
    ]
}

const PANES: [(Pane, &str, u16, u16); 6] = [
    (Pane::List, "list", 100, 6),
    (Pane::Text, "text", 100, 14),
    (Pane::Readings, "readings", 100, 16),
    (Pane::Decision, "decision", 100, 24),
    (Pane::Value, "value", 70, 14),
    (Pane::Compare, "compare", 80, 16),
];

#[test]
fn every_pane_for_every_shape() {
    for (shape, item) in shapes() {
        let s = state(vec![item], 160, 50);
        for (p, name, w, h) in PANES {
            insta::assert_snapshot!(format!("{shape}__{name}"), pane(&s, p, w, h));
        }
    }
}

#[test]
fn the_whole_screen_at_80x24_and_160x50() {
    let items = || shapes().into_iter().map(|(_, i)| i).collect::<Vec<_>>();
    let mut s = state(items(), 160, 50);
    typed(&mut s, "j");
    insta::assert_snapshot!("screen_160x50", screen(&s));
    let mut s = state(items(), 80, 24);
    typed(&mut s, "jjjj");
    insta::assert_snapshot!("screen_80x24_list", screen(&s));
    typed(&mut s, "\t\t");
    insta::assert_snapshot!("screen_80x24_readings", screen(&s));
    typed(&mut s, "?");
    insta::assert_snapshot!("screen_80x24_help", screen(&s));
}

/// The help cuts no line at the popup's edge: at 80×24 and larger, scrolled from top to end,
/// every key's description is there whole, an entry too long for the popup going on under its
/// description.
#[test]
fn the_help_cuts_no_line_at_80x24_and_larger() {
    let items = || shapes().into_iter().map(|(_, i)| i).collect::<Vec<_>>();
    for (w, h) in [(80, 24), (100, 30), (160, 50)] {
        let mut s = state(items(), w, h);
        typed(&mut s, "?");
        let mut text = Vec::new();
        let mut last = String::new();
        loop {
            let now = screen(&s);
            if now == last {
                break;
            }
            for line in now.lines().filter(|l| l.contains('║')) {
                text.push(line.split('║').nth(1).unwrap_or("").trim().to_owned());
            }
            last = now;
            typed(&mut s, "j");
        }
        let all = text.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
        for (_, rows) in bracewalk::tui::keymap::TABLES {
            for binding in rows {
                let what = binding.what.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(all.contains(&what), "{w}×{h}: the help gives {what:?} whole");
            }
        }
        assert!(all.contains("w what-if: the next reader beside the seed"), "{w}×{h}");
    }
}

#[test]
fn the_filter_menu_and_the_prompt() {
    let items = shapes().into_iter().map(|(_, i)| i).collect::<Vec<_>>();
    let mut s = state(items, 100, 30);
    typed(&mut s, "f");
    insta::assert_snapshot!("filter_menu", screen(&s));
    typed(&mut s, "\x1b/Cap");
    insta::assert_snapshot!("search_prompt", screen(&s));
}

#[test]
fn no_control_character_reaches_the_screen() {
    let s = state(vec![reply(7, "page\u{1b}[31m", 2, HOSTILE)], 160, 50);
    let drawn = screen(&s);
    for c in drawn.chars() {
        assert!(bracewalk::visible::stand_in(c, true).is_none(), "{:?} reached the screen:\n{drawn}", c);
    }
    assert!(drawn.contains("␛]0;pwned␇"), "{drawn}");
    assert!(drawn.contains("⇄txet⇄"), "{drawn}");
}

/// The summary's fixture: every shape above, and a second round with a reply nothing reads
/// (a template the model never filled), a second truncation and a call that left no reply.
fn corpus() -> Vec<Item> {
    let mut items: Vec<Item> = shapes().into_iter().map(|(_, i)| i).collect();
    items.push(fixture::in_round(reply(170, "page", 18, TEMPLATE_BEFORE_ANSWER), "round-5"));
    items.push(fixture::in_round(reply(171, "feedback", 18, WHOLE_REPLY_TAKEN), "round-5"));
    items.push(fixture::in_round(
        reply(172, "page", 19, "I could not produce the page: {html, log} is the contract"),
        "round-5",
    ));
    items.push(fixture::in_round(cut_reply(173, TRUNCATED_ARRAY), "round-5"));
    items.push(fixture::in_round(reply(175, "reader", 6, "{\"issues\": []}"), "round-5"));
    items.push(no_reply(174));
    items
}

#[test]
fn the_summary_screen_at_80x24_and_120x40() {
    let mut s = state(corpus(), 120, 40);
    scanned(&mut s);
    typed(&mut s, "S");
    insta::assert_snapshot!("summary_120x40", screen(&s));
    // The comparisons, further down, with the replies behind the selected one.
    typed(&mut s, "\t\t\t\t\t\t\tj");
    insta::assert_snapshot!("summary_120x40_comparison", screen(&s));
    let mut s = state(corpus(), 80, 24);
    scanned(&mut s);
    typed(&mut s, "S");
    insta::assert_snapshot!("summary_80x24", screen(&s));
    typed(&mut s, "G");
    insta::assert_snapshot!("summary_80x24_bottom", screen(&s));
}

#[test]
fn the_what_if_column_beside_the_seed() {
    let mut s = state(corpus(), 120, 40);
    scanned(&mut s);
    typed(&mut s, "w");
    insta::assert_snapshot!("what_if_first_wins_120x40", screen(&s));
    let mut s = state(corpus(), 80, 24);
    scanned(&mut s);
    typed(&mut s, "ww");
    insta::assert_snapshot!("what_if_strict_only_80x24", screen(&s));
}

/// The readers pane with a reader of one's own beside the seed: before its answer for the
/// reply comes, once it has read another value than the seed's (both as trees), and once it
/// has thrown (nothing read: the seed gains the reply).
#[test]
fn the_readers_pane_with_a_reader_of_ones_own() {
    use std::sync::Arc;

    use bracewalk::analysis::Config;
    use bracewalk::exact::js;
    use bracewalk::readers::own::Outside;
    use bracewalk::readers::{Catalogue, Given};
    use bracewalk::tui::Msg;

    let mut catalogue = Catalogue::builtin();
    let mine = catalogue.add_command("mine", Outside::command("true")).unwrap();
    let config = Config::new(catalogue);
    let template = Given::Read(js::parse(r#"{"html": "...", "log": "..."}"#).unwrap());
    let threw = Given::Threw(Arc::from("SyntaxError: Unexpected token . in JSON at position 11"));
    for (name, given) in [("changed", template), ("threw", threw)] {
        let mut s = fixture::state_with(config.clone(), vec![reply(7, "page", 17, TEMPLATE_BEFORE_ANSWER)], 160, 50);
        assert_eq!(s.what_if, Some(mine));
        let asking = pane(&s, Pane::Compare, 80, 22);
        assert!(asking.contains("being read for the scan…") && asking.contains("asking mine…"), "{asking}");
        fixture::complete_with(&mut s, |_| vec![(mine, given.clone())]);
        let key = s.selected().unwrap().key;
        fixture::drive(&mut s, Msg::Answers(key, vec![(mine, given.clone())]));
        let drawn = pane(&s, Pane::Compare, 80, 22);
        match name {
            "changed" => {
                assert!(drawn.contains("readers · mine: changed"), "{drawn}");
                assert!(drawn.contains("what-if mine → last-wins: differs: html: 3 chars → 99 chars"), "{drawn}");
                assert!(drawn.contains("changed: both read, otherwise"), "{drawn}");
            }
            _ => {
                assert!(drawn.contains("readers · mine: gained"), "{drawn}");
                assert!(drawn.contains("gained: last-wins reads, mine not"), "{drawn}");
                assert!(drawn.contains("mine threw: SyntaxError: Unexpected token"), "{drawn}");
                assert!(drawn.contains("(threw: SyntaxError"), "beside its null: {drawn}");
            }
        }
        // The comparison first: both answers before how each was run or decided.
        let at = |what: &str| drawn.find(what).unwrap_or_else(|| panic!("no {what:?} in {drawn}"));
        assert!(at("│last-wins ") < at("the command `true`"), "{drawn}");
        assert!(at("They ") < at("last-wins decided by"), "{drawn}");
        insta::assert_snapshot!(format!("readers_pane_mine_{name}"), drawn);
    }
}

/// On a wide terminal the readers pane shares the bottom right with the value pane; focused,
/// it takes the value pane's place too, so that its two trees have the width they need.
#[test]
fn the_readers_pane_focused_takes_the_value_panes_place() {
    use bracewalk::analysis::Config;
    use bracewalk::readers::Catalogue;
    use bracewalk::tui::layout;

    let mut s = fixture::state_with(
        Config::new(Catalogue::builtin()),
        vec![reply(7, "page", 17, TEMPLATE_BEFORE_ANSWER)],
        200,
        50,
    );
    let shared = layout::panes(200, 50, &s);
    let (value, compare) = (shared.value.unwrap(), shared.compare.unwrap());
    assert!(compare.width < 50, "{compare:?}");
    s.focus = Pane::Compare;
    let focused = layout::panes(200, 50, &s);
    assert_eq!(focused.value, None);
    let wide = focused.compare.unwrap();
    assert_eq!((wide.x, wide.width), (value.x, value.width + compare.width));
    assert_eq!(focused.at(value.x + 1, value.y + 1), Some(Pane::Compare));
}

/// The same page of one document in rounds 2 and 10, and a reply of each round's review:
/// rows that look alike but for their round.
fn two_rounds() -> Vec<Item> {
    let mut items = Vec::new();
    for round in ["round-10", "round-2"] {
        items.push(fixture::in_round(reply(135, "page", 17, TEMPLATE_BEFORE_ANSWER), round));
        items.push(fixture::in_round(reply(140, "reader", 6, "{\"issues\": []}"), round));
    }
    items
}

/// The round shows at every width, whole where the list is wide and by what tells the rounds
/// apart where it is not (`2`, `10`: the `round-` they share left out), in natural order.
#[test]
fn the_round_at_80_120_160_and_240_columns() {
    for (w, h) in [(80, 24), (120, 40), (160, 50), (240, 60)] {
        let mut s = state(two_rounds(), w, h);
        scanned(&mut s);
        typed(&mut s, "s");
        typed(&mut s, "s");
        typed(&mut s, "s");
        typed(&mut s, "s");
        assert_eq!(s.list.sort().name(), "document");
        let drawn = screen(&s);
        let rows: Vec<&str> = drawn.lines().filter(|l| l.contains("run-1:1")).collect();
        assert_eq!(rows.len(), 4, "{drawn}");
        let whole = drawn.contains("round-10");
        for (row, round) in rows.iter().zip(["2", "2", "10", "10"]) {
            let name = if whole { format!("round-{round} ") } else { format!(" {round} ") };
            assert!(row.contains(&name), "{w}×{h}: no round {round} in {row}\n{drawn}");
        }
        insta::assert_snapshot!(format!("rounds_in_the_list_{w}x{h}"), drawn);
    }
}

//! `/` and `n` `N`: a regex over the selected reply's text, its matches, the current one.

use regex::RegexBuilder;

use super::panes::{current_panes, reveal};
use crate::tui::reply::Search;
use crate::tui::state::{Pane, State};

pub(super) fn start_search(state: &mut State, pattern: &str) {
    if pattern.is_empty() {
        state.reply.search = None;
        return;
    }
    // Smart case: a pattern with no capital letter matches either case.
    let insensitive = !pattern.chars().any(char::is_uppercase);
    match RegexBuilder::new(pattern).case_insensitive(insensitive).size_limit(1 << 22).build() {
        Ok(regex) => {
            state.reply.search =
                Some(Search { pattern: pattern.to_owned(), regex, key: None, matches: Vec::new(), current: None });
            refresh_matches(state);
            let from = state.reply.wrap.as_ref().and_then(|w| w.rows.get(state.reply.text_top).copied()).unwrap_or(0);
            let first = state.reply.search.as_ref().and_then(|s| {
                s.matches.iter().position(|&(a, _)| a >= from).or(if s.matches.is_empty() { None } else { Some(0) })
            });
            jump_to_match(state, first);
        }
        Err(e) => {
            let msg = e.to_string();
            let last = msg.lines().last().unwrap_or("invalid").trim().to_owned();
            state.flash = Some(format!("not a regex: {last}"));
        }
    }
}

pub(super) fn refresh_matches(state: &mut State) {
    // The text arrives with the reply's record: the matches are found then.
    let Some(sel) = state.selected().map(|e| e.key) else { return };
    let Some(text) = state.detail().map(|d| d.text.clone()) else { return };
    let Some(search) = &mut state.reply.search else { return };
    if search.key == Some(sel) {
        return;
    }
    search.key = Some(sel);
    search.current = None;
    search.matches =
        search.regex.find_iter(&text).filter(|m| !m.is_empty()).take(100_000).map(|m| (m.start(), m.end())).collect();
}

pub(super) fn jump_to_match(state: &mut State, index: Option<usize>) {
    let Some(search) = &mut state.reply.search else { return };
    let n = search.matches.len();
    let Some(i) = index.filter(|_| n > 0) else {
        state.flash = Some(format!("/{}: no match in this reply", crate::visible::visible(&search.pattern, false)));
        return;
    };
    search.current = Some(i);
    let at = search.matches[i].0;
    state.flash = Some(format!("match {} of {}", i + 1, n));
    if current_panes(state).text.is_none() {
        state.focus = Pane::Text;
    }
    reveal(state, at);
    // Select the candidate the match is in, so the readings follow the search.
    if let Some(c) = state.detail().and_then(|d| d.candidate_at(at)) {
        state.reply.candidate = c;
    }
}

pub(super) fn next_match(state: &mut State, delta: isize) {
    let Some(search) = &state.reply.search else {
        state.flash = Some("no search: press / to search the reply text".to_owned());
        return;
    };
    let n = search.matches.len() as isize;
    let next = match search.current {
        _ if n == 0 => None,
        Some(c) => Some((c as isize + delta).rem_euclid(n) as usize),
        None => Some(if delta > 0 { 0 } else { (n - 1) as usize }),
    };
    jump_to_match(state, next);
}

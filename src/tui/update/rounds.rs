//! The rounds screen and a document's pages across the rounds: moving over their cells, and
//! Enter listing what is behind one (a count's replies in a round through the filter and the
//! query line, a change's replies by key), or showing a page's two final answers side by side.

use std::collections::HashSet;
use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::describe::plural;
use crate::scan::rounds::Count;

use super::query::set_query;
use crate::tui::badges::Badge;
use crate::tui::documents::{self, DocumentRow, quoted};
use crate::tui::keymap::{self, Action, Key};
use crate::tui::layout;
use crate::tui::list::Picked;
use crate::tui::message::Effect;
use crate::tui::rounds as screen;
use crate::tui::state::{Mode, Pane, RoundsView, State};

/// Opens the rounds screen (folding the summary's scan, which it lays out by round).
pub(super) fn open_rounds(state: &mut State) {
    if !state.list.rounds().any(|_| true) {
        state.flash = Some("no rounds here: no reply names one (a bench campaign's run logs do)".to_owned());
        return;
    }
    state.mode = Mode::Rounds;
}

pub(super) fn rounds_key(state: &mut State, ev: &KeyEvent, fx: &mut Vec<Effect>) {
    let Some(action) = Key::of(ev).and_then(|k| keymap::lookup(keymap::ROUNDS, k)) else { return };
    let Some((_, s)) = state.rounds_screen.clone() else { return };
    let lines = s.rounds.lines.len();
    // Columns: each round's value, then (from the second round on) its change.
    let columns = (s.rounds.names.len() * 2).saturating_sub(1);
    let page = (layout::summary(state.size.0, state.size.1).body.height as usize).saturating_sub(1).max(1);
    let v = &mut state.rounds;
    let last = lines.saturating_sub(1);
    if let Some(to) = action.moved(v.line, last, page) {
        v.line = to.min(last);
        return;
    }
    match action {
        // The first round's change is not a cell: it is passed over.
        Action::NextColumn => v.round = (v.round + if v.round == 0 { 2 } else { 1 }).min(columns.max(1) - 1),
        Action::PrevColumn => v.round = v.round.saturating_sub(if v.round == 2 { 2 } else { 1 }),
        Action::Choose => choose(state, &s, fx),
        Action::Summary => state.mode = Mode::Summary,
        Action::Close => state.mode = Mode::Normal,
        _ => {}
    }
}

/// Lists what is behind the selected cell.
fn choose(state: &mut State, s: &screen::Screen, fx: &mut Vec<Effect>) {
    let at = screen::cell(&state.rounds);
    let Some(line) = s.rounds.lines.get(at.line) else { return };
    let Some(name) = s.rounds.names.get(at.round).cloned() else { return };
    let label = line.label.clone();
    if at.change {
        let picked: HashSet<u64> = screen::behind(state, s, at).into_iter().map(|(k, _)| k).collect();
        if picked.is_empty() {
            state.flash = Some(format!("no replies make the change of “{label}” in {name}"));
            return;
        }
        let what = format!("{label}: the change in {name}");
        let filter = state.list.filter_mut();
        filter.on.clear();
        filter.picked = Some(Picked { what: what.clone(), keys: Arc::new(picked) });
        listed(state, &what);
        return;
    }
    let round = if name == crate::scan::NONE_KEY { "none".to_owned() } else { quoted(&name) };
    let badge = match &line.count {
        Count::Report(row) => Some(Badge::Report(row.clone())),
        Count::CallsWithoutReply => Some(Badge::NoReply),
        Count::Replies | Count::Bytes => None,
        Count::Documents | Count::PagesDelivered => {
            state.mode = Mode::Documents;
            let docs = documents::documents(state);
            let rows = documents::rows(&docs);
            let at = rows.iter().position(
                |r| matches!(r, DocumentRow::Document(d) if docs[*d].round.as_deref() == Some(name.as_str())),
            );
            state.documents.cursor = at.unwrap_or(0);
            return;
        }
    };
    if set_query(state, &format!("round={round}"), fx).is_err() {
        return;
    }
    let filter = state.list.filter_mut();
    filter.on.clear();
    filter.picked = None;
    filter.on.extend(badge);
    listed(state, &format!("{label} in {name}"));
}

/// The list, filtered to what a cell is, with its first entry selected.
fn listed(state: &mut State, what: &str) {
    state.mode = Mode::Normal;
    state.focus = Pane::List;
    state.list.rebuild(&state.lens());
    state.list.set_cursor(0);
    state.list.set_top(0);
    let n = state.list.view().len();
    state.flash = Some(format!(
        "{}: {} (f then c clears the filter)",
        plural(n, "entry", "entries"),
        crate::visible::visible(what, false)
    ));
}

/// Keeps the rounds screen's cursor within its cells and the selected line on screen.
pub(super) fn settle_rounds(state: &mut State) {
    if state.mode != Mode::Rounds {
        return;
    }
    // Laid out again only when the corpus was folded since.
    if state.rounds_screen.as_ref().is_none_or(|(v, _)| *v != state.corpus_version) {
        state.rounds_screen = screen::screen(state).map(|s| (state.corpus_version, Arc::new(s)));
    }
    let Some((_, s)) = state.rounds_screen.clone() else { return };
    let columns = (s.rounds.names.len() * 2).saturating_sub(1).max(1);
    let RoundsView { line, round, top } = &mut state.rounds;
    *line = (*line).min(s.rounds.lines.len().saturating_sub(1));
    *round = (*round).min(columns - 1);
    let h = (layout::summary(state.size.0, state.size.1).body.height as usize).saturating_sub(1).max(1);
    if *line < *top {
        *top = *line;
    } else if *line >= *top + h {
        *top = *line + 1 - h;
    }
}

/// Opens the selected document's pages across the rounds.
pub(super) fn open_history(state: &mut State) {
    let docs = documents::documents(state);
    let rows = documents::rows(&docs);
    let at = state.documents.cursor.min(rows.len().saturating_sub(1));
    let (d, page) = match rows.get(at) {
        Some(DocumentRow::Document(d)) => (*d, None),
        Some(DocumentRow::Page(d, p)) => (*d, docs[*d].pages[*p].number),
        None => return,
    };
    let document = docs[d].id.clone();
    let history = screen::page_history(state, &document);
    let pages: Vec<u32> = history.pages.keys().map(|(_, p)| *p).collect();
    let row = page.and_then(|p| pages.iter().position(|&q| q == p)).unwrap_or(0);
    let round = docs[d].round.as_ref().and_then(|r| history.rounds.iter().position(|h| h == r)).unwrap_or(0);
    state.mode = Mode::PageHistory { document, page: pages.get(row).copied().unwrap_or(0), round, opened: false };
}

pub(super) fn history_key(state: &mut State, ev: &KeyEvent) {
    let Some(action) = Key::of(ev).and_then(|k| keymap::lookup(keymap::HISTORY, k)) else { return };
    let Mode::PageHistory { document, page, round, opened } = state.mode.clone() else { return };
    let history = screen::page_history(state, &document);
    let pages: Vec<u32> = history.pages.keys().map(|(_, p)| *p).collect();
    let at = pages.iter().position(|&p| p == page).unwrap_or(0);
    let last = pages.len().saturating_sub(1);
    let (mut page, mut round, mut opened) = (page, round, opened);
    if let Some(to) = action.moved(at, last, 10) {
        page = pages.get(to.min(last)).copied().unwrap_or(page);
    } else {
        match action {
            Action::NextColumn => round = (round + 1).min(history.rounds.len().saturating_sub(1)),
            Action::PrevColumn => round = round.saturating_sub(1),
            Action::Choose => opened = !opened,
            Action::Close if opened => opened = false,
            Action::Close => {
                state.mode = Mode::Documents;
                return;
            }
            _ => return,
        }
    }
    state.mode = Mode::PageHistory { document, page, round, opened };
}

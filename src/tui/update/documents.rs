//! The documents screen: moving over documents and pages, and Enter listing a page's calls
//! (or a document's) through the query line's query.

use crossterm::event::KeyEvent;

use super::query::set_query;
use crate::tui::documents::{self, DocumentRow};
use crate::tui::keymap::{self, Action, Key};
use crate::tui::layout;
use crate::tui::list::SortKey;
use crate::tui::message::Effect;
use crate::tui::state::{Mode, Pane, State};

/// Opens the screen on the selected reply's page, or where it was.
pub(super) fn open_documents(state: &mut State) {
    let docs = documents::documents(state);
    if docs.is_empty() {
        state.flash = Some("no documents here: the logs name none (a bench campaign's run logs do)".to_owned());
        return;
    }
    let rows = documents::rows(&docs);
    if let Some(key) = state.selected().map(|e| e.key) {
        let at = rows.iter().position(|r| match *r {
            DocumentRow::Page(d, p) => docs[d].pages[p].calls.contains(&key),
            DocumentRow::Document(_) => false,
        });
        if let Some(at) = at {
            state.documents.cursor = at;
        }
    }
    state.documents.cursor = state.documents.cursor.min(rows.len().saturating_sub(1));
    state.mode = Mode::Documents;
}

pub(super) fn documents_key(state: &mut State, ev: &KeyEvent, fx: &mut Vec<Effect>) {
    let Some(action) = Key::of(ev).and_then(|k| keymap::lookup(keymap::DOCUMENTS, k)) else { return };
    let docs = documents::documents(state);
    let rows = documents::rows(&docs);
    let last = rows.len().saturating_sub(1);
    let page = (layout::summary(state.size.0, state.size.1).body.height as usize).saturating_sub(1).max(1);
    let at = state.documents.cursor.min(last);
    let heading = |from: usize, forward: bool| {
        let is_doc = |i: &usize| matches!(rows[*i], DocumentRow::Document(_));
        if forward {
            (from + 1..rows.len()).find(is_doc).unwrap_or(at)
        } else {
            (0..from).rev().find(is_doc).unwrap_or(0)
        }
    };
    let to = if let Some(to) = action.moved(at, last, page) {
        to
    } else {
        match action {
            Action::FocusNext => heading(at, true),
            Action::FocusPrev => heading(at, false),
            Action::Choose => {
                let (query, sort) = match rows.get(at) {
                    Some(DocumentRow::Document(d)) => (docs[*d].query(None), SortKey::Document),
                    Some(DocumentRow::Page(d, p)) => (docs[*d].query(Some(&docs[*d].pages[*p])), SortKey::Time),
                    None => return,
                };
                if set_query(state, &query, fx).is_ok() {
                    state.list.set_sort(sort);
                    state.mode = Mode::Normal;
                    state.focus = Pane::List;
                    state.list.rebuild(&state.lens());
                    state.list.set_cursor(0);
                    state.list.set_top(0);
                    let n = state.list.view().len();
                    state.flash =
                        Some(format!("{}: {query} (: edits the query)", crate::describe::plural(n, "call", "calls")));
                }
                return;
            }
            Action::History => {
                super::rounds::open_history(state);
                return;
            }
            Action::Close => {
                state.mode = Mode::Normal;
                return;
            }
            _ => return,
        }
    };
    state.documents.cursor = to.min(last);
    let h = page + 1;
    let top = &mut state.documents.top;
    if state.documents.cursor < *top {
        *top = state.documents.cursor;
    } else if state.documents.cursor >= *top + h {
        *top = state.documents.cursor + 1 - h;
    }
}

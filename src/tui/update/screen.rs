//! The summary screen: moving over its rows, and Enter on a row filtering the list to
//! the replies behind it.

use crossterm::event::KeyEvent;

use crate::describe::plural;

use super::what_if::step_what_if;
use crate::tui::badges::Badge;
use crate::tui::keymap::{self, Action, Key};
use crate::tui::layout::{self};
use crate::tui::state::{Mode, Pane, State};
use crate::tui::summary::{self, Corpus, ScreenSection};

pub(super) fn summary_sections(state: &State) -> Vec<ScreenSection> {
    state.corpus.as_ref().map(|c| summary::blocks(&c.scan)).unwrap_or_default()
}

pub(super) fn summary_key(state: &mut State, ev: &KeyEvent) {
    let Some(action) = Key::of(ev).and_then(|k| keymap::lookup(keymap::SUMMARY, k)) else { return };
    let sections = summary_sections(state);
    let last = summary::row_count(&sections).saturating_sub(1);
    let page = (layout::summary(state.size.0, state.size.1).body.height as usize).saturating_sub(1).max(1);
    let at = state.summary.cursor.min(last);
    let to = if let Some(to) = action.moved(at, last, page) {
        to
    } else {
        match action {
            Action::FocusNext => summary::section_start(&sections, at, true),
            Action::FocusPrev => summary::section_start(&sections, at, false),
            Action::Choose => {
                choose(state, &sections);
                return;
            }
            Action::WhatIf | Action::WhatIfBack => {
                step_what_if(state, action == Action::WhatIf);
                return;
            }
            Action::Rounds => {
                super::rounds::open_rounds(state);
                return;
            }
            Action::Close => {
                state.mode = Mode::Normal;
                return;
            }
            _ => return,
        }
    };
    state.summary.cursor = to.min(last);
}

/// Filters the list to the replies behind the selected row, and selects the first.
pub(super) fn choose(state: &mut State, sections: &[ScreenSection]) {
    let Some(row) = summary::row_at(sections, state.summary.cursor) else { return };
    let label = crate::visible::visible(row.label.trim(), false);
    if row.count == 0 {
        state.flash = Some(format!("no replies behind “{label}”"));
        return;
    }
    let target = row.target.clone();
    // A comparison's replies are best read beside the what-if's answer.
    if let Some(p) = target.pair(&state.config).filter(|p| p.against_seed()) {
        state.what_if = Some(p.from);
    }
    let filter = state.list.filter_mut();
    filter.on.clear();
    filter.on.insert(Badge::Report(target));
    state.mode = Mode::Normal;
    state.focus = Pane::List;
    state.list.rebuild(&state.lens());
    state.list.set_cursor(0);
    state.list.set_top(0);
    state.flash =
        Some(format!("{}: {label} (f then c clears the filter)", plural(state.list.view().len(), "reply", "replies")));
}

/// Below this many entries the corpus is folded again on every change.
const FOLD_EVERY_CHANGE: usize = 4096;

/// Folds the corpus again if it is shown and stale, and keeps the selected row on screen.
pub(super) fn settle_summary(state: &mut State) {
    // The rounds screen lays the summary's scan out by round.
    if !matches!(state.mode, Mode::Summary | Mode::Rounds) {
        return;
    }
    // A fold reads every entry: on a large campaign, folding on every batch of facts would
    // be quadratic, so it waits until the changes are an eighth of the entries (or every
    // reply is read). A small one is folded on every change.
    let n = state.list.entries().len();
    // New facts of replies not folded in yet are folded on, in order; anything else (an
    // entry come, gone or amended, a reply read again) is folded anew. Whether every reply
    // is read is asked from the last entry back: replies are read in the order they came,
    // so one still being read is found at once.
    let folds_on = n >= FOLD_EVERY_CHANGE && state.corpus.as_ref().is_some_and(Corpus::folds_on);
    // The summary counts; the rounds screen counts each row round by round, from lists.
    let listed = state.mode == Mode::Rounds;
    let others = if folds_on { state.corpus_stale.saturating_sub(state.corpus_facts) } else { state.corpus_stale };
    let due = state.corpus.as_ref().is_none_or(|c| listed && !c.listed)
        || (others > 0
            && (n < FOLD_EVERY_CHANGE
                || others * 8 >= n
                || state.list.entries().iter().rev().all(|e| !e.is_reply() || e.gone || e.complete())));
    let list = &state.list;
    if due {
        // The fold before goes first: a large campaign's two folds side by side were the
        // inspector's peak.
        state.corpus = None;
        state.corpus = Some(if n < FOLD_EVERY_CHANGE {
            Corpus::of(list.entries(), &state.config, listed)
        } else {
            Corpus::so_far(list, &state.config, listed)
        });
        state.corpus_stale = 0;
        state.corpus_facts = 0;
        state.corpus_version += 1;
    } else if folds_on
        && state.corpus_facts > 0
        && let Some(corpus) = &mut state.corpus
    {
        corpus.fold_on(list);
        state.corpus_version += 1;
        state.corpus_stale -= state.corpus_facts;
        state.corpus_facts = 0;
    }
    let sections = summary_sections(state);
    let slots = summary::slots(&sections);
    state.summary.cursor = state.summary.cursor.min(summary::row_count(&sections).saturating_sub(1));
    let areas = layout::summary(state.size.0, state.size.1);
    // The replies the panel under the rows shows: no more than it has lines for.
    if let (Some(panel), Some(row), Some(corpus)) =
        (areas.panel, summary::row_at(&sections, state.summary.cursor), &mut state.corpus)
    {
        corpus.find_behind(&state.list, &row.target, panel.height as usize);
    }
    let h = (areas.body.height as usize).max(1);
    let line = summary::line_of(&slots, state.summary.cursor);
    let top = &mut state.summary.top;
    if line < *top + 1 {
        // Moving up shows the section's title with its first row.
        let title_above = line > 0 && matches!(slots.get(line - 1), Some(summary::Slot::Title(_)));
        *top = if title_above { line - 1 } else { line }.min(*top);
    } else if line >= *top + h {
        *top = line + 1 - h;
    }
    *top = (*top).min(slots.len().saturating_sub(h));
}

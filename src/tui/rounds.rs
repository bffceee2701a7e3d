//! The rounds screen's content, apart from how it is drawn: the summary's scan laid out by
//! round ([`Rounds`], what `bracewalk rounds` prints), the entry behind each reply number,
//! and each reply's call as it is known across rounds, so that a change from the round
//! before names the replies that make it. And one document's pages across the rounds, for
//! the documents screen's page history.

use crate::scan::rounds::{CallKeys, Delivered, Fraction, History, Loss, Pages, Rounds};

use super::entry::EntryKey;
pub use super::state::Screen;
use super::state::State;

/// The rounds of what the summary has folded (`None` before it is first folded with lists).
pub fn screen(state: &State) -> Option<Screen> {
    let corpus = state.corpus.as_ref().filter(|c| c.listed)?;
    let rounds = Rounds::of(&corpus.scan, Fraction::HALF);
    let mut keys = CallKeys::default();
    for &k in &corpus.keys {
        keys.push(state.list.entry(k).and_then(|e| e.meta()));
    }
    Some(Screen { rounds, keys: keys.keys })
}

/// A cell of the screen: a count's value in a round, or its change from the round before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub line: usize,
    pub round: usize,
    pub change: bool,
}

/// The cell the screen's cursor is on: a round's value, or (past it) its change; the first
/// round has no change.
pub fn cell(view: &super::state::RoundsView) -> Cell {
    Cell { line: view.line, round: view.round / 2, change: view.round % 2 == 1 }
}

/// The entries behind a cell, each with what the scan says of it there.
pub fn behind(state: &State, screen: &Screen, at: Cell) -> Vec<(EntryKey, String)> {
    let Some(corpus) = state.corpus.as_ref().filter(|c| c.listed) else { return Vec::new() };
    let replies = if at.change {
        screen.rounds.change(&corpus.scan, &screen.keys, at.line, at.round)
    } else {
        screen.rounds.cell(&corpus.scan, at.line, at.round)
    };
    replies.into_iter().filter_map(|(i, why)| Some((*corpus.keys.get(i)?, why))).collect()
}

/// One document's pages across the rounds: what each round's final answer delivered, and
/// the pages lost, as the rounds find them over every entry the list holds.
pub fn page_history(state: &State, document: &str) -> History<EntryKey> {
    let mut entries: Vec<&super::entry::Entry> = state
        .list
        .entries()
        .iter()
        .filter(|e| e.meta().and_then(|m| m.document.as_deref()) == Some(document))
        .collect();
    entries.sort_by(|a, b| {
        crate::natural::cmp_paths(&a.source, &b.source).then(a.line.cmp(&b.line)).then(a.key.cmp(&b.key))
    });
    let mut pages = Pages::default();
    for e in entries {
        if let Some(m) = e.meta() {
            pages.calls.extend(crate::scan::rounds::Call::of(m, Some(e.key), e.is_reply(), e.html));
        }
    }
    pages.history(Fraction::HALF)
}

/// The loss of `page` in round `r` of a history, if it was lost there.
pub fn lost_at(h: &History<EntryKey>, page: u32, r: usize) -> Option<&Loss<EntryKey>> {
    h.losses.iter().find(|l| l.page == page && l.at == r)
}

/// The final answer a history names for `page` in round `r`, and the one it is compared
/// with: the loss's earlier round, else the latest earlier round with an answer.
pub fn compared(
    h: &History<EntryKey>,
    document: &str,
    page: u32,
    r: usize,
) -> (Option<EntryKey>, Option<(usize, EntryKey)>) {
    let Some(by_round) = h.pages.get(&(document.to_owned(), page)) else { return (None, None) };
    let now = match by_round.get(r) {
        Some(Some(Delivered::Answer { reply, .. })) => *reply,
        _ => None,
    };
    if let Some(l) = lost_at(h, page, r) {
        return (now, l.earlier.map(|k| (l.since_at, k)));
    }
    let before = (0..r).rev().find_map(|q| match by_round.get(q) {
        Some(Some(Delivered::Answer { reply: Some(k), .. })) => Some((q, *k)),
        _ => None,
    });
    (now, before)
}

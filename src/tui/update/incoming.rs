//! What the loader and the watcher send: entries that arrive, amended, restarted, renamed,
//! gone.

use std::path::PathBuf;

use crate::describe::plural;

use super::query::search_arrivals;
use crate::tui::entry::Body;
use crate::tui::list::Moved;
use crate::tui::message::{Effect, Incoming};
use crate::tui::state::State;

/// Applies a batch: the replies that arrived in it are searched by a query that reads texts,
/// replies renamed with their files are asked about again under their new keys, and files
/// deleted are named in the status line.
pub(super) fn apply(state: &mut State, batch: Vec<Incoming>, initial: bool, fx: &mut Vec<Effect>) {
    let mut arrived = Vec::new();
    let mut amended = Vec::new();
    let mut moved = Moved::default();
    let mut deleted: Vec<(PathBuf, usize, usize)> = Vec::new();
    let lens = state.lens();
    state.list.change(&lens, |c| {
        for change in batch {
            match change {
                Incoming::Entry(e) => {
                    if let Body::Diagnostic(d) = &e.body {
                        state.loading.heard(d.to_string());
                    }
                    if state.loading.follow && !initial && e.is_reply() {
                        c.select(e.key);
                    }
                    if e.is_reply() {
                        arrived.push(e.key);
                    }
                    state.page_flags.note(&e);
                    c.arrive(e, initial);
                }
                Incoming::Amended { source, line, meta } => amended.extend(c.amend(&source, line, meta)),
                Incoming::Restarted { source } => {
                    state.page_flags.redo();
                    c.restart(&source);
                }
                Incoming::Removed { source } => {
                    state.page_flags.redo();
                    let (replies, marked) = c.remove(&source);
                    if replies > 0 {
                        deleted.push((source, replies, marked));
                    }
                }
                Incoming::Moved { moves } => {
                    state.page_flags.redo();
                    let m = c.moved(&moves);
                    moved.keys.extend(m.keys);
                    moved.marks |= m.marks;
                }
            }
        }
    });
    for k in amended {
        if let Some(e) = state.list.entry(k) {
            state.page_flags.amended(e);
        }
    }
    // The summary names replies by key: those moved count as changed.
    state.corpus_stale += 1 + moved.keys.len();
    search_arrivals(state, &arrived, fx);
    if !moved.keys.is_empty() {
        after_moves(state, &moved, fx);
    }
    if !deleted.is_empty() {
        state.flash = Some(deletions(&deleted));
    }
}

/// Replies renamed with their files, under new keys: what was asked under the old ones is
/// let go when it comes, so what is still to come is asked for again (their facts, the
/// shown reply's record, a query's search); marks that moved are saved.
fn after_moves(state: &mut State, moved: &Moved, fx: &mut Vec<Effect>) {
    let mut search = Vec::new();
    for &(from, to) in &moved.keys {
        state.reply.rekey(from, to);
        let Some(e) = state.list.entry(to) else { continue };
        if e.is_reply()
            && !e.complete()
            && let Some(locator) = e.locator()
        {
            fx.push(Effect::Reread { key: to, locator, stopped: e.cut() });
        }
        if e.is_reply() && state.list.filter().query.as_ref().is_some_and(|q| !q.hits.contains_key(&to)) {
            search.push(to);
        }
    }
    search_arrivals(state, &search, fx);
    if moved.marks {
        fx.push(Effect::SaveMarks(state.list.marks().values().cloned().collect()));
    }
}

/// `deleted: logs/a.jsonl, 12 replies left the list (2 marked; their marks are kept)`.
fn deletions(deleted: &[(PathBuf, usize, usize)]) -> String {
    let replies: usize = deleted.iter().map(|d| d.1).sum();
    let marked: usize = deleted.iter().map(|d| d.2).sum();
    let what = match deleted {
        [(path, ..)] => format!("deleted: {}", path.display()),
        _ => format!("{} deleted", plural(deleted.len(), "file", "files")),
    };
    let left = plural(replies, "reply left the list", "replies left the list");
    match marked {
        0 => format!("{what}, {left}"),
        1 => format!("{what}, {left} (1 marked; its mark is kept)"),
        n => format!("{what}, {left} ({n} marked; their marks are kept)"),
    }
}

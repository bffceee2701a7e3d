//! `:` and the query line: editing it (cursor, history), applying it to the list, and the
//! text search's answers as they come back from their thread.

use std::collections::HashMap;
use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::query::{Query, TextHit};
use crate::visible::clip;

use crate::tui::entry::EntryKey;
use crate::tui::input::{LineEditor, Typed};
use crate::tui::list::Applied;
use crate::tui::message::{Effect, SearchJob};
use crate::tui::state::{Mode, QueryLine, State};

/// The longest query line, in characters.
const LONGEST: usize = 2000;
/// Queries kept in the history.
const HISTORY: usize = 100;

/// Opens the query line on the query applied, to edit it.
pub(super) fn open_query(state: &mut State) {
    let source = state.list.filter().query.as_ref().map(|q| q.query.source().to_owned()).unwrap_or_default();
    state.mode = Mode::Query(QueryLine { input: LineEditor::new(source, LONGEST), recall: None, error: None });
}

pub(super) fn query_key(state: &mut State, mut line: QueryLine, ev: &KeyEvent, fx: &mut Vec<Effect>) {
    match line.input.key(ev) {
        Typed::Cancel => state.mode = Mode::Normal,
        Typed::Accept => match set_query(state, line.input.text(), fx) {
            Ok(()) => state.mode = Mode::Normal,
            Err(e) => {
                // Stay, the cursor where the trouble starts.
                line.input.set_cursor(e.column.saturating_sub(1));
                line.error = Some(e);
                state.mode = Mode::Query(line);
            }
        },
        Typed::Ignored => {}
        typed => {
            if let Typed::Older | Typed::Newer = typed {
                let n = state.history.len();
                let at = match (typed, line.recall) {
                    (Typed::Older, None) if n > 0 => Some(n - 1),
                    (Typed::Older, Some(i)) => Some(i.saturating_sub(1)),
                    (Typed::Newer, Some(i)) if i + 1 < n => Some(i + 1),
                    // Past the newest: an empty line.
                    _ => None,
                };
                line.input.set_text(at.and_then(|i| state.history.get(i)).cloned().unwrap_or_default());
                line.recall = at;
            }
            line.error = None;
            state.mode = Mode::Query(line);
        }
    }
}

/// Applies `source` to the list (an empty one clears the query); the replies' texts are
/// searched on the search thread when a term reads them. `Err` says why it cannot be read,
/// and nothing changes.
pub(super) fn set_query(state: &mut State, source: &str, fx: &mut Vec<Effect>) -> Result<(), crate::query::QueryError> {
    let query = Query::parse(source)?;
    if query.is_empty() {
        state.list.filter_mut().query = None;
        state.flash = Some("query cleared".to_owned());
        return Ok(());
    }
    let source = query.source().to_owned();
    state.history.retain(|h| *h != source);
    state.history.push(source.clone());
    if state.history.len() > HISTORY {
        state.history.remove(0);
    }
    state.generation += 1;
    let query = Arc::new(query);
    let mut applied = Applied { query: query.clone(), generation: state.generation, hits: HashMap::new(), asked: 0 };
    if query.reads_text() {
        let keys: Vec<EntryKey> = state.list.entries().iter().filter(|e| e.is_reply()).map(|e| e.key).collect();
        applied.asked = keys.len();
        state.list.filter_mut().query = Some(applied);
        ask(state, &keys, fx);
    } else {
        state.list.filter_mut().query = Some(applied);
    }
    state.flash = Some(format!("query: {}", clip(&source, 60)));
    Ok(())
}

/// Asks the search thread about replies `keys`, for the query applied.
fn ask(state: &State, keys: &[EntryKey], fx: &mut Vec<Effect>) {
    let Some(applied) = &state.list.filter().query else { return };
    let replies = keys
        .iter()
        .filter_map(|&k| state.list.entry(k))
        .map(|e| (e.key, e.locator(), e.held_text().cloned()))
        .collect::<Vec<_>>();
    if !replies.is_empty() {
        fx.push(Effect::Search(SearchJob { generation: applied.generation, query: applied.query.clone(), replies }));
    }
}

/// Replies that arrived while a query reads texts are searched too.
pub(super) fn search_arrivals(state: &mut State, keys: &[EntryKey], fx: &mut Vec<Effect>) {
    if keys.is_empty() {
        return;
    }
    if !state.list.filter().query.as_ref().is_some_and(|q| q.query.reads_text()) {
        return;
    }
    state.list.count_asked(keys.len());
    ask(state, keys, fx);
}

/// A reply whose text changed on disk is searched again, what the query's terms made of the
/// old text let go ([`Change::forget_hit`](crate::tui::list::Change::forget_hit)): it
/// waits, as one not searched yet does, for what they make of the text now there. Asked
/// about once already, the answer to come takes the old one's place in the count.
pub(super) fn search_again(state: &State, k: EntryKey, fx: &mut Vec<Effect>) {
    ask(state, &[k], fx);
}

/// The search thread's answers: the replies searched now pass the filter or not.
pub(super) fn searched(state: &mut State, generation: u64, hits: Vec<(EntryKey, TextHit)>) {
    if state.list.filter().query.as_ref().is_none_or(|q| q.generation != generation) {
        return;
    }
    state.list.change(&state.lens(), |c| {
        for (k, hit) in hits {
            c.set_hit(k, hit);
        }
    });
}

//! The one place the state changes: [`update`] takes a message (a key, a click, a batch
//! of replies from the loader, a record from the analysis thread) and returns the effects
//! the event loop must carry out (ask for a record, save the marks, copy, open an editor).
//! No I/O happens here, so a test drives it with key sequences and reads the state.
//!
//! The parts: `keys` (what each key does), `panes` (moving within them), `search`, `query`
//! (the query line and the text search's answers), `triage` (marks, the editor), `screen`
//! (the summary screen), `documents` (the documents screen), `mouse`, `incoming` (what the
//! loader and the watcher send); this module, what each message does and what is settled
//! after each. Each part names what it takes from another.

mod documents;
mod incoming;
mod keys;
mod mouse;
mod panes;
mod query;
mod screen;
mod search;
mod triage;

use std::sync::Arc;

use super::analysis::Detail;
use super::entry::Body;
use super::entry::EntryKey;
use super::layout;
use super::message::{DetailJob, Effect, Msg};
use super::order::{self, Kept};
use super::state::{ReplyView, State, Wrap};
use super::wrap;
use incoming::apply;
use keys::key;
use mouse::mouse;
use panes::{current_panes, reveal, text_panes};
pub use query::set_query;
use query::{search_again, search_arrivals, searched};
use screen::settle_summary;
use search::refresh_matches;

/// How many full records are kept, at most, and in how many bytes of text.
pub const DETAILS_KEPT: usize = 6;
pub const DETAILS_BYTES: usize = 64 << 20;

/// Applies `msg` to `state`.
pub fn update(state: &mut State, msg: Msg) -> Vec<Effect> {
    let mut fx = Vec::new();
    match msg {
        Msg::Key(ev) => {
            state.flash = None;
            state.landing = false;
            key(state, &ev, &mut fx);
        }
        Msg::Mouse(ev) => {
            state.landing = false;
            mouse(state, &ev);
        }
        Msg::Resize(w, h) => state.size = (w, h),
        Msg::Incoming { batch, initial } => {
            if state.paused && !initial {
                state.held.extend(batch);
            } else {
                let arrived = apply(state, batch, initial);
                search_arrivals(state, &arrived, &mut fx);
            }
        }
        Msg::Progress(p) => state.progress = p,
        Msg::Facts(list) => {
            let n = list.len();
            let mut kept = Kept::begin(state);
            for read in list {
                if let Some(&i) = state.by_key.get(&read.key) {
                    kept.touch(state, i);
                    let e = &mut state.entries[i];
                    e.set_facts(read.facts);
                    if read.sketch.is_some() {
                        e.sketch = read.sketch;
                        e.html = read.html;
                    }
                }
            }
            kept.finish(state);
            state.corpus_stale += n;
        }
        Msg::Detail(k, d, hash) => {
            if state.wanted == Some(k) {
                state.wanted = None;
            }
            changed(state, k, &d, hash, &mut fx);
            keep_detail(state, k, d);
        }
        Msg::Lost(list) => {
            let mut kept = Kept::begin(state);
            for (k, why) in list {
                if let Some(&i) = state.by_key.get(&k) {
                    kept.touch(state, i);
                    state.entries[i].gone = true;
                    state.last_diagnostic = Some(format!("{}: could not be read again: {why}", state.entries[i].id));
                }
                if state.wanted == Some(k) {
                    state.wanted = None;
                }
            }
            kept.finish(state);
            state.corpus_stale += 1;
        }
        Msg::Searched { generation, hits } => searched(state, generation, hits),
        Msg::Watch(w) => state.watch = w,
        Msg::Flash(s) => state.flash = Some(s),
        Msg::Problem(s) => {
            state.diagnostics += 1;
            state.flash = Some(s.clone());
            state.last_diagnostic = Some(s);
        }
        Msg::Quit => state.quit = true,
    }
    settle(state, &mut fx);
    fx
}

/// Keeps the record of reply `k`: the most recent few, in fewer than [`DETAILS_BYTES`] of
/// text (the one just made always).
fn keep_detail(state: &mut State, k: EntryKey, d: Arc<Detail>) {
    state.details.retain(|(key, _)| *key != k);
    state.details.push((k, d));
    let mut bytes = 0;
    let mut keep = state.details.len();
    for (i, (_, d)) in state.details.iter().enumerate().rev() {
        bytes += d.text.len();
        if (bytes > DETAILS_BYTES || state.details.len() - i > DETAILS_KEPT) && i + 1 < state.details.len() {
            keep = state.details.len() - i - 1;
            break;
        }
    }
    let drop = state.details.len() - keep;
    state.details.drain(..drop);
}

/// A record made from a text other than the one listed: the reply changed on disk since. It
/// is marked, its size and hash are the new text's, and its facts are read again.
fn changed(state: &mut State, k: EntryKey, d: &Detail, hash: u64, fx: &mut Vec<Effect>) {
    let Some(&i) = state.by_key.get(&k) else { return };
    let e = &mut state.entries[i];
    let Body::Reply { text, .. } = &mut e.body else { return };
    if text.hash == hash && text.len == d.text.len() {
        return;
    }
    let mut kept = Kept::begin(state);
    kept.touch(state, i);
    let e = &mut state.entries[i];
    if let Body::Reply { text, .. } = &mut e.body {
        text.len = d.text.len();
        text.hash = hash;
    }
    e.changed = true;
    e.facts = None;
    let stopped = e.cut();
    if let Some(locator) = e.locator() {
        fx.push(Effect::Reread { key: k, locator, stopped });
    }
    search_again(state, k, fx);
    kept.finish(state);
    state.corpus_stale += 1;
}

/// Brings what depends on the selection up to date: the view's order, the reply's record
/// (asked for if missing), the text's wrapping, scroll positions.
fn settle(state: &mut State, fx: &mut Vec<Effect>) {
    if state.view_dirty {
        order::rebuild(state);
    }
    settle_summary(state);
    state.cursor = state.cursor.min(state.view.len().saturating_sub(1));
    let selected = state.selected().map(|e| (e.key, e.is_reply(), e.cut()));
    let key = selected.as_ref().map(|s| s.0);
    if key != state.reply_key {
        state.reply_key = key;
        let source = state.reply.tree.source;
        state.reply = ReplyView::default();
        state.reply.tree.source = source;
        state.wrap = None;
    }
    if let Some((key, true, cut)) = selected {
        if state.detail().is_none() && state.wanted != Some(key) {
            state.wanted = Some(key);
            let e = state.selected();
            let job = DetailJob {
                key,
                locator: e.and_then(|e| e.locator()),
                held: e.and_then(|e| e.held_text().cloned()),
                cut,
            };
            fx.push(Effect::Detail(job));
        }
        let width = text_width(state);
        // The text is the record's: it is read when the record is made.
        let text = state.detail().map(|d| d.text.clone());
        if let Some(text) = text
            && state.wrap.as_ref().is_none_or(|w| w.key != key || w.width != width || w.how != state.wrapping)
        {
            let top_at = state.wrap.as_ref().and_then(|w| w.rows.get(state.reply.text_top).copied());
            let how = state.wrapping;
            state.wrap = Some(Wrap { key, width, how, rows: wrap::rows(&text, width as usize, how) });
            if let (Some(at), Some(w)) = (top_at, &state.wrap) {
                state.reply.text_top = wrap::row_of(&w.rows, at);
            }
        }
        refresh_matches(state);
        if !state.reply.placed
            && let Some(d) = state.detail().cloned()
        {
            state.reply.placed = true;
            let n = d.trace.candidates.len();
            state.reply.candidate = d.trace.kept.unwrap_or(0).min(n.saturating_sub(1));
            if let Some(c) = d.trace.candidates.get(state.reply.candidate) {
                reveal(state, c.start);
            }
        }
    }
    // Keep the selected reply on screen.
    let h = current_panes(state).list.map_or(1, |r| layout::list_body(r).height as usize).max(1);
    if state.cursor < state.list_top {
        state.list_top = state.cursor;
    } else if state.cursor >= state.list_top + h {
        state.list_top = state.cursor + 1 - h;
    }
    state.list_top = state.list_top.min(state.view.len().saturating_sub(h));
    if let Some(w) = &state.wrap {
        state.reply.text_top = state.reply.text_top.min(w.rows.len().saturating_sub(1));
    }
}

fn text_width(state: &State) -> u16 {
    text_panes(state).text.map_or(state.size.0.saturating_sub(3), |r| layout::text_body(r).width).max(1)
}

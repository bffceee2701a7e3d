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
mod rounds;
mod screen;
mod search;
mod triage;
mod what_if;

use super::entry::{Body, EntryKey};
use super::layout;
use super::message::{DetailJob, Effect, Msg};
use super::reply::Wrap;
use super::state::State;
use super::wrap;
use crate::analysis::detail::Detail;
use incoming::apply;
use keys::key;
use mouse::mouse;
use panes::{current_panes, reveal, text_panes};
use query::{search_again, searched, set_query};
use screen::settle_summary;
use search::refresh_matches;

/// Applies `msg` to `state`.
pub fn update(state: &mut State, msg: Msg) -> Vec<Effect> {
    let mut fx = Vec::new();
    match msg {
        Msg::Start { query, notices } => start(state, query, notices, &mut fx),
        Msg::Key(ev) => {
            state.flash = None;
            state.list.chosen();
            key(state, &ev, &mut fx);
        }
        Msg::Mouse(ev) => {
            state.list.chosen();
            mouse(state, &ev);
        }
        Msg::Resize(w, h) => state.size = (w, h),
        Msg::Incoming { batch, initial } => {
            let batch = if initial { Some(batch) } else { state.loading.hold(batch) };
            if let Some(batch) = batch {
                apply(state, batch, initial, &mut fx);
            }
        }
        Msg::Progress(p) => state.loading.progress = p,
        Msg::Facts(list) => {
            let n = list.len();
            let folded = |k| state.corpus.as_ref().is_some_and(|c| c.has_folded(k));
            state.corpus_facts += list.iter().filter(|read| !folded(read.key)).count();
            state.list.change(&state.lens(), |c| {
                for read in list {
                    if let Some(i) = c.index(read.key) {
                        let e = c.entry_mut(i);
                        e.set_facts(read.facts);
                        if read.sketch.is_some() {
                            e.sketch = read.sketch.map(String::into_boxed_str);
                            e.html = read.html;
                            // What its page delivers is known: the page is judged again.
                            state.page_flags.touch(e);
                        }
                    }
                }
            });
            state.corpus_stale += n;
        }
        Msg::Detail(k, d, hash) => {
            if state.reply.wanted == Some(k) {
                state.reply.wanted = None;
            }
            changed(state, k, &d, hash, &mut fx);
            state.reply.keep(k, d);
        }
        Msg::Answers(k, given) => state.reply.answered(k, given),
        Msg::Lost(list) => {
            let lens = state.lens();
            state.list.change(&lens, |c| {
                for (k, why) in list {
                    if let Some(i) = c.index(k) {
                        let e = c.entry_mut(i);
                        e.gone = true;
                        state.loading.problem(format!("{}: could not be read again: {why}", e.id));
                    }
                    if state.reply.wanted == Some(k) {
                        state.reply.wanted = None;
                    }
                }
            });
            state.corpus_stale += 1;
        }
        Msg::Searched { generation, hits } => searched(state, generation, hits),
        Msg::Watch(w) => state.loading.watch = w,
        Msg::Flash(s) => state.flash = Some(s),
        Msg::Problem(p) => {
            let said = p.to_string();
            state.flash = Some(said.clone());
            state.loading.problem(said);
        }
        Msg::Quit => state.quit = true,
    }
    settle(state, &mut fx);
    fx
}

/// Applies the query the list opens with, and shows what it and the start have to say, all
/// of it.
fn start(state: &mut State, query: Option<String>, notices: Vec<String>, fx: &mut Vec<Effect>) {
    let mut said = Vec::new();
    if let Some(q) = query {
        match set_query(state, &q, fx) {
            Ok(()) => said.extend(state.flash.take()),
            Err(e) => said.push(format!("--filter: {e}")),
        }
    }
    said.extend(notices);
    state.flash = (!said.is_empty()).then(|| said.join(" · "));
}

/// A record made from a text other than the one listed: the reply changed on disk since. It
/// is marked, its size and hash are the new text's, and its facts are read again.
fn changed(state: &mut State, k: EntryKey, d: &Detail, hash: u64, fx: &mut Vec<Effect>) {
    let Some(Body::Reply { text, .. }) = state.list.entry(k).map(|e| &e.body) else { return };
    if text.hash == hash && text.len == d.text.len() {
        return;
    }
    let searched = state.list.change(&state.lens(), |c| {
        let i = c.index(k)?;
        let e = c.entry_mut(i);
        if let Body::Reply { text, .. } = &mut e.body {
            text.len = d.text.len();
            text.hash = hash;
            // No longer the text listed: read again through the loader.
            text.written = None;
        }
        e.changed = true;
        e.facts = None;
        state.page_flags.touch(e);
        let stopped = e.cut();
        if let Some(locator) = e.locator() {
            fx.push(Effect::Reread { key: k, locator, stopped });
        }
        Some(c.forget_hit(k))
    });
    if searched == Some(true) {
        search_again(state, k, fx);
    }
    state.corpus_stale += 1;
}

/// Brings what depends on the selection up to date: the view's order, the reply's record
/// (asked for if missing), the text's wrapping, scroll positions.
fn settle(state: &mut State, fx: &mut Vec<Effect>) {
    let lens = state.lens();
    state.page_flags.settle(&mut state.list, &lens, crate::scan::rounds::Fraction::HALF);
    state.list.settle(&lens);
    settle_summary(state);
    rounds::settle_rounds(state);
    let selected = state.selected().map(|e| (e.key, e.is_reply(), e.cut()));
    state.reply.show(selected.as_ref().map(|s| s.0));
    if let Some((key, true, cut)) = selected {
        if state.detail().is_none() && state.reply.wanted != Some(key) {
            state.reply.wanted = Some(key);
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
        let reply = &mut state.reply;
        if let Some(text) = text
            && reply.wrap.as_ref().is_none_or(|w| w.key != key || w.width != width || w.how != reply.wrapping)
        {
            let top_at = reply.wrap.as_ref().and_then(|w| w.rows.get(reply.text_top).copied());
            let how = reply.wrapping;
            reply.wrap = Some(Wrap { key, width, how, rows: wrap::rows(&text, width as usize, how) });
            if let (Some(at), Some(w)) = (top_at, &reply.wrap) {
                reply.text_top = wrap::row_of(&w.rows, at);
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
    state.list.keep_selected_shown(h);
    if let Some(w) = &state.reply.wrap {
        state.reply.text_top = state.reply.text_top.min(w.rows.len().saturating_sub(1));
    }
}

fn text_width(state: &State) -> u16 {
    text_panes(state).text.map_or(state.size.0.saturating_sub(3), |r| layout::text_body(r).width).max(1)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn opened(query: Option<&str>, notices: &[&str]) -> State {
        let mut state = State::new(vec![PathBuf::from("logs")], Default::default(), (100, 30));
        let notices = notices.iter().map(|n| n.to_string()).collect();
        let fx = update(&mut state, Msg::Start { query: query.map(str::to_owned), notices });
        assert_eq!(fx, [], "nothing is loaded yet");
        state
    }

    #[test]
    fn every_notice_of_the_start_is_shown_none_in_place_of_another() {
        let state = opened(Some("agent=page"), &["3 unreadable lines in the marks file were skipped", "no state"]);
        assert_eq!(
            state.flash.as_deref(),
            Some("query: agent=page · 3 unreadable lines in the marks file were skipped · no state")
        );
        assert!(state.list.filter().query.is_some());
        let state = opened(Some("pgae=1"), &["no state"]);
        assert!(state.list.filter().query.is_none());
        let flash = state.flash.unwrap_or_default();
        assert!(flash.starts_with("--filter: column 1: no field `pgae`") && flash.ends_with(" · no state"), "{flash}");
        assert_eq!(opened(None, &[]).flash, None);
    }
}

//! What the loader and the watcher send: entries that arrive, amended, restarted, gone.

use super::super::entry::{Body, EntryKey};
use super::super::message::Incoming;
use super::super::order::Kept;
use super::super::state::State;

/// Applies a batch; returns the replies that arrived in it.
pub(super) fn apply(state: &mut State, batch: Vec<Incoming>, initial: bool) -> Vec<EntryKey> {
    let mut arrived = Vec::new();
    let mut kept = Kept::begin(state);
    for change in batch {
        match change {
            Incoming::Entry(mut e) => {
                e.new = !initial && !state.restarted.remove(&e.id);
                if let Body::Diagnostic(d) = &e.body {
                    state.diagnostics += 1;
                    state.last_diagnostic = Some(d.to_string());
                }
                // A file that comes back replaces what was left of it.
                if let Some(k) = state.files.take_gone(&e.source, &e.id) {
                    leave(state, &mut kept, k);
                }
                if state.follow && !initial && e.is_reply() {
                    state.select = Some(e.key);
                }
                state.files.add(&e);
                if e.is_reply() {
                    arrived.push(e.key);
                }
                state.by_key.insert(e.key, state.entries.len());
                state.entries.push(e);
            }
            Incoming::Amended { source, line, meta } => {
                if let Some(k) = state.files.at_line(&source, line)
                    && let Some(&i) = state.by_key.get(&k)
                {
                    kept.touch(state, i);
                    let e = &mut state.entries[i];
                    match &mut e.body {
                        Body::Reply { meta: m, .. } | Body::Event { meta: m, .. } => *m = meta,
                        Body::Diagnostic(_) => {}
                    }
                    // The facts are named after the reply's metadata, as last amended.
                    if let Some(f) = e.facts.take() {
                        e.set_facts(*f);
                    }
                }
            }
            Incoming::Restarted { source } => {
                for k in state.files.take_file(&source) {
                    if let Some(i) = state.by_key.remove(&k) {
                        state.restarted.insert(state.entries[i].id.clone());
                        kept.left(i);
                    }
                }
            }
            Incoming::Removed { source } => {
                let keys: Vec<EntryKey> = state.files.under(&source).collect();
                for k in keys {
                    let Some(&i) = state.by_key.get(&k) else { continue };
                    if state.entries[i].gone {
                        continue;
                    }
                    kept.touch(state, i);
                    state.entries[i].gone = true;
                    state.files.note_gone(&state.entries[i]);
                }
            }
        }
    }
    kept.finish(state);
    state.corpus_stale += 1;
    arrived
}

/// Takes the entry with key `k` out of the indexes; `kept` takes it out of the list.
pub(super) fn leave(state: &mut State, kept: &mut Kept, k: EntryKey) {
    let Some(i) = state.by_key.remove(&k) else { return };
    let by_key = &state.by_key;
    state.files.forget(&state.entries[i], |k| by_key.contains_key(&k));
    kept.left(i);
}

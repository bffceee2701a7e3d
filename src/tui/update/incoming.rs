//! What the loader and the watcher send: entries that arrive, amended, restarted, gone.

use super::super::entry::{Body, EntryKey};
use super::super::message::Incoming;
use super::super::state::State;

/// Applies a batch; returns the replies that arrived in it.
pub(super) fn apply(state: &mut State, batch: Vec<Incoming>, initial: bool) -> Vec<EntryKey> {
    let mut arrived = Vec::new();
    let lens = state.lens();
    state.list.change(&lens, |c| {
        for change in batch {
            match change {
                Incoming::Entry(e) => {
                    if let Body::Diagnostic(d) = &e.body {
                        state.loading.problem(d.to_string());
                    }
                    if state.loading.follow && !initial && e.is_reply() {
                        c.select(e.key);
                    }
                    if e.is_reply() {
                        arrived.push(e.key);
                    }
                    c.arrive(e, initial);
                }
                Incoming::Amended { source, line, meta } => c.amend(&source, line, meta),
                Incoming::Restarted { source } => c.restart(&source),
                Incoming::Removed { source } => c.remove(&source),
            }
        }
    });
    state.corpus_stale += 1;
    arrived
}

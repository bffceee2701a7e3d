//! What a thread's validators and tables are done with, kept for the next ones: a scan reads
//! each reply with validators of its own, and taking their room from the allocator afresh
//! (zeroed, faulted in) costs more than taking the room the last reply's let go.

use std::cell::Cell;
use std::thread::LocalKey;

/// Things of one kind a thread keeps.
pub(super) type Kept<T> = LocalKey<Cell<Vec<T>>>;

/// One of the things `kept` holds, if it holds any.
pub(super) fn take<T: 'static>(kept: &'static Kept<T>) -> Option<T> {
    kept.try_with(|cell| {
        let mut held = cell.take();
        let thing = held.pop();
        cell.set(held);
        thing
    })
    .ok()
    .flatten()
}

/// Keeps `things` in `kept`, as many as it has room for under `most`; the rest are let go, as
/// are all of them where the thread is ending.
pub(super) fn keep<T: 'static>(kept: &'static Kept<T>, most: usize, things: impl IntoIterator<Item = T>) {
    let _ = kept.try_with(|cell| {
        let mut held = cell.take();
        let room = most.saturating_sub(held.len());
        held.extend(things.into_iter().take(room));
        cell.set(held);
    });
}

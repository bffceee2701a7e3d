//! Readers that run outside bracewalk: the user's own extractor, or another library's, put
//! beside the seed's over the same replies. Either a command the user gives
//! (`--reader NAME=COMMAND`), or an extractor function bracewalk runs through its own
//! [adapter](super::adapter) (`--reader NAME=js:FILE`, `NAME=py:TARGET`).
//!
//! A reader runs once, as a long-lived child that speaks the [protocol]: a JSON line per
//! reply in, a JSON line per reply out, in the same order; an adapter first says it has
//! loaded the function, so a bad spec is an error before any reply is read ([`start_ahead`]).
//! [`Commands`] runs every reader a comparison needs: replies go to each in batches as they
//! are loaded and the answers are read as they come, so a reader that answers line by line is
//! read line by line and one that answers only once its input has ended is read then; the
//! caller takes each reply's answers, in order, once every reader has answered it, and gives
//! them to [`Answers`](super::Answers). Each answer is read as the extractor's caller reads it
//! ([caller](super::own::caller)): a value, nothing, a throw, text that is not JSON. A reader's stderr goes to a
//! log file of its own ([`log_path`](super::own::log_path)).
//!
//! A reader that exits, hangs past its timeout (no input taken and no answer given for that
//! long while it owes answers), answers out of order or about a reply it was not asked about,
//! or prints what is not an answer, fails: one diagnostic names the reader and the reply (with
//! the likely fix where its stderr says what went wrong, [`stderr`]), its answers so far
//! stand, and every later reply of it is [`Given::Failed`] ("reader failed", never "nothing
//! read"). Other readers never wait on a failed one.

mod groups;
mod ledger;
mod process;
mod session;
pub mod stderr;

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use super::error::ReaderError;
use super::given::Given;
use super::id::ReaderId;
use super::own::{Outside, Resolved};
use super::problem::ReaderProblem;
use super::protocol;

pub use groups::{end_on_signals, stop_all, stop_on_panic};
pub use session::Session;
use session::Started;

/// Processes started ahead, each waiting for the first run of its reader to take it: by the
/// reader's name and what it is.
static PARKED: Mutex<Vec<(String, Outside, Started)>> = Mutex::new(Vec::new());

/// Starts reader `name`'s function now, and waits until its runner says it has loaded it:
/// the error says why it cannot run (the module does not load, has no such function, …).
/// What it called goes into what was found; the process is kept for the first run of the
/// reader to take. A command speaks no greeting, so it is not started ahead.
pub fn start_ahead(name: &str, mut outside: Outside) -> Result<Outside, ReaderError> {
    if outside.adapter().is_none() {
        return Ok(outside);
    }
    let started = session::ready(name, &outside)?;
    if let Resolved::Function(adapter) = &mut outside.resolved {
        adapter.called = started.called.clone();
    }
    PARKED.lock().unwrap_or_else(PoisonError::into_inner).push((name.to_owned(), outside.clone(), started));
    Ok(outside)
}

/// The process started ahead for reader `name`, `outside`, once.
fn parked(name: &str, outside: &Outside) -> Option<Started> {
    let mut parked = PARKED.lock().unwrap_or_else(PoisonError::into_inner);
    let at = parked.iter().position(|(n, o, _)| n == name && o == outside)?;
    Some(parked.swap_remove(at).2)
}

/// Every command reader a run needs, fed the same replies in the same order.
pub struct Commands {
    sessions: Vec<Session>,
}

impl Commands {
    /// Starts `readers`, each its id, its name and what it is.
    pub fn start(readers: &[(ReaderId, &str, &Outside)]) -> Commands {
        Commands { sessions: readers.iter().map(|&(id, name, outside)| Session::start(id, name, outside)).collect() }
    }

    /// No command reader runs: every reply's answers are in at once (there are none).
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Asks every reader about these replies (`(id, text)`, in order); never waits.
    pub fn send(&mut self, replies: &[(&str, &str)]) {
        if self.sessions.is_empty() || replies.is_empty() {
            return;
        }
        // The requests' size, short of escapes: the chunk is not copied as it grows.
        let size = replies.iter().map(|(id, text)| id.len() + text.len() + 32).sum();
        let mut chunk = String::with_capacity(size);
        let mut ids = Vec::with_capacity(replies.len());
        for &(id, text) in replies {
            protocol::request(&mut chunk, id, text);
            ids.push(id);
        }
        let chunk = Arc::new(chunk.into_bytes());
        for s in &mut self.sessions {
            s.send(&ids, &chunk);
        }
    }

    /// The most input bytes any reader has not yet taken.
    pub fn backlog(&self) -> usize {
        self.sessions.iter().map(Session::backlog).max().unwrap_or(0)
    }

    /// No more replies.
    pub fn close(&mut self) {
        for s in &mut self.sessions {
            s.close();
        }
    }

    /// How many of the replies asked about and not yet taken every reader has answered (or
    /// failed on), reading what has arrived; with `want`, waits until that many (or all that
    /// are owed).
    pub fn ready(&mut self, want: usize) -> usize {
        self.sessions.iter_mut().map(|s| s.poll(want)).min().unwrap_or(usize::MAX)
    }

    /// The oldest reply's answers, one per reader; call only when [`Commands::ready`] says
    /// it is in (a reader that has not answered it yet is left out, which counts as failed).
    pub fn take(&mut self) -> Vec<(ReaderId, Given)> {
        self.sessions.iter_mut().filter_map(|s| s.take().map(|g| (s.reader, g))).collect()
    }

    /// The problems since the last call, each naming its reader.
    pub fn problems(&mut self) -> Vec<ReaderProblem> {
        self.sessions.iter_mut().flat_map(Session::problems).collect()
    }

    /// Ends every reader (its input closed, a moment to exit); the problems that leaves.
    pub fn finish(&mut self) -> Vec<ReaderProblem> {
        for s in &mut self.sessions {
            s.finish();
        }
        self.problems()
    }

    /// Each reader's name and where its stderr goes.
    pub fn logs(&self) -> impl Iterator<Item = (&str, &Path)> {
        self.sessions.iter().filter_map(|s| s.log().map(|l| (s.name(), l)))
    }
}

//! Loading and watching, as the inspector shows them: how far the first load has got, how
//! the logs are watched, whether changes are applied as they come (or held while paused,
//! or followed), and what could not be read.

use super::message::{Incoming, LoadProgress, WatchState};

#[derive(Debug, Default)]
pub struct Loading {
    pub progress: LoadProgress,
    pub watch: WatchState,
    /// Each new reply is selected as it arrives.
    pub follow: bool,
    paused: bool,
    /// Changes that arrived while paused.
    held: Vec<Incoming>,
    /// Problems so far that are not entries of the list (reader commands' failures, replies
    /// that could not be read again): the inputs that could not be read are counted by the
    /// list, which holds them.
    pub diagnostics: usize,
    /// The last problem heard of, listed or not.
    pub last_diagnostic: Option<String>,
}

impl Loading {
    /// Whether changes are held rather than applied.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// How many changes are held.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Holds the changes in `batch` while paused; hands them back to be applied otherwise.
    pub fn hold(&mut self, batch: Vec<Incoming>) -> Option<Vec<Incoming>> {
        if self.paused {
            self.held.extend(batch);
            None
        } else {
            Some(batch)
        }
    }

    /// Holds the changes that arrive from now on.
    pub fn pause(&mut self) {
        self.paused = true;
    }

    /// Applies changes as they arrive again; the changes held, to apply now.
    pub fn resume(&mut self) -> Vec<Incoming> {
        self.paused = false;
        std::mem::take(&mut self.held)
    }

    /// A problem the user should hear of: counted, and shown as the last.
    pub fn problem(&mut self, message: String) {
        self.diagnostics += 1;
        self.last_diagnostic = Some(message);
    }

    /// A problem the list holds (and counts, [`super::list::List::problems`]): shown as the
    /// last.
    pub fn heard(&mut self, message: String) {
        self.last_diagnostic = Some(message);
    }
}

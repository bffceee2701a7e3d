//! The selected reply's panes: its full record (kept for the few replies looked at last),
//! its text wrapped, the search in it, and where each pane is scrolled.

use std::collections::HashSet;
use std::sync::Arc;

use regex::Regex;

use crate::readers::{Given, ReaderId};

use super::entry::EntryKey;
use super::wrap::Wrapping;
use crate::analysis::detail::Detail;

/// How many full records are kept, at most, and in how many bytes of text.
pub const DETAILS_KEPT: usize = 6;
pub const DETAILS_BYTES: usize = 64 << 20;

/// The reply panes' state. The scroll positions are the shown reply's, and start over when
/// another is shown ([`ReplyPanes::show`]).
#[derive(Debug, Default)]
pub struct ReplyPanes {
    /// The reply the panes show.
    key: Option<EntryKey>,
    /// Full records of recently viewed replies, most recent last.
    details: Vec<(EntryKey, Arc<Detail>)>,
    /// What the readers of one's own gave for recently viewed replies, most recent last: they
    /// are asked once a reply's record is made, and answer in their own time.
    answers: Vec<(EntryKey, Vec<(ReaderId, Given)>)>,
    /// The reply whose record was asked for and has not come back.
    pub wanted: Option<EntryKey>,
    pub wrap: Option<Wrap>,
    pub search: Option<Search>,
    /// How the reply text wraps.
    pub wrapping: Wrapping,
    /// Whether the reply's record has arrived and the view was placed on its answer.
    pub placed: bool,
    pub candidate: usize,
    pub text_top: usize,
    pub readings_top: u16,
    pub decision_top: u16,
    pub compare_top: u16,
    pub tree: TreeView,
}

impl ReplyPanes {
    /// The reply the panes show.
    pub fn key(&self) -> Option<EntryKey> {
        self.key
    }

    /// Shows reply `key` (or none): another reply's panes start at the top, the value pane
    /// on the same source, the text to be wrapped again.
    pub fn show(&mut self, key: Option<EntryKey>) {
        if key == self.key {
            return;
        }
        let source = self.tree.source;
        let was = std::mem::take(self);
        *self = ReplyPanes {
            key,
            details: was.details,
            answers: was.answers,
            wanted: was.wanted,
            search: was.search,
            wrapping: was.wrapping,
            tree: TreeView { source, ..TreeView::default() },
            ..ReplyPanes::default()
        };
    }

    /// Reply `from` is reply `to` now (its file was renamed): the panes stay where they are
    /// and its record is kept. A record asked for under the old key is asked for again.
    pub fn rekey(&mut self, from: EntryKey, to: EntryKey) {
        let at = |k: &mut EntryKey| {
            if *k == from {
                *k = to;
            }
        };
        self.key.iter_mut().for_each(at);
        self.details.iter_mut().for_each(|(k, _)| at(k));
        self.wrap.iter_mut().for_each(|w| at(&mut w.key));
        self.search.iter_mut().filter_map(|s| s.key.as_mut()).for_each(at);
        if self.wanted == Some(from) {
            self.wanted = None;
        }
    }

    /// The full record of reply `key`, if it has arrived and is still kept.
    pub fn detail(&self, key: EntryKey) -> Option<&Arc<Detail>> {
        self.details.iter().rev().find(|(k, _)| *k == key).map(|(_, d)| d)
    }

    /// What command reader `reader` gave for reply `key`, if it has answered.
    pub fn given(&self, key: EntryKey, reader: ReaderId) -> Option<&Given> {
        let (_, given) = self.answers.iter().rev().find(|(k, _)| *k == key)?;
        given.iter().find(|(r, _)| *r == reader).map(|(_, g)| g)
    }

    /// Keeps what the readers of one's own gave for reply `key`, for the last few replies
    /// (as many as records are kept).
    pub fn answered(&mut self, key: EntryKey, given: Vec<(ReaderId, Given)>) {
        self.answers.retain(|(k, _)| *k != key);
        self.answers.push((key, given));
        let drop = self.answers.len().saturating_sub(DETAILS_KEPT);
        self.answers.drain(..drop);
    }

    /// The records kept, most recent last.
    pub fn details(&self) -> &[(EntryKey, Arc<Detail>)] {
        &self.details
    }

    /// Keeps the record of reply `k`: the most recent few, in fewer than [`DETAILS_BYTES`] of
    /// text (the one just made always).
    pub fn keep(&mut self, k: EntryKey, d: Arc<Detail>) {
        self.details.retain(|(key, _)| *key != k);
        self.details.push((k, d));
        let mut bytes = 0;
        let mut keep = self.details.len();
        for (i, (_, d)) in self.details.iter().enumerate().rev() {
            bytes += d.text.len();
            if (bytes > DETAILS_BYTES || self.details.len() - i > DETAILS_KEPT) && i + 1 < self.details.len() {
                keep = self.details.len() - i - 1;
                break;
            }
        }
        let drop = self.details.len() - keep;
        self.details.drain(..drop);
    }
}

/// Which value the value pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueSource {
    /// The reader's answer.
    Answer,
    /// The selected candidate's value (the reading the walk took, else the first that parses).
    Candidate,
}

/// The value pane's tree: which nodes are toggled from their default, where the cursor is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeView {
    pub source: ValueSource,
    /// Paths (child indices from the root) whose open/closed state differs from the default.
    pub toggled: HashSet<Vec<u32>>,
    pub cursor: usize,
    pub top: usize,
}

impl Default for TreeView {
    fn default() -> Self {
        TreeView { source: ValueSource::Answer, toggled: HashSet::new(), cursor: 0, top: 0 }
    }
}

/// A search of the reply text.
#[derive(Debug, Clone)]
pub struct Search {
    pub pattern: String,
    pub regex: Regex,
    /// The reply the matches are in.
    pub key: Option<EntryKey>,
    /// Byte spans of the matches.
    pub matches: Vec<(usize, usize)>,
    pub current: Option<usize>,
}

/// The reply text wrapped at a width: where each screen row starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrap {
    pub key: EntryKey,
    pub width: u16,
    pub how: Wrapping,
    pub rows: Vec<usize>,
}

//! What passes between the inspector's parts: the messages [`update`](super::update::update)
//! takes (a key, a batch of entries from the loader, a reply's facts from the readings
//! thread, a record from the details thread) with their payloads, and the effects it hands
//! back for the event loop to carry out.

use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyEvent, MouseEvent};

use crate::analysis::{Config, Facts};
use crate::describe::sketch;
use crate::logs::{Locator, Meta, Problem};
use crate::query::{Query, TextHit};
use crate::readers::{Given, ReaderId, ReaderProblem};

use super::entry::{Entry, EntryKey};
use super::marks::Mark;
use crate::analysis::detail::Detail;

/// Something that happened.
#[derive(Debug)]
pub enum Msg {
    /// The inspector opens: the query the list opens with (`--filter`), and what the user
    /// should hear before anything is loaded (the marks file's unreadable lines, no state
    /// directory).
    Start {
        query: Option<String>,
        notices: Vec<String>,
    },
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Entries and changes from the loader (`initial`: the first load) or the watcher.
    Incoming {
        batch: Vec<Incoming>,
        initial: bool,
    },
    Progress(LoadProgress),
    /// What the scan's readers make of replies: early facts (the badges), then complete
    /// ones (the summary screen, the what-if column).
    Facts(Vec<Read>),
    /// A reply's full record, and the hash of the text it was made from.
    Detail(EntryKey, Arc<Detail>, u64),
    /// What the readers of one's own gave for a reply whose record was made (the readers
    /// pane shows their answers beside the seed's).
    Answers(EntryKey, Vec<(ReaderId, Given)>),
    /// Replies whose text could not be read again, and why.
    Lost(Vec<(EntryKey, Unread)>),
    /// What the query's text terms made of replies searched, for the query of `generation`.
    Searched {
        generation: u64,
        hits: Vec<(EntryKey, TextHit)>,
    },
    Watch(WatchState),
    /// The outcome of an effect, for the status line.
    Flash(String),
    /// A reader command failed (or reported an error for a reply): a diagnostic.
    Problem(ReaderProblem),
    /// A signal asked the inspector to stop.
    Quit,
}

/// Something the event loop must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Make the full record of a reply.
    Detail(DetailJob),
    /// Read a reply's facts again: its text changed on disk since it was listed.
    Reread {
        key: EntryKey,
        locator: Locator,
        stopped: bool,
    },
    /// Search replies' texts for the query's text terms, off the event loop.
    Search(SearchJob),
    SaveMarks(Vec<Mark>),
    /// Put text on the clipboard (OSC 52).
    Yank(String),
    /// Open a file in the user's editor or pager at a line.
    Open {
        path: PathBuf,
        line: usize,
    },
}

/// Why a reply's text could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unread {
    /// Read again from its file, it was not there as listed, or the file could not be read.
    #[error("{0}")]
    Reread(#[from] Problem),
    /// What was asked about is not a reply: it has no text.
    #[error("not a reply")]
    NotAReply,
}

/// A change to the list from the loader or the watcher.
#[derive(Debug, Clone)]
pub enum Incoming {
    Entry(Entry),
    /// A reply's metadata, completed by lines that came after it.
    Amended {
        source: PathBuf,
        line: usize,
        meta: Box<Meta>,
    },
    /// The file shrank or was replaced: what it had is dropped, and it is read again.
    Restarted {
        source: PathBuf,
    },
    /// The file is gone.
    Removed {
        source: PathBuf,
    },
    /// Files renamed, all at once (old path, new path): their entries are the same replies
    /// at the new paths.
    Moved {
        moves: Vec<(PathBuf, PathBuf)>,
    },
}

/// Whether the logs are being watched, and how.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum WatchState {
    #[default]
    Off,
    Starting,
    /// Native file-system events (inotify, FSEvents, …).
    Native,
    /// Re-reading on a timer, because native watching failed for this reason.
    Polling(String),
}

/// How far the first load has got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadProgress {
    pub files: usize,
    pub items: usize,
    pub bytes: u64,
    pub done: bool,
}

/// A reply's facts as the readings thread sends them: the early part (with a sketch of the
/// seed's answer), then the complete facts.
#[derive(Debug)]
pub struct Read {
    pub key: EntryKey,
    pub facts: Facts,
    pub sketch: Option<String>,
    /// The characters of the answer's `html` string, where it has one (sent with the sketch).
    pub html: Option<usize>,
}

impl Read {
    /// The early facts of a reply (`stopped`: its record says it was cut off), with a sketch
    /// of the seed's answer: the first thing the readings thread reads of it.
    pub fn early(key: EntryKey, text: &str, stopped: bool, config: &Config) -> Read {
        let (facts, seed) = Facts::early(text, stopped, config);
        Read::sketched(key, facts, seed.as_ref())
    }

    /// `facts`, with the sketch of the seed's answer and its `html`'s length.
    pub fn sketched(key: EntryKey, facts: Facts, seed: Option<&crate::exact::Value>) -> Read {
        Read { key, facts, sketch: Some(sketch_of(seed)), html: html_of(seed) }
    }

    /// The complete facts of a reply at once, with the sketch of [`Read::early`]: every
    /// answer read once.
    pub fn whole(key: EntryKey, text: &str, stopped: bool, config: &Config) -> Read {
        let mut partial = Facts::start(text, stopped, config);
        let seed = partial.seed();
        let (sketch, html) = (Some(sketch_of(seed)), html_of(seed));
        Read { key, facts: partial.finish(&[]), sketch, html }
    }

    /// The facts of [`Read::early`], completed (the seed read again), with the reader
    /// commands' answers for the reply.
    pub fn complete(key: EntryKey, text: &str, mut facts: Facts, config: &Config, given: &[(ReaderId, Given)]) -> Read {
        facts.complete(text, config, given);
        Read { key, facts, sketch: None, html: None }
    }
}

/// The size of the page an answer delivers: its `html` string's characters.
fn html_of(seed: Option<&crate::exact::Value>) -> Option<usize> {
    match seed? {
        crate::exact::Value::Object(o) => match o.get("html")? {
            crate::exact::Value::String(s) => Some(s.char_len()),
            _ => None,
        },
        _ => None,
    }
}

fn sketch_of(seed: Option<&crate::exact::Value>) -> String {
    let s = seed.map_or_else(|| "null".to_owned(), sketch);
    // Kept on the reply's entry for as long as it is listed: at its length.
    let mut clipped = crate::visible::clip(&s, SKETCH_MAX);
    clipped.shrink_to_fit();
    clipped
}

/// The longest sketch of a reply's answer kept, in characters.
const SKETCH_MAX: usize = 160;

/// A request for a reply's full record: its text where the list holds it, else where to
/// read it again; whether it was cut off.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailJob {
    pub key: EntryKey,
    pub locator: Option<Locator>,
    pub held: Option<Arc<str>>,
    pub cut: bool,
}

/// Replies whose texts the query's text terms are to read: each reply's key, where its text
/// is read again, and its text where the list holds it.
#[derive(Debug, Clone)]
pub struct SearchJob {
    pub generation: u64,
    pub query: Arc<Query>,
    pub replies: Vec<(EntryKey, Option<Locator>, Option<Arc<str>>)>,
}

impl PartialEq for SearchJob {
    fn eq(&self, other: &SearchJob) -> bool {
        self.generation == other.generation && self.query == other.query && self.replies.len() == other.replies.len()
    }
}

//! A file followed as it changes: each read returns only what is new.
//!
//! A watcher's event is a hint, not a fact, so a [`Tail`] re-reads the file's state from
//! disk every time it is asked. A JSONL file is read from where the last read stopped, up
//! to its last newline (a last line still being written is held back); a file that shrank,
//! was replaced (another file: an atomic rename), or no longer holds what was read (truncated
//! and written again past where the last read stopped, which its size alone cannot tell) is
//! read again from the start, and the consumer is told to drop what it had from it first. A
//! file read whole (a text reply, a JSON document) is read again whenever its size or time
//! changes.
//!
//! A file renamed is the same file: [`Tail::rename`] moves the tail to the new name, and the
//! read goes on from where it stopped (a logger rotating by rename may write on through its
//! open handle for a while). Where the new name may be read otherwise (another directory,
//! whose run context differs, or another extension, which can decide how a file is read),
//! the file is read again from the start under it.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::logs::jsonl::JsonlReader;
use crate::logs::loader::{Loader, Start};
use crate::logs::model::diagnostic::{Diagnostic, Problem};
use crate::logs::model::reply::{FileOut, Item, Listed, Meta};

/// What a read of a followed file found.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A new reply, event or diagnostic.
    Item(Item),
    /// A reply (or event) pushed earlier, at `line`, with context that has arrived since:
    /// its review round, its page's verification, the run's outcome. Replace its metadata.
    Amended { source: PathBuf, line: usize, meta: Meta },
    /// The file shrank, was replaced or was rewritten: drop every item from it; the items
    /// that follow are the file read from the start.
    Restarted { source: PathBuf, why: Restart },
    /// The file is gone: drop every item from it.
    Removed { source: PathBuf },
    /// Files renamed, all at once (a rotation renames a chain, `log.1` to `log.2` as `log`
    /// to `log.1`): each one's items are the items of the file at its new path now, ids
    /// named after the path renamed with it. What follows from each is read at its new path.
    Moved { moves: Vec<(PathBuf, PathBuf)> },
    /// A new reply, listed without its text (only from a tail that lists, [`Tail::listing`]).
    Listed(Listed),
}

/// Why a followed file is read again from the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// It is shorter than what was already read.
    Truncated,
    /// Another file now has its name.
    Replaced,
    /// What was read is no longer there: the file was truncated and written again, past
    /// where the last read stopped.
    Overwritten,
    /// A file read whole changed.
    Rewritten,
    /// It was renamed to where it may be read otherwise (see `Tail::rename`).
    Moved,
}

/// A file's identity. The birth time, where the filesystem keeps one, tells a new file from
/// a deleted one whose inode number it was given (ext4 hands a freed number out again at once).
#[cfg(unix)]
pub(crate) type FileId = (u64, u64, Option<SystemTime>);
#[cfg(not(unix))]
pub(crate) type FileId = Option<SystemTime>;

#[cfg(unix)]
pub(crate) fn file_id(m: &fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino(), m.created().ok())
}

#[cfg(not(unix))]
pub(crate) fn file_id(m: &fs::Metadata) -> FileId {
    m.created().ok()
}

enum State {
    /// Nothing read yet (or its first line unfinished).
    Fresh,
    Jsonl(Box<JsonlReader>),
    /// Read whole, or skipped with a diagnostic (an empty file, say); read again when it
    /// changes.
    Whole {
        len: u64,
        modified: Option<SystemTime>,
    },
}

/// One file followed as it grows.
pub struct Tail {
    path: PathBuf,
    loader: Arc<Loader>,
    id: Option<FileId>,
    state: State,
    /// Whether anything from the file has been pushed (so a restart must be announced).
    pushed: bool,
    /// Whether the last read found no file at the path.
    gone: bool,
    /// The last bytes read of a JSONL file (up to [`SEEN`], ending at the offset), to tell a
    /// file that grew from one rewritten longer; `None` when they could not be read.
    seen: Option<Vec<u8>>,
    /// Replies whose texts lines hold are listed, not loaded (see [`Loader::list`]).
    list: bool,
    /// Renamed to where it may be read otherwise: read again from the start.
    renamed: bool,
}

/// How many bytes before the offset are compared: enough to span a record's distinct part.
const SEEN: u64 = 256;

/// Up to [`SEEN`] bytes of `file`, ending at `end`.
fn bytes_before(mut file: &File, end: u64) -> io::Result<Vec<u8>> {
    let start = end.saturating_sub(SEEN);
    let mut bytes = Vec::with_capacity(SEEN as usize);
    file.seek(SeekFrom::Start(start))?;
    file.take(end - start).read_to_end(&mut bytes)?;
    Ok(bytes)
}

impl Tail {
    pub fn new(path: impl Into<PathBuf>, loader: Arc<Loader>) -> Tail {
        Tail {
            path: path.into(),
            loader,
            id: None,
            state: State::Fresh,
            pushed: false,
            gone: false,
            seen: None,
            list: false,
            renamed: false,
        }
    }

    /// This tail, pushing the replies whose texts lines hold as [`Change::Listed`].
    pub fn listing(mut self) -> Tail {
        self.list = true;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the last read found no file at the path (not: could not look).
    pub fn is_gone(&self) -> bool {
        self.gone
    }

    /// The file last read, while it is known.
    pub(crate) fn id(&self) -> Option<FileId> {
        self.id
    }

    /// Whether anything read from the file has been pushed (and not dropped since).
    pub(crate) fn has_pushed(&self) -> bool {
        self.pushed
    }

    /// The file was renamed to `to`: it is followed there. A JSONL file renamed within its
    /// directory keeping its extension is read on from where the last read stopped; any
    /// other is read again from the start at the next read (a restart, [`Restart::Moved`]):
    /// its run context comes from the directories around it, and an extension can decide
    /// how a file is read.
    pub(crate) fn rename(&mut self, to: PathBuf) {
        let same_dir = self.path.parent() == to.parent();
        let same_ext = crate::logs::file::extension(&self.path) == crate::logs::file::extension(&to);
        self.renamed |= !(matches!(self.state, State::Jsonl(_)) && same_dir && same_ext);
        self.path = to;
    }

    /// The byte offset read up to (for a JSONL file).
    pub fn offset(&self) -> u64 {
        match &self.state {
            State::Jsonl(s) => s.offset(),
            _ => 0,
        }
    }

    /// Pushes what is new in the file since the last call.
    pub fn read_new(&mut self, sink: &mut dyn FnMut(Change)) {
        let meta = match fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if self.pushed || self.id.is_some() {
                    sink(Change::Removed { source: self.path.clone() });
                }
                self.reset();
                self.gone = true;
                return;
            }
            Err(e) => {
                sink(Change::Item(Item::Diagnostic(Diagnostic::new(&self.path, Problem::from_io(&e, false)))));
                return;
            }
        };
        self.gone = false;
        let id = file_id(&meta);
        let modified = meta.modified().ok();
        let restart = match &self.state {
            _ if self.renamed => Some(Restart::Moved),
            _ if self.id.is_some_and(|old| old != id) => Some(Restart::Replaced),
            State::Jsonl(s) if meta.len() < s.offset() => Some(Restart::Truncated),
            State::Jsonl(s) if !self.still_holds(s.offset()) => Some(Restart::Overwritten),
            State::Whole { len, modified: m } if *len != meta.len() || *m != modified => Some(Restart::Rewritten),
            _ => None,
        };
        if let Some(why) = restart {
            if self.pushed {
                sink(Change::Restarted { source: self.path.clone(), why });
            }
            self.reset();
        }
        self.id = Some(id);
        let path = self.path.clone();
        let mut pushed = false;
        let mut emit = |out: FileOut| {
            pushed = true;
            sink(match out {
                FileOut::Item(item) => Change::Item(item),
                FileOut::Amended { line, meta } => Change::Amended { source: path.clone(), line, meta },
                FileOut::Listed(listed) => Change::Listed(listed),
            });
        };
        // Gone between the look at the path and the open (renamed or deleted: the next look
        // finds where), which is no problem of the file's.
        let mut vanished = false;
        match &mut self.state {
            State::Fresh => match self.loader.start(&self.path, true, &mut |out| match out {
                FileOut::Item(Item::Diagnostic(d)) if d.problem == Problem::Vanished && d.line.is_none() => {
                    vanished = true;
                }
                out => emit(out),
            }) {
                Start::Skipped if vanished => {}
                Start::Jsonl(file, mut s) => {
                    if self.list {
                        s.listing();
                    }
                    s.read(&*self.loader, &self.path, &file, &mut emit);
                    self.seen = bytes_before(&file, s.offset()).ok();
                    self.state = State::Jsonl(s);
                }
                Start::Whole | Start::Skipped => self.state = State::Whole { len: meta.len(), modified },
                Start::NotYet => {}
            },
            State::Jsonl(s) => match File::open(&self.path) {
                Ok(file) => {
                    s.read(&*self.loader, &self.path, &file, &mut emit);
                    self.seen = bytes_before(&file, s.offset()).ok();
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    emit(FileOut::Item(Item::Diagnostic(Diagnostic::new(&self.path, Problem::from_io(&e, true)))))
                }
            },
            State::Whole { .. } => {}
        }
        self.pushed |= pushed;
    }

    /// Whether the file still holds, just before `offset`, the bytes the last read ended
    /// with. A file that cannot be read now is given the benefit of the doubt: the read that
    /// follows reports why.
    fn still_holds(&self, offset: u64) -> bool {
        let Some(seen) = &self.seen else { return true };
        match File::open(&self.path).and_then(|f| bytes_before(&f, offset)) {
            Ok(now) => now == *seen,
            Err(_) => true,
        }
    }

    fn reset(&mut self) {
        self.id = None;
        self.state = State::Fresh;
        self.pushed = false;
        self.seen = None;
        self.renamed = false;
    }
}

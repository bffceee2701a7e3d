//! Readers that run outside bracewalk: the user's own extractor, or another library's, put
//! beside the seed's over the same replies. Either a command the user gives
//! (`--reader NAME=COMMAND`), or an extractor function bracewalk runs through its own
//! [adapter](super::adapter) (`--reader NAME=js:FILE`, `NAME=py:TARGET`).
//!
//! A reader runs once, as a long-lived child that speaks the [`protocol`]: a JSON line per
//! reply in, a JSON line per reply out, in the same order; an adapter first says it has
//! loaded the function, so a bad spec is an error before any reply is read ([`start_ahead`]).
//! [`Commands`] runs every reader a comparison needs: replies go to each in batches as they
//! are loaded and the answers are read as they come, so a reader that answers line by line is
//! read line by line and one that answers only once its input has ended is read then; the
//! caller takes each reply's answers, in order, once every reader has answered it, and gives
//! them to [`Answers`](super::Answers). Each answer is read as the extractor's caller reads it
//! ([`caller`]): a value, nothing, a throw, text that is not JSON. A reader's stderr goes to a
//! log file of its own ([`log_path`]).
//!
//! A reader that exits, hangs past its timeout (no input taken and no answer given for that
//! long while it owes answers), answers out of order or about a reply it was not asked about,
//! or prints what is not an answer, fails: one diagnostic names the reader and the reply (with
//! the likely fix where its stderr says what went wrong, [`stderr`]), its answers so far
//! stand, and every later reply of it is [`Given::Failed`] ("reader failed", never "nothing
//! read"). Other readers never wait on a failed one.

pub mod caller;
pub mod protocol;
mod session;
pub mod stderr;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::adapter::Adapter;
use super::{Catalogue, Given, ReaderError, ReaderId, ReaderProblem};

use caller::Caller;
pub use session::Session;

/// How long a reader that owes answers may go without taking input or giving an answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// What runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// `sh -c COMMAND`.
    Shell(String),
    /// An extractor function, through bracewalk's runner for its language.
    Adapter(Adapter),
}

/// How a reader that runs outside runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub launch: Launch,
    /// How its answers are read.
    pub caller: Caller,
    pub timeout: Duration,
    /// Where its stderr goes (`None`: nowhere).
    pub log: Option<PathBuf>,
    started: Started,
}

impl Spec {
    /// `command` under `sh -c`, with the default timeout and no log.
    pub fn new(command: &str) -> Spec {
        Spec::of(Launch::Shell(command.to_owned()), Caller::default())
    }

    fn of(launch: Launch, caller: Caller) -> Spec {
        Spec { launch, caller, timeout: DEFAULT_TIMEOUT, log: None, started: Started::default() }
    }

    /// What follows `NAME=` in `--reader`: `js:…` or `py:…` for an extractor function (its
    /// file and the program that runs it found now), anything else a command.
    pub fn parse(name: &str, definition: &str) -> Result<Spec, ReaderError> {
        if !Adapter::names_one(definition) {
            return Ok(Spec::new(definition));
        }
        // Options after the first `?`: file names with a `?` are not taken.
        let (spec, options) = definition.split_once('?').unwrap_or((definition, ""));
        let caller = Caller::parse(options).map_err(|problem| ReaderError::BadOption {
            name: name.to_owned(),
            spec: definition.to_owned(),
            problem,
        })?;
        match Adapter::parse(name, spec)? {
            Some(adapter) => Ok(Spec::of(Launch::Adapter(adapter), caller)),
            None => Ok(Spec::new(definition)),
        }
    }

    /// The same reader, to run a second time beside the first (the inspector asks one about
    /// the reply looked at while the other reads the corpus): not the process started ahead
    /// for the first, and its stderr in `log`.
    pub fn another(&self, log: Option<PathBuf>) -> Spec {
        Spec { log, started: Started::default(), ..self.clone() }
    }

    /// What it runs, as a message names it: the command, or the adapter's target.
    pub fn shown(&self) -> String {
        match &self.launch {
            Launch::Shell(command) => crate::visible::visible(&crate::visible::clip(command, 120), false),
            Launch::Adapter(a) => a.target.clone(),
        }
    }

    /// What the catalogue says it is.
    pub fn description(&self) -> String {
        match &self.launch {
            Launch::Shell(command) => format!("the command `{}`", crate::visible::clip(command, 60)),
            Launch::Adapter(a) => a.description(),
        }
    }
}

/// A reader started ahead of its run, to tell a bad spec before any reply is read, for the
/// run to take. Which process serves a spec is no part of what it is: every two are equal.
#[derive(Clone, Default)]
struct Started(Arc<Mutex<Option<Session>>>);

impl Started {
    fn put(&self, session: Session) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(session);
    }

    /// The session started ahead for `reader`, once.
    fn take(&self, reader: ReaderId) -> Option<Session> {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.take_if(|s| s.reader == reader)
    }
}

impl PartialEq for Started {
    fn eq(&self, _: &Started) -> bool {
        true
    }
}

impl Eq for Started {}

impl fmt::Debug for Started {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Started")
    }
}

/// Starts reader `id` of `catalogue` now if it is an adapter, and waits until it says it has
/// loaded its function: the error says why it cannot run (the module does not load, has no
/// such function, …). The session is kept for the first run of the reader to take.
/// A command speaks no greeting, so it is not started ahead.
pub fn start_ahead(catalogue: &Catalogue, id: ReaderId) -> Result<(), ReaderError> {
    let Some((_, spec)) = catalogue.commands().find(|(r, _)| *r == id) else { return Ok(()) };
    if let Launch::Adapter(_) = spec.launch {
        spec.started.put(Session::ready(id, catalogue.name(id), spec)?);
    }
    Ok(())
}

/// `NAME=DEFINITION`, as `--reader` takes it.
pub fn parse_definition(s: &str) -> Result<(String, String), ReaderError> {
    let Some((name, definition)) = s.split_once('=') else {
        return Err(ReaderError::NoDefinition { given: s.to_owned() });
    };
    check_name(name)?;
    if definition.trim().is_empty() {
        return Err(ReaderError::NoCommand { name: name.to_owned() });
    }
    Ok((name.to_owned(), definition.to_owned()))
}

/// A reader's name is a word: it goes into `--compare A,B`, filter names, and its log's file
/// name.
pub fn check_name(name: &str) -> Result<(), ReaderError> {
    let word = name.len() <= 40
        && name.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if word { Ok(()) } else { Err(ReaderError::BadName { name: name.to_owned() }) }
}

/// Where reader `name`'s stderr goes: `readers/NAME.log` in the state directory, or in
/// `bracewalk-readers` in the temporary directory where the state directory lies inside an
/// inspected path (bracewalk never writes into what it inspects); `None` when both do. Each
/// run of the reader starts its log afresh.
pub fn log_path(state_dir: Option<&Path>, name: &str, inspected: &[PathBuf]) -> Option<PathBuf> {
    let file = format!("{name}.log");
    let places = [state_dir.map(|d| d.join("readers")), Some(std::env::temp_dir().join("bracewalk-readers"))];
    places.into_iter().flatten().find(|dir| !inside(dir, inspected)).map(|dir| dir.join(file))
}

/// Whether `dir` (which may not exist yet) lies inside one of `paths` (a file counts as its
/// directory).
fn inside(dir: &Path, paths: &[PathBuf]) -> bool {
    let dir = resolved(dir);
    paths.iter().any(|p| {
        let p = resolved(p);
        let p = if p.is_file() { p.parent().map(Path::to_path_buf).unwrap_or(p) } else { p };
        dir.starts_with(&p)
    })
}

/// `path` made absolute with its links resolved, as far as it exists.
fn resolved(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    let mut rest = Vec::new();
    let mut base = absolute.as_path();
    loop {
        if let Ok(real) = base.canonicalize() {
            return rest.iter().rev().fold(real, |p, c| p.join(c));
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                base = parent;
            }
            _ => return absolute,
        }
    }
}

/// Every command reader a run needs, fed the same replies in the same order.
pub struct Commands {
    sessions: Vec<Session>,
}

impl Commands {
    /// Starts the command readers `readers` of `catalogue` (the others are passed over).
    pub fn start(catalogue: &Catalogue, readers: &[ReaderId]) -> Commands {
        let sessions = catalogue
            .commands()
            .filter(|(id, _)| readers.contains(id))
            .map(|(id, spec)| Session::start(id, catalogue.name(id), spec))
            .collect();
        Commands { sessions }
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
        self.sessions.iter().filter_map(|s| s.log().map(|l| (s.name(), l.as_path())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_definitions() {
        assert_eq!(parse_definition("mine=node x.mjs a=b"), Ok(("mine".to_owned(), "node x.mjs a=b".to_owned())));
        assert_eq!(parse_definition("mine"), Err(ReaderError::NoDefinition { given: "mine".to_owned() }));
        assert_eq!(parse_definition("mine=  "), Err(ReaderError::NoCommand { name: "mine".to_owned() }));
        assert!(parse_definition("a,b=cat").is_err());
        assert!(parse_definition("../x=cat").is_err());
        assert!(check_name("json_repair-0.3").is_ok());
        assert!(check_name("").is_err());
        let mut c = Catalogue::builtin();
        assert!(c.add_command("last-wins", Spec::new("cat")).is_err(), "a built-in name");
        let id = c.add_command("mine", Spec::new("cat")).unwrap();
        assert!(c.is_command(id) && !c.is_command(ReaderId::LAST_WINS));
        assert_eq!(c.find("mine"), Ok(id));
        assert!(c.what_ifs().any(|r| r == id), "compared by default");
        assert!(c.add_command("mine", Spec::new("cat")).is_err(), "twice");
        let e = Spec::parse("mine", "js:x.mjs?unwrap=data").unwrap_err();
        assert!(e.to_string().starts_with("reader mine: js:x.mjs?unwrap=data: unwrap=data: not a JSON pointer"), "{e}");
        assert_eq!(Spec::parse("mine", "node x.mjs?a=1").map(|s| s.launch), Ok(Launch::Shell("node x.mjs?a=1".into())));
    }

    #[test]
    fn the_log_is_never_inside_an_inspected_path() {
        let state = tempfile::tempdir().unwrap();
        let logs = state.path().join("logs");
        std::fs::create_dir_all(&logs).unwrap();
        let mine = log_path(Some(state.path()), "mine", std::slice::from_ref(&logs)).unwrap();
        assert_eq!(mine, state.path().join("readers").join("mine.log"));
        // The state directory inside what is inspected: the temporary directory instead.
        let elsewhere = log_path(Some(&logs.join("state")), "mine", std::slice::from_ref(&logs)).unwrap();
        assert!(!elsewhere.starts_with(&logs), "{}", elsewhere.display());
        assert!(elsewhere.ends_with("bracewalk-readers/mine.log"));
        // Inspecting everything leaves nowhere.
        assert_eq!(log_path(Some(state.path()), "mine", &[PathBuf::from("/")]), None);
    }
}

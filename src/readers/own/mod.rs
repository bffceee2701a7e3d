//! A reader of one's own, as data: the [`Spec`] the user gives (a command, `--reader
//! NAME=COMMAND`, or an extractor function bracewalk runs through its own
//! [adapter](super::adapter), `--reader NAME=js:FILE`, `NAME=py:TARGET`, with the options of
//! its [caller]), parsed without looking at anything; what resolving it found
//! ([`Resolved`]); and how a run runs it ([`RunOptions`]: its timeout, where its stderr goes,
//! [`log_path`]). An [`Outside`] is the three together, as the catalogue holds the reader.
//! Nothing here is a process: those are the [supervisor](super::supervisor)'s.

pub mod caller;

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::adapter::{Adapter, Language};
use super::error::ReaderError;

use caller::Caller;

/// How long a reader that owes answers may go without taking input or giving an answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// What a reader of one's own runs, as given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Launch {
    /// `sh -c COMMAND`.
    Shell(String),
    /// An extractor function, through bracewalk's runner for its language: the spec's body,
    /// its options taken off (`x.mjs#extract`, `pkg.mod:Class.method`). Which file, export
    /// or attribute that is, resolving it finds.
    Function { language: Language, target: String },
}

/// A reader of one's own as the user gives it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Spec {
    pub launch: Launch,
    /// How its answers are read.
    pub caller: Caller,
}

impl Spec {
    /// `command` under `sh -c`.
    pub fn new(command: &str) -> Spec {
        Spec { launch: Launch::Shell(command.to_owned()), caller: Caller::default() }
    }

    /// What follows `NAME=` in `--reader`: `js:…` or `py:…` for an extractor function, with
    /// its caller's options after `?`; anything else a command. Looks at nothing but the
    /// text: what the function's target is, [resolving](super::resolve) it finds.
    pub fn parse(name: &str, definition: &str) -> Result<Spec, ReaderError> {
        let language = match definition.get(..3) {
            Some("js:") => Language::JavaScript,
            Some("py:") => Language::Python,
            _ => return Ok(Spec::new(definition)),
        };
        // Options after the first `?`: file names with a `?` are not taken.
        let (spec, options) = definition.split_once('?').unwrap_or((definition, ""));
        let caller = Caller::parse(options).map_err(|problem| ReaderError::BadOption {
            name: name.to_owned(),
            spec: definition.to_owned(),
            problem,
        })?;
        let target = &spec[3..];
        if target.is_empty() {
            return Err(ReaderError::BadSpec {
                name: name.to_owned(),
                spec: spec.to_owned(),
                problem: "names no file".to_owned(),
            });
        }
        Ok(Spec { launch: Launch::Function { language, target: target.to_owned() }, caller })
    }
}

/// How a run of bracewalk runs a reader of one's own.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RunOptions {
    /// How long it may owe answers without taking input or giving one.
    pub timeout: Duration,
    /// Where its stderr goes (`None`: nowhere).
    pub log: Option<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { timeout: DEFAULT_TIMEOUT, log: None }
    }
}

/// What resolving a spec found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Resolved {
    /// A command: `sh -c` finds what it runs.
    Shell,
    /// An extractor function: its file, the export or attribute, the program that runs it.
    Function(Box<Adapter>),
}

/// A reader of one's own as a run holds it: what the user gave, what resolving it found, and
/// how this run runs it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Outside {
    pub spec: Spec,
    pub resolved: Resolved,
    pub run: RunOptions,
}

/// What starts a reader's process.
#[derive(Debug, Clone, Copy)]
pub enum Runs<'a> {
    /// `sh -c COMMAND`.
    Shell(&'a str),
    /// An extractor function's runner.
    Adapter(&'a Adapter),
}

impl Outside {
    /// `command` under `sh -c`, run with the default options (a command needs no resolving).
    pub fn command(command: &str) -> Outside {
        Outside { spec: Spec::new(command), resolved: Resolved::Shell, run: RunOptions::default() }
    }

    /// The same reader, run otherwise (another log, another timeout).
    pub fn with_run(&self, run: RunOptions) -> Outside {
        Outside { run, ..self.clone() }
    }

    /// What starts its process. A function that was not resolved runs as what it was
    /// given, a command (what [`Spec::parse`] makes of anything else).
    pub fn runs(&self) -> Runs<'_> {
        match (&self.spec.launch, &self.resolved) {
            (_, Resolved::Function(a)) => Runs::Adapter(a),
            (Launch::Shell(command), Resolved::Shell) => Runs::Shell(command),
            (Launch::Function { target, .. }, Resolved::Shell) => Runs::Shell(target),
        }
    }

    /// The extractor function, where it is one.
    pub fn adapter(&self) -> Option<&Adapter> {
        match &self.resolved {
            Resolved::Function(a) => Some(a),
            Resolved::Shell => None,
        }
    }

    /// What it runs, as a message names it: the command, or the adapter's target.
    pub fn shown(&self) -> String {
        match self.runs() {
            Runs::Shell(command) => crate::visible::visible(&crate::visible::clip(command, 120), false),
            Runs::Adapter(a) => a.target.clone(),
        }
    }

    /// What the catalogue says it is.
    pub fn description(&self) -> String {
        match self.runs() {
            Runs::Shell(command) => format!("the command `{}`", crate::visible::clip(command, 60)),
            Runs::Adapter(a) => a.description(),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::readers::catalogue::Catalogue;
    use crate::readers::id::ReaderId;

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
        assert!(c.add_command("last-wins", Outside::command("cat")).is_err(), "a built-in name");
        let id = c.add_command("mine", Outside::command("cat")).unwrap();
        assert!(c.is_command(id) && !c.is_command(ReaderId::LAST_WINS));
        assert_eq!(c.find("mine"), Ok(id));
        assert!(c.what_ifs().any(|r| r == id), "compared by default");
        assert!(c.add_command("mine", Outside::command("cat")).is_err(), "twice");
        let e = Spec::parse("mine", "js:x.mjs?unwrap=data").unwrap_err();
        assert!(e.to_string().starts_with("reader mine: js:x.mjs?unwrap=data: unwrap=data: not a JSON pointer"), "{e}");
        assert_eq!(Spec::parse("mine", "node x.mjs?a=1").map(|s| s.launch), Ok(Launch::Shell("node x.mjs?a=1".into())));
    }

    #[test]
    fn a_spec_is_read_from_its_text_alone() {
        // No file is looked for: one that is not there is resolving's error.
        let s = Spec::parse("mine", "js:no/such/file.mjs#extract?throws=fail").unwrap();
        let target = "no/such/file.mjs#extract".to_owned();
        assert_eq!(s.launch, Launch::Function { language: Language::JavaScript, target });
        assert_eq!(s.caller.throws, caller::Throws::Fail);
        assert_eq!(Spec::parse("mine", "js:").unwrap_err().to_string(), "reader mine: js:: names no file");
        assert_eq!(
            Spec::parse("mine", "py:?strings=value").unwrap_err().to_string(),
            "reader mine: py:: names no file"
        );
        assert_eq!(Spec::parse("mine", "rb:x.rb").map(|s| s.launch), Ok(Launch::Shell("rb:x.rb".into())));
        // Plain data: equal specs are one key.
        let specs: std::collections::HashSet<Spec> =
            ["js:a.mjs", "js:a.mjs", "py:m:f?nothing={}"].iter().map(|d| Spec::parse("m", d).unwrap()).collect();
        assert_eq!(specs.len(), 2);
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

//! Extractor functions run as they are: `--reader NAME=js:FILE[#EXPORT]` and `--reader
//! NAME=py:TARGET[:ATTR]` (each with options after `?`, which are the
//! [caller](super::own::caller)'s). [`locate`] finds what a spec names (the file, the export
//! or attribute asked for, the program that runs it) and how to start its runner.
//!
//! bracewalk carries a small runner for each language ([`JS_RUNNER`], [`PY_RUNNER`]) and runs it
//! with `node --input-type=module -e` or `python3 -B -c`, so nothing is copied or written
//! anywhere (`-B`: no `__pycache__` beside the user's module). The runner loads the user's
//! file or module as its own language loads it from where it is (its own `node_modules`, its
//! own package), says whether it found the function before any reply is sent (so a bad spec
//! is one error before anything is read), then speaks the reader [protocol]. The extractor's
//! standard output goes to the reader's log: the runner is started with its standard output
//! moved to descriptor 3 and descriptor 1 pointed at its standard error, so no `print` or
//! `console.log` can reach the protocol ([`Adapter::shell_script`]).
//!
//! [protocol]: super::protocol

mod node;
mod python;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::error::ReaderError;

/// The JavaScript runner.
pub const JS_RUNNER: &str = include_str!("runner.mjs");
/// The Python runner.
pub const PY_RUNNER: &str = include_str!("runner.py");

/// The language an adapter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    JavaScript,
    Python,
}

/// An extractor function, as found, and how to run it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Adapter {
    pub language: Language,
    /// What it loads, as messages name it: the file as given, or the module's name.
    pub target: String,
    /// The file it loads, absolute and its links resolved; none for a Python module named
    /// by its name.
    pub file: Option<PathBuf>,
    /// The export or attribute the spec names (`extract`, `Parser.parse`), if it names one.
    pub asked: Option<String>,
    /// What goes before a function's name in a spec for this target (`js:x.mjs#`).
    pub spec_prefix: String,
    /// How a TypeScript file is run (`node's type stripping`, `tsx`), where it is one.
    pub via: Option<String>,
    /// The program (node, python) and its arguments, the runner among them.
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// What the runner called, once it has loaded the module and said so.
    pub called: Option<Called>,
}

/// The function a runner called, as it said once it had loaded the module.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Called {
    pub function: String,
}

/// Finds what `target` (a `js:` or `py:` spec's body, its options taken off) names for
/// reader `name`: its file from the working directory, the program that runs it on `PATH`
/// (for TypeScript, what lets node run it). A target that cannot run is an error here.
pub fn locate(name: &str, language: Language, target: &str) -> Result<Adapter, ReaderError> {
    match language {
        Language::JavaScript => node::adapter(name, target),
        Language::Python => python::adapter(name, &format!("py:{target}"), target),
    }
}

impl Adapter {
    /// What the catalogue says it is.
    pub fn description(&self) -> String {
        let language = match self.language {
            Language::JavaScript => "the JavaScript function",
            Language::Python => "the Python function",
        };
        let via = self.via.as_ref().map(|v| format!(" (through {v})")).unwrap_or_default();
        format!("{language} of {}{via}", self.target)
    }

    /// The `sh -c` script that starts the program with its standard output moved to
    /// descriptor 3 and descriptor 1 on its standard error; the program and its arguments
    /// follow the script as its positional parameters, unquoted by anyone.
    pub fn shell_script() -> &'static str {
        "exec 3>&1 1>&2; exec \"$@\""
    }
}

/// A file a spec names: made absolute, links resolved (node and Python resolve from where
/// the file really is), and it must be a file.
fn existing_file(name: &str, file: &str) -> Result<PathBuf, ReaderError> {
    let path = Path::new(file);
    match path.canonicalize() {
        Ok(real) if real.is_file() => Ok(real),
        Ok(_) => Err(ReaderError::BadSpec {
            name: name.to_owned(),
            spec: file.to_owned(),
            problem: "is not a file".to_owned(),
        }),
        Err(_) => Err(ReaderError::NoFile { name: name.to_owned(), file: path.to_path_buf() }),
    }
}

/// `program` as a path: itself where it names one (it has a `/`), else the first executable
/// file of that name on `PATH`.
fn on_path(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_that_are_not_there_name_the_reader_and_the_cause() {
        let e = locate("mine", Language::JavaScript, "no/such/file.mjs").unwrap_err();
        assert_eq!(e.to_string(), "reader mine: no/such/file.mjs: no such file");
        let e = locate("mine", Language::Python, "no/such/file.py").unwrap_err();
        assert_eq!(e.to_string(), "reader mine: no/such/file.py: no such file");
    }
}

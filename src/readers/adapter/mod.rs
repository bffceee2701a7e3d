//! Extractor functions run as they are: `--reader NAME=js:FILE[#EXPORT]` and `--reader
//! NAME=py:TARGET[:ATTR]` (each with options after `?`, which are the
//! [caller](super::command::caller)'s).
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
//! [protocol]: super::command::protocol

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    JavaScript,
    Python,
}

/// An extractor function and how to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adapter {
    pub language: Language,
    /// What it loads, as messages name it: the file as given, or the module's name.
    pub target: String,
    /// What goes before a function's name in a spec for this target (`js:x.mjs#`).
    pub spec_prefix: String,
    /// How a TypeScript file is run (`node's type stripping`, `tsx`), where it is one.
    pub via: Option<String>,
    /// The program (node, python) and its arguments, the runner among them.
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

impl Adapter {
    /// Whether `spec` (after `NAME=`) names an extractor function: `js:…` or `py:…`.
    pub fn names_one(spec: &str) -> bool {
        spec.starts_with("js:") || spec.starts_with("py:")
    }

    /// `js:…` or `py:…` (after `NAME=`, its options taken off); `None` for anything else (a
    /// command). Files are found from the working directory, and the program that runs them
    /// on `PATH`, now: a spec that cannot run is an error here.
    pub fn parse(name: &str, spec: &str) -> Result<Option<Adapter>, ReaderError> {
        let (language, body) = match spec.split_once(':') {
            Some(("js", body)) => (Language::JavaScript, body),
            Some(("py", body)) => (Language::Python, body),
            _ => return Ok(None),
        };
        if body.is_empty() {
            return Err(ReaderError::BadSpec {
                name: name.to_owned(),
                spec: spec.to_owned(),
                problem: "names no file".to_owned(),
            });
        }
        Ok(Some(match language {
            Language::JavaScript => node::adapter(name, body)?,
            Language::Python => python::adapter(name, spec, body)?,
        }))
    }

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
    fn specs_that_are_not_adapters_are_commands() {
        assert_eq!(Adapter::parse("mine", "node x.mjs"), Ok(None));
        assert_eq!(Adapter::parse("mine", "python3 -c 'print(1)'"), Ok(None));
        assert_eq!(Adapter::parse("mine", "rb:x.rb"), Ok(None));
    }

    #[test]
    fn bad_specs_name_the_reader_and_the_cause() {
        let e = Adapter::parse("mine", "js:").unwrap_err();
        assert_eq!(e.to_string(), "reader mine: js:: names no file");
        let e = Adapter::parse("mine", "js:no/such/file.mjs").unwrap_err();
        assert_eq!(e.to_string(), "reader mine: no/such/file.mjs: no such file");
        let e = Adapter::parse("mine", "py:no/such/file.py").unwrap_err();
        assert_eq!(e.to_string(), "reader mine: no/such/file.py: no such file");
    }
}

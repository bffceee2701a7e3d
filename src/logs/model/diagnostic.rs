//! What went wrong with an input, and where. Loading never stops at a problem: each one
//! becomes a [`Diagnostic`] and everything else still loads.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One problem with one input: the file, the line or byte offset, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub source: PathBuf,
    /// The 1-based line, for a problem with one record.
    pub line: Option<usize>,
    /// The byte offset in the file, where one is meaningful (a bad byte, a bad line).
    pub offset: Option<u64>,
    pub problem: Problem,
}

impl Diagnostic {
    pub fn new(source: impl Into<PathBuf>, problem: Problem) -> Diagnostic {
        Diagnostic { source: source.into(), line: None, offset: None, problem }
    }

    pub fn at_line(mut self, line: usize, offset: u64) -> Diagnostic {
        self.line = Some(line);
        self.offset = Some(offset);
        self
    }

    pub fn at_offset(mut self, offset: u64) -> Diagnostic {
        self.offset = Some(offset);
        self
    }

    /// What is wrong, in a sentence.
    pub fn message(&self) -> String {
        self.problem.to_string()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.offset) {
            (Some(line), _) => write!(f, "{}:{line}: {}", self.source.display(), self.problem),
            // The bad byte is in the message already.
            (None, Some(_)) if matches!(self.problem, Problem::InvalidUtf8 { .. }) => {
                write!(f, "{}: {}", self.source.display(), self.problem)
            }
            (None, Some(offset)) => write!(f, "{} (byte {offset}): {}", self.source.display(), self.problem),
            (None, None) => write!(f, "{}: {}", self.source.display(), self.problem),
        }
    }
}

/// What is wrong with an input. Written and read back (a shard's JSON) as `{kind, detail}`,
/// `kind` as [`Problem::kind`] names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "kebab-case")]
pub enum Problem {
    #[error("no such file or directory")]
    NotFound,
    #[error("vanished between listing and reading")]
    Vanished,
    #[error("permission denied")]
    PermissionDenied,
    #[error("symlink loop: {0}")]
    SymlinkLoop(String),
    #[error("broken symlink")]
    BrokenSymlink,
    #[error("not a regular file or directory; skipped")]
    NotAFile,
    #[error("empty file")]
    Empty,
    #[error("binary file ({0}); skipped")]
    Binary(String),
    #[error("invalid UTF-8 at byte {first}{more}; read with U+FFFD in place of the bad bytes", more = more_bad(*.count))]
    InvalidUtf8 { first: u64, count: usize },
    #[error("not JSON: {0}")]
    MalformedJson(String),
    #[error("a JSON record of an unknown shape ({what}); {}", advice(offer.as_ref()))]
    UnknownShape { what: String, offer: Option<Offer> },
    #[error("server-sent events of no stream known ({0}); not read")]
    UnknownStream(String),
    #[error("{0}")]
    BadRecord(String),
    #[error("a line of {len} bytes, over the {max}-byte limit; skipped")]
    LineTooLong { len: u64, max: usize },
    #[error("{len} bytes, over the {max}-byte limit for a file read whole; skipped")]
    TooLarge { len: u64, max: u64 },
    #[error("{count} more problems like these in this file, not listed one by one")]
    TooManyProblems { count: usize },
    #[error("{0}")]
    Io(String),
}

/// What a record of unknown shape holds that could be its reply: where the likeliest text
/// is (the `--text-path` to read it), or that nothing in it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Offer {
    /// The likeliest reply text: a JSON pointer to the string, and its length in characters.
    Text { pointer: String, chars: usize },
    /// No string in the record reads as a reply: its text is ids, type names, settings or
    /// what was asked (a token count, an eval's configuration saved without its results).
    Nothing,
}

/// What to do about a record of unknown shape: read its text by the pointer offered (or by
/// the one offered for the file before), or nothing, when there is no reply in it.
fn advice(offer: Option<&Offer>) -> String {
    match offer {
        Some(Offer::Text { pointer, chars }) => {
            format!("pass --text-path {pointer} ({} chars) to read it", thousands(*chars))
        }
        Some(Offer::Nothing) => "no reply in it, only ids, type names, settings or the prompt".to_owned(),
        None => "pass --text-path to read it".to_owned(),
    }
}

/// `6803` as `6,803`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

impl Problem {
    /// A record of an unknown shape, described.
    pub fn unknown_shape(what: String) -> Problem {
        Problem::UnknownShape { what, offer: None }
    }
}

fn more_bad(count: usize) -> String {
    match count {
        0 | 1 => String::new(),
        n => format!(" ({n} bad sequences in all)"),
    }
}

impl Problem {
    /// A short stable name for the kind of problem, for `--json` and for tests.
    pub fn kind(&self) -> &'static str {
        match self {
            Problem::NotFound => "not-found",
            Problem::Vanished => "vanished",
            Problem::PermissionDenied => "permission-denied",
            Problem::SymlinkLoop(_) => "symlink-loop",
            Problem::BrokenSymlink => "broken-symlink",
            Problem::NotAFile => "not-a-file",
            Problem::Empty => "empty",
            Problem::Binary(_) => "binary",
            Problem::InvalidUtf8 { .. } => "invalid-utf8",
            Problem::MalformedJson(_) => "malformed-json",
            Problem::UnknownShape { .. } => "unknown-shape",
            Problem::UnknownStream(_) => "unknown-stream",
            Problem::BadRecord(_) => "bad-record",
            Problem::LineTooLong { .. } => "line-too-long",
            Problem::TooLarge { .. } => "too-large",
            Problem::TooManyProblems { .. } => "too-many-problems",
            Problem::Io(_) => "io",
        }
    }

    /// The problem an I/O error is. `listed` says the path came from a directory listing,
    /// so its absence now means it vanished rather than that it never existed.
    pub fn from_io(e: &io::Error, listed: bool) -> Problem {
        if is_symlink_loop(e) {
            return Problem::SymlinkLoop("too many levels of symbolic links".to_owned());
        }
        match e.kind() {
            io::ErrorKind::NotFound if listed => Problem::Vanished,
            io::ErrorKind::NotFound => Problem::NotFound,
            io::ErrorKind::PermissionDenied => Problem::PermissionDenied,
            _ => Problem::Io(e.to_string()),
        }
    }
}

/// `ELOOP`. The error kind for it is not stable in std yet, so the raw number decides,
/// with the kind's debug name as a fallback on platforms not listed.
fn is_symlink_loop(e: &io::Error) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const ELOOP: i32 = 40;
    #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd", target_os = "openbsd"))]
    const ELOOP: i32 = 62;
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "openbsd"
    )))]
    const ELOOP: i32 = -1;
    e.raw_os_error() == Some(ELOOP) || format!("{:?}", e.kind()) == "FilesystemLoop"
}

pub(crate) fn io_diagnostic(path: &Path, e: &io::Error, listed: bool) -> Diagnostic {
    Diagnostic::new(path, Problem::from_io(e, listed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_become_the_problem_a_person_would_name() {
        let denied = io::Error::from(io::ErrorKind::PermissionDenied);
        assert_eq!(Problem::from_io(&denied, true), Problem::PermissionDenied);
        let gone = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(Problem::from_io(&gone, true), Problem::Vanished);
        assert_eq!(Problem::from_io(&gone, false), Problem::NotFound);
        #[cfg(target_os = "linux")]
        assert_eq!(Problem::from_io(&io::Error::from_raw_os_error(40), false).kind(), "symlink-loop");
    }

    #[test]
    fn a_problem_is_written_by_its_kind_and_read_back_as_it_was() {
        let offer = Some(Offer::Text { pointer: "/a/b".into(), chars: 6803 });
        for problem in [
            Problem::NotFound,
            Problem::Vanished,
            Problem::PermissionDenied,
            Problem::SymlinkLoop("loop".into()),
            Problem::BrokenSymlink,
            Problem::NotAFile,
            Problem::Empty,
            Problem::Binary("NUL bytes".into()),
            Problem::InvalidUtf8 { first: 3, count: 2 },
            Problem::MalformedJson("EOF".into()),
            Problem::UnknownShape { what: "an object".into(), offer },
            Problem::UnknownShape { what: "an object".into(), offer: Some(Offer::Nothing) },
            Problem::UnknownStream("x".into()),
            Problem::BadRecord("why".into()),
            Problem::LineTooLong { len: 9, max: 8 },
            Problem::TooLarge { len: 9, max: 8 },
            Problem::TooManyProblems { count: 4 },
            Problem::Io("disk".into()),
        ] {
            let written = serde_json::to_value(&problem).unwrap();
            assert_eq!(written["kind"], problem.kind(), "{written}");
            assert_eq!(serde_json::from_value::<Problem>(written).unwrap(), problem);
        }
    }

    #[test]
    fn a_diagnostic_names_the_file_and_the_line() {
        let d = Diagnostic::new("a/log.jsonl", Problem::MalformedJson("EOF while parsing".into())).at_line(7, 120);
        assert_eq!(d.to_string(), "a/log.jsonl:7: not JSON: EOF while parsing");
        let d = Diagnostic::new("r.txt", Problem::InvalidUtf8 { first: 12, count: 3 });
        assert_eq!(
            d.to_string(),
            "r.txt: invalid UTF-8 at byte 12 (3 bad sequences in all); read with U+FFFD in place of the bad bytes"
        );
    }
}

//! A reply named on the command line: `PATH` or `PATH:LINE`.

use std::path::{Path, PathBuf};

use crate::logs::bytes::json::decode;
use crate::logs::discover::unreadable;
use crate::logs::loader::Loader;
use crate::logs::model::diagnostic::{Diagnostic, Problem};
use crate::logs::model::options::LoadOptions;
use crate::logs::model::reply::{Item, Reply};

/// Why a reference names no reply.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    #[error("{0}: no such file or directory")]
    NotFound(String),
    #[error("{0}: a directory; `bracewalk list` shows the replies in it")]
    Directory(PathBuf),
    #[error("{path}:{line}: no reply on that line{hint}")]
    NoReplyAt { path: PathBuf, line: usize, hint: String },
    #[error("{path} holds {count} replies; name one as PATH:LINE, e.g. {examples}")]
    Ambiguous { path: PathBuf, count: usize, examples: String },
    #[error("{0}: no replies in it, only calls that left none")]
    NoReplies(PathBuf),
    #[error("{0}")]
    Unreadable(Diagnostic),
}

/// A reply found by reference, and what was wrong with reading it (a lossy decode).
#[derive(Debug)]
pub struct Resolved {
    pub reply: Reply,
    pub diagnostics: Vec<Diagnostic>,
}

/// Splits `PATH:LINE`; a path that exists as written is a path, colon or not.
pub fn parse_reference(reference: &str) -> Option<(PathBuf, Option<usize>)> {
    if Path::new(reference).exists() {
        return Some((PathBuf::from(reference), None));
    }
    let (path, line) = reference.rsplit_once(':')?;
    let line = line.parse().ok().filter(|_| line.bytes().all(|b| b.is_ascii_digit()))?;
    Path::new(path).exists().then(|| (PathBuf::from(path), Some(line)))
}

/// The reply `reference` names. A file that is one reply is that reply; a record file
/// must hold exactly one, or be named with its line. A file that holds no records of a
/// known shape is read as one reply, as it is.
pub fn resolve(reference: &str, opts: &LoadOptions) -> Result<Resolved, ReferenceError> {
    let (path, line) = parse_reference(reference).ok_or_else(|| not_there(reference))?;
    if path.is_dir() {
        return Err(ReferenceError::Directory(path));
    }
    let loader = Loader::new(opts.clone());
    // What `list` would not read at all (binary, empty, …) is no reply here either.
    if let Some(d) = loader.unread(&path) {
        return Err(ReferenceError::Unreadable(d));
    }
    if line.is_none() && is_plain_text(&path) {
        return whole_file(&path);
    }
    let mut found: Option<Reply> = None;
    let mut count = 0usize;
    let mut examples = Vec::new();
    let mut nearest: Vec<usize> = Vec::new();
    let mut events_at_line = None;
    let mut diagnostics = Vec::new();
    let mut anything = false;
    loader.load_file(&path, &mut |item| match item {
        Item::Reply(r) => {
            anything = true;
            match line {
                Some(n) if r.line == Some(n) => {
                    if found.is_none() {
                        found = Some(r);
                    }
                }
                Some(n) => {
                    if let Some(l) = r.line {
                        nearest.push(l);
                        nearest.sort_by_key(|&x| x.abs_diff(n));
                        nearest.truncate(3);
                    }
                }
                None => {
                    count += 1;
                    if examples.len() < 3 {
                        examples.push(r.reference());
                    }
                    if found.is_none() {
                        found = Some(r);
                    }
                }
            }
        }
        Item::Event(e) => {
            anything = true;
            if line.is_some() && e.line == line {
                events_at_line = Some(format!(": it is a {} ({})", e.kind.name(), e.message));
            }
        }
        Item::Diagnostic(d) => {
            if d.line.is_none() || d.line == line {
                diagnostics.push(d);
            }
        }
    });
    match (line, found) {
        (Some(_), Some(reply)) => Ok(Resolved { reply, diagnostics }),
        (Some(n), None) => {
            // What was on the line, when it was not a reply: an event, or what is wrong with it.
            let problem = diagnostics.iter().find(|d| d.line == Some(n)).map(|d| format!(": {}", d.message()));
            let hint = events_at_line.or(problem).unwrap_or_else(|| {
                if nearest.is_empty() {
                    String::new()
                } else {
                    let lines: Vec<String> = nearest.iter().map(usize::to_string).collect();
                    format!("; replies are on lines {} nearby", lines.join(", "))
                }
            });
            Err(ReferenceError::NoReplyAt { path, line: n, hint })
        }
        (None, Some(_)) if count > 1 => Err(ReferenceError::Ambiguous { path, count, examples: examples.join(", ") }),
        (None, Some(reply)) => Ok(Resolved { reply, diagnostics }),
        (None, None) if anything => Err(ReferenceError::NoReplies(path)),
        (None, None) => whole_file(&path),
    }
}

/// A file that is surely one reply as it stands: nothing in it could be a record format.
fn is_plain_text(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    !head[..n].iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|&b| b == b'{' || b == b'[')
}

/// Why `reference` names nothing: the path as written, or as `PATH:LINE`, that exists but
/// cannot be reached (a directory on the way denies it) says so; otherwise it is not there.
fn not_there(reference: &str) -> ReferenceError {
    let as_line = reference
        .rsplit_once(':')
        .filter(|(_, line)| !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
        .map(|(path, _)| path);
    std::iter::once(reference)
        .chain(as_line)
        .flat_map(|p| unreadable(&[PathBuf::from(p)]))
        .find(|d| d.problem != Problem::NotFound)
        .map_or_else(|| ReferenceError::NotFound(reference.to_owned()), ReferenceError::Unreadable)
}

/// The file as one reply, exactly as it is (lossily decoded if it must be).
fn whole_file(path: &Path) -> Result<Resolved, ReferenceError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ReferenceError::Unreadable(crate::logs::model::diagnostic::io_diagnostic(path, &e, false)))?;
    let (text, bad) = decode(bytes);
    let diagnostics = bad
        .map(|(first, count)| {
            Diagnostic::new(path, crate::logs::model::diagnostic::Problem::InvalidUtf8 { first, count })
                .at_offset(first)
        })
        .into_iter()
        .collect();
    Ok(Resolved { reply: Reply::text_file(path, text), diagnostics })
}

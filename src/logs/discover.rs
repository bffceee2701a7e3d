//! Which files a list of paths means: files as given, directories walked in path order.
//!
//! The walk keeps an explicit stack (no recursion, so depth is not the input's to choose),
//! reads one directory at a time and sorts its names, so memory is the directories on the
//! current path and a 100,000-file directory costs one sorted list of names. Hidden
//! entries and `README` files are passed over (a campaign's notes are not replies); a
//! symlink is followed unless it leads back to a directory already being walked.

use std::ffi::OsString;
use std::fs::{self, FileType};
use std::path::{Path, PathBuf};

use crate::logs::model::diagnostic::{Diagnostic, Problem, io_diagnostic};

/// What the walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    File(PathBuf),
    Problem(Diagnostic),
}

/// A directory's identity, to notice a symlink that leads back into the walk.
#[cfg(unix)]
type DirId = (u64, u64);
#[cfg(not(unix))]
type DirId = PathBuf;

#[cfg(unix)]
fn dir_id(path: &Path) -> Option<DirId> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn dir_id(path: &Path) -> Option<DirId> {
    fs::canonicalize(path).ok()
}

struct Frame {
    dir: PathBuf,
    id: Option<DirId>,
    entries: std::vec::IntoIter<(OsString, FileType)>,
}

/// Whether the walk passes over an entry of this name.
pub fn is_passed_over(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    if name.starts_with('.') {
        return true;
    }
    let stem = name.split('.').next().unwrap_or("");
    stem.eq_ignore_ascii_case("readme")
}

/// Pushes every file `paths` mean, in order: the paths as given, each directory's files
/// sorted by name in natural order (`round-2` before `round-10`), depth first.
pub fn discover(paths: &[PathBuf], found: &mut dyn FnMut(Found)) {
    for path in paths {
        match fs::metadata(path) {
            Ok(m) if m.is_dir() => walk(path, found),
            Ok(m) if m.is_file() => found(Found::File(path.clone())),
            Ok(_) => found(Found::Problem(Diagnostic::new(path, Problem::NotAFile))),
            Err(e) => found(Found::Problem(link_problem(path, &e, false))),
        }
    }
}

/// Why each of `paths`, as given, cannot be read: it does not exist, cannot be reached
/// (a directory on the way, or the path itself, denies it), cannot be opened or listed, or is
/// neither a file nor a directory. A command stops at such a path before reading anything, so
/// a wrong path is an error, not an empty corpus; what a walk finds under a path that can be
/// read is a diagnostic among the rest, as [`discover`] reports it.
pub fn unreadable(paths: &[PathBuf]) -> Vec<Diagnostic> {
    paths
        .iter()
        .filter_map(|path| {
            let opened = match fs::metadata(path) {
                Ok(m) if m.is_dir() => fs::read_dir(path).map(drop),
                Ok(m) if m.is_file() => fs::File::open(path).map(drop),
                Ok(_) => return Some(Diagnostic::new(path, Problem::NotAFile)),
                Err(e) => return Some(link_problem(path, &e, false)),
            };
            opened.err().map(|e| io_diagnostic(path, &e, false))
        })
        .collect()
}

/// Why a path (perhaps a symlink) could not be followed.
fn link_problem(path: &Path, e: &std::io::Error, listed: bool) -> Diagnostic {
    let d = io_diagnostic(path, e, listed);
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match d.problem {
        Problem::NotFound | Problem::Vanished if is_link => Diagnostic::new(path, Problem::BrokenSymlink),
        _ => d,
    }
}

fn open(dir: &Path, found: &mut dyn FnMut(Found)) -> Option<Frame> {
    let read = match fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            found(Found::Problem(io_diagnostic(dir, &e, true)));
            return None;
        }
    };
    let mut entries = Vec::new();
    for entry in read {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                found(Found::Problem(io_diagnostic(dir, &e, true)));
                continue;
            }
        };
        let name = entry.file_name();
        if is_passed_over(&name) {
            continue;
        }
        match entry.file_type() {
            Ok(t) => entries.push((name, t)),
            Err(e) => found(Found::Problem(io_diagnostic(&entry.path(), &e, true))),
        }
    }
    entries.sort_unstable_by(|a, b| crate::natural::cmp_os(&a.0, &b.0));
    Some(Frame { dir: dir.to_path_buf(), id: dir_id(dir), entries: entries.into_iter() })
}

fn walk(root: &Path, found: &mut dyn FnMut(Found)) {
    let mut stack: Vec<Frame> = open(root, found).into_iter().collect();
    while let Some(frame) = stack.last_mut() {
        let Some((name, kind)) = frame.entries.next() else {
            stack.pop();
            continue;
        };
        let path = frame.dir.join(&name);
        let (is_dir, is_file) = if kind.is_symlink() {
            match fs::metadata(&path) {
                Ok(m) => (m.is_dir(), m.is_file()),
                Err(e) => {
                    found(Found::Problem(link_problem(&path, &e, true)));
                    continue;
                }
            }
        } else {
            (kind.is_dir(), kind.is_file())
        };
        if is_dir {
            let id = dir_id(&path);
            if let Some(ancestor) = stack.iter().find(|f| id.is_some() && f.id == id) {
                let why = format!("leads back to {}, already being read", ancestor.dir.display());
                found(Found::Problem(Diagnostic::new(&path, Problem::SymlinkLoop(why))));
                continue;
            }
            if let Some(frame) = open(&path, found) {
                stack.push(frame);
            }
        } else if is_file {
            found(Found::File(path));
        } else {
            found(Found::Problem(Diagnostic::new(&path, Problem::NotAFile)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_given_that_cannot_be_read_is_named_with_why() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("reply.txt");
        fs::write(&file, "{}").unwrap();
        let missing = dir.path().join("nope");
        let given = [dir.path().to_path_buf(), file, missing.clone()];
        let bad = unreadable(&given);
        assert_eq!(bad, [Diagnostic::new(&missing, Problem::NotFound)]);
        assert_eq!(bad[0].to_string(), format!("{}: no such file or directory", missing.display()));
        #[cfg(unix)]
        {
            let link = dir.path().join("dangling");
            std::os::unix::fs::symlink("nowhere", &link).unwrap();
            assert_eq!(unreadable(std::slice::from_ref(&link)), [Diagnostic::new(&link, Problem::BrokenSymlink)]);
            assert_eq!(unreadable(&[PathBuf::from("/dev/null")]), [Diagnostic::new("/dev/null", Problem::NotAFile)]);
        }
    }
}

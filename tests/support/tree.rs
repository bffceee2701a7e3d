//! Copies of directory trees, for tests that must not touch `sample-logs/` or that change
//! what they read.
//!
//! A symbolic link is copied as a link to the same target, neither followed nor left out.
//! `sample-logs/bad/` holds a dangling link, a link to itself and a link to its own
//! directory: following them fails on the first two and never ends on the third, and leaving
//! them out makes the copy a tree other than the one a user opens, with fewer diagnostics and
//! nothing to show that a command does not write through a link. Their targets are relative,
//! so in the copy they point where they did.

use std::fs;
use std::path::{Path, PathBuf};

/// Copies the tree at `from` to `to` (created), links as links.
pub fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let (path, dest) = (entry.path(), to.join(entry.file_name()));
        // `DirEntry::file_type` does not follow a link.
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            link(&fs::read_link(&path).unwrap(), &dest);
        } else if kind.is_dir() {
            copy(&path, &dest);
        } else {
            fs::copy(&path, &dest).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) {
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// Where links cannot be made without privileges, the copy goes without them.
#[cfg(not(unix))]
fn link(_: &Path, _: &Path) {}

/// `sample-logs/` in the project.
pub fn samples() -> PathBuf {
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    assert!(samples.is_dir(), "sample-logs/ is missing");
    samples
}

/// A copy of `sample-logs/` at `to`.
pub fn copy_samples(to: &Path) {
    copy(&samples(), to);
}

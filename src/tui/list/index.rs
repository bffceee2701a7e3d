//! Where each file's entries are, so that a change naming a file (a line's metadata
//! amended, the file restarted, removed, or back after a removal) finds what it touches
//! without looking at every entry: during a flood of replies that look was made once per
//! entry, and the cost grew with the square of the list.
//!
//! Entries are named by key, never by position: positions move when entries leave. A key
//! that left is found no more in the state's `by_key`, and lists here may keep such keys
//! for a while (taking one out of a long list would cost as much as the look it replaces);
//! each file's list is tidied once as many have left as remain.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::path::{Path, PathBuf};

use super::super::entry::{Entry, EntryKey};

/// Every file's entries, by path. Ordered, so that the files under a directory (a path's
/// descendants, compared component by component) are one range.
#[derive(Debug, Default)]
pub struct FileIndex {
    files: BTreeMap<PathBuf, FileEntries>,
}

#[derive(Debug, Default)]
struct FileEntries {
    /// Keys in arrival order, some perhaps left.
    keys: Vec<EntryKey>,
    /// How many of `keys` have left.
    left: usize,
    /// Keys by line, in arrival order; only live keys.
    lines: HashMap<usize, Vec<EntryKey>>,
    /// The gone entries' keys by id, in arrival order, for the file's coming back.
    gone: HashMap<String, Vec<EntryKey>>,
}

impl FileIndex {
    /// Notes `e`, just arrived.
    pub fn add(&mut self, e: &Entry) {
        let file = match self.files.get_mut(e.source.as_path()) {
            Some(f) => f,
            None => self.files.entry(e.source.clone()).or_default(),
        };
        file.keys.push(e.key);
        if let Some(line) = e.line {
            file.lines.entry(line).or_default().push(e.key);
        }
    }

    /// The first entry to arrive of those at `source:line` (as a scan in arrival order
    /// finds it).
    pub fn at_line(&self, source: &Path, line: usize) -> Option<EntryKey> {
        self.files.get(source)?.lines.get(&line)?.first().copied()
    }

    /// Notes that `e` is gone (its file was deleted), so that the file's coming back
    /// replaces it.
    pub fn note_gone(&mut self, e: &Entry) {
        if let Some(file) = self.files.get_mut(e.source.as_path()) {
            file.gone.entry(e.id.clone()).or_default().push(e.key);
        }
    }

    /// The first gone entry of `source` with `id`, now forgotten here: the caller takes it
    /// out of the list ([`forget`](Self::forget) is for the rest of its traces).
    pub fn take_gone(&mut self, source: &Path, id: &str) -> Option<EntryKey> {
        let file = self.files.get_mut(source)?;
        let keys = file.gone.get_mut(id)?;
        let key = (!keys.is_empty()).then(|| keys.remove(0));
        if keys.is_empty() {
            file.gone.remove(id);
        }
        key
    }

    /// Forgets `e`, which leaves the list (what [`take_gone`](Self::take_gone) left of it).
    /// `live` says whether a key is still listed.
    pub fn forget(&mut self, e: &Entry, live: impl Fn(EntryKey) -> bool) {
        let Some(file) = self.files.get_mut(e.source.as_path()) else { return };
        if let Some(line) = e.line
            && let Some(keys) = file.lines.get_mut(&line)
        {
            keys.retain(|&k| k != e.key);
            if keys.is_empty() {
                file.lines.remove(&line);
            }
        }
        file.left += 1;
        if file.left * 2 >= file.keys.len() {
            file.keys.retain(|&k| k != e.key && live(k));
            file.left = 0;
        }
    }

    /// Forgets the file at `source` and returns its entries' keys, some perhaps left.
    pub fn take_file(&mut self, source: &Path) -> Vec<EntryKey> {
        self.files.remove(source).map(|f| f.keys).unwrap_or_default()
    }

    /// The keys of the entries of every file at or under `path`, some perhaps left.
    pub fn under<'a>(&'a self, path: &'a Path) -> impl Iterator<Item = EntryKey> + 'a {
        self.files
            .range::<Path, _>((Bound::Included(path), Bound::Unbounded))
            .take_while(move |(p, _)| p.starts_with(path))
            .flat_map(|(_, f)| f.keys.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(index: &FileIndex, under: &str) -> Vec<PathBuf> {
        let p = Path::new(under);
        index
            .files
            .range::<Path, _>((Bound::Included(p), Bound::Unbounded))
            .take_while(|(f, _)| f.starts_with(p))
            .map(|(f, _)| f.clone())
            .collect()
    }

    #[test]
    fn the_files_under_a_directory_are_one_range() {
        let mut index = FileIndex::default();
        for p in ["logs/run/a", "logs/run-2/x", "logs/run.txt", "logs/run/b/c", "logs/ru", "logs/run", "logs/runt/a"] {
            index.files.insert(PathBuf::from(p), FileEntries::default());
        }
        assert_eq!(paths(&index, "logs/run"), ["logs/run", "logs/run/a", "logs/run/b/c"].map(PathBuf::from));
        assert_eq!(paths(&index, "logs/run/"), ["logs/run", "logs/run/a", "logs/run/b/c"].map(PathBuf::from));
        assert_eq!(paths(&index, "logs/run/b"), ["logs/run/b/c"].map(PathBuf::from));
        assert_eq!(paths(&index, "logs/run.txt"), ["logs/run.txt"].map(PathBuf::from));
        assert_eq!(paths(&index, "logs").len(), 7);
    }
}

//! Where each file's entries are, so that a change naming a file (a line's metadata
//! amended, the file restarted, removed or renamed) finds what it touches
//! without looking at every entry: during a flood of replies that look was made once per
//! entry, and the cost grew with the square of the list.
//!
//! Entries are named by key, never by position: positions move when entries leave. They
//! leave a file at a time (it restarted or went), so a file's list here is taken whole.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::tui::entry::{Entry, EntryKey};

/// Every file's entries, by path.
#[derive(Debug, Default)]
pub struct FileIndex {
    files: HashMap<Arc<Path>, FileEntries>,
}

#[derive(Debug, Default)]
struct FileEntries {
    /// Keys in arrival order.
    keys: Vec<EntryKey>,
    /// The first key to arrive at each line.
    lines: HashMap<usize, EntryKey>,
    /// The keys that arrived after it, where there are any (a line of several calls): a
    /// vector each for the few lines that need one, not for every line.
    more: HashMap<usize, Vec<EntryKey>>,
}

impl FileEntries {
    fn push(&mut self, line: usize, key: EntryKey) {
        match self.lines.entry(line) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(key);
            }
            std::collections::hash_map::Entry::Occupied(_) => self.more.entry(line).or_default().push(key),
        }
    }
}

impl FileIndex {
    /// Notes `e`, just arrived.
    pub fn add(&mut self, e: &Entry) {
        let file = match self.files.get_mut(&*e.source) {
            Some(f) => f,
            None => self.files.entry(e.source.clone()).or_default(),
        };
        file.keys.push(e.key);
        if let Some(line) = e.line {
            file.push(line, e.key);
        }
    }

    /// The first entry to arrive of those at `source:line` (as a scan in arrival order
    /// finds it).
    pub fn at_line(&self, source: &Path, line: usize) -> Option<EntryKey> {
        self.files.get(source)?.lines.get(&line).copied()
    }

    /// Forgets the file at `source` and returns its entries' keys.
    pub fn take_file(&mut self, source: &Path) -> Vec<EntryKey> {
        self.files.remove(source).map(|f| f.keys).unwrap_or_default()
    }

    /// The keys of the entries of the file at `source`.
    pub fn keys(&self, source: &Path) -> &[EntryKey] {
        self.files.get(source).map_or(&[], |f| &f.keys)
    }

    /// Files renamed, all at once (a chain or a swap): each one's entries, under the keys
    /// `rekey` gives them (none: not listed), are the entries of the file at its new path.
    pub fn moved(&mut self, moves: &[(PathBuf, PathBuf)], rekey: impl Fn(EntryKey) -> Option<EntryKey>) {
        let taken: Vec<(&PathBuf, FileEntries)> =
            moves.iter().filter_map(|(from, to)| self.files.remove(from.as_path()).map(|f| (to, f))).collect();
        for (to, mut f) in taken {
            let file = self.files.entry(Arc::from(to.as_path())).or_default();
            file.keys.extend(f.keys.iter().filter_map(|&k| rekey(k)));
            for (line, first) in f.lines {
                let rest = f.more.remove(&line).unwrap_or_default();
                for key in std::iter::once(first).chain(rest).filter_map(&rekey) {
                    file.push(line, key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_renamed_in_a_chain_take_their_entries_along() {
        let mut index = FileIndex::default();
        for (path, keys) in [("log.1", [1, 2]), ("log", [3, 4])] {
            let file = index.files.entry(Arc::from(Path::new(path))).or_default();
            file.keys.extend(keys);
            for k in keys {
                file.push(k as usize, k);
            }
            // A second call on the line of key 3, arrived after it.
            file.push(3, 30);
        }
        // `log.1` to `log.2` as `log` to `log.1`; key 2 is not listed.
        let moves = [("log.1", "log.2"), ("log", "log.1")].map(|(a, b)| (PathBuf::from(a), PathBuf::from(b)));
        index.moved(&moves, |k| (k != 2).then_some(k + 100));
        assert_eq!(index.keys(Path::new("log.2")), [101]);
        assert_eq!(index.keys(Path::new("log.1")), [103, 104]);
        assert!(index.keys(Path::new("log")).is_empty());
        assert_eq!(index.at_line(Path::new("log.1"), 4), Some(104));
        assert_eq!(index.at_line(Path::new("log.2"), 2), None);
        assert_eq!(index.at_line(Path::new("log.1"), 3), Some(103), "the first to arrive at the line");
    }
}

//! Where a loaded reply is, so that its text can be read again when it is wanted rather
//! than held: a front end over a 1 GB campaign keeps a locator per reply and reads texts on
//! demand, as lnav keeps an index of lines.
//!
//! Reading again goes through the loader itself, so the text is exactly what loading gave:
//! for a line-oriented file, the one line the record is on (its byte offset is known), read
//! and converted as loading read it; for a file read whole (a reply of its own, a document, a
//! stream, an archive), the whole file, and the reply with the same id taken from it.

use std::path::{Path, PathBuf};

use super::diagnostic::Problem;
use super::loader::{FileOut, Loader, Start};
use super::reply::{Item, Reply};

/// Where a reply was loaded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    pub source: PathBuf,
    /// The reply's id, unique within what its file holds.
    pub id: String,
    /// The 1-based line its record is on, in a line-oriented file.
    pub line: Option<usize>,
    /// The byte offset of that line (of the record, in a file read whole).
    pub offset: u64,
}

impl Locator {
    pub fn of(reply: &Reply) -> Locator {
        Locator { source: reply.source.clone(), id: reply.id.clone(), line: reply.line, offset: reply.offset }
    }
}

impl Loader {
    /// The text of the reply `at` names, read again from its file. `Err` says why it is not
    /// there any more: the file is gone or unreadable, or holds no such reply now.
    pub fn reread(&self, at: &Locator) -> Result<String, Problem> {
        self.reread_all(std::slice::from_ref(at)).pop().unwrap_or(Err(Problem::Vanished))
    }

    /// [`Loader::reread`] of replies that are all in one file, in the order given: the file
    /// is opened and looked at once, and each line read where it is (a whole file is read
    /// once for all its replies).
    pub fn reread_all(&self, all: &[Locator]) -> Vec<Result<String, Problem>> {
        let Some(first) = all.first() else { return Vec::new() };
        let path: &Path = &first.source;
        let mut texts: Vec<Option<String>> = vec![None; all.len()];
        let mut problem: Option<Problem> = None;
        // Which locator a reply read is: by its id, among those asked for at its line.
        let mut wanted = |r: Reply, at: Option<usize>| {
            let slot = (0..all.len()).find(|&i| texts[i].is_none() && all[i].id == r.id && at.is_none_or(|a| a == i));
            if let Some(i) = slot {
                texts[i] = Some(r.text);
            }
        };
        let mut current = None;
        let mut take = |out: FileOut, current: Option<usize>| match out {
            FileOut::Item(Item::Reply(r)) => wanted(r, current),
            FileOut::Item(Item::Diagnostic(d)) if problem.is_none() => problem = Some(d.problem),
            _ => {}
        };
        let started = self.start(path, false, &mut |out| take(out, current));
        if let Start::Jsonl(file, mut state) = started {
            let lines: Vec<usize> = (0..all.len()).filter(|&i| all[i].line.is_some()).collect();
            if lines.len() < all.len() {
                state.read(self, path, &file, &mut |out| take(out, None));
            }
            for i in lines {
                let at = &all[i];
                state.one_line(at.offset, at.line.unwrap_or(1));
                current = Some(i);
                state.read(self, path, &file, &mut |out| take(out, current));
            }
        }
        texts.into_iter().map(|t| t.ok_or_else(|| problem.clone().unwrap_or(Problem::Vanished))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runlog::{LoadOptions, load};

    /// Every reply of `dir`, read again by its locator, is the text loading gave.
    fn reread_all(dir: &Path) -> usize {
        let mut replies = Vec::new();
        load(&[dir.to_path_buf()], &LoadOptions::default(), &mut |item| {
            if let Item::Reply(r) = item {
                replies.push(r);
            }
        });
        let loader = Loader::new(LoadOptions::default());
        for r in &replies {
            assert_eq!(loader.reread(&Locator::of(r)).as_deref(), Ok(r.text.as_str()), "{}", r.id);
        }
        // A file's replies together, the last first.
        let mut by_file: std::collections::BTreeMap<&Path, Vec<&Reply>> = Default::default();
        for r in &replies {
            by_file.entry(&r.source).or_default().push(r);
        }
        for (_, mut rs) in by_file {
            rs.reverse();
            let at: Vec<Locator> = rs.iter().map(|r| Locator::of(r)).collect();
            let texts: Vec<String> = loader.reread_all(&at).into_iter().map(Result::unwrap).collect();
            assert_eq!(texts, rs.iter().map(|r| r.text.clone()).collect::<Vec<_>>());
        }
        replies.len()
    }

    #[test]
    fn every_sample_reads_again_as_it_loaded() {
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
        assert!(reread_all(&samples) > 100);
    }

    #[test]
    fn a_reply_no_longer_there_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("replies.jsonl");
        std::fs::write(&path, "{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"b\",\"text\":\"two\"}\n").unwrap();
        let loader = Loader::new(LoadOptions::default());
        let b = Locator { source: path.clone(), id: "b".to_owned(), line: Some(2), offset: 24 };
        assert_eq!(loader.reread(&b).as_deref(), Ok("two"));
        // The line is another record now.
        std::fs::write(&path, "{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"c\",\"text\":\"new\"}\n").unwrap();
        assert_eq!(loader.reread(&b), Err(Problem::Vanished));
        std::fs::remove_file(&path).unwrap();
        assert!(loader.reread(&b).is_err());
    }
}

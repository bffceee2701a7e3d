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
        let mut found = None;
        let mut problem = None;
        let mut take = |out: FileOut| match out {
            FileOut::Item(Item::Reply(r)) if r.id == at.id && found.is_none() => found = Some(r.text),
            FileOut::Item(Item::Diagnostic(d)) if problem.is_none() && d.line.is_none_or(|l| Some(l) == at.line) => {
                problem = Some(d.problem);
            }
            _ => {}
        };
        let path: &Path = &at.source;
        if let Start::Jsonl(file, mut state) = self.start(path, false, &mut take) {
            if let Some(line) = at.line {
                state.one_line(at.offset, line);
            }
            state.read(self, path, &file, &mut take);
        }
        found.ok_or_else(|| problem.unwrap_or(Problem::Vanished))
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

//! Where a loaded reply is, so that its text can be read again when it is wanted rather
//! than held: a front end over a 1 GB campaign keeps a locator per reply and reads texts on
//! demand, as lnav keeps an index of lines.
//!
//! Reading again goes through the loader itself, so the text is exactly what loading gave:
//! for a line-oriented file, the one line the record is on (its byte offset is known), read
//! and converted as loading read it; for a file read whole (a reply of its own, a document, a
//! stream, an archive), the whole file, and the reply with the same id taken from it. A line
//! file rewritten since (its lines moved) is read whole, once, for the replies not found
//! where they were.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use crate::logs::bytes::skim;
use crate::logs::loader::{Loader, Start};
use crate::logs::model::diagnostic::Problem;
use crate::logs::model::names::Name;
use crate::logs::model::reply::{FileOut, Item, Listed, Reply};
use crate::logs::model::written::Written;

/// Where a reply was loaded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    /// Shared, where its maker has one copy (an inspector's entry).
    pub source: Arc<Path>,
    /// The reply's id, unique within what its file holds.
    pub id: Name,
    /// The 1-based line its record is on, in a line-oriented file.
    pub line: Option<usize>,
    /// The byte offset of that line (of the record, in a file read whole).
    pub offset: u64,
    /// Where its text is written, as a listing found it: read again by that string alone.
    pub written: Option<Written>,
}

impl Locator {
    /// Where a reply a listing kept is.
    pub fn listed(l: &Listed) -> Locator {
        Locator {
            source: l.source.as_path().into(),
            id: l.id.as_str().into(),
            line: l.line,
            offset: l.offset,
            written: l.written,
        }
    }

    pub fn of(reply: &Reply) -> Locator {
        Locator {
            source: reply.source.as_path().into(),
            id: reply.id.as_str().into(),
            line: reply.line,
            offset: reply.offset,
            written: None,
        }
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
        let mut found = Found { all, texts: vec![None; all.len()], problem: None };
        // The texts a listing found written as they are, read by their strings alone.
        if all.iter().any(|at| at.written.is_some())
            && let Ok(mut file) = File::open(path)
        {
            let mut buf = Vec::new();
            for (slot, at) in found.texts.iter_mut().zip(all) {
                *slot = at.written.and_then(|w| {
                    w.read_written(&mut file, &mut buf)?;
                    skim::string(&buf, w.len).filter(|text| w.is(text))
                });
            }
            if found.texts.iter().all(Option::is_some) {
                return found.texts.into_iter().map(|t| t.ok_or(Problem::Vanished)).collect();
            }
        }
        let started = self.start(path, false, &mut |out| found.take(out, None));
        if let Start::Jsonl(file, mut state) = started {
            let wanted: Vec<usize> = (0..all.len()).filter(|&i| found.texts[i].is_none()).collect();
            let lines: Vec<usize> = wanted.iter().copied().filter(|&i| all[i].line.is_some()).collect();
            if lines.len() < wanted.len() {
                state.read(self, path, &file, &mut |out| found.take(out, None));
            }
            for i in lines {
                let at = &all[i];
                state.one_line(at.offset, at.line.unwrap_or(1));
                state.read(self, path, &file, &mut |out| found.take(out, Some(i)));
            }
            // A file rewritten since it was listed: its lines moved, and a reply not at its
            // offset any more is looked for by its id through the whole file, once. What the
            // reads at the old offsets met is not the problem then.
            if found.missing_lines() {
                found.problem = None;
                if let Start::Jsonl(file, mut state) = self.start(path, false, &mut |out| found.take(out, None)) {
                    state.read(self, path, &file, &mut |out| found.take(out, None));
                }
            }
        }
        let Found { texts, problem, .. } = found;
        texts.into_iter().map(|t| t.ok_or_else(|| problem.clone().unwrap_or(Problem::Vanished))).collect()
    }
}

/// The texts of a [`Loader::reread_all`] found so far.
struct Found<'a> {
    all: &'a [Locator],
    texts: Vec<Option<String>>,
    /// The first problem the file's reading met.
    problem: Option<Problem>,
}

impl Found<'_> {
    /// Takes what reading gave: a reply is the locator with its id not yet found (at line
    /// `at`, when one line alone is read).
    fn take(&mut self, out: FileOut, at: Option<usize>) {
        match out {
            FileOut::Item(Item::Reply(r)) => {
                let slot = (0..self.all.len())
                    .find(|&i| self.texts[i].is_none() && *self.all[i].id == *r.id && at.is_none_or(|a| a == i));
                if let Some(i) = slot {
                    self.texts[i] = Some(r.text);
                }
            }
            FileOut::Item(Item::Diagnostic(d)) if self.problem.is_none() => self.problem = Some(d.problem),
            _ => {}
        }
    }

    fn missing_lines(&self) -> bool {
        (0..self.all.len()).any(|i| self.texts[i].is_none() && self.all[i].line.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::{LoadOptions, load};

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

    /// A file of lines whose texts a listing measures, and those it leaves to loading.
    fn lines_of_long_texts() -> String {
        let text = |i: usize| format!(r#"<p class=\"x\">page {i} caf\u00e9 \ud83d\ude00 é</p>\n"#).repeat(20 + i);
        let mut lines: Vec<String> = (0..12).map(|i| format!(r#"{{"id":"r{i}","text":"{}"}}"#, text(i))).collect();
        lines.push(format!(r#"[{{"id":"e1","text":"{}"}},{{"id":"e2","text":"short"}}]"#, text(30)));
        lines.push(format!(r#"{{"id":"n1","score":NaN,"text":"{}"}}"#, text(31)));
        lines.push(format!(
            r#"{{"id":"m1","type":"message","role":"assistant","content":[{{"type":"text","text":"{}"}}],"stop_reason":"end_turn"}}"#,
            text(32)
        ));
        lines.join("\n") + "\n"
    }

    fn listing(path: &Path) -> Vec<Listed> {
        let mut got = Vec::new();
        Loader::new(LoadOptions::default()).list(&[path.to_path_buf()], &mut |l| {
            if let crate::logs::Listing::Listed(l) = l {
                got.push(l);
            }
        });
        got
    }

    #[test]
    fn a_listed_text_is_read_again_by_its_string_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("replies.jsonl");
        std::fs::write(&path, lines_of_long_texts()).unwrap();
        let mut loaded = std::collections::BTreeMap::new();
        load(std::slice::from_ref(&path), &LoadOptions::default(), &mut |item| {
            if let Item::Reply(r) = item {
                loaded.insert(r.id, r.text);
            }
        });
        let listed = listing(&path);
        let written = listed.iter().filter(|l| l.written.is_some()).count();
        assert!(written >= 13, "{written} of {}", listed.len());
        let at: Vec<Locator> = listed.iter().map(Locator::listed).collect();
        let loader = Loader::new(LoadOptions::default());
        let texts: Vec<String> = loader.reread_all(&at).into_iter().map(Result::unwrap).collect();
        assert_eq!(texts, at.iter().map(|a| loaded[&*a.id].clone()).collect::<Vec<_>>());

        // Every line's last byte broken: the lines are no JSON now, but each text written as
        // it was reads, by its string alone; the others are read through their lines, and fail.
        let broken: String = lines_of_long_texts().lines().map(|l| format!("{}!\n", &l[..l.len() - 1])).collect();
        std::fs::write(&path, broken).unwrap();
        let again = loader.reread_all(&at);
        for (l, got) in listed.iter().zip(&again) {
            match l.written {
                Some(_) => assert_eq!(got.as_deref(), Ok(loaded[&l.id].as_str()), "{}", l.id),
                None => assert!(got.is_err(), "{}: {got:?}", l.id),
            }
        }

        // A text changed where it is written (its length kept) is not the one listed: its line
        // is read, and gives the new text.
        let changed = lines_of_long_texts().replacen("page 3 ", "PAGE 3 ", 1);
        std::fs::write(&path, &changed).unwrap();
        let r3 = at.iter().position(|a| *a.id == *"r3").unwrap();
        let got = loader.reread(&at[r3]).unwrap();
        assert!(got.starts_with("<p class=\"x\">PAGE 3 "), "{}", &got[..30]);
        std::fs::write(&path, "").unwrap();
        assert!(loader.reread(&at[r3]).is_err());
    }

    #[test]
    fn a_reply_no_longer_there_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("replies.jsonl");
        std::fs::write(&path, "{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"b\",\"text\":\"two\"}\n").unwrap();
        let loader = Loader::new(LoadOptions::default());
        let b = Locator { source: path.as_path().into(), id: "b".into(), line: Some(2), offset: 24, written: None };
        assert_eq!(loader.reread(&b).as_deref(), Ok("two"));
        // Rewritten with a longer first line: the reply moved, and is found by its id.
        std::fs::write(&path, "{\"id\":\"a\",\"text\":\"one more\"}\n{\"id\":\"b\",\"text\":\"two\"}\n").unwrap();
        assert_eq!(loader.reread(&b).as_deref(), Ok("two"));
        // The line is another record now.
        std::fs::write(&path, "{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"c\",\"text\":\"new\"}\n").unwrap();
        assert_eq!(loader.reread(&b), Err(Problem::Vanished));
        std::fs::remove_file(&path).unwrap();
        assert!(loader.reread(&b).is_err());
    }
}

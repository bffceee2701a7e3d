//! The `page-shrank` flag in the inspector: raised on a page's final answer whose page shrank
//! or vanished since an earlier round, as `bracewalk scan` raises it, and kept so as replies
//! arrive, are read, change or go.
//!
//! The flag is the rounds' ([`crate::scan::rounds`]), not the reply's: it is on the reply's
//! facts (so its badge, the filter, the query and the summary read it as they read any
//! flag), but made from every call of the reply's page, in every round. The calls are kept
//! by page, and no map leads back from each entry to its page (its metadata names it, and
//! such a map would cost a campaign some 40 bytes a reply); a page whose calls changed is
//! read again once the change is in, and only its replies' flags change, so a batch costs
//! its pages, not the list. A page is judged once every reply of it has been read (its
//! answer's page measured): until then its flags stay as they were.

use std::collections::{HashMap, HashSet};

use crate::analysis::{Flag, Raised};
use crate::logs::Name;
use crate::scan::rounds::{Call, Fraction, Pages};

use super::entry::{Entry, EntryKey};
use super::list::Lens;
use super::list::List;

/// A page of a document: what the flag is judged by.
type Page = (Name, u32);

/// The calls of every page the list names, and the pages to judge again.
#[derive(Debug, Default)]
pub struct PageFlags {
    /// Each page's calls, by key in the order they arrived (keys are given in that order,
    /// so each list is ascending).
    calls: HashMap<Page, Vec<EntryKey>>,
    dirty: HashSet<Page>,
    /// Every page is to be gathered and judged again (a file went, restarted or moved).
    all: bool,
}

/// The page an entry is a call of, if it names a document, a page and a round.
fn page_of(e: &Entry) -> Option<Page> {
    let m = e.meta()?;
    m.round.as_ref()?;
    Some((m.document.clone()?, m.page?))
}

impl PageFlags {
    /// Entry `e` arrived.
    pub fn note(&mut self, e: &Entry) {
        let Some(p) = page_of(e) else { return };
        let keys = self.calls.entry(p.clone()).or_default();
        if let Err(at) = keys.binary_search(&e.key) {
            keys.insert(at, e.key);
        }
        self.dirty.insert(p);
    }

    /// Entry `e`'s metadata was amended: its page is judged again, and where it names
    /// another page than it did (its call is not among that page's), every page is
    /// gathered again, the one it left among them.
    pub fn amended(&mut self, e: &Entry) {
        let Some(p) = page_of(e) else {
            // It may have left a page.
            self.all = true;
            return;
        };
        match self.calls.get(&p) {
            Some(keys) if keys.binary_search(&e.key).is_ok() => {
                self.dirty.insert(p);
            }
            _ => self.all = true,
        }
    }

    /// What the flag reads of entry `e` changed (its answer): its page is judged again.
    pub fn touch(&mut self, e: &Entry) {
        if let Some(p) = page_of(e) {
            self.dirty.insert(p);
        }
    }

    /// Entries left or took new keys: every page is gathered again.
    pub fn redo(&mut self) {
        self.all = true;
    }

    /// Judges the pages that changed, and puts the flag on their final answers (and off
    /// the rest of their replies), through the list's one change.
    pub fn settle(&mut self, list: &mut List, lens: &Lens, fraction: Fraction) {
        if self.all {
            self.all = false;
            self.calls.clear();
            for e in list.entries() {
                if let Some(p) = page_of(e) {
                    self.calls.entry(p.clone()).or_default().push(e.key);
                    self.dirty.insert(p);
                }
            }
            // In arrival order already, but for entries a restart or a move gave new keys.
            for keys in self.calls.values_mut() {
                keys.sort_unstable();
            }
        }
        if self.dirty.is_empty() {
            return;
        }
        let mut flags: Vec<(EntryKey, Option<Raised>)> = Vec::new();
        for p in std::mem::take(&mut self.dirty) {
            let Some(keys) = self.calls.get_mut(&p) else { continue };
            // Not judged while a reply of it is still being read: looked for from the calls
            // that came last, the likeliest to be, so that a page of many rounds whose reading
            // is under way costs a look or two, not all its calls, on every batch of facts.
            let reading = |e: &Entry| e.is_reply() && !e.gone && e.sketch.is_none();
            if keys.iter().rev().filter_map(|&k| list.entry(k)).any(reading) {
                continue;
            }
            keys.retain(|k| list.entry(*k).is_some());
            let mut entries: Vec<&Entry> = keys.iter().filter_map(|&k| list.entry(k)).collect();
            if entries.is_empty() {
                self.calls.remove(&p);
                continue;
            }
            // In load order, as a scan gathers them.
            entries.sort_by(|a, b| {
                crate::natural::cmp_paths(&a.source, &b.source).then(a.line.cmp(&b.line)).then(a.key.cmp(&b.key))
            });
            let mut pages = Pages::default();
            for e in &entries {
                if let Some(m) = e.meta() {
                    pages.calls.extend(Call::of(m, Some(e.key), e.is_reply(), e.html));
                }
            }
            let lost: HashMap<EntryKey, Raised> =
                pages.history(fraction).losses.iter().filter_map(|l| Some((l.reply?, l.raised()))).collect();
            for e in entries.iter().filter(|e| e.is_reply()) {
                let now = lost.get(&e.key).cloned();
                let was = e.facts.as_deref().and_then(|f| f.flags.iter().find(|r| r.flag() == Flag::PageShrank));
                if was != now.as_ref() {
                    flags.push((e.key, now));
                }
            }
        }
        if flags.is_empty() {
            return;
        }
        list.change(lens, |c| {
            for (k, raised) in flags {
                let Some(i) = c.index(k) else { continue };
                let e = c.entry_mut(i);
                if let Some(f) = e.facts.as_deref_mut() {
                    f.flags.retain(|r| r.flag() != Flag::PageShrank);
                    // Last in `Flag::ALL`, it goes last.
                    f.flags.extend(raised);
                }
            }
        });
    }
}

//! The list of replies: every entry in arrival order, the view of them the filter admits in
//! the order the sort gives, the selection, and the triage marks the filter reads.
//!
//! The view is kept in order by the list itself: an entry listed is changed only inside
//! [`List::change`], which notes where each entry it hands out stood before the change and
//! places what moved, left or arrived once the change is done (`order.rs`); the filter and
//! the sort change through methods that sort the view again. So no caller can leave the
//! view out of step with the entries, and a batch of changes costs in proportion to itself,
//! not to the list.

mod filter;
mod index;
mod order;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::Config;
use crate::logs::Meta;
use crate::natural::Natural;
use crate::query::TextHit;
use crate::readers::ReaderId;

use super::badges::Badge;
use super::entry::{Body, Entry, EntryKey};
use super::marks::Mark;

pub use filter::{Applied, Filter, Picked, subject};
pub use order::{SortKey, outcome_rank};

use index::FileIndex;
use order::Kept;

/// A key names what was read of a file at one path: an entry that moves with its file (a
/// rename) takes a new key, so that what was asked of it under the old path and answered
/// late (a reading, a record, a search), perhaps from another file now at that path, finds
/// no entry and is let go. The moves are counted from this bit up; below it a key is still
/// the arrival order the intake gave it.
const MOVED: EntryKey = 1 << 40;

/// Where the entry with key `k` arrived in order, through every move of its file.
pub fn arrival(k: EntryKey) -> EntryKey {
    k % MOVED
}

/// What a move did to the list ([`Change::moved`]).
#[derive(Debug, Default)]
pub struct Moved {
    /// Each moved entry's key, old and new.
    pub keys: Vec<(EntryKey, EntryKey)>,
    /// Whether marks moved with their replies (and are to be saved).
    pub marks: bool,
}

/// What the list reads an entry's badges and outcome by: the readers' config, and the reader
/// the `≠` badge sets beside the seed.
#[derive(Debug, Clone)]
pub struct Lens {
    pub config: Arc<Config>,
    pub compared: ReaderId,
}

/// The inspector's list.
#[derive(Debug)]
pub struct List {
    /// Every entry, in arrival order.
    entries: Vec<Entry>,
    by_key: HashMap<EntryKey, usize>,
    /// Where each file's entries are.
    files: FileIndex,
    /// The entries shown, filtered and sorted: indices into `entries`.
    view: Vec<usize>,
    /// Position in `view` of the selected entry.
    cursor: usize,
    /// Position in `view` of the first entry the list pane shows.
    top: usize,
    sort: SortKey,
    filter: Filter,
    marks: BTreeMap<String, Mark>,
    /// Ids of entries dropped by a restart of their file, so that reading them again does
    /// not make them new.
    restarted: HashSet<String>,
    /// The view is to be filtered and sorted in full before it is next shown.
    dirty: bool,
    /// An entry to select once the view is next placed (following new replies).
    select: Option<EntryKey>,
    /// Nothing has been chosen yet: the list stays at its top, on its first reply, as it
    /// fills.
    landing: bool,
    /// The sort changed while the list was at its top: it opens the new order at its top.
    home: bool,
    /// Entries looked at to keep the view and the indexes (compared, filtered, passed
    /// over), for tests that hold the cost of a batch to its size.
    work: u64,
    /// Every round an entry has named, in natural order (a round whose entries all left is
    /// kept: it only shortens the round column's names by less).
    rounds: BTreeSet<Natural>,
    /// How many entries are load problems.
    problems: usize,
}

impl List {
    pub fn new(marks: BTreeMap<String, Mark>) -> List {
        List {
            entries: Vec::new(),
            by_key: HashMap::new(),
            files: FileIndex::default(),
            view: Vec::new(),
            cursor: 0,
            top: 0,
            sort: SortKey::Source,
            filter: Filter::default(),
            marks,
            restarted: HashSet::new(),
            dirty: false,
            select: None,
            landing: true,
            home: false,
            work: 0,
            rounds: BTreeSet::new(),
            problems: 0,
        }
    }

    /// Every entry, in arrival order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn entry(&self, key: EntryKey) -> Option<&Entry> {
        self.by_key.get(&key).and_then(|&i| self.entries.get(i))
    }

    /// The entries shown, filtered and sorted: positions in [`List::entries`].
    pub fn view(&self) -> &[usize] {
        &self.view
    }

    /// The entries shown, in order.
    pub fn shown(&self) -> impl Iterator<Item = &Entry> {
        self.view.iter().filter_map(|&i| self.entries.get(i))
    }

    /// Position in the view of the selected entry.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Position in the view of the first entry the list pane shows.
    pub fn top(&self) -> usize {
        self.top
    }

    /// The selected entry.
    pub fn selected(&self) -> Option<&Entry> {
        self.view.get(self.cursor).and_then(|&i| self.entries.get(i))
    }

    /// The rounds the entries have named, in natural order.
    pub fn rounds(&self) -> impl Iterator<Item = &str> {
        self.rounds.iter().map(|r| r.0.as_str())
    }

    /// How many load problems are listed (filtered out or not): what `bracewalk scan` counts
    /// as diagnostics of the same files.
    pub fn problems(&self) -> usize {
        self.problems
    }

    /// How many replies (not events or diagnostics) are listed.
    pub fn reply_count(&self) -> usize {
        self.entries.iter().filter(|e| e.is_reply()).count()
    }

    pub fn sort(&self) -> SortKey {
        self.sort
    }

    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    pub fn marks(&self) -> &BTreeMap<String, Mark> {
        &self.marks
    }

    pub fn is_marked(&self, e: &Entry) -> bool {
        self.marks.contains_key(&*e.id)
    }

    /// Selects the entry at `pos` in the view (the last, past the end).
    pub fn set_cursor(&mut self, pos: usize) {
        self.cursor = pos.min(self.view.len().saturating_sub(1));
    }

    /// Shows the list pane from the entry at `pos` in the view.
    pub fn set_top(&mut self, pos: usize) {
        self.top = pos;
    }

    /// Scrolls the list pane, `height` rows, so the selected entry is on it.
    pub fn keep_selected_shown(&mut self, height: usize) {
        if self.cursor < self.top {
            self.top = self.cursor;
        } else if self.cursor >= self.top + height {
            self.top = self.cursor + 1 - height;
        }
        self.top = self.top.min(self.view.len().saturating_sub(height));
    }

    /// Sorts by `key` from the next time the view is placed. The selected reply stays
    /// selected; but a list at its top (no reply above the selection) stays at its top, on
    /// the new order's first reply, as one sorted by size shows the largest.
    pub fn set_sort(&mut self, key: SortKey) {
        let above = &self.view[..self.cursor.min(self.view.len())];
        self.home = !above.iter().any(|&i| self.entries[i].is_reply());
        self.sort = key;
        self.dirty = true;
    }

    /// The filter, to change: the view is filtered and sorted again before it is next shown.
    pub fn filter_mut(&mut self) -> &mut Filter {
        self.dirty = true;
        &mut self.filter
    }

    /// `n` more replies asked to be searched for the query applied (what it has searched is
    /// counted against them); no entry's place changes.
    pub fn count_asked(&mut self, n: usize) {
        if let Some(q) = &mut self.filter.query {
            q.asked += n;
        }
    }

    /// Marks the entry `mark` names, or changes its note.
    pub fn mark(&mut self, mark: Mark) {
        self.marks.insert(mark.id.clone(), mark);
        if self.filter.on.contains(&Badge::Marked) {
            self.dirty = true;
        }
    }

    /// Takes the mark off the entry with `id`; the mark, if there was one.
    pub fn unmark(&mut self, id: &str) -> Option<Mark> {
        self.marks.remove(id)
    }

    /// A key or a click has chosen: the list no longer keeps to its top as it fills.
    pub fn chosen(&mut self) {
        self.landing = false;
    }

    /// Selects the newest reply once the view is next placed, wherever it then is (following
    /// new replies).
    pub fn select_newest(&mut self) {
        self.select = self.entries.iter().rev().find(|e| e.is_reply()).map(|e| e.key);
        self.dirty = true;
    }

    /// Filters and sorts every entry again, keeping the selected entry selected.
    pub fn rebuild(&mut self, lens: &Lens) {
        order::rebuild(self, lens);
    }

    /// Filters and sorts the view again if the filter or the sort changed since it was.
    pub fn settle(&mut self, lens: &Lens) {
        if self.dirty {
            order::rebuild(self, lens);
        }
        self.set_cursor(self.cursor);
    }

    /// Changes entries through `f`, the view kept in order: what moved, left or arrived is
    /// placed once `f` is done, the selected entry stays selected and the entry at the top of
    /// the list pane at the top.
    pub fn change<R>(&mut self, lens: &Lens, f: impl FnOnce(&mut Change) -> R) -> R {
        let kept = Kept::begin(self);
        let mut change = Change { list: self, lens, kept };
        let out = f(&mut change);
        let Change { list, lens, kept } = change;
        kept.finish(list, lens);
        out
    }
}

/// A batch of changes to the list ([`List::change`]).
pub struct Change<'l> {
    list: &'l mut List,
    lens: &'l Lens,
    kept: Kept,
}

impl Change<'_> {
    pub fn entries(&self) -> &[Entry] {
        &self.list.entries
    }

    /// Where the entry with key `k` is in [`Change::entries`].
    pub fn index(&self, k: EntryKey) -> Option<usize> {
        self.list.by_key.get(&k).copied()
    }

    /// Entry `i`, to change.
    pub fn entry_mut(&mut self, i: usize) -> &mut Entry {
        self.kept.touch(self.list, self.lens, i);
        &mut self.list.entries[i]
    }

    /// Selects the entry with key `k` once the change is done.
    pub fn select(&mut self, k: EntryKey) {
        self.list.select = Some(k);
    }

    /// Adds `e`, just arrived (`initial`: in the first load). An entry read again after its
    /// file restarted is not new.
    pub fn arrive(&mut self, mut e: Entry, initial: bool) {
        let list = &mut *self.list;
        e.new = !initial && !list.restarted.remove(&*e.id);
        if let Some(r) = e.meta().and_then(|m| m.round.as_deref()) {
            list.rounds.insert(Natural(r.to_owned()));
        }
        list.problems += usize::from(matches!(e.body, Body::Diagnostic(_)));
        list.files.add(&e);
        list.by_key.insert(e.key, list.entries.len());
        list.entries.push(e);
    }

    /// Amends the metadata of the first entry at `source:line`, and names its facts after it;
    /// the entry's key.
    pub fn amend(&mut self, source: &Path, line: usize, meta: Box<Meta>) -> Option<EntryKey> {
        let i = self.list.files.at_line(source, line).and_then(|k| self.index(k))?;
        if let Some(r) = meta.round.as_deref() {
            self.list.rounds.insert(Natural(r.to_owned()));
        }
        let e = self.entry_mut(i);
        match &mut e.body {
            Body::Reply { meta: m, .. } | Body::Event { meta: m, .. } => *m = meta,
            Body::Diagnostic(_) => {}
        }
        // The facts are named after the reply's metadata, as last amended.
        if let Some(f) = e.facts.take() {
            e.set_facts(*f);
        }
        Some(e.key)
    }

    /// Drops every entry of `source`, whose file shrank or was replaced: it is read again.
    pub fn restart(&mut self, source: &Path) {
        let list = &mut *self.list;
        for k in list.files.take_file(source) {
            if let Some(i) = list.by_key.remove(&k) {
                list.restarted.insert(list.entries[i].id.to_string());
                self.kept.left(i);
            }
        }
    }

    /// Drops every entry of the file at `source`, which was deleted: the list lists what is
    /// on disk. How many replies left, and how many of those were marked (their marks are
    /// kept, for the file's coming back and for `bracewalk marks`).
    pub fn remove(&mut self, source: &Path) -> (usize, usize) {
        let list = &mut *self.list;
        let (mut replies, mut marked) = (0, 0);
        for k in list.files.take_file(source) {
            if let Some(i) = list.by_key.remove(&k) {
                let e = &list.entries[i];
                if e.is_reply() {
                    replies += 1;
                    marked += usize::from(list.marks.contains_key(&*e.id));
                }
                self.kept.left(i);
            }
        }
        (replies, marked)
    }

    /// Files renamed, all at once (a rotation's chain, a swap): each file's entries are the
    /// entries of the file at its new path (what was there before leaves), ids named after
    /// the path renamed with it, each under a new key (`MOVED`). They keep their place,
    /// their facts, the selection, and their marks, which move with them.
    pub fn moved(&mut self, moves: &[(PathBuf, PathBuf)]) -> Moved {
        // A file renamed over another replaces it (one that moves on itself is moved).
        for (_, to) in moves {
            if !moves.iter().any(|(from, _)| from == to) {
                self.remove(to);
            }
        }
        let mut keys = Vec::new();
        // Each moved reply's id before and after, and where it is now.
        let mut ids = Vec::new();
        for (from, to) in moves {
            let listed: Vec<EntryKey> =
                self.list.files.keys(from).iter().copied().filter(|k| self.list.by_key.contains_key(k)).collect();
            for k in listed {
                let Some(i) = self.index(k) else { continue };
                self.kept.displace(self.list, self.lens, i);
                let e = &mut self.list.entries[i];
                let was = e.id.to_string();
                rename(e, from, to);
                e.key = k.wrapping_add(MOVED);
                ids.push((was, e.id.to_string(), e.reference()));
                keys.push((k, e.key));
            }
        }
        let to: HashMap<EntryKey, EntryKey> = keys.iter().copied().collect();
        let list = &mut *self.list;
        for (k, new) in &keys {
            if let Some(i) = list.by_key.remove(k) {
                list.by_key.insert(*new, i);
            }
        }
        list.files.moved(moves, |k| to.get(&k).copied());
        if let Some(k) = &mut list.select {
            *k = to.get(k).copied().unwrap_or(*k);
        }
        self.kept.rekey(&to);
        if let Some(q) = &mut list.filter.query {
            for (k, new) in &keys {
                if let Some(hit) = q.hits.remove(k) {
                    q.hits.insert(*new, hit);
                }
            }
        }
        // All marks are taken off before any is put back: in a chain, one reply's new id is
        // another's old one.
        let marks: Vec<(Mark, String, String)> = ids
            .into_iter()
            .filter_map(|(was, id, reference)| list.marks.remove(&was).map(|m| (m, id, reference)))
            .collect();
        let moved = Moved { keys, marks: !marks.is_empty() };
        for (mut m, id, reference) in marks {
            m.reference = (reference != id).then_some(reference);
            m.id = id;
            list.marks.insert(m.id.clone(), m);
        }
        moved
    }

    /// What the query's text terms made of reply `k`'s text.
    pub fn set_hit(&mut self, k: EntryKey, hit: TextHit) {
        if let Some(i) = self.index(k) {
            self.kept.touch(self.list, self.lens, i);
        }
        if let Some(q) = &mut self.list.filter.query {
            q.hits.insert(k, hit);
        }
    }

    /// Lets go of what the query's text terms made of reply `k`'s text, which changed: the
    /// reply waits, as one not searched yet does. Whether the query reads texts at all.
    pub fn forget_hit(&mut self, k: EntryKey) -> bool {
        if !self.list.filter.query.as_ref().is_some_and(|q| q.query.reads_text()) {
            return false;
        }
        if let Some(i) = self.index(k) {
            self.kept.touch(self.list, self.lens, i);
        }
        if let Some(q) = &mut self.list.filter.query {
            q.hits.remove(&k);
        }
        true
    }
}

/// `e`, of the file renamed from `from` to `to`, as the file at `to` has it.
fn rename(e: &mut Entry, from: &Path, to: &Path) {
    if let Some(id) = renamed_id(&e.id, e.line, from, to) {
        e.id = id.into();
    }
    e.source = Arc::from(to);
    if let Body::Diagnostic(d) = &mut e.body {
        d.source = to.to_path_buf();
        e.id = d.to_string().into();
    }
    // The facts are named after the reply's id and where it is.
    if let Some(f) = e.facts.take() {
        e.set_facts(*f);
    }
}

/// `id`, of a record at `line` of the file renamed from `from` to `to`, as the file at `to`
/// names it, where it is named after the path (`path:line`, `path:line#2`, `path#3`,
/// `path`); `None` for a record's own id, which stays.
fn renamed_id(id: &str, line: Option<usize>, from: &Path, to: &Path) -> Option<String> {
    let at = |p: &Path| match line {
        Some(n) => format!("{}:{n}", p.display()),
        None => p.display().to_string(),
    };
    let rest = id.strip_prefix(&at(from))?;
    (rest.is_empty() || rest.starts_with('#')).then(|| format!("{}{rest}", at(to)))
}

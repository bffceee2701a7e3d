//! The list's order: which entries the view shows, and in what order. It is sorted in full
//! when the sort or the filter changes; otherwise it is kept, as replies arrive and change,
//! by taking out the entries that left or moved and merging in the batch, sorted alone.
//! A flood (the follower's batches many times a second, the first load of a campaign of
//! 100,000 replies) then costs comparisons in proportion to the batch, not to the list.
//!
//! The view stays a flat list of positions, as the list pane and the cursor want it, so a
//! batch that lands mid-list still moves the positions after it along (a copy of the tail,
//! not a look at its entries); one that drops entries closes the gaps in one pass.
//!
//! `List::work` counts what is looked at here (an entry compared, filtered or passed
//! over), so a test can hold the cost of a batch to its size without timing anything.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::analysis::Config;
use crate::exact::trace::DecidedBy;
use crate::natural;
use crate::readers::ReaderId;

use super::{Lens, List, arrival};
use crate::tui::entry::{Body, Entry, EntryKey};

/// The list's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Path, then line: the order the logs have.
    Source,
    /// Largest first.
    Size,
    /// The most telling first: nothing read, the whole-reply reading, disagreements.
    Outcome,
    /// By the record's time, oldest first (arrival order where a record has none).
    Time,
    /// Grouped by round and document, then by page, then by time: a document's pages in
    /// order, each page's calls as they were made.
    Document,
}

impl SortKey {
    pub fn next(self) -> SortKey {
        match self {
            SortKey::Source => SortKey::Size,
            SortKey::Size => SortKey::Outcome,
            SortKey::Outcome => SortKey::Time,
            SortKey::Time => SortKey::Document,
            SortKey::Document => SortKey::Source,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SortKey::Source => "source",
            SortKey::Size => "size",
            SortKey::Outcome => "outcome",
            SortKey::Time => "time",
            SortKey::Document => "document",
        }
    }
}

/// How `a` and `b` (positions in `entries`) are ordered under `sort`. A total order: every
/// sort ends on a key or a position, so only an entry is equal to itself, and an entry's
/// place in the view is found by a binary search.
pub fn compare(entries: &[Entry], sort: &Sort, a: usize, b: usize) -> Ordering {
    let (x, y) = (&entries[a], &entries[b]);
    match sort.key {
        SortKey::Source => natural::cmp_paths(&x.source, &y.source).then(x.line.cmp(&y.line)).then(first(x, y)),
        SortKey::Size => y.size().cmp(&x.size()).then(a.cmp(&b)),
        SortKey::Outcome => (sort.rank(x), a).cmp(&(sort.rank(y), b)),
        SortKey::Time => ts(x).cmp(&ts(y)).then(first(x, y)),
        SortKey::Document => place(x).cmp(&place(y)).then(ts(x).cmp(&ts(y))).then(first(x, y)),
    }
}

/// Which of two entries arrived first: a reply that moved with its file keeps its place.
fn first(x: &Entry, y: &Entry) -> Ordering {
    arrival(x.key).cmp(&arrival(y.key))
}

/// Where an entry stands among documents: those of a document first, by round (in natural
/// order), document and page (a document's calls with no page after its pages).
fn place(e: &Entry) -> (bool, Option<NaturalStr<'_>>, Option<&str>, bool, Option<u32>) {
    let m = e.meta();
    let doc = m.and_then(|m| m.document.as_deref());
    let page = m.and_then(|m| m.page);
    (doc.is_none(), m.and_then(|m| m.round.as_deref()).map(NaturalStr), doc, page.is_none(), page)
}

/// A round's name, ordered naturally.
#[derive(PartialEq, Eq)]
struct NaturalStr<'a>(&'a str);

impl Ord for NaturalStr<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        natural::cmp(self.0, other.0)
    }
}

impl PartialOrd for NaturalStr<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A sort, with what the outcome sort reads an entry's badges by.
#[derive(Clone)]
pub struct Sort {
    pub key: SortKey,
    pub config: Arc<Config>,
    pub compared: ReaderId,
}

impl Sort {
    pub fn of(list: &List, lens: &Lens) -> Sort {
        Sort { key: list.sort, config: lens.config.clone(), compared: lens.compared }
    }

    fn rank(&self, e: &Entry) -> (u8, u8) {
        outcome_rank(e, &self.config, self.compared)
    }
}

fn ts(e: &Entry) -> Option<&str> {
    e.meta().and_then(|m| m.ts.as_deref())
}

/// The most telling outcomes first: nothing read, the whole-reply reading, then by the
/// badges (the readers disagree, the repair changed the answer, cut off).
pub fn outcome_rank(e: &Entry, config: &Config, compared: ReaderId) -> (u8, u8) {
    match (&e.body, e.facts.as_deref()) {
        (Body::Diagnostic(_), _) => (0, 0),
        (Body::Event { .. }, _) => (1, 0),
        (Body::Reply { .. }, None) => (9, 0),
        (Body::Reply { .. }, Some(f)) => {
            let d = match f.decided_by {
                DecidedBy::None => 2,
                DecidedBy::WholeReply => 3,
                DecidedBy::LastWins => 4,
                DecidedBy::WholeText => 5,
            };
            let disagree = matches!(e.against_seed(config, compared), Some(Some(_)));
            let flags = u8::from(!disagree) * 4 + u8::from(!f.repair_changed) * 2 + u8::from(!f.cut_off);
            (d, flags)
        }
    }
}

/// Filters and sorts every entry again, keeping the selected entry selected (or the one
/// asked for in `list.select`).
pub fn rebuild(list: &mut List, lens: &Lens) {
    list.dirty = false;
    let home = std::mem::take(&mut list.home);
    let selected = list.select.take().or_else(|| if home { None } else { list.selected().map(|e| e.key) });
    let entries = &list.entries;
    let sort = Sort::of(list, lens);
    let mut work = entries.len() as u64;
    let mut view: Vec<usize> = (0..entries.len()).filter(|&i| admits(list, lens, &entries[i])).collect();
    view.sort_by(|&a, &b| {
        work += 1;
        compare(entries, &sort, a, b)
    });
    list.view = view;
    list.work += work;
    match selected {
        Some(k) => {
            if let Some(pos) = position(list, lens, k) {
                list.cursor = pos;
            }
        }
        None => {
            list.cursor = first_reply(list);
            list.top = 0;
        }
    }
}

/// Whether the filter admits `e`.
fn admits(list: &List, lens: &Lens, e: &Entry) -> bool {
    list.filter.admits(e, list.is_marked(e), &lens.config)
}

/// Where the entry with key `k` is in the view, if it is there.
pub fn position(list: &mut List, lens: &Lens, k: EntryKey) -> Option<usize> {
    let &i = list.by_key.get(&k)?;
    let (entries, sort) = (&list.entries, Sort::of(list, lens));
    let mut work = 0;
    let found = list.view.binary_search_by(|&v| {
        work += 1;
        compare(entries, &sort, v, i)
    });
    list.work += work;
    found.ok()
}

/// Nothing chosen yet: start on a reply, not on a load problem.
fn first_reply(list: &mut List) -> usize {
    let found = list.view.iter().position(|&i| list.entries[i].is_reply());
    list.work += found.map_or(list.view.len(), |p| p + 1) as u64;
    found.unwrap_or(0)
}

/// What decides where an entry stands in the view and can change after it arrived: whether
/// the filter admits it, and (for the sorts that read them) its outcome or its time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Standing {
    admitted: bool,
    rank: Option<(u8, u8)>,
    ts: Option<String>,
}

fn standing(list: &List, lens: &Lens, i: usize) -> Standing {
    let e = &list.entries[i];
    Standing {
        admitted: admits(list, lens, e),
        rank: (list.sort == SortKey::Outcome).then(|| outcome_rank(e, &lens.config, lens.compared)),
        ts: if matches!(list.sort, SortKey::Time | SortKey::Document) { ts(e).map(str::to_owned) } else { None },
    }
}

/// The view kept up to date through one batch of changes: [`begin`](Self::begin) before
/// anything changes, [`touch`](Self::touch) before an entry listed before the batch
/// changes, [`finish`](Self::finish) once the batch is in. [`List::change`] follows it, and
/// is the only way a listed entry is changed.
#[derive(Debug)]
pub(super) struct Kept {
    /// Entries from here on arrived in this batch.
    arrived: usize,
    /// Where the touched entries stood before the batch, by position.
    before: HashMap<usize, Standing>,
    /// Positions of entries that left the list (their file restarted or went).
    dropped: Vec<usize>,
    /// Positions of entries placed again whatever their standing (their file was renamed,
    /// which moves them in the source order).
    displaced: HashSet<usize>,
    /// Whether the view is to be sorted in full anyway.
    skip: bool,
    selected: Option<EntryKey>,
    top: Option<EntryKey>,
}

impl Kept {
    pub(super) fn begin(list: &List) -> Kept {
        Kept {
            arrived: list.entries.len(),
            before: HashMap::new(),
            dropped: Vec::new(),
            displaced: HashSet::new(),
            skip: list.dirty,
            selected: list.selected().map(|e| e.key),
            top: list.view.get(list.top).and_then(|&i| list.entries.get(i)).map(|e| e.key),
        }
    }

    /// Notes where entry `i` stands, before it changes.
    pub(super) fn touch(&mut self, list: &mut List, lens: &Lens, i: usize) {
        if self.skip || i >= self.arrived || self.before.contains_key(&i) {
            return;
        }
        list.work += 1;
        self.before.insert(i, standing(list, lens, i));
    }

    /// Notes that entry `i` is to be placed again, before it changes.
    pub(super) fn displace(&mut self, list: &mut List, lens: &Lens, i: usize) {
        self.touch(list, lens, i);
        if !self.skip && i < self.arrived {
            self.displaced.insert(i);
        }
    }

    /// Follows the selected entry and the one at the top of the list pane to their new keys.
    pub(super) fn rekey(&mut self, to: &HashMap<EntryKey, EntryKey>) {
        for k in [&mut self.selected, &mut self.top].into_iter().flatten() {
            *k = to.get(k).copied().unwrap_or(*k);
        }
    }

    /// Notes that entry `i` left the list (it is taken out of `entries` by `finish`).
    pub(super) fn left(&mut self, i: usize) {
        self.dropped.push(i);
    }

    /// Takes the dropped entries out, then places what moved or arrived, and keeps the
    /// selected entry selected and the entry at the top of the list pane at the top.
    pub(super) fn finish(mut self, list: &mut List, lens: &Lens) {
        let remap = self.close_gaps(list);
        if self.skip || list.dirty {
            return;
        }
        let at = |i: usize| remap.as_ref().map_or(Some(i), |r| r[i]);
        // What to take out of the view and what to merge in.
        let mut out = Vec::new();
        let mut add = Vec::new();
        for (&i, was) in &self.before {
            let displaced = self.displaced.contains(&i);
            let Some(i) = at(i) else { continue };
            let now = standing(list, lens, i);
            list.work += 1;
            if now != *was || displaced {
                if was.admitted {
                    out.push(i);
                }
                if now.admitted {
                    add.push(i);
                }
            }
        }
        let arrived = self.arrived - self.dropped.iter().filter(|&&d| d < self.arrived).count();
        for i in arrived..list.entries.len() {
            list.work += 1;
            if admits(list, lens, &list.entries[i]) {
                add.push(i);
            }
        }
        if !out.is_empty() {
            out.sort_unstable();
            list.work += list.view.len() as u64;
            list.view.retain(|i| out.binary_search(i).is_err());
        }
        merge(list, lens, add);
        // Nothing chosen yet: the list opens at its top, on its first reply, whatever
        // arrives before it.
        let target = list.select.take().or(if list.landing { None } else { self.selected });
        match target {
            Some(k) => {
                if let Some(pos) = position(list, lens, k) {
                    list.cursor = pos;
                }
            }
            None => {
                list.cursor = first_reply(list);
                if list.landing {
                    self.top = None;
                    list.top = 0;
                }
            }
        }
        if let Some(k) = self.top
            && let Some(pos) = position(list, lens, k)
        {
            list.top = pos;
        }
    }

    /// Takes the dropped entries out of `entries` and the view, in one pass; returns where
    /// each entry went, if any moved.
    fn close_gaps(&mut self, list: &mut List) -> Option<Vec<Option<usize>>> {
        if self.dropped.is_empty() {
            return None;
        }
        self.dropped.sort_unstable();
        self.dropped.dedup();
        let n = list.entries.len();
        let mut remap = Vec::with_capacity(n);
        let mut next = 0;
        let mut dropped = self.dropped.iter().peekable();
        for i in 0..n {
            if dropped.next_if_eq(&&i).is_some() {
                remap.push(None);
            } else {
                remap.push(Some(next));
                next += 1;
            }
        }
        let mut i = 0;
        list.entries.retain(|e| {
            i += 1;
            let kept = remap[i - 1].is_some();
            list.problems -= usize::from(!kept && matches!(e.body, Body::Diagnostic(_)));
            kept
        });
        let first = self.dropped[0];
        for (i, e) in list.entries.iter().enumerate().skip(first) {
            list.by_key.insert(e.key, i);
        }
        list.view.retain_mut(|v| match remap[*v] {
            Some(to) => {
                *v = to;
                true
            }
            None => false,
        });
        list.work += (n + list.view.len()) as u64;
        Some(remap)
    }
}

/// Merges `add` (positions not in the view) into the view, in order: the batch is sorted
/// alone, and each of its entries finds its place after the last one's by a binary search.
fn merge(list: &mut List, lens: &Lens, mut add: Vec<usize>) {
    if add.is_empty() {
        return;
    }
    let (entries, sort) = (&list.entries, Sort::of(list, lens));
    let mut work = 0;
    let mut cmp = |a: usize, b: usize| {
        work += 1;
        compare(entries, &sort, a, b)
    };
    add.sort_by(|&a, &b| cmp(a, b));
    let view = &mut list.view;
    let from = view.partition_point(|&v| cmp(v, add[0]) == Ordering::Less);
    // Everything before the batch's first entry stays where it is.
    let tail = view.split_off(from);
    view.reserve(tail.len() + add.len());
    let mut rest = tail.as_slice();
    for a in add {
        let k = rest.partition_point(|&v| cmp(v, a) == Ordering::Less);
        view.extend_from_slice(&rest[..k]);
        view.push(a);
        rest = &rest[k..];
    }
    view.extend_from_slice(rest);
    list.work += work;
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::PathBuf;

    use proptest::prelude::*;

    use super::*;
    use crate::analysis::Facts;
    use crate::logs::{Diagnostic, Format, Item, Meta, Problem, Reply};
    use crate::scan::report::Row;
    use crate::tui::badges::Badge;
    use crate::tui::list::MOVED;
    use crate::tui::message::{Incoming, Msg, Read};
    use crate::tui::state::State;
    use crate::tui::update::update;

    fn reply(key: EntryKey, source: &str, line: usize, id: Option<&str>, text: &str, ts: Option<&str>) -> Entry {
        let mut meta = Meta::new(Format::RunLog);
        meta.agent = Some(if key.is_multiple_of(3) { "page" } else { "feedback" }.into());
        meta.ts = ts.map(Into::into);
        let id = id.map_or_else(|| format!("{source}:{line}"), str::to_owned);
        let item =
            Item::Reply(Reply { id, source: source.into(), line: Some(line), offset: 0, text: text.into(), meta });
        Entry::from_item(key, item)
    }

    fn incoming(batch: Vec<Incoming>) -> Msg {
        Msg::Incoming { batch, initial: false }
    }

    fn state() -> State {
        State::new(vec![PathBuf::from("logs")], Default::default(), (120, 40))
    }

    /// 20,000 replies from 200 files, a file a batch, the files in no particular order (so
    /// most batches land mid-list), into a state sorted by `sort`: the work done.
    fn flood(sort: SortKey) -> (u64, u64) {
        let mut s = state();
        s.list.sort = sort;
        let mut key = 0;
        let mut halves = [0, 0];
        for b in 0..200u64 {
            let file = format!("logs/run-{:03}/log.jsonl", b * 73 % 200);
            let batch = (1..=100)
                .map(|line| {
                    key += 1;
                    let text = "{\"a\": 1}".repeat((key * 7 % 13) as usize + 1);
                    Incoming::Entry(reply(key, &file, line, None, &text, None))
                })
                .collect();
            let before = s.list.work;
            update(&mut s, incoming(batch));
            halves[usize::from(b >= 100)] += s.list.work - before;
        }
        assert_eq!(s.list.view.len(), 20_000);
        (halves[0], halves[1])
    }

    #[test]
    fn a_batch_costs_work_in_proportion_to_itself_not_to_the_list() {
        // Regression: each entry arriving scanned every entry listed (for a gone one to
        // replace), and each batch sorted the whole list again: 20,000 replies in 200
        // batches looked at entries 204 to 228 million times (each sort); now 48,000 to
        // 405,000.
        let n = 20_000f64;
        for sort in [SortKey::Source, SortKey::Size, SortKey::Outcome, SortKey::Time, SortKey::Document] {
            let (first, second) = flood(sort);
            let total = (first + second) as f64;
            // A comparison or two per entry for each doubling of the list, and a few looks.
            assert!(total < 3.0 * n * n.log2(), "{sort:?}: {total} entries looked at");
            // The second 100 batches land on a list three times as long as the first 100 did
            // on average; their cost may grow with its logarithm (by 1.0 to 1.2 times), not
            // with its length (3 times).
            assert!((second as f64) < 1.5 * first as f64, "{sort:?}: {first} then {second}");
        }
    }

    // ---- the list kept equals the list sorted in full ----------------------------------------

    const FILES: [&str; 4] = ["logs/a/x.jsonl", "logs/a/y.jsonl", "logs/a-b/z.jsonl", "logs/b.jsonl"];
    const TEXTS: [&str; 4] = ["{\"a\": 1}", "no object here", "{\"a\": ", "x {\"b\": [1, 2]} y {\"c\": 3}"];

    #[derive(Debug, Clone)]
    enum Change {
        /// A reply at a line of a file, with its own id (shared by others) or `path:line`.
        Reply {
            file: usize,
            line: usize,
            own_id: Option<u8>,
            text: usize,
            ts: Option<u8>,
        },
        /// A load problem at a line.
        Problem {
            file: usize,
            line: usize,
        },
        Amend {
            file: usize,
            line: usize,
            ts: Option<u8>,
        },
        Restart {
            file: usize,
        },
        Remove {
            file: usize,
        },
        /// These files renamed, each to the file `shift` places on (a chain, a swap).
        Move {
            files: Vec<usize>,
            shift: usize,
        },
    }

    #[derive(Debug, Clone)]
    enum Step {
        Batch(Vec<Change>),
        /// Facts of the entries at these positions (modulo the list's length).
        Facts(Vec<usize>),
        Key(char),
    }

    fn change() -> impl Strategy<Value = Change> {
        let f = 0..FILES.len();
        let line = 1..6usize;
        let ts = proptest::option::of(0..4u8);
        prop_oneof![
            6 => (f.clone(), line.clone(), proptest::option::weighted(0.3, 0..3u8), 0..TEXTS.len(), ts.clone())
                .prop_map(|(file, line, own_id, text, ts)| Change::Reply { file, line, own_id, text, ts }),
            1 => (f.clone(), line.clone()).prop_map(|(file, line)| Change::Problem { file, line }),
            2 => (f.clone(), line, ts).prop_map(|(file, line, ts)| Change::Amend { file, line, ts }),
            1 => f.clone().prop_map(|file| Change::Restart { file }),
            1 => f.prop_map(|file| Change::Remove { file }),
            1 => (proptest::sample::subsequence((0..FILES.len()).collect::<Vec<_>>(), 1..=FILES.len()), 1..FILES.len())
                .prop_map(|(files, shift)| Change::Move { files, shift }),
        ]
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => proptest::collection::vec(change(), 1..8).prop_map(Step::Batch),
            2 => proptest::collection::vec(0..64usize, 1..6).prop_map(Step::Facts),
            2 => proptest::sample::select(vec!['j', 'k', 'G', 'g', 'F', 'p']).prop_map(Step::Key),
        ]
    }

    fn filter() -> impl Strategy<Value = Option<Badge>> {
        proptest::option::of(proptest::sample::select(vec![
            Badge::Gone,
            Badge::New,
            Badge::Report(Row::Decided(DecidedBy::None)),
            Badge::Report(Row::Decided(DecidedBy::WholeText)),
            Badge::Report(Row::Agent("page".to_owned())),
        ]))
    }

    fn sort() -> impl Strategy<Value = SortKey> {
        proptest::sample::select(vec![
            SortKey::Source,
            SortKey::Size,
            SortKey::Outcome,
            SortKey::Time,
            SortKey::Document,
        ])
    }

    fn ts_of(ts: Option<u8>) -> Option<String> {
        ts.map(|t| format!("2025-01-0{}T00:00:00Z", t + 1))
    }

    /// What the list holds of an entry, as the scans of every entry made it before the
    /// indexes.
    #[derive(Debug, Clone, PartialEq)]
    struct Plain {
        key: EntryKey,
        source: PathBuf,
        line: Option<usize>,
        id: String,
        gone: bool,
        new: bool,
        ts: Option<String>,
        problem: bool,
    }

    fn plain(e: &Entry) -> Plain {
        Plain {
            key: e.key,
            source: e.source.to_path_buf(),
            line: e.line,
            id: e.id.to_string(),
            gone: e.gone,
            new: e.new,
            ts: e.meta().and_then(|m| m.ts.as_deref().map(str::to_owned)),
            problem: matches!(e.body, Body::Diagnostic(_)),
        }
    }

    #[derive(Default)]
    struct Model {
        entries: Vec<Plain>,
        restarted: HashSet<String>,
    }

    impl Model {
        /// The batch applied as it was before the indexes: a scan for each change.
        fn apply(&mut self, batch: &[Incoming], initial: bool) {
            for change in batch {
                match change {
                    Incoming::Entry(e) => {
                        let mut p = plain(e);
                        p.new = !initial && !self.restarted.remove(&p.id);
                        self.entries.push(p);
                    }
                    Incoming::Amended { source, line, meta } => {
                        if let Some(e) = self.entries.iter_mut().find(|e| e.source == *source && e.line == Some(*line))
                        {
                            // A load problem has no metadata to amend.
                            if !e.problem {
                                e.ts = meta.ts.as_deref().map(str::to_owned);
                            }
                        }
                    }
                    Incoming::Restarted { source } => {
                        for e in self.entries.iter().filter(|e| e.source == *source) {
                            self.restarted.insert(e.id.clone());
                        }
                        self.entries.retain(|e| e.source != *source);
                    }
                    Incoming::Removed { source } => self.entries.retain(|e| e.source != *source),
                    Incoming::Moved { moves } => {
                        let replaced = |p: &PathBuf| {
                            moves.iter().any(|(_, to)| to == p) && !moves.iter().any(|(from, _)| from == p)
                        };
                        self.entries.retain(|e| !replaced(&e.source));
                        for e in &mut self.entries {
                            let Some((from, to)) = moves.iter().find(|(from, _)| *from == e.source) else { continue };
                            let at = |p: &PathBuf| format!("{}:{}", p.display(), e.line.unwrap_or(0));
                            if e.id == at(from) {
                                e.id = at(to);
                            } else if e.problem {
                                // A load problem is named after where it is.
                                e.id = e.id.replacen(&*from.to_string_lossy(), &to.to_string_lossy(), 1);
                            }
                            e.source = to.clone();
                            e.key += MOVED;
                        }
                    }
                }
            }
        }
    }

    fn batch_of(changes: &[Change], next_key: &mut EntryKey) -> Vec<Incoming> {
        changes
            .iter()
            .map(|c| match *c {
                Change::Reply { file, line, own_id, text, ts } => {
                    *next_key += 1;
                    let id = own_id.map(|i| format!("call-{i}"));
                    let ts = ts_of(ts);
                    Incoming::Entry(reply(*next_key, FILES[file], line, id.as_deref(), TEXTS[text], ts.as_deref()))
                }
                Change::Problem { file, line } => {
                    *next_key += 1;
                    let d = Diagnostic::new(FILES[file], Problem::Binary("problem".to_owned())).at_line(line, 0);
                    Incoming::Entry(Entry::from_item(*next_key, Item::Diagnostic(d)))
                }
                Change::Amend { file, line, ts } => {
                    let mut meta = Meta::new(Format::RunLog);
                    meta.ts = ts_of(ts).map(Into::into);
                    Incoming::Amended { source: FILES[file].into(), line, meta: Box::new(meta) }
                }
                Change::Restart { file } => Incoming::Restarted { source: FILES[file].into() },
                Change::Remove { file } => Incoming::Removed { source: FILES[file].into() },
                Change::Move { ref files, shift } => Incoming::Moved {
                    moves: files.iter().map(|&f| (FILES[f].into(), FILES[(f + shift) % FILES.len()].into())).collect(),
                },
            })
            .collect()
    }

    /// The view as a full filter and sort makes it.
    fn sorted_in_full(s: &State) -> Vec<usize> {
        let mut view: Vec<usize> =
            (0..s.list.entries.len()).filter(|&i| s.list.filter.admits(&s.list.entries[i], false, &s.config)).collect();
        let sort = Sort::of(&s.list, &s.lens());
        view.sort_by(|&a, &b| compare(&s.list.entries, &sort, a, b));
        view
    }

    fn check(steps: Vec<Step>, filter: Option<Badge>, sort: SortKey) -> Result<(), TestCaseError> {
        let mut s = state();
        s.list.sort = sort;
        s.list.filter.on.extend(filter);
        let mut model = Model::default();
        let mut held: Vec<Incoming> = Vec::new();
        let mut next_key = 0;
        let mut initial = true;
        for (n, step) in steps.into_iter().enumerate() {
            let selected = s.selected().map(|e| e.key);
            let following = s.loading.follow;
            match step {
                Step::Batch(changes) => {
                    let batch = batch_of(&changes, &mut next_key);
                    if s.loading.paused() && !initial {
                        held.extend(batch.iter().cloned());
                    } else {
                        model.apply(&batch, initial);
                    }
                    update(&mut s, Msg::Incoming { batch, initial });
                    initial = false;
                }
                Step::Facts(at) => {
                    let config = s.config.clone();
                    let list: Vec<_> = at
                        .iter()
                        .filter_map(|&p| s.list.entries.get(p % s.list.entries.len().max(1)))
                        .filter_map(|e| {
                            let (facts, _) = Facts::early(e.held_text()?, false, &config);
                            Some(Read { key: e.key, facts, sketch: None, html: None })
                        })
                        .collect();
                    update(&mut s, Msg::Facts(list));
                }
                Step::Key(c) => {
                    if c == 'p' && s.loading.paused() {
                        model.apply(&std::mem::take(&mut held), false);
                    }
                    let ev = crossterm::event::KeyEvent::new(
                        crossterm::event::KeyCode::Char(c),
                        crossterm::event::KeyModifiers::NONE,
                    );
                    update(&mut s, Msg::Key(ev));
                    continue;
                }
            }
            let got: Vec<Plain> = s.list.entries.iter().map(plain).collect();
            prop_assert_eq!(&got, &model.entries, "step {}: the entries", n);
            for (i, e) in s.list.entries.iter().enumerate() {
                prop_assert_eq!(s.list.by_key.get(&e.key), Some(&i), "step {}: by_key", n);
            }
            prop_assert_eq!(s.list.by_key.len(), s.list.entries.len());
            prop_assert_eq!(&s.list.view, &sorted_in_full(&s), "step {}: the view", n);
            // Nothing chosen yet: the list keeps to its top, on its first reply.
            if s.list.landing {
                let first = s.list.view.iter().position(|&i| s.list.entries[i].is_reply());
                prop_assert_eq!((s.list.cursor, s.list.top), (first.unwrap_or(0), 0), "step {}: the top", n);
                continue;
            }
            // The selection stays (on a reply moved with its file too), unless it left the
            // view or a new reply is followed.
            if let Some(k) = selected
                && !following
                && let Some(i) = s.list.entries.iter().position(|e| arrival(e.key) == arrival(k))
                && s.list.view.contains(&i)
            {
                let now = s.list.entries[i].key;
                prop_assert_eq!(s.selected().map(|e| e.key), Some(now), "step {}: the selection", n);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn the_list_kept_is_the_list_sorted_in_full(
            steps in proptest::collection::vec(step(), 1..40),
            filter in filter(),
            sort in sort(),
        ) {
            check(steps, filter, sort)?;
        }
    }
}

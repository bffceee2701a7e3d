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
//! `State::work` counts what is looked at here (an entry compared, filtered or passed
//! over), so a test can hold the cost of a batch to its size without timing anything.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use crate::read::trace::DecidedBy;
use crate::readers::ReaderId;
use crate::reading::Config;

use super::entry::{Body, Entry, EntryKey};
use super::state::{SortKey, State};

/// How `a` and `b` (positions in `entries`) are ordered under `sort`. A total order: every
/// sort ends on a key or a position, so only an entry is equal to itself, and an entry's
/// place in the view is found by a binary search.
pub fn compare(entries: &[Entry], sort: &Sort, a: usize, b: usize) -> Ordering {
    let (x, y) = (&entries[a], &entries[b]);
    match sort.key {
        SortKey::Source => x.source.cmp(&y.source).then(x.line.cmp(&y.line)).then(x.key.cmp(&y.key)),
        SortKey::Size => y.size().cmp(&x.size()).then(a.cmp(&b)),
        SortKey::Outcome => (sort.rank(x), a).cmp(&(sort.rank(y), b)),
        SortKey::Time => ts(x).cmp(&ts(y)).then(x.key.cmp(&y.key)),
        SortKey::Document => place(x).cmp(&place(y)).then(ts(x).cmp(&ts(y))).then(x.key.cmp(&y.key)),
    }
}

/// Where an entry stands among documents: those of a document first, by round, document and
/// page (a document's calls with no page after its pages).
fn place(e: &Entry) -> (bool, Option<&str>, Option<&str>, bool, Option<u32>) {
    let m = e.meta();
    let doc = m.and_then(|m| m.document.as_deref());
    let page = m.and_then(|m| m.page);
    (doc.is_none(), m.and_then(|m| m.round.as_deref()), doc, page.is_none(), page)
}

/// A sort, with what the outcome sort reads an entry's badges by.
#[derive(Clone)]
pub struct Sort {
    pub key: SortKey,
    pub config: Arc<Config>,
    pub compared: ReaderId,
}

impl Sort {
    pub fn of(state: &State) -> Sort {
        Sort { key: state.sort, config: state.config.clone(), compared: state.compared }
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
/// asked for in `state.select`).
pub fn rebuild(state: &mut State) {
    state.view_dirty = false;
    let selected = state.select.take().or_else(|| state.selected().map(|e| e.key));
    let entries = &state.entries;
    let sort = Sort::of(state);
    let mut work = entries.len() as u64;
    let mut view: Vec<usize> = (0..entries.len())
        .filter(|&i| state.filter.admits(&entries[i], state.marks.contains_key(&entries[i].id), &state.config))
        .collect();
    view.sort_by(|&a, &b| {
        work += 1;
        compare(entries, &sort, a, b)
    });
    state.view = view;
    state.work += work;
    match selected {
        Some(k) => {
            if let Some(pos) = position(state, k) {
                state.cursor = pos;
            }
        }
        None => state.cursor = first_reply(state),
    }
}

/// Where the entry with key `k` is in the view, if it is there.
pub fn position(state: &mut State, k: EntryKey) -> Option<usize> {
    let &i = state.by_key.get(&k)?;
    let (entries, sort) = (&state.entries, Sort::of(state));
    let mut work = 0;
    let found = state.view.binary_search_by(|&v| {
        work += 1;
        compare(entries, &sort, v, i)
    });
    state.work += work;
    found.ok()
}

/// A reply of a bench campaign's document: what a person opening a directory of logs came
/// to see, before the odd files beside it.
fn in_campaign(e: &Entry) -> bool {
    e.is_reply() && e.meta().is_some_and(|m| m.document.is_some())
}

/// Nothing chosen yet: start on a reply, not on a load problem.
fn first_reply(state: &mut State) -> usize {
    let found = state.view.iter().position(|&i| state.entries[i].is_reply());
    state.work += found.map_or(state.view.len(), |p| p + 1) as u64;
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

fn standing(state: &State, i: usize) -> Standing {
    let e = &state.entries[i];
    Standing {
        admitted: state.filter.admits(e, state.is_marked(e), &state.config),
        rank: (state.sort == SortKey::Outcome).then(|| outcome_rank(e, &state.config, state.compared)),
        ts: if matches!(state.sort, SortKey::Time | SortKey::Document) { ts(e).map(str::to_owned) } else { None },
    }
}

/// The view kept up to date through one batch of changes: [`begin`](Self::begin) before
/// anything changes, [`touch`](Self::touch) before an entry listed before the batch
/// changes, [`finish`](Self::finish) once the batch is in.
#[derive(Debug)]
pub struct Kept {
    /// Entries from here on arrived in this batch.
    arrived: usize,
    /// Where the touched entries stood before the batch, by position.
    before: HashMap<usize, Standing>,
    /// Positions of entries that left the list (their file restarted, or back).
    dropped: Vec<usize>,
    /// Whether the view is to be sorted in full anyway.
    skip: bool,
    selected: Option<EntryKey>,
    top: Option<EntryKey>,
}

impl Kept {
    pub fn begin(state: &State) -> Kept {
        Kept {
            arrived: state.entries.len(),
            before: HashMap::new(),
            dropped: Vec::new(),
            skip: state.view_dirty,
            selected: state.selected().map(|e| e.key),
            top: state.view.get(state.list_top).and_then(|&i| state.entries.get(i)).map(|e| e.key),
        }
    }

    /// Notes where entry `i` stands, before it changes.
    pub fn touch(&mut self, state: &mut State, i: usize) {
        if self.skip || i >= self.arrived || self.before.contains_key(&i) {
            return;
        }
        state.work += 1;
        self.before.insert(i, standing(state, i));
    }

    /// Notes that entry `i` left the list (it is taken out of `entries` by `finish`).
    pub fn left(&mut self, i: usize) {
        self.dropped.push(i);
    }

    /// Takes the dropped entries out, then places what moved or arrived, and keeps the
    /// selected entry selected and the entry at the top of the list pane at the top.
    pub fn finish(mut self, state: &mut State) {
        let remap = self.close_gaps(state);
        if self.skip || state.view_dirty {
            return;
        }
        let at = |i: usize| remap.as_ref().map_or(Some(i), |r| r[i]);
        // What to take out of the view and what to merge in.
        let mut out = Vec::new();
        let mut add = Vec::new();
        for (&i, was) in &self.before {
            let Some(i) = at(i) else { continue };
            let now = standing(state, i);
            state.work += 1;
            if now != *was {
                if was.admitted {
                    out.push(i);
                }
                if now.admitted {
                    add.push(i);
                }
            }
        }
        let arrived = self.arrived - self.dropped.iter().filter(|&&d| d < self.arrived).count();
        for i in arrived..state.entries.len() {
            state.work += 1;
            let e = &state.entries[i];
            if state.filter.admits(e, state.is_marked(e), &state.config) {
                add.push(i);
            }
        }
        if !out.is_empty() {
            out.sort_unstable();
            state.work += state.view.len() as u64;
            state.view.retain(|i| out.binary_search(i).is_err());
        }
        // Nothing chosen yet: the first reply of a campaign, at the top of the list.
        let campaign: Vec<usize> = if state.landing {
            add.iter().copied().filter(|&i| in_campaign(&state.entries[i])).collect()
        } else {
            Vec::new()
        };
        merge(state, add);
        if state.select.is_none() && !campaign.is_empty() {
            let (entries, sort) = (&state.entries, Sort::of(state));
            let first = campaign.into_iter().min_by(|&a, &b| compare(entries, &sort, a, b));
            if let Some(k) = first.map(|i| state.entries[i].key) {
                let earlier = self.selected.and_then(|k| state.entry(k)).filter(|e| in_campaign(e));
                if earlier.is_none() {
                    state.select = Some(k);
                    self.top = Some(k);
                }
                state.landing = false;
            }
        }
        let target = state.select.take().or(self.selected);
        match target {
            Some(k) => {
                if let Some(pos) = position(state, k) {
                    state.cursor = pos;
                }
            }
            None => state.cursor = first_reply(state),
        }
        if let Some(k) = self.top
            && let Some(pos) = position(state, k)
        {
            state.list_top = pos;
        }
    }

    /// Takes the dropped entries out of `entries` and the view, in one pass; returns where
    /// each entry went, if any moved.
    fn close_gaps(&mut self, state: &mut State) -> Option<Vec<Option<usize>>> {
        if self.dropped.is_empty() {
            return None;
        }
        self.dropped.sort_unstable();
        self.dropped.dedup();
        let n = state.entries.len();
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
        state.entries.retain(|_| {
            i += 1;
            remap[i - 1].is_some()
        });
        let first = self.dropped[0];
        for (i, e) in state.entries.iter().enumerate().skip(first) {
            state.by_key.insert(e.key, i);
        }
        state.view.retain_mut(|v| match remap[*v] {
            Some(to) => {
                *v = to;
                true
            }
            None => false,
        });
        state.work += (n + state.view.len()) as u64;
        Some(remap)
    }
}

/// Merges `add` (positions not in the view) into the view, in order: the batch is sorted
/// alone, and each of its entries finds its place after the last one's by a binary search.
fn merge(state: &mut State, mut add: Vec<usize>) {
    if add.is_empty() {
        return;
    }
    let (entries, sort) = (&state.entries, Sort::of(state));
    let mut work = 0;
    let mut cmp = |a: usize, b: usize| {
        work += 1;
        compare(entries, &sort, a, b)
    };
    add.sort_by(|&a, &b| cmp(a, b));
    let view = &mut state.view;
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
    state.work += work;
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::PathBuf;

    use proptest::prelude::*;

    use super::super::badges::Badge;
    use super::super::message::{Incoming, Msg, Read};
    use super::super::update::update;
    use super::*;
    use crate::reading::Facts;
    use crate::runlog::{Diagnostic, Format, Item, Meta, Problem, Reply};
    use crate::scan::report::Row;

    fn reply(key: EntryKey, source: &str, line: usize, id: Option<&str>, text: &str, ts: Option<&str>) -> Entry {
        let mut meta = Meta::new(Format::RunLog);
        meta.agent = Some(if key % 3 == 0 { "page" } else { "feedback" }.to_owned());
        meta.ts = ts.map(str::to_owned);
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
        s.sort = sort;
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
            let before = s.work;
            update(&mut s, incoming(batch));
            halves[usize::from(b >= 100)] += s.work - before;
        }
        assert_eq!(s.view.len(), 20_000);
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
    const UNDER: [&str; 2] = ["logs/a", "logs"];
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
        /// A file, or a directory (past the files).
        Remove {
            path: usize,
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
            1 => f.prop_map(|file| Change::Restart { file }),
            1 => (0..FILES.len() + UNDER.len()).prop_map(|path| Change::Remove { path }),
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
            source: e.source.clone(),
            line: e.line,
            id: e.id.clone(),
            gone: e.gone,
            new: e.new,
            ts: e.meta().and_then(|m| m.ts.clone()),
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
                        if let Some(i) =
                            self.entries.iter().position(|x| x.gone && x.id == p.id && x.source == p.source)
                        {
                            self.entries.remove(i);
                        }
                        self.entries.push(p);
                    }
                    Incoming::Amended { source, line, meta } => {
                        if let Some(e) = self.entries.iter_mut().find(|e| e.source == *source && e.line == Some(*line))
                        {
                            // A load problem has no metadata to amend.
                            if !e.problem {
                                e.ts = meta.ts.clone();
                            }
                        }
                    }
                    Incoming::Restarted { source } => {
                        for e in self.entries.iter().filter(|e| e.source == *source) {
                            self.restarted.insert(e.id.clone());
                        }
                        self.entries.retain(|e| e.source != *source);
                    }
                    Incoming::Removed { source } => {
                        for e in self.entries.iter_mut().filter(|e| e.source.starts_with(source)) {
                            e.gone = true;
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
                    meta.ts = ts_of(ts);
                    Incoming::Amended { source: FILES[file].into(), line, meta: Box::new(meta) }
                }
                Change::Restart { file } => Incoming::Restarted { source: FILES[file].into() },
                Change::Remove { path } => {
                    let p = if path < FILES.len() { FILES[path] } else { UNDER[path - FILES.len()] };
                    Incoming::Removed { source: p.into() }
                }
            })
            .collect()
    }

    /// The view as a full filter and sort makes it.
    fn sorted_in_full(s: &State) -> Vec<usize> {
        let mut view: Vec<usize> =
            (0..s.entries.len()).filter(|&i| s.filter.admits(&s.entries[i], false, &s.config)).collect();
        let sort = Sort::of(s);
        view.sort_by(|&a, &b| compare(&s.entries, &sort, a, b));
        view
    }

    fn check(steps: Vec<Step>, filter: Option<Badge>, sort: SortKey) -> Result<(), TestCaseError> {
        let mut s = state();
        s.sort = sort;
        s.filter.on.extend(filter);
        let mut model = Model::default();
        let mut held: Vec<Incoming> = Vec::new();
        let mut next_key = 0;
        let mut initial = true;
        for (n, step) in steps.into_iter().enumerate() {
            let selected = s.selected().map(|e| e.key);
            let following = s.follow;
            match step {
                Step::Batch(changes) => {
                    let batch = batch_of(&changes, &mut next_key);
                    if s.paused && !initial {
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
                        .filter_map(|&p| s.entries.get(p % s.entries.len().max(1)))
                        .filter_map(|e| {
                            let (facts, _) = Facts::early(e.held_text()?, false, &config);
                            Some(Read { key: e.key, facts, sketch: None, html: None })
                        })
                        .collect();
                    update(&mut s, Msg::Facts(list));
                }
                Step::Key(c) => {
                    if c == 'p' && s.paused {
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
            let got: Vec<Plain> = s.entries.iter().map(plain).collect();
            prop_assert_eq!(&got, &model.entries, "step {}: the entries", n);
            for (i, e) in s.entries.iter().enumerate() {
                prop_assert_eq!(s.by_key.get(&e.key), Some(&i), "step {}: by_key", n);
            }
            prop_assert_eq!(s.by_key.len(), s.entries.len());
            prop_assert_eq!(&s.view, &sorted_in_full(&s), "step {}: the view", n);
            // The selection stays, unless it left the view or a new reply is followed.
            if let Some(k) = selected
                && !following
                && let Some(&i) = s.by_key.get(&k)
                && s.view.contains(&i)
            {
                prop_assert_eq!(s.selected().map(|e| e.key), Some(k), "step {}: the selection", n);
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

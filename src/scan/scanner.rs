//! The scan's result and the fold that builds it, one reply at a time or a batch at a time
//! in parallel; either way in the order the replies were given, so two scans of the same
//! input are the same result.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;

use crate::analysis::{Class, Config, Facts, Flag, Pair, Raised, flags};
use crate::exact::trace::{DecidedBy, Verdict};
use crate::logs::{Diagnostic, Event, Item, Name, Reply};
use crate::query::Query;
use crate::readers::pending::Answered;
use crate::readers::{Outcome, ReaderId, ReaderProblem};

use super::pages::{Call, Fraction, Pages, seed_page_size};
use super::row::Row;

/// The group key of a reply whose record does not say (no agent, no round).
pub const NONE_KEY: &str = "(none)";

/// A reply, as a scan names it. Replies are numbered in the order they were added; every
/// list of replies in a [`Scan`] holds those numbers, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyName {
    /// Shared with the reply's facts (and, in the inspector, its entry).
    pub id: Name,
    /// `PATH:LINE` where that is not the id.
    pub reference: Option<Name>,
}

/// What raised a flag on a reply, as a scan keeps it: the raising, put in words only when
/// shown (a hard campaign raises one or two flags a reply, whose sentences run to some 130
/// bytes, and the raising shares its names and accounts with the reply's facts), or the
/// words a listing gave for it (a merge of shards). Two are equal when their words are.
#[derive(Debug, Clone)]
pub enum Raising {
    Raised(Raised),
    Said(Box<str>),
}

impl Raising {
    /// What raised the flag, in words ([`flags::explain`]).
    pub fn sentence(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Raising::Raised(r) => flags::explain(r).into(),
            Raising::Said(s) => (&**s).into(),
        }
    }
}

impl PartialEq for Raising {
    fn eq(&self, other: &Raising) -> bool {
        match (self, other) {
            (Raising::Raised(a), Raising::Raised(b)) => a == b || flags::explain(a) == flags::explain(b),
            _ => self.sentence() == other.sentence(),
        }
    }
}

impl Eq for Raising {}

/// The replies of one agent, round or format.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Group {
    pub replies: Vec<usize>,
    pub bytes: u64,
    /// How many of them the seed decided each way, in [`DecidedBy::ALL`] order.
    pub decided_by: [usize; 4],
}

/// What the repair does: the seed against a walk that never repairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repair {
    /// Replies a strict-only walk reads nothing from.
    pub strict_unreadable: Vec<usize>,
    /// Of those, the ones the seed reads.
    pub rescued: Vec<usize>,
    /// Replies a strict-only walk reads, where the seed reads something else.
    pub changed: Vec<usize>,
}

/// One array field whose `]` never came.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Truncation {
    pub field: String,
    /// Each reply, with the complete entries `readArrayPrefix` recovers from it.
    pub replies: Vec<(usize, usize)>,
    /// Those entries, all together.
    pub entries: usize,
}

/// One reply two readers disagree on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub reply: usize,
    /// Which of them reads where the other reads nothing, if either.
    pub class: Class,
    /// From the pair's first reader's answer to its second's; shared with the reply's facts.
    pub account: Name,
}

/// The outcomes of a command reader's answers that are not a value and say why, in the order
/// a report gives them.
pub const NOTED: [Outcome; 3] = [Outcome::Threw, Outcome::NotJson, Outcome::Failed];

/// The replies a command reader gave no value for, and what it said of each; and what went
/// wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderNotes {
    pub reader: ReaderId,
    /// In [`NOTED`] order (threw, not JSON, failed): each reply, with what it threw, the text
    /// it returned, or why it gave no answer (its error, or its failure at it or before it).
    pub replies: [Vec<(usize, Arc<str>)>; 3],
    /// Its problems, in the order they came: each a diagnostic of the scan.
    pub problems: Vec<ReaderProblem>,
}

/// An input, or a part of one, that a scan could not read: a diagnostic of the scan.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InputDiagnostic {
    /// As the loader said it, or as a shard's JSON gives it back (`scan --merge`), which
    /// writes it whole (`ids.unread`).
    Loaded(Diagnostic),
}

impl fmt::Display for InputDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputDiagnostic::Loaded(d) => d.fmt(f),
        }
    }
}

/// One diagnostic of a scan: an input it could not read, or a reader of one's own that went
/// wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanDiagnostic<'a> {
    Input(&'a InputDiagnostic),
    Reader(&'a ReaderProblem),
}

impl fmt::Display for ScanDiagnostic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanDiagnostic::Input(d) => d.fmt(f),
            ScanDiagnostic::Reader(p) => p.fmt(f),
        }
    }
}

impl ReaderNotes {
    /// The replies it gave this outcome for (none for a value or nothing read).
    pub fn of(&self, outcome: Outcome) -> &[(usize, Arc<str>)] {
        NOTED.iter().position(|&o| o == outcome).map_or(&[], |i| self.replies[i].as_slice())
    }
}

/// Two readers over the corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    pub pair: Pair,
    pub differ: Vec<Difference>,
}

impl Comparison {
    /// How many replies differ this way.
    pub fn count(&self, class: Class) -> usize {
        self.differ.iter().filter(|d| d.class == class).count()
    }

    /// The replies that differ this way, in scan order.
    pub fn of(&self, class: Class) -> impl Iterator<Item = &Difference> {
        self.differ.iter().filter(move |d| d.class == class)
    }
}

/// Everything a scan counted, with the replies behind each number.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    pub config: Config,
    pub replies: Vec<ReplyName>,
    pub bytes: u64,
    /// Model calls that left no reply (a truncated or failed call), by id.
    pub calls_without_reply: Vec<String>,
    /// What could not be read, in the order it was loaded. The readers' problems are with
    /// their notes ([`ReaderNotes::problems`]); [`Scan::diagnostics`] gives both.
    pub unread: Vec<InputDiagnostic>,
    /// By agent, round and record format; a reply with no agent or round is under
    /// [`NONE_KEY`].
    pub by_agent: BTreeMap<String, Group>,
    pub by_round: BTreeMap<String, Group>,
    pub by_format: BTreeMap<String, Group>,
    /// How the seed decided, in [`DecidedBy::ALL`] order.
    pub decided_by: [Vec<usize>; 4],
    /// The seed's whole-reply verdicts, in [`Verdict::ALL`] order.
    pub whole_reply: [Vec<usize>; 5],
    pub repair: Repair,
    /// Replies cut off: their record says the output ceiling stopped them, or they open an
    /// object that never closes.
    pub cut_off: Vec<usize>,
    /// One per configured array field, in the config's order.
    pub truncation: Vec<Truncation>,
    /// One per configured pair, in the config's order.
    pub comparisons: Vec<Comparison>,
    /// One per command reader the pairs compare ([`Config::commands`]), in catalogue order.
    pub noted: Vec<ReaderNotes>,
    /// The replies each risk flag is raised on, in [`Flag::ALL`] order, each with what
    /// raised it, in words.
    pub flags: [Vec<(usize, Raising)>; Flag::ALL.len()],
    /// The calls of bench documents' pages, each counted reply named by its number: what the
    /// `page-shrank` flag is raised from once every round is in ([`Scan::settle_pages`]).
    pub pages: Pages<usize>,
    /// The least part of its size in the round before a page's final answer may deliver.
    pub fraction: Fraction,
    /// How long the scan took, where its driver timed it.
    pub elapsed: Option<Duration>,
    /// How long the scan waited on readers of one's own for answers it had no other work
    /// beside (part of `elapsed`).
    pub readers_answering: Duration,
    /// The whole command's time, readers of one's own started before the scan among it, and
    /// how long starting them took, where the command timed them.
    pub whole: Option<Whole>,
    /// What a scan put together from counts holds beyond its lists (a merge of shards that
    /// lists nothing): empty for a scan that read its replies.
    pub unlisted: Unlisted,
}

/// A command's whole wall time, beside the scan's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Whole {
    /// From the command's start to its report.
    pub wall: Duration,
    /// Starting readers of one's own, before the scan (their runners loading the extractor).
    pub readers_starting: Duration,
}

/// The replies a scan counts but does not list: a merge that prints no listing keeps the
/// counts of its shards and not their ids, so that its memory is its differences and
/// diagnostics, not its replies. Every count of a row is its list and these.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unlisted {
    /// Replies not in [`Scan::replies`] (which then names only the replies a list holds).
    pub replies: usize,
    pub calls_without_reply: usize,
    /// Each row's replies not in its list ([`Row::count`] adds them).
    pub rows: BTreeMap<Row, usize>,
}

impl Scan {
    pub fn new(config: Config) -> Scan {
        Scan {
            truncation: config
                .fields
                .iter()
                .map(|f| Truncation { field: f.clone(), ..Truncation::default() })
                .collect(),
            comparisons: config.pairs.iter().map(|&pair| Comparison { pair, differ: Vec::new() }).collect(),
            noted: config
                .commands()
                .into_iter()
                .map(|reader| ReaderNotes { reader, replies: Default::default(), problems: Vec::new() })
                .collect(),
            config,
            replies: Vec::new(),
            bytes: 0,
            calls_without_reply: Vec::new(),
            unread: Vec::new(),
            by_agent: BTreeMap::new(),
            by_round: BTreeMap::new(),
            by_format: BTreeMap::new(),
            decided_by: Default::default(),
            whole_reply: Default::default(),
            repair: Repair::default(),
            cut_off: Vec::new(),
            flags: Default::default(),
            pages: Pages::default(),
            fraction: Fraction::HALF,
            elapsed: None,
            unlisted: Unlisted::default(),
            readers_answering: Duration::ZERO,
            whole: None,
        }
    }

    /// How many replies the scan counted, listed or not.
    pub fn reply_count(&self) -> usize {
        self.replies.len() + self.unlisted.replies
    }

    /// How many calls left no reply, listed or not.
    pub fn calls_without_reply_count(&self) -> usize {
        self.calls_without_reply.len() + self.unlisted.calls_without_reply
    }

    /// Raises `page-shrank` on the final answers of pages lost since an earlier round, from
    /// every page call gathered: once the scan has every round (the flag's list is made anew).
    pub fn settle_pages(&mut self) {
        let history = self.pages.history(self.fraction);
        let mut raised: Vec<(usize, Raising)> = history
            .losses
            .iter()
            .filter_map(|l| Some((l.reply?, Raising::Raised(l.raised()))))
            .filter(|(i, _)| *i < self.replies.len())
            .collect();
        raised.sort_by_key(|(i, _)| *i);
        self.flags[Flag::PageShrank.index()] = raised;
    }

    /// Every diagnostic: the inputs' that could not be read, in load order, then each
    /// command reader's problems, in catalogue order.
    pub fn diagnostics(&self) -> impl Iterator<Item = ScanDiagnostic<'_>> {
        let readers = self.noted.iter().flat_map(|n| n.problems.iter().map(ScanDiagnostic::Reader));
        self.unread.iter().map(ScanDiagnostic::Input).chain(readers)
    }

    /// How many diagnostics there are ([`Scan::diagnostics`]).
    pub fn diagnostic_count(&self) -> usize {
        self.unread.len() + self.noted.iter().map(|n| n.problems.len()).sum::<usize>()
    }

    /// The id of reply `index`.
    pub fn id(&self, index: usize) -> &str {
        self.replies.get(index).map_or("", |r| &*r.id)
    }

    /// The replies the seed decided this way.
    pub fn decided(&self, by: DecidedBy) -> &[usize] {
        self.decided_by.get(by.index()).map_or(&[], Vec::as_slice)
    }

    /// The replies with this whole-reply verdict.
    pub fn verdict(&self, v: Verdict) -> &[usize] {
        self.whole_reply.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// The replies the flag is raised on, with what raised it.
    pub fn flagged(&self, flag: Flag) -> &[(usize, Raising)] {
        self.flags.get(flag.index()).map_or(&[], Vec::as_slice)
    }

    /// What command reader `reader` said of the replies it gave no value for, if the scan
    /// ran it.
    pub fn notes(&self, reader: ReaderId) -> Option<&ReaderNotes> {
        self.noted.iter().find(|n| n.reader == reader)
    }

    /// The comparison of this pair, if the scan made it.
    pub fn comparison(&self, key: &str) -> Option<&Comparison> {
        self.comparisons.iter().find(|c| self.config.key(&c.pair) == key)
    }

    /// Folds in one reply's facts, after those before it (what [`Scanner::add_facts`] does;
    /// the inspector folds its summary on with it).
    pub(crate) fn add(&mut self, f: Facts) {
        let index = self.replies.len();
        let decided = f.decided_by.index();
        let agent = f.agent.as_deref().unwrap_or(NONE_KEY).to_owned();
        let round = f.round.as_deref().unwrap_or(NONE_KEY).to_owned();
        for (groups, key) in [
            (&mut self.by_agent, agent),
            (&mut self.by_round, round),
            (&mut self.by_format, f.format.name().to_owned()),
        ] {
            let g = groups.entry(key).or_default();
            g.replies.push(index);
            g.bytes += f.bytes as u64;
            g.decided_by[decided] += 1;
        }
        self.bytes += f.bytes as u64;
        self.decided_by[decided].push(index);
        self.whole_reply[f.verdict.index()].push(index);
        if f.cut_off {
            self.cut_off.push(index);
        }
        if !f.strict_reads {
            self.repair.strict_unreadable.push(index);
            if f.reads {
                self.repair.rescued.push(index);
            }
        }
        if f.repair_changed {
            self.repair.changed.push(index);
        }
        for (field, entries) in f.cut {
            if let Some(t) = self.truncation.get_mut(field) {
                t.replies.push((index, entries));
                t.entries += entries;
            }
        }
        for (pair, class, account) in f.differences {
            if let Some(c) = self.comparisons.get_mut(pair) {
                c.differ.push(Difference { reply: index, class, account });
            }
        }
        for raised in f.flags {
            if let Some(list) = self.flags.get_mut(raised.flag().index()) {
                list.push((index, Raising::Raised(raised)));
            }
        }
        for n in f.noted {
            let at = NOTED.iter().position(|&o| o == n.outcome);
            if let (Some(r), Some(at)) = (self.noted.iter_mut().find(|r| r.reader == n.reader), at) {
                r.replies[at].push((index, n.note));
            }
        }
        self.replies.push(ReplyName { id: f.id, reference: f.reference });
    }

    /// Counts one reply's facts after those before it, as `Scan::add` would, without
    /// listing it: each row it would be listed under counts it in [`Scan::unlisted`], and
    /// the scan keeps no number, name, account or raised flag of it. What the inspector's
    /// summary folds, so that its memory does not grow with lists of every reply; it finds
    /// the replies of the rows it shows among its entries ([`Row::said`]).
    /// [`Scan::into_counts`] is the same scan made from the lists.
    pub fn count(&mut self, f: &Facts) {
        let decided = f.decided_by.index();
        let agent = f.agent.as_deref().unwrap_or(NONE_KEY).to_owned();
        let round = f.round.as_deref().unwrap_or(NONE_KEY).to_owned();
        let format = f.format.name().to_owned();
        for (groups, key) in
            [(&mut self.by_agent, &agent), (&mut self.by_round, &round), (&mut self.by_format, &format)]
        {
            let g = groups.entry(key.clone()).or_default();
            g.bytes += f.bytes as u64;
            g.decided_by[decided] += 1;
        }
        self.bytes += f.bytes as u64;
        let mut rows = vec![
            Row::Agent(agent),
            Row::Round(round),
            Row::Format(format),
            Row::Decided(f.decided_by),
            Row::Verdict(f.verdict),
        ];
        if f.cut_off {
            rows.push(Row::CutOff);
        }
        if !f.strict_reads {
            rows.push(Row::StrictUnreadable);
            if f.reads {
                rows.push(Row::Rescued);
            }
        }
        if f.repair_changed {
            rows.push(Row::RepairChanged);
        }
        for &(field, entries) in &f.cut {
            if let Some(t) = self.truncation.get_mut(field) {
                t.entries += entries;
                rows.push(Row::Truncated(field));
            }
        }
        for &(pair, class, _) in &f.differences {
            if pair < self.comparisons.len() {
                rows.extend([Row::Differs(pair), Row::Class(pair, class)]);
            }
        }
        rows.extend(f.flags.iter().map(|r| Row::Flag(r.flag())));
        for n in &f.noted {
            if NOTED.contains(&n.outcome) && self.noted.iter().any(|r| r.reader == n.reader) {
                rows.push(Row::Reader(n.reader, n.outcome));
            }
        }
        for row in rows {
            *self.unlisted.rows.entry(row).or_default() += 1;
        }
        self.unlisted.replies += 1;
    }
}

/// Builds a [`Scan`]. Feed it replies (one at a time, or in batches read in parallel),
/// calls without a reply and diagnostics, in the order they were loaded; read the result
/// so far at any point (a progress screen) or take it at the end.
#[derive(Debug, Clone)]
pub struct Scanner {
    scan: Scan,
    /// Only the replies (and calls without a reply) this query selects are counted.
    only: Option<Query>,
    /// What a query on the risk flags decides once every round is in (`page-shrank` is
    /// raised over them), in load order.
    held: Vec<Held>,
}

/// A reply or a call kept for a query that reads the risk flags.
#[derive(Debug, Clone)]
enum Held {
    Reply { reply: Box<Reply>, facts: Box<Facts>, html: Option<usize>, text: bool },
    Event(Box<Event>),
}

impl Scanner {
    pub fn new(config: Config) -> Scanner {
        Scanner { scan: Scan::new(config), only: None, held: Vec::new() }
    }

    /// A scanner that counts only what `query` selects (`--filter`): each reply is read,
    /// for the facts the query may need, and then counted or passed over.
    pub fn only(config: Config, query: Option<Query>) -> Scanner {
        Scanner { scan: Scan::new(config), only: query.filter(|q| !q.is_empty()), held: Vec::new() }
    }

    pub fn config(&self) -> &Config {
        &self.scan.config
    }

    /// Folds in one reply's facts (made by [`Facts::of`] with this scanner's config, on any
    /// thread; complete). Facts made under another config are counted under the wrong pairs.
    pub fn add_facts(&mut self, facts: Facts) {
        self.scan.add(facts);
    }

    pub fn add_reply(&mut self, reply: &Reply) {
        let read = read(reply, &self.scan.config, &[]);
        self.add_read(reply, read);
    }

    /// Reads the replies in parallel, and folds them in in the order given.
    pub fn add_replies(&mut self, replies: &[Reply]) {
        let config = &self.scan.config;
        let read: Vec<(Facts, Option<usize>)> = replies.par_iter().map(|r| read(r, config, &[])).collect();
        for (r, read) in replies.iter().zip(read) {
            self.add_read(r, read);
        }
    }

    /// One reply read, counted, and its page call noted.
    fn add_read(&mut self, reply: &Reply, (facts, html): (Facts, Option<usize>)) {
        let index = self.scan.replies.len();
        self.scan.add(facts);
        self.scan.pages.calls.extend(Call::of(&reply.meta, Some(index), true, html));
    }

    pub fn add_call_without_reply(&mut self, event: &Event) {
        self.scan.calls_without_reply.push(event.id.clone());
        self.scan.pages.calls.extend(Call::of(&event.meta, None, false, None));
    }

    pub fn add_diagnostic(&mut self, d: &Diagnostic) {
        self.scan.unread.push(InputDiagnostic::Loaded(d.clone()));
    }

    /// A problem of a command reader the scan runs, with its notes. One the scan does not
    /// compare has no notes to join: it is not run.
    pub fn add_problem(&mut self, problem: ReaderProblem) {
        if let Some(n) = self.scan.noted.iter_mut().find(|n| n.reader == problem.reader) {
            n.problems.push(problem);
        }
    }

    /// Loaded items, their replies read in parallel, everything folded in in order; `given`,
    /// the command readers' answers for the replies among the items, one entry per reply in
    /// order (missing entries, or none: no answers given).
    pub fn add_items(&mut self, items: &[Item], given: Vec<Answered>) {
        let config = &self.scan.config;
        let mut given = given.into_iter();
        let replies: Vec<(&Item, Answered)> = items
            .iter()
            .map(|item| match item {
                Item::Reply(_) => (item, given.next().unwrap_or_default()),
                _ => (item, Vec::new()),
            })
            .collect();
        let mut facts: Vec<Option<(Facts, Option<usize>)>> = replies
            .par_iter()
            .map(|(item, given)| match item {
                Item::Reply(r) => Some(read(r, config, given)),
                _ => None,
            })
            .collect();
        // Taken while the scan is added to, and put back.
        let only = self.only.take();
        if let Some(q) = only.as_ref().filter(|q| q.reads_flags()) {
            for (item, f) in items.iter().zip(facts.iter_mut()) {
                match (item, f.take()) {
                    (Item::Reply(r), Some((facts, html))) => {
                        // The text is not kept: what its terms make of it is.
                        let text = q.text(Some(&r.text)).holds;
                        let reply = Box::new(Reply { text: String::new(), ..r.clone() });
                        let size = r.text.len();
                        self.held.push(Held::Reply {
                            reply,
                            facts: Box::new(Facts { bytes: size, ..facts }),
                            html,
                            text,
                        });
                    }
                    (Item::Event(e), _) => self.held.push(Held::Event(Box::new(e.clone()))),
                    (Item::Diagnostic(d), _) => self.add_diagnostic(d),
                    _ => {}
                }
            }
            self.only = only;
            return;
        }
        for (item, f) in items.iter().zip(facts.iter_mut()) {
            match (item, f.take()) {
                // Passed over, its page's call is still one of the page's: it may be the
                // final answer another round's is compared with.
                (Item::Reply(r), Some((f, html))) if only.as_ref().is_some_and(|q| !q.matches_reply(r, Some(&f))) => {
                    self.scan.pages.calls.extend(Call::of(&r.meta, None, true, html));
                }
                (Item::Event(e), None) if only.as_ref().is_some_and(|q| !q.matches_event(e)) => {
                    self.scan.pages.calls.extend(Call::of(&e.meta, None, false, None));
                }
                (Item::Reply(r), Some(read)) => self.add_read(r, read),
                (Item::Event(e), None) => self.add_call_without_reply(e),
                (Item::Diagnostic(d), None) => self.add_diagnostic(d),
                (_, _) => {}
            }
        }
        self.only = only;
    }

    pub fn scan(&self) -> &Scan {
        &self.scan
    }

    /// The scan of everything given: the flags raised over the rounds are raised now.
    pub fn finish(mut self) -> Scan {
        self.select_held();
        self.scan.settle_pages();
        self.scan
    }

    /// Raises `page-shrank` over everything held, then counts what the query selects.
    fn select_held(&mut self) {
        let (Some(q), false) = (self.only.take(), self.held.is_empty()) else { return };
        let held = std::mem::take(&mut self.held);
        let mut pages = Pages::default();
        for (i, h) in held.iter().enumerate() {
            match h {
                Held::Reply { reply, html, .. } => pages.calls.extend(Call::of(&reply.meta, Some(i), true, *html)),
                Held::Event(e) => pages.calls.extend(Call::of(&e.meta, None, false, None)),
            }
        }
        let mut raised: Vec<Vec<crate::analysis::Raised>> = vec![Vec::new(); held.len()];
        for l in pages.history(self.scan.fraction).losses {
            if let Some(i) = l.reply {
                raised[i].push(l.raised());
            }
        }
        for (h, raised) in held.into_iter().zip(raised) {
            match h {
                Held::Reply { reply, mut facts, html, text } => {
                    facts.flags.extend(raised);
                    let reference = reply.reference();
                    let s = crate::query::Subject {
                        id: &reply.id,
                        reference: &reference,
                        meta: Some(&reply.meta),
                        size: Some(facts.bytes),
                        facts: crate::query::Known::Yes(&facts),
                    };
                    let selected = q.fields(&s) == Some(true) && text;
                    facts.flags.retain(|r| r.flag() != Flag::PageShrank);
                    if selected {
                        let index = self.scan.replies.len();
                        self.scan.add(*facts);
                        self.scan.pages.calls.extend(Call::of(&reply.meta, Some(index), true, html));
                    } else {
                        self.scan.pages.calls.extend(Call::of(&reply.meta, None, true, html));
                    }
                }
                Held::Event(e) if q.matches_event(&e) => self.add_call_without_reply(&e),
                Held::Event(e) => self.scan.pages.calls.extend(Call::of(&e.meta, None, false, None)),
            }
        }
        self.only = Some(q);
    }
}

/// A reply's facts, and for a call of a bench document's page the characters of page its
/// answer delivers ([`super::pages::page_size`]): the seed's answer read once for both.
pub fn read(reply: &Reply, config: &Config, given: &[(ReaderId, crate::readers::Given)]) -> (Facts, Option<usize>) {
    let mut partial = Facts::start(&reply.text, reply.meta.stop == crate::logs::StopReason::Truncated, config);
    let html = match (&reply.meta.document, reply.meta.page) {
        (Some(_), Some(_)) => seed_page_size(&mut partial),
        _ => None,
    };
    (partial.finish(given).named(reply), html)
}

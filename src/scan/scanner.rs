//! The scan's result and the fold that builds it, one reply at a time or a batch at a time
//! in parallel; either way in the order the replies were given, so two scans of the same
//! input are the same result.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;

use crate::query::Query;
use crate::read::trace::{DecidedBy, Verdict};
use crate::readers::pending::Answered;
use crate::readers::{Outcome, ReaderId, ReaderProblem};
use crate::reading::{Class, Config, Facts, Flag, Pair, flags};
use crate::runlog::{Diagnostic, Event, Item, Reply};

/// The group key of a reply whose record does not say (no agent, no round).
pub const NONE_KEY: &str = "(none)";

/// A reply, as a scan names it. Replies are numbered in the order they were added; every
/// list of replies in a [`Scan`] holds those numbers, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyName {
    pub id: String,
    /// `PATH:LINE` where that is not the id.
    pub reference: Option<String>,
}

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
    /// From the pair's first reader's answer to its second's.
    pub account: String,
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputDiagnostic {
    /// As the loader said it.
    Loaded(Diagnostic),
    /// As a shard's JSON gives it (`scan --merge`), which is the text it printed.
    Merged(String),
}

impl fmt::Display for InputDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputDiagnostic::Loaded(d) => d.fmt(f),
            InputDiagnostic::Merged(text) => f.write_str(text),
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
    pub flags: [Vec<(usize, String)>; 5],
    /// How long the scan took, where its driver timed it.
    pub elapsed: Option<Duration>,
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
            elapsed: None,
        }
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
        self.replies.get(index).map_or("", |r| r.id.as_str())
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
    pub fn flagged(&self, flag: Flag) -> &[(usize, String)] {
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
        let agent = f.agent.unwrap_or_else(|| NONE_KEY.to_owned());
        let round = f.round.unwrap_or_else(|| NONE_KEY.to_owned());
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
        for raised in &f.flags {
            if let Some(list) = self.flags.get_mut(raised.flag().index()) {
                list.push((index, flags::explain(raised)));
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
}

/// Builds a [`Scan`]. Feed it replies (one at a time, or in batches read in parallel),
/// calls without a reply and diagnostics, in the order they were loaded; read the result
/// so far at any point (a progress screen) or take it at the end.
#[derive(Debug, Clone)]
pub struct Scanner {
    scan: Scan,
    /// Only the replies (and calls without a reply) this query selects are counted.
    only: Option<Query>,
}

impl Scanner {
    pub fn new(config: Config) -> Scanner {
        Scanner { scan: Scan::new(config), only: None }
    }

    /// A scanner that counts only what `query` selects (`--filter`): each reply is read,
    /// for the facts the query may need, and then counted or passed over.
    pub fn only(config: Config, query: Option<Query>) -> Scanner {
        Scanner { scan: Scan::new(config), only: query.filter(|q| !q.is_empty()) }
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
        let facts = Facts::of(reply, &self.scan.config, &[]);
        self.scan.add(facts);
    }

    /// Reads the replies in parallel, and folds them in in the order given.
    pub fn add_replies(&mut self, replies: &[Reply]) {
        let config = &self.scan.config;
        let facts: Vec<Facts> = replies.par_iter().map(|r| Facts::of(r, config, &[])).collect();
        for f in facts {
            self.scan.add(f);
        }
    }

    pub fn add_call_without_reply(&mut self, event: &Event) {
        self.scan.calls_without_reply.push(event.id.clone());
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
        let mut facts: Vec<Option<Facts>> = replies
            .par_iter()
            .map(|(item, given)| match item {
                Item::Reply(r) => Some(Facts::of(r, config, given)),
                _ => None,
            })
            .collect();
        // Taken while the scan is added to, and put back.
        let only = self.only.take();
        for (item, f) in items.iter().zip(facts.iter_mut()) {
            match (item, f.take()) {
                (Item::Reply(r), Some(f)) if only.as_ref().is_some_and(|q| !q.matches_reply(r, Some(&f))) => {}
                (Item::Event(e), None) if only.as_ref().is_some_and(|q| !q.matches_event(e)) => {}
                (_, Some(f)) => self.scan.add(f),
                (Item::Event(e), None) => self.add_call_without_reply(e),
                (Item::Diagnostic(d), None) => self.add_diagnostic(d),
                (Item::Reply(_), None) => {}
            }
        }
        self.only = only;
    }

    pub fn scan(&self) -> &Scan {
        &self.scan
    }

    pub fn finish(self) -> Scan {
        self.scan
    }
}

//! The report a scan is shown as: its sections, each row's label, and the predicate that
//! puts a reply behind it, written once. `bracewalk scan`'s table, `--markdown` and `--json`,
//! and the inspector's summary screen and filters are views of these rows, so a row's count,
//! the ids `--list` prints under it, and the replies Enter lists on the summary screen are
//! the same replies by construction.

use std::collections::BTreeMap;

use crate::analysis::{Class, Config, Facts, Flag, Pair, flags};
use crate::describe::{percent, plural, thousands};
use crate::exact::trace::{DecidedBy, Verdict};
use crate::logs::Name;
use crate::readers::{Outcome, ReaderId};
use crate::visible::visible;

use super::pages::Pages;
pub use super::row::Row;
use super::scanner::{Comparison, Difference, Group, NONE_KEY, NOTED, Repair, Scan};

/// How a section's rows are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Groups of replies (an agent, a round, a format), each with how the seed decided.
    Groups,
    /// Counts, each a share of the replies.
    Counts,
    /// Reader comparisons, each with its accounts.
    Comparisons,
}

/// A titled group of rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: &'static str,
    pub kind: Kind,
    pub rows: Vec<Row>,
}

/// The sections of the report, in the order they are shown (a table shows the groups first,
/// together).
pub fn sections(scan: &Scan) -> Vec<Section> {
    let groups = |map: &BTreeMap<String, Group>, make: fn(String) -> Row| map.keys().cloned().map(make).collect();
    let fields = scan.config.fields.len();
    let mut sections = vec![
        Section {
            title: "how last-wins decided",
            kind: Kind::Counts,
            rows: DecidedBy::ALL.into_iter().map(Row::Decided).collect(),
        },
        Section {
            title: "the whole-reply attempt",
            kind: Kind::Counts,
            rows: Verdict::ALL.into_iter().map(Row::Verdict).collect(),
        },
        Section { title: "by agent", kind: Kind::Groups, rows: groups(&scan.by_agent, Row::Agent) },
        Section { title: "by round", kind: Kind::Groups, rows: rounds(scan).into_iter().map(Row::Round).collect() },
        Section { title: "by format", kind: Kind::Groups, rows: groups(&scan.by_format, Row::Format) },
        Section {
            title: "repair",
            kind: Kind::Counts,
            rows: vec![Row::StrictUnreadable, Row::Rescued, Row::RepairChanged],
        },
        Section {
            title: "truncation",
            kind: Kind::Counts,
            rows: std::iter::once(Row::CutOff).chain((0..fields).map(Row::Truncated)).collect(),
        },
        Section { title: "risk flags", kind: Kind::Counts, rows: Flag::ALL.into_iter().map(Row::Flag).collect() },
        Section {
            title: COMPARISONS,
            kind: Kind::Comparisons,
            rows: (0..scan.comparisons.len()).map(Row::Differs).collect(),
        },
    ];
    if !scan.noted.is_empty() {
        // Only where readers of one's own run: no built-in reader throws or fails.
        let rows = scan.noted.iter().flat_map(|n| NOTED.into_iter().map(move |o| Row::Reader(n.reader, o))).collect();
        sections.push(Section { title: READERS, kind: Kind::Counts, rows });
    }
    sections
}

/// The title of the readers of one's own: what each called, then what each threw, returned
/// and failed on.
pub const READERS: &str = "readers of your own";

/// The scan's rounds, in natural order (`round-2` before `round-10`): the order every view of
/// rounds shows them in.
pub fn rounds(scan: &Scan) -> Vec<String> {
    let mut names: Vec<String> = scan.by_round.keys().cloned().collect();
    names.sort_by(|a, b| crate::natural::cmp(a, b));
    names
}

/// The comparisons' title: what the classes mean.
pub const COMPARISONS: &str = "reader comparisons (A → B: gained, B reads what A does not; lost, A reads what B does not; changed, both read, otherwise)";

/// What the comparison of pair `p` comes to, in the seed's words: `mine → last-wins: 188 read
/// differently: 150 gained (last-wins reads, mine does not), 30 lost (mine reads, last-wins
/// does not), 8 changed; mine threw on 12, failed on 0`.
pub fn sentence(scan: &Scan, p: usize) -> String {
    let Some(c) = scan.comparisons.get(p) else { return String::new() };
    let classes: Vec<String> = Class::ALL
        .iter()
        .map(|&k| {
            let n = Row::Class(p, k).count(scan);
            format!("{} {}{}", thousands(n), k.name(), sides(scan, c, k, n))
        })
        .collect();
    let mut s = format!(
        "{}: {} read differently: {}",
        Row::Differs(p).label(&scan.config),
        thousands(Row::Differs(p).count(scan)),
        classes.join(", ")
    );
    let said = readers_said(scan, c.pair);
    if !said.is_empty() {
        s.push_str("; ");
        s.push_str(&said.join("; "));
    }
    s
}

/// Which side reads where a comparison's `n` replies of class `k` are, after their count
/// where there are any: ` (last-wins reads, mine does not)` for gained and lost, so that the
/// sentence never has to be read backwards; nothing for changed, or for a class with no reply.
pub fn sides(scan: &Scan, c: &Comparison, k: Class, n: usize) -> String {
    let (from, to) = (scan.config.catalogue.name(c.pair.from), scan.config.catalogue.name(c.pair.to));
    match k {
        _ if n == 0 => String::new(),
        Class::Gained => format!(" ({to} reads, {from} does not)"),
        Class::Lost => format!(" ({from} reads, {to} does not)"),
        Class::Changed => String::new(),
    }
}

/// What each command reader of `pair` gave that is not a value: `mine threw on 12, failed on
/// 0`, with text that is not JSON where there was any.
pub fn readers_said(scan: &Scan, pair: Pair) -> Vec<String> {
    let mut out = Vec::new();
    for r in [pair.from, pair.to] {
        if scan.notes(r).is_none() {
            continue;
        }
        let count = |o: Outcome| thousands(Row::Reader(r, o).count(scan));
        let mut s = format!("{} threw on {}", scan.config.catalogue.name(r), count(Outcome::Threw));
        if Row::Reader(r, Outcome::NotJson).count(scan) > 0 {
            s.push_str(&format!(", returned text that is not JSON on {}", count(Outcome::NotJson)));
        }
        s.push_str(&format!(", failed on {}", count(Outcome::Failed)));
        out.push(s);
    }
    out
}

/// The readers of one's own the scan ran, in order, each once.
pub fn own_readers(scan: &Scan) -> impl Iterator<Item = ReaderId> + '_ {
    scan.noted.iter().map(|n| n.reader)
}

/// What reader of one's own `reader` calls, in words: `the JavaScript function extractJson of
/// x.mjs, the only function it offers`, or `the command `…``.
pub fn calls(scan: &Scan, reader: ReaderId) -> Option<String> {
    let outside = scan.config.catalogue.commands().find(|(id, _)| *id == reader)?.1;
    Some(outside.description())
}

/// What reader of one's own `reader` calls, as `--json` gives it: `{language, file (or
/// module), function, found (named, default, only), via}` for a function, `{command}` for a
/// command; `null` for a reader that is not one's own.
pub fn calls_json(scan: &Scan, reader: ReaderId) -> serde_json::Value {
    let Some((_, outside)) = scan.config.catalogue.commands().find(|(id, _)| *id == reader) else {
        return serde_json::Value::Null;
    };
    match outside.adapter() {
        Some(a) => a.target_json(),
        None => serde_json::json!({ "command": outside.shown() }),
    }
}

/// How the filters of a front end group rows: rows of one kind are alternatives (decided by
/// A or B), kinds are all required, and each flag is a kind of its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Alternatives {
    Decided,
    Verdict,
    Agent,
    Round,
    Format,
    /// A flag: required on its own.
    Flag(Row),
}

/// Which of a row's replies [`Row::behind`] gives: those `keep` keeps, with what the scan
/// says of each where `said`.
struct Pick<'a> {
    keep: &'a dyn Fn(usize) -> bool,
    said: bool,
}

impl Pick<'_> {
    /// `items`, each naming its reply (`reply`) and saying what of it (`note`, made only for
    /// those given).
    fn of<T>(
        &self,
        items: impl IntoIterator<Item = T>,
        reply: impl Fn(&T) -> usize,
        note: impl Fn(&T) -> String,
    ) -> Vec<(usize, String)> {
        let kept = items.into_iter().filter(|t| (self.keep)(reply(t)));
        kept.map(|t| (reply(&t), if self.said { note(&t) } else { String::new() })).collect()
    }
}

impl Row {
    /// The row's label in the report.
    pub fn label(&self, config: &Config) -> String {
        match self {
            Row::Decided(d) => d.name().to_owned(),
            Row::Verdict(v) => v.name().to_owned(),
            Row::StrictUnreadable => "strict-only reads nothing".to_owned(),
            Row::Rescued => "  of which the repair reads".to_owned(),
            Row::RepairChanged => "repair changes a strict reading".to_owned(),
            Row::CutOff => "cut off".to_owned(),
            Row::Truncated(i) => format!("\"{}\": [ never closed", visible(field(config, *i), false)),
            Row::Differs(i) => match config.pairs.get(*i) {
                Some(p) => format!("{} → {}", config.catalogue.name(p.from), config.catalogue.name(p.to)),
                None => "?".to_owned(),
            },
            Row::Class(i, c) => format!("{}: {}", Row::Differs(*i).label(config), c.name()),
            Row::Reader(r, o) => format!("{}: {}", config.catalogue.name(*r), outcome_words(*o)),
            Row::Flag(f) => f.name().to_owned(),
            Row::Agent(n) | Row::Round(n) | Row::Format(n) => visible(n, false),
        }
    }

    /// The row as a filter or a status line names it, outside its section.
    pub fn name(&self, config: &Config) -> String {
        match self {
            Row::Decided(d) => format!("decided by {}", d.name()),
            Row::Verdict(v) => format!("whole reply {}", v.name()),
            Row::Rescued => "the repair reads what strict-only cannot".to_owned(),
            Row::Differs(i) => match config.pairs.get(*i) {
                Some(p) if p.against_seed() => format!("{} differs", config.catalogue.name(p.from)),
                Some(p) => format!("{} differs from {}", config.catalogue.name(p.from), config.catalogue.name(p.to)),
                None => "?".to_owned(),
            },
            Row::Class(i, c) => match config.pairs.get(*i) {
                Some(p) => {
                    let (a, b) = (config.catalogue.name(p.from), config.catalogue.name(p.to));
                    format!("{a} → {b}: {} ({})", c.name(), c.meaning(a, b))
                }
                None => "?".to_owned(),
            },
            Row::Reader(r, o) => format!("reader {} {}", config.catalogue.name(*r), outcome_words(*o)),
            Row::Flag(f) => format!("flag {}", f.name()),
            Row::Agent(n) => format!("agent {}", visible(n, false)),
            Row::Round(n) => format!("round {}", visible(n, false)),
            Row::Format(n) => format!("format {}", visible(n, false)),
            other => other.label(config).trim().to_owned(),
        }
    }

    /// Which rows a filter takes as alternatives to this one.
    pub fn alternatives(&self) -> Alternatives {
        match self {
            Row::Decided(_) => Alternatives::Decided,
            Row::Verdict(_) => Alternatives::Verdict,
            Row::Agent(_) => Alternatives::Agent,
            Row::Round(_) => Alternatives::Round,
            Row::Format(_) => Alternatives::Format,
            flag => Alternatives::Flag(flag.clone()),
        }
    }

    /// Whether the reply these facts are of is behind the row: the predicate every count of
    /// the row is made of.
    pub fn holds(&self, f: &Facts, config: &Config) -> bool {
        let group = |g: &Option<Name>, want: &str| g.as_deref().unwrap_or(NONE_KEY) == want;
        match self {
            Row::Decided(d) => f.decided_by == *d,
            Row::Verdict(v) => f.verdict == *v,
            Row::StrictUnreadable => !f.strict_reads,
            Row::Rescued => !f.strict_reads && f.reads,
            Row::RepairChanged => f.repair_changed,
            Row::CutOff => f.cut_off,
            Row::Truncated(i) => f.cut.iter().any(|(j, _)| j == i),
            Row::Differs(i) => i < &config.pairs.len() && f.difference(*i).is_some(),
            Row::Class(i, c) => i < &config.pairs.len() && f.differs(*i).is_some_and(|(k, _)| k == *c),
            Row::Reader(r, o) => f.noted(*r).is_some_and(|n| n.outcome == *o),
            Row::Flag(flag) => f.has(*flag),
            Row::Agent(a) => group(&f.agent, a),
            Row::Round(r) => group(&f.round, r),
            Row::Format(n) => f.format.name() == n,
        }
    }

    /// What the scan says of the reply these facts are of under the row, if it is behind it
    /// ([`Row::holds`]): what [`Row::replies`] gives beside its number (the account of a
    /// difference, the entries recovered from a cut array, a flag's sentence, what a reader
    /// said), so that a front end whose scan only counts ([`Scan::count`]) finds a row's
    /// replies among its own.
    pub fn said(&self, f: &Facts, config: &Config) -> Option<String> {
        if !self.holds(f, config) {
            return None;
        }
        Some(match self {
            Row::Truncated(i) => {
                f.cut.iter().find(|(j, _)| j == i).map(|&(_, n)| plural(n, "entry", "entries")).unwrap_or_default()
            }
            Row::Differs(i) | Row::Class(i, _) => f.difference(*i).unwrap_or_default().to_owned(),
            Row::Reader(r, _) => f.noted(*r).map(|n| n.note.to_string()).unwrap_or_default(),
            Row::Flag(flag) => f.flags.iter().find(|r| r.flag() == *flag).map(flags::explain).unwrap_or_default(),
            _ => String::new(),
        })
    }

    /// The scan's replies behind the row, in scan order, each with what the scan says of it
    /// there (the account of a difference, the entries recovered from a cut array).
    pub fn replies(&self, scan: &Scan) -> Vec<(usize, String)> {
        self.behind(scan, &|_| true, true)
    }

    /// Those of [`Row::replies`] that `keep` keeps (a round's, on the rounds screen): a
    /// flag's words are made for those alone.
    pub fn replies_kept(&self, scan: &Scan, keep: &dyn Fn(usize) -> bool) -> Vec<(usize, String)> {
        self.behind(scan, keep, true)
    }

    /// The numbers of [`Row::replies`] alone: a caller that counts or filters makes no words.
    pub fn reply_numbers(&self, scan: &Scan) -> Vec<usize> {
        self.behind(scan, &|_| true, false).into_iter().map(|(i, _)| i).collect()
    }

    /// The replies behind the row that `keep` keeps, with what the scan says of each where
    /// `said` (else nothing).
    fn behind(&self, scan: &Scan, keep: &dyn Fn(usize) -> bool, said: bool) -> Vec<(usize, String)> {
        let pick = Pick { keep, said };
        let plain = |v: &[usize]| pick.of(v, |&&i| i, |_| String::new());
        let group = |g: Option<&Group>| g.map(|g| plain(&g.replies)).unwrap_or_default();
        let account = |d: &&Difference| d.account.to_string();
        match self {
            Row::Decided(d) => plain(scan.decided(*d)),
            Row::Verdict(v) => plain(scan.verdict(*v)),
            Row::StrictUnreadable => plain(&scan.repair.strict_unreadable),
            Row::Rescued => plain(&scan.repair.rescued),
            Row::RepairChanged => plain(&scan.repair.changed),
            Row::CutOff => plain(&scan.cut_off),
            Row::Truncated(i) => scan
                .truncation
                .get(*i)
                .map(|t| pick.of(&t.replies, |&&(r, _)| r, |&&(_, n)| plural(n, "entry", "entries")))
                .unwrap_or_default(),
            Row::Differs(i) => {
                scan.comparisons.get(*i).map(|c| pick.of(&c.differ, |d| d.reply, account)).unwrap_or_default()
            }
            Row::Class(i, c) => {
                scan.comparisons.get(*i).map(|x| pick.of(x.of(*c), |d| d.reply, account)).unwrap_or_default()
            }
            Row::Reader(r, o) => {
                scan.notes(*r).map(|n| pick.of(n.of(*o), |(i, _)| *i, |(_, why)| why.to_string())).unwrap_or_default()
            }
            Row::Flag(f) => pick.of(scan.flagged(*f), |(i, _)| *i, |(_, why)| why.sentence().into_owned()),
            Row::Agent(a) => group(scan.by_agent.get(a)),
            Row::Round(r) => group(scan.by_round.get(r)),
            Row::Format(n) => group(scan.by_format.get(n)),
        }
    }

    /// How many replies are behind the row: those it lists, and those a scan put together
    /// from counts holds beyond them ([`Scan::unlisted`]).
    pub fn count(&self, scan: &Scan) -> usize {
        self.listed(scan) + scan.unlisted.rows.get(self).copied().unwrap_or(0)
    }

    /// How many replies the row lists.
    fn listed(&self, scan: &Scan) -> usize {
        let group = |g: Option<&Group>| g.map_or(0, |g| g.replies.len());
        match self {
            Row::Decided(d) => scan.decided(*d).len(),
            Row::Verdict(v) => scan.verdict(*v).len(),
            Row::StrictUnreadable => scan.repair.strict_unreadable.len(),
            Row::Rescued => scan.repair.rescued.len(),
            Row::RepairChanged => scan.repair.changed.len(),
            Row::CutOff => scan.cut_off.len(),
            Row::Truncated(i) => scan.truncation.get(*i).map_or(0, |t| t.replies.len()),
            Row::Differs(i) => scan.comparisons.get(*i).map_or(0, |c| c.differ.len()),
            Row::Class(i, c) => scan.comparisons.get(*i).map_or(0, |x| x.count(*c)),
            Row::Reader(r, o) => scan.notes(*r).map_or(0, |n| n.of(*o).len()),
            Row::Flag(f) => scan.flagged(*f).len(),
            Row::Agent(a) => group(scan.by_agent.get(a)),
            Row::Round(r) => group(scan.by_round.get(r)),
            Row::Format(n) => group(scan.by_format.get(n)),
        }
    }

    /// What the count is a share of: the replies, or for the rescued the strict-unreadable.
    pub fn of(&self, scan: &Scan) -> usize {
        match self {
            Row::Rescued => Row::StrictUnreadable.count(scan),
            _ => scan.reply_count(),
        }
    }

    /// The word beside the count: its share, or what the row recovered.
    pub fn note(&self, scan: &Scan) -> String {
        match self {
            Row::Truncated(i) => {
                let entries = scan.truncation.get(*i).map_or(0, |t| t.entries);
                format!("{} recovered", plural(entries, "entry", "entries"))
            }
            Row::Differs(i) => scan
                .comparisons
                .get(*i)
                .map(|c| scan.config.catalogue.description(c.pair.from).to_owned())
                .unwrap_or_default(),
            Row::Agent(_) | Row::Round(_) | Row::Format(_) => String::new(),
            _ => percent(self.count(scan), self.of(scan)),
        }
    }

    /// The group the row is, for a section of groups.
    pub fn group<'a>(&self, scan: &'a Scan) -> Option<&'a Group> {
        match self {
            Row::Agent(a) => scan.by_agent.get(a),
            Row::Round(r) => scan.by_round.get(r),
            Row::Format(n) => scan.by_format.get(n),
            _ => None,
        }
    }

    /// Where the row's count sits in `scan --json` (and its ids under `ids`): the top key and,
    /// within it, the row's own.
    pub fn json_key(&self, config: &Config) -> (&'static str, Option<String>) {
        match self {
            Row::Decided(d) => ("decided_by", Some(d.name().to_owned())),
            Row::Verdict(v) => ("whole_reply", Some(v.name().to_owned())),
            Row::StrictUnreadable => ("repair", Some("strict_unreadable".to_owned())),
            Row::Rescued => ("repair", Some("rescued".to_owned())),
            Row::RepairChanged => ("repair", Some("changed".to_owned())),
            Row::CutOff => ("cut_off", None),
            Row::Truncated(i) => ("truncation", Some(field(config, *i).to_owned())),
            Row::Differs(i) => ("comparisons", Some(config.pairs.get(*i).map(|p| config.key(p)).unwrap_or_default())),
            // A class is listed within its comparison, each reply with its class.
            Row::Class(i, _) => ("comparisons", Some(config.pairs.get(*i).map(|p| config.key(p)).unwrap_or_default())),
            Row::Reader(r, o) => {
                let top = match o {
                    Outcome::Threw => "reader_threw",
                    Outcome::NotJson => "reader_not_json",
                    _ => "reader_failed",
                };
                (top, Some(config.catalogue.name(*r).to_owned()))
            }
            Row::Flag(f) => ("flags", Some(f.name().to_owned())),
            Row::Agent(n) => ("by_agent", Some(n.clone())),
            Row::Round(n) => ("by_round", Some(n.clone())),
            Row::Format(n) => ("by_format", Some(n.clone())),
        }
    }

    /// The pair of a comparison row.
    pub fn pair(&self, config: &Config) -> Option<Pair> {
        match self {
            Row::Differs(i) | Row::Class(i, _) => config.pairs.get(*i).copied(),
            _ => None,
        }
    }
}

impl Scan {
    /// The scan as [`Scan::count`] would have folded it: every row's count kept, its list
    /// not, nor the replies' names and page calls.
    pub fn into_counts(mut self) -> Scan {
        let mut rows: Vec<Row> = sections(&self).into_iter().flat_map(|s| s.rows).collect();
        rows.extend((0..self.comparisons.len()).flat_map(|p| Class::ALL.map(|c| Row::Class(p, c))));
        for row in rows {
            let n = row.count(&self);
            if n > 0 {
                self.unlisted.rows.insert(row, n);
            }
        }
        self.unlisted.replies += std::mem::take(&mut self.replies).len();
        self.unlisted.calls_without_reply += std::mem::take(&mut self.calls_without_reply).len();
        for g in self.by_agent.values_mut().chain(self.by_round.values_mut()).chain(self.by_format.values_mut()) {
            g.replies = Vec::new();
        }
        self.decided_by = Default::default();
        self.whole_reply = Default::default();
        self.repair = Repair::default();
        self.cut_off = Vec::new();
        for t in &mut self.truncation {
            t.replies = Vec::new();
        }
        for c in &mut self.comparisons {
            c.differ = Vec::new();
        }
        for n in &mut self.noted {
            n.replies = Default::default();
        }
        self.flags = Default::default();
        self.pages = Pages::default();
        self
    }
}

/// What a command reader gave, in a row's words.
fn outcome_words(o: Outcome) -> &'static str {
    match o {
        Outcome::Read => "read",
        Outcome::Nothing => "returned nothing",
        Outcome::Threw => "threw",
        Outcome::NotJson => "returned text that is not JSON",
        Outcome::Failed => "failed",
    }
}

fn field(config: &Config, i: usize) -> &str {
    config.fields.get(i).map_or("?", String::as_str)
}

/// `142 replies, 290,452 bytes, 3 calls with no reply, 12 diagnostics`: what was read.
pub fn headline(scan: &Scan) -> String {
    let mut s = format!(
        "{}, {} bytes",
        plural(scan.reply_count(), "reply", "replies"),
        thousands(usize::try_from(scan.bytes).unwrap_or(usize::MAX))
    );
    if scan.calls_without_reply_count() > 0 {
        s.push_str(&format!(", {} with no reply", plural(scan.calls_without_reply_count(), "call", "calls")));
    }
    s.push_str(&format!(", {}", plural(scan.diagnostic_count(), "diagnostic", "diagnostics")));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Scanner;

    #[test]
    fn every_row_counts_the_replies_it_holds() {
        let config = Config::default();
        let texts = [
            "Template:\n{ \"html\": \"...\" }\nAnswer:\n{\"html\": \"<p>real</p>\"}",
            r#"{"faithful": false, "notes": "I first read it as { "faithful": true }; no."}"#,
            r#"{"edits":[{"a":1},{"b":2},{"c":"#,
            "{\"html\": \"<p>\"quoted\"</p>\"}",
            " null ",
            "\u{feff}[1,2]",
            "prose {x} more",
        ];
        let facts: Vec<Facts> = texts.iter().map(|t| Facts::of_text(t, false, &config, &[])).collect();
        let mut scanner = Scanner::new(config.clone());
        for f in &facts {
            scanner.add_facts(f.clone());
        }
        let scan = scanner.finish();
        let mut rows: Vec<Row> = sections(&scan).into_iter().flat_map(|s| s.rows).collect();
        // And each comparison's classes, which are rows within it.
        rows.extend((0..config.pairs.len()).flat_map(|p| Class::ALL.map(|c| Row::Class(p, c))));
        // Counted without lists, as the inspector's summary folds them.
        let mut counted = Scan::new(config.clone());
        for f in &facts {
            counted.count(f);
        }
        assert_eq!(counted, scan.clone().into_counts());
        assert_eq!(counted.reply_count(), facts.len());
        for row in &rows {
            let held: Vec<usize> = (0..facts.len()).filter(|&i| row.holds(&facts[i], &config)).collect();
            let behind: Vec<usize> = row.reply_numbers(&scan);
            assert_eq!(held, behind, "{row:?}");
            assert_eq!(row.count(&scan), held.len(), "{row:?}");
            assert_eq!(row.count(&counted), held.len(), "{row:?}");
            // What the scan says of each, found from the reply's facts alone.
            let said: Vec<(usize, String)> =
                (0..facts.len()).filter_map(|i| Some((i, row.said(&facts[i], &config)?))).collect();
            assert_eq!(said, row.replies(&scan), "{row:?}");
        }
        for p in 0..config.pairs.len() {
            assert_eq!(sentence(&counted, p), sentence(&scan, p));
        }
        assert!(rows.iter().any(|r| matches!(r, Row::Flag(_)) && r.count(&scan) > 0));
        assert!(rows.iter().any(|r| matches!(r, Row::Truncated(_)) && r.count(&scan) > 0));
        // The classes of a comparison are its differences, each once.
        for p in 0..config.pairs.len() {
            let n: usize = Class::ALL.iter().map(|&c| Row::Class(p, c).count(&scan)).sum();
            assert_eq!(n, Row::Differs(p).count(&scan));
        }
        assert!(rows.iter().any(|r| matches!(r, Row::Class(_, Class::Gained)) && r.count(&scan) > 0));
        assert!(rows.iter().any(|r| matches!(r, Row::Class(_, Class::Changed)) && r.count(&scan) > 0));
    }
}

#[cfg(test)]
mod command_tests {
    use std::sync::Arc;

    use super::*;
    use crate::exact::js;
    use crate::readers::own::Outside;
    use crate::readers::{Catalogue, Given};
    use crate::scan::Scanner;

    /// What a reader of one's own gave, reply by reply: a value, nothing, a throw, text that
    /// is not JSON, a failure. A throw and text that is not JSON are nothing read, compared
    /// with the seed as nothing and counted apart; a failure is not compared.
    #[test]
    fn a_throw_is_nothing_read_and_a_failure_is_not_compared() {
        let mut catalogue = Catalogue::builtin();
        let mine = catalogue.add_command("mine", Outside::command("true")).unwrap();
        let mut config = Config::new(catalogue);
        config.pairs = vec![Pair { from: mine, to: crate::readers::ReaderId::LAST_WINS }];
        let failed = Given::Failed(Arc::from("reader failed: exited"));
        let cases = [
            ("{\"a\":1}", Given::Read(js::parse("{\"a\":1}").unwrap())),
            ("{\"a\":1}", Given::Nothing),
            ("{\"a\":1}", failed.clone()),
            ("nothing", failed),
            ("{\"a\":1}", Given::Threw(Arc::from("SyntaxError: no JSON"))),
            ("nothing", Given::Threw(Arc::from("SyntaxError: no JSON"))),
            ("{\"a\":1}", Given::not_json("{a:1}")),
            ("{\"a\":1}", Given::Read(js::parse("[1]").unwrap())),
            ("nothing", Given::Read(js::parse("{\"b\":2}").unwrap())),
        ];
        let facts: Vec<Facts> =
            cases.iter().map(|(t, g)| Facts::of_text(t, false, &config, &[(mine, g.clone())])).collect();
        let mut scanner = Scanner::new(config.clone());
        for f in &facts {
            scanner.add_facts(f.clone());
        }
        let scan = scanner.finish();
        let ids = |row: Row| row.reply_numbers(&scan);
        let failed = Row::Reader(mine, Outcome::Failed);
        assert_eq!(failed.count(&scan), 2);
        assert_eq!(
            failed.replies(&scan),
            [(2, "reader failed: exited".to_owned()), (3, "reader failed: exited".to_owned())]
        );
        assert_eq!(
            Row::Reader(mine, Outcome::Threw).replies(&scan),
            [(4, "SyntaxError: no JSON".to_owned()), (5, "SyntaxError: no JSON".to_owned())]
        );
        assert_eq!(Row::Reader(mine, Outcome::NotJson).replies(&scan), [(6, "{a:1}".to_owned())]);
        // The seed reads `{a:1}` where mine read nothing, threw or returned text: gained.
        assert_eq!(ids(Row::Class(0, Class::Gained)), [1, 4, 6]);
        assert_eq!(ids(Row::Class(0, Class::Lost)), [8]);
        assert_eq!(ids(Row::Class(0, Class::Changed)), [7]);
        assert_eq!(ids(Row::Differs(0)), [1, 4, 6, 7, 8]);
        assert_eq!(Row::Differs(0).replies(&scan)[0], (1, "null → value {a}".to_owned()));
        assert_eq!(
            sentence(&scan, 0),
            "mine → last-wins: 5 read differently: 3 gained (last-wins reads, mine does not), 1 lost (mine \
             reads, last-wins does not), 1 changed; mine threw on 2, returned text that is not JSON on 1, failed on 2"
        );
        assert_eq!(failed.json_key(&config), ("reader_failed", Some("mine".to_owned())));
        assert_eq!(Row::Reader(mine, Outcome::Threw).json_key(&config), ("reader_threw", Some("mine".to_owned())));
        let mut rows: Vec<Row> = sections(&scan).into_iter().flat_map(|s| s.rows).collect();
        rows.extend(Class::ALL.map(|c| Row::Class(0, c)));
        let mut counted = Scan::new(config.clone());
        for f in &facts {
            counted.count(f);
        }
        assert_eq!(counted, scan.clone().into_counts());
        assert_eq!(sentence(&counted, 0), sentence(&scan, 0));
        for row in &rows {
            let held: Vec<usize> = (0..facts.len()).filter(|&i| row.holds(&facts[i], &config)).collect();
            assert_eq!(held, ids(row.clone()), "{row:?}");
            assert_eq!(row.count(&scan), held.len(), "{row:?}");
            let said: Vec<(usize, String)> =
                (0..facts.len()).filter_map(|i| Some((i, row.said(&facts[i], &config)?))).collect();
            assert_eq!(said, row.replies(&scan), "{row:?}");
        }
    }
}
